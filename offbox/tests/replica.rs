//! Continuous backup, point-in-time restore, a standby and its promotion, against a real S3 server (SeaweedFS).
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use offbox::ship::{Config, Shipper};
use offbox::weed::Weed;
use offbox::{Bucket, Target};
use serde_json::{Map, Value, json};
use store::{Actor, Options, ResourceDef, Store, StoreError};

fn weed() -> &'static Mutex<Weed> {
    static W: OnceLock<Mutex<Weed>> = OnceLock::new();
    W.get_or_init(|| Mutex::new(Weed::start()))
}

fn target(name: &str) -> Target {
    weed().lock().unwrap().bucket(name)
}

fn def() -> Arc<ResourceDef> {
    static D: OnceLock<Arc<ResourceDef>> = OnceLock::new();
    D.get_or_init(|| {
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
    })
    .clone()
}

fn defs() -> Arc<dyn Fn(&str) -> Option<Arc<ResourceDef>> + Send + Sync> {
    Arc::new(|n: &str| (n == "param").then(def))
}

fn open(dir: &Path, ship: bool) -> Store {
    let opts = Options { ship_dir: ship.then(|| dir.join("ship")), ..Options::default() };
    Store::open(&dir.join("zhizhuang.redb"), &opts).unwrap()
}

fn insert(s: &Store, key: &str) -> u64 {
    let (d, k) = (def(), key.to_string());
    let doc: Map<String, Value> = json!({"paramName": format!("名称 {k}"), "paramKey": k}).as_object().unwrap().clone();
    s.write(move |w| w.insert(&d, "000000", doc.clone(), &Actor::default())).unwrap()["id"].as_u64().unwrap()
}

/// Every live record as (id, paramKey).
fn keys(s: &Store) -> Vec<(u64, String)> {
    let d = def();
    let mut v: Vec<(u64, String)> = s.read(|r| r.all(&d, "000000")).unwrap().into_iter().map(|r| (r["id"].as_u64().unwrap(), r["paramKey"].as_str().unwrap().to_string())).collect();
    v.sort();
    v
}

fn keys_of_file(path: &Path) -> Vec<(u64, String)> {
    let s = Store::open(path, &Options::default()).unwrap();
    let k = keys(&s);
    s.close();
    k
}

fn config(dir: &Path) -> Config {
    let mut c = Config::new(dir.join("ship"));
    c.interval = Duration::from_millis(100);
    c
}

async fn wait_shipped(sh: &offbox::ship::Shared, store: &Store) {
    let t = Instant::now();
    loop {
        let (shipped, problem) = {
            let s = sh.lock().unwrap();
            (s.shipped_seq, s.problem.clone())
        };
        if shipped >= store.durable_seq() && store.durable_seq() > 0 {
            return;
        }
        assert!(t.elapsed() < Duration::from_secs(20), "not shipped within 20 s: {shipped} of {} ({problem:?})", store.durable_seq());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until the generation's first snapshot is in the bucket (taken in the background after the claim).
async fn first_snapshot(sh: &offbox::ship::Shared) {
    let t = Instant::now();
    while sh.lock().unwrap().snapshots.is_empty() {
        assert!(t.elapsed() < Duration::from_secs(20), "no first snapshot within 20 s: {:?}", sh.lock().unwrap().problem);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn start(sh: Shipper) -> (Arc<AtomicBool>, tokio::task::JoinHandle<()>) {
    let stop = Arc::new(AtomicBool::new(false));
    let h = tokio::spawn(sh.run(stop.clone()));
    (stop, h)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn shipped_changes_restore_exactly_latest_and_at_a_moment() {
    let t = target("restore");
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), true);
    for i in 0..50 {
        insert(&store, &format!("before-{i}"));
    }
    let bucket = Bucket::open(&t, Duration::from_secs(10)).unwrap();
    let mut cfg = config(dir.path());
    // Snapshots after a little log, so that the moment below falls between two of them; segments merged early.
    cfg.snapshot_log_bytes = 16 << 10;
    cfg.merge_at = 2;
    cfg.merge_after = Duration::ZERO;
    cfg.merge_every = Duration::from_millis(500);
    let mut sh = Shipper::new(store.clone(), bucket.clone(), cfg, defs());
    assert!(sh.claim().await, "a new bucket is ours");
    let status = sh.status.clone();
    let (stop, h) = start(sh);
    // Concurrent writers, as requests are.
    let mut js = Vec::new();
    for w in 0..8 {
        let s = store.clone();
        js.push(tokio::task::spawn_blocking(move || {
            for i in 0..40 {
                insert(&s, &format!("a-{w}-{i}"));
            }
        }));
    }
    for j in js {
        j.await.unwrap();
    }
    wait_shipped(&status, &store).await;
    tokio::time::sleep(Duration::from_millis(30)).await;
    let moment = store::now_millis();
    let at_moment = keys(&store);
    tokio::time::sleep(Duration::from_millis(30)).await;
    // Updates and deletes after the moment too.
    let d = def();
    let first = at_moment[0].0;
    store.write(move |w| w.remove(&d, "000000", &[first], &Actor::default())).unwrap();
    for i in 0..100 {
        insert(&store, &format!("b-{i}"));
    }
    wait_shipped(&status, &store).await;
    let latest = keys(&store);
    // A snapshot is taken in the background once enough log has shipped: it may still be under way when the
    // changes are (CI's loaded machine once asserted at that moment).
    let t1 = Instant::now();
    while status.lock().unwrap().snapshots.len() < 2 && t1.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(status.lock().unwrap().snapshots.len() >= 2, "later snapshots were taken: {:?}", status.lock().unwrap().snapshots);
    // Old segments were merged into fewer objects (a restore reads them in place of the many).
    let g = status.lock().unwrap().generation.clone();
    let t0 = Instant::now();
    while bucket.list(&offbox::layout::level_dir(&g, 1), None).await.unwrap().is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(10), "no merged segment");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let out = dir.path().join("latest.redb");
    let r = offbox::restore::restore(&bucket, &out, None, None).await.unwrap();
    assert_eq!(r.seq, store.durable_seq());
    assert!(store::verify_file(&out).unwrap().ok);
    assert_eq!(keys_of_file(&out), latest, "the latest restore holds every shipped write");

    let out2 = dir.path().join("moment.redb");
    let r2 = offbox::restore::restore(&bucket, &out2, Some(moment), None).await.unwrap();
    assert!(r2.stopped_at_moment && r2.at.unwrap() <= moment, "{r2:?}");
    assert!(store::verify_file(&out2).unwrap().ok);
    assert_eq!(keys_of_file(&out2), at_moment, "exactly the writes committed before the moment");

    // A moment before the first snapshot has nothing to restore from.
    let e = offbox::restore::restore(&bucket, &dir.path().join("none.redb"), Some(1_000), None).await.unwrap_err();
    assert!(e.detail.contains("no snapshot"), "{e:?}");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    h.await.unwrap();
    store.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_standby_follows_refuses_writes_and_takes_over_when_promoted() {
    let t = target("follow");
    let pdir = tempfile::tempdir().unwrap();
    let primary = open(pdir.path(), true);
    insert(&primary, "p-0");
    let bucket = Bucket::open(&t, Duration::from_secs(10)).unwrap();
    let mut sh = Shipper::new(primary.clone(), bucket.clone(), config(pdir.path()), defs());
    assert!(sh.claim().await);
    let pstatus = sh.status.clone();
    let (pstop, ph) = start(sh);
    first_snapshot(&pstatus).await;

    // The standby starts from the bucket alone.
    let sdir = tempfile::tempdir().unwrap();
    let data = sdir.path().join("zhizhuang.redb");
    let owner = offbox::follow::bootstrap(&bucket, &data, &sdir.path().join("ship"), "s3://follow").await.unwrap();
    let standby = Store::open(&data, &Options::default()).unwrap();
    assert_eq!(keys(&standby), keys(&primary));
    let f = offbox::follow::Follower::new(standby.clone(), bucket.clone(), owner, Duration::from_millis(100));
    let fstatus = f.status.clone();
    let fstop = Arc::new(AtomicBool::new(false));
    let fh = tokio::spawn(f.run(fstop.clone()));

    let v0 = standby.version("param");
    for i in 1..200 {
        insert(&primary, &format!("p-{i}"));
    }
    wait_shipped(&pstatus, &primary).await;
    let t0 = Instant::now();
    while keys(&standby) != keys(&primary) {
        assert!(t0.elapsed() < Duration::from_secs(10), "the standby did not catch up: {:?}", fstatus.lock().unwrap());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(standby.version("param") > v0, "readers' caches were told");
    // Writes are refused with the primary named; this machine's own sessions are kept.
    let e = standby.write(|w| w.put_meta("x", b"1")).unwrap_err();
    assert!(matches!(e, StoreError::ReadOnly(ref why) if why.starts_with("standby:")), "{e:?}");
    standby.write_local(|w| w.put_session("000000", "s1", &json!({"u": 1}))).unwrap();

    // The primary is gone; the standby is promoted.
    fstop.store(true, std::sync::atomic::Ordering::Relaxed);
    fh.await.unwrap();
    // The old primary still renews its ownership meanwhile: a promote that meets that write answers Conflict
    // ("run promote again"), and the administrator runs it again.
    let mut tries = 0;
    let promoted = loop {
        // Forced: the old primary's lease is live (it still runs: this test checks that it stops). The standby's
        // store is open here, caught up already: no file to catch up.
        match offbox::follow::promote(&bucket, &sdir.path().join("ship"), &sdir.path().join("caught-up-already.redb"), "standby-host", "http://standby", true).await {
            Ok(p) => break p,
            Err(e) if e.what == offbox::bucket::What::Conflict && tries < 5 => tries += 1,
            Err(e) => panic!("promote: {e:?}"),
        }
    };
    assert_ne!(promoted.owner.generation, pstatus.lock().unwrap().generation);
    // The old primary, still running, sees it is no longer the owner within seconds and stops taking writes.
    let t1 = Instant::now();
    loop {
        if primary.write(|w| w.put_meta("y", b"1")).is_err() {
            break;
        }
        assert!(t1.elapsed() < Duration::from_secs(10), "the old primary still takes writes");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(pstatus.lock().unwrap().fenced.is_some());
    pstop.store(true, std::sync::atomic::Ordering::Relaxed);
    ph.await.unwrap();
    let before = keys(&primary);
    primary.close();

    // The promoted standby serves as the primary: a first snapshot of its generation, then its writes ship.
    standby.close();
    let sdir_p = sdir.path();
    let new_primary = open(sdir_p, true);
    let mut sh2 = Shipper::new(new_primary.clone(), bucket.clone(), config(sdir_p), defs());
    assert!(sh2.claim().await);
    assert_eq!(new_primary.read_only(), None);
    let s2 = sh2.status.clone();
    let (stop2, h2) = start(sh2);
    insert(&new_primary, "after-promotion");
    wait_shipped(&s2, &new_primary).await;
    let out = sdir_p.join("r.redb");
    let r = offbox::restore::restore(&bucket, &out, None, None).await.unwrap();
    assert_eq!(r.generation, promoted.owner.generation);
    let mut expect = before.clone();
    expect.push(keys(&new_primary).into_iter().find(|k| k.1 == "after-promotion").unwrap());
    expect.sort();
    assert_eq!(keys_of_file(&out), expect);

    // The old primary restarted with the same bucket refuses to take over.
    let old = open(pdir.path(), true);
    let mut sh3 = Shipper::new(old.clone(), bucket.clone(), config(pdir.path()), defs());
    assert!(!sh3.claim().await, "fenced at start");
    assert!(matches!(old.write(|w| w.put_meta("z", b"1")), Err(StoreError::ReadOnly(ref why)) if why.starts_with("fenced:")));
    old.close();
    stop2.store(true, std::sync::atomic::Ordering::Relaxed);
    h2.await.unwrap();
    new_primary.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_configuration_says_what_is_wrong() {
    let good = target("probe");
    // Generous for the answers that come: the other tests of this file load the same weed on 2 busy cores.
    let b = Bucket::open(&good, Duration::from_secs(30)).unwrap();
    b.probe().await.unwrap();
    let missing = Target { bucket: "no-such-bucket-zz".into(), ..good.clone() };
    let e = Bucket::open(&missing, Duration::from_secs(30)).unwrap().probe().await.unwrap_err();
    assert_eq!(e.what, offbox::bucket::What::NoBucket, "{e:?}");
    let nowhere = Target { endpoint: "http://127.0.0.1:9".into(), ..good.clone() };
    let e = Bucket::open(&nowhere, Duration::from_secs(3)).unwrap().probe().await.unwrap_err();
    assert_eq!(e.what, offbox::bucket::What::Unreachable, "{e:?}");
    assert!(e.zh().contains("无法连接"));
    assert!(!format!("{good:?}").contains("zz-secret"), "keys never printed");
}
