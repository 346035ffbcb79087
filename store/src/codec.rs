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
        Some((&tag @ (RECORD_Z1 | RECORD_Z2 | RECORD_D1), rest)) => Ok(serde_json::from_slice(&unpack(tag, rest)?)?),
        _ => Err(crate::StoreError::Storage("unknown record format".into())),
    }
}

/// Persisted record format 2, for resources declared `packed` (the server's logs: written at request rates,
/// kept for months, read a page at a time): the compact JSON of format 1 as one zstd frame (its size recorded)
/// compressed against `DICT_1`, so the field names and the values every entry repeats cost a few bytes. Readers
/// that look into stored bytes without decoding (`StoredRow`, `stored_subset`, a list's text prefilter) see
/// format 1 only and decode anything else. `DICT_1` is part of the format: never edited (a new one is a new tag).
pub const RECORD_Z1: u8 = 2;
/// Persisted record format 3: format 2 against `DICT_2`, which is `DICT_1` with the entropy tables of real log
/// entries in front (zstd's `ZDICT_finalizeDictionary` over 2,000 api-log entries of `bench/logs.sh` and 1,700 of
/// a `--demo` server asked every route of openapi.json; dictionary id 0x5A5A0002). A frame then uses the
/// dictionary's tables instead of carrying and building its own: an entry unpacks in a quarter of the time (0.5 vs
/// 1.9 µs) and takes a fifth less room (129 vs 165 B for `bench/logs.sh`'s, 162 vs 199 B for varied ones held
/// out of the samples). Written to files of format 4 or later (`meta::PACKED_Z2_FORMAT`); `DICT_2` is part of the format.
pub const RECORD_Z2: u8 = 3;
const DICT_2: &[u8] = include_bytes!("dict/logs-2.zdict");
/// Persisted record format 4, for every other resource in files of format 5 (`meta::PACKED_D1_FORMAT`): the
/// compact JSON of format 1 as one zstd frame against `DICT_D1`, a dictionary trained (zstd's
/// `ZDICT_trainFromBuffer`, 16 KiB) on the records of a `--demo` company, at most 300 of each resource: its field
/// names, audit columns and common values cost a few bytes per record. Readers that look into stored bytes
/// unpack such a row once (`unpacked`), as they do the logs'. `DICT_D1` is part of the format: never edited.
pub const RECORD_D1: u8 = 4;
const DICT_D1: &[u8] = include_bytes!("dict/data-1.zdict");
const PACK_LEVEL: i32 = 3;
/// The most a packed record may unpack to (a damaged frame cannot make a reader allocate more).
const UNPACKED_MAX: usize = 16 << 20;
const DICT_1: &str = concat!(
    r#"{"createDept":"0","createTime":1764633600000,"createUser":"0","env":"prod","httpStatus":200,"id":"0","isDeleted":0,"#,
    r#""method":"POST","params":"","remoteIp":"127.0.0.1","requestId":"19ad8c2a3b0-1","requestUri":"/api/blade-system/param/submit","#,
    r#""serverHost":"localhost","serverIp":"0.0.0.0:8080","serviceId":"zhizhuang","status":1,"tenantId":"000000","time":1.25,"title":"","#,
    r#""updateTime":1764633600000,"updateUser":"0","userAgent":"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0"}"#,
    r#"{"createDept":"0","createTime":1764633600000,"createUser":"0","env":"dev","httpStatus":400,"id":"0","isDeleted":0,"method":"GET","params":"current=1&size=10","remoteIp":"192.168.1.10","#,
    r#""requestUri":"/api/blade-wms/","serverHost":"","serverIp":"","serviceId":"zhizhuang","status":1,"tenantId":"157270","time":0.5,"title":"新增","updateTime":1764633600000,"#,
    r#""updateUser":"0","userAgent":"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15"}"#,
    r#"{"account":"admin","createDept":"0","createTime":1764633600000,"createUser":"0","grantType":"password","id":"0","ip":"127.0.0.1","isDeleted":0,"message":"登录成功","result":"success","#,
    r#""status":1,"tenantId":"000000","updateTime":1764633600000,"updateUser":"0","userAgent":"Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0"}"#,
    r#"{"createDept":"0","createTime":1764633600000,"createUser":"0","id":"0","info":"POST tenant=000000 user=0 ip=127.0.0.1","isDeleted":0,"message":"","requestId":"","source":"server","#,
    r#""stack":"","status":1,"tenantId":"000000","time":"2026-12-01 08:00:00","type":"http 500","updateTime":1764633600000,"updateUser":"0","url":"/api/blade-"}"#,
    r#"{"createDept":"0","createTime":1764633600000,"createUser":"0","id":"0","isDeleted":0,"logData":"","logId":"","logLevel":"INFO","status":1,"tenantId":"000000","updateTime":1764633600000,"updateUser":"0"}"#,
    r#"/api/blade-auth/oauth/token/api/blade-desk/notice/api/blade-system/user/submit/remove/update/save/list/detail/page/api/blade-resource/oss/endpoint/put-file"#,
    r#"/api/blade-scm//api/blade-flow//api/blade-project//api/blade-finance/completeTask/api/blade-log/"#
);

thread_local! {
    static PACKER: std::cell::RefCell<[Option<zstd::bulk::Compressor<'static>>; 3]> = const { std::cell::RefCell::new([None, None, None]) };
    static UNPACKER: std::cell::RefCell<[Option<zstd::bulk::Decompressor<'static>>; 3]> = const { std::cell::RefCell::new([None, None, None]) };
}

fn zstd_error(what: &str, e: std::io::Error) -> crate::StoreError {
    crate::StoreError::Storage(format!("{what} a packed record: {e}"))
}

/// The dictionary of packed format `tag`, and its slot in the thread's (un)packers.
fn dict_of(tag: u8) -> (&'static [u8], usize) {
    match tag {
        RECORD_Z1 => (DICT_1.as_bytes(), 0),
        RECORD_Z2 => (DICT_2, 1),
        // RECORD_D1: the only other packed format (callers match the packed tags first).
        _ => (DICT_D1, 2),
    }
}

/// The record formats a file is written in: `logs` for `packed` resources (`RECORD_Z2` in a file of format 4 or
/// later, `RECORD_Z1` in one of format 3, which a binary of format 3 must still read), `data` for the others
/// (`RECORD_D1` in a file of format 5, else `RECORD_V1`).
#[derive(Clone, Copy, Debug)]
pub struct Packs {
    pub logs: u8,
    pub data: u8,
}

impl Packs {
    /// The formats a file of format `format` is written in.
    pub(crate) fn of(format: u32) -> Packs {
        Packs {
            logs: if format >= crate::meta::PACKED_Z2_FORMAT { RECORD_Z2 } else { RECORD_Z1 },
            data: if format >= crate::meta::PACKED_D1_FORMAT { RECORD_D1 } else { RECORD_V1 },
        }
    }
}

/// `def`'s record in the format `packs` gives its records.
pub fn encode_for(def: &crate::ResourceDef, doc: &Map<String, Value>, packs: Packs) -> Result<Vec<u8>> {
    if def.plain {
        return encode_record(doc);
    }
    match if def.packed { packs.logs } else { packs.data } {
        RECORD_V1 => encode_record(doc),
        tag => {
            let json = serde_json::to_vec(doc)?;
            if !packable(&json) {
                let mut out = Vec::with_capacity(json.len() + 1);
                out.push(RECORD_V1);
                out.extend_from_slice(&json);
                return Ok(out);
            }
            pack_json(&json, tag)
        }
    }
}

/// Whether a record's JSON may be packed: readers refuse to unpack more than `UNPACKED_MAX` (a frame claiming more
/// is taken for a damaged one), so a larger record stays in format 1, which every file format reads.
pub(crate) fn packable(json: &[u8]) -> bool {
    json.len() <= UNPACKED_MAX
}

/// A record's compact JSON stored in packed format `tag`.
pub(crate) fn pack_json(json: &[u8], tag: u8) -> Result<Vec<u8>> {
    let (dict, slot) = dict_of(tag);
    PACKER.with(|p| {
        let mut p = p.borrow_mut();
        if p[slot].is_none() {
            p[slot] = Some(zstd::bulk::Compressor::with_dictionary(PACK_LEVEL, dict).map_err(|e| zstd_error("packing", e))?);
        }
        let z = p[slot].as_mut().expect("packer").compress(json).map_err(|e| zstd_error("packing", e))?;
        let mut out = Vec::with_capacity(z.len() + 1);
        out.push(tag);
        out.extend_from_slice(&z);
        Ok(out)
    })
}

/// A stored record in format 1: a packed one unpacked (its JSON is the one format 1 holds), any other as it is.
pub(crate) fn plain(raw: &[u8]) -> Result<Vec<u8>> {
    plain_by(raw, unpack_after)
}

/// `plain` without the cache of unpacked records: for a record rewritten in format 1 (`meta::unpack_plain`), whose
/// packed bytes are never read again.
pub(crate) fn plain_uncached(raw: &[u8]) -> Result<Vec<u8>> {
    plain_by(raw, unpack_now)
}

/// How a frame is unpacked behind a prefix (`unpack_after`, `unpack_now`).
type Unpack = fn(u8, &[u8], &[u8]) -> Result<Vec<u8>>;

fn plain_by(raw: &[u8], unpack: Unpack) -> Result<Vec<u8>> {
    match raw.split_first() {
        Some((&tag @ (RECORD_Z1 | RECORD_Z2 | RECORD_D1), frame)) => unpack(tag, frame, &[RECORD_V1]),
        _ => Ok(raw.to_vec()),
    }
}

/// A stored record readable in place: a packed one unpacked to format 1 (owned), any other as it is (borrowed).
/// Readers that both test a record and hand its bytes on unpack it once through this.
pub(crate) fn unpacked(raw: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>> {
    match raw.first() {
        Some(&(RECORD_Z1 | RECORD_Z2 | RECORD_D1)) => plain(raw).map(std::borrow::Cow::Owned),
        _ => Ok(std::borrow::Cow::Borrowed(raw)),
    }
}

fn unpack(tag: u8, frame: &[u8]) -> Result<Vec<u8>> {
    unpack_after(tag, frame, &[])
}

/// `prefix`, then the frame unpacked: from `UNPACKED` when these packed bytes were unpacked lately, else unpacked
/// now (and kept there).
fn unpack_after(tag: u8, frame: &[u8], prefix: &[u8]) -> Result<Vec<u8>> {
    if let Some(out) = UNPACKED.get(tag, frame, prefix) {
        return Ok(out);
    }
    let out = unpack_now(tag, frame, prefix)?;
    UNPACKED.put(tag, frame, &out[prefix.len()..]);
    Ok(out)
}

/// Unpacked records kept by their packed bytes, so that rows read again (the pages people page through, the
/// records a list refers to) are not unpacked again: unpacking a record costs ~0.85 µs, finding it here ~0.1.
/// Entries are addressed by the packed bytes themselves (compared whole on a hit), so none is ever stale: a record
/// changed has other bytes. As InnoDB keeps pages of compressed tables unpacked in its buffer pool.
static UNPACKED: std::sync::LazyLock<UnpackCache> = std::sync::LazyLock::new(UnpackCache::default);

/// Bytes of unpacked records `UNPACKED` holds at most (two generations per shard: a shard's newer generation
/// that outgrows its half of the shard's room becomes the older one, and the older one is let go). Kept small on
/// purpose: a cache sized by the file (half of it, up to a thirty-second of memory) held a whole 100,000-product
/// catalogue and made its pages slower (page of 999 p50 1.6 → 1.8–2.0 ms, the picker no faster): a hit in a large
/// map is a walk through memory the processor no longer holds (~0.45 µs, timed), about what unpacking costs.
const UNPACKED_CACHE_BYTES: usize = 16 << 20;
const UNPACKED_SHARDS: usize = 16;
/// A generation's room in a shard.
const GENERATION_BYTES: usize = UNPACKED_CACHE_BYTES / UNPACKED_SHARDS / 2;

#[derive(Default)]
struct UnpackCache {
    shards: [std::sync::Mutex<UnpackShard>; UNPACKED_SHARDS],
}

/// Figures of the cache of unpacked records for the status screen.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnpackedFigures {
    pub bytes: u64,
    pub room: u64,
    pub hits: u64,
    pub misses: u64,
}

pub fn unpacked_figures() -> UnpackedFigures {
    let mut f = UnpackedFigures { room: UNPACKED_CACHE_BYTES as u64, ..Default::default() };
    for s in &UNPACKED.shards {
        let s = s.lock().unwrap_or_else(|p| p.into_inner());
        f.bytes += (s.young_bytes + s.old_bytes) as u64;
        f.hits += s.hits;
        f.misses += s.misses;
    }
    f
}

/// Packed bytes (the tag first) and their record unpacked, by `UnpackCache::key` (already a hash: used as it is).
type UnpackMap = std::collections::HashMap<u64, (Box<[u8]>, Box<[u8]>), std::hash::BuildHasherDefault<KeyHasher>>;

#[derive(Default)]
struct UnpackShard {
    young: UnpackMap,
    old: UnpackMap,
    /// Bytes each generation holds (what the status screen shows, without walking the maps under the lock).
    young_bytes: usize,
    old_bytes: usize,
    /// Lookups that found their record, and those that did not (counted under the shard's lock: no shared counter
    /// for every row).
    hits: u64,
    misses: u64,
}

/// Hashes a `u64` that is a hash already: itself.
#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl UnpackCache {
    fn key(tag: u8, frame: &[u8]) -> u64 {
        let mut h = crc32fast::Hasher::new_with_initial(u32::from(tag));
        h.update(frame);
        u64::from(h.finalize()).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ frame.len() as u64
    }

    /// A key's shard: from bits the hash map's probe tag (the top seven) does not use, so that the keys of one shard
    /// still differ there.
    fn shard(key: u64) -> usize {
        (key >> 32) as usize % UNPACKED_SHARDS
    }


    fn get(&self, tag: u8, frame: &[u8], prefix: &[u8]) -> Option<Vec<u8>> {
        let key = Self::key(tag, frame);
        let copy = |plain: &[u8]| {
            let mut out = Vec::with_capacity(prefix.len() + plain.len());
            out.extend_from_slice(prefix);
            out.extend_from_slice(plain);
            out
        };
        let mut shard = self.shards[Self::shard(key)].lock().unwrap_or_else(|p| p.into_inner());
        let same = |e: &(Box<[u8]>, Box<[u8]>)| e.0.len() == frame.len() + 1 && e.0[0] == tag && e.0[1..] == *frame;
        // Copied out under the lock (a shared pointer's two atomic updates cost more than copying a record).
        if let Some(e) = shard.young.get(&key).filter(|e| same(e)) {
            let out = copy(&e.1);
            shard.hits += 1;
            return Some(out);
        }
        // Found in the older generation: moved to the younger one, so that what is read keeps being kept.
        let removed = shard.old.remove(&key);
        if let Some((p, v)) = &removed {
            shard.old_bytes -= (p.len() + v.len()).min(shard.old_bytes);
        }
        let Some(e) = removed.filter(same) else {
            shard.misses += 1;
            return None;
        };
        shard.hits += 1;
        let out = copy(&e.1);
        let cost = e.0.len() + e.1.len();
        if shard.young_bytes + cost > GENERATION_BYTES {
            shard.old = std::mem::take(&mut shard.young);
            shard.old_bytes = std::mem::take(&mut shard.young_bytes);
        }
        shard.young_bytes += cost;
        if let Some((p, v)) = shard.young.insert(key, e) {
            shard.young_bytes -= (p.len() + v.len()).min(shard.young_bytes);
        }
        Some(out)
    }

    fn put(&self, tag: u8, frame: &[u8], plain: &[u8]) {
        let cost = frame.len() + 1 + plain.len();
        let room = GENERATION_BYTES;
        if cost > room / 8 {
            return;
        }
        let key = Self::key(tag, frame);
        let mut shard = self.shards[Self::shard(key)].lock().unwrap_or_else(|p| p.into_inner());
        if shard.young_bytes + cost > room {
            shard.old = std::mem::take(&mut shard.young);
            shard.old_bytes = std::mem::take(&mut shard.young_bytes);
        }
        let packed: Box<[u8]> = [&[tag][..], frame].concat().into_boxed_slice();
        if let Some((p, v)) = shard.young.insert(key, (packed, Box::from(plain))) {
            shard.young_bytes -= (p.len() + v.len()).min(shard.young_bytes);
        }
        shard.young_bytes += cost;
    }
}

/// `prefix`, then the frame unpacked, in one allocation of the size the frame records (the general path, with room
/// for `UNPACKED_MAX`, only for a frame that records none: asking the allocator for 16 MiB a record cost far more
/// than the unpacking).
fn unpack_now(tag: u8, frame: &[u8], prefix: &[u8]) -> Result<Vec<u8>> {
    let size = zstd::zstd_safe::get_frame_content_size(frame).ok().flatten().unwrap_or(0);
    if size > UNPACKED_MAX as u64 {
        return Err(crate::StoreError::Storage(format!("reading a packed record: it says it unpacks to {size} bytes")));
    }
    if size == 0 {
        let json = with_unpacker(tag, |u| u.decompress(frame, UNPACKED_MAX))?;
        return Ok(if prefix.is_empty() { json } else { [prefix, &json].concat() });
    }
    // Unpacked into the room after the prefix, which zstd writes without it being zeroed first (zeroing it was ~3%
    // of a page of packed rows).
    let mut out = Vec::with_capacity(prefix.len() + size as usize);
    out.extend_from_slice(prefix);
    let mut room = std::io::Cursor::new(out);
    room.set_position(prefix.len() as u64);
    let n = with_unpacker(tag, |u| u.decompress_to_buffer(frame, &mut room))?;
    let out = room.into_inner();
    if n != size as usize || out.len() != prefix.len() + n {
        return Err(crate::StoreError::Storage(format!("reading a packed record: {n} bytes unpacked, {size} recorded")));
    }
    Ok(out)
}

/// `f` with this thread's decompressor of packed format `tag` (made on first use).
fn with_unpacker<R>(tag: u8, f: impl FnOnce(&mut zstd::bulk::Decompressor<'static>) -> std::io::Result<R>) -> Result<R> {
    let (dict, slot) = dict_of(tag);
    UNPACKER.with(|u| {
        let mut u = u.borrow_mut();
        if u[slot].is_none() {
            u[slot] = Some(zstd::bulk::Decompressor::with_dictionary(dict).map_err(|e| zstd_error("reading", e))?);
        }
        f(u[slot].as_mut().expect("unpacker")).map_err(|e| zstd_error("reading", e))
    })
}

/// A stored record's top-level fields as slices of its bytes, read without decoding: the stored format is a
/// tag byte and the compact JSON serde_json writes (no whitespace, keys in byte order), so a value can be copied
/// to an answer as it is. `parse` gives `None` for anything else (the caller decodes instead).
pub struct StoredRow<'a> {
    pub fields: Vec<RawField<'a>>,
    /// Keys in strictly ascending byte order (as serde_json writes a map): lookups search by halves.
    pub sorted: bool,
}

/// One top-level field of a stored record.
pub struct RawField<'a> {
    /// The key as written, quotes included (valid JSON, copied as it is).
    pub json_key: &'a [u8],
    /// The key's text (unescaped when it had escapes).
    pub key: std::borrow::Cow<'a, [u8]>,
    /// The value as written (valid JSON).
    pub value: &'a [u8],
}

impl<'a> StoredRow<'a> {
    pub fn parse(raw: &'a [u8]) -> Option<StoredRow<'a>> {
        let mut fields: Vec<RawField<'a>> = Vec::with_capacity(24);
        let mut sorted = true;
        for f in RawFields::new(raw)? {
            let f = f?;
            if let Some(prev) = fields.last() {
                sorted &= *prev.key < *f.key;
            }
            fields.push(f);
        }
        Some(StoredRow { fields, sorted })
    }

    /// `get` remembering where the field was or would be (`at`): rows of one resource mostly hold the same
    /// keys, so the next row's field, or its absence, is usually seen there at once, without a search.
    pub fn get_at(&self, name: &str, at: &mut usize) -> Option<&'a [u8]> {
        use std::cmp::Ordering;
        let name = name.as_bytes();
        if !self.sorted {
            return self.fields.iter().find(|f| *f.key == *name).map(|f| f.value);
        }
        let i = *at;
        if i <= self.fields.len() {
            let after_previous = i == 0 || *self.fields[i - 1].key < *name;
            match self.fields.get(i).map(|f| (*f.key).cmp(name)) {
                Some(Ordering::Equal) => return Some(self.fields[i].value),
                Some(Ordering::Greater) | None if after_previous => return None,
                _ => {}
            }
        }
        match self.fields.binary_search_by(|f| (*f.key).cmp(name)) {
            Ok(i) => {
                *at = i;
                Some(self.fields[i].value)
            }
            Err(i) => {
                *at = i;
                None
            }
        }
    }

    /// The raw value of a field.
    pub fn get(&self, name: &str) -> Option<&'a [u8]> {
        // No remembered place: a search.
        let mut at = usize::MAX;
        self.get_at(name, &mut at)
    }

    /// The named fields decoded (what a filter over them reads of the record); `None` if a value does not read.
    pub fn subset(&self, names: &[&str]) -> Option<Map<String, Value>> {
        let mut out = Map::new();
        for name in names {
            if let Some(v) = self.get(name) {
                out.insert((*name).to_string(), serde_json::from_slice(v).ok()?);
            }
        }
        Some(out)
    }
}

/// The named fields of a stored record decoded, read from its bytes up to the last of them — what
/// `StoredRow::subset` gives, without reading the whole row. `encode_record` writes a serde_json map, whose keys
/// come in byte order, so a key past every name ends the reading; keys found out of order before it send the
/// row through `StoredRow`. `None` if the record does not read so (the caller decodes it).
pub fn stored_subset(raw: &[u8], names: &[&str]) -> Option<Map<String, Value>> {
    let last = names.iter().max()?.as_bytes();
    let mut out = Map::new();
    let mut prev: Option<std::borrow::Cow<[u8]>> = None;
    for f in RawFields::new(raw)? {
        let f = f?;
        // Out of order (not as serde_json writes a map): read the whole row instead.
        if prev.as_ref().is_some_and(|p| **p >= *f.key) {
            return StoredRow::parse(raw)?.subset(names);
        }
        if *f.key > *last {
            break;
        }
        if let Some(name) = names.iter().find(|n| n.as_bytes() == &*f.key) {
            out.insert((*name).to_string(), serde_json::from_slice(f.value).ok()?);
        }
        prev = Some(f.key);
    }
    Some(out)
}

/// The top-level fields of a stored record in the order written; an item is `None` where the bytes do not read.
struct RawFields<'a> {
    b: &'a [u8],
    i: usize,
    done: bool,
}

impl<'a> RawFields<'a> {
    fn new(raw: &'a [u8]) -> Option<RawFields<'a>> {
        let (&RECORD_V1, b) = raw.split_first()? else { return None };
        if b.first() != Some(&b'{') {
            return None;
        }
        if b.get(1) == Some(&b'}') {
            return (b.len() == 2).then_some(RawFields { b, i: 2, done: true });
        }
        Some(RawFields { b, i: 1, done: false })
    }

    fn field(&mut self) -> Option<RawField<'a>> {
        let (b, i) = (self.b, self.i);
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let end = skip_string(b, i)?;
        let json_key = &b[i..end];
        let inner = &json_key[1..json_key.len() - 1];
        let key = if memchr::memchr(b'\\', inner).is_some() {
            std::borrow::Cow::Owned(serde_json::from_slice::<String>(json_key).ok()?.into_bytes())
        } else {
            std::borrow::Cow::Borrowed(inner)
        };
        if b.get(end) != Some(&b':') {
            return None;
        }
        let vend = skip_value(b, end + 1)?;
        self.i = vend + 1;
        match b.get(vend) {
            Some(b',') => {}
            Some(b'}') if self.i == b.len() => self.done = true,
            _ => return None,
        }
        Some(RawField { json_key, key, value: &b[end + 1..vend] })
    }
}

impl<'a> Iterator for RawFields<'a> {
    type Item = Option<RawField<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let f = self.field();
        if f.is_none() {
            self.done = true;
        }
        Some(f)
    }
}

/// The index just past the string starting at `i` (a `"`).
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        j += memchr::memchr2(b'"', b'\\', b.get(j..)?)?;
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
            let n = memchr::memchr2(b',', b'}', &b[i..])?;
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

    /// The named fields read from a row's bytes up to the last of them are the named fields of the decoded
    /// record: random records (odd keys and values), random names (absent ones included), keys out of order.
    #[test]
    fn a_subset_read_from_the_bytes_is_the_decoded_subset() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let keys = ["a", "b\"q", "code", "id", "productName", "status", "zz", "é"];
        let values = [json!(null), json!("地板 600×600"), json!("a\"}b"), json!(-3), json!(1.5), json!([1, {"x": "]"}]), json!({"k": "}"})];
        for _ in 0..2000 {
            let mut doc = Map::new();
            for k in keys {
                if rng.random_bool(0.7) {
                    doc.insert(k.into(), values[rng.random_range(0..values.len())].clone());
                }
            }
            let names: Vec<&str> = keys.iter().copied().filter(|_| rng.random_bool(0.3)).chain(["missing"]).collect();
            let raw = encode_record(&doc).unwrap();
            let expected: Map<String, Value> = names.iter().filter_map(|n| doc.get(*n).map(|v| (n.to_string(), v.clone()))).collect();
            assert_eq!(stored_subset(&raw, &names), Some(expected.clone()), "{doc:?} {names:?}");
            assert_eq!(StoredRow::parse(&raw).unwrap().subset(&names), Some(expected));
        }
        // Keys out of order before the last name: read through the whole row.
        let raw = b"\x01{\"zz\":1,\"a\":2}";
        assert_eq!(stored_subset(raw, &["zz"]), Some(json!({"zz": 1}).as_object().unwrap().clone()));
        assert_eq!(stored_subset(b"\x01{\"b\":1,\"a\":2,\"c\":3}", &["a", "c"]), Some(json!({"a": 2, "c": 3}).as_object().unwrap().clone()));
        assert_eq!(stored_subset(b"\x01{\"a\":1", &["a"]), None);
        assert_eq!(stored_subset(b"\x01{\"a\":1}x", &["a"]), None);
        assert_eq!(stored_subset(b"\x01{}", &["a"]), Some(Map::new()));
    }

    /// `get_at` gives what `get` gives, wherever `at` points, over rows with different keys read in turn.
    #[test]
    fn a_remembered_place_finds_what_a_search_finds() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let keys = ["a", "b", "bb", "c", "id", "productName", "status", "statusName", "z"];
        let mut at = [0usize; 11];
        for _ in 0..3000 {
            let mut doc = Map::new();
            for k in keys {
                if rng.random_bool(0.6) {
                    doc.insert(k.into(), json!(k));
                }
            }
            let raw = encode_record(&doc).unwrap();
            let row = StoredRow::parse(&raw).unwrap();
            for (n, name) in keys.iter().chain(["0", "zz"].iter()).enumerate() {
                if rng.random_bool(0.1) {
                    at[n] = rng.random_range(0..30);
                }
                assert_eq!(row.get_at(name, &mut at[n]), row.get(name), "{name} in {doc:?}");
            }
        }
    }

    /// A packed record reads back as it was, is not taken for format 1 by the readers that look into stored bytes,
    /// and an api-log entry of a write takes well under half its JSON.
    #[test]
    fn packed_records_round_trip_and_are_small() {
        let def: crate::ResourceDef = serde_json::from_value(serde_json::json!({"name": "log_api", "label": "l", "packed": true, "fields": []})).unwrap();
        let doc: Map<String, Value> = serde_json::from_value(serde_json::json!({
            "createDept": "0", "createTime": 1764660680123i64, "createUser": "14310117089738772", "env": "prod", "httpStatus": 200,
            "id": 14310118585729025u64, "isDeleted": 0, "method": "POST", "params": "", "remoteIp": "192.168.3.27",
            "requestId": "19ad8f6ae01-3c2a", "requestUri": "/api/blade-system/param/submit", "serverHost": "erp-01",
            "serverIp": "0.0.0.0:8080", "serviceId": "zhizhuang", "status": 1, "tenantId": "157270", "time": 3.417,
            "title": "参数新增", "updateTime": 1764660680123i64, "updateUser": "14310117089738772",
            "userAgent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
        })).unwrap();
        let plain = encode_record(&doc).unwrap();
        let packed = encode_for(&def, &doc, Packs { logs: RECORD_Z1, data: RECORD_V1 }).unwrap();
        assert_eq!(packed[0], RECORD_Z1);
        assert_eq!(decode_record(&packed).unwrap(), doc);
        assert!(StoredRow::parse(&packed).is_none());
        assert!(stored_subset(&packed, &["method"]).is_none());
        // Unpacked for answers written from stored bytes: format 1, the same bytes as the record never packed.
        assert_eq!(super::plain(&packed).unwrap(), plain);
        assert!(StoredRow::parse(&super::plain(&packed).unwrap()).is_some());
        assert!(packed.len() * 100 < plain.len() * 45, "{} packed of {} bytes", packed.len(), plain.len());
        // Damage is an error, never a panic nor a large allocation.
        let mut bad = packed.clone();
        bad.truncate(packed.len() / 2);
        assert!(decode_record(&bad).is_err());
        assert!(decode_record(&[RECORD_Z1, 0x28, 0xb5, 0x2f, 0xfd, 0xff]).is_err());
        // Format 3: the same against `DICT_2` (`DICT_1` with entropy tables in front), smaller still; each format is
        // read with its own dictionary (a frame is refused by the other: zstd checks the dictionary's id).
        let z2 = encode_for(&def, &doc, Packs { logs: RECORD_Z2, data: RECORD_V1 }).unwrap();
        assert_eq!(z2[0], RECORD_Z2);
        assert_eq!(decode_record(&z2).unwrap(), doc);
        assert_eq!(super::plain(&z2).unwrap(), plain);
        assert!(stored_subset(&z2, &["method"]).is_none());
        assert!(z2.len() < packed.len(), "{} in format 3, {} in format 2", z2.len(), packed.len());
        let mut swapped = z2.clone();
        swapped[0] = RECORD_Z1;
        assert!(decode_record(&swapped).is_err());
        assert!(decode_record(&z2[..z2.len() - 3]).is_err());
    }

    /// A record larger than a reader may unpack is written in format 1, so that it stays readable.
    #[test]
    fn records_too_large_to_unpack_stay_in_format_1() {
        let def: crate::ResourceDef = serde_json::from_value(serde_json::json!({"name": "note", "label": "n", "fields": [{"name": "x", "label": "x"}]})).unwrap();
        let packs = Packs::of(crate::meta::PACKED_D1_FORMAT);
        let small = serde_json::json!({"x": "a"}).as_object().unwrap().clone();
        assert_eq!(encode_for(&def, &small, packs).unwrap()[0], RECORD_D1);
        let big = serde_json::json!({"x": "a".repeat(UNPACKED_MAX)}).as_object().unwrap().clone();
        let stored = encode_for(&def, &big, packs).unwrap();
        assert_eq!(stored[0], RECORD_V1, "a record readers could not unpack is kept as it is");
        assert_eq!(decode_record(&stored).unwrap(), big);
    }

    /// Records of other resources in a file of format 5: frames against the data dictionary, read by every reader
    /// as format 1; a parameter (held out of the dictionary's samples) takes well under half its bytes.
    #[test]
    fn data_records_are_packed_against_the_data_dictionary() {
        let def: crate::ResourceDef = serde_json::from_value(serde_json::json!({"name": "param", "label": "p", "fields": []})).unwrap();
        let doc: Map<String, Value> = serde_json::from_value(serde_json::json!({
            "createDept": 14310117089738001u64, "createTime": 1764660680123i64, "createUser": 14310117089738772u64,
            "id": 14310118585729025u64, "isDeleted": 0, "paramKey": "bench.key.12345", "paramName": "参数2345",
            "paramValue": "12345:装修材料参数说明装修", "remark": "基准测试数据", "status": 1, "tenantId": "157270",
            "updateTime": 1764660680123i64, "updateUser": 14310117089738772u64
        })).unwrap();
        let plain_bytes = encode_record(&doc).unwrap();
        let old = encode_for(&def, &doc, Packs::of(4)).unwrap();
        assert_eq!(old, plain_bytes, "a file of format 4 keeps other records in format 1");
        let packed = encode_for(&def, &doc, Packs::of(5)).unwrap();
        assert_eq!(packed[0], RECORD_D1);
        assert_eq!(decode_record(&packed).unwrap(), doc);
        assert_eq!(super::plain(&packed).unwrap(), plain_bytes);
        assert!(matches!(super::unpacked(&packed).unwrap(), std::borrow::Cow::Owned(ref v) if *v == plain_bytes));
        assert!(matches!(super::unpacked(&plain_bytes).unwrap(), std::borrow::Cow::Borrowed(_)));
        assert!(StoredRow::parse(&packed).is_none() && stored_subset(&packed, &["paramKey"]).is_none());
        assert!(packed.len() * 100 < plain_bytes.len() * 55, "{} packed of {} bytes", packed.len(), plain_bytes.len());
        // A packed log resource keeps its own format in the same file.
        let log: crate::ResourceDef = serde_json::from_value(serde_json::json!({"name": "log_api", "label": "l", "packed": true, "fields": []})).unwrap();
        assert_eq!(encode_for(&log, &doc, Packs::of(5)).unwrap()[0], RECORD_Z2);
        // Unpacked behind a prefix (the tag of format 1) without the cache: the same bytes.
        assert_eq!(super::unpack_now(RECORD_D1, &packed[1..], &[RECORD_V1]).unwrap(), plain_bytes);
        assert_eq!(super::unpack_now(RECORD_D1, &packed[1..], &[]).unwrap(), plain_bytes[1..]);
        // A catalogue read in bulk (`plain`) stays in format 1 in every file format.
        let catalogue: crate::ResourceDef = serde_json::from_value(serde_json::json!({"name": "product", "label": "c", "plain": true, "fields": []})).unwrap();
        assert_eq!(encode_for(&catalogue, &doc, Packs::of(5)).unwrap(), plain_bytes);
        let both: crate::ResourceDef = serde_json::from_value(serde_json::json!({"name": "x", "label": "x", "plain": true, "packed": true, "fields": []})).unwrap();
        assert!(both.check().is_err());
        // Damage is an error; a frame read with another format's dictionary is refused (zstd checks its id).
        assert!(decode_record(&packed[..packed.len() - 2]).is_err());
        let mut swapped = packed.clone();
        swapped[0] = RECORD_Z2;
        assert!(decode_record(&swapped).is_err());
    }

    /// Unpacked records are kept by their packed bytes: read again they come from the cache, the same bytes; an
    /// entry whose key matches but whose bytes differ is never served; the cache stays within its room.
    #[test]
    fn unpacked_records_are_kept_by_their_bytes_within_their_room() {
        let def: crate::ResourceDef = serde_json::from_value(serde_json::json!({"name": "param", "label": "p", "fields": []})).unwrap();
        // About 40 MiB unpacked: more than the cache's room, read twice (the second pass promotes what is left).
        let docs: Vec<Map<String, Value>> = (0..9000)
            .map(|i| serde_json::from_value(serde_json::json!({"id": i, "paramKey": format!("k{i}"), "paramValue": format!("{i}{}", "装修".repeat(i % 1400))})).unwrap())
            .collect();
        let packed: Vec<Vec<u8>> = docs.iter().map(|d| encode_for(&def, d, Packs::of(5)).unwrap()).collect();
        for _ in 0..2 {
            for (d, p) in docs.iter().zip(&packed) {
                assert_eq!(&decode_record(p).unwrap(), d);
                assert_eq!(super::plain(p).unwrap(), encode_record(d).unwrap());
            }
        }
        let held: usize = UNPACKED.shards.iter().map(|s| {
            let s = s.lock().unwrap();
            s.young.values().chain(s.old.values()).map(|(p, v)| p.len() + v.len()).sum::<usize>()
        }).sum();
        assert!(held <= UNPACKED_CACHE_BYTES, "{held} bytes held");
        assert_eq!(unpacked_figures().bytes as usize, held);
        assert!(unpacked_figures().hits > 0 && unpacked_figures().misses > 0);
        // What was read last is there: found without unpacking.
        let last = packed.last().unwrap();
        assert_eq!(UNPACKED.get(last[0], &last[1..], &[RECORD_V1]), Some(encode_record(docs.last().unwrap()).unwrap()));
        // Another record's bytes under this record's key (a collision): not served, the frame is unpacked instead.
        let p = &packed[7];
        let key = UnpackCache::key(p[0], &p[1..]);
        UNPACKED.shards[UnpackCache::shard(key)].lock().unwrap().young.insert(key, (packed[8].clone().into_boxed_slice(), Box::from(&b"{}"[..])));
        assert_eq!(decode_record(p).unwrap(), docs[7]);
    }

    /// `DICT_2` is a zstd dictionary (magic, id 0x5A5A0002) whose content is `DICT_1`, unchanged.
    #[test]
    fn the_second_dictionary_is_the_first_with_tables() {
        assert_eq!(&DICT_2[..4], &0xEC30A437u32.to_le_bytes());
        assert_eq!(&DICT_2[4..8], &0x5A5A0002u32.to_le_bytes());
        assert!(DICT_2.ends_with(DICT_1.as_bytes()));
    }

}
