//! The search index follower: keeps `DIR/index/` (the `search` crate) in step with the store's change log, and
//! turns a list's text filters and keyword into index candidates (`store::Hint`).
//!
//! The index is a cache. On open it is rebuilt from one store snapshot when it is missing, damaged, of another
//! schema or declaration layout, interrupted mid-rebuild, ahead of the store (a restored file) or behind what the
//! log still holds; then one thread follows the log: each batch of changes becomes one index commit tagged with
//! the last sequence number it holds. Lists use the index only while it is current (not rebuilding); a hint is
//! exact for the records unchanged since its sequence number and the store tests the rest, so a lagging index
//! costs time, never a wrong row.
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use store::{Hint, Op, Predicate, Query, ResourceDef, Store};

use crate::decl::Resources;

/// The index directory inside the data directory.
pub const INDEX_DIR: &str = "index";
/// Changes read and committed to the index at most at once while following.
const BATCH: usize = 5_000;
/// Shortest time between the starts of two index commits while following. A change after a quiet spell is
/// committed at once; under a stream of writes the changes of this long go in one commit. Each commit syncs its
/// files and adds a segment for the merges to fold: committing as often as changes came (every few milliseconds
/// under load) took ~250 index syncs a second beside the write-ahead log's and the cores from the requests. With the
/// gap, durable creates at 64 connections ran ~20% faster and a new record became findable after p99 460 ms
/// instead of 275 ms (target 1 s; bench/README.md).
const COMMIT_GAP: Duration = Duration::from_millis(200);

/// `COMMIT_GAP`, or `ZZ_INDEX_GAP_MS` (50–5,000) for measuring another gap (bench/README.md: a longer one lowers a
/// lone create's p99 but makes a new record findable later than a second under load).
fn commit_gap() -> Duration {
    static GAP: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *GAP.get_or_init(|| {
        std::env::var("ZZ_INDEX_GAP_MS").ok().and_then(|v| v.parse::<u64>().ok()).filter(|ms| (50..=5_000).contains(ms)).map(Duration::from_millis).unwrap_or(COMMIT_GAP)
    })
}
/// Documents per commit during a rebuild.
const REBUILD_BATCH: usize = 10_000;
/// How long the log keeps changes the index already holds: a list that read the index's sequence number
/// before a commit still finds the changes after it in the log for this long.
const PRUNE_AFTER: Duration = Duration::from_secs(30);
/// Pruning commits at most per wake-up of an idle follower (each removes a few thousand entries of the log).
const PRUNE_BURST: usize = 64;
/// A list keyword ranks its matches when there are at most this many (else they keep the list's order).
const RANK_MAX: usize = 10_000;

/// The data directory's index directory for a data file.
pub fn index_dir(data_file: &Path) -> PathBuf {
    data_file.parent().unwrap_or(Path::new(".")).join(INDEX_DIR)
}

/// What the index holds, as a string: each searchable resource with its searched and pinyin fields. An index
/// written under another layout is rebuilt.
pub fn layout(res: &Resources) -> String {
    let mut parts = Vec::new();
    for def in res.all() {
        if !def.searchable() {
            continue;
        }
        let fields: Vec<String> = def.search_fields().map(|f| if f.pinyin { format!("{}+py", f.name) } else { f.name.clone() }).collect();
        parts.push(format!("{}{}:{}", def.name, if def.platform { "@platform" } else { "" }, fields.join(",")));
    }
    parts.join(";")
}

/// A field's value as text, the way a `contains` filter reads it.
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// The names of the fields a resource's index documents hold: all a document is made from (`get_fields`).
fn searched_names(def: &ResourceDef) -> Vec<&str> {
    def.search_fields().map(|f| f.name.as_str()).collect()
}

/// The index document of record `id` (stored under `tenant`, the storage tenant); `rec` needs only the searched
/// fields.
pub fn doc_of(def: &ResourceDef, tenant: &str, id: u64, rec: &Map<String, Value>) -> search::Doc {
    let mut fields = Vec::new();
    let mut names = Vec::new();
    for f in def.search_fields() {
        if let Some(t) = rec.get(&f.name).and_then(text_of) {
            if f.pinyin {
                names.push(t.clone());
            }
            fields.push((f.name.clone(), t));
        }
    }
    // The title: a name (a pinyin field, else a field called *name or *title), else the first searched field.
    let named = fields.iter().find(|(f, _)| {
        let f = f.to_ascii_lowercase();
        f.ends_with("name") || f.ends_with("title")
    });
    let title = names.first().or(named.map(|(_, v)| v)).or(fields.first().map(|(_, v)| v)).cloned().unwrap_or_default();
    search::Doc { tenant: tenant.to_string(), resource: def.name.clone(), id, title, fields, names }
}

/// The record test of a list keyword: every part of it is a fragment of a searched field or one of the
/// record's words (pinyin of names included), exactly what the index answers (`search::text::matches`).
pub fn keyword_check(def: &ResourceDef, keyword: &str) -> Predicate {
    let fields: Vec<(String, bool)> = def.fields.iter().filter(|f| f.searched()).map(|f| (f.name.clone(), f.pinyin)).collect();
    let q = keyword.to_string();
    let test = Arc::new(move |rec: &Map<String, Value>| {
        let texts: Vec<String> = fields.iter().filter_map(|(n, _)| rec.get(n).and_then(text_of)).collect();
        let names: Vec<String> = fields.iter().filter(|(_, py)| *py).filter_map(|(n, _)| rec.get(n).and_then(text_of)).collect();
        let t: Vec<&str> = texts.iter().map(String::as_str).collect();
        let n: Vec<&str> = names.iter().map(String::as_str).collect();
        search::text::matches(&t, &n, &q)
    });
    Predicate { test, keyword: Some(keyword.to_string()) }
}

/// Whether the index can answer part of a list query: a `contains` filter on a searched field (or an ends-with
/// one, whose candidates are the contains answer) or the keyword, on a resource the index holds.
pub fn asks(def: &ResourceDef, q: &Query) -> bool {
    def.searchable()
        && (q.check.as_ref().is_some_and(|c| c.keyword.is_some())
            || q.filters.iter().any(|f| matches!(f.op, Op::Contains | Op::EndsWith) && def.field(&f.field).is_some_and(|fd| fd.searched())))
}

/// Figures of the follower for the status screen and `verify`.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexStatus {
    pub ready: bool,
    pub seq: u64,
    pub store_seq: u64,
    /// The store's change log holds the changes after this one.
    pub log_pruned: u64,
    pub docs: u64,
    pub disk_bytes: u64,
    pub rebuilds: u64,
    pub last_rebuild_ms: u64,
    /// Commits since start (rebuilds and following).
    pub commits: u64,
    /// The fields whose fragments are held in memory for `contains` filters (see `search::Index::fragments`).
    pub fragments: search::FragmentFigures,
}

/// Memory the fragments of fields asked about may take: a thirty-second of the machine, 32–256 MiB.
pub fn fragment_budget(ram_bytes: u64) -> usize {
    (ram_bytes / 32).clamp(32 << 20, 256 << 20) as usize
}

pub struct Indexer {
    index: search::Index,
    store: Store,
    res: Resources,
    layout: std::sync::Mutex<String>,
    /// The index holds a complete picture (no rebuild running): lists may use it.
    ready: AtomicBool,
    /// Needs a rebuild before it can follow (set on open, on a gap, on a layout change).
    stale: AtomicBool,
    stop: AtomicBool,
    rebuilds: AtomicU64,
    last_rebuild_ms: AtomicU64,
    /// `PRUNE_AFTER` in milliseconds (`set_prune_after`).
    prune_after_ms: AtomicU64,
}

impl Indexer {
    /// Opens the index beside the data file. Fails when the directory cannot be used (another process holds
    /// it, a disk error): the server then serves lists by walking, as before.
    pub fn open(store: &Store, res: &Resources) -> anyhow::Result<Arc<Indexer>> {
        let dir = index_dir(store.path());
        let lay = layout(res);
        let (index, opened) = search::Index::open(&dir, &lay)?;
        index.set_fragment_budget(fragment_budget(store::machine_ram().unwrap_or(1 << 30)));
        let current = match opened {
            search::Opened::Current(seq) => {
                // Ahead of the store (a restored file) or behind what the log still holds: rebuilt.
                let reach = store.read(|r| r.changes_reach(seq))?;
                seq <= store.change_seq() && reach
            }
            search::Opened::Fresh => false,
        };
        Ok(Arc::new(Indexer {
            index,
            store: store.clone(),
            res: res.clone(),
            layout: std::sync::Mutex::new(lay),
            ready: AtomicBool::new(false),
            stale: AtomicBool::new(!current),
            stop: AtomicBool::new(false),
            rebuilds: AtomicU64::new(0),
            last_rebuild_ms: AtomicU64::new(0),
            prune_after_ms: AtomicU64::new(PRUNE_AFTER.as_millis() as u64),
        }))
    }

    /// Starts the follower thread: rebuild when needed, then follow the log until `stop`.
    pub fn start(self: &Arc<Self>) {
        let me = self.clone();
        let spawned = std::thread::Builder::new().name("zz-indexer".into()).spawn(move || me.run());
        if let Err(e) = spawned {
            tracing::error!(target: "zz::search", error = %e, "indexer thread not started: lists walk");
        }
    }

    /// How long the store's change log keeps what the index holds (`PRUNE_AFTER`; tests shorten it).
    pub fn set_prune_after(&self, after: Duration) {
        self.prune_after_ms.store(after.as_millis() as u64, Ordering::Relaxed);
    }

    /// Asks the follower to stop (at the end of its current batch).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    pub fn index(&self) -> &search::Index {
        &self.index
    }

    pub fn status(&self) -> IndexStatus {
        IndexStatus {
            ready: self.is_ready(),
            seq: self.index.seq(),
            store_seq: self.store.change_seq(),
            log_pruned: self.store.changes_pruned(),
            docs: self.index.len(),
            disk_bytes: self.index.disk_bytes(),
            rebuilds: self.rebuilds.load(Ordering::Relaxed),
            last_rebuild_ms: self.last_rebuild_ms.load(Ordering::Relaxed),
            commits: self.index.commits(),
            fragments: self.index.fragments(),
        }
    }

    /// Waits until the index holds every change committed before the call (tests, `reindex`). False on timeout.
    pub fn wait_caught_up(&self, timeout: Duration) -> bool {
        let target = self.store.change_seq();
        let until = Instant::now() + timeout;
        while Instant::now() < until {
            if self.is_ready() && self.index.seq() >= target {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    fn run(self: Arc<Self>) {
        yield_to_requests(&self.index);
        let mut at = self.index.seq();
        // Lists use the index once it holds what the store held at start (changes written while no server
        // followed, e.g. by an older binary, are caught up first; meanwhile lists walk).
        let mut start_target = self.store.change_seq();
        // Sequence numbers committed, with when: the log is pruned up to those older than PRUNE_AFTER.
        let mut done: VecDeque<(Instant, u64)> = VecDeque::new();
        let mut failures = 0u32;
        // When the last batch of changes began (see `follow`).
        let mut begun: Option<Instant> = None;
        let mut cores = Cores::default();
        while !self.stop.load(Ordering::Relaxed) {
            let lay = layout(&self.res);
            let changed_layout = self.layout.lock().map(|l| *l != lay).unwrap_or(false);
            if changed_layout || self.stale.load(Ordering::Relaxed) {
                self.ready.store(false, Ordering::Release);
                match self.rebuild(&lay) {
                    Ok(seq) => {
                        at = seq;
                        start_target = 0;
                        if let Ok(mut l) = self.layout.lock() {
                            *l = lay;
                        }
                        self.stale.store(false, Ordering::Relaxed);
                        self.ready.store(true, Ordering::Release);
                        done.push_back((Instant::now(), seq));
                        failures = 0;
                    }
                    Err(e) => {
                        failures += 1;
                        tracing::error!(target: "zz::search", error = %e, "search index rebuild failed; lists walk meanwhile");
                        std::thread::sleep(Duration::from_secs(failures.min(30) as u64));
                    }
                }
                continue;
            }
            if at >= start_target {
                self.ready.store(true, Ordering::Release);
            }
            let mut idle = false;
            match self.follow(at, &mut begun, &mut cores) {
                Ok(Some(seq)) => {
                    idle = seq == at;
                    if seq > at {
                        at = seq;
                        done.push_back((Instant::now(), seq));
                    }
                    failures = 0;
                }
                Ok(None) => {
                    tracing::warn!(target: "zz::search", at, "the change log no longer holds what the index needs: rebuilding");
                    self.stale.store(true, Ordering::Relaxed);
                }
                Err(e) => {
                    failures += 1;
                    tracing::error!(target: "zz::search", error = %e, "search index update failed; retrying");
                    std::thread::sleep(Duration::from_millis(100 * failures.min(50) as u64));
                }
            }
            let keep = Duration::from_millis(self.prune_after_ms.load(Ordering::Relaxed));
            while done.front().is_some_and(|(t, _)| t.elapsed() >= keep) {
                if let Some((_, seq)) = done.pop_front() {
                    self.store.set_indexed(seq);
                }
            }
            // Writes prune the log as they commit; a quiet server prunes it itself, a few commits per wake-up.
            if idle {
                self.prune_idle();
            }
        }
    }

    /// Prunes what the index holds from the store's change log while no changes come (see `Store::prune_changes`):
    /// at most `PRUNE_BURST` lazy commits, each committed alone, so that a write arriving meanwhile waits for one.
    fn prune_idle(&self) {
        for _ in 0..PRUNE_BURST {
            match self.store.prune_changes() {
                Ok(true) if !self.stop.load(Ordering::Relaxed) => {}
                Ok(_) => return,
                Err(e) => {
                    tracing::debug!(target: "zz::search", error = %e, "pruning the change log put off");
                    return;
                }
            }
        }
    }

    /// Waits for changes after `at` and applies one batch of them, no sooner than `COMMIT_GAP` after the last batch
    /// began (`begun`, set here). `Ok(None)`: the log no longer reaches back to `at` (pruned, or the store went
    /// back: a restore) and the index must be rebuilt.
    fn follow(&self, at: u64, begun: &mut Option<Instant>, cores: &mut Cores) -> anyhow::Result<Option<u64>> {
        let now = self.store.wait_changes(at, Duration::from_millis(500));
        if now <= at {
            return Ok(Some(at));
        }
        // Counted from the last batch's start, not its end: a batch that takes longer than the gap is followed at
        // once, so the index never falls further behind than it did committing every batch at once.
        if let Some(gap) = begun.map(|t| commit_gap().saturating_sub(t.elapsed())).filter(|g| !g.is_zero()) {
            std::thread::sleep(gap);
        }
        *begun = Some(Instant::now());
        // While the cores have time to spare, the core is given up every few records: a request's thread woken
        // meanwhile runs at once rather than after this thread's time slice. Not on saturated cores: there each
        // yield waits behind every other thread, and a batch took seconds.
        let yielding = cores.spare(self.store.writer_saturated());
        let res = self.res.clone();
        let batch = self.store.read(|r| {
            if !r.changes_reach(at)? {
                return Ok(None);
            }
            let changes = r.changes_after(at, BATCH)?;
            let Some(last) = changes.last().map(|c| c.seq) else { return Ok(Some((Vec::new(), Vec::new(), at))) };
            let mut seen = std::collections::HashSet::new();
            let (mut upserts, mut deletes) = (Vec::new(), Vec::new());
            // Newest first, so each record is read once and as it is now.
            for (n, c) in changes.iter().rev().enumerate() {
                if yielding && n % YIELD_EVERY == YIELD_EVERY - 1 {
                    std::thread::yield_now();
                }
                if !seen.insert((c.tenant.as_str(), c.resource.as_str(), c.id)) {
                    continue;
                }
                // Only the searched fields are read (the document holds nothing else): the rest of the record is
                // never decoded.
                let live = match res.find(&c.resource) {
                    Some(def) if def.searchable() => r.get_fields(&def, &c.tenant, c.id, &searched_names(&def))?.map(|rec| doc_of(&def, &c.tenant, c.id, &rec)),
                    _ => None,
                };
                match live {
                    Some(doc) => upserts.push(doc),
                    None => deletes.push(search::Key { tenant: c.tenant.clone(), resource: c.resource.clone(), id: c.id }),
                }
            }
            Ok(Some((upserts, deletes, last)))
        })?;
        let Some((upserts, deletes, last)) = batch else { return Ok(None) };
        if last > at {
            let t = store::trace::start();
            self.index.apply(&upserts, &deletes, last)?;
            store::trace::event("index", t, || format!("{} {}", upserts.len(), deletes.len()));
        }
        Ok(Some(last))
    }

    /// Rebuilds the index now on the calling thread (`zhizhuang reindex`); returns the documents indexed.
    pub fn rebuild_now(&self) -> anyhow::Result<u64> {
        let lay = layout(&self.res);
        self.rebuild(&lay)?;
        self.stale.store(false, Ordering::Relaxed);
        self.ready.store(true, Ordering::Release);
        Ok(self.index.len())
    }

    /// Empties the index and fills it from one store snapshot; returns the sequence number it then holds.
    fn rebuild(&self, lay: &str) -> anyhow::Result<u64> {
        let started = Instant::now();
        // Both cores index during a rebuild (documents are made on this thread meanwhile); one afterwards.
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).clamp(1, 4);
        self.index.set_threads(threads)?;
        let r = self.rebuild_with(lay, started);
        self.index.set_threads(1)?;
        r
    }

    fn rebuild_with(&self, lay: &str, started: Instant) -> anyhow::Result<u64> {
        self.index.clear()?;
        let defs: Vec<Arc<ResourceDef>> = self.res.all().into_iter().filter(|d| d.searchable()).collect();
        let mut docs: Vec<search::Doc> = Vec::with_capacity(REBUILD_BATCH);
        let mut total = 0u64;
        let seq = self.store.read(|r| {
            let seq = r.change_seq()?;
            for def in &defs {
                let names = searched_names(def);
                for t in r.tenants_of(def)? {
                    r.for_each_fields(def, &t, &names, |id, rec| {
                        docs.push(doc_of(def, &t, id, &rec));
                        if docs.len() >= REBUILD_BATCH {
                            total += docs.len() as u64;
                            self.index.apply_partial(&docs).map_err(|e| store::StoreError::Storage(e.to_string()))?;
                            docs.clear();
                        }
                        Ok(())
                    })?;
                }
            }
            Ok(seq)
        })?;
        total += docs.len() as u64;
        self.index.finish_rebuild(&docs, seq)?;
        let ms = started.elapsed().as_millis() as u64;
        self.rebuilds.fetch_add(1, Ordering::Relaxed);
        self.last_rebuild_ms.store(ms, Ordering::Relaxed);
        tracing::info!(target: "zz::search", docs = total, ms, seq, layout_bytes = lay.len(), "search index rebuilt");
        Ok(seq)
    }

    /// Candidates for a list: the `contains` filters on searched fields and the keyword check become a hint
    /// (see `store::Hint`), when the index is current. Leaves the query as it is otherwise.
    pub fn hint(&self, def: &ResourceDef, tenant: &str, q: &mut Query) -> anyhow::Result<()> {
        if !self.is_ready() || !asks(def, q) || q.hint.is_some() {
            return Ok(());
        }
        let t = store::storage_tenant(def, tenant);
        // Read before searching: the search then sees at least the changes up to it.
        let seq = self.index.seq();
        let through = self.keyword_through(def, tenant, q)?;
        let mut ids: Option<Vec<u64>> = None;
        let mut answers = Vec::new();
        for (i, f) in q.filters.iter().enumerate() {
            // A text that ends with the needle (`_likeleft`) contains it: its candidates are the contains answer,
            // each then tested.
            if !matches!(f.op, Op::Contains | Op::EndsWith) || !def.field(&f.field).is_some_and(|fd| fd.searched()) {
                continue;
            }
            let Some(needle) = f.value.as_str() else { continue };
            let Some(found) = self.index.contains(t, &def.name, &f.field, needle)? else { continue };
            if f.op == Op::Contains {
                answers.push(i);
            }
            ids = Some(match ids {
                None => found,
                Some(prev) => prev.into_iter().filter(|id| found.binary_search(id).is_ok()).collect(),
            });
        }
        let mut ranked = false;
        let mut check = false;
        if let Some(found) = through {
            check = true;
            ids = Some(match ids {
                None => found,
                Some(prev) => found.into_iter().filter(|id| prev.binary_search(id).is_ok()).collect(),
            });
        } else if let Some(kw) = q.check.as_ref().and_then(|c| c.keyword.clone())
            && let Some((found, is_ranked)) = self.index.keyword_ids(t, &def.name, &kw, RANK_MAX)? {
            check = true;
            ranked = is_ranked;
            ids = Some(match ids {
                None => found,
                Some(prev) => found.into_iter().filter(|id| prev.binary_search(id).is_ok()).collect(),
            });
        }
        if let Some(ids) = ids {
            q.hint = Some(Hint { seq, ids, ranked, answers, check });
        }
        Ok(())
    }

    /// A keyword that finds records of another resource (goods by name, code or spec) also finds the records
    /// naming one of them through a `keywordThrough` field (stock rows of those goods). The keyword's test then
    /// takes either, word by word. Returns the candidates that answer it (ascending): for each word the records
    /// whose own text holds it (the index) and those naming a record found by it (that field's index in the
    /// store), intersected over the words. None when no word finds another resource's records (the query is left
    /// as it is) or when the candidates cannot be read so (the query then walks, each record tested).
    fn keyword_through(&self, def: &ResourceDef, tenant: &str, q: &mut Query) -> anyhow::Result<Option<Vec<u64>>> {
        let Some(kw) = q.check.as_ref().and_then(|c| c.keyword.clone()) else { return Ok(None) };
        type Found = Vec<(String, std::collections::HashSet<u64>)>;
        // Word by word: each word is found in the record's own text or in the record it names (边龙骨 QC261027: a
        // goods and a batch; the whole keyword had to be found on one side).
        let mut words: Vec<(&str, Predicate, Found)> = Vec::new();
        let mut any = false;
        for word in kw.split_whitespace() {
            let mut through: Found = Vec::new();
            for f in def.fields.iter().filter(|f| f.keyword_through) {
                let Some(target) = f.refers.as_deref() else { continue };
                let tdef = self.res.get(target);
                if !tdef.searchable() {
                    continue;
                }
                if let Some((found, _)) = self.index.keyword_ids(store::storage_tenant(&tdef, tenant), &tdef.name, word, RANK_MAX)?
                    && !found.is_empty() {
                    through.push((f.name.clone(), found.into_iter().collect()));
                }
            }
            any |= !through.is_empty();
            words.push((word, keyword_check(def, word), through));
        }
        if !any {
            return Ok(None);
        }
        let candidates = self.through_candidates(def, tenant, &words)?;
        let words: Vec<(Predicate, Found)> = words.into_iter().map(|(_, own, through)| (own, through)).collect();
        let test = move |rec: &Map<String, Value>| {
            words.iter().all(|(own, through)| {
                (own.test)(rec) || through.iter().any(|(f, ids)| rec.get(f).and_then(store::parse_id_value).is_some_and(|id| ids.contains(&id)))
            })
        };
        q.check = Some(Predicate { test: Arc::new(test), keyword: None });
        Ok(candidates)
    }

    /// The records a `keyword_through` test accepts, from the indexes: None when a word's own matches cannot be
    /// read from the search index or the records naming what it found from the store's (too many found to look
    /// up one by one: `THROUGH_MAX`).
    fn through_candidates(&self, def: &ResourceDef, tenant: &str, words: &[(&str, Predicate, Vec<(String, std::collections::HashSet<u64>)>)]) -> anyhow::Result<Option<Vec<u64>>> {
        let t = store::storage_tenant(def, tenant);
        let mut all: Option<Vec<u64>> = None;
        for (word, _, through) in words {
            let Some((mut ids, _)) = self.index.keyword_ids(t, &def.name, word, 0)? else { return Ok(None) };
            for (field, found) in through {
                if found.len() > THROUGH_MAX {
                    return Ok(None);
                }
                let values: Vec<Value> = found.iter().map(|&id| Value::from(id)).collect();
                let Some(naming) = self.store.read(|r| r.ids_with(def, tenant, field, values))? else { return Ok(None) };
                ids.extend(naming);
            }
            ids.sort_unstable();
            ids.dedup();
            all = Some(match all {
                None => ids,
                Some(prev) => prev.into_iter().filter(|id| ids.binary_search(id).is_ok()).collect(),
            });
        }
        Ok(all)
    }
}

/// Records of another resource a `keywordThrough` word may find and still be looked up one by one in the store's
/// index (one range each); beyond, the list walks.
const THROUGH_MAX: usize = 5_000;

/// Records the follower reads between two yields of its core (~10 µs each) while the cores have time to spare.
const YIELD_EVERY: usize = 8;
/// The share of the machine's CPU time that must have been idle since the last look for the follower to yield
/// (creates at 64 connections leave 0–3%, at half their capacity 12–17%, on two cores).
const SPARE_MIN: f64 = 0.06;
/// After the cores were short of time or the store's writer saturated, how long the follower does not yield.
const BUSY_HOLD: Duration = Duration::from_secs(3);

/// Whether the cores have time to spare, from `/proc/stat` and the store's writer.
#[derive(Default)]
struct Cores {
    /// The machine's CPU times at the last look (idle and waiting, all), in ticks.
    last: Option<(Instant, u64, u64)>,
    busy_until: Option<Instant>,
}

impl Cores {
    /// True when the share of CPU time left idle since the last look (at most every 100 ms) reached `SPARE_MIN`,
    /// the writer is not saturated, and neither was short in the last `BUSY_HOLD`. Without `/proc/stat`, the
    /// writer alone decides.
    fn spare(&mut self, saturated: bool) -> bool {
        let now = Instant::now();
        let mut short = saturated;
        if self.last.is_none_or(|(t, _, _)| t.elapsed() >= Duration::from_millis(100))
            && let Some((idle, total)) = std::fs::read_to_string("/proc/stat").ok().and_then(|s| cpu_times(&s))
        {
            if let Some((_, idle0, total0)) = self.last
                && total > total0
            {
                short |= (idle.saturating_sub(idle0) as f64) < SPARE_MIN * (total - total0) as f64;
            }
            self.last = Some((now, idle, total));
        }
        if short {
            self.busy_until = Some(now + BUSY_HOLD);
        }
        self.busy_until.is_none_or(|t| now >= t)
    }
}

/// Idle and total CPU time (in ticks) from the `cpu` line of `/proc/stat`.
fn cpu_times(stat: &str) -> Option<(u64, u64)> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line.split_whitespace().skip(1).take(8).map(|x| x.parse().ok()).collect::<Option<_>>()?;
    (v.len() == 8).then(|| (v[3] + v[4], v.iter().sum()))
}

/// Scheduling priority of the search index's threads (nice 10): the index is a cache of the store, so under load
/// its work — following the log, tantivy's commits and merges — takes the cores requests leave, not theirs. On two
/// cores a merge beside lone creates made their p99 3.4 ms against 1.6 ms without the index (bench/README.md).
const SEARCH_NICE: i32 = 10;

/// Lowers this thread's priority (Linux: per thread) and makes tantivy's writer again from here, so that its
/// threads (indexing, segment updates, merges), which inherit their creator's priority, yield too.
fn yield_to_requests(index: &search::Index) {
    if let Err(e) = store::set_thread_nice(SEARCH_NICE) {
        tracing::debug!(target: "zz::search", error = %e, "search index threads keep the normal priority");
        return;
    }
    if let Err(e) = index.set_threads(1) {
        tracing::warn!(target: "zz::search", error = %e, "search index writer not made again");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_times_reads_idle_and_iowait_of_all_cores() {
        let stat = "cpu  100 5 50 800 40 1 2 2 0 0\ncpu0 50 2 25 400 20 0 1 1 0 0\nintr 1\n";
        assert_eq!(cpu_times(stat), Some((840, 1000)));
        assert_eq!(cpu_times("intr 1\n"), None);
        #[cfg(target_os = "linux")]
        assert!(cpu_times(&std::fs::read_to_string("/proc/stat").unwrap()).is_some_and(|(i, t)| i <= t && t > 0));
    }

    #[test]
    fn the_follower_does_not_yield_on_busy_cores_or_beside_a_saturated_writer_for_a_while() {
        let mut c = Cores::default();
        assert!(c.spare(false), "nothing known yet: spare");
        assert!(!c.spare(true));
        assert!(!c.spare(false), "held for BUSY_HOLD after the writer was saturated");
        let mut c = Cores { last: Some((Instant::now() - Duration::from_secs(1), u64::MAX / 2, 0)), busy_until: None };
        // Idle time went backwards (not a real machine): counted as short of time.
        assert!(!c.spare(false));
        assert!(c.busy_until.is_some_and(|t| t > Instant::now() + BUSY_HOLD / 2));
    }
}
