//! 业务管理 (`/api/blade-scm/...`): projects, contracts, constructs and their crews, workers and trades,
//! customers, companies, documents. The records are declared (`assets/resources/scm/*.json`, route dialect
//! `blade-scm`) and served by `engine::dialect`; this area holds what is real behaviour, one file per resource:
//! `project` (status, binding contracts), `contract` (status, change record), `construct` (status with its
//! preconditions, manager, 施工单's first screen), `crew` (workers, crews, day work), `building` (rooms and their
//! Excel import), `site` (measures, rectifications, attendance), `progress`, `catalog` (products, categories),
//! `replay`, `demo`. Every rule runs inside the write it guards.
//!
//! Path segments the spec leaves unnamed mean (also in `openapi.json`):
//! - `project/contract/delete/{projectId}/{contractId}/{mode}`: mode 0 unbinds the contract from the project,
//!   mode 1 unbinds and removes it (a draft only);
//! - `project/unassigned/construct/contract/list/{projectId}/{constructId}`: the project's contracts that no
//!   construct uses yet, plus the one construct `{constructId}` uses (0 for a new construct);
//! - `contract/delete/{id}/{projectId}` (0: bound to no project), `construct/delete/{id}/{projectId}/1`,
//!   `worker/delete/{id}/{workerJobId}/1`, `worker/batch/delete/{ids}/{workerJobId}`,
//!   `doc/delete/{id}/{projectId}/1`: the record and the parent it must belong to;
//! - `construct/worker/bind|unbind/{constructId}/{workerId}`.
//!
//! A record of another tenant, outside the caller's data scope, or not of the named parent is a 404.
pub mod building;
mod catalog;
mod construct;
mod contract;
mod crew;
mod demo;
mod progress;
mod project;
mod replay;
pub use replay::demo as replay_demo;
mod site;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value};
use store::StoreError;

use crate::auth::session::Session;
use crate::engine::dialect::{Rules, after};
pub(super) use crate::engine::params::{id_param, page_of, scoped_page};
use crate::engine::{Api, Guard};
use crate::error::{ApiResult, rule};
use crate::http::ok;
use crate::state::AppState;

/// The rules of the declared resources of this area.
pub fn rules(name: &str) -> Option<Rules> {
    Some(match name {
        "project" => Rules { save: Some(project::project_save), remove: None, saved: None, after: &[] },
        // A signed contract's ledger is finance's follow-up (`finance::AREA.after`).
        "contract" => Rules { save: Some(contract::contract_save), remove: Some(contract::contract_remove), saved: None, after: &[] },
        "construct" => Rules { save: Some(construct::construct_save), remove: Some(construct::construct_remove), saved: None, after: &[] },
        "building" => Rules { save: Some(building::room_save), remove: None, saved: None, after: &[] },
        "measure" => Rules { save: Some(site::measure_save), remove: Some(site::measure_remove), saved: None, after: &[] },
        "building_rectification" => Rules { save: Some(site::rectification_save), remove: Some(site::rectification_remove), saved: None, after: &[] },
        "product_category" => Rules { save: Some(catalog::category_save), remove: Some(catalog::category_remove), saved: None, after: &[] },
        "product" => Rules { save: Some(catalog::product_save), remove: None, saved: None, after: &[] },
        "worker" => Rules { save: Some(crew::worker_save), remove: None, saved: None, after: &[] },
        other => return replay::rules(other),
    })
}

pub fn routes(api: Api) -> Api {
    let customer = api.def("customer");
    let api = project::routes(api);
    let api = contract::routes(api);
    let api = construct::routes(api);
    let api = crew::routes(api)
        .get("/api/blade-scm/customer/type", Guard::read(&customer), customer_types)
        .doc("客户管理 · customer types (dictionary customer_type)", &[]);
    let api = building::routes(api);
    let api = progress::routes(api);
    let api = catalog::routes(api);
    let api = replay::routes(api);
    site::routes(api)
}

// ---------------------------------------------------------------------------------------------------------
// Rules

use crate::engine::dialect::status_name;

pub(super) fn transition_refused(table: crate::engine::dialect::Statuses, what: (&str, &str), from: i64, to: i64) -> StoreError {
    let (a, b) = (status_name(table, from), status_name(table, to));
    rule(format!("{}状态不能由「{}」变更为「{}」", what.0, a.0, b.0), format!("The {} cannot go from {} to {}", what.1, a.1, b.1))
}

pub(super) fn in_table(table: &[(i64, &str, &str)], v: i64, field: &str) -> store::Result<()> {
    if table.iter().any(|(k, ..)| *k == v) { Ok(()) } else { Err(StoreError::invalid(field, store::FieldProblem::OutOfRange { min: None, max: None })) }
}

pub(super) fn dates_in_order(old: Option<&Map<String, Value>>, doc: &Map<String, Value>, from: &str, to: &str) -> store::Result<()> {
    let (a, b) = (after(old, doc, from).and_then(Value::as_str), after(old, doc, to).and_then(Value::as_str));
    if let (Some(a), Some(b)) = (a, b)
        && b[..10.min(b.len())] < a[..10.min(a.len())] {
        return Err(rule("结束时间不能早于开始时间", "The end cannot be before the start"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------
// Hand-written routes

/// GET customer/type
async fn customer_types(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    s.require("customer")?;
    Ok(ok(crate::engine::dict::entries(&st, "customer_type").await?))
}

/// 业务管理: projects, contracts, constructs and crews, the site (buildings, measures, progress, attendance,
/// rectifications), the catalogue, companies, customers, post-mortems; an interrupted building import is finished
/// before serving.
pub const AREA: crate::api::Area = crate::api::Area {
    rules,
    demo: Some(demo::demo),
    start: Some(building::recover_before_serving),
    ..crate::api::Area::routes_only("scm", routes)
};

pub use construct::construct_page;
pub use crew::{daywork_counter, daywork_total, insert_day_work, rebuild_daywork_totals};
use construct::under_construction;
use crew::crew_binding;
