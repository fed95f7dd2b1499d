//! The gateway's configuration: one TOML file. Unknown keys and out-of-range
//! values are refused with the key's path and line; secrets are only ever named
//! (environment variables), never written in the file, and are redacted when the
//! effective configuration is printed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use toml::Spanned;

mod admin;
mod auth;
mod diff;
mod digest;
mod http;
mod limits;
mod oauth;
mod profiles;
mod reload;
mod replicas;
mod servers;
mod state;
mod telemetry;

pub use admin::AdminConfig;
pub(crate) use auth::secure_url;
pub use auth::{AuthConfig, KNOWN_ALGORITHMS};
pub use diff::diff;
pub use http::HttpConfig;
pub use limits::{Limits, PolicyConfig};
pub use oauth::{OAuthConfig, GATEWAY_LOGIN};
pub use profiles::{ProfileConfig, DEFAULT_PROFILE};
pub use reload::{needs_restart, RESTART_ONLY};
pub use replicas::ReplicasConfig;
pub use servers::{is_loopback_url, redact_url, shown_env, ServerConfig};
pub use state::{default_manifest_dir, oauth_dir};
pub use telemetry::TelemetryConfig;

/// A configuration problem, with the key and line it is about.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ConfigError {
    /// What is wrong, naming the key and its line.
    pub message: String,
}

pub(super) fn error(message: impl Into<String>) -> ConfigError {
    ConfigError {
        message: message.into(),
    }
}

/// `mode`: the shape deferral takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ModeName {
    /// `tool_search_code`.
    #[default]
    Code,
    /// `tool_search`, `tool_describe`, `tool_call`.
    Tools,
    /// Progressive disclosure: stubs (or, hidden, the names in `tool_search`'s
    /// description), and `tool_search` answers with full schemas; in the hidden form
    /// the revealed tools are appended to the session's list (which hears
    /// `notifications/tools/list_changed`).
    Reveal,
    /// Provider-hosted search: MCP has none, so the gateway refuses it at start.
    Native,
    /// Native where the provider hosts search, code elsewhere (code over MCP).
    Auto,
}

/// `activation`: when deferral is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ActivationName {
    /// By the thresholds.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never: a plain aggregator.
    Never,
}

/// `destructive`: what happens to a call of a tool annotated `destructiveHint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Destructive {
    /// Refused.
    #[default]
    Deny,
    /// Run like any other call.
    Allow,
    /// Asked of the user through MCP elicitation when the client supports it, else refused.
    Elicit,
}

/// Where the gateway's embedding model comes from ([`Config::embed_model_choice`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelFrom {
    /// `embed_model` in the file: not loading it is an error.
    Config,
    /// `TOOLSEARCH_EMBED_MODEL`.
    Env,
    /// The one `toolsearch model fetch` installed in the user's cache.
    Installed,
    /// `semantic = false`, or a plain aggregator (no search to fuse it with).
    Off,
    /// No model anywhere: search is lexical.
    None,
}

impl ModelFrom {
    /// As `config check` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelFrom::Config => "config",
            ModelFrom::Env => "env",
            ModelFrom::Installed => "installed",
            ModelFrom::Off => "off",
            ModelFrom::None => "none",
        }
    }
}

/// `[reveal]`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RevealConfig {
    /// Send no stubs: the names of deferred tools go in `tool_search`'s
    /// description. Default false (chosen anyway above `max_stub_bytes`).
    pub hidden: Option<bool>,
    /// Above this many bytes of stubs the hidden form is used (1,024 to
    /// 1,048,576). Default 32,768.
    pub max_stub_bytes: Option<Spanned<u64>>,
}

/// The whole file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `code` (default) or `tools`.
    #[serde(default)]
    pub mode: ModeName,
    /// `auto` (default), `always` or `never`.
    pub activation: Option<ActivationName>,
    /// `false` is shorthand for `activation = "never"`.
    pub tool_search: Option<bool>,
    /// Deferrable tools that switch deferral on (1 to 100,000). Default 15.
    pub threshold: Option<Spanned<u64>>,
    /// Or this % of the context window taken by schemas (1 to 100). Default 10.
    pub threshold_pct: Option<Spanned<u64>>,
    /// The model's context window in tokens (1,000 to 100,000,000), for `threshold_pct`.
    /// Default: the window of `model` (a documented table), else 128,000 (the
    /// smallest common window: a gateway does not know its clients' model).
    pub context_window: Option<Spanned<u64>>,
    /// The model the gateway's clients run (e.g. `claude-sonnet-4-5`), for its
    /// context window when `context_window` is not set.
    pub model: Option<String>,
    /// Hits per search when the caller gives no limit (1 to 50). Default 8.
    pub search_default_limit: Option<Spanned<u64>>,
    /// Most hits per search (1 to 50, at least `search_default_limit`). Default 20.
    pub max_search_limit: Option<Spanned<u64>>,
    /// Tools never deferred: id, name or wire name.
    #[serde(default)]
    pub never_defer: Vec<String>,
    /// `deny` (default), `allow` or `elicit`.
    #[serde(default)]
    pub destructive: Destructive,
    /// `[limits]`.
    #[serde(default)]
    pub limits: Limits,
    /// `[policy]`.
    #[serde(default)]
    pub policy: PolicyConfig,
    /// `[http]`.
    #[serde(default)]
    pub http: HttpConfig,
    /// `[reveal]`: reveal mode's form.
    #[serde(default)]
    pub reveal: RevealConfig,
    /// `[[servers]]`.
    #[serde(default)]
    pub servers: Vec<ServerConfig>,
    /// `[[profiles]]`: who sees which tools (see [`ProfileConfig`]).
    #[serde(default)]
    pub profiles: Vec<ProfileConfig>,
    /// `[auth]`: the gateway as an OAuth resource server.
    pub auth: Option<AuthConfig>,
    /// `[admin]`: the operator's surface (health, readiness, metrics).
    pub admin: Option<AdminConfig>,
    /// `[telemetry]`: metrics on or off, and traces over OTLP.
    #[serde(default)]
    pub telemetry: TelemetryConfig,
    /// `[replicas]`: several gateways on one file, sharing through Redis.
    #[serde(default)]
    pub replicas: ReplicasConfig,
    /// The embedding model fused with search (a sentence-transformers directory).
    /// Default: `TOOLSEARCH_EMBED_MODEL`, else the model `toolsearch model fetch`
    /// installed in the user's cache, else none (lexical search).
    pub embed_model: Option<PathBuf>,
    /// `false`: lexical search only, even where a model is installed. Default true.
    pub semantic: Option<bool>,
    /// Every server is lazy unless it says otherwise (see `servers[].lazy`):
    /// started by its first call, its tools served from its manifest until
    /// then. Default false.
    pub lazy: Option<bool>,
    /// Where servers' manifests (their last tool lists, served while they start;
    /// a lazy one's until its first call) are kept. Default
    /// `$XDG_STATE_HOME/toolsearch/servers`, else `~/.local/state/toolsearch/servers`.
    pub manifest_dir: Option<PathBuf>,
}

/// The largest configuration file the gateway reads: 4 MiB.
pub const MAX_CONFIG_BYTES: u64 = 4 << 20;

impl Config {
    /// Reads and checks a file (at most [`MAX_CONFIG_BYTES`]).
    ///
    /// # Errors
    /// The file cannot be read, is not TOML, has unknown keys or out-of-range values.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = crate::trust::read_trusted(path, MAX_CONFIG_BYTES, crate::trust::Trust::Shared)
            .and_then(|b| String::from_utf8(b).map_err(|_| "the file is not UTF-8".to_string()))
            .map_err(|e| error(format!("cannot read {}: {e}", path.display())))?;
        let mut cfg = Config::parse(&text)
            .map_err(|e| error(format!("{}: {}", path.display(), e.message)))?;
        let base = path.parent().unwrap_or(Path::new(""));
        let rebase = |p: &mut Option<PathBuf>| {
            if let Some(p) = p.as_mut().filter(|p| p.is_relative()) {
                *p = base.join(&*p);
            }
        };
        rebase(&mut cfg.embed_model);
        rebase(&mut cfg.manifest_dir);
        rebase(&mut cfg.http.tls_cert);
        rebase(&mut cfg.http.tls_key);
        if let Some(admin) = &mut cfg.admin {
            rebase(&mut admin.tls_cert);
            rebase(&mut admin.tls_key);
        }
        for s in &mut cfg.servers {
            rebase(&mut s.ca_file);
        }
        for p in &mut cfg.profiles {
            rebase(&mut p.token_file);
        }
        Ok(cfg)
    }

    /// Parses and checks the text of a file.
    ///
    /// # Errors
    /// As [`Config::load`].
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        let cfg: Config = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| format!("line {}: ", line_of(text, s.start)))
                .unwrap_or_default();
            error(format!("{at}{}", e.message().trim_end()))
        })?;
        cfg.check(text)?;
        Ok(cfg)
    }

    fn check(&self, text: &str) -> Result<(), ConfigError> {
        let range =
            |key: &str, v: &Option<Spanned<u64>>, lo: u64, hi: u64| range(text, key, v, lo, hi);
        range("threshold", &self.threshold, 1, 100_000)?;
        range("threshold_pct", &self.threshold_pct, 1, 100)?;
        range("context_window", &self.context_window, 1_000, 100_000_000)?;
        range("search_default_limit", &self.search_default_limit, 1, 50)?;
        range("max_search_limit", &self.max_search_limit, 1, 50)?;
        range(
            "reveal.max_stub_bytes",
            &self.reveal.max_stub_bytes,
            1024,
            1 << 20,
        )?;
        self.limits.check(text)?;
        self.http.check(text)?;
        if self.search_limit() > self.max_search() {
            let line = self
                .search_default_limit
                .as_ref()
                .map_or(0, |s| line_of(text, s.span().start));
            return Err(error(format!(
                "line {line}: `search_default_limit` ({}) is above `max_search_limit` ({})",
                self.search_limit(),
                self.max_search()
            )));
        }
        if self.tool_search == Some(false)
            && self.activation.is_some_and(|a| a != ActivationName::Never)
        {
            return Err(error(
                "`tool_search = false` means `activation = \"never\"`; remove one of them",
            ));
        }
        servers::check(&self.servers, text)?;
        profiles::check(&self.profiles, &self.servers, text)?;
        oauth::check(&self.servers, &self.profiles, text)?;
        if let Some(auth) = &self.auth {
            auth.check(text)?;
        }
        if let Some(admin) = &self.admin {
            admin.check()?;
        }
        self.telemetry.check()?;
        self.replicas.check()?;
        if self.mode == ModeName::Native {
            return Err(error(format!(
                "line {}: `mode = \"native\"`: MCP clients have no provider-hosted tool \
                 search; use code, tools, reveal or auto",
                key_line(text, "mode")
            )));
        }
        // What the gateway builds from this file passes the facade's own checks:
        // `config check` and `gateway` refuse the same files.
        if let Err(e) = self.settings().validate() {
            // The facade's names of the settings the file names otherwise.
            let key = match e.setting {
                "share_threshold" => "threshold_pct",
                "count_threshold" => "threshold",
                other => other,
            };
            return Err(error(format!(
                "line {}: `{key}`: {}",
                key_line(text, key),
                e.message
            )));
        }
        for p in &self.profiles {
            if let Err(e) = self.profile_settings(p).validate() {
                return Err(error(format!(
                    "line {}: profiles `{}`: `{}`: {}",
                    line_of(text, p.name.span().start),
                    p.name(),
                    e.setting,
                    e.message
                )));
            }
        }
        Ok(())
    }

    /// The facade settings this configuration asks for.
    pub fn settings(&self) -> toolsearch::Settings {
        use toolsearch::Activation;
        let v = |s: &Option<Spanned<u64>>| s.as_ref().map(|s| *s.get_ref());
        toolsearch::Settings {
            mode: mode_of(self.mode),
            // What the gateway serves: MCP's shape (native mode is refused for it).
            provider: Some(toolsearch::Provider::Mcp),
            activation: match self.activation() {
                ActivationName::Auto => Activation::Auto,
                ActivationName::Always => Activation::Always,
                ActivationName::Never => Activation::Never,
            },
            count_threshold: v(&self.threshold)
                .map_or(toolsearch::DEFAULT_COUNT_THRESHOLD, |n| n as usize),
            share_threshold: v(&self.threshold_pct)
                .map_or(toolsearch::DEFAULT_SHARE_THRESHOLD, |p| p as f64 / 100.0),
            context_window: v(&self.context_window).map(|n| n as usize),
            model: self.model.clone(),
            never_defer: self.never_defer.clone(),
            search_default_limit: self.search_limit(),
            max_search_limit: self.max_search(),
            reveal: {
                let d = toolsearch::reveal::RevealSettings::default();
                toolsearch::reveal::RevealSettings {
                    hidden: self.reveal.hidden.unwrap_or(d.hidden),
                    max_stub_bytes: v(&self.reveal.max_stub_bytes)
                        .map_or(d.max_stub_bytes, |n| n as usize),
                    ..d
                }
            },
            ..toolsearch::Settings::default()
        }
    }

    /// The embedding model the gateway loads, and where the choice came from.
    /// Looks only at the files.
    pub fn embed_model_choice(&self) -> (Option<PathBuf>, ModelFrom) {
        if self.semantic == Some(false) || self.activation() == ActivationName::Never {
            return (None, ModelFrom::Off);
        }
        if let Some(dir) = &self.embed_model {
            return (Some(dir.clone()), ModelFrom::Config);
        }
        match toolsearch_embed::default_model_dir() {
            Some(dir) if std::env::var_os("TOOLSEARCH_EMBED_MODEL").is_some() => {
                (Some(dir), ModelFrom::Env)
            }
            Some(dir) => (Some(dir), ModelFrom::Installed),
            None => (None, ModelFrom::None),
        }
    }

    /// Hits per search when none is asked for.
    pub fn search_limit(&self) -> usize {
        self.search_default_limit
            .as_ref()
            .map_or(8, |s| *s.get_ref() as usize)
    }

    /// Most hits per search.
    pub fn max_search(&self) -> usize {
        self.max_search_limit
            .as_ref()
            .map_or(20, |s| *s.get_ref() as usize)
    }

    /// The effective activation.
    pub fn activation(&self) -> ActivationName {
        match (self.tool_search, self.activation) {
            (Some(false), _) => ActivationName::Never,
            (_, Some(a)) => a,
            _ => ActivationName::Auto,
        }
    }

    /// A snippet's wall-clock budget.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(*self.limits.timeout_ms.get_ref())
    }

    /// One downstream call's budget.
    pub fn call_timeout(&self) -> Duration {
        Duration::from_millis(*self.limits.call_timeout_ms.get_ref())
    }

    /// Longest wait for one approval.
    pub fn approval_timeout(&self) -> Duration {
        Duration::from_millis(*self.limits.approval_timeout_ms.get_ref())
    }

    /// How long a server may take to start.
    pub fn startup_timeout(&self) -> Duration {
        Duration::from_millis(*self.limits.startup_timeout_ms.get_ref())
    }

    /// How long the first list waits for servers not known yet (at most the
    /// startup timeout).
    pub fn first_list_wait(&self) -> Duration {
        Duration::from_millis(*self.limits.first_list_ms.get_ref()).min(self.startup_timeout())
    }

    /// Whether `server` starts only when a call needs it.
    pub fn is_lazy(&self, server: &ServerConfig) -> bool {
        server.lazy.or(self.lazy).unwrap_or(false)
    }

    /// How long a lazy `server` may sit with no call before it is stopped
    /// (`None`: never).
    pub fn idle_stop(&self, server: &ServerConfig) -> Option<Duration> {
        let ms = server
            .idle_stop_ms
            .as_ref()
            .map_or(*self.limits.idle_stop_ms.get_ref(), |v| *v.get_ref());
        (ms > 0).then(|| Duration::from_millis(ms))
    }

    /// Where manifests are kept (`None`: no state directory is known).
    pub fn manifest_dir(&self) -> Option<PathBuf> {
        self.manifest_dir.clone().or_else(default_manifest_dir)
    }

    /// The effective configuration as JSON, every default filled in and every secret
    /// (env values, header values) redacted: what `toolsearch config check` prints.
    pub fn effective(&self) -> serde_json::Value {
        let servers: Vec<serde_json::Value> =
            self.servers.iter().map(ServerConfig::effective).collect();
        let v = |s: &Option<Spanned<u64>>, d: u64| s.as_ref().map_or(d, |s| *s.get_ref());
        let settings = self.settings();
        let (window, window_from) = settings.window();
        let embed = self.embed_model_choice();
        serde_json::json!({
            "mode": self.mode,
            "activation": self.activation(),
            "threshold": v(&self.threshold, 15),
            "threshold_pct": v(&self.threshold_pct, 10),
            "model": self.model,
            "context_window": {
                "tokens": window,
                "from": window_from.to_string(),
            },
            "semantic": embed.0.is_some(),
            "embed_model": {
                "path": embed.0.as_ref().map(|p| p.display().to_string()),
                "from": embed.1.as_str(),
                "note": (embed.1 == ModelFrom::None).then_some(toolsearch_embed::MISSING_MODEL),
            },
            "search_default_limit": self.search_limit(),
            "max_search_limit": self.max_search(),
            "never_defer": self.never_defer,
            "destructive": self.destructive,
            "limits": self.limits.effective(),
            "policy": {"allow": self.policy.allow, "deny": self.policy.deny},
            "http": self.http.effective(),
            "reveal": {
                "hidden": settings.reveal.hidden,
                "max_stub_bytes": settings.reveal.max_stub_bytes,
            },
            "lazy": self.lazy.unwrap_or(false),
            "manifest_dir": self.manifest_dir().map(|p| p.display().to_string()),
            "servers": servers,
            "profiles": self.profiles().iter().map(|p| p.effective(&self.http)).collect::<Vec<_>>(),
            "auth": self.auth.as_ref().map(AuthConfig::effective),
            "admin": self.admin.as_ref().map(AdminConfig::effective),
            "telemetry": self.telemetry.effective(),
            "replicas": self.replicas.effective(),
        })
    }
}

pub(super) fn mode_of(mode: ModeName) -> toolsearch::Mode {
    use toolsearch::Mode;
    match mode {
        ModeName::Code => Mode::Code,
        ModeName::Tools => Mode::Tools,
        ModeName::Reveal => Mode::Reveal,
        ModeName::Native => Mode::Native,
        ModeName::Auto => Mode::Auto,
    }
}

/// Checks that a number in the file is within `lo..=hi`; the error names the
/// key and its line.
pub(super) fn range(
    text: &str,
    key: &str,
    v: &Option<Spanned<u64>>,
    lo: u64,
    hi: u64,
) -> Result<(), ConfigError> {
    match v {
        Some(s) if !(lo..=hi).contains(s.get_ref()) => Err(error(format!(
            "line {}: `{key}` is {}; it must be between {lo} and {hi}",
            line_of(text, s.span().start),
            s.get_ref()
        ))),
        _ => Ok(()),
    }
}

/// 1-based line of the top-level `key = ...` in the file (0 when it is not there:
/// a default is at fault).
fn key_line(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map_or(0, |i| i + 1)
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
mode = "code"
activation = "auto"
threshold = 15
search_default_limit = 8
max_search_limit = 20
never_defer = ["mcp:time:get_current_time"]
destructive = "deny"

[limits]
timeout_ms = 10000

[policy]
allow = ["mcp:*"]

[[servers]]
name = "time"
command = "python3"
args = ["-m", "mcp_server_time"]
env = { TZ = "UTC", TIME_API_KEY = "sk-live-secret" }

[[servers]]
name = "remote"
url = "http://user:pw@127.0.0.1:3001/mcp?key=abc"
bearer_token_env = "REMOTE_TOKEN"
deny = ["*delete*"]
"#;

    #[test]
    fn a_good_file_parses_and_prints_without_secrets() {
        let cfg = Config::parse(GOOD).unwrap();
        assert_eq!(cfg.servers.len(), 2);
        let shown = cfg.effective().to_string();
        assert!(
            !shown.contains("sk-live") && !shown.contains("pw") && !shown.contains("abc"),
            "{shown}"
        );
        assert!(shown.contains("REMOTE_TOKEN"));
        // A plain setting is shown as it is (issue 60).
        assert!(shown.contains(r#""TZ":"UTC""#), "{shown}");
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key_and_line() {
        let e = Config::parse("mode = \"code\"\nthreshhold = 3\n").unwrap_err();
        assert!(
            e.message.contains("line 2") && e.message.contains("threshhold"),
            "{}",
            e.message
        );
        let e = Config::parse("\n\nsearch_default_limit = 99\n").unwrap_err();
        assert!(
            e.message.contains("line 3") && e.message.contains("search_default_limit"),
            "{}",
            e.message
        );
        let e = Config::parse("mode = \"fast\"\n").unwrap_err();
        assert!(e.message.contains("line 1"), "{}", e.message);
        let e = Config::parse("[[servers]]\nname = \"a:b\"\ncommand = \"x\"\n").unwrap_err();
        assert!(
            e.message.contains("line 2") && e.message.contains("servers[0].name"),
            "{}",
            e.message
        );
        let e = Config::parse("[[servers]]\nname = \"a\"\ncommand = \"x\"\n[[servers]]\nname = \"A\"\nurl = \"http://x\"\n").unwrap_err();
        assert!(e.message.contains("used twice"), "{}", e.message);
        let e = Config::parse("[[servers]]\nname = \"a\"\n").unwrap_err();
        assert!(e.message.contains("needs `command`"), "{}", e.message);
        let e = Config::parse("[limits]\ntimeout_ms = 5\n").unwrap_err();
        assert!(
            e.message.contains("limits.timeout_ms") && e.message.contains("line 2"),
            "{}",
            e.message
        );
        let e = Config::parse("search_default_limit = 30\nmax_search_limit = 10\n").unwrap_err();
        assert!(e.message.contains("above"), "{}", e.message);
    }

    #[test]
    fn tls_settings_are_checked_and_tokens_never_go_out_in_clear_text() {
        let e = Config::parse(
            "[[servers]]\nname = \"a\"\nurl = \"http://mcp.example.com/mcp\"\nbearer_token_env = \"T\"\n",
        )
        .unwrap_err();
        assert!(e.message.contains("clear text"), "{}", e.message);
        for url in [
            "http://127.0.0.1:9/mcp",
            "http://localhost/mcp",
            "http://[::1]:8/x",
        ] {
            let text =
                format!("[[servers]]\nname = \"a\"\nurl = \"{url}\"\nbearer_token_env = \"T\"\n");
            assert!(Config::parse(&text).is_ok(), "{url}");
        }
        let text = "[[servers]]\nname = \"a\"\nurl = \"http://localhost.evil.com/mcp\"\nbearer_token_env = \"T\"\n";
        assert!(Config::parse(text).is_err());
        let e =
            Config::parse("[[servers]]\nname = \"a\"\nurl = \"http://x/\"\nca_file = \"ca.pem\"\n")
                .unwrap_err();
        assert!(e.message.contains("https://"), "{}", e.message);
        let e = Config::parse("[[servers]]\nname = \"a\"\ncommand = \"x\"\nca_file = \"ca.pem\"\n")
            .unwrap_err();
        assert!(e.message.contains("ca_file"), "{}", e.message);
        let e = Config::parse("[http]\ntls_cert = \"c.pem\"\n").unwrap_err();
        assert!(e.message.contains("tls_key"), "{}", e.message);
    }

    #[test]
    fn relative_paths_are_read_from_the_config_folder() {
        let dir = std::env::temp_dir().join(format!("ts-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("g.toml");
        std::fs::write(
            &file,
            "[http]\ntls_cert = \"c.pem\"\ntls_key = \"/abs/k.pem\"\n[[servers]]\nname = \"a\"\nurl = \"https://x/\"\nca_file = \"ca.pem\"\n",
        )
        .unwrap();
        let cfg = Config::load(&file).unwrap();
        assert_eq!(
            cfg.http.tls_cert.as_deref(),
            Some(dir.join("c.pem").as_path())
        );
        assert_eq!(cfg.http.tls_key.as_deref(), Some(Path::new("/abs/k.pem")));
        assert_eq!(
            cfg.servers[0].ca_file.as_deref(),
            Some(dir.join("ca.pem").as_path())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn lazy_and_idle_stop_are_global_defaults_a_server_overrides() {
        let cfg = Config::parse(
            "lazy = true\nmanifest_dir = \"/m\"\n[limits]\nidle_stop_ms = 5000\n\
             [[servers]]\nname = \"a\"\ncommand = \"x\"\n\
             [[servers]]\nname = \"b\"\ncommand = \"x\"\nlazy = false\n\
             [[servers]]\nname = \"c\"\ncommand = \"x\"\nidle_stop_ms = 0\n",
        )
        .unwrap();
        let [a, b, c] = [&cfg.servers[0], &cfg.servers[1], &cfg.servers[2]];
        assert!(cfg.is_lazy(a) && !cfg.is_lazy(b) && cfg.is_lazy(c));
        assert_eq!(cfg.idle_stop(a), Some(Duration::from_secs(5)));
        assert_eq!(cfg.idle_stop(c), None, "0 never stops it");
        assert_eq!(cfg.manifest_dir(), Some(PathBuf::from("/m")));
        let e = cfg.effective();
        assert_eq!(e["lazy"], true);
        assert_eq!(e["limits"]["idle_stop_ms"], 5000);
        assert_eq!(e["servers"][1]["lazy"], false);
        // Off unless asked for.
        let plain = Config::parse("[[servers]]\nname = \"a\"\ncommand = \"x\"\n").unwrap();
        assert!(!plain.is_lazy(&plain.servers[0]));
        let e = Config::parse(
            "[[servers]]\nname = \"a\"\ncommand = \"x\"\nidle_stop_ms = 99999999999\n",
        )
        .unwrap_err();
        assert!(
            e.message.contains("line 4") && e.message.contains("servers[0].idle_stop_ms"),
            "{}",
            e.message
        );
        let e = Config::parse("lazy = \"yes\"\n").unwrap_err();
        assert!(e.message.contains("line 1"), "{}", e.message);
    }

    #[test]
    fn tool_search_false_is_never() {
        let cfg = Config::parse("tool_search = false\n").unwrap();
        assert_eq!(cfg.activation(), ActivationName::Never);
    }

    #[test]
    fn what_the_gateway_refuses_config_check_refuses_with_the_line() {
        let e = Config::parse("activation = \"always\"\nmode = \"native\"\n").unwrap_err();
        assert!(
            e.message.starts_with("line 2: `mode = \"native\"`") && e.message.contains("use code"),
            "{}",
            e.message
        );
        let e = Config::parse("\nthreshold_pct = 0\n").unwrap_err();
        assert!(
            e.message.starts_with("line 2: `threshold_pct` is 0"),
            "{}",
            e.message
        );
        // Every file `parse` accepts builds settings the facade accepts.
        for text in [
            "",
            "mode = \"reveal\"\n",
            "threshold_pct = 100\ncontext_window = 1000\n",
        ] {
            let cfg = Config::parse(text).unwrap();
            cfg.settings().validate().unwrap();
        }
    }

    #[test]
    fn the_effective_file_says_which_window_and_model_apply() {
        let cfg = Config::parse("model = \"claude-sonnet-4-5\"\nsemantic = false\n").unwrap();
        let e = cfg.effective();
        assert_eq!(e["context_window"]["tokens"], 200_000);
        assert_eq!(
            e["context_window"]["from"],
            "model table (claude-sonnet-4*)"
        );
        assert_eq!(e["semantic"], false);
        assert_eq!(e["embed_model"]["from"], "off");
        let cfg = Config::parse("context_window = 50000\nactivation = \"never\"\n").unwrap();
        let e = cfg.effective();
        assert_eq!(e["context_window"]["tokens"], 50_000);
        assert_eq!(e["context_window"]["from"], "configured");
        assert_eq!(e["embed_model"]["from"], "off");
        // Nothing said: the MCP default, the smallest common window.
        let e = Config::parse("semantic = false\n").unwrap().effective();
        assert_eq!(e["context_window"]["tokens"], 128_000);
        assert_eq!(e["context_window"]["from"], "provider mcp default");
        // A configured model directory is reported as configured, not loaded.
        let e = Config::parse("embed_model = \"/nowhere/model\"\n")
            .unwrap()
            .effective();
        assert_eq!(e["embed_model"]["from"], "config");
        assert_eq!(e["embed_model"]["path"], "/nowhere/model");
        assert_eq!(e["semantic"], true);
    }
}
