//! `zhizhuang serve`: open the store (seeding it on first start), build the router, listen, and on SIGINT or
//! SIGTERM stop accepting, drain in-flight requests and close the store.
use std::time::Duration;

use anyhow::Context;
use store::{Store, StoreError};

use crate::cli::{LogFormat, ServeArgs};
use crate::decl::Resources;
use crate::state::{AppState, Settings};
use crate::wire::Zone;

pub fn init_logging(format: LogFormat) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_env("ZZ_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    use std::io::IsTerminal;
    let b = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    let _ = match format {
        LogFormat::Json => b.json().flatten_event(true).try_init(),
        LogFormat::Human => b.compact().try_init(),
    };
}

pub async fn run(args: ServeArgs) -> anyhow::Result<()> {
    init_logging(args.log_format);
    tracing::info!(target: "zz::serve", version = zhizhuang_version(), "starting zhizhuang");
    let refused = crate::admin::private_dir(&args.dir)?;
    if !refused.is_empty() || crate::admin::readable_by_others(&args.dir) {
        tracing::warn!(target: "zz::serve", dir = %args.dir.display(), files = ?refused, "other users of this machine can read the data directory (it holds every company's data): make it and its files private to the server's user (chmod -R go-rwx)");
    }
    // Listening comes first: while the files open (a repair, an upgrade, a standby's first copy) every request is
    // answered 503 "starting" rather than refused by a closed port.
    if args.https.is_none() && !crate::listen::is_loopback(&args.http) && !args.insecure_http {
        anyhow::bail!(
            "plain HTTP on {} would send passwords and tokens across the network in clear: serve HTTPS with --https ADDR --tls-cert FILE --tls-key FILE (`zhizhuang cert --host <address>` makes them), or add --insecure-http when a TLS proxy of your own stands in front",
            args.http
        );
    }
    let certs = match (&args.https, &args.tls_cert, &args.tls_key) {
        (Some(_), Some(c), Some(k)) => Some(crate::listen::Certs::load(c, k)?),
        _ => None,
    };
    let listener = tokio::net::TcpListener::bind(args.http).await.with_context(|| format!("listen on {}", args.http))?;
    let https_listener = match args.https {
        Some(a) => Some(tokio::net::TcpListener::bind(a).await.with_context(|| format!("listen on {a}"))?),
        None => None,
    };
    let limits = crate::listen::Limits {
        per_address: (!args.trust_proxy).then_some(args.max_conns_per_ip as usize),
        header_timeout: Duration::from_secs(args.header_timeout),
        ..Default::default()
    };
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        shutdown_signal().await;
        let _ = stop_tx.send(true);
    });
    let (main_app, plain_app) = (crate::listen::Switch::new(crate::listen::starting()), crate::listen::Switch::new(crate::listen::starting()));
    let mut listeners = Vec::new();
    let https_port = match (https_listener, certs) {
        (Some(tl), Some(certs)) => {
            let port = tl.local_addr()?.port();
            tracing::info!(target: "zz::serve", addr = %tl.local_addr()?, dir = %args.dir.display(), "listening (HTTPS)");
            tracing::info!(target: "zz::serve", addr = %listener.local_addr()?, "listening (HTTP: redirects to HTTPS)");
            tokio::spawn(certs.clone().watch(stop.clone()));
            listeners.push(tokio::spawn(crate::listen::serve(tl, main_app.clone(), Some(certs), limits.clone(), stop.clone())));
            listeners.push(tokio::spawn(crate::listen::serve(listener, plain_app.clone(), None, limits, stop.clone())));
            Some(port)
        }
        _ => {
            tracing::info!(target: "zz::serve", addr = %listener.local_addr()?, dir = %args.dir.display(), "listening");
            listeners.push(tokio::spawn(crate::listen::serve(listener, main_app.clone(), None, limits, stop.clone())));
            None
        }
    };
    let file = crate::admin::data_file(&args.dir);
    // A standby's copy is made (or checked) from the replica before anything opens it.
    let standby = match &args.follow {
        Some(url) => Some(crate::replica::prepare_standby(&args.dir, url, args.replica_credentials.as_deref()).await?),
        None => None,
    };
    // `--replicate`, or the replica a platform administrator set on the status screen.
    let replicate = args.replicate.clone().or_else(|| if args.follow.is_none() { crate::replica::Saved::load(&args.dir).map(|s| s.url) } else { None });
    let ship_dir = replicate.as_ref().map(|_| crate::replica::ship_dir(&args.dir));
    if replicate.is_some() && !store::Options::default().wal {
        tracing::error!(target: "zz::error", "ZZ_WAL=0: without the write-ahead log only snapshots reach the replica (every ZZ_SNAPSHOT_HOURS); changes in between are lost with this machine. Unset ZZ_WAL to ship every change");
    }
    if replicate.is_none() && args.follow.is_none() && crate::replica::ship_dir(&args.dir).is_dir() {
        tracing::warn!(target: "zz::replica", "this directory shipped to a replica before and serves without --replicate now: its changes do not leave the machine, and the next --replicate starts a new generation with a full snapshot");
    }
    let cache_bytes = match args.cache_mb {
        0 => store::cache_for(std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0), store::machine_ram().unwrap_or(1 << 30)),
        mb => mb << 20,
    };
    tracing::info!(target: "zz::serve", cache_mib = cache_bytes >> 20, "page cache of the data file");
    // A standby's file mirrors its primary's format (the primary's snapshot brings it): it is not upgraded here.
    let format = if args.follow.is_some() { store::REQUIRED_FORMAT } else { store::BASE_FORMAT };
    let res = Resources::load()?;
    let opts = store::Options { cache_bytes, ship_dir, format, plain: res.plain_names(), ..Default::default() };
    let store = match Store::open(&file, &opts) {
        Err(StoreError::Locked) => anyhow::bail!("another process holds {}", file.display()),
        other => other?,
    };
    if let Some((_, owner)) = &standby {
        store.set_read_only(Some(offbox::follow::standby_reason(Some(owner))));
    }
    if let Some(ms) = store.repaired_ms() {
        tracing::warn!(target: "zz::store", ms, "the data file was not closed cleanly (crash or kill); repaired on open");
    }
    let replayed = store.replayed();
    if replayed.records > 0 || replayed.torn_tail {
        tracing::warn!(target: "zz::store", commits = replayed.records, torn_tail = replayed.torn_tail, "write-ahead log of the last run applied to the data file");
    }
    if store.broke_stream() {
        crate::replica::note_broken_stream(&crate::replica::ship_dir(&args.dir));
    }
    if let Some(p) = store.upgraded() {
        let (format, _) = store.format()?;
        tracing::warn!(target: "zz::store", copy = %p.display(), "the data file was upgraded to format {format}; a copy of it as it was is kept");
    }
    if let Some(why) = store.upgrade_deferred() {
        tracing::warn!(target: "zz::store", "{why}: the data file stays in its format and works as before; the next start tries again");
    }
    // A primary settles that it owns its replica before it takes a write (a replaced one takes none).
    let shipping = match &replicate {
        Some(url) => Some(crate::replica::start_primary(store.clone(), res.clone(), &args.dir, url, args.replica_credentials.as_deref(), &args.public_url, &offbox::guard::Rule::guarded(args.oss_allow_hosts.clone())).await?),
        None => None,
    };
    // A standby's copy is the primary's, seeded and upgraded there; a replaced primary writes nothing.
    let read_only = store.read_only().is_some();
    let issued = if read_only {
        Vec::new()
    } else {
        let (s, r, pw, demo, once) = (store.clone(), res.clone(), args.admin_password.clone(), args.demo, args.admin_password_once);
        tokio::task::spawn_blocking(move || crate::seed::first_start(&s, &r, pw.as_deref(), demo, once)).await??
    };
    for i in &issued {
        println!("initial password  tenant {}  account {}  password {}", i.tenant, i.account, i.password);
    }
    if !issued.is_empty() {
        println!("(shown once; only a hash is stored. Change it after signing in.)");
    }
    let settings = Settings {
        zone: Zone::parse(&args.tz).context("--tz must look like +08:00 or be `local`")?,
        access_ttl: Duration::from_secs(args.access_ttl.clamp(60, 86_400)),
        trust_proxy: args.trust_proxy,
        apps: parse_apps(args.app_urls.as_deref()),
        social_auth_url: args.social_auth_url.clone(),
        ssr: !args.no_ssr,
        feedback_url: args.feedback_url.clone(),
        appraise_url: args.appraise_url.clone(),
        log_retention_days: args.log_retention_days,
        log_max_mb: args.log_max_mb,
        metrics_token: args.metrics_token.clone().filter(|t| !t.trim().is_empty()),
        listen: args.http.to_string(),
        env: args.env.chars().take(32).collect(),
        walk_deadline: Duration::from_millis(args.walk_deadline_ms),
        walk_slots: args.walk_slots,
        api_log_writes_only: args.api_log == "writes",
        search_index: !args.no_search_index,
        bucket_rule: offbox::guard::Rule::guarded(args.oss_allow_hosts.clone()),
        logs_ship_dir: replicate.as_ref().map(|_| crate::replica::logs_ship_dir(&args.dir)),
        ..Settings::default()
    };
    let res2 = res.clone();
    let st = AppState::new(store.clone(), res, settings)?;
    // The logs' file ships beside the data file, its own stream in the same bucket.
    let shipping_logs = match &replicate {
        Some(url) => Some(crate::replica::start_logs_primary(st.log_store.clone(), res2, &args.dir, url, args.replica_credentials.as_deref(), &args.public_url, &offbox::guard::Rule::guarded(args.oss_allow_hosts.clone())).await?),
        None => None,
    };
    if let Some(r) = &shipping_logs {
        let _ = st.logs_replica.set(r.replica.clone());
    }
    crate::engine::uploads::clear_spool(&st);
    tracing::info!(target: "zz::secrets", key = st.secrets.id(), from = %st.secrets.source, "the install's secret key (keep it with the backups)");
    let st2 = st.clone();
    let seals = tokio::task::spawn_blocking(move || crate::engine::crud::seal_stored(&st2, !read_only)).await??;
    if seals.sealed > 0 {
        tracing::warn!(target: "zz::secrets", sealed = seals.sealed, "secrets stored in plain text by an earlier version are now sealed; their old copies stay in the data file's free pages until `zhizhuang compact` (server stopped), and in the before-upgrade copy (delete it once the upgrade is confirmed)");
    }
    if seals.other_key > 0 {
        tracing::error!(target: "zz::secrets", count = seals.other_key, "secrets in the data file were sealed with another secret.key and cannot be opened: put that key back in the data directory (or ZZ_SECRET_KEY), or have the companies enter them again");
    }
    let log_store = st.log_store.clone();
    let following = standby.map(|(bucket, owner)| crate::replica::start_standby(store.clone(), bucket, owner));
    if let Some(r) = shipping.as_ref().or(following.as_ref()) {
        let _ = st.replica.set(r.replica.clone());
    }
    // What the areas finish before serving (a building import a stopped server left running): the primary's work.
    for area in crate::api::AREAS {
        if let Some(start) = area.start
            && !read_only {
            let st2 = st.clone();
            tokio::task::spawn_blocking(move || start(&st2)).await??;
        }
    }
    st.start_ssr();
    let app = crate::router(st.clone());
    let index = st.index.clone();
    let socket = tokio::spawn(crate::admin::serve_socket(args.dir.clone(), st.clone()));
    let pruner = tokio::spawn(prune_sessions(st.clone()));
    // Background work that writes business data is the primary's.
    let tasks: Vec<tokio::task::JoinHandle<()>> = if read_only { Vec::new() } else { crate::api::AREAS.iter().filter_map(|a| a.tasks).map(|t| t(st.clone())).collect() };
    let log_pruner = tokio::spawn(prune_logs(st.clone()));
    // Started: the listeners serve the application from now on.
    if let Some(port) = https_port {
        plain_app.set(crate::listen::redirect_app(app.clone(), port, args.public_url.clone()));
    }
    main_app.set(app);
    tracing::info!(target: "zz::serve", version = crate::VERSION, "ready");
    for l in listeners {
        l.await??;
    }
    socket.abort();
    pruner.abort();
    tasks.iter().for_each(|t| t.abort());
    log_pruner.abort();
    let _ = std::fs::remove_file(args.dir.join(crate::admin::SOCKET));
    if let Some(i) = index {
        i.stop();
    }
    // Shipping sends what is durable before the store closes (what the close folds goes at the next start).
    for r in [shipping, following, shipping_logs].into_iter().flatten() {
        r.stop().await;
    }
    // The logs of the last requests, then both files closed (each leaves no log of its own behind).
    st.logs.flush().await;
    drop(st);
    tokio::task::spawn_blocking(move || {
        store.close();
        log_store.close();
    })
    .await?;
    tracing::info!(target: "zz::serve", "stopped; data file closed");
    Ok(())
}

fn zhizhuang_version() -> &'static str {
    crate::VERSION
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!(target: "zz::serve", "shutting down: draining in-flight requests");
}

/// Hourly: forget sessions whose refresh family expired, or that were revoked more than a day ago (kept that
/// long so a reused refresh token still meets its revoked family and is logged).
async fn prune_sessions(st: AppState) {
    let mut tick = tokio::time::interval(Duration::from_secs(3600));
    loop {
        tick.tick().await;
        let now = store::now_millis();
        // Sessions are this machine's own (a standby keeps its sign-ins too).
        let r = st
            .write_local(move |w| {
                w.prune_sessions(|s| {
                    let expires = s["expires"].as_i64().unwrap_or(0);
                    expires < now || (s["revoked"].as_bool() == Some(true) && expires < now + 6 * 86_400_000)
                })
            })
            .await;
        match r {
            Ok(n) if n > 0 => tracing::info!(target: "zz::serve", pruned = n, "expired sessions removed"),
            Ok(_) => {}
            Err(e) => tracing::warn!(target: "zz::serve", error = e.code(), "session pruning failed"),
        }
    }
}

/// Hourly: delete log entries older than the retention (`--log-retention-days`); every five minutes: keep the
/// logs' file within `--log-max-mb` (the oldest entries first).
async fn prune_logs(st: AppState) {
    let mut tick = tokio::time::interval(Duration::from_secs(300));
    let mut n = 0u64;
    loop {
        tick.tick().await;
        let (l, d, r, days, cap) = (st.log_store.clone(), st.store.clone(), st.res.clone(), st.settings.log_retention_days, st.settings.log_max_mb << 20);
        let by_age = n.is_multiple_of(12);
        n += 1;
        let done = tokio::task::spawn_blocking(move || -> store::Result<(u64, crate::logsink::SizePrune)> {
            let old = if by_age { crate::logsink::prune(&l, &d, &r, days, store::now_millis())? } else { 0 };
            Ok((old, crate::logsink::prune_to_size(&l, &d, &r, cap)?))
        })
        .await;
        match done {
            Ok(Ok((old, big))) => {
                if old > 0 {
                    tracing::info!(target: "zz::logs", pruned = old, days, "old log entries removed");
                }
                if big.reports > 0 {
                    tracing::info!(target: "zz::logs", pruned = big.reports, max_mb = cap >> 20, "errors reported by browsers removed to keep the logs within their size");
                }
                if big.audit > 0 {
                    tracing::warn!(target: "zz::logs", pruned = big.audit, max_mb = cap >> 20, "audit entries younger than the retention removed to keep the logs within their size (raise --log-max-mb)");
                }
            }
            Ok(Err(e)) => tracing::warn!(target: "zz::logs", error = %e, "log pruning failed"),
            Err(e) => tracing::warn!(target: "zz::logs", error = %e, "log pruning task failed"),
        }
    }
}

/// `BIM=https://bim.corp,ERP=https://erp.corp`: overrides of the launcher's default URLs.
fn parse_apps(spec: Option<&str>) -> Vec<serde_json::Value> {
    let mut apps = crate::state::default_apps();
    for (name, url) in spec.unwrap_or("").split(',').filter_map(|p| p.split_once('=')) {
        if let Some(a) = apps.iter_mut().find(|a| a["name"] == name.trim()) {
            a["url"] = serde_json::json!(url.trim());
        }
    }
    apps
}
