//! Search (issue 8): list text filters answered from the index give exactly what walking the records gives;
//! the list keyword (fragments, words, pinyin); the search box across resources with permissions, data scopes
//! and tenants applied; removed records leave; a deleted index directory is rebuilt.
use serde_json::{Value, json};
use store::{Filter, Op, Query};

use crate::support::{App, urlencode};

const A: &str = "157270";
const B: &str = "741487";

const HANZI: &str = "订单超时时间装修公司工程项目合同施工队材料仓库入库出库审批张三李四北京上海";

fn put(app: &App, tenant: &str, res: &str, doc: Value) -> u64 {
    let (r, t, res) = (app.st.res.clone(), tenant.to_string(), res.to_string());
    app.st.store.write(move |w| Ok(w.insert(&r.get(&res), &t, doc.as_object().unwrap().clone(), &store::Actor::default())?["id"].as_u64().unwrap())).unwrap()
}

fn ids_of(v: &Value) -> Vec<String> {
    v["data"]["records"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
}

/// The list as a walk over every record gives it (no index involved).
fn walked(app: &App, tenant: &str, field: &str, needle: &str) -> (Vec<String>, u64) {
    let def = app.st.res.get("param");
    let q = Query { limit: 1000, filters: vec![Filter::new(field, Op::Contains, json!(needle))], ..Default::default() };
    assert!(q.hint.is_none());
    let page = app.st.store.read(|r| r.list(&def, tenant, &q)).unwrap();
    (page.records.iter().map(|r| r["id"].as_u64().unwrap().to_string()).collect(), page.total)
}

#[tokio::test]
async fn contains_filters_from_the_index_equal_the_walk() {
    let app = App::new();
    let t = app.admin(A).await;
    let chars: Vec<char> = HANZI.chars().collect();
    let mut seed = 7u64;
    let mut rnd = move |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let mut names = Vec::new();
    for i in 0..400 {
        let len = 2 + rnd(9) as usize;
        let mut s: String = (0..len).map(|_| if rnd(10) < 8 { chars[rnd(chars.len() as u64) as usize] } else { "aB0-9 x".chars().nth(rnd(7) as usize).unwrap() }).collect();
        s = s.trim().to_string();
        if s.is_empty() {
            s = "空".into();
        }
        names.push(s.clone());
        put(&app, A, "param", json!({"paramName": s, "paramKey": format!("key.{i}"), "paramValue": "v"}));
        // The same names in tenant B: never in A's answers.
        if i % 3 == 0 {
            put(&app, B, "param", json!({"paramName": s, "paramKey": format!("key.{i}"), "paramValue": "v"}));
        }
    }
    app.indexed();
    // The field's fragments held in memory (the server builds them on a thread when a field is first asked):
    // every answer below comes from them, and must be what the walk gives.
    let ix = app.st.index.as_ref().expect("the index is on");
    ix.index().hold_fragments(A, "param", "paramName").unwrap();
    let answered = ix.index().fragments().answers;
    let mut asked = std::collections::HashSet::new();
    let mut tried = 0;
    for (i, name) in names.iter().enumerate().take(120) {
        let cs: Vec<char> = name.chars().collect();
        let len = 1 + i % 6.min(cs.len());
        let start = (i * 7) % (cs.len() + 1 - len.min(cs.len()));
        let needle: String = cs[start..(start + len).min(cs.len())].iter().collect();
        // The API trims filter values.
        let needle = needle.trim().to_string();
        if needle.is_empty() {
            continue;
        }
        asked.insert(needle.clone());
        let (want, total) = walked(&app, A, "paramName", &needle);
        let url = format!("/api/blade-system/param/list?size=1000&paramName={}", urlencode(&needle));
        let (s, v) = app.get(&url, &t).await;
        assert_eq!(s, 200, "{v}");
        assert_eq!((ids_of(&v), v["data"]["total"].as_u64().unwrap()), (want, total), "needle {needle:?}");
        tried += 1;
    }
    assert!(tried > 100);
    // (A needle asked twice is answered the second time from the list's answer cache.)
    assert!(ix.index().fragments().answers >= answered + asked.len() as u64, "answered from the fragments in memory: {:?}", ix.index().fragments());
    let st = ix.status();
    assert!(st.fragments.fields >= 1 && st.fragments.bytes > 0, "{st:?}");
    assert!((32 << 20..=256 << 20).contains(&st.fragments.budget), "a share of the machine: {st:?}");
    // Paging and an exact filter on top.
    let (want, total) = walked(&app, A, "paramName", "订");
    let (_, v) = app.get(&format!("/api/blade-system/param/list?size=5&current=3&paramName={}", urlencode("订")), &t).await;
    assert_eq!(v["data"]["total"].as_u64().unwrap(), total);
    assert_eq!(ids_of(&v), want[10..15.min(want.len())].to_vec());

    // Written after the index caught up, and removed: lists are exact at once, whatever the index holds yet.
    let fresh = put(&app, A, "param", json!({"paramName": "刚刚写入的超时参数", "paramKey": "fresh", "paramValue": "v"}));
    let (_, v) = app.get(&format!("/api/blade-system/param/list?paramName={}", urlencode("刚刚写入")), &t).await;
    assert_eq!(ids_of(&v), vec![fresh.to_string()]);
    // The search box finds it once indexed (its answer is then cached), and not after it is removed.
    app.indexed();
    let (_, v) = app.get(&format!("/api/blade-search/search?q={}", urlencode("刚刚写入")), &t).await;
    assert_eq!(v["data"]["total"], 1, "{v}");
    let (s, _) = app.req("POST", &format!("/api/blade-system/param/remove?ids={fresh}"), Some(&t), None, &[]).await;
    assert_eq!(s, 200);
    let (_, v) = app.get(&format!("/api/blade-system/param/list?paramName={}", urlencode("刚刚写入")), &t).await;
    assert_eq!(v["data"]["total"], 0);
    app.indexed();
    let (_, v) = app.get(&format!("/api/blade-search/search?q={}", urlencode("刚刚写入")), &t).await;
    assert_eq!(v["data"]["total"], 0, "a removed record leaves the index: {v}");
}


#[tokio::test]
async fn keyword_finds_fragments_words_and_pinyin_of_names() {
    let app = App::new();
    let t = app.admin(A).await;
    for (account, real) in [("zhang3", "张三丰"), ("lisi", "李四"), ("wangwu", "王五"), ("zsf2", "赵书放")] {
        put(&app, A, "user", json!({"account": account, "name": real, "realName": real, "deptId": "1", "passwordHash": "x", "tokenVersion": 0}));
    }
    app.indexed();
    let accounts = |v: &Value| {
        let mut a: Vec<String> = v["data"]["records"].as_array().unwrap().iter().map(|r| r["account"].as_str().unwrap().to_string()).collect();
        a.sort();
        a
    };
    for (kw, want) in [("zsf", vec!["zhang3", "zsf2"]), ("zhangsanfeng", vec!["zhang3"]), ("李", vec!["lisi"]), ("wang", vec!["wangwu"]), ("zsf 三", vec!["zhang3"]), ("没有", vec![])] {
        let (s, v) = app.get(&format!("/api/blade-user/page?size=50&keyword={}", urlencode(kw)), &t).await;
        assert_eq!(s, 200, "{v}");
        assert_eq!(accounts(&v), want, "keyword {kw}");
        assert_eq!(v["data"]["total"], want.len());
    }
}

#[tokio::test]
async fn the_search_box_applies_permissions_tenants_and_links() {
    let app = App::new();
    let a = app.admin(A).await;
    let b = app.admin(B).await;
    put(&app, A, "param", json!({"paramName": "仓库预警阈值", "paramKey": "wms.alert", "paramValue": "5"}));
    put(&app, A, "post", json!({"category": 1, "postCode": "depot", "postName": "仓库管理员", "sort": 1}));
    let b_param = put(&app, B, "param", json!({"paramName": "仓库预警阈值", "paramKey": "wms.alert", "paramValue": "5"}));
    app.indexed();
    let (s, v) = app.get(&format!("/api/blade-search/search?q={}", urlencode("仓库")), &a).await;
    assert_eq!(s, 200, "{v}");
    let hits = v["data"]["records"].as_array().unwrap();
    let resources: Vec<&str> = hits.iter().map(|h| h["resource"].as_str().unwrap()).collect();
    assert!(resources.contains(&"param") && resources.contains(&"post"), "{v}");
    assert!(hits.iter().all(|h| h["id"].as_str().unwrap() != b_param.to_string()), "tenant B's record in A's search");
    let p = hits.iter().find(|h| h["resource"] == "param").unwrap();
    assert!(p["snippet"].as_str().unwrap().contains("<em>仓库</em>"), "{p}");
    assert!(p["link"].as_str().unwrap().starts_with("/system/param?id="), "{p}");
    assert_eq!(p["resourceLabel"], "参数管理");
    // Tenant B sees its own only.
    let (_, v) = app.get(&format!("/api/blade-search/search?q={}", urlencode("仓库")), &b).await;
    let ids: Vec<String> = v["data"]["records"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids, vec![b_param.to_string()]);
    // A user with no codes: no records, no counts.
    app.make_role(A, "nobody", &[]).await;
    app.make_user(A, "nobody", "Nobody#123", &["nobody"]).await;
    let n = app.sign_in(A, "nobody", "Nobody#123").await;
    let (s, v) = app.get(&format!("/api/blade-search/search?q={}", urlencode("仓库")), &n).await;
    assert_eq!((s.as_u16(), &v["data"]["total"], v["data"]["records"].as_array().unwrap().len()), (200, &json!(0), 0), "{v}");
    // Only the post code: only posts.
    app.make_role(A, "posts", &["post"]).await;
    app.make_user(A, "poster", "Poster#123", &["posts"]).await;
    let pt = app.sign_in(A, "poster", "Poster#123").await;
    let (_, v) = app.get(&format!("/api/blade-search/search?q={}", urlencode("仓库")), &pt).await;
    let resources: Vec<&str> = v["data"]["records"].as_array().unwrap().iter().map(|h| h["resource"].as_str().unwrap()).collect();
    assert_eq!(resources, vec!["post"], "{v}");
    // Bad parameters are 400s that name them; signed out is 401.
    let (s, v) = app.get("/api/blade-search/search?q=x&resources=nope", &a).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("nope"));
    let (s, _) = app.get("/api/blade-search/search?q=x&size=500", &a).await;
    assert_eq!(s, 400);
    let (s, _) = app.req("GET", "/api/blade-search/search?q=x", None, None, &[]).await;
    assert_eq!(s, 401);
    // Menus: the user's own leaves whose name matches.
    let (_, v) = app.get(&format!("/api/blade-search/search?q={}", urlencode("参数")), &a).await;
    assert!(v["data"]["menus"].as_array().unwrap().iter().any(|m| m["path"] == "/system/param"), "{v}");
}

#[tokio::test]
async fn a_data_file_without_an_index_directory_gets_one_rebuilt_on_start() {
    let app = App::new();
    let id = put(&app, A, "param", json!({"paramName": "重建之前的参数", "paramKey": "before", "paramValue": "v"}));
    // A consistent copy of the data file alone, in a directory of its own (as after a restore).
    let keep = crate::support::tempdir();
    let file = keep.path().join(store::DATA_FILE);
    let res = app.st.res.clone();
    app.st.store.backup_to(&file, &move |n: &str| res.find(n)).unwrap();
    assert!(!keep.path().join("index").exists());
    let store = store::Store::open(&file, &store::Options::default()).unwrap();
    let st = zhizhuang::state::AppState::new(store, zhizhuang::decl::Resources::load().unwrap(), Default::default()).unwrap();
    let ix = st.index.clone().unwrap();
    assert!(ix.wait_caught_up(std::time::Duration::from_secs(30)), "{:?}", ix.status());
    assert_eq!(ix.status().rebuilds, 1);
    assert!(keep.path().join("index").is_dir());
    // Found under its own id (the rebuild reads only the searched fields and takes the id from the record's key).
    assert_eq!(ix.index().contains(A, "param", "paramName", "重建之前").unwrap().unwrap(), vec![id]);
    ix.stop();
}

#[tokio::test]
async fn every_searched_resource_stays_in_its_tenant() {
    let app = App::new();
    let mut planted = Vec::new();
    // A record of every searched, tenant-scoped resource in tenant B, its searched text fields holding a token.
    for (name, _, _) in zhizhuang::api::search::searched(&zhizhuang::decl::Resources::load().unwrap()) {
        let def = app.st.res.get(&name);
        if def.platform || !def.searchable() {
            continue;
        }
        let mut doc = serde_json::Map::new();
        for f in def.search_fields() {
            doc.insert(f.name.clone(), json!(format!("隔离{name}令牌")));
        }
        let id = put(&app, B, &name, Value::Object(doc));
        planted.push((name, id));
    }
    assert!(planted.len() >= 8, "{planted:?}");
    app.indexed();
    let a = app.admin(A).await;
    let b = app.admin(B).await;
    for (name, id) in &planted {
        let q = urlencode(&format!("隔离{name}令牌"));
        let (s, v) = app.get(&format!("/api/blade-search/search?q={q}&size=50"), &a).await;
        assert_eq!(s, 200, "{v}");
        assert_eq!(v["data"]["total"], 0, "{name}: tenant A sees tenant B's record: {v}");
        // The index itself answers nothing across tenants either.
        let ix = app.st.index.as_ref().unwrap();
        let field = app.st.res.get(name).search_fields().next().unwrap().name.clone();
        assert_eq!(ix.index().contains(A, name, &field, &format!("隔离{name}")).unwrap(), Some(vec![]), "{name}");
        assert_eq!(ix.index().contains(B, name, &field, &format!("隔离{name}")).unwrap(), Some(vec![*id]), "{name}");
        // Tenant B finds it where its admin may read the resource.
        let (_, v) = app.get(&format!("/api/blade-search/search?q={q}&size=50"), &b).await;
        let ids: Vec<&str> = v["data"]["records"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect();
        assert!(ids.is_empty() || ids == vec![id.to_string().as_str()], "{name}: {v}");
    }
}

/// A stream of writes is indexed in few commits (each one syncs its files and adds a segment to merge): at most one
/// per 200 ms after the first, where the follower used to commit as often as changes came. Every write is found.
#[tokio::test]
async fn a_stream_of_writes_is_indexed_in_few_commits() {
    let app = App::new();
    let t = app.admin(A).await;
    app.indexed();
    let ix = app.st.index.as_ref().expect("the index is on");
    let before = ix.status().commits;
    let started = std::time::Instant::now();
    for i in 0..120 {
        put(&app, A, "param", json!({"paramName": format!("流水参数{i}"), "paramKey": format!("stream.{i}"), "paramValue": "v"}));
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    app.indexed();
    let commits = ix.status().commits - before;
    let most = started.elapsed().as_millis() as u64 / 200 + 2;
    assert!(commits <= most, "{commits} index commits for 120 writes in {:?} (at most {most})", started.elapsed());
    let (s, v) = app.get(&format!("/api/blade-system/param/list?size=200&paramName={}", urlencode("流水参数")), &t).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["total"], 120, "{v}");
}

/// A quiet server prunes the change log itself once its index holds the changes: writes prune it as they commit, so
/// without this the last writes' entries (or a whole file's, written without a server) stayed for good.
#[tokio::test]
async fn a_quiet_server_prunes_its_change_log() {
    let app = App::new();
    let ix = app.st.index.as_ref().expect("the index is on");
    ix.set_prune_after(std::time::Duration::ZERO);
    for i in 0..5 {
        put(&app, A, "param", json!({"paramName": format!("安静参数{i}"), "paramKey": format!("quiet.{i}"), "paramValue": "v"}));
    }
    app.indexed();
    let store = &app.st.store;
    let seq = store.change_seq();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while store.changes_pruned() < seq && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(store.changes_pruned(), seq, "{:?}", ix.status());
    assert!(store.read(|r| r.changes_after(0, 10)).unwrap().is_empty());
    assert_eq!(ix.status().log_pruned, seq);
}

/// An ends-with filter (`_likeleft`) on a searched field takes its candidates from the index (a text that ends with
/// the needle contains it) and tests each: the same page and total as testing every record, answered where a walk
/// of the 3,000 records is past its 1 ms deadline (503).
#[tokio::test]
async fn ends_with_filters_take_their_candidates_from_the_index() {
    let app = App::with(zhizhuang::state::Settings { walk_deadline: std::time::Duration::from_millis(1), ..Default::default() });
    let t = app.admin(A).await;
    let (r, names) = (app.st.res.clone(), ["订单超时", "超时订单", "订单超时时间", "订单", "时间订单超时"]);
    app.st
        .store
        .write(move |w| {
            for i in 0..3000usize {
                // One record in 25 names an order's timeout, ending with it or not; the rest are other settings.
                let name = if i % 25 == 0 { format!("{}{}", names[i / 25 % names.len()], if i % 7 == 0 { "" } else { "甲" }) } else { format!("普通参数{i}") };
                let doc = json!({"paramName": name, "paramKey": format!("ew.{i}"), "paramValue": "v"});
                w.insert(&r.get("param"), A, doc.as_object().unwrap().clone(), &store::Actor::default())?;
            }
            Ok(())
        })
        .unwrap();
    app.indexed();
    let def = app.st.res.get("param");
    for needle in ["订单超时", "超时", "时间"] {
        let q = Query { limit: 10_000, filters: vec![Filter::new("paramName", Op::EndsWith, json!(needle))], ..Default::default() };
        let page = app.st.store.read(|r| r.list(&def, A, &q)).unwrap();
        let want: Vec<String> = page.records.iter().map(|r| r["id"].as_u64().unwrap().to_string()).collect();
        assert!(!want.is_empty() && page.total < 120, "{needle}: {}", page.total);
        let (s, v) = app.get(&format!("/api/blade-system/param/list?size=1000&paramName_likeleft={}", urlencode(needle)), &t).await;
        assert_eq!(s, 200, "{needle}: {v}");
        assert_eq!(v["data"]["total"].as_u64(), Some(page.total), "{needle}");
        assert_eq!(ids_of(&v), want.into_iter().take(1000).collect::<Vec<_>>(), "{needle}");
    }
    // A filter the index cannot give candidates for still walks, and its walk is past the deadline.
    let (s, _) = app.get(&format!("/api/blade-system/param/list?paramName_notlike={}", urlencode("超时")), &t).await;
    assert_eq!(s, 503);
}
