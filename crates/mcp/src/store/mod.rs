//! What the replicas of one configuration share, and nothing else: rate
//! budgets ([`bucket`]) and the single-use nonces of approval rounds
//! ([`nonce`]), in Redis. Keys are digests, values are token counts and
//! markers: no argument, result or credential is stored. Everything else a client leaves behind is per
//! replica on purpose: a session lives on the replica that made it (the
//! balancer sticks it there), a snippet slot on the replica running it.
//!
//! Without a Redis URL the store is local: nonces are kept in this process,
//! and the front door's own windows are the budgets. With one, an operation
//! that fails or takes past [`OP_TIMEOUT`] marks Redis down with the reason;
//! while it is down, operations answer at once ([`Unreachable`]) but one a
//! second, which tries it again (waiting at most [`OP_TIMEOUT`]), so service
//! resumes without a restart when it is back.
//!
//! Keys are SHA-256 digests of what they count (a token's principal is
//! itself a digest of the token; an address is not secret), so Redis holds no
//! credential and no name in clear; a digest of a guessed address can be
//! confirmed by whoever reads Redis.

pub mod bucket;
pub mod nonce;

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

/// How long one Redis operation may take before the store counts Redis as
/// unreachable.
const OP_TIMEOUT: Duration = Duration::from_millis(400);

/// How often a Redis marked down is tried again.
const RETRY: Duration = Duration::from_secs(1);

/// Redis could not be used: why, in words for an operator and a model.
#[derive(Debug, Clone)]
pub struct Unreachable(pub String);

/// Where the shared state lives, and how it is.
pub struct Store {
    remote: Option<Remote>,
    replicas: u32,
    nonces: nonce::Local,
}

struct Remote {
    conn: ConnectionManager,
    /// The URL with its credentials redacted.
    shown: String,
    health: Mutex<Health>,
}

struct Health {
    /// Why Redis is down, and since when; `None` while it answers.
    down: Option<(String, SystemTime)>,
    /// When it was last tried while down.
    tried: Instant,
}

/// The store as `/readyz` shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Shown {
    /// `local` (no Redis configured), `redis` or `redis-unreachable`.
    pub state: &'static str,
    /// The URL, credentials redacted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Replicas the file names (rate budgets' share while Redis is down).
    pub replicas: u32,
    /// Why Redis is unreachable, and what that changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Store {
    /// A store of this process only.
    pub fn local(replicas: u32) -> Store {
        Store {
            remote: None,
            replicas: replicas.max(1),
            nonces: nonce::Local::default(),
        }
    }

    /// A store on the Redis at `url` (`redis://`, `rediss://`). Nothing is
    /// dialled yet: a Redis that is down at start is a degraded store, not a
    /// failed start.
    ///
    /// # Errors
    /// A URL Redis's client cannot read (said without the URL's secrets).
    pub fn redis(url: &str, replicas: u32) -> Result<Store, String> {
        crate::upstream::http_client::install_tls_provider();
        let shown = crate::config::redact_url(url);
        let client = redis::Client::open(url)
            .map_err(|e| format!("the Redis URL {shown} cannot be used: {:?}", e.kind()))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(OP_TIMEOUT))
            .set_response_timeout(Some(OP_TIMEOUT))
            .set_number_of_retries(1)
            .set_max_delay(RETRY);
        let conn = ConnectionManager::new_lazy_with_config(client, config)
            .map_err(|e| format!("the Redis URL {shown} cannot be used: {:?}", e.kind()))?;
        Ok(Store {
            remote: Some(Remote {
                conn,
                shown,
                health: Mutex::new(Health {
                    down: None,
                    tried: Instant::now(),
                }),
            }),
            replicas: replicas.max(1),
            nonces: nonce::Local::default(),
        })
    }

    /// Replicas the configuration names.
    pub fn replicas(&self) -> u32 {
        self.replicas
    }

    /// Whether Redis is configured (state is shared).
    pub fn shared(&self) -> bool {
        self.remote.is_some()
    }

    /// Why Redis is unreachable now, if it is.
    pub fn down(&self) -> Option<String> {
        let remote = self.remote.as_ref()?;
        let health = remote.health.lock().unwrap_or_else(|p| p.into_inner());
        health.down.as_ref().map(|(why, _)| why.clone())
    }

    /// The store for `/readyz`; Redis is tried first (PING; once a second
    /// while it is down), so the page says how it was at most a second ago.
    pub async fn shown(&self) -> Shown {
        let Some(remote) = &self.remote else {
            return Shown {
                state: "local",
                url: None,
                replicas: self.replicas,
                note: None,
            };
        };
        let _ = self
            .run(|mut c| async move { redis::cmd("PING").query_async::<()>(&mut c).await })
            .await;
        let note = self.down().map(|why| {
            format!(
                "Redis is unreachable ({why}): each rate budget is this replica's share \
                 (1/{}), and approvals are refused until it answers",
                self.replicas
            )
        });
        Shown {
            state: if note.is_some() {
                "redis-unreachable"
            } else {
                "redis"
            },
            url: Some(remote.shown.clone()),
            replicas: self.replicas,
            note,
        }
    }

    /// Runs `op` on Redis, bounded by [`OP_TIMEOUT`]; marks Redis down or up
    /// by the outcome. While it is down, answers at once but once a
    /// [`RETRY`].
    async fn run<T, F, Fut>(&self, op: F) -> Result<T, Unreachable>
    where
        F: FnOnce(ConnectionManager) -> Fut,
        Fut: std::future::Future<Output = redis::RedisResult<T>>,
    {
        let Some(remote) = &self.remote else {
            return Err(Unreachable("no Redis is configured".into()));
        };
        {
            let mut health = remote.health.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((why, _)) = &health.down {
                if health.tried.elapsed() < RETRY {
                    return Err(Unreachable(why.clone()));
                }
                health.tried = Instant::now();
            }
        }
        let outcome = match tokio::time::timeout(OP_TIMEOUT, op(remote.conn.clone())).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(describe(&e)),
            Err(_) => Err(format!("no answer in {} ms", OP_TIMEOUT.as_millis())),
        };
        let mut health = remote.health.lock().unwrap_or_else(|p| p.into_inner());
        match outcome {
            Ok(v) => {
                if health.down.take().is_some() {
                    tracing::warn!(url = %remote.shown, "Redis answers again: rate budgets and approvals are shared");
                }
                Ok(v)
            }
            Err(why) => {
                if health.down.is_none() {
                    tracing::warn!(url = %remote.shown, why = %why, "Redis is unreachable: rate budgets fall to this replica's share, approvals are refused");
                    health.down = Some((why.clone(), SystemTime::now()));
                }
                health.tried = Instant::now();
                Err(Unreachable(why))
            }
        }
    }
}

/// A Redis error in words, without anything the URL held.
fn describe(e: &redis::RedisError) -> String {
    if e.is_timeout() {
        "no answer in time".into()
    } else if e.is_connection_refusal() {
        "connection refused".into()
    } else if e.is_io_error() || e.is_connection_dropped() {
        "the connection failed".into()
    } else {
        match e.code() {
            Some(code) => format!("Redis answered {code}"),
            None => format!("{:?}", e.kind()),
        }
    }
}

/// A key's digest, as Redis sees it: `toolsearch:<kind>:<16 hex>`.
pub(crate) fn key(kind: &str, what: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(what.as_bytes());
    format!("toolsearch:{kind}:{}", crate::text::hex(&digest[..8]))
}

impl Store {
    /// The store `cfg` names: on the Redis in its URL variable, else local.
    ///
    /// # Errors
    /// A Redis URL that cannot be used.
    pub fn of(cfg: &crate::config::ReplicasConfig) -> anyhow::Result<Store> {
        match std::env::var(&cfg.redis_url_env)
            .ok()
            .filter(|u| !u.trim().is_empty())
        {
            Some(url) => Store::redis(url.trim(), cfg.count()).map_err(anyhow::Error::msg),
            None => Ok(Store::local(cfg.count())),
        }
    }
}
