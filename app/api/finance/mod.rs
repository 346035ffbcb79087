//! 财务: the contract ledger (`/api/blade-scm/contractledger`) and the receivables read from it
//! (`/blade-api/edu-sub-account/receivables`), with the postings in `ledger`; project cost against budget
//! (`/api/blade-biz/bim/projectcost`) in `cost`.
pub mod cost;
pub mod ledger;
pub mod statistic;

use crate::engine::Api;

pub fn routes(api: Api) -> Api {
    let api = ledger::routes(api);
    let api = cost::routes(api);
    statistic::routes(api)
}
