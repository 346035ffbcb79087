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
        .doc("站内消息 · marks the signed-in user's messages read: body {ids} (comma-separated or an array; another user's id is not found), or {link}: every unread one opening that page (a notice opened from the desk or its list)", &[])
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
    if let Some(link) = b.get("link").filter(|l| !l.is_null()) {
        let link = link.as_str().map(str::trim).filter(|l| l.starts_with('/') && l.len() <= 255).ok_or_else(|| ApiError::with(Kind::BadFormat, "link"))?.to_string();
        return read_link(&st, &s, link).await;
    }
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

/// Marks read the user's unread messages that open `link`: what they tell of was opened another way (a notice
/// from the desk's 系统消息 or the notice list left its message unread in the bell). Nothing unread there, nothing
/// written.
async fn read_link(st: &AppState, s: &Session, link: String) -> ApiResult<Response> {
    let (def, t, user) = (st.res.get("message"), s.tenant.clone(), s.user_id);
    let (d, t2) = (def.clone(), t.clone());
    let unread: Vec<u64> = st
        .read(move |r| {
            let q = Query { filters: mine(user, true), limit: 100_000, ..Query::default() };
            Ok(r.list(&d, &t2, &q)?.records.iter().filter(|m| text(m, "link") == link).map(|m| id(m, "id")).collect::<Vec<_>>())
        })
        .await?;
    if unread.is_empty() {
        return Ok(ok(json!({"read": 0})));
    }
    let (actor, now) = (s.actor(), st.settings.zone.format(store::now_millis()));
    let n = st
        .write(move |w| {
            let mut n = 0;
            for &i in &unread {
                if w.get(&def, &t, i)?.is_some_and(|m| int(&m, "unread") == 1) {
                    w.update(&def, &t, i, obj(json!({"unread": 0, "readTime": now})), &actor)?;
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

/// Days a read message is kept; any message goes after `KEEP_DAYS`. The bell and 站内消息 show the newest, and a
/// message is a copy of what it tells of (the task, approval, work order or notice keeps its own record), so a
/// company's years of messages would only grow the file.
pub const KEEP_READ_DAYS: i64 = 90;
pub const KEEP_DAYS: i64 = 365;

/// Removes, in every tenant, read messages older than `KEEP_READ_DAYS` and any older than `KEEP_DAYS` before
/// `now_ms`, in bounded batches (the writer is never held long). Returns how many went.
pub async fn prune(st: &AppState, now_ms: i64) -> ApiResult<u64> {
    prune_from(st, now_ms, &mut std::collections::HashMap::new()).await
}

/// `prune`, each tenant's walk for read messages starting where an earlier pass left it (`walked`: the ids up to
/// there were looked at) and leaving it at this pass's floor. An hourly pass then reads the hour's new messages
/// instead of every unread one of the last nine months again (each walk holds the writer while it decodes); a
/// message read after a pass looked at it goes with the next full pass (`spawn` makes one a day).
pub async fn prune_from(st: &AppState, now_ms: i64, walked: &mut std::collections::HashMap<String, u64>) -> ApiResult<u64> {
    const BATCH: usize = 2_000;
    let def = st.res.get("message");
    let (all_floor, read_floor) = (store::id_floor(now_ms - KEEP_DAYS * 86_400_000), store::id_floor(now_ms - KEEP_READ_DAYS * 86_400_000));
    let d = def.clone();
    let tenants = st.read(move |r| r.tenants_of(&d)).await?;
    let mut gone = 0;
    for t in tenants {
        loop {
            let (d, t2) = (def.clone(), t.clone());
            let n = st.write(move |w| w.purge_before(&d, &t2, all_floor, BATCH)).await?;
            gone += n;
            if (n as usize) < BATCH {
                break;
            }
        }
        // Read ones below their floor: walked in id order from where the last pass stopped, up to the floor.
        let from = walked.get(&t).copied().unwrap_or(0);
        let mut after = from;
        loop {
            let (d, t2) = (def.clone(), t.clone());
            let (n, next) = st
                .write(move |w| w.purge_where(&d, &t2, after, BATCH, BATCH * 5, &|m| int(m, "unread") != 1 && id(m, "id") < read_floor))
                .await?;
            gone += n;
            match next {
                Some(last) if last < read_floor => after = last,
                _ => break,
            }
        }
        // Every id below the floor has been looked at (a failed write returned above, leaving the mark as it was).
        walked.insert(t, from.max(read_floor.saturating_sub(1)));
    }
    Ok(gone)
}

/// Hourly (the first a minute after start): `prune_from`, a full pass the first time and every 24th. The primary's
/// task; a standby receives the removals.
pub fn spawn(st: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + std::time::Duration::from_secs(60), std::time::Duration::from_secs(3600));
        let mut walked = std::collections::HashMap::new();
        for pass in 0u64.. {
            tick.tick().await;
            if pass % 24 == 0 {
                walked.clear();
            }
            match prune_from(&st, store::now_millis(), &mut walked).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(target: "zz::desk", pruned = n, read_days = KEEP_READ_DAYS, days = KEEP_DAYS, "old messages removed"),
                Err(e) => tracing::warn!(target: "zz::desk", error = ?e, "message pruning failed"),
            }
        }
    })
}
