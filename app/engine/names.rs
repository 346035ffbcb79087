//! Who people are, as rows show them: users by id to display name (real name, else name, else account), each
//! user read once. Every area that shows an author, applicant, assignee or approver uses this.
use std::collections::BTreeMap;

use serde_json::{Map, Value};

fn text<'a>(m: &'a Map<String, Value>, k: &str) -> &'a str {
    m.get(k).and_then(Value::as_str).unwrap_or("")
}

/// Users by id → display name, for rows.
pub fn names(r: &store::ReadCtx, res: &crate::decl::Resources, tenant: &str, ids: impl IntoIterator<Item = u64>) -> store::Result<BTreeMap<u64, String>> {
    let udef = res.get("user");
    let mut out = BTreeMap::new();
    for u in ids {
        if u == 0 || out.contains_key(&u) {
            continue;
        }
        if let Some(rec) = r.get(&udef, tenant, u)? {
            let n = [text(&rec, "realName"), text(&rec, "name"), text(&rec, "account")].into_iter().find(|s| !s.is_empty()).unwrap_or("").to_string();
            out.insert(u, n);
        }
    }
    Ok(out)
}

/// Each record with the display name of the user who wrote it (`createUser`).
pub fn with_authors(r: &store::ReadCtx, res: &crate::decl::Resources, tenant: &str, recs: Vec<Map<String, Value>>) -> store::Result<Vec<(Map<String, Value>, String)>> {
    let by = |rec: &Map<String, Value>| rec.get("createUser").and_then(Value::as_u64).unwrap_or(0);
    let names = names(r, res, tenant, recs.iter().map(by))?;
    Ok(recs.into_iter().map(|rec| {
        let n = names.get(&by(&rec)).cloned().unwrap_or_default();
        (rec, n)
    }).collect())
}
