//! `[[profiles]]`: who sees which tools. A profile is a client's view of the
//! gateway (its servers, allow and deny globs, mode and limits) and the
//! credentials that open it (bearer tokens named by environment variables or
//! a file, never written here, or an OAuth access token's claim or scope; see
//! `[auth]`). stdio, and token-less loopback HTTP when the gateway holds no
//! credentials, get the `default` profile: every tool, unless a profile named
//! `default` narrows it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::{error, line_of, mode_of, range, Config, ConfigError, ModeName};

/// The profile stdio and token-less loopback HTTP get.
pub const DEFAULT_PROFILE: &str = "default";

/// One `[[profiles]]` table.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileConfig {
    /// Its name (1 to 48 letters, digits, `_` or `-`); `default` narrows what
    /// stdio and token-less loopback HTTP see.
    pub name: Spanned<String>,
    /// The servers whose tools it sees (configured names). Default: every one.
    /// A server outside it is not there for the profile at all: not its tools,
    /// not its outages, not its list changes.
    pub servers: Option<Vec<String>>,
    /// When non-empty, only matching tools (globs over ids and names) are in
    /// the profile's catalog.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Matching tools are not in its catalog (deny wins).
    #[serde(default)]
    pub deny: Vec<String>,
    /// `code`, `tools` or `reveal`. Default: the top-level `mode`.
    pub mode: Option<ModeName>,
    /// Tools never deferred for it. Default: the top-level `never_defer`.
    pub never_defer: Option<Vec<String>>,
    /// Hits per search when the caller gives no limit (1 to 50). Default: the
    /// top-level one.
    pub search_default_limit: Option<Spanned<u64>>,
    /// Most hits per search (1 to 50). Default: the top-level one.
    pub max_search_limit: Option<Spanned<u64>>,
    /// Environment variables each holding one bearer token that opens this
    /// profile (several, so one can be rotated: add the new one, move the
    /// clients, remove the old one).
    #[serde(default)]
    pub token_env: Vec<String>,
    /// A file of bearer tokens, one per line (`#` comments and blank lines
    /// ignored); it must not be readable by others. A relative path is read
    /// from the config file's folder.
    pub token_file: Option<PathBuf>,
    /// OAuth: the value of `[auth] profile_claim` in an access token that
    /// chooses this profile (a string claim equal to it, or a list holding it).
    pub claim: Option<String>,
    /// OAuth: a scope whose presence in an access token chooses this profile.
    pub scope: Option<String>,
    /// Requests per minute for the whole profile, and for each of its
    /// callers (1 to 100,000). Default: `[http] rate_limit_per_minute`.
    pub rate_limit_per_minute: Option<Spanned<u64>>,
    /// Its MCP sessions open at once (1 to 1,000,000); past it a new one is
    /// refused (503). Default: `[http] max_sessions`.
    pub max_sessions: Option<Spanned<u64>>,
    /// Its snippets running at once (1 to 256, at most `[http]
    /// max_concurrent_snippets`). Default: `[http] max_concurrent_snippets`.
    pub max_concurrent_snippets: Option<Spanned<u64>>,
    /// OAuth servers whose login this profile may not use (see
    /// `config/oauth.rs`): not in its view; it hears of them as needing a
    /// login. Filled by [`Config::profiles`].
    #[serde(skip)]
    pub no_login: Vec<String>,
}

impl ProfileConfig {
    /// Its name.
    pub fn name(&self) -> &str {
        self.name.get_ref()
    }

    /// A profile for `name` that narrows nothing (the implicit `default`).
    pub fn open(name: &str) -> ProfileConfig {
        ProfileConfig {
            name: Spanned::new(0..0, name.to_string()),
            servers: None,
            allow: Vec::new(),
            deny: Vec::new(),
            mode: None,
            never_defer: None,
            search_default_limit: None,
            max_search_limit: None,
            token_env: Vec::new(),
            token_file: None,
            claim: None,
            scope: None,
            rate_limit_per_minute: None,
            max_sessions: None,
            max_concurrent_snippets: None,
            no_login: Vec::new(),
        }
    }

    /// True when a server named `server` is in its view.
    pub fn sees_server(&self, server: &str) -> bool {
        self.names_server(server) && !self.no_login.iter().any(|n| n == server)
    }

    /// True when its `servers` (all when it names none) include `server`.
    pub fn names_server(&self, server: &str) -> bool {
        self.servers
            .as_ref()
            .is_none_or(|s| s.iter().any(|n| n == server))
    }

    /// True when it has credentials of its own (tokens, a claim or a scope).
    pub fn has_credentials(&self) -> bool {
        !self.token_env.is_empty()
            || self.token_file.is_some()
            || self.claim.is_some()
            || self.scope.is_some()
    }

    /// `rate_limit_per_minute`, or `fallback`.
    pub fn rate_limit(&self, fallback: u64) -> u64 {
        self.rate_limit_per_minute
            .as_ref()
            .map_or(fallback, |s| *s.get_ref())
    }

    /// `max_sessions`, or `fallback`.
    pub fn max_sessions(&self, fallback: usize) -> usize {
        self.max_sessions
            .as_ref()
            .map_or(fallback, |s| *s.get_ref() as usize)
    }

    /// `max_concurrent_snippets`, or `fallback`.
    pub fn max_snippets(&self, fallback: usize) -> usize {
        self.max_concurrent_snippets
            .as_ref()
            .map_or(fallback, |s| (*s.get_ref() as usize).min(fallback))
    }

    /// The profile as `config check` prints it: variable names and paths,
    /// never a token.
    pub(crate) fn effective(&self, http: &super::HttpConfig) -> serde_json::Value {
        serde_json::json!({
            "name": self.name(),
            "servers": self.servers.clone().map_or(serde_json::json!("all"), |s| serde_json::json!(s)),
            "allow": self.allow,
            "deny": self.deny,
            "mode": self.mode,
            "never_defer": self.never_defer,
            "search_default_limit": self.search_default_limit.as_ref().map(|s| *s.get_ref()),
            "max_search_limit": self.max_search_limit.as_ref().map(|s| *s.get_ref()),
            "token_env": self.token_env,
            "token_file": self.token_file.as_ref().map(|p| p.display().to_string()),
            "claim": self.claim,
            "scope": self.scope,
            "rate_limit_per_minute": self.rate_limit(http.rate_limit()),
            "max_sessions": self.max_sessions(http.max_sessions()),
            "max_concurrent_snippets": self.max_snippets(http.max_concurrent_snippets()),
        })
    }
}

impl Config {
    /// Every profile the gateway serves: the configured ones, and `default`
    /// (first, open to every tool) unless one of them is named so.
    pub fn profiles(&self) -> Vec<ProfileConfig> {
        let mut all = self.profiles.clone();
        if !all.iter().any(|p| p.name() == DEFAULT_PROFILE) {
            all.insert(0, ProfileConfig::open(DEFAULT_PROFILE));
        }
        for p in &mut all {
            p.no_login = self
                .servers
                .iter()
                .filter(|s| s.oauth.as_ref().is_some_and(|o| !o.shared_with(p.name())))
                .map(|s| s.name().to_string())
                .collect();
        }
        all
    }

    /// The facade settings of `profile`: this file's, with the profile's mode,
    /// never-deferred tools and search limits.
    pub fn profile_settings(&self, profile: &ProfileConfig) -> toolsearch::Settings {
        let mut settings = self.settings();
        if let Some(mode) = profile.mode {
            settings.mode = mode_of(mode);
        }
        if let Some(never) = &profile.never_defer {
            settings.never_defer = never.clone();
        }
        if let Some(n) = &profile.search_default_limit {
            settings.search_default_limit = *n.get_ref() as usize;
        }
        if let Some(n) = &profile.max_search_limit {
            settings.max_search_limit = *n.get_ref() as usize;
        }
        settings
    }

    /// True when HTTP clients must bring a credential: `[http]
    /// bearer_token_env`, a profile's tokens, or `[auth]`. Without any, a
    /// token-less loopback client gets the `default` profile.
    pub fn needs_credentials(&self) -> bool {
        self.http.bearer_token_env.is_some()
            || self.auth.is_some()
            || self.profiles.iter().any(ProfileConfig::has_credentials)
    }

    /// How many profiles some client can open: those with credentials (a
    /// token, a claim or a scope), and `default` when a token-less client, a
    /// `[http] bearer_token_env` token or an access token choosing no
    /// profile lands there. The snippet slots are shared among these.
    pub fn reachable_profiles(&self) -> usize {
        let chosen_by_token = self
            .profiles
            .iter()
            .any(|p| p.claim.is_some() || p.scope.is_some());
        self.profiles()
            .iter()
            .filter(|p| {
                p.has_credentials()
                    || (p.name() == DEFAULT_PROFILE
                        && (!self.needs_credentials()
                            || self.http.bearer_token_env.is_some()
                            || (self.auth.is_some() && !chosen_by_token)))
            })
            .count()
    }
}

/// Checks every profile: names (unique, id-like), servers that exist, limits
/// in range, credentials that do not open two profiles.
pub(super) fn check(
    profiles: &[ProfileConfig],
    servers: &[super::ServerConfig],
    text: &str,
) -> Result<(), ConfigError> {
    let mut seen = std::collections::HashSet::new();
    let mut envs = std::collections::HashMap::new();
    let mut claims = std::collections::HashMap::new();
    let mut scopes = std::collections::HashMap::new();
    for (i, p) in profiles.iter().enumerate() {
        let line = line_of(text, p.name.span().start);
        let at = format!("line {line}: profiles[{i}]");
        let name = p.name();
        // The same rule as a server's name.
        if !super::servers::is_server_name(name) {
            return Err(error(format!(
                "{at}.name `{}` must be 1 to 48 letters, digits, `_` or `-`",
                name.escape_debug()
            )));
        }
        if !seen.insert(name.to_string()) {
            return Err(error(format!("{at}.name `{name}` is used twice")));
        }
        for s in p.servers.iter().flatten() {
            if !servers.iter().any(|c| c.name() == s) {
                return Err(error(format!(
                    "{at}.servers names `{}`, which is not a configured server",
                    s.escape_debug()
                )));
            }
        }
        for env in &p.token_env {
            if env.is_empty() {
                return Err(error(format!("{at}.token_env holds an empty name")));
            }
            if let Some(other) = envs.insert(env.clone(), name) {
                return Err(error(format!(
                    "{at}.token_env `{env}` already opens profile `{other}`: a token opens one profile"
                )));
            }
        }
        for (value, map, key) in [
            (&p.claim, &mut claims, "claim"),
            (&p.scope, &mut scopes, "scope"),
        ] {
            if let Some(v) = value {
                if v.is_empty() {
                    return Err(error(format!("{at}.{key} is empty")));
                }
                if let Some(other) = map.insert(v.clone(), name) {
                    return Err(error(format!(
                        "{at}.{key} `{v}` already chooses profile `{other}`"
                    )));
                }
            }
        }
        if p.mode == Some(ModeName::Native) {
            return Err(error(format!(
                "{at}.mode `native`: MCP clients have no provider-hosted tool search; use code, tools, reveal or auto"
            )));
        }
        range(
            text,
            "profiles.search_default_limit",
            &p.search_default_limit,
            1,
            50,
        )?;
        range(
            text,
            "profiles.max_search_limit",
            &p.max_search_limit,
            1,
            50,
        )?;
        range(
            text,
            "profiles.rate_limit_per_minute",
            &p.rate_limit_per_minute,
            1,
            100_000,
        )?;
        range(text, "profiles.max_sessions", &p.max_sessions, 1, 1_000_000)?;
        range(
            text,
            "profiles.max_concurrent_snippets",
            &p.max_concurrent_snippets,
            1,
            256,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERVERS: &str = "[[servers]]\nname = \"gh\"\ncommand = \"x\"\n[[servers]]\nname = \"jira\"\ncommand = \"y\"\n";

    fn parse(profiles: &str) -> Result<Config, ConfigError> {
        Config::parse(&format!("{profiles}\n{SERVERS}"))
    }

    #[test]
    fn the_profile_table_names_variables_and_files_never_tokens() {
        let cfg = parse(
            "[auth]\nresource = \"https://gw.example.com/mcp\"\nissuer = \"https://as.example.com/t\"\nprofile_claim = \"team\"\n\
             [[profiles]]\nname = \"dev\"\nservers = [\"gh\"]\ndeny = [\"*delete*\"]\nmode = \"tools\"\n\
             token_env = [\"DEV_TOKEN\", \"DEV_NEXT\"]\ntoken_file = \"/run/secrets/dev\"\nclaim = \"dev\"\n\
             rate_limit_per_minute = 30\nmax_concurrent_snippets = 99\n",
        )
        .unwrap();
        let shown = cfg.effective();
        let profiles = shown["profiles"].as_array().unwrap();
        // The implicit default comes first and sees everything.
        assert_eq!(profiles[0]["name"], "default");
        assert_eq!(profiles[0]["servers"], "all");
        let dev = &profiles[1];
        assert_eq!(
            dev["token_env"],
            serde_json::json!(["DEV_TOKEN", "DEV_NEXT"])
        );
        assert_eq!(dev["token_file"], "/run/secrets/dev");
        assert_eq!(dev["rate_limit_per_minute"], 30);
        // At most the gateway's own snippet slots.
        assert_eq!(dev["max_concurrent_snippets"], 8);
        assert_eq!(
            shown["auth"]["algorithms"],
            serde_json::json!(["RS256", "ES256"])
        );
        assert!(shown["auth"]["opaque_tokens"]
            .as_str()
            .unwrap()
            .contains("refused"));
        assert_eq!(
            cfg.profile_settings(&cfg.profiles()[1]).mode,
            toolsearch::Mode::Tools
        );
        assert!(cfg.needs_credentials());
        assert!(!parse("").unwrap().needs_credentials());
    }

    #[test]
    fn bad_profiles_are_refused_naming_the_key_and_line() {
        let refused = |text: &str, words: &[&str]| {
            let e = parse(text).unwrap_err().message;
            for w in words {
                assert!(e.contains(w), "`{w}` not in: {e}");
            }
        };
        // A token is never written in the file.
        refused(
            "[[profiles]]\nname = \"a\"\ntoken = \"s3cret\"\n",
            &["line 3", "token"],
        );
        refused(
            "[[profiles]]\nname = \"a\"\nservers = [\"nope\"]\n",
            &["line 2", "profiles[0].servers", "nope"],
        );
        refused("[[profiles]]\nname = \"a b\"\n", &["profiles[0].name"]);
        refused(
            "[[profiles]]\nname = \"a\"\n[[profiles]]\nname = \"a\"\n",
            &["line 4", "used twice"],
        );
        refused(
            "[[profiles]]\nname = \"a\"\ntoken_env = [\"T\"]\n[[profiles]]\nname = \"b\"\ntoken_env = [\"T\"]\n",
            &["profiles[1].token_env", "opens profile `a`"],
        );
        refused(
            "[[profiles]]\nname = \"a\"\nrate_limit_per_minute = 0\n",
            &["line 3", "rate_limit_per_minute"],
        );
        refused(
            "[[profiles]]\nname = \"a\"\nmode = \"native\"\n",
            &["profiles[0].mode"],
        );
        refused(
            "[auth]\nresource = \"http://gw.example.com/mcp\"\nissuer = \"https://as\"\n",
            &["[auth] `resource`", "https://"],
        );
        refused(
            "[auth]\nresource = \"https://gw/mcp\"\nissuer = \"https://as\"\nalgorithms = [\"HS256\"]\n",
            &["HS256", "never accepted"],
        );
        // A loopback authorization server over plain HTTP is fine (tests, local).
        parse("[auth]\nresource = \"http://127.0.0.1:8080/mcp\"\nissuer = \"http://127.0.0.1:9/as\"\n").unwrap();
    }
}
