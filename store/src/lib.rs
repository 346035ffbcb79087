//! The store: one redb file holding every table of the product. Sync API; the app calls it from blocking
//! threads or through the group-commit writer. No redb type leaks out of this crate.
mod backup;
mod behind;
mod codec;
mod engine;
mod error;
pub mod fs;
mod meta;
mod query;
mod resource;
pub mod ship;
mod tables;
pub mod wal;
mod writer;
pub mod trace;
mod lazy;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use redb::{Database, ReadableDatabase, ReadableTable};
use serde_json::{Map, Value};

use lazy::LazyTable;

pub use backup::{Defs, FileSpace, TableCount, VerifyReport, compact_file, verify_file};
pub use codec::{RawField, StoredRow, UnpackedFigures, decode_record, unpacked_figures};
pub use engine::{storage_tenant, walks};
/// Entries of added records kept beside a sort index's rank marks (for tests that pass it).
#[doc(hidden)]
pub use engine::rank::ADDED_MAX as SORT_MARKS_ADDED_MAX;
pub use engine::rank::RankFigures;
pub use error::{FieldProblem, Result, StoreError};
pub use meta::{BASE_FORMAT, INDEX_LAYOUT, PACKED_LOGS_FORMAT, REQUIRED_FORMAT, SCHEMA_VERSION, set_binary};
pub use query::{Budget, Filter, Hint, Interrupt, Op, Page, Predicate, Query, Sort};
pub use resource::{AUDIT_FIELDS, FieldDef, FieldKind, Pattern, ResourceDef, format_money, format_qty, parse_id_value, parse_money, parse_qty, pattern_ok, QTY_SCALE};

/// Tenant of platform-wide data.
pub const PLATFORM_TENANT: &str = "000000";
/// The data file's name inside the data directory.
pub const DATA_FILE: &str = "zhizhuang.redb";

/// Who a write is done for: stamped into the audit columns.
#[derive(Debug, Clone, Copy, Default)]
pub struct Actor {
    pub user_id: u64,
    pub dept_id: u64,
    /// When the write is recorded as made (`createTime`, `updateTime`): None is now. Only the server's own seeding
    /// sets it (demo data of past weeks); a client never can.
    pub at: Option<i64>,
}

pub fn now_millis() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// Options for opening a store.
#[derive(Debug, Clone)]
pub struct Options {
    /// redb page cache in bytes.
    pub cache_bytes: usize,
    /// Save redb's allocator state in every commit (fast reopen after a crash, slower commits).
    pub quick_repair: bool,
    /// Make group commits durable through the write-ahead log (`wal`) instead of a durable redb commit each.
    pub wal: bool,
    /// Checkpoint the log while running (false: only at close; tests that look at the log itself).
    pub fold: bool,
    /// The files: the operating system's, or a test's that fails or records on command.
    pub fs: Arc<dyn fs::Fs>,
    /// Opening applies the trustworthy part of a log it would refuse and sets the log aside (`zhizhuang recover
    /// --accept-loss`), instead of refusing to open.
    pub accept_loss: bool,
    /// Keep every folded log in this directory (and hand records to `Store::feed`) for shipping off the machine
    /// (see `ship`). None: checkpoints empty the log.
    pub ship_dir: Option<PathBuf>,
    /// What the store's threads are called: `{threads}-writer`, `{threads}-flusher` (at most 15 bytes each, as
    /// Linux keeps them), so a profile or `top -H` tells the data file's writer from the logs' file's.
    pub threads: &'static str,
    /// The format the file is brought to at open (`meta::BASE_FORMAT`, the default; `PACKED_LOGS_FORMAT` for the
    /// logs' file, whose records are all packed: format 5 changed nothing it holds, so it is not copied and
    /// upgraded for it). A file already newer (and readable) stays so.
    pub format: u32,
    /// Resources whose records stay unpacked (`ResourceDef::plain`): the packing of an upgrade to format 5 leaves
    /// their records in format 1.
    pub plain: Vec<String>,
    /// The nice value of the store's own threads (its writer and flusher; Linux schedules each thread by its own),
    /// for a store whose writes are background work (the server's logs: lazy, durable within half a second) and
    /// should take the cores requests leave. None: they keep their creator's. Raising a nice value needs no
    /// privilege; a failure leaves the priority as it was.
    pub nice: Option<i32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cache_bytes: 64 << 20,
            quick_repair: std::env::var("ZZ_QUICK_REPAIR").map(|v| v == "1").unwrap_or(false),
            wal: std::env::var("ZZ_WAL").map(|v| v != "0").unwrap_or(true),
            fold: true,
            fs: Arc::new(fs::OsFs),
            accept_loss: false,
            ship_dir: None,
            threads: "zz",
            format: meta::BASE_FORMAT,
            plain: Vec::new(),
            nice: None,
        }
    }
}

/// The data file's page cache (see `Store::cache`).
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheFigures {
    pub capacity_bytes: u64,
    pub used_bytes: u64,
    pub read_hits: u64,
    pub read_misses: u64,
    pub evictions: u64,
}

/// The checkpoints of the write-ahead log since the start (see `Store::checkpoints`).
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointFigures {
    pub count: u64,
    /// How long the last one held the writer (every write waits meanwhile), and the longest so far.
    pub last_writer_ms: f64,
    pub max_writer_ms: f64,
    /// How long all of them held the writer together (its rate is the share of time writes waited on them).
    pub total_writer_ms: f64,
    /// How long the last one took from its commit's start until its pages were on disk (the writer went on once
    /// the commit was made in memory).
    pub last_disk_ms: f64,
    /// Checkpoints put off because the one before had not reached the disk yet (writes went on meanwhile), and how
    /// long checkpoints waited for the one before all the same (at close, or with the log past `FOLD_HARD`).
    pub postponed: u64,
    pub waited_ms: f64,
}

/// A page cache for a data file of `file_bytes` on a machine with `ram_bytes`: a quarter of the memory, no more
/// than the file (plus a quarter for growth), never below 32 MiB. A fixed 64 MiB made a server with a
/// million records read its hot pages from the disk; a 64 MiB floor made a new company's server keep 64 MiB of
/// its first burst of uploads (pages written go into the cache) for a file that needed a few.
pub fn cache_for(file_bytes: u64, ram_bytes: u64) -> usize {
    let floor = 32u64 << 20;
    let want = file_bytes + file_bytes / 4;
    want.min(ram_bytes / 4).max(floor) as usize
}

/// The machine's memory (Linux `/proc/meminfo`), if it can be read.
pub fn machine_ram() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

pub(crate) struct Inner {
    /// The database; taken (and so closed cleanly, allocator state saved) by the writer when the store closes.
    db: std::sync::RwLock<Option<Database>>,
    path: PathBuf,
    ids: IdGen,
    versions: Versions,
    /// Rank marks of deep pages (`engine::rank`), checked against each reader's snapshot.
    ranks: Arc<engine::rank::RankCache>,
    quick_repair: bool,
    /// Checkpoints while running (see `Options::fold`).
    fold: bool,
    /// How long opening took when the file needed repair after an unclean shutdown.
    repair_ms: Option<u64>,
    /// Keys changed since an online backup began (None: no backup running).
    pub(crate) changes: std::sync::Mutex<Option<backup::Changes>>,
    /// The change log's last committed sequence number, and a wake-up for the index that follows it.
    pub(crate) seq: ChangeSeq,
    /// The follower holds every change up to here: the writer prunes the log below it.
    pub(crate) indexed: AtomicU64,
    /// Entries of the log up to here are gone.
    pub(crate) pruned: AtomicU64,
    /// The write-ahead log (None: every durable batch is a durable redb commit). Used by the writer thread.
    pub(crate) wal: std::sync::Mutex<Option<wal::Wal>>,
    /// What opening found in the write-ahead log left by the last run.
    replayed: wal::Replayed,
    /// The copy kept before this open upgraded the file's format, if it did.
    upgraded: Option<PathBuf>,
    /// The formats records are written in (`codec::Packs`: what the file's format allows).
    pub(crate) packs: codec::Packs,
    /// Why an optional upgrade of the file's format was left for a later start.
    upgrade_deferred: Option<String>,
    /// What failed, once a write, sync or truncate of the log or a commit of the data file has: from then on every
    /// write is refused (`StoreError::Failed`) and reads go on (fail-stop: nothing is retried).
    failed: std::sync::Mutex<Option<String>>,
    /// Why writes are refused for now (a standby; a primary replaced by another machine): None takes writes.
    refuse: std::sync::Mutex<Option<String>>,
    /// The last log sequence on disk (what may be shipped).
    durable: Arc<AtomicU64>,
    /// Records for the shipper (with `Options::ship_dir`).
    pub(crate) feed: Option<Arc<ship::Feed>>,
    /// Opening changed the file outside the log (a new log identity, a schema migration): a shipped stream of
    /// its changes cannot continue across this start.
    broke_stream: bool,
    /// The last measurement of the file's pages (see `Store::space_within`).
    space: std::sync::Mutex<Option<(std::time::Instant, FileSpace)>>,
    /// The page cache given at open.
    cache_bytes: usize,
    /// The data file's write-behind: a checkpoint's commit returns before its pages are on disk.
    pub(crate) behind: behind::Control,
    /// The writer is saturated (see `writer::Load`): busy nearly all the time with full batches.
    pub(crate) saturated: AtomicBool,
    pub(crate) checkpoints: std::sync::Mutex<CheckpointFigures>,
}

impl Inner {
    pub(crate) fn read_only(&self) -> Option<String> {
        self.refuse.lock().ok().and_then(|g| g.clone())
    }
    /// Runs `f` with the open database (`Closed` once the store closed).
    pub(crate) fn with_db<R>(&self, f: impl FnOnce(&Database) -> Result<R>) -> Result<R> {
        let g = self.db.read().map_err(|_| StoreError::Closed)?;
        f(g.as_ref().ok_or(StoreError::Closed)?)
    }
    pub(crate) fn begin_read(&self) -> Result<redb::ReadTransaction> {
        self.with_db(|db| Ok(db.begin_read()?))
    }
    pub(crate) fn begin_write(&self) -> Result<redb::WriteTransaction> {
        self.with_db(|db| Ok(db.begin_write()?))
    }
    /// Stops taking writes for good (this process): `what` failed.
    pub(crate) fn fail(&self, what: String) {
        if let Ok(mut g) = self.failed.lock()
            && g.is_none() {
            eprintln!("zz-writer: storage failure, writes stopped: {what}");
            *g = Some(what);
        }
    }
    pub(crate) fn failure(&self) -> Option<String> {
        self.failed.lock().ok().and_then(|g| g.clone())
    }
    /// Closes the database (after the writer's last commit): redb records a clean shutdown, so the next open
    /// needs no repair.
    pub(crate) fn close_db(&self) {
        if let Ok(mut g) = self.db.write() {
            g.take();
        }
    }
}

/// The last committed change-log sequence number, with a condition variable for followers.
#[derive(Default)]
pub(crate) struct ChangeSeq {
    seq: std::sync::Mutex<u64>,
    moved: std::sync::Condvar,
}

impl ChangeSeq {
    pub(crate) fn get(&self) -> u64 {
        self.seq.lock().map(|g| *g).unwrap_or(0)
    }
    pub(crate) fn publish(&self, seq: u64) {
        if let Ok(mut g) = self.seq.lock()
            && seq > *g {
            *g = seq;
            self.moved.notify_all();
        }
    }
    fn wait_past(&self, seq: u64, timeout: std::time::Duration) -> u64 {
        let Ok(g) = self.seq.lock() else { return seq };
        match self.moved.wait_timeout_while(g, timeout, |cur| *cur <= seq) {
            Ok((g, _)) => *g,
            Err(_) => seq,
        }
    }
}

/// One entry of the change log: a searchable record written in the commit that took `seq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub seq: u64,
    pub tenant: String,
    pub resource: String,
    pub id: u64,
}

/// Change counters per resource (and `"sessions"`), bumped by the writer after each durable commit that
/// touched it. A reader that takes the version before its snapshot can cache what it computed from that
/// snapshot and trust it while the version is unchanged: nothing cached is older than an acknowledged write.
#[derive(Default)]
pub(crate) struct Versions(std::sync::RwLock<std::collections::HashMap<String, u64>>);

impl Versions {
    fn get(&self, name: &str) -> u64 {
        self.0.read().map(|m| m.get(name).copied().unwrap_or(0)).unwrap_or(0)
    }
    pub(crate) fn bump<'a>(&self, names: impl IntoIterator<Item = &'a String>) {
        if let Ok(mut m) = self.0.write() {
            for n in names {
                *m.entry(n.clone()).or_default() += 1;
            }
        }
    }
}

/// A handle to the open data file. Clones share one database and one writer thread.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
    writer: writer::WriterHandle,
}

impl Store {
    /// Opens (creating if needed) the data file, migrating it to this binary's schema (after a copy of the
    /// old file is kept beside it). Fails with `Locked` when another process holds it.
    pub fn open(path: &Path, opts: &Options) -> Result<Store> {
        let existed = path.exists() && std::fs::metadata(path)?.len() > 0;
        let repaired = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = repaired.clone();
        let started = std::time::Instant::now();
        // A new file is made whole under another name and then renamed into place: a crash while creating it
        // leaves no half-made data file (the next start makes it again).
        let creating = creating_path(path);
        let at = if existed {
            path.to_path_buf()
        } else {
            opts.fs.remove(&creating)?;
            creating.clone()
        };
        if existed {
            meta::peek_not_newer(path)?;
        }
        let backend = opts.fs.data(&at).map_err(|e| if e.kind() == std::io::ErrorKind::WouldBlock { StoreError::Locked } else { e.into() })?;
        let (backend, behind) = behind::WriteBehind::new(backend, opts.fs.advice(&at), opts.threads, opts.nice, behind::queue_for(opts.cache_bytes))?;
        let db = Database::builder()
            .set_cache_size(opts.cache_bytes)
            .set_repair_callback(move |_| flag.store(true, std::sync::atomic::Ordering::Relaxed))
            .create_with_backend(backend)?;
        let repair_ms = repaired.load(std::sync::atomic::Ordering::Relaxed).then(|| started.elapsed().as_millis() as u64);
        // A file of a newer format is refused before anything of it is read (its log included).
        meta::check_not_newer(&db)?;
        // A log set aside earlier is never forgotten: opening waits until `recover` has applied or discarded it.
        if existed && !opts.accept_loss {
            wal::refuse_set_aside(path)?;
        }
        // The log of the last run first: its records are changes of the schema it ran with.
        let replayed = if existed { wal::replay(&db, &opts.fs, path, opts.quick_repair, opts.accept_loss)? } else { wal::Replayed::default() };
        let meta::Prepared { aside: upgraded, format, deferred: upgrade_deferred, repacked } = meta::prepare(&db, path, existed, opts.format, opts.fs.as_ref(), &opts.plain)?;
        let migrated = upgraded.is_some() || repacked;
        let had_id = wal::file_state(&db)?.0.is_some();
        let wal_ids = if opts.wal { Some(wal::ensure_id(&db, opts.quick_repair)?) } else { None };
        let broke_stream = migrated || !had_id;
        if !existed {
            opts.fs.rename(&creating, path)?;
            opts.fs.sync_dir(path)?;
        }
        let durable = Arc::new(AtomicU64::new(0));
        if let Some(dir) = &opts.ship_dir {
            std::fs::create_dir_all(dir)?;
            // The log the last run left is folded now; its records are kept until shipped.
            if opts.wal {
                for (range, log) in [(replayed.folded_range, wal::folded_path_for(path)), (replayed.range, wal::path_for(path))] {
                    if let Some((first, last)) = range {
                        let to = dir.join(wal::kept_name(first, last));
                        opts.fs.rename(&log, &to)?;
                        opts.fs.sync_dir(&to)?;
                    }
                }
            }
        }
        let wal = match wal_ids {
            Some((id, seq)) => Some(wal::Wal::create(&opts.fs, &wal::path_for(path), &id, seq.max(replayed.seq), opts.ship_dir.clone(), durable.clone())?),
            None => {
                opts.fs.remove(&wal::path_for(path))?;
                None
            }
        };
        // A checkpoint's folded log is in the file now (replay made it durable), unless kept for shipping above. As
        // for the writer (`Wal::settle`), one that cannot be removed costs disk space, not data: the next open skips
        // its records and the next checkpoint's rename replaces it.
        let folded = wal::folded_path_for(path);
        if let Err(e) = opts.fs.remove(&folded) {
            eprintln!("zz-store: removing {} failed ({e}); it is replaced at the next checkpoint", folded.display());
        }
        let last = meta::last_id(&db)?;
        let (seq, first) = {
            let r = db.begin_read()?;
            let first = r.open_table(tables::CHANGES)?.first()?.map(|(k, _)| k.value());
            (meta::change_seq(&r)?, first)
        };
        let inner = Arc::new(Inner {
            db: std::sync::RwLock::new(Some(db)),
            path: path.to_path_buf(),
            ids: IdGen::new(last),
            versions: Versions::default(),
            ranks: Arc::default(),
            quick_repair: opts.quick_repair,
            fold: opts.fold,
            repair_ms,
            changes: std::sync::Mutex::new(None),
            seq: ChangeSeq::default(),
            indexed: AtomicU64::new(0),
            pruned: AtomicU64::new(first.map(|f| f.saturating_sub(1)).unwrap_or(seq)),
            wal: std::sync::Mutex::new(wal),
            replayed,
            upgraded,
            packs: codec::Packs::of(format),
            upgrade_deferred,
            failed: std::sync::Mutex::new(None),
            refuse: std::sync::Mutex::new(None),
            durable,
            feed: opts.ship_dir.as_ref().map(|_| Arc::new(ship::Feed::new(64 << 20))),
            broke_stream,
            space: std::sync::Mutex::new(None),
            cache_bytes: opts.cache_bytes,
            behind,
            saturated: AtomicBool::new(false),
            checkpoints: std::sync::Mutex::default(),
        });
        inner.seq.publish(seq);
        let writer = writer::start(inner.clone(), opts.threads, opts.nice);
        Ok(Store { inner, writer })
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The change counter of a resource (or `"sessions"`); see `Versions`. Read it before the snapshot.
    pub fn version(&self, name: &str) -> u64 {
        self.inner.versions.get(name)
    }

    /// Whether the writer is saturated: busy nearly all of the last quarter second, with full batches (durable
    /// writes arriving faster than one at a time). Work that can wait (the search index) should not count on
    /// spare cores then.
    pub fn writer_saturated(&self) -> bool {
        self.inner.saturated.load(Ordering::Relaxed)
    }

    /// The change log's last committed sequence number.
    pub fn change_seq(&self) -> u64 {
        self.inner.seq.get()
    }

    /// Waits until the change log moves past `seq` or `timeout` passes; returns the sequence number then.
    pub fn wait_changes(&self, seq: u64, timeout: std::time::Duration) -> u64 {
        self.inner.seq.wait_past(seq, timeout)
    }

    /// Tells the writer that the follower (the search index) holds every change up to `seq`: entries up to it
    /// are pruned from the log by the next commits, a few thousand at a time.
    pub fn set_indexed(&self, seq: u64) {
        self.inner.indexed.fetch_max(seq, Ordering::Relaxed);
    }

    /// The change log holds nothing up to here (pruned, or never logged).
    pub fn changes_pruned(&self) -> u64 {
        self.inner.pruned.load(Ordering::Relaxed)
    }

    /// Prunes the change log up to what the follower holds (`set_indexed`) without waiting for other writes to do
    /// it: one lazy commit of at most a few thousand removals, committed alone (visible at once, durable with the
    /// next durable commit; a crash before it only leaves the entries to prune again). For an idle server, whose
    /// log would otherwise keep what was written without one (`bench gen`, an older binary): 33 B a record.
    /// True while more is left. Nothing on a store that refuses writes (a standby's log follows its primary's).
    pub fn prune_changes(&self) -> Result<bool> {
        let behind = || self.inner.indexed.load(Ordering::Relaxed) > self.inner.pruned.load(Ordering::Relaxed);
        if !behind() || self.read_only().is_some() {
            return Ok(false);
        }
        self.write_lazy(writer::PRUNE_MAX, |_| Ok(()))?;
        Ok(behind())
    }

    /// Runs `f` against a consistent snapshot.
    pub fn read<R>(&self, f: impl FnOnce(&ReadCtx) -> Result<R>) -> Result<R> {
        let txn = self.inner.begin_read()?;
        let ctx = ReadCtx::new(txn, self.inner.ranks.clone());
        f(&ctx)
    }

    /// Queues a write; `done` gets its result once the batch it joined is durable on disk. `op` may run more
    /// than once (a batch is re-run without an operation that failed), so it must not have side effects
    /// outside the transaction.
    pub fn submit<R: Send + 'static>(
        &self,
        op: impl FnMut(&mut WriteCtx) -> Result<R> + Send + 'static,
        done: impl FnOnce(Result<R>) + Send + 'static,
    ) {
        self.writer.submit(true, false, 1, op, done)
    }

    /// A lazy write: committed (visible to readers) without waiting for the disk, and durable with the next
    /// durable commit, which comes within half a second. For records whose loss in a crash is acceptable
    /// (the server's own logs); never for a write a client is told succeeded. `records` is how many records `op`
    /// writes: a light lazy write shares the next durable commit, a heavy one commits alone when the writer is idle.
    pub fn write_lazy<R: Send + 'static>(
        &self,
        records: usize,
        op: impl FnMut(&mut WriteCtx) -> Result<R> + Send + 'static,
    ) -> Result<R> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.writer.submit(false, false, records, op, move |r| {
            let _ = tx.send(r);
        });
        rx.recv().unwrap_or(Err(StoreError::Closed))
    }

    /// A durable write, blocking until it is committed.
    pub fn write<R: Send + 'static>(&self, op: impl FnMut(&mut WriteCtx) -> Result<R> + Send + 'static) -> Result<R> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.submit(op, move |r| {
            let _ = tx.send(r);
        });
        rx.recv().unwrap_or(Err(StoreError::Closed))
    }

    /// A durable write taken even while the store refuses writes (`set_read_only`): for this machine's own
    /// sign-in sessions, which a standby keeps so that people can sign in to read.
    pub fn write_local<R: Send + 'static>(&self, op: impl FnMut(&mut WriteCtx) -> Result<R> + Send + 'static) -> Result<R> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.submit_local(op, move |r| {
            let _ = tx.send(r);
        });
        rx.recv().unwrap_or(Err(StoreError::Closed))
    }

    /// `submit` of a write taken even while the store refuses writes (see `write_local`).
    pub fn submit_local<R: Send + 'static>(&self, op: impl FnMut(&mut WriteCtx) -> Result<R> + Send + 'static, done: impl FnOnce(Result<R>) + Send + 'static) {
        self.writer.submit(true, true, 1, op, done)
    }

    /// Consistent online copy into `out`: one read transaction, a new file, verified, then renamed into place.
    /// Writes keep flowing while it runs.
    pub fn backup_to(&self, out: &Path, defs: backup::Defs) -> Result<VerifyReport> {
        backup::backup(&self.inner, &self.writer, out, defs).map(|(r, _, _)| r)
    }

    /// `backup_to`, the log position the copy holds exactly (every record up to it, none after: a snapshot for
    /// shipping), and that position's commit time (None before any record carried one).
    pub fn snapshot_to(&self, out: &Path, defs: backup::Defs) -> Result<(VerifyReport, u64, Option<i64>)> {
        backup::backup(&self.inner, &self.writer, out, defs)
    }

    /// Refuses every write but this machine's sessions (`write_local`) with `StoreError::ReadOnly(why)`, or takes
    /// writes again (None).
    pub fn set_read_only(&self, why: Option<String>) {
        if let Ok(mut g) = self.inner.refuse.lock() {
            *g = why;
        }
    }

    pub fn read_only(&self) -> Option<String> {
        self.inner.read_only()
    }

    /// The last log sequence number on disk: what may leave the machine.
    pub fn durable_seq(&self) -> u64 {
        self.inner.durable.load(Ordering::Acquire)
    }

    /// The write-ahead log's last record so far (0 when the store runs without one). A lazy write is durable once
    /// `durable_seq` reaches the value read after it returned.
    pub fn logged_seq(&self) -> u64 {
        self.inner.wal.lock().ok().and_then(|g| g.as_ref().map(|w| w.seq)).unwrap_or(0)
    }

    /// Makes every lazy write committed so far durable (one fsync of the log), waiting for it.
    pub fn sync(&self) -> Result<()> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let sent = self.writer.run(Box::new(move |inner: &Inner| {
            writer::flush(inner);
            let _ = tx.send(inner.failure());
        }));
        match (sent, rx.recv()) {
            (true, Ok(None)) => Ok(()),
            (true, Ok(Some(why))) => Err(StoreError::Failed(why)),
            _ => Err(StoreError::Closed),
        }
    }

    /// The records for the shipper (with `Options::ship_dir`).
    pub fn feed(&self) -> Option<Arc<ship::Feed>> {
        self.inner.feed.clone()
    }

    /// Whether opening changed the file outside its log (see `Inner::broke_stream`).
    pub fn broke_stream(&self) -> bool {
        self.inner.broke_stream
    }

    /// The data file's log identity (random per file; a backup's or a restore's copy gets its own).
    pub fn log_id(&self) -> Result<Option<[u8; 16]>> {
        self.inner.with_db(|db| Ok(wal::file_state(db)?.0))
    }

    /// Applies a primary's records (a follower): see `ship`. Blocks until they are durable and visible.
    pub fn apply_replica(&self, records: Vec<ship::LogRecord>) -> Result<ship::Applied> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.writer.replica(writer::Replica {
            records,
            done: Box::new(move |r| {
                let _ = tx.send(r);
            }),
        });
        rx.recv().unwrap_or(Err(StoreError::Closed))
    }

    /// The primary's position this copy holds (meta `follow_seq`; 0 when it never followed one).
    pub fn follow_seq(&self) -> Result<u64> {
        self.inner.with_db(ship::follow_seq_of)
    }

    /// Space in the live file, measured at most `max_age` ago: the pages in use are counted by walking every
    /// table (about 2 s on a 1.3 GB file in memory, far longer from the disk), so screens and scrapes that ask
    /// often get the last measurement, with the file's length always current. Answers the measurement's age too.
    pub fn space_within(&self, max_age: std::time::Duration) -> Result<(FileSpace, std::time::Duration)> {
        let cached = *self.inner.space.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, mut sp)) = cached
            && at.elapsed() <= max_age {
            let len = std::fs::metadata(&self.inner.path).map(|m| m.len()).unwrap_or(sp.file_bytes);
            sp.file_bytes = len;
            sp.free_bytes = len.saturating_sub(sp.allocated_bytes);
            return Ok((sp, at.elapsed()));
        }
        Ok((self.space()?, std::time::Duration::ZERO))
    }

    /// Space in the live file (length, allocated, free), measured from a snapshot on the calling thread. (It was
    /// measured on the writer thread: on a 2.3 GB logs' file not in memory the walk took 16–40 s, the logs' writer
    /// waited, their queue filled and every write request with it.)
    pub fn space(&self) -> Result<FileSpace> {
        let r = self.inner.begin_read()?;
        let sp = backup::space_of_snapshot(&r, &self.inner.path)?;
        *self.inner.space.lock().unwrap_or_else(|e| e.into_inner()) = Some((std::time::Instant::now(), sp));
        Ok(sp)
    }

    /// Milliseconds spent repairing the file at open, when it was not shut down cleanly (a crash, kill -9).
    pub fn repaired_ms(&self) -> Option<u64> {
        self.inner.repair_ms
    }

    /// The copy kept beside the file before this open upgraded its format (None: no upgrade ran).
    pub fn upgraded(&self) -> Option<&Path> {
        self.inner.upgraded.as_deref()
    }

    /// Why this open left an optional upgrade of the file's format for a later start (no room for the copy).
    pub fn upgrade_deferred(&self) -> Option<&str> {
        self.inner.upgrade_deferred.as_deref()
    }

    /// The format the file is in (this binary's, once open) and what last opened it for writing.
    pub fn format(&self) -> Result<(u32, String)> {
        let r = self.inner.begin_read()?;
        let t = r.open_table(tables::META)?;
        let by = t.get("written_by")?.map(|b| String::from_utf8_lossy(b.value()).into_owned()).unwrap_or_default();
        Ok((meta::schema_version(&r)?, by))
    }

    /// What opening applied from the write-ahead log the last run left (after a crash: its last commits).
    pub fn replayed(&self) -> &wal::Replayed {
        &self.inner.replayed
    }

    /// What failed, if a write, sync or truncate of the log or a commit of the data file has: the store then takes
    /// no more writes (each answers `StoreError::Failed`) until the process restarts; reads go on.
    pub fn failure(&self) -> Option<String> {
        self.inner.failure()
    }

    /// The page cache: its size, what it holds, and how reads fared since the start.
    pub fn cache(&self) -> CacheFigures {
        let st = self.inner.db.read().ok().and_then(|g| g.as_ref().map(|db| db.cache_stats()));
        let mut f = CacheFigures { capacity_bytes: self.inner.cache_bytes as u64, ..CacheFigures::default() };
        if let Some(s) = st {
            f.used_bytes = s.used_bytes() as u64;
            f.read_hits = s.read_hits();
            f.read_misses = s.read_misses();
            f.evictions = s.evictions();
        }
        f
    }

    /// What deep pages keep in memory between requests: rank marks and id sets (`engine::rank`).
    pub fn ranks(&self) -> RankFigures {
        self.inner.ranks.figures()
    }

    /// The checkpoints since the start: how many, how long the last held the writer and took to reach the disk.
    pub fn checkpoints(&self) -> CheckpointFigures {
        self.inner.checkpoints.lock().map(|g| *g).unwrap_or_default()
    }

    /// Bytes in the write-ahead log waiting for a checkpoint (0 without a log).
    pub fn log_bytes(&self) -> u64 {
        self.inner.wal.lock().map(|g| g.as_ref().map(|w| w.pending()).unwrap_or(0)).unwrap_or(0)
    }

    /// Stops the writer after the queued writes are committed. Further writes answer `Closed`.
    pub fn close(&self) {
        self.writer.close();
    }
}

/// Where a new data file is made before it is renamed into place.
fn creating_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".creating");
    PathBuf::from(s)
}

/// Ids: milliseconds since 2020 shifted left 16 bits, plus a sequence; strictly increasing within the process
/// and above the persisted high-water mark, so newer records have larger ids.
pub(crate) struct IdGen(AtomicU64);

const ID_EPOCH_MS: i64 = 1_577_836_800_000;

impl IdGen {
    fn new(last: u64) -> Self {
        IdGen(AtomicU64::new(last))
    }
    pub(crate) fn next(&self) -> u64 {
        let floor = ((now_millis() - ID_EPOCH_MS).max(1) as u64) << 16;
        let mut cur = self.0.load(Ordering::Relaxed);
        loop {
            let next = (cur + 1).max(floor);
            match self.0.compare_exchange_weak(cur, next, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return next,
                Err(seen) => cur = seen,
            }
        }
    }
    pub(crate) fn last(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
    /// Makes every later id larger than `id`.
    pub(crate) fn observe(&self, id: u64) {
        self.0.fetch_max(id, Ordering::Relaxed);
    }
}

/// The smallest id a record created at `millis` (epoch) can have: ids below it are older.
pub fn id_floor(millis: i64) -> u64 {
    ((millis - ID_EPOCH_MS).max(0) as u64) << 16
}

/// Reads inside one snapshot. Each table is opened when first used (`lazy`): a point read opens the records only.
pub struct ReadCtx {
    t: engine::ReadTables,
    chunks: LazyTable<tables::ChunkK, &'static [u8]>,
    sessions: LazyTable<tables::PairK, &'static [u8]>,
    meta: LazyTable<tables::Str, &'static [u8]>,
    changes: LazyTable<u64, (&'static str, &'static str, u64)>,
    ranks: Arc<engine::rank::RankCache>,
}

/// Change-log entries a hinted list reads at most; beyond, the hint is too old to help and is ignored.
const MAX_PENDING_SCAN: usize = 50_000;

impl ReadCtx {
    fn new(txn: redb::ReadTransaction, ranks: Arc<engine::rank::RankCache>) -> Self {
        let txn = Arc::new(txn);
        ReadCtx {
            t: engine::Tables {
                records: LazyTable::new(&txn, tables::RECORDS),
                index: LazyTable::new(&txn, tables::INDEX),
                unique: LazyTable::new(&txn, tables::UNIQUE),
                counters: LazyTable::new(&txn, tables::COUNTERS),
            },
            chunks: LazyTable::new(&txn, tables::FILE_CHUNKS),
            sessions: LazyTable::new(&txn, tables::SESSIONS),
            meta: LazyTable::new(&txn, tables::META),
            changes: LazyTable::new(&txn, tables::CHANGES),
            ranks,
        }
    }
    pub fn get(&self, def: &ResourceDef, tenant: &str, id: u64) -> Result<Option<Map<String, Value>>> {
        self.t.get(def, tenant, id)
    }
    /// `get` of only the `names` fields (see [`engine::Tables::get_fields`]).
    pub fn get_fields(&self, def: &ResourceDef, tenant: &str, id: u64, names: &[&str]) -> Result<Option<Map<String, Value>>> {
        self.t.get_fields(def, tenant, id, names)
    }
    /// See [`engine::Tables::ids_with`]: the records whose indexed field holds one of `values`.
    pub fn ids_with(&self, def: &ResourceDef, tenant: &str, field: &str, values: Vec<Value>) -> Result<Option<Vec<u64>>> {
        self.t.ids_with(def, tenant, field, values)
    }
    pub fn find_unique(&self, def: &ResourceDef, tenant: &str, field: &str, value: &str) -> Result<Option<u64>> {
        self.t.find_unique(def, tenant, field, value)
    }
    /// One page of a list. With a hint, only its candidates and the records changed since it are visited
    /// (see `Hint`); a hint too far behind the log is ignored.
    pub fn list(&self, def: &ResourceDef, tenant: &str, q: &Query) -> Result<Page> {
        if let Some(h) = &q.hint {
            let t = engine::storage_tenant(def, tenant);
            let mut pending = Vec::new();
            let mut scanned = 0usize;
            let mut complete = true;
            for e in self.changes.table()?.range(h.seq.saturating_add(1)..)? {
                let (_, v) = e?;
                let (ct, cr, id) = v.value();
                if ct == t && cr == def.name {
                    pending.push(id);
                }
                scanned += 1;
                if scanned > MAX_PENDING_SCAN {
                    complete = false;
                    break;
                }
            }
            // The log must reach back to the hint: else changes in between are gone and the hint cannot be used.
            if complete && self.changes_reach(h.seq)? {
                return self.t.list_hinted(def, tenant, q, h, &pending);
            }
            let mut plain = q.clone();
            plain.hint = None;
            return self.t.list(def, tenant, &plain);
        }
        if let Some(page) = self.t.list_ranked(def, tenant, q, &self.ranks)? {
            return Ok(page);
        }
        self.t.list(def, tenant, q)
    }

    /// See [`engine::Tables::newest_by`]: a page of the newest records with one indexed value, not counted.
    pub fn newest_by(&self, def: &ResourceDef, tenant: &str, field: &str, value: &Value, offset: u64, limit: u64) -> Result<Option<Vec<Map<String, Value>>>> {
        self.t.newest_by(def, tenant, field, value, offset, limit)
    }

    /// The change log's last sequence number in this snapshot.
    pub fn change_seq(&self) -> Result<u64> {
        meta::change_seq_in(self.meta.table()?)
    }

    /// Up to `max` change-log entries after `seq`, oldest first.
    pub fn changes_after(&self, seq: u64, max: usize) -> Result<Vec<Change>> {
        let mut out = Vec::new();
        for e in self.changes.table()?.range(seq.saturating_add(1)..)?.take(max) {
            let (k, v) = e?;
            let (tenant, resource, id) = v.value();
            out.push(Change { seq: k.value(), tenant: tenant.to_string(), resource: resource.to_string(), id });
        }
        Ok(out)
    }

    /// Whether the log still holds every change after `seq` (false: some were pruned, a follower that stopped
    /// at `seq` must start over).
    pub fn changes_reach(&self, seq: u64) -> Result<bool> {
        let last = self.change_seq()?;
        if seq >= last {
            return Ok(seq == last);
        }
        Ok(self.changes.table()?.first()?.is_some_and(|(k, _)| k.value() <= seq + 1))
    }

    /// Tenants (storage tenants) holding live records of a resource.
    pub fn tenants_of(&self, def: &ResourceDef) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for e in self.t.counters.iter()? {
            let (k, v) = e?;
            let (t, r) = k.value();
            if r == def.name && v.value() > 0 {
                out.push(t.to_string());
            }
        }
        Ok(out)
    }

    /// At most `n` live records of a resource in a (storage) tenant with ids above `after`, oldest first.
    pub fn oldest(&self, def: &ResourceDef, tenant: &str, after: u64, n: usize) -> Result<Vec<Map<String, Value>>> {
        let mut out = Vec::new();
        if after == u64::MAX {
            return Ok(out);
        }
        for e in self.t.records.range((tenant, def.name.as_str(), after + 1)..=(tenant, def.name.as_str(), u64::MAX))? {
            out.push(codec::decode_record(e?.1.value())?);
            if out.len() >= n {
                break;
            }
        }
        Ok(out)
    }

    /// Calls `f` with every live record of a resource in a (storage) tenant, in id order.
    pub fn for_each(&self, def: &ResourceDef, tenant: &str, mut f: impl FnMut(Map<String, Value>) -> Result<()>) -> Result<()> {
        for e in self.t.records.range((tenant, def.name.as_str(), 0)..=(tenant, def.name.as_str(), u64::MAX))? {
            f(codec::decode_record(e?.1.value())?)?;
        }
        Ok(())
    }
    /// `for_each` with only the named fields of each record decoded, and its id: what a search index rebuild needs
    /// of records that hold much more.
    pub fn for_each_fields(&self, def: &ResourceDef, tenant: &str, names: &[&str], mut f: impl FnMut(u64, Map<String, Value>) -> Result<()>) -> Result<()> {
        for e in self.t.records.range((tenant, def.name.as_str(), 0)..=(tenant, def.name.as_str(), u64::MAX))? {
            let (k, v) = e?;
            f(k.value().2, engine::tested_doc(Some(names), v.value())?)?;
        }
        Ok(())
    }
    pub fn all(&self, def: &ResourceDef, tenant: &str) -> Result<Vec<Map<String, Value>>> {
        self.t.all(def, tenant)
    }
    pub fn count(&self, def: &ResourceDef, tenant: &str) -> Result<u64> {
        self.t.count(def, tenant)
    }
    pub fn session(&self, tenant: &str, sid: &str) -> Result<Option<Value>> {
        self.session_as(tenant, sid)
    }
    pub fn meta(&self, key: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.meta.table()?.get(key)?.map(|v| v.value().to_vec()))
    }
    /// Every meta key starting with `prefix` and its value, in key order (at most `max`).
    pub fn meta_prefix(&self, prefix: &str, max: usize) -> Result<Vec<(String, Vec<u8>)>> {
        let mut out = Vec::new();
        for e in self.meta.table()?.range(prefix..)? {
            let (k, v) = e?;
            if !k.value().starts_with(prefix) || out.len() >= max {
                break;
            }
            out.push((k.value().to_string(), v.value().to_vec()));
        }
        Ok(out)
    }
    /// The chunks of a stored file, in order.
    pub fn file_chunks(&self, tenant: &str, file: u64) -> Result<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        for e in self.chunks.table()?.range((tenant, file, 0)..=(tenant, file, u32::MAX))? {
            out.push(e?.1.value().to_vec());
        }
        Ok(out)
    }
    /// A maintained counter that is not a record total (quotas and the like).
    pub fn counter(&self, tenant: &str, name: &str) -> Result<u64> {
        Ok(self.t.counters.get((tenant, name))?.map(|v| v.value()).unwrap_or(0))
    }
    /// A session decoded into the caller's own (partial) shape.
    pub fn session_as<T: serde::de::DeserializeOwned>(&self, tenant: &str, sid: &str) -> Result<Option<T>> {
        match self.sessions.table()?.get((tenant, sid))? {
            Some(v) => Ok(Some(serde_json::from_slice(v.value())?)),
            None => Ok(None),
        }
    }
}

/// Writes inside the current group-commit transaction.
pub struct WriteCtx<'t> {
    chunks: wal::Logged<'t, tables::ChunkK, &'static [u8]>,
    rec: engine::RecordWriter<'t>,
    /// Resources (and `"sessions"`) this batch changed; their versions are bumped after the commit.
    touched: std::collections::HashSet<String>,
    sessions: wal::Logged<'t, tables::PairK, &'static [u8]>,
    meta: wal::Logged<'t, tables::Str, &'static [u8]>,
    ids: &'t IdGen,
    /// Stored files (tenant, file id) this transaction wrote or deleted.
    files: Vec<(String, u64)>,
}

impl WriteCtx<'_> {
    pub fn new_id(&self) -> u64 {
        self.ids.next()
    }
    pub fn get(&self, def: &ResourceDef, tenant: &str, id: u64) -> Result<Option<Map<String, Value>>> {
        self.rec.tables.get(def, tenant, id)
    }
    /// `get` of only the `names` fields (see [`engine::Tables::get_fields`]).
    pub fn get_fields(&self, def: &ResourceDef, tenant: &str, id: u64, names: &[&str]) -> Result<Option<Map<String, Value>>> {
        self.rec.tables.get_fields(def, tenant, id, names)
    }
    pub fn find_unique(&self, def: &ResourceDef, tenant: &str, field: &str, value: &str) -> Result<Option<u64>> {
        self.rec.tables.find_unique(def, tenant, field, value)
    }
    pub fn all(&self, def: &ResourceDef, tenant: &str) -> Result<Vec<Map<String, Value>>> {
        self.rec.tables.all(def, tenant)
    }
    pub fn count(&self, def: &ResourceDef, tenant: &str) -> Result<u64> {
        self.rec.tables.count(def, tenant)
    }
    /// One page of a list inside the write transaction (what this batch wrote included): rules that look at
    /// other records (a record still named by another, the lines of a document) see exactly what commits.
    pub fn list(&self, def: &ResourceDef, tenant: &str, q: &Query) -> Result<Page> {
        self.rec.tables.list(def, tenant, q)
    }
    /// Inserts a parsed record with a new id; returns the stored record.
    pub fn insert(&mut self, def: &ResourceDef, tenant: &str, doc: Map<String, Value>, actor: &Actor) -> Result<Map<String, Value>> {
        self.touch(&def.name);
        let id = self.ids.next();
        self.rec.insert(def, tenant, id, doc, actor)
    }
    pub fn update(
        &mut self,
        def: &ResourceDef,
        tenant: &str,
        id: u64,
        patch: Map<String, Value>,
        actor: &Actor,
    ) -> Result<Map<String, Value>> {
        self.touch(&def.name);
        self.rec.update(def, tenant, id, patch, actor)
    }
    /// `update` of a record read in this transaction and not written since, passed as read (no second read).
    pub fn update_from(
        &mut self,
        def: &ResourceDef,
        tenant: &str,
        id: u64,
        old: Map<String, Value>,
        patch: Map<String, Value>,
        actor: &Actor,
    ) -> Result<Map<String, Value>> {
        self.touch(&def.name);
        self.rec.update_from(def, tenant, id, old, patch, actor)
    }
    pub fn remove(&mut self, def: &ResourceDef, tenant: &str, ids: &[u64], actor: &Actor) -> Result<u64> {
        self.touch(&def.name);
        self.rec.remove(def, tenant, ids, actor)
    }
    pub fn session(&self, tenant: &str, sid: &str) -> Result<Option<Value>> {
        match self.sessions.get((tenant, sid))? {
            Some(v) => Ok(Some(serde_json::from_slice(v.value())?)),
            None => Ok(None),
        }
    }
    /// Stores a file's bytes in chunks of at most 256 KiB under `file` (normally the id of its attach record).
    /// `put_file` of what `r` reads, a chunk at a time (an upload spooled to disk: never whole in memory
    /// twice). A read that fails refuses this operation alone (`Rule`). Returns the bytes stored. `len` (what
    /// the caller expects to read) lets the batch's log record take its room once instead of doubling into it.
    pub fn put_file_from(&mut self, tenant: &str, file: u64, r: &mut dyn std::io::Read, len: u64) -> Result<u64> {
        self.files.push((tenant.to_string(), file));
        self.chunks.reserve_log(len as usize + (len as usize / (256 << 10) + 1) * 64);
        let mut buf = vec![0u8; 256 << 10];
        let (mut i, mut total) = (0u32, 0u64);
        loop {
            let mut n = 0;
            while n < buf.len() {
                match r.read(&mut buf[n..]) {
                    Ok(0) => break,
                    Ok(k) => n += k,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(StoreError::Rule(format!("upload unreadable: {e}"))),
                }
            }
            if n == 0 {
                break;
            }
            self.chunks.insert((tenant, file, i), &buf[..n])?;
            i += 1;
            total += n as u64;
            if n < buf.len() {
                break;
            }
        }
        Ok(total)
    }
    pub fn put_file(&mut self, tenant: &str, file: u64, bytes: &[u8]) -> Result<()> {
        self.files.push((tenant.to_string(), file));
        for (i, chunk) in bytes.chunks(256 << 10).enumerate() {
            self.chunks.insert((tenant, file, i as u32), chunk)?;
        }
        Ok(())
    }
    /// Deletes a stored file's chunks; returns how many bytes they held.
    pub fn delete_file(&mut self, tenant: &str, file: u64) -> Result<u64> {
        self.files.push((tenant.to_string(), file));
        let mut keys = Vec::new();
        let mut bytes = 0u64;
        for e in self.chunks.range((tenant, file, 0)..=(tenant, file, u32::MAX))? {
            let (k, v) = e?;
            bytes += v.value().len() as u64;
            keys.push(k.value().2);
        }
        for i in keys {
            self.chunks.remove((tenant, file, i))?;
        }
        Ok(bytes)
    }
    /// Stores a record exactly as read from another file (id and audit columns kept); false when one with its id
    /// is there already. New ids of this store stay above it.
    pub fn put_as_is(&mut self, def: &ResourceDef, tenant: &str, doc: &Map<String, Value>) -> Result<bool> {
        self.touch(&def.name);
        if let Some(id) = doc.get("id").and_then(Value::as_u64) {
            self.ids.observe(id);
        }
        self.rec.put_as_is(def, tenant, doc)
    }
    /// Hard delete of live records older than `before` (an id from `id_floor`), at most `max`: log retention.
    pub fn purge_before(&mut self, def: &ResourceDef, tenant: &str, before: u64, max: usize) -> Result<u64> {
        self.touch(&def.name);
        self.rec.purge_before(def, tenant, before, max)
    }
    /// Hard-deletes up to `max` of the oldest records after `after` that `doomed` picks among the next `scan`
    /// (see [`engine::RecordWriter::purge_where`]); returns how many went and the id to go on after.
    pub fn purge_where(&mut self, def: &ResourceDef, tenant: &str, after: u64, max: usize, scan: usize, doomed: &dyn Fn(&Map<String, Value>) -> bool) -> Result<(u64, Option<u64>)> {
        self.touch(&def.name);
        self.rec.purge_where(def, tenant, after, max, scan, doomed)
    }
    /// Adds `delta` to a named counter of a tenant; returns the new value.
    pub fn add_counter(&mut self, tenant: &str, name: &str, delta: i64) -> Result<u64> {
        let cur = self.rec.tables.counters.get((tenant, name))?.map(|v| v.value()).unwrap_or(0);
        let next = (cur as i64 + delta).max(0) as u64;
        self.rec.tables.counters.insert((tenant, name), next)?;
        Ok(next)
    }
    pub fn counter(&self, tenant: &str, name: &str) -> Result<u64> {
        Ok(self.rec.tables.counters.get((tenant, name))?.map(|v| v.value()).unwrap_or(0))
    }
    /// Tenants (storage tenants) holding live records of a resource, as [`ReadCtx::tenants_of`] (a removed
    /// tenant's records included: an upgrade reaches what `verify` checks).
    pub fn tenants_of(&self, def: &ResourceDef) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for e in self.rec.tables.counters.iter()? {
            let (k, v) = e?;
            let (t, r) = k.value();
            if r == def.name && v.value() > 0 {
                out.push(t.to_string());
            }
        }
        Ok(out)
    }
    fn touch(&mut self, name: &str) {
        if !self.touched.contains(name) {
            self.touched.insert(name.to_string());
        }
    }
    pub fn put_session(&mut self, tenant: &str, sid: &str, v: &Value) -> Result<()> {
        self.touch("sessions");
        self.sessions.insert((tenant, sid), serde_json::to_vec(v)?.as_slice())?;
        Ok(())
    }
    /// Every session of a tenant, for revoking a user's sessions.
    pub fn sessions_of_tenant(&self, tenant: &str) -> Result<Vec<(String, Value)>> {
        let mut out = Vec::new();
        for e in self.sessions.range((tenant, "")..)? {
            let (k, v) = e?;
            let (t, sid) = k.value();
            if t != tenant {
                break;
            }
            out.push((sid.to_string(), serde_json::from_slice(v.value())?));
        }
        Ok(out)
    }
    /// Removes sessions for which `dead` holds (expired or revoked long enough ago). Returns how many.
    pub fn prune_sessions(&mut self, dead: impl Fn(&Value) -> bool) -> Result<u64> {
        self.touch("sessions");
        let mut doomed = Vec::new();
        for e in self.sessions.iter()? {
            let (k, v) = e?;
            let (t, sid) = k.value();
            if serde_json::from_slice::<Value>(v.value()).map(|v| dead(&v)).unwrap_or(true) {
                doomed.push((t.to_string(), sid.to_string()));
            }
        }
        for (t, sid) in &doomed {
            self.sessions.remove((t.as_str(), sid.as_str()))?;
        }
        Ok(doomed.len() as u64)
    }

    pub fn delete_session(&mut self, tenant: &str, sid: &str) -> Result<()> {
        self.touch("sessions");
        self.sessions.remove((tenant, sid))?;
        Ok(())
    }
    pub fn meta(&self, key: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.meta.get(key)?.map(|v| v.value().to_vec()))
    }
    /// See [`engine::RecordWriter::reconcile_index`]: the index of a resource made to match its declaration.
    pub fn reconcile_index(&mut self, def: &ResourceDef) -> Result<(u64, u64)> {
        let r = self.rec.reconcile_index(def)?;
        if r != (0, 0) {
            self.touched.insert(def.name.clone());
        }
        Ok(r)
    }
    /// See [`engine::RecordWriter::drop_index_key`]: every index entry of a resource under one key removed.
    pub fn drop_index_key(&mut self, def: &ResourceDef, key: &str) -> Result<u64> {
        let n = self.rec.drop_index_key(def, key)?;
        if n > 0 {
            self.touched.insert(def.name.clone());
        }
        Ok(n)
    }
    /// See [`engine::RecordWriter::rename_index_keys`]: at most `max` index entries moved to their declared keys.
    pub fn rename_index_keys(&mut self, def: &ResourceDef, max: usize) -> Result<u64> {
        let n = self.rec.rename_index_keys(def, max)?;
        if n > 0 {
            self.touched.insert(def.name.clone());
        }
        Ok(n)
    }
    pub fn put_meta(&mut self, key: &str, v: &[u8]) -> Result<()> {
        self.meta.insert(key, v)?;
        Ok(())
    }
    pub fn delete_meta(&mut self, key: &str) -> Result<()> {
        self.meta.remove(key)?;
        Ok(())
    }
}

/// Gives the calling thread (not the process) the nice value `nice`: background threads of the app (the search
/// index's, the logs' sink) and the store's own threads when `Options::nice` asks. Err when the system refuses
/// (the priority then stays as it was).
pub fn set_thread_nice(nice: i32) -> std::io::Result<()> {
    rustix::process::setpriority_process(Some(rustix::thread::gettid()), nice).map_err(std::io::Error::from)
}

/// `Options::nice` at the start of the store's threads: nothing when None; a refusal keeps the priority.
pub(crate) fn set_nice(nice: Option<i32>) {
    if let Some(n) = nice {
        let _ = set_thread_nice(n);
    }
}
