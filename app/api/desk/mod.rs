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

pub mod message;

pub fn routes(api: Api) -> Api {
    let api = notice_routes(api, "/api/blade-desk/notice");
    message::routes(api)
}

/// A notice tells everyone of the tenant who can sign in, once, when it is first saved (站内消息), in the
/// notice's own transaction.
fn notice_saved(w: &mut store::WriteCtx, cx: &crate::engine::dialect::Ctx, old: Option<&serde_json::Map<String, Value>>, new: &serde_json::Map<String, Value>) -> store::Result<()> {
    if old.is_some() {
        return Ok(());
    }
    let to = crate::engine::messages::staff(w, cx)?;
    let title = new.get("title").and_then(Value::as_str).unwrap_or("");
    // The message opens this notice over the notice list.
    let link = match new.get("id").and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))) {
        Some(id) => format!("/desk/notice?open={id}"),
        None => "/desk/notice".to_string(),
    };
    crate::engine::messages::send(w, cx, to, crate::engine::messages::NOTICE, &format!("通知公告:{title}"), "", &link).map(|_| ())
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

async fn notice_submit(State(st): State<AppState>, s: Session, JsonObject(mut body): JsonObject, def: Arc<ResourceDef>) -> ApiResult<Response> {
    if let Some(Value::String(c)) = body.get("content") {
        let clean = sanitize_html(c);
        body.insert("content".into(), json!(clean));
    }
    let saved = crud::save_then(&st, &s, &body, &def, notice_saved).await?;
    Ok(crate::http::ok(crate::wire::record(&def, st.settings.zone, saved)))
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

/// The demo's notices (通知公告): what a company posts over a month, each released and written on its day by the
/// tenant's administrator, oldest first (the desk's 系统消息 lists the newest).
fn area_demo(w: &mut store::WriteCtx, res: &crate::decl::Resources, tenant: &str) -> store::Result<()> {
    let admin = crate::engine::demo::admin_of(w, res, tenant)?;
    let today = crate::engine::demo::seed_clock().date();
    let notices: [(i64, &str, i64, &str); 4] = [
        (24, "关于任命张伟担任翡翠公园、华润悦府等项目经理的通知", 5, "<p>经公司研究决定，任命张伟同志为万科翡翠公园12#楼公区精装修、华润悦府样板间软装等项目的项目经理，负责项目进度、质量与安全管理。</p>"),
        (12, "新版审批流程上线说明", 1, "<p>人工组织申请、量房模型审核已改为在线审批：项目经理在施工单页提交，管理员在「审批任务」中签收并审批。</p><p>审批记录可在「审批记录」查询。</p>"),
        (5, "关于开展冬季施工安全检查的通知", 4, "<p>各项目部：请于本周五前完成临时用电、消防器材、脚手架及吊篮的自查，整改问题录入「楼栋整改」，项目经理签字确认。</p>"),
        (1, "仓库月末盘点安排", 1, "<p>本月最后一个工作日 14:00 起，建材总仓与河西中转仓进行月末盘点，盘点期间暂停出入库，请提前安排领料。</p>"),
    ];
    let def = res.get("notice");
    for (days_ago, title, category, content) in notices {
        let day = (today - chrono::TimeDelta::days(days_ago)).format("%Y-%m-%d").to_string();
        let (actor, stamp) = crate::engine::demo::seed_as(admin.clone(), &format!("{day} 09:30:00"));
        let doc = json!({"title": crate::engine::demo::in_city(tenant, title), "category": category, "releaseTime": format!("{day} 09:30:00"), "content": sanitize_html(&crate::engine::demo::in_city(tenant, content))});
        let saved = w.insert(&def, tenant, doc.as_object().cloned().unwrap_or_default(), &actor)?;
        // Everyone was told (站内消息), as a notice saved through the screen tells them.
        notice_saved(w, &crate::engine::dialect::Ctx { tenant, actor: &actor, res, now: &stamp }, None, &saved)?;
    }
    Ok(())
}

/// 工作台: notices and the desk (routes), and the demo's notices.
pub const AREA: crate::api::Area = crate::api::Area { demo: Some(area_demo), tasks: Some(message::spawn), ..crate::api::Area::routes_only("desk", routes) };
