//! Renders one page in a loop, for profiling: `cargo run -p ssr --release --example renderloop -- server.js url props.json N`.
use ssr::{Pool, PoolConfig};
use std::time::{Duration, Instant};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let js = std::fs::read_to_string(&a[1]).unwrap();
    let props = std::fs::read_to_string(&a[3]).unwrap();
    let n: usize = a.get(4).map_or(500, |s| s.parse().unwrap());
    let pool = Pool::new(&js, PoolConfig { threads: 1, timeout: Duration::from_secs(5), ..PoolConfig::default() }).unwrap();
    let mut v: Vec<Duration> = (0..n)
        .map(|_| {
            let t = Instant::now();
            pool.render_blocking(&a[2], &props).unwrap();
            t.elapsed()
        })
        .collect();
    v.sort();
    println!("{} n={n} p50 {:?} p90 {:?} p99 {:?} min {:?}", a[2], v[n / 2], v[n * 9 / 10], v[n * 99 / 100], v[0]);
}
