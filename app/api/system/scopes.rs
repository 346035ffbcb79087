//! Data scopes (`/api/blade-system/data-scope`) and API scopes (`/api/blade-system/api-scope`): platform
//! records, written only by the platform administrator. A data scope's resource, field and typed rule are
//! checked against the resource's declaration before it is stored; an API scope's path must be a route
//! pattern. Every change drops the permission cache (grants read them).
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value};
use store::ResourceDef;

use crate::engine::{Api, Guard};
use crate::engine::crud;
use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, JsonObject, ok};
use crate::state::AppState;

pub const DATA_BASE: &str = "/api/blade-system/data-scope";
pub const API_BASE: &str = "/api/blade-system/api-scope";

pub fn routes(mut api: Api) -> Api {
    for (base, name) in [(DATA_BASE, "datascope"), (API_BASE, "apiscope")] {
        let def = api.def(name);
        let (d1, d2) = (def.clone(), def.clone());
        let (add, del) = (Guard::write(&def, &["add", "edit"]), Guard::write(&def, &["delete"]));
        api = api
            .read(base, name)
            .post(format!("{base}/submit"), add, move |st, s, b| submit(st, s, b, d1))
            .post(format!("{base}/remove"), del, move |st, s, p| remove(st, s, p, d2));
    }
    api
}

fn text<'a>(b: &'a Map<String, Value>, k: &str) -> &'a str {
    b.get(k).and_then(Value::as_str).map(str::trim).unwrap_or("")
}

/// Checks a data or API scope body against the declarations (the stored record merged with the update).
async fn check(st: &AppState, s: &Session, def: &ResourceDef, body: &Map<String, Value>) -> ApiResult<()> {
    let mut merged = match crud::body_id(body)? {
        Some(id) => crud::get_scoped(st, s, def, id).await?,
        None => Map::new(),
    };
    merged.extend(body.iter().map(|(k, v)| (k.clone(), v.clone())));
    if let Some(m) = merged.get("menuId").and_then(store::parse_id_value) {
        crate::engine::crud::existing(st, store::PLATFORM_TENANT, "menu", &m.to_string()).await.map_err(|_| ApiError::with(Kind::BadId, "menuId"))?;
    }
    let code = text(&merged, "resourceCode");
    if def.name == "datascope" {
        let Some(target) = st.res.find(code) else { return Err(ApiError::with(Kind::BadRule, format!("resourceCode {code}"))) };
        let kind = match merged.get("scopeType") {
            Some(Value::Number(n)) => n.as_i64().unwrap_or(0),
            Some(Value::String(v)) => v.trim().parse().unwrap_or(0),
            _ => 0,
        };
        crate::auth::scope::validate(&target, kind, text(&merged, "scopeField"), text(&merged, "scopeValue"))?;
    } else if !text(&merged, "scopePath").starts_with('/') {
        return Err(ApiError::with(Kind::BadFormat, "scopePath"));
    }
    Ok(())
}

async fn submit(State(st): State<AppState>, s: Session, JsonObject(body): JsonObject, def: Arc<ResourceDef>) -> ApiResult<Response> {
    s.require_any(&[&format!("{}_add", def.name), &format!("{}_edit", def.name)])?;
    if !s.is_platform_admin() {
        return Err(ApiError::new(Kind::PlatformOnly));
    }
    check(&st, &s, &def, &body).await?;
    let saved = crud::save(&st, &s, &body, &def).await?;
    st.perms.invalidate();
    Ok(ok(crate::wire::record(&def, st.settings.zone, saved)))
}

async fn remove(st: State<AppState>, s: Session, p: AnyParams, def: Arc<ResourceDef>) -> ApiResult<Response> {
    let app = st.0.clone();
    let r = crud::remove(st, s, p, def).await?;
    app.perms.invalidate();
    Ok(r)
}
