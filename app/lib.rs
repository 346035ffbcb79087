//! Zhizhuang: the HTTP application. `router(state)` is what `serve` and every test build.
pub mod admin;
pub mod api;
pub mod assets;
pub mod auth;
pub mod cache;
pub mod cert;
pub mod cli;
pub mod decl;
pub mod engine;
pub mod error;
pub mod http;
pub mod indexer;
pub mod install;
pub mod listen;
pub mod logsink;
pub mod metrics;
pub mod openapi;
pub mod pages;
pub mod replica;
pub mod secrets;
pub mod seed;
pub mod serve;
pub mod state;
pub mod wire;

/// This build: version and commit, as `--version`, `/api/health`, 系统状态, the first log line and every file
/// it writes name it.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("ZZ_COMMIT"), ")");
/// `zhizhuang <VERSION>`: how files record the binary that last wrote them.
pub const BINARY: &str = concat!("zhizhuang ", env!("CARGO_PKG_VERSION"), " (", env!("ZZ_COMMIT"), ")");

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tower_http::catch_panic::CatchPanicLayer;

use crate::assets::Assets;
use crate::error::{ApiError, Kind};
use crate::state::AppState;

pub fn router(st: AppState) -> Router {
    let st2 = st.clone();
    let (routes, table) = api::build(&st.res);
    let _ = st.route_titles.set(engine::routes::titles(&table, &st.res));
    routes
        .route("/static/{*path}", get(static_file))
        .route("/assets/{name}", get(pages::asset))
        .route("/files/{tenant}/{key}", get(api::resource::files::download))
        .fallback(pages::fallback)
        .method_not_allowed_fallback(http::method_not_allowed)
        .with_state(st)
        // Panics become 500 envelopes inside the access log, so they reach the error log with the request id.
        .layer(CatchPanicLayer::custom(http::panic_response))
        // Pages, bundles and JSON compressed for slow links; the client sends Accept-Encoding.
        .layer(tower_http::compression::CompressionLayer::new())
        .layer(axum::middleware::from_fn_with_state(st2, http::access_log))
        // Answers that went over HTTPS say so for good (HSTS).
        .layer(axum::middleware::from_fn(listen::hsts))
}

async fn static_file(Path(path): Path<String>) -> Response {
    match Assets::get(&format!("static/{path}")) {
        Some(f) if !path.contains("..") => {
            let mut r = f.data.into_owned().into_response();
            let mime = f.metadata.mimetype().to_string();
            if let Ok(v) = HeaderValue::from_str(&mime) {
                r.headers_mut().insert(header::CONTENT_TYPE, v);
            }
            r.headers_mut().insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
            r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=86400"));
            r
        }
        _ => ApiError::with(Kind::UnknownRoute, format!("/static/{path}")).into_response(),
    }
}
#[cfg(test)]
mod route_table {
    /// A POST that lists or shows (`…/list`, `…/detail/{id}`, `ledgerList`) is a read, so `--api-log writes`
    /// leaves it out (the approval screens' POST lists were each an api-log entry); and every route's api-log
    /// title says in Chinese what it did (not `token` or `{taskId}`).
    #[test]
    fn post_lists_are_reads_and_titles_are_chinese() {
        let res = crate::decl::Resources::load().unwrap();
        let (_, table) = crate::api::build(&res);
        for r in table.iter().filter(|r| r.method == "POST") {
            let lists = r.path.split('/').any(|s| s == "list" || s == "detail" || s.ends_with("List"));
            assert!(!lists || r.read, "POST {} lists or shows but is not marked as a read", r.path);
        }
        let titles = crate::engine::routes::titles(&table, &res);
        assert_eq!(titles.len(), table.len());
        for (route, (title, _)) in &titles {
            assert!(title.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)), "{route}: {title}");
        }
        assert_eq!(titles["POST /api/blade-auth/oauth/token"].0, "登录");
        assert_eq!(titles["POST /api/blade-scm/flowable/approval/detail/{taskId}"], ("施工审批 详情".to_string(), true));
        assert_eq!(titles["POST /api/blade-scm/building/delete/{id}/{parentId}/1"].0, "楼栋管理 删除");
        // A write whose last segment also names reads (`…/data/{id}`) is titled by its own path.
        assert_eq!(titles["POST /api/blade-scm/speed/progress/worker/task/data/{constructId}/{taskId}"], ("施工进度 上报进度".to_string(), false));
    }
}
