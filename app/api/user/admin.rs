//! User administration (`/api/blade-user/...`): page by department, detail, submit/update, remove, grant roles,
//! reset password, platform settings, user list and approval of guest registrations. Every route requires its
//! button code from the seeded menu tree (`user`, `user_add`, `user_edit`, `user_delete`, `user_role`,
//! `user_reset`, `user_platform`); the tenant comes only from the session and data scopes apply to every read
//! and write. Passwords are stored only as Argon2id over the MD5 the client sends; no answer carries a hash.
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, ResourceDef};

use crate::engine::crud::{self, PageOut, parse_id, parse_ids};
use crate::auth::session::{Session, id_list};
use crate::auth::{password, scope};
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, JsonObject, QueryPairs, ok};
use crate::state::AppState;

pub use crate::auth::session::ADMIN_ALIASES;
/// Most users whose password one call resets (each costs an Argon2id hash).
const RESET_MAX: usize = 20;
/// Most rows `user-list` answers.
const USER_LIST_MAX: u64 = 10_000;

fn def(st: &AppState) -> Arc<ResourceDef> {
    st.res.get("user")
}

/// The page's query: `deptId` means that department and every department below it; other parameters are the
/// declared filters and sorts; the user's data scope joins as the guard.
pub async fn user_query(st: &AppState, s: &Session, q: &[(String, String)]) -> ApiResult<Query> {
    let d = def(st);
    let dept = q.iter().rev().find(|(k, _)| k == "deptId").map(|(_, v)| v.trim().to_string()).filter(|v| !v.is_empty());
    let rest: Vec<(String, String)> = q.iter().filter(|(k, _)| k != "deptId").cloned().collect();
    let mut query = crate::engine::listq::parse(&d, st.settings.zone, &rest)?;
    if let Some(dept) = dept {
        let root = parse_id(Some(&dept))?;
        let ids = scope::descendants(st, &s.tenant, &[root]).await?;
        query.filters.push(Filter::new("deptId", Op::ListIn, json!(ids)));
    }
    query.any = scope::guard(st, s, &d).await?.unwrap_or_default();
    Ok(query)
}

/// Display names BladeX returns beside a user's ids: roles, departments and posts (point reads: a page names a
/// few dozen), the tenant's name and the dictionary labels (`userTypeName`, `sexName`).
struct Names {
    roles: HashMap<u64, String>,
    depts: HashMap<u64, String>,
    posts: HashMap<u64, String>,
    tenant: String,
    labels: crud::Labels,
}

async fn names(st: &AppState, tenant: &str, rows: &[Map<String, Value>]) -> ApiResult<Names> {
    let ids = |k: &str| {
        let mut v: Vec<u64> = rows.iter().flat_map(|r| id_list(r.get(k))).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let (role_ids, dept_ids, post_ids) = (ids("roleId"), ids("deptId"), ids("postId"));
    let (st2, t) = (st.clone(), tenant.to_string());
    let (roles, depts, posts, tenant_name) = st
        .read(move |r| {
            let pick = |res: &str, ids: &[u64], k: &str| -> store::Result<HashMap<u64, String>> {
                let def = st2.res.get(res);
                let mut out = HashMap::new();
                for id in ids {
                    if let Some(m) = r.get(&def, &t, *id)? {
                        out.insert(*id, m.get(k).and_then(Value::as_str).unwrap_or("").to_string());
                    }
                }
                Ok(out)
            };
            let tenant = crate::auth::tenants::by_id(r, &st2, &t)?
                .and_then(|m| m.get("tenantName").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_default();
            Ok((pick("role", &role_ids, "roleName")?, pick("dept", &dept_ids, "deptName")?, pick("post", &post_ids, "postName")?, tenant))
        })
        .await?;
    Ok(Names { roles, depts, posts, tenant: tenant_name, labels: crud::Labels::load(st, &def(st)).await? })
}

impl Names {
    /// The wire form of a user with its display names.
    fn wire(&self, st: &AppState, rec: Map<String, Value>) -> Map<String, Value> {
        let joined = |k: &str, names: &HashMap<u64, String>| id_list(rec.get(k)).iter().filter_map(|i| names.get(i)).cloned().collect::<Vec<_>>().join(",");
        let (roles, depts, posts) = (joined("roleId", &self.roles), joined("deptId", &self.depts), joined("postId", &self.posts));
        let mut out = crate::wire::record(&def(st), st.settings.zone, rec);
        out.insert("roleName".into(), json!(roles));
        out.insert("deptName".into(), json!(depts));
        out.insert("postName".into(), json!(posts));
        out.insert("tenantName".into(), json!(self.tenant));
        self.labels.decorate(&mut out);
        out
    }
}

/// GET page (current, size, deptId and the declared filters).
pub async fn page(State(st): State<AppState>, s: Session, raw: axum::extract::RawQuery, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    Ok(crate::http::json_bytes(page_body(&st, &s, raw.0.as_deref().unwrap_or(""), &q).await?))
}

/// The answer of `page` (the whole envelope, as cached): shared with the server-rendered user screen.
pub async fn page_body(st: &AppState, s: &Session, raw: &str, q: &[(String, String)]) -> ApiResult<bytes::Bytes> {
    s.require("user")?;
    // Versions first, then every read: the answer may be cached under them (see `cache.rs`). Each version
    // only grows, so their sum changes whenever any of them does.
    let stamp: u64 = ["user", "dept", "role", "post", "tenant", "dict", "datascope"].iter().map(|n| st.store.version(n)).sum();
    // Everything the answer depends on besides those versions: tenant, the viewer (their roles, departments and
    // own id decide the data scope) and the query string. Checked before the department tree and scope rules
    // are worked out, which cost more than the answer.
    let key = format!("{}\u{1f}user-page\u{1f}{}\u{1f}{}", s.tenant, s.user_id, raw);
    if let Some(body) = st.list_cache.get(&key, &stamp) {
        return Ok(body);
    }
    let query = user_query(st, s, q).await?;
    let (d, t, lim, offset) = (def(st), s.tenant.clone(), query.limit, query.offset);
    let page = crate::engine::listq::run(st, &d, &t, query).await?;
    let names = names(st, &s.tenant, &page.records).await?;
    let records: Vec<Map<String, Value>> = page.records.into_iter().map(|rec| names.wire(st, rec)).collect();
    let body = crate::http::ok_bytes(PageOut { records, total: page.total, size: lim, current: offset / lim + 1, pages: page.total.div_ceil(lim) })?;
    st.list_cache.put_sized(key, stamp, body.clone(), body.len());
    Ok(body)
}

/// GET detail?id= (also platform-detail?id=).
pub async fn detail(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    s.require("user")?;
    let id = parse_id(q.iter().find(|(k, _)| k == "id").map(|(_, v)| v.as_str()))?;
    let rec = crud::get_scoped(&st, &s, &def(&st), id).await?;
    let names = names(&st, &s.tenant, std::slice::from_ref(&rec)).await?;
    Ok(ok(names.wire(&st, rec)))
}

/// GET user-list: every visible user of the tenant with minimal fields.
pub async fn user_list(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    s.require("user")?;
    let mut query = user_query(&st, &s, &[]).await?;
    query.limit = USER_LIST_MAX;
    let (d, t) = (def(&st), s.tenant.clone());
    let page = crate::engine::listq::run(&st, &d, &t, query).await?;
    let rows: Vec<Value> = page
        .records
        .iter()
        .map(|u| json!({"id": u.get("id").map(crate::wire::id_str), "account": u.get("account"), "name": u.get("name"),
            "realName": u.get("realName"), "deptId": u.get("deptId"), "status": u.get("status")}))
        .collect();
    Ok(ok(rows))
}

/// Argon2id of an MD5, off the async workers and at most two at once.
pub async fn hash_pw(st: &AppState, md5: String) -> ApiResult<String> {
    let _permit = st.hashing.acquire().await.map_err(ApiError::internal)?;
    tokio::task::spawn_blocking(move || password::hash(&md5)).await.map_err(ApiError::internal)
}

fn take(body: &mut Map<String, Value>, k: &str) -> Option<String> {
    match body.remove(k) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Some(Value::Number(n)) => Some(n.to_string()),
        // Id lists may come as arrays (`["1","2"]`): the comma form.
        Some(Value::Array(items)) => {
            let parts: Vec<String> = items.iter().map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())).filter(|p| !p.trim().is_empty()).collect();
            (!parts.is_empty()).then(|| parts.join(","))
        }
        _ => None,
    }
}

/// The new hash from `password`/`password2`: required and equal on insert; optional on update.
async fn new_password(st: &AppState, insert: bool, pw: Option<String>, pw2: Option<String>) -> ApiResult<Option<String>> {
    match (pw, pw2) {
        (None, _) if insert => Err(ApiError::with(Kind::Missing, "password")),
        (None, _) => Ok(None),
        (Some(_), None) => Err(ApiError::with(Kind::Missing, "password2")),
        (Some(a), Some(b)) if a != b => Err(ApiError::new(Kind::PasswordsDiffer)),
        (Some(a), Some(_)) => Ok(Some(hash_pw(st, password::normalize(&a)).await?)),
    }
}

pub use crate::engine::crud::existing;

/// Refuses a change that would leave the tenant without an active administrator. `changes` maps user ids to
/// their new role list (None: removed). Runs inside the write so that concurrent changes cannot race it.
fn leaves_no_admin(w: &store::WriteCtx, st: &AppState, tenant: &str, changes: &HashMap<u64, Option<Vec<u64>>>) -> store::Result<bool> {
    let admin_roles: HashSet<u64> = w
        .all(&st.res.get("role"), tenant)?
        .iter()
        .filter(|r| r.get("roleAlias").and_then(Value::as_str).is_some_and(|a| ADMIN_ALIASES.contains(&a)))
        .filter_map(|r| r.get("id").and_then(store::parse_id_value))
        .collect();
    let is_admin = |roles: &[u64]| roles.iter().any(|r| admin_roles.contains(r));
    let mut touches_admin = false;
    for id in changes.keys() {
        if let Some(u) = w.get(&st.res.get("user"), tenant, *id)? {
            touches_admin |= is_admin(&id_list(u.get("roleId")));
        }
    }
    if !touches_admin {
        return Ok(false);
    }
    for u in w.all(&st.res.get("user"), tenant)? {
        let id = u.get("id").and_then(store::parse_id_value).unwrap_or(0);
        let roles = match changes.get(&id) {
            Some(None) => continue,
            Some(Some(new)) => new.clone(),
            None => id_list(u.get("roleId")),
        };
        if u.get("status").and_then(Value::as_i64) == Some(1) && is_admin(&roles) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Checks that `deptId` and `postId` name departments and posts of the tenant.
async fn check_refs(st: &AppState, tenant: &str, doc: &Map<String, Value>) -> ApiResult<()> {
    for (field, res) in [("deptId", "dept"), ("postId", "post")] {
        if let Some(Value::String(v)) = doc.get(field)
            && !v.trim().is_empty() {
            existing(st, tenant, res, v).await.map_err(|_| ApiError::with(Kind::BadId, field))?;
        }
    }
    Ok(())
}

async fn save_user(st: &AppState, s: &Session, mut body: Map<String, Value>) -> ApiResult<Map<String, Value>> {
    let id = crud::body_id(&body)?;
    s.require(if id.is_some() { "user_edit" } else { "user_add" })?;
    let d = def(st);
    if let Some(id) = id {
        crud::get_scoped(st, s, &d, id).await?;
    }
    let (pw, pw2, roles) = (take(&mut body, "password"), take(&mut body, "password2"), take(&mut body, "roleId"));
    let mut doc = d.parse_input(&body, id.is_none())?;
    // A user without a role cannot sign in (`Kind::NoRole`): one is required when the account is made.
    if id.is_none() && roles.as_deref().is_none_or(|r| r.split(',').all(|p| p.trim().is_empty())) {
        return Err(ApiError::new(Kind::RoleRequired));
    }
    check_refs(st, &s.tenant, &doc).await?;
    let role_ids = match roles {
        Some(r) => {
            s.require("user_role")?;
            Some(existing(st, &s.tenant, "role", &r).await?)
        }
        None => None,
    };
    if let Some(r) = &role_ids {
        doc.insert("roleId".into(), json!(r.iter().map(u64::to_string).collect::<Vec<_>>().join(",")));
    }
    let hash = new_password(st, id.is_none(), pw, pw2).await?;
    let replaced = id.filter(|_| hash.is_some());
    let (st2, t, actor) = (st.clone(), s.tenant.clone(), s.actor());
    let saved = st
        .write(move |w| {
            let d = st2.res.get("user");
            let mut doc = doc.clone();
            match id {
                None => {
                    doc.insert("passwordHash".into(), json!(hash));
                    doc.insert("tokenVersion".into(), json!(0));
                    doc.insert("mustChangePassword".into(), json!(0));
                    Ok(Ok(w.insert(&d, &t, doc, &actor)?))
                }
                Some(id) => {
                    if let Some(r) = &role_ids
                        && leaves_no_admin(w, &st2, &t, &HashMap::from([(id, Some(r.clone()))]))? {
                        return Ok(Err(Kind::LastAdmin));
                    }
                    if let Some(h) = &hash {
                        let old = w.get(&d, &t, id)?.ok_or(store::StoreError::NotFound)?;
                        doc.insert("passwordHash".into(), json!(h));
                        doc.insert("tokenVersion".into(), json!(old.get("tokenVersion").and_then(Value::as_i64).unwrap_or(0) + 1));
                    }
                    Ok(Ok(w.update(&d, &t, id, doc, &actor)?))
                }
            }
        })
        .await?
        .map_err(ApiError::new)?;
    if let Some(id) = replaced {
        crate::auth::token::revoke(st, &s.tenant, None, Some(id)).await?;
    }
    Ok(saved)
}

/// POST submit: insert (needs `password` and `password2`, equal) or update (with `id`; without a password the
/// old one is kept). `roleId`, when sent, needs `user_role` and roles of this tenant.
pub async fn submit(State(st): State<AppState>, s: Session, JsonObject(body): JsonObject) -> ApiResult<Response> {
    let saved = save_user(&st, &s, body).await?;
    Ok(ok(crate::wire::record(&def(&st), st.settings.zone, saved)))
}

/// POST update: submit with a required `id`.
pub async fn update(State(st): State<AppState>, s: Session, JsonObject(body): JsonObject) -> ApiResult<Response> {
    s.require("user_edit")?;
    if crud::body_id(&body)?.is_none() {
        return Err(ApiError::with(Kind::Missing, "id"));
    }
    let saved = save_user(&st, &s, body).await?;
    Ok(ok(crate::wire::record(&def(&st), st.settings.zone, saved)))
}

/// All of `ids` visible to the session (tenant and data scope), else 404 and nothing is done.
async fn all_visible(st: &AppState, s: &Session, ids: &[u64]) -> ApiResult<()> {
    let seen = crud::visible_ids(st, s, &def(st), ids).await?;
    if seen.len() != ids.iter().collect::<HashSet<_>>().len() {
        return Err(ApiError::new(Kind::NotFound));
    }
    Ok(())
}

/// POST remove?ids=: never one's own account, never the tenant's last active administrator.
pub async fn remove(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    s.require("user_delete")?;
    let ids = parse_ids(p.get("ids"))?;
    if ids.contains(&s.user_id) {
        return Err(ApiError::new(Kind::OwnAccount));
    }
    all_visible(&st, &s, &ids).await?;
    let (st2, t, actor) = (st.clone(), s.tenant.clone(), s.actor());
    st.write(move |w| {
        let changes: HashMap<u64, Option<Vec<u64>>> = ids.iter().map(|i| (*i, None)).collect();
        if leaves_no_admin(w, &st2, &t, &changes)? {
            return Ok(Err(Kind::LastAdmin));
        }
        w.remove(&st2.res.get("user"), &t, &ids, &actor)?;
        Ok(Ok(()))
    })
    .await?
    .map_err(ApiError::new)?;
    Ok(ok(Value::Null))
}

/// POST grant (userIds, roleIds): the users' roles become exactly `roleIds`, roles of this tenant only.
pub async fn grant(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    s.require("user_role")?;
    let users = parse_ids(p.get("userIds"))?;
    let roles = existing(&st, &s.tenant, "role", p.get("roleIds").unwrap_or("")).await?;
    all_visible(&st, &s, &users).await?;
    let (st2, t, actor) = (st.clone(), s.tenant.clone(), s.actor());
    st.write(move |w| {
        let changes: HashMap<u64, Option<Vec<u64>>> = users.iter().map(|i| (*i, Some(roles.clone()))).collect();
        if leaves_no_admin(w, &st2, &t, &changes)? {
            return Ok(Err(Kind::LastAdmin));
        }
        let list = roles.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
        for u in &users {
            let mut patch = Map::new();
            patch.insert("roleId".into(), json!(list));
            w.update(&st2.res.get("user"), &t, *u, patch, &actor)?;
        }
        Ok(Ok(()))
    })
    .await?
    .map_err(ApiError::new)?;
    st.perms.invalidate();
    Ok(ok(Value::Null))
}

/// POST reset-password?userIds=: a random one-time password per user, returned once in this answer; the user
/// must change it at the next sign-in, and their sessions are revoked.
pub async fn reset_password(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    s.require("user_reset")?;
    let ids = parse_ids(p.get("userIds"))?;
    if ids.len() > RESET_MAX {
        return Err(ApiError::with(Kind::BadPaging, "userIds"));
    }
    all_visible(&st, &s, &ids).await?;
    let mut out = Vec::new();
    for id in ids {
        let pw = password::random_password();
        let hash = hash_pw(&st, password::md5_hex(&pw)).await?;
        crate::api::user::profile::set_password(&st, &s.tenant, id, hash, true).await?;
        let (d, t) = (def(&st), s.tenant.clone());
        let account = st.read_now(|r| r.get(&d, &t, id))?.and_then(|u| u.get("account").cloned());
        out.push(json!({"userId": id.to_string(), "account": account, "password": pw}));
    }
    Ok(ok(out))
}

/// POST update-platform (userId, userType, userExt).
pub async fn update_platform(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    s.require("user_platform")?;
    let id = parse_id(p.get("userId"))?;
    let d = def(&st);
    crud::get_scoped(&st, &s, &d, id).await?;
    let mut input = Map::new();
    for k in ["userType", "userExt"] {
        if let Some(v) = p.get(k) {
            input.insert(k.into(), json!(v));
        }
    }
    let patch = d.parse_input(&input, false)?;
    let (t, actor) = (s.tenant.clone(), s.actor());
    let saved = st.write(move |w| w.update(&d, &t, id, patch.clone(), &actor)).await?;
    Ok(ok(crate::wire::record(&def(&st), st.settings.zone, saved)))
}

/// POST audit-pass?ids=: approves pending guest registrations (status 0 → 1). Needs `user_edit`.
pub async fn audit_pass(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    s.require("user_edit")?;
    let ids = parse_ids(p.get("ids"))?;
    all_visible(&st, &s, &ids).await?;
    let (st2, t, actor) = (st.clone(), s.tenant.clone(), s.actor());
    st.write(move |w| {
        let d = st2.res.get("user");
        for id in &ids {
            if w.get(&d, &t, *id)?.and_then(|u| u.get("status").and_then(Value::as_i64)) == Some(0) {
                let mut patch = Map::new();
                patch.insert("status".into(), json!(1));
                w.update(&d, &t, *id, patch, &actor)?;
            }
        }
        Ok(())
    })
    .await?;
    Ok(ok(Value::Null))
}
