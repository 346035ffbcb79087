//! Tenants as sign-in and every session need them: lookup by id or by host, expiry, and whether a tenant may be
//! used now (exists, enabled, not expired).
use serde_json::{Map, Value};
use store::ReadCtx;

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

