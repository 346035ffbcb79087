//! The signed-in session, extracted from `Blade-Auth: bearer <token>` (never from the query string). The token
//! names a session; the session, user, tenant and roles are read from the store on every request, so logout,
//! password change, disabling and tenant expiry take effect at once.
use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde_json::{Map, Value};

use crate::auth::perms::Perms;
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::ReqCtx;
use crate::state::AppState;

#[derive(Clone)]
pub struct Session {
    pub tenant: String,
    pub user_id: u64,
    pub dept_id: u64,
    pub sid: String,
    pub role_ids: Vec<u64>,
    pub role_aliases: Vec<String>,
    /// The user's record as validated (shared: every request of a cached session takes a copy of the session).
    pub user: Arc<Map<String, Value>>,
    pub perms: Arc<Perms>,
    /// The request path (API scopes are checked against it); set per request, never cached.
    pub path: String,
}

/// What a session whose password someone else set may still do (`Session::must_change_password`): set its own,
/// read who it is, sign out. Everything else answers 403 `must_change_password` until then.
const WHILE_MUST_CHANGE: &[&str] = &["/api/blade-user/update-password", "/api/blade-user/info", "/api/blade-auth/oauth/logout"];

impl Session {
    /// Signed in with a password someone else set (a 密码重置's one-time password, an install's first one): the
    /// pages send the user to /password, and the API refuses all but `WHILE_MUST_CHANGE` until he has set his own.
    pub fn must_change_password(&self) -> bool {
        self.user.get("mustChangePassword").and_then(Value::as_i64) == Some(1)
    }

    /// 403 for a session that must set its own password first, on any path but the few it needs for that.
    pub fn refuse_until_changed(&self, path: &str) -> ApiResult<()> {
        if self.must_change_password() && !WHILE_MUST_CHANGE.contains(&path) {
            return Err(ApiError::new(Kind::MustChangePassword));
        }
        Ok(())
    }

    pub fn actor(&self) -> store::Actor {
        store::Actor { user_id: self.user_id, dept_id: self.dept_id, at: None }
    }

    /// 403 unless one of the user's roles grants `code` and, when the roles granting it carry API scopes for
    /// its menu, the request path matches one of their patterns. The platform administrator is never limited
    /// by API scopes (nobody can lock the platform out).
    pub fn require(&self, code: &str) -> ApiResult<()> {
        self.require_at(code, &self.path)
    }

    /// `require` as if the request were for `path` (the search box checks each resource's list route).
    pub fn require_at(&self, code: &str, path: &str) -> ApiResult<()> {
        if !self.perms.codes.contains(code) {
            return Err(ApiError::with(Kind::Forbidden, code));
        }
        if self.is_platform_admin() {
            return Ok(());
        }
        match self.perms.api.get(code) {
            Some(patterns) if !patterns.iter().any(|p| crate::auth::perms::path_matches(p, path)) => {
                Err(ApiError::with(Kind::ApiScopeDenied, path.chars().take(200).collect::<String>()))
            }
            _ => Ok(()),
        }
    }

    /// The first of `codes` that passes `require`, else the error of the first.
    pub fn require_any(&self, codes: &[&str]) -> ApiResult<()> {
        let mut first = None;
        for c in codes {
            match self.require(c) {
                Ok(()) => return Ok(()),
                Err(e) => {
                    first.get_or_insert(e);
                }
            }
        }
        Err(first.unwrap_or_else(|| ApiError::new(Kind::Forbidden)))
    }

    /// The platform super-admin: role alias exactly `administrator` in tenant 000000.
    pub fn is_platform_admin(&self) -> bool {
        self.tenant == store::PLATFORM_TENANT && self.role_aliases.iter().any(|a| a == "administrator")
    }

    /// An administrator of the user's tenant (a role alias of `ADMIN_ALIASES`).
    pub fn is_tenant_admin(&self) -> bool {
        self.role_aliases.iter().any(|a| ADMIN_ALIASES.contains(&a.as_str()))
    }
}

/// Role aliases that make a user an administrator of its tenant (exact matches only).
pub const ADMIN_ALIASES: &[&str] = &["admin", "administrator"];

/// Comma-joined ids as stored in `roleId` / `deptId`.
pub fn id_list(v: Option<&Value>) -> Vec<u64> {
    match v {
        Some(Value::String(s)) => s.split(',').filter_map(|p| p.trim().parse().ok()).filter(|i| *i > 0).collect(),
        Some(Value::Number(n)) => n.as_u64().into_iter().collect(),
        _ => Vec::new(),
    }
}

pub fn bearer(parts: &Parts) -> Option<&str> {
    bearer_in(&parts.headers)
}

/// The token of `Blade-Auth: bearer <token>`.
pub fn bearer_in(headers: &axum::http::HeaderMap) -> Option<&str> {
    let v = headers.get("blade-auth")?.to_str().ok()?.trim();
    let (scheme, tok) = v.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| tok.trim()).filter(|t| !t.is_empty())
}

impl FromRequestParts<AppState> for Session {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, ApiError> {
        // Admitted by the route's guard already (`engine::routes`): the same session, taken over.
        if let Some(s) = parts.extensions.remove::<Session>() {
            return Ok(s);
        }
        let token = bearer(parts).ok_or_else(|| ApiError::new(Kind::Unauthorized))?;
        let mut s = load(st, token).await?;
        s.path = parts.uri.path().to_string();
        s.refuse_until_changed(&s.path)?;
        if let Some(ctx) = parts.extensions.get::<ReqCtx>() {
            ctx.set(&s.tenant, &s.user_id.to_string());
        }
        Ok(s)
    }
}

/// The versions a validated session depends on: any change to sessions, users, roles, tenants, menus or
/// grants makes every cached session be validated again.
#[derive(Clone, PartialEq, Eq)]
pub struct Stamp([u64; 6]);

impl Stamp {
    fn now(st: &AppState) -> Stamp {
        let v = |n: &str| st.store.version(n);
        Stamp([v("sessions"), v("user"), v("role"), v("tenant"), v("menu"), st.perms.epoch()])
    }
}

/// A validated session and the instant it stops being valid on its own (token, session or tenant expiry).
#[derive(Clone)]
pub struct Cached {
    session: Session,
    until_ms: i64,
}

/// Validates a token against the store and builds the session; a token validated under unchanged versions
/// is answered from the cache until its own expiry.
pub async fn load(st: &AppState, token: &str) -> ApiResult<Session> {
    let stamp = Stamp::now(st);
    let now = store::now_millis();
    let key = token.to_string();
    if let Some(c) = st.session_cache.get(&key, &stamp)
        && now < c.until_ms {
        return Ok(c.session);
    }
    let (session, until_ms) = validate(st, token, now).await?;
    st.session_cache.put(key, stamp, Cached { session: session.clone(), until_ms });
    Ok(session)
}

async fn validate(st: &AppState, token: &str, now: i64) -> ApiResult<(Session, i64)> {
    let claims = st.keys.verify(token).ok_or_else(|| ApiError::new(Kind::Unauthorized))?;
    let token_until = claims.exp.saturating_mul(1000);
    let uid: u64 = claims.uid.parse().map_err(|_| ApiError::new(Kind::Unauthorized))?;
    let st2 = st.clone();
    let in_memory = st.mem_sessions.get(&claims.tid, &claims.sid).and_then(|v| serde_json::from_value::<SessionHead>(v).ok());
    // Point reads only: run on this thread (see `AppState::read_now`).
    let found = st
        .read_now(move |r| {
            let head = match in_memory {
                Some(h) => h,
                None => match r.session_as::<SessionHead>(&claims.tid, &claims.sid)? {
                    Some(h) => h,
                    None => return Ok(None),
                },
            };
            if head.uid != uid || head.revoked || head.expires <= now {
                return Ok(None);
            }
            let user_def = st2.res.get("user");
            let Some(user) = r.get(&user_def, &claims.tid, uid)? else { return Ok(None) };
            if user.get("status").and_then(Value::as_i64) != Some(1)
                || user.get("tokenVersion").and_then(Value::as_i64).unwrap_or(0) != claims.ver
            {
                return Ok(None);
            }
            let Some(tenant) = crate::auth::tenants::active(r, &st2, &claims.tid)? else { return Ok(None) };
            let until = [token_until, head.expires, crate::auth::tenants::expiry_millis(&st2, &tenant).unwrap_or(i64::MAX)]
                .into_iter()
                .min()
                .unwrap_or(0);
            let role_ids = id_list(user.get("roleId"));
            // Role aliases and codes come from the cache (dropped on any grant or role change).
            let perms = st2.perms.get_or_compute(r, &st2.res, &claims.tid, &role_ids)?;
            // Sign-in admits no technical worker and no user without a role; neither does a session.
            if perms.worker || perms.aliases.is_empty() {
                return Ok(None);
            }
            let aliases = perms.aliases.clone();
            let dept_id = id_list(user.get("deptId")).first().copied().unwrap_or(0);
            Ok(Some((
                Session {
                    tenant: claims.tid.clone(),
                    user_id: uid,
                    dept_id,
                    sid: claims.sid.clone(),
                    role_ids,
                    role_aliases: aliases,
                    user: Arc::new(user),
                    perms,
                    path: String::new(),
                },
                until,
            )))
        })?;
    found.ok_or_else(|| ApiError::new(Kind::Unauthorized))
}

/// The fields of a stored session every request needs; the rest (retired refresh hashes) is skipped unparsed.
#[derive(serde::Deserialize)]
struct SessionHead {
    uid: u64,
    #[serde(default)]
    revoked: bool,
    #[serde(default)]
    expires: i64,
}
