//! `POST /api/blade-auth/oauth/token` (password, captcha, refresh_token; social answers "not configured"),
//! the captcha, user-info and logout. Refresh tokens rotate; reuse of a retired one revokes its whole family.
use axum::extract::{FromRequestParts, State};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use rand::RngCore;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::auth::jwt::{AUDIENCE, Claims, ISSUER};
use crate::auth::password;
use crate::auth::throttle::Key;
use crate::auth::session::{Session, id_list};
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, ReqCtx, host_of, ok, peer_ip};
use crate::state::AppState;

pub const DEFAULT_AVATAR: &str = "/static/img/avatar.svg";

/// Client address and headers, taken before the body is read.
pub struct Caller {
    pub ip: String,
    pub headers: HeaderMap,
    ctx: Option<ReqCtx>,
    /// The request came over HTTPS (the listener's, or a trusted proxy's `X-Forwarded-Proto`): cookies get `Secure`.
    pub https: bool,
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;
    async fn from_request_parts(p: &mut Parts, st: &AppState) -> Result<Self, ApiError> {
        let forwarded = st
            .settings
            .trust_proxy
            .then(|| p.headers.get("x-forwarded-for").and_then(|v| v.to_str().ok()))
            .flatten()
            .and_then(|v| v.split(',').next())
            .map(|s| s.trim().to_string());
        let https = crate::http::is_https(p.extensions.get::<crate::listen::Scheme>(), &p.headers, st.settings.trust_proxy);
        Ok(Caller {
            ip: forwarded.unwrap_or_else(|| peer_ip(&p.extensions)),
            headers: p.headers.clone(),
            ctx: p.extensions.get::<ReqCtx>().cloned(),
            https,
        })
    }
}

fn header<'a>(h: &'a HeaderMap, name: &str) -> &'a str {
    h.get(name).and_then(|v| v.to_str().ok()).map(str::trim).unwrap_or("")
}

pub async fn token(State(st): State<AppState>, caller: Caller, params: AnyParams) -> Response {
    let result = grant(&st, &caller, &params).await;
    login_log(&st, &caller, &params, &result).await;
    // A refresh that brought no token of its own used the cookie: its answer does not hand a script the new one.
    let by_cookie = params.get("grant_type") == Some("refresh_token") && params.get("refresh_token").is_none_or(str::is_empty);
    match result {
        Ok(mut body) => {
            // The same tokens in cookies no script can read: the UI's pages and downloads use the first, its
            // refreshes the second (its script keeps only the access token, for the Blade-Auth header).
            let (access, refresh) = (body["access_token"].as_str().unwrap_or(""), body["refresh_token"].as_str().unwrap_or(""));
            let access_secs = body["expires_in"].as_u64().unwrap_or(0);
            let cookies = crate::http::session_cookies(Some((access, access_secs, refresh, st.settings.refresh_ttl.as_secs())), caller.https);
            if by_cookie && let Some(o) = body.as_object_mut() {
                o.remove("refresh_token");
            }
            let mut r = axum::Json(body).into_response();
            for c in cookies {
                r.headers_mut().append(axum::http::header::SET_COOKIE, c);
            }
            r
        }
        Err(e) => {
            let mut r = e.oauth().into_response();
            // A cookie that no longer refreshes anything goes (its session was signed out, expired or revoked).
            if by_cookie {
                for c in crate::http::session_cookies(None, caller.https) {
                    r.headers_mut().append(axum::http::header::SET_COOKIE, c);
                }
            }
            r
        }
    }
}

/// Every sign-in attempt (and refresh) with its result into the login log; the password never.
async fn login_log(st: &AppState, caller: &Caller, p: &AnyParams, result: &ApiResult<Value>) {
    let grant_type = p.get("grant_type").unwrap_or("").chars().take(32).collect::<String>();
    let (tenant, user, outcome, msg) = match result {
        Ok(body) => (
            body["tenant_id"].as_str().unwrap_or("").to_string(),
            body["user_id"].as_str().and_then(|u| u.parse().ok()).unwrap_or(0u64),
            "ok".to_string(),
            String::new(),
        ),
        Err(e) => {
            let t = Some(header(&caller.headers, "tenant-id")).filter(|s| !s.is_empty()).or(p.get("tenantId")).unwrap_or("");
            (t.chars().take(12).collect(), 0, e.code().to_string(), e.message(crate::error::Lang::Zh))
        }
    };
    let tenant = if tenant.is_empty() { store::PLATFORM_TENANT.to_string() } else { tenant };
    let mut doc = Map::new();
    doc.insert("account".into(), p.get("username").unwrap_or("").trim().chars().take(64).collect::<String>().into());
    doc.insert("grantType".into(), grant_type.into());
    doc.insert("result".into(), outcome.into());
    doc.insert("message".into(), msg.into());
    doc.insert("ip".into(), caller.ip.clone().into());
    doc.insert("userAgent".into(), header(&caller.headers, "user-agent").chars().take(300).collect::<String>().into());
    st.logs.record(crate::logsink::Entry { resource: "log_login", tenant, user, doc, outbox: None }).await;
}

async fn grant(st: &AppState, caller: &Caller, p: &AnyParams) -> ApiResult<Value> {
    let client = check_client(st, &caller.headers).await?;
    let grant_type = p.get("grant_type").unwrap_or("");
    match grant_type {
        "password" | "captcha" => {}
        "refresh_token" => return refresh(st, caller, p, &client).await,
        "social" => return Err(ApiError::new(Kind::SocialNotConfigured)),
        other => return Err(ApiError::with(Kind::UnsupportedGrant, other.chars().take(40).collect::<String>())),
    }
    let tenant_id = resolve_tenant(st, &caller.headers, p.get("tenantId")).await?;
    let (key, code) = (header(&caller.headers, "captcha-key"), header(&caller.headers, "captcha-code"));
    if grant_type == "captcha" && !st.captchas.check(key, code) {
        return Err(ApiError::new(Kind::CaptchaWrong));
    }
    let account = p.get("username").unwrap_or("").trim().to_string();
    let secret = password::normalize(p.get("password").unwrap_or(""));
    let who = format!("{tenant_id}:{}", account.to_lowercase());
    let keys = [Key::pair("sign-in", &who, &caller.ip), Key::address("sign-in", &caller.ip), Key::account("sign-in", &who)];
    if let Some(wait) = st.throttle.wait(&keys) {
        let mut e = ApiError::with(Kind::TooManyRequests, wait.to_string());
        e.retry_after = Some(wait);
        return Err(e);
    }
    // An account guessed at from anywhere asks for a solved captcha: the owner types one, a guesser pays one
    // per guess. A password grant may bring one in the same headers.
    if grant_type != "captcha" && st.throttle.needs_captcha(&keys[2]) && !(!key.is_empty() && st.captchas.check(key, code)) {
        return Err(ApiError::new(Kind::CaptchaRequired));
    }
    let st2 = st.clone();
    let (t2, a2) = (tenant_id.clone(), account.clone());
    let user = st
        .read(move |r| {
            let def = st2.res.get("user");
            match r.find_unique(&def, &t2, "account", &a2)? {
                Some(id) => r.get(&def, &t2, id),
                None => Ok(None),
            }
        })
        .await?;
    let phc = user
        .as_ref()
        .and_then(|u| u.get("passwordHash").and_then(Value::as_str))
        .unwrap_or_else(|| password::dummy_hash())
        .to_string();
    let good = {
        let _permit = st.hashing.acquire().await.map_err(ApiError::internal)?;
        st.hash_checks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let s2 = secret.clone();
        tokio::task::spawn_blocking(move || password::verify(&s2, &phc)).await.map_err(ApiError::internal)?
    };
    let user = match user {
        Some(u) if good => u,
        _ => {
            st.throttle.failed(&keys);
            tracing::info!(target: "zz::signin", tenant = %tenant_id, account = %account, ip = %caller.ip, result = "bad_credentials");
            return Err(ApiError::new(Kind::BadCredentials));
        }
    };
    st.throttle.succeeded(&[Key::pair("sign-in", &who, &caller.ip), Key::account("sign-in", &who)]);
    let roles = admit(st, &tenant_id, &user).await?;
    let uid = user.get("id").and_then(Value::as_u64).unwrap_or(0);
    let (sid, secret) = (random_hex(16), random_hex(32));
    let now = store::now_millis();
    let session = json!({
        "uid": uid, "created": now, "expires": now + st.settings.refresh_ttl.as_millis() as i64,
        "current": sha256_hex(&secret), "retired": [], "revoked": false, "ip": caller.ip, "client": client,
    });
    let (t3, sid2, s2) = (tenant_id.clone(), sid.clone(), session.clone());
    match st.write_local(move |w| w.put_session(&t3, &sid2, &s2)).await {
        Ok(()) => {}
        // Writes stopped after a storage failure: the session is kept in memory until the restart, so that an
        // administrator can still sign in and see on 系统状态 what failed.
        Err(e) if e.kind == Kind::StorageFailed => {
            tracing::warn!(target: "zz::signin", tenant = %tenant_id, account = %account, "writes are stopped: the session is kept in memory until the server restarts");
            st.mem_sessions.put(&tenant_id, &sid, session);
        }
        Err(e) => return Err(e),
    }
    if let Some(ctx) = &caller.ctx {
        ctx.set(&tenant_id, &uid.to_string());
    }
    tracing::info!(target: "zz::signin", tenant = %tenant_id, account = %account, ip = %caller.ip, result = "ok");
    Ok(token_body(st, &tenant_id, &user, &roles, &sid, &secret, &client))
}

async fn refresh(st: &AppState, caller: &Caller, p: &AnyParams, client: &str) -> ApiResult<Value> {
    let bad = || ApiError::new(Kind::BadRefreshToken);
    // In the query (Saber-style clients), else the server-set cookie (the UI's script never holds it).
    let raw = p.get("refresh_token").filter(|t| !t.is_empty()).or_else(|| crate::http::refresh_cookie(&caller.headers, caller.https)).unwrap_or("");
    let (sid, secret) = raw.split_once('.').ok_or_else(bad)?;
    let tenant_id = resolve_tenant(st, &caller.headers, p.get("tenantId")).await?;
    let hash = sha256_hex(secret);
    let new_secret = random_hex(32);
    let (t, s, h, ns) = (tenant_id.clone(), sid.to_string(), hash.clone(), new_secret.clone());
    let now = store::now_millis();
    let ttl = st.settings.refresh_ttl.as_millis() as i64;
    // A session kept in memory (signed in while writes were stopped) rotates there.
    let (hash2, ns2) = (hash.clone(), new_secret.clone());
    let rotate = move |sess: &mut Value| -> Result<u64, &'static str> {
        if sess["revoked"].as_bool().unwrap_or(false) || sess["expires"].as_i64().unwrap_or(0) <= now {
            return Err("revoked");
        }
        if sess["current"].as_str() != Some(hash2.as_str()) {
            return Err("mismatch");
        }
        sess["current"] = json!(sha256_hex(&ns2));
        sess["expires"] = json!(now + ttl);
        Ok(sess["uid"].as_u64().unwrap_or(0))
    };
    let in_memory = st.mem_sessions.update(&t, &s, rotate);
    // Rotation and reuse detection happen in one write, so two concurrent uses cannot both succeed.
    let outcome = match in_memory {
        Some(r) => r,
        None => st
        .write_local(move |w| {
            let Some(mut sess) = w.session(&t, &s)? else { return Ok(Err("unknown")) };
            if sess["revoked"].as_bool().unwrap_or(false) || sess["expires"].as_i64().unwrap_or(0) <= now {
                return Ok(Err("revoked"));
            }
            if sess["current"].as_str() != Some(h.as_str()) {
                let reused = sess["retired"].as_array().is_some_and(|a| a.iter().any(|x| x.as_str() == Some(h.as_str())));
                if reused {
                    sess["revoked"] = json!(true);
                    w.put_session(&t, &s, &sess)?;
                    return Ok(Err("reuse"));
                }
                return Ok(Err("mismatch"));
            }
            let mut retired: Vec<Value> = sess["retired"].as_array().cloned().unwrap_or_default();
            retired.push(json!(h));
            if retired.len() > 50 {
                retired.remove(0);
            }
            sess["retired"] = json!(retired);
            sess["current"] = json!(sha256_hex(&ns));
            sess["expires"] = json!(now + ttl);
            w.put_session(&t, &s, &sess)?;
            Ok(Ok(sess["uid"].as_u64().unwrap_or(0)))
        })
        .await?,
    };
    let uid = match outcome {
        Ok(uid) => uid,
        Err(why) => {
            tracing::warn!(target: "zz::signin", tenant = %tenant_id, ip = %caller.ip, result = why, "refresh refused");
            return Err(bad());
        }
    };
    let st2 = st.clone();
    let t = tenant_id.clone();
    let user = st.read(move |r| r.get(&st2.res.get("user"), &t, uid)).await?.ok_or_else(bad)?;
    // Everything a sign-in checks, checked again: a refresh token does not outlive a role change, a disabled
    // account or a lapsed tenant (the tenant was checked by `resolve_tenant`). Refused, the session ends.
    let roles = match admit(st, &tenant_id, &user).await {
        Ok(roles) => roles,
        Err(e) => {
            tracing::warn!(target: "zz::signin", tenant = %tenant_id, ip = %caller.ip, result = e.code(), "refresh refused");
            revoke(st, &tenant_id, Some(sid), None).await?;
            return Err(e);
        }
    };
    Ok(token_body(st, &tenant_id, &user, &roles, sid, &new_secret, client))
}

/// What a user must be to hold a session, checked at sign-in and at every refresh: an active account, not a
/// technical worker (by role, or by a worker record naming the account), with at least one role (as BladeX).
async fn admit(st: &AppState, tenant: &str, user: &Map<String, Value>) -> ApiResult<Vec<Map<String, Value>>> {
    if user.get("status").and_then(Value::as_i64) != Some(1) {
        return Err(ApiError::new(Kind::AccountDisabled));
    }
    let roles = roles_of(st, tenant, user).await?;
    if roles.iter().any(|r| r.get("isWorker").and_then(Value::as_i64) == Some(1)) || is_worker_account(st, tenant, user).await? {
        return Err(ApiError::new(Kind::WorkerRefused));
    }
    if roles.is_empty() {
        return Err(ApiError::new(Kind::NoRole));
    }
    Ok(roles)
}

fn token_body(
    st: &AppState,
    tenant: &str,
    user: &Map<String, Value>,
    roles: &[Map<String, Value>],
    sid: &str,
    secret: &str,
    client: &str,
) -> Value {
    let now = store::now_millis() / 1000;
    let ttl = st.settings.access_ttl.as_secs() as i64;
    let uid = user.get("id").and_then(Value::as_u64).unwrap_or(0);
    let jti = random_hex(12);
    let claims = Claims {
        iss: ISSUER.into(),
        aud: AUDIENCE.into(),
        exp: now + ttl,
        iat: now,
        jti: jti.clone(),
        tid: tenant.into(),
        uid: uid.to_string(),
        sid: sid.into(),
        ver: user.get("tokenVersion").and_then(Value::as_i64).unwrap_or(0),
    };
    let s = |k: &str| user.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let role_ids: Vec<String> = roles.iter().filter_map(|r| r.get("id").and_then(Value::as_u64)).map(|i| i.to_string()).collect();
    let aliases: Vec<&str> = roles.iter().filter_map(|r| r.get("roleAlias").and_then(Value::as_str)).collect();
    let avatar = Some(s("avatar")).filter(|a| !a.is_empty()).unwrap_or_else(|| DEFAULT_AVATAR.to_string());
    json!({
        "access_token": st.keys.sign(&claims),
        "token_type": "bearer",
        "refresh_token": format!("{sid}.{secret}"),
        "expires_in": ttl,
        "scope": "all",
        "tenant_id": tenant,
        "user_id": uid.to_string(),
        "dept_id": s("deptId"),
        "post_id": s("postId"),
        "role_id": role_ids.join(","),
        "role_name": aliases.join(","),
        "account": s("account"),
        "user_name": s("name"),
        // The Saber client's header shows `userName` (camel case) from this answer.
        "userName": s("name"),
        "nick_name": s("name"),
        "real_name": s("realName"),
        "avatar": avatar,
        "company_id": "",
        "oauth_id": "",
        "client_id": client,
        "must_change_password": user.get("mustChangePassword").and_then(Value::as_i64) == Some(1),
        "license": "powered by zhizhuang",
        "jti": jti,
    })
}

/// Whether a worker record (施工人员) names this user as its account: such an account stays refused even after
/// someone takes its technical-worker role away.
async fn is_worker_account(st: &AppState, tenant: &str, user: &Map<String, Value>) -> ApiResult<bool> {
    let uid = user.get("id").and_then(Value::as_u64).unwrap_or(0);
    let (st2, t) = (st.clone(), tenant.to_string());
    st.read(move |r| {
        let q = store::Query { filters: vec![store::Filter::new("userId", store::Op::Equal, json!(uid))], limit: 1, ..store::Query::default() };
        Ok(!r.list(&st2.res.get("worker"), &t, &q)?.records.is_empty())
    })
    .await
}

async fn roles_of(st: &AppState, tenant: &str, user: &Map<String, Value>) -> ApiResult<Vec<Map<String, Value>>> {
    let ids = id_list(user.get("roleId"));
    let (st2, t) = (st.clone(), tenant.to_string());
    st.read(move |r| {
        let def = st2.res.get("role");
        let mut out = Vec::new();
        for id in ids {
            if let Some(role) = r.get(&def, &t, id)? {
                out.push(role);
            }
        }
        Ok(out)
    })
    .await
}

/// `Authorization: Basic base64(client_id:client_secret)` against the clients table (secret stored as SHA-256).
async fn check_client(st: &AppState, h: &HeaderMap) -> ApiResult<String> {
    let bad = || ApiError::new(Kind::BadClient);
    let v = header(h, "authorization");
    let b64 = v.strip_prefix("Basic ").or_else(|| v.strip_prefix("basic ")).ok_or_else(bad)?;
    let raw = base64::engine::general_purpose::STANDARD.decode(b64.trim()).map_err(|_| bad())?;
    let text = String::from_utf8(raw).map_err(|_| bad())?;
    let (id, secret) = text.split_once(':').ok_or_else(bad)?;
    let (st2, id2) = (st.clone(), id.to_string());
    let client = st
        .read(move |r| {
            let def = st2.res.get("client");
            match r.find_unique(&def, store::PLATFORM_TENANT, "clientId", &id2)? {
                Some(cid) => r.get(&def, store::PLATFORM_TENANT, cid),
                None => Ok(None),
            }
        })
        .await?
        .ok_or_else(bad)?;
    let stored = client.get("clientSecret").and_then(Value::as_str).unwrap_or("");
    if !constant_eq(stored.as_bytes(), client_secret_hash(secret).as_bytes()) {
        return Err(bad());
    }
    Ok(id.to_string())
}

pub fn client_secret_hash(secret: &str) -> String {
    format!("sha256:{}", sha256_hex(secret))
}

pub fn constant_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Tenant for sign-in: `Tenant-Id` header, else the `tenantId` parameter, else the host's mapping, else the
/// default tenant. Unknown → 租户ID未找到; expired → 租户授权已过期.
pub async fn resolve_tenant(st: &AppState, h: &HeaderMap, param: Option<&str>) -> ApiResult<String> {
    let explicit = Some(header(h, "tenant-id")).filter(|s| !s.is_empty()).or(param.map(str::trim).filter(|s| !s.is_empty()));
    let host = host_of(h);
    let (st2, explicit) = (st.clone(), explicit.map(str::to_string));
    let found = st
        .read(move |r| {
            let id = match explicit {
                Some(t) => t,
                None => crate::auth::tenants::by_domain(r, &st2, &host)?
                    .and_then(|t| t.get("tenantId").and_then(Value::as_str).map(str::to_string))
                    .unwrap_or_else(|| st2.settings.default_tenant.clone()),
            };
            let def = st2.res.get("tenant");
            let Some(tid) = r.find_unique(&def, store::PLATFORM_TENANT, "tenantId", &id)? else { return Ok(Err(Kind::TenantNotFound)) };
            let _ = tid;
            match crate::auth::tenants::active(r, &st2, &id)? {
                Some(_) => Ok(Ok(id)),
                None => Ok(Err(Kind::TenantExpired)),
            }
        })
        .await?;
    found.map_err(ApiError::new)
}

pub fn random_hex(n: usize) -> String {
    let mut b = vec![0u8; n];
    rand::rng().fill_bytes(&mut b);
    hex::encode(b)
}

pub fn sha256_hex(s: &str) -> String {
    hex::encode(Sha256::digest(s.as_bytes()))
}

pub async fn captcha(State(st): State<AppState>) -> Response {
    let (key, image) = st.captchas.issue();
    axum::Json(json!({"key": key, "image": image})).into_response()
}

pub async fn logout(State(st): State<AppState>, caller: Caller, s: Session) -> ApiResult<Response> {
    revoke(&st, &s.tenant, Some(&s.sid), None).await?;
    let mut r = ok(Value::Null);
    for c in crate::http::session_cookies(None, caller.https) {
        r.headers_mut().append(axum::http::header::SET_COOKIE, c);
    }
    Ok(r)
}

/// Revokes one session, or every session of a user.
pub async fn revoke(st: &AppState, tenant: &str, sid: Option<&str>, uid: Option<u64>) -> ApiResult<()> {
    if st.mem_sessions.revoke(tenant, sid, uid) {
        // Validated sessions are cached under the stored sessions' version, which this does not move.
        st.session_cache.clear();
    }
    if sid.is_some_and(|s| st.mem_sessions.has(tenant, s)) {
        return Ok(());
    }
    let (t, sid) = (tenant.to_string(), sid.map(str::to_string));
    st.write_local(move |w| {
        let targets: Vec<(String, Value)> = match (&sid, uid) {
            (Some(s), _) => w.session(&t, s)?.map(|v| vec![(s.clone(), v)]).unwrap_or_default(),
            (None, Some(u)) => w.sessions_of_tenant(&t)?.into_iter().filter(|(_, v)| v["uid"].as_u64() == Some(u)).collect(),
            _ => Vec::new(),
        };
        for (s, mut v) in targets {
            v["revoked"] = json!(true);
            w.put_session(&t, &s, &v)?;
        }
        Ok(())
    })
    .await
}

pub async fn user_info(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    let user = crate::wire::record(&st.res.get("user"), st.settings.zone, (*s.user).clone());
    let str_of = |k: &str| user.get(k).cloned().unwrap_or(Value::Null);
    Ok(ok(json!({
        "tenantId": s.tenant, "userId": s.user_id.to_string(), "account": str_of("account"),
        "userName": str_of("name"), "nickName": str_of("name"), "realName": str_of("realName"),
        "avatar": user.get("avatar").and_then(Value::as_str).filter(|a| !a.is_empty()).unwrap_or(DEFAULT_AVATAR),
        "deptId": str_of("deptId"), "postId": str_of("postId"), "roleId": str_of("roleId"),
        "roleName": s.role_aliases.join(","), "oauthId": "",
    })))
}

pub async fn clear_cache(State(st): State<AppState>, _s: Session) -> Response {
    st.perms.invalidate();
    st.session_cache.clear();
    st.list_cache.clear();
    st.search_cache.clear();
    ok(Value::Null)
}

/// Sessions of people who signed in while the data file took no writes (a storage failure): kept in memory until
/// the restart, checked like stored ones.
#[derive(Default)]
pub struct MemSessions(std::sync::Mutex<std::collections::HashMap<(String, String), Value>>);

impl MemSessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<(String, String), Value>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
    pub fn put(&self, tenant: &str, sid: &str, session: Value) {
        self.lock().insert((tenant.to_string(), sid.to_string()), session);
    }
    pub fn get(&self, tenant: &str, sid: &str) -> Option<Value> {
        self.lock().get(&(tenant.to_string(), sid.to_string())).cloned()
    }
    pub fn has(&self, tenant: &str, sid: &str) -> bool {
        self.lock().contains_key(&(tenant.to_string(), sid.to_string()))
    }
    /// `f` applied to the session, if it is one of these.
    pub fn update<R>(&self, tenant: &str, sid: &str, f: impl FnOnce(&mut Value) -> R) -> Option<R> {
        self.lock().get_mut(&(tenant.to_string(), sid.to_string())).map(f)
    }
    /// Marks one session, or every session of a user, revoked; whether any was.
    pub fn revoke(&self, tenant: &str, sid: Option<&str>, uid: Option<u64>) -> bool {
        let mut any = false;
        for ((t, s), v) in self.lock().iter_mut() {
            if t == tenant && (sid == Some(s.as_str()) || (sid.is_none() && uid.is_some() && v["uid"].as_u64() == uid)) {
                v["revoked"] = json!(true);
                any = true;
            }
        }
        any
    }
}
