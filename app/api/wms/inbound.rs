//! 入库: the inbound order (`order/rk`) and its lines (`mxrk`), receiving (`received`), review (`review`)
//! and put-away (`up`). Goods received land in the store's receiving area (`recv:{store}`); review splits them
//! into passed (stay there, waiting for put-away) and failed (to the returns area `ret:{store}`, never into
//! storage); put-away moves passed goods into bins. The order follows its lines: new → receiving (first
//! receipt) → in review (first review) → put-away (`review/finish`: every received quantity reviewed) → done
//! (everything passed is in bins; an ERP callback record is left), or cancelled while nothing was received.
//!
//! Rules: a line receives at most its expected quantity (over-receipt is refused, naming the line);
//! under-receipt is allowed and shows as expected vs received. A receipt not yet reviewed can be reversed
//! (`received/remove`: the goods go back to the supplier location); a review can be reversed while the order is
//! in review; a put-away while the order is not done. Lines change only while the order is new.
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, WriteCtx, format_qty};

use super::ledger::{self, Doc, Loc, Move, id, qty, text};
use super::{BASE, RK, RK_STATUS, check_store, id_of, items, journal, op_id, parent, patch, qty_of, replayed, require_status};
use crate::auth::session::Session;
use crate::engine::dialect::{Ctx, Env, after};
use crate::engine::params::{id_param, page_json, page_of};
use crate::engine::{Api, Guard, crud};
use crate::error::{ApiResult, rule};
use crate::http::{AnyParams, JsonObject, ok};
use crate::state::AppState;

pub fn routes(api: Api) -> Api {
    let (rk, received, review, up) = (api.def("order_rk"), api.def("received"), api.def("review"), api.def("up"));
    api.post(format!("{BASE}/order/rk/cancel"), Guard::write(&rk, &["edit"]), cancel)
        .doc("入库单 · cancel an order nothing was received on (body or query: id)", &[])
        .post(format!("{BASE}/order/rk/close-short"), Guard::write(&rk, &["edit"]), close_short)
        .doc("入库单 · 短收完成: close a line (lineId) or every open line of an order (id) short with a reason: what was not delivered is no longer expected; the order's record and its ERP callback say so", &[])
        .get(format!("{BASE}/received/goods_list"), Guard::read(&received), receive_list)
        .doc("收货管理 · the lines of an inbound order still to receive, with expected, received and remaining quantity (query: orderId)", &[])
        .post(format!("{BASE}/received/save"), Guard::write(&received, &["add"]), receive)
        .doc(
            "收货管理 · receive goods (body: lineId, qty, opId; or lines: [{lineId, qty}]): supplier → the store's receiving area; at most the expected quantity; a repeated opId moves nothing",
            &[],
        )
        .post(format!("{BASE}/received/submit"), Guard::write(&received, &["add"]), receive)
        .doc("收货管理 · the same as received/save (a Blade client's submit)", &[])
        .get(format!("{BASE}/review/goods"), Guard::read(&review), review_list)
        .doc("复核管理 · the lines of an inbound order received but not yet reviewed (query: orderId)", &[])
        .post(format!("{BASE}/review/save"), Guard::write(&review, &["add", "edit"]), review_save)
        .doc(
            "复核管理 · record passed and failed quantities of a line (body: lineId, passedQty, failedQty, remark, opId; or lines): failed goods go to the returns area",
            &[],
        )
        .post(format!("{BASE}/review/submit"), Guard::write(&review, &["add", "edit"]), review_save)
        .doc("复核管理 · the same as review/save (a Blade client's submit)", &[])
        .post(format!("{BASE}/review/finish"), Guard::any(&["review_finish", "review_edit"]), review_finish)
        .doc("复核管理 · finish the review of an inbound order (body or query: orderId or id): every received quantity must be reviewed; the order goes to put-away, or done when nothing passed", &[])
        .get(format!("{BASE}/up/goods"), Guard::read(&up), up_list)
        .doc("上架管理 · passed goods waiting for put-away, each with a suggested bin (query: orderId; without it every order waiting in the user's stores)", &[])
        .post(format!("{BASE}/up/save"), Guard::write(&up, &["add"]), up_save)
        .doc("上架管理 · put away (body: lineId, spaceId, qty, opId; or lines): receiving area → bin; the order is done when everything passed is in bins", &[])
        .post(format!("{BASE}/up/submit"), Guard::write(&up, &["add"]), up_save)
        .doc("上架管理 · the same as up/save (a Blade client's submit)", &[])
}

// ---------------------------------------------------------------------------------------------------------
// Rules of the declared order and lines

pub fn order_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    RK.header_rule(w, cx, old, doc)
}

pub fn order_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    RK.remove_rule(w, cx, rec)
}

/// Inbound lines: the goods enabled, the expiry not before the production date.
pub fn line_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    if let (Some(p), Some(e)) = (after(old, doc, "productionDate").and_then(Value::as_str), after(old, doc, "expireDate").and_then(Value::as_str))
        && e < p {
        return Err(rule("到期日期不能早于生产日期", "The expiry cannot be before the production date"));
    }
    let goods = RK.line_rule(w, cx, old, doc)?;
    if qty(&goods, "enabled") == 0 && goods.get("enabled").is_some() {
        return Err(rule(format!("商品 {} 已停用", ledger::goods_label(&goods)), format!("Goods {} is disabled", ledger::goods_label(&goods))));
    }
    Ok(())
}

pub fn line_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    RK.line_remove_rule(w, cx, rec)
}

/// POST order/rk/cancel {id}
async fn cancel(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let oid = id_param(&p, &["id", "orderId"])?;
    let def = st.res.get("order_rk");
    crud::get_scoped(&st, &s, &def, oid).await?;
    let env = Env::new(&st, &s);
    let saved = st
        .write(move |w| {
            let cx = env.cx();
            let order = w.get(&cx.def("order_rk"), cx.tenant, oid)?.ok_or(store::StoreError::NotFound)?;
            require_status(RK_STATUS, &order, &[0], ("取消", "cancelled"))?;
            check_store(w, &cx, id(&order, "storeId"))?;
            let saved = patch(w, &cx, "order_rk", oid, &[("orderStatus", json!(9))])?;
            crate::engine::dialect::record_change(w, &cx, &cx.def("order_rk"), Some(&order), Some(&saved))?;
            Ok(saved)
        })
        .await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &def, saved).await?))
}

// ---------------------------------------------------------------------------------------------------------
// Work lists

/// The lines of an order (visible to the session) with their goods, each given `extra` computed fields; rows
/// whose `keep` is false are left out.
async fn order_lines(
    st: &AppState,
    s: &Session,
    p: &AnyParams,
    statuses: &[i64],
    keep: fn(&Map<String, Value>) -> Option<Vec<(&'static str, Value)>>,
) -> ApiResult<Value> {
    let (current, size) = page_of(p)?;
    let odef = st.res.get("order_rk");
    let orders: Vec<u64> = match p.get("orderId").or_else(|| p.get("id")).filter(|v| !v.is_empty()) {
        Some(_) => {
            let oid = id_param(p, &["orderId", "id"])?;
            crud::get_scoped(st, s, &odef, oid).await?;
            vec![oid]
        }
        None => {
            let filters = vec![Filter::new("orderStatus", Op::In, json!(statuses))];
            let page = crate::engine::params::scoped_page(st, s, "order_rk", filters, 1, 200).await?;
            page["records"].as_array().into_iter().flatten().filter_map(|r| r["id"].as_str()?.parse().ok()).collect()
        }
    };
    let ldef = st.res.get("mxrk");
    let (l2, t) = (ldef.clone(), s.tenant.clone());
    let lines = st
        .read(move |r| {
            let mut out = Vec::new();
            for oid in orders {
                let q = Query { filters: vec![Filter::new("orderId", Op::Equal, json!(oid))], limit: 10_000, ..Query::default() };
                out.extend(r.list(&l2, &t, &q)?.records);
            }
            Ok(out)
        })
        .await?;
    let mut rows: Vec<Map<String, Value>> = Vec::new();
    for l in lines {
        if let Some(extra) = keep(&l) {
            let mut l = l;
            for (k, v) in extra {
                l.insert(k.to_string(), v);
            }
            rows.push(l);
        }
    }
    let total = rows.len() as u64;
    let page: Vec<Map<String, Value>> = rows.into_iter().skip(((current - 1) * size) as usize).take(size as usize).collect();
    let mut recs = crud::wire_records(st, &ldef, &s.tenant, page).await?;
    goods_facts(st, &s.tenant, &mut recs).await?;
    Ok(page_json(recs, total, current, size))
}

/// Adds the goods' code, barcode, spec and unit to wire rows that name a `goodsId` (scan-friendly lists).
pub(super) async fn goods_facts(st: &AppState, tenant: &str, rows: &mut [Map<String, Value>]) -> ApiResult<()> {
    let ids: Vec<u64> = rows.iter().filter_map(|r| r.get("goodsId")?.as_str()?.parse().ok()).collect();
    let (g, t) = (st.res.get("goods"), tenant.to_string());
    const SHOWN: [&str; 5] = ["goodsCode", "goodsName", "barcode", "spec", "unit"];
    let n = ids.len();
    let read = move |r: &store::ReadCtx| {
        let mut m = std::collections::HashMap::new();
        for i in ids {
            if let Some(rec) = r.get_fields(&g, &t, i, &SHOWN)? {
                m.insert(i, rec);
            }
        }
        Ok(m)
    };
    // A few goods (a pick's, a page of lines) are read here, without a thread hop.
    let goods = st.read_points(n, read).await?;
    for row in rows.iter_mut() {
        let Some(g) = row.get("goodsId").and_then(Value::as_str).and_then(|v| v.parse::<u64>().ok()).and_then(|i| goods.get(&i)) else { continue };
        for k in SHOWN {
            let v = g.get(k).cloned().unwrap_or(Value::Null);
            let key = if k == "barcode" { "goodsBarcode" } else { k };
            row.insert(key.into(), v);
        }
    }
    Ok(())
}

fn q(v: i64) -> Value {
    json!(format_qty(v))
}

/// GET received/goods_list?orderId=
async fn receive_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let out = order_lines(&st, &s, &p, &[0, 1, 2], |l| {
        let rest = qty(l, "expectedQty") - qty(l, "receivedQty") - qty(l, "shortQty");
        (rest > 0).then(|| vec![("remainingQty", q(rest))])
    })
    .await?;
    Ok(ok(out))
}

/// GET review/goods?orderId=
async fn review_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let out = order_lines(&st, &s, &p, &[1, 2], |l| {
        let rest = qty(l, "receivedQty") - qty(l, "passedQty") - qty(l, "failedQty");
        (rest > 0).then(|| vec![("toReviewQty", q(rest))])
    })
    .await?;
    Ok(ok(out))
}

/// GET up/goods?orderId=: with a suggested bin per line.
async fn up_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let mut out = order_lines(&st, &s, &p, &[3], |l| {
        let rest = qty(l, "passedQty") - qty(l, "putQty");
        (rest > 0).then(|| vec![("toPutQty", q(rest))])
    })
    .await?;
    let rows: Vec<(u64, u64)> = out["records"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| Some((r["goodsId"].as_str()?.parse().ok()?, r["storeId"].as_str()?.parse().ok()?)))
        .collect();
    let env = Env::new(&st, &s);
    let suggestions = st.read(move |r| rows.iter().map(|(g, s)| suggest_bin(r, &env, *g, *s)).collect::<store::Result<Vec<_>>>()).await?;
    if let Some(recs) = out["records"].as_array_mut() {
        for (rec, sug) in recs.iter_mut().zip(suggestions) {
            if let Some((sid, code)) = sug {
                rec["suggestSpaceId"] = json!(sid.to_string());
                rec["suggestSpaceCode"] = json!(code);
            }
        }
    }
    Ok(ok(out))
}

/// Where to put a goods away in a store: the unlocked bin already holding most of it (keep a goods together),
/// else the first free storage bin by put-away order and code. Suggests only; nothing is reserved.
fn suggest_bin(r: &store::ReadCtx, env: &Env, goods: u64, store_id: u64) -> store::Result<Option<(u64, String)>> {
    let t = env.tenant.as_str();
    let (sdef, bdef, adef) = (env.res.get("stockdata"), env.res.get("storagespace"), env.res.get("reservoirarea"));
    let q = Query {
        filters: vec![Filter::new("goodsId", Op::Equal, json!(goods)), Filter::new("storeId", Op::Equal, json!(store_id)), Filter::new("qty", Op::Gt, json!(0))],
        limit: 1000,
        ..Query::default()
    };
    let mut held: Vec<Map<String, Value>> = r.list(&sdef, t, &q)?.records.into_iter().filter(|x| id(x, "spaceId") > 0).collect();
    held.sort_by_key(|x| -qty(x, "qty"));
    for h in held {
        if let Some(b) = r.get(&bdef, t, id(&h, "spaceId"))?
            && qty(&b, "spaceState") != 2 {
            return Ok(Some((id(&b, "id"), text(&b, "spaceCode").to_string())));
        }
    }
    let aq = Query { filters: vec![Filter::new("storeId", Op::Equal, json!(store_id)), Filter::new("areaKind", Op::In, json!([2, 3]))], limit: 1000, ..Query::default() };
    let areas: Vec<u64> = r.list(&adef, t, &aq)?.records.iter().map(|a| id(a, "id")).collect();
    if areas.is_empty() {
        return Ok(None);
    }
    let bq = Query {
        filters: vec![Filter::new("areaId", Op::In, json!(areas)), Filter::new("spaceState", Op::Equal, json!(0))],
        sorts: vec![store::Sort { field: "putOrder".into(), desc: false }, store::Sort { field: "spaceCode".into(), desc: false }],
        limit: 1,
        ..Query::default()
    };
    Ok(r.list(&bdef, t, &bq)?.records.first().map(|b| (id(b, "id"), text(b, "spaceCode").to_string())))
}

// ---------------------------------------------------------------------------------------------------------
// Receive, review, put away

/// One line of a save, checked against the session before the write.
struct Item {
    line: u64,
    fields: Map<String, Value>,
    op: Option<String>,
}

async fn parse_items(st: &AppState, s: &Session, headers: &HeaderMap, body: &Map<String, Value>, line_res: &str) -> ApiResult<Vec<Item>> {
    let raw = items(body);
    if raw.is_empty() || raw.len() > 500 {
        return Err(crate::error::ApiError::with(crate::error::Kind::NoneSelected, "lines"));
    }
    let ldef = st.res.get(line_res);
    let mut out = Vec::new();
    for (i, it) in raw.iter().enumerate() {
        let line = id_of(it, "lineId").or_else(|_| id_of(it, "id"))?;
        crud::get_scoped(st, s, &ldef, line).await?;
        out.push(Item { line, fields: it.clone(), op: op_id(body, headers, i, raw.len())? });
    }
    Ok(out)
}

/// The line, its order (of the right type, in a store the user works in) and the order's number.
fn line_and_order(w: &WriteCtx, cx: &Ctx, line: u64) -> store::Result<(Map<String, Value>, Map<String, Value>)> {
    let l = w.get(&cx.def("mxrk"), cx.tenant, line)?.ok_or(store::StoreError::NotFound)?;
    let o = parent(w, cx, "order_rk", &l, "orderId")?;
    check_store(w, cx, id(&o, "storeId"))?;
    Ok((l, o))
}

fn doc_of<'a>(o: &'a Map<String, Value>, l: &Map<String, Value>) -> Doc<'a> {
    Doc { kind: "rk", id: id(o, "id"), no: text(o, "orderNo"), line: id(l, "id") }
}

async fn answer(st: &AppState, s: &Session, name: &str, recs: Vec<Map<String, Value>>) -> ApiResult<Response> {
    let def = st.res.get(name);
    let mut out = crud::wire_records(st, &def, &s.tenant, recs).await?;
    goods_facts(st, &s.tenant, &mut out).await?;
    Ok(ok(out))
}

/// POST received/save
async fn receive(State(st): State<AppState>, s: Session, headers: HeaderMap, JsonObject(body): JsonObject) -> ApiResult<Response> {
    let its = parse_items(&st, &s, &headers, &body, "mxrk").await?;
    let mut parsed = Vec::new();
    for it in its {
        let n = match qty_of(&it.fields, "qty", false)? {
            Some(n) => n,
            None => qty_of(&it.fields, "receivedQty", true)?.unwrap_or(0),
        };
        parsed.push((it, n));
    }
    let env = Env::new(&st, &s);
    let recs = st
        .write(move |w| {
            let cx = env.cx();
            let mut out = Vec::new();
            for (it, n) in &parsed {
                if let Some(done) = replayed(w, &cx, "received", it.op.as_deref())? {
                    out.push(done);
                    continue;
                }
                let (l, o) = line_and_order(w, &cx, it.line)?;
                require_status(RK_STATUS, &o, &[0, 1, 2], ("收货", "received"))?;
                // What was closed short is no longer expected.
                let (expected, got) = (qty(&l, "expectedQty") - qty(&l, "shortQty"), qty(&l, "receivedQty"));
                if *n <= 0 {
                    return Err(rule("收货数量必须大于0", "The received quantity must be above 0"));
                }
                if got + n > expected {
                    let g = w.get(&cx.def("goods"), cx.tenant, id(&l, "goodsId"))?.unwrap_or_default();
                    return Err(rule(
                        format!("超收:商品 {} 预计 {},已收 {},本次 {}", ledger::goods_label(&g), format_qty(expected), format_qty(got), format_qty(*n)),
                        format!("Over-receipt: {} expects {}, {} received, {} more", ledger::goods_label(&g), format_qty(expected), format_qty(got), format_qty(*n)),
                    ));
                }
                let store_id = id(&o, "storeId");
                let expire = text(&l, "expireDate").to_string();
                ledger::post(w, &cx, &Move { expire: Some(&expire), ..Move::new(id(&l, "goodsId"), Loc::Supplier, Loc::Recv(store_id), text(&l, "batch"), *n, doc_of(&o, &l)) })?;
                patch(w, &cx, "mxrk", it.line, &[("receivedQty", json!(got + n))])?;
                let status = if qty(&o, "orderStatus") == 0 { 1 } else { qty(&o, "orderStatus") };
                patch(w, &cx, "order_rk", id(&o, "id"), &[("receivedTotal", json!(qty(&o, "receivedTotal") + n)), ("orderStatus", json!(status))])?;
                out.push(journal(w, &cx, "received", &l, it.op.as_deref(), json!({"batch": text(&l, "batch"), "qty": n}))?);
            }
            Ok(out)
        })
        .await?;
    answer(&st, &s, "received", recs).await
}

/// POST order/rk/close-short {id | lineId, reason}: 短收完成. A supplier's short delivery ends: each open line (or
/// the one named) keeps what was received and records the rest as short, with the reason; nothing moves in the
/// stock ledger (the goods never came). The order's record names each line closed, and the ERP callback of the
/// finished order carries the short quantities and the reason. Refused while nothing was received (cancel the
/// order instead) and once the order is past review.
async fn close_short(State(st): State<AppState>, s: Session, p: crate::http::AnyParams) -> ApiResult<Response> {
    let (oid, line, reason) = super::short_target(&st, &s, &p, "order_rk", "mxrk").await?;
    let def = st.res.get("order_rk");
    let env = Env::new(&st, &s);
    let saved = st
        .write(move |w| {
            let cx = env.cx();
            let o = w.get(&cx.def("order_rk"), cx.tenant, oid)?.ok_or(store::StoreError::NotFound)?;
            check_store(w, &cx, id(&o, "storeId"))?;
            require_status(RK_STATUS, &o, &[1, 2], ("短收完成", "closed short"))?;
            let q = Query { filters: vec![Filter::new("orderId", Op::Equal, json!(oid))], limit: 100_000, ..Query::default() };
            let lines = w.list(&cx.def("mxrk"), cx.tenant, &q)?.records;
            let mut closed = Vec::new();
            for l in lines.iter().filter(|l| line.is_none_or(|x| x == id(l, "id"))) {
                let open = qty(l, "expectedQty") - qty(l, "receivedQty") - qty(l, "shortQty");
                if open <= 0 {
                    continue;
                }
                patch(w, &cx, "mxrk", id(l, "id"), &[("shortQty", json!(qty(l, "shortQty") + open)), ("shortReason", json!(reason))])?;
                let g = w.get(&cx.def("goods"), cx.tenant, id(l, "goodsId"))?.unwrap_or_default();
                closed.push(format!("{} 短收 {}", ledger::goods_label(&g), format_qty(open)));
            }
            if closed.is_empty() {
                return Err(rule("没有待收的明细可以短收完成", "No line is still waiting to be received"));
            }
            let saved = patch(w, &cx, "order_rk", oid, &[("remark", json!(format!("{}短收完成({reason}):{}", if text(&o, "remark").is_empty() { String::new() } else { format!("{};", text(&o, "remark")) }, closed.join("、")).chars().take(500).collect::<String>()))])?;
            crate::engine::dialect::record_change(w, &cx, &cx.def("order_rk"), Some(&o), Some(&saved))?;
            Ok(saved)
        })
        .await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &def, saved).await?))
}

/// A receipt not yet reviewed is reversed: the goods go back to the supplier location.
pub fn received_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    let (l, o) = line_and_order(w, cx, id(rec, "lineId"))?;
    require_status(RK_STATUS, &o, &[1, 2], ("撤销收货", "have receipts reversed"))?;
    let n = qty(rec, "qty");
    let unreviewed = qty(&l, "receivedQty") - qty(&l, "passedQty") - qty(&l, "failedQty");
    if unreviewed < n {
        return Err(rule("该收货已复核,不能撤销;请先撤销复核", "The receipt was reviewed; reverse the review first"));
    }
    ledger::post(w, cx, &Move::new(id(&l, "goodsId"), Loc::Recv(id(&o, "storeId")), Loc::Supplier, text(&l, "batch"), n, doc_of(&o, &l)))?;
    patch(w, cx, "mxrk", id(&l, "id"), &[("receivedQty", json!(qty(&l, "receivedQty") - n))])?;
    let total = qty(&o, "receivedTotal") - n;
    let status = if total == 0 && qty(&o, "orderStatus") == 1 { 0 } else { qty(&o, "orderStatus") };
    patch(w, cx, "order_rk", id(&o, "id"), &[("receivedTotal", json!(total)), ("orderStatus", json!(status))])?;
    Ok(())
}

/// POST review/save
async fn review_save(State(st): State<AppState>, s: Session, headers: HeaderMap, JsonObject(body): JsonObject) -> ApiResult<Response> {
    let its = parse_items(&st, &s, &headers, &body, "mxrk").await?;
    let mut parsed = Vec::new();
    for it in its {
        let passed = qty_of(&it.fields, "passedQty", false)?.unwrap_or(0);
        let failed = qty_of(&it.fields, "failedQty", false)?.unwrap_or(0);
        let remark: String = it.fields.get("remark").and_then(Value::as_str).unwrap_or("").chars().take(200).collect();
        parsed.push((it, passed, failed, remark));
    }
    let env = Env::new(&st, &s);
    let recs = st
        .write(move |w| {
            let cx = env.cx();
            let mut out = Vec::new();
            for (it, passed, failed, remark) in &parsed {
                if let Some(done) = replayed(w, &cx, "review", it.op.as_deref())? {
                    out.push(done);
                    continue;
                }
                let (l, o) = line_and_order(w, &cx, it.line)?;
                require_status(RK_STATUS, &o, &[1, 2], ("复核", "reviewed"))?;
                let (p0, f0) = (qty(&l, "passedQty"), qty(&l, "failedQty"));
                let open = qty(&l, "receivedQty") - p0 - f0;
                if passed + failed <= 0 {
                    return Err(rule("合格与不合格数量不能都为0", "Passed and failed cannot both be 0"));
                }
                if passed + failed > open {
                    return Err(rule(
                        format!("复核数量 {} 超过待复核数量 {}", format_qty(passed + failed), format_qty(open)),
                        format!("{} reviewed but only {} is waiting for review", format_qty(passed + failed), format_qty(open)),
                    ));
                }
                if *failed > 0 {
                    ledger::post(w, &cx, &Move::new(id(&l, "goodsId"), Loc::Recv(id(&o, "storeId")), Loc::Ret(id(&o, "storeId")), text(&l, "batch"), *failed, doc_of(&o, &l)))?;
                }
                patch(w, &cx, "mxrk", it.line, &[("passedQty", json!(p0 + passed)), ("failedQty", json!(f0 + failed))])?;
                if qty(&o, "orderStatus") == 1 {
                    patch(w, &cx, "order_rk", id(&o, "id"), &[("orderStatus", json!(2))])?;
                }
                out.push(journal(w, &cx, "review", &l, it.op.as_deref(), json!({
                    "batch": text(&l, "batch"), "passedQty": passed, "failedQty": failed, "orderStatus": 2, "remark": remark,
                }))?);
            }
            Ok(out)
        })
        .await?;
    answer(&st, &s, "review", recs).await
}

/// A review is reversed while the order is still in review: failed goods come back from the returns area.
pub fn review_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    let (l, o) = line_and_order(w, cx, id(rec, "lineId"))?;
    require_status(RK_STATUS, &o, &[2], ("撤销复核", "have reviews reversed"))?;
    let (passed, failed) = (qty(rec, "passedQty"), qty(rec, "failedQty"));
    if failed > 0 {
        ledger::post(w, cx, &Move::new(id(&l, "goodsId"), Loc::Ret(id(&o, "storeId")), Loc::Recv(id(&o, "storeId")), text(&l, "batch"), failed, doc_of(&o, &l)))?;
    }
    patch(w, cx, "mxrk", id(&l, "id"), &[("passedQty", json!(qty(&l, "passedQty") - passed)), ("failedQty", json!(qty(&l, "failedQty") - failed))])?;
    Ok(())
}

/// POST review/finish {orderId}
async fn review_finish(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let oid = id_param(&p, &["orderId", "id"])?;
    let def = st.res.get("order_rk");
    crud::get_scoped(&st, &s, &def, oid).await?;
    let env = Env::new(&st, &s);
    let saved = st
        .write(move |w| {
            let cx = env.cx();
            let o = w.get(&cx.def("order_rk"), cx.tenant, oid)?.ok_or(store::StoreError::NotFound)?;
            check_store(w, &cx, id(&o, "storeId"))?;
            require_status(RK_STATUS, &o, &[2], ("完成复核", "finished reviewing"))?;
            let q = Query { filters: vec![Filter::new("orderId", Op::Equal, json!(oid))], limit: 100_000, ..Query::default() };
            let lines = w.list(&cx.def("mxrk"), cx.tenant, &q)?.records;
            // Every line still to review is named (it named the first, and the next try the next).
            let mut open_lines = Vec::new();
            for l in &lines {
                let open = qty(l, "receivedQty") - qty(l, "passedQty") - qty(l, "failedQty");
                if open > 0 {
                    let g = w.get(&cx.def("goods"), cx.tenant, id(l, "goodsId"))?.unwrap_or_default();
                    open_lines.push((ledger::goods_label(&g), format_qty(open)));
                }
            }
            if !open_lines.is_empty() {
                let shown = |f: &dyn Fn(&(String, String)) -> String, sep: &str| {
                    let mut t = open_lines.iter().take(5).map(f).collect::<Vec<_>>().join(sep);
                    if open_lines.len() > 5 {
                        t.push_str(&format!("{sep}…"));
                    }
                    t
                };
                return Err(rule(
                    format!("还有 {} 行未复核:{}", open_lines.len(), shown(&|(g, q)| format!("商品 {g} 还有 {q}"), ";")),
                    format!("{} still to review: {}", if open_lines.len() == 1 { "1 line".to_string() } else { format!("{} lines", open_lines.len()) }, shown(&|(g, q)| format!("{g} has {q}"), "; ")),
                ));
            }
            let passed: i64 = lines.iter().map(|l| qty(l, "passedQty")).sum();
            let saved = if passed == 0 {
                finish(w, &cx, &o)?
            } else {
                patch(w, &cx, "order_rk", oid, &[("orderStatus", json!(3))])?
            };
            crate::engine::dialect::record_change(w, &cx, &cx.def("order_rk"), Some(&o), Some(&saved))?;
            Ok(saved)
        })
        .await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &def, saved).await?))
}

/// The order is done: finish time, and the ERP callback record in the same write.
fn finish(w: &mut WriteCtx, cx: &Ctx, o: &Map<String, Value>) -> store::Result<Map<String, Value>> {
    let saved = patch(w, cx, "order_rk", id(o, "id"), &[("orderStatus", json!(4)), ("finishTime", json!(cx.now))])?;
    super::erp::enqueue(w, cx, "rk", &saved, "mxrk")?;
    Ok(saved)
}

/// POST up/save
async fn up_save(State(st): State<AppState>, s: Session, headers: HeaderMap, JsonObject(body): JsonObject) -> ApiResult<Response> {
    let its = parse_items(&st, &s, &headers, &body, "mxrk").await?;
    let mut parsed = Vec::new();
    for it in its {
        let n = qty_of(&it.fields, "qty", true)?.unwrap_or(0);
        let space = id_of(&it.fields, "spaceId")?;
        parsed.push((it, n, space));
    }
    let env = Env::new(&st, &s);
    let recs = st
        .write(move |w| {
            let cx = env.cx();
            let (mut out, mut touched) = (Vec::new(), Vec::new());
            for (it, n, space) in &parsed {
                if let Some(done) = replayed(w, &cx, "up", it.op.as_deref())? {
                    out.push(done);
                    continue;
                }
                let (l, o) = line_and_order(w, &cx, it.line)?;
                require_status(RK_STATUS, &o, &[3], ("上架", "put away"))?;
                let store_id = id(&o, "storeId");
                let bin = w.get(&cx.def("storagespace"), cx.tenant, *space)?.ok_or_else(|| rule("储位不存在", "No such bin"))?;
                if id(&bin, "storeId") != store_id {
                    return Err(rule(format!("储位 {} 不在该入库单的仓库", text(&bin, "spaceCode")), format!("Bin {} is not in the order's store", text(&bin, "spaceCode"))));
                }
                let area = parent(w, &cx, "reservoirarea", &bin, "areaId")?;
                if !matches!(qty(&area, "areaKind"), 2 | 3) {
                    return Err(rule(
                        format!("储位 {} 所在库区「{}」不是存储区或拣货区", text(&bin, "spaceCode"), text(&area, "areaName")),
                        format!("Bin {} is not in a storage or picking zone", text(&bin, "spaceCode")),
                    ));
                }
                let open = qty(&l, "passedQty") - qty(&l, "putQty");
                if *n <= 0 || *n > open {
                    return Err(rule(
                        format!("上架数量须大于0且不超过待上架数量 {}", format_qty(open)),
                        format!("The quantity must be above 0 and at most the {} waiting", format_qty(open)),
                    ));
                }
                let expire = text(&l, "expireDate").to_string();
                ledger::post(w, &cx, &Move { expire: Some(&expire), ..Move::new(id(&l, "goodsId"), Loc::Recv(store_id), Loc::Bin(*space), text(&l, "batch"), *n, doc_of(&o, &l)) })?;
                patch(w, &cx, "mxrk", it.line, &[("putQty", json!(qty(&l, "putQty") + n))])?;
                out.push(journal(w, &cx, "up", &l, it.op.as_deref(), json!({"spaceId": space, "batch": text(&l, "batch"), "qty": n}))?);
                if !touched.contains(&id(&o, "id")) {
                    touched.push(id(&o, "id"));
                }
            }
            // An order whose passed goods are all in bins is done.
            for oid in touched {
                let o = w.get(&cx.def("order_rk"), cx.tenant, oid)?.ok_or(store::StoreError::NotFound)?;
                let q = Query { filters: vec![Filter::new("orderId", Op::Equal, json!(oid))], limit: 100_000, ..Query::default() };
                let all_put = w.list(&cx.def("mxrk"), cx.tenant, &q)?.records.iter().all(|x| qty(x, "putQty") >= qty(x, "passedQty"));
                if all_put && qty(&o, "orderStatus") == 3 {
                    let saved = finish(w, &cx, &o)?;
                    crate::engine::dialect::record_change(w, &cx, &cx.def("order_rk"), Some(&o), Some(&saved))?;
                }
            }
            Ok(out)
        })
        .await?;
    answer(&st, &s, "up", recs).await
}

/// A put-away is reversed while the order is not done: the goods go back to the receiving area.
pub fn up_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    let (l, o) = line_and_order(w, cx, id(rec, "lineId"))?;
    require_status(RK_STATUS, &o, &[3], ("撤销上架", "have put-aways reversed"))?;
    let n = qty(rec, "qty");
    ledger::post(w, cx, &Move::new(id(&l, "goodsId"), Loc::Bin(id(rec, "spaceId")), Loc::Recv(id(&o, "storeId")), text(&l, "batch"), n, doc_of(&o, &l)))?;
    patch(w, cx, "mxrk", id(&l, "id"), &[("putQty", json!(qty(&l, "putQty") - n))])?;
    Ok(())
}
