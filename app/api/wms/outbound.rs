//! 出库: the outbound order (`order/ck`) and its lines (`mxck`), picking (`down`), shipment and cancellation.
//! Types: sale, project requisition (领料, to a project and optionally one of its constructs: the moves carry
//! them and their amount, which is the project's material cost), transfer-out (to the in-transit location),
//! other. Statuses: new → released (`order/ck/release`: every line's quantity reserved on bins in pick order —
//! first-expiring batch, oldest receipt, bin pick order — or nothing when any line is short, the message naming
//! the goods and the shortfall) → picking (`down/save`: bin → the store's dispatch area, consuming the
//! reservation) → picked (every line picked) → shipped (`order/ck/ship`: dispatch → customer, project or
//! transit; an ERP callback record is left), or cancelled (`order/ck/cancel`: reservations released, picked
//! goods moved back to the bins they came from).
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, WriteCtx, format_qty};

use super::inbound::goods_facts;
use super::ledger::{self, Doc, Loc, Move, Reservation, id, qty, text};
use super::{BASE, CK, CK_STATUS, check_store, id_of, items, journal, op_id, parent, patch, qty_of, replayed, require_status};
use crate::auth::session::Session;
use crate::engine::dialect::{Ctx, Env, after_i64, after_id, record_change};
use crate::engine::params::{id_param, page_json, page_of};
use crate::engine::{Api, Guard, crud};
use crate::error::{ApiError, ApiResult, Kind, rule};
use crate::http::{AnyParams, JsonObject, ok};
use crate::state::AppState;

pub fn routes(api: Api) -> Api {
    let (ck, down) = (api.def("order_ck"), api.def("down"));
    api.post(format!("{BASE}/order/ck/release"), Guard::write(&ck, &["edit"]), release)
        .doc("出库单 · release a new order: reserve every line on bins in pick order, all or nothing (body or query: id)", &[])
        // Shipping and closing short are the depot's, as picking is (下架 add): one who only raises and releases
        // orders (a 项目经理's 领料单) cannot confirm what left the store.
        .post(format!("{BASE}/order/ck/ship"), Guard::write(&down, &["add"]), ship)
        .doc("出库单 · confirm shipment of a picked order: dispatch area → customer, project (requisition) or in transit (body or query: id); the picker's code (down_add)", &[])
        .post(format!("{BASE}/order/ck/cancel"), Guard::write(&ck, &["edit"]), cancel)
        .doc("出库单 · cancel an order not shipped: reservations released, picked goods back to their bins (body or query: id)", &[])
        .post(format!("{BASE}/order/ck/close-short"), Guard::write(&down, &["add"]), close_short)
        .doc("出库单 · (the picker's code, down_add) 短拣完成: what the bins do not hold is no longer awaited (body {id} for every open line or {lineId} for one, reason): the rest of the reservation is released, the line records it as short with the reason, and the order is picked once every line is picked or short; its ERP callback carries the short quantities", &[])
        .get(format!("{BASE}/down/goods_list"), Guard::read(&down), pick_list)
        .doc("下架管理 · the pick list: each reserved bin and batch of released orders' lines, in pick order (query: orderId, current, size; without orderId every released order in the user's stores)", &[])
        .post(format!("{BASE}/down/save"), Guard::write(&down, &["add"]), pick)
        .doc(
            "下架管理 · pick (body: lineId, stockId or spaceId, qty, opId; or lines): bin → dispatch area, from the line's reservation first; a repeated opId moves nothing",
            &[],
        )
        .post(format!("{BASE}/down/submit"), Guard::write(&down, &["add"]), pick)
        .doc("下架管理 · the same as down/save (a Blade client's submit)", &[])
}

// ---------------------------------------------------------------------------------------------------------
// Rules of the declared order and lines

/// A requisition names its project; a construct must be of that project.
pub fn order_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    CK.header_rule(w, cx, old, doc)?;
    let construct = match after_id(old, doc, "constructId") {
        Some(c) => Some(w.get(&cx.def("construct"), cx.tenant, c)?.ok_or(store::StoreError::NotFound)?),
        None => None,
    };
    // A requisition for a 施工单 alone is for its project (a 施工单 dispatched to a 项目经理 on a colleague's
    // project, which he cannot pick).
    if let Some(k) = &construct
        && after_id(old, doc, "projectId").is_none() {
        doc.insert("projectId".into(), json!(id(k, "projectId")));
    }
    let project = after_id(old, doc, "projectId");
    if after_i64(old, doc, "orderType") == Some(2) && project.is_none() {
        return Err(rule("项目领料须选择领料项目", "A project requisition needs its project"));
    }
    if let Some(k) = construct
        && Some(id(&k, "projectId")) != project {
        return Err(rule("施工单不属于所选项目", "The construct is not of the chosen project"));
    }
    Ok(())
}

pub fn order_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    CK.remove_rule(w, cx, rec)
}

pub fn line_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    CK.line_rule(w, cx, old, doc).map(|_| ())
}

pub fn line_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    CK.line_remove_rule(w, cx, rec)
}

// ---------------------------------------------------------------------------------------------------------
// Release, ship, cancel

fn lines_of(w: &WriteCtx, cx: &Ctx, order: u64) -> store::Result<Vec<Map<String, Value>>> {
    let q = Query { filters: vec![Filter::new("orderId", Op::Equal, json!(order))], sorts: vec![store::Sort { field: "id".into(), desc: false }], limit: 100_000, ..Query::default() };
    Ok(w.list(&cx.def("mxck"), cx.tenant, &q)?.records)
}

fn doc_of<'a>(o: &'a Map<String, Value>, line: u64) -> Doc<'a> {
    Doc { kind: "ck", id: id(o, "id"), no: text(o, "orderNo"), line }
}

/// Runs `f` on an order of the session (scope checked before the write, status and store inside it) and
/// answers the order as saved.
async fn transition(
    st: AppState,
    s: Session,
    p: AnyParams,
    f: fn(&mut WriteCtx, &Ctx, &Map<String, Value>) -> store::Result<Map<String, Value>>,
) -> ApiResult<Response> {
    let oid = id_param(&p, &["id", "orderId"])?;
    crud::get_scoped(&st, &s, &st.res.get("order_ck"), oid).await?;
    on_order(st, s, oid, f).await
}

/// Runs `f` on order `oid`, whose scope the caller checked, in one write: the order read, the user's store
/// checked, the change recorded; answers the order as saved.
async fn on_order(
    st: AppState,
    s: Session,
    oid: u64,
    mut f: impl FnMut(&mut WriteCtx, &Ctx, &Map<String, Value>) -> store::Result<Map<String, Value>> + Send + 'static,
) -> ApiResult<Response> {
    let def = st.res.get("order_ck");
    let env = Env::new(&st, &s);
    let saved = st
        .write(move |w| {
            let cx = env.cx();
            let o = w.get(&cx.def("order_ck"), cx.tenant, oid)?.ok_or(store::StoreError::NotFound)?;
            check_store(w, &cx, id(&o, "storeId"))?;
            let saved = f(w, &cx, &o)?;
            record_change(w, &cx, &cx.def("order_ck"), Some(&o), Some(&saved))?;
            Ok(saved)
        })
        .await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &def, saved).await?))
}

/// POST order/ck/release {id}
async fn release(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    transition(st, s, p, |w, cx, o| {
        require_status(CK_STATUS, o, &[0], ("释放", "released"))?;
        let lines = lines_of(w, cx, id(o, "id"))?;
        if lines.is_empty() {
            return Err(rule("出库单没有明细", "The order has no lines"));
        }
        for l in &lines {
            let batch = Some(text(l, "batch")).filter(|b| !b.is_empty());
            let held = ledger::reserve(w, cx, id(l, "goodsId"), id(o, "storeId"), batch, qty(l, "qty"))?;
            patch(w, cx, "mxck", id(l, "id"), &[("reservedQty", json!(qty(l, "qty"))), ("reservations", ledger::reservations_json(&held))])?;
        }
        patch(w, cx, "order_ck", id(o, "id"), &[("orderStatus", json!(1))])
    })
    .await
}

/// The picks of an order grouped by line, goods, batch and bin.
fn picks_of(w: &WriteCtx, cx: &Ctx, order: u64) -> store::Result<Vec<Map<String, Value>>> {
    let q = Query { filters: vec![Filter::new("orderId", Op::Equal, json!(order))], limit: 100_000, ..Query::default() };
    Ok(w.list(&cx.def("down"), cx.tenant, &q)?.records)
}

/// POST order/ck/ship {id}
async fn ship(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    transition(st, s, p, |w, cx, o| {
        require_status(CK_STATUS, o, &[3], ("发货", "shipped"))?;
        let to = match qty(o, "orderType") {
            2 => Loc::Project(id(o, "projectId")),
            3 => Loc::Transit,
            _ => Loc::Customer,
        };
        let construct = Some(id(o, "constructId")).filter(|c| *c > 0);
        let project = Some(id(o, "projectId")).filter(|c| *c > 0);
        let mut by: std::collections::BTreeMap<(u64, u64, String), i64> = std::collections::BTreeMap::new();
        for d in picks_of(w, cx, id(o, "id"))? {
            *by.entry((id(&d, "lineId"), id(&d, "goodsId"), text(&d, "batch").to_string())).or_default() += qty(&d, "qty");
        }
        for ((line, goods, batch), n) in by {
            ledger::post(w, cx, &Move { project, construct, ..Move::new(goods, Loc::Disp(id(o, "storeId")), to, &batch, n, doc_of(o, line)) })?;
        }
        let saved = patch(w, cx, "order_ck", id(o, "id"), &[("orderStatus", json!(4)), ("shipTime", json!(cx.now))])?;
        super::erp::enqueue(w, cx, "ck", &saved, "mxck")?;
        Ok(saved)
    })
    .await
}

/// POST order/ck/close-short {id | lineId, reason}
async fn close_short(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let (oid, line, reason) = super::short_target(&st, &s, &p, "order_ck", "mxck").await?;
    on_order(st, s, oid, move |w, cx, o| {
        require_status(CK_STATUS, o, &[1, 2], ("短拣完成", "closed short"))?;
        let lines = lines_of(w, cx, oid)?;
        let mut closed = Vec::new();
        for l in lines.iter().filter(|l| line.is_none_or(|x| x == id(l, "id"))) {
            let open = qty(l, "qty") - qty(l, "pickedQty") - qty(l, "shortQty");
            if open <= 0 {
                continue;
            }
            ledger::release(w, cx, &ledger::reservations_of(l))?;
            patch(w, cx, "mxck", id(l, "id"), &[("shortQty", json!(qty(l, "shortQty") + open)), ("shortReason", json!(reason)), ("reservedQty", json!(0)), ("reservations", json!([]))])?;
            let g = w.get(&cx.def("goods"), cx.tenant, id(l, "goodsId"))?.unwrap_or_default();
            closed.push(format!("{} 短拣 {}", ledger::goods_label(&g), format_qty(open)));
        }
        if closed.is_empty() {
            return Err(rule("没有待拣的明细可以短拣完成", "No line is still waiting to be picked"));
        }
        let after = lines_of(w, cx, oid)?;
        if after.iter().all(|l| qty(l, "pickedQty") == 0) {
            return Err(rule("出库单一件都没有拣到:请取消出库单,而不是短拣完成", "Nothing of the order was picked: cancel it instead of closing it short"));
        }
        let all = after.iter().all(|l| qty(l, "pickedQty") + qty(l, "shortQty") >= qty(l, "qty"));
        let remark = format!("{}短拣完成({reason}):{}", if text(o, "remark").is_empty() { String::new() } else { format!("{};", text(o, "remark")) }, closed.join("、"));
        let mut fields = vec![("remark", json!(remark.chars().take(500).collect::<String>()))];
        if all {
            fields.push(("orderStatus", json!(3)));
        }
        patch(w, cx, "order_ck", oid, &fields)
    })
    .await
}

/// POST order/ck/cancel {id}
async fn cancel(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    transition(st, s, p, |w, cx, o| {
        require_status(CK_STATUS, o, &[0, 1, 2, 3], ("取消", "cancelled"))?;
        for l in lines_of(w, cx, id(o, "id"))? {
            ledger::release(w, cx, &ledger::reservations_of(&l))?;
            patch(w, cx, "mxck", id(&l, "id"), &[("reservedQty", json!(0)), ("reservations", json!([]))])?;
        }
        for d in picks_of(w, cx, id(o, "id"))? {
            ledger::post(w, cx, &Move::new(id(&d, "goodsId"), Loc::Disp(id(o, "storeId")), Loc::Bin(id(&d, "spaceId")), text(&d, "batch"), qty(&d, "qty"), doc_of(o, id(&d, "lineId"))))?;
        }
        patch(w, cx, "order_ck", id(o, "id"), &[("orderStatus", json!(9))])
    })
    .await
}

// ---------------------------------------------------------------------------------------------------------
// Picking

/// GET down/goods_list?orderId=&current=&size=
async fn pick_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let (current, size) = page_of(&p)?;
    let odef = st.res.get("order_ck");
    let orders: Vec<u64> = match p.get("orderId").or_else(|| p.get("id")).filter(|v| !v.is_empty()) {
        Some(_) => {
            let oid = id_param(&p, &["orderId", "id"])?;
            crud::get_scoped(&st, &s, &odef, oid).await?;
            vec![oid]
        }
        None => {
            let page = crate::engine::params::scoped_page(&st, &s, "order_ck", vec![Filter::new("orderStatus", Op::In, json!([1, 2]))], 1, 200).await?;
            page["records"].as_array().into_iter().flatten().filter_map(|r| r["id"].as_str()?.parse().ok()).collect()
        }
    };
    let env = Env::new(&st, &s);
    let rows = st
        .read(move |r| {
            let (ldef, sdef, odef) = (env.res.get("mxck"), env.res.get("stockdata"), env.res.get("order_ck"));
            let t = env.tenant.as_str();
            let mut rows = Vec::new();
            for oid in orders {
                let Some(o) = r.get(&odef, t, oid)? else { continue };
                if !matches!(qty(&o, "orderStatus"), 1 | 2) {
                    continue;
                }
                let q = Query { filters: vec![Filter::new("orderId", Op::Equal, json!(oid))], limit: 100_000, ..Query::default() };
                for l in r.list(&ldef, t, &q)?.records {
                    for (sid, held) in ledger::reservations_of(&l) {
                        let Some(sq) = r.get(&sdef, t, sid)? else { continue };
                        let mut row = Map::new();
                        row.insert("orderId".into(), json!(oid.to_string()));
                        row.insert("orderNo".into(), json!(text(&o, "orderNo")));
                        row.insert("lineId".into(), json!(id(&l, "id").to_string()));
                        row.insert("goodsId".into(), json!(id(&l, "goodsId").to_string()));
                        row.insert("stockId".into(), json!(sid.to_string()));
                        row.insert("spaceId".into(), json!(id(&sq, "spaceId").to_string()));
                        row.insert("locationName".into(), json!(text(&sq, "locationName")));
                        row.insert("batch".into(), json!(text(&sq, "batch")));
                        row.insert("expireDate".into(), sq.get("expireDate").cloned().unwrap_or(Value::Null));
                        row.insert("qty".into(), json!(format_qty(held)));
                        row.insert("lineQty".into(), json!(format_qty(qty(&l, "qty"))));
                        row.insert("pickedQty".into(), json!(format_qty(qty(&l, "pickedQty"))));
                        rows.push(row);
                    }
                }
            }
            Ok(rows)
        })
        .await?;
    let total = rows.len() as u64;
    let mut page: Vec<Map<String, Value>> = rows.into_iter().skip(((current - 1) * size) as usize).take(size as usize).collect();
    goods_facts(&st, &s.tenant, &mut page).await?;
    Ok(ok(page_json(page, total, current, size)))
}

/// POST down/save
async fn pick(State(st): State<AppState>, s: Session, headers: HeaderMap, JsonObject(body): JsonObject) -> ApiResult<Response> {
    let raw = items(&body);
    if raw.is_empty() || raw.len() > 500 {
        return Err(ApiError::with(Kind::NoneSelected, "lines"));
    }
    let ldef = st.res.get("mxck");
    let mut parsed = Vec::new();
    for (i, it) in raw.iter().enumerate() {
        let line = id_of(it, "lineId")?;
        crud::get_scoped(&st, &s, &ldef, line).await?;
        let stock = id_of(it, "stockId").ok();
        let space = id_of(it, "spaceId").ok();
        if stock.is_none() && space.is_none() {
            return Err(ApiError::with(Kind::Missing, "stockId"));
        }
        let batch: String = it.get("batch").and_then(Value::as_str).unwrap_or("").trim().to_string();
        let n = qty_of(it, "qty", true)?.unwrap_or(0);
        parsed.push((line, stock, space, batch, n, op_id(&body, &headers, i, raw.len())?));
    }
    let env = Env::new(&st, &s);
    let recs = st
        .write(move |w| {
            let cx = env.cx();
            let (mut out, mut touched): (Vec<Map<String, Value>>, Vec<(u64, bool)>) = (Vec::new(), Vec::new());
            for (line, stock, space, batch, n, op) in &parsed {
                if let Some(done) = replayed(w, &cx, "down", op.as_deref())? {
                    out.push(done);
                    continue;
                }
                let l = w.get(&cx.def("mxck"), cx.tenant, *line)?.ok_or(store::StoreError::NotFound)?;
                // What a pick reads of its order (an order carries its addresses, remarks and more).
                let o = w.get_fields(&cx.def("order_ck"), cx.tenant, id(&l, "orderId"), &["id", "orderNo", "orderStatus", "storeId"])?.ok_or(store::StoreError::NotFound)?;
                check_store(w, &cx, id(&o, "storeId"))?;
                require_status(CK_STATUS, &o, &[1, 2], ("拣货", "picked"))?;
                let store_id = id(&o, "storeId");
                let goods = id(&l, "goodsId");
                let sdef = cx.def("stockdata");
                let (sid, sq) = match stock {
                    Some(sid) => (*sid, w.get(&sdef, cx.tenant, *sid)?.ok_or(store::StoreError::NotFound)?),
                    None => {
                        let b = batch.as_str();
                        ledger::quant(w, &cx, goods, Loc::Bin(space.unwrap_or(0)), b)?
                            .ok_or_else(|| rule("该储位没有此商品的库存", "The bin holds none of this goods"))?
                    }
                };
                if id(&sq, "goodsId") != goods || id(&sq, "storeId") != store_id || id(&sq, "spaceId") == 0 {
                    return Err(rule("所选库存不是该明细的商品,或不在出库仓库的储位上", "The stock row is not this line's goods in a bin of the order's store"));
                }
                let want_batch = text(&l, "batch");
                if !want_batch.is_empty() && want_batch != text(&sq, "batch") {
                    return Err(rule(format!("该明细指定批次 {want_batch}"), format!("The line asks for batch {want_batch}")));
                }
                let open = qty(&l, "qty") - qty(&l, "pickedQty") - qty(&l, "shortQty");
                if *n <= 0 || *n > open {
                    return Err(rule(
                        format!("拣货数量须大于0且不超过待拣数量 {}", format_qty(open)),
                        format!("The quantity must be above 0 and at most the {} still to pick", format_qty(open)),
                    ));
                }
                let mut held: Vec<Reservation> = ledger::reservations_of(&l);
                let here = held.iter().find(|(q, _)| *q == sid).map(|(_, h)| *h).unwrap_or(0);
                let consume = here.min(*n);
                ledger::post(w, &cx, &Move { consume, from_row: Some((sid, &sq)), ..Move::new(goods, Loc::Bin(id(&sq, "spaceId")), Loc::Disp(store_id), text(&sq, "batch"), *n, doc_of(&o, *line)) })?;
                // The line keeps exactly its open quantity reserved: what was taken here, plus any excess picked
                // beyond this bin's reservation released from its other bins.
                for h in held.iter_mut().filter(|(q, _)| *q == sid) {
                    h.1 -= consume;
                }
                let mut extra = *n - consume;
                let mut give_back = Vec::new();
                for h in held.iter_mut().filter(|(q, _)| *q != sid) {
                    if extra == 0 {
                        break;
                    }
                    let take = h.1.min(extra);
                    h.1 -= take;
                    extra -= take;
                    give_back.push((h.0, take));
                }
                ledger::release(w, &cx, &give_back)?;
                held.retain(|(_, q)| *q > 0);
                let reserved: i64 = held.iter().map(|(_, q)| q).sum();
                let picked = qty(&l, "pickedQty") + n;
                let line_done = picked + qty(&l, "shortQty") >= qty(&l, "qty");
                let rec = journal(w, &cx, "down", &l, op.as_deref(), json!({"spaceId": id(&sq, "spaceId"), "stockId": sid, "batch": text(&sq, "batch"), "qty": n}))?;
                // The line as read above: only the stock rows changed since (no second read of it).
                let lpatch: Map<String, Value> = [("pickedQty", json!(picked)), ("reservedQty", json!(reserved)), ("reservations", ledger::reservations_json(&held))]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect();
                w.update_from(&cx.def("mxck"), cx.tenant, *line, l, lpatch, cx.actor)?;
                out.push(rec);
                match touched.iter_mut().find(|(oid, _)| *oid == id(&o, "id")) {
                    Some(t) => t.1 |= line_done,
                    None => touched.push((id(&o, "id"), line_done)),
                }
            }
            for (oid, a_line_done) in touched {
                let now = w.get_fields(&cx.def("order_ck"), cx.tenant, oid, &["orderStatus"])?.ok_or(store::StoreError::NotFound)?;
                // The order is picked when its last open line is: its other lines are read only then.
                let all = a_line_done && lines_of(w, &cx, oid)?.iter().all(|l| qty(l, "pickedQty") + qty(l, "shortQty") >= qty(l, "qty"));
                let to = if all { 3 } else { 2 };
                if qty(&now, "orderStatus") != to {
                    let o = w.get(&cx.def("order_ck"), cx.tenant, oid)?.ok_or(store::StoreError::NotFound)?;
                    let saved = patch(w, &cx, "order_ck", oid, &[("orderStatus", json!(to))])?;
                    record_change(w, &cx, &cx.def("order_ck"), Some(&o), Some(&saved))?;
                }
            }
            Ok(out)
        })
        .await?;
    let def = st.res.get("down");
    let mut out = crud::wire_records(&st, &def, &s.tenant, recs).await?;
    goods_facts(&st, &s.tenant, &mut out).await?;
    Ok(ok(out))
}

/// A pick is reversed while the order is not shipped: the goods go back to their bin and stay reserved for the
/// line.
pub fn down_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    let l = w.get(&cx.def("mxck"), cx.tenant, id(rec, "lineId"))?.ok_or(store::StoreError::NotFound)?;
    let o = parent(w, cx, "order_ck", &l, "orderId")?;
    check_store(w, cx, id(&o, "storeId"))?;
    require_status(CK_STATUS, &o, &[2, 3], ("撤销拣货", "have picks reversed"))?;
    let n = qty(rec, "qty");
    let bin = Loc::Bin(id(rec, "spaceId"));
    ledger::post(w, cx, &Move::new(id(&l, "goodsId"), Loc::Disp(id(&o, "storeId")), bin, text(rec, "batch"), n, doc_of(&o, id(&l, "id"))))?;
    let (sid, sq) = ledger::quant(w, cx, id(&l, "goodsId"), bin, text(rec, "batch"))?.ok_or(store::StoreError::NotFound)?;
    patch(w, cx, "stockdata", sid, &[("reserved", json!(qty(&sq, "reserved") + n)), ("available", json!(qty(&sq, "available") - n))])?;
    let mut held = ledger::reservations_of(&l);
    match held.iter_mut().find(|(q, _)| *q == sid) {
        Some(h) => h.1 += n,
        None => held.push((sid, n)),
    }
    patch(w, cx, "mxck", id(&l, "id"), &[
        ("pickedQty", json!(qty(&l, "pickedQty") - n)),
        ("reservedQty", json!(qty(&l, "reservedQty") + n)),
        ("reservations", ledger::reservations_json(&held)),
    ])?;
    let picked_after: i64 = lines_of(w, cx, id(&o, "id"))?.iter().map(|x| qty(x, "pickedQty")).sum();
    let to = if picked_after > 0 { 2 } else { 1 };
    patch(w, cx, "order_ck", id(&o, "id"), &[("orderStatus", json!(to))])?;
    Ok(())
}
