//! The listeners: each accepted connection served by hyper's HTTP/1 with the limits an office server open to
//! its LAN needs, over TLS when the server has a certificate.
//!
//! - **Slow and idle connections end.** A request's headers must arrive within `header_timeout` (10 s), and an
//!   idle keep-alive connection waiting for its next request is closed after the same time: a client trickling
//!   header lines, or opening connections and sending nothing, cannot hold them.
//! - **Connections per address are capped** (`per_address`, 256: an office behind one NAT address has its whole
//!   staff there), and in all (`max_conns`); beyond them a connection is closed at once. Behind a trusted reverse
//!   proxy (`--trust-proxy`) every connection comes from the proxy, so only the total applies.
//! - **HTTPS** (`--https`, rustls): the certificate chain and key are PEM files, read again on SIGHUP and when
//!   they change on disk (checked every 10 s); a handshake after that uses the new certificate, connections open
//!   keep theirs. Answers over HTTPS carry HSTS. With `--https`, `--http` answers only a redirect there (and
//!   `/api/health`, for load balancers that check plain HTTP).
//! - **Shutdown**: on the signal no new connection is accepted and those open finish their requests (30 s at most).
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use anyhow::Context;
use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// What a listener allows.
#[derive(Clone, Debug)]
pub struct Limits {
    pub header_timeout: Duration,
    /// Connections at once from one address (None: no cap, behind a trusted proxy).
    pub per_address: Option<usize>,
    pub max_conns: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { header_timeout: Duration::from_secs(10), per_address: Some(256), max_conns: 10_000 }
    }
}

/// Connections open now, in all and by address.
#[derive(Default)]
struct Open {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

/// A connection's place among those open; given back when it ends.
struct Place {
    open: Arc<Mutex<Open>>,
    ip: IpAddr,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut o = self.open.lock().unwrap_or_else(|e| e.into_inner());
        o.total = o.total.saturating_sub(1);
        if let Some(n) = o.by_address.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                o.by_address.remove(&self.ip);
            }
        }
    }
}

fn take_place(open: &Arc<Mutex<Open>>, ip: IpAddr, limits: &Limits) -> Option<Place> {
    let mut o = open.lock().unwrap_or_else(|e| e.into_inner());
    let mine = o.by_address.get(&ip).copied().unwrap_or(0);
    if o.total >= limits.max_conns || limits.per_address.is_some_and(|cap| mine >= cap) {
        return None;
    }
    o.total += 1;
    *o.by_address.entry(ip).or_insert(0) += 1;
    Some(Place { open: open.clone(), ip })
}

/// The application a listener serves, switched once the server has started: until then every request meets
/// `starting` (503 "starting", so load balancers and people see the server is coming up, not down).
#[derive(Clone)]
pub struct Switch(Arc<RwLock<Router>>);

impl Switch {
    pub fn new(app: Router) -> Switch {
        Switch(Arc::new(RwLock::new(app)))
    }
    pub fn set(&self, app: Router) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = app;
    }
    fn get(&self) -> Router {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// What answers while the server opens its files (a repair, a format upgrade, a standby's first copy):
/// `/api/health` and `/api/ready` 503 `starting`, anything else 503 saying so, in both languages.
pub fn starting() -> Router {
    let health = || async {
        let mut r = (StatusCode::SERVICE_UNAVAILABLE, axum::Json(serde_json::json!({"status": "starting", "version": crate::VERSION}))).into_response();
        r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        r
    };
    Router::new().route("/api/health", axum::routing::get(health)).route("/api/ready", axum::routing::get(health)).fallback(|| async {
        let mut r = crate::error::ApiError::new(crate::error::Kind::Starting).into_response();
        r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        r
    })
}

/// Serves what `app` holds on `listener` (over TLS when `tls` is given) until `stop` turns true, then lets the
/// open connections finish (30 s at most).
pub async fn serve(listener: TcpListener, app: Switch, tls: Option<Arc<Certs>>, limits: Limits, mut stop: watch::Receiver<bool>) -> anyhow::Result<()> {
    let open = Arc::new(Mutex::new(Open::default()));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let acceptor = tls.map(|c| tokio_rustls::TlsAcceptor::from(c.server_config()));
    let mut refused = 0u64;
    loop {
        let (stream, peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok(x) => x,
                Err(e) => {
                    // Out of descriptors and the like: wait a moment rather than spin.
                    tracing::warn!(target: "zz::serve", error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = stop.changed() => break,
        };
        let Some(place) = take_place(&open, peer.ip(), &limits) else {
            refused += 1;
            if refused.is_power_of_two() {
                tracing::warn!(target: "zz::serve", peer = %peer.ip(), refused, "connection refused: too many open from this address or in all");
            }
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let builder = {
            let mut b = hyper::server::conn::http1::Builder::new();
            b.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout).keep_alive(true);
            b
        };
        let watcher = graceful.watcher();
        let acceptor = acceptor.clone();
        let header_timeout = limits.header_timeout;
        tokio::spawn(async move {
            let _place = place;
            let secure = acceptor.is_some();
            let svc = hyper_util::service::TowerToHyperService::new(tower::service_fn(move |mut req: Request<hyper::body::Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                req.extensions_mut().insert(Scheme { https: secure });
                tower::ServiceExt::oneshot(app.get(), req)
            }));
            match acceptor {
                None => {
                    let _ = watcher.watch(builder.serve_connection(TokioIo::new(stream), svc)).await;
                }
                Some(acceptor) => {
                    // The handshake has the same time as a request's headers.
                    let Ok(Ok(tls)) = tokio::time::timeout(header_timeout, acceptor.accept(stream)).await else { return };
                    let _ = watcher.watch(builder.serve_connection(TokioIo::new(tls), svc)).await;
                }
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(Duration::from_secs(30), graceful.shutdown()).await.is_err() {
        tracing::warn!(target: "zz::serve", "connections still open after 30 s were closed");
    }
    Ok(())
}

/// Whether the request came over HTTPS (set by the listener).
#[derive(Clone, Copy, Debug)]
pub struct Scheme {
    pub https: bool,
}

/// HSTS on every answer that went over HTTPS: browsers then never try the address in plain HTTP again.
pub async fn hsts(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let https = req.extensions().get::<Scheme>().is_some_and(|s| s.https);
    let mut resp = next.run(req).await;
    if https {
        resp.headers_mut().insert(header::STRICT_TRANSPORT_SECURITY, HeaderValue::from_static("max-age=31536000"));
    }
    resp
}

/// What `--http` serves beside `--https`: `/api/health` and `/api/ready` as they are, and a redirect to the same path over HTTPS for
/// everything else (to `public_url`'s host when set, else the host the browser asked for).
pub fn redirect_app(app: Router, https_port: u16, public_url: String) -> Router {
    let pass = move |req: axum::extract::Request| {
        let app = app.clone();
        async move { tower::ServiceExt::oneshot(app, req).await.map(IntoResponse::into_response).unwrap_or_else(|e| match e {}) }
    };
    Router::new().route("/api/health", axum::routing::get(pass.clone())).route("/api/ready", axum::routing::get(pass)).fallback(move |req: axum::extract::Request| {
        let public = public_url.clone();
        async move { to_https(&req, https_port, &public) }
    })
}

fn to_https(req: &axum::extract::Request, port: u16, public_url: &str) -> Response {
    let path = req.uri().path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let path = if crate::pages::same_site_path(path) { path } else { "/" };
    let host = match public_url.strip_prefix("https://") {
        Some(rest) => rest.split('/').next().unwrap_or("").to_string(),
        None => {
            let asked = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
            // The host without its port (a name or an address, brackets kept), if it reads as one.
            let bare = if asked.starts_with('[') { asked.split(']').next().map(|h| format!("{h}]")).unwrap_or_default() } else { asked.split(':').next().unwrap_or("").to_string() };
            let ok = !bare.is_empty() && bare.bytes().all(|b| b.is_ascii_alphanumeric() || b".-[]:_".contains(&b));
            if !ok {
                return (StatusCode::BAD_REQUEST, "Use HTTPS").into_response();
            }
            if port == 443 { bare } else { format!("{bare}:{port}") }
        }
    };
    let mut r = StatusCode::PERMANENT_REDIRECT.into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("https://{host}{path}")) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

/// The server's certificate and key, as PEM files, read again when they change.
pub struct Certs {
    cert: PathBuf,
    key: PathBuf,
    current: RwLock<Arc<CertifiedKey>>,
    seen: Mutex<Option<(SystemTime, SystemTime)>>,
}

impl std::fmt::Debug for Certs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Certs({})", self.cert.display())
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn read_pair(cert: &Path, key: &Path) -> anyhow::Result<CertifiedKey> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .with_context(|| format!("read {}", cert.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("{}: not a PEM certificate chain", cert.display()))?;
    if chain.is_empty() {
        anyhow::bail!("{}: no certificate in it", cert.display());
    }
    let der = PrivateKeyDer::from_pem_file(key).with_context(|| format!("{}: not a PEM private key", key.display()))?;
    let signing = provider().key_provider.load_private_key(der).with_context(|| format!("{}: a key rustls cannot use", key.display()))?;
    let ck = CertifiedKey::new(chain, signing);
    ck.keys_match().with_context(|| format!("{} and {} do not belong together", cert.display(), key.display()))?;
    Ok(ck)
}

fn stamps(cert: &Path, key: &Path) -> Option<(SystemTime, SystemTime)> {
    Some((std::fs::metadata(cert).ok()?.modified().ok()?, std::fs::metadata(key).ok()?.modified().ok()?))
}

impl Certs {
    pub fn load(cert: &Path, key: &Path) -> anyhow::Result<Arc<Certs>> {
        let ck = read_pair(cert, key)?;
        Ok(Arc::new(Certs { cert: cert.to_path_buf(), key: key.to_path_buf(), current: RwLock::new(Arc::new(ck)), seen: Mutex::new(stamps(cert, key)) }))
    }

    /// Reads the files again when they changed since last read (or always, `force`); a pair that does not load
    /// leaves the current one in place (logged).
    pub fn reload(&self, force: bool) -> bool {
        let now = stamps(&self.cert, &self.key);
        {
            let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
            if !force && (now.is_none() || *seen == now) {
                return false;
            }
        }
        match read_pair(&self.cert, &self.key) {
            Ok(ck) => {
                *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(ck);
                *self.seen.lock().unwrap_or_else(|e| e.into_inner()) = now;
                tracing::info!(target: "zz::serve", cert = %self.cert.display(), "TLS certificate loaded again");
                true
            }
            Err(e) => {
                tracing::error!(target: "zz::serve", error = %format!("{e:#}"), "the TLS certificate could not be read again; the one in use stays");
                *self.seen.lock().unwrap_or_else(|e| e.into_inner()) = now;
                false
            }
        }
    }

    fn server_config(self: &Arc<Self>) -> Arc<rustls::ServerConfig> {
        let mut cfg = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions")
            .with_no_client_auth()
            .with_cert_resolver(self.clone());
        cfg.alpn_protocols = vec![b"http/1.1".to_vec()];
        Arc::new(cfg)
    }

    /// Reloads on SIGHUP and when the files change (checked every 10 s), until `stop`.
    pub async fn watch(self: Arc<Self>, mut stop: watch::Receiver<bool>) {
        let mut hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
        let mut tick = tokio::time::interval(Duration::from_secs(10));
        loop {
            let force = tokio::select! {
                _ = tick.tick() => false,
                _ = async { match hup.as_mut() { Some(h) => { h.recv().await; } None => std::future::pending::<()>().await } } => true,
                _ = stop.changed() => return,
            };
            self.reload(force);
        }
    }
}

impl ResolvesServerCert for Certs {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current.read().unwrap_or_else(|e| e.into_inner()).clone())
    }
}

/// `addr` is this machine's own (loopback): plain HTTP to it never crosses a network.
pub fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
}
