//! OAuth access tokens: JWTs checked against the issuer's keys. The
//! signature's algorithm must be one of the configured (asymmetric) ones and
//! fit the key; `iss` must be the issuer, `aud` the gateway's canonical URI,
//! `exp` present and not past (`nbf`, when present, reached), with
//! `[auth] leeway_s` of clock skew. A token that is not a JWT (an opaque
//! one) is refused: the gateway does no introspection.

use std::collections::HashSet;
use std::str::FromStr;
use std::sync::Arc;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{decode, decode_header, Algorithm, Validation};
use serde_json::Value;

use super::challenge::Challenge;
use super::jwks::Jwks;
use super::Operation;
use crate::config::{AuthConfig, ProfileConfig, DEFAULT_PROFILE};

/// The longest token read.
const MAX_TOKEN: usize = 16 << 10;

/// What the gateway reads of a valid token.
pub(crate) struct Claims {
    /// `scope` (space-separated) and `scp` (a list), together.
    pub(crate) scopes: HashSet<String>,
    /// The values of `[auth] profile_claim` (a string, or a list of them).
    pub(crate) profile_values: Vec<String>,
    /// `jwt:<iss> <sub>`: who the token speaks for.
    pub(crate) principal: String,
}

/// The gateway as an OAuth resource server.
pub(crate) struct OAuth {
    pub(crate) challenge: Challenge,
    jwks: Arc<Jwks>,
    algorithms: Vec<Algorithm>,
    issuer: String,
    audiences: Vec<String>,
    leeway: u64,
    profile_claim: Option<String>,
    by_claim: Vec<(String, Arc<str>)>,
    by_scope: Vec<(String, Arc<str>)>,
    read_scope: String,
    call_scope: String,
}

impl OAuth {
    pub(crate) fn new(
        cfg: &AuthConfig,
        profiles: &[ProfileConfig],
        before: Option<&OAuth>,
    ) -> anyhow::Result<OAuth> {
        super::ring_provider::install();
        let algorithms = cfg
            .algorithms()
            .iter()
            .map(|a| Algorithm::from_str(a).map_err(|_| anyhow::anyhow!("[auth] algorithm `{a}`")))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let by_claim: Vec<(String, Arc<str>)> = profiles
            .iter()
            .filter_map(|p| Some((p.claim.clone()?, Arc::from(p.name()))))
            .collect();
        let by_scope: Vec<(String, Arc<str>)> = profiles
            .iter()
            .filter_map(|p| Some((p.scope.clone()?, Arc::from(p.name()))))
            .collect();
        if !by_claim.is_empty() && cfg.profile_claim.is_none() {
            anyhow::bail!("profiles name a `claim`, but [auth] `profile_claim` (the claim it is the value of) is not set");
        }
        let mut scopes = vec![cfg.read_scope().to_string()];
        if cfg.call_scope() != cfg.read_scope() {
            scopes.push(cfg.call_scope().to_string());
        }

        // RFC 3986: scheme and host are case-insensitive; a client may ask
        // for the resource in either case.
        let mut audiences = vec![cfg.resource.clone()];
        let lower = lower_scheme_and_host(&cfg.resource);
        if lower != cfg.resource {
            audiences.push(lower);
        }
        Ok(OAuth {
            // Scopes that choose a profile are not told to anyone: they would
            // name the gateway's teams to unauthenticated callers.
            challenge: Challenge::new(&cfg.resource, &cfg.issuer, scopes),
            jwks: match before.filter(|b| b.jwks.is_for(&cfg.issuer, cfg.jwks_uri.as_deref())) {
                Some(b) => b.jwks.clone(),
                None => Arc::new(Jwks::new(&cfg.issuer, cfg.jwks_uri.as_deref())?),
            },
            algorithms,
            issuer: cfg.issuer.clone(),
            audiences,
            leeway: cfg.leeway(),
            profile_claim: cfg.profile_claim.clone(),
            by_claim,
            by_scope,
            read_scope: cfg.read_scope().to_string(),
            call_scope: cfg.call_scope().to_string(),
        })
    }

    /// The scope `op` needs.
    pub(crate) fn scope_for(&self, op: Operation) -> &str {
        match op {
            Operation::Read => &self.read_scope,
            Operation::Call => &self.call_scope,
        }
    }

    /// Checks `token`.
    ///
    /// # Errors
    /// Why it is refused (for the log; the client hears only 401).
    pub(crate) async fn verify(&self, token: &str) -> Result<Claims, String> {
        if token.len() > MAX_TOKEN {
            return Err(format!("a token over {MAX_TOKEN} bytes"));
        }
        if token.split('.').count() != 3 {
            return Err("not a JWT (opaque tokens are not introspected)".into());
        }
        let header = decode_header(token).map_err(|e| format!("unreadable header: {e}"))?;
        // RFC 7515 §4.1.11: an extension named in `crit` that is not
        // understood makes the token invalid, and `crit: []` must not be
        // sent; the gateway understands none, so any `crit` is refused.
        if raw_header(token).is_some_and(|h| h.contains_key("crit")) {
            return Err(
                "its header names critical extensions (`crit`), which are not understood".into(),
            );
        }
        if !self.algorithms.contains(&header.alg) {
            return Err(format!("algorithm {:?} is not accepted", header.alg));
        }
        let keys = self
            .jwks
            .keys_for(header.kid.as_deref(), header.alg)
            .await?;
        let mut v = Validation::new(header.alg);
        v.required_spec_claims = ["exp", "iss", "aud"].map(String::from).into();
        v.leeway = self.leeway;
        v.validate_nbf = true;
        v.set_issuer(&[&self.issuer]);
        v.set_audience(&self.audiences);
        for key in &keys {
            match decode::<Value>(token, key, &v) {
                Ok(data) => return self.claims(&data.claims),
                Err(e) if *e.kind() == ErrorKind::InvalidSignature => continue,
                Err(e) => return Err(e.to_string()),
            }
        }
        Err("the signature matches no key of the issuer".into())
    }

    fn claims(&self, claims: &Value) -> Result<Claims, String> {
        // RFC 7519: `iss` is one StringOrURI (a list holding the issuer is
        // not); `sub` names who the token speaks for, and a session is its
        // subject's: a token without one could drive anyone's.
        if !claims.get("iss").is_some_and(Value::is_string) {
            return Err("`iss` is not a single string".into());
        }
        let sub = match claims.get("sub").and_then(Value::as_str) {
            Some(s) if !s.is_empty() => s,
            _ => return Err("no `sub` claim (the subject a session belongs to)".into()),
        };
        let mut scopes: HashSet<String> = claims
            .get("scope")
            .and_then(Value::as_str)
            .map(|s| s.split_whitespace().map(String::from).collect())
            .unwrap_or_default();
        if let Some(list) = claims.get("scp").and_then(Value::as_array) {
            scopes.extend(list.iter().filter_map(Value::as_str).map(String::from));
        }
        let profile_values = match self.profile_claim.as_deref().and_then(|c| claims.get(c)) {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
            _ => Vec::new(),
        };
        Ok(Claims {
            scopes,
            profile_values,
            principal: format!("jwt:{} {sub}", self.issuer),
        })
    }

    /// The profile a valid token chooses: the first (in the config's order)
    /// whose `claim` it carries, else whose `scope` it has; `default` when no
    /// profile is chosen by claim or scope at all.
    pub(crate) fn profile_of(&self, claims: &Claims) -> Option<Arc<str>> {
        if self.by_claim.is_empty() && self.by_scope.is_empty() {
            return Some(Arc::from(DEFAULT_PROFILE));
        }
        self.by_claim
            .iter()
            .find(|(v, _)| claims.profile_values.contains(v))
            .or_else(|| {
                self.by_scope
                    .iter()
                    .find(|(s, _)| claims.scopes.contains(s))
            })
            .map(|(_, p)| p.clone())
    }
}

/// The JSON object of a JWT's header, when it is one.
fn raw_header(token: &str) -> Option<serde_json::Map<String, Value>> {
    use base64::Engine;
    let b64 = token.split('.').next()?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(b64.trim_end_matches('='))
        .ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// `resource` with its scheme and host in lower case.
fn lower_scheme_and_host(resource: &str) -> String {
    match super::split_origin(resource) {
        Some((origin, rest)) => format!("{}{rest}", origin.to_ascii_lowercase()),
        None => resource.to_string(),
    }
}
