//! Server-rendered pages. Every GET outside `/api` renders the UI for the signed-in user (the
//! server-set `zz-token` cookie, `http::session_token`) with its data; the same props are embedded as escaped JSON so the browser
//! hydrates the same tree. A render that throws, times out or meets a busy pool is logged and answered with
//! the client-rendered shell: never a blank page, never a 500.
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::auth::session::Session;
use crate::error::{ApiError, Kind, Lang};
use crate::state::AppState;

use crate::assets::ui;


/// Content-Security-Policy of every page: scripts only from this server, no inline script (the props are a
/// JSON data block, not script); frames only of this site and of the addresses configured for the user's
/// tenant (`frames`: its menus' external links, the launcher's applications, the feedback and appraise sites).
fn csp(frames: &[String]) -> String {
    let mut allowed = String::from("'self'");
    for f in frames.iter().filter(|f| f.starts_with("http")) {
        allowed.push(' ');
        allowed.push_str(f);
    }
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; \
    connect-src 'self'; font-src 'self' data:; frame-src {allowed}; object-src 'none'; base-uri 'self'; \
    form-action 'self'; frame-ancestors 'self'"
    )
}

/// The origin (`https://host:port`) of an absolute http(s) address, lowercased; None for anything else. The host
/// must read as a name or an address (no spaces, quotes or semicolons: it goes into a header).
pub fn origin_of(url: &str) -> Option<String> {
    let lower = url.trim().to_ascii_lowercase();
    let (scheme, rest) = lower.split_once("://")?;
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next()?;
    if authority.is_empty() || !authority.bytes().all(|b| b.is_ascii_alphanumeric() || b".-:[]_".contains(&b)) {
        return None;
    }
    Some(format!("{scheme}://{authority}"))
}

/// What the frame page may show for a signed-in user: the origins of the external addresses configured for the
/// tenant (its menus' http(s) paths, the launcher, feedback and appraise), and the same-site `.html` paths of its
/// menus. Everything else is refused there.
fn frame_sources(props: &Value) -> Vec<String> {
    fn walk(menus: &Value, out: &mut Vec<String>) {
        for m in menus.as_array().into_iter().flatten() {
            let p = m["path"].as_str().unwrap_or("");
            if let Some(o) = origin_of(p) {
                out.push(o);
            } else if p.starts_with('/') && p.contains("html") && same_site_path(p) {
                out.push(p.to_string());
            }
            walk(&m["children"], out);
        }
    }
    let mut out = Vec::new();
    walk(&props["menus"], &mut out);
    for a in props["site"]["apps"].as_array().into_iter().flatten() {
        out.extend(a["url"].as_str().and_then(origin_of));
    }
    for k in ["feedbackUrl", "appraiseUrl"] {
        out.extend(props["site"][k].as_str().and_then(origin_of));
    }
    out.sort();
    out.dedup();
    out
}

/// The hashed client bundle files, cached for a year (names change with content), compressed at build time:
/// brotli when the browser takes it, else gzip, else as they are.
pub async fn asset(axum::extract::Path(name): axum::extract::Path<String>, headers: HeaderMap) -> Response {
    let unknown = || ApiError::with(Kind::UnknownRoute, format!("/assets/{name}")).into_response();
    if name.ends_with(".br") || name.ends_with(".gz") {
        return unknown();
    }
    let Some((n, plain)) = ui::CLIENT.iter().find(|(n, _)| *n == name) else { return unknown() };
    let takes = |coding: &str| {
        headers.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).any(|e| {
            let mut it = e.split(';');
            it.next().is_some_and(|c| c.trim().eq_ignore_ascii_case(coding)) && !it.any(|q| matches!(q.trim().replace(' ', "").as_str(), "q=0" | "q=0.0" | "q=0.00" | "q=0.000"))
        })
    };
    let variant = |ext: &str| ui::CLIENT.iter().find(|(v, _)| v.len() == n.len() + ext.len() && v.starts_with(n) && v.ends_with(ext)).map(|(_, b)| *b);
    let (bytes, coding) = match (takes("br").then(|| variant(".br")).flatten(), takes("gzip").then(|| variant(".gz")).flatten()) {
        (Some(b), _) => (b, Some("br")),
        (None, Some(g)) => (g, Some("gzip")),
        _ => (*plain, None),
    };
    let mime = if n.ends_with(".js") { "text/javascript; charset=utf-8" } else if n.ends_with(".css") { "text/css; charset=utf-8" } else { "application/octet-stream" };
    // Embedded in the binary: answered from where they lie, never copied.
    let mut r = axum::body::Body::from(bytes).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    if let Some(c) = coding {
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(c));
    }
    h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=31536000, immutable"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    r
}

/// Paths the spec serves outside `/api` (the receivables' `/blade-api/…`, `/bladeDict/…`, the work orders'
/// `/worklist/order/…`): an unknown one is an API call gone wrong and answers the envelope, not the HTML 404 page.
fn api_shaped(path: &str) -> bool {
    path.starts_with("/blade-") || path.starts_with("/bladeDict") || path.starts_with("/worklist/order/")
}

/// Fallback of the router: pages for GET outside `/api`, the error table for everything else.
pub async fn fallback(State(st): State<AppState>, req: Request) -> Response {
    let path = req.uri().path().to_string();
    if path.starts_with("/api/") || path == "/api" || api_shaped(&path) {
        return crate::http::unknown_route(req).await.into_response();
    }
    if req.method() != axum::http::Method::GET && req.method() != axum::http::Method::HEAD {
        return ApiError::new(Kind::MethodNotAllowed).into_response();
    }
    page(&st, req).await
}

async fn page(st: &AppState, req: Request) -> Response {
    let url = req.uri().path_and_query().map(|p| p.as_str().to_string()).unwrap_or_else(|| "/".into());
    let headers = req.headers().clone();
    // Spec §2: the screens are Chinese until the user picks English (the switch keeps the choice in a cookie);
    // the browser's own language does not decide it.
    let lang = match crate::http::cookie(&headers, "zz-lang") {
        Some("en") => Lang::En,
        _ => Lang::Zh,
    };
    let https = crate::http::is_https(req.extensions().get::<crate::listen::Scheme>(), &headers, st.settings.trust_proxy);
    let session = match crate::http::session_token(&headers, https) {
        Some(tok) => crate::auth::session::load(st, tok).await.ok(),
        None => None,
    };
    // A session whose password someone else set sees /password alone (its data too: the props of any other page
    // are not made) until the user has set his own.
    if session.as_ref().is_some_and(|s| s.must_change_password()) && url.split('?').next() != Some("/password") {
        return redirect("/password");
    }
    let mut props = match props(st, &url, &headers, lang, session.as_ref()).await {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let frames = if props["user"].is_null() { Vec::new() } else { frame_sources(&props) };
    props["site"]["frames"] = json!(frames);
    if headers.get("x-zz-props").is_some() {
        let mut r = axum::Json(props).into_response();
        r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        return r;
    }
    let props_json = props.to_string();
    let (status, body) = match render(st, &url, &props_json).await {
        Some(html) => match directive(&html) {
            Directive::Redirect(to) => return redirect(&to),
            Directive::Status(code, rest) => (code, rest.to_string()),
            Directive::None => (StatusCode::OK, html),
        },
        None => (StatusCode::OK, String::new()),
    };
    let (parts, body) = parts_of(&body);
    let doc = document(lang, body, &props_json, &parts);
    let mut r = (status, doc).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(v) = HeaderValue::from_str(&csp(&frames)) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    r
}

/// Renders on the pool; `None` (logged) means "serve the client-rendered shell".
async fn render(st: &AppState, url: &str, props: &str) -> Option<String> {
    let Some(pool) = st.ssr.get() else {
        tracing::warn!(target: "zz::ssr", url, "render pool not ready: client-rendered shell");
        return None;
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    pool.render(url, props, move |r| {
        let _ = tx.send(r);
    });
    match rx.await {
        Ok(Ok(html)) => Some(html),
        Ok(Err(e)) => {
            tracing::error!(target: "zz::ssr", url, error = %e, "render failed: client-rendered shell");
            None
        }
        Err(_) => None,
    }
}

enum Directive<'a> {
    None,
    Redirect(String),
    Status(StatusCode, &'a str),
}

/// The server bundle prefixes `<!--zz-redirect:URL-->` or `<!--zz-status:NNN-->` when the page is not a 200.
fn directive(html: &str) -> Directive<'_> {
    let Some(rest) = html.strip_prefix("<!--zz-") else { return Directive::None };
    let Some(end) = rest.find("-->") else { return Directive::None };
    let (head, body) = (&rest[..end], &rest[end + 3..]);
    if let Some(to) = head.strip_prefix("redirect:") {
        // Only same-site paths: a directive can never send the browser elsewhere.
        if same_site_path(to) {
            return Directive::Redirect(to.to_string());
        }
        return Directive::Redirect("/404".into());
    }
    if let Some(code) = head.strip_prefix("status:").and_then(|c| c.parse::<u16>().ok()).and_then(|c| StatusCode::from_u16(c).ok()) {
        return Directive::Status(code, body);
    }
    Directive::None
}

/// A path on this site: `/` then no second `/` or `\\`, and no control character or backslash anywhere
/// (browsers drop tabs and newlines and read `\\` as `/`, so `/\t/evil.example` would go to `//evil.example`).
pub fn same_site_path(to: &str) -> bool {
    let b = to.as_bytes();
    b.first() == Some(&b'/') && !matches!(b.get(1), Some(b'/') | Some(b'\\')) && !b.iter().any(|&c| c < 0x20 || c == 0x7f || c == b'\\')
}

fn redirect(to: &str) -> Response {
    let mut r = StatusCode::FOUND.into_response();
    if let Ok(v) = HeaderValue::from_str(to) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// Escapes JSON for a `<script type="application/json">` block: no `</script>`, no HTML comment openers.
pub fn script_json(s: &str) -> String {
    s.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026").replace('\u{2028}', "\\u2028").replace('\u{2029}', "\\u2029")
}

/// The parts the rendered page's screen is in (`<!--zz-parts:a,b-->` before the markup; ui/src/parts.ts), and the
/// markup without that line.
fn parts_of(html: &str) -> (Vec<&str>, &str) {
    let Some(rest) = html.strip_prefix("<!--zz-parts:") else { return (Vec::new(), html) };
    let Some(end) = rest.find("-->") else { return (Vec::new(), html) };
    (rest[..end].split(',').filter(|p| !p.is_empty()).collect(), &rest[end + 3..])
}

fn document(lang: Lang, body: &str, props: &str, parts: &[&str]) -> String {
    let html_lang = if lang == Lang::En { "en" } else { "zh-CN" };
    let css = if ui::APP_CSS.is_empty() { String::new() } else { format!("<link rel=\"stylesheet\" href=\"/assets/{}\">", ui::APP_CSS) };
    // The page's part comes alongside the app rather than after it (it is fetched before hydration:
    // ui/src/entry-client.tsx). Named at the end, beside the app's script: in the head they took the slow line from
    // the stylesheet and put the first paint off by ~0.2 s (bench/first-load.mjs). At a low priority, so that on
    // HTTP/1.1 the stylesheet gets more of a slow line (the same page's first paint at 400 ms RTT and 400 kbit/s
    // 1.38 -> 1.24 s in an A/B of its HTML, hydration no later: bench/README.md).
    let mut scripts = String::new();
    for (_, files) in ui::PARTS.iter().filter(|(n, _)| parts.contains(n)) {
        for f in files.iter() {
            scripts.push_str(&format!("<link rel=\"modulepreload\" href=\"/assets/{f}\" fetchpriority=\"low\">"));
        }
    }
    format!(
        "<!doctype html><html lang=\"{html_lang}\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>智装</title><link rel=\"icon\" href=\"/static/img/avatar.svg\">{css}</head><body><div id=\"root\">{body}</div>\
<script id=\"__ZZ_PROPS__\" type=\"application/json\">{}</script><script type=\"module\" src=\"/assets/{}\"></script>{scripts}</body></html>",
        script_json(props),
        ui::APP_JS
    )
}

async fn props(st: &AppState, url: &str, h: &HeaderMap, lang: Lang, s: Option<&Session>) -> Result<Value, ApiError> {
    let host = crate::http::host_of(h);
    let st2 = st.clone();
    let tenant = st.read_now(|r| crate::auth::tenants::by_domain(r, &st2, &host))?;
    let tenant_json = match &tenant {
        Some(t) => json!({"id": t.get("tenantId"), "name": t.get("tenantName"), "knownFromHost": true}),
        None => json!({"id": st.settings.default_tenant, "name": "", "knownFromHost": false}),
    };
    let mut out = json!({
        "url": url,
        "now": store::now_millis(),
        "locale": if lang == Lang::En { "en" } else { "zh" },
        "site": {"title": "智装", "storagePrefix": "saber", "apps": st.settings.apps, "socialAuthUrl": st.settings.social_auth_url,
            "feedbackUrl": st.settings.feedback_url, "appraiseUrl": st.settings.appraise_url},
        "theme": theme(h),
        "tenant": tenant_json,
        "user": null, "menus": [], "permissions": [], "page": {"kind": "none"},
    });
    let Some(s) = s else {
        out["knownPath"] = json!(known_path(st, url.split('?').next().unwrap_or("/")).await?);
        return Ok(out);
    };
    // Signed in, the user's own tenant decides what the page shows (the header's search box, lock, language
    // switch, error log), whatever address the browser used: at 127.0.0.1 the address maps to no tenant.
    if tenant.as_ref().and_then(|t| t.get("tenantId")).and_then(Value::as_str) != Some(s.tenant.as_str()) {
        let (st3, tid) = (st.clone(), s.tenant.clone());
        let own = st.read_now(move |r| crate::auth::tenants::by_id(r, &st3, &tid))?;
        let name = own.as_ref().and_then(|t| t.get("tenantName")).cloned().unwrap_or(Value::String(String::new()));
        out["tenant"] = json!({"id": s.tenant, "name": name, "knownFromHost": false});
    }
    let u = |k: &str| s.user.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    out["user"] = json!({
        "userId": s.user_id.to_string(), "account": u("account"), "realName": u("realName"),
        "avatar": Some(u("avatar")).filter(|a| !a.is_empty()).unwrap_or_else(|| crate::auth::token::DEFAULT_AVATAR.into()),
        "tenantId": s.tenant, "roleName": s.role_aliases.join(","), "deptId": u("deptId"),
        // A password someone else set (a reset, a new tenant's or an install's first one): the pages send the
        // user to /password until he has set his own.
        "mustChangePassword": s.must_change_password(),
    });
    out["menus"] = Value::Array(crate::api::system::menu::user_routes(st, s, lang).await?);
    // The launcher, the 外部系统 menus and the header's feedback and appraise links: the tenant's own settings
    // (参数管理 `site.app.bim` …, `site.feedback`, `site.appraise`), else the server's flags, else 未配置 ("").
    let (search_box, links) = page_params(st, &s.tenant).await?;
    for a in out["site"]["apps"].as_array_mut().into_iter().flatten() {
        let name = a["name"].as_str().unwrap_or("").to_ascii_lowercase();
        if let Some(u) = links.get(&format!("site.app.{name}")) {
            a["url"] = json!(u);
        }
    }
    for (key, field) in [("site.feedback", "feedbackUrl"), ("site.appraise", "appraiseUrl")] {
        if let Some(u) = links.get(key) {
            out["site"][field] = json!(u);
        }
    }
    let apps = out["site"]["apps"].clone();
    external_menus(&mut out["menus"], &apps);
    menu_pinyin(&mut out["menus"]);
    out["site"]["searchBox"] = json!(search_box);
    let mut codes: Vec<&String> = s.perms.codes.iter().collect();
    codes.sort();
    out["permissions"] = json!(codes);
    let path = url.split('?').next().unwrap_or("/");
    if let Some((name, api, _)) = crate::decl::screens(&st.res).iter().find(|(_, _, p)| p == path) {
        if s.require(name).is_ok() {
            out["page"] = list_page(st, s, name, api, url, lang).await?;
        }
    } else if let Some(code) = path.strip_prefix("/construct/info/").and_then(|r| r.split('/').next()).filter(|c| !c.is_empty()) {
        // 施工单: rendered with its data (the construct, crew, day work, measures), not fetched after hydration.
        if let Some(page) = crate::api::scm::construct_page(st, &at(s, "/api/blade-scm/construct/list"), code).await? {
            out["page"] = page;
        }
    } else if let Some(page) = admin_page(st, s, path, lang).await? {
        out["page"] = page;
    } else if let Some(name) = path.strip_prefix("/gen/").filter(|n| st.res.generated(n).is_some()) {
        // Resources made by the code generator get the generic screen too.
        if s.require(name).is_ok() {
            let api = format!("{}/{name}", crate::api::develop::GEN_BASE);
            out["page"] = list_page(st, s, name, &api, url, lang).await?;
        }
    }
    // A screen of the product that is not among the user's menus is one he may not open (页面不存在 said it was
    // not there): the UI shows 403 for it. Looked up only off his menus (his desk and lists never pay for it).
    if out["page"]["kind"] == "none" && !in_menus(&out["menus"], path) {
        out["knownPath"] = json!(known_path(st, path).await?);
    }
    Ok(out)
}

/// Whether a menu tree (`children` nested) holds `path`.
fn in_menus(menus: &Value, path: &str) -> bool {
    menus.as_array().is_some_and(|ms| ms.iter().any(|m| m.get("path").and_then(Value::as_str) == Some(path) || in_menus(&m["children"], path)))
}

/// The tenant setting that shows the header's search box (SPEC §2 shows it for tenant 157270 only): a parameter
/// `zz.search.box` of the tenant with the value `true` (or `1`, `on`).
pub const SEARCH_BOX_PARAM: &str = "zz.search.box";

/// The tenant's page settings in 参数管理, read once per page: the header's search box (`zz.search.box`) and the
/// link addresses that are set (`site.app.<name>`, `site.feedback`, `site.appraise`; only http(s) ones are taken).
async fn page_params(st: &AppState, tenant: &str) -> Result<(bool, std::collections::HashMap<String, String>), ApiError> {
    let (def, t) = (st.res.get("param"), tenant.to_string());
    st.read(move |r| {
        let value = |k: &str| -> store::Result<Option<String>> {
            let Some(id) = r.find_unique(&def, &t, "paramKey", k)? else { return Ok(None) };
            Ok(r.get(&def, &t, id)?.and_then(|p| p.get("paramValue").and_then(Value::as_str).map(|v| v.trim().to_string())))
        };
        let search = value(SEARCH_BOX_PARAM)?.is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "true" | "1" | "on" | "yes"));
        let mut links = std::collections::HashMap::new();
        for k in ["site.app.bim", "site.app.erp", "site.app.bbc", "site.app.pms", "site.feedback", "site.appraise"] {
            if let Some(v) = value(k)?.filter(|v| v.starts_with("https://") || v.starts_with("http://")) {
                links.insert(k.to_string(), v);
            }
        }
        Ok((search, links))
    })
    .await
}

/// Each Chinese menu name's pinyin initials and spelling (`py`: "kqgl kaoqinguanli"), so that the header's menu
/// search finds 考勤管理 by `kq` as people type it. Computed on the server: the browser carries no pinyin table.
fn menu_pinyin(menus: &mut Value) {
    for m in menus.as_array_mut().into_iter().flatten() {
        if let Some((initials, full)) = m.get("name").and_then(Value::as_str).and_then(search::text::initials_and_spelling) {
            m["py"] = json!(format!("{initials} {full}"));
        }
        if m.get("children").is_some_and(Value::is_array) {
            menu_pinyin(&mut m["children"]);
        }
    }
}

/// The 外部系统 menus (codes `external_bim` …) go where the launcher's entry of the same name goes: the
/// tenant's setting, or nowhere (path "", shown as 未配置) — never to a made-up address.
fn external_menus(menus: &mut Value, apps: &Value) {
    for m in menus.as_array_mut().into_iter().flatten() {
        if let Some(name) = m["code"].as_str().and_then(|c| c.strip_prefix("external_")).map(str::to_ascii_uppercase) {
            let url = apps.as_array().into_iter().flatten().find(|a| a["name"] == name.as_str()).and_then(|a| a["url"].as_str()).unwrap_or("");
            m["path"] = json!(url);
        }
        if m.get("children").is_some() {
            external_menus(&mut m["children"], apps);
        }
    }
}

/// Whether a path names a screen for someone: a menu path, a generic list screen, or a generated resource's
/// screen. A signed-out visitor is sent to sign in for these and to /404 for anything else.
async fn known_path(st: &AppState, path: &str) -> Result<bool, ApiError> {
    let path = if path.len() > 1 { path.trim_end_matches('/') } else { path };
    if crate::decl::screens(&st.res).iter().any(|(_, _, p)| p == path) {
        return Ok(true);
    }
    if path.strip_prefix("/gen/").is_some_and(|n| st.res.generated(n).is_some()) {
        return Ok(true);
    }
    // The decoded menus of the session cache (kept while the menus are unchanged): not a read of every row.
    let menus = crate::api::system::menu::menus(st).await?;
    Ok(menus.iter().any(|m| m.get("path").and_then(Value::as_str) == Some(path)))
}

/// The session as the API sees it at `api`: API scopes are checked against the request path, so the first
/// screen passes exactly the checks the screen's own call would.
fn at(s: &Session, api: &str) -> Session {
    let mut s = s.clone();
    s.path = api.to_string();
    s
}

/// The `data` of a cached API answer (`{code, success, data, msg}` bytes).
fn data_of(body: &[u8]) -> Result<Value, ApiError> {
    let mut v: Value = serde_json::from_slice(body).map_err(ApiError::internal)?;
    Ok(v.get_mut("data").map(Value::take).unwrap_or(Value::Null))
}

/// The first screen of the specialised administration screens (`ui/src/routes.tsx` ADMIN_SCREENS): what each
/// screen's first calls answer, from the same functions as those API routes, plus the dictionaries it binds.
/// `None` when the path is not one of them or the user may not read it (the screen then fetches and shows
/// the API's answer).
async fn admin_page(st: &AppState, s: &Session, path: &str, lang: Lang) -> Result<Option<Value>, ApiError> {
    const SYS: &str = "/api/blade-system";
    let first = || vec![("current".to_string(), "1".to_string()), ("size".to_string(), "10".to_string())];
    let (code, dict_codes): (&str, &[&str]) = match path {
        "/system/dict" => ("dict", &[]),
        "/system/dictbiz" => ("dictbiz", &[]),
        "/system/user" => ("user", &["user_type", "sex"]),
        "/authority/role" => ("role", &[]),
        "/system/menu" => ("menu", &["button_func"]),
        "/system/dept" => ("dept", &["org_category"]),
        "/system/tenant" => ("tenant", &[]),
        _ => return Ok(None),
    };
    let list_api = match code {
        "dict" => format!("{SYS}/dict/parent-list"),
        "dictbiz" => format!("{SYS}/dict-biz/parent-list"),
        "user" => "/api/blade-user/page".to_string(),
        other => format!("{SYS}/{other}/list"),
    };
    let sa = at(s, &list_api);
    if sa.require(code).is_err() {
        return Ok(None);
    }
    let mut page = match code {
        "dict" | "dictbiz" => {
            let def = st.res.get(code);
            let body = crate::api::system::dict::scoped_list_body(st, &sa, "current=1&size=10", first(), &def, None).await?;
            json!({"kind": "dict", "parents": data_of(&body)?})
        }
        "user" => {
            let body = crate::api::user::admin::page_body(st, &sa, "current=1&size=10", &first()).await?;
            // The department tree needs `dept`; without it the screen shows no tree, as its own call would.
            let depts = match crate::api::system::org::dept_tree_data(st, &at(s, &format!("{SYS}/dept/tree"))).await {
                Ok(d) => Value::Array(d),
                Err(e) if matches!(e.kind, Kind::Forbidden | Kind::ApiScopeDenied) => json!([]),
                Err(e) => return Err(e),
            };
            json!({"kind": "user", "depts": depts, "users": data_of(&body)?})
        }
        "role" => json!({"kind": "tree", "rows": crate::api::system::role::list_data(st, &sa, &[]).await?}),
        "menu" => json!({"kind": "tree", "rows": crate::api::system::menus::list_data(st, &sa, &[]).await?}),
        "dept" => {
            // The same request the screen makes: all departments (the largest page, `UNPAGED_SIZE` in the UI).
            let size = [("size".to_string(), crate::engine::listq::MAX_SIZE.to_string())];
            let body = crate::engine::crud::list_body(st, &sa, "size=1000", &size, &st.res.get("dept")).await?;
            json!({"kind": "tree", "rows": data_of(&body)?})
        }
        _ => {
            let body = crate::engine::crud::list_body(st, &sa, "current=1&size=10", &first(), &st.res.get("tenant")).await?;
            json!({"kind": "paged", "data": data_of(&body)?})
        }
    };
    let mut dicts = serde_json::Map::new();
    let def = st.res.get("dict");
    for c in dict_codes {
        let entries = crate::api::system::dict::dictionary_data(st, s, &def, c, lang).await?;
        let list: Vec<Value> = entries.into_iter().map(|e| json!({"dictKey": e.get("dictKey"), "dictValue": e.get("dictValue")})).collect();
        dicts.insert(c.to_string(), Value::Array(list));
    }
    page["dicts"] = Value::Object(dicts);
    Ok(Some(page))
}

/// The 11 themes of SPEC §2.
pub const THEMES: &[&str] = &["default", "white", "dark", "star", "bule", "iview", "vip", "cool", "d2", "hey", "lte"];

/// The theme the browser chose (cookie `zz-theme=<name>|<#rrggbb>`), so the server renders it and nothing
/// flashes; anything malformed is ignored.
fn theme(h: &HeaderMap) -> Value {
    let Some(raw) = crate::http::cookie(h, "zz-theme") else { return Value::Null };
    let raw = raw.replace("%7C", "|").replace("%7c", "|").replace("%23", "#");
    let (name, color) = raw.split_once('|').unwrap_or((raw.as_str(), ""));
    let color_ok = color.len() == 7 && color.starts_with('#') && color[1..].bytes().all(|b| b.is_ascii_hexdigit());
    if !THEMES.contains(&name) {
        return Value::Null;
    }
    json!({"name": name, "color": if color_ok { Value::String(color.to_ascii_lowercase()) } else { Value::Null }})
}

/// A screen declared with `ui.hideZero: "<field>"` (the stock list) leaves out rows whose field is 0 unless the
/// URL asks for them with `zero=1` (a screen parameter, never sent to the list API).
fn hide_zero(def: &store::ResourceDef, pairs: &mut Vec<(String, String)>) {
    let Some(field) = def.ui.as_ref().and_then(|u| u.get("hideZero")).and_then(Value::as_str) else { return };
    let all = pairs.iter().any(|(k, v)| k == "zero" && v == "1");
    pairs.retain(|(k, _)| k != "zero");
    if !all && !pairs.iter().any(|(k, _)| k.starts_with(field) && k[field.len()..].starts_with('_')) {
        pairs.push((format!("{field}_gt"), "0".into()));
    }
}

/// The first screen of a generic list: schema plus the page the URL's query asks for (bad parameters fall back
/// to the defaults; the screen then shows what it could).
async fn list_page(st: &AppState, s: &Session, name: &str, api: &str, url: &str, lang: Lang) -> Result<Value, ApiError> {
    let def: Arc<store::ResourceDef> = st.res.get(name);
    let raw = url.split_once('?').map(|(_, q)| q).unwrap_or("");
    let mut pairs: Vec<(String, String)> = serde_urlencoded::from_str(raw).unwrap_or_default();
    // `open=<id>` names a record for the screen to show over its list (a notice from the desk), not a filter.
    pairs.retain(|(k, _)| k != "open");
    // The screen's own query (what its search form shows), before the screen's defaults are added.
    let shown: serde_json::Map<String, Value> = pairs.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
    hide_zero(&def, &mut pairs);
    // A resource served in a dialect pages by its own default (the project list by 6, spec §9).
    if let Some(decl) = st.res.decl(name)
        && !pairs.iter().any(|(k, _)| k == "size") {
        pairs.push(("size".into(), decl.page_size.to_string()));
    }
    // A filter the list cannot take (letters in 状态码) answers nothing and says why, beside the boxes as they were
    // filled — not every record as if it had been applied.
    let mut problem = None;
    let mut query = if name == "user" {
        match crate::api::user::admin::user_query(st, s, &pairs).await {
            Ok(q) => q,
            Err(_) => crate::api::user::admin::user_query(st, s, &[]).await?,
        }
    } else {
        match crate::engine::listq::parse(&def, st.settings.zone, &pairs) {
            Ok(q) => q,
            Err(e) => {
                // Named as the screen names the box (状态码), not by its query key (httpStatus_equal).
                let mut m = e.message(lang);
                for (k, _) in &pairs {
                    let field = def.field(crate::engine::listq::field_of(k));
                    if let Some(f) = field.filter(|_| m.contains(k.as_str())) {
                        m = m.replace(k.as_str(), if lang == Lang::En && !f.label_en.is_empty() { &f.label_en } else { &f.label });
                    }
                }
                problem = Some(m);
                crate::engine::listq::parse(&def, st.settings.zone, &[])?
            }
        }
    };
    // The user's data scope applies to the first screen exactly as to the list API.
    query.any = crate::auth::scope::guard(st, s, &def).await?.unwrap_or_default();
    let (d, t, lim, off) = (def.clone(), s.tenant.clone(), query.limit, query.offset);
    let page = match problem {
        None => crate::engine::listq::run(st, &d, &t, query).await?,
        Some(_) => store::Page::default(),
    };
    let records: Vec<Value> = crate::engine::crud::wire_records(st, &def, &s.tenant, page.records).await?.into_iter().map(Value::Object).collect();
    let mut q = shown;
    if let Some((_, size)) = pairs.iter().find(|(k, _)| k == "size") {
        q.entry("size").or_insert_with(|| Value::String(size.clone()));
    }
    Ok(json!({
        "kind": "list",
        "resource": crate::engine::crud::schema(st, &def, api, lang).await?,
        "data": {"records": records, "total": page.total, "size": lim, "current": off / lim + 1, "pages": page.total.div_ceil(lim)},
        "query": q,
        "error": problem,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn props_cannot_break_out_of_their_script_block() {
        let s = script_json(r#"{"a":"</script><script>alert(1)</script><!--"}"#);
        assert!(!s.contains('<') && !s.contains('>'));
    }

    #[test]
    fn theme_cookie_is_validated() {
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, HeaderValue::from_static("zz-theme=dark%7C%23FF0000"));
        assert_eq!(theme(&h), json!({"name": "dark", "color": "#ff0000"}));
        h.insert(header::COOKIE, HeaderValue::from_static("zz-theme=evil|red;x"));
        assert_eq!(theme(&h), Value::Null);
        h.insert(header::COOKIE, HeaderValue::from_static("zz-theme=white|javascript:1"));
        assert_eq!(theme(&h), json!({"name": "white", "color": null}));
    }

    #[test]
    fn directives() {
        assert!(matches!(directive("<!--zz-redirect:/login?redirect=%2Fx-->"), Directive::Redirect(ref t) if t == "/login?redirect=%2Fx"));
        assert!(matches!(directive("<!--zz-redirect://evil.example-->"), Directive::Redirect(ref t) if t == "/404"));
        for evil in ["/\t/evil.example", "/\n/evil.example", "/\\evil.example", "/x\\..\\..", "//evil.example", "https://evil.example"] {
            assert!(!same_site_path(evil), "{evil:?}");
        }
        assert!(same_site_path("/wel/index?a=1#b"));
        assert!(matches!(directive("<!--zz-status:404--><div>x</div>"), Directive::Status(c, "<div>x</div>") if c == 404));
        assert!(matches!(directive("<div>plain</div>"), Directive::None));
    }
}
