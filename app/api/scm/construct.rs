//! 施工管理: constructs (1 to inspect → 2 to dispatch → 3 under construction → 4 completed) with their
//! preconditions, the manager, and the first screen of 施工单.
use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, StoreError, WriteCtx};

use super::{dates_in_order, id_param, in_table, progress, scoped_page, transition_refused};
use super::crew::{crew, day_work, daywork_counter};
use crate::auth::session::Session;
use crate::engine::crud;
use crate::engine::dialect::{self, Ctx, after, after_i64};
use crate::engine::{Api, Guard};
use crate::error::{ApiResult, Kind, rule};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

pub(super) const MODEL_STATUS: &[(i64, &str, &str)] = &[(1, "待勘察", "to inspect"), (2, "待派单", "to dispatch"), (3, "施工中", "under construction"), (4, "已完工", "completed")];

pub(super) fn routes(api: Api) -> Api {
    let construct = api.def("construct");
    let k = "/api/blade-scm/construct";
    api.post(format!("{k}/assign/manager"), Guard::write(&construct, &["edit"]), assign_manager)
        .doc("施工管理 · assign the construct's manager (body: id or constructId, managerId: a user of the tenant)", &[])
}

/// Construct: starts at 1 to inspect; moves forward one step at a time: to 2 (to dispatch) once a manager is
/// assigned, to 3 (under construction) once a crew or day worker is bound — which also moves a signed contract to
/// executing —, to 4 (completed) once every progress node is done. Its contract belongs to its project and is
/// open. A completed construct is read-only.
pub(super) fn construct_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
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
    // A new construct is its project's manager's unless the form names another (the PM tour: a 施工单 started
    // without 项目经理 though its project had one, so it could not go on to dispatch).
    if old.is_none() && doc.get("managerId").is_none_or(Value::is_null)
        && let Some(p) = project
        && let Some(m) = w.get(&cx.def("project"), cx.tenant, p)?.and_then(|r| r.get("managerId").cloned()).filter(|m| !m.is_null()) {
        doc.insert("managerId".into(), m);
    }
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
            // The crew organisation approval (人工组织审批) gates the start: under way or refused, it cannot
            // start; never applied for, it cannot either where the company has approvers for it.
            match after(old, doc, "approvalStatus").and_then(Value::as_i64) {
                Some(1) => {}
                Some(0) => return Err(rule("人工组织审批尚在审批中,通过后才能开始施工", "The crew organisation approval is still pending; construction starts once it is passed")),
                Some(_) => return Err(rule("人工组织审批未通过,请修改后重新提交审批", "The crew organisation approval was refused; change the crew and apply again")),
                None => {
                    let q = Query { filters: vec![Filter::new("applyType", Op::Equal, json!(2))], limit: 1, ..Query::default() };
                    if !w.list(&cx.def("approval_user"), cx.tenant, &q)?.records.is_empty() {
                        return Err(rule("请先提交人工组织审批,审批通过后才能开始施工", "Apply for the crew organisation approval first; construction starts once it is passed"));
                    }
                }
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
pub(super) fn open_nodes(w: &WriteCtx, cx: &Ctx, construct: u64) -> store::Result<u64> {
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

/// A construct under way or completed is not removed; one not started takes its crew and day work with it.
pub(super) fn construct_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
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

/// POST construct/assign/manager
pub(super) async fn assign_manager(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
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
