//! Route dialects of declared resources. A declaration's `api` states how its clients call it when that is not
//! the generic Blade shape (`list`/`detail`/`submit`/`remove` with query ids): the `blade-scm` services take list
//! filters in a JSON body with `page`/`size`, `add`/`update`, `detail/{id}` and `delete/...` with path
//! segments. From the declaration the engine serves every route, checks every path segment (a record that does
//! not belong to the named parent is a 404, like one of another tenant), generates codes, checks that the
//! records a field names exist, refuses to remove a record others still name, records changes, and documents it
//! all in `openapi.json`. Areas hand-write only real behaviour, as `Rules` run inside the same write
//! (`engine::rules`, the write path this shares with every import and hand-written route).
//!
//! ```json
//! "api": {
//!   "base": "/api/blade-scm/contract", "screen": "/contract/index", "pageSize": 10,
//!   "routes": {"list": "POST list", "add": "POST add", "update": "POST update",
//!              "detail": "POST detail/{id}", "delete": "POST delete/{id}/{parentId}"},
//!   "filters": {"signedFrom": "signDate_ge"}, "parent": "projectId",
//!   "code": {"field": "contractCode", "prefix": "HT"}, "history": true
//! }
//! ```
//! Path placeholders: `{id}` the record, `{ids}` comma-separated records, `{parentId}` the record named by the
//! `parent` field that each record must belong to, `{<field>}` a declared field whose value each record must have
//! (`delete/{productType}/{id}/{productStatus}`: a product of another type or status is a 404); other segments
//! are literal (`delete/{id}/{parentId}/1`).
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::ResourceDef;

use crate::auth::session::Session;
use crate::engine::crud;
pub use crate::decl::api::{Action, ApiDecl, CodeRule, split_route};
pub use crate::engine::rules::{Ctx, Env, RemoveRule, Rules, SaveRule, SavedRule, Statuses, after, after_i64, after_id, check_refs, check_unused, record_change, remove_in_write, status_name, write, write_in};
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, JsonObject, json_bytes, ok};
use crate::state::AppState;

/// Everything one served resource needs in its handlers.
#[derive(Clone)]
struct Served {
    def: Arc<ResourceDef>,
    decl: Arc<ApiDecl>,
    rules: Rules,
}

impl Api {
    /// Every route of a declared resource's dialect, plus `schema` and `export` for the UI.
    pub fn declared(self, name: &str, rules: Rules) -> Api {
        let decl = self.res.decl(name).unwrap_or_else(|| panic!("resource {name} declares no api"));
        let mut api = self.declared_at(name, rules, decl.clone());
        for base in &decl.also {
            api = api.declared_at(name, rules, Arc::new(ApiDecl { base: base.clone(), also: Vec::new(), ..(*decl).clone() }));
        }
        api
    }

    /// The routes of one base of a declared resource.
    fn declared_at(self, name: &str, rules: Rules, decl: Arc<ApiDecl>) -> Api {
        let def = self.def(name);
        let sv = Served { def: def.clone(), decl: decl.clone(), rules };
        let mut api = self.base(&decl.base, name);
        let (api_base, d5, d6) = (decl.base.clone(), def.clone(), def.clone());
        api = api
            .get(format!("{}/schema", decl.base), Guard::read(&def), move |st, s, l| crud::schema_route(st, s, l, d5, api_base))
            .get(format!("{}/export", decl.base), Guard::read(&def), move |st, s, q, l| crate::engine::xlsx::export(st, s, q, l, d6));
        if decl.import {
            let (d7, d8) = (def.clone(), def.clone());
            let label = def.label.clone();
            api = api
                .get(format!("{}/import-template", decl.base), Guard::write(&def, &["add"]), move |st, s, l| crate::engine::xlsx::template(st, s, l, d7))
                .doc(&format!("{label} · the Excel import template: the columns to fill in (required ones in red) and a sheet of notes per column"), &[])
                .post_upload(format!("{}/import", decl.base), Guard::write(&def, &["add"]), move |st, s, q, req| crate::engine::xlsx::import(st, s, q, d8, rules, req))
                .doc(
                    &format!("{label} · import records from an Excel file (multipart `file`, columns by their header as in the template or an export); all rows or none, a refused row named by its number; answers {{inserted, updated, skipped}}"),
                    &[("isCovered", "query: 1 updates the records whose code a row names (needs the edit code too); otherwise such rows are skipped")],
                );
        }
        for action in decl.routes.keys().copied() {
            let Some((method, path)) = decl.path(action) else { continue };
            let guard = match action {
                Action::List | Action::Page | Action::Detail => Guard::read(&def),
                Action::Add => Guard::write(&def, &["add"]),
                Action::Update => Guard::write(&def, &["edit"]),
                Action::Save | Action::Submit => Guard::write(&def, &["add", "edit"]),
                Action::Remove | Action::Delete | Action::BatchDelete => Guard::write(&def, &["delete"]),
            };
            let sv = sv.clone();
            api = match action {
                Action::List | Action::Page => {
                    let h = move |st, s, p| list(st, s, p, sv);
                    if method == "GET" { api.get(path, guard, h) } else { api.post(path, guard, h).reads() }
                }
                Action::Detail => {
                    if path.contains('{') {
                        let h = move |st, s, seg, p| detail(st, s, seg, p, sv);
                        if method == "GET" { api.get(path, guard, h) } else { api.post(path, guard, h).reads() }
                    } else {
                        let h = move |st, s, p| detail(st, s, Path(Vec::new()), p, sv);
                        if method == "GET" { api.get(path, guard, h) } else { api.post(path, guard, h).reads() }
                    }
                }
                Action::Add | Action::Update | Action::Save | Action::Submit => api.post(path, guard, move |st, s, b| save(st, s, b, action, sv)),
                Action::Remove => api.post(path, guard, move |st, s, p: AnyParams| async move {
                    let ids = crud::parse_ids(p.get("ids"))?;
                    delete_ids(st, s, ids, None, Vec::new(), sv).await
                }),
                Action::Delete | Action::BatchDelete => api.post(path, guard, move |st, s, seg| delete(st, s, seg, sv)),
            };
        }
        api
    }
}

/// `list` / `page`: filters from the query and the body; `page` (or `current`) and `size` page it.
async fn list(State(st): State<AppState>, s: Session, p: AnyParams, sv: Served) -> ApiResult<Response> {
    let mut pairs = Vec::new();
    let mut sized = false;
    for (k, v) in p.0 {
        match k.as_str() {
            "page" | "current" => pairs.push(("current".to_string(), v)),
            "size" => {
                sized = !v.trim().is_empty();
                pairs.push((k, v));
            }
            _ => match sv.decl.filters.get(&k) {
                Some(to) => pairs.push((to.clone(), v)),
                None => pairs.push((k, v)),
            },
        }
    }
    if !sized {
        pairs.push(("size".into(), sv.decl.page_size.to_string()));
    }
    if let Some(sort) = &sv.decl.default_sort
        && !pairs.iter().any(|(k, v)| matches!(k.as_str(), "ascs" | "descs") && !v.trim().is_empty()) {
        pairs.extend(serde_urlencoded::from_str::<Vec<(String, String)>>(sort).unwrap_or_default());
    }
    let mut key = pairs.clone();
    key.sort();
    let raw = serde_urlencoded::to_string(&key).unwrap_or_default();
    Ok(json_bytes(crud::list_body(&st, &s, &raw, &pairs, &sv.def).await?))
}

/// The id of a route's `{id}` segment, or of `?id=` / the body's `id`.
fn seg<'a>(segs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    segs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

async fn detail(State(st): State<AppState>, s: Session, Path(segs): Path<Vec<(String, String)>>, p: AnyParams, sv: Served) -> ApiResult<Response> {
    s.require(sv.def.code())?;
    let id = crud::parse_id(seg(&segs, "id").or_else(|| p.get("id")))?;
    let rec = crud::get_scoped(&st, &s, &sv.def, id).await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &sv.def, rec).await?))
}

async fn save(State(st): State<AppState>, s: Session, JsonObject(mut body): JsonObject, action: Action, sv: Served) -> ApiResult<Response> {
    if action == Action::Add {
        body.remove("id");
    }
    let id = crud::body_id(&body)?;
    if action == Action::Update && id.is_none() {
        return Err(ApiError::with(Kind::Missing, "id"));
    }
    crud::check_write(&s, &sv.def, if id.is_some() { "edit" } else { "add" })?;
    crud::check_target(&st, &s, &sv.def, id, &body).await?;
    // A masked value (`3201**********1234`) sent back unchanged keeps what is stored.
    for f in sv.def.fields.iter().filter(|f| f.mask) {
        if id.is_some() && body.get(&f.name).and_then(Value::as_str).is_some_and(|v| v.contains('*')) {
            body.remove(&f.name);
        }
    }
    let doc = sv.def.parse_input(&body, id.is_none())?;
    let keep = if id.is_none() { crate::auth::scope::guard(&st, &s, &sv.def).await? } else { None };
    let saved = crate::engine::rules::write_kept(&st, &s, &sv.def, sv.rules, id, doc, keep).await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &sv.def, saved).await?))
}

async fn delete(State(st): State<AppState>, s: Session, Path(segs): Path<Vec<(String, String)>>, sv: Served) -> ApiResult<Response> {
    let ids = match (seg(&segs, "id"), seg(&segs, "ids")) {
        (Some(id), _) => vec![crud::parse_id(Some(id))?],
        (None, ids) => crud::parse_ids(ids)?,
    };
    // `{parentId}` 0: the record belongs to no parent.
    let parent = match seg(&segs, "parentId") {
        Some("0") => Some(0),
        Some(p) => Some(crud::parse_id(Some(p))?),
        None => None,
    };
    // `{<field>}`: the value each record must have.
    let values: Vec<(String, String)> = segs.iter().filter(|(k, _)| !matches!(k.as_str(), "id" | "ids" | "parentId")).cloned().collect();
    delete_ids(State(st), s, ids, parent, values, sv).await
}

/// Removes records of the tenant (data scope, parent and field segments and rules checked in the write): all or
/// none.
async fn delete_ids(State(st): State<AppState>, s: Session, ids: Vec<u64>, parent: Option<u64>, values: Vec<(String, String)>, sv: Served) -> ApiResult<Response> {
    crud::check_write(&s, &sv.def, "delete")?;
    let guard = crate::auth::scope::guard(&st, &s, &sv.def).await?;
    remove_in_write(&st, &s, &sv.def, sv.rules, ids, parent, values, guard).await?;
    Ok(ok(Value::Null))
}

/// The contract of a dialect route (`openapi.json`): parameters, body and answer.
pub fn openapi(def: &ResourceDef, decl: &ApiDecl, path: &str) -> Option<(Vec<Value>, Value, Value, String)> {
    let action = decl.routes.keys().copied().find(|a| decl.path(*a).is_some_and(|(_, p)| p == path))?;
    let item = json!({"$ref": format!("#/components/schemas/{}", crate::decl::api::schema_name(&def.name))});
    let parent = decl.parent.as_deref().and_then(|p| def.field(p));
    let mut params = Vec::new();
    for h in path.split('/').filter(|s| s.starts_with('{')) {
        let name = h.trim_matches(|c| c == '{' || c == '}');
        let what = match name {
            "id" => format!("id of the {} (another tenant's, or one outside the caller's data scope: 404)", def.label),
            "ids" => format!("comma-separated ids of {} records (all removed or none)", def.label),
            "parentId" => format!(
                "id of the {} the record must belong to (its `{}`); a record of another is a 404",
                parent.map(|f| f.label.as_str()).unwrap_or(""),
                decl.parent.as_deref().unwrap_or("")
            ),
            field => {
                let label = def.field(field).map(|f| f.label.as_str()).unwrap_or(field);
                let what = format!("the record's {label} (`{field}`): each record must have this value, else 404");
                params.push(json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}, "description": what}));
                continue;
            }
        };
        params.push(json!({"name": name, "in": "path", "required": true, "schema": {"type": "string", "pattern": "^[0-9,]+$"}, "description": what}));
    }
    let (body, data, summary) = match action {
        Action::List | Action::Page => {
            let mut props = Map::new();
            props.insert("page".into(), json!({"type": "integer", "description": "page number from 1 (default 1; `current` too)"}));
            props.insert("size".into(), json!({"type": "integer", "description": format!("rows per page (default {}; 1–1000)", decl.page_size)}));
            for f in def.fields.iter().filter(|f| f.filter) {
                props.insert(f.name.clone(), json!({"type": "string", "description": format!("{} ({})", f.label, if matches!(f.kind, store::FieldKind::Text | store::FieldKind::Textarea) { "contains" } else { "equals" })}));
            }
            for (k, v) in &decl.filters {
                props.insert(k.clone(), json!({"type": "string", "description": format!("the Blade filter {v}")}));
            }
            let body = json!({"type": "object", "description": "filters (also accepted as query parameters); field_suffix operators as in Blade lists", "properties": props});
            let data = json!({"allOf": [{"$ref": "#/components/schemas/Page"}, {"properties": {"records": {"items": item}}}]});
            (body, data, format!("{} · list", def.label))
        }
        Action::Detail => (Value::Null, item, format!("{} · detail", def.label)),
        Action::Add => (item.clone(), item, format!("{} · add{}", def.label, code_note(decl))),
        Action::Update => (item.clone(), item, format!("{} · update (id required)", def.label)),
        Action::Save | Action::Submit => (item.clone(), item, format!("{} · insert without id, update with one{}", def.label, code_note(decl))),
        Action::Remove => {
            params.push(json!({"name": "ids", "in": "query", "required": true, "schema": {"type": "string"}, "description": "comma-separated ids (soft delete)"}));
            (Value::Null, Value::Null, format!("{} · remove (a record others still refer to is refused, 400)", def.label))
        }
        Action::Delete | Action::BatchDelete => (Value::Null, Value::Null, format!("{} · delete (soft; all or none; a record others still refer to is refused, 400)", def.label)),
    };
    Some((params, body, data, summary))
}

fn code_note(decl: &ApiDecl) -> String {
    match &decl.code {
        Some(c) => format!(" ({} generated when empty: {}yyyyMMdd-0001 per tenant and day)", c.field, c.prefix),
        None => String::new(),
    }
}

