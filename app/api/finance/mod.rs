//! 财务: the contract ledger (`/api/blade-scm/contractledger`) and the receivables read from it
//! (`/blade-api/edu-sub-account/receivables`). The rules and the postings are in `ledger`.
pub mod ledger;

use crate::engine::Api;

pub fn routes(api: Api) -> Api {
    ledger::routes(api)
}
