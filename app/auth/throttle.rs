//! Sign-in throttling per account and per client address, with a growing delay. Attempts during a delay are
//! refused (429 with Retry-After) without computing a hash. Unknown and known accounts are treated alike.
//!
//! Per account: 3 free failures, then 30 s, 60 s, 120 s ... up to 15 min: at most 7 hash checks per account in
//! any 15 minutes. Per address: 20 free failures, then 1 s doubling up to 15 min.
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const MAX_DELAY: Duration = Duration::from_secs(900);
const FORGET_AFTER: Duration = Duration::from_secs(3600);
const CAP: usize = 200_000;

#[derive(Clone, Copy)]
struct Policy {
    free: u32,
    base: Duration,
}
const ACCOUNT: Policy = Policy { free: 3, base: Duration::from_secs(30) };
const ADDRESS: Policy = Policy { free: 20, base: Duration::from_secs(1) };

struct Entry {
    failures: u32,
    until: Instant,
    last: Instant,
}

#[derive(Default)]
pub struct Throttle(Mutex<HashMap<String, Entry>>);

impl Throttle {
    /// Seconds to wait before another attempt for this account or address, if any.
    pub fn wait(&self, account: &str, ip: &str) -> Option<u64> {
        let m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        [key_a(account), key_i(ip)]
            .iter()
            .filter_map(|k| m.get(k))
            .filter(|e| e.until > now)
            .map(|e| (e.until - now).as_secs_f64().ceil() as u64)
            .max()
            .map(|s| s.max(1))
    }

    pub fn failed(&self, account: &str, ip: &str) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if m.len() >= CAP {
            m.retain(|_, e| now.duration_since(e.last) < FORGET_AFTER);
        }
        for (k, p) in [(key_a(account), ACCOUNT), (key_i(ip), ADDRESS)] {
            let e = m.entry(k).or_insert(Entry { failures: 0, until: now, last: now });
            if now.duration_since(e.last) > FORGET_AFTER {
                e.failures = 0;
            }
            e.failures += 1;
            e.last = now;
            if e.failures >= p.free {
                let exp = (e.failures - p.free).min(20);
                let delay = p.base.saturating_mul(1 << exp).min(MAX_DELAY);
                e.until = now + delay;
            }
        }
    }

    /// A success clears the account's failures (not the address's: one good account must not unlock guessing).
    pub fn succeeded(&self, account: &str) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(&key_a(account));
    }
}

fn key_a(account: &str) -> String {
    format!("a\u{1f}{account}")
}
fn key_i(ip: &str) -> String {
    format!("i\u{1f}{ip}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_after_free_failures() {
        let t = Throttle::default();
        for _ in 0..3 {
            assert!(t.wait("000000:bob", "1.2.3.4").is_none());
            t.failed("000000:bob", "1.2.3.4");
        }
        let w = t.wait("000000:bob", "1.2.3.4").unwrap();
        assert!((29..=30).contains(&w), "{w}");
        assert!(t.wait("000000:alice", "5.6.7.8").is_none(), "other accounts unaffected");
        t.failed("000000:bob", "1.2.3.4");
        assert!(t.wait("000000:bob", "9.9.9.9").unwrap() > 50);
        t.succeeded("000000:bob");
        assert!(t.wait("000000:bob", "9.9.9.9").is_none());
    }
}
