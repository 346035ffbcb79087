//! Stored records to the wire shape: ids as strings, times as `yyyy-MM-dd HH:mm:ss` in the server's zone,
//! secret fields removed.
use chrono::{FixedOffset, NaiveDateTime, TimeZone};
use serde_json::{Map, Value};
use store::{FieldKind, ResourceDef};

const ID_FIELDS: &[&str] = &["id", "createUser", "createDept", "updateUser"];
const TIME_FIELDS: &[&str] = &["createTime", "updateTime"];

/// The server's time zone for rendering and parsing dates.
#[derive(Clone, Copy, Debug)]
pub struct Zone(pub FixedOffset);

impl Zone {
    /// `+08:00`-style offsets; `local` takes the machine's current offset.
    pub fn parse(s: &str) -> Option<Zone> {
        if s.eq_ignore_ascii_case("local") {
            return Some(Zone(*chrono::Local::now().offset()));
        }
        let (sign, rest) = match s.as_bytes().first()? {
            b'+' => (1, &s[1..]),
            b'-' => (-1, &s[1..]),
            _ => return None,
        };
        let (h, m) = rest.split_once(':').unwrap_or((rest, "0"));
        let secs = h.parse::<i32>().ok()? * 3600 + m.parse::<i32>().ok()? * 60;
        FixedOffset::east_opt(sign * secs).map(Zone)
    }

    /// `yyyy-MM-dd HH:mm:ss`, written digit by digit: strftime and `format!` showed in list profiles.
    pub fn format(&self, millis: i64) -> String {
        use chrono::{Datelike, Timelike};
        let Some(t) = self.0.timestamp_millis_opt(millis).single() else { return String::new() };
        let year = t.year();
        if !(0..=9999).contains(&year) {
            return String::new();
        }
        let mut b = *b"0000-00-00 00:00:00";
        let mut put = |at: usize, v: u32, width: usize| {
            let mut v = v;
            for i in (0..width).rev() {
                b[at + i] = b'0' + (v % 10) as u8;
                v /= 10;
            }
        };
        put(0, year as u32, 4);
        put(5, t.month(), 2);
        put(8, t.day(), 2);
        put(11, t.hour(), 2);
        put(14, t.minute(), 2);
        put(17, t.second(), 2);
        String::from_utf8_lossy(&b).into_owned()
    }

    /// Parses `yyyy-MM-dd HH:mm:ss` or `yyyy-MM-dd` in this zone to epoch milliseconds.
    pub fn parse_millis(&self, s: &str) -> Option<i64> {
        let s = s.trim();
        let naive = NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S")
            .ok()
            .or_else(|| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok().and_then(|d| d.and_hms_opt(0, 0, 0)))?;
        self.0.from_local_datetime(&naive).single().map(|t| t.timestamp_millis())
    }
}

pub fn id_str(v: &Value) -> Value {
    match v {
        Value::Number(n) => Value::String(n.to_string()),
        other => other.clone(),
    }
}

/// The wire form of a stored record.
/// Personal data with its middle hidden: the first 4 and last 4 characters of an ID number stay (fewer for
/// short values), the rest becomes `*`.
pub fn mask(v: &str) -> String {
    let c: Vec<char> = v.chars().collect();
    let keep = if c.len() >= 12 { 4 } else { c.len() / 4 };
    c.iter().enumerate().map(|(i, ch)| if i < keep || i + keep >= c.len() { *ch } else { '*' }).collect()
}

pub fn record(def: &ResourceDef, zone: Zone, mut doc: Map<String, Value>) -> Map<String, Value> {
    for f in &def.fields {
        if f.secret {
            doc.remove(&f.name);
        } else if f.mask
            && let Some(Value::String(v)) = doc.get_mut(&f.name) {
            *v = mask(v);
        } else if f.kind == FieldKind::Long
            && let Some(v) = doc.get_mut(&f.name) {
            *v = id_str(v);
        } else if f.kind == FieldKind::Money
            && let Some(v) = doc.get_mut(&f.name)
            && let Some(fen) = v.as_i64() {
            *v = Value::String(store::format_money(fen));
        } else if f.kind == FieldKind::Qty
            && let Some(v) = doc.get_mut(&f.name)
            && let Some(q) = v.as_i64() {
            *v = Value::String(store::format_qty(q));
        }
    }
    for k in ID_FIELDS {
        if let Some(v) = doc.get_mut(*k) {
            *v = id_str(v);
        }
    }
    for k in TIME_FIELDS {
        if let Some(Value::Number(n)) = doc.get(*k) {
            let s = zone.format(n.as_i64().unwrap_or(0));
            doc.insert((*k).to_string(), Value::String(s));
        }
    }
    doc
}

/// A stored record read without decoding (the store's format, see `store::StoredRow`).
pub use store::StoredRow as Row;

/// A declaration's fields by name (sorted, searched by halves: a row's twenty keys cost less than hashing them).
pub struct FieldIndex<'a>(Vec<(&'a str, &'a store::FieldDef)>);

impl<'a> FieldIndex<'a> {
    pub fn new(def: &'a ResourceDef) -> FieldIndex<'a> {
        let mut v: Vec<_> = def.fields.iter().map(|f| (f.name.as_str(), f)).collect();
        v.sort_by(|a, b| a.0.cmp(b.0));
        FieldIndex(v)
    }

    pub fn get(&self, name: &[u8]) -> Option<&'a store::FieldDef> {
        self.0.binary_search_by(|(n, _)| n.as_bytes().cmp(name)).ok().map(|i| self.0[i].1)
    }

    /// `get` for names asked in ascending order: a cursor walks the index alongside them.
    fn get_ascending(&self, name: &[u8], at: &mut usize) -> Option<&'a store::FieldDef> {
        while let Some((n, f)) = self.0.get(*at) {
            match n.as_bytes().cmp(name) {
                std::cmp::Ordering::Less => *at += 1,
                std::cmp::Ordering::Equal => return Some(*f),
                std::cmp::Ordering::Greater => return None,
            }
        }
        None
    }
}

fn is_number(v: &[u8]) -> bool {
    matches!(v.first(), Some(b'-' | b'0'..=b'9'))
}

fn quoted(out: &mut Vec<u8>, s: &str) {
    // Serializing a &str to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// One field's value in wire form, as `record` gives it: `None` when the field is left out (secret) or its
/// value does not read.
pub fn wire_value<'v>(f: Option<&store::FieldDef>, key: &[u8], v: &'v [u8], zone: Zone) -> Option<std::borrow::Cow<'v, [u8]>> {
    if f.is_some_and(|f| f.secret) {
        return None;
    }
    let mut out = Vec::new();
    write_value(f, key, v, zone, &mut out).then_some(std::borrow::Cow::Owned(out))
}

/// Writes a value that is a JSON number as a string: its characters (digits, sign, point, exponent) need no
/// escaping, so the quoted bytes are what serde_json writes for its text.
fn quoted_number(out: &mut Vec<u8>, v: &[u8]) {
    out.push(b'"');
    out.extend_from_slice(v);
    out.push(b'"');
}

/// Writes a field's stored value (`v`, JSON) in wire form to `out`, as `record` gives it; `false` if the value
/// does not read. The caller leaves secret fields out.
fn write_value(f: Option<&store::FieldDef>, key: &[u8], v: &[u8], zone: Zone, out: &mut Vec<u8>) -> bool {
    let int = || std::str::from_utf8(v).ok()?.parse::<i64>().ok();
    if let Some(f) = f {
        if f.mask && v.first() == Some(&b'"') {
            let Ok(s) = serde_json::from_slice::<String>(v) else { return false };
            quoted(out, &mask(&s));
            return true;
        }
        if f.kind == FieldKind::Long {
            if is_number(v) {
                quoted_number(out, v);
            } else {
                out.extend_from_slice(v);
            }
            return true;
        }
        if f.kind == FieldKind::Money && let Some(fen) = int() {
            quoted(out, &store::format_money(fen));
            return true;
        }
        if f.kind == FieldKind::Qty && let Some(q) = int() {
            quoted(out, &store::format_qty(q));
            return true;
        }
    }
    if is_number(v) {
        if ID_FIELDS.iter().any(|k| k.as_bytes() == key) {
            quoted_number(out, v);
            return true;
        }
        if TIME_FIELDS.iter().any(|k| k.as_bytes() == key) {
            quoted(out, &zone.format(int().unwrap_or(0)));
            return true;
        }
    }
    out.extend_from_slice(v);
    true
}

/// Writes a stored row as `record` would give it, with `extra` (keys sorted, values already JSON) merged in
/// key order, so the bytes equal serde_json's output of the decorated record. `false` if a value could not
/// be read (the caller decodes the row instead).
pub fn write_row(def_fields: &crate::wire::FieldIndex, row: &Row, zone: Zone, extra: &[(&str, &[u8])], out: &mut Vec<u8>) -> bool {
    out.push(b'{');
    let mut first = true;
    let mut rest = extra.iter().peekable();
    let sep = |out: &mut Vec<u8>, first: &mut bool| {
        if !*first {
            out.push(b',');
        }
        *first = false;
    };
    let mut at = 0;
    for field in &row.fields {
        let (k, v) = (&*field.key, field.value);
        while let Some((ek, ev)) = rest.next_if(|(ek, _)| ek.as_bytes() < k) {
            sep(out, &mut first);
            quoted(out, ek);
            out.push(b':');
            out.extend_from_slice(ev);
        }
        let f = if row.sorted { def_fields.get_ascending(k, &mut at) } else { def_fields.get(k) };
        if f.is_some_and(|f| f.secret) {
            continue;
        }
        sep(out, &mut first);
        out.extend_from_slice(field.json_key);
        out.push(b':');
        if f.is_none() && !is_number(v) {
            out.extend_from_slice(v);
        } else if !write_value(f, k, v, zone, out) {
            return false;
        }
    }
    for (ek, ev) in rest {
        sep(out, &mut first);
        quoted(out, ek);
        out.push(b':');
        out.extend_from_slice(ev);
    }
    out.push(b'}');
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zone_round_trip() {
        let z = Zone::parse("+08:00").unwrap();
        let ms = z.parse_millis("2024-03-05 10:20:30").unwrap();
        assert_eq!(z.format(ms), "2024-03-05 10:20:30");
        assert_eq!(z.format(z.parse_millis("2024-03-05").unwrap()), "2024-03-05 00:00:00");
        assert!(z.parse_millis("2024-13-05").is_none());
        assert!(Zone::parse("8").is_none());
    }

    /// A stored row written from its bytes equals serde_json's output of `record` on the decoded row with the
    /// same extra keys inserted: over random records of every field kind, odd strings and ids, secrets, masks.
    #[test]
    fn rows_are_written_as_records_are() {
        use rand::{Rng, SeedableRng};
        let def: ResourceDef = serde_json::from_value(serde_json::json!({
            "name": "thing", "label": "t",
            "fields": [
                {"name": "aName", "label": "a"},
                {"name": "bId", "kind": "long", "label": "b"},
                {"name": "cNo", "kind": "int", "label": "c"},
                {"name": "dMoney", "kind": "money", "label": "d"},
                {"name": "eQty", "kind": "qty", "label": "e"},
                {"name": "fSecret", "label": "f", "secret": true},
                {"name": "gCard", "label": "g", "mask": true},
                {"name": "hJson", "kind": "json", "label": "h"},
                {"name": "iDate", "kind": "date", "label": "i"}
            ]
        }))
        .unwrap();
        let seed: u64 = std::env::var("ZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random);
        println!("seed {seed}");
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let zone = Zone::parse("+08:00").unwrap();
        let fields = crate::wire::FieldIndex::new(&def);
        let texts = ["", "瓷砖 600×600", "a\"b\\c", "line\nnext", "\u{1}ctl", "#4242", "12", "-3", "😀 emoji", "x,y"];
        let value = |rng: &mut rand::rngs::StdRng| -> Value {
            match rng.random_range(0..9) {
                0 => Value::Null,
                1 => Value::Bool(rng.random()),
                2 => Value::from(rng.random_range(-1_000_000i64..1_000_000)),
                3 => Value::from(rng.random::<u64>() >> rng.random_range(0..64)),
                4 => Value::from(rng.random_range(-1e6..1e6f64)),
                5 => serde_json::json!({"k": texts[rng.random_range(0..texts.len())], "n": [1, {"x": "}]"}]}),
                6 => serde_json::json!([texts[rng.random_range(0..texts.len())], 2, null]),
                _ => Value::from(texts[rng.random_range(0..texts.len())]),
            }
        };
        let keys = ["aName", "bId", "cNo", "dMoney", "eQty", "fSecret", "gCard", "hJson", "iDate", "id", "createUser", "createTime", "updateTime", "tenantId", "z\"odd", "zz"];
        for _ in 0..3000 {
            let mut doc = Map::new();
            for k in keys {
                if rng.random_bool(0.8) {
                    doc.insert(k.to_string(), value(&mut rng));
                }
            }
            let mut extra: Vec<(&str, Vec<u8>)> = Vec::new();
            for k in ["aNameName", "bName", "cNoName", "fSecret", "zzz", "A"] {
                if rng.random_bool(0.5) && !(doc.contains_key(k) && k != "fSecret") {
                    extra.push((k, serde_json::to_vec(texts[rng.random_range(0..texts.len())]).unwrap()));
                }
            }
            extra.sort_by(|a, b| a.0.cmp(b.0));
            let stored = {
                let mut b = vec![1u8];
                serde_json::to_writer(&mut b, &doc).unwrap();
                b
            };
            let mut expected = record(&def, zone, doc.clone());
            for (k, v) in &extra {
                expected.insert(k.to_string(), serde_json::from_slice(v).unwrap());
            }
            let row = Row::parse(&stored).expect("a stored row reads");
            let mut out = Vec::new();
            let extra: Vec<(&str, &[u8])> = extra.iter().map(|(k, v)| (*k, v.as_slice())).collect();
            assert!(write_row(&fields, &row, zone, &extra, &mut out), "{doc:?}");
            assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&expected).unwrap(), "seed {seed}: {doc:?}");
        }
        // Keys out of order (not how serde_json writes a map, but readable): the same fields, lookups by search.
        let unsorted = b"\x01{\"zz\":1,\"id\":5,\"fSecret\":\"x\",\"createTime\":0,\"dMoney\":250,\"aName\":\"a\"}";
        let row = Row::parse(unsorted).unwrap();
        assert!(!row.sorted);
        assert_eq!(row.get("dMoney"), Some(&b"250"[..]));
        let mut out = Vec::new();
        assert!(write_row(&fields, &row, zone, &[], &mut out));
        let got: Map<String, Value> = serde_json::from_slice(&out).unwrap();
        assert_eq!(got, record(&def, zone, store::decode_record(unsorted).unwrap()));
        assert!(Row::parse(b"\x01{\"a\":1").is_none());
        assert!(Row::parse(b"\x02{}").is_none());
        assert!(Row::parse(b"\x01{}").is_some_and(|r| r.fields.is_empty()));
    }
}
