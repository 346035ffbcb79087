//! The one registry of tables. Migrations, backup and verify walk `ALL`; no table exists outside this list.
//!
//! Keys are tenant-first: a tenant-scoped read or write always names the tenant as the first key part, so a
//! handle built for tenant A cannot range over tenant B's rows.
use std::borrow::Cow;
use std::cmp::Ordering;

use redb::{Key, ReadTransaction, ReadableTable, ReadableTableMetadata, TableDefinition, TableHandle, TypeName, WriteTransaction};

use crate::error::{Result, StoreError};

/// A text key part stored exactly as redb's `&str` (same bytes, same type name: files need no migration), but
/// compared as bytes: redb's `&str` checks both sides as UTF-8 on every comparison, and tuple-key comparisons are
/// most of a B-tree search (10 % of the writer in a warehouse profile). UTF-8's byte order is `str`'s order, so
/// the trees are the same; reading a key out still checks it (`from_bytes`).
#[derive(Debug)]
pub enum Str {}

impl redb::Value for Str {
    type SelfType<'a>
        = &'a str
    where
        Self: 'a;
    type AsBytes<'a>
        = &'a str
    where
        Self: 'a;

    fn fixed_width() -> Option<usize> {
        None
    }

    fn from_bytes<'a>(data: &'a [u8]) -> &'a str
    where
        Self: 'a,
    {
        <&str as redb::Value>::from_bytes(data)
    }

    fn as_bytes<'a, 'b: 'a>(value: &'a &'b str) -> &'a str
    where
        Self: 'b,
    {
        value
    }

    fn type_name() -> TypeName {
        <&str as redb::Value>::type_name()
    }
}

impl Key for Str {
    fn compare(data1: &[u8], data2: &[u8]) -> Ordering {
        data1.cmp(data2)
    }

    fn separator<'a>(left: &'a [u8], right: &'a [u8]) -> Cow<'a, [u8]> {
        <&str as Key>::separator(left, right)
    }

    fn min_encoded_key() -> Option<Cow<'static, [u8]>> {
        <&str as Key>::min_encoded_key()
    }
}

/// Key types of the tables (their parts are read and written as `&str`, `u64`, `&[u8]`).
pub type RecK = (Str, Str, u64);
pub type IdxK = (Str, Str, Str, &'static [u8], u64);
pub type UniqueK = (Str, Str, Str, Str);
pub type PairK = (Str, Str);
pub type ChunkK = (Str, u64, u32);

/// Settings and secrets of the install: schema version, signing key, id high-water mark.
pub const META: TableDefinition<Str, &[u8]> = TableDefinition::new("meta");
/// Live records: (tenant, resource, id) -> encoded record.
pub const RECORDS: TableDefinition<RecK, &[u8]> = TableDefinition::new("records");
/// Soft-deleted records, moved out of `RECORDS` so that live scans never skip over them.
pub const DELETED: TableDefinition<RecK, &[u8]> = TableDefinition::new("records_deleted");
/// Secondary indexes: (tenant, resource, field, order-preserving value, id) -> ().
pub const INDEX: TableDefinition<IdxK, ()> = TableDefinition::new("index");
/// Unique keys: (tenant, resource, field, value) -> id.
pub const UNIQUE: TableDefinition<UniqueK, u64> = TableDefinition::new("unique");
/// Maintained totals of live records: (tenant, resource) -> count.
pub const COUNTERS: TableDefinition<PairK, u64> = TableDefinition::new("counters");
/// File contents, in chunks: (tenant, file id, chunk number) -> bytes. The data file stays the whole backup.
pub const FILE_CHUNKS: TableDefinition<ChunkK, &[u8]> = TableDefinition::new("file_chunks");
/// Sign-in sessions (refresh-token families): (tenant, session id) -> encoded session.
pub const SESSIONS: TableDefinition<PairK, &[u8]> = TableDefinition::new("sessions");
/// The change log the search index follows: sequence number -> (tenant, resource, id) of a searchable record
/// written in the commit that took the number. Pruned once the index holds the change; never backed up.
pub const CHANGES: TableDefinition<u64, (&str, &str, u64)> = TableDefinition::new("changes");

/// A table's room: bytes of keys and values, bytes of the tree's own metadata, bytes of pages left unused, pages.
pub type Space = (u64, u64, u64, u64);

/// One registered table: how to count, measure and copy it without knowing its types.
pub struct TableInfo {
    pub name: &'static str,
    pub count: fn(&ReadTransaction) -> Result<u64>,
    pub space: fn(&ReadTransaction) -> Result<Space>,
    pub copy: fn(&ReadTransaction, &WriteTransaction) -> Result<u64>,
    /// Rewrites the table with full pages when a quarter of its pages' bytes are unused (`repack`): whether it did.
    pub repack: fn(&redb::Database, Option<u64>) -> Result<bool>,
}

macro_rules! registry {
    ($($def:ident),* $(,)?) => {
        pub const ALL: &[TableInfo] = &[$(TableInfo {
            name: stringify!($def),
            count: |r| count_table(r, $def),
            space: |r| space_of(r, $def),
            copy: |r, w| copy_table(r, w, $def),
            repack: |db, free| repack(db, $def, free),
        }),*];
        /// Creates every table so that readers never meet a missing one.
        pub fn create_all(w: &WriteTransaction) -> Result<()> {
            $( w.open_table($def)?; )*
            Ok(())
        }
    };
}
registry!(META, RECORDS, DELETED, INDEX, UNIQUE, COUNTERS, SESSIONS, FILE_CHUNKS, CHANGES);

fn count_table<K: redb::Key + 'static, V: redb::Value + 'static>(
    r: &ReadTransaction,
    def: TableDefinition<K, V>,
) -> Result<u64> {
    Ok(r.open_table(def)?.len()?)
}

fn space_of<K: redb::Key + 'static, V: redb::Value + 'static>(r: &ReadTransaction, def: TableDefinition<K, V>) -> Result<Space> {
    let s = r.open_table(def)?.stats()?;
    Ok((s.stored_bytes(), s.metadata_bytes(), s.fragmented_bytes(), s.leaf_pages() + s.branch_pages()))
}

pub(crate) fn copy_table<K: redb::Key + 'static, V: redb::Value + 'static>(
    r: &ReadTransaction,
    w: &WriteTransaction,
    def: TableDefinition<K, V>,
) -> Result<u64> {
    let src = r.open_table(def)?;
    let mut dst = w.open_table(def)?;
    let mut n = 0;
    for entry in src.iter()? {
        let (k, v) = entry?;
        dst.insert(k.value(), v.value())?;
        n += 1;
    }
    Ok(n)
}

/// Entries moved per transaction by `repack`.
const REPACK_CHUNK: usize = 200_000;

/// Rewrites a table of a file no process holds so that its leaves are full: redb splits a full leaf in two
/// halves, so keys that arrive in order (ids, times) leave every leaf half empty for good, and `compact` moves
/// pages without filling them. The entries go, in key order and a chunk per durable transaction, into a new table
/// through a cursor at its end (redb packs such a run into full leaves); the last transaction drops the old table
/// and gives the new one its name. Stopped half way, the file holds the old table whole and a `*.repack` table the
/// next run drops first. Done only when at least a quarter of the table's page bytes are unused, its entries are
/// small (not file chunks), and `free_space` (the disk's, when known) holds the copy.
pub(crate) fn repack<K: redb::Key + 'static, V: redb::Value + 'static>(db: &redb::Database, def: TableDefinition<K, V>, free_space: Option<u64>) -> Result<bool> {
    use redb::ReadableDatabase;
    use std::ops::Bound;
    let tmp_name = format!("{}.repack", def.name());
    let tmp: TableDefinition<K, V> = TableDefinition::new(&tmp_name);
    {
        let w = db.begin_write()?;
        w.delete_table(tmp)?;
        w.commit()?;
    }
    let (st, rows) = {
        let t = db.begin_read()?.open_table(def)?;
        (t.stats()?, t.len()?)
    };
    let pages = st.stored_bytes() + st.metadata_bytes() + st.fragmented_bytes();
    // Entries over half a page (file chunks) get pages of their own, sized in powers of two: repacking cannot
    // fill those, and would only copy them.
    if pages < (1 << 20) || st.fragmented_bytes() * 4 < pages || rows == 0 || st.stored_bytes() / rows > 2048 {
        return Ok(false);
    }
    // The copy needs room beside the table until the old one is dropped: left as it is on a disk without it.
    if free_space.is_some_and(|free| free < pages + pages / 4) {
        return Ok(false);
    }
    let mut last: Option<Vec<u8>> = None;
    loop {
        let w = db.begin_write()?;
        let mut done = false;
        {
            let old = w.open_table(def)?;
            let mut new = w.open_table(tmp)?;
            let mut cur = new.upper_bound_mut(Bound::<K::SelfType<'_>>::Unbounded)?;
            let range = match &last {
                Some(k) => old.range::<K::SelfType<'_>>((Bound::Excluded(K::from_bytes(k)), Bound::Unbounded))?,
                None => old.range::<K::SelfType<'_>>(..)?,
            };
            let mut n = 0;
            let mut key = None;
            for e in range {
                let (k, v) = e?;
                cur.insert_before(k.value(), v.value()).map_err(|e| StoreError::Storage(format!("repacking {}: {e}", def.name())))?;
                n += 1;
                if n == REPACK_CHUNK {
                    key = Some(K::as_bytes(&k.value()).as_ref().to_vec());
                    break;
                }
            }
            cur.close()?;
            match key {
                Some(k) => last = Some(k),
                None => done = true,
            }
        }
        if done {
            w.delete_table(def)?;
            w.rename_table(tmp, def)?;
        }
        w.commit()?;
        if done {
            return Ok(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use redb::{Database, ReadableDatabase, Value};

    use super::*;

    /// Files written with plain `&str` keys open with `Str` keys and back: same type names, same bytes, same order.
    #[test]
    fn str_keys_are_the_str_tables_of_older_files() {
        assert_eq!(<RecK as Value>::type_name(), <(&str, &str, u64) as Value>::type_name());
        assert_eq!(<IdxK as Value>::type_name(), <(&str, &str, &str, &[u8], u64) as Value>::type_name());
        assert_eq!(<Str as Value>::type_name(), <&str as Value>::type_name());
        let dir = tempfile::tempdir().unwrap();
        let db = Database::create(dir.path().join("k.redb")).unwrap();
        let old: TableDefinition<(&str, &str, u64), &[u8]> = TableDefinition::new("records");
        let names = ["157270", "000000", "ä", "z", "Ω", "租户", "a\u{10FFFF}", "", "ab"];
        let w = db.begin_write().unwrap();
        {
            let mut t = w.open_table(old).unwrap();
            for (i, n) in names.iter().enumerate() {
                t.insert((*n, "param", i as u64), [i as u8].as_slice()).unwrap();
            }
        }
        w.commit().unwrap();
        // Read with the new key type: every key found, in `str` order.
        let r = db.begin_read().unwrap();
        let t = r.open_table(RECORDS).unwrap();
        let got: Vec<String> = t.iter().unwrap().map(|e| e.unwrap().0.value().0.to_string()).collect();
        let mut want: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(got, want);
        for (i, n) in names.iter().enumerate() {
            assert_eq!(t.get((*n, "param", i as u64)).unwrap().unwrap().value(), [i as u8].as_slice());
        }
        drop((t, r));
        // Written with the new type, read with the old one.
        let w = db.begin_write().unwrap();
        w.open_table(RECORDS).unwrap().insert(("中文", "param", 99), [9u8].as_slice()).unwrap();
        w.commit().unwrap();
        let r = db.begin_read().unwrap();
        let t = r.open_table(old).unwrap();
        assert_eq!(t.get(("中文", "param", 99)).unwrap().unwrap().value(), [9u8].as_slice());
        assert_eq!(t.len().unwrap(), names.len() as u64 + 1);
        drop((t, r));
        // Trees of many pages (branch separators cut inside multi-byte text), written by one type, read by the other.
        let key = |i: u64| (format!("{}{}", names[(i % 9) as usize], i * 7919 % 100_003), format!("资源{}", i % 13));
        for (lo, by_new) in [(0u64, false), (20_000, true)] {
            let w = db.begin_write().unwrap();
            if by_new {
                let mut t = w.open_table(RECORDS).unwrap();
                for i in lo..lo + 20_000 {
                    let (a, b) = key(i);
                    t.insert((a.as_str(), b.as_str(), i), [1u8].as_slice()).unwrap();
                }
            } else {
                let mut t = w.open_table(old).unwrap();
                for i in lo..lo + 20_000 {
                    let (a, b) = key(i);
                    t.insert((a.as_str(), b.as_str(), i), [1u8].as_slice()).unwrap();
                }
            }
            w.commit().unwrap();
        }
        let r = db.begin_read().unwrap();
        let (tn, to) = (r.open_table(RECORDS).unwrap(), r.open_table(old).unwrap());
        for i in 0..40_000 {
            let (a, b) = key(i);
            assert!(tn.get((a.as_str(), b.as_str(), i)).unwrap().is_some() && to.get((a.as_str(), b.as_str(), i)).unwrap().is_some(), "key {i}");
        }
        let order: Vec<(String, String, u64)> = tn.iter().unwrap().map(|e| { let k = e.unwrap().0; let (a, b, c) = k.value(); (a.to_string(), b.to_string(), c) }).collect();
        assert!(order.is_sorted(), "the new type walks in str order");
    }

    /// Keys that arrive in order leave redb's leaves half empty; `repack` fills them, keeps every entry and its
    /// order, and a rerun after an interrupted one (a `*.repack` table left) starts clean.
    #[test]
    fn repack_fills_the_leaves_of_keys_written_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::create(dir.path().join("p.redb")).unwrap();
        let n = 100_000u64;
        let value = [7u8; 40];
        // As the server writes: many small commits (without durability, as with the write-ahead log), into the
        // middle of the table (another resource's records sort after these).
        let w = db.begin_write().unwrap();
        w.open_table(RECORDS).unwrap().insert(("157270", "region", 1), value.as_slice()).unwrap();
        w.commit().unwrap();
        for from in (0..n).step_by(100) {
            let mut w = db.begin_write().unwrap();
            w.set_durability(redb::Durability::None).unwrap();
            let mut t = w.open_table(RECORDS).unwrap();
            for id in from..from + 100 {
                t.insert(("157270", "param", id), value.as_slice()).unwrap();
            }
            drop(t);
            w.commit().unwrap();
        }
        let w = db.begin_write().unwrap();
        {
            // An interrupted run's leftovers.
            let tmp: TableDefinition<RecK, &[u8]> = TableDefinition::new("records.repack");
            w.open_table(tmp).unwrap().insert(("x", "y", 1), [1u8].as_slice()).unwrap();
        }
        w.commit().unwrap();
        let stats = |db: &Database| db.begin_read().unwrap().open_table(RECORDS).unwrap().stats().unwrap();
        let before = stats(&db);
        assert!(before.fragmented_bytes() * 3 > before.stored_bytes(), "in-order inserts leave leaves half empty: {before:?}");
        assert!(!repack(&db, RECORDS, Some(1 << 20)).unwrap(), "no room for the copy: left as it is");
        assert!(repack(&db, RECORDS, None).unwrap());
        let after = stats(&db);
        assert!(after.fragmented_bytes() * 20 < after.stored_bytes(), "packed: {after:?}");
        assert!(after.leaf_pages() * 10 < before.leaf_pages() * 6, "{} -> {} leaves", before.leaf_pages(), after.leaf_pages());
        let r = db.begin_read().unwrap();
        assert!(r.list_tables().unwrap().all(|t| t.name() != "records.repack"));
        let t = r.open_table(RECORDS).unwrap();
        assert_eq!(t.len().unwrap(), n + 1);
        for (i, e) in t.iter().unwrap().take(n as usize).enumerate() {
            let (k, v) = e.unwrap();
            assert_eq!(k.value().2, i as u64);
            assert_eq!(v.value(), value.as_slice());
        }
        drop((t, r));
        // Packed already: left as it is.
        assert!(!repack(&db, RECORDS, None).unwrap());
    }

}
