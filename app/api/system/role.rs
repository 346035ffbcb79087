//! Roles (`/api/blade-system/role/...`) and the grant dialog's menu endpoints. Codes: `role` to read,
//! `role_add|_edit|_delete`, `role_grant` to grant. The alias `administrator` exists only in tenant 000000.
//! A role still assigned to a user, or with child roles, is not removed (the answer names it). A grant is
//! limited to menus the granter holds (so a tenant admin never grants platform menus) and invalidates the
//! permission cache.
use std::collections::HashSet;
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::ResourceDef;

use crate::engine::{Api, Guard};
use crate::engine::crud::{self, parse_id, parse_ids};
use crate::api::system::tree;
use crate::engine::crud::existing;
use crate::auth::session::{Session, id_list};
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, JsonObject, QueryPairs, ok};
use crate::state::AppState;

fn def(st: &AppState) -> Arc<ResourceDef> {
    st.res.get("role")
}

async fn roles(st: &AppState, tenant: &str) -> ApiResult<Vec<Map<String, Value>>> {
    let (d, t) = (def(st), tenant.to_string());
    st.read(move |r| r.all(&d, &t)).await
}

fn param<'a>(q: &'a [(String, String)], k: &str) -> Option<&'a str> {
    q.iter().rev().find(|(key, _)| key == k).map(|(_, v)| v.trim()).filter(|v| !v.is_empty())
}

/// GET list (roleName, roleAlias): the tenant's roles as a tree, filtered by name or alias.
pub async fn list(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    Ok(ok(list_data(&st, &s, &q).await?))
}

/// The data of `list`: shared with the server-rendered role screen.
pub async fn list_data(st: &AppState, s: &Session, q: &[(String, String)]) -> ApiResult<Vec<Value>> {
    s.require("role")?;
    let mut rows = roles(st, &s.tenant).await?;
    for k in ["roleName", "roleAlias"] {
        if let Some(want) = param(q, k) {
            rows.retain(|r| r.get(k).and_then(Value::as_str).is_some_and(|v| v.contains(want)));
        }
    }
    if let Some(kw) = param(q, "keyword").filter(|k| !k.trim().is_empty()) {
        let check = crate::indexer::keyword_check(&def(st), kw.trim());
        rows.retain(|r| (check.test)(r));
    }
    let (d, zone) = (def(st), st.settings.zone);
    Ok(tree::build(&rows, &|m| crate::wire::record(&d, zone, m.clone())))
}

/// GET tree / roleTree: the role select tree (also for the user dialog, so `user` suffices).
pub async fn select_tree(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    s.require_any(&["role", "user"])?;
    let rows = roles(&st, &s.tenant).await?;
    Ok(ok(tree::build(&rows, &tree::select_node("roleName"))))
}

/// GET tree-by-id?roleId=: the subtree under one role of this tenant.
pub async fn tree_by_id(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    s.require_any(&["role", "user"])?;
    let root = parse_id(param(&q, "roleId").or(param(&q, "id")))?;
    let rows = roles(&st, &s.tenant).await?;
    if !rows.iter().any(|r| tree::id(r, "id") == root) {
        return Err(ApiError::new(Kind::NotFound));
    }
    let mut keep: HashSet<u64> = HashSet::from([root]);
    loop {
        let before = keep.len();
        for r in &rows {
            if keep.contains(&tree::id(r, "parentId")) {
                keep.insert(tree::id(r, "id"));
            }
        }
        if keep.len() == before {
            break;
        }
    }
    let sub: Vec<Map<String, Value>> = rows.into_iter().filter(|r| keep.contains(&tree::id(r, "id"))).collect();
    Ok(ok(tree::build(&sub, &tree::select_node("roleName"))))
}

/// POST submit: alias `administrator` only in tenant 000000; the parent must be a role of this tenant.
pub async fn submit(State(st): State<AppState>, s: Session, JsonObject(mut body): JsonObject) -> ApiResult<Response> {
    // The exact code first: nothing of the body is judged for a caller who may not do this.
    s.require(if crud::body_id(&body)?.is_some() { "role_edit" } else { "role_add" })?;
    tree::strip_root_parent(&mut body);
    let alias = body.get("roleAlias").and_then(Value::as_str).unwrap_or("").trim();
    if alias == "administrator" && s.tenant != store::PLATFORM_TENANT {
        return Err(ApiError::with(Kind::BadFormat, "roleAlias"));
    }
    let parent = body.get("parentId").and_then(store::parse_id_value);
    if let (Some(p), Some(me)) = (parent, crud::body_id(&body)?)
        && p == me {
        return Err(ApiError::with(Kind::BadId, "parentId"));
    }
    let d = def(&st);
    if let Some(p) = parent {
        s.require_any(&["role_add", "role_edit"])?;
        existing(&st, &s.tenant, "role", &p.to_string()).await.map_err(|_| ApiError::with(Kind::BadId, "parentId"))?;
    }
    let saved = crud::save(&st, &s, &body, &d).await?;
    st.perms.invalidate();
    Ok(ok(crate::wire::record(&d, st.settings.zone, saved)))
}

/// POST remove?ids=: refuses roles still assigned to users or with child roles.
pub async fn remove(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    s.require("role_delete")?;
    let ids = parse_ids(p.get("ids"))?;
    let ids = existing(&st, &s.tenant, "role", &ids.iter().map(u64::to_string).collect::<Vec<_>>().join(",")).await?;
    let (st2, t, actor, want) = (st.clone(), s.tenant.clone(), s.actor(), ids.clone());
    st.write(move |w| {
        let d = st2.res.get("role");
        let rows = w.all(&d, &t)?;
        let name = |i: u64| rows.iter().find(|r| tree::id(r, "id") == i).and_then(|r| r.get("roleName").and_then(Value::as_str)).unwrap_or("").to_string();
        if let Some(child) = rows.iter().find(|r| want.contains(&tree::id(r, "parentId")) && !want.contains(&tree::id(r, "id"))) {
            return Ok(Err(name(tree::id(child, "parentId"))));
        }
        for u in w.all(&st2.res.get("user"), &t)? {
            if let Some(used) = id_list(u.get("roleId")).into_iter().find(|r| want.contains(r)) {
                return Ok(Err(name(used)));
            }
        }
        w.remove(&d, &t, &want, &actor)?;
        Ok(Ok(()))
    })
    .await?
    .map_err(|n| ApiError::with(Kind::RoleInUse, n))?;
    st.perms.invalidate();
    Ok(ok(Value::Null))
}

/// Ids of `raw` that exist as records of a platform resource, else 404 (empty means none).
async fn platform_ids(st: &AppState, res: &str, raw: Option<&str>) -> ApiResult<Vec<u64>> {
    match raw.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(Vec::new()),
        Some(v) => existing(st, store::PLATFORM_TENANT, res, v).await,
    }
}

/// POST grant (roleIds, menuIds, dataScopeIds, apiScopeIds): replaces the roles' grants. Menus must be held by
/// the granter (platform menus only by the platform administrator).
pub async fn grant(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    s.require("role_grant")?;
    let roles = existing(&st, &s.tenant, "role", p.get("roleIds").unwrap_or("")).await?;
    let menus = platform_ids(&st, "menu", p.get("menuIds")).await?;
    let scopes = platform_ids(&st, "datascope", p.get("dataScopeIds")).await?;
    let apis = platform_ids(&st, "apiscope", p.get("apiScopeIds")).await?;
    if !s.is_platform_admin() {
        let all = crate::api::system::menus::all_menus(&st).await?;
        if all.iter().any(|m| menus.contains(&tree::id(m, "id")) && m.get("platformOnly").and_then(Value::as_i64) == Some(1)) {
            return Err(ApiError::new(Kind::PlatformOnly));
        }
        if let Some(m) = menus.iter().find(|m| !s.perms.menu_ids.contains(m)) {
            return Err(ApiError::with(Kind::Forbidden, m.to_string()));
        }
    }
    let strs = |v: &[u64]| json!(v.iter().map(u64::to_string).collect::<Vec<_>>());
    let mut patch = Map::new();
    patch.insert("menuIds".into(), strs(&menus));
    patch.insert("dataScopeIds".into(), strs(&scopes));
    patch.insert("apiScopeIds".into(), strs(&apis));
    let (d, t, actor) = (def(&st), s.tenant.clone(), s.actor());
    st.write(move |w| {
        for r in &roles {
            w.update(&d, &t, *r, patch.clone(), &actor)?;
        }
        Ok(())
    })
    .await?;
    st.perms.invalidate();
    Ok(ok(Value::Null))
}

/// GET menu/role-tree-keys?roleIds=: what the roles are granted: `{menu, dataScope, apiScope}` id lists.
pub async fn role_tree_keys(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    s.require_any(&["role_grant", "role"])?;
    let ids = existing(&st, &s.tenant, "role", param(&q, "roleIds").unwrap_or("")).await?;
    let rows = roles(&st, &s.tenant).await?;
    let mut out = Map::new();
    for (k, field) in [("menu", "menuIds"), ("dataScope", "dataScopeIds"), ("apiScope", "apiScopeIds")] {
        let mut set: Vec<String> = Vec::new();
        for r in rows.iter().filter(|r| ids.contains(&tree::id(r, "id"))) {
            for v in r.get(field).and_then(Value::as_array).into_iter().flatten() {
                if let Some(i) = store::parse_id_value(v)
                    && !set.contains(&i.to_string()) {
                    set.push(i.to_string());
                }
            }
        }
        out.insert(k.into(), json!(set));
    }
    Ok(ok(out))
}

/// GET menu/grant-tree: the grant dialog's trees: menus (no platform menus unless platform admin, and only
/// menus the caller holds), and the data and API scopes of those menus under them.
pub async fn grant_tree(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    s.require_any(&["role_grant", "role"])?;
    let menus = crate::api::system::menus::all_menus(&st).await?;
    let allowed: Vec<Map<String, Value>> = menus
        .into_iter()
        .filter(|m| s.is_platform_admin() || (m.get("platformOnly").and_then(Value::as_i64) != Some(1) && s.perms.menu_ids.contains(&tree::id(m, "id"))))
        .collect();
    let menu_ids: HashSet<u64> = allowed.iter().map(|m| tree::id(m, "id")).collect();
    let mut out = Map::new();
    out.insert("menu".into(), json!(tree::home_rule(tree::build(&allowed, &tree::select_node("name")))));
    for (k, res) in [("dataScope", "datascope"), ("apiScope", "apiscope")] {
        let d = st.res.get(res);
        let scopes = st.read(move |r| r.all(&d, store::PLATFORM_TENANT)).await?;
        let mut rows: Vec<Map<String, Value>> = allowed.iter().filter(|m| scopes.iter().any(|x| tree::id(x, "menuId") == tree::id(m, "id"))).cloned().collect();
        for x in scopes.iter().filter(|x| menu_ids.contains(&tree::id(x, "menuId"))) {
            let mut n = Map::new();
            n.insert("id".into(), json!(tree::id(x, "id")));
            n.insert("parentId".into(), json!(tree::id(x, "menuId")));
            n.insert("name".into(), x.get("scopeName").cloned().unwrap_or(Value::Null));
            n.insert("sort".into(), json!(100_000));
            rows.push(n);
        }
        out.insert(k.into(), json!(tree::build(&rows, &tree::select_node("name"))));
    }
    Ok(ok(out))
}

pub fn routes(api: Api) -> Api {
    const R: &str = "/api/blade-system/role";
    let d = api.def("role");
    let read = Guard::code("role");
    let picker = Guard::any(&["role", "user"]);
    api.base(R, "role")
        .get(format!("{R}/list"), read.clone(), list)
        .get(format!("{R}/tree"), picker.clone(), select_tree)
        .get(format!("{R}/roleTree"), picker.clone(), select_tree)
        .get(format!("{R}/tree-by-id"), picker, tree_by_id)
        .get(format!("{R}/detail"), read, move |st, s, q| crud::detail(st, s, q, d))
        .post(format!("{R}/submit"), Guard::any(&["role_add", "role_edit"]), submit)
        .post(format!("{R}/remove"), Guard::code("role_delete"), remove)
        .post(format!("{R}/grant"), Guard::code("role_grant"), grant)
        .get("/api/blade-system/menu/grant-tree", Guard::any(&["role_grant", "role"]), grant_tree)
        .get("/api/blade-system/menu/role-tree-keys", Guard::any(&["role_grant", "role"]), role_tree_keys)
}
