//! One runtime thread: loads the bundle into its own QuickJS runtime, then serves jobs from
//! the shared queue until the pool closes.
//!
//! Invariant: a runtime that timed out or ran out of memory is thrown away and rebuilt before
//! the next job, because an uncatchable interrupt skips the bundle's `finally` blocks and may
//! leave React's module state half-updated. A plain JS exception keeps the runtime.

use crate::{host, Job, PoolConfig, Shared, SsrError};
use rquickjs::{CatchResultExt, CaughtError, Coerced, Context, Ctx, Function, Runtime, Value};
use std::cell::Cell;
use std::rc::Rc;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

/// OS stack of a runtime thread; QuickJS may use `JS_STACK` of it.
pub(crate) const THREAD_STACK: usize = 16 << 20;
const JS_STACK: usize = 12 << 20;
/// Budget for evaluating the bundle (it is larger than a render's).
const INIT_TIMEOUT: Duration = Duration::from_secs(30);
/// Rounds of "run microtasks, then macrotasks" after a render before giving up on quiescence.
const DRAIN_ROUNDS: usize = 32;

struct Engine {
    // Field order matters: the context must drop before its runtime.
    ctx: Context,
    rt: Runtime,
    deadline: Rc<Cell<Option<Instant>>>,
    fired: Rc<Cell<bool>>,
}

pub(crate) fn run(bundle: &str, cfg: &PoolConfig, shared: &Shared, init: Sender<Result<(), SsrError>>) {
    let mut engine = match Engine::load(bundle, cfg) {
        Ok(e) => {
            let _ = init.send(Ok(()));
            Some(e)
        }
        Err(e) => {
            let _ = init.send(Err(e));
            return;
        }
    };
    drop(init);
    while let Some(Job { url, props, done }) = shared.next() {
        if engine.is_none() {
            engine = Engine::load(bundle, cfg)
                .map_err(|e| eprintln!("[ssr] runtime reload failed: {e}"))
                .ok();
        }
        let (result, keep) = match &engine {
            Some(e) => e.render(&url, &props, cfg.timeout),
            None => (Err(SsrError::Init("runtime unavailable".into())), false),
        };
        if !keep {
            engine = None; // rebuilt lazily before the next job
        }
        // A panicking callback must not take the runtime thread down with it.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || done(result)));
    }
}

impl Engine {
    fn load(bundle: &str, cfg: &PoolConfig) -> Result<Engine, SsrError> {
        let init = |e: rquickjs::Error| SsrError::Init(e.to_string());
        let rt = Runtime::new().map_err(init)?;
        if cfg.memory_limit > 0 {
            rt.set_memory_limit(cfg.memory_limit);
        }
        rt.set_max_stack_size(JS_STACK);
        let deadline: Rc<Cell<Option<Instant>>> = Rc::new(Cell::new(None));
        let fired = Rc::new(Cell::new(false));
        {
            let (deadline, fired) = (deadline.clone(), fired.clone());
            rt.set_interrupt_handler(Some(Box::new(move || {
                let late = deadline.get().is_some_and(|d| Instant::now() >= d);
                if late {
                    fired.set(true);
                }
                late
            })));
        }
        let ctx = Context::full(&rt).map_err(init)?;
        let engine = Engine { ctx, rt, deadline, fired };
        engine.deadline.set(Some(Instant::now() + INIT_TIMEOUT));
        let loaded = engine.ctx.with(|ctx| -> Result<(), SsrError> {
            host::install(&ctx, Instant::now()).map_err(init)?;
            ctx.eval::<(), _>(bundle).catch(&ctx).map_err(|e| SsrError::Init(describe(&ctx, e)))?;
            let render: Value = ctx.globals().get("render").map_err(init)?;
            if !render.is_function() {
                return Err(SsrError::Init("the bundle defines no global function `render`".into()));
            }
            Ok(())
        });
        engine.drain();
        engine.deadline.set(None);
        if engine.fired.get() {
            return Err(SsrError::Init("evaluating the bundle timed out".into()));
        }
        loaded.map(|()| engine)
    }

    /// Runs one render; the bool says whether this runtime may serve the next job.
    fn render(&self, url: &str, props: &str, timeout: Duration) -> (Result<String, SsrError>, bool) {
        self.fired.set(false);
        self.deadline.set(Some(Instant::now() + timeout));
        let result = self.ctx.with(|ctx| -> Result<String, SsrError> {
            let f: Function = ctx.globals().get("render").map_err(|e| SsrError::Js(e.to_string()))?;
            let out: Value = f.call((url, props)).catch(&ctx).map_err(|e| SsrError::Js(describe(&ctx, e)))?;
            match out.as_string() {
                Some(s) => s.to_string().map_err(|e| SsrError::Js(e.to_string())),
                None => Err(SsrError::Js(format!("render returned {}, not a string", out.type_name()))),
            }
        });
        // Effects the render queued (microtasks, timers) run now, inside the same budget.
        self.drain();
        self.deadline.set(None);
        if self.fired.get() {
            // Interrupted during the render itself: its output is lost. During the drain only:
            // the HTML is complete, but the runtime is still rebuilt.
            return (if result.is_ok() { result } else { Err(SsrError::Timeout) }, false);
        }
        let keep = match &result {
            Err(SsrError::Js(m)) => !m.contains("out of memory"),
            _ => true,
        };
        (result, keep)
    }

    /// Runs pending jobs and the bundle's `__zz_drain` (macrotasks) until both are idle.
    fn drain(&self) {
        for _ in 0..DRAIN_ROUNDS {
            while self.rt.is_job_pending() {
                if self.fired.get() {
                    return;
                }
                if let Err(e) = self.rt.execute_pending_job() {
                    let msg = e.0.with(|ctx| describe(&ctx, CaughtError::from_error(&ctx, rquickjs::Error::Exception)));
                    eprintln!("[ssr] error in a queued job: {msg}");
                }
            }
            if self.fired.get() {
                return;
            }
            let more = self.ctx.with(|ctx| {
                let Ok(f) = ctx.globals().get::<_, Function>("__zz_drain") else { return false };
                match f.call::<_, Value>(()).catch(&ctx) {
                    Ok(v) => v.as_bool().unwrap_or(false),
                    Err(e) => {
                        eprintln!("[ssr] error in a macrotask: {}", describe(&ctx, e));
                        false
                    }
                }
            });
            if !more && !self.rt.is_job_pending() {
                return;
            }
        }
    }
}

/// Message and stack of a caught JS error, for logs and `SsrError::Js`.
fn describe<'js>(ctx: &Ctx<'js>, e: CaughtError<'js>) -> String {
    match e {
        CaughtError::Value(v) => match v.get::<Coerced<String>>() {
            Ok(s) => format!("uncaught {}", s.0),
            Err(_) => format!("uncaught {}", v.type_name()),
        },
        CaughtError::Exception(ex) => {
            let msg = ex.message().unwrap_or_default();
            match ex.stack() {
                Some(st) if !st.is_empty() => format!("{msg}\n{st}"),
                _ => msg,
            }
        }
        CaughtError::Error(err) => {
            let _ = ctx;
            err.to_string()
        }
    }
}
