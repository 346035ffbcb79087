//! A standby: a copy of the primary's data file kept up to date from the replica, serving reads. It starts from
//! the newest snapshot (plus the segments after it), then polls for new segments and applies them through its
//! own store's writer (`Store::apply_replica`: one transaction per segment, readers' caches told what changed).
//! Writes are refused with the primary's address (`Store::set_read_only`), except this machine's own sign-in
//! sessions. When the owner object names another generation (a standby was promoted, the primary started
//! over) it stops and says so: it must be started again to follow the new one, or promoted.
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use store::Store;

use crate::bucket::{Bucket, Problem, What};
use crate::layout::{self, Owner};
use crate::ship::State;

/// What the status screen shows of following.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Status {
    pub target: String,
    pub generation: String,
    /// The primary's last record applied here, and when the primary committed it.
    pub applied_seq: u64,
    pub applied_at: Option<i64>,
    /// How far behind the primary this copy was when it last found new records (0 when caught up).
    pub lag_ms: i64,
    pub reachable: bool,
    pub problem: Option<(String, String)>,
    pub primary: Option<Owner>,
    pub segments_applied: u64,
    /// Following stopped (the primary changed): why, in both languages.
    pub stopped: Option<(String, String)>,
}

pub type Shared = Arc<Mutex<Status>>;

/// The reason writes are refused with on a standby (the app renders it with the primary's address).
pub fn standby_reason(owner: Option<&Owner>) -> String {
    format!("standby:{}", owner.map(|o| if o.url.is_empty() { o.host.clone() } else { o.url.clone() }).unwrap_or_default())
}

/// Makes `data` a copy of the replica's current generation, unless it already follows it (`dir` keeps the
/// state). A data file that is not a standby's is never overwritten.
pub async fn bootstrap(bucket: &Bucket, data: &Path, dir: &Path, url: &str) -> Result<Owner, Problem> {
    let owner = crate::restore::owner(bucket).await?.ok_or_else(|| Problem { what: What::Other, detail: "the bucket has no primary to follow (no owner object)".into() })?;
    let state = State::load(dir);
    if data.exists() {
        match &state {
            Some(s) if s.role == "standby" && s.generation == owner.generation && bridged(bucket, data, &owner.generation).await? => return Ok(owner),
            Some(s) if s.role == "standby" && s.generation == owner.generation => {
                // It fell behind what the replica keeps (older segments were pruned): a fresh copy.
                let aside = data.with_extension(format!("behind-{}.redb", crate::now_ms()));
                std::fs::rename(data, &aside).map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
                tracing::warn!(target: "zz::replica", aside = %aside.display(), "standby: this copy fell behind what the replica keeps; a fresh copy is made (the old one set aside)");
            }
            Some(s) if s.role == "standby" => {
                // It followed an older generation: set aside, start again from the new one.
                let aside = data.with_extension(format!("gen-{}.redb", s.generation));
                std::fs::rename(data, &aside).map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
                tracing::warn!(target: "zz::replica", aside = %aside.display(), "standby: the primary started a new generation; the old copy is set aside");
            }
            _ => {
                return Err(Problem {
                    what: What::Config,
                    detail: format!("{} already holds a data file that is not a standby's copy; a standby starts in an empty directory", data.display()),
                });
            }
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
    let tmp = data.with_extension("following");
    let _ = std::fs::remove_file(&tmp);
    let r = crate::restore::restore(bucket, &tmp, None, Some(&owner.generation)).await?;
    std::fs::rename(&tmp, data).map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
    let st = State { generation: owner.generation.clone(), shipped: r.seq, log_id: String::new(), url: url.to_string(), role: "standby".into(), ..State::default() };
    st.save(dir).map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
    tracing::info!(target: "zz::replica", generation = %owner.generation, seq = r.seq, "standby: copy made from the replica");
    Ok(owner)
}

/// Whether the records after the copy's position are all still in the replica (segments start right after it,
/// or nothing newer exists at all).
async fn bridged(bucket: &Bucket, data: &Path, generation: &str) -> Result<bool, Problem> {
    let at = store::ship::meta_of_file(data, store::ship::FOLLOW_SEQ).ok().flatten().and_then(|b| b.try_into().ok().map(u64::from_be_bytes)).unwrap_or(0);
    let segs = crate::restore::segments_after(bucket, generation, at).await?;
    if let Some((_, first, _)) = segs.first() {
        return Ok(*first <= at + 1);
    }
    // No segment after it: fine unless a snapshot is newer (everything before that snapshot was pruned).
    let newest = bucket.list(&layout::snapshots_dir(generation), None).await?.iter().filter_map(|n| layout::pair_of(n)).map(|(s, _)| s).max().unwrap_or(0);
    Ok(newest <= at)
}

/// A running standby.
pub struct Follower {
    store: Store,
    bucket: Bucket,
    generation: String,
    pub status: Shared,
    interval: Duration,
    last_owner_check: Instant,
}

impl Follower {
    pub fn new(store: Store, bucket: Bucket, owner: Owner, interval: Duration) -> Follower {
        store.set_read_only(Some(standby_reason(Some(&owner))));
        let status = Arc::new(Mutex::new(Status {
            target: bucket.target().describe(),
            generation: owner.generation.clone(),
            applied_seq: store.follow_seq().unwrap_or(0),
            reachable: true,
            primary: Some(owner.clone()),
            ..Status::default()
        }));
        Follower { store, bucket, generation: owner.generation, status, interval, last_owner_check: Instant::now() }
    }

    fn note(&self, p: Option<&Problem>) {
        if let Ok(mut s) = self.status.lock() {
            match p {
                Some(p) => {
                    if s.reachable {
                        tracing::error!(target: "zz::error", problem = %p, "standby: cannot read the replica");
                    }
                    s.reachable = false;
                    s.problem = Some((p.zh(), p.en()));
                }
                None => {
                    s.reachable = true;
                    s.problem = None;
                }
            }
        }
    }

    /// One round: the segments after what is applied, applied in order. Answers whether any was applied.
    pub async fn tick(&mut self) -> bool {
        if self.status.lock().map(|s| s.stopped.is_some()).unwrap_or(false) {
            return false;
        }
        if self.last_owner_check.elapsed() >= Duration::from_secs(2) {
            self.last_owner_check = Instant::now();
            match crate::restore::owner(&self.bucket).await {
                Ok(Some(o)) if o.generation != self.generation => {
                    tracing::error!(target: "zz::error", generation = %o.generation, host = %o.host, "standby: the replica has a new primary; restart this standby to follow it");
                    if let Ok(mut s) = self.status.lock() {
                        s.stopped = Some((
                            format!("主服务器已变更(第 {} 代,{}),本机停止跟随;请重新启动本备用服务器以跟随新的主服务器", o.generation, o.host),
                            format!("The primary changed (generation {}, {}); this standby stopped following: start it again to follow the new primary", o.generation, o.host),
                        ));
                        s.primary = Some(o);
                    }
                    return false;
                }
                Ok(Some(o)) => {
                    self.store.set_read_only(Some(standby_reason(Some(&o))));
                    if let Ok(mut s) = self.status.lock() {
                        s.primary = Some(o);
                    }
                }
                Ok(None) => {}
                Err(p) => {
                    self.note(Some(&p));
                    return false;
                }
            }
        }
        match self.catch_up().await {
            Ok(n) => {
                self.note(None);
                n > 0
            }
            Err(p) => {
                self.note(Some(&p));
                false
            }
        }
    }

    pub async fn catch_up(&mut self) -> Result<u64, Problem> {
        let at = self.store.follow_seq().map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
        let mut names = self.bucket.list(&layout::level_dir(&self.generation, 0), Some(&layout::segment_after(&self.generation, 0, at))).await?;
        let starts_right = names.first().and_then(|n| layout::pair_of(n)).is_none_or(|(a, _)| a <= at + 1);
        if !starts_right {
            // The next records are not in an l0 segment starting after `at` (merged into l1, or straddling):
            // look at everything after it.
            names = crate::restore::segments_after(&self.bucket, &self.generation, at).await?.into_iter().map(|s| s.0).collect();
        }
        let mut applied = 0u64;
        for n in names {
            let Some((a, b)) = layout::pair_of(&n) else { continue };
            let cur = self.store.follow_seq().unwrap_or(at);
            if b <= cur {
                continue;
            }
            if a > cur + 1 {
                // Pruned before this copy applied them: it cannot catch up by itself. A restart makes a fresh copy.
                if let Ok(mut s) = self.status.lock() {
                    s.stopped = Some((
                        format!("本备用服务器落后太多:第 {} 至 {} 条修改已从备份空间清理;请重新启动本机,它会重新复制一份", cur + 1, a - 1),
                        format!("This standby fell too far behind: records {} to {} were pruned from the replica; restart it and it makes a fresh copy", cur + 1, a - 1),
                    ));
                }
                tracing::error!(target: "zz::error", from = cur + 1, to = a - 1, "standby: records pruned from the replica before this copy applied them; restart it to make a fresh copy");
                return Err(Problem { what: What::Other, detail: format!("records {} to {} are missing from the replica", cur + 1, a - 1) });
            }
            let Some(body) = self.bucket.get(&n).await? else { break };
            let recs = layout::decode_segment(&body, layout::MAX_SEGMENT_BYTES).map_err(|e| Problem { what: What::Other, detail: e })?;
            let store = self.store.clone();
            let done = tokio::task::spawn_blocking(move || store.apply_replica(recs))
                .await
                .map_err(|e| Problem { what: What::Other, detail: e.to_string() })?
                .map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
            applied += 1;
            if let Ok(mut s) = self.status.lock() {
                s.applied_seq = done.seq;
                s.applied_at = done.commit_ms.or(s.applied_at);
                s.lag_ms = done.commit_ms.map(|t| (crate::now_ms() - t).max(0)).unwrap_or(0);
                s.segments_applied += 1;
            }
        }
        if applied == 0
            && let Ok(mut s) = self.status.lock() {
            s.lag_ms = 0;
        }
        Ok(applied)
    }

    /// Runs until `stop` is set.
    pub async fn run(mut self, stop: Arc<std::sync::atomic::AtomicBool>) {
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let started = Instant::now();
            let more = self.tick().await;
            if !more {
                tokio::time::sleep(self.interval.saturating_sub(started.elapsed()).max(Duration::from_millis(20))).await;
            }
        }
    }
}

/// What `promote` did.
#[derive(Clone, Debug)]
pub struct Promoted {
    pub owner: Owner,
    /// The generation this copy followed, and the records it applied from the bucket before taking over.
    pub followed: String,
    pub applied: u64,
    /// The last record this copy holds now, and when the old primary committed it.
    pub seq: u64,
    pub commit_ms: Option<i64>,
}

/// Makes a standby (or a directory restored from the replica) the primary. Refused when the copy does not follow
/// the replica's current generation (a stale standby would overwrite a newer primary's history) or while the
/// current primary's lease is live (renewed within `ship::lease()`: it is probably still running) — unless
/// `force`. Before taking over it applies every record of its generation the bucket holds (what the old primary
/// shipped but this copy had not applied yet), so none of it is left out of the new lineage. Then the owner
/// object names this machine with a new generation (written only if the owner is still the one read), and the
/// local state is marked to send a first snapshot when it serves with `--replicate`. The old primary, if it
/// comes back, sees it is no longer the owner and takes no writes.
pub async fn promote(bucket: &Bucket, dir: &Path, data: &Path, host: &str, url: &str, force: bool) -> Result<Promoted, Problem> {
    let state = State::load(dir).unwrap_or_default();
    let refuse = |detail: String| Err(Problem { what: What::Refused, detail });
    let (cur, etag) = match bucket.get_tagged(layout::OWNER).await? {
        Some((b, e)) => (serde_json::from_slice::<Owner>(&b).ok(), Some(e)),
        None => (None, None),
    };
    match &cur {
        None if !force => return refuse("the replica names no primary (its owner object is missing); if this copy is the one to take over, promote with --force".into()),
        Some(o) if o.generation != state.generation && !force => {
            return refuse(format!(
                "this copy follows generation {} but the replica's primary ships generation {} ({}): it is not the latest copy. Start it with --follow to catch up (or promote the newest standby); --force takes over anyway",
                if state.generation.is_empty() { "(none)" } else { &state.generation },
                o.generation,
                o.host
            ));
        }
        Some(o) if o.renewed > 0 && !force => {
            let age = crate::now_ms() - o.renewed;
            if age < crate::ship::lease().as_millis() as i64 {
                return refuse(format!(
                    "the primary {} renewed its lease {} s ago: it is probably still running. Stop it (or make sure it is gone), wait {} s, then promote again — or promote with --force",
                    o.host,
                    age / 1000,
                    (crate::ship::lease().as_millis() as i64 - age) / 1000 + 1
                ));
            }
        }
        _ => {}
    }
    // Catch up: everything of the followed generation the bucket holds, applied before taking over.
    let (mut applied, mut seq, mut commit_ms) = (0u64, 0u64, None);
    if !state.generation.is_empty() && data.exists() {
        let store = Store::open(data, &store::Options::default()).map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
        let followed = Owner { generation: state.generation.clone(), since: 0, host: String::new(), url: String::new(), instance: String::new(), boot: String::new(), renewed: 0 };
        let mut f = Follower::new(store.clone(), bucket.clone(), followed, Duration::from_millis(0));
        let before = store.follow_seq().unwrap_or(0);
        loop {
            let n = f.catch_up().await?;
            if n == 0 {
                break;
            }
        }
        seq = store.follow_seq().unwrap_or(before);
        applied = seq.saturating_sub(before);
        commit_ms = f.status.lock().ok().and_then(|s| s.applied_at);
        store.set_read_only(None);
        store.close();
    }
    let generation = layout::new_generation();
    let instance = crate::ship::Instance::of(dir.parent().unwrap_or(Path::new("."))).id;
    let owner = Owner { generation: generation.clone(), since: crate::now_ms(), host: host.to_string(), url: url.to_string(), instance, boot: String::new(), renewed: crate::now_ms() };
    let body = serde_json::to_vec(&owner).unwrap_or_default();
    let won = match &etag {
        Some(e) => bucket.put_if(layout::OWNER, body, e).await?,
        None => bucket.put_new(layout::OWNER, body).await?,
    };
    if !won {
        return Err(Problem { what: What::Conflict, detail: "the owner object changed while promoting; run promote again".into() });
    }
    let st = State { generation, url: state.url.clone(), role: "primary".into(), needs_snapshot: true, ..State::default() };
    st.save(dir).map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
    if let Some(c) = &cur {
        tracing::info!(target: "zz::replica", old = %c.generation, new = %owner.generation, "promoted: this machine is the primary");
    }
    Ok(Promoted { owner, followed: state.generation, applied, seq, commit_ms })
}

/// Takes over a stream without following it first (the logs' file's stream when its data stream was promoted:
/// a standby's logs are its own). The owner object names this machine with a new generation (written only if it
/// is still the one read); the local state marks the generation's first snapshot as due.
pub async fn take_over(bucket: &Bucket, dir: &Path, host: &str, url: &str) -> Result<Owner, Problem> {
    let etag = bucket.get_tagged(layout::OWNER).await?.map(|(_, e)| e);
    let generation = layout::new_generation();
    let instance = crate::ship::Instance::of(dir.parent().unwrap_or(Path::new("."))).id;
    let owner = Owner { generation: generation.clone(), since: crate::now_ms(), host: host.to_string(), url: url.to_string(), instance, boot: String::new(), renewed: crate::now_ms() };
    let body = serde_json::to_vec(&owner).unwrap_or_default();
    let won = match &etag {
        Some(e) => bucket.put_if(layout::OWNER, body, e).await?,
        None => bucket.put_new(layout::OWNER, body).await?,
    };
    if !won {
        return Err(Problem { what: What::Conflict, detail: "the owner object changed while taking over; run promote again".into() });
    }
    let old = State::load(dir).unwrap_or_default();
    let st = State { generation, url: old.url, role: "primary".into(), needs_snapshot: true, ..State::default() };
    st.save(dir).map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
    Ok(owner)
}
