//! 站内消息 (`/api/blade-desk/message/...`): the signed-in user's own messages (`engine::messages` writes them with
//! what they tell of). Anyone signed in reads and marks their own, never another's: every route filters by the
//! session's user, so another user's message id answers 404. The header's bell polls `unread-count` every 30 s
//! (a short poll: no connection held open per user on a modest server) and at once when the window regains focus.
use axum::extract::State;
use axum::response::Response;
use serde_json::{Value, json};
use store::{Filter, Op, Query, StoreError};

use crate::auth::session::Session;
use crate::engine::params::page_of;
use crate::engine::rec::{id, int, obj, text};
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, JsonObject, ok};
use crate::state::AppState;

const M: &str = "/api/blade-desk/message";

pub fn routes(api: Api) -> Api {
    api.get(format!("{M}/list"), Guard::Signed, list)
        .reads()
        .doc("站内消息 · the signed-in user's messages, newest first (current, size; unread=1 only unread ones): kind, title, content, link, unread, time", &[])
        .get(format!("{M}/unread-count"), Guard::Signed, unread_count)
        .reads()
        .doc("站内消息 · how many of the signed-in user's messages are unread, and the newest unread ones (up to 5) for the bell", &[])
        .post(format!("{M}/read"), Guard::Signed, read)
        .doc("站内消息 · marks the signed-in user's messages read: body {ids} (comma-separated or an array); another user's id is not found", &[])
        .post(format!("{M}/read-all"), Guard::Signed, read_all)
        .doc("站内消息 · marks every message of the signed-in user read", &[])
}

fn row(st: &AppState, m: &serde_json::Map<String, Value>, kinds: &std::collections::HashMap<String, String>) -> Value {
    // Times as the wire writes them (the record's createTime is kept in milliseconds).
    let w = crate::wire::record(&st.res.get("message"), st.settings.zone, m.clone());
    json!({"id": id(m, "id").to_string(), "kind": int(m, "kind"), "kindName": kinds.get(&int(m, "kind").to_string()).cloned().unwrap_or_default(),
        "title": text(m, "title"), "content": text(m, "content"), "link": text(m, "link"), "unread": int(m, "unread") == 1,
        "createTime": w.get("createTime").cloned().unwrap_or(Value::Null), "readTime": text(m, "readTime")})
}

fn mine(user: u64, unread_only: bool) -> Vec<Filter> {
    let mut f = vec![Filter::new("userId", Op::Equal, json!(user))];
    if unread_only {
        f.push(Filter::new("unread", Op::Equal, json!(1)));
    }
    f
}

async fn list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let (current, size) = page_of(&p)?;
    let unread = p.get("unread").is_some_and(|v| v == "1" || v == "true");
    let kinds = crate::engine::crud::dict_labels(&st, "message_kind").await?;
    let (def, t, user) = (st.res.get("message"), s.tenant.clone(), s.user_id);
    let page = st
        .read(move |r| {
            let q = Query { filters: mine(user, unread), sorts: vec![store::Sort { field: "id".into(), desc: true }], offset: (current - 1) * size, limit: size, ..Query::default() };
            r.list(&def, &t, &q)
        })
        .await?;
    let rows: Vec<Value> = page.records.iter().map(|m| row(&st, m, &kinds)).collect();
    Ok(ok(json!({"records": rows, "total": page.total, "size": size, "current": current, "pages": page.total.div_ceil(size)})))
}

async fn unread_count(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    let kinds = crate::engine::crud::dict_labels(&st, "message_kind").await?;
    let (def, t, user) = (st.res.get("message"), s.tenant.clone(), s.user_id);
    let page = st
        .read(move |r| {
            let q = Query { filters: mine(user, true), sorts: vec![store::Sort { field: "id".into(), desc: true }], limit: 5, ..Query::default() };
            r.list(&def, &t, &q)
        })
        .await?;
    Ok(ok(json!({"count": page.total, "latest": page.records.iter().map(|m| row(&st, m, &kinds)).collect::<Vec<_>>()})))
}

async fn read(State(st): State<AppState>, s: Session, JsonObject(b): JsonObject) -> ApiResult<Response> {
    let ids: Vec<u64> = match b.get("ids") {
        Some(Value::Array(a)) => a.iter().map(|v| crate::engine::crud::parse_id(Some(v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()).as_str()))).collect::<ApiResult<_>>()?,
        Some(Value::String(v)) => crate::engine::crud::parse_ids(Some(v))?,
        Some(Value::Number(n)) => vec![n.as_u64().ok_or_else(|| ApiError::with(Kind::BadId, "ids"))?],
        _ => return Err(ApiError::with(Kind::Missing, "ids")),
    };
    if ids.is_empty() || ids.len() > 1000 {
        return Err(ApiError::with(Kind::Missing, "ids"));
    }
    let (def, t, user, actor) = (st.res.get("message"), s.tenant.clone(), s.user_id, s.actor());
    let now = st.settings.zone.format(store::now_millis());
    let n = st
        .write(move |w| {
            let mut n = 0;
            for i in &ids {
                let m = w.get(&def, &t, *i)?.filter(|m| id(m, "userId") == user).ok_or(StoreError::NotFound)?;
                if int(&m, "unread") == 1 {
                    w.update(&def, &t, *i, obj(json!({"unread": 0, "readTime": now})), &actor)?;
                    n += 1;
                }
            }
            Ok(n)
        })
        .await?;
    Ok(ok(json!({"read": n})))
}

async fn read_all(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    let (def, t, user, actor) = (st.res.get("message"), s.tenant.clone(), s.user_id, s.actor());
    let now = st.settings.zone.format(store::now_millis());
    let n = st
        .write(move |w| {
            let q = Query { filters: mine(user, true), limit: 100_000, ..Query::default() };
            let unread = w.list(&def, &t, &q)?.records;
            for m in &unread {
                w.update(&def, &t, id(m, "id"), obj(json!({"unread": 0, "readTime": now})), &actor)?;
            }
            Ok(unread.len())
        })
        .await?;
    Ok(ok(json!({"read": n})))
}
