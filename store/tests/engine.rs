//! The record engine against a real file: indexes, counters, unique keys, soft delete, group commit,
//! batch isolation of a failing operation, backup and verify.
mod common;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use store::{Actor, Filter, Op, Options, Query, ResourceDef, Sort, Store, StoreError};

fn def() -> Arc<ResourceDef> {
    Arc::new(
        serde_json::from_value(json!({
            "name": "param", "label": "参数",
            "fields": [
                {"name": "paramName", "label": "n", "required": true, "filter": true, "sort": true},
                {"name": "paramKey", "label": "k", "required": true, "unique": true, "filter": true, "sort": true},
                {"name": "n", "kind": "int", "label": "n", "filter": true, "sort": true}
            ]
        }))
        .unwrap(),
    )
}

fn doc(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn open() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&dir.path().join("t.redb"), &Options::default()).unwrap();
    (dir, s)
}

/// A store with three records in tenant A (`seed`), the declaration, and the id of the one whose key is `key`.
fn three_and_one(key: &str) -> (tempfile::TempDir, Store, Arc<ResourceDef>, u64) {
    let (dir, s) = open();
    seed(&s, "A", 3);
    let d = def();
    let id = s.read(|r| r.find_unique(&d, "A", "paramKey", key)).unwrap().unwrap();
    (dir, s, d, id)
}

fn seed(s: &Store, tenant: &str, n: usize) {
    let d = def();
    let t = tenant.to_string();
    s.write(move |w| {
        for i in 0..n {
            w.insert(&d, &t, doc(json!({"paramName": format!("名称{:03}", i % 7), "paramKey": format!("k{i:04}"), "n": i as i64})), &Actor { user_id: 7, dept_id: 3, at: None })?;
        }
        Ok(())
    })
    .unwrap();
}

#[test]
fn list_pages_sorts_filters_and_totals() {
    let (_d, s) = open();
    seed(&s, "A", 50);
    seed(&s, "B", 5);
    let d = def();
    let page = s.read(|r| r.list(&d, "A", &Query { limit: 10, ..Default::default() })).unwrap();
    assert_eq!(page.total, 50);
    assert_eq!(page.records[0]["paramKey"], "k0049", "newest first");
    let q = Query { limit: 5, offset: 5, sorts: vec![Sort { field: "n".into(), desc: false }], ..Default::default() };
    let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
    let ns: Vec<i64> = page.records.iter().map(|r| r["n"].as_i64().unwrap()).collect();
    assert_eq!(ns, [5, 6, 7, 8, 9]);
    let q = Query { limit: 100, filters: vec![Filter::new("paramName", Op::Equal, json!("名称003"))], ..Default::default() };
    let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
    assert_eq!(page.total, 7);
    assert!(page.records.iter().all(|r| r["paramName"] == "名称003"));
    let q = Query { limit: 3, filters: vec![Filter::new("n", Op::Ge, json!(45))], sorts: vec![Sort { field: "paramKey".into(), desc: true }], ..Default::default() };
    let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
    assert_eq!(page.total, 5);
    assert_eq!(page.records[0]["paramKey"], "k0049");
    let q = Query { limit: 100, sorts: vec![Sort { field: "paramName".into(), desc: false }, Sort { field: "n".into(), desc: true }], ..Default::default() };
    let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
    assert_eq!(page.records[0]["n"], 49);
    let b = s.read(|r| r.list(&d, "B", &Query { limit: 100, ..Default::default() })).unwrap();
    assert_eq!(b.total, 5, "tenants never see each other's rows");
    assert!(b.records.iter().all(|r| r["tenantId"] == "B"));
    assert_eq!(b.records[0]["createUser"], 7);
    assert_eq!(b.records[0]["createDept"], 3);
}

#[test]
fn unique_update_and_soft_delete_keep_indexes_and_counters_in_step() {
    let (dir, s, d, id) = three_and_one("k0001");
    let d2 = d.clone();
    let e = s.write(move |w| w.insert(&d2, "A", doc(json!({"paramName": "x", "paramKey": "k0001"})), &Actor::default())).unwrap_err();
    assert!(matches!(e, StoreError::Duplicate { ref field, .. } if field == "paramKey"));
    // An update to a value another record holds is refused; one that leaves its own value as it was is not.
    let other = s.read(|r| r.find_unique(&d, "A", "paramKey", "k0002")).unwrap().unwrap();
    let d2 = d.clone();
    let e = s.write(move |w| w.update(&d2, "A", id, doc(json!({"paramKey": "k0002", "n": 5})), &Actor::default())).unwrap_err();
    assert!(matches!(e, StoreError::Duplicate { ref field, .. } if field == "paramKey"));
    let d2 = d.clone();
    s.write(move |w| w.update(&d2, "A", other, doc(json!({"paramKey": "k0002", "n": 6})), &Actor::default())).unwrap();
    assert_eq!(s.read(|r| r.find_unique(&d, "A", "paramKey", "k0002")).unwrap(), Some(other));
    let d2 = d.clone();
    s.write(move |w| w.update(&d2, "A", id, doc(json!({"paramKey": "renamed", "n": 100})), &Actor::default())).unwrap();
    assert_eq!(s.read(|r| r.find_unique(&d, "A", "paramKey", "k0001")).unwrap(), None);
    assert_eq!(s.read(|r| r.find_unique(&d, "A", "paramKey", "renamed")).unwrap(), Some(id));
    let q = Query { limit: 1, sorts: vec![Sort { field: "n".into(), desc: true }], ..Default::default() };
    assert_eq!(s.read(|r| r.list(&d, "A", &q)).unwrap().records[0]["paramKey"], "renamed");
    let d2 = d.clone();
    assert_eq!(s.write(move |w| w.remove(&d2, "A", &[id, 999], &Actor::default())).unwrap(), 1);
    assert_eq!(s.read(|r| r.count(&d, "A")).unwrap(), 2);
    assert!(s.read(|r| r.get(&d, "A", id)).unwrap().is_none());
    let d2 = d.clone();
    s.write(move |w| w.insert(&d2, "A", doc(json!({"paramName": "again", "paramKey": "renamed"})), &Actor::default())).unwrap();
    let out = dir.path().join("copy.redb");
    let report = s.backup_to(&out, &|n: &str| (n == "param").then(def)).unwrap();
    assert!(report.ok, "{:?}", report.problems);
    assert_eq!(report.resources["param"], 3);
    assert!(report.tables.iter().any(|t| t.name == "DELETED" && t.rows == 1), "soft-deleted rows are kept");
}

#[test]
fn group_commit_isolates_a_failing_operation() {
    let (_d, s) = open();
    let d = def();
    let (tx, rx) = std::sync::mpsc::channel();
    // Many concurrent writers, one of which always fails after writing: the others must all land, it must not.
    for i in 0..200 {
        let (d, tx) = (d.clone(), tx.clone());
        s.submit(
            move |w| {
                w.insert(&d, "A", doc(json!({"paramName": "p", "paramKey": format!("c{i}")})), &Actor::default())?;
                if i == 77 {
                    return Err(StoreError::Rule("refused after writing".into()));
                }
                Ok(i)
            },
            move |r| tx.send((i, r.is_ok())).unwrap(),
        );
    }
    drop(tx);
    let results: Vec<(i32, bool)> = rx.iter().collect();
    assert_eq!(results.len(), 200);
    assert!(results.iter().all(|(i, ok)| *ok == (*i != 77)));
    assert_eq!(s.read(|r| r.count(&d, "A")).unwrap(), 199);
    assert_eq!(s.read(|r| r.find_unique(&d, "A", "paramKey", "c77")).unwrap(), None, "nothing half-applied");
}

#[test]
fn writes_after_close_are_refused_and_the_file_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let s = Store::open(&path, &Options::default()).unwrap();
    seed(&s, "A", 3);
    assert!(matches!(Store::open(&path, &Options::default()), Err(StoreError::Locked)), "one process at a time");
    s.close();
    let d = def();
    let e = s.write(move |w| w.insert(&d, "A", doc(json!({"paramName": "x", "paramKey": "late"})), &Actor::default())).unwrap_err();
    assert!(matches!(e, StoreError::Closed));
    drop(s);
    let s = Store::open(&path, &Options::default()).unwrap();
    assert_eq!(s.read(|r| r.count(&def(), "A")).unwrap(), 3);
    let ids: Vec<u64> = s.read(|r| r.all(&def(), "A")).unwrap().iter().map(|r| r["id"].as_u64().unwrap()).collect();
    let d = def();
    let new = s.write(move |w| w.insert(&d, "A", doc(json!({"paramName": "x", "paramKey": "new"})), &Actor::default())).unwrap();
    assert!(new["id"].as_u64().unwrap() > *ids.iter().max().unwrap(), "ids keep growing across restarts");
}

#[test]
fn verify_reports_counts_and_refuses_junk() {
    let (dir, s) = open();
    seed(&s, "A", 10);
    let out = dir.path().join("b.redb");
    s.backup_to(&out, &|n: &str| (n == "param").then(def)).unwrap();
    let r = store::verify_file(&out).unwrap();
    assert!(r.ok);
    assert_eq!(r.schema_version, store::BASE_FORMAT);
    assert_eq!(r.tables.iter().find(|t| t.name == "RECORDS").unwrap().rows, 10);
    let junk = dir.path().join("junk.redb");
    std::fs::write(&junk, b"not a database at all").unwrap();
    assert!(store::verify_file(&junk).is_err());
    assert!(store::verify_file(&dir.path().join("absent.redb")).is_err());
}

#[test]
fn multi_valued_index_serves_list_in_filters() {
    let (_d, s) = open();
    let d: Arc<ResourceDef> = Arc::new(
        serde_json::from_value(json!({
            "name": "user", "label": "用户",
            "fields": [
                {"name": "account", "label": "a", "required": true},
                {"name": "deptId", "label": "d", "filter": true, "multi": true}
            ]
        }))
        .unwrap(),
    );
    let d2 = d.clone();
    let ids = s
        .write(move |w| {
            let mut ids = Vec::new();
            for (i, dept) in ["1", "2", "1,3", "3", "", "2,1"].iter().enumerate() {
                ids.push(w.insert(&d2, "A", doc(json!({"account": format!("u{i}"), "deptId": dept})), &Actor::default())?["id"].as_u64().unwrap());
            }
            Ok(ids)
        })
        .unwrap();
    let q = |vals: Value| Query { limit: 100, filters: vec![Filter::new("deptId", Op::ListIn, vals)], ..Default::default() };
    let accounts = |p: store::Page| p.records.iter().map(|r| r["account"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let page = s.read(|r| r.list(&d, "A", &q(json!([1])))).unwrap();
    assert_eq!(accounts(page.clone()), ["u5", "u2", "u0"], "each once, newest first");
    assert_eq!(page.total, 3);
    let page = s.read(|r| r.list(&d, "A", &q(json!(["3", 2])))).unwrap();
    assert_eq!(accounts(page), ["u5", "u3", "u2", "u1"]);
    // Updating the list moves its index entries; removing drops them.
    let d2 = d.clone();
    let u0 = ids[0];
    s.write(move |w| w.update(&d2, "A", u0, doc(json!({"deptId": "3"})), &Actor::default())).unwrap();
    assert_eq!(accounts(s.read(|r| r.list(&d, "A", &q(json!([1])))).unwrap()), ["u5", "u2"]);
    let d2 = d.clone();
    let u5 = ids[5];
    s.write(move |w| w.remove(&d2, "A", &[u5], &Actor::default())).unwrap();
    let page = s.read(|r| r.list(&d, "A", &q(json!([1, 2])))).unwrap();
    assert_eq!((accounts(page.clone()), page.total), (vec!["u2".to_string(), "u1".to_string()], 2));
    let out = _d.path().join("v.redb");
    assert!(s.backup_to(&out, &|n: &str| (n == "param").then(def)).unwrap().ok);
}

/// Lists answered from the indexes alone (exact filters, a guard, id order) give the same page and total as
/// filtering every record, including users in several departments that match a filter and a guard through
/// different departments, and fall back to the general walk for anything else.
#[test]
fn index_only_lists_agree_with_filtering_every_record() {
    let (_d, s) = open();
    let d: Arc<ResourceDef> = Arc::new(
        serde_json::from_value(json!({
            "name": "user", "label": "用户",
            "fields": [
                {"name": "account", "label": "a", "required": true, "filter": true},
                {"name": "deptId", "label": "d", "filter": true, "multi": true},
                {"name": "userType", "kind": "int", "label": "t", "filter": true},
                {"name": "startTime", "kind": "date", "label": "s", "filter": true}
            ]
        }))
        .unwrap(),
    );
    // Deterministic pseudo-random data: 1–3 departments of 0..12 per user, some with none.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    // Start dates: days, times of day, or none.
    let rows: Vec<(String, i64, Value)> = (0..400)
        .map(|_| {
            let n = next(4);
            let depts: Vec<String> = (0..n).map(|_| next(12).to_string()).collect();
            let day = format!("2025-03-{:02}", 1 + next(9));
            let start = match next(3) {
                0 => Value::Null,
                1 => json!(day),
                _ => json!(format!("{day} {:02}:00:00", next(24))),
            };
            (depts.join(","), next(3) as i64, start)
        })
        .collect();
    let d2 = d.clone();
    s.write(move |w| {
        for (i, (dept, ty, start)) in rows.iter().enumerate() {
            w.insert(&d2, "A", doc(json!({"account": format!("u{i:03}"), "deptId": dept, "userType": ty, "startTime": start})), &Actor::default())?;
        }
        Ok(())
    })
    .unwrap();
    let all = s.read(|r| r.all(&d, "A")).unwrap();
    let ids = |v: &[u64]| json!(v);
    let queries: Vec<Query> = vec![
        Query { filters: vec![Filter::new("deptId", Op::ListIn, ids(&[1, 2]))], ..Default::default() },
        Query { filters: vec![Filter::new("deptId", Op::ListIn, ids(&[1, 2]))], any: vec![Filter::new("deptId", Op::ListIn, ids(&[1, 2, 3, 4]))], ..Default::default() },
        Query { filters: vec![Filter::new("deptId", Op::ListIn, ids(&[1, 5, 6]))], any: vec![Filter::new("deptId", Op::ListIn, ids(&[5, 7]))], ..Default::default() },
        Query { filters: vec![Filter::new("deptId", Op::ListIn, ids(&[3])), Filter::new("userType", Op::Equal, json!(1))], ..Default::default() },
        Query { filters: vec![Filter::new("userType", Op::In, json!([0, 2]))], any: vec![Filter::new("deptId", Op::ListIn, ids(&[8])), Filter::new("deptId", Op::ListIn, ids(&[9]))], ..Default::default() },
        Query { filters: vec![Filter::new("deptId", Op::ListIn, ids(&[]))], ..Default::default() },
        Query { filters: vec![Filter::new("deptId", Op::ListIn, ids(&[4]))], sorts: vec![Sort { field: "id".into(), desc: false }], ..Default::default() },
        // Ranges: alone, two ends on one field, with a value of another field, of integers.
        Query { filters: vec![Filter::new("startTime", Op::Ge, json!("2025-03-04"))], ..Default::default() },
        Query { filters: vec![Filter::new("startTime", Op::Ge, json!("2025-03-03")), Filter::new("startTime", Op::Le, json!("2025-03-05 23:59:59")), Filter::new("userType", Op::Equal, json!(2))], ..Default::default() },
        Query { filters: vec![Filter::new("startTime", Op::Gt, json!("2025-03-03")), Filter::new("startTime", Op::Lt, json!("2025-03-06")), Filter::new("startTime", Op::Gt, json!("2025-03-03 12:00:00"))], ..Default::default() },
        Query { filters: vec![Filter::new("startTime", Op::Le, json!("2025-03-02")), Filter::new("deptId", Op::ListIn, ids(&[3, 4]))], ..Default::default() },
        Query { filters: vec![Filter::new("userType", Op::Ge, json!(1)), Filter::new("userType", Op::Lt, json!(2))], sorts: vec![Sort { field: "id".into(), desc: false }], ..Default::default() },
        Query { filters: vec![Filter::new("startTime", Op::Gt, json!("2025-03-09 23:59:59"))], ..Default::default() },
        // Not index-exact: a guard over another field, a contains filter; the general walk answers.
        Query { filters: vec![Filter::new("deptId", Op::ListIn, ids(&[4]))], any: vec![Filter::new("userType", Op::Equal, json!(1)), Filter::new("deptId", Op::ListIn, ids(&[2]))], ..Default::default() },
        Query { filters: vec![Filter::new("account", Op::Contains, json!("u1")), Filter::new("deptId", Op::ListIn, ids(&[4]))], ..Default::default() },
    ];
    for (i, q) in queries.into_iter().enumerate() {
        let mut want: Vec<&Map<String, Value>> = all.iter().filter(|r| q.accepts(r)).collect();
        let asc = q.sorts.first().is_some_and(|s| !s.desc);
        want.sort_by_key(|r| r["id"].as_u64().unwrap());
        if !asc {
            want.reverse();
        }
        for (offset, limit) in [(0u64, 10u64), (10, 10), (0, 1000)] {
            let q = Query { offset, limit, ..q.clone() };
            let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
            let got: Vec<u64> = page.records.iter().map(|r| r["id"].as_u64().unwrap()).collect();
            let exp: Vec<u64> = want.iter().skip(offset as usize).take(limit as usize).map(|r| r["id"].as_u64().unwrap()).collect();
            assert_eq!(page.total, want.len() as u64, "query {i}: total");
            assert_eq!(got, exp, "query {i} offset {offset}: page");
        }
    }
    // An exact filter with a sort on another field (answered from the filter's few candidates, sorted in memory):
    // the same rows and total as the walk, in the sort's order, pages that do not overlap.
    for (f, desc) in [(Filter::new("userType", Op::Equal, json!(1)), true), (Filter::new("deptId", Op::ListIn, ids(&[4])), false)] {
        let want: Vec<u64> = {
            let mut w: Vec<&Map<String, Value>> = all.iter().filter(|r| f.matches(r)).collect();
            w.sort_by_key(|r| r["id"].as_u64().unwrap());
            w.iter().map(|r| r["id"].as_u64().unwrap()).collect()
        };
        let mut seen = Vec::new();
        let mut last: Option<String> = None;
        for offset in (0..want.len() as u64 + 10).step_by(10) {
            let q = Query { filters: vec![f.clone()], sorts: vec![Sort { field: "startTime".into(), desc }], offset, limit: 10, ..Default::default() };
            let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
            assert_eq!(page.total, want.len() as u64);
            for r in &page.records {
                let v = r.get("startTime").and_then(Value::as_str).unwrap_or("").to_string();
                if let Some(l) = &last {
                    assert!(if desc { *l >= v } else { *l <= v }, "sorted: {l} then {v}");
                }
                last = Some(v);
                seen.push(r["id"].as_u64().unwrap());
            }
        }
        seen.sort_unstable();
        assert_eq!(seen, want, "every row once");
    }
}

#[test]
fn lazy_writes_are_visible_at_once_and_reach_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let d = def();
    {
        let s = Store::open(&path, &Options::default()).unwrap();
        let d2 = d.clone();
        s.write_lazy(1, move |w| w.insert(&d2, "A", doc(json!({"paramName": "日志", "paramKey": "lazy1"})), &Actor { user_id: 1, dept_id: 0, at: None }))
            .unwrap();
        assert_eq!(s.read(|r| r.list(&d, "A", &Query { limit: 10, ..Default::default() })).unwrap().total, 1);
        // A durable write after it carries it to disk; so does the idle flush and closing.
        let d2 = d.clone();
        s.write_lazy(1000, move |w| w.insert(&d2, "A", doc(json!({"paramName": "日志", "paramKey": "lazy2"})), &Actor { user_id: 1, dept_id: 0, at: None }))
            .unwrap();
        // A light lazy write rides along with a durable one that comes while it waits; both are answered.
        let (d2, d3) = (d.clone(), d.clone());
        let s2 = s.clone();
        let t = std::thread::spawn(move || {
            s2.write_lazy(1, move |w| w.insert(&d2, "A", doc(json!({"paramName": "日志", "paramKey": "ride"})), &Actor { user_id: 1, dept_id: 0, at: None }))
        });
        s.write(move |w| w.insert(&d3, "A", doc(json!({"paramName": "数据", "paramKey": "durable"})), &Actor { user_id: 1, dept_id: 0, at: None }))
            .unwrap();
        t.join().unwrap().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(800));
        let d2 = d.clone();
        s.write_lazy(1, move |w| w.insert(&d2, "A", doc(json!({"paramName": "日志", "paramKey": "lazy3"})), &Actor { user_id: 1, dept_id: 0, at: None }))
            .unwrap();
        s.close();
    }
    assert!(store::verify_file(&path).unwrap().ok);
    let s = Store::open(&path, &Options::default()).unwrap();
    assert_eq!(s.read(|r| r.list(&d, "A", &Query { limit: 10, ..Default::default() })).unwrap().total, 5);
}

#[test]
fn walks_stop_at_their_deadline_or_when_cancelled() {
    let (_d, s) = open();
    seed(&s, "A", 2_000);
    let d = def();
    let contains = Query { limit: 20, filters: vec![Filter::new("paramName", Op::Contains, json!("名称"))], ..Default::default() };
    assert!(store::walks(&d, &contains), "a contains filter walks");
    assert!(!store::walks(&d, &Query { limit: 20, ..Default::default() }), "an unfiltered first page does not");
    let exact = Query { limit: 20, filters: vec![Filter::new("paramKey", Op::Equal, json!("k0001"))], ..Default::default() };
    assert!(!store::walks(&d, &exact), "an exact filter on an indexed field is answered from the index");
    let ranged = |filters: Vec<Filter>| Query { limit: 20, filters, ..Default::default() };
    let from = || Filter::new("createTime", Op::Ge, json!(1_740_000_000_000i64));
    assert!(!store::walks(&d, &ranged(vec![from(), Filter::new("n", Op::Lt, json!(30)), Filter::new("paramKey", Op::Equal, json!("k0001"))])), "ranges beside an exact value come from kept id sets");
    assert!(store::walks(&d, &ranged(vec![from(), Filter::new("paramKey", Op::In, json!(["k0001", "k0002"]))])), "a range beside several values reads the range as a walk");
    assert!(store::walks(&d, &ranged(vec![Filter::new("paramValue", Op::Ge, json!(3))])), "a range over a field without an index walks");
    // A range's id set is made within the request's budget, as a walk is.
    let q = Query { budget: cancelled(), ..ranged(vec![Filter::new("n", Op::Ge, json!(0))]) };
    assert!(matches!(s.read(|r| r.list(&d, "A", &q)), Err(StoreError::Interrupted(store::Interrupt::Cancelled))));
    let q = Query { budget: store::Budget::default(), ..q };
    assert_eq!(s.read(|r| r.list(&d, "A", &q)).unwrap().total, 2_000);
    let q = Query { budget: cancelled(), ..q };
    assert_eq!(s.read(|r| r.list(&d, "A", &q)).unwrap().total, 2_000, "made once, the set is kept");
    assert_eq!(s.read(|r| r.list(&d, "A", &contains)).unwrap().total, 2_000, "no budget: walks to the end");

    let flag = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let q = Query { budget: store::Budget { cancel: Some(flag), deadline: None }, ..contains.clone() };
    assert!(matches!(s.read(|r| r.list(&d, "A", &q)), Err(StoreError::Interrupted(store::Interrupt::Cancelled))));
    let q = Query { budget: store::Budget { cancel: None, deadline: Some(std::time::Instant::now()) }, ..contains.clone() };
    assert!(matches!(s.read(|r| r.list(&d, "A", &q)), Err(StoreError::Interrupted(store::Interrupt::Deadline))));
    let later = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let q = Query { budget: store::Budget { cancel: None, deadline: Some(later) }, ..contains };
    assert_eq!(s.read(|r| r.list(&d, "A", &q)).unwrap().total, 2_000, "a walk within its budget answers");
}

#[test]
fn contains_matches_like_sql_like_with_or_without_the_raw_prefilter() {
    let (_d, s) = open();
    let d = def();
    let d2 = d.clone();
    s.write(move |w| {
        for (name, key) in [("订单超时时间", "a1"), ("超时", "a2"), ("Order TIMEOUT 30", "a3"), ("引号\"超时\"", "a4"), ("其他", "超时key")] {
            w.insert(&d2, "A", doc(json!({"paramName": name, "paramKey": key})), &Actor { user_id: 1, dept_id: 0, at: None })?;
        }
        Ok(())
    })
    .unwrap();
    let count = |v: &str| {
        let q = Query { limit: 100, filters: vec![Filter::new("paramName", Op::Contains, json!(v))], ..Default::default() };
        s.read(|r| r.list(&d, "A", &q)).unwrap().total
    };
    assert_eq!(count("超时"), 3, "the key holding 超时 is in the raw bytes but is not the filtered field");
    assert_eq!(count("timeout"), 1, "letters match case-insensitively");
    assert_eq!(count("\"超时\""), 1, "a needle with quotes is checked on the decoded value");
    assert_eq!(count(" 30"), 1);
    assert_eq!(count("不存在"), 0);
}

/// Records of a `packed` resource (the server's logs) are stored compressed and read like any other: lists by an
/// index and by a walk with a `contains` filter (whose prefilter looks into stored bytes), a record's fields alone,
/// an edit, verify; and they take far fewer bytes than the same records unpacked.
#[test]
fn packed_records_read_like_any_other_and_take_less_room() {
    let dir = tempfile::tempdir().unwrap();
    // Made in format 3 (logs packed in record format 2, other records in format 1), then upgraded below.
    let s = Store::open(&dir.path().join("t.redb"), &Options { format: 3, ..Options::default() }).unwrap();
    let mk = |name: &str, packed: bool| -> Arc<ResourceDef> {
        Arc::new(serde_json::from_value(json!({
            "name": name, "label": "日志", "appendOnly": true, "packed": packed,
            "fields": [{"name": "method", "label": "m", "filter": true}, {"name": "requestUri", "label": "u", "filter": true},
                       {"name": "userAgent", "label": "a"}, {"name": "serviceId", "label": "s"}]
        })).unwrap())
    };
    let (packed, plain) = (mk("log_p", true), mk("log_q", false));
    let fill = |s: &Store| for d in [&packed, &plain] {
        let d2 = d.clone();
        s.write(move |w| {
            for i in 0..300 {
                let uri = if i % 3 == 0 { "/api/blade-system/param/submit".to_string() } else { format!("/api/blade-wms/超时/{i}") };
                w.insert(&d2, "A", doc(json!({"method": if i % 2 == 0 { "GET" } else { "POST" }, "requestUri": uri,
                    "userAgent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
                    "serviceId": "zhizhuang"})), &Actor { user_id: 7, dept_id: 3, at: None })?;
            }
            Ok(())
        })
        .unwrap();
    };
    fill(&s);
    let list = |s: &Store, d: &ResourceDef, f: Vec<Filter>| s.read(|r| r.list(d, "A", &Query { limit: 1000, filters: f, ..Default::default() })).unwrap();
    let ids = |p: &store::Page| -> Vec<String> {
        let mut v: Vec<String> = p.records.iter().cloned().chain(p.rows.iter().map(|r| store::decode_record(r).unwrap())).map(|m| m["requestUri"].to_string()).collect();
        v.sort();
        v
    };
    let same = |s: &Store| for f in [
        vec![],
        vec![Filter::new("method", Op::Equal, json!("GET"))],
        vec![Filter::new("requestUri", Op::Contains, json!("超时"))],
        vec![Filter::new("requestUri", Op::Contains, json!("submit")), Filter::new("method", Op::Equal, json!("POST"))],
    ] {
        let (a, b) = (list(s, &packed, f.clone()), list(s, &plain, f.clone()));
        assert_eq!(a.total, b.total, "{f:?}");
        assert_eq!(ids(&a), ids(&b), "{f:?}");
        let q = Query { limit: 1000, filters: f.clone(), raw_rows: true, ..Default::default() };
        let (a, b) = (s.read(|r| r.list(&packed, "A", &q)).unwrap(), s.read(|r| r.list(&plain, "A", &q)).unwrap());
        assert_eq!(ids(&a), ids(&b), "raw rows {f:?}");
    };
    same(&s);
    assert_eq!(list(&s, &packed, vec![Filter::new("requestUri", Op::Contains, json!("超时"))]).total, 200);
    let all = s.read(|r| r.all(&packed, "A")).unwrap();
    let id: u64 = all[5]["id"].as_u64().unwrap_or_else(|| all[5]["id"].as_str().unwrap().parse().unwrap());
    let some = s.read(|r| r.get_fields(&packed, "A", id, &["method", "serviceId"])).unwrap().unwrap();
    assert_eq!(some["serviceId"], json!("zhizhuang"));
    assert_eq!(some.len(), 2);
    let d2 = packed.clone();
    s.write(move |w| w.update(&d2, "A", id, doc(json!({"method": "PUT"})), &Actor { user_id: 7, dept_id: 3, at: None })).unwrap();
    assert_eq!(s.read(|r| r.get(&packed, "A", id)).unwrap().unwrap()["method"], json!("PUT"));
    assert_eq!(list(&s, &packed, vec![Filter::new("method", Op::Equal, json!("PUT"))]).total, 1);
    s.close();
    let file = dir.path().join("t.redb");
    let report = store::verify_file(&file).unwrap();
    assert!(report.ok, "{:?}", report.problems);
    assert_eq!(report.schema_version, 3, "a file is made in the format its opener asks");
    assert_eq!(formats_of(&file, "log_p"), BTreeMap::from([(2, 300)]));
    assert_eq!(formats_of(&file, "log_q"), BTreeMap::from([(1, 300)]));
    // Opened in the newest format: copied aside first; the other records it held in format 1 are packed against
    // the data dictionary, new log entries against the second one; every format reads alike.
    let s = Store::open(&file, &Options { format: store::SCHEMA_VERSION, ..Options::default() }).unwrap();
    assert!(s.upgraded().is_some_and(|p| p.exists()), "the copy kept before the upgrade");
    assert_eq!(s.format().unwrap().0, store::SCHEMA_VERSION);
    same(&s);
    fill(&s);
    same(&s);
    assert_eq!(list(&s, &packed, vec![Filter::new("requestUri", Op::Contains, json!("超时"))]).total, 400);
    assert_eq!(s.read(|r| r.get(&packed, "A", id)).unwrap().unwrap()["method"], json!("PUT"), "an entry of the older format");
    s.close();
    // The records the file held in format 1 were packed by the upgrade; each log entry stays in its format.
    assert_eq!(formats_of(&file, "log_p"), BTreeMap::from([(2, 300), (3, 300)]));
    assert_eq!(formats_of(&file, "log_q"), BTreeMap::from([(4, 600)]));
    // Opened again the base way (`compact`, `verify`), it stays in the newer format it holds.
    let s = Store::open(&file, &Options::default()).unwrap();
    assert!(s.upgraded().is_none());
    assert_eq!(s.format().unwrap().0, store::SCHEMA_VERSION);
    same(&s);
    s.close();
    let report = store::verify_file(&file).unwrap();
    assert!(report.ok, "{:?}", report.problems);
    // A stamp lowered under records of the data dictionary's format is a problem `verify` names.
    let s = Store::open(&file, &Options::default()).unwrap();
    s.write(|w| w.put_meta("schema_version", &4u32.to_be_bytes())).unwrap();
    s.close();
    let report = store::verify_file(&file).unwrap();
    assert!(!report.ok && report.problems.iter().any(|p| p.contains("600 records are in record format 4")), "{:?}", report.problems);
}

/// The upgrade to format 5 packs the records a file holds, in batches; one a crash interrupted (its stamp
/// committed, the packing not done) is finished by the next start, which restarts the replica's stream too.
#[test]
fn records_are_packed_by_the_upgrade_and_an_interrupted_packing_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.redb");
    let d = def();
    let s = Store::open(&file, &Options { format: 4, ..Options::default() }).unwrap();
    let d2 = d.clone();
    // A catalogue declared `plain` (read in bulk by a picker) is left unpacked.
    let mut catalogue = (*d).clone();
    catalogue.name = "catalogue".into();
    catalogue.plain = true;
    let catalogue = Arc::new(catalogue);
    let c2 = catalogue.clone();
    s.write(move |w| {
        for i in 0..25_000 {
            w.insert(&d2, "A", doc(json!({"paramName": format!("名称{}", i % 97), "paramKey": format!("k{i}")})), &Actor::default())?;
        }
        for i in 0..30 {
            w.insert(&c2, "A", doc(json!({"paramName": "产品", "paramKey": format!("c{i}")})), &Actor::default())?;
        }
        Ok(())
    })
    .unwrap();
    // As a crash would leave it: stamped 5 with the packing pending, its records still in format 1.
    s.write(|w| {
        w.put_meta("schema_version", &5u32.to_be_bytes())?;
        w.put_meta("pack_pending", &[1])
    })
    .unwrap();
    s.close();
    assert_eq!(formats_of(&file, "param"), BTreeMap::from([(1, 25_000)]));
    // An offline command (which opens in the required format only) leaves it to the server.
    Store::open(&file, &Options { format: store::REQUIRED_FORMAT, ..Options::default() }).unwrap().close();
    assert_eq!(formats_of(&file, "param"), BTreeMap::from([(1, 25_000)]));
    let s = Store::open(&file, &Options { plain: vec!["catalogue".into()], ..Options::default() }).unwrap();
    assert!(s.broke_stream(), "records rewritten outside the log: the replica's stream starts again");
    assert!(s.read(|r| r.meta("pack_pending")).unwrap().is_none());
    let q = Query { limit: 3, sorts: vec![Sort { field: "paramKey".into(), desc: true }], ..Default::default() };
    let top: Vec<String> = s.read(|r| r.list(&d, "A", &q)).unwrap().records.iter().map(|r| r["paramKey"].as_str().unwrap().to_string()).collect();
    assert_eq!(top, ["k9999", "k9998", "k9997"]);
    s.close();
    assert_eq!(formats_of(&file, "param"), BTreeMap::from([(4, 25_000)]), "both batches packed");
    assert_eq!(formats_of(&file, "catalogue"), BTreeMap::from([(1, 30)]), "a plain resource's records stay unpacked");
    assert!(store::verify_file(&file).unwrap().ok);
    // Packed and done: the next start has nothing to do.
    let s = Store::open(&file, &Options::default()).unwrap();
    assert!(!s.broke_stream());
    s.close();
}

/// A file whose catalogue an earlier binary packed (it packed every resource), or a resource declared `plain`
/// since, has its records unpacked by the next server start, every tenant's, live and deleted, in batches; the
/// start restarts the replica's stream, the next has nothing to do, and an interrupted pass goes on.
#[test]
fn resources_declared_plain_are_unpacked_once_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.redb");
    let mut catalogue = (*def()).clone();
    catalogue.name = "catalogue".into();
    let packed = Arc::new(catalogue.clone());
    catalogue.plain = true;
    let plain = Arc::new(catalogue);
    let other = def();
    // Written by an opener that declares nothing plain: every record packed.
    let s = Store::open(&file, &Options::default()).unwrap();
    let (p2, o2) = (packed.clone(), other.clone());
    s.write(move |w| {
        // Tenant names that are prefixes of one another; one tenant's records span two batches.
        for t in ["A", "AB", "C"] {
            for i in 0..25_000 / if t == "AB" { 1 } else { 100 } {
                w.insert(&p2, t, doc(json!({"paramName": "产品", "paramKey": format!("{t}{i}")})), &Actor::default())?;
            }
            w.insert(&o2, t, doc(json!({"paramName": "参数", "paramKey": format!("{t}")})), &Actor::default())?;
        }
        Ok(())
    })
    .unwrap();
    let gone: Vec<u64> = s.read(|r| r.all(&packed, "C")).unwrap().iter().take(5).map(|m| m["id"].as_u64().unwrap()).collect();
    let p2 = packed.clone();
    s.write(move |w| w.remove(&p2, "C", &gone, &Actor::default())).unwrap();
    let before: Vec<_> = ["A", "AB", "C"].iter().map(|t| s.read(|r| r.all(&packed, t)).unwrap()).collect();
    s.close();
    assert_eq!(formats_in(&file, "records", "catalogue"), BTreeMap::from([(4, 25_000 + 500 - 5)]));
    assert_eq!(formats_in(&file, "records_deleted", "catalogue"), BTreeMap::from([(4, 5)]));
    // An opener that names no plain resources (an offline command) leaves them.
    Store::open(&file, &Options::default()).unwrap().close();
    assert_eq!(formats_in(&file, "records", "catalogue"), BTreeMap::from([(4, 25_000 + 500 - 5)]));
    // As a packing an earlier binary began and a crash interrupted leaves it: the next start finishes the packing
    // (which leaves plain resources alone) and must still unpack what the earlier one packed.
    let s = Store::open(&file, &Options::default()).unwrap();
    s.write(|w| w.put_meta("pack_pending", &[1])).unwrap();
    s.close();
    let opts = Options { plain: vec!["catalogue".into()], ..Options::default() };
    let s = Store::open(&file, &opts).unwrap();
    assert!(s.broke_stream(), "records rewritten outside the log: the replica's stream starts again");
    assert!(s.read(|r| r.meta("pack_pending")).unwrap().is_none());
    for (t, want) in ["A", "AB", "C"].iter().zip(&before) {
        assert_eq!(&s.read(|r| r.all(&plain, t)).unwrap(), want, "tenant {t} reads as before");
    }
    s.close();
    assert_eq!(formats_in(&file, "records", "catalogue"), BTreeMap::from([(1, 25_000 + 500 - 5)]));
    assert_eq!(formats_in(&file, "records_deleted", "catalogue"), BTreeMap::from([(1, 5)]));
    assert_eq!(formats_in(&file, "records", "param"), BTreeMap::from([(4, 3)]), "other resources stay packed");
    assert!(store::verify_file(&file).unwrap().ok);
    // Done: the next start has nothing to do.
    let s = Store::open(&file, &opts).unwrap();
    assert!(!s.broke_stream());
    // As a crash in the middle of the pass would leave it.
    s.write(|w| w.put_meta("unpack_pending", &[1])).unwrap();
    s.close();
    let s = Store::open(&file, &opts).unwrap();
    assert!(s.broke_stream(), "an interrupted pass changed the file's history too");
    assert!(s.read(|r| r.meta("unpack_pending")).unwrap().is_none());
    s.close();
    // A new file records its plain resources at once: its first restart has nothing to do.
    let fresh = dir.path().join("u.redb");
    Store::open(&fresh, &opts).unwrap().close();
    assert!(!Store::open(&fresh, &opts).unwrap().broke_stream());
}

/// Without room for the copy and the packing, a data file of format 3 stays as it is (not moved to 4 on the way,
/// which older binaries would refuse for nothing), keeps writing format-1 records, and is upgraded by a start with
/// room.
#[test]
fn a_data_file_waits_for_room_to_be_packed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.redb");
    let d = def();
    let add = |s: &Store, from: usize| {
        let d = d.clone();
        s.write(move |w| {
            for i in from..from + 10 {
                w.insert(&d, "A", doc(json!({"paramName": "名称", "paramKey": format!("k{i}")})), &Actor::default())?;
            }
            Ok(())
        })
        .unwrap();
    };
    let s = Store::open(&file, &Options { format: store::REQUIRED_FORMAT, ..Options::default() }).unwrap();
    add(&s, 0);
    s.close();
    let s = Store::open(&file, &Options { fs: Arc::new(NoRoom), ..Options::default() }).unwrap();
    assert!(s.upgrade_deferred().is_some_and(|w| w.contains("no room")), "{:?}", s.upgrade_deferred());
    assert_eq!(s.format().unwrap().0, store::REQUIRED_FORMAT);
    add(&s, 10);
    s.close();
    assert_eq!(formats_of(&file, "param"), BTreeMap::from([(1, 20)]));
    let s = Store::open(&file, &Options::default()).unwrap();
    assert!(s.upgraded().is_some() && s.upgrade_deferred().is_none());
    assert_eq!(s.format().unwrap().0, store::BASE_FORMAT);
    s.close();
    assert_eq!(formats_of(&file, "param"), BTreeMap::from([(4, 20)]));
}

/// The record formats (their first byte) of a closed file's live records of `res`, counted.
fn formats_of(file: &std::path::Path, res: &str) -> BTreeMap<u8, usize> {
    formats_in(file, "records", res)
}

/// `formats_of` in the table named `table` (`records`, `records_deleted`).
fn formats_in(file: &std::path::Path, table: &str, res: &str) -> BTreeMap<u8, usize> {
    use redb::{ReadableDatabase, ReadableTable};
    let records: redb::TableDefinition<(&str, &str, u64), &[u8]> = redb::TableDefinition::new(table);
    let db = redb::ReadOnlyDatabase::open(file).unwrap();
    let r = db.begin_read().unwrap();
    let mut out = BTreeMap::new();
    for e in r.open_table(records).unwrap().iter().unwrap() {
        let (k, v) = e.unwrap();
        if k.value().1 == res {
            *out.entry(v.value()[0]).or_default() += 1;
        }
    }
    out
}

/// An online backup taken while writers change, add and remove records is exactly one moment of the store:
/// records changed together are together in the copy, and every copied record has its index entries and unique
/// keys (the copy is made in many short read transactions plus a final consistent pass).
#[test]
fn online_backup_is_one_consistent_moment_while_writers_run() {
    let (dir, s) = open();
    let d = def();
    const HALF: usize = 6_000;
    let d2 = d.clone();
    s.write(move |w| {
        for i in 0..2 * HALF {
            w.insert(&d2, "A", doc(json!({"paramName": format!("名称{}", i % 97), "paramKey": format!("k{i}"), "n": 0})), &Actor::default())?;
        }
        Ok(())
    })
    .unwrap();
    let ids: Vec<u64> = {
        let q = Query { limit: 100_000, sorts: vec![Sort { field: "paramKey".into(), desc: false }], ..Default::default() };
        let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
        let mut by_key: Vec<(usize, u64)> = page
            .records
            .iter()
            .map(|r| (r["paramKey"].as_str().unwrap()[1..].parse().unwrap(), r["id"].as_u64().unwrap()))
            .collect();
        by_key.sort();
        by_key.into_iter().map(|(_, id)| id).collect()
    };
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut writers = Vec::new();
    for w in 0..2u64 {
        let (s, d, ids, stop) = (s.clone(), d.clone(), ids.clone(), stop.clone());
        writers.push(std::thread::spawn(move || {
            let mut i = w as usize * 997;
            let mut pairs = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                i = (i * 31 + 7) % HALF;
                let (a, b, d2) = (ids[i], ids[i + HALF], d.clone());
                // Two records changed together: their n must be equal in any consistent copy.
                s.write(move |w| {
                    let n = w.get(&d2, "A", a)?.unwrap()["n"].as_i64().unwrap() + 1;
                    w.update(&d2, "A", a, doc(json!({"n": n, "paramName": format!("改{n}")})), &Actor::default())?;
                    w.update(&d2, "A", b, doc(json!({"n": n, "paramName": format!("改{n}")})), &Actor::default())?;
                    Ok(())
                })
                .unwrap();
                // Pairs inserted together, and every third pair removed together.
                let d2 = d.clone();
                pairs += 1;
                let tag = format!("p{w}.{pairs}");
                let made = s
                    .write(move |w| {
                        let x = w.insert(&d2, "A", doc(json!({"paramName": "对", "paramKey": format!("{tag}a"), "n": -1})), &Actor::default())?;
                        let y = w.insert(&d2, "A", doc(json!({"paramName": "对", "paramKey": format!("{tag}b"), "n": -1})), &Actor::default())?;
                        Ok((x["id"].as_u64().unwrap(), y["id"].as_u64().unwrap()))
                    })
                    .unwrap();
                if pairs.is_multiple_of(3) {
                    let d2 = d.clone();
                    s.write(move |w| w.remove(&d2, "A", &[made.0, made.1], &Actor::default())).unwrap();
                }
            }
        }));
    }
    std::thread::sleep(std::time::Duration::from_millis(50));
    let out = dir.path().join("online.redb");
    let d3 = d.clone();
    let report = s.backup_to(&out, &move |n: &str| (n == "param").then(|| d3.clone())).unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    assert!(report.ok, "{:?}", report.problems);

    let copy = Store::open(&out, &Options::default()).unwrap();
    let all = copy.read(|r| r.all(&d, "A")).unwrap();
    let by_key: std::collections::HashMap<String, i64> =
        all.iter().map(|r| (r["paramKey"].as_str().unwrap().to_string(), r["n"].as_i64().unwrap())).collect();
    let mut changed = 0;
    for i in 0..HALF {
        let (a, b) = (by_key[&format!("k{i}")], by_key[&format!("k{}", i + HALF)]);
        assert_eq!(a, b, "k{i} and its partner were changed together");
        changed += (a > 0) as usize;
    }
    assert!(changed > 0, "writers ran during the backup");
    for (k, _) in by_key.iter().filter(|(k, _)| k.starts_with('p')) {
        let partner = if k.ends_with('a') { k.replace('a', "b") } else { k.replace('b', "a") };
        assert!(by_key.contains_key(&partner), "{k} without its partner");
    }
    // Every record has its unique key and its index entries, and nothing else is indexed.
    for r in &all {
        let id = r["id"].as_u64().unwrap();
        assert_eq!(copy.read(|x| x.find_unique(&d, "A", "paramKey", r["paramKey"].as_str().unwrap())).unwrap(), Some(id));
    }
    let rows = |name: &str| report.tables.iter().find(|t| t.name == name).unwrap().rows;
    assert_eq!(rows("UNIQUE") as usize, all.len());
    let per_record = d.indexed_fields().count();
    assert_eq!(rows("INDEX") as usize, all.len() * per_record);
    for name in ["名称5", "改3", "对"] {
        let q = Query { limit: 100_000, filters: vec![Filter::new("paramName", Op::Equal, json!(name))], ..Default::default() };
        let indexed = copy.read(|r| r.list(&d, "A", &q)).unwrap().total;
        assert_eq!(indexed as usize, all.iter().filter(|r| r["paramName"] == name).count(), "index answers for {name}");
    }
}

#[test]
fn reconcile_index_follows_a_changed_declaration() {
    let (_d, s) = open();
    seed(&s, "A", 300);
    seed(&s, "B", 5);
    // The next version no longer indexes `n` (scattered values) and indexes a field it did not before.
    let mut next: ResourceDef = (*def()).clone();
    next.fields.iter_mut().find(|f| f.name == "n").unwrap().index = Some(false);
    next.fields.push(serde_json::from_value(json!({"name": "remark", "label": "r", "filter": true})).unwrap());
    let next = Arc::new(next);
    let n2 = next.clone();
    let (removed, added) = s.write(move |w| w.reconcile_index(&n2)).unwrap();
    assert_eq!((removed, added), (305, 305), "one entry per record out for `n`, one in for `remark`");
    let n2 = next.clone();
    assert_eq!(s.write(move |w| w.reconcile_index(&n2)).unwrap(), (0, 0), "a second run finds nothing to do");
    // Lists still answer exactly: a sort over the unindexed field sorts in memory, an equal filter on the new
    // index finds the records (all null remarks), and writes keep the new layout.
    let q = Query { limit: 3, sorts: vec![store::Sort { field: "n".into(), desc: true }], ..Default::default() };
    let page = s.read(|r| r.list(&next, "A", &q)).unwrap();
    assert_eq!(page.total, 300);
    assert_eq!(page.records.iter().map(|r| r["n"].as_i64().unwrap()).collect::<Vec<_>>(), vec![299, 298, 297]);
    let n2 = next.clone();
    s.write(move |w| w.insert(&n2, "A", doc(json!({"paramName": "新", "paramKey": "new1", "n": 1000, "remark": "备注"})), &Actor { user_id: 7, dept_id: 3, at: None }))
        .unwrap();
    let q = Query { limit: 10, filters: vec![Filter::new("remark", Op::Equal, json!("备注"))], ..Default::default() };
    assert_eq!(s.read(|r| r.list(&next, "A", &q)).unwrap().total, 1);
    let q = Query { limit: 1, sorts: vec![store::Sort { field: "n".into(), desc: true }], ..Default::default() };
    assert_eq!(s.read(|r| r.list(&next, "A", &q)).unwrap().records[0]["n"], 1000);
}

/// Short index keys declared for a filled file (`indexKeys`, as the logs got them): the entries move in batches,
/// nothing is left for the reconcile to remove or add, and every kind of list answers as before; a bad declaration
/// is refused.
#[test]
fn declared_index_keys_move_the_entries_of_a_filled_file() {
    let (_d, s) = open();
    seed(&s, "A", 300);
    seed(&s, "B", 5);
    let old = def();
    let mut next: ResourceDef = (*old).clone();
    next.index_keys = [("paramName", "pn"), ("paramKey", "pk"), ("n", "x"), ("createTime", "c")].into_iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    next.check().unwrap();
    let next = Arc::new(next);
    let queries = vec![
        Query { limit: 10, filters: vec![Filter::new("paramName", Op::Equal, json!("名称003"))], ..Default::default() },
        Query { limit: 10, offset: 150, sorts: vec![Sort { field: "paramKey".into(), desc: true }], ..Default::default() },
        Query { limit: 10, filters: vec![Filter::new("n", Op::Ge, json!(100)), Filter::new("n", Op::Lt, json!(120))], ..Default::default() },
        Query { limit: 10, filters: vec![Filter::new("paramName", Op::Equal, json!("名称001")), Filter::new("n", Op::Gt, json!(200))], sorts: vec![Sort { field: "n".into(), desc: false }], ..Default::default() },
        Query { limit: 10, filters: vec![Filter::new("paramKey", Op::StartsWith, json!("K02"))], ..Default::default() },
    ];
    let answers = |d: &Arc<ResourceDef>| -> Vec<(u64, Vec<u64>)> {
        queries.iter().map(|q| {
            let p = s.read(|r| r.list(d, "A", q)).unwrap();
            (p.total, p.records.iter().map(|r| r["id"].as_u64().unwrap()).collect())
        }).collect()
    };
    let before = answers(&old);
    assert!(before.iter().all(|(total, _)| *total > 0), "{before:?}");
    // 305 records, four renamed fields: 1,220 entries, at most 50 a transaction.
    let (mut moved, mut batches) = (0, 0);
    loop {
        let n2 = next.clone();
        let n = s.write(move |w| w.rename_index_keys(&n2, 50)).unwrap();
        assert!(n <= 50);
        if n == 0 {
            break;
        }
        moved += n;
        batches += 1;
    }
    assert_eq!((moved, batches), (1220, 25));
    let n2 = next.clone();
    assert_eq!(s.write(move |w| w.reconcile_index(&n2)).unwrap(), (0, 0), "every entry is where the declaration wants it");
    assert_eq!(answers(&next), before);
    // Writes keep to the keys.
    let n2 = next.clone();
    let id = s.read(|r| r.find_unique(&n2, "A", "paramKey", "k0003")).unwrap().unwrap();
    s.write(move |w| w.update(&n2, "A", id, doc(json!({"paramName": "改名"})), &Actor::default()).map(|_| ())).unwrap();
    let q = Query { limit: 10, filters: vec![Filter::new("paramName", Op::Equal, json!("改名"))], ..Default::default() };
    assert_eq!(s.read(|r| r.list(&next, "A", &q)).unwrap().total, 1);
    let n2 = next.clone();
    assert_eq!(s.write(move |w| w.reconcile_index(&n2)).unwrap(), (0, 0));
    // A backup's index is made from the declarations it is given, so the recorded layout (the app's) is not
    // copied: whichever binary opens the copy brings the entries in line with its own declarations.
    s.write(|w| {
        w.put_meta(store::INDEX_LAYOUT, b"param:paramName=pn")?;
        w.put_meta("other", b"kept")
    })
    .unwrap();
    let out = _d.path().join("copy.redb");
    let n2 = next.clone();
    assert!(s.backup_to(&out, &move |n: &str| (n == "param").then(|| n2.clone())).unwrap().ok);
    let copy = Store::open(&out, &Options::default()).unwrap();
    assert_eq!(copy.read(|r| r.meta(store::INDEX_LAYOUT)).unwrap(), None);
    assert_eq!(copy.read(|r| r.meta("other")).unwrap().as_deref(), Some(&b"kept"[..]));
    let live = s.read(|r| r.list(&next, "A", &queries[0])).unwrap().total;
    assert_eq!(copy.read(|r| r.list(&next, "A", &queries[0])).unwrap().total, live);
    drop(copy);
    // Taken away again: the reconcile makes the entries anew under the names.
    let (removed, added) = s.write(move |w| w.reconcile_index(&old)).unwrap();
    assert_eq!((removed, added), (1220, 1220));
    for (keys, why) in [
        (vec![("remark", "r")], "no index entries"),
        (vec![("paramName", "n")], "another indexed field"),
        (vec![("paramName", "a"), ("paramKey", "a")], "another indexed field"),
        (vec![("paramName", "")], "1-16 bytes"),
        (vec![("paramName", "a\u{1}range")], "1-16 bytes"),
        (vec![("paramName", "paramName")], "1-16 bytes"),
    ] {
        let mut bad: ResourceDef = (*def()).clone();
        bad.index_keys = keys.into_iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        assert!(bad.check().unwrap_err().contains(why), "{why}");
    }
}

/// A newly indexed field some records already have entries of — records written with the new declaration before
/// the index was brought in line (an upgrade step, an offline tool) — is filled for every older record too, and
/// the filter on it finds them all.
#[test]
fn reconcile_index_fills_a_field_only_newer_records_have() {
    let (_d, s) = open();
    let with_remark = |indexed: bool| {
        let mut d: ResourceDef = (*def()).clone();
        d.fields.push(serde_json::from_value(json!({"name": "remark", "label": "r", "filter": true, "index": indexed})).unwrap());
        Arc::new(d)
    };
    let (old, next) = (with_remark(false), with_remark(true));
    let o = old.clone();
    s.write(move |w| {
        for i in 0..300 {
            w.insert(&o, "A", doc(json!({"paramName": "旧", "paramKey": format!("k{i}"), "n": i, "remark": "同"})), &Actor::default())?;
        }
        Ok(())
    })
    .unwrap();
    // The new version writes one record before its index is brought in line: `remark` now has an entry.
    let n2 = next.clone();
    s.write(move |w| w.insert(&n2, "A", doc(json!({"paramName": "新", "paramKey": "new", "n": 300, "remark": "同"})), &Actor::default()))
        .unwrap();
    let n2 = next.clone();
    assert_eq!(s.write(move |w| w.reconcile_index(&n2)).unwrap(), (0, 300), "the 300 older records get their entry");
    let n2 = next.clone();
    assert_eq!(s.write(move |w| w.reconcile_index(&n2)).unwrap(), (0, 0));
    let q = Query { limit: 10, filters: vec![Filter::new("remark", Op::Equal, json!("同"))], ..Default::default() };
    assert_eq!(s.read(|r| r.list(&next, "A", &q)).unwrap().total, 301);
}

/// Two exact filters, the first (in field order) common to every record and the second selective: the
/// selective one's few records are the candidates and the common one is checked on them, with the same rows,
/// order and total as filtering every record.
#[test]
fn a_selective_filter_beside_a_common_one_reads_only_its_own_candidates() {
    let (_d, s) = open();
    let d: Arc<ResourceDef> = Arc::new(
        serde_json::from_value(json!({
            "name": "task", "label": "任务",
            "fields": [
                {"name": "kind", "kind": "int", "label": "k", "filter": true},
                {"name": "owner", "kind": "int", "label": "o", "filter": true}
            ]
        }))
        .unwrap(),
    );
    let d2 = d.clone();
    s.write(move |w| {
        for i in 0..6_500i64 {
            w.insert(&d2, "A", doc(json!({"kind": if i % 1000 == 7 { 2 } else { 1 }, "owner": i % 1000})), &Actor::default())?;
        }
        Ok(())
    })
    .unwrap();
    let all = s.read(|r| r.all(&d, "A")).unwrap();
    for (kind, owner) in [(1, 3), (2, 7), (1, 7), (2, 3)] {
        let q = Query { filters: vec![Filter::new("kind", Op::Equal, json!(kind)), Filter::new("owner", Op::Equal, json!(owner))], limit: 4, ..Default::default() };
        let mut want: Vec<u64> = all.iter().filter(|r| q.accepts(r)).map(|r| r["id"].as_u64().unwrap()).collect();
        want.sort_unstable_by(|a, b| b.cmp(a));
        let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
        assert_eq!(page.total, want.len() as u64, "kind {kind} owner {owner}");
        let got: Vec<u64> = page.records.iter().map(|r| r["id"].as_u64().unwrap()).collect();
        assert_eq!(got, want.into_iter().take(4).collect::<Vec<_>>());
    }
}

#[test]
fn newest_by_pages_one_indexed_value_from_its_end_as_the_list_does() {
    let (_d, s) = open();
    seed(&s, "t1", 300);
    seed(&s, "t2", 50);
    let d = def();
    // Removed records leave the index: the page skips nothing that is gone and shows nothing removed.
    let d2 = d.clone();
    let gone: Vec<u64> = s.read(|r| Ok(r.all(&d2, "t1")?.iter().filter(|x| x["n"].as_i64().unwrap() % 49 == 0).map(|x| x["id"].as_u64().unwrap()).collect())).unwrap();
    let d3 = d.clone();
    s.write(move |w| w.remove(&d3, "t1", &gone, &Actor::default()).map(|_| ())).unwrap();
    for (offset, limit) in [(0, 10), (10, 10), (35, 20), (40, 5), (1000, 10)] {
        let q = Query {
            filters: vec![Filter::new("paramName", Op::Equal, json!("名称003"))],
            sorts: vec![Sort { field: "id".into(), desc: true }],
            offset,
            limit,
            ..Query::default()
        };
        let d4 = d.clone();
        let (want, got) = s
            .read(move |r| Ok((r.list(&d4, "t1", &q)?.records, r.newest_by(&d4, "t1", "paramName", &json!("名称003"), offset, limit)?.unwrap())))
            .unwrap();
        assert_eq!(got, want, "offset {offset} limit {limit}");
    }
    // Not an indexed field, or not an exact key: not answered.
    let d5 = d.clone();
    assert!(s.read(move |r| r.newest_by(&d5, "t1", "nosuch", &json!(1), 0, 10)).unwrap().is_none());
}

/// `Query::raw_rows` gives the same page as decoded records, as stored bytes, on every list path: the plain walk
/// (unfiltered and filtered), index ranges, a selective filter, sorts in memory and by index, offsets.
#[test]
fn raw_rows_are_the_decoded_page_as_stored() {
    let (_d, s) = open();
    seed(&s, "A", 300);
    let d = def();
    let eq = |f: &str, v: Value| Filter::new(f, Op::Equal, v);
    let sort = |f: &str, desc: bool| Sort { field: f.into(), desc };
    let queries = vec![
        Query { limit: 10, ..Default::default() },
        Query { limit: 20, offset: 290, ..Default::default() },
        Query { limit: 15, filters: vec![eq("paramName", json!("名称003"))], ..Default::default() },
        Query { limit: 15, filters: vec![Filter::new("paramName", Op::Contains, json!("称00"))], offset: 3, ..Default::default() },
        Query { limit: 15, filters: vec![Filter::new("n", Op::Ge, json!(200)), eq("paramName", json!("名称001"))], ..Default::default() },
        Query { limit: 7, sorts: vec![sort("paramKey", true)], offset: 11, ..Default::default() },
        Query { limit: 7, sorts: vec![sort("paramName", false), sort("n", true)], ..Default::default() },
        Query { limit: 9, filters: vec![eq("paramName", json!("名称005"))], sorts: vec![sort("n", false)], ..Default::default() },
        Query { limit: 9, filters: vec![eq("paramKey", json!("k0042"))], ..Default::default() },
        Query { limit: 5, filters: vec![eq("paramName", json!("无"))], ..Default::default() },
    ];
    for q in queries {
        let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
        let raw = s.read(|r| r.list(&d, "A", &Query { raw_rows: true, ..q.clone() })).unwrap();
        assert_eq!(raw.total, page.total, "{q:?}");
        assert!(raw.records.is_empty() && page.rows.is_empty(), "{q:?}");
        let decoded: Vec<Map<String, Value>> = raw.rows.iter().map(|r| store::decode_record(r).unwrap()).collect();
        assert_eq!(decoded, page.records, "{q:?}");
        for r in &raw.rows {
            let row = store::StoredRow::parse(r).expect("a stored row reads without decoding");
            assert_eq!(row.subset(&["paramName", "n"]).unwrap().len(), 2);
        }
    }
}

/// Counting the pages in use walks every table, so a recent measurement is reused (with the file's current length)
/// and a stale one measured again.
#[test]
fn space_is_measured_again_only_when_stale() {
    let (_d, s) = open();
    let first = s.space().unwrap();
    seed(&s, "000000", 300);
    let (cached, age) = s.space_within(std::time::Duration::from_secs(600)).unwrap();
    assert_eq!(cached.allocated_bytes, first.allocated_bytes, "a fresh measurement is reused");
    assert!(age < std::time::Duration::from_secs(600));
    assert_eq!(cached.file_bytes, std::fs::metadata(s.path()).unwrap().len(), "the length is always current");
    let (again, age) = s.space_within(std::time::Duration::ZERO).unwrap();
    assert_eq!(age, std::time::Duration::ZERO);
    assert!(again.stored_bytes > first.stored_bytes, "a stale one is measured: {again:?} after {first:?}");
}

/// The page cache follows the machine and the file: a quarter of the memory, no more than the file and a quarter,
/// never below 32 MiB; its figures count reads.
#[test]
fn the_page_cache_follows_the_machine() {
    const MIB: u64 = 1 << 20;
    assert_eq!(store::cache_for(0, 24 << 30), 32 << 20, "an empty file: the floor");
    assert_eq!(store::cache_for(40 * MIB, 24 << 30) as u64, 50 * MIB, "a small company's file: all of it");
    assert_eq!(store::cache_for(1300 * MIB, 24 << 30) as u64, 1625 * MIB, "a 1.3 GB file on 24 GiB: all of it");
    assert_eq!(store::cache_for(40 << 30, 24 << 30) as u64, 6 << 30, "a 40 GB file on 24 GiB: a quarter of the memory");
    assert_eq!(store::cache_for(1300 * MIB, 128 * MIB), 32 << 20, "a small machine keeps the floor");
    assert!(store::machine_ram().is_some_and(|r| r > 64 * MIB));
    let (_d, s) = open();
    seed(&s, "000000", 50);
    s.read(|r| r.count(&def(), "000000")).unwrap();
    let c = s.cache();
    assert_eq!(c.capacity_bytes, store::Options::default().cache_bytes as u64);
    assert!(c.read_hits + c.read_misses > 0, "{c:?}");
}

/// Pages past the middle of an unfiltered list are walked from the other end: every page, both orders, decoded
/// and raw, equals the same slice of the whole list (with another tenant's rows and removed ones around).
#[test]
fn deep_pages_from_the_nearer_end_are_the_same_pages() {
    let (_d, s) = open();
    seed(&s, "A", 101);
    seed(&s, "B", 30);
    let d = def();
    let gone = s.read(|r| r.list(&d, "A", &Query { limit: 3, offset: 40, ..Default::default() })).unwrap();
    let ids: Vec<u64> = gone.records.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    let d2 = d.clone();
    s.write(move |w| w.remove(&d2, "A", &ids, &Actor::default()).map(|_| ())).unwrap();
    let key = |r: &Map<String, Value>| r["paramKey"].as_str().unwrap().to_string();
    for sorts in [vec![], vec![Sort { field: "id".into(), desc: false }], vec![Sort { field: "createTime".into(), desc: true }]] {
        let all = s.read(|r| r.list(&d, "A", &Query { limit: 1000, sorts: sorts.clone(), ..Default::default() })).unwrap();
        assert_eq!(all.total, 98);
        let whole: Vec<String> = all.records.iter().map(key).collect();
        for size in [1usize, 7, 20, 98, 120] {
            for offset in (0..100).step_by(size.max(3)) {
                let q = Query { limit: size as u64, offset: offset as u64, sorts: sorts.clone(), ..Default::default() };
                let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
                assert_eq!(page.total, 98);
                let got: Vec<String> = page.records.iter().map(key).collect();
                let want: Vec<String> = whole.iter().skip(offset).take(size).cloned().collect();
                assert_eq!(got, want, "sorts {sorts:?} offset {offset} size {size}");
                let raw = s.read(|r| r.list(&d, "A", &Query { raw_rows: true, ..q.clone() })).unwrap();
                assert_eq!(raw.rows.len(), want.len(), "raw rows, offset {offset} size {size}");
            }
        }
    }
}

/// Deep pages found through the rank marks are the same pages as a walk, in both orders and raw, after records
/// are added (the marks extend over the new tail), after removals (the marks are made again) and after a record
/// is stored with an old id (the tail count fails, the marks are made again).
#[test]
fn deep_pages_through_rank_marks_are_the_same_pages() {
    let (_d, s) = open();
    let d = def();
    let key = |r: &Map<String, Value>| r["paramKey"].as_str().unwrap().to_string();
    let check = |s: &Store, what: &str| {
        for sorts in [vec![], vec![Sort { field: "id".into(), desc: false }]] {
            let all = s.read(|r| r.list(&d, "A", &Query { limit: 100_000, sorts: sorts.clone(), ..Default::default() })).unwrap();
            let whole: Vec<String> = all.records.iter().map(key).collect();
            assert_eq!(whole.len() as u64, all.total);
            for (offset, size) in [(512u64, 10u64), (513, 1), (767, 20), (1000, 37), (all.total - 1, 10), (all.total - 10, 10), (all.total / 2, 100), (all.total, 10)] {
                let q = Query { limit: size, offset, sorts: sorts.clone(), ..Default::default() };
                let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
                assert_eq!(page.total, all.total, "{what}");
                let got: Vec<String> = page.records.iter().map(key).collect();
                let want: Vec<String> = whole.iter().skip(offset as usize).take(size as usize).cloned().collect();
                assert_eq!(got, want, "{what}: sorts {sorts:?} offset {offset} size {size}");
                let raw = s.read(|r| r.list(&d, "A", &Query { raw_rows: true, ..q.clone() })).unwrap();
                assert_eq!(raw.rows.len(), want.len(), "{what}: raw rows at {offset}");
                // A data scope of 全部数据 (a guard of `id` not null) is the same list, through the marks too: a
                // walk would stop at once here (its budget is cancelled).
                let guarded = Query { any: vec![Filter::new("id", Op::NotNull, Value::Null)], budget: cancelled(), ..q.clone() };
                let page = s.read(|r| r.list(&d, "A", &guarded)).unwrap();
                assert_eq!((page.total, page.records.iter().map(key).collect::<Vec<_>>()), (all.total, want), "{what}: all-data guard at {offset}");
            }
        }
    };
    seed(&s, "A", 1500);
    seed(&s, "B", 40);
    check(&s, "first marks");
    let d2 = d.clone();
    s.write(move |w| {
        for i in 0..300 {
            w.insert(&d2, "A", doc(json!({"paramName": "新", "paramKey": format!("new{i:04}"), "n": i})), &Actor::default())?;
        }
        Ok(())
    })
    .unwrap();
    check(&s, "records added");
    let some = s.read(|r| r.list(&d, "A", &Query { limit: 5, offset: 700, ..Default::default() })).unwrap();
    let ids: Vec<u64> = some.records.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    let old = some.records[0].clone();
    remove_then_store_again(&s, &d, ids, old, &check);
    // As many removed as added in one write: the count alone would not tell; the removal counter does.
    let some = s.read(|r| r.list(&d, "A", &Query { limit: 3, offset: 900, ..Default::default() })).unwrap();
    let ids: Vec<u64> = some.records.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    let d5 = d.clone();
    s.write(move |w| {
        w.remove(&d5, "A", &ids, &Actor::default())?;
        for i in 0..3 {
            w.insert(&d5, "A", doc(json!({"paramName": "换", "paramKey": format!("swap{i}"), "n": i})), &Actor::default())?;
        }
        Ok(())
    })
    .unwrap();
    check(&s, "removed and added alike");
}

/// Every page of a list with one exact filter (one value of an indexed field) comes through the value's rank
/// marks — its total without counting the range — and equals the same slice of the whole list filtered, after
/// records are added with that value, moved to another value, removed, and stored again under an old id.
#[test]
fn pages_of_one_value_through_rank_marks_are_the_same_pages() {
    let (_d, s) = open();
    let d = def();
    let key = |r: &Map<String, Value>| r["paramKey"].as_str().unwrap().to_string();
    let add = |s: &Store, from: usize, n: usize| {
        let d = d.clone();
        s.write(move |w| {
            for i in from..from + n {
                w.insert(&d, "A", doc(json!({"paramName": if i % 3 == 0 { "乙" } else { "甲" }, "paramKey": format!("v{i:05}"), "n": i as i64})), &Actor::default())?;
            }
            Ok(())
        })
        .unwrap();
    };
    let check = |s: &Store, what: &str| {
        for value in ["甲", "乙", "丙"] {
            for sorts in [vec![], vec![Sort { field: "id".into(), desc: false }]] {
                let all = s.read(|r| r.list(&d, "A", &Query { limit: 100_000, sorts: sorts.clone(), ..Default::default() })).unwrap();
                let whole: Vec<String> = all.records.iter().filter(|r| r["paramName"] == value).map(key).collect();
                let n = whole.len() as u64;
                for (offset, size) in [(0u64, 20u64), (1, 5), (255, 3), (256, 10), (600, 50), (n.saturating_sub(1), 10), (n.saturating_sub(7), 10), (n, 10)] {
                    let q = Query { limit: size, offset, sorts: sorts.clone(), filters: vec![Filter::new("paramName", Op::Equal, json!(value))], ..Default::default() };
                    let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
                    assert_eq!(page.total, n, "{what}: {value} total");
                    let got: Vec<String> = page.records.iter().map(key).collect();
                    let want: Vec<String> = whole.iter().skip(offset as usize).take(size as usize).cloned().collect();
                    assert_eq!(got, want, "{what}: {value} sorts {sorts:?} offset {offset} size {size}");
                    // The same value as a data-scope guard of one condition (and beside an all-data one).
                    for any in [vec![Filter::new("paramName", Op::Equal, json!(value))]] {
                        let guarded = Query { filters: vec![], any, budget: cancelled(), ..q.clone() };
                        let page = s.read(|r| r.list(&d, "A", &guarded)).unwrap();
                        assert_eq!((page.total, page.records.iter().map(key).collect::<Vec<_>>()), (n, want.clone()), "{what}: {value} as a guard at {offset}");
                    }
                }
            }
        }
    };
    add(&s, 0, 1500);
    seed(&s, "B", 30);
    check(&s, "first marks");
    add(&s, 1500, 400);
    check(&s, "records added");
    // Some 甲 become 乙: both values' ranks shift.
    let some = s.read(|r| r.list(&d, "A", &Query { limit: 4, offset: 300, filters: vec![Filter::new("paramName", Op::Equal, json!("甲"))], ..Default::default() })).unwrap();
    let ids: Vec<u64> = some.records.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    update_each(&s, &d, &ids, |_| json!({"paramName": "乙"}));
    check(&s, "records moved to another value");
    let old = s.read(|r| r.get(&d, "A", ids[0])).unwrap().unwrap();
    remove_then_store_again(&s, &d, ids, old, &check);
}

#[test]
fn pages_sorted_by_an_indexed_field_are_the_same_pages_from_either_end() {
    let (_d, s) = open();
    let d = def();
    seed(&s, "A", 900);
    seed(&s, "B", 30);
    // Ties: every record's paramName is one of two values, so the order within a value (by id) counts.
    let d2 = d.clone();
    s.write(move |w| {
        for i in 0..300 {
            w.insert(&d2, "A", doc(json!({"paramName": if i % 2 == 0 { "甲" } else { "乙" }, "paramKey": format!("t{:04}", (i * 7919) % 300), "n": i})), &Actor::default())?;
        }
        Ok(())
    })
    .unwrap();
    check_sorted_pages(&s, &d, "as written", true);
    // Records added, in three writes: anywhere in each sort index (before, between and after the marks, ties
    // with marked values), counted beside the marks — every deep page still comes through them at once.
    for round in 0..3i64 {
        let d2 = d.clone();
        s.write(move |w| {
            for i in 0..40i64 {
                let name = ["丙", "甲", "乙", "0", "龥"][(i % 5) as usize];
                let key = format!("{}{round}{i:03}", ["m", "a", "t0", "zz", "t01"][((i + round) % 5) as usize]);
                w.insert(&d2, "A", doc(json!({"paramName": name, "paramKey": key, "n": 5000 - 37 * i + round})), &Actor::default())?;
            }
            Ok(())
        })
        .unwrap();
        check_sorted_pages(&s, &d, &format!("added, round {round}"), true);
    }
    // One moved to another sort value; then some removed. Each makes the marks not hold: within a second of
    // their making the index is walked instead, after it they are made again.
    let some = s.read(|r| r.list(&d, "A", &Query { limit: 3, offset: 100, ..Default::default() })).unwrap();
    let ids: Vec<u64> = some.records.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    for what in ["moved", "removed"] {
        // Marks made at least a second before the change are made again at once.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        check_sorted_pages(&s, &d, &format!("before {what}"), true);
        let (d2, ids) = (d.clone(), ids.clone());
        s.write(move |w| match what {
            "moved" => w.update(&d2, "A", ids[0], doc(json!({"paramName": "甲甲", "paramKey": "zz-moved", "n": 7777})), &Actor::default()).map(|_| ()),
            _ => w.remove(&d2, "A", &ids[1..], &Actor::default()).map(|_| ()),
        })
        .unwrap();
        check_sorted_pages(&s, &d, &format!("{what}, marks made again"), true);
        let d2 = d.clone();
        s.write(move |w| w.insert(&d2, "A", doc(json!({"paramName": "乙", "paramKey": format!("after-{what}"), "n": 1})), &Actor::default()).map(|_| ())).unwrap();
        check_sorted_pages(&s, &d, &format!("{what}, then one added"), true);
    }
    // More added than the marks keep beside them: within a second of the marks' making the index is walked,
    // after it they are made again.
    let d2 = d.clone();
    s.write(move |w| {
        for i in 0..store::SORT_MARKS_ADDED_MAX as i64 + 10 {
            w.insert(&d2, "A", doc(json!({"paramName": "丁", "paramKey": format!("many{i:05}"), "n": i})), &Actor::default())?;
        }
        Ok(())
    })
    .unwrap();
    check_sorted_pages(&s, &d, "many added, within a second", false);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    check_sorted_pages(&s, &d, "many added, marks made again", true);
}

/// Every page of the list sorted by each indexed field, both ways, against the general plan; with `marked`,
/// deep pages must come from the marks (a walk would stop at once: its budget is cancelled).
fn check_sorted_pages(s: &Store, d: &Arc<ResourceDef>, what: &str, marked: bool) {
    let key = |r: &Map<String, Value>| r["paramKey"].as_str().unwrap().to_string();
    let total = s.read(|r| r.count(d, "A")).unwrap();
    for field in ["paramKey", "paramName", "n"] {
        for desc in [false, true] {
            let sorts = vec![Sort { field: field.into(), desc }];
            // The same order through the general plan (a filter every record passes).
            let every = vec![Filter::new("n", Op::Ge, json!(-1))];
            let whole = s.read(|r| r.list(d, "A", &Query { limit: 100_000, sorts: sorts.clone(), filters: every.clone(), ..Default::default() })).unwrap();
            assert_eq!(whole.total, total);
            let whole: Vec<String> = whole.records.iter().map(key).collect();
            for (offset, size) in [(0u64, 20u64), (1, 7), (500, 20), (512, 3), (601, 13), (total - 20, 20), (total - 3, 10), (total, 10), (total + 5, 10)] {
                let q = Query { limit: size, offset, sorts: sorts.clone(), ..Default::default() };
                let page = s.read(|r| r.list(d, "A", &q)).unwrap();
                let want: Vec<String> = whole.iter().skip(offset as usize).take(size as usize).cloned().collect();
                assert_eq!((page.total, page.records.iter().map(key).collect::<Vec<_>>()), (total, want.clone()), "{what}: {field} desc {desc} offset {offset}");
                let raw = s.read(|r| r.list(d, "A", &Query { raw_rows: true, ..q.clone() })).unwrap();
                let raw: Vec<String> = raw.rows.iter().map(|b| key(&store::decode_record(b).unwrap())).collect();
                assert_eq!(raw, want, "{what}: {field} desc {desc} offset {offset}: raw rows");
                if marked && offset >= 512 {
                    let page = s.read(|r| r.list(d, "A", &Query { budget: cancelled(), ..q.clone() })).unwrap();
                    assert_eq!(page.records.iter().map(key).collect::<Vec<_>>(), want, "{what}: {field} desc {desc} offset {offset} through the marks");
                }
            }
        }
    }
}

/// A budget whose walk stops at its first check: a list answered with it did not walk.
fn cancelled() -> store::Budget {
    store::Budget { deadline: None, cancel: Some(Arc::new(std::sync::atomic::AtomicBool::new(true))) }
}

/// Updates each of `ids` (tenant A) with the patch `patch(k)` gives for its place in `ids`, in one write.
fn update_each(s: &Store, d: &Arc<ResourceDef>, ids: &[u64], patch: impl Fn(usize) -> Value) {
    let (d2, moved): (Arc<ResourceDef>, Vec<(u64, Value)>) = (d.clone(), ids.iter().enumerate().map(|(k, id)| (*id, patch(k))).collect());
    s.write(move |w| {
        for (id, p) in &moved {
            w.update(&d2, "A", *id, doc(p.clone()), &Actor::default())?;
        }
        Ok(())
    })
    .unwrap();
}

/// Removes `ids` of tenant A and checks; then stores `old` (one of them) back under its own id, as a move between
/// files does, and checks again.
fn remove_then_store_again(s: &Store, d: &Arc<ResourceDef>, ids: Vec<u64>, old: Map<String, Value>, check: &dyn Fn(&Store, &str)) {
    let d3 = d.clone();
    s.write(move |w| w.remove(&d3, "A", &ids, &Actor::default()).map(|_| ())).unwrap();
    check(s, "records removed");
    let d4 = d.clone();
    s.write(move |w| w.put_as_is(&d4, "A", &old).map(|_| ())).unwrap();
    check(s, "an old id stored again");
}

/// Data-file reads that take a millisecond each while `slow` is set (a large file not in memory).
#[derive(Debug, Default)]
struct SlowReads {
    slow: Arc<std::sync::atomic::AtomicBool>,
    reads: Arc<std::sync::atomic::AtomicU64>,
}

impl store::fs::Fs for SlowReads {
    fn data(&self, path: &std::path::Path) -> std::io::Result<Box<dyn store::fs::StorageBackend>> {
        let (slow, reads) = (self.slow.clone(), self.reads.clone());
        let before_read = Arc::new(move || {
            if slow.load(std::sync::atomic::Ordering::Relaxed) {
                reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        });
        Ok(Box::new(common::Hooked { inner: store::fs::OsFs.data(path)?, before_read, before_sync: Arc::new(|| {}) }))
    }
}

/// Measuring the space walks every table, which on a large file read from the disk takes seconds: it must not
/// hold the writer (on the logs' file it did: their queue filled, and every write request waited 16–40 s). Here
/// every page read takes a millisecond: writes commit while a measurement is under way.
#[test]
fn measuring_the_space_does_not_hold_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let fs = Arc::new(SlowReads::default());
    let path = dir.path().join("t.redb");
    let s = Store::open(&path, &Options { fs: fs.clone(), cache_bytes: 1 << 20, ..Options::default() }).unwrap();
    for i in 0..8 {
        seed(&s, &format!("T{i}"), 1_000);
    }
    let before = s.space().unwrap();
    assert!(before.allocated_bytes > before.stored_bytes && before.allocated_bytes <= before.file_bytes, "{before:?}");
    assert_eq!(before.file_bytes, before.allocated_bytes + before.free_bytes);
    // Reopened with a cold page cache, then the pages read slowly.
    s.close();
    drop(s);
    let s = Store::open(&path, &Options { fs: fs.clone(), cache_bytes: 1 << 20, ..Options::default() }).unwrap();
    fs.slow.store(true, std::sync::atomic::Ordering::Relaxed);
    let measuring = {
        let s = s.clone();
        std::thread::spawn(move || s.space().unwrap())
    };
    while fs.reads.load(std::sync::atomic::Ordering::Relaxed) < 50 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    seed(&s, "W", 1);
    assert!(!measuring.is_finished(), "the write waited for the measurement to end ({} slow reads)", fs.reads.load(std::sync::atomic::Ordering::Relaxed));
    let during = measuring.join().unwrap();
    assert!(during.allocated_bytes >= before.allocated_bytes * 9 / 10, "{during:?} against {before:?}");
    s.close();
}

/// Pages of a list with two exact filters over large values (each more than the few records read one by one):
/// answered from the values' id sets intersected, every page and total equal to the same slice of the whole list
/// filtered — as written, after records are added (the sets extend), removed, moved to another value, and stored
/// again under an old id (the sets are made again), with the second filter as a data-scope guard too.
#[test]
fn pages_of_two_large_values_are_the_same_pages() {
    let (_d, s) = open();
    let d = def();
    let add = |s: &Store, from: usize, n: usize| {
        let d = d.clone();
        s.write(move |w| {
            for i in from..from + n {
                let actor = Actor { user_id: 7 + ((i / 2) % 2) as u64, dept_id: 3, at: None };
                w.insert(&d, "A", doc(json!({"paramName": if i % 2 == 0 { "甲" } else { "乙" }, "paramKey": format!("v{i:05}"), "n": i as i64})), &actor)?;
            }
            Ok(())
        })
        .unwrap();
    };
    let key = |r: &Map<String, Value>| r["paramKey"].as_str().unwrap().to_string();
    let check = |s: &Store, what: &str| {
        for sorts in [vec![], vec![Sort { field: "id".into(), desc: false }]] {
            let all = s.read(|r| r.list(&d, "A", &Query { limit: 100_000, sorts: sorts.clone(), ..Default::default() })).unwrap();
            for (name, user) in [("甲", 7), ("乙", 8), ("甲", 8), ("丙", 7)] {
                let whole: Vec<String> = all.records.iter().filter(|r| r["paramName"] == name && r["createUser"] == json!(user)).map(key).collect();
                let n = whole.len() as u64;
                for (offset, size) in [(0u64, 20u64), (1, 5), (1500, 10), (n.saturating_sub(1), 10), (n.saturating_sub(7), 10), (n, 10), (n + 3, 10)] {
                    let by_filters = Query { limit: size, offset, sorts: sorts.clone(), filters: vec![Filter::new("paramName", Op::Equal, json!(name)), Filter::new("createUser", Op::Equal, json!(user))], ..Default::default() };
                    let by_guard = Query { filters: vec![Filter::new("paramName", Op::Equal, json!(name))], any: vec![Filter::new("createUser", Op::Equal, json!(user))], ..by_filters.clone() };
                    let want: Vec<String> = whole.iter().skip(offset as usize).take(size as usize).cloned().collect();
                    for q in [by_filters, by_guard] {
                        let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
                        assert_eq!((page.total, page.records.iter().map(key).collect::<Vec<_>>()), (n, want.clone()), "{what}: {name} {user} sorts {sorts:?} offset {offset} guard {}", !q.any.is_empty());
                        let raw = s.read(|r| r.list(&d, "A", &Query { raw_rows: true, ..q.clone() })).unwrap();
                        assert_eq!(raw.rows.len(), want.len(), "{what}: raw rows at {offset}");
                    }
                }
            }
        }
        // Sorted by another indexed field, with one or two such filters: the same pages as the general plan (the
        // same filters beside a range every record passes).
        for field in ["paramKey", "n"] {
            for desc in [false, true] {
                for filters in [vec![Filter::new("paramName", Op::Equal, json!("甲")), Filter::new("createUser", Op::Equal, json!(8))], vec![Filter::new("createUser", Op::Equal, json!(7))]] {
                    let sorts = vec![Sort { field: field.into(), desc }];
                    let mut every = filters.clone();
                    every.push(Filter::new("n", Op::Ge, json!(-1)));
                    let whole = s.read(|r| r.list(&d, "A", &Query { limit: 100_000, sorts: sorts.clone(), filters: every, ..Default::default() })).unwrap();
                    let n = whole.total;
                    let whole: Vec<String> = whole.records.iter().map(key).collect();
                    for (offset, size) in [(0u64, 20u64), (1, 5), (1500, 10), (n / 2 + 1, 10), (n.saturating_sub(7), 10), (n, 10), (n + 3, 10)] {
                        let q = Query { limit: size, offset, sorts: sorts.clone(), filters: filters.clone(), ..Default::default() };
                        let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
                        let want: Vec<String> = whole.iter().skip(offset as usize).take(size as usize).cloned().collect();
                        assert_eq!((page.total, page.records.iter().map(key).collect::<Vec<_>>()), (n, want), "{what}: by {field} desc {desc}, {} filters, offset {offset}", filters.len());
                    }
                }
            }
        }
    };
    add(&s, 0, 12_000);
    seed(&s, "B", 30);
    check(&s, "as written");
    add(&s, 12_000, 41);
    check(&s, "records added");
    let some = s.read(|r| r.list(&d, "A", &Query { limit: 4, offset: 600, ..Default::default() })).unwrap();
    let ids: Vec<u64> = some.records.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    let (d2, moved) = (d.clone(), ids[3]);
    let other = if some.records[3]["paramName"] == "甲" { "乙" } else { "甲" };
    s.write(move |w| w.update(&d2, "A", moved, doc(json!({"paramName": other})), &Actor::default()).map(|_| ())).unwrap();
    check(&s, "one moved to the other value");
    let old = some.records[0].clone();
    remove_then_store_again(&s, &d, ids[..3].to_vec(), old, &check);
    add(&s, 20_000, 5);
    check(&s, "added after all that");
}

/// A deep page sorted by an indexed field beside exact filters over large values comes from marks of the sort
/// index over the filters' records (kept per combination): the same pages as the general plan — while the filters
/// hold every record, with a walk budget already cancelled (a walk of the index to the page would stop at once),
/// as made and after records are added (counted beside the marks); then for a second combination beside the first,
/// where the walk from a mark passes the other value's entries too.
#[test]
fn deep_pages_sorted_beside_large_filters_come_from_marks() {
    let (_d, s) = open();
    let d = def();
    let add = |s: &Store, from: usize, n: usize, name: &'static str| {
        let d = d.clone();
        s.write(move |w| {
            for i in from..from + n {
                w.insert(&d, "A", doc(json!({"paramName": name, "paramKey": format!("k{:05}", (i * 7919) % 100_000), "n": i as i64})), &Actor { user_id: 7, dept_id: 3, at: None })?;
            }
            Ok(())
        })
        .unwrap();
    };
    let key = |r: &Map<String, Value>| r["paramKey"].as_str().unwrap().to_string();
    let check = |s: &Store, what: &str, name: &str, cancel: bool| {
        for desc in [false, true] {
            let sorts = vec![Sort { field: "paramKey".into(), desc }];
            let filters = vec![Filter::new("paramName", Op::Equal, json!(name)), Filter::new("createUser", Op::Equal, json!(7))];
            let mut every = filters.clone();
            every.push(Filter::new("n", Op::Ge, json!(-1)));
            let whole = s.read(|r| r.list(&d, "A", &Query { limit: 100_000, sorts: sorts.clone(), filters: every, ..Default::default() })).unwrap();
            let n = whole.total;
            let whole: Vec<String> = whole.records.iter().map(key).collect();
            for (offset, size) in [(600u64, 20u64), (1_500, 10), (n / 2, 20), (n / 2 + 1, 7), (n - 700, 20)] {
                let q = Query { limit: size, offset, sorts: sorts.clone(), filters: filters.clone(), ..Default::default() };
                let want: Vec<String> = whole.iter().skip(offset as usize).take(size as usize).cloned().collect();
                // The first asking makes the marks (one walk of the index's keys); every later one uses them.
                let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
                assert_eq!((page.total, page.records.iter().map(key).collect::<Vec<_>>()), (n, want.clone()), "{what}: {name} desc {desc} offset {offset}");
                let q = if cancel { Query { budget: cancelled(), ..q } } else { q };
                let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
                assert_eq!((page.total, page.records.iter().map(key).collect::<Vec<_>>()), (n, want), "{what}: {name} desc {desc} offset {offset}, from the marks");
            }
        }
    };
    add(&s, 0, 6_000, "甲");
    check(&s, "as written", "甲", true);
    add(&s, 6_000, 300, "甲");
    check(&s, "records added", "甲", true);
    add(&s, 10_000, 5_500, "乙");
    check(&s, "another value", "乙", false);
    check(&s, "the first again, others added beside", "甲", false);
    // What they keep is counted for the status screen: the two combinations' marks, the three values' id sets and
    // the reference query's range (`n` ≥ -1).
    let f = s.ranks();
    assert!(f.filtered_sorted == 2 && f.sets == 4 && f.set_bytes >= (6_300 + 5_500 + 11_800) * 8 && f.marks_bytes > 0, "{f:?}");
    assert_eq!(f.set_max_bytes, 64 << 20);
}

/// A list filtered by creation or change time (创建时间 / 更新时间 from–to) reads the range's index entries: the
/// same rows and totals as testing every record, with a walk's budget already cancelled (a walk would stop at
/// once). Records are stamped out of id order (seeded with past times), so the ranges cannot come from ids.
#[test]
fn creation_and_change_time_ranges_come_from_the_index() {
    let (_d, s) = open();
    let d = def();
    let d2 = d.clone();
    let base = 1_740_000_000_000i64;
    s.write(move |w| {
        for i in 0..600i64 {
            let at = base + (i * 7_919 % 600) * 60_000;
            w.insert(&d2, "A", doc(json!({"paramName": format!("名称{:03}", i % 5), "paramKey": format!("k{i:04}"), "n": i})), &Actor { user_id: 7, dept_id: 3, at: Some(at) })?;
        }
        Ok(())
    })
    .unwrap();
    let changed: Vec<u64> = s.read(|r| r.list(&d, "A", &Query { limit: 40, ..Default::default() })).unwrap().records.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    let d3 = d.clone();
    s.write(move |w| {
        for id in &changed {
            w.update(&d3, "A", *id, doc(json!({"n": -1})), &Actor { user_id: 8, dept_id: 3, at: Some(base + 900 * 60_000) })?;
        }
        Ok(())
    })
    .unwrap();
    let all = s.read(|r| r.all(&d, "A")).unwrap();
    let t = |min: i64| json!(base + min * 60_000);
    let queries = vec![
        vec![Filter::new("createTime", Op::Ge, t(100)), Filter::new("createTime", Op::Lt, t(160))],
        vec![Filter::new("createTime", Op::Gt, t(590))],
        vec![Filter::new("createTime", Op::Le, t(30)), Filter::new("paramName", Op::Equal, json!("名称002"))],
        vec![Filter::new("updateTime", Op::Ge, t(900))],
        vec![Filter::new("updateTime", Op::Lt, t(300)), Filter::new("createTime", Op::Ge, t(200))],
        vec![Filter::new("createTime", Op::Ge, t(10_000))],
    ];
    index_pages_match_every_record(&s, &d, &all, queries, &[(0, 20), (20, 20), (0, 1000)]);
}

/// Each query's pages (offset, limit), newest first, read once (a range's id set is made then, within the
/// request's budget) and again with a cancelled walk budget (so only from the index and the kept sets): the same
/// rows and total as testing every record of `all`.
fn index_pages_match_every_record(s: &Store, d: &ResourceDef, all: &[Map<String, Value>], queries: Vec<Vec<Filter>>, pages: &[(u64, u64)]) {
    for (i, filters) in queries.into_iter().enumerate() {
        let mut want: Vec<u64> = all.iter().filter(|r| filters.iter().all(|f| f.matches(r))).map(|r| r["id"].as_u64().unwrap()).collect();
        want.sort_unstable_by(|a, b| b.cmp(a));
        for &(offset, limit) in pages {
            for budget in [store::Budget::default(), cancelled()] {
                let q = Query { offset, limit, filters: filters.clone(), budget, ..Default::default() };
                let page = s.read(|r| r.list(d, "A", &q)).unwrap_or_else(|e| panic!("query {i}: {e}"));
                let got: Vec<u64> = page.records.iter().map(|r| r["id"].as_u64().unwrap()).collect();
                assert_eq!(page.total, want.len() as u64, "query {i}: total");
                assert_eq!(got, want.iter().skip(offset as usize).take(limit as usize).copied().collect::<Vec<_>>(), "query {i} offset {offset}");
            }
        }
    }
}

/// An append-only resource (a log, stock moves) indexes `createTime` and no other audit column: a creation-date
/// range is an index range there too, alone and beside an exact filter.
#[test]
fn append_only_creation_time_ranges_come_from_the_index() {
    let (_d, s) = open();
    let d: Arc<ResourceDef> = Arc::new(
        serde_json::from_value(json!({
            "name": "log_x", "label": "日志", "appendOnly": true,
            "fields": [{"name": "method", "label": "m", "filter": true}]
        }))
        .unwrap(),
    );
    assert_eq!(d.indexed_fields().collect::<Vec<_>>(), vec!["method", "createTime"]);
    let base = 1_740_000_000_000i64;
    let t = |min: i64| json!(base + min * 60_000);
    let d2 = d.clone();
    s.write(move |w| {
        for i in 0..500i64 {
            let at = base + (i * 7_919 % 500) * 60_000;
            w.insert(&d2, "A", doc(json!({"method": if i % 3 == 0 { "GET" } else { "POST" }})), &Actor { user_id: 7, dept_id: 3, at: Some(at) })?;
        }
        Ok(())
    })
    .unwrap();
    let queries = vec![
        vec![Filter::new("createTime", Op::Le, t(30)), Filter::new("method", Op::Equal, json!("GET"))],
        vec![Filter::new("createTime", Op::Ge, t(200)), Filter::new("createTime", Op::Lt, t(260))],
        vec![Filter::new("createTime", Op::Gt, t(10_000))],
    ];
    let all = s.read(|r| r.all(&d, "A")).unwrap();
    index_pages_match_every_record(&s, &d, &all, queries, &[(5, 20)]);
}

/// A list filtered by a range (a creation date from a day, a number between two values) — alone, beside an exact
/// filter, in either id order and sorted by another field: the range's ids are kept between requests, brought up
/// to date by the records added since (a few read and tested; many: made again), and made again after a move or
/// a removal. Every page and total is the one testing each record gives.
#[test]
fn pages_of_a_range_through_kept_id_sets_are_the_same_pages() {
    let (_d, s) = open();
    let d = def();
    let base = 1_740_000_000_000i64;
    let t = |min: i64| json!(base + min * 60_000);
    let add = |s: &Store, from: i64, n: i64| {
        let d = d.clone();
        s.write(move |w| {
            for i in from..from + n {
                // Creation times out of id order.
                let at = base + (i * 7_919 % 2_000) * 60_000;
                w.insert(&d, "A", doc(json!({"paramName": if i % 3 == 0 { "乙" } else { "甲" }, "paramKey": format!("r{i:05}"), "n": i * 37 % 1_000})), &Actor { user_id: 7, dept_id: 3, at: Some(at) })?;
            }
            Ok(())
        })
        .unwrap();
    };
    let queries = [
        vec![Filter::new("createTime", Op::Ge, t(100))],
        vec![Filter::new("createTime", Op::Ge, t(100)), Filter::new("createTime", Op::Lt, t(1_500))],
        vec![Filter::new("n", Op::Gt, json!(300))],
        vec![Filter::new("n", Op::Le, json!(700)), Filter::new("paramName", Op::Equal, json!("甲"))],
        vec![Filter::new("createTime", Op::Ge, t(5_000))],
    ];
    let check = |s: &Store, what: &str| {
        let all = s.read(|r| r.all(&d, "A")).unwrap();
        for sorts in [vec![], vec![Sort { field: "id".into(), desc: false }], vec![Sort { field: "paramKey".into(), desc: false }]] {
            for (i, filters) in queries.iter().enumerate() {
                let mut want: Vec<&Map<String, Value>> = all.iter().filter(|r| filters.iter().all(|f| f.matches(r))).collect();
                match sorts.first() {
                    None => want.sort_by_key(|r| std::cmp::Reverse(r["id"].as_u64().unwrap())),
                    Some(s) if s.field == "id" => want.sort_by_key(|r| r["id"].as_u64().unwrap()),
                    Some(_) => want.sort_by_key(|r| r["paramKey"].as_str().unwrap().to_string()),
                }
                let want: Vec<u64> = want.iter().map(|r| r["id"].as_u64().unwrap()).collect();
                let n = want.len() as u64;
                for (offset, size) in [(0u64, 20u64), (1, 5), (255, 3), (600, 50), (n.saturating_sub(1), 10), (n, 10)] {
                    let q = Query { limit: size, offset, sorts: sorts.clone(), filters: filters.clone(), ..Default::default() };
                    let page = s.read(|r| r.list(&d, "A", &q)).unwrap();
                    let got: Vec<u64> = page.records.iter().map(|r| r["id"].as_u64().unwrap()).collect();
                    assert_eq!(page.total, n, "{what}: query {i} sorts {sorts:?} total");
                    assert_eq!(got, want.iter().skip(offset as usize).take(size as usize).copied().collect::<Vec<_>>(), "{what}: query {i} sorts {sorts:?} offset {offset}");
                }
            }
        }
    };
    add(&s, 0, 1_500);
    seed(&s, "B", 30);
    check(&s, "first sets");
    // The ranges' id sets are kept, and marks of the 参数键名 index over each range's records for its deep pages.
    assert!(s.ranks().sets >= 3 && s.ranks().filtered_sorted >= 1, "{:?}", s.ranks());
    add(&s, 1_500, 300);
    check(&s, "records added");
    add(&s, 1_800, 4_200);
    check(&s, "more records added than are read to bring a set up to date");
    // Every range but the empty one now has deep pages by 参数键名 (one of them beside an exact filter).
    assert!(s.ranks().filtered_sorted >= 4, "{:?}", s.ranks());
    // Some numbers move into and out of the ranges.
    let some = s.read(|r| r.list(&d, "A", &Query { limit: 6, offset: 200, ..Default::default() })).unwrap();
    let ids: Vec<u64> = some.records.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    update_each(&s, &d, &ids, |k| json!({"n": if k % 2 == 0 { 5 } else { 999 }}));
    check(&s, "numbers moved");
    let old = s.read(|r| r.get(&d, "A", ids[0])).unwrap().unwrap();
    remove_then_store_again(&s, &d, ids, old, &check);
}

/// `get_fields` gives exactly the named fields of the record `get` gives (absent ones left out), inside a read and
/// inside a write that has just changed the record; a missing record is None.
#[test]
fn get_fields_is_the_named_part_of_get() {
    let (_dir, s, d, id) = three_and_one("k0002");
    let part = |full: &Map<String, Value>, names: &[&str]| -> Map<String, Value> {
        names.iter().filter_map(|n| full.get(*n).map(|v| (n.to_string(), v.clone()))).collect()
    };
    let full = s.read(|r| r.get(&d, "A", id)).unwrap().unwrap();
    for names in [&["paramName"][..], &["n", "paramKey"], &["updateTime", "createUser", "absent", "id"], &["zzz"]] {
        let got = s.read(|r| r.get_fields(&d, "A", id, names)).unwrap().unwrap();
        assert_eq!(got, part(&full, names), "{names:?}");
    }
    assert_eq!(s.read(|r| r.get_fields(&d, "A", id + 1_000_000, &["n"])).unwrap(), None);
    assert_eq!(s.read(|r| r.get_fields(&d, "B", id, &["n"])).unwrap(), None, "another tenant's id");
    let d2 = d.clone();
    let (inside, after) = s
        .write(move |w| {
            w.update(&d2, "A", id, doc(json!({"n": 41, "paramName": "改过 \"引号\""})), &Actor::default())?;
            let inside = w.get_fields(&d2, "A", id, &["n", "paramName"])?.unwrap();
            Ok((inside, w.get(&d2, "A", id)?.unwrap()))
        })
        .unwrap();
    assert_eq!(inside, part(&after, &["n", "paramName"]));
    assert_eq!(inside["paramName"], "改过 \"引号\"");
}

/// `_null`, `_notnull`, `_notequal` and `_likeright` over indexed fields are index ranges too (all keys but a
/// value's; a prefix in each of its letters' cases): the same rows and totals as testing every record, alone and
/// beside other filters, with a walk's budget cancelled (at 1,000,000 parameters each was a walk of ~2 s per
/// request). The values hold what lower-casing makes alike — both cases, the Kelvin sign (lower case `k`), `İ`
/// (lower case `i` and a combining dot) — beside Chinese, dates, empty and missing values, and every case of one
/// word.
#[test]
fn null_not_equal_and_prefix_filters_come_from_the_index() {
    let (_d, s) = open();
    let d: Arc<ResourceDef> = Arc::new(
        serde_json::from_value(json!({
            "name": "thing", "label": "t",
            "fields": [
                {"name": "tag", "label": "t", "filter": true, "sort": true},
                {"name": "n", "kind": "int", "label": "n", "filter": true},
                {"name": "day", "kind": "date", "label": "d", "filter": true}
            ]
        }))
        .unwrap(),
    );
    let tags = ["Key", "key", "KEY", "\u{212a}ey", "kEy2", "İx", "ix", "Ix", "项目A", "项目b", "", "k", "xkey", "i", "İ", "keys"];
    let d2 = d.clone();
    s.write(move |w| {
        for i in 0..640usize {
            let mut v = json!({"day": format!("2026-{:02}-{:02}", 10 + i % 3, 1 + i % 28)});
            if i % 13 != 0 {
                v["tag"] = json!(format!("{}{}", tags[i % tags.len()], if i % 5 == 0 { String::new() } else { (i % 3).to_string() }));
            }
            if i % 17 != 0 {
                v["n"] = json!(i % 7);
            }
            w.insert(&d2, "A", doc(v), &Actor::default())?;
        }
        // Every case of one word: its variants are too many to seek one by one (the stretch is read and tested).
        for bits in 0..512u32 {
            let word: String = "abcdefghj".chars().enumerate().map(|(i, c)| if bits >> i & 1 == 1 { c.to_ascii_uppercase() } else { c }).collect();
            w.insert(&d2, "A", doc(json!({"tag": format!("{word}{}", bits % 3), "n": bits % 7})), &Actor::default())?;
        }
        Ok(())
    })
    .unwrap();
    let all = s.read(|r| r.all(&d, "A")).unwrap();
    let f = |field: &str, op: Op, v: Value| Filter::new(field, op, v);
    let queries = vec![
        vec![f("tag", Op::Null, Value::Null)],
        vec![f("tag", Op::NotNull, Value::Null)],
        vec![f("n", Op::Null, Value::Null)],
        vec![f("n", Op::NotEqual, json!(3))],
        vec![f("tag", Op::NotEqual, json!("ix1"))],
        vec![f("tag", Op::StartsWith, json!("key"))],
        vec![f("tag", Op::StartsWith, json!("KE"))],
        vec![f("tag", Op::StartsWith, json!("i"))],
        vec![f("tag", Op::StartsWith, json!("ix"))],
        vec![f("tag", Op::StartsWith, json!("项目"))],
        vec![f("tag", Op::StartsWith, json!("项目B1"))],
        vec![f("tag", Op::StartsWith, json!("xKeY1"))],
        vec![f("tag", Op::StartsWith, json!("ABCDEFGHJ1"))],
        vec![f("tag", Op::StartsWith, json!("abc")), f("n", Op::NotEqual, json!(2))],
        vec![f("day", Op::StartsWith, json!("2026-11"))],
        vec![f("tag", Op::StartsWith, json!("key")), f("n", Op::Equal, json!(2))],
        vec![f("tag", Op::NotEqual, json!("ix1")), f("n", Op::NotEqual, json!(3))],
        vec![f("n", Op::NotNull, Value::Null), f("tag", Op::Null, Value::Null)],
        vec![f("tag", Op::NotNull, Value::Null), f("tag", Op::StartsWith, json!("k")), f("day", Op::StartsWith, json!("2026-1"))],
    ];
    for q in &queries {
        assert!(all.iter().any(|r| q.iter().all(|f| f.matches(r))), "every query finds records: {q:?}");
    }
    index_pages_match_every_record(&s, &d, &all, queries, &[(0, 20), (40, 20), (0, 1000)]);
}

/// A file system with no room to spare (what `statvfs` says of a full disk).
#[derive(Debug, Default)]
struct NoRoom;

impl store::fs::Fs for NoRoom {
    fn free_space(&self, _: &std::path::Path) -> Option<u64> {
        Some(0)
    }
}

/// The copy kept before an upgrade needs room. An upgrade from format 3 on is optional: without room the file
/// stays in its format, works, and the next start with room upgrades it; an upgrade of an older file is required
/// and refuses to open. `verify` finds records of a format the file's stamp may not hold.
#[test]
fn an_upgrade_without_room_for_its_copy_waits_or_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("logs.redb");
    let d: Arc<ResourceDef> = Arc::new(serde_json::from_value(json!({
        "name": "log_p", "label": "日志", "appendOnly": true, "packed": true, "fields": [{"name": "method", "label": "m", "filter": true}]
    })).unwrap());
    let add = |s: &Store, n: usize| {
        let d = d.clone();
        s.write(move |w| {
            for _ in 0..n {
                w.insert(&d, "A", doc(json!({"method": "POST"})), &Actor::default())?;
            }
            Ok(())
        })
        .unwrap();
    };
    let count = |s: &Store| s.read(|r| r.list(&d, "A", &Query { limit: 1000, ..Default::default() })).unwrap().records.len();
    let copies = || std::fs::read_dir(dir.path()).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with("before-upgrade-")).count();
    let s = Store::open(&file, &Options { format: store::REQUIRED_FORMAT, ..Options::default() }).unwrap();
    add(&s, 10);
    s.close();

    let s = Store::open(&file, &Options { format: store::SCHEMA_VERSION, fs: Arc::new(NoRoom), ..Options::default() }).unwrap();
    assert!(s.upgraded().is_none());
    assert!(s.upgrade_deferred().is_some_and(|w| w.contains("no room")), "{:?}", s.upgrade_deferred());
    assert_eq!(s.format().unwrap().0, store::REQUIRED_FORMAT);
    add(&s, 10);
    assert_eq!(count(&s), 20);
    s.close();
    assert_eq!(copies(), 0);
    let report = store::verify_file(&file).unwrap();
    assert!(report.ok, "records of format 2 in a file of format 3: {:?}", report.problems);

    let s = Store::open(&file, &Options { format: store::SCHEMA_VERSION, ..Options::default() }).unwrap();
    assert!(s.upgraded().is_some() && s.upgrade_deferred().is_none());
    assert_eq!(s.format().unwrap().0, store::SCHEMA_VERSION);
    add(&s, 1);
    // A stamp lowered under records of the newer format (what a binary of format 3 could not read) is a problem.
    s.write(|w| w.put_meta("schema_version", &3u32.to_be_bytes())).unwrap();
    s.close();
    assert_eq!(copies(), 1);
    let report = store::verify_file(&file).unwrap();
    assert!(!report.ok && report.problems.iter().any(|p| p.starts_with("1 records are in record format 3")), "{:?}", report.problems);

    // Below format 3 the upgrade is required: no room for its copy refuses the open, the file untouched.
    let s = Store::open(&file, &Options::default()).unwrap();
    s.write(|w| w.put_meta("schema_version", &2u32.to_be_bytes())).unwrap();
    s.close();
    match Store::open(&file, &Options { fs: Arc::new(NoRoom), ..Options::default() }) {
        Ok(_) => panic!("a required upgrade without room for its copy must refuse"),
        Err(e) => assert!(e.to_string().contains("no room"), "{e}"),
    }
    assert_eq!(copies(), 1);
}

/// The thread name and nice value (fields 2 and 19) of a `/proc/.../stat` line.
#[cfg(target_os = "linux")]
fn comm_and_nice(stat: &str) -> Option<(&str, i64)> {
    let comm = &stat[stat.find('(')? + 1..stat.rfind(')')?];
    Some((comm, stat[stat.rfind(')')? + 2..].split_whitespace().nth(16)?.parse().ok()?))
}

/// The nice value of this process's thread named `name`, if there is one.
#[cfg(target_os = "linux")]
fn nice_of(name: &str) -> Option<i64> {
    std::fs::read_dir("/proc/self/task").ok()?.flatten().find_map(|t| {
        let stat = std::fs::read_to_string(t.path().join("stat")).ok()?;
        comm_and_nice(&stat).filter(|(c, _)| *c == name).map(|(_, n)| n)
    })
}

#[cfg(target_os = "linux")]
#[test]
fn a_store_of_background_writes_runs_its_threads_at_the_nice_value_asked() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&dir.path().join("n.redb"), &Options { threads: "tnice", nice: Some(7), ..Options::default() }).unwrap();
    let d = def();
    s.write(move |w| w.insert(&d, "t", doc(json!({"paramName": "a", "paramKey": "A1"})), &Actor::default()).map(|_| ())).unwrap();
    // Each thread names itself and sets its priority at its start: one not yet that far is waited for (a second at
    // most).
    let settled = |name: &str, want: i64| (0..100).any(|_| nice_of(name) == Some(want) || { std::thread::sleep(std::time::Duration::from_millis(10)); false });
    assert!(settled("tnice-writer", 7), "writer at {:?}", nice_of("tnice-writer"));
    assert!(settled("tnice-flusher", 7), "flusher at {:?}", nice_of("tnice-flusher"));
    // Without it the threads keep their creator's (this thread's) priority.
    let mine = comm_and_nice(&std::fs::read_to_string("/proc/thread-self/stat").unwrap()).unwrap().1;
    let plain = Store::open(&dir.path().join("p.redb"), &Options { threads: "tplain", ..Options::default() }).unwrap();
    assert!(settled("tplain-writer", mine), "writer at {:?}, this thread at {mine}", nice_of("tplain-writer"));
    assert!(settled("tplain-flusher", mine), "flusher at {:?}, this thread at {mine}", nice_of("tplain-flusher"));
    s.close();
    plain.close();
}
