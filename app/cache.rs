//! Exact caches over the store's change versions (`Store::version`): an entry remembers the versions it was
//! computed under and is used only while they are unchanged. Versions are read before the snapshot and bumped
//! after each commit, so nothing served from here is older than an acknowledged write.
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;

/// A bounded map whose entries carry the version stamp they were computed under: at most `cap` entries and, for
/// entries put with their size (`put_sized`), at most `budget` bytes of them.
pub struct Stamped<K, S, V> {
    map: Mutex<(HashMap<K, (S, V, usize)>, usize)>,
    cap: usize,
    budget: usize,
}

impl<K: Eq + Hash, S: PartialEq, V: Clone> Stamped<K, S, V> {
    pub fn new(cap: usize) -> Self {
        Stamped { map: Mutex::new((HashMap::new(), 0)), cap, budget: usize::MAX }
    }

    /// At most `cap` entries holding at most `budget` bytes (answers of any size: a client asking pages of 999
    /// rows with a new cache-busting `_t` each time kept 2,000 answers of 450 KB, ~900 MB).
    pub fn with_budget(cap: usize, budget: usize) -> Self {
        Stamped { map: Mutex::new((HashMap::new(), 0)), cap, budget }
    }

    pub fn get(&self, k: &K, stamp: &S) -> Option<V> {
        let m = self.map.lock().ok()?;
        match m.0.get(k) {
            Some((s, v, _)) if s == stamp => Some(v.clone()),
            _ => None,
        }
    }

    pub fn put(&self, k: K, stamp: S, v: V) {
        self.put_sized(k, stamp, v, 0);
    }

    /// `put` of a value taking `size` bytes; one larger than an eighth of the budget is not kept.
    pub fn put_sized(&self, k: K, stamp: S, v: V, size: usize) {
        if size > self.budget / 8 {
            return;
        }
        if let Ok(mut m) = self.map.lock() {
            let (map, used) = &mut *m;
            if let Some((_, _, old)) = map.remove(&k) {
                *used -= old;
            }
            if map.len() >= self.cap || *used + size > self.budget {
                // Cheap bound: start over rather than track recency; hot entries come back at once.
                map.clear();
                *used = 0;
            }
            map.insert(k, (stamp, v, size));
            *used += size;
        }
    }

    /// Bytes held by entries put with their size.
    pub fn used(&self) -> usize {
        self.map.lock().map(|m| m.1).unwrap_or(0)
    }

    pub fn clear(&self) {
        if let Ok(mut m) = self.map.lock() {
            m.0.clear();
            m.1 = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Stamped;

    #[test]
    fn sized_entries_stay_within_the_budget() {
        let c: Stamped<u32, u64, Vec<u8>> = Stamped::with_budget(100, 1000);
        for k in 0..50 {
            c.put_sized(k, 1, vec![0; 100], 100);
            assert!(c.used() <= 1000, "{} bytes held", c.used());
        }
        assert_eq!(c.get(&49, &1).map(|v| v.len()), Some(100));
        assert!(c.get(&49, &2).is_none(), "another stamp is a miss");
        c.put_sized(49, 1, vec![0; 50], 50);
        assert!(c.used() <= 1000);
        c.put_sized(7, 1, vec![0; 200], 200);
        assert!(c.get(&7, &1).is_none(), "larger than an eighth of the budget: not kept");
        c.clear();
        assert_eq!(c.used(), 0);
    }
}
