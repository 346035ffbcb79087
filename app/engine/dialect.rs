//! Route dialects of declared resources. A declaration's `api` states how its clients call it when that is not
//! the generic Blade shape (`list`/`detail`/`submit`/`remove` with query ids): the `blade-scm` services take list
//! filters in a JSON body with `page`/`size`, `add`/`update`, `detail/{id}` and `delete/...` with path
//! segments. From the declaration the engine serves every route, checks every path segment (a record that does
//! not belong to the named parent is a 404, like one of another tenant), generates codes, checks that the
//! records a field names exist, refuses to remove a record others still name, records changes, and documents it
//! all in `openapi.json`. Areas hand-write only real behaviour, as `Rules` run inside the same write.
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
use store::{Actor, Filter, Op, Query, ResourceDef, StoreError, WriteCtx};

use crate::auth::session::Session;
use crate::engine::crud;
use crate::decl::Resources;
pub use crate::decl::api::{Action, ApiDecl, CodeRule, split_route};
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind, rule};
use crate::http::{AnyParams, JsonObject, json_bytes, ok};
use crate::state::AppState;

/// Who writes, in which tenant and when: owned, so it moves into a write transaction, where `cx()` lends it to
/// the rules.
pub struct Env {
    pub tenant: String,
    pub actor: Actor,
    pub res: Resources,
    pub now: String,
}

impl Env {
    pub fn new(st: &AppState, s: &Session) -> Env {
        Env { tenant: s.tenant.clone(), actor: s.actor(), res: st.res.clone(), now: st.settings.zone.format(store::now_millis()) }
    }
    pub fn cx(&self) -> Ctx<'_> {
        Ctx { tenant: &self.tenant, actor: &self.actor, res: &self.res, now: &self.now }
    }
}

/// What a business rule sees of the write it runs in.
pub struct Ctx<'a> {
    pub tenant: &'a str,
    pub actor: &'a Actor,
    pub res: &'a Resources,
    /// Local time of the write, `yyyy-MM-dd HH:mm:ss`.
    pub now: &'a str,
}

impl Ctx<'_> {
    pub fn def(&self, name: &str) -> Arc<ResourceDef> {
        self.res.get(name)
    }
}

/// A rule run before a record is written, inside the write's transaction: `old` is the stored record (None on
/// insert), `doc` the fields being written (it may change them). An error refuses the whole write.
pub type SaveRule = fn(&mut WriteCtx, &Ctx, Option<&Map<String, Value>>, &mut Map<String, Value>) -> store::Result<()>;
/// A rule run before a record is removed, inside the removal's transaction.
pub type RemoveRule = fn(&mut WriteCtx, &Ctx, &Map<String, Value>) -> store::Result<()>;
/// A rule run after a record is written, in the same transaction, with the stored record before (None on
/// insert) and after: records that follow from the change (a signed contract's ledger entry).
pub type SavedRule = fn(&mut WriteCtx, &Ctx, Option<&Map<String, Value>>, &Map<String, Value>) -> store::Result<()>;

/// The hand-written behaviour of a resource served by a dialect.
#[derive(Clone, Copy, Default)]
pub struct Rules {
    pub save: Option<SaveRule>,
    pub remove: Option<RemoveRule>,
    pub saved: Option<SavedRule>,
    /// Other areas' rules run after `saved` (`api::Area::after`).
    pub after: &'static [SavedRule],
}

/// A status table of a business record: value, Chinese and English name.
pub type Statuses = &'static [(i64, &'static str, &'static str)];

/// The Chinese and English names of a status value (`?` for one the table does not know).
pub fn status_name(table: Statuses, v: i64) -> (&'static str, &'static str) {
    table.iter().find(|(k, ..)| *k == v).map(|(_, zh, en)| (*zh, *en)).unwrap_or(("?", "?"))
}

/// A field's value after a write: the new value if written, else the stored one.
pub fn after<'a>(old: Option<&'a Map<String, Value>>, doc: &'a Map<String, Value>, field: &str) -> Option<&'a Value> {
    match doc.get(field) {
        Some(v) => Some(v),
        None => old.and_then(|o| o.get(field)),
    }
}

/// `after` as an integer (absent or null → None).
pub fn after_i64(old: Option<&Map<String, Value>>, doc: &Map<String, Value>, field: &str) -> Option<i64> {
    after(old, doc, field).and_then(Value::as_i64)
}

/// `after` as an id.
pub fn after_id(old: Option<&Map<String, Value>>, doc: &Map<String, Value>, field: &str) -> Option<u64> {
    after(old, doc, field).and_then(Value::as_u64).filter(|i| *i > 0)
}

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
        let def = self.def(name);
        let decl = self.res.decl(name).unwrap_or_else(|| panic!("resource {name} declares no api"));
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
                Action::Save => Guard::write(&def, &["add", "edit"]),
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
                Action::Add | Action::Update | Action::Save => api.post(path, guard, move |st, s, b| save(st, s, b, action, sv)),
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
    if let Some(id) = id {
        crud::get_scoped(&st, &s, &sv.def, id).await?;
    }
    // A masked value (`3201**********1234`) sent back unchanged keeps what is stored.
    for f in sv.def.fields.iter().filter(|f| f.mask) {
        if id.is_some() && body.get(&f.name).and_then(Value::as_str).is_some_and(|v| v.contains('*')) {
            body.remove(&f.name);
        }
    }
    let doc = sv.def.parse_input(&body, id.is_none())?;
    let saved = write(&st, &s, &sv.def, sv.rules, id, doc).await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &sv.def, saved).await?))
}

/// Inserts (`id` None) or updates a record through its declaration's rules in one write transaction: the code,
/// the records its fields name, the resource's own rules, the change record. Hand-written routes write through
/// it too, so a rule holds whichever route changes the record.
pub async fn write(st: &AppState, s: &Session, def: &Arc<ResourceDef>, rules: Rules, id: Option<u64>, doc: Map<String, Value>) -> ApiResult<Map<String, Value>> {
    let (d, env) = (def.clone(), Env::new(st, s));
    st.write(move |w| write_in(w, &env.cx(), &d, rules, id, doc.clone())).await
}

/// `write` inside a transaction that is already open (hand-written behaviour that writes several records).
pub fn write_in(
    w: &mut WriteCtx,
    cx: &Ctx,
    def: &ResourceDef,
    rules: Rules,
    id: Option<u64>,
    mut doc: Map<String, Value>,
) -> store::Result<Map<String, Value>> {
    let decl = cx.res.decl(&def.name);
    let decl = decl.as_deref();
    let old = match id {
        Some(id) => Some(w.get(def, cx.tenant, id)?.ok_or(StoreError::NotFound)?),
        None => None,
    };
    if old.is_none()
        && let Some(c) = decl.and_then(|d| d.code.as_ref())
        && doc.get(&c.field).is_none_or(|v| v.is_null() || v.as_str() == Some("")) {
        doc.insert(c.field.clone(), Value::String(next_code(w, cx, def, c)?));
    }
    check_refs(w, cx, def, &doc)?;
    if let Some(f) = rules.save {
        f(w, cx, old.as_ref(), &mut doc)?;
    }
    let saved = match id {
        Some(id) => w.update(def, cx.tenant, id, doc, cx.actor)?,
        None => w.insert(def, cx.tenant, doc, cx.actor)?,
    };
    if decl.is_some_and(|d| d.history) {
        record_change(w, cx, def, old.as_ref(), Some(&saved))?;
    }
    for f in rules.saved.iter().chain(rules.after) {
        f(w, cx, old.as_ref(), &saved)?;
    }
    Ok(saved)
}

/// `PREFIX` + local date + `-` + a four-digit number per tenant and day (more digits past 9999), skipping a
/// number someone typed in by hand.
fn next_code(w: &mut WriteCtx, cx: &Ctx, def: &ResourceDef, c: &CodeRule) -> store::Result<String> {
    let day: String = cx.now.chars().take(10).filter(char::is_ascii_digit).collect();
    // A named counter (`$`): not a record total (verify compares those with the records).
    let counter = format!("$code:{}:{}{day}", def.name, c.prefix);
    loop {
        let n = w.add_counter(cx.tenant, &counter, 1)?;
        let code = format!("{}{day}-{n:04}", c.prefix);
        if w.find_unique(def, cx.tenant, &c.field, &code)?.is_none() {
            return Ok(code);
        }
    }
}

/// Every `refers` field being written names a live record of the tenant.
pub fn check_refs(w: &WriteCtx, cx: &Ctx, def: &ResourceDef, doc: &Map<String, Value>) -> store::Result<()> {
    for f in def.fields.iter().filter(|f| f.refers.is_some()) {
        // 0 names no record (a top category, a department without a parent).
        let Some(id) = doc.get(&f.name).and_then(Value::as_u64).filter(|i| *i > 0) else { continue };
        let Some(target) = f.refers.as_deref().and_then(|r| cx.res.find(r)) else { continue };
        if w.get(&target, cx.tenant, id)?.is_none() {
            let en = if f.label_en.is_empty() { &f.name } else { &f.label_en };
            return Err(rule(format!("{}不存在或已删除", f.label), format!("The {en} does not exist or was removed")));
        }
    }
    Ok(())
}

/// Refuses to remove a record that a live record of any declared resource still names.
pub fn check_unused(w: &WriteCtx, cx: &Ctx, def: &ResourceDef, id: u64) -> store::Result<()> {
    for (other, field) in cx.res.referrers(&def.name) {
        let q = Query { filters: vec![Filter::new(field, Op::Equal, Value::from(id))], limit: 1, ..Query::default() };
        if !w.list(other, cx.tenant, &q)?.records.is_empty() {
            let en = if other.label_en.is_empty() { &other.name } else { &other.label_en };
            return Err(rule(format!("仍有{}引用该{},不能删除", other.label, def.label), format!("{en} still refer to it; it cannot be removed")));
        }
    }
    Ok(())
}

/// The change record of a write: who and when (audit columns), the action and every field that changed.
pub fn record_change(w: &mut WriteCtx, cx: &Ctx, def: &ResourceDef, old: Option<&Map<String, Value>>, new: Option<&Map<String, Value>>) -> store::Result<()> {
    let show = |v: Option<&Value>, f: &store::FieldDef| -> Value {
        match (v, f.kind) {
            (Some(Value::Number(n)), store::FieldKind::Money) => json!(store::format_money(n.as_i64().unwrap_or(0))),
            (Some(Value::Number(n)), store::FieldKind::Qty) => json!(store::format_qty(n.as_i64().unwrap_or(0))),
            (Some(Value::Number(n)), store::FieldKind::Long) => json!(n.to_string()),
            (Some(v), _) => v.clone(),
            (None, _) => Value::Null,
        }
    };
    let mut changes = Vec::new();
    for f in def.fields.iter().filter(|f| !f.secret) {
        let (a, b) = (old.and_then(|o| o.get(&f.name)), new.and_then(|n| n.get(&f.name)));
        let (a, b) = (a.filter(|v| !v.is_null()), b.filter(|v| !v.is_null()));
        if a != b && (new.is_some() || a.is_some()) {
            changes.push(json!({"field": f.name, "label": f.label, "labelEn": f.label_en, "before": show(a, f), "after": show(b, f)}));
        }
    }
    let action = match (old, new) {
        (None, Some(_)) => "add",
        (Some(_), Some(_)) => "update",
        _ => "remove",
    };
    if action == "update" && changes.is_empty() {
        return Ok(());
    }
    let id = new.or(old).and_then(|r| r.get("id")).and_then(Value::as_u64).unwrap_or(0);
    let rec = cx.def("op_record");
    let mut doc = Map::new();
    doc.insert("resource".into(), json!(def.name));
    doc.insert("recordId".into(), json!(id));
    doc.insert("action".into(), json!(action));
    doc.insert("changes".into(), Value::Array(changes));
    w.insert(&rec, cx.tenant, doc, cx.actor)?;
    Ok(())
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

/// The removal of `ids` as one write: each must exist in the tenant, pass the data scope and belong to `parent`
/// (else 404, naming nothing), pass the resource's rule and be named by no live record.
pub async fn remove_in_write(
    st: &AppState,
    s: &Session,
    def: &Arc<ResourceDef>,
    rules: Rules,
    ids: Vec<u64>,
    parent: Option<u64>,
    values: Vec<(String, String)>,
    guard: Option<Vec<Filter>>,
) -> ApiResult<u64> {
    let (d, env) = (def.clone(), Env::new(st, s));
    let decl = st.res.decl(&def.name);
    let parent_field = decl.as_ref().and_then(|d| d.parent.clone());
    st.write(move |w| {
        let cx = env.cx();
        for id in &ids {
            let rec = w.get(&d, cx.tenant, *id)?.ok_or(StoreError::NotFound)?;
            if !crate::auth::scope::admits(&guard, &rec) {
                return Err(StoreError::NotFound);
            }
            if let (Some(p), Some(field)) = (parent, parent_field.as_deref())
                && rec.get(field).and_then(Value::as_u64).unwrap_or(0) != p {
                return Err(StoreError::NotFound);
            }
            for (field, want) in &values {
                let got = match rec.get(field) {
                    Some(Value::String(v)) => v.clone(),
                    Some(Value::Null) | None => String::new(),
                    Some(v) => v.to_string(),
                };
                if got != *want {
                    return Err(StoreError::NotFound);
                }
            }
            if let Some(f) = rules.remove {
                f(w, &cx, &rec)?;
            }
            check_unused(w, &cx, &d, *id)?;
            if decl.as_ref().is_some_and(|d| d.history) {
                record_change(w, &cx, &d, Some(&rec), None)?;
            }
        }
        w.remove(&d, cx.tenant, &ids, cx.actor)
    })
    .await
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
        Action::Save => (item.clone(), item, format!("{} · insert without id, update with one{}", def.label, code_note(decl))),
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

