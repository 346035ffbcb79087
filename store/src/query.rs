//! List queries: typed filters and sorts over declared fields, evaluated against stored records.
use std::cmp::Ordering;

use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Contains,
    NotContains,
    Equal,
    NotEqual,
    StartsWith,
    EndsWith,
    Ge,
    Gt,
    Le,
    Lt,
    Null,
    NotNull,
    /// The value is a JSON array; the field must equal one of its items (data scopes use this).
    In,
    /// The field holds one id or a comma-separated list of ids (`deptId` of a user); the value is a JSON array
    /// of ids; matches when any listed id is one of them.
    ListIn,
}

#[derive(Debug, Clone)]
pub struct Filter {
    pub field: String,
    pub op: Op,
    pub value: Value,
}

#[derive(Debug, Clone)]
pub struct Sort {
    pub field: String,
    pub desc: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Query {
    pub filters: Vec<Filter>,
    /// Row-level guard (data scopes): when not empty, a record must also match at least one of these.
    pub any: Vec<Filter>,
    pub sorts: Vec<Sort>,
    pub offset: u64,
    pub limit: u64,
    /// When a walk over records must stop early (none: walk to the end).
    pub budget: Budget,
    /// A test beyond the filters that every record must pass (a list's free-text keyword).
    pub check: Option<Predicate>,
    /// Candidates from the search index for some of the filters (and the check): the list then visits only
    /// them and the records changed since the index's sequence number.
    pub hint: Option<Hint>,
    /// The page's records as stored (`Page::rows`, the bytes of the record table) instead of decoded: a list
    /// answer written straight from them skips building and dropping a JSON tree per row. Records are still
    /// decoded where a filter must be tested on them.
    pub raw_rows: bool,
}

/// A test of one record.
pub type RecordTest = dyn Fn(&Map<String, Value>) -> bool + Send + Sync;

/// A record test given by the caller, applied wherever the filters are.
#[derive(Clone)]
pub struct Predicate {
    pub test: std::sync::Arc<RecordTest>,
    /// The free-text keyword the test answers, if it is one (for messages, and for an index that can answer it).
    pub keyword: Option<String>,
}

impl std::fmt::Debug for Predicate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Predicate({:?})", self.keyword)
    }
}

/// What an outside index (the search index, as of change `seq`) says about a query. For every record not
/// changed since `seq`, it matches the filters named in `answers` (and the check, when `check` is set) exactly
/// when its id is in `ids`; records changed since are tested in full. Every record returned is still tested
/// against the whole query, so a stale or wrong hint costs time, never a wrong row.
#[derive(Debug, Clone, Default)]
pub struct Hint {
    pub seq: u64,
    /// Matching ids: ascending, or best first when `ranked`.
    pub ids: Vec<u64>,
    /// `ids` are in relevance order, which a list without sorts keeps.
    pub ranked: bool,
    /// Positions in `Query::filters` that `ids` answer.
    pub answers: Vec<usize>,
    /// `ids` also answer `Query::check`.
    pub check: bool,
}

/// Limits on a walk over records: a deadline, and a flag its caller sets when nobody waits for the answer any
/// more (the client went away). Checked every few hundred records, so a stopped walk ends within milliseconds.
#[derive(Debug, Clone, Default)]
pub struct Budget {
    pub deadline: Option<std::time::Instant>,
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// Why a walk stopped before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    Deadline,
    Cancelled,
}

impl Budget {
    pub fn check(&self) -> crate::Result<()> {
        if self.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
            return Err(crate::StoreError::Interrupted(Interrupt::Cancelled));
        }
        if self.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            return Err(crate::StoreError::Interrupted(Interrupt::Deadline));
        }
        Ok(())
    }
}

/// Counts records visited by a walk and checks its budget every `EVERY` of them.
pub(crate) struct Ticker<'b> {
    n: u32,
    budget: &'b Budget,
}

impl<'b> Ticker<'b> {
    const EVERY: u32 = 256;
    pub(crate) fn new(budget: &'b Budget) -> Self {
        Ticker { n: 0, budget }
    }
    pub(crate) fn tick(&mut self) -> crate::Result<()> {
        self.n = self.n.wrapping_add(1);
        if self.n.is_multiple_of(Self::EVERY) { self.budget.check() } else { Ok(()) }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Page {
    pub records: Vec<Map<String, Value>>,
    pub total: u64,
    /// With `Query::raw_rows`: the page's records in the stored format 1 (`codec::decode_record` reads one;
    /// packed records come unpacked), and `records` is empty.
    pub rows: Vec<Vec<u8>>,
}

/// A page being filled in the form the query asks for: decoded records, or with `raw_rows` the stored bytes.
pub(crate) struct PageFill {
    raw: bool,
    records: Vec<Map<String, Value>>,
    rows: Vec<Vec<u8>>,
}

impl PageFill {
    pub(crate) fn new(q: &Query) -> PageFill {
        PageFill { raw: q.raw_rows, records: Vec::with_capacity((q.limit as usize).min(1000)), rows: Vec::new() }
    }
    pub(crate) fn len(&self) -> usize {
        self.records.len() + self.rows.len()
    }
    /// Adds a record: its stored bytes `raw`, or its decoded `doc` (which a decoded page must be given).
    pub(crate) fn push(&mut self, doc: Option<Map<String, Value>>, raw: &[u8]) -> crate::error::Result<()> {
        self.push_read(doc, std::borrow::Cow::Borrowed(raw))
    }
    /// `push` of a record as read: stored bytes borrowed, or bytes `codec::unpacked` made (format 1, owned: kept
    /// as they are).
    pub(crate) fn push_read(&mut self, doc: Option<Map<String, Value>>, raw: std::borrow::Cow<'_, [u8]>) -> crate::error::Result<()> {
        if self.raw {
            // Packed rows are given unpacked (format 1), so that answers are written from their bytes as any other.
            self.rows.push(match raw {
                std::borrow::Cow::Owned(v) => v,
                std::borrow::Cow::Borrowed(b) => crate::codec::plain(b)?,
            });
        } else {
            self.records.push(match doc {
                Some(d) => d,
                None => crate::codec::decode_record(&raw)?,
            });
        }
        Ok(())
    }
    /// Turns the page around (it was filled walking from the other end).
    pub(crate) fn reverse(&mut self) {
        self.records.reverse();
        self.rows.reverse();
    }
    pub(crate) fn finish(self, total: u64) -> Page {
        Page { records: self.records, total, rows: self.rows }
    }
}

impl Page {
    /// A page of decoded records in the form the query asks for (stored bytes when `raw_rows`).
    pub fn of(q: &Query, records: Vec<Map<String, Value>>, total: u64) -> crate::error::Result<Page> {
        if !q.raw_rows {
            return Ok(Page { records, total, rows: Vec::new() });
        }
        let rows = records.iter().map(crate::codec::encode_record).collect::<crate::error::Result<Vec<_>>>()?;
        Ok(Page { records: Vec::new(), total, rows })
    }
}

impl Filter {
    pub fn new(field: &str, op: Op, value: Value) -> Self {
        Filter { field: field.to_string(), op, value }
    }

    pub fn matches(&self, doc: &Map<String, Value>) -> bool {
        let v = doc.get(&self.field).unwrap_or(&Value::Null);
        match self.op {
            Op::Null => v.is_null() || v.as_str() == Some(""),
            Op::NotNull => !(v.is_null() || v.as_str() == Some("")),
            Op::Contains => !v.is_null() && lower(v).contains(&lower(&self.value)),
            Op::NotContains => v.is_null() || !lower(v).contains(&lower(&self.value)),
            Op::StartsWith => !v.is_null() && lower(v).starts_with(&lower(&self.value)),
            Op::EndsWith => !v.is_null() && lower(v).ends_with(&lower(&self.value)),
            Op::Equal => compare(v, &self.value) == Some(Ordering::Equal),
            Op::NotEqual => compare(v, &self.value) != Some(Ordering::Equal),
            Op::Ge => matches!(compare(v, &self.value), Some(Ordering::Greater | Ordering::Equal)),
            Op::Gt => compare(v, &self.value) == Some(Ordering::Greater),
            Op::Le => matches!(compare(v, &self.value), Some(Ordering::Less | Ordering::Equal)),
            Op::Lt => compare(v, &self.value) == Some(Ordering::Less),
            Op::In => self
                .value
                .as_array()
                .is_some_and(|items| items.iter().any(|item| compare(v, item) == Some(Ordering::Equal))),
            Op::ListIn => {
                let Some(items) = self.value.as_array() else { return false };
                let ids: Vec<u64> = match v {
                    Value::Number(n) => n.as_u64().into_iter().collect(),
                    Value::String(s) => s.split(',').filter_map(|p| p.trim().parse().ok()).collect(),
                    _ => Vec::new(),
                };
                ids.iter().any(|id| items.iter().any(|item| crate::parse_id_value(item) == Some(*id)))
            }
        }
    }
}

impl Query {
    /// True when the record passes every filter and, if a guard is set, at least one guard filter.
    pub fn accepts(&self, doc: &Map<String, Value>) -> bool {
        self.filters.iter().all(|f| f.matches(doc))
            && (self.any.is_empty() || self.any.iter().any(|f| f.matches(doc)))
            && self.check.as_ref().is_none_or(|c| (c.test)(doc))
    }
    /// The fields the filters and the guard read (enough for `accepts` on a record decoded only in part), when
    /// there is no free-text check (which may read any field).
    pub(crate) fn tested_fields(&self) -> Option<Vec<&str>> {
        self.check.is_none().then(|| self.filters.iter().chain(self.any.iter()).map(|f| f.field.as_str()).collect())
    }
    /// Nothing narrows the records (the maintained counter is the total).
    pub fn unfiltered(&self) -> bool {
        self.filters.is_empty() && self.any.is_empty() && self.check.is_none()
    }
}

fn lower(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_lowercase(),
        other => other.to_string().to_lowercase(),
    }
}

/// Compares like with like: numbers numerically, text as text (a number compared with text compares as text).
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => None,
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
            (Some(x), Some(y), _, _) => Some(x.cmp(&y)),
            (_, _, Some(x), Some(y)) => Some(x.cmp(&y)),
            _ => x.as_f64()?.partial_cmp(&y.as_f64()?),
        },
        (Value::Number(x), Value::String(s)) => match s.parse::<f64>() {
            Ok(y) => x.as_f64()?.partial_cmp(&y),
            Err(_) => Some(x.to_string().as_str().cmp(s.as_str())),
        },
        (Value::String(s), Value::Number(y)) => compare(&Value::Number(y.clone()), &Value::String(s.clone())).map(Ordering::reverse),
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        (x, y) => Some(x.to_string().cmp(&y.to_string())),
    }
}

/// Orders two records by the sorts, then by id descending (newest first), so that pages are stable.
pub fn order(sorts: &[Sort], a: &Map<String, Value>, b: &Map<String, Value>) -> Ordering {
    for s in sorts {
        let o = compare_nullable(a.get(&s.field), b.get(&s.field));
        let o = if s.desc { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    compare_nullable(b.get("id"), a.get("id"))
}

fn compare_nullable(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    let a = a.filter(|v| !v.is_null());
    let b = b.filter(|v| !v.is_null());
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(a), Some(b)) => compare(a, b).unwrap_or(Ordering::Equal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn operators() {
        let doc = json!({"name": "Hello 世界", "n": 5, "s": "", "id": 1}).as_object().unwrap().clone();
        let t = |f: &str, op, v| Filter::new(f, op, v).matches(&doc);
        assert!(t("name", Op::Contains, json!("hello")));
        assert!(t("name", Op::EndsWith, json!("世界")));
        assert!(!t("name", Op::StartsWith, json!("世界")));
        assert!(t("n", Op::Ge, json!(5)) && t("n", Op::Lt, json!(6)) && !t("n", Op::Gt, json!(5)));
        assert!(t("n", Op::Equal, json!("5")));
        assert!(t("s", Op::Null, Value::Null) && t("missing", Op::Null, Value::Null));
        assert!(t("n", Op::In, json!([1, 5])) && !t("n", Op::In, json!([1])));
        assert!(t("missing", Op::NotContains, json!("x")));
        let u = json!({"deptId": "11,12", "one": 7}).as_object().unwrap().clone();
        assert!(Filter::new("deptId", Op::ListIn, json!([12, 99])).matches(&u));
        assert!(!Filter::new("deptId", Op::ListIn, json!(["13"])).matches(&u));
        assert!(Filter::new("one", Op::ListIn, json!(["7"])).matches(&u));
        let q = Query { any: vec![Filter::new("one", Op::Equal, json!(1)), Filter::new("one", Op::Equal, json!(7))], ..Query::default() };
        assert!(q.accepts(&u) && !q.unfiltered());
    }
}
