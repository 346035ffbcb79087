//! 项目管理: projects (status 1 preparing → 2 in progress → 3 completed, 4 closed) and binding contracts to them.
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, StoreError, WriteCtx};

use super::{dates_in_order, id_param, in_table, transition_refused};
use super::contract::{contract_remove, used_by_construct};
use crate::auth::session::Session;
use crate::engine::crud;
use crate::engine::dialect::{self, Ctx, Env, after_i64};
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind, rule};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

pub(super) const PROJECT_STATUS: &[(i64, &str, &str)] = &[(1, "筹备中", "preparing"), (2, "进行中", "in progress"), (3, "已竣工", "completed"), (4, "已关闭", "closed")];

pub(super) fn routes(api: Api) -> Api {
    let project = api.def("project");
    let p = "/api/blade-scm/project";
    api.post(format!("{p}/contract/bind"), Guard::write(&project, &["edit"]), contract_bind)
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
}

/// Project: 1 preparing → 2 in progress → 3 completed; 4 closed from 1 or 2. Completed or closed projects are
/// read-only. The end is not before the start; the region is a known code.
pub(super) fn project_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    dates_in_order(old, doc, "startTime", "endTime")?;
    // 所在地区 is a code of the region table (the picker's), never a number made up.
    if let Some(code) = doc.get("regionCode").and_then(Value::as_str).filter(|c| !c.is_empty())
        && w.find_unique(&cx.def("region"), store::PLATFORM_TENANT, "code", code)?.is_none() {
        return Err(rule(format!("所在地区代码 {code} 不存在,请从地区选择中选取"), format!("Region code {code} does not exist: pick one from the region picker")));
    }
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

/// POST project/contract/bind
pub(super) async fn contract_bind(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
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
pub(super) async fn contract_unbind(State(st): State<AppState>, s: Session, Path((project, contract, mode)): Path<(String, String, String)>) -> ApiResult<Response> {
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
pub(super) async fn unassigned_contracts(State(st): State<AppState>, s: Session, Path((project, construct)): Path<(String, String)>) -> ApiResult<Response> {
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
