//! The generic handlers of a declared resource: list, detail, submit (insert without id, update with id) and
//! remove (soft delete of `?ids=`). Permission codes: the resource's menu code to read, `<name>_add`,
//! `<name>_edit`, `<name>_delete` to write. Platform resources are writable only by the platform role.
//! The parts: `page` writes a list page's rows from their stored bytes, `decorate` adds dictionary labels and
//! referenced records' titles, `schema` describes a resource for the generic screens.
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value};
use store::ResourceDef;

use crate::auth::session::Session;
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, JsonObject, QueryPairs, json_bytes, ok};
use crate::state::AppState;

mod decorate;
mod page;
mod schema;

pub use decorate::{Labels, Refs, decorated, dict_labels, refs_version, title_field, title_key, wire_records};
pub use page::page_body;
pub use schema::{schema, schema_route};

impl Api {
    /// `<base>/list|detail|schema|export|submit|remove` of the resource `name`, all generic.
    pub fn crud(self, base: &str, name: &str) -> Api {
        let def = self.def(name);
        let d3 = def.clone();
        self.read(base, name)
            .post(format!("{base}/submit"), Guard::write(&def, &["add", "edit"]), move |st, s, b| submit(st, s, b, d3))
            .remove(base, name)
    }

    /// `<base>/remove` alone (for resources whose submit is hand-written).
    pub fn remove(self, base: &str, name: &str) -> Api {
        let def = self.def(name);
        self.post(format!("{base}/remove"), Guard::write(&def, &["delete"]), move |st, s, p| remove(st, s, p, def))
    }

    /// The read side only (`list|detail|schema|export`): for records the server writes itself (logs).
    pub fn read(self, base: &str, name: &str) -> Api {
        let def = self.def(name);
        let (d1, d2, d5, d6) = (def.clone(), def.clone(), def.clone(), def.clone());
        let api = base.to_string();
        let g = Guard::read(&def);
        self.base(base, name)
            .get(format!("{base}/schema"), g.clone(), move |st, s, l| schema_route(st, s, l, d5, api))
            .get(format!("{base}/export"), g.clone(), move |st, s, q, l| crate::engine::xlsx::export(st, s, q, l, d6))
            .get(format!("{base}/list"), g.clone(), move |st, s, raw, q| list(st, s, raw, q, d1))
            .get(format!("{base}/detail"), g, move |st, s, q| detail(st, s, q, d2))
    }
}

pub async fn list(
    State(st): State<AppState>,
    s: Session,
    raw: axum::extract::RawQuery,
    QueryPairs(q): QueryPairs,
    def: Arc<ResourceDef>,
) -> ApiResult<Response> {
    Ok(json_bytes(list_body(&st, &s, raw.0.as_deref().unwrap_or(""), &q, &def).await?))
}

/// Largest filtered list answer kept in the list cache (bytes).
const MAX_CACHED_FILTERED: usize = 32 << 10;

/// The answer of `<base>/list` (the whole envelope, as cached): shared by the API and the server-rendered
/// first screens, so both see the same permission check, data scope and rows.
pub async fn list_body(st: &AppState, s: &Session, raw: &str, q: &[(String, String)], def: &Arc<ResourceDef>) -> ApiResult<bytes::Bytes> {
    s.require(def.code())?;
    let mut query = crate::engine::listq::parse(def, st.settings.zone, q)?;
    query.any = crate::auth::scope::guard(st, s, def).await?.unwrap_or_default();
    let stores = crate::auth::scope::store_limit(st, s, def).await?;
    let (d, t, lim) = (def.clone(), s.tenant.clone(), query.limit);
    // Every answer is kept until the resource (or a dictionary its labels come from) changes: versions only
    // grow, so their sum changes whenever one does, and it is read before the snapshot. A data-scoped query
    // (`any`) depends on the viewer's scope rules, as worked out now: they are part of the key. A first page
    // without filters walks at most offset + limit entries from an index end and is read on this thread.
    let bounded = query.unfiltered() && query.sorts.len() <= 1 && query.offset + query.limit <= 2_000;
    let version = st.store_of(def).version(&def.name) + st.store.version("dict") + st.store.version("dictbiz") + refs_version(st, def);
    let viewer = if query.any.is_empty() && stores.is_none() { String::new() } else { format!("{:?}{:?}", query.any, stores) };
    query.filters.extend(stores);
    let key = format!("{}\u{1f}{}\u{1f}{}\u{1f}{}", s.tenant, def.name, viewer, raw);
    // A keyword that also finds records through another resource's search entries (stock rows by their goods'
    // names) depends on how far the index has followed that resource: its answer is not kept (it was kept under
    // the version of a goods renamed a moment before the index caught up, and served stale until the next write).
    let through = def.fields.iter().any(|f| f.keyword_through) && q.iter().any(|(k, v)| k == "keyword" && !v.trim().is_empty());
    if !through
        && let Some(body) = st.list_cache.get(&key, &version) {
        return Ok(body);
    }
    query.raw_rows = true;
    let page = if bounded { st.read_now_of(&d, |r| r.list(&d, &t, &query))? } else { crate::engine::listq::run(st, &d, &t, query).await? };
    let current = q.iter().rev().find(|(k, _)| k == "current").and_then(|(_, v)| v.parse::<u64>().ok()).unwrap_or(1);
    let body = page_body(st, def, &s.tenant, page, lim, current).await?;
    // Filtered answers are kept when small (a page of a few dozen rows): the cache holds at most 2,000 answers and 64 MiB.
    if !through && (bounded || body.len() <= MAX_CACHED_FILTERED) {
        st.list_cache.put_sized(key, version, body.clone(), body.len());
    }
    Ok(body)
}

/// The Blade page object.
#[derive(serde::Serialize)]
pub struct PageOut<T> {
    pub records: Vec<T>,
    pub total: u64,
    pub size: u64,
    pub current: u64,
    pub pages: u64,
}

pub fn parse_id(raw: Option<&str>) -> ApiResult<u64> {
    let raw = raw.unwrap_or("").trim();
    if raw.is_empty() {
        return Err(ApiError::with(Kind::Missing, "id"));
    }
    raw.parse::<u64>().ok().filter(|i| *i > 0).ok_or_else(|| ApiError::with(Kind::BadId, raw.chars().take(40).collect::<String>()))
}

pub async fn detail(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs, def: Arc<ResourceDef>) -> ApiResult<Response> {
    s.require(def.code())?;
    let id = parse_id(q.iter().find(|(k, _)| k == "id").map(|(_, v)| v.as_str()))?;
    let rec = get_scoped(&st, &s, &def, id).await?;
    Ok(ok(decorated(&st, &s.tenant, &def, rec).await?))
}

/// A record of the session's tenant that its data scopes admit, else 404 (never 403: no oracle).
pub async fn get_scoped(st: &AppState, s: &Session, def: &ResourceDef, id: u64) -> ApiResult<Map<String, Value>> {
    let guard = crate::auth::scope::guard(st, s, def).await?;
    let stores = crate::auth::scope::store_limit(st, s, def).await?;
    let t = s.tenant.clone();
    let rec = st.read_now_of(def, |r| r.get(def, &t, id))?.ok_or_else(|| ApiError::new(Kind::NotFound))?;
    if !crate::auth::scope::admits(&guard, &rec) || stores.is_some_and(|f| !f.matches(&rec)) {
        return Err(ApiError::new(Kind::NotFound));
    }
    Ok(rec)
}

/// Before a submit is parsed: the record it names (`id`) must be one the session may see (404 otherwise), and
/// read-only fields may only come back as they are stored (or, for a new record, as their default).
pub async fn check_target(st: &AppState, s: &Session, def: &ResourceDef, id: Option<u64>, body: &Map<String, Value>) -> ApiResult<()> {
    let old = match id {
        Some(id) => Some(get_scoped(st, s, def, id).await?),
        None => None,
    };
    // A child written under a parent (a line onto an order, a reply onto a work order) names a parent the session
    // may see: 404 otherwise, as for the parent itself. A record the session sees keeps the parent it has (a 施工单
    // dispatched to a 项目经理 on a colleague's project is his to work on).
    let parent = crate::auth::scope::parent_of(st, def);
    if let Some((field, parent)) = &parent
        && let Some(pid) = body.get(field).and_then(store::parse_id_value)
        && pid > 0
        && old.as_ref().and_then(|o| o.get(field)).and_then(store::parse_id_value) != Some(pid)
    {
        get_scoped(st, s, parent, pid).await?;
    }
    // Any other record it names anew is one the session's data scopes admit, where they limit its kind (a
    // 项目经理 limited to his projects raises no 领料单 on a colleague's project): 404 otherwise, as its picker
    // never offered it.
    for f in def.fields.iter().filter(|f| f.refers.is_some() && parent.as_ref().is_none_or(|(p, _)| *p != f.name)) {
        let Some(new) = body.get(&f.name).and_then(store::parse_id_value).filter(|v| *v > 0) else { continue };
        if old.as_ref().and_then(|o| o.get(&f.name)).and_then(store::parse_id_value) == Some(new) {
            continue;
        }
        let Some(target) = f.refers.as_deref().and_then(|r| st.res.find(r)) else { continue };
        if let Some(code) = crate::decl::holds(f) {
            check_holds(st, s, f, &target, new, code).await?;
        }
        let guard = crate::auth::scope::guard(st, s, &target).await?;
        if guard.is_none() {
            continue;
        }
        let t = s.tenant.clone();
        let rec = st.read_now_of(&target, |r| r.get(&target, &t, new))?;
        if !rec.is_some_and(|r| crate::auth::scope::admits(&guard, &r)) {
            return Err(ApiError::new(Kind::NotFound));
        }
    }
    Ok(def.readonly_changes(body, old.as_ref())?)
}

/// A person named anew for a field that asks a permission of him (`ui.holds`: a 工单's 处理人 may open work
/// orders) holds it: a work order given to a 仓管员 could never be opened by him. A missing user is left to the
/// write's own check of references.
pub async fn check_holds(st: &AppState, s: &Session, f: &store::FieldDef, user_def: &Arc<ResourceDef>, user: u64, code: &str) -> ApiResult<()> {
    let (st2, d, t, c) = (st.clone(), user_def.clone(), s.tenant.clone(), code.to_string());
    let refused = st
        .read(move |r| {
            let Some(u) = r.get(&d, &t, user)? else { return Ok(None) };
            let roles = crate::auth::session::id_list(u.get("roleId"));
            // Only an account that can sign in (not one awaiting approval or disabled), as the picker offers.
            let active = u.get("status").and_then(Value::as_i64) == Some(1);
            if active && st2.perms.holds(r, &st2.res, &t, &roles, &c)? {
                return Ok(None);
            }
            Ok(Some(u.get("realName").and_then(Value::as_str).unwrap_or("").to_string()))
        })
        .await?;
    match refused {
        None => Ok(()),
        Some(name) => {
            let en = if f.label_en.is_empty() { f.name.as_str() } else { f.label_en.as_str() };
            Err(ApiError::rule(
                format!("{name} 的账号未启用或其角色没有这项工作的权限,不能作为{};请从列表中选择", f.label),
                format!("{name}'s account is not active or their roles do not cover this work, so they cannot be the {}; choose one from the list", en.to_lowercase()),
            ))
        }
    }
}

/// The ids among `ids` that exist in the session's tenant and that its data scopes admit.
pub async fn visible_ids(st: &AppState, s: &Session, def: &ResourceDef, ids: &[u64]) -> ApiResult<Vec<u64>> {
    let guard = crate::auth::scope::guard(st, s, def).await?;
    let stores = crate::auth::scope::store_limit(st, s, def).await?;
    let (d, t, ids) = (def.clone(), s.tenant.clone(), ids.to_vec());
    let found = st
        .read(move |r| {
            let mut out = Vec::new();
            for id in ids {
                if let Some(rec) = r.get(&d, &t, id)? {
                    out.push((id, rec));
                }
            }
            Ok(out)
        })
        .await?;
    Ok(found
        .into_iter()
        .filter(|(_, rec)| crate::auth::scope::admits(&guard, rec) && stores.as_ref().is_none_or(|f| f.matches(rec)))
        .map(|(id, _)| id)
        .collect())
}

pub async fn submit(State(st): State<AppState>, s: Session, JsonObject(body): JsonObject, def: Arc<ResourceDef>) -> ApiResult<Response> {
    let saved = save(&st, &s, &body, &def).await?;
    Ok(ok(crate::wire::record(&def, st.settings.zone, saved)))
}

/// The `id` of a body: None for an insert.
pub fn body_id(body: &Map<String, Value>) -> ApiResult<Option<u64>> {
    Ok(match body.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(v)) if v.is_empty() => None,
        Some(v) => Some(store::parse_id_value(v).ok_or_else(|| ApiError::with(Kind::BadId, v.to_string().chars().take(40).collect::<String>()))?),
    })
}

/// The write check of a resource: its `<name>_<action>` code, and the platform role for platform data.
pub fn check_write(s: &Session, def: &ResourceDef, action: &str) -> ApiResult<()> {
    s.require(&format!("{}_{action}", def.code()))?;
    if def.platform && !s.is_platform_admin() {
        return Err(ApiError::new(Kind::PlatformOnly));
    }
    Ok(())
}

/// The generic save: code `<name>_add` or `<name>_edit`, platform rule, data scope on update, parse, write.
pub async fn save(st: &AppState, s: &Session, body: &Map<String, Value>, def: &Arc<ResourceDef>) -> ApiResult<Map<String, Value>> {
    save_with(st, s, body, def, |_| {}).await
}

/// `save` with `prepare` applied to the parsed record before the write (secrets into their stored form).
pub async fn save_with(
    st: &AppState,
    s: &Session,
    body: &Map<String, Value>,
    def: &Arc<ResourceDef>,
    prepare: impl Fn(&mut Map<String, Value>),
) -> ApiResult<Map<String, Value>> {
    save_in(st, s, body, def, prepare, |_, _, _, _| Ok(())).await
}

/// The generic save with a rule run after the write in its transaction (what follows from it commits with it: a
/// notice's messages).
pub async fn save_then(st: &AppState, s: &Session, body: &Map<String, Value>, def: &Arc<ResourceDef>, then: crate::engine::rules::SavedRule) -> ApiResult<Map<String, Value>> {
    save_in(st, s, body, def, |_| {}, then).await
}

/// The generic save: authorised, the targets checked, parsed, `prepare`d and sealed, then written with the record's
/// own files (`engine::attachments`: checked, named, bound to it) and `then` in one transaction.
async fn save_in(
    st: &AppState,
    s: &Session,
    body: &Map<String, Value>,
    def: &Arc<ResourceDef>,
    prepare: impl Fn(&mut Map<String, Value>),
    then: crate::engine::rules::SavedRule,
) -> ApiResult<Map<String, Value>> {
    let id = body_id(body)?;
    check_write(s, def, if id.is_some() { "edit" } else { "add" })?;
    check_target(st, s, def, id, body).await?;
    let mut doc = def.parse_input(body, id.is_none())?;
    prepare(&mut doc);
    seal_fields(&st.secrets, &s.tenant, def, &mut doc);
    let (d, env) = (def.clone(), crate::engine::rules::Env::new(st, s));
    let files = crate::engine::attachments::has_own(def);
    let saved = st
        .write(move |w| {
            let cx = env.cx();
            let old = match id {
                Some(id) => w.get(&d, cx.tenant, id)?,
                None => None,
            };
            let mut doc = doc.clone();
            if files {
                crate::engine::attachments::check_own(w, &cx, &d, &mut doc, old.as_ref())?;
            }
            let saved = match id {
                Some(id) => w.update(&d, cx.tenant, id, doc, cx.actor)?,
                None => w.insert(&d, cx.tenant, doc, cx.actor)?,
            };
            if files {
                crate::engine::attachments::bind_own(w, &cx, &d, &saved)?;
            }
            then(w, &cx, old.as_ref(), &saved)?;
            Ok(saved)
        })
        .await?;
    Ok(saved)
}

/// The `ids` of a remove request that this session may touch: parsed strictly, then narrowed to records of its
/// tenant that its data scopes admit (an empty result answers 404 in the callers, never 403).
pub async fn removable_ids(st: &AppState, s: &Session, def: &ResourceDef, raw: Option<&str>) -> ApiResult<Vec<u64>> {
    let ids = parse_ids(raw)?;
    visible_ids(st, s, def, &ids).await
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

pub async fn remove(State(st): State<AppState>, s: Session, p: AnyParams, def: Arc<ResourceDef>) -> ApiResult<Response> {
    check_write(&s, &def, "delete")?;
    let ids = removable_ids(&st, &s, &def, p.get("ids")).await?;
    let (d, t, actor) = (def.clone(), s.tenant.clone(), s.actor());
    let n = if ids.is_empty() { 0 } else { st.write(move |w| w.remove(&d, &t, &ids, &actor)).await? };
    if n == 0 {
        return Err(ApiError::new(Kind::NotFound));
    }
    Ok(ok(Value::Null))
}


/// Ids of `raw` (comma list) that all exist in the tenant as records of `res`, else 404.
pub async fn existing(st: &AppState, tenant: &str, res: &str, raw: &str) -> ApiResult<Vec<u64>> {
    let ids = parse_ids(Some(raw))?;
    let (d, t, want) = (st.res.get(res), tenant.to_string(), ids.clone());
    let found = st.read(move |r| Ok(want.iter().filter(|i| r.get(&d, &t, **i).ok().flatten().is_some()).count())).await?;
    if found != ids.len() {
        return Err(ApiError::new(Kind::NotFound));
    }
    Ok(ids)
}


/// Drops blank write-only fields from an update (the edit form never has them: they are not returned).
/// The `sealed` fields of a record about to be written, encrypted with the install's key (`crate::secrets`); a
/// value already sealed stays as it is.
pub fn seal_fields(secrets: &crate::secrets::Secrets, tenant: &str, def: &ResourceDef, doc: &mut Map<String, Value>) {
    for f in def.fields.iter().filter(|f| f.sealed) {
        if let Some(Value::String(v)) = doc.get(&f.name)
            && !v.is_empty()
            && !crate::secrets::is_sealed(v) {
            let sealed = secrets.seal(tenant, &sealed_name(def, &f.name), v);
            doc.insert(f.name.clone(), Value::String(sealed));
        }
    }
}

/// What a sealed value is bound to besides its tenant: `<resource>.<field>`.
pub fn sealed_name(def: &ResourceDef, field: &str) -> String {
    format!("{}.{field}", def.name)
}

/// The plain value of a record's `sealed` field (a value from before sealing as it is); a value the install's
/// key cannot open is a 400 saying what to do.
pub fn open_field(secrets: &crate::secrets::Secrets, tenant: &str, def: &ResourceDef, rec: &Map<String, Value>, field: &str) -> ApiResult<String> {
    let stored = rec.get(field).and_then(Value::as_str).unwrap_or("");
    secrets.open(tenant, &sealed_name(def, field), stored).map_err(|e| {
        tracing::warn!(target: "zz::secrets", resource = %def.name, field, problem = ?e, "a sealed secret cannot be opened with this install's key");
        ApiError::rule(
            format!("{} 无法解密：数据文件与本机的密钥文件 secret.key 不匹配，请放回原来的 secret.key 或重新填写", field),
            format!("{field} cannot be decrypted: the data file does not match this server's secret.key; put the original secret.key back or enter it again"),
        )
    })
}

pub fn keep_secrets_on_update(def: &ResourceDef, body: &mut Map<String, Value>, update: bool) {
    if update {
        for f in def.fields.iter().filter(|f| f.secret) {
            if matches!(body.get(&f.name), Some(Value::Null)) || body.get(&f.name).and_then(Value::as_str).is_some_and(|v| v.is_empty()) {
                body.remove(&f.name);
            }
        }
    }
}

/// Submit of a resource with write-only fields: blank secrets keep the stored ones on update, `prepare` turns
/// secrets into their stored form (a hash) before the write.
pub async fn secret_submit(
    State(st): State<AppState>,
    s: Session,
    JsonObject(mut body): JsonObject,
    def: Arc<ResourceDef>,
    prepare: fn(&mut Map<String, Value>),
) -> ApiResult<Response> {
    let id = body_id(&body)?;
    keep_secrets_on_update(&def, &mut body, id.is_some());
    let saved = save_with(&st, &s, &body, &def, prepare).await?;
    Ok(ok(crate::wire::record(&def, st.settings.zone, saved)))
}

pub fn no_prepare(_: &mut Map<String, Value>) {}

/// What the install's key makes of the `sealed` fields stored: how many values it sealed now (plain ones from
/// before sealing, at start), and how many were sealed under another key (a data file restored or followed
/// without its `secret.key`: those secrets must be entered again).
#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SealReport {
    pub sealed: u64,
    pub other_key: u64,
}

/// Seals every plain value of a `sealed` field (`write`), or only counts (`!write`, a standby's).
pub fn seal_stored(st: &AppState, write: bool) -> store::Result<SealReport> {
    let mut report = SealReport::default();
    for def in st.res.all().into_iter().filter(|d| d.fields.iter().any(|f| f.sealed)) {
        let d0 = def.clone();
        let tenants = st.store.read(move |r| r.tenants_of(&d0))?;
        for t in tenants {
            let (d1, t1) = (def.clone(), t.clone());
            let recs = st.store.read(move |r| r.all(&d1, &t1))?;
            for rec in recs {
                let mut patch = Map::new();
                for f in def.fields.iter().filter(|f| f.sealed) {
                    let Some(v) = rec.get(&f.name).and_then(Value::as_str).filter(|v| !v.is_empty()) else { continue };
                    if !crate::secrets::is_sealed(v) {
                        patch.insert(f.name.clone(), Value::String(v.to_string()));
                    } else if matches!(st.secrets.open(&t, &sealed_name(&def, &f.name), v), Err(crate::secrets::Unsealable::OtherKey(_))) {
                        report.other_key += 1;
                    }
                }
                if patch.is_empty() || !write {
                    continue;
                }
                let id = rec.get("id").and_then(Value::as_u64).unwrap_or(0);
                seal_fields(&st.secrets, &t, &def, &mut patch);
                report.sealed += patch.len() as u64;
                let (d2, t2) = (def.clone(), t.clone());
                // The record's own audit columns stay: sealing is not an edit by anyone.
                let actor = store::Actor { user_id: rec.get("updateUser").and_then(Value::as_u64).unwrap_or(0), dept_id: 0, at: rec.get("updateTime").and_then(Value::as_i64) };
                st.store.write(move |w| w.update(&d2, &t2, id, patch.clone(), &actor).map(|_| ()))?;
            }
        }
    }
    Ok(report)
}
