//! The areas of the product, one folder each, listed once in `AREAS`: the platform's (`system`, `user`,
//! `resource`, `desk`, `log`, `search`, `develop`) and the business's (`scm`, `wms`, `flow`, `finance`, `worklist`,
//! `wechat`).
//! An area plugs into the engine through its `Area`: routes, the rules of the resources it declares, what it does
//! after another area's record is written, tenant setup, upgrades, demo data, what `verify` checks, work before
//! serving and background tasks. `serve`, `seed`, `admin` and `build` walk `AREAS`; areas read each other only
//! through the few functions `tests/api/layers.rs` lists.
//!
//! `build` assembles every area's routes into one table (`engine::routes`): each route carries its guard, so
//! everything but the few `Guard::Public` routes requires a session, and everything but self-service requires a
//! permission code, checked before any body is read.
pub mod desk;
pub mod develop;
pub mod finance;
pub mod flow;
pub mod log;
pub mod resource;
pub mod scm;
pub mod search;
pub mod system;
pub mod user;
pub mod wechat;
pub mod wms;
pub mod worklist;

use axum::Router;
use axum::response::IntoResponse;

use store::{ReadCtx, WriteCtx};

use crate::auth::token;
use crate::decl::Resources;
use crate::engine::dialect::{Rules, SavedRule};
use crate::engine::{Api, Guard, RouteInfo};
use crate::state::AppState;

/// A tenant's setup an area needs (records every tenant gets at creation, and once for the tenants of an older
/// data file).
pub type TenantSetup = fn(&mut WriteCtx, &Resources, &str) -> store::Result<()>;
/// An upgrade of what older versions wrote, run once per data file (its meta key marks it done).
pub type Upgrade = fn(&mut WriteCtx, &Resources) -> store::Result<()>;
/// A tenant's demo data (`--demo`), after the platform's people and the areas listed before this one.
pub type Demo = fn(&mut WriteCtx, &Resources, &str) -> store::Result<()>;
/// What `zhizhuang verify` checks of an area's records: a line saying what was checked, and the problems.
pub type Verify = fn(&ReadCtx, &Resources) -> store::Result<(String, Vec<String>)>;

/// What an area adds to the server.
pub struct Area {
    pub name: &'static str,
    /// Its hand-written routes (its declared resources are served from their declarations, with `rules`).
    pub routes: fn(Api) -> Api,
    /// The rules of the declared resources it owns.
    pub rules: fn(&str) -> Option<Rules>,
    /// What it does, in the same transaction, after another area's record is written: (resource, rule). Finance
    /// opens a contract's ledger when the contract is signed without the contract's area naming finance.
    pub after: &'static [(&'static str, SavedRule)],
    pub tenant: Option<TenantSetup>,
    pub upgrades: &'static [(&'static str, Upgrade)],
    pub demo: Option<Demo>,
    pub verify: Option<Verify>,
    /// Work to finish before serving (an import a stopped server left running).
    pub start: Option<fn(&AppState) -> anyhow::Result<()>>,
    /// Background work of a running server.
    pub tasks: Option<fn(AppState) -> tokio::task::JoinHandle<()>>,
}

impl Area {
    /// An area that adds routes only.
    pub const fn routes_only(name: &'static str, routes: fn(Api) -> Api) -> Area {
        Area { name, routes, rules: |_| None, after: &[], tenant: None, upgrades: &[], demo: None, verify: None, start: None, tasks: None }
    }
}

/// Every area, in the order their routes, tenant setups, upgrades and demos run.
pub const AREAS: &[Area] = &[
    system::AREA,
    user::AREA,
    resource::AREA,
    desk::AREA,
    log::AREA,
    search::AREA,
    develop::AREA,
    scm::AREA,
    wms::AREA,
    flow::AREA,
    finance::AREA,
    worklist::AREA,
    wechat::AREA,
];

/// The platform areas, whose routes come before the declared resources' (the order of the route table).
const PLATFORM: usize = 7;

/// The rules of a declared resource: its own area's, with what other areas do after it is written.
pub fn rules(name: &str) -> Rules {
    static AFTER: std::sync::OnceLock<std::collections::HashMap<&'static str, Vec<SavedRule>>> = std::sync::OnceLock::new();
    let after = AFTER.get_or_init(|| {
        let mut m: std::collections::HashMap<&'static str, Vec<SavedRule>> = std::collections::HashMap::new();
        for a in AREAS {
            for (res, f) in a.after {
                m.entry(res).or_default().push(*f);
            }
        }
        m
    });
    let own = AREAS.iter().find_map(|a| (a.rules)(name)).unwrap_or_default();
    Rules { after: after.get(name).map(Vec::as_slice).unwrap_or(&[]), ..own }
}

/// Every route: the router and the table the contract and the tests walk.
pub fn build(res: &Resources) -> (Router<AppState>, Vec<RouteInfo>) {
    let api = Api::new(res)
        .get("/api/health", Guard::Public, health)
        .get("/api/ready", Guard::Public, ready)
        .post("/api/blade-auth/oauth/token", Guard::Public, token::token)
        .get("/api/blade-auth/oauth/captcha", Guard::Public, token::captcha)
        .get("/api/blade-system/tenant/info", Guard::Public, system::tenant::info)
        .get("/api/blade-auth/oauth/user-info", Guard::Signed, token::user_info)
        .get("/api/blade-auth/oauth/logout", Guard::Signed, token::logout)
        .post("/api/blade-auth/oauth/logout", Guard::Signed, token::logout)
        .get("/api/blade-auth/oauth/clear-cache", Guard::Signed, token::clear_cache);
    let mut api = AREAS[..PLATFORM].iter().fold(api, |api, a| (a.routes)(api));
    // Resources whose declaration names a route dialect: served from it, with their area's rules.
    for (def, _) in res.declared() {
        api = api.declared(&def.name, rules(&def.name));
    }
    AREAS[PLATFORM..].iter().fold(api, |api, a| (a.routes)(api)).finish()
}

/// The route table alone (contract, tests).
pub fn table(res: &Resources) -> Vec<RouteInfo> {
    build(res).1
}

pub fn routes(st: &AppState) -> Router<AppState> {
    build(&st.res).0
}

/// GET /api/health: whether this server can take writes, for load balancers and uptime checks. 200 with its
/// role (`primary`, or `standby`: a standby taking reads as it should is healthy); 503 with the reason when it
/// cannot do its job: `storage_failed` (a write, sync or commit failed: writes stopped until a restart),
/// `fenced` (another server took over as the primary). While the files open, the listener answers `starting`.
async fn health(axum::extract::State(st): axum::extract::State<AppState>) -> axum::response::Response {
    let standby = matches!(st.replica.get(), Some(crate::replica::Replica::Standby(_)));
    let role = if standby { "standby" } else { "primary" };
    let failure = st.store.failure().or_else(|| st.log_store.failure());
    let read_only = st.store.read_only();
    let (status, detail) = match (&failure, &read_only) {
        (Some(f), _) => ("storage_failed", f.clone()),
        (None, Some(r)) if r.starts_with("fenced:") => ("fenced", r.trim_start_matches("fenced:").to_string()),
        _ => ("ok", String::new()),
    };
    let body = serde_json::json!({"status": status, "role": role, "version": crate::VERSION, "detail": detail});
    let code = if status == "ok" { axum::http::StatusCode::OK } else { axum::http::StatusCode::SERVICE_UNAVAILABLE };
    (code, axum::Json(body)).into_response()
}

/// GET /api/ready: whether this server can serve reads (it can once started, also with writes stopped).
async fn ready(axum::extract::State(st): axum::extract::State<AppState>) -> axum::response::Response {
    match st.read_now(|r| r.meta("schema_version")) {
        Ok(_) => axum::Json(serde_json::json!({"status": "ready", "version": crate::VERSION})).into_response(),
        Err(_) => (axum::http::StatusCode::SERVICE_UNAVAILABLE, axum::Json(serde_json::json!({"status": "unreadable", "version": crate::VERSION}))).into_response(),
    }
}
