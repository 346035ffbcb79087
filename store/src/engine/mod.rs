//! The record engine: reading declared resources — get, unique lookups, counts, and list planning (which index a
//! page walks, exact filters answered by intersecting id lists, hinted lists, walks under a budget) — here; the
//! writer's side, which keeps secondary indexes, unique keys and counters in step with the records inside the
//! caller's transaction, is `write`.
pub mod rank;
mod write;

pub use write::RecordWriter;
pub(crate) use write::{drop_keys, put_keys};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use redb::ReadableTable;
use serde_json::{Map, Value};

use crate::codec::{decode_record, index_bytes};
use crate::error::Result;
use crate::query::{Filter, Hint, Op, Page, PageFill, Query, Ticker, order};
use crate::resource::{FieldKind, ResourceDef};
use crate::PLATFORM_TENANT;
use crate::lazy::LazyTable;
use crate::tables;

/// Platform resources are kept under the platform tenant whoever reads them.
/// At most this many candidates of an exact filter are sorted in memory rather than read in the sort's order.
const SELECTIVE: usize = 5_000;
/// Entries of a value counted first when looking for a selective one among several (see `exact_ids`).
const FEW: usize = 64;
/// How many candidates of a selective exact filter are decoded when the query also has a range filter.
const SELECTIVE_BESIDE_RANGE: usize = 500;
/// Records added since a range's id set was kept that are read and tested to bring it up to date; past them the
/// set is made again from the range's index entries.
const RANGE_EXTEND: usize = 4096;
/// The suffix of a range's id set's field name in the rank cache (no field's name holds it).
const RANGE_SET: &str = "\u{1}range";

pub fn storage_tenant<'a>(def: &ResourceDef, tenant: &'a str) -> &'a str {
    if def.platform { PLATFORM_TENANT } else { tenant }
}

type IdxKey<'a> = (&'a str, &'a str, &'a str, &'a [u8], u64);
/// Above every value's index bytes: the upper end of a walk over a field's whole index.
const INDEX_END: &[u8] = &[0xff; 200];
/// What `walk_marked` calls per id (with the stored record when walking a whole resource): false stops.
type MarkedVisit<'v> = dyn FnMut(u64, Option<&[u8]>) -> Result<bool> + 'v;

/// Read access to the record tables, shared by read and write transactions.
pub struct Tables<R, I, U, C> {
    pub records: R,
    pub index: I,
    pub unique: U,
    pub counters: C,
}

pub type ReadTables = Tables<
    LazyTable<tables::RecK, &'static [u8]>,
    LazyTable<tables::IdxK, ()>,
    LazyTable<tables::UniqueK, u64>,
    LazyTable<tables::PairK, u64>,
>;

impl<R, I, U, C> Tables<R, I, U, C>
where
    R: ReadableTable<tables::RecK, &'static [u8]>,
    I: ReadableTable<tables::IdxK, ()>,
    U: ReadableTable<tables::UniqueK, u64>,
    C: ReadableTable<tables::PairK, u64>,
{
    pub fn get(&self, def: &ResourceDef, tenant: &str, id: u64) -> Result<Option<Map<String, Value>>> {
        self.get_decoded(def, tenant, id, None)
    }

    /// `get` of only the `names` fields: the rest of the stored record is not decoded (a name shown beside a
    /// reference, a bin's place). A field the record lacks is absent.
    pub fn get_fields(&self, def: &ResourceDef, tenant: &str, id: u64, names: &[&str]) -> Result<Option<Map<String, Value>>> {
        self.get_decoded(def, tenant, id, Some(names))
    }

    fn get_decoded(&self, def: &ResourceDef, tenant: &str, id: u64, names: Option<&[&str]>) -> Result<Option<Map<String, Value>>> {
        let t = storage_tenant(def, tenant);
        match self.records.get((t, def.name.as_str(), id))? {
            Some(v) => Ok(Some(tested_doc(names, v.value())?)),
            None => Ok(None),
        }
    }

    /// The id holding `value` in a unique field, among live records.
    pub fn find_unique(&self, def: &ResourceDef, tenant: &str, field: &str, value: &str) -> Result<Option<u64>> {
        let t = storage_tenant(def, tenant);
        Ok(self.unique.get((t, def.name.as_str(), field, value))?.map(|v| v.value()))
    }

    pub fn count(&self, def: &ResourceDef, tenant: &str) -> Result<u64> {
        let t = storage_tenant(def, tenant);
        Ok(self.counters.get((t, def.name.as_str()))?.map(|v| v.value()).unwrap_or(0))
    }

    /// Every live record of a resource in id order (small resources: menus, roles, dictionaries).
    pub fn all(&self, def: &ResourceDef, tenant: &str) -> Result<Vec<Map<String, Value>>> {
        let t = storage_tenant(def, tenant);
        let mut out = Vec::new();
        for e in self.records.range((t, def.name.as_str(), 0)..=(t, def.name.as_str(), u64::MAX))? {
            out.push(decode_record(e?.1.value())?);
        }
        Ok(out)
    }

    /// One page of a list. Sorting by one indexed field walks its index; an `_equal` filter on an indexed field
    /// walks that index range; otherwise records are walked newest first. The total comes from the counter when
    /// nothing filters, else from counting matches.
    pub fn list(&self, def: &ResourceDef, tenant: &str, q: &Query) -> Result<Page> {
        let t = storage_tenant(def, tenant);
        let res = def.name.as_str();
        let limit = q.limit as usize;
        let offset = q.offset as usize;
        let unfiltered = q.unfiltered();

        let mut ticker = Ticker::new(&q.budget);
        // Records that cannot hold the text a `contains` filter asks for are skipped without being decoded.
        let needle = raw_needle(q);
        let finder = needle.as_deref().map(memchr::memmem::Finder::new);
        let mut decode = |raw: &[u8]| -> Result<Option<Map<String, Value>>> {
            ticker.tick()?;
            if raw.first() == Some(&crate::codec::RECORD_V1) && finder.as_ref().is_some_and(|f| f.find(raw).is_none()) {
                return Ok(None);
            }
            decode_record(raw).map(Some)
        };
        // A sort over a field without an index entry (declared `index: false`) sorts in memory too.
        let unindexed_sort = q.sorts.first().is_some_and(|s| {
            s.field != "id" && s.field != "createTime" && !def.indexed_fields().any(|n| n == s.field)
        });
        // A sorted list with a selective exact filter (the stock rows of one goods by update time, the lines of
        // one order): its few candidates are visited and sorted in memory instead of walking the whole sort index
        // or every record.
        let by_id = q.sorts.len() == 1 && q.sorts[0].field == "id";
        if !q.sorts.is_empty() && !by_id
            && let Some((field, keys)) = seek_filter(def, q)
            && let Some(ids) = self.candidate_ids(t, res, def.index_key(field), &keys, SELECTIVE)? {
            let mut all = Vec::new();
            for id in ids {
                if let Some(v) = self.records.get((t, res, id))?
                    && let Some(doc) = decode(v.value())?
                    && q.accepts(&doc) {
                    all.push(doc);
                }
            }
            all.sort_by(|a, b| order(&q.sorts, a, b));
            let total = all.len() as u64;
            let records = all.into_iter().skip(offset).take(limit).collect();
            return Page::of(q, records, total);
        }
        // More than one sort key: collect every match and sort in memory.
        if q.sorts.len() > 1 || unindexed_sort {
            let mut all = Vec::new();
            self.scan_ids(t, res, None, true, &mut |raw| {
                let Some(doc) = decode(raw)? else { return Ok(true) };
                if q.accepts(&doc) {
                    all.push(doc);
                }
                Ok(true)
            })?;
            all.sort_by(|a, b| order(&q.sorts, a, b));
            let total = all.len() as u64;
            let records = all.into_iter().skip(offset).take(limit).collect();
            return Page::of(q, records, total);
        }

        if let Some(page) = self.list_by_index(def, t, q)? {
            return Ok(page);
        }

        // An unfiltered page in id order past the middle is walked from the other end: the last page of a
        // million rows reads its own rows, and no page more than half of them.
        let id_order = match q.sorts.first() {
            Some(s) if s.field == "id" || s.field == "createTime" => Some(s.desc),
            Some(_) => None,
            None => seek_filter(def, q).is_none().then_some(true),
        };
        if unfiltered && let Some(desc) = id_order {
            let total = self.count(def, tenant)?;
            let (from_end, skip, take) = nearer_end(total, q.offset, q.limit);
            if from_end && q.offset < total {
                let mut fill = PageFill::new(q);
                let mut seen = 0u64;
                let mut undecoded = Ticker::new(&q.budget);
                self.scan_ids(t, res, None, !desc, &mut |raw: &[u8]| {
                    undecoded.tick()?;
                    if seen >= skip {
                        fill.push(None, raw)?;
                    }
                    seen += 1;
                    Ok((fill.len() as u64) < take)
                })?;
                fill.reverse();
                return Ok(fill.finish(total));
            }
        }

        // An unfiltered page sorted by one indexed field (every record has one entry in it): the index is walked
        // by its keys alone up to the page, from the nearer end past the middle, and only the page's records are
        // read.
        if unfiltered
            && let [s] = q.sorts.as_slice()
            && s.field != "id"
            && s.field != "createTime"
            && def.indexed_fields().any(|n| n == s.field)
            && !def.field(&s.field).is_some_and(|d| d.multi)
        {
            let total = self.count(def, tenant)?;
            let ids = self.sorted_page_ids(t, res, s, def.index_key(&s.field), q, total, |_| true)?;
            let mut fill = PageFill::new(q);
            for id in ids {
                if let Some(v) = self.records.get((t, res, id))? {
                    fill.push(None, v.value())?;
                }
            }
            return Ok(fill.finish(total));
        }

        let mut fill = PageFill::new(q);
        let mut matched = 0usize;
        let mut undecoded = Ticker::new(&q.budget);
        let mut visit = |stored: &[u8]| -> Result<bool> {
            // A packed record is unpacked once, for its test and its row alike (and the text prefilter then reads it).
            let unpacked = if q.raw_rows && unfiltered { std::borrow::Cow::Borrowed(stored) } else { crate::codec::unpacked(stored)? };
            let doc = if q.raw_rows && unfiltered {
                // Nothing to test: the stored bytes are the row, undecoded.
                undecoded.tick()?;
                None
            } else {
                let Some(doc) = decode(&unpacked)? else { return Ok(true) };
                if !q.accepts(&doc) {
                    return Ok(true);
                }
                Some(doc)
            };
            if matched >= offset && fill.len() < limit {
                fill.push_read(doc, unpacked)?;
            }
            matched += 1;
            // With no filter the counter gives the total, so stop once the page is full.
            Ok(!(unfiltered && fill.len() >= limit))
        };

        match q.sorts.first() {
            Some(s) if s.field != "id" && s.field != "createTime" => {
                self.scan_index(t, res, def.index_key(&s.field), None, s.desc, &mut visit)?;
            }
            Some(s) => self.scan_ids(t, res, None, s.desc, &mut visit)?,
            None => match seek_filter(def, q) {
                // The most selective exact filter over an indexed field: walk only its candidates, newest first.
                Some((field, keys)) => self.scan_candidates(t, res, def.index_key(field), &keys, &mut visit)?,
                None => self.scan_ids(t, res, None, true, &mut visit)?,
            },
        }
        let total = if unfiltered { self.count(def, tenant)? } else { matched as u64 };
        Ok(fill.finish(total))
    }

    /// A page of a list in id order (either direction) found through the rank marks (see `rank`): a binary
    /// search and at most `rank::EVERY` steps, whatever the depth. Two kinds of list: an unfiltered one (deep
    /// pages only: a shallow one is as quick walked), and one with a single exact filter on an indexed field (one
    /// value: every page, since its total would otherwise count the whole value's range). `None` when the list is
    /// neither, or this snapshot is older than the marks.
    pub fn list_ranked(&self, def: &ResourceDef, tenant: &str, q: &Query, cache: &rank::RankCache) -> Result<Option<Page>> {
        if let [s] = q.sorts.as_slice()
            && s.field != "id"
            && s.field != "createTime" {
            return self.list_sort_marked(def, tenant, q, s, cache);
        }
        let desc = match (q.sorts.len(), q.sorts.first()) {
            (0, _) => true,
            (1, Some(s)) if s.field == "id" || s.field == "createTime" => s.desc,
            _ => return Ok(None),
        };
        if q.hint.is_some() || q.check.is_some() {
            return Ok(None);
        }
        let Some(filters) = ranked_filters(q) else { return Ok(None) };
        let t = storage_tenant(def, tenant);
        let res = def.name.as_str();
        let removed = self.counter(t, &rank::removed_key(res))?;
        // Several filters, or a range (a creation date from a day, between two days): kept id sets.
        if filters.len() >= 2 || filters.first().is_some_and(|f| range_keys(def, f).is_some()) {
            return self.list_by_sets(def, t, q, &filters, desc, removed, cache);
        }
        let (of, total, moved) = match filters.as_slice() {
            [] if q.offset >= 2 * rank::EVERY => {
                let total = self.count(def, tenant)?;
                if q.offset >= total {
                    // Past the last page: nothing to find.
                    return Ok(Some(PageFill::new(q).finish(total)));
                }
                ((t.to_string(), res.to_string(), String::new(), Vec::new()), Some(total), 0)
            }
            [f] if !def.field(&f.field).is_some_and(|d| d.multi) => {
                let Some(keys) = exact_keys(def, f) else { return Ok(None) };
                if keys.len() != 1 {
                    return Ok(None);
                }
                let key = keys.into_iter().next().unwrap_or_default();
                let moved = self.counter(t, &rank::moved_key(res, &f.field))?;
                ((t.to_string(), res.to_string(), def.index_key(&f.field).to_string(), key), None, moved)
            }
            _ => return Ok(None),
        };
        let Some(marks) = self.marks(&of, total, removed, moved, cache)? else { return Ok(None) };
        let total = marks.count;
        let take = total.saturating_sub(q.offset).min(q.limit);
        let first = if desc { total.saturating_sub(q.offset + take) } else { q.offset };
        let (from, at) = marks.start_for(first).unwrap_or((0, 0));
        let mut fill = PageFill::new(q);
        let mut pos = at;
        // An index entry whose record does not agree with the filter sends the list to the general plan.
        let mut disagrees = false;
        if take > 0 {
            self.walk_marked(&of, from, &mut |id, raw| {
                if pos >= first {
                    match raw {
                        Some(raw) => fill.push(None, raw)?,
                        None => {
                            let Some(v) = self.records.get((t, res, id))? else {
                                disagrees = true;
                                return Ok(false);
                            };
                            let raw = crate::codec::unpacked(v.value())?;
                            let doc = decode_record(&raw)?;
                            if !q.accepts(&doc) {
                                disagrees = true;
                                return Ok(false);
                            }
                            fill.push_read(Some(doc), raw)?;
                        }
                    }
                }
                pos += 1;
                Ok((fill.len() as u64) < take)
            })?;
        }
        if disagrees {
            return Ok(None);
        }
        if desc {
            fill.reverse();
        }
        Ok(Some(fill.finish(total)))
    }

    /// A page of an unfiltered list sorted by one indexed field through the marks of its index (see
    /// `rank::SortMarks`): a binary search and at most `rank::EVERY` index entries. `None` when the list has
    /// filters, or the marks do not hold for this snapshot and were made less than a second ago.
    fn list_sort_marked(&self, def: &ResourceDef, tenant: &str, q: &Query, s: &crate::query::Sort, cache: &rank::RankCache) -> Result<Option<Page>> {
        if q.hint.is_some() || q.check.is_some() || !def.indexed_fields().any(|n| n == s.field) || def.field(&s.field).is_some_and(|d| d.multi) {
            return Ok(None);
        }
        match ranked_filters(q) {
            Some(f) if f.is_empty() => {}
            Some(f) => return self.list_sorted_by_sets(def, storage_tenant(def, tenant), q, s, &f, cache),
            None => return Ok(None),
        }
        let t = storage_tenant(def, tenant);
        let res = def.name.as_str();
        let total = self.count(def, tenant)?;
        if q.offset >= total {
            return Ok(Some(PageFill::new(q).finish(total)));
        }
        if q.offset < 2 * rank::EVERY {
            // A shallow page is as quick walked.
            return Ok(None);
        }
        let removed = self.counter(t, &rank::removed_key(res))?;
        let moved = self.counter(t, &rank::moved_key(res, &s.field))?;
        let of = (t.to_string(), res.to_string(), s.field.clone(), String::new());
        let want = WantMarks { of: &of, total, removed, moved };
        // Records added since the marks (ids above theirs) can land anywhere in the index: counted beside them.
        let added = |max_id: u64| -> Result<Vec<u64>> {
            self.records.range((t, res, max_id.saturating_add(1))..=(t, res, u64::MAX))?.take(rank::ADDED_MAX + 1).map(|e| Ok(e?.0.value().2)).collect()
        };
        let Some(marks) = self.sort_marks(def, t, &s.field, &want, |_| true, added, cache)? else { return Ok(None) };
        let ids = self.marked_page_ids(t, res, s, def.index_key(&s.field), q, total, &marks, |_| true)?;
        let mut fill = PageFill::new(q);
        for id in ids {
            match self.records.get((t, res, id))? {
                Some(v) => fill.push(None, v.value())?,
                // An entry without its record: the general plan decides.
                None => return Ok(None),
            }
        }
        Ok(Some(fill.finish(total)))
    }

    /// A page of a list whose filters (and data-scope guard) are all exact, one value each over single-valued
    /// indexed fields — a status within a person's own records, a store's moves of one kind: the intersection of
    /// the values' id sets (`rank::IdSet`, kept between requests), its size the total, and only the page's records
    /// read. `None` when the filters are not all such (the general plan answers).
    #[allow(clippy::too_many_arguments)]
    fn list_by_sets(&self, def: &ResourceDef, t: &str, q: &Query, filters: &[&Filter], desc: bool, removed: u64, cache: &rank::RankCache) -> Result<Option<Page>> {
        let res = def.name.as_str();
        let Some(both) = self.exact_ids(def, t, filters, removed, &q.budget, cache)? else { return Ok(None) };
        let total = both.len() as u64;
        if q.offset >= total {
            return Ok(Some(PageFill::new(q).finish(total)));
        }
        let take = (total - q.offset).min(q.limit);
        let first = if desc { total - q.offset - take } else { q.offset };
        let mut ids: Vec<u64> = both[first as usize..(first + take) as usize].to_vec();
        if desc {
            ids.reverse();
        }
        self.fill_checked(t, res, q, ids, total)
    }

    /// A page of a list sorted by one indexed field with exact filters over large values (as `list_by_sets`): the
    /// sort index walked by its keys alone from the nearer end, each id tested against the filters' ids, and only
    /// the page's records read — never every record decoded.
    fn list_sorted_by_sets(&self, def: &ResourceDef, t: &str, q: &Query, s: &crate::query::Sort, filters: &[&Filter], cache: &rank::RankCache) -> Result<Option<Page>> {
        let res = def.name.as_str();
        let removed = self.counter(t, &rank::removed_key(res))?;
        let Some(ids) = self.exact_ids(def, t, filters, removed, &q.budget, cache)? else { return Ok(None) };
        let total = ids.len() as u64;
        if q.offset >= total {
            return Ok(Some(PageFill::new(q).finish(total)));
        }
        let keep = |id: u64| ids.binary_search(&id).is_ok();
        // A deep page from marks of the sort index over these records, kept per combination of filters.
        let (_, depth, _) = nearer_end(total, q.offset, q.limit);
        let marks = if depth >= 2 * rank::EVERY { self.filtered_sort_marks(def, t, s, filters, &ids, removed, cache)? } else { None };
        let page = match marks {
            Some(m) => self.marked_page_ids(t, res, s, def.index_key(&s.field), q, total, &m, keep)?,
            None => self.sorted_page_ids(t, res, s, def.index_key(&s.field), q, total, keep)?,
        };
        self.fill_checked(t, res, q, page, total)
    }

    /// Marks of `s.field`'s index over the records of exact and range filters' intersection `ids`
    /// (`rank::SortMarks`, kept per combination of filters and values or ends): trusted while nothing was removed
    /// and neither the sorted field nor a filtered one moved; records added since (ids above the marks') are
    /// counted beside them. `None` when they do not hold and were made less than a second ago (the page is walked
    /// meanwhile).
    #[allow(clippy::too_many_arguments)]
    fn filtered_sort_marks(&self, def: &ResourceDef, t: &str, s: &crate::query::Sort, filters: &[&Filter], ids: &[u64], removed: u64, cache: &rank::RankCache) -> Result<Option<std::sync::Arc<rank::SortMarks>>> {
        let res = def.name.as_str();
        // Counters only grow: their sum is unchanged exactly when each is.
        let mut moved = self.counter(t, &rank::moved_key(res, &s.field))?;
        let mut parts = Vec::with_capacity(filters.len());
        let hex = |bytes: &mut dyn Iterator<Item = &u8>| bytes.map(|b| format!("{b:02x}")).collect::<String>();
        for f in filters {
            // An exact value, or a range's ends (`~`).
            match (exact_keys(def, f), range_keys(def, f)) {
                (Some(keys), _) => parts.push(format!("{}={}", f.field, hex(&mut keys.iter().flatten()))),
                (None, Some(r)) => parts.push(format!("{}~{}", f.field, hex(&mut r.encode().iter()))),
                (None, None) => return Ok(None),
            }
            moved += self.counter(t, &rank::moved_key(res, &f.field))?;
        }
        parts.sort();
        let of = (t.to_string(), res.to_string(), s.field.clone(), parts.join(";"));
        let want = WantMarks { of: &of, total: ids.len() as u64, removed, moved };
        // The filters' records added since the marks (ids above theirs).
        let added = |max_id: u64| Ok(ids[ids.partition_point(|id| *id <= max_id)..].iter().take(rank::ADDED_MAX + 1).copied().collect());
        self.sort_marks(def, t, &s.field, &want, |id| ids.binary_search(&id).is_ok(), added, cache)
    }

    /// Sort marks of `field`'s index over the records `keep` tells, for this snapshot (`want`): the kept ones;
    /// else those extended by the records added since (`added(max_id)`: their ids above the marks', ascending, at
    /// most `rank::ADDED_MAX + 1`), each one's entry counted beside the marks; else made again by one walk of the
    /// index's keys, at most once a second. `None` when none of these counts exactly `want.total`.
    #[allow(clippy::too_many_arguments)]
    fn sort_marks(&self, def: &ResourceDef, t: &str, field: &str, want: &WantMarks, keep: impl Fn(u64) -> bool, added: impl FnOnce(u64) -> Result<Vec<u64>>, cache: &rank::RankCache) -> Result<Option<std::sync::Arc<rank::SortMarks>>> {
        let res = def.name.as_str();
        if let Some(m) = cache.sort(want.of).filter(|m| m.removed == want.removed && m.moved == want.moved) {
            if m.count == want.total {
                return Ok(Some(m));
            }
            // This snapshot is older than the marks.
            if m.count > want.total {
                return Ok(None);
            }
            let ids = added(m.max_id)?;
            if m.added.len() + ids.len() <= rank::ADDED_MAX {
                let mut ext = (*m).clone();
                for id in ids {
                    let Some(v) = self.records.get((t, res, id))? else { return Ok(None) };
                    // A single-valued field has one entry per record (null included).
                    let Ok([value]) = <[Vec<u8>; 1]>::try_from(index_values(def, field, &decode_record(v.value())?)) else { return Ok(None) };
                    ext.add(value, id);
                }
                ext.max_id = ext.max_id.max(self.last_id(t, res)?);
                // Exactly the records the live count added, else (a record stored under an old id) made again.
                if ext.count == want.total {
                    let ext = std::sync::Arc::new(ext);
                    cache.put_sort(want.of, ext.clone());
                    return Ok(Some(ext));
                }
            }
        }
        if cache.sort(want.of).is_some_and(|m| m.made.elapsed() < std::time::Duration::from_secs(1)) {
            return Ok(None);
        }
        let made = self.make_sort_marks(t, res, def.index_key(field), want, keep)?;
        if let Some(m) = &made {
            cache.put_sort(want.of, m.clone());
        }
        Ok(made)
    }

    /// Marks of a field's whole index (`ik`: its `index_key`) over the entries `keep` tells (every `rank::EVERY`-th
    /// kept one with its position among them), by one walk of the index's keys; `None` when it keeps other than
    /// `total`.
    fn make_sort_marks(&self, t: &str, res: &str, ik: &str, want: &WantMarks, keep: impl Fn(u64) -> bool) -> Result<Option<std::sync::Arc<rank::SortMarks>>> {
        let max_id = self.last_id(t, res)?;
        let mut marks = Vec::new();
        let mut count = 0u64;
        for e in self.index.range::<IdxKey>((t, res, ik, &[][..], 0)..=(t, res, ik, INDEX_END, u64::MAX))? {
            let (k, _) = e?;
            let k = k.value();
            if !keep(k.4) {
                continue;
            }
            if count.is_multiple_of(rank::EVERY) {
                marks.push((k.3.to_vec(), k.4, count));
            }
            count += 1;
        }
        Ok((count == want.total).then(|| {
            let (removed, moved) = (want.removed, want.moved);
            std::sync::Arc::new(rank::SortMarks { count, removed, moved, max_id, marks: std::sync::Arc::new(marks), added: Vec::new(), made: std::time::Instant::now() })
        }))
    }

    /// The ids of a page of `total` records that `keep` tells, sorted by `s.field`, from marks of its index over
    /// them: from the mark at or before the page, the index (`ik`: the field's `index_key`) walked by its keys,
    /// counting the kept ones.
    #[allow(clippy::too_many_arguments)]
    fn marked_page_ids(&self, t: &str, res: &str, s: &crate::query::Sort, ik: &str, q: &Query, total: u64, marks: &rank::SortMarks, keep: impl Fn(u64) -> bool) -> Result<Vec<u64>> {
        let take = (total - q.offset).min(q.limit);
        let first = if s.desc { total - q.offset - take } else { q.offset };
        let mut ids = Vec::with_capacity(take as usize);
        let (lo_value, lo_id, mut pos) = marks.start_for(first).unwrap_or((&[][..], 0, 0));
        // Between two marks lie `rank::EVERY` kept entries and any number of others (a small filter's).
        let mut others = Ticker::new(&q.budget);
        for e in self.index.range::<IdxKey>((t, res, ik, lo_value, lo_id)..=(t, res, ik, INDEX_END, u64::MAX))? {
            if ids.len() as u64 >= take {
                break;
            }
            let (k, _) = e?;
            let id = k.value().4;
            if !keep(id) {
                others.tick()?;
                continue;
            }
            if pos >= first {
                ids.push(id);
            }
            pos += 1;
        }
        if s.desc {
            ids.reverse();
        }
        Ok(ids)
    }

    /// The ids of a page of a list sorted by one single-valued indexed field, of `total` records that `keep`
    /// tells: the field's index (`ik`: its `index_key`) walked by its keys alone up to the page, from the nearer
    /// end past the middle.
    #[allow(clippy::too_many_arguments)]
    fn sorted_page_ids(&self, t: &str, res: &str, s: &crate::query::Sort, ik: &str, q: &Query, total: u64, keep: impl Fn(u64) -> bool) -> Result<Vec<u64>> {
        let (from_end, skip, take) = nearer_end(total, q.offset, q.limit);
        let mut page = Vec::with_capacity(take.min(1000) as usize);
        if take == 0 {
            return Ok(page);
        }
        let mut seen = 0u64;
        let mut keys = Ticker::new(&q.budget);
        self.scan_index_ids(t, res, ik, None, s.desc != from_end, &mut |id| {
            keys.tick()?;
            if keep(id) {
                if seen >= skip {
                    page.push(id);
                }
                seen += 1;
            }
            Ok((page.len() as u64) < take)
        })?;
        if from_end {
            page.reverse();
        }
        Ok(page)
    }

    /// The page of records `ids`, each checked against the query (`None` when one is gone or disagrees: the
    /// general plan decides).
    fn fill_checked(&self, t: &str, res: &str, q: &Query, ids: Vec<u64>, total: u64) -> Result<Option<Page>> {
        let mut fill = PageFill::new(q);
        for id in ids {
            let Some(v) = self.records.get((t, res, id))? else { return Ok(None) };
            let raw = crate::codec::unpacked(v.value())?;
            let doc = decode_record(&raw)?;
            // The indexes said so; the record must agree.
            if !q.accepts(&doc) {
                return Ok(None);
            }
            fill.push_read(Some(doc), raw)?;
        }
        Ok(Some(fill.finish(total)))
    }

    /// The ids (ascending) matching exact filters, one value each over single-valued indexed fields, none of few
    /// records, and ranges (`range_keys`; several over one field are one range): the intersection of the values'
    /// and ranges' kept id sets. `None` when the filters are not all such.
    #[allow(clippy::too_many_arguments)]
    fn exact_ids(&self, def: &ResourceDef, t: &str, filters: &[&Filter], removed: u64, budget: &crate::query::Budget, cache: &rank::RankCache) -> Result<Option<std::sync::Arc<Vec<u64>>>> {
        let res = def.name.as_str();
        let mut keys = Vec::with_capacity(filters.len());
        let mut ranges: BTreeMap<&str, KeyRange> = BTreeMap::new();
        for f in filters {
            if def.field(&f.field).is_some_and(|d| d.multi) {
                return Ok(None);
            }
            match exact_keys(def, f) {
                Some(k) if k.len() == 1 => keys.push((f.field.as_str(), k.into_iter().next().unwrap_or_default())),
                Some(_) => return Ok(None),
                None => {
                    let Some(r) = range_keys(def, f) else { return Ok(None) };
                    KeyRange::add(&mut ranges, &f.field, r);
                }
            }
        }
        let upto = self.last_id(t, res)?;
        // A value with few records (an order's lines, one person's rows) is answered better by reading its few
        // records (`list_by_index`): its neighbours' large sets would be made, and made again after every move.
        // Values without a kept set are counted up to a few entries first, so a tiny value beside a large one is
        // found without reading thousands of the large one's entries. Beside a range, `list_by_index` decodes
        // fewer candidates.
        let selective = if ranges.is_empty() { SELECTIVE } else { SELECTIVE_BESIDE_RANGE };
        let mut held = Vec::with_capacity(keys.len());
        for (field, key) in &keys {
            let moved = self.counter(t, &rank::moved_key(res, field))?;
            // The set's walk reads `of.2` as the index's field part.
            let of: rank::MarksOf = (t.to_string(), res.to_string(), def.index_key(field).to_string(), key.clone());
            let kept = cache.set(&of).filter(|s| s.removed == removed && s.moved == moved);
            if kept.as_ref().is_some_and(|s| s.ids.len() <= selective) {
                return Ok(None);
            }
            held.push((of, kept, moved));
        }
        for cap in [FEW, selective] {
            for (of, kept, _) in &held {
                if kept.is_none() && self.candidate_ids(t, res, &of.2, std::slice::from_ref(&of.3), cap)?.is_some() {
                    return Ok(None);
                }
            }
        }
        let mut sets = Vec::with_capacity(keys.len() + ranges.len());
        for (of, kept, moved) in held {
            sets.push(self.id_set(&of, kept, removed, moved, upto, cache)?);
        }
        for (field, r) in &ranges {
            let moved = self.counter(t, &rank::moved_key(res, field))?;
            // Kept under the field's name with a suffix no field has, the range's ends as the key.
            let of: rank::MarksOf = (t.to_string(), res.to_string(), format!("{field}{RANGE_SET}"), r.encode());
            let kept = cache.set(&of).filter(|s| s.removed == removed && s.moved == moved);
            sets.push(self.range_set(def, &of, field, r, kept, (removed, moved, upto), budget, cache)?);
        }
        sets.sort_by_key(|s| s.len());
        let mut both = match sets.as_slice() {
            [] => return Ok(None),
            [one] => return Ok(Some(one.clone())),
            [a, b, ..] => intersect(a, b),
        };
        for s in sets.iter().skip(2) {
            both = intersect(&both, s);
        }
        Ok(Some(std::sync::Arc::new(both)))
    }

    /// The highest record id of a resource in this snapshot (0: none).
    fn last_id(&self, t: &str, res: &str) -> Result<u64> {
        Ok(match self.records.range((t, res, 0)..=(t, res, u64::MAX))?.next_back() {
            Some(e) => e?.0.value().2,
            None => 0,
        })
    }

    /// The ids holding one value of an indexed field as of this snapshot (whose highest record id is `upto`): the
    /// `kept` set (already checked against the removal and move counters) extended by the value's entries above it
    /// or cut back to this snapshot's ids; else made from the value's whole index range and kept.
    fn id_set(&self, of: &rank::MarksOf, kept: Option<std::sync::Arc<rank::IdSet>>, removed: u64, moved: u64, upto: u64, cache: &rank::RankCache) -> Result<std::sync::Arc<Vec<u64>>> {
        let (t, res, field, key) = (of.0.as_str(), of.1.as_str(), of.2.as_str(), of.3.as_slice());
        let (mut ids, from) = match kept {
            Some(s) if s.max_id >= upto => return Ok(s.as_of(upto)),
            Some(s) => ((*s.ids).clone(), s.max_id + 1),
            None => (Vec::new(), 0),
        };
        // Index entries of one value are in id order: the new ones follow the kept.
        for e in self.index.range((t, res, field, key, from)..=(t, res, field, key, u64::MAX))? {
            ids.push(e?.0.value().4);
        }
        let ids = std::sync::Arc::new(ids);
        cache.put_set(of, rank::IdSet { removed, moved, max_id: upto, ids: ids.clone() });
        Ok(ids)
    }

    /// The ids (ascending) whose indexed `field` lies in `r`, as of this snapshot (`at`: its removal and move
    /// counters and highest id): the `kept` set (checked against the counters) extended by the records added since
    /// — read and tested, at most `RANGE_EXTEND` of them — or cut back to this snapshot's ids; else made from the
    /// range's index entries and kept. A range's new entries can be anywhere in it, so its set grows from the
    /// records above it, not from the index. Sets are made from the index one at a time (many requests asking a
    /// new large range at once make it once, not each its own copy), within the request's `budget` as a walk is:
    /// range lists do not take the walk slots.
    #[allow(clippy::too_many_arguments)]
    fn range_set(&self, def: &ResourceDef, of: &rank::MarksOf, field: &str, r: &KeyRange, kept: Option<std::sync::Arc<rank::IdSet>>, at: (u64, u64, u64), budget: &crate::query::Budget, cache: &rank::RankCache) -> Result<std::sync::Arc<Vec<u64>>> {
        let (t, res) = (of.0.as_str(), of.1.as_str());
        let (removed, moved, upto) = at;
        match kept {
            Some(s) if s.max_id >= upto => return Ok(s.as_of(upto)),
            Some(s) => {
                let mut ids = (*s.ids).clone();
                let mut read = 0;
                let mut whole = true;
                for e in self.records.range((t, res, s.max_id + 1)..=(t, res, upto))? {
                    read += 1;
                    if read > RANGE_EXTEND {
                        whole = false;
                        break;
                    }
                    let (k, v) = e?;
                    if index_values(def, field, &decode_record(v.value())?).iter().any(|b| r.contains(b)) {
                        ids.push(k.value().2);
                    }
                }
                if whole {
                    let ids = std::sync::Arc::new(ids);
                    cache.put_set(of, rank::IdSet { removed, moved, max_id: upto, ids: ids.clone() });
                    return Ok(ids);
                }
            }
            None => {}
        }
        let _making = loop {
            if let Some(g) = cache.try_making() {
                break g;
            }
            budget.check()?;
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        // Another request may have made it meanwhile.
        if let Some(s) = cache.set(of).filter(|s| (s.removed, s.moved, s.max_id) == (removed, moved, upto)) {
            return Ok(s.ids.clone());
        }
        let ids = std::sync::Arc::new(self.ids_in_range(t, res, def.index_key(field), r, budget)?);
        cache.put_set(of, rank::IdSet { removed, moved, max_id: upto, ids: ids.clone() });
        Ok(ids)
    }

    fn counter(&self, t: &str, name: &str) -> Result<u64> {
        Ok(self.counters.get((t, name))?.map(|v| v.value()).unwrap_or(0))
    }

    /// The ids of a marked list from `from` on, ascending, until `visit` says stop: the records of the resource
    /// (with their stored bytes), or the index entries of one value (ids only).
    fn walk_marked(&self, of: &rank::MarksOf, from: u64, visit: &mut MarkedVisit<'_>) -> Result<()> {
        let (t, res) = (of.0.as_str(), of.1.as_str());
        if of.2.is_empty() {
            for e in self.records.range((t, res, from)..=(t, res, u64::MAX))? {
                let (k, v) = e?;
                if !visit(k.value().2, Some(v.value()))? {
                    break;
                }
            }
        } else {
            let (field, key) = (of.2.as_str(), of.3.as_slice());
            for e in self.index.range((t, res, field, key, from)..=(t, res, field, key, u64::MAX))? {
                if !visit(e?.0.value().4, None)? {
                    break;
                }
            }
        }
        Ok(())
    }

    /// The marks valid for this snapshot: the cached ones checked (same removal and move counters; for the
    /// whole resource, the tail above them holding exactly the records the live count added) and extended by that
    /// tail, or new ones from one walk. `total`: the live count of the whole resource (None for a value's marks,
    /// whose count the marks are).
    fn marks(&self, of: &rank::MarksOf, total: Option<u64>, removed: u64, moved: u64, cache: &rank::RankCache) -> Result<Option<std::sync::Arc<rank::Marks>>> {
        let extend = |m: &mut rank::Marks, from: u64| -> Result<()> {
            self.walk_marked(of, from, &mut |id, _| {
                if m.count.is_multiple_of(rank::EVERY) {
                    m.marks.push((id, m.count));
                }
                m.count += 1;
                m.max_id = id;
                Ok(true)
            })
        };
        if let Some(m) = cache.get(of)
            && m.removed == removed
            && m.moved == moved {
            if total == Some(m.count) {
                return Ok(Some(m));
            }
            if total.is_some_and(|t| m.count > t) {
                // This snapshot is older than the marks.
                return Ok(None);
            }
            let mut ext = (*m).clone();
            if m.max_id < u64::MAX {
                extend(&mut ext, m.max_id + 1)?;
            }
            // The whole resource's tail must hold exactly the records added; a value's grows only by new ids
            // (a move into it or an old id stored again moves its counters).
            if total.is_none_or(|t| ext.count == t) {
                if ext.count != m.count {
                    cache.put(of, ext.clone());
                }
                return Ok(Some(std::sync::Arc::new(ext)));
            }
            // A record with an old id (moved from another file): the marks are made again below.
        }
        let mut m = rank::Marks { removed, moved, ..rank::Marks::default() };
        extend(&mut m, 0)?;
        if total.is_some_and(|t| t != m.count) {
            return Ok(None);
        }
        cache.put(of, m.clone());
        Ok(Some(std::sync::Arc::new(m)))
    }

    /// The newest records (highest ids first) whose indexed `field` equals `value`, skipping `offset`, at most
    /// `limit`, without counting the rest: the index range is walked from its end, so a page of the moves of a
    /// project with 100,000 of them reads only its own entries. For lists whose total the caller keeps itself
    /// (a maintained count). `None` when the field is not indexed or the value is not an exact index key.
    pub fn newest_by(&self, def: &ResourceDef, tenant: &str, field: &str, value: &Value, offset: u64, limit: u64) -> Result<Option<Vec<Map<String, Value>>>> {
        let Some(keys) = exact_keys(def, &Filter::new(field, Op::Equal, value.clone())) else { return Ok(None) };
        let Some(key) = keys.into_iter().next() else { return Ok(None) };
        let t = storage_tenant(def, tenant);
        let res = def.name.as_str();
        let mut out = Vec::new();
        let ik = def.index_key(field);
        let range = self.index.range((t, res, ik, key.as_slice(), 0)..=(t, res, ik, key.as_slice(), u64::MAX))?;
        for e in range.rev().skip(offset as usize) {
            if out.len() as u64 >= limit {
                break;
            }
            let id = e?.0.value().4;
            if let Some(v) = self.records.get((t, res, id))? {
                out.push(decode_record(v.value())?);
            }
        }
        Ok(Some(out))
    }

    /// One page of a list given the search index's candidates (`q.hint`) and the ids of this resource's records
    /// changed since the hint's sequence number (`pending`, from the change log of the same snapshot). Only those
    /// records are visited; filters the hint does not answer narrow them through the indexes where they can,
    /// else by decoding. Every returned record is tested against the whole query; if one fails (the hint was
    /// wrong), every candidate is decoded and tested instead.
    pub fn list_hinted(&self, def: &ResourceDef, tenant: &str, q: &Query, h: &Hint, pending: &[u64]) -> Result<Page> {
        let first = self.hinted(def, tenant, q, h, pending, false)?;
        match first {
            Some(page) => Ok(page),
            None => Ok(self.hinted(def, tenant, q, h, pending, true)?.unwrap_or_default()),
        }
    }

    fn hinted(&self, def: &ResourceDef, tenant: &str, q: &Query, h: &Hint, pending: &[u64], strict: bool) -> Result<Option<Page>> {
        let t = storage_tenant(def, tenant);
        let res = def.name.as_str();
        let mut ticker = Ticker::new(&q.budget);
        let changed: std::collections::HashSet<u64> = pending.iter().copied().collect();
        // (id, trusted): trusted ids match what the hint answers; changed records are tested in full.
        let mut cands: Vec<(u64, bool)> = if changed.is_empty() {
            h.ids.iter().map(|&id| (id, !strict)).collect()
        } else {
            h.ids.iter().filter(|id| !changed.contains(id)).map(|&id| (id, !strict)).collect()
        };
        let mut fresh: Vec<u64> = changed.iter().copied().collect();
        fresh.sort_unstable_by(|a, b| b.cmp(a));
        let ranked = h.ranked && q.sorts.is_empty();
        if ranked {
            // Changed records first (they are the newest), then the index's order.
            let mut all: Vec<(u64, bool)> = fresh.into_iter().map(|id| (id, false)).collect();
            all.append(&mut cands);
            cands = all;
        } else {
            // The hint's ids come ascending: reversed for the usual newest-first order, sorted only when records
            // changed since are added.
            let asc = q.sorts.first().is_some_and(|s| (s.field == "id" || s.field == "createTime") && !s.desc);
            let added = !fresh.is_empty();
            cands.extend(fresh.into_iter().map(|id| (id, false)));
            if added || !cands.is_sorted_by_key(|c| c.0) {
                cands.sort_unstable_by_key(|c| c.0);
            }
            if !asc {
                cands.reverse();
            }
        }
        // Filters the hint does not answer: narrowed by index ranges when exact, else tested on the record.
        let mut allowed: Option<Vec<u64>> = None;
        let mut decode_all = strict || (q.check.is_some() && !h.check);
        let narrow = |allowed: &mut Option<Vec<u64>>, ids: Vec<u64>| {
            *allowed = Some(match allowed.take() {
                None => ids,
                Some(prev) => prev.into_iter().filter(|id| ids.binary_search(id).is_ok()).collect(),
            });
        };
        for (i, f) in q.filters.iter().enumerate() {
            if h.answers.contains(&i) {
                continue;
            }
            match exact_keys(def, f) {
                // A record passes each filter alone, so each narrows alone (a multi-valued field included).
                Some(keys) => narrow(&mut allowed, self.ids_for(t, res, def.index_key(&f.field), keys.iter())?),
                _ => decode_all = true,
            }
        }
        if let Some(first) = q.any.first() {
            let mut union = BTreeSet::new();
            let mut exact = true;
            for f in &q.any {
                match exact_keys(def, f) {
                    Some(keys) if f.field == first.field => union.extend(keys),
                    _ => exact = false,
                }
            }
            if exact { narrow(&mut allowed, self.ids_for(t, res, def.index_key(&first.field), union.iter())?) } else { decode_all = true }
        }
        let by_other = q.sorts.len() > 1 || q.sorts.first().is_some_and(|s| s.field != "id" && s.field != "createTime");
        let (offset, limit) = (q.offset as usize, q.limit as usize);
        let mut sorted: Vec<Map<String, Value>> = Vec::new();
        let mut fill = PageFill::new(q);
        let tested = q.tested_fields();
        let mut matched = 0usize;
        for (id, trusted) in cands {
            if allowed.as_ref().is_some_and(|a| a.binary_search(&id).is_err()) {
                continue;
            }
            let in_page = matched >= offset && fill.len() < limit;
            if trusted && !decode_all && !by_other && !in_page {
                matched += 1;
                continue;
            }
            ticker.tick()?;
            let Some(v) = self.records.get((t, res, id))? else {
                if trusted && !decode_all {
                    return Ok(None);
                }
                continue;
            };
            // A page row the index answers for, sent as stored: only the fields the filters read are decoded
            // to confirm it.
            let light = q.raw_rows && trusted && !decode_all && !by_other;
            let raw = crate::codec::unpacked(v.value())?;
            let doc = tested_doc(tested.as_deref().filter(|_| light), &raw)?;
            if !q.accepts(&doc) {
                if trusted && !decode_all {
                    return Ok(None);
                }
                continue;
            }
            if by_other {
                sorted.push(doc);
                continue;
            }
            if in_page {
                fill.push_read(Some(doc), raw)?;
            }
            matched += 1;
        }
        if by_other {
            sorted.sort_by(|a, b| order(&q.sorts, a, b));
            let total = sorted.len() as u64;
            return Page::of(q, sorted.into_iter().skip(offset).take(limit).collect(), total).map(Some);
        }
        Ok(Some(fill.finish(matched as u64)))
    }

    /// A page answered from the indexes alone, when every filter and the guard select exactly by index keys
    /// (`Equal`/`In` over single-valued indexed fields, `ListIn` over multi-valued ones) and the order is by id:
    /// the ids come from intersecting index ranges, the total is their number, and only the page's records are
    /// decoded. Filters on one field intersect their values first, so a department filter inside a data scope
    /// over the same `deptId` walks only the department's entries. `None`: use the general walk.
    fn list_by_index(&self, def: &ResourceDef, t: &str, q: &Query) -> Result<Option<Page>> {
        let desc = match q.sorts.as_slice() {
            [] => true,
            [s] if s.field == "id" || s.field == "createTime" => s.desc,
            _ => return Ok(None),
        };
        if q.unfiltered() || q.check.is_some() {
            return Ok(None);
        }
        let mut by_field: BTreeMap<&str, Vec<BTreeSet<Vec<u8>>>> = BTreeMap::new();
        let mut ranges: BTreeMap<&str, KeyRange> = BTreeMap::new();
        for f in &q.filters {
            if let Some(keys) = exact_keys(def, f) {
                by_field.entry(f.field.as_str()).or_default().push(keys);
            } else if let Some(r) = range_keys(def, f) {
                KeyRange::add(&mut ranges, &f.field, r);
            } else {
                return Ok(None);
            }
        }
        if let Some(first) = q.any.first() {
            // A guard of several filters is their union; supported when they are over one field.
            let mut union = BTreeSet::new();
            for f in &q.any {
                match exact_keys(def, f) {
                    Some(keys) if f.field == first.field => union.extend(keys),
                    _ => return Ok(None),
                }
            }
            by_field.entry(first.field.as_str()).or_default().push(union);
        }
        let res = def.name.as_str();
        // Several filters, one of them selective (an instance's tasks beside their status, a user's rows beside a
        // category): that field's few ids are the candidates and the other filters are checked on the records,
        // instead of reading every index entry of a common value (all open tasks, all rows of a status).
        if by_field.len() + ranges.len() > 1 {
            // Beside a range (a start date between two days) the range's ids are an index scan too: decode only a
            // few hundred candidates rather than intersect (a company's 5,000 projects decoded cost 3 s at c=64).
            let cap = if ranges.is_empty() { SELECTIVE } else { SELECTIVE_BESIDE_RANGE };
            for (field, sets) in &by_field {
                if def.field(field).is_some_and(|d| d.multi) {
                    continue;
                }
                let mut inter = sets[0].clone();
                for s in &sets[1..] {
                    inter.retain(|k| s.contains(k));
                }
                let keys: Vec<Vec<u8>> = inter.into_iter().collect();
                let Some(candidates) = self.candidate_ids(t, res, def.index_key(field), &keys, cap)? else { continue };
                let mut docs = Vec::new();
                for id in candidates {
                    if let Some(v) = self.records.get((t, res, id))? {
                        let doc = decode_record(v.value())?;
                        if q.accepts(&doc) {
                            docs.push(doc);
                        }
                    }
                }
                let total = docs.len() as u64;
                if desc {
                    docs.reverse();
                }
                let records = docs.into_iter().skip(q.offset as usize).take(q.limit as usize).collect();
                return Page::of(q, records, total).map(Some);
            }
        }
        let mut exact: Option<Vec<u64>> = None;
        // Ids that may match through different values of a multi-valued field (a user in two departments, one
        // in the filter and one in the scope): decoded and checked.
        let mut check: Vec<u64> = Vec::new();
        for (field, sets) in &by_field {
            let mut inter = sets[0].clone();
            for s in &sets[1..] {
                inter.retain(|k| s.contains(k));
            }
            let ids = self.ids_for(t, res, def.index_key(field), inter.iter())?;
            if sets.len() > 1 && def.field(field).is_some_and(|d| d.multi) {
                let smallest = sets.iter().min_by_key(|s| s.len()).unwrap_or(&sets[0]);
                check.extend(self.ids_for(t, res, def.index_key(field), smallest.difference(&inter))?);
            }
            exact = Some(match exact {
                None => ids,
                Some(prev) => prev.into_iter().filter(|id| ids.binary_search(id).is_ok()).collect(),
            });
        }
        // Ranges (a start date between two days) narrow the ids found by value; alone they are the candidates.
        for (field, r) in &ranges {
            if exact.as_ref().is_some_and(|e| e.is_empty()) {
                break;
            }
            let ids = self.ids_in_range(t, res, def.index_key(field), r, &q.budget)?;
            exact = Some(match exact {
                None => ids,
                Some(prev) => prev.into_iter().filter(|id| ids.binary_search(id).is_ok()).collect(),
            });
        }
        let mut ids = exact.unwrap_or_default();
        if !check.is_empty() {
            check.sort_unstable();
            check.dedup();
            let mut extra = Vec::new();
            for id in check.into_iter().filter(|id| ids.binary_search(id).is_err()) {
                if let Some(v) = self.records.get((t, res, id))?
                    && q.accepts(&decode_record(v.value())?) {
                    extra.push(id);
                }
            }
            ids.extend(extra);
            ids.sort_unstable();
        }
        let total = ids.len() as u64;
        let page_ids: Vec<u64> = if desc {
            ids.iter().rev().skip(q.offset as usize).take(q.limit as usize).copied().collect()
        } else {
            ids.iter().skip(q.offset as usize).take(q.limit as usize).copied().collect()
        };
        let mut fill = PageFill::new(q);
        let tested = q.tested_fields().filter(|_| q.raw_rows);
        for id in page_ids {
            let Some(v) = self.records.get((t, res, id))? else { return Ok(None) };
            let raw = crate::codec::unpacked(v.value())?;
            let doc = tested_doc(tested.as_deref(), &raw)?;
            // The index said so; the record must agree, else take the general walk.
            if !q.accepts(&doc) {
                return Ok(None);
            }
            fill.push_read(Some(doc), raw)?;
        }
        Ok(Some(fill.finish(total)))
    }

    /// Ids (ascending, each once) of the live records whose `field` holds one of `values`, from that field's
    /// index. None when its index cannot select them exactly (not indexed, multi-valued, a value not indexed whole).
    pub fn ids_with(&self, def: &ResourceDef, tenant: &str, field: &str, values: Vec<Value>) -> Result<Option<Vec<u64>>> {
        let Some(keys) = exact_keys(def, &Filter::new(field, Op::In, Value::Array(values))) else { return Ok(None) };
        self.ids_for(storage_tenant(def, tenant), &def.name, def.index_key(field), keys.iter()).map(Some)
    }

    /// Ids (ascending, each once) of the records whose indexed field (`ik`: its `index_key`) holds one of `keys`.
    fn ids_for<'k>(&self, t: &str, res: &str, ik: &str, keys: impl Iterator<Item = &'k Vec<u8>>) -> Result<Vec<u64>> {
        let mut ids = Vec::new();
        for k in keys {
            for e in self.index.range((t, res, ik, k.as_slice(), 0)..=(t, res, ik, k.as_slice(), u64::MAX))? {
                ids.push(e?.0.value().4);
            }
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    }

    /// Ids (ascending, each once) of the records whose indexed field (`ik`: its `index_key`) lies in the range.
    fn ids_in_range(&self, t: &str, res: &str, ik: &str, r: &KeyRange, budget: &crate::query::Budget) -> Result<Vec<u64>> {
        let mut ids = Vec::new();
        let mut ticker = Ticker::new(budget);
        // A prefix's stretch holds its case variants and what sorts between them: only the variants' own.
        let found = match r.prefixes.as_slice() {
            [p] => self.prefix_spans(t, res, ik, p)?,
            _ => None,
        };
        let spans: Vec<Span> = match found {
            Some(v) => v.iter().flat_map(|a| r.spans.iter().filter_map(move |b| a.narrow(b))).collect(),
            None => r.spans.clone(),
        };
        for span in &spans {
            let lo: Bound<IdxKey> = match &span.lo {
                Bound::Included(k) => Bound::Included((t, res, ik, k.as_slice(), 0)),
                Bound::Excluded(k) => Bound::Excluded((t, res, ik, k.as_slice(), u64::MAX)),
                Bound::Unbounded => Bound::Included((t, res, ik, &[], 0)),
            };
            let hi: Bound<IdxKey> = match &span.hi {
                Bound::Included(k) => Bound::Included((t, res, ik, k.as_slice(), u64::MAX)),
                Bound::Excluded(k) => Bound::Excluded((t, res, ik, k.as_slice(), 0)),
                Bound::Unbounded => Bound::Included((t, res, ik, INDEX_END, u64::MAX)),
            };
            for e in self.index.range::<IdxKey>((lo, hi))? {
                let k = e?.0;
                let (value, id) = (k.value().3, k.value().4);
                if r.prefixes.is_empty() || r.contains(value) {
                    ids.push(id);
                }
                ticker.tick()?;
            }
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    }

    /// The stretches of the case variants of a `StartsWith` prefix (lower-cased) that the index (`ik`) holds, each
    /// a variant's value up to past it: found position by position, a seek for each variant of each letter
    /// beside the ones held so far. `None` past `PREFIX_SEEKS` seeks (the whole stretch is read and tested).
    fn prefix_spans(&self, t: &str, res: &str, ik: &str, p: &str) -> Result<Option<Vec<Span>>> {
        let Some(choices) = case_choices(p) else { return Ok(None) };
        let (mut held, mut seeks) = (vec![String::new()], 0);
        for at in &choices {
            let mut next = Vec::with_capacity(held.len() * at.len());
            for v in &held {
                for c in at {
                    let longer = format!("{v}{c}");
                    if at.len() > 1 {
                        seeks += 1;
                        if seeks > PREFIX_SEEKS {
                            return Ok(None);
                        }
                        let (lo, hi) = prefix_stretch(&longer);
                        if self.index.range((t, res, ik, lo.as_slice(), 0)..(t, res, ik, hi.as_slice(), 0))?.next().is_none() {
                            continue;
                        }
                    }
                    next.push(longer);
                }
            }
            held = next;
        }
        Ok(Some(held.iter().map(|v| {
            let (lo, hi) = prefix_stretch(v);
            Span { lo: Bound::Included(lo), hi: Bound::Excluded(hi) }
        }).collect()))
    }

    /// The ids holding any of `keys` in a field's index (`ik`: its `index_key`), if there are at most `cap` of them.
    fn candidate_ids(&self, t: &str, res: &str, ik: &str, keys: &[Vec<u8>], cap: usize) -> Result<Option<Vec<u64>>> {
        let mut ids = Vec::new();
        for k in keys {
            for e in self.index.range((t, res, ik, k.as_slice(), 0)..=(t, res, ik, k.as_slice(), u64::MAX))? {
                ids.push(e?.0.value().4);
                if ids.len() > cap {
                    return Ok(None);
                }
            }
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(Some(ids))
    }

    /// Visits the records whose indexed field (`ik`: its `index_key`) holds one of `keys`, each once, newest first.
    fn scan_candidates(
        &self,
        t: &str,
        res: &str,
        ik: &str,
        keys: &[Vec<u8>],
        visit: &mut dyn FnMut(&[u8]) -> Result<bool>,
    ) -> Result<()> {
        let mut ids = Vec::new();
        for k in keys {
            for e in self.index.range((t, res, ik, k.as_slice(), 0)..=(t, res, ik, k.as_slice(), u64::MAX))? {
                ids.push(e?.0.value().4);
            }
        }
        ids.sort_unstable_by(|a, b| b.cmp(a));
        ids.dedup();
        for id in ids {
            if let Some(v) = self.records.get((t, res, id))?
                && !visit(v.value())? {
                break;
            }
        }
        Ok(())
    }

    fn scan_ids(
        &self,
        t: &str,
        res: &str,
        _from: Option<u64>,
        desc: bool,
        visit: &mut dyn FnMut(&[u8]) -> Result<bool>,
    ) -> Result<()> {
        let range = self.records.range((t, res, 0)..=(t, res, u64::MAX))?;
        let iter: Box<dyn Iterator<Item = _>> = if desc { Box::new(range.rev()) } else { Box::new(range) };
        for e in iter {
            if !visit(e?.1.value())? {
                break;
            }
        }
        Ok(())
    }

    /// The ids of one field's index (`ik`: its `index_key`) in value order (then id; reversed when `desc`), or of one value's range,
    /// keys only, until `visit` says stop.
    fn scan_index_ids(&self, t: &str, res: &str, ik: &str, exact: Option<&[u8]>, desc: bool, visit: &mut dyn FnMut(u64) -> Result<bool>) -> Result<()> {
        let (lo, hi): (Bound<IdxKey>, Bound<IdxKey>) = match exact {
            Some(v) => (Bound::Included((t, res, ik, v, 0)), Bound::Included((t, res, ik, v, u64::MAX))),
            None => (Bound::Included((t, res, ik, &[][..], 0)), Bound::Included((t, res, ik, INDEX_END, u64::MAX))),
        };
        let range = self.index.range::<IdxKey>((lo, hi))?;
        let iter: Box<dyn Iterator<Item = _>> = if desc { Box::new(range.rev()) } else { Box::new(range) };
        for e in iter {
            let (k, _) = e?;
            if !visit(k.value().4)? {
                break;
            }
        }
        Ok(())
    }

    /// Walks one field's index (`ik`: its `index_key`) in value order (ties newest first when descending), or one value's range,
    /// visiting each entry's stored record.
    fn scan_index(
        &self,
        t: &str,
        res: &str,
        ik: &str,
        exact: Option<&[u8]>,
        desc: bool,
        visit: &mut dyn FnMut(&[u8]) -> Result<bool>,
    ) -> Result<()> {
        self.scan_index_ids(t, res, ik, exact, desc, &mut |id| match self.records.get((t, res, id))? {
            Some(v) => visit(v.value()),
            None => Ok(true),
        })
    }
}

/// Where a page at `offset` of `limit` rows is reached from in a list of `total`: past the middle from the other
/// end. Returns (from the other end, entries to skip, entries to take) in the direction walked.
fn nearer_end(total: u64, offset: u64, limit: u64) -> (bool, u64, u64) {
    if offset > total / 2 {
        (true, total.saturating_sub(offset + limit), total.saturating_sub(offset).min(limit))
    } else {
        (false, offset, limit)
    }
}

/// Which sort marks a list needs, and what they must count and have been made with to be trusted for this
/// snapshot (see `rank::SortMarks`).
struct WantMarks<'a> {
    of: &'a rank::SortOf,
    total: u64,
    removed: u64,
    moved: u64,
}

/// The ids in both ascending lists (a merge, galloping through the longer when one is much shorter).
fn intersect(a: &[u64], b: &[u64]) -> Vec<u64> {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(small.len());
    if small.len() * 16 < large.len() {
        let mut rest = large;
        for id in small {
            let at = rest.partition_point(|x| x < id);
            rest = &rest[at..];
            if rest.first() == Some(id) {
                out.push(*id);
            }
        }
        return out;
    }
    let (mut i, mut j) = (0, 0);
    while i < small.len() && j < large.len() {
        match small[i].cmp(&large[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(small[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// The filters of a list the rank marks may answer: its own and, from a data-scope guard, nothing when the guard
/// admits every record (全部数据: `id` not null, whatever else it allows) or its one condition; `None` for a guard
/// of several conditions.
fn ranked_filters(q: &Query) -> Option<Vec<&Filter>> {
    let mut filters: Vec<&Filter> = q.filters.iter().collect();
    if q.any.iter().any(|g| g.field == "id" && g.op == Op::NotNull) {
        return Some(filters);
    }
    match q.any.as_slice() {
        [] => {}
        [g] => filters.push(g),
        _ => return None,
    }
    Some(filters)
}

/// Bytes every record matching the query's `contains` filters must hold in its stored form: the longest needle
/// that serde_json writes verbatim (no quote, backslash or control character) and that lower-casing cannot
/// change (Chinese text, digits, punctuation), so a record without it cannot match and need not be decoded.
/// Needles with letters are matched case-insensitively and get no prefilter.
fn raw_needle(q: &Query) -> Option<Vec<u8>> {
    q.filters
        .iter()
        .filter(|f| f.op == Op::Contains)
        .filter_map(|f| f.value.as_str())
        .filter(|v| !v.is_empty() && v.chars().all(caseless))
        .max_by_key(|v| v.len())
        .map(|v| v.as_bytes().to_vec())
}

/// Whether a list walks records (and so costs time in proportion to the table): false when it is answered from
/// an index end (an unfiltered first pages) or from index ranges alone (exact filters over indexed fields, and
/// ranges beside exact single values, ordered by id). Walks are the lists a server bounds in time and concurrency.
pub fn walks(def: &ResourceDef, q: &Query) -> bool {
    if let Some(h) = &q.hint {
        // Only the candidates are visited: a walk when many must be decoded.
        return h.ids.len() > HINT_DECODE_FREE && hint_decodes(def, q, h);
    }
    if q.sorts.len() > 1 || q.check.is_some() {
        return true;
    }
    if q.unfiltered() {
        return q.offset + q.limit > 2_000;
    }
    if !q.sorts.first().is_none_or(|s| s.field == "id" || s.field == "createTime") {
        return true;
    }
    // Ranges (a creation date from a day) beside exact single values are answered from kept id sets, made within
    // the request's budget (`Tables::range_set`); beside anything else their ids are read from the index as a walk.
    if q.filters.iter().any(|f| exact_keys(def, f).is_none()) {
        let by_sets = |f: &Filter| {
            !def.field(&f.field).is_some_and(|d| d.multi)
                && (exact_keys(def, f).is_some_and(|k| k.len() == 1) || range_keys(def, f).is_some())
        };
        return !(q.filters.iter().all(by_sets) && q.any.len() <= 1 && q.any.iter().all(by_sets));
    }
    match q.any.first() {
        Some(first) => !q.any.iter().all(|f| f.field == first.field && exact_keys(def, f).is_some()),
        None => false,
    }
}

/// Candidates a hinted list may decode without counting as a walk.
const HINT_DECODE_FREE: usize = 2_000;

/// Whether a hinted list must decode every candidate: a filter or guard the hint does not answer and the indexes
/// cannot, a check the hint does not answer, or a sort other than by id.
fn hint_decodes(def: &ResourceDef, q: &Query, h: &Hint) -> bool {
    let rest_inexact = q.filters.iter().enumerate().any(|(i, f)| !h.answers.contains(&i) && exact_keys(def, f).is_none());
    let guard_inexact = q.any.first().is_some_and(|first| !q.any.iter().all(|f| f.field == first.field && exact_keys(def, f).is_some()));
    let by_other = q.sorts.len() > 1 || q.sorts.first().is_some_and(|s| s.field != "id" && s.field != "createTime");
    rest_inexact || guard_inexact || (q.check.is_some() && !h.check) || by_other
}

/// Among the filters that all must hold, an `Equal`, `In` or `ListIn` over an indexed field whose values can be
/// looked up exactly; the one with the fewest values (a cheap guess at the most selective). Returns the field and
/// the encoded index keys to walk.
fn seek_filter<'q>(def: &ResourceDef, q: &'q Query) -> Option<(&'q str, Vec<Vec<u8>>)> {
    let indexed: Vec<&str> = def.indexed_fields().collect();
    q.filters
        .iter()
        .filter(|f| indexed.contains(&f.field.as_str()))
        .filter_map(|f| {
            let multi = def.field(&f.field).is_some_and(|d| d.multi);
            let keys: Vec<Vec<u8>> = match f.op {
                Op::Equal if !multi && index_exact(def, f) => vec![index_bytes(&f.value)],
                Op::In if !multi => {
                    let items = f.value.as_array()?;
                    let probe = |v: &Value| index_exact(def, &Filter::new(&f.field, Op::Equal, v.clone()));
                    if !items.iter().all(probe) {
                        return None;
                    }
                    items.iter().map(index_bytes).collect()
                }
                // A list of ids: stored one entry per id (multi) or as the one id the field holds.
                Op::ListIn | Op::In => f.value.as_array()?.iter().map(|v| crate::parse_id_value(v).map(|id| index_bytes(&Value::from(id)))).collect::<Option<_>>()?,
                Op::Equal if multi => vec![index_bytes(&Value::from(crate::parse_id_value(&f.value)?))],
                _ => return None,
            };
            Some((f.field.as_str(), keys))
        })
        .min_by_key(|(_, keys)| keys.len())
}

/// Index keys that select exactly the records `f` accepts, if there are such: `Equal`/`In` over a single-valued
/// indexed field (values indexed whole), `ListIn` over a multi-valued one (one entry per id).
fn exact_keys(def: &ResourceDef, f: &Filter) -> Option<BTreeSet<Vec<u8>>> {
    if !def.indexed_fields().any(|n| n == f.field) {
        return None;
    }
    let multi = def.field(&f.field).is_some_and(|d| d.multi);
    let exact = |v: &Value| index_exact(def, &Filter::new(&f.field, Op::Equal, v.clone()));
    match f.op {
        Op::Equal if !multi && exact(&f.value) => Some(BTreeSet::from([index_bytes(&f.value)])),
        Op::In if !multi => {
            let items = f.value.as_array()?;
            items.iter().all(exact).then(|| items.iter().map(index_bytes).collect())
        }
        Op::ListIn if multi => f.value.as_array()?.iter().map(|v| crate::parse_id_value(v).map(|id| index_bytes(&Value::from(id)))).collect(),
        _ => None,
    }
}

/// One stretch of encoded index values (index order: bytes).
#[derive(Debug, Clone, PartialEq)]
struct Span {
    lo: Bound<Vec<u8>>,
    hi: Bound<Vec<u8>>,
}

impl Span {
    fn contains(&self, k: &[u8]) -> bool {
        let above = match &self.lo {
            Bound::Included(lo) => k >= lo.as_slice(),
            Bound::Excluded(lo) => k > lo.as_slice(),
            Bound::Unbounded => true,
        };
        let below = match &self.hi {
            Bound::Included(hi) => k <= hi.as_slice(),
            Bound::Excluded(hi) => k < hi.as_slice(),
            Bound::Unbounded => true,
        };
        above && below
    }

    /// The single value `k`.
    fn point(k: Vec<u8>) -> Span {
        Span { lo: Bound::Included(k.clone()), hi: Bound::Included(k) }
    }

    /// Both stretches at once: the higher low end and the lower high end (an excluded end wins a tie); `None`
    /// when nothing is in both.
    fn narrow(&self, o: &Span) -> Option<Span> {
        fn key(b: &Bound<Vec<u8>>) -> Option<&Vec<u8>> {
            match b {
                Bound::Included(k) | Bound::Excluded(k) => Some(k),
                Bound::Unbounded => None,
            }
        }
        let pick = |a: &Bound<Vec<u8>>, b: &Bound<Vec<u8>>, higher: bool| match (key(a), key(b)) {
            (None, _) => b.clone(),
            (_, None) => a.clone(),
            (Some(x), Some(y)) if x == y => if matches!(a, Bound::Excluded(_)) { a.clone() } else { b.clone() },
            (Some(x), Some(y)) => if (x > y) == higher { a.clone() } else { b.clone() },
        };
        let both = Span { lo: pick(&self.lo, &o.lo, true), hi: pick(&self.hi, &o.hi, false) };
        let empty = match (&both.lo, &both.hi) {
            (Bound::Included(l), Bound::Included(h)) => l > h,
            (Bound::Included(l) | Bound::Excluded(l), Bound::Included(h) | Bound::Excluded(h)) => l >= h,
            _ => false,
        };
        (!empty).then_some(both)
    }
}

/// The encoded index values of one field a filter accepts: one stretch (`Ge`, `Lt`, … — never leaving the values
/// of its type, so nulls and other types stay out as `Filter::matches` has it), or several (`Null`: the null and
/// empty values; `NotEqual` and `NotNull`: all but those); and for `StartsWith` the stretch from the prefix's
/// lowest case variant to past its highest, each value in it tested against the prefix (`prefixes`, lower-cased:
/// what `Filter::matches` tests), whose stretches of the variants the data holds are found when read
/// (`Tables::prefix_spans`).
#[derive(Debug, Clone)]
struct KeyRange {
    spans: Vec<Span>,
    prefixes: Vec<String>,
}

impl KeyRange {
    fn one(lo: Bound<Vec<u8>>, hi: Bound<Vec<u8>>) -> KeyRange {
        KeyRange::of(vec![Span { lo, hi }])
    }

    fn of(spans: Vec<Span>) -> KeyRange {
        KeyRange { spans, prefixes: Vec::new() }
    }

    /// Whether an encoded value lies in the range (index order: bytes).
    fn contains(&self, k: &[u8]) -> bool {
        self.spans.iter().any(|s| s.contains(k)) && self.prefixes.iter().all(|p| starts_caseless(k, p))
    }

    /// The range as bytes (a cache key): each stretch's ends, each end's kind, length and bytes; the prefixes.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for p in &self.prefixes {
            out.push(3);
            out.extend_from_slice(&(p.len() as u32).to_le_bytes());
            out.extend_from_slice(p.as_bytes());
        }
        for b in self.spans.iter().flat_map(|s| [&s.lo, &s.hi]) {
            let (kind, k): (u8, &[u8]) = match b {
                Bound::Included(k) => (1, k),
                Bound::Excluded(k) => (2, k),
                Bound::Unbounded => (0, &[]),
            };
            out.push(kind);
            out.extend_from_slice(&(k.len() as u32).to_le_bytes());
            out.extend_from_slice(k);
        }
        out
    }

    /// Adds a range of `field` to `ranges`: several over one field are the one both give.
    fn add<'f>(ranges: &mut BTreeMap<&'f str, KeyRange>, field: &'f str, r: KeyRange) {
        let merged = match ranges.remove(field) {
            Some(prev) => prev.narrow(r),
            None => r,
        };
        ranges.insert(field, merged);
    }

    /// Both ranges at once: every stretch of one narrowed by every stretch of the other, and both's prefixes.
    fn narrow(self, o: KeyRange) -> KeyRange {
        let spans = self.spans.iter().flat_map(|a| o.spans.iter().filter_map(move |b| a.narrow(b))).collect();
        KeyRange { spans, prefixes: self.prefixes.into_iter().chain(o.prefixes).collect() }
    }
}

/// The stretch of index keys of the texts that start with `v`: its key up to past it (no UTF-8 text holds the byte
/// 0xff).
fn prefix_stretch(v: &str) -> (Vec<u8>, Vec<u8>) {
    let lo = index_bytes(&Value::from(v));
    let mut hi = lo.clone();
    hi.push(0xff);
    (lo, hi)
}

/// Whether an encoded index value is text that starts with `lower` once lower-cased (`Filter::matches`'
/// `StartsWith`). A value cut when indexed keeps far more than a prefix `range_keys` takes.
fn starts_caseless(k: &[u8], lower: &str) -> bool {
    k.first() == Some(&3) && std::str::from_utf8(&k[1..]).is_ok_and(|v| v.to_lowercase().starts_with(lower))
}

/// The longest `StartsWith` prefix (bytes) answered from the index: a value cut when indexed holds
/// `MAX_INDEXED_BYTES`, and lower-casing can make a character's bytes three times as many.
const PREFIX_MAX: usize = crate::codec::MAX_INDEXED_BYTES / 4;
/// Seeks spent finding which case variants of a prefix the data holds; beyond, the whole stretch is read.
const PREFIX_SEEKS: usize = 256;

/// The index range holding exactly the records a filter accepts, if there is one, over a single-valued indexed
/// field: `Ge`/`Gt`/`Le`/`Lt` over dates (text, never cut) or integers compared with an integer; `Null` and
/// `NotNull`; `NotEqual` where `Equal` would be an index lookup; `StartsWith` a short prefix over text or dates.
fn range_keys(def: &ResourceDef, f: &Filter) -> Option<KeyRange> {
    if !def.indexed_fields().any(|n| n == f.field) {
        return None;
    }
    // The audit columns the server stamps (times as epoch milliseconds, people, status) are integers.
    let kind = match def.field(&f.field) {
        Some(d) if d.multi => return None,
        Some(d) => &d.kind,
        None if crate::resource::AUDIT_FIELDS.contains(&f.field.as_str()) => &FieldKind::Long,
        None => return None,
    };
    let numeric = matches!(kind, FieldKind::Int | FieldKind::Long | FieldKind::Money | FieldKind::Qty | FieldKind::Flag);
    // `Null` holds for no value and for "": their two index keys (a missing field is indexed as null).
    let (null, empty) = (index_bytes(&Value::Null), index_bytes(&Value::from("")));
    match f.op {
        Op::Ge | Op::Gt | Op::Le | Op::Lt => {}
        Op::Null => return Some(KeyRange::of(vec![Span::point(null), Span::point(empty)])),
        Op::NotNull => {
            return Some(KeyRange::of(vec![Span { lo: Bound::Excluded(null), hi: Bound::Excluded(empty.clone()) }, Span { lo: Bound::Excluded(empty), hi: Bound::Unbounded }]));
        }
        Op::NotEqual => {
            // Every key but the value's, where the value's key holds exactly its records (as for `Equal`).
            let exact = match &f.value {
                Value::Number(n) => numeric && n.as_i64().is_some(),
                Value::String(s) => !numeric && !matches!(kind, FieldKind::Decimal) && s.len() < crate::codec::MAX_INDEXED_BYTES,
                _ => false,
            };
            if !exact {
                return None;
            }
            let k = index_bytes(&f.value);
            return Some(KeyRange::of(vec![Span { lo: Bound::Unbounded, hi: Bound::Excluded(k.clone()) }, Span { lo: Bound::Excluded(k), hi: Bound::Unbounded }]));
        }
        Op::StartsWith => {
            let Value::String(p) = &f.value else { return None };
            if !matches!(kind, FieldKind::Text | FieldKind::Date) || p.len() > PREFIX_MAX {
                return None;
            }
            let choices = case_choices(p)?;
            // The lowest variant's value up to past the highest's: every value starting with one lies between.
            let (lo, _) = prefix_stretch(&choices.iter().map(|c| c[0]).collect::<String>());
            let (_, hi) = prefix_stretch(&choices.iter().map(|c| c[c.len() - 1]).collect::<String>());
            return Some(KeyRange { spans: vec![Span { lo: Bound::Included(lo), hi: Bound::Excluded(hi) }], prefixes: vec![p.to_lowercase()] });
        }
        _ => return None,
    }
    let tag: u8 = match (kind, &f.value) {
        (FieldKind::Date, Value::String(v)) if v.len() < crate::codec::MAX_INDEXED_BYTES => 3,
        (_, Value::Number(n)) if numeric && n.as_i64().is_some() => 2,
        _ => return None,
    };
    let v = index_bytes(&f.value);
    let (first, past) = (vec![tag], vec![tag + 1]);
    Some(match f.op {
        Op::Ge => KeyRange::one(Bound::Included(v), Bound::Excluded(past)),
        Op::Gt => KeyRange::one(Bound::Excluded(v), Bound::Excluded(past)),
        Op::Le => KeyRange::one(Bound::Included(first), Bound::Included(v)),
        _ => KeyRange::one(Bound::Included(first), Bound::Excluded(v)),
    })
}

/// The characters a value's character must be to start with `p` once both are lower-cased (`Filter::matches`'
/// test for `StartsWith`), position by position, in byte order: a character no case mapping touches stands for
/// itself (Chinese, digits, punctuation: no other character lower-cases to it), an ASCII letter for its two cases —
/// and `k` also for the Kelvin sign, a last `i` also for `İ` (whose lower case is `i` and a combining dot), the
/// only other characters whose lower case begins with an ASCII letter. `None` for any other letter (the list
/// walks).
fn case_choices(p: &str) -> Option<Vec<Vec<char>>> {
    let n = p.chars().count();
    p.chars()
        .enumerate()
        .map(|(i, c)| {
            if caseless(c) {
                Some(vec![c])
            } else if c.is_ascii_alphabetic() {
                let mut v = vec![c.to_ascii_uppercase(), c.to_ascii_lowercase()];
                match c.to_ascii_lowercase() {
                    'k' => v.push('\u{212a}'),
                    'i' if i + 1 == n => v.push('\u{130}'),
                    _ => {}
                }
                v.sort_unstable_by_key(|c| c.to_string().into_bytes());
                Some(v)
            } else {
                None
            }
        })
        .collect()
}

/// A character lower- and upper-casing leave alone, that serde_json writes verbatim, and that is not the
/// combining dot `İ` lower-cases into: no other character's lower case holds it (tested over all of Unicode).
fn caseless(c: char) -> bool {
    !c.is_control()
        && c != '"'
        && c != '\\'
        && c != '\u{307}'
        && c.to_lowercase().eq(std::iter::once(c))
        && c.to_uppercase().eq(std::iter::once(c))
}

/// The index keys of one field of a record: one per id for a `multi` field, else the value itself.
fn index_values(def: &ResourceDef, name: &str, doc: &Map<String, Value>) -> Vec<Vec<u8>> {
    let v = doc.get(name).unwrap_or(&Value::Null);
    if def.field(name).is_some_and(|f| f.multi) {
        let ids: Vec<Vec<u8>> = match v {
            Value::String(s) => s.split(',').filter_map(|p| p.trim().parse::<u64>().ok()).map(|id| index_bytes(&Value::from(id))).collect(),
            Value::Number(n) => n.as_u64().map(|id| vec![index_bytes(&Value::from(id))]).unwrap_or_default(),
            _ => Vec::new(),
        };
        let mut ids = ids;
        ids.sort();
        ids.dedup();
        if ids.is_empty() { vec![index_bytes(&Value::Null)] } else { ids }
    } else {
        vec![index_bytes(v)]
    }
}

/// An index range is exact for a value only when the value was not cut when indexed.
fn index_exact(def: &ResourceDef, f: &Filter) -> bool {
    match &f.value {
        Value::String(s) => {
            s.len() < crate::codec::MAX_INDEXED_BYTES
                && !def.field(&f.field).is_some_and(|fd| matches!(fd.kind, FieldKind::Int | FieldKind::Long | FieldKind::Flag | FieldKind::Money | FieldKind::Qty))
        }
        Value::Number(_) => true,
        _ => false,
    }
}

/// A stored record decoded for `Query::accepts` (or for a search document, `ReadCtx::for_each_fields`): only the
/// `names` fields when given (`Query::tested_fields`) and the bytes read so, else whole.
pub(crate) fn tested_doc(names: Option<&[&str]>, raw: &[u8]) -> Result<Map<String, Value>> {
    match names.map(|names| (names, crate::codec::stored_subset(raw, names))) {
        Some((_, Some(doc))) => Ok(doc),
        // A packed record: unpacked, then read in place the same way; else (not as serde_json writes) decoded whole,
        // then only the names kept.
        Some((names, None)) => {
            let plain = crate::codec::unpacked(raw)?;
            if let std::borrow::Cow::Owned(plain) = &plain
                && let Some(doc) = crate::codec::stored_subset(plain, names) {
                return Ok(doc);
            }
            let mut doc = decode_record(&plain)?;
            if !names.is_empty() {
                doc.retain(|k, _| names.contains(&k.as_str()));
            }
            Ok(doc)
        }
        None => decode_record(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::{case_choices, caseless, intersect};

    #[test]
    fn intersect_merges_or_gallops_to_the_same_ids() {
        let evens: Vec<u64> = (0..10_000).map(|i| i * 2).collect();
        let threes: Vec<u64> = (0..7_000).map(|i| i * 3).collect();
        let want: Vec<u64> = (0..20_000).filter(|i| i % 6 == 0 && *i < 20_000 && *i < 21_000).collect();
        assert_eq!(intersect(&evens, &threes), want, "merge");
        assert_eq!(intersect(&threes, &evens), want, "either order");
        let few = [1u64, 4, 5, 600, 19_998, 19_999, 40_000];
        assert_eq!(intersect(&few, &evens), vec![4, 600, 19_998], "gallop");
        assert_eq!(intersect(&evens, &few), vec![4, 600, 19_998], "gallop, either order");
        assert!(intersect(&[], &evens).is_empty() && intersect(&evens, &[]).is_empty());
    }

    /// What `case_choices` and `caseless` rest on, over every character: no character lower-cases to a
    /// character casing leaves alone other than itself, and only the ASCII letters, the Kelvin sign and `İ`
    /// lower-case to something beginning with an ASCII letter (`İ` to `i` and the combining dot).
    #[test]
    fn case_mappings_are_what_prefix_ranges_assume() {
        for c in (0..=0x10ffffu32).filter_map(char::from_u32) {
            let lower: Vec<char> = c.to_lowercase().collect();
            for y in &lower {
                assert!(!caseless(*y) || *y == c, "{c:?} lower-cases into {y:?}");
            }
            if lower[0].is_ascii_alphabetic() && !c.is_ascii_alphabetic() {
                assert!(c == '\u{212a}' || (c == '\u{130}' && lower == ['i', '\u{307}']), "{c:?} lower-cases to {lower:?}");
            }
        }
        assert_eq!(case_choices("k1").unwrap(), vec![vec!['K', 'k', '\u{212a}'], vec!['1']]);
        assert_eq!(case_choices("项ii").unwrap(), vec![vec!['项'], vec!['I', 'i'], vec!['I', 'i', '\u{130}']]);
        assert!(case_choices("é").is_none(), "other letters walk");
    }
}
