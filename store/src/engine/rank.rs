//! Rank marks: any page of an unfiltered list in id order in O(log n) plus at most `EVERY` steps, instead of
//! walking every record before it. For each (tenant, resource) a list of marks — every `EVERY`-th id with the
//! number of records below it — is built by one walk the first time a deep page is asked, then kept in memory.
//!
//! The marks are checked against the reader's own snapshot every time, never trusted blindly:
//! - the resource's removal counter (`$rm:<resource>`, bumped in the transaction of every removal) must be the
//!   one the marks were made with: a removal shifts ranks, so the marks are made again;
//! - records added since have higher ids (ids grow with time): the tail above the last marked id is walked —
//!   it extends the marks — and must hold exactly the records the counter added. A record stored with an old id
//!   (a move between files) fails that count and the marks are made again.
//!
//! A snapshot older than the marks (a reader that began before a newer reader extended them) walks as before.
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A mark every this many records.
pub const EVERY: u64 = 256;

/// The marks of one (tenant, resource) as of some snapshot.
#[derive(Debug, Clone, Default)]
pub struct Marks {
    /// Live records then.
    pub count: u64,
    /// The removal counter then.
    pub removed: u64,
    /// The highest id then (0: none).
    pub max_id: u64,
    /// (id, records below it), ascending; positions are multiples of `EVERY`.
    pub marks: Vec<(u64, u64)>,
}

impl Marks {
    /// The mark to start a walk to position `pos` from: (id, its position), or none (walk from the start).
    pub fn start_for(&self, pos: u64) -> Option<(u64, u64)> {
        let i = self.marks.partition_point(|(_, p)| *p <= pos);
        (i > 0).then(|| self.marks[i - 1])
    }
}

/// The marks of every (tenant, resource) a deep page was asked of.
#[derive(Default)]
pub struct RankCache(Mutex<HashMap<(String, String), Arc<Marks>>>);

impl RankCache {
    pub fn get(&self, t: &str, res: &str) -> Option<Arc<Marks>> {
        self.0.lock().ok()?.get(&(t.to_string(), res.to_string())).cloned()
    }
    /// Keeps `m` unless newer marks are there already (another reader's later snapshot).
    pub fn put(&self, t: &str, res: &str, m: Marks) {
        if let Ok(mut g) = self.0.lock() {
            let key = (t.to_string(), res.to_string());
            let newer = g.get(&key).is_some_and(|cur| cur.removed == m.removed && cur.count > m.count);
            if !newer {
                g.insert(key, Arc::new(m));
            }
        }
    }
}

/// The counter of removals of a resource (kept beside its live count; `$` names are never record totals).
pub fn removed_key(res: &str) -> String {
    format!("$rm:{res}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_is_the_last_mark_at_or_before_the_position() {
        let m = Marks { count: 1000, removed: 0, max_id: 1000, marks: vec![(1, 0), (300, 256), (600, 512), (900, 768)] };
        assert_eq!(m.start_for(0), Some((1, 0)));
        assert_eq!(m.start_for(255), Some((1, 0)));
        assert_eq!(m.start_for(256), Some((300, 256)));
        assert_eq!(m.start_for(999), Some((900, 768)));
        assert_eq!(Marks::default().start_for(5), None);
    }
}
