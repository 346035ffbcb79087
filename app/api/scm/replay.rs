//! 复盘: a project post-mortem (`replay`, declared) and its items (`replay_item`, declared at `replay/item`: what
//! happened, cause, action, owner, due date, open → closed). Hand-written here: the replay's detail with its items,
//! `add/item` (a replay and its items in one transaction), the item counts a replay keeps, and removing a replay
//! with its items.
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, StoreError, WriteCtx};

use crate::auth::session::Session;
use crate::engine::crud;
use crate::engine::dialect::{self, Ctx, Env, Rules};
use crate::engine::rec::{id, int};
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{JsonObject, ok};
use crate::state::AppState;

const B: &str = "/api/blade-scm/replay";

pub fn routes(api: Api) -> Api {
    let replay = api.def("replay");
    api.post(format!("{B}/detail/{{id}}"), Guard::read(&replay), detail)
        .reads()
        .doc("复盘管理 · a replay with its items (what happened, cause, action, owner, due date, status)", &[("id", "the replay")])
        .post(format!("{B}/add/item"), Guard::write(&replay, &["add"]), add_with_items)
        .doc("复盘管理 · a replay and its items in one step (body: the replay's fields and items: [{happened, cause, action, ownerId, dueDate}])", &[])
}

fn items_of(w: &WriteCtx, cx: &Ctx, replay: u64) -> store::Result<Vec<Map<String, Value>>> {
    let q = Query { filters: vec![Filter::new("replayId", Op::Equal, json!(replay))], limit: 10_000, ..Query::default() };
    Ok(w.list(&cx.def("replay_item"), cx.tenant, &q)?.records)
}

/// The replay's item counts, leaving out `gone` (an item being removed).
fn recount(w: &mut WriteCtx, cx: &Ctx, replay: u64, gone: u64) -> store::Result<()> {
    if replay == 0 {
        return Ok(());
    }
    let items: Vec<_> = items_of(w, cx, replay)?.into_iter().filter(|i| id(i, "id") != gone).collect();
    let open = items.iter().filter(|i| int(i, "itemStatus") != 2).count();
    let mut patch = Map::new();
    patch.insert("itemCount".into(), json!(items.len()));
    patch.insert("openItems".into(), json!(open));
    w.update(&cx.def("replay"), cx.tenant, replay, patch, cx.actor)?;
    Ok(())
}

pub(super) fn item_saved(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, new: &Map<String, Value>) -> store::Result<()> {
    if let Some(o) = old.filter(|o| id(o, "replayId") != id(new, "replayId")) {
        recount(w, cx, id(o, "replayId"), 0)?;
    }
    recount(w, cx, id(new, "replayId"), 0)
}

pub(super) fn item_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    recount(w, cx, id(rec, "replayId"), id(rec, "id"))
}

/// A replay goes with its items.
pub(super) fn replay_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    let ids: Vec<u64> = items_of(w, cx, id(rec, "id"))?.iter().map(|i| id(i, "id")).collect();
    if !ids.is_empty() {
        w.remove(&cx.def("replay_item"), cx.tenant, &ids, cx.actor)?;
    }
    Ok(())
}

async fn detail(State(st): State<AppState>, s: Session, Path(rid): Path<String>) -> ApiResult<Response> {
    let rid = crud::parse_id(Some(&rid))?;
    let def = st.res.get("replay");
    let rec = crud::get_scoped(&st, &s, &def, rid).await?;
    let mut out = crud::decorated(&st, &s.tenant, &def, rec).await?;
    let (idef, t) = (st.res.get("replay_item"), s.tenant.clone());
    let q = Query { filters: vec![Filter::new("replayId", Op::Equal, json!(rid))], limit: 10_000, sorts: vec![store::Sort { field: "id".into(), desc: false }], ..Query::default() };
    let d = idef.clone();
    let items = st.read(move |r| Ok(r.list(&d, &t, &q)?.records)).await?;
    out.insert("items".into(), json!(crud::wire_records(&st, &idef, &s.tenant, items).await?));
    Ok(ok(Value::Object(out)))
}

/// POST add/item: the replay, then each item, in one transaction (an item refused refuses all).
async fn add_with_items(State(st): State<AppState>, s: Session, JsonObject(mut body): JsonObject) -> ApiResult<Response> {
    let items = match body.remove("items") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a,
        Some(_) => return Err(ApiError::with(Kind::WrongType, "items")),
    };
    if items.len() > 200 {
        return Err(ApiError::with(Kind::OutOfRange, "items"));
    }
    let (rdef, idef) = (st.res.get("replay"), st.res.get("replay_item"));
    // On a project the caller may see, naming records he may see (as the generic add).
    body.remove("id");
    crud::check_target(&st, &s, &rdef, None, &body).await?;
    let doc = rdef.parse_input(&body, true)?;
    let mut parsed = Vec::new();
    for it in &items {
        let mut m = it.as_object().cloned().ok_or_else(|| ApiError::with(Kind::NotAnObject, "items"))?;
        m.insert("replayId".into(), json!("1")); // replaced by the new replay's id
        m.remove("id");
        parsed.push(idef.parse_input(&m, true)?);
    }
    let env = Env::new(&st, &s);
    let rules = crate::api::rules("replay");
    let item_rules = crate::api::rules("replay_item");
    let saved = st
        .write(move |w| {
            let cx = env.cx();
            let replay = dialect::write_in(w, &cx, &rdef, rules, None, doc.clone())?;
            let rid = id(&replay, "id");
            for it in &parsed {
                let mut it = it.clone();
                it.insert("replayId".into(), json!(rid));
                dialect::write_in(w, &cx, &idef, item_rules, None, it)?;
            }
            w.get(&rdef, cx.tenant, rid)?.ok_or(StoreError::NotFound)
        })
        .await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &st.res.get("replay"), saved).await?))
}

/// The rules of the two declarations.
pub(super) fn rules(name: &str) -> Option<Rules> {
    match name {
        "replay" => Some(Rules { save: None, remove: Some(replay_remove), saved: None, after: &[] }),
        "replay_item" => Some(Rules { save: None, remove: Some(item_remove), saved: Some(item_saved), after: &[] }),
        _ => None,
    }
}

/// Demo: a replay of each completed project, and one of a project under way, with items open and closed.
pub fn demo(w: &mut WriteCtx, cx: &Ctx) -> store::Result<()> {
    let projects = w.all(&cx.def("project"), cx.tenant)?;
    let users = w.all(&cx.def("user"), cx.tenant)?;
    let staff: Vec<u64> = users.iter().filter(|u| u.get("passwordHash").and_then(Value::as_str) != Some("!")).map(|u| id(u, "id")).collect();
    let who = |i: usize| staff.get(i % staff.len().max(1)).copied().unwrap_or(0);
    let items: [(&str, &str, &str, i64); 4] = [
        ("瓷砖到货晚 5 天,泥瓦工序顺延", "下单时未核对厂家排产周期", "主材下单前与厂家确认排产,交期写入采购单", 2),
        ("卫生间闭水试验一处渗漏返工", "防水涂刷未到墙面 1.8 米高度", "防水节点增加项目经理拍照验收", 2),
        ("业主中途增项,变更单晚签 2 周", "增项口头确认后直接施工", "增项先签变更单再施工,合同台账登记变更", 1),
        ("点工工日超预算 18%", "木作阶段图纸变更未及时调整班组", "图纸变更同步调整班组计划,周报跟踪点工", 1),
    ];
    let rdef = cx.def("replay");
    let idef = cx.def("replay_item");
    for (n, p) in projects.iter().filter(|p| matches!(int(p, "projectStatus"), 2 | 3)).take(3).enumerate() {
        let date = p.get("endTime").and_then(Value::as_str).unwrap_or("2026-11-15").to_string();
        let name = format!("{}项目复盘", p.get("projectName").and_then(Value::as_str).unwrap_or(""));
        // Chaired by the project's manager where he may open 复盘 (the form's 主持人 holds it), else by one who may.
        let hosts = crate::engine::demo::holders(w, cx.res, cx.tenant, "replay")?;
        let host = Some(id(p, "managerId")).filter(|m| hosts.contains(m)).or_else(|| hosts.first().copied()).unwrap_or(0);
        let doc: Map<String, Value> = json!({"replayName": name, "projectId": id(p, "id"), "replayDate": date, "hostId": host,
            "summary": "按节点复盘工期、质量与成本偏差,形成改进措施并指定责任人跟踪。"}).as_object().cloned().unwrap_or_default();
        // Written on its day, in the afternoon (its number FP<day>-…, its creation time): as a kept company's file.
        let (actor, now) = crate::engine::demo::seed_as(cx.actor.clone(), &format!("{date} 16:{:02}:00", 10 + n * 5));
        let cx = &Ctx { now: &now, actor: &actor, ..*cx };
        let replay = dialect::write_in(w, cx, &rdef, crate::api::rules("replay"), None, doc)?;
        for (k, (happened, cause, action, status)) in items.iter().enumerate().skip(n % 2) {
            let it: Map<String, Value> = json!({"replayId": id(&replay, "id"), "happened": happened, "cause": cause, "action": action,
                "ownerId": who(n + k + 1), "dueDate": if *status == 1 { "2026-11-30" } else { "2026-10-31" }, "itemStatus": if n == 0 && k == 3 { 1 } else { *status }})
                .as_object().cloned().unwrap_or_default();
            dialect::write_in(w, cx, &idef, crate::api::rules("replay_item"), None, it)?;
        }
    }
    Ok(())
}
