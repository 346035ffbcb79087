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
}
