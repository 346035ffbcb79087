//! blade-system resources with behaviour beyond the generic handlers: post `select`, department trees and
//! `ancestors`, client secrets (stored hashed, never returned) and region lazy trees by code.
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::ResourceDef;

use crate::engine::{Api, Guard};
use crate::api::system::tree::id as idv;
use crate::engine::crud;
use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, JsonObject, QueryPairs, ok};
use crate::state::AppState;

fn param<'a>(q: &'a [(String, String)], k: &str) -> Option<&'a str> {
    q.iter().rev().find(|(key, _)| key == k).map(|(_, v)| v.trim()).filter(|v| !v.is_empty())
}

/// An optional id parameter: absent means 0 (the root); anything else must be an id.
fn parent_param(q: &[(String, String)], k: &str) -> ApiResult<u64> {
    match param(q, k) {
        None | Some("0") => Ok(0),
        Some(v) => crud::parse_id(Some(v)),
    }
}

// ---- posts ----

pub fn post_routes(api: Api, base: &str) -> Api {
    let g = Guard::read(&api.def("post"));
    api.crud(base, "post").get(format!("{base}/select"), g, post_select)
}

/// GET post/select: the posts of the caller's tenant as options. A `tenantId` parameter is accepted for
/// compatibility but the tenant always comes from the session.
async fn post_select(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    s.require("post")?;
    let (def, t) = (st.res.get("post"), s.tenant.clone());
    let mut rows = st.read(move |r| r.all(&def, &t)).await?;
    rows.sort_by_key(|r| (r.get("sort").and_then(Value::as_i64).unwrap_or(0), idv(r, "id")));
    let out: Vec<Value> = rows
        .iter()
        .map(|r| json!({"id": idv(r, "id").to_string(), "postName": r.get("postName"), "postCode": r.get("postCode"), "category": r.get("category")}))
        .collect();
    Ok(ok(out))
}

// ---- departments ----

pub fn dept_routes(api: Api, base: &str) -> Api {
    let def = api.def("dept");
    let (d1, d2) = (def.clone(), def.clone());
    let read = Guard::read(&def);
    api.read(base, "dept")
        .get(format!("{base}/lazy-list"), read.clone(), |st, s, q| dept_level(st, s, q, false))
        .get(format!("{base}/lazy-tree"), read.clone(), |st, s, q| dept_level(st, s, q, true))
        .get(format!("{base}/tree"), read, dept_tree)
        .post(format!("{base}/submit"), Guard::write(&def, &["add", "edit"]), move |st, s, b| dept_submit(st, s, b, d1))
        .post(format!("{base}/remove"), Guard::write(&def, &["delete"]), move |st, s, p| dept_remove(st, s, p, d2))
}

async fn all_depts(st: &AppState, tenant: &str) -> ApiResult<Vec<Map<String, Value>>> {
    let (def, t) = (st.res.get("dept"), tenant.to_string());
    st.read(move |r| r.all(&def, &t)).await
}

/// GET dept/tree: the caller's tenant's departments as a tree (`tenantId` ignored: the session decides).
async fn dept_tree(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    Ok(ok(dept_tree_data(&st, &s).await?))
}

/// The data of `dept/tree`: shared with the server-rendered user screen.
pub async fn dept_tree_data(st: &AppState, s: &Session) -> ApiResult<Vec<Value>> {
    s.require("dept")?;
    let rows = all_depts(st, &s.tenant).await?;
    Ok(crate::api::system::dict::forest(&rows, "deptName"))
}

/// GET dept/lazy-list?parentId= (records) and dept/lazy-tree?parentId= (tree nodes): one level, with `hasChildren`.
async fn dept_level(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs, nodes: bool) -> ApiResult<Response> {
    s.require("dept")?;
    let parent = parent_param(&q, "parentId")?;
    let rows = all_depts(&st, &s.tenant).await?;
    let def = st.res.get("dept");
    let mut level: Vec<&Map<String, Value>> = rows.iter().filter(|r| idv(r, "parentId") == parent).collect();
    level.sort_by_key(|r| (r.get("sort").and_then(Value::as_i64).unwrap_or(0), idv(r, "id")));
    let out: Vec<Value> = level
        .into_iter()
        .map(|r| {
            let id = idv(r, "id");
            let has = rows.iter().any(|c| idv(c, "parentId") == id);
            if nodes {
                json!({"id": id.to_string(), "parentId": parent.to_string(), "title": r.get("deptName"), "key": id.to_string(), "value": id.to_string(), "hasChildren": has})
            } else {
                let mut rec = crate::wire::record(&def, st.settings.zone, r.clone());
                rec.insert("hasChildren".into(), json!(has));
                Value::Object(rec)
            }
        })
        .collect();
    Ok(ok(out))
}

/// Submit keeping `ancestors` (`0,<root>,...,<parent>`) right, for the record and, when it moves, its subtree.
async fn dept_submit(State(st): State<AppState>, s: Session, JsonObject(mut body): JsonObject, def: Arc<ResourceDef>) -> ApiResult<Response> {
    let id = crud::body_id(&body)?;
    crud::check_write(&s, &def, if id.is_some() { "edit" } else { "add" })?;
    // `parentId` 0 (or "0") is the root.
    let to_root = matches!(body.get("parentId"), Some(Value::String(v)) if v.trim() == "0") || body.get("parentId").and_then(Value::as_i64) == Some(0);
    if to_root {
        body.remove("parentId");
    }
    let mut doc = def.parse_input(&body, id.is_none())?;
    if to_root {
        doc.insert("parentId".into(), json!(0));
    }
    let (d, t, actor) = (def.clone(), s.tenant.clone(), s.actor());
    let saved = st
        .write(move |w| -> store::Result<Result<Map<String, Value>, Kind>> {
            let mut doc = doc.clone();
            let old = match id {
                Some(id) => match w.get(&d, &t, id)? {
                    Some(o) => Some(o),
                    None => return Ok(Err(Kind::NotFound)),
                },
                None => None,
            };
            let parent = match doc.get("parentId") {
                Some(v) if !v.is_null() => store::parse_id_value(v).unwrap_or(0),
                _ => old.as_ref().map(|o| idv(o, "parentId")).unwrap_or(0),
            };
            let ancestors = if parent == 0 {
                "0".to_string()
            } else {
                let Some(p) = w.get(&d, &t, parent)? else { return Ok(Err(Kind::BadParent)) };
                let pa = p.get("ancestors").and_then(Value::as_str).unwrap_or("0").to_string();
                if let Some(me) = id {
                    // Not under itself or its own subtree.
                    if parent == me || pa.split(',').any(|a| a == me.to_string()) {
                        return Ok(Err(Kind::BadParent));
                    }
                }
                format!("{pa},{parent}")
            };
            doc.insert("parentId".into(), json!(parent));
            doc.insert("ancestors".into(), json!(ancestors));
            let Some(me) = id else { return Ok(Ok(w.insert(&d, &t, doc, &actor)?)) };
            let before = old.as_ref().and_then(|o| o.get("ancestors")).and_then(Value::as_str).unwrap_or("0").to_string();
            let saved = w.update(&d, &t, me, doc, &actor)?;
            if before != ancestors {
                let (old_prefix, new_prefix) = (format!("{before},{me}"), format!("{ancestors},{me}"));
                for c in w.all(&d, &t)? {
                    let a = c.get("ancestors").and_then(Value::as_str).unwrap_or("");
                    if a == old_prefix || a.starts_with(&format!("{old_prefix},")) {
                        let mut patch = Map::new();
                        patch.insert("ancestors".into(), json!(format!("{new_prefix}{}", &a[old_prefix.len()..])));
                        w.update(&d, &t, idv(&c, "id"), patch, &actor)?;
                    }
                }
            }
            Ok(Ok(saved))
        })
        .await?
        .map_err(ApiError::new)?;
    Ok(ok(crate::wire::record(&def, st.settings.zone, saved)))
}

/// Removes departments that have no child departments (outside the selection) and no users.
async fn dept_remove(State(st): State<AppState>, s: Session, p: AnyParams, def: Arc<ResourceDef>) -> ApiResult<Response> {
    crud::check_write(&s, &def, "delete")?;
    let ids = crud::removable_ids(&st, &s, &def, p.get("ids")).await?;
    let (d, t, actor, users) = (def.clone(), s.tenant.clone(), s.actor(), st.res.get("user"));
    let n = st
        .write(move |w| -> store::Result<Result<u64, Kind>> {
            let all = w.all(&d, &t)?;
            let live: Vec<u64> = ids.iter().copied().filter(|i| all.iter().any(|r| idv(r, "id") == *i)).collect();
            if live.is_empty() {
                return Ok(Err(Kind::NotFound));
            }
            if all.iter().any(|r| live.contains(&idv(r, "parentId")) && !live.contains(&idv(r, "id"))) {
                return Ok(Err(Kind::HasChildren));
            }
            let in_use = w.all(&users, &t)?.iter().any(|u| {
                crate::auth::session::id_list(u.get("deptId")).iter().any(|dept| live.contains(dept))
            });
            if in_use {
                return Ok(Err(Kind::HasUsers));
            }
            Ok(Ok(w.remove(&d, &t, &live, &actor)?))
        })
        .await?
        .map_err(ApiError::new)?;
    let _ = n;
    Ok(ok(Value::Null))
}

// ---- clients ----

pub fn client_routes(api: Api, base: &str) -> Api {
    let def = api.def("client");
    let g = Guard::write(&def, &["add", "edit"]);
    api.read(base, "client").remove(base, "client").post(format!("{base}/submit"), g, move |st, s, b| secret_submit(st, s, b, def.clone(), hash_client_secret))
}

fn hash_client_secret(doc: &mut Map<String, Value>) {
    if let Some(Value::String(sec)) = doc.get("clientSecret") {
        let h = crate::auth::token::client_secret_hash(sec);
        doc.insert("clientSecret".into(), json!(h));
    }
}

pub use crate::engine::crud::{keep_secrets_on_update, no_prepare, secret_submit};

// ---- regions ----

pub fn region_routes(api: Api, base: &str) -> Api {
    let def = api.def("region");
    let (read, write) = (Guard::read(&def), Guard::write(&def, &["add", "edit"]));
    api.read(base, "region")
        .remove(base, "region")
        .get(format!("{base}/lazy-tree"), read, region_lazy_tree)
        .post(format!("{base}/submit"), write, move |st, s, b| region_submit(st, s, b, def.clone()))
        .get(format!("{base}/pick"), Guard::Signed, region_pick)
        .reads()
        .doc("行政区划 · the region picker of every form (any signed-in user: national codes, no tenant data): parentCode= one level with hasChildren; keyword= up to 20 matches by name or pinyin (initials too) with their full path; code= the path of one code (省 / 市 / 区)", &[])
}

/// A region's path of names, `江苏省 / 南京市 / 鼓楼区`, from its ancestors.
fn region_path(r: &store::ReadCtx, def: &ResourceDef, rec: &Map<String, Value>) -> store::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for code in rec.get("ancestors").and_then(Value::as_str).unwrap_or("").split(',').filter(|c| !c.is_empty() && *c != "00") {
        if let Some(id) = r.find_unique(def, store::PLATFORM_TENANT, "code", code)?
            && let Some(a) = r.get(def, store::PLATFORM_TENANT, id)? {
            out.push((code.to_string(), a.get("name").and_then(Value::as_str).unwrap_or("").to_string()));
        }
    }
    out.push((rec.get("code").and_then(Value::as_str).unwrap_or("").to_string(), rec.get("name").and_then(Value::as_str).unwrap_or("").to_string()));
    Ok(out)
}

fn path_json(path: &[(String, String)]) -> Value {
    let (code, _) = path.last().cloned().unwrap_or_default();
    json!({"code": code, "name": path.last().map(|p| p.1.clone()).unwrap_or_default(),
        "path": path.iter().map(|(c, n)| json!({"code": c, "name": n})).collect::<Vec<_>>(),
        "title": path.iter().map(|(_, n)| n.as_str()).collect::<Vec<_>>().join(" / ")})
}

/// GET region/pick: what the cascading 省/市/区 picker asks (one level, a search, or one code's path).
async fn region_pick(State(st): State<AppState>, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    let def = st.res.get("region");
    let digits = |k: &str| -> ApiResult<Option<String>> {
        match param(&q, k).map(str::trim).filter(|v| !v.is_empty()) {
            Some(v) if v.len() <= 12 && v.bytes().all(|b| b.is_ascii_digit()) => Ok(Some(v.to_string())),
            Some(_) => Err(ApiError::with(Kind::BadFormat, k)),
            None => Ok(None),
        }
    };
    if let Some(code) = digits("code")? {
        let out = st
            .read(move |r| {
                let Some(id) = r.find_unique(&def, store::PLATFORM_TENANT, "code", &code)? else { return Ok(Value::Null) };
                let Some(rec) = r.get(&def, store::PLATFORM_TENANT, id)? else { return Ok(Value::Null) };
                Ok(path_json(&region_path(r, &def, &rec)?))
            })
            .await?;
        return Ok(ok(out));
    }
    let keyword: String = param(&q, "keyword").map(str::trim).unwrap_or("").chars().take(20).collect::<String>().to_lowercase();
    if !keyword.is_empty() {
        let out = st
            .read(move |r| {
                let all = r.list(&def, store::PLATFORM_TENANT, &store::Query { limit: 100_000, ..Default::default() })?.records;
                let ascii = keyword.bytes().all(|b| b.is_ascii_alphabetic());
                let mut hits: Vec<&Map<String, Value>> = all
                    .iter()
                    .filter(|rec| {
                        let name = rec.get("name").and_then(Value::as_str).unwrap_or("");
                        name.contains(keyword.as_str()) || (ascii && search::text::pinyin_words(name).iter().any(|w| w.starts_with(keyword.as_str())))
                    })
                    .collect();
                // Whole syllables first (qixia: 栖霞区 before 祁县, whose qixian only starts so), then deeper levels
                // last, then by code: 鼓楼 finds 鼓楼区 of every city, 江苏 the province first.
                let whole = |rec: &Map<String, Value>| {
                    let name = rec.get("name").and_then(Value::as_str).unwrap_or("");
                    name.contains(keyword.as_str()) || (ascii && search::text::pinyin_words(name).iter().any(|w| *w == keyword))
                };
                hits.sort_by_cached_key(|rec| (!whole(rec), rec.get("regionLevel").and_then(Value::as_i64).unwrap_or(9), rec.get("code").and_then(Value::as_str).unwrap_or("").to_string()));
                hits.into_iter().take(20).map(|rec| region_path(r, &def, rec).map(|p| path_json(&p))).collect::<store::Result<Vec<_>>>()
            })
            .await?;
        return Ok(ok(out));
    }
    let parent = digits("parentCode")?.unwrap_or_else(|| "00".into());
    let out = st
        .read(move |r| {
            let q = store::Query { filters: vec![store::Filter::new("parentCode", store::Op::Equal, json!(parent))], limit: 10_000, ..Default::default() };
            let mut level = r.list(&def, store::PLATFORM_TENANT, &q)?.records;
            level.sort_by(|a, b| a.get("code").and_then(Value::as_str).cmp(&b.get("code").and_then(Value::as_str)));
            level
                .iter()
                .map(|rec| {
                    let code = rec.get("code").and_then(Value::as_str).unwrap_or("");
                    let q = store::Query { filters: vec![store::Filter::new("parentCode", store::Op::Equal, json!(code))], limit: 1, ..Default::default() };
                    Ok(json!({"code": code, "name": rec.get("name"), "regionLevel": rec.get("regionLevel"), "hasChildren": r.list(&def, store::PLATFORM_TENANT, &q)?.total > 0}))
                })
                .collect::<store::Result<Vec<_>>>()
        })
        .await?;
    Ok(ok(out))
}

/// GET region/lazy-tree?parentCode= (default `00`, the provinces): one level as tree nodes keyed by code.
async fn region_lazy_tree(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    s.require("region")?;
    let parent = param(&q, "parentCode").unwrap_or("00").to_string();
    if !parent.bytes().all(|b| b.is_ascii_digit()) || parent.len() > 12 {
        return Err(ApiError::with(Kind::BadFormat, "parentCode"));
    }
    let def = st.res.get("region");
    let p2 = parent.clone();
    let (level, codes_with_children) = st
        .read(move |r| {
            let q = store::Query { filters: vec![store::Filter::new("parentCode", store::Op::Equal, json!(p2))], limit: 10_000, ..Default::default() };
            let level = r.list(&def, store::PLATFORM_TENANT, &q)?.records;
            let mut has = std::collections::HashSet::new();
            for row in &level {
                let code = row.get("code").and_then(Value::as_str).unwrap_or("").to_string();
                let q = store::Query { filters: vec![store::Filter::new("parentCode", store::Op::Equal, json!(code))], limit: 1, ..Default::default() };
                if !r.list(&def, store::PLATFORM_TENANT, &q)?.records.is_empty() {
                    has.insert(code);
                }
            }
            Ok((level, has))
        })
        .await?;
    let mut level = level;
    level.sort_by(|a, b| a.get("code").and_then(Value::as_str).cmp(&b.get("code").and_then(Value::as_str)));
    let out: Vec<Value> = level
        .iter()
        .map(|r| {
            let code = r.get("code").and_then(Value::as_str).unwrap_or("");
            json!({"id": code, "code": code, "parentCode": parent, "parentId": parent, "title": r.get("name"), "name": r.get("name"),
                "key": code, "value": code, "regionLevel": r.get("regionLevel"), "hasChildren": codes_with_children.contains(code)})
        })
        .collect();
    Ok(ok(out))
}

/// Region submit: the parent (by `parentCode`) must exist (`00` is the root) and `ancestors` follows it.
async fn region_submit(State(st): State<AppState>, s: Session, JsonObject(body): JsonObject, def: Arc<ResourceDef>) -> ApiResult<Response> {
    let id = crud::body_id(&body)?;
    crud::check_write(&s, &def, if id.is_some() { "edit" } else { "add" })?;
    let doc = def.parse_input(&body, id.is_none())?;
    let (d, actor) = (def.clone(), s.actor());
    let saved = st
        .write(move |w| -> store::Result<Result<Map<String, Value>, Kind>> {
            let mut doc = doc.clone();
            let old = match id {
                Some(i) => match w.get(&d, store::PLATFORM_TENANT, i)? {
                    Some(o) => Some(o),
                    None => return Ok(Err(Kind::NotFound)),
                },
                None => None,
            };
            let pc = doc.get("parentCode").or_else(|| old.as_ref().and_then(|o| o.get("parentCode"))).and_then(Value::as_str).unwrap_or("00").to_string();
            let ancestors = if pc == "00" {
                "00".to_string()
            } else {
                let Some(pid) = w.find_unique(&d, store::PLATFORM_TENANT, "code", &pc)? else { return Ok(Err(Kind::BadParent)) };
                let p = w.get(&d, store::PLATFORM_TENANT, pid)?.unwrap_or_default();
                format!("{},{pc}", p.get("ancestors").and_then(Value::as_str).unwrap_or("00"))
            };
            let code = doc.get("code").or_else(|| old.as_ref().and_then(|o| o.get("code"))).and_then(Value::as_str).unwrap_or("").to_string();
            if code == pc || ancestors.split(',').any(|a| a == code) {
                return Ok(Err(Kind::BadParent));
            }
            doc.insert("ancestors".into(), json!(ancestors));
            Ok(Ok(match id {
                Some(i) => w.update(&d, store::PLATFORM_TENANT, i, doc, &actor)?,
                None => w.insert(&d, store::PLATFORM_TENANT, doc, &actor)?,
            }))
        })
        .await?
        .map_err(ApiError::new)?;
    Ok(ok(crate::wire::record(&def, st.settings.zone, saved)))
}
