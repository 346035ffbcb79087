//! Online backup and verification. A backup copies every registered table inside one read transaction into a
//! new file, verifies that file, syncs it and renames it into place: the live file is never copied byte-wise.
use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;

use redb::{Database, ReadableDatabase, ReadableTable};
use serde::Serialize;

use crate::error::{Result, StoreError};
use crate::{meta, tables};

#[derive(Debug, Clone, Serialize)]
pub struct TableCount {
    pub name: &'static str,
    pub rows: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    pub ok: bool,
    pub schema_version: u32,
    pub tables: Vec<TableCount>,
    /// Live records per resource, summed over tenants.
    pub resources: BTreeMap<String, u64>,
    pub problems: Vec<String>,
}

pub(crate) fn backup(db: &Database, out: &Path) -> Result<VerifyReport> {
    let tmp = out.with_extension("partial");
    let _ = std::fs::remove_file(&tmp);
    {
        let snapshot = db.begin_read()?;
        let dst = Database::builder().create(&tmp)?;
        let w = dst.begin_write()?;
        for t in tables::ALL {
            (t.copy)(&snapshot, &w)?;
        }
        w.commit()?;
    }
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
    Ok(report)
}

/// Checks a data file that no process holds: redb's integrity check, the schema version, every table's row
/// count, and that each maintained counter equals the records it counts.
pub fn verify_file(path: &Path) -> Result<VerifyReport> {
    if !path.exists() {
        return Err(StoreError::Storage(format!("{} does not exist", path.display())));
    }
    let mut db = Database::open(path)?;
    let mut problems = Vec::new();
    if !db.check_integrity()? {
        problems.push("integrity check repaired damage".to_string());
    }
    let r = db.begin_read()?;
    let schema_version = meta::schema_version(&r)?;
    if schema_version == 0 || schema_version > meta::SCHEMA_VERSION {
        problems.push(format!("schema version {schema_version} is not one this binary reads"));
    }
    let mut counts = Vec::new();
    for t in tables::ALL {
        counts.push(TableCount { name: t.name, rows: (t.count)(&r)? });
    }
    let mut actual: BTreeMap<(String, String), u64> = BTreeMap::new();
    for e in r.open_table(tables::RECORDS)?.iter()? {
        let (k, _) = e?;
        let (t, res, _) = k.value();
        *actual.entry((t.to_string(), res.to_string())).or_default() += 1;
    }
    let mut counted: BTreeMap<(String, String), u64> = BTreeMap::new();
    for e in r.open_table(tables::COUNTERS)?.iter()? {
        let (k, v) = e?;
        let (t, res) = k.value();
        // Named counters (`$...`: quotas) are not record totals.
        if v.value() > 0 && !res.starts_with('$') {
            counted.insert((t.to_string(), res.to_string()), v.value());
        }
    }
    if actual != counted {
        problems.push("maintained counters differ from the records they count".to_string());
    }
    let mut resources = BTreeMap::new();
    for ((_, res), n) in &actual {
        *resources.entry(res.clone()).or_default() += n;
    }
    Ok(VerifyReport { ok: problems.is_empty(), schema_version, tables: counts, resources, problems })
}
