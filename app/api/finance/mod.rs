//! 财务: the contract ledger (`/api/blade-scm/contractledger`) and the receivables read from it
//! (`/blade-api/edu-sub-account/receivables`), with the postings in `ledger`; project cost against budget
//! (`/api/blade-biz/bim/projectcost`) in `cost`.
pub mod cost;
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
    statistic::routes(api)
}
