//! `ZZ_TRACE=FILE`: a timeline of what holds the writer, for finding where a latency tail comes from (issue 57).
//!
//! Off unless the variable is set at start; then every durable or lazy batch the writer commits (its operations'
//! time and its commit's, the log's append, sync and redb's commit), every sync of the write-ahead log, every
//! checkpoint's hold on the writer, every run of pages (or length change: 0 bytes) and sync the write-behind applies
//! to the data file, and every search index commit are written to FILE (readable by its owner only), one line each:
//! `kind start_µs duration_µs [details] @thread` (start in microseconds since the Unix epoch; the logs' store
//! writes its own with its threads' names). `bench load` with `BENCH_TIMELINE` records requests on the same
//! clock, and `bench/trace.py` lays the two side by side. Off, each point costs one check of a `OnceLock` (no clock
//! is read).
use std::io::Write;
use std::sync::{Mutex, OnceLock};

fn sink() -> Option<&'static Mutex<std::io::LineWriter<std::fs::File>>> {
    static SINK: OnceLock<Option<Mutex<std::io::LineWriter<std::fs::File>>>> = OnceLock::new();
    SINK.get_or_init(|| {
        let path = std::env::var_os("ZZ_TRACE")?;
        let mut open = std::fs::OpenOptions::new();
        open.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
        open.open(path).ok().map(|f| Mutex::new(std::io::LineWriter::new(f)))
    })
    .as_ref()
}

/// Microseconds since the Unix epoch (the clock `bench load`'s timeline uses too).
fn now_us() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_micros() as u64).unwrap_or(0)
}

/// The start of an event: now, while the timeline is written; None otherwise.
pub fn start() -> Option<u64> {
    sink().map(|_| now_us())
}

/// Microseconds since `start` (0 when the timeline is not written).
pub fn elapsed(start: Option<u64>) -> u64 {
    start.map_or(0, |s| now_us().saturating_sub(s))
}

/// Records an event of `kind` that began at `start` and ends now (nothing when `start` is None); `details` is asked
/// only then.
pub fn event(kind: &str, start: Option<u64>, details: impl FnOnce() -> String) {
    if let (Some(start), Some(s)) = (start, sink()) {
        let end = now_us();
        let line = format!("{kind} {start} {} {} @{}\n", end.saturating_sub(start), details(), std::thread::current().name().unwrap_or("-"));
        if let Ok(mut w) = s.lock() {
            let _ = w.write_all(line.as_bytes());
        }
    }
}
