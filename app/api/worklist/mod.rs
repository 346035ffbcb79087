//! 工单: work orders (`worklist_order`, declared at `/worklist/order` as the spec writes it), their categories
//! (`/api/blade-biz/worklist/category`) and reply threads (`/api/blade-biz/worklist/reply`). Hand-written here:
//! the status rules (open → in progress → resolved → closed; a resolved or closed order reopens to in progress),
//! defaults on raising one (the requester, a due date from the category's time limit), the reply count and the
//! first reply of the assignee taking the order in hand, who moves an order (`move`: its 处理人 and its 提出人,
//! without worklist_order_edit) and who hears of each step, and the urgent orders of the desk.
use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, ReadCtx, StoreError, WriteCtx};

use crate::auth::session::Session;
use crate::engine::crud;
use crate::engine::dialect::{Ctx, Rules, after, after_i64, status_name};
use crate::engine::rec::{id, int, obj, text};
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind, refuse, rule};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

const STATUS: &[(i64, &str, &str)] = &[(1, "待处理", "open"), (2, "处理中", "in progress"), (3, "已解决", "resolved"), (4, "已关闭", "closed")];

pub fn rules(name: &str) -> Option<Rules> {
    match name {
        "worklist_order" => Some(Rules { save: Some(order_save), remove: Some(order_remove), saved: Some(order_saved), after: &[] }),
        "worklist_reply" => Some(Rules { save: Some(reply_save), remove: Some(reply_remove), saved: Some(reply_saved), after: &[] }),
        _ => None,
    }
}

fn date_plus_hours(now: &str, hours: i64) -> String {
    let start = chrono::NaiveDateTime::parse_from_str(now, "%Y-%m-%d %H:%M:%S").unwrap_or_default();
    (start + chrono::TimeDelta::hours(hours)).format("%Y-%m-%d").to_string()
}

/// Status moves and the defaults of a new order.
fn order_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    let from = old.map(|o| int(o, "orderStatus")).unwrap_or(1);
    let to = after_i64(old, doc, "orderStatus").unwrap_or(1);
    if !STATUS.iter().any(|s| s.0 == to) {
        return Err(StoreError::invalid("orderStatus", store::FieldProblem::OutOfRange { min: Some(1), max: Some(4) }));
    }
    // Its files named (none once they are cleared: an empty value is stored as null).
    if let Some(a) = doc.get("attachments").map(|v| v.as_str().unwrap_or("").to_string()) {
        let names = attachment_names(w, cx, &a, old.map(|o| id(o, "id")), old.map(|o| text(o, "attachments")).unwrap_or(""))?;
        doc.insert("attachNames".into(), json!(names));
    }
    if old.is_none() {
        if to != 1 {
            return Err(refused(1, to));
        }
        // Whoever raises an order is its requester (the field is read-only: nobody raises one in another's name).
        doc.insert("requesterId".into(), json!(cx.actor.user_id));
        if after(old, doc, "dueTime").is_none_or(|v| v.is_null() || v.as_str() == Some("")) {
            let cat = after(old, doc, "categoryId").and_then(Value::as_u64).unwrap_or(0);
            let hours = w.get(&cx.def("worklist_category"), cx.tenant, cat)?.map(|c| int(&c, "defaultHours")).filter(|h| *h > 0).unwrap_or(48);
            doc.insert("dueTime".into(), json!(date_plus_hours(cx.now, hours)));
        }
        return Ok(());
    }
    if from == 4 && to == 4 {
        return Err(rule("已关闭的工单不能修改,请先重新打开", "A closed work order cannot be changed; reopen it first"));
    }
    let allowed = from == to || matches!((from, to), (1, 2) | (1, 3) | (2, 3) | (3, 4) | (3, 2) | (4, 2) | (1, 4) | (2, 4));
    if !allowed {
        return Err(refused(from, to));
    }
    if (from, to) == (1, 4) || (from, to) == (2, 4) {
        // Closing without a resolution is for orders raised by mistake: only the requester may do it.
        let requester = old.map(|o| id(o, "requesterId")).unwrap_or(0);
        if requester != cx.actor.user_id {
            return Err(rule("未解决的工单只能由提出人关闭", "Only whoever raised it may close an unresolved work order"));
        }
    }
    if to == 3 && from != 3 {
        doc.insert("resolvedTime".into(), json!(cx.now));
    }
    if to == 2 && from >= 3 {
        doc.insert("resolvedTime".into(), Value::Null);
    }
    Ok(())
}

fn refused(from: i64, to: i64) -> StoreError {
    let (a, b) = (status_name(STATUS, from), status_name(STATUS, to));
    rule(format!("工单状态不能由「{}」变更为「{}」", a.0, b.0), format!("A work order cannot go from {} to {}", a.1, b.1))
}

/// An order goes with its replies.
fn order_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    let q = Query { filters: vec![Filter::new("orderId", Op::Equal, json!(id(rec, "id")))], limit: 100_000, ..Query::default() };
    let ids: Vec<u64> = w.list(&cx.def("worklist_reply"), cx.tenant, &q)?.records.iter().map(|r| id(r, "id")).collect();
    if !ids.is_empty() {
        w.remove(&cx.def("worklist_reply"), cx.tenant, &ids, cx.actor)?;
    }
    Ok(())
}

/// Replies go on open orders only; a reply never moves to another order, and only its author changes it.
fn reply_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    if let Some(o) = old
        && o.get("createUser").and_then(Value::as_u64) != Some(cx.actor.user_id) {
        return Err(refuse("只有回复人本人可以修改这条回复", "Only whoever wrote this reply may change it"));
    }
    if let Some(o) = old
        && doc.contains_key("orderId") && o.get("orderId") != doc.get("orderId") {
        return Err(rule("回复不能移到其他工单", "A reply cannot move to another work order"));
    }
    let order = after(old, doc, "orderId").and_then(Value::as_u64).unwrap_or(0);
    let o = w.get(&cx.def("worklist_order"), cx.tenant, order)?.ok_or(StoreError::NotFound)?;
    if int(&o, "orderStatus") == 4 {
        return Err(rule("工单已关闭,不能回复,请先重新打开", "The work order is closed; reopen it to reply"));
    }
    if old.is_none() {
        let name = w.get(&cx.def("user"), cx.tenant, cx.actor.user_id)?.map(|u| text(&u, "realName").to_string()).unwrap_or_default();
        doc.insert("authorName".into(), json!(name));
    }
    if let Some(a) = doc.get("attachments").cloned() {
        let names = attachment_names(w, cx, a.as_str().unwrap_or(""), Some(order), old.map(|o| text(o, "attachments")).unwrap_or(""))?;
        doc.insert("attachNames".into(), json!(names));
    }
    Ok(())
}

/// What an order's files are bound to (`attach.boundTo`): the order, for its replies' files too. Whoever may see
/// the order may download them, and nobody else (`resource::files`).
fn owner(order: u64) -> String {
    format!("worklist_order:{order}")
}

/// Checks the links named anew (`engine::attachments`; `kept`: those the record held) and answers the files'
/// original names, for the thread to show.
fn attachment_names(w: &WriteCtx, cx: &Ctx, links: &str, order: Option<u64>, kept: &str) -> store::Result<String> {
    crate::engine::attachments::names(w, cx, links, order.map(owner).as_deref(), kept)
}

/// Binds the files of `links` to the order, in the transaction that attaches them.
fn bind(w: &mut WriteCtx, cx: &Ctx, links: &str, order: u64) -> store::Result<()> {
    crate::engine::attachments::bind(w, cx, links, &owner(order))
}

/// Binds the files of a tenant's orders and replies that are not bound yet (files of an older data file); a link
/// that names no file of the tenant is left as it is.
pub fn bind_files(w: &mut WriteCtx, res: &crate::decl::Resources, tenant: &str) -> store::Result<()> {
    let adef = res.get("attach");
    let prefix = format!("/files/{tenant}/");
    let mut links: Vec<(u64, String)> = w.all(&res.get("worklist_order"), tenant)?.iter().map(|o| (id(o, "id"), text(o, "attachments").to_string())).collect();
    links.extend(w.all(&res.get("worklist_reply"), tenant)?.iter().map(|r| (id(r, "orderId"), text(r, "attachments").to_string())));
    for (order, list) in links {
        for key in list.split(',').filter_map(|l| l.trim().strip_prefix(&prefix)) {
            let Some(i) = w.find_unique(&adef, tenant, "fileKey", key)? else { continue };
            if w.get(&adef, tenant, i)?.is_some_and(|a| text(&a, "boundTo").is_empty()) {
                w.update(&adef, tenant, i, obj(json!({"boundTo": owner(order)})), &store::Actor::default())?;
            }
        }
    }
    Ok(())
}

/// An order's own files become the order's.
/// The files become the order's; a new handler is told (站内消息).
fn order_saved(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, new: &Map<String, Value>) -> store::Result<()> {
    bind(w, cx, text(new, "attachments"), id(new, "id"))?;
    let to = id(new, "assigneeId");
    if to != 0 && old.is_none_or(|o| id(o, "assigneeId") != to) {
        let link = format!("/worklist/view/{}", text(new, "orderNo"));
        let due = text(new, "dueTime");
        let content = if due.is_empty() { String::new() } else { format!("处理期限:{due}") };
        crate::engine::messages::send(w, cx, [to], crate::engine::messages::WORK_ORDER, &format!("工单指派给您:{}", text(new, "title")), &content, &link)?;
    }
    // Whoever waits on a status step hears of it (not whoever made it): the requester of a resolved order, the
    // handler of one closed or sent back.
    if let Some(o) = old {
        let (from, now) = (int(o, "orderStatus"), int(new, "orderStatus"));
        let (requester, handler) = (id(new, "requesterId"), id(new, "assigneeId"));
        let told = match (from, now) {
            (1 | 2, 3) => Some((requester, "工单已解决", "请确认:已解决可确认关闭,未解决可重新打开")),
            (3, 4) => Some((handler, "工单已确认关闭", "")),
            (1 | 2, 4) => Some((handler, "工单已被提出人关闭(未解决)", "")),
            (3 | 4, 2) => Some((handler, "工单被重新打开", "请继续处理")),
            _ => None,
        };
        if let Some((who, title, content)) = told {
            let link = format!("/worklist/view/{}", text(new, "orderNo"));
            crate::engine::messages::send(w, cx, [who], crate::engine::messages::WORK_ORDER, &format!("{title}:{}", text(new, "title")), content, &link)?;
        }
    }
    Ok(())
}

fn recount(w: &mut WriteCtx, cx: &Ctx, order: u64, gone: u64) -> store::Result<Map<String, Value>> {
    let q = Query { filters: vec![Filter::new("orderId", Op::Equal, json!(order))], limit: 100_000, ..Query::default() };
    let n = w.list(&cx.def("worklist_reply"), cx.tenant, &q)?.records.iter().filter(|r| id(r, "id") != gone).count();
    let mut patch = Map::new();
    patch.insert("replyCount".into(), json!(n));
    w.update(&cx.def("worklist_order"), cx.tenant, order, patch, cx.actor)
}

/// The count follows; the reply's files become the order's; the assignee's first reply takes an open order in hand.
fn reply_saved(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, new: &Map<String, Value>) -> store::Result<()> {
    bind(w, cx, text(new, "attachments"), id(new, "orderId"))?;
    let o = recount(w, cx, id(new, "orderId"), 0)?;
    if old.is_none() {
        // The requester and the handler hear of a new reply (not its writer).
        let link = format!("/worklist/view/{}", text(&o, "orderNo"));
        let content: String = text(new, "content").chars().take(120).collect();
        crate::engine::messages::send(w, cx, [id(&o, "requesterId"), id(&o, "assigneeId")], crate::engine::messages::WORK_ORDER, &format!("工单有新回复:{}", text(&o, "title")), &content, &link)?;
    }
    if int(&o, "orderStatus") == 1 && id(&o, "assigneeId") == cx.actor.user_id && cx.actor.user_id != 0 {
        let mut patch = Map::new();
        patch.insert("orderStatus".into(), json!(2));
        w.update(&cx.def("worklist_order"), cx.tenant, id(&o, "id"), patch, cx.actor)?;
    }
    Ok(())
}

fn reply_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    recount(w, cx, id(rec, "orderId"), id(rec, "id")).map(|_| ())
}

/// The desk's urgent work orders of a user: assigned to them, not resolved, urgent or due by tomorrow; due
/// soonest first, at most five.
pub fn urgent(r: &ReadCtx, res: &crate::decl::Resources, tenant: &str, user: u64, today: &str) -> store::Result<Vec<Value>> {
    let q = Query { filters: vec![Filter::new("assigneeId", Op::Equal, json!(user)), Filter::new("orderStatus", Op::In, json!([1, 2]))], limit: 1_000, ..Query::default() };
    let tomorrow = date_plus_hours(&format!("{today} 00:00:00"), 24);
    let mut rows: Vec<Map<String, Value>> = r
        .list(&res.get("worklist_order"), tenant, &q)?
        .records
        .into_iter()
        .filter(|o| int(o, "priority") == 4 || (!text(o, "dueTime").is_empty() && text(o, "dueTime") <= tomorrow.as_str()))
        .collect();
    rows.sort_by(|a, b| text(a, "dueTime").cmp(text(b, "dueTime")));
    Ok(rows
        .into_iter()
        .take(5)
        .map(|o| {
            let due = text(&o, "dueTime").chars().take(10).collect::<String>();
            json!({"id": id(&o, "id").to_string(), "orderNo": text(&o, "orderNo"), "title": text(&o, "title"), "priority": int(&o, "priority"),
                "dueTime": due, "overdue": !due.is_empty() && due.as_str() < today})
        })
        .collect())
}

/// Demo: the work-list app dictionary, categories and a dozen orders in every status, urgent ones for the
/// administrator.
pub fn demo(w: &mut WriteCtx, cx: &Ctx) -> store::Result<()> {
    let ddef = cx.def("dictbiz");
    let root = w.insert(&ddef, cx.tenant, obj(json!({"parentId": 0, "code": "work_list_app", "dictKey": "-1", "dictValue": "工单来源", "dictValueEn": "Work order source", "sort": 1, "isSealed": 0})), cx.actor)?;
    for (i, (k, v, e)) in [("1", "PC 后台", "Back office"), ("2", "项目经理 APP", "Manager app"), ("3", "业主小程序", "Owner mini-program"), ("4", "客服热线", "Service hotline")].iter().enumerate() {
        w.insert(&ddef, cx.tenant, obj(json!({"parentId": id(&root, "id"), "code": "work_list_app", "dictKey": k, "dictValue": v, "dictValueEn": e, "sort": i + 1, "isSealed": 0})), cx.actor)?;
    }
    let cdef = cx.def("worklist_category");
    let mut cats = Vec::new();
    for (i, (name, hours)) in [("售后维修", 48), ("材料问题", 24), ("工期协调", 72), ("客户投诉", 12), ("安全隐患", 4)].iter().enumerate() {
        cats.push(id(&w.insert(&cdef, cx.tenant, obj(json!({"categoryName": name, "defaultHours": hours, "sort": i + 1})), cx.actor)?, "id"));
    }
    // People who may open work orders (a role granted the 工单 menu: not a 仓管员, never a technical worker).
    let users = crate::engine::demo::holders(w, cx.res, cx.tenant, "worklist_order")?;
    let projects: Vec<(u64, String)> = w.all(&cx.def("project"), cx.tenant)?.iter().map(|p| (id(p, "id"), text(p, "projectName").to_string())).collect();
    let today: String = cx.now.chars().take(10).collect();
    let day = |d: i64| chrono::NaiveDate::parse_from_str(&today, "%Y-%m-%d").map(|t| (t + chrono::TimeDelta::days(d)).format("%Y-%m-%d").to_string()).unwrap_or_default();
    let orders: [(&str, usize, i64, i64, i64, &str); 12] = [
        ("翠屏城3-1201 卫生间地漏返味", 0, 3, 1, 1, "业主反映主卫地漏返味,需上门检查存水弯。"),
        ("万科翡翠公园 12# 瓷砖到货破损 40 片", 1, 4, 2, 0, "到货验收发现 600×1200 通体砖破损 40 片,需补货。"),
        ("实验小学教学楼 暑期工期压缩", 2, 3, 2, 6, "校方要求 8 月 25 日前完成二层教室,需调整班组。"),
        ("悦府样板间 软装窗帘色差", 3, 2, 3, -3, "业主认为窗帘颜色与样板不一致。"),
        ("新街口店 配电箱未加锁", 4, 4, 1, 0, "巡检发现临时配电箱未上锁,立即整改。"),
        ("月安花园 木门安装缝隙过大", 0, 2, 4, -10, "门套与墙面缝隙 5mm,已打胶处理。"),
        ("华润悦府 乳胶漆批次不一致", 1, 3, 3, -5, "两批乳胶漆色号差异,已退换同批次。"),
        ("江宁幼儿园 地坪施工噪音投诉", 3, 3, 2, 2, "周边居民投诉早 7 点施工噪音。"),
        ("翠屏城3-1201 增加厨房插座", 2, 1, 1, 5, "业主要求厨房增加两个五孔插座。"),
        ("万科城市之光 外墙清洗吊篮年检", 4, 3, 1, 3, "吊篮年检到期,需安排检测。"),
        ("星巴克 门头灯箱不亮", 0, 2, 4, -20, "更换镇流器后恢复。"),
        ("实验小学 防火门闭门器缺失", 4, 3, 2, 1, "消防检查指出三樘防火门缺闭门器。"),
    ];
    // The project each order is about, by the place its title names.
    let places = ["翠屏城3-1201", "万科翡翠公园", "实验小学", "悦府样板间", "新街口店", "月安花园", "华润悦府", "幼儿园", "翠屏城3-1201", "万科城市之光", "河西万达", "实验小学"];
    let odef = cx.def("worklist_order");
    let rdef = cx.def("worklist_reply");
    // Raised a few days before it was due (or before today), answered the next day, the last reply when resolved.
    let raised_on = |n: usize| day(orders[n].4.min(0) - 2 - n as i64 % 3);
    let raised_at = |n: usize| format!("{} 09:{:02}:00", raised_on(n), 10 + n * 4);
    let at = |when: String, by: u64| crate::engine::demo::seed_as(store::Actor { user_id: by, dept_id: 0, at: None }, &when).0;
    // Orders, then their replies, each in the order of their times: the records' ids follow time as in a kept
    // company's file (lists sort by id as by creation time).
    let mut order: Vec<usize> = (0..orders.len()).collect();
    order.sort_by_key(|n| raised_at(*n));
    let mut replies_of = Vec::new();
    for n in order {
        let (title, cat, priority, status, due, content) = &orders[n];
        let title = &crate::engine::demo::in_city(cx.tenant, title);
        let requester = users.get(n % users.len().max(1)).copied().unwrap_or(0);
        // The administrator (first user) has the urgent and due ones.
        let assignee = if matches!(n, 1 | 4 | 11) { users.first().copied().unwrap_or(0) } else { users.get((n + 3) % users.len().max(1)).copied().unwrap_or(0) };
        let raised = raised_on(n);
        let mut doc = obj(json!({"orderNo": format!("GD{}-{:04}", raised.replace('-', ""), n + 1), "title": title, "categoryId": cats[*cat], "priority": priority,
            "requesterId": requester, "assigneeId": assignee, "dueTime": day(*due), "orderStatus": status, "content": content, "replyCount": 0}));
        if let Some((p, _)) = projects.iter().find(|(_, name)| name.contains(&crate::engine::demo::in_city(cx.tenant, places[n]))) {
            doc.insert("projectId".into(), json!(p));
        }
        if *status >= 3 {
            doc.insert("resolvedTime".into(), json!(format!("{} 16:30:00", day(*due - 1))));
        }
        let o = w.insert(&odef, cx.tenant, doc, &at(raised_at(n), cx.actor.user_id))?;
        let replies: &[&str] = match status {
            1 => &[],
            2 => &["已安排人员跟进,今天下午到现场。"],
            _ => &["已到现场查看,原因已查明。", "已处理完毕,请确认。"],
        };
        for (k, text) in replies.iter().enumerate() {
            let by = if k == 0 { assignee } else { requester };
            let when = if k == 0 { format!("{} 10:{:02}:00", day((*due).min(0) - 1 - n as i64 % 3), 5 + n * 3) } else { format!("{} 16:40:00", day(*due - 1)) };
            replies_of.push((when, id(&o, "id"), *text, by));
        }
        if !replies.is_empty() {
            w.update(&odef, cx.tenant, id(&o, "id"), obj(json!({"replyCount": replies.len()})), cx.actor)?;
        }
    }
    replies_of.sort_by(|a, b| a.0.cmp(&b.0));
    for (when, order_id, text, by) in replies_of {
        let name = w.get(&cx.def("user"), cx.tenant, by)?.map(|u| crate::engine::rec::text(&u, "realName").to_string()).unwrap_or_default();
        w.insert(&rdef, cx.tenant, obj(json!({"orderId": order_id, "content": text, "authorName": name})), &at(when, by))?;
    }
    Ok(())
}

/// 工单: work orders, their categories and replies (declared resources served by the engine, with these rules).
pub const AREA: crate::api::Area = crate::api::Area {
    rules,
    upgrades: &[("upgrade:worklist_file_owners", bind_every_tenant)],
    demo: Some(area_demo),
    ..crate::api::Area::routes_only("worklist", routes)
};

fn routes(api: Api) -> Api {
    let def = api.def("worklist_order");
    let mut api = api;
    for base in ["/worklist/order", "/api/blade-biz/worklist/order"] {
        api = api
            .post(format!("{base}/move"), Guard::read(&def), move_order)
            .doc("工单 · move an order's status (body: id, orderStatus): its 处理人 starts and resolves it, its 提出人 closes or reopens it, and whoever holds worklist_order_edit does any allowed move", &[]);
    }
    api
}

/// Who may make a status move without `worklist_order_edit`: the order's 处理人 takes it in hand and resolves it;
/// its 提出人 accepts the fix (closes it), sends it back (reopens it) or withdraws one raised by mistake.
fn moves_it(order: &Map<String, Value>, user: u64, from: i64, to: i64) -> bool {
    (id(order, "assigneeId") == user && matches!((from, to), (1, 2) | (1, 3) | (2, 3)))
        || (id(order, "requesterId") == user && matches!((from, to), (3, 4) | (3, 2) | (4, 2) | (1, 4) | (2, 4)))
}

/// POST worklist/order/move: a status step of one order, for those who work on it (a 员工 given an order holds
/// no `worklist_order_edit`, yet he is the one to resolve it). Who may is decided on the order as the write finds
/// it; the moves themselves are `order_save`'s.
async fn move_order(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let order = crate::engine::params::id_param(&p, &["id"])?;
    let def = st.res.get("worklist_order");
    crud::get_scoped(&st, &s, &def, order).await?;
    let to = p.get("orderStatus").and_then(|v| v.trim().parse::<i64>().ok()).ok_or_else(|| ApiError::with(Kind::Missing, "orderStatus"))?;
    let edits = s.perms.codes.contains("worklist_order_edit");
    let (d, env) = (def.clone(), crate::engine::dialect::Env::new(&st, &s));
    let saved = st
        .write(move |w| {
            let cx = env.cx();
            let old = w.get(&d, cx.tenant, order)?.ok_or(StoreError::NotFound)?;
            if !edits && !moves_it(&old, cx.actor.user_id, int(&old, "orderStatus"), to) {
                let party = id(&old, "assigneeId") == cx.actor.user_id || id(&old, "requesterId") == cx.actor.user_id;
                return Err(if party {
                    refuse("处理人可以开始处理、标记解决;提出人可以确认关闭、重新打开", "The assignee starts and resolves an order; whoever raised it closes or reopens it")
                } else {
                    refuse("只有工单的处理人和提出人可以变更它的状态", "Only the order's assignee and whoever raised it may change its status")
                });
            }
            crate::engine::dialect::write_in(w, &cx, &d, crate::api::rules("worklist_order"), Some(order), obj(json!({"orderStatus": to})))
        })
        .await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &def, saved).await?))
}

/// Work-order files attached before attachments were bound to their order (issue 32).
fn bind_every_tenant(w: &mut WriteCtx, res: &crate::decl::Resources) -> store::Result<()> {
    let tenants: Vec<String> = w.all(&res.get("tenant"), store::PLATFORM_TENANT)?.iter().filter_map(|t| t.get("tenantId").and_then(Value::as_str).map(str::to_string)).collect();
    for t in tenants {
        bind_files(w, res, &t)?;
    }
    Ok(())
}

/// The demo work orders, raised and answered by the tenant's people.
fn area_demo(w: &mut WriteCtx, res: &crate::decl::Resources, tenant: &str) -> store::Result<()> {
    let clerk = crate::engine::demo::admin_of(w, res, tenant)?;
    let now = crate::engine::demo::now_text();
    demo(w, &Ctx { tenant, actor: &clerk, res, now: &now })
}
