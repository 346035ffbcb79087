//! Secondary indexes follow the declarations: the layout a file's indexes were built for is kept in its meta, and
//! a version that indexes other fields brings the entries in line once, at start — the data file before the seeding
//! and upgrade steps write to it, the logs' file before the log sink does.
use store::Store;

use crate::decl::Resources;

/// Index entries moved to their short keys per transaction.
const RENAME_BATCH: usize = 20_000;

/// Secondary indexes follow the declarations: when a version indexes other fields than the one that wrote the
/// file (a field gained or lost `filter`/`sort`/`index`), the entries are added or removed once, at start.
pub fn sync_indexes(store: &Store, res: &Resources) -> anyhow::Result<()> {
    let layout: String = res
        .all()
        .iter()
        .map(|d| {
            // A field stored under a short key (`indexKeys`) is listed as `name=key`.
            let fields: Vec<String> = d.indexed_keys().map(|(n, k)| if n == k { n.to_string() } else { format!("{n}={k}") }).collect();
            format!("{}:{};", d.name, fields.join(","))
        })
        .collect();
    let before = store.read(|r| r.meta(store::INDEX_LAYOUT))?;
    if before.as_deref() == Some(layout.as_bytes()) {
        return Ok(());
    }
    let defs = res.all();
    let started = std::time::Instant::now();
    // A key the last layout gave another field (or that was a field's name then) holds that field's entries: they
    // go before anything is moved under it. And the recorded layout is cleared in the same transaction, so a start
    // that stops half way, or an earlier binary after it, sees a file out of line and brings it in line again,
    // instead of trusting a layout that entries partly moved no longer match.
    let before = before.map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    let was = stored_keys(&before);
    let stale: Vec<(std::sync::Arc<store::ResourceDef>, String)> = defs
        .iter()
        .flat_map(|d| {
            let old = was.get(d.name.as_str());
            d.indexed_keys()
                .filter(move |(n, k)| old.is_some_and(|o| o.iter().any(|(on, ok)| ok == k && on != n)))
                .map(|(_, k)| (d.clone(), k.to_string()))
                .collect::<Vec<_>>()
        })
        .collect();
    let dropped = store.write(move |w| {
        w.put_meta(store::INDEX_LAYOUT, b"")?;
        let mut n = 0;
        for (d, k) in &stale {
            n += w.drop_index_key(d, k)?;
        }
        Ok(n)
    })?;
    if dropped > 0 {
        tracing::info!(target: "zz::store", dropped, "index entries under keys the declarations now give other fields dropped");
    }
    // Entries stored by a field's name that its declaration now gives a short key move first, a batch a
    // transaction (a year of logs is millions of entries).
    let mut renamed = Vec::new();
    for d in defs.iter().filter(|d| d.indexed_keys().any(|(n, k)| n != k)) {
        let mut moved = 0u64;
        loop {
            let d2 = d.clone();
            let n = store.write(move |w| w.rename_index_keys(&d2, RENAME_BATCH))?;
            moved += n;
            if n == 0 {
                break;
            }
        }
        if moved > 0 {
            renamed.push(format!("{} {moved}", d.name));
        }
    }
    if !renamed.is_empty() {
        tracing::info!(target: "zz::store", ms = started.elapsed().as_millis() as u64, renamed = %renamed.join(", "), "index entries moved to their short keys");
    }
    let changes = store.write(move |w| {
        let mut changes = Vec::new();
        for d in &defs {
            let (removed, added) = w.reconcile_index(d)?;
            if removed + added > 0 {
                changes.push(format!("{} -{removed} +{added}", d.name));
            }
        }
        w.put_meta(store::INDEX_LAYOUT, layout.as_bytes())?;
        Ok(changes)
    })?;
    if !changes.is_empty() {
        tracing::info!(target: "zz::store", ms = started.elapsed().as_millis() as u64, changes = %changes.join(", "), "indexes brought in line with the declarations");
    }
    Ok(())
}

/// The (field, key) pairs of each resource in a recorded layout (`res:f1,f2=k2;...`; a field without `=` is
/// stored under its name).
fn stored_keys(layout: &str) -> std::collections::HashMap<&str, Vec<(&str, &str)>> {
    layout
        .split(';')
        .filter_map(|part| part.split_once(':'))
        .map(|(res, fields)| {
            let keys = fields.split(',').filter(|f| !f.is_empty()).map(|f| f.split_once('=').unwrap_or((f, f))).collect();
            (res, keys)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;
    use store::{Actor, Filter, Op, Options, Query, ResourceDef, Store};

    use crate::decl::Resources;

    /// A logs' file holding one api-log entry per route in `uris` (the i-th from IP 10.0.0.i), written by a
    /// declaration of log_api with the index keys `keys` instead of today's, its layout recorded as `layout`.
    fn logs_written_with(keys: &[(&str, &str)], uris: &[&str], layout: &'static [u8]) -> (tempfile::TempDir, Store, Resources, Arc<ResourceDef>) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("logs.redb"), &Options::default()).unwrap();
        let res = Resources::load().unwrap();
        let mut before = (*res.get("log_api")).clone();
        before.index_keys = keys.iter().map(|(f, k)| (f.to_string(), k.to_string())).collect();
        before.check().unwrap();
        let before = Arc::new(before);
        let (b, uris): (_, Vec<String>) = (before.clone(), uris.iter().map(|u| u.to_string()).collect());
        store
            .write(move |w| {
                for (i, uri) in uris.iter().enumerate() {
                    let doc = json!({"method": "POST", "requestUri": uri, "httpStatus": 200, "remoteIp": format!("10.0.0.{i}")});
                    w.insert(&b, "000000", doc.as_object().unwrap().clone(), &Actor::default())?;
                }
                w.put_meta(store::INDEX_LAYOUT, layout)
            })
            .unwrap();
        (dir, store, res, before)
    }

    /// A logs' file written before the logs had short index keys: its entries move at the next start, lists
    /// filtered by a renamed field answer as before, and none is left under a field's name.
    #[test]
    fn a_file_indexed_by_field_names_gets_the_declared_short_keys_at_start() {
        let submit = "/api/blade-system/param/submit";
        let (_dir, store, res, before) = logs_written_with(&[], &[submit, "/api/blade-system/param/remove", submit], b"before short keys");
        let now = res.get("log_api");
        assert!(!now.index_keys.is_empty());
        super::sync_indexes(&store, &res).unwrap();
        let q = Query { limit: 10, filters: vec![Filter::new("requestUri", Op::Equal, json!(submit))], ..Default::default() };
        assert_eq!(store.read(|r| r.list(&now, "000000", &q)).unwrap().total, 2);
        let q = Query { limit: 10, filters: vec![Filter::new("remoteIp", Op::Equal, json!("10.0.0.1")), Filter::new("method", Op::Equal, json!("POST"))], ..Default::default() };
        assert_eq!(store.read(|r| r.list(&now, "000000", &q)).unwrap().total, 1);
        // Brought back to field names, every one of the 3 × 5 entries moves: all were under the short keys.
        assert_eq!(store.write(move |w| w.reconcile_index(&before)).unwrap(), (15, 15));
    }

    /// A key the last layout gave another field: that field's entries under it are dropped before the field that
    /// now owns the key moves there, so a filter on the new owner never finds the old one's values.
    #[test]
    fn a_key_taken_over_from_another_field_starts_empty() {
        // An earlier layout stored `method` under `u`, the route under its name.
        let layout = b"log_api:method=u,requestUri,httpStatus,remoteIp,createTime;";
        let (_dir, store, res, _) = logs_written_with(&[("method", "u")], &["/api/a", "/api/b", "/api/a"], layout);
        let now = res.get("log_api");
        assert_eq!(now.index_key("requestUri"), "u");
        super::sync_indexes(&store, &res).unwrap();
        let total = |field: &str, v: &str| {
            let q = Query { limit: 10, filters: vec![Filter::new(field, Op::Equal, json!(v))], ..Default::default() };
            store.read(|r| r.list(&now, "000000", &q)).unwrap().total
        };
        assert_eq!((total("requestUri", "/api/a"), total("requestUri", "POST"), total("method", "POST")), (2, 0, 3));
        let layout = store.read(|r| r.meta(store::INDEX_LAYOUT)).unwrap().unwrap_or_default();
        assert!(String::from_utf8_lossy(&layout).contains("log_api:method=m,requestUri=u,httpStatus=s,remoteIp=i,createTime=c;"));
        let now2 = now.clone();
        assert_eq!(store.write(move |w| w.reconcile_index(&now2)).unwrap(), (0, 0));
        // Under `u` now: the three routes, none of the methods.
        let now2 = now.clone();
        assert_eq!(store.write(move |w| w.drop_index_key(&now2, "u")).unwrap(), 3);
    }
}
