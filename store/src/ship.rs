//! The store's side of shipping its write-ahead log off the machine (continuous backup, point-in-time restore, a
//! standby that follows). Nothing here speaks to a network: the `offbox` crate moves bytes; this module says
//! what the bytes are and applies them.
//!
//! - Every batch's log record carries its commit time (meta `commit_ms`, an op like any other), so a restore can
//!   stop at a moment of the primary's own clock.
//! - With `Options::ship_dir`, a checkpoint moves the folded log into that directory (`wal::kept_name`: first
//!   and last sequence numbers) instead of emptying it, and opening moves a log left by a crash there after
//!   replaying it: every record stays on disk until the shipper has sent it and deletes the file. The writer
//!   also hands each record to a `Feed` in memory (bounded: when full, records are dropped from it and reach the
//!   shipper through the kept files), so a change can leave the machine well before the next checkpoint.
//! - A record is shipped only once it is durable here (`Store::durable_seq`): the bucket never holds a change
//!   this machine could lose in a crash, so after a restart the local log and the bucket agree.
//! - `FileApplier` rebuilds a data file from a snapshot plus records (restore); `Store::apply_replica` applies
//!   records to a live store through its writer (a follower), with readers' caches told what changed.
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use redb::{Database, ReadableDatabase};

use crate::error::{Result, StoreError};
use crate::tables;
use crate::wal::{Apply, Redo};

/// The meta key of a batch's commit time (milliseconds since the epoch, big-endian).
pub const COMMIT_MS: &str = "commit_ms";
/// The meta key a follower (or a restore) keeps the primary's last applied position under: `seq` (8 bytes BE).
pub const FOLLOW_SEQ: &str = "follow_seq";

/// One record of the log: its sequence number, its commit time, and its bytes as the log holds them
/// (`len | crc | seq | synced | ops`).
#[derive(Clone, Debug)]
pub struct LogRecord {
    pub seq: u64,
    pub commit_ms: Option<i64>,
    pub bytes: Arc<[u8]>,
}

impl LogRecord {
    /// Reads one record at the start of `b`: the record and the bytes it took. None when `b` does not start with a
    /// whole record whose checksum is right.
    pub fn parse(b: &[u8]) -> Option<(LogRecord, usize)> {
        let len = u32::from_le_bytes(b.get(0..4)?.try_into().ok()?) as usize;
        let crc = u32::from_le_bytes(b.get(4..8)?.try_into().ok()?);
        let body = b.get(8..8usize.checked_add(len)?)?;
        if len < 16 || crc32fast::hash(body) != crc {
            return None;
        }
        let seq = u64::from_le_bytes(body[0..8].try_into().ok()?);
        let commit_ms = commit_ms_of(&body[16..]);
        Some((LogRecord { seq, commit_ms, bytes: Arc::from(&b[..8 + len]) }, 8 + len))
    }

    /// The ops of the record.
    pub(crate) fn ops(&self) -> &[u8] {
        &self.bytes[24..]
    }
}

/// Every record of `b`, a run of whole records (a segment's body). An error names the offset of the first bad one.
pub fn parse_records(b: &[u8]) -> Result<Vec<LogRecord>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < b.len() {
        let (r, n) = LogRecord::parse(&b[at..]).ok_or_else(|| StoreError::Storage(format!("log segment: bad record at byte {at}")))?;
        out.push(r);
        at += n;
    }
    Ok(out)
}

/// The commit time an ops run carries (meta `commit_ms`), if any.
fn commit_ms_of(mut ops: &[u8]) -> Option<i64> {
    let mut found = None;
    while ops.len() >= 6 {
        let (table, kind) = (ops[0], ops[1]);
        let klen = u32::from_le_bytes(ops[2..6].try_into().ok()?) as usize;
        let k = ops.get(6..6 + klen)?;
        ops = &ops[6 + klen..];
        let v = if kind == 1 {
            let vlen = u32::from_le_bytes(ops.get(0..4)?.try_into().ok()?) as usize;
            let v = ops.get(4..4 + vlen)?;
            ops = &ops[4 + vlen..];
            Some(v)
        } else {
            None
        };
        if table == 0 && k == COMMIT_MS.as_bytes() {
            found = v.and_then(|v| v.try_into().ok()).map(i64::from_be_bytes);
        }
    }
    found
}

/// A log file kept for shipping: its path and the sequence numbers its name gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept {
    pub path: PathBuf,
    pub first: u64,
    pub last: u64,
    pub bytes: u64,
}

/// The kept log files of `dir`, oldest first.
pub fn kept_files(dir: &Path) -> Result<Vec<Kept>> {
    let mut out = Vec::new();
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e.into()),
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".wal")) else { continue };
        let Some((a, b)) = stem.split_once('-') else { continue };
        let (Ok(first), Ok(last)) = (a.parse::<u64>(), b.parse::<u64>()) else { continue };
        let bytes = e.metadata().map(|m| m.len()).unwrap_or(0);
        out.push(Kept { path: e.path(), first, last, bytes });
    }
    out.sort_by_key(|k| (k.first, k.last));
    Ok(out)
}

/// The valid records of a kept log file (its header is checked; a torn tail is left out).
pub fn read_kept(path: &Path) -> Result<Vec<LogRecord>> {
    let b = std::fs::read(path)?;
    let start = crate::wal::HEADER as usize;
    if b.len() < start || !crate::wal::is_v2_header(&b) {
        return Err(StoreError::Storage(format!("{}: not a write-ahead log of this version", path.display())));
    }
    let mut out = Vec::new();
    let mut at = start;
    while at < b.len() {
        let Some((r, n)) = LogRecord::parse(&b[at..]) else { break };
        out.push(r);
        at += n;
    }
    Ok(out)
}

/// Records handed from the writer to the shipper in memory, oldest first, at most `cap` bytes: past that a new
/// record is not queued (the shipper finds it in the kept files).
pub struct Feed {
    q: Mutex<(VecDeque<LogRecord>, usize)>,
    cap: usize,
}

impl Feed {
    pub fn new(cap: usize) -> Feed {
        Feed { q: Mutex::new((VecDeque::new(), 0)), cap }
    }

    pub(crate) fn push(&self, seq: u64, rec: &[u8]) {
        if let Ok(mut g) = self.q.lock()
            && g.1 + rec.len() <= self.cap {
            let r = LogRecord::parse(rec).map(|(r, _)| r);
            if let Some(r) = r {
                debug_assert_eq!(r.seq, seq);
                g.1 += rec.len();
                g.0.push_back(r);
            }
        }
    }

    /// The queued records from `from` on, in order and without a gap, up to `upto` (what is durable). Records
    /// before `from` are dropped. Empty when the queue does not hold `from` (the shipper reads the kept files).
    pub fn take(&self, from: u64, upto: u64) -> Vec<LogRecord> {
        let Ok(mut g) = self.q.lock() else { return Vec::new() };
        while g.0.front().is_some_and(|r| r.seq < from) {
            let r = g.0.pop_front().expect("front");
            g.1 -= r.bytes.len();
        }
        let mut out = Vec::new();
        for (r, want) in g.0.iter().zip(from..) {
            if r.seq != want || r.seq > upto {
                break;
            }
            out.push(r.clone());
        }
        out
    }

    /// Bytes queued.
    pub fn bytes(&self) -> usize {
        self.q.lock().map(|g| g.1).unwrap_or(0)
    }
}

/// Where a restore stopped: the last record applied and its commit time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    pub seq: u64,
    pub commit_ms: Option<i64>,
    pub records: u64,
}

/// Applies records to a data file no process has open (a snapshot being restored), a few thousand per
/// transaction; the position is kept in meta `follow_seq`.
pub struct FileApplier {
    db: Database,
    at: Applied,
}

impl FileApplier {
    /// Opens the snapshot at `path`, which holds every record up to `from`.
    pub fn open(path: &Path, from: u64) -> Result<FileApplier> {
        // A modest cache: the restore writes near the end of each table, and a machine restoring a large file
        // should not give it a gigabyte (redb's default).
        let db = crate::backup::open_offline(path, 128 << 20)?;
        // The snapshot's own meta may carry a position of another stream (a promoted standby's): this is its place.
        let w = db.begin_write()?;
        w.open_table(tables::META)?.insert(FOLLOW_SEQ, from.to_be_bytes().as_slice())?;
        w.commit()?;
        Ok(FileApplier { db, at: Applied { seq: from, ..Applied::default() } })
    }

    pub fn position(&self) -> Applied {
        self.at
    }

    /// Applies the records after the position, in order; stops before the first one committed after `until`
    /// (milliseconds) and answers true then (the moment is reached). A record that does not follow the position
    /// is an error naming both.
    pub fn apply(&mut self, records: &[LogRecord], until: Option<i64>) -> Result<bool> {
        let mut reached = false;
        for part in records.chunks(4_096) {
            let mut w = self.db.begin_write()?;
            w.set_durability(redb::Durability::None).map_err(|e| StoreError::Storage(e.to_string()))?;
            {
                let mut a = Apply::open(&w, &Redo::default())?;
                for r in part {
                    if r.seq <= self.at.seq {
                        continue;
                    }
                    if r.seq != self.at.seq + 1 {
                        return Err(StoreError::Storage(format!("log records missing: {} follows {}", r.seq, self.at.seq)));
                    }
                    if let (Some(u), Some(t)) = (until, r.commit_ms)
                        && t > u {
                        reached = true;
                        break;
                    }
                    a.ops(r.ops())?;
                    self.at.seq = r.seq;
                    self.at.commit_ms = r.commit_ms.or(self.at.commit_ms);
                    self.at.records += 1;
                }
                a.put_meta(FOLLOW_SEQ, self.at.seq.to_be_bytes().as_slice())?;
            }
            w.commit()?;
            if reached {
                break;
            }
        }
        Ok(reached)
    }

    /// Sets a meta key (in the next commit).
    pub fn put_meta(&mut self, key: &str, v: &[u8]) -> Result<()> {
        let w = self.db.begin_write()?;
        w.open_table(tables::META)?.insert(key, v)?;
        w.commit()?;
        Ok(())
    }

    /// Makes everything applied durable and closes the file.
    pub fn finish(self) -> Result<Applied> {
        let mut w = self.db.begin_write()?;
        w.set_quick_repair(true);
        w.commit()?;
        Ok(self.at)
    }
}

/// The primary's position inside a write transaction.
pub(crate) fn follow_seq_in(w: &redb::WriteTransaction) -> Result<u64> {
    use redb::ReadableTable;
    let t = w.open_table(tables::META)?;
    Ok(t.get(FOLLOW_SEQ)?.and_then(|v| v.value().try_into().ok().map(u64::from_be_bytes)).unwrap_or(0))
}

/// The primary's position a file holds (meta `follow_seq`), 0 when none.
pub fn follow_seq_of(db: &Database) -> Result<u64> {
    let r = db.begin_read()?;
    let t = r.open_table(tables::META)?;
    Ok(t.get(FOLLOW_SEQ)?.and_then(|v| v.value().try_into().ok().map(u64::from_be_bytes)).unwrap_or(0))
}

/// A meta key of a file no process has open.
pub fn meta_of_file(path: &Path, key: &str) -> Result<Option<Vec<u8>>> {
    let db = crate::backup::open_offline(path, 16 << 20)?;
    let r = db.begin_read()?;
    let t = r.open_table(tables::META)?;
    Ok(t.get(key)?.map(|v| v.value().to_vec()))
}

/// The data file identity a kept log names in its header (None: not a log of this format).
pub fn kept_id(path: &Path) -> Option<[u8; 16]> {
    use std::io::Read;
    let mut head = [0u8; crate::wal::HEADER as usize];
    std::fs::File::open(path).ok()?.read_exact(&mut head).ok()?;
    if !crate::wal::is_v2_header(&head) {
        return None;
    }
    head[8..24].try_into().ok()
}

/// The kept logs of `dir` that belong to the data file `id` (a log of another file — one left by a file a restore
/// replaced — is never shipped as this file's), oldest first; and those that do not.
pub fn kept_files_of(dir: &Path, id: Option<[u8; 16]>) -> Result<(Vec<Kept>, Vec<Kept>)> {
    let (mut ours, mut others) = (Vec::new(), Vec::new());
    for k in kept_files(dir)? {
        if id.is_some() && kept_id(&k.path) == id {
            ours.push(k);
        } else {
            others.push(k);
        }
    }
    Ok((ours, others))
}

/// What one log record changed, as people read it: each business record written or removed (tenant, resource,
/// id, and the record), and how many other entries (indexes, counters, sessions, files) it touched. For an
/// administrator reconciling changes that never reached the replica (`zhizhuang fenced`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Described {
    pub seq: u64,
    pub commit_ms: Option<i64>,
    pub records: Vec<serde_json::Value>,
    pub other_entries: u64,
}

pub fn describe(r: &LogRecord) -> Described {
    let mut out = Described { seq: r.seq, commit_ms: r.commit_ms, records: Vec::new(), other_entries: 0 };
    let mut ops = r.ops();
    while ops.len() >= 6 {
        let (table, kind) = (ops[0], ops[1]);
        let Ok(klen) = ops[2..6].try_into().map(u32::from_le_bytes) else { break };
        let Some(k) = ops.get(6..6 + klen as usize) else { break };
        ops = &ops[6 + klen as usize..];
        let v = if kind == 1 {
            let Some(vlen) = ops.get(0..4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes) else { break };
            let Some(v) = ops.get(4..4 + vlen as usize) else { break };
            ops = &ops[4 + vlen as usize..];
            Some(v)
        } else {
            None
        };
        if table == crate::wal::T::Records as u8 || table == crate::wal::T::Deleted as u8 {
            let (tenant, resource, id) = <(&str, &str, u64) as redb::Value>::from_bytes(k);
            let doc = v.and_then(|v| crate::codec::decode_record(v).ok()).map(serde_json::Value::Object);
            let what = match (table == crate::wal::T::Deleted as u8, kind == 1) {
                (false, true) => "written",
                (false, false) => "removed",
                (true, true) => "moved to the recycle bin",
                (true, false) => "purged from the recycle bin",
            };
            out.records.push(serde_json::json!({"tenant": tenant, "resource": resource, "id": id.to_string(), "change": what, "record": doc}));
        } else if table != crate::wal::T::Meta as u8 {
            out.other_entries += 1;
        }
    }
    out
}
