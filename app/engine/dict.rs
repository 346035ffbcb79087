//! Dictionary entries as every area reads them (labels of coded fields, the options of a form's select, Excel
//! columns): the children of a dictionary code, platform-wide (`dict`) or a tenant's (`dictbiz`), in their order.
use serde_json::{Map, Value, json};

use crate::error::ApiResult;
use crate::state::AppState;

/// The child entries of platform dictionary `code`, sorted by `sort`.
pub async fn entries(st: &AppState, code: &str) -> ApiResult<Vec<Map<String, Value>>> {
    entries_in(st, "dict", store::PLATFORM_TENANT, code).await
}

/// The child entries of dictionary `code` of resource `dict` or `dictbiz` in `tenant`, sorted by `sort`.
pub async fn entries_in(st: &AppState, resource: &str, tenant: &str, code: &str) -> ApiResult<Vec<Map<String, Value>>> {
    let (def, code, t) = (st.res.get(resource), code.to_string(), tenant.to_string());
    st.read(move |r| {
        let q = store::Query { filters: vec![store::Filter::new("code", store::Op::Equal, json!(code))], limit: 10_000, ..Default::default() };
        let mut rows: Vec<_> =
            r.list(&def, &t, &q)?.records.into_iter().filter(|e| e.get("parentId").and_then(Value::as_u64).unwrap_or(0) != 0).collect();
        rows.sort_by_key(|e| e.get("sort").and_then(Value::as_i64).unwrap_or(0));
        Ok(rows)
    })
    .await
}

