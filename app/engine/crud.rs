//! The generic handlers of a declared resource: list, detail, submit (insert without id, update with id) and
//! remove (soft delete of `?ids=`). Permission codes: the resource's menu code to read, `<name>_add`,
//! `<name>_edit`, `<name>_delete` to write. Platform resources are writable only by the platform role.
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value};
use store::ResourceDef;

use crate::auth::session::Session;
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, JsonObject, QueryPairs, json_bytes, ok, ok_bytes};
use crate::state::AppState;

impl Api {
    /// `<base>/list|detail|schema|export|submit|remove` of the resource `name`, all generic.
    pub fn crud(self, base: &str, name: &str) -> Api {
        let def = self.def(name);
        let d3 = def.clone();
        self.read(base, name)
            .post(format!("{base}/submit"), Guard::write(&def, &["add", "edit"]), move |st, s, b| submit(st, s, b, d3))
            .remove(base, name)
    }

    /// `<base>/remove` alone (for resources whose submit is hand-written).
    pub fn remove(self, base: &str, name: &str) -> Api {
        let def = self.def(name);
        self.post(format!("{base}/remove"), Guard::write(&def, &["delete"]), move |st, s, p| remove(st, s, p, def))
    }

    /// The read side only (`list|detail|schema|export`): for records the server writes itself (logs).
    pub fn read(self, base: &str, name: &str) -> Api {
        let def = self.def(name);
        let (d1, d2, d5, d6) = (def.clone(), def.clone(), def.clone(), def.clone());
        let api = base.to_string();
        let g = Guard::read(&def);
        self.base(base, name)
            .get(format!("{base}/schema"), g.clone(), move |st, s, l| schema_route(st, s, l, d5, api))
            .get(format!("{base}/export"), g.clone(), move |st, s, q, l| crate::engine::xlsx::export(st, s, q, l, d6))
            .get(format!("{base}/list"), g.clone(), move |st, s, raw, q| list(st, s, raw, q, d1))
            .get(format!("{base}/detail"), g, move |st, s, q| detail(st, s, q, d2))
    }
}

pub async fn list(
    State(st): State<AppState>,
    s: Session,
    raw: axum::extract::RawQuery,
    QueryPairs(q): QueryPairs,
    def: Arc<ResourceDef>,
) -> ApiResult<Response> {
    Ok(json_bytes(list_body(&st, &s, raw.0.as_deref().unwrap_or(""), &q, &def).await?))
}

/// Largest filtered list answer kept in the list cache (bytes).
const MAX_CACHED_FILTERED: usize = 32 << 10;

/// The answer of `<base>/list` (the whole envelope, as cached): shared by the API and the server-rendered
/// first screens, so both see the same permission check, data scope and rows.
pub async fn list_body(st: &AppState, s: &Session, raw: &str, q: &[(String, String)], def: &Arc<ResourceDef>) -> ApiResult<bytes::Bytes> {
    s.require(def.code())?;
    let mut query = crate::engine::listq::parse(def, st.settings.zone, q)?;
    query.any = crate::auth::scope::guard(st, s, def).await?.unwrap_or_default();
    let stores = crate::auth::scope::store_limit(st, s, def).await?;
    let (d, t, lim) = (def.clone(), s.tenant.clone(), query.limit);
    // Every answer is kept until the resource (or a dictionary its labels come from) changes: versions only
    // grow, so their sum changes whenever one does, and it is read before the snapshot. A data-scoped query
    // (`any`) depends on the viewer's scope rules, as worked out now: they are part of the key. A first page
    // without filters walks at most offset + limit entries from an index end and is read on this thread.
    let bounded = query.unfiltered() && query.sorts.len() <= 1 && query.offset + query.limit <= 2_000;
    let version = st.store_of(def).version(&def.name) + st.store.version("dict") + st.store.version("dictbiz") + refs_version(st, def);
    let viewer = if query.any.is_empty() && stores.is_none() { String::new() } else { format!("{:?}{:?}", query.any, stores) };
    query.filters.extend(stores);
    let key = format!("{}\u{1f}{}\u{1f}{}\u{1f}{}", s.tenant, def.name, viewer, raw);
    if let Some(body) = st.list_cache.get(&key, &version) {
        return Ok(body);
    }
    query.raw_rows = true;
    let page = if bounded { st.read_now_of(&d, |r| r.list(&d, &t, &query))? } else { crate::engine::listq::run(st, &d, &t, query).await? };
    let current = q.iter().rev().find(|(k, _)| k == "current").and_then(|(_, v)| v.parse::<u64>().ok()).unwrap_or(1);
    let body = page_body(st, def, &s.tenant, page, lim, current).await?;
    // Filtered answers are kept when small (a page of a few dozen rows): the cache holds at most 2,000 answers and 64 MiB.
    if bounded || body.len() <= MAX_CACHED_FILTERED {
        st.list_cache.put_sized(key, version, body.clone(), body.len());
    }
    Ok(body)
}

/// The envelope of a list page, its rows written from their stored bytes (`Query::raw_rows`): each in wire
/// form with the labels of its dictionary fields and the titles of the records it names, byte for byte what
/// `wire_records` and `ok_bytes` give for the decoded records (test `rows_are_written_as_records_are`) but
/// without building, serializing and dropping a JSON tree per row — most of a large page's cost (a picker's
/// 999 rows). A row that cannot be read that way sends the page through the decoding path.
pub async fn page_body(st: &AppState, def: &ResourceDef, tenant: &str, page: store::Page, size: u64, current: u64) -> ApiResult<bytes::Bytes> {
    let envelope = |records| ok_bytes(PageOut { records, total: page.total, size, current, pages: page.total.div_ceil(size) });
    // The decoding path: records as they came, and the rows decoded.
    let decoded = |page: &store::Page| -> ApiResult<Vec<Map<String, Value>>> {
        let rows = page.rows.iter().map(|r| store::decode_record(r).map_err(ApiError::internal));
        page.records.iter().cloned().map(Ok).chain(rows).collect()
    };
    let rows: Option<Vec<crate::wire::Row>> = page.rows.iter().map(|r| crate::wire::Row::parse(r)).collect();
    let Some(rows) = rows.filter(|_| page.records.is_empty()) else {
        return envelope(wire_records(st, def, tenant, decoded(&page)?).await?);
    };
    let labels = Labels::load(st, def).await?;
    let refs = Refs::load_rows(st, def, tenant, &rows).await?;
    let fields = crate::wire::FieldIndex::new(def);
    let zone = st.settings.zone;
    // Wire rows run about a third longer than stored ones (quoted ids, formatted times, labels): one allocation.
    let mut out = Vec::with_capacity(page.rows.iter().map(|r| r.len() * 3 / 2 + 64).sum::<usize>() + 160);
    out.extend_from_slice(br#"{"code":200,"success":true,"data":{"records":["#);
    if !write_rows(&rows, &labels, &refs, &fields, zone, &mut out) {
        return envelope(wire_records(st, def, tenant, decoded(&page)?).await?);
    }
    use std::io::Write;
    let _ = write!(out, r#"],"total":{},"size":{},"current":{},"pages":{}}},"msg":"操作成功"}}"#, page.total, size, current, page.total.div_ceil(size));
    Ok(bytes::Bytes::from(out))
}

/// Stored rows in wire form, comma-separated, each with the keys `decorate` adds: what `wire_records` gives for
/// the decoded rows. `false` if a row could not be written so (the caller decodes the page instead).
fn write_rows(rows: &[crate::wire::Row], labels: &Labels, refs: &Refs, fields: &crate::wire::FieldIndex, zone: crate::wire::Zone, out: &mut Vec<u8>) -> bool {
    let mut extras = PageExtras::new(labels, refs, fields);
    let mut at = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        extras.of_row(row, fields, zone, &mut at);
        let extra: Vec<(&str, &[u8])> = at.iter().map(|&(k, v)| (extras.keys[k].key, extras.values[v].as_slice())).collect();
        if !crate::wire::write_row(fields, row, zone, &extra, out) {
            return false;
        }
    }
    true
}

/// The keys `decorate` adds to the rows of a page — the labels of dictionary fields, then the titles of the
/// records they name — each worked out once per distinct stored value of its field (a page of 999 products holds
/// a handful of statuses, units and categories), as `decorate` gives them on the decoded records.
struct PageExtras<'p> {
    /// In key order.
    keys: Vec<ExtraKey<'p>>,
    /// The JSON values worked out so far.
    values: Vec<Vec<u8>>,
}

struct ExtraKey<'p> {
    key: &'p str,
    /// The field the value comes from.
    field: &'p str,
    /// Whether the key is itself a secret declared field (then a row never shows it).
    secret: bool,
    source: Source<'p>,
    /// Stored value of `field` (empty: absent) → index into `values`.
    memo: std::collections::HashMap<&'p [u8], usize>,
    /// Where the last row held `key` and `field` (`Row::get_at`).
    key_at: usize,
    field_at: usize,
}

enum Source<'p> {
    Label(&'p std::collections::HashMap<String, String>),
    Title(&'p std::collections::HashMap<u64, String>),
}

impl<'p> PageExtras<'p> {
    fn new(labels: &'p Labels, refs: &'p Refs, fields: &crate::wire::FieldIndex) -> PageExtras<'p> {
        let secret = |key: &str| fields.get(key.as_bytes()).is_some_and(|f| f.secret);
        let mut keys: Vec<ExtraKey> = Vec::new();
        for (key, labels) in &labels.by_field {
            let field = &key[..key.len() - 4];
            keys.push(ExtraKey { key, field, secret: secret(key), source: Source::Label(labels), memo: Default::default(), key_at: 0, field_at: 0 });
        }
        // A label of the same name comes first (`decorate` does not add a key twice).
        for (field, key, titles) in &refs.by_field {
            if !keys.iter().any(|k| k.key == key) {
                keys.push(ExtraKey { key, field, secret: secret(key), source: Source::Title(titles), memo: Default::default(), key_at: 0, field_at: 0 });
            }
        }
        keys.sort_by(|a, b| a.key.cmp(b.key));
        PageExtras { keys, values: Vec::new() }
    }

    /// The keys added to `row`, as (index into `keys`, index into `values`), in key order.
    fn of_row(&mut self, row: &crate::wire::Row<'p>, fields: &crate::wire::FieldIndex, zone: crate::wire::Zone, out: &mut Vec<(usize, usize)>) {
        out.clear();
        for (k, ek) in self.keys.iter_mut().enumerate() {
            // A row holding the key (a field that is not secret) keeps its own value.
            if !ek.secret && row.get_at(ek.key, &mut ek.key_at).is_some() {
                continue;
            }
            let raw = row.get_at(ek.field, &mut ek.field_at);
            let v = match ek.memo.get(raw.unwrap_or(b"")) {
                Some(&v) => v,
                None => {
                    let coded = wire_of(raw, fields, ek.field, zone);
                    let json = match ek.source {
                        Source::Label(labels) => serde_json::to_vec(&coded.label(labels)),
                        Source::Title(titles) => serde_json::to_vec(coded.id().and_then(|i| titles.get(&i)).map(String::as_str).unwrap_or("")),
                    };
                    self.values.push(json.unwrap_or_default());
                    ek.memo.insert(raw.unwrap_or(b""), self.values.len() - 1);
                    self.values.len() - 1
                }
            };
            out.push((k, v));
        }
    }
}

/// A field's stored value (`raw`) in wire form, as the labels and titles read it.
fn wire_of(raw: Option<&[u8]>, fields: &crate::wire::FieldIndex, field: &str, zone: crate::wire::Zone) -> Coded<'static> {
    let Some(v) = raw.and_then(|raw| crate::wire::wire_value(fields.get(field.as_bytes()), field.as_bytes(), raw, zone)) else { return Coded::Nothing };
    match v.first() {
        Some(b'"') => serde_json::from_slice::<String>(&v).map(|s| Coded::Text(s.into())).unwrap_or(Coded::Nothing),
        Some(b'-' | b'0'..=b'9') => std::str::from_utf8(&v).map(|n| Coded::Number(n.to_string().into())).unwrap_or(Coded::Nothing),
        _ => Coded::Nothing,
    }
}

/// A field's value in wire form as a dictionary label or a referenced record's title is found from it (the same
/// for a decoded record and a stored row).
enum Coded<'a> {
    /// Text: one code, or several separated by commas.
    Text(std::borrow::Cow<'a, str>),
    /// A number, as written.
    Number(std::borrow::Cow<'a, str>),
    Nothing,
}

impl<'a> Coded<'a> {
    fn of(v: Option<&'a Value>) -> Coded<'a> {
        match v {
            Some(Value::String(s)) => Coded::Text(s.as_str().into()),
            Some(Value::Number(n)) => Coded::Number(n.to_string().into()),
            _ => Coded::Nothing,
        }
    }

    /// The labels of its codes, comma-separated (a number is one code).
    fn label(&self, labels: &std::collections::HashMap<String, String>) -> String {
        match self {
            Coded::Text(s) => s.split(',').filter_map(|k| labels.get(k.trim())).cloned().collect::<Vec<_>>().join(","),
            Coded::Number(n) => labels.get(n.as_ref()).cloned().unwrap_or_default(),
            Coded::Nothing => String::new(),
        }
    }

    /// The id it names.
    fn id(&self) -> Option<u64> {
        match self {
            Coded::Text(s) | Coded::Number(s) => s.parse().ok(),
            Coded::Nothing => None,
        }
    }
}

pub async fn schema_route(
    State(st): State<AppState>,
    s: Session,
    lang: axum::Extension<crate::error::Lang>,
    def: Arc<ResourceDef>,
    api: String,
) -> ApiResult<Response> {
    s.require(def.code())?;
    Ok(ok(schema(&st, &def, &api, lang.0).await?))
}

/// The field schema the UI renders a generic screen from: declared fields (secrets left out), their rules and
/// the entries of the dictionaries they bind.
pub async fn schema(st: &AppState, def: &ResourceDef, api: &str, lang: crate::error::Lang) -> ApiResult<Value> {
    let mut dicts = serde_json::Map::new();
    for code in def.fields.iter().filter_map(|f| f.dict.as_deref()) {
        let entries = crate::engine::dict::entries(st, code).await?;
        let list: Vec<Value> = entries
            .iter()
            .map(|e| {
                let label = match lang {
                    crate::error::Lang::En => e.get("dictValueEn").and_then(Value::as_str).filter(|s| !s.is_empty()),
                    crate::error::Lang::Zh => None,
                }
                .or_else(|| e.get("dictValue").and_then(Value::as_str));
                serde_json::json!({"dictKey": e.get("dictKey"), "dictValue": label})
            })
            .collect();
        dicts.insert(code.to_string(), Value::Array(list));
    }
    let fields: Vec<Value> = def
        .fields
        .iter()
        .filter(|f| !f.secret)
        .map(|f| {
            serde_json::json!({
                "name": f.name, "kind": f.kind, "label": f.label, "labelEn": f.label_en, "required": f.required,
                "maxLen": f.max_len, "min": f.min, "max": f.max, "pattern": f.pattern, "filter": f.filter, "sort": f.sort,
                "search": f.search, "dict": f.dict, "list": f.list, "form": f.form && !f.readonly, "readonly": f.readonly,
                "default": f.default, "ui": f.ui, "mask": f.mask,
                // A comma-separated list of ids of another resource (`ui.control: "refs"`, `ui.refers`): picked like one.
                "refers": f.refers.as_deref().or_else(|| f.ui.as_ref().filter(|u| u["control"] == "refs").and_then(|u| u["refers"].as_str())).and_then(|r| ref_picker(st, r)),
                "multi": f.multi,
            })
        })
        .collect();
    let dialect = st.res.decl(&def.name).map(|d| d.describe());
    Ok(serde_json::json!({
        "name": def.name, "label": def.label, "labelEn": def.label_en, "api": api, "platform": def.platform,
        "fields": fields, "dicts": dicts, "ui": def.ui, "dialect": dialect,
    }))
}

/// How a form picks a record of `resource`: its list route (`"METHOD path"`), the field shown and the key the
/// list answers it under (`<stem>Name` beside the id in the referring record).
fn ref_picker(st: &AppState, resource: &str) -> Option<Value> {
    let target = st.res.find(resource)?;
    let title = title_field(&target)?.to_string();
    let list = match st.res.decl(resource) {
        Some(d) => d.path(crate::engine::dialect::Action::List).or_else(|| d.path(crate::engine::dialect::Action::Page)).map(|(m, p)| format!("{m} {p}"))?,
        None if resource == "user" => "GET /api/blade-user/page".to_string(),
        None => format!("GET {}/list", crate::decl::screens(&st.res).into_iter().find(|(n, ..)| n == resource)?.1),
    };
    Some(serde_json::json!({"resource": resource, "list": list, "title": title}))
}

/// Display names BladeX returns beside coded values: for every field bound to a dictionary, `<field>Name` holds
/// the entry's label (`deptCategoryName`, `categoryName`, `userTypeName`), so a Blade client's columns show
/// words, not codes. Dictionaries are read once per change (`dict_labels`, stamped with the `dict` version).
pub struct Labels {
    by_field: Vec<(String, Arc<std::collections::HashMap<String, String>>)>,
}

impl Labels {
    pub async fn load(st: &AppState, def: &ResourceDef) -> ApiResult<Labels> {
        let mut by_field = Vec::new();
        for f in def.fields.iter().filter(|f| !f.secret) {
            let Some(code) = f.dict.as_deref() else { continue };
            by_field.push((format!("{}Name", f.name), dict_labels(st, code).await?));
        }
        Ok(Labels { by_field })
    }

    pub fn is_empty(&self) -> bool {
        self.by_field.is_empty()
    }

    /// Adds the `<field>Name` keys to a record in wire form (never over a declared field of that name).
    pub fn decorate(&self, rec: &mut Map<String, Value>) {
        for (key, labels) in &self.by_field {
            let field = &key[..key.len() - 4];
            if rec.contains_key(key) {
                continue;
            }
            let label = Coded::of(rec.get(field)).label(labels);
            rec.insert(key.clone(), Value::String(label));
        }
    }
}

/// dictKey → dictValue of one platform dictionary, cached until the dictionaries change.
pub async fn dict_labels(st: &AppState, code: &str) -> ApiResult<Arc<std::collections::HashMap<String, String>>> {
    let version = st.store.version("dict");
    if let Some(m) = st.dict_labels.get(&code.to_string(), &version) {
        return Ok(m);
    }
    let entries = crate::engine::dict::entries(st, code).await?;
    let map: std::collections::HashMap<String, String> = entries
        .iter()
        .filter_map(|e| {
            let k = match e.get("dictKey")? {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Some((k, e.get("dictValue").and_then(Value::as_str).unwrap_or("").to_string()))
        })
        .collect();
    let map = Arc::new(map);
    st.dict_labels.put(code.to_string(), version, map.clone());
    Ok(map)
}

/// The Blade page object.
#[derive(serde::Serialize)]
pub struct PageOut<T> {
    pub records: Vec<T>,
    pub total: u64,
    pub size: u64,
    pub current: u64,
    pub pages: u64,
}

pub fn parse_id(raw: Option<&str>) -> ApiResult<u64> {
    let raw = raw.unwrap_or("").trim();
    if raw.is_empty() {
        return Err(ApiError::with(Kind::Missing, "id"));
    }
    raw.parse::<u64>().ok().filter(|i| *i > 0).ok_or_else(|| ApiError::with(Kind::BadId, raw.chars().take(40).collect::<String>()))
}

pub async fn detail(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs, def: Arc<ResourceDef>) -> ApiResult<Response> {
    s.require(def.code())?;
    let id = parse_id(q.iter().find(|(k, _)| k == "id").map(|(_, v)| v.as_str()))?;
    let rec = get_scoped(&st, &s, &def, id).await?;
    Ok(ok(decorated(&st, &s.tenant, &def, rec).await?))
}

/// A record in wire form with its dictionary labels and the titles of the records it names.
pub async fn decorated(st: &AppState, tenant: &str, def: &ResourceDef, rec: Map<String, Value>) -> ApiResult<Map<String, Value>> {
    Ok(wire_records(st, def, tenant, vec![rec]).await?.pop().unwrap_or_default())
}

/// Records as every answer shows them: wire form (ids as strings, times, money, masks), the labels of their
/// dictionary fields and the titles of the records they name (read once for all of them).
pub async fn wire_records(st: &AppState, def: &ResourceDef, tenant: &str, records: Vec<Map<String, Value>>) -> ApiResult<Vec<Map<String, Value>>> {
    let labels = Labels::load(st, def).await?;
    let refs = Refs::load(st, def, tenant, &records).await?;
    Ok(records
        .into_iter()
        .map(|r| {
            let mut w = crate::wire::record(def, st.settings.zone, r);
            labels.decorate(&mut w);
            refs.decorate(&mut w);
            w
        })
        .collect())
}

/// The sum of the change versions of the resources a declaration refers to (their titles are in its answers).
pub fn refs_version(st: &AppState, def: &ResourceDef) -> u64 {
    def.fields.iter().filter_map(|f| f.refers.as_deref()).map(|r| st.store.version(r)).sum()
}

/// The field that names a record for people: `realName`, else the first text field called `…Name`/`name`/
/// `…Title`/`title`, else the first `…Code` field, else the first `…No` (a document's number).
pub fn title_field(def: &ResourceDef) -> Option<&str> {
    let text = |f: &&store::FieldDef| matches!(f.kind, store::FieldKind::Text) && !f.secret;
    def.field("realName")
        .or_else(|| def.fields.iter().filter(text).find(|f| f.name.ends_with("Name") || f.name == "name" || f.name.ends_with("Title") || f.name == "title"))
        .or_else(|| def.fields.iter().filter(text).find(|f| f.name.ends_with("Code")))
        .or_else(|| def.fields.iter().filter(text).find(|f| f.name.ends_with("No")))
        .map(|f| f.name.as_str())
}

/// For every `refers` field (`projectCompanyId`), the named record's title beside the id (`projectCompanyName`),
/// as BladeX's VOs carry them: read once for a whole page.
pub struct Refs {
    /// (field, key added, titles by id)
    by_field: Vec<(String, String, std::collections::HashMap<u64, String>)>,
}

/// At most this many referenced records are read on the calling thread (`AppState::read_now`).
const FEW_REFS: usize = 64;

impl Refs {
    pub async fn load(st: &AppState, def: &ResourceDef, tenant: &str, records: &[Map<String, Value>]) -> ApiResult<Refs> {
        let wanted = Self::wanted(st, def, |field| records.iter().filter_map(|r| r.get(field).and_then(Value::as_u64)).collect());
        Self::fetch(st, tenant, wanted).await
    }

    /// For stored rows read without decoding (the ids as the decoded records would give them).
    pub async fn load_rows(st: &AppState, def: &ResourceDef, tenant: &str, rows: &[crate::wire::Row<'_>]) -> ApiResult<Refs> {
        let wanted = Self::wanted(st, def, |field| {
            rows.iter().filter_map(|r| r.get(field).and_then(|v| std::str::from_utf8(v).ok()?.parse::<u64>().ok())).collect()
        });
        Self::fetch(st, tenant, wanted).await
    }

    #[allow(clippy::type_complexity)]
    fn wanted(
        st: &AppState,
        def: &ResourceDef,
        ids_of: impl Fn(&str) -> std::collections::BTreeSet<u64>,
    ) -> Vec<(String, String, Arc<ResourceDef>, String, std::collections::BTreeSet<u64>)> {
        let mut wanted = Vec::new();
        for f in def.fields.iter().filter(|f| f.refers.is_some() && !f.secret) {
            let Some(target) = f.refers.as_deref().and_then(|r| st.res.find(r)) else { continue };
            let Some(title) = title_field(&target).map(str::to_string) else { continue };
            let key = format!("{}Name", f.name.strip_suffix("Id").unwrap_or(&f.name));
            if def.field(&key).is_none() {
                wanted.push((f.name.clone(), key, target, title, ids_of(&f.name)));
            }
        }
        wanted
    }

    #[allow(clippy::type_complexity)]
    async fn fetch(st: &AppState, tenant: &str, wanted: Vec<(String, String, Arc<ResourceDef>, String, std::collections::BTreeSet<u64>)>) -> ApiResult<Refs> {
        let count: usize = wanted.iter().map(|w| w.4.len()).sum();
        if count == 0 {
            return Ok(Refs { by_field: Vec::new() });
        }
        let t = tenant.to_string();
        let titles = move |r: &store::ReadCtx| {
            let mut out = Vec::new();
            for (field, key, target, title, ids) in wanted {
                let mut titles = std::collections::HashMap::new();
                for id in ids {
                    if let Some(rec) = r.get(&target, &t, id)? {
                        titles.insert(id, rec.get(&title).and_then(Value::as_str).unwrap_or("").to_string());
                    }
                }
                out.push((field, key, titles));
            }
            Ok(out)
        };
        // A few records (a page's categories, its few suppliers) are point reads: read here, without a thread hop.
        let by_field = if count <= FEW_REFS { st.read_now(titles)? } else { st.read(titles).await? };
        Ok(Refs { by_field })
    }

    pub fn decorate(&self, rec: &mut Map<String, Value>) {
        for (field, key, titles) in &self.by_field {
            if rec.contains_key(key) {
                continue;
            }
            let title = Coded::of(rec.get(field)).id().and_then(|i| titles.get(&i)).cloned().unwrap_or_default();
            rec.insert(key.clone(), Value::String(title));
        }
    }
}

/// A record of the session's tenant that its data scopes admit, else 404 (never 403: no oracle).
pub async fn get_scoped(st: &AppState, s: &Session, def: &ResourceDef, id: u64) -> ApiResult<Map<String, Value>> {
    let guard = crate::auth::scope::guard(st, s, def).await?;
    let stores = crate::auth::scope::store_limit(st, s, def).await?;
    let t = s.tenant.clone();
    let rec = st.read_now_of(def, |r| r.get(def, &t, id))?.ok_or_else(|| ApiError::new(Kind::NotFound))?;
    if !crate::auth::scope::admits(&guard, &rec) || stores.is_some_and(|f| !f.matches(&rec)) {
        return Err(ApiError::new(Kind::NotFound));
    }
    Ok(rec)
}

/// The ids among `ids` that exist in the session's tenant and that its data scopes admit.
pub async fn visible_ids(st: &AppState, s: &Session, def: &ResourceDef, ids: &[u64]) -> ApiResult<Vec<u64>> {
    let guard = crate::auth::scope::guard(st, s, def).await?;
    let stores = crate::auth::scope::store_limit(st, s, def).await?;
    let (d, t, ids) = (def.clone(), s.tenant.clone(), ids.to_vec());
    let found = st
        .read(move |r| {
            let mut out = Vec::new();
            for id in ids {
                if let Some(rec) = r.get(&d, &t, id)? {
                    out.push((id, rec));
                }
            }
            Ok(out)
        })
        .await?;
    Ok(found
        .into_iter()
        .filter(|(_, rec)| crate::auth::scope::admits(&guard, rec) && stores.as_ref().is_none_or(|f| f.matches(rec)))
        .map(|(id, _)| id)
        .collect())
}

pub async fn submit(State(st): State<AppState>, s: Session, JsonObject(body): JsonObject, def: Arc<ResourceDef>) -> ApiResult<Response> {
    let saved = save(&st, &s, &body, &def).await?;
    Ok(ok(crate::wire::record(&def, st.settings.zone, saved)))
}

/// The `id` of a body: None for an insert.
pub fn body_id(body: &Map<String, Value>) -> ApiResult<Option<u64>> {
    Ok(match body.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(v)) if v.is_empty() => None,
        Some(v) => Some(store::parse_id_value(v).ok_or_else(|| ApiError::with(Kind::BadId, v.to_string().chars().take(40).collect::<String>()))?),
    })
}

/// The write check of a resource: its `<name>_<action>` code, and the platform role for platform data.
pub fn check_write(s: &Session, def: &ResourceDef, action: &str) -> ApiResult<()> {
    s.require(&format!("{}_{action}", def.code()))?;
    if def.platform && !s.is_platform_admin() {
        return Err(ApiError::new(Kind::PlatformOnly));
    }
    Ok(())
}

/// The generic save: code `<name>_add` or `<name>_edit`, platform rule, data scope on update, parse, write.
pub async fn save(st: &AppState, s: &Session, body: &Map<String, Value>, def: &Arc<ResourceDef>) -> ApiResult<Map<String, Value>> {
    save_with(st, s, body, def, |_| {}).await
}

/// `save` with `prepare` applied to the parsed record before the write (secrets into their stored form).
pub async fn save_with(
    st: &AppState,
    s: &Session,
    body: &Map<String, Value>,
    def: &Arc<ResourceDef>,
    prepare: impl Fn(&mut Map<String, Value>),
) -> ApiResult<Map<String, Value>> {
    let id = body_id(body)?;
    check_write(s, def, if id.is_some() { "edit" } else { "add" })?;
    if let Some(id) = id {
        get_scoped(st, s, def, id).await?;
    }
    let mut doc = def.parse_input(body, id.is_none())?;
    prepare(&mut doc);
    let (d, t, actor) = (def.clone(), s.tenant.clone(), s.actor());
    let saved = st
        .write(move |w| match id {
            Some(id) => w.update(&d, &t, id, doc.clone(), &actor),
            None => w.insert(&d, &t, doc.clone(), &actor),
        })
        .await?;
    Ok(saved)
}

/// The `ids` of a remove request that this session may touch: parsed strictly, then narrowed to records of its
/// tenant that its data scopes admit (an empty result answers 404 in the callers, never 403).
pub async fn removable_ids(st: &AppState, s: &Session, def: &ResourceDef, raw: Option<&str>) -> ApiResult<Vec<u64>> {
    let ids = parse_ids(raw)?;
    visible_ids(st, s, def, &ids).await
}

/// `ids=1,2,3` parsed strictly: any non-id is a 400 naming it; none at all is 请选择至少一条数据.
pub fn parse_ids(raw: Option<&str>) -> ApiResult<Vec<u64>> {
    let mut ids = Vec::new();
    for part in raw.unwrap_or("").split(',').map(str::trim).filter(|p| !p.is_empty()) {
        ids.push(parse_id(Some(part))?);
    }
    if ids.is_empty() {
        return Err(ApiError::new(Kind::NoneSelected));
    }
    if ids.len() > 1000 {
        return Err(ApiError::with(Kind::BadPaging, "ids"));
    }
    Ok(ids)
}

pub async fn remove(State(st): State<AppState>, s: Session, p: AnyParams, def: Arc<ResourceDef>) -> ApiResult<Response> {
    check_write(&s, &def, "delete")?;
    let ids = removable_ids(&st, &s, &def, p.get("ids")).await?;
    let (d, t, actor) = (def.clone(), s.tenant.clone(), s.actor());
    let n = if ids.is_empty() { 0 } else { st.write(move |w| w.remove(&d, &t, &ids, &actor)).await? };
    if n == 0 {
        return Err(ApiError::new(Kind::NotFound));
    }
    Ok(ok(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A page of stored rows written with their labels and titles equals the decoded records in wire form,
    /// decorated: over random rows with repeated and odd codes (lists, unknown, numbers, null), rows that carry
    /// a label key of their own, a secret declared key, and a title key that a label of the same name shadows.
    #[test]
    fn page_rows_are_written_as_decorated_records() {
        use rand::{Rng, SeedableRng};
        let def: ResourceDef = serde_json::from_value(serde_json::json!({
            "name": "thing", "label": "t",
            "fields": [
                {"name": "status", "kind": "int", "label": "s", "dict": "st"},
                {"name": "kinds", "label": "k", "dict": "kd"},
                {"name": "categoryId", "kind": "long", "label": "c", "refers": "cat"},
                {"name": "kindsId", "kind": "long", "label": "k2", "refers": "cat"},
                {"name": "unit", "label": "u", "dict": "un"},
                {"name": "unitName", "label": "un", "secret": true}
            ]
        }))
        .unwrap();
        let map = |pairs: &[(&str, &str)]| Arc::new(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<HashMap<_, _>>());
        let labels = Labels {
            by_field: vec![
                ("statusName".into(), map(&[("1", "启用"), ("2", "停用")])),
                ("kindsName".into(), map(&[("a", "瓷砖"), ("b", "地板 \"实木\"")])),
                ("unitName".into(), map(&[("m2", "平方米")])),
            ],
        };
        let titles: HashMap<u64, String> = [(7, "墙砖".to_string()), (9, "石材".to_string())].into_iter().collect();
        let refs = Refs { by_field: vec![("categoryId".into(), "categoryName".into(), titles.clone()), ("kindsId".into(), "kindsName".into(), titles)] };
        let seed: u64 = std::env::var("ZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random);
        println!("seed {seed}");
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let zone = crate::wire::Zone::parse("+08:00").unwrap();
        let fields = crate::wire::FieldIndex::new(&def);
        let codes = [
            serde_json::json!(1), serde_json::json!(2), serde_json::json!(3), serde_json::json!("1"), serde_json::json!("a"),
            serde_json::json!("a,b"), serde_json::json!("b, x"), serde_json::json!(null), serde_json::json!(7), serde_json::json!("9"),
            serde_json::json!(true),
        ];
        for _ in 0..200 {
            let docs: Vec<Map<String, Value>> = (0..rng.random_range(0..40))
                .map(|i| {
                    let mut d = Map::new();
                    d.insert("id".into(), Value::from(i + 1));
                    for k in ["status", "kinds", "categoryId", "kindsId", "unit", "unitName", "statusName", "categoryName"] {
                        if rng.random_bool(if k.ends_with("Name") { 0.2 } else { 0.8 }) {
                            d.insert(k.into(), codes[rng.random_range(0..codes.len())].clone());
                        }
                    }
                    d
                })
                .collect();
            // The stored format: a version byte, then the record as serde_json writes it.
            let stored: Vec<Vec<u8>> = docs.iter().map(|d| [&[1u8][..], &serde_json::to_vec(d).unwrap()].concat()).collect();
            let rows: Vec<crate::wire::Row> = stored.iter().map(|b| crate::wire::Row::parse(b).unwrap()).collect();
            let mut out = Vec::new();
            assert!(write_rows(&rows, &labels, &refs, &fields, zone, &mut out));
            let expected: Vec<Map<String, Value>> = docs
                .into_iter()
                .map(|d| {
                    let mut w = crate::wire::record(&def, zone, d);
                    labels.decorate(&mut w);
                    refs.decorate(&mut w);
                    w
                })
                .collect();
            let expected = serde_json::to_string(&expected).unwrap();
            assert_eq!(format!("[{}]", String::from_utf8(out).unwrap()), expected, "seed {seed}");
        }
    }
}

/// Ids of `raw` (comma list) that all exist in the tenant as records of `res`, else 404.
pub async fn existing(st: &AppState, tenant: &str, res: &str, raw: &str) -> ApiResult<Vec<u64>> {
    let ids = parse_ids(Some(raw))?;
    let (d, t, want) = (st.res.get(res), tenant.to_string(), ids.clone());
    let found = st.read(move |r| Ok(want.iter().filter(|i| r.get(&d, &t, **i).ok().flatten().is_some()).count())).await?;
    if found != ids.len() {
        return Err(ApiError::new(Kind::NotFound));
    }
    Ok(ids)
}


/// Drops blank write-only fields from an update (the edit form never has them: they are not returned).
pub fn keep_secrets_on_update(def: &ResourceDef, body: &mut Map<String, Value>, update: bool) {
    if update {
        for f in def.fields.iter().filter(|f| f.secret) {
            if matches!(body.get(&f.name), Some(Value::Null)) || body.get(&f.name).and_then(Value::as_str).is_some_and(|v| v.is_empty()) {
                body.remove(&f.name);
            }
        }
    }
}

/// Submit of a resource with write-only fields: blank secrets keep the stored ones on update, `prepare` turns
/// secrets into their stored form (a hash) before the write.
pub async fn secret_submit(
    State(st): State<AppState>,
    s: Session,
    JsonObject(mut body): JsonObject,
    def: Arc<ResourceDef>,
    prepare: fn(&mut Map<String, Value>),
) -> ApiResult<Response> {
    let id = body_id(&body)?;
    keep_secrets_on_update(&def, &mut body, id.is_some());
    let saved = save_with(&st, &s, &body, &def, prepare).await?;
    Ok(ok(crate::wire::record(&def, st.settings.zone, saved)))
}

pub fn no_prepare(_: &mut Map<String, Value>) {}

