//! The HTTP API. Every route is listed here, public ones first: everything else requires a session, and
//! resource routes also require their permission codes.
pub mod crud;
pub mod develop;
pub mod dict;
pub mod files;
pub mod logs;
pub mod menu;
pub mod resource;
pub mod system;
pub mod tenant;
pub mod user;

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
];

/// Resources with a generic list screen: (resource, API base, screen path). The page handler renders the
/// screen at the path with the first page of data; the API base serves list/detail/submit/remove/schema/export.
pub const SCREENS: &[(&str, &str, &str)] = &[
    ("param", "/api/blade-system/param", "/system/param"),
    ("dict", "/api/blade-system/dict", "/system/dict"),
    ("dictbiz", "/api/blade-system/dict-biz", "/system/dictbiz"),
    ("tenant", "/api/blade-system/tenant", "/system/tenant"),
    ("post", "/api/blade-system/post", "/system/post"),
    ("dept", "/api/blade-system/dept", "/system/dept"),
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

async fn health() -> impl IntoResponse {
    axum::Json(serde_json::json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}))
}
