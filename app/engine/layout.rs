//! Secondary indexes follow the declarations: the layout a file's indexes were built for is kept in its meta, and
//! a version that indexes other fields brings the entries in line once, at start — the data file before the seeding
//! and upgrade steps write to it, the logs' file before the log sink does.
use store::Store;

use crate::decl::Resources;

/// Meta key: the indexed fields of every declaration, as last brought in line.
const INDEX_LAYOUT_META: &str = "index_layout";

/// Secondary indexes follow the declarations: when a version indexes other fields than the one that wrote the
/// file (a field gained or lost `filter`/`sort`/`index`), the entries are added or removed once, at start.
pub fn sync_indexes(store: &Store, res: &Resources) -> anyhow::Result<()> {
    let layout: String = res
        .all()
        .iter()
        .map(|d| format!("{}:{};", d.name, d.indexed_fields().collect::<Vec<_>>().join(",")))
        .collect();
    if store.read(|r| r.meta(INDEX_LAYOUT_META))?.as_deref() == Some(layout.as_bytes()) {
        return Ok(());
    }
    let defs = res.all();
    let started = std::time::Instant::now();
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

