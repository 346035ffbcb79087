//! The engine inside the store's write transactions: starting an instance, claiming, completing, withdrawing,
//! reassigning and deleting, each one transaction that writes the instance (state, variables, status), its tasks
//! and candidates, its history and the business record it belongs to — all of it or nothing.
//!
//! Storage (`assets/resources/flow_*.json`, tenant-first like everything):
//! - `flow_instance`: definition version, business record, starter, status, variables and engine state;
//! - `flow_task`: one row per person and open node (`todoUser` is set only while it is open and assigned: the
//!   todo list is one index read); a candidates' node has one row with `claimable` and a `flow_candidate` row
//!   per candidate (the claim list is one index read) until someone claims it;
//! - `flow_history` (append-only): every step with who, when, what, comment and duration.
use std::collections::BTreeMap;

use flow::run::{self, Effect, FlowError, State, Status};
use flow::{Assign, Definition, Val, Vars, vars_from_json, vars_json};
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, StoreError, WriteCtx};

use crate::engine::dialect::Ctx;
use crate::error::{refuse, rule};

pub const TASK_OPEN: i64 = 0;
pub const TASK_DONE: i64 = 1;
pub const TASK_CANCELLED: i64 = 2;

pub use crate::engine::rec::{id, int, obj, text};

/// The definition stored in a model or process record.
pub fn definition_of(rec: &Map<String, Value>) -> Definition {
    rec.get("definition").cloned().and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default()
}

/// An engine refusal in the client's language: who may not act is a 403, the rest a 400.
pub fn flow_err(def: &Definition, e: FlowError) -> StoreError {
    let (zh, en) = e.message(def);
    match e {
        FlowError::NotAssignee(_) | FlowError::SelfApproval(_) => refuse(zh, en),
        _ => rule(zh, en),
    }
}

pub fn status_name(s: i64) -> (&'static str, &'static str) {
    match s {
        0 => ("审批中", "In approval"),
        1 => ("已通过", "Passed"),
        2 => ("未通过", "Rejected"),
        3 => ("已撤回", "Withdrawn"),
        4 => ("已删除", "Deleted"),
        _ => ("?", "?"),
    }
}

fn status_code(s: Status) -> i64 {
    match s {
        Status::Running => 0,
        Status::Passed => 1,
        Status::Rejected => 2,
        Status::Withdrawn => 3,
        Status::Deleted => 4,
    }
}

/// The tenant's users as the engine asks for them.
pub struct Dir<'a, 'w, 'c> {
    pub w: &'a WriteCtx<'w>,
    pub cx: &'a Ctx<'c>,
    pub starter: u64,
}

impl Dir<'_, '_, '_> {
    fn live(&self, u: u64) -> bool {
        self.w.get(&self.cx.def("user"), self.cx.tenant, u).ok().flatten().is_some_and(|r| live_user(&r))
    }

    /// The leader of the starter's department, walking up to the parent departments when one has none.
    fn leader(&self) -> Option<u64> {
        let user = self.w.get(&self.cx.def("user"), self.cx.tenant, self.starter).ok()??;
        let ddef = self.cx.def("dept");
        let mut dept = crate::auth::session::id_list(user.get("deptId")).first().copied()?;
        for _ in 0..8 {
            let d = self.w.get(&ddef, self.cx.tenant, dept).ok()??;
            let l = id(&d, "leaderId");
            if l > 0 && l != self.starter && self.live(l) {
                return Some(l);
            }
            dept = id(&d, "parentId");
            if dept == 0 {
                return None;
            }
        }
        None
    }
}

impl run::Resolve for Dir<'_, '_, '_> {
    fn users(&self, a: &Assign, vars: &Vars) -> Vec<u64> {
        match a {
            Assign::User { users } => users.iter().filter_map(|u| u.parse().ok()).filter(|u| self.live(*u)).collect(),
            Assign::Role { role } => {
                let Some(rid) = role_by_alias(self.w, self.cx, role) else { return vec![] };
                let q = Query { filters: vec![Filter::new("roleId", Op::Equal, json!(rid.to_string()))], limit: 500, ..Query::default() };
                self.w.list(&self.cx.def("user"), self.cx.tenant, &q).map(|p| p.records.iter().filter(|r| live_user(r)).map(|r| id(r, "id")).collect()).unwrap_or_default()
            }
            // The approver chosen on the form (`taskUser`: the form says 不选则由部门负责人审批), else the
            // department's leader. (The leader came first, so a chosen approver was shown on the application
            // while the leader got the task.)
            // Never the applicant himself while he has a leader (a `taskUser` sent with a later step must not make
            // him his own approver); a company administrator without one may name himself, as before.
            Assign::Leader => match vars.get("taskUser") {
                Some(Val::User(u)) if self.live(*u) && (*u != self.starter || self.leader().is_none()) => vec![*u],
                _ => self.leader().into_iter().collect(),
            },
            // The type's approvers (审批人员); the tenant's administrators when none are set.
            Assign::Group { group } => {
                let mut out = Vec::new();
                if let Some(t) = super::approval::group_type(group) {
                    let q = Query { filters: vec![Filter::new("applyType", Op::Equal, json!(t))], limit: 500, ..Query::default() };
                    out = self.w.list(&self.cx.def("approval_user"), self.cx.tenant, &q).map(|p| p.records.iter().map(|r| id(r, "userId")).filter(|u| self.live(*u)).collect()).unwrap_or_default();
                }
                if out.is_empty() {
                    out = self.users(&Assign::Role { role: "admin".into() }, vars);
                }
                out
            }
            Assign::Starter => vec![self.starter],
            Assign::Var { var } => match vars.get(var) {
                Some(Val::User(u)) if self.live(*u) => vec![*u],
                _ => vec![],
            },
        }
    }
    fn starter(&self) -> u64 {
        self.starter
    }
}

/// An enabled user (status 1; pending and disabled users get no tasks).
pub fn live_user(r: &Map<String, Value>) -> bool {
    r.get("status").and_then(Value::as_i64).is_none_or(|s| s == 1)
}

fn role_by_alias(w: &WriteCtx, cx: &Ctx, alias: &str) -> Option<u64> {
    w.find_unique(&cx.def("role"), cx.tenant, "roleAlias", alias).ok().flatten()
}

/// A business record an instance belongs to.
#[derive(Clone, Copy)]
pub struct Business<'a> {
    pub table: &'a str,
    pub id: u64,
}

/// Starts an instance of a deployed process (`flow_process` record) in the open transaction.
pub fn start(w: &mut WriteCtx, cx: &Ctx, process: &Map<String, Value>, mut vars: Vars, business: Option<Business>) -> store::Result<Map<String, Value>> {
    if int(process, "suspensionState") != 1 {
        return Err(rule(format!("流程「{}」已挂起或已删除,不能发起", text(process, "name")), format!("Process '{}' is suspended or deleted; it cannot be started", text(process, "name"))));
    }
    let def = definition_of(process);
    if let Some(d) = def.var("applyUser")
        && d.ty == flow::VarType::User {
        vars.insert("applyUser".into(), Val::User(cx.actor.user_id));
    }
    if let Some(m) = def.missing(&vars) {
        let label = if m.label.is_empty() { &m.name } else { &m.label };
        return Err(StoreError::Rule(format!("请填写流程变量 {}({label})\u{1e}The process variable {} is required", m.name, m.name)));
    }
    let dir = Dir { w, cx, starter: cx.actor.user_id };
    let (state, fx) = run::start(&def, &mut vars, &dir).map_err(|e| flow_err(&def, e))?;
    let mut doc = Map::new();
    doc.insert("processId".into(), json!(id(process, "id")));
    for (to, from) in [("processKey", "processKey"), ("processName", "name")] {
        doc.insert(to.into(), json!(text(process, from)));
    }
    doc.insert("category".into(), json!(int(process, "category")));
    doc.insert("version".into(), json!(int(process, "version")));
    if let Some(b) = business {
        doc.insert("businessTable".into(), json!(b.table));
        doc.insert("businessId".into(), json!(b.id));
    }
    doc.insert("starterId".into(), json!(cx.actor.user_id));
    doc.insert("startTime".into(), json!(cx.now));
    doc.insert("status".into(), json!(0));
    doc.insert("running".into(), json!(1));
    let inst = w.insert(&cx.def("flow_instance"), cx.tenant, doc, cx.actor)?;
    let start_node = def.start_node().map(|n| (n.id.clone(), def.label(&n.id).to_string())).unwrap_or_default();
    history(w, cx, &inst, &start_node.0, &start_node.1, cx.actor.user_id, "start", "发起流程", cx.now, 0)?;
    let mut inst = inst;
    apply(w, cx, &def, &mut inst, &fx)?;
    save(w, cx, &def, &inst, &state, &vars)
}

/// Writes the instance's engine state, variables, current steps and status.
fn save(w: &mut WriteCtx, cx: &Ctx, def: &Definition, inst: &Map<String, Value>, st: &State, vars: &Vars) -> store::Result<Map<String, Value>> {
    let mut doc = Map::new();
    doc.insert("state".into(), serde_json::to_value(st).unwrap_or(Value::Null));
    doc.insert("vars".into(), Value::Object(vars_json(vars)));
    let names: Vec<&str> = st.active.iter().map(|a| def.label(&a.node)).collect();
    doc.insert("currentNodes".into(), json!(names.join(",")));
    let code = status_code(st.status);
    if code != int(inst, "status") {
        doc.insert("status".into(), json!(code));
    }
    if st.status != Status::Running && int(inst, "running") == 1 {
        doc.insert("running".into(), json!(0));
        doc.insert("endTime".into(), json!(cx.now));
    }
    w.update(&cx.def("flow_instance"), cx.tenant, id(inst, "id"), doc, cx.actor)
}

#[allow(clippy::too_many_arguments)]
fn history(w: &mut WriteCtx, cx: &Ctx, inst: &Map<String, Value>, node: &str, name: &str, user: u64, action: &str, comment: &str, started: &str, duration_ms: i64) -> store::Result<()> {
    let doc = obj(json!({
        "instanceId": id(inst, "id"), "node": node, "nodeName": name, "userId": user, "action": action,
        "comment": comment.chars().take(500).collect::<String>(), "startTime": started, "endTime": cx.now, "durationMs": duration_ms,
    }));
    w.insert(&cx.def("flow_history"), cx.tenant, doc, cx.actor)?;
    Ok(())
}

/// The open tasks of an instance.
pub fn open_tasks(w: &WriteCtx, cx: &Ctx, inst: u64) -> store::Result<Vec<Map<String, Value>>> {
    Ok(tasks_of(w, cx, inst)?.into_iter().filter(|t| int(t, "status") == TASK_OPEN).collect())
}

/// Every task of an instance: read by the instance's index entries alone (a few rows), the status checked on
/// the records — a `status` filter beside it would make the store read the index entries of every open task of
/// the tenant.
pub fn tasks_of(w: &WriteCtx, cx: &Ctx, inst: u64) -> store::Result<Vec<Map<String, Value>>> {
    let q = Query { filters: vec![Filter::new("instanceId", Op::Equal, json!(inst))], limit: 10_000, ..Query::default() };
    Ok(w.list(&cx.def("flow_task"), cx.tenant, &q)?.records)
}

fn drop_candidates(w: &mut WriteCtx, cx: &Ctx, task: u64) -> store::Result<()> {
    let def = cx.def("flow_candidate");
    let q = Query { filters: vec![Filter::new("taskId", Op::Equal, json!(task))], limit: 10_000, ..Query::default() };
    let ids: Vec<u64> = w.list(&def, cx.tenant, &q)?.records.iter().map(|r| id(r, "id")).collect();
    if !ids.is_empty() {
        w.remove(&def, cx.tenant, &ids, cx.actor)?;
    }
    Ok(())
}

/// Closes the open tasks of a node without a decision.
fn cancel_node(w: &mut WriteCtx, cx: &Ctx, inst: u64, node: &str) -> store::Result<()> {
    let tdef = cx.def("flow_task");
    for t in open_tasks(w, cx, inst)?.into_iter().filter(|t| text(t, "node") == node) {
        if int(&t, "claimable") == 1 {
            drop_candidates(w, cx, id(&t, "id"))?;
        }
        let doc = obj(json!({"status": TASK_CANCELLED, "todoUser": null, "claimable": 0, "endTime": cx.now}));
        w.update(&tdef, cx.tenant, id(&t, "id"), doc, cx.actor)?;
        crate::engine::messages::settle_task(w, cx, None, id(&t, "id"))?;
    }
    Ok(())
}

/// Writes what the engine decided: tasks opened, closed and cancelled, the end and its business record.
fn apply(w: &mut WriteCtx, cx: &Ctx, def: &Definition, inst: &mut Map<String, Value>, fx: &[Effect]) -> store::Result<()> {
    apply_noting(w, cx, def, inst, fx, None)
}

/// `apply`, the messages of the tasks it opens beginning with `note` (who gave the application back and why: the
/// applicant's 调整申请 said only 待办 and who applied).
fn apply_noting(w: &mut WriteCtx, cx: &Ctx, def: &Definition, inst: &mut Map<String, Value>, fx: &[Effect], note: Option<&str>) -> store::Result<()> {
    let iid = id(inst, "id");
    let tdef = cx.def("flow_task");
    for e in fx {
        match e {
            Effect::Open { node, users, claim } => {
                let mut base = obj(json!({
                    "instanceId": iid, "processId": id(inst, "processId"), "processName": text(inst, "processName"),
                    "category": int(inst, "category"), "version": int(inst, "version"), "node": node, "nodeName": def.label(node),
                    "starterId": id(inst, "starterId"), "businessTable": text(inst, "businessTable"), "businessId": id(inst, "businessId"),
                    "status": TASK_OPEN, "result": 0, "arriveTime": cx.now,
                }));
                if let Some(h) = def.task(node).and_then(|t| t.due_hours) {
                    if let Some(t) = local(cx.now) {
                        let due = t + chrono::Duration::hours(i64::from(h));
                        base.insert("dueTime".into(), json!(due.format("%Y-%m-%d %H:%M:%S").to_string()));
                    }
                }
                // 站内消息: the candidates are told there is a task to claim, an assignee that a task is theirs.
                let what = format!("{} · {}", text(inst, "processName"), def.label(node));
                let starter = w.get(&cx.def("user"), cx.tenant, id(inst, "starterId"))?.map(|u| text(&u, "realName").to_string()).unwrap_or_default();
                let about = business_summary(w, cx, inst)?;
                let content = [note.unwrap_or("").to_string(), if starter.is_empty() { String::new() } else { format!("发起人:{starter}") }, about].into_iter().filter(|x| !x.is_empty()).collect::<Vec<_>>().join(" · ");
                if *claim {
                    base.insert("claimable".into(), json!(1));
                    let t = w.insert(&tdef, cx.tenant, base, cx.actor)?;
                    let cdef = cx.def("flow_candidate");
                    for u in users {
                        w.insert(&cdef, cx.tenant, obj(json!({"taskId": id(&t, "id"), "userId": u, "instanceId": iid})), cx.actor)?;
                    }
                    crate::engine::messages::send_task(w, cx, users.iter().copied(), crate::engine::messages::CLAIM, &format!("待签收:{what}"), &content, "/work/claim", id(&t, "id"))?;
                } else {
                    for u in users {
                        let mut doc = base.clone();
                        doc.insert("assignee".into(), json!(u));
                        doc.insert("todoUser".into(), json!(u));
                        let t = w.insert(&tdef, cx.tenant, doc, cx.actor)?;
                        let link = format!("/work/process/{}/handle/{}/{iid}/{}", if int(inst, "category") == 1 { "leave" } else { "flow" }, id(&t, "id"), id(inst, "businessId"));
                        crate::engine::messages::send_task(w, cx, [*u], crate::engine::messages::TASK, &format!("待办:{what}"), &content, &link, id(&t, "id"))?;
                    }
                }
            }
            Effect::AutoPass { node } => {
                history(w, cx, inst, node, def.label(node), 0, "auto", "无办理人,自动通过", cx.now, 0)?;
            }
            Effect::Close { node, .. } | Effect::Cancel { node } => cancel_node(w, cx, iid, node)?,
            Effect::End { status } => {
                let end = if *status == Status::Passed || *status == Status::Rejected { "end" } else { "stop" };
                let (zh, _) = status_name(status_code(*status));
                history(w, cx, inst, end, "结束", 0, end, zh, cx.now, 0)?;
                business_end(w, cx, inst, *status, note)?;
                // The applicant learns the result (not of a withdrawal: that is their own doing), and a refusal's
                // reason with it.
                let kind = if int(inst, "category") == 1 { "leave" } else { "flow" };
                let link = format!("/work/process/{kind}/detail/{iid}/{}", id(inst, "businessId"));
                let about = business_summary(w, cx, inst)?;
                let about = match note {
                    Some(n) if *status == Status::Rejected => format!("{n} · {about}"),
                    _ => about,
                };
                crate::engine::messages::send(w, cx, [id(inst, "starterId")], crate::engine::messages::APPROVAL, &format!("{}:{zh}", text(inst, "processName")), &about, &link)?;
            }
        }
    }
    Ok(())
}

/// What an instance is about, in a few words for a message: the construct of a crew or measure approval, the
/// days of a leave.
fn business_summary(w: &WriteCtx, cx: &Ctx, inst: &Map<String, Value>) -> store::Result<String> {
    summary_of(inst, &|name, k| w.get(&cx.def(name), cx.tenant, k))
}

/// What an instance is about, in a line (施工单 SG… 名称 · 量房 日期; a leave's dates), its records read by `get`
/// (resource, id): for its messages, and for its page (人工组织申请 said only its process and state).
pub fn summary_of(inst: &Map<String, Value>, get: &dyn Fn(&str, u64) -> store::Result<Option<Map<String, Value>>>) -> store::Result<String> {
    let bid = id(inst, "businessId");
    if bid == 0 {
        return Ok(String::new());
    }
    let construct = |k: u64| -> store::Result<String> {
        Ok(get("construct", k)?.map(|c| format!("施工单 {} {}", text(&c, "constructCode"), text(&c, "constructName"))).unwrap_or_default())
    };
    Ok(match text(inst, "businessTable") {
        "construct" => construct(bid)?,
        "measure" => match get("measure", bid)? {
            Some(m) => format!("{} · 量房 {}", construct(id(&m, "constructId"))?, text(&m, "measureDate")),
            None => String::new(),
        },
        "process_leave" => match get("process_leave", bid)? {
            Some(l) => format!("{} 至 {}", text(&l, "startTime").get(..16).unwrap_or(""), text(&l, "endTime").get(..16).unwrap_or("")),
            None => String::new(),
        },
        _ => String::new(),
    })
}

/// The business record of an ended instance takes its result in the same transaction.
fn business_end(w: &mut WriteCtx, cx: &Ctx, inst: &Map<String, Value>, status: Status, note: Option<&str>) -> store::Result<()> {
    let (table, bid) = (text(inst, "businessTable"), id(inst, "businessId"));
    if bid == 0 {
        return Ok(());
    }
    match table {
        "process_leave" => {
            let code = status.code();
            w.update(&cx.def("process_leave"), cx.tenant, bid, obj(json!({"status": code})), cx.actor)?;
        }
        "measure" | "construct" => super::approval::business_end(w, cx, table, bid, status, note)?,
        _ => {}
    }
    Ok(())
}

/// Loads an instance with its definition version, state and variables.
pub struct Loaded {
    pub inst: Map<String, Value>,
    pub def: Definition,
    pub state: State,
    pub vars: Vars,
}

pub fn load(w: &WriteCtx, cx: &Ctx, inst_id: u64) -> store::Result<Loaded> {
    let inst = w.get(&cx.def("flow_instance"), cx.tenant, inst_id)?.ok_or(StoreError::NotFound)?;
    let process = w.get(&cx.def("flow_process"), cx.tenant, id(&inst, "processId"))?.ok_or(StoreError::NotFound)?;
    let def = definition_of(&process);
    let state: State = inst.get("state").cloned().and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default();
    let vars = inst.get("vars").and_then(Value::as_object).map(|m| vars_from_json(&def, m)).unwrap_or_default();
    Ok(Loaded { inst, def, state, vars })
}

/// What a completion sends: pass or reject, a comment, variables.
pub struct Decision {
    pub pass: bool,
    pub comment: String,
    pub vars: Map<String, Value>,
}

/// Completes a task as its assignee. A repeated completion of a task the same user already completed answers
/// the stored result and changes nothing.
/// Whether `node` is the applicant's own step (assigned to the starter: a leave's 调整申请).
pub fn starter_step(def: &Definition, node: &str) -> bool {
    def.task(node).is_some_and(|t| matches!(t.assign, Assign::Starter))
}

/// Whether an instance would be withdrawn (`withdraw`): running, and none of its tasks decided yet.
pub fn withdrawable(inst: &Map<String, Value>, tasks: &[Map<String, Value>]) -> bool {
    int(inst, "running") == 1 && !tasks.iter().any(|t| int(t, "status") == TASK_DONE)
}

/// The tasks of an instance, every state.
pub fn instance_tasks(r: &store::ReadCtx, res: &crate::decl::Resources, tenant: &str, iid: u64) -> store::Result<Vec<Map<String, Value>>> {
    let q = Query { filters: vec![Filter::new("instanceId", Op::Equal, json!(iid))], limit: 1_000, ..Query::default() };
    Ok(r.list(&res.get("flow_task"), tenant, &q)?.records)
}

/// Variables sent with the applicant's own step (assigned to the starter: a leave's 调整申请) through the generic
/// completion: he does not choose who decides next (a user variable), and a leave's figures change only through
/// its form's 重新提交 (it computes them) — `taskUser` set to himself and `days: 1` would have let him approve his
/// own five days. Other deciders' variables are the definition's to read.
pub fn own_step_vars(w: &WriteCtx, cx: &Ctx, task_id: u64, vars: &Map<String, Value>) -> store::Result<()> {
    if vars.is_empty() {
        return Ok(());
    }
    let Some(task) = w.get(&cx.def("flow_task"), cx.tenant, task_id)? else { return Ok(()) };
    let l = load(w, cx, id(&task, "instanceId"))?;
    if !starter_step(&l.def, text(&task, "node")) {
        return Ok(());
    }
    let leave = int(&l.inst, "category") == 1;
    if let Some(k) = vars.keys().find(|k| leave || l.def.var(k).is_some_and(|d| d.ty == flow::VarType::User)) {
        return Err(rule(
            format!("发起人办理自己的步骤时不能修改流程变量 {k}{}", if leave { ";请假请在调整申请中修改后「重新提交」" } else { "" }),
            format!("The applicant's own step cannot set the variable {k}{}", if leave { "; change the leave and send it again instead" } else { "" }),
        ));
    }
    Ok(())
}

pub fn complete(w: &mut WriteCtx, cx: &Ctx, task_id: u64, inst_hint: Option<u64>, d: &Decision) -> store::Result<Map<String, Value>> {
    let tdef = cx.def("flow_task");
    let task = w.get(&tdef, cx.tenant, task_id)?.ok_or(StoreError::NotFound)?;
    if inst_hint.is_some_and(|i| i != id(&task, "instanceId")) {
        return Err(StoreError::NotFound);
    }
    let me = cx.actor.user_id;
    // The same decision sent again (a retry after a lost answer) answers what was stored; another decision on a
    // task already decided is refused, never reported as done.
    if int(&task, "status") == TASK_DONE && id(&task, "doneUser") == me && int(&task, "result") == if d.pass { 1 } else { 2 } {
        return Ok(task);
    }
    if int(&task, "status") != TASK_OPEN {
        return Err(rule("该任务已办理或已关闭", "The task has already been completed or closed"));
    }
    if int(&task, "claimable") == 1 {
        return Err(if is_candidate(w, cx, task_id, me)? {
            rule("请先签收该任务再办理", "Claim the task before completing it")
        } else {
            refuse("您不是该任务的候选人", "You are not a candidate of this task")
        });
    }
    if id(&task, "assignee") != me {
        return Err(refuse("您不是该任务的办理人", "You are not the assignee of this task"));
    }
    let mut l = load(w, cx, id(&task, "instanceId"))?;
    let given = l.def.read_vars(&d.vars).map_err(|p| StoreError::Rule(format!("{}\u{1e}{}", p.msg, p.msg_en)))?;
    l.vars.extend(given);
    let node = text(&task, "node").to_string();
    let starter = id(&l.inst, "starterId");
    let fx = {
        let dir = Dir { w, cx, starter };
        run::decide(&l.def, &mut l.state, &mut l.vars, &node, me, d.pass, &dir).map_err(|e| flow_err(&l.def, e))?
    };
    let comment = if d.comment.trim().is_empty() { if d.pass { "同意" } else { "驳回" }.to_string() } else { d.comment.clone() };
    let started = if text(&task, "claimTime").is_empty() { text(&task, "arriveTime").to_string() } else { text(&task, "claimTime").to_string() };
    let done = w.update(&tdef, cx.tenant, task_id, obj(json!({"status": TASK_DONE, "result": if d.pass { 1 } else { 2 }, "comment": comment.chars().take(500).collect::<String>(), "doneUser": me, "todoUser": null, "endTime": cx.now})), cx.actor)?;
    crate::engine::messages::settle_task(w, cx, Some(me), task_id)?;
    let took = duration_ms(&started, cx.now);
    history(w, cx, &l.inst, &node, l.def.label(&node), me, if d.pass { "pass" } else { "reject" }, &comment, &started, took)?;
    let note = if d.pass {
        None
    } else {
        let who = w.get(&cx.def("user"), cx.tenant, me)?.map(|u| text(&u, "realName").to_string()).unwrap_or_default();
        Some(format!("{who} 驳回:{}", comment.chars().take(100).collect::<String>()))
    };
    apply_noting(w, cx, &l.def, &mut l.inst, &fx, note.as_deref())?;
    // The applicant hears that a step agreed and where it waits now (the result alone came at the end; a leave
    // passed on to 管理员审批 left him without word for days).
    let next: Vec<String> = fx.iter().filter_map(|e| if let Effect::Open { node, .. } = e { Some(l.def.label(node).to_string()) } else { None }).collect();
    if d.pass && starter != me && !next.is_empty() && !fx.iter().any(|e| matches!(e, Effect::End { .. })) {
        let who = w.get(&cx.def("user"), cx.tenant, me)?.map(|u| text(&u, "realName").to_string()).unwrap_or_default();
        let kind = if int(&l.inst, "category") == 1 { "leave" } else { "flow" };
        let link = format!("/work/process/{kind}/detail/{}/{}", id(&l.inst, "id"), id(&l.inst, "businessId"));
        let about = business_summary(w, cx, &l.inst)?;
        let title = format!("{}:{who}已同意,转{}", text(&l.inst, "processName"), next.join("、"));
        crate::engine::messages::send(w, cx, [starter], crate::engine::messages::APPROVAL, &title, &about, &link)?;
    }
    save(w, cx, &l.def, &l.inst, &l.state, &l.vars)?;
    Ok(done)
}

pub fn is_candidate(w: &WriteCtx, cx: &Ctx, task: u64, user: u64) -> store::Result<bool> {
    let q = Query { filters: vec![Filter::new("taskId", Op::Equal, json!(task)), Filter::new("userId", Op::Equal, json!(user))], limit: 1, ..Query::default() };
    Ok(w.list(&cx.def("flow_candidate"), cx.tenant, &q)?.total > 0)
}

/// A candidate claims a task: it becomes theirs alone.
pub fn claim(w: &mut WriteCtx, cx: &Ctx, task_id: u64) -> store::Result<Map<String, Value>> {
    let tdef = cx.def("flow_task");
    let task = w.get(&tdef, cx.tenant, task_id)?.ok_or(StoreError::NotFound)?;
    let me = cx.actor.user_id;
    if int(&task, "status") == TASK_OPEN && int(&task, "claimable") == 0 && id(&task, "assignee") == me {
        return Ok(task);
    }
    if int(&task, "status") == TASK_OPEN && int(&task, "claimable") == 0 {
        // Someone else's task: a matter of rights (403), not of the task's state.
        return Err(refuse("该任务已由他人办理,您不能签收", "The task is assigned to someone else; you cannot claim it"));
    }
    if int(&task, "status") != TASK_OPEN || int(&task, "claimable") != 1 {
        return Err(rule("该任务已被签收或已关闭", "The task has already been claimed or closed"));
    }
    if !is_candidate(w, cx, task_id, me)? {
        return Err(refuse("您不是该任务的候选人,不能签收", "You are not a candidate of this task; you cannot claim it"));
    }
    let mut l = load(w, cx, id(&task, "instanceId"))?;
    let node = text(&task, "node").to_string();
    run::claim(&mut l.state, &node, me).map_err(|e| flow_err(&l.def, e))?;
    drop_candidates(w, cx, task_id)?;
    let t = w.update(&tdef, cx.tenant, task_id, obj(json!({"assignee": me, "todoUser": me, "claimable": 0, "claimTime": cx.now})), cx.actor)?;
    // Claimed, it is nobody else's to claim (and the claimer's own 待签收 is done).
    crate::engine::messages::settle_task(w, cx, None, task_id)?;
    history(w, cx, &l.inst, &node, l.def.label(&node), me, "claim", "签收", text(&task, "arriveTime"), duration_ms(text(&task, "arriveTime"), cx.now))?;
    save(w, cx, &l.def, &l.inst, &l.state, &l.vars)?;
    Ok(t)
}

/// The starter takes a running instance back while nobody has decided anything yet.
pub fn withdraw(w: &mut WriteCtx, cx: &Ctx, inst_id: u64) -> store::Result<Map<String, Value>> {
    let mut l = load(w, cx, inst_id)?;
    if id(&l.inst, "starterId") != cx.actor.user_id {
        return Err(refuse("只有发起人可以撤回", "Only the starter may withdraw it"));
    }
    if l.state.status != Status::Running {
        return Err(rule("流程已结束,不能撤回", "The process has ended; it cannot be withdrawn"));
    }
    if tasks_of(w, cx, inst_id)?.iter().any(|t| int(t, "status") == TASK_DONE) {
        return Err(rule("已有人审批,不能撤回", "Someone has already decided a step; it cannot be withdrawn"));
    }
    let fx = run::stop(&mut l.state, Status::Withdrawn).map_err(|e| flow_err(&l.def, e))?;
    history(w, cx, &l.inst, "withdraw", "撤回", cx.actor.user_id, "withdraw", "发起人撤回", cx.now, 0)?;
    apply(w, cx, &l.def, &mut l.inst, &fx)?;
    save(w, cx, &l.def, &l.inst, &l.state, &l.vars)
}

/// An administrator deletes a running instance, with a reason.
pub fn delete(w: &mut WriteCtx, cx: &Ctx, inst_id: u64, reason: &str) -> store::Result<Map<String, Value>> {
    let mut l = load(w, cx, inst_id)?;
    let fx = run::stop(&mut l.state, Status::Deleted).map_err(|_| rule("流程已结束,不能删除", "The process has ended; it cannot be deleted"))?;
    history(w, cx, &l.inst, "delete", "删除", cx.actor.user_id, "delete", reason, cx.now, 0)?;
    apply(w, cx, &l.def, &mut l.inst, &fx)?;
    save(w, cx, &l.def, &l.inst, &l.state, &l.vars)?;
    let inst = w.update(&cx.def("flow_instance"), cx.tenant, inst_id, obj(json!({"deleteReason": reason})), cx.actor)?;
    Ok(inst)
}

/// An administrator hands an open task to another user, with a reason.
pub fn reassign(w: &mut WriteCtx, cx: &Ctx, task_id: u64, to: u64, reason: &str) -> store::Result<Map<String, Value>> {
    let tdef = cx.def("flow_task");
    let task = w.get(&tdef, cx.tenant, task_id)?.ok_or(StoreError::NotFound)?;
    if int(&task, "status") != TASK_OPEN {
        return Err(rule("该任务已办理或已关闭", "The task has already been completed or closed"));
    }
    let user = w.get(&cx.def("user"), cx.tenant, to)?.ok_or_else(|| rule("转办人员不存在", "No such user"))?;
    let mut l = load(w, cx, id(&task, "instanceId"))?;
    let node = text(&task, "node").to_string();
    let from = id(&task, "assignee");
    if let Some(a) = l.state.active.iter_mut().find(|a| a.node == node) {
        if a.users.contains(&to) && from != to {
            return Err(rule(format!("{} 已是该环节的办理人", text(&user, "realName")), "The user already works on this step"));
        }
        if int(&task, "claimable") == 1 {
            a.users = vec![to];
            a.claim = false;
        } else {
            for u in a.users.iter_mut().filter(|u| **u == from) {
                *u = to;
            }
        }
    }
    if int(&task, "claimable") == 1 {
        drop_candidates(w, cx, task_id)?;
    }
    let t = w.update(&tdef, cx.tenant, task_id, obj(json!({"assignee": to, "todoUser": to, "claimable": 0})), cx.actor)?;
    // The one it was given to (or, unclaimed, every candidate) no longer has it to do.
    if int(&task, "claimable") == 1 || from != to {
        crate::engine::messages::settle_task(w, cx, None, task_id)?;
    }
    let name = text(&user, "realName");
    history(w, cx, &l.inst, &node, l.def.label(&node), cx.actor.user_id, "reassign", &format!("转办给 {name}:{reason}"), cx.now, 0)?;
    save(w, cx, &l.def, &l.inst, &l.state, &l.vars)?;
    let kind = if int(&l.inst, "category") == 1 { "leave" } else { "flow" };
    let link = format!("/work/process/{kind}/handle/{task_id}/{}/{}", id(&l.inst, "id"), id(&l.inst, "businessId"));
    crate::engine::messages::send_task(w, cx, [to], crate::engine::messages::TASK, &format!("转办给您:{} · {}", text(&l.inst, "processName"), l.def.label(&node)), reason, &link, task_id)?;
    Ok(t)
}

/// Milliseconds between two local times `yyyy-MM-dd HH:mm:ss` (0 when either does not parse).
pub fn duration_ms(from: &str, to: &str) -> i64 {
    match (local(from), local(to)) {
        (Some(a), Some(b)) if b >= a => (b - a).num_milliseconds(),
        _ => 0,
    }
}

pub use crate::engine::demo::local;

/// `1天2小时3分` for a duration (BladeX's history column).
pub fn duration_text(ms: i64) -> String {
    if ms <= 0 {
        return String::new();
    }
    let s = ms / 1000;
    let (d, h, m, sec) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60, s % 60);
    let mut out = String::new();
    if d > 0 {
        out.push_str(&format!("{d}天"));
    }
    if h > 0 {
        out.push_str(&format!("{h}小时"));
    }
    if m > 0 {
        out.push_str(&format!("{m}分"));
    }
    if out.is_empty() || (d == 0 && h == 0) {
        out.push_str(&format!("{sec}秒"));
    }
    out
}

pub use crate::engine::demo::{seed_as, seed_clock};
pub use crate::engine::names::names;

/// What `zhizhuang verify` finds of the approvals: every instance's engine state agrees with its rows.
#[derive(Debug, Default)]
pub struct Audit {
    pub instances: u64,
    pub tasks: u64,
    pub problems: Vec<String>,
}

/// Checks every instance of every tenant: running exactly when its state is running and it waits on at least one
/// step; its open tasks are exactly the state's open steps (one row per assignee, or one claimable row with a
/// candidate row per candidate); no task decided twice (one pass or reject in the history per decided task).
pub fn audit(r: &store::ReadCtx, res: &crate::decl::Resources) -> store::Result<Audit> {
    let (idef, tdef, cdef, hdef) = (res.get("flow_instance"), res.get("flow_task"), res.get("flow_candidate"), res.get("flow_history"));
    let mut out = Audit::default();
    let mut tenants = r.tenants_of(&idef)?;
    tenants.sort();
    for t in tenants {
        let mut tasks: BTreeMap<u64, Vec<Map<String, Value>>> = BTreeMap::new();
        r.for_each(&tdef, &t, |task| {
            tasks.entry(id(&task, "instanceId")).or_default().push(task);
            Ok(())
        })?;
        let mut cands: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        r.for_each(&cdef, &t, |c| {
            cands.entry(id(&c, "taskId")).or_default().push(id(&c, "userId"));
            Ok(())
        })?;
        let mut decisions: BTreeMap<(u64, String, u64), u64> = BTreeMap::new();
        r.for_each(&hdef, &t, |h| {
            if matches!(text(&h, "action"), "pass" | "reject") {
                *decisions.entry((id(&h, "instanceId"), text(&h, "node").to_string(), id(&h, "userId"))).or_default() += 1;
            }
            Ok(())
        })?;
        let mut done_rows: BTreeMap<(u64, String, u64), u64> = BTreeMap::new();
        r.for_each(&idef, &t, |inst| {
            out.instances += 1;
            let iid = id(&inst, "id");
            let st: State = inst.get("state").cloned().and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default();
            let running = int(&inst, "running") == 1;
            let say = |p: String| format!("tenant {t} instance {iid}: {p}");
            if running != (st.status == Status::Running) || status_code(st.status) != int(&inst, "status") {
                out.problems.push(say(format!("status {} / running {} but the engine state is {:?}", int(&inst, "status"), running, st.status)));
            }
            if running == st.active.is_empty() {
                out.problems.push(say(format!("running {running} with {} open steps", st.active.len())));
            }
            let rows = tasks.get(&iid).map(Vec::as_slice).unwrap_or(&[]);
            let open: Vec<&Map<String, Value>> = rows.iter().filter(|x| int(x, "status") == TASK_OPEN).collect();
            for a in &st.active {
                let mine: Vec<&&Map<String, Value>> = open.iter().filter(|x| text(x, "node") == a.node).collect();
                if a.claim {
                    let ok = mine.len() == 1 && int(mine[0], "claimable") == 1 && {
                        let mut c = cands.get(&id(mine[0], "id")).cloned().unwrap_or_default();
                        c.sort_unstable();
                        let mut u = a.users.clone();
                        u.sort_unstable();
                        c == u
                    };
                    if !ok {
                        out.problems.push(say(format!("step {} to claim: {} open rows, candidates differ", a.node, mine.len())));
                    }
                } else {
                    let mut got: Vec<u64> = mine.iter().map(|x| id(x, "assignee")).collect();
                    got.sort_unstable();
                    let mut want: Vec<u64> = a.users.iter().copied().filter(|u| !a.passed.contains(u) && !a.rejected.contains(u)).collect();
                    want.sort_unstable();
                    if got != want {
                        out.problems.push(say(format!("step {}: open tasks for {got:?}, the engine waits on {want:?}", a.node)));
                    }
                }
            }
            for x in &open {
                if !st.active.iter().any(|a| a.node == text(x, "node")) {
                    out.problems.push(say(format!("task {} is open on step {} the engine is not at", id(x, "id"), text(x, "node"))));
                }
                if int(x, "claimable") == 0 && id(x, "todoUser") != id(x, "assignee") {
                    out.problems.push(say(format!("task {} is open but not in its assignee's to-do list", id(x, "id"))));
                }
            }
            for x in rows.iter().filter(|x| int(x, "status") == TASK_DONE) {
                out.tasks += 1;
                *done_rows.entry((iid, text(x, "node").to_string(), id(x, "doneUser"))).or_default() += 1;
            }
            out.tasks += open.len() as u64;
            Ok(())
        })?;
        for (k, n) in &done_rows {
            let h = decisions.get(k).copied().unwrap_or(0);
            if h != *n {
                out.problems.push(format!("tenant {t} instance {}: step {} decided by {} — {n} done tasks, {h} decisions in the history", k.0, k.1, k.2));
            }
        }
    }
    Ok(out)
}
