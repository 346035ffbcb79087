//! The primary's shipper: every durable log record to the bucket within a second, a snapshot every few hours
//! (or after enough log), old segments merged, old snapshots and segments pruned, and the owner object checked
//! so that a primary another machine replaced stops taking writes.
//!
//! Shipping never holds a request: the writer hands records to `store::ship::Feed` and keeps every folded log
//! in the ship directory; this task reads behind them. With the bucket unreachable the server goes on serving,
//! the folded logs wait on disk (at most `max_local` bytes: past that the oldest go and the next contact starts
//! a new generation with a fresh snapshot, which the status screen and the error log say), and shipping catches
//! up when the bucket is back.
//!
//! Only durable records are sent (`Store::durable_seq`): the bucket never holds a change this machine could still
//! lose, so after a restart the local log and the bucket agree. Names are fixed by positions and written with
//! `put_new`: a segment sent twice (a timeout after it was stored) is found and compared — the same bytes are
//! harmless, other bytes mean another machine ships this generation (a copied directory, a cloned machine) and
//! this one stops (fenced).
//!
//! Ownership, through the bucket alone:
//! - The owner object names the generation, the installation (`Instance`: made at first start, a copied
//!   directory or cloned machine gets another) and the running process (`boot`), and carries a lease the
//!   primary renews every `renew_every()` with a conditional write (If-Match on the ETag it holds). A renewal that
//!   finds someone else's write fences this machine. `promote` refuses while the lease is live (renewed within
//!   `lease()`) unless forced. The owner is also checked before a snapshot, a merge or a prune is written.
//! - A primary cut off from the bucket keeps serving (an office keeps working through an internet outage); if
//!   it was replaced meanwhile, it learns so at its next contact and stops. What it acknowledged after its last
//!   upload never reaches the new lineage: those records stay in the ship directory, counted on the status
//!   screen (`orphaned`), and `zhizhuang fenced` lists them for the administrator to reconcile.
//! - The generation this machine is about to own is saved before the owner write: a write that landed but whose
//!   answer was lost is recognised as its own at the next claim.
//! - A missing owner object while generations exist is reported, not taken: only the machine that ships the
//!   newest generation puts it back.
//! - Claiming checks that the logs kept here cover exactly what the bucket lacks (`in_bucket+1 ..= durable`);
//!   anything else (an offline open folded records away, a restore replaced the file) starts a new generation
//!   with a snapshot. The generation's first snapshot is taken in the background with a growing pause between
//!   failed tries, never holding the start.
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use store::Store;
use store::ship::{Kept, LogRecord};

use crate::bucket::{Bucket, Problem, What};
use crate::layout::{self, Owner};

/// How a shipper runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The ship directory (`Options::ship_dir` of the store): folded logs and `state.json`.
    pub dir: PathBuf,
    /// How often records are sent (a record waits at most this long plus an upload).
    pub interval: Duration,
    /// A snapshot at least this often…
    pub snapshot_every: Duration,
    /// …or after this much log since the last one.
    pub snapshot_log_bytes: u64,
    /// Snapshots kept this long (the newest always); segments older than the oldest kept snapshot go.
    pub retention: Duration,
    /// Folded logs kept on disk at most (bytes) while the bucket cannot be reached.
    pub max_local: u64,
    /// Largest segment (bytes of records).
    pub max_segment: usize,
    /// l0 segments merged into one l1 object once this many are older than `merge_after`.
    pub merge_at: usize,
    pub merge_after: Duration,
    /// How often merging and pruning are looked at.
    pub merge_every: Duration,
    pub prune_every: Duration,
    /// This machine, and where people reach it (written into the owner object).
    pub host: String,
    pub url: String,
}

impl Config {
    pub fn new(dir: PathBuf) -> Config {
        Config {
            dir,
            interval: Duration::from_millis(200),
            snapshot_every: Duration::from_secs(6 * 3600),
            snapshot_log_bytes: 256 << 20,
            retention: Duration::from_secs(7 * 86_400),
            max_local: 1 << 30,
            max_segment: 8 << 20,
            merge_at: 200,
            merge_after: Duration::from_secs(600),
            merge_every: Duration::from_secs(60),
            prune_every: Duration::from_secs(3600),
            host: hostname(),
            url: String::new(),
        }
    }
}

pub fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname").map(|s| s.trim().to_string()).ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "localhost".into())
}

/// How often the primary renews its lease in the owner object (a sixth of the lease).
pub fn renew_every() -> Duration {
    lease() / 6
}

/// A lease renewed within this long is live: `promote` waits for it to lapse (or is forced). 60 s, or
/// `ZZ_REPLICA_LEASE_SECS`.
pub fn lease() -> Duration {
    static L: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *L.get_or_init(|| Duration::from_secs(std::env::var("ZZ_REPLICA_LEASE_SECS").ok().and_then(|v| v.parse().ok()).filter(|s: &u64| *s >= 1).unwrap_or(60)))
}

/// This installation's identity in the owner object: made at first start and kept beside the data file
/// (`DIR/zhizhuang-instance.json`) with what it was made on — the machine's id and the data directory's device
/// and inode. A directory copied to another machine or folder finds either changed and takes a new identity: it
/// is then another server, which the owner object does not name (fenced until promoted).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Instance {
    pub id: String,
    machine: String,
    dev: u64,
    ino: u64,
}

pub const INSTANCE_FILE: &str = "zhizhuang-instance.json";

fn machine_id() -> String {
    ["/etc/machine-id", "/var/lib/dbus/machine-id"].iter().find_map(|p| std::fs::read_to_string(p).ok()).map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).unwrap_or_else(hostname)
}

impl Instance {
    /// The identity of the data directory `dir` (made, or made again for a copy, and saved).
    pub fn of(dir: &Path) -> Instance {
        use std::os::unix::fs::MetadataExt;
        let (dev, ino) = std::fs::metadata(dir).map(|m| (m.dev(), m.ino())).unwrap_or((0, 0));
        let machine = machine_id();
        let path = dir.join(INSTANCE_FILE);
        if let Some(i) = std::fs::read(&path).ok().and_then(|b| serde_json::from_slice::<Instance>(&b).ok())
            && i.machine == machine
            && i.dev == dev
            && i.ino == ino {
            return i;
        }
        let fresh = Instance { id: format!("{:016x}", rand::random::<u64>()), machine, dev, ino };
        if path.exists() {
            tracing::warn!(target: "zz::replica", dir = %dir.display(), "this data directory was copied (another machine or folder): it is another server now, with its own identity in the replica");
        }
        let tmp = dir.join(format!("{INSTANCE_FILE}.tmp"));
        if std::fs::write(&tmp, serde_json::to_vec_pretty(&fresh).unwrap_or_default()).is_ok() {
            let _ = std::fs::rename(&tmp, &path);
        }
        fresh
    }
}

/// What this machine knows of its replica between runs (`<dir>/state.json`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct State {
    /// The generation this machine ships (or, as a standby, follows).
    pub generation: String,
    /// Every record up to here is in the bucket.
    pub shipped: u64,
    /// The data file's log identity the position belongs to (hex).
    pub log_id: String,
    /// Where the replica is (`s3://…`), for `promote`.
    #[serde(default)]
    pub url: String,
    /// `primary` or `standby`.
    #[serde(default)]
    pub role: String,
    /// The generation has no snapshot of this file yet (just promoted).
    #[serde(default)]
    pub needs_snapshot: bool,
    /// The generation this machine is writing into the owner object (saved first: a write whose answer was
    /// lost is recognised as this machine's own at the next claim).
    #[serde(default)]
    pub pending: String,
    /// The stream of this directory was broken (a restore replaced the data file): the next claim starts a new
    /// generation of this machine's own.
    #[serde(default)]
    pub restart: bool,
}

impl State {
    pub fn path(dir: &Path) -> PathBuf {
        dir.join("state.json")
    }

    pub fn load(dir: &Path) -> Option<State> {
        serde_json::from_slice(&std::fs::read(Self::path(dir)).ok()?).ok()
    }

    /// Written whole under another name, synced, then renamed into place.
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let tmp = dir.join("state.json.tmp");
        {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&serde_json::to_vec_pretty(self).unwrap_or_default())?;
            f.sync_all()?;
        }
        std::fs::rename(&tmp, Self::path(dir))?;
        std::fs::File::open(dir)?.sync_all()
    }
}

/// A snapshot in the bucket.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SnapshotInfo {
    pub seq: u64,
    pub at: i64,
}

/// What the status screen shows of shipping.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Status {
    /// `s3://bucket/prefix@endpoint` (no keys).
    pub target: String,
    pub generation: String,
    /// The last record in the bucket, and when the primary committed it.
    pub shipped_seq: u64,
    pub shipped_at: Option<i64>,
    /// The last record durable here.
    pub durable_seq: u64,
    /// How long the oldest record not yet in the bucket has waited (0 when none waits).
    pub lag_ms: i64,
    /// The bucket answered the last call.
    pub reachable: bool,
    pub last_ok: Option<i64>,
    /// The last problem, in both languages.
    pub problem: Option<(String, String)>,
    /// Folded logs waiting on disk.
    pub local_bytes: u64,
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub snapshots: Vec<SnapshotInfo>,
    /// A snapshot is being taken or sent.
    pub snapshotting: bool,
    /// Another machine took over: this one ships nothing and takes no writes.
    pub fenced: Option<String>,
    /// Records went missing locally before they were sent (the next contact starts a new generation).
    pub broken: bool,
    /// Changes acknowledged here that never reached the bucket because another server took over first: kept in
    /// the ship directory for the administrator (`zhizhuang fenced`).
    pub orphaned: u64,
    /// When the lease was last renewed (ms).
    pub renewed: Option<i64>,
    /// The store does not honour conditional writes: fencing cannot work on it.
    pub no_conditional_writes: bool,
}

pub type Shared = Arc<Mutex<Status>>;

/// The reason text the store refuses writes with once fenced (the app renders it).
pub fn fenced_reason(owner: &Owner) -> String {
    format!("fenced:{}", if owner.url.is_empty() { owner.host.clone() } else { owner.url.clone() })
}

/// Takes a snapshot of the live file (an online backup at a known log position), compresses it and sends it
/// under `generation`: (its position, when it was taken, bytes sent).
async fn take_snapshot(
    store: Store,
    bucket: Bucket,
    defs: Arc<dyn Fn(&str) -> Option<Arc<store::ResourceDef>> + Send + Sync>,
    dir: PathBuf,
    generation: String,
    instance: String,
) -> Result<(u64, i64, u64), Problem> {
    let local = |e: String| Problem { what: What::Other, detail: e };
    let started = crate::now_ms();
    let tmp = dir.join(format!("snapshot-{started}.redb"));
    let zst = dir.join(format!("snapshot-{started}.redb.zst"));
    let (tmp2, zst2) = (tmp.clone(), zst.clone());
    let (seq, at) = tokio::task::spawn_blocking(move || -> Result<(u64, i64), String> {
        let _ = std::fs::remove_file(&tmp2);
        // Named by its cut (the commit time of the last record it holds), not by when the copy started: a copy of
        // a large file takes minutes, and `restore --at` in between must not pick up what came after.
        let (_, seq, cut) = store.snapshot_to(&tmp2, &|n: &str| defs(n)).map_err(|e| e.to_string())?;
        let mut input = std::fs::File::open(&tmp2).map_err(|e| e.to_string())?;
        let out = std::fs::File::create(&zst2).map_err(|e| e.to_string())?;
        let mut enc = zstd::stream::write::Encoder::new(out, 3).map_err(|e| e.to_string())?;
        std::io::copy(&mut input, &mut enc).map_err(|e| e.to_string())?;
        enc.finish().map_err(|e| e.to_string())?.sync_all().map_err(|e| e.to_string())?;
        let _ = std::fs::remove_file(&tmp2);
        Ok((seq, cut.unwrap_or(started)))
    })
    .await
    .map_err(|e| local(e.to_string()))?
    .map_err(local)?;
    // Still the owner? A snapshot is never written into a generation another server took over meanwhile.
    let owner = crate::restore::owner(&bucket).await;
    if !matches!(&owner, Ok(Some(o)) if o.generation == generation && (o.instance.is_empty() || o.instance == instance)) {
        let _ = std::fs::remove_file(&zst);
        return Err(owner.err().unwrap_or_else(|| conflict("the owner changed while the snapshot was taken")));
    }
    let name = layout::snapshot_name(&generation, seq, at);
    let sent = bucket.put_file(&name, &zst).await;
    let _ = std::fs::remove_file(&zst);
    let bytes = sent?;
    tracing::info!(target: "zz::replica", generation = %generation, seq, bytes, "replication: snapshot sent");
    Ok((seq, at, bytes))
}

/// A running shipper.
pub struct Shipper {
    store: Store,
    bucket: Bucket,
    cfg: Config,
    defs: Arc<dyn Fn(&str) -> Option<Arc<store::ResourceDef>> + Send + Sync>,
    pub status: Shared,
    state: State,
    instance: String,
    boot: String,
    owner: Option<Owner>,
    owner_etag: String,
    /// Log bytes sent since the last snapshot, and when it was taken.
    since_snapshot: u64,
    last_snapshot: Option<Instant>,
    last_renew: Instant,
    last_merge: Instant,
    last_prune: Option<Instant>,
    /// Folded logs were dropped before they were sent: a new generation is needed.
    broken: bool,
    /// The stream is ready: the generation is ours and its snapshot is in the bucket.
    ready: bool,
    /// A snapshot being taken and sent (the generation's first one, or a later one).
    snapshotting: Option<tokio::task::JoinHandle<Result<(u64, i64, u64), Problem>>>,
    /// The next try of a failed first snapshot, and the pause after this one.
    retry_at: Option<Instant>,
    retry_pause: Duration,
    fenced: bool,
}

fn hex(id: &[u8; 16]) -> String {
    id.iter().map(|b| format!("{b:02x}")).collect()
}

fn conflict(detail: impl Into<String>) -> Problem {
    Problem { what: What::Conflict, detail: detail.into() }
}

impl Shipper {
    pub fn new(store: Store, bucket: Bucket, cfg: Config, defs: Arc<dyn Fn(&str) -> Option<Arc<store::ResourceDef>> + Send + Sync>) -> Shipper {
        let state = State::load(&cfg.dir).unwrap_or_default();
        let status = Arc::new(Mutex::new(Status { target: bucket.target().describe(), generation: state.generation.clone(), shipped_seq: state.shipped, ..Status::default() }));
        let instance = Instance::of(cfg.dir.parent().unwrap_or(Path::new("."))).id;
        Shipper {
            store,
            bucket,
            cfg,
            defs,
            status,
            state,
            instance,
            boot: format!("{:016x}", rand::random::<u64>()),
            owner: None,
            owner_etag: String::new(),
            since_snapshot: 0,
            last_snapshot: None,
            last_renew: Instant::now(),
            last_merge: Instant::now(),
            last_prune: None,
            broken: false,
            ready: false,
            snapshotting: None,
            retry_at: None,
            retry_pause: Duration::from_secs(5),
            fenced: false,
        }
    }

    /// The replica's address, kept in the state for `promote` and the next start.
    pub fn set_url(&mut self, url: &str) {
        if self.state.url != url {
            self.state.url = url.to_string();
            let _ = self.state.save(&self.cfg.dir);
        }
    }

    fn note_problem(&self, p: &Problem) {
        if let Ok(mut s) = self.status.lock() {
            if s.reachable || s.problem.is_none() {
                tracing::error!(target: "zz::error", problem = %p, "replication: the bucket cannot be used; changes wait on disk");
            }
            s.reachable = false;
            s.problem = Some((p.zh(), p.en()));
        }
    }

    fn note_ok(&self) {
        if let Ok(mut s) = self.status.lock() {
            if !s.reachable && s.problem.is_some() {
                tracing::info!(target: "zz::replica", "replication: the bucket answers again");
            }
            s.reachable = true;
            s.problem = None;
            s.last_ok = Some(crate::now_ms());
        }
    }

    /// This machine is not (or no longer) the primary: it takes no writes and ships nothing. What it acknowledged
    /// after its last upload stays in the ship directory, counted (`orphaned`).
    fn fence_with(&mut self, why: String, shown: String) {
        self.store.set_read_only(Some(why));
        self.fenced = true;
        let orphaned = self.store.durable_seq().saturating_sub(self.state.shipped);
        if orphaned > 0 && self.state.role == "primary" && !self.state.generation.is_empty() {
            tracing::error!(target: "zz::error", orphaned, "replication: changes acknowledged here never reached the replica before another server took over; they are kept in the ship directory (zhizhuang fenced --dir DIR lists them)");
        }
        if let Ok(mut s) = self.status.lock() {
            s.fenced = Some(shown);
            s.orphaned = if self.state.role == "primary" { orphaned } else { 0 };
        }
    }

    fn fence(&mut self, owner: &Owner) {
        tracing::error!(target: "zz::error", generation = %owner.generation, host = %owner.host, "replication: another server is the primary now; this one takes no writes and ships nothing");
        self.fence_with(fenced_reason(owner), format!("{} ({}, {})", owner.generation, owner.host, owner.url));
    }

    /// Settles who owns the replica before the server takes writes (bounded by the bucket's timeout; the first
    /// snapshot of a new generation is taken afterwards, in the background). Returns false when this machine
    /// must not write (fenced, or the bucket belongs to another primary).
    pub async fn claim(&mut self) -> bool {
        match self.try_claim().await {
            Ok(ok) => {
                self.note_ok();
                ok
            }
            Err(p) if p.what == What::Conflict => {
                self.note_problem(&p);
                false
            }
            Err(p) => {
                // The bucket cannot be reached: serve, keep the logs, settle it when it answers.
                self.note_problem(&p);
                true
            }
        }
    }

    fn is_ours(&self, o: &Owner) -> bool {
        // An owner written by an earlier version names no installation: the generation decides.
        o.generation == self.state.generation && !self.state.generation.is_empty() && (o.instance.is_empty() || o.instance == self.instance)
    }

    async fn try_claim(&mut self) -> Result<bool, Problem> {
        self.check_conditional_writes().await?;
        let log_id = self.store.log_id().ok().flatten().map(|id| hex(&id)).unwrap_or_default();
        match self.read_owner().await? {
            None => {
                let gens = crate::restore::generations(&self.bucket).await?;
                if gens.is_empty() {
                    // A new replica: this machine is its first primary.
                    self.new_generation(None).await?;
                    return Ok(true);
                }
                if self.state.role == "primary" && gens.last() == Some(&self.state.generation) {
                    // The owner object is gone (deleted by hand, expired by a lifecycle rule) while this machine
                    // ships the newest generation: put it back, naming this machine — whoever writes first wins.
                    tracing::warn!(target: "zz::replica", generation = %self.state.generation, "replication: the owner object was missing; this primary wrote it again");
                    let owner = self.owner_record(&self.state.generation.clone(), crate::now_ms());
                    if !self.bucket.put_new(layout::OWNER, serde_json::to_vec(&owner).unwrap_or_default()).await? {
                        return self.lost_claim().await;
                    }
                    return Box::pin(self.try_claim()).await;
                }
                // Generations without an owner: not this machine's to take.
                let (zh, en) = (
                    "备份空间中有历史数据但缺少主服务器记录(owner 对象被删除?),本机不会自行接管;请在应成为主服务器的机器上运行 zhizhuang promote --force".to_string(),
                    "The replica holds generations but no owner object (was it deleted?); this server does not take it over by itself: run `zhizhuang promote --force` on the server meant to be the primary".to_string(),
                );
                tracing::error!(target: "zz::error", "{en}");
                if let Ok(mut s) = self.status.lock() {
                    s.problem = Some((zh, en.clone()));
                }
                self.fence_with("fenced:".into(), en);
                Ok(false)
            }
            Some((o, etag)) if !self.state.pending.is_empty() && o.generation == self.state.pending && o.instance == self.instance => {
                // This machine's own owner write landed, though its answer was lost.
                tracing::info!(target: "zz::replica", generation = %o.generation, "replication: the generation this server was claiming is its own");
                self.owner_etag = etag;
                self.adopt(o.generation.clone());
                Ok(true)
            }
            Some((o, etag)) if self.is_ours(&o) => {
                self.owner_etag = etag.clone();
                self.owner = Some(o.clone());
                let continues = self.state.log_id == log_id && !self.store.broke_stream() && !self.state.needs_snapshot && self.state.role != "standby" && !self.state.restart;
                if !continues {
                    // The same owner, another stream (a promoted standby, a restored or migrated file): a new
                    // generation of our own.
                    self.new_generation(Some(etag)).await?;
                    return Ok(true);
                }
                // What the bucket holds may be ahead of the saved position (a crash after an upload).
                let in_bucket = self.last_in_bucket(&o.generation, self.state.shipped).await?;
                let durable = self.store.durable_seq();
                if in_bucket > durable || !self.local_covers(in_bucket, durable) {
                    // The bucket holds records this file lost, or this file no longer has records the bucket never
                    // got (an offline open folded them away): only a new generation with a snapshot is whole.
                    tracing::warn!(target: "zz::replica", in_bucket, durable, "replication: the logs kept here do not cover what the bucket lacks; starting a new generation");
                    self.new_generation(Some(etag)).await?;
                    return Ok(true);
                }
                self.state.shipped = in_bucket;
                let _ = self.state.save(&self.cfg.dir);
                self.ready = true;
                self.renew().await?;
                if let Ok(mut s) = self.status.lock() {
                    s.generation = o.generation.clone();
                    s.shipped_seq = in_bucket;
                }
                Ok(true)
            }
            Some((o, _)) => {
                self.fence(&o);
                Ok(false)
            }
        }
    }

    /// Another server's owner write came first.
    async fn lost_claim(&mut self) -> Result<bool, Problem> {
        if let Some((o, _)) = self.read_owner().await? {
            self.fence(&o);
        }
        Err(conflict("another server claimed the replica"))
    }

    /// Whether the store honours conditional writes (If-None-Match, If-Match): without them two servers could
    /// both believe they own the replica. Checked once per start with a probe object.
    async fn check_conditional_writes(&mut self) -> Result<(), Problem> {
        if self.status.lock().map(|s| s.no_conditional_writes).unwrap_or(false) {
            return Err(conflict("the object store ignores conditional writes"));
        }
        if self.owner_etag.is_empty() && self.owner.is_none() {
            let key = format!(".zhizhuang-cas-{:016x}", rand::random::<u64>());
            let first = self.bucket.put_new(&key, bytes::Bytes::from_static(b"1")).await?;
            let second = self.bucket.put_new(&key, bytes::Bytes::from_static(b"2")).await?;
            let stale = self.bucket.put_if(&key, bytes::Bytes::from_static(b"3"), "\"zz-not-the-etag\"").await?;
            let _ = self.bucket.delete(&key).await;
            if !first || second || stale {
                tracing::error!(target: "zz::error", "replication: this object store does not honour conditional writes (If-None-Match / If-Match); two servers could both take writes. Use AWS S3, MinIO, SeaweedFS 4.48 or newer, or Ceph RGW for --replicate");
                if let Ok(mut s) = self.status.lock() {
                    s.no_conditional_writes = true;
                }
                return Err(conflict("the object store ignores conditional writes"));
            }
        }
        Ok(())
    }

    fn owner_record(&self, generation: &str, since: i64) -> Owner {
        Owner {
            generation: generation.to_string(),
            since,
            host: self.cfg.host.clone(),
            url: self.cfg.url.clone(),
            instance: self.instance.clone(),
            boot: self.boot.clone(),
            renewed: crate::now_ms(),
        }
    }

    async fn read_owner(&self) -> Result<Option<(Owner, String)>, Problem> {
        match self.bucket.get_tagged(layout::OWNER).await? {
            None => Ok(None),
            Some((b, etag)) => {
                let o: Owner = serde_json::from_slice(&b).map_err(|e| Problem { what: What::Other, detail: format!("owner object: {e}") })?;
                Ok(Some((o, etag)))
            }
        }
    }

    /// Renews the lease: the owner object written again (If-Match the ETag held) with this process and the time.
    /// Someone else's write in between fences this machine — another server took over, or another copy of this
    /// installation (a cloned machine) runs.
    async fn renew(&mut self) -> Result<(), Problem> {
        self.last_renew = Instant::now();
        let since = self.owner.as_ref().map(|o| o.since).unwrap_or_else(crate::now_ms);
        let owner = self.owner_record(&self.state.generation, since);
        if self.bucket.put_if(layout::OWNER, serde_json::to_vec(&owner).unwrap_or_default(), &self.owner_etag).await? {
            self.owner_etag = self.bucket.get_tagged(layout::OWNER).await?.map(|(_, e)| e).unwrap_or_default();
            self.owner = Some(owner.clone());
            if let Ok(mut s) = self.status.lock() {
                s.renewed = Some(owner.renewed);
            }
            return Ok(());
        }
        match self.read_owner().await? {
            Some((o, _)) if o.generation == self.state.generation && o.instance == self.instance && o.boot != self.boot => {
                let why = format!("another running copy of this server (a cloned machine or copied directory, on {}) renews the same lease", o.host);
                tracing::error!(target: "zz::error", "replication: {why}; this one stops taking writes");
                self.fence_with(fenced_reason(&o), why.clone());
                Err(conflict(why))
            }
            Some((o, etag)) if self.is_ours(&o) => {
                // Our own earlier renewal whose answer was lost: carry on from it.
                self.owner_etag = etag;
                Ok(())
            }
            Some((o, _)) => {
                self.fence(&o);
                Err(conflict("another server is the primary"))
            }
            None => {
                // The owner object is gone (deleted, expired by a lifecycle rule) under the live lease: put it
                // back, naming this machine; whoever writes first owns it.
                tracing::warn!(target: "zz::replica", "replication: the owner object disappeared; this primary writes it again");
                if self.bucket.put_new(layout::OWNER, serde_json::to_vec(&owner).unwrap_or_default()).await? {
                    self.owner_etag = self.bucket.get_tagged(layout::OWNER).await?.map(|(_, e)| e).unwrap_or_default();
                    self.owner = Some(owner);
                    Ok(())
                } else {
                    self.lost_claim().await.map(|_| ())
                }
            }
        }
    }

    /// The owner still names this machine (checked before a snapshot, a merge or a prune is written).
    async fn still_owner(&mut self) -> Result<bool, Problem> {
        match self.read_owner().await? {
            Some((o, etag)) if self.is_ours(&o) && (o.boot.is_empty() || o.boot == self.boot) => {
                self.owner_etag = etag;
                Ok(true)
            }
            Some((o, _)) => {
                self.fence(&o);
                Ok(false)
            }
            None => Ok(false),
        }
    }

    /// The last record of the generation's segments from `from` on (`from` when there are none after it).
    async fn last_in_bucket(&self, generation: &str, from: u64) -> Result<u64, Problem> {
        let mut last = from;
        for level in [0u8, 1] {
            for name in self.bucket.list(&layout::level_dir(generation, level), Some(&layout::segment_after(generation, level, from))).await? {
                if let Some((_, l)) = layout::pair_of(&name) {
                    last = last.max(l);
                }
            }
        }
        Ok(last)
    }

    /// The kept logs of this data file (a log left by a file a restore replaced is never this file's).
    fn kept(&self) -> Vec<Kept> {
        let id = self.store.log_id().ok().flatten();
        let (ours, others) = store::ship::kept_files_of(&self.cfg.dir, id).unwrap_or_default();
        for k in others {
            // Set aside, not shipped: its records belong to another file's history.
            let to = self.cfg.dir.join("foreign");
            let _ = std::fs::create_dir_all(&to);
            if let Some(name) = k.path.file_name() {
                tracing::warn!(target: "zz::replica", log = %k.path.display(), "replication: a kept log of another data file set aside, not shipped");
                let _ = std::fs::rename(&k.path, to.join(name));
            }
        }
        ours
    }

    /// Whether records `from + 1 ..= upto` can all be read here: the kept logs of this file, then what the feed
    /// holds (records since this start, not yet folded). Anything missing means the bucket cannot be brought up
    /// to date from here.
    fn local_covers(&self, from: u64, upto: u64) -> bool {
        if upto <= from {
            return true;
        }
        let mut want = from + 1;
        for k in &self.kept() {
            if k.last < want {
                continue;
            }
            if k.first > want {
                return false;
            }
            want = k.last + 1;
        }
        if want > upto {
            return true;
        }
        let fed = self.store.feed().map(|f| f.take(want, upto)).unwrap_or_default();
        fed.first().is_some_and(|r| r.seq == want) && fed.last().is_some_and(|r| r.seq == upto)
    }

    /// Starts a new generation: saved here as the one being claimed, owned in the owner object (conditionally),
    /// then its first snapshot is taken in the background; records after it follow.
    async fn new_generation(&mut self, etag: Option<String>) -> Result<(), Problem> {
        let reuse = self.state.needs_snapshot && !self.state.restart && !self.state.generation.is_empty() && etag.is_some();
        let generation = if reuse { self.state.generation.clone() } else { layout::new_generation() };
        self.state.pending = generation.clone();
        let _ = self.state.save(&self.cfg.dir);
        let owner = self.owner_record(&generation, crate::now_ms());
        let body = serde_json::to_vec(&owner).unwrap_or_default();
        let won = match &etag {
            None => self.bucket.put_new(layout::OWNER, body).await?,
            Some(e) => self.bucket.put_if(layout::OWNER, body, e).await?,
        };
        if !won {
            self.lost_claim().await?;
        }
        self.owner_etag = self.bucket.get_tagged(layout::OWNER).await?.map(|(_, e)| e).unwrap_or_default();
        self.owner = Some(owner);
        tracing::info!(target: "zz::replica", generation = %generation, "replication: new generation");
        self.adopt(generation);
        Ok(())
    }

    /// `generation` is this machine's now; its first snapshot is due.
    fn adopt(&mut self, generation: String) {
        self.state = State { generation: generation.clone(), shipped: 0, log_id: String::new(), url: self.state.url.clone(), role: "primary".into(), needs_snapshot: true, pending: String::new(), restart: false };
        let _ = self.state.save(&self.cfg.dir);
        if let Ok(mut s) = self.status.lock() {
            s.generation = generation;
            s.snapshots.clear();
            s.broken = false;
        }
        self.broken = false;
        self.ready = false;
        self.retry_at = None;
    }

    /// The generation's first snapshot: started in the background (a large file takes minutes), tried again
    /// after a growing pause when it fails; segments wait for it.
    fn start_first_snapshot(&mut self) {
        if self.snapshotting.is_some() || self.retry_at.is_some_and(|t| Instant::now() < t) {
            return;
        }
        if let Ok(mut s) = self.status.lock() {
            s.snapshotting = true;
        }
        self.snapshotting = Some(tokio::spawn(take_snapshot(self.store.clone(), self.bucket.clone(), self.defs.clone(), self.cfg.dir.clone(), self.state.generation.clone(), self.instance.clone())));
    }

    /// The first snapshot is in the bucket: its position becomes what is shipped.
    fn first_snapshot_done(&mut self, seq: u64, at: i64, bytes: u64) {
        self.state.shipped = self.state.shipped.max(seq);
        self.state.needs_snapshot = false;
        self.state.log_id = self.store.log_id().ok().flatten().map(|id| hex(&id)).unwrap_or_default();
        let _ = self.state.save(&self.cfg.dir);
        self.drop_kept(self.state.shipped);
        self.snapshot_done(seq, at, bytes);
        self.retry_pause = Duration::from_secs(5);
        self.ready = true;
    }

    fn snapshot_done(&mut self, seq: u64, at: i64, bytes: u64) {
        self.since_snapshot = 0;
        self.last_snapshot = Some(Instant::now());
        if let Ok(mut s) = self.status.lock() {
            s.snapshots.push(SnapshotInfo { seq, at });
            s.shipped_seq = self.state.shipped;
            s.bytes_sent += bytes;
            s.snapshotting = false;
        }
    }

    fn drop_kept(&self, upto: u64) {
        for k in self.kept() {
            if k.last <= upto {
                let _ = std::fs::remove_file(&k.path);
            }
        }
    }

    /// Records `from ..` that are durable here, consecutive, at most `max_segment` bytes: from the feed, else
    /// from the folded logs.
    fn gather(&self, from: u64, upto: u64) -> Vec<LogRecord> {
        let mut out: Vec<LogRecord> = Vec::new();
        let mut bytes = 0usize;
        let mut want = from;
        let push = |out: &mut Vec<LogRecord>, bytes: &mut usize, want: &mut u64, r: LogRecord| -> bool {
            if r.seq != *want || r.seq > upto || (*bytes + r.bytes.len() > self.cfg.max_segment && !out.is_empty()) {
                return false;
            }
            *bytes += r.bytes.len();
            *want += 1;
            out.push(r);
            true
        };
        // Folded logs first (older), then the feed for the rest.
        let kept: Vec<Kept> = self.kept().into_iter().filter(|k| k.last >= from).collect();
        'files: for k in kept {
            if k.first > want {
                break;
            }
            let Ok(recs) = store::ship::read_kept(&k.path) else { break };
            for r in recs {
                if r.seq < want {
                    continue;
                }
                if !push(&mut out, &mut bytes, &mut want, r) {
                    break 'files;
                }
            }
        }
        if let Some(feed) = self.store.feed() {
            for r in feed.take(want, upto) {
                if !push(&mut out, &mut bytes, &mut want, r) {
                    break;
                }
            }
        }
        out
    }

    /// One round: send what is durable, renew the lease, snapshot, merge and prune when due.
    pub async fn tick(&mut self) {
        if self.fenced {
            self.update_orphaned();
            return;
        }
        self.bound_local();
        if self.state.pending.is_empty() && !self.state.generation.is_empty() && self.owner.is_some() && self.state.needs_snapshot && !self.broken {
            // The generation is ours; its first snapshot is (still) due.
            self.poll_first_snapshot().await;
        } else if !self.ready || self.broken {
            // Not settled yet (the bucket was down at start), or records were lost locally.
            let r = if self.broken { self.new_generation(Some(self.owner_etag.clone())).await } else { self.try_claim().await.map(|_| ()) };
            match r {
                Ok(()) => self.note_ok(),
                Err(p) => {
                    self.note_problem(&p);
                    self.update_lag();
                    return;
                }
            }
        }
        if !self.ready {
            self.update_lag();
            return;
        }
        if let Err(p) = self.send().await {
            self.note_problem(&p);
            self.update_lag();
            return;
        }
        // Logs folded after their records went through the feed.
        self.drop_kept(self.state.shipped);
        self.note_ok();
        self.update_lag();
        if self.last_renew.elapsed() >= renew_every() {
            match self.renew().await {
                Ok(()) => {}
                Err(p) if p.what == What::Conflict => return,
                Err(p) => self.note_problem(&p),
            }
        }
        // A later snapshot is taken beside the shipping (segments keep going while it is made and sent).
        if let Some(h) = self.snapshotting.take_if(|h| h.is_finished()) {
            match h.await {
                Ok(Ok((seq, at, bytes))) => {
                    tracing::info!(target: "zz::replica", seq, bytes, "replication: snapshot sent");
                    self.snapshot_done(seq, at, bytes);
                }
                Ok(Err(p)) => {
                    self.note_problem(&p);
                    self.last_snapshot = Some(Instant::now() - self.cfg.snapshot_every + Duration::from_secs(60));
                }
                Err(_) => {}
            }
        }
        if self.last_snapshot.is_none() {
            // The snapshot of a generation started by an earlier run: count from now.
            self.last_snapshot = Some(Instant::now());
        }
        let due = self.last_snapshot.is_some_and(|t| t.elapsed() >= self.cfg.snapshot_every) || self.since_snapshot >= self.cfg.snapshot_log_bytes;
        if due && self.snapshotting.is_none() {
            if let Ok(mut s) = self.status.lock() {
                s.snapshotting = true;
            }
            self.since_snapshot = 0;
            self.snapshotting = Some(tokio::spawn(take_snapshot(self.store.clone(), self.bucket.clone(), self.defs.clone(), self.cfg.dir.clone(), self.state.generation.clone(), self.instance.clone())));
        }
        if self.last_merge.elapsed() >= self.cfg.merge_every {
            self.last_merge = Instant::now();
            let r = match self.still_owner().await {
                Ok(true) => self.merge().await,
                Ok(false) => return,
                Err(p) => Err(p),
            };
            if let Err(p) = r {
                self.note_problem(&p);
            }
        }
        if self.last_prune.is_none_or(|t| t.elapsed() >= self.cfg.prune_every) {
            self.last_prune = Some(Instant::now());
            let r = match self.still_owner().await {
                Ok(true) => self.prune().await,
                Ok(false) => return,
                Err(p) => Err(p),
            };
            if let Err(p) = r {
                self.note_problem(&p);
            }
        }
    }

    /// Starts, or looks after, the generation's first snapshot; the stream is ready once it is in the bucket.
    async fn poll_first_snapshot(&mut self) {
        if let Some(h) = self.snapshotting.take_if(|h| h.is_finished()) {
            match h.await {
                Ok(Ok((seq, at, bytes))) => {
                    self.first_snapshot_done(seq, at, bytes);
                    self.note_ok();
                    return;
                }
                Ok(Err(p)) => {
                    if p.what == What::Conflict {
                        // The owner changed before the snapshot went up.
                        if let Ok(Some((o, _))) = self.read_owner().await {
                            self.fence(&o);
                        }
                        return;
                    }
                    self.note_problem(&p);
                    tracing::warn!(target: "zz::replica", retry_in_s = self.retry_pause.as_secs(), "replication: the first snapshot of the generation failed; trying again");
                    self.retry_at = Some(Instant::now() + self.retry_pause);
                    self.retry_pause = (self.retry_pause * 2).min(Duration::from_secs(600));
                    if let Ok(mut s) = self.status.lock() {
                        s.snapshotting = false;
                    }
                }
                Err(_) => {}
            }
        }
        self.start_first_snapshot();
    }

    /// Changes acknowledged here after the last upload, when fenced: the status screen counts them.
    fn update_orphaned(&self) {
        if self.state.role != "primary" {
            return;
        }
        let n = self.store.durable_seq().saturating_sub(self.state.shipped);
        if let Ok(mut s) = self.status.lock() {
            s.orphaned = n;
        }
    }

    /// Sends every durable record not yet in the bucket, in segments.
    async fn send(&mut self) -> Result<(), Problem> {
        loop {
            let durable = self.store.durable_seq();
            if durable <= self.state.shipped {
                return Ok(());
            }
            let recs = self.gather(self.state.shipped + 1, durable);
            if recs.is_empty() {
                let want = self.state.shipped + 1;
                let kept = self.kept();
                let held = kept.iter().any(|k| k.first <= want && k.last >= want);
                if !held && kept.iter().any(|k| k.first > want) {
                    // Later records are kept but the next one is nowhere: the stream has a hole (records folded
                    // away without being kept). Only a new generation is whole again.
                    tracing::error!(target: "zz::error", want, "replication: the next record to send is missing here; a new generation with a snapshot follows");
                    self.broken = true;
                    return Ok(());
                }
                // The records are in the live log, not yet folded or in the feed: next round.
                return Ok(());
            }
            let (first, last) = (recs[0].seq, recs[recs.len() - 1].seq);
            let body = layout::encode_segment(&recs);
            let raw: u64 = recs.iter().map(|r| r.bytes.len() as u64).sum();
            let name = layout::segment_name(&self.state.generation, 0, first, last);
            let len = body.len() as u64;
            if !self.bucket.put_new(&name, body.clone()).await? {
                // Sent before (a timeout after the store kept it): the same records under the same name. Other
                // bytes under that name are another machine's records of this generation.
                let there = self.bucket.get(&name).await?;
                if there.as_deref() != Some(&body[..]) {
                    let why = format!("segment {name} holds other records than this server's: another server ships this generation (a copied directory or a cloned machine)");
                    tracing::error!(target: "zz::error", "replication: {why}; this one stops taking writes");
                    self.fence_with(format!("fenced:{}", self.cfg.host), why.clone());
                    return Err(conflict(why));
                }
            }
            self.state.shipped = last;
            let _ = self.state.save(&self.cfg.dir);
            self.drop_kept(last);
            self.since_snapshot += raw;
            if let Ok(mut s) = self.status.lock() {
                s.shipped_seq = last;
                s.shipped_at = recs[recs.len() - 1].commit_ms.or(s.shipped_at);
                s.segments_sent += 1;
                s.bytes_sent += len;
            }
        }
    }

    fn update_lag(&self) {
        let durable = self.store.durable_seq();
        let kept: u64 = self.kept().iter().map(|k| k.bytes).sum();
        let oldest_waiting = if durable > self.state.shipped { self.gather(self.state.shipped + 1, self.state.shipped + 1).first().and_then(|r| r.commit_ms) } else { None };
        if let Ok(mut s) = self.status.lock() {
            s.durable_seq = durable;
            s.local_bytes = kept;
            s.lag_ms = oldest_waiting.map(|t| (crate::now_ms() - t).max(0)).unwrap_or(if durable > self.state.shipped { s.lag_ms } else { 0 });
            s.broken = self.broken;
        }
    }

    /// Keeps the folded logs under `max_local`: the oldest go first; losing unsent records breaks the stream.
    fn bound_local(&mut self) {
        let kept = self.kept();
        let mut total: u64 = kept.iter().map(|k| k.bytes).sum();
        for k in kept {
            if total <= self.cfg.max_local {
                break;
            }
            if k.last > self.state.shipped && !self.broken {
                self.broken = true;
                tracing::error!(target: "zz::error", "replication: the bucket has been unreachable too long; unsent changes were dropped from disk, a new snapshot will be sent when it answers");
            }
            let _ = std::fs::remove_file(&k.path);
            total -= k.bytes;
        }
    }

    /// Merges old l0 segments into l1 objects (fewer objects for a restore to read).
    async fn merge(&mut self) -> Result<(), Problem> {
        let g = self.state.generation.clone();
        let names = self.bucket.list(&layout::level_dir(&g, 0), None).await?;
        let cutoff = crate::now_ms() - self.cfg.merge_after.as_millis() as i64;
        // Only segments whose records are all older than the cutoff, and never the newest few (a standby may be
        // reading them).
        let mut old: Vec<(String, u64, u64)> = Vec::new();
        for n in &names {
            let Some((a, b)) = layout::pair_of(n) else { continue };
            old.push((n.clone(), a, b));
        }
        if old.len() < self.cfg.merge_at {
            return Ok(());
        }
        let keep_newest = self.cfg.merge_at / 10;
        old.truncate(old.len().saturating_sub(keep_newest));
        let mut group: Vec<LogRecord> = Vec::new();
        let mut group_names: Vec<String> = Vec::new();
        let mut group_bytes = 0usize;
        for (n, _, _) in old {
            let Some(b) = self.bucket.get(&n).await? else { continue };
            let recs = layout::decode_segment(&b, layout::MAX_SEGMENT_BYTES).map_err(|e| Problem { what: What::Other, detail: e })?;
            if recs.last().and_then(|r| r.commit_ms).is_some_and(|t| t > cutoff) {
                break;
            }
            group_bytes += recs.iter().map(|r| r.bytes.len()).sum::<usize>();
            group.extend(recs);
            group_names.push(n);
            if group_bytes >= 32 << 20 {
                self.flush_merge(&g, &mut group, &mut group_names).await?;
                group_bytes = 0;
            }
        }
        if group_names.len() >= 2 {
            self.flush_merge(&g, &mut group, &mut group_names).await?;
        }
        Ok(())
    }

    async fn flush_merge(&self, g: &str, group: &mut Vec<LogRecord>, names: &mut Vec<String>) -> Result<(), Problem> {
        if let (Some(a), Some(b)) = (group.first(), group.last()) {
            let name = layout::segment_name(g, 1, a.seq, b.seq);
            self.bucket.put_new(&name, layout::encode_segment(group)).await?;
            for n in names.iter() {
                self.bucket.delete(n).await?;
            }
        }
        group.clear();
        names.clear();
        Ok(())
    }

    /// Removes snapshots older than the retention (never the newest), the segments before the oldest kept
    /// snapshot, and older generations once none of their snapshots is kept.
    async fn prune(&mut self) -> Result<(), Problem> {
        let cutoff = crate::now_ms() - self.cfg.retention.as_millis() as i64;
        let g = self.state.generation.clone();
        let snaps = self.bucket.list(&layout::snapshots_dir(&g), None).await?;
        let mut parsed: Vec<(String, u64, i64)> = snaps.iter().filter_map(|n| layout::pair_of(n).map(|(s, t)| (n.clone(), s, t as i64))).collect();
        parsed.sort_by_key(|p| p.1);
        if let Ok(mut s) = self.status.lock() {
            s.snapshots = parsed.iter().map(|p| SnapshotInfo { seq: p.1, at: p.2 }).collect();
        }
        let Some(newest) = parsed.last().cloned() else { return Ok(()) };
        let mut oldest_kept = newest.1;
        for (n, seq, t) in &parsed {
            if *t < cutoff && *seq != newest.1 {
                self.bucket.delete(n).await?;
            } else {
                oldest_kept = oldest_kept.min(*seq);
            }
        }
        for level in [0u8, 1] {
            for n in self.bucket.list(&layout::level_dir(&g, level), None).await? {
                if layout::pair_of(&n).is_some_and(|(_, last)| last <= oldest_kept) {
                    self.bucket.delete(&n).await?;
                }
            }
        }
        // Older generations: gone once their newest snapshot is past the retention.
        for other in crate::restore::generations(&self.bucket).await? {
            if other == g {
                continue;
            }
            let snaps = self.bucket.list(&layout::snapshots_dir(&other), None).await?;
            let newest = snaps.iter().filter_map(|n| layout::pair_of(n)).map(|(_, t)| t as i64).max().unwrap_or(0);
            if newest < cutoff {
                for n in self.bucket.list(&format!("generations/{other}/"), None).await? {
                    self.bucket.delete(&n).await?;
                }
            }
        }
        if let Ok(mut s) = self.status.lock() {
            s.snapshots.retain(|x| x.seq >= oldest_kept);
        }
        Ok(())
    }

    /// Runs until `stop` is set: a round every `interval`.
    pub async fn run(mut self, stop: Arc<std::sync::atomic::AtomicBool>) {
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let started = Instant::now();
            self.tick().await;
            let wait = self.cfg.interval.saturating_sub(started.elapsed());
            tokio::time::sleep(wait.max(Duration::from_millis(20))).await;
        }
        // A last round: what is durable now goes too (a clean shutdown leaves nothing behind).
        self.tick().await;
    }
}
