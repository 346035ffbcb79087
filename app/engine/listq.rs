//! Blade list parameters to a store query: paging, `ascs`/`descs`, and filters named after declared fields
//! with an optional operator suffix. Anything undeclared is refused by name (BladeX turned such names into SQL).
use serde_json::Value;
use store::{FieldKind, Filter, Op, Query, ResourceDef, Sort};

use crate::error::{ApiError, ApiResult, Kind};
use crate::wire::Zone;

/// Largest page size accepted; the UI offers 10, 30, 50, 100 and 200.
pub use crate::decl::api::MAX_SIZE;
/// Deepest offset accepted, so that a request cannot make the server walk without end.
pub const MAX_OFFSET: u64 = 10_000_000;
/// Parameters clients add that are not filters (cache busters).
const NOT_FILTERS: &[&str] = &["current", "size", "ascs", "descs", "_t", "t", "timestamp"];

const SUFFIXES: &[(&str, Op)] = &[
    ("_equal", Op::Equal),
    ("_notequal", Op::NotEqual),
    ("_likeleft", Op::EndsWith),
    ("_likeright", Op::StartsWith),
    ("_notlike", Op::NotContains),
    ("_like", Op::Contains),
    ("_datege", Op::Ge),
    ("_dategt", Op::Gt),
    ("_dateequal", Op::Equal),
    ("_datelt", Op::Lt),
    ("_datele", Op::Le),
    ("_ge", Op::Ge),
    ("_gt", Op::Gt),
    ("_le", Op::Le),
    ("_lt", Op::Lt),
    ("_notnull", Op::NotNull),
    ("_null", Op::Null),
    ("_ignore", Op::Null),
];

pub fn parse(def: &ResourceDef, zone: Zone, pairs: &[(String, String)]) -> ApiResult<Query> {
    let mut q = Query { limit: 10, ..Query::default() };
    let mut current = 1u64;
    for (k, v) in pairs {
        let v = v.trim();
        match k.as_str() {
            "current" if !v.is_empty() => {
                current = v.parse().ok().filter(|c| *c >= 1).ok_or_else(|| ApiError::with(Kind::BadPaging, "current"))?
            }
            "size" if !v.is_empty() => {
                q.limit = v
                    .parse()
                    .ok()
                    .filter(|s| (1..=MAX_SIZE).contains(s))
                    .ok_or_else(|| ApiError::with(Kind::BadPaging, "size"))?
            }
            "ascs" | "descs" => {
                for name in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let field = camel(name);
                    if !def.is_sortable(&field) {
                        return Err(ApiError::with(Kind::UnknownSort, name.chars().take(64).collect::<String>()));
                    }
                    q.sorts.push(Sort { field, desc: k == "descs" });
                }
            }
            "keyword" if !v.is_empty() => {
                // Free text over the searched fields (fragments, words, pinyin of names): from the search index.
                if !def.fields.iter().any(|f| f.searched()) {
                    return Err(ApiError::with(Kind::UnknownFilter, "keyword"));
                }
                let kw: String = v.chars().take(100).collect();
                q.check = Some(crate::indexer::keyword_check(def, &kw));
            }
            _ if NOT_FILTERS.contains(&k.as_str()) || k == "keyword" || v.is_empty() && !k.ends_with("_null") && !k.ends_with("_notnull") => {}
            _ => {
                if let Some(f) = filter(def, zone, k, v)? {
                    q.filters.extend(f);
                }
            }
        }
    }
    let offset = (current - 1).checked_mul(q.limit).filter(|o| *o <= MAX_OFFSET);
    q.offset = offset.ok_or_else(|| ApiError::with(Kind::BadPaging, "current"))?;
    Ok(q)
}

/// `create_time` → `createTime`: Blade clients send either form in sorts.
fn camel(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut up = false;
    for c in s.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// A filter key's field, suffix and operator (`httpStatus_equal` → `httpStatus`, `_equal`, Equal).
fn split(key: &str) -> (&str, &'static str, Option<Op>) {
    match SUFFIXES.iter().find(|(s, _)| key.ends_with(s)) {
        Some((s, op)) => (&key[..key.len() - s.len()], *s, Some(*op)),
        None => (key, "", None),
    }
}

/// The field a filter key names (`httpStatus_equal` → `httpStatus`).
pub fn field_of(key: &str) -> &str {
    split(key).0
}

fn filter(def: &ResourceDef, zone: Zone, key: &str, raw: &str) -> ApiResult<Option<Vec<Filter>>> {
    let unknown = || ApiError::with(Kind::UnknownFilter, key.chars().take(64).collect::<String>());
    let (field, suffix, op) = split(key);
    if !def.is_filterable(field) {
        return Err(unknown());
    }
    if suffix == "_ignore" {
        return Ok(None);
    }
    let kind = match field {
        "createTime" | "updateTime" => None,
        "id" | "createUser" | "createDept" => Some(FieldKind::Long),
        "status" => Some(FieldKind::Int),
        _ => def.field(field).map(|f| f.kind),
    };
    let numeric = matches!(kind, Some(FieldKind::Int | FieldKind::Flag | FieldKind::Long | FieldKind::Decimal | FieldKind::Money | FieldKind::Qty) | None);
    let op = op.unwrap_or(if numeric { Op::Equal } else { Op::Contains });
    if matches!(op, Op::Null | Op::NotNull) {
        return Ok(Some(vec![Filter::new(field, op, Value::Null)]));
    }
    let bad = || ApiError::with(Kind::WrongType, key.chars().take(64).collect::<String>());
    let value = match kind {
        None => {
            // Audit times are stored as epoch milliseconds. A day asked for itself or as the last day of a range
            // (`_dateequal`, `_datele`: the search form's 至 box) is the whole day, as for a date field; `_dategt`
            // and `_datelt` keep comparing with its midnight, as BladeX's SQL did with a client's day.
            let ms = zone.parse_millis(raw).ok_or_else(bad)?;
            if raw.trim().len() == 10 {
                match suffix {
                    "_dateequal" => {
                        return Ok(Some(vec![Filter::new(field, Op::Ge, ms.into()), Filter::new(field, Op::Lt, (ms + 86_400_000).into())]));
                    }
                    "_datele" => return Ok(Some(vec![Filter::new(field, Op::Lt, (ms + 86_400_000).into())])),
                    _ => {}
                }
            }
            Value::from(ms)
        }
        Some(FieldKind::Int | FieldKind::Flag) => Value::from(raw.parse::<i64>().map_err(|_| bad())?),
        Some(FieldKind::Long) => Value::from(raw.parse::<u64>().map_err(|_| bad())?),
        Some(FieldKind::Money) => Value::from(store::parse_money(raw).ok_or_else(bad)?),
        Some(FieldKind::Qty) => Value::from(store::parse_qty(raw).ok_or_else(bad)?),
        Some(FieldKind::Decimal) => serde_json::Number::from_f64(raw.parse::<f64>().map_err(|_| bad())?)
            .map(Value::Number)
            .ok_or_else(bad)?,
        Some(FieldKind::Date) if suffix.starts_with("_date") => {
            let ms = zone.parse_millis(raw).ok_or_else(bad)?;
            let text = zone.format(ms);
            if raw.trim().len() == 10 {
                // A day, against values stored as days (`2025-03-01`) or times: the whole day is meant.
                let day = &text[..10];
                match op {
                    Op::Equal => return Ok(Some(vec![Filter::new(field, Op::StartsWith, Value::String(day.to_string()))])),
                    Op::Ge | Op::Lt => return Ok(Some(vec![Filter::new(field, op, Value::String(day.to_string()))])),
                    Op::Gt | Op::Le => return Ok(Some(vec![Filter::new(field, op, Value::String(format!("{day} 23:59:59")))])),
                    _ => {}
                }
            }
            Value::String(text)
        }
        _ => Value::String(raw.chars().take(500).collect()),
    };
    Ok(Some(vec![Filter::new(field, op, value)]))
}

/// The query with candidates from the search index for its text filters and keyword (`store::Hint`), found off
/// the async workers, when the index is current and can answer them; else the query as it was.
pub async fn with_hint(st: &crate::state::AppState, def: &std::sync::Arc<ResourceDef>, tenant: &str, mut query: Query) -> ApiResult<Query> {
    let Some((ix, permit)) = index_slot(st, def, &query).await? else { return Ok(query) };
    let (d, t) = (def.clone(), tenant.to_string());
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        hint(&ix, &d, &t, &mut query);
        query
    })
    .await
    .map_err(ApiError::internal)
}

/// The search index and a slot to ask it (at most `index_slots` questions at once), when it is current and can
/// answer the query's text filters or keyword.
async fn index_slot(st: &crate::state::AppState, def: &ResourceDef, query: &Query) -> ApiResult<Option<(std::sync::Arc<crate::indexer::Indexer>, tokio::sync::OwnedSemaphorePermit)>> {
    let Some(ix) = st.index.clone().filter(|i| i.is_ready() && crate::indexer::asks(def, query)) else { return Ok(None) };
    let permit = st.index_slots.clone().acquire_owned().await.map_err(|_| ApiError::new(Kind::Unavailable))?;
    Ok(Some((ix, permit)))
}

/// Runs a list query that may walk records, under the walk rules: a deadline (`Settings::walk_deadline`, waiting
/// included), at most `Settings::walk_slots` walks at once (lists answered from indexes do not take a slot),
/// and a walk stops when its caller goes away (the request's future is dropped when the client disconnects).
/// A walk that does not finish in time is answered 503 naming the filters it was asked for.
pub async fn run(st: &crate::state::AppState, def: &std::sync::Arc<ResourceDef>, tenant: &str, mut query: Query) -> ApiResult<store::Page> {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let deadline = std::time::Instant::now() + st.settings.walk_deadline;
    let too_slow = {
        let named = describe(&query);
        let secs = st.settings.walk_deadline.as_secs().max(1);
        move || ApiError { retry_after: Some(secs), ..ApiError::with(Kind::WalkTimeout, named) }
    };
    let cancel = Arc::new(AtomicBool::new(false));
    query.budget = store::Budget { deadline: Some(deadline), cancel: Some(cancel.clone()) };
    let mut gone = CancelOnDrop(Some(cancel));
    if let Some((ix, permit)) = index_slot(st, def, &query).await? {
        // The index's candidates and, when the hinted list walks nothing (the usual case: a text filter
        // answered by the index), the page itself, in one trip off the async workers; a list that still
        // walks comes back for a walk slot.
        let (d, t, st2) = (def.clone(), tenant.to_string(), st.clone());
        let r = tokio::task::spawn_blocking(move || {
            hint(&ix, &d, &t, &mut query);
            drop(permit);
            if store::walks(&d, &query) {
                return Err(Box::new(query));
            }
            let r = st2.store_of(&d).read(|r| r.list(&d, &t, &query));
            st2.walk_stats.count(&d, &r);
            Ok(r)
        })
        .await
        .map_err(ApiError::internal)?;
        match r {
            Ok(r) => {
                gone.0 = None;
                return r.map_err(ApiError::from).map_err(|e| if e.kind == Kind::WalkTimeout { too_slow() } else { e });
            }
            Err(q) => query = *q,
        }
    }
    let walks = store::walks(def, &query);
    let slot = if walks {
        match tokio::time::timeout_at(deadline.into(), st.walks.clone().acquire_owned()).await {
            Ok(Ok(p)) => Some(p),
            Ok(Err(_)) => return Err(ApiError::new(Kind::Unavailable)),
            Err(_) => {
                st.walk_stats.timed_out.fetch_add(1, Ordering::Relaxed);
                return Err(too_slow());
            }
        }
    } else {
        None
    };
    let (d, t, st2) = (def.clone(), tenant.to_string(), st.clone());
    let r = st
        .read_of(def, move |r| {
            // The slot is held by the walk itself: a dropped request frees it only when the walk has stopped.
            let _slot = slot;
            if walks {
                st2.walk_stats.started.fetch_add(1, Ordering::Relaxed);
            }
            let r = r.list(&d, &t, &query);
            st2.walk_stats.count(&d, &r);
            r
        })
        .await;
    gone.0 = None;
    r.map_err(|e| if e.kind == Kind::WalkTimeout { too_slow() } else { e })
}

/// Sets the index's candidates on the query (`Indexer::hint`); on an index error the query stays as it was.
fn hint(ix: &crate::indexer::Indexer, def: &ResourceDef, tenant: &str, query: &mut Query) {
    if let Err(e) = ix.hint(def, tenant, query) {
        tracing::warn!(target: "zz::search", error = %e, resource = %def.name, "index not used for a list");
    }
}

/// Sets its flag when dropped while armed: the request future was dropped, nobody waits for the walk.
struct CancelOnDrop(Option<std::sync::Arc<std::sync::atomic::AtomicBool>>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(f) = &self.0 {
            f.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// The filters of a query as the client named them (`paramName=订单超时时间`), for messages.
fn describe(q: &Query) -> String {
    let mut parts: Vec<String> = q
        .filters
        .iter()
        .map(|f| {
            let v = match &f.value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            format!("{}={}", f.field, v.chars().take(40).collect::<String>())
        })
        .collect();
    if let Some(kw) = q.check.as_ref().and_then(|c| c.keyword.as_deref()) {
        parts.push(format!("keyword={}", kw.chars().take(40).collect::<String>()));
    }
    if parts.is_empty() {
        parts.push(match q.sorts.first() {
            Some(s) => format!("{}={}", if s.desc { "descs" } else { "ascs" }, s.field),
            None => format!("current={}", q.offset / q.limit.max(1) + 1),
        });
    }
    let mut s = parts.join(", ");
    if s.chars().count() > 160 {
        s = s.chars().take(160).collect::<String>() + "…";
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn def() -> ResourceDef {
        serde_json::from_str(
            r#"{"name":"param","label":"p","fields":[
            {"name":"paramName","label":"n","filter":true,"sort":true},
            {"name":"paramValue","label":"v"},
            {"name":"sort","kind":"int","label":"s","filter":true},
            {"name":"startTime","kind":"date","label":"t","filter":true}]}"#,
        )
        .unwrap()
    }
    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }
    fn z() -> Zone {
        Zone::parse("+08:00").unwrap()
    }

    #[test]
    fn a_day_means_the_whole_day() {
        let d = def();
        let m = |doc: serde_json::Value, key: &str, raw: &str| {
            let q = parse(&d, z(), &pairs(&[(key, raw)])).unwrap();
            q.accepts(doc.as_object().unwrap())
        };
        let (day, morning, before, after) =
            (json!({"startTime": "2025-03-01"}), json!({"startTime": "2025-03-01 08:30:00"}), json!({"startTime": "2025-02-28"}), json!({"startTime": "2025-03-02"}));
        for doc in [&day, &morning, &after] {
            assert!(m(doc.clone(), "startTime_datege", "2025-03-01"), "{doc}");
        }
        assert!(!m(before.clone(), "startTime_datege", "2025-03-01"));
        for doc in [&day, &morning, &before] {
            assert!(m(doc.clone(), "startTime_datele", "2025-03-01"), "{doc}");
            assert!(!m(doc.clone(), "startTime_dategt", "2025-03-01"), "{doc}");
        }
        assert!(!m(after.clone(), "startTime_datele", "2025-03-01"));
        assert!(m(after.clone(), "startTime_dategt", "2025-03-01"));
        assert!(m(before.clone(), "startTime_datelt", "2025-03-01") && !m(day.clone(), "startTime_datelt", "2025-03-01"));
        assert!(m(morning.clone(), "startTime_dateequal", "2025-03-01") && !m(after, "startTime_dateequal", "2025-03-01"));
        // A time keeps its second.
        assert!(!m(day, "startTime_datege", "2025-03-01 08:00:00") && m(morning, "startTime_datege", "2025-03-01 08:00:00"));
    }

    /// The search form's creation-date range: from a day (`createTime_dategt`) and to a day (`createTime_datele`)
    /// take both days whole; `createTime_datelt` still ends at the day's midnight.
    #[test]
    fn a_creation_day_range_takes_both_days() {
        let d = def();
        let at = |t: &str| json!({"createTime": z().parse_millis(t).unwrap()});
        let m = |doc: &serde_json::Value, q: &[(&str, &str)]| parse(&d, z(), &pairs(q)).unwrap().accepts(doc.as_object().unwrap());
        let range = [("createTime_dategt", "2026-11-01"), ("createTime_datele", "2026-11-30")];
        for t in ["2026-11-01 08:00:00", "2026-11-15 12:00:00", "2026-11-30 00:00:00", "2026-11-30 23:59:59"] {
            assert!(m(&at(t), &range), "{t} is in the range");
        }
        for t in ["2026-10-31 23:59:59", "2026-12-01 00:00:00"] {
            assert!(!m(&at(t), &range), "{t} is not");
        }
        assert!(!m(&at("2026-11-30 09:00:00"), &[("createTime_datelt", "2026-11-30")]));
        assert!(m(&at("2026-11-30 09:00:00"), &[("createTime_datele", "2026-11-30 10:00:00")]) && !m(&at("2026-11-30 11:00:00"), &[("createTime_datele", "2026-11-30 10:00:00")]));
    }

    #[test]
    fn paging_defaults_and_bounds() {
        let q = parse(&def(), z(), &pairs(&[])).unwrap();
        assert_eq!((q.offset, q.limit), (0, 10));
        let q = parse(&def(), z(), &pairs(&[("current", "3"), ("size", "30")])).unwrap();
        assert_eq!((q.offset, q.limit), (60, 30));
        for bad in [("size", "0"), ("size", "100000"), ("current", "0"), ("current", "x"), ("current", "99999999999")] {
            let e = parse(&def(), z(), &pairs(&[bad])).unwrap_err();
            assert_eq!(e.kind, Kind::BadPaging, "{bad:?}");
        }
    }

    #[test]
    fn filters_and_sorts_only_over_declared_fields() {
        let e = parse(&def(), z(), &pairs(&[("paramValue", "x")])).unwrap_err();
        assert_eq!((e.kind, e.arg.as_str()), (Kind::UnknownFilter, "paramValue"));
        let e = parse(&def(), z(), &pairs(&[("paramName_bogus", "x")])).unwrap_err();
        assert_eq!(e.kind, Kind::UnknownFilter);
        let e = parse(&def(), z(), &pairs(&[("descs", "paramValue")])).unwrap_err();
        assert_eq!((e.kind, e.arg.as_str()), (Kind::UnknownSort, "paramValue"));
        let e = parse(&def(), z(), &pairs(&[("sort", "abc")])).unwrap_err();
        assert_eq!(e.kind, Kind::WrongType);
        let q = parse(
            &def(),
            z(),
            &pairs(&[("paramName", "a"), ("createTime_dategt", "2024-01-01 00:00:00"), ("descs", "create_time"), ("paramName_like", "")]),
        )
        .unwrap();
        assert_eq!(q.filters.len(), 2);
        assert_eq!(q.filters[0].op, Op::Contains);
        assert!(q.filters[1].value.is_number());
        assert_eq!(q.sorts[0].field, "createTime");
        // A keyword needs searched fields; none here, so it is refused by name.
        let e = parse(&def(), z(), &pairs(&[("keyword", "x")])).unwrap_err();
        assert_eq!((e.kind, e.arg.as_str()), (Kind::UnknownFilter, "keyword"));
        assert!(parse(&def(), z(), &pairs(&[("keyword", "")])).unwrap().check.is_none());
    }
}
