//! 站内消息: what tells a person something happened to them — a task assigned or open to claim, an approval they
//! applied for decided, a work order given to them or answered, a notice published. A message is written in the
//! same transaction as what it tells of (a task and its message commit together or not at all), one record per
//! recipient of the resource `message` (`userId`, `kind` of dictionary `message_kind`, `title`, `content`,
//! `link` — a path of the UI —, `unread`), read by its recipient only (`api/desk/message.rs`).
use serde_json::{Value, json};
use store::{Filter, Op, Query, WriteCtx};

use crate::engine::dialect::Ctx;
use crate::engine::rec::obj;

/// Kinds (dictionary `message_kind`).
pub const TASK: i64 = 1;
pub const CLAIM: i64 = 2;
pub const APPROVAL: i64 = 3;
pub const WORK_ORDER: i64 = 4;
pub const NOTICE: i64 = 5;

/// At most this many recipients for one event (a notice to a large company): the rest are not written.
const MAX_RECIPIENTS: usize = 5_000;

/// Writes one message to each recipient (0 and the actor left out: nobody is told of what they did themselves;
/// each recipient once).
pub fn send(w: &mut WriteCtx, cx: &Ctx, to: impl IntoIterator<Item = u64>, kind: i64, title: &str, content: &str, link: &str) -> store::Result<usize> {
    send_about(w, cx, to, kind, title, content, link, None)
}

/// `send` of a message about an approval task — `TASK` to its assignee, `CLAIM` to its candidates — with the task
/// kept and indexed (`taskId`): `settle_task` finds it by the task.
#[allow(clippy::too_many_arguments)]
pub fn send_task(w: &mut WriteCtx, cx: &Ctx, to: impl IntoIterator<Item = u64>, kind: i64, title: &str, content: &str, link: &str, task: u64) -> store::Result<usize> {
    send_about(w, cx, to, kind, title, content, link, Some(task))
}

#[allow(clippy::too_many_arguments)]
fn send_about(w: &mut WriteCtx, cx: &Ctx, to: impl IntoIterator<Item = u64>, kind: i64, title: &str, content: &str, link: &str, task: Option<u64>) -> store::Result<usize> {
    let def = cx.def("message");
    let mut seen = std::collections::HashSet::new();
    let clip = |s: &str, n: usize| s.chars().take(n).collect::<String>();
    let mut n = 0;
    for user in to {
        if user == 0 || user == cx.actor.user_id || !seen.insert(user) || n >= MAX_RECIPIENTS {
            continue;
        }
        let mut doc = obj(json!({"userId": user, "kind": kind, "title": clip(title, 255), "content": clip(content, 500), "link": clip(link, 255), "unread": 1}));
        if let Some(t) = task {
            doc.insert("taskId".into(), json!(t));
        }
        w.insert(&def, cx.tenant, doc, cx.actor)?;
        n += 1;
    }
    Ok(n)
}

/// Marks read what told people a task was theirs to do or to claim (`TASK`, `CLAIM`), once it no longer is: done,
/// claimed, cancelled or handed to someone else — `user`'s messages, or everyone's (None). The bell then no longer
/// lists as to-do what is not. Written in the transaction that changes the task; found by the task (an indexed
/// `taskId`: a few messages, never the user's or the tenant's unread ones walked). Messages written before
/// `taskId` was kept are not found (they stay until read).
pub fn settle_task(w: &mut WriteCtx, cx: &Ctx, user: Option<u64>, task: u64) -> store::Result<usize> {
    let def = cx.def("message");
    let q = Query { filters: vec![Filter::new("taskId", Op::Equal, json!(task))], limit: 5_000, ..Query::default() };
    let mut n = 0;
    for m in w.list(&def, cx.tenant, &q)?.records {
        let num = |k: &str| m.get(k).and_then(Value::as_u64);
        let kind = m.get("kind").and_then(Value::as_i64);
        if user.is_none_or(|u| num("userId") == Some(u)) && num("unread") == Some(1) && (kind == Some(TASK) || kind == Some(CLAIM))
            && let Some(mid) = num("id") {
            w.update(&def, cx.tenant, mid, obj(json!({"unread": 0, "readTime": cx.now})), cx.actor)?;
            n += 1;
        }
    }
    Ok(n)
}

/// Everyone of the tenant a notice is for: enabled accounts that can sign in (technical workers cannot).
pub fn staff(w: &WriteCtx, cx: &Ctx) -> store::Result<Vec<u64>> {
    let roles = w.all(&cx.def("role"), cx.tenant)?;
    let workers: std::collections::HashSet<u64> =
        roles.iter().filter(|r| r.get("isWorker").and_then(Value::as_i64) == Some(1)).filter_map(|r| r.get("id").and_then(Value::as_u64)).collect();
    Ok(w.all(&cx.def("user"), cx.tenant)?
        .iter()
        .filter(|u| u.get("status").and_then(Value::as_i64).unwrap_or(1) == 1)
        .filter(|u| !crate::auth::session::id_list(u.get("roleId")).iter().any(|r| workers.contains(r)))
        .filter_map(|u| u.get("id").and_then(Value::as_u64))
        .collect())
}

/// The demo's messages written again, oldest first. Each area seeds its own past in the order of `AREAS`
/// (notices of last month, approvals since February, leaves of this week), and lists put the newest id first,
/// so the bell showed February's 审批结果 above this week's to-dos. Done once, after every area's demo; nothing
/// refers to a message by its id (a task's messages are found by `taskId`).
pub fn demo_in_time_order(w: &mut WriteCtx, res: &crate::decl::Resources, tenant: &str) -> store::Result<()> {
    let def = res.get("message");
    let mut all = w.all(&def, tenant)?;
    let time = |m: &serde_json::Map<String, Value>| m.get("createTime").and_then(Value::as_i64).unwrap_or(0);
    let id = |m: &serde_json::Map<String, Value>| m.get("id").and_then(Value::as_u64).unwrap_or(0);
    if all.windows(2).all(|p| (time(&p[0]), id(&p[0])) <= (time(&p[1]), id(&p[1]))) {
        return Ok(());
    }
    all.sort_by_key(|m| (time(m), id(m)));
    let mut after = 0;
    loop {
        let (_, next) = w.purge_where(&def, tenant, after, 10_000, 10_000, &|_| true)?;
        match next {
            Some(n) => after = n,
            None => break,
        }
    }
    for mut m in all {
        let actor = store::Actor {
            user_id: m.get("createUser").and_then(Value::as_u64).unwrap_or(0),
            dept_id: m.get("createDept").and_then(Value::as_u64).unwrap_or(0),
            at: Some(time(&m)),
        };
        for k in store::AUDIT_FIELDS {
            if *k != "status" {
                m.remove(*k);
            }
        }
        w.insert(&def, tenant, m, &actor)?;
    }
    Ok(())
}
