//! Recent query vectors: an agent repeats and rephrases its searches within a task
//! (and `search_many` carries several queries at once), and embedding a query is
//! most of a fused search's time, so the last few vectors are kept.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use toolsearch_catalog::lru::Lru;

/// Query vectors kept by default (1.5 KB each for a 384-wide model).
pub const DEFAULT_QUERY_CACHE: usize = 256;

/// A small least-recently-used map from embedded text to vector, with hit counters.
#[derive(Debug)]
pub(crate) struct QueryCache {
    capacity: usize,
    entries: Mutex<Lru<String, Arc<[f32]>>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// How the query cache has done since the model was loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryCacheStats {
    /// Entries it may hold (0: off).
    pub capacity: usize,
    /// Queries answered from it.
    pub hits: u64,
    /// Queries embedded.
    pub misses: u64,
}

impl QueryCache {
    pub(crate) fn new(capacity: usize) -> QueryCache {
        QueryCache {
            capacity,
            entries: Mutex::new(Lru::new(capacity)),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The vector of `text`, from the cache or made by `embed` (outside the lock, so
    /// concurrent queries embed in parallel).
    pub(crate) fn get_or(&self, text: &str, embed: impl FnOnce() -> Vec<f32>) -> Arc<[f32]> {
        if self.capacity > 0 {
            let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(v) = entries.get(text) {
                let v = Arc::clone(v);
                self.hits.fetch_add(1, Ordering::Relaxed);
                return v;
            }
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let v: Arc<[f32]> = embed().into();
        if self.capacity > 0 {
            let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            if !entries.contains(text) {
                entries.insert(text.to_string(), Arc::clone(&v));
            }
        }
        v
    }

    pub(crate) fn stats(&self) -> QueryCacheStats {
        QueryCacheStats {
            capacity: self.capacity,
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_recently_used_goes_first_and_hits_are_counted() {
        let c = QueryCache::new(2);
        let embeds = std::cell::Cell::new(0);
        let get = |t: &str| {
            c.get_or(t, || {
                embeds.set(embeds.get() + 1);
                vec![t.len() as f32]
            })
        };
        assert_eq!(&*get("a"), &[1.0]);
        get("bb");
        get("a"); // hit; "bb" is now the least recent
        get("ccc"); // evicts "bb"
        get("a"); // hit
        get("bb"); // embedded again
        assert_eq!(embeds.get(), 4);
        let s = c.stats();
        assert_eq!((s.hits, s.misses, s.capacity), (2, 4, 2));
    }

    #[test]
    fn capacity_zero_is_off() {
        let c = QueryCache::new(0);
        let mut n = 0;
        for _ in 0..3 {
            c.get_or("q", || {
                n += 1;
                vec![0.0]
            });
        }
        assert_eq!(n, 3);
        assert_eq!(c.stats().hits, 0);
    }
}
