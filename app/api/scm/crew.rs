//! 施工人员: workers and a construct's crew and day work 点工 (days × rate, with each construct's maintained
//! day-work total, which project cost reads).
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, StoreError, WriteCtx};

use super::{id_param, page_of, scoped_page};
use crate::auth::session::Session;
use crate::engine::crud;
use crate::engine::dialect::{self, Ctx, Env, Rules};
use crate::engine::{Api, Guard};
use crate::error::{ApiResult, rule};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

pub(super) fn routes(api: Api) -> Api {
    let construct = api.def("construct");
    let k = "/api/blade-scm/construct";
    api.post(format!("{k}/worker/bind/{{constructId}}/{{workerId}}"), Guard::write(&construct, &["edit"]), worker_bind)
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
        .post(format!("{k}/day/worker/remove"), Guard::write(&construct, &["edit"]), day_worker_remove)
        .doc("施工管理 · remove a day work record entered by mistake (body: id), while its construct is not completed; its amount leaves the construct's 点工 total", &[])
}

/// Worker: a linked sign-in account must hold a technical-worker role (so the sign-in refusal of SPEC §6 holds
/// for it: crews clock in from the site app, not the back-office) and belongs to one worker only.
pub(super) fn worker_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
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

/// The crew organisation approval (人工组织审批) is of the crew as it was applied for. Before construction starts,
/// the crew cannot change while its approval is under way (the approvers are deciding on it: withdraw first), and
/// a change after it passed takes the approval back to "not applied" in the same commit, so 开始施工 asks for a
/// new one (an approved crew could be swapped and started unapproved). Under construction the crew changes as the
/// work needs.
fn crew_changes(w: &mut WriteCtx, kdef: &store::ResourceDef, tenant: &str, construct: u64, k: &Map<String, Value>, actor: &store::Actor) -> store::Result<()> {
    if k.get("modelStatus").and_then(Value::as_i64).unwrap_or(1) >= 3 {
        return Ok(());
    }
    match k.get("approvalStatus").and_then(Value::as_i64) {
        Some(0) => Err(rule("人工组织审批中,不能更换班组:请等审批结束,或先撤回申请", "The crew organisation approval is under way: the crew cannot change until it ends or is withdrawn")),
        Some(1) => {
            let mut patch = Map::new();
            patch.insert("approvalStatus".into(), Value::Null);
            w.update(kdef, tenant, construct, patch, actor)?;
            Ok(())
        }
        _ => Ok(()),
    }
}

/// POST construct/worker/bind/{constructId}/{workerId}
pub(super) async fn worker_bind(State(st): State<AppState>, s: Session, Path((construct, worker)): Path<(String, String)>) -> ApiResult<Response> {
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
            crew_changes(w, &kdef, &t, construct, &k, &actor)?;
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
pub(super) async fn worker_unbind(State(st): State<AppState>, s: Session, Path((construct, worker)): Path<(String, String)>) -> ApiResult<Response> {
    let (construct, worker) = (crud::parse_id(Some(&construct))?, crud::parse_id(Some(&worker))?);
    let (kdef, bdef) = (st.res.get("construct"), st.res.get("construct_worker"));
    crud::get_scoped(&st, &s, &kdef, construct).await?;
    let (t, actor) = (s.tenant.clone(), s.actor());
    st.write(move |w| {
        let id = crew_binding(w, &t, &bdef, construct, worker)?.ok_or(StoreError::NotFound)?;
        let k = w.get(&kdef, &t, construct)?.ok_or(StoreError::NotFound)?;
        crew_changes(w, &kdef, &t, construct, &k, &actor)?;
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
pub(super) async fn worker_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let construct = id_param(&p, &["constructId", "id"])?;
    crud::get_scoped(&st, &s, &st.res.get("construct"), construct).await?;
    let (current, size) = page_of(&p)?;
    Ok(ok(crew(&st, &s, construct, current, size).await?))
}

/// A page of the construct's crew (the construct already checked as visible).
pub(super) async fn crew(st: &AppState, s: &Session, construct: u64, current: u64, size: u64) -> ApiResult<Value> {
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
pub(super) async fn day_worker_bind(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
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

/// POST construct/day/worker/remove {id}: a day work record entered by mistake (a wrong day, rate or worker) goes,
/// and its amount with it from the construct's total, in one write; not once the construct is completed (its cost
/// is settled).
pub(super) async fn day_worker_remove(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let id = id_param(&p, &["id"])?;
    let (ddef, kdef) = (st.res.get("day_worker"), st.res.get("construct"));
    let rec = crud::get_scoped(&st, &s, &ddef, id).await?;
    let construct = rec.get("constructId").and_then(Value::as_u64).unwrap_or(0);
    crud::get_scoped(&st, &s, &kdef, construct).await?;
    let env = Env::new(&st, &s);
    st.write(move |w| {
        let cx = env.cx();
        let t = cx.tenant;
        let rec = w.get(&ddef, t, id)?.ok_or(StoreError::NotFound)?;
        let k = w.get(&kdef, t, construct)?.ok_or(StoreError::NotFound)?;
        if k.get("modelStatus").and_then(Value::as_i64) == Some(4) {
            return Err(rule("已完工的施工单的点工不能删除", "Day work of a completed construct cannot be removed"));
        }
        w.remove(&ddef, t, &[id], cx.actor)?;
        dialect::record_change(w, &cx, &ddef, Some(&rec), None)?;
        w.add_counter(t, &daywork_counter(construct), -rec.get("amount").and_then(Value::as_i64).unwrap_or(0))?;
        Ok(())
    })
    .await?;
    Ok(ok(json!({"removed": 1})))
}

/// POST construct/day/worker/list: per worker, the days and the amount on this construct.
pub(super) async fn day_worker_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let construct = id_param(&p, &["constructId", "id"])?;
    crud::get_scoped(&st, &s, &st.res.get("construct"), construct).await?;
    Ok(ok(day_work(&st, &s, construct).await?))
}

/// Day work on the construct summed per worker (the construct already checked as visible).
pub(super) async fn day_work(st: &AppState, s: &Session, construct: u64) -> ApiResult<Value> {
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

/// POST construct/day/worker/detail/list
pub(super) async fn day_worker_detail(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let construct = id_param(&p, &["constructId", "id"])?;
    crud::get_scoped(&st, &s, &st.res.get("construct"), construct).await?;
    let (current, size) = page_of(&p)?;
    let mut filters = vec![Filter::new("constructId", Op::Equal, json!(construct))];
    if let Some(w) = p.get("workerId").filter(|v| !v.is_empty()) {
        filters.push(Filter::new("workerId", Op::Equal, json!(crud::parse_id(Some(w))?)));
    }
    Ok(ok(scoped_page(&st, &s, "day_worker", filters, current, size).await?))
}
