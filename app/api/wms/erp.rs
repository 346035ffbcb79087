//! ERP callback records (`erp/erpcallback`): an outbox. A done inbound order or a shipped outbound order leaves
//! one record, in the same transaction, holding the payload an ERP needs (order, lines, quantities); a
//! background task delivers pending records through a `Provider` with back-off (30 s, doubling, at most an hour
//! apart; given up after 8 attempts, shown as such), and `POST erp/erpcallback/sync {ids}` retries at once.
//!
//! The built-in provider delivers to the server's log (target `zz::erp`) and says so on the record: no request
//! ever goes to an address a user typed (security rule 11). An install that connects a real ERP adds a provider
//! configured by the operator, not by a screen.
use std::time::Duration;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, WriteCtx};

use super::BASE;
use super::ledger::{id, qty, text};
use crate::auth::session::Session;
use crate::engine::dialect::Ctx;
use crate::engine::{Api, Guard, crud};
use crate::error::ApiResult;
use crate::http::{AnyParams, ok};
use crate::state::AppState;

/// Attempts before a record is given up (state 3).
pub const MAX_ATTEMPTS: i64 = 8;

/// Where callback records go.
pub trait Provider: Send + Sync {
    fn name(&self) -> &'static str;
    /// Delivers one record's payload: Ok(note) or Err(reason).
    fn deliver(&self, tenant: &str, rec: &Map<String, Value>) -> Result<String, String>;
}

/// The built-in provider: the payload is written to the server's log.
pub struct LogProvider;

impl Provider for LogProvider {
    fn name(&self) -> &'static str {
        "log"
    }
    fn deliver(&self, tenant: &str, rec: &Map<String, Value>) -> Result<String, String> {
        let payload = rec.get("payload").map(Value::to_string).unwrap_or_default();
        let doc = text(rec, "docNo");
        // One line per round at info (the delivery task's); the payloads only when asked (ZZ_LOG=zz::erp=debug):
        // the demo's first start delivered 56 of them, 100 KB on the console.
        tracing::debug!(target: "zz::erp", tenant, doc, payload, "erp callback");
        Ok("已写入服务器日志(内置接收方,未连接外部ERP)".into())
    }
}

/// Seconds before attempt `n + 1` after `n` failed ones: 30 s doubling, at most an hour.
pub fn backoff(attempts: i64) -> i64 {
    (30i64 << attempts.clamp(0, 10)).min(3600)
}

pub fn routes(api: Api) -> Api {
    api.post(format!("{BASE}/erp/erpcallback/sync"), Guard::any(&["erpcallback_sync", "erpcallback_edit"]), sync)
        .doc("ERP回传记录 · deliver now (body or query: ids; without ids every pending record of the tenant); answers how many were delivered and failed", &[])
}

/// The record a done or shipped order leaves, in the order's own transaction.
pub fn enqueue(w: &mut WriteCtx, cx: &Ctx, kind: &str, order: &Map<String, Value>, line_res: &str) -> store::Result<()> {
    let q = Query { filters: vec![Filter::new("orderId", Op::Equal, json!(id(order, "id")))], limit: 100_000, ..Query::default() };
    let gdef = cx.def("goods");
    let mut lines = Vec::new();
    for l in w.list(&cx.def(line_res), cx.tenant, &q)?.records {
        let g = w.get(&gdef, cx.tenant, id(&l, "goodsId"))?.unwrap_or_default();
        let n = if kind == "rk" { qty(&l, "putQty") } else { qty(&l, "pickedQty") };
        lines.push(json!({
            "lineId": id(&l, "id").to_string(), "goodsCode": text(&g, "goodsCode"), "goodsName": text(&g, "goodsName"),
            "unit": text(&g, "unit"), "batch": text(&l, "batch"), "qty": store::format_qty(n),
        }));
    }
    let payload = json!({
        "type": kind, "wmsId": id(order, "id").to_string(), "orderNo": text(order, "orderNo"),
        "storeId": id(order, "storeId").to_string(), "time": cx.now, "lines": lines,
    });
    let mut doc = Map::new();
    doc.insert("docType".into(), json!(kind));
    doc.insert("docId".into(), json!(id(order, "id")));
    doc.insert("docNo".into(), json!(text(order, "orderNo")));
    doc.insert("provider".into(), json!("log"));
    doc.insert("deliverState".into(), json!(0));
    doc.insert("attempts".into(), json!(0));
    doc.insert("nextAttempt".into(), json!(cx.now));
    doc.insert("payload".into(), payload);
    w.insert(&cx.def("erpcallback"), cx.tenant, doc, cx.actor)?;
    Ok(())
}

/// A user edits only the remark of a callback record; its state is the delivery task's.
pub fn callback_save(_w: &mut WriteCtx, _cx: &Ctx, old: Option<&Map<String, Value>>, _doc: &mut Map<String, Value>) -> store::Result<()> {
    if old.is_none() {
        return Err(crate::error::rule("回传记录由完成的出入库单产生,不能新增", "Callback records come from completed orders; they cannot be added"));
    }
    Ok(())
}

/// Delivers the due records of one tenant (or the given ids); answers (delivered, failed).
pub fn deliver_due(st: &AppState, tenant: &str, ids: Option<&[u64]>, provider: &dyn Provider) -> ApiResult<(u64, u64)> {
    let def = st.res.get("erpcallback");
    let now = st.settings.zone.format(store::now_millis());
    let t = tenant.to_string();
    let due: Vec<Map<String, Value>> = {
        let (d, ids) = (def.clone(), ids.map(<[u64]>::to_vec));
        st.read_now(move |r| match ids {
            Some(ids) => Ok(ids.iter().filter_map(|i| r.get(&d, &t, *i).ok().flatten()).filter(|x| qty(x, "deliverState") != 1).collect()),
            None => {
                let q = Query { filters: vec![Filter::new("deliverState", Op::In, json!([0, 2]))], limit: 500, ..Query::default() };
                Ok(r.list(&d, &t, &q)?.records.into_iter().filter(|x| text(x, "nextAttempt") <= now.as_str()).collect())
            }
        })?
    };
    let (mut delivered, mut failed) = (0, 0);
    for rec in due {
        let attempts = qty(&rec, "attempts") + 1;
        let mut patch = Map::new();
        patch.insert("attempts".into(), json!(attempts));
        patch.insert("provider".into(), json!(provider.name()));
        let now_ms = store::now_millis();
        match provider.deliver(tenant, &rec) {
            Ok(note) => {
                delivered += 1;
                patch.insert("deliverState".into(), json!(1));
                patch.insert("deliveredAt".into(), json!(st.settings.zone.format(now_ms)));
                // Nothing is tried again; the receiver's note is the last result (the log receiver says it is one).
                patch.insert("nextAttempt".into(), Value::Null);
                patch.insert("lastError".into(), json!(note));
            }
            Err(e) => {
                failed += 1;
                let give_up = attempts >= MAX_ATTEMPTS;
                patch.insert("deliverState".into(), json!(if give_up { 3 } else { 2 }));
                patch.insert("lastError".into(), json!(e.chars().take(500).collect::<String>()));
                patch.insert("nextAttempt".into(), json!(st.settings.zone.format(now_ms + backoff(attempts) * 1000)));
            }
        }
        let (d, t, rid) = (def.clone(), tenant.to_string(), id(&rec, "id"));
        st.store.write(move |w| w.update(&d, &t, rid, patch.clone(), &store::Actor::default()).map(|_| ()))?;
    }
    Ok((delivered, failed))
}

/// The delivery task: every few seconds, the due records of every tenant.
pub fn spawn(st: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(3)).await;
            let st2 = st.clone();
            let _ = tokio::task::spawn_blocking(move || {
                let def = st2.res.get("erpcallback");
                for t in st2.read_now(|r| r.tenants_of(&def)).unwrap_or_default() {
                    match deliver_due(&st2, &t, None, &LogProvider) {
                        Ok((0, 0)) => {}
                        Ok((delivered, failed)) => {
                            tracing::info!(target: "zz::erp", tenant = %t, delivered, failed, provider = LogProvider.name(), "erp callbacks delivered (payloads at debug)")
                        }
                        Err(e) => tracing::warn!(target: "zz::erp", tenant = %t, error = ?e, "erp delivery failed"),
                    }
                }
            })
            .await;
        }
    })
}

/// POST erp/erpcallback/sync {ids}
async fn sync(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let def = st.res.get("erpcallback");
    let ids = match p.get("ids").filter(|v| !v.trim().is_empty()) {
        Some(raw) => {
            let ids = crud::removable_ids(&st, &s, &def, Some(raw)).await?;
            if ids.is_empty() {
                return Err(crate::error::ApiError::new(crate::error::Kind::NotFound));
            }
            Some(ids)
        }
        None => None,
    };
    let (st2, t) = (st.clone(), s.tenant.clone());
    let (delivered, failed) = tokio::task::spawn_blocking(move || deliver_due(&st2, &t, ids.as_deref(), &LogProvider))
        .await
        .map_err(crate::error::ApiError::internal)??;
    Ok(ok(json!({"delivered": delivered, "failed": failed})))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_an_hour() {
        assert_eq!(backoff(0), 30);
        assert_eq!(backoff(1), 60);
        assert_eq!(backoff(3), 240);
        assert_eq!(backoff(7), 3600);
        assert_eq!(backoff(50), 3600);
    }
}
