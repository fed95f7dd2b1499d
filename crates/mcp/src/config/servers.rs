//! `[[servers]]`: the MCP servers behind the gateway, stdio (`command`) or
//! streamable HTTP (`url`); names, transports and secrets checked.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::{error, line_of, range, ConfigError};

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
    /// Start this server only when a call needs it, serving its tools from its
    /// manifest until then. Default: the top-level `lazy` (false).
    pub lazy: Option<bool>,
    /// A lazy server with no call for this long is stopped (0 to 86,400,000 ms;
    /// 0 never stops it). Default: `limits.idle_stop_ms`.
    pub idle_stop_ms: Option<Spanned<u64>>,
    /// The MCP revision it is spoken to in: `auto` (the default: the
    /// handshake era, where every feature the gateway carries works, and
    /// 2026-07-28 when the server refuses the handshake), `2026-07-28`
    /// (`server/discover` first, `initialize` when the server answers it
    /// with an error), or `2025-11-25` (the handshake era only).
    pub protocol: Option<String>,
    /// OAuth 2.1: the server is called with a login made by `toolsearch oauth
    /// login` (see `config/oauth.rs`).
    pub oauth: Option<super::OAuthConfig>,
}

/// `servers[].protocol` values.
pub const PROTOCOLS: [&str; 3] = ["auto", "2026-07-28", "2025-11-25"];

impl ServerConfig {
    /// Whether it is spoken to in the handshake era only.
    pub fn handshake_only(&self) -> bool {
        self.protocol.as_deref() == Some("2025-11-25")
    }

    /// Whether `server/discover` is tried before `initialize`.
    pub fn modern_first(&self) -> bool {
        self.protocol.as_deref() == Some("2026-07-28")
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        self.name.get_ref()
    }
}

impl ServerConfig {
    /// As `toolsearch config check` prints it: secrets redacted.
    pub(super) fn effective(&self) -> serde_json::Value {
        let s = self;
        let redact = |m: &BTreeMap<String, String>| -> BTreeMap<String, String> {
            m.keys()
                .map(|k| (k.clone(), "<redacted>".to_string()))
                .collect()
        };
        let env: BTreeMap<String, String> = s
            .env
            .iter()
            .map(|(k, v)| (k.clone(), shown_env(k, v)))
            .collect();
        serde_json::json!({
            "name": s.name(),
            "transport": if s.command.is_some() { "stdio" } else { "streamable-http" },
            "command": s.command,
            "args": s.args,
            "env": env,
            "cwd": s.cwd,
            "url": s.url.as_deref().map(redact_url),
            "headers": redact(&s.headers),
            "bearer_token_env": s.bearer_token_env,
            "ca_file": s.ca_file,
            "allow": s.allow,
            "deny": s.deny,
            "lazy": s.lazy,
            "idle_stop_ms": s.idle_stop_ms.as_ref().map(|v| *v.get_ref()),
            "protocol": s.protocol.as_deref().unwrap_or("auto"),
            "oauth": s.oauth.as_ref().map(super::OAuthConfig::effective),
        })
    }
}

/// Checks every server: names (unique, id-like), one transport each, and
/// the settings each transport takes.
pub(super) fn check(servers: &[ServerConfig], text: &str) -> Result<(), ConfigError> {
    let mut seen = std::collections::HashSet::new();
    for (i, s) in servers.iter().enumerate() {
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
        range(
            text,
            &format!("servers[{i}].idle_stop_ms"),
            &s.idle_stop_ms,
            0,
            MAX_IDLE_STOP_MS,
        )?;
        if let Some(p) = &s.protocol {
            if !PROTOCOLS.contains(&p.as_str()) {
                return Err(error(format!(
                    "{at}: `protocol` is `{}`; it must be one of {PROTOCOLS:?}",
                    p.escape_debug()
                )));
            }
        }
        if s.url.is_some() && (!s.args.is_empty() || !s.env.is_empty() || s.cwd.is_some()) {
            return Err(error(format!(
                "{at}: `args`, `env` and `cwd` are for `command` servers"
            )));
        }
    }
    Ok(())
}

/// The longest `idle_stop_ms`: a day.
pub(super) const MAX_IDLE_STOP_MS: u64 = 86_400_000;

/// True for an `http(s)://` URL whose host is `localhost` or a loopback address.
pub fn is_loopback_url(url: &str) -> bool {
    // Parsed as the HTTP client parses it (a `\\` before an `@` is a path
    // separator to it, not part of the user info).
    match url::Url::parse(url)
        .ok()
        .and_then(|u| u.host().map(|h| h.to_owned()))
    {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(a)) => a.is_loopback(),
        Some(url::Host::Ipv6(a)) => a.is_loopback(),
        None => false,
    }
}

/// Variables whose values are settings, never secrets: shown as they are.
const PLAIN_ENV: [&str; 12] = [
    "TZ",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "NODE_ENV",
    "LOG_LEVEL",
    "DEBUG",
    "PYTHONUNBUFFERED",
    "PYTHONIOENCODING",
    "NO_COLOR",
    "FORCE_COLOR",
    "TERM",
];

/// An environment value as printed: a plain setting (`TZ`, `LANG`: see
/// [`PLAIN_ENV`]) as it is, anything else `<redacted>`.
pub fn shown_env(key: &str, value: &str) -> String {
    if PLAIN_ENV.contains(&key) && value.len() <= 64 {
        value.to_string()
    } else {
        "<redacted>".to_string()
    }
}

/// A URL with any user info and query string redacted (they often carry keys).
/// Everything before the last `@` goes (a password may hold an `@` or `/`
/// unencoded: clients parse such URLs), and so do the query and fragment;
/// an `@` past a `?` or `#` hides all but the scheme. Too much hidden is the
/// safe side.
pub fn redact_url(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((scheme, rest)) => (Some(scheme), rest),
        None => (None, url),
    };
    let at = rest.rfind('@');
    let query = rest.find(['?', '#']);
    if let (Some(at), Some(q)) = (at, query) {
        if q < at {
            // An `@` after the query starts (an address in it, or a
            // password holding a `?`): which is which cannot be told.
            return match scheme {
                Some(scheme) => format!("{scheme}://<redacted>"),
                None => "<redacted>".into(),
            };
        }
    }
    let (user, rest) = match at {
        Some(at) => ("<redacted>@", &rest[at + 1..]),
        None => ("", rest),
    };
    let rest = match rest.find(['?', '#']) {
        Some(q) => format!("{}{}<redacted>", &rest[..q], &rest[q..=q]),
        None => rest.to_string(),
    };
    match scheme {
        Some(scheme) => format!("{scheme}://{user}{rest}"),
        None => format!("{user}{rest}"),
    }
}

/// 1 to 48 ASCII letters, digits, `_` or `-`.
pub(super) fn is_server_name(name: &str) -> bool {
    (1..=48).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn a_urls_credentials_never_show_whatever_they_hold() {
        for (url, shown) in [
            (
                "rediss://toolsearch:pa@ss@redis:6380/0",
                "rediss://<redacted>@redis:6380/0",
            ),
            ("redis://:p/a?s@redis:6379", "redis://<redacted>"),
            (
                "https://u:k@h.example/mcp?key=1",
                "https://<redacted>@h.example/mcp?<redacted>",
            ),
            ("redis://127.0.0.1:6379", "redis://127.0.0.1:6379"),
            ("http://h/x?token=a@b", "http://<redacted>"),
            (
                "https://h/mcp?user=me@corp.com&token=SECRET",
                "https://<redacted>",
            ),
            ("https://h/mcp#token=SECRET", "https://h/mcp#<redacted>"),
        ] {
            assert_eq!(redact_url(url), shown, "{url}");
        }
    }

    #[test]
    fn loopback_is_the_host_the_client_connects_to() {
        for (url, loopback) in [
            ("http://127.0.0.1:8/mcp", true),
            ("http://localhost/mcp", true),
            ("http://[::1]:9/mcp", true),
            ("http://evil.example\\@127.0.0.1/mcp", false),
            ("http://127.0.0.1@evil.example/mcp", false),
            ("http://127.0.0.1.evil.example/mcp", false),
        ] {
            assert_eq!(super::is_loopback_url(url), loopback, "{url}");
        }
    }
}
