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

/// Most keys kept from one set.
const MAX_KEYS: usize = 64;

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

/// The issuer's keys.
pub(crate) struct Jwks {
    issuer: String,
    configured: Option<String>,
    client: reqwest::Client,
    state: tokio::sync::Mutex<State>,
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
            state: tokio::sync::Mutex::default(),
        })
    }

    /// The keys that may have signed a token with `kid` and `alg`: the key
    /// of that id, or (no id) every key of the algorithm's family.
    ///
    /// # Errors
    /// Why no key can be had (the issuer cannot be reached, its set is
    /// unreadable, or it holds no such key): logged, never shown to clients.
    pub(crate) async fn keys_for(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Vec<DecodingKey>, String> {
        let mut st = self.state.lock().await;
        let now = Instant::now();
        let stale = st.fetched.is_none_or(|t| now.duration_since(t) >= REFRESH);
        let unknown = kid.is_some_and(|k| !st.keys.iter().any(|x| x.kid.as_deref() == Some(k)));
        let may_try = st
            .tried
            .is_none_or(|t| now.duration_since(t) >= MIN_REFETCH);
        if (stale || unknown) && may_try {
            st.tried = Some(now);
            match self.fetch(&mut st).await {
                Ok(keys) => {
                    tracing::info!(issuer = %self.issuer, keys = keys.len(), "fetched the issuer's signing keys");
                    st.keys = keys;
                    st.fetched = Some(now);
                    st.last_error = None;
                }
                Err(e) => {
                    tracing::warn!(issuer = %self.issuer, error = %e, "cannot fetch the issuer's signing keys");
                    st.last_error = Some(e);
                }
            }
        }
        let name = format!("{alg:?}");
        let found: Vec<DecodingKey> = st
            .keys
            .iter()
            .filter(|k| match kid {
                Some(kid) => k.kid.as_deref() == Some(kid),
                None => true,
            })
            .filter(|k| k.alg.as_deref().is_none_or(|a| a == name))
            .filter(|k| k.key.family() == family(alg))
            .map(|k| k.key.clone())
            .collect();
        if found.is_empty() {
            return Err(st.last_error.clone().unwrap_or_else(|| {
                format!(
                    "the issuer's key set holds no {name} key{}",
                    kid.map(|k| format!(" with id `{k}`")).unwrap_or_default()
                )
            }));
        }
        Ok(found)
    }

    async fn fetch(&self, st: &mut State) -> Result<Vec<Key>, String> {
        let uri = match (&self.configured, &st.jwks_uri) {
            (Some(u), _) | (None, Some(u)) => u.clone(),
            (None, None) => {
                let u = self.discover().await?;
                st.jwks_uri = Some(u.clone());
                u
            }
        };
        let doc = self.get(&uri).await?;
        let Some(keys) = doc.get("keys").and_then(Value::as_array) else {
            return Err(format!("{uri} is not a key set (no `keys` list)"));
        };
        // Each key on its own: one the gateway cannot use (another type, a
        // private or symmetric key) is passed over, never the whole set.
        Ok(keys
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
            .take(MAX_KEYS)
            .collect())
    }

    /// The `jwks_uri` of the issuer's metadata (RFC 8414, then OpenID
    /// Connect discovery), whose `issuer` must be the configured one.
    async fn discover(&self) -> Result<String, String> {
        let issuer = self.issuer.trim_end_matches('/');
        let (origin, path) = match issuer.find("://").map(|i| i + 3) {
            Some(i) => match issuer[i..].find('/') {
                Some(j) => (&issuer[..i + j], &issuer[i + j..]),
                None => (issuer, ""),
            },
            None => return Err(format!("issuer `{issuer}` is not a URL")),
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
                        Some(u) if u.starts_with("https://") || is_loopback_http(u) => {
                            return Ok(u.to_string())
                        }
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

/// `http://` to a loopback host.
fn is_loopback_http(url: &str) -> bool {
    url.strip_prefix("http://").is_some_and(|rest| {
        ["localhost", "127.0.0.1", "[::1]"]
            .iter()
            .any(|h| rest.starts_with(&format!("{h}:")) || rest.starts_with(&format!("{h}/")))
    })
}
