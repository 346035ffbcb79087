//! 施工进度 (`/api/blade-scm/speed/progress/...`): when a construct starts (status 3) its node plan is made in the
//! same commit — one task per building it covers and per node of the `progress_node` dictionary (水电 → 泥瓦 →
//! 木作 → 油漆 → 安装) —; crews report each task's percent (`worker/task/data/{constructId}/{taskId}`), every
//! report kept with who, when, before and after (`history/data/{taskId}`). A building's node starts only once
//! the node before it is done there, and a done node is not reopened once the next one has started. The
//! construct completes only when every task is at 100% (`construct` rules). Statistics are per node and
//! building (`statistics/data/{constructId}`) and in total (`total/data/{constructId}`).
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, StoreError, WriteCtx};

use super::{id_param, page_of, scoped_page};
use crate::auth::session::Session;
use crate::engine::dialect::Ctx;
use crate::engine::{Api, Guard, crud};
use crate::error::{ApiError, ApiResult, Kind, rule};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

pub fn routes(api: Api) -> Api {
    let p = "/api/blade-scm/speed/progress";
    let (tasks, construct) = (api.def("speed_progress"), api.def("construct"));
    api.post(format!("{p}/building/task/list"), Guard::read(&tasks), building_tasks)
        .reads()
        .doc("施工进度 · a construct's tasks by building: each building's nodes with percent, worker and dates (body: constructId, buildingName optional)", &[])
        .post(format!("{p}/worker/task/list"), Guard::read(&tasks), worker_tasks)
        .reads()
        .doc("施工进度 · the tasks a worker is responsible for (body: workerId, constructId optional, page, size)", &[])
        .post(format!("{p}/worker/task/data/{{constructId}}/{{taskId}}"), Guard::write(&construct, &["edit"]), report)
        .doc(
            "施工进度 · report a task's progress (body: percent 0–100, remark); refused unless the construct is under construction and the building's previous node is done",
            &[("constructId", "the construct"), ("taskId", "a progress task of that construct (else 404)")],
        )
        .post(format!("{p}/data/{{id}}"), Guard::read(&tasks), task_data)
        .reads()
        .doc("施工进度 · one task with its construct, node and the number of reports", &[("id", "the progress task")])
        .post(format!("{p}/history/data/{{id}}"), Guard::read(&tasks), history)
        .reads()
        .doc("施工进度 · every report of a task, newest first: who, when, before, after, remark", &[("id", "the progress task")])
        .post(format!("{p}/statistics/data/{{id}}"), Guard::read(&tasks), statistics)
        .reads()
        .doc("施工进度 · percent per node and per building, and the building × node matrix", &[("id", "the construct")])
        .post(format!("{p}/total/data/{{id}}"), Guard::read(&tasks), total)
        .reads()
        .doc("施工进度 · a construct's progress in total: percent, tasks and nodes done, the current node, overdue tasks, last report", &[("id", "the construct")])
}

/// The building names a construct lists (`1#,2#`, `1栋、2栋`), each once, in order.
pub fn split_buildings(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for b in s.split([',', '，', '、', ';', '；', ' ']).map(str::trim).filter(|b| !b.is_empty()) {
        if !out.iter().any(|o| o == b) {
            out.push(b.chars().take(32).collect());
        }
    }
    out
}

/// The nodes of the `progress_node` dictionary in order: (key, name).
fn nodes_in(w: &WriteCtx, cx: &Ctx) -> store::Result<Vec<(i64, String)>> {
    let dict = cx.def("dict");
    let q = Query { filters: vec![Filter::new("code", Op::Equal, json!("progress_node"))], limit: 1000, ..Query::default() };
    let mut rows: Vec<(i64, i64, String)> = w
        .list(&dict, store::PLATFORM_TENANT, &q)?
        .records
        .iter()
        .filter(|d| d.get("parentId").and_then(store::parse_id_value).unwrap_or(0) != 0)
        .filter_map(|d| {
            let key = d.get("dictKey").and_then(|k| k.as_str().map(str::to_string).or_else(|| Some(k.to_string())))?.parse::<i64>().ok()?;
            Some((d.get("sort").and_then(Value::as_i64).unwrap_or(0), key, d.get("dictValue").and_then(Value::as_str).unwrap_or("").to_string()))
        })
        .collect();
    rows.sort();
    Ok(rows.into_iter().map(|(_, k, n)| (k, n)).collect())
}

/// Makes a construct's node plan when it starts: for each building it lists — or, listing none, each building
/// imported for its project, or else the site as a whole (整体) — one task per node. Kept when it exists.
pub(super) fn plan(w: &mut WriteCtx, cx: &Ctx, construct: u64, project: u64, buildings: &str, plan_end: Option<&str>) -> store::Result<()> {
    let tdef = cx.def("speed_progress");
    let q = Query { filters: vec![Filter::new("constructId", Op::Equal, json!(construct))], limit: 1, ..Query::default() };
    if w.list(&tdef, cx.tenant, &q)?.total > 0 {
        return Ok(());
    }
    let nodes = nodes_in(w, cx)?;
    if nodes.is_empty() {
        return Err(rule("字典「施工节点」(progress_node) 没有节点,无法生成施工进度", "The progress_node dictionary has no nodes; no progress plan can be made"));
    }
    let mut names = split_buildings(buildings);
    if names.is_empty() {
        let q = Query { filters: vec![Filter::new("projectId", Op::Equal, json!(project))], limit: u64::MAX, ..Query::default() };
        let mut set = std::collections::BTreeSet::new();
        for r in w.list(&cx.def("building"), cx.tenant, &q)?.records {
            if r.get("enabled").and_then(Value::as_i64) != Some(0) {
                set.insert(r.get("buildingName").and_then(Value::as_str).unwrap_or("").to_string());
            }
        }
        names = set.into_iter().filter(|n| !n.is_empty()).collect();
    }
    if names.is_empty() {
        names.push("整体".into());
    }
    for b in &names {
        for (key, _) in &nodes {
            let mut doc = Map::new();
            doc.insert("constructId".into(), json!(construct));
            doc.insert("buildingName".into(), json!(b));
            doc.insert("nodeKey".into(), json!(key));
            doc.insert("percent".into(), json!(0));
            if let Some(end) = plan_end {
                doc.insert("planEnd".into(), json!(end));
            }
            doc.insert("taskKey".into(), json!(format!("{construct}:{b}:{key}")));
            w.insert(&tdef, cx.tenant, doc, cx.actor)?;
        }
    }
    Ok(())
}

/// The construct's tasks (all of them: a plan is buildings × nodes, hundreds at most).
fn tasks_of(r: &store::ReadCtx, def: &store::ResourceDef, tenant: &str, construct: u64) -> store::Result<Vec<Map<String, Value>>> {
    let q = Query { filters: vec![Filter::new("constructId", Op::Equal, json!(construct))], limit: 100_000, ..Query::default() };
    let mut rows = r.list(def, tenant, &q)?.records;
    rows.sort_by_key(|t| t.get("id").and_then(Value::as_u64).unwrap_or(0));
    Ok(rows)
}

/// Node names by key, in dictionary order.
async fn node_names(st: &AppState) -> ApiResult<Vec<(i64, String)>> {
    let labels = crud::dict_labels(st, "progress_node").await?;
    let mut v: Vec<(i64, String)> = labels.iter().filter_map(|(k, n)| Some((k.parse::<i64>().ok()?, n.clone()))).collect();
    v.sort();
    Ok(v)
}

async fn construct_of(st: &AppState, s: &Session, raw: &str) -> ApiResult<(u64, Map<String, Value>)> {
    let id = crud::parse_id(Some(raw))?;
    Ok((id, crud::get_scoped(st, s, &st.res.get("construct"), id).await?))
}

/// POST building/task/list
async fn building_tasks(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let construct = id_param(&p, &["constructId", "id"])?;
    construct_of(&st, &s, &construct.to_string()).await?;
    let only = p.get("buildingName").filter(|v| !v.is_empty()).map(str::to_string);
    let (def, t) = (st.res.get("speed_progress"), s.tenant.clone());
    let rows = st.read(move |r| tasks_of(r, &def, &t, construct)).await?;
    let rows = crud::wire_records(&st, &st.res.get("speed_progress"), &s.tenant, rows).await?;
    let mut by: Vec<(String, Vec<Map<String, Value>>)> = Vec::new();
    for r in rows {
        let b = r.get("buildingName").and_then(Value::as_str).unwrap_or("").to_string();
        if only.as_ref().is_some_and(|o| *o != b) {
            continue;
        }
        match by.iter_mut().find(|(n, _)| *n == b) {
            Some((_, v)) => v.push(r),
            None => by.push((b, vec![r])),
        }
    }
    let out: Vec<Value> = by
        .into_iter()
        .map(|(b, mut v)| {
            v.sort_by_key(|t| t.get("nodeKey").and_then(Value::as_i64).unwrap_or(0));
            let pct = v.iter().map(|t| t.get("percent").and_then(Value::as_i64).unwrap_or(0)).sum::<i64>() / (v.len().max(1) as i64);
            json!({"buildingName": b, "percent": pct, "nodes": v})
        })
        .collect();
    Ok(ok(out))
}

/// POST worker/task/list
async fn worker_tasks(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let worker = id_param(&p, &["workerId"])?;
    crud::get_scoped(&st, &s, &st.res.get("worker"), worker).await?;
    let (current, size) = page_of(&p)?;
    let mut filters = vec![Filter::new("workerId", Op::Equal, json!(worker))];
    if let Some(k) = p.get("constructId").filter(|v| !v.is_empty()) {
        filters.push(Filter::new("constructId", Op::Equal, json!(crud::parse_id(Some(k))?)));
    }
    Ok(ok(scoped_page(&st, &s, "speed_progress", filters, current, size).await?))
}

/// POST worker/task/data/{constructId}/{taskId} {percent, remark}
async fn report(State(st): State<AppState>, s: Session, Path((construct, task)): Path<(String, String)>, p: AnyParams) -> ApiResult<Response> {
    let (construct, _) = construct_of(&st, &s, &construct).await?;
    let task = crud::parse_id(Some(&task))?;
    let tdef = st.res.get("speed_progress");
    let rec = crud::get_scoped(&st, &s, &tdef, task).await?;
    if rec.get("constructId").and_then(Value::as_u64) != Some(construct) {
        return Err(ApiError::new(Kind::NotFound));
    }
    let raw = p.get("percent").filter(|v| !v.trim().is_empty()).ok_or_else(|| ApiError::with(Kind::Missing, "percent"))?;
    let percent: i64 = raw.trim().parse().map_err(|_| ApiError::with(Kind::WrongType, "percent"))?;
    if !(0..=100).contains(&percent) {
        return Err(ApiError::with(Kind::OutOfRange, "percent (0-100)"));
    }
    let remark: String = p.get("remark").unwrap_or("").trim().chars().take(255).collect();
    let env = crate::engine::dialect::Env::new(&st, &s);
    let rdef = st.res.get("progress_report");
    let saved = st
        .write(move |w| {
            let cx = env.cx();
            let t = cx.tenant;
            super::under_construction(w, &cx, construct, "施工单不在施工中,不能填报进度", "The construct is not under construction; progress cannot be reported")?;
            let cur = w.get(&tdef, t, task)?.ok_or(StoreError::NotFound)?;
            let before = cur.get("percent").and_then(Value::as_i64).unwrap_or(0);
            let building = cur.get("buildingName").and_then(Value::as_str).unwrap_or("").to_string();
            let node = cur.get("nodeKey").and_then(Value::as_i64).unwrap_or(0);
            let nodes = nodes_in(w, &cx)?;
            let at = nodes.iter().position(|(k, _)| *k == node);
            let sibling = |w: &WriteCtx, key: i64| -> store::Result<Option<Map<String, Value>>> {
                let id = w.find_unique(&tdef, t, "taskKey", &format!("{construct}:{building}:{key}"))?;
                Ok(match id {
                    Some(id) => w.get(&tdef, t, id)?,
                    None => None,
                })
            };
            if percent > 0
                && let Some(i) = at.filter(|i| *i > 0) {
                let (pk, pname) = &nodes[i - 1];
                if let Some(prev) = sibling(w, *pk)?
                    && prev.get("percent").and_then(Value::as_i64).unwrap_or(0) < 100 {
                    return Err(rule(format!("请先完成 {building} 的「{pname}」节点"), format!("Finish node {pname} of {building} first")));
                }
            }
            if percent < 100
                && before == 100
                && let Some((nk, nname)) = at.and_then(|i| nodes.get(i + 1)) {
                if let Some(next) = sibling(w, *nk)?
                    && next.get("percent").and_then(Value::as_i64).unwrap_or(0) > 0 {
                    return Err(rule(format!("{building} 的「{nname}」节点已开始,不能下调本节点"), format!("Node {nname} of {building} has started; this node cannot be reopened")));
                }
            }
            let today: String = cx.now.chars().take(10).collect();
            let mut patch = Map::new();
            patch.insert("percent".into(), json!(percent));
            patch.insert("lastReport".into(), json!(today));
            patch.insert("doneDate".into(), if percent == 100 { json!(today) } else { Value::Null });
            let saved = w.update(&tdef, t, task, patch, cx.actor)?;
            let mut rep = Map::new();
            rep.insert("taskId".into(), json!(task));
            rep.insert("constructId".into(), json!(construct));
            if let Some(wk) = cur.get("workerId").filter(|v| !v.is_null()) {
                rep.insert("workerId".into(), wk.clone());
            }
            rep.insert("before".into(), json!(before));
            rep.insert("percent".into(), json!(percent));
            rep.insert("remark".into(), json!(remark));
            w.insert(&rdef, t, rep, cx.actor)?;
            Ok(saved)
        })
        .await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &st.res.get("speed_progress"), saved).await?))
}

/// POST data/{id}
async fn task_data(State(st): State<AppState>, s: Session, Path(id): Path<String>) -> ApiResult<Response> {
    let id = crud::parse_id(Some(&id))?;
    let def = st.res.get("speed_progress");
    let rec = crud::get_scoped(&st, &s, &def, id).await?;
    let (rdef, t) = (st.res.get("progress_report"), s.tenant.clone());
    let reports = st
        .read(move |r| r.list(&rdef, &t, &Query { filters: vec![Filter::new("taskId", Op::Equal, json!(id))], limit: 1, ..Query::default() }).map(|p| p.total))
        .await?;
    let mut out = crud::decorated(&st, &s.tenant, &def, rec).await?;
    out.insert("reports".into(), json!(reports));
    Ok(ok(out))
}

/// POST history/data/{id}
async fn history(State(st): State<AppState>, s: Session, Path(id): Path<String>) -> ApiResult<Response> {
    let id = crud::parse_id(Some(&id))?;
    crud::get_scoped(&st, &s, &st.res.get("speed_progress"), id).await?;
    let (rdef, res, t) = (st.res.get("progress_report"), st.res.clone(), s.tenant.clone());
    let rows = st
        .read(move |r| {
            let q = Query { filters: vec![Filter::new("taskId", Op::Equal, json!(id))], limit: 1000, ..Query::default() };
            crate::engine::names::with_authors(r, &res, &t, r.list(&rdef, &t, &q)?.records)
        })
        .await?;
    let def = st.res.get("progress_report");
    let (recs, names): (Vec<_>, Vec<_>) = rows.into_iter().unzip();
    let mut wire = crud::wire_records(&st, &def, &s.tenant, recs).await?;
    for (w, n) in wire.iter_mut().zip(names) {
        w.insert("reporterName".into(), json!(n));
    }
    Ok(ok(wire))
}

/// Percent of a set of tasks (their mean, rounded down; 0 for none).
fn mean(v: &[&Map<String, Value>]) -> i64 {
    if v.is_empty() {
        return 0;
    }
    v.iter().map(|t| t.get("percent").and_then(Value::as_i64).unwrap_or(0)).sum::<i64>() / v.len() as i64
}

/// POST statistics/data/{id}
async fn statistics(State(st): State<AppState>, s: Session, Path(id): Path<String>) -> ApiResult<Response> {
    let (construct, _) = construct_of(&st, &s, &id).await?;
    let (def, t) = (st.res.get("speed_progress"), s.tenant.clone());
    let tasks = st.read(move |r| tasks_of(r, &def, &t, construct)).await?;
    let tasks = crud::wire_records(&st, &st.res.get("speed_progress"), &s.tenant, tasks).await?;
    let nodes = node_names(&st).await?;
    let mut buildings: Vec<String> = Vec::new();
    for t in &tasks {
        let b = t.get("buildingName").and_then(Value::as_str).unwrap_or("").to_string();
        if !buildings.contains(&b) {
            buildings.push(b);
        }
    }
    let node_rows: Vec<Value> = nodes
        .iter()
        .map(|(k, name)| {
            let of: Vec<&Map<String, Value>> = tasks.iter().filter(|t| t.get("nodeKey").and_then(Value::as_i64) == Some(*k)).collect();
            let done = of.iter().filter(|t| t.get("percent").and_then(Value::as_i64) == Some(100)).count();
            json!({"nodeKey": k, "nodeName": name, "percent": mean(&of), "tasks": of.len(), "doneTasks": done})
        })
        .collect();
    let building_rows: Vec<Value> = buildings
        .iter()
        .map(|b| {
            let of: Vec<&Map<String, Value>> = tasks.iter().filter(|t| t.get("buildingName").and_then(Value::as_str) == Some(b.as_str())).collect();
            let cells: Vec<Value> = nodes
                .iter()
                .map(|(k, _)| match of.iter().find(|t| t.get("nodeKey").and_then(Value::as_i64) == Some(*k)) {
                    Some(t) => json!({"taskId": t.get("id"), "nodeKey": k, "percent": t.get("percent"), "workerId": t.get("workerId"), "workerName": t.get("workerName"), "doneDate": t.get("doneDate"), "planEnd": t.get("planEnd")}),
                    None => json!({"nodeKey": k, "percent": Value::Null}),
                })
                .collect();
            json!({"buildingName": b, "percent": mean(&of), "cells": cells})
        })
        .collect();
    Ok(ok(json!({"nodes": node_rows, "buildings": building_rows})))
}

/// POST total/data/{id}
async fn total(State(st): State<AppState>, s: Session, Path(id): Path<String>) -> ApiResult<Response> {
    let (construct, k) = construct_of(&st, &s, &id).await?;
    let (def, t) = (st.res.get("speed_progress"), s.tenant.clone());
    let tasks = st.read(move |r| tasks_of(r, &def, &t, construct)).await?;
    let nodes = node_names(&st).await?;
    let today: String = st.settings.zone.format(store::now_millis()).chars().take(10).collect();
    let all: Vec<&Map<String, Value>> = tasks.iter().collect();
    let pct = |t: &Map<String, Value>| t.get("percent").and_then(Value::as_i64).unwrap_or(0);
    let done = tasks.iter().filter(|t| pct(t) == 100).count();
    let nodes_done = nodes
        .iter()
        .filter(|(key, _)| {
            let of: Vec<_> = tasks.iter().filter(|t| t.get("nodeKey").and_then(Value::as_i64) == Some(*key)).collect();
            !of.is_empty() && of.iter().all(|t| pct(t) == 100)
        })
        .count();
    // The current node: the first one not done everywhere.
    let current = nodes
        .iter()
        .find(|(key, _)| tasks.iter().any(|t| t.get("nodeKey").and_then(Value::as_i64) == Some(*key) && pct(t) < 100))
        .map(|(_, n)| n.clone());
    let overdue = tasks
        .iter()
        .filter(|t| pct(t) < 100 && t.get("planEnd").and_then(Value::as_str).is_some_and(|d| d.get(..10).unwrap_or(d) < today.as_str()))
        .count();
    let workers: std::collections::BTreeSet<u64> = tasks.iter().filter_map(|t| t.get("workerId").and_then(Value::as_u64)).collect();
    let last = tasks.iter().filter_map(|t| t.get("lastReport").and_then(Value::as_str)).max().map(str::to_string);
    let buildings: std::collections::BTreeSet<&str> = tasks.iter().filter_map(|t| t.get("buildingName").and_then(Value::as_str)).collect();
    Ok(ok(json!({
        "constructId": construct.to_string(), "constructCode": k.get("constructCode"), "modelStatus": k.get("modelStatus"),
        "percent": mean(&all), "tasks": tasks.len(), "doneTasks": done, "nodes": if tasks.is_empty() { 0 } else { nodes.len() }, "doneNodes": nodes_done,
        "buildings": buildings.len(), "workers": workers.len(), "currentNode": current, "overdueTasks": overdue, "lastReport": last,
        "planEnd": k.get("planEnd"),
    })))
}
