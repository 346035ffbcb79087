//! 施工审批 (`/api/blade-scm/flowable/...`): the construction approvals of spec §7 on the same engine. An
//! application (a "task group": `taskGroupId` is its instance id) has an apply type (spec §4: 1 量房模型, the
//! measure model of a construct; 2 人工组织申请, the crew organisation of a construct) and runs the tenant's latest
//! `measure_model` or `crew_apply` process; its tasks go to the type's approvers (`approval_user`, kept with
//! `user/update`; the tenant's administrators when none are set). Results (spec §4): 0 unprocessed, 1 passed,
//! 2 failed; statuses: 0 in approval, 1 passed, 2 failed. The business record changes in the same transaction as
//! the decision: a measure goes 审批中 → 已通过 / 已驳回 (back to 草稿 when withdrawn), a construct's
//! `approvalStatus` takes the status.
use axum::extract::{FromRequest, Path, Request, State};
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, Sort, StoreError, WriteCtx};

use super::runtime::{self, Business, Decision, id, int, obj, text};
use crate::auth::session::Session;
use crate::engine::dialect::{Ctx, Env};
use crate::engine::params::page_json;
use crate::engine::{Api, Guard, crud};
use crate::error::{ApiError, ApiResult, Kind, rule};
use crate::http::{JsonObject, ok};
use crate::state::AppState;

const B: &str = "/api/blade-scm/flowable";

/// Apply type → (process key, business table, name).
pub const TYPES: &[(i64, &str, &str, &str, &str)] = &[(1, "measure_model", "measure", "量房模型", "Measure model"), (2, "crew_apply", "construct", "人工组织申请", "Crew organisation")];

fn type_of(t: i64) -> ApiResult<(i64, &'static str, &'static str, &'static str, &'static str)> {
    TYPES.iter().copied().find(|x| x.0 == t).ok_or_else(|| ApiError::with(Kind::OutOfRange, "applyType"))
}

/// The apply type of an approver group name (the seeded processes name their type's group).
pub fn group_type(group: &str) -> Option<i64> {
    TYPES.iter().find(|x| x.1 == group).map(|x| x.0)
}

pub fn routes(api: Api) -> Api {
    let g = Guard::code;
    api.post(format!("{B}/approval/event/start"), g("approval_task_add"), start)
        .doc("施工审批 · submits an application: body {applyType: 1 measure model (businessId: the measure) | 2 crew organisation (businessId: the construct), remark, fileIds}; answers taskGroupId and the open tasks", &[])
        .post(format!("{B}/approval/personal/task/list"), g("approval_task"), personal)
        .reads()
        .doc("施工审批 · the user's approval tasks: body {page, size, applyType, result: 0 to do (assigned or to claim), 1 passed, 2 failed; none: all}", &[])
        .post(format!("{B}/approval/detail/{{taskId}}"), g("approval_task"), detail)
        .reads()
        .doc("施工审批 · a task with its application, business record, files and record (the task's people, the applicant, flow_follow holders)", &[])
        .post(format!("{B}/approval/event/complete"), g("approval_task_handle"), complete)
        .doc("施工审批 · decides a task: body {taskId, result: 1 pass | 2 fail, comment}; a candidate's task is claimed first; anyone else: 403", &[])
        .post(format!("{B}/approval/cancel/task"), g("approval_task_cancel"), cancel)
        .doc("施工审批 · the applicant withdraws an application nobody has decided yet: body {taskGroupId, reason}", &[])
        .post(format!("{B}/approval/cancel/record"), g("approval_task"), cancel_record)
        .reads()
        .doc("施工审批 · the user's withdrawn applications: body {page, size}", &[])
        .post(format!("{B}/approval/record/{{taskGroupId}}"), Guard::any(&["approval_record", "approval_task"]), record)
        .reads()
        .doc("审批记录 · every step of an application: who, when, result, comment, duration", &[])
        .post(format!("{B}/approval/record/list"), g("approval_record"), record_list)
        .reads()
        .doc("审批记录 · applications of the tenant, newest first: body {page, size, applyType, status}", &[])
        .post(format!("{B}/approval/measurement/model/detail/{{taskGroupId}}"), g("approval_task"), measure_detail)
        .reads()
        .doc("施工审批 · the measure (rooms, area) of a measure-model application", &[])
        .post_upload(format!("{B}/approval/file/upload"), g("approval_file_add"), upload)
        .doc("审批文件 · uploads a file (multipart file; query taskGroupId, applyType, businessId optional): attachLink, attachName, attachSize", &[])
        .post_upload(format!("{B}/approval/construct/file/upload"), g("approval_file_add"), upload)
        .doc("施工审批 · uploads a construct's approval file (as approval/file/upload)", &[])
        .post(format!("{B}/approval/file/list"), g("approval_file"), file_list)
        .reads()
        .doc("审批文件 · files: body {page, size, taskGroupId, applyType, businessId}", &[])
        .post(format!("{B}/approval/type/file/detail/{{id}}"), g("approval_file"), file_detail)
        .reads()
        .doc("审批文件 · one file", &[])
        .post(format!("{B}/approval/file/delete/{{id}}"), g("approval_file_delete"), file_delete)
        .doc("审批文件 · removes a file not yet part of a decided application", &[])
        .post(format!("{B}/approval/user/list"), g("approval_task"), approvers_all)
        .reads()
        .doc("审批人员 · the approvers of every apply type", &[])
        .post(format!("{B}/user/list/{{id}}"), g("approval_task"), approvers)
        .reads()
        .doc("审批人员 · the approvers of apply type {id} (1 measure model, 2 crew organisation)", &[])
        .post(format!("{B}/user/update"), g("approval_task_users"), approvers_update)
        .doc("审批人员 · sets the approvers of an apply type: body {applyType, userIds}", &[])
}

fn num(b: &Map<String, Value>, k: &str) -> ApiResult<Option<i64>> {
    match b.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::Number(n)) => n.as_i64().map(Some).ok_or_else(|| ApiError::with(Kind::WrongType, k.to_string())),
        Some(Value::String(s)) => s.trim().parse().map(Some).map_err(|_| ApiError::with(Kind::WrongType, k.to_string())),
        Some(_) => Err(ApiError::with(Kind::WrongType, k.to_string())),
    }
}

fn idv(b: &Map<String, Value>, k: &str) -> ApiResult<Option<u64>> {
    match b.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => crud::parse_id(Some(s)).map(Some),
        Some(Value::Number(n)) => n.as_u64().filter(|v| *v > 0).map(Some).ok_or_else(|| ApiError::with(Kind::BadId, k.to_string())),
        Some(_) => Err(ApiError::with(Kind::WrongType, k.to_string())),
    }
}

fn paging(b: &Map<String, Value>) -> ApiResult<(u64, u64)> {
    let page = num(b, "page")?.or(num(b, "current")?).unwrap_or(1);
    let size = num(b, "size")?.unwrap_or(10);
    if !(1..=100_000).contains(&page) {
        return Err(ApiError::with(Kind::BadPaging, "page"));
    }
    if !(1..=crate::engine::listq::MAX_SIZE as i64).contains(&size) {
        return Err(ApiError::with(Kind::BadPaging, "size"));
    }
    Ok((page as u64, size as u64))
}

/// Starts an application in the open transaction: the business record is checked and marked in approval.
pub fn start_in(w: &mut WriteCtx, cx: &Ctx, apply: i64, business: u64, remark: &str) -> store::Result<Map<String, Value>> {
    let (t, key, table, ..) = TYPES.iter().copied().find(|x| x.0 == apply).ok_or_else(|| rule("申请类型不正确", "Unknown apply type"))?;
    let q = Query { filters: vec![Filter::new("processKey", Op::Equal, json!(key)), Filter::new("latest", Op::Equal, json!(1))], limit: 1, ..Query::default() };
    let process = w.list(&cx.def("flow_process"), cx.tenant, &q)?.records.into_iter().next().ok_or_else(|| rule("没有已部署的施工审批流程", "No construction approval process is deployed"))?;
    let rec = w.get(&cx.def(table), cx.tenant, business)?.ok_or(StoreError::NotFound)?;
    let construct = if table == "measure" { id(&rec, "constructId") } else { business };
    if t == 1 {
        let s = int(&rec, "measureStatus");
        if s == 1 || s == 2 {
            return Err(rule("该量房记录已在审批中或已通过", "The measure is already in approval or approved"));
        }
        if int(&rec, "roomCount") == 0 {
            return Err(rule("量房记录还没有房间尺寸,不能提交审批", "The measure has no rooms yet; it cannot be submitted"));
        }
    } else if int(&rec, "approvalStatus") == 0 && rec.get("approvalStatus").is_some_and(|v| !v.is_null()) {
        return Err(rule("该施工单的人工组织申请正在审批中", "The construct's crew organisation is already in approval"));
    }
    let mut vars = flow::Vars::new();
    let def = runtime::definition_of(&process);
    if def.var("constructId").is_some_and(|d| d.ty == flow::VarType::Text) {
        vars.insert("constructId".into(), flow::Val::Text(construct.to_string()));
    }
    if !remark.is_empty() && def.var("remark").is_some_and(|d| d.ty == flow::VarType::Text) {
        vars.insert("remark".into(), flow::Val::Text(remark.to_string()));
    }
    let inst = runtime::start(w, cx, &process, vars, Some(Business { table, id: business }))?;
    let iid = id(&inst, "id");
    // The business record: in approval, unless the process already ended (nobody to ask and it passes).
    let status = int(&inst, "status");
    if t == 1 {
        if status == 0 {
            w.update(&cx.def("measure"), cx.tenant, business, obj(json!({"measureStatus": 1, "taskGroupId": iid, "approvalNote": null})), cx.actor)?;
        }
    } else if status == 0 {
        w.update(&cx.def("construct"), cx.tenant, business, obj(json!({"approvalStatus": 0, "approvalNote": null})), cx.actor)?;
    }
    w.update(&cx.def("flow_instance"), cx.tenant, iid, obj(json!({"deleteReason": remark.chars().take(255).collect::<String>()})), cx.actor)
}

/// The business record of an ended construction approval takes its result (called by the runtime), and a
/// refusal its reason (`approvalNote`: 「陈杰 驳回:班组缺泥瓦工」), where the 施工单's manager applies again.
pub fn business_end(w: &mut WriteCtx, cx: &Ctx, table: &str, bid: u64, status: flow::Status, note: Option<&str>) -> store::Result<()> {
    let note = match (status, note) {
        (flow::Status::Rejected, Some(n)) => json!(n.chars().take(255).collect::<String>()),
        _ => Value::Null,
    };
    match table {
        "measure" => {
            let s = match status {
                flow::Status::Passed => 2,
                flow::Status::Rejected => 3,
                _ => 0,
            };
            w.update(&cx.def("measure"), cx.tenant, bid, obj(json!({"measureStatus": s, "approvalNote": note})), cx.actor)?;
        }
        "construct" => {
            let s = if status == flow::Status::Withdrawn { Value::Null } else { json!(status.code()) };
            w.update(&cx.def("construct"), cx.tenant, bid, obj(json!({"approvalStatus": s, "approvalNote": note})), cx.actor)?;
        }
        _ => {}
    }
    Ok(())
}

async fn start(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let apply = num(&b, "applyType")?.ok_or_else(|| ApiError::with(Kind::Missing, "applyType"))?;
    let table = type_of(apply)?.2;
    let business = idv(&b, "businessId")?.or(idv(&b, if apply == 1 { "measureId" } else { "constructId" })?).ok_or_else(|| ApiError::with(Kind::Missing, "businessId"))?;
    // Only for a 施工单 (or its measure) the applicant may see: a 项目经理 applies for his own projects' work.
    crud::get_scoped(&st, &s, &st.res.get(table), business).await?;
    let remark = match b.get("remark") {
        Some(Value::String(r)) if r.chars().count() > 255 => return Err(ApiError::with(Kind::TooLong, "remark")),
        Some(Value::String(r)) => r.trim().to_string(),
        _ => String::new(),
    };
    let files = crud::parse_ids(b.get("fileIds").and_then(Value::as_str).filter(|v| !v.is_empty())).unwrap_or_default();
    let env = Env::new(&st, &s);
    let inst = st
        .write(move |w| {
            let cx = env.cx();
            let inst = start_in(w, &cx, apply, business, &remark)?;
            // The applicant's own files uploaded before the application join it (another's are not his to take).
            let fdef = cx.def("approval_file");
            for f in &files {
                let rec = w.get(&fdef, cx.tenant, *f)?.ok_or(StoreError::NotFound)?;
                if id(&rec, "createUser") != cx.actor.user_id {
                    return Err(StoreError::NotFound);
                }
                if id(&rec, "taskGroupId") == 0 {
                    w.update(&fdef, cx.tenant, *f, obj(json!({"taskGroupId": id(&inst, "id"), "applyType": apply, "businessId": business})), cx.actor)?;
                }
            }
            Ok(inst)
        })
        .await?;
    let tasks = super::started_tasks(&st, &s, id(&inst, "id")).await?;
    Ok(ok(json!({"taskGroupId": id(&inst, "id").to_string(), "status": int(&inst, "status"), "currentNodes": text(&inst, "currentNodes"), "tasks": tasks})))
}

/// An application row: the instance with its type, business record and applicant.
fn application(r: &store::ReadCtx, res: &crate::decl::Resources, tenant: &str, inst: &Map<String, Value>) -> store::Result<Map<String, Value>> {
    let table = text(inst, "businessTable");
    let apply = TYPES.iter().find(|x| x.2 == table && x.1 == text(inst, "processKey")).or_else(|| TYPES.iter().find(|x| x.2 == table)).map(|x| x.0).unwrap_or(0);
    let bid = id(inst, "businessId");
    let mut m = Map::new();
    let (mut construct_id, mut business_name) = (0, String::new());
    if table == "construct" {
        construct_id = bid;
        // What is asked (its 申请说明), not the 施工单 again beside its own column.
        business_name = match text(inst, "deleteReason").trim() {
            "" => "施工班组人员组织".to_string(),
            why => format!("施工班组:{why}"),
        };
    } else if table == "measure"
        && let Some(rec) = r.get(&res.get("measure"), tenant, bid)? {
        construct_id = id(&rec, "constructId");
        business_name = format!("{} 量房({} 间,{} ㎡)", text(&rec, "measureDate"), int(&rec, "roomCount"), store::format_money(int(&rec, "totalArea")));
    }
    if let Some(k) = r.get(&res.get("construct"), tenant, construct_id)? {
        m.insert("constructId".into(), json!(construct_id.to_string()));
        m.insert("constructCode".into(), json!(text(&k, "constructCode")));
        m.insert("constructName".into(), json!(text(&k, "constructName")));
        if business_name.is_empty() {
            business_name = format!("{} {}", text(&k, "constructCode"), text(&k, "constructName"));
        }
    }
    let names = runtime::names(r, res, tenant, [id(inst, "starterId")])?;
    let status = int(inst, "status");
    let spec_status = match status {
        0 => 0,
        1 => 1,
        _ => 2,
    };
    for (k, v) in [
        ("taskGroupId", json!(id(inst, "id").to_string())),
        ("applyType", json!(apply)),
        ("applyTypeName", json!(TYPES.iter().find(|x| x.0 == apply).map(|x| x.3).unwrap_or(""))),
        ("businessId", json!(bid.to_string())),
        ("businessName", json!(business_name)),
        ("applyUser", json!(id(inst, "starterId").to_string())),
        ("applyUserName", json!(names.get(&id(inst, "starterId")).cloned().unwrap_or_default())),
        ("applyTime", json!(text(inst, "startTime"))),
        ("remark", json!(text(inst, "deleteReason"))),
        ("status", json!(spec_status)),
        ("statusName", json!(["审批中", "审批通过", "审批未通过"][spec_status as usize])),
        ("processStatus", json!(status)),
        ("processStatusName", json!(runtime::status_name(status).0)),
        ("currentNodes", json!(text(inst, "currentNodes"))),
        ("endTime", json!(text(inst, "endTime"))),
    ] {
        m.insert(k.into(), v);
    }
    Ok(m)
}

fn task_fields(m: &mut Map<String, Value>, t: &Map<String, Value>, names: &std::collections::BTreeMap<u64, String>) {
    let result = int(t, "result");
    for (k, v) in [
        ("taskId", json!(id(t, "id").to_string())),
        ("id", json!(id(t, "id").to_string())),
        ("taskName", json!(text(t, "nodeName"))),
        ("arriveTime", json!(text(t, "arriveTime"))),
        ("dueTime", json!(text(t, "dueTime"))),
        ("claimable", json!(int(t, "claimable") == 1)),
        ("assigneeName", json!(names.get(&id(t, "assignee")).cloned().unwrap_or_default())),
        ("result", json!(result)),
        ("resultName", json!(["未处理", "通过", "不通过"].get(result as usize).copied().unwrap_or(""))),
        ("comment", json!(text(t, "comment"))),
        ("handleTime", json!(text(t, "endTime"))),
    ] {
        m.insert(k.into(), v);
    }
}

/// Category 2 (施工审批) processes' tasks of the user: open (assigned or to claim) and/or decided.
async fn personal(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let (page, size) = paging(&b)?;
    let apply = num(&b, "applyType")?;
    let result = num(&b, "result")?;
    if result.is_some_and(|r| !(0..=2).contains(&r)) {
        return Err(ApiError::with(Kind::OutOfRange, "result"));
    }
    let (res, tenant, me) = (st.res.clone(), s.tenant.clone(), s.user_id);
    let (rows, total) = st
        .read(move |r| {
            let tdef = res.get("flow_task");
            let mut tasks = Vec::new();
            let q = |f: Filter| Query { filters: vec![f], limit: 5_000, sorts: vec![Sort { field: "id".into(), desc: true }], ..Query::default() };
            if result.is_none_or(|x| x == 0) {
                tasks.extend(r.list(&tdef, &tenant, &q(Filter::new("todoUser", Op::Equal, json!(me))))?.records);
                for c in r.list(&res.get("flow_candidate"), &tenant, &q(Filter::new("userId", Op::Equal, json!(me))))?.records {
                    if let Some(t) = r.get(&tdef, &tenant, id(&c, "taskId"))?
                        && int(&t, "status") == runtime::TASK_OPEN {
                        tasks.push(t);
                    }
                }
            }
            if result.is_none_or(|x| x > 0) {
                tasks.extend(r.list(&tdef, &tenant, &q(Filter::new("doneUser", Op::Equal, json!(me))))?.records.into_iter().filter(|t| result.is_none_or(|x| int(t, "result") == x)));
            }
            let idef = res.get("flow_instance");
            let mut out = Vec::new();
            for t in tasks.into_iter().filter(|t| int(t, "category") == 2) {
                let Some(inst) = r.get(&idef, &tenant, id(&t, "instanceId"))? else { continue };
                let mut row = application(r, &res, &tenant, &inst)?;
                if apply.is_some_and(|a| row["applyType"].as_i64() != Some(a)) {
                    continue;
                }
                let names = runtime::names(r, &res, &tenant, [id(&t, "assignee")])?;
                task_fields(&mut row, &t, &names);
                out.push(row);
            }
            let key = |r: &Map<String, Value>| r["taskId"].as_str().and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
            out.sort_by_key(|r| std::cmp::Reverse(key(r)));
            let total = out.len() as u64;
            Ok((out.into_iter().skip(((page - 1) * size) as usize).take(size as usize).collect::<Vec<_>>(), total))
        })
        .await?;
    Ok(ok(page_json(rows, total, page, size)))
}

async fn detail(State(st): State<AppState>, s: Session, Path(task): Path<String>) -> ApiResult<Response> {
    let tid = crud::parse_id(Some(&task))?;
    let (res, s2) = (st.res.clone(), s.clone());
    let out = st
        .read(move |r| {
            let t = r.get(&res.get("flow_task"), &s2.tenant, tid)?.ok_or(StoreError::NotFound)?;
            let inst = super::visible_instance(r, &res, &s2, id(&t, "instanceId"))?;
            let mut row = application(r, &res, &s2.tenant, &inst)?;
            let names = runtime::names(r, &res, &s2.tenant, [id(&t, "assignee")])?;
            task_fields(&mut row, &t, &names);
            row.insert("mine".into(), json!(id(&t, "assignee") == s2.user_id && int(&t, "status") == runtime::TASK_OPEN || int(&t, "claimable") == 1 && runtime_candidate(r, &res, &s2, tid)?));
            row.insert("files".into(), json!(files_of(r, &res, &s2.tenant, id(&inst, "id"))?));
            Ok(row)
        })
        .await?;
    Ok(ok(out))
}

fn runtime_candidate(r: &store::ReadCtx, res: &crate::decl::Resources, s: &Session, task: u64) -> store::Result<bool> {
    let q = Query { filters: vec![Filter::new("taskId", Op::Equal, json!(task)), Filter::new("userId", Op::Equal, json!(s.user_id))], limit: 1, ..Query::default() };
    Ok(r.list(&res.get("flow_candidate"), &s.tenant, &q)?.total > 0)
}

fn file_row(f: &Map<String, Value>) -> Value {
    json!({"id": id(f, "id").to_string(), "attachName": text(f, "attachName"), "attachLink": text(f, "attachLink"), "attachSize": f.get("attachSize").and_then(Value::as_i64).unwrap_or(0),
        "applyType": int(f, "applyType"), "taskGroupId": id(f, "taskGroupId").to_string(), "businessId": id(f, "businessId").to_string(), "createUser": f.get("createUser").and_then(Value::as_u64).unwrap_or(0).to_string()})
}

fn files_of(r: &store::ReadCtx, res: &crate::decl::Resources, tenant: &str, group: u64) -> store::Result<Vec<Value>> {
    let q = Query { filters: vec![Filter::new("taskGroupId", Op::Equal, json!(group))], limit: 200, ..Query::default() };
    Ok(r.list(&res.get("approval_file"), tenant, &q)?.records.iter().map(file_row).collect())
}

async fn complete(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let tid = idv(&b, "taskId")?.ok_or_else(|| ApiError::with(Kind::Missing, "taskId"))?;
    let pass = match (num(&b, "result")?, b.get("pass"), b.get("flag")) {
        (Some(1), ..) => true,
        (Some(2), ..) => false,
        (Some(_), ..) => return Err(ApiError::with(Kind::OutOfRange, "result")),
        (None, Some(Value::Bool(p)), _) => *p,
        (None, _, Some(Value::String(f))) => f == "ok",
        _ => return Err(ApiError::with(Kind::Missing, "result")),
    };
    let comment = match b.get("comment") {
        Some(Value::String(c)) if c.chars().count() > 500 => return Err(ApiError::with(Kind::TooLong, "comment")),
        Some(Value::String(c)) => c.clone(),
        _ => String::new(),
    };
    let env = Env::new(&st, &s);
    let t = st
        .write(move |w| {
            let cx = env.cx();
            let task = w.get(&cx.def("flow_task"), cx.tenant, tid)?.ok_or(StoreError::NotFound)?;
            if int(&task, "category") != 2 {
                return Err(StoreError::NotFound);
            }
            // A candidate's task: claimed and decided in one step on the approval screen.
            if int(&task, "claimable") == 1 && int(&task, "status") == runtime::TASK_OPEN {
                runtime::claim(w, &cx, tid)?;
            }
            runtime::complete(w, &cx, tid, None, &Decision { pass, comment: comment.clone(), vars: Map::new() })
        })
        .await?;
    Ok(ok(json!({"taskId": id(&t, "id").to_string(), "result": int(&t, "result")})))
}

async fn cancel(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let group = idv(&b, "taskGroupId")?.ok_or_else(|| ApiError::with(Kind::Missing, "taskGroupId"))?;
    let env = Env::new(&st, &s);
    st.write(move |w| {
        let cx = env.cx();
        let inst = w.get(&cx.def("flow_instance"), cx.tenant, group)?.ok_or(StoreError::NotFound)?;
        if int(&inst, "category") != 2 {
            return Err(StoreError::NotFound);
        }
        runtime::withdraw(w, &cx, group)
    })
    .await?;
    Ok(ok(Value::Null))
}

/// Applications matching `filters`, newest first, as rows.
async fn applications(st: &AppState, s: &Session, filters: Vec<Filter>, page: u64, size: u64) -> ApiResult<Value> {
    applications_within(st, s, filters, page, size, None).await
}

/// Applications a page at a time; with `within` (a data scope over 施工单) only those on a 施工单 it admits, or
/// that the user applied for, are listed (of the latest 10,000).
async fn applications_within(st: &AppState, s: &Session, filters: Vec<Filter>, page: u64, size: u64, within: Option<Vec<Filter>>) -> ApiResult<Value> {
    let (res, tenant, me) = (st.res.clone(), s.tenant.clone(), s.user_id);
    let (rows, total) = st
        .read(move |r| {
            let mut f = filters;
            f.push(Filter::new("category", Op::Equal, json!(2)));
            let sorts = vec![Sort { field: "id".into(), desc: true }];
            if within.is_none() {
                let q = Query { filters: f, offset: (page - 1) * size, limit: size, sorts, ..Query::default() };
                let p = r.list(&res.get("flow_instance"), &tenant, &q)?;
                let rows = p.records.iter().map(|i| application(r, &res, &tenant, i)).collect::<store::Result<Vec<_>>>()?;
                return Ok((rows, p.total));
            }
            let q = Query { filters: f, limit: 10_000, sorts, ..Query::default() };
            let mut rows = Vec::new();
            for i in r.list(&res.get("flow_instance"), &tenant, &q)?.records {
                let app = application(r, &res, &tenant, &i)?;
                if id(&i, "starterId") == me || on_admitted_construct(r, &res, &tenant, &app, &within)? {
                    rows.push(app);
                }
            }
            let total = rows.len() as u64;
            Ok((rows.into_iter().skip(((page - 1) * size) as usize).take(size as usize).collect(), total))
        })
        .await?;
    Ok(page_json(rows, total, page, size))
}

async fn cancel_record(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let (page, size) = paging(&b)?;
    let f = vec![Filter::new("starterId", Op::Equal, json!(s.user_id)), Filter::new("status", Op::Equal, json!(3))];
    Ok(ok(applications(&st, &s, f, page, size).await?))
}

async fn record_list(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let (page, size) = paging(&b)?;
    let mut f = Vec::new();
    if let Some(a) = num(&b, "applyType")? {
        f.push(Filter::new("processKey", Op::Equal, json!(type_of(a)?.1)));
    }
    match num(&b, "status")? {
        Some(0) => f.push(Filter::new("status", Op::Equal, json!(0))),
        Some(1) => f.push(Filter::new("status", Op::Equal, json!(1))),
        Some(2) => f.push(Filter::new("status", Op::In, json!([2, 3, 4]))),
        Some(_) => return Err(ApiError::with(Kind::OutOfRange, "status")),
        None => {}
    }
    // Without flow_follow the user sees their own applications; with 审批记录 only, those on the 施工单 his data
    // scope admits too (a 项目经理's projects).
    if s.perms.codes.contains("flow_follow") {
        return Ok(ok(applications(&st, &s, f, page, size).await?));
    }
    if !s.perms.codes.contains("approval_record_view") {
        f.push(Filter::new("starterId", Op::Equal, json!(s.user_id)));
        return Ok(ok(applications(&st, &s, f, page, size).await?));
    }
    let within = crate::auth::scope::guard(&st, &s, &st.res.get("construct")).await?;
    Ok(ok(applications_within(&st, &s, f, page, size, within).await?))
}

/// What a 审批记录 reader without flow_follow may open besides what he may see anyway: the applications on 施工单
/// his data scope admits (as `record_list` lists them). None for everyone else.
pub(super) async fn records_within(st: &AppState, s: &Session) -> ApiResult<Option<Option<Vec<Filter>>>> {
    if s.perms.codes.contains("flow_follow") || !s.perms.codes.contains("approval_record_view") {
        return Ok(None);
    }
    Ok(Some(crate::auth::scope::guard(st, s, &st.res.get("construct")).await?))
}

/// An application the session may open: one it may see anyway (`visible_instance`), or for a 审批记录 reader
/// (`records_within`: Some) a construction approval on a 施工单 his scope admits (a row of its list opened to a 404).
pub(super) fn readable(r: &store::ReadCtx, res: &crate::decl::Resources, s: &Session, iid: u64, records: &Option<Option<Vec<Filter>>>) -> store::Result<Map<String, Value>> {
    let Some(within) = records else { return super::visible_instance(r, res, s, iid) };
    match super::visible_instance(r, res, s, iid) {
        Err(StoreError::NotFound) => {}
        other => return other,
    }
    let inst = r.get(&res.get("flow_instance"), &s.tenant, iid)?.ok_or(StoreError::NotFound)?;
    if int(&inst, "category") != 2 {
        return Err(StoreError::NotFound);
    }
    let app = application(r, res, &s.tenant, &inst)?;
    if on_admitted_construct(r, res, &s.tenant, &app, within)? { Ok(inst) } else { Err(StoreError::NotFound) }
}

/// Whether the 施工单 an application row names is one `within` admits (the one rule of 审批记录's list and of
/// opening one of its rows).
fn on_admitted_construct(r: &store::ReadCtx, res: &crate::decl::Resources, tenant: &str, app: &Map<String, Value>, within: &Option<Vec<Filter>>) -> store::Result<bool> {
    let k = app.get("constructId").and_then(store::parse_id_value).unwrap_or(0);
    Ok(r.get(&res.get("construct"), tenant, k)?.is_some_and(|k| crate::auth::scope::admits(within, &k)))
}

async fn record(State(st): State<AppState>, s: Session, Path(group): Path<String>) -> ApiResult<Response> {
    let gid = crud::parse_id(Some(&group))?;
    let within = records_within(&st, &s).await?;
    super::history_of(&st, &s, gid, within).await
}

async fn measure_detail(State(st): State<AppState>, s: Session, Path(group): Path<String>) -> ApiResult<Response> {
    let gid = crud::parse_id(Some(&group))?;
    let within = records_within(&st, &s).await?;
    let (res, s2) = (st.res.clone(), s.clone());
    let rec = st
        .read(move |r| {
            let inst = readable(r, &res, &s2, gid, &within)?;
            if text(&inst, "businessTable") != "measure" {
                return Err(StoreError::NotFound);
            }
            r.get(&res.get("measure"), &s2.tenant, id(&inst, "businessId"))?.ok_or(StoreError::NotFound)
        })
        .await?;
    let def = st.res.get("measure");
    Ok(ok(crud::decorated(&st, &s.tenant, &def, rec).await?))
}

async fn upload(State(st): State<AppState>, s: Session, crate::http::QueryPairs(q): crate::http::QueryPairs, req: Request) -> ApiResult<Response> {
    let get = |k: &str| q.iter().rev().find(|(a, _)| a == k).map(|(_, v)| v.clone()).filter(|v| !v.is_empty());
    let group = get("taskGroupId").map(|v| crud::parse_id(Some(&v))).transpose()?;
    let apply = get("applyType").map(|v| v.parse::<i64>().map_err(|_| ApiError::with(Kind::BadFormat, "applyType"))).transpose()?;
    if let Some(a) = apply {
        type_of(a)?;
    }
    let business = get("businessId").or(get("constructId")).map(|v| crud::parse_id(Some(&v))).transpose()?;
    // A file for a 施工单 (or its measure) the uploader may see.
    if let Some(b) = business {
        crud::get_scoped(&st, &s, &st.res.get(if apply == Some(1) { "measure" } else { "construct" }), b).await?;
    }
    if let Some(g) = group {
        let (res, s2) = (st.res.clone(), s.clone());
        st.read(move |r| super::visible_instance(r, &res, &s2, g).map(|_| ())).await?;
    }
    let mp = axum::extract::Multipart::from_request(req, &st).await.map_err(|_| ApiError::with(Kind::BadFormat, "multipart"))?;
    let up = crate::engine::uploads::read_upload(&st, &s, mp, crate::engine::uploads::MAX_FILE).await?;
    let size = up.len;
    // The approval file and its attachment in one transaction: the file is the approval's from the start.
    let (def, env) = (st.res.get("approval_file"), Env::new(&st, &s));
    let (_, rec) = crate::engine::uploads::store_upload_with(&st, &s, up, "approval", &[], move |w, saved| {
        let doc = obj(json!({
            "attachName": saved["originalName"], "attachLink": saved["link"], "attachSize": size, "attachId": saved["id"],
            "applyType": apply, "taskGroupId": group, "businessId": business,
        }));
        let rec = w.insert(&def, &env.tenant, doc, &env.actor)?;
        Ok(Some((format!("approval_file:{}", id(&rec, "id")), rec)))
    })
    .await?;
    Ok(ok(file_row(&rec.unwrap_or_default())))
}

/// Binds the attachments of a tenant's approval files that are not bound yet (files of an older data file).
pub fn bind_files(w: &mut store::WriteCtx, res: &crate::decl::Resources, tenant: &str) -> store::Result<()> {
    let adef = res.get("attach");
    for f in w.all(&res.get("approval_file"), tenant)? {
        let attach = id(&f, "attachId");
        if let Some(a) = w.get(&adef, tenant, attach)?
            && text(&a, "boundTo").is_empty() {
            w.update(&adef, tenant, attach, obj(json!({"boundTo": format!("approval_file:{}", id(&f, "id"))})), &store::Actor::default())?;
        }
    }
    Ok(())
}

/// Who may see an approval file: whoever may see its approval; while it belongs to none yet, whoever uploaded it
/// (and holders of flow_follow, who see every approval).
pub fn file_visible(r: &store::ReadCtx, res: &crate::decl::Resources, s: &Session, f: &Map<String, Value>) -> store::Result<()> {
    match id(f, "taskGroupId") {
        0 if f.get("createUser").and_then(Value::as_u64) == Some(s.user_id) || s.perms.codes.contains("flow_follow") => Ok(()),
        0 => Err(StoreError::NotFound),
        g => super::visible_instance(r, res, s, g).map(|_| ()),
    }
}

/// Files of one approval the user may see, or (without `taskGroupId`) the user's own uploads — every file only
/// for holders of flow_follow, who see every approval.
async fn file_list(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let (page, size) = paging(&b)?;
    let mut f = Vec::new();
    let group = idv(&b, "taskGroupId")?;
    if let Some(g) = group {
        let (res, s2) = (st.res.clone(), s.clone());
        st.read(move |r| super::visible_instance(r, &res, &s2, g).map(|_| ())).await?;
        f.push(Filter::new("taskGroupId", Op::Equal, json!(g)));
    } else if !s.perms.codes.contains("flow_follow") {
        f.push(Filter::new("createUser", Op::Equal, json!(s.user_id)));
    }
    if let Some(a) = num(&b, "applyType")? {
        f.push(Filter::new("applyType", Op::Equal, json!(a)));
    }
    if let Some(x) = idv(&b, "businessId")? {
        f.push(Filter::new("businessId", Op::Equal, json!(x)));
    }
    let (res, tenant) = (st.res.clone(), s.tenant.clone());
    let q = Query { filters: f, offset: (page - 1) * size, limit: size, sorts: vec![Sort { field: "id".into(), desc: true }], ..Query::default() };
    let p = st.read(move |r| r.list(&res.get("approval_file"), &tenant, &q)).await?;
    let rows: Vec<Map<String, Value>> = p.records.iter().map(|f| file_row(f).as_object().cloned().unwrap_or_default()).collect();
    Ok(ok(page_json(rows, p.total, page, size)))
}

async fn file_detail(State(st): State<AppState>, s: Session, Path(fid): Path<String>) -> ApiResult<Response> {
    let fid = crud::parse_id(Some(&fid))?;
    let (res, s2) = (st.res.clone(), s.clone());
    let f = st
        .read(move |r| {
            let f = r.get(&res.get("approval_file"), &s2.tenant, fid)?.ok_or(StoreError::NotFound)?;
            file_visible(r, &res, &s2, &f)?;
            Ok(f)
        })
        .await?;
    Ok(ok(file_row(&f)))
}

async fn file_delete(State(st): State<AppState>, s: Session, Path(fid): Path<String>) -> ApiResult<Response> {
    let fid = crud::parse_id(Some(&fid))?;
    // Only a file the user may see (404 otherwise, as for a file that does not exist).
    let (res, s2) = (st.res.clone(), s.clone());
    st.read(move |r| {
        let f = r.get(&res.get("approval_file"), &s2.tenant, fid)?.ok_or(StoreError::NotFound)?;
        file_visible(r, &res, &s2, &f)
    })
    .await?;
    let env = Env::new(&st, &s);
    st.write(move |w| {
        let cx = env.cx();
        let fdef = cx.def("approval_file");
        let f = w.get(&fdef, cx.tenant, fid)?.ok_or(StoreError::NotFound)?;
        let g = id(&f, "taskGroupId");
        if g > 0
            && let Some(inst) = w.get(&cx.def("flow_instance"), cx.tenant, g)?
            && matches!(int(&inst, "status"), 1 | 2) {
            return Err(rule("审批已完成,其文件不能删除", "The approval is decided; its files are kept"));
        }
        w.remove(&fdef, cx.tenant, &[fid], cx.actor)
    })
    .await?;
    Ok(ok(Value::Null))
}

/// The approvers of one apply type, or of all.
async fn approvers_of(st: &AppState, s: &Session, apply: Option<i64>) -> ApiResult<Vec<Value>> {
    let (res, tenant) = (st.res.clone(), s.tenant.clone());
    st.read(move |r| {
        let f = apply.map(|a| vec![Filter::new("applyType", Op::Equal, json!(a))]).unwrap_or_default();
        let rows = r.list(&res.get("approval_user"), &tenant, &Query { filters: f, limit: 10_000, ..Query::default() })?.records;
        let names = runtime::names(r, &res, &tenant, rows.iter().map(|x| id(x, "userId")))?;
        Ok(rows.iter().map(|x| json!({"id": id(x, "id").to_string(), "applyType": int(x, "applyType"), "userId": id(x, "userId").to_string(), "realName": names.get(&id(x, "userId")).cloned().unwrap_or_default()})).collect())
    })
    .await
}

async fn approvers_all(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let apply = num(&b, "applyType")?;
    if let Some(a) = apply {
        type_of(a)?;
    }
    Ok(ok(approvers_of(&st, &s, apply).await?))
}

async fn approvers(State(st): State<AppState>, s: Session, Path(t): Path<String>) -> ApiResult<Response> {
    let a: i64 = t.parse().map_err(|_| ApiError::with(Kind::BadId, t.chars().take(20).collect::<String>()))?;
    type_of(a)?;
    Ok(ok(approvers_of(&st, &s, Some(a)).await?))
}

async fn approvers_update(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let a = num(&b, "applyType")?.ok_or_else(|| ApiError::with(Kind::Missing, "applyType"))?;
    type_of(a)?;
    let users = match b.get("userIds") {
        Some(Value::Array(xs)) => xs.iter().map(|x| x.as_str().map(str::to_string).or_else(|| x.as_u64().map(|n| n.to_string())).unwrap_or_default()).collect::<Vec<_>>().join(","),
        Some(Value::String(x)) => x.clone(),
        None | Some(Value::Null) => String::new(),
        Some(_) => return Err(ApiError::with(Kind::WrongType, "userIds")),
    };
    let ids = if users.trim().is_empty() { Vec::new() } else { crud::parse_ids(Some(&users))? };
    let env = Env::new(&st, &s);
    st.write(move |w| {
        let cx = env.cx();
        let (adef, udef) = (cx.def("approval_user"), cx.def("user"));
        for u in &ids {
            w.get(&udef, cx.tenant, *u)?.ok_or(StoreError::NotFound)?;
        }
        let q = Query { filters: vec![Filter::new("applyType", Op::Equal, json!(a))], limit: 10_000, ..Query::default() };
        let old: Vec<u64> = w.list(&adef, cx.tenant, &q)?.records.iter().map(|x| id(x, "id")).collect();
        if !old.is_empty() {
            w.remove(&adef, cx.tenant, &old, cx.actor)?;
        }
        for u in &ids {
            w.insert(&adef, cx.tenant, obj(json!({"applyType": a, "userId": u})), cx.actor)?;
        }
        Ok(())
    })
    .await?;
    Ok(ok(approvers_of(&st, &s, Some(a)).await?))
}
