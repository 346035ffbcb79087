//! The writer's side of the record engine: insert, update, soft delete, purge and records moved as they are,
//! each keeping the secondary indexes, unique keys and counters in step inside the caller's transaction, and
//! reconciling an index with a changed declaration.
use redb::ReadableTable;
use serde_json::{Map, Value};

use super::{Tables, index_values, storage_tenant};
use crate::codec::{decode_record, encode_for};
use crate::error::{Result, StoreError};
use crate::resource::ResourceDef;
use crate::tables;
use crate::wal::Logged;
use crate::{Actor, now_millis};

/// Records checked per field the index already holds when bringing it in line (`reconcile_index`): the oldest, the
/// newest and evenly spaced ids between — one seek each, so every start can afford it.
const INDEX_SAMPLES: u64 = 16;

/// The tables a write transaction changes, each recording its changes for the write-ahead log (`wal`).
pub type WriteTables<'t> = Tables<
    Logged<'t, tables::RecK, &'static [u8]>,
    Logged<'t, tables::IdxK, ()>,
    Logged<'t, tables::UniqueK, u64>,
    Logged<'t, tables::PairK, u64>,
>;

/// Writes within one transaction. Every check happens before the first change, and the group-commit writer
/// re-runs a batch without an operation that failed, so a refused operation never leaves a partial write.
pub struct RecordWriter<'t> {
    pub tables: WriteTables<'t>,
    pub deleted: Logged<'t, tables::RecK, &'static [u8]>,
    /// Keys (tenant, resource, id) of the records this transaction changed, live or deleted (an online backup
    /// copies them again).
    pub changed: Vec<(String, String, u64)>,
    /// The changed records of searchable resources: the writer numbers them into the change log.
    pub logged: Vec<(String, String, u64)>,
    /// The formats records are written in (`codec::Packs`: what the file's format allows).
    pub packs: crate::codec::Packs,
}

impl RecordWriter<'_> {
    pub fn insert(
        &mut self,
        def: &ResourceDef,
        tenant: &str,
        id: u64,
        mut doc: Map<String, Value>,
        actor: &Actor,
    ) -> Result<Map<String, Value>> {
        let t = storage_tenant(def, tenant);
        self.check_unique(def, t, &doc, None)?;
        let now = actor.at.unwrap_or_else(now_millis);
        doc.insert("id".into(), id.into());
        // A platform resource may declare `tenantId` as its own data (the tenants table does).
        if def.field("tenantId").is_none() {
            doc.insert("tenantId".into(), t.into());
        }
        doc.insert("createUser".into(), actor.user_id.into());
        doc.insert("createDept".into(), actor.dept_id.into());
        doc.insert("createTime".into(), now.into());
        doc.insert("updateUser".into(), actor.user_id.into());
        doc.insert("updateTime".into(), now.into());
        if doc.get("status").is_none_or(Value::is_null) {
            doc.insert("status".into(), 1.into());
        }
        doc.insert("isDeleted".into(), 0.into());
        self.tables.records.insert((t, def.name.as_str(), id), encode_for(def, &doc, self.packs)?.as_slice())?;
        self.add_keys(def, t, id, &doc)?;
        self.bump(t, &def.name, 1)?;
        self.note(def, t, id);
        Ok(doc)
    }

    pub fn update(
        &mut self,
        def: &ResourceDef,
        tenant: &str,
        id: u64,
        patch: Map<String, Value>,
        actor: &Actor,
    ) -> Result<Map<String, Value>> {
        let old = self.tables.get(def, tenant, id)?.ok_or(StoreError::NotFound)?;
        self.update_from(def, tenant, id, old, patch, actor)
    }

    /// `update` of a record the caller has just read in this transaction and not written since (`old`, exactly
    /// as stored): the record is not read and decoded a second time. A stale `old` would leave wrong index
    /// entries, so debug builds check it against the stored record.
    pub fn update_from(
        &mut self,
        def: &ResourceDef,
        tenant: &str,
        id: u64,
        old: Map<String, Value>,
        patch: Map<String, Value>,
        actor: &Actor,
    ) -> Result<Map<String, Value>> {
        debug_assert_eq!(self.tables.get(def, tenant, id).ok().flatten().as_ref(), Some(&old), "update_from with a stale record");
        let t = storage_tenant(def, tenant);
        let mut doc = old.clone();
        for (k, v) in patch {
            doc.insert(k, v);
        }
        doc.insert("updateUser".into(), actor.user_id.into());
        doc.insert("updateTime".into(), actor.at.unwrap_or_else(now_millis).into());
        // A unique value the update leaves as it was is still this record's (a stock balance keeps its key).
        self.check_unique(def, t, &doc, Some((id, &old)))?;
        // Only the index entries and unique keys whose values changed are rewritten (a stock balance changes
        // its quantities, not its goods or bin).
        change_keys(&mut self.tables.index, &mut self.tables.unique, def, t, id, &old, &doc)?;
        // A record moving between the values of an indexed field shifts the ranks within both: the rank marks of
        // that field are made again (`rank`).
        let moved: Vec<String> = def.indexed_fields().filter(|n| old.get(*n) != doc.get(*n)).map(|n| super::rank::moved_key(&def.name, n)).collect();
        for key in moved {
            self.bump(t, &key, 1)?;
        }
        self.tables.records.insert((t, def.name.as_str(), id), encode_for(def, &doc, self.packs)?.as_slice())?;
        // The search index holds the searched fields only: an update that leaves them alone is not logged.
        let searched_changed = def.search_fields().any(|f| old.get(&f.name) != doc.get(&f.name));
        self.changed.push((t.to_string(), def.name.clone(), id));
        if def.searchable() && searched_changed {
            self.logged.push((t.to_string(), def.name.clone(), id));
        }
        Ok(doc)
    }

    /// Soft delete: the record moves to the deleted table with `isDeleted = 1`. Returns how many were live.
    pub fn remove(&mut self, def: &ResourceDef, tenant: &str, ids: &[u64], actor: &Actor) -> Result<u64> {
        let t = storage_tenant(def, tenant);
        let mut n = 0;
        for &id in ids {
            let Some(mut doc) = self.tables.get(def, tenant, id)? else { continue };
            self.remove_keys(def, t, id, &doc)?;
            self.tables.records.remove((t, def.name.as_str(), id))?;
            doc.insert("isDeleted".into(), 1.into());
            doc.insert("updateUser".into(), actor.user_id.into());
            doc.insert("updateTime".into(), actor.at.unwrap_or_else(now_millis).into());
            self.deleted.insert((t, def.name.as_str(), id), encode_for(def, &doc, self.packs)?.as_slice())?;
            self.note(def, t, id);
            n += 1;
        }
        self.bump(t, &def.name, -(n as i64))?;
        // Removals shift the ranks of what follows: the rank marks of readers are made again (`rank`).
        self.bump(t, &super::rank::removed_key(&def.name), n as i64)?;
        Ok(n)
    }

    /// Stores a record exactly as given (its id and audit columns kept: a record moved from another file), with
    /// its keys and count. A record already there under that id is left alone: false.
    pub fn put_as_is(&mut self, def: &ResourceDef, tenant: &str, doc: &Map<String, Value>) -> Result<bool> {
        let t = storage_tenant(def, tenant);
        let id = doc.get("id").and_then(Value::as_u64).ok_or_else(|| StoreError::invalid("id", crate::FieldProblem::Required))?;
        if self.tables.records.get((t, def.name.as_str(), id))?.is_some() {
            return Ok(false);
        }
        self.check_unique(def, t, doc, None)?;
        self.tables.records.insert((t, def.name.as_str(), id), encode_for(def, doc, self.packs)?.as_slice())?;
        self.add_keys(def, t, id, doc)?;
        self.bump(t, &def.name, 1)?;
        // An old id in the middle of the list shifts what follows, as a removal does.
        self.bump(t, &super::rank::removed_key(&def.name), 1)?;
        self.note(def, t, id);
        Ok(true)
    }

    /// Hard delete of the oldest live records (ids below `before`, at most `max`): retention of logs, so the data
    /// file does not grow without bound. Nothing moves to the deleted table. Returns how many went.
    pub fn purge_before(&mut self, def: &ResourceDef, tenant: &str, before: u64, max: usize) -> Result<u64> {
        let t = storage_tenant(def, tenant);
        let mut doomed = Vec::new();
        for e in self.tables.records.range((t, def.name.as_str(), 0)..(t, def.name.as_str(), before))? {
            let (k, v) = e?;
            doomed.push((k.value().2, decode_record(v.value())?));
            if doomed.len() >= max {
                break;
            }
        }
        for (id, doc) in &doomed {
            self.remove_keys(def, t, *id, doc)?;
            self.tables.records.remove((t, def.name.as_str(), *id))?;
            self.note(def, t, *id);
        }
        let n = doomed.len() as u64;
        self.bump(t, &def.name, -(n as i64))?;
        self.bump(t, &super::rank::removed_key(&def.name), n as i64)?;
        Ok(n)
    }

    /// Hard-deletes up to `max` of the oldest records (in id order, after the id `after`) that `doomed` picks,
    /// examining at most `scan` records; returns how many went and the id to go on after (None: none left).
    pub fn purge_where(&mut self, def: &ResourceDef, tenant: &str, after: u64, max: usize, scan: usize, doomed: &dyn Fn(&Map<String, Value>) -> bool) -> Result<(u64, Option<u64>)> {
        let t = storage_tenant(def, tenant);
        let mut picked = Vec::new();
        let mut seen = 0usize;
        let mut next = None;
        if after == u64::MAX {
            return Ok((0, None));
        }
        for e in self.tables.records.range((t, def.name.as_str(), after + 1)..=(t, def.name.as_str(), u64::MAX))? {
            let (k, v) = e?;
            if seen >= scan || picked.len() >= max {
                break;
            }
            seen += 1;
            let id = k.value().2;
            next = Some(id);
            let doc = decode_record(v.value())?;
            if doomed(&doc) {
                picked.push((id, doc));
            }
        }
        // Stopped before the end: go on after the last one examined; at the end: nothing left.
        let at_end = seen < scan && picked.len() < max;
        let next = if at_end { None } else { next };
        for (id, doc) in &picked {
            self.remove_keys(def, t, *id, doc)?;
            self.tables.records.remove((t, def.name.as_str(), *id))?;
            self.note(def, t, *id);
        }
        let n = picked.len() as u64;
        self.bump(t, &def.name, -(n as i64))?;
        self.bump(t, &super::rank::removed_key(&def.name), n as i64)?;
        Ok((n, next))
    }

    /// Brings a resource's secondary index in line with its declaration, for a file written by a version whose
    /// declaration indexed other fields: entries of fields no longer indexed are removed, a newly indexed field
    /// gets an entry for every live record. Every record has an entry for every indexed field (null included), so
    /// the fields a tenant's index holds are read from the index itself — and a field found there is checked
    /// against records spread over the whole id range (`INDEX_SAMPLES`): a record written with the new declaration
    /// before this ran (an upgrade step, an offline tool) gives the field entries while every older record lacks
    /// them, and a field only some records have is filled like a missing one. Returns (entries removed, added).
    pub fn reconcile_index(&mut self, def: &ResourceDef) -> Result<(u64, u64)> {
        let res = def.name.as_str();
        let tenants = self.tenants_of(res)?;
        // Fields by name; the index holds them under their `index_key`.
        let want: Vec<&str> = def.indexed_fields().collect();
        let keys: Vec<&str> = want.iter().map(|f| def.index_key(f)).collect();
        let (mut removed, mut added) = (0u64, 0u64);
        for t in &tenants {
            let t = t.as_str();
            // The fields present (their keys), one seek each.
            let mut stored: Vec<String> = Vec::new();
            let mut from = String::new();
            loop {
                let next = match self.tables.index.range((t, res, from.as_str(), &[][..], 0u64)..)?.next() {
                    Some(e) => {
                        let (k, _) = e?;
                        let k = k.value();
                        (k.0 == t && k.1 == res).then(|| k.2.to_string())
                    }
                    None => None,
                };
                let Some(f) = next else { break };
                from = format!("{f}\0");
                stored.push(f);
            }
            for f in stored.iter().filter(|f| !keys.contains(&f.as_str())) {
                removed += self.remove_index_key(t, res, f)?;
            }
            let mut missing: Vec<&str> = want.iter().copied().filter(|f| !stored.iter().any(|s| s == def.index_key(f))).collect();
            for f in self.partly_indexed(def, t, &want, &missing)? {
                missing.push(f);
            }
            if missing.is_empty() {
                continue;
            }
            let mut entries: Vec<(&str, Vec<u8>, u64)> = Vec::new();
            for e in self.tables.records.range((t, res, 0)..=(t, res, u64::MAX))? {
                let (k, v) = e?;
                let doc = decode_record(v.value())?;
                for f in &missing {
                    for bytes in index_values(def, f, &doc) {
                        entries.push((f, bytes, k.value().2));
                    }
                }
            }
            for (f, bytes, id) in entries {
                if self.tables.index.insert((t, res, def.index_key(f), bytes.as_slice(), id), ())?.is_none() {
                    added += 1;
                }
            }
        }
        Ok((removed, added))
    }

    /// The tenants holding live records of `res` (its counter above zero).
    fn tenants_of(&self, res: &str) -> Result<Vec<String>> {
        let mut tenants = Vec::new();
        for e in self.tables.counters.iter()? {
            let (k, v) = e?;
            let (t, r) = k.value();
            if r == res && v.value() > 0 {
                tenants.push(t.to_string());
            }
        }
        Ok(tenants)
    }

    /// Moves at most `max` index entries of fields declared with an `index_key` from under their name to under
    /// that key: a file whose entries an earlier declaration stored by the field's name keeps them, renamed, and
    /// nothing is read from the records. Returns the number moved (0: none left under a name). Run in batches,
    /// each its own transaction, before `reconcile_index`, which would otherwise drop the entries and make them
    /// again from every record in one transaction. A key taken away again is not renamed back: the reconcile
    /// makes those entries anew.
    pub fn rename_index_keys(&mut self, def: &ResourceDef, max: usize) -> Result<u64> {
        let res = def.name.as_str();
        // (where the entries are without the declared key, where they go)
        let renamed: Vec<(&str, &str)> =
            def.indexed_keys().map(|(name, ik)| (crate::resource::undeclared_index_key(name), ik)).filter(|(from, ik)| from != ik).collect();
        if renamed.is_empty() {
            return Ok(0);
        }
        let mut moved = 0usize;
        for t in &self.tenants_of(res)? {
            let t = t.as_str();
            for (from, ik) in &renamed {
                let entries: Vec<(Vec<u8>, u64)> = self
                    .tables
                    .index
                    .range((t, res, *from, &[][..], 0u64)..=(t, res, *from, super::INDEX_END, u64::MAX))?
                    .take(max - moved)
                    .map(|e| e.map(|(k, _)| (k.value().3.to_vec(), k.value().4)))
                    .collect::<std::result::Result<_, _>>()?;
                for (value, id) in &entries {
                    self.tables.index.insert((t, res, *ik, value.as_slice(), *id), ())?;
                    self.tables.index.remove((t, res, *from, value.as_slice(), *id))?;
                }
                moved += entries.len();
                if moved >= max {
                    return Ok(moved as u64);
                }
            }
        }
        Ok(moved as u64)
    }

    /// Removes every index entry of `def` stored under `key` (entries a field's key, or name, left behind that the
    /// declaration now gives another field), in every tenant; the reconcile then makes the field's entries anew.
    /// Returns the number removed.
    pub fn drop_index_key(&mut self, def: &ResourceDef, key: &str) -> Result<u64> {
        let res = def.name.as_str();
        let mut removed = 0;
        for t in &self.tenants_of(res)? {
            removed += self.remove_index_key(t, res, key)?;
        }
        Ok(removed)
    }

    /// Removes one tenant's index entries of `res` under `key`; returns how many.
    fn remove_index_key(&mut self, t: &str, res: &str, key: &str) -> Result<u64> {
        let end = format!("{key}\0");
        self.tables.index.remove_in((t, res, key, &[][..], 0u64)..(t, res, end.as_str(), &[][..], 0u64), |_, _| false)
    }

    /// The fields of `want` the index holds (not in `missing`) that some record spread over the id range lacks an
    /// entry of.
    fn partly_indexed<'f>(&self, def: &ResourceDef, t: &str, want: &[&'f str], missing: &[&str]) -> Result<Vec<&'f str>> {
        let res = def.name.as_str();
        let present: Vec<&'f str> = want.iter().copied().filter(|f| !missing.contains(f)).collect();
        if present.is_empty() {
            return Ok(Vec::new());
        }
        let mut ends = self.tables.records.range((t, res, 0)..=(t, res, u64::MAX))?;
        let first = ends.next().transpose()?.map(|(k, _)| k.value().2);
        let last = ends.next_back().transpose()?.map(|(k, _)| k.value().2).or(first);
        let (Some(first), Some(last)) = (first, last) else { return Ok(Vec::new()) };
        let mut partly: Vec<&'f str> = Vec::new();
        for k in 0..=INDEX_SAMPLES {
            let at = first + ((last - first) as u128 * k as u128 / INDEX_SAMPLES as u128) as u64;
            let Some(e) = self.tables.records.range((t, res, at)..=(t, res, u64::MAX))?.next() else { continue };
            let (key, v) = e?;
            let (id, doc) = (key.value().2, decode_record(v.value())?);
            for f in present.iter().copied() {
                if partly.contains(&f) {
                    continue;
                }
                for bytes in index_values(def, f, &doc) {
                    if self.tables.index.get((t, res, def.index_key(f), bytes.as_slice(), id))?.is_none() {
                        partly.push(f);
                        break;
                    }
                }
            }
        }
        Ok(partly)
    }

    /// Refuses a unique value another record holds. For an update, `me` is the record and what it held: a value
    /// the update leaves as it was is still its own and is not looked up.
    fn check_unique(&self, def: &ResourceDef, t: &str, doc: &Map<String, Value>, me: Option<(u64, &Map<String, Value>)>) -> Result<()> {
        for f in def.fields.iter().filter(|f| f.unique && me.is_none_or(|(_, old)| old.get(&f.name) != doc.get(&f.name))) {
            if let Some(v) = unique_text(doc.get(&f.name))
                && let Some(holder) = self.tables.unique.get((t, def.name.as_str(), f.name.as_str(), v.as_str()))?
                && Some(holder.value()) != me.map(|(id, _)| id) {
                return Err(StoreError::Duplicate { field: f.name.clone(), label: f.label.clone() });
            }
        }
        Ok(())
    }

    fn add_keys(&mut self, def: &ResourceDef, t: &str, id: u64, doc: &Map<String, Value>) -> Result<()> {
        put_keys(&mut self.tables.index, &mut self.tables.unique, def, t, id, doc)
    }

    fn remove_keys(&mut self, def: &ResourceDef, t: &str, id: u64, doc: &Map<String, Value>) -> Result<()> {
        drop_keys(&mut self.tables.index, &mut self.tables.unique, def, t, id, doc)
    }

    /// Notes a changed record (for backup) and, for a searchable resource, for the change log.
    fn note(&mut self, def: &ResourceDef, t: &str, id: u64) {
        self.changed.push((t.to_string(), def.name.clone(), id));
        if def.searchable() {
            self.logged.push((t.to_string(), def.name.clone(), id));
        }
    }

    fn bump(&mut self, t: &str, res: &str, delta: i64) -> Result<()> {
        if delta == 0 {
            return Ok(());
        }
        let cur = self.tables.counters.get((t, res))?.map(|v| v.value()).unwrap_or(0);
        let next = (cur as i64 + delta).max(0) as u64;
        self.tables.counters.insert((t, res), next)?;
        Ok(())
    }
}

fn unique_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) if s.is_empty() => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

type IndexTable<'t> = Logged<'t, tables::IdxK, ()>;
type UniqueTable<'t> = Logged<'t, tables::UniqueK, u64>;

/// Writes the index entries and unique keys of a stored record (in its file, or in a backup's copy).
pub(crate) fn put_keys(index: &mut IndexTable, unique: &mut UniqueTable, def: &ResourceDef, t: &str, id: u64, doc: &Map<String, Value>) -> Result<()> {
    let res = def.name.as_str();
    for (name, ik) in def.indexed_keys() {
        for bytes in index_values(def, name, doc) {
            index.insert((t, res, ik, bytes.as_slice(), id), ())?;
        }
    }
    for f in def.fields.iter().filter(|f| f.unique) {
        if let Some(v) = unique_text(doc.get(&f.name)) {
            unique.insert((t, res, f.name.as_str(), v.as_str()), id)?;
        }
    }
    Ok(())
}

/// Moves a record's index entries and unique keys from `old` to `new`, touching only the values that differ.
fn change_keys(index: &mut IndexTable, unique: &mut UniqueTable, def: &ResourceDef, t: &str, id: u64, old: &Map<String, Value>, new: &Map<String, Value>) -> Result<()> {
    let res = def.name.as_str();
    for (name, ik) in def.indexed_keys() {
        if old.get(name) == new.get(name) {
            continue;
        }
        let (before, after) = (index_values(def, name, old), index_values(def, name, new));
        for bytes in before.iter().filter(|b| !after.contains(b)) {
            index.remove((t, res, ik, bytes.as_slice(), id))?;
        }
        for bytes in after.iter().filter(|b| !before.contains(b)) {
            index.insert((t, res, ik, bytes.as_slice(), id), ())?;
        }
    }
    for f in def.fields.iter().filter(|f| f.unique) {
        let (a, b) = (unique_text(old.get(&f.name)), unique_text(new.get(&f.name)));
        if a == b {
            continue;
        }
        if let Some(v) = a {
            let key = (t, res, f.name.as_str(), v.as_str());
            if unique.get(key)?.is_some_and(|h| h.value() == id) {
                unique.remove(key)?;
            }
        }
        if let Some(v) = b {
            unique.insert((t, res, f.name.as_str(), v.as_str()), id)?;
        }
    }
    Ok(())
}

/// Removes what `put_keys` wrote for a record; a unique key only while it still names this record (in a
/// backup's copy another record may hold the value by then).
pub(crate) fn drop_keys(index: &mut IndexTable, unique: &mut UniqueTable, def: &ResourceDef, t: &str, id: u64, doc: &Map<String, Value>) -> Result<()> {
    let res = def.name.as_str();
    for (name, ik) in def.indexed_keys() {
        for bytes in index_values(def, name, doc) {
            index.remove((t, res, ik, bytes.as_slice(), id))?;
        }
    }
    for f in def.fields.iter().filter(|f| f.unique) {
        if let Some(v) = unique_text(doc.get(&f.name)) {
            let key = (t, res, f.name.as_str(), v.as_str());
            if unique.get(key)?.is_some_and(|h| h.value() == id) {
                unique.remove(key)?;
            }
        }
    }
    Ok(())
}

