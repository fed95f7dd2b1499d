//! One bounded map for every cache and per-client table of the project: at
//! most `capacity` entries, the least recently used one goes first. Lookups
//! and inserts are O(log n) (a use counter orders the entries), so a full
//! table costs no scan.

use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

/// A map of at most `capacity` entries, least recently used evicted first.
#[derive(Debug, Clone)]
pub struct Lru<K, V> {
    capacity: usize,
    map: HashMap<K, (u64, V)>,
    /// Use tick -> key, oldest first.
    order: BTreeMap<u64, K>,
    tick: u64,
}

impl<K: Eq + Hash + Clone, V> Lru<K, V> {
    /// An empty map holding at most `capacity` entries (at least one).
    pub fn new(capacity: usize) -> Self {
        Lru {
            capacity: capacity.max(1),
            map: HashMap::new(),
            order: BTreeMap::new(),
            tick: 0,
        }
    }

    /// The most entries it holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Changes the capacity, evicting the least recently used entries past it.
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(1);
        while self.map.len() > self.capacity {
            self.pop_oldest();
        }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    fn touch<Q>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let tick = self.next_tick();
        let Some((used, _)) = self.map.get_mut(key) else {
            return false;
        };
        if let Some(k) = self.order.remove(used) {
            self.order.insert(tick, k);
        }
        *used = tick;
        true
    }

    /// The value of `key`, marked used.
    pub fn get<Q>(&mut self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        if !self.touch(key) {
            return None;
        }
        self.map.get(key).map(|(_, v)| v)
    }

    /// The value of `key` to change, marked used.
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        if !self.touch(key) {
            return None;
        }
        self.map.get_mut(key).map(|(_, v)| v)
    }

    /// The value of `key`, not marked used.
    pub fn peek<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.map.get(key).map(|(_, v)| v)
    }

    /// True when `key` is held.
    pub fn contains<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.map.contains_key(key)
    }

    fn pop_oldest(&mut self) -> Option<(K, V)> {
        let (_, key) = self.order.pop_first()?;
        let (_, v) = self.map.remove(&key)?;
        Some((key, v))
    }

    /// Sets `key` to `value` (marked used). Returns the entry evicted to make
    /// room, if one was.
    pub fn insert(&mut self, key: K, value: V) -> Option<(K, V)> {
        let tick = self.next_tick();
        if let Some((used, v)) = self.map.get_mut(&key) {
            self.order.remove(used);
            self.order.insert(tick, key);
            *used = tick;
            *v = value;
            return None;
        }
        let evicted = if self.map.len() >= self.capacity {
            self.pop_oldest()
        } else {
            None
        };
        self.order.insert(tick, key.clone());
        self.map.insert(key, (tick, value));
        evicted
    }

    /// The value of `key` (marked used), made by `make` when absent (evicting
    /// the least recently used entry when full).
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        if !self.touch(&key) {
            self.insert(key.clone(), make());
        }
        self.map.get_mut(&key).map(|(_, v)| v).expect("just held")
    }

    /// Removes `key`, returning its value.
    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (used, v) = self.map.remove(key)?;
        self.order.remove(&used);
        Some(v)
    }

    /// Every value, to change (use order unchanged).
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.map.values_mut().map(|(_, v)| v)
    }

    /// Keeps only the entries `keep` holds to.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        let order = &mut self.order;
        self.map.retain(|k, (used, v)| {
            let kept = keep(k, v);
            if !kept {
                order.remove(used);
            }
            kept
        });
    }
}

#[cfg(test)]
mod tests {
    use super::Lru;

    #[test]
    fn the_least_recently_used_entry_goes_first() {
        let mut m = Lru::new(2);
        assert!(m.insert("a", 1).is_none());
        assert!(m.insert("b", 2).is_none());
        // `a` is used: `b` is now the oldest.
        assert_eq!(m.get("a"), Some(&1));
        assert_eq!(m.insert("c", 3), Some(("b", 2)));
        assert_eq!(m.len(), 2);
        assert!(m.contains("a") && m.contains("c") && !m.contains("b"));
        // Replacing a value evicts nothing.
        assert!(m.insert("c", 30).is_none());
        assert_eq!(m.peek("c"), Some(&30));
        // `a` was used before `c` was set: it goes next (peek marks nothing).
        assert_eq!(m.insert("d", 4), Some(("a", 1)));
    }

    #[test]
    fn get_or_insert_remove_retain_and_capacity_keep_the_order_consistent() {
        let mut m: Lru<String, u32> = Lru::new(3);
        for i in 0..10 {
            *m.get_or_insert_with(format!("k{}", i % 4), || 0) += 1;
        }
        assert_eq!(m.len(), 3);
        assert_eq!(m.remove("k9"), None);
        let removed = m.remove("k1");
        assert!(removed.is_some());
        m.retain(|k, _| k != "k0");
        assert!(!m.contains("k0"));
        m.insert("x".into(), 1);
        m.insert("y".into(), 1);
        m.set_capacity(1);
        assert_eq!(m.len(), 1);
        assert!(m.contains("y"));
        // Internal order agrees with the map after all of it.
        assert_eq!(m.order.len(), m.map.len());
    }

    #[test]
    fn a_full_table_of_100000_entries_takes_inserts_without_scans() {
        let mut m = Lru::new(100_000);
        for i in 0..300_000u32 {
            m.insert(i, i);
        }
        assert_eq!(m.len(), 100_000);
        assert!(m.contains(&299_999) && !m.contains(&199_999));
    }
}
