//! Pool behaviour against tiny hand-written bundles (no bun needed).

use ssr::{Pool, PoolConfig, SsrError};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BUNDLE: &str = r#"
var queue = [];
globalThis.setTimeout = function (fn, ms) { queue.push(fn); return queue.length; };
globalThis.__zz_drain = function () { var q = queue; queue = []; q.forEach(function (f) { f(); }); return queue.length > 0; };
var renders = 0;
globalThis.render = function (url, propsJson) {
  var p = JSON.parse(propsJson);
  renders++;
  if (url === '/throw') throw new Error('boom ' + p.n);
  if (url === '/throw-string') throw 'plain';
  if (url === '/loop') { for (;;) {} }
  if (url === '/slow') { var t = performance.now(); while (performance.now() - t < p.ms) {} }
  if (url === '/number') return 42;
  if (url === '/utf8') {
    var b = __zz_utf8_encode('智装 é');
    return b.length + ':' + __zz_utf8_decode(b);
  }
  if (url === '/timer') { setTimeout(function () { globalThis.timerRan = true; }, 10); return 'queued'; }
  if (url === '/timer-ran') return String(globalThis.timerRan === true);
  return '<div data-url="' + url + '">' + p.name + '</div>';
};
"#;

fn cfg(threads: usize, queue: usize, timeout_ms: u64) -> PoolConfig {
    PoolConfig { threads, queue, timeout: Duration::from_millis(timeout_ms), memory_limit: 64 << 20 }
}

#[test]
fn renders_html() {
    let pool = Pool::new(BUNDLE, cfg(1, 8, 1000)).unwrap();
    let html = pool.render_blocking("/login", r#"{"name":"智装"}"#).unwrap();
    assert_eq!(html, r#"<div data-url="/login">智装</div>"#);
}

#[test]
fn host_utf8_and_timers() {
    let pool = Pool::new(BUNDLE, cfg(1, 8, 1000)).unwrap();
    assert_eq!(pool.render_blocking("/utf8", "{}").unwrap(), "9:智装 é");
    assert_eq!(pool.render_blocking("/timer", "{}").unwrap(), "queued");
    // The host drained the macrotask queue after the previous render.
    assert_eq!(pool.render_blocking("/timer-ran", "{}").unwrap(), "true");
}

#[test]
fn js_throw_is_js_error_and_runtime_survives() {
    let pool = Pool::new(BUNDLE, cfg(1, 8, 1000)).unwrap();
    match pool.render_blocking("/throw", r#"{"n":7}"#) {
        Err(SsrError::Js(m)) => assert!(m.contains("boom 7"), "{m}"),
        other => panic!("{other:?}"),
    }
    match pool.render_blocking("/throw-string", "{}") {
        Err(SsrError::Js(m)) => assert!(m.contains("plain"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(pool.render_blocking("/number", "{}"), Err(SsrError::Js(_))));
    assert!(matches!(pool.render_blocking("/x", "not json"), Err(SsrError::Js(_))));
    assert!(pool.render_blocking("/ok", r#"{"name":"a"}"#).unwrap().contains(">a<"));
}

#[test]
fn infinite_loop_times_out_then_pool_still_works() {
    let pool = Pool::new(BUNDLE, cfg(1, 8, 200)).unwrap();
    let t = Instant::now();
    assert_eq!(pool.render_blocking("/loop", "{}"), Err(SsrError::Timeout));
    let took = t.elapsed();
    assert!(took < Duration::from_millis(1500), "timeout took {took:?}");
    assert!(pool.render_blocking("/ok", r#"{"name":"after"}"#).unwrap().contains("after"));
    assert_eq!(pool.render_blocking("/loop", "{}"), Err(SsrError::Timeout));
    assert!(pool.render_blocking("/ok", r#"{"name":"again"}"#).unwrap().contains("again"));
}

#[test]
fn queue_full_is_immediate() {
    let pool = Pool::new(BUNDLE, cfg(1, 2, 2000)).unwrap();
    let (tx, rx) = mpsc::channel();
    // One render occupies the only thread; wait until it has been picked up.
    let tx0 = tx.clone();
    pool.render("/slow", r#"{"ms":400,"name":""}"#, move |r| tx0.send(("slow", r)).unwrap());
    std::thread::sleep(Duration::from_millis(100));
    for i in 0..2 {
        let txi = tx.clone();
        pool.render("/ok", r#"{"name":"q"}"#, move |r| txi.send(if i == 0 { ("q0", r) } else { ("q1", r) }).unwrap());
    }
    let (ftx, frx) = mpsc::channel();
    let t = Instant::now();
    pool.render("/ok", r#"{"name":"over"}"#, move |r| ftx.send(r).unwrap());
    assert_eq!(frx.recv_timeout(Duration::from_millis(50)).unwrap(), Err(SsrError::QueueFull));
    assert!(t.elapsed() < Duration::from_millis(50));
    drop(tx);
    let done: Vec<_> = rx.iter().collect();
    assert_eq!(done.len(), 3);
    assert!(done.iter().all(|(_, r)| r.is_ok()), "{done:?}");
}

#[test]
fn concurrent_renders_from_many_threads() {
    let pool = Pool::new(BUNDLE, cfg(3, 1024, 2000)).unwrap();
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let pool = pool.clone();
            std::thread::spawn(move || {
                for i in 0..50 {
                    let name = format!("t{t}-{i}");
                    let html = pool.render_blocking("/c", &format!(r#"{{"name":"{name}"}}"#)).unwrap();
                    assert_eq!(html, format!(r#"<div data-url="/c">{name}</div>"#));
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn init_fails_on_throw_or_missing_render() {
    match Pool::new("throw new Error('bad bundle')", cfg(2, 4, 100)) {
        Err(SsrError::Init(m)) => assert!(m.contains("bad bundle"), "{m}"),
        Err(e) => panic!("{e:?}"),
        Ok(_) => panic!("expected init error"),
    }
    match Pool::new("var x = 1;", cfg(1, 4, 100)) {
        Err(SsrError::Init(m)) => assert!(m.contains("render"), "{m}"),
        Err(e) => panic!("{e:?}"),
        Ok(_) => panic!("expected init error"),
    }
}

#[test]
fn drop_closes_pool() {
    let pool = Pool::new(BUNDLE, cfg(2, 4, 100)).unwrap();
    let p2 = pool.clone();
    drop(pool);
    assert!(p2.render_blocking("/ok", r#"{"name":"x"}"#).is_ok());
    drop(p2); // joins threads; must not hang
}
