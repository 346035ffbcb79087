//! Storage faults and a log that cannot be trusted (issue 27 items 4 and 5). A file layer fails one chosen
//! operation on command; after it the store must stop taking writes (reads go on), answer every write with
//! `Failed`, and reopen with exactly the acknowledged writes. A log with damage before valid records, a gap, or
//! beside an older copy of its data file is refused at open, with a message naming the file and the position;
//! `accept_loss` then opens with what can be trusted and sets the log aside.
mod common;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};

use redb::StorageBackend;
use serde_json::{Map, Value, json};
use store::fs::{Fs, LogFile, OsFs};
use store::{Actor, Options, ResourceDef, Store, StoreError};

fn def() -> Arc<ResourceDef> {
    Arc::new(
        serde_json::from_value(json!({
            "name": "param", "label": "参数",
            "fields": [
                {"name": "paramName", "label": "n", "required": true, "filter": true, "sort": true},
                {"name": "paramKey", "label": "k", "unique": true, "filter": true}
            ]
        }))
        .unwrap(),
    )
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

/// The one operation to fail next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// An append to the log: no space left.
    AppendNoSpace,
    /// An append writes half the record, then fails.
    ShortAppend,
    /// The log's sync after a durable batch's append.
    LogSync,
    /// A checkpoint's rename of the log it folded (kept aside until the checkpoint's pages are on disk).
    FoldRename,
    /// The sync of the new log a checkpoint starts (its header).
    NewLogSync,
    /// The data file's sync (a checkpoint's durable commit, or a durable commit without the log).
    DataSync,
    /// The log's sync after an append, and then the truncate that takes the record back.
    LogSyncAndTruncate,
}

#[derive(Debug, Default)]
struct FaultFs {
    armed: Arc<Mutex<Option<Fault>>>,
    /// Every removal of a folded log fails (a directory that lets files be renamed into it but not removed).
    no_removal: std::sync::atomic::AtomicBool,
    /// Removals refused so far.
    refused_removals: std::sync::atomic::AtomicU64,
}

impl FaultFs {
    fn arm(&self, f: Fault) {
        *self.armed.lock().unwrap() = Some(f);
    }
    fn fired(&self) -> bool {
        self.armed.lock().unwrap().is_none()
    }
}

fn io_err(kind: io::ErrorKind) -> io::Error {
    io::Error::new(kind, "injected fault")
}

#[derive(Debug)]
struct FaultLog {
    inner: Box<dyn LogFile>,
    armed: Arc<Mutex<Option<Fault>>>,
    /// Nothing but the header written yet (a new log).
    fresh: bool,
}

impl FaultLog {
    fn take(&self, f: Fault) -> bool {
        let mut g = self.armed.lock().unwrap();
        if *g == Some(f) {
            *g = None;
            return true;
        }
        false
    }
}

impl LogFile for FaultLog {
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.fresh &= offset == 0;
        if self.take(Fault::AppendNoSpace) {
            return Err(io::Error::from_raw_os_error(28));
        }
        if self.take(Fault::ShortAppend) {
            self.inner.write_at(offset, &data[..data.len() / 2])?;
            return Err(io_err(io::ErrorKind::WriteZero));
        }
        self.inner.write_at(offset, data)
    }
    fn set_len(&mut self, len: u64) -> io::Result<()> {
        let mut g = self.armed.lock().unwrap();
        if *g == Some(Fault::LogSyncAndTruncate) {
            // The sync of the append failed already (the arm moved on): the truncate fails too.
            *g = None;
            return Err(io_err(io::ErrorKind::Other));
        }
        drop(g);
        self.inner.set_len(len)
    }
    fn sync(&mut self) -> io::Result<()> {
        let fresh = self.fresh;
        if fresh && self.take(Fault::NewLogSync) {
            return Err(io_err(io::ErrorKind::Other));
        }
        if !fresh && self.take(Fault::LogSync) {
            return Err(io_err(io::ErrorKind::Other));
        }
        if !fresh && *self.armed.lock().unwrap() == Some(Fault::LogSyncAndTruncate) {
            // Leaves the arm set: the set_len that follows fails as well.
            return Err(io_err(io::ErrorKind::Other));
        }
        self.inner.sync()
    }
}

#[derive(Debug)]
struct FaultData {
    inner: Box<dyn StorageBackend>,
    armed: Arc<Mutex<Option<Fault>>>,
}

impl StorageBackend for FaultData {
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }
    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        self.inner.read(offset, out)
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        self.inner.set_len(len)
    }
    fn sync_data(&self) -> io::Result<()> {
        let mut g = self.armed.lock().unwrap();
        if *g == Some(Fault::DataSync) {
            *g = None;
            return Err(io_err(io::ErrorKind::Other));
        }
        drop(g);
        self.inner.sync_data()
    }
    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.inner.write(offset, data)
    }
    fn close(&self) -> io::Result<()> {
        self.inner.close()
    }
    common::delegate_locks!(inner);
}

impl Fs for FaultFs {
    fn data(&self, path: &Path) -> io::Result<Box<dyn StorageBackend>> {
        Ok(Box::new(FaultData { inner: OsFs.data(path)?, armed: self.armed.clone() }))
    }
    fn create_log(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        Ok(Box::new(FaultLog { inner: OsFs.create_log(path)?, armed: self.armed.clone(), fresh: true }))
    }
    fn reuse_log(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        Ok(Box::new(FaultLog { inner: OsFs.reuse_log(path)?, armed: self.armed.clone(), fresh: true }))
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut g = self.armed.lock().unwrap();
        if *g == Some(Fault::FoldRename) && to.to_string_lossy().ends_with("-wal.folded") {
            *g = None;
            return Err(io_err(io::ErrorKind::Other));
        }
        drop(g);
        // A directory that refuses to let a folded log go refuses to keep it for reuse too.
        if self.no_removal.load(std::sync::atomic::Ordering::SeqCst) && to.to_string_lossy().ends_with("-wal.spare") {
            return Err(io_err(io::ErrorKind::PermissionDenied));
        }
        OsFs.rename(from, to)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        use std::sync::atomic::Ordering::SeqCst;
        if self.no_removal.load(SeqCst) && path.to_string_lossy().ends_with("-wal.folded") {
            self.refused_removals.fetch_add(1, SeqCst);
            return Err(io_err(io::ErrorKind::PermissionDenied));
        }
        OsFs.remove(path)
    }
}

/// Inserts `n` records keyed `<tag>.<i>` in one durable write.
fn insert(s: &Store, tag: &str, n: usize) -> store::Result<()> {
    let (d, tag) = (def(), tag.to_string());
    s.write(move |w| {
        for i in 0..n {
            w.insert(&d, "157270", obj(json!({"paramName": "p", "paramKey": format!("{tag}.{i}")})), &Actor::default())?;
        }
        Ok(())
    })
}

/// The keys of every record in the file at `path` (opened with the real files).
fn keys_at(path: &Path) -> Vec<String> {
    let s = Store::open(path, &Options::default()).unwrap();
    let d = def();
    let mut keys: Vec<String> = s.read(|r| r.all(&d, "157270")).unwrap().iter().map(|m| m["paramKey"].as_str().unwrap().to_string()).collect();
    keys.sort();
    s.close();
    drop(s);
    let rep = store::verify_file(path).unwrap();
    assert!(rep.ok, "verify after reopening: {rep:?}");
    keys
}

fn expected(tags: &[&str], n: usize) -> Vec<String> {
    let mut v: Vec<String> = tags.iter().flat_map(|t| (0..n).map(move |i| format!("{t}.{i}"))).collect();
    v.sort();
    v
}

/// Acknowledged writes, then the fault during `trigger`; after it every write is refused and reads go on; the
/// file reopens with exactly the acknowledged writes (the refused batch is all there or not at all when taking it
/// back failed too: `maybe`).
fn fault_case(fault: Fault, wal: bool, trigger: impl FnOnce(&Store) -> bool, maybe: Option<&str>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let fs = Arc::new(FaultFs::default());
    let opts = Options { fs: fs.clone(), wal, ..Options::default() };
    let s = Store::open(&path, &opts).unwrap();
    for tag in ["a", "b", "c"] {
        insert(&s, tag, 5).unwrap();
    }
    fs.arm(fault);
    let refused_trigger = trigger(&s);
    assert!(fs.fired(), "{fault:?}: the fault was never reached");
    let what = s.failure().unwrap_or_else(|| panic!("{fault:?}: the store goes on taking writes"));
    assert!(!what.is_empty());
    match insert(&s, "after", 1) {
        Err(StoreError::Failed(m)) => assert_eq!(m, what),
        other => panic!("{fault:?}: a write after the failure: {other:?}"),
    }
    let d = def();
    let seen = s.read(|r| r.all(&d, "157270"));
    assert!(seen.is_ok(), "reads go on");
    if refused_trigger {
        // A refused batch was never visible, not even before the restart (its commit was never published).
        let keys: Vec<String> = seen.unwrap().iter().map(|m| m["paramKey"].as_str().unwrap().to_string()).collect();
        assert!(keys.iter().all(|k| !k.starts_with("x.")), "{fault:?}: a refused batch is visible: {keys:?}");
    }
    s.close();
    drop(s);
    let got = keys_at(&path);
    let acked = if refused_trigger { expected(&["a", "b", "c"], 5) } else { expected(&["a", "b", "c", "x"], 5) };
    match maybe {
        Some(tag) if got.len() > acked.len() => assert_eq!(got, expected(&["a", "b", "c", tag], 5), "{fault:?}: all of the refused batch or none"),
        _ => assert_eq!(got, acked, "{fault:?}: exactly the acknowledged writes"),
    }
}

/// A durable write that the fault refuses: true when it was refused.
fn refused_write(s: &Store) -> bool {
    insert(s, "x", 5).is_err()
}

/// Waits for a checkpoint (the writer folds the log once idle), as the fault's trigger.
fn checkpoint(s: &Store) -> bool {
    insert(s, "x", 5).unwrap();
    for _ in 0..100 {
        if s.failure().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    false
}

#[test]
fn no_space_on_append_stops_writes_and_loses_nothing() {
    fault_case(Fault::AppendNoSpace, true, refused_write, None);
}

#[test]
fn a_short_append_stops_writes_and_its_torn_record_is_cut_at_open() {
    fault_case(Fault::ShortAppend, true, refused_write, None);
}

#[test]
fn a_failed_sync_of_a_batch_is_never_retried_and_the_batch_is_taken_back() {
    fault_case(Fault::LogSync, true, refused_write, None);
}

#[test]
fn a_failed_sync_and_a_failed_take_back_leave_the_batch_whole_or_absent() {
    fault_case(Fault::LogSyncAndTruncate, true, refused_write, Some("x"));
}

#[test]
fn a_failed_rename_of_the_folded_log_stops_writes() {
    fault_case(Fault::FoldRename, true, checkpoint, None);
}

#[test]
fn a_failed_sync_of_the_new_log_a_checkpoint_starts_stops_writes() {
    fault_case(Fault::NewLogSync, true, checkpoint, None);
}

#[test]
fn a_failed_checkpoint_commit_keeps_the_log_for_the_next_start() {
    fault_case(Fault::DataSync, true, checkpoint, None);
}

/// Without the log a commit's sync may fail after its pages were written: the refused batch is then whole or absent
/// (the outcome of a failed commit cannot be known; what was acknowledged is all there).
#[test]
fn a_failed_durable_commit_without_the_log_stops_writes() {
    fault_case(Fault::DataSync, false, refused_write, Some("x"));
}

// ---------------------------------------------------------------------------------------------------------
// Replay that refuses what it cannot trust.

/// A data file and the log a crash leaves beside it: `n` durable batches, no checkpoint; returns their paths and
/// the byte offset of each record in the log.
fn crash_copy(dir: &Path, n: usize) -> (std::path::PathBuf, Vec<usize>) {
    let path = dir.join("t.redb");
    let s = Store::open(&path, &Options { fold: false, ..Options::default() }).unwrap();
    let crash = dir.join("crash");
    std::fs::create_dir_all(&crash).unwrap();
    std::fs::copy(&path, crash.join("t.redb")).unwrap();
    for i in 0..n {
        insert(&s, &format!("r{i}"), 3).unwrap();
    }
    std::fs::copy(store::wal::path_for(&path), store::wal::path_for(&crash.join("t.redb"))).unwrap();
    s.close();
    drop(s);
    let log = std::fs::read(store::wal::path_for(&crash.join("t.redb"))).unwrap();
    let mut at = 24;
    let mut offsets = Vec::new();
    // Up to the eight zero bytes written after the last record.
    while at < log.len() && log.get(at..at + 8) != Some(&[0u8; 8][..]) {
        offsets.push(at);
        at += 8 + u32::from_le_bytes(log[at..at + 4].try_into().unwrap()) as usize;
    }
    assert_eq!(offsets.len(), n, "one record per durable batch");
    (crash.join("t.redb"), offsets)
}

fn refusal(path: &Path) -> store::wal::Refusal {
    match Store::open(path, &Options::default()) {
        Err(StoreError::LogRefused(r)) => *r,
        Err(e) => panic!("refused for another reason: {e}"),
        Ok(_) => panic!("opened a log it cannot trust"),
    }
}

#[test]
fn a_flipped_byte_before_valid_records_is_damage_refused_then_recovered_with_loss() {
    let dir = tempfile::tempdir().unwrap();
    let (path, offsets) = crash_copy(dir.path(), 6);
    let log = store::wal::path_for(&path);
    let mut bytes = std::fs::read(&log).unwrap();
    // One byte in the middle of record 3 of 6.
    let k = 2;
    bytes[offsets[k] + 30] ^= 0x40;
    std::fs::write(&log, &bytes).unwrap();
    let r = refusal(&path);
    assert_eq!(r.position, offsets[k] as u64);
    assert_eq!(r.discarded, 4, "the damaged record and the three after it");
    let text = r.to_string();
    assert!(text.contains(&log.display().to_string()) && text.contains("--accept-loss") && text.contains("restore"), "{text}");
    assert!(log.exists(), "a refused log is left where it is");
    // The operator accepts the loss: the records before the damage are applied, the log set aside.
    let s = Store::open(&path, &Options { accept_loss: true, ..Options::default() }).unwrap();
    let rep = s.replayed().clone();
    assert_eq!(rep.records, 2);
    assert!(rep.set_aside.as_ref().is_some_and(|p| p.exists()), "{rep:?}");
    s.close();
    drop(s);
    assert_eq!(keys_at(&path), expected(&["r0", "r1"], 3));
}

#[test]
fn a_bad_last_record_is_a_torn_tail_not_damage() {
    let dir = tempfile::tempdir().unwrap();
    let (path, offsets) = crash_copy(dir.path(), 4);
    let log = store::wal::path_for(&path);
    let mut bytes = std::fs::read(&log).unwrap();
    bytes[offsets[3] + 30] ^= 0x40;
    std::fs::write(&log, &bytes).unwrap();
    let s = Store::open(&path, &Options::default()).unwrap();
    assert!(s.replayed().torn_tail && s.replayed().records == 3, "{:?}", s.replayed());
    s.close();
    drop(s);
    assert_eq!(keys_at(&path), expected(&["r0", "r1", "r2"], 3));
}

#[test]
fn a_gap_in_the_records_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, offsets) = crash_copy(dir.path(), 5);
    let log = store::wal::path_for(&path);
    let bytes = std::fs::read(&log).unwrap();
    // Record 3 of 5 taken out.
    let mut gapped = bytes[..offsets[2]].to_vec();
    gapped.extend_from_slice(&bytes[offsets[3]..]);
    std::fs::write(&log, &gapped).unwrap();
    let r = refusal(&path);
    assert_eq!(r.position, offsets[2] as u64, "{r:?}");
    assert!(r.what.contains("missing"), "{r:?}");
}

#[test]
fn an_older_data_file_beside_a_newer_log_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let s = Store::open(&path, &Options::default()).unwrap();
    insert(&s, "old", 3).unwrap();
    s.close();
    drop(s);
    // The admin's copy of that moment.
    let old = dir.path().join("old.redb");
    std::fs::copy(&path, &old).unwrap();
    // The server runs on: a checkpoint, then more writes only in the log when it crashes.
    let s = Store::open(&path, &Options { fold: false, ..Options::default() }).unwrap();
    insert(&s, "mid", 3).unwrap();
    s.close();
    drop(s);
    let s = Store::open(&path, &Options { fold: false, ..Options::default() }).unwrap();
    insert(&s, "new", 3).unwrap();
    let log = std::fs::read(store::wal::path_for(&path)).unwrap();
    s.close();
    drop(s);
    // The old copy put back beside the newer log.
    std::fs::copy(&old, &path).unwrap();
    std::fs::write(store::wal::path_for(&path), &log).unwrap();
    let r = refusal(&path);
    assert!(r.what.contains("older copy"), "{r:?}");
}

/// A folded log that cannot be removed costs disk space, not data: its records are all in the data file, on disk.
/// Writes go on, each checkpoint's rename replaces the leftover, and the file (left with one beside it) opens — even
/// where the leftover still cannot be removed — with every write (and `verify` finds nothing wrong).
#[test]
fn a_folded_log_that_cannot_be_removed_is_left_behind_and_writes_go_on() {
    use std::sync::atomic::Ordering::SeqCst;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let fs = Arc::new(FaultFs::default());
    let s = Store::open(&path, &Options { fs: fs.clone(), ..Options::default() }).unwrap();
    insert(&s, "a", 5).unwrap();
    fs.no_removal.store(true, SeqCst);
    let folded = dir.path().join("t.redb-wal.folded");
    for tag in ["b", "c", "d"] {
        let before = fs.refused_removals.load(SeqCst);
        insert(&s, tag, 5).unwrap();
        // The writer folds the log once idle, then tries to let the folded one go.
        for _ in 0..250 {
            if fs.refused_removals.load(SeqCst) > before {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(fs.refused_removals.load(SeqCst) > before, "no checkpoint after {tag}");
        assert_eq!(s.failure(), None, "writes stopped");
        assert!(folded.exists());
    }
    s.close();
    drop(s);
    assert!(folded.exists(), "the last checkpoint's folded log is left beside the file");
    // Opening beside it, still unable to remove it: the file opens and takes writes.
    let s = Store::open(&path, &Options { fs: fs.clone(), ..Options::default() }).unwrap();
    insert(&s, "e", 5).unwrap();
    s.close();
    drop(s);
    assert_eq!(keys_at(&path), expected(&["a", "b", "c", "d", "e"], 5));
}
