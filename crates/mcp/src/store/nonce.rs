//! Single-use markers: an approval round's nonce is redeemed once across
//! every replica (`SET NX` with the round's time to live), or, with no Redis
//! configured, once in this process.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use toolsearch_catalog::lru::Lru;

use super::{key, Store, Unreachable};

/// Most nonces one process remembers (rounds live minutes; past this the
/// oldest are forgotten, and their seals have expired long before).
const LOCAL_NONCES: usize = 100_000;

/// Nonces redeemed in this process, with when each may be forgotten.
pub(super) struct Local(Mutex<Lru<String, Instant>>);

impl Default for Local {
    fn default() -> Self {
        Local(Mutex::new(Lru::new(LOCAL_NONCES)))
    }
}

impl Store {
    /// Marks `nonce` used for `ttl`: `Ok(true)` the first time, `Ok(false)`
    /// when it was used already (a replay). `Err` when Redis is configured
    /// but cannot be reached: a round cannot be known fresh, so it is refused.
    pub async fn redeem(&self, nonce: &str, ttl: Duration) -> Result<bool, Unreachable> {
        if self.remote.is_none() {
            let mut seen = self.nonces.0.lock().unwrap_or_else(|p| p.into_inner());
            let now = Instant::now();
            if seen.get(nonce).is_some_and(|until| *until > now) {
                return Ok(false);
            }
            seen.insert(nonce.to_string(), now + ttl);
            return Ok(true);
        }
        let k = key("nonce", nonce);
        let ms = ttl.as_millis().max(1) as u64;
        self.run(|mut c| async move {
            let set: Option<String> = redis::cmd("SET")
                .arg(&k)
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(ms)
                .query_async(&mut c)
                .await?;
            Ok(set.is_some())
        })
        .await
    }
}
