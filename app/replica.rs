//! Off the box (issue 28), the app's side: `serve --replicate s3://…` ships the data file's changes to a bucket,
//! `serve --follow s3://…` serves a read-only standby kept from it, `restore --from s3://… [--at TIME]` rebuilds a
//! data file as it was at a moment, `promote` makes a standby the primary. The work is the `offbox` crate's;
//! this module reads the flags and credentials, starts and stops it, and says on the status screen where it is.
//!
//! Credentials come from the standard variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
//! `AWS_ENDPOINT_URL`) or from a file of `KEY=VALUE` lines (`--replica-credentials`, readable by the server
//! only), never from the command line. The logs' file (`zhizhuang-logs.redb`) is not shipped: it is the server's
//! own record of requests, and `backup --with-logs` covers it.
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, bail};
use offbox::{Bucket, Target};
use serde_json::{Value, json};

/// Where a server keeps its folded logs until they are shipped, and its replica state.
pub fn ship_dir(dir: &Path) -> PathBuf {
    dir.join("zhizhuang-ship")
}

/// The replica a platform administrator set on the status screen (`DIR/zhizhuang-replica.json`, readable by the
/// server's user only; never in the data file): used by `serve` when no `--replicate` is given.
pub const CONFIG_FILE: &str = "zhizhuang-replica.json";

#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Saved {
    pub url: String,
    #[serde(default)]
    pub endpoint: String,
    #[serde(default)]
    pub region: String,
    #[serde(default)]
    pub access_key: String,
    #[serde(default)]
    pub secret_key: String,
}

impl Saved {
    /// The saved replica with its keys opened (sealed with the install's secret key, `crate::secrets`); keys the
    /// key cannot open are left blank (logged): the administrator enters them again.
    pub fn load(dir: &Path) -> Option<Saved> {
        let mut s: Saved = serde_json::from_slice(&std::fs::read(dir.join(CONFIG_FILE)).ok()?).ok().filter(|s: &Saved| !s.url.is_empty())?;
        if crate::secrets::is_sealed(&s.access_key) || crate::secrets::is_sealed(&s.secret_key) {
            let secrets = crate::secrets::Secrets::load(dir).ok()?;
            for (field, v) in [("replica.accessKey", &mut s.access_key), ("replica.secretKey", &mut s.secret_key)] {
                match secrets.open(store::PLATFORM_TENANT, field, v) {
                    Ok(plain) => *v = plain,
                    Err(e) => {
                        tracing::error!(target: "zz::secrets", field, problem = ?e, "the replica's keys cannot be opened with this install's secret.key; enter them again on 系统状态");
                        v.clear();
                    }
                }
            }
        }
        Some(s)
    }

    /// Written whole under another name with mode 0600 (its keys sealed), then renamed into place.
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let secrets = crate::secrets::Secrets::load(dir).map_err(std::io::Error::other)?;
        let mut sealed = self.clone();
        for (field, v) in [("replica.accessKey", &mut sealed.access_key), ("replica.secretKey", &mut sealed.secret_key)] {
            if !v.is_empty() {
                *v = secrets.seal(store::PLATFORM_TENANT, field, v);
            }
        }
        let tmp = dir.join(format!("{CONFIG_FILE}.tmp"));
        let mut f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp)?;
        f.write_all(&serde_json::to_vec_pretty(&sealed).unwrap_or_default())?;
        f.sync_all()?;
        std::fs::rename(&tmp, dir.join(CONFIG_FILE))?;
        std::fs::File::open(dir)?.sync_all()
    }

    pub fn remove(dir: &Path) -> std::io::Result<()> {
        match std::fs::remove_file(dir.join(CONFIG_FILE)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// The AWS_* variables it stands for (empty ones left to the environment).
    fn var(&self, k: &str) -> Option<String> {
        let v = match k {
            "AWS_ACCESS_KEY_ID" => &self.access_key,
            "AWS_SECRET_ACCESS_KEY" => &self.secret_key,
            "AWS_REGION" => &self.region,
            "AWS_ENDPOINT_URL" => &self.endpoint,
            _ => return None,
        };
        Some(v.clone()).filter(|v| !v.is_empty())
    }
}

/// How long a call to the bucket may take.
const TIMEOUT: Duration = Duration::from_secs(15);

/// The bucket of `url` (`s3://bucket/prefix`), signed in with the standard variables or `credentials`' lines.
pub fn target(url: &str, credentials: Option<&Path>) -> anyhow::Result<Target> {
    let file: std::collections::HashMap<String, String> = match credentials {
        Some(p) => std::fs::read_to_string(p)
            .with_context(|| format!("read {}", p.display()))?
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                if l.starts_with('#') {
                    return None;
                }
                let (k, v) = l.strip_prefix("export ").unwrap_or(l).split_once('=')?;
                Some((k.trim().to_string(), v.trim().trim_matches('"').trim_matches('\'').to_string()))
            })
            .collect(),
        None => Default::default(),
    };
    Target::from_url(url, |k| file.get(k).cloned().or_else(|| std::env::var(k).ok())).map_err(|e| anyhow::anyhow!("{e}"))
}

/// The bucket of a replica set on the status screen (its keys, else the environment's).
pub fn saved_target(s: &Saved) -> anyhow::Result<Target> {
    Target::from_url(&s.url, |k| s.var(k).or_else(|| std::env::var(k).ok())).map_err(|e| anyhow::anyhow!("{e}"))
}

/// A running replica role, for the status screen.
#[derive(Clone)]
pub enum Replica {
    Primary(offbox::ship::Shared),
    Standby(offbox::follow::Shared),
}

impl Replica {
    /// The status screen's `replica` object. `durable_now` is the store's durable sequence as the screen is
    /// answered: the shipper's own figure is from its last look, and records committed since are waiting too.
    pub fn status(&self, durable_now: u64) -> Value {
        match self {
            Replica::Primary(s) => {
                let mut s = s.lock().map(|g| g.clone()).unwrap_or_default();
                s.durable_seq = s.durable_seq.max(durable_now);
                json!({"role": "primary", "target": s.target, "generation": s.generation, "shippedSeq": s.shipped_seq,
                    "shippedAt": s.shipped_at, "durableSeq": s.durable_seq, "lagMs": s.lag_ms, "reachable": s.reachable,
                    "lastOk": s.last_ok, "problem": s.problem.map(|(zh, en)| json!({"zh": zh, "en": en})), "localBytes": s.local_bytes,
                    "segmentsSent": s.segments_sent, "bytesSent": s.bytes_sent, "snapshots": s.snapshots, "snapshotting": s.snapshotting,
                    "fenced": s.fenced, "broken": s.broken, "orphaned": s.orphaned, "renewed": s.renewed, "noConditionalWrites": s.no_conditional_writes})
            }
            Replica::Standby(s) => {
                let s = s.lock().map(|g| g.clone()).unwrap_or_default();
                json!({"role": "standby", "target": s.target, "generation": s.generation, "appliedSeq": s.applied_seq,
                    "appliedAt": s.applied_at, "lagMs": s.lag_ms, "reachable": s.reachable,
                    "problem": s.problem.map(|(zh, en)| json!({"zh": zh, "en": en})), "primary": s.primary,
                    "segmentsApplied": s.segments_applied, "stopped": s.stopped.map(|(zh, en)| json!({"zh": zh, "en": en}))})
            }
        }
    }

    /// Prometheus gauges.
    pub fn gauges(&self) -> Vec<(&'static str, &'static str, f64)> {
        match self {
            Replica::Primary(s) => {
                let s = s.lock().map(|g| g.clone()).unwrap_or_default();
                vec![
                    ("zz_replica_lag_ms", "How long the oldest change not yet in the bucket has waited.", s.lag_ms as f64),
                    ("zz_replica_reachable", "1 when the bucket answered the last call.", s.reachable as u8 as f64),
                    ("zz_replica_local_bytes", "Folded logs waiting on disk for the bucket.", s.local_bytes as f64),
                    ("zz_replica_fenced", "1 when another server took over as the primary.", s.fenced.is_some() as u8 as f64),
                    ("zz_replica_orphaned", "Changes acknowledged here that never reached the replica before another server took over.", s.orphaned as f64),
                ]
            }
            Replica::Standby(s) => {
                let s = s.lock().map(|g| g.clone()).unwrap_or_default();
                vec![
                    ("zz_replica_lag_ms", "How far behind the primary this standby was when it last found changes.", s.lag_ms as f64),
                    ("zz_replica_reachable", "1 when the bucket answered the last call.", s.reachable as u8 as f64),
                ]
            }
        }
    }
}

/// What `serve` runs beside the server.
pub struct Running {
    pub replica: Replica,
    stop: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    /// Stops it after a last round (the primary sends what is durable).
    pub async fn stop(self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = tokio::time::timeout(Duration::from_secs(20), self.task).await;
    }
}

/// A standby's copy made (or checked) before the store opens: the owner it follows.
pub async fn prepare_standby(dir: &Path, url: &str, credentials: Option<&Path>) -> anyhow::Result<(Bucket, offbox::layout::Owner)> {
    let t = target(url, credentials)?;
    let bucket = Bucket::open(&t, TIMEOUT).map_err(|p| anyhow::anyhow!("{}", p.en()))?;
    let owner = offbox::follow::bootstrap(&bucket, &crate::admin::data_file(dir), &ship_dir(dir), url).await.map_err(|p| anyhow::anyhow!("{}", p.en()))?;
    Ok((bucket, owner))
}

/// Starts the shipper of a primary: who owns the replica is settled first (a fenced server takes no writes).
/// A replica set on the status screen follows `web_rule` (the address rules of buckets set through the web);
/// one given on the command line or in the environment is the operator's own and goes anywhere.
pub async fn start_primary(store: store::Store, res: crate::decl::Resources, dir: &Path, url: &str, credentials: Option<&Path>, public_url: &str, web_rule: &offbox::guard::Rule) -> anyhow::Result<Running> {
    let (t, rule) = replica_target(dir, url, credentials, web_rule)?;
    start_shipper(store, res, Bucket::open_with(&t, TIMEOUT, &rule).map_err(|p| anyhow::anyhow!("{}", p.en()))?, ship_dir(dir), url, public_url).await
}

/// The logs' file's own stream (`<prefix>/logs/` of the same bucket): a restore from the bucket brings the audit
/// history back too.
pub async fn start_logs_primary(store: store::Store, res: crate::decl::Resources, dir: &Path, url: &str, credentials: Option<&Path>, public_url: &str, web_rule: &offbox::guard::Rule) -> anyhow::Result<Running> {
    let (t, rule) = replica_target(dir, url, credentials, web_rule)?;
    let bucket = Bucket::open_with(&t.under(LOGS_PREFIX), TIMEOUT, &rule).map_err(|p| anyhow::anyhow!("{}", p.en()))?;
    start_shipper(store, res, bucket, logs_ship_dir(dir), url, public_url).await
}

/// Where the logs' stream lives under the replica's prefix.
pub const LOGS_PREFIX: &str = "logs";

/// Where the logs' file keeps its folded logs until shipped.
pub fn logs_ship_dir(dir: &Path) -> PathBuf {
    dir.join("zhizhuang-ship-logs")
}

/// The replica's bucket and the address rule its connections follow: set on the status screen (the web's
/// rule), or on the command line (the operator's own, anywhere).
fn replica_target(dir: &Path, url: &str, credentials: Option<&Path>, web_rule: &offbox::guard::Rule) -> anyhow::Result<(Target, offbox::guard::Rule)> {
    Ok(match Saved::load(dir).filter(|s| s.url == url && credentials.is_none()) {
        Some(s) => (saved_target(&s)?, web_rule.clone()),
        None => (target(url, credentials)?, offbox::guard::Rule::Open),
    })
}

async fn start_shipper(store: store::Store, res: crate::decl::Resources, bucket: Bucket, ship: PathBuf, url: &str, public_url: &str) -> anyhow::Result<Running> {
    let mut cfg = offbox::ship::Config::new(ship);
    cfg.url = public_url.to_string();
    if let Ok(v) = std::env::var("ZZ_SNAPSHOT_HOURS")
        && let Ok(h) = v.parse::<f64>()
        && h > 0.0 {
        cfg.snapshot_every = Duration::from_secs_f64(h * 3600.0);
    }
    let defs: Arc<dyn Fn(&str) -> Option<Arc<store::ResourceDef>> + Send + Sync> = Arc::new(move |n: &str| res.find(n));
    let mut sh = offbox::ship::Shipper::new(store, bucket, cfg, defs);
    // The URL is kept for `promote` and the next start.
    sh.set_url(url);
    if !sh.claim().await {
        tracing::error!(target: "zz::error", "replication: this server is not the primary of {url}; it serves reads only (see the status screen)");
    }
    let replica = Replica::Primary(sh.status.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let task = tokio::spawn(sh.run(stop.clone()));
    Ok(Running { replica, stop, task })
}

/// Starts a standby's follower.
pub fn start_standby(store: store::Store, bucket: Bucket, owner: offbox::layout::Owner) -> Running {
    let f = offbox::follow::Follower::new(store, bucket, owner, Duration::from_millis(200));
    let replica = Replica::Standby(f.status.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let task = tokio::spawn(f.run(stop.clone()));
    Running { replica, stop, task }
}

/// A moment as people write it (`2026-11-27 10:00:00`, `2026-11-27 10:00`, `2026-11-27T10:00:00`), in the zone
/// `tz`, as milliseconds since the epoch.
pub fn parse_moment(text: &str, zone: crate::wire::Zone) -> anyhow::Result<i64> {
    let t = text.trim().replace('T', " ");
    let t = if t.len() == 16 { format!("{t}:00") } else { t };
    if let Some(ms) = zone.parse_millis(&t) {
        return Ok(ms);
    }
    bail!("--at {text:?}: write it like \"2026-11-27 10:00:00\" (in the zone of --tz)")
}

/// `zhizhuang restore --dir DIR --from s3://… [--at TIME]`: see the module's comment.
pub fn restore_from(dir: &Path, url: &str, at: Option<&str>, tz: &str, credentials: Option<&Path>, with_logs: bool) -> anyhow::Result<()> {
    let zone = crate::wire::Zone::parse(tz).context("--tz must look like +08:00 or be `local`")?;
    let until = at.map(|a| parse_moment(a, zone)).transpose()?;
    std::fs::create_dir_all(dir)?;
    let t = target(url, credentials)?;
    let tmp = dir.join("zhizhuang.redb.from-bucket");
    let _ = std::fs::remove_file(&tmp);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let started = std::time::Instant::now();
    let restored = rt.block_on(async {
        let bucket = Bucket::open(&t, TIMEOUT).map_err(|p| anyhow::anyhow!("{}", p.en()))?;
        offbox::restore::restore(&bucket, &tmp, until, None).await.map_err(|p| anyhow::anyhow!("{}", p.en()))
    });
    let restored = match restored {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    let fmt = |ms: i64| zone.format(ms);
    println!(
        "rebuilt from {}: generation {}, snapshot at position {} ({}), then {} changes from {} segments, up to position {}",
        t.describe(),
        restored.generation,
        restored.snapshot_seq,
        fmt(restored.snapshot_at),
        restored.records,
        restored.segments,
        restored.seq
    );
    match (until, restored.at) {
        (Some(u), Some(a)) if restored.stopped_at_moment => println!("restored to {} (asked for {}): every change committed up to then, none after", fmt(a), fmt(u)),
        (Some(u), Some(a)) => println!(
            "NOTE: the replica's newest change was committed at {}, before the moment asked for ({}): this is the latest there is — changes after it never reached the bucket",
            fmt(a),
            fmt(u)
        ),
        (None, Some(a)) => println!("restored to the latest change in the bucket, committed at {}", fmt(a)),
        _ => {}
    }
    let r = crate::admin::restore(dir, &tmp, None);
    let _ = std::fs::remove_file(&tmp);
    r?;
    // The audit history (api, sign-in and error logs), from its own stream, to the same moment.
    if with_logs {
        let ltmp = dir.join("zhizhuang-logs.redb.from-bucket");
        let _ = std::fs::remove_file(&ltmp);
        let got = rt.block_on(async {
            let bucket = Bucket::open(&t.under(LOGS_PREFIX), TIMEOUT).map_err(|p| anyhow::anyhow!("{}", p.en()))?;
            offbox::restore::restore(&bucket, &ltmp, until, None).await.map_err(|p| anyhow::anyhow!("{}", p.en()))
        });
        match got {
            Ok(l) => {
                let r = crate::admin::restore_logs(dir, &ltmp);
                let _ = std::fs::remove_file(&ltmp);
                r?;
                println!("logs rebuilt too: {} changes after their snapshot{}", l.records, l.at.map(|a| format!(", up to {}", fmt(a))).unwrap_or_default());
            }
            Err(e) => {
                let _ = std::fs::remove_file(&ltmp);
                println!("NOTE: the logs were not restored ({e}); the data file was. A replica made by a release before 0.2.0 has no logs' stream");
            }
        }
    }
    // A directory with no replica state of its own (a new machine) remembers what it was restored from: `promote`
    // checks it is the replica's current generation.
    if offbox::ship::State::load(&ship_dir(dir)).is_none() {
        let st = offbox::ship::State { generation: restored.generation.clone(), url: url.to_string(), role: "restored".into(), ..Default::default() };
        st.save(&ship_dir(dir))?;
        println!("to make this machine the primary of {url}: zhizhuang promote --dir {} (then serve --replicate {url})", dir.display());
    }
    println!("done in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// A file opened and changed outside its log (its format upgraded at open): the replica's stream of it cannot go
/// on, and the shipper's state says so on disk (`restart`), so that a later run that ships starts a new generation
/// with a snapshot even when this one never shipped (no bucket reachable, stopped early).
pub fn note_broken_stream(ship: &Path) {
    if let Some(mut st) = offbox::ship::State::load(ship)
        && !st.restart
    {
        st.restart = true;
        if let Err(e) = st.save(ship) {
            tracing::warn!(target: "zz::replica", error = %e, dir = %ship.display(), "could not note that the replica's stream restarts");
        }
    }
}

/// After the data file was replaced (a restore): the replica's stream of this directory restarts. The ship
/// directory's logs (of the old file) are set aside, and its state says the next claim starts a new generation of
/// this machine's own (the owner object still names this installation, so it is not fenced).
pub fn restart_stream(dir: &Path) -> anyhow::Result<()> {
    restart_one(dir, &ship_dir(dir))?;
    restart_one(dir, &logs_ship_dir(dir))
}

fn restart_one(dir: &Path, ship: &Path) -> anyhow::Result<()> {
    let ship = ship.to_path_buf();
    if !ship.exists() {
        return Ok(());
    }
    let old = offbox::ship::State::load(&ship);
    let name = ship.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let aside = dir.join(format!("{name}.before-restore-{}", store::now_millis()));
    std::fs::rename(&ship, &aside)?;
    if let Some(s) = old {
        let st = offbox::ship::State { generation: s.generation, url: s.url, role: s.role, restart: true, ..Default::default() };
        st.save(&ship)?;
        println!("the replica's stream restarts: the next serve --replicate starts a new generation (the old file's logs are kept in {})", aside.display());
    }
    Ok(())
}

/// `zhizhuang promote --dir DIR`: this standby becomes the primary of its replica (see `offbox::follow::promote`).
pub fn promote(dir: &Path, url: Option<&str>, credentials: Option<&Path>, public_url: &str, force: bool) -> anyhow::Result<()> {
    let state = offbox::ship::State::load(&ship_dir(dir));
    let url = match (url, &state) {
        (Some(u), _) => u.to_string(),
        (None, Some(s)) if !s.url.is_empty() => s.url.clone(),
        _ => bail!("{} was never a standby: give the replica with --replicate s3://bucket/prefix", dir.display()),
    };
    if crate::admin::server_running(dir) {
        bail!("a server is running on {}; stop the standby, promote it, then start it with --replicate {url}", dir.display());
    }
    let t = target(&url, credentials)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let started = std::time::Instant::now();
    let done = rt.block_on(async {
        let bucket = Bucket::open(&t, TIMEOUT).map_err(|p| anyhow::anyhow!("{}", p.en()))?;
        offbox::follow::promote(&bucket, &ship_dir(dir), &crate::admin::data_file(dir), &offbox::ship::hostname(), public_url, force).await.map_err(|p| anyhow::anyhow!("{}", p.en()))
    })?;
    let mut st = offbox::ship::State::load(&ship_dir(dir)).unwrap_or_default();
    st.url = url.clone();
    st.save(&ship_dir(dir))?;
    // The logs' stream follows: this machine's own logs' file ships from now on.
    rt.block_on(async {
        let bucket = Bucket::open(&t.under(LOGS_PREFIX), TIMEOUT).map_err(|p| anyhow::anyhow!("{}", p.en()))?;
        std::fs::create_dir_all(logs_ship_dir(dir))?;
        offbox::follow::take_over(&bucket, &logs_ship_dir(dir), &offbox::ship::hostname(), public_url).await.map_err(|p| anyhow::anyhow!("{}", p.en()))
    })?;
    let zone = crate::wire::Zone::parse("+08:00").expect("zone");
    println!(
        "caught up: {} records of generation {} applied from the bucket; this copy holds everything up to record {}{}",
        done.applied,
        if done.followed.is_empty() { "-" } else { &done.followed },
        done.seq,
        done.commit_ms.map(|t| format!(", committed at {}", zone.format(t))).unwrap_or_default()
    );
    println!("{} is now the primary of {url} (generation {}, in {:.1} s); the old primary takes no writes if it comes back.", dir.display(), done.owner.generation, started.elapsed().as_secs_f64());
    println!("start it with: zhizhuang serve --dir {} --replicate {url}", dir.display());
    Ok(())
}

/// `zhizhuang fenced --dir DIR [--out FILE]`: the changes a replaced primary acknowledged that never reached the
/// replica (its logs kept in the ship directory after its last upload), one JSON object per log record: its
/// position, commit time, and each business record written or removed. For the administrator to reconcile
/// with the new primary by hand.
pub fn fenced(dir: &Path, out: Option<&Path>) -> anyhow::Result<()> {
    crate::admin::need_data(dir)?;
    let ship = ship_dir(dir);
    if !ship.exists() {
        anyhow::bail!("{} never shipped to a replica (no {}): nothing can have been left behind", dir.display(), ship.display());
    }
    let state = offbox::ship::State::load(&ship).unwrap_or_default();
    let mut lines = Vec::new();
    let mut records = 0u64;
    for k in store::ship::kept_files(&ship)? {
        if k.last <= state.shipped {
            continue;
        }
        for r in store::ship::read_kept(&k.path)? {
            if r.seq <= state.shipped {
                continue;
            }
            let d = store::ship::describe(&r);
            records += d.records.len() as u64;
            lines.push(serde_json::to_string(&d)?);
        }
    }
    let text = lines.join("\n");
    match out {
        Some(p) => {
            std::fs::write(p, format!("{text}\n"))?;
            println!("{} log records ({} business records) after position {} written to {}", lines.len(), records, state.shipped, p.display());
        }
        None => {
            println!("{text}");
            let generation = if state.generation.is_empty() { String::new() } else { format!(" of generation {}", state.generation) };
            eprintln!("{} log records ({} business records) after position {}{generation} never reached the replica", lines.len(), records, state.shipped);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// A file upgraded at open notes on disk that its replica's stream restarts (kept until a new generation is
    /// made), so a later run that ships makes one even if this run never shipped; no state, nothing written.
    #[test]
    fn a_broken_stream_is_noted_in_the_shippers_state() {
        let dir = tempfile::tempdir().unwrap();
        let ship = dir.path().join("ship");
        super::note_broken_stream(&ship);
        assert!(!ship.exists(), "no replica: nothing written");
        let st = offbox::ship::State { generation: "g1".into(), shipped: 42, log_id: "ab".into(), role: "primary".into(), ..Default::default() };
        st.save(&ship).unwrap();
        super::note_broken_stream(&ship);
        let after = offbox::ship::State::load(&ship).unwrap();
        assert!(after.restart);
        assert_eq!((after.generation.as_str(), after.shipped, after.log_id.as_str()), ("g1", 42, "ab"), "the rest as it was");
    }
}
