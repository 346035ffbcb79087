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
            Some(s) if s.role == "standby" && s.generation == owner.generation => return Ok(owner),
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
    let st = State { generation: owner.generation.clone(), shipped: r.seq, log_id: String::new(), url: url.to_string(), role: "standby".into(), needs_snapshot: false };
    st.save(dir).map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
    tracing::info!(target: "zz::replica", generation = %owner.generation, seq = r.seq, "standby: copy made from the replica");
    Ok(owner)
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

    async fn catch_up(&mut self) -> Result<u64, Problem> {
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
                return Err(Problem { what: What::Other, detail: format!("records {} to {} are missing from the replica", cur + 1, a - 1) });
            }
            let Some(body) = self.bucket.get(&n).await? else { break };
            let recs = layout::decode_segment(&body, 256 << 20).map_err(|e| Problem { what: What::Other, detail: e })?;
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

/// Makes a standby the primary: a new generation in the owner object, written only if the owner is still the
/// one it followed (or the one given), and the local state marked to send a first snapshot when it serves with
/// `--replicate`. The old primary, if it comes back, sees it is no longer the owner and takes no writes.
pub async fn promote(bucket: &Bucket, dir: &Path, host: &str, url: &str) -> Result<Owner, Problem> {
    let state = State::load(dir).unwrap_or_default();
    let (cur, etag) = match bucket.get_tagged(layout::OWNER).await? {
        Some((b, e)) => (serde_json::from_slice::<Owner>(&b).ok(), Some(e)),
        None => (None, None),
    };
    let generation = layout::new_generation();
    let owner = Owner { generation: generation.clone(), since: crate::now_ms(), host: host.to_string(), url: url.to_string() };
    let body = serde_json::to_vec(&owner).unwrap_or_default();
    let won = match &etag {
        Some(e) => bucket.put_if(layout::OWNER, body, e).await?,
        None => bucket.put_new(layout::OWNER, body).await?,
    };
    if !won {
        return Err(Problem { what: What::Conflict, detail: "the owner object changed while promoting; run promote again".into() });
    }
    let st = State { generation, shipped: 0, log_id: String::new(), url: if state.url.is_empty() { String::new() } else { state.url.clone() }, role: "primary".into(), needs_snapshot: true };
    st.save(dir).map_err(|e| Problem { what: What::Other, detail: e.to_string() })?;
    if let Some(c) = cur {
        tracing::info!(target: "zz::replica", old = %c.generation, new = %owner.generation, "promoted: this machine is the primary");
    }
    Ok(owner)
}
