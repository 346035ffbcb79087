//! Excel files of declared resources, one layout both ways.
//!
//! - `GET <base>/export?<filters>`: the list's filter as a sheet (every resource; list columns, labels in the
//!   client's language, dictionary values as their labels, records named by their titles, amounts as numbers);
//! - `GET <base>/import-template` and `POST <base>/import?isCovered=0|1` (multipart `file`), for declarations whose
//!   `api` says `"import": true` (the warehouse's master data): the columns a person fills in, found by their
//!   header (Chinese or English label, or the field's name), so an exported file imports as it is.
//!
//! An import is all or nothing: every row goes through the resource's own write path (`dialect::write_in`: codes,
//! references, the area's rules, history) in one transaction, and the first refused row refuses the file with its
//! row number, column and reason. A dictionary column takes an entry's label or key; a reference column takes
//! the record's code (any unique text field of it), its title when that names one record, or its id. Rows whose
//! code (the generated code field, else the first unique text column) names an existing record are updated with
//! `isCovered=1` (code `<name>_edit` too) and skipped otherwise.
use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{FromRequest, Request, State};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use store::{FieldDef, FieldKind, Filter, Op, Query, ResourceDef, StoreError, WriteCtx};

use crate::auth::session::Session;
use crate::engine::crud;
use crate::engine::dialect::{Ctx, Env, Rules};
use crate::error::{ApiError, ApiResult, Kind, Lang, rule};
use crate::http::{QueryPairs, ok};
use crate::state::AppState;

/// Most rows in one export.
const EXPORT_MAX: u64 = 10_000;
/// Most rows in one import.
pub const IMPORT_MAX: usize = 5_000;
/// A title is looked up by walking the referred records only when there are at most this many (else by index).
const TITLE_WALK_MAX: u64 = 5_000;

fn label(f: &FieldDef, en: bool) -> &str {
    if en && !f.label_en.is_empty() { &f.label_en } else { &f.label }
}

/// The resource a reference column names records of: a `refers` field, or a list of ids (`ui.refers`).
fn target(f: &FieldDef) -> Option<&str> {
    f.refers.as_deref().or_else(|| f.ui.as_ref().filter(|u| u["control"] == "refs").and_then(|u| u["refers"].as_str()))
}

/// The columns a person fills in: form fields written from input (not read-only, not secret, not JSON).
pub fn columns(def: &ResourceDef) -> Vec<&FieldDef> {
    def.fields.iter().filter(|f| f.form && !f.readonly && !f.secret && f.kind != FieldKind::Json).collect()
}

pub fn xlsx_response(bytes: Vec<u8>, file: &str) -> Response {
    let enc: String = file
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect();
    let disposition = format!("attachment; filename=\"export.xlsx\"; filename*=UTF-8''{enc}");
    let mut resp = bytes.into_response();
    let h = resp.headers_mut();
    h.insert(axum::http::header::CONTENT_TYPE, axum::http::HeaderValue::from_static("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"));
    if let Ok(v) = axum::http::HeaderValue::from_str(&disposition) {
        h.insert(axum::http::header::CONTENT_DISPOSITION, v);
    }
    h.insert(axum::http::header::X_CONTENT_TYPE_OPTIONS, axum::http::HeaderValue::from_static("nosniff"));
    resp
}

fn xl(e: rust_xlsxwriter::XlsxError) -> ApiError {
    ApiError::internal(e)
}

fn file_name(st: &AppState, def: &ResourceDef, en: bool, what: &str) -> String {
    let name = if en && !def.label_en.is_empty() { &def.label_en } else { &def.label };
    let day: String = st.settings.zone.format(store::now_millis()).chars().take(10).collect();
    format!("{name}{what}-{day}.xlsx")
}

/// Titles of the records named by a list-of-ids column (`storeIds` → store names), read once for a whole sheet.
async fn multi_titles(st: &AppState, def: &ResourceDef, tenant: &str, rows: &[Map<String, Value>]) -> ApiResult<HashMap<String, HashMap<u64, String>>> {
    let mut wanted = Vec::new();
    for f in def.fields.iter().filter(|f| f.refers.is_none() && !f.secret) {
        let Some(t) = target(f).and_then(|t| st.res.find(t)) else { continue };
        let Some(title) = crud::title_field(&t).map(str::to_string) else { continue };
        let ids: std::collections::BTreeSet<u64> = rows.iter().flat_map(|r| crate::auth::session::id_list(r.get(&f.name))).collect();
        wanted.push((f.name.clone(), t, title, ids));
    }
    if wanted.is_empty() {
        return Ok(HashMap::new());
    }
    let t = tenant.to_string();
    st.read(move |r| {
        let mut out = HashMap::new();
        for (field, target, title, ids) in wanted {
            let mut m = HashMap::new();
            for id in ids {
                if let Some(rec) = r.get(&target, &t, id)? {
                    m.insert(id, rec.get(&title).and_then(Value::as_str).unwrap_or("").to_string());
                }
            }
            out.insert(field, m);
        }
        Ok(out)
    })
    .await
}

/// GET `<base>/export?<filters>`: the current filter as an Excel file, at most 10,000 rows.
pub async fn export(
    State(st): State<AppState>,
    s: Session,
    QueryPairs(q): QueryPairs,
    lang: axum::Extension<Lang>,
    def: Arc<ResourceDef>,
) -> ApiResult<Response> {
    s.require(def.code())?;
    let pairs: Vec<(String, String)> = q.into_iter().filter(|(k, _)| k != "current" && k != "size").collect();
    let mut query = crate::engine::listq::parse(&def, st.settings.zone, &pairs)?;
    query.offset = 0;
    query.limit = EXPORT_MAX;
    query.any = crate::auth::scope::guard(&st, &s, &def).await?.unwrap_or_default();
    if let Some(f) = crate::auth::scope::store_limit(&st, &s, &def).await? {
        query.filters.push(f);
    }
    let query = crate::engine::listq::with_hint(&st, &def, &s.tenant, query).await?;
    let (d, t) = (def.clone(), s.tenant.clone());
    let page = st.read_of(&def, move |r| r.list(&d, &t, &query)).await?;
    let en = lang.0 == Lang::En;
    let multi = multi_titles(&st, &def, &s.tenant, &page.records).await?;
    let records = crud::wire_records(&st, &def, &s.tenant, page.records).await?;
    let cols: Vec<&FieldDef> = def.fields.iter().filter(|f| f.list && !f.secret).collect();
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    let bold = rust_xlsxwriter::Format::new().set_bold();
    for (i, f) in cols.iter().enumerate() {
        sheet.write_string_with_format(0, i as u16, label(f, en), &bold).map_err(xl)?;
        sheet.set_column_width(i as u16, 18).map_err(xl)?;
    }
    let created = cols.len() as u16;
    sheet.write_string_with_format(0, created, if en { "Created" } else { "创建时间" }, &bold).map_err(xl)?;
    sheet.set_column_width(created, 20).map_err(xl)?;
    for (r, rec) in records.iter().enumerate() {
        let row = r as u32 + 1;
        for (i, f) in cols.iter().enumerate() {
            let col = i as u16;
            match cell_out(f, rec, &multi, en) {
                Out::Number(n) => sheet.write_number(row, col, n).map_err(xl)?,
                Out::Text(t) if !t.is_empty() => sheet.write_string(row, col, t).map_err(xl)?,
                Out::Text(_) => sheet,
            };
        }
        if let Some(Value::String(c)) = rec.get("createTime") {
            sheet.write_string(row, created, c.as_str()).map_err(xl)?;
        }
    }
    let bytes = book.save_to_buffer().map_err(xl)?;
    Ok(xlsx_response(bytes, &file_name(&st, &def, en, "")))
}

enum Out {
    Number(f64),
    Text(String),
}

/// How a field of a record in wire form is written to a cell: labels for dictionary values, titles for
/// references, numbers for amounts and counts, 是/否 for switches.
fn cell_out(f: &FieldDef, rec: &Map<String, Value>, multi: &HashMap<String, HashMap<u64, String>>, en: bool) -> Out {
    let v = rec.get(&f.name);
    let text = |v: Option<&Value>| match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    if f.dict.is_some() || f.refers.is_some() {
        let key = format!("{}Name", if f.refers.is_some() { f.name.strip_suffix("Id").unwrap_or(&f.name) } else { &f.name });
        let shown = text(rec.get(&key));
        return Out::Text(if shown.is_empty() && f.refers.is_none() { text(v) } else { shown });
    }
    if let Some(titles) = multi.get(&f.name) {
        let ids = crate::auth::session::id_list(v);
        return Out::Text(ids.iter().map(|i| titles.get(i).cloned().unwrap_or_else(|| i.to_string())).collect::<Vec<_>>().join(","));
    }
    match f.kind {
        FieldKind::Flag => Out::Text(match v.and_then(|x| x.as_i64().or_else(|| x.as_str().and_then(|s| s.parse().ok()))) {
            Some(1) => (if en { "Yes" } else { "是" }).into(),
            Some(0) => (if en { "No" } else { "否" }).into(),
            _ => String::new(),
        }),
        FieldKind::Int | FieldKind::Decimal | FieldKind::Money | FieldKind::Qty => {
            let t = text(v);
            match t.parse::<f64>() {
                Ok(n) if n.is_finite() => Out::Number(n),
                _ => Out::Text(t),
            }
        }
        _ => Out::Text(text(v)),
    }
}

/// The code that matches a row to an existing record: the declaration's generated code field, else the first
/// unique text field among the columns.
fn key_field<'a>(st: &AppState, def: &'a ResourceDef) -> Option<&'a FieldDef> {
    let code = st.res.decl(&def.name).and_then(|d| d.code.as_ref().map(|c| c.field.clone()));
    code.and_then(|c| def.field(&c)).or_else(|| columns(def).into_iter().find(|f| f.unique && f.kind == FieldKind::Text))
}

/// What a column's cells may hold, for the template's notes.
fn hint(st: &AppState, def: &ResourceDef, f: &FieldDef, dict: &[(String, String, String)], en: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(t) = target(f).and_then(|t| st.res.find(t)) {
        let name = if en && !t.label_en.is_empty() { &t.label_en } else { &t.label };
        parts.push(if en { format!("the code or name of a record of {name}") } else { format!("填写{name}的编码或名称") });
        if f.multi || f.refers.is_none() {
            parts.push(if en { "several separated by commas".into() } else { "多个用逗号分隔".into() });
        }
    } else if f.dict.is_some() {
        let opts: Vec<&str> = dict.iter().map(|(_, zh, e)| if en && !e.is_empty() { e.as_str() } else { zh.as_str() }).collect();
        parts.push(if en { format!("one of: {}", opts.join(" / ")) } else { format!("可填:{}", opts.join(" / ")) });
    } else {
        parts.push(match (f.kind, en) {
            (FieldKind::Flag, false) => "是 / 否".into(),
            (FieldKind::Flag, true) => "Yes / No".into(),
            (FieldKind::Money, false) => "金额(元),最多两位小数".into(),
            (FieldKind::Money, true) => "amount in yuan, at most two decimals".into(),
            (FieldKind::Qty, false) => "数量,最多四位小数".into(),
            (FieldKind::Qty, true) => "quantity, at most four decimals".into(),
            (FieldKind::Int, false) => "整数".into(),
            (FieldKind::Int, true) => "a whole number".into(),
            (FieldKind::Decimal, false) => "数字".into(),
            (FieldKind::Decimal, true) => "a number".into(),
            (FieldKind::Date, _) => "yyyy-MM-dd".into(),
            (_, false) => f.max_len.map(|n| format!("最多 {n} 个字")).unwrap_or_default(),
            (_, true) => f.max_len.map(|n| format!("at most {n} characters")).unwrap_or_default(),
        });
    }
    let code = st.res.decl(&def.name).and_then(|d| d.code.as_ref().map(|c| c.field.clone()));
    if code.as_deref() == Some(f.name.as_str()) {
        parts.push(if en { "left empty: generated".into() } else { "留空则自动生成".into() });
    }
    if f.unique {
        parts.push(if en { "unique; an existing code updates that record when overwriting is chosen".into() } else { "不可重复;选择覆盖时,已有编码的行更新该记录".into() });
    }
    parts.retain(|p| !p.is_empty());
    parts.join(if en { "; " } else { ";" })
}

/// (key, zh label, en label) of a dictionary.
type DictRows = Vec<(String, String, String)>;

async fn dicts(st: &AppState, def: &ResourceDef) -> ApiResult<HashMap<String, DictRows>> {
    let mut out = HashMap::new();
    for code in columns(def).iter().filter_map(|f| f.dict.as_deref()) {
        if out.contains_key(code) {
            continue;
        }
        let entries = crate::engine::dict::entries(st, code).await?;
        let rows = entries
            .iter()
            .map(|e| {
                let k = match e.get("dictKey") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                let s = |n: &str| e.get(n).and_then(Value::as_str).unwrap_or("").to_string();
                (k, s("dictValue"), s("dictValueEn"))
            })
            .collect();
        out.insert(code.to_string(), rows);
    }
    Ok(out)
}

/// GET `<base>/import-template`: the header row of the columns to fill in, and a sheet of notes per column.
pub async fn template(State(st): State<AppState>, s: Session, lang: axum::Extension<Lang>, def: Arc<ResourceDef>) -> ApiResult<Response> {
    crud::check_write(&s, &def, "add")?;
    let en = lang.0 == Lang::En;
    let dicts = dicts(&st, &def).await?;
    let cols = columns(&def);
    let mut book = rust_xlsxwriter::Workbook::new();
    let bold = rust_xlsxwriter::Format::new().set_bold();
    let need = rust_xlsxwriter::Format::new().set_bold().set_font_color(rust_xlsxwriter::Color::Red);
    let key = key_field(&st, &def).map(|f| f.name.clone());
    let required = |f: &FieldDef| f.required && f.default.is_none() && key.as_deref() != Some(f.name.as_str());
    let sheet = book.add_worksheet();
    sheet.set_name(if en { "Data" } else { "数据" }).map_err(xl)?;
    for (i, f) in cols.iter().enumerate() {
        sheet.write_string_with_format(0, i as u16, label(f, en), if required(f) { &need } else { &bold }).map_err(xl)?;
        sheet.set_column_width(i as u16, 18).map_err(xl)?;
    }
    let notes = book.add_worksheet();
    notes.set_name(if en { "Notes" } else { "填写说明" }).map_err(xl)?;
    let heads = if en { ["Column", "Required", "What to fill in"] } else { ["列名", "必填", "填写说明"] };
    for (i, h) in heads.iter().enumerate() {
        notes.write_string_with_format(0, i as u16, *h, &bold).map_err(xl)?;
    }
    notes.set_column_width(0, 18).map_err(xl)?;
    notes.set_column_width(2, 70).map_err(xl)?;
    for (r, f) in cols.iter().enumerate() {
        let row = r as u32 + 1;
        let d = f.dict.as_deref().and_then(|c| dicts.get(c)).map(Vec::as_slice).unwrap_or(&[]);
        notes.write_string(row, 0, label(f, en)).map_err(xl)?;
        notes.write_string(row, 1, if required(f) { if en { "yes" } else { "是" } } else { "" }).map_err(xl)?;
        notes.write_string(row, 2, hint(&st, &def, f, d, en)).map_err(xl)?;
    }
    let bytes = book.save_to_buffer().map_err(xl)?;
    Ok(xlsx_response(bytes, &file_name(&st, &def, en, if en { " template" } else { "导入模板" })))
}

/// One row of the file: its row number in the sheet and the text of each column, by field name.
struct Row {
    no: usize,
    cells: Vec<(String, String)>,
}

/// The sheet's rows mapped to the resource's columns by their headers (read within `sheet`'s bounds).
fn read_rows(def: &ResourceDef, bytes: &[u8]) -> ApiResult<Vec<Row>> {
    let cols = columns(def);
    // Header → field: the Chinese or English label, or the field's own name; other columns (read-only ones
    // and 创建时间 of an exported file) are left alone.
    let mut names: Vec<String> = Vec::new();
    let rows = crate::engine::sheet::read(bytes, IMPORT_MAX, |header| {
        let mut at: Vec<usize> = Vec::new();
        for (i, h) in header.iter().enumerate() {
            let h = h.trim().trim_start_matches('*');
            if let Some(f) = cols.iter().find(|f| f.label == h || (!f.label_en.is_empty() && f.label_en.eq_ignore_ascii_case(h)) || f.name == h)
                && !names.contains(&f.name) {
                at.push(i);
                names.push(f.name.clone());
            }
        }
        if at.is_empty() {
            let labels: Vec<&str> = cols.iter().map(|f| f.label.as_str()).collect();
            return Err(ApiError::rule(
                format!("第一行没有可识别的列名;请使用导入模板(列:{})", labels.join("、")),
                "The first row names no known column; use the import template",
            ));
        }
        Ok(at)
    })?;
    if rows.is_empty() {
        return Err(ApiError::rule("文件中没有数据行", "The file has no data rows"));
    }
    Ok(rows.into_iter().map(|r| Row { no: r.no, cells: names.iter().cloned().zip(r.cells().map(str::to_string)).collect() }).collect())
}

/// A dictionary cell to its key: a label (either language) or the key itself.
fn dict_key(rows: &DictRows, v: &str) -> Option<String> {
    rows.iter().find(|(k, zh, en)| k == v || zh == v || (!en.is_empty() && en.eq_ignore_ascii_case(v))).map(|(k, ..)| k.clone())
}

fn flag(v: &str) -> Option<&'static str> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "是" | "yes" | "y" | "true" | "启用" => Some("1"),
        "0" | "否" | "no" | "n" | "false" | "停用" => Some("0"),
        _ => None,
    }
}

/// A reference cell to the id of one live record of `target` in the tenant: its id, a unique code, or its title.
fn resolve(w: &WriteCtx, tenant: &str, target: &ResourceDef, v: &str) -> store::Result<Option<u64>> {
    if let Ok(id) = v.parse::<u64>()
        && w.get(target, tenant, id)?.is_some() {
        return Ok(Some(id));
    }
    for f in target.fields.iter().filter(|f| f.unique && f.kind == FieldKind::Text) {
        if let Some(id) = w.find_unique(target, tenant, &f.name, v)? {
            return Ok(Some(id));
        }
    }
    let Some(title) = crud::title_field(target) else { return Ok(None) };
    let indexed = target.field(title).is_some_and(FieldDef::indexed);
    if !indexed && w.count(target, tenant)? > TITLE_WALK_MAX {
        return Ok(None);
    }
    let q = Query { filters: vec![Filter::new(title, Op::Equal, json!(v))], limit: 2, ..Query::default() };
    let page = w.list(target, tenant, &q)?;
    match page.records.as_slice() {
        [one] => Ok(one.get("id").and_then(Value::as_u64)),
        [] => Ok(None),
        _ => Err(rule(format!("名称「{v}」对应多条记录,请填写编码"), format!("\"{v}\" names several records; use the code"))),
    }
}

/// A row's cells as a record body: dictionary labels to keys, switches to 0/1, references to ids.
fn row_body(w: &WriteCtx, cx: &Ctx, def: &ResourceDef, dicts: &HashMap<String, DictRows>, row: &Row) -> store::Result<Map<String, Value>> {
    let mut body = Map::new();
    for (name, v) in &row.cells {
        let f = def.field(name).expect("a column is a field");
        let v = v.trim();
        if v.is_empty() {
            continue;
        }
        let bad = || StoreError::field(f, store::FieldProblem::WrongType("value"));
        let value = if let Some(t) = target(f) {
            let tdef = cx.def(t);
            let mut ids = Vec::new();
            let parts: Vec<&str> = if f.multi || f.refers.is_none() { v.split([',', '，', '、']).map(str::trim).filter(|p| !p.is_empty()).collect() } else { vec![v] };
            for p in parts {
                match resolve(w, cx.tenant, &tdef, p)? {
                    Some(id) => ids.push(id.to_string()),
                    None => {
                        let tl = tdef.label.clone();
                        return Err(rule(format!("找不到{tl}「{p}」"), format!("No {} \"{p}\"", if tdef.label_en.is_empty() { &tdef.label } else { &tdef.label_en })));
                    }
                }
            }
            Value::String(ids.join(","))
        } else if let Some(code) = f.dict.as_deref() {
            Value::String(dicts.get(code).and_then(|d| dict_key(d, v)).ok_or_else(bad)?)
        } else if f.kind == FieldKind::Flag {
            Value::String(flag(v).ok_or_else(bad)?.to_string())
        } else {
            Value::String(v.to_string())
        };
        body.insert(f.name.clone(), value);
    }
    Ok(body)
}

/// A refused row's message: its row number, and the column named by its label rather than its field name.
fn row_error(def: &ResourceDef, no: usize, e: StoreError) -> StoreError {
    if e.is_storage() {
        return e;
    }
    let mut err = ApiError::from(e);
    let (zh, en) = match def.field(&err.arg).map(|f| (f.label.clone(), if f.label_en.is_empty() { f.label.clone() } else { f.label_en.clone() })) {
        Some((zh_label, en_label)) => {
            err.arg = zh_label;
            let zh = err.message(Lang::Zh);
            err.arg = en_label;
            (zh, err.message(Lang::En))
        }
        None => (err.message(Lang::Zh), err.message(Lang::En)),
    };
    rule(format!("第 {no} 行:{zh}"), format!("Row {no}: {en}"))
}

/// POST `<base>/import?isCovered=0|1` (multipart `file`).
pub async fn import(
    State(st): State<AppState>,
    s: Session,
    QueryPairs(q): QueryPairs,
    def: Arc<ResourceDef>,
    rules: Rules,
    req: Request,
) -> ApiResult<Response> {
    crud::check_write(&s, &def, "add")?;
    let covered = q.iter().any(|(k, v)| k == "isCovered" && (v == "1" || v == "true"));
    if covered {
        crud::check_write(&s, &def, "edit")?;
    }
    let mp = axum::extract::Multipart::from_request(req, &st).await.map_err(|_| ApiError::with(Kind::BadFormat, "multipart"))?;
    let up = crate::engine::uploads::read_upload(&st, &s, mp, crate::engine::uploads::MAX_FILE).await?;
    let _slot = st.imports.enter(&s.tenant)?;
    let d = def.clone();
    let bytes = up.read_all().await?;
    let rows = tokio::task::spawn_blocking(move || read_rows(&d, &bytes)).await.map_err(ApiError::internal)??;
    drop(up);
    let dicts = dicts(&st, &def).await?;
    // Rows naming an existing record by code: updated when covering (within the user's data scope), else skipped.
    let key = key_field(&st, &def).map(|f| f.name.clone());
    let mut plan: Vec<(Option<u64>, Row)> = Vec::new();
    let mut skipped = 0;
    for row in rows {
        let code = key.as_ref().and_then(|k| row.cells.iter().find(|(n, v)| n == k && !v.trim().is_empty())).map(|(_, v)| v.trim().to_string());
        let existing = match (&key, code) {
            (Some(k), Some(c)) => {
                let (d, t, k) = (def.clone(), s.tenant.clone(), k.clone());
                st.read(move |r| r.find_unique(&d, &t, &k, &c)).await?
            }
            _ => None,
        };
        match existing {
            Some(_) if !covered => skipped += 1,
            Some(id) => {
                crud::get_scoped(&st, &s, &def, id).await.map_err(|_| {
                    ApiError::rule(format!("第 {} 行:无权修改该记录", row.no), format!("Row {}: you may not change this record", row.no))
                })?;
                plan.push((Some(id), row));
            }
            None => plan.push((None, row)),
        }
    }
    let plan = Arc::new(plan);
    let (env, d, p) = (Env::new(&st, &s), def.clone(), plan.clone());
    let (inserted, updated) = st
        .write(move |w| {
            let cx = env.cx();
            let (mut ins, mut upd) = (0u64, 0u64);
            for (id, row) in p.iter() {
                let one = |w: &mut WriteCtx| -> store::Result<()> {
                    let body = row_body(w, &cx, &d, &dicts, row)?;
                    let doc = d.parse_input(&body, id.is_none())?;
                    crate::engine::dialect::write_in(w, &cx, &d, rules, *id, doc)?;
                    Ok(())
                };
                one(w).map_err(|e| row_error(&d, row.no, e))?;
                if id.is_some() { upd += 1 } else { ins += 1 }
            }
            Ok((ins, upd))
        })
        .await?;
    Ok(ok(json!({"inserted": inserted, "updated": updated, "skipped": skipped})))
}
