//! 仓库管理 (`/api/blade-api/wms/...`): stores, zones, bins, goods, owners and third parties are declared
//! (`assets/resources/*.json`, Blade routes `list`/`detail`/`submit`/`remove`) and served by the engine; this
//! area holds the real behaviour, every rule inside the write it guards:
//!
//! - `ledger`: the stock ledger (moves, balances with reserved and available, reservations, the audit that
//!   `zhizhuang verify` runs);
//! - `inbound`: 入库单 `order/rk` with lines `mxrk`, 收货 `received`, 复核 `review`, 上架 `up`;
//!   new → receiving → in review → put-away → done, or cancelled while nothing was received;
//! - `outbound`: 出库单 `order/ck` with lines `mxck`: new → released (stock reserved) → picking (`down`) →
//!   picked → shipped, or cancelled (reservations released, picked goods back to their bins);
//! - `stock`: 移库 `transfer`, counts on `stockdata` (differences posted to the loss location), the stock card;
//! - `erp`: completed orders leave an ERP callback record (an outbox) delivered with back-off.
//!
//! Store access (`userconfig`): a user with a configuration works only in its stores — lists, details and
//! every write of a record with a `storeId` are limited to them (`auth::scope::store_limit`).
//!
//! Retries: every save that moves stock takes an `opId` (body) or `X-Request-Id` header; a repeated one answers
//! the first result and moves nothing.
pub mod demo;
pub mod erp;
mod inbound;
pub mod ledger;
mod outbound;
mod stock;

use serde_json::{Map, Value};
use store::{StoreError, WriteCtx};

use crate::engine::Api;
use crate::engine::dialect::{Ctx, Rules};
use crate::error::{ApiError, ApiResult, Kind, rule};
use ledger::{id, text};

pub const BASE: &str = "/api/blade-api/wms";

/// The rules of the declared resources of this area.
pub fn rules(name: &str) -> Option<Rules> {
    Some(match name {
        "store" => Rules { save: None, remove: Some(stock::store_remove), saved: None, after: &[] },
        "reservoirarea" => Rules { save: Some(stock::area_save), remove: None, saved: None, after: &[] },
        "storagespace" => Rules { save: Some(stock::space_save), remove: Some(stock::space_remove), saved: None, after: &[] },
        "userconfig" => Rules { save: Some(stock::userconfig_save), remove: None, saved: None, after: &[] },
        "order_rk" => Rules { save: Some(inbound::order_save), remove: Some(inbound::order_remove), saved: None, after: &[] },
        "mxrk" => Rules { save: Some(inbound::line_save), remove: Some(inbound::line_remove), saved: None, after: &[] },
        "received" => Rules { save: None, remove: Some(inbound::received_remove), saved: None, after: &[] },
        "review" => Rules { save: None, remove: Some(inbound::review_remove), saved: None, after: &[] },
        "up" => Rules { save: None, remove: Some(inbound::up_remove), saved: None, after: &[] },
        "order_ck" => Rules { save: Some(outbound::order_save), remove: Some(outbound::order_remove), saved: None, after: &[] },
        "mxck" => Rules { save: Some(outbound::line_save), remove: Some(outbound::line_remove), saved: None, after: &[] },
        "down" => Rules { save: None, remove: Some(outbound::down_remove), saved: None, after: &[] },
        "transfer" => Rules { save: Some(stock::transfer_save), remove: Some(stock::transfer_remove), saved: None, after: &[] },
        "stockdata" => Rules { save: Some(stock::count_save), remove: Some(stock::stock_remove), saved: None, after: &[] },
        "erpcallback" => Rules { save: Some(erp::callback_save), remove: None, saved: None, after: &[] },
        _ => return None,
    })
}

pub fn routes(api: Api) -> Api {
    let api = inbound::routes(api);
    let api = outbound::routes(api);
    let api = stock::routes(api);
    erp::routes(api)
}

/// The stores a user may work in, when a `userconfig` limits them (None: every store of the tenant).
pub fn user_stores(w: &WriteCtx, cx: &Ctx) -> store::Result<Option<Vec<u64>>> {
    let def = cx.def("userconfig");
    let Some(cid) = w.find_unique(&def, cx.tenant, "userId", &cx.actor.user_id.to_string())? else { return Ok(None) };
    Ok(w.get(&def, cx.tenant, cid)?.map(|c| crate::auth::session::id_list(c.get("storeIds"))))
}

/// Refuses a write in a store outside the user's configured stores.
pub fn check_store(w: &WriteCtx, cx: &Ctx, store_id: u64) -> store::Result<()> {
    match user_stores(w, cx)? {
        Some(ids) if !ids.contains(&store_id) => {
            let name = w.get(&cx.def("store"), cx.tenant, store_id)?.map(|s| text(&s, "storeName").to_string()).unwrap_or_default();
            Err(rule(format!("您没有仓库 {name} 的操作权限(用户配置)"), format!("You do not work in store {name} (store access)")))
        }
        _ => Ok(()),
    }
}

pub use crate::engine::dialect::Statuses;
use crate::engine::dialect::status_name;

pub const RK_STATUS: Statuses = &[(0, "新建", "new"), (1, "收货中", "receiving"), (2, "复核中", "in review"), (3, "待上架", "put-away"), (4, "已完成", "done"), (9, "已取消", "cancelled")];
pub const CK_STATUS: Statuses = &[(0, "新建", "new"), (1, "已释放", "released"), (2, "拣货中", "picking"), (3, "已拣货", "picked"), (4, "已发货", "shipped"), (9, "已取消", "cancelled")];


/// Refuses an action on an order whose status does not allow it, naming the order and its status.
pub fn require_status(table: Statuses, order: &Map<String, Value>, allowed: &[i64], action: (&str, &str)) -> store::Result<()> {
    let s = ledger::qty(order, "orderStatus");
    if allowed.contains(&s) {
        return Ok(());
    }
    let (zh, en) = status_name(table, s);
    Err(rule(
        format!("单据 {} 状态为「{zh}」,不能{}", text(order, "orderNo"), action.0),
        format!("Order {} is {en}; it cannot be {}", text(order, "orderNo"), action.1),
    ))
}

/// An order resource with its lines: which resources, which statuses, the line's quantity and the order's total.
pub struct Orders {
    pub order: &'static str,
    pub lines: &'static str,
    pub table: Statuses,
    pub qty: &'static str,
    pub total: &'static str,
    /// The message when a line's quantity is not above zero.
    pub qty_msg: (&'static str, &'static str),
}

pub const RK: Orders = Orders { order: "order_rk", lines: "mxrk", table: RK_STATUS, qty: "expectedQty", total: "expectedTotal", qty_msg: ("预计数量必须大于0", "The expected quantity must be above 0") };
pub const CK: Orders = Orders { order: "order_ck", lines: "mxck", table: CK_STATUS, qty: "qty", total: "totalQty", qty_msg: ("出库数量必须大于0", "The quantity must be above 0") };

impl Orders {
    /// An order's header changes only while it is new; its store is one the user works in and does not change
    /// once it has lines.
    pub fn header_rule(&self, w: &WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &Map<String, Value>) -> store::Result<()> {
        if let Some(old) = old {
            require_status(self.table, old, &[0], ("修改", "changed"))?;
            if doc.get("storeId").is_some_and(|s| s != old.get("storeId").unwrap_or(&Value::Null)) && ledger::qty(old, "lineCount") > 0 {
                return Err(rule("单据已有明细,不能更换仓库", "The order has lines; its store cannot change"));
            }
        }
        if let Some(s) = crate::engine::dialect::after_id(old, doc, "storeId") {
            check_store(w, cx, s)?;
        }
        Ok(())
    }

    /// A new or cancelled order is removed with its lines; one that moved anything is not.
    pub fn remove_rule(&self, w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
        require_status(self.table, rec, &[0, 9], ("删除", "removed"))?;
        check_store(w, cx, id(rec, "storeId"))?;
        let def = cx.def(self.lines);
        let q = store::Query { filters: vec![store::Filter::new("orderId", store::Op::Equal, Value::from(id(rec, "id")))], limit: 100_000, ..store::Query::default() };
        let ids: Vec<u64> = w.list(&def, cx.tenant, &q)?.records.iter().map(|r| id(r, "id")).collect();
        if !ids.is_empty() {
            w.remove(&def, cx.tenant, &ids, cx.actor)?;
        }
        Ok(())
    }

    /// A line is written only while its order is new; it takes the order's store; the order's line count and
    /// total follow. Answers the line's goods (for further checks).
    pub fn line_rule(&self, w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<Map<String, Value>> {
        use crate::engine::dialect::{after_i64, after_id};
        if old.is_some_and(|o| doc.get("orderId").is_some_and(|n| Some(n) != o.get("orderId"))) {
            return Err(rule("明细不能移到另一张单据", "A line cannot move to another order"));
        }
        let oid = after_id(old, doc, "orderId").unwrap_or(0);
        let order = w.get(&cx.def(self.order), cx.tenant, oid)?.ok_or(StoreError::NotFound)?;
        require_status(self.table, &order, &[0], ("修改明细", "given other lines"))?;
        check_store(w, cx, id(&order, "storeId"))?;
        let goods = w.get(&cx.def("goods"), cx.tenant, after_id(old, doc, "goodsId").unwrap_or(0))?.ok_or(StoreError::NotFound)?;
        let n = after_i64(old, doc, self.qty).unwrap_or(0);
        if n <= 0 {
            return Err(rule(self.qty_msg.0, self.qty_msg.1));
        }
        doc.insert("storeId".into(), Value::from(id(&order, "storeId")));
        let before = old.map(|o| ledger::qty(o, self.qty)).unwrap_or(0);
        patch(w, cx, self.order, oid, &[
            ("lineCount", Value::from(ledger::qty(&order, "lineCount") + i64::from(old.is_none()))),
            (self.total, Value::from(ledger::qty(&order, self.total) - before + n)),
        ])?;
        Ok(goods)
    }

    /// A line is removed only while its order is new; the order's count and total follow.
    pub fn line_remove_rule(&self, w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
        let order = parent(w, cx, self.order, rec, "orderId")?;
        require_status(self.table, &order, &[0], ("删除明细", "given other lines"))?;
        check_store(w, cx, id(&order, "storeId"))?;
        patch(w, cx, self.order, id(&order, "id"), &[
            ("lineCount", Value::from((ledger::qty(&order, "lineCount") - 1).max(0))),
            (self.total, Value::from(ledger::qty(&order, self.total) - ledger::qty(rec, self.qty))),
        ])?;
        Ok(())
    }
}

/// The stored record of `name` named by `rec[field]` (a 404 when it is gone).
/// What a 短收/短拣完成 asks of: the order (by `id`, or the order of the line `lineId` names), the line if one
/// is named, and the reason. The order must be the caller's to see before the reason is asked for.
pub async fn short_target(
    st: &crate::state::AppState,
    s: &crate::auth::session::Session,
    p: &crate::http::AnyParams,
    order: &str,
    line_res: &str,
) -> ApiResult<(u64, Option<u64>, String)> {
    let line = p.get("lineId").filter(|v| !v.is_empty()).map(|v| crate::engine::crud::parse_id(Some(v))).transpose()?;
    let oid = match line {
        Some(l) => {
            let (ld, t) = (st.res.get(line_res), s.tenant.clone());
            let rec = st.read(move |r| r.get(&ld, &t, l)).await?.ok_or_else(|| ApiError::new(Kind::NotFound))?;
            id(&rec, "orderId")
        }
        None => crate::engine::params::id_param(p, &["id", "orderId"])?,
    };
    crate::engine::crud::get_scoped(st, s, &st.res.get(order), oid).await?;
    let reason: String = p.get("reason").unwrap_or("").trim().chars().take(200).collect();
    if reason.is_empty() {
        return Err(ApiError::with(Kind::Missing, "reason"));
    }
    Ok((oid, line, reason))
}

pub fn parent(w: &WriteCtx, cx: &Ctx, name: &str, rec: &Map<String, Value>, field: &str) -> store::Result<Map<String, Value>> {
    w.get(&cx.def(name), cx.tenant, id(rec, field))?.ok_or(StoreError::NotFound)
}

/// One field patch written through the store (for records the engine does not write itself).
pub fn patch(w: &mut WriteCtx, cx: &Ctx, name: &str, rid: u64, fields: &[(&str, Value)]) -> store::Result<Map<String, Value>> {
    let m: Map<String, Value> = fields.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    let before = if name == "order_rk" { w.get(&cx.def(name), cx.tenant, rid)?.and_then(|o| o.get("orderStatus").cloned()) } else { None };
    let saved = w.update(&cx.def(name), cx.tenant, rid, m, cx.actor)?;
    // 复核管理 lists and filters reviews by their order's status, which each review keeps (an indexed filter):
    // it follows the order in the same write when the status changes (a completed order's reviews still said 复核中).
    if name == "order_rk"
        && let Some((_, status)) = fields.iter().find(|(k, _)| *k == "orderStatus")
        && before.as_ref() != Some(status) {
        let rdef = cx.def("review");
        let q = store::Query { filters: vec![store::Filter::new("orderId", store::Op::Equal, serde_json::json!(rid))], limit: 10_000, ..store::Query::default() };
        for r in w.list(&rdef, cx.tenant, &q)?.records {
            if r.get("orderStatus") != Some(status) {
                let rid = r.get("id").and_then(Value::as_u64).unwrap_or(0);
                let mut m = Map::new();
                m.insert("orderStatus".into(), status.clone());
                w.update(&rdef, cx.tenant, rid, m, cx.actor)?;
            }
        }
    }
    Ok(saved)
}

// ---------------------------------------------------------------------------------------------------------
// Parameters of the hand-written saves

/// The items of a save body: `lines` (or `list`) when it is an array of objects, else the body itself.
pub fn items(body: &Map<String, Value>) -> Vec<Map<String, Value>> {
    match body.get("lines").or_else(|| body.get("list")) {
        Some(Value::Array(a)) => a.iter().filter_map(|v| v.as_object().cloned()).collect(),
        _ => vec![body.clone()],
    }
}

/// The request id of item `i` of a save: the body's `opId` (or the `X-Request-Id` header), suffixed by the
/// item's position when the body holds several.
pub fn op_id(body: &Map<String, Value>, headers: &axum::http::HeaderMap, i: usize, n: usize) -> ApiResult<Option<String>> {
    let raw = body
        .get("opId")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| headers.get("x-request-id").and_then(|v| v.to_str().ok()).map(str::to_string));
    let Some(raw) = raw.map(|r| r.trim().to_string()).filter(|r| !r.is_empty()) else { return Ok(None) };
    if raw.len() > 56 || !store::pattern_ok(store::Pattern::Code, &raw) {
        return Err(ApiError::with(Kind::WrongType, "opId"));
    }
    Ok(Some(if n > 1 { format!("{raw}#{i}") } else { raw }))
}

/// A quantity of an item (a JSON number or decimal text, at most four places); `required` refuses absence.
pub fn qty_of(item: &Map<String, Value>, field: &str, required: bool) -> ApiResult<Option<i64>> {
    let text = match item.get(field) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.trim().to_string()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(_) => return Err(ApiError::with(Kind::WrongType, field)),
    };
    match text {
        None if required => Err(ApiError::with(Kind::Missing, field)),
        None => Ok(None),
        // A negative quantity is out of range (as on the declared resources), not of the wrong type.
        Some(t) => match store::parse_qty(&t) {
            Some(q) if q >= 0 => Ok(Some(q)),
            Some(_) => Err(ApiError::with(Kind::OutOfRange, field)),
            None => Err(ApiError::with(Kind::WrongType, field)),
        },
    }
}

/// An id of an item (`"123"` or 123).
pub fn id_of(item: &Map<String, Value>, field: &str) -> ApiResult<u64> {
    match item.get(field) {
        None | Some(Value::Null) => Err(ApiError::with(Kind::Missing, field)),
        Some(Value::String(s)) if s.trim().is_empty() => Err(ApiError::with(Kind::Missing, field)),
        Some(v) => store::parse_id_value(v).ok_or_else(|| ApiError::with(Kind::WrongType, field)),
    }
}

/// A journal record (receipt, review, put-away, pick) of an order line: the line's order, goods and store, the
/// request id when there is one, and `extra` (a JSON object).
pub fn journal(w: &mut WriteCtx, cx: &Ctx, name: &str, line: &Map<String, Value>, op: Option<&str>, extra: Value) -> store::Result<Map<String, Value>> {
    let mut doc = Map::new();
    for (k, f) in [("orderId", "orderId"), ("lineId", "id"), ("goodsId", "goodsId"), ("storeId", "storeId")] {
        doc.insert(k.into(), Value::from(id(line, f)));
    }
    if let Some(op) = op {
        doc.insert("opId".into(), Value::from(op));
    }
    if let Value::Object(m) = extra {
        doc.extend(m);
    }
    w.insert(&cx.def(name), cx.tenant, doc, cx.actor)
}

/// The record an earlier request with this request id wrote, if any (a retry then writes nothing).
pub fn replayed(w: &WriteCtx, cx: &Ctx, name: &str, op: Option<&str>) -> store::Result<Option<Map<String, Value>>> {
    let Some(op) = op else { return Ok(None) };
    let def = cx.def(name);
    match w.find_unique(&def, cx.tenant, "opId", op)? {
        Some(rid) => w.get(&def, cx.tenant, rid),
        None => Ok(None),
    }
}

/// 仓库管理: the warehouse; `verify` recomputes every balance from the moves; the ERP callbacks are delivered in
/// the background.
pub const AREA: crate::api::Area = crate::api::Area {
    rules,
    demo: Some(demo::area_demo),
    verify: Some(verify),
    tasks: Some(erp::spawn),
    upgrades: &[("upgrade:review_order_status", review_order_status)],
    ..crate::api::Area::routes_only("wms", routes)
};

/// Reviews written before they followed their order's status (`patch`) take its status of now, once.
fn review_order_status(w: &mut store::WriteCtx, res: &crate::decl::Resources) -> store::Result<()> {
    let (rdef, odef) = (res.get("review"), res.get("order_rk"));
    let tenants: Vec<String> = w.all(&res.get("tenant"), store::PLATFORM_TENANT)?.iter().filter_map(|t| t.get("tenantId").and_then(Value::as_str).map(str::to_string)).collect();
    for t in tenants {
        for r in w.all(&rdef, &t)? {
            let Some(o) = w.get(&odef, &t, r.get("orderId").and_then(Value::as_u64).unwrap_or(0))? else { continue };
            let status = o.get("orderStatus").cloned().unwrap_or(Value::Null);
            if r.get("orderStatus") != Some(&status) && !status.is_null() {
                let mut m = Map::new();
                m.insert("orderStatus".into(), status);
                w.update(&rdef, &t, r.get("id").and_then(Value::as_u64).unwrap_or(0), m, &store::Actor::default())?;
            }
        }
    }
    Ok(())
}

fn verify(r: &store::ReadCtx, res: &crate::decl::Resources) -> store::Result<(String, Vec<String>)> {
    let a = ledger::audit(r, res)?;
    let line = format!("stock ledger: {} moves, {} balances: {}", a.moves, a.balances, if a.problems.is_empty() { "balances equal the moves" } else { "MISMATCH" });
    Ok((line, a.problems))
}
