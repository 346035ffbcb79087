//! A list page's envelope written from its rows' stored bytes, with the labels and titles `decorate` adds.
use serde_json::{Map, Value};
use store::ResourceDef;

use super::PageOut;
use super::decorate::{Coded, Labels, Refs, wire_records};
use crate::error::{ApiError, ApiResult};
use crate::http::ok_bytes;
use crate::state::AppState;

/// The envelope of a list page, its rows written from their stored bytes (`Query::raw_rows`): each in wire
/// form with the labels of its dictionary fields and the titles of the records it names, byte for byte what
/// `wire_records` and `ok_bytes` give for the decoded records (test `page_rows_are_written_as_decorated_records`) but
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::sync::Arc;

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
