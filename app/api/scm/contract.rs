//! 合同管理: contracts (0 draft → 1 signed → 2 executing → 3 completed, 9 terminated), those bound to no
//! project, and each contract's change record. A signed contract's ledger is the finance area's follow-up.
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, WriteCtx};

use super::{in_table, page_of, scoped_page, transition_refused};
use crate::auth::session::Session;
use crate::engine::crud;
use crate::engine::dialect::{Ctx, after, after_i64};
use crate::engine::{Api, Guard};
use crate::error::{ApiResult, rule};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

pub(super) const CONTRACT_STATUS: &[(i64, &str, &str)] = &[(0, "草稿", "draft"), (1, "已签订", "signed"), (2, "执行中", "executing"), (3, "已完成", "completed"), (9, "已终止", "terminated")];

pub(super) fn routes(api: Api) -> Api {
    let contract = api.def("contract");
    let c = "/api/blade-scm/contract";
    api.post(format!("{c}/unsigned/list/{{projectId}}"), Guard::read(&contract), unbound_contracts)
        .reads()
        .doc("合同管理 · contracts bound to no project yet (candidates to bind to project {projectId}); body page, size, contractName", &[("projectId", "the project they would be bound to (must exist)")])
        .post(format!("{c}/ope/record/{{id}}"), Guard::read(&contract), ope_record)
        .reads()
        .doc("合同管理 · every change of the contract: who, when, action and each field before and after, newest first", &[("id", "the contract")])
        .post_upload(format!("{c}/file/upload"), Guard::write(&contract, &["edit"]), file_upload)
        .doc("合同管理 · attaches a file to a contract not yet completed or terminated (multipart file; query contractId): downloaded by whoever may see the contract", &[])
        .get(format!("{c}/files"), Guard::read(&contract), files)
        .doc("合同管理 · a contract's files (query contractId): name, size, link, when and by whom", &[])
        .post(format!("{c}/file/remove"), Guard::write(&contract, &["edit"]), file_remove)
        .doc("合同管理 · removes one of an open contract's files (query id: the file)", &[])
}

/// The contract `id` of the caller's scope that may still take or lose files (not completed, not terminated).
async fn open_contract(st: &AppState, s: &Session, id: u64) -> ApiResult<Map<String, Value>> {
    let c = crud::get_scoped(st, s, &st.res.get("contract"), id).await?;
    if matches!(c.get("contractStatus").and_then(Value::as_i64), Some(3) | Some(9)) {
        return Err(crate::error::ApiError::rule("已完成或已终止的合同不能修改附件", "A completed or terminated contract's files cannot change"));
    }
    Ok(c)
}

/// POST contract/file/upload?contractId= (or id=; multipart `file`)
async fn file_upload(State(st): State<AppState>, s: Session, crate::http::QueryPairs(q): crate::http::QueryPairs, req: axum::extract::Request) -> ApiResult<Response> {
    let id = crud::parse_id(q.iter().rev().find(|(k, _)| k == "contractId").or_else(|| q.iter().rev().find(|(k, _)| k == "id")).map(|(_, v)| v.as_str()))?;
    open_contract(&st, &s, id).await?;
    let mp = <axum::extract::Multipart as axum::extract::FromRequest<AppState>>::from_request(req, &st).await.map_err(|_| crate::error::ApiError::with(crate::error::Kind::BadFormat, "multipart"))?;
    let up = crate::engine::uploads::read_upload(&st, &s, mp, crate::engine::uploads::MAX_FILE).await?;
    let (saved, _) = crate::engine::uploads::store_upload_with(&st, &s, up, "contract", &[], move |_, _| Ok(Some((format!("contract:{id}"), ())))).await?;
    Ok(ok(crate::wire::record(&st.res.get("attach"), st.settings.zone, saved)))
}

/// GET contract/files?contractId=
async fn files(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let id = crate::engine::params::id_param(&p, &["contractId", "id"])?;
    crud::get_scoped(&st, &s, &st.res.get("contract"), id).await?;
    let (def, res, t) = (st.res.get("attach"), st.res.clone(), s.tenant.clone());
    let rows = st
        .read(move |r| {
            let q = Query { filters: vec![Filter::new("boundTo", Op::Equal, json!(format!("contract:{id}")))], limit: 500, ..Query::default() };
            crate::engine::names::with_authors(r, &res, &t, r.list(&def, &t, &q)?.records)
        })
        .await?;
    let def = st.res.get("attach");
    let out: Vec<Map<String, Value>> = rows
        .into_iter()
        .map(|(r, name)| {
            let mut w = crate::wire::record(&def, st.settings.zone, r);
            w.insert("uploaderName".into(), json!(name));
            w
        })
        .collect();
    Ok(ok(out))
}

/// POST contract/file/remove?id= (the attachment)
async fn file_remove(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let fid = crud::parse_id(p.get("id"))?;
    let (def, t) = (st.res.get("attach"), s.tenant.clone());
    let rec = st.read(move |r| r.get(&def, &t, fid)).await?.ok_or_else(|| crate::error::ApiError::new(crate::error::Kind::NotFound))?;
    let cid = rec.get("boundTo").and_then(Value::as_str).and_then(|b| b.strip_prefix("contract:")).and_then(|i| i.parse::<u64>().ok()).ok_or_else(|| crate::error::ApiError::new(crate::error::Kind::NotFound))?;
    open_contract(&st, &s, cid).await?;
    let (def, t, actor) = (st.res.get("attach"), s.tenant.clone(), s.actor());
    st.write(move |w| {
        let bytes = w.delete_file(&t, fid)?;
        w.add_counter(&t, crate::engine::uploads::QUOTA_COUNTER, -(bytes as i64))?;
        w.remove(&def, &t, &[fid], &actor).map(|_| ())
    })
    .await?;
    Ok(ok(Value::Null))
}

/// Contract: 0 draft → 1 signed (needs the signing date) → 2 executing → 3 completed, or 9 terminated from any
/// open state. Completed and terminated contracts are read-only; a signed one keeps its project while a
/// construct uses it.
pub(super) fn contract_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
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

pub(super) fn used_by_construct(w: &WriteCtx, cx: &Ctx, contract: &Map<String, Value>) -> store::Result<bool> {
    let id = contract.get("id").and_then(Value::as_u64).unwrap_or(0);
    let q = Query { filters: vec![Filter::new("contractId", Op::Equal, json!(id))], limit: 1, ..Query::default() };
    Ok(!w.list(&cx.def("construct"), cx.tenant, &q)?.records.is_empty())
}

/// Only drafts are removed; a signed contract is terminated instead (its history stays).
pub(super) fn contract_remove(_w: &mut WriteCtx, _cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    let st = rec.get("contractStatus").and_then(Value::as_i64).unwrap_or(0);
    if st != 0 {
        return Err(rule("只能删除草稿合同,已签订的合同请终止", "Only draft contracts can be removed; terminate a signed one"));
    }
    Ok(())
}

/// POST contract/unsigned/list/{projectId}
pub(super) async fn unbound_contracts(State(st): State<AppState>, s: Session, Path(project): Path<String>, p: AnyParams) -> ApiResult<Response> {
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
pub(super) async fn ope_record(State(st): State<AppState>, s: Session, Path(id): Path<String>) -> ApiResult<Response> {
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
