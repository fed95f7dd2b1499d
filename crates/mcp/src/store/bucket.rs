//! Rate budgets every replica draws from: one token bucket per key in Redis
//! (refilled at `per_minute` a minute, holding at most `per_minute`), taken
//! from in one atomic script, with Redis's own clock (replicas' clocks never
//! meet). A request takes a token from each of its keys (its caller's and its
//! profile's) or from none.

use std::sync::LazyLock;

use super::{key, Store, Unreachable};

/// Every key's level is checked before any is taken from: all or nothing.
static TAKE: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local levels = {}
for i = 1, #KEYS do
  local cap = tonumber(ARGV[i])
  local b = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local tokens = tonumber(b[1]) or cap
  local at = tonumber(b[2]) or now
  tokens = math.min(cap, tokens + math.max(0, now - at) * cap / 60000)
  if tokens < 1 then
    return 0
  end
  levels[i] = tokens
end
for i = 1, #KEYS do
  redis.call('HSET', KEYS[i], 'tokens', tostring(levels[i] - 1), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[i], 120000)
end
return 1
",
    )
});

impl Store {
    /// Takes one request from each `(key, per_minute)` budget, in Redis:
    /// `Ok(true)` when every one had room. `Err` when Redis is not
    /// configured or cannot be reached: the caller counts locally, with its
    /// share of each budget ([`Store::share`]).
    pub async fn take(&self, budgets: &[(&str, u64)]) -> Result<bool, Unreachable> {
        let keys: Vec<String> = budgets.iter().map(|(k, _)| key("rate", k)).collect();
        let caps: Vec<u64> = budgets.iter().map(|(_, n)| *n).collect();
        self.run(|mut c| async move {
            let mut call = TAKE.prepare_invoke();
            for k in &keys {
                call.key(k);
            }
            for n in &caps {
                call.arg(n);
            }
            let admitted: i64 = call.invoke_async(&mut c).await?;
            Ok(admitted == 1)
        })
        .await
    }

    /// This replica's share of a budget of `per_minute` while the budget
    /// cannot be shared: `per_minute / replicas`, at least 1.
    pub fn share(&self, per_minute: u64) -> u64 {
        (per_minute / u64::from(self.replicas)).max(1)
    }
}
