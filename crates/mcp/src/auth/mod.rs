//! Who is calling: the step of an HTTP request that turns its credential into
//! a client profile, or refuses it. A static bearer token ([`tokens`]) opens
//! the profile it belongs to; an OAuth access token (a JWT, [`jwt`]) opens
//! the profile its claim or scope names, and carries the scopes an operation
//! is checked against ([`challenge`] answers 401 and 403 the way MCP clients
//! discover the authorization server from). Without any credential
//! configured, a token-less loopback client gets the `default` profile.
//!
//! The client's token stops here: it is never passed to the servers behind
//! the gateway (their requests carry only their own configured credentials).

use std::collections::HashSet;
use std::sync::Arc;

use crate::config::{Config, DEFAULT_PROFILE};

pub mod challenge;
mod jwks;
mod jwt;
mod ring_provider;
mod tokens;

pub use challenge::Refused;

/// A URL's `scheme://authority` and the rest (its path and query; empty
/// when there is none), or `None` when it has no `://`.
pub(crate) fn split_origin(url: &str) -> Option<(&str, &str)> {
    let i = url.find("://")? + 3;
    Some(match url[i..].find('/') {
        Some(j) => url.split_at(i + j),
        None => (url, ""),
    })
}

/// Constant-time comparison of two byte strings.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    use sha2::{Digest, Sha256};
    // Digests first: equal lengths, so neither the time nor an early return
    // tells a caller how long the secret is.
    let (a, b) = (Sha256::digest(a), Sha256::digest(b));
    a.iter()
        .zip(b.iter())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y))
        == 0
}

/// A caller the gateway admitted.
#[derive(Debug, Clone)]
pub struct Caller {
    /// Its profile.
    pub profile: Arc<str>,
    /// Who it is within the profile: a static token (a digest of it, see
    /// `tokens::principal`), an access token's issuer and subject, or
    /// `anonymous`. A session is its opener's: another caller of the same
    /// profile cannot drive it, and a removed token's sessions end.
    pub principal: Arc<str>,
    /// The scopes its access token carries (`None`: a static token or no
    /// credential, which may do everything its profile sees).
    pub scopes: Option<HashSet<String>>,
}

/// What an operation is, for the scope it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// Everything but running tools: lists, search, describe, pings.
    Read,
    /// `tools/call` of a tool that runs something (anything but `tool_search`
    /// and `tool_describe`).
    Call,
}

impl Operation {
    /// The operation of a JSON-RPC request with `method`, calling `tool`.
    pub fn of(method: Option<&str>, tool: Option<&str>) -> Operation {
        match (method, tool) {
            (Some("tools/call"), Some("tool_search" | "tool_describe")) => Operation::Read,
            (Some("tools/call"), _) => Operation::Call,
            _ => Operation::Read,
        }
    }
}

/// Admits HTTP requests: the configured credentials, checked.
pub struct Gatekeeper {
    tokens: tokens::Tokens,
    oauth: Option<jwt::OAuth>,
    /// Token-less requests get `default` (no credential is configured).
    anonymous: bool,
}

impl Gatekeeper {
    /// The credentials of `cfg`, read now (environment variables, token
    /// files); the issuer's keys are fetched at the first token.
    ///
    /// # Errors
    /// A credential that cannot be read (see [`Config::needs_credentials`]).
    pub fn new(cfg: &Config) -> anyhow::Result<Gatekeeper> {
        Gatekeeper::renewed(cfg, None)
    }

    /// [`Gatekeeper::new`] for a new configuration while `before` is in
    /// force: the issuer's cached keys carry over when the issuer and its key
    /// set's URL are the same (a reload that changes nothing of `[auth]`
    /// fetches nothing, and an issuer that is down meanwhile costs no one).
    ///
    /// # Errors
    /// As [`Gatekeeper::new`].
    pub fn renewed(cfg: &Config, before: Option<&Gatekeeper>) -> anyhow::Result<Gatekeeper> {
        let tokens = tokens::Tokens::load(cfg)?;
        let kept = before.and_then(|g| g.oauth.as_ref());
        let oauth = cfg
            .auth
            .as_ref()
            .map(|a| jwt::OAuth::new(a, &cfg.profiles, kept))
            .transpose()?;
        Ok(Gatekeeper {
            anonymous: !cfg.needs_credentials(),
            tokens,
            oauth,
        })
    }

    /// True when `token` opens a client profile (static tokens only).
    pub fn is_client_token(&self, token: &str) -> bool {
        self.tokens.profile(token).is_some()
    }

    /// True while `principal` can still be presented: a static token that is
    /// still configured, or any other kind (an access token's subject, or
    /// `anonymous`, which no configuration removes).
    pub fn admits_principal(&self, principal: &str) -> bool {
        !principal.starts_with("token:") || self.tokens.has_principal(principal)
    }

    /// True when every request must bring a credential.
    pub fn requires_credentials(&self) -> bool {
        !self.anonymous
    }

    /// The protected resource metadata, when the gateway is an OAuth resource
    /// server.
    pub fn resource_metadata(&self) -> Option<serde_json::Value> {
        self.oauth.as_ref().map(|o| o.challenge.metadata())
    }

    /// The caller of a request with `authorization` (the header's value).
    ///
    /// # Errors
    /// The answer to refuse it with: 401, the same for every credential that
    /// is missing, unknown, expired or otherwise invalid; 403 for a valid
    /// access token that opens no profile.
    pub async fn caller(&self, authorization: Option<&str>) -> Result<Caller, Refused> {
        let unauthorized = || match &self.oauth {
            Some(o) => o.challenge.unauthorized(authorization.is_some()),
            None => Refused::plain_unauthorized(),
        };
        // With no credential configured, whatever a client sends (a habitual
        // token, an SDK's leftover) is not looked at.
        if self.anonymous {
            return Ok(Caller {
                profile: Arc::from(DEFAULT_PROFILE),
                principal: Arc::from("anonymous"),
                scopes: None,
            });
        }
        let Some(header) = authorization else {
            return Err(unauthorized());
        };
        let token = match header.split_once(' ') {
            Some((scheme, t)) if scheme.eq_ignore_ascii_case("bearer") => t.trim(),
            _ => return Err(unauthorized()),
        };
        if let Some((profile, principal)) = self.tokens.profile(token) {
            return Ok(Caller {
                profile,
                principal,
                scopes: None,
            });
        }
        let Some(oauth) = &self.oauth else {
            return Err(unauthorized());
        };
        match oauth.verify(token).await {
            Ok(claims) => match oauth.profile_of(&claims) {
                Some(profile) => Ok(Caller {
                    profile,
                    principal: Arc::from(claims.principal),
                    scopes: Some(claims.scopes),
                }),
                None => Err(oauth.challenge.no_profile()),
            },
            Err(why) => {
                // The reason can quote the token's header (its `kid`): a
                // client's text, cleaned before any log line.
                tracing::info!(reason = %crate::text::clean_for_log(&why, 300), "refused an access token");
                Err(unauthorized())
            }
        }
    }

    /// Checks that `caller` may do `op`.
    ///
    /// # Errors
    /// 403 `insufficient_scope`, naming the one scope `op` needs.
    pub fn permits(&self, caller: &Caller, op: Operation) -> Result<(), Refused> {
        let (Some(scopes), Some(oauth)) = (&caller.scopes, &self.oauth) else {
            return Ok(());
        };
        let needed = oauth.scope_for(op);
        if scopes.contains(needed) {
            Ok(())
        } else {
            Err(oauth.challenge.insufficient_scope(needed))
        }
    }
}
