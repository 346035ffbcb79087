//! Exact caches over the store's change versions (`Store::version`): an entry remembers the versions it was
//! computed under and is used only while they are unchanged. Versions are read before the snapshot and bumped
//! after each commit, so nothing served from here is older than an acknowledged write.
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;

/// A bounded map whose entries carry the version stamp they were computed under.
pub struct Stamped<K, S, V> {
    map: Mutex<HashMap<K, (S, V)>>,
    cap: usize,
}

impl<K: Eq + Hash, S: PartialEq, V: Clone> Stamped<K, S, V> {
    pub fn new(cap: usize) -> Self {
        Stamped { map: Mutex::new(HashMap::new()), cap }
    }

    pub fn get(&self, k: &K, stamp: &S) -> Option<V> {
        let m = self.map.lock().ok()?;
        match m.get(k) {
            Some((s, v)) if s == stamp => Some(v.clone()),
            _ => None,
        }
    }

    pub fn put(&self, k: K, stamp: S, v: V) {
        if let Ok(mut m) = self.map.lock() {
            if m.len() >= self.cap {
                // Cheap bound: start over rather than track recency; hot entries come back at once.
                m.clear();
            }
            m.insert(k, (stamp, v));
        }
    }

    pub fn clear(&self) {
        if let Ok(mut m) = self.map.lock() {
            m.clear();
        }
    }
}
