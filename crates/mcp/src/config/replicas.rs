//! `[replicas]`: one gateway of several behind a balancer, sharing what must
//! be shared through Redis: rate budgets, approval nonces, and the keys that
//! seal approval rounds. Every replica reads the same file; the secrets (the
//! Redis URL, the sealing keys) come from the environment, never the file.

use serde::{Deserialize, Serialize};

use super::{error, ConfigError};

/// `[replicas]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplicasConfig {
    /// How many replicas serve this file (1 to 64). While Redis cannot be
    /// reached, each keeps `1/count` of every rate budget. Default 1.
    pub count: Option<u32>,
    /// The environment variable holding the Redis URL (`redis://` or
    /// `rediss://`, user and password in it). Default `TOOLSEARCH_REDIS_URL`;
    /// when it is unset or empty, nothing is shared: each replica counts its
    /// `1/count` share of every budget alone.
    #[serde(default = "default_redis_env")]
    pub redis_url_env: String,
    /// The environment variable holding the approval rounds' sealing keys:
    /// `id:hex,id:hex` (each key at least 32 bytes, so 64 hex digits), the
    /// first sealing, every one opening (two during a rotation). Default
    /// `TOOLSEARCH_SEALING_KEYS`; when unset, a key of this process's own
    /// (rounds then redeem on the replica that sealed them only).
    #[serde(default = "default_keys_env")]
    pub sealing_keys_env: String,
}

impl Default for ReplicasConfig {
    fn default() -> Self {
        ReplicasConfig {
            count: None,
            redis_url_env: default_redis_env(),
            sealing_keys_env: default_keys_env(),
        }
    }
}

fn default_redis_env() -> String {
    "TOOLSEARCH_REDIS_URL".into()
}

fn default_keys_env() -> String {
    "TOOLSEARCH_SEALING_KEYS".into()
}

/// Most replicas a file may name.
const MAX_REPLICAS: u32 = 64;

impl ReplicasConfig {
    /// `count`, or 1.
    pub fn count(&self) -> u32 {
        self.count.unwrap_or(1)
    }

    pub(super) fn check(&self) -> Result<(), ConfigError> {
        if !(1..=MAX_REPLICAS).contains(&self.count()) {
            return Err(error(format!(
                "[replicas] `count` is {}; it must be 1 to {MAX_REPLICAS}",
                self.count()
            )));
        }
        for (key, value) in [
            ("redis_url_env", &self.redis_url_env),
            ("sealing_keys_env", &self.sealing_keys_env),
        ] {
            if value.is_empty() || value.contains('=') || value.contains('\0') {
                return Err(error(format!(
                    "[replicas] `{key}` must name an environment variable"
                )));
            }
        }
        Ok(())
    }

    pub(super) fn effective(&self) -> serde_json::Value {
        serde_json::json!({
            "count": self.count(),
            "redis_url_env": self.redis_url_env,
            "sealing_keys_env": self.sealing_keys_env,
        })
    }
}
