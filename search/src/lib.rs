//! The search index: a cache of the store's searchable text, kept in a tantivy index beside the data file and
//! rebuilt from the store whenever it is missing, damaged or of an older schema. It knows nothing of the store,
//! the app or HTTP: callers hand it documents and the sequence number of the last store change they contain.
//!
//! Every document carries its tenant as an indexed term and every query requires it, so no query crosses tenants.
//! Each commit records the sequence number it brings the index up to (tantivy's commit payload); on open the
//! caller catches up from there.
pub mod text;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tantivy::collector::{Collector, Count, SegmentCollector, TopDocs};
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query, TermQuery};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::{PreTokenizedString, Token};
use tantivy::{Index as TIndex, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

/// Bumped whenever the schema or the way text becomes terms changes: an index of another version is rebuilt.
pub const SCHEMA_VERSION: u32 = 1;
const VERSION_FILE: &str = "zz-schema-version";
/// Memory of the one index writer (tantivy's minimum is 15 MB per thread).
const WRITER_HEAP: usize = 32 << 20;

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
    writer: Mutex<IndexWriter>,
    f: Fields,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let basic = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer("raw").set_index_option(IndexRecordOption::Basic));
    let positional = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer("raw").set_index_option(IndexRecordOption::WithFreqsAndPositions));
    let scored = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer("raw").set_index_option(IndexRecordOption::WithFreqs));
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

fn key_text(tenant: &str, resource: &str, id: u64) -> String {
    format!("{tenant}{}{resource}{}{id}", text::SEP, text::SEP)
}

fn pre(tokens: Vec<(usize, String)>) -> PreTokenizedString {
    let tokens = tokens
        .into_iter()
        .map(|(position, text)| Token { offset_from: 0, offset_to: 0, position, text, position_length: 1 })
        .collect();
    PreTokenizedString { text: String::new(), tokens }
}

fn numbered(tokens: Vec<String>) -> Vec<(usize, String)> {
    tokens.into_iter().enumerate().collect()
}

fn term_q(field: Field, text: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(Term::from_field_text(field, text), IndexRecordOption::Basic))
}

impl Index {
    /// Opens the index in `dir` (created when missing). An index that cannot be opened or has another schema
    /// version is removed and created empty: it is a cache.
    pub fn open(dir: &Path) -> Result<(Index, Opened)> {
        std::fs::create_dir_all(dir)?;
        let version_ok = std::fs::read_to_string(dir.join(VERSION_FILE)).ok().and_then(|v| v.trim().parse::<u32>().ok())
            == Some(SCHEMA_VERSION);
        let (schema, f) = schema();
        let existing = if version_ok { TIndex::open_in_dir(dir).ok().filter(|i| i.schema() == schema) } else { None };
        let (index, opened) = match existing {
            Some(index) => {
                let seq = index.load_metas()?.payload.and_then(|p| p.parse::<u64>().ok()).unwrap_or(0);
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
                (index, Opened::Fresh)
            }
        };
        let writer = index.writer_with_num_threads(1, WRITER_HEAP)?;
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok((Index { dir: dir.to_path_buf(), index, reader, writer: Mutex::new(writer), f }, opened))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The sequence number the last commit brought the index up to.
    pub fn committed_seq(&self) -> Result<u64> {
        Ok(self.index.load_metas()?.payload.and_then(|p| p.parse::<u64>().ok()).unwrap_or(0))
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
        doc.add_pre_tokenized_text(f.grams, pre(pairs));
        doc.add_pre_tokenized_text(f.chars, pre(numbered(chars)));
        doc.add_pre_tokenized_text(f.words, pre(numbered(words)));
        doc.add_text(f.title, &d.title);
        let data: BTreeMap<&str, &str> = d.fields.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        doc.add_text(f.data, serde_json::to_string(&data).unwrap_or_default());
        doc
    }

    /// Applies changes and commits them as containing every store change up to `seq`. `upserts` replace any
    /// document of the same key; `deletes` remove them. Readers see the commit when this returns.
    pub fn apply(&self, upserts: &[Doc], deletes: &[Key], seq: u64) -> Result<()> {
        let mut w = self.writer.lock().map_err(|_| SearchError::Other("writer poisoned".into()))?;
        for k in deletes {
            w.delete_term(Term::from_field_text(self.f.key, &key_text(&k.tenant, &k.resource, k.id)));
        }
        // Terms are made here while tantivy's indexing thread consumes the previous documents.
        for d in upserts {
            w.delete_term(Term::from_field_text(self.f.key, &key_text(&d.tenant, &d.resource, d.id)));
            w.add_document(self.document(d))?;
        }
        let mut prepared = w.prepare_commit()?;
        prepared.set_payload(&seq.to_string());
        prepared.commit()?;
        drop(w);
        self.reader.reload()?;
        Ok(())
    }

    /// Removes every document (before a rebuild).
    pub fn clear(&self) -> Result<()> {
        let mut w = self.writer.lock().map_err(|_| SearchError::Other("writer poisoned".into()))?;
        w.delete_all_documents()?;
        let mut prepared = w.prepare_commit()?;
        prepared.set_payload("0");
        prepared.commit()?;
        drop(w);
        self.reader.reload()?;
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
    pub fn contains(&self, tenant: &str, resource: &str, field: &str, needle: &str) -> Result<Option<Vec<u64>>> {
        let Some(q) = self.needle_query(field, needle) else { return Ok(None) };
        let mut clauses = self.scope(tenant, &[resource]);
        clauses.push((Occur::Must, q));
        let mut ids = self.reader.searcher().search(&BooleanQuery::new(clauses), &Ids)?;
        ids.sort_unstable();
        Ok(Some(ids))
    }

    /// Free-text search over the searchable fields of `resources` (all when empty) in `tenant`. Every
    /// whitespace-separated part of `q` must match, either as a fragment of some field (exact substring, through
    /// the grams) or as a word (jieba word, pinyin spelling or initials of a name); words rank higher. Returns
    /// the hits of the page and the total.
    pub fn search(&self, tenant: &str, resources: &[&str], q: &str, offset: usize, limit: usize) -> Result<(Vec<Hit>, usize)> {
        let parts: Vec<&str> = q.split_whitespace().collect();
        if parts.is_empty() {
            return Ok((Vec::new(), 0));
        }
        let mut clauses = self.scope(tenant, resources);
        for part in &parts {
            // Each part matches as a fragment of some field, or as a whole word (a pinyin spelling, initials).
            let lower = part.to_lowercase();
            let mut either: Vec<(Occur, Box<dyn Query>)> = vec![(
                Occur::Should,
                Box::new(TermQuery::new(Term::from_field_text(self.f.words, &lower), IndexRecordOption::WithFreqs)),
            )];
            if let Some(q) = self.needle_query("", part) {
                either.push((Occur::Should, q));
            }
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(either))));
            // Its words rank: records where they stand as words come first.
            for w in text::words(part) {
                clauses.push((Occur::Should, Box::new(TermQuery::new(Term::from_field_text(self.f.words, &w), IndexRecordOption::WithFreqs))));
            }
        }
        let query = BooleanQuery::new(clauses);
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
