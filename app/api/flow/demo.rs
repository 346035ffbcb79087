//! Demo approvals of a tenant (`--demo`): leave applications in every state — passed, waiting on a department
//! leader, waiting for an administrator to claim, sent back to the applicant, withdrawn — written through the
//! same engine calls as the routes, by the people who would make them.
use std::collections::HashMap;

use serde_json::{Map, Value};
use store::{Actor, WriteCtx};

use super::leave::{self, Leave};
use super::runtime::{self, Decision, id};
use crate::engine::dialect::Ctx;
use crate::decl::Resources;

fn user(w: &WriteCtx, res: &Resources, tenant: &str, account: &str) -> store::Result<Option<(u64, u64)>> {
    let udef = res.get("user");
    let Some(u) = w.find_unique(&udef, tenant, "account", account)? else { return Ok(None) };
    let rec = w.get(&udef, tenant, u)?.unwrap_or_default();
    let dept = crate::auth::session::id_list(rec.get("deptId")).first().copied().unwrap_or(0);
    Ok(Some((u, dept)))
}

/// The open task of an instance assigned to (or claimable by) someone.
fn open_task(w: &WriteCtx, res: &Resources, tenant: &str, inst: u64) -> store::Result<Option<Map<String, Value>>> {
    let q = store::Query { filters: vec![store::Filter::new("instanceId", store::Op::Equal, serde_json::json!(inst))], limit: 100, ..store::Query::default() };
    Ok(w.list(&res.get("flow_task"), tenant, &q)?.records.into_iter().find(|t| t.get("status").and_then(Value::as_i64) == Some(0)))
}

/// (applicant, leave type, days from now to the first working day, half days, reason, decisions: (pass, comment)).
type Script = (&'static str, i64, i64, i64, &'static str, &'static [(bool, &'static str)]);

/// The tenant's leave calendar as the routes read it (weekends only when its parameters are unset or unreadable).
fn calendar(w: &WriteCtx, res: &Resources, tenant: &str) -> store::Result<super::workdays::Calendar> {
    let def = res.get("param");
    let value = |k: &str| -> store::Result<Option<String>> {
        let Some(id) = w.find_unique(&def, tenant, "paramKey", k)? else { return Ok(None) };
        Ok(w.get(&def, tenant, id)?.and_then(|p| p.get("paramValue").and_then(Value::as_str).map(str::to_string)))
    };
    let (h, d) = (value(super::workdays::HOLIDAYS)?, value(super::workdays::WORKDAYS)?);
    Ok(super::workdays::Calendar::of(h.as_deref(), d.as_deref()).unwrap_or_default())
}

pub fn seed(w: &mut WriteCtx, res: &Resources, tenant: &str) -> store::Result<()> {
    // The construction approvals of past months first, then the leaves of these days: records (and the messages
    // they send) are listed newest first in the order they were written, which is then their order in time (the
    // bell showed February's 审批结果 above this week's to-dos).
    construction(w, res, tenant)?;
    let scripts: &[Script] = &[
        ("yangmin", 1, 3, 4, "参加南京国际建筑装饰设计展,需请假两天", &[(true, "同意,展会资料回来分享一下")]),
        ("zhouxiu", 3, 7, 6, "年假:回老家办理房产过户手续", &[(true, "同意,月底结账前回来")]),
        ("huangyong", 1, 1, 1, "孩子学校开家长会(上午)", &[]),
        ("wujun", 5, 10, 10, "婚假:12月中旬在老家举办婚礼", &[(false, "项目节点冲突,请调整到下月初")]),
        ("chenjie", 4, 2, 2, "上周六河西工地加班,调休一天", &[]),
        ("wujun", 2, 6, 1, "牙科复诊(下午)", &[]),
    ];
    let cal = calendar(w, res, tenant)?;
    let now = super::runtime::seed_clock();
    let fmt = |t: chrono::NaiveDateTime| t.format("%Y-%m-%d %H:%M:%S").to_string();
    // Who acts and the local time they do (the product's zone): applied a day or three ago in the morning, decided
    // hours later; a time still to come is now.
    let acting = |user_id: u64, dept_id: u64, t: chrono::NaiveDateTime| runtime::seed_as(Actor { user_id, dept_id, at: None }, &fmt(t));
    let applied_at = |i: usize| (now - chrono::Duration::days(i as i64 % 3 + 1)).date().and_hms_opt(9, 10 + i as u32 * 7, 0).unwrap_or(now);
    // Applied in the order of their days, so that the instances' ids follow time (lists sort by id as by time).
    let mut order: Vec<usize> = (0..scripts.len()).collect();
    order.sort_by_key(|i| applied_at(*i));
    for i in order {
        let (account, kind, from_days, halves, reason, decisions) = &scripts[i];
        let Some((uid, dept)) = user(w, res, tenant, account)? else { continue };
        let applied = applied_at(i);
        let (actor, stamp) = acting(uid, dept, applied);
        let cx = Ctx { tenant, actor: &actor, res, now: &stamp };
        let process = leave::latest_leave(w, &cx)?;
        // From the morning of the first working day on or after the day, for so many half days; an afternoon's
        // half day (an odd count ending a 下午 reason) starts at 13:00.
        let mut day = (now + chrono::Duration::days(*from_days)).date();
        while !cal.is_working(day) {
            day = day.succ_opt().unwrap_or(day);
        }
        let afternoon = reason.contains("下午");
        let start = day.and_hms_opt(if afternoon { 13 } else { 9 }, 0, 0).unwrap_or(now);
        let (mut left, mut last) = (*halves + i64::from(afternoon), day);
        while left > 2 {
            last = last.succ_opt().unwrap_or(last);
            if cal.is_working(last) {
                left -= 2;
            }
        }
        let end = last.and_hms_opt(if left == 1 { 12 } else { 18 }, 0, 0).unwrap_or(now);
        let days = super::workdays::leave_days(start, end, &cal, *kind == super::workdays::MATERNITY);
        let leave = Leave { task_user: None, kind: Some(*kind), from: fmt(start), to: fmt(end), days, reason: reason.to_string() };
        let (_, inst) = leave::apply(w, &cx, &process, &leave)?;
        let iid = id(&inst, "id");
        for (k, (pass, comment)) in decisions.iter().enumerate() {
            let Some(task) = open_task(w, res, tenant, iid)? else { break };
            let (approver, stamp) = acting(id(&task, "assignee"), 0, applied + chrono::Duration::minutes(200 + 90 * k as i64));
            let acx = Ctx { tenant, actor: &approver, res, now: &stamp };
            runtime::complete(w, &acx, id(&task, "id"), Some(iid), &Decision { pass: *pass, comment: comment.to_string(), vars: Map::new() })?;
        }
        // The last one is taken back by its applicant.
        if i == scripts.len() - 1 {
            let (actor, stamp) = acting(uid, dept, applied + chrono::Duration::minutes(45));
            runtime::withdraw(w, &Ctx { tenant, actor: &actor, res, now: &stamp }, iid)?;
        }
    }
    Ok(())
}

/// Construction approvals: the crews of the constructs under way, each passed on its start day; a new measure of a
/// construct still to inspect the project manager submitted (waiting for an administrator to claim); and a crew
/// organisation an administrator passed two days ago.
fn construction(w: &mut WriteCtx, res: &Resources, tenant: &str) -> store::Result<()> {
    let Some((pm, dept)) = user(w, res, tenant, "zhangwei")? else { return Ok(()) };
    let Some(admin) = w.find_unique(&res.get("user"), tenant, "account", "admin")? else { return Ok(()) };
    // The measure submitted yesterday afternoon, the crew organisation two days ago and passed that afternoon (local
    // times in the product's zone).
    let now = super::runtime::seed_clock();
    let acting = |user_id: u64, dept_id: u64, days_ago: i64, h: u32, m: u32| {
        let t = (now - chrono::Duration::days(days_ago)).date().and_hms_opt(h, m, 0).unwrap_or(now);
        runtime::seed_as(Actor { user_id, dept_id, at: None }, &t.format("%Y-%m-%d %H:%M:%S").to_string())
    };
    let constructs = w.all(&res.get("construct"), tenant)?;
    // Each construct's own manager applies for its approvals (张伟 only for his own): (user, department, name).
    let udef = res.get("user");
    let mut managers: HashMap<u64, (u64, u64, String)> = HashMap::new();
    for k in &constructs {
        let m = id(k, "managerId");
        let who = match w.get(&udef, tenant, m)? {
            Some(u) if m != 0 => (m, crate::auth::session::id_list(u.get("deptId")).first().copied().unwrap_or(0), u.get("realName").and_then(Value::as_str).unwrap_or("").to_string()),
            _ => (pm, dept, "张伟".to_string()),
        };
        managers.insert(id(k, "id"), who);
    }
    let manager = |k: u64| managers.get(&k).cloned().unwrap_or((pm, dept, "张伟".to_string()));
    // Each construct under way or done had its crew organisation passed before work began: submitted the morning
    // of its start day, passed before noon (its 人工组织审批 column and the approval records say so). First, in
    // the order of their days, so that the records' ids follow time as in a kept company's file.
    for k in constructs.iter().filter(|k| k.get("modelStatus").and_then(Value::as_i64).is_some_and(|s| s >= 3)) {
        let Some(day) = k.get("planStart").and_then(Value::as_str).and_then(|d| d.get(..10)) else { continue };
        let (m, m_dept, _) = manager(id(k, "id"));
        let (actor, stamp) = runtime::seed_as(Actor { user_id: m, dept_id: m_dept, at: None }, &format!("{day} 08:40:00"));
        let inst = super::approval::start_in(w, &Ctx { tenant, actor: &actor, res, now: &stamp }, 2, id(k, "id"), "班组人员与工种已落实,申请进场")?;
        if let Some(task) = open_task(w, res, tenant, id(&inst, "id"))? {
            let (a, stamp) = runtime::seed_as(Actor { user_id: admin, dept_id: 0, at: None }, &format!("{day} 10:15:00"));
            let acx = Ctx { tenant, actor: &a, res, now: &stamp };
            runtime::claim(w, &acx, id(&task, "id"))?;
            runtime::complete(w, &acx, id(&task, "id"), None, &Decision { pass: true, comment: "同意进场".into(), vars: Map::new() })?;
        }
    }
    if let Some(k) = constructs.iter().find(|k| k.get("modelStatus").and_then(Value::as_i64) == Some(2)) {
        let (m, m_dept, _) = manager(id(k, "id"));
        let (actor, stamp) = acting(m, m_dept, 2, 10, 5);
        let inst = super::approval::start_in(w, &Ctx { tenant, actor: &actor, res, now: &stamp }, 2, id(k, "id"), "木工 3 人、瓦工 2 人,下周一进场")?;
        if let Some(task) = open_task(w, res, tenant, id(&inst, "id"))? {
            let (a, stamp) = acting(admin, 0, 2, 14, 30);
            let acx = Ctx { tenant, actor: &a, res, now: &stamp };
            runtime::claim(w, &acx, id(&task, "id"))?;
            runtime::complete(w, &acx, id(&task, "id"), None, &Decision { pass: true, comment: "同意,注意安全交底".into(), vars: Map::new() })?;
        }
    }
    // A construct still to inspect gets its first measure, submitted; one under construction a re-measure, a draft.
    let mut picks: Vec<u64> = constructs.iter().filter(|k| k.get("modelStatus").and_then(Value::as_i64) == Some(1)).map(|k| id(k, "id")).take(1).collect();
    picks.extend(constructs.iter().filter(|k| k.get("modelStatus").and_then(Value::as_i64) == Some(3)).map(|k| id(k, "id")).take(1));
    for (n, k) in picks.iter().enumerate() {
        // A home's rooms; a public area's, shop's or school's halls (by the construct's project).
        let project = constructs.iter().find(|c| id(c, "id") == *k).map(|c| id(c, "projectId")).unwrap_or(0);
        let home = w.get_fields(&res.get("project"), tenant, project, &["businessUnit"])?.is_some_and(|p| p.get("businessUnit").and_then(Value::as_str) == Some("TOC"));
        let sizes: [(&str, i64, i64, i64); 3] = if home {
            [("客厅", 6000, 4500, 2800), ("主卧", 4500, 3600, 2800), ("厨房", 3200, 2400, 2800)]
        } else {
            [("一层大堂", 11000, 7500, 3600), ("电梯厅", 6000, 3000, 3600), ("走廊", 18000, 2200, 3600)]
        };
        let rooms: Vec<Value> = sizes.iter().map(|(r, l, wd, h)| serde_json::json!({"roomName": r, "length": l, "width": wd, "height": h})).collect();
        let area: i64 = sizes.iter().map(|(_, l, wd, _)| (l * wd + 5_000) / 10_000).sum();
        // Measured and submitted by the construct's manager, yesterday afternoon.
        let (mid, m_dept, name) = manager(*k);
        let (actor, stamp) = acting(mid, m_dept, 1, 16, 20);
        let cx = Ctx { tenant, actor: &actor, res, now: &stamp };
        let m = w.insert(&res.get("measure"), tenant, serde_json::json!({"constructId": k, "measureDate": &stamp[..10], "measurer": name, "rooms": rooms, "roomCount": 3, "totalArea": area, "measureStatus": 0, "remark": if n == 0 { "初测" } else { "业主改动户型后复测" }}).as_object().cloned().unwrap_or_default(), &actor)?;
        if n == 0 {
            super::approval::start_in(w, &cx, 1, id(&m, "id"), "新房初测,请审核量房模型")?;
        }
    }
    Ok(())
}
