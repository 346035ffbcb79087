//! Schema version and migrations. A data file from an older binary is copied aside (a consistent online copy)
//! and then migrated step by step; a file from a newer binary is refused.
use std::path::Path;

use redb::{Database, ReadableDatabase, WriteTransaction};

use crate::error::{Result, StoreError};
use crate::tables;

/// The schema this binary writes.
pub const SCHEMA_VERSION: u32 = 1;

/// Numbered migrations: entry `n` moves a file from version `n` to `n + 1`.
type Migration = fn(&WriteTransaction) -> Result<()>;
const MIGRATIONS: &[(u32, Migration)] = &[];

/// Creates the tables and migrates the file to this binary's schema; true when a migration ran.
pub(crate) fn prepare(db: &Database, path: &Path, existed: bool) -> Result<bool> {
    let found = {
        let r = db.begin_read()?;
        match r.open_table(tables::META) {
            Ok(t) => t.get("schema_version")?.map(|v| u32_of(v.value())),
            Err(redb::TableError::TableDoesNotExist(_)) => None,
            Err(e) => return Err(e.into()),
        }
    };
    if let Some(v) = found {
        if v > SCHEMA_VERSION {
            return Err(StoreError::TooNew { found: v, supported: SCHEMA_VERSION });
        }
        if v < SCHEMA_VERSION && existed {
            let aside = path.with_extension(format!("pre-v{v}.redb"));
            crate::backup::copy_aside(db, &aside)?;
        }
    }
    let mut w = db.begin_write()?;
    w.set_quick_repair(true);
    tables::create_all(&w)?;
    let mut v = found.unwrap_or(SCHEMA_VERSION);
    let was = v;
    for (from, m) in MIGRATIONS {
        if *from == v {
            m(&w)?;
            v += 1;
        }
    }
    w.open_table(tables::META)?.insert("schema_version", v.to_be_bytes().as_slice())?;
    w.commit()?;
    Ok(v != was)
}

fn u32_of(b: &[u8]) -> u32 {
    b.try_into().map(u32::from_be_bytes).unwrap_or(0)
}

pub(crate) fn schema_version(r: &redb::ReadTransaction) -> Result<u32> {
    Ok(r.open_table(tables::META)?.get("schema_version")?.map(|v| u32_of(v.value())).unwrap_or(0))
}

pub(crate) fn last_id(db: &Database) -> Result<u64> {
    let r = db.begin_read()?;
    let t = r.open_table(tables::META)?;
    Ok(t.get("last_id")?.and_then(|v| v.value().try_into().ok().map(u64::from_be_bytes)).unwrap_or(0))
}

pub(crate) fn put_last_id(meta: &mut crate::wal::Logged<crate::tables::Str, &'static [u8]>, id: u64) -> Result<()> {
    meta.insert("last_id", id.to_be_bytes().as_slice())?;
    Ok(())
}

/// The change log's last sequence number (0: nothing logged yet).
pub(crate) fn change_seq(r: &redb::ReadTransaction) -> Result<u64> {
    change_seq_in(&r.open_table(tables::META)?)
}

pub(crate) fn change_seq_in(meta: &impl redb::ReadableTable<crate::tables::Str, &'static [u8]>) -> Result<u64> {
    Ok(meta.get("change_seq")?.and_then(|v| v.value().try_into().ok().map(u64::from_be_bytes)).unwrap_or(0))
}

pub(crate) fn put_change_seq(meta: &mut crate::wal::Logged<crate::tables::Str, &'static [u8]>, seq: u64) -> Result<()> {
    meta.insert("change_seq", seq.to_be_bytes().as_slice())?;
    Ok(())
}
