//! 收款通道 and POS签约 (`/blade-api/edu-sub-account/extconfig`, `…/possign`): the merchant accounts that take
//! a company's payments and the POS terminals signed on them for a project's site. Both are declared resources;
//! the one rule is here: a terminal is signed only on an enabled channel. The server connects to no channel:
//! receipts are posted under 应收款管理 (`ledger`).
use serde_json::{Map, Value, json};
use store::WriteCtx;

use crate::engine::dialect::{Ctx, Rules, after, after_i64};
use crate::engine::rec::{id, int, obj, text};
use crate::error::rule;

pub fn rules(name: &str) -> Option<Rules> {
    match name {
        "possign" => Some(Rules { save: Some(terminal_save), ..Rules::default() }),
        _ => None,
    }
}

/// A terminal signed (status 1) needs an enabled channel; cancelling one (2) is always allowed.
fn terminal_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    if after_i64(old, doc, "signStatus").unwrap_or(1) != 1 {
        return Ok(());
    }
    let channel = after(old, doc, "configId").and_then(store::parse_id_value).unwrap_or(0);
    match w.get(&cx.def("extconfig"), cx.tenant, channel)? {
        Some(c) if int(&c, "enabled") != 1 => Err(rule(
            &format!("收款通道「{}」已停用,不能签约终端", text(&c, "configName")),
            &format!("The payment channel \u{201c}{}\u{201d} is disabled: no terminal can be signed on it", text(&c, "configName")),
        )),
        _ => Ok(()),
    }
}

/// Two channels and a terminal on each site of a project under way, kept by its manager's crew.
pub fn demo(w: &mut WriteCtx, cx: &Ctx) -> store::Result<()> {
    let (city, _) = crate::engine::demo::city(cx.tenant);
    let cdef = cx.def("extconfig");
    let mut channels = Vec::new();
    for (i, (name, channel, no, enabled)) in [
        (format!("{city}银联商务 工程款"), 1, format!("898{}5411000{}", if cx.tenant == "157270" { 320 } else { 330 }, 101), 1),
        (format!("{city}拉卡拉 门店收款"), 2, format!("822{}5812000{}", if cx.tenant == "157270" { 320 } else { 330 }, 207), 1),
        ("微信支付 (停用)".to_string(), 3, format!("16{}0{}", cx.tenant, 4419), 0),
    ]
    .into_iter()
    .enumerate()
    {
        let rec = w.insert(&cdef, cx.tenant, obj(json!({"configName": name, "channel": channel, "merchantNo": no, "appId": format!("APP{}{:02}", cx.tenant, i + 1),
            "appKey": "", "notifyUrl": "", "enabled": enabled, "remark": if enabled == 1 { "" } else { "2025 年起改用银联商务" }})), cx.actor)?;
        channels.push(id(&rec, "id"));
    }
    let pdef = cx.def("possign");
    let projects = w.all(&cx.def("project"), cx.tenant)?;
    let keepers = ["王建国", "李卫东", "陈晓峰", "赵志强", "周海波", "孙立新"];
    for (n, p) in projects.iter().filter(|p| matches!(int(p, "projectStatus"), 2 | 3)).take(6).enumerate() {
        let created: String = text(p, "startTime").chars().take(10).collect();
        let status = if int(p, "projectStatus") == 3 { 2 } else { 1 };
        w.insert(&pdef, cx.tenant, obj(json!({"terminalNo": format!("T{}{:04}", cx.tenant, 31 + n * 7), "configId": channels[n % 2], "projectId": id(p, "id"),
            "keeper": keepers[n % keepers.len()], "signDate": if created.is_empty() { cx.now.chars().take(10).collect() } else { created }, "signStatus": status,
            "remark": if status == 2 { "项目竣工,终端已收回" } else { "" }})), cx.actor)?;
    }
    Ok(())
}
