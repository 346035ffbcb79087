//! Order-preserving encodings of index values and the record format on disk.
use serde_json::{Map, Value};

use crate::error::Result;

/// Index values longer than this are cut: the index then only narrows, and filters re-check the record itself.
pub const MAX_INDEXED_BYTES: usize = 128;

/// Encodes a value so that byte order equals value order (numbers as sign-flipped big-endian; text as UTF-8).
pub fn index_bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::Null => Vec::new(),
        Value::Bool(b) => vec![1, *b as u8],
        Value::Number(n) => {
            let i = n.as_i64().or_else(|| n.as_u64().map(|u| u.min(i64::MAX as u64) as i64)).unwrap_or_else(|| {
                n.as_f64().map(|f| f as i64).unwrap_or(0)
            });
            let mut out = vec![2];
            out.extend_from_slice(&((i as u64) ^ (1u64 << 63)).to_be_bytes());
            out
        }
        Value::String(s) => {
            let mut out = vec![3];
            let mut end = s.len().min(MAX_INDEXED_BYTES);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            out.extend_from_slice(&s.as_bytes()[..end]);
            out
        }
        other => {
            let mut out = vec![4];
            out.extend_from_slice(other.to_string().as_bytes());
            out.truncate(MAX_INDEXED_BYTES);
            out
        }
    }
}

/// Persisted record format version 1: a one-byte tag then compact JSON. Kept apart from wire DTOs.
pub const RECORD_V1: u8 = 1;

pub fn encode_record(doc: &Map<String, Value>) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(256);
    out.push(RECORD_V1);
    serde_json::to_writer(&mut out, doc)?;
    Ok(out)
}

pub fn decode_record(bytes: &[u8]) -> Result<Map<String, Value>> {
    match bytes.split_first() {
        Some((&RECORD_V1, rest)) => Ok(serde_json::from_slice(rest)?),
        _ => Err(crate::StoreError::Storage("unknown record format".into())),
    }
}

/// A stored record's top-level fields as slices of its bytes, read without decoding: the stored format is a
/// tag byte and the compact JSON serde_json writes (no whitespace, keys in order), so a value can be copied to
/// an answer as it is. `None` for anything else (the caller decodes instead).
pub struct StoredRow<'a> {
    pub fields: Vec<(std::borrow::Cow<'a, str>, &'a [u8])>,
}

impl<'a> StoredRow<'a> {
    pub fn parse(raw: &'a [u8]) -> Option<StoredRow<'a>> {
        let (&RECORD_V1, b) = raw.split_first()? else { return None };
        if b.first() != Some(&b'{') {
            return None;
        }
        let mut fields = Vec::with_capacity(24);
        let mut i = 1;
        if b.get(1) == Some(&b'}') {
            return (b.len() == 2).then_some(StoredRow { fields });
        }
        loop {
            if b.get(i) != Some(&b'"') {
                return None;
            }
            let end = skip_string(b, i)?;
            let key = &b[i..end];
            let key = if key.contains(&b'\\') {
                std::borrow::Cow::Owned(serde_json::from_slice::<String>(key).ok()?)
            } else {
                std::borrow::Cow::Borrowed(std::str::from_utf8(&key[1..key.len() - 1]).ok()?)
            };
            if b.get(end) != Some(&b':') {
                return None;
            }
            let vend = skip_value(b, end + 1)?;
            fields.push((key, &b[end + 1..vend]));
            i = vend + 1;
            match b.get(vend) {
                Some(b',') => {}
                Some(b'}') if i == b.len() => return Some(StoredRow { fields }),
                _ => return None,
            }
        }
    }

    /// The raw value of a field.
    pub fn get(&self, name: &str) -> Option<&'a [u8]> {
        self.fields.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }

    /// The named fields decoded (what a filter over them reads of the record); `None` if a value does not read.
    pub fn subset(&self, names: &[&str]) -> Option<Map<String, Value>> {
        let mut out = Map::new();
        for (k, v) in &self.fields {
            if names.contains(&k.as_ref()) {
                out.insert(k.to_string(), serde_json::from_slice(v).ok()?);
            }
        }
        Some(out)
    }
}

/// The index just past the string starting at `i` (a `"`).
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        j += b.get(j..)?.iter().position(|&c| c == b'"' || c == b'\\')?;
        if b[j] == b'\\' {
            j += 2;
        } else {
            return Some(j + 1);
        }
    }
}

/// The index just past the JSON value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let (mut depth, mut j) = (0usize, i);
            loop {
                match *b.get(j)? {
                    b'"' => j = skip_string(b, j)?,
                    b'{' | b'[' => {
                        depth += 1;
                        j += 1;
                    }
                    b'}' | b']' => {
                        depth -= 1;
                        j += 1;
                        if depth == 0 {
                            return Some(j);
                        }
                    }
                    _ => j += 1,
                }
            }
        }
        _ => {
            let n = b[i..].iter().position(|&c| c == b',' || c == b'}')?;
            (n > 0).then_some(i + n)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_sort_like_values() {
        let vals = [-5i64, -1, 0, 1, 7, 1 << 40];
        let enc: Vec<_> = vals.iter().map(|v| index_bytes(&json!(v))).collect();
        let mut sorted = enc.clone();
        sorted.sort();
        assert_eq!(enc, sorted);
    }

    #[test]
    fn text_is_cut_on_a_char_boundary() {
        let s = "装".repeat(100);
        let b = index_bytes(&json!(s));
        assert!(b.len() <= MAX_INDEXED_BYTES + 1);
        assert!(std::str::from_utf8(&b[1..]).is_ok());
    }

    #[test]
    fn record_round_trip() {
        let mut m = Map::new();
        m.insert("a".into(), json!("参数"));
        assert_eq!(decode_record(&encode_record(&m).unwrap()).unwrap(), m);
        assert!(decode_record(&[9, b'{', b'}']).is_err());
    }
}
