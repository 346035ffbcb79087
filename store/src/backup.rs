//! Online backup, verification and compaction. A backup copies the live file's tables into a new file in
//! short read transactions (see `backup`), verifies that file, syncs it and renames it into place: the live
//! file is never copied byte-wise and never pinned for the length of the copy.
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs::File;
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

use redb::{Database, Durability, ReadTransaction, ReadableDatabase, ReadableTable, TableDefinition};
use serde::Serialize;

use crate::codec::decode_record;
use crate::engine::{drop_keys as remove_keys, put_keys as add_keys};
use crate::wal::Logged;
use crate::error::{Result, StoreError};
use crate::resource::ResourceDef;
use crate::writer::WriterHandle;
use crate::{Inner, meta, tables};

#[derive(Debug, Clone, Serialize)]
pub struct TableCount {
    pub name: &'static str,
    pub rows: u64,
    /// Bytes of keys and values, of the tree's own metadata, and left unused in its pages.
    pub stored_bytes: u64,
    pub metadata_bytes: u64,
    pub fragmented_bytes: u64,
    pub pages: u64,
}

/// Space in a data file: its length, the bytes its pages hold, and what is free for reuse (or returned by
/// `zhizhuang compact`).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct FileSpace {
    pub file_bytes: u64,
    /// Pages in use (data, indexes and the engine's own metadata).
    pub allocated_bytes: u64,
    /// Bytes of keys and values stored.
    pub stored_bytes: u64,
    /// Free inside the file: reused by later writes; `compact` gives it back to the disk.
    pub free_bytes: u64,
}

/// The space of `db`'s file at `path`, read from a write transaction that is then aborted (redb's statistics
/// live there); call it where no other write is under way.
pub(crate) fn space(db: &Database, path: &Path) -> Result<FileSpace> {
    let w = db.begin_write()?;
    let st = w.stats()?;
    w.abort()?;
    let file_bytes = std::fs::metadata(path)?.len();
    let allocated_bytes = st.allocated_pages() * st.page_size() as u64;
    Ok(FileSpace { file_bytes, allocated_bytes, stored_bytes: st.stored_bytes(), free_bytes: file_bytes.saturating_sub(allocated_bytes) })
}

/// `space` of a live file from a snapshot, without the writer: every table's pages (what they store, their
/// metadata and the unused parts of their pages). Leaves out only redb's own small trees and the pages freed by the
/// last commits that are not reusable yet. A walk of every table — seconds on a large file not in memory — so the
/// writer must not run it: writes would wait the whole walk.
pub(crate) fn space_of_snapshot(r: &redb::ReadTransaction, path: &Path) -> Result<FileSpace> {
    let (allocated_bytes, stored_bytes) = in_use(r)?;
    let file_bytes = std::fs::metadata(path)?.len().max(allocated_bytes);
    Ok(FileSpace { file_bytes, allocated_bytes, stored_bytes, free_bytes: file_bytes - allocated_bytes })
}

/// The bytes a snapshot's tables take in pages (data, tree and unused room in them), and of those the data.
pub(crate) fn in_use(r: &redb::ReadTransaction) -> Result<(u64, u64)> {
    use redb::ReadableTableMetadata;
    let (mut allocated_bytes, mut stored_bytes) = (0u64, 0u64);
    for t in r.list_tables()? {
        let st = r.open_untyped_table(t)?.stats()?;
        allocated_bytes += st.stored_bytes() + st.metadata_bytes() + st.fragmented_bytes();
        stored_bytes += st.stored_bytes();
    }
    Ok((allocated_bytes, stored_bytes))
}

/// Opens a data file no process holds for one tool's pass, with a small page cache: redb's default (1 GiB) made
/// `verify` of a 1.3 GB file (and the restore that verifies) peak at 1.5 GB of memory on a modest machine.
pub(crate) fn open_offline(path: &Path, cache_bytes: usize) -> Result<Database> {
    Ok(Database::builder().set_cache_size(cache_bytes).open(path)?)
}

/// Bytes free for this user on the file system holding `path` (None where it cannot be told).
pub(crate) fn free_space(path: &Path) -> Option<u64> {
    let st = rustix::fs::statvfs(path).ok()?;
    Some(st.f_bavail.saturating_mul(st.f_frsize))
}

/// Compacts a data file no process holds, giving free space back to the disk. Returns the space before and after.
pub fn compact_file(path: &Path) -> Result<(FileSpace, FileSpace)> {
    let mut db = open_offline(path, 128 << 20)?;
    let before = space(&db, path)?;
    for t in tables::ALL {
        (t.repack)(&db, free_space(path))?;
    }
    while db.compact().map_err(|e| StoreError::Storage(e.to_string()))? {}
    Ok((before, space(&db, path)?))
}

#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    pub ok: bool,
    pub space: FileSpace,
    pub schema_version: u32,
    pub tables: Vec<TableCount>,
    /// Live records per resource, summed over tenants.
    pub resources: BTreeMap<String, u64>,
    pub problems: Vec<String>,
    /// The change log's last sequence number (what a search index beside the file should hold).
    pub change_seq: u64,
}

/// Keys changed while an online backup copies: the writer adds every committed change here while a backup runs.
#[derive(Default)]
pub(crate) struct Changes {
    records: HashSet<(String, String, u64)>,
    files: HashSet<(String, u64)>,
}

impl Changes {
    fn len(&self) -> usize {
        self.records.len() + self.files.len()
    }
}

/// Called by the writer after each commit with the keys it changed.
pub(crate) fn note_changes(inner: &Inner, records: Vec<(String, String, u64)>, files: Vec<(String, u64)>) {
    if records.is_empty() && files.is_empty() {
        return;
    }
    if let Ok(mut g) = inner.changes.lock()
        && let Some(c) = g.as_mut() {
        c.records.extend(records);
        c.files.extend(files);
    }
}

/// Stops change tracking when the backup ends, however it ends.
struct Tracking<'a>(&'a Inner);

impl Drop for Tracking<'_> {
    fn drop(&mut self) {
        if let Ok(mut g) = self.0.changes.lock() {
            *g = None;
        }
    }
}

/// Resolves a resource name to its declaration (the index entries of a copied record come from it).
pub type Defs<'a> = &'a dyn Fn(&str) -> Option<Arc<ResourceDef>>;

/// Records (or entries) copied per read transaction: a transaction lives milliseconds, so the live file can
/// reuse the pages its commits free while the backup runs.
const CHUNK: usize = 5_000;
/// Changed keys left over after which the final, consistent pass runs.
const FINAL_AT: usize = 5_000;

/// Online backup. The live file is never pinned for long: records, deleted records and stored files are copied
/// in chunks of short read transactions while the writer notes every key it changes; those keys are copied
/// again (rounds until few are left), and a last pass run on the writer thread between two commits copies the
/// remaining changed keys and the small tables (settings, sessions, counters) from one snapshot, so the backup
/// is exactly the state at that moment. Index entries and unique keys are rebuilt from the records and their
/// declarations (copied as they are for records with no declaration). The new file is compacted, verified,
/// synced and renamed into place.
pub(crate) fn backup(inner: &Inner, writer: &WriterHandle, out: &Path, defs: Defs) -> Result<(VerifyReport, u64, Option<i64>)> {
    let tmp = out.with_extension("partial");
    let _ = std::fs::remove_file(&tmp);
    let r = (|| -> Result<(u64, Option<i64>)> {
        if let Ok(mut g) = inner.changes.lock() {
            *g = Some(Changes::default());
        }
        let _tracking = Tracking(inner);
        let mut dst = Database::builder().create(&tmp)?;
        {
            let w = dst.begin_write()?;
            tables::create_all(&w)?;
            w.commit()?;
        }
        let mut undeclared: BTreeSet<(String, String)> = BTreeSet::new();
        copy_records(inner, &dst, tables::RECORDS, Some(defs), &mut undeclared)?;
        copy_records(inner, &dst, tables::DELETED, None, &mut undeclared)?;
        copy_chunks(inner, &dst)?;
        // Catch up with what changed meanwhile, until little is left.
        for _ in 0..50 {
            let pending = inner.changes.lock().ok().and_then(|mut g| g.as_mut().map(std::mem::take)).unwrap_or_default();
            if pending.len() < FINAL_AT {
                if let Ok(mut g) = inner.changes.lock()
                    && let Some(c) = g.as_mut() {
                    c.records.extend(pending.records);
                    c.files.extend(pending.files);
                }
                break;
            }
            // A fresh snapshot per chunk of keys: none is held for long (what changes after it is noted again).
            let mut records: Vec<_> = pending.records.into_iter().collect();
            records.sort();
            let mut files: Vec<_> = pending.files.into_iter().collect();
            files.sort();
            while !records.is_empty() || !files.is_empty() {
                let part = Changes {
                    records: records.drain(..records.len().min(CHUNK)).collect(),
                    files: files.drain(..files.len().min(64)).collect(),
                };
                let got = fetch(&inner.begin_read()?, part)?;
                apply(&dst, got, defs, &mut undeclared)?;
            }
        }
        // The consistent cut: a snapshot and the changes up to it, taken between two commits.
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        // The log position the snapshot holds exactly (every record up to it is committed, none after).
        let position = |inner: &Inner| inner.wal.lock().ok().and_then(|g| g.as_ref().map(|w| w.seq)).unwrap_or(0);
        let ok = writer.run(Box::new(move |inner: &Inner| {
            let snap = inner.begin_read();
            let changes = inner.changes.lock().ok().and_then(|mut g| g.take()).unwrap_or_default();
            let _ = tx.send(snap.map(|s| (s, changes, position(inner))));
        }));
        let (snap, changes, seq) = if ok {
            rx.recv().map_err(|_| StoreError::Closed)??
        } else {
            // No writer (the store is closing): nothing changes any more.
            let changes = inner.changes.lock().ok().and_then(|mut g| g.take()).unwrap_or_default();
            (inner.begin_read()?, changes, position(inner))
        };
        apply(&dst, fetch(&snap, changes)?, defs, &mut undeclared)?;
        // The cut's moment: the commit time of the last record it holds (records' times never go back).
        let cut_ms = snap.open_table(tables::META)?.get(crate::ship::COMMIT_MS)?.and_then(|v| v.value().try_into().ok().map(i64::from_be_bytes));
        let w = dst.begin_write()?;
        tables::copy_table(&snap, &w, tables::META)?;
        {
            // The copy is another file: it gets its own write-ahead log identity when first opened.
            let mut meta = w.open_table(tables::META)?;
            meta.remove(crate::wal::META_ID)?;
            meta.remove(crate::wal::META_SEQ)?;
            // Its index entries were made from the declarations given here, not copied: the source's layout does
            // not describe them (a binary with other index keys would trust it and miss every entry).
            meta.remove(crate::meta::INDEX_LAYOUT)?;
        }
        tables::copy_table(&snap, &w, tables::SESSIONS)?;
        tables::copy_table(&snap, &w, tables::COUNTERS)?;
        {
            let (src_index, src_unique) = (snap.open_table(tables::INDEX)?, snap.open_table(tables::UNIQUE)?);
            let (mut index, mut unique) = (w.open_table(tables::INDEX)?, w.open_table(tables::UNIQUE)?);
            for (t, res) in &undeclared {
                let lo: (&str, &str, &str, &[u8], u64) = (t, res, "", &[], 0);
                for e in src_index.range(lo..)? {
                    let (k, _) = e?;
                    let k = k.value();
                    if k.0 != t || k.1 != res {
                        break;
                    }
                    index.insert(k, ())?;
                }
                for e in src_unique.range((t.as_str(), res.as_str(), "", "")..)? {
                    let (k, v) = e?;
                    let k = k.value();
                    if k.0 != t || k.1 != res {
                        break;
                    }
                    unique.insert(k, v.value())?;
                }
            }
        }
        w.commit()?;
        drop(snap);
        while dst.compact().map_err(|e| StoreError::Storage(e.to_string()))? {}
        Ok((seq, cut_ms))
    })();
    let (seq, cut_ms) = match r {
        Ok(x) => x,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    let report = verify_file(&tmp)?;
    if !report.ok {
        let _ = std::fs::remove_file(&tmp);
        return Err(StoreError::Storage(format!("backup failed verification: {:?}", report.problems)));
    }
    File::open(&tmp)?.sync_all()?;
    std::fs::rename(&tmp, out)?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = File::open(dir).and_then(|d| d.sync_all());
    }
    Ok((report, seq, cut_ms))
}

/// A whole copy of a file nobody writes to yet (before a migration, at open): every table from one snapshot, with
/// a small page cache (the logs' file may be 2 GB). `Ok(false)`, nothing written, when the disk has less than
/// `need` bytes free (the caller's measure: what the file holds in use, `in_use`, and a tenth more at least).
pub(crate) fn copy_aside(db: &Database, out: &Path, fs: &dyn crate::fs::Fs, need: u64) -> Result<bool> {
    let tmp = out.with_extension("partial");
    let _ = std::fs::remove_file(&tmp);
    {
        let snap = db.begin_read()?;
        if fs.free_space(&crate::fs::dir_of(out)).is_some_and(|free| free < need) {
            return Ok(false);
        }
        let dst = Database::builder().set_cache_size(32 << 20).create(&tmp)?;
        let w = dst.begin_write()?;
        for t in tables::ALL {
            (t.copy)(&snap, &w)?;
        }
        // Another file: it gets its own write-ahead log identity when opened.
        {
            let mut meta = w.open_table(tables::META)?;
            meta.remove(crate::wal::META_ID)?;
            meta.remove(crate::wal::META_SEQ)?;
        }
        w.commit()?;
    }
    File::open(&tmp)?.sync_all()?;
    std::fs::rename(&tmp, out)?;
    Ok(true)
}

type RecTable = TableDefinition<'static, crate::tables::RecK, &'static [u8]>;

/// Copies a record table in chunks, one short read transaction each; with `defs`, also the index entries and
/// unique keys of each record (resources without a declaration are noted in `undeclared`).
fn copy_records(
    inner: &Inner,
    dst: &Database,
    table: RecTable,
    defs: Option<Defs>,
    undeclared: &mut BTreeSet<(String, String)>,
) -> Result<()> {
    let mut after: Option<(String, String, u64)> = None;
    loop {
        let mut rows: Vec<((String, String, u64), Vec<u8>)> = Vec::with_capacity(CHUNK);
        {
            let snap = inner.begin_read()?;
            let src = snap.open_table(table)?;
            let range = match &after {
                Some((t, r, id)) => src.range::<(&str, &str, u64)>((Bound::Excluded((t.as_str(), r.as_str(), *id)), Bound::Unbounded))?,
                None => src.range::<(&str, &str, u64)>(..)?,
            };
            for e in range.take(CHUNK) {
                let (k, v) = e?;
                let (t, r, id) = k.value();
                rows.push(((t.to_string(), r.to_string(), id), v.value().to_vec()));
            }
        }
        let Some(last) = rows.last().map(|(k, _)| k.clone()) else { return Ok(()) };
        let mut w = dst.begin_write()?;
        w.set_durability(Durability::None)?;
        {
            let mut out = w.open_table(table)?;
            let mut index = Logged::plain(w.open_table(tables::INDEX)?);
            let mut unique = Logged::plain(w.open_table(tables::UNIQUE)?);
            let mut cache: Option<(String, Option<Arc<ResourceDef>>)> = None;
            for ((t, r, id), v) in &rows {
                out.insert((t.as_str(), r.as_str(), *id), v.as_slice())?;
                let Some(defs) = defs else { continue };
                if cache.as_ref().is_none_or(|(name, _)| name != r) {
                    cache = Some((r.clone(), defs(r)));
                }
                match cache.as_ref().and_then(|(_, d)| d.as_ref()) {
                    Some(def) => add_keys(&mut index, &mut unique, def, t, *id, &decode_record(v)?)?,
                    None => {
                        undeclared.insert((t.clone(), r.clone()));
                    }
                }
            }
        }
        w.commit()?;
        after = Some(last);
    }
}

/// Stored files' chunks, in short read transactions.
fn copy_chunks(inner: &Inner, dst: &Database) -> Result<()> {
    let mut after: Option<(String, u64, u32)> = None;
    loop {
        let mut rows: Vec<((String, u64, u32), Vec<u8>)> = Vec::new();
        let mut bytes = 0usize;
        {
            let snap = inner.begin_read()?;
            let src = snap.open_table(tables::FILE_CHUNKS)?;
            let range = match &after {
                Some((t, f, i)) => src.range::<(&str, u64, u32)>((Bound::Excluded((t.as_str(), *f, *i)), Bound::Unbounded))?,
                None => src.range::<(&str, u64, u32)>(..)?,
            };
            for e in range {
                let (k, v) = e?;
                let (t, f, i) = k.value();
                bytes += v.value().len();
                rows.push(((t.to_string(), f, i), v.value().to_vec()));
                if bytes >= 32 << 20 || rows.len() >= CHUNK {
                    break;
                }
            }
        }
        let Some(last) = rows.last().map(|(k, _)| k.clone()) else { return Ok(()) };
        let mut w = dst.begin_write()?;
        w.set_durability(Durability::None)?;
        {
            let mut out = w.open_table(tables::FILE_CHUNKS)?;
            for ((t, f, i), v) in &rows {
                out.insert((t.as_str(), *f, *i), v.as_slice())?;
            }
        }
        w.commit()?;
        after = Some(last);
    }
}

/// A record's key (tenant, resource, id) with its live and deleted versions, as a snapshot holds them.
type FetchedRecord = ((String, String, u64), Option<Vec<u8>>, Option<Vec<u8>>);
/// A file's key (tenant, id) with its chunks (number, bytes).
type FetchedFile = ((String, u64), Vec<(u32, Vec<u8>)>);

/// The state of changed keys read from one snapshot: each record key with its live and deleted versions,
/// each changed file with its chunks.
struct Fetched {
    records: Vec<FetchedRecord>,
    files: Vec<FetchedFile>,
}

/// Reads the changed keys' current state from `snap` (then the snapshot can go: none is held while writing).
fn fetch(snap: &ReadTransaction, changes: Changes) -> Result<Fetched> {
    let (src_live, src_deleted, src_chunks) =
        (snap.open_table(tables::RECORDS)?, snap.open_table(tables::DELETED)?, snap.open_table(tables::FILE_CHUNKS)?);
    let mut keys: Vec<_> = changes.records.into_iter().collect();
    keys.sort();
    let mut records = Vec::with_capacity(keys.len());
    for k in keys {
        let key = (k.0.as_str(), k.1.as_str(), k.2);
        let live = src_live.get(key)?.map(|v| v.value().to_vec());
        let deleted = src_deleted.get(key)?.map(|v| v.value().to_vec());
        records.push((k, live, deleted));
    }
    let mut files = Vec::new();
    for (t, f) in changes.files {
        let mut parts = Vec::new();
        for e in src_chunks.range((t.as_str(), f, 0)..=(t.as_str(), f, u32::MAX))? {
            let (k, v) = e?;
            parts.push((k.value().2, v.value().to_vec()));
        }
        files.push(((t, f), parts));
    }
    Ok(Fetched { records, files })
}

/// Writes the fetched state of changed keys into the copy: each record as it is now (or gone) in both record
/// tables, with its index entries and unique keys moved along; each changed file's chunks replaced.
fn apply(dst: &Database, got: Fetched, defs: Defs, undeclared: &mut BTreeSet<(String, String)>) -> Result<()> {
    let mut w = dst.begin_write()?;
    w.set_durability(Durability::None)?;
    {
        let mut live = w.open_table(tables::RECORDS)?;
        let mut deleted = w.open_table(tables::DELETED)?;
        let mut index = Logged::plain(w.open_table(tables::INDEX)?);
        let mut unique = Logged::plain(w.open_table(tables::UNIQUE)?);
        let mut chunks = w.open_table(tables::FILE_CHUNKS)?;
        for ((t, r, id), now_live, now_deleted) in &got.records {
            let key = (t.as_str(), r.as_str(), *id);
            let def = defs(r);
            if def.is_none() {
                undeclared.insert((t.clone(), r.clone()));
            }
            let old = live.remove(key)?.map(|v| v.value().to_vec());
            if let (Some(old), Some(def)) = (old, def.as_deref()) {
                remove_keys(&mut index, &mut unique, def, t, *id, &decode_record(&old)?)?;
            }
            if let Some(v) = now_live {
                live.insert(key, v.as_slice())?;
                if let Some(def) = def.as_deref() {
                    add_keys(&mut index, &mut unique, def, t, *id, &decode_record(v)?)?;
                }
            }
            deleted.remove(key)?;
            if let Some(v) = now_deleted {
                deleted.insert(key, v.as_slice())?;
            }
        }
        for ((t, f), parts) in &got.files {
            let old: Vec<u32> = chunks
                .range((t.as_str(), *f, 0)..=(t.as_str(), *f, u32::MAX))?
                .map(|e| e.map(|(k, _)| k.value().2))
                .collect::<std::result::Result<_, _>>()?;
            for i in old {
                chunks.remove((t.as_str(), *f, i))?;
            }
            for (i, v) in parts {
                chunks.insert((t.as_str(), *f, *i), v.as_slice())?;
            }
        }
    }
    w.commit()?;
    Ok(())
}

/// Checks a data file that no process holds: redb's integrity check, the schema version, every table's row
/// count, and that each maintained counter equals the records it counts.
pub fn verify_file(path: &Path) -> Result<VerifyReport> {
    if !path.exists() {
        return Err(StoreError::Storage(format!("{} does not exist", path.display())));
    }
    let mut db = open_offline(path, 64 << 20)?;
    let mut problems = Vec::new();
    if !db.check_integrity()? {
        problems.push("integrity check repaired damage".to_string());
    }
    let space = space(&db, path)?;
    let r = db.begin_read()?;
    let schema_version = meta::schema_version(&r)?;
    if schema_version == 0 || schema_version > meta::SCHEMA_VERSION {
        problems.push(format!("schema version {schema_version} is not one this binary reads"));
    }
    let mut counts = Vec::new();
    for t in tables::ALL {
        let (stored_bytes, metadata_bytes, fragmented_bytes, pages) = (t.space)(&r)?;
        counts.push(TableCount { name: t.name, rows: (t.count)(&r)?, stored_bytes, metadata_bytes, fragmented_bytes, pages });
    }
    let mut actual: BTreeMap<(String, String), u64> = BTreeMap::new();
    // Records of a newer record format than the file's stamp allows (a binary of that format would fail on them).
    let mut too_new = [0u64; 2];
    let mut format_of = |v: &[u8]| match v.first() {
        Some(&crate::codec::RECORD_Z2) if schema_version < meta::PACKED_Z2_FORMAT => too_new[0] += 1,
        Some(&crate::codec::RECORD_D1) if schema_version < meta::PACKED_D1_FORMAT => too_new[1] += 1,
        _ => {}
    };
    for e in r.open_table(tables::RECORDS)?.iter()? {
        let (k, v) = e?;
        let (t, res, _) = k.value();
        *actual.entry((t.to_string(), res.to_string())).or_default() += 1;
        format_of(v.value());
    }
    for e in r.open_table(tables::DELETED)?.iter()? {
        format_of(e?.1.value());
    }
    for (n, format) in too_new.into_iter().zip([3, 4]) {
        if n > 0 {
            problems.push(format!("{n} records are in record format {format}, which a file of format {schema_version} may not hold (binaries of format {schema_version} cannot read them)"));
        }
    }
    let mut counted: BTreeMap<(String, String), u64> = BTreeMap::new();
    for e in r.open_table(tables::COUNTERS)?.iter()? {
        let (k, v) = e?;
        let (t, res) = k.value();
        // Named counters (`$...`: quotas, code sequences; `code:...` in files written before they were named so)
        // are not record totals.
        if v.value() > 0 && !res.starts_with('$') && !res.contains(':') {
            counted.insert((t.to_string(), res.to_string()), v.value());
        }
    }
    if actual != counted {
        let mut keys: Vec<&(String, String)> = actual.keys().chain(counted.keys()).collect();
        keys.sort();
        keys.dedup();
        let diffs: Vec<String> = keys
            .into_iter()
            .filter(|k| actual.get(*k) != counted.get(*k))
            .take(5)
            .map(|k| format!("{}/{}: {} records, counter {}", k.0, k.1, actual.get(k).copied().unwrap_or(0), counted.get(k).copied().unwrap_or(0)))
            .collect();
        problems.push(format!("maintained counters differ from the records they count ({})", diffs.join("; ")));
    }
    let mut resources = BTreeMap::new();
    for ((_, res), n) in &actual {
        *resources.entry(res.clone()).or_default() += n;
    }
    let change_seq = meta::change_seq(&r)?;
    Ok(VerifyReport { ok: problems.is_empty(), space, schema_version, tables: counts, resources, problems, change_seq })
}
