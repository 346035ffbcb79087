//! 项目成本: budget per cost line (`project_cost`, declared at `/api/blade-biz/bim/projectcost`) against actual
//! cost from where it really arises — materials from the warehouse moves issued to the project (less returns,
//! valued as the move was), labour from the day work of its constructs (days × rate), everything else entered by
//! hand on the line — and the gross profit from the contract ledgers (signed amounts and changes). Materials and
//! labour are read from totals their sources keep in the same transaction as each move or day's work
//! (`wms::ledger::project_counter`, `scm::daywork_counter`); `zhizhuang verify` recomputes both from the rows.
use std::collections::BTreeMap;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, ReadCtx};

use crate::auth::session::Session;
use crate::engine::crud;
use crate::engine::params::{id_param, page_json, page_of};
use crate::engine::rec::{id, int, text};
use crate::engine::{Api, Guard};
use crate::error::ApiResult;
use crate::http::{AnyParams, ok};
use crate::state::AppState;

use super::yuan;

const C: &str = "/api/blade-biz/bim/projectcost";
pub const MATERIAL: i64 = 1;
pub const LABOUR: i64 = 2;
const TYPES: [(i64, &str, &str); 5] = [(1, "材料费", "Materials"), (2, "人工费", "Labour"), (3, "机械费", "Machinery"), (4, "分包费", "Subcontracts"), (5, "其他费用", "Other")];

pub fn routes(api: Api) -> Api {
    let cost = api.def("project_cost");
    api.get(format!("{C}/getInformationDetails"), Guard::read(&cost), information)
        .reads()
        .doc("项目成本 · a project's revenue (contract ledgers), budget, actual cost by source and gross profit (query: projectId)", &[])
        .get(format!("{C}/getGrossProfitRate"), Guard::read(&cost), gross_profit)
        .reads()
        .doc("项目成本 · revenue, actual cost, gross profit and its rate in percent (query: projectId)", &[])
        .get(format!("{C}/getCostComparison"), Guard::read(&cost), comparison)
        .reads()
        .doc("项目成本 · budget against actual per cost category (query: projectId)", &[])
        .get(format!("{C}/getMaterialDetailList"), Guard::read(&cost), materials)
        .reads()
        .doc("项目成本 · the warehouse moves to and from the project: goods, quantity, value, document (query: projectId, current, size)", &[])
}

/// A project's figures, in fen.
#[derive(Default)]
struct Figures {
    revenue: i64,
    received: i64,
    material: i64,
    labour: i64,
    budget: BTreeMap<i64, i64>,
    entered: BTreeMap<i64, i64>,
}

impl Figures {
    fn actual(&self, t: i64) -> i64 {
        let from_source = match t {
            MATERIAL => self.material,
            LABOUR => self.labour,
            _ => 0,
        };
        from_source + self.entered.get(&t).copied().unwrap_or(0)
    }
    fn total_actual(&self) -> i64 {
        TYPES.iter().map(|(t, ..)| self.actual(*t)).sum()
    }
    fn profit(&self) -> i64 {
        self.revenue - self.total_actual()
    }
    /// Gross profit as a percent of revenue with two decimals (None without revenue), rounded half away from zero.
    fn rate(&self) -> Option<String> {
        if self.revenue == 0 {
            return None;
        }
        let bp = (self.profit() as i128 * 10_000 * 2 + self.revenue as i128 * if self.profit() >= 0 { 1 } else { -1 }) / (2 * self.revenue as i128);
        let sign = if bp < 0 { "-" } else { "" };
        Some(format!("{sign}{}.{:02}", bp.abs() / 100, bp.abs() % 100))
    }
}

fn figures(r: &ReadCtx, res: &crate::decl::Resources, t: &str, project: u64) -> store::Result<Figures> {
    let by = |field: &str, v: u64| Query { filters: vec![Filter::new(field, Op::Equal, json!(v))], limit: 1_000_000, ..Query::default() };
    let mut f = Figures::default();
    // 合同收入 is the project's 合同总额 (figures.rs).
    let totals = super::figures::totals(r, res, t, Some(project), |_| true)?;
    (f.revenue, f.received) = (totals.value, totals.received);
    // Materials and labour from the totals kept beside their sources (the warehouse's moves to and from the
    // project, each construct's day work), so the page costs the same at ten sources or a million.
    f.material = crate::api::wms::ledger::project_material(r, t, project)?.0;
    let constructs = Query { filters: vec![Filter::new("projectId", Op::Equal, json!(project))], limit: 100_000, ..Query::default() };
    for k in r.list(&res.get("construct"), t, &constructs)?.records {
        f.labour += crate::api::scm::daywork_total(r, t, id(&k, "id"))?;
    }
    for c in r.list(&res.get("project_cost"), t, &by("projectId", project))?.records {
        *f.budget.entry(int(&c, "costType")).or_default() += int(&c, "budget");
        *f.entered.entry(int(&c, "costType")).or_default() += int(&c, "actual");
    }
    Ok(f)
}

/// The project of the request, visible to the session, and its figures.
async fn project_figures(st: &AppState, s: &Session, p: &AnyParams) -> ApiResult<(Map<String, Value>, Figures)> {
    let pid = id_param(p, &["projectId", "id"])?;
    let project = crud::get_scoped(st, s, &st.res.get("project"), pid).await?;
    let (res, t) = (st.res.clone(), s.tenant.clone());
    let f = st.read(move |r| figures(r, &res, &t, pid)).await?;
    Ok((project, f))
}

fn profit_json(f: &Figures) -> Value {
    json!({"revenue": yuan(f.revenue), "cost": yuan(f.total_actual()), "grossProfit": yuan(f.profit()), "grossProfitRate": f.rate()})
}

async fn information(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let (project, f) = project_figures(&st, &s, &p).await?;
    let wire = crud::decorated(&st, &s.tenant, &st.res.get("project"), project).await?;
    let budget: i64 = f.budget.values().sum();
    let mut out = profit_json(&f);
    // 其中材料 and 其中人工 are the categories' actual cost as the comparison table shows it (from the warehouse or
    // day work, plus what was entered by hand): the page said 其中材料 ¥0.00 beside a table of ¥103,718.81
    // entered by hand. Where each came from is answered too.
    let (material, labour) = (f.actual(MATERIAL), f.actual(LABOUR));
    for (k, v) in [("received", yuan(f.received)), ("budget", yuan(budget)), ("material", yuan(material)), ("labour", yuan(labour)),
        ("materialIssued", yuan(f.material)), ("materialEntered", yuan(material - f.material)), ("labourDayWork", yuan(f.labour)),
        ("other", yuan(f.total_actual() - material - labour)), ("budgetBalance", yuan(budget - f.total_actual()))] {
        out[k] = json!(v);
    }
    for k in ["id", "projectCode", "projectName", "projectCompanyName", "customerName", "managerName", "projectStatus", "projectStatusName", "startTime", "endTime"] {
        out[k] = wire.get(k).cloned().unwrap_or(Value::Null);
    }
    Ok(ok(out))
}

async fn gross_profit(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let (_, f) = project_figures(&st, &s, &p).await?;
    Ok(ok(profit_json(&f)))
}

async fn comparison(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let (_, f) = project_figures(&st, &s, &p).await?;
    let rows: Vec<Value> = TYPES
        .iter()
        .map(|(t, zh, en)| {
            let (b, a) = (f.budget.get(t).copied().unwrap_or(0), f.actual(*t));
            let used = super::percent_of(a, b);
            json!({"costType": t, "costTypeName": zh, "costTypeNameEn": en, "budget": yuan(b), "actual": yuan(a), "difference": yuan(b - a), "usedPercent": used,
                "source": match *t { MATERIAL => "warehouse", LABOUR => "dayWork", _ => "entered" }})
        })
        .collect();
    Ok(ok(json!(rows)))
}

async fn materials(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let pid = id_param(&p, &["projectId", "id"])?;
    crud::get_scoped(&st, &s, &st.res.get("project"), pid).await?;
    let (current, size) = page_of(&p)?;
    let (res, t) = (st.res.clone(), s.tenant.clone());
    let (page, goods) = st
        .read(move |r| {
            // Newest first, the total from the project's maintained count: a page reads only its own moves.
            let mdef = res.get("stock_move");
            let total = crate::api::wms::ledger::project_material(r, &t, pid)?.1;
            let records = r.newest_by(&mdef, &t, "projectId", &json!(pid), (current - 1) * size, size)?.unwrap_or_default();
            let page = store::Page { records, total, ..Default::default() };
            let gdef = res.get("goods");
            let mut goods = BTreeMap::new();
            for m in &page.records {
                let g = id(m, "goodsId");
                if let std::collections::btree_map::Entry::Vacant(e) = goods.entry(g) {
                    e.insert(r.get(&gdef, &t, g)?.unwrap_or_default());
                }
            }
            Ok((page, goods))
        })
        .await?;
    let here = format!("project:{pid}");
    let mdef = st.res.get("stock_move");
    let wire = crud::wire_records(&st, &mdef, &s.tenant, page.records.clone()).await?;
    let rows: Vec<Map<String, Value>> = wire
        .into_iter()
        .zip(page.records.iter())
        .map(|(mut w, m)| {
            let g = goods.get(&id(m, "goodsId")).cloned().unwrap_or_default();
            for k in ["goodsCode", "goodsName", "spec", "unit"] {
                w.insert(k.into(), json!(text(&g, k)));
            }
            // Issued to the project counts as cost, returned from it as a credit.
            w.insert("direction".into(), json!(if text(m, "toLoc") == here { "issue" } else { "return" }));
            w
        })
        .collect();
    Ok(ok(page_json(rows, page.total, current, size)))
}

/// Demo budgets for the projects under way and completed: a line per category, a few entered actuals.
pub fn demo(w: &mut store::WriteCtx, cx: &crate::engine::dialect::Ctx) -> store::Result<()> {
    let def = cx.def("project_cost");
    let ledgers = w.all(&cx.def("contract_ledger"), cx.tenant)?;
    for p in w.all(&cx.def("project"), cx.tenant)?.iter().filter(|p| matches!(int(p, "projectStatus"), 2 | 3)) {
        let pid = id(p, "id");
        let revenue: i64 = ledgers.iter().filter(|l| id(l, "projectId") == pid).map(|l| int(l, "contractAmount")).sum();
        if revenue == 0 {
            continue;
        }
        // Budgeted cost ~78% of revenue: materials 40, labour 25, machinery 3, subcontracts 7, other 3. Entered
        // actuals (purchases outside the depot, crew settlements) as far as the project has gone; the depot's
        // issues and the day work add to them.
        let done = int(p, "projectStatus") == 3;
        let lines: [(i64, &str, i64, i64); 5] = [(1, "主材及辅材", 40, if done { 88 } else { 52 }), (2, "班组人工及点工", 25, if done { 97 } else { 45 }),
            (3, "机械租赁", 3, if done { 104 } else { 55 }), (4, "专业分包(防水、消防)", 7, if done { 100 } else { 80 }), (5, "现场管理及杂费", 3, if done { 112 } else { 60 })];
        for (t, name, pct, entered_pct) in lines {
            let budget = revenue * pct / 100;
            let actual = budget * entered_pct / 100;
            let doc = json!({"projectId": pid, "costType": t, "costName": name, "budget": budget, "actual": actual});
            w.insert(&def, cx.tenant, doc.as_object().cloned().unwrap_or_default(), cx.actor)?;
        }
    }
    Ok(())
}

/// What `zhizhuang verify` found of the labour totals: every construct's day-work total recomputed from its rows.
/// (The material totals are checked with the stock ledger, from the moves.)
#[derive(Default)]
pub struct Audit {
    pub constructs: u64,
    pub problems: Vec<String>,
}

pub fn audit(r: &ReadCtx, res: &crate::decl::Resources) -> store::Result<Audit> {
    let (kdef, ddef) = (res.get("construct"), res.get("day_worker"));
    let mut out = Audit::default();
    let mut tenants = r.tenants_of(&kdef)?;
    for t in r.tenants_of(&ddef)? {
        if !tenants.contains(&t) {
            tenants.push(t);
        }
    }
    for t in tenants {
        let mut sums: BTreeMap<u64, i64> = BTreeMap::new();
        r.for_each(&ddef, &t, |d| {
            *sums.entry(id(&d, "constructId")).or_default() += int(&d, "amount");
            Ok(())
        })?;
        r.for_each(&kdef, &t, |k| {
            out.constructs += 1;
            sums.entry(id(&k, "id")).or_default();
            Ok(())
        })?;
        for (k, want) in sums {
            let have = crate::api::scm::daywork_total(r, &t, k)?;
            if have != want {
                out.problems.push(format!("tenant {t}: construct {k}: day-work total {have} fen but its rows sum to {want}"));
            }
        }
    }
    Ok(out)
}

/// Sets the material and labour totals of every tenant from their rows: once, for a data file written before the
/// totals were kept (`seed::upgrade`).
pub fn rebuild_totals(w: &mut store::WriteCtx, res: &crate::decl::Resources) -> store::Result<()> {
    let tenants: Vec<String> = w.all(&res.get("tenant"), store::PLATFORM_TENANT)?.iter().map(|t| text(t, "tenantId").to_string()).collect();
    for t in tenants {
        crate::api::wms::ledger::rebuild_project_totals(w, res, &t)?;
        crate::api::scm::rebuild_daywork_totals(w, res, &t)?;
    }
    Ok(())
}
