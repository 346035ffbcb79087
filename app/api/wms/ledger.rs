//! The stock ledger. Every quantity change is a move of one goods and batch between two locations, written in
//! the same transaction as the document change that caused it: `stock_move` records are never edited or
//! removed, and the balance of each goods × internal location × batch (`stockdata`, Odoo's quant) is kept in
//! step inside that transaction with its reserved and available quantities.
//!
//! Locations are bins (`bin:{spaceId}`), the staging areas of a store (`recv:{storeId}` received and in review,
//! `ret:{storeId}` failed review, `disp:{storeId}` picked and waiting to ship) and virtual places that hold no
//! balance (`supplier`, `customer`, `project:{id}`, `loss` for counts, `transit` between stores).
//!
//! Invariants, checked here before anything is written and recomputed by `audit` (`zhizhuang verify`): on an
//! internal location on-hand never goes below zero, `0 ≤ reserved ≤ on-hand`, `available = on-hand − reserved`;
//! each balance equals the sum of the moves into it minus the moves out of it; a goods' `stockQty` is the sum of
//! its balances. Quantities are integers of ten-thousandths of the goods' unit (`store::QTY_SCALE`). The store's
//! single writer runs transactions one at a time, so a check and the write it guards can never interleave with
//! another request's (no oversell under concurrency, no locks to take, no duplicate balance rows to merge).
use std::collections::HashMap;

use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, ReadCtx, StoreError, WriteCtx, format_qty};

use crate::engine::dialect::Ctx;
use crate::error::rule;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Loc {
    Bin(u64),
    Recv(u64),
    Ret(u64),
    Disp(u64),
    Supplier,
    Customer,
    Project(u64),
    Loss,
    Transit,
}

impl Loc {
    pub fn key(&self) -> String {
        match self {
            Loc::Bin(id) => format!("bin:{id}"),
            Loc::Recv(s) => format!("recv:{s}"),
            Loc::Ret(s) => format!("ret:{s}"),
            Loc::Disp(s) => format!("disp:{s}"),
            Loc::Supplier => "supplier".into(),
            Loc::Customer => "customer".into(),
            Loc::Project(p) => format!("project:{p}"),
            Loc::Loss => "loss".into(),
            Loc::Transit => "transit".into(),
        }
    }

    pub fn parse(s: &str) -> Option<Loc> {
        let (kind, id) = match s.split_once(':') {
            Some((k, v)) => (k, v.parse::<u64>().ok()?),
            None => (s, 0),
        };
        Some(match (kind, id) {
            ("bin", id) if id > 0 => Loc::Bin(id),
            ("recv", id) if id > 0 => Loc::Recv(id),
            ("ret", id) if id > 0 => Loc::Ret(id),
            ("disp", id) if id > 0 => Loc::Disp(id),
            ("project", id) if id > 0 => Loc::Project(id),
            ("supplier", 0) => Loc::Supplier,
            ("customer", 0) => Loc::Customer,
            ("loss", 0) => Loc::Loss,
            ("transit", 0) => Loc::Transit,
            _ => return None,
        })
    }

    /// Holds a balance (a bin or a store's staging area); virtual locations do not.
    pub fn internal(&self) -> bool {
        matches!(self, Loc::Bin(_) | Loc::Recv(_) | Loc::Ret(_) | Loc::Disp(_))
    }
}

/// What a move belongs to: the document type (`rk`, `ck`, `yk`, `pd`), its id, number and line.
#[derive(Debug, Clone, Copy)]
pub struct Doc<'a> {
    pub kind: &'static str,
    pub id: u64,
    pub no: &'a str,
    pub line: u64,
}

#[derive(Debug, Clone)]
pub struct Move<'a> {
    pub goods: u64,
    pub from: Loc,
    pub to: Loc,
    pub batch: &'a str,
    pub qty: i64,
    /// The part of `qty` taken from the source balance's reservation (a pick of a released order).
    pub consume: i64,
    /// Expiry of the batch, kept on the balance it lands on.
    pub expire: Option<&'a str>,
    pub doc: Doc<'a>,
    pub project: Option<u64>,
    pub construct: Option<u64>,
    /// The source balance row when the caller has just read it in this transaction (id, record as stored):
    /// it is not looked up again.
    pub from_row: Option<(u64, &'a Map<String, Value>)>,
    /// Why it moved, where a person said so (a count's difference: 盘点说明), shown on the stock card.
    pub note: Option<&'a str>,
}

impl<'a> Move<'a> {
    /// A move of `qty` with no reservation consumed, no expiry, no project: set those with struct update syntax.
    pub fn new(goods: u64, from: Loc, to: Loc, batch: &'a str, qty: i64, doc: Doc<'a>) -> Move<'a> {
        Move { goods, from, to, batch, qty, consume: 0, expire: None, doc, project: None, construct: None, from_row: None, note: None }
    }
}

/// An internal location as shown: its store, zone and bin, and its name.
#[derive(Debug, Clone)]
pub struct Place {
    pub store: u64,
    pub area: Option<u64>,
    pub space: Option<u64>,
    pub name: String,
    pub locked: bool,
    pub capacity: Option<i64>,
}

pub use crate::engine::rec::{id, int as qty, text};

/// `SP0001 石膏板` for messages.
pub fn goods_label(g: &Map<String, Value>) -> String {
    format!("{} {}", text(g, "goodsCode"), text(g, "goodsName")).trim().to_string()
}

fn batch_label(batch: &str) -> String {
    if batch.is_empty() { String::new() } else { format!(" 批次 {batch}") }
}

fn batch_label_en(batch: &str) -> String {
    if batch.is_empty() { String::new() } else { format!(" batch {batch}") }
}

/// Where an internal location is (store, zone, bin) and what it is called.
pub fn place(w: &WriteCtx, cx: &Ctx, loc: Loc) -> store::Result<Place> {
    let t = cx.tenant;
    let store_name = |w: &WriteCtx, sid: u64| -> store::Result<String> {
        let s = w.get_fields(&cx.def("store"), t, sid, &["storeName"])?.ok_or_else(|| rule("仓库不存在", "No such store"))?;
        Ok(text(&s, "storeName").to_string())
    };
    Ok(match loc {
        Loc::Bin(space) => {
            let b = w.get_fields(&cx.def("storagespace"), t, space, &["areaId", "capacity", "spaceCode", "spaceState", "storeId"])?.ok_or_else(|| rule("储位不存在", "No such bin"))?;
            let area = id(&b, "areaId");
            let a = w.get_fields(&cx.def("reservoirarea"), t, area, &["areaName"])?;
            let an = a.as_ref().map(|a| text(a, "areaName").to_string()).unwrap_or_default();
            let cap = b.get("capacity").and_then(Value::as_i64).filter(|c| *c > 0);
            Place {
                store: id(&b, "storeId"),
                area: Some(area),
                space: Some(space),
                name: format!("{an}/{}", text(&b, "spaceCode")),
                locked: qty(&b, "spaceState") == 2,
                capacity: cap,
            }
        }
        Loc::Recv(s) => Place { store: s, area: None, space: None, name: format!("{}/收货暂存", store_name(w, s)?), locked: false, capacity: None },
        Loc::Ret(s) => Place { store: s, area: None, space: None, name: format!("{}/退货暂存", store_name(w, s)?), locked: false, capacity: None },
        Loc::Disp(s) => Place { store: s, area: None, space: None, name: format!("{}/待发货", store_name(w, s)?), locked: false, capacity: None },
        Loc::Supplier => virtual_place("供应商"),
        Loc::Customer => virtual_place("客户"),
        Loc::Project(p) => {
            let code = w.get_fields(&cx.def("project"), t, p, &["projectCode"])?.map(|r| text(&r, "projectCode").to_string()).unwrap_or_default();
            virtual_place(&format!("项目 {code}"))
        }
        Loc::Loss => virtual_place("盘点损益"),
        Loc::Transit => virtual_place("在途"),
    })
}

fn virtual_place(name: &str) -> Place {
    Place { store: 0, area: None, space: None, name: name.to_string(), locked: false, capacity: None }
}

pub fn quant_key(goods: u64, loc: Loc, batch: &str) -> String {
    format!("{goods}|{}|{batch}", loc.key())
}

/// The balance of goods × location × batch, if there is one.
pub fn quant(w: &WriteCtx, cx: &Ctx, goods: u64, loc: Loc, batch: &str) -> store::Result<Option<(u64, Map<String, Value>)>> {
    let def = cx.def("stockdata");
    match w.find_unique(&def, cx.tenant, "quantKey", &quant_key(goods, loc, batch))? {
        Some(qid) => Ok(w.get(&def, cx.tenant, qid)?.map(|r| (qid, r))),
        None => Ok(None),
    }
}

pub fn bin_counter(space: u64) -> String {
    format!("$wms.bin:{space}")
}

/// Posts one move: checks the source has the quantity (available, plus `consume` from its reservation), writes
/// both balances, the bin states, the goods' total and the move record.
pub fn post(w: &mut WriteCtx, cx: &Ctx, m: &Move) -> store::Result<Map<String, Value>> {
    let t = cx.tenant;
    if m.qty <= 0 {
        return Err(rule("数量必须大于0", "The quantity must be above 0"));
    }
    if m.consume < 0 || m.consume > m.qty {
        return Err(StoreError::invalid("consume", store::FieldProblem::OutOfRange { min: None, max: None }));
    }
    let gdef = cx.def("goods");
    let sdef = cx.def("stockdata");
    // What a move reads of its goods (a goods record carries its description, pictures and more).
    let goods = w.get_fields(&gdef, t, m.goods, &["goodsCode", "goodsName", "price", "stockQty", "unit"])?.ok_or_else(|| rule("商品不存在", "No such goods"))?;
    let unit = text(&goods, "unit").to_string();
    let (from, to) = (place(w, cx, m.from)?, place(w, cx, m.to)?);
    if m.from.internal() {
        if from.locked {
            return Err(rule(format!("储位 {} 已锁定,不能出库", from.name), format!("Bin {} is locked", from.name)));
        }
        let found = match m.from_row {
            Some((qid, r)) if text(r, "quantKey") == quant_key(m.goods, m.from, m.batch) => Some((qid, r.clone())),
            _ => quant(w, cx, m.goods, m.from, m.batch)?,
        };
        let (on_hand, reserved) = found.as_ref().map(|(_, r)| (qty(r, "qty"), qty(r, "reserved"))).unwrap_or((0, 0));
        let free_needed = m.qty - m.consume;
        if m.consume > reserved || on_hand - reserved < free_needed {
            let short = (free_needed - (on_hand - reserved)).max(m.consume - reserved).max(0);
            return Err(rule(
                format!(
                    "库存不足:商品 {} 在 {}{} 可用 {}{unit},需要 {}{unit},缺 {}{unit}",
                    goods_label(&goods),
                    from.name,
                    batch_label(m.batch),
                    format_qty(on_hand - reserved + m.consume.min(reserved)),
                    format_qty(m.qty),
                    format_qty(short)
                ),
                format!(
                    "Not enough stock: {} at {}{} has {} available, {} needed, {} short",
                    goods_label(&goods),
                    from.name,
                    batch_label_en(m.batch),
                    format_qty(on_hand - reserved + m.consume.min(reserved)),
                    format_qty(m.qty),
                    format_qty(short)
                ),
            ));
        }
        let (qid, row) = found.expect("checked above");
        let (nq, nr) = (on_hand - m.qty, reserved - m.consume);
        let mut patch = Map::new();
        patch.insert("qty".into(), json!(nq));
        patch.insert("reserved".into(), json!(nr));
        patch.insert("available".into(), json!(nq - nr));
        w.update_from(&sdef, t, qid, row, patch, cx.actor)?;
        if let Some(space) = from.space {
            bin_total(w, cx, space, -m.qty)?;
        }
    }
    if m.to.internal() {
        if to.locked {
            return Err(rule(format!("储位 {} 已锁定,不能入库", to.name), format!("Bin {} is locked", to.name)));
        }
        if let (Some(space), Some(cap)) = (to.space, to.capacity) {
            let held = w.counter(t, &bin_counter(space))? as i64;
            if held + m.qty > cap {
                return Err(rule(
                    format!("储位 {} 容量 {},已有 {},放不下 {}", to.name, format_qty(cap), format_qty(held), format_qty(m.qty)),
                    format!("Bin {} holds {} and has {}; {} does not fit", to.name, format_qty(cap), format_qty(held), format_qty(m.qty)),
                ));
            }
        }
        let today: String = cx.now.chars().take(10).collect();
        match quant(w, cx, m.goods, m.to, m.batch)? {
            Some((qid, r)) => {
                let (oq, or) = (qty(&r, "qty"), qty(&r, "reserved"));
                let mut patch = Map::new();
                patch.insert("qty".into(), json!(oq + m.qty));
                patch.insert("available".into(), json!(oq + m.qty - or));
                if oq == 0 {
                    patch.insert("inDate".into(), json!(today));
                }
                if let Some(e) = m.expire.filter(|e| !e.is_empty()) {
                    patch.insert("expireDate".into(), json!(e));
                }
                w.update_from(&sdef, t, qid, r, patch, cx.actor)?;
            }
            None => {
                let mut doc = Map::new();
                doc.insert("goodsId".into(), json!(m.goods));
                doc.insert("storeId".into(), json!(to.store));
                if let Some(a) = to.area {
                    doc.insert("areaId".into(), json!(a));
                }
                if let Some(s) = to.space {
                    doc.insert("spaceId".into(), json!(s));
                }
                doc.insert("location".into(), json!(m.to.key()));
                doc.insert("locationName".into(), json!(to.name));
                doc.insert("batch".into(), json!(m.batch));
                doc.insert("qty".into(), json!(m.qty));
                doc.insert("reserved".into(), json!(0));
                doc.insert("available".into(), json!(m.qty));
                doc.insert("inDate".into(), json!(today));
                if let Some(e) = m.expire.filter(|e| !e.is_empty()) {
                    doc.insert("expireDate".into(), json!(e));
                }
                doc.insert("quantKey".into(), json!(quant_key(m.goods, m.to, m.batch)));
                w.insert(&sdef, t, doc, cx.actor)?;
            }
        }
        if let Some(space) = to.space {
            bin_total(w, cx, space, m.qty)?;
        }
    }
    let delta = if m.to.internal() { m.qty } else { 0 } - if m.from.internal() { m.qty } else { 0 };
    let mut after = qty(&goods, "stockQty");
    if delta != 0 {
        after += delta;
        let mut patch = Map::new();
        patch.insert("stockQty".into(), json!(after));
        w.update(&gdef, t, m.goods, patch, cx.actor)?;
    }
    let price = qty(&goods, "price");
    let amount = (i128::from(price) * i128::from(m.qty) + i128::from(store::QTY_SCALE) / 2) / i128::from(store::QTY_SCALE);
    let mut rec = Map::new();
    rec.insert("goodsId".into(), json!(m.goods));
    rec.insert("storeId".into(), json!(if from.store > 0 { from.store } else { to.store }));
    rec.insert("fromLoc".into(), json!(m.from.key()));
    rec.insert("toLoc".into(), json!(m.to.key()));
    rec.insert("fromName".into(), json!(from.name));
    rec.insert("toName".into(), json!(to.name));
    rec.insert("batch".into(), json!(m.batch));
    rec.insert("qty".into(), json!(m.qty));
    rec.insert("goodsAfter".into(), json!(after));
    rec.insert("docType".into(), json!(m.doc.kind));
    rec.insert("docId".into(), json!(m.doc.id));
    rec.insert("docNo".into(), json!(m.doc.no));
    rec.insert("lineId".into(), json!(m.doc.line));
    if let Some(p) = m.project {
        rec.insert("projectId".into(), json!(p));
    }
    if let Some(c) = m.construct {
        rec.insert("constructId".into(), json!(c));
    }
    rec.insert("amount".into(), json!(amount as i64));
    if let Some(n) = m.note.filter(|n| !n.is_empty()) {
        rec.insert("remark".into(), json!(n));
    }
    // The value issued to and returned from a project, kept beside the moves (its material cost reads these).
    for (loc, way) in [(m.to, Issued), (m.from, Returned)] {
        if let Loc::Project(p) = loc {
            w.add_counter(t, &project_counter(way, p), amount as i64)?;
        }
    }
    if let Some(p) = m.project {
        w.add_counter(t, &project_counter(Moves, p), 1)?;
    }
    w.insert(&cx.def("stock_move"), t, rec, cx.actor)
}

/// What is kept per project beside its moves.
#[derive(Debug, Clone, Copy)]
pub enum ProjectWay {
    /// Value (fen) moved to the project.
    Issued,
    /// Value (fen) moved back from it.
    Returned,
    /// The number of moves that name it (`projectId`): its material list's total.
    Moves,
}
use ProjectWay::{Issued, Moves, Returned};

/// A project's maintained total (only ever added to, like the moves).
pub fn project_counter(way: ProjectWay, project: u64) -> String {
    format!("$wms.project.{}:{project}", match way { Issued => "issued", Returned => "returned", Moves => "moves" })
}

/// A project's material value from the depot in fen (issued less returned) and the number of its moves, from the
/// maintained totals.
pub fn project_material(r: &ReadCtx, tenant: &str, project: u64) -> store::Result<(i64, u64)> {
    let (issued, returned, moves) = project_totals(|k| r.counter(tenant, k), project)?;
    Ok((issued - returned, moves as u64))
}

/// Adds a move to the project totals being recomputed: project → (issued, returned, moves).
fn add_project_sums(sums: &mut HashMap<u64, (i64, i64, i64)>, m: &Map<String, Value>) {
    let amount = qty(m, "amount");
    if let Some(Loc::Project(p)) = Loc::parse(text(m, "toLoc")) {
        sums.entry(p).or_default().0 += amount;
    }
    if let Some(Loc::Project(p)) = Loc::parse(text(m, "fromLoc")) {
        sums.entry(p).or_default().1 += amount;
    }
    if id(m, "projectId") > 0 {
        sums.entry(id(m, "projectId")).or_default().2 += 1;
    }
}

fn project_totals(r: impl Fn(&str) -> store::Result<u64>, p: u64) -> store::Result<(i64, i64, i64)> {
    Ok((r(&project_counter(Issued, p))? as i64, r(&project_counter(Returned, p))? as i64, r(&project_counter(Moves, p))? as i64))
}

/// Sets every project total of a tenant to what its moves sum to (a data file from before the totals were kept).
pub fn rebuild_project_totals(w: &mut WriteCtx, res: &crate::decl::Resources, tenant: &str) -> store::Result<()> {
    let mut sums = HashMap::new();
    for m in w.all(&res.get("stock_move"), tenant)? {
        add_project_sums(&mut sums, &m);
    }
    for (p, (issued, returned, moves)) in sums {
        for (way, want) in [(Issued, issued), (Returned, returned), (Moves, moves)] {
            let key = project_counter(way, p);
            let have = w.counter(tenant, &key)? as i64;
            w.add_counter(tenant, &key, want - have)?;
        }
    }
    Ok(())
}

/// Adds to a bin's total (a maintained counter) and keeps its state: occupied while it holds anything, free
/// when empty; a locked bin stays locked. A bin that ever held stock is marked so (`everHeld`): it is never
/// removed, its moves stay readable.
fn bin_total(w: &mut WriteCtx, cx: &Ctx, space: u64, delta: i64) -> store::Result<()> {
    let before = w.counter(cx.tenant, &bin_counter(space))?;
    let total = w.add_counter(cx.tenant, &bin_counter(space), delta)?;
    if (before > 0) == (total > 0) {
        return Ok(());
    }
    let def = cx.def("storagespace");
    if let Some(b) = w.get(&def, cx.tenant, space)? {
        let state = qty(&b, "spaceState");
        let want = if total > 0 { 1 } else { 0 };
        let mut patch = Map::new();
        if state != 2 && state != want {
            patch.insert("spaceState".into(), json!(want));
        }
        if total > 0 && qty(&b, "everHeld") == 0 {
            patch.insert("everHeld".into(), json!(1));
        }
        if !patch.is_empty() {
            w.update(&def, cx.tenant, space, patch, cx.actor)?;
        }
    }
    Ok(())
}

/// The balances of one goods in one store's bins (every batch), each with its bin.
fn bin_quants(w: &WriteCtx, cx: &Ctx, goods: u64, store_id: u64) -> store::Result<Vec<(u64, Map<String, Value>)>> {
    let q = Query {
        filters: vec![Filter::new("goodsId", Op::Equal, json!(goods)), Filter::new("storeId", Op::Equal, json!(store_id))],
        limit: 100_000,
        ..Query::default()
    };
    let page = w.list(&cx.def("stockdata"), cx.tenant, &q)?;
    Ok(page.records.into_iter().filter(|r| text(r, "location").starts_with("bin:")).map(|r| (id(&r, "id"), r)).collect())
}

/// One reservation: a balance row and the quantity held on it for an order line.
pub type Reservation = (u64, i64);

/// The order in which balances are used for an outbound line: first-expiring batch first, then the oldest
/// receipt, then the bin's pick order, then the fullest (fewest bins). Locked bins are left out.
pub fn pick_order(w: &WriteCtx, cx: &Ctx, goods: u64, store_id: u64, batch: Option<&str>) -> store::Result<Vec<(u64, Map<String, Value>, i64)>> {
    let bdef = cx.def("storagespace");
    let mut out = Vec::new();
    for (qid, r) in bin_quants(w, cx, goods, store_id)? {
        if batch.is_some_and(|b| !b.is_empty() && b != text(&r, "batch")) {
            continue;
        }
        let Some(b) = w.get(&bdef, cx.tenant, id(&r, "spaceId"))? else { continue };
        if qty(&b, "spaceState") == 2 {
            continue;
        }
        out.push((qid, r, qty(&b, "pickOrder")));
    }
    out.sort_by(|a, b| {
        let ea = text(&a.1, "expireDate");
        let eb = text(&b.1, "expireDate");
        (ea.is_empty(), ea, text(&a.1, "inDate"), a.2, -qty(&a.1, "available"), a.0).cmp(&(
            eb.is_empty(),
            eb,
            text(&b.1, "inDate"),
            b.2,
            -qty(&b.1, "available"),
            b.0,
        ))
    });
    Ok(out)
}

/// Reserves `need` of a goods in a store's bins in pick order; refuses (naming the goods, store and shortfall)
/// when the store has less available.
pub fn reserve(w: &mut WriteCtx, cx: &Ctx, goods: u64, store_id: u64, batch: Option<&str>, need: i64) -> store::Result<Vec<Reservation>> {
    let sdef = cx.def("stockdata");
    let candidates = pick_order(w, cx, goods, store_id, batch)?;
    let have: i64 = candidates.iter().map(|(_, r, _)| qty(r, "available").max(0)).sum();
    if have < need {
        let g = w.get(&cx.def("goods"), cx.tenant, goods)?.unwrap_or_default();
        let s = place(w, cx, Loc::Recv(store_id))?.name.replace("/收货暂存", "");
        let unit = text(&g, "unit").to_string();
        let b = batch.unwrap_or("");
        return Err(rule(
            format!("库存不足:商品 {} 在仓库 {s}{} 可用 {}{unit},需要 {}{unit},缺 {}{unit}", goods_label(&g), batch_label(b), format_qty(have), format_qty(need), format_qty(need - have)),
            format!("Not enough stock: {} in store {s}{} has {} available, {} needed, {} short", goods_label(&g), batch_label_en(b), format_qty(have), format_qty(need), format_qty(need - have)),
        ));
    }
    let mut left = need;
    let mut out = Vec::new();
    for (qid, r, _) in candidates {
        if left == 0 {
            break;
        }
        let take = qty(&r, "available").min(left);
        if take <= 0 {
            continue;
        }
        let mut patch = Map::new();
        patch.insert("reserved".into(), json!(qty(&r, "reserved") + take));
        patch.insert("available".into(), json!(qty(&r, "available") - take));
        w.update(&sdef, cx.tenant, qid, patch, cx.actor)?;
        out.push((qid, take));
        left -= take;
    }
    Ok(out)
}

/// Gives reservations back to the available quantity.
pub fn release(w: &mut WriteCtx, cx: &Ctx, held: &[Reservation]) -> store::Result<()> {
    let sdef = cx.def("stockdata");
    for (qid, q) in held.iter().filter(|(_, q)| *q > 0) {
        let Some(r) = w.get(&sdef, cx.tenant, *qid)? else { continue };
        let back = (*q).min(qty(&r, "reserved"));
        let mut patch = Map::new();
        patch.insert("reserved".into(), json!(qty(&r, "reserved") - back));
        patch.insert("available".into(), json!(qty(&r, "available") + back));
        w.update(&sdef, cx.tenant, *qid, patch, cx.actor)?;
    }
    Ok(())
}

pub fn reservations_of(line: &Map<String, Value>) -> Vec<Reservation> {
    line.get("reservations")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|e| Some((e.get("stockId")?.as_str()?.parse().ok()?, e.get("qty")?.as_i64()?)))
                .filter(|(_, q)| *q > 0)
                .collect()
        })
        .unwrap_or_default()
}

pub fn reservations_json(held: &[Reservation]) -> Value {
    Value::Array(held.iter().filter(|(_, q)| *q > 0).map(|(id, q)| json!({"stockId": id.to_string(), "qty": q})).collect())
}

/// What `zhizhuang verify` reports of the ledger of one data file.
#[derive(Debug, Default)]
pub struct Audit {
    pub moves: u64,
    pub balances: u64,
    pub problems: Vec<String>,
}

/// Recomputes every balance from the moves and compares: balances, reserved and available, goods totals.
pub fn audit(r: &ReadCtx, res: &crate::decl::Resources) -> store::Result<Audit> {
    let (mdef, sdef, gdef) = (res.get("stock_move"), res.get("stockdata"), res.get("goods"));
    let mut out = Audit::default();
    let mut tenants = r.tenants_of(&mdef)?;
    for t in r.tenants_of(&sdef)? {
        if !tenants.contains(&t) {
            tenants.push(t);
        }
    }
    for t in tenants {
        let mut want: HashMap<String, i64> = HashMap::new();
        let mut goods_want: HashMap<u64, i64> = HashMap::new();
        let mut projects: HashMap<u64, (i64, i64, i64)> = HashMap::new();
        r.for_each(&mdef, &t, |m| {
            out.moves += 1;
            add_project_sums(&mut projects, &m);
            let (g, q, b) = (id(&m, "goodsId"), qty(&m, "qty"), text(&m, "batch").to_string());
            for (loc, sign) in [(text(&m, "fromLoc"), -1), (text(&m, "toLoc"), 1)] {
                if let Some(l) = Loc::parse(loc).filter(Loc::internal) {
                    *want.entry(quant_key(g, l, &b)).or_default() += sign * q;
                    *goods_want.entry(g).or_default() += sign * q;
                }
            }
            Ok(())
        })?;
        let mut bins: HashMap<u64, i64> = HashMap::new();
        r.for_each(&sdef, &t, |s| {
            out.balances += 1;
            if id(&s, "spaceId") > 0 {
                *bins.entry(id(&s, "spaceId")).or_default() += qty(&s, "qty");
            }
            let key = text(&s, "quantKey").to_string();
            let (q, rs, av) = (qty(&s, "qty"), qty(&s, "reserved"), qty(&s, "available"));
            let expect = want.remove(&key).unwrap_or(0);
            if q != expect {
                out.problems.push(format!("tenant {t}: stock {key}: on hand {} but moves sum to {}", format_qty(q), format_qty(expect)));
            }
            if q < 0 || rs < 0 || rs > q || av != q - rs {
                out.problems.push(format!("tenant {t}: stock {key}: on hand {}, reserved {}, available {}", format_qty(q), format_qty(rs), format_qty(av)));
            }
            Ok(())
        })?;
        for (space, q) in bins {
            let held = r.counter(&t, &bin_counter(space))? as i64;
            if held != q {
                out.problems.push(format!("tenant {t}: bin {space}: total {} but its balances sum to {}", format_qty(held), format_qty(q)));
            }
        }
        for (p, sums) in projects {
            let have = project_totals(|k| r.counter(&t, k), p)?;
            if have != sums {
                out.problems.push(format!("tenant {t}: project {p}: issued/returned/moves {}/{} fen/{} but its moves give {}/{}/{}", have.0, have.1, have.2, sums.0, sums.1, sums.2));
            }
        }
        for (key, q) in want.into_iter().filter(|(_, q)| *q != 0) {
            out.problems.push(format!("tenant {t}: stock {key}: no balance row, moves sum to {}", format_qty(q)));
        }
        r.for_each(&gdef, &t, |g| {
            let (gid, have) = (id(&g, "id"), qty(&g, "stockQty"));
            let expect = goods_want.get(&gid).copied().unwrap_or(0);
            if have != expect {
                out.problems.push(format!("tenant {t}: goods {}: stockQty {} but moves sum to {}", text(&g, "goodsCode"), format_qty(have), format_qty(expect)));
            }
            Ok(())
        })?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_round_trip() {
        for l in [Loc::Bin(7), Loc::Recv(3), Loc::Ret(3), Loc::Disp(3), Loc::Supplier, Loc::Customer, Loc::Project(9), Loc::Loss, Loc::Transit] {
            assert_eq!(Loc::parse(&l.key()), Some(l));
        }
        assert_eq!(Loc::parse("bin:0"), None);
        assert_eq!(Loc::parse("bin:x"), None);
        assert_eq!(Loc::parse("shelf"), None);
        assert!(Loc::Bin(1).internal() && !Loc::Project(1).internal());
    }
}
