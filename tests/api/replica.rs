//! Continuous backup and standby through an administrator's ordinary steps (issue 54), each scenario against the
//! real binary and a real S3 server (SeaweedFS): an offline open between two runs, a restore then replicate, a
//! copied directory, a deleted owner object, an owner write whose answer was lost, a stale standby promoted, and
//! restoring to a moment past the end of the stream.
use std::time::Duration;

use serde_json::Value;

use crate::net::{Server, request, run_with};

const A: &str = "157270";

fn weed() -> &'static std::sync::Mutex<offbox::weed::Weed> {
    crate::offbox::weed_server()
}

fn aws() -> Vec<(&'static str, String)> {
    let endpoint = weed().lock().unwrap().endpoint();
    vec![("AWS_ACCESS_KEY_ID", "zz".into()), ("AWS_SECRET_ACCESS_KEY", "zz-secret".into()), ("AWS_ENDPOINT_URL", endpoint), ("AWS_REGION", "us-east-1".into())]
}

fn env<'a>(v: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    v.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

async fn put(s: &Server, token: &str, key: &str) -> u16 {
    let body = format!(r#"{{"paramName":"异地备份","paramKey":"{key}","paramValue":"1"}}"#);
    request(&s.addr, "POST", "/api/blade-system/param/submit", &[("blade-auth", &format!("bearer {token}"))], &body).await.unwrap().0
}

/// The replica section of the platform's status screen.
async fn replica_status(s: &Server) -> Value {
    replica_status_as(s, &s.sign_in("000000").await).await
}

/// The same with a token already had: a sign-in is itself a write (its session) that waits to be shipped.
async fn replica_status_as(s: &Server, p: &str) -> Value {
    let (_, b) = request(&s.addr, "GET", "/api/blade-system/status", &[("blade-auth", &format!("bearer {p}"))], "").await.unwrap();
    serde_json::from_str::<Value>(&b).unwrap()["data"]["replica"].clone()
}

/// Waits until everything durable on `s` is in the bucket.
async fn shipped(s: &Server) -> Value {
    let p = s.sign_in("000000").await;
    for _ in 0..200 {
        let r = replica_status_as(s, &p).await;
        if r["shippedSeq"].as_u64().is_some() && r["shippedSeq"] == r["durableSeq"] && r["snapshotting"] == false && !r["snapshots"].as_array().is_none_or(|a| a.is_empty()) {
            return r;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("not shipped: {}", replica_status(s).await);
}

/// The param keys of tenant A a restore from `url` holds.
fn restored_keys(url: &str, e: &[(&str, &str)]) -> (std::collections::HashSet<String>, String) {
    let fresh = crate::support::tempdir();
    let (code, out) = run_with(&["restore", "--dir", fresh.path().to_str().unwrap(), "--from", url], e);
    assert_eq!(code, 0, "{out}");
    let res = zhizhuang::decl::Resources::load().unwrap();
    let st = store::Store::open(&fresh.path().join(store::DATA_FILE), &store::Options::default()).unwrap();
    let d = res.get("param");
    let keys = st.read(|r| r.all(&d, A)).unwrap().into_iter().filter_map(|r| r.get("paramKey").and_then(Value::as_str).map(str::to_string)).collect();
    st.close();
    (keys, out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn after_an_offline_open_the_next_run_ships_again_instead_of_stalling() {
    weed().lock().unwrap().bucket("offline-open");
    let (vars, url) = (aws(), "s3://offline-open/co");
    let e = env(&vars);
    let dir = crate::support::tempdir();
    let mut primary = Server::start_with(dir.path(), &["--replicate", url], &e).await;
    let tok = primary.sign_in(A).await;
    assert_eq!(put(&primary, &tok, "before.crash").await, 200);
    let first = shipped(&primary).await;
    // A few writes, then a crash before they are shipped.
    for i in 0..5 {
        assert_eq!(put(&primary, &tok, &format!("unshipped.{i}")).await, 200);
    }
    primary.kill9();
    // The administrator serves once without --replicate (its log folded away), and runs a password reset.
    let mut once = Server::start_with(dir.path(), &[], &[]).await;
    let t2 = once.sign_in(A).await;
    assert_eq!(put(&once, &t2, "while.not.replicating").await, 200);
    assert!(once.stop().success());
    let (code, out) = run_with(&["admin", "passwd", "--dir", dir.path().to_str().unwrap(), "--tenant", A, "--account", "admin", "--password", crate::net::PW], &[]);
    assert_eq!(code, 0, "{out}");
    // Replicating again: it ships (a new generation with a snapshot), not a silent stall.
    let primary = Server::start_with(dir.path(), &["--replicate", url], &e).await;
    let tok = primary.sign_in(A).await;
    assert_eq!(put(&primary, &tok, "after.restart").await, 200);
    let now = shipped(&primary).await;
    assert_ne!(now["generation"], first["generation"], "a new generation: {now}");
    let (keys, _) = restored_keys(url, &e);
    for k in ["before.crash", "unshipped.0", "unshipped.4", "while.not.replicating", "after.restart"] {
        assert!(keys.contains(k), "{k} not in the bucket");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn restore_then_replicate_starts_a_new_stream_and_never_ships_the_old_files_logs() {
    weed().lock().unwrap().bucket("restore-then");
    let (vars, url) = (aws(), "s3://restore-then/co");
    let e = env(&vars);
    let tmp = crate::support::tempdir();
    let dir = tmp.path().join("data");
    let mut primary = Server::start_with(&dir, &["--replicate", url], &e).await;
    let tok = primary.sign_in(A).await;
    assert_eq!(put(&primary, &tok, "in.backup").await, 200);
    let backup = tmp.path().join("b.redb");
    let (code, out) = run_with(&["backup", "--dir", dir.to_str().unwrap(), "--out", backup.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{out}");
    let first = shipped(&primary).await;
    // Changes after the backup, some not shipped when the machine dies.
    for i in 0..30 {
        put(&primary, &tok, &format!("after.backup.{i}")).await;
    }
    primary.kill9();
    // The administrator restores the backup (undoing those changes) and replicates again.
    let (code, out) = run_with(&["restore", "--dir", dir.to_str().unwrap(), backup.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("new generation"), "{out}");
    let primary = Server::start_with(&dir, &["--replicate", url], &e).await;
    let tok = primary.sign_in(A).await;
    assert_eq!(put(&primary, &tok, "after.restore").await, 200, "not fenced: the owner still names this installation");
    let now = shipped(&primary).await;
    assert_ne!(now["generation"], first["generation"]);
    let (keys, _) = restored_keys(url, &e);
    assert!(keys.contains("in.backup") && keys.contains("after.restore"), "{keys:?}");
    assert!(!keys.iter().any(|k| k.starts_with("after.backup.")), "the replaced file's history is not the new generation's: {keys:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_copied_directory_is_another_server_and_takes_no_writes() {
    weed().lock().unwrap().bucket("copied");
    let (vars, url) = (aws(), "s3://copied/co");
    let e = env(&vars);
    let tmp = crate::support::tempdir();
    let dir = tmp.path().join("data");
    let mut primary = Server::start_with(&dir, &["--replicate", url], &e).await;
    shipped(&primary).await;
    assert!(primary.stop().success());
    // A copy of the stopped directory (a cloned VM, a folder copied for a test), started beside the original.
    let copy = tmp.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    for entry in walk(&dir) {
        let to = copy.join(entry.strip_prefix(&dir).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &to).unwrap();
    }
    let primary = Server::start_with(&dir, &["--replicate", url], &e).await;
    let tok = primary.sign_in(A).await;
    assert_eq!(put(&primary, &tok, "on.original").await, 200);
    let cloned = Server::start_with(&copy, &["--replicate", url], &e).await;
    let ctok = cloned.sign_in(A).await;
    assert_eq!(put(&cloned, &ctok, "on.copy").await, 503, "the copy is fenced");
    let (s, b) = request(&cloned.addr, "GET", "/api/health", &[], "").await.unwrap();
    assert!(s == 503 && b.contains("fenced"), "{b}");
    assert_eq!(put(&primary, &tok, "on.original.2").await, 200, "the original keeps its writes");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if e.file_type().unwrap().is_file() {
            out.push(p);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_deleted_owner_object_is_not_a_free_claim() {
    let target = weed().lock().unwrap().bucket("no-owner");
    let (vars, url) = (aws(), "s3://no-owner/co");
    let e = env(&vars);
    let dir = crate::support::tempdir();
    let lease: Vec<(&str, &str)> = e.iter().copied().chain([("ZZ_REPLICA_LEASE_SECS", "6")]).collect();
    let primary = Server::start_with(dir.path(), &["--replicate", url], &lease).await;
    shipped(&primary).await;
    let bucket = offbox::Bucket::open(&target.under("co"), Duration::from_secs(5)).unwrap();
    bucket.delete("owner").await.unwrap();
    // Another server (with data of its own) pointed at the same replica does not take it.
    let other = crate::support::tempdir();
    let mut before = Server::start_with(other.path(), &[], &[]).await;
    assert!(before.stop().success());
    let intruder = Server::start_with(other.path(), &["--replicate", url], &lease).await;
    let itok = intruder.sign_in(A).await;
    assert_eq!(put(&intruder, &itok, "intruder").await, 503);
    // The real primary puts the owner object back at its next renewal and keeps its writes.
    let mut back = None;
    for _ in 0..40 {
        if let Some(b) = bucket.get("owner").await.unwrap() {
            back = Some(b);
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let owner: Value = serde_json::from_slice(&back.expect("the owner object is back")).unwrap();
    assert_eq!(owner["generation"], replica_status(&primary).await["generation"]);
    let tok = primary.sign_in(A).await;
    assert_eq!(put(&primary, &tok, "primary.after").await, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_owner_write_whose_answer_was_lost_is_recognised_as_its_own() {
    let target = weed().lock().unwrap().bucket("lost-answer");
    let (vars, url) = (aws(), "s3://lost-answer/co");
    let e = env(&vars);
    let dir = crate::support::tempdir();
    let mut primary = Server::start_with(dir.path(), &["--replicate", url], &e).await;
    shipped(&primary).await;
    assert!(primary.stop().success());
    // As if the server had saved the generation it was claiming, written the owner object, and died before the
    // answer came back.
    let ship = dir.path().join("zhizhuang-ship");
    let mut state: Value = serde_json::from_slice(&std::fs::read(ship.join("state.json")).unwrap()).unwrap();
    let instance: Value = serde_json::from_slice(&std::fs::read(dir.path().join("zhizhuang-instance.json")).unwrap()).unwrap();
    let next = offbox::layout::new_generation();
    state["pending"] = Value::String(next.clone());
    std::fs::write(ship.join("state.json"), serde_json::to_vec(&state).unwrap()).unwrap();
    let bucket = offbox::Bucket::open(&target.under("co"), Duration::from_secs(5)).unwrap();
    let owner = serde_json::json!({"generation": next, "since": 1, "host": "vm", "url": "", "instance": instance["id"], "boot": "old", "renewed": 1});
    bucket.put("owner", serde_json::to_vec(&owner).unwrap()).await.unwrap();
    let primary = Server::start_with(dir.path(), &["--replicate", url], &e).await;
    let tok = primary.sign_in(A).await;
    assert_eq!(put(&primary, &tok, "after.lost.answer").await, 200, "not fenced by its own write");
    assert_eq!(shipped(&primary).await["generation"], next.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stale_standby_is_not_promoted_over_a_newer_primary_and_a_promotion_catches_up_first() {
    weed().lock().unwrap().bucket("stale");
    let (vars, url) = (aws(), "s3://stale/co");
    let e = env(&vars);
    let short: Vec<(&str, &str)> = e.iter().copied().chain([("ZZ_REPLICA_LEASE_SECS", "2")]).collect();
    let pdir = crate::support::tempdir();
    let mut primary = Server::start_with(pdir.path(), &["--replicate", url], &short).await;
    let ptok = primary.sign_in(A).await;
    assert_eq!(put(&primary, &ptok, "seen.by.standby").await, 200);
    shipped(&primary).await;
    let sdir = crate::support::tempdir();
    let mut standby = Server::start_with(sdir.path(), &["--follow", url], &short).await;
    // The standby stops; the primary writes on (shipped, never applied by the standby), then dies.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(standby.stop().success());
    for i in 0..10 {
        assert_eq!(put(&primary, &ptok, &format!("shipped.after.standby.stopped.{i}")).await, 200);
    }
    shipped(&primary).await;
    primary.kill9();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    // A second copy made later follows the same generation; promoting the stopped standby catches it up first.
    let (code, out) = run_with(&["promote", "--dir", sdir.path().to_str().unwrap()], &short);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("caught up: 10 records") || out.contains("caught up:"), "{out}");
    let promoted = Server::start_with(sdir.path(), &["--replicate", url], &short).await;
    let tok = promoted.sign_in(A).await;
    let (_, b) = request(&promoted.addr, "GET", "/api/blade-system/param/list?paramKey=shipped.after&size=50", &[("blade-auth", &format!("bearer {tok}"))], "").await.unwrap();
    assert_eq!(serde_json::from_str::<Value>(&b).unwrap()["data"]["total"], 10, "what the old primary shipped is in the new lineage: {b}");
    shipped(&promoted).await;
    // The old primary's directory, started as a standby of nothing new, then promoted: it follows an older
    // generation than the replica's primary now, so promote refuses.
    let (code, out) = run_with(&["promote", "--dir", pdir.path().to_str().unwrap(), "--replicate", url], &short);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("not the latest") || out.contains("renewed its lease"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn restoring_to_a_moment_after_the_stream_ends_says_so() {
    weed().lock().unwrap().bucket("past-end");
    let (vars, url) = (aws(), "s3://past-end/co");
    let e = env(&vars);
    let dir = crate::support::tempdir();
    let primary = Server::start_with(dir.path(), &["--replicate", url], &e).await;
    let tok = primary.sign_in(A).await;
    assert_eq!(put(&primary, &tok, "last").await, 200);
    shipped(&primary).await;
    let fresh = crate::support::tempdir();
    let (code, out) = run_with(&["restore", "--dir", fresh.path().to_str().unwrap(), "--from", url, "--at", "2099-01-01 00:00:00"], &e);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("NOTE") && out.contains("before the moment asked for"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_logs_file_ships_beside_the_data_file_and_comes_back_with_a_restore() {
    weed().lock().unwrap().bucket("with-logs");
    let (vars, url) = (aws(), "s3://with-logs/co");
    let e = env(&vars);
    let dir = crate::support::tempdir();
    let primary = Server::start_with(dir.path(), &["--replicate", url], &e).await;
    let tok = primary.sign_in(A).await;
    assert_eq!(put(&primary, &tok, "audited.write").await, 200);
    shipped(&primary).await;
    // The logs' stream catches up too.
    let p = primary.sign_in("000000").await;
    let mut logs = Value::Null;
    for _ in 0..200 {
        let (_, b) = request(&primary.addr, "GET", "/api/blade-system/status", &[("blade-auth", &format!("bearer {p}"))], "").await.unwrap();
        logs = serde_json::from_str::<Value>(&b).unwrap()["data"]["logsReplica"].clone();
        if logs["shippedSeq"].as_u64().unwrap_or(0) > 0 && logs["shippedSeq"] == logs["durableSeq"] {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(logs["shippedSeq"].as_u64().unwrap_or(0) > 0, "{logs}");
    let fresh = crate::support::tempdir();
    let (code, out) = run_with(&["restore", "--dir", fresh.path().to_str().unwrap(), "--from", url], &e);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("logs rebuilt too"), "{out}");
    let restored = Server::start(fresh.path()).await;
    let t = restored.sign_in(A).await;
    let path = "/api/blade-log/api/list?requestUri_equal=%2Fapi%2Fblade-system%2Fparam%2Fsubmit&size=5";
    let (_, b) = request(&restored.addr, "GET", path, &[("blade-auth", &format!("bearer {t}"))], "").await.unwrap();
    assert!(serde_json::from_str::<Value>(&b).unwrap()["data"]["total"].as_u64().unwrap() >= 1, "the audit history came back: {b}");
    let bare = crate::support::tempdir();
    let (code, out) = run_with(&["restore", "--dir", bare.path().to_str().unwrap(), "--from", url, "--without-logs"], &e);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("logs rebuilt"), "{out}");
}
