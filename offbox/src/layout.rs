//! Object names of a replica in its bucket (under the target's prefix), after Litestream's model:
//!
//! ```text
//! owner                                             who is the primary: {"generation", "since", "host", "url",
//!                                                   "instance", "boot", "renewed"} (its lease: see `ship`)
//! generations/<gen>/snapshots/<seq>-<ms>.redb.zst   a whole data file holding exactly records 1..=seq
//! generations/<gen>/l0/<first>-<last>.seg.zst       records first..=last as the primary's log wrote them
//! generations/<gen>/l1/<first>-<last>.seg.zst       many l0 segments merged (fewer objects to restore)
//! ```
//!
//! A generation is one unbroken stream from its first snapshot; whatever breaks the stream (a restore, a lost
//! log, a promoted standby) starts a new one. Its name starts with its start time, so names sort by age.
//! Sequence numbers are zero-padded to 20 digits: names sort as numbers. Every object is written once; a
//! segment or snapshot object is never changed, so a re-sent one is harmless (`put_new`).
use bytes::Bytes;

pub const OWNER: &str = "owner";
const SEG_MAGIC: &[u8; 8] = b"ZZSEG\x00\x00\x01";

/// Who is the primary of the replica: the generation it ships, since when, from which host.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Owner {
    pub generation: String,
    pub since: i64,
    pub host: String,
    /// Where people reach the primary (shown by a standby when it refuses a write).
    #[serde(default)]
    pub url: String,
    /// The installation that owns it (`ship::Instance`): a copied directory or cloned machine has another.
    #[serde(default)]
    pub instance: String,
    /// The running process of that installation (random per start): two processes renewing one lease are two
    /// copies of one installation.
    #[serde(default)]
    pub boot: String,
    /// When the owner last renewed its lease (ms): `promote` waits for a lease that is not renewed any more.
    #[serde(default)]
    pub renewed: i64,
}

/// The largest segment object any reader accepts (decompressed): what merge, restore and a standby all allow,
/// and more than a shipped segment holds (`ship::Config::max_segment` and one group commit at most).
pub const MAX_SEGMENT_BYTES: usize = 512 << 20;

/// A new generation's name: its start time (ms, 13 digits) and 8 random hex digits.
pub fn new_generation() -> String {
    format!("{:013}-{:08x}", crate::now_ms(), rand::random::<u32>())
}

pub fn generations_dir() -> &'static str {
    "generations/"
}

pub fn snapshots_dir(generation: &str) -> String {
    format!("generations/{generation}/snapshots/")
}

pub fn snapshot_name(generation: &str, seq: u64, ms: i64) -> String {
    format!("generations/{generation}/snapshots/{seq:020}-{ms:013}.redb.zst")
}

pub fn level_dir(generation: &str, level: u8) -> String {
    format!("generations/{generation}/l{level}/")
}

pub fn segment_name(generation: &str, level: u8, first: u64, last: u64) -> String {
    format!("generations/{generation}/l{level}/{first:020}-{last:020}.seg.zst")
}

/// The name to list after to find segments that may hold `seq` or later (every segment whose first record
/// is at or after `seq`, and the one just before, which may straddle it, is found by the caller).
pub fn segment_after(generation: &str, level: u8, seq: u64) -> String {
    format!("generations/{generation}/l{level}/{seq:020}")
}

/// The (first, last) of a segment name, or the (seq, ms) of a snapshot name.
pub fn pair_of(name: &str) -> Option<(u64, u64)> {
    let file = name.rsplit('/').next()?;
    let stem = file.split('.').next()?;
    let (a, b) = stem.split_once('-')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The generation a name is under.
pub fn generation_of(name: &str) -> Option<&str> {
    name.strip_prefix("generations/")?.split('/').next()
}

/// A segment's object: the magic, then the records compressed with zstd.
pub fn encode_segment(records: &[store::ship::LogRecord]) -> Bytes {
    let mut raw = Vec::with_capacity(records.iter().map(|r| r.bytes.len()).sum());
    for r in records {
        raw.extend_from_slice(&r.bytes);
    }
    let mut out = SEG_MAGIC.to_vec();
    out.extend(zstd::bulk::compress(&raw, 3).expect("zstd compress"));
    Bytes::from(out)
}

/// The records of a segment object (each checked against its checksum).
pub fn decode_segment(b: &[u8], limit: usize) -> Result<Vec<store::ship::LogRecord>, String> {
    use std::io::Read;
    let body = b.strip_prefix(SEG_MAGIC.as_slice()).ok_or("not a segment")?;
    let mut raw = Vec::new();
    let d = zstd::stream::read::Decoder::new(body).map_err(|e| format!("segment: {e}"))?;
    d.take(limit as u64 + 1).read_to_end(&mut raw).map_err(|e| format!("segment: {e}"))?;
    if raw.len() > limit {
        return Err(format!("segment larger than {limit} bytes"));
    }
    store::ship::parse_records(&raw).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sort_as_numbers_and_parse_back() {
        let a = segment_name("g", 0, 9, 10);
        let b = segment_name("g", 0, 11, 100);
        assert!(a < b);
        assert_eq!(pair_of(&b), Some((11, 100)));
        assert_eq!(pair_of(&snapshot_name("g", 5, 1_700_000_000_000)), Some((5, 1_700_000_000_000)));
        assert_eq!(generation_of(&b), Some("g"));
        assert!(segment_after("g", 0, 11) <= b && segment_after("g", 0, 12) > b);
    }
}
