//! The search index: a cache of the store's searchable text, kept in a tantivy index beside the data file and
//! rebuilt from the store whenever it is missing, damaged or of an older schema. It knows nothing of the store,
//! the app or HTTP: callers hand it documents and the sequence number of the last store change they contain.
//!
//! Every document carries its tenant as an indexed term and every query requires it, so no query crosses tenants.
//! Each commit records the sequence number it brings the index up to (tantivy's commit payload); on open the
//! caller catches up from there.
mod frag;
mod framed;
pub mod text;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::sync::atomic::{AtomicU64, Ordering};

use tantivy::collector::{Collector, Count, DocSetCollector, SegmentCollector, TopDocs};
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query, TermQuery};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Index as TIndex, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

/// Bumped whenever the schema or the way text becomes terms changes: an index of another version is rebuilt.
pub const SCHEMA_VERSION: u32 = 3; // 3: names' initials and spelling by their starts (`xbk`, `wanke`)
const VERSION_FILE: &str = "zz-schema-version";
/// What the caller declared the index to hold (its searchable resources and fields): another layout is rebuilt.
const LAYOUT_FILE: &str = "zz-layout";
/// The payload of the commits of a rebuild before its last: an index found so was interrupted and starts over.
const REBUILDING: &str = "rebuilding";
/// Memory of each indexing thread of a rebuild (tantivy's minimum is 15 MB per thread).
const WRITER_HEAP: usize = 32 << 20;
/// Memory of the one writer that follows the store's changes (batches of at most a few thousand records): what
/// the index keeps while serving.
const FOLLOW_HEAP: usize = 16 << 20;
/// Memory the fragment bitmaps of the fields asked about may take together (see `frag`), unless set otherwise.
pub const FRAGMENT_BUDGET: usize = 256 << 20;

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("search index: {0}")]
    Index(#[from] tantivy::TantivyError),
    #[error("search index directory: {0}")]
    Io(#[from] std::io::Error),
    #[error("search index: {0}")]
    Other(String),
}

pub type Result<T> = std::result::Result<T, SearchError>;

/// One record's searchable content.
#[derive(Debug, Clone, Default)]
pub struct Doc {
    pub tenant: String,
    pub resource: String,
    pub id: u64,
    /// What a hit shows as its title (a name, a code).
    pub title: String,
    /// The searchable fields: (field name, text). Each answers `contains` questions on that field.
    pub fields: Vec<(String, String)>,
    /// Names of people or companies among those texts: also found by pinyin spelling and initials.
    pub names: Vec<String>,
}

/// Identifies a document: tenant, resource, record id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub tenant: String,
    pub resource: String,
    pub id: u64,
}

/// Where a search looks: one tenant's documents of some resources (all of them when empty).
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    pub tenant: &'a str,
    pub resources: &'a [&'a str],
}

/// One hit of a free-text search.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub resource: String,
    pub id: u64,
    pub score: f32,
    pub title: String,
    /// The searchable fields as stored (for snippets).
    pub fields: Vec<(String, String)>,
}

/// How the index was found on open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    /// Existing and current: it contains every change up to this sequence number (0: none yet).
    Current(u64),
    /// Created empty (missing, damaged or of another schema version): the caller rebuilds it from the store.
    Fresh,
}

struct Fields {
    key: Field,
    tenant: Field,
    resource: Field,
    id: Field,
    grams: Field,
    chars: Field,
    words: Field,
    title: Field,
    data: Field,
}

pub struct Index {
    dir: PathBuf,
    index: TIndex,
    reader: IndexReader,
    /// The one writer (None only while it is being replaced by one with another number of threads).
    writer: Mutex<Option<IndexWriter>>,
    f: Fields,
    /// The sequence number of the commit readers see (set after they reload).
    visible: AtomicU64,
    /// Fields whose fragments are held in memory (answering `contains` without tantivy).
    frags: Arc<frag::Frags>,
    /// Commits since open.
    commits: AtomicU64,
    /// Keys deleted since open (each looked up in every segment at the next commit).
    deletes: AtomicU64,
    /// No document in the index has a larger id (ids only grow: a new record's is larger than any before it).
    /// An upsert above it is a new record, added without first deleting its key — a delete is a term lookup in
    /// every segment at the commit (under a stream of creates, a tenth of what the index's threads spent).
    max_id: AtomicU64,
}

/// The fragment bitmaps in memory: fields held, bytes they take, the budget, questions they answered, the last
/// build's duration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FragmentFigures {
    pub fields: usize,
    pub bytes: usize,
    pub budget: usize,
    pub answers: u64,
    pub last_build_ms: u64,
}

/// One field's fragments from the documents a snapshot holds. Holds `apply` from before the snapshot to the
/// end, so every commit after the snapshot updates the result (a commit before it is in the snapshot).
/// Returns them with the generation of the index they were built from.
fn build_fragments(frags: &frag::Frags, reader: &IndexReader, f: [Field; 4], key: &frag::FKey) -> Result<(frag::FieldGrams, u64)> {
    let [tenant, resource, id, data] = f;
    let _g = frags.apply.lock().map_err(|_| SearchError::Other("fragments poisoned".into()))?;
    let generation = frags.generation.load(Ordering::Acquire);
    let started = std::time::Instant::now();
    let searcher = reader.searcher();
    let q = BooleanQuery::new(vec![(Occur::Must, term_q(tenant, &key.0)), (Occur::Must, term_q(resource, &key.1))]);
    let mut addrs: Vec<tantivy::DocAddress> = searcher.search(&q, &DocSetCollector)?.into_iter().collect();
    addrs.sort_unstable();
    let mut rows: Vec<(u64, String)> = Vec::with_capacity(addrs.len());
    for addr in addrs {
        let doc: TantivyDocument = searcher.doc(addr)?;
        let Some(n) = doc.get_first(id).and_then(|v| v.as_u64()) else { continue };
        let json = doc.get_first(data).and_then(|v| v.as_str()).unwrap_or("");
        let mut fields: BTreeMap<String, String> = serde_json::from_str(json).unwrap_or_default();
        rows.push((n, fields.remove(&key.2).unwrap_or_default()));
    }
    rows.sort_unstable_by_key(|r| r.0);
    rows.dedup_by_key(|r| r.0);
    let built = frag::FieldGrams::build(rows.into_iter());
    frags.last_build_ms.store(started.elapsed().as_millis() as u64, Ordering::Relaxed);
    Ok((built, generation))
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let basic = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer(framed::NAME).set_index_option(IndexRecordOption::Basic));
    let positional = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer(framed::NAME).set_index_option(IndexRecordOption::WithFreqsAndPositions));
    let scored = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer(framed::NAME).set_index_option(IndexRecordOption::WithFreqs));
    let f = Fields {
        key: b.add_text_field("key", STRING),
        tenant: b.add_text_field("tenant", STRING),
        resource: b.add_text_field("resource", STRING | STORED),
        id: b.add_u64_field("id", INDEXED | FAST | STORED),
        grams: b.add_text_field("grams", positional),
        chars: b.add_text_field("chars", basic),
        words: b.add_text_field("words", scored),
        title: b.add_text_field("title", STORED),
        data: b.add_text_field("data", STORED),
    };
    (b.build(), f)
}

/// The largest id of any document the reader's segments hold (deleted ones too): a bound, read from each
/// segment's column of ids without reading its documents.
fn max_id(reader: &IndexReader) -> Result<u64> {
    let searcher = reader.searcher();
    let mut max = 0;
    for seg in searcher.segment_readers() {
        if seg.max_doc() > 0 {
            max = max.max(seg.fast_fields().u64("id")?.max_value());
        }
    }
    Ok(max)
}

fn key_text(tenant: &str, resource: &str, id: u64) -> String {
    format!("{tenant}{}{resource}{}{id}", text::SEP, text::SEP)
}

fn term_q(field: Field, text: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(Term::from_field_text(field, text), IndexRecordOption::Basic))
}

impl Index {
    /// Opens the index in `dir` (created when missing). `layout` describes what the caller puts in it (its
    /// searchable resources and fields). An index that cannot be opened, has another schema version or layout,
    /// or whose rebuild was interrupted is removed and created empty: it is a cache.
    pub fn open(dir: &Path, layout: &str) -> Result<(Index, Opened)> {
        std::fs::create_dir_all(dir)?;
        let version_ok = std::fs::read_to_string(dir.join(VERSION_FILE)).ok().and_then(|v| v.trim().parse::<u32>().ok())
            == Some(SCHEMA_VERSION)
            && std::fs::read_to_string(dir.join(LAYOUT_FILE)).ok().as_deref() == Some(layout);
        let (schema, f) = schema();
        let existing = if version_ok { TIndex::open_in_dir(dir).ok().filter(|i| i.schema() == schema) } else { None };
        let payload = existing.as_ref().and_then(|i| i.load_metas().ok()).map(|m| m.payload);
        let existing = existing.filter(|_| payload.as_ref().is_some_and(|p| p.as_deref() != Some(REBUILDING)));
        let (index, opened) = match existing {
            Some(index) => {
                let seq = payload.flatten().and_then(|p| p.parse::<u64>().ok()).unwrap_or(0);
                (index, Opened::Current(seq))
            }
            None => {
                // Clear whatever is there (an older or damaged index), then start empty.
                for e in std::fs::read_dir(dir)? {
                    let p = e?.path();
                    if p.is_dir() { std::fs::remove_dir_all(&p)? } else { std::fs::remove_file(&p)? }
                }
                let index = TIndex::create_in_dir(dir, schema)?;
                std::fs::write(dir.join(VERSION_FILE), SCHEMA_VERSION.to_string())?;
                std::fs::write(dir.join(LAYOUT_FILE), layout)?;
                (index, Opened::Fresh)
            }
        };
        index.tokenizers().register(framed::NAME, TextAnalyzer::from(framed::Framed));
        let writer = index.writer_with_num_threads(1, FOLLOW_HEAP)?;
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        let visible = AtomicU64::new(match opened {
            Opened::Current(s) => s,
            Opened::Fresh => 0,
        });
        let frags = Arc::new(frag::Frags::new(FRAGMENT_BUDGET));
        let max_id = AtomicU64::new(max_id(&reader)?);
        Ok((Index { dir: dir.to_path_buf(), index, reader, writer: Mutex::new(Some(writer)), f, visible, frags, commits: AtomicU64::new(0), deletes: AtomicU64::new(0), max_id }, opened))
    }

    /// Replaces the writer by one with `threads` indexing threads (each with its own memory arena): a rebuild
    /// uses more, following the log needs one. Uncommitted changes are discarded; the merges the old writer's
    /// commits started are finished first.
    pub fn set_threads(&self, threads: usize) -> Result<()> {
        let mut guard = self.writer.lock().map_err(|_| SearchError::Other("writer poisoned".into()))?;
        // The old writer releases the directory lock when it ends. Dropped, it would abandon its merges: a
        // rebuild's last segments were then merged by the follower's first commits instead (1M records: 22
        // segments to 7, in the minute of requests after the rebuild; bench/README.md). A merge that fails leaves
        // its segments as they were, for later merges: not an error here.
        if let Some(old) = guard.take() {
            let _ = old.wait_merging_threads();
        }
        let heap = if threads <= 1 { FOLLOW_HEAP } else { WRITER_HEAP * threads };
        *guard = Some(self.index.writer_with_num_threads(threads.max(1), heap)?);
        Ok(())
    }

    /// Commits since the index was opened (each one a sync of its files and a segment for the merges).
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }

    /// Keys deleted since the index was opened: the removed records, and the upserts that replaced a document.
    pub fn deletes(&self) -> u64 {
        self.deletes.load(Ordering::Relaxed)
    }

    /// The sequence number of the commit searches see now. Read it before a search: the search then sees at
    /// least the changes up to it.
    pub fn seq(&self) -> u64 {
        self.visible.load(Ordering::Acquire)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The sequence number the last commit brought the index up to (0 while a rebuild runs).
    pub fn committed_seq(&self) -> Result<u64> {
        Ok(self.index.load_metas()?.payload.and_then(|p| p.parse::<u64>().ok()).unwrap_or(0))
    }

    /// The sequence number an index directory holds, read without opening it for writing (`verify`), or why it
    /// cannot be used as it is: none there, another schema version or another layout than `layout` (any, when
    /// None), a rebuild was interrupted.
    pub fn peek(dir: &Path, layout: Option<&str>) -> std::result::Result<u64, String> {
        let version = std::fs::read_to_string(dir.join(VERSION_FILE)).map_err(|_| "no index".to_string())?;
        if version.trim().parse::<u32>().ok() != Some(SCHEMA_VERSION) {
            return Err(format!("schema version {} (this binary writes {SCHEMA_VERSION})", version.trim()));
        }
        let stored = std::fs::read_to_string(dir.join(LAYOUT_FILE)).map_err(|_| "no layout file".to_string())?;
        if layout.is_some_and(|l| l != stored) {
            return Err("declared for other resources or fields".into());
        }
        let d = tantivy::directory::MmapDirectory::open(dir).map_err(|e| e.to_string())?;
        let metas = TIndex::open(d).and_then(|i| i.load_metas()).map_err(|e| format!("damaged: {e}"))?;
        match metas.payload.as_deref() {
            Some(REBUILDING) => Err("a rebuild was interrupted".into()),
            Some(p) => p.parse().map_err(|_| format!("unknown commit payload {p:?}")),
            None => Ok(0),
        }
    }

    fn document(&self, d: &Doc) -> TantivyDocument {
        let f = &self.f;
        let mut doc = TantivyDocument::default();
        doc.add_text(f.key, key_text(&d.tenant, &d.resource, d.id));
        doc.add_text(f.tenant, &d.tenant);
        doc.add_text(f.resource, &d.resource);
        doc.add_u64(f.id, d.id);
        let mut pairs = Vec::new();
        let mut chars = Vec::new();
        let mut words = Vec::new();
        let mut base = 0;
        for (field, value) in &d.fields {
            base = text::pairs(field, value, base, &mut pairs);
            text::chars(field, value, &mut chars);
            words.extend(text::words(value));
        }
        for n in &d.names {
            words.extend(text::pinyin_words(n));
        }
        chars.sort();
        chars.dedup();
        words.sort();
        words.dedup();
        doc.add_text(f.grams, framed::frame(pairs.iter().map(|(p, t)| (*p, t.as_str()))));
        doc.add_text(f.chars, framed::frame(chars.iter().map(String::as_str).enumerate()));
        doc.add_text(f.words, framed::frame(words.iter().map(String::as_str).enumerate()));
        doc.add_text(f.title, &d.title);
        let data: BTreeMap<&str, &str> = d.fields.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        doc.add_text(f.data, serde_json::to_string(&data).unwrap_or_default());
        doc
    }

    /// Applies changes and commits them as containing every store change up to `seq`. `upserts` replace any
    /// document of the same key; `deletes` remove them. Readers see the commit when this returns.
    pub fn apply(&self, upserts: &[Doc], deletes: &[Key], seq: u64) -> Result<()> {
        self.commit(upserts, deletes, Some(seq), false)
    }

    /// Adds documents of a rebuild and commits them without a sequence number: until the rebuild's
    /// `finish_rebuild`, the index opens as interrupted (and is rebuilt). A rebuild starts with `clear` and adds
    /// each record once, so nothing is deleted first (its resources' ids interleave: by the highest id alone, most
    /// of them would look like updates).
    pub fn apply_partial(&self, upserts: &[Doc]) -> Result<()> {
        self.commit(upserts, &[], None, true)
    }

    /// The last documents of a rebuild (see `apply_partial`), committed as containing every store change up to
    /// `seq`.
    pub fn finish_rebuild(&self, upserts: &[Doc], seq: u64) -> Result<()> {
        self.commit(upserts, &[], Some(seq), true)
    }

    /// `fresh`: no key of `upserts` is in the index or twice among them (a rebuild's).
    fn commit(&self, upserts: &[Doc], deletes: &[Key], seq: Option<u64>, fresh: bool) -> Result<()> {
        let mut guard = self.writer.lock().map_err(|_| SearchError::Other("writer poisoned".into()))?;
        let w = guard.as_mut().ok_or_else(|| SearchError::Other("no writer".into()))?;
        // No document holds an id above the highest ever added (`below`): such a key is neither deleted nor
        // looked for — each deleted key is looked up in every segment at the commit — whatever order the batch
        // comes in. Only a key twice in `upserts` is deleted before its second add.
        let below = self.max_id.load(Ordering::Relaxed);
        let mut deleted = 0u64;
        let mut delete = |w: &mut IndexWriter, tenant: &str, resource: &str, id: u64| {
            w.delete_term(Term::from_field_text(self.f.key, &key_text(tenant, resource, id)));
            deleted += 1;
        };
        for k in deletes.iter().filter(|k| k.id <= below) {
            delete(w, &k.tenant, &k.resource, k.id);
        }
        // Terms are made here while tantivy's indexing thread consumes the previous documents.
        let mut added = std::collections::HashSet::new();
        let mut max = below;
        for d in upserts {
            if !fresh && (d.id <= below || !added.insert((d.tenant.as_str(), d.resource.as_str(), d.id))) {
                delete(w, &d.tenant, &d.resource, d.id);
            }
            max = max.max(d.id);
            w.add_document(self.document(d))?;
        }
        self.deletes.fetch_add(deleted, Ordering::Relaxed);
        // Raised once the documents are in the writer (a failed commit leaves it high: only more deletes).
        self.max_id.fetch_max(max, Ordering::Relaxed);
        let mut prepared = w.prepare_commit()?;
        prepared.set_payload(&seq.map(|s| s.to_string()).unwrap_or_else(|| REBUILDING.to_string()));
        prepared.commit()?;
        drop(guard);
        self.reader.reload()?;
        {
            // Before the sequence number is published: whoever reads it finds the fragments at least as new.
            let _g = self.frags.apply.lock().map_err(|_| SearchError::Other("fragments poisoned".into()))?;
            self.frags.update(deletes, upserts);
        }
        self.visible.store(seq.unwrap_or(0), Ordering::Release);
        self.commits.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Removes every document (before a rebuild); the index opens as interrupted until the rebuild ends.
    pub fn clear(&self) -> Result<()> {
        let mut guard = self.writer.lock().map_err(|_| SearchError::Other("writer poisoned".into()))?;
        let w = guard.as_mut().ok_or_else(|| SearchError::Other("no writer".into()))?;
        w.delete_all_documents()?;
        let mut prepared = w.prepare_commit()?;
        prepared.set_payload(REBUILDING);
        prepared.commit()?;
        self.max_id.store(0, Ordering::Relaxed);
        drop(guard);
        self.reader.reload()?;
        self.frags.clear();
        self.visible.store(0, Ordering::Release);
        Ok(())
    }

    fn scope(&self, tenant: &str, resources: &[&str]) -> Vec<(Occur, Box<dyn Query>)> {
        let mut must: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, term_q(self.f.tenant, tenant))];
        match resources {
            [] => {}
            [one] => must.push((Occur::Must, term_q(self.f.resource, one))),
            many => {
                let any: Vec<(Occur, Box<dyn Query>)> = many.iter().map(|r| (Occur::Should, term_q(self.f.resource, r))).collect();
                must.push((Occur::Must, Box::new(BooleanQuery::new(any))));
            }
        }
        must
    }

    /// The query for "the text of `field` (empty: any field) contains `needle`", exact under case folding.
    /// None for an empty needle.
    fn needle_query(&self, field: &str, needle: &str) -> Option<Box<dyn Query>> {
        match text::needle_terms(field, needle) {
            text::NeedleTerms::All => None,
            text::NeedleTerms::Char(t) => Some(term_q(self.f.chars, &t)),
            text::NeedleTerms::Pairs(ps) if ps.len() == 1 => Some(term_q(self.f.grams, &ps[0])),
            text::NeedleTerms::Pairs(ps) => {
                Some(Box::new(PhraseQuery::new(ps.iter().map(|p| Term::from_field_text(self.f.grams, p)).collect())))
            }
        }
    }

    /// Ids (ascending) of the records of `resource` in `tenant` whose `field` contains `needle`, compared in
    /// folded case: what `LIKE '%needle%'` gives over the indexed text. None for an empty needle (every record
    /// matches: the caller walks instead). The caller confirms each against the store, which may be newer.
    ///
    /// A field asked about is built in memory meanwhile (see `frag`) and answers from there once built.
    pub fn contains(&self, tenant: &str, resource: &str, field: &str, needle: &str) -> Result<Option<Vec<u64>>> {
        if needle.is_empty() {
            return Ok(None);
        }
        let key = (tenant.to_string(), resource.to_string(), field.to_string());
        match self.frags.ask(&key, needle) {
            frag::Asked::Answer(ids) => return Ok(Some(ids)),
            frag::Asked::Build => self.start_fragments(key),
            frag::Asked::No => {}
        }
        self.contains_indexed(tenant, resource, field, needle)
    }

    /// `contains` answered by tantivy alone.
    pub fn contains_indexed(&self, tenant: &str, resource: &str, field: &str, needle: &str) -> Result<Option<Vec<u64>>> {
        let Some(q) = self.needle_query(field, needle) else { return Ok(None) };
        let mut clauses = self.scope(tenant, &[resource]);
        clauses.push((Occur::Must, q));
        let mut ids = self.reader.searcher().search(&BooleanQuery::new(clauses), &Ids)?;
        ids.sort_unstable();
        Ok(Some(ids))
    }

    /// Builds the fragments of one field on a thread of its own.
    fn start_fragments(&self, key: frag::FKey) {
        let (frags, reader) = (self.frags.clone(), self.reader.clone());
        let (tenant, resource, id, data) = (self.f.tenant, self.f.resource, self.f.id, self.f.data);
        let spawned = std::thread::Builder::new().name("zz-fragments".into()).spawn({
            let frags = frags.clone();
            let key = key.clone();
            move || {
                match build_fragments(&frags, &reader, [tenant, resource, id, data], &key) {
                    Ok((g, generation)) => frags.finish(key, Some(g), generation),
                    Err(_) => frags.finish(key, None, 0),
                }
            }
        });
        if spawned.is_err() {
            frags.finish(key, None, 0);
        }
    }

    /// Builds the fragments of one field now and waits (tests; the server builds them when first asked).
    pub fn hold_fragments(&self, tenant: &str, resource: &str, field: &str) -> Result<()> {
        let key = (tenant.to_string(), resource.to_string(), field.to_string());
        let (built, generation) = build_fragments(&self.frags, &self.reader, [self.f.tenant, self.f.resource, self.f.id, self.f.data], &key)?;
        self.frags.finish(key, Some(built), generation);
        Ok(())
    }

    /// What the fragments in memory hold and did.
    pub fn fragments(&self) -> FragmentFigures {
        let (fields, bytes) = self.frags.held();
        FragmentFigures {
            fields,
            bytes,
            budget: self.frags.budget(),
            answers: self.frags.hits.load(Ordering::Relaxed),
            last_build_ms: self.frags.last_build_ms.load(Ordering::Relaxed),
        }
    }

    /// Sets the memory the fragments may take (0: none are built; fields beyond it are dropped).
    pub fn set_fragment_budget(&self, bytes: usize) {
        self.frags.set_budget(bytes);
    }

    /// The query of a free-text search within `scopes`: every whitespace-separated part of `q` must match,
    /// either as a fragment of some field (exact substring, through the grams) or as a word (jieba word, pinyin
    /// spelling or initials of a name); words rank higher. None for an empty `q` or no scope.
    fn text_query(&self, scopes: &[Scope], q: &str) -> Option<BooleanQuery> {
        let parts: Vec<&str> = q.split_whitespace().collect();
        if parts.is_empty() || scopes.is_empty() {
            return None;
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        // Each scope requires its tenant: no document of another tenant can match.
        let scoped: Vec<(Occur, Box<dyn Query>)> =
            scopes.iter().map(|s| (Occur::Should, Box::new(BooleanQuery::new(self.scope(s.tenant, s.resources))) as Box<dyn Query>)).collect();
        clauses.push((Occur::Must, Box::new(BooleanQuery::new(scoped))));
        for part in &parts {
            let lower = part.to_lowercase();
            let mut either: Vec<(Occur, Box<dyn Query>)> = vec![(
                Occur::Should,
                Box::new(TermQuery::new(Term::from_field_text(self.f.words, &lower), IndexRecordOption::WithFreqs)),
            )];
            if let Some(q) = self.needle_query("", part) {
                either.push((Occur::Should, q));
            }
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(either))));
            for w in text::words(part) {
                clauses.push((Occur::Should, Box::new(TermQuery::new(Term::from_field_text(self.f.words, &w), IndexRecordOption::WithFreqs))));
            }
        }
        Some(BooleanQuery::new(clauses))
    }

    /// Free-text search over the searchable fields of `resources` (all when empty) in `tenant`; see
    /// `search_scopes`.
    pub fn search(&self, tenant: &str, resources: &[&str], q: &str, offset: usize, limit: usize) -> Result<(Vec<Hit>, usize)> {
        self.search_scopes(&[Scope { tenant, resources }], q, offset, limit)
    }

    /// Free-text search within several (tenant, resources) scopes (a tenant's records and the platform's):
    /// every part of `q` must match as a fragment or a word (see `text::matches`). Returns the hits of the page,
    /// best first, and the total.
    pub fn search_scopes(&self, scopes: &[Scope], q: &str, offset: usize, limit: usize) -> Result<(Vec<Hit>, usize)> {
        let Some(query) = self.text_query(scopes, q) else { return Ok((Vec::new(), 0)) };
        let searcher = self.reader.searcher();
        let (top, total) = searcher.search(&query, &(TopDocs::with_limit(limit.max(1)).and_offset(offset).order_by_score(), Count))?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let doc: TantivyDocument = searcher.doc(addr)?;
            let s = |f: Field| doc.get_first(f).and_then(|v| v.as_str()).unwrap_or("").to_string();
            let data: BTreeMap<String, String> = serde_json::from_str(&s(self.f.data)).unwrap_or_default();
            hits.push(Hit {
                resource: s(self.f.resource),
                id: doc.get_first(self.f.id).and_then(|v| v.as_u64()).unwrap_or(0),
                score,
                title: s(self.f.title),
                fields: data.into_iter().collect(),
            });
        }
        Ok((hits, total))
    }

    /// Ids of the records of one resource matching a free-text `q` (as `search`), for a list: best first when
    /// there are at most `rank_max`, else ascending (too many to rank usefully; the list keeps its own order).
    /// None for an empty `q`. Returns the ids and whether they are ranked.
    pub fn keyword_ids(&self, tenant: &str, resource: &str, q: &str, rank_max: usize) -> Result<Option<(Vec<u64>, bool)>> {
        let Some(query) = self.text_query(&[Scope { tenant, resources: &[resource] }], q) else { return Ok(None) };
        let searcher = self.reader.searcher();
        let n = searcher.search(&query, &Count)?;
        if n > rank_max {
            let mut ids = searcher.search(&query, &Ids)?;
            ids.sort_unstable();
            return Ok(Some((ids, false)));
        }
        let top = searcher.search(&query, &TopDocs::with_limit(n.max(1)).order_by_score())?;
        let mut ids = Vec::with_capacity(top.len());
        for (_, addr) in top {
            let col = searcher.segment_reader(addr.segment_ord).fast_fields().u64("id")?;
            if let Some(id) = col.first(addr.doc_id) {
                ids.push(id);
            }
        }
        Ok(Some((ids, true)))
    }

    /// Documents in the index (all tenants).
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the index takes on disk.
    pub fn disk_bytes(&self) -> u64 {
        fn walk(p: &Path) -> u64 {
            std::fs::read_dir(p)
                .map(|rd| {
                    rd.filter_map(|e| e.ok())
                        .map(|e| {
                            let m = e.metadata();
                            match m {
                                Ok(m) if m.is_dir() => walk(&e.path()),
                                Ok(m) => m.len(),
                                Err(_) => 0,
                            }
                        })
                        .sum()
                })
                .unwrap_or(0)
        }
        walk(&self.dir)
    }
}

/// Collects the record ids of the matching documents, read from the `id` column segment by segment.
struct Ids;

struct SegmentIds {
    col: tantivy::columnar::Column<u64>,
    ids: Vec<u64>,
}

impl Collector for Ids {
    type Fruit = Vec<u64>;
    type Child = SegmentIds;

    fn for_segment(&self, _ord: tantivy::SegmentOrdinal, segment: &tantivy::SegmentReader) -> tantivy::Result<SegmentIds> {
        Ok(SegmentIds { col: segment.fast_fields().u64("id")?, ids: Vec::new() })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Vec<u64>>) -> tantivy::Result<Vec<u64>> {
        Ok(fruits.into_iter().flatten().collect())
    }
}

impl SegmentCollector for SegmentIds {
    type Fruit = Vec<u64>;

    fn collect(&mut self, doc: tantivy::DocId, _score: tantivy::Score) {
        if let Some(id) = self.col.first(doc) {
            self.ids.push(id);
        }
    }

    fn harvest(self) -> Vec<u64> {
        self.ids
    }
}
