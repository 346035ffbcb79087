//! Requests counted per route, in memory: what the api log no longer records one by one (successful reads, by
//! default) is still seen. For each `METHOD route-pattern`: totals since start with a latency histogram (for
//! `GET /api/metrics`, Prometheus' text format), and the last hour minute by minute (count, p50, p99: the status
//! screen). A request costs one short lock; routes are the route table's patterns, so the map stays small.
use std::collections::{HashMap, VecDeque};
use std::fmt::Write;
use std::sync::Mutex;

use serde::Serialize;

/// Upper bounds (seconds) of the exported histogram's buckets.
const BUCKETS: [f64; 14] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];
/// The minute histogram: bucket k holds latencies up to `FINE_BASE_MS * FINE_GROWTH^k` (about 6% apart).
const FINE: usize = 160;
const FINE_BASE_MS: f64 = 0.02;
const FINE_GROWTH: f64 = 1.06;
/// Closed minutes kept per route.
const KEEP_MINUTES: usize = 60;

#[derive(Default)]
pub struct Metrics(Mutex<HashMap<String, Route>>);

#[derive(Default)]
struct Route {
    /// Since start, by status class: 2xx/3xx, 4xx, 5xx.
    ok: u64,
    client_errors: u64,
    server_errors: u64,
    seconds: f64,
    /// Cumulative counts per `BUCKETS` bound (the last one: all).
    buckets: [u64; BUCKETS.len()],
    /// The minute being counted: its start (ms since the epoch, a multiple of 60,000) and fine histogram.
    minute: i64,
    fine: Vec<u32>,
    count: u32,
    closed: VecDeque<Minute>,
}

/// One closed minute of a route.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Minute {
    /// Its start, ms since the epoch.
    pub at: i64,
    pub count: u32,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

/// A route's figures for the status screen.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteFigures {
    pub route: String,
    pub total: u64,
    pub errors: u64,
    pub minutes: Vec<Minute>,
}

fn fine_bucket(ms: f64) -> usize {
    if ms <= FINE_BASE_MS {
        return 0;
    }
    (((ms / FINE_BASE_MS).ln() / FINE_GROWTH.ln()).ceil() as usize).min(FINE - 1)
}

fn fine_bound(k: usize) -> f64 {
    FINE_BASE_MS * FINE_GROWTH.powi(k as i32)
}

/// The latency below which `q` of a minute's requests fell (the upper bound of the bucket that holds it).
fn quantile(fine: &[u32], count: u32, q: f64) -> f64 {
    let want = ((count as f64) * q).ceil().max(1.0) as u64;
    let mut seen = 0u64;
    for (k, n) in fine.iter().enumerate() {
        seen += *n as u64;
        if seen >= want {
            return (fine_bound(k) * 100.0).round() / 100.0;
        }
    }
    fine_bound(FINE - 1)
}

impl Route {
    /// Closes the current minute if `minute` is later.
    fn roll(&mut self, minute: i64) {
        if self.minute == minute {
            return;
        }
        if self.count > 0 {
            self.closed.push_back(Minute { at: self.minute, count: self.count, p50_ms: quantile(&self.fine, self.count, 0.5), p99_ms: quantile(&self.fine, self.count, 0.99) });
            while self.closed.len() > KEEP_MINUTES {
                self.closed.pop_front();
            }
        }
        self.minute = minute;
        self.count = 0;
        self.fine.iter_mut().for_each(|n| *n = 0);
    }
}

impl Metrics {
    /// Counts one request of `route` (`METHOD pattern`) that answered `status` after `ms`.
    pub fn observe(&self, route: &str, status: u16, ms: f64, now_ms: i64) {
        let minute = now_ms - now_ms.rem_euclid(60_000);
        let Ok(mut m) = self.0.lock() else { return };
        let r = match m.get_mut(route) {
            Some(r) => r,
            None => m.entry(route.to_string()).or_insert_with(|| Route { fine: vec![0; FINE], minute, ..Route::default() }),
        };
        r.roll(minute);
        match status {
            500.. => r.server_errors += 1,
            400..=499 => r.client_errors += 1,
            _ => r.ok += 1,
        }
        let secs = ms / 1000.0;
        r.seconds += secs;
        for (i, b) in BUCKETS.iter().enumerate() {
            if secs <= *b {
                r.buckets[i] += 1;
            }
        }
        r.count += 1;
        r.fine[fine_bucket(ms)] += 1;
    }

    /// Every route's totals and closed minutes (the current one closes once a minute has passed).
    pub fn figures(&self, now_ms: i64) -> Vec<RouteFigures> {
        let minute = now_ms - now_ms.rem_euclid(60_000);
        let Ok(mut m) = self.0.lock() else { return Vec::new() };
        let mut out: Vec<RouteFigures> = m
            .iter_mut()
            .map(|(k, r)| {
                r.roll(minute);
                RouteFigures { route: k.clone(), total: r.ok + r.client_errors + r.server_errors, errors: r.client_errors + r.server_errors, minutes: r.closed.iter().cloned().collect() }
            })
            .collect();
        out.sort_by(|a, b| b.total.cmp(&a.total).then(a.route.cmp(&b.route)));
        out
    }

    /// The request counters and latency histograms in Prometheus' text format.
    pub fn prometheus(&self, out: &mut String) {
        let Ok(m) = self.0.lock() else { return };
        let mut routes: Vec<(&String, &Route)> = m.iter().collect();
        routes.sort_by(|a, b| a.0.cmp(b.0));
        let label = |k: &str| {
            let (method, route) = k.split_once(' ').unwrap_or(("", k));
            format!("method=\"{}\",route=\"{}\"", esc(method), esc(route))
        };
        out.push_str("# HELP zz_http_requests_total Requests answered, by route and status class.\n# TYPE zz_http_requests_total counter\n");
        for (k, r) in &routes {
            let l = label(k);
            for (class, n) in [("2xx", r.ok), ("4xx", r.client_errors), ("5xx", r.server_errors)] {
                if n > 0 {
                    let _ = writeln!(out, "zz_http_requests_total{{{l},status=\"{class}\"}} {n}");
                }
            }
        }
        out.push_str("# HELP zz_http_request_duration_seconds Time to answer, by route.\n# TYPE zz_http_request_duration_seconds histogram\n");
        for (k, r) in &routes {
            let l = label(k);
            for (i, b) in BUCKETS.iter().enumerate() {
                let _ = writeln!(out, "zz_http_request_duration_seconds_bucket{{{l},le=\"{b}\"}} {}", r.buckets[i]);
            }
            let n = r.ok + r.client_errors + r.server_errors;
            let _ = writeln!(out, "zz_http_request_duration_seconds_bucket{{{l},le=\"+Inf\"}} {n}");
            let _ = writeln!(out, "zz_http_request_duration_seconds_sum{{{l}}} {}", r.seconds);
            let _ = writeln!(out, "zz_http_request_duration_seconds_count{{{l}}} {n}");
        }
    }
}

/// A label value escaped as Prometheus' text format wants (backslash, quote, newline).
pub fn esc(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes_close_with_their_quantiles_and_totals_export() {
        let m = Metrics::default();
        let t0 = 1_800_000_000_000 - 1_800_000_000_000 % 60_000;
        for i in 0..100 {
            m.observe("GET /api/x", 200, if i < 98 { 1.0 } else { 80.0 }, t0 + i);
        }
        m.observe("GET /api/x", 404, 1.0, t0 + 200);
        assert!(m.figures(t0 + 1_000)[0].minutes.is_empty(), "the minute is still open");
        let f = &m.figures(t0 + 61_000)[0];
        assert_eq!((f.total, f.errors, f.minutes.len()), (101, 1, 1));
        let min = &f.minutes[0];
        assert_eq!(min.count, 101);
        assert!((1.0..1.1).contains(&min.p50_ms), "{min:?}");
        assert!((80.0..85.0).contains(&min.p99_ms), "{min:?}");
        let mut text = String::new();
        m.prometheus(&mut text);
        assert!(text.contains("zz_http_requests_total{method=\"GET\",route=\"/api/x\",status=\"2xx\"} 100"), "{text}");
        assert!(text.contains("zz_http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/x\",le=\"0.001\"} 99"), "{text}");
        assert!(text.contains("zz_http_request_duration_seconds_count{method=\"GET\",route=\"/api/x\"} 101"), "{text}");
    }
}
