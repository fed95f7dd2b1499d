//! The second step of an HTTP request: admitting it. Its caller is known
//! (see [`crate::auth`]); new sessions are refused past `max_sessions`, and
//! requests are rate-limited per caller (its credential's principal, or its
//! address) and per profile: in Redis when replicas share budgets
//! ([`crate::store`]), else in this replica's windows.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use toolsearch_catalog::lru::Lru;

impl Default for RateLimit {
    fn default() -> Self {
        RateLimit::new()
    }
}

/// Requests per minute per caller and per profile, counted
/// in fixed windows; at most [`RATE_KEYS`] keys are kept (least recently used
/// forgotten, which only ever forgives).
pub struct RateLimit {
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
    /// Windows for every key (each request says its key's budget).
    pub fn new() -> RateLimit {
        RateLimit {
            state: Mutex::new((Lru::new(RATE_KEYS), Instant::now())),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, (Windows, Instant)> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// True when `key` may make one more request now, `per_minute` being its
    /// budget. Once a window, windows that ended are dropped (they hold
    /// nothing a new window would not).
    pub fn admit_up_to(&self, key: &str, per_minute: u64) -> bool {
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
        entry.1 <= per_minute
    }
}
