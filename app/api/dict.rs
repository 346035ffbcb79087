//! `GET dict/dictionary?code=`: the entries of one dictionary, sorted, labels in the client's language.
use axum::extract::State;
use axum::response::Response;
use serde_json::{Value, json};

use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind, Lang};
use crate::http::{QueryPairs, ok};
use crate::state::AppState;

pub async fn dictionary(State(st): State<AppState>, _s: Session, QueryPairs(q): QueryPairs, lang: axum::Extension<Lang>) -> ApiResult<Response> {
    let code = q.iter().find(|(k, _)| k == "code").map(|(_, v)| v.trim().to_string()).unwrap_or_default();
    if code.is_empty() {
        return Err(ApiError::with(Kind::Missing, "code"));
    }
    let entries = entries(&st, &code).await?;
    let out: Vec<Value> = entries
        .into_iter()
        .map(|e| {
            let label = match lang.0 {
                Lang::En => e.get("dictValueEn").and_then(Value::as_str).filter(|s| !s.is_empty()),
                Lang::Zh => None,
            }
            .or_else(|| e.get("dictValue").and_then(Value::as_str))
            .unwrap_or("")
            .to_string();
            json!({
                "id": crate::wire::id_str(&e["id"]), "parentId": crate::wire::id_str(&e["parentId"]), "code": e.get("code"),
                "dictKey": e.get("dictKey"), "dictValue": label, "sort": e.get("sort"), "remark": e.get("remark"),
                "isSealed": e.get("isSealed"),
            })
        })
        .collect();
    Ok(ok(out))
}

/// The child entries of dictionary `code` (parent rows have `parentId = 0`), sorted by `sort`.
pub async fn entries(st: &AppState, code: &str) -> ApiResult<Vec<serde_json::Map<String, Value>>> {
    let (st2, code) = (st.clone(), code.to_string());
    st.read(move |r| {
        let def = st2.res.get("dict");
        let q = store::Query {
            filters: vec![store::Filter::new("code", store::Op::Equal, json!(code))],
            limit: 10_000,
            ..Default::default()
        };
        let mut rows: Vec<_> = r
            .list(&def, store::PLATFORM_TENANT, &q)?
            .records
            .into_iter()
            .filter(|e| e.get("parentId").and_then(Value::as_u64).unwrap_or(0) != 0)
            .collect();
        rows.sort_by_key(|e| e.get("sort").and_then(Value::as_i64).unwrap_or(0));
        Ok(rows)
    })
    .await
}
