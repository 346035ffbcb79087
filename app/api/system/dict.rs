//! Dictionaries: `dict` (platform-wide) and `dictbiz` (per tenant) share these handlers. A dictionary is a
//! parent row (`parentId = 0`, `dictKey = -1`) plus child rows that inherit its `code`. Sealed entries
//! (`isSealed = 1`) cannot be changed or removed; removing a parent removes its children.
use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::ResourceDef;

use crate::engine::{Api, Guard};
use crate::engine::crud;
use crate::api::system::tree::{self, id as idv};
use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind, Lang};
use crate::http::{AnyParams, JsonObject, QueryPairs, json_bytes, ok};
use crate::state::AppState;

/// `<base>/list|parent-list|child-list|tree|dictionary|detail|submit|remove|schema|export` for `dict` or `dictbiz`.
pub fn routes(api: Api, base: &str, name: &str) -> Api {
    let def = api.def(name);
    let (d1, d2, d3, d4, d5, d6) = (def.clone(), def.clone(), def.clone(), def.clone(), def.clone(), def.clone());
    let read = Guard::read(&def);
    api.read(base, name)
        .get(format!("{base}/parent-list"), read.clone(), move |st, s, raw: RawQuery, QueryPairs(q)| scoped_list(st, s, raw, q, d1, None))
        .get(format!("{base}/child-list"), read.clone(), move |st, s, raw: RawQuery, QueryPairs(q)| child_list(st, s, raw, q, d2))
        .get(format!("{base}/tree"), read, move |st, s, q| tree(st, s, q, d3))
        // Dictionaries bind every form's options: any signed-in user reads them.
        .get(format!("{base}/dictionary"), Guard::Signed, move |st, s, q, l| dictionary_of(st, s, q, l, d4))
        .post(format!("{base}/submit"), Guard::write(&def, &["add", "edit"]), move |st, s, b| submit(st, s, b, d5))
        .post(format!("{base}/remove"), Guard::write(&def, &["delete"]), move |st, s, p| remove(st, s, p, d6))
}

/// `bladeDict` (spec §7, prefix-less): the work-list app's business dictionary (`code=work_list_app`), served by
/// the business dictionary's own functions (the work-order area names the dictionary; the system area serves it) — its entries, submit, and `deleteByIds`.
pub fn blade_dict_routes(api: Api) -> Api {
    let def = api.def("dictbiz");
    let (d1, d2, d3) = (def.clone(), def.clone(), def.clone());
    api.get("/bladeDict/list", Guard::Signed, move |st, s, q, l| dictionary_of(st, s, q, l, d1))
        .reads()
        .doc("工单 · the entries of a business dictionary (query: code, e.g. work_list_app): the work-list app's options", &[])
        .post("/bladeDict/submit", Guard::write(&def, &["add", "edit"]), move |st, s, b| submit(st, s, b, d2))
        .doc("工单 · add or change a business-dictionary entry (as dict-biz/submit)", &[])
        .post("/bladeDict/deleteByIds", Guard::write(&def, &["delete"]), move |st, s, p| remove(st, s, p, d3))
        .doc("工单 · remove business-dictionary entries (ids; sealed entries refused, as dict-biz/remove)", &[])
}

/// A list with one extra `parentId_equal` filter (the cache key carries it too).
async fn scoped_list(State(st): State<AppState>, s: Session, raw: RawQuery, q: Vec<(String, String)>, def: Arc<ResourceDef>, parent: Option<u64>) -> ApiResult<Response> {
    Ok(json_bytes(scoped_list_body(&st, &s, raw.0.as_deref().unwrap_or(""), q, &def, parent).await?))
}

/// The answer of `parent-list` (`parent` None) or `child-list`: shared with the server-rendered first screen.
pub async fn scoped_list_body(st: &AppState, s: &Session, raw: &str, mut q: Vec<(String, String)>, def: &Arc<ResourceDef>, parent: Option<u64>) -> ApiResult<bytes::Bytes> {
    q.retain(|(k, _)| !k.starts_with("parentId"));
    let p = parent.unwrap_or(0).to_string();
    q.push(("parentId_equal".into(), p.clone()));
    let raw = format!("{raw}&parentId_equal={p}");
    crud::list_body(st, s, &raw, &q, def).await
}

/// GET child-list?parentId=: the entries below one dictionary as a plain array (BladeX `R<List<DictVO>>`, which
/// the Saber client binds directly), nested where an entry has children of its own, sorted, filtered by the
/// declared filters. Dictionaries are small: read whole.
async fn child_list(State(st): State<AppState>, s: Session, _raw: RawQuery, q: Vec<(String, String)>, def: Arc<ResourceDef>) -> ApiResult<Response> {
    let pid = crud::parse_id(q.iter().rev().find(|(k, _)| k == "parentId").map(|(_, v)| v.as_str()))
        .map_err(|e| if e.kind == Kind::Missing { ApiError::with(Kind::Missing, "parentId") } else { e })?;
    let rest: Vec<(String, String)> = q.into_iter().filter(|(k, _)| !k.starts_with("parentId")).collect();
    let query = crate::engine::listq::parse(&def, st.settings.zone, &rest)?;
    let guard = crate::auth::scope::guard(&st, &s, &def).await?;
    let (d, t) = (def.clone(), s.tenant.clone());
    let rows = st.read(move |r| r.all(&d, &t)).await?;
    // Everything below `pid`, whatever its depth.
    let mut below: std::collections::HashSet<u64> = std::collections::HashSet::from([pid]);
    loop {
        let n = below.len();
        for r in &rows {
            if below.contains(&idv(r, "parentId")) {
                below.insert(idv(r, "id"));
            }
        }
        if below.len() == n {
            break;
        }
    }
    let kept: Vec<Map<String, Value>> = rows
        .into_iter()
        .filter(|r| idv(r, "id") != pid && below.contains(&idv(r, "id")))
        .filter(|r| query.filters.iter().all(|f| f.matches(r)) && crate::auth::scope::admits(&guard, r))
        .collect();
    let zone = st.settings.zone;
    let labels = crate::engine::crud::Labels::load(&st, &def).await?;
    Ok(ok(tree::build(&kept, &|m| {
        let mut o = crate::wire::record(&def, zone, m.clone());
        labels.decorate(&mut o);
        o
    })))
}

/// GET tree?code=DICT: the whole dictionary forest (or one dictionary's) as BladeX tree nodes.
async fn tree(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs, def: Arc<ResourceDef>) -> ApiResult<Response> {
    s.require(&def.name)?;
    let code = q.iter().find(|(k, _)| k == "code").map(|(_, v)| v.trim().to_string()).unwrap_or_default();
    let (d, t) = (def.clone(), s.tenant.clone());
    let mut rows = st.read(move |r| r.all(&d, &t)).await?;
    if !code.is_empty() && code != "DICT" {
        rows.retain(|r| r.get("code").and_then(Value::as_str) == Some(code.as_str()));
    }
    Ok(ok(forest(&rows, "dictValue")))
}

/// Rows with `id`/`parentId` as a forest of `{id, parentId, title, key, value, hasChildren, children}`, by sort.
pub fn forest(rows: &[Map<String, Value>], title: &str) -> Vec<Value> {
    tree::build(rows, &|r| {
        let id = idv(r, "id").to_string();
        let mut n = Map::new();
        n.insert("id".into(), json!(id));
        n.insert("parentId".into(), json!(idv(r, "parentId").to_string()));
        n.insert("title".into(), r.get(title).cloned().unwrap_or(Value::Null));
        n.insert("key".into(), json!(id));
        n.insert("value".into(), json!(id));
        for k in ["code", "dictKey", "sort"] {
            if let Some(v) = r.get(k) {
                n.insert(k.into(), v.clone());
            }
        }
        n
    })
}

/// GET `dict/dictionary?code=`: the entries of one dictionary, sorted, labels in the client's language. Any
/// signed-in user may read dictionaries (screens bind them).
pub async fn dictionary(st: State<AppState>, s: Session, q: QueryPairs, lang: axum::Extension<Lang>) -> ApiResult<Response> {
    let def = st.res.get("dict");
    dictionary_of(st, s, q, lang, def).await
}

pub(crate) async fn dictionary_of(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs, lang: axum::Extension<Lang>, def: Arc<ResourceDef>) -> ApiResult<Response> {
    let code = q.iter().find(|(k, _)| k == "code").map(|(_, v)| v.trim().to_string()).unwrap_or_default();
    if code.is_empty() {
        return Err(ApiError::with(Kind::Missing, "code"));
    }
    Ok(ok(dictionary_data(&st, &s, &def, &code, lang.0).await?))
}

/// The answer of `dictionary?code=` (entries of one dictionary, labels in `lang`): shared with the
/// server-rendered screens that bind dictionaries.
pub async fn dictionary_data(st: &AppState, s: &Session, def: &ResourceDef, code: &str, lang: Lang) -> ApiResult<Vec<Value>> {
    let entries = entries_in(st, &def.name, &s.tenant, code).await?;
    let out: Vec<Value> = entries
        .into_iter()
        .map(|e| {
            let label = match lang {
                Lang::En => e.get("dictValueEn").and_then(Value::as_str).filter(|s| !s.is_empty()),
                Lang::Zh => None,
            }
            .or_else(|| e.get("dictValue").and_then(Value::as_str))
            .unwrap_or("")
            .to_string();
            json!({
                "id": crate::wire::id_str(&e["id"]), "parentId": crate::wire::id_str(&e["parentId"]), "code": e.get("code"),
                "dictKey": e.get("dictKey"), "dictValue": label, "sort": e.get("sort"), "remark": e.get("remark"),
                "isSealed": e.get("isSealed"),
            })
        })
        .collect();
    Ok(out)
}

pub use crate::engine::dict::{entries, entries_in};

fn blank(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.trim().is_empty(),
        _ => false,
    }
}

/// The form's own on-blur messages for missing fields (spec §5).
fn check_required(body: &Map<String, Value>, insert: bool, child: bool) -> ApiResult<()> {
    let need = |k: &str| if insert { blank(body.get(k)) } else { body.contains_key(k) && blank(body.get(k)) };
    if !child && need("code") {
        return Err(ApiError::new(Kind::DictCodeRequired));
    }
    if need("dictValue") {
        return Err(ApiError::new(Kind::DictNameRequired));
    }
    if need("sort") {
        return Err(ApiError::new(Kind::DictSortRequired));
    }
    if body.contains_key("isSealed") && blank(body.get("isSealed")) {
        return Err(ApiError::new(Kind::DictSealedRequired));
    }
    if child && need("dictKey") {
        return Err(ApiError::new(Kind::DictKeyRequired));
    }
    Ok(())
}

fn sealed(m: &Map<String, Value>) -> bool {
    m.get("isSealed").and_then(Value::as_i64) == Some(1)
}

pub(crate) async fn submit(State(st): State<AppState>, s: Session, JsonObject(mut body): JsonObject, def: Arc<ResourceDef>) -> ApiResult<Response> {
    let id = crud::body_id(&body)?;
    crud::check_write(&s, &def, if id.is_some() { "edit" } else { "add" })?;
    let parent_in = match body.get("parentId") {
        None | Some(Value::Null) => 0,
        Some(Value::String(v)) if v.is_empty() => 0,
        Some(v) => store::parse_id_value(v).or_else(|| (v.as_i64() == Some(0) || v.as_str() == Some("0")).then_some(0)).ok_or_else(|| ApiError::with(Kind::BadId, "parentId"))?,
    };
    // Children inherit the parent's code; the parent cannot change on edit.
    let child_hint = id.is_none() && parent_in != 0;
    check_required(&body, id.is_none(), child_hint)?;
    if child_hint {
        body.remove("code");
    }
    body.remove("parentId");
    let mut doc = def.parse_input(&body, false)?;
    if id.is_none() {
        doc.entry("isSealed").or_insert(json!(0));
        if doc.get("isSealed").is_some_and(Value::is_null) {
            doc.insert("isSealed".into(), json!(0));
        }
    }
    let (d, t, actor) = (def.clone(), s.tenant.clone(), s.actor());
    let saved = st
        .write(move |w| -> store::Result<Result<Map<String, Value>, Kind>> {
            let mut doc = doc.clone();
            let all = w.all(&d, &t)?;
            let (old, parent_id) = match id {
                Some(id) => {
                    let Some(old) = w.get(&d, &t, id)? else { return Ok(Err(Kind::NotFound)) };
                    if sealed(&old) {
                        return Ok(Err(Kind::Sealed));
                    }
                    let p = idv(&old, "parentId");
                    (Some(old), p)
                }
                None => (None, parent_in),
            };
            if parent_id != 0 {
                let Some(parent) = w.get(&d, &t, parent_id)? else { return Ok(Err(Kind::NotFound)) };
                if idv(&parent, "parentId") != 0 {
                    return Ok(Err(Kind::BadParent));
                }
                doc.insert("code".into(), parent.get("code").cloned().unwrap_or(Value::Null));
                let key = doc.get("dictKey").cloned().or_else(|| old.as_ref().and_then(|o| o.get("dictKey").cloned()));
                if key.as_ref().is_none_or(|k| blank(Some(k))) {
                    return Ok(Err(Kind::DictKeyRequired));
                }
                let clash = all.iter().any(|r| idv(r, "parentId") == parent_id && Some(idv(r, "id")) != id && r.get("dictKey") == key.as_ref());
                if clash {
                    return Ok(Err(Kind::DictKeyTaken));
                }
            } else {
                doc.insert("dictKey".into(), json!("-1"));
                let code = doc.get("code").cloned().or_else(|| old.as_ref().and_then(|o| o.get("code").cloned()));
                let clash = all.iter().any(|r| idv(r, "parentId") == 0 && Some(idv(r, "id")) != id && r.get("code") == code.as_ref());
                if clash {
                    return Ok(Err(Kind::DictCodeTaken));
                }
            }
            doc.insert("parentId".into(), json!(parent_id));
            let saved = match id {
                Some(id) => {
                    let saved = w.update(&d, &t, id, doc.clone(), &actor)?;
                    // A parent's new code goes to its children, so they keep sharing it.
                    if parent_id == 0 && old.as_ref().and_then(|o| o.get("code")) != saved.get("code") {
                        for c in all.iter().filter(|r| idv(r, "parentId") == id) {
                            let mut patch = Map::new();
                            patch.insert("code".into(), saved.get("code").cloned().unwrap_or(Value::Null));
                            w.update(&d, &t, idv(c, "id"), patch, &actor)?;
                        }
                    }
                    saved
                }
                None => w.insert(&d, &t, doc.clone(), &actor)?,
            };
            Ok(Ok(saved))
        })
        .await?
        .map_err(ApiError::new)?;
    Ok(ok(crate::wire::record(&def, st.settings.zone, saved)))
}

pub(crate) async fn remove(State(st): State<AppState>, s: Session, p: AnyParams, def: Arc<ResourceDef>) -> ApiResult<Response> {
    crud::check_write(&s, &def, "delete")?;
    let ids = crud::removable_ids(&st, &s, &def, p.get("ids")).await?;
    let (d, t, actor) = (def.clone(), s.tenant.clone(), s.actor());
    st.write(move |w| -> store::Result<Result<u64, Kind>> {
        let mut doomed = Vec::new();
        for id in &ids {
            let Some(row) = w.get(&d, &t, *id)? else { continue };
            if sealed(&row) {
                return Ok(Err(Kind::Sealed));
            }
            doomed.push(*id);
        }
        if doomed.is_empty() {
            return Ok(Err(Kind::NotFound));
        }
        let parents = doomed.clone();
        for c in w.all(&d, &t)?.iter().filter(|r| parents.contains(&idv(r, "parentId"))) {
            if sealed(c) {
                return Ok(Err(Kind::Sealed));
            }
            let cid = idv(c, "id");
            if !doomed.contains(&cid) {
                doomed.push(cid);
            }
        }
        Ok(Ok(w.remove(&d, &t, &doomed, &actor)?))
    })
    .await?
    .map_err(ApiError::new)?;
    Ok(ok(Value::Null))
}
