//! Menu administration (platform resource `menu`: read with `menu`, written only by the platform
//! administrator with `menu_add|_edit|_delete`) and top menus (`topmenu`, granted menus with
//! `topmenu_setting`). Every change drops the permission cache.
use std::collections::HashSet;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};

use crate::engine::{Api, Guard};
use crate::engine::crud::{self, parse_id, parse_ids};
use crate::api::system::tree;
use crate::engine::crud::existing;
use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, JsonObject, QueryPairs, ok};
use crate::state::AppState;

pub async fn all_menus(st: &AppState) -> ApiResult<Vec<Map<String, Value>>> {
    let d = st.res.get("menu");
    st.read(move |r| r.all(&d, store::PLATFORM_TENANT)).await
}

fn param<'a>(q: &'a [(String, String)], k: &str) -> Option<&'a str> {
    q.iter().rev().find(|(key, _)| key == k).map(|(_, v)| v.trim()).filter(|v| !v.is_empty())
}

fn is_menu(m: &Map<String, Value>) -> bool {
    m.get("category").and_then(Value::as_i64).unwrap_or(1) == 1
}

/// Menus a caller may see in admin trees: everything for the platform administrator, no platform menus else.
fn visible(s: &Session, m: &Map<String, Value>) -> bool {
    s.is_platform_admin() || m.get("platformOnly").and_then(Value::as_i64) != Some(1)
}

fn wire(st: &AppState) -> impl Fn(&Map<String, Value>) -> Map<String, Value> {
    let (d, zone) = (st.res.get("menu"), st.settings.zone);
    move |m| crate::wire::record(&d, zone, m.clone())
}

/// GET list (name, code, alias): the menus as a tree, filtered.
pub async fn list(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    Ok(ok(list_data(&st, &s, &q).await?))
}

/// The data of `list`: shared with the server-rendered menu screen.
pub async fn list_data(st: &AppState, s: &Session, q: &[(String, String)]) -> ApiResult<Vec<Value>> {
    s.require("menu")?;
    let mut rows: Vec<_> = all_menus(st).await?.into_iter().filter(|m| visible(s, m)).collect();
    for k in ["name", "code", "alias"] {
        if let Some(want) = param(q, k) {
            rows.retain(|r| r.get(k).and_then(Value::as_str).is_some_and(|v| v.contains(want)));
        }
    }
    if let Some(kw) = param(q, "keyword").filter(|k| !k.trim().is_empty()) {
        let check = crate::indexer::keyword_check(&st.res.get("menu"), kw.trim());
        rows.retain(|r| (check.test)(r));
    }
    Ok(tree::build(&rows, &wire(st)))
}

async fn lazy(st: &AppState, s: &Session, q: &[(String, String)], menus_only: bool) -> ApiResult<Response> {
    s.require("menu")?;
    let parent = match param(q, "parentId") {
        None | Some("0") => 0,
        Some(v) => parse_id(Some(v))?,
    };
    let all: Vec<_> = all_menus(st).await?.into_iter().filter(|m| visible(s, m) && (!menus_only || is_menu(m))).collect();
    let parents: HashSet<u64> = all.iter().map(|m| tree::id(m, "parentId")).collect();
    let mut kids: Vec<_> = all.iter().filter(|m| tree::id(m, "parentId") == parent).collect();
    kids.sort_by_key(|m| (m.get("sort").and_then(Value::as_i64).unwrap_or(0), tree::id(m, "id")));
    let w = wire(st);
    let out: Vec<Value> = kids
        .into_iter()
        .map(|m| {
            let mut o = w(m);
            o.insert("hasChildren".into(), json!(parents.contains(&tree::id(m, "id"))));
            Value::Object(o)
        })
        .collect();
    Ok(ok(out))
}

/// GET lazy-list?parentId=: one level, with `hasChildren`.
pub async fn lazy_list(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    lazy(&st, &s, &q, false).await
}

/// GET lazy-menu-list?parentId=: one level of menus (no buttons).
pub async fn lazy_menu_list(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    lazy(&st, &s, &q, true).await
}

/// GET menu-list: every menu (no buttons) as a tree.
pub async fn menu_list(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    s.require("menu")?;
    let rows: Vec<_> = all_menus(&st).await?.into_iter().filter(|m| visible(&s, m) && is_menu(m)).collect();
    Ok(ok(tree::build(&rows, &wire(&st))))
}

/// GET menuTree (tenantId, system): the menu select tree, with the 智装家 rule of spec §6.
pub async fn menu_tree(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    s.require("menu")?;
    let rows: Vec<_> = all_menus(&st).await?.into_iter().filter(|m| visible(&s, m) && is_menu(m)).collect();
    Ok(ok(tree::home_rule(tree::build(&rows, &|m| {
        let mut o = tree::select_node("name")(m);
        o.insert("name".into(), m.get("name").cloned().unwrap_or(Value::Null));
        o
    }))))
}

/// GET detail?id=.
pub async fn detail(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    s.require("menu")?;
    let id = parse_id(param(&q, "id"))?;
    let m = crud::get_scoped(&st, &s, &st.res.get("menu"), id).await?;
    if !visible(&s, &m) {
        return Err(ApiError::new(Kind::NotFound));
    }
    Ok(ok(wire(&st)(&m)))
}

/// POST submit: platform administrator only; the parent must exist and not be the menu itself or below it.
pub async fn submit(State(st): State<AppState>, s: Session, JsonObject(mut body): JsonObject) -> ApiResult<Response> {
    tree::strip_root_parent(&mut body);
    let d = st.res.get("menu");
    let me = crud::body_id(&body)?;
    if let Some(p) = body.get("parentId").and_then(store::parse_id_value) {
        s.require_any(&["menu_add", "menu_edit"])?;
        if !s.is_platform_admin() {
            return Err(ApiError::new(Kind::PlatformOnly));
        }
        let all = all_menus(&st).await?;
        if !all.iter().any(|m| tree::id(m, "id") == p) {
            return Err(ApiError::with(Kind::BadId, "parentId"));
        }
        if let Some(me) = me {
            let below = below(&all, &[me]);
            if below.contains(&p) {
                return Err(ApiError::with(Kind::BadId, "parentId"));
            }
        }
    }
    let saved = crud::save(&st, &s, &body, &d).await?;
    st.perms.invalidate();
    Ok(ok(wire(&st)(&saved)))
}

/// The ids of `roots` and every menu below them.
fn below(all: &[Map<String, Value>], roots: &[u64]) -> Vec<u64> {
    let mut keep: Vec<u64> = roots.to_vec();
    let mut i = 0;
    while i < keep.len() {
        let cur = keep[i];
        for m in all.iter().filter(|m| tree::id(m, "parentId") == cur) {
            let id = tree::id(m, "id");
            if !keep.contains(&id) {
                keep.push(id);
            }
        }
        i += 1;
    }
    keep
}

/// POST remove?ids=: the menus and every menu below them (platform administrator only).
pub async fn remove(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    s.require("menu_delete")?;
    if !s.is_platform_admin() {
        return Err(ApiError::new(Kind::PlatformOnly));
    }
    let ids = parse_ids(p.get("ids"))?;
    let all = all_menus(&st).await?;
    let roots: Vec<u64> = ids.iter().copied().filter(|i| all.iter().any(|m| tree::id(m, "id") == *i)).collect();
    if roots.is_empty() {
        return Err(ApiError::new(Kind::NotFound));
    }
    let doomed = below(&all, &roots);
    let (d, actor) = (st.res.get("menu"), s.actor());
    st.write(move |w| w.remove(&d, store::PLATFORM_TENANT, &doomed, &actor)).await?;
    st.perms.invalidate();
    Ok(ok(Value::Null))
}

/// GET top-menu: the top menus the user's grants reach (a top menu without menus shows to everyone).
pub async fn top_menu(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    let d = st.res.get("topmenu");
    let mut rows = st.read(move |r| r.all(&d, store::PLATFORM_TENANT)).await?;
    rows.retain(|t| {
        let ids: Vec<u64> = t.get("menuIds").and_then(Value::as_array).into_iter().flatten().filter_map(store::parse_id_value).collect();
        s.is_platform_admin() || ids.is_empty() || ids.iter().any(|i| s.perms.menu_ids.contains(i))
    });
    rows.sort_by_key(|m| (m.get("sort").and_then(Value::as_i64).unwrap_or(0), tree::id(m, "id")));
    let (d, zone) = (st.res.get("topmenu"), st.settings.zone);
    Ok(ok(rows.into_iter().map(|m| crate::wire::record(&d, zone, m)).collect::<Vec<_>>()))
}

/// POST topmenu/grant (topMenuIds, menuIds): links top menus to menus (platform administrator only).
pub async fn top_grant(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    s.require("topmenu_setting")?;
    if !s.is_platform_admin() {
        return Err(ApiError::new(Kind::PlatformOnly));
    }
    let tops = existing(&st, store::PLATFORM_TENANT, "topmenu", p.get("topMenuIds").unwrap_or("")).await?;
    let menus = match p.get("menuIds").map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => existing(&st, store::PLATFORM_TENANT, "menu", v).await?,
        None => Vec::new(),
    };
    let mut patch = Map::new();
    patch.insert("menuIds".into(), json!(menus.iter().map(u64::to_string).collect::<Vec<_>>()));
    let (d, actor) = (st.res.get("topmenu"), s.actor());
    st.write(move |w| {
        for t in &tops {
            w.update(&d, store::PLATFORM_TENANT, *t, patch.clone(), &actor)?;
        }
        Ok(())
    })
    .await?;
    st.perms.invalidate();
    Ok(ok(Value::Null))
}

/// GET menu/grant-top-tree: the menu tree of the top-menu dialog.
pub async fn grant_top_tree(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    s.require("topmenu")?;
    let rows: Vec<_> = all_menus(&st).await?.into_iter().filter(|m| visible(&s, m) && is_menu(m)).collect();
    Ok(ok(json!({"menu": tree::home_rule(tree::build(&rows, &tree::select_node("name")))})))
}

/// GET menu/top-tree-keys?topMenuIds=: the menus linked to the top menus.
pub async fn top_tree_keys(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    s.require("topmenu")?;
    let tops = existing(&st, store::PLATFORM_TENANT, "topmenu", param(&q, "topMenuIds").unwrap_or("")).await?;
    let d = st.res.get("topmenu");
    let rows = st.read(move |r| r.all(&d, store::PLATFORM_TENANT)).await?;
    let mut keys: Vec<String> = Vec::new();
    for t in rows.iter().filter(|t| tops.contains(&tree::id(t, "id"))) {
        for v in t.get("menuIds").and_then(Value::as_array).into_iter().flatten() {
            if let Some(i) = store::parse_id_value(v).map(|i| i.to_string())
                && !keys.contains(&i) {
                keys.push(i);
            }
        }
    }
    Ok(ok(json!({"menu": keys})))
}

pub fn routes(api: Api) -> Api {
    const M: &str = "/api/blade-system/menu";
    let read = Guard::code("menu");
    api.base(M, "menu")
        .get(format!("{M}/list"), read.clone(), list)
        .get(format!("{M}/lazy-list"), read.clone(), lazy_list)
        .get(format!("{M}/lazy-menu-list"), read.clone(), lazy_menu_list)
        .get(format!("{M}/menu-list"), read.clone(), menu_list)
        .get(format!("{M}/menuTree"), read.clone(), menu_tree)
        .get(format!("{M}/tree"), read.clone(), menu_tree)
        .get(format!("{M}/detail"), read, detail)
        .get(format!("{M}/top-menu"), Guard::Signed, top_menu)
        .get(format!("{M}/grant-top-tree"), Guard::code("topmenu"), grant_top_tree)
        .get(format!("{M}/top-tree-keys"), Guard::code("topmenu"), top_tree_keys)
        .post(format!("{M}/submit"), Guard::platform(&["menu_add", "menu_edit"]), submit)
        .post(format!("{M}/remove"), Guard::platform(&["menu_delete"]), remove)
}
