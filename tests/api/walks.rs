//! Lists that walk records (text filters, deep pages) are bounded: a deadline answered 503 naming the filter,
//! a fixed number of walks at once while index-answered lists and details keep serving, and a walk stops when
//! its client goes away (issue 13 item 1).
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};
use tower::ServiceExt;
use zhizhuang::state::Settings;

use crate::support::App;

/// `n` parameters of tenant 157270 written straight into the store (one transaction).
fn fill(app: &App, n: usize) -> u64 {
    let def = app.st.res.get("param");
    
    app
        .st
        .store
        .write(move |w| {
            let mut first = 0;
            for i in 0..n {
                let doc = json!({"paramName": format!("订单超时时间{i}"), "paramKey": format!("walk.{i}"), "paramValue": "30"});
                let rec = w.insert(&def, "157270", doc.as_object().unwrap().clone(), &store::Actor { user_id: 1, dept_id: 0, at: None })?;
                if i == 0 {
                    first = rec["id"].as_u64().unwrap();
                }
            }
            Ok(first)
        })
        .unwrap()
}

#[tokio::test]
async fn a_walk_past_its_deadline_is_answered_503_naming_the_filter() {
    let app = App::with(Settings { walk_deadline: Duration::from_millis(1), search_index: false, ..Settings::default() });
    fill(&app, 3_000);
    let token = app.admin("157270").await;
    let url = "/api/blade-system/param/list?paramName=%E8%B6%85%E6%97%B6&current=1&size=10";
    let (s, headers, v) = app
        .call(Request::get(url).header("blade-auth", format!("bearer {token}")).body(Body::empty()).unwrap())
        .await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{v}");
    assert_eq!(v["success"], false);
    let msg = v["msg"].as_str().unwrap();
    assert!(msg.contains("paramName=超时") && msg.contains("未能在限定时间内完成"), "{msg}");
    assert!(headers.contains_key("retry-after"));
    let (s, v) = app.req("GET", url, Some(&token), None, &[("accept-language", "en")]).await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
    assert!(v["msg"].as_str().unwrap().contains("The filter paramName=超时 has to examine every record"), "{v}");
    // An unfiltered first page does not walk: it answers whatever the deadline.
    let (s, v) = app.get("/api/blade-system/param/list?current=1&size=10", &token).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(app.st.walk_stats.timed_out.load(Ordering::Relaxed) >= 2);
}

#[tokio::test]
async fn walks_take_a_slot_and_other_requests_keep_serving() {
    let app = App::with(Settings { walk_deadline: Duration::from_millis(300), walk_slots: 1, search_index: false, ..Settings::default() });
    let first = fill(&app, 50);
    let token = app.admin("157270").await;
    // Another walk holds the only slot.
    let slot = app.st.walks.clone().try_acquire_owned().unwrap();
    let t = Instant::now();
    let (s, v) = app.get("/api/blade-system/param/list?paramName=%E8%B6%85%E6%97%B6", &token).await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "a walk waits for a slot until its deadline: {v}");
    assert!(t.elapsed() >= Duration::from_millis(290));
    // Lists answered from indexes and details do not wait for a slot.
    for url in [
        "/api/blade-system/param/list?current=1&size=20".to_string(),
        "/api/blade-system/param/list?paramKey_equal=walk.3".to_string(),
        format!("/api/blade-system/param/detail?id={first}"),
    ] {
        let t = Instant::now();
        let (s, v) = app.get(&url, &token).await;
        assert_eq!(s, StatusCode::OK, "{url}: {v}");
        assert!(t.elapsed() < Duration::from_millis(250), "{url} waited for the walk slot");
    }
    drop(slot);
    let (s, v) = app.get("/api/blade-system/param/list?paramName=%E8%B6%85%E6%97%B6", &token).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["data"]["total"], 50);
}

#[tokio::test]
async fn a_walk_stops_when_its_client_goes_away() {
    let app = App::with(Settings { walk_deadline: Duration::from_secs(120), walk_slots: 1, search_index: false, ..Settings::default() });
    fill(&app, 40_000);
    let token = app.admin("157270").await;
    // A filter nothing matches walks every record.
    let req = Request::get("/api/blade-system/param/list?paramName_like=none-such")
        .header("authorization", crate::support::BASIC)
        .header("blade-auth", format!("bearer {token}"))
        .body(Body::empty())
        .unwrap();
    let fut = app.router.clone().oneshot(req);
    // The client gives up: the request future is dropped mid-walk.
    let started = Instant::now();
    assert!(tokio::time::timeout(Duration::from_millis(40), fut).await.is_err(), "the walk finished too soon to test");
    let stats = &app.st.walk_stats;
    while stats.cancelled.load(Ordering::Relaxed) == 0 && started.elapsed() < Duration::from_secs(60) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(stats.cancelled.load(Ordering::Relaxed), 1, "the abandoned walk stopped");
    // Its slot is free again: the next walk runs at once.
    let (s, v) = app.get("/api/blade-system/param/list?paramName_like=none-such&size=10", &token).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["data"]["total"], Value::from(0));
}
