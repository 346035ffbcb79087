//! The server's own logs: API calls (`log_api`: by default every change and every refused or failed request),
//! server errors (`log_error`), sign-in attempts (`log_login`) and notable administrative events (`log_usual`).
//!
//! They live in their own file beside the data file (`zhizhuang-logs.redb`, its own store with its own writer and
//! write-ahead log): the business data file holds business data only, reads never write to it, and a log burst
//! never waits on (or delays) a business write. `backup` copies the data file (`--with-logs` adds this one).
//!
//! Requests hand entries to a bounded queue; a thread group-writes them in large lazy commits (durable within
//! half a second). An audit entry (a change, a refusal or failure, a sign-in, an error) is never shed: its request
//! waits for room (`record`). Only successful reads, recorded with `--api-log all`, may be shed when the queue is
//! full (`offer`): counted, and an error-log entry records how many and when. The logs are kept for
//! `--log-retention-days` and within `--log-max-mb` (oldest pruned first). Secrets never reach an entry: query
//! parameters are redacted by name before they are queued.
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};
use tokio::sync::mpsc::{Receiver, Sender, channel, error::TrySendError};

use crate::decl::Resources;

/// The logs' file, beside the data file.
pub const LOG_FILE: &str = "zhizhuang-logs.redb";

/// The logs' file of a data file.
pub fn file_for(data: &Path) -> PathBuf {
    data.with_file_name(LOG_FILE)
}

/// Whether a resource is one of the server's logs (kept in the logs' file).
pub fn is_log(name: &str) -> bool {
    LOG_RESOURCES.contains(&name)
}

/// Opens the logs' store beside `data` (a small page cache: they are written far more than read); with
/// `ship_dir`, its logs are kept there for shipping to the replica's `logs/` stream. Its writer and flusher run at
/// `LOGS_NICE`.
pub fn open_store(data: &Path, ship_dir: Option<PathBuf>) -> store::Result<store::Store> {
    store::Store::open(&file_for(data), &store::Options { cache_bytes: 16 << 20, threads: "zz-logs", ship_dir, format: store::PACKED_LOGS_FORMAT, nice: Some(LOGS_NICE), ..store::Options::default() })
}

/// Scheduling priority of the logs' threads (this sink, the logs' store's writer and flusher): nice 10, as the search
/// index's. Their writes are lazy (durable within half a second) and need a seventh of a core at 4,000 creates a
/// second; at the normal priority a large batch of entries and its pages took the cores from the data writer and the
/// requests' threads at the wrong moment. Creates at 4,000/s in an open loop, six pairs alternating (bench/README.md,
/// 2026-12-04): p99.9 10.8–14.0 ms against 9.7–57.4 ms, the closed loop's capacity unchanged. An audit entry is
/// never shed (its request waits for room in the queue), so under full load the priority costs throughput before it
/// costs an entry.
pub const LOGS_NICE: i32 = 10;

/// Entries waiting at most: an audit entry waits for room beyond this, a read's entry is shed.
const CAPACITY: usize = 50_000;
/// Entries written in one transaction at most.
const BATCH: usize = 256;
/// The log resources retention applies to.
pub const LOG_RESOURCES: &[&str] = &["log_api", "log_error", "log_login", "log_usual"];

pub struct Entry {
    pub resource: &'static str,
    pub tenant: String,
    pub user: u64,
    pub doc: Map<String, Value>,
    /// The data file's outbox key of this entry (`outbox_key`), removed once the entry is durable here.
    pub outbox: Option<String>,
}

/// The api-log entry of a request that changes data, as far as it is known before the answer (who, what, from
/// where), carried through the request (`AUDIT`) so that every durable write of the request also writes it into
/// the data file's outbox in the same transaction (`outbox_key`): an acknowledged write never lacks its api-log
/// entry, whatever crashes. The log sink writes the full entry to the logs' file, durably, then removes the
/// outbox copy; at start, outbox entries a crash left are moved to the logs' file (`drain_outbox`).
#[derive(Clone)]
pub struct AuditStamp {
    pub rid: String,
    pub who: crate::http::ReqCtx,
    /// Shared: the stamp is copied for the handler's scope and for every write of the request.
    pub doc: Arc<Map<String, Value>>,
    pub written: Arc<std::sync::atomic::AtomicBool>,
}

tokio::task_local! {
    /// The request's audit stamp, while its handler runs.
    pub static AUDIT: AuditStamp;
}

/// The data file's meta key of a request's outbox entry.
pub fn outbox_key(rid: &str) -> String {
    format!("{OUTBOX}{rid}")
}
const OUTBOX: &str = "audit-outbox:";

impl AuditStamp {
    /// The outbox entry as this request would leave it if nothing more were known (a crash before the answer).
    pub fn provisional(&self) -> Vec<u8> {
        let who = self.who.0.lock().map(|w| w.clone()).unwrap_or_default();
        let mut doc = (*self.doc).clone();
        // The write committed; its answer is not known here (a crash came first, if this copy is ever read).
        doc.insert("httpStatus".into(), 200.into());
        doc.insert("time".into(), 0.into());
        doc.insert("at".into(), store::now_millis().into());
        doc.insert("tenant".into(), who.tenant.into());
        doc.insert("user".into(), who.user.into());
        serde_json::to_vec(&doc).unwrap_or_default()
    }
}

/// Moves the api-log entries a crash left in the data file's outbox into the logs' file (each once: one already
/// there, by its request id, is not written again), then empties the outbox. Returns how many it moved.
pub fn drain_outbox(data: &store::Store, logs: &store::Store, res: &Resources) -> store::Result<u64> {
    let left = data.read(|r| r.meta_prefix(OUTBOX, 100_000))?;
    if left.is_empty() {
        return Ok(0);
    }
    let def = res.get("log_api");
    let mut moved = 0;
    let mut items = Vec::new();
    for (_, v) in &left {
        let Ok(Value::Object(mut doc)) = serde_json::from_slice::<Value>(v) else { continue };
        let tenant = doc.remove("tenant").and_then(|t| t.as_str().map(str::to_string)).filter(|t| !t.is_empty()).unwrap_or_else(|| store::PLATFORM_TENANT.into());
        let user: u64 = doc.remove("user").and_then(|u| u.as_str().and_then(|s| s.parse().ok())).unwrap_or(0);
        items.push((tenant, user, doc));
    }
    let d = def.clone();
    // Request ids already in the logs' file from the outbox entries' own time on (a crash after the entry was
    // written there, before its outbox copy was removed).
    let since = items.iter().filter_map(|(_, _, doc)| doc.get("at").and_then(Value::as_i64)).min().unwrap_or(0);
    let floor = store::id_floor(since - 60_000).saturating_sub(1);
    let tenants: HashSet<String> = items.iter().map(|(t, _, _)| t.clone()).collect();
    let mut seen: HashSet<String> = HashSet::new();
    for t in tenants {
        let d2 = d.clone();
        let ids = logs.read(move |r| {
            let mut out = Vec::new();
            let mut after = floor;
            loop {
                let page = r.oldest(&d2, &t, after, 2_000)?;
                let Some(last) = page.last().and_then(|m| m.get("id")).and_then(Value::as_u64) else { break };
                out.extend(page.iter().filter_map(|m| m.get("requestId").and_then(Value::as_str).map(str::to_string)));
                after = last;
            }
            Ok(out)
        })?;
        seen.extend(ids);
    }
    let fresh: Vec<_> = items
        .into_iter()
        .filter(|(_, _, doc)| !doc.get("requestId").and_then(Value::as_str).is_some_and(|r| seen.contains(r)))
        .map(|(t, u, mut doc)| {
            doc.remove("at");
            (t, u, doc)
        })
        .collect();
    moved += fresh.len() as u64;
    logs.write(move |w| {
        for (t, user, doc) in &fresh {
            w.insert(&d, t, doc.clone(), &store::Actor { user_id: *user, dept_id: 0, at: None })?;
        }
        Ok(())
    })?;
    let keys: Vec<String> = left.into_iter().map(|(k, _)| k).collect();
    data.write(move |w| {
        for k in &keys {
            w.delete_meta(k)?;
        }
        Ok(())
    })?;
    Ok(moved)
}

enum Msg {
    Log(Entry),
    Flush(tokio::sync::oneshot::Sender<()>),
}

pub struct LogSink {
    tx: Sender<Msg>,
    /// Entries dropped because the queue was full.
    pub dropped: Arc<AtomicU64>,
    /// Entries written since start.
    pub written: Arc<AtomicU64>,
    /// Whether the writer runs, and its failures (for 系统状态 and /api/metrics).
    pub health: Arc<WriterHealth>,
}

/// The logs' writer's liveness. A failure of the writer (a panic: a bug) is caught, counted and the writer started
/// again a second later with the same queue: the entries of the failed batch are lost from the logs' file unless
/// their outbox copies in the data file hold them (a write's api-log entry: moved at the next start), and the
/// entries after it are written as usual.
#[derive(Default)]
pub struct WriterHealth {
    /// False before the writer starts, after the server closes it, or when its thread could not be made.
    running: std::sync::atomic::AtomicBool,
    restarts: AtomicU64,
    /// The last failure: when (ms since the epoch) and what.
    last: std::sync::Mutex<Option<(i64, String)>>,
}

impl WriterHealth {
    pub fn running(&self) -> bool {
        self.running.load(Ordering::Relaxed)
    }
    /// Times the writer failed and was started again.
    pub fn restarts(&self) -> u64 {
        self.restarts.load(Ordering::Relaxed)
    }
    pub fn last_failure(&self) -> Option<(i64, String)> {
        self.last.lock().ok().and_then(|g| g.clone())
    }
    fn failed(&self, why: String) {
        if let Ok(mut g) = self.last.lock() {
            *g = Some((store::now_millis(), why));
        }
    }
}

/// Failures in a row without an entry written after which the writer stops for good (until a restart).
const GIVE_UP_AFTER: u32 = 5;

/// The writer's state that outlives one run of it (see `LogSink::spawn`).
#[derive(Default)]
struct Carry {
    /// Outbox copies whose entries are committed here lazily, by the log position that makes them durable.
    waiting: std::collections::VecDeque<(u64, std::time::Instant, Vec<String>)>,
    /// Drops already recorded in the error log, and when the current run of drops was first seen.
    recorded: u64,
    drops_since: Option<i64>,
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "panic".into())
}

impl LogSink {
    /// The sink writing to the logs' store `logs`; `data` is the business store (whose tenants entries name).
    pub fn start(logs: store::Store, data: store::Store, res: Resources, zone: crate::wire::Zone) -> LogSink {
        let (sink, rx) = LogSink::queue(CAPACITY);
        sink.spawn(logs, data, res, zone, rx);
        sink
    }

    /// The queue alone; `spawn` starts its writer (separate so a test can fill the queue first).
    fn queue(capacity: usize) -> (LogSink, Receiver<Msg>) {
        let (tx, rx) = channel(capacity);
        (LogSink { tx, dropped: Arc::default(), written: Arc::default(), health: Arc::default() }, rx)
    }

    fn spawn(&self, logs: store::Store, data: store::Store, res: Resources, zone: crate::wire::Zone, rx: Receiver<Msg>) {
        let (written, dropped, health) = (self.written.clone(), self.dropped.clone(), self.health.clone());
        health.running.store(true, Ordering::Relaxed);
        let h = health.clone();
        let made = std::thread::Builder::new().name("zz-logs".into()).spawn(move || {
            // Background work, as the logs' store's own threads (`LOGS_NICE`); a refusal keeps the priority.
            let _ = store::set_thread_nice(LOGS_NICE);
            let mut rx = rx;
            // What the writer carries across a restart (copies waiting for their entries' durability, drops already
            // recorded), so that a restart neither forgets copies nor records old drops again.
            let mut carry = Carry::default();
            let mut fruitless = 0;
            loop {
                let before = written.load(Ordering::Relaxed);
                let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&logs, &data, &res, zone, &mut rx, &written, &dropped, &mut carry)));
                match ran {
                    // The queue closed: the server is stopping.
                    Ok(()) => break,
                    Err(p) => {
                        let why = panic_text(&*p);
                        h.restarts.fetch_add(1, Ordering::Relaxed);
                        h.failed(why.clone());
                        fruitless = if written.load(Ordering::Relaxed) == before { fruitless + 1 } else { 1 };
                        if fruitless >= GIVE_UP_AFTER {
                            // Failing before writing anything, again and again: the queue is let go (requests then
                            // never wait for room in it) and 系统状态 says the writer stopped.
                            tracing::error!(target: "zz::logs", reason = %why, "the logs' writer failed {GIVE_UP_AFTER} times in a row without writing: stopped, no log entries are written until a restart");
                            break;
                        }
                        tracing::error!(target: "zz::logs", reason = %why, "the logs' writer failed; it starts again in a second (entries of the failed batch may be lost)");
                        std::thread::sleep(std::time::Duration::from_secs(1));
                    }
                }
            }
            h.running.store(false, Ordering::Relaxed);
            drop(rx);
            // Copies whose entries became durable before the stop go now; the rest wait for the next start.
            release(&logs, &data, &mut carry.waiting, false);
        });
        if let Err(e) = made {
            tracing::error!(target: "zz::logs", error = %e, "the logs' writer could not start: no log entries are written");
            health.running.store(false, Ordering::Relaxed);
            health.failed(format!("the writer's thread could not start: {e}"));
        }
    }

    /// Queues an audit entry, waiting for room when the queue is full (backpressure: never shed).
    pub async fn record(&self, e: Entry) {
        // Only a stopped writer (the server is closing) refuses it.
        let _ = self.tx.send(Msg::Log(e)).await;
    }

    /// Queues a successful read's entry without waiting: a full queue sheds it, counted.
    pub fn offer(&self, e: Entry) {
        match self.tx.try_send(Msg::Log(e)) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                if self.dropped.fetch_add(1, Ordering::Relaxed).is_multiple_of(1000) {
                    tracing::warn!(target: "zz::logs", "log queue full: read entries shed");
                }
            }
            // The writer is gone (the server is closing): nothing is queued any more.
            Err(TrySendError::Closed(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// An administrative event in the usual log.
    pub async fn usual(&self, tenant: &str, user: u64, key: &str, message: &str) {
        let mut doc = Map::new();
        doc.insert("logLevel".into(), "INFO".into());
        doc.insert("logId".into(), key.chars().take(64).collect::<String>().into());
        doc.insert("logData".into(), message.chars().take(2000).collect::<String>().into());
        self.record(Entry { resource: "log_usual", tenant: tenant.to_string(), user, doc, outbox: None }).await;
    }

    /// Waits until everything queued before this call is written (tests, shutdown).
    pub async fn flush(&self) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.tx.send(Msg::Flush(tx)).await.is_ok() {
            let _ = rx.await;
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn run(store: &store::Store, tenants: &store::Store, res: &Resources, zone: crate::wire::Zone, rx: &mut Receiver<Msg>, written: &AtomicU64, dropped: &AtomicU64, carry: &mut Carry) {
    let mut known: HashSet<String> = HashSet::new();
    // Outbox copies whose entries are committed here lazily, by the log position that makes them durable: they go
    // from the data file once `durable_seq` has passed it (this file's writer syncs lazy commits within half a
    // second), so a write's entry costs this file no fsync of its own.
    let Carry { waiting, recorded, drops_since } = carry;
    // Wakes the thread while copies wait, to let them go with no new entries coming.
    let clock = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("logs' clock");
    loop {
        let first = if waiting.is_empty() {
            rx.blocking_recv()
        } else {
            match clock.block_on(async { tokio::time::timeout(OUTBOX_LOOK, rx.recv()).await }) {
                Ok(m) => m,
                Err(_) => {
                    release(store, tenants, waiting, false);
                    continue;
                }
            }
        };
        let Some(first) = first else { break };
        let mut batch = Vec::new();
        let mut flushes = Vec::new();
        let mut next = Some(first);
        while let Some(m) = next.take() {
            match m {
                Msg::Log(e) => batch.push(e),
                Msg::Flush(f) => flushes.push(f),
            }
            if batch.len() >= BATCH {
                break;
            }
            next = rx.try_recv().ok();
        }
        let shed = dropped.load(Ordering::Relaxed);
        if shed > *recorded {
            let now = store::now_millis();
            let since = *drops_since.get_or_insert(now);
            // One entry per batch at most, so the record of shedding cannot itself flood the queue.
            batch.push(shed_entry(&zone, shed - *recorded, since, now));
            *recorded = shed;
        } else {
            *drops_since = None;
        }
        if !batch.is_empty() {
            // Entries of a tenant that does not exist (a failed sign-in naming one) go to the platform's log.
            let tenant_def = res.get("tenant");
            let _ = tenants.read(|r| {
                for e in batch.iter_mut() {
                    if e.tenant == store::PLATFORM_TENANT || known.contains(&e.tenant) {
                        continue;
                    }
                    if r.find_unique(&tenant_def, store::PLATFORM_TENANT, "tenantId", &e.tenant)?.is_some() {
                        known.insert(e.tenant.clone());
                    } else {
                        e.tenant = store::PLATFORM_TENANT.to_string();
                    }
                }
                Ok(())
            });
            let outbox: Vec<String> = batch.iter_mut().filter_map(|e| e.outbox.take()).collect();
            let items: Vec<(Arc<store::ResourceDef>, String, u64, Map<String, Value>)> =
                batch.into_iter().map(|e| (res.get(e.resource), e.tenant, e.user, e.doc)).collect();
            let n = items.len() as u64;
            let op = move |w: &mut store::WriteCtx| {
                for (def, t, user, doc) in &items {
                    w.insert(def, t, doc.clone(), &store::Actor { user_id: *user, dept_id: 0, at: None })?;
                }
                Ok(())
            };
            // Lazily: no fsync of their own, durable with the next sync, within half a second. An entry whose copy
            // waits in the data file's outbox is safe meanwhile (a crash moves the copy here at the next start);
            // the copy goes once the entry is durable here (`release`).
            match store.write_lazy(n as usize, op) {
                Ok(()) => {
                    written.fetch_add(n, Ordering::Relaxed);
                    if !outbox.is_empty() {
                        match store.logged_seq() {
                            0 => {
                                // A logs' store without a write-ahead log: durable only through a sync.
                                if store.sync().is_ok() {
                                    let _ = delete_outbox(tenants, outbox);
                                }
                            }
                            seq => waiting.push_back((seq, std::time::Instant::now(), outbox)),
                        }
                    }
                }
                Err(store::StoreError::Closed) => {}
                Err(e) => tracing::warn!(target: "zz::logs", error = %e, "log batch not written"),
            }
        }
        if !flushes.is_empty() {
            // Whoever waits for the logs (tests, shutdown) finds them durable and the outbox empty.
            release(store, tenants, waiting, true);
        }
        for f in flushes {
            let _ = f.send(());
        }
        if waiting.front().is_some_and(|(_, at, _)| at.elapsed() >= OUTBOX_LOOK) {
            release(store, tenants, waiting, false);
        }
    }
    release(store, tenants, waiting, true);
}

/// How often copies waiting for their entries' durability are looked at.
const OUTBOX_LOOK: std::time::Duration = std::time::Duration::from_millis(100);
/// Past this, waiting copies get their entries synced rather than wait longer for this file's own lazy sync.
const OUTBOX_SYNC: std::time::Duration = std::time::Duration::from_millis(750);

/// Removes from the data file the outbox copies whose entries are durable in the logs' file (all of them with
/// `now`, or once the oldest has waited OUTBOX_SYNC: after a sync).
fn release(logs: &store::Store, data: &store::Store, waiting: &mut std::collections::VecDeque<(u64, std::time::Instant, Vec<String>)>, now: bool) {
    if waiting.is_empty() {
        return;
    }
    if (now || waiting.front().is_some_and(|(_, at, _)| at.elapsed() >= OUTBOX_SYNC)) && logs.sync().is_err() {
        return;
    }
    let durable = logs.durable_seq();
    let mut keys = Vec::new();
    while waiting.front().is_some_and(|(seq, _, _)| *seq <= durable) {
        keys.extend(waiting.pop_front().expect("front").2);
    }
    if !keys.is_empty() {
        let _ = delete_outbox(data, keys);
    }
}

/// Removes outbox copies (lazily: a crash before it is durable leaves copies the next start finds already moved).
fn delete_outbox(data: &store::Store, keys: Vec<String>) -> store::Result<()> {
    let gone = data.write_lazy(keys.len(), move |w| {
        for k in &keys {
            w.delete_meta(k)?;
        }
        Ok(())
    });
    if let Err(e) = &gone {
        tracing::debug!(target: "zz::logs", error = %e, "outbox copies stay until the next start");
    }
    gone
}

/// The error-log entry that records shed log entries: how many, between which times.
fn shed_entry(zone: &crate::wire::Zone, n: u64, since_ms: i64, now_ms: i64) -> Entry {
    let mut doc = Map::new();
    doc.insert("source".into(), "server".into());
    doc.insert("type".into(), "log queue full".into());
    doc.insert(
        "message".into(),
        format!(
            "日志队列已满：{} 至 {} 之间有 {n} 条日志未能记录 (log queue full: {n} entries dropped)",
            zone.format(since_ms),
            zone.format(now_ms)
        )
        .into(),
    );
    doc.insert("info".into(), format!("dropped={n}").into());
    doc.insert("url".into(), "-".into());
    doc.insert("time".into(), zone.format(now_ms).into());
    Entry { resource: "log_error", tenant: store::PLATFORM_TENANT.to_string(), user: 0, doc, outbox: None }
}

/// Query parameter names whose values never reach a log.
pub fn is_secret_key(k: &str) -> bool {
    let k = k.to_ascii_lowercase();
    matches!(k.as_str(), "token" | "access_token" | "refresh_token" | "authorization" | "blade-auth" | "code" | "captcha-code")
        || k.contains("secret")
        || k.contains("password")
        || k.contains("key")
        || k.contains("token")
}

/// A query string with the values of secret parameters replaced by `******` (undecodable input is dropped).
pub fn redact_query(q: &str) -> String {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(q).unwrap_or_default();
    let red: Vec<(String, String)> = pairs
        .into_iter()
        .map(|(k, v)| {
            let v = if is_secret_key(&k) { "******".to_string() } else { v.chars().take(200).collect() };
            (k.chars().take(64).collect(), v)
        })
        .collect();
    let mut s = serde_urlencoded::to_string(&red).unwrap_or_default();
    s.truncate(s.char_indices().nth(2000).map(|(i, _)| i).unwrap_or(s.len()));
    s
}

/// The tenants whose logs a store may hold: every tenant, and the platform.
fn tenants(data: &store::Store, res: &Resources) -> store::Result<Vec<String>> {
    let tenant_def = res.get("tenant");
    let mut tenants: Vec<String> = data
        .read(|r| r.all(&tenant_def, store::PLATFORM_TENANT))?
        .iter()
        .filter_map(|t| t.get("tenantId").and_then(Value::as_str).map(str::to_string))
        .collect();
    if !tenants.iter().any(|t| t == store::PLATFORM_TENANT) {
        tenants.push(store::PLATFORM_TENANT.into());
    }
    Ok(tenants)
}

/// Hard-deletes log entries older than `days` before `now_ms` in every tenant; returns how many went.
pub fn prune(logs: &store::Store, data: &store::Store, res: &Resources, days: u32, now_ms: i64) -> store::Result<u64> {
    let floor = store::id_floor(now_ms - days as i64 * 86_400_000);
    let tenants = tenants(data, res)?;
    let mut total = 0;
    for name in LOG_RESOURCES {
        let def = res.get(name);
        for t in &tenants {
            // Bounded batches, so a large backlog never holds the writer for long.
            loop {
                let (d, t2) = (def.clone(), t.clone());
                let n = logs.write(move |w| w.purge_before(&d, &t2, floor, 5_000))?;
                total += n;
                if n < 5_000 {
                    break;
                }
            }
        }
    }
    Ok(total)
}

/// What the size cap removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SizePrune {
    /// Errors browsers reported (`log_error` from the UI): the first to go.
    pub reports: u64,
    /// Audit entries (api, sign-in, server errors, usual log) younger than the retention: only once no browser
    /// report is left; counted in the logs' file (meta `audit_pruned`) for the status screen.
    pub audit: u64,
}

/// Meta key of the logs' file: `{count, lastAt, last}` of audit entries the size cap removed.
pub const AUDIT_PRUNED: &str = "audit_pruned";

/// Keeps the logs within `max_bytes` of pages in use: when over, entries go until a tenth below — first the
/// errors browsers reported (a signed-in user can send those, within a budget; they must never push out the
/// audit history), then the oldest entries of any log and tenant, a batch at a time, recorded as audit history
/// lost to the size cap.
pub fn prune_to_size(logs: &store::Store, data: &store::Store, res: &Resources, max_bytes: u64) -> store::Result<SizePrune> {
    let mut done = SizePrune::default();
    // The pages in use are at most the file: a file within the cap needs no walk of every table (seconds on a
    // large file not in memory, every five minutes).
    if std::fs::metadata(logs.path()).is_ok_and(|m| m.len() <= max_bytes) {
        return Ok(done);
    }
    let space = logs.space()?;
    if space.allocated_bytes <= max_bytes {
        return Ok(done);
    }
    let tenants = tenants(data, res)?;
    let defs: Vec<Arc<store::ResourceDef>> = LOG_RESOURCES.iter().map(|n| res.get(n)).collect();
    let entries: u64 = logs.read(|r| {
        let mut n = 0;
        for d in &defs {
            for t in &tenants {
                n += r.count(d, t)?;
            }
        }
        Ok(n)
    })?;
    // Entries to delete: their share of the pages over nine tenths of the cap.
    let target = max_bytes / 10 * 9;
    let mut left = (entries as u128 * (space.allocated_bytes - target) as u128 / space.allocated_bytes.max(1) as u128) as u64;
    // Browser reports first, oldest first within each tenant.
    let errors = res.get("log_error");
    for t in &tenants {
        let mut after = 0u64;
        while left > 0 {
            let (d, t2, n) = (errors.clone(), t.clone(), left.min(2_000) as usize);
            let (gone, next) = logs.write(move |w| w.purge_where(&d, &t2, after, n, 20_000, &|doc| is_browser_report(doc)))?;
            done.reports += gone;
            left = left.saturating_sub(gone);
            match next {
                Some(a) => after = a,
                None => break,
            }
        }
    }
    while left > 0 {
        // The log and tenant whose oldest entry is the oldest of all.
        let oldest = logs.read(|r| {
            let mut best: Option<(u64, usize, String)> = None;
            for (i, d) in defs.iter().enumerate() {
                for t in &tenants {
                    if let Some(first) = r.oldest(d, t, 0, 1)?.first().and_then(|m| m.get("id")).and_then(Value::as_u64)
                        && best.as_ref().is_none_or(|b| first < b.0) {
                        best = Some((first, i, t.clone()));
                    }
                }
            }
            Ok(best)
        })?;
        let Some((_, i, t)) = oldest else { break };
        let (d, n) = (defs[i].clone(), left.min(2_000) as usize);
        let gone = logs.write(move |w| w.purge_before(&d, &t, u64::MAX, n))?;
        if gone == 0 {
            break;
        }
        done.audit += gone;
        left = left.saturating_sub(gone);
    }
    if done.audit > 0 {
        let n = done.audit;
        logs.write(move |w| {
            let before: Value = w.meta(AUDIT_PRUNED)?.and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
            let count = before["count"].as_u64().unwrap_or(0) + n;
            let v = serde_json::json!({"count": count, "last": n, "lastAt": store::now_millis()});
            w.put_meta(AUDIT_PRUNED, &serde_json::to_vec(&v)?)
        })?;
    }
    Ok(done)
}

/// An error a browser reported (the UI's error log upload), as opposed to one the server recorded.
pub fn is_browser_report(doc: &Map<String, Value>) -> bool {
    doc.get("source").and_then(Value::as_str) == Some("ui")
}

/// Errors browsers may report, per user and per tenant, each hour: a signed-in user could otherwise fill the
/// logs' file with reports (and, through the size cap, push the audit history out).
pub const REPORTS_PER_USER_HOUR: (u64, u64) = (300, 1 << 20);
pub const REPORTS_PER_TENANT_HOUR: (u64, u64) = (3_000, 10 << 20);

/// What each user and tenant reported this hour (entries, bytes).
#[derive(Default)]
pub struct ReportBudget(std::sync::Mutex<std::collections::HashMap<(String, u64), (i64, u64, u64)>>);

impl ReportBudget {
    /// Takes `n` entries of `bytes` from the user's and the tenant's budgets of the hour of `now_ms`, or says in
    /// how many seconds the next hour begins.
    pub fn take(&self, tenant: &str, user: u64, n: u64, bytes: u64, now_ms: i64) -> Result<(), u64> {
        let hour = now_ms.div_euclid(3_600_000);
        let retry = (3_600_000 - now_ms.rem_euclid(3_600_000)).div_euclid(1000) as u64 + 1;
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if m.len() > 50_000 {
            m.retain(|_, v| v.0 == hour);
        }
        let mut fits = |key: (String, u64), (max_n, max_b): (u64, u64)| {
            let e = m.entry(key).or_insert((hour, 0, 0));
            if e.0 != hour {
                *e = (hour, 0, 0);
            }
            e.1 + n <= max_n && e.2 + bytes <= max_b
        };
        if !fits((tenant.to_string(), user), REPORTS_PER_USER_HOUR) || !fits((tenant.to_string(), u64::MAX), REPORTS_PER_TENANT_HOUR) {
            return Err(retry);
        }
        for key in [(tenant.to_string(), user), (tenant.to_string(), u64::MAX)] {
            if let Some(e) = m.get_mut(&key) {
                e.1 += n;
                e.2 += bytes;
            }
        }
        Ok(())
    }
}

/// Moves the log entries an older data file holds into the logs' store, once, without losing one: each batch is
/// committed (durably) in the logs' store before it is deleted from the data file, and a batch copied twice (a
/// crash between the two) is not stored twice. Returns how many moved.
pub fn move_out(data: &store::Store, logs: &store::Store, res: &Resources) -> store::Result<u64> {
    let mut moved = 0u64;
    for name in LOG_RESOURCES {
        let def = res.get(name);
        let d0 = def.clone();
        let holders = data.read(move |r| r.tenants_of(&d0))?;
        for t in holders {
            loop {
                let (d, t2) = (def.clone(), t.clone());
                let batch = data.read(move |r| r.oldest(&d, &t2, 0, 5_000))?;
                let Some(last) = batch.last().and_then(|m| m.get("id")).and_then(Value::as_u64) else { break };
                let n = batch.len();
                let (d, t2, b) = (def.clone(), t.clone(), Arc::new(batch));
                logs.write(move |w| {
                    for doc in b.iter() {
                        w.put_as_is(&d, &t2, doc)?;
                    }
                    Ok(())
                })?;
                let (d, t2) = (def.clone(), t.clone());
                data.write(move |w| w.purge_before(&d, &t2, last + 1, n))?;
                moved += n as u64;
                if moved % 100_000 < n as u64 {
                    tracing::info!(target: "zz::logs", moved, "moving log entries out of the data file");
                }
            }
        }
    }
    Ok(moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_by_name() {
        let q = "username=admin&password=abc123&tenantId=1&refresh_token=x.y&clientSecret=s&accessKey=k&Blade-Auth=b&current=1";
        let r = redact_query(q);
        for bad in ["abc123", "x.y", "=s&", "=k&", "=b&"] {
            assert!(!r.contains(bad), "{r}");
        }
        assert!(r.contains("username=admin") && r.contains("current=1"));
    }

    #[test]
    fn shed_entries_are_counted_in_the_error_log() {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(&dir.path().join("data.redb"), &store::Options::default()).unwrap();
        let res = Resources::load().unwrap();
        let zone = crate::wire::Zone::parse("+08:00").unwrap();
        // A queue of two with its writer not yet running: five offered reads shed three.
        let (sink, rx) = LogSink::queue(2);
        for i in 0..5 {
            let mut doc = Map::new();
            doc.insert("logId".into(), format!("event {i}").into());
            sink.offer(Entry { resource: "log_usual", tenant: store::PLATFORM_TENANT.into(), user: 1, doc, outbox: None });
        }
        assert_eq!(sink.dropped.load(Ordering::Relaxed), 3);
        sink.spawn(store.clone(), store.clone(), res.clone(), zone, rx);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(sink.flush());
        let errors = store.read(|r| r.all(&res.get("log_error"), store::PLATFORM_TENANT)).unwrap();
        assert_eq!(errors.len(), 1, "one entry records the shedding");
        let msg = errors[0].get("message").and_then(Value::as_str).unwrap();
        assert!(msg.contains("3 条日志未能记录"), "{msg}");
        assert_eq!(store.read(|r| r.all(&res.get("log_usual"), store::PLATFORM_TENANT)).unwrap().len(), 2);
        assert_eq!(sink.written.load(Ordering::Relaxed), 3);
    }

    /// A failure of the writer (here an entry of an undeclared resource, as a bug would make) is counted and the
    /// writer starts again: the entries queued after it are written.
    #[test]
    fn a_failed_writer_starts_again_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(&dir.path().join("data.redb"), &store::Options::default()).unwrap();
        let res = Resources::load().unwrap();
        let zone = crate::wire::Zone::parse("+08:00").unwrap();
        let (sink, rx) = LogSink::queue(16);
        assert!(!sink.health.running());
        sink.spawn(store.clone(), store.clone(), res.clone(), zone, rx);
        assert!(sink.health.running());
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let usual = |id: &str| {
            let mut doc = Map::new();
            doc.insert("logId".into(), id.into());
            doc
        };
        rt.block_on(sink.record(Entry { resource: "log_nowhere", tenant: store::PLATFORM_TENANT.into(), user: 1, doc: usual("lost"), outbox: None }));
        // The failed batch's waiters are let go (not left hanging).
        rt.block_on(sink.flush());
        rt.block_on(sink.record(Entry { resource: "log_usual", tenant: store::PLATFORM_TENANT.into(), user: 1, doc: usual("after"), outbox: None }));
        rt.block_on(sink.flush());
        assert_eq!(sink.health.restarts(), 1);
        assert!(sink.health.last_failure().is_some_and(|(at, why)| at > 0 && why.contains("log_nowhere")), "{:?}", sink.health.last_failure());
        assert!(sink.health.running());
        let kept = store.read(|r| r.all(&res.get("log_usual"), store::PLATFORM_TENANT)).unwrap();
        assert!(kept.iter().any(|d| d["logId"] == "after"), "the entry after the failure is written");
        // Failing again and again without writing anything, it stops for good: the queue is let go, so a request
        // never waits for room in it, and the status says it stopped.
        for _ in 0..GIVE_UP_AFTER {
            rt.block_on(sink.record(Entry { resource: "log_nowhere", tenant: store::PLATFORM_TENANT.into(), user: 1, doc: usual("lost"), outbox: None }));
            rt.block_on(sink.flush());
        }
        for _ in 0..300 {
            if !sink.health.running() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!sink.health.running());
        assert_eq!(sink.health.restarts(), 1 + GIVE_UP_AFTER as u64);
        let t = std::time::Instant::now();
        for _ in 0..100 {
            rt.block_on(sink.record(Entry { resource: "log_usual", tenant: store::PLATFORM_TENANT.into(), user: 1, doc: usual("nobody writes"), outbox: None }));
        }
        assert!(t.elapsed() < std::time::Duration::from_secs(5), "recording does not wait on a stopped writer");
    }

    /// Closed with the server, the writer is no longer said to run.
    #[test]
    fn a_closed_writer_is_not_running() {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(&dir.path().join("data.redb"), &store::Options::default()).unwrap();
        let (sink, rx) = LogSink::queue(16);
        sink.spawn(store.clone(), store.clone(), Resources::load().unwrap(), crate::wire::Zone::parse("+08:00").unwrap(), rx);
        let health = sink.health.clone();
        drop(sink);
        for _ in 0..300 {
            if !health.running() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!health.running());
        assert_eq!(health.restarts(), 0);
    }

    /// Within the cap (the file itself is smaller) nothing goes and no table is walked; past it the oldest entries
    /// go until the pages in use are under nine tenths of the cap.
    #[test]
    fn the_logs_are_kept_within_their_size() {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(&dir.path().join("data.redb"), &store::Options::default()).unwrap();
        let res = Resources::load().unwrap();
        let d = res.get("log_usual");
        for round in 0..20 {
            let d = d.clone();
            store
                .write(move |w| {
                    for i in 0..500 {
                        let doc = serde_json::json!({"logId": format!("e{round}.{i}"), "logData": "x".repeat(400)});
                        w.insert(&d, store::PLATFORM_TENANT, doc.as_object().unwrap().clone(), &store::Actor::default())?;
                    }
                    Ok(())
                })
                .unwrap();
        }
        let file = std::fs::metadata(store.path()).unwrap().len();
        assert_eq!(prune_to_size(&store, &store, &res, file).unwrap(), SizePrune::default());
        assert_eq!(store.read(|r| r.count(&d, store::PLATFORM_TENANT)).unwrap(), 10_000);
        let used = store.space().unwrap().allocated_bytes;
        let cap = used / 2;
        let done = prune_to_size(&store, &store, &res, cap).unwrap();
        // No browser report here: what goes is audit history, counted as such.
        let gone = done.audit;
        assert!(gone > 0 && done.reports == 0, "{used} bytes in use, cap {cap}");
        let left = store.read(|r| r.all(&d, store::PLATFORM_TENANT)).unwrap();
        assert_eq!(left.len() as u64, 10_000 - gone);
        assert!(left.iter().all(|m| m["logId"] != "e0.0"), "the oldest went first");
    }
}
