//! The HTTP API, one folder per area (`system`, `user`, `resource`, `desk`, `develop`, `log`). `build` assembles
//! every area's routes into one table (`engine::routes`): each route carries its guard, so everything but the few
//! `Guard::Public` routes requires a session, and everything but self-service requires a permission code, checked
//! before any body is read.
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
pub mod wms;
pub mod worklist;

use axum::Router;
use axum::response::IntoResponse;

use crate::auth::token;
use crate::engine::resources::Resources;
use crate::engine::{Api, Guard, RouteInfo};
use crate::state::AppState;

/// Resources with a generic list screen: (resource, API base, screen path). Users, roles, menus, departments,
/// tenants and both dictionaries have screens of their own in the UI (`ui/src/routes.tsx` ADMIN_SCREENS) whose
/// first screen `pages::admin_page` fills from their own API functions. The page handler renders the
/// screen at the path with the first page of data; the API base serves list/detail/submit/remove/schema/export.
pub const SCREENS: &[(&str, &str, &str)] = &[
    ("param", "/api/blade-system/param", "/system/param"),
    ("post", "/api/blade-system/post", "/system/post"),
    ("client", "/api/blade-system/client", "/system/client"),
    ("region", "/api/blade-system/region", "/base/region"),
    ("log_usual", "/api/blade-log/usual", "/monitor/log/usual"),
    ("log_api", "/api/blade-log/api", "/monitor/log/api"),
    ("log_error", "/api/blade-log/error", "/monitor/log/error"),
    ("log_login", "/api/blade-log/login", "/monitor/log/login"),
    ("notice", "/api/blade-desk/notice", "/desk/notice"),
    ("oss", "/api/blade-resource/oss", "/resource/oss"),
    ("attach", "/api/blade-resource/attach", "/resource/attach"),
    ("sms", "/api/blade-resource/sms", "/resource/sms"),
    ("code", "/api/blade-develop/code", "/tool/code"),
    ("datasource", "/api/blade-develop/datasource", "/tool/datasource"),
    ("report", "/api/blade-report/report/rest", "/report/reportlist"),
    ("topmenu", "/api/blade-system/topmenu", "/system/topmenu"),
    ("datascope", "/api/blade-system/data-scope", "/authority/datascope"),
    ("apiscope", "/api/blade-system/api-scope", "/authority/apiscope"),
];

/// Every generic list screen: `SCREENS` and the screens of the resources declared with a dialect
/// (`engine::dialect`: their declaration names base and screen).
pub fn screens(res: &Resources) -> Vec<(String, String, String)> {
    let mut v: Vec<(String, String, String)> = SCREENS.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect();
    for (def, decl) in res.declared() {
        if let Some(screen) = &decl.screen {
            v.push((def.name.clone(), decl.base.clone(), screen.clone()));
        }
    }
    v
}

/// The hand-written rules of a resource served by a dialect, from its area.
fn rules(name: &str) -> crate::engine::dialect::Rules {
    if let Some(r) = worklist::rules(name) {
        return r;
    }
    let r = wms::rules(name);
    if r.save.is_some() || r.remove.is_some() || r.saved.is_some() { r } else { scm::rules(name) }
}

/// Every route: the router and the table the contract and the tests walk.
pub fn build(res: &Resources) -> (Router<AppState>, Vec<RouteInfo>) {
    let api = Api::new(res)
        .get("/api/health", Guard::Public, health)
        .post("/api/blade-auth/oauth/token", Guard::Public, token::token)
        .get("/api/blade-auth/oauth/captcha", Guard::Public, token::captcha)
        .get("/api/blade-system/tenant/info", Guard::Public, system::tenant::info)
        .get("/api/blade-auth/oauth/user-info", Guard::Signed, token::user_info)
        .get("/api/blade-auth/oauth/logout", Guard::Signed, token::logout)
        .post("/api/blade-auth/oauth/logout", Guard::Signed, token::logout)
        .get("/api/blade-auth/oauth/clear-cache", Guard::Signed, token::clear_cache);
    let api = system::routes(api);
    let api = user::routes(api);
    let api = resource::routes(api);
    let api = desk::routes(api);
    let api = log::routes(api);
    let api = search::routes(api);
    let mut api = develop::routes(api);
    // Resources whose declaration names a route dialect: served from it, with their area's rules.
    for (def, _) in res.declared() {
        api = api.declared(&def.name, rules(&def.name));
    }
    let api = scm::routes(api);
    let api = wms::routes(api);
    let api = flow::routes(api);
    let api = finance::routes(api);
    let api = worklist::routes(api);
    api.finish()
}

/// The route table alone (contract, tests).
pub fn table(res: &Resources) -> Vec<RouteInfo> {
    build(res).1
}

pub fn routes(st: &AppState) -> Router<AppState> {
    build(&st.res).0
}

async fn health() -> impl IntoResponse {
    axum::Json(serde_json::json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}))
}
