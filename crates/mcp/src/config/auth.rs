//! `[auth]`: the gateway as an OAuth 2.1 resource server (MCP authorization).
//! Clients find the authorization server through the protected resource
//! metadata the gateway serves; access tokens are JWTs checked against the
//! issuer's keys (JWKS), and choose a profile by a claim or a scope.

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::{error, range, ConfigError};

/// The algorithms accepted when `algorithms` is not given.
pub const DEFAULT_ALGORITHMS: &[&str] = &["RS256", "ES256"];

/// Every algorithm `algorithms` may name (asymmetric only: a JWKS holds
/// public keys; `HS*` and `none` are never accepted).
pub const KNOWN_ALGORITHMS: &[&str] = &[
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA",
];

/// `[auth]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// The gateway's canonical URI (`https://gw.example.com/mcp`): what clients
    /// ask tokens for (RFC 8707 `resource`), and the audience (`aud`) a token
    /// must name.
    pub resource: String,
    /// The authorization server's issuer identifier: a token's `iss` must
    /// equal it, and the protected resource metadata names it.
    pub issuer: String,
    /// The issuer's key set. Default: `jwks_uri` of its metadata
    /// (`/.well-known/oauth-authorization-server`, then OpenID's), fetched at
    /// the first token.
    pub jwks_uri: Option<String>,
    /// Signature algorithms accepted (asymmetric). Default `["RS256", "ES256"]`.
    pub algorithms: Option<Vec<String>>,
    /// Clock skew allowed on `exp` and `nbf`, in seconds (0 to 300). Default 30.
    pub leeway_s: Option<Spanned<u64>>,
    /// The claim whose value names a profile (see `profiles[].claim`).
    pub profile_claim: Option<String>,
    /// The scope every request needs. Default `mcp:tools`.
    pub read_scope: Option<String>,
    /// The scope a call that runs tools needs (`tools/call` of anything but
    /// `tool_search` and `tool_describe`). Default `mcp:call`.
    pub call_scope: Option<String>,
}

impl AuthConfig {
    /// `leeway_s`, or its default.
    pub fn leeway(&self) -> u64 {
        self.leeway_s.as_ref().map_or(30, |s| *s.get_ref())
    }

    /// `algorithms`, or the default.
    pub fn algorithms(&self) -> Vec<String> {
        self.algorithms
            .clone()
            .unwrap_or_else(|| DEFAULT_ALGORITHMS.iter().map(|s| s.to_string()).collect())
    }

    /// `read_scope`, or its default.
    pub fn read_scope(&self) -> &str {
        self.read_scope.as_deref().unwrap_or("mcp:tools")
    }

    /// `call_scope`, or its default.
    pub fn call_scope(&self) -> &str {
        self.call_scope.as_deref().unwrap_or("mcp:call")
    }

    pub(super) fn check(&self, text: &str) -> Result<(), ConfigError> {
        range(text, "auth.leeway_s", &self.leeway_s, 0, 300)?;
        for (key, url) in [
            ("resource", Some(&self.resource)),
            ("issuer", Some(&self.issuer)),
            ("jwks_uri", self.jwks_uri.as_ref()),
        ] {
            let Some(url) = url else { continue };
            if let Err(why) = secure_url(url) {
                return Err(error(format!("[auth] `{key}` {why}")));
            }
        }
        if self.resource.contains('#') {
            return Err(error("[auth] `resource` must not hold a fragment (`#`)"));
        }
        let algorithms = self.algorithms();
        if algorithms.is_empty() {
            return Err(error("[auth] `algorithms` is empty: name at least one"));
        }
        for a in &algorithms {
            if !KNOWN_ALGORITHMS.contains(&a.as_str()) {
                return Err(error(format!(
                    "[auth] `algorithms` names `{}`; it takes {} (HS* and none are never accepted)",
                    a.escape_debug(),
                    KNOWN_ALGORITHMS.join(", ")
                )));
            }
        }
        for (key, v) in [
            ("read_scope", &self.read_scope),
            ("call_scope", &self.call_scope),
            ("profile_claim", &self.profile_claim),
        ] {
            if v.as_deref()
                .is_some_and(|s| s.is_empty() || s.contains(char::is_whitespace))
            {
                return Err(error(format!("[auth] `{key}` must be one word")));
            }
        }
        Ok(())
    }

    pub(super) fn effective(&self) -> serde_json::Value {
        serde_json::json!({
            "resource": self.resource,
            "issuer": self.issuer,
            "jwks_uri": self.jwks_uri.as_deref().unwrap_or("(from the issuer's metadata)"),
            "algorithms": self.algorithms(),
            "leeway_s": self.leeway(),
            "profile_claim": self.profile_claim,
            "read_scope": self.read_scope(),
            "call_scope": self.call_scope(),
            "opaque_tokens": "refused (401 invalid_token): access tokens must be JWTs",
        })
    }
}

/// `https://…`, or `http://` to a loopback host with no user info (tests, a
/// local server): what `[auth]`'s URLs and a discovered `jwks_uri` must be.
///
/// # Errors
/// Why the URL is refused.
pub(crate) fn secure_url(url: &str) -> Result<(), String> {
    if url.starts_with("https://") {
        return Ok(());
    }
    let Some(rest) = url.strip_prefix("http://") else {
        return Err(format!("`{}` must start with https://", url.escape_debug()));
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.contains('@') {
        return Err(format!(
            "`{}` must not hold user info (`@`)",
            url.escape_debug()
        ));
    }
    let host = match host.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host,
    };
    if ["localhost", "127.0.0.1", "[::1]"].contains(&host) {
        Ok(())
    } else {
        Err(format!(
            "`{}` must start with https:// (http:// only to a loopback host)",
            url.escape_debug()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::secure_url;

    #[test]
    fn only_a_loopback_host_may_be_reached_over_plain_http() {
        assert!(secure_url("http://127.0.0.1:9/as/jwks").is_ok());
        assert!(secure_url("http://localhost/jwks").is_ok());
        assert!(secure_url("https://login.example.com/t").is_ok());
        assert!(secure_url("http://localhost:80@evil.example/jwks").is_err());
        assert!(secure_url("http://localhost.evil.example/jwks").is_err());
        assert!(secure_url("ftp://127.0.0.1/jwks").is_err());
    }
}
