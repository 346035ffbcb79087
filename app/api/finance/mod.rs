//! 财务: the contract ledger (`/api/blade-scm/contractledger`) and the receivables read from it
//! (`/blade-api/edu-sub-account/receivables`), with the postings in `ledger`; project cost against budget
//! (`/api/blade-biz/bim/projectcost`) in `cost`; the payment channels and POS terminals (`extconfig`, `possign`)
//! in `channels`.
pub mod channels;
pub mod cost;
pub mod figures;
pub mod ledger;
pub mod statistic;

use crate::engine::Api;
use crate::state::AppState;

/// Fen as the wire's exact yuan text (`"1234.50"`).
fn yuan(fen: i64) -> String {
    store::format_money(fen)
}

/// `part` as a percent of `whole` with one decimal, rounded half up, in integer arithmetic (None without a whole).
fn percent_of(part: i64, whole: i64) -> Option<String> {
    (whole > 0).then(|| {
        let pm = (part as i128 * 2000 + whole as i128) / (2 * whole as i128);
        format!("{}.{}", pm / 10, pm % 10)
    })
}

/// Today in the product's zone, `yyyy-MM-dd`.
fn today(st: &AppState) -> String {
    st.settings.zone.format(store::now_millis()).chars().take(10).collect()
}

pub fn routes(api: Api) -> Api {
    let api = ledger::routes(api);
    let api = cost::routes(api);
    let api = figures_routes(api);
    statistic::routes(api)
}

/// 财务 in every area list: its routes; a signed contract opens its ledger (`contract` is the scm area's); what
/// `verify` checks (ledgers against their entries, day-work totals); the demo ledgers, costs and targets.
/// GET /api/blade-scm/project/figures?projectId=: the project page's 合同总额 by the one definition
/// (`figures.rs`), for whoever may see the project.
fn figures_routes(api: Api) -> Api {
    let project = api.def("project");
    api.get("/api/blade-scm/project/figures", crate::engine::Guard::read(&project), project_figures)
        .reads()
        .doc("项目 · the project's contract figures by the one definition (figures.rs): contractValue (signed, executing and completed contracts with approved changes; terminated at what was received; drafts not counted), signedAmount, changeAmount, received, outstanding, contracts, terminated, drafts, draftAmount (query: projectId)", &[])
}

async fn project_figures(axum::extract::State(st): axum::extract::State<AppState>, s: crate::auth::session::Session, p: crate::http::AnyParams) -> crate::error::ApiResult<axum::response::Response> {
    let pid = crate::engine::params::id_param(&p, &["projectId", "id"])?;
    crate::engine::crud::get_scoped(&st, &s, &st.res.get("project"), pid).await?;
    let (res, t) = (st.res.clone(), s.tenant.clone());
    let totals = st.read(move |r| figures::totals(r, &res, &t, Some(pid), |_| true)).await?;
    Ok(crate::http::ok(totals.json()))
}

pub const AREA: crate::api::Area = crate::api::Area {
    rules: channels::rules,
    after: &[("contract", ledger::contract_saved)],
    upgrades: &[("upgrade:cost_totals", cost::rebuild_totals), ("upgrade:contract_ledger_total", ledger::ledger_totals)],
    demo: Some(demo),
    verify: Some(verify),
    ..crate::api::Area::routes_only("finance", routes)
};

/// The demo ledgers, project costs and monthly targets, posted by the tenant's administrator.
fn demo(w: &mut store::WriteCtx, res: &crate::decl::Resources, tenant: &str) -> store::Result<()> {
    let clerk = crate::engine::demo::admin_of(w, res, tenant)?;
    let now = crate::engine::demo::now_text();
    let cx = crate::engine::dialect::Ctx { tenant, actor: &clerk, res, now: &now };
    ledger::demo(w, &cx)?;
    cost::demo(w, &cx)?;
    channels::demo(w, &cx)?;
    statistic::demo(w, &cx)
}

fn verify(r: &store::ReadCtx, res: &crate::decl::Resources) -> store::Result<(String, Vec<String>)> {
    let l = ledger::audit(r, res)?;
    let c = cost::audit(r, res)?;
    let line = format!(
        "contract ledgers: {} ledgers, {} entries: {}; project cost: {} constructs: {}",
        l.ledgers,
        l.entries,
        if l.problems.is_empty() { "balances equal the entries" } else { "MISMATCH" },
        c.constructs,
        if c.problems.is_empty() { "day-work totals equal their rows" } else { "MISMATCH" }
    );
    Ok((line, l.problems.into_iter().chain(c.problems).collect()))
}
