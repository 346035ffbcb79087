//! Rough scale check of the index alone: `cargo run -p search --release --example scale -- DIR N`.
//! Indexes N parameter-like documents in batches of 10,000, then times contains queries and free-text searches.
use std::time::Instant;

use search::{Doc, Index};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(args.get(1).cloned().unwrap_or_else(|| "/tmp/zz-search-scale".into()));
    let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(200_000);
    let _ = std::fs::remove_dir_all(&dir);
    let (ix, _) = Index::open(&dir, "").unwrap();
    let words = ["订单", "超时", "时间", "装修", "公司", "工程", "项目", "合同", "材料", "仓库", "审批", "财务"];
    let t = Instant::now();
    let mut batch = Vec::with_capacity(10_000);
    for i in 1..=n {
        let name = format!("{}{}参数{}", words[(i % 12) as usize], words[((i / 12) % 12) as usize], i);
        batch.push(Doc { tenant: "157270".into(), resource: "param".into(), id: i, title: name.clone(), fields: vec![("paramName".into(), name), ("paramKey".into(), format!("bench.key.{i}"))], names: vec![] });
        if batch.len() == 10_000 || i == n {
            ix.apply(&batch, &[], i).unwrap();
            batch.clear();
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!("indexed {n} docs in {secs:.1} s ({:.0}/s), {} MiB on disk", n as f64 / secs, ix.disk_bytes() >> 20);
    for needle in ["参数123", "订单超时", "参数1234", "bench.key.99999", "单"] {
        let t = Instant::now();
        let mut c = 0;
        for _ in 0..20 {
            c = ix.contains("157270", "param", "paramName", needle).unwrap().map(|v| v.len()).unwrap_or(0);
        }
        println!("contains {needle:?}: {c} ids, {:.2} ms each", t.elapsed().as_secs_f64() * 1000.0 / 20.0);
    }
    for q in ["订单 超时", "参数99", "装修"] {
        let t = Instant::now();
        let mut total = 0;
        for _ in 0..20 {
            total = ix.search("157270", &[], q, 0, 20).unwrap().1;
        }
        println!("search {q:?}: total {total}, {:.2} ms each", t.elapsed().as_secs_f64() * 1000.0 / 20.0);
    }
}
