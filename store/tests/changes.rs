//! The change log the search index follows, and lists answered from an index's candidates (hints): the same
//! rows and totals as walking every record, whatever changed since the hint was taken.
use std::sync::Arc;

use serde_json::{Map, Value, json};
use store::{Actor, Filter, Hint, Op, Options, Predicate, Query, ResourceDef, Sort, Store};

fn def() -> Arc<ResourceDef> {
    Arc::new(
        serde_json::from_value(json!({
            "name": "param", "label": "参数",
            "fields": [
                {"name": "paramName", "label": "n", "required": true, "filter": true, "sort": true, "search": true},
                {"name": "n", "kind": "int", "label": "n", "filter": true, "sort": true},
                {"name": "deptId", "kind": "long", "label": "d", "filter": true}
            ]
        }))
        .unwrap(),
    )
}

fn plain() -> Arc<ResourceDef> {
    Arc::new(serde_json::from_value(json!({"name": "note", "label": "n", "fields": [{"name": "x", "label": "x", "filter": true}]})).unwrap())
}

fn open() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&dir.path().join("t.redb"), &Options::default()).unwrap();
    (dir, s)
}

const WORDS: &[&str] = &["订单超时", "订单取消", "超时时间", "装修公司", "项目合同", "Order-1", "order-2"];

fn insert(s: &Store, n: usize, salt: usize) -> Vec<u64> {
    let d = def();
    s.write(move |w| {
        let mut ids = Vec::new();
        for i in 0..n {
            let k = i * 7 + salt;
            let name = format!("{}{}", WORDS[k % WORDS.len()], k % 5);
            let rec = w.insert(&d, "A", json!({"paramName": name, "n": (k % 10) as i64, "deptId": (k % 3) as u64}).as_object().unwrap().clone(), &Actor::default())?;
            ids.push(rec["id"].as_u64().unwrap());
        }
        Ok(ids)
    })
    .unwrap()
}

/// What an index at this moment would answer for `paramName contains needle`: every matching id, ascending.
fn index_answer(s: &Store, needle: &str) -> (u64, Vec<u64>) {
    let d = def();
    let needle = needle.to_lowercase();
    s.read(|r| {
        let seq = r.change_seq()?;
        let mut ids = Vec::new();
        r.for_each(&d, "A", |rec| {
            if rec["paramName"].as_str().unwrap().to_lowercase().contains(&needle) {
                ids.push(rec["id"].as_u64().unwrap());
            }
            Ok(())
        })?;
        Ok((seq, ids))
    })
    .unwrap()
}

#[test]
fn searchable_writes_are_numbered_in_their_commit_and_pruned_once_indexed() {
    let (_d, s) = open();
    assert_eq!(s.change_seq(), 0);
    let ids = insert(&s, 5, 0);
    assert_eq!(s.change_seq(), 5);
    let p = plain();
    s.write(move |w| w.insert(&p, "A", json!({"x": "1"}).as_object().unwrap().clone(), &Actor::default())).unwrap();
    assert_eq!(s.change_seq(), 5, "a resource without searchable fields is not logged");
    let (d, first) = (def(), ids[0]);
    s.write(move |w| w.update(&d, "A", first, json!({"n": 9}).as_object().unwrap().clone(), &Actor::default())).unwrap();
    assert_eq!(s.change_seq(), 5, "an update that leaves the searched fields alone is not logged");
    let d = def();
    s.write(move |w| {
        w.update(&d, "A", first, json!({"paramName": "改名"}).as_object().unwrap().clone(), &Actor::default())?;
        w.remove(&d, "A", &[first], &Actor::default())
    })
    .unwrap();
    let log = s.read(|r| r.changes_after(0, 100)).unwrap();
    assert_eq!(log.iter().map(|c| c.seq).collect::<Vec<_>>(), (1..=7).collect::<Vec<_>>());
    assert_eq!((log[5].id, log[6].id), (first, first));
    assert_eq!(s.read(|r| r.changes_after(5, 1)).unwrap()[0].seq, 6);
    assert!(s.wait_changes(6, std::time::Duration::from_millis(1)) == 7);

    // Pruned by the next commit once the follower holds them; the log then no longer reaches back.
    s.set_indexed(6);
    insert(&s, 1, 3);
    let log = s.read(|r| r.changes_after(0, 100)).unwrap();
    assert_eq!(log.iter().map(|c| c.seq).collect::<Vec<_>>(), vec![7, 8]);
    assert!(s.read(|r| r.changes_reach(6)).unwrap());
    assert!(!s.read(|r| r.changes_reach(3)).unwrap());
    assert!(s.read(|r| r.changes_reach(8)).unwrap());

    // The sequence survives reopening.
    let path = s.path().to_path_buf();
    s.close();
    drop(s);
    let s = Store::open(&path, &Options::default()).unwrap();
    assert_eq!(s.change_seq(), 8);
    insert(&s, 1, 4);
    assert_eq!(s.change_seq(), 9);
}

#[test]
fn an_idle_store_prunes_its_change_log_without_other_writes() {
    let (_d, s) = open();
    insert(&s, 10_000, 0);
    assert_eq!(s.change_seq(), 10_000);
    assert!(!s.prune_changes().unwrap(), "nothing is pruned before the follower holds it");
    assert_eq!(s.read(|r| r.changes_after(0, 20_000)).unwrap().len(), 10_000);

    s.set_indexed(6_000);
    s.set_read_only(Some("standby".into()));
    assert!(!s.prune_changes().unwrap(), "a store that refuses writes leaves its log to its primary");
    s.set_read_only(None);
    // A few thousand a commit: more than one commit for 6,000 entries, and only what the follower holds.
    let mut commits = 1;
    while s.prune_changes().unwrap() {
        commits += 1;
    }
    assert!(commits >= 2, "{commits}");
    assert_eq!(s.changes_pruned(), 6_000);
    let left = s.read(|r| r.changes_after(0, 20_000)).unwrap();
    assert_eq!((left.len(), left[0].seq), (4_000, 6_001));
    assert!(s.read(|r| r.changes_reach(6_000)).unwrap());
    assert!(!s.read(|r| r.changes_reach(5_999)).unwrap());

    s.set_indexed(10_000);
    while s.prune_changes().unwrap() {}
    assert!(s.read(|r| r.changes_after(0, 20_000)).unwrap().is_empty());
    assert!(s.read(|r| r.changes_reach(10_000)).unwrap());
    // What was pruned stays pruned: the next start begins after it.
    let path = s.path().to_path_buf();
    s.close();
    drop(s);
    let s = Store::open(&path, &Options::default()).unwrap();
    assert_eq!((s.change_seq(), s.changes_pruned()), (10_000, 10_000));
    assert!(s.read(|r| r.changes_after(0, 20_000)).unwrap().is_empty());
}

fn raw_ids(p: &store::Page) -> Vec<u64> {
    p.rows.iter().map(|r| store::decode_record(r).unwrap()["id"].as_u64().unwrap()).collect()
}

fn hinted(q: &Query, seq: u64, ids: Vec<u64>) -> Query {
    let mut q = q.clone();
    let answers = q.filters.iter().enumerate().filter(|(_, f)| f.op == Op::Contains && f.field == "paramName").map(|(i, _)| i).collect();
    q.hint = Some(Hint { seq, ids, ranked: false, answers, check: false });
    q
}

#[test]
fn hinted_lists_give_what_walking_gives_while_records_change() {
    let (_d, s) = open();
    insert(&s, 300, 0);
    let d = def();
    for needle in ["订单", "超时", "order", "1", "装修公司3", "无"] {
        // The hint is taken, then records change: inserts, updates into and out of the match, removals.
        let (seq, ids) = index_answer(&s, needle);
        let newer = insert(&s, 20, 1);
        let (d2, upd) = (d.clone(), newer.clone());
        s.write(move |w| {
            w.update(&d2, "A", upd[0], json!({"paramName": "订单超时时间"}).as_object().unwrap().clone(), &Actor::default())?;
            w.update(&d2, "A", upd[1], json!({"paramName": "别的"}).as_object().unwrap().clone(), &Actor::default())?;
            w.remove(&d2, "A", &upd[2..4], &Actor::default())
        })
        .unwrap();
        if let Some(&old) = ids.first() {
            let d3 = d.clone();
            s.write(move |w| w.remove(&d3, "A", &[old], &Actor::default())).unwrap();
        }
        let contains = Filter::new("paramName", Op::Contains, json!(needle));
        let queries = vec![
            Query { limit: 10, filters: vec![contains.clone()], ..Default::default() },
            Query { limit: 7, offset: 7, filters: vec![contains.clone()], ..Default::default() },
            Query { limit: 10, filters: vec![contains.clone(), Filter::new("n", Op::Equal, json!(3))], ..Default::default() },
            Query { limit: 10, filters: vec![contains.clone(), Filter::new("n", Op::Ge, json!(5))], ..Default::default() },
            Query { limit: 10, filters: vec![contains.clone()], any: vec![Filter::new("deptId", Op::In, json!([1, 2]))], ..Default::default() },
            Query { limit: 10, filters: vec![contains.clone()], sorts: vec![Sort { field: "n".into(), desc: true }], ..Default::default() },
            Query { limit: 10, filters: vec![contains.clone()], sorts: vec![Sort { field: "id".into(), desc: false }], ..Default::default() },
        ];
        for q in queries {
            let walked = s.read(|r| r.list(&d, "A", &q)).unwrap();
            let fast = s.read(|r| r.list(&d, "A", &hinted(&q, seq, ids.clone()))).unwrap();
            let idsof = |p: &store::Page| p.records.iter().map(|r| r["id"].as_u64().unwrap()).collect::<Vec<_>>();
            assert_eq!((idsof(&fast), fast.total), (idsof(&walked), walked.total), "{needle} {q:?}");
            // The same page as stored rows (only the filtered fields decoded to confirm the index's rows).
            let raw = s.read(|r| r.list(&d, "A", &Query { raw_rows: true, ..hinted(&q, seq, ids.clone()) })).unwrap();
            assert_eq!((raw_ids(&raw), raw.total), (idsof(&walked), walked.total), "raw rows: {needle} {q:?}");
        }
        // A wrong hint (an id that does not match, a missing one) costs time, never a wrong row.
        let q = Query { limit: 10, filters: vec![contains.clone()], ..Default::default() };
        let walked = s.read(|r| r.list(&d, "A", &q)).unwrap();
        let mut wrong = ids.clone();
        wrong.push(newer[1]);
        wrong.sort();
        let fast = s.read(|r| r.list(&d, "A", &hinted(&q, s.change_seq(), wrong.clone()))).unwrap();
        assert_eq!(fast.records.len(), walked.records.len(), "{needle}");
        let raw = s.read(|r| r.list(&d, "A", &Query { raw_rows: true, ..hinted(&q, s.change_seq(), wrong) })).unwrap();
        let fast_ids: Vec<u64> = fast.records.iter().map(|r| r["id"].as_u64().unwrap()).collect();
        assert_eq!((raw_ids(&raw), raw.total), (fast_ids, fast.total), "a wrong hint, raw rows: {needle}");
    }
}

#[test]
fn a_check_and_a_ranked_hint() {
    let (_d, s) = open();
    let ids = insert(&s, 40, 0);
    let d = def();
    let check = Predicate { test: Arc::new(|r: &Map<String, Value>| r["n"].as_i64().unwrap() % 2 == 0), keyword: None };
    let q = Query { limit: 5, check: Some(check.clone()), ..Default::default() };
    let walked = s.read(|r| r.list(&d, "A", &q)).unwrap();
    assert_eq!(walked.total, 20);
    assert!(store::walks(&d, &q), "a check walks without a hint");
    // Ranked: the hint's order is kept when the list has no sort.
    let evens: Vec<u64> = ids.iter().copied().enumerate().filter(|(i, _)| (i * 7) % 10 % 2 == 0).map(|(_, id)| id).collect();
    let mut ranked = evens.clone();
    ranked.reverse();
    ranked.rotate_left(3);
    let hq = Query { hint: Some(Hint { seq: s.change_seq(), ids: ranked.clone(), ranked: true, answers: vec![], check: true }), ..q.clone() };
    assert!(!store::walks(&d, &hq));
    let page = s.read(|r| r.list(&d, "A", &hq)).unwrap();
    assert_eq!(page.total, 20);
    assert_eq!(page.records.iter().map(|r| r["id"].as_u64().unwrap()).collect::<Vec<_>>(), ranked[..5].to_vec());
}
