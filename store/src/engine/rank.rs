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
//!
//! A list sorted by another indexed field has marks of that field's whole index (`SortMarks`), trusted while
//! nothing was removed or moved since they were made. Records added since (ids above the marks') can land anywhere
//! in that index: their entries are kept beside the marks, each shifting the marks above it by one, until there are
//! `ADDED_MAX` of them and the marks are made again.
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
    /// For the marks of one value of an indexed field: that field's move counter then.
    pub moved: u64,
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

/// What marks are of: a (tenant, resource), or one value of one of its indexed fields (field name and the
/// value's index bytes; an empty field for the whole resource).
pub type MarksOf = (String, String, String, Vec<u8>);

/// Marks of values kept at most (the whole resources' always fit): a long-running server sees many values.
const MAX_ENTRIES: usize = 4096;

/// Entries of added records kept beside sort marks at most: a walk from a mark passes at most `EVERY` plus these
/// (~1 ms); past them the marks are made again.
pub const ADDED_MAX: usize = 8 * 1024;

/// Marks of a whole sort index of one field (ascending: value, then id): every `EVERY`-th entry with its
/// position when made, and the entries of the records added since. An insert can land anywhere in such an index:
/// it moves the marks above it by one. They are trusted only while the snapshot holds the removals and moves they
/// were made with, and exactly the records they count.
#[derive(Debug, Clone)]
pub struct SortMarks {
    /// Records counted: the marked ones and the added ones.
    pub count: u64,
    pub removed: u64,
    pub moved: u64,
    /// The highest record id counted (0: none): records added later have higher ids.
    pub max_id: u64,
    /// (value's index bytes, id, position when made), ascending; positions are multiples of `EVERY`. Shared
    /// between the marks of later snapshots, which only add entries.
    pub marks: Arc<Vec<(Vec<u8>, u64, u64)>>,
    /// The index entries (value's bytes, id) of the records added since the marks were made, ascending.
    pub added: Vec<(Vec<u8>, u64)>,
    /// When they were made: marks that no longer hold are made again at most once a second (meanwhile the
    /// index is walked by key from the nearer end).
    pub made: std::time::Instant,
}

impl SortMarks {
    /// The position of mark `i` now: where it was made, moved by the added entries below it.
    fn position(&self, i: usize) -> u64 {
        let (v, id, p) = &self.marks[i];
        p + self.added.partition_point(|(av, aid)| (av.as_slice(), *aid) < (v.as_slice(), *id)) as u64
    }

    /// The mark to start a walk to position `pos` from, as (value's bytes, id, its position now), or none (walk
    /// from the start).
    pub fn start_for(&self, pos: u64) -> Option<(&[u8], u64, u64)> {
        // Positions now still ascend with the marks: the last one at or before `pos`.
        let (mut lo, mut hi) = (0, self.marks.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.position(mid) <= pos {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo > 0).then(|| {
            let (v, id, _) = &self.marks[lo - 1];
            (v.as_slice(), *id, self.position(lo - 1))
        })
    }

    /// Counts an added record's entry.
    pub fn add(&mut self, value: Vec<u8>, id: u64) {
        let at = self.added.partition_point(|(av, aid)| (av.as_slice(), *aid) < (value.as_slice(), id));
        self.added.insert(at, (value, id));
        self.count += 1;
        self.max_id = self.max_id.max(id);
    }
}

/// Which sort marks: tenant, resource, field, and for a filtered list its exact filters (each field and value,
/// empty for the whole index).
pub type SortOf = (String, String, String, String);

/// Filtered lists' sort marks kept at most (each up to a few hundred KB for a million records; the whole indexes'
/// are one per sortable field and always kept).
const FILTERED_MAX: usize = 64;

/// The ids of the records holding one value of an indexed field (`MarksOf` with a field), as of a snapshot: what a
/// list with several exact filters intersects, instead of reading every index entry of each value every time.
/// Valid under the same rule as the marks: the removal counter and the field's move counter unchanged, and records
/// added since (ids above `max_id`) found in the value's index range above it.
#[derive(Debug, Clone)]
pub struct IdSet {
    pub removed: u64,
    pub moved: u64,
    /// The resource's highest record id in the snapshot the set is of.
    pub max_id: u64,
    /// Ascending. (Ids carry their millisecond in their high bits, so a compressed bitmap of a year's records is
    /// mostly one container per record: a plain array is smaller and as quick to intersect.)
    pub ids: Arc<Vec<u64>>,
}

impl IdSet {
    /// The set as a snapshot whose highest record id is `upto` (at most `max_id`) sees it: a later reader's set
    /// less the ids above it (records that snapshot does not hold).
    pub fn as_of(&self, upto: u64) -> Arc<Vec<u64>> {
        if upto >= self.max_id {
            return self.ids.clone();
        }
        let keep = self.ids.partition_point(|id| *id <= upto);
        Arc::new(self.ids[..keep].to_vec())
    }
}

/// Memory the id sets may take together (8 bytes an id: a value of a million records takes 8 MB; past it every
/// set goes and is made again when asked). A set over a quarter of it is not kept.
const SETS_MAX_BYTES: usize = 64 << 20;

/// The marks of every list a deep page (or, for a value, the total) was asked of.
#[derive(Default)]
pub struct RankCache {
    ids: Mutex<HashMap<MarksOf, Arc<Marks>>>,
    sorts: Mutex<HashMap<SortOf, Arc<SortMarks>>>,
    /// The id sets kept, and their bytes together.
    sets: Mutex<(HashMap<MarksOf, Arc<IdSet>>, usize)>,
    /// Held while a range's id set is made from its index entries (8 bytes an id): one at a time.
    making: Mutex<()>,
}

/// What the rank cache holds (the status screen): lists with id-order marks, sort indexes with marks (whole and per
/// filter combination), id sets, and the memory of each kind.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RankFigures {
    pub lists: u64,
    pub sorted: u64,
    pub filtered_sorted: u64,
    pub marks_bytes: u64,
    pub sets: u64,
    pub set_bytes: u64,
    /// The id sets' bound (past it they all go and are made again when asked).
    pub set_max_bytes: u64,
}

impl SortMarks {
    /// About what these marks take in memory.
    fn bytes(&self) -> u64 {
        let marks: usize = self.marks.iter().map(|(v, _, _)| v.len() + 40).sum();
        let added: usize = self.added.iter().map(|(v, _)| v.len() + 32).sum();
        (marks + added) as u64
    }
}

impl RankCache {
    /// What is held now (counted under each kind's lock in turn).
    pub fn figures(&self) -> RankFigures {
        let mut f = RankFigures { set_max_bytes: SETS_MAX_BYTES as u64, ..RankFigures::default() };
        if let Ok(g) = self.ids.lock() {
            f.lists = g.len() as u64;
            f.marks_bytes += g.values().map(|m| m.marks.len() as u64 * 16).sum::<u64>();
        }
        if let Ok(g) = self.sorts.lock() {
            for (k, m) in g.iter() {
                if !k.3.is_empty() {
                    f.filtered_sorted += 1;
                } else {
                    f.sorted += 1;
                }
                f.marks_bytes += m.bytes();
            }
        }
        if let Ok(g) = self.sets.lock() {
            f.sets = g.0.len() as u64;
            f.set_bytes = g.1 as u64;
        }
        f
    }

    /// The right to make a range's id set now, if no other request is making one (a poisoned lock is taken as is:
    /// it guards no data).
    pub fn try_making(&self) -> Option<std::sync::MutexGuard<'_, ()>> {
        match self.making.try_lock() {
            Ok(g) => Some(g),
            Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    pub fn get(&self, of: &MarksOf) -> Option<Arc<Marks>> {
        self.ids.lock().ok()?.get(of).cloned()
    }
    pub fn sort(&self, of: &SortOf) -> Option<Arc<SortMarks>> {
        self.sorts.lock().ok()?.get(of).cloned()
    }
    pub fn set(&self, of: &MarksOf) -> Option<Arc<IdSet>> {
        self.sets.lock().ok()?.0.get(of).cloned()
    }
    /// Keeps an id set unless the one there is of a later snapshot.
    pub fn put_set(&self, of: &MarksOf, s: IdSet) {
        let Ok(mut g) = self.sets.lock() else { return };
        if g.0.get(of).is_some_and(|cur| later((cur.removed, cur.moved, cur.max_id), (s.removed, s.moved, s.max_id))) {
            return;
        }
        let bytes = s.ids.len() * 8;
        if bytes > SETS_MAX_BYTES / 4 {
            return;
        }
        if let Some(old) = g.0.remove(of) {
            g.1 -= old.ids.len() * 8;
        }
        if g.1 + bytes > SETS_MAX_BYTES {
            g.0.clear();
            g.1 = 0;
        }
        g.0.insert(of.clone(), Arc::new(s));
        g.1 += bytes;
    }
    /// Keeps sort marks unless the ones there are of a later snapshot (more removals or moves, or as many and
    /// more records).
    pub fn put_sort(&self, of: &SortOf, m: Arc<SortMarks>) {
        if let Ok(mut g) = self.sorts.lock() {
            let newer = g.get(of).is_some_and(|cur| later((cur.removed, cur.moved, cur.count), (m.removed, m.moved, m.count)));
            if !newer {
                if g.len() >= MAX_ENTRIES && !g.contains_key(of) {
                    g.clear();
                }
                if !of.3.is_empty() && !g.contains_key(of) && g.keys().filter(|k| !k.3.is_empty()).count() >= FILTERED_MAX {
                    g.retain(|k, _| k.3.is_empty());
                }
                g.insert(of.clone(), m);
            }
        }
    }
    /// Keeps `m` unless newer marks are there already (another reader's later snapshot).
    pub fn put(&self, of: &MarksOf, m: Marks) {
        if let Ok(mut g) = self.ids.lock() {
            // Counters only grow: marks made with higher ones, or as many and more records, are of a later
            // snapshot; a reader that began earlier never replaces them.
            let newer = g.get(of).is_some_and(|cur| later((cur.removed, cur.moved, cur.count), (m.removed, m.moved, m.count)));
            if !newer {
                if g.len() >= MAX_ENTRIES && !g.contains_key(of) {
                    // Forget the values' marks (rebuilt when asked again); keep the whole resources'.
                    g.retain(|k, _| k.2.is_empty());
                }
                g.insert(of.clone(), Arc::new(m));
            }
        }
    }
}

/// Whether marks made with (removals, moves, records) `a` are of a later snapshot than `b`'s: counters only grow,
/// so more removals or moves, or as many and more records.
fn later(a: (u64, u64, u64), b: (u64, u64, u64)) -> bool {
    a.0 > b.0 || a.1 > b.1 || (a.0 == b.0 && a.1 == b.1 && a.2 > b.2)
}

/// The counter of removals of a resource and of records stored under an old id (kept beside its live count;
/// `$` names are never record totals): either shifts the ranks of what follows.
pub fn removed_key(res: &str) -> String {
    format!("$rm:{res}")
}

/// The counter of updates that moved a record from one value of an indexed field to another.
pub fn moved_key(res: &str, field: &str) -> String {
    format!("$mv:{res}:{field}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_of_an_earlier_snapshot_never_replace_later_ones() {
        let c = RankCache::default();
        let of: MarksOf = ("t".into(), "r".into(), String::new(), Vec::new());
        c.put(&of, Marks { count: 10, removed: 2, ..Marks::default() });
        c.put(&of, Marks { count: 12, removed: 1, ..Marks::default() });
        assert_eq!((c.get(&of).unwrap().count, c.get(&of).unwrap().removed), (10, 2), "fewer removals: earlier");
        c.put(&of, Marks { count: 9, removed: 2, ..Marks::default() });
        assert_eq!(c.get(&of).unwrap().count, 10, "as many removals and fewer records: earlier");
        c.put(&of, Marks { count: 11, removed: 2, ..Marks::default() });
        assert_eq!(c.get(&of).unwrap().count, 11);
        c.put(&of, Marks { count: 3, removed: 3, ..Marks::default() });
        assert_eq!(c.get(&of).unwrap().count, 3, "a later removal");
    }

    #[test]
    fn the_start_is_the_last_mark_at_or_before_the_position() {
        let m = Marks { count: 1000, removed: 0, moved: 0, max_id: 1000, marks: vec![(1, 0), (300, 256), (600, 512), (900, 768)] };
        assert_eq!(m.start_for(0), Some((1, 0)));
        assert_eq!(m.start_for(255), Some((1, 0)));
        assert_eq!(m.start_for(256), Some((300, 256)));
        assert_eq!(m.start_for(999), Some((900, 768)));
        assert_eq!(Marks::default().start_for(5), None);
    }

    #[test]
    fn added_entries_move_the_sort_marks_above_them() {
        // An index of values 0, 2, 4, … (two bytes each), one id per value, a mark every 256th entry.
        let v = |n: u16| n.to_be_bytes().to_vec();
        let marks: Vec<(Vec<u8>, u64, u64)> = (0..4u16).map(|i| (v(i * 512), u64::from(i) * 256 + 1, u64::from(i) * 256)).collect();
        let mut m = SortMarks { count: 1024, removed: 0, moved: 0, max_id: 1024, marks: Arc::new(marks), added: Vec::new(), made: std::time::Instant::now() };
        assert_eq!(m.start_for(600), Some((v(1024).as_slice(), 513, 512)));
        // Three entries below the third mark (one of them between the first two), one above the last.
        m.add(v(1023), 2000);
        m.add(v(3), 2001);
        m.add(v(1023), 1999);
        m.add(v(2000), 2002);
        assert_eq!((m.count, m.max_id, m.added.len()), (1028, 2002, 4));
        assert_eq!(m.added.iter().map(|(_, id)| *id).collect::<Vec<_>>(), vec![2001, 1999, 2000, 2002], "kept in index order");
        assert_eq!(m.start_for(0), Some((v(0).as_slice(), 1, 0)));
        assert_eq!(m.start_for(256), Some((v(0).as_slice(), 1, 0)), "the second mark moved to 257");
        assert_eq!(m.start_for(257), Some((v(512).as_slice(), 257, 257)));
        assert_eq!(m.start_for(514), Some((v(512).as_slice(), 257, 257)));
        assert_eq!(m.start_for(515), Some((v(1024).as_slice(), 513, 515)));
        assert_eq!(m.start_for(5000), Some((v(1536).as_slice(), 769, 771)));
    }
}
