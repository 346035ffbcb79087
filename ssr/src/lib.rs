//! The embedded JavaScript runtime pool: `render(url, props_json) -> html`.
//!
//! Owns a fixed set of dedicated threads, each with one QuickJS runtime and context (QuickJS
//! values cannot move between threads), fed from one bounded queue. It knows nothing of HTTP
//! and runs no async runtime: callers get their answer through a callback (`render`) or by
//! blocking (`render_blocking`).
//!
//! The server bundle is a classic script that defines `globalThis.render(url, propsJson)`
//! returning a string. The host provides only what must be native (see [`host`]); JS
//! polyfills (timers, MessageChannel, TextEncoder...) belong to the bundle, which may expose
//! `globalThis.__zz_drain()` so the host can run queued macrotasks after each render.

mod host;
mod worker;

use std::collections::VecDeque;
use std::fmt;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Why a render (or the pool) failed. Every variant is recoverable for the caller: serve the
/// client-rendered shell instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SsrError {
    /// The bounded queue is full; answered at once, nothing was queued.
    QueueFull,
    /// The render ran past `PoolConfig::timeout`; its runtime is recreated.
    Timeout,
    /// The bundle threw (message and stack), or `render` returned something other than a string.
    Js(String),
    /// The bundle could not be loaded: it threw, or defines no global `render`.
    Init(String),
    /// The pool is shutting down.
    Closed,
}

impl fmt::Display for SsrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SsrError::QueueFull => f.write_str("ssr queue full"),
            SsrError::Timeout => f.write_str("ssr render timed out"),
            SsrError::Js(m) => write!(f, "ssr js error: {m}"),
            SsrError::Init(m) => write!(f, "ssr init error: {m}"),
            SsrError::Closed => f.write_str("ssr pool closed"),
        }
    }
}

impl std::error::Error for SsrError {}

/// Pool sizing and limits.
#[derive(Debug, Clone)]
pub struct PoolConfig {
    /// Runtime threads; default: available cores.
    pub threads: usize,
    /// Renders waiting for a thread beyond this are refused with `QueueFull`.
    pub queue: usize,
    /// Wall-clock budget of one render, counted from when a thread picks it up.
    pub timeout: Duration,
    /// QuickJS heap limit per runtime in bytes (0 = unlimited).
    pub memory_limit: usize,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            queue: 256,
            timeout: Duration::from_millis(2000),
            memory_limit: 256 << 20,
        }
    }
}

type Done = Box<dyn FnOnce(Result<String, SsrError>) + Send + 'static>;

pub(crate) struct Job {
    pub url: String,
    pub props: String,
    pub done: Done,
}

/// Queue shared by the handle and the workers.
pub(crate) struct Shared {
    pub state: Mutex<State>,
    pub ready: Condvar,
}

pub(crate) struct State {
    pub jobs: VecDeque<Job>,
    pub closed: bool,
}

impl Shared {
    /// Next job, or None once closed and drained.
    pub(crate) fn next(&self) -> Option<Job> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(j) = st.jobs.pop_front() {
                return Some(j);
            }
            if st.closed {
                return None;
            }
            st = self.ready.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn close(&self) -> Vec<Job> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.closed = true;
        let left = st.jobs.drain(..).collect();
        drop(st);
        self.ready.notify_all();
        left
    }
}

/// Closes the queue when the last `Pool` clone is dropped; workers then exit.
struct Handle {
    shared: Arc<Shared>,
    queue: usize,
    threads: Mutex<Vec<std::thread::JoinHandle<()>>>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        for job in self.shared.close() {
            (job.done)(Err(SsrError::Closed));
        }
        let threads = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
        for t in threads {
            let _ = t.join();
        }
    }
}

/// A pool of QuickJS runtimes. Cheap to clone; all clones share the threads.
#[derive(Clone)]
pub struct Pool {
    handle: Arc<Handle>,
}

impl Pool {
    /// Starts `cfg.threads` runtimes, each evaluating the bundle once. Fails if any of them
    /// cannot load it (it throws, or defines no global `render`).
    pub fn new(server_bundle_js: &str, cfg: PoolConfig) -> Result<Pool, SsrError> {
        let threads = cfg.threads.max(1);
        let shared = Arc::new(Shared {
            state: Mutex::new(State { jobs: VecDeque::new(), closed: false }),
            ready: Condvar::new(),
        });
        let bundle: Arc<str> = Arc::from(server_bundle_js);
        let (init_tx, init_rx) = mpsc::channel::<Result<(), SsrError>>();
        let mut handles = Vec::with_capacity(threads);
        for i in 0..threads {
            let shared = shared.clone();
            let bundle = bundle.clone();
            let cfg = cfg.clone();
            let worker_tx = init_tx.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("ssr-{i}"))
                // React renders recurse deeply; QuickJS gets most of this (see worker).
                .stack_size(worker::THREAD_STACK)
                .spawn(move || worker::run(&bundle, &cfg, &shared, worker_tx));
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    let _ = init_tx.send(Err(SsrError::Init(format!("spawn: {e}"))));
                }
            }
        }
        drop(init_tx);
        let handle = Arc::new(Handle { shared, queue: cfg.queue, threads: Mutex::new(handles) });
        let mut first_err = None;
        for _ in 0..threads {
            match init_rx.recv() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    first_err.get_or_insert(e);
                }
                Err(_) => {
                    first_err.get_or_insert(SsrError::Init("runtime thread died".into()));
                    break;
                }
            }
        }
        match first_err {
            // Dropping `handle` closes the queue and joins the healthy threads.
            Some(e) => Err(e),
            None => Ok(Pool { handle }),
        }
    }

    /// Queues a render; `done` runs on a runtime thread (or here, at once, with `QueueFull`
    /// or `Closed`). Keep `done` short: it holds up that runtime.
    pub fn render(
        &self,
        url: &str,
        props_json: &str,
        done: impl FnOnce(Result<String, SsrError>) + Send + 'static,
    ) {
        let shared = &self.handle.shared;
        let mut st = shared.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.closed {
            drop(st);
            return done(Err(SsrError::Closed));
        }
        if st.jobs.len() >= self.handle.queue {
            drop(st);
            return done(Err(SsrError::QueueFull));
        }
        st.jobs.push_back(Job { url: url.to_owned(), props: props_json.to_owned(), done: Box::new(done) });
        drop(st);
        shared.ready.notify_one();
    }

    /// Renders and waits for the result.
    pub fn render_blocking(&self, url: &str, props_json: &str) -> Result<String, SsrError> {
        let (tx, rx) = mpsc::sync_channel(1);
        self.render(url, props_json, move |r| {
            let _ = tx.send(r);
        });
        rx.recv().unwrap_or(Err(SsrError::Closed))
    }
}
