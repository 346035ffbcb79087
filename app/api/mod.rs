//! The HTTP API. Every route is listed here, public ones first: everything else requires a session, and
//! resource routes also require their permission codes.
pub mod account;
pub mod crud;
pub mod develop;
pub mod dict;
pub mod files;
pub mod logs;
pub mod menu;
pub mod menus;
pub mod resource;
pub mod role;
pub mod scopes;
pub mod system;
pub mod tenant;
pub mod tree;
pub mod user;
pub mod users;
pub mod userxls;

use axum::Router;
use axum::response::IntoResponse;
use axum::routing::{get, post};

use crate::auth::token;
use crate::state::AppState;

/// Routes answered without sign-in (security rule 3): keep this list short.
pub const PUBLIC: &[&str] = &[
    "/api/health",
    "/api/blade-auth/oauth/token",
    "/api/blade-auth/oauth/captcha",
    "/api/blade-system/tenant/info",
    "/api/blade-user/register-guest",
    "/api/blade-user/retrieve-password/vertifyCode",
    "/api/blade-user/retrieve-password/update",
];

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

/// Every route with its method, for the crawl tests (a test checks each one is served).
pub const ALL: &[(&str, &str)] = &[
    ("GET", "/api/health"),
    ("POST", "/api/blade-auth/oauth/token"),
    ("GET", "/api/blade-auth/oauth/captcha"),
    ("GET", "/api/blade-system/tenant/info"),
    ("GET", "/api/blade-auth/oauth/user-info"),
    ("GET", "/api/blade-auth/oauth/logout"),
    ("POST", "/api/blade-auth/oauth/logout"),
    ("GET", "/api/blade-auth/oauth/clear-cache"),
    ("GET", "/api/blade-user/info"),
    ("POST", "/api/blade-user/update-password"),
    ("GET", "/api/blade-system/menu/routes"),
    ("GET", "/api/blade-system/menu/buttons"),
    ("GET", "/api/blade-system/dict/dictionary"),
    ("GET", "/api/blade-system/param/list"),
    ("GET", "/api/blade-system/param/detail"),
    ("GET", "/api/blade-system/param/schema"),
    ("GET", "/api/blade-system/param/export"),
    ("POST", "/api/blade-user/check-password"),
    ("POST", "/api/blade-user/update-info"),
    ("POST", "/api/blade-user/avatar"),
    ("POST", "/api/blade-resource/oss/endpoint/put-file"),
    ("POST", "/api/blade-log/error/upload"),
    ("GET", "/api/blade-log/error/list"),
    ("GET", "/api/blade-log/error/detail"),
    ("POST", "/api/blade-system/param/submit"),
    ("POST", "/api/blade-system/param/remove"),
    ("GET", "/api/blade-system/dict/list"),
    ("GET", "/api/blade-system/dict/detail"),
    ("GET", "/api/blade-system/dict/schema"),
    ("GET", "/api/blade-system/dict/export"),
    ("POST", "/api/blade-system/dict/submit"),
    ("POST", "/api/blade-system/dict/remove"),
    ("GET", "/api/blade-system/dict/parent-list"),
    ("GET", "/api/blade-system/dict/child-list"),
    ("GET", "/api/blade-system/dict/tree"),
    ("GET", "/api/blade-system/dict-biz/list"),
    ("GET", "/api/blade-system/dict-biz/detail"),
    ("GET", "/api/blade-system/dict-biz/schema"),
    ("GET", "/api/blade-system/dict-biz/export"),
    ("POST", "/api/blade-system/dict-biz/submit"),
    ("POST", "/api/blade-system/dict-biz/remove"),
    ("GET", "/api/blade-system/dict-biz/parent-list"),
    ("GET", "/api/blade-system/dict-biz/child-list"),
    ("GET", "/api/blade-system/dict-biz/tree"),
    ("GET", "/api/blade-system/dict-biz/dictionary"),
    ("GET", "/api/blade-system/tenant/list"),
    ("GET", "/api/blade-system/tenant/detail"),
    ("GET", "/api/blade-system/tenant/schema"),
    ("GET", "/api/blade-system/tenant/export"),
    ("POST", "/api/blade-system/tenant/submit"),
    ("POST", "/api/blade-system/tenant/remove"),
    ("POST", "/api/blade-system/tenant/setting"),
    ("POST", "/api/blade-system/tenant/datasource"),
    ("GET", "/api/blade-system/post/list"),
    ("GET", "/api/blade-system/post/detail"),
    ("GET", "/api/blade-system/post/schema"),
    ("GET", "/api/blade-system/post/export"),
    ("POST", "/api/blade-system/post/submit"),
    ("POST", "/api/blade-system/post/remove"),
    ("GET", "/api/blade-system/post/select"),
    ("GET", "/api/blade-system/dept/list"),
    ("GET", "/api/blade-system/dept/detail"),
    ("GET", "/api/blade-system/dept/schema"),
    ("GET", "/api/blade-system/dept/export"),
    ("POST", "/api/blade-system/dept/submit"),
    ("POST", "/api/blade-system/dept/remove"),
    ("GET", "/api/blade-system/dept/lazy-list"),
    ("GET", "/api/blade-system/dept/tree"),
    ("GET", "/api/blade-system/dept/lazy-tree"),
    ("GET", "/api/blade-system/client/list"),
    ("GET", "/api/blade-system/client/detail"),
    ("GET", "/api/blade-system/client/schema"),
    ("GET", "/api/blade-system/client/export"),
    ("POST", "/api/blade-system/client/submit"),
    ("POST", "/api/blade-system/client/remove"),
    ("GET", "/api/blade-system/region/list"),
    ("GET", "/api/blade-system/region/detail"),
    ("GET", "/api/blade-system/region/schema"),
    ("GET", "/api/blade-system/region/export"),
    ("POST", "/api/blade-system/region/submit"),
    ("POST", "/api/blade-system/region/remove"),
    ("GET", "/api/blade-system/region/lazy-tree"),
    ("GET", "/api/blade-log/usual/list"),
    ("GET", "/api/blade-log/usual/detail"),
    ("GET", "/api/blade-log/usual/schema"),
    ("GET", "/api/blade-log/usual/export"),
    ("GET", "/api/blade-log/api/list"),
    ("GET", "/api/blade-log/api/detail"),
    ("GET", "/api/blade-log/api/schema"),
    ("GET", "/api/blade-log/api/export"),
    ("GET", "/api/blade-log/login/list"),
    ("GET", "/api/blade-log/login/detail"),
    ("GET", "/api/blade-log/login/schema"),
    ("GET", "/api/blade-log/login/export"),
    ("GET", "/api/blade-log/error/schema"),
    ("GET", "/api/blade-log/error/export"),
    ("GET", "/api/blade-resource/oss/list"),
    ("GET", "/api/blade-resource/oss/detail"),
    ("GET", "/api/blade-resource/oss/schema"),
    ("GET", "/api/blade-resource/oss/export"),
    ("POST", "/api/blade-resource/oss/submit"),
    ("POST", "/api/blade-resource/oss/remove"),
    ("POST", "/api/blade-resource/oss/enable"),
    ("GET", "/api/blade-resource/sms/list"),
    ("GET", "/api/blade-resource/sms/detail"),
    ("GET", "/api/blade-resource/sms/schema"),
    ("GET", "/api/blade-resource/sms/export"),
    ("POST", "/api/blade-resource/sms/submit"),
    ("POST", "/api/blade-resource/sms/remove"),
    ("POST", "/api/blade-resource/sms/enable"),
    ("POST", "/api/blade-resource/sms/send-message"),
    ("GET", "/api/blade-resource/attach/list"),
    ("GET", "/api/blade-resource/attach/detail"),
    ("GET", "/api/blade-resource/attach/schema"),
    ("GET", "/api/blade-resource/attach/export"),
    ("POST", "/api/blade-resource/attach/remove"),
    ("GET", "/api/blade-desk/notice/list"),
    ("GET", "/api/blade-desk/notice/detail"),
    ("GET", "/api/blade-desk/notice/schema"),
    ("GET", "/api/blade-desk/notice/export"),
    ("POST", "/api/blade-desk/notice/submit"),
    ("POST", "/api/blade-desk/notice/remove"),
    ("GET", "/api/blade-develop/code/list"),
    ("GET", "/api/blade-develop/code/detail"),
    ("GET", "/api/blade-develop/code/schema"),
    ("GET", "/api/blade-develop/code/export"),
    ("POST", "/api/blade-develop/code/submit"),
    ("POST", "/api/blade-develop/code/remove"),
    ("POST", "/api/blade-develop/code/gen-code"),
    ("POST", "/api/blade-develop/code/copy"),
    ("GET", "/api/blade-develop/datasource/list"),
    ("GET", "/api/blade-develop/datasource/detail"),
    ("GET", "/api/blade-develop/datasource/schema"),
    ("GET", "/api/blade-develop/datasource/export"),
    ("POST", "/api/blade-develop/datasource/submit"),
    ("POST", "/api/blade-develop/datasource/remove"),
    ("GET", "/api/blade-report/report/rest/list"),
    ("GET", "/api/blade-report/report/rest/detail"),
    ("GET", "/api/blade-report/report/rest/schema"),
    ("GET", "/api/blade-report/report/rest/export"),
    ("POST", "/api/blade-report/report/rest/remove"),
    ("GET", "/api/blade-gen/{res}/list"),
    ("GET", "/api/blade-gen/{res}/detail"),
    ("GET", "/api/blade-gen/{res}/schema"),
    ("GET", "/api/blade-gen/{res}/export"),
    ("POST", "/api/blade-gen/{res}/submit"),
    ("POST", "/api/blade-gen/{res}/remove"),
    // Users.
    ("GET", "/api/blade-user/page"),
    ("GET", "/api/blade-user/detail"),
    ("GET", "/api/blade-user/platform-detail"),
    ("GET", "/api/blade-user/user-list"),
    ("POST", "/api/blade-user/submit"),
    ("POST", "/api/blade-user/update"),
    ("POST", "/api/blade-user/remove"),
    ("POST", "/api/blade-user/grant"),
    ("POST", "/api/blade-user/reset-password"),
    ("POST", "/api/blade-user/update-platform"),
    ("POST", "/api/blade-user/audit-pass"),
    ("POST", "/api/blade-user/register-guest"),
    ("GET", "/api/blade-user/common/sendSms"),
    ("POST", "/api/blade-user/common/bindUserPhone/1"),
    ("POST", "/api/blade-user/retrieve-password/vertifyCode"),
    ("POST", "/api/blade-user/retrieve-password/update"),
    ("GET", "/api/blade-user/export-template"),
    ("GET", "/api/blade-user/export-user"),
    ("POST", "/api/blade-user/import-user"),
    // Roles.
    ("GET", "/api/blade-system/role/list"),
    ("GET", "/api/blade-system/role/tree"),
    ("GET", "/api/blade-system/role/roleTree"),
    ("GET", "/api/blade-system/role/tree-by-id"),
    ("GET", "/api/blade-system/role/detail"),
    ("POST", "/api/blade-system/role/submit"),
    ("POST", "/api/blade-system/role/remove"),
    ("POST", "/api/blade-system/role/grant"),
    // Menus and top menus.
    ("GET", "/api/blade-system/menu/list"),
    ("GET", "/api/blade-system/menu/lazy-list"),
    ("GET", "/api/blade-system/menu/lazy-menu-list"),
    ("GET", "/api/blade-system/menu/menu-list"),
    ("GET", "/api/blade-system/menu/menuTree"),
    ("GET", "/api/blade-system/menu/tree"),
    ("GET", "/api/blade-system/menu/detail"),
    ("GET", "/api/blade-system/menu/top-menu"),
    ("GET", "/api/blade-system/menu/grant-tree"),
    ("GET", "/api/blade-system/menu/role-tree-keys"),
    ("GET", "/api/blade-system/menu/grant-top-tree"),
    ("GET", "/api/blade-system/menu/top-tree-keys"),
    ("POST", "/api/blade-system/menu/submit"),
    ("POST", "/api/blade-system/menu/remove"),
    ("GET", "/api/blade-system/topmenu/list"),
    ("GET", "/api/blade-system/topmenu/detail"),
    ("GET", "/api/blade-system/topmenu/schema"),
    ("GET", "/api/blade-system/topmenu/export"),
    ("POST", "/api/blade-system/topmenu/submit"),
    ("POST", "/api/blade-system/topmenu/remove"),
    ("POST", "/api/blade-system/topmenu/grant"),
    // Data and API scopes.
    ("GET", "/api/blade-system/data-scope/list"),
    ("GET", "/api/blade-system/data-scope/detail"),
    ("GET", "/api/blade-system/data-scope/schema"),
    ("GET", "/api/blade-system/data-scope/export"),
    ("POST", "/api/blade-system/data-scope/submit"),
    ("POST", "/api/blade-system/data-scope/remove"),
    ("GET", "/api/blade-system/api-scope/list"),
    ("GET", "/api/blade-system/api-scope/detail"),
    ("GET", "/api/blade-system/api-scope/schema"),
    ("GET", "/api/blade-system/api-scope/export"),
    ("POST", "/api/blade-system/api-scope/submit"),
    ("POST", "/api/blade-system/api-scope/remove"),
];

pub fn routes(st: &AppState) -> Router<AppState> {
    Router::new()
        .route("/api/health", get(health))
        .route("/api/blade-auth/oauth/token", post(token::token))
        .route("/api/blade-auth/oauth/captcha", get(token::captcha))
        .route("/api/blade-system/tenant/info", get(tenant::info))
        .route("/api/blade-auth/oauth/user-info", get(token::user_info))
        .route("/api/blade-auth/oauth/logout", get(token::logout).post(token::logout))
        .route("/api/blade-auth/oauth/clear-cache", get(token::clear_cache))
        .route("/api/blade-user/info", get(user::info))
        .route("/api/blade-user/update-password", post(user::update_password))
        .route("/api/blade-system/menu/routes", get(menu::routes))
        .route("/api/blade-system/menu/buttons", get(menu::buttons))
        .route("/api/blade-user/check-password", post(user::check_password))
        .route("/api/blade-user/update-info", post(user::update_info))
        .route("/api/blade-user/avatar", post(user::avatar))
        .route("/api/blade-resource/oss/endpoint/put-file", post(files::put_file))
        .route("/api/blade-log/error/upload", post(logs::upload))
        .merge(crud::routes(st, "/api/blade-system/param", "param"))
        .merge(user_routes())
        .merge(role_routes(st))
        .merge(menu_routes())
        .merge(crud::routes(st, "/api/blade-system/topmenu", "topmenu"))
        .route("/api/blade-system/topmenu/grant", post(menus::top_grant))
        .merge(scopes::routes(st))
        .merge(crud::read_routes(st, "/api/blade-log/error", "log_error"))
        .merge(crud::read_routes(st, "/api/blade-log/usual", "log_usual"))
        .merge(crud::read_routes(st, "/api/blade-log/api", "log_api"))
        .merge(crud::read_routes(st, "/api/blade-log/login", "log_login"))
        .merge(dict::routes(st, "/api/blade-system/dict", "dict"))
        .merge(dict::routes(st, "/api/blade-system/dict-biz", "dictbiz"))
        .merge(tenant::routes(st, "/api/blade-system/tenant"))
        .merge(system::post_routes(st, "/api/blade-system/post"))
        .merge(system::dept_routes(st, "/api/blade-system/dept"))
        .merge(system::client_routes(st, "/api/blade-system/client"))
        .merge(system::region_routes(st, "/api/blade-system/region"))
        .merge(resource::provider_routes(st, "/api/blade-resource/oss", "oss"))
        .merge(resource::provider_routes(st, "/api/blade-resource/sms", "sms"))
        .route("/api/blade-resource/sms/send-message", post(resource::send_message))
        .merge(resource::attach_routes(st, "/api/blade-resource/attach"))
        .merge(resource::notice_routes(st, "/api/blade-desk/notice"))
        .merge(develop::routes(st))
}

fn user_routes() -> Router<AppState> {
    const U: &str = "/api/blade-user";
    Router::new()
        .route(&format!("{U}/page"), get(users::page))
        .route(&format!("{U}/detail"), get(users::detail))
        .route(&format!("{U}/platform-detail"), get(users::detail))
        .route(&format!("{U}/user-list"), get(users::user_list))
        .route(&format!("{U}/submit"), post(users::submit))
        .route(&format!("{U}/update"), post(users::update))
        .route(&format!("{U}/remove"), post(users::remove))
        .route(&format!("{U}/grant"), post(users::grant))
        .route(&format!("{U}/reset-password"), post(users::reset_password))
        .route(&format!("{U}/update-platform"), post(users::update_platform))
        .route(&format!("{U}/audit-pass"), post(users::audit_pass))
        .route(&format!("{U}/register-guest"), post(account::register_guest))
        .route(&format!("{U}/common/sendSms"), get(account::send_sms))
        .route(&format!("{U}/common/bindUserPhone/{{userId}}"), post(account::bind_phone))
        .route(&format!("{U}/retrieve-password/vertifyCode"), post(account::retrieve_code))
        .route(&format!("{U}/retrieve-password/update"), post(account::retrieve_update))
        .route(&format!("{U}/export-template"), get(userxls::template))
        .route(&format!("{U}/export-user"), get(userxls::export))
        .route(&format!("{U}/import-user"), post(userxls::import))
}

fn role_routes(st: &AppState) -> Router<AppState> {
    const R: &str = "/api/blade-system/role";
    let d = st.res.get("role");
    Router::new()
        .route(&format!("{R}/list"), get(role::list))
        .route(&format!("{R}/tree"), get(role::select_tree))
        .route(&format!("{R}/roleTree"), get(role::select_tree))
        .route(&format!("{R}/tree-by-id"), get(role::tree_by_id))
        .route(&format!("{R}/detail"), get(move |st, s, q| crud::detail(st, s, q, d)))
        .route(&format!("{R}/submit"), post(role::submit))
        .route(&format!("{R}/remove"), post(role::remove))
        .route(&format!("{R}/grant"), post(role::grant))
}

fn menu_routes() -> Router<AppState> {
    const M: &str = "/api/blade-system/menu";
    Router::new()
        .route(&format!("{M}/list"), get(menus::list))
        .route(&format!("{M}/lazy-list"), get(menus::lazy_list))
        .route(&format!("{M}/lazy-menu-list"), get(menus::lazy_menu_list))
        .route(&format!("{M}/menu-list"), get(menus::menu_list))
        .route(&format!("{M}/menuTree"), get(menus::menu_tree))
        .route(&format!("{M}/tree"), get(menus::menu_tree))
        .route(&format!("{M}/detail"), get(menus::detail))
        .route(&format!("{M}/top-menu"), get(menus::top_menu))
        .route(&format!("{M}/grant-tree"), get(role::grant_tree))
        .route(&format!("{M}/role-tree-keys"), get(role::role_tree_keys))
        .route(&format!("{M}/grant-top-tree"), get(menus::grant_top_tree))
        .route(&format!("{M}/top-tree-keys"), get(menus::top_tree_keys))
        .route(&format!("{M}/submit"), post(menus::submit))
        .route(&format!("{M}/remove"), post(menus::remove))
}

async fn health() -> impl IntoResponse {
    axum::Json(serde_json::json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}))
}
