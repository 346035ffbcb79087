//! One definition of each money figure, used by every screen that shows it (the project page, 项目成本, the
//! console's 经营概况, 应收账款):
//!
//! - **合同总额** (a contract's value): its ledger's amount — the signed amount plus approved changes — while the
//!   contract is 已签订, 执行中 or 已完成; a 已终止 contract is worth what was received on it (settled at what came
//!   in); a 草稿 is not counted (it has no ledger: nothing is agreed yet). The project page says how many drafts
//!   and how much they would add.
//! - **已收款**: receipts net of reversals, on every ledger (cash is cash).
//! - **未收款**: 合同总额 − 已收款, per contract (so a terminated contract owes nothing more).
//! - **合同收入** on 项目成本 is the project's 合同总额.
//! - **产值** (statistics, the console): the work invoiced, net of reversals, in the period — the figure a decoration
//!   company reports its output by; the screens say "(开票)".
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, ReadCtx};

use crate::decl::Resources;
use crate::engine::rec::{id, int};

/// A contract's status as its ledger counts it.
pub const TERMINATED: i64 = 9;

/// What one ledger contributes: (合同总额, 已收款).
pub fn ledger_value(ledger: &Map<String, Value>, contract_status: i64) -> (i64, i64) {
    let received = int(ledger, "received");
    match contract_status {
        0 => (0, 0),
        TERMINATED => (received, received),
        _ => (int(ledger, "contractAmount"), received),
    }
}

/// The sums of a set of contracts.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// 合同总额 (fen).
    pub value: i64,
    /// Signed amounts and approved changes of the counted contracts (fen): `value` apart from terminated ones.
    pub signed: i64,
    pub changes: i64,
    /// 已收款 (fen).
    pub received: i64,
    /// Counted contracts, terminated ones, and drafts with their amounts.
    pub contracts: u64,
    pub terminated: u64,
    pub drafts: u64,
    pub draft_amount: i64,
}

impl Totals {
    pub fn outstanding(&self) -> i64 {
        self.value - self.received
    }

    /// Adds one ledger (its contract's status read by the caller).
    pub fn add(&mut self, ledger: &Map<String, Value>, contract_status: i64) {
        let (value, received) = ledger_value(ledger, contract_status);
        self.value += value;
        self.received += received;
        match contract_status {
            0 => {}
            TERMINATED => self.terminated += 1,
            _ => {
                self.contracts += 1;
                self.signed += int(ledger, "signedAmount");
                self.changes += int(ledger, "changeAmount");
            }
        }
    }

    pub fn json(&self) -> Value {
        let y = store::format_money;
        json!({
            "contractValue": y(self.value), "signedAmount": y(self.signed), "changeAmount": y(self.changes),
            "received": y(self.received), "outstanding": y(self.outstanding()),
            "contracts": self.contracts, "terminated": self.terminated, "drafts": self.drafts, "draftAmount": y(self.draft_amount),
        })
    }
}

/// The totals of the ledgers `keep` admits (by project id), each contract's status read from the contract.
pub fn totals(r: &ReadCtx, res: &Resources, t: &str, project: Option<u64>, keep: impl Fn(&Map<String, Value>) -> bool) -> store::Result<Totals> {
    let cdef = res.get("contract");
    let filters = project.map(|p| vec![Filter::new("projectId", Op::Equal, json!(p))]).unwrap_or_default();
    let mut out = Totals::default();
    for l in r.list(&res.get("contract_ledger"), t, &Query { filters: filters.clone(), limit: 1_000_000, ..Query::default() })?.records {
        if !keep(&l) {
            continue;
        }
        let status = r.get(&cdef, t, id(&l, "contractId"))?.map(|c| int(&c, "contractStatus")).unwrap_or(TERMINATED);
        out.add(&l, status);
    }
    if project.is_some() {
        for c in r.list(&cdef, t, &Query { filters, limit: 100_000, ..Query::default() })?.records {
            if int(&c, "contractStatus") == 0 {
                out.drafts += 1;
                out.draft_amount += int(&c, "contractAmount");
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ledger(amount: i64, signed: i64, change: i64, received: i64) -> Map<String, Value> {
        json!({"contractAmount": amount, "signedAmount": signed, "changeAmount": change, "received": received}).as_object().unwrap().clone()
    }

    #[test]
    fn a_contract_counts_by_its_status() {
        let mut t = Totals::default();
        t.add(&ledger(1_110_000, 1_000_000, 110_000, 300_000), 2);
        t.add(&ledger(500_000, 500_000, 0, 500_000), 3);
        // Terminated after 2 000 came in of 8 000: worth 2 000, owes nothing.
        t.add(&ledger(800_000, 800_000, 0, 200_000), TERMINATED);
        assert_eq!((t.value, t.received, t.outstanding()), (1_810_000, 1_000_000, 810_000));
        assert_eq!((t.contracts, t.terminated, t.signed, t.changes), (2, 1, 1_500_000, 110_000));
    }
}
