//! HTTP plumbing shared by every route: the access log with request ids, rendering errors in the client's
//! language, panics and unknown routes as envelopes, and the body/query extractors that turn every malformed
//! input into an entry of the error table.
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;


use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, MatchedPath, Request};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

use crate::error::{ApiError, Kind, Lang, Rendered};

/// Largest JSON or form body accepted (uploads have their own limits).
pub const BODY_LIMIT: usize = 1 << 20;

/// Filled in by the auth extractor so that the access log line names the tenant and user.
#[derive(Clone, Default)]
pub struct ReqCtx(pub Arc<Mutex<Who>>);

#[derive(Default, Clone)]
pub struct Who {
    pub tenant: String,
    pub user: String,
}

impl ReqCtx {
    pub fn set(&self, tenant: &str, user: &str) {
        if let Ok(mut w) = self.0.lock() {
            w.tenant = tenant.to_string();
            w.user = user.to_string();
        }
    }
}

static NEXT_RID: AtomicU64 = AtomicU64::new(1);

/// One log line per request: request id, tenant, user, method, route, status, latency. Also re-renders error
/// bodies in English when the client asks for it, and stamps `x-request-id`.
pub async fn access_log(axum::extract::State(st): axum::extract::State<crate::state::AppState>, mut req: Request, next: Next) -> Response {
    let start = Instant::now();
    let query = req.uri().query().map(crate::logsink::redact_query).unwrap_or_default();
    let ip = peer_ip(req.extensions());
    let rid = format!("{:x}-{:x}", store::now_millis(), NEXT_RID.fetch_add(1, Ordering::Relaxed));
    let lang = Lang::from_accept(req.headers().get(header::ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok()));
    let method = req.method().clone();
    let matched = req.extensions().get::<MatchedPath>().map(|m| m.as_str().to_string());
    let route = matched.clone().unwrap_or_else(|| req.uri().path().chars().take(200).collect());
    let agent: String = req.headers().get(header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("").chars().take(300).collect();
    let ctx = ReqCtx::default();
    req.extensions_mut().insert(ctx.clone());
    // The route guards (`engine::routes`) read the state from here.
    req.extensions_mut().insert(st.clone());
    req.extensions_mut().insert(lang);
    let titled = st.route_titles.get().and_then(|t| t.get(&format!("{method} {route}")));
    // The api-log entry as known before the answer: every durable write of this request carries it into the data
    // file's outbox (`logsink::AuditStamp`), so no acknowledged write loses its entry in a crash.
    let base = {
        let mut doc = Map::new();
        doc.insert("requestId".into(), rid.clone().into());
        doc.insert("method".into(), method.as_str().into());
        doc.insert("requestUri".into(), route.clone().into());
        doc.insert("params".into(), query.clone().into());
        doc.insert("remoteIp".into(), ip.clone().into());
        doc.insert("title".into(), titled.map(|(t, _)| t.clone()).unwrap_or_default().into());
        doc.insert("serviceId".into(), "zhizhuang".into());
        doc.insert("serverHost".into(), st.host_name.clone().into());
        doc.insert("serverIp".into(), st.settings.listen.clone().into());
        doc.insert("env".into(), st.settings.env.clone().into());
        doc.insert("userAgent".into(), agent.clone().into());
        doc
    };
    let stamp = crate::logsink::AuditStamp { rid: rid.clone(), who: ctx.clone(), doc: std::sync::Arc::new(base), written: Default::default() };
    let mut resp = crate::error::LANG.scope(lang, crate::logsink::AUDIT.scope(stamp.clone(), next.run(req))).await;
    let rendered = resp.extensions().get::<Rendered>().cloned();
    if lang == Lang::En
        && let Some(Rendered(err)) = &rendered {
        resp = err.render(Lang::En);
    }
    if let Ok(v) = HeaderValue::from_str(&rid) {
        resp.headers_mut().insert("x-request-id", v);
    }
    let who = ctx.0.lock().map(|w| w.clone()).unwrap_or_default();
    let status = resp.status().as_u16();
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    tracing::info!(target: "zz::access", rid = %rid, tenant = %who.tenant, user = %who.user, method = %method,
        route = %route, status, latency_ms = format_args!("{ms:.2}"), "request");
    // A read is a GET or HEAD, or a route that lists with its filter in a POST body; with `--api-log writes` only
    // the successful ones are left out.
    let read = method == Method::GET || method == Method::HEAD || titled.is_some_and(|(_, r)| *r);
    // Every request is counted by its route pattern (paths no route matched share one name each: pages and
    // unknown api paths, so a scanner cannot grow the table).
    let pattern = match &matched {
        Some(p) => format!("{method} {p}"),
        None if route.starts_with("/api/") => format!("{method} (unknown api path)"),
        None => format!("{method} (page)"),
    };
    st.metrics.observe(&pattern, status, ms, store::now_millis());
    let successful_read = read && status < 400;
    let quiet_read = st.settings.api_log_writes_only && successful_read;
    if route.starts_with("/api/") && !quiet_read {
        let uid: u64 = who.user.parse().unwrap_or(0);
        let tenant = if who.tenant.is_empty() { store::PLATFORM_TENANT.to_string() } else { who.tenant.clone() };
        // The handler's copies of the stamp are gone with its scope: the document is taken back, not copied.
        let mut doc = std::sync::Arc::unwrap_or_clone(stamp.doc);
        doc.insert("httpStatus".into(), status.into());
        doc.insert("time".into(), Value::from((ms * 1000.0).round() / 1000.0));
        // Its copy in the data file's outbox (a write of this request committed) goes once this one is durable.
        let outbox = stamp.written.load(Ordering::Relaxed).then(|| crate::logsink::outbox_key(&rid));
        let entry = crate::logsink::Entry { resource: "log_api", tenant: tenant.clone(), user: uid, doc, outbox };
        // A change, a refusal or a failure is an audit entry: its answer waits for room rather than lose it.
        if successful_read { st.logs.offer(entry) } else { st.logs.record(entry).await }
    }
    if status >= 500 {
        // Server errors go to the platform's error log with their causes (for operators, not tenants).
        let cause = rendered.as_ref().and_then(|r| r.0.cause.clone()).map(|c| c.to_string()).unwrap_or_default();
        // What the tenant whose user met it may see too: that it happened — when, where, the request id to give
        // the operators — without its cause (the error log's 来源 服务端 would otherwise never match for a tenant).
        let mut seen = Map::new();
        seen.insert("source".into(), "server".into());
        seen.insert("type".into(), format!("http {status}").into());
        seen.insert("url".into(), route.chars().take(500).collect::<String>().into());
        seen.insert("time".into(), st.settings.zone.format(store::now_millis()).into());
        seen.insert("requestId".into(), rid.clone().into());
        let mut doc = seen.clone();
        doc.insert("message".into(), cause.into());
        doc.insert("info".into(), format!("{method} tenant={} user={} ip={ip}", who.tenant, who.user).into());
        let user = who.user.parse().unwrap_or(0);
        st.logs.record(crate::logsink::Entry { resource: "log_error", tenant: store::PLATFORM_TENANT.into(), user, doc, outbox: None }).await;
        if !who.tenant.is_empty() && who.tenant != store::PLATFORM_TENANT {
            seen.insert("message".into(), format!("服务器内部错误,原因已记入平台错误日志(请求编号 {rid}) / Internal server error; the cause is in the platform's error log (request {rid})").into());
            st.logs.record(crate::logsink::Entry { resource: "log_error", tenant: who.tenant.clone(), user, doc: seen, outbox: None }).await;
        }
    }
    resp
}

/// An `/api` path no route serves. A request that carries a valid token is still logged with its tenant and
/// user (the answer is the same 404 either way).
pub async fn unknown_route(req: Request) -> ApiError {
    let (mut parts, _) = req.into_parts();
    if let (Some(st), Some(ctx)) = (parts.extensions.get::<crate::state::AppState>().cloned(), parts.extensions.get::<ReqCtx>().cloned())
        && crate::auth::session::bearer(&parts).is_some()
        && let Ok(s) = <crate::auth::session::Session as FromRequestParts<crate::state::AppState>>::from_request_parts(&mut parts, &st).await {
        ctx.set(&s.tenant, &s.user_id.to_string());
    }
    ApiError::with(Kind::UnknownRoute, parts.uri.path().chars().take(200).collect::<String>())
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::new(Kind::MethodNotAllowed)
}

/// A panic is a bug: logged, and answered with the generic 500 envelope instead of a dropped connection.
pub fn panic_response(err: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let what = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| err.downcast_ref::<&str>().copied())
        .unwrap_or("panic");
    ApiError::internal(format!("handler panicked: {what}")).into_response()
}

/// The raw query string as ordered pairs (repeated keys kept).
pub struct QueryPairs(pub Vec<(String, String)>);

impl<S: Send + Sync> FromRequestParts<S> for QueryPairs {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        parse_pairs(parts.uri.query().unwrap_or("")).map(QueryPairs)
    }
}

fn parse_pairs(q: &str) -> Result<Vec<(String, String)>, ApiError> {
    serde_urlencoded::from_str::<Vec<(String, String)>>(q).map_err(|_| ApiError::with(Kind::BadFormat, "query"))
}

async fn read_body(req: Request) -> Result<(Option<String>, bytes::Bytes), ApiError> {
    let ctype = req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(|s| s.to_ascii_lowercase());
    let bytes = axum::body::to_bytes(req.into_body(), BODY_LIMIT).await.map_err(|e| {
        if std::error::Error::source(&e).is_some_and(|s| s.to_string().contains("length limit")) || e.to_string().contains("length limit") {
            ApiError::new(Kind::PayloadTooLarge)
        } else {
            ApiError::new(Kind::BadJson)
        }
    })?;
    Ok((ctype, bytes))
}

/// A JSON object body. Wrong content type → 415, bad JSON → 400, too large → 413.
pub struct JsonObject(pub Map<String, Value>);

impl<S: Send + Sync> FromRequest<S> for JsonObject {
    type Rejection = ApiError;
    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        let (ctype, bytes) = read_body(req).await?;
        if let Some(ct) = &ctype
            && !ct.starts_with("application/json") && !ct.contains("+json") {
            return Err(ApiError::new(Kind::UnsupportedMediaType));
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::new(Kind::NotAnObject));
        }
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(m)) => Ok(JsonObject(m)),
            Ok(_) => Err(ApiError::new(Kind::NotAnObject)),
            Err(_) => Err(ApiError::new(Kind::BadJson)),
        }
    }
}

/// Parameters from the query string merged with a form or JSON body, as Blade clients send either.
pub struct AnyParams(pub Vec<(String, String)>);

impl AnyParams {
    pub fn get(&self, k: &str) -> Option<&str> {
        self.0.iter().rev().find(|(key, _)| key == k).map(|(_, v)| v.as_str())
    }
}

impl<S: Send + Sync> FromRequest<S> for AnyParams {
    type Rejection = ApiError;
    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        let mut pairs = parse_pairs(req.uri().query().unwrap_or(""))?;
        let (ctype, bytes) = read_body(req).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(AnyParams(pairs));
        }
        match ctype.as_deref() {
            Some(ct) if ct.starts_with("application/json") => match serde_json::from_slice::<Value>(&bytes) {
                Ok(Value::Object(m)) => {
                    for (k, v) in m {
                        let s = match v {
                            Value::String(s) => s,
                            Value::Null => continue,
                            // Blade clients post id lists as JSON arrays (`GrantVO`): the comma form.
                            Value::Array(items) => items
                                .iter()
                                .map(|i| match i {
                                    Value::String(s) => s.clone(),
                                    other => other.to_string(),
                                })
                                .collect::<Vec<_>>()
                                .join(","),
                            other => other.to_string(),
                        };
                        pairs.push((k, s));
                    }
                }
                Ok(_) => return Err(ApiError::new(Kind::NotAnObject)),
                Err(_) => return Err(ApiError::new(Kind::BadJson)),
            },
            _ => {
                let text = std::str::from_utf8(&bytes).map_err(|_| ApiError::with(Kind::BadFormat, "body"))?;
                pairs.extend(parse_pairs(text)?);
            }
        }
        Ok(AnyParams(pairs))
    }
}

/// The peer address when the server knows it (tests through `oneshot` have none).
pub fn peer_ip(parts_ext: &axum::http::Extensions) -> String {
    parts_ext
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip().to_string())
        .unwrap_or_else(|| "local".to_string())
}

/// The request's host name without port, lower-cased.
/// A cookie's value (the first of that name), if set and not empty.
pub fn cookie<'a>(h: &'a axum::http::HeaderMap, name: &str) -> Option<&'a str> {
    h.get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

/// The UI's session cookie: the access token, set by the server on every token answer (`HttpOnly`, so no script
/// reads it; `SameSite=Strict`), for what a browser asks without headers — server-rendered pages and downloads.
pub const SESSION_COOKIE: &str = "zz-token";
/// The refresh token's cookie, sent only to the token endpoint (the UI's script never holds a refresh token).
pub const REFRESH_COOKIE: &str = "zz-refresh";
pub const REFRESH_COOKIE_PATH: &str = "/api/blade-auth/oauth/token";
/// Over HTTPS the two cookies carry the prefixes browsers enforce: `__Host-` (set by this very host over HTTPS, for
/// `/`, with no Domain) and `__Secure-` (set over HTTPS). A page of another subdomain (another company's address on
/// the same parent domain) or a plain-HTTP answer cannot plant or replace such a cookie, so nobody can slip a
/// session of theirs into a user's browser; and over HTTPS only these are read.
pub const SESSION_COOKIE_HTTPS: &str = "__Host-zz-token";
pub const REFRESH_COOKIE_HTTPS: &str = "__Secure-zz-refresh";

/// Whether a request came over HTTPS: the listener's mark, or a trusted proxy's `X-Forwarded-Proto`.
pub fn is_https(listener: Option<&crate::listen::Scheme>, h: &axum::http::HeaderMap, trust_proxy: bool) -> bool {
    let forwarded = || {
        let v = h.get("x-forwarded-proto").and_then(|v| v.to_str().ok()).unwrap_or("");
        v.split(',').next().is_some_and(|first| first.trim().eq_ignore_ascii_case("https"))
    };
    listener.is_some_and(|s| s.https) || (trust_proxy && forwarded())
}

/// The access token a page or download request carries: the server-set session cookie (the prefixed one over
/// HTTPS), else the script-set `saber-access-token` of sessions begun before it (and of Saber-style clients).
pub fn session_token(h: &axum::http::HeaderMap, https: bool) -> Option<&str> {
    cookie(h, if https { SESSION_COOKIE_HTTPS } else { SESSION_COOKIE }).or_else(|| cookie(h, "saber-access-token"))
}

/// The refresh token a token request carries in its cookie (the prefixed one over HTTPS).
pub fn refresh_cookie(h: &axum::http::HeaderMap, https: bool) -> Option<&str> {
    cookie(h, if https { REFRESH_COOKIE_HTTPS } else { REFRESH_COOKIE })
}

/// `Set-Cookie` values for a token answer: the access token for `access_secs`, the refresh token for `refresh_secs`
/// (on its path alone), both `HttpOnly; SameSite=Strict`; over HTTPS `Secure` and named with their prefixes. Cleared
/// when `tokens` is None (over HTTPS the unprefixed ones of an older release too).
pub fn session_cookies(tokens: Option<(&str, u64, &str, u64)>, https: bool) -> Vec<HeaderValue> {
    let secure = if https { "; Secure" } else { "" };
    let one = |name: &str, path: &str, value: &str, secs: u64| {
        HeaderValue::from_str(&format!("{name}={value}; Path={path}; Max-Age={secs}; HttpOnly; SameSite=Strict{secure}")).ok()
    };
    let (session, refresh) = if https { (SESSION_COOKIE_HTTPS, REFRESH_COOKIE_HTTPS) } else { (SESSION_COOKIE, REFRESH_COOKIE) };
    match tokens {
        Some((access, access_secs, refresh_token, refresh_secs)) => {
            [one(session, "/", access, access_secs), one(refresh, REFRESH_COOKIE_PATH, refresh_token, refresh_secs)].into_iter().flatten().collect()
        }
        None => {
            let mut out: Vec<HeaderValue> = [one(session, "/", "", 0), one(refresh, REFRESH_COOKIE_PATH, "", 0)].into_iter().flatten().collect();
            if https {
                out.extend([one(SESSION_COOKIE, "/", "", 0), one(REFRESH_COOKIE, REFRESH_COOKIE_PATH, "", 0)].into_iter().flatten());
            }
            out
        }
    }
}

pub fn host_of(headers: &axum::http::HeaderMap) -> String {
    let h = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    let h = if h.starts_with('[') { h.split(']').next().map(|s| &s[1..]).unwrap_or(h) } else { h.split(':').next().unwrap_or(h) };
    h.to_ascii_lowercase()
}

#[derive(serde::Serialize)]
struct Envelope<T> {
    code: u16,
    success: bool,
    data: T,
    msg: &'static str,
}

/// A successful Blade envelope, serialized straight from `data` (no intermediate JSON tree).
pub fn ok(data: impl serde::Serialize) -> Response {
    axum::Json(Envelope { code: 200, success: true, data, msg: "操作成功" }).into_response()
}

/// The bytes of a successful envelope, for answers that are cached.
pub fn ok_bytes(data: impl serde::Serialize) -> Result<bytes::Bytes, ApiError> {
    serde_json::to_vec(&Envelope { code: 200, success: true, data, msg: "操作成功" })
        .map(bytes::Bytes::from)
        .map_err(ApiError::internal)
}

pub fn json_bytes(body: bytes::Bytes) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response()
}

