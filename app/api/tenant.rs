//! Tenants as the rest of the server needs them: lookup by id or by host, expiry, and the public
//! `tenant/info?domain=` the sign-in page asks.
use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::ReadCtx;

use crate::error::ApiResult;
use crate::http::{QueryPairs, ok};
use crate::state::AppState;

pub fn by_id(r: &ReadCtx, st: &AppState, tenant_id: &str) -> store::Result<Option<Map<String, Value>>> {
    let def = st.res.get("tenant");
    match r.find_unique(&def, store::PLATFORM_TENANT, "tenantId", tenant_id)? {
        Some(id) => r.get(&def, store::PLATFORM_TENANT, id),
        None => Ok(None),
    }
}

pub fn by_domain(r: &ReadCtx, st: &AppState, host: &str) -> store::Result<Option<Map<String, Value>>> {
    if host.is_empty() {
        return Ok(None);
    }
    let def = st.res.get("tenant");
    match r.find_unique(&def, store::PLATFORM_TENANT, "domain", host)? {
        Some(id) => r.get(&def, store::PLATFORM_TENANT, id),
        None => Ok(None),
    }
}

/// When a tenant's licence ends, in epoch milliseconds (a bare date means the end of that day).
pub fn expiry_millis(st: &AppState, t: &Map<String, Value>) -> Option<i64> {
    let exp = t.get("expireTime").and_then(Value::as_str).filter(|s| !s.is_empty())?;
    let exp = if exp.len() == 10 { format!("{exp} 23:59:59") } else { exp.to_string() };
    st.settings.zone.parse_millis(&exp)
}

/// The tenant if it exists, is enabled and has not expired.
pub fn active(r: &ReadCtx, st: &AppState, tenant_id: &str) -> store::Result<Option<Map<String, Value>>> {
    let Some(t) = by_id(r, st, tenant_id)? else { return Ok(None) };
    if t.get("status").and_then(Value::as_i64) != Some(1) {
        return Ok(None);
    }
    if expiry_millis(st, &t).is_some_and(|exp| exp < store::now_millis()) {
        return Ok(None);
    }
    Ok(Some(t))
}

/// Public: which tenant a host belongs to, so the sign-in page can hide the tenant box.
pub async fn info(State(st): State<AppState>, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    let domain = q.iter().find(|(k, _)| k == "domain").map(|(_, v)| v.trim().to_ascii_lowercase()).unwrap_or_default();
    let domain = domain.split(':').next().unwrap_or("").to_string();
    let st2 = st.clone();
    let t = st.read(move |r| by_domain(r, &st2, &domain)).await?;
    Ok(ok(match t {
        Some(t) => json!({
            "tenantId": t.get("tenantId"), "tenantName": t.get("tenantName"), "domain": t.get("domain"),
            "backgroundUrl": t.get("backgroundUrl").cloned().unwrap_or(Value::Null),
        }),
        None => json!({}),
    }))
}
