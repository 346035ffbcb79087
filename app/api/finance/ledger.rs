//! 合同台账: one ledger per contract, a journal of dated, attributed entries — the signed amount (posted when the
//! contract is signed), changes (±), the receivable schedule (payment nodes 定金/首期/中期/尾款 with due dates),
//! receipts and invoices — and balances kept in the ledger record in the same transaction as each entry:
//! contract total = signed + changes, outstanding = total − received. Entries are never edited or removed: a
//! correction is a reversing entry (the same type, the amount negated, `reversesId` naming the original),
//! optionally followed by the corrected one. Receipts, invoices and the schedule never exceed the contract total;
//! `zhizhuang verify` recomputes every ledger from its entries (`audit`). Receivables are the schedule's payment
//! nodes with the receipts applied to them in due-date order. 合同管理 shows each contract's 合同总额 as its ledger
//! counts it (`ledgerTotal`, kept by `sync_total` in the same transaction as every entry and status change).
use std::collections::HashMap;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, ReadCtx, StoreError, WriteCtx};

use crate::auth::session::Session;
use crate::engine::crud;
use crate::engine::dialect::{Ctx, Env};
use crate::engine::params::{id_param, page_of};
use crate::engine::rec::{id, int, obj, text};
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind, rule};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

use super::{today, yuan};

pub const SIGNED: i64 = 1;
pub const CHANGE: i64 = 2;
pub const SCHEDULE: i64 = 3;
pub const RECEIPT: i64 = 4;
pub const INVOICE: i64 = 5;

const L: &str = "/api/blade-scm/contractledger";
const R: &str = "/blade-api/edu-sub-account/receivables";
const R_API: &str = "/api/blade-api/edu-sub-account/receivables";

/// The contract ledger's and the receivables' routes. The one generic route, `GET contractledger/list` (filters
/// and paging of ledgers), is declared with the resource (`assets/resources/finance/contract_ledger.json`) and
/// served by the engine; every other is here.
pub fn routes(api: Api) -> Api {
    let ledger = api.def("contract_ledger");
    let api = api
        .get(format!("{L}/detail"), Guard::read(&ledger), detail)
        .reads()
        .doc("合同台账 · one ledger (id, or contractId) with its balances, the payment schedule with receipts applied (a receipt for a stage to that stage first, the rest in due-date order), and the overdue amount", &[])
        .post(format!("{L}/ledgerList"), Guard::read(&ledger), entry_list)
        .reads()
        .doc("合同台账 · the ledger's entries, newest first (body: ledgerId or contractId, entryType optional, page, size); each says who posted it and whether it was reversed", &[])
        .post(format!("{L}/save"), Guard::write(&ledger, &["add"]), save)
        .doc(
            "合同台账 · post an entry (body: contractId, entryType 2 change ± / 3 schedule (node, dueDate) / 4 receipt (nodeId: the stage it is for, optional) / 5 invoice (invoiceNo), amount, entryDate, remark); the signed amount (1) is posted when the contract is signed",
            &[],
        )
        .post(format!("{L}/update/ledger"), Guard::write(&ledger, &["edit"]), correct)
        .doc("合同台账 · correct an entry: a reversing entry, then the corrected one when amount is given (body: id, amount optional, remark: the reason)", &[])
        .post(format!("{L}/remove"), Guard::write(&ledger, &["delete"]), remove)
        .doc("合同台账 · entries are never deleted: each of ids is reversed (body or query: ids, remark)", &[]);
    // The spec writes the receivables without the common prefix; clients that add it to every call find them too.
    [R, R_API].into_iter().fold(api, |api, r| receivable_routes(api, r))
}

fn receivable_routes(api: Api, r: &str) -> Api {
    api.get(format!("{r}/list"), Guard::code("receivables"), receivables)
        .reads()
        .doc("应收款 · payment nodes with what was received against them (query: contractId, projectId, state 1 open / 2 overdue / 3 settled, current, size)", &[])
        .get(format!("{r}/detail"), Guard::code("receivables"), receivable_detail)
        .reads()
        .doc("应收款 · one payment node (id: its schedule entry) with its contract's receipts", &[])
        .post(format!("{r}/save"), Guard::code("receivables_add"), receivable_save)
        .doc("应收款 · record a receipt on a contract (body: contractId, amount, entryDate, remark, nodeId: the stage it is for, settled first): a receipt entry of its ledger", &[])
}

// ---------------------------------------------------------------------------------------------------------
// Postings (inside a write transaction)

/// The balance field an entry type moves.
fn field_of(t: i64) -> &'static str {
    match t {
        SIGNED => "signedAmount",
        CHANGE => "changeAmount",
        SCHEDULE => "scheduled",
        RECEIPT => "received",
        _ => "invoiced",
    }
}

/// The contract's ledger, opened (with zero balances) when it has none.
fn ledger_of(w: &mut WriteCtx, cx: &Ctx, contract: &Map<String, Value>) -> store::Result<Map<String, Value>> {
    let def = cx.def("contract_ledger");
    let cid = id(contract, "id");
    let q = Query { filters: vec![Filter::new("contractId", Op::Equal, json!(cid))], limit: 1, ..Query::default() };
    if let Some(l) = w.list(&def, cx.tenant, &q)?.records.into_iter().next() {
        return Ok(l);
    }
    let mut doc = obj(json!({"contractId": cid, "contractCode": text(contract, "contractCode"), "contractName": text(contract, "contractName"),
        "signedAmount": 0, "changeAmount": 0, "contractAmount": 0, "scheduled": 0, "received": 0, "invoiced": 0, "outstanding": 0, "entries": 0}));
    if id(contract, "projectId") > 0 {
        doc.insert("projectId".into(), json!(id(contract, "projectId")));
    }
    w.insert(&def, cx.tenant, doc, cx.actor)
}

/// The balances after adding `amount` of type `t`, refused when a total would pass the contract total.
fn apply(ledger: &Map<String, Value>, t: i64, amount: i64) -> store::Result<Map<String, Value>> {
    let mut b: HashMap<&str, i64> = ["signedAmount", "changeAmount", "scheduled", "received", "invoiced"].iter().map(|k| (*k, int(ledger, k))).collect();
    *b.get_mut(field_of(t)).unwrap() += amount;
    let total = b["signedAmount"] + b["changeAmount"];
    if total < 0 {
        return Err(rule(format!("合同总额将为 {} 元,不能为负数", yuan(total)), format!("The contract total would be {} yuan; it cannot be negative", yuan(total))));
    }
    for (k, zh, en) in [("received", "收款", "Receipts"), ("scheduled", "收款计划", "The payment schedule"), ("invoiced", "开票", "Invoices")] {
        if b[k] > total {
            return Err(rule(
                format!("{zh}合计 {} 元将超过合同总额 {} 元", yuan(b[k]), yuan(total)),
                format!("{en} would total {} yuan, more than the contract total of {} yuan", yuan(b[k]), yuan(total)),
            ));
        }
        if b[k] < 0 {
            return Err(rule(format!("{zh}合计不能为负数"), format!("{en} cannot total less than zero")));
        }
    }
    let mut out = Map::new();
    for (k, v) in &b {
        out.insert((*k).into(), json!(v));
    }
    out.insert("contractAmount".into(), json!(total));
    out.insert("outstanding".into(), json!(total - b["received"]));
    out.insert("entries".into(), json!(int(ledger, "entries") + 1));
    Ok(out)
}

/// Posts one entry to the contract's ledger and moves its balances, in the open transaction.
/// An invoice number is the tax office's: one invoice, once in the company's books. In use while an invoice entry
/// carries it that no reversal has taken back (a 更正 reverses the old entry before it posts the number again).
fn invoice_unused(w: &WriteCtx, cx: &Ctx, no: &str) -> store::Result<()> {
    if no.is_empty() {
        return Ok(());
    }
    let edef = cx.def("ledger_entry");
    let q = Query { filters: vec![Filter::new("invoiceNo", Op::Equal, json!(no))], limit: 1_000, ..Query::default() };
    for e in w.list(&edef, cx.tenant, &q)?.records {
        if int(&e, "entryType") != INVOICE || id(&e, "reversesId") > 0 {
            continue;
        }
        let rq = Query { filters: vec![Filter::new("reversesId", Op::Equal, json!(id(&e, "id")))], limit: 1, ..Query::default() };
        if !w.list(&edef, cx.tenant, &rq)?.records.is_empty() {
            continue;
        }
        // (Not which contract: it may be one the caller cannot see.)
        let date = text(&e, "entryDate").to_string();
        return Err(rule(
            format!("发票号 {no} 已于 {date} 登记,不能重复开票;登记错了请先冲销那一笔"),
            format!("Invoice number {no} was already posted on {date}; reverse that entry first if it was a mistake"),
        ));
    }
    Ok(())
}

pub fn post_in(w: &mut WriteCtx, cx: &Ctx, contract: &Map<String, Value>, t: i64, amount: i64, date: &str, extra: Map<String, Value>) -> store::Result<Map<String, Value>> {
    let ledger = ledger_of(w, cx, contract)?;
    let mut patch = apply(&ledger, t, amount)?;
    let date: String = date.chars().take(10).collect();
    if text(&ledger, "lastEntryDate") < date.as_str() {
        patch.insert("lastEntryDate".into(), json!(date));
    }
    let mut doc = extra;
    for (k, v) in [("ledgerId", json!(id(&ledger, "id"))), ("contractId", json!(id(contract, "id"))), ("entryType", json!(t)), ("amount", json!(amount)), ("entryDate", json!(date))] {
        doc.insert(k.into(), v);
    }
    let entry = w.insert(&cx.def("ledger_entry"), cx.tenant, doc, cx.actor)?;
    w.update(&cx.def("contract_ledger"), cx.tenant, id(&ledger, "id"), patch, cx.actor)?;
    sync_total(w, cx.res, cx.tenant, id(contract, "id"))?;
    Ok(entry)
}

/// The 合同总额 a contract shows in 合同管理 (`ledgerTotal`): what `figures::ledger_value` counts of its ledger at
/// its status of now, none while it has no ledger (a draft, or one cancelled unsigned). Written when it differs,
/// read afresh (an earlier posting of the same request may have moved it), the contract's 修改人 and 修改时间
/// left as they were: a receipt or a change posted in the ledger is not an edit of the contract record.
pub fn sync_total(w: &mut WriteCtx, res: &crate::decl::Resources, tenant: &str, contract: u64) -> store::Result<()> {
    let cdef = res.get("contract");
    let Some(c) = w.get(&cdef, tenant, contract)? else { return Ok(()) };
    let q = Query { filters: vec![Filter::new("contractId", Op::Equal, json!(contract))], limit: 1, ..Query::default() };
    let want = match w.list(&res.get("contract_ledger"), tenant, &q)?.records.first() {
        Some(l) => json!(super::figures::ledger_value(l, int(&c, "contractStatus")).0),
        None => Value::Null,
    };
    if c.get("ledgerTotal").unwrap_or(&Value::Null) == &want {
        return Ok(());
    }
    let kept = store::Actor { user_id: id(&c, "updateUser"), dept_id: 0, at: c.get("updateTime").and_then(Value::as_i64) };
    let mut patch = Map::new();
    patch.insert("ledgerTotal".into(), want);
    w.update_from(&cdef, tenant, contract, c, patch, &kept)?;
    Ok(())
}

/// Contracts written before 合同管理 showed the ledger's 合同总额 take it, once.
pub fn ledger_totals(w: &mut WriteCtx, res: &crate::decl::Resources) -> store::Result<()> {
    let cdef = res.get("contract");
    // Every tenant holding contracts (a removed tenant's too: `verify` checks them all).
    for t in w.tenants_of(&cdef)? {
        let ids: Vec<u64> = w.all(&cdef, &t)?.iter().map(|c| id(c, "id")).collect();
        for c in ids {
            sync_total(w, res, &t, c)?;
        }
    }
    Ok(())
}

/// The entry that reverses `entry`, if any.
fn reversal_of(w: &WriteCtx, cx: &Ctx, entry: u64) -> store::Result<Option<Map<String, Value>>> {
    let q = Query { filters: vec![Filter::new("reversesId", Op::Equal, json!(entry))], limit: 1, ..Query::default() };
    Ok(w.list(&cx.def("ledger_entry"), cx.tenant, &q)?.records.into_iter().next())
}

/// Reverses an entry (and posts its corrected amount when given), in the open transaction.
fn reverse_in(w: &mut WriteCtx, cx: &Ctx, entry_id: u64, corrected: Option<i64>, reason: &str) -> store::Result<Vec<Map<String, Value>>> {
    let e = w.get(&cx.def("ledger_entry"), cx.tenant, entry_id)?.ok_or(StoreError::NotFound)?;
    if id(&e, "reversesId") > 0 {
        return Err(rule("冲销分录不能再冲销", "A reversing entry cannot be reversed"));
    }
    if reversal_of(w, cx, entry_id)?.is_some() {
        return Err(rule("该分录已冲销", "The entry has already been reversed"));
    }
    let t = int(&e, "entryType");
    if t == SIGNED {
        return Err(rule("签约金额不能冲销,金额有变化请登记合同变更", "The signed amount cannot be reversed; post a change instead"));
    }
    let contract = w.get(&cx.def("contract"), cx.tenant, id(&e, "contractId"))?.ok_or(StoreError::NotFound)?;
    let today: String = cx.now.chars().take(10).collect();
    let keep = |e: &Map<String, Value>| {
        let mut m = Map::new();
        for k in ["node", "dueDate", "invoiceNo", "nodeId"] {
            if let Some(v) = e.get(k).filter(|v| !v.is_null()) {
                m.insert(k.into(), v.clone());
            }
        }
        m
    };
    let mut rev = keep(&e);
    rev.insert("reversesId".into(), json!(entry_id));
    rev.insert("remark".into(), json!(format!("冲销:{reason}").chars().take(255).collect::<String>()));
    let mut out = vec![post_in(w, cx, &contract, t, -int(&e, "amount"), &today, rev)?];
    if let Some(a) = corrected {
        check_amount(t, a)?;
        let mut again = keep(&e);
        again.insert("remark".into(), json!(format!("更正:{reason}").chars().take(255).collect::<String>()));
        out.push(post_in(w, cx, &contract, t, a, text(&e, "entryDate"), again)?);
    }
    Ok(out)
}

fn check_amount(t: i64, amount: i64) -> store::Result<()> {
    if t == CHANGE && amount == 0 {
        return Err(rule("变更金额不能为 0", "A change cannot be zero"));
    }
    if t != CHANGE && amount <= 0 {
        return Err(rule("金额须大于 0", "The amount must be more than zero"));
    }
    Ok(())
}

/// After a contract is written (`Rules::saved`): signing posts the signed amount; a later change of the amount
/// on a signed contract posts the difference as a change; the ledger keeps the contract's code, name and project.
pub fn contract_saved(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, new: &Map<String, Value>) -> store::Result<()> {
    ledger_follows(w, cx, old, new)?;
    // A status change alone moves the figure too (terminated: worth what came in).
    sync_total(w, cx.res, cx.tenant, id(new, "id"))
}

fn ledger_follows(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, new: &Map<String, Value>) -> store::Result<()> {
    let (was, now) = (old.map(|o| int(o, "contractStatus")).unwrap_or(0), int(new, "contractStatus"));
    if now == 0 || (was == 0 && now == 9) {
        return Ok(());
    }
    let amount = int(new, "contractAmount");
    if was == 0 {
        let date = Some(text(new, "signDate")).filter(|d| !d.is_empty()).unwrap_or(cx.now);
        post_in(w, cx, new, SIGNED, amount, date, obj(json!({"remark": "合同签订"})))?;
        return Ok(());
    }
    let before = old.map(|o| int(o, "contractAmount")).unwrap_or(amount);
    if before != amount {
        let remark = format!("合同金额由 {} 元改为 {} 元", yuan(before), yuan(amount));
        post_in(w, cx, new, CHANGE, amount - before, cx.now, obj(json!({"remark": remark})))?;
    }
    let ldef = cx.def("contract_ledger");
    let q = Query { filters: vec![Filter::new("contractId", Op::Equal, json!(id(new, "id")))], limit: 1, ..Query::default() };
    if let Some(l) = w.list(&ldef, cx.tenant, &q)?.records.into_iter().next() {
        let mut patch = Map::new();
        for k in ["contractCode", "contractName"] {
            if text(&l, k) != text(new, k) {
                patch.insert(k.into(), json!(text(new, k)));
            }
        }
        if id(&l, "projectId") != id(new, "projectId") {
            patch.insert("projectId".into(), if id(new, "projectId") > 0 { json!(id(new, "projectId")) } else { Value::Null });
        }
        if !patch.is_empty() {
            w.update(&ldef, cx.tenant, id(&l, "id"), patch, cx.actor)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------
// Reading: the schedule with receipts applied

/// A payment node with what was applied to it: (entry, received, state 1 open / 2 overdue / 3 settled).
struct Node {
    entry: Map<String, Value>,
    got: i64,
    state: i64,
}

/// The live entries of one type of a ledger: reversed entries and reversals left out (both filters are index
/// keys).
fn live_entries(r: &ReadCtx, edef: &store::ResourceDef, tenant: &str, ledger: u64, t: i64) -> store::Result<Vec<Map<String, Value>>> {
    let q = Query { filters: vec![Filter::new("ledgerId", Op::Equal, json!(ledger)), Filter::new("entryType", Op::Equal, json!(t))], limit: 100_000, ..Query::default() };
    let entries = r.list(edef, tenant, &q)?.records;
    let reversed: std::collections::HashSet<u64> = entries.iter().map(|e| id(e, "reversesId")).filter(|i| *i > 0).collect();
    Ok(entries.into_iter().filter(|e| id(e, "reversesId") == 0 && !reversed.contains(&id(e, "id"))).collect())
}

/// The live schedule of a ledger, receipts applied: a receipt recorded for a stage (`nodeId`, from 应收款's
/// 登记收款 on that stage) settles that stage first; what is left of it, and receipts for no stage, settle the
/// stages in due-date order.
fn schedule(r: &ReadCtx, res: &crate::decl::Resources, tenant: &str, ledger: &Map<String, Value>, today: &str) -> store::Result<Vec<Node>> {
    let edef = res.get("ledger_entry");
    let mut nodes = live_entries(r, &edef, tenant, id(ledger, "id"), SCHEDULE)?;
    nodes.sort_by(|a, b| (text(a, "dueDate"), id(a, "id")).cmp(&(text(b, "dueDate"), id(b, "id"))));
    let mut aimed: HashMap<u64, i64> = HashMap::new();
    if int(ledger, "received") > 0 {
        for e in live_entries(r, &edef, tenant, id(ledger, "id"), RECEIPT)?.iter().filter(|e| id(e, "nodeId") > 0) {
            // A stage corrected since (reversed, posted again under a new id with its name and due date) is found
            // by its name among the live ones; a stage reversed and not posted again takes nothing first.
            let stage = match nodes.iter().find(|n| id(n, "id") == id(e, "nodeId")) {
                Some(n) => Some(id(n, "id")),
                None => nodes.iter().find(|n| text(n, "node") == text(e, "node") && !text(e, "node").is_empty()).map(|n| id(n, "id")),
            };
            if let Some(stage) = stage {
                *aimed.entry(stage).or_default() += int(e, "amount");
            }
        }
    }
    let first: Vec<i64> = nodes.iter().map(|e| aimed.get(&id(e, "id")).copied().unwrap_or(0).clamp(0, int(e, "amount"))).collect();
    let mut left = (int(ledger, "received") - first.iter().sum::<i64>()).max(0);
    Ok(nodes
        .into_iter()
        .zip(first)
        .map(|(e, first)| {
            let amount = int(&e, "amount");
            let more = left.clamp(0, amount - first);
            left -= more;
            let got = first + more;
            let state = if got >= amount {
                3
            } else if !text(&e, "dueDate").is_empty() && &text(&e, "dueDate")[..text(&e, "dueDate").len().min(10)] < today {
                2
            } else {
                1
            };
            Node { entry: e, got, state }
        })
        .collect())
}

const STATE: [(&str, &str); 4] = [("", ""), ("未到期", "Open"), ("已逾期", "Overdue"), ("已收清", "Settled")];

fn node_json(n: &Node, contract: &Map<String, Value>, today: &str) -> Value {
    let e = &n.entry;
    let amount = int(e, "amount");
    let due = text(e, "dueDate");
    let days = if n.state == 2 { days_between(due, today) } else { 0 };
    json!({
        "id": id(e, "id").to_string(), "ledgerId": id(e, "ledgerId").to_string(), "contractId": id(e, "contractId").to_string(),
        "contractCode": text(contract, "contractCode"), "contractName": text(contract, "contractName"),
        "projectId": contract.get("projectId").and_then(Value::as_u64).map(|p| p.to_string()),
        "node": text(e, "node"), "dueDate": due, "amount": yuan(amount), "received": yuan(n.got), "outstanding": yuan(amount - n.got),
        "state": n.state, "stateName": STATE[n.state as usize].0, "stateNameEn": STATE[n.state as usize].1, "overdueDays": days,
    })
}

/// Whole days from `a` to `b` (both `yyyy-MM-dd`), 0 when either is not a date.
fn days_between(a: &str, b: &str) -> i64 {
    let d = |s: &str| chrono::NaiveDate::parse_from_str(s.get(..10).unwrap_or(""), "%Y-%m-%d").ok();
    match (d(a), d(b)) {
        (Some(a), Some(b)) => (b - a).num_days().max(0),
        _ => 0,
    }
}

// ---------------------------------------------------------------------------------------------------------
// Handlers

/// The ledger named by `id`/`ledgerId`, or the one of `contractId` (404 when the contract has none yet).
async fn ledger_param(st: &AppState, s: &Session, p: &AnyParams) -> ApiResult<Map<String, Value>> {
    let def = st.res.get("contract_ledger");
    let lid = match ["id", "ledgerId"].iter().find_map(|k| p.get(k).filter(|v| !v.is_empty())) {
        Some(v) => crud::parse_id(Some(v))?,
        None => {
            let cid = id_param(p, &["contractId"])?;
            let (d, t) = (def.clone(), s.tenant.clone());
            let q = Query { filters: vec![Filter::new("contractId", Op::Equal, json!(cid))], limit: 1, ..Query::default() };
            let found = st.read(move |r| Ok(r.list(&d, &t, &q)?.records.into_iter().next())).await?;
            found.map(|l| id(&l, "id")).ok_or_else(|| ApiError::new(Kind::NotFound))?
        }
    };
    crud::get_scoped(st, s, &def, lid).await
}

/// GET detail: the ledger, its contract, the schedule with receipts applied and the overdue total.
async fn detail(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let ledger = ledger_param(&st, &s, &p).await?;
    let (res, t, l, day) = (st.res.clone(), s.tenant.clone(), ledger.clone(), today(&st));
    let (contract, nodes) = st
        .read(move |r| {
            let contract = r.get(&res.get("contract"), &t, id(&l, "contractId"))?.unwrap_or_default();
            let nodes = schedule(r, &res, &t, &l, &day)?;
            Ok((contract, nodes))
        })
        .await?;
    let day = today(&st);
    let overdue: i64 = nodes.iter().filter(|n| n.state == 2).map(|n| int(&n.entry, "amount") - n.got).sum();
    let mut out = crud::decorated(&st, &s.tenant, &st.res.get("contract_ledger"), ledger).await?;
    out.insert("overdue".into(), json!(yuan(overdue)));
    out.insert("contractStatus".into(), json!(int(&contract, "contractStatus")));
    out.insert("partyName".into(), json!(text(&contract, "partyName")));
    out.insert("signDate".into(), json!(text(&contract, "signDate")));
    out.insert("schedule".into(), Value::Array(nodes.iter().map(|n| node_json(n, &contract, &day)).collect()));
    Ok(ok(Value::Object(out)))
}

/// POST ledgerList: entries newest first by their date, each with who posted it and whether (and by which entry) it was reversed.
async fn entry_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let ledger = ledger_param(&st, &s, &p).await?;
    let (current, size) = page_of(&p)?;
    let mut filters = vec![Filter::new("ledgerId", Op::Equal, json!(id(&ledger, "id")))];
    if let Some(t) = p.get("entryType").filter(|v| !v.is_empty()) {
        filters.push(Filter::new("entryType", Op::Equal, json!(t.parse::<i64>().map_err(|_| ApiError::with(Kind::BadFormat, "entryType"))?)));
    }
    let (res, t, lid) = (st.res.clone(), s.tenant.clone(), id(&ledger, "id"));
    // By the entry's date, newest first (a change dated 08-24 is not listed between two July receipts because it
    // was typed later); entries of one day in the order they were posted.
    let q = Query { filters, offset: (current - 1) * size, limit: size, sorts: vec![store::Sort { field: "entryDate".into(), desc: true }, store::Sort { field: "id".into(), desc: true }], ..Query::default() };
    let (page, reversed) = st
        .read(move |r| {
            let edef = res.get("ledger_entry");
            // All entries: the page read from the end of the ledger's index range and the total the ledger keeps
            // (same snapshot), so a ledger of 10,000 entries reads 20; by type, the counted list.
            let counted = match q.filters.len() {
                1 => r.get(&res.get("contract_ledger"), &t, lid)?.map(|l| int(&l, "entries") as u64),
                _ => None,
            };
            let page = match counted {
                Some(total) => store::Page { records: r.newest_by(&edef, &t, "ledgerId", &json!(lid), q.offset, q.limit)?.unwrap_or_default(), total, ..Default::default() },
                None => r.list(&edef, &t, &q)?,
            };
            // The reversals of this page's entries, looked up by the page's ids (not a walk over the ledger).
            let ids: Vec<Value> = page.records.iter().map(|e| json!(id(e, "id"))).collect();
            let of_page = Query { filters: vec![Filter::new("reversesId", Op::In, Value::Array(ids))], limit: 1_000, ..Query::default() };
            let reversed: HashMap<u64, u64> = r.list(&edef, &t, &of_page)?.records.iter().filter(|e| id(e, "ledgerId") == lid).map(|e| (id(e, "reversesId"), id(e, "id"))).collect();
            let authored = crate::engine::names::with_authors(r, &res, &t, page.records)?;
            Ok((store::Page { records: Vec::new(), total: page.total, ..Default::default() }, (reversed, authored)))
        })
        .await?;
    let (reversed, authored) = reversed;
    let edef = st.res.get("ledger_entry");
    let (recs, names): (Vec<_>, Vec<_>) = authored.into_iter().unzip();
    let wire = crud::wire_records(&st, &edef, &s.tenant, recs).await?;
    let rows: Vec<Map<String, Value>> = wire
        .into_iter()
        .zip(names)
        .map(|(mut w, name)| {
            let eid = w.get("id").and_then(Value::as_str).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
            w.insert("createUserName".into(), json!(name));
            w.insert("reversedBy".into(), json!(reversed.get(&eid).map(|r| r.to_string())));
            w
        })
        .collect();
    Ok(ok(crate::engine::params::page_json(rows, page.total, current, size)))
}

/// The entry fields of a request, checked against the declaration (money, dates, lengths).
fn entry_input(st: &AppState, p: &AnyParams) -> ApiResult<Map<String, Value>> {
    let mut body = Map::new();
    for k in ["amount", "entryDate", "node", "dueDate", "invoiceNo", "remark"] {
        if let Some(v) = p.get(k).filter(|v| !v.trim().is_empty()) {
            body.insert(k.into(), json!(v.trim()));
        }
    }
    Ok(st.res.get("ledger_entry").parse_input(&body, false)?)
}

/// Posts an entry of type `t` on the contract named in the request, with the rules of that type.
async fn post_entry(st: &AppState, s: &Session, p: &AnyParams, t: i64) -> ApiResult<Map<String, Value>> {
    let cid = id_param(p, &["contractId"])?;
    crud::get_scoped(st, s, &st.res.get("contract"), cid).await?;
    let mut doc = entry_input(st, p)?;
    let amount = doc.remove("amount").and_then(|v| v.as_i64()).ok_or_else(|| ApiError::with(Kind::Missing, "amount"))?;
    let date = doc.remove("entryDate").and_then(|v| v.as_str().map(str::to_string));
    if t == SCHEDULE && (text(&doc, "node").is_empty() || text(&doc, "dueDate").is_empty()) {
        return Err(ApiError::with(Kind::Missing, if text(&doc, "node").is_empty() { "node" } else { "dueDate" }));
    }
    if t == INVOICE && text(&doc, "invoiceNo").is_empty() {
        return Err(ApiError::with(Kind::Missing, "invoiceNo"));
    }
    // A receipt for one stage (应收款's 登记收款 on its row) settles that stage first; a receipt names a stage only
    // so (a typed name would look aimed in the journal and was not).
    let stage = match p.get("nodeId").map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) if t == RECEIPT => Some(crud::parse_id(Some(v))?),
        Some(_) => return Err(ApiError::rule("只有收款可以指定收款节点", "Only a receipt is recorded for a stage")),
        None => None,
    };
    if t == RECEIPT && stage.is_none() {
        doc.remove("node");
    }
    let env = Env::new(st, s);
    Ok(st
        .write(move |w| {
            let cx = env.cx();
            check_amount(t, amount)?;
            let contract = w.get(&cx.def("contract"), cx.tenant, cid)?.ok_or(StoreError::NotFound)?;
            match int(&contract, "contractStatus") {
                0 => return Err(rule("合同尚未签订,不能记账", "The contract is not signed yet; nothing can be posted")),
                9 if t != RECEIPT && t != INVOICE => return Err(rule("合同已终止,只能登记收款和开票", "The contract is terminated; only receipts and invoices can be posted")),
                _ => {}
            }
            let date = date.clone().unwrap_or_else(|| cx.now.chars().take(10).collect());
            // A new invoice only (a reversal or a 更正 posts the number it corrects again).
            if t == INVOICE {
                invoice_unused(w, &cx, text(&doc, "invoiceNo"))?;
            }
            let mut doc = doc.clone();
            if let Some(n) = stage {
                let node = w.get(&cx.def("ledger_entry"), cx.tenant, n)?.filter(|e| int(e, "entryType") == SCHEDULE && id(e, "contractId") == cid && id(e, "reversesId") == 0);
                let live = node.is_some() && reversal_of(w, &cx, n)?.is_none();
                let Some(node) = node.filter(|_| live) else {
                    return Err(rule("收款节点不是该合同现行的收款计划", "The stage is not a live payment stage of this contract"));
                };
                // The journal names the stage beside the receipt.
                doc.insert("node".into(), json!(text(&node, "node")));
                doc.insert("nodeId".into(), json!(n));
            }
            post_in(w, &cx, &contract, t, amount, &date, doc)
        })
        .await?)
}

/// POST save: an entry of type 2–5.
async fn save(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    // Missing and malformed are told apart: "x" was answered 请输入 entryType although one was sent.
    let t = match p.get("entryType").map(|v| v.trim()).filter(|v| !v.is_empty()) {
        None => return Err(ApiError::with(Kind::Missing, "entryType")),
        Some(v) => v.parse::<i64>().map_err(|_| ApiError::with(Kind::BadFormat, "entryType"))?,
    };
    if !(CHANGE..=INVOICE).contains(&t) {
        return Err(if t == SIGNED {
            rule("签约金额在合同签订时自动入账", "The signed amount is posted when the contract is signed").into()
        } else {
            ApiError::with(Kind::BadFormat, "entryType")
        });
    }
    let e = post_entry(&st, &s, &p, t).await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &st.res.get("ledger_entry"), e).await?))
}

/// An entry the session may correct: it exists in the tenant and its ledger is visible.
async fn visible_entry(st: &AppState, s: &Session, eid: u64) -> ApiResult<()> {
    let (d, t) = (st.res.get("ledger_entry"), s.tenant.clone());
    let e = st.read(move |r| r.get(&d, &t, eid)).await?.ok_or_else(|| ApiError::new(Kind::NotFound))?;
    crud::get_scoped(st, s, &st.res.get("contract_ledger"), id(&e, "ledgerId")).await?;
    Ok(())
}

fn reason(p: &AnyParams) -> ApiResult<String> {
    let r = p.get("remark").map(str::trim).unwrap_or("");
    if r.is_empty() {
        return Err(ApiError::rule("请填写更正原因", "Give the reason for the correction"));
    }
    Ok(r.chars().take(200).collect())
}

/// POST update/ledger: reverse an entry, then post the corrected amount when one is given.
async fn correct(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let eid = id_param(&p, &["id"])?;
    visible_entry(&st, &s, eid).await?;
    let why = reason(&p)?;
    let corrected = match p.get("amount").map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => Some(store::parse_money(v).ok_or_else(|| ApiError::with(Kind::BadFormat, "amount"))?),
        None => None,
    };
    let env = Env::new(&st, &s);
    let out = st.write(move |w| reverse_in(w, &env.cx(), eid, corrected, &why)).await?;
    let edef = st.res.get("ledger_entry");
    Ok(ok(json!(crud::wire_records(&st, &edef, &s.tenant, out).await?)))
}

/// POST remove: every entry of ids reversed, in one transaction (none when one cannot be).
async fn remove(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let ids = crud::parse_ids(p.get("ids"))?;
    for e in &ids {
        visible_entry(&st, &s, *e).await?;
    }
    let why = p.get("remark").map(str::trim).filter(|r| !r.is_empty()).unwrap_or("删除").chars().take(200).collect::<String>();
    let env = Env::new(&st, &s);
    st.write(move |w| {
        for e in &ids {
            reverse_in(w, &env.cx(), *e, None, &why)?;
        }
        Ok(())
    })
    .await?;
    Ok(ok(Value::Null))
}

/// GET receivables/list: payment nodes of the visible ledgers, filtered by contract, project and state.
async fn receivables(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let (current, size) = page_of(&p)?;
    let want_state = match p.get("state").filter(|v| !v.is_empty()) {
        Some(v) => Some(v.parse::<i64>().ok().filter(|x| (1..=3).contains(x)).ok_or_else(|| ApiError::with(Kind::BadFormat, "state"))?),
        None => None,
    };
    let mut filters = Vec::new();
    for k in ["contractId", "projectId"] {
        if let Some(v) = p.get(k).filter(|v| !v.is_empty()) {
            filters.push(Filter::new(k, Op::Equal, json!(crud::parse_id(Some(v))?)));
        }
    }
    let ldef = st.res.get("contract_ledger");
    let any = crate::auth::scope::guard(&st, &s, &ldef).await?.unwrap_or_default();
    let (res, t, day) = (st.res.clone(), s.tenant.clone(), today(&st));
    let rows = st
        .read(move |r| {
            let q = Query { filters, any, limit: 100_000, ..Query::default() };
            let mut rows = Vec::new();
            for l in r.list(&res.get("contract_ledger"), &t, &q)?.records {
                if int(&l, "scheduled") == 0 {
                    continue;
                }
                let contract = r.get(&res.get("contract"), &t, id(&l, "contractId"))?.unwrap_or_default();
                for n in schedule(r, &res, &t, &l, &day)? {
                    if want_state.is_none_or(|w| w == n.state) {
                        rows.push((text(&n.entry, "dueDate").to_string(), node_json(&n, &contract, &day)));
                    }
                }
            }
            rows.sort_by(|a, b| a.0.cmp(&b.0));
            Ok(rows.into_iter().map(|(_, v)| v).collect::<Vec<_>>())
        })
        .await?;
    let total = rows.len() as u64;
    let page: Vec<Map<String, Value>> = rows.into_iter().skip(((current - 1) * size) as usize).take(size as usize).map(obj).collect();
    Ok(ok(crate::engine::params::page_json(page, total, current, size)))
}

/// GET receivables/detail: one payment node with its contract's receipts.
async fn receivable_detail(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let eid = id_param(&p, &["id"])?;
    visible_entry(&st, &s, eid).await?;
    let (res, t, day) = (st.res.clone(), s.tenant.clone(), today(&st));
    let out = st
        .read(move |r| {
            let e = r.get(&res.get("ledger_entry"), &t, eid)?.ok_or(StoreError::NotFound)?;
            if int(&e, "entryType") != SCHEDULE {
                return Err(StoreError::NotFound);
            }
            let l = r.get(&res.get("contract_ledger"), &t, id(&e, "ledgerId"))?.ok_or(StoreError::NotFound)?;
            let contract = r.get(&res.get("contract"), &t, id(&l, "contractId"))?.unwrap_or_default();
            let node = schedule(r, &res, &t, &l, &day)?.into_iter().find(|n| id(&n.entry, "id") == eid).ok_or(StoreError::NotFound)?;
            let q = Query { filters: vec![Filter::new("ledgerId", Op::Equal, json!(id(&l, "id"))), Filter::new("entryType", Op::Equal, json!(RECEIPT))], limit: 10_000, ..Query::default() };
            let receipts: Vec<Value> = r
                .list(&res.get("ledger_entry"), &t, &q)?
                .records
                .iter()
                .map(|x| json!({"id": id(x, "id").to_string(), "entryDate": text(x, "entryDate"), "amount": yuan(int(x, "amount")), "remark": text(x, "remark"), "reversesId": id(x, "reversesId").to_string()}))
                .collect();
            let mut v = node_json(&node, &contract, &day);
            v["receipts"] = Value::Array(receipts);
            Ok(v)
        })
        .await?;
    Ok(ok(out))
}

/// POST receivables/save: a receipt on the contract's ledger.
async fn receivable_save(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let e = post_entry(&st, &s, &p, RECEIPT).await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &st.res.get("ledger_entry"), e).await?))
}

// ---------------------------------------------------------------------------------------------------------
// Audit (`zhizhuang verify`)

#[derive(Default)]
pub struct Audit {
    pub ledgers: u64,
    pub entries: u64,
    pub problems: Vec<String>,
}

/// Recomputes every ledger's balances from its entries; checks each reversal against what it reverses.
pub fn audit(r: &ReadCtx, res: &crate::decl::Resources) -> store::Result<Audit> {
    let (ldef, edef, cdef) = (res.get("contract_ledger"), res.get("ledger_entry"), res.get("contract"));
    let mut out = Audit::default();
    let mut tenants = r.tenants_of(&ldef)?;
    for t in r.tenants_of(&edef)? {
        if !tenants.contains(&t) {
            tenants.push(t);
        }
    }
    for t in tenants {
        let mut sums: HashMap<u64, HashMap<&'static str, i64>> = HashMap::new();
        let mut counts: HashMap<u64, i64> = HashMap::new();
        let mut by_id: HashMap<u64, (i64, i64)> = HashMap::new();
        let mut reversals: Vec<(u64, u64, i64, i64)> = Vec::new();
        r.for_each(&edef, &t, |e| {
            out.entries += 1;
            let (l, ty, a) = (id(&e, "ledgerId"), int(&e, "entryType"), int(&e, "amount"));
            *sums.entry(l).or_default().entry(field_of(ty)).or_default() += a;
            *counts.entry(l).or_default() += 1;
            by_id.insert(id(&e, "id"), (ty, a));
            if id(&e, "reversesId") > 0 {
                reversals.push((id(&e, "id"), id(&e, "reversesId"), ty, a));
            }
            Ok(())
        })?;
        for (rid, of, ty, a) in reversals {
            match by_id.get(&of) {
                Some((oty, oa)) if *oty == ty && *oa == -a => {}
                _ => out.problems.push(format!("tenant {t}: entry {rid} does not reverse entry {of}")),
            }
        }
        r.for_each(&ldef, &t, |l| {
            out.ledgers += 1;
            let lid = id(&l, "id");
            let want = sums.remove(&lid).unwrap_or_default();
            for k in ["signedAmount", "changeAmount", "scheduled", "received", "invoiced"] {
                let (have, expect) = (int(&l, k), want.get(k).copied().unwrap_or(0));
                if have != expect {
                    out.problems.push(format!("tenant {t}: ledger {lid} ({}): {k} {} but its entries sum to {}", text(&l, "contractCode"), yuan(have), yuan(expect)));
                }
            }
            let total = int(&l, "signedAmount") + int(&l, "changeAmount");
            if int(&l, "contractAmount") != total || int(&l, "outstanding") != total - int(&l, "received") {
                out.problems.push(format!("tenant {t}: ledger {lid} ({}): total or outstanding does not follow from its balances", text(&l, "contractCode")));
            }
            let shown = r.get(&cdef, &t, id(&l, "contractId"))?.map(|c| (int(&c, "contractStatus"), c.get("ledgerTotal").and_then(Value::as_i64)));
            if let Some((status, shown)) = shown
                && shown != Some(super::figures::ledger_value(&l, status).0) {
                out.problems.push(format!("tenant {t}: contract {} shows 合同总额 {} but its ledger counts {}", text(&l, "contractCode"), shown.map(yuan).unwrap_or_else(|| "—".into()), yuan(super::figures::ledger_value(&l, status).0)));
            }
            if int(&l, "entries") != counts.get(&lid).copied().unwrap_or(0) {
                out.problems.push(format!("tenant {t}: ledger {lid}: {} entries counted, {} found", int(&l, "entries"), counts.get(&lid).copied().unwrap_or(0)));
            }
            Ok(())
        })?;
        for lid in sums.keys() {
            out.problems.push(format!("tenant {t}: entries of ledger {lid}, which does not exist"));
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------------------
// Demo

/// Demo ledgers: every signed contract's signed amount, a payment schedule (定金 10%, 首期 30%, 中期 40%, 尾款
/// 20%), receipts and invoices as far as its status goes (some nodes left overdue), a change on some, and one
/// mistyped receipt corrected by a reversal — posted through the same function as the API.
pub fn demo(w: &mut WriteCtx, cx: &Ctx) -> store::Result<()> {
    let contracts = w.all(&cx.def("contract"), cx.tenant)?;
    let plus = |d: &str, days: i64| {
        chrono::NaiveDate::parse_from_str(d.get(..10).unwrap_or(""), "%Y-%m-%d")
            .map(|x| (x + chrono::TimeDelta::days(days)).format("%Y-%m-%d").to_string())
            .unwrap_or_else(|_| d.to_string())
    };
    let today: String = cx.now.chars().take(10).collect();
    // Each entry is posted by the clerk on its own day (the journal's 登记时间), in the product's zone, a contract's
    // postings of one day minutes apart from a morning hour of its own; a day still to come is posted now. The
    // clerk and local time of the next posting on `date` (`seq`: the contract's index and its postings so far):
    let seq = std::cell::Cell::new((0i64, 0i64));
    let on = |date: &str| -> (store::Actor, String) {
        let (i, n) = seq.get();
        seq.set((i, n + 1));
        let minute = 9 * 60 + (i * 13) % 120 + n * 5;
        crate::engine::demo::seed_as(*cx.actor, &format!("{} {:02}:{:02}:00", date.get(..10).unwrap_or(date), minute / 60, minute % 60))
    };
    for (i, c) in contracts.iter().enumerate() {
        let status = int(c, "contractStatus");
        if status == 0 || status == 9 {
            continue;
        }
        let signed = text(c, "signDate").to_string();
        let amount = int(c, "contractAmount");
        seq.set((i as i64, 0));
        let post = |w: &mut WriteCtx, t: i64, amount: i64, date: &str, extra: Map<String, Value>| {
            let (a, now) = on(date);
            post_in(w, &Ctx { tenant: cx.tenant, actor: &a, res: cx.res, now: &now }, c, t, amount, date, extra)
        };
        post(w, SIGNED, amount, &signed, obj(json!({"remark": "合同签订"})))?;
        let mut total = amount;
        if status == 2 && i % 3 == 1 {
            let change = 860_000 + (i as i64 % 4) * 125_000;
            post(w, CHANGE, change, &plus(&signed, 40), obj(json!({"remark": "业主增项:卫生间防水及墙面翻新"})))?;
            total += change;
        }
        let nodes = [("定金", 10, 7), ("首期款", 30, 30), ("中期款", 40, 90), ("尾款", 20, 180)];
        let mut planned = 0;
        let mut parts = Vec::new();
        for (k, (node, pct, days)) in nodes.iter().enumerate() {
            let part = if k == nodes.len() - 1 { total - planned } else { total * pct / 100 };
            planned += part;
            let due = plus(&signed, *days);
            post(w, SCHEDULE, part, &signed, obj(json!({"node": node, "dueDate": due, "remark": format!("按合同约定{node}{pct}%")})))?;
            parts.push((part, due));
        }
        // What has come in: all of it when completed, the first two or three nodes while executing, the deposit once signed.
        let paid = match status {
            3 => 4,
            2 => 2 + (i % 2),
            _ => i % 2,
        };
        // Each node is invoiced when it falls due (the next one too, before its money comes), and paid some days
        // later: invoiced work runs ahead of cash, as it does.
        for (k, (part, due)) in parts.iter().enumerate().take(paid + 1) {
            if due.as_str() > today.as_str() {
                break;
            }
            post(w, INVOICE, *part, due, obj(json!({"invoiceNo": format!("{:08}", 31_000_000 + i * 10 + k), "remark": "增值税专用发票"})))?;
            if k >= paid {
                break;
            }
            let date = plus(due, 3 + (i as i64 + k as i64) % 5);
            let date = if date.as_str() > today.as_str() { today.clone() } else { date };
            if k == 1 && i % 4 == 2 {
                // Typed ¥10 short, reversed and posted again the same day.
                let wrong = post(w, RECEIPT, part - 1_000, &date, obj(json!({"remark": format!("{}银行转账", nodes[k].0)})))?;
                let (a, now) = on(&date);
                reverse_in(w, &Ctx { tenant: cx.tenant, actor: &a, res: cx.res, now: &now }, id(&wrong, "id"), Some(*part), "金额录入有误")?;
            } else {
                post(w, RECEIPT, *part, &date, obj(json!({"remark": format!("{}银行转账", nodes[k].0)})))?;
            }
        }
    }
    Ok(())
}
