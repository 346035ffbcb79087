//! Demo approvals of a tenant (`--demo`): leave applications in every state — passed, waiting on a department
//! leader, waiting for an administrator to claim, sent back to the applicant, withdrawn — written through the
//! same engine calls as the routes, by the people who would make them.
use serde_json::{Map, Value};
use store::{Actor, WriteCtx};

use super::leave::{self, Leave};
use super::runtime::{self, Decision, id};
use crate::engine::dialect::Ctx;
use crate::engine::resources::Resources;

fn user(w: &WriteCtx, res: &Resources, tenant: &str, account: &str) -> store::Result<Option<(u64, u64)>> {
    let udef = res.get("user");
    let Some(u) = w.find_unique(&udef, tenant, "account", account)? else { return Ok(None) };
    let rec = w.get(&udef, tenant, u)?.unwrap_or_default();
    let dept = crate::auth::session::id_list(rec.get("deptId")).first().copied().unwrap_or(0);
    Ok(Some((u, dept)))
}

/// The open task of an instance assigned to (or claimable by) someone.
fn open_task(w: &WriteCtx, res: &Resources, tenant: &str, inst: u64) -> store::Result<Option<Map<String, Value>>> {
    let q = store::Query { filters: vec![store::Filter::new("instanceId", store::Op::Equal, serde_json::json!(inst)), store::Filter::new("status", store::Op::Equal, serde_json::json!(0))], limit: 10, ..store::Query::default() };
    Ok(w.list(&res.get("flow_task"), tenant, &q)?.records.into_iter().next())
}

/// (applicant, days from now, hours, reason, decisions: (approver account or "" for the assignee, pass, comment)).
type Script = (&'static str, i64, i64, &'static str, &'static [(bool, &'static str)]);

pub fn seed(w: &mut WriteCtx, res: &Resources, tenant: &str) -> store::Result<()> {
    let scripts: &[Script] = &[
        ("yangmin", 3, 16, "参加行业设计展,需请假两天", &[(true, "同意,展会资料回来分享一下")]),
        ("zhouxiu", 7, 120, "回老家办理房产过户手续", &[(true, "同意,月底结账前回来")]),
        ("mazhiqiang", 1, 8, "孩子学校开家长会", &[]),
        ("wujun", 10, 96, "婚假(部分)", &[(false, "项目节点冲突,请调整到下月初")]),
        ("yangmin", 20, 4, "体检", &[]),
    ];
    let now = chrono::Local::now().naive_local();
    for (i, (account, from_days, hours, reason, decisions)) in scripts.iter().enumerate() {
        let Some((uid, dept)) = user(w, res, tenant, account)? else { continue };
        let actor = Actor { user_id: uid, dept_id: dept };
        let stamp = now.format("%Y-%m-%d %H:%M:%S").to_string();
        let cx = Ctx { tenant, actor: &actor, res, now: &stamp };
        let process = leave::latest_leave(w, &cx)?;
        let start = (now + chrono::Duration::days(*from_days)).date().and_hms_opt(9, 0, 0).unwrap_or(now);
        let end = start + chrono::Duration::hours(*hours);
        let days = (end - start).num_milliseconds() * flow::NUM_SCALE / 86_400_000;
        let fmt = |t: chrono::NaiveDateTime| t.format("%Y-%m-%d %H:%M:%S").to_string();
        let (_, inst) = leave::apply(w, &cx, &process, &Leave { task_user: None, from: fmt(start), to: fmt(end), days, reason: reason.to_string() })?;
        let iid = id(&inst, "id");
        for (pass, comment) in decisions.iter() {
            let Some(task) = open_task(w, res, tenant, iid)? else { break };
            let who = id(&task, "assignee");
            let approver = Actor { user_id: who, dept_id: 0 };
            let acx = Ctx { tenant, actor: &approver, res, now: &stamp };
            runtime::complete(w, &acx, id(&task, "id"), Some(iid), &Decision { pass: *pass, comment: comment.to_string(), vars: Map::new() })?;
        }
        // The last one is taken back by its applicant.
        if i == scripts.len() - 1 {
            runtime::withdraw(w, &cx, iid)?;
        }
    }
    Ok(())
}
