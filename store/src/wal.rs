//! The write-ahead log (`<data file>-wal`): what makes a group commit durable without writing redb's pages.
//!
//! A durable redb commit writes every page the batch dirtied, each a random 4 KiB write, then an fsync: on the
//! development disk that is ~36 µs a page, and a batch of 64 stock picks dirties about a thousand of them. With
//! the log, a batch commits to redb without durability (redb 4 keeps those pages in memory and reuses them until
//! the next durable commit) and its changes — every key written or removed, table by table, as redb encodes them —
//! are appended to this file and fsynced: one sequential write. Every second or so, when the log passes a few
//! MiB, when the writer falls idle and at shutdown, a checkpoint makes redb durable (each dirty page written
//! once, however many batches changed it), records the last log sequence it holds in meta `wal_seq`, and empties
//! the log — by moving it aside to `-wal.folded` and starting a new one, since the checkpoint's pages reach the
//! disk after its commit returns (`behind`); the folded log goes once they are there. A clean shutdown removes
//! both: the data file alone is the whole database again.
//!
//! Opening the store replays the logs first (a folded log, then the log): the records after the file's `wal_seq`
//! are applied and checkpointed.
//! What opening trusts, and what it refuses (`Refusal`, the server does not start; `recover_accepting_loss` is
//! the operator's way on):
//! - a torn tail — the last records of an append the crash interrupted, never acknowledged — is cut off. A bad
//!   record counts as torn only when no valid record after it was written after a sync that covered it (each
//!   record carries `synced`, the last sequence durable when it was written): then none of them was acknowledged;
//! - a bad record followed by one written after it was synced is damage, refused: the records after it were
//!   acknowledged and would be lost silently;
//! - the first record applied must follow `wal_seq` exactly and records must be consecutive: a gap means the data
//!   file is an older copy than the log (or records are missing), refused;
//! - the log names the data file it belongs to (meta `wal_id`, random per file; a backup's copy gets its own): a
//!   log of another file is refused, never applied nor silently set aside (`recover --accept-loss` sets it aside
//!   as `.discarded-*`, saying so); a log of a newer format is refused naming it; a log an older release set
//!   aside (`.orphan-*`) stops the open until `recover` applies or discards it.
//!
//! A log that was folded is not thrown away but kept as the next log's file (`-wal.spare`; `Wal::settle`,
//! `Wal::rotate`), as a database recycles its log segments: writing over blocks the file already has, a sync
//! writes the records alone, where appending to a new file also had to write its size and extents (on this
//! machine's disk an append-and-sync took 305 µs at the median, a write-over-and-sync 143 µs). What the file held
//! before stays after the records until written over: every append writes `END` (eight zero bytes) after its
//! record, so a log ends cleanly at its last record whatever follows, and an old record left further on is never
//! taken for a new one — its sequence number is below the log's first, and the check for damage (below) counts
//! only later numbers. Opening removes a spare; a clean shutdown removes it with the log.
//!
//! Every file operation goes through `fs::Fs` (tests fail or record them). An error writing, syncing or
//! truncating the log is never retried: the writer stops taking writes (`StoreError::Failed`).
//!
//! Record: `len u32 | crc32 u32 | seq u64 | synced u64 | ops` (after the last one: `END`), an op `table u8 |
//! kind u8 | key len u32 | key | (value len u32 | value)` — little-endian; the crc covers everything after it. (Logs
//! of format 1, without `synced` or `END`, are still read.)
use std::borrow::Borrow;
use std::cell::RefCell;
use std::ops::RangeBounds;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use redb::{AccessGuard, Key, Range, ReadableTable, ReadableTableMetadata, StorageError, Table, TableStats, Value, WriteTransaction};

use crate::error::{Result, StoreError};
use crate::fs::{Fs, LogFile};
use crate::tables;

/// Format 2: records carry `synced`.
const MAGIC: &[u8; 8] = b"ZZWAL\0\0\x02";
/// Format 1, read at open (a log left by the binary before).
const MAGIC_1: &[u8; 8] = b"ZZWAL\0\0\x01";
/// Magic and the data file's id.
pub(crate) const HEADER: u64 = 8 + 16;

/// Whether `b` starts with the header of a log of this format.
pub(crate) fn is_v2_header(b: &[u8]) -> bool {
    b.get(..8) == Some(MAGIC.as_slice())
}
const PUT: u8 = 1;
const DEL: u8 = 2;
/// Written after every record: where the log ends (a zero length and checksum, which no record has).
const END: [u8; 8] = [0; 8];
/// A folded log file larger than this is removed rather than kept for reuse (a burst does not keep its size).
const SPARE_MAX: u64 = 64 << 20;

/// Meta keys of the data file: its id, and the last log sequence a checkpoint folded into it.
pub(crate) const META_ID: &str = "wal_id";
pub(crate) const META_SEQ: &str = "wal_seq";

/// The log beside a data file.
pub fn path_for(data: &Path) -> PathBuf {
    suffixed(data, "-wal")
}

/// `path` with `suffix` added to its name.
fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// The log a checkpoint has folded into the data file, kept until the checkpoint's pages are on disk (a few
/// hundred milliseconds; see `Wal::rotate`). Opening replays it before the log.
pub fn folded_path_for(data: &Path) -> PathBuf {
    folded_beside(&path_for(data))
}

/// The folded log's name beside the log at `log`.
fn folded_beside(log: &Path) -> PathBuf {
    suffixed(log, ".folded")
}

/// A folded log kept as the file of the next log (see the module's comment).
pub fn spare_path_for(data: &Path) -> PathBuf {
    spare_beside(&path_for(data))
}

fn spare_beside(log: &Path) -> PathBuf {
    suffixed(log, ".spare")
}

/// Which table an op names (its byte in the log).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum T {
    Meta = 0,
    Records = 1,
    Deleted = 2,
    Index = 3,
    Unique = 4,
    Counters = 5,
    Sessions = 6,
    Chunks = 7,
    Changes = 8,
}

/// The changes of one write transaction, shared by the tables it writes through (one thread: the writer).
#[derive(Clone, Default)]
pub(crate) struct Redo(Option<Rc<RefCell<Vec<u8>>>>);

/// Bytes before a record's ops: `len u32 | crc32 u32 | seq u64 | synced u64`.
const REC_HEAD: usize = 24;

impl Redo {
    /// A redo buffer that records (`on`), or one that does nothing (the log is off, or a backup's copy). Its
    /// first bytes are kept for the record's head, filled in by `record`: the ops are never copied again (a 10 MB
    /// upload is one buffer of it on its way to the log, not three).
    pub(crate) fn new(on: bool) -> Redo {
        Redo(on.then(|| {
            let mut b = Vec::with_capacity(16 << 10);
            b.resize(REC_HEAD, 0);
            Rc::new(RefCell::new(b))
        }))
    }

    fn op(&self, t: T, kind: u8, k: &[u8], v: Option<&[u8]>) {
        if let Some(buf) = &self.0 {
            let mut b = buf.borrow_mut();
            b.push(t as u8);
            b.push(kind);
            b.extend_from_slice(&(k.len() as u32).to_le_bytes());
            b.extend_from_slice(k);
            if let Some(v) = v {
                b.extend_from_slice(&(v.len() as u32).to_le_bytes());
                b.extend_from_slice(v);
            }
        }
    }

    /// The record of everything recorded, numbered `seq`, written when `synced` was the last durable sequence
    /// (None when nothing was written or it does not record). Takes the buffer: a redo makes one record.
    pub(crate) fn record(&self, seq: u64, synced: u64) -> Option<Vec<u8>> {
        let cell: &RefCell<Vec<u8>> = self.0.as_ref()?;
        let mut buf = cell.borrow_mut();
        if buf.len() <= REC_HEAD {
            return None;
        }
        let mut rec = std::mem::take(&mut *buf);
        rec[8..16].copy_from_slice(&seq.to_le_bytes());
        rec[16..24].copy_from_slice(&synced.to_le_bytes());
        let crc = crc32fast::hash(&rec[8..]);
        let len = (rec.len() - 8) as u32;
        rec[0..4].copy_from_slice(&len.to_le_bytes());
        rec[4..8].copy_from_slice(&crc.to_le_bytes());
        Some(rec)
    }
}

/// A write table whose every change is also recorded in the transaction's redo buffer. Reads go straight to
/// the table; the store writes only through these, so nothing a batch changes is missing from its record.
pub struct Logged<'t, K: Key + 'static, V: Value + 'static> {
    t: Table<'t, K, V>,
    id: T,
    redo: Redo,
}

impl<'t, K: Key + 'static, V: Value + 'static> Logged<'t, K, V> {
    pub(crate) fn new(t: Table<'t, K, V>, id: T, redo: &Redo) -> Self {
        Logged { t, id, redo: redo.clone() }
    }

    /// Room in the batch's record for `bytes` more of changes (a large value about to be written).
    pub fn reserve_log(&self, bytes: usize) {
        if let Some(buf) = &self.redo.0 {
            buf.borrow_mut().reserve(bytes);
        }
    }

    /// A table of another database (a backup's copy): nothing recorded.
    pub(crate) fn plain(t: Table<'t, K, V>) -> Self {
        Logged { t, id: T::Meta, redo: Redo::default() }
    }

    pub fn insert<'k, 'v>(&mut self, key: impl Borrow<K::SelfType<'k>>, value: impl Borrow<V::SelfType<'v>>) -> std::result::Result<Option<AccessGuard<'_, V>>, StorageError> {
        self.redo.op(self.id, PUT, K::as_bytes(key.borrow()).as_ref(), Some(V::as_bytes(value.borrow()).as_ref()));
        self.t.insert(key, value)
    }

    pub fn remove<'a>(&mut self, key: impl Borrow<K::SelfType<'a>>) -> std::result::Result<Option<AccessGuard<'_, V>>, StorageError> {
        self.redo.op(self.id, DEL, K::as_bytes(key.borrow()).as_ref(), None);
        self.t.remove(key)
    }

    /// Removes the entries of `range` for which `keep` is false; returns how many went.
    pub fn remove_in<'a, KR>(&mut self, range: impl RangeBounds<KR> + 'a, mut keep: impl FnMut(K::SelfType<'_>, V::SelfType<'_>) -> bool) -> Result<u64>
    where
        KR: Borrow<K::SelfType<'a>> + 'a,
    {
        let mut doomed: Vec<Vec<u8>> = Vec::new();
        for e in self.t.range(range)? {
            let (k, v) = e?;
            if !keep(k.value(), v.value()) {
                doomed.push(K::as_bytes(&k.value()).as_ref().to_vec());
            }
        }
        for k in &doomed {
            self.remove(K::from_bytes(k))?;
        }
        Ok(doomed.len() as u64)
    }
}

impl<K: Key + 'static, V: Value + 'static> ReadableTableMetadata for Logged<'_, K, V> {
    fn stats(&self) -> std::result::Result<TableStats, StorageError> {
        self.t.stats()
    }
    fn len(&self) -> std::result::Result<u64, StorageError> {
        self.t.len()
    }
}

impl<K: Key + 'static, V: Value + 'static> ReadableTable<K, V> for Logged<'_, K, V> {
    fn get<'a>(&self, key: impl Borrow<K::SelfType<'a>>) -> std::result::Result<Option<AccessGuard<'_, V>>, StorageError> {
        self.t.get(key)
    }
    fn range<'a, KR>(&self, range: impl RangeBounds<KR> + 'a) -> std::result::Result<Range<'_, K, V>, StorageError>
    where
        KR: Borrow<K::SelfType<'a>> + 'a,
    {
        self.t.range(range)
    }
    fn first(&self) -> std::result::Result<Option<(AccessGuard<'_, K>, AccessGuard<'_, V>)>, StorageError> {
        self.t.first()
    }
    fn last(&self) -> std::result::Result<Option<(AccessGuard<'_, K>, AccessGuard<'_, V>)>, StorageError> {
        self.t.last()
    }
}

/// The open log of a running store (used by the writer thread only).
pub(crate) struct Wal {
    file: Box<dyn LogFile>,
    fs: Arc<dyn Fs>,
    path: PathBuf,
    /// The data file's id (the header of every log file of it).
    id: [u8; 16],
    /// Bytes of the log (the file may hold more: `END`, and what a reused file held before).
    len: u64,
    /// Bytes known to be on disk.
    synced: u64,
    /// The file's size as far as it is known: what it was when reused, or the end of the last write.
    size: u64,
    /// A folded log kept at `spare_beside(path)` for the next log, and its size.
    spare: Option<u64>,
    /// The last sequence number given out.
    pub(crate) seq: u64,
    /// The last sequence number known to be on disk (in the log, or folded into the data file).
    pub(crate) durable_seq: u64,
    /// `durable_seq` for other threads (the shipper reads what it may send).
    durable: Arc<std::sync::atomic::AtomicU64>,
    /// The first sequence number of this file's records (the one after the last checkpoint).
    first: u64,
    /// Where a checkpoint moves the log it folded, instead of emptying it (shipping keeps them until sent).
    keep: Option<PathBuf>,
    /// When the log was last emptied by a checkpoint.
    pub(crate) folded_at: std::time::Instant,
    /// A folded log could not be removed (said once).
    remove_failed: bool,
    /// A due checkpoint put off while the last one's pages are on their way (counted once; see `writer::fold`).
    pub(crate) postponed: bool,
    /// A checkpoint whose pages are still on their way to the disk: its log, moved aside, is kept until then.
    folding: Option<Folding>,
    /// How long the last checkpoint took from its commit's start until its pages were on disk (taken by the
    /// writer's figures).
    pub(crate) disk_time: Option<std::time::Duration>,
}

/// The log a checkpoint folded (at `folded_path_for`): records `first..=last`, on disk once the data file's
/// write-behind has completed sync `ticket`.
struct Folding {
    ticket: u64,
    first: u64,
    last: u64,
    /// Its file's size.
    size: u64,
    /// When its commit began.
    began: std::time::Instant,
}

/// The name a folded log gets in the keep directory: its first and last sequence numbers.
pub fn kept_name(first: u64, last: u64) -> String {
    format!("{first:020}-{last:020}.wal")
}

impl Wal {
    /// A fresh, empty log for the data file with `id` (replacing any file there: replay has run). With `keep`, each
    /// checkpoint moves the folded log there (`kept_name`) and starts a new file.
    pub(crate) fn create(fs: &Arc<dyn Fs>, path: &Path, id: &[u8; 16], seq: u64, keep: Option<PathBuf>, durable: Arc<std::sync::atomic::AtomicU64>) -> Result<Wal> {
        // A spare the last run left is not reused (its old records are of that run's numbering); one that cannot be
        // removed is replaced by the first one kept.
        let _ = fs.remove(&spare_beside(path));
        let (file, size) = Self::new_file(fs, path, id, None)?;
        durable.store(seq, std::sync::atomic::Ordering::Release);
        Ok(Wal {
            file,
            fs: fs.clone(),
            path: path.to_path_buf(),
            id: *id,
            len: HEADER,
            synced: HEADER,
            size,
            spare: None,
            seq,
            durable_seq: seq,
            durable,
            first: seq + 1,
            keep,
            folded_at: std::time::Instant::now(),
            folding: None,
            postponed: false,
            remove_failed: false,
            disk_time: None,
        })
    }

    /// A new log file at `path`: the spare (of `spare` bytes) renamed into place and written over, or (without one,
    /// or when renaming it fails) a new file. Its size is returned.
    fn new_file(fs: &Arc<dyn Fs>, path: &Path, id: &[u8; 16], spare: Option<u64>) -> Result<(Box<dyn LogFile>, u64)> {
        let reused = spare.filter(|_| fs.rename(&spare_beside(path), path).is_ok());
        let mut file = match reused {
            Some(_) => fs.reuse_log(path)?,
            None => fs.create_log(path)?,
        };
        let mut head = MAGIC.to_vec();
        head.extend_from_slice(id);
        head.extend_from_slice(&END);
        file.write_at(0, &head)?;
        file.sync()?;
        fs.sync_dir(path)?;
        Ok((file, reused.unwrap_or(0).max(head.len() as u64)))
    }

    /// Bytes of records waiting for a checkpoint.
    pub(crate) fn pending(&self) -> u64 {
        self.len - HEADER
    }

    /// Appends a record; returns the length before it (to take it back if the commit fails). A failed write
    /// leaves the length as it was (what reached the file past it is cut at the next truncate, or is a torn tail).
    pub(crate) fn append(&mut self, rec: &mut Vec<u8>) -> Result<u64> {
        let before = self.len;
        let n = rec.len();
        // The record and `END` in one write, without a copy of the record (`END` goes on its end and comes off).
        rec.extend_from_slice(&END);
        let written = self.file.write_at(before, rec);
        rec.truncate(n);
        written?;
        self.len += n as u64;
        self.size = self.size.max(before + (n + END.len()) as u64);
        Ok(before)
    }

    /// Makes every appended record durable. Never retried: after a failed fsync the kernel may report later ones
    /// as successful for pages that never reached the disk, so the caller stops writing.
    pub(crate) fn sync(&mut self) -> Result<()> {
        if self.synced < self.len {
            let t = crate::trace::start();
            self.file.sync()?;
            crate::trace::event("sync", t, || format!("{}", self.len - self.synced));
            self.synced = self.len;
            self.set_durable(self.seq);
        }
        Ok(())
    }

    fn set_durable(&mut self, seq: u64) {
        self.durable_seq = seq;
        self.durable.store(seq, std::sync::atomic::Ordering::Release);
    }

    /// Takes back what was appended after `len` (a record whose commit failed). The length is the file's as soon
    /// as it is set, whether or not the sync after it succeeds.
    pub(crate) fn truncate(&mut self, len: u64) -> Result<()> {
        self.file.set_len(len)?;
        self.len = len;
        self.size = len;
        self.synced = self.synced.min(len);
        self.file.sync()?;
        self.synced = len;
        Ok(())
    }

    /// Starts a new log after a checkpoint whose pages are not yet on disk (it committed with the write-behind's
    /// syncs deferred; `ticket` is the last of them): this log moves aside to `folded_path_for` and stays until
    /// `settle` finds the ticket done. Call with every record synced. A crash meanwhile leaves both files, and
    /// opening replays the folded one first; the rename and the new file are made durable together (one
    /// directory sync, in `new_file`).
    pub(crate) fn rotate(&mut self, ticket: u64, began: std::time::Instant) -> Result<()> {
        debug_assert!(self.folding.is_none() && self.synced == self.len);
        if self.seq >= self.first {
            let folded = folded_beside(&self.path);
            self.fs.rename(&self.path, &folded)?;
            let size = self.size;
            (self.file, self.size) = Self::new_file(&self.fs, &self.path, &self.id, self.spare.take())?;
            self.len = HEADER;
            self.synced = HEADER;
            self.folding = Some(Folding { ticket, first: self.first, last: self.seq, size, began });
        }
        self.set_durable(self.seq);
        self.first = self.seq + 1;
        self.folded_at = std::time::Instant::now();
        Ok(())
    }

    /// Lets the folded log go once its checkpoint is on disk (`wait`: waits for it): removed, or (logs kept for
    /// shipping) moved to the keep directory. The removal needs no directory sync: a folded log that comes back
    /// after a crash holds only records the data file has, and opening skips them.
    /// How long the pages took to reach the disk after the commit is kept in `disk_time`.
    pub(crate) fn settle(&mut self, behind: &crate::behind::Control, wait: bool) -> Result<()> {
        let Some(f) = &self.folding else { return Ok(()) };
        let done = if wait {
            behind.wait(f.ticket).map(|_| true)
        } else {
            behind.done().map(|d| d >= f.ticket)
        };
        if !done.map_err(|e| StoreError::Storage(format!("writing the data file: {e}")))? {
            return Ok(());
        }
        self.disk_time = behind.done_at().map(|t| t.saturating_duration_since(f.began));
        let folded = folded_beside(&self.path);
        match &self.keep {
            Some(dir) => {
                let to = dir.join(kept_name(f.first, f.last));
                self.fs.rename(&folded, &to)?;
                self.fs.sync_dir(&to)?;
            }
            // Kept for the next log (no directory sync: a spare lost in a crash is only not reused, and a folded
            // log that comes back is skipped at the next open like any other).
            None if self.spare.is_none() && f.size <= SPARE_MAX && self.fs.rename(&folded, &spare_beside(&self.path)).is_ok() => {
                self.spare = Some(f.size);
            }
            None => {
                // Every record of the folded log is in the data file, on disk: a leftover is skipped at the next
                // open and replaced by the next checkpoint's rename, so a failed removal costs disk space, not
                // data, and writes go on (said once).
                if let Err(e) = self.fs.remove(&folded)
                    && !std::mem::replace(&mut self.remove_failed, true) {
                    eprintln!("zz-writer: removing {} failed ({e}); it is replaced at the next checkpoint", folded.display());
                }
            }
        }
        self.folding = None;
        Ok(())
    }

    /// Whether a checkpoint's pages are still on their way (its folded log kept).
    pub(crate) fn folding(&self) -> bool {
        self.folding.is_some()
    }

    /// Removes the file (after the last checkpoint of a clean shutdown).
    pub(crate) fn remove(self) {
        let Wal { file, fs, path, .. } = self;
        drop(file);
        if fs.remove(&path).is_ok() {
            let _ = fs.remove(&spare_beside(&path));
            let _ = fs.sync_dir(&path);
        }
    }
}

/// What opening found in a log.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Replayed {
    /// Records applied (after the file's `wal_seq`).
    pub records: u64,
    /// Records already folded into the file (a crash between a checkpoint and emptying the log).
    pub skipped: u64,
    /// A torn tail was cut off (records of an append the crash interrupted: never acknowledged).
    pub torn_tail: bool,
    /// The log named another data file and was set aside (its new name).
    pub set_aside: Option<PathBuf>,
    /// The last sequence number the file now holds.
    pub seq: u64,
    /// The first and last sequence numbers of the valid records the log held (applied or already folded).
    pub range: Option<(u64, u64)>,
    /// The same of the folded log a checkpoint left (`folded_path_for`), if there was one.
    pub folded_range: Option<(u64, u64)>,
}

/// Why opening refused a log: which file, where, what was found. Its text tells the operator what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub file: PathBuf,
    /// Byte offset in the log of the first record that cannot be trusted.
    pub position: u64,
    /// What was found (English; `zh` is the same in Chinese).
    pub what: String,
    pub zh: String,
    /// Valid records from the refused one to the end: what `recover_accepting_loss` discards.
    pub discarded: u64,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "写前日志 {} 在第 {} 字节处不可信:{}。请从备份恢复数据目录(zhizhuang restore),或运行 `zhizhuang recover --dir <数据目录> --accept-loss` 将日志移到一旁(将丢弃其后的 {} 条记录)。\n\
             The write-ahead log {} cannot be trusted at byte {}: {}. Restore the data directory from a backup (zhizhuang restore), or run `zhizhuang recover --dir <DIR> --accept-loss` to set the log aside ({} records after that point are discarded).",
            self.file.display(), self.position, self.zh, self.discarded, self.file.display(), self.position, self.what, self.discarded
        )
    }
}

/// One record read back: its place, sequence, what was durable when it was written, and its ops.
struct Rec<'a> {
    at: u64,
    seq: u64,
    synced: u64,
    ops: &'a [u8],
}

/// How a log ends after its valid records.
#[derive(Debug, PartialEq, Eq)]
enum End {
    Clean,
    /// A bad record at this offset, and nothing trustworthy after it.
    Torn(u64),
    /// A bad record at this offset followed by valid records that were written after it was synced: how many.
    Damaged(u64, u64),
}

/// The record at `at`, if whole and its crc right.
fn parse_at(bytes: &[u8], at: usize, v2: bool) -> Option<(Rec<'_>, usize)> {
    let head = bytes.get(at..at + 8)?;
    let len = u32::from_le_bytes(head[0..4].try_into().ok()?) as usize;
    let crc = u32::from_le_bytes(head[4..8].try_into().ok()?);
    let min = if v2 { 16 } else { 8 };
    let body = bytes.get(at + 8..(at + 8).checked_add(len)?)?;
    if len < min || crc32fast::hash(body) != crc {
        return None;
    }
    let seq = u64::from_le_bytes(body[0..8].try_into().ok()?);
    let (synced, ops) = if v2 { (u64::from_le_bytes(body[8..16].try_into().ok()?), &body[16..]) } else { (0, &body[8..]) };
    Some((Rec { at: at as u64, seq, synced, ops }, at + 8 + len))
}

/// The valid records of a log and how it ends. At `END`, or after a bad record, every later offset is tried for
/// a valid record with a later sequence: one that was written once the missing one was synced (its `synced`
/// reaches it) proves damage, not a torn append (at `END` with no such record, the log simply ends there; what a
/// reused file held before has earlier numbers and is never counted).
fn read_records(bytes: &[u8], v2: bool, folded: u64) -> (Vec<Rec<'_>>, End) {
    let mut out: Vec<Rec<'_>> = Vec::new();
    let mut at = HEADER as usize;
    while at < bytes.len() {
        match parse_at(bytes, at, v2) {
            Some((r, next)) => {
                out.push(r);
                at = next;
            }
            None => {
                let ended = bytes.get(at..at + END.len()) == Some(END.as_slice());
                // The bad record's number: after the last good one, or (the first of the log) after the file's.
                let bad = out.last().map(|r| r.seq).unwrap_or(folded) + 1;
                let mut later = 0u64;
                let mut proof = false;
                let mut off = at + 1;
                // Most offsets are ruled out by their sequence field alone, before any checksum.
                let plausible = |off: usize| {
                    bytes.get(off + 8..off + 16).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes"))).is_some_and(|s| s >= bad && s - bad < 1 << 32)
                };
                while off + 8 <= bytes.len() {
                    if plausible(off)
                        && let Some((r, next)) = parse_at(bytes, off, v2)
                        && r.seq >= bad {
                        later += 1;
                        proof |= r.synced >= bad;
                        off = next;
                        continue;
                    }
                    off += 1;
                }
                return (out, if proof { End::Damaged(at as u64, later) } else if ended && later == 0 { End::Clean } else { End::Torn(at as u64) });
            }
        }
    }
    (out, End::Clean)
}

/// The tables a replay (or a follower, or a restore) writes, opened once. Through `Logged` tables: a follower's
/// applied records go into its own log like any batch; a replay records nothing (`Redo::default()`).
pub(crate) struct Apply<'t> {
    meta: Logged<'t, tables::Str, &'static [u8]>,
    records: Logged<'t, tables::RecK, &'static [u8]>,
    deleted: Logged<'t, tables::RecK, &'static [u8]>,
    index: Logged<'t, tables::IdxK, ()>,
    unique: Logged<'t, tables::UniqueK, u64>,
    counters: Logged<'t, tables::PairK, u64>,
    sessions: Logged<'t, tables::PairK, &'static [u8]>,
    chunks: Logged<'t, tables::ChunkK, &'static [u8]>,
    changes: Logged<'t, u64, (&'static str, &'static str, u64)>,
    /// Resources whose records the applied ops wrote (and `"sessions"`): their versions move after the commit.
    pub(crate) touched: std::collections::HashSet<String>,
}

fn one<K: Key + 'static, V: Value + 'static>(t: &mut Logged<K, V>, kind: u8, k: &[u8], v: Option<&[u8]>) -> Result<()> {
    match (kind, v) {
        (PUT, Some(v)) => {
            t.insert(K::from_bytes(k), V::from_bytes(v))?;
        }
        (DEL, None) => {
            t.remove(K::from_bytes(k))?;
        }
        _ => return Err(StoreError::Storage("write-ahead log: malformed op".into())),
    }
    Ok(())
}

impl Apply<'_> {
    pub(crate) fn open<'w>(w: &'w WriteTransaction, redo: &Redo) -> Result<Apply<'w>> {
        Ok(Apply {
            meta: Logged::new(w.open_table(tables::META)?, T::Meta, redo),
            records: Logged::new(w.open_table(tables::RECORDS)?, T::Records, redo),
            deleted: Logged::new(w.open_table(tables::DELETED)?, T::Deleted, redo),
            index: Logged::new(w.open_table(tables::INDEX)?, T::Index, redo),
            unique: Logged::new(w.open_table(tables::UNIQUE)?, T::Unique, redo),
            counters: Logged::new(w.open_table(tables::COUNTERS)?, T::Counters, redo),
            sessions: Logged::new(w.open_table(tables::SESSIONS)?, T::Sessions, redo),
            chunks: Logged::new(w.open_table(tables::FILE_CHUNKS)?, T::Chunks, redo),
            changes: Logged::new(w.open_table(tables::CHANGES)?, T::Changes, redo),
            touched: std::collections::HashSet::new(),
        })
    }

    /// Sets a meta key (through the log when the tables record).
    pub(crate) fn put_meta(&mut self, key: &str, v: &[u8]) -> Result<()> {
        self.meta.insert(key, v)?;
        Ok(())
    }

    /// Applies the ops of one record.
    pub(crate) fn ops(&mut self, mut ops: &[u8]) -> Result<()> {
        let bad = || StoreError::Storage("write-ahead log: malformed record".into());
        let take = |b: &mut &[u8], n: usize| -> Result<Vec<u8>> {
            if b.len() < n {
                return Err(bad());
            }
            let (h, t) = b.split_at(n);
            *b = t;
            Ok(h.to_vec())
        };
        while !ops.is_empty() {
            let head = take(&mut ops, 2)?;
            let (table, kind) = (head[0], head[1]);
            let klen = u32::from_le_bytes(take(&mut ops, 4)?.try_into().map_err(|_| bad())?) as usize;
            let k = take(&mut ops, klen)?;
            let v = if kind == PUT {
                let vlen = u32::from_le_bytes(take(&mut ops, 4)?.try_into().map_err(|_| bad())?) as usize;
                Some(take(&mut ops, vlen)?)
            } else {
                None
            };
            let v = v.as_deref();
            match table {
                0 => one(&mut self.meta, kind, &k, v)?,
                1 | 2 => {
                    self.touched.insert(<tables::RecK as Value>::from_bytes(&k).1.to_string());
                    one(if table == 1 { &mut self.records } else { &mut self.deleted }, kind, &k, v)?
                }
                3 => one(&mut self.index, kind, &k, v)?,
                4 => one(&mut self.unique, kind, &k, v)?,
                5 => one(&mut self.counters, kind, &k, v)?,
                6 => {
                    self.touched.insert("sessions".to_string());
                    one(&mut self.sessions, kind, &k, v)?
                }
                7 => one(&mut self.chunks, kind, &k, v)?,
                8 => one(&mut self.changes, kind, &k, v)?,
                _ => return Err(bad()),
            }
        }
        Ok(())
    }
}

/// The data file's id and folded sequence (meta), if it has an id yet.
pub(crate) fn file_state(db: &redb::Database) -> Result<(Option<[u8; 16]>, u64)> {
    use redb::ReadableDatabase;
    let r = db.begin_read()?;
    let meta = match r.open_table(tables::META) {
        Ok(m) => m,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok((None, 0)),
        Err(e) => return Err(e.into()),
    };
    let id = meta.get(META_ID)?.and_then(|v| <[u8; 16]>::try_from(v.value()).ok());
    let seq = meta.get(META_SEQ)?.and_then(|v| v.value().try_into().ok().map(u64::from_le_bytes)).unwrap_or(0);
    Ok((id, seq))
}

/// Gives the data file an id (a file from before the log, or a backup's copy) in a durable commit.
pub(crate) fn ensure_id(db: &redb::Database, quick_repair: bool) -> Result<([u8; 16], u64)> {
    if let (Some(id), seq) = file_state(db)? {
        return Ok((id, seq));
    }
    let id: [u8; 16] = rand::random();
    let mut w = db.begin_write()?;
    w.set_quick_repair(quick_repair);
    {
        let mut meta = w.open_table(tables::META)?;
        meta.insert(META_ID, id.as_slice())?;
        meta.insert(META_SEQ, 0u64.to_le_bytes().as_slice())?;
    }
    w.commit()?;
    Ok((id, 0))
}

/// Logs set aside by an earlier release beside `data` (`<log>.orphan-*`), which may hold acknowledged changes.
pub fn set_aside_logs(data: &Path) -> Vec<PathBuf> {
    let log = path_for(data);
    let prefix = format!("{}.orphan-", log.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
    let mut out: Vec<PathBuf> = std::fs::read_dir(crate::fs::dir_of(data))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// Refuses to open while a log set aside by an earlier release lies beside `data`: serving without it would lose
/// what it holds without a word. `zhizhuang recover` applies it (when it continues this file) or discards it.
pub(crate) fn refuse_set_aside(data: &Path) -> Result<()> {
    match set_aside_logs(data).into_iter().next() {
        None => Ok(()),
        Some(file) => Err(StoreError::LogRefused(Box::new(Refusal {
            file,
            position: 0,
            what: "an earlier start set this write-ahead log aside instead of applying it; it may hold acknowledged changes. `zhizhuang recover --dir <DIR> --accept-loss` applies it if it continues this data file and discards it (kept, renamed) if not".to_string(),
            zh: "此前的一次启动把这个写前日志移到一旁而没有应用,其中可能有已确认的修改。运行 `zhizhuang recover --dir <数据目录> --accept-loss`:能接续本数据文件就应用,否则丢弃(改名保留)".to_string(),
            discarded: 0,
        }))),
    }
}

/// Applies the log beside `data` to the open database and makes the result durable, before anything else
/// reads or writes it. A log of another file is renamed aside; a log opening cannot trust is refused (see the
/// module's comment) unless `accept_loss`, which applies the trustworthy records before the refused point and sets
/// the log aside.
pub(crate) fn replay(db: &redb::Database, fs: &Arc<dyn Fs>, data: &Path, quick_repair: bool, accept_loss: bool) -> Result<Replayed> {
    // A checkpoint's folded log first (the crash came before its pages were on disk, or before it was removed):
    // its records are the ones before the log's.
    let before = replay_file(db, fs, folded_path_for(data), quick_repair, accept_loss)?;
    let mut out = replay_file(db, fs, path_for(data), quick_repair, accept_loss)?;
    out.records += before.records;
    out.skipped += before.skipped;
    out.torn_tail |= before.torn_tail;
    out.set_aside = out.set_aside.or(before.set_aside);
    out.folded_range = before.range;
    Ok(out)
}

/// `replay` of one log file.
fn replay_file(db: &redb::Database, fs: &Arc<dyn Fs>, path: PathBuf, quick_repair: bool, accept_loss: bool) -> Result<Replayed> {
    let (id, folded) = file_state(db)?;
    let mut out = Replayed { seq: folded, ..Replayed::default() };
    let Some(bytes) = fs.read(&path)? else { return Ok(out) };
    if bytes.len() < HEADER as usize {
        // Created but never written (a crash while creating it): nothing in it.
        return Ok(out);
    }
    let v2 = &bytes[..8] == MAGIC;
    let known = v2 || &bytes[..8] == MAGIC_1;
    let ours = known && id.is_some_and(|id| bytes[8..24] == id);
    let aside = |out: &mut Replayed, why: &str| -> Result<()> {
        let to = PathBuf::from(format!("{}.{why}-{}", path.display(), crate::now_millis()));
        fs.rename(&path, &to)?;
        fs.sync_dir(&to)?;
        out.set_aside = Some(to);
        Ok(())
    };
    if !ours {
        let newer = bytes[..7] == MAGIC[..7] && bytes[7] > MAGIC[7];
        if accept_loss && !newer {
            aside(&mut out, "discarded")?;
            return Ok(out);
        }
        let (what, zh) = if newer {
            (
                format!("it is of log format {}, newer than this binary reads ({}): a newer release wrote it; install that release again to apply it", bytes[7], MAGIC[7]),
                format!("日志格式为 {},比本程序能读的({})新:由更新的版本写入,请重新安装该版本以应用它", bytes[7], MAGIC[7]),
            )
        } else {
            (
                "it belongs to another data file (its header names another file); it may hold acknowledged changes of that file".to_string(),
                "它属于另一个数据文件(日志头所记文件不同),其中可能有已确认的修改".to_string(),
            )
        };
        return Err(StoreError::LogRefused(Box::new(Refusal { file: path.clone(), position: 0, what, zh, discarded: 0 })));
    }
    let (records, end) = read_records(&bytes, v2, folded);
    out.range = records.first().zip(records.last()).map(|(a, b)| (a.seq, b.seq));
    let refuse = |position: u64, what: String, zh: String, discarded: u64| {
        StoreError::LogRefused(Box::new(Refusal { file: path.clone(), position, what, zh, discarded }))
    };
    let mut todo: Vec<&Rec<'_>> = Vec::new();
    let mut refused = None;
    for r in &records {
        if r.seq <= folded {
            out.skipped += 1;
            continue;
        }
        let want = todo.last().map(|p| p.seq + 1).unwrap_or(folded + 1);
        if r.seq != want {
            let (what, zh) = if todo.is_empty() {
                (format!("its first record is number {} but the data file holds up to {folded}: the data file is an older copy than the log, or records are missing", r.seq),
                 format!("日志的第一条记录是第 {} 条,而数据文件只到第 {folded} 条:数据文件比日志旧,或缺少记录", r.seq))
            } else {
                (format!("record {} follows record {}: records are missing", r.seq, want - 1), format!("第 {} 条记录接在第 {} 条之后:中间缺少记录", r.seq, want - 1))
            };
            let rest = records.iter().filter(|x| x.at >= r.at).count() as u64;
            refused = Some(refuse(r.at, what, zh, rest));
            break;
        }
        todo.push(r);
    }
    if refused.is_none() {
        match end {
            End::Clean => {}
            End::Torn(_) => out.torn_tail = true,
            End::Damaged(at, later) => {
                refused = Some(refuse(
                    at,
                    format!("a damaged record is followed by {later} valid records written after it was synced"),
                    format!("一条损坏的记录之后还有 {later} 条在它落盘后写入的有效记录"),
                    later + 1,
                ));
            }
        }
    }
    if let Some(e) = refused {
        if !accept_loss {
            return Err(e);
        }
        if let StoreError::LogRefused(r) = &e {
            out.records = 0;
            eprintln!("{r}");
        }
    }
    if !todo.is_empty() {
        let mut w = db.begin_write()?;
        w.set_quick_repair(quick_repair);
        let last = todo.last().map(|r| r.seq).unwrap_or(folded);
        {
            let mut a = Apply::open(&w, &Redo::default())?;
            for r in &todo {
                a.ops(r.ops)?;
            }
            a.put_meta(META_SEQ, last.to_le_bytes().as_slice())?;
        }
        w.commit()?;
        out.records = todo.len() as u64;
        out.seq = last;
    }
    if accept_loss {
        aside(&mut out, "set-aside")?;
    }
    Ok(out)
}

/// Applies a checkpoint: meta `wal_seq` in a durable commit (which writes every page the non-durable commits
/// before it left in memory), then the log is emptied. The commit's pages go to the disk behind the writer (its
/// syncs deferred, see `behind`): the log moves aside until they are there (`Wal::rotate`, `Wal::settle`), and
/// `wait` waits for that (a clean shutdown). A checkpoint first waits for the one before it to be on disk.
pub(crate) fn checkpoint(db: &redb::Database, wal: &mut Wal, quick_repair: bool, behind: &crate::behind::Control, wait: bool) -> Result<()> {
    wal.settle(behind, true)?;
    let began = std::time::Instant::now();
    behind.defer(true);
    let committed = (|| -> Result<()> {
        let mut w = db.begin_write()?;
        w.set_quick_repair(quick_repair);
        w.open_table(tables::META)?.insert(META_SEQ, wal.seq.to_le_bytes().as_slice())?;
        w.commit()?;
        Ok(())
    })();
    let ticket = behind.defer(false);
    committed?;
    wal.rotate(ticket, began)?;
    if wait {
        wal.settle(behind, true)?;
    }
    Ok(())
}

/// Commits of a log beside `data` not yet folded into it (for `verify`): (records, bytes), without changing
/// anything.
pub fn pending(db: &redb::Database, data: &Path) -> Result<(u64, u64)> {
    let (id, folded) = file_state(db)?;
    let (mut n, mut size) = (0, 0);
    // A checkpoint's folded log (its pages were not on disk yet) and the log.
    for log in [folded_path_for(data), path_for(data)] {
        let Ok(bytes) = std::fs::read(log) else { continue };
        let v2 = bytes.get(..8) == Some(MAGIC.as_slice());
        if bytes.len() < HEADER as usize || (!v2 && &bytes[..8] != MAGIC_1) || id.is_none_or(|id| bytes[8..24] != id) {
            continue;
        }
        let (records, _) = read_records(&bytes, v2, folded);
        for r in records.iter().filter(|r| r.seq > folded) {
            n += 1;
            size += r.ops.len() as u64 + 24;
        }
    }
    Ok((n, size))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(seq: u64, synced: u64) -> Vec<u8> {
        let r = Redo::new(true);
        r.op(T::Meta, PUT, format!("k{seq}").as_bytes(), Some(b"v"));
        r.record(seq, synced).expect("a record")
    }

    /// A log of this format for a data file: its header, then `parts`.
    fn log(parts: &[&[u8]]) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&[7; 16]);
        for p in parts {
            b.extend_from_slice(p);
        }
        b
    }

    fn seqs(b: &[u8], folded: u64) -> (Vec<u64>, End) {
        let (r, end) = read_records(b, true, folded);
        (r.iter().map(|r| r.seq).collect(), end)
    }

    /// A reused log file: its records, `END`, then what the file held before — a record cut in the middle, whole
    /// records of lower numbers. The log ends cleanly at `END`, as it does before its first record.
    #[test]
    fn a_reused_file_ends_at_end_whatever_it_held_before() {
        let old: Vec<u8> = [rec(3, 2), rec(4, 3), rec(5, 4)].concat();
        let b = log(&[&rec(10, 9), &rec(11, 10), &END, &old[5..], &old]);
        assert_eq!(seqs(&b, 9), (vec![10, 11], End::Clean));
        assert_eq!(seqs(&log(&[&END, &old]), 9), (vec![], End::Clean));
        // Without `END` the same bytes read as a torn tail.
        let b = log(&[&rec(10, 9), &rec(11, 10), &old[5..]]);
        assert!(matches!(seqs(&b, 9), (v, End::Torn(_)) if v == [10, 11]));
    }

    /// `END` hides no damage: a record after it that was written once the missing one was synced still proves it;
    /// a record cut short is a torn tail.
    #[test]
    fn damage_after_end_is_found_and_a_cut_record_is_torn() {
        let b = log(&[&rec(10, 9), &END, &rec(12, 11)]);
        assert!(matches!(seqs(&b, 9), (v, End::Damaged(_, 1)) if v == [10]));
        let r11 = rec(11, 10);
        let b = log(&[&rec(10, 9), &r11[..r11.len() - 3]]);
        assert!(matches!(seqs(&b, 9), (v, End::Torn(_)) if v == [10]));
    }
}
