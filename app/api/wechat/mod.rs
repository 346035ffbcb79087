//! blade-wechat (spec §7): a company's WeChat accounts (`deploy`), the modules its mini program offers
//! (`modules`), message templates (`message`), parameters (`param`) and the push history (`history`). All five are
//! declared resources (`assets/resources/wechat/`) served by the engine: list, detail, submit, remove under
//! `/api/blade-wechat/<name>`. The server holds the records its WeChat service reads and writes; it connects to
//! WeChat itself nowhere (the screens say so).
use serde_json::json;
use store::WriteCtx;

use crate::engine::dialect::Ctx;
use crate::engine::rec::{id, obj};

pub const AREA: crate::api::Area = crate::api::Area { demo: Some(area_demo), rules, ..crate::api::Area::routes_only("wechat", |api| api) };

/// 推送记录 is what was sent: written once (by whatever sends, or a client's submit), never changed afterwards.
fn rules(name: &str) -> Option<crate::engine::rules::Rules> {
    match name {
        "wechat_history" => Some(crate::engine::rules::Rules { save: Some(history_save), ..Default::default() }),
        _ => None,
    }
}

fn history_save(_w: &mut store::WriteCtx, _cx: &crate::engine::dialect::Ctx, old: Option<&serde_json::Map<String, serde_json::Value>>, _doc: &mut serde_json::Map<String, serde_json::Value>) -> store::Result<()> {
    if old.is_some() {
        return Err(crate::error::rule("推送记录是已发送的结果,不能修改", "A push record is what was sent: it cannot be changed"));
    }
    Ok(())
}

fn area_demo(w: &mut WriteCtx, res: &crate::decl::Resources, tenant: &str) -> store::Result<()> {
    let clerk = crate::engine::demo::admin_of(w, res, tenant)?;
    let now = crate::engine::demo::now_text();
    demo(w, &Ctx { tenant, actor: &clerk, res, now: &now })
}

/// The company's service account and owner mini program, their modules and templates, and a month of pushes.
pub fn demo(w: &mut WriteCtx, cx: &Ctx) -> store::Result<()> {
    let (city, _) = crate::engine::demo::city(cx.tenant);
    let short = if cx.tenant == "157270" { "智装教育" } else { "智装云家居" };
    let seq = if cx.tenant == "157270" { "3f1a" } else { "7c2e" };
    let ddef = cx.def("wechat_deploy");
    let service = id(&w.insert(&ddef, cx.tenant, obj(json!({"accountName": format!("{short}服务号"), "accountType": 1, "appId": format!("wx{seq}0c9d52b8e4a1"),
        "appSecret": "", "token": "", "aesKey": "", "serverUrl": format!("https://wx.{}.example.cn/wechat/portal", cx.tenant), "enabled": 1,
        "remark": format!("{city}业主服务通知")})), cx.actor)?, "id");
    let mini = id(&w.insert(&ddef, cx.tenant, obj(json!({"accountName": format!("{short}业主小程序"), "accountType": 3, "appId": format!("wx{seq}91f0a7d36c55"),
        "appSecret": "", "token": "", "aesKey": "", "serverUrl": "", "enabled": 1, "remark": "报修、进度查询、验收签字"})), cx.actor)?, "id");
    let mdef = cx.def("wechat_modules");
    for (i, (name, code, path, who)) in [
        ("在线报修", "repair", "/pages/repair/index", 1), ("施工进度", "progress", "/pages/progress/index", 1), ("验收签字", "acceptance", "/pages/accept/index", 1),
        ("我的工单", "orders", "/pages/order/list", 1), ("工地打卡", "clockin", "/pages/clock/index", 3), ("整改回复", "rectify", "/pages/rectify/index", 2),
    ].iter().enumerate() {
        w.insert(&mdef, cx.tenant, obj(json!({"moduleName": name, "moduleCode": code, "deployId": mini, "pagePath": path, "audience": who, "sort": i + 1, "enabled": i32::from(i != 5)})), cx.actor)?;
    }
    let tdef = cx.def("wechat_message");
    let mut templates = Vec::new();
    for (i, (title, scene, content)) in [
        ("报修受理通知", 1, "您好,您的报修「{{title}}」已受理,处理人 {{assignee}},预计 {{due}} 前上门。"),
        ("施工进度更新", 2, "您的 {{project}} 已完成「{{stage}}」,当前进度 {{percent}}%。"),
        ("验收提醒", 3, "{{project}} 的 {{stage}} 将于 {{date}} 验收,请业主到场签字。"),
        ("付款提醒", 4, "{{contract}} 第 {{node}} 期款 ¥{{amount}} 将于 {{due}} 到期。"),
    ].iter().enumerate() {
        templates.push((id(&w.insert(&tdef, cx.tenant, obj(json!({"title": title, "templateId": format!("{seq}-tpl-{:02}-{}", i + 1, &seq[..2]), "deployId": service,
            "scene": scene, "content": content, "enabled": 1})), cx.actor)?, "id"), *title));
    }
    let pdef = cx.def("wechat_param");
    for (name, key, value) in [
        ("推送时段开始", "wechat.push.from", "08:00"), ("推送时段结束", "wechat.push.to", "21:00"), ("每人每日推送上限", "wechat.push.daily", "5"),
        ("失败重试次数", "wechat.push.retry", "2"), ("客服电话", "wechat.service.phone", if cx.tenant == "157270" { "025-8461 3370" } else { "0571-8792 0615" }),
    ] {
        w.insert(&pdef, cx.tenant, obj(json!({"paramName": name, "paramKey": key, "paramValue": value})), cx.actor)?;
    }
    let hdef = cx.def("wechat_history");
    let owners = ["张女士", "刘先生", "黄女士", "吴先生", "郑女士", "冯先生", "何女士", "许先生"];
    let today = chrono::NaiveDate::parse_from_str(cx.now.get(..10).unwrap_or(""), "%Y-%m-%d").unwrap_or_default();
    for n in 0..24usize {
        let (tpl, title) = templates[n % templates.len()];
        let when = today - chrono::TimeDelta::days((n as i64 * 5) / 4 + 1);
        let failed = n % 9 == 4;
        w.insert(&hdef, cx.tenant, obj(json!({"messageId": tpl, "receiverName": owners[n % owners.len()], "openId": format!("o{seq}{:08x}", 0x5a17_0000u32 + n as u32 * 977),
            "summary": format!("{title}:{}", owners[n % owners.len()]), "sendTime": format!("{} {:02}:{:02}:00", when.format("%Y-%m-%d"), 9 + n % 9, (n * 13) % 60),
            "sendStatus": if failed { 2 } else { 1 }, "errorMsg": if failed { "43004 接收人未关注公众号" } else { "" }})), cx.actor)?;
    }
    Ok(())
}
