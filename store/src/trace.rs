//! `ZZ_TRACE=FILE`: a timeline of what holds the writer, for finding where a latency tail comes from (issue 57).
//!
//! Off unless the variable is set at start; then every durable or lazy batch the writer commits (its operations'
//! time and its commit's, the log's append, sync and redb's commit), every sync of the write-ahead log, every
//! checkpoint's hold on the writer, every run of pages, length change and sync the write-behind applies to the data
//! file, and every search index commit are written to FILE, one line each:
//! `kind start_µs duration_µs [details] @thread` (start in microseconds since the Unix epoch; the logs' store
//! writes its own with its threads' names). `bench load` with `BENCH_TIMELINE` records requests on the same
//! clock, and `bench/trace.py` lays the two side by side. Off, each point costs one check of a `OnceLock`.
use std::io::Write;
use std::sync::{Mutex, OnceLock};

fn sink() -> Option<&'static Mutex<std::io::LineWriter<std::fs::File>>> {
    static SINK: OnceLock<Option<Mutex<std::io::LineWriter<std::fs::File>>>> = OnceLock::new();
    SINK.get_or_init(|| {
        let path = std::env::var_os("ZZ_TRACE")?;
        std::fs::File::create(path).ok().map(|f| Mutex::new(std::io::LineWriter::new(f)))
    })
    .as_ref()
}

/// Whether the timeline is being written.
pub fn on() -> bool {
    sink().is_some()
}

/// Microseconds since the Unix epoch (the clock `bench load`'s timeline uses too).
pub fn now_us() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_micros() as u64).unwrap_or(0)
}

/// Records an event of `kind` that began at `start` (`now_us`) and ends now; `details` is asked only when on.
pub fn event(kind: &str, start: u64, details: impl FnOnce() -> String) {
    if let Some(s) = sink() {
        let end = now_us();
        let line = format!("{kind} {start} {} {} @{}\n", end.saturating_sub(start), details(), std::thread::current().name().unwrap_or("-"));
        if let Ok(mut w) = s.lock() {
            let _ = w.write_all(line.as_bytes());
        }
    }
}
