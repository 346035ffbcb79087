//! Parameters of hand-written routes shared by every area: an id by one of its names, Blade paging
//! (`page`/`current`, `size`), a page answer, and a page of a declared resource under the caller's data scope.
use serde_json::{Map, Value, json};
use store::{Filter, Query};

use crate::auth::session::Session;
use crate::engine::crud;
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::AnyParams;
use crate::state::AppState;

pub fn id_param(p: &AnyParams, names: &[&str]) -> ApiResult<u64> {
    let raw = names.iter().find_map(|n| p.get(n).filter(|v| !v.trim().is_empty()));
    match raw {
        Some(v) => crud::parse_id(Some(v)),
        None => Err(ApiError::with(Kind::Missing, names[0])),
    }
}

pub fn page_of(p: &AnyParams) -> ApiResult<(u64, u64)> {
    let current = match p.get("page").or_else(|| p.get("current")).filter(|v| !v.is_empty()) {
        Some(v) => v.parse::<u64>().ok().filter(|c| *c >= 1 && *c <= 100_000).ok_or_else(|| ApiError::with(Kind::BadPaging, "page"))?,
        None => 1,
    };
    let size = match p.get("size").filter(|v| !v.is_empty()) {
        Some(v) => v.parse::<u64>().ok().filter(|s| (1..=crate::engine::listq::MAX_SIZE).contains(s)).ok_or_else(|| ApiError::with(Kind::BadPaging, "size"))?,
        None => 10,
    };
    Ok((current, size))
}

pub fn page_json(records: Vec<Map<String, Value>>, total: u64, current: u64, size: u64) -> Value {
    json!({"records": records, "total": total, "size": size, "current": current, "pages": total.div_ceil(size)})
}

/// Lists `name` records matching `filters` in the session's tenant and data scope, decorated for the wire.
pub async fn scoped_page(st: &AppState, s: &Session, name: &str, filters: Vec<Filter>, current: u64, size: u64) -> ApiResult<Value> {
    let def = st.res.get(name);
    let any = crate::auth::scope::guard(st, s, &def).await?.unwrap_or_default();
    let mut filters = filters;
    filters.extend(crate::auth::scope::store_limit(st, s, &def).await?);
    let q = Query { filters, any, offset: (current - 1) * size, limit: size, ..Query::default() };
    let page = crate::engine::listq::run(st, &def, &s.tenant, q).await?;
    let records = crud::wire_records(st, &def, &s.tenant, page.records).await?;
    Ok(page_json(records, page.total, current, size))
}
