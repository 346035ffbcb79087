//! The system status screen's figures (platform administrator): the data file's size and free space, the
//! server's own counters (log entries written and shed, record walks and how they ended), uptime and version.
use std::sync::atomic::Ordering;

use axum::extract::State;
use axum::response::Response;
use serde_json::json;

use crate::error::ApiResult;
use crate::http::ok;
use crate::state::AppState;

/// GET /api/blade-system/status
pub async fn status(State(st): State<AppState>) -> ApiResult<Response> {
    let store = st.store.clone();
    let space = tokio::task::spawn_blocking(move || store.space()).await.map_err(crate::error::ApiError::internal)??;
    let w = &st.walk_stats;
    Ok(ok(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "dataFile": st.store.path().display().to_string(),
        "fileBytes": space.file_bytes,
        "allocatedBytes": space.allocated_bytes,
        "storedBytes": space.stored_bytes,
        "freeBytes": space.free_bytes,
        "uptimeSeconds": st.started_at.elapsed().as_secs(),
        "repairedMs": st.store.repaired_ms(),
        "logsWritten": st.logs.written.load(Ordering::Relaxed),
        "logsDropped": st.logs.dropped.load(Ordering::Relaxed),
        "walksStarted": w.started.load(Ordering::Relaxed),
        "walksTimedOut": w.timed_out.load(Ordering::Relaxed),
        "walksCancelled": w.cancelled.load(Ordering::Relaxed),
        "walkSlots": st.walks.available_permits(),
        "walkDeadlineMs": st.settings.walk_deadline.as_millis() as u64,
        "index": st.index.as_ref().map(|i| serde_json::to_value(i.status()).unwrap_or_default()),
    })))
}
