use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use search::{Doc, Index, Key, Opened};

const HANZI: &str = "订单超时时间装修公司工程项目合同施工队材料仓库入库出库审批财务张三李四王五北京上海广州深圳有限责任";
const LATIN: &str = "abcXYZ0123456789 -_";

fn random_text(rng: &mut StdRng) -> String {
    let hanzi: Vec<char> = HANZI.chars().collect();
    let latin: Vec<char> = LATIN.chars().collect();
    let len = rng.random_range(0..14);
    (0..len).map(|_| if rng.random_bool(0.7) { hanzi[rng.random_range(0..hanzi.len())] } else { latin[rng.random_range(0..latin.len())] }).collect()
}

fn doc(tenant: &str, id: u64, name: &str) -> Doc {
    Doc {
        tenant: tenant.into(),
        resource: "param".into(),
        id,
        title: name.into(),
        fields: vec![("paramName".into(), name.into())],
        names: Vec::new(),
    }
}

#[test]
fn contains_gives_exactly_what_like_gives() {
    let dir = tempfile::tempdir().unwrap();
    let (ix, opened) = Index::open(dir.path(), "").unwrap();
    assert_eq!(opened, Opened::Fresh);
    let mut rng = StdRng::seed_from_u64(7);
    let texts: Vec<String> = (0..3000).map(|_| random_text(&mut rng)).collect();
    let docs: Vec<Doc> = texts.iter().enumerate().map(|(i, t)| doc("A", i as u64 + 1, t)).collect();
    ix.apply(&docs, &[], 3000).unwrap();
    // The other tenant holds the same texts: none of its ids may come back.
    let other: Vec<Doc> = texts.iter().enumerate().map(|(i, t)| doc("B", 100_000 + i as u64, t)).collect();
    ix.apply(&other, &[], 6000).unwrap();
    let mut checked = 0;
    for _ in 0..400 {
        // A fragment of a stored text (1–9 characters), sometimes upper-cased, sometimes random.
        let needle: String = if rng.random_bool(0.8) {
            let t: Vec<char> = texts[rng.random_range(0..texts.len())].chars().collect();
            if t.is_empty() {
                continue;
            }
            let a = rng.random_range(0..t.len());
            let b = (a + rng.random_range(1..=9)).min(t.len());
            t[a..b].iter().collect()
        } else {
            random_text(&mut rng).chars().take(rng.random_range(1..=6)).collect()
        };
        if needle.is_empty() {
            continue;
        }
        let needle = if rng.random_bool(0.3) { needle.to_uppercase() } else { needle };
        let like: Vec<u64> = texts
            .iter()
            .enumerate()
            .filter(|(_, t)| t.to_lowercase().contains(&needle.to_lowercase()))
            .map(|(i, _)| i as u64 + 1)
            .collect();
        let candidates = ix.contains_indexed("A", "param", "paramName", &needle).unwrap().expect("a non-empty needle is answered");
        assert!(candidates.iter().all(|id| *id < 100_000), "another tenant's record for {needle:?}");
        // Exact from the index alone (the app still confirms against the store, which may be newer).
        assert_eq!(candidates, like, "needle {needle:?}: ids and total");
        checked += 1;
    }
    assert!(checked > 300);
    assert_eq!(ix.contains_indexed("A", "param", "paramName", "").unwrap(), None);
    assert_eq!(ix.contains("A", "param", "paramName", "").unwrap(), None);
    assert_eq!(ix.contains("A", "param", "otherField", "订单").unwrap(), Some(vec![]), "grams are per field");
}

/// Texts of up to 40 characters (longer than the fragments' exact span of 17), from a small alphabet so that
/// needles repeat.
fn long_text(rng: &mut StdRng) -> String {
    let chars: Vec<char> = "装修工程ab.1Ä".chars().collect();
    let len = rng.random_range(0..40);
    (0..len).map(|_| chars[rng.random_range(0..chars.len())]).collect()
}

#[test]
fn fragments_in_memory_answer_what_like_gives_and_follow_every_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (ix, _) = Index::open(dir.path(), "").unwrap();
    let mut rng = StdRng::seed_from_u64(11);
    let mut texts: Vec<Option<String>> = (0..2000).map(|_| Some(long_text(&mut rng))).collect();
    let docs: Vec<Doc> = texts.iter().enumerate().map(|(i, t)| doc("A", i as u64 + 1, t.as_deref().unwrap())).collect();
    ix.apply(&docs, &[], 1).unwrap();
    let other: Vec<Doc> = (0..500).map(|i| doc("B", 50_000 + i, "装修工程ab")).collect();
    ix.apply(&other, &[], 2).unwrap();
    ix.hold_fragments("A", "param", "paramName").unwrap();
    assert_eq!(ix.fragments().fields, 1);
    let needles = ["装", "ä", "修工", "ab.1", "b.1装修", "工程工程", "1111", "ab.1ab.1ab", "Äb", "程a"];
    let check = |texts: &[Option<String>], ix: &Index, when: &str| {
        for n in needles {
            let like: Vec<u64> = texts
                .iter()
                .enumerate()
                .filter(|(_, t)| t.as_ref().is_some_and(|t| t.to_lowercase().contains(&n.to_lowercase())))
                .map(|(i, _)| i as u64 + 1)
                .collect();
            let before = ix.fragments().answers;
            assert_eq!(ix.contains("A", "param", "paramName", n).unwrap().unwrap(), like, "needle {n:?} {when}");
            assert_eq!(ix.fragments().answers, before + 1, "answered from memory: {n:?} {when}");
            assert_eq!(ix.contains_indexed("A", "param", "paramName", n).unwrap().unwrap(), like, "tantivy: {n:?} {when}");
        }
    };
    check(&texts, &ix, "as built");
    // Commits: texts replaced, records removed, new records; the other tenant's changes change nothing here.
    for round in 0..5u64 {
        let mut ups = Vec::new();
        let mut dels = Vec::new();
        for _ in 0..150 {
            let i = rng.random_range(0..texts.len());
            // One change per record and commit: the last one taken.
            ups.retain(|d: &Doc| d.id != i as u64 + 1);
            dels.retain(|k: &Key| k.id != i as u64 + 1);
            if rng.random_bool(0.3) {
                texts[i] = None;
                dels.push(Key { tenant: "A".into(), resource: "param".into(), id: i as u64 + 1 });
            } else {
                let t = long_text(&mut rng);
                ups.push(doc("A", i as u64 + 1, &t));
                texts[i] = Some(t);
            }
        }
        let t = long_text(&mut rng);
        ups.push(doc("A", texts.len() as u64 + 1, &t));
        texts.push(Some(t));
        ups.push(doc("B", 60_000 + round, "b.1装修"));
        ix.apply(&ups, &dels, 3 + round).unwrap();
        check(&texts, &ix, &format!("after commit {round}"));
    }
    // A record stored under an id older than the newest (never held): the field is dropped, tantivy answers.
    ix.apply(&[doc("A", 0, "ab.1ab.1ab")], &[], 10).unwrap();
    assert_eq!(ix.fragments().fields, 0);
    let n = ix.contains("A", "param", "paramName", "ab.1ab.1ab").unwrap().unwrap();
    assert_eq!(n.first(), Some(&0));
    // No budget: nothing is held or built.
    ix.set_fragment_budget(0);
    ix.hold_fragments("A", "param", "paramName").unwrap();
    assert_eq!(ix.fragments().fields, 0);
}

#[test]
fn free_text_search_by_fragment_word_and_pinyin_within_the_tenant() {
    let dir = tempfile::tempdir().unwrap();
    let (ix, _) = Index::open(dir.path(), "").unwrap();
    let person = |tenant: &str, id: u64, name: &str, phone: &str| Doc {
        tenant: tenant.into(),
        resource: "user".into(),
        id,
        title: name.into(),
        fields: vec![("realName".into(), name.into()), ("phone".into(), phone.into())],
        names: vec![name.into()],
    };
    ix.apply(
        &[
            person("A", 1, "张三", "13800138000"),
            person("A", 2, "李四", "13900001111"),
            person("B", 3, "张三", "13800138000"),
            Doc { tenant: "A".into(), resource: "project".into(), id: 4, title: "北京装修工程".into(), fields: vec![("projectName".into(), "北京朝阳区住宅装修工程".into())], names: vec![] },
        ],
        &[],
        4,
    )
    .unwrap();
    let ids = |q: &str, res: &[&str]| -> Vec<u64> {
        let (hits, total) = ix.search("A", res, q, 0, 10).unwrap();
        assert_eq!(total, hits.len());
        let mut v: Vec<u64> = hits.iter().map(|h| h.id).collect();
        v.sort();
        v
    };
    assert_eq!(ids("zhangsan", &[]), vec![1], "full spelling, and never tenant B's 张三");
    assert_eq!(ids("zs", &[]), vec![1], "initials");
    assert_eq!(ids("ZhangSan", &[]), vec![1], "any case");
    assert_eq!(ids("0013", &[]), vec![1], "a fragment of a phone number");
    assert_eq!(ids("装修", &[]), vec![4]);
    assert_eq!(ids("朝阳 住宅", &[]), vec![4], "every part must match");
    assert_eq!(ids("朝阳 广州", &[]), Vec::<u64>::new());
    assert_eq!(ids("张", &["project"]), Vec::<u64>::new(), "limited to the resources asked");
    assert_eq!(ids("张", &["user", "project"]), vec![1]);
    let (hits, _) = ix.search("A", &[], "装修", 0, 10).unwrap();
    assert_eq!(hits[0].title, "北京装修工程");
    assert_eq!(hits[0].fields, vec![("projectName".to_string(), "北京朝阳区住宅装修工程".to_string())]);
    assert_eq!(ix.search("B", &[], "lisi", 0, 10).unwrap().1, 0);
}

#[test]
fn commits_carry_their_sequence_and_survive_reopening() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (ix, opened) = Index::open(dir.path(), "").unwrap();
        assert_eq!(opened, Opened::Fresh);
        ix.apply(&[doc("A", 1, "订单超时"), doc("A", 2, "订单取消")], &[], 41).unwrap();
        ix.apply(&[doc("A", 2, "订单完成")], &[Key { tenant: "A".into(), resource: "param".into(), id: 1 }], 42).unwrap();
        assert_eq!(ix.committed_seq().unwrap(), 42);
    }
    let (ix, opened) = Index::open(dir.path(), "").unwrap();
    assert_eq!(opened, Opened::Current(42));
    assert_eq!(ix.contains("A", "param", "paramName", "订单").unwrap(), Some(vec![2]), "deleted and replaced documents are gone");
    assert_eq!(ix.contains("A", "param", "paramName", "取消").unwrap(), Some(vec![]));
    assert_eq!(ix.len(), 1);
    drop(ix);

    // Another schema version: emptied, and said so.
    std::fs::write(dir.path().join("zz-schema-version"), "0").unwrap();
    let (ix, opened) = Index::open(dir.path(), "").unwrap();
    assert_eq!(opened, Opened::Fresh);
    assert!(ix.is_empty());
    ix.apply(&[doc("A", 1, "x")], &[], 5).unwrap();
    drop(ix);

    // Damaged: the meta file is garbage.
    std::fs::write(dir.path().join("meta.json"), "{not json").unwrap();
    let (ix, opened) = Index::open(dir.path(), "").unwrap();
    assert_eq!(opened, Opened::Fresh);
    assert!(ix.is_empty());
}

/// New records (ids above any in the index) are added without a delete of their key first; every other upsert
/// still replaces its document: an update after the create, a key twice in one commit, an update after the index
/// was reopened (the bound read back from the segments) and after it was emptied. A delete of an id above the bound
/// is skipped (nothing can hold it); any other removes its document.
#[test]
fn upserts_replace_their_document_whether_or_not_it_is_new() {
    let dir = tempfile::tempdir().unwrap();
    let names = |ix: &Index, needle: &str| ix.contains("A", "param", "paramName", needle).unwrap();
    {
        let (ix, _) = Index::open(dir.path(), "").unwrap();
        // New records in either order: none is deleted first.
        ix.apply(&[doc("A", 20, "订单取消"), doc("A", 10, "订单超时")], &[], 1).unwrap();
        assert_eq!(ix.deletes(), 0, "new records are added without a delete");
        ix.apply(&[doc("A", 10, "订单完成"), doc("A", 30, "仓库入库")], &[], 2).unwrap();
        assert_eq!(ix.deletes(), 1, "only the update deletes");
        assert_eq!(names(&ix, "超时"), Some(vec![]), "the update replaced the created document");
        assert_eq!(names(&ix, "订单"), Some(vec![10, 20]));
        // A new id twice in one commit (and an older id below it): one document each, the last one's text.
        ix.apply(&[doc("A", 40, "材料出库"), doc("A", 15, "财务审批"), doc("A", 40, "材料退库")], &[], 3).unwrap();
        assert_eq!(ix.deletes(), 3, "the older id, and the new one's second add");
        assert_eq!(names(&ix, "出库"), Some(vec![]));
        assert_eq!(names(&ix, "材料"), Some(vec![40]));
        assert_eq!(ix.len(), 5);
    }
    let (ix, _) = Index::open(dir.path(), "").unwrap();
    ix.apply(&[doc("A", 40, "材料入库"), doc("A", 30, "仓库盘点")], &[], 4).unwrap();
    assert_eq!(names(&ix, "材料"), Some(vec![40]));
    assert_eq!(names(&ix, "退库"), Some(vec![]), "reopened, an update still replaces");
    assert_eq!(names(&ix, "仓库"), Some(vec![30]));
    assert_eq!(ix.len(), 5);
    // A delete above every id is nothing to remove; one below removes its document, newest or not.
    let key = |id| Key { tenant: "A".into(), resource: "param".into(), id };
    let before = ix.deletes();
    ix.apply(&[], &[key(41), key(1_000)], 5).unwrap();
    assert_eq!((ix.len(), ix.deletes()), (5, before), "nothing looked up");
    ix.apply(&[], &[key(40), key(10)], 6).unwrap();
    assert_eq!(names(&ix, "材料"), Some(vec![]));
    assert_eq!(names(&ix, "订单"), Some(vec![20]));
    assert_eq!(ix.len(), 3);
    // Emptied (a rebuild): ids start again from nothing, and a document added twice is still one.
    ix.clear().unwrap();
    ix.apply(&[doc("A", 5, "合同施工")], &[], 7).unwrap();
    ix.apply(&[doc("A", 5, "合同签订")], &[], 8).unwrap();
    assert_eq!(names(&ix, "合同"), Some(vec![5]));
    assert_eq!(ix.len(), 1);
}

#[test]
fn another_layout_or_an_interrupted_rebuild_starts_over() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (ix, _) = Index::open(dir.path(), "param:paramName").unwrap();
        ix.apply(&[doc("A", 1, "订单超时")], &[], 7).unwrap();
    }
    assert_eq!(Index::peek(dir.path(), Some("param:paramName")), Ok(7));
    assert!(Index::peek(dir.path(), Some("param:paramName,paramKey")).is_err(), "peek sees a layout change");
    let (ix, opened) = Index::open(dir.path(), "param:paramName,paramKey").unwrap();
    assert_eq!(opened, Opened::Fresh, "the declared fields changed");
    // A rebuild: partial commits, then the last one with its sequence number.
    ix.apply_partial(&[doc("A", 1, "订单超时")]).unwrap();
    assert_eq!(ix.committed_seq().unwrap(), 0);
    drop(ix);
    let (ix, opened) = Index::open(dir.path(), "param:paramName,paramKey").unwrap();
    assert_eq!(opened, Opened::Fresh, "an interrupted rebuild is not taken for current");
    assert!(ix.is_empty());
    // Resources' ids interleave (one id sequence for all): a rebuild adds each record once and deletes nothing.
    ix.apply_partial(&[doc("A", 1, "订单超时"), doc("A", 7, "订单完成")]).unwrap();
    ix.apply_partial(&[Doc { resource: "project".into(), ..doc("A", 3, "项目订单") }]).unwrap();
    ix.finish_rebuild(&[doc("A", 2, "订单取消")], 9).unwrap();
    assert_eq!(ix.deletes(), 0);
    assert_eq!(ix.seq(), 9);
    drop(ix);
    let (ix, opened) = Index::open(dir.path(), "param:paramName,paramKey").unwrap();
    assert_eq!(opened, Opened::Current(9));
    assert_eq!(ix.contains("A", "param", "paramName", "订单").unwrap(), Some(vec![1, 2, 7]));
    assert_eq!(ix.len(), 4);
    // Following again: an update of a rebuilt record still replaces it.
    ix.apply(&[doc("A", 7, "仓库盘点")], &[], 10).unwrap();
    assert_eq!(ix.contains("A", "param", "paramName", "订单").unwrap(), Some(vec![1, 2]));
    assert_eq!(ix.len(), 4);
}

#[test]
fn keyword_ids_rank_and_the_record_test_agrees_with_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let (ix, _) = Index::open(dir.path(), "").unwrap();
    let person = |id: u64, name: &str, note: &str| Doc {
        tenant: "A".into(),
        resource: "user".into(),
        id,
        title: name.into(),
        fields: vec![("realName".into(), name.into()), ("remark".into(), note.into())],
        names: vec![name.into()],
    };
    let docs = vec![
        person(1, "张三", "北京装修公司项目经理"),
        person(2, "李四", "张家口仓库"),
        person(3, "王五", "装修 工长"),
        person(4, "Zhang Wei", "ACME-2026"),
    ];
    ix.apply(&docs, &[], 1).unwrap();
    for q in ["zs", "zhangsan", "装修", "张", "acme-20", "装修 经理", "wang", "zhang", "北京 zs", "仓", "nothing"] {
        let (ids, ranked) = ix.keyword_ids("A", "user", q, 100).unwrap().unwrap();
        assert!(ranked);
        let mut ids = ids;
        ids.sort();
        let by_test: Vec<u64> = docs
            .iter()
            .filter(|d| {
                let fields: Vec<&str> = d.fields.iter().map(|(_, v)| v.as_str()).collect();
                let names: Vec<&str> = d.names.iter().map(String::as_str).collect();
                search::text::matches(&fields, &names, q)
            })
            .map(|d| d.id)
            .collect();
        assert_eq!(ids, by_test, "{q}");
    }
    let (ids, ranked) = ix.keyword_ids("A", "user", "装修", 1).unwrap().unwrap();
    assert!(!ranked, "beyond rank_max the ids come unranked");
    assert_eq!(ids, vec![1, 3]);
    assert!(ix.keyword_ids("B", "user", "zs", 10).unwrap().unwrap().0.is_empty(), "another tenant sees nothing");
}
