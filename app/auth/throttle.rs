//! Throttling of password guesses and code requests, with growing delays. Attempts during a delay are refused
//! (429 with Retry-After) without computing a hash. Unknown and known accounts are treated alike.
//!
//! Nobody may keep someone else locked out, so delays are keyed by who guesses, not only by what is guessed:
//! - per account *and* client address (`Key::pair`): 3 free failures, then 30 s, 60 s, 120 s ... up to 15 min —
//!   at most 7 hash checks per account from one address in any 15 minutes;
//! - per client address (`Key::address`): 20 free failures over all accounts, then 1 s doubling up to 15 min;
//! - per account from anywhere (`Key::account`): no delay, but after `CAPTCHA_AFTER` failures the account needs a
//!   solved captcha on every sign-in (`needs_captcha`) until one succeeds. A captcha is single use, so guessing
//!   from many addresses costs a solved captcha per guess while the owner signs in with one.
//!
//! Keys carry a scope (`sign-in`, `unlock`, ...) and the tenant, so one kind of attempt never delays another and
//! one tenant's users never delay another tenant's.
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const MAX_DELAY: Duration = Duration::from_secs(900);
const FORGET_AFTER: Duration = Duration::from_secs(3600);
const CAP: usize = 200_000;
/// Failures of an account, from anywhere, after which its sign-ins need a captcha.
pub const CAPTCHA_AFTER: u32 = 5;

#[derive(Clone, Copy)]
struct Policy {
    free: u32,
    base: Duration,
}
const PAIR: Policy = Policy { free: 3, base: Duration::from_secs(30) };
const ADDRESS: Policy = Policy { free: 20, base: Duration::from_secs(1) };
/// Counted, never delayed (the captcha step is the account's answer to guessing).
const COUNT: Policy = Policy { free: u32::MAX, base: Duration::ZERO };

/// What an attempt is counted against.
pub struct Key {
    text: String,
    policy: Policy,
}

impl Key {
    /// One account (`tenant:account`) from one client address.
    pub fn pair(scope: &str, account: &str, ip: &str) -> Key {
        Key { text: format!("p\u{1f}{scope}\u{1f}{}\u{1f}{ip}", account.to_lowercase()), policy: PAIR }
    }
    /// One client address, over every account.
    pub fn address(scope: &str, ip: &str) -> Key {
        Key { text: format!("i\u{1f}{scope}\u{1f}{ip}"), policy: ADDRESS }
    }
    /// One account from anywhere: counted for the captcha step, never delayed.
    pub fn account(scope: &str, account: &str) -> Key {
        Key { text: format!("a\u{1f}{scope}\u{1f}{}", account.to_lowercase()), policy: COUNT }
    }
    /// One account, delayed like a pair: for attempts made inside a session (unlock, password change), where the
    /// address says nothing more than the session does.
    pub fn own(scope: &str, account: &str) -> Key {
        Key { text: format!("o\u{1f}{scope}\u{1f}{}", account.to_lowercase()), policy: PAIR }
    }
}

struct Entry {
    failures: u32,
    until: Instant,
    last: Instant,
}

#[derive(Default)]
pub struct Throttle(Mutex<HashMap<String, Entry>>);

impl Throttle {
    /// Seconds to wait before another attempt under any of `keys`, if any.
    pub fn wait(&self, keys: &[Key]) -> Option<u64> {
        let m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        keys.iter()
            .filter_map(|k| m.get(&k.text))
            .filter(|e| e.until > now)
            .map(|e| (e.until - now).as_secs_f64().ceil() as u64)
            .max()
            .map(|s| s.max(1))
    }

    /// Counts a failure under every key.
    pub fn failed(&self, keys: &[Key]) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if m.len() >= CAP {
            m.retain(|_, e| now.duration_since(e.last) < FORGET_AFTER);
        }
        for k in keys {
            let e = m.entry(k.text.clone()).or_insert(Entry { failures: 0, until: now, last: now });
            if now.duration_since(e.last) > FORGET_AFTER {
                e.failures = 0;
            }
            e.failures = e.failures.saturating_add(1);
            e.last = now;
            if e.failures >= k.policy.free {
                let exp = (e.failures - k.policy.free).min(20);
                let delay = k.policy.base.saturating_mul(1 << exp).min(MAX_DELAY);
                e.until = now + delay;
            }
        }
    }

    /// Whether the account's recent failures ask for a captcha on its sign-ins.
    pub fn needs_captcha(&self, account: &Key) -> bool {
        let m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.get(&account.text).is_some_and(|e| e.failures >= CAPTCHA_AFTER && e.last.elapsed() < FORGET_AFTER)
    }

    /// A success clears these keys (an account's and its pair's; never an address's: one good account must not
    /// unlock guessing at others).
    pub fn succeeded(&self, keys: &[Key]) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        for k in keys {
            m.remove(&k.text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(account: &str, ip: &str) -> [Key; 3] {
        [Key::pair("sign-in", account, ip), Key::address("sign-in", ip), Key::account("sign-in", account)]
    }

    #[test]
    fn a_guesser_is_delayed_where_they_guess_from_not_the_owner_elsewhere() {
        let t = Throttle::default();
        for _ in 0..3 {
            assert!(t.wait(&keys("000000:bob", "1.2.3.4")).is_none());
            t.failed(&keys("000000:bob", "1.2.3.4"));
        }
        let w = t.wait(&keys("000000:bob", "1.2.3.4")).unwrap();
        assert!((29..=30).contains(&w), "{w}");
        assert!(t.wait(&keys("000000:alice", "5.6.7.8")).is_none(), "other accounts unaffected");
        assert!(t.wait(&keys("000000:bob", "9.9.9.9")).is_none(), "the owner elsewhere is not locked out");
        assert!(!t.needs_captcha(&Key::account("sign-in", "000000:bob")));
        t.failed(&keys("000000:bob", "1.2.3.4"));
        assert!(t.wait(&keys("000000:bob", "1.2.3.4")).unwrap() > 50);
        t.failed(&keys("000000:bob", "8.8.8.8"));
        assert!(t.needs_captcha(&Key::account("sign-in", "000000:bob")), "five failures from anywhere ask for a captcha");
        t.succeeded(&[Key::pair("sign-in", "000000:bob", "9.9.9.9"), Key::account("sign-in", "000000:bob")]);
        assert!(!t.needs_captcha(&Key::account("sign-in", "000000:bob")));
        assert!(t.wait(&keys("000000:bob", "1.2.3.4")).is_some(), "the guesser's own delay stays");
    }

    #[test]
    fn scopes_and_tenants_do_not_share_keys() {
        let t = Throttle::default();
        for _ in 0..30 {
            t.failed(&[Key::own("unlock", "157270:a")]);
        }
        assert!(t.wait(&[Key::own("unlock", "157270:a")]).is_some());
        assert!(t.wait(&[Key::own("unlock", "741487:admin")]).is_none());
        assert!(t.wait(&[Key::own("password-change", "157270:a")]).is_none());
        assert!(t.wait(&keys("157270:a", "1.2.3.4")).is_none(), "unlocking does not delay signing in");
    }
}
