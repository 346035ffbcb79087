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

pub struct Upload {
    pub original: String,
    pub bytes: Vec<u8>,
}

/// Reads the `file` field of a multipart body, refusing as soon as it passes `limit` (413 naming the limit).
pub async fn read_upload(mut mp: Multipart, limit: usize) -> ApiResult<Upload> {
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
        let mut bytes = Vec::new();
        while let Some(chunk) = field.chunk().await.map_err(refused)? {
            if bytes.len() + chunk.len() > limit {
                return Err(too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        return Ok(Upload { original, bytes });
    }
    Err(ApiError::with(Kind::Missing, "file"))
}

/// A byte limit as people write it: `10 MB`, `500 KB`.
pub fn size_text(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { format!("{} MB", bytes >> 20) } else { format!("{} KB", bytes.div_ceil(1024)) }
}

/// The type the content really is (magic bytes), and its canonical extension.
pub fn sniff(bytes: &[u8], original: &str) -> ApiResult<(&'static str, String)> {
    let claimed = original.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    let (mime, ext) = match infer::get(bytes) {
        Some(t) => {
            let ext = match t.extension() {
                "jpeg" => "jpg",
                e => e,
            };
            (t.mime_type(), ext.to_string())
        }
        // Plain text has no magic number: accept it only when it is UTF-8 without NULs and claims to be text.
        None if matches!(claimed.as_str(), "txt" | "csv") && std::str::from_utf8(bytes).is_ok() && !bytes.contains(&0) => {
            ("text/plain; charset=utf-8", claimed.clone())
        }
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
    let (mime, ext) = sniff(&up.bytes, &up.original)?;
    if !only.is_empty() && !only.contains(&ext.as_str()) {
        return Err(ApiError::new(Kind::FileType));
    }
    let key = crate::auth::token::random_hex(16);
    let day = st.settings.zone.format(store::now_millis()).replace('-', "");
    // The stored name shares nothing with the key.
    let name = format!("{}/{}.{ext}", &day[..8], crate::auth::token::random_hex(6));
    let link = format!("/files/{}/{key}", s.tenant);
    let mut doc = json!({"originalName": up.original, "name": name, "link": link, "extension": ext, "mime": mime,
        "attachSize": up.bytes.len(), "fileKey": key, "purpose": purpose});
    // The tenant's own bucket when it has enabled one (the bytes go there first; the record follows).
    let object = match crate::engine::objects::enabled(st, &s.tenant).await? {
        Some((oss, bucket)) => {
            let object_key = crate::engine::objects::object_key(&s.tenant, &name);
            bucket.put(&object_key, up.bytes.clone()).await.map_err(|p| crate::engine::objects::failed(&p))?;
            doc["ossId"] = json!(oss);
            doc["objectKey"] = json!(object_key);
            Some((bucket, object_key))
        }
        None => None,
    };
    let in_bucket = object.is_some();
    let (def, t, actor, bytes) = (st.res.get("attach"), s.tenant.clone(), s.actor(), up.bytes);
    let doc = doc.as_object().cloned().unwrap_or_default();
    let r = st
        .write(move |w| {
            let mut saved = w.insert(&def, &t, doc.clone(), &actor)?;
            let id = saved["id"].as_u64().unwrap_or(0);
            // The data file's quota counts the bytes it holds; a tenant's bucket has its own limits.
            if !in_bucket {
                let used = w.counter(&t, QUOTA_COUNTER)?;
                if used + bytes.len() as u64 > TENANT_QUOTA {
                    return Err(store::StoreError::Rule("quota".into()));
                }
                w.put_file(&t, id, &bytes)?;
                w.add_counter(&t, QUOTA_COUNTER, bytes.len() as i64)?;
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

