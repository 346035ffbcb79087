//! 业务管理 (`/api/blade-scm/...`): projects, contracts, constructs and their crews, workers and trades,
//! customers, companies, documents. The records are declared (`assets/resources/*.json`, route dialect
//! `blade-scm`) and served by `engine::dialect`; this area holds what is real behaviour: status transitions
//! with their preconditions, binding contracts to projects, crews and day work on constructs, and the change
//! record of contracts. Every rule runs inside the write it guards.
//!
//! Path segments the spec leaves unnamed mean (also in `openapi.json`):
//! - `project/contract/delete/{projectId}/{contractId}/{mode}`: mode 0 unbinds the contract from the project,
//!   mode 1 unbinds and removes it (a draft only);
//! - `project/unassigned/construct/contract/list/{projectId}/{constructId}`: the project's contracts that no
//!   construct uses yet, plus the one construct `{constructId}` uses (0 for a new construct);
//! - `contract/delete/{id}/{projectId}` (0: bound to no project), `construct/delete/{id}/{projectId}/1`,
//!   `worker/delete/{id}/{workerJobId}/1`, `worker/batch/delete/{ids}/{workerJobId}`,
//!   `doc/delete/{id}/{projectId}/1`: the record and the parent it must belong to;
//! - `construct/worker/bind|unbind/{constructId}/{workerId}`.
//!
//! A record of another tenant, outside the caller's data scope, or not of the named parent is a 404.
pub mod building;
mod catalog;
mod demo;
mod progress;
mod replay;
pub use replay::demo as replay_demo;
mod site;

use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, StoreError, WriteCtx};

use crate::auth::session::Session;
use crate::engine::crud;
use crate::engine::dialect::{self, Ctx, Env, Rules, after, after_i64};
pub(super) use crate::engine::params::{id_param, page_of, scoped_page};
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind, rule};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

/// The rules of the declared resources of this area.
pub fn rules(name: &str) -> Option<Rules> {
    Some(match name {
        "project" => Rules { save: Some(project_save), remove: None, saved: None, after: &[] },
        // A signed contract's ledger is finance's follow-up (`finance::AREA.after`).
        "contract" => Rules { save: Some(contract_save), remove: Some(contract_remove), saved: None, after: &[] },
        "construct" => Rules { save: Some(construct_save), remove: Some(construct_remove), saved: None, after: &[] },
        "building" => Rules { save: Some(building::room_save), remove: None, saved: None, after: &[] },
        "measure" => Rules { save: Some(site::measure_save), remove: Some(site::measure_remove), saved: None, after: &[] },
        "building_rectification" => Rules { save: Some(site::rectification_save), remove: Some(site::rectification_remove), saved: None, after: &[] },
        "product_category" => Rules { save: Some(catalog::category_save), remove: Some(catalog::category_remove), saved: None, after: &[] },
        "product" => Rules { save: Some(catalog::product_save), remove: None, saved: None, after: &[] },
        "worker" => Rules { save: Some(worker_save), remove: None, saved: None, after: &[] },
        other => return replay::rules(other),
    })
}

pub fn routes(api: Api) -> Api {
    let project = api.def("project");
    let contract = api.def("contract");
    let construct = api.def("construct");
    let customer = api.def("customer");
    let p = "/api/blade-scm/project";
    let c = "/api/blade-scm/contract";
    let k = "/api/blade-scm/construct";
    let api = api
        .post(format!("{p}/contract/bind"), Guard::write(&project, &["edit"]), contract_bind)
        .doc("项目管理 · bind contracts to a project (body: projectId, contractIds comma-separated or contractId)", &[])
        .post(format!("{p}/contract/delete/{{projectId}}/{{contractId}}/{{mode}}"), Guard::write(&project, &["edit"]), contract_unbind)
        .doc(
            "项目管理 · unbind a contract from its project (one no construct uses)",
            &[
                ("projectId", "the project"),
                ("contractId", "a contract bound to that project (else 404)"),
                ("mode", "0: unbind only; 1: unbind and remove the contract (drafts only; needs contract_delete)"),
            ],
        )
        .post(format!("{p}/unassigned/construct/contract/list/{{projectId}}/{{constructId}}"), Guard::read(&project), unassigned_contracts)
        .reads()
        .doc(
            "项目管理 · the project's contracts no construct uses yet (the construct form's contract picker)",
            &[("projectId", "the project"), ("constructId", "the construct being edited, whose own contract is listed too; 0 for a new one")],
        )
        .post(format!("{c}/unsigned/list/{{projectId}}"), Guard::read(&contract), unbound_contracts)
        .reads()
        .doc("合同管理 · contracts bound to no project yet (candidates to bind to project {projectId}); body page, size, contractName", &[("projectId", "the project they would be bound to (must exist)")])
        .post(format!("{c}/ope/record/{{id}}"), Guard::read(&contract), ope_record)
        .reads()
        .doc("合同管理 · every change of the contract: who, when, action and each field before and after, newest first", &[("id", "the contract")])
        .post(format!("{k}/assign/manager"), Guard::write(&construct, &["edit"]), assign_manager)
        .doc("施工管理 · assign the construct's manager (body: id or constructId, managerId: a user of the tenant)", &[])
        .post(format!("{k}/worker/bind/{{constructId}}/{{workerId}}"), Guard::write(&construct, &["edit"]), worker_bind)
        .doc("施工管理 · bind a worker to the construct's crew", &[("constructId", "the construct"), ("workerId", "the worker")])
        .post(format!("{k}/worker/unbind/{{constructId}}/{{workerId}}"), Guard::write(&construct, &["edit"]), worker_unbind)
        .doc("施工管理 · unbind a worker from the crew (404 when not bound)", &[("constructId", "the construct"), ("workerId", "a worker bound to it")])
        .post(format!("{k}/worker/list"), Guard::read(&construct), worker_list)
        .reads()
        .doc("施工管理 · the construct's crew (body: constructId, page, size)", &[])
        .post(format!("{k}/day/worker/bind"), Guard::write(&construct, &["edit"]), day_worker_bind)
        .doc("施工管理 · record day work 点工 (body: constructId, workerId, workDate, workDays, dayRate default the worker's level rate, workContent); amount = days × rate", &[])
        .post(format!("{k}/day/worker/list"), Guard::read(&construct), day_worker_list)
        .reads()
        .doc("施工管理 · day work per worker on the construct: days and amount (body: constructId)", &[])
        .post(format!("{k}/day/worker/detail/list"), Guard::read(&construct), day_worker_detail)
        .reads()
        .doc("施工管理 · day work records of the construct (body: constructId, workerId optional, page, size)", &[])
        .get("/api/blade-scm/customer/type", Guard::read(&customer), customer_types)
        .doc("客户管理 · customer types (dictionary customer_type)", &[]);
    let api = building::routes(api);
    let api = progress::routes(api);
    let api = catalog::routes(api);
    let api = replay::routes(api);
    site::routes(api)
}

// ---------------------------------------------------------------------------------------------------------
// Rules

const CONTRACT_STATUS: &[(i64, &str, &str)] = &[(0, "草稿", "draft"), (1, "已签订", "signed"), (2, "执行中", "executing"), (3, "已完成", "completed"), (9, "已终止", "terminated")];
const MODEL_STATUS: &[(i64, &str, &str)] = &[(1, "待勘察", "to inspect"), (2, "待派单", "to dispatch"), (3, "施工中", "under construction"), (4, "已完工", "completed")];
const PROJECT_STATUS: &[(i64, &str, &str)] = &[(1, "筹备中", "preparing"), (2, "进行中", "in progress"), (3, "已竣工", "completed"), (4, "已关闭", "closed")];

use crate::engine::dialect::status_name;

pub(super) fn transition_refused(table: crate::engine::dialect::Statuses, what: (&str, &str), from: i64, to: i64) -> StoreError {
    let (a, b) = (status_name(table, from), status_name(table, to));
    rule(format!("{}状态不能由「{}」变更为「{}」", what.0, a.0, b.0), format!("The {} cannot go from {} to {}", what.1, a.1, b.1))
}

pub(super) fn in_table(table: &[(i64, &str, &str)], v: i64, field: &str) -> store::Result<()> {
    if table.iter().any(|(k, ..)| *k == v) { Ok(()) } else { Err(StoreError::invalid(field, store::FieldProblem::OutOfRange { min: None, max: None })) }
}

pub(super) fn dates_in_order(old: Option<&Map<String, Value>>, doc: &Map<String, Value>, from: &str, to: &str) -> store::Result<()> {
    let (a, b) = (after(old, doc, from).and_then(Value::as_str), after(old, doc, to).and_then(Value::as_str));
    if let (Some(a), Some(b)) = (a, b)
        && b[..10.min(b.len())] < a[..10.min(a.len())] {
        return Err(rule("结束时间不能早于开始时间", "The end cannot be before the start"));
    }
    Ok(())
}

/// Project: 1 preparing → 2 in progress → 3 completed; 4 closed from 1 or 2. Completed or closed projects are
/// read-only. The end is not before the start.
fn project_save(_w: &mut WriteCtx, _cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    dates_in_order(old, doc, "startTime", "endTime")?;
    let to = after_i64(old, doc, "projectStatus").unwrap_or(1);
    in_table(PROJECT_STATUS, to, "projectStatus")?;
    let Some(old) = old else {
        if to != 1 && to != 2 {
            return Err(transition_refused(PROJECT_STATUS, ("项目", "project"), 1, to));
        }
        return Ok(());
    };
    let from = old.get("projectStatus").and_then(Value::as_i64).unwrap_or(1);
    if from >= 3 {
        return Err(rule("已竣工或已关闭的项目不能修改", "A completed or closed project cannot be changed"));
    }
    let allowed = from == to || to == from + 1 || to == 4;
    if !allowed {
        return Err(transition_refused(PROJECT_STATUS, ("项目", "project"), from, to));
    }
    Ok(())
}

/// Worker: a linked sign-in account must hold a technical-worker role (so the sign-in refusal of SPEC §6 holds
/// for it: crews clock in from the site app, not the back-office) and belongs to one worker only.
fn worker_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    let Some(uid) = dialect::after_id(old, doc, "userId").filter(|u| *u != 0) else { return Ok(()) };
    let user = w.get(&cx.def("user"), cx.tenant, uid)?.ok_or(StoreError::NotFound)?;
    let rdef = cx.def("role");
    let mut worker_role = false;
    for rid in crate::auth::session::id_list(user.get("roleId")) {
        if w.get(&rdef, cx.tenant, rid)?.is_some_and(|r| r.get("isWorker").and_then(Value::as_i64) == Some(1)) {
            worker_role = true;
        }
    }
    let account = user.get("account").and_then(Value::as_str).unwrap_or("").to_string();
    if !worker_role {
        return Err(rule(
            format!("登录账号「{account}」没有技术工人角色,不能关联工人"),
            format!("The account {account} has no technical-worker role; it cannot be linked to a worker"),
        ));
    }
    let me = old.and_then(|o| o.get("id")).and_then(Value::as_u64).unwrap_or(0);
    let q = Query { filters: vec![Filter::new("userId", Op::Equal, json!(uid))], limit: 2, ..Query::default() };
    if let Some(other) = w.list(&cx.def("worker"), cx.tenant, &q)?.records.into_iter().find(|r| r.get("id").and_then(Value::as_u64) != Some(me)) {
        let name = other.get("workerName").and_then(Value::as_str).unwrap_or("").to_string();
        return Err(rule(format!("登录账号「{account}」已关联工人「{name}」"), format!("The account {account} is already linked to the worker {name}")));
    }
    Ok(())
}

/// Contract: 0 draft → 1 signed (needs the signing date) → 2 executing → 3 completed, or 9 terminated from any
/// open state. Completed and terminated contracts are read-only; a signed one keeps its project while a
/// construct uses it.
fn contract_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    let to = after_i64(old, doc, "contractStatus").unwrap_or(0);
    in_table(CONTRACT_STATUS, to, "contractStatus")?;
    let from = match old {
        None => {
            if to > 1 {
                return Err(transition_refused(CONTRACT_STATUS, ("合同", "contract"), 0, to));
            }
            0
        }
        Some(o) => o.get("contractStatus").and_then(Value::as_i64).unwrap_or(0),
    };
    if old.is_some() && (from == 3 || from == 9) {
        return Err(rule("已完成或已终止的合同不能修改", "A completed or terminated contract cannot be changed"));
    }
    if to != from && !(to == from + 1 || to == 9) {
        return Err(transition_refused(CONTRACT_STATUS, ("合同", "contract"), from, to));
    }
    if to >= 1 && to != 9 && after(old, doc, "signDate").is_none_or(Value::is_null) {
        if to == 1 && from == 0 {
            doc.insert("signDate".into(), json!(&cx.now[..10]));
        } else {
            return Err(rule("请填写签订日期", "Enter the signing date"));
        }
    }
    if let Some(o) = old {
        let (was, now) = (o.get("projectId").and_then(Value::as_u64), after(Some(o), doc, "projectId").and_then(Value::as_u64));
        if was.is_some() && was != now && used_by_construct(w, cx, o)? {
            return Err(rule("合同已拆分施工单,不能更换项目", "Constructs use this contract; its project cannot change"));
        }
    }
    Ok(())
}

fn used_by_construct(w: &WriteCtx, cx: &Ctx, contract: &Map<String, Value>) -> store::Result<bool> {
    let id = contract.get("id").and_then(Value::as_u64).unwrap_or(0);
    let q = Query { filters: vec![Filter::new("contractId", Op::Equal, json!(id))], limit: 1, ..Query::default() };
    Ok(!w.list(&cx.def("construct"), cx.tenant, &q)?.records.is_empty())
}

/// Only drafts are removed; a signed contract is terminated instead (its history stays).
fn contract_remove(_w: &mut WriteCtx, _cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    let st = rec.get("contractStatus").and_then(Value::as_i64).unwrap_or(0);
    if st != 0 {
        return Err(rule("只能删除草稿合同,已签订的合同请终止", "Only draft contracts can be removed; terminate a signed one"));
    }
    Ok(())
}

/// Construct: starts at 1 to inspect; moves forward one step at a time: to 2 (to dispatch) once a manager is
/// assigned, to 3 (under construction) once a crew or day worker is bound — which also moves a signed contract to
/// executing —, to 4 (completed) once every progress node is done. Its contract belongs to its project and is
/// open. A completed construct is read-only.
fn construct_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    dates_in_order(old, doc, "planStart", "planEnd")?;
    let from = match old {
        None => {
            doc.insert("modelStatus".into(), json!(1));
            1
        }
        Some(o) => o.get("modelStatus").and_then(Value::as_i64).unwrap_or(1),
    };
    if from == 4 {
        return Err(rule("已完工的施工单不能修改", "A completed construct cannot be changed"));
    }
    let to = after_i64(old, doc, "modelStatus").unwrap_or(1);
    in_table(MODEL_STATUS, to, "modelStatus")?;
    if to != from && to != from + 1 {
        return Err(transition_refused(MODEL_STATUS, ("施工单", "construct"), from, to));
    }
    let project = after(old, doc, "projectId").and_then(Value::as_u64);
    let contract_id = after(old, doc, "contractId").and_then(Value::as_u64).unwrap_or(0);
    let cdef = cx.def("contract");
    let contract = w.get(&cdef, cx.tenant, contract_id)?.ok_or(StoreError::NotFound)?;
    if contract.get("projectId").and_then(Value::as_u64) != project {
        return Err(rule("所选合同不属于该项目,请先将合同绑定到项目", "The contract is not bound to this project; bind it first"));
    }
    let cst = contract.get("contractStatus").and_then(Value::as_i64).unwrap_or(0);
    if (old.is_none() || doc.contains_key("contractId")) && (cst == 3 || cst == 9) {
        return Err(rule("合同已完成或已终止,不能用于施工单", "The contract is completed or terminated"));
    }
    if old.is_some_and(|o| o.get("projectId") != doc.get("projectId") && doc.contains_key("projectId")) {
        return Err(rule("施工单不能更换所属项目", "A construct cannot move to another project"));
    }
    if to == from {
        return Ok(());
    }
    let id = old.and_then(|o| o.get("id")).and_then(Value::as_u64).unwrap_or(0);
    match to {
        2 if after(old, doc, "managerId").is_none_or(Value::is_null) => {
            return Err(rule("请先指定项目经理,再转为待派单", "Assign a manager before the construct goes to dispatch"));
        }
        3 => {
            let q = Query { filters: vec![Filter::new("constructId", Op::Equal, json!(id))], limit: 1, ..Query::default() };
            let crew = !w.list(&cx.def("construct_worker"), cx.tenant, &q)?.records.is_empty()
                || !w.list(&cx.def("day_worker"), cx.tenant, &q)?.records.is_empty();
            if !crew {
                return Err(rule("请先绑定施工班组或点工,再开始施工", "Bind a crew or day workers before construction starts"));
            }
            if cst < 1 {
                return Err(rule("合同尚未签订,不能开始施工", "The contract is not signed yet; construction cannot start"));
            }
            if cst == 1 {
                let mut patch = Map::new();
                patch.insert("contractStatus".into(), json!(2));
                dialect::write_in(w, cx, &cdef, crate::api::rules("contract"), Some(contract_id), patch)?;
            }
            // The node plan: one task per building and node, in the same commit as the start.
            let buildings = after(old, doc, "buildings").and_then(Value::as_str).unwrap_or("").to_string();
            progress::plan(w, cx, id, project.unwrap_or(0), &buildings, after(old, doc, "planEnd").and_then(Value::as_str))?;
        }
        4 => {
            let open = open_nodes(w, cx, id)?;
            if open > 0 {
                return Err(rule(format!("还有 {open} 个施工进度任务未完成,不能完工"), format!("{open} progress tasks are not done; the construct cannot be completed")));
            }
        }
        _ => {}
    }
    Ok(())
}

/// Progress tasks of a construct not at 100% yet.
fn open_nodes(w: &WriteCtx, cx: &Ctx, construct: u64) -> store::Result<u64> {
    let q = Query { filters: vec![Filter::new("constructId", Op::Equal, json!(construct)), Filter::new("percent", Op::Lt, json!(100))], limit: 1, ..Query::default() };
    Ok(w.list(&cx.def("speed_progress"), cx.tenant, &q)?.total)
}

/// The construct, when it is under construction (status 3); otherwise the rule `zh`/`en` refusing what was asked.
pub(super) fn under_construction(w: &WriteCtx, cx: &Ctx, construct: u64, zh: &str, en: &str) -> store::Result<Map<String, Value>> {
    let k = w.get(&cx.def("construct"), cx.tenant, construct)?.ok_or(StoreError::NotFound)?;
    if k.get("modelStatus").and_then(Value::as_i64) != Some(3) {
        return Err(rule(zh, en));
    }
    Ok(k)
}

/// The crew binding of a worker on a construct (`construct_worker.bindKey`), if there is one.
pub(super) fn crew_binding(w: &WriteCtx, tenant: &str, def: &store::ResourceDef, construct: u64, worker: u64) -> store::Result<Option<u64>> {
    w.find_unique(def, tenant, "bindKey", &format!("{construct}:{worker}"))
}

/// The maintained total (fen) of a construct's day work: its labour cost without reading every day's row. Day work
/// is only ever added (`day/worker/bind`, the demo) or removed with its construct.
pub fn daywork_counter(construct: u64) -> String {
    format!("$scm.daywork:{construct}")
}

/// A construct's day-work amount in fen, from the maintained total.
pub fn daywork_total(r: &store::ReadCtx, tenant: &str, construct: u64) -> store::Result<i64> {
    Ok(r.counter(tenant, &daywork_counter(construct))? as i64)
}

/// Writes one day's work as it is (amount included) and adds it to its construct's total: the demo's and the
/// generators' way in (`day/worker/bind` checks and prices it first, then does the same).
pub fn insert_day_work(w: &mut WriteCtx, res: &crate::decl::Resources, tenant: &str, doc: Map<String, Value>, actor: &store::Actor) -> store::Result<Map<String, Value>> {
    let saved = w.insert(&res.get("day_worker"), tenant, doc, actor)?;
    let (k, amount) = (crate::engine::rec::id(&saved, "constructId"), crate::engine::rec::int(&saved, "amount"));
    w.add_counter(tenant, &daywork_counter(k), amount)?;
    Ok(saved)
}

/// Sets every construct's day-work total of a tenant to what its rows sum to (a data file from before the totals).
pub fn rebuild_daywork_totals(w: &mut WriteCtx, res: &crate::decl::Resources, tenant: &str) -> store::Result<()> {
    let mut sums: std::collections::HashMap<u64, i64> = std::collections::HashMap::new();
    for d in w.all(&res.get("day_worker"), tenant)? {
        *sums.entry(crate::engine::rec::id(&d, "constructId")).or_default() += crate::engine::rec::int(&d, "amount");
    }
    for (k, want) in sums {
        let have = w.counter(tenant, &daywork_counter(k))? as i64;
        w.add_counter(tenant, &daywork_counter(k), want - have)?;
    }
    Ok(())
}

/// A construct under way or completed is not removed; one not started takes its crew and day work with it.
fn construct_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    if rec.get("modelStatus").and_then(Value::as_i64).unwrap_or(1) >= 3 {
        return Err(rule("施工中或已完工的施工单不能删除", "A construct under construction or completed cannot be removed"));
    }
    let id = rec.get("id").and_then(Value::as_u64).unwrap_or(0);
    for name in ["construct_worker", "day_worker", "measure"] {
        let def = cx.def(name);
        let q = Query { filters: vec![Filter::new("constructId", Op::Equal, json!(id))], limit: 10_000, ..Query::default() };
        let ids: Vec<u64> = w.list(&def, cx.tenant, &q)?.records.iter().filter_map(|r| r.get("id").and_then(Value::as_u64)).collect();
        if !ids.is_empty() {
            w.remove(&def, cx.tenant, &ids, cx.actor)?;
        }
    }
    let left = w.counter(cx.tenant, &daywork_counter(id))? as i64;
    w.add_counter(cx.tenant, &daywork_counter(id), -left)?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------
// Hand-written routes

/// POST project/contract/bind
async fn contract_bind(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let project = id_param(&p, &["projectId"])?;
    let ids = crud::parse_ids(p.get("contractIds").or_else(|| p.get("contractId")).or_else(|| p.get("ids")))?;
    let (pdef, cdef) = (st.res.get("project"), st.res.get("contract"));
    crud::get_scoped(&st, &s, &pdef, project).await?;
    let visible = crud::visible_ids(&st, &s, &cdef, &ids).await?;
    if visible.len() != ids.len() {
        return Err(ApiError::new(Kind::NotFound));
    }
    let env = Env::new(&st, &s);
    st.write(move |w| {
        let cx = env.cx();
        for id in &ids {
            let c = w.get(&cdef, cx.tenant, *id)?.ok_or(StoreError::NotFound)?;
            match c.get("projectId").and_then(Value::as_u64) {
                Some(p) if p == project => continue,
                Some(_) => {
                    let code = c.get("contractCode").and_then(Value::as_str).unwrap_or("");
                    return Err(rule(format!("合同 {code} 已绑定其他项目,请先解绑"), format!("Contract {code} is bound to another project; unbind it first")));
                }
                None => {}
            }
            let mut patch = Map::new();
            patch.insert("projectId".into(), json!(project));
            dialect::write_in(w, &cx, &cdef, crate::api::rules("contract"), Some(*id), patch)?;
        }
        Ok(())
    })
    .await?;
    Ok(ok(Value::Null))
}

/// POST project/contract/delete/{projectId}/{contractId}/{mode}
async fn contract_unbind(State(st): State<AppState>, s: Session, Path((project, contract, mode)): Path<(String, String, String)>) -> ApiResult<Response> {
    let project = crud::parse_id(Some(&project))?;
    let contract = crud::parse_id(Some(&contract))?;
    let remove = match mode.as_str() {
        "0" => false,
        "1" => true,
        other => return Err(ApiError::with(Kind::BadFormat, format!("mode={}", other.chars().take(10).collect::<String>()))),
    };
    let (pdef, cdef) = (st.res.get("project"), st.res.get("contract"));
    if remove {
        crud::check_write(&s, &cdef, "delete")?;
    }
    crud::get_scoped(&st, &s, &pdef, project).await?;
    let rec = crud::get_scoped(&st, &s, &cdef, contract).await?;
    if rec.get("projectId").and_then(Value::as_u64) != Some(project) {
        return Err(ApiError::new(Kind::NotFound));
    }
    let env = Env::new(&st, &s);
    st.write(move |w| {
        let cx = env.cx();
        let c = w.get(&cdef, cx.tenant, contract)?.ok_or(StoreError::NotFound)?;
        if c.get("projectId").and_then(Value::as_u64) != Some(project) {
            return Err(StoreError::NotFound);
        }
        if used_by_construct(w, &cx, &c)? {
            return Err(rule("合同已拆分施工单,不能解绑", "Constructs use this contract; it cannot be unbound"));
        }
        let mut patch = Map::new();
        patch.insert("projectId".into(), Value::Null);
        let saved = dialect::write_in(w, &cx, &cdef, crate::api::rules("contract"), Some(contract), patch)?;
        if remove {
            contract_remove(w, &cx, &saved)?;
            dialect::record_change(w, &cx, &cdef, Some(&saved), None)?;
            w.remove(&cdef, cx.tenant, &[contract], cx.actor)?;
        }
        Ok(())
    })
    .await?;
    Ok(ok(Value::Null))
}

/// POST project/unassigned/construct/contract/list/{projectId}/{constructId}
async fn unassigned_contracts(State(st): State<AppState>, s: Session, Path((project, construct)): Path<(String, String)>) -> ApiResult<Response> {
    let project = crud::parse_id(Some(&project))?;
    let construct = if construct == "0" { None } else { Some(crud::parse_id(Some(&construct))?) };
    crud::get_scoped(&st, &s, &st.res.get("project"), project).await?;
    let mut own = None;
    if let Some(k) = construct {
        let rec = crud::get_scoped(&st, &s, &st.res.get("construct"), k).await?;
        if rec.get("projectId").and_then(Value::as_u64) != Some(project) {
            return Err(ApiError::new(Kind::NotFound));
        }
        own = rec.get("contractId").and_then(Value::as_u64);
    }
    let (cdef, kdef, t) = (st.res.get("contract"), st.res.get("construct"), s.tenant.clone());
    let rows = st
        .read(move |r| {
            let q = Query { filters: vec![Filter::new("projectId", Op::Equal, json!(project))], limit: 1000, ..Query::default() };
            let mut out = Vec::new();
            for c in r.list(&cdef, &t, &q)?.records {
                let id = c.get("id").and_then(Value::as_u64).unwrap_or(0);
                let st = c.get("contractStatus").and_then(Value::as_i64).unwrap_or(0);
                let uq = Query { filters: vec![Filter::new("contractId", Op::Equal, json!(id))], limit: 1, ..Query::default() };
                let used = !r.list(&kdef, &t, &uq)?.records.is_empty();
                if Some(id) == own || (!used && st != 3 && st != 9) {
                    out.push(c);
                }
            }
            Ok(out)
        })
        .await?;
    Ok(ok(crud::wire_records(&st, &st.res.get("contract"), &s.tenant, rows).await?))
}

/// POST contract/unsigned/list/{projectId}
async fn unbound_contracts(State(st): State<AppState>, s: Session, Path(project): Path<String>, p: AnyParams) -> ApiResult<Response> {
    let project = crud::parse_id(Some(&project))?;
    crud::get_scoped(&st, &s, &st.res.get("project"), project).await?;
    let (current, size) = page_of(&p)?;
    let mut filters = vec![Filter::new("projectId", Op::Null, Value::Null), Filter::new("contractStatus", Op::Lt, json!(3))];
    if let Some(name) = p.get("contractName").filter(|v| !v.trim().is_empty()) {
        filters.push(Filter::new("contractName", Op::Contains, json!(name.trim())));
    }
    Ok(ok(scoped_page(&st, &s, "contract", filters, current, size).await?))
}

/// POST contract/ope/record/{id}
async fn ope_record(State(st): State<AppState>, s: Session, Path(id): Path<String>) -> ApiResult<Response> {
    let id = crud::parse_id(Some(&id))?;
    crud::get_scoped(&st, &s, &st.res.get("contract"), id).await?;
    let (def, res, t) = (st.res.get("op_record"), st.res.clone(), s.tenant.clone());
    let rows = st
        .read(move |r| {
            let q = Query {
                filters: vec![Filter::new("recordId", Op::Equal, json!(id)), Filter::new("resource", Op::Equal, json!("contract"))],
                limit: 1000,
                ..Query::default()
            };
            crate::engine::names::with_authors(r, &res, &t, r.list(&def, &t, &q)?.records)
        })
        .await?;
    let def = st.res.get("op_record");
    let out: Vec<Map<String, Value>> = rows
        .into_iter()
        .map(|(r, name)| {
            let mut w = crate::wire::record(&def, st.settings.zone, r);
            w.insert("operatorName".into(), json!(name));
            w
        })
        .collect();
    Ok(ok(out))
}

/// POST construct/assign/manager
async fn assign_manager(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let id = id_param(&p, &["id", "constructId"])?;
    let manager = id_param(&p, &["managerId", "userId"])?;
    let def = st.res.get("construct");
    crud::check_write(&s, &def, "edit")?;
    crud::get_scoped(&st, &s, &def, id).await?;
    let mut patch = Map::new();
    patch.insert("managerId".into(), json!(manager));
    let saved = dialect::write(&st, &s, &def, crate::api::rules("construct"), Some(id), patch).await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &def, saved).await?))
}

/// POST construct/worker/bind/{constructId}/{workerId}
async fn worker_bind(State(st): State<AppState>, s: Session, Path((construct, worker)): Path<(String, String)>) -> ApiResult<Response> {
    let (construct, worker) = (crud::parse_id(Some(&construct))?, crud::parse_id(Some(&worker))?);
    let (kdef, wdef, bdef) = (st.res.get("construct"), st.res.get("worker"), st.res.get("construct_worker"));
    crud::get_scoped(&st, &s, &kdef, construct).await?;
    crud::get_scoped(&st, &s, &wdef, worker).await?;
    let (t, actor) = (s.tenant.clone(), s.actor());
    let saved = st
        .write(move |w| {
            let k = w.get(&kdef, &t, construct)?.ok_or(StoreError::NotFound)?;
            if k.get("modelStatus").and_then(Value::as_i64) == Some(4) {
                return Err(rule("已完工的施工单不能再绑定工人", "A completed construct takes no more workers"));
            }
            w.get(&wdef, &t, worker)?.ok_or(StoreError::NotFound)?;
            let key = format!("{construct}:{worker}");
            if w.find_unique(&bdef, &t, "bindKey", &key)?.is_some() {
                return Err(rule("该工人已在此施工单的班组中", "The worker is already on this construct's crew"));
            }
            let mut doc = Map::new();
            doc.insert("constructId".into(), json!(construct));
            doc.insert("workerId".into(), json!(worker));
            doc.insert("bindKey".into(), json!(key));
            doc.insert("leader".into(), json!(0));
            w.insert(&bdef, &t, doc, &actor)
        })
        .await?;
    let def = st.res.get("construct_worker");
    Ok(ok(crud::decorated(&st, &s.tenant, &def, saved).await?))
}

/// POST construct/worker/unbind/{constructId}/{workerId}
async fn worker_unbind(State(st): State<AppState>, s: Session, Path((construct, worker)): Path<(String, String)>) -> ApiResult<Response> {
    let (construct, worker) = (crud::parse_id(Some(&construct))?, crud::parse_id(Some(&worker))?);
    let (kdef, bdef) = (st.res.get("construct"), st.res.get("construct_worker"));
    crud::get_scoped(&st, &s, &kdef, construct).await?;
    let (t, actor) = (s.tenant.clone(), s.actor());
    st.write(move |w| {
        let id = crew_binding(w, &t, &bdef, construct, worker)?.ok_or(StoreError::NotFound)?;
        let k = w.get(&kdef, &t, construct)?.ok_or(StoreError::NotFound)?;
        if k.get("modelStatus").and_then(Value::as_i64) == Some(3) {
            let q = Query { filters: vec![Filter::new("constructId", Op::Equal, json!(construct))], limit: 2, ..Query::default() };
            if w.list(&bdef, &t, &q)?.total <= 1 {
                return Err(rule("施工中的施工单至少保留一名工人", "A construct under construction keeps at least one worker"));
            }
        }
        w.remove(&bdef, &t, &[id], &actor)
    })
    .await?;
    Ok(ok(Value::Null))
}

/// POST construct/worker/list: the crew with each worker's name, phone, trade and level.
async fn worker_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let construct = id_param(&p, &["constructId", "id"])?;
    crud::get_scoped(&st, &s, &st.res.get("construct"), construct).await?;
    let (current, size) = page_of(&p)?;
    Ok(ok(crew(&st, &s, construct, current, size).await?))
}

/// A page of the construct's crew (the construct already checked as visible).
async fn crew(st: &AppState, s: &Session, construct: u64, current: u64, size: u64) -> ApiResult<Value> {
    let mut page = scoped_page(st, s, "construct_worker", vec![Filter::new("constructId", Op::Equal, json!(construct))], current, size).await?;
    let wdef = st.res.get("worker");
    let ids: Vec<u64> = page["records"].as_array().into_iter().flatten().filter_map(|r| r["workerId"].as_str().and_then(|v| v.parse().ok())).collect();
    let t = s.tenant.clone();
    let d = wdef.clone();
    let workers = st.read(move |r| ids.iter().map(|id| r.get(&d, &t, *id)).collect::<store::Result<Vec<_>>>()).await?;
    let workers = crud::wire_records(st, &wdef, &s.tenant, workers.into_iter().flatten().collect()).await?;
    if let Some(rows) = page["records"].as_array_mut() {
        for row in rows {
            if let Some(wire) = workers.iter().find(|w| w.get("id") == Some(&row["workerId"])) {
                for k in ["workerName", "phone", "teamName", "workerJobName", "workerJobLevelName"] {
                    row[k] = wire.get(k).cloned().unwrap_or(Value::Null);
                }
            }
        }
    }
    Ok(page)
}

/// POST construct/day/worker/bind
async fn day_worker_bind(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let construct = id_param(&p, &["constructId"])?;
    let worker = id_param(&p, &["workerId"])?;
    let (kdef, wdef, ldef, ddef) = (st.res.get("construct"), st.res.get("worker"), st.res.get("worker_job_level"), st.res.get("day_worker"));
    crud::get_scoped(&st, &s, &kdef, construct).await?;
    crud::get_scoped(&st, &s, &wdef, worker).await?;
    let mut body = Map::new();
    for k in ["workDate", "workDays", "dayRate", "workContent"] {
        if let Some(v) = p.get(k) {
            body.insert(k.into(), json!(v));
        }
    }
    body.insert("constructId".into(), json!(construct.to_string()));
    body.insert("workerId".into(), json!(worker.to_string()));
    // Without a rate the worker's level gives it (filled in inside the write, from what is stored then).
    let from_level = body.get("dayRate").is_none_or(|v| v.as_str() == Some(""));
    if from_level {
        body.insert("dayRate".into(), json!("0"));
    }
    let mut doc = ddef.parse_input(&body, true)?;
    let env = Env::new(&st, &s);
    let saved = st
        .write(move |w| {
            let cx = env.cx();
            let t = cx.tenant;
            let k = w.get(&kdef, t, construct)?.ok_or(StoreError::NotFound)?;
            if k.get("modelStatus").and_then(Value::as_i64) == Some(4) {
                return Err(rule("已完工的施工单不能再登记点工", "A completed construct takes no more day work"));
            }
            let wk = w.get(&wdef, t, worker)?.ok_or(StoreError::NotFound)?;
            if from_level {
                let level = wk.get("workerJobLevelId").and_then(Value::as_u64).unwrap_or(0);
                let rate = w.get(&ldef, t, level)?.and_then(|l| l.get("dayRate").and_then(Value::as_i64));
                let Some(rate) = rate else {
                    return Err(rule("该工人未设置等级工价,请填写日工价", "The worker's level has no day rate; enter one"));
                };
                doc.insert("dayRate".into(), json!(rate));
            }
            let date = doc.get("workDate").and_then(Value::as_str).unwrap_or("").chars().take(10).collect::<String>();
            let q = Query {
                filters: vec![Filter::new("workerId", Op::Equal, json!(worker)), Filter::new("workDate", Op::StartsWith, json!(date))],
                limit: 10,
                ..Query::default()
            };
            if w.list(&ddef, t, &q)?.records.iter().any(|r| r.get("constructId").and_then(Value::as_u64) != Some(construct)) {
                let name = wk.get("workerName").and_then(Value::as_str).unwrap_or("");
                return Err(rule(format!("{name} 在 {date} 已在其他施工单登记点工"), format!("{name} already has day work on another construct on {date}")));
            }
            let days = doc.get("workDays").and_then(Value::as_i64).unwrap_or(0);
            let rate = doc.get("dayRate").and_then(Value::as_i64).unwrap_or(0);
            // days are hundredths of a day, the rate fen per day: amount in fen, rounded half up.
            let amount = (days as i128 * rate as i128 + 50) / 100;
            doc.insert("amount".into(), json!(amount as i64));
            let saved = dialect::write_in(w, &cx, &ddef, Rules::default(), None, doc.clone())?;
            w.add_counter(t, &daywork_counter(construct), amount as i64)?;
            Ok(saved)
        })
        .await?;
    let def = st.res.get("day_worker");
    Ok(ok(crud::decorated(&st, &s.tenant, &def, saved).await?))
}

/// POST construct/day/worker/list: per worker, the days and the amount on this construct.
async fn day_worker_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let construct = id_param(&p, &["constructId", "id"])?;
    crud::get_scoped(&st, &s, &st.res.get("construct"), construct).await?;
    Ok(ok(day_work(&st, &s, construct).await?))
}

/// Day work on the construct summed per worker (the construct already checked as visible).
async fn day_work(st: &AppState, s: &Session, construct: u64) -> ApiResult<Value> {
    let (ddef, wdef, t) = (st.res.get("day_worker"), st.res.get("worker"), s.tenant.clone());
    let rows = st
        .read(move |r| {
            let q = Query { filters: vec![Filter::new("constructId", Op::Equal, json!(construct))], limit: 100_000, ..Query::default() };
            let mut by: std::collections::BTreeMap<u64, (i64, i64, u64)> = Default::default();
            for rec in r.list(&ddef, &t, &q)?.records {
                let e = by.entry(rec.get("workerId").and_then(Value::as_u64).unwrap_or(0)).or_default();
                e.0 += rec.get("workDays").and_then(Value::as_i64).unwrap_or(0);
                e.1 += rec.get("amount").and_then(Value::as_i64).unwrap_or(0);
                e.2 += 1;
            }
            let mut out = Vec::new();
            for (wid, (days, amount, n)) in by {
                let name = r.get(&wdef, &t, wid)?.and_then(|w| w.get("workerName").and_then(Value::as_str).map(str::to_string)).unwrap_or_default();
                out.push(json!({"workerId": wid.to_string(), "workerName": name, "workDays": store::format_money(days), "amount": store::format_money(amount), "records": n}));
            }
            Ok(out)
        })
        .await?;
    Ok(Value::Array(rows))
}

/// The first screen of 施工单 `/construct/info/{constructCode}` (server-rendered): the construct as its detail
/// route answers it, its crew, its day work per worker and its measures — the same functions as those routes,
/// under the same permission and data-scope checks. `None` when the user may not read constructs.
pub async fn construct_page(st: &AppState, s: &Session, code: &str) -> ApiResult<Option<Value>> {
    if s.require("construct").is_err() {
        return Ok(None);
    }
    let def = st.res.get("construct");
    let (d, t, c) = (def.clone(), s.tenant.clone(), code.to_string());
    let id = st.read(move |r| r.find_unique(&d, &t, "constructCode", &c)).await?;
    let rec = match id {
        Some(id) => match crud::get_scoped(st, s, &def, id).await {
            Ok(rec) => Some(rec),
            Err(e) if e.kind == Kind::NotFound => None,
            Err(e) => return Err(e),
        },
        None => None,
    };
    let Some(rec) = rec else { return Ok(Some(json!({"kind": "construct", "code": code, "construct": null}))) };
    let id = rec.get("id").and_then(Value::as_u64).unwrap_or(0);
    let construct = crud::decorated(st, &s.tenant, &def, rec).await?;
    let crew = crew(st, s, id, 1, 100).await?;
    let day = day_work(st, s, id).await?;
    let measures = if s.require("measure").is_ok() {
        scoped_page(st, s, "measure", vec![Filter::new("constructId", Op::Equal, json!(id))], 1, 20).await?
    } else {
        Value::Null
    };
    Ok(Some(json!({"kind": "construct", "code": code, "construct": construct, "crew": crew, "dayWork": day, "measures": measures})))
}

/// POST construct/day/worker/detail/list
async fn day_worker_detail(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let construct = id_param(&p, &["constructId", "id"])?;
    crud::get_scoped(&st, &s, &st.res.get("construct"), construct).await?;
    let (current, size) = page_of(&p)?;
    let mut filters = vec![Filter::new("constructId", Op::Equal, json!(construct))];
    if let Some(w) = p.get("workerId").filter(|v| !v.is_empty()) {
        filters.push(Filter::new("workerId", Op::Equal, json!(crud::parse_id(Some(w))?)));
    }
    Ok(ok(scoped_page(&st, &s, "day_worker", filters, current, size).await?))
}

/// GET customer/type
async fn customer_types(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    s.require("customer")?;
    Ok(ok(crate::engine::dict::entries(&st, "customer_type").await?))
}

/// 业务管理: projects, contracts, constructs and crews, the site (buildings, measures, progress, attendance,
/// rectifications), the catalogue, companies, customers, post-mortems; an interrupted building import is finished
/// before serving.
pub const AREA: crate::api::Area = crate::api::Area {
    rules,
    demo: Some(demo::demo),
    start: Some(building::recover_before_serving),
    ..crate::api::Area::routes_only("scm", routes)
};
