//! Secondary indexes follow the declarations: the layout a file's indexes were built for is kept in its meta, and
//! a version that indexes other fields brings the entries in line once, at start — the data file before the seeding
//! and upgrade steps write to it, the logs' file before the log sink does.
use store::Store;

use crate::decl::Resources;

/// Meta key: the indexed fields of every declaration, as last brought in line.
const INDEX_LAYOUT_META: &str = "index_layout";
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
    if store.read(|r| r.meta(INDEX_LAYOUT_META))?.as_deref() == Some(layout.as_bytes()) {
        return Ok(());
    }
    let defs = res.all();
    let started = std::time::Instant::now();
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
        w.put_meta(INDEX_LAYOUT_META, layout.as_bytes())?;
        Ok(changes)
    })?;
    if !changes.is_empty() {
        tracing::info!(target: "zz::store", ms = started.elapsed().as_millis() as u64, changes = %changes.join(", "), "indexes brought in line with the declarations");
    }
    Ok(())
}


#[cfg(test)]
mod tests {
    use serde_json::json;
    use store::{Actor, Filter, Op, Options, Query};

    /// A logs' file written before the logs had short index keys: its entries move at the next start, lists
    /// filtered by a renamed field answer as before, and none is left under a field's name.
    #[test]
    fn a_file_indexed_by_field_names_gets_the_declared_short_keys_at_start() {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(&dir.path().join("logs.redb"), &Options::default()).unwrap();
        let res = crate::decl::Resources::load().unwrap();
        let now = res.get("log_api");
        assert!(!now.index_keys.is_empty());
        let mut before = (*now).clone();
        before.index_keys.clear();
        let before = std::sync::Arc::new(before);
        let b = before.clone();
        store
            .write(move |w| {
                for (i, uri) in ["/api/blade-system/param/submit", "/api/blade-system/param/remove", "/api/blade-system/param/submit"].iter().enumerate() {
                    let doc = json!({"method": "POST", "requestUri": uri, "httpStatus": 200, "remoteIp": format!("10.0.0.{i}")});
                    w.insert(&b, "000000", doc.as_object().unwrap().clone(), &Actor::default())?;
                }
                w.put_meta("index_layout", b"before short keys")
            })
            .unwrap();
        super::sync_indexes(&store, &res).unwrap();
        let q = Query { limit: 10, filters: vec![Filter::new("requestUri", Op::Equal, json!("/api/blade-system/param/submit"))], ..Default::default() };
        assert_eq!(store.read(|r| r.list(&now, "000000", &q)).unwrap().total, 2);
        let q = Query { limit: 10, filters: vec![Filter::new("remoteIp", Op::Equal, json!("10.0.0.1")), Filter::new("method", Op::Equal, json!("POST"))], ..Default::default() };
        assert_eq!(store.read(|r| r.list(&now, "000000", &q)).unwrap().total, 1);
        // Brought back to field names, every one of the 3 × 5 entries moves: all were under the short keys.
        assert_eq!(store.write(move |w| w.reconcile_index(&before)).unwrap(), (15, 15));
    }
}
