//! Installing it where buyers' servers are (issue 53): the version and commit every build names; a health check
//! that tells the truth and a way in after a storage failure; HTTPS with a certificate made here, read again on
//! SIGHUP, plain HTTP redirecting; plain HTTP on the network refused unless asked for; files of the previous
//! format upgraded (a copy kept), of a newer format refused untouched, and an upgrade killed midway leaving one
//! whole file.
use std::sync::Arc;

use serde_json::{Value, json};

use crate::net::{Server, free_port, request, run, run_with};
use crate::support::{App, admin_tokens};

const A: &str = "157270";

#[test]
fn every_build_names_its_version_and_commit() {
    let (code, out) = run(&["--version"]);
    assert_eq!(code, 0);
    assert!(out.contains(env!("CARGO_PKG_VERSION")) && out.contains('(') && out.contains(')'), "{out}");
}

#[tokio::test]
async fn health_says_when_writes_stopped_and_an_administrator_still_signs_in() {
    let disk = Arc::new(crate::storage::BadDisk::default());
    let app = App::with_options(Default::default(), store::Options { fs: disk.clone(), ..Default::default() });
    let (s, v) = app.req("GET", "/api/health", None, None, &[]).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!((v["status"].as_str(), v["role"].as_str()), (Some("ok"), Some("primary")), "{v}");
    assert!(v["version"].as_str().unwrap().contains(env!("CARGO_PKG_VERSION")));
    let tok = admin_tokens(&app).await;
    disk.broken.store(true, std::sync::atomic::Ordering::Relaxed);
    let (s, _) = app.post("/api/blade-system/param/submit", &tok[A], &json!({"paramName": "坏盘", "paramKey": "disk.x", "paramValue": "1"}).to_string()).await;
    assert_eq!(s, 503);
    let (s, v) = app.req("GET", "/api/health", None, None, &[]).await;
    assert_eq!(s, 503, "{v}");
    assert_eq!(v["status"], "storage_failed", "{v}");
    let (s, v) = app.req("GET", "/api/ready", None, None, &[]).await;
    assert_eq!(s, 200, "reads go on: {v}");
    // Nobody was signed in: the platform administrator signs in now and reaches 系统状态, which says what failed.
    let p = app.admin("000000").await;
    let (s, v) = app.get("/api/blade-system/status", &p).await;
    assert_eq!(s, 200, "{v}");
    assert!(v["data"]["storageFailure"].as_str().is_some(), "{v}");
    // That session refreshes and ends like any other.
    let (s, _) = app.req("GET", "/api/blade-auth/oauth/logout", Some(&p), None, &[]).await;
    assert_eq!(s, 200);
    let (s, _) = app.get("/api/blade-system/status", &p).await;
    assert_eq!(s, 401, "a logged-out session kept in memory ends too");
    // Fenced by another primary: 503 fenced.
    app.st.store.set_read_only(Some("fenced:https://new.example".into()));
    disk.broken.store(false, std::sync::atomic::Ordering::Relaxed);
}

/// A hyper client over rustls trusting `ca` (PEM): the status, headers and the certificate the server showed.
async fn https_get(addr: &str, host: &str, path: &str, ca: &std::path::Path) -> (u16, axum::http::HeaderMap, Vec<u8>) {
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for c in rustls::pki_types::CertificateDer::pem_file_iter(ca).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let cfg = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider())).with_safe_default_protocol_versions().unwrap().with_root_certificates(roots).with_no_client_auth();
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from(host.to_string()).unwrap();
    let tls = tokio_rustls::TlsConnector::from(Arc::new(cfg)).connect(name, tcp).await.unwrap();
    let shown = tls.get_ref().1.peer_certificates().unwrap()[0].to_vec();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls)).await.unwrap();
    tokio::spawn(conn);
    let req = hyper::Request::get(path).header("host", host).body(http_body_util::Empty::<bytes::Bytes>::new()).unwrap();
    let resp = sender.send_request(req).await.unwrap();
    let (s, h) = (resp.status().as_u16(), resp.headers().clone());
    let _ = http_body_util::BodyExt::collect(resp.into_body()).await;
    (s, h, shown)
}

fn first_cert(pem: &std::path::Path) -> Vec<u8> {
    use rustls::pki_types::pem::PemObject;
    rustls::pki_types::CertificateDer::pem_file_iter(pem).unwrap().next().unwrap().unwrap().to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_with_a_certificate_made_here_read_again_on_sighup() {
    let tmp = crate::support::tempdir();
    let tls = tmp.path().join("tls");
    let (code, out) = run(&["cert", "--host", "127.0.0.1", "--host", "localhost", "--out", tls.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("certutil -addstore") && out.contains("受信任的根证书颁发机构"), "says how to trust the CA on Windows: {out}");
    let https = format!("127.0.0.1:{}", free_port());
    let (cert, key) = (tls.join("server.crt"), tls.join("server.key"));
    let mut server = Server::start_with(&tmp.path().join("data"), &["--https", &https, "--tls-cert", cert.to_str().unwrap(), "--tls-key", key.to_str().unwrap()], &[]).await;
    let ca = tls.join("ca.crt");
    let (s, h, shown) = https_get(&https, "127.0.0.1", "/api/health", &ca).await;
    assert_eq!(s, 200);
    assert_eq!(h["strict-transport-security"], "max-age=31536000");
    assert_eq!(shown, first_cert(&cert));
    let (s, _, _) = https_get(&https, "localhost", "/login", &ca).await;
    assert_eq!(s, 200, "the sign-in page over HTTPS");
    // Plain HTTP answers its health check, and sends everything else to HTTPS.
    let (s, _) = request(&server.addr, "GET", "/api/health", &[], "").await.unwrap();
    assert_eq!(s, 200);
    let stream = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await.unwrap();
    tokio::spawn(conn);
    let resp = sender.send_request(hyper::Request::get("/wel/index?a=1").header("host", "127.0.0.1:8090").body(http_body_util::Empty::<bytes::Bytes>::new()).unwrap()).await.unwrap();
    assert_eq!(resp.status().as_u16(), 308);
    let port = https.rsplit(':').next().unwrap();
    assert_eq!(resp.headers()["location"], format!("https://127.0.0.1:{port}/wel/index?a=1").as_str());
    // A renewed certificate (same CA), picked up on SIGHUP without a restart.
    let (code, out) = run(&["cert", "--host", "127.0.0.1", "--host", "renewed.local", "--out", tls.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    std::process::Command::new("kill").args(["-HUP", &server.child.id().to_string()]).status().unwrap();
    let renewed = first_cert(&cert);
    let mut now = Vec::new();
    for _ in 0..50 {
        now = https_get(&https, "127.0.0.1", "/api/health", &ca).await.2;
        if now == renewed {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(now, renewed, "the new certificate is used after SIGHUP");
    assert!(server.stop().success());
}

#[test]
fn plain_http_on_the_network_is_refused_unless_asked_for() {
    let tmp = crate::support::tempdir();
    let addr = format!("0.0.0.0:{}", free_port());
    let (code, out) = run_with(&["serve", "--http", &addr, "--dir", tmp.path().join("d").to_str().unwrap()], &[("ZZ_LOG", "error")]);
    assert_ne!(code, 0);
    assert!(out.contains("--insecure-http") && out.contains("--https"), "{out}");
}

/// The data file the previous release (format 1) wrote: seeded, a parameter `fixture.format1`, and an object
/// storage configuration whose keys it kept in plain text.
fn fixture(to: &std::path::Path) {
    let from = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/format1");
    std::fs::create_dir_all(to).unwrap();
    for f in ["zhizhuang.redb", "zhizhuang-logs.redb"] {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
}

fn contains(path: &std::path::Path, needle: &str) -> bool {
    std::fs::read(path).unwrap().windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_of_the_previous_format_is_upgraded_with_a_copy_kept() {
    let tmp = crate::support::tempdir();
    let dir = tmp.path().join("data");
    fixture(&dir);
    assert!(contains(&dir.join("zhizhuang.redb"), "SK-FORMAT1-PLAIN"), "the fixture keeps the key in plain text");
    let mut server = Server::start_with(&dir, &[], &[("ZZ_ADMIN_PASSWORD", "Fixture#2026")]).await;
    let md5 = zhizhuang::auth::password::md5_hex("Fixture#2026");
    let (s, b) = request(&server.addr, "POST", &format!("/api/blade-auth/oauth/token?tenantId={A}&username=admin&password={md5}&grant_type=password"), &[("authorization", crate::support::BASIC)], "").await.unwrap();
    assert_eq!(s, 200, "{b}");
    let token = serde_json::from_str::<Value>(&b).unwrap()["access_token"].as_str().unwrap().to_string();
    let (_, b) = request(&server.addr, "GET", "/api/blade-system/param/list?paramKey_equal=fixture.format1", &[("blade-auth", &format!("bearer {token}"))], "").await.unwrap();
    assert!(b.contains("written by format 1"), "{b}");
    assert!(server.stop().success());
    let copies: Vec<String> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.starts_with("before-upgrade-")).collect();
    assert!(copies.iter().any(|n| n.ends_with("-zhizhuang.redb")), "{copies:?}");
    // Sealed now; the old plain copy stays in free pages until a compaction (the start says so).
    let (code, out) = run(&["compact", "--dir", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(!contains(&dir.join("zhizhuang.redb"), "SK-FORMAT1-PLAIN"), "the key is sealed now");
    let (code, out) = run(&["verify", dir.join("zhizhuang.redb").to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_of_a_newer_format_is_refused_untouched() {
    let tmp = crate::support::tempdir();
    let dir = tmp.path().join("data");
    fixture(&dir);
    let file = dir.join("zhizhuang.redb");
    {
        let st = store::Store::open(&file, &store::Options::default()).unwrap();
        st.write(|w| w.put_meta("schema_version", &99u32.to_be_bytes())).unwrap();
        st.write(|w| w.put_meta("written_by", b"zhizhuang 9.0.0 (future)")).unwrap();
        st.close();
    }
    let before = std::fs::read(&file).unwrap();
    let (code, out) = run_with(&["serve", "--dir", dir.to_str().unwrap(), "--http", &format!("127.0.0.1:{}", free_port())], &[("ZZ_LOG", "error")]);
    assert_ne!(code, 0);
    assert!(out.contains("format 99") && out.contains("zhizhuang 9.0.0") && out.contains(env!("CARGO_PKG_VERSION")) && out.contains("restore"), "{out}");
    // redb's header page may be rewritten by opening; the pages that hold the data are not touched.
    let after = std::fs::read(&file).unwrap();
    let first = before.iter().zip(&after).position(|(a, b)| a != b);
    assert!(after.len() == before.len() && first.is_none_or(|i| i < 4096), "the data pages are as they were: {} -> {} bytes, first change at {first:?}", before.len(), after.len());
    let (code, out) = run(&["verify", file.to_str().unwrap()]);
    assert_ne!(code, 0, "verify refuses it too: {out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upgrade_killed_midway_leaves_one_whole_file() {
    for delay_ms in [0u64, 40, 90, 160, 250, 400] {
        let tmp = crate::support::tempdir();
        let dir = tmp.path().join("data");
        fixture(&dir);
        let mut child = std::process::Command::new(crate::net::BIN)
            .args(["serve", "--dir", dir.to_str().unwrap(), "--http", &format!("127.0.0.1:{}", free_port())])
            .env("ZZ_LOG", "error")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        let st = store::Store::open(&dir.join("zhizhuang.redb"), &store::Options::default()).unwrap();
        let (format, _) = st.format().unwrap();
        let res = zhizhuang::decl::Resources::load().unwrap();
        let def = res.get("param");
        let found = st.read(move |r| r.find_unique(&def, A, "paramKey", "fixture.format1")).unwrap();
        st.close();
        assert!(found.is_some(), "killed after {delay_ms} ms: the parameter is there (format {format})");
        assert_eq!(format, store::BASE_FORMAT, "opening finishes the upgrade");
    }
}
