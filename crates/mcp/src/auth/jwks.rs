//! The authorization server's signing keys (its JWKS): found from its metadata
//! when not configured, fetched at the first token, kept for [`REFRESH`], and
//! fetched again early when a token names a key id not held, at most once per
//! [`MIN_REFETCH`] (a flood of invented key ids costs the issuer one request
//! per window). One fetch at a time; each bounded in time and size.

use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;

use super::ring_provider::family;

/// How long a fetched key set is used before it is fetched again.
pub const REFRESH: Duration = Duration::from_secs(3600);

/// The shortest time between two fetches a token's unknown key id causes.
pub const MIN_REFETCH: Duration = Duration::from_secs(10);

/// The longest a fetch of metadata or keys may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest key set or metadata document read.
const MAX_DOCUMENT: usize = 256 << 10;

/// Most keys a token without a key id is tried against (a token with one is
/// matched by its id among every key of the set).
const MAX_KEYS: usize = 64;

/// Most usable keys in one set: a set with more is refused whole, loudly
/// (its size is bounded by [`MAX_DOCUMENT`] too).
const MAX_SET_KEYS: usize = 1024;

/// How long past [`REFRESH`] a held set still verifies tokens while fetching
/// it again fails (an issuer's outage): a day.
pub const MAX_STALE: Duration = Duration::from_secs(24 * 3600);

/// A key of the set, ready to verify with.
struct Key {
    kid: Option<String>,
    /// The algorithm the key is for, when the set says.
    alg: Option<String>,
    key: DecodingKey,
}

#[derive(Default)]
struct State {
    keys: Vec<Key>,
    jwks_uri: Option<String>,
    fetched: Option<Instant>,
    tried: Option<Instant>,
    last_error: Option<String>,
}

impl State {
    /// True when the set should be fetched for a token naming `kid`: it is
    /// stale, or holds no such key, and no fetch began in the last
    /// [`MIN_REFETCH`].
    fn wants_fetch(&self, kid: Option<&str>, now: Instant) -> bool {
        let stale = self
            .fetched
            .is_none_or(|t| now.duration_since(t) >= REFRESH);
        let unknown = kid.is_some_and(|k| !self.keys.iter().any(|x| x.kid.as_deref() == Some(k)));
        let may_try = self
            .tried
            .is_none_or(|t| now.duration_since(t) >= MIN_REFETCH);
        (stale || unknown) && may_try
    }

    /// The keys that may have signed a token with `kid` and `alg`: the key of
    /// that id (or, a set whose keys have no ids, each of them), or (no id)
    /// every key of the algorithm's family.
    fn find(&self, kid: Option<&str>, alg: Algorithm) -> Result<Vec<DecodingKey>, String> {
        let name = format!("{alg:?}");
        if self
            .fetched
            .is_some_and(|t| t.elapsed() >= REFRESH + MAX_STALE)
        {
            return Err(format!(
                "the issuer's keys are over {} h old and cannot be fetched again: {}",
                (REFRESH + MAX_STALE).as_secs() / 3600,
                self.last_error.as_deref().unwrap_or("no fetch succeeded")
            ));
        }
        let found: Vec<DecodingKey> = self
            .keys
            .iter()
            .filter(|k| match (kid, k.kid.as_deref()) {
                (Some(want), Some(has)) => want == has,
                _ => true,
            })
            .filter(|k| k.alg.as_deref().is_none_or(|a| a == name))
            .filter(|k| k.key.family() == family(alg))
            .map(|k| k.key.clone())
            .take(MAX_KEYS)
            .collect();
        if found.is_empty() {
            return Err(self.last_error.clone().unwrap_or_else(|| {
                format!(
                    "the issuer's key set holds no {name} key{}",
                    kid.map(|k| format!(" with id `{k}`")).unwrap_or_default()
                )
            }));
        }
        Ok(found)
    }
}

/// The issuer's keys.
pub(crate) struct Jwks {
    issuer: String,
    configured: Option<String>,
    client: reqwest::Client,
    state: std::sync::Mutex<State>,
    /// Held by the one fetch running: a token whose key is held never waits
    /// for it.
    fetching: tokio::sync::Mutex<()>,
}

impl Jwks {
    pub(crate) fn new(issuer: &str, jwks_uri: Option<&str>) -> anyhow::Result<Jwks> {
        crate::upstream::http_client::install_tls_provider();
        let client = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| anyhow::anyhow!("[auth]: cannot make an HTTP client: {e}"))?;
        Ok(Jwks {
            issuer: issuer.to_string(),
            configured: jwks_uri.map(str::to_string),
            client,
            state: std::sync::Mutex::default(),
            fetching: tokio::sync::Mutex::new(()),
        })
    }

    /// True when these are the keys of `issuer` found at `jwks_uri`.
    pub(crate) fn is_for(&self, issuer: &str, jwks_uri: Option<&str>) -> bool {
        self.issuer == issuer && self.configured.as_deref() == jwks_uri
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The keys that may have signed a token with `kid` and `alg` (see
    /// [`State::find`]), fetching the set first when it is stale or lacks
    /// the key (one fetch at a time, at most one per [`MIN_REFETCH`]; while
    /// one runs, a token whose key is held is answered from the held set).
    ///
    /// # Errors
    /// Why no key can be had (the issuer cannot be reached, its set is
    /// unreadable, or it holds no such key): logged, never shown to clients.
    pub(crate) async fn keys_for(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Vec<DecodingKey>, String> {
        {
            let st = self.state();
            if !st.wants_fetch(kid, Instant::now()) {
                return st.find(kid, alg);
            }
        }
        let _running = match self.fetching.try_lock() {
            Ok(g) => g,
            Err(_) => {
                if let Ok(keys) = self.state().find(kid, alg) {
                    return Ok(keys);
                }
                match tokio::time::timeout(FETCH_TIMEOUT * 3, self.fetching.lock()).await {
                    Ok(g) => g,
                    Err(_) => return Err("the issuer's keys are still being fetched".into()),
                }
            }
        };
        let known_uri = {
            let mut st = self.state();
            let now = Instant::now();
            // Another fetch may have just ended.
            if !st.wants_fetch(kid, now) {
                return st.find(kid, alg);
            }
            st.tried = Some(now);
            self.configured.clone().or_else(|| st.jwks_uri.clone())
        };
        let fetched = self.fetch(known_uri).await;
        let mut st = self.state();
        match fetched {
            Ok((keys, uri)) => {
                tracing::info!(issuer = %self.issuer, keys = keys.len(), "fetched the issuer's signing keys");
                st.keys = keys;
                st.jwks_uri = Some(uri);
                st.fetched = Some(Instant::now());
                st.last_error = None;
            }
            Err(e) => {
                tracing::warn!(issuer = %self.issuer, error = %e, "cannot fetch the issuer's signing keys");
                st.last_error = Some(e);
            }
        }
        st.find(kid, alg)
    }

    /// The key set at `uri` (found from the issuer's metadata when `None`),
    /// and that URI.
    async fn fetch(&self, uri: Option<String>) -> Result<(Vec<Key>, String), String> {
        let uri = match uri {
            Some(u) => u,
            None => self.discover().await?,
        };
        let doc = self.get(&uri).await?;
        let Some(keys) = doc.get("keys").and_then(Value::as_array) else {
            return Err(format!("{uri} is not a key set (no `keys` list)"));
        };
        // Each key on its own: one the gateway cannot use (another type, a
        // private or symmetric key) is passed over, never the whole set.
        let keys: Vec<Key> = keys
            .iter()
            .filter_map(|k| serde_json::from_value::<Jwk>(k.clone()).ok())
            .filter(|k| {
                !matches!(
                    k.algorithm,
                    jsonwebtoken::jwk::AlgorithmParameters::OctetKey(_)
                ) && k
                    .common
                    .public_key_use
                    .as_ref()
                    .is_none_or(|u| *u == PublicKeyUse::Signature)
            })
            .filter_map(|k| {
                Some(Key {
                    kid: k.common.key_id.clone(),
                    alg: k.common.key_algorithm.map(|a| format!("{a:?}")),
                    key: DecodingKey::from_jwk(&k).ok()?,
                })
            })
            .take(MAX_SET_KEYS + 1)
            .collect();
        if keys.len() > MAX_SET_KEYS {
            return Err(format!(
                "{uri} holds more than {MAX_SET_KEYS} usable keys; the set is refused whole"
            ));
        }
        Ok((keys, uri))
    }

    /// The `jwks_uri` of the issuer's metadata (RFC 8414, then OpenID
    /// Connect discovery), whose `issuer` must be the configured one.
    async fn discover(&self) -> Result<String, String> {
        let issuer = self.issuer.trim_end_matches('/');
        let Some((origin, path)) = super::split_origin(issuer) else {
            return Err(format!("issuer `{issuer}` is not a URL"));
        };
        let tries = [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{issuer}/.well-known/openid-configuration"),
        ];
        let mut why = Vec::new();
        for url in tries {
            match self.get(&url).await {
                Ok(doc) => {
                    if doc.get("issuer").and_then(Value::as_str) != Some(self.issuer.as_str()) {
                        why.push(format!("{url} names another issuer"));
                        continue;
                    }
                    match doc.get("jwks_uri").and_then(Value::as_str) {
                        Some(u) if crate::config::secure_url(u).is_ok() => return Ok(u.to_string()),
                        Some(u) => why.push(format!("{url}: jwks_uri `{u}` is not https")),
                        None => why.push(format!("{url} has no jwks_uri")),
                    }
                }
                Err(e) => why.push(e),
            }
        }
        Err(format!(
            "no metadata of issuer `{}`: {}",
            self.issuer,
            why.join("; ")
        ))
    }

    /// GETs a JSON document of at most [`MAX_DOCUMENT`] bytes.
    async fn get(&self, url: &str) -> Result<Value, String> {
        let mut resp = self
            .client
            .get(url)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        if !resp.status().is_success() {
            return Err(format!("GET {url}: HTTP {}", resp.status().as_u16()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| format!("GET {url}: {e}"))? {
            if body.len() + chunk.len() > MAX_DOCUMENT {
                return Err(format!("GET {url}: over {MAX_DOCUMENT} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|e| format!("GET {url}: not JSON: {e}"))
    }
}
