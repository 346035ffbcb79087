//! The system status screen's figures (platform administrator): the data file's and the logs' file's size and free
//! space, their write-ahead logs, whether storage failed (writes stopped), the server's own counters (log entries
//! written and shed, record walks and how they ended), requests per route minute by minute, uptime and version;
//! and the same as Prometheus text at `/api/metrics` (for the platform administrator or a scrape token).
use std::fmt::Write;
use std::sync::atomic::Ordering;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::error::{ApiError, ApiResult};
use crate::http::ok;
use crate::state::AppState;

/// How old a measurement of the pages in use may be: counting them pauses the file's writes for about 2 s per
/// GB (see `store::Store::space_within`), so the screen and the scrape reuse it for ten minutes.
const SPACE_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(600);

/// Space of both files, measured off the async workers at most every `SPACE_MAX_AGE`; and the age of the data
/// file's measurement.
async fn spaces(st: &AppState) -> ApiResult<(store::FileSpace, store::FileSpace, u64)> {
    let (d, l) = (st.store.clone(), st.log_store.clone());
    let r = tokio::task::spawn_blocking(move || -> store::Result<_> {
        let (data, age) = d.space_within(SPACE_MAX_AGE)?;
        Ok((data, l.space_within(SPACE_MAX_AGE)?.0, age.as_secs()))
    })
    .await
    .map_err(ApiError::internal)??;
    Ok(r)
}

/// GET /api/blade-system/status
pub async fn status(State(st): State<AppState>) -> ApiResult<Response> {
    let (space, logs, space_age) = spaces(&st).await?;
    let w = &st.walk_stats;
    let routes: Vec<_> = st.metrics.figures(store::now_millis()).into_iter().take(50).collect();
    // Secrets sealed under another key (a file restored or followed without its secret.key): a few records, counted.
    let st2 = st.clone();
    let seals = tokio::task::spawn_blocking(move || crate::engine::crud::seal_stored(&st2, false)).await.map_err(ApiError::internal)??;
    let deferred: Vec<String> = [st.store.upgrade_deferred(), st.log_store.upgrade_deferred()].into_iter().flatten().map(|w| w.to_string()).collect();
    let pruned: serde_json::Value = st.log_store.read(|r| r.meta(crate::logsink::AUDIT_PRUNED))?.and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
    Ok(ok(json!({
        "auditPrunedBySize": if pruned.is_null() { pruned } else { json!({"count": pruned["count"], "last": pruned["last"], "lastAt": st.settings.zone.format(pruned["lastAt"].as_i64().unwrap_or(0))}) },
        "secretKey": {"id": st.secrets.id(), "source": st.secrets.source, "otherKey": seals.other_key},
        "version": crate::VERSION,
        "format": st.store.format().ok().map(|(v, by)| json!({"data": v, "writtenBy": by, "logs": st.log_store.format().ok().map(|(v, _)| v), "deferred": deferred})),
        "dataFile": st.store.path().display().to_string(),
        "upgradeCopies": upgrade_copies(&st),
        "fileBytes": space.file_bytes,
        "allocatedBytes": space.allocated_bytes,
        "storedBytes": space.stored_bytes,
        "freeBytes": space.free_bytes,
        "spaceAgeSeconds": space_age,
        "walBytes": st.store.log_bytes(),
        "cache": st.store.cache(),
        "unpackedCache": store::unpacked_figures(),
        "checkpoints": st.store.checkpoints(),
        "ranks": st.store.ranks(),
        "storageFailure": st.store.failure(),
        "logsFile": st.log_store.path().display().to_string(),
        "logsFileBytes": logs.file_bytes,
        "logsAllocatedBytes": logs.allocated_bytes,
        "logsWalBytes": st.log_store.log_bytes(),
        "logsFailure": st.log_store.failure(),
        "logMaxMb": st.settings.log_max_mb,
        "logRetentionDays": st.settings.log_retention_days,
        "apiLog": if st.settings.api_log_writes_only { "writes" } else { "all" },
        "uptimeSeconds": st.started_at.elapsed().as_secs(),
        "repairedMs": st.store.repaired_ms(),
        "logsWritten": st.logs.written.load(Ordering::Relaxed),
        "logsDropped": st.logs.dropped.load(Ordering::Relaxed),
        "logsWriter": {
            "running": st.logs.health.running(),
            "restarts": st.logs.health.restarts(),
            "lastFailure": st.logs.health.last_failure().map(|(at, why)| json!({"at": st.settings.zone.format(at), "reason": why})),
        },
        "walksStarted": w.started.load(Ordering::Relaxed),
        "walksTimedOut": w.timed_out.load(Ordering::Relaxed),
        "walksCancelled": w.cancelled.load(Ordering::Relaxed),
        "walkSlots": st.walks.available_permits(),
        "walkDeadlineMs": st.settings.walk_deadline.as_millis() as u64,
        "index": st.index.as_ref().map(|i| serde_json::to_value(i.status()).unwrap_or_default()),
        // What is durable now, not at the shipper's last look: "shipped = durable" means nothing waits.
        "replica": st.replica.get().map(|r| r.status(st.store.durable_seq())),
        "logsReplica": st.logs_replica.get().map(|r| r.status(st.log_store.durable_seq())),
        "replicaConfig": replica_config(&st),
        "readOnly": st.store.read_only(),
        "routes": routes,
    })))
}

fn data_dir(st: &AppState) -> std::path::PathBuf {
    st.store.path().parent().map(|p| p.to_path_buf()).unwrap_or_default()
}

/// The copies an upgrade kept beside the files (`before-upgrade-*`, the last two of each file): name, size and
/// when made, newest first. They take room until someone deletes them once the upgrade is confirmed.
fn upgrade_copies(st: &AppState) -> Vec<serde_json::Value> {
    let mut out: Vec<(i64, serde_json::Value)> = std::fs::read_dir(data_dir(st))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("before-upgrade-"))
        .filter_map(|e| {
            let m = e.metadata().ok()?;
            let at = m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis() as i64;
            Some((at, json!({"name": e.file_name().to_string_lossy(), "bytes": m.len(), "at": st.settings.zone.format(at)})))
        })
        .collect();
    out.sort_by(|a, b| b.0.cmp(&a.0));
    out.into_iter().map(|(_, v)| v).collect()
}

/// The replica set on this screen (keys never answered: the access key masked, whether a secret is kept).
fn replica_config(st: &AppState) -> serde_json::Value {
    match crate::replica::Saved::load(&data_dir(st)) {
        None => serde_json::Value::Null,
        Some(s) => json!({"url": s.url, "endpoint": s.endpoint, "region": s.region, "accessKey": crate::wire::mask(&s.access_key), "hasSecret": !s.secret_key.is_empty()}),
    }
}

/// POST /api/blade-system/status/replica: the platform administrator sets (or, with an empty `url`, clears) the
/// replica the server ships to from its next start. The bucket is tried first (an object written, read back and
/// removed); a blank secret keeps the one saved. Kept in `DIR/zhizhuang-replica.json` (mode 0600), never in the
/// data file.
pub async fn set_replica(State(st): State<AppState>, crate::http::JsonObject(body): crate::http::JsonObject) -> ApiResult<Response> {
    let text = |k: &str| body.get(k).and_then(serde_json::Value::as_str).unwrap_or("").trim().to_string();
    let dir = data_dir(&st);
    let url = text("url");
    if url.is_empty() {
        crate::replica::Saved::remove(&dir).map_err(ApiError::internal)?;
        return Ok(ok(json!({"saved": false, "restart": true})));
    }
    if !url.starts_with("s3://") || url.trim_start_matches("s3://").split('/').next().is_none_or(|b| b.len() < 3) {
        return Err(ApiError::rule("备份地址应写成 s3://空间名/前缀", "The replica must look like s3://bucket/prefix"));
    }
    let endpoint = text("endpoint");
    // The same rule as a company's object storage: the server connects where this says.
    crate::engine::objects::check_endpoint(&st.settings.bucket_rule, &endpoint).await?;
    let old = crate::replica::Saved::load(&dir).unwrap_or_default();
    // Keys kept for another bucket would be sent to the new one: a changed place needs its secret again.
    if !old.secret_key.is_empty() {
        let (old_place, new_place) = (format!("{}|{}", old.url, offbox::guard::with_scheme(&old.endpoint)), format!("{url}|{}", offbox::guard::with_scheme(&endpoint)));
        crate::engine::objects::secret_needed_again(&old_place, &new_place, &text("secretKey"))?;
    }
    let keep = |new: String, old: String| if new.is_empty() { old } else { new };
    let saved = crate::replica::Saved {
        url,
        endpoint,
        region: text("region"),
        access_key: keep(text("accessKey"), old.access_key),
        secret_key: keep(text("secretKey"), old.secret_key),
    };
    let target = crate::replica::saved_target(&saved).map_err(|e| ApiError::rule(format!("备份配置不完整：{e}"), format!("The replica is not fully configured: {e}")))?;
    let bucket = offbox::Bucket::open_with(&target, std::time::Duration::from_secs(15), &st.settings.bucket_rule).map_err(|p| crate::engine::objects::failed(&p))?;
    bucket.probe().await.map_err(|p| ApiError::rule(format!("连接失败：{}", p.zh()), format!("Connection failed: {}", p.en())))?;
    saved.save(&dir).map_err(ApiError::internal)?;
    Ok(ok(json!({"saved": true, "restart": true, "target": target.describe()})))
}

/// GET /api/metrics: Prometheus' text format.
pub async fn metrics(State(st): State<AppState>) -> ApiResult<Response> {
    let (space, logs, _) = spaces(&st).await?;
    let mut out = String::with_capacity(16 << 10);
    let mut gauge = |name: &str, help: &str, kind: &str, v: f64| {
        let _ = write!(out, "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {v}\n");
    };
    gauge("zz_data_file_bytes", "Size of the data file.", "gauge", space.file_bytes as f64);
    gauge("zz_data_allocated_bytes", "Pages in use in the data file.", "gauge", space.allocated_bytes as f64);
    gauge("zz_data_wal_bytes", "Bytes in the data file's write-ahead log waiting for a checkpoint.", "gauge", st.store.log_bytes() as f64);
    gauge("zz_logs_file_bytes", "Size of the logs' file.", "gauge", logs.file_bytes as f64);
    gauge("zz_logs_allocated_bytes", "Pages in use in the logs' file.", "gauge", logs.allocated_bytes as f64);
    gauge("zz_logs_wal_bytes", "Bytes in the logs' write-ahead log waiting for a checkpoint.", "gauge", st.log_store.log_bytes() as f64);
    gauge("zz_storage_failed", "1 once a write to the data file failed: writes are stopped until a restart.", "gauge", st.store.failure().is_some() as u8 as f64);
    gauge("zz_log_entries_written_total", "Log entries written since start.", "counter", st.logs.written.load(Ordering::Relaxed) as f64);
    gauge("zz_log_writer_up", "1 while the logs' writer runs, 0 when it stopped.", "gauge", if st.logs.health.running() { 1.0 } else { 0.0 });
    gauge("zz_log_writer_restarts_total", "Times the logs' writer failed and was started again.", "counter", st.logs.health.restarts() as f64);
    gauge("zz_log_entries_shed_total", "Read log entries shed because the log queue was full (--api-log all).", "counter", st.logs.dropped.load(Ordering::Relaxed) as f64);
    gauge("zz_walks_started_total", "Lists that walked records.", "counter", st.walk_stats.started.load(Ordering::Relaxed) as f64);
    gauge("zz_walks_timed_out_total", "Walks stopped at their deadline (answered 503).", "counter", st.walk_stats.timed_out.load(Ordering::Relaxed) as f64);
    let cp = st.store.checkpoints();
    gauge("zz_data_checkpoints_total", "Checkpoints of the data file's write-ahead log since start.", "counter", cp.count as f64);
    gauge("zz_data_checkpoint_writer_seconds", "How long the last checkpoint held the writer (writes wait meanwhile).", "gauge", cp.last_writer_ms / 1e3);
    gauge("zz_data_checkpoint_writer_max_seconds", "The longest any checkpoint held the writer since start.", "gauge", cp.max_writer_ms / 1e3);
    gauge("zz_data_checkpoint_writer_seconds_total", "How long all checkpoints since start held the writer together.", "counter", cp.total_writer_ms / 1e3);
    gauge("zz_data_checkpoints_postponed_total", "Checkpoints put off because the one before was still on its way to the disk (writes went on).", "counter", cp.postponed as f64);
    gauge("zz_data_checkpoint_waited_seconds_total", "How long checkpoints waited for the one before to reach the disk (at close, or with the log past its bound).", "counter", cp.waited_ms / 1e3);
    gauge("zz_data_checkpoint_disk_seconds", "How long the last checkpoint took until its pages were on disk (the writer goes on before; spread over up to 2 s while the writer has time to spare).", "gauge", cp.last_disk_ms / 1e3);
    let r = st.store.ranks();
    gauge("zz_deep_page_marks_bytes", "Memory of the rank marks deep pages use (id order, sort indexes, filtered sorts).", "gauge", r.marks_bytes as f64);
    gauge("zz_deep_page_id_sets_bytes", "Memory of the id sets lists with several exact filters intersect.", "gauge", r.set_bytes as f64);
    let c = st.store.cache();
    gauge("zz_data_cache_bytes", "Page cache of the data file (size).", "gauge", c.capacity_bytes as f64);
    gauge("zz_data_cache_used_bytes", "Page cache of the data file (held).", "gauge", c.used_bytes as f64);
    gauge("zz_data_cache_read_hits_total", "Page reads answered from the cache.", "counter", c.read_hits as f64);
    gauge("zz_data_cache_read_misses_total", "Page reads that went to the disk.", "counter", c.read_misses as f64);
    let u = store::unpacked_figures();
    gauge("zz_unpacked_cache_bytes", "Cache of unpacked records (held).", "gauge", u.bytes as f64);
    gauge("zz_unpacked_cache_room_bytes", "Cache of unpacked records (size).", "gauge", u.room as f64);
    gauge("zz_unpacked_cache_hits_total", "Packed records read from the cache of unpacked records.", "counter", u.hits as f64);
    gauge("zz_unpacked_cache_misses_total", "Packed records unpacked again.", "counter", u.misses as f64);
    if let Some(ix) = st.index.as_ref() {
        let f = ix.index().fragments();
        gauge("zz_search_fragment_fields", "Fields whose fragments are held in memory for contains filters.", "gauge", f.fields as f64);
        gauge("zz_search_fragment_bytes", "Memory those fragments take.", "gauge", f.bytes as f64);
        gauge("zz_search_fragment_answers_total", "Contains filters answered from the fragments in memory.", "counter", f.answers as f64);
    }
    gauge("zz_uptime_seconds", "Seconds since the server started.", "gauge", st.started_at.elapsed().as_secs() as f64);
    if let Some(r) = st.replica.get() {
        for (name, help, v) in r.gauges() {
            gauge(name, help, "gauge", v);
        }
    }
    st.metrics.prometheus(&mut out);
    let mut r = out.into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"));
    Ok(r)
}
