//! Times `contains` and `search` on an existing index: `cargo run -p search --release --example probe -- DIR TENANT RESOURCE FIELD NEEDLE`.
use std::time::Instant;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let dir = std::path::Path::new(&a[0]);
    let layout = std::fs::read_to_string(dir.join("zz-layout")).unwrap();
    let (ix, _) = search::Index::open(dir, &layout).unwrap();
    for _ in 0..3 {
        let t = Instant::now();
        let n = 50;
        let mut hits = 0;
        for _ in 0..n {
            hits = ix.contains(&a[1], &a[2], &a[3], &a[4]).unwrap().unwrap().len();
        }
        println!("contains {:?}: {hits} ids, {:.2} ms each", a[4], t.elapsed().as_secs_f64() * 1000.0 / n as f64);
        let t = Instant::now();
        let mut total = 0;
        for _ in 0..n {
            total = ix.search(&a[1], &[], &a[4], 0, 20).unwrap().1;
        }
        println!("search {:?} top 20: total {total}, {:.2} ms each", a[4], t.elapsed().as_secs_f64() * 1000.0 / n as f64);
    }
}
