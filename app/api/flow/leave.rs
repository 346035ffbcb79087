//! 请假流程 (`/api/blade-desk/process/leave/...`): the leave record and its instance are written in one
//! transaction; when the instance ends, the record takes its result (spec §4 approval status: 0 in approval,
//! 1 passed, 2 failed).
use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, StoreError};

use super::runtime::{self, Business, id, int, obj, text};
use super::workdays;
use crate::auth::session::Session;
use crate::engine::dialect::Env;
use crate::engine::params::id_param;
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind, rule};
use crate::http::{AnyParams, JsonObject, ok};
use crate::state::AppState;

const BASE: &str = "/api/blade-desk/process/leave";

pub fn routes(api: Api) -> Api {
    api.post(format!("{BASE}/start-process"), Guard::code("work_start_flow"), start)
        .doc("请假 · applies for leave and starts its process: body {processDefinitionId (optional: the latest leave process), taskUser, leaveType (dictionary leave_type), startTime, endTime, reason}; days are working days in half days (weekends and 参数 leave.holidays excluded, leave.workdays included; 产假 calendar days)", &[])
        .post(format!("{BASE}/resubmit"), Guard::code("work_todo_handle"), resubmit)
        .doc("请假 · 调整申请: the applicant, given the leave back by an approver, changes it and sends it on again — body {taskId (the applicant's own open step of a leave), leaveType, startTime, endTime, reason, comment}; the leave's type, dates, days and reason and the process's variables change with the step's completion, in one transaction. To give it up instead: work/complete-task with pass=false", &[])
        .get(format!("{BASE}/days"), Guard::code("work_start_flow"), days_of)
        .doc("请假 · how many days a leave from startTime to endTime counts (leaveType optional): {days, workingDays: bool, holidaysUnset: the years it touches for which 参数 leave.holidays names no date}", &[])
        .get(format!("{BASE}/detail"), Guard::any(super::WORK), detail)
        .doc("请假 · a leave application with its process (businessId); the applicant, the approvers and flow_follow holders", &[])
        .get(format!("{BASE}/list"), Guard::any(&["leave", "work_start", "work_send"]), list)
        .reads()
        .doc("请假 · the signed-in user's own leave applications, newest first (current, size): dates, days, reason, approver, state and the step it waits at", &[])
}

/// GET list: my leave applications with the state of their instance and the step each waits at.
async fn list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let (current, size) = crate::engine::params::page_of(&p)?;
    let types = crate::engine::crud::dict_labels(&st, LEAVE_TYPE).await?;
    let (res, s2) = (st.res.clone(), s.clone());
    let out = st
        .read(move |r| {
            let ldef = res.get("process_leave");
            let filters = vec![Filter::new("applyUserId", Op::Equal, json!(s2.user_id))];
            let q = Query { filters, sorts: vec![store::Sort { field: "id".into(), desc: true }], offset: (current - 1) * size, limit: size, ..Query::default() };
            let page = r.list(&ldef, &s2.tenant, &q)?;
            let idef = res.get("flow_instance");
            let approvers: Vec<u64> = page.records.iter().map(|l| id(l, "taskUser")).collect();
            let names = runtime::names(r, &res, &s2.tenant, approvers)?;
            let mut rows = Vec::new();
            for l in &page.records {
                let iid = id(l, "processInstanceId");
                let inst = r.get(&idef, &s2.tenant, iid)?.unwrap_or_default();
                let state = state_of(l, Some(&inst));
                // 撤回 is offered while it would be taken: running, and no step decided yet (`runtime::withdraw`).
                let tasks = if int(&inst, "running") == 1 { runtime::instance_tasks(r, &res, &s2.tenant, iid)? } else { Vec::new() };
                let withdrawable = runtime::withdrawable(&inst, &tasks);
                // Who the open step waits on (the list named only the approver chosen, also at 管理员审批): its
                // assignees, or that it waits to be claimed.
                let open: Vec<&Map<String, Value>> = tasks.iter().filter(|t| int(t, "status") == runtime::TASK_OPEN).collect();
                let who = runtime::names(r, &res, &s2.tenant, open.iter().map(|t| id(t, "assignee")).filter(|u| *u > 0))?;
                let waiting_on = if open.iter().any(|t| int(t, "claimable") == 1 && id(t, "assignee") == 0) {
                    "待签收".to_string()
                } else {
                    who.values().cloned().collect::<Vec<_>>().join("、")
                };
                rows.push(json!({
                    "id": id(l, "id").to_string(), "businessId": id(l, "id").to_string(), "processInstanceId": iid.to_string(),
                    "processDefinitionId": id(l, "processDefinitionId").to_string(),
                    "startTime": text(l, "startTime"), "endTime": text(l, "endTime"),
                    "days": flow::format_num(l.get("days").and_then(Value::as_i64).unwrap_or(0)), "reason": text(l, "reason"),
                    "leaveType": l.get("leaveType").cloned().unwrap_or(Value::Null), "leaveTypeName": types.get(&int(l, "leaveType").to_string()).cloned().unwrap_or_default(),
                    "taskUserName": names.get(&id(l, "taskUser")).cloned().unwrap_or_default(),
                    "applyTime": if inst.is_empty() { text(l, "createTime") } else { text(&inst, "startTime") }, "status": state, "statusName": runtime::status_name(state).0, "statusNameEn": runtime::status_name(state).1,
                    "taskName": if int(&inst, "running") == 1 { text(&inst, "currentNodes").to_string() } else { String::new() },
                    "endTimeOfProcess": text(&inst, "endTime"), "withdrawable": withdrawable, "waitingOn": waiting_on,
                }));
            }
            let pages = page.total.div_ceil(size.max(1));
            Ok(json!({"records": rows, "total": page.total, "size": size, "current": current, "pages": pages}))
        })
        .await?;
    Ok(ok(out))
}

fn field<'a>(b: &'a serde_json::Map<String, Value>, k: &str) -> ApiResult<&'a str> {
    match b.get(k) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim()),
        Some(Value::String(_)) | Some(Value::Null) | None => Err(ApiError::with(Kind::Missing, k)),
        Some(_) => Err(ApiError::with(Kind::WrongType, k)),
    }
}

/// The dictionary of leave types (事假, 病假, 年假, 调休, 婚假, 产假, 丧假).
pub const LEAVE_TYPE: &str = "leave_type";

/// The leave type of a body: absent (a client that has none) or a key of the dictionary.
async fn leave_type(st: &AppState, b: &serde_json::Map<String, Value>) -> ApiResult<Option<i64>> {
    let key = match b.get("leaveType") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(v)) if v.trim().is_empty() => return Ok(None),
        Some(Value::String(v)) => v.trim().parse::<i64>().map_err(|_| ApiError::with(Kind::WrongType, "leaveType"))?,
        Some(Value::Number(n)) => n.as_i64().ok_or_else(|| ApiError::with(Kind::WrongType, "leaveType"))?,
        Some(_) => return Err(ApiError::with(Kind::WrongType, "leaveType")),
    };
    if !crate::engine::crud::dict_labels(st, LEAVE_TYPE).await?.contains_key(&key.to_string()) {
        return Err(ApiError::rule("请假类型不存在", "No such leave type"));
    }
    Ok(Some(key))
}

/// The company's calendar from 参数管理 (`leave.holidays`, `leave.workdays`); a value that does not read is
/// refused naming the parameter and the piece.
async fn calendar(st: &AppState, tenant: &str) -> ApiResult<workdays::Calendar> {
    let (def, t) = (st.res.get("param"), tenant.to_string());
    let (h, w) = st
        .read(move |r| {
            let value = |k: &str| -> store::Result<Option<String>> {
                let Some(id) = r.find_unique(&def, &t, "paramKey", k)? else { return Ok(None) };
                Ok(r.get(&def, &t, id)?.and_then(|p| p.get("paramValue").and_then(Value::as_str).map(str::to_string)))
            };
            Ok((value(workdays::HOLIDAYS)?, value(workdays::WORKDAYS)?))
        })
        .await?;
    workdays::Calendar::of(h.as_deref(), w.as_deref()).map_err(|workdays::BadDate(piece)| {
        ApiError::rule(
            format!("参数 {} / {} 中的日期「{piece}」无法识别,请管理员在参数管理中改正(格式 2026-10-01 或 2026-10-01~2026-10-07)", workdays::HOLIDAYS, workdays::WORKDAYS),
            format!("The date \"{piece}\" in parameter {} / {} does not read: an administrator should correct it in Parameters (2026-10-01 or 2026-10-01~2026-10-07)", workdays::HOLIDAYS, workdays::WORKDAYS),
        )
    })
}

/// The days a leave counts, checked: the end after the start, at most a year, and some time to take off.
async fn count_days(st: &AppState, tenant: &str, from: &str, to: &str, kind: Option<i64>) -> ApiResult<i64> {
    Ok(count_days_in(&calendar(st, tenant).await?, from, to, kind)?.0)
}

/// `count_days` on a calendar already read; also the years from `from` to `to`.
fn count_days_in(cal: &workdays::Calendar, from: &str, to: &str, kind: Option<i64>) -> ApiResult<(i64, std::ops::RangeInclusive<i32>)> {
    let (a, z) = (runtime::local(from).ok_or_else(|| ApiError::with(Kind::BadFormat, "startTime"))?, runtime::local(to).ok_or_else(|| ApiError::with(Kind::BadFormat, "endTime"))?);
    if z <= a {
        return Err(ApiError::rule("结束时间必须晚于开始时间", "The end must be after the start"));
    }
    if (z - a).num_days() > 366 {
        return Err(ApiError::rule("一次请假不能超过一年", "One leave cannot be longer than a year"));
    }
    let days = workdays::leave_days(a, z, cal, kind == Some(workdays::MATERNITY));
    if days == 0 {
        return Err(ApiError::rule("所选时间内没有工作时间(周末、节假日或下班时间),无需请假", "The chosen time holds no working time (weekends, holidays or after hours): no leave is needed"));
    }
    Ok((days, chrono::Datelike::year(&a)..=chrono::Datelike::year(&z)))
}

/// GET days: what the form shows before it is sent.
async fn days_of(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let b: serde_json::Map<String, Value> = p.0.iter().map(|(k, v)| (k.to_string(), Value::String(v.to_string()))).collect();
    let kind = leave_type(&st, &b).await?;
    let cal = calendar(&st, &s.tenant).await?;
    let (days, years) = count_days_in(&cal, field(&b, "startTime")?, field(&b, "endTime")?, kind)?;
    // Years the leave touches for which 参数 leave.holidays names no date: counted by weekends alone, which the
    // form says (2027's 元旦 counted as a working day, silently).
    let unset: Vec<i32> = if kind == Some(workdays::MATERNITY) { Vec::new() } else { years.filter(|y| !cal.holidays.iter().any(|d| chrono::Datelike::year(d) == *y)).collect() };
    Ok(ok(json!({"days": flow::format_num(days), "workingDays": kind != Some(workdays::MATERNITY), "holidaysUnset": unset})))
}

async fn start(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let (from, to) = (field(&b, "startTime")?.to_string(), field(&b, "endTime")?.to_string());
    let reason = field(&b, "reason")?.to_string();
    if reason.chars().count() > 500 {
        return Err(ApiError::with(Kind::TooLong, "reason"));
    }
    let kind = leave_type(&st, &b).await?;
    // Days, exact to four places: working days in half days.
    let days = count_days(&st, &s.tenant, &from, &to, kind).await?;
    let task_user = match b.get("taskUser") {
        Some(Value::String(v)) if !v.trim().is_empty() => Some(crate::engine::crud::parse_id(Some(v))?),
        Some(Value::Number(n)) => Some(n.as_u64().ok_or_else(|| ApiError::with(Kind::BadId, "taskUser"))?),
        _ => None,
    };
    // Nobody approves his own leave: the form leaves the applicant out of 审批人员, and a request naming him is
    // refused — except for the company's administrator, who may decide any task anyway (he reassigns and deletes
    // them) and whose lone account is how a new install tries the flow.
    if task_user == Some(s.user_id) && !s.is_tenant_admin() {
        return Err(rule("审批人员不能是申请人本人", "The approver cannot be the applicant").into());
    }
    let pid = match b.get("processDefinitionId") {
        Some(Value::String(v)) if !v.trim().is_empty() => Some(crate::engine::crud::parse_id(Some(v))?),
        Some(Value::Number(n)) => n.as_u64(),
        _ => None,
    };
    let env = Env::new(&st, &s);
    let (leave, inst) = st
        .write(move |w| {
            let cx = env.cx();
            let pdef = cx.def("flow_process");
            let process = match pid {
                Some(p) => w.get(&pdef, cx.tenant, p)?.ok_or(StoreError::NotFound)?,
                None => latest_leave(w, &cx)?,
            };
            apply(w, &cx, &process, &Leave { task_user, kind, from: from.clone(), to: to.clone(), days, reason: reason.clone() })
        })
        .await?;
    let tasks = super::started_tasks(&st, &s, id(&inst, "id")).await?;
    Ok(ok(json!({"id": id(&leave, "id").to_string(), "businessId": id(&leave, "id").to_string(), "processInstanceId": id(&inst, "id").to_string(), "currentNodes": text(&inst, "currentNodes"), "tasks": tasks})))
}

/// Whether `task` is `me`'s 调整申请: open, assigned to `me`, on a leave instance (category 1 with its leave record)
/// that `me` applied for, at a step assigned to the starter that a rejection sends back to. Not `me`'s task or
/// leave: 403; a task no longer open, or another kind of step: 400. Decided on the records alone, so the request's
/// read (before its body is looked at) and its write (again, in the transaction) decide alike.
pub(super) fn adjust_step(task: &Map<String, Value>, inst: &Map<String, Value>, def: &flow::Definition, leave: Option<&Map<String, Value>>, me: u64) -> store::Result<()> {
    if id(task, "assignee") != me {
        return Err(crate::error::refuse("该任务不是您的待办", "This task is not yours"));
    }
    let mine = int(inst, "category") == 1 && text(inst, "businessTable") == "process_leave" && leave.is_some_and(|l| id(l, "applyUserId") == me);
    if !mine {
        return Err(crate::error::refuse("只有申请人可以调整自己的请假申请", "Only the applicant adjusts a leave application"));
    }
    if int(task, "status") != runtime::TASK_OPEN {
        return Err(rule("该任务已办理或已关闭", "The task has already been completed or closed"));
    }
    let node = text(task, "node");
    let sent_back_to = def.nodes.iter().any(|n| matches!(&n.kind, flow::NodeKind::Task(t) if t.reject_to.as_deref() == Some(node)));
    if !sent_back_to || !runtime::starter_step(def, node) {
        return Err(rule("该任务不是请假的调整申请,请用同意或驳回办理", "This step is not a leave's adjustment: agree or reject it"));
    }
    Ok(())
}

/// `adjust_step` of a stored task and instance: their process's definition and the leave read for it.
fn adjust_step_stored(r: &store::ReadCtx, res: &crate::decl::Resources, tenant: &str, task: &Map<String, Value>, inst: &Map<String, Value>, me: u64) -> store::Result<Option<Map<String, Value>>> {
    let process = r.get(&res.get("flow_process"), tenant, id(inst, "processId"))?.unwrap_or_default();
    let leave = if text(inst, "businessTable") == "process_leave" { r.get(&res.get("process_leave"), tenant, id(inst, "businessId"))? } else { None };
    adjust_step(task, inst, &runtime::definition_of(&process), leave.as_ref(), me)?;
    Ok(leave)
}

/// Whether `task` is `me`'s 调整申请 (`adjust_step` on the stored records): the handle page shows the leave as a
/// form to change only then.
pub(super) fn is_adjust_step(r: &store::ReadCtx, res: &crate::decl::Resources, tenant: &str, task: &Map<String, Value>, inst: &Map<String, Value>, me: u64) -> store::Result<bool> {
    Ok(text(inst, "businessTable") == "process_leave" && adjust_step_stored(r, res, tenant, task, inst, me).is_ok())
}

/// 调整申请 sent on: the applicant's own step that a rejection sent the leave back to, completed with the leave as
/// changed. Whose step it is is decided before the body is read and again in the transaction; the leave record,
/// the process's variables (`days` steers the gateway) and the completion commit together.
async fn resubmit(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let tid = super::body_id(&b, &["taskId"])?.ok_or_else(|| ApiError::with(Kind::Missing, "taskId"))?;
    let (res, t, me) = (st.res.clone(), s.tenant.clone(), s.user_id);
    let stored_kind = st
        .read(move |r| {
            let task = r.get(&res.get("flow_task"), &t, tid)?.ok_or(StoreError::NotFound)?;
            let inst = r.get(&res.get("flow_instance"), &t, id(&task, "instanceId"))?.ok_or(StoreError::NotFound)?;
            let leave = adjust_step_stored(r, &res, &t, &task, &inst, me)?;
            Ok(leave.and_then(|l| l.get("leaveType").and_then(Value::as_i64)))
        })
        .await?;
    let (from, to) = (field(&b, "startTime")?.to_string(), field(&b, "endTime")?.to_string());
    let reason = field(&b, "reason")?.to_string();
    if reason.chars().count() > 500 {
        return Err(ApiError::with(Kind::TooLong, "reason"));
    }
    let comment = match b.get("comment") {
        Some(Value::String(c)) if c.chars().count() <= 500 => c.trim().to_string(),
        Some(Value::String(_)) => return Err(ApiError::with(Kind::TooLong, "comment")),
        Some(Value::Null) | None => String::new(),
        Some(_) => return Err(ApiError::with(Kind::WrongType, "comment")),
    };
    // Without a type the leave keeps its own (and its days are counted by it: 产假 in calendar days).
    let kind = leave_type(&st, &b).await?.or(stored_kind);
    let days = count_days(&st, &s.tenant, &from, &to, kind).await?;
    let env = Env::new(&st, &s);
    let done = st
        .write(move |w| {
            let cx = env.cx();
            let task = w.get(&cx.def("flow_task"), cx.tenant, tid)?.ok_or(StoreError::NotFound)?;
            let l = runtime::load(w, &cx, id(&task, "instanceId"))?;
            let ldef = cx.def("process_leave");
            let leave = w.get(&ldef, cx.tenant, id(&l.inst, "businessId"))?;
            // Again here: two requests may pass the read before either commits; only the first finds the step open.
            adjust_step(&task, &l.inst, &l.def, leave.as_ref().filter(|_| text(&l.inst, "businessTable") == "process_leave"), cx.actor.user_id)?;
            let leave = leave.ok_or(StoreError::NotFound)?;
            not_away_already(w, &cx, &from, &to, id(&leave, "id"))?;
            w.update(&ldef, cx.tenant, id(&leave, "id"), obj(json!({"leaveType": kind, "startTime": from, "endTime": to, "days": days, "reason": reason})), cx.actor)?;
            let mut vars = serde_json::Map::new();
            if l.def.var("days").is_some_and(|d| d.ty == flow::VarType::Number) {
                vars.insert("days".into(), flow::Val::Num(days).to_json());
            }
            if l.def.var("reason").is_some_and(|d| d.ty == flow::VarType::Text) {
                vars.insert("reason".into(), json!(reason));
            }
            let comment = if comment.is_empty() { "重新提交".to_string() } else { comment.clone() };
            runtime::complete(w, &cx, tid, None, &runtime::Decision { pass: true, comment, vars })
        })
        .await?;
    Ok(ok(json!({"taskId": id(&done, "id").to_string(), "result": int(&done, "result"), "days": flow::format_num(days)})))
}

/// A leave application as the form sends it.
pub struct Leave {
    pub task_user: Option<u64>,
    /// The 请假类型 (dictionary `leave_type`).
    pub kind: Option<i64>,
    pub from: String,
    pub to: String,
    /// Exact days (ten-thousandths).
    pub days: i64,
    pub reason: String,
}

/// The latest deployed leave process of the tenant.
pub fn latest_leave(w: &store::WriteCtx, cx: &crate::engine::dialect::Ctx) -> store::Result<serde_json::Map<String, Value>> {
    let q = Query { filters: vec![Filter::new("processKey", Op::Equal, json!("leave")), Filter::new("latest", Op::Equal, json!(1))], limit: 1, ..Query::default() };
    w.list(&cx.def("flow_process"), cx.tenant, &q)?.records.into_iter().next().ok_or_else(|| rule("没有已部署的请假流程", "No leave process is deployed"))
}

/// A leave's state (`runtime::status_name`): its instance decides (a withdrawn application stays 0 on its
/// record); the record's own without one.
fn state_of(leave: &Map<String, Value>, inst: Option<&Map<String, Value>>) -> i64 {
    match inst.filter(|i| !i.is_empty()) {
        Some(i) => int(i, "status"),
        None => int(leave, "status"),
    }
}

/// One person is away once at a time: a leave of the applicant's own that is in approval (or given back to him)
/// or passed, and overlaps `from`–`to`, refuses another (`except`: the leave being changed). A rejected,
/// withdrawn or deleted one does not count.
fn not_away_already(w: &store::WriteCtx, cx: &crate::engine::dialect::Ctx, from: &str, to: &str, except: u64) -> store::Result<()> {
    let local = crate::engine::demo::local;
    let (Some(a), Some(z)) = (local(from), local(to)) else { return Ok(()) };
    let q = Query { filters: vec![Filter::new("applyUserId", Op::Equal, json!(cx.actor.user_id))], limit: 10_000, ..Query::default() };
    for l in w.list(&cx.def("process_leave"), cx.tenant, &q)?.records {
        let (Some(b), Some(e)) = (local(text(&l, "startTime")), local(text(&l, "endTime"))) else { continue };
        if id(&l, "id") == except || !(a < e && b < z) {
            continue;
        }
        let state = state_of(&l, w.get(&cx.def("flow_instance"), cx.tenant, id(&l, "processInstanceId"))?.as_ref());
        if state == 0 || state == 1 {
            let (was, zh, en) = (format!("{} 至 {}", text(&l, "startTime"), text(&l, "endTime")), if state == 0 { "审批中" } else { "已通过" }, if state == 0 { "in approval" } else { "passed" });
            return Err(rule(
                format!("与您{zh}的请假({was})时间重叠;同一时间只能请一次假,请调整日期,或先撤回那一次(已退回给您的,在待办中调整或放弃)"),
                format!("It overlaps your leave {} – {} ({en}); change the dates, or withdraw that one first (one given back to you: change or give it up in your to-do list)", text(&l, "startTime"), text(&l, "endTime")),
            ));
        }
    }
    Ok(())
}

/// Writes the leave record and starts its instance, in the open transaction.
pub fn apply(w: &mut store::WriteCtx, cx: &crate::engine::dialect::Ctx, process: &serde_json::Map<String, Value>, l: &Leave) -> store::Result<(serde_json::Map<String, Value>, serde_json::Map<String, Value>)> {
    if let Some(u) = l.task_user {
        let who = w.get(&cx.def("user"), cx.tenant, u)?.ok_or_else(|| rule("审批人员不存在", "The approver does not exist"))?;
        // A disabled account would not get the task (the leader would), while the leave named it.
        if !runtime::live_user(&who) {
            return Err(rule(format!("审批人员 {} 的账号已停用,请另选", text(&who, "realName")), format!("The approver {}'s account is disabled; choose another", text(&who, "realName"))));
        }
    }
    // A leave is decided on a leave process (流程分类 请假流程): on another, its instance would not be a leave's
    // (its tasks open the generic form, and a leave given back could never be adjusted and sent again).
    if int(process, "category") != 1 {
        return Err(rule(format!("流程「{}」不是请假流程,请假请选择请假流程", text(process, "name")), format!("Process \"{}\" is not a leave process; choose a leave process", text(process, "name"))));
    }
    let def = runtime::definition_of(process);
    // 审批人员 is optional on the form: without one, the applicant's department leader decides (the nearest
    // department up the tree whose leader is someone else). Without any, say what to do instead of the engine's
    // 环节「部门领导审批」找不到办理人.
    let needs_user = def.var("taskUser").is_some_and(|d| d.ty == flow::VarType::User);
    let task_user = match l.task_user {
        Some(u) => Some(u),
        None if needs_user => match dept_leader(w, cx)? {
            (Some(u), _) => Some(u),
            // A department's leader applying, with nobody leading above him: he is told that, not that his
            // department has no leader.
            (None, true) => return Err(rule(
                "请选择审批人员:您是本部门负责人,上级部门没有设置负责人",
                "Choose an approver: you lead your department and no department above it has a leader set",
            )),
            (None, false) => return Err(rule("请选择审批人员:您所在的部门(及上级部门)没有设置负责人", "Choose an approver: your department (and those above it) has no leader set")),
        },
        None => None,
    };
    let l = &Leave { task_user, kind: l.kind, from: l.from.clone(), to: l.to.clone(), days: l.days, reason: l.reason.clone() };
    not_away_already(w, cx, &l.from, &l.to, 0)?;
    let ldef = cx.def("process_leave");
    let leave = w.insert(&ldef, cx.tenant, obj(json!({
        "processDefinitionId": id(process, "id"), "applyUserId": cx.actor.user_id, "taskUser": l.task_user,
        "startTime": l.from, "endTime": l.to, "days": l.days, "reason": l.reason, "status": 0, "leaveType": l.kind,
    })), cx.actor)?;
    // The variables the definition declares, from the form.
    let mut vars = flow::Vars::new();
    if def.var("days").is_some_and(|d| d.ty == flow::VarType::Number) {
        vars.insert("days".into(), flow::Val::Num(l.days));
    }
    if let Some(u) = l.task_user
        && def.var("taskUser").is_some_and(|d| d.ty == flow::VarType::User) {
        vars.insert("taskUser".into(), flow::Val::User(u));
    }
    if def.var("reason").is_some_and(|d| d.ty == flow::VarType::Text) {
        vars.insert("reason".into(), flow::Val::Text(l.reason.clone()));
    }
    let inst = runtime::start(w, cx, process, vars, Some(Business { table: "process_leave", id: id(&leave, "id") }))?;
    let leave = w.update(&ldef, cx.tenant, id(&leave, "id"), obj(json!({"processInstanceId": id(&inst, "id"), "status": inst.get("status").and_then(Value::as_i64).unwrap_or(0).min(2)})), cx.actor)?;
    Ok((leave, inst))
}

async fn detail(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let bid = id_param(&p, &["businessId", "id"])?;
    let types = crate::engine::crud::dict_labels(&st, LEAVE_TYPE).await?;
    let res = st.res.clone();
    let s2 = s.clone();
    let out = st
        .read(move |r| {
            let leave = r.get(&res.get("process_leave"), &s2.tenant, bid)?.ok_or(StoreError::NotFound)?;
            let iid = id(&leave, "processInstanceId");
            let inst = super::visible_instance(r, &res, &s2, iid)?;
            let names = runtime::names(r, &res, &s2.tenant, [id(&leave, "applyUserId"), id(&leave, "taskUser")])?;
            let applicant = names.get(&id(&leave, "applyUserId")).cloned().unwrap_or_default();
            let status = int(&leave, "status");
            // Named as 请假流程 names it (a withdrawn leave read 未通过 here, 已撤回 there).
            let shown = state_of(&leave, Some(&inst));
            Ok(json!({
                "id": bid.to_string(), "businessId": bid.to_string(),
                "processInstanceId": iid.to_string(), "processDefinitionId": id(&leave, "processDefinitionId").to_string(),
                "startTime": text(&leave, "startTime"), "endTime": text(&leave, "endTime"),
                "days": flow::format_num(leave.get("days").and_then(Value::as_i64).unwrap_or(0)),
                "reason": text(&leave, "reason"),
                "leaveType": leave.get("leaveType").cloned().unwrap_or(Value::Null), "leaveTypeName": types.get(&int(&leave, "leaveType").to_string()).cloned().unwrap_or_default(),
                "taskUser": id(&leave, "taskUser").to_string(), "taskUserName": names.get(&id(&leave, "taskUser")).cloned().unwrap_or_default(),
                "applyUser": id(&leave, "applyUserId").to_string(), "applyUserName": applicant,
                "applyTime": text(&inst, "startTime"),
                "status": status, "statusName": runtime::status_name(shown).0, "statusNameEn": runtime::status_name(shown).1,
                "flow": {"assigneeName": applicant, "processInstanceId": iid.to_string(), "currentNodes": text(&inst, "currentNodes"), "processIsFinished": int(&inst, "running") == 0, "status": int(&inst, "status")},
            }))
        })
        .await?;
    Ok(ok(out))
}

/// The leader of the applicant's department, or of the nearest department above it with a leader who is not the
/// applicant.
/// Also whether the applicant leads one of the departments passed on the way.
fn dept_leader(w: &store::WriteCtx, cx: &crate::engine::dialect::Ctx) -> store::Result<(Option<u64>, bool)> {
    let me = cx.actor.user_id;
    let mut leads = false;
    let Some(user) = w.get(&cx.def("user"), cx.tenant, me)? else { return Ok((None, false)) };
    let first = user.get("deptId").map(|v| match v {
        Value::String(s) => s.split(',').next().unwrap_or("").trim().parse::<u64>().unwrap_or(0),
        other => other.as_u64().unwrap_or(0),
    });
    let ddef = cx.def("dept");
    let mut at = first.unwrap_or(0);
    for _ in 0..32 {
        if at == 0 {
            break;
        }
        let Some(d) = w.get(&ddef, cx.tenant, at)? else { break };
        let leader = id(&d, "leaderId");
        leads |= leader == me;
        if leader != 0 && leader != me && w.get(&cx.def("user"), cx.tenant, leader)?.is_some() {
            return Ok((Some(leader), leads));
        }
        at = id(&d, "parentId");
    }
    Ok((None, leads))
}
