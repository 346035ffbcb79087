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
    pub user: Map<String, Value>,
    pub perms: Arc<Perms>,
}

impl Session {
    pub fn actor(&self) -> store::Actor {
        store::Actor { user_id: self.user_id, dept_id: self.dept_id }
    }

    /// 403 unless one of the user's roles grants `code`.
    pub fn require(&self, code: &str) -> ApiResult<()> {
        if self.perms.codes.contains(code) { Ok(()) } else { Err(ApiError::with(Kind::Forbidden, code)) }
    }

    /// The platform super-admin: role alias exactly `administrator` in tenant 000000.
    pub fn is_platform_admin(&self) -> bool {
        self.tenant == store::PLATFORM_TENANT && self.role_aliases.iter().any(|a| a == "administrator")
    }
}

/// Comma-joined ids as stored in `roleId` / `deptId`.
pub fn id_list(v: Option<&Value>) -> Vec<u64> {
    match v {
        Some(Value::String(s)) => s.split(',').filter_map(|p| p.trim().parse().ok()).filter(|i| *i > 0).collect(),
        Some(Value::Number(n)) => n.as_u64().into_iter().collect(),
        _ => Vec::new(),
    }
}

pub fn bearer(parts: &Parts) -> Option<&str> {
    let v = parts.headers.get("blade-auth")?.to_str().ok()?.trim();
    let (scheme, tok) = v.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| tok.trim()).filter(|t| !t.is_empty())
}

impl FromRequestParts<AppState> for Session {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, ApiError> {
        let token = bearer(parts).ok_or_else(|| ApiError::new(Kind::Unauthorized))?;
        let s = load(st, token).await?;
        if let Some(ctx) = parts.extensions.get::<ReqCtx>() {
            ctx.set(&s.tenant, &s.user_id.to_string());
        }
        Ok(s)
    }
}

/// Validates a token against the store and builds the session.
pub async fn load(st: &AppState, token: &str) -> ApiResult<Session> {
    let claims = st.keys.verify(token).ok_or_else(|| ApiError::new(Kind::Unauthorized))?;
    let uid: u64 = claims.uid.parse().map_err(|_| ApiError::new(Kind::Unauthorized))?;
    let st2 = st.clone();
    let now = store::now_millis();
    let found = st
        .read(move |r| {
            let Some(sess) = r.session(&claims.tid, &claims.sid)? else { return Ok(None) };
            let live = sess.get("uid").and_then(Value::as_u64) == Some(uid)
                && !sess.get("revoked").and_then(Value::as_bool).unwrap_or(false)
                && sess.get("expires").and_then(Value::as_i64).unwrap_or(0) > now;
            if !live {
                return Ok(None);
            }
            let user_def = st2.res.get("user");
            let Some(user) = r.get(&user_def, &claims.tid, uid)? else { return Ok(None) };
            if user.get("status").and_then(Value::as_i64) != Some(1)
                || user.get("tokenVersion").and_then(Value::as_i64).unwrap_or(0) != claims.ver
            {
                return Ok(None);
            }
            if crate::api::tenant::active(r, &st2, &claims.tid)?.is_none() {
                return Ok(None);
            }
            let role_ids = id_list(user.get("roleId"));
            let role_def = st2.res.get("role");
            let mut aliases = Vec::new();
            for id in &role_ids {
                if let Some(role) = r.get(&role_def, &claims.tid, *id)? {
                    aliases.push(role.get("roleAlias").and_then(Value::as_str).unwrap_or("").to_string());
                }
            }
            let perms = st2.perms.get_or_compute(r, &st2.res, &claims.tid, &role_ids)?;
            let dept_id = id_list(user.get("deptId")).first().copied().unwrap_or(0);
            Ok(Some(Session {
                tenant: claims.tid.clone(),
                user_id: uid,
                dept_id,
                sid: claims.sid.clone(),
                role_ids,
                role_aliases: aliases,
                user,
                perms,
            }))
        })
        .await?;
    found.ok_or_else(|| ApiError::new(Kind::Unauthorized))
}
