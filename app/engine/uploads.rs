//! Uploads as every area takes them (`put-file`, approval and work-order files, avatars, imports): the multipart
//! `file` field read as a stream with the size limit enforced while reading (413 naming it), content checked
//! against its type by magic bytes, server-chosen names, the per-tenant quota, and the attach record with its
//! chunks written in one transaction — with the record it is attached to, when there is one (`boundTo`).
use axum::extract::Multipart;
use serde_json::{Map, Value, json};

use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind};
use crate::state::AppState;

/// Largest upload through `put-file`.
pub const MAX_FILE: usize = 10 << 20;
/// Avatars: jpg or png, at most 500 KB (SPEC §9).
pub const MAX_AVATAR: usize = 500 * 1024;
/// Stored bytes per tenant.
pub const TENANT_QUOTA: u64 = 1 << 30;
pub const QUOTA_COUNTER: &str = "$file_bytes";

/// Types accepted, by the extension the server gives the stored file.
const ALLOWED: &[&str] = &["jpg", "png", "gif", "webp", "pdf", "xlsx", "docx", "pptx", "zip", "txt", "csv"];

/// Uploads received at once in all, and per tenant: each holds a small buffer while it arrives (it is spooled to
/// a file), and its bytes once more only while it is written. Beyond them an upload waits (`Settings::upload_wait`)
/// for a place, then is answered 429: forty clients sending 10 MB at once cannot fill the server's memory.
pub const UPLOADS_AT_ONCE: usize = 4;
pub const UPLOADS_PER_TENANT: usize = 2;

/// The places for uploads (`UPLOADS_AT_ONCE`, `UPLOADS_PER_TENANT`).
pub struct UploadGate {
    all: std::sync::Arc<tokio::sync::Semaphore>,
    tenants: std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<tokio::sync::Semaphore>>>,
}

impl Default for UploadGate {
    fn default() -> Self {
        UploadGate { all: std::sync::Arc::new(tokio::sync::Semaphore::new(UPLOADS_AT_ONCE)), tenants: Default::default() }
    }
}

/// A place taken in the gate: held by the `Upload` until it is stored or dropped.
pub struct UploadPermit(#[allow(dead_code)] tokio::sync::OwnedSemaphorePermit, #[allow(dead_code)] tokio::sync::OwnedSemaphorePermit);

impl UploadGate {
    /// A place for one of `tenant`'s uploads, waiting at most `wait` (429 naming when to try again).
    pub async fn enter(&self, tenant: &str, wait: std::time::Duration) -> ApiResult<UploadPermit> {
        let mine = {
            let mut m = self.tenants.lock().unwrap_or_else(|e| e.into_inner());
            m.retain(|_, s| s.available_permits() < UPLOADS_PER_TENANT);
            m.entry(tenant.to_string()).or_insert_with(|| std::sync::Arc::new(tokio::sync::Semaphore::new(UPLOADS_PER_TENANT))).clone()
        };
        let busy = || ApiError { retry_after: Some(5), ..ApiError::with(Kind::UploadsBusy, "5") };
        let got = tokio::time::timeout(wait, async {
            let t = mine.acquire_owned().await.ok()?;
            let a = self.all.clone().acquire_owned().await.ok()?;
            Some(UploadPermit(t, a))
        })
        .await;
        match got {
            Ok(Some(p)) => Ok(p),
            _ => Err(busy()),
        }
    }
}

/// An upload as it arrived: spooled to a file of the data directory's `uploads.tmp/` (removed when dropped), its
/// first bytes for the type check, and whether the whole is UTF-8 text without NULs.
pub struct Upload {
    pub original: String,
    pub len: usize,
    pub head: Vec<u8>,
    text: bool,
    spool: Spool,
    _permit: Option<UploadPermit>,
}

/// A spooled upload's file, removed when dropped.
struct Spool(std::path::PathBuf);

impl Drop for Spool {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Bytes kept of an upload's start for the type check (magic bytes).
const HEAD: usize = 8 << 10;

impl Upload {
    /// The spooled bytes whole (an import parses them in memory, within its own bounds).
    pub async fn read_all(&self) -> ApiResult<Vec<u8>> {
        tokio::fs::read(&self.spool.0).await.map_err(ApiError::internal)
    }

    /// The spooled file, to be read a chunk at a time.
    pub fn path(&self) -> &std::path::Path {
        &self.spool.0
    }
}

/// Where uploads are spooled: `uploads.tmp/` in the data directory (private, like everything there; emptied at
/// start by `clear_spool`).
fn spool_dir(st: &AppState) -> std::path::PathBuf {
    st.store.path().parent().unwrap_or(std::path::Path::new(".")).join("uploads.tmp")
}

/// Removes what a stopped server left spooled.
pub fn clear_spool(st: &AppState) {
    let _ = std::fs::remove_dir_all(spool_dir(st));
}

/// Reads the `file` field of a multipart body into a spool file, refusing as soon as it passes `limit` (413
/// naming the limit), after taking a place among the uploads under way (`UploadGate`).
pub async fn read_upload(st: &AppState, s: &Session, mut mp: Multipart, limit: usize) -> ApiResult<Upload> {
    use tokio::io::AsyncWriteExt;
    let permit = st.uploads.enter(&s.tenant, st.settings.upload_wait).await?;
    let too_large = || ApiError::with(Kind::FileTooLarge, size_text(limit));
    // The route's body limit ends the stream with its own error: that is a file too large, not a bad form.
    let refused = |e: axum::extract::multipart::MultipartError| {
        if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE { too_large() } else { ApiError::with(Kind::BadFormat, "multipart") }
    };
    while let Some(mut field) = mp.next_field().await.map_err(refused)? {
        if field.name() != Some("file") {
            continue;
        }
        let original = field.file_name().unwrap_or("file").chars().filter(|c| !c.is_control()).take(200).collect::<String>();
        let dir = spool_dir(st);
        tokio::fs::create_dir_all(&dir).await.map_err(ApiError::internal)?;
        let spool = Spool(dir.join(format!("{}.part", crate::auth::token::random_hex(12))));
        let mut f = tokio::fs::OpenOptions::new().write(true).create_new(true).open(&spool.0).await.map_err(ApiError::internal)?;
        let (mut len, mut head, mut text) = (0usize, Vec::new(), Utf8Check::default());
        while let Some(chunk) = field.chunk().await.map_err(refused)? {
            if len + chunk.len() > limit {
                return Err(too_large());
            }
            if head.len() < HEAD {
                head.extend_from_slice(&chunk[..chunk.len().min(HEAD - head.len())]);
            }
            text.feed(&chunk);
            f.write_all(&chunk).await.map_err(ApiError::internal)?;
            len += chunk.len();
        }
        f.flush().await.map_err(ApiError::internal)?;
        return Ok(Upload { original, len, head, text: text.finish(), spool, _permit: Some(permit) });
    }
    Err(ApiError::with(Kind::Missing, "file"))
}

/// Whether bytes fed a chunk at a time are UTF-8 without NULs (a character may span two chunks).
#[derive(Default)]
struct Utf8Check {
    carry: Vec<u8>,
    bad: bool,
}

impl Utf8Check {
    fn feed(&mut self, chunk: &[u8]) {
        if self.bad {
            return;
        }
        if chunk.contains(&0) {
            self.bad = true;
            return;
        }
        let mut buf = std::mem::take(&mut self.carry);
        buf.extend_from_slice(chunk);
        match std::str::from_utf8(&buf) {
            Ok(_) => {}
            // An incomplete character at the end waits for the next chunk; anything else is not text.
            Err(e) if e.error_len().is_none() && buf.len() - e.valid_up_to() < 4 => self.carry = buf[e.valid_up_to()..].to_vec(),
            Err(_) => self.bad = true,
        }
    }
    fn finish(self) -> bool {
        !self.bad && self.carry.is_empty()
    }
}

/// A byte limit as people write it: `10 MB`, `500 KB`.
pub fn size_text(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { format!("{} MB", bytes >> 20) } else { format!("{} KB", bytes.div_ceil(1024)) }
}

/// The type the content really is (magic bytes), and its canonical extension.
pub fn sniff(bytes: &[u8], original: &str) -> ApiResult<(&'static str, String)> {
    sniff_head(bytes, std::str::from_utf8(bytes).is_ok() && !bytes.contains(&0), original)
}

/// `sniff` of an upload: its first bytes, and whether the whole of it is text.
pub fn sniff_upload(up: &Upload) -> ApiResult<(&'static str, String)> {
    sniff_head(&up.head, up.text, &up.original)
}

fn sniff_head(head: &[u8], text: bool, original: &str) -> ApiResult<(&'static str, String)> {
    let claimed = original.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    let (mime, ext) = match infer::get(head) {
        Some(t) => {
            let ext = match t.extension() {
                "jpeg" => "jpg",
                e => e,
            };
            (t.mime_type(), ext.to_string())
        }
        // Plain text has no magic number: accept it only when it is UTF-8 without NULs and claims to be text.
        None if matches!(claimed.as_str(), "txt" | "csv") && text => ("text/plain; charset=utf-8", claimed.clone()),
        None => return Err(ApiError::new(Kind::FileType)),
    };
    // Office files are zip containers: a .xlsx/.docx/.pptx claim is consistent with detected zip or ooxml.
    let consistent = claimed == ext
        || (claimed == "jpeg" && ext == "jpg")
        || (matches!(claimed.as_str(), "xlsx" | "docx" | "pptx") && (ext == "zip" || ext == claimed));
    if !ALLOWED.contains(&ext.as_str()) || !consistent {
        return Err(ApiError::new(Kind::FileType));
    }
    let ext = if matches!(claimed.as_str(), "xlsx" | "docx" | "pptx") { claimed } else { ext };
    Ok((mime, ext))
}

/// Stores an upload: the attach record and its chunks in one transaction, within the tenant's quota — or, when
/// the tenant has enabled its own object storage, the bytes in that bucket and the record naming them
/// (`engine::objects`).
pub async fn store_upload(st: &AppState, s: &Session, up: Upload, purpose: &str, only: &[&str]) -> ApiResult<Map<String, Value>> {
    store_upload_with(st, s, up, purpose, only, |_, _| Ok(None::<(String, ())>)).await.map(|(saved, _)| saved)
}

/// `store_upload`, and in the same transaction `attach(w, saved attach record)`: the record the file belongs to,
/// whose `<resource>:<id>` becomes the file's `boundTo` (who may download it follows who may see that record).
pub async fn store_upload_with<R: Send + 'static>(
    st: &AppState,
    s: &Session,
    up: Upload,
    purpose: &str,
    only: &[&str],
    mut attach: impl FnMut(&mut store::WriteCtx, &Map<String, Value>) -> store::Result<Option<(String, R)>> + Send + 'static,
) -> ApiResult<(Map<String, Value>, Option<R>)> {
    let (mime, ext) = sniff_upload(&up)?;
    if !only.is_empty() && !only.contains(&ext.as_str()) {
        return Err(ApiError::new(Kind::FileType));
    }
    let key = crate::auth::token::random_hex(16);
    let day = st.settings.zone.format(store::now_millis()).replace('-', "");
    // The stored name shares nothing with the key.
    let name = format!("{}/{}.{ext}", &day[..8], crate::auth::token::random_hex(6));
    let link = format!("/files/{}/{key}", s.tenant);
    let mut doc = json!({"originalName": up.original, "name": name, "link": link, "extension": ext, "mime": mime,
        "attachSize": up.len, "fileKey": key, "purpose": purpose});
    // The tenant's own bucket when it has enabled one (the bytes go there first; the record follows).
    let object = match crate::engine::objects::enabled(st, &s.tenant).await? {
        Some((oss, bucket)) => {
            let object_key = crate::engine::objects::object_key(&s.tenant, &name);
            // Streamed from the spool in parts: one 5 MiB part in memory at a time.
            bucket.put_file_in(&object_key, up.path(), 5 << 20, 1).await.map_err(|p| crate::engine::objects::failed(&p))?;
            doc["ossId"] = json!(oss);
            doc["objectKey"] = json!(object_key);
            Some((bucket, object_key))
        }
        None => None,
    };
    let in_bucket = object.is_some();
    let (def, t, actor, len, path) = (st.res.get("attach"), s.tenant.clone(), s.actor(), up.len as u64, up.path().to_path_buf());
    let doc = doc.as_object().cloned().unwrap_or_default();
    let r = st
        .write(move |w| {
            let mut saved = w.insert(&def, &t, doc.clone(), &actor)?;
            let id = saved["id"].as_u64().unwrap_or(0);
            // The data file's quota counts the bytes it holds; a tenant's bucket has its own limits.
            if !in_bucket {
                let used = w.counter(&t, QUOTA_COUNTER)?;
                if used + len > TENANT_QUOTA {
                    return Err(store::StoreError::Rule("quota".into()));
                }
                // Read from the spooled file a chunk at a time (the closure may run again: it opens it each time).
                let mut f = std::fs::File::open(&path).map_err(|e| store::StoreError::Rule(format!("upload unreadable: {e}")))?;
                let n = w.put_file_from(&t, id, &mut f, len)?;
                w.add_counter(&t, QUOTA_COUNTER, n as i64)?;
            }
            let owner = attach(w, &saved)?;
            if let Some((bound, _)) = &owner {
                saved = w.update(&def, &t, id, json!({"boundTo": bound}).as_object().cloned().unwrap_or_default(), &actor)?;
            }
            Ok((saved, owner.map(|(_, r)| r)))
        })
        .await;
    // A refused record leaves no object behind.
    if r.is_err()
        && let Some((bucket, key)) = &object
        && let Err(p) = bucket.delete(key).await {
        tracing::warn!(target: "zz::error", problem = %p, key = %key, "object storage: an upload whose record was refused stays in the bucket");
    }
    r
    .map_err(|e| if e.kind == Kind::Internal { ApiError::new(Kind::QuotaExceeded) } else { e })
}

