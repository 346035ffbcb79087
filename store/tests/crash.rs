//! Crash at every point (issue 27 item 6). A file layer records every write, truncate and sync the store makes to
//! its data file and its log while concurrent creates, updates and deletes run; then every state a power loss could
//! leave is rebuilt — at many points of the run: writes not yet synced dropped, all kept (what kill -9 leaves),
//! or the first kept and the next torn at a sector — and each is opened and checked: it opens (or refuses with
//! the log-refusal message, never a panic), `verify_file` passes, the indexes agree with the records, every
//! acknowledged write is there, and no record is in a state no write gave it.
mod common;
use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};
use store::fs::{Fs, LogFile, OsFs, StorageBackend};
use store::{Actor, Filter, Op as QOp, Options, Query, ResourceDef, Store, StoreError};

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

/// A file as the disk holds it: the data file, or a log file (numbered in the order they were created).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum File {
    Data,
    Log(u32),
}

/// The names a log file can have: the log, a checkpoint's folded log, and a folded log kept for reuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Name {
    Wal,
    Folded,
    Spare,
}

fn name_of(path: &Path) -> Option<Name> {
    let p = path.to_string_lossy();
    if p.ends_with("-wal") {
        Some(Name::Wal)
    } else if p.ends_with("-wal.folded") {
        Some(Name::Folded)
    } else if p.ends_with("-wal.spare") {
        Some(Name::Spare)
    } else {
        None
    }
}

#[derive(Debug, Clone)]
enum Op {
    Write(File, u64, Vec<u8>),
    SetLen(File, u64),
    Sync(File),
    /// A new data file renamed into place (it has no name before): a directory change, kept in every later state.
    Named(File),
    /// Directory changes of the logs (kept in every later state: the store syncs the directory after each that
    /// matters, and a lost removal of a folded log only brings back records the data file holds): a log file
    /// created under a name, renamed, removed.
    Create(Name, u32),
    Rename(Name, Name),
    Unlink(Name),
}

type Ops = Arc<Mutex<Vec<Op>>>;

#[derive(Debug, Default)]
struct RecordingFs {
    ops: Ops,
    /// Which log file each name holds now, and how many log files were made.
    names: Mutex<(HashMap<Name, u32>, u32)>,
}

#[derive(Debug)]
struct RecData {
    inner: Box<dyn StorageBackend>,
    ops: Ops,
}

impl StorageBackend for RecData {
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }
    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        self.inner.read(offset, out)
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut g = self.ops.lock().unwrap();
        g.push(Op::SetLen(File::Data, len));
        self.inner.set_len(len)
    }
    fn sync_data(&self) -> io::Result<()> {
        // A slow disk: a checkpoint's pages reach it well after the writer has gone on (the write-behind), so the
        // states between are many.
        std::thread::sleep(std::time::Duration::from_millis(100));
        let mut g = self.ops.lock().unwrap();
        self.inner.sync_data()?;
        g.push(Op::Sync(File::Data));
        Ok(())
    }
    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        let mut g = self.ops.lock().unwrap();
        g.push(Op::Write(File::Data, offset, data.to_vec()));
        self.inner.write(offset, data)
    }
    fn close(&self) -> io::Result<()> {
        self.inner.close()
    }
    common::delegate_locks!(inner);
}

#[derive(Debug)]
struct RecLog {
    inner: Box<dyn LogFile>,
    ops: Ops,
    file: File,
}

impl LogFile for RecLog {
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.ops.lock().unwrap().push(Op::Write(self.file, offset, data.to_vec()));
        self.inner.write_at(offset, data)
    }
    fn set_len(&mut self, len: u64) -> io::Result<()> {
        self.ops.lock().unwrap().push(Op::SetLen(self.file, len));
        self.inner.set_len(len)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.inner.sync()?;
        // Recorded once done: a state cut before this op has the writes before it in flight.
        self.ops.lock().unwrap().push(Op::Sync(self.file));
        Ok(())
    }
}

impl Fs for RecordingFs {
    fn data(&self, path: &Path) -> io::Result<Box<dyn StorageBackend>> {
        Ok(Box::new(RecData { inner: OsFs.data(path)?, ops: self.ops.clone() }))
    }
    fn create_log(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        let name = name_of(path).expect("a log's name");
        let mut names = self.names.lock().unwrap();
        let mut ops = self.ops.lock().unwrap();
        // An existing file is emptied; a missing one is made.
        let n = match names.0.get(&name) {
            Some(n) => {
                ops.push(Op::SetLen(File::Log(*n), 0));
                *n
            }
            None => {
                names.1 += 1;
                let n = names.1;
                names.0.insert(name, n);
                ops.push(Op::Create(name, n));
                n
            }
        };
        Ok(Box::new(RecLog { inner: OsFs.create_log(path)?, ops: self.ops.clone(), file: File::Log(n) }))
    }
    fn reuse_log(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        // The file under the name as it is (a spare renamed into place): nothing recorded until written.
        let n = *self.names.lock().unwrap().0.get(&name_of(path).expect("a log's name")).expect("a reused log exists");
        Ok(Box::new(RecLog { inner: OsFs.reuse_log(path)?, ops: self.ops.clone(), file: File::Log(n) }))
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        if from.to_string_lossy().ends_with(".creating") {
            self.ops.lock().unwrap().push(Op::Named(File::Data));
        }
        if let (Some(a), Some(b)) = (name_of(from), name_of(to)) {
            let mut names = self.names.lock().unwrap();
            if let Some(n) = names.0.remove(&a) {
                names.0.insert(b, n);
                self.ops.lock().unwrap().push(Op::Rename(a, b));
            }
        }
        OsFs.rename(from, to)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        if let Some(name) = name_of(path) {
            let mut names = self.names.lock().unwrap();
            if names.0.remove(&name).is_some() {
                self.ops.lock().unwrap().push(Op::Unlink(name));
            }
        }
        OsFs.remove(path)
    }
}

/// How a state treats the writes not yet synced when the power went.
#[derive(Debug, Clone, Copy)]
enum Loss {
    /// None of them reached the disk.
    Dropped,
    /// All did (what kill -9 leaves: the page cache survives).
    Kept,
    /// The first half did, the next one only up to its first 512-byte sector boundary, none after.
    Torn,
}

/// The files as a power loss after `at` ops leaves them, by name (None: no file).
fn rebuild(ops: &[Op], at: usize, loss: Loss) -> (Option<Vec<u8>>, HashMap<Name, Option<Vec<u8>>>) {
    fn apply(bytes: &mut Option<Vec<u8>>, o: &Op, cut: Option<usize>) {
        match o {
            Op::Write(_, off, data) => {
                let b = bytes.get_or_insert_with(Vec::new);
                let data = &data[..cut.unwrap_or(data.len()).min(data.len())];
                let end = *off as usize + data.len();
                if b.len() < end {
                    b.resize(end, 0);
                }
                b[*off as usize..end].copy_from_slice(data);
            }
            Op::SetLen(_, n) => bytes.get_or_insert_with(Vec::new).resize(*n as usize, 0),
            _ => {}
        }
    }
    // Which log file each name holds (directory changes are kept in every later state).
    let mut names: HashMap<Name, u32> = HashMap::new();
    for o in &ops[..at] {
        match o {
            Op::Create(n, f) => {
                names.insert(*n, *f);
            }
            Op::Rename(a, b) => {
                if let Some(f) = names.remove(a) {
                    names.insert(*b, f);
                }
            }
            Op::Unlink(n) => {
                names.remove(n);
            }
            _ => {}
        }
    }
    let contents = |f: File| -> Option<Vec<u8>> {
        let mine: Vec<&Op> = ops[..at]
            .iter()
            .filter(|o| match o {
                Op::Write(x, ..) | Op::SetLen(x, _) | Op::Sync(x) | Op::Named(x) => *x == f,
                _ => false,
            })
            .collect();
        // A data file not yet renamed into place has no name: the start finds none.
        if f == File::Data && !mine.iter().any(|o| matches!(o, Op::Named(_))) {
            return None;
        }
        let synced = mine.iter().rposition(|o| matches!(o, Op::Sync(_))).map(|s| s + 1).unwrap_or(0);
        let mut bytes: Option<Vec<u8>> = None;
        for o in &mine[..synced] {
            apply(&mut bytes, o, None);
        }
        // Not yet synced: dropped, kept, or the first half kept and the next torn.
        let flight = &mine[synced..];
        let writes = flight.iter().filter(|o| matches!(o, Op::Write(..) | Op::SetLen(..))).count();
        let mut seen = 0;
        for o in flight {
            if !matches!(o, Op::Write(..) | Op::SetLen(..)) {
                continue;
            }
            let keep = match loss {
                Loss::Dropped => Some(false),
                Loss::Kept => Some(true),
                Loss::Torn if seen < writes / 2 => Some(true),
                Loss::Torn if seen == writes / 2 => None,
                Loss::Torn => Some(false),
            };
            match keep {
                Some(true) => apply(&mut bytes, o, None),
                Some(false) => {}
                None => {
                    // Torn at the first sector boundary inside the write (nothing when it starts on one).
                    if let Op::Write(_, off, _) = o {
                        let cut = (512 - (*off as usize % 512)) % 512;
                        if cut > 0 {
                            apply(&mut bytes, o, Some(cut));
                        }
                    }
                }
            }
            seen += 1;
        }
        // A log file that exists holds at least nothing.
        if bytes.is_none() && matches!(f, File::Log(_)) { Some(Vec::new()) } else { bytes }
    };
    let logs = names.iter().map(|(n, f)| (*n, contents(File::Log(*f)))).collect();
    (contents(File::Data), logs)
}

/// One write of the workload: which record, the value it leaves (None: deleted), and when it was issued and
/// acknowledged (ops recorded by then).
#[derive(Debug, Clone)]
struct Done {
    key: String,
    value: Option<String>,
    issued: usize,
    acked: Option<usize>,
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

/// Four writers, each creating, updating and deleting its own records; pauses let checkpoints run between.
fn workload(s: &Store, ops: &Ops) -> Vec<Done> {
    let log = Arc::new(Mutex::new(Vec::new()));
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (s, ops, log) = (s.clone(), ops.clone(), log.clone());
            scope.spawn(move || {
                let d = def();
                let mut ids: HashMap<String, u64> = HashMap::new();
                for step in 0..20 {
                    let k = step / 3;
                    let key = format!("t{t}.k{k}");
                    let (d2, key2) = (d.clone(), key.clone());
                    let issued = ops.lock().unwrap().len();
                    let (value, r): (Option<String>, store::Result<u64>) = match (step % 3, ids.get(&key).copied()) {
                        (0, _) | (_, None) => {
                            let v = format!("v{step}");
                            let v2 = v.clone();
                            (Some(v), s.write(move |w| Ok(w.insert(&d2, "157270", obj(json!({"paramName": v2, "paramKey": key2})), &Actor::default())?["id"].as_u64().unwrap())))
                        }
                        (1, Some(id)) => {
                            let v = format!("v{step}");
                            let v2 = v.clone();
                            (Some(v), s.write(move |w| w.update(&d2, "157270", id, obj(json!({"paramName": v2})), &Actor::default()).map(|_| id)))
                        }
                        (_, Some(id)) => (None, s.write(move |w| w.remove(&d2, "157270", &[id], &Actor::default()).map(|_| id))),
                    };
                    let acked = ops.lock().unwrap().len();
                    let id = r.unwrap();
                    if value.is_some() {
                        ids.insert(key.clone(), id);
                    } else {
                        ids.remove(&key);
                    }
                    log.lock().unwrap().push(Done { key, value, issued, acked: Some(acked) });
                    std::thread::sleep(std::time::Duration::from_millis(if step % 5 == 4 { 260 } else { 15 }));
                }
            });
        }
    });
    Arc::try_unwrap(log).unwrap().into_inner().unwrap()
}

/// The values a record may have after the first `at` ops: the one its last acknowledged write left, or that of a
/// write in flight then; None stands for "absent".
fn allowed(history: &[&Done], at: usize) -> Vec<Option<String>> {
    let last = history.iter().rposition(|d| d.acked.is_some_and(|a| a <= at));
    let mut out = vec![last.and_then(|i| history[i].value.clone())];
    for d in history.iter().skip(last.map(|i| i + 1).unwrap_or(0)) {
        if d.issued < at {
            out.push(d.value.clone());
        }
    }
    out
}

#[test]
fn every_state_a_power_loss_can_leave_opens_whole_with_every_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let fs = Arc::new(RecordingFs::default());
    let ops = fs.ops.clone();
    let s = Store::open(&path, &Options { fs: fs.clone(), ..Options::default() }).unwrap();
    let done = workload(&s, &ops);
    s.close();
    drop(s);
    let ops: Vec<Op> = ops.lock().unwrap().clone();
    let syncs = ops.iter().filter(|o| matches!(o, Op::Sync(_))).count();
    assert!(syncs > 10, "{syncs} syncs in {} ops", ops.len());
    // Folded logs are kept and reused as later logs: the states after the first reuse have a log file holding an
    // older log's records after its own.
    let reuses: Vec<usize> = ops.iter().enumerate().filter(|(_, o)| matches!(o, Op::Rename(Name::Spare, Name::Wal))).map(|(i, _)| i).collect();
    assert!(reuses.len() >= 2, "{} reuses of a folded log", reuses.len());

    // The points: after every op.
    let points: Vec<usize> = (0..=ops.len()).collect();
    let mut by_key: HashMap<&str, Vec<&Done>> = HashMap::new();
    for d in &done {
        by_key.entry(d.key.as_str()).or_default().push(d);
    }
    for h in by_key.values_mut() {
        h.sort_by_key(|d| d.issued);
    }
    let (mut checked, mut refused, mut folded_states) = (0usize, 0usize, 0usize);
    let scratch = tempfile::tempdir().unwrap();
    let d = def();
    for (n, &at) in points.iter().enumerate() {
        for loss in [Loss::Dropped, Loss::Kept, Loss::Torn] {
            let (file, logs) = rebuild(&ops, at, loss);
            let here = scratch.path().join(format!("s{n}-{loss:?}"));
            std::fs::create_dir_all(&here).unwrap();
            let data = here.join("t.redb");
            if let Some(b) = &file {
                std::fs::write(&data, b).unwrap();
            }
            for (name, b) in &logs {
                let to = match name {
                    Name::Wal => store::wal::path_for(&data),
                    Name::Folded => store::wal::folded_path_for(&data),
                    Name::Spare => store::wal::spare_path_for(&data),
                };
                if let Some(b) = b {
                    std::fs::write(to, b).unwrap();
                }
            }
            if logs.contains_key(&Name::Folded) {
                folded_states += 1;
            }
            let what = format!("crash after op {at} of {} ({loss:?})", ops.len());
            let opened = std::panic::catch_unwind(|| Store::open(&data, &Options::default()));
            let s = match opened {
                Err(_) => panic!("{what}: opening panicked"),
                Ok(Err(StoreError::LogRefused(r))) => {
                    assert!(r.to_string().contains("--accept-loss"), "{what}: {r}");
                    refused += 1;
                    std::fs::remove_dir_all(&here).unwrap();
                    continue;
                }
                Ok(Err(e)) => panic!("{what}: does not open: {e}"),
                Ok(Ok(s)) => s,
            };
            // Every write whole on the disk: nothing torn to cut off, whatever a reused log file held before.
            if matches!(loss, Loss::Kept) {
                assert!(!s.replayed().torn_tail, "{what}: a torn tail reported where every write is whole: {:?}", s.replayed());
            }
            let live: Vec<Map<String, Value>> = s.read(|r| r.all(&d, "157270")).unwrap();
            // The indexes agree with the records.
            for rec in &live {
                let key = rec["paramKey"].as_str().unwrap();
                let id = rec["id"].as_u64().unwrap();
                assert_eq!(s.read(|r| r.find_unique(&d, "157270", "paramKey", key)).unwrap(), Some(id), "{what}: unique key of {key}");
                let q = Query { filters: vec![Filter::new("paramName", QOp::Equal, rec["paramName"].clone())], limit: 1000, ..Query::default() };
                let page = s.read(|r| r.list(&d, "157270", &q)).unwrap();
                assert!(page.records.iter().any(|m| m["id"].as_u64() == Some(id)), "{what}: index entry of {key}");
            }
            assert_eq!(s.read(|r| r.count(&d, "157270")).unwrap(), live.len() as u64, "{what}: the count");
            let found: HashMap<&str, String> = live.iter().map(|m| (m["paramKey"].as_str().unwrap(), m["paramName"].as_str().unwrap().to_string())).collect();
            for (key, history) in &by_key {
                let ok = allowed(history, at);
                let got = found.get(key).cloned();
                assert!(ok.contains(&got), "{what}: {key} is {got:?}, expected one of {ok:?}");
            }
            assert!(live.iter().all(|m| by_key.contains_key(m["paramKey"].as_str().unwrap())), "{what}: a record no write made");
            s.close();
            drop(s);
            let rep = store::verify_file(&data).unwrap();
            assert!(rep.ok, "{what}: verify {:?}", rep.problems);
            checked += 1;
            std::fs::remove_dir_all(&here).unwrap();
        }
    }
    let reused_states = 3 * (ops.len() + 1 - reuses[0]);
    println!("crash states checked: {checked} ({refused} refused as untrustworthy, {folded_states} with a checkpoint's folded log, {reused_states} after a log file was reused) at {} points of {} ops", points.len(), ops.len());
    assert!(folded_states >= 30, "{folded_states} states with a checkpoint on its way to the disk");
    assert!(checked >= 500, "{checked} states");
    assert_eq!(refused, 0, "a power loss in ordinary operation never leaves a log the start must refuse");
}
