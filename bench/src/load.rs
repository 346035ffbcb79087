//! A keep-alive HTTP/1 load generator: N connections, each sending requests back to back for a duration.
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;

#[derive(Clone)]
pub struct Spec {
    pub addr: String,
    pub method: String,
    pub path: String,
    /// `{n}` is replaced by a counter unique across connections (in the path too, with `{nn}` and `{n6}`).
    pub body: Option<String>,
    /// Bodies used in turn instead of `body` when not empty.
    pub bodies: Vec<String>,
    pub headers: Vec<(String, String)>,
    pub conns: usize,
    pub duration: Duration,
    /// Each body of `bodies` is sent once (then the connections stop, before `duration` if they are done), so a
    /// write that cannot be repeated (completing a task) is never counted twice.
    pub once: bool,
    /// Requests per second over all connections (None: back to back).
    pub rate: Option<f64>,
    /// With `rate`: an open loop. Each request has its time on a fixed schedule (kept by `pace`, within ~0.06 ms)
    /// whether or not the one before has been answered, and its latency counts from that time, not from when it
    /// could be sent: a stall shows as every request due during it waiting (coordinated omission corrected, as wrk2
    /// does). Without it a paced connection skips what it is late for and times from the send.
    pub open: bool,
}

#[derive(Debug, Clone)]
pub struct Report {
    pub ok: u64,
    pub errors: u64,
    pub secs: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
}

impl Report {
    pub fn rps(&self) -> f64 {
        self.ok as f64 / self.secs
    }
    pub fn line(&self, name: &str) -> String {
        format!(
            "{name}: {:.0} req/s ok={} errors={} p50={:.2}ms p90={:.2}ms p99={:.2}ms p99.9={:.2}ms max={:.2}ms",
            self.rps(),
            self.ok,
            self.errors,
            self.p50_ms,
            self.p90_ms,
            self.p99_ms,
            self.p999_ms,
            self.max_ms
        )
    }
}

pub async fn run(spec: Spec) -> anyhow::Result<Report> {
    let counter = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let deadline = start + spec.duration;
    // The open loop's schedule is kept by a thread of its own (`pace`): tokio's timer works in whole milliseconds
    // (a sleep ends at the next tick after its deadline, 0–2 ms late), which the open loop would count as the
    // server's latency (hello-world at 2,800/s had p50 1.1 ms against 0.06 ms one request at a time).
    let mut dues = Vec::new();
    let mut tasks = Vec::new();
    for i in 0..spec.conns {
        let (spec, counter, errors) = (spec.clone(), counter.clone(), errors.clone());
        let due = match spec.rate {
            Some(_) if spec.open => {
                let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
                dues.push(tx);
                Some(rx)
            }
            _ => None,
        };
        tasks.push(tokio::spawn(async move { conn(spec, i, counter, errors, start, deadline, due).await }));
    }
    if let (Some(rate), false) = (spec.rate, dues.is_empty()) {
        std::thread::Builder::new().name("bench-pace".into()).spawn(move || pace(dues, rate, start, deadline))?;
    }
    let mut timed: Vec<(u32, u32)> = Vec::new();
    for t in tasks {
        timed.extend(t.await??);
    }
    let secs = start.elapsed().as_secs_f64();
    // BENCH_TIMELINE=FILE: every answered request as "sent_ms latency_us" (ms since the run began), to see when
    // the slow ones came; the first line, "# START", is when the run began in ms since the Unix epoch, the clock of
    // the server's `ZZ_TRACE` timeline (bench/trace.py lays the two side by side).
    if let Ok(file) = std::env::var("BENCH_TIMELINE") {
        timed.sort_unstable();
        let began = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.saturating_sub(start.elapsed()).as_millis();
        let text: String = std::iter::once(format!("# {began}\n")).chain(timed.iter().map(|(at, l)| format!("{at} {l}\n"))).collect();
        std::fs::write(file, text)?;
    }
    let mut lat: Vec<u32> = timed.into_iter().map(|(_, l)| l).collect();
    lat.sort_unstable();
    let pct = |p: f64| lat.get(((lat.len() as f64 * p) as usize).min(lat.len().saturating_sub(1))).copied().unwrap_or(0) as f64 / 1000.0;
    Ok(Report {
        ok: lat.len() as u64,
        errors: errors.load(Ordering::Relaxed),
        secs,
        p50_ms: pct(0.50),
        p90_ms: pct(0.90),
        p99_ms: pct(0.99),
        p999_ms: pct(0.999),
        max_ms: lat.last().copied().unwrap_or(0) as f64 / 1000.0,
    })
}

/// The open loop's schedule: the `j`-th request of the run is due at `start + j / rate` and goes to connection
/// `j % conns` (so each connection has a fixed schedule, its requests `conns / rate` apart, the connections spread
/// over that period), handed over at its time — a thread asleep in the kernel's high-resolution timer (nanosleep,
/// within ~0.06 ms), not tokio's millisecond wheel. A connection still waiting for an answer finds its next due
/// times queued and times each from when it was due. The channels close at `deadline`, which ends the connections.
fn pace(dues: Vec<tokio::sync::mpsc::UnboundedSender<Instant>>, rate: f64, start: Instant, deadline: Instant) {
    let every = Duration::from_secs_f64(1.0 / rate.max(0.001));
    for j in 0u64.. {
        let due = start + every.mul_f64(j as f64);
        if due >= deadline {
            break;
        }
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        // A connection that ended (its stream failed for good) just no longer takes requests.
        let _ = dues[(j % dues.len() as u64) as usize].send(due);
    }
}

/// Each answered request: (sent, ms after `start`; latency, µs). `due`: the open loop's schedule (`pace`).
async fn conn(
    spec: Spec,
    i: usize,
    counter: Arc<AtomicU64>,
    errors: Arc<AtomicU64>,
    start: Instant,
    deadline: Instant,
    mut dues: Option<tokio::sync::mpsc::UnboundedReceiver<Instant>>,
) -> anyhow::Result<Vec<(u32, u32)>> {
    let mut lat = Vec::with_capacity(100_000);
    // Paced: each connection sends at its share of the rate, on a fixed schedule (late requests are not made up),
    // the `i`-th one `i / conns` of a period after the first, so the requests arrive spread over each period rather
    // than all connections at once.
    let every = spec.rate.map(|r| Duration::from_secs_f64(spec.conns as f64 / r.max(0.001)));
    let mut next = start + every.map(|e| e.mul_f64(i as f64 / spec.conns.max(1) as f64)).unwrap_or_default();
    // The open loop sends every request due before the deadline, however late (its channel closes after the last).
    let open = dues.is_some();
    'outer: while open || Instant::now() < deadline {
        let stream = tokio::net::TcpStream::connect(&spec.addr).await?;
        stream.set_nodelay(true)?;
        let (mut sender, c) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(c);
        while open || Instant::now() < deadline {
            // When this request is due (the open loop times it from then).
            let mut due = None;
            if let Some(rx) = dues.as_mut() {
                match rx.recv().await {
                    Some(d) => due = Some(d),
                    None => break 'outer,
                }
            } else if let Some(e) = every {
                if spec.open && next >= deadline {
                    break 'outer;
                }
                let now = Instant::now();
                if next > now {
                    tokio::time::sleep(next - now).await;
                }
                due = Some(next);
                next = if spec.open { next + e } else { next.max(now) + e };
            }
            let n = counter.fetch_add(1, Ordering::Relaxed);
            if spec.once && n as usize >= spec.bodies.len() {
                break 'outer;
            }
            let body = if spec.bodies.is_empty() {
                spec.body.as_ref().map(|b| b.replace("{n}", &n.to_string())).unwrap_or_default()
            } else {
                spec.bodies[n as usize % spec.bodies.len()].clone()
            };
            // `{n}` the counter; `{nn}` two digits 10–99 and `{n6}` six digits 100000–999999 cycling with it (needles
            // of one selectivity that differ from request to request, so no answer is served from a cache).
            let path = if spec.path.contains('{') {
                spec.path.replace("{nn}", &(10 + n % 90).to_string()).replace("{n6}", &(100_000 + n % 900_000).to_string()).replace("{n}", &n.to_string())
            } else {
                spec.path.clone()
            };
            let mut b = Request::builder().method(spec.method.as_str()).uri(path.as_str()).header("host", &spec.addr);
            if spec.body.is_some() || !spec.bodies.is_empty() {
                b = b.header("content-type", "application/json");
            }
            for (k, v) in &spec.headers {
                b = b.header(k, v);
            }
            let t = if spec.open { due.unwrap_or_else(Instant::now) } else { Instant::now() };
            let resp = match sender.send_request(b.body(Full::new(bytes_of(body)))?).await {
                Ok(r) => r,
                Err(_) => {
                    errors.fetch_add(1, Ordering::Relaxed);
                    continue 'outer;
                }
            };
            let status = resp.status();
            let _ = resp.into_body().collect().await;
            if status.is_success() {
                lat.push(((t - start).as_millis() as u32, t.elapsed().as_micros().min(u32::MAX as u128) as u32));
            } else {
                errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    Ok(lat)
}

fn bytes_of(s: String) -> hyper::body::Bytes {
    hyper::body::Bytes::from(s)
}

/// One request on a fresh connection; returns status and body.
pub async fn once(addr: &str, method: &str, path: &str, headers: &[(&str, &str)]) -> anyhow::Result<(u16, String)> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let (mut sender, c) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(c);
    let mut b = Request::builder().method(method).uri(path).header("host", addr);
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let resp = sender.send_request(b.body(Full::new(hyper::body::Bytes::new()))?).await?;
    let status = resp.status().as_u16();
    let body = resp.into_body().collect().await?.to_bytes();
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

/// One request with a body on a fresh connection; returns status and body.
pub async fn once_body(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> anyhow::Result<(u16, String)> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let (mut sender, c) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(c);
    let mut b = Request::builder().method(method).uri(path).header("host", addr).header("content-type", "application/json");
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let resp = sender.send_request(b.body(Full::new(hyper::body::Bytes::from(body.to_string())))?).await?;
    let status = resp.status().as_u16();
    let body = resp.into_body().collect().await?.to_bytes();
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}
