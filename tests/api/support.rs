//! Test harness: a seeded data file made once per test binary and copied for each test, the real router
//! driven with `oneshot`, and helpers to sign in.
use std::path::PathBuf;
use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;
use zhizhuang::decl::Resources;
use zhizhuang::state::{AppState, Settings};

/// Every served route as the route table registers it (method, path, guard).
pub fn routes() -> Vec<zhizhuang::engine::RouteInfo> {
    zhizhuang::api::table(&Resources::load().unwrap())
}

pub const ADMIN_PW: &str = "Admin#2026";
pub const BASIC: &str = "Basic c2FiZXI6c2FiZXJfc2VjcmV0";

/// This test process's scratch directory (`zz-tests-<pid>` in the temporary directory): the template and every
/// test's data directory are made in it. A test's background tasks (the log sink, the search follower) can still
/// write after its `TempDir` is removed, leaving a directory behind (~11 a CI run before), and a static is never
/// dropped, so a process cannot remove its own: those of processes that have ended are removed here.
fn scratch() -> &'static PathBuf {
    static S: OnceLock<PathBuf> = OnceLock::new();
    S.get_or_init(|| {
        if let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                // `zz-template-<pid>`: where earlier harnesses kept their template.
                if let Some(pid) = name.strip_prefix("zz-tests-").or_else(|| name.strip_prefix("zz-template-")).and_then(|p| p.parse::<u32>().ok())
                    && pid != std::process::id()
                    && !std::path::Path::new(&format!("/proc/{pid}")).exists()
                {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let dir = std::env::temp_dir().join(format!("zz-tests-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

/// A temporary directory for a test, in this process's scratch directory (so what a server or task writes into it
/// after the test is gone goes with the scratch directory at the next run).
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir_in(scratch()).unwrap()
}

/// The seeded data file every test copies, made once per test process.
fn template() -> &'static PathBuf {
    static T: OnceLock<PathBuf> = OnceLock::new();
    T.get_or_init(|| {
        let file = scratch().join("template.redb");
        let st = store::Store::open(&file, &store::Options::default()).unwrap();
        zhizhuang::seed::first_start(&st, &Resources::load().unwrap(), Some(ADMIN_PW), false, false).unwrap();
        st.close();
        drop(st);
        file
    })
}

pub struct App {
    pub st: AppState,
    pub router: axum::Router,
    pub _dir: tempfile::TempDir,
}

impl App {
    pub fn new() -> App {
        Self::with(Settings::default())
    }

    pub fn with(settings: Settings) -> App {
        Self::with_options(settings, store::Options::default())
    }

    /// With the data file opened with `opts` (a test's file layer).
    pub fn with_options(settings: Settings, opts: store::Options) -> App {
        let dir = tempdir();
        let file = dir.path().join(store::DATA_FILE);
        std::fs::copy(template(), &file).unwrap();
        let store = store::Store::open(&file, &opts).unwrap();
        let st = AppState::new(store, Resources::load().unwrap(), settings).unwrap();
        App { router: zhizhuang::router(st.clone()), st, _dir: dir }
    }

    /// Waits until the search index holds every write made so far.
    pub fn indexed(&self) {
        let ix = self.st.index.as_ref().expect("search index open");
        assert!(ix.wait_caught_up(std::time::Duration::from_secs(30)), "search index did not catch up: {:?}", ix.status());
    }

    pub async fn call(&self, req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, Value) {
        let resp = self.router.clone().oneshot(req).await.unwrap();
        let (status, headers) = (resp.status(), resp.headers().clone());
        let bytes = resp.into_body().collect().await.unwrap().to_bytes();
        let body = serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
        (status, headers, body)
    }

    /// A request with optional token, JSON body and extra headers.
    pub async fn req(&self, method: &str, url: &str, token: Option<&str>, body: Option<&str>, headers: &[(&str, &str)]) -> (StatusCode, Value) {
        let mut b = Request::builder().method(method).uri(url);
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("authorization")) {
            b = b.header("authorization", BASIC);
        }
        if let Some(t) = token {
            b = b.header("blade-auth", format!("bearer {t}"));
        }
        if body.is_some() {
            b = b.header("content-type", "application/json");
        }
        for (k, v) in headers.iter().filter(|(k, v)| !v.is_empty() || !k.eq_ignore_ascii_case("authorization")) {
            b = b.header(*k, *v);
        }
        let (s, _, v) = self.call(b.body(body.map(|s| Body::from(s.to_string())).unwrap_or_default()).unwrap()).await;
        (s, v)
    }

    /// POST of one file as multipart field `file`: (status, body).
    pub async fn upload(&self, token: &str, url: &str, file_name: &str, bytes: Vec<u8>) -> (u16, Value) {
        let boundary = "zzboundary42";
        let mut body = format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n").into_bytes();
        body.extend(bytes);
        body.extend(format!("\r\n--{boundary}--\r\n").into_bytes());
        let req = Request::post(url)
            .header("blade-auth", format!("bearer {token}"))
            .header("content-type", format!("multipart/form-data; boundary={boundary}"))
            .body(Body::from(body))
            .unwrap();
        let (s, _, v) = self.call(req).await;
        (s.as_u16(), v)
    }

    /// The bytes of a 200 answer (a file).
    pub async fn download(&self, token: &str, url: &str) -> Vec<u8> {
        let req = Request::get(url).header("blade-auth", format!("bearer {token}")).body(Body::empty()).unwrap();
        let resp = self.router.clone().oneshot(req).await.unwrap();
        assert_eq!(resp.status(), 200, "{url}");
        resp.into_body().collect().await.unwrap().to_bytes().to_vec()
    }

    pub async fn get(&self, url: &str, token: &str) -> (StatusCode, Value) {
        self.req("GET", url, Some(token), None, &[]).await
    }

    pub async fn post(&self, url: &str, token: &str, body: &str) -> (StatusCode, Value) {
        self.req("POST", url, Some(token), Some(body), &[]).await
    }

    /// Password grant; returns the whole token body.
    pub async fn sign_in_body(&self, tenant: &str, account: &str, password: &str) -> (StatusCode, Value) {
        let md5 = zhizhuang::auth::password::md5_hex(password);
        let url = format!("/api/blade-auth/oauth/token?tenantId={tenant}&username={account}&password={md5}&grant_type=password&scope=all&type=account");
        self.req("POST", &url, None, None, &[("tenant-id", tenant)]).await
    }

    pub async fn sign_in(&self, tenant: &str, account: &str, password: &str) -> String {
        let (s, v) = self.sign_in_body(tenant, account, password).await;
        assert_eq!(s, StatusCode::OK, "sign-in failed: {v}");
        v["access_token"].as_str().unwrap().to_string()
    }

    pub async fn admin(&self, tenant: &str) -> String {
        self.sign_in(tenant, "admin", ADMIN_PW).await
    }

    /// Creates a user directly in the store with the given role aliases (tests need workers and plain users).
    pub async fn make_user(&self, tenant: &str, account: &str, password: &str, role_aliases: &[&str]) -> u64 {
        let (res, t) = (self.st.res.clone(), tenant.to_string());
        let aliases: Vec<String> = role_aliases.iter().map(|s| s.to_string()).collect();
        let hash = zhizhuang::auth::password::hash(&zhizhuang::auth::password::md5_hex(password));
        let account = account.to_string();
        self.st
            .store
            .write(move |w| {
                let roles = w.all(&res.get("role"), &t)?;
                let ids: Vec<String> = roles
                    .iter()
                    .filter(|r| aliases.iter().any(|a| r["roleAlias"].as_str() == Some(a)))
                    .map(|r| r["id"].to_string())
                    .collect();
                let doc = serde_json::json!({"account": account, "name": account, "realName": account, "roleId": ids.join(","),
                    "passwordHash": hash, "tokenVersion": 0});
                Ok(w.insert(&res.get("user"), &t, doc.as_object().unwrap().clone(), &store::Actor::default())?["id"].as_u64().unwrap())
            })
            .unwrap()
    }

    /// Creates a role with the given menu codes.
    pub async fn make_role(&self, tenant: &str, alias: &str, codes: &[&str]) {
        let (res, t) = (self.st.res.clone(), tenant.to_string());
        let codes: Vec<String> = codes.iter().map(|s| s.to_string()).collect();
        let alias = alias.to_string();
        self.st
            .store
            .write(move |w| {
                let ids: Vec<String> = w
                    .all(&res.get("menu"), store::PLATFORM_TENANT)?
                    .iter()
                    .filter(|m| codes.iter().any(|c| m["code"].as_str() == Some(c)))
                    .map(|m| m["id"].to_string())
                    .collect();
                let doc = serde_json::json!({"roleName": alias, "roleAlias": alias, "sort": 5, "isWorker": 0, "menuIds": ids});
                w.insert(&res.get("role"), &t, doc.as_object().unwrap().clone(), &store::Actor::default())?;
                Ok(())
            })
            .unwrap();
        self.st.perms.invalidate();
    }
}

/// One scenario row: who calls (None: no token; Some(tenant): that tenant's admin), the request, the status the
/// answer must have and fragments its body must contain.
pub struct Case {
    pub name: &'static str,
    pub method: &'static str,
    pub url: String,
    pub who: Option<&'static str>,
    pub body: Option<String>,
    pub status: u16,
    pub has: &'static [&'static str],
}

pub fn case(name: &'static str, method: &'static str, url: impl Into<String>, who: Option<&'static str>, body: Option<&str>, status: u16, has: &'static [&'static str]) -> Case {
    Case { name, method, url: url.into(), who, body: body.map(str::to_string), status, has }
}

/// The admin token of each seeded tenant (000000, 157270, 741487).
pub async fn admin_tokens(app: &App) -> std::collections::HashMap<&'static str, String> {
    let mut t = std::collections::HashMap::new();
    for x in ["000000", "157270", "741487"] {
        t.insert(x, app.admin(x).await);
    }
    t
}

/// Runs every row, then fails once listing each row that did not hold with its answer. Every Blade envelope must
/// also agree with its HTTP status (code equals the status, success exactly when 200).
pub async fn run_cases(app: &App, tokens: &std::collections::HashMap<&'static str, String>, cases: &[Case]) {
    let mut failures = Vec::new();
    for case in cases {
        let token = case.who.map(|t| tokens[t].as_str());
        let (status, body) = app.req(case.method, &case.url, token, case.body.as_deref(), &[]).await;
        let text = body.to_string();
        let mut why = Vec::new();
        if status.as_u16() != case.status {
            why.push(format!("status {} (want {})", status.as_u16(), case.status));
        }
        for h in case.has {
            if !text.contains(h) {
                why.push(format!("missing {h:?}"));
            }
        }
        if body.is_object() && body.get("code").is_some() {
            let code = body["code"].as_u64().unwrap_or(0);
            if code != status.as_u16() as u64 || body["success"] != Value::Bool(code == 200) {
                why.push("envelope code/success disagree with the status".into());
            }
        }
        if !why.is_empty() {
            failures.push(format!("{}: {} — body {}", case.name, why.join("; "), &text[..text.len().min(300)]));
        }
    }
    assert!(failures.is_empty(), "{} scenario(s) failed:\n{}", failures.len(), failures.join("\n"));
}

/// A JSON POST with a token: the status as a number and the body (the scenario tests' shorthand).
pub async fn post_json(app: &App, t: &str, url: &str, body: Value) -> (u16, Value) {
    let (s, v) = app.post(url, t, &body.to_string()).await;
    (s.as_u16(), v)
}

/// A GET with a token: the status as a number and the body.
pub async fn get_json(app: &App, t: &str, url: &str) -> (u16, Value) {
    let (s, v) = app.get(url, t).await;
    (s.as_u16(), v)
}

/// The envelope's message.
pub fn msg(v: &Value) -> String {
    v["msg"].as_str().unwrap_or("").to_string()
}

/// The property tests' random numbers (xorshift): seeded from `ZZ_SEED` or the clock, the seed printed so a failing
/// run can be repeated. Returns the seed and a generator of numbers below `n`.
pub fn seeded(what: &str) -> (u64, impl FnMut(u64) -> u64) {
    let seed: u64 = std::env::var("ZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1);
    println!("{what} seed {seed} (rerun with ZZ_SEED={seed})");
    let mut x = seed;
    (seed, move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    })
}

/// A query parameter's value percent-encoded (Chinese names, spaces).
pub fn urlencode(s: &str) -> String {
    s.bytes().map(|b| if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
}

/// A Location a browser keeps on this site: a path, never `//host`, and nothing it would drop or turn into `/`.
pub fn same_site(to: &str) -> bool {
    zhizhuang::pages::same_site_path(to)
}
