//! 流程 (`/api/blade-flow/...`) and the processes that run on it: our own small engine (the `flow` crate) behind
//! BladeX's flow and work screens.
//!
//! - `models`: models (editable drafts, checked when saved), deployment into immutable versions (running
//!   instances stay on theirs), BPMN upload, suspend/activate, deletion of a deployment;
//! - `runtime`: every engine action as one write transaction (instance, tasks, candidates, history, the business
//!   record);
//! - this file: the work lists (start, claim, todo, send, done), claim and complete, withdraw, follow (running
//!   instances, delete, reassign), history and diagram;
//! - `leave`: the leave process (`/api/blade-desk/process/leave/...`).
//!
//! Authorization (security rule 12): only a candidate claims, only the assignee completes, only the starter
//! withdraws — each checked inside the write, answered 403; a task, instance or business record of another
//! tenant does not exist (404); history, diagram and leave details are shown to the starter, the people who
//! worked or work on the instance, and holders of `flow_follow`. Variables must be declared by the definition
//! with their type (400 naming the variable); `pass` comes only from the decision.
pub mod approval;
pub mod demo;
mod leave;
mod workdays;
pub mod models;
pub mod runtime;

use std::collections::HashMap;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, Sort};

use crate::auth::session::Session;
use crate::engine::dialect::Env;
use crate::engine::params::{id_param, page_json, page_of};
use crate::engine::{Api, Guard, crud};
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, JsonObject, ok};
use crate::state::AppState;
use runtime::{id, int, text};

pub const F: &str = "/api/blade-flow";

/// The codes of the work and flow screens: reading an instance's history, diagram or business form needs one of
/// them (and then being its starter, a participant or a `flow_follow` holder).
pub const WORK: &[&str] = &["work_start", "work_claim", "work_todo", "work_send", "work_done", "flow_follow", "flow_manager", "flow_model"];

pub use models::seed_tenant;

pub fn routes(api: Api) -> Api {
    let api = models::routes(api);
    let api = leave::routes(api);
    let api = approval::routes(api);
    api.get(format!("{F}/work/start-list"), Guard::code("work_start"), start_list)
        .doc("发起事务 · the deployed, active processes the user may start (query: category, name, current, size); 施工审批 (measure_model, crew_apply) are not listed: they start on their 施工单", &[])
        .get(format!("{F}/work/claim-list"), Guard::code("work_claim"), claim_list)
        .doc("待签事务 · tasks where the user is a candidate and nobody has claimed (query: category, processDefinitionName, current, size)", &[])
        .get(format!("{F}/work/todo-list"), Guard::code("work_todo"), todo_list)
        .doc("待办事务 · open tasks assigned to the user, newest first (taskId: only that task, if it is still the user's to do)", &[])
        .get(format!("{F}/work/send-list"), Guard::code("work_send"), send_list)
        .doc("已发事务 · instances the user started, newest first", &[])
        .get(format!("{F}/work/done-list"), Guard::code("work_done"), done_list)
        .doc("办结事务 · tasks the user completed, newest first (taskId: only that task)", &[])
        .post(format!("{F}/work/claim-task"), Guard::code("work_claim_sign"), claim_task)
        .doc("签收 · a candidate claims a task (taskId); anyone else: 403", &[])
        .post(format!("{F}/work/complete-task"), Guard::code("work_todo_handle"), complete_task)
        .doc("办理 · the assignee completes a task: body {taskId, processInstanceId, flag: 'ok' to agree (absent: reject) or pass: true|false, comment, variables: {declared name: typed value}}; the same decision repeated by its user answers the stored result; another decision on a task already decided is refused (400)", &[])
        .post(format!("{F}/work/start-process"), Guard::code("work_start_flow"), start_process)
        .doc("发起 · starts an instance of a deployed process without a business form: body {processDefinitionId, variables}; a 施工审批 process is refused (400: started from its 施工单, approval/event/start)", &[])
        .post(format!("{F}/work/withdraw"), Guard::code("work_send"), withdraw)
        .doc("撤回 · the starter takes a running instance back while nobody has decided a step (processInstanceId)", &[])
        .get(format!("{F}/work/counts"), Guard::any(WORK), counts)
        .doc("工作台 · the signed-in user's approval counts (todo, claim, done, send) and up to five urgent tasks (due soonest, then oldest; overdue: past due now); processes: how many are deployed in the tenant", &[])
        .get(format!("{F}/work/users"), Guard::any(&["work_start_flow", "work_todo_handle", "flow_follow_delete"]), users)
        .doc("人员选择 · enabled users of the tenant who can handle a task (work_todo_handle, no technical workers), to name as approver or to reassign to: id, name, account, departments (query: name, exceptSelf=1; up to 200)", &[])
        .get(format!("{F}/follow/list"), Guard::code("flow_follow"), follow_list)
        .doc("流程跟踪 · running instances of the tenant (query: processDefinitionKey, current, size)", &[])
        .post(format!("{F}/follow/delete-process-instance"), Guard::code("flow_follow_delete"), delete_instance)
        .doc("删除流程实例 · ends a running instance as deleted (processInstanceId, deleteReason required)", &[])
        .post(format!("{F}/follow/reassign"), Guard::code("flow_follow_delete"), reassign)
        .doc("转办 · an administrator hands an open task to another user (taskId, userId, reason required)", &[])
        .get(format!("{F}/process/history-flow-list"), Guard::any(WORK), history_list)
        .doc("流程历史 · every step of an instance: node, who, when, result, comment, duration (processInstanceId); the starter, participants and flow_follow holders", &[])
        .get(format!("{F}/process/diagram"), Guard::any(WORK), diagram)
        .doc("流程图 · the definition with the path taken and the current steps (processInstanceId), or a deployed definition alone (processDefinitionId)", &[])
}

// ---------------------------------------------------------------------------------------------------------
// Rows

/// A task in BladeX's `BladeFlow` shape.
fn task_row(t: &Map<String, Value>, inst: Option<&Map<String, Value>>, names: &std::collections::BTreeMap<u64, String>, cats: &std::collections::HashMap<String, String>) -> Map<String, Value> {
    let name = |u: u64| names.get(&u).cloned().unwrap_or_default();
    let cat = int(t, "category");
    let s = |v: &str| json!(v);
    let mut m = Map::new();
    m.insert("id".into(), s(&id(t, "id").to_string()));
    m.insert("taskId".into(), s(&id(t, "id").to_string()));
    m.insert("taskName".into(), s(text(t, "nodeName")));
    m.insert("taskDefinitionKey".into(), s(text(t, "node")));
    m.insert("processInstanceId".into(), s(&id(t, "instanceId").to_string()));
    m.insert("processDefinitionId".into(), s(&id(t, "processId").to_string()));
    m.insert("processDefinitionName".into(), s(text(t, "processName")));
    m.insert("processDefinitionVersion".into(), json!(int(t, "version")));
    m.insert("category".into(), json!(cat.to_string()));
    m.insert("categoryName".into(), json!(cats.get(&cat.to_string()).cloned().unwrap_or_default()));
    m.insert("businessTable".into(), s(text(t, "businessTable")));
    m.insert("businessId".into(), s(&id(t, "businessId").to_string()));
    m.insert("createTime".into(), s(text(t, "arriveTime")));
    m.insert("claimTime".into(), s(text(t, "claimTime")));
    m.insert("endTime".into(), s(text(t, "endTime")));
    m.insert("dueTime".into(), s(text(t, "dueTime")));
    m.insert("assignee".into(), s(&id(t, "assignee").to_string()));
    m.insert("assigneeName".into(), s(&name(id(t, "assignee"))));
    m.insert("startUser".into(), s(&id(t, "starterId").to_string()));
    m.insert("startUserName".into(), s(&name(id(t, "starterId"))));
    m.insert("status".into(), json!(int(t, "status")));
    m.insert("result".into(), json!(int(t, "result")));
    m.insert("comment".into(), s(text(t, "comment")));
    if let Some(i) = inst {
        m.insert("processIsFinished".into(), json!(int(i, "running") == 0));
        m.insert("processStatus".into(), json!(int(i, "status")));
        m.insert("processStatusName".into(), json!(runtime::status_name(int(i, "status")).0));
        m.insert("processStatusNameEn".into(), json!(runtime::status_name(int(i, "status")).1));
        m.insert("currentNodes".into(), s(text(i, "currentNodes")));
    }
    m
}

fn instance_row(i: &Map<String, Value>, names: &std::collections::BTreeMap<u64, String>, cats: &std::collections::HashMap<String, String>) -> Map<String, Value> {
    let st = int(i, "status");
    let cat = int(i, "category");
    let state: flow::State = i.get("state").cloned().and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default();
    let nodes: Vec<String> = state.active.iter().map(|a| a.node.clone()).collect();
    let starter = id(i, "starterId");
    let mut m = Map::new();
    for (k, v) in [
        ("id", json!(id(i, "id").to_string())),
        ("processInstanceId", json!(id(i, "id").to_string())),
        ("processDefinitionId", json!(id(i, "processId").to_string())),
        ("processDefinitionKey", json!(text(i, "processKey"))),
        ("processDefinitionName", json!(text(i, "processName"))),
        ("processDefinitionVersion", json!(int(i, "version"))),
        ("category", json!(cat.to_string())),
        ("categoryName", json!(cats.get(&cat.to_string()).cloned().unwrap_or_default())),
        ("businessTable", json!(text(i, "businessTable"))),
        ("businessId", json!(id(i, "businessId").to_string())),
        ("startUser", json!(starter.to_string())),
        ("startUserName", json!(names.get(&starter).cloned().unwrap_or_default())),
        ("startTime", json!(text(i, "startTime"))),
        ("createTime", json!(text(i, "startTime"))),
        ("endTime", json!(text(i, "endTime"))),
        ("taskDefinitionKey", json!(nodes.join(","))),
        ("activityId", json!(nodes.join(","))),
        ("taskName", json!(text(i, "currentNodes"))),
        ("executionId", json!(id(i, "id").to_string())),
        ("suspensionState", json!(1)),
        ("status", json!(st)),
        ("statusName", json!(runtime::status_name(st).0)),
        ("statusNameEn", json!(runtime::status_name(st).1)),
        ("processIsFinished", json!(int(i, "running") == 0)),
        ("deleteReason", json!(text(i, "deleteReason"))),
    ] {
        m.insert(k.into(), v);
    }
    m
}

/// The `flow` dictionary's labels by key (流程分类).
async fn categories(st: &AppState) -> ApiResult<std::collections::HashMap<String, String>> {
    Ok((*crud::dict_labels(st, "flow").await?).clone())
}

/// `category` as Saber sends it (`flow_1`) or plain (`1`).
fn category_param(p: &AnyParams) -> ApiResult<Option<i64>> {
    match p.get("category").map(|c| c.trim().trim_start_matches("flow_")).filter(|c| !c.is_empty() && *c != "null") {
        Some(c) => c.parse().map(Some).map_err(|_| ApiError::with(Kind::BadFormat, "category")),
        None => Ok(None),
    }
}

fn name_filter(p: &AnyParams) -> Option<String> {
    p.get("processDefinitionName").or_else(|| p.get("name")).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

/// Tasks of a work list: the rows, their instances and names.
async fn task_page(st: &AppState, s: &Session, p: &AnyParams, filters: Vec<Filter>, by_candidate: bool) -> ApiResult<Value> {
    let (current, size) = page_of(p)?;
    let (cat, name) = (category_param(p)?, name_filter(p));
    let only = match p.get("taskId").map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => Some(crud::parse_id(Some(v))?),
        None => None,
    };
    let (res, tenant, me) = (st.res.clone(), s.tenant.clone(), s.user_id);
    let rows = st
        .read(move |r| {
            let tdef = res.get("flow_task");
            // The user's open tasks (or candidate rows) are few: read them all, filter, page in memory. Done
            // tasks can be many: paged by the index, newest first.
            let mut tasks: Vec<Map<String, Value>> = Vec::new();
            let mut total = 0;
            if let Some(x) = only {
                // One task asked for (is it still mine to do, did I do it): read by its id and checked as each
                // list would, never found by walking the lists.
                let mine = |t: &Map<String, Value>| -> store::Result<bool> {
                    Ok(if by_candidate {
                        int(t, "status") == runtime::TASK_OPEN && int(t, "claimable") == 1 && {
                            // The task's candidates are a few rows (its index range), checked for me.
                            let q = Query { filters: vec![Filter::new("taskId", Op::Equal, json!(x))], limit: 1_000, ..Query::default() };
                            r.list(&res.get("flow_candidate"), &tenant, &q)?.records.iter().any(|c| id(c, "userId") == me)
                        }
                    } else {
                        filters.iter().all(|f| f.op == Op::Equal && t.get(&f.field) == Some(&f.value))
                    })
                };
                if let Some(t) = r.get(&tdef, &tenant, x)?
                    && mine(&t)?
                    && cat.is_none_or(|c| int(&t, "category") == c) && name.as_deref().is_none_or(|n| text(&t, "processName").contains(n)) {
                    tasks.push(t);
                }
                total = tasks.len() as u64;
            } else if by_candidate {
                let q = Query { filters: vec![Filter::new("userId", Op::Equal, json!(me))], limit: 5_000, sorts: vec![Sort { field: "id".into(), desc: true }], ..Query::default() };
                for c in r.list(&res.get("flow_candidate"), &tenant, &q)?.records {
                    if let Some(t) = r.get(&tdef, &tenant, id(&c, "taskId"))?
                        && int(&t, "status") == runtime::TASK_OPEN {
                        tasks.push(t);
                    }
                }
            } else if filters.iter().any(|f| f.field == "todoUser") {
                let q = Query { filters: filters.clone(), limit: 5_000, sorts: vec![Sort { field: "id".into(), desc: true }], ..Query::default() };
                tasks = r.list(&tdef, &tenant, &q)?.records;
            }
            if only.is_some() {
                // Read and checked above.
            } else if by_candidate || filters.iter().any(|f| f.field == "todoUser") {
                tasks.retain(|t| cat.is_none_or(|c| int(t, "category") == c) && name.as_deref().is_none_or(|n| text(t, "processName").contains(n)));
                total = tasks.len() as u64;
                tasks = tasks.into_iter().skip(((current - 1) * size) as usize).take(size as usize).collect();
            } else {
                let mut f = filters.clone();
                if let Some(c) = cat {
                    f.push(Filter::new("category", Op::Equal, json!(c)));
                }
                let q = Query { filters: f, offset: (current - 1) * size, limit: size, sorts: vec![Sort { field: "id".into(), desc: true }], ..Query::default() };
                let page = r.list(&tdef, &tenant, &q)?;
                total = page.total;
                tasks = page.records;
            }
            let idef = res.get("flow_instance");
            let mut out = Vec::new();
            let mut users = Vec::new();
            for t in &tasks {
                users.extend([id(t, "assignee"), id(t, "starterId")]);
            }
            let names = runtime::names(r, &res, &tenant, users)?;
            let mut defs = HashMap::new();
            for t in tasks {
                let inst = r.get(&idef, &tenant, id(&t, "instanceId"))?;
                let own = match &inst {
                    Some(i) => own_step(r, &res, &tenant, i, text(&t, "node"), &mut defs)?,
                    None => false,
                };
                // One task asked for by its page (处理): whether it is the applicant's 调整申请 of a leave, which
                // the page shows as his leave to change instead of an approver's 同意/驳回.
                let adjust = match (&only, &inst) {
                    (Some(_), Some(i)) => leave::is_adjust_step(r, &res, &tenant, &t, i, me)?,
                    _ => false,
                };
                out.push((t, inst, adjust, own));
            }
            Ok((out, names, total))
        })
        .await?;
    let (rows, names, total) = rows;
    let cats = categories(st).await?;
    let records: Vec<Map<String, Value>> = rows
        .iter()
        .map(|(t, i, adjust, own)| {
            let mut row = task_row(t, i.as_ref(), &names, &cats);
            if only.is_some() {
                row.insert("adjust".into(), json!(adjust));
            }
            // The applicant's own step (调整申请): its result reads 重新提交 / 放弃申请, not 同意 / 驳回.
            row.insert("ownStep".into(), json!(own));
            row
        })
        .collect();
    Ok(page_json(records, total, current, size))
}

async fn todo_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let f = vec![Filter::new("todoUser", Op::Equal, json!(s.user_id))];
    Ok(ok(task_page(&st, &s, &p, f, false).await?))
}

async fn claim_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    Ok(ok(task_page(&st, &s, &p, vec![], true).await?))
}

async fn done_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let f = vec![Filter::new("doneUser", Op::Equal, json!(s.user_id))];
    Ok(ok(task_page(&st, &s, &p, f, false).await?))
}

/// Instances matching `filters`, newest first.
/// A page of instances; `mine`: the starter's own (已发事务), whose rows say whether 撤回 would be taken.
async fn instance_page(st: &AppState, s: &Session, p: &AnyParams, mut filters: Vec<Filter>, mine: bool) -> ApiResult<Value> {
    let (current, size) = page_of(p)?;
    if let Some(c) = category_param(p)? {
        filters.push(Filter::new("category", Op::Equal, json!(c)));
    }
    if let Some(k) = p.get("processDefinitionKey").map(str::trim).filter(|k| !k.is_empty()) {
        filters.push(Filter::new("processKey", Op::Equal, json!(k)));
    }
    let (res, tenant) = (st.res.clone(), s.tenant.clone());
    let (recs, total, names) = st
        .read(move |r| {
            let q = Query { filters, offset: (current - 1) * size, limit: size, sorts: vec![Sort { field: "id".into(), desc: true }], ..Query::default() };
            let page = r.list(&res.get("flow_instance"), &tenant, &q)?;
            let names = runtime::names(r, &res, &tenant, page.records.iter().map(|i| id(i, "starterId")))?;
            // 撤回 is offered while it would be taken: running, no step decided yet (`runtime::withdraw`); 已发事务
            // offered it at every running instance and the server then said 已有人审批.
            let mut withdrawable = std::collections::HashSet::new();
            for i in page.records.iter().filter(|i| mine && int(i, "running") == 1) {
                if runtime::withdrawable(i, &runtime::instance_tasks(r, &res, &tenant, id(i, "id"))?) {
                    withdrawable.insert(id(i, "id"));
                }
            }
            Ok((page.records, page.total, (names, withdrawable)))
        })
        .await?;
    let (names, withdrawable) = names;
    let cats = categories(st).await?;
    let rows = recs
        .iter()
        .map(|i| {
            let mut row = instance_row(i, &names, &cats);
            row.insert("withdrawable".into(), json!(withdrawable.contains(&id(i, "id"))));
            row
        })
        .collect();
    Ok(page_json(rows, total, current, size))
}

async fn send_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let f = vec![Filter::new("starterId", Op::Equal, json!(s.user_id))];
    Ok(ok(instance_page(&st, &s, &p, f, true).await?))
}

async fn follow_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let f = vec![Filter::new("running", Op::Equal, json!(1))];
    Ok(ok(instance_page(&st, &s, &p, f, false).await?))
}

async fn start_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let mut f = vec![Filter::new("latest", Op::Equal, json!(1)), Filter::new("suspensionState", Op::Equal, json!(1))];
    // 施工审批 (量房模型审批, 人工组织申请) are started on their 施工单's 审批 tab, bound to it: not offered here.
    f.extend(approval::TYPES.iter().map(|t| Filter::new("processKey", Op::NotEqual, json!(t.1))));
    if let Some(c) = category_param(&p)? {
        f.push(Filter::new("category", Op::Equal, json!(c)));
    }
    Ok(ok(models::process_page(&st, &s, &p, f).await?))
}

/// The desk's approval counts and urgent tasks of the signed-in user: every count one index read.
async fn counts(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    let (res, tenant, me) = (st.res.clone(), s.tenant.clone(), s.user_id);
    // Urgent work orders assigned to the user join the desk's list when the user may open them.
    let orders = s.require("worklist_order").is_ok();
    let now: String = st.settings.zone.format(store::now_millis()).chars().take(19).collect();
    let today: String = now.chars().take(10).collect();
    let out = st
        .read(move |r| {
            let total = |name: &str, f: Filter| -> store::Result<u64> { Ok(r.list(&res.get(name), &tenant, &Query { filters: vec![f], limit: 1, ..Query::default() })?.total) };
            let processes = total("flow_process", Filter::new("latest", Op::Equal, json!(1)))?;
            let todo = total("flow_task", Filter::new("todoUser", Op::Equal, json!(me)))?;
            let claim = total("flow_candidate", Filter::new("userId", Op::Equal, json!(me)))?;
            let done = total("flow_task", Filter::new("doneUser", Op::Equal, json!(me)))?;
            let send = total("flow_instance", Filter::new("starterId", Op::Equal, json!(me)))?;
            let q = Query { filters: vec![Filter::new("todoUser", Op::Equal, json!(me))], limit: 5_000, ..Query::default() };
            let mut open = r.list(&res.get("flow_task"), &tenant, &q)?.records;
            // Due soonest first, then the oldest without a due time.
            open.sort_by(|a, b| {
                let (da, db) = (text(a, "dueTime"), text(b, "dueTime"));
                (da.is_empty(), da, text(a, "arriveTime")).cmp(&(db.is_empty(), db, text(b, "arriveTime")))
            });
            open.truncate(5);
            let names = runtime::names(r, &res, &tenant, open.iter().map(|t| id(t, "starterId")))?;
            let urgent: Vec<Value> = open
                .iter()
                .map(|t| {
                    json!({"taskId": id(t, "id").to_string(), "taskName": text(t, "nodeName"), "processDefinitionName": text(t, "processName"),
                        "processInstanceId": id(t, "instanceId").to_string(), "businessId": id(t, "businessId").to_string(), "category": int(t, "category").to_string(),
                        "startUserName": names.get(&id(t, "starterId")).cloned().unwrap_or_default(), "dueTime": text(t, "dueTime"), "arriveTime": text(t, "arriveTime"),
                        "overdue": !text(t, "dueTime").is_empty() && text(t, "dueTime") < now.as_str()})
                })
                .collect();
            let orders = if orders { crate::api::worklist::urgent(r, &res, &tenant, me, &today)? } else { Vec::new() };
            Ok(json!({"processes": processes, "todo": todo, "claim": claim, "done": done, "send": send, "urgent": urgent, "orders": orders}))
        })
        .await?;
    Ok(ok(out))
}

/// Users to choose as an approver: enabled accounts that can handle a task (their roles grant
/// `work_todo_handle`; technical workers cannot sign in), with their departments; no contact data, no roles.
/// `name` narrows by name or account; `exceptSelf=1` leaves the caller out (a leave's approver).
async fn users(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let name = p.get("name").map(str::trim).unwrap_or("").to_string();
    let except_self = p.get("exceptSelf").is_some_and(|v| v == "1" || v == "true");
    let (res, tenant, me) = (st.res.clone(), s.tenant.clone(), s.user_id);
    let st2 = st.clone();
    let out = st
        .read(move |r| {
            let depts: std::collections::HashMap<u64, String> = r.all(&res.get("dept"), &tenant)?.iter().map(|d| (id(d, "id"), text(d, "deptName").to_string())).collect();
            let mut out = Vec::new();
            for u in r.all(&res.get("user"), &tenant)? {
                if u.get("status").and_then(Value::as_i64).is_some_and(|x| x != 1) || int(&u, "userType") == 3 || (except_self && id(&u, "id") == me) {
                    continue;
                }
                let (real, account) = (text(&u, "realName"), text(&u, "account"));
                if !name.is_empty() && !real.contains(name.as_str()) && !account.contains(name.as_str()) {
                    continue;
                }
                let roles = crate::auth::session::id_list(u.get("roleId"));
                let perms = st2.perms.get_or_compute(r, &res, &tenant, &roles)?;
                if perms.worker || !perms.codes.contains("work_todo_handle") {
                    continue;
                }
                let dn: Vec<String> = crate::auth::session::id_list(u.get("deptId")).iter().filter_map(|d| depts.get(d).cloned()).collect();
                out.push(json!({"id": id(&u, "id").to_string(), "realName": if real.is_empty() { account } else { real }, "account": account, "deptName": dn.join(",")}));
                if out.len() >= 200 {
                    break;
                }
            }
            Ok(out)
        })
        .await?;
    Ok(ok(out))
}

// ---------------------------------------------------------------------------------------------------------
// Actions

pub(crate) fn body_id(b: &Map<String, Value>, names: &[&str]) -> ApiResult<Option<u64>> {
    for n in names {
        match b.get(*n) {
            Some(Value::String(s)) if !s.trim().is_empty() => return crud::parse_id(Some(s)).map(Some),
            Some(Value::Number(x)) => return x.as_u64().filter(|v| *v > 0).map(Some).ok_or_else(|| ApiError::with(Kind::BadId, n.to_string())),
            _ => {}
        }
    }
    Ok(None)
}

async fn claim_task(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let tid = id_param(&p, &["taskId"])?;
    let env = Env::new(&st, &s);
    let t = st.write(move |w| runtime::claim(w, &env.cx(), tid)).await?;
    Ok(ok(json!({"taskId": id(&t, "id").to_string(), "assignee": id(&t, "assignee").to_string()})))
}

async fn complete_task(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let tid = body_id(&b, &["taskId"])?.ok_or_else(|| ApiError::with(Kind::Missing, "taskId"))?;
    let inst = body_id(&b, &["processInstanceId"])?;
    // Saber: flag 'ok' agrees, no flag disagrees (its "a rejection whose comment is 同意 passes" quirk is not
    // kept). Our UI: pass true/false.
    let pass = match (b.get("pass"), b.get("flag")) {
        (Some(Value::Bool(p)), _) => *p,
        (Some(_), _) => return Err(ApiError::with(Kind::WrongType, "pass")),
        (None, Some(Value::String(f))) => f == "ok",
        (None, _) => false,
    };
    let comment = match b.get("comment") {
        Some(Value::String(c)) if c.chars().count() <= 500 => c.clone(),
        Some(Value::String(_)) => return Err(ApiError::with(Kind::TooLong, "comment")),
        Some(Value::Null) | None => String::new(),
        Some(_) => return Err(ApiError::with(Kind::WrongType, "comment")),
    };
    let vars = match b.get("variables") {
        Some(Value::Object(m)) => m.clone(),
        Some(Value::Null) | None => Map::new(),
        Some(_) => return Err(ApiError::with(Kind::WrongType, "variables")),
    };
    let d = runtime::Decision { pass, comment, vars };
    let env = Env::new(&st, &s);
    let t = st
        .write(move |w| {
            let cx = env.cx();
            runtime::own_step_vars(w, &cx, tid, &d.vars)?;
            runtime::complete(w, &cx, tid, inst, &d)
        })
        .await?;
    Ok(ok(json!({"taskId": id(&t, "id").to_string(), "result": int(&t, "result")})))
}

/// The variables of a start request: an object of declared names.
fn vars_param(b: &Map<String, Value>) -> ApiResult<Map<String, Value>> {
    match b.get("variables") {
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(Value::Null) | None => Ok(Map::new()),
        Some(_) => Err(ApiError::with(Kind::WrongType, "variables")),
    }
}

async fn start_process(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let pid = body_id(&b, &["processDefinitionId", "processId"])?.ok_or_else(|| ApiError::with(Kind::Missing, "processDefinitionId"))?;
    let given = vars_param(&b)?;
    let env = Env::new(&st, &s);
    let inst = st
        .write(move |w| {
            let cx = env.cx();
            let process = w.get(&cx.def("flow_process"), cx.tenant, pid)?.ok_or(store::StoreError::NotFound)?;
            // A 施工审批 without its 施工单 would wait in the approvers' queue bound to nothing.
            if let Some(t) = approval::TYPES.iter().find(|t| t.1 == text(&process, "processKey")) {
                return Err(crate::error::rule(
                    format!("{}须在施工单的「审批」页发起,以关联施工单", text(&process, "name")),
                    format!("A {} is started from its construct's Approval tab, bound to it", t.4.to_lowercase()),
                ));
            }
            let def = runtime::definition_of(&process);
            let vars = def.read_vars(&given).map_err(|p| store::StoreError::Rule(format!("{}\u{1e}{}", p.msg, p.msg_en)))?;
            runtime::start(w, &cx, &process, vars, None)
        })
        .await?;
    let tasks = started_tasks(&st, &s, id(&inst, "id")).await?;
    Ok(ok(json!({"processInstanceId": id(&inst, "id").to_string(), "status": int(&inst, "status"), "currentNodes": text(&inst, "currentNodes"), "tasks": tasks})))
}

/// The open tasks of a just-started instance: step, assignee (none while candidates claim), task id.
pub(crate) async fn started_tasks(st: &AppState, s: &Session, iid: u64) -> ApiResult<Vec<Value>> {
    let env = Env::new(st, s);
    let rows = st.store.read(|r| {
        let q = Query { filters: vec![Filter::new("instanceId", Op::Equal, json!(iid))], limit: 10_000, ..Query::default() };
        r.list(&env.res.get("flow_task"), &env.tenant, &q)
    })?;
    Ok(rows.records.iter().filter(|t| int(t, "status") == runtime::TASK_OPEN).map(|t| json!({"taskId": id(t, "id").to_string(), "taskDefinitionKey": text(t, "node"), "taskName": text(t, "nodeName"), "assignee": if id(t, "assignee") > 0 { id(t, "assignee").to_string() } else { String::new() }})).collect())
}

async fn withdraw(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let iid = id_param(&p, &["processInstanceId"])?;
    let env = Env::new(&st, &s);
    st.write(move |w| runtime::withdraw(w, &env.cx(), iid)).await?;
    Ok(ok(Value::Null))
}

fn reason(p: &AnyParams, name: &str) -> ApiResult<String> {
    let r = p.get(name).map(str::trim).unwrap_or("");
    if r.is_empty() {
        return Err(ApiError::with(Kind::Missing, name));
    }
    if r.chars().count() > 255 {
        return Err(ApiError::with(Kind::TooLong, name));
    }
    Ok(r.to_string())
}

async fn delete_instance(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let iid = id_param(&p, &["processInstanceId"])?;
    let why = reason(&p, "deleteReason")?;
    let env = Env::new(&st, &s);
    st.write(move |w| runtime::delete(w, &env.cx(), iid, &why)).await?;
    Ok(ok(Value::Null))
}

async fn reassign(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let tid = id_param(&p, &["taskId"])?;
    let to = id_param(&p, &["userId"])?;
    let why = reason(&p, "reason")?;
    let env = Env::new(&st, &s);
    st.write(move |w| runtime::reassign(w, &env.cx(), tid, to, &why)).await?;
    Ok(ok(Value::Null))
}

// ---------------------------------------------------------------------------------------------------------
// History and diagram

/// An instance the session may look at: its starter, anyone who has or had a task on it (or is a candidate),
/// and holders of `flow_follow`. Anyone else: 404.
pub fn visible_instance(r: &store::ReadCtx, res: &crate::decl::Resources, s: &Session, iid: u64) -> store::Result<Map<String, Value>> {
    let inst = r.get(&res.get("flow_instance"), &s.tenant, iid)?.ok_or(store::StoreError::NotFound)?;
    if id(&inst, "starterId") == s.user_id || s.perms.codes.contains("flow_follow") {
        return Ok(inst);
    }
    let q = Query { filters: vec![Filter::new("instanceId", Op::Equal, json!(iid))], limit: 10_000, ..Query::default() };
    let cdef = res.get("flow_candidate");
    for t in r.list(&res.get("flow_task"), &s.tenant, &q)?.records {
        if id(&t, "assignee") == s.user_id || id(&t, "doneUser") == s.user_id {
            return Ok(inst);
        }
        if int(&t, "claimable") == 1 {
            let cq = Query { filters: vec![Filter::new("taskId", Op::Equal, json!(id(&t, "id"))), Filter::new("userId", Op::Equal, json!(s.user_id))], limit: 1, ..Query::default() };
            if r.list(&cdef, &s.tenant, &cq)?.total > 0 {
                return Ok(inst);
            }
        }
    }
    Err(store::StoreError::NotFound)
}

/// Whether `node` of the instance's process is the applicant's own step (a leave's 调整申请, assigned to the
/// starter): deciding it is sending the application again (pass) or giving it up (reject), not 同意/驳回.
fn own_step(r: &store::ReadCtx, res: &crate::decl::Resources, tenant: &str, inst: &Map<String, Value>, node: &str, defs: &mut HashMap<u64, flow::Definition>) -> store::Result<bool> {
    let pid = id(inst, "processId");
    if !defs.contains_key(&pid) {
        let def = r.get(&res.get("flow_process"), tenant, pid)?.map(|p| runtime::definition_of(&p)).unwrap_or_default();
        defs.insert(pid, def);
    }
    Ok(runtime::starter_step(&defs[&pid], node))
}

/// What deciding the applicant's own step was called: 重新提交 or 放弃申请.
fn own_step_action(action: &str) -> Option<(&'static str, &'static str)> {
    match action {
        "pass" => Some(("重新提交", "Sent again")),
        "reject" => Some(("放弃申请", "Gave up")),
        _ => None,
    }
}

async fn history_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let iid = id_param(&p, &["processInstanceId"])?;
    history_of(&st, &s, iid, None).await
}

/// The history of an instance the session may see; with `records` (a 审批记录 reader's data scope over 施工单),
/// also of a construction approval on a 施工单 it admits (`approval::readable`).
pub(crate) async fn history_of(st: &AppState, s: &Session, iid: u64, records: Option<Option<Vec<Filter>>>) -> ApiResult<Response> {
    let res = st.res.clone();
    let s2 = s.clone();
    let (rows, names) = st
        .read(move |r| {
            let inst = approval::readable(r, &res, &s2, iid, &records)?;
            let q = Query { filters: vec![Filter::new("instanceId", Op::Equal, json!(iid))], limit: 10_000, sorts: vec![Sort { field: "id".into(), desc: false }], ..Query::default() };
            let rows = r.list(&res.get("flow_history"), &s2.tenant, &q)?.records;
            let names = runtime::names(r, &res, &s2.tenant, rows.iter().map(|h| id(h, "userId")))?;
            let mut defs = HashMap::new();
            let mut own = Vec::new();
            for h in &rows {
                own.push(own_step(r, &res, &s2.tenant, &inst, text(h, "node"), &mut defs)?);
            }
            Ok((rows.into_iter().zip(own).collect::<Vec<_>>(), names))
        })
        .await?;
    let out: Vec<Value> = rows
        .iter()
        .map(|(h, own)| {
            let u = id(h, "userId");
            let who = if u == 0 { "系统".to_string() } else { names.get(&u).cloned().unwrap_or_default() };
            // The applicant's own step is named for what it did (it read 同意 for a 重新提交).
            let named = own_step_action(text(h, "action")).filter(|_| *own);
            json!({
                "actionName": named.map(|n| n.0), "actionNameEn": named.map(|n| n.1),
                "id": id(h, "id").to_string(),
                "historyActivityId": text(h, "node"),
                "historyActivityName": text(h, "nodeName"),
                "historyActivityType": text(h, "action"),
                "action": text(h, "action"),
                "assignee": u.to_string(),
                "assigneeName": who,
                "createTime": text(h, "startTime"),
                "endTime": text(h, "endTime"),
                "historyActivityDurationTime": runtime::duration_text(h.get("durationMs").and_then(Value::as_i64).unwrap_or(0)),
                "durationMs": h.get("durationMs").and_then(Value::as_i64).unwrap_or(0),
                "comment": text(h, "comment"),
            })
        })
        .collect();
    Ok(ok(out))
}

async fn diagram(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let res = st.res.clone();
    let s2 = s.clone();
    if p.get("processInstanceId").is_some_and(|v| !v.is_empty()) {
        let iid = id_param(&p, &["processInstanceId"])?;
        // An application its 审批记录 lists opens its diagram too.
        let within = approval::records_within(&st, &s).await?;
        let out = st
            .read(move |r| {
                let inst = approval::readable(r, &res, &s2, iid, &within)?;
                let process = r.get(&res.get("flow_process"), &s2.tenant, id(&inst, "processId"))?.ok_or(store::StoreError::NotFound)?;
                let state: flow::State = inst.get("state").cloned().and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default();
                // The open tasks (who they wait on): the follow screen reassigns them.
                let q = Query { filters: vec![Filter::new("instanceId", Op::Equal, json!(iid))], limit: 10_000, ..Query::default() };
                let open: Vec<Map<String, Value>> = r.list(&res.get("flow_task"), &s2.tenant, &q)?.records.into_iter().filter(|t| int(t, "status") == runtime::TASK_OPEN).collect();
                let names = runtime::names(r, &res, &s2.tenant, open.iter().map(|t| id(t, "assignee")))?;
                let tasks: Vec<Value> = open
                    .iter()
                    .map(|t| json!({"taskId": id(t, "id").to_string(), "node": text(t, "node"), "taskName": text(t, "nodeName"), "claimable": int(t, "claimable") == 1,
                        "assignee": id(t, "assignee").to_string(), "assigneeName": names.get(&id(t, "assignee")).cloned().unwrap_or_default(), "arriveTime": text(t, "arriveTime"), "dueTime": text(t, "dueTime")}))
                    .collect();
                Ok(json!({
                    "name": text(&process, "name"), "version": int(&process, "version"),
                    "definition": process.get("definition").cloned().unwrap_or(Value::Null),
                    "path": state.path, "current": state.active.iter().map(|a| a.node.clone()).collect::<Vec<_>>(), "tasks": tasks,
                    "status": int(&inst, "status"), "statusName": runtime::status_name(int(&inst, "status")).0, "statusNameEn": runtime::status_name(int(&inst, "status")).1,
                    "summary": runtime::summary_of(&inst, &|name, k| r.get(&res.get(name), &s2.tenant, k))?,
                }))
            })
            .await?;
        return Ok(ok(out));
    }
    let pid = id_param(&p, &["processDefinitionId"])?;
    let out = st
        .read(move |r| {
            let process = r.get(&res.get("flow_process"), &s2.tenant, pid)?.ok_or(store::StoreError::NotFound)?;
            Ok(json!({"name": text(&process, "name"), "version": int(&process, "version"), "definition": process.get("definition").cloned().unwrap_or(Value::Null), "path": [], "current": []}))
        })
        .await?;
    Ok(ok(out))
}

/// 审批: the process engine's routes, the seeded processes every tenant gets, the approvals' demo; `verify` checks
/// every instance against its tasks and history.
pub const AREA: crate::api::Area = crate::api::Area {
    tenant: Some(seed_tenant),
    upgrades: &[("upgrade:flow_seed", seed_every_tenant), ("upgrade:file_owners", bind_every_tenant), ("upgrade:message_task_ids", message_task_ids)],
    demo: Some(demo::seed),
    verify: Some(verify),
    ..crate::api::Area::routes_only("flow", routes)
};

/// The tenants of a data file.
fn tenants(w: &store::WriteCtx, res: &crate::decl::Resources) -> store::Result<Vec<String>> {
    Ok(w.all(&res.get("tenant"), store::PLATFORM_TENANT)?.iter().filter_map(|t| t.get("tenantId").and_then(Value::as_str).map(str::to_string)).collect())
}

/// The seeded processes (leave, construction approvals), for the tenants of a file made before the engine.
fn seed_every_tenant(w: &mut store::WriteCtx, res: &crate::decl::Resources) -> store::Result<()> {
    for t in tenants(w, res)? {
        seed_tenant(w, res, &t)?;
    }
    Ok(())
}

/// Approval files attached before attachments were bound to their approval (issue 32).
fn bind_every_tenant(w: &mut store::WriteCtx, res: &crate::decl::Resources) -> store::Result<()> {
    for t in tenants(w, res)? {
        approval::bind_files(w, res, &t)?;
    }
    Ok(())
}

/// Unread 待办 messages written before a message kept its task (`taskId`): each gets its task from its link
/// (`/work/process/<kind>/handle/<task>/…`), and one whose task is no longer open for its recipient — decided,
/// withdrawn or handed on while the message stayed — is marked read, so the bell no longer lists it as to do. From
/// then on `messages::settle_task` finds them. 待签收 messages name no task (they link to the claim list): left.
fn message_task_ids(w: &mut store::WriteCtx, res: &crate::decl::Resources) -> store::Result<()> {
    let (mdef, tdef) = (res.get("message"), res.get("flow_task"));
    let now = crate::engine::demo::now_text();
    for t in tenants(w, res)? {
        let q = store::Query {
            filters: vec![store::Filter::new("unread", store::Op::Equal, json!(1)), store::Filter::new("kind", store::Op::Equal, json!(crate::engine::messages::TASK))],
            limit: 10_000_000,
            ..store::Query::default()
        };
        for m in w.list(&mdef, &t, &q)?.records {
            if m.get("taskId").is_some_and(|v| !v.is_null()) {
                continue;
            }
            let Some(task) = task_of_link(m.get("link").and_then(Value::as_str).unwrap_or("")) else { continue };
            let open = w.get(&tdef, &t, task)?.is_some_and(|k| int(&k, "status") == runtime::TASK_OPEN && id(&k, "assignee") == id(&m, "userId"));
            let patch = if open { json!({"taskId": task}) } else { json!({"taskId": task, "unread": 0, "readTime": now}) };
            w.update(&mdef, &t, id(&m, "id"), patch.as_object().cloned().unwrap_or_default(), &store::Actor::default())?;
        }
    }
    Ok(())
}

/// The task a 待办 message's link names: `/work/process/leave/handle/<task>/<instance>/<business>`.
fn task_of_link(link: &str) -> Option<u64> {
    let rest = link.strip_prefix("/work/process/")?;
    let (_, after) = rest.split_once("/handle/")?;
    after.split('/').next()?.parse().ok()
}

fn verify(r: &store::ReadCtx, res: &crate::decl::Resources) -> store::Result<(String, Vec<String>)> {
    let a = runtime::audit(r, res)?;
    let line = format!("approvals: {} instances, {} tasks: {}", a.instances, a.tasks, if a.problems.is_empty() { "every instance agrees with its tasks" } else { "MISMATCH" });
    Ok((line, a.problems))
}
