//! The generic handlers of a declared resource: list, detail, submit (insert without id, update with id) and
//! remove (soft delete of `?ids=`). Permission codes: the resource's menu code to read, `<name>_add`,
//! `<name>_edit`, `<name>_delete` to write. Platform resources are writable only by the platform role.
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Map, Value};
use store::ResourceDef;

use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, JsonObject, QueryPairs, ok};
use crate::state::AppState;

/// Routes `<base>/list|detail|submit|remove` for the resource `name`.
pub fn routes(st: &AppState, base: &str, name: &str) -> Router<AppState> {
    let def = st.res.get(name);
    let (d1, d2, d3, d4) = (def.clone(), def.clone(), def.clone(), def);
    Router::new()
        .route(&format!("{base}/list"), get(move |st, s, q| list(st, s, q, d1)))
        .route(&format!("{base}/detail"), get(move |st, s, q| detail(st, s, q, d2)))
        .route(&format!("{base}/submit"), post(move |st, s, b| submit(st, s, b, d3)))
        .route(&format!("{base}/remove"), post(move |st, s, p| remove(st, s, p, d4)))
}

async fn list(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs, def: Arc<ResourceDef>) -> ApiResult<Response> {
    s.require(&def.name)?;
    let query = crate::listq::parse(&def, st.settings.zone, &q)?;
    let (d, t, lim) = (def.clone(), s.tenant.clone(), query.limit);
    let page = st.read(move |r| r.list(&d, &t, &query)).await?;
    let current = q.iter().rev().find(|(k, _)| k == "current").and_then(|(_, v)| v.parse::<u64>().ok()).unwrap_or(1);
    let records: Vec<Map<String, Value>> =
        page.records.into_iter().map(|r| crate::wire::record(&def, st.settings.zone, r)).collect();
    Ok(ok(serde_json::json!({
        "records": records, "total": page.total, "size": lim, "current": current,
        "pages": page.total.div_ceil(lim),
    })))
}

pub fn parse_id(raw: Option<&str>) -> ApiResult<u64> {
    let raw = raw.unwrap_or("").trim();
    if raw.is_empty() {
        return Err(ApiError::with(Kind::Missing, "id"));
    }
    raw.parse::<u64>().ok().filter(|i| *i > 0).ok_or_else(|| ApiError::with(Kind::BadId, raw.chars().take(40).collect::<String>()))
}

async fn detail(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs, def: Arc<ResourceDef>) -> ApiResult<Response> {
    s.require(&def.name)?;
    let id = parse_id(q.iter().find(|(k, _)| k == "id").map(|(_, v)| v.as_str()))?;
    let (d, t) = (def.clone(), s.tenant.clone());
    let rec = st.read(move |r| r.get(&d, &t, id)).await?.ok_or_else(|| ApiError::new(Kind::NotFound))?;
    Ok(ok(crate::wire::record(&def, st.settings.zone, rec)))
}

async fn submit(State(st): State<AppState>, s: Session, JsonObject(body): JsonObject, def: Arc<ResourceDef>) -> ApiResult<Response> {
    let id = match body.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(v)) if v.is_empty() => None,
        Some(v) => Some(store::parse_id_value(v).ok_or_else(|| ApiError::with(Kind::BadId, v.to_string()))?),
    };
    s.require(&format!("{}_{}", def.name, if id.is_some() { "edit" } else { "add" }))?;
    if def.platform && !s.is_platform_admin() {
        return Err(ApiError::new(Kind::PlatformOnly));
    }
    let doc = def.parse_input(&body, id.is_none())?;
    let (d, t, actor) = (def.clone(), s.tenant.clone(), s.actor());
    let saved = st
        .write(move |w| match id {
            Some(id) => w.update(&d, &t, id, doc.clone(), &actor),
            None => w.insert(&d, &t, doc.clone(), &actor),
        })
        .await?;
    Ok(ok(crate::wire::record(&def, st.settings.zone, saved)))
}

/// `ids=1,2,3` parsed strictly: any non-id is a 400 naming it; none at all is 请选择至少一条数据.
pub fn parse_ids(raw: Option<&str>) -> ApiResult<Vec<u64>> {
    let mut ids = Vec::new();
    for part in raw.unwrap_or("").split(',').map(str::trim).filter(|p| !p.is_empty()) {
        ids.push(parse_id(Some(part))?);
    }
    if ids.is_empty() {
        return Err(ApiError::new(Kind::NoneSelected));
    }
    if ids.len() > 1000 {
        return Err(ApiError::with(Kind::BadPaging, "ids"));
    }
    Ok(ids)
}

async fn remove(State(st): State<AppState>, s: Session, p: AnyParams, def: Arc<ResourceDef>) -> ApiResult<Response> {
    s.require(&format!("{}_delete", def.name))?;
    if def.platform && !s.is_platform_admin() {
        return Err(ApiError::new(Kind::PlatformOnly));
    }
    let ids = parse_ids(p.get("ids"))?;
    let (d, t, actor) = (def.clone(), s.tenant.clone(), s.actor());
    let n = st.write(move |w| w.remove(&d, &t, &ids, &actor)).await?;
    if n == 0 {
        return Err(ApiError::new(Kind::NotFound));
    }
    Ok(ok(Value::Null))
}
