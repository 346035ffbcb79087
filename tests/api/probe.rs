//! The second outside probe (issue 52), each finding as it was reproduced: a company's object storage and the
//! status screen's replica pointed at internal addresses, redirects and echoed bodies, files readable by other
//! local users, audit history wiped by error reports, uploads that filled memory, redirects after sign-in, files
//! taken over through attachments, a backup written over the live file, idle connections and framed pages.
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::offbox::allowing;
use crate::support::{App, admin_tokens, msg};

const A: &str = "157270";

/// A one-line HTTP server on 127.0.0.1 that answers every request with `answer` and counts them: a stand-in for
/// an internal service (a metadata endpoint, a redirector).
async fn canned(answer: String) -> (u16, Arc<AtomicUsize>) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    tokio::spawn(async move {
        while let Ok((mut c, _)) = l.accept().await {
            h.fetch_add(1, Ordering::SeqCst);
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16 << 10];
                let mut got = Vec::new();
                while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                    match c.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => got.extend_from_slice(&buf[..n]),
                    }
                }
                let _ = c.write_all(answer.as_bytes()).await;
                let _ = c.shutdown().await;
            });
        }
    });
    (port, hits)
}

fn ok_body(body: &str) -> String {
    format!("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len())
}

fn oss(endpoint: &str) -> String {
    json!({"ossCode": format!("probe-{}", rand::random::<u32>()), "category": 1, "endpoint": endpoint, "bucketName": "role-name", "accessKey": "a", "secretKey": "b"}).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_companys_object_storage_cannot_reach_internal_addresses_nor_echo_them() {
    let secret = "ROLE-CREDENTIALS-AKIA-META-0042";
    let (meta, meta_hits) = canned(ok_body(&format!("{{\"AccessKeyId\":\"{secret}\",\"Token\":\"{}\"}}", "x".repeat(300)))).await;
    let (redir, _) = canned(format!("HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:{meta}/latest/meta-data/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")).await;
    // A company's administrator, on a server whose operator allowed nothing internal.
    let app = App::new();
    let a = &admin_tokens(&app).await[A];
    for endpoint in [
        format!("http://127.0.0.1:{meta}/latest/meta-data/iam/security-credentials"),
        "http://169.254.169.254/latest/meta-data".to_string(),
        "http://10.0.0.1:9000".to_string(),
        "http://[::ffff:169.254.169.254]".to_string(),
        "http://[::1]:9000".to_string(),
        format!("http://localhost:{meta}"),
        "http://0.0.0.0:9000".to_string(),
        "file:///etc/passwd".to_string(),
        "gopher://127.0.0.1:6379/_INFO".to_string(),
        "javascript:alert(1)".to_string(),
    ] {
        let (s, v) = app.post("/api/blade-resource/oss/submit", a, &oss(&endpoint)).await;
        assert_eq!(s, 400, "{endpoint} saved: {v}");
    }
    let (_, v) = app.get("/api/blade-resource/oss/list", a).await;
    assert_eq!(v["data"]["total"], 0, "nothing saved: {v}");
    // A name that resolved to a public address when saved and to this machine now (DNS rebinding): the rule
    // holds at the connect, and nothing is sent.
    let (r, t) = (app.st.res.clone(), A.to_string());
    let doc = json!({"ossCode": "rebound", "category": 1, "endpoint": format!("http://localhost:{meta}"), "bucketName": "role-name", "accessKey": "a", "secretKey": "b"});
    let id = app.st.store.write(move |w| Ok(w.insert(&r.get("oss"), &t, doc.as_object().unwrap().clone(), &store::Actor::default())?["id"].as_u64().unwrap())).unwrap();
    let (s, v) = app.post(&format!("/api/blade-resource/oss/test?id={id}"), a, "").await;
    assert!(s == 400 || s == 502, "{v}");
    assert!(msg(&v).contains("不允许连接"), "{v}");
    assert_eq!(meta_hits.load(Ordering::SeqCst), 0, "no request reached the internal service");

    // Where the operator allows this machine (a MinIO on the LAN): redirects are not followed and no answer
    // is echoed; the error names the kind of failure.
    let app = App::with(allowing("127.0.0.1"));
    let a = &admin_tokens(&app).await[A];
    let (s, v) = app.post("/api/blade-resource/oss/submit", a, &oss(&format!("http://127.0.0.1:{redir}"))).await;
    assert_eq!(s, 200, "{v}");
    let redirector = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = app.post(&format!("/api/blade-resource/oss/test?id={redirector}"), a, "").await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("307"), "the redirect is named: {v}");
    assert_eq!(meta_hits.load(Ordering::SeqCst), 0, "the redirect was not followed");
    let (s, v) = app.post("/api/blade-resource/oss/submit", a, &oss(&format!("http://127.0.0.1:{meta}"))).await;
    assert_eq!(s, 200, "{v}");
    let id = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = app.post(&format!("/api/blade-resource/oss/test?id={id}"), a, "").await;
    assert_eq!(s, 400, "{v}");
    assert!(meta_hits.load(Ordering::SeqCst) > 0);
    assert!(!v.to_string().contains(secret) && !v.to_string().contains("xxxxxxxx"), "no part of the answer comes back: {v}");
    // The redirector enabled: an upload is refused (the redirect not followed), nothing of the target read.
    app.post(&format!("/api/blade-resource/oss/enable?id={redirector}"), a, "").await;
    let before = meta_hits.load(Ordering::SeqCst);
    let (s, v) = app.upload(a, "/api/blade-resource/oss/endpoint/put-file", "a.txt", b"hello".to_vec()).await;
    assert_eq!(s, 502, "{v}");
    assert!(!v.to_string().contains(secret), "{v}");
    assert_eq!(meta_hits.load(Ordering::SeqCst), before, "the redirect was not followed");
    // A closed port says it was refused, in a few seconds at most.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (_, v) = app.post("/api/blade-resource/oss/submit", a, &json!({"id": id, "endpoint": format!("http://127.0.0.1:{closed}"), "secretKey": "b"}).to_string()).await;
    assert_eq!(v["code"], 200, "{v}");
    let started = std::time::Instant::now();
    let (_, v) = app.post(&format!("/api/blade-resource/oss/test?id={id}"), a, "").await;
    assert!(msg(&v).contains("连接被拒绝"), "{v}");
    assert!(started.elapsed() < std::time::Duration::from_secs(15), "{:?}", started.elapsed());
}

/// Every file under `dir` (and `dir` itself) with its mode.
fn modes(dir: &std::path::Path) -> Vec<(std::path::PathBuf, u32)> {
    use std::os::unix::fs::PermissionsExt;
    // The server runs while this walks: the search index merges and deletes its segment files, so an entry
    // listed by read_dir may be gone by the time it is read. A file that vanished has no mode to check.
    let Ok(top) = std::fs::metadata(dir) else { return Vec::new() };
    let mut out = vec![(dir.to_path_buf(), top.permissions().mode() & 0o777)];
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for e in entries.flatten() {
        let p = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            out.extend(modes(&p));
        } else if !kind.is_symlink() && !kind.is_socket() {
            if let Ok(m) = std::fs::metadata(&p) {
                out.push((p.clone(), m.permissions().mode() & 0o777));
            }
        }
    }
    out
}

use std::os::unix::fs::FileTypeExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_data_directory_is_private_and_a_copy_of_it_gives_away_no_secret_nor_a_signing_key() {
    use std::os::unix::fs::PermissionsExt;
    use crate::net::{Server, request, run};
    let tmp = crate::support::tempdir();
    let dir = tmp.path().join("data");
    // An install made by an earlier version: a world-readable directory and file.
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(dir.join("notes.txt"), "x").unwrap();
    std::fs::set_permissions(dir.join("notes.txt"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut server = Server::start(&dir).await;
    let token = server.sign_in(A).await;
    let auth = format!("bearer {token}");
    let body = json!({"ossCode": "aliyun", "category": 3, "endpoint": "https://oss-cn-hangzhou.aliyuncs.com", "bucketName": "zz-files", "accessKey": "AK-PLAIN-0091", "secretKey": "SK-SEALED-PLAIN-77"}).to_string();
    let (s, b) = request(&server.addr, "POST", "/api/blade-resource/oss/submit", &[("blade-auth", &auth)], &body).await.unwrap();
    assert_eq!(s, 200, "{b}");
    let out = tmp.path().join("backups");
    std::fs::create_dir(&out).unwrap();
    // A backup is never written inside the data directory (over the live file least of all).
    let live = dir.join("zhizhuang.redb");
    let (code, text) = run(&["backup", "--dir", dir.to_str().unwrap(), "--out", live.to_str().unwrap()]);
    assert_ne!(code, 0, "{text}");
    assert!(text.contains("inside the data directory"), "{text}");
    let (code, text) = run(&["backup", "--dir", dir.to_str().unwrap(), "--out", dir.join("copy.redb").to_str().unwrap()]);
    assert_ne!(code, 0, "{text}");
    let (code, text) = run(&["backup", "--dir", dir.to_str().unwrap(), "--out", out.join("b.redb").to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("secret.key"), "the backup says the key must be kept too: {text}");
    // Everything the server made, and what was there before, is its user's alone.
    // (the folder of backups is the test's own: its files are the product's)
    for (p, mode) in modes(&dir).into_iter().chain(modes(&out).into_iter().skip(1)) {
        assert_eq!(mode & 0o077, 0, "{} is {mode:o}", p.display());
    }
    assert!(dir.join("secret.key").exists());
    assert!(server.stop().success());
    // The files hold neither key in plain text.
    for (p, _) in modes(&dir).into_iter().chain(modes(&out)).filter(|(p, _)| p.is_file()) {
        let bytes = std::fs::read(&p).unwrap();
        for needle in ["SK-SEALED-PLAIN-77", "AK-PLAIN-0091"] {
            assert!(!bytes.windows(needle.len()).any(|w| w == needle.as_bytes()), "{} holds {needle}", p.display());
        }
    }
    // Whoever reads the data file gets its random key, and a token re-signed with it is refused.
    let st = store::Store::open(&live, &store::Options::default()).unwrap();
    let raw = st.read(|r| r.meta("jwt_key")).unwrap().unwrap();
    st.close();
    drop(st);
    use base64::Engine;
    let payload = token.split('.').nth(1).unwrap();
    let claims: serde_json::Value = serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
    let forged = jsonwebtoken::encode(&jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256), &claims, &jsonwebtoken::EncodingKey::from_secret(&raw)).unwrap();
    let server = Server::start(&dir).await;
    let (s, _) = request(&server.addr, "GET", "/api/blade-user/info", &[("blade-auth", &format!("bearer {forged}"))], "").await.unwrap();
    assert_eq!(s, 401, "a token signed with the data file's key alone");
    let (s, _) = request(&server.addr, "GET", "/api/blade-user/info", &[("blade-auth", &auth)], "").await.unwrap();
    assert_eq!(s, 200, "the server's own tokens still work after a restart");
}

/// `n` browser error reports of about `size` characters each, as the UI uploads them.
fn reports(n: usize, size: usize) -> String {
    let junk = |i: usize| (0..size).map(|k| char::from(b'a' + ((i * 7 + k * 13) % 26) as u8)).collect::<String>();
    let list: Vec<serde_json::Value> = (0..n).map(|i| json!({"type": "Error", "message": junk(i), "stack": junk(i + 1), "info": "x", "url": "/wel/index", "time": "2026-11-30 10:00:00"})).collect();
    serde_json::Value::Array(list).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_reports_have_a_budget_and_never_push_the_audit_history_out() {
    let app = App::new();
    app.make_user(A, "clerk", crate::support::ADMIN_PW, &["admin"]).await;
    let clerk = app.sign_in(A, "clerk", crate::support::ADMIN_PW).await;
    // A clerk's uploads: the first ones land (truncated), then the hour's budget answers 429 with Retry-After.
    let mut refused = None;
    for i in 0..14 {
        let (s, h, v) = app.call(axum::http::Request::post("/api/blade-log/error/upload").header("blade-auth", format!("bearer {clerk}")).header("content-type", "application/json").body(axum::body::Body::from(reports(100, 10_000))).unwrap()).await;
        if s == 429 {
            assert!(h.get("retry-after").is_some(), "{v}");
            assert!(msg(&v).contains("错误日志已达上限"), "{v}");
            refused = Some(i);
            break;
        }
        assert_eq!(s, 200, "{v}");
    }
    assert!(refused.is_some_and(|i| i <= 3), "the budget stops a flood early: {refused:?}");
    app.st.logs.flush().await;
    let (_, v) = app.get("/api/blade-log/error/list?source=ui&size=1", &app.admin(A).await).await;
    let kept = v["data"]["total"].as_u64().unwrap();
    assert!(kept <= 300, "{kept}");

    // The size cap: browser reports go first; api-log and sign-in entries stay while any report is left.
    let (res, t) = (app.st.res.clone(), A.to_string());
    let big = "b".repeat(4000);
    app.st.log_store.write(move |w| {
        for _ in 0..3000 {
            let doc = json!({"source": "ui", "type": "Error", "message": big, "stack": big, "url": "/x", "time": "2026-11-30 10:00:00"});
            w.insert(&res.get("log_error"), &t, doc.as_object().unwrap().clone(), &store::Actor::default())?;
        }
        Ok(())
    }).unwrap();
    let count = |res: &str, tenant: &str| {
        let (r, d, t) = (app.st.res.clone(), res.to_string(), tenant.to_string());
        app.st.log_store.read(move |x| x.count(&r.get(&d), &t)).unwrap()
    };
    let (api_before, login_before) = (count("log_api", A), count("log_login", A));
    assert!(api_before > 0 && login_before > 0);
    let space = app.st.log_store.space().unwrap().allocated_bytes;
    let cap = space / 2;
    let done = zhizhuang::logsink::prune_to_size(&app.st.log_store, &app.st.store, &app.st.res, cap).unwrap();
    assert!(done.reports > 0 && done.audit == 0, "{done:?}");
    assert!(count("log_api", A) >= api_before && count("log_login", A) >= login_before, "the audit history stays");
    // Only when no report is left does the cap take audit entries, and the status screen says so.
    let (r, t) = (app.st.res.clone(), A.to_string());
    app.st.log_store.write(move |w| w.purge_where(&r.get("log_error"), &t, 0, usize::MAX, usize::MAX, &|d| zhizhuang::logsink::is_browser_report(d)).map(|_| ())).unwrap();
    let done = zhizhuang::logsink::prune_to_size(&app.st.log_store, &app.st.store, &app.st.res, 1).unwrap();
    assert!(done.audit > 0, "{done:?}");
    let (_, v) = app.get("/api/blade-system/status", &app.admin("000000").await).await;
    assert!(v["data"]["auditPrunedBySize"]["count"].as_u64().unwrap() >= done.audit, "{}", v["data"]["auditPrunedBySize"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_take_a_place_among_a_few_at_once_and_leave_nothing_spooled() {
    let app = App::with(zhizhuang::state::Settings { upload_wait: std::time::Duration::from_millis(200), ..Default::default() });
    let tok = admin_tokens(&app).await;
    let file = vec![b'x'; 3 << 20];
    // Two of the tenant's uploads under way: a third waits, then is told to try again.
    let wait = std::time::Duration::from_secs(1);
    let held = (app.st.uploads.enter(A, wait).await.unwrap(), app.st.uploads.enter(A, wait).await.unwrap());
    let (s, v) = app.upload(&tok[A], "/api/blade-resource/oss/endpoint/put-file", "big.txt", file.clone()).await;
    assert_eq!(s, 429, "{v}");
    assert!(msg(&v).contains("上传的文件过多"), "{v}");
    // Another company is not held up by this one's.
    let (s, v) = app.upload(&tok["741487"], "/api/blade-resource/oss/endpoint/put-file", "big.txt", file.clone()).await;
    assert_eq!(s, 200, "{v}");
    // Nor by the server's limit, until every place is taken.
    let more = (app.st.uploads.enter("741487", wait).await.unwrap(), app.st.uploads.enter("741487", wait).await.unwrap());
    let (s, _) = app.upload(&tok["000000"], "/api/blade-resource/oss/endpoint/put-file", "big.txt", file.clone()).await;
    assert_eq!(s, 429, "four uploads at once in all");
    drop((held, more));
    let (s, v) = app.upload(&tok[A], "/api/blade-resource/oss/endpoint/put-file", "big.txt", file.clone()).await;
    assert_eq!(s, 200, "{v}");
    // The stored file is the one sent; nothing stays spooled.
    let link = v["data"]["link"].as_str().unwrap().to_string();
    assert_eq!(app.download(&tok[A], &link).await, file);
    let spool = app.st.store.path().parent().unwrap().join("uploads.tmp");
    assert_eq!(std::fs::read_dir(&spool).map(|d| d.count()).unwrap_or(0), 0);
    // Text that is not UTF-8 across a chunk boundary is still refused as text.
    let mut bad = vec![b'a'; 100_000];
    bad.push(0xff);
    let (s, _) = app.upload(&tok[A], "/api/blade-resource/oss/endpoint/put-file", "bad.txt", bad).await;
    assert_eq!(s, 400);
    let chinese = "名称,数量\n".repeat(50_000).into_bytes();
    let (s, v) = app.upload(&tok[A], "/api/blade-resource/oss/endpoint/put-file", "cn.csv", chinese).await;
    assert_eq!(s, 200, "{v}");
}

#[tokio::test]
async fn a_redirect_after_sign_in_stays_on_this_site() {
    let app = App::new();
    app.st.start_ssr_now().expect("render pool loads the server bundle");
    let token = app.admin(A).await;
    for evil in ["%2F%09%2Fevil.example", "%2F%0A%2Fevil.example", "%2F%5Cevil.example", "%2F%2Fevil.example", "https%3A%2F%2Fevil.example"] {
        let req = axum::http::Request::get(format!("/login?redirect={evil}")).header("host", "edu.localhost:8090").header("cookie", format!("saber-access-token={token}; zz-lang=zh")).body(axum::body::Body::empty()).unwrap();
        let (s, h, _) = app.call(req).await;
        assert_eq!(s, 302, "{evil}");
        let to = h["location"].to_str().unwrap();
        assert!(crate::support::same_site(to) && !to.contains("evil"), "{evil} → {to:?}");
    }
    let req = axum::http::Request::get("/login?redirect=%2Fsystem%2Fparam").header("host", "edu.localhost:8090").header("cookie", format!("saber-access-token={token}; zz-lang=zh")).body(axum::body::Body::empty()).unwrap();
    let (_, h, _) = app.call(req).await;
    assert_eq!(h["location"], "/system/param");
}

#[tokio::test]
async fn an_attachment_names_only_the_callers_own_unbound_uploads() {
    let app = App::new();
    let codes = ["worklist_order", "worklist_order_view", "worklist_order_add", "worklist_reply", "worklist_reply_view", "worklist_reply_add"];
    app.make_role(A, "clerkish", &codes).await;
    app.make_user(A, "keeper", "Zz#12345", &["clerkish"]).await;
    app.make_user(A, "clerk2", "Zz#12345", &["clerkish"]).await;
    let (keeper, clerk) = (app.sign_in(A, "keeper", "Zz#12345").await, app.sign_in(A, "clerk2", "Zz#12345").await);
    let (r, t) = (app.st.res.clone(), A.to_string());
    let cat = app.st.store.write(move |w| Ok(w.insert(&r.get("worklist_category"), &t, json!({"categoryName": "售后", "defaultHours": 48, "sort": 1}).as_object().unwrap().clone(), &store::Actor::default())?["id"].as_u64().unwrap())).unwrap();
    // The keeper's picture (an avatar, say): the clerk cannot bind it to his order, and the keeper keeps it.
    let png: Vec<u8> = [&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R'][..], &[7u8; 300][..]].concat();
    let (s, v) = app.upload(&keeper, "/api/blade-resource/oss/endpoint/put-file", "me.png", png.clone()).await;
    assert_eq!(s, 200, "{v}");
    let theirs = v["data"]["link"].as_str().unwrap().to_string();
    let order = |link: &str| json!({"title": "门锁维修", "categoryId": cat.to_string(), "priority": 2, "content": "x", "attachments": link}).to_string();
    let (s, v) = app.post("/worklist/order/submit", &clerk, &order(&theirs)).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("不是您上传的文件"), "{v}");
    assert_eq!(app.download(&keeper, &theirs).await, png, "the owner still has it");
    // His own upload he attaches.
    let (_, v) = app.upload(&clerk, "/api/blade-resource/oss/endpoint/put-file", "site.png", png.clone()).await;
    let mine = v["data"]["link"].as_str().unwrap().to_string();
    let (s, v) = app.post("/worklist/order/submit", &clerk, &order(&mine)).await;
    assert_eq!(s, 200, "{v}");
}

/// Reads from `c` until the server closes it; how long that took (None: still open after `within`).
async fn closed_within(c: &mut tokio::net::TcpStream, within: std::time::Duration) -> Option<std::time::Duration> {
    let started = std::time::Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(within.saturating_sub(started.elapsed()), c.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(started.elapsed()),
            Ok(Ok(_)) => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_trickling_and_piled_up_connections_are_closed() {
    use crate::net::{Server, request};
    let tmp = crate::support::tempdir();
    let server = Server::start_with(&tmp.path().join("data"), &["--header-timeout", "2", "--max-conns-per-ip", "20"], &[]).await;
    let long = std::time::Duration::from_secs(8);
    // A connection that sends nothing.
    let mut silent = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
    // One that trickles header lines, one a second.
    let mut trickle = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
    trickle.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    let t = tokio::spawn(async move {
        for i in 0..10 {
            if trickle.write_all(format!("X-Slow-{i}: y\r\n").as_bytes()).await.is_err() {
                return true;
            }
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        }
        closed_within(&mut trickle, std::time::Duration::from_millis(100)).await.is_some()
    });
    let took = closed_within(&mut silent, long).await;
    assert!(took.is_some_and(|d| d < std::time::Duration::from_secs(5)), "a silent connection is closed: {took:?}");
    assert!(t.await.unwrap(), "a trickling connection is closed");
    // An idle keep-alive connection after a request is closed too.
    let mut kept = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
    kept.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    assert!(closed_within(&mut kept, long).await.is_some(), "an idle keep-alive connection is closed");
    // Twenty open from this address: the next is closed at once; requests go on once they are gone.
    let mut held = Vec::new();
    for _ in 0..20 {
        held.push(tokio::net::TcpStream::connect(&server.addr).await.unwrap());
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let mut extra = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
    let took = closed_within(&mut extra, std::time::Duration::from_secs(1)).await;
    assert!(took.is_some(), "the 21st connection is refused");
    drop(held);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(request(&server.addr, "GET", "/api/health", &[], "").await.unwrap().0, 200);
}

#[tokio::test]
async fn only_the_tenants_configured_addresses_are_framed_and_sandboxed() {
    let app = App::new();
    app.st.start_ssr_now().expect("render pool loads the server bundle");
    let token = app.admin(A).await;
    let page = |url: &str| {
        let req = axum::http::Request::get(url).header("host", "edu.localhost:8090").header("cookie", format!("saber-access-token={token}; zz-lang=zh")).body(axum::body::Body::empty()).unwrap();
        app.call(req)
    };
    let (s, h, v) = page("/myiframe/x?src=https%3A%2F%2Fevil.example%2Flogin").await;
    let html = v.as_str().unwrap_or("").to_string();
    assert_eq!(s, 200);
    assert!(!html.contains("<iframe") && html.contains("未被允许"), "{html}");
    let csp = h["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("frame-src 'self';") && !csp.contains("https:;") && !csp.contains("evil"), "{csp}");
    // The tenant's ERP, set in 参数管理: framed, sandboxed, and allowed by the page's policy.
    let (s, v) = app.post("/api/blade-system/param/submit", &token, r#"{"paramName":"ERP","paramKey":"site.app.erp","paramValue":"https://erp.example.com/portal"}"#).await;
    assert_eq!(s, 200, "{v}");
    let (_, h, v) = page("/myiframe/x?src=https%3A%2F%2Ferp.example.com%2Fportal%2Forders").await;
    let html = v.as_str().unwrap_or("").to_string();
    assert!(html.contains("<iframe") && html.contains("sandbox="), "{html}");
    assert!(h["content-security-policy"].to_str().unwrap().contains("frame-src 'self' https://erp.example.com;"));
    let (_, _, v) = page("/myiframe/x?src=javascript%3Aalert(1)").await;
    assert!(!v.as_str().unwrap_or("").contains("<iframe"));
}

/// Item 10: the token answer sets the UI's cookies itself — HttpOnly, SameSite=Strict, the refresh token's only for
/// the token endpoint — a refresh may bring its token in that cookie alone, a page and a download know the user by
/// the access cookie, sign-out clears both, and a cookie still never stands in for Blade-Auth on a change.
#[tokio::test]
async fn the_session_cookies_are_set_by_the_server_where_no_script_reads_them() {
    let app = App::new();
    app.st.start_ssr_now().expect("render pool loads the server bundle");
    let md5 = zhizhuang::auth::password::md5_hex(crate::support::ADMIN_PW);
    let req = axum::http::Request::post(format!("/api/blade-auth/oauth/token?tenantId={A}&username=admin&password={md5}&grant_type=password&scope=all"))
        .header("authorization", crate::support::BASIC)
        .header("tenant-id", A)
        .body(axum::body::Body::empty())
        .unwrap();
    let (s, h, b) = app.call(req).await;
    assert_eq!(s, 200, "{b}");
    let set: Vec<&str> = h.get_all("set-cookie").iter().map(|v| v.to_str().unwrap()).collect();
    let access = b["access_token"].as_str().unwrap();
    let tok = set.iter().find(|c| c.starts_with("zz-token=")).expect("zz-token set");
    assert!(tok.starts_with(&format!("zz-token={access};")), "{tok}");
    for part in ["HttpOnly", "SameSite=Strict", "Path=/;", &format!("Max-Age={}", b["expires_in"])] {
        assert!(tok.contains(part), "{part} in {tok}");
    }
    assert!(!tok.contains("Secure"), "plain HTTP: no Secure ({tok})");
    let rt = set.iter().find(|c| c.starts_with("zz-refresh=")).expect("zz-refresh set");
    assert!(rt.contains("HttpOnly") && rt.contains("SameSite=Strict") && rt.contains("Path=/api/blade-auth/oauth/token;"), "{rt}");

    // Over HTTPS (the listener marks the request) the cookies are Secure.
    let mut req = axum::http::Request::post(format!("/api/blade-auth/oauth/token?tenantId={A}&username=admin&password={md5}&grant_type=password&scope=all"))
        .header("authorization", crate::support::BASIC)
        .header("tenant-id", A)
        .body(axum::body::Body::empty())
        .unwrap();
    req.extensions_mut().insert(zhizhuang::listen::Scheme { https: true });
    let (_, h2, b2) = app.call(req).await;
    assert!(h2.get_all("set-cookie").iter().all(|v| v.to_str().unwrap().ends_with("; Secure")), "{h2:?}");
    // ...and named with the prefixes browsers enforce (`__Host-`: this host, `/`, no Domain; `__Secure-`).
    let set2: Vec<&str> = h2.get_all("set-cookie").iter().map(|v| v.to_str().unwrap()).collect();
    let access2 = b2["access_token"].as_str().unwrap();
    assert!(set2.iter().any(|c| c.starts_with(&format!("__Host-zz-token={access2};")) && c.contains("Path=/;") && !c.contains("Domain")), "{set2:?}");
    let rt2 = set2.iter().find(|c| c.starts_with("__Secure-zz-refresh=")).expect("__Secure-zz-refresh set");
    assert!(rt2.contains("Path=/api/blade-auth/oauth/token;"), "{rt2}");
    assert!(!set2.iter().any(|c| c.starts_with("zz-token=") || c.starts_with("zz-refresh=")), "{set2:?}");
    // Over HTTPS only the prefixed cookie is read: one planted without the prefix (by a page of another subdomain,
    // or an answer over plain HTTP) signs nobody in.
    let desk = |cookie: String| {
        let mut req = axum::http::Request::get("/wel/index").header("host", "edu.localhost:8090").header("cookie", cookie).body(axum::body::Body::empty()).unwrap();
        req.extensions_mut().insert(zhizhuang::listen::Scheme { https: true });
        req
    };
    assert_eq!(app.call(desk(format!("__Host-zz-token={access2}"))).await.0, 200, "the desk over HTTPS by the prefixed cookie");
    assert_eq!(app.call(desk(format!("zz-token={access2}"))).await.0, 302, "an unprefixed cookie over HTTPS is not a session");
    // A refresh over HTTPS takes the prefixed refresh cookie.
    let mut req = axum::http::Request::post(format!("/api/blade-auth/oauth/token?tenantId={A}&grant_type=refresh_token&scope=all"))
        .header("authorization", crate::support::BASIC)
        .header("tenant-id", A)
        .header("cookie", rt2.split(';').next().unwrap())
        .body(axum::body::Body::empty())
        .unwrap();
    req.extensions_mut().insert(zhizhuang::listen::Scheme { https: true });
    let (s, h2b, b2b) = app.call(req).await;
    assert_eq!(s, 200, "{b2b}");
    assert!(h2b.get_all("set-cookie").iter().any(|v| v.to_str().unwrap().starts_with("__Secure-zz-refresh=")), "{h2b:?}");

    // A server-rendered page and a download know the user by the access cookie alone.
    let req = axum::http::Request::get("/wel/index").header("host", "edu.localhost:8090").header("cookie", format!("zz-token={access}; zz-lang=zh")).body(axum::body::Body::empty()).unwrap();
    let (s, _, _) = app.call(req).await;
    assert_eq!(s, 200, "the desk renders signed in");
    let (s, up) = app.upload(access, "/api/blade-resource/oss/endpoint/put-file", "a.txt", b"cookie download".to_vec()).await;
    assert_eq!(s, 200, "{up}");
    let link = up["data"]["link"].as_str().unwrap().to_string();
    let req = axum::http::Request::get(&link).header("cookie", format!("zz-token={access}")).body(axum::body::Body::empty()).unwrap();
    assert_eq!(app.call(req).await.0, 200, "download by the cookie");

    // The cookie never stands in for Blade-Auth on a change.
    let req = axum::http::Request::post("/api/blade-system/param/submit")
        .header("authorization", crate::support::BASIC)
        .header("cookie", format!("zz-token={access}"))
        .header("content-type", "application/json")
        .body(axum::body::Body::from(r#"{"paramName":"x","paramKey":"cookie.only","paramValue":"1"}"#))
        .unwrap();
    assert_eq!(app.call(req).await.0, 401, "a cookie alone changes nothing");

    // A refresh with no token in the query takes the cookie's, rotates it and sets both again.
    let cookie_rt = rt.split(';').next().unwrap().trim_start_matches("zz-refresh=").to_string();
    let refresh = |c: String| {
        axum::http::Request::post(format!("/api/blade-auth/oauth/token?tenantId={A}&grant_type=refresh_token&scope=all"))
            .header("authorization", crate::support::BASIC)
            .header("tenant-id", A)
            .header("cookie", c)
            .body(axum::body::Body::empty())
            .unwrap()
    };
    let (s, h3, b3) = app.call(refresh(format!("zz-refresh={cookie_rt}"))).await;
    assert_eq!(s, 200, "{b3}");
    assert!(b3.get("refresh_token").is_none(), "a refresh by the cookie hands no script the new refresh token: {b3}");
    let rotated = h3.get_all("set-cookie").iter().map(|v| v.to_str().unwrap()).find(|c| c.starts_with("zz-refresh=")).expect("a new refresh cookie");
    assert!(!rotated.starts_with(&format!("zz-refresh={cookie_rt};")), "rotated: {rotated}");
    // The retired one is refused (and revokes the family, as a reused refresh token does in the query); the answer
    // clears the cookies that no longer refresh anything.
    let (s, h4, _) = app.call(refresh(format!("zz-refresh={cookie_rt}"))).await;
    assert_eq!(s, 401);
    assert!(h4.get_all("set-cookie").iter().any(|v| v.to_str().unwrap().starts_with("zz-refresh=;")), "{h4:?}");
    let (s, _, _) = app.call(refresh(String::new())).await;
    assert_eq!(s, 401, "no refresh token anywhere");
    // A Saber-style refresh (its token in the query) still gets the new one in the body.
    let (_, b5) = app.sign_in_body(A, "admin", crate::support::ADMIN_PW).await;
    let url = format!("/api/blade-auth/oauth/token?tenantId={A}&grant_type=refresh_token&scope=all&refresh_token={}", b5["refresh_token"].as_str().unwrap());
    let (s, b6) = app.req("POST", &url, None, None, &[("tenant-id", A)]).await;
    assert_eq!(s, 200, "{b6}");
    assert!(b6["refresh_token"].as_str().is_some_and(|t| !t.is_empty()), "{b6}");

    // Sign-out clears both cookies.
    let t = app.admin(A).await;
    let req = axum::http::Request::get("/api/blade-auth/oauth/logout").header("authorization", crate::support::BASIC).header("blade-auth", format!("bearer {t}")).body(axum::body::Body::empty()).unwrap();
    let (s, h7, _) = app.call(req).await;
    assert_eq!(s, 200);
    let cleared: Vec<&str> = h7.get_all("set-cookie").iter().map(|v| v.to_str().unwrap()).collect();
    assert!(cleared.iter().any(|c| c.starts_with("zz-token=;") && c.contains("Max-Age=0")), "{cleared:?}");
    assert!(cleared.iter().any(|c| c.starts_with("zz-refresh=;") && c.contains("Max-Age=0") && c.contains("Path=/api/blade-auth/oauth/token")), "{cleared:?}");
    // Over HTTPS the prefixed ones (and any unprefixed ones an older release set).
    let t = app.admin(A).await;
    let mut req = axum::http::Request::get("/api/blade-auth/oauth/logout").header("authorization", crate::support::BASIC).header("blade-auth", format!("bearer {t}")).body(axum::body::Body::empty()).unwrap();
    req.extensions_mut().insert(zhizhuang::listen::Scheme { https: true });
    let (s, h8, _) = app.call(req).await;
    assert_eq!(s, 200);
    let cleared: Vec<&str> = h8.get_all("set-cookie").iter().map(|v| v.to_str().unwrap()).collect();
    for name in ["__Host-zz-token=;", "__Secure-zz-refresh=;", "zz-token=;", "zz-refresh=;"] {
        assert!(cleared.iter().any(|c| c.starts_with(name) && c.contains("Max-Age=0") && c.ends_with("; Secure")), "{name} in {cleared:?}");
    }
}
