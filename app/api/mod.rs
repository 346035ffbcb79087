//! The HTTP API. Every route is listed here, public ones first: everything else requires a session, and
//! resource routes also require their permission codes.
pub mod account;
pub mod crud;
pub mod dict;
pub mod files;
pub mod logs;
pub mod menu;
pub mod menus;
pub mod role;
pub mod scopes;
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

/// Resources with a generic list screen: (resource, API base, screen path). The page handler renders the
/// screen at the path with the first page of data; the API base serves list/detail/submit/remove/schema/export.
pub const SCREENS: &[(&str, &str, &str)] = &[
    ("param", "/api/blade-system/param", "/system/param"),
    ("user", "/api/blade-user", "/system/user"),
    ("role", "/api/blade-system/role", "/authority/role"),
    ("menu", "/api/blade-system/menu", "/system/menu"),
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
        .route("/api/blade-system/dict/dictionary", get(dict::dictionary))
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
