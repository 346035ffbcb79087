//! Resource declarations: one description of a record type that drives storage (indexes, unique keys, counters),
//! input parsing, list filters and sorts, and the field schema the UI renders from.
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{FieldProblem, Result, StoreError};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldKind {
    #[default]
    Text,
    /// Long text: not indexed, shown in a textarea.
    Textarea,
    Int,
    /// A 64-bit id (a reference to another record); a JSON string on the wire.
    Long,
    /// 0 or 1, shown as a switch.
    Flag,
    Decimal,
    /// `yyyy-MM-dd HH:mm:ss` or `yyyy-MM-dd`, stored as text so that text order is time order.
    Date,
    /// Any JSON (lists of ids and the like); never filtered or sorted.
    Json,
    /// Money: stored as integer fen (never a float); clients send and receive yuan with at most two decimals
    /// (`"1234.50"`), parsed exactly from the text.
    Money,
    /// A quantity in the goods' unit (pieces, metres, kilograms, square metres): stored as an integer of
    /// ten-thousandths (never a float); clients send and receive a decimal with at most four places (`"12.5"`).
    Qty,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    Phone,
    Email,
    Digits,
    NoSpace,
    /// Letters, digits, `_`, `-`, `.`: codes, keys, accounts.
    Code,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldDef {
    pub name: String,
    #[serde(default)]
    pub kind: FieldKind,
    pub label: String,
    #[serde(default)]
    pub label_en: String,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub max_len: Option<usize>,
    #[serde(default)]
    pub min: Option<i64>,
    #[serde(default)]
    pub max: Option<i64>,
    #[serde(default)]
    pub pattern: Option<Pattern>,
    /// May be used as a list filter (`field`, `field_equal`, ...).
    #[serde(default)]
    pub filter: bool,
    /// May be used in `ascs`/`descs`.
    #[serde(default)]
    pub sort: bool,
    /// Shown in the UI's search bar; for text fields also held by the search index, which answers `contains`
    /// filters on the field and the list's free-text keyword.
    #[serde(default)]
    pub search: bool,
    /// A person's or company's name: the search index also finds it by pinyin spelling and initials.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinyin: bool,
    /// `false`: filterable and sortable, but by walking the records rather than from an index entry — for a
    /// field of an append-heavy resource whose values are scattered (a request id, a latency), where an entry per
    /// record would cost a page write per record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<bool>,
    /// Unique within the tenant among live records.
    #[serde(default)]
    pub unique: bool,
    /// Write-only: never returned by any read.
    #[serde(default)]
    pub secret: bool,
    /// Kept sealed at rest (encrypted by the app with the install's secret key, kept apart from the data file):
    /// a secret the server must read back in plain (an object store's keys), unlike a hash.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sealed: bool,
    /// The value is a comma-separated list of ids (a user's `deptId`): indexed with one entry per id, so that
    /// `ListIn`/`In`/`Equal` filters on it walk the index instead of every record.
    #[serde(default)]
    pub multi: bool,
    /// Written only by hand-written behaviour (grants, password changes), ignored in client input.
    #[serde(default)]
    pub readonly: bool,
    /// A read-only figure kept from other records by hand-written behaviour (a contract's 合同总额 from its
    /// ledger), which may move while a client holds the record: never compared with what a client sends back (a
    /// form opened before the ledger moved still saves; its copy of the figure is dropped like any read-only one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub derived: bool,
    /// Dictionary code whose entries bind this field's values and labels.
    #[serde(default)]
    pub dict: Option<String>,
    #[serde(default)]
    pub default: Option<Value>,
    /// Shown as a list column.
    #[serde(default = "yes")]
    pub list: bool,
    /// Shown in the add/edit form.
    #[serde(default = "yes")]
    pub form: bool,
    /// Screen hints passed through to the UI untouched (on-blur message, span, control type, when disabled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui: Option<Value>,
    /// A `long` field naming a record of this resource in the same tenant: the app checks it exists when
    /// written, refuses to remove a record still named by one, and shows the record's title beside the id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refers: Option<String>,
    /// Personal data (an ID-card number): stored whole, answered with its middle hidden (`3201**********1234`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mask: bool,
    /// A `refers` field through which the list's keyword also finds records: a stock row by its goods' name, code
    /// or spec, when the keyword finds the goods among the referred records. Read by the app.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keyword_through: bool,
}

impl FieldDef {
    /// Held by the search index: a `search` field of a text kind.
    pub fn searched(&self) -> bool {
        self.search && matches!(self.kind, FieldKind::Text | FieldKind::Textarea)
    }

    /// Indexed fields get a secondary index entry per record, used for sorts and `_equal` filters.
    pub fn indexed(&self) -> bool {
        self.index.unwrap_or(self.filter || self.sort) && !matches!(self.kind, FieldKind::Json | FieldKind::Textarea)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceDef {
    /// Storage name, also the permission-code prefix (`param` → `param_add`, `param_edit`, ...).
    pub name: String,
    /// The permission-code prefix when it is not the name: records that belong to another resource's screen
    /// share its codes (a replay's items are read and written with `replay`, `replay_edit`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codes: Option<String>,
    pub label: String,
    #[serde(default)]
    pub label_en: String,
    /// Platform-wide data lives under tenant 000000 and is writable only by the platform role.
    #[serde(default)]
    pub platform: bool,
    pub fields: Vec<FieldDef>,
    /// Records are written once and never edited (the server's logs, written at request rates): the audit
    /// columns get no index entries (filters on them walk), so each record costs fewer page writes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub append_only: bool,
    /// Records are stored compressed (`codec::RECORD_Z1`): the server's logs, written once and kept long, read a
    /// page at a time. Lists of such a resource decode every row they read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub packed: bool,
    /// Records are stored unpacked whatever the file's format (`codec::RECORD_V1`): a catalogue a picker reads in
    /// bulk (the product picker asks for 999 rows by a name fragment and tests every candidate), where unpacking
    /// each row it reads (0.3-0.5 µs, the rows different each time) costs more than the bytes it saves.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub plain: bool,
    /// Extra input keys a Blade client echoes back (display helpers); accepted and dropped.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// Screen hints for the whole resource (dialog width, action column width...), passed through to the UI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui: Option<Value>,
    /// How the app serves the resource over HTTP when it is not the generic Blade shape (a route dialect such
    /// as `blade-scm`'s); read by the app, opaque to the store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<Value>,
    /// Records of this resource limit what each user may reach of another resource: `{"user": "userId",
    /// "grants": "storeIds", "to": "store", "by": "storeId"}` — a user with a record here sees only the granted
    /// records of `to` and the records naming one of them in field `by`. Read by the app, opaque to the store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<Value>,
    /// Short names the index table stores some indexed fields' entries under instead of the field's name
    /// (`{"requestUri": "u"}`): every entry's key holds it, so a log written at request rates with five indexed
    /// fields saves ~40 bytes a record. Storage only; filters, sorts and the API keep the field's name. Adding one
    /// to a filled file renames the entries once at start (`engine::layout::sync_indexes`); a key the last layout
    /// gave another field has that field's entries dropped first.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub index_keys: std::collections::BTreeMap<String, String>,
}

/// Columns every record has, stamped by the server; a client can never set them.
pub const AUDIT_FIELDS: &[&str] =
    &["id", "tenantId", "createUser", "createDept", "createTime", "updateUser", "updateTime", "status", "isDeleted"];
/// Audit columns that are filterable and sortable on every resource, and indexed. `createTime` sorts as `id` (ids
/// grow with time) but is indexed for its ranges: a list filtered by creation date (创建时间 from–to) reads the
/// range's entries instead of testing every record (1.5 s on 1,000,000 parameters).
pub const SYSTEM_INDEXED: &[&str] = &["updateTime", "status", "createUser", "createDept", "createTime"];

impl ResourceDef {
    /// The prefix of this resource's permission codes.
    pub fn code(&self) -> &str {
        self.codes.as_deref().unwrap_or(&self.name)
    }

    pub fn field(&self, name: &str) -> Option<&FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Checks a declaration once at start-up, so that a bad one fails loudly instead of at the first request.
    pub fn check(&self) -> std::result::Result<(), String> {
        if self.packed && self.plain {
            return Err(format!("{}: packed and plain at once", self.name));
        }
        let mut seen = std::collections::HashSet::new();
        for f in &self.fields {
            let own_tenant_id = f.name == "tenantId" && self.platform;
            if AUDIT_FIELDS.contains(&f.name.as_str()) && f.name != "status" && !own_tenant_id {
                return Err(format!("{}: field {} is an audit column", self.name, f.name));
            }
            if !seen.insert(&f.name) {
                return Err(format!("{}: field {} declared twice", self.name, f.name));
            }
            if (f.filter || f.sort) && matches!(f.kind, FieldKind::Json) {
                return Err(format!("{}: json field {} cannot filter or sort", self.name, f.name));
            }
            if f.keyword_through && f.refers.is_none() {
                return Err(format!("{}: field {} finds by keyword through the records it names: it must refer to some", self.name, f.name));
            }
            if f.refers.is_some() && (f.kind != FieldKind::Long || !f.indexed() || f.multi) {
                return Err(format!("{}: field {} refers to records: it must be a single indexed long", self.name, f.name));
            }
        }
        let indexed: Vec<&str> = self.indexed_fields().collect();
        for (field, key) in &self.index_keys {
            if !indexed.contains(&field.as_str()) {
                return Err(format!("{}: indexKeys names {field}, which has no index entries", self.name));
            }
            if key.is_empty() || key.len() > 16 || key.chars().any(char::is_control) || key == field {
                return Err(format!("{}: {field}'s index key {key:?} must be 1-16 bytes without control characters, other than its name", self.name));
            }
            if indexed.contains(&key.as_str()) || self.index_keys.iter().any(|(f, k)| k == key && f != field) {
                return Err(format!("{}: {field}'s index key {key} is another indexed field's name or key", self.name));
            }
        }
        Ok(())
    }

    /// The name `field`'s entries are stored under in the index table: its declared short key, else its name.
    pub fn index_key<'a>(&'a self, field: &'a str) -> &'a str {
        match self.index_keys.get(field) {
            Some(k) => k,
            None => undeclared_index_key(field),
        }
    }

    /// Fields the search index holds (see `FieldDef::searched`). None for log resources (`appendOnly`): they are
    /// written at request rates and searched rarely, so their text filters walk.
    pub fn search_fields(&self) -> impl Iterator<Item = &FieldDef> {
        self.fields.iter().filter(move |f| !self.append_only && f.searched())
    }

    /// Whether the search index holds this resource's records (every change is then logged for it).
    pub fn searchable(&self) -> bool {
        self.search_fields().next().is_some()
    }

    /// Names of fields with a secondary index, declared ones first. An append-only resource (logs, stock moves,
    /// ledger entries: written at request rates, never changed) keeps of the audit columns only `createTime`, for the
    /// 创建时间 range every list screen offers — without it, a day of a year of moves was a walk of the year.
    pub fn indexed_fields(&self) -> impl Iterator<Item = &str> {
        self.fields
            .iter()
            .filter(|f| f.indexed() && f.name != "status")
            .map(|f| f.name.as_str())
            .chain(SYSTEM_INDEXED.iter().copied().filter(|n| !self.append_only || *n == "createTime"))
    }

    /// `indexed_fields` with the name each one's entries are stored under (`index_key`).
    pub fn indexed_keys(&self) -> impl Iterator<Item = (&str, &str)> {
        self.indexed_fields().map(|n| (n, self.index_key(n)))
    }

    pub fn is_filterable(&self, name: &str) -> bool {
        name == "id" || SYSTEM_INDEXED.contains(&name) || self.field(name).is_some_and(|f| f.filter)
    }

    pub fn is_sortable(&self, name: &str) -> bool {
        name == "id" || SYSTEM_INDEXED.contains(&name) || self.field(name).is_some_and(|f| f.sort)
    }

    /// A label the app adds beside a coded value and a client echoes back: `<field>Name` of a dictionary field,
    /// `<stem>Name` of a field `<stem>Id` that refers to records (unless declared as a field itself).
    pub fn is_display_key(&self, k: &str) -> bool {
        let Some(stem) = k.strip_suffix("Name") else { return false };
        self.field(k).is_none()
            && self.fields.iter().any(|f| (f.dict.is_some() && f.name == stem) || (f.refers.is_some() && f.name.strip_suffix("Id").unwrap_or(&f.name) == stem))
    }

    /// Read-only fields of `input` (stock figures, statuses moved by their own actions, counters) that would
    /// change what is stored: `old` for an update, the field's default (or nothing) for an insert. A client that
    /// sends a record back as it read it (Saber posts whole rows) passes; one that tries to set such a field is
    /// refused naming it, instead of having the value silently dropped (`parse_input` never writes them).
    pub fn readonly_changes(&self, input: &Map<String, Value>, old: Option<&Map<String, Value>>) -> Result<()> {
        // JSON fields (a line's reservations) are kept by their actions and may come back reshaped: never compared.
        for f in self.fields.iter().filter(|f| f.readonly && !f.derived && f.kind != FieldKind::Json) {
            let Some(v) = input.get(&f.name) else { continue };
            if v.is_null() || v.as_str().is_some_and(|s| s.trim().is_empty()) {
                continue;
            }
            let parsed = parse_value(f, v).map_err(|_| StoreError::field(f, FieldProblem::ReadOnly))?;
            let now = match old {
                Some(o) => o.get(&f.name).cloned().unwrap_or(Value::Null),
                None => f.default.clone().unwrap_or(Value::Null),
            };
            let zero = |x: &Value| x.is_null() || x.as_i64() == Some(0) || x.as_str() == Some("");
            if parsed != now && !(zero(&parsed) && zero(&now)) {
                return Err(StoreError::field(f, FieldProblem::ReadOnly));
            }
        }
        Ok(())
    }

    /// Parses client input into typed values. `insert` demands required fields; an update changes only the
    /// fields present. Audit columns, read-only fields and `$`-prefixed display keys are dropped; any other
    /// unknown key is refused by name.
    pub fn parse_input(&self, input: &Map<String, Value>, insert: bool) -> Result<Map<String, Value>> {
        let mut out = Map::new();
        for (k, v) in input {
            let audit = AUDIT_FIELDS.contains(&k.as_str()) && k != "status" && self.field(k).is_none();
            if k.starts_with('$') || audit || self.ignore.contains(k) || self.is_display_key(k) {
                continue;
            }
            let Some(f) = self.field(k) else {
                if k == "status" {
                    continue;
                }
                return Err(StoreError::invalid(k, FieldProblem::Unknown));
            };
            if f.readonly {
                continue;
            }
            let parsed = parse_value(f, v)?;
            if parsed.is_null() && f.required {
                return Err(StoreError::field(f, FieldProblem::Required));
            }
            out.insert(k.clone(), parsed);
        }
        if insert {
            for f in &self.fields {
                if out.get(&f.name).is_none_or(Value::is_null) {
                    if let Some(d) = &f.default {
                        out.insert(f.name.clone(), d.clone());
                    } else if f.required && !f.readonly {
                        return Err(StoreError::field(f, FieldProblem::Required));
                    }
                }
            }
        }
        Ok(out)
    }
}

/// Parses one input value per the field's kind; `""` means "not set".
pub fn parse_value(f: &FieldDef, v: &Value) -> Result<Value> {
    let bad = |what| Err(StoreError::field(f, FieldProblem::WrongType(what)));
    if v.is_null() || v.as_str() == Some("") {
        return Ok(Value::Null);
    }
    let value = match f.kind {
        FieldKind::Text | FieldKind::Textarea | FieldKind::Date => {
            let s = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) if f.kind != FieldKind::Date => n.to_string(),
                _ => return bad("text"),
            };
            if let Some(max) = f.max_len
                && s.chars().count() > max {
                return Err(StoreError::field(f, FieldProblem::TooLong(max)));
            }
            if f.kind == FieldKind::Date && !is_date(&s) {
                return bad("date");
            }
            if let Some(p) = f.pattern
                && !pattern_ok(p, &s) {
                return Err(StoreError::field(f, FieldProblem::Pattern(pattern_name(p))));
            }
            Value::String(s)
        }
        FieldKind::Int | FieldKind::Flag => {
            let i = match v {
                Value::Number(n) => match n.as_i64() {
                    Some(i) => i,
                    None => return bad("integer"),
                },
                Value::String(s) => match s.trim().parse::<i64>() {
                    Ok(i) => i,
                    Err(_) => return bad("integer"),
                },
                Value::Bool(b) if f.kind == FieldKind::Flag => *b as i64,
                _ => return bad("integer"),
            };
            let (min, max) = if f.kind == FieldKind::Flag { (Some(0), Some(1)) } else { (f.min, f.max) };
            if min.is_some_and(|m| i < m) || max.is_some_and(|m| i > m) {
                return Err(StoreError::field(f, FieldProblem::OutOfRange { min, max }));
            }
            Value::from(i)
        }
        FieldKind::Long => match parse_id_value(v) {
            Some(id) => Value::from(id),
            None => return bad("id"),
        },
        FieldKind::Decimal => {
            let x = match v {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse::<f64>().ok(),
                _ => None,
            };
            match x.filter(|x| x.is_finite()) {
                Some(x) => {
                    if f.min.is_some_and(|m| x < m as f64) || f.max.is_some_and(|m| x > m as f64) {
                        return Err(StoreError::field(f, FieldProblem::OutOfRange { min: f.min, max: f.max }));
                    }
                    serde_json::Number::from_f64(x).map(Value::Number).unwrap_or(Value::Null)
                }
                None => return bad("number"),
            }
        }
        FieldKind::Json => v.clone(),
        FieldKind::Qty => {
            let text = match v {
                Value::Number(n) => n.to_string(),
                Value::String(s) => s.trim().to_string(),
                _ => return bad("quantity"),
            };
            let Some(q) = parse_qty(&text) else { return bad("quantity") };
            if f.min.is_some_and(|m| q < m * QTY_SCALE) || f.max.is_some_and(|m| q > m * QTY_SCALE) {
                return Err(StoreError::field(f, FieldProblem::OutOfRange { min: f.min, max: f.max }));
            }
            Value::from(q)
        }
        FieldKind::Money => {
            let text = match v {
                Value::Number(n) => n.to_string(),
                Value::String(s) => s.trim().to_string(),
                _ => return bad("money"),
            };
            let Some(fen) = parse_money(&text) else { return bad("money") };
            if f.min.is_some_and(|m| fen < m) || f.max.is_some_and(|m| fen > m) {
                return Err(StoreError::field(f, FieldProblem::OutOfRange { min: f.min, max: f.max }));
            }
            Value::from(fen)
        }
    };
    Ok(value)
}

/// Largest amount accepted (fen): 100 billion yuan.
pub const MAX_MONEY_FEN: i64 = 10_000_000_000_000;

/// `"1234.5"` → 123450 fen, exactly from the text: an optional sign, digits, at most two decimals.
pub fn parse_money(s: &str) -> Option<i64> {
    parse_fixed(s, 2, 15, MAX_MONEY_FEN)
}

/// A decimal text as an integer of 10^-`places`: an optional sign, at most `int_digits` digits before the point
/// and `places` after it, at most `max` in size. Exact: no float is involved.
fn parse_fixed(s: &str, places: usize, int_digits: usize, max: i64) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty() || frac.len() > places || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) || int.len() > int_digits {
        return None;
    }
    let whole: i64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let part: i64 = if places == 0 { 0 } else { format!("{frac:0<places$}").parse().ok()? };
    let v = whole.checked_mul(10i64.checked_pow(places as u32)?)?.checked_add(part)?;
    (v <= max).then_some(if neg { -v } else { v })
}

/// 123450 fen → `"1234.50"`.
pub fn format_money(fen: i64) -> String {
    let sign = if fen < 0 { "-" } else { "" };
    let a = fen.unsigned_abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

/// Stored quantities are integers of 1/`QTY_SCALE` of the unit.
pub const QTY_SCALE: i64 = 10_000;
/// Largest quantity accepted (in stored units): a hundred billion of the unit.
pub const MAX_QTY: i64 = 100_000_000_000 * QTY_SCALE;

/// `"12.5"` → 125000, exactly from the text: an optional sign, digits, at most four decimals.
pub fn parse_qty(s: &str) -> Option<i64> {
    parse_fixed(s, 4, 12, MAX_QTY)
}

/// 125000 → `"12.5"`, 30000 → `"3"`: the shortest exact text.
pub fn format_qty(q: i64) -> String {
    let sign = if q < 0 { "-" } else { "" };
    let a = q.unsigned_abs();
    let (whole, part) = (a / QTY_SCALE as u64, a % QTY_SCALE as u64);
    if part == 0 {
        return format!("{sign}{whole}");
    }
    let frac = format!("{part:04}");
    format!("{sign}{whole}.{}", frac.trim_end_matches('0'))
}

/// Ids arrive as JSON strings (64-bit) or small numbers; 0 and negatives are not ids.
pub fn parse_id_value(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    }
    .filter(|&id| id > 0)
}

/// `yyyy-MM-dd` or `yyyy-MM-dd HH:mm:ss` naming a real day and time (2026-13-45 and 02-30 were taken: only the
/// shape was checked).
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let num = |r: std::ops::Range<usize>| b[r].iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    let shaped = b.len() >= 10 && digits(0..4) && b[4] == b'-' && digits(5..7) && b[7] == b'-' && digits(8..10);
    let day = shaped && {
        let (y, m, d) = (num(0..4), num(5..7), num(8..10));
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        let last = match m {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => 0,
        };
        (1..=last).contains(&d)
    };
    match b.len() {
        10 => day,
        19 => day && b[10] == b' ' && digits(11..13) && b[13] == b':' && digits(14..16) && b[16] == b':' && digits(17..19) && num(11..13) < 24 && num(14..16) < 60 && num(17..19) < 60,
        _ => false,
    }
}

pub fn pattern_ok(p: Pattern, s: &str) -> bool {
    match p {
        Pattern::Phone => s.len() == 11 && s.starts_with('1') && s.bytes().all(|c| c.is_ascii_digit()),
        Pattern::Email => {
            let mut parts = s.splitn(2, '@');
            let (user, host) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            !user.is_empty() && host.contains('.') && !host.starts_with('.') && !host.ends_with('.') && !s.contains(char::is_whitespace)
        }
        Pattern::Digits => !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()),
        Pattern::NoSpace => !s.contains(char::is_whitespace),
        Pattern::Code => !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)),
    }
}

pub fn pattern_name(p: Pattern) -> &'static str {
    match p {
        Pattern::Phone => "phone",
        Pattern::Email => "email",
        Pattern::Digits => "digits",
        Pattern::NoSpace => "nospace",
        Pattern::Code => "code",
    }
}

/// Where a field without a declared index key has its entries: under its name; with the test feature
/// `alias-every-index-key`, under `<name>~` instead, so the engine's tests show every index read and write going
/// through `index_key`.
#[cfg(not(feature = "alias-every-index-key"))]
pub(crate) fn undeclared_index_key(field: &str) -> &str {
    field
}

#[cfg(feature = "alias-every-index-key")]
pub(crate) fn undeclared_index_key(field: &str) -> &str {
    static KEYS: std::sync::Mutex<Option<std::collections::HashMap<String, &'static str>>> = std::sync::Mutex::new(None);
    let mut g = KEYS.lock().unwrap_or_else(|e| e.into_inner());
    let keys = g.get_or_insert_with(Default::default);
    if let Some(k) = keys.get(field) {
        return k;
    }
    let k: &'static str = Box::leak(format!("{field}~").into_boxed_str());
    keys.insert(field.to_string(), k);
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn def() -> ResourceDef {
        serde_json::from_value(json!({
            "name": "param", "label": "参数",
            "fields": [
                {"name": "paramName", "label": "参数名称", "required": true, "maxLen": 5, "filter": true},
                {"name": "sort", "kind": "int", "label": "排序", "min": 0, "max": 99},
                {"name": "phone", "label": "手机", "pattern": "phone"},
                {"name": "when", "kind": "date", "label": "时间"}
            ]
        }))
        .unwrap()
    }

    fn problem(r: Result<Map<String, Value>>) -> (String, FieldProblem) {
        match r {
            Err(StoreError::Invalid { field, problem, .. }) => (field, problem),
            other => panic!("expected invalid, got {other:?}"),
        }
    }

    #[test]
    fn required_missing_on_insert_only() {
        let d = def();
        let empty = Map::new();
        assert_eq!(problem(d.parse_input(&empty, true)), ("paramName".into(), FieldProblem::Required));
        assert!(d.parse_input(&empty, false).unwrap().is_empty());
        let blank = json!({"paramName": ""});
        assert_eq!(problem(d.parse_input(blank.as_object().unwrap(), false)).1, FieldProblem::Required);
    }

    #[test]
    fn types_lengths_patterns_and_unknown_keys() {
        let d = def();
        let p = |v: Value| problem(d.parse_input(v.as_object().unwrap(), false));
        assert_eq!(p(json!({"paramName": "长长长长长长"})).1, FieldProblem::TooLong(5));
        assert_eq!(p(json!({"sort": "x"})).1, FieldProblem::WrongType("integer"));
        assert!(matches!(p(json!({"sort": 100})).1, FieldProblem::OutOfRange { .. }));
        assert_eq!(p(json!({"phone": "23812345678"})).1, FieldProblem::Pattern("phone"));
        assert_eq!(p(json!({"when": "2024-13"})).1, FieldProblem::WrongType("date"));
        // A real day and time, not only its shape.
        for bad in ["2026-13-45", "2026-02-29", "2026-04-31", "2026-00-10", "2026-01-00", "2026-01-01 24:00:00", "2026-01-01 12:60:00"] {
            assert_eq!(p(json!({"when": bad})).1, FieldProblem::WrongType("date"), "{bad}");
        }
        for good in ["2024-02-29", "2000-02-29", "2026-12-31", "2026-01-01 23:59:59"] {
            assert!(d.parse_input(json!({"when": good}).as_object().unwrap(), false).is_ok(), "{good}");
        }
        assert_eq!(p(json!({"when": "1900-02-29"})).1, FieldProblem::WrongType("date"));
        assert_eq!(p(json!({"bogus": 1})).0, "bogus");
        let ok = d
            .parse_input(json!({"paramName": "a", "sort": "3", "id": "9", "$x": 1, "createUser": "1"}).as_object().unwrap(), true)
            .unwrap();
        assert_eq!(ok.get("sort"), Some(&json!(3)));
        assert!(!ok.contains_key("id") && !ok.contains_key("createUser"));
    }

    #[test]
    fn money_is_exact_fen() {
        assert_eq!(parse_money("1234.5"), Some(123450));
        assert_eq!(parse_money("0.07"), Some(7));
        assert_eq!(parse_money("-12"), Some(-1200));
        assert_eq!(parse_money(".5"), Some(50));
        for bad in ["", ".", "1.234", "1e3", "12a", "1,000", "99999999999999999"] {
            assert_eq!(parse_money(bad), None, "{bad}");
        }
        assert_eq!(format_money(123450), "1234.50");
        assert_eq!(format_money(-7), "-0.07");
        let f: FieldDef = serde_json::from_value(json!({"name": "amount", "kind": "money", "label": "金额", "min": 0})).unwrap();
        assert_eq!(parse_value(&f, &json!(0.1)).unwrap(), json!(10));
        assert_eq!(parse_value(&f, &json!("19.99")).unwrap(), json!(1999));
        assert!(parse_value(&f, &json!("-1")).is_err());
    }

    #[test]
    fn quantities_are_exact() {
        assert_eq!(parse_qty("12.5"), Some(125_000));
        assert_eq!(parse_qty("0.0001"), Some(1));
        assert_eq!(parse_qty("-3"), Some(-30_000));
        for bad in ["", ".", "1.23456", "1e3", "0x10", "1,5", "9999999999999"] {
            assert_eq!(parse_qty(bad), None, "{bad}");
        }
        assert_eq!(format_qty(125_000), "12.5");
        assert_eq!(format_qty(30_000), "3");
        assert_eq!(format_qty(-1), "-0.0001");
        let f: FieldDef = serde_json::from_value(json!({"name": "qty", "kind": "qty", "label": "数量", "min": 0})).unwrap();
        assert_eq!(parse_value(&f, &json!(0.1)).unwrap(), json!(1000));
        assert_eq!(parse_value(&f, &json!("2.25")).unwrap(), json!(22_500));
        assert!(parse_value(&f, &json!("-1")).is_err());
    }

    #[test]
    fn ids_parse_from_strings() {
        assert_eq!(parse_id_value(&json!("1234567890123456789")), Some(1234567890123456789));
        assert_eq!(parse_id_value(&json!("0")), None);
        assert_eq!(parse_id_value(&json!("-3")), None);
        assert_eq!(parse_id_value(&json!("1x")), None);
    }
}
