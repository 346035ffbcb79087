//! Checks against the real UI server bundle; run with
//! `ZZ_SERVER_BUNDLE=/path/to/server.js cargo test -p ssr --release --test bundle -- --ignored --nocapture`.

use ssr::{Pool, PoolConfig};
use std::time::{Duration, Instant};

fn pool() -> Pool {
    let path = std::env::var("ZZ_SERVER_BUNDLE").expect("set ZZ_SERVER_BUNDLE to the built server.js");
    let js = std::fs::read_to_string(path).unwrap();
    let t = Instant::now();
    let p = Pool::new(&js, PoolConfig { threads: 1, timeout: Duration::from_secs(5), ..PoolConfig::default() }).unwrap();
    eprintln!("bundle load: {:?}", t.elapsed());
    p
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn timings(pool: &Pool, url: &str, props: &str, n: usize) -> String {
    let mut v: Vec<Duration> = (0..n)
        .map(|_| {
            let t = Instant::now();
            pool.render_blocking(url, props).unwrap();
            t.elapsed()
        })
        .collect();
    v.sort();
    format!("p50 {:?} p99 {:?} min {:?}", v[n / 2], v[n * 99 / 100], v[0])
}

#[test]
#[ignore]
fn real_bundle_renders_pages() {
    let pool = pool();
    let login = fixture("login");
    let html = pool.render_blocking("/login", &login).unwrap();
    assert!(html.contains("<form") && html.contains("id=\"username\"") && html.contains("id=\"tenantId\""), "{html}");
    assert!(html.contains("登录"));
    let list = fixture("list");
    let html = pool.render_blocking("/system/param", &list).unwrap();
    assert!(html.contains("参数19") && html.contains("value-3&lt;b") && !html.contains("value-3<b"), "{html}");
    let wel = fixture("wel");
    let html = pool.render_blocking("/wel/index", &wel).unwrap();
    assert!(html.contains("BIM") && html.contains("我的桌面"), "{html}");
    // Guard and status directives.
    // (A signed-out page knows no menu routes: a fixed route is the one that redirects.)
    let anon = login.replace("\"url\":\"/login\"", "\"url\":\"/wel/index\"");
    let out = pool.render_blocking("/wel/index", &anon).unwrap();
    assert!(out.starts_with("<!--zz-redirect:/login?redirect="), "{}", &out[..out.len().min(300)]);
    let nf = wel.replace("\"url\":\"/wel/index\"", "\"url\":\"/nope\"");
    assert!(pool.render_blocking("/nope", &nf).unwrap().starts_with("<!--zz-status:404-->"));
    let root = wel.replace("\"url\":\"/wel/index\"", "\"url\":\"/\"");
    assert_eq!(pool.render_blocking("/", &root).unwrap(), "<!--zz-redirect:/wel/index-->");
    eprintln!("/login     {}", timings(&pool, "/login", &login, 200));
    eprintln!("/wel/index {}", timings(&pool, "/wel/index", &wel, 200));
    eprintln!("list(20)   {}", timings(&pool, "/system/param", &list, 200));
    let dash = wel.replace("\"url\":\"/wel/index\"", "\"url\":\"/wel/dashboard\"");
    let html = pool.render_blocking("/wel/dashboard", &dash).unwrap();
    // (This fixture's platform tenant has no business figures: the map and charts are the demo fixture's.)
    assert!(html.contains("控制台") && html.contains("BIM"), "{html}");
    eprintln!("dashboard  {}", timings(&pool, "/wel/dashboard", &dash, 200));
    // The same pages with the props the demo server really sends (83 menus, 328 button codes;
    // captured with `X-ZZ-Props: 1`): what the HTTP benchmark in bench/ssr-paint.mjs renders.
    let list = fixture("list-demo");
    assert!(pool.render_blocking("/system/param", &list).unwrap().contains("基准参数"));
    eprintln!("list(20) demo props  {}", timings(&pool, "/system/param", &list, 200));
    let dash = fixture("dashboard-demo");
    assert!(pool.render_blocking("/wel/dashboard", &dash).unwrap().contains("desk-map-svg"));
    eprintln!("dashboard demo props {}", timings(&pool, "/wel/dashboard", &dash, 200));
}
