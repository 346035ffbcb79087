//! Shared state of a running server: the store, the declarations, settings and the sign-in machinery.
use std::sync::Arc;
use std::time::Duration;

use store::Store;
use tokio::sync::Semaphore;

use crate::auth::captcha::Captchas;
use crate::auth::jwt::Keys;
use crate::auth::perms::PermCache;
use crate::auth::throttle::Throttle;
use crate::error::{ApiError, ApiResult};
use crate::decl::Resources;
use crate::wire::Zone;

#[derive(Clone, Debug)]
pub struct Settings {
    pub zone: Zone,
    /// Lifetime of access tokens; clients refresh at half of it.
    pub access_ttl: Duration,
    /// Lifetime of a refresh-token family without use.
    pub refresh_ttl: Duration,
    /// Tenant for hosts that map to no tenant.
    pub default_tenant: String,
    /// Take the client address from `X-Forwarded-For` (only behind a trusted proxy).
    pub trust_proxy: bool,
    /// The sub-system launcher of the desk: BIM, ERP, BBC, PMS.
    pub apps: Vec<serde_json::Value>,
    /// Authorisation page of the social-messaging app, for its in-app browser (none: not configured).
    pub social_auth_url: Option<String>,
    /// External sites of the header's feedback and appraise icons.
    pub feedback_url: String,
    pub appraise_url: String,
    /// Render pages on the server (off: every page is the client-rendered shell; for comparisons).
    pub ssr: bool,
    /// Days the api, error, login and usual logs are kept (pruned hourly).
    pub log_retention_days: u32,
    /// The most the logs' file may hold in use, in MiB (the oldest entries go first).
    pub log_max_mb: u64,
    /// A bearer token a monitoring system scrapes `/api/metrics` with (None: only the platform administrator).
    pub metrics_token: Option<String>,
    /// The address served (the api log's server IP).
    pub listen: String,
    /// The environment name the api log records (BladeX `env`).
    pub env: String,
    /// Longest a list that walks records may take, waiting for a slot included.
    pub walk_deadline: Duration,
    /// Lists that walk records at once (0: one fewer than the cores, at least one).
    pub walk_slots: usize,
    /// The api log leaves out successful reads (`--api-log writes`).
    pub api_log_writes_only: bool,
    /// Keep the search index (`DIR/index/`); off, text filters walk the records and the search box answers 503.
    pub search_index: bool,
    /// Which addresses buckets set through the web (a company's object storage, the status screen's replica)
    /// may reach (`--oss-allow-hosts`).
    pub bucket_rule: offbox::guard::Rule,
    /// How long an upload waits for a place among those under way before it is answered 429.
    pub upload_wait: Duration,
    /// The logs' file ships to the replica too (`serve --replicate`): its logs are kept here until sent.
    pub logs_ship_dir: Option<std::path::PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            zone: Zone::parse("+08:00").expect("valid zone"),
            access_ttl: Duration::from_secs(1800),
            refresh_ttl: Duration::from_secs(7 * 86400),
            default_tenant: "741487".into(),
            trust_proxy: false,
            apps: default_apps(),
            social_auth_url: None,
            feedback_url: String::new(),
            appraise_url: String::new(),
            ssr: true,
            log_retention_days: 90,
            log_max_mb: 2048,
            metrics_token: None,
            listen: "127.0.0.1:8090".into(),
            env: "prod".into(),
            walk_deadline: Duration::from_secs(5),
            walk_slots: 0,
            api_log_writes_only: true,
            search_index: true,
            bucket_rule: offbox::guard::Rule::guarded(offbox::guard::Allow::default()),
            upload_wait: Duration::from_secs(10),
            logs_ship_dir: None,
        }
    }
}

#[derive(Default, Debug)]
pub struct WalkStats {
    pub started: std::sync::atomic::AtomicU64,
    pub timed_out: std::sync::atomic::AtomicU64,
    pub cancelled: std::sync::atomic::AtomicU64,
}

impl WalkStats {
    /// Counts a list read that stopped early: its deadline passed, or nobody waited for it any more.
    pub fn count<T>(&self, def: &store::ResourceDef, r: &store::Result<T>) {
        use std::sync::atomic::Ordering;
        match r {
            Err(store::StoreError::Interrupted(store::Interrupt::Cancelled)) => {
                self.cancelled.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(target: "zz::list", resource = %def.name, "walk stopped: the client went away");
            }
            Err(store::StoreError::Interrupted(store::Interrupt::Deadline)) => {
                self.timed_out.fetch_add(1, Ordering::Relaxed);
            }
            _ => {}
        }
    }
}

fn walk_slots(configured: usize) -> usize {
    match configured {
        0 => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).saturating_sub(1).max(1),
        n => n,
    }
}

/// Launcher entries, 未配置 (no URL) until set: by a tenant in 参数管理 (`site.app.bim` …) or for the server
/// (`ZZ_APP_URLS=BIM=https://...,ERP=https://...`).
pub fn default_apps() -> Vec<serde_json::Value> {
    ["BIM", "ERP", "BBC", "PMS"].iter().map(|n| serde_json::json!({"name": n, "url": ""})).collect()
}

/// Point reads at most that `AppState::read_points` makes on the calling thread (a page's referenced names, a
/// pick's goods): microseconds, less than a thread hop.
const FEW_POINTS: usize = 64;

#[derive(Clone)]
pub struct AppState(pub Arc<Inner>);

pub struct Inner {
    /// The business data (`zhizhuang.redb`).
    pub store: Store,
    /// The server's own logs (`zhizhuang-logs.redb`, beside it): api, error, sign-in and usual logs.
    pub log_store: Store,
    /// Requests per route (count and latency by minute) for the status screen and `/api/metrics`.
    pub metrics: crate::metrics::Metrics,
    pub res: Resources,
    pub settings: Settings,
    pub keys: Keys,
    /// The install's secret key (`crate::secrets`): sealed fields, the signing key's derivation.
    pub secrets: crate::secrets::Secrets,
    /// The server's own logs (api, error, login, usual), written in batches off the request path.
    pub logs: crate::logsink::LogSink,
    pub captchas: Captchas,
    /// Sessions signed in while writes were stopped (`auth::token::MemSessions`).
    pub mem_sessions: crate::auth::token::MemSessions,
    /// Errors browsers reported this hour, per user and tenant (`logsink::ReportBudget`).
    pub report_budget: crate::logsink::ReportBudget,
    pub throttle: Throttle,
    /// Uploads received at once, in all and per tenant (`engine::uploads`).
    pub uploads: crate::engine::uploads::UploadGate,
    /// One import at a time per tenant (`engine::sheet`).
    pub imports: crate::engine::sheet::ImportGate,
    pub perms: PermCache,
    /// At most two password hashes computed at once: sign-in cannot starve the machine.
    pub hashing: Semaphore,
    /// Slots for lists that walk records (`Settings::walk_slots`).
    pub walks: Arc<Semaphore>,
    /// Search-index queries at once (two per core): they are CPU-bound, so more at once only adds threads and
    /// the memory each keeps (unbounded, 64 connections of text filters took the server from 160 to 830 MB).
    pub index_slots: Arc<Semaphore>,
    /// Walks started, stopped at their deadline, and stopped because the client went away (since start).
    pub walk_stats: WalkStats,
    /// Password hashes verified at sign-in since start (observability, and the throttling test's yardstick).
    pub hash_checks: std::sync::atomic::AtomicU64,
    /// Validated sessions by token, valid while sessions, users, roles, tenants, menus and grants are unchanged.
    pub session_cache: crate::cache::Stamped<String, crate::auth::session::Stamp, crate::auth::session::Cached>,
    /// Serialized first pages of lists, by tenant, resource and query, valid while the resource is unchanged.
    pub list_cache: crate::cache::Stamped<String, u64, bytes::Bytes>,
    /// Answers of the search box by tenant, user and question, valid while the searched resources, the user's
    /// rights and the index are unchanged.
    pub search_cache: crate::cache::Stamped<String, u64, bytes::Bytes>,
    /// dictKey → dictValue of platform dictionaries by code, valid while dictionaries are unchanged.
    pub dict_labels: crate::cache::Stamped<String, u64, Arc<std::collections::HashMap<String, String>>>,
    /// Every menu and button record (platform data), valid while menus are unchanged: each page's props and each
    /// search-box question build the user's menu forest from them (decoding all of them took 40% of a search).
    pub menus: crate::cache::Stamped<(), u64, Arc<Vec<serde_json::Map<String, serde_json::Value>>>>,
    /// Department trees by tenant, valid while departments are unchanged (data scope 4, department filters).
    pub dept_trees: crate::cache::Stamped<String, u64, Arc<crate::auth::scope::DeptTree>>,
    /// A title per route (`METHOD path-pattern` → 参数管理 列表) and whether it only reads, for the api log; set when
    /// the router is built.
    pub route_titles: std::sync::OnceLock<std::collections::HashMap<String, (String, bool)>>,
    /// When the server started (uptime on the status screen).
    pub started_at: std::time::Instant,
    /// This machine's host name (the api log's server host).
    pub host_name: String,
    /// The render pool, set once its runtimes have loaded the bundle (pages use the shell until then).
    pub ssr: std::sync::OnceLock<ssr::Pool>,
    /// The search index and its follower (None when `DIR/index/` could not be opened: lists walk).
    pub index: Option<Arc<crate::indexer::Indexer>>,
    /// Shipping to a replica, or following one (`serve --replicate` / `--follow`).
    pub replica: std::sync::OnceLock<crate::replica::Replica>,
    /// The logs' file's own stream to the replica (`serve --replicate`).
    pub logs_replica: std::sync::OnceLock<crate::replica::Replica>,
    /// Tenants' object storage (`engine::objects`): buckets by tenant and configuration, and each tenant's
    /// enabled configuration, valid while configurations are unchanged.
    pub buckets: crate::cache::Stamped<String, u64, Option<offbox::Bucket>>,
    pub enabled_oss: crate::cache::Stamped<String, u64, Option<u64>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(i) = &self.index {
            i.stop();
        }
    }
}

impl std::ops::Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl AppState {
    pub fn new(store: Store, res: Resources, settings: Settings) -> anyhow::Result<AppState> {
        let secrets = crate::secrets::Secrets::for_data_file(store.path())?;
        let keys = Keys::load(&store, &secrets)?;
        res.load_generated(&store)?;
        let slots = walk_slots(settings.walk_slots);
        // The logs' file beside the data file; the log entries an older data file holds move there first.
        let log_store = match crate::logsink::open_store(store.path(), settings.logs_ship_dir.clone()) {
            Err(store::StoreError::Locked) => anyhow::bail!("another process holds {}", crate::logsink::file_for(store.path()).display()),
            Err(e) => return Err(anyhow::Error::new(e).context(format!("the logs' file {}", crate::logsink::file_for(store.path()).display()))),
            Ok(s) => s,
        };
        if let Some(p) = log_store.upgraded() {
            let (format, _) = log_store.format()?;
            tracing::warn!(target: "zz::store", copy = %p.display(), "the logs' file was upgraded to format {format}; a copy of it as it was is kept");
        }
        if let Some(why) = log_store.upgrade_deferred() {
            tracing::warn!(target: "zz::store", "{why}: the logs' file stays in its format and works as before; the next start tries again");
        }
        if log_store.broke_stream() && let Some(dir) = store.path().parent() {
            crate::replica::note_broken_stream(&crate::replica::logs_ship_dir(dir));
        }
        // Its indexes follow the declarations like the data file's (before anything below writes to it).
        crate::engine::layout::sync_indexes(&log_store, &res)?;
        let moved = crate::logsink::move_out(&store, &log_store, &res)?;
        // Api-log entries of acknowledged writes a crash kept from the logs' file (read-only copies have none).
        if store.read_only().is_none() {
            let drained = crate::logsink::drain_outbox(&store, &log_store, &res)?;
            if drained > 0 {
                tracing::warn!(target: "zz::logs", entries = drained, "api-log entries of writes committed before a crash moved from the data file's outbox into the logs");
            }
        }
        if moved > 0 {
            tracing::warn!(target: "zz::logs", moved, "log entries moved out of the data file into {} (run `zhizhuang compact` to give the space back to the disk)", crate::logsink::LOG_FILE);
        }
        let logs = crate::logsink::LogSink::start(log_store.clone(), store.clone(), res.clone(), settings.zone);
        let index = if !settings.search_index {
            None
        } else {
            match crate::indexer::Indexer::open(&store, &res) {
            Ok(i) => {
                i.start();
                Some(i)
            }
            Err(e) => {
                tracing::error!(target: "zz::search", error = %e, "search index unavailable: text filters walk the records");
                None
            }
            }
        };
        Ok(AppState(Arc::new(Inner {
            store,
            log_store,
            metrics: Default::default(),
            res,
            settings,
            keys,
            secrets,
            logs,
            captchas: Captchas::default(),
            mem_sessions: Default::default(),
            report_budget: Default::default(),
            throttle: Throttle::default(),
            imports: Default::default(),
            uploads: Default::default(),
            perms: PermCache::default(),
            hashing: Semaphore::new(2),
            walks: Arc::new(Semaphore::new(slots)),
            index_slots: Arc::new(Semaphore::new(2 * std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2))),
            walk_stats: WalkStats::default(),
            hash_checks: Default::default(),
            session_cache: crate::cache::Stamped::new(20_000),
            // List and search answers: 64 and 16 MiB at the most (a page of 999 rows is ~450 KB).
            list_cache: crate::cache::Stamped::with_budget(2_000, 64 << 20),
            search_cache: crate::cache::Stamped::with_budget(1_000, 16 << 20),
            dept_trees: crate::cache::Stamped::new(1_000),
            menus: crate::cache::Stamped::new(1),
            dict_labels: crate::cache::Stamped::new(500),
            route_titles: std::sync::OnceLock::new(),
            started_at: std::time::Instant::now(),
            host_name: std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_string()).unwrap_or_default(),
            ssr: std::sync::OnceLock::new(),
            index,
            replica: std::sync::OnceLock::new(),
            logs_replica: std::sync::OnceLock::new(),
            buckets: crate::cache::Stamped::new(1_000),
            enabled_oss: crate::cache::Stamped::new(1_000),
        })))
    }

    /// Starts the render pool in the background: start-up does not wait for the runtimes to load the bundle.
    pub fn start_ssr(&self) {
        if !self.settings.ssr {
            return;
        }
        let st = self.clone();
        std::thread::spawn(move || {
            let t = std::time::Instant::now();
            match ssr::Pool::new(crate::assets::server_bundle(), ssr::PoolConfig::default()) {
                Ok(pool) => {
                    let _ = st.ssr.set(pool);
                    tracing::info!(target: "zz::ssr", ms = t.elapsed().as_millis() as u64, "render pool ready");
                }
                Err(e) => tracing::error!(target: "zz::ssr", error = %e, "render pool failed: pages use the client-rendered shell"),
            }
        });
    }

    /// Loads the render pool now (tests; `serve` uses `start_ssr`).
    pub fn start_ssr_now(&self) -> Result<(), ssr::SsrError> {
        let pool = ssr::Pool::new(crate::assets::server_bundle(), ssr::PoolConfig { threads: 1, ..Default::default() })?;
        let _ = self.ssr.set(pool);
        Ok(())
    }

    /// Runs a read on a blocking thread so that a long scan never stalls the async workers.
    pub async fn read<R: Send + 'static>(
        &self,
        f: impl FnOnce(&store::ReadCtx) -> store::Result<R> + Send + 'static,
    ) -> ApiResult<R> {
        let s = self.store.clone();
        tokio::task::spawn_blocking(move || s.read(f)).await.map_err(ApiError::internal)?.map_err(ApiError::from)
    }

    /// The store a resource lives in: the logs' for the server's logs, the data file for everything else.
    pub fn store_of(&self, def: &store::ResourceDef) -> &Store {
        if crate::logsink::is_log(&def.name) { &self.log_store } else { &self.store }
    }

    /// `read` in the store `def` lives in.
    pub async fn read_of<R: Send + 'static>(
        &self,
        def: &store::ResourceDef,
        f: impl FnOnce(&store::ReadCtx) -> store::Result<R> + Send + 'static,
    ) -> ApiResult<R> {
        let s = self.store_of(def).clone();
        tokio::task::spawn_blocking(move || s.read(f)).await.map_err(ApiError::internal)?.map_err(ApiError::from)
    }

    /// `read_now` in the store `def` lives in.
    pub fn read_now_of<R>(&self, def: &store::ResourceDef, f: impl FnOnce(&store::ReadCtx) -> store::Result<R>) -> ApiResult<R> {
        self.store_of(def).read(f).map_err(ApiError::from)
    }

    /// `points` point reads (records by id): on the calling thread when they are few (`read_now`), else on a
    /// blocking thread (`read`).
    pub async fn read_points<R: Send + 'static>(
        &self,
        points: usize,
        f: impl FnOnce(&store::ReadCtx) -> store::Result<R> + Send + 'static,
    ) -> ApiResult<R> {
        if points <= FEW_POINTS { self.read_now(f) } else { self.read(f).await }
    }

    /// Runs a bounded read on the calling thread: a few point reads or one page walked from an index end.
    /// Microseconds when the pages are cached, a handful of page reads when not; a thread hop would cost more
    /// than the read. Unbounded work (filters, deep pages, whole tables) goes through `read`.
    pub fn read_now<R>(&self, f: impl FnOnce(&store::ReadCtx) -> store::Result<R>) -> ApiResult<R> {
        self.store.read(f).map_err(ApiError::from)
    }

    /// A write of this machine's own sign-in sessions: taken on a standby too (people sign in there to read).
    pub async fn write_local<R: Send + 'static>(
        &self,
        op: impl FnMut(&mut store::WriteCtx) -> store::Result<R> + Send + 'static,
    ) -> ApiResult<R> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.store.submit_local(op, move |r| {
            let _ = tx.send(r);
        });
        answered(rx).await
    }

    /// A durable write through the group-commit writer; answers once it is on disk. A request's write also puts
    /// its api-log entry into the data file's outbox in the same transaction (`logsink::AuditStamp`).
    pub async fn write<R: Send + 'static>(
        &self,
        mut op: impl FnMut(&mut store::WriteCtx) -> store::Result<R> + Send + 'static,
    ) -> ApiResult<R> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        match crate::logsink::AUDIT.try_with(Clone::clone) {
            Ok(stamp) => {
                let key = crate::logsink::outbox_key(&stamp.rid);
                let written = stamp.written.clone();
                self.store.submit(
                    move |w| {
                        let r = op(w)?;
                        w.put_meta(&key, &stamp.provisional())?;
                        Ok(r)
                    },
                    move |r: store::Result<R>| {
                        if r.is_ok() {
                            written.store(true, std::sync::atomic::Ordering::Relaxed);
                        }
                        let _ = tx.send(r);
                    },
                );
            }
            Err(_) => self.store.submit(op, move |r| {
                let _ = tx.send(r);
            }),
        }
        answered(rx).await
    }
}

/// The writer's answer to a submitted write (Closed when the writer stopped before answering).
async fn answered<R>(rx: tokio::sync::oneshot::Receiver<store::Result<R>>) -> ApiResult<R> {
    match rx.await {
        Ok(r) => r.map_err(ApiError::from),
        Err(_) => Err(ApiError::from(store::StoreError::Closed)),
    }
}
