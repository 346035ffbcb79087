//! Format version and migrations. A file records the format it is in (`schema_version`) and the binary that last
//! opened it for writing (`written_by`, as the app names itself through `set_binary`). A file from an older
//! binary is copied aside first (`before-upgrade-<its version>-<file name>` beside it, the last two kept) and then
//! migrated step by step in one transaction (a crash leaves the old file or the new one, never a mix); a file of a
//! newer format is refused before anything of it (its write-ahead log included) is read, naming both versions.
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use redb::{Database, ReadableDatabase, WriteTransaction};

use crate::error::{Result, StoreError};
use crate::tables;

/// Meta key: the indexed fields (and their index keys) the file's index entries were last brought in line with,
/// kept by the app (`engine::layout::sync_indexes`); a backup, whose index is made from the declarations rather than
/// copied, drops it, so whichever binary opens the copy brings the entries in line with its own.
pub const INDEX_LAYOUT: &str = "index_layout";

/// The newest format this binary reads and writes. 2: the app keeps companies' secrets sealed with the install's
/// key and reads the token signing key through it (a version-1 binary would use the sealed text as keys); the
/// write-ahead log carries its format in its header. 3: records of `packed` resources (the logs' file) may be zstd
/// frames (`codec::RECORD_Z1`), which a version-2 binary cannot read. 4: they may be frames against `DICT_2`
/// (`codec::RECORD_Z2`), which a version-3 binary cannot read. 5: every other record may be a frame against the
/// data dictionary (`codec::RECORD_D1`), which a version-4 binary cannot read.
pub const SCHEMA_VERSION: u32 = 5;

/// The format a file is brought to unless its opener asks for less (`Options::format`).
pub const BASE_FORMAT: u32 = 5;

/// The format below which a file must be upgraded to be opened (no room on the disk for the copy kept first
/// refuses the open); an upgrade beyond it is optional (no room: the file stays in its format, works as before,
/// and the next start tries again).
pub const REQUIRED_FORMAT: u32 = 3;

/// The first format whose files may hold packed records of format 3 (`codec::RECORD_Z2`).
pub(crate) const PACKED_Z2_FORMAT: u32 = 4;

/// The format the logs' file is brought to: the newest that changed what it holds (its records are all of
/// `packed` resources, which format 5 left as they were).
pub const PACKED_LOGS_FORMAT: u32 = PACKED_Z2_FORMAT;

/// The first format whose files may hold packed records of format 4 (`codec::RECORD_D1`).
pub(crate) const PACKED_D1_FORMAT: u32 = 5;

/// Numbered migrations: entry `n` moves a file from version `n` to `n + 1`.
type Migration = fn(&WriteTransaction) -> Result<()>;
/// 1 → 2 moves nothing in the file (the app seals plain secrets at its start): the number itself is the change,
/// so that binaries of format 1 refuse the file. 2 → 3, 3 → 4 and 4 → 5 likewise: new records are written in the
/// newer format and older binaries refuse the file rather than fail on them; every format is read. After 4 → 5
/// the records already stored in format 1 are packed too (`pack_existing`, after this transaction).
const MIGRATIONS: &[(u32, Migration)] = &[(1, |_| Ok(())), (2, |_| Ok(())), (3, |_| Ok(())), (4, |_| Ok(()))];

/// Records packed per transaction by `pack_existing`.
const PACK_BATCH: usize = 20_000;

/// Upgrade copies kept per file.
const KEEP_UPGRADE_COPIES: usize = 2;

static BINARY: OnceLock<String> = OnceLock::new();

/// The name and version of the program opening files (`zhizhuang 0.2.0 (1a2b3c4)`), recorded in each file it
/// writes and named when a file is refused.
pub fn set_binary(name: &str) {
    let _ = BINARY.set(name.to_string());
}

fn binary() -> &'static str {
    BINARY.get().map(String::as_str).unwrap_or("")
}

/// The format a file is in and what last wrote it (None: a new file).
fn stamp(db: &Database) -> Result<Option<(u32, String)>> {
    let r = db.begin_read()?;
    match r.open_table(tables::META) {
        Ok(t) => {
            let Some(v) = t.get("schema_version")?.map(|v| u32_of(v.value())) else { return Ok(None) };
            let by = t.get("written_by")?.map(|b| String::from_utf8_lossy(b.value()).into_owned()).unwrap_or_default();
            Ok(Some((v, by)))
        }
        Err(redb::TableError::TableDoesNotExist(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Refuses a file of a newer format than this binary's without opening it for writing (opening for writing may
/// already change it: a repair, its free space trimmed). A file the read-only open cannot take (it needs a repair,
/// another process holds it) is checked by `check_not_newer` once open.
pub(crate) fn peek_not_newer(path: &Path) -> Result<()> {
    let Ok(db) = redb::ReadOnlyDatabase::open(path) else { return Ok(()) };
    let Ok(r) = db.begin_read() else { return Ok(()) };
    let Ok(t) = r.open_table(tables::META) else { return Ok(()) };
    let found = t.get("schema_version")?.map(|v| u32_of(v.value()));
    if let Some(v) = found
        && v > SCHEMA_VERSION {
        let by = t.get("written_by")?.map(|b| String::from_utf8_lossy(b.value()).into_owned()).unwrap_or_default();
        return Err(StoreError::TooNew { found: v, supported: SCHEMA_VERSION, written_by: by, binary: binary().to_string() });
    }
    Ok(())
}

/// Refuses a file of a newer format than this binary's, before anything of it is read.
pub(crate) fn check_not_newer(db: &Database) -> Result<()> {
    if let Some((v, by)) = stamp(db)?
        && v > SCHEMA_VERSION {
        return Err(StoreError::TooNew { found: v, supported: SCHEMA_VERSION, written_by: by, binary: binary().to_string() });
    }
    Ok(())
}

/// Where the copy kept before an upgrade goes: `before-upgrade-<version>-<file name>` beside the file, the
/// version being the binary that last wrote it (or its format).
fn upgrade_copy(path: &Path, format: u32, written_by: &str) -> PathBuf {
    let version = written_by.split_whitespace().nth(1).filter(|v| v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')).map(str::to_string).unwrap_or_else(|| format!("format{format}"));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    crate::fs::dir_of(path).join(format!("before-upgrade-{version}-{name}"))
}

/// Removes all but the newest `KEEP_UPGRADE_COPIES` upgrade copies of `path`.
fn prune_upgrade_copies(path: &Path) {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut copies: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(crate::fs::dir_of(path))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("before-upgrade-") && e.file_name().to_string_lossy().ends_with(&format!("-{name}")))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    copies.sort();
    while copies.len() > KEEP_UPGRADE_COPIES {
        let (_, p) = copies.remove(0);
        let _ = std::fs::remove_file(p);
    }
}

/// What `prepare` did: the copy kept first when a migration ran, the file's format, and why an optional upgrade
/// (from `REQUIRED_FORMAT` or later) was left for a later start (no room on the disk for the copy).
pub(crate) struct Prepared {
    pub aside: Option<PathBuf>,
    pub format: u32,
    pub deferred: Option<String>,
    /// Records were packed or unpacked at this open (the upgrade to format 5, `unpack_plain`, or one a crash
    /// interrupted): the file's history changed outside the write-ahead log, so its replica's stream starts again.
    pub repacked: bool,
}

/// Meta key set with the stamp of format 5 and removed once `pack_existing` is done: a start that finds it packs
/// again (a crash interrupted the packing) and restarts the replica's stream as the first did.
const PACK_PENDING: &str = "pack_pending";

/// Creates the tables and migrates the file to format `target` (a new file is made in it; a file already in a
/// newer format this binary reads stays in it). Below `REQUIRED_FORMAT` the upgrade is required (no room for the
/// copy kept first refuses the open); from it on optional: the file stays in its format, works as before, and
/// the next start tries again. A file brought to format 5 has its format-1 records packed (`pack_existing`).
pub(crate) fn prepare(db: &Database, path: &Path, existed: bool, target: u32, fs: &dyn crate::fs::Fs, plain: &[String]) -> Result<Prepared> {
    let mut target = target.min(SCHEMA_VERSION);
    let found = stamp(db)?;
    let mut aside = None;
    let mut deferred = None;
    if let Some((v, by)) = &found {
        if *v > SCHEMA_VERSION {
            return Err(StoreError::TooNew { found: *v, supported: SCHEMA_VERSION, written_by: by.clone(), binary: binary().to_string() });
        }
        // What the file holds in use, measured once (it walks every table): the copy needs it and a tenth more.
        let used = if *v < target && existed { crate::backup::in_use(&db.begin_read()?)?.0 } else { 0 };
        // Format 5 packs the records beside their old pages: room for the copy and about the file again.
        if *v < PACKED_D1_FORMAT && target >= PACKED_D1_FORMAT && existed
            && fs.free_space(&crate::fs::dir_of(path)).is_some_and(|free| free < used * 22 / 10) {
            deferred = Some(format!(
                "no room on the disk to upgrade {} to format {PACKED_D1_FORMAT} (the copy kept first and its records packed take about twice its size)",
                path.display()
            ));
            target = (*v).max(REQUIRED_FORMAT);
        }
        if *v < target && existed {
            let to = upgrade_copy(path, *v, by);
            if crate::backup::copy_aside(db, &to, fs, used * 11 / 10)? {
                prune_upgrade_copies(path);
                aside = Some(to);
            } else if *v >= REQUIRED_FORMAT {
                deferred = Some(format!("no room on the disk for the copy kept before upgrading {} from format {v} to {target}", path.display()));
                target = *v;
            } else {
                return Err(StoreError::Storage(format!(
                    "no room on the disk for the copy kept before upgrading {} from format {v}: free space for a copy of it and start again",
                    path.display()
                )));
            }
        }
    }
    let mut w = db.begin_write()?;
    w.set_quick_repair(true);
    tables::create_all(&w)?;
    let mut v = found.as_ref().map(|(v, _)| *v).unwrap_or(target);
    for (from, m) in MIGRATIONS {
        if *from == v && v < target {
            m(&w)?;
            v += 1;
        }
    }
    {
        let mut meta = w.open_table(tables::META)?;
        meta.insert("schema_version", v.to_be_bytes().as_slice())?;
        if !binary().is_empty() {
            meta.insert("written_by", binary().as_bytes())?;
        }
        if found.as_ref().is_some_and(|(from, _)| *from < PACKED_D1_FORMAT) && v >= PACKED_D1_FORMAT {
            meta.insert(PACK_PENDING, [1u8].as_slice())?;
        }
    }
    w.commit()?;
    // Only an opener that asks for format 5 (the server) packs: an offline command or a standby leaves a pending
    // packing to the next start of the server, whose replica's stream then starts again.
    let pending = target >= PACKED_D1_FORMAT && db.begin_read()?.open_table(tables::META)?.get(PACK_PENDING)?.is_some();
    if pending {
        pack_existing(db, plain)?;
        let mut w = db.begin_write()?;
        w.set_quick_repair(true);
        w.open_table(tables::META)?.remove(PACK_PENDING)?;
        w.commit()?;
    }
    // A new file holds its plain resources unpacked already; one whose records an earlier binary packed (every
    // resource, the packing it began included) or declared plain since has them unpacked now.
    let unpacked = if target >= PACKED_D1_FORMAT && v >= PACKED_D1_FORMAT && !plain.is_empty() {
        unpack_plain(db, plain, !existed)?
    } else {
        false
    };
    Ok(Prepared { aside, format: v, deferred, repacked: pending || unpacked })
}

/// Meta key: the resources declared `plain` (names, sorted, one a line) whose records the file holds unpacked,
/// as the last server to open it declared them, and that server's binary on the last line (`by …`): another
/// binary looks again, since one in between (a rollback to a release that packed everything) may have packed them.
const PLAIN_SET: &str = "plain_resources";
/// Meta key set by the first transaction of `unpack_plain` that rewrites records, removed with its end: a start
/// that finds it unpacks again (a crash interrupted it) and restarts the replica's stream as the first did.
const UNPACK_PENDING: &str = "unpack_pending";

/// Brings the records of the resources declared `plain` (`ResourceDef::plain`) to format 1 when the file's
/// record of them (`PLAIN_SET`) is not these names: a file packed by a binary that packed every resource, or a
/// resource declared plain since. Each resource is sought tenant by tenant (a seek to the next tenant, then its
/// records in batches of `PACK_BATCH`), live and deleted; a resource no longer declared plain keeps its records
/// until each is written again (both formats read alike). `fresh`: a new file, nothing can be packed, only the
/// names are recorded (a packing just finished is no reason: one an earlier binary began may have packed them). A
/// record that does not unpack is left as it is (its reads fail as before) and named on stderr. Returns whether
/// records were rewritten now or by an interrupted pass: the file's history changed outside the write-ahead log.
pub(crate) fn unpack_plain(db: &Database, plain: &[String], fresh: bool) -> Result<bool> {
    let mut names: Vec<&str> = plain.iter().map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    let want = format!("{}\nby {}", names.join("\n"), binary());
    let (had, was_pending) = {
        let r = db.begin_read()?;
        let m = r.open_table(tables::META)?;
        (m.get(PLAIN_SET)?.map(|v| v.value().to_vec()), m.get(UNPACK_PENDING)?.is_some())
    };
    if had.as_deref() == Some(want.as_bytes()) && !was_pending {
        return Ok(false);
    }
    // The names already unpacked by the recorded pass (all of them again after an interrupted one).
    let done: Vec<String> = match (&had, was_pending) {
        (Some(h), false) if h.ends_with(format!("\nby {}", binary()).as_bytes()) => String::from_utf8_lossy(h).lines().map(str::to_string).collect(),
        _ => Vec::new(),
    };
    let mut rewrote = false;
    if !fresh {
        for def in [tables::RECORDS, tables::DELETED] {
            for name in names.iter().filter(|n| !done.iter().any(|d| d == *n)) {
                let mut tenant_from = String::new();
                loop {
                    // The next tenant holding any record at or after `tenant_from`.
                    let tenant = {
                        let r = db.begin_read()?;
                        let t = r.open_table(def)?;
                        let first = t.range::<(&str, &str, u64)>((tenant_from.as_str(), "", 0)..)?.next().transpose()?;
                        match first {
                            Some((k, _)) => k.value().0.to_string(),
                            None => break,
                        }
                    };
                    let (from, to) = ((tenant.clone(), name.to_string(), 0), (tenant.clone(), name.to_string(), u64::MAX));
                    let unpack = &mut |(t, r, id): (&str, &str, u64), v: &[u8]| -> Result<Option<Vec<u8>>> {
                        if !matches!(v.first(), Some(&(crate::codec::RECORD_Z1 | crate::codec::RECORD_Z2 | crate::codec::RECORD_D1))) {
                            return Ok(None);
                        }
                        Ok(match crate::codec::plain_uncached(v) {
                            Ok(json) => Some(json),
                            Err(e) => {
                                eprintln!("zz-store: record ({t}, {r}, {id}) left packed: {e}");
                                None
                            }
                        })
                    };
                    // The first transaction that rewrites marks the pass as begun.
                    let mark = &mut |w: &WriteTransaction| -> Result<()> {
                        w.open_table(tables::META)?.insert(UNPACK_PENDING, [1u8].as_slice())?;
                        Ok(())
                    };
                    rewrote |= rewrite_records(db, def, from, Some(to), unpack, mark)? > 0;
                    tenant_from = format!("{tenant}\0");
                }
            }
        }
    }
    let mut w = db.begin_write()?;
    w.set_quick_repair(true);
    {
        let mut m = w.open_table(tables::META)?;
        m.remove(UNPACK_PENDING)?;
        m.insert(PLAIN_SET, want.as_bytes())?;
    }
    w.commit()?;
    Ok(rewrote || was_pending)
}

/// Packs the records a file holds in format 1 (live and deleted) into `codec::RECORD_D1`: the last step of the
/// upgrade to format 5, once its stamp is committed. `PACK_BATCH` records a transaction, so that a large file
/// needs no large transaction; a crash between two leaves records of both formats, which read alike, and
/// `PACK_PENDING` set: the next start goes on. The records of the resources named in `plain` stay as they are
/// (`ResourceDef::plain`). Returns how many it packed.
pub(crate) fn pack_existing(db: &Database, plain: &[String]) -> Result<u64> {
    let mut packed = 0u64;
    for def in [tables::RECORDS, tables::DELETED] {
        // A record too large to unpack stays in format 1 (`codec::packable`).
        let pack = &mut |(_, res, _): (&str, &str, u64), v: &[u8]| -> Result<Option<Vec<u8>>> {
            match v.split_first() {
                Some((&crate::codec::RECORD_V1, json)) if crate::codec::packable(json) && !plain.iter().any(|p| p == res) => {
                    Ok(Some(crate::codec::pack_json(json, crate::codec::RECORD_D1)?))
                }
                _ => Ok(None),
            }
        };
        packed += rewrite_records(db, def, (String::new(), String::new(), 0), None, pack, &mut |_| Ok(()))?;
    }
    Ok(packed)
}

/// A record's key, owned.
type RecKey = (String, String, u64);
/// What `rewrite_records` asks of each record: its new bytes, or None to leave it.
type Rewrite<'a> = &'a mut dyn FnMut((&str, &str, u64), &[u8]) -> Result<Option<Vec<u8>>>;

/// Rewrites the records of `def` from `from` up to `to` (both included; `None`: the table's end) in transactions
/// of `PACK_BATCH` records read, so that a large file needs no large transaction: each record `f` gives new bytes
/// for is replaced by them; `first` runs inside the first transaction that replaces any. A crash between two
/// transactions leaves records of both kinds, which read alike. Returns how many it replaced.
fn rewrite_records(
    db: &Database,
    def: redb::TableDefinition<'static, tables::RecK, &'static [u8]>,
    from: RecKey,
    to: Option<RecKey>,
    f: Rewrite<'_>,
    first: &mut dyn FnMut(&WriteTransaction) -> Result<()>,
) -> Result<u64> {
    use redb::ReadableTable;
    use std::ops::Bound;
    let mut after: Option<RecKey> = None;
    let mut replaced = 0u64;
    loop {
        let mut w = db.begin_write()?;
        w.set_quick_repair(true);
        let (seen, last, batch) = {
            let t = w.open_table(def)?;
            let lo = match &after {
                Some((a, b, c)) => Bound::Excluded((a.as_str(), b.as_str(), *c)),
                None => Bound::Included((from.0.as_str(), from.1.as_str(), from.2)),
            };
            let hi = match &to {
                Some((a, b, c)) => Bound::Included((a.as_str(), b.as_str(), *c)),
                None => Bound::Unbounded,
            };
            let (mut seen, mut last, mut batch) = (0usize, None, Vec::new());
            for e in t.range::<(&str, &str, u64)>((lo, hi))? {
                let (k, v) = e?;
                let key = k.value();
                if let Some(new) = f(key, v.value())? {
                    batch.push(((key.0.to_string(), key.1.to_string(), key.2), new));
                }
                seen += 1;
                if seen >= PACK_BATCH {
                    last = Some((key.0.to_string(), key.1.to_string(), key.2));
                    break;
                }
            }
            (seen, last, batch)
        };
        if batch.is_empty() {
            w.abort()?;
        } else {
            if replaced == 0 {
                first(&w)?;
            }
            {
                let mut t = w.open_table(def)?;
                for ((a, b, c), v) in &batch {
                    t.insert((a.as_str(), b.as_str(), *c), v.as_slice())?;
                }
            }
            w.commit()?;
            replaced += batch.len() as u64;
        }
        if seen < PACK_BATCH {
            return Ok(replaced);
        }
        after = last;
    }
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
