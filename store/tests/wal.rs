//! The write-ahead log: every change a write transaction makes reaches the log, so a data file as a crash leaves
//! it (its last checkpoint) plus the log replays to exactly the file a clean shutdown writes; a torn tail is cut
//! off; a log of another file is never applied.
use std::path::Path;
use std::sync::Arc;

use redb::{ReadableDatabase, ReadableTable, TableDefinition};
use serde_json::{Map, Value, json};
use store::{Actor, Options, ResourceDef, Store, StoreError};

mod common;

fn def() -> Arc<ResourceDef> {
    Arc::new(
        serde_json::from_value(json!({
            "name": "param", "label": "参数",
            "fields": [
                {"name": "paramName", "label": "n", "required": true, "filter": true, "sort": true, "search": true},
                {"name": "paramKey", "label": "k", "unique": true, "filter": true},
                {"name": "n", "kind": "int", "label": "n", "filter": true, "sort": true}
            ]
        }))
        .unwrap(),
    )
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

/// Every table of a data file, entry by entry, as bytes (the tables of `store/src/tables.rs`).
fn dump(path: &Path) -> Vec<(String, Vec<(Vec<u8>, Vec<u8>)>)> {
    fn table<K: redb::Key + 'static, V: redb::Value + 'static>(r: &redb::ReadTransaction, d: TableDefinition<K, V>) -> Vec<(Vec<u8>, Vec<u8>)> {
        let t = r.open_table(d).unwrap();
        t.iter().unwrap().map(|e| {
            let (k, v) = e.unwrap();
            (K::as_bytes(&k.value()).as_ref().to_vec(), V::as_bytes(&v.value()).as_ref().to_vec())
        }).collect()
    }
    let db = redb::Database::open(path).unwrap();
    let r = db.begin_read().unwrap();
    vec![
        ("meta".into(), table(&r, TableDefinition::<&str, &[u8]>::new("meta"))),
        ("records".into(), table(&r, TableDefinition::<(&str, &str, u64), &[u8]>::new("records"))),
        ("records_deleted".into(), table(&r, TableDefinition::<(&str, &str, u64), &[u8]>::new("records_deleted"))),
        ("index".into(), table(&r, TableDefinition::<(&str, &str, &str, &[u8], u64), ()>::new("index"))),
        ("unique".into(), table(&r, TableDefinition::<(&str, &str, &str, &str), u64>::new("unique"))),
        ("counters".into(), table(&r, TableDefinition::<(&str, &str), u64>::new("counters"))),
        ("sessions".into(), table(&r, TableDefinition::<(&str, &str), &[u8]>::new("sessions"))),
        ("file_chunks".into(), table(&r, TableDefinition::<(&str, u64, u32), &[u8]>::new("file_chunks"))),
        ("changes".into(), table(&r, TableDefinition::<u64, (&str, &str, u64)>::new("changes"))),
    ]
}

/// Writes of every kind the store makes: inserts, updates, soft and hard deletes, named counters, sessions,
/// files, meta, refused operations, lazy writes.
fn work(s: &Store, round: u64) {
    let d = def();
    let a = Actor::default();
    let ids: Vec<u64> = {
        let d = d.clone();
        s.write(move |w| {
            let mut ids = Vec::new();
            for i in 0..50 {
                let rec = w.insert(&d, "157270", obj(json!({"paramName": format!("参数{round}-{i}"), "paramKey": format!("k{round}.{i}"), "n": i})), &Actor::default())?;
                ids.push(rec["id"].as_u64().unwrap());
            }
            Ok(ids)
        })
        .unwrap()
    };
    let (d2, i2) = (d.clone(), ids.clone());
    s.write(move |w| {
        for (n, id) in i2.iter().enumerate().take(20) {
            w.update(&d2, "157270", *id, obj(json!({"n": 100 + n, "paramName": format!("改{round}-{n}")})), &Actor::default())?;
        }
        w.remove(&d2, "157270", &i2[20..30], &Actor::default())?;
        w.add_counter("157270", &format!("$bench.{round}"), 7)?;
        w.put_session("157270", &format!("s{round}"), &json!({"user": round}))?;
        w.put_file("157270", 900 + round, &vec![round as u8; 300_000])?;
        w.put_meta(&format!("note.{round}"), b"x")?;
        Ok(())
    })
    .unwrap();
    // A refused operation leaves nothing (its batch is re-run without it).
    let d3 = d.clone();
    let dup = s.write(move |w| w.insert(&d3, "157270", obj(json!({"paramName": "重复", "paramKey": format!("k{round}.1")})), &Actor::default()));
    assert!(dup.is_err());
    let (d4, gone) = (d.clone(), ids[40]);
    s.write(move |w| {
        w.delete_session("157270", &format!("s{}", round.saturating_sub(1)))?;
        w.purge_before(&d4, "157270", gone, 5)?;
        Ok(())
    })
    .unwrap();
    let d5 = d.clone();
    s.write_lazy(1, move |w| w.insert(&d5, "000000", obj(json!({"paramName": "懒", "paramKey": format!("lazy{round}")})), &Actor::default())).unwrap();
    let _ = a;
}

fn no_fold() -> Options {
    Options { fold: false, ..Options::default() }
}

#[test]
fn a_crash_copy_replays_to_the_file_a_clean_shutdown_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let s = Store::open(&path, &no_fold()).unwrap();
    for round in 0..4 {
        work(&s, round);
    }
    // What a crash leaves: the file as on disk (its state at open, no checkpoint since) and the log.
    let crash = dir.path().join("crash");
    std::fs::create_dir(&crash).unwrap();
    std::fs::copy(&path, crash.join("t.redb")).unwrap();
    std::fs::copy(store::wal::path_for(&path), store::wal::path_for(&crash.join("t.redb"))).unwrap();
    s.close();
    drop(s);
    assert!(!store::wal::path_for(&path).exists(), "a clean shutdown leaves no log beside the file");
    let clean = dump(&path);

    let before = dump(&crash.join("t.redb"));
    assert_ne!(before, clean, "the crash copy's file lacks the logged commits");
    let s = Store::open(&crash.join("t.redb"), &Options::default()).unwrap();
    let r = s.replayed().clone();
    assert!(r.records >= 16 && !r.torn_tail && r.set_aside.is_none(), "{r:?}");
    s.close();
    drop(s);
    assert_eq!(dump(&crash.join("t.redb")), clean, "replayed file equals the cleanly closed one, table by table");
}

#[test]
fn a_torn_tail_is_cut_off_and_a_foreign_log_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let s = Store::open(&path, &no_fold()).unwrap();
    work(&s, 0);
    let log = store::wal::path_for(&path);
    let whole = std::fs::read(&log).unwrap();
    let crash = dir.path().join("crash.redb");
    std::fs::copy(&path, &crash).unwrap();
    s.close();
    drop(s);

    // The last record half written (a crash in the middle of an append): it is not applied, the rest is.
    let mut torn = whole.clone();
    torn.truncate(whole.len() - 10);
    std::fs::write(store::wal::path_for(&crash), &torn).unwrap();
    let s = Store::open(&crash, &Options::default()).unwrap();
    let r = s.replayed().clone();
    assert!(r.torn_tail && r.records >= 3, "{r:?}");
    let d = def();
    let lazy = s.read(|r| r.find_unique(&d, "000000", "paramKey", "lazy0")).unwrap();
    assert!(lazy.is_none(), "the torn record (the last, lazy write) is not applied");
    let first = s.read(|r| r.find_unique(&d, "157270", "paramKey", "k0.49")).unwrap();
    assert!(first.is_some(), "the records before it are");
    s.close();
    drop(s);

    // A log naming another data file is never applied, nor silently set aside: the open is refused, naming it;
    // `recover` (accepting loss) sets it aside as discarded, saying so.
    let other = dir.path().join("other.redb");
    Store::open(&other, &Options::default()).unwrap().close();
    std::fs::write(store::wal::path_for(&other), &whole).unwrap();
    let before = dump(&other);
    match Store::open(&other, &Options::default()) {
        Err(StoreError::LogRefused(r)) => assert!(r.what.contains("another data file"), "{r}"),
        other => panic!("a foreign log must be refused: {:?}", other.map(|_| ())),
    }
    let s = Store::open(&other, &Options { accept_loss: true, ..Options::default() }).unwrap();
    let r = s.replayed().clone();
    assert!(r.records == 0 && r.set_aside.as_ref().is_some_and(|p| p.exists() && p.to_string_lossy().contains(".discarded-")), "{r:?}");
    s.close();
    drop(s);
    let after = dump(&other);
    assert_eq!(before.iter().filter(|(n, _)| n != "meta").collect::<Vec<_>>(), after.iter().filter(|(n, _)| n != "meta").collect::<Vec<_>>());
}

#[test]
fn a_log_already_folded_is_skipped_and_writes_go_on_after_a_replay() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let s = Store::open(&path, &no_fold()).unwrap();
    work(&s, 0);
    let log = std::fs::read(store::wal::path_for(&path)).unwrap();
    s.close();
    drop(s);
    // A crash between a checkpoint and emptying the log: the records are already in the file.
    std::fs::write(store::wal::path_for(&path), &log).unwrap();
    let clean = dump(&path);
    let s = Store::open(&path, &Options::default()).unwrap();
    assert_eq!((s.replayed().records, s.replayed().skipped > 0), (0, true), "{:?}", s.replayed());
    work(&s, 1);
    s.close();
    drop(s);
    assert_ne!(dump(&path), clean);
    let s = Store::open(&path, &Options::default()).unwrap();
    let d = def();
    assert!(s.read(|r| r.find_unique(&d, "157270", "paramKey", "k1.49")).unwrap().is_some());
    s.close();
}

#[test]
fn a_closed_store_reopens_without_repair() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let s = Store::open(&path, &Options::default()).unwrap();
    work(&s, 0);
    let clone = s.clone();
    s.close();
    // A handle kept elsewhere (a task the server did not wait for) does not keep the file open: it answers
    // Closed, and the file opens again at once, closed cleanly (no repair).
    assert!(clone.read(|r| r.meta("x")).is_err());
    let again = Store::open(&path, &Options::default()).unwrap();
    assert_eq!(again.repaired_ms(), None, "closed cleanly: no repair at the next open");
    again.close();
    drop((s, clone));
}

/// Lazy writes alone (what reads used to cause through their log entries) every 100 ms for 8 s: the log is
/// checkpointed within its bounds all along (every 3 s), not only once they stop (issue 27 item 3).
#[test]
fn the_log_is_checkpointed_under_lazy_writes_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let s = Store::open(&path, &Options::default()).unwrap();
    let d = def();
    let started = std::time::Instant::now();
    // A checkpoint empties the log: its size falls (the next lazy commit may already be in it when sampled).
    let (mut last, mut emptied_after_growing, mut largest) = (0u64, 0, 0u64);
    let mut i = 0;
    while started.elapsed() < std::time::Duration::from_secs(8) {
        let d2 = d.clone();
        s.write_lazy(1, move |w| w.insert(&d2, "157270", obj(json!({"paramName": format!("懒{i}"), "paramKey": format!("lazy.{i}")})), &Actor::default()).map(|_| ())).unwrap();
        i += 1;
        std::thread::sleep(std::time::Duration::from_millis(100));
        let pending = s.log_bytes();
        largest = largest.max(pending);
        if pending < last {
            emptied_after_growing += 1;
        }
        last = pending;
    }
    assert!(emptied_after_growing >= 2, "checkpoints while lazy writes went on: {emptied_after_growing} (log at most {largest} bytes)");
    assert!(largest < 1 << 20, "{largest}");
    s.close();
}

/// A checkpoint's commit returns before its pages are on disk: its log waits aside (`-wal.folded`) until they are,
/// then goes; the figures say how long it held the writer and how long the pages took. A clean close leaves no log.
#[test]
fn a_checkpoint_keeps_its_folded_log_until_its_pages_are_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let s = Store::open(&path, &Options::default()).unwrap();
    assert_eq!(s.checkpoints().count, 0);
    let folded = store::wal::folded_path_for(&path);
    for round in 0..3u64 {
        work(&s, round);
        let started = std::time::Instant::now();
        // The writer falls idle: a checkpoint (within 0.2 s), then its folded log goes once the pages are written.
        while s.checkpoints().count <= round || folded.exists() {
            assert!(started.elapsed() < std::time::Duration::from_secs(10), "round {round}: {:?}, folded log there: {}", s.checkpoints(), folded.exists());
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(s.log_bytes(), 0);
    }
    let c = s.checkpoints();
    assert!(c.count >= 3 && c.last_writer_ms > 0.0 && c.max_writer_ms >= c.last_writer_ms && c.total_writer_ms >= c.max_writer_ms && c.last_disk_ms > 0.0, "{c:?}");
    s.close();
    assert!(!folded.exists() && !store::wal::path_for(&path).exists());
}

/// A data file whose syncs wait while `held` is set (a disk that takes its time with a checkpoint's pages).
#[derive(Debug, Default)]
struct HeldSyncs {
    held: Arc<std::sync::atomic::AtomicBool>,
}

impl store::fs::Fs for HeldSyncs {
    fn data(&self, path: &Path) -> std::io::Result<Box<dyn store::fs::StorageBackend>> {
        let held = self.held.clone();
        let before_sync = Arc::new(move || {
            while held.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        });
        Ok(Box::new(common::Hooked { inner: store::fs::OsFs.data(path)?, before_read: Arc::new(|| {}), before_sync }))
    }
}

/// While a checkpoint's pages are still on their way to the disk, the next checkpoint due is put off and writes go
/// on (it used to hold the writer, and every write with it, until the disk had them); once they are there it
/// runs. Nothing is lost either way: the file reopened holds every write.
#[test]
fn a_checkpoint_due_while_the_last_is_on_its_way_is_put_off() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let fs = Arc::new(HeldSyncs::default());
    let s = Store::open(&path, &Options { fs: fs.clone(), ..Options::default() }).unwrap();
    let folded = store::wal::folded_path_for(&path);
    fs.held.store(true, std::sync::atomic::Ordering::Relaxed);
    work(&s, 0);
    let wait_for = |what: &str, f: &dyn Fn() -> bool| {
        let started = std::time::Instant::now();
        while !f() {
            assert!(started.elapsed() < std::time::Duration::from_secs(10), "{what}: {:?}", s.checkpoints());
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    };
    // The writer falls idle: a checkpoint, whose pages the disk does not take yet.
    wait_for("a first checkpoint", &|| s.checkpoints().count == 1);
    assert!(folded.exists());
    // More writes, then idle again: the next checkpoint is due and put off; the writes were answered meanwhile.
    // (Had the writer waited for the disk, the writes would wait until this lets it go, 8 s from now.)
    let held = fs.held.clone();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(8));
        held.store(false, std::sync::atomic::Ordering::Relaxed);
    });
    for round in 1..4 {
        let began = std::time::Instant::now();
        work(&s, round);
        assert!(began.elapsed() < std::time::Duration::from_secs(5), "a write waited for the disk");
    }
    wait_for("a checkpoint put off", &|| s.checkpoints().postponed >= 1);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let c = s.checkpoints();
    assert_eq!((c.count, c.postponed), (1, 1), "counted once however often it is looked at: {c:?}");
    assert!(s.log_bytes() > 0 && folded.exists());
    // The disk catches up: the first checkpoint's log goes, then the one put off runs.
    fs.held.store(false, std::sync::atomic::Ordering::Relaxed);
    wait_for("the checkpoint put off", &|| s.checkpoints().count == 2 && s.log_bytes() == 0);
    let c = s.checkpoints();
    assert_eq!((c.postponed, c.waited_ms), (1, 0.0), "{c:?}");
    let list = |s: &Store| s.read(|r| r.list(&def(), "157270", &store::Query { limit: 1_000, ..Default::default() })).unwrap().records;
    let written = list(&s);
    assert!(written.len() >= 4 * 30, "{}", written.len());
    s.close();
    drop(s);
    let s = Store::open(&path, &Options::default()).unwrap();
    assert_eq!(list(&s), written);
    s.close();
}

/// With logs kept for shipping, every change reaches a kept log, in order and without a gap, with its commit
/// time: applying them to the file as it was created rebuilds the live file table by table (a restore from a
/// first snapshot at position 0).
#[test]
fn kept_logs_hold_every_change_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let ship = dir.path().join("ship");
    let s = Store::open(&path, &Options { ship_dir: Some(ship.clone()), ..Options::default() }).unwrap();
    let base = dir.path().join("base.redb");
    std::fs::copy(&path, &base).unwrap();
    for round in 0..5 {
        work(&s, round);
        // The writer falls idle: the round's lazy write flushed (0.5 s), then a checkpoint (0.2 s idle) moves the log
        // aside.
        std::thread::sleep(std::time::Duration::from_millis(900));
    }
    s.close();
    let durable = s.durable_seq();
    drop(s);
    let kept = store::ship::kept_files(&ship).unwrap();
    assert!(kept.len() >= 2, "a kept log per checkpoint: {kept:?}");
    let mut recs = Vec::new();
    for k in &kept {
        let r = store::ship::read_kept(&k.path).unwrap();
        assert_eq!((r[0].seq, r[r.len() - 1].seq), (k.first, k.last), "the name says what the file holds");
        recs.extend(r);
    }
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r.seq, i as u64 + 1, "consecutive from the first");
        assert!(r.commit_ms.is_some_and(|t| t > 1_600_000_000_000), "each carries its commit time");
    }
    assert_eq!(recs.last().unwrap().seq, durable);
    let mut a = store::ship::FileApplier::open(&base, 0).unwrap();
    assert!(!a.apply(&recs, None).unwrap());
    a.finish().unwrap();
    let no_meta = |d: Vec<(String, Vec<(Vec<u8>, Vec<u8>)>)>| d.into_iter().filter(|(n, _)| n != "meta").collect::<Vec<_>>();
    assert_eq!(no_meta(dump(&base)), no_meta(dump(&path)));
}
