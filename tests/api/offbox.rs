//! Off the box (issue 28) through the real server, against a real S3 server (SeaweedFS): a tenant's files in
//! its own bucket and refused to another tenant; kill -9 of a replicating primary under 64 writers, then a
//! restore from the bucket alone; a standby over HTTP, its promotion, and the old primary fenced.
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use offbox::weed::Weed;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::net::{Server, request, run_with};
use crate::support::{App, admin_tokens};

fn weed() -> &'static Mutex<Weed> {
    weed_server()
}

/// The test binary's one SeaweedFS server (each test its own bucket).
pub fn weed_server() -> &'static Mutex<Weed> {
    static W: OnceLock<Mutex<Weed>> = OnceLock::new();
    W.get_or_init(|| Mutex::new(Weed::start()))
}

/// The standard variables a replicating server reads its bucket's keys from.
fn aws() -> Vec<(&'static str, String)> {
    let endpoint = weed().lock().unwrap().endpoint();
    vec![("AWS_ACCESS_KEY_ID", "zz".into()), ("AWS_SECRET_ACCESS_KEY", "zz-secret".into()), ("AWS_ENDPOINT_URL", endpoint), ("AWS_REGION", "us-east-1".into())]
}

/// Settings whose buckets set through the web may reach `hosts` (`--oss-allow-hosts`).
pub fn allowing(hosts: &str) -> zhizhuang::state::Settings {
    zhizhuang::state::Settings { bucket_rule: offbox::guard::Rule::guarded(offbox::guard::Allow::parse(hosts).unwrap()), ..Default::default() }
}

fn env<'a>(v: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    v.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

const A: &str = "157270";
const B: &str = "741487";

async fn raw_download(app: &App, token: &str, url: &str) -> (u16, Vec<u8>) {
    let req = Request::get(url).header("blade-auth", format!("bearer {token}")).body(Body::empty()).unwrap();
    let resp = app.router.clone().oneshot(req).await.unwrap();
    let s = resp.status().as_u16();
    (s, resp.into_body().collect().await.unwrap().to_bytes().to_vec())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_tenants_files_go_to_its_own_bucket_and_stay_its_own() {
    let target = weed().lock().unwrap().bucket("tenant-files");
    // The test's SeaweedFS is on this machine: the operator allows it, as for a MinIO on the LAN.
    let app = App::with(allowing("127.0.0.1"));
    let tok = admin_tokens(&app).await;
    let (a, b) = (&tok[A], &tok[B]);
    // Without a configuration, a file stays in the data file.
    let png: Vec<u8> = [&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R'][..], &[7u8; 3000][..]].concat();
    let (s, v) = app.upload(a, "/api/blade-resource/oss/endpoint/put-file", "before.png", png.clone()).await;
    assert_eq!(s, 200, "{v}");
    // A wrong bucket name is reported as such by 测试连接.
    let cfg = |bucket: &str| json!({"ossCode": format!("oss-{bucket}"), "category": 1, "endpoint": target.endpoint, "bucketName": bucket, "accessKey": "zz", "secretKey": "zz-secret", "region": "us-east-1"}).to_string();
    let (s, v) = app.post("/api/blade-resource/oss/submit", a, &cfg("no-such-bucket-zz")).await;
    assert_eq!(s, 200, "{v}");
    let wrong = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = app.post(&format!("/api/blade-resource/oss/test?id={wrong}"), a, "").await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("空间(bucket)不存在"), "{v}");
    // The right one connects, and once enabled takes the uploads.
    let (_, v) = app.post("/api/blade-resource/oss/submit", a, &cfg("tenant-files")).await;
    let id = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = app.post(&format!("/api/blade-resource/oss/test?id={id}"), a, "").await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["ok"], true);
    // The keys are never answered.
    let (_, v) = app.get(&format!("/api/blade-resource/oss/detail?id={id}"), a).await;
    assert!(v["data"].get("secretKey").is_none() && !v.to_string().contains("zz-secret"), "{v}");
    let (s, v) = app.post(&format!("/api/blade-resource/oss/enable?id={id}"), a, "").await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = app.upload(a, "/api/blade-resource/oss/endpoint/put-file", "site.png", png.clone()).await;
    assert_eq!(s, 200, "{v}");
    let link = v["data"]["link"].as_str().unwrap().to_string();
    let attach = v["data"]["attachId"].as_str().unwrap().to_string();
    let (_, d) = app.get(&format!("/api/blade-resource/attach/detail?id={attach}"), a).await;
    let key = d["data"]["objectKey"].as_str().unwrap().to_string();
    assert!(key.starts_with(&format!("{A}/")), "under the tenant's prefix: {key}");
    let bucket = offbox::Bucket::open(&target, Duration::from_secs(10)).unwrap();
    assert_eq!(bucket.get(&key).await.unwrap().as_deref(), Some(&png[..]), "the bytes are in the bucket");
    // Downloads go through the server with the same checks: the tenant reads it, another tenant gets 404.
    let (s, got) = raw_download(&app, a, &link).await;
    assert_eq!((s, got == png), (200, true));
    let other = link.replace(&format!("/files/{A}/"), &format!("/files/{B}/"));
    assert_eq!(raw_download(&app, b, &link).await.0, 404);
    assert_eq!(raw_download(&app, b, &other).await.0, 404);
    // The file uploaded before the configuration still reads from the data file.
    let (_, v) = app.get("/api/blade-resource/attach/list?originalName=before.png", a).await;
    let before = v["data"]["records"][0]["link"].as_str().unwrap().to_string();
    assert_eq!(raw_download(&app, a, &before).await.0, 200);
    // Removing the attachment removes the object.
    let (s, v) = app.post(&format!("/api/blade-resource/attach/remove?ids={attach}"), a, "").await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(bucket.get(&key).await.unwrap(), None, "the object went with its record");
    // A bucket that stops answering: the upload is refused saying so, nothing is recorded.
    let (s, v) = app.post("/api/blade-resource/oss/submit", a, &json!({"id": id, "endpoint": "http://127.0.0.1:9", "secretKey": "zz-secret"}).to_string()).await;
    assert_eq!(s, 200, "{v}");
    let (_, before_n) = app.get("/api/blade-resource/attach/list", a).await;
    let (s, v) = app.upload(a, "/api/blade-resource/oss/endpoint/put-file", "lost.png", png.clone()).await;
    assert_eq!(s, 502, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("无法连接"), "{v}");
    let (_, after_n) = app.get("/api/blade-resource/attach/list", a).await;
    assert_eq!(before_n["data"]["total"], after_n["data"]["total"]);
}

#[tokio::test]
async fn writes_on_a_standby_or_a_replaced_primary_answer_503_naming_where_to_go() {
    let app = App::new();
    let tok = admin_tokens(&app).await;
    let body = json!({"paramName": "备用", "paramKey": "standby.write", "paramValue": "1"}).to_string();
    app.st.store.set_read_only(Some("standby:http://erp.example.com".into()));
    let (s, v) = app.post("/api/blade-system/param/submit", &tok[A], &body).await;
    assert_eq!(s, 503, "{v}");
    assert_eq!(v["msg"], "本机是只读备用服务器，不能保存修改；请到主服务器操作：http://erp.example.com");
    let (s, v) = app.req("POST", "/api/blade-system/param/submit", Some(&tok[A]), Some(&body), &[("accept-language", "en")]).await;
    assert_eq!(s, 503);
    assert!(v["msg"].as_str().unwrap().starts_with("This server is a read-only standby"), "{v}");
    // Reading and signing in go on.
    assert_eq!(app.get("/api/blade-system/param/list", &tok[A]).await.0, 200);
    let t2 = app.admin(A).await;
    assert!(!t2.is_empty());
    app.st.store.set_read_only(Some("fenced:http://new.example.com".into()));
    let (s, v) = app.post("/api/blade-system/param/submit", &tok[A], &body).await;
    assert_eq!(s, 503);
    assert!(v["msg"].as_str().unwrap().contains("另一台服务器已接替为主服务器") && v["msg"].as_str().unwrap().contains("http://new.example.com"), "{v}");
    app.st.store.set_read_only(None);
    assert_eq!(app.post("/api/blade-system/param/submit", &tok[A], &body).await.0, 200);
}

/// Creates params from `writers` connections until the server dies; the keys acknowledged and when.
async fn write_until_killed(server: &Server, writers: usize, tag: &str) -> (Arc<Mutex<Vec<(String, Instant)>>>, Vec<tokio::task::JoinHandle<()>>) {
    let token = server.sign_in(A).await;
    let acked: Arc<Mutex<Vec<(String, Instant)>>> = Arc::default();
    let mut tasks = Vec::new();
    for w in 0..writers {
        let (addr, token, acked, tag) = (server.addr.clone(), token.clone(), acked.clone(), tag.to_string());
        tasks.push(tokio::spawn(async move {
            for i in 0.. {
                let key = format!("{tag}.{w}.{i}");
                let body = format!(r#"{{"paramName":"异地备份","paramKey":"{key}","paramValue":"{i}"}}"#);
                let auth = format!("bearer {token}");
                match request(&addr, "POST", "/api/blade-system/param/submit", &[("blade-auth", &auth)], &body).await {
                    Ok((200, _)) => acked.lock().unwrap().push((key, Instant::now())),
                    Ok((s, b)) => panic!("unexpected answer {s}: {b}"),
                    Err(_) => return,
                }
            }
        }));
    }
    (acked, tasks)
}

fn param_keys(file: &std::path::Path) -> std::collections::HashSet<String> {
    let res = zhizhuang::decl::Resources::load().unwrap();
    let s = store::Store::open(file, &store::Options::default()).unwrap();
    let d = res.get("param");
    let keys = s.read(|r| r.all(&d, A)).unwrap().into_iter().filter_map(|r| r.get("paramKey").and_then(Value::as_str).map(str::to_string)).collect();
    s.close();
    keys
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kill9_of_a_replicating_primary_then_a_restore_from_the_bucket_loses_nothing_acknowledged() {
    weed().lock().unwrap().bucket("killed");
    let vars = aws();
    let e = env(&vars);
    let dir = crate::support::tempdir();
    let mut server = Server::start_with(dir.path(), &["--replicate", "s3://killed/company"], &e).await;
    let (acked, tasks) = write_until_killed(&server, 64, "kill").await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    let killed_at = Instant::now();
    server.kill9();
    for t in tasks {
        t.await.unwrap();
    }
    // A new machine: nothing but the bucket.
    let fresh = crate::support::tempdir();
    let (code, out) = run_with(&["restore", "--dir", fresh.path().to_str().unwrap(), "--from", "s3://killed/company"], &e);
    assert_eq!(code, 0, "{out}");
    let file = fresh.path().join(store::DATA_FILE);
    let (code, out) = run_with(&["verify", file.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{out}");
    let present = param_keys(&file);
    let acked = acked.lock().unwrap();
    let old: Vec<&String> = acked.iter().filter(|(_, t)| killed_at.duration_since(*t) > Duration::from_secs(1)).map(|(k, _)| k).collect();
    let missing: Vec<&&String> = old.iter().filter(|k| !present.contains(**k)).take(5).collect();
    assert!(missing.is_empty(), "acknowledged more than 1 s before the kill, not in the bucket: {missing:?} of {}", old.len());
    assert!(old.len() > 200, "too few writes to mean anything: {}", old.len());
    let recent = acked.len() - old.len();
    let recent_present = acked.iter().filter(|(k, t)| killed_at.duration_since(*t) <= Duration::from_secs(1) && present.contains(k)).count();
    eprintln!("kill -9 with shipping: {} acknowledged, {} more than 1 s before the kill (all restored), {recent_present} of the last second's {recent} restored", acked.len(), old.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_standby_serves_reads_and_once_promoted_takes_writes_while_the_old_primary_is_fenced() {
    weed().lock().unwrap().bucket("standby");
    let vars = aws();
    let e = env(&vars);
    let url = "s3://standby/company";
    let pdir = crate::support::tempdir();
    let mut primary = Server::start_with(pdir.path(), &["--replicate", url, "--public-url", "http://primary.example"], &e).await;
    let ptok = primary.sign_in(A).await;
    let sdir = crate::support::tempdir();
    let mut standby = Server::start_with(sdir.path(), &["--follow", url], &e).await;
    let stok = standby.sign_in(A).await;
    let post = |addr: String, tok: String, key: &'static str| async move {
        let body = format!(r#"{{"paramName":"备用服务器","paramKey":"{key}","paramValue":"1"}}"#);
        request(&addr, "POST", "/api/blade-system/param/submit", &[("blade-auth", &format!("bearer {tok}"))], &body).await.unwrap()
    };
    let has = |addr: String, tok: String, key: &'static str| async move {
        let (_, b) = request(&addr, "GET", &format!("/api/blade-system/param/list?paramKey_equal={key}"), &[("blade-auth", &format!("bearer {tok}"))], "").await.unwrap();
        serde_json::from_str::<Value>(&b).unwrap()["data"]["total"].as_u64() == Some(1)
    };
    assert_eq!(post(primary.addr.clone(), ptok.clone(), "on.primary").await.0, 200);
    let t = Instant::now();
    while !has(standby.addr.clone(), stok.clone(), "on.primary").await {
        assert!(t.elapsed() < Duration::from_secs(5), "the standby did not show the primary's write");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eprintln!("a write on the primary seen on the standby after {:?}", t.elapsed());
    let (s, b) = post(standby.addr.clone(), stok.clone(), "on.standby").await;
    assert_eq!(s, 503, "{b}");
    assert!(b.contains("http://primary.example"), "{b}");
    // The primary dies; the standby is promoted and serves as the primary — once the primary's lease has lapsed
    // (promoting while it may still run would make two primaries).
    primary.kill9();
    standby.stop();
    let (code, out) = run_with(&["promote", "--dir", sdir.path().to_str().unwrap()], &e);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("renewed its lease") && out.contains("--force"), "{out}");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let short: Vec<(&str, &str)> = e.iter().copied().chain([("ZZ_REPLICA_LEASE_SECS", "2")]).collect();
    let (code, out) = run_with(&["promote", "--dir", sdir.path().to_str().unwrap()], &short);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("caught up"), "says how far it got: {out}");
    let promoted = Server::start_with(sdir.path(), &["--replicate", url], &e).await;
    let ntok = promoted.sign_in(A).await;
    assert!(has(promoted.addr.clone(), ntok.clone(), "on.primary").await);
    assert_eq!(post(promoted.addr.clone(), ntok.clone(), "after.promotion").await.0, 200);
    // The old primary comes back: it is no longer the owner and takes no writes.
    let old = Server::start_with(pdir.path(), &["--replicate", url], &e).await;
    let otok = old.sign_in(A).await;
    let (s, b) = post(old.addr.clone(), otok, "on.old").await;
    assert_eq!(s, 503, "{b}");
    assert!(b.contains("另一台服务器已接替为主服务器"), "{b}");
    // And its health check says so to the load balancer; the promoted one is a healthy primary.
    let (s, b) = request(&old.addr, "GET", "/api/health", &[], "").await.unwrap();
    assert!(s == 503 && b.contains("\"fenced\""), "{b}");
    let (s, b) = request(&promoted.addr, "GET", "/api/health", &[], "").await.unwrap();
    assert!(s == 200 && b.contains("\"primary\""), "{b}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_platform_administrator_sets_the_replica_on_the_status_screen() {
    let t = weed().lock().unwrap().bucket("screen-set");
    let app = App::with(allowing("127.0.0.1"));
    let tok = admin_tokens(&app).await;
    let p = &tok["000000"];
    let body = |bucket: &str, secret: &str| json!({"url": format!("s3://{bucket}/company"), "endpoint": t.endpoint, "region": "us-east-1", "accessKey": "AKSCREEN123", "secretKey": secret}).to_string();
    // A tenant's administrator may not.
    let (s, _) = app.post("/api/blade-system/status/replica", &tok[A], &body("screen-set", "s")).await;
    assert_eq!(s, 403);
    // The bucket is tried before anything is saved.
    let (s, v) = app.post("/api/blade-system/status/replica", p, &body("no-such-bucket-zz", "s")).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("空间(bucket)不存在"), "{v}");
    let (s, v) = app.post("/api/blade-system/status/replica", p, &json!({"url": "https://x"}).to_string()).await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = app.post("/api/blade-system/status/replica", p, &body("screen-set", "SECRET-ON-SCREEN")).await;
    assert_eq!(s, 200, "{v}");
    let dir = app.st.store.path().parent().unwrap().to_path_buf();
    let file = dir.join(zhizhuang::replica::CONFIG_FILE);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600, "readable by the server only");
    let (_, v) = app.get("/api/blade-system/status", p).await;
    let cfg = &v["data"]["replicaConfig"];
    assert_eq!(cfg["url"], "s3://screen-set/company");
    assert_eq!(cfg["hasSecret"], true);
    assert!(!v.to_string().contains("SECRET-ON-SCREEN") && !v.to_string().contains("AKSCREEN123"), "keys never answered: {cfg}");
    // A blank secret keeps the saved one; an empty address clears it.
    let (s, v) = app.post("/api/blade-system/status/replica", p, &body("screen-set", "")).await;
    assert_eq!(s, 200, "{v}");
    // Kept sealed with the install's key (never in plain on disk), and opened for use.
    assert!(!std::fs::read_to_string(&file).unwrap().contains("SECRET-ON-SCREEN"));
    assert_eq!(zhizhuang::replica::Saved::load(&dir).unwrap().secret_key, "SECRET-ON-SCREEN");
    // The saved keys never follow a changed place: another bucket or endpoint needs the secret again.
    let (s, v) = app.post("/api/blade-system/status/replica", p, &json!({"url": "s3://elsewhere/company", "endpoint": t.endpoint, "accessKey": "", "secretKey": ""}).to_string()).await;
    assert_eq!(s, 400, "{v}");
    let moved = t.endpoint.replace("127.0.0.1", "localhost");
    let (s, v) = app.post("/api/blade-system/status/replica", p, &json!({"url": "s3://screen-set/company", "endpoint": moved, "accessKey": "", "secretKey": ""}).to_string()).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("secretKey"), "{v}");
    // And the place must be one the server may reach: not the metadata service, nor this machine unless allowed.
    let strict = App::new();
    let sp = &admin_tokens(&strict).await["000000"];
    for endpoint in ["http://169.254.169.254", "http://127.0.0.1:9000", "file:///etc/passwd"] {
        let (s, v) = strict.post("/api/blade-system/status/replica", sp, &json!({"url": "s3://screen-set/company", "endpoint": endpoint, "accessKey": "a", "secretKey": "b"}).to_string()).await;
        assert_eq!(s, 400, "{endpoint}: {v}");
    }
    let (s, _) = app.post("/api/blade-system/status/replica", p, &json!({"url": ""}).to_string()).await;
    assert_eq!(s, 200);
    assert!(!file.exists());
}
