//! Reading fields of stored records (and building them) in hand-written rules: an id, an integer (money in fen,
//! quantities in ten-thousandths, statuses), a text — absent or of another type reads as 0 or "".
use serde_json::{Map, Value};

pub fn id(rec: &Map<String, Value>, field: &str) -> u64 {
    rec.get(field).and_then(Value::as_u64).unwrap_or(0)
}

pub fn int(rec: &Map<String, Value>, field: &str) -> i64 {
    rec.get(field).and_then(Value::as_i64).unwrap_or(0)
}

pub fn text<'a>(rec: &'a Map<String, Value>, field: &str) -> &'a str {
    rec.get(field).and_then(Value::as_str).unwrap_or("")
}

/// A JSON object as a record's fields (anything else: none).
pub fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}
