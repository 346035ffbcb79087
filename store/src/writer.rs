//! The single writer thread. Concurrent writes queue here and are group-committed: one transaction and one
//! fsync for every batch, so throughput does not collapse to one fsync per request. An operation that fails is
//! answered alone and the batch is re-run without it, so no refused operation leaves a partial write.
//!
//! Lazy operations (the server's own logs) commit without an fsync: they are visible at once and become durable
//! with the next durable commit, which the writer makes itself when none comes within `LAZY_FLUSH`. So a
//! request's audit-log entry never costs a second fsync on the request path, and at most `LAZY_FLUSH` of log
//! entries can be lost in a crash; every acknowledged data write is still durable before its answer.
//!
//! With the write-ahead log (`wal`, the default) a batch commits to redb without durability and is durable once
//! its record is appended to the log and the log fsynced, before the commit makes it visible; a checkpoint (a
//! durable redb commit, then the log emptied) follows every `FOLD_EVERY`, when the log passes `FOLD_BYTES`, when
//! the writer has been idle for `FOLD_IDLE`, and at close — whatever the traffic: the schedule is checked after
//! every commit, durable or lazy, and at every wake-up. The checkpoint's pages reach the disk behind the writer
//! (`behind`): it holds the writer only for redb's commit in memory (tens of milliseconds after a second of stock
//! picks, where writing and syncing the pages took 150), and its log is kept aside until the pages are on disk.
//!
//! Fail-stop: once appending, syncing or truncating the log, a commit or a checkpoint fails, the store takes no
//! more writes (`Inner::fail`; every queued and later write answers `StoreError::Failed`). Nothing is retried —
//! after a failed fsync Linux may report the next one as successful for pages that never reached the disk — and
//! nothing acknowledged before the failure is lost: it is in the log or in the file.
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use redb::ReadableTable;
use std::time::{Duration, Instant};

use crate::error::{Result, StoreError};
use crate::wal::{Logged, Redo, T};
use crate::{Inner, WriteCtx, engine, meta, tables};

type AnyBox = Box<dyn Any + Send>;
type Op = Box<dyn FnMut(&mut WriteCtx) -> Result<AnyBox> + Send>;
type Done = Box<dyn FnOnce(Result<AnyBox>) + Send>;

struct Item {
    op: Op,
    done: Done,
    /// Must be on disk before `done` is called.
    durable: bool,
    /// Taken even while the store refuses writes (`Store::set_read_only`): this machine's own sign-in sessions.
    local: bool,
    /// Records a lazy operation writes (as its caller counts them): a light one rides along with a durable batch.
    weight: usize,
}

/// Work run on the writer thread between two commits (so it sees no commit half-done).
pub(crate) type Task = Box<dyn FnOnce(&Inner) + Send>;

/// Records of a primary for a follower to apply, and who waits for the outcome.
pub(crate) struct Replica {
    pub(crate) records: Vec<crate::ship::LogRecord>,
    pub(crate) done: Box<dyn FnOnce(Result<crate::ship::Applied>) + Send>,
}

enum Msg {
    Run(Task),
    Item(Item),
    Replica(Replica),
    Close,
}

/// Change-log entries pruned at most per commit.
pub(crate) const PRUNE_MAX: usize = 4_096;
/// Largest number of operations committed together.
const MAX_BATCH: usize = 512;
/// Longest time a lazy commit waits for a durable one to carry it to disk.
pub(crate) const LAZY_FLUSH: Duration = Duration::from_millis(500);
/// Durable batches at most between two large lazy operations while one waits.
const LAZY_EVERY: u32 = 8;
/// A lazy operation of at most this weight rides along with the next durable batch rather than committing alone.
const RIDE_ALONG: usize = 32;
/// How long a light lazy operation waits for a durable batch to ride along with.
const LAZY_HOLD: Duration = Duration::from_millis(20);
/// A checkpoint at least this often while writes come (each dirty page is written once per checkpoint). Three
/// seconds rather than one: a checkpoint's hold on the writer and its pages hardly grow with the period (picks
/// re-dirty the same hot pages), so a third as many holds a second and a third of the writer time; picks at half
/// their capacity p90 9–14 ms against 24–34, p99 ~49 against ~69 ms (bench/README.md, issue 57). The log's own
/// bound (`FOLD_BYTES`) keeps the replay after a crash as short as before.
const FOLD_EVERY: Duration = Duration::from_millis(3_000);

/// `FOLD_EVERY`, or `ZZ_CHECKPOINT_MS` (50–10,000) for measuring another period.
fn fold_every() -> Duration {
    static EVERY: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *EVERY.get_or_init(|| {
        std::env::var("ZZ_CHECKPOINT_MS").ok().and_then(|v| v.parse::<u64>().ok()).filter(|ms| (50..=10_000).contains(ms)).map(Duration::from_millis).unwrap_or(FOLD_EVERY)
    })
}
/// A checkpoint once the log holds this much.
const FOLD_BYTES: u64 = 32 << 20;
/// A checkpoint once the writer has had nothing to do for this long.
const FOLD_IDLE: Duration = Duration::from_millis(200);
/// A due checkpoint is put off while the one before it is still on its way to the disk (its pages queued behind
/// the writer), rather than holding the writer until they are there — unless the log holds this much (a bound on
/// the log and so on the replay after a crash).
const FOLD_HARD: u64 = 4 * FOLD_BYTES;

/// The writer counts itself saturated when busy (not waiting for work) at least `SATURATED` of a `LOAD_WINDOW`
/// and its durable batches held `FULL_BATCH` requests on average: the write-behind then writes checkpoints' pages at
/// once instead of pacing them (`behind::Control::saturated`). Busy alone is not enough: below its capacity the
/// writer is busy syncing the log most of the time too, with a few requests a batch (spread picks at half their
/// capacity: ~5); at its capacity every sync gathers dozens, and a sync slowed by paced pages costs throughput.
const LOAD_WINDOW: Duration = Duration::from_millis(250);
const SATURATED: f64 = 0.9;
const FULL_BATCH: f64 = 16.0;

/// How busy the writer has been (see `LOAD_WINDOW`).
struct Load {
    since: Instant,
    idle: Duration,
    /// Durable batches committed in the window, and the requests in them.
    batches: u32,
    items: usize,
    saturated: bool,
}

/// Tells those who pace themselves by the writer (the checkpoint flusher; through `Store::writer_saturated`, the
/// search index) whether it is saturated.
fn set_saturated(inner: &Inner, on: bool) {
    inner.behind.saturated(on);
    inner.saturated.store(on, Ordering::Relaxed);
}

impl Load {
    /// Counts the time since `t` as spent waiting for work. Idle for longer than a saturated window allows, the
    /// writer is not saturated, whatever is left of the window (a checkpoint started on idle is paced).
    fn idle_since(&mut self, t: Instant, inner: &Inner) {
        self.idle += t.elapsed();
        if self.saturated && self.idle.as_secs_f64() > (1.0 - SATURATED) * LOAD_WINDOW.as_secs_f64() {
            set_saturated(inner, false);
            self.saturated = false;
        }
    }

    /// At the end of each window, tells the write-behind whether the writer is saturated.
    fn tick(&mut self, inner: &Inner) {
        let span = self.since.elapsed();
        if span < LOAD_WINDOW {
            return;
        }
        let full = self.batches > 0 && self.items as f64 >= FULL_BATCH * self.batches as f64;
        let saturated = full && self.idle.as_secs_f64() <= (1.0 - SATURATED) * span.as_secs_f64();
        if saturated != self.saturated {
            set_saturated(inner, saturated);
            self.saturated = saturated;
        }
        self.since = Instant::now();
        self.idle = Duration::ZERO;
        self.batches = 0;
        self.items = 0;
    }

    fn batch(&mut self, items: usize) {
        self.batches += 1;
        self.items += items;
    }
}

#[derive(Clone)]
pub(crate) struct WriterHandle {
    tx: Sender<Msg>,
    join: Arc<Mutex<Option<JoinHandle<()>>>>,
}

pub(crate) fn start(inner: Arc<Inner>, threads: &str, nice: Option<i32>) -> WriterHandle {
    let (tx, rx) = channel();
    let join = std::thread::Builder::new()
        .name(format!("{threads}-writer"))
        .spawn(move || {
            crate::set_nice(nice);
            run(&inner, rx)
        })
        .expect("spawn writer thread");
    WriterHandle { tx, join: Arc::new(Mutex::new(Some(join))) }
}

impl WriterHandle {
    pub(crate) fn submit<R: Send + 'static>(
        &self,
        durable: bool,
        local: bool,
        weight: usize,
        mut op: impl FnMut(&mut WriteCtx) -> Result<R> + Send + 'static,
        done: impl FnOnce(Result<R>) + Send + 'static,
    ) {
        let item = Item {
            op: Box::new(move |ctx| op(ctx).map(|r| Box::new(r) as AnyBox)),
            done: Box::new(move |r| {
                done(r.map(|b| *b.downcast::<R>().expect("writer result type")));
            }),
            durable,
            local,
            weight,
        };
        if let Err(e) = self.tx.send(Msg::Item(item))
            && let Msg::Item(item) = e.0 {
            (item.done)(Err(StoreError::Closed));
        }
    }

    /// Commits what is queued, then stops the thread and waits for it.
    /// Runs `task` on the writer thread between commits. False when the writer has stopped.
    pub(crate) fn run(&self, task: Task) -> bool {
        self.tx.send(Msg::Run(task)).is_ok()
    }

    /// Queues a follower's batch of the primary's records.
    pub(crate) fn replica(&self, r: Replica) {
        if let Err(e) = self.tx.send(Msg::Replica(r))
            && let Msg::Replica(r) = e.0 {
            (r.done)(Err(StoreError::Closed));
        }
    }

    pub(crate) fn close(&self) {
        let _ = self.tx.send(Msg::Close);
        if let Some(j) = self.join.lock().ok().and_then(|mut g| g.take()) {
            let _ = j.join();
        }
    }
}

fn run(inner: &Inner, rx: Receiver<Msg>) {
    use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
    let mut closing = false;
    // A lazy commit is waiting for a durable one (since when).
    let mut pending = false;
    let mut pending_since = Instant::now();
    // Lazy operations wait here, so a request's write never waits behind a log batch: a small one rides along
    // with the next durable batch (one commit for a request's write and the log entry of the one before), a
    // large one is committed on its own when no durable operation is waiting.
    let mut deferred: std::collections::VecDeque<(Item, Instant)> = std::collections::VecDeque::new();
    // Durable batches committed while a large lazy operation waited: past LAZY_EVERY it goes next, so a steady
    // stream of requests cannot hold the logs back until their queue sheds.
    let mut skipped = 0u32;
    let mut load = Load { since: Instant::now(), idle: Duration::ZERO, batches: 0, items: 0, saturated: false };
    while !closing {
        load.tick(inner);
        // The checkpoint and the lazy flush are due by the clock, whatever keeps the writer busy.
        if fold_due(inner) {
            fold(inner, false);
            pending = false;
        } else if pending && pending_since.elapsed() >= LAZY_FLUSH {
            pending = !flush(inner);
        }
        let waiting_from = Instant::now();
        let first = if let Some((front, since)) = deferred.front() {
            if front.weight > RIDE_ALONG {
                match rx.try_recv() {
                    Ok(m) => Some(m),
                    Err(TryRecvError::Empty) => None,
                    Err(TryRecvError::Disconnected) => break,
                }
            } else {
                match rx.recv_timeout(LAZY_HOLD.saturating_sub(since.elapsed())) {
                    Ok(m) => Some(m),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
        } else if pending {
            match rx.recv_timeout(LAZY_FLUSH) {
                Ok(m) => Some(m),
                Err(RecvTimeoutError::Timeout) => {
                    load.idle_since(waiting_from, inner);
                    pending = !flush(inner);
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        } else if unfolded(inner) || folding(inner) {
            match rx.recv_timeout(FOLD_IDLE) {
                Ok(m) => Some(m),
                Err(RecvTimeoutError::Timeout) => {
                    load.idle_since(waiting_from, inner);
                    // Idle: a checkpoint, or letting go of the last one's folded log once its pages are on disk.
                    if unfolded(inner) {
                        fold(inner, false);
                    } else {
                        settle(inner, false);
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        } else {
            match rx.recv() {
                Ok(m) => Some(m),
                Err(_) => break,
            }
        };
        load.idle_since(waiting_from, inner);
        let mut batch = Vec::new();
        let mut after = None;
        let mut replica = None;
        let mut next = first;
        while let Some(m) = next.take() {
            match m {
                Msg::Item(i) if i.durable => batch.push(i),
                Msg::Item(i) => deferred.push_back((i, Instant::now())),
                Msg::Run(task) => {
                    after = Some(task);
                    break;
                }
                Msg::Replica(r) => {
                    replica = Some(r);
                    break;
                }
                Msg::Close => {
                    closing = true;
                    break;
                }
            }
            if batch.len() >= MAX_BATCH {
                break;
            }
            next = rx.try_recv().ok();
        }
        if !batch.is_empty() {
            while batch.len() < MAX_BATCH && deferred.front().is_some_and(|(i, _)| i.weight <= RIDE_ALONG) {
                batch.push(deferred.pop_front().expect("front").0);
            }
            if skipped >= LAZY_EVERY {
                if let Some((item, _)) = deferred.pop_front() {
                    commit_batch(inner, vec![item], false);
                }
                skipped = 0;
            }
            load.batch(batch.len());
            commit_batch(inner, batch, true);
            pending = false;
            if !deferred.is_empty() {
                skipped += 1;
            }
        } else if let Some((front, since)) = deferred.front() {
            // Nothing durable is waiting: a large lazy operation goes now, a small one once it has waited
            // LAZY_HOLD for company.
            if front.weight > RIDE_ALONG || since.elapsed() >= LAZY_HOLD || closing {
                let (item, _) = deferred.pop_front().expect("front");
                commit_batch(inner, vec![item], false);
                if !pending {
                    pending_since = Instant::now();
                }
                pending = true;
                skipped = 0;
            }
        }
        if let Some(task) = after {
            task(inner);
        }
        if let Some(r) = replica {
            let out = apply_replica(inner, &r.records);
            (r.done)(out);
        }
        settle(inner, false);
    }
    // Closing: the deferred lazy operations are still written, then made durable.
    while let Some((item, _)) = deferred.pop_front() {
        commit_batch(inner, vec![item], false);
        pending = true;
    }
    if pending {
        flush(inner);
    }
    // A clean shutdown leaves the data file whole: the last checkpoint, on disk, and no log beside it.
    fold(inner, true);
    if let Ok(mut g) = inner.wal.lock()
        && g.as_ref().is_some_and(|w| w.pending() == 0)
        && let Some(w) = g.take() {
        w.remove();
    }
    // The last commit is made: the database is closed cleanly (no repair at the next open).
    if closing {
        inner.close_db();
    }
    // Anything queued after Close is refused, not silently dropped.
    while let Ok(m) = rx.try_recv() {
        match m {
            Msg::Item(i) => (i.done)(Err(StoreError::Closed)),
            Msg::Replica(r) => (r.done)(Err(StoreError::Closed)),
            _ => {}
        }
    }
}

enum Failed {
    Op(usize, StoreError),
    Storage(String),
}

/// Makes every earlier lazy commit durable: the log's fsync, or (without a log) an empty durable commit. True
/// when it succeeded.
pub(crate) fn flush(inner: &Inner) -> bool {
    if inner.failure().is_some() {
        return true;
    }
    if let Ok(mut g) = inner.wal.lock()
        && let Some(w) = g.as_mut() {
        if let Err(e) = w.sync() {
            inner.fail(format!("syncing the write-ahead log: {e}"));
        }
        return true;
    }
    let r = (|| -> Result<()> {
        let mut txn = inner.begin_write()?;
        txn.set_quick_repair(inner.quick_repair);
        txn.commit()?;
        Ok(())
    })();
    if let Err(e) = r {
        inner.fail(format!("committing the data file: {e}"));
    }
    true
}

/// Whether the log holds commits a checkpoint has not folded into the file (and checkpoints run while serving).
fn unfolded(inner: &Inner) -> bool {
    inner.fold && inner.failure().is_none() && inner.wal.lock().map(|g| g.as_ref().is_some_and(|w| w.pending() > 0)).unwrap_or(false)
}

/// Whether the last checkpoint's folded log waits for its pages to reach the disk.
fn folding(inner: &Inner) -> bool {
    inner.failure().is_none() && inner.wal.lock().map(|g| g.as_ref().is_some_and(|w| w.folding())).unwrap_or(false)
}

fn fold_due(inner: &Inner) -> bool {
    inner.fold && inner.failure().is_none() && inner.wal.lock().map(|g| g.as_ref().is_some_and(|w| w.pending() >= FOLD_BYTES || (w.pending() > 0 && w.folded_at.elapsed() >= fold_every()))).unwrap_or(false)
}

/// A checkpoint: what the log holds becomes part of the file, and the log is emptied — once the checkpoint's
/// pages are on disk, which the writer does not wait for unless `wait` (see `wal::checkpoint`). A failure stops
/// writes: the logs still hold everything (the next start folds them in).
fn fold(inner: &Inner, wait: bool) {
    if inner.failure().is_some() {
        return;
    }
    let Ok(mut g) = inner.wal.lock() else { return };
    let Some(w) = g.as_mut() else { return };
    if w.pending() == 0 {
        drop(g);
        if wait {
            settle(inner, true);
        }
        return;
    }
    let started = Instant::now();
    let traced = crate::trace::start();
    // The last checkpoint's pages still on their way: this one waits for the next look (every commit and wake-up)
    // while writes go on, unless closing or the log has grown past FOLD_HARD — then it waits for them here.
    let waited = match before_checkpoint(inner, w, wait) {
        Ok(Before::Ready) => None,
        Ok(Before::Waited(d)) => Some(d),
        Ok(Before::PutOff) => {
            // The flusher paces a checkpoint's pages while nothing waits for them: a due checkpoint does (one
            // tried on idle does not).
            if w.pending() >= FOLD_BYTES || w.folded_at.elapsed() >= fold_every() {
                inner.behind.hurry();
            }
            let first = !std::mem::replace(&mut w.postponed, true);
            let disk = w.disk_time.take();
            drop(g);
            postponed(inner, first, disk);
            return;
        }
        Err(e) => {
            drop(g);
            inner.fail(format!("checkpoint of the write-ahead log: {e}"));
            return;
        }
    };
    w.postponed = false;
    let r = w.sync().and_then(|_| inner.with_db(|db| crate::wal::checkpoint(db, w, inner.quick_repair, &inner.behind, wait)));
    let held = started.elapsed();
    crate::trace::event("checkpoint", traced, String::new);
    if let Err(e) = r {
        drop(g);
        inner.fail(format!("checkpoint of the write-ahead log: {e}"));
        return;
    }
    let disk = w.disk_time.take();
    drop(g);
    note(inner, Some(held), disk);
    if let Some(d) = waited
        && let Ok(mut c) = inner.checkpoints.lock() {
        c.waited_ms += d.as_secs_f64() * 1e3;
    }
}

enum Before {
    /// The last checkpoint is on disk.
    Ready,
    /// It was not: waited this long for it.
    Waited(Duration),
    /// It is not: this one is put off.
    PutOff,
}

/// Whether a checkpoint can go now (see `fold`). Put off, it still makes every lazy commit before it durable (what
/// the caller counts on).
fn before_checkpoint(inner: &Inner, w: &mut crate::wal::Wal, wait: bool) -> Result<Before> {
    w.settle(&inner.behind, false)?;
    if !w.folding() {
        return Ok(Before::Ready);
    }
    if !wait && w.pending() < FOLD_HARD {
        w.sync()?;
        return Ok(Before::PutOff);
    }
    let began = Instant::now();
    w.settle(&inner.behind, true)?;
    Ok(Before::Waited(began.elapsed()))
}

/// A due checkpoint put off (`first`: counted once however often it is looked at); the last one's pages may have
/// reached the disk meanwhile (`disk`).
fn postponed(inner: &Inner, first: bool, disk: Option<Duration>) {
    if first && let Ok(mut c) = inner.checkpoints.lock() {
        c.postponed += 1;
    }
    note(inner, None, disk);
}

/// Adds to the checkpoint figures: a checkpoint that held the writer `held`, and the last one's pages on disk
/// `disk` after it began.
fn note(inner: &Inner, held: Option<Duration>, disk: Option<Duration>) {
    let Ok(mut c) = inner.checkpoints.lock() else { return };
    if let Some(h) = held {
        let ms = h.as_secs_f64() * 1e3;
        c.count += 1;
        c.last_writer_ms = ms;
        c.max_writer_ms = c.max_writer_ms.max(ms);
        c.total_writer_ms += ms;
    }
    if let Some(d) = disk {
        c.last_disk_ms = d.as_secs_f64() * 1e3;
    }
}

/// Lets go of the last checkpoint's folded log if its pages have reached the disk (`wait`: once they have).
fn settle(inner: &Inner, wait: bool) {
    if inner.failure().is_some() {
        return;
    }
    let Ok(mut g) = inner.wal.lock() else { return };
    let Some(w) = g.as_mut() else { return };
    if w.folding() && let Err(e) = w.settle(&inner.behind, wait) {
        drop(g);
        inner.fail(format!("checkpoint of the write-ahead log: {e}"));
        return;
    }
    let disk = w.disk_time.take();
    drop(g);
    note(inner, None, disk);
}

fn commit_batch(inner: &Inner, mut batch: Vec<Item>, durable: bool) {
    if let Some(what) = inner.failure() {
        for item in batch {
            (item.done)(Err(StoreError::Failed(what.clone())));
        }
        return;
    }
    // A standby, or a primary another machine has replaced: only this machine's own sessions are written.
    if let Some(why) = inner.read_only() {
        let (ok, refused): (Vec<Item>, Vec<Item>) = batch.into_iter().partition(|i| i.local);
        for item in refused {
            (item.done)(Err(StoreError::ReadOnly(why.clone())));
        }
        batch = ok;
        if batch.is_empty() {
            return;
        }
    }
    while !batch.is_empty() {
        match try_batch(inner, &mut batch, durable) {
            Ok(results) => {
                for (item, r) in batch.into_iter().zip(results) {
                    (item.done)(Ok(r));
                }
                return;
            }
            Err(Failed::Op(i, e)) => {
                let item = batch.remove(i);
                (item.done)(Err(e));
            }
            Err(Failed::Storage(e)) => {
                // A storage error is the disk's or the file's: no more writes (reads go on).
                inner.fail(e.clone());
                for item in batch {
                    (item.done)(Err(StoreError::Failed(e.clone())));
                }
                return;
            }
        }
    }
}

fn try_batch(inner: &Inner, batch: &mut [Item], durable: bool) -> std::result::Result<Vec<AnyBox>, Failed> {
    let began = crate::trace::start();
    let mut touched = std::collections::HashSet::new();
    let mut changed = Vec::new();
    let mut files = Vec::new();
    let mut seq = inner.seq.get();
    let mut pruned = None;
    let storage = |e: StoreError| Failed::Storage(e.to_string());
    let logged_to_wal = inner.wal.lock().map(|g| g.is_some()).unwrap_or(false);
    // Made durable by the log: the data file's syncs in it only keep their order (`behind::Control::deferring`).
    let _deferring = logged_to_wal.then(|| inner.behind.deferring());
    let mut txn = inner.begin_write().map_err(storage)?;
    if durable && !logged_to_wal {
        txn.set_quick_repair(inner.quick_repair);
    } else {
        txn.set_durability(redb::Durability::None).map_err(|e| storage(e.into()))?;
    }
    // Every change the batch makes is recorded here for the log (nothing is recorded without one).
    let redo = Redo::new(logged_to_wal);
    let mut results = Vec::with_capacity(batch.len());
    let outcome = (|| -> std::result::Result<(), Failed> {
        let mut ctx = WriteCtx {
            chunks: Logged::new(txn.open_table(tables::FILE_CHUNKS)?, T::Chunks, &redo),
            touched: std::collections::HashSet::new(),
            rec: engine::RecordWriter {
                tables: engine::Tables {
                    records: Logged::new(txn.open_table(tables::RECORDS)?, T::Records, &redo),
                    index: Logged::new(txn.open_table(tables::INDEX)?, T::Index, &redo),
                    unique: Logged::new(txn.open_table(tables::UNIQUE)?, T::Unique, &redo),
                    counters: Logged::new(txn.open_table(tables::COUNTERS)?, T::Counters, &redo),
                },
                deleted: Logged::new(txn.open_table(tables::DELETED)?, T::Deleted, &redo),
                changed: Vec::new(),
                logged: Vec::new(),
                packs: inner.packs,
            },
            files: Vec::new(),
            sessions: Logged::new(txn.open_table(tables::SESSIONS)?, T::Sessions, &redo),
            meta: Logged::new(txn.open_table(tables::META)?, T::Meta, &redo),
            ids: &inner.ids,
        };
        for (i, item) in batch.iter_mut().enumerate() {
            match catch_unwind(AssertUnwindSafe(|| (item.op)(&mut ctx))) {
                Ok(Ok(r)) => results.push(r),
                Ok(Err(StoreError::Closed)) => return Err(Failed::Op(i, StoreError::Closed)),
                Ok(Err(e)) if e.is_storage() => return Err(Failed::Storage(e.to_string())),
                Ok(Err(e)) => return Err(Failed::Op(i, e)),
                Err(_) => return Err(Failed::Op(i, StoreError::Rule("internal error".into()))),
            }
        }
        meta::put_last_id(&mut ctx.meta, inner.ids.last()).map_err(|e| Failed::Storage(e.to_string()))?;
        if logged_to_wal {
            // The commit time travels with the record: a restore to a moment stops by the primary's own clock. It
            // never goes back (a clock stepped back by NTP): records' times are non-decreasing, so "every change
            // committed up to T, none after" is one cut of the log.
            let prev = ctx.meta.get(crate::ship::COMMIT_MS).map_err(|e| Failed::Storage(e.to_string()))?.and_then(|v| v.value().try_into().ok().map(i64::from_be_bytes)).unwrap_or(0);
            let at = crate::now_millis().max(prev);
            ctx.meta.insert(crate::ship::COMMIT_MS, at.to_be_bytes().as_slice()).map_err(|e| Failed::Storage(e.to_string()))?;
        }
        let logged = std::mem::take(&mut ctx.rec.logged);
        let st = |e: redb::StorageError| Failed::Storage(e.to_string());
        let mut log = Logged::new(txn.open_table(tables::CHANGES)?, T::Changes, &redo);
        if !logged.is_empty() {
            for (t, r, id) in &logged {
                seq += 1;
                log.insert(seq, (t.as_str(), r.as_str(), *id)).map_err(st)?;
            }
            meta::put_change_seq(&mut ctx.meta, seq).map_err(|e| Failed::Storage(e.to_string()))?;
        }
        // The log below what the search index holds goes, a bounded number of entries per commit.
        let upto = inner.indexed.load(Ordering::Relaxed);
        if upto > inner.pruned.load(Ordering::Relaxed) {
            let mut last = None;
            let keys: Vec<u64> = log
                .range(..=upto)
                .map_err(st)?
                .take(PRUNE_MAX)
                .map(|e| e.map(|(k, _)| k.value()))
                .collect::<std::result::Result<_, _>>()
                .map_err(st)?;
            for k in &keys {
                log.remove(*k).map_err(st)?;
                last = Some(*k);
            }
            pruned = Some(if keys.len() < PRUNE_MAX { upto } else { last.unwrap_or(upto) });
        }
        touched = std::mem::take(&mut ctx.touched);
        changed = std::mem::take(&mut ctx.rec.changed);
        files = std::mem::take(&mut ctx.files);
        Ok(())
    })();
    match outcome {
        Ok(()) => {
            let ops_us = crate::trace::elapsed(began);
            if logged_to_wal {
                commit_logged(inner, txn, &redo, durable).map_err(storage)?;
            } else {
                txn.commit().map_err(|e| storage(e.into()))?;
            }
            // Only now, with the batch durable and visible, may cached readers see a new version.
            inner.versions.bump(&touched);
            inner.seq.publish(seq);
            if let Some(p) = pruned {
                inner.pruned.fetch_max(p, Ordering::Relaxed);
            }
            crate::backup::note_changes(inner, changed, files);
            crate::trace::event("batch", began, || format!("{} {ops_us} {}", batch.len(), if durable { "durable" } else { "lazy" }));
            Ok(results)
        }
        Err(f) => {
            let _ = txn.abort();
            Err(f)
        }
    }
}

/// Appends the batch's record to the log, fsyncs it for a durable batch, and only then commits (without redb's
/// own durability): a visible commit is always in the log. A failure refuses the batch and stops writes; a record
/// whose sync or commit failed is taken back first, so that the next start does not replay a refused batch (when
/// even that fails, it may: the error says so).
fn commit_logged(inner: &Inner, txn: redb::WriteTransaction, redo: &Redo, durable: bool) -> Result<()> {
    let mut g = inner.wal.lock().map_err(|_| StoreError::Storage("write-ahead log lock".into()))?;
    let w = g.as_mut().ok_or_else(|| StoreError::Storage("write-ahead log closed".into()))?;
    let Some(mut rec) = redo.record(w.seq + 1, w.durable_seq) else {
        // Nothing was written (a batch of reads, refusals, replays of stored results).
        txn.commit()?;
        return Ok(());
    };
    // A failed append leaves at most a torn tail, which the next start cuts off.
    let before = w.append(&mut rec).map_err(|e| StoreError::Storage(format!("appending to the write-ahead log: {e}")))?;
    w.seq += 1;
    let undo = |w: &mut crate::wal::Wal, what: String| -> StoreError {
        match w.truncate(before) {
            Ok(()) => {
                w.seq -= 1;
                StoreError::Storage(what)
            }
            Err(t) => StoreError::Storage(format!("{what}; taking its record back failed too ({t}): the next start may apply this refused batch")),
        }
    };
    if durable && let Err(e) = w.sync() {
        return Err(undo(w, format!("syncing the write-ahead log: {e}")));
    }
    if let Err(e) = txn.commit() {
        return Err(undo(w, format!("committing the data file: {e}")));
    }
    if let Some(feed) = &inner.feed {
        feed.push(w.seq, &rec);
    }
    Ok(())
}

/// A follower's batch: the primary's records applied in one transaction of this store (through its own log like
/// any durable batch), the primary's position kept in meta `follow_seq`, then readers told what changed: the
/// versions of the resources the records wrote, the change log's new end (the search index follows it), ids
/// above the primary's.
fn apply_replica(inner: &Inner, records: &[crate::ship::LogRecord]) -> Result<crate::ship::Applied> {
    if let Some(what) = inner.failure() {
        return Err(StoreError::Failed(what));
    }
    let logged_to_wal = inner.wal.lock().map(|g| g.is_some()).unwrap_or(false);
    let _deferring = logged_to_wal.then(|| inner.behind.deferring());
    let mut txn = inner.begin_write()?;
    if logged_to_wal {
        txn.set_durability(redb::Durability::None)?;
    } else {
        txn.set_quick_repair(inner.quick_repair);
    }
    let redo = Redo::new(logged_to_wal);
    let mut out = crate::ship::Applied::default();
    let applied = (|| -> Result<std::collections::HashSet<String>> {
        let mut at = crate::ship::follow_seq_in(&txn)?;
        let mut a = crate::wal::Apply::open(&txn, &redo)?;
        out.seq = at;
        for r in records {
            if r.seq <= at {
                continue;
            }
            if r.seq != at + 1 {
                return Err(StoreError::Rule(format!("records missing: {} follows {at}", r.seq)));
            }
            a.ops(r.ops())?;
            at = r.seq;
            out.records += 1;
            out.commit_ms = r.commit_ms.or(out.commit_ms);
        }
        out.seq = at;
        a.put_meta(crate::ship::FOLLOW_SEQ, at.to_be_bytes().as_slice())?;
        Ok(std::mem::take(&mut a.touched))
    })();
    let touched = match applied {
        Ok(t) => t,
        Err(e) => {
            let _ = txn.abort();
            return Err(e);
        }
    };
    let r = if logged_to_wal { commit_logged(inner, txn, &redo, true) } else { txn.commit().map_err(Into::into) };
    if let Err(e) = r {
        inner.fail(e.to_string());
        return Err(e);
    }
    inner.versions.bump(&touched);
    let (last_id, change) = {
        let r = inner.begin_read()?;
        let m = r.open_table(tables::META)?;
        let last = m.get("last_id")?.and_then(|v| v.value().try_into().ok().map(u64::from_be_bytes)).unwrap_or(0);
        (last, meta::change_seq_in(&m)?)
    };
    inner.ids.observe(last_id);
    inner.seq.publish(change);
    Ok(out)
}

impl From<redb::TableError> for Failed {
    fn from(e: redb::TableError) -> Self {
        Failed::Storage(e.to_string())
    }
}
