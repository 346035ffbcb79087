//! Tenants: the public `tenant/info?domain=` the sign-in page asks, and the platform's tenant screens. The lookups
//! the rest of the server needs (by id, by host, whether active) are `auth::tenants`.
use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};

pub use crate::auth::tenants::{active, by_domain, by_id, expiry_millis};
use crate::engine::{Api, Guard};
use crate::error::ApiResult;
use crate::http::{QueryPairs, ok};
use crate::state::AppState;

/// Public: which tenant a host belongs to, so the sign-in page can hide the tenant box.
pub async fn info(State(st): State<AppState>, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    let domain = q.iter().find(|(k, _)| k == "domain").map(|(_, v)| v.trim().to_ascii_lowercase()).unwrap_or_default();
    let domain = domain.split(':').next().unwrap_or("").to_string();
    let st2 = st.clone();
    let t = st.read(move |r| by_domain(r, &st2, &domain)).await?;
    Ok(ok(match t {
        Some(t) => json!({
            "tenantId": t.get("tenantId"), "tenantName": t.get("tenantName"), "domain": t.get("domain"),
            "backgroundUrl": t.get("backgroundUrl").cloned().unwrap_or(Value::Null),
        }),
        None => json!({}),
    }))
}

use std::sync::Arc;

use store::ResourceDef;

use crate::engine::crud;
use crate::auth::password;
use crate::auth::session::Session;
use crate::error::{ApiError as Err_, Kind};
use crate::http::{AnyParams, JsonObject};

/// `tenant/list|detail|schema|export|submit|remove|setting|datasource` (platform administrator only for writes).
pub fn routes(api: Api, base: &str) -> Api {
    let def = api.def("tenant");
    let (d1, d2) = (def.clone(), def.clone());
    api.read(base, "tenant")
        .post(format!("{base}/submit"), Guard::write(&def, &["add", "edit"]), move |st, s, b| submit(st, s, b, d1))
        .post(format!("{base}/remove"), Guard::write(&def, &["delete"]), move |st, s, p| remove(st, s, p, d2))
        .post(format!("{base}/setting"), Guard::platform(&["tenant_setting"]), setting)
        .post(format!("{base}/datasource"), Guard::platform(&["tenant_datasource"]), datasource)
        // The 所属租户 selects of the role, department, post, user and flow screens: every tenant for the platform
        // administrator, the caller's own otherwise (as BladeX's TenantController.select).
        .get(format!("{base}/select"), Guard::Signed, select)
}

/// GET tenant/select: `[{id, tenantId, tenantName}]`, the platform administrator's all, anyone else's own.
async fn select(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    let def = st.res.get("tenant");
    let rows = st.read(move |r| r.all(&def, store::PLATFORM_TENANT)).await?;
    let out: Vec<Value> = rows
        .iter()
        .filter(|t| s.is_platform_admin() || t.get("tenantId").and_then(Value::as_str) == Some(s.tenant.as_str()))
        .map(|t| json!({"id": crate::wire::id_str(&t["id"]), "tenantId": t.get("tenantId"), "tenantName": t.get("tenantName"), "domain": t.get("domain"), "status": t.get("status")}))
        .collect();
    Ok(ok(out))
}

fn random_tenant_id() -> String {
    use rand::Rng;
    format!("{:06}", rand::rng().random_range(100_000..1_000_000u32))
}

/// Insert: the first admin password (`password`, `password2`) is required; the tenant, its roles and its
/// `admin` user are created in one transaction. `tenantId` is generated (6 digits, unique) when absent and never
/// changes afterwards. Update: the tenant's own fields (a new `domain` moves its host mapping).
async fn submit(State(st): State<AppState>, s: Session, JsonObject(mut body): JsonObject, def: Arc<ResourceDef>) -> ApiResult<Response> {
    let id = crud::body_id(&body)?;
    crud::check_write(&s, &def, if id.is_some() { "edit" } else { "add" })?;
    let pw = body.remove("password").and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let pw2 = body.remove("password2").and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    if let Some(Value::String(d)) = body.get_mut("domain") {
        *d = d.trim().to_ascii_lowercase();
    }
    if let Some(id) = id {
        body.remove("tenantId");
        let doc = def.parse_input(&body, false)?;
        let (d, actor) = (def.clone(), s.actor());
        let saved = st.write(move |w| w.update(&d, store::PLATFORM_TENANT, id, doc.clone(), &actor)).await?;
        return Ok(ok(crate::wire::record(&def, st.settings.zone, saved)));
    }
    if pw.trim().is_empty() {
        return Err(Err_::with(Kind::Missing, "password"));
    }
    if pw2.trim().is_empty() {
        return Err(Err_::with(Kind::Missing, "password2"));
    }
    if pw != pw2 {
        return Err(Err_::new(Kind::PasswordsDiffer));
    }
    let mut doc = def.parse_input(&body, true)?;
    let given = doc.get("tenantId").and_then(Value::as_str).map(str::to_string);
    let hash = {
        let _permit = st.hashing.acquire().await.map_err(Err_::internal)?;
        tokio::task::spawn_blocking(move || password::hash(&password::md5_hex(&pw))).await.map_err(Err_::internal)?
    };
    let (d, actor, res) = (def.clone(), s.actor(), st.res.clone());
    let saved = st
        .write(move |w| -> store::Result<Result<Map<String, Value>, Kind>> {
            let tid = match &given {
                Some(t) => {
                    if w.find_unique(&d, store::PLATFORM_TENANT, "tenantId", t)?.is_some() {
                        return Ok(Err(Kind::TenantIdTaken));
                    }
                    t.clone()
                }
                None => loop {
                    let t = random_tenant_id();
                    if w.find_unique(&d, store::PLATFORM_TENANT, "tenantId", &t)?.is_none() {
                        break t;
                    }
                },
            };
            doc.insert("tenantId".into(), json!(tid));
            let saved = w.insert(&d, store::PLATFORM_TENANT, doc.clone(), &actor)?;
            let menus = crate::seed::menu_rows(w, &res)?;
            // The platform administrator's chosen password stands (as BladeX has it: a Saber client has no page to
            // replace it on, and a session that must replace it may do nothing else).
            crate::seed::tenant_roles_and_admin(w, &res, &tid, &hash, &menus, false)?;
            Ok(Ok(saved))
        })
        .await?
        .map_err(Err_::new)?;
    let tid = saved.get("tenantId").and_then(Value::as_str).unwrap_or("").to_string();
    st.logs.usual(&s.tenant, s.user_id, "tenant_create", &format!("tenant {tid} created with its admin account")).await;
    Ok(ok(crate::wire::record(&def, st.settings.zone, saved)))
}

/// Soft-deletes tenants (their sign-in stops at once); the platform tenant 000000 is never removed.
async fn remove(State(st): State<AppState>, s: Session, p: AnyParams, def: Arc<ResourceDef>) -> ApiResult<Response> {
    crud::check_write(&s, &def, "delete")?;
    let ids = crud::parse_ids(p.get("ids"))?;
    let (d, actor) = (def.clone(), s.actor());
    let n = st
        .write(move |w| -> store::Result<Result<u64, Kind>> {
            for id in &ids {
                if let Some(t) = w.get(&d, store::PLATFORM_TENANT, *id)?
                    && t.get("tenantId").and_then(Value::as_str) == Some(store::PLATFORM_TENANT) {
                    return Ok(Err(Kind::TenantProtected));
                }
            }
            Ok(Ok(w.remove(&d, store::PLATFORM_TENANT, &ids, &actor)?))
        })
        .await?
        .map_err(Err_::new)?;
    if n == 0 {
        return Err(Err_::new(Kind::NotFound));
    }
    Ok(ok(Value::Null))
}

/// POST setting?ids=&accountNumber=&expireTime=: the licence of one or more tenants.
async fn setting(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    s.require("tenant_setting")?;
    if !s.is_platform_admin() {
        return Err(Err_::new(Kind::PlatformOnly));
    }
    let ids = crud::parse_ids(p.get("ids"))?;
    let def = st.res.get("tenant");
    let mut input = Map::new();
    for k in ["accountNumber", "expireTime"] {
        if let Some(v) = p.get(k) {
            input.insert(k.into(), json!(v));
        }
    }
    if input.is_empty() {
        return Err(Err_::with(Kind::Missing, "accountNumber"));
    }
    let patch = def.parse_input(&input, false)?;
    let (d, actor) = (def.clone(), s.actor());
    let n = st
        .write(move |w| {
            let mut n = 0;
            for id in &ids {
                if w.get(&d, store::PLATFORM_TENANT, *id)?.is_some() {
                    w.update(&d, store::PLATFORM_TENANT, *id, patch.clone(), &actor)?;
                    n += 1;
                }
            }
            Ok(n)
        })
        .await?;
    if n == 0 {
        return Err(Err_::new(Kind::NotFound));
    }
    Ok(ok(Value::Null))
}

/// POST datasource?tenantId=&datasourceId=: binds a tenant to a data-source record (stored only; the server
/// never connects to it).
async fn datasource(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    s.require("tenant_datasource")?;
    if !s.is_platform_admin() {
        return Err(Err_::new(Kind::PlatformOnly));
    }
    let tid = p.get("tenantId").map(str::trim).filter(|t| !t.is_empty()).ok_or_else(|| Err_::with(Kind::Missing, "tenantId"))?.to_string();
    let ds = crud::parse_id(p.get("datasourceId")).map_err(|e| if e.kind == Kind::Missing { Err_::with(Kind::Missing, "datasourceId") } else { e })?;
    let (st2, actor) = (st.clone(), s.actor());
    let saved = st
        .write(move |w| {
            let def = st2.res.get("tenant");
            let Some(id) = w.find_unique(&def, store::PLATFORM_TENANT, "tenantId", &tid)? else { return Err(store::StoreError::NotFound) };
            if w.get(&st2.res.get("datasource"), store::PLATFORM_TENANT, ds)?.is_none() {
                return Err(store::StoreError::NotFound);
            }
            let mut patch = Map::new();
            patch.insert("datasourceId".into(), json!(ds));
            w.update(&def, store::PLATFORM_TENANT, id, patch, &actor)
        })
        .await?;
    Ok(ok(crate::wire::record(&st.res.get("tenant"), st.settings.zone, saved)))
}
