//! The HTTP API. Every route is listed here, public ones first: everything else requires a session, and
//! resource routes also require their permission codes.
pub mod crud;
pub mod dict;
pub mod files;
pub mod logs;
pub mod menu;
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
pub const SCREENS: &[(&str, &str, &str)] = &[("param", "/api/blade-system/param", "/system/param")];

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
        .merge(crud::read_routes(st, "/api/blade-log/error", "log_error"))
}

async fn health() -> impl IntoResponse {
    axum::Json(serde_json::json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}))
}
