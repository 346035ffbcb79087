//! Security rule 14: kill -9 during concurrent writes; after restart every acknowledged write is present and the
//! data file passes verify. Rounds: `ZZ_KILL_ROUNDS` (default 100, as security.md asks).
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::net::{Server, request, run};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigkill_during_concurrent_writes_loses_nothing_acknowledged() {
    let rounds: usize = std::env::var("ZZ_KILL_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(store::DATA_FILE);
    let acked: Arc<Mutex<HashSet<String>>> = Arc::default();
    for round in 0..rounds {
        let mut server = Server::start(dir.path()).await;
        let token = server.sign_in("157270").await;
        let mut tasks = Vec::new();
        for w in 0..16 {
            let (addr, token, acked) = (server.addr.clone(), token.clone(), acked.clone());
            tasks.push(tokio::spawn(async move {
                for i in 0.. {
                    let key = format!("k{round}.{w}.{i}");
                    let body = format!(r#"{{"paramName":"崩溃测试","paramKey":"{key}","paramValue":"{i}"}}"#);
                    let auth = format!("bearer {token}");
                    match request(&addr, "POST", "/api/blade-system/param/submit", &[("blade-auth", &auth)], &body).await {
                        Ok((200, _)) => {
                            acked.lock().unwrap().insert(key);
                        }
                        Ok((s, b)) => panic!("unexpected answer {s}: {b}"),
                        Err(_) => return,
                    }
                }
            }));
        }
        tokio::time::sleep(Duration::from_millis(150 + (round as u64 * 37) % 250)).await;
        server.kill9();
        for t in tasks {
            t.await.unwrap();
        }
        let (code, out) = run(&["verify", file.to_str().unwrap()]);
        assert_eq!(code, 0, "round {round}: verify failed after kill -9:\n{out}");
    }
    // Every acknowledged key is there, and nothing else was half-written (counters matched in verify).
    let server = Server::start(dir.path()).await;
    let token = server.sign_in("157270").await;
    let mut present = HashSet::new();
    let mut total = 0;
    for page in 1.. {
        let path = format!("/api/blade-system/param/list?size=1000&current={page}");
        let (s, body) = request(&server.addr, "GET", &path, &[("blade-auth", &format!("bearer {token}"))], "").await.unwrap();
        assert_eq!(s, 200);
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        total = v["data"]["total"].as_u64().unwrap();
        let recs = v["data"]["records"].as_array().unwrap();
        for r in recs {
            present.insert(r["paramKey"].as_str().unwrap().to_string());
        }
        if recs.len() < 1000 {
            break;
        }
    }
    let acked = acked.lock().unwrap();
    let missing: Vec<_> = acked.difference(&present).take(5).collect();
    assert!(missing.is_empty(), "{} acknowledged writes lost, e.g. {missing:?}", acked.difference(&present).count());
    assert_eq!(total as usize, present.len(), "the total counter equals the records");
    assert!(acked.len() > rounds * 10, "too few writes to mean anything: {}", acked.len());
    // The search index caught up with every acknowledged write across the kills (issue 8).
    let auth = format!("bearer {token}");
    server.wait_indexed().await;
    let (_, body) = request(&server.addr, "GET", "/api/blade-system/param/list?paramName=%E5%B4%A9%E6%BA%83%E6%B5%8B%E8%AF%95&size=1", &[("blade-auth", &auth)], "").await.unwrap();
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["data"]["total"].as_u64().unwrap() as usize, present.len(), "the index-answered text filter counts every record");
    for key in acked.iter().step_by((acked.len() / 20).max(1)).take(20) {
        let (_, body) = request(&server.addr, "GET", &format!("/api/blade-search/search?resources=param&q={key}"), &[("blade-auth", &auth)], "").await.unwrap();
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(v["data"]["total"].as_u64().unwrap_or(0) >= 1, "acknowledged {key} not found by the search box: {body}");
    }
    eprintln!("kill -9 rounds: {rounds}, acknowledged writes: {}, present after restart: {}", acked.len(), present.len());
}
