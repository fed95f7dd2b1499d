//! The second step of an HTTP request: admitting it. The bearer token is
//! checked (in constant time), new sessions are refused past `max_sessions`,
//! and requests are rate-limited per session, per client address and per
//! token.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use toolsearch_catalog::lru::Lru;

/// Requests per minute per session, per client address and per token, counted
/// in fixed windows; at most [`RATE_KEYS`] keys are kept (least recently used
/// forgotten, which only ever forgives).
pub struct RateLimit {
    per_minute: u64,
    /// The windows, and when ended ones were last dropped: one lock.
    state: Mutex<(Windows, Instant)>,
}

/// Each key's window: when it started and the requests in it.
type Windows = Lru<String, (Instant, u64)>;

/// Most keys the rate limiter keeps.
const RATE_KEYS: usize = 20_000;

/// A rate window's length.
const WINDOW: Duration = Duration::from_secs(60);

impl RateLimit {
    /// At most `per_minute` requests per key and minute.
    pub fn new(per_minute: u64) -> RateLimit {
        RateLimit {
            per_minute,
            state: Mutex::new((Lru::new(RATE_KEYS), Instant::now())),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, (Windows, Instant)> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Forgets `key` (a session that ended).
    pub fn forget(&self, key: &str) {
        self.state().0.remove(key);
    }

    /// True when `key` may make one more request now. Once a window, windows
    /// that ended are dropped (they hold nothing a new window would not).
    pub fn admit(&self, key: &str) -> bool {
        let now = Instant::now();
        let mut state = self.state();
        let (windows, swept) = &mut *state;
        if now.duration_since(*swept) >= WINDOW {
            *swept = now;
            windows.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let entry = windows.get_or_insert_with(key.to_string(), || (now, 0));
        if now.duration_since(entry.0) >= WINDOW {
            *entry = (now, 0);
        }
        entry.1 += 1;
        entry.1 <= self.per_minute
    }
}

/// Constant-time comparison of two byte strings.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
