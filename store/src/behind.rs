//! Write-behind for the data file: what lets a checkpoint leave the writer before its pages reach the disk.
//!
//! A checkpoint is a durable redb commit: it writes every page dirtied since the last one (tens of MiB after a
//! second of stock picks) and syncs — 150 ms on the writer thread, while every request waiting to write waits
//! with it. Here redb's writes, length changes and syncs go into a queue, in order, and a thread of their own
//! (`zz-flusher`) applies them to the file in that same order, each sync a real fsync before anything queued after
//! it. So the file passes through exactly the states it would have passed through had redb written it itself, only
//! later: every state a power loss can leave is one a power loss could have left without this layer.
//!
//! What changes is when a sync returns. Normally `sync_data` waits for the flusher to reach it (durable on
//! return, as redb expects). While the writer has set `Control::defer` (the checkpoint's commit, and the commits
//! the write-ahead log makes durable: redb syncs the file when it grows it, and that sync needs its order, not a
//! wait for every page queued before it), it returns at once: redb's commit finishes in memory, and the checkpoint
//! is durable once `Control::done` reaches the ticket the commit's syncs were given. The write-ahead log holds
//! everything that commit folded until then.
//!
//! The pages are not copied into the queue: redb hands over its cache's own buffers (`write_shared`, the one change in
//! the workspace's redb, vendor/redb/PATCH.md), which it never changes while they are shared (its header page, written
//! again at every durable commit, it copies first).
//!
//! The flusher paces a checkpoint's pages (`Pace`): a disk flushes its whole write cache for each of the
//! write-ahead log's syncs, so pages written in one burst make every request's sync in the next few hundred
//! milliseconds wait behind them. While nothing waits for the flusher and the store's writer has time to spare, it
//! spreads them over `SPREAD` and starts their writeback as it goes; otherwise it writes at once.
//!
//! Reads see every queued write (redb reads back pages it has written and not yet seen on disk): a read takes the
//! file's bytes and lays over them, in queue order, the queued writes and length cuts that overlap it. A queued
//! write stays readable until the flusher has applied it. A failed write or sync is never retried: the first error
//! is kept, and every later write, sync and wait answers it (the store stops taking writes; reads go on).
use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::ops::Bound;
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use redb::{BackendError, StorageBackend};

/// Bytes queued at most before a write waits for the flusher (a bound on the memory this layer takes; a second of
/// stock picks on a large file dirties about 35 MiB). It follows the store's page cache (`queue_for`): a small
/// file never dirties that much at once, and its server should not keep 64 MiB for a burst of uploads.
const QUEUE_MAX: usize = 64 << 20;
const QUEUE_MIN: usize = 8 << 20;

/// The queue's bound for a page cache of `cache_bytes`: a quarter of it, within 8 and 64 MiB (a checkpoint
/// dirties at most what the cache holds, and rarely a quarter of it). A checkpoint's pages are redb's own
/// buffers (`write_shared`): the queue holds them, uncopied, until applied.
pub(crate) fn queue_for(cache_bytes: usize) -> usize {
    (cache_bytes / 4).clamp(QUEUE_MIN, QUEUE_MAX)
}

enum Job {
    Write { seq: u64, at: u64, data: Arc<[u8]> },
    SetLen { seq: u64, len: u64 },
    Sync { ticket: u64 },
}

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    /// Queued writes by (offset, order), for reads; each leaves once applied.
    writes: BTreeMap<(u64, u64), Arc<[u8]>>,
    /// Queued length changes by order, for reads (a cut zeroes what lies past it).
    lens: BTreeMap<u64, u64>,
    /// The longest queued write (how far before a read's offset an overlapping write can start).
    longest: u64,
    queued_bytes: usize,
    /// The file's length as redb sees it (after every queued change).
    len: u64,
    /// The length of the file on disk (what the flusher has applied).
    disk_len: u64,
    order: u64,
    /// The last sync queued, and the last one the flusher has completed.
    issued: u64,
    done: u64,
    /// When `done` last moved.
    done_at: Option<std::time::Instant>,
    defer: bool,
    error: Option<String>,
    stop: bool,
    /// The flusher is waiting for work (only then does queuing a job wake it: a wake-up is a system call, and a
    /// checkpoint queues thousands of pages).
    flusher_idle: bool,
    /// Threads waiting for the flusher to move on (room in the queue, a sync done, the queue drained).
    waiting: usize,
    /// The store wants every sync queued so far soon (a checkpoint put off for the last one's pages): no pacing
    /// until `done` reaches it.
    hurry_until: u64,
    /// The store's writer has no time to spare (`Control::saturated`): no pacing while so.
    saturated: bool,
    /// Writes queued as redb's own buffers, and as copies (tests).
    #[cfg(test)]
    handed_over: u64,
    #[cfg(test)]
    copied: u64,
}

struct Shared {
    file: Box<dyn StorageBackend>,
    /// The same file, for advice only (`Pace::written`).
    advice: Option<std::fs::File>,
    st: Mutex<State>,
    /// Bytes queued at most (`queue_for`).
    queue_max: usize,
    /// Signals the flusher: work queued (while it is idle), or stop.
    work: Condvar,
    /// Signals waiters: work done (while someone waits), or an error.
    moved: Condvar,
    /// Held shared while reading the file, exclusively while its length changes (a read never meets a file shorter
    /// than the length it was told).
    io: RwLock<()>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.st.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until the flusher has moved on (or failed).
    fn wait_moved<'a>(&'a self, mut st: std::sync::MutexGuard<'a, State>) -> std::sync::MutexGuard<'a, State> {
        st.waiting += 1;
        // A pacing flusher waits on `work` between writes: it goes on at once.
        self.work.notify_one();
        let mut st = self.moved.wait(st).unwrap_or_else(|e| e.into_inner());
        st.waiting -= 1;
        st
    }
}

fn failed(e: &str) -> io::Error {
    io::Error::other(format!("an earlier write to the data file failed: {e}"))
}

/// The data file as redb writes it (see the module doc).
#[derive(Debug)]
pub(crate) struct WriteBehind {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

/// The store's hold on the write-behind: when syncs may return early, and how far the flusher has come. It does not
/// keep the file open: once redb has closed it (and the queue is applied), every sync counts as done.
#[derive(Clone)]
pub(crate) struct Control(std::sync::Weak<Shared>);

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriteBehind").finish_non_exhaustive()
    }
}

impl WriteBehind {
    /// `queue_max`: bytes queued at most before a write waits (`queue_for`).
    pub(crate) fn new(file: Box<dyn StorageBackend>, advice: Option<std::fs::File>, threads: &str, nice: Option<i32>, queue_max: usize) -> io::Result<(WriteBehind, Control)> {
        let len = file.len()?;
        let shared = Arc::new(Shared {
            file,
            advice,
            st: Mutex::new(State { len, disk_len: len, ..State::default() }),
            queue_max,
            work: Condvar::new(),
            moved: Condvar::new(),
            io: RwLock::new(()),
        });
        let s = shared.clone();
        let thread = std::thread::Builder::new().name(format!("{threads}-flusher")).spawn(move || {
            crate::set_nice(nice);
            flush(&s)
        })?;
        let control = Control(Arc::downgrade(&shared));
        Ok((WriteBehind { shared, thread: Mutex::new(Some(thread)) }, control))
    }

    fn enqueue(&self, job: impl FnOnce(&mut State) -> Job) -> io::Result<()> {
        let mut st = self.shared.lock();
        while st.queued_bytes > self.shared.queue_max && st.error.is_none() {
            st = self.shared.wait_moved(st);
        }
        if let Some(e) = &st.error {
            return Err(failed(e));
        }
        st.order += 1;
        let job = job(&mut st);
        st.queue.push_back(job);
        let wake = st.flusher_idle;
        drop(st);
        if wake {
            self.shared.work.notify_one();
        }
        Ok(())
    }

    fn queue_write(&self, offset: u64, data: Arc<[u8]>) -> io::Result<()> {
        self.enqueue(|st| {
            let seq = st.order;
            st.writes.insert((offset, seq), data.clone());
            st.longest = st.longest.max(data.len() as u64);
            st.queued_bytes += data.len();
            st.len = st.len.max(offset + data.len() as u64);
            Job::Write { seq, at: offset, data }
        })
    }

    /// Waits until the flusher has applied everything queued so far.
    fn drain(&self) -> io::Result<()> {
        let mut st = self.shared.lock();
        while !st.queue.is_empty() && st.error.is_none() {
            st = self.shared.wait_moved(st);
        }
        match &st.error {
            Some(e) => Err(failed(e)),
            None => Ok(()),
        }
    }
}

impl Drop for WriteBehind {
    fn drop(&mut self) {
        // What is queued is still applied (the flusher stops once the queue is empty), then the thread ends.
        self.shared.lock().stop = true;
        self.shared.work.notify_one();
        if let Some(t) = self.thread.lock().ok().and_then(|mut g| g.take()) {
            let _ = t.join();
        }
    }
}

/// Jobs the flusher takes from the queue at once: applied without the queue's lock, then let go together.
const FLUSH_BATCH: usize = 256;

/// How long the flusher spreads what is queued over, when nothing waits for it (see `Pace`): well within the
/// store's checkpoint period (3 s), so the next checkpoint rarely finds the last one's pages still on their way.
const SPREAD: Duration = Duration::from_secs(2);

/// The longest run of paced pages sent on at once (`Pace::written`).
const RUN_MAX: u64 = 1 << 20;

/// The slowest the flusher writes while pacing (a small checkpoint is written at once, near enough).
const PACE_MIN: u64 = 4 << 20;

/// The flusher's pacing: a checkpoint's pages (15–45 MiB under stock picks) written at once reach the disk in one
/// burst, and every write-ahead log sync in the next few hundred milliseconds waits behind them (the disk flushes
/// its whole write cache for a sync). Spread over `SPREAD` instead, each log sync meets only a little of them. The
/// writes keep their order; only their times change, so no other state of the file can be left by a power loss.
/// Nothing is paced while anyone waits for the flusher (a sync, room in the queue, the queue drained), while the
/// queue is more than half full, when the store hurries it (`Control::hurry`), while the store's writer is
/// saturated (`Control::saturated`) or when the write-behind closes.
#[derive(Default)]
struct Pace {
    /// When what is queued now should be written by (set at the first write after a sync).
    deadline: Option<Instant>,
    /// When the bytes written so far are due at the paced rate.
    due: Option<Instant>,
    /// The run of paced pages written and not yet sent on (start, end).
    run: Option<(u64, u64)>,
}

impl Pace {
    /// The rate to write at now (bytes a second), or None: as fast as the file takes them.
    fn rate(&mut self, st: &State, queue_max: usize) -> Option<u64> {
        let now = Instant::now();
        let deadline = *self.deadline.get_or_insert(now + SPREAD);
        if urgent(st, queue_max) || now >= deadline {
            return None;
        }
        let left = (deadline - now).as_secs_f64();
        Some(((st.queued_bytes as f64 / left) as u64).max(PACE_MIN))
    }

    /// Counts `bytes` written at `rate`: how long to wait before the next write, when ahead of the rate by more
    /// than 2 ms.
    fn after(&mut self, bytes: usize, rate: u64) -> Option<Duration> {
        let now = Instant::now();
        let due = self.due.filter(|d| *d > now).unwrap_or(now) + Duration::from_secs_f64(bytes as f64 / rate as f64);
        self.due = Some(due);
        (due > now + Duration::from_millis(2)).then(|| due - now)
    }

    /// Sends paced pages on towards the disk as they are written: otherwise the kernel keeps them until the
    /// checkpoint's sync and writes them in one burst, however slowly they came. `posix_fadvise(DONTNEED)` starts
    /// the writeback of dirty pages without waiting for it, and leaves pages under writeback in the cache (the one
    /// safe call for it: rustix offers no `sync_file_range`). Runs of adjacent pages go together, up to `RUN_MAX`.
    fn written(&mut self, advice: &std::fs::File, at: u64, len: usize) {
        let end = at + len as u64;
        let send = match self.run {
            Some((start, last)) if last == at && end - start >= RUN_MAX => {
                self.run = None;
                Some((start, end))
            }
            Some((start, last)) if last == at => {
                self.run = Some((start, end));
                None
            }
            prev => {
                self.run = Some((at, end));
                prev
            }
        };
        // Advice only: a failure changes no data (the sync writes the pages anyway). Linux's call; elsewhere the
        // sync alone writes them.
        #[cfg(target_os = "linux")]
        if let Some((start, end)) = send {
            let _ = rustix::fs::fadvise(advice, start, std::num::NonZeroU64::new(end - start), rustix::fs::Advice::DontNeed);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (advice, send);
    }

    /// A sync is done: the next write starts the next spread.
    fn synced(&mut self) {
        self.deadline = None;
        self.run = None;
    }
}

/// Whether someone needs the flusher to go as fast as it can.
fn urgent(st: &State, queue_max: usize) -> bool {
    st.waiting > 0 || st.done < st.hurry_until || st.saturated || st.stop || st.queued_bytes > queue_max / 2
}

fn flush(s: &Shared) {
    let mut batch: Vec<Job> = Vec::with_capacity(FLUSH_BATCH);
    let mut pace = Pace::default();
    loop {
        let mut st = s.lock();
        if st.queue.is_empty() {
            pace.synced();
        }
        while (st.queue.is_empty() || st.error.is_some()) && !st.stop {
            st.flusher_idle = true;
            st = s.work.wait(st).unwrap_or_else(|e| e.into_inner());
            st.flusher_idle = false;
        }
        if st.queue.is_empty() || st.error.is_some() {
            return;
        }
        // The jobs stay queued (readable) until applied: writes up to the next length change or sync (a length
        // change alone, since reads must not meet the file mid-change; a sync last, after the writes before it).
        batch.clear();
        for job in &st.queue {
            match job {
                Job::Write { seq, at, data } => batch.push(Job::Write { seq: *seq, at: *at, data: data.clone() }),
                Job::SetLen { seq, len } => {
                    if batch.is_empty() {
                        batch.push(Job::SetLen { seq: *seq, len: *len });
                    }
                    break;
                }
                Job::Sync { ticket } => {
                    batch.push(Job::Sync { ticket: *ticket });
                    break;
                }
            }
            if batch.len() == FLUSH_BATCH {
                break;
            }
        }
        let mut rate = pace.rate(&st, s.queue_max);
        let (traced, queued) = (crate::trace::start(), st.queued_bytes);
        drop(st);
        let mut applied = 0;
        let mut error = None;
        for job in &batch {
            let r = match job {
                Job::Write { at, data, .. } => {
                    let r = s.file.write(*at, data);
                    // A failed write ends the batch (below): nothing to pace.
                    if let Some(rr) = rate.filter(|_| r.is_ok()) {
                        if let Some(f) = &s.advice {
                            pace.written(f, *at, data.len());
                        }
                        if let Some(d) = pace.after(data.len(), rr) {
                            // Woken early by anyone who needs the flusher (`wait_moved`, `hurry`, `saturated`).
                            let st = s.lock();
                            let (st, _) = s.work.wait_timeout_while(st, d, |st| !urgent(st, s.queue_max)).unwrap_or_else(|e| e.into_inner());
                            if urgent(&st, s.queue_max) {
                                rate = None;
                            }
                        }
                    }
                    r
                }
                Job::SetLen { len, .. } => {
                    let _g = s.io.write().unwrap_or_else(|e| e.into_inner());
                    let r = s.file.set_len(*len);
                    if r.is_ok() {
                        s.lock().disk_len = *len;
                    }
                    r
                }
                Job::Sync { .. } => {
                    let t = crate::trace::start();
                    let r = s.file.sync_data();
                    crate::trace::event("fsync", t, String::new);
                    r
                }
            };
            match r {
                Ok(()) => applied += 1,
                Err(e) => {
                    error = Some(e.to_string());
                    break;
                }
            }
        }
        crate::trace::event("pages", traced, || {
            let bytes: usize = batch[..applied].iter().map(|j| if let Job::Write { data, .. } = j { data.len() } else { 0 }).sum();
            format!("{bytes} {} {queued}", rate.unwrap_or(0))
        });
        // Dropped once the queue's lock is let go (a page's last holder frees it).
        let mut applied_writes = Vec::new();
        let mut st = s.lock();
        for job in batch.drain(..applied) {
            st.queue.pop_front();
            match job {
                Job::Write { seq, at, data } => {
                    st.writes.remove(&(at, seq));
                    st.queued_bytes -= data.len();
                    st.disk_len = st.disk_len.max(at + data.len() as u64);
                    if st.writes.is_empty() {
                        st.longest = 0;
                    }
                    applied_writes.push(data);
                }
                Job::SetLen { seq, .. } => {
                    st.lens.remove(&seq);
                }
                Job::Sync { ticket } => {
                    st.done = ticket;
                    st.done_at = Some(std::time::Instant::now());
                    pace.synced();
                }
            }
        }
        if error.is_some() {
            st.error = error;
        }
        let wake = st.waiting > 0;
        drop(st);
        drop(applied_writes);
        if wake {
            s.moved.notify_all();
        }
    }
}

/// Waits until sync `ticket` is on disk.
fn wait_for(s: &Shared, ticket: u64) -> Result<(), String> {
    let mut st = s.lock();
    loop {
        if let Some(e) = &st.error {
            return Err(e.clone());
        }
        if st.done >= ticket {
            return Ok(());
        }
        st = s.wait_moved(st);
    }
}

impl Control {
    /// While on, a sync returns once queued instead of once on disk (the checkpoint's commit). Returns the last
    /// sync queued so far: the ticket `done` must reach for everything written before to be on disk.
    pub(crate) fn defer(&self, on: bool) -> u64 {
        let Some(s) = self.0.upgrade() else { return 0 };
        let mut st = s.lock();
        st.defer = on;
        st.issued
    }

    /// Defers syncs while the guard lives: for a commit that redb makes without durability (the write-ahead log
    /// makes it durable), whose syncs — redb syncs the file when it grows it, so that no header names a length the
    /// disk lacks — need their order, which the queue keeps, and not the wait for every page queued before them
    /// (the last checkpoint's, tens of MiB).
    pub(crate) fn deferring(&self) -> Deferring<'_> {
        self.defer(true);
        Deferring(self)
    }

    /// The last sync the flusher has completed, or the error that stopped it.
    pub(crate) fn done(&self) -> Result<u64, String> {
        let Some(s) = self.0.upgrade() else { return Ok(u64::MAX) };
        let st = s.lock();
        match &st.error {
            Some(e) => Err(e.clone()),
            None => Ok(st.done),
        }
    }

    /// Asks the flusher to write what is queued without pacing, up to the last sync queued (a checkpoint is due
    /// and waits for the last one's pages).
    pub(crate) fn hurry(&self) {
        let Some(s) = self.0.upgrade() else { return };
        let mut st = s.lock();
        st.hurry_until = st.issued;
        drop(st);
        s.work.notify_one();
    }

    /// Whether the store's writer is at its capacity (busy nearly all the time, with full batches: `writer::Load`).
    /// Pacing would cost it throughput then (each of the log's syncs carries some of the pages), and its requests
    /// wait in its queue whatever the disk does.
    pub(crate) fn saturated(&self, on: bool) {
        let Some(s) = self.0.upgrade() else { return };
        s.lock().saturated = on;
        if on {
            s.work.notify_one();
        }
    }

    /// When the last sync completed.
    pub(crate) fn done_at(&self) -> Option<std::time::Instant> {
        self.0.upgrade()?.lock().done_at
    }

    /// Waits until sync `ticket` is on disk.
    pub(crate) fn wait(&self, ticket: u64) -> Result<(), String> {
        match self.0.upgrade() {
            Some(s) => wait_for(&s, ticket),
            None => Ok(()),
        }
    }
}

/// Syncs deferred until dropped (`Control::deferring`).
pub(crate) struct Deferring<'a>(&'a Control);

impl Drop for Deferring<'_> {
    fn drop(&mut self) {
        self.0.defer(false);
    }
}

impl StorageBackend for WriteBehind {
    fn len(&self) -> io::Result<u64> {
        Ok(self.shared.lock().len)
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        /// A queued change over a read: (its place in the queue, offset, Some(bytes written) | None (a cut there)).
        type Over = (u64, u64, Option<Arc<[u8]>>);
        let end = offset + out.len() as u64;
        let _io = self.shared.io.read().unwrap_or_else(|e| e.into_inner());
        // What the queue holds over this range, in queue order.
        let (disk_len, over) = {
            let st = self.shared.lock();
            let mut over: Vec<Over> = Vec::new();
            if !st.queue.is_empty() {
                let from = offset.saturating_sub(st.longest);
                for ((at, seq), data) in st.writes.range((Bound::Included((from, 0)), Bound::Excluded((end, 0)))) {
                    if at + data.len() as u64 > offset {
                        over.push((*seq, *at, Some(data.clone())));
                    }
                }
                for (seq, len) in &st.lens {
                    if *len < end {
                        over.push((*seq, *len, None));
                    }
                }
                over.sort_unstable_by_key(|o| o.0);
            }
            (st.disk_len, over)
        };
        // The last queued write that covers the whole range makes the file's bytes (and all before it) moot.
        let start = over.iter().rposition(|(_, at, d)| d.as_ref().is_some_and(|d| *at <= offset && at + d.len() as u64 >= end));
        let rest = match start {
            Some(i) => &over[i..],
            None => {
                let on_disk = disk_len.clamp(offset, end);
                let n = (on_disk - offset) as usize;
                if n > 0 {
                    self.shared.file.read(offset, &mut out[..n])?;
                }
                out[n..].fill(0);
                &over[..]
            }
        };
        for (_, at, d) in rest {
            match d {
                Some(d) => {
                    let from = offset.max(*at);
                    let to = end.min(at + d.len() as u64);
                    if from < to {
                        out[(from - offset) as usize..(to - offset) as usize].copy_from_slice(&d[(from - at) as usize..(to - at) as usize]);
                    }
                }
                None => {
                    let cut = (*at).clamp(offset, end);
                    out[(cut - offset) as usize..].fill(0);
                }
            }
        }
        Ok(())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.enqueue(|st| {
            let seq = st.order;
            st.lens.insert(seq, len);
            st.len = len;
            Job::SetLen { seq, len }
        })
    }

    fn sync_data(&self) -> io::Result<()> {
        let mut ticket = 0;
        let mut defer = false;
        self.enqueue(|st| {
            st.issued += 1;
            ticket = st.issued;
            defer = st.defer;
            Job::Sync { ticket }
        })?;
        if defer {
            return Ok(());
        }
        wait_for(&self.shared, ticket).map_err(|e| failed(&e))
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        #[cfg(test)]
        {
            self.shared.lock().copied += 1;
        }
        self.queue_write(offset, Arc::from(data))
    }

    /// A page of redb's cache, queued as it is: no copy (redb copies the page itself if it writes it again before
    /// the flusher has let it go).
    fn write_shared(&self, offset: u64, data: &Arc<[u8]>) -> io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        #[cfg(test)]
        {
            self.shared.lock().handed_over += 1;
        }
        self.queue_write(offset, data.clone())
    }

    fn close(&self) -> io::Result<()> {
        self.drain()?;
        self.shared.file.close()
    }

    fn try_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.shared.file.try_lock_range(start, end)
    }
    fn try_lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.shared.file.try_lock_shared_range(start, end)
    }
    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.shared.file.lock_range(start, end)
    }
    fn lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.shared.file.lock_shared_range(start, end)
    }
    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.shared.file.unlock_range(start, end)
    }
    fn query_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.shared.file.query_lock_range(start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A file in memory whose writes are slow now and then (so reads meet a queue).
    #[derive(Debug, Default)]
    struct Slow {
        bytes: Mutex<Vec<u8>>,
        syncs: std::sync::atomic::AtomicU64,
    }

    #[derive(Debug)]
    struct SlowFile(Arc<Slow>);

    impl StorageBackend for SlowFile {
        fn len(&self) -> io::Result<u64> {
            Ok(self.0.bytes.lock().unwrap().len() as u64)
        }
        fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
            let b = self.0.bytes.lock().unwrap();
            let end = offset as usize + out.len();
            if end > b.len() {
                return Err(io::Error::from(io::ErrorKind::UnexpectedEof));
            }
            out.copy_from_slice(&b[offset as usize..end]);
            Ok(())
        }
        fn set_len(&self, len: u64) -> io::Result<()> {
            self.0.bytes.lock().unwrap().resize(len as usize, 0);
            Ok(())
        }
        fn sync_data(&self) -> io::Result<()> {
            std::thread::sleep(std::time::Duration::from_micros(300));
            self.0.syncs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(())
        }
        fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
            if data[0].is_multiple_of(2) {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            let mut b = self.0.bytes.lock().unwrap();
            let end = offset as usize + data.len();
            if b.len() < end {
                b.resize(end, 0);
            }
            b[offset as usize..end].copy_from_slice(data);
            Ok(())
        }
        fn close(&self) -> io::Result<()> {
            Ok(())
        }
        fn try_lock_range(&self, _: Bound<u64>, _: Bound<u64>) -> Result<bool, BackendError> {
            Ok(true)
        }
        fn try_lock_shared_range(&self, _: Bound<u64>, _: Bound<u64>) -> Result<bool, BackendError> {
            Ok(true)
        }
        fn lock_range(&self, _: Bound<u64>, _: Bound<u64>) -> Result<(), BackendError> {
            Ok(())
        }
        fn lock_shared_range(&self, _: Bound<u64>, _: Bound<u64>) -> Result<(), BackendError> {
            Ok(())
        }
        fn unlock_range(&self, _: Bound<u64>, _: Bound<u64>) -> Result<(), BackendError> {
            Ok(())
        }
        fn query_lock_range(&self, _: Bound<u64>, _: Bound<u64>) -> Result<bool, BackendError> {
            Ok(false)
        }
    }

    #[test]
    fn the_queue_follows_the_page_cache() {
        // The bounds follow the page cache: a small file's server keeps 8 MiB of queue, a large one's 64.
        assert_eq!(queue_for(16 << 20), 8 << 20);
        assert_eq!(queue_for(32 << 20), 8 << 20);
        assert_eq!(queue_for(128 << 20), 32 << 20);
        assert_eq!(queue_for(1 << 30), 64 << 20);
    }

    /// A checkpoint's pages reach the queue uncopied: redb hands over its cache's own buffers (`write_shared`, the
    /// workspace's redb patch, vendor/redb/PATCH.md). redb writes its header page again at every durable commit,
    /// while the flusher (slow here) still holds the last one: it must copy the page then, never change it under the
    /// queue (the published redb panics there: `Arc::get_mut(..).unwrap()`). The file the flusher leaves is the last
    /// commit's, whole.
    #[test]
    fn pages_handed_over_uncopied_are_never_changed_under_the_queue() {
        use redb::{ReadableDatabase, TableDefinition};
        const T: TableDefinition<u32, &[u8]> = TableDefinition::new("t");
        let file = Arc::new(Slow::default());
        let (wb, control) = WriteBehind::new(Box::new(SlowFile(file.clone())), None, "zz", None, QUEUE_MAX).unwrap();
        let shared = wb.shared.clone();
        let mut db = redb::Database::builder().create_with_backend(wb).unwrap();
        // Syncs deferred, as in a checkpoint: every commit returns once queued, and the flusher falls behind.
        control.defer(true);
        let mut most_queued = 0;
        for round in 0..200u32 {
            let tx = db.begin_write().unwrap();
            {
                let mut t = tx.open_table(T).unwrap();
                for k in 0..40u32 {
                    t.insert(k, &[(round % 251) as u8; 700][..]).unwrap();
                }
            }
            tx.commit().unwrap();
            most_queued = most_queued.max(shared.lock().queue.len());
        }
        control.defer(false);
        assert!(most_queued > 50, "the flusher kept up ({most_queued} jobs queued at most): nothing was reused under it");
        // Every page of every commit handed over, none copied here (redb's header too goes through its cache).
        let (handed_over, copied) = {
            let st = shared.lock();
            (st.handed_over, st.copied)
        };
        assert!(handed_over >= 200 * 3 && copied * 10 < handed_over, "handed over {handed_over}, copied {copied}");
        assert!(db.check_integrity().unwrap());
        drop(db);
        // The file as the flusher left it, opened without the queue.
        let bytes = file.bytes.lock().unwrap().clone();
        let mem = redb::backends::InMemoryBackend::new();
        mem.set_len(bytes.len() as u64).unwrap();
        mem.write(0, &bytes).unwrap();
        let db = redb::Database::builder().create_with_backend(mem).unwrap();
        let rx = db.begin_read().unwrap();
        let t = rx.open_table(T).unwrap();
        for k in 0..40u32 {
            assert_eq!(t.get(k).unwrap().unwrap().value(), &[199u8; 700][..], "key {k}");
        }
    }

    /// A checkpoint's pages are spread over time while nothing waits for them, and written at once when something
    /// does: a wait for their sync, or the store hurrying the flusher. 8 MiB paced take two seconds
    /// (`SPREAD`, `PACE_MIN`); each wait here ends long before that.
    #[test]
    fn pages_are_paced_until_someone_waits() {
        let file = Arc::new(Slow::default());
        let (wb, control) = WriteBehind::new(Box::new(SlowFile(file.clone())), None, "zz", None, QUEUE_MAX).unwrap();
        let page = vec![1u8; 4096]; // odd: the test file writes it without a delay
        let checkpoint = |round: u64| {
            control.defer(true);
            for i in 0..2048u64 {
                wb.write((round * 2048 + i) * 4096, &page).unwrap();
            }
            wb.sync_data().unwrap();
            control.defer(false)
        };
        for round in 0..2 {
            let began = Instant::now();
            let ticket = checkpoint(round);
            std::thread::sleep(Duration::from_millis(300));
            assert!(control.done().unwrap() < ticket, "round {round}: paced, so not on disk after 0.3 s");
            if round == 0 {
                control.wait(ticket).unwrap();
            } else {
                control.hurry();
                while control.done().unwrap() < ticket && began.elapsed() < Duration::from_secs(5) {
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
            let took = began.elapsed();
            assert!(control.done().unwrap() >= ticket);
            assert!(took < Duration::from_millis(1_500), "round {round}: took {took:?}, as if still paced");
        }
        assert_eq!(file.bytes.lock().unwrap().len(), 2 * 2048 * 4096);
    }

    /// Overlapping writes of every size, growing and cutting lengths, syncs deferred and not, and reads of any
    /// range while the flusher is behind: every read equals a plain file that took the same calls, and so does the
    /// file once the queue is applied.
    #[test]
    fn reads_see_every_queued_change_and_the_file_ends_equal() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let file = Arc::new(Slow::default());
        let (wb, control) = WriteBehind::new(Box::new(SlowFile(file.clone())), None, "zz", None, QUEUE_MAX).unwrap();
        let mut model: Vec<u8> = Vec::new();
        let mut deferred_ticket = 0;
        for step in 0..6_000u32 {
            match rng.random_range(0..100) {
                0..55 => {
                    let len = *[1usize, 7, 512, 4096, 8192, 16384].get(rng.random_range(0..6)).unwrap();
                    let at = rng.random_range(0..(model.len() + 20_000)) as u64;
                    let data: Vec<u8> = (0..len).map(|_| rng.random()).collect();
                    wb.write(at, &data).unwrap();
                    let end = at as usize + len;
                    if model.len() < end {
                        model.resize(end, 0);
                    }
                    model[at as usize..end].copy_from_slice(&data);
                }
                55..60 => {
                    let len = rng.random_range(0..(model.len() + 30_000)) as u64;
                    wb.set_len(len).unwrap();
                    model.resize(len as usize, 0);
                }
                60..64 => {
                    let defer = rng.random_bool(0.5);
                    control.defer(defer);
                    wb.sync_data().unwrap();
                    let ticket = control.defer(false);
                    if defer {
                        deferred_ticket = ticket;
                    } else {
                        // A sync that was not deferred returned with everything before it applied and synced.
                        assert!(control.done().unwrap() >= ticket);
                        assert_eq!(*file.bytes.lock().unwrap(), model, "step {step}: a sync returned before the file had it");
                    }
                }
                _ => {
                    assert_eq!(wb.len().unwrap(), model.len() as u64);
                    if model.is_empty() {
                        continue;
                    }
                    let at = rng.random_range(0..model.len());
                    let len = rng.random_range(1..=(model.len() - at).min(20_000));
                    let mut out = vec![0xAAu8; len];
                    wb.read(at as u64, &mut out).unwrap();
                    assert!(out == model[at..at + len], "step {step}: read {at}+{len} differs");
                }
            }
        }
        control.wait(deferred_ticket).unwrap();
        wb.close().unwrap();
        assert_eq!(*file.bytes.lock().unwrap(), model);
        drop(wb);
        assert!(file.syncs.load(std::sync::atomic::Ordering::Relaxed) > 100);
    }

    /// Waits until the test opens `gate`: a failing write that waits so fails only after the test has queued what it
    /// needs, however fast the flusher is.
    fn wait_open(gate: &std::sync::atomic::AtomicBool) {
        while !gate.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// The first failed write is kept: every later write and sync answers it, and waiting for a ticket too.
    #[test]
    fn a_failed_write_fails_every_later_call() {
        // The write fails only once the test has queued what it needs (else a fast flusher fails it first, and the
        // sync below is refused with the error instead of being queued).
        #[derive(Debug)]
        struct Broken(Arc<std::sync::atomic::AtomicBool>);
        impl StorageBackend for Broken {
            fn len(&self) -> io::Result<u64> {
                Ok(0)
            }
            fn read(&self, _: u64, _: &mut [u8]) -> io::Result<()> {
                Ok(())
            }
            fn set_len(&self, _: u64) -> io::Result<()> {
                Ok(())
            }
            fn sync_data(&self) -> io::Result<()> {
                Ok(())
            }
            fn write(&self, _: u64, _: &[u8]) -> io::Result<()> {
                wait_open(&self.0);
                Err(io::Error::from_raw_os_error(28))
            }
            fn close(&self) -> io::Result<()> {
                Ok(())
            }
        }
        let gate = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (wb, control) = WriteBehind::new(Box::new(Broken(gate.clone())), None, "zz", None, QUEUE_MAX).unwrap();
        wb.write(0, &[1, 2, 3]).unwrap();
        control.defer(true);
        wb.sync_data().unwrap();
        let ticket = control.defer(false);
        gate.store(true, std::sync::atomic::Ordering::SeqCst);
        let e = control.wait(ticket).unwrap_err();
        assert!(e.contains("28") || e.to_lowercase().contains("space"), "{e}");
        assert!(wb.write(4096, &[1]).is_err());
        assert!(wb.sync_data().is_err());
        assert!(control.done().is_err());
        // What was queued stays readable.
        let mut out = [0u8; 3];
        wb.read(0, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3]);
    }

    /// A write failing among many the flusher applies together: those before it are in the file and let go, it
    /// and those after stay queued (readable), and no sync after them counts as done.
    #[test]
    fn a_write_failing_within_a_batch_keeps_it_and_the_rest_queued() {
        // The fifth write fails only once the test has queued all ten and the sync (see the test above).
        #[derive(Debug)]
        struct FailsFifth(Arc<Slow>, std::sync::atomic::AtomicU32, Arc<std::sync::atomic::AtomicBool>);
        impl StorageBackend for FailsFifth {
            fn len(&self) -> io::Result<u64> {
                SlowFile(self.0.clone()).len()
            }
            fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
                SlowFile(self.0.clone()).read(offset, out)
            }
            fn set_len(&self, len: u64) -> io::Result<()> {
                SlowFile(self.0.clone()).set_len(len)
            }
            fn sync_data(&self) -> io::Result<()> {
                SlowFile(self.0.clone()).sync_data()
            }
            fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
                if self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 4 {
                    wait_open(&self.2);
                    return Err(io::Error::from_raw_os_error(5));
                }
                SlowFile(self.0.clone()).write(offset, data)
            }
            fn close(&self) -> io::Result<()> {
                Ok(())
            }
        }
        let file = Arc::new(Slow::default());
        let gate = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (wb, control) = WriteBehind::new(Box::new(FailsFifth(file.clone(), Default::default(), gate.clone())), None, "zz", None, QUEUE_MAX).unwrap();
        for i in 0..10u8 {
            wb.write(u64::from(i) * 4, &[i + 1; 4]).unwrap();
        }
        control.defer(true);
        wb.sync_data().unwrap();
        let ticket = control.defer(false);
        gate.store(true, std::sync::atomic::Ordering::SeqCst);
        assert!(control.wait(ticket).unwrap_err().contains("os error 5"));
        assert_eq!(file.syncs.load(std::sync::atomic::Ordering::Relaxed), 0);
        // The first four reached the file; the failed fifth and the rest are still read from the queue.
        assert_eq!(*file.bytes.lock().unwrap(), (1..=4u8).flat_map(|i| [i; 4]).collect::<Vec<_>>());
        let mut out = [0u8; 40];
        wb.read(0, &mut out).unwrap();
        assert_eq!(out.to_vec(), (1..=10u8).flat_map(|i| [i; 4]).collect::<Vec<_>>());
        assert!(wb.write(64, &[1]).is_err());
    }
}
