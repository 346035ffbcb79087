//! blade-desk notices (`/api/blade-desk/notice`): the generic resource, with rich-text content sanitised on the
//! server through an allow-list before it is stored (security rule 10).
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Value, json};
use store::ResourceDef;

use crate::auth::session::Session;
use crate::engine::{Api, Guard, crud};
use crate::error::ApiResult;
use crate::http::JsonObject;
use crate::state::AppState;

pub fn routes(api: Api) -> Api {
    notice_routes(api, "/api/blade-desk/notice")
}

pub fn notice_routes(api: Api, base: &str) -> Api {
    let def = api.def("notice");
    let g = Guard::write(&def, &["add", "edit"]);
    api.read(base, "notice").remove(base, "notice").post(format!("{base}/submit"), g, move |st, s, b| notice_submit(st, s, b, def.clone()))
}

/// Rich text through an allow-list: formatting tags, links (http, https, mailto; `rel=noopener noreferrer`) and
/// images survive; scripts, styles, event handlers, `javascript:` URLs and unknown tags do not.
pub fn sanitize_html(html: &str) -> String {
    ammonia::Builder::default()
        .url_schemes(std::collections::HashSet::from(["http", "https", "mailto"]))
        .link_rel(Some("noopener noreferrer"))
        .clean(html)
        .to_string()
}

async fn notice_submit(st: State<AppState>, s: Session, JsonObject(mut body): JsonObject, def: Arc<ResourceDef>) -> ApiResult<Response> {
    if let Some(Value::String(c)) = body.get("content") {
        let clean = sanitize_html(c);
        body.insert("content".into(), json!(clean));
    }
    crud::submit(st, s, JsonObject(body), def).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notice_html_is_inert() {
        let dirty = r#"<p onclick="alert(1)">hi<script>alert(2)</script><img src=x onerror=alert(3)><a href="javascript:alert(4)">x</a><iframe src="//evil"></iframe><b>ok</b></p>"#;
        let clean = sanitize_html(dirty);
        for bad in ["<script", "onclick", "onerror", "javascript:", "<iframe", "alert(2)"] {
            assert!(!clean.contains(bad), "{bad} survived: {clean}");
        }
        assert!(clean.contains("<b>ok</b>") && clean.contains("<p>"));
    }
}

/// 工作台: notices and the desk: routes only.
pub const AREA: crate::api::Area = crate::api::Area::routes_only("desk", routes);
