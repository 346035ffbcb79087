//! Fragments in memory: for a field that `contains` questions are asked of, every adjacent pair of its folded
//! characters as a bitmap of records, one per (pair, position mod `K`), and each record's folded text. A needle
//! of two or more characters is then the union over the `K` residues of the intersections of its pairs' bitmaps
//! at consecutive residues — plain bitmap arithmetic instead of reading positions from tantivy's postings.
//!
//! Exact without looking at any text for a value of at most `K + 1` characters (its pairs lie at distinct
//! residues, so pairs at consecutive residues — not wrapping from `K - 1` to 0 — are pairs at consecutive
//! positions); a longer value among the candidates is confirmed against its text. One character: that
//! character's bitmap.
//!
//! Built on demand from the index's own stored documents (one field of one resource in one tenant, on a thread
//! of its own while tantivy answers), then kept current by every commit of the index, under a memory budget
//! (the least recently asked field goes first). Records are numbered in id order (ids grow with time); a record
//! stored under an older id than the newest makes the field be built again when next asked.
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use roaring::RoaringBitmap;

use crate::text::fold;
use crate::{Doc, Key};

/// Residues of pair positions: a value of at most `K + 1` characters is answered from the bitmaps alone.
pub(crate) const K: usize = 16;
/// A pair's records are kept in a sorted vector up to this many, in a bitmap beyond.
const FEW: usize = 24;

/// Records holding one pair at one residue (or one character anywhere), by number.
enum Posting {
    Few(Vec<u32>),
    Many(RoaringBitmap),
}

impl Posting {
    fn insert(&mut self, o: u32) {
        match self {
            Posting::Few(v) => {
                if let Err(i) = v.binary_search(&o) {
                    v.insert(i, o);
                    if v.len() > FEW {
                        *self = Posting::Many(v.iter().copied().collect());
                    }
                }
            }
            Posting::Many(b) => {
                b.insert(o);
            }
        }
    }

    /// Removes `o`; true when nothing is left.
    fn remove(&mut self, o: u32) -> bool {
        match self {
            Posting::Few(v) => {
                if let Ok(i) = v.binary_search(&o) {
                    v.remove(i);
                }
                v.is_empty()
            }
            Posting::Many(b) => {
                b.remove(o);
                b.is_empty()
            }
        }
    }

    fn len(&self) -> u64 {
        match self {
            Posting::Few(v) => v.len() as u64,
            Posting::Many(b) => b.len(),
        }
    }

    fn bitmap(&self) -> RoaringBitmap {
        match self {
            Posting::Few(v) => v.iter().copied().collect(),
            Posting::Many(b) => b.clone(),
        }
    }

    /// Keeps in `acc` only what this posting holds.
    fn narrow(&self, acc: &mut RoaringBitmap) {
        match self {
            Posting::Few(v) => *acc = v.iter().copied().filter(|o| acc.contains(*o)).collect(),
            Posting::Many(b) => *acc &= b,
        }
    }

    fn bytes(&self) -> usize {
        64 + match self {
            Posting::Few(v) => v.capacity() * 4,
            Posting::Many(b) => b.serialized_size(),
        }
    }
}

fn pair_key(a: char, b: char, residue: usize) -> u64 {
    ((a as u64) << 26) | ((b as u64) << 5) | residue as u64
}

/// One field of one resource in one tenant.
#[derive(Default)]
pub(crate) struct FieldGrams {
    /// Record id by number, ascending (removed records keep their number: stored again, they get it back).
    ids: Vec<u64>,
    /// Each number's folded text in `arena` (empty once removed).
    spans: Vec<(u32, u32)>,
    arena: String,
    /// Bytes of `arena` no record uses any more.
    garbage: usize,
    /// Numbers of records whose text is longer than `K + 1` characters: confirmed against the text.
    long: RoaringBitmap,
    pairs: HashMap<u64, Posting>,
    chars: HashMap<char, Posting>,
    /// About what `pairs` and `chars` take, kept as they change (summed exactly after a build).
    posting_bytes: usize,
}

/// What one more record number in a posting takes, about (a bitmap's share is smaller, a vector's larger).
const PER_ENTRY: usize = 3;
/// What a posting of its own takes besides its entries (the map's slot, the vector or bitmap header).
const PER_POSTING: usize = 80;

impl FieldGrams {
    fn number(&self, id: u64) -> Option<u32> {
        self.ids.binary_search(&id).ok().map(|i| i as u32)
    }

    fn text(&self, o: u32) -> &str {
        let (at, len) = self.spans[o as usize];
        &self.arena[at as usize..(at + len) as usize]
    }

    /// Stores `text` as record `id`'s value. False when `id` is new and older than the newest id held: the
    /// numbering would leave id order, so the caller drops the field (it is built again when next asked).
    pub(crate) fn upsert(&mut self, id: u64, text: &str) -> bool {
        let o = match self.number(id) {
            Some(o) => {
                let chars = fold(text);
                let s: String = chars.iter().collect();
                if self.text(o) == s && self.spans[o as usize].1 > 0 {
                    return true;
                }
                self.unpost(o);
                self.post(o, &chars, &s);
                return true;
            }
            None if self.ids.last().is_some_and(|&last| last > id) => return false,
            None => {
                self.ids.push(id);
                self.spans.push((0, 0));
                (self.ids.len() - 1) as u32
            }
        };
        let chars = fold(text);
        let s: String = chars.iter().collect();
        self.post(o, &chars, &s);
        true
    }

    pub(crate) fn remove(&mut self, id: u64) {
        if let Some(o) = self.number(id) {
            self.unpost(o);
        }
    }

    fn post(&mut self, o: u32, chars: &[char], s: &str) {
        let (before_c, before_p) = (self.chars.len(), self.pairs.len());
        for &c in chars {
            self.chars.entry(c).or_insert_with(|| Posting::Few(Vec::new())).insert(o);
        }
        for (i, w) in chars.windows(2).enumerate() {
            self.pairs.entry(pair_key(w[0], w[1], i % K)).or_insert_with(|| Posting::Few(Vec::new())).insert(o);
        }
        let new = self.chars.len() + self.pairs.len() - before_c - before_p;
        self.posting_bytes += new * PER_POSTING + (2 * chars.len()).saturating_sub(1) * PER_ENTRY;
        if chars.len() > K + 1 {
            self.long.insert(o);
        }
        self.spans[o as usize] = (self.arena.len() as u32, s.len() as u32);
        self.arena.push_str(s);
    }

    fn unpost(&mut self, o: u32) {
        let chars: Vec<char> = self.text(o).chars().collect();
        let (before_c, before_p) = (self.chars.len(), self.pairs.len());
        for &c in &chars {
            if self.chars.get_mut(&c).is_some_and(|p| p.remove(o)) {
                self.chars.remove(&c);
            }
        }
        for (i, w) in chars.windows(2).enumerate() {
            let k = pair_key(w[0], w[1], i % K);
            if self.pairs.get_mut(&k).is_some_and(|p| p.remove(o)) {
                self.pairs.remove(&k);
            }
        }
        let gone = before_c + before_p - self.chars.len() - self.pairs.len();
        self.posting_bytes = self.posting_bytes.saturating_sub(gone * PER_POSTING + (2 * chars.len()).saturating_sub(1) * PER_ENTRY);
        self.long.remove(o);
        self.garbage += self.spans[o as usize].1 as usize;
        self.spans[o as usize] = (0, 0);
        if self.garbage > (1 << 20) && self.garbage * 2 > self.arena.len() {
            self.compact();
        }
    }

    fn compact(&mut self) {
        let mut arena = String::with_capacity(self.arena.len() - self.garbage);
        for span in &mut self.spans {
            let (at, len) = *span;
            *span = (arena.len() as u32, len);
            arena.push_str(&self.arena[at as usize..(at + len) as usize]);
        }
        self.arena = arena;
        self.garbage = 0;
    }

    /// Ids (ascending) whose text contains `needle` in folded case; None for an empty needle.
    pub(crate) fn contains(&self, needle: &str) -> Option<Vec<u64>> {
        let chars = fold(needle);
        if chars.is_empty() {
            return None;
        }
        if chars.len() == 1 {
            return Some(match self.chars.get(&chars[0]) {
                None => Vec::new(),
                Some(Posting::Few(v)) => v.iter().map(|&o| self.ids[o as usize]).collect(),
                Some(Posting::Many(b)) => b.iter().map(|o| self.ids[o as usize]).collect(),
            });
        }
        let s: String = chars.iter().collect();
        let mut found = RoaringBitmap::new();
        let mut chain: Vec<&Posting> = Vec::with_capacity(chars.len() - 1);
        'residue: for r in 0..K {
            chain.clear();
            for (j, w) in chars.windows(2).enumerate() {
                match self.pairs.get(&pair_key(w[0], w[1], (r + j) % K)) {
                    Some(p) => chain.push(p),
                    None => continue 'residue,
                }
            }
            chain.sort_by_key(|p| p.len());
            let mut acc = chain[0].bitmap();
            // A chain that wraps past residue K - 1 back to 0 would join a short text's last pairs to its first:
            // only long texts (confirmed below) can match there.
            if r + chars.len() - 2 >= K {
                acc &= &self.long;
            }
            for p in &chain[1..] {
                if acc.is_empty() {
                    break;
                }
                p.narrow(&mut acc);
            }
            found |= acc;
        }
        let mut ids = Vec::with_capacity(found.len() as usize);
        for o in &found {
            if !self.long.contains(o) || self.text(o).contains(s.as_str()) {
                ids.push(self.ids[o as usize]);
            }
        }
        Some(ids)
    }

    /// About what the field takes in memory (cheap: the postings' share is kept as they change).
    pub(crate) fn bytes(&self) -> usize {
        self.ids.capacity() * 8 + self.spans.capacity() * 8 + self.arena.capacity() + self.long.serialized_size() + self.posting_bytes
    }

    /// What the postings take, summed over every one of them.
    fn count_posting_bytes(&self) -> usize {
        self.pairs.values().map(Posting::bytes).sum::<usize>()
            + self.chars.values().map(Posting::bytes).sum::<usize>()
            + (self.pairs.capacity() + self.chars.capacity()) * 16
    }

    /// Builds from `(id, text)` in ascending id order.
    pub(crate) fn build(rows: impl Iterator<Item = (u64, String)>) -> FieldGrams {
        let mut g = FieldGrams::default();
        for (id, text) in rows {
            g.upsert(id, &text);
        }
        for p in g.pairs.values_mut().chain(g.chars.values_mut()) {
            if let Posting::Few(v) = p {
                v.shrink_to_fit();
            }
        }
        g.arena.shrink_to_fit();
        g.posting_bytes = g.count_posting_bytes();
        g
    }
}

/// Which field: tenant, resource, field.
pub(crate) type FKey = (String, String, String);

struct Entry {
    grams: RwLock<FieldGrams>,
    used: AtomicU64,
    bytes: AtomicUsize,
}

enum Slot {
    /// A thread is building it.
    Building,
    Ready(Arc<Entry>),
    /// Larger than the whole budget: tantivy answers.
    TooLarge,
}

/// Every field held in memory, with the budget they share.
pub(crate) struct Frags {
    slots: RwLock<HashMap<FKey, Slot>>,
    /// Held by a build from its snapshot to its end and by every commit's update: no change falls in between.
    pub(crate) apply: Mutex<()>,
    budget: AtomicUsize,
    clock: AtomicU64,
    pub(crate) hits: AtomicU64,
    /// How long the last build took (from its snapshot to its end).
    pub(crate) last_build_ms: AtomicU64,
    /// Bumped when the index is emptied: a build of a snapshot before that is thrown away.
    pub(crate) generation: AtomicU64,
}

/// What a question found.
pub(crate) enum Asked {
    Answer(Vec<u64>),
    /// Not held: build it (the caller starts the build) and ask tantivy meanwhile.
    Build,
    /// Not held and not to be built now: ask tantivy.
    No,
}

impl Frags {
    pub(crate) fn new(budget: usize) -> Frags {
        Frags {
            slots: RwLock::new(HashMap::new()),
            apply: Mutex::new(()),
            budget: AtomicUsize::new(budget),
            clock: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            last_build_ms: AtomicU64::new(0),
            generation: AtomicU64::new(0),
        }
    }

    pub(crate) fn budget(&self) -> usize {
        self.budget.load(Ordering::Relaxed)
    }

    pub(crate) fn set_budget(&self, bytes: usize) {
        self.budget.store(bytes, Ordering::Relaxed);
        self.evict(None);
    }

    pub(crate) fn ask(&self, key: &FKey, needle: &str) -> Asked {
        let entry = {
            let Ok(slots) = self.slots.read() else { return Asked::No };
            match slots.get(key) {
                Some(Slot::Ready(e)) => e.clone(),
                Some(_) => return Asked::No,
                None => {
                    drop(slots);
                    let Ok(mut slots) = self.slots.write() else { return Asked::No };
                    if slots.contains_key(key) || self.budget.load(Ordering::Relaxed) == 0 {
                        return Asked::No;
                    }
                    slots.insert(key.clone(), Slot::Building);
                    return Asked::Build;
                }
            }
        };
        entry.used.store(self.clock.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
        let Ok(g) = entry.grams.read() else { return Asked::No };
        match g.contains(needle) {
            Some(ids) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Asked::Answer(ids)
            }
            None => Asked::No,
        }
    }

    /// Puts a finished build of generation `generation` in place (or notes that it failed or is of an emptied
    /// index: asked again, it is built again).
    pub(crate) fn finish(&self, key: FKey, built: Option<FieldGrams>, generation: u64) {
        let Ok(mut slots) = self.slots.write() else { return };
        let built = built.filter(|_| self.generation.load(Ordering::Acquire) == generation);
        match built {
            None => {
                slots.remove(&key);
            }
            Some(g) => {
                let bytes = g.bytes();
                if bytes > self.budget.load(Ordering::Relaxed) {
                    slots.insert(key.clone(), Slot::TooLarge);
                } else {
                    let e = Entry {
                        grams: RwLock::new(g),
                        used: AtomicU64::new(self.clock.fetch_add(1, Ordering::Relaxed)),
                        bytes: AtomicUsize::new(bytes),
                    };
                    slots.insert(key.clone(), Slot::Ready(Arc::new(e)));
                }
            }
        }
        drop(slots);
        self.evict(Some(&key));
    }

    /// Drops the least recently asked fields until the rest fit the budget (`keep` last of all).
    fn evict(&self, keep: Option<&FKey>) {
        let Ok(mut slots) = self.slots.write() else { return };
        let budget = self.budget.load(Ordering::Relaxed);
        loop {
            let total: usize =
                slots.values().map(|s| if let Slot::Ready(e) = s { e.bytes.load(Ordering::Relaxed) } else { 0 }).sum();
            if total <= budget {
                return;
            }
            let victim = slots
                .iter()
                .filter_map(|(k, s)| if let Slot::Ready(e) = s { Some((k, e.used.load(Ordering::Relaxed))) } else { None })
                .min_by_key(|(k, used)| (Some(*k) == keep, *used))
                .map(|(k, _)| k.clone());
            match victim {
                Some(k) => {
                    slots.remove(&k);
                }
                None => return,
            }
        }
    }

    /// Applies a commit's changes to the fields held (the caller holds `apply`).
    pub(crate) fn update(&self, deletes: &[Key], upserts: &[Doc]) {
        let ready: Vec<(FKey, Arc<Entry>)> = match self.slots.read() {
            Ok(s) => s.iter().filter_map(|(k, s)| if let Slot::Ready(e) = s { Some((k.clone(), e.clone())) } else { None }).collect(),
            Err(_) => return,
        };
        let mut dropped = Vec::new();
        let mut grew = false;
        for (key, e) in ready {
            let (t, r, f) = (&key.0, &key.1, &key.2);
            let dels: Vec<u64> = deletes.iter().filter(|d| &d.tenant == t && &d.resource == r).map(|d| d.id).collect();
            let ups: Vec<(u64, &str)> = upserts
                .iter()
                .filter(|u| &u.tenant == t && &u.resource == r)
                .map(|u| (u.id, u.fields.iter().find(|(n, _)| n == f).map(|(_, v)| v.as_str()).unwrap_or("")))
                .collect();
            if dels.is_empty() && ups.is_empty() {
                continue;
            }
            let Ok(mut g) = e.grams.write() else { continue };
            for id in dels {
                g.remove(id);
            }
            let mut ok = true;
            for (id, text) in ups {
                ok &= g.upsert(id, text);
            }
            if ok {
                let bytes = g.bytes();
                grew |= bytes > e.bytes.swap(bytes, Ordering::Relaxed);
            } else {
                dropped.push(key);
            }
        }
        if !dropped.is_empty()
            && let Ok(mut slots) = self.slots.write()
        {
            for k in dropped {
                slots.remove(&k);
            }
        }
        // Fields grow with their records: past the budget, the least recently asked go.
        if grew {
            self.evict(None);
        }
    }

    /// Forgets every field (the index was emptied).
    pub(crate) fn clear(&self) {
        if let Ok(mut s) = self.slots.write() {
            self.generation.fetch_add(1, Ordering::AcqRel);
            s.retain(|_, v| matches!(v, Slot::Building));
        }
    }

    /// Fields held and the bytes they take.
    pub(crate) fn held(&self) -> (usize, usize) {
        match self.slots.read() {
            Ok(s) => s.values().fold((0, 0), |(n, b), v| match v {
                Slot::Ready(e) => (n + 1, b + e.bytes.load(Ordering::Relaxed)),
                _ => (n, b),
            }),
            Err(_) => (0, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(rows: &[(u64, String)], needle: &str) -> Vec<u64> {
        let n: String = fold(needle).into_iter().collect();
        rows.iter().filter(|(_, t)| fold(t).into_iter().collect::<String>().contains(&n)).map(|(id, _)| *id).collect()
    }

    #[test]
    fn answers_like_a_substring_test_for_short_and_long_texts() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let alphabet: Vec<char> = "ab.1地砖Ä".chars().collect();
        let mut rows: Vec<(u64, String)> = (0..3000u64)
            .map(|i| {
                let len = rng.random_range(0..40);
                (10 + i * 3, (0..len).map(|_| alphabet[rng.random_range(0..alphabet.len())]).collect())
            })
            .collect();
        let mut g = FieldGrams::build(rows.iter().cloned());
        let needles = ["a", "ä", "ab", "b.1", "地砖", "a地砖b", "1111", "ab.1ab.1", "aaaaaaaaaaaaaaaaaaaaa", "Äb"];
        for n in needles {
            assert_eq!(g.contains(n).unwrap(), naive(&rows, n), "needle {n}");
        }
        // Changes: texts replaced, records removed and stored again, new ones.
        for k in 0..600 {
            let i = rng.random_range(0..rows.len());
            if k % 3 == 0 {
                g.remove(rows[i].0);
                rows[i].1 = String::new();
            } else {
                let len = rng.random_range(0..30);
                rows[i].1 = (0..len).map(|_| alphabet[rng.random_range(0..alphabet.len())]).collect();
                assert!(g.upsert(rows[i].0, &rows[i].1));
            }
        }
        let next = rows.last().unwrap().0 + 1;
        rows.push((next, "xab.1地砖y".into()));
        assert!(g.upsert(next, "xab.1地砖y"));
        for n in needles {
            assert_eq!(g.contains(n).unwrap(), naive(&rows, n), "needle {n} after changes");
        }
        // The kept estimate stays near the full count through the changes.
        let (kept, counted) = (g.posting_bytes, g.count_posting_bytes());
        assert!(kept * 2 > counted && kept < counted * 2, "estimate {kept} against {counted}");
        // An id older than the newest, never held: refused (the field is built again).
        assert!(!g.upsert(11, "ab"));
        assert_eq!(g.contains(""), None);
    }

    #[test]
    fn the_least_recently_asked_field_leaves_when_the_budget_is_passed() {
        let field = |n: u64| FieldGrams::build((0..n).map(|i| (i, format!("装修工程{i}"))));
        let one = field(2000).bytes();
        let frags = Frags::new(one * 2 + one / 2);
        let key = |f: &str| ("T".to_string(), "r".to_string(), f.to_string());
        for f in ["a", "b"] {
            assert!(matches!(frags.ask(&key(f), "工程"), Asked::Build));
            assert!(matches!(frags.ask(&key(f), "工程"), Asked::No), "being built: tantivy answers");
            frags.finish(key(f), Some(field(2000)), 0);
        }
        assert_eq!(frags.held().0, 2);
        // "a" is asked again, so "b" is the least recently asked when "c" comes.
        assert!(matches!(frags.ask(&key("a"), "工程1"), Asked::Answer(ids) if ids.len() == 1111));
        assert!(matches!(frags.ask(&key("c"), "工程"), Asked::Build));
        frags.finish(key("c"), Some(field(2000)), 0);
        assert_eq!(frags.held().0, 2);
        assert!(matches!(frags.ask(&key("a"), "工程"), Asked::Answer(_)));
        assert!(matches!(frags.ask(&key("c"), "工程"), Asked::Answer(_)));
        assert!(matches!(frags.ask(&key("b"), "工程"), Asked::Build), "evicted: built again when asked");
        // A build of an index emptied meanwhile is thrown away.
        frags.clear();
        frags.finish(key("b"), Some(field(10)), 0);
        assert_eq!(frags.held().0, 0);
        // Larger than the whole budget: never held, and not built again and again.
        assert!(matches!(frags.ask(&key("d"), "工程"), Asked::Build));
        frags.finish(key("d"), Some(field(20_000)), frags.generation.load(Ordering::Acquire));
        assert!(matches!(frags.ask(&key("d"), "工程"), Asked::No));
    }
}
