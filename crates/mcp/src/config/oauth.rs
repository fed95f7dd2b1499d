//! `[servers.oauth]`: a remote server behind OAuth 2.1, which the gateway
//! calls as a client with a login made by `toolsearch oauth login` (the
//! `[auth]` section is the other direction: the gateway as a resource server).
//!
//! Whose login: a server's login belongs to the gateway (`login =
//! "gateway"`, the default) or to one profile (`login = "<profile>"`). The
//! profiles that call the server with it are named (`profiles`); any other
//! profile sees the server as needing a login. Every caller of a shared
//! login acts as the identity that logged in, so sharing is chosen, never
//! implied: with `[[profiles]]` configured, a gateway login names its
//! profiles.

use serde::{Deserialize, Serialize};

use super::profiles::ProfileConfig;
use super::servers::ServerConfig;
use super::{error, line_of, ConfigError};

/// The owner of a login (the `login` key): the gateway or one profile.
pub const GATEWAY_LOGIN: &str = "gateway";

/// `[servers.oauth]` of one HTTP server.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct OAuthConfig {
    /// A client id registered with the authorization server beforehand: no
    /// registration is made.
    pub client_id: Option<String>,
    /// The environment variable holding that client's secret (a confidential
    /// client). Never written here.
    pub client_secret_env: Option<String>,
    /// The `https://` URL where the operator publishes the gateway's Client
    /// ID Metadata Document: used as the client id where the authorization
    /// server supports such documents; else dynamic registration (RFC 7591).
    pub client_metadata_url: Option<String>,
    /// The scopes asked for. Default: those the server's challenge or its
    /// metadata names.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// The server's protected resource metadata (RFC 9728), when its 401
    /// does not name it. Default: discovered from the 401 and the well-known
    /// paths.
    pub metadata_url: Option<String>,
    /// Whose login the server is called with: `gateway` (the default) or a
    /// profile's name (made with `toolsearch oauth login NAME --profile P`).
    pub login: Option<String>,
    /// The profiles that call the server with that login (`"*"`: every
    /// profile that sees the server). Default: every profile when no
    /// `[[profiles]]` are configured; the login's own profile when it is one.
    /// Required for a gateway login once `[[profiles]]` are configured.
    pub profiles: Option<Vec<String>>,
}

impl OAuthConfig {
    /// Whose login: `None` for the gateway's, else the profile's name.
    pub fn owner(&self) -> Option<&str> {
        self.login.as_deref().filter(|l| *l != GATEWAY_LOGIN)
    }

    /// True when profile `profile` calls the server with its login.
    pub fn shared_with(&self, profile: &str) -> bool {
        match (&self.profiles, self.owner()) {
            (Some(list), _) => list.iter().any(|p| p == "*" || p == profile),
            (None, Some(owner)) => owner == profile,
            (None, None) => true,
        }
    }

    /// As `config check` prints it (no secret is held here).
    pub(super) fn effective(&self) -> serde_json::Value {
        serde_json::json!({
            "client_id": self.client_id,
            "client_secret_env": self.client_secret_env,
            "client_metadata_url": self.client_metadata_url,
            "scopes": self.scopes,
            "metadata_url": self.metadata_url,
            "login": self.login.as_deref().unwrap_or(GATEWAY_LOGIN),
            "profiles": self.profiles,
        })
    }
}

/// Checks each server's `oauth` table against its transport and the profiles.
pub(super) fn check(
    servers: &[ServerConfig],
    profiles: &[ProfileConfig],
    text: &str,
) -> Result<(), ConfigError> {
    for (i, s) in servers.iter().enumerate() {
        let Some(o) = &s.oauth else { continue };
        let line = line_of(text, s.name.span().start);
        let at = format!("line {line}: servers[{i}].oauth");
        let Some(url) = s.url.as_deref() else {
            return Err(error(format!(
                "{at}: OAuth is for `url` servers (a stdio server gets its secrets through `env`)"
            )));
        };
        if s.bearer_token_env.is_some()
            || s.headers
                .keys()
                .any(|h| h.eq_ignore_ascii_case("authorization"))
        {
            return Err(error(format!(
                "{at}: a server with `oauth` gets its token from its login; remove `bearer_token_env` and any `Authorization` header"
            )));
        }
        if url.starts_with("http://") && !super::servers::is_loopback_url(url) {
            return Err(error(format!(
                "{at}: OAuth tokens are never sent in clear text to another machine; use https://"
            )));
        }
        if o.client_secret_env.is_some() && o.client_id.is_none() {
            return Err(error(format!(
                "{at}: `client_secret_env` is the secret of a `client_id` registered beforehand; give the `client_id` too"
            )));
        }
        if let Some(u) = &o.client_metadata_url {
            let ok = url::Url::parse(u)
                .is_ok_and(|u| u.scheme() == "https" && u.host_str().is_some() && u.path() != "/");
            if !ok {
                return Err(error(format!(
                    "{at}.client_metadata_url must be an https:// URL with a path (where the document is published)"
                )));
            }
        }
        if let Some(u) = &o.metadata_url {
            let ok = url::Url::parse(u).is_ok_and(|m| {
                m.scheme() == "https"
                    || (m.scheme() == "http" && super::servers::is_loopback_url(u))
            });
            if !ok {
                return Err(error(format!(
                    "{at}.metadata_url must be an https:// URL (http:// only on loopback)"
                )));
            }
        }
        for scope in &o.scopes {
            if scope.is_empty()
                || scope
                    .chars()
                    .any(|c| c.is_whitespace() || c == '"' || c == '\\' || c.is_control())
            {
                return Err(error(format!(
                    "{at}.scopes: `{}` is not a scope (RFC 6749: printable, no spaces, quotes or backslashes)",
                    scope.escape_debug()
                )));
            }
        }
        let known = |p: &str| profiles.iter().any(|c| c.name() == p);
        if let Some(owner) = o.owner() {
            if !known(owner) {
                return Err(error(format!(
                    "{at}.login names the profile `{}`, which is not configured (give `gateway` or a `[[profiles]]` name)",
                    owner.escape_debug()
                )));
            }
        }
        if let Some(list) = &o.profiles {
            for p in list {
                if p != "*" && !known(p) && p != super::profiles::DEFAULT_PROFILE {
                    return Err(error(format!(
                        "{at}.profiles names `{}`, which is not a configured profile",
                        p.escape_debug()
                    )));
                }
                if let Some(owner) = o.owner() {
                    if p != owner {
                        return Err(error(format!(
                            "{at}.profiles: the login belongs to profile `{owner}`; no other profile may call the server as it (`{}`). Give that server another entry with its own login",
                            p.escape_debug()
                        )));
                    }
                }
            }
        } else if o.owner().is_none() && !profiles.is_empty() {
            return Err(error(format!(
                "{at}: with `[[profiles]]` configured, name the profiles that call `{}` with the gateway's login (`profiles = [\"*\"]` for every one): each of them acts as whoever logged in",
                s.name()
            )));
        }
    }
    Ok(())
}
