//! Logs apart from the business data (issue 27 items 1 and 2): reads never write to the data file, the api log
//! records changes and refused or failed requests (reads are counted per route, at /api/metrics and on the status
//! screen), no audit entry of a write is shed, an older data file's log entries move out once without losing
//! one, and a storage failure answers every write with the fail-stop envelope while reads go on.
use serde_json::{Value, json};

use crate::support::{App, admin_tokens};

const A: &str = "157270";

fn count(s: &store::Store, res: &zhizhuang::decl::Resources, name: &str) -> u64 {
    let d = res.get(name);
    s.read(|r| {
        let mut n = 0;
        for t in ["000000", "157270", "741487"] {
            n += r.count(&d, t)?;
        }
        Ok(n)
    })
    .unwrap()
}

#[tokio::test]
async fn logs_live_in_their_own_file_and_reads_are_counted_not_recorded() {
    let app = App::new();
    let tok = admin_tokens(&app).await;
    let a = &tok[A];
    for _ in 0..20 {
        let (s, _) = app.get("/api/blade-system/param/list", a).await;
        assert_eq!(s, 200);
    }
    let (s, _) = app.get("/api/blade-system/param/list?bogus=1", a).await;
    assert_eq!(s, 400);
    let (s, v) = app.post("/api/blade-system/param/submit", a, &json!({"paramName": "日志分离", "paramKey": "logs.apart", "paramValue": "1"}).to_string()).await;
    assert_eq!(s, 200, "{v}");
    app.st.logs.flush().await;
    let res = app.st.res.clone();
    for name in zhizhuang::logsink::LOG_RESOURCES {
        assert_eq!(count(&app.st.store, &res, name), 0, "{name} in the business data file");
    }
    assert!(count(&app.st.log_store, &res, "log_api") >= 2);
    assert!(count(&app.st.log_store, &res, "log_login") >= 3, "sign-ins");
    assert_eq!(app.st.log_store.path().file_name().unwrap(), zhizhuang::logsink::LOG_FILE);
    // The api log: the change and the refused read, not the 20 successful reads.
    let (_, v) = app.get("/api/blade-log/api/list?requestUri_equal=/api/blade-system/param/list", a).await;
    assert_eq!(v["data"]["total"], 1, "only the refused read: {v}");
    assert_eq!(v["data"]["records"][0]["httpStatus"], 400);
    let (_, v) = app.get("/api/blade-log/api/list?requestUri_equal=/api/blade-system/param/submit", a).await;
    assert_eq!(v["data"]["total"], 1, "{v}");
    // A text filter on the logs walks the logs' file.
    let (s, v) = app.get("/api/blade-log/api/list?requestUri=param/sub", a).await;
    assert_eq!((s.as_u16(), v["data"]["total"].as_u64()), (200, Some(1)), "{v}");
    // The search form's creation-date range on a log: an index range of the logs' file (its index layout is kept
    // in line with the declarations like the data file's).
    for (from, n) in [("2020-01-01", 1), ("2999-01-01", 0)] {
        let (s, v) = app.get(&format!("/api/blade-log/api/list?requestUri_equal=/api/blade-system/param/submit&createTime_datege={from}"), a).await;
        assert_eq!((s.as_u16(), v["data"]["total"].as_u64()), (200, Some(n)), "{from}: {v}");
    }
    assert!(app.st.log_store.read(|r| r.meta("index_layout")).unwrap().is_some());
    // The reads are counted: the platform administrator reads them as Prometheus text and on the status screen.
    let req = |t: Option<&str>, auth: Option<&str>| {
        let mut r = axum::http::Request::get("/api/metrics");
        if let Some(t) = t {
            r = r.header("blade-auth", format!("bearer {t}"));
        }
        if let Some(x) = auth {
            r = r.header("authorization", x);
        }
        r.body(axum::body::Body::empty()).unwrap()
    };
    let resp = tower::ServiceExt::oneshot(app.router.clone(), req(Some(&tok["000000"]), None)).await.unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"].to_str().unwrap().starts_with("text/plain"));
    let text = String::from_utf8(http_body_util::BodyExt::collect(resp.into_body()).await.unwrap().to_bytes().to_vec()).unwrap();
    assert!(text.contains(r#"zz_http_requests_total{method="GET",route="/api/blade-system/param/list",status="2xx"} 20"#), "{text}");
    assert!(text.contains(r#"zz_http_requests_total{method="GET",route="/api/blade-system/param/list",status="4xx"} 1"#), "{text}");
    assert!(text.contains("zz_logs_file_bytes ") && text.contains("zz_storage_failed 0"), "{text}");
    assert!(text.contains("# TYPE zz_data_checkpoint_writer_seconds_total counter\nzz_data_checkpoint_writer_seconds_total "), "{text}");
    assert!(text.contains("# TYPE zz_data_checkpoints_postponed_total counter\nzz_data_checkpoints_postponed_total "), "{text}");
    assert!(text.contains("# TYPE zz_data_checkpoint_waited_seconds_total counter\nzz_data_checkpoint_waited_seconds_total "), "{text}");
    assert!(text.contains("# TYPE zz_deep_page_marks_bytes gauge\nzz_deep_page_marks_bytes ") && text.contains("\nzz_deep_page_id_sets_bytes "), "{text}");
    assert_eq!(tower::ServiceExt::oneshot(app.router.clone(), req(Some(a), None)).await.unwrap().status(), 403, "a tenant admin");
    assert_eq!(tower::ServiceExt::oneshot(app.router.clone(), req(None, Some("Bearer guess"))).await.unwrap().status(), 401, "no scrape token configured");
    let (s, v) = app.get("/api/blade-system/status", &tok["000000"]).await;
    assert_eq!(s, 200);
    assert!(v["data"]["logsFileBytes"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["data"]["ranks"]["setMaxBytes"], 64 << 20, "{v}");
    assert!(v["data"]["routes"].as_array().unwrap().iter().any(|r| r["route"] == "GET /api/blade-system/param/list" && r["total"] == 21), "{v}");
}

#[tokio::test]
async fn a_monitoring_system_scrapes_with_its_token() {
    let app = App::with(zhizhuang::state::Settings { metrics_token: Some("s3cret-scrape".into()), ..Default::default() });
    let get = |auth: &str| axum::http::Request::get("/api/metrics").header("authorization", auth).body(axum::body::Body::empty()).unwrap();
    assert_eq!(app.call(get("Bearer s3cret-scrape")).await.0, 200);
    assert_eq!(app.call(get("Bearer wrong")).await.0, 401);
}

#[tokio::test]
async fn no_audit_entry_of_a_write_is_shed_under_concurrency() {
    let app = App::new();
    let a = app.admin(A).await;
    let mut handles = Vec::new();
    for i in 0..300 {
        let (router, a) = (app.router.clone(), a.clone());
        handles.push(tokio::spawn(async move {
            let body = json!({"paramName": format!("并发{i}"), "paramKey": format!("burst.{i}"), "paramValue": "1"}).to_string();
            let req = axum::http::Request::post("/api/blade-system/param/submit")
                .header("blade-auth", format!("bearer {a}"))
                .header("content-type", "application/json")
                .body(axum::body::Body::from(body))
                .unwrap();
            tower::ServiceExt::oneshot(router, req).await.unwrap().status().as_u16()
        }));
    }
    let mut acked = 0;
    for h in handles {
        if h.await.unwrap() == 200 {
            acked += 1;
        }
    }
    app.st.logs.flush().await;
    let (_, v) = app.get("/api/blade-log/api/list?requestUri_equal=/api/blade-system/param/submit&httpStatus_equal=200", &a).await;
    assert_eq!(v["data"]["total"].as_u64(), Some(acked), "one api-log entry per acknowledged submit: {v}");
    assert_eq!(app.st.logs.dropped.load(std::sync::atomic::Ordering::Relaxed), 0);
}

#[tokio::test]
async fn an_older_data_files_log_entries_move_out_once_without_losing_one() {
    let app = App::new();
    let res = app.st.res.clone();
    // As a data file of the version before keeps them: log entries inside the business store.
    let (r2, n) = (res.clone(), 12_345u64);
    let ids: Vec<u64> = app
        .st
        .store
        .write(move |w| {
            let (api, login) = (r2.get("log_api"), r2.get("log_login"));
            let mut ids = Vec::new();
            for i in 0..n {
                let d = if i % 5 == 0 { &login } else { &api };
                let doc = json!({"requestUri": format!("/api/old/{i}"), "account": "old", "httpStatus": 200});
                let doc = doc.as_object().unwrap().iter().filter(|(k, _)| d.field(k).is_some()).map(|(k, v)| (k.clone(), v.clone())).collect();
                ids.push(w.insert(d, if i % 2 == 0 { "157270" } else { "741487" }, doc, &store::Actor::default())?["id"].as_u64().unwrap());
            }
            Ok(ids)
        })
        .unwrap();
    let before = count(&app.st.log_store, &res, "log_api") + count(&app.st.log_store, &res, "log_login");
    let moved = zhizhuang::logsink::move_out(&app.st.store, &app.st.log_store, &res).unwrap();
    assert_eq!(moved, n);
    assert_eq!(count(&app.st.store, &res, "log_api") + count(&app.st.store, &res, "log_login"), 0);
    assert_eq!(count(&app.st.log_store, &res, "log_api") + count(&app.st.log_store, &res, "log_login"), before + n);
    // Each kept its id and content.
    let (api, first) = (res.get("log_api"), ids[1]);
    let rec = app.st.log_store.read(|r| r.get(&api, "741487", first)).unwrap().unwrap();
    assert_eq!(rec["requestUri"], "/api/old/1");
    // A second run moves nothing and stores nothing twice (a crash between copy and delete copies again).
    assert_eq!(zhizhuang::logsink::move_out(&app.st.store, &app.st.log_store, &res).unwrap(), 0);
    let (r3, again) = (res.clone(), rec.clone());
    let stored = app.st.log_store.write(move |w| w.put_as_is(&r3.get("log_api"), "741487", &again)).unwrap();
    assert!(!stored);
    assert_eq!(count(&app.st.log_store, &res, "log_api") + count(&app.st.log_store, &res, "log_login"), before + n);
    let _ = Value::Null;
}

/// The real files, but the log's syncs fail once `broken` is set (a disk going bad).
#[derive(Debug, Default)]
pub struct BadDisk {
    pub broken: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

#[derive(Debug)]
struct BadLog(Box<dyn store::fs::LogFile>, std::sync::Arc<std::sync::atomic::AtomicBool>);

impl store::fs::LogFile for BadLog {
    fn write_at(&mut self, offset: u64, data: &[u8]) -> std::io::Result<()> {
        self.0.write_at(offset, data)
    }
    fn set_len(&mut self, len: u64) -> std::io::Result<()> {
        self.0.set_len(len)
    }
    fn sync(&mut self) -> std::io::Result<()> {
        if self.1.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(std::io::Error::from_raw_os_error(5));
        }
        self.0.sync()
    }
}

impl store::fs::Fs for BadDisk {
    fn create_log(&self, path: &std::path::Path) -> std::io::Result<Box<dyn store::fs::LogFile>> {
        Ok(Box::new(BadLog(store::fs::OsFs.create_log(path)?, self.broken.clone())))
    }
}

#[tokio::test]
async fn after_a_storage_failure_writes_answer_503_and_reads_go_on() {
    let disk = std::sync::Arc::new(BadDisk::default());
    let app = App::with_options(Default::default(), store::Options { fs: disk.clone(), ..Default::default() });
    let tok = admin_tokens(&app).await;
    let a = &tok[A];
    let (s, _) = app.post("/api/blade-system/param/submit", a, &json!({"paramName": "坏盘前", "paramKey": "disk.before", "paramValue": "1"}).to_string()).await;
    assert_eq!(s, 200);
    disk.broken.store(true, std::sync::atomic::Ordering::Relaxed);
    for (i, en) in [(0, false), (1, true)] {
        let body = json!({"paramName": "坏盘后", "paramKey": format!("disk.after{i}"), "paramValue": "1"}).to_string();
        let h: &[(&str, &str)] = if en { &[("accept-language", "en")] } else { &[] };
        let (s, v) = app.req("POST", "/api/blade-system/param/submit", Some(a), Some(&body), h).await;
        assert_eq!(s, 503, "{v}");
        let want = if en { "Writing to storage failed; writes are stopped. Check the disk, then restart the server" } else { "存储写入故障，已停止写入，请检查磁盘后重启" };
        assert_eq!(v["msg"], want, "{v}");
    }
    let (s, v) = app.get("/api/blade-system/param/list?paramKey_equal=disk.before", a).await;
    assert_eq!((s.as_u16(), v["data"]["total"].as_u64()), (200, Some(1)), "reads go on: {v}");
    let (_, v) = app.get("/api/blade-system/status", &tok["000000"]).await;
    assert!(v["data"]["storageFailure"].as_str().is_some_and(|w| w.contains("sync")), "{v}");
}
