//! The one registry of tables. Migrations, backup and verify walk `ALL`; no table exists outside this list.
//!
//! Keys are tenant-first: a tenant-scoped read or write always names the tenant as the first key part, so a
//! handle built for tenant A cannot range over tenant B's rows.
use redb::{ReadTransaction, ReadableTable, ReadableTableMetadata, TableDefinition, WriteTransaction};

use crate::error::Result;

/// Settings and secrets of the install: schema version, signing key, id high-water mark.
pub const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
/// Live records: (tenant, resource, id) -> encoded record.
pub const RECORDS: TableDefinition<(&str, &str, u64), &[u8]> = TableDefinition::new("records");
/// Soft-deleted records, moved out of `RECORDS` so that live scans never skip over them.
pub const DELETED: TableDefinition<(&str, &str, u64), &[u8]> = TableDefinition::new("records_deleted");
/// Secondary indexes: (tenant, resource, field, order-preserving value, id) -> ().
pub const INDEX: TableDefinition<(&str, &str, &str, &[u8], u64), ()> = TableDefinition::new("index");
/// Unique keys: (tenant, resource, field, value) -> id.
pub const UNIQUE: TableDefinition<(&str, &str, &str, &str), u64> = TableDefinition::new("unique");
/// Maintained totals of live records: (tenant, resource) -> count.
pub const COUNTERS: TableDefinition<(&str, &str), u64> = TableDefinition::new("counters");
/// File contents, in chunks: (tenant, file id, chunk number) -> bytes. The data file stays the whole backup.
pub const FILE_CHUNKS: TableDefinition<(&str, u64, u32), &[u8]> = TableDefinition::new("file_chunks");
/// Sign-in sessions (refresh-token families): (tenant, session id) -> encoded session.
pub const SESSIONS: TableDefinition<(&str, &str), &[u8]> = TableDefinition::new("sessions");
/// The change log the search index follows: sequence number -> (tenant, resource, id) of a searchable record
/// written in the commit that took the number. Pruned once the index holds the change; never backed up.
pub const CHANGES: TableDefinition<u64, (&str, &str, u64)> = TableDefinition::new("changes");

/// One registered table: how to count and copy it without knowing its types.
pub struct TableInfo {
    pub name: &'static str,
    pub count: fn(&ReadTransaction) -> Result<u64>,
    pub copy: fn(&ReadTransaction, &WriteTransaction) -> Result<u64>,
}

macro_rules! registry {
    ($($def:ident),* $(,)?) => {
        pub const ALL: &[TableInfo] = &[$(TableInfo {
            name: stringify!($def),
            count: |r| count_table(r, $def),
            copy: |r, w| copy_table(r, w, $def),
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
