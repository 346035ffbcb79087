//! Operator commands against the real binary: online and offline backup, verify, restore, password reset,
//! graceful shutdown.
use crate::net::{Server, request, run};

async fn add_param(s: &Server, token: &str, key: &str) {
    let body = format!(r#"{{"paramName":"备份","paramKey":"{key}","paramValue":"v"}}"#);
    let (code, b) = request(&s.addr, "POST", "/api/blade-system/param/submit", &[("blade-auth", &format!("bearer {token}"))], &body).await.unwrap();
    assert_eq!(code, 200, "{b}");
}

async fn count(s: &Server, token: &str) -> u64 {
    let (_, b) = request(&s.addr, "GET", "/api/blade-system/param/list", &[("blade-auth", &format!("bearer {token}"))], "").await.unwrap();
    serde_json::from_str::<serde_json::Value>(&b).unwrap()["data"]["total"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backup_verify_restore_and_password_reset() {
    let tmp = crate::support::tempdir();
    let dir = tmp.path().join("data");
    let d = dir.to_str().unwrap();
    let mut server = Server::start(&dir).await;
    let token = server.sign_in("157270").await;
    for i in 0..5 {
        add_param(&server, &token, &format!("p{i}")).await;
    }

    // Online backup, through the running server.
    let online = tmp.path().join("online.redb");
    let (code, out) = run(&["backup", "--dir", d, "--out", online.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("records"), "{out}");
    let made = std::fs::read(&online).unwrap();
    let (code, out) = run(&["verify", online.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("OK") && out.contains("param") && out.contains(online.to_str().unwrap()), "{out}");
    assert!(std::fs::read(&online).unwrap() == made, "verify leaves a backup byte for byte as it was made");
    assert!(out.contains("free") && out.contains("MiB"), "verify shows the file's size and free space: {out}");

    // Restore is refused while the server holds the directory.
    let (code, out) = run(&["restore", "--dir", d, online.to_str().unwrap()]);
    assert_ne!(code, 0, "restore must refuse while serving: {out}");
    let (code, out) = run(&["compact", "--dir", d]);
    assert_ne!(code, 0, "compact must refuse while serving: {out}");
    assert!(out.contains("stop it first"), "{out}");

    // Password reset through the running server; old sessions end.
    let (code, out) = run(&["admin", "passwd", "--dir", d, "--tenant", "157270", "--account", "admin", "--password", "Reset#Pw1"]);
    assert_eq!(code, 0, "{out}");
    let (s, _) = request(&server.addr, "GET", "/api/blade-user/info", &[("blade-auth", &format!("bearer {token}"))], "").await.unwrap();
    assert_eq!(s, 401);

    // More writes after the backup, then a graceful stop.
    let md5 = zhizhuang::auth::password::md5_hex("Reset#Pw1");
    let path = format!("/api/blade-auth/oauth/token?tenantId=157270&username=admin&password={md5}&grant_type=password");
    let (s, b) = request(&server.addr, "POST", &path, &[("authorization", crate::support::BASIC)], "").await.unwrap();
    assert_eq!(s, 200, "{b}");
    let token = serde_json::from_str::<serde_json::Value>(&b).unwrap()["access_token"].as_str().unwrap().to_string();
    add_param(&server, &token, "after-backup").await;
    assert_eq!(count(&server, &token).await, 6);
    server.wait_indexed().await;
    let status = server.stop();
    assert!(status.success(), "graceful stop exits 0: {status:?}");
    assert!(!dir.join("admin.sock").exists(), "socket removed on stop");
    let (code, out) = run(&["compact", "--dir", d]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("returned to the disk"), "{out}");

    // Offline backup, then restore the online one: the later write is gone, the earlier ones are back.
    let offline = tmp.path().join("offline.redb");
    let (code, out) = run(&["backup", "--dir", d, "--out", offline.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    // Verify reports the search index beside the file and its lag; reindex rebuilds it offline.
    let data = dir.join(store::DATA_FILE);
    let (code, out) = run(&["verify", data.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("search index: holds changes up to") && out.contains("(lag 0)"), "{out}");
    let (code, out) = run(&["reindex", "--dir", d]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("search index rebuilt") && out.contains("documents"), "{out}");
    let (code, out) = run(&["restore", "--dir", d, online.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("search index removed"), "restore drops the index of the replaced file: {out}");
    assert!(std::fs::read(&online).unwrap() == made, "restore only reads the backup");
    assert!(std::fs::read_dir(&dir).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().contains("before-restore")), "previous file kept aside");
    let server = Server::start(&dir).await;
    let token = server.sign_in("157270").await; // the backup predates the reset
    assert_eq!(count(&server, &token).await, 5);
    // The rebuilt index answers from the restored file: the later write is not found.
    server.wait_indexed().await;
    let (s, b) = request(&server.addr, "GET", "/api/blade-system/param/list?paramKey=after-backup", &[("blade-auth", &format!("bearer {token}"))], "").await.unwrap();
    assert_eq!(s, 200, "{b}");
    assert!(b.contains("\"total\":0"), "{b}");
    drop(server);

    // Offline password reset, and verify refusing a damaged file.
    let (code, out) = run(&["admin", "passwd", "--dir", d, "--tenant", "741487", "--account", "admin"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("new password for admin"), "{out}");
    let (code, _) = run(&["admin", "passwd", "--dir", d, "--tenant", "741487", "--account", "ghost"]);
    assert_ne!(code, 0);
    let junk = tmp.path().join("junk.redb");
    std::fs::write(&junk, vec![7u8; 8192]).unwrap();
    let (code, _) = run(&["verify", junk.to_str().unwrap()]);
    assert_ne!(code, 0);
}

/// Switches set from the environment take the words people write (1/0, true/false, yes/no, on/off): `ZZ_DEMO=1`
/// was refused with "invalid value '1'". The server is stopped right after the arguments are read by a data
/// directory it cannot make.
#[test]
fn boolean_variables_accept_1_and_yes() {
    let tmp = crate::support::tempdir();
    let blocker = tmp.path().join("a-file");
    std::fs::write(&blocker, b"x").unwrap();
    let run_with = |vars: &[(&str, &str)]| {
        let mut c = std::process::Command::new(crate::net::BIN);
        c.args(["serve", "--http", "127.0.0.1:0", "--dir"]).arg(blocker.join("data")).env("ZZ_LOG", "error");
        for (k, v) in vars {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    for v in [[("ZZ_DEMO", "1"), ("ZZ_NO_SSR", "0")], [("ZZ_DEMO", "yes"), ("ZZ_NO_SSR", "off")], [("ZZ_DEMO", "true"), ("ZZ_TRUST_PROXY", "on")]] {
        let err = run_with(&v);
        assert!(!err.contains("invalid value"), "{v:?}: {err}");
        assert!(err.contains("a-file") || err.to_lowercase().contains("not a directory"), "{v:?} got past the arguments: {err}");
    }
    let err = run_with(&[("ZZ_DEMO", "perhaps")]);
    assert!(err.contains("invalid value"), "a word that is no switch is still refused: {err}");
}

/// The demo's first start is quiet: the ERP deliveries are one line per round at info (their payloads only at
/// debug); it used to write 100 KB of payloads to the console.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_demo_start_is_quiet() {
    let tmp = crate::support::tempdir();
    let log = tmp.path().join("stderr.log");
    let addr = format!("127.0.0.1:{}", crate::net::free_port());
    let mut child = std::process::Command::new(crate::net::BIN)
        .args(["serve", "--http", &addr, "--demo", "--dir"])
        .arg(tmp.path().join("data"))
        .env_remove("ZZ_LOG")
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    let mut text = String::new();
    while t0.elapsed() < std::time::Duration::from_secs(90) {
        text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains("erp callbacks delivered") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(text.contains("erp callbacks delivered"), "the deliveries are summed up: {text}");
    assert!(!text.contains("payload="), "no payload at info: {}", &text[..text.len().min(2000)]);
    assert!(text.len() < 16 << 10, "{} bytes on the console at first start:\n{text}", text.len());
}

/// An operator command given no data directory, or a wrong one, says which file it looked for and what `--dir`
/// is (it said "storage: No such file or directory"), exits 1 and makes nothing there; `fenced` on a directory
/// that never shipped says so (it printed "0 log records … (generation )").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_data_directory_is_named() {
    let tmp = crate::support::tempdir();
    let nowhere = tmp.path().join("not-the-data");
    let d = nowhere.to_str().unwrap();
    let out_file = tmp.path().join("b.redb");
    for args in [
        vec!["backup", "--dir", d, "--out", out_file.to_str().unwrap()],
        vec!["compact", "--dir", d],
        vec!["admin", "passwd", "--dir", d, "--tenant", "000000", "--account", "admin"],
        vec!["recover", "--dir", d, "--accept-loss"],
        vec!["fenced", "--dir", d],
    ] {
        let (code, out) = run(&args);
        assert_eq!(code, 1, "{args:?}: {out}");
        assert!(out.contains(&format!("{d}/zhizhuang.redb")) && out.contains("--dir") && out.contains("/var/lib/zhizhuang"), "{args:?}: {out}");
        assert!(!nowhere.exists() && !out_file.exists(), "{args:?} made something");
    }
    let mut server = Server::start(&tmp.path().join("data")).await;
    server.stop();
    let (code, out) = run(&["fenced", "--dir", tmp.path().join("data").to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("never shipped to a replica") && !out.contains("generation )"), "{out}");
}

/// `install` starts the service with `ZZ_ADMIN_PASSWORD_ONCE=1`: its generated password stays readable in the
/// environment file, so the first administrators are told to replace it (the sign-in answer says so and the UI
/// asks for a new one before anything else); without it the operator's own password stands.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_installed_first_password_must_be_replaced() {
    let tmp = crate::support::tempdir();
    let must_change = |server: &Server| {
        let (addr, md5) = (server.addr.clone(), zhizhuang::auth::password::md5_hex(crate::net::PW));
        async move {
            let path = format!("/api/blade-auth/oauth/token?tenantId=157270&username=admin&password={md5}&grant_type=password");
            let (s, body) = request(&addr, "POST", &path, &[("authorization", crate::support::BASIC)], "").await.unwrap();
            assert_eq!(s, 200, "{body}");
            serde_json::from_str::<serde_json::Value>(&body).unwrap()["must_change_password"].clone()
        }
    };
    let mut once = Server::start_with(&tmp.path().join("a"), &[], &[("ZZ_ADMIN_PASSWORD_ONCE", "1")]).await;
    assert_eq!(must_change(&once).await, true);
    once.stop();
    let mut plain = Server::start(&tmp.path().join("b")).await;
    assert_eq!(must_change(&plain).await, false);
    plain.stop();
}
