//! Logs the server keeps: the UI's error-log upload lands in `log_error` (read through the generic list and
//! detail routes with the `log_error` code).
use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};

use crate::auth::session::Session;
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::ok;
use crate::state::AppState;

/// Most entries accepted in one upload (the UI's badge caps at 99).
const MAX_ENTRIES: usize = 200;

fn text(v: Option<&Value>, max: usize) -> Value {
    let s = match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    Value::String(s.chars().take(max).collect())
}

/// POST /api/blade-log/error/upload: a JSON array of `{type, message, stack, info, url, time}` (or
/// `{logs: [...]}`), stored for the caller's tenant in one write.
pub async fn upload(State(st): State<AppState>, s: Session, body: axum::body::Bytes) -> ApiResult<Response> {
    let v: Value = serde_json::from_slice(&body).map_err(|_| ApiError::new(Kind::BadJson))?;
    let list = match v {
        Value::Array(a) => a,
        Value::Object(mut o) => match o.remove("logs") {
            Some(Value::Array(a)) => a,
            _ => return Err(ApiError::with(Kind::Missing, "logs")),
        },
        _ => return Err(ApiError::new(Kind::NotAnObject)),
    };
    if list.is_empty() {
        return Err(ApiError::new(Kind::NoneSelected));
    }
    if list.len() > MAX_ENTRIES {
        return Err(ApiError::with(Kind::OutOfRange, "logs"));
    }
    let docs: Vec<Map<String, Value>> = list
        .iter()
        .map(|e| {
            json!({"source": "ui", "type": text(e.get("type"), 64), "message": text(e.get("message"), 1000),
                "stack": text(e.get("stack"), 4000), "info": text(e.get("info"), 500), "url": text(e.get("url"), 500),
                "time": text(e.get("time"), 32)})
            .as_object()
            .cloned()
            .unwrap_or_default()
        })
        .collect();
    let n = docs.len();
    // Within the user's and the tenant's budget of the hour (what is kept, truncated, counts).
    let bytes: usize = docs.iter().flat_map(|d| d.values()).map(|v| v.as_str().map_or(0, str::len)).sum();
    if let Err(secs) = st.report_budget.take(&s.tenant, s.user_id, n as u64, bytes as u64, store::now_millis()) {
        return Err(ApiError { retry_after: Some(secs), ..ApiError::with(Kind::ReportsOverBudget, secs.to_string()) });
    }
    let (def, t, actor) = (st.res.get("log_error"), s.tenant.clone(), s.actor());
    // Into the logs' file, durably: the user is told they were uploaded.
    let logs = st.log_store.clone();
    tokio::task::spawn_blocking(move || {
        logs.write(move |w| {
            for d in &docs {
                w.insert(&def, &t, d.clone(), &actor)?;
            }
            Ok(())
        })
    })
    .await
    .map_err(ApiError::internal)??;
    Ok(ok(json!({"saved": n})))
}

pub fn routes(api: Api) -> Api {
    api.post("/api/blade-log/error/upload", Guard::Signed, upload)
        .read("/api/blade-log/error", "log_error")
        .read("/api/blade-log/usual", "log_usual")
        .read("/api/blade-log/api", "log_api")
        .read("/api/blade-log/login", "log_login")
}

/// 日志: the log screens and the UI's error upload: routes only.
pub const AREA: crate::api::Area = crate::api::Area::routes_only("log", routes);
