//! The signed-in user's own endpoints: `blade-user/info` and `blade-user/update-password`.
use axum::extract::State;
use axum::response::Response;
use serde_json::{Value, json};

use crate::auth::password;
use crate::auth::throttle::Key;
use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

pub async fn info(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    let mut u = crate::wire::record(&st.res.get("user"), st.settings.zone, (*s.user).clone());
    u.insert("roleName".into(), json!(s.role_aliases.join(",")));
    Ok(ok(u))
}

/// Old password checked (throttled like sign-in), new ones must match and differ from the old; on success the
/// hash is replaced, the token version bumped and every session of the user revoked (the current one too).
pub async fn update_password(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let get = |k: &str| p.get(k).map(str::trim).filter(|v| !v.is_empty());
    let old = get("oldPassword").ok_or_else(|| ApiError::with(Kind::Missing, "oldPassword"))?;
    let new = get("newPassword").ok_or_else(|| ApiError::with(Kind::Missing, "newPassword"))?;
    let new1 = get("newPassword1").ok_or_else(|| ApiError::with(Kind::Missing, "newPassword1"))?;
    if new != new1 {
        return Err(ApiError::new(Kind::PasswordsDiffer));
    }
    let (old, new) = (password::normalize(old), password::normalize(new));
    if old == new {
        return Err(ApiError::new(Kind::PasswordSame));
    }
    // The password that replaces one someone else set (the forced change) is no guesser's first try.
    if s.must_change_password() && password::is_common(&new) {
        return Err(ApiError::new(Kind::WeakPassword));
    }
    let who = format!("{}:{}", s.tenant, s.user.get("account").and_then(Value::as_str).unwrap_or(""));
    if let Some(wait) = st.throttle.wait(&[Key::own("password-change", &who)]) {
        let mut e = ApiError::with(Kind::TooManyRequests, wait.to_string());
        e.retry_after = Some(wait);
        return Err(e);
    }
    let phc = s.user.get("passwordHash").and_then(Value::as_str).unwrap_or("").to_string();
    let (good, new_hash) = {
        let _permit = st.hashing.acquire().await.map_err(ApiError::internal)?;
        tokio::task::spawn_blocking(move || {
            let good = password::verify(&old, &phc);
            (good, good.then(|| password::hash(&new)))
        })
        .await
        .map_err(ApiError::internal)?
    };
    let Some(new_hash) = new_hash.filter(|_| good) else {
        st.throttle.failed(&[Key::own("password-change", &who)]);
        return Err(ApiError::new(Kind::OldPasswordWrong));
    };
    set_password(&st, &s.tenant, s.user_id, new_hash, false).await?;
    Ok(ok(Value::Null))
}

/// Stores a new hash, bumps the token version (old access tokens stop working) and revokes all sessions.
pub async fn set_password(st: &AppState, tenant: &str, uid: u64, phc: String, must_change: bool) -> ApiResult<()> {
    let (st2, t) = (st.clone(), tenant.to_string());
    st.write(move |w| {
        let def = st2.res.get("user");
        let user = w.get(&def, &t, uid)?.ok_or(store::StoreError::NotFound)?;
        let ver = user.get("tokenVersion").and_then(Value::as_i64).unwrap_or(0) + 1;
        let mut patch = serde_json::Map::new();
        patch.insert("passwordHash".into(), json!(phc));
        patch.insert("tokenVersion".into(), json!(ver));
        patch.insert("mustChangePassword".into(), json!(must_change as i64));
        w.update(&def, &t, uid, patch, &store::Actor { user_id: uid, dept_id: 0, at: None })?;
        Ok(())
    })
    .await?;
    crate::auth::token::revoke(st, tenant, None, Some(uid)).await
}

/// POST check-password (`password`, the MD5): the lock screen's unlock, checked against the stored hash and
/// throttled like sign-in. Nothing of the password is kept in the browser in clear.
pub async fn check_password(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let given = p.get("password").map(str::trim).filter(|v| !v.is_empty()).ok_or_else(|| ApiError::with(Kind::Missing, "password"))?;
    let given = password::normalize(given);
    // The user's own key: one tenant's unlocks never delay another's, nor another user's.
    let who = format!("{}:{}", s.tenant, s.user.get("account").and_then(Value::as_str).unwrap_or(""));
    if let Some(wait) = st.throttle.wait(&[Key::own("unlock", &who)]) {
        let mut e = ApiError::with(Kind::TooManyRequests, wait.to_string());
        e.retry_after = Some(wait);
        return Err(e);
    }
    let phc = s.user.get("passwordHash").and_then(Value::as_str).unwrap_or("").to_string();
    let good = {
        let _permit = st.hashing.acquire().await.map_err(ApiError::internal)?;
        tokio::task::spawn_blocking(move || password::verify(&given, &phc)).await.map_err(ApiError::internal)?
    };
    if !good {
        st.throttle.failed(&[Key::own("unlock", &who)]);
        return Err(ApiError::new(Kind::PasswordWrong));
    }
    Ok(ok(Value::Null))
}

/// Fields a person may change on their own record (personal info screen).
const OWN_FIELDS: &[&str] = &["name", "realName", "phone", "email", "sex", "birthday", "avatar"];

/// POST update-info: the signed-in user's own name, real name, phone, email, sex, birthday and avatar.
pub async fn update_info(State(st): State<AppState>, s: Session, crate::http::JsonObject(body): crate::http::JsonObject) -> ApiResult<Response> {
    let def = st.res.get("user");
    let own: serde_json::Map<String, Value> = body.into_iter().filter(|(k, _)| OWN_FIELDS.contains(&k.as_str())).collect();
    if let Some(Value::String(a)) = own.get("avatar")
        && !a.is_empty() && !(a.starts_with("/files/") || a.starts_with("/static/")) {
        return Err(ApiError::with(Kind::BadFormat, "avatar"));
    }
    let patch = def.parse_input(&own, false)?;
    let (d, t, uid, actor) = (def.clone(), s.tenant.clone(), s.user_id, s.actor());
    let saved = st.write(move |w| w.update(&d, &t, uid, patch.clone(), &actor)).await?;
    Ok(ok(crate::wire::record(&def, st.settings.zone, saved)))
}

/// POST avatar (multipart `file`): jpg or png of at most 500 KB, checked by content; becomes the avatar.
pub async fn avatar(State(st): State<AppState>, s: Session, mp: axum::extract::Multipart) -> ApiResult<Response> {
    let up = crate::engine::uploads::read_upload(&st, &s, mp, crate::engine::uploads::MAX_AVATAR).await?;
    let saved = crate::engine::uploads::store_upload(&st, &s, up, "avatar", &["jpg", "png"]).await?;
    let link = saved["link"].clone();
    let (def, t, uid, actor) = (st.res.get("user"), s.tenant.clone(), s.user_id, s.actor());
    let mut patch = serde_json::Map::new();
    patch.insert("avatar".into(), link.clone());
    st.write(move |w| w.update(&def, &t, uid, patch.clone(), &actor)).await?;
    Ok(ok(json!({"link": link})))
}
