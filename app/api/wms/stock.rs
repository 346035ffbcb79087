//! Master data rules (stores, zones, bins, store access), transfers (移库), counts on stock rows and the stock
//! card.
//!
//! - A store, zone or bin that holds or held stock is not removed (its moves stay readable); a bin's state is
//!   kept by the ledger (free/occupied), a user only locks and unlocks it; a locked bin takes no moves.
//! - A transfer is planned (0), then done (1, `transfer/execute` or a submit with `transferStatus: 1`) or
//!   cancelled (9, `transfer/cancel` or a submit). Done moves both legs in one transaction: bin → bin in one
//!   store, bin → in transit → bin between stores.
//! - `stockdata/submit {id, countedQty}` is a count of a bin's row: the difference is posted to or from the loss
//!   location (never an overwrite); the count cannot go below what is reserved; staging areas are not counted. A stock row is removed only when empty.
//! - `stockdata/card?goodsId=` is the stock card: every move of a goods, oldest first, with the balance after
//!   each.
use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, WriteCtx, format_qty};

use super::ledger::{self, Doc, Loc, Move, id, qty, text};
use super::{BASE, check_store};
use crate::auth::session::Session;
use crate::engine::dialect::{Ctx, Env, after_i64, after_id};
use crate::engine::params::{id_param, page_json, page_of};
use crate::engine::{Api, Guard, crud};
use crate::error::{ApiError, ApiResult, Kind, rule};
use crate::http::{AnyParams, JsonObject, ok};
use crate::state::AppState;

pub fn routes(api: Api) -> Api {
    let (transfer, stock) = (api.def("transfer"), api.def("stockdata"));
    api.post(format!("{BASE}/transfer/execute"), Guard::write(&transfer, &["edit"]), execute)
        .doc("移库管理 · carry out a planned transfer: both legs in one transaction (body or query: id)", &[])
        .post(format!("{BASE}/transfer/cancel"), Guard::write(&transfer, &["edit"]), cancel)
        .doc("移库管理 · cancel a planned transfer; nothing moves (body or query: id)", &[])
        .post(format!("{BASE}/stockdata/count"), Guard::write(&stock, &["edit"]), count_sheet)
        .doc("库存盘点 · a count sheet of a store's bins: body {storeId, reason (required when a count differs), rows: [{id, countedQty}]} (at most 5,000 rows); every difference is posted to or from 盘点损溢 in one transaction with the reason; answers countNo, rows, changed, gain, loss", &[])
        .get(format!("{BASE}/stockdata/card"), Guard::read(&stock), card)
        .doc("库存数据 · the stock card of a goods: every move, oldest first, with the goods' balance after each (query: goodsId, storeId optional, current, size)", &[])
}

fn moved(w: &WriteCtx, cx: &Ctx, filters: Vec<Filter>) -> store::Result<bool> {
    let q = Query { filters, limit: 1, ..Query::default() };
    Ok(w.list(&cx.def("stock_move"), cx.tenant, &q)?.total > 0)
}

pub fn store_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    check_store(w, cx, id(rec, "id"))?;
    if moved(w, cx, vec![Filter::new("storeId", Op::Equal, json!(id(rec, "id")))])? {
        return Err(rule("该仓库有过库存流水,不能删除;可停用", "The store has stock moves; it cannot be removed (disable it instead)"));
    }
    Ok(())
}

pub fn area_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    let store_id = after_id(old, doc, "storeId").unwrap_or(0);
    check_store(w, cx, store_id)?;
    if let Some(old) = old
        && id(old, "storeId") != store_id {
        let q = Query { filters: vec![Filter::new("areaId", Op::Equal, json!(id(old, "id")))], limit: 1, ..Query::default() };
        if w.list(&cx.def("storagespace"), cx.tenant, &q)?.total > 0 {
            return Err(rule("库区已有储位,不能更换仓库", "The zone has bins; its store cannot change"));
        }
    }
    Ok(())
}

pub fn space_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    let area = w.get(&cx.def("reservoirarea"), cx.tenant, after_id(old, doc, "areaId").unwrap_or(0))?.ok_or(store::StoreError::NotFound)?;
    let store_id = id(&area, "storeId");
    check_store(w, cx, store_id)?;
    let held = old.map(|o| w.counter(cx.tenant, &ledger::bin_counter(id(o, "id")))).transpose()?.unwrap_or(0);
    if let Some(old) = old
        && id(old, "storeId") != store_id
        && held > 0 {
        return Err(rule("储位仍有库存,不能移到另一仓库", "The bin holds stock; it cannot move to another store"));
    }
    doc.insert("storeId".into(), json!(store_id));
    // The state is the ledger's (free or occupied); a user only locks (2) or unlocks.
    if let Some(s) = doc.get("spaceState").and_then(Value::as_i64) {
        let state = if s == 2 { 2 } else if held > 0 { 1 } else { 0 };
        doc.insert("spaceState".into(), json!(state));
    }
    Ok(())
}

pub fn space_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    check_store(w, cx, id(rec, "storeId"))?;
    if qty(rec, "everHeld") == 1 || w.counter(cx.tenant, &ledger::bin_counter(id(rec, "id")))? > 0 {
        return Err(rule(
            format!("储位 {} 有过库存流水,不能删除;可锁定", text(rec, "spaceCode")),
            format!("Bin {} has stock moves; it cannot be removed (lock it instead)", text(rec, "spaceCode")),
        ));
    }
    Ok(())
}

pub fn userconfig_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    let ids = crate::auth::session::id_list(crate::engine::dialect::after(old, doc, "storeIds"));
    if ids.is_empty() {
        return Err(store::StoreError::invalid("storeIds", store::FieldProblem::Required));
    }
    for s in &ids {
        w.get(&cx.def("store"), cx.tenant, *s)?.ok_or_else(|| rule(format!("仓库 {s} 不存在"), format!("No store {s}")))?;
    }
    doc.insert("storeIds".into(), json!(ids.iter().map(u64::to_string).collect::<Vec<_>>().join(",")));
    if let Some(d) = after_id(old, doc, "defaultStoreId")
        && !ids.contains(&d) {
        return Err(rule("默认仓库须在可操作仓库中", "The default store must be one of the stores"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------
// Transfers

pub fn transfer_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    let was = old.map(|o| qty(o, "transferStatus")).unwrap_or(0);
    let to_status = after_i64(old, doc, "transferStatus").unwrap_or(0);
    if was != 0 {
        return Err(rule("移库单已完成或已取消,不能修改", "The transfer is done or cancelled; it cannot change"));
    }
    if !matches!(to_status, 0 | 1 | 9) {
        return Err(store::StoreError::invalid("transferStatus", store::FieldProblem::OutOfRange { min: Some(0), max: Some(9) }));
    }
    let bins = cx.def("storagespace");
    let (from_id, to_id) = (after_id(old, doc, "fromSpaceId").unwrap_or(0), after_id(old, doc, "toSpaceId").unwrap_or(0));
    if from_id == to_id {
        return Err(rule("源储位与目标储位不能相同", "The bins must differ"));
    }
    let from = w.get(&bins, cx.tenant, from_id)?.ok_or(store::StoreError::NotFound)?;
    let to = w.get(&bins, cx.tenant, to_id)?.ok_or(store::StoreError::NotFound)?;
    let (fs, ts) = (id(&from, "storeId"), id(&to, "storeId"));
    check_store(w, cx, fs)?;
    check_store(w, cx, ts)?;
    doc.insert("storeId".into(), json!(fs));
    doc.insert("toStoreId".into(), json!(ts));
    let n = after_i64(old, doc, "qty").unwrap_or(0);
    if n <= 0 {
        return Err(rule("移库数量必须大于0", "The quantity must be above 0"));
    }
    if to_status == 1 {
        let Some(old) = old else {
            return Err(rule("请先以「新建」保存移库单,再点「执行移库」", "Save the transfer as new first, then carry it out from its row"));
        };
        let goods = after_id(Some(old), doc, "goodsId").unwrap_or(0);
        let batch = crate::engine::dialect::after(Some(old), doc, "batch").and_then(Value::as_str).unwrap_or("").to_string();
        let no = text(old, "transferNo").to_string();
        // Which batches move: the one named, or — none named (批次号 is optional on the form) — the bin's own,
        // first-expiring and oldest first as an outbound pick takes them (a move without a batch took stock of
        // "no batch", of which there is none, and was refused with 可用 0).
        let legs: Vec<(String, i64)> = if batch.is_empty() {
            if qty(&from, "spaceState") == 2 {
                return Err(rule(format!("储位 {} 已锁定,不能移出", text(&from, "spaceCode")), format!("Bin {} is locked; nothing moves out of it", text(&from, "spaceCode"))));
            }
            let mut left = n;
            let mut legs = Vec::new();
            for (_, r, _) in ledger::pick_order(w, cx, goods, fs, None)?.into_iter().filter(|(_, r, _)| id(r, "spaceId") == from_id) {
                let take = qty(&r, "available").min(left);
                if take > 0 {
                    legs.push((text(&r, "batch").to_string(), take));
                    left -= take;
                }
                if left == 0 {
                    break;
                }
            }
            if left > 0 {
                let g = w.get(&cx.def("goods"), cx.tenant, goods)?.map(|g| ledger::goods_label(&g)).unwrap_or_default();
                let have = n - left;
                return Err(rule(
                    format!("库存不足:商品 {g} 在 {} 可用 {},需要 {}", text(&from, "spaceCode"), format_qty(have), format_qty(n)),
                    format!("Not enough stock: {g} in {} has {} available, {} needed", text(&from, "spaceCode"), format_qty(have), format_qty(n)),
                ));
            }
            // The order records what moved.
            let named = legs.iter().map(|(b, _)| b.as_str()).filter(|b| !b.is_empty()).collect::<Vec<_>>().join(",");
            if !named.is_empty() && named.chars().count() <= 32 {
                doc.insert("batch".into(), json!(named));
            }
            legs
        } else {
            vec![(batch.clone(), n)]
        };
        let tid = id(old, "id");
        for (i, (b, k)) in legs.iter().enumerate() {
            let d = Doc { kind: "yk", id: tid, no: &no, line: i as u64 };
            let mv = |from: Loc, to: Loc| Move::new(goods, from, to, b, *k, d);
            let expire = ledger::quant(w, cx, goods, Loc::Bin(from_id), b)?.map(|(_, q)| text(&q, "expireDate").to_string()).unwrap_or_default();
            if fs == ts {
                ledger::post(w, cx, &Move { expire: Some(&expire), ..mv(Loc::Bin(from_id), Loc::Bin(to_id)) })?;
            } else {
                ledger::post(w, cx, &mv(Loc::Bin(from_id), Loc::Transit))?;
                ledger::post(w, cx, &Move { expire: Some(&expire), ..mv(Loc::Transit, Loc::Bin(to_id)) })?;
            }
        }
        doc.insert("doneTime".into(), json!(cx.now));
    }
    Ok(())
}

pub fn transfer_remove(_w: &mut WriteCtx, _cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    if qty(rec, "transferStatus") == 1 {
        return Err(rule("已完成的移库单不能删除;请做反向移库", "A done transfer cannot be removed; transfer back instead"));
    }
    Ok(())
}

/// POST transfer/execute {id}
async fn execute(st: State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    to_status(st, s, p, 1).await
}

/// POST transfer/cancel {id}
async fn cancel(st: State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    to_status(st, s, p, 9).await
}

/// A planned transfer done (1) or cancelled (9) through the save rules, as a submit with that status.
async fn to_status(State(st): State<AppState>, s: Session, p: AnyParams, status: i64) -> ApiResult<Response> {
    let tid = id_param(&p, &["id"])?;
    let def = st.res.get("transfer");
    crud::get_scoped(&st, &s, &def, tid).await?;
    let mut doc = Map::new();
    doc.insert("transferStatus".into(), json!(status));
    let saved = crate::engine::dialect::write(&st, &s, &def, crate::api::rules("transfer"), Some(tid), doc).await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &def, saved).await?))
}

// ---------------------------------------------------------------------------------------------------------
// Counts and the stock card

/// `stockdata/submit`: a count of an existing stock row (its 盘点说明 `countReason` optional here: the Saber form
/// sends the quantity alone).
pub fn count_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    let Some(old) = old else {
        return Err(rule("库存由入库、出库、移库单据产生,不能直接新增", "Stock comes from inbound, outbound and transfer orders; it cannot be added directly"));
    };
    let counted = doc.get("countedQty").and_then(Value::as_i64).ok_or_else(|| store::StoreError::invalid("countedQty", store::FieldProblem::Required))?;
    let reason = doc.get("countReason").and_then(Value::as_str).unwrap_or("").trim().to_string();
    let no = format!("PD{}", cx.now.chars().filter(char::is_ascii_digit).take(8).collect::<String>());
    count_one(w, cx, old, counted, &reason, &no)?;
    doc.insert("countTime".into(), json!(cx.now));
    // This count's note, or none: an earlier count's reason does not stand beside a new count.
    doc.insert("countReason".into(), json!(reason));
    Ok(())
}

/// A count of one bin's row: the difference (counted − on hand, returned) posted from or to the loss location
/// with the count's reason.
fn count_one(w: &mut WriteCtx, cx: &Ctx, old: &Map<String, Value>, counted: i64, reason: &str, no: &str) -> store::Result<i64> {
    check_store(w, cx, id(old, "storeId"))?;
    let loc = Loc::parse(text(old, "location")).ok_or(store::StoreError::NotFound)?;
    // Staging areas hold goods of open documents (received, not yet put away; picked, not yet shipped): those
    // documents move them, a count would leave them unable to.
    if !matches!(loc, Loc::Bin(_)) {
        return Err(rule(
            format!("{} 是单据暂存区,只能盘点储位上的库存", text(old, "locationName")),
            format!("{} is a staging area of open orders; only bins are counted", text(old, "locationName")),
        ));
    }
    let (on_hand, reserved) = (qty(old, "qty"), qty(old, "reserved"));
    if counted < reserved {
        return Err(rule(
            format!("盘点数量 {} 少于已预留 {};请先处理占用该库存的出库单", format_qty(counted), format_qty(reserved)),
            format!("Counted {} is below the {} reserved; deal with the outbound orders holding it first", format_qty(counted), format_qty(reserved)),
        ));
    }
    let d = Doc { kind: "pd", id: id(old, "id"), no, line: 0 };
    let (from, to, n) = if counted > on_hand { (Loc::Loss, loc, counted - on_hand) } else { (loc, Loc::Loss, on_hand - counted) };
    if n > 0 {
        let batch = text(old, "batch").to_string();
        ledger::post(w, cx, &Move { note: Some(reason), ..Move::new(id(old, "goodsId"), from, to, &batch, n, d) })?;
    }
    Ok(counted - on_hand)
}

/// Rows a count sheet may hold (a store's bins at a time).
const SHEET_MAX: usize = 5_000;

/// POST stockdata/count {storeId, reason, rows: [{id, countedQty}]}: a count sheet of a store's bins, every
/// difference posted in one transaction (all or none) with the sheet's reason, which a difference requires.
async fn count_sheet(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let store_id = match b.get("storeId") {
        Some(v) if !v.is_null() && v != "" => store::parse_id_value(v).ok_or_else(|| ApiError::with(Kind::BadId, v.to_string().chars().take(40).collect::<String>()))?,
        _ => return Err(ApiError::with(Kind::Missing, "storeId")),
    };
    let reason = match b.get("reason") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(r)) => r.trim().to_string(),
        Some(_) => return Err(ApiError::with(Kind::WrongType, "reason")),
    };
    if reason.chars().count() > 200 {
        return Err(ApiError::with(Kind::TooLong, "reason"));
    }
    let items = match b.get("rows") {
        Some(Value::Array(a)) if !a.is_empty() => a,
        Some(Value::Array(_)) | None | Some(Value::Null) => return Err(ApiError::with(Kind::Missing, "rows")),
        Some(_) => return Err(ApiError::with(Kind::WrongType, "rows")),
    };
    if items.len() > SHEET_MAX {
        return Err(ApiError::rule(format!("一张盘点单最多 {SHEET_MAX} 行,请按库区分开盘点"), format!("A count sheet holds at most {SHEET_MAX} rows; count by zone")));
    }
    // (row id, counted, the books the clerk saw if sent)
    let mut rows: Vec<(u64, i64, Option<i64>)> = Vec::with_capacity(items.len());
    let mut seen = std::collections::HashMap::new();
    let quantity = |v: Option<&Value>| match v {
        Some(Value::String(q)) => store::parse_qty(q.trim()).filter(|q| *q >= 0).ok_or(Kind::BadFormat),
        Some(Value::Number(n)) => store::parse_qty(&n.to_string()).filter(|q| *q >= 0).ok_or(Kind::BadFormat),
        None | Some(Value::Null) => Err(Kind::Missing),
        Some(_) => Err(Kind::WrongType),
    };
    for (n, it) in items.iter().enumerate() {
        let row = |what: &str| format!("rows[{}].{what}", n + 1);
        let rid = it.get("id").and_then(store::parse_id_value).ok_or_else(|| ApiError::with(Kind::BadId, row("id")))?;
        let counted = quantity(it.get("countedQty")).map_err(|k| ApiError::with(k, row("countedQty")))?;
        let book = match it.get("bookQty") {
            None | Some(Value::Null) => None,
            v => Some(quantity(v).map_err(|k| ApiError::with(k, row("bookQty")))?),
        };
        if let Some(first) = seen.insert(rid, n + 1) {
            return Err(ApiError::rule(format!("第 {} 行与第 {first} 行是同一库存行", n + 1), format!("Rows {first} and {} are the same stock row", n + 1)));
        }
        rows.push((rid, counted, book));
    }
    // Rows outside the caller's scope or stores are not there for him (404, never named).
    let ids: Vec<u64> = rows.iter().map(|r| r.0).collect();
    if crud::visible_ids(&st, &s, &st.res.get("stockdata"), &ids).await?.len() != ids.len() {
        return Err(ApiError::new(Kind::NotFound));
    }
    let env = Env::new(&st, &s);
    let out = st
        .write(move |w| {
            let cx = env.cx();
            let sdef = cx.def("stockdata");
            check_store(w, &cx, store_id)?;
            let no = format!("PD{}", cx.now.chars().filter(char::is_ascii_digit).take(14).collect::<String>());
            let (mut changed, mut gain, mut loss) = (0u64, 0i64, 0i64);
            for (n, (rid, counted, book)) in rows.iter().enumerate() {
                let old = w.get(&sdef, cx.tenant, *rid)?.ok_or(store::StoreError::NotFound)?;
                if id(&old, "storeId") != store_id {
                    return Err(rule(format!("第 {} 行不在本次盘点的仓库", n + 1), format!("Row {} is not in the store being counted", n + 1)));
                }
                // Stock moved since the sheet was read (a pick, a put-away): the difference would not be the one
                // the clerk saw.
                if book.is_some_and(|b| b != qty(&old, "qty")) {
                    let goods = w.get(&cx.def("goods"), cx.tenant, id(&old, "goodsId"))?.map(|g| ledger::goods_label(&g)).unwrap_or_default();
                    let (now, was) = (format_qty(qty(&old, "qty")), format_qty(book.unwrap_or(0)));
                    return Err(rule(
                        format!("{} {goods} 的账面数量已变为 {now}(盘点单上为 {was}),请刷新后重新盘点", text(&old, "locationName")),
                        format!("{} {goods}: the books now say {now} (the sheet said {was}); reload and count again", text(&old, "locationName")),
                    ));
                }
                if *counted != qty(&old, "qty") && reason.is_empty() {
                    return Err(rule("盘点有差异,请填写差异原因", "The count differs from the books: say why"));
                }
                let diff = count_one(w, &cx, &old, *counted, &reason, &no)?;
                if diff != 0 {
                    changed += 1;
                    if diff > 0 { gain += diff } else { loss -= diff }
                }
                w.update(&sdef, cx.tenant, *rid, crate::engine::rec::obj(json!({"countedQty": counted, "countTime": cx.now, "countReason": reason})), cx.actor)?;
            }
            Ok(json!({"countNo": no, "rows": rows.len(), "changed": changed, "gain": format_qty(gain), "loss": format_qty(loss)}))
        })
        .await?;
    Ok(ok(out))
}

pub fn stock_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    check_store(w, cx, id(rec, "storeId"))?;
    if qty(rec, "qty") != 0 || qty(rec, "reserved") != 0 {
        return Err(rule(
            format!("该库存行仍有在库数量 {},不能删除", format_qty(qty(rec, "qty"))),
            format!("The stock row still holds {}; it cannot be removed", format_qty(qty(rec, "qty"))),
        ));
    }
    Ok(())
}

/// GET stockdata/card?goodsId=&storeId=
async fn card(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let goods = id_param(&p, &["goodsId"])?;
    let (current, size) = page_of(&p)?;
    let gdef = st.res.get("goods");
    let g = crud::get_scoped(&st, &s, &gdef, goods).await?;
    let mut filters = vec![Filter::new("goodsId", Op::Equal, json!(goods))];
    if p.get("storeId").is_some_and(|v| !v.is_empty()) {
        let sid = id_param(&p, &["storeId"])?;
        crud::get_scoped(&st, &s, &st.res.get("store"), sid).await?;
        filters.push(Filter::new("storeId", Op::Equal, json!(sid)));
    } else if let Some(f) = crate::auth::scope::store_limit(&st, &s, &st.res.get("stockdata")).await? {
        filters.push(f);
    }
    let mdef = st.res.get("stock_move");
    let q = Query { filters, sorts: vec![store::Sort { field: "id".into(), desc: false }], offset: (current - 1) * size, limit: size, ..Query::default() };
    let page = crate::engine::listq::run(&st, &mdef, &s.tenant, q).await?;
    let env = Env::new(&st, &s);
    let mut recs = crud::wire_records(&st, &mdef, &s.tenant, page.records).await?;
    let users: Vec<u64> = recs.iter().filter_map(|r| r.get("createUser")?.as_str()?.parse().ok()).collect();
    let names = st
        .read(move |r| {
            let udef = env.res.get("user");
            let mut m = std::collections::HashMap::new();
            for u in users {
                if let Some(rec) = r.get(&udef, &env.tenant, u)? {
                    m.insert(u.to_string(), rec.get("realName").or(rec.get("name")).cloned().unwrap_or(Value::Null));
                }
            }
            Ok(m)
        })
        .await?;
    for r in recs.iter_mut() {
        let who = r.get("createUser").and_then(Value::as_str).and_then(|u| names.get(u)).cloned().unwrap_or(Value::Null);
        r.insert("createUserName".into(), who);
    }
    let mut out = page_json(recs, page.total, current, size);
    out["goods"] = json!({
        "goodsId": goods.to_string(), "goodsCode": text(&g, "goodsCode"), "goodsName": text(&g, "goodsName"),
        "unit": text(&g, "unit"), "stockQty": format_qty(qty(&g, "stockQty")),
    });
    Ok(ok(out))
}
