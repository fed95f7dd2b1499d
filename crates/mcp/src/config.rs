//! The gateway's configuration: one TOML file. Unknown keys and out-of-range
//! values are refused with the key's path and line; secrets are only ever named
//! (environment variables), never written in the file, and are redacted when the
//! effective configuration is printed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use toml::Spanned;

/// A configuration problem, with the key and line it is about.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ConfigError {
    /// What is wrong, naming the key and its line.
    pub message: String,
}

fn error(message: impl Into<String>) -> ConfigError {
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
    /// Progressive disclosure: stubs, and `tool_search` reveals full schemas to the
    /// session (which hears `notifications/tools/list_changed`).
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

/// `[limits]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// A snippet's wall-clock budget (100 to 600,000 ms). Default 10,000.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: Spanned<u64>,
    /// One downstream call (100 to 3,600,000 ms). Default 60,000.
    #[serde(default = "default_call_timeout_ms")]
    pub call_timeout_ms: Spanned<u64>,
    /// How long a server may take to start and list its tools (100 to 600,000 ms).
    /// Default 30,000; a slower server is marked down and retried in the background.
    #[serde(default = "default_startup_timeout_ms")]
    pub startup_timeout_ms: Spanned<u64>,
    /// Longest wait for one approval (`destructive = "elicit"`) before the call
    /// is refused (1,000 to 3,600,000 ms). Default 120,000. A snippet waiting for
    /// an approval is paused: the wait does not count against `timeout_ms`.
    #[serde(default = "default_approval_timeout_ms")]
    pub approval_timeout_ms: Spanned<u64>,
}

fn default_timeout_ms() -> Spanned<u64> {
    Spanned::new(0..0, 10_000)
}
fn default_call_timeout_ms() -> Spanned<u64> {
    Spanned::new(0..0, 60_000)
}
fn default_startup_timeout_ms() -> Spanned<u64> {
    Spanned::new(0..0, 30_000)
}
fn default_approval_timeout_ms() -> Spanned<u64> {
    Spanned::new(0..0, 120_000)
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout_ms: default_timeout_ms(),
            call_timeout_ms: default_call_timeout_ms(),
            startup_timeout_ms: default_startup_timeout_ms(),
            approval_timeout_ms: default_approval_timeout_ms(),
        }
    }
}

/// `[policy]`: allow and deny globs over tool ids (`mcp:server:tool`) and names.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyConfig {
    /// When non-empty, only matching tools are visible.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Matching tools are hidden (deny wins).
    #[serde(default)]
    pub deny: Vec<String>,
}

/// `[http]`: serving streamable HTTP (`toolsearch gateway --http ADDR`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpConfig {
    /// Environment variable holding the bearer token clients must send. Required to
    /// bind a non-loopback address.
    pub bearer_token_env: Option<String>,
    /// Extra `Host` values accepted (loopback names always are).
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// `Origin` values accepted from browsers (`https://app.example.com:443`);
    /// requests with any other `Origin` are refused.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// Requests per minute per MCP session and per token (1 to 100,000). Default 600.
    pub rate_limit_per_minute: Option<Spanned<u64>>,
    /// Snippets running at once across all sessions (1 to 256). Default 8.
    pub max_concurrent_snippets: Option<Spanned<u64>>,
    /// MCP sessions open at once (1 to 1,000,000); a new one past it is refused
    /// (503). Default 10,000.
    pub max_sessions: Option<Spanned<u64>>,
    /// A session nobody used for this long is closed and its calls cancelled
    /// (1,000 to 86,400,000 ms). Default 600,000 (10 minutes).
    pub session_idle_ttl_ms: Option<Spanned<u64>>,
    /// PEM certificate chain: serve HTTPS instead of HTTP (with `tls_key`). A
    /// relative path is read from the config file's folder.
    pub tls_cert: Option<PathBuf>,
    /// PEM private key for `tls_cert`.
    pub tls_key: Option<PathBuf>,
}

impl HttpConfig {
    /// `max_sessions`, or its default.
    pub fn max_sessions(&self) -> usize {
        self.max_sessions
            .as_ref()
            .map_or(10_000, |s| *s.get_ref() as usize)
    }

    /// `session_idle_ttl_ms`, or its default.
    pub fn session_idle_ttl(&self) -> std::time::Duration {
        std::time::Duration::from_millis(
            self.session_idle_ttl_ms
                .as_ref()
                .map_or(600_000, |s| *s.get_ref()),
        )
    }
}

/// One `[[servers]]` entry: a stdio server (`command`) or a streamable HTTP one (`url`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Identifier-like, unique: tool ids are `mcp:<name>:<tool>`.
    pub name: Spanned<String>,
    /// Program to run (stdio).
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment variables set for it (values are redacted when printed). The
    /// server also inherits `PATH`, `HOME`, `LANG` and the like, never the gateway's
    /// other variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Working directory.
    pub cwd: Option<PathBuf>,
    /// Streamable HTTP endpoint.
    pub url: Option<String>,
    /// Extra HTTP headers (values are redacted when printed).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Environment variable holding a bearer token for this server.
    pub bearer_token_env: Option<String>,
    /// PEM file of root certificates trusted for this `https://` server beside the
    /// system's (a private CA). A relative path is read from the config file's folder.
    pub ca_file: Option<PathBuf>,
    /// Allow globs for this server's tools (by tool name or id).
    #[serde(default)]
    pub allow: Vec<String>,
    /// Deny globs for this server's tools.
    #[serde(default)]
    pub deny: Vec<String>,
}

impl ServerConfig {
    /// The server's name.
    pub fn name(&self) -> &str {
        self.name.get_ref()
    }
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
    /// Or this % of `context_window` taken by schemas (0 to 100). Default 10.
    pub threshold_pct: Option<Spanned<u64>>,
    /// The model's context window in tokens (1,000 to 100,000,000), for `threshold_pct`.
    pub context_window: Option<Spanned<u64>>,
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
    /// `[[servers]]`.
    #[serde(default)]
    pub servers: Vec<ServerConfig>,
    /// The embedding model fused with search (a sentence-transformers directory).
    /// Default: `TOOLSEARCH_EMBED_MODEL`, else the model `cargo xtask fetch-model`
    /// installed, else none (lexical search).
    pub embed_model: Option<PathBuf>,
    /// `false`: lexical search only, even where a model is installed. Default true.
    pub semantic: Option<bool>,
}

/// The largest configuration file the gateway reads: 4 MiB.
pub const MAX_CONFIG_BYTES: u64 = 4 << 20;

impl Config {
    /// Reads and checks a file (at most [`MAX_CONFIG_BYTES`]).
    ///
    /// # Errors
    /// The file cannot be read, is not TOML, has unknown keys or out-of-range values.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::File::open(path)
            .and_then(|f| toolsearch_catalog::read_at_most(f, MAX_CONFIG_BYTES, "the file"))
            .and_then(|b| {
                String::from_utf8(b).map_err(|_| {
                    std::io::Error::new(std::io::ErrorKind::InvalidData, "the file is not UTF-8")
                })
            })
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
        rebase(&mut cfg.http.tls_cert);
        rebase(&mut cfg.http.tls_key);
        for s in &mut cfg.servers {
            rebase(&mut s.ca_file);
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
        let range = |key: &str, v: &Option<Spanned<u64>>, lo: u64, hi: u64| match v {
            Some(s) if !(lo..=hi).contains(s.get_ref()) => Err(error(format!(
                "line {}: `{key}` is {}; it must be between {lo} and {hi}",
                line_of(text, s.span().start),
                s.get_ref()
            ))),
            _ => Ok(()),
        };
        range("threshold", &self.threshold, 1, 100_000)?;
        range("threshold_pct", &self.threshold_pct, 0, 100)?;
        range("context_window", &self.context_window, 1_000, 100_000_000)?;
        range("search_default_limit", &self.search_default_limit, 1, 50)?;
        range("max_search_limit", &self.max_search_limit, 1, 50)?;
        let limits = &self.limits;
        range(
            "limits.timeout_ms",
            &Some(limits.timeout_ms.clone()),
            100,
            600_000,
        )?;
        range(
            "limits.call_timeout_ms",
            &Some(limits.call_timeout_ms.clone()),
            100,
            3_600_000,
        )?;
        range(
            "limits.startup_timeout_ms",
            &Some(limits.startup_timeout_ms.clone()),
            100,
            600_000,
        )?;
        range(
            "limits.approval_timeout_ms",
            &Some(limits.approval_timeout_ms.clone()),
            1_000,
            3_600_000,
        )?;
        range(
            "http.rate_limit_per_minute",
            &self.http.rate_limit_per_minute,
            1,
            100_000,
        )?;
        range(
            "http.max_concurrent_snippets",
            &self.http.max_concurrent_snippets,
            1,
            256,
        )?;
        range("http.max_sessions", &self.http.max_sessions, 1, 1_000_000)?;
        range(
            "http.session_idle_ttl_ms",
            &self.http.session_idle_ttl_ms,
            1_000,
            86_400_000,
        )?;
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
        let mut seen = std::collections::HashSet::new();
        for (i, s) in self.servers.iter().enumerate() {
            let line = line_of(text, s.name.span().start);
            let at = format!("line {line}: servers[{i}]");
            let name = s.name();
            if !is_server_name(name) {
                return Err(error(format!(
                    "{at}.name `{}` must be 1 to 48 letters, digits, `_` or `-` (it becomes part of tool ids)",
                    name.escape_debug()
                )));
            }
            if !seen.insert(name.to_ascii_lowercase()) {
                return Err(error(format!("{at}.name `{name}` is used twice")));
            }
            match (&s.command, &s.url) {
                (Some(_), Some(_)) => {
                    return Err(error(format!(
                        "{at} (`{name}`) has both `command` and `url`; give one"
                    )))
                }
                (None, None) => {
                    return Err(error(format!(
                        "{at} (`{name}`) needs `command` (stdio) or `url` (HTTP)"
                    )))
                }
                (Some(c), None) if c.trim().is_empty() => {
                    return Err(error(format!("{at}.command is empty")))
                }
                (None, Some(u)) if !(u.starts_with("http://") || u.starts_with("https://")) => {
                    return Err(error(format!(
                        "{at}.url must start with http:// or https://"
                    )))
                }
                _ => {}
            }
            if s.command.is_some()
                && (!s.headers.is_empty() || s.bearer_token_env.is_some() || s.ca_file.is_some())
            {
                return Err(error(format!(
                    "{at}: `headers`, `bearer_token_env` and `ca_file` are for `url` servers"
                )));
            }
            if let Some(u) = s.url.as_deref().filter(|u| u.starts_with("http://")) {
                if s.ca_file.is_some() {
                    return Err(error(format!("{at}: `ca_file` is for an https:// url")));
                }
                if s.bearer_token_env.is_some() && !is_loopback_url(u) {
                    return Err(error(format!(
                        "{at}: a bearer token is never sent in clear text to another machine; use https://"
                    )));
                }
            }
            if s.url.is_some() && (!s.args.is_empty() || !s.env.is_empty() || s.cwd.is_some()) {
                return Err(error(format!(
                    "{at}: `args`, `env` and `cwd` are for `command` servers"
                )));
            }
        }
        if self.http.tls_cert.is_some() != self.http.tls_key.is_some() {
            return Err(error(
                "[http] `tls_cert` and `tls_key` go together; give both or neither".to_string(),
            ));
        }
        Ok(())
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

    /// The effective configuration as JSON, every default filled in and every secret
    /// (env values, header values) redacted: what `toolsearch config check` prints.
    pub fn effective(&self) -> serde_json::Value {
        let servers: Vec<serde_json::Value> = self
            .servers
            .iter()
            .map(|s| {
                let redact = |m: &BTreeMap<String, String>| -> BTreeMap<String, String> {
                    m.keys()
                        .map(|k| (k.clone(), "<redacted>".to_string()))
                        .collect()
                };
                serde_json::json!({
                    "name": s.name(),
                    "transport": if s.command.is_some() { "stdio" } else { "streamable-http" },
                    "command": s.command,
                    "args": s.args,
                    "env": redact(&s.env),
                    "cwd": s.cwd,
                    "url": s.url.as_deref().map(redact_url),
                    "headers": redact(&s.headers),
                    "bearer_token_env": s.bearer_token_env,
                    "ca_file": s.ca_file,
                    "allow": s.allow,
                    "deny": s.deny,
                })
            })
            .collect();
        let v = |s: &Option<Spanned<u64>>, d: u64| s.as_ref().map_or(d, |s| *s.get_ref());
        serde_json::json!({
            "mode": self.mode,
            "activation": self.activation(),
            "threshold": v(&self.threshold, 15),
            "threshold_pct": v(&self.threshold_pct, 10),
            "context_window": self.context_window.as_ref().map(|s| *s.get_ref()),
            "search_default_limit": self.search_limit(),
            "max_search_limit": self.max_search(),
            "never_defer": self.never_defer,
            "destructive": self.destructive,
            "limits": {
                "timeout_ms": *self.limits.timeout_ms.get_ref(),
                "call_timeout_ms": *self.limits.call_timeout_ms.get_ref(),
                "startup_timeout_ms": *self.limits.startup_timeout_ms.get_ref(),
                "approval_timeout_ms": *self.limits.approval_timeout_ms.get_ref(),
            },
            "policy": {"allow": self.policy.allow, "deny": self.policy.deny},
            "http": {
                "bearer_token_env": self.http.bearer_token_env,
                "allowed_hosts": self.http.allowed_hosts,
                "allowed_origins": self.http.allowed_origins,
                "rate_limit_per_minute": v(&self.http.rate_limit_per_minute, 600),
                "max_concurrent_snippets": v(&self.http.max_concurrent_snippets, 8),
                "max_sessions": self.http.max_sessions(),
                "session_idle_ttl_ms": self.http.session_idle_ttl().as_millis() as u64,
                "tls_cert": self.http.tls_cert,
                "tls_key": self.http.tls_key.as_ref().map(|_| "<path redacted>"),
            },
            "servers": servers,
        })
    }
}

/// True for an `http(s)://` URL whose host is `localhost` or a loopback address.
fn is_loopback_url(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A URL with any user info and query string redacted (they often carry keys).
pub fn redact_url(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, _)) => (b, "?<redacted>"),
        None => (url, ""),
    };
    let base = match base.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((_, host)) if !host.contains('/') || rest.find('@') < rest.find('/') => {
                format!("{scheme}://<redacted>@{host}")
            }
            _ => base.to_string(),
        },
        None => base.to_string(),
    };
    format!("{base}{query}")
}

/// 1 to 48 ASCII letters, digits, `_` or `-`.
fn is_server_name(name: &str) -> bool {
    (1..=48).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
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
env = { TZ = "UTC" }

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
            !shown.contains("UTC") && !shown.contains("pw") && !shown.contains("abc"),
            "{shown}"
        );
        assert!(shown.contains("REMOTE_TOKEN"));
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
    fn tool_search_false_is_never() {
        let cfg = Config::parse("tool_search = false\n").unwrap();
        assert_eq!(cfg.activation(), ActivationName::Never);
    }
}
