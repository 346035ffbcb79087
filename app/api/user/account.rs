//! Public and self-service account flows: guest registration (a pending account, status 0, that cannot sign
//! in until an administrator approves it with `POST /api/blade-user/audit-pass?ids=`), SMS codes (sent through
//! a provider; the only built-in one writes the code to the server log, labelled as not delivered), binding a
//! phone, and retrieving a password with an SMS code. Codes are single-use, expire after five minutes and are
//! throttled per phone, account and client address; unknown accounts get the same answers as known ones.
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Map, Value, json};

use crate::auth::password;
use crate::auth::throttle::Key;
use crate::auth::session::Session;
use crate::auth::token::Caller;
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

const CODE_TTL: Duration = Duration::from_secs(300);
/// Wrong codes tolerated for one issued code before it is burnt.
const MAX_TRIES: u32 = 5;

/// Delivers a text to a phone.
pub trait SmsProvider: Send + Sync {
    fn send(&self, tenant: &str, phone: &str, text: &str);
}

/// The built-in provider: writes the message to the server log. Nothing is delivered.
pub struct LogProvider;

impl SmsProvider for LogProvider {
    fn send(&self, tenant: &str, phone: &str, text: &str) {
        tracing::warn!(target: "zz::sms", provider = "log (NOT DELIVERED)", tenant, phone, text, "SMS written to the log instead of being sent");
    }
}

pub fn provider() -> &'static dyn SmsProvider {
    &LogProvider
}

struct Issued {
    code: String,
    until: Instant,
    tries: u32,
}

fn codes() -> &'static Mutex<HashMap<String, Issued>> {
    static C: std::sync::OnceLock<Mutex<HashMap<String, Issued>>> = std::sync::OnceLock::new();
    C.get_or_init(Default::default)
}

fn key(tenant: &str, purpose: &str, who: &str) -> String {
    format!("{tenant}\u{1f}{purpose}\u{1f}{}", who.to_lowercase())
}

/// The throttle's keys of an attempt about `k` from `ip`: the subject from anywhere (codes sent to one phone or
/// account are limited however many addresses ask) and the address over every subject.
fn keys(k: &str, ip: &str) -> [Key; 2] {
    [Key::own("account", k), Key::address("account", ip)]
}

fn throttled(st: &AppState, k: &str, ip: &str) -> ApiResult<()> {
    if let Some(wait) = st.throttle.wait(&keys(k, ip)) {
        let mut e = ApiError::with(Kind::TooManyRequests, wait.to_string());
        e.retry_after = Some(wait);
        return Err(e);
    }
    Ok(())
}

/// Issues a 6-digit code for (tenant, purpose, who) and sends it to `phone` (when there is one). Every issue
/// counts against the throttle, so codes cannot be requested in a loop.
fn issue(st: &AppState, tenant: &str, purpose: &str, who: &str, phone: Option<&str>, ip: &str) -> ApiResult<()> {
    let k = key(tenant, purpose, who);
    throttled(st, &k, ip)?;
    st.throttle.failed(&keys(&k, ip));
    let code = format!("{:06}", rand::random_range(0..1_000_000u32));
    if let Some(phone) = phone {
        provider().send(tenant, phone, &format!("【智装】验证码 {code},5分钟内有效。"));
        let mut m = codes().lock().unwrap_or_else(|e| e.into_inner());
        m.retain(|_, v| v.until > Instant::now());
        m.insert(k, Issued { code, until: Instant::now() + CODE_TTL, tries: 0 });
    }
    Ok(())
}

/// Consumes a code: true once for the right one within its lifetime.
fn consume(tenant: &str, purpose: &str, who: &str, given: &str) -> bool {
    let k = key(tenant, purpose, who);
    let mut m = codes().lock().unwrap_or_else(|e| e.into_inner());
    let Some(e) = m.get_mut(&k) else { return false };
    if e.until <= Instant::now() || e.tries >= MAX_TRIES {
        m.remove(&k);
        return false;
    }
    if e.code == given.trim() {
        m.remove(&k);
        return true;
    }
    e.tries += 1;
    false
}

/// The code currently issued (for tests and the operator, who reads the log anyway).
#[doc(hidden)]
pub fn peek(tenant: &str, purpose: &str, who: &str) -> Option<String> {
    codes().lock().ok()?.get(&key(tenant, purpose, who)).map(|e| e.code.clone())
}

fn need<'a>(p: &'a AnyParams, k: &str) -> ApiResult<&'a str> {
    p.get(k).map(str::trim).filter(|v| !v.is_empty()).ok_or_else(|| ApiError::with(Kind::Missing, k.to_string()))
}

/// POST register-guest (tenantId, name, account, password (MD5), oauthId): a pending account (status 0).
pub async fn register_guest(State(st): State<AppState>, caller: Caller, p: AnyParams) -> ApiResult<Response> {
    let tenant = crate::auth::token::resolve_tenant(&st, &caller.headers, p.get("tenantId")).await?;
    let k = key(&tenant, "register", &caller.ip);
    throttled(&st, &k, &caller.ip)?;
    let (account, name, pw) = (need(&p, "account")?, need(&p, "name")?, need(&p, "password")?);
    let mut input = Map::new();
    input.insert("account".into(), json!(account));
    input.insert("name".into(), json!(name));
    input.insert("realName".into(), json!(p.get("realName").unwrap_or(name)));
    let def = st.res.get("user");
    let mut doc = def.parse_input(&input, true)?;
    st.throttle.failed(&keys(&k, &caller.ip));
    let hash = crate::api::user::admin::hash_pw(&st, password::normalize(pw)).await?;
    doc.insert("passwordHash".into(), json!(hash));
    doc.insert("tokenVersion".into(), json!(0));
    doc.insert("status".into(), json!(0));
    doc.insert("roleId".into(), json!(""));
    doc.insert("oauthId".into(), json!(p.get("oauthId").unwrap_or("").chars().take(64).collect::<String>()));
    st.write(move |w| w.insert(&def, &tenant, doc.clone(), &store::Actor::default()).map(|_| ())).await?;
    Ok(ok(Value::Null))
}

/// GET common/sendSms?phone=: a code to bind that phone to the signed-in account.
pub async fn send_sms(State(st): State<AppState>, s: Session, caller: Caller, p: AnyParams) -> ApiResult<Response> {
    let phone = need(&p, "phone")?;
    if !store::pattern_ok(store::Pattern::Phone, phone) {
        return Err(ApiError::new(Kind::BadPhone));
    }
    issue(&st, &s.tenant, "bind", phone, Some(phone), &caller.ip)?;
    Ok(ok(Value::Null))
}

/// POST common/bindUserPhone/{userId} (phone, code): one's own account, or another's with `user_edit`.
pub async fn bind_phone(State(st): State<AppState>, s: Session, Path(user): Path<String>, req: axum::extract::Request) -> ApiResult<Response> {
    let uid = crate::engine::crud::parse_id(Some(&user))?;
    if uid != s.user_id {
        s.require("user_edit")?;
        crate::engine::crud::get_scoped(&st, &s, &st.res.get("user"), uid).await?;
    }
    // The body is read only once the caller may act on this account.
    let p = <AnyParams as axum::extract::FromRequest<()>>::from_request(req, &()).await?;
    let (phone, code) = (need(&p, "phone")?, need(&p, "code")?);
    if !store::pattern_ok(store::Pattern::Phone, phone) {
        return Err(ApiError::new(Kind::BadPhone));
    }
    if !consume(&s.tenant, "bind", phone, code) {
        return Err(ApiError::new(Kind::SmsCodeWrong));
    }
    let mut patch = Map::new();
    patch.insert("phone".into(), json!(phone));
    let (d, t, actor) = (st.res.get("user"), s.tenant.clone(), s.actor());
    st.write(move |w| w.update(&d, &t, uid, patch.clone(), &actor).map(|_| ())).await?;
    Ok(ok(Value::Null))
}

/// The phone on file of an active account, if any.
async fn phone_of(st: &AppState, tenant: &str, account: &str) -> ApiResult<Option<(u64, String)>> {
    let (st2, t, a) = (st.clone(), tenant.to_string(), account.to_string());
    st.read(move |r| {
        let d = st2.res.get("user");
        let Some(id) = r.find_unique(&d, &t, "account", &a)? else { return Ok(None) };
        let u = r.get(&d, &t, id)?;
        Ok(u.and_then(|u| u.get("phone").and_then(Value::as_str).filter(|p| !p.is_empty()).map(|p| (id, p.to_string()))))
    })
    .await
}

/// POST retrieve-password/vertifyCode (form, Tenant-Id; account): sends a code to the account's phone. The
/// answer is the same whether or not the account exists or has a phone.
pub async fn retrieve_code(State(st): State<AppState>, caller: Caller, p: AnyParams) -> ApiResult<Response> {
    let tenant = crate::auth::token::resolve_tenant(&st, &caller.headers, p.get("tenantId")).await?;
    let account = need(&p, "account").or_else(|_| need(&p, "username"))?;
    let phone = phone_of(&st, &tenant, account).await?.map(|(_, p)| p);
    issue(&st, &tenant, "retrieve", account, phone.as_deref(), &caller.ip)?;
    Ok(ok(Value::Null))
}

/// POST retrieve-password/update (form, Tenant-Id; account, code, password, password2 (MD5)): sets the password
/// and revokes the account's sessions. A wrong code and an unknown account get the same answer.
pub async fn retrieve_update(State(st): State<AppState>, caller: Caller, p: AnyParams) -> ApiResult<Response> {
    let tenant = crate::auth::token::resolve_tenant(&st, &caller.headers, p.get("tenantId")).await?;
    let account = need(&p, "account").or_else(|_| need(&p, "username"))?;
    let (code, pw) = (need(&p, "code")?, need(&p, "password")?);
    if let Some(pw2) = p.get("password2").map(str::trim).filter(|v| !v.is_empty())
        && pw2 != pw {
        return Err(ApiError::new(Kind::PasswordsDiffer));
    }
    let k = key(&tenant, "retrieve-check", account);
    throttled(&st, &k, &caller.ip)?;
    let found = phone_of(&st, &tenant, account).await?;
    let good = consume(&tenant, "retrieve", account, code);
    let Some((uid, _)) = found.filter(|_| good) else {
        st.throttle.failed(&keys(&k, &caller.ip));
        return Err(ApiError::new(Kind::SmsCodeWrong));
    };
    let hash = crate::api::user::admin::hash_pw(&st, password::normalize(pw)).await?;
    crate::api::user::profile::set_password(&st, &tenant, uid, hash, false).await?;
    Ok(ok(Value::Null))
}
