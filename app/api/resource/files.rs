//! Object storage inside the data file (one file stays the whole backup): uploads read as a stream with the
//! size limit enforced while reading, content checked against its type by magic bytes, server-chosen names,
//! per-tenant quota; downloads with Content-Disposition and nosniff. A file is reached by an unguessable
//! 128-bit key in its link (a capability URL: images in <img> cannot send the Blade-Auth header, and tokens
//! never go in URLs).
use axum::extract::{Multipart, Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::ok;
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

/// Reads the `file` field of a multipart body, refusing as soon as it passes `limit`.
pub async fn read_upload(mut mp: Multipart, limit: usize) -> ApiResult<Upload> {
    while let Some(mut field) = mp.next_field().await.map_err(|_| ApiError::with(Kind::BadFormat, "multipart"))? {
        if field.name() != Some("file") {
            continue;
        }
        let original = field.file_name().unwrap_or("file").chars().filter(|c| !c.is_control()).take(200).collect::<String>();
        let mut bytes = Vec::new();
        while let Some(chunk) = field.chunk().await.map_err(|e| {
            if e.to_string().contains("limit") { ApiError::new(Kind::PayloadTooLarge) } else { ApiError::with(Kind::BadFormat, "multipart") }
        })? {
            if bytes.len() + chunk.len() > limit {
                return Err(ApiError::new(Kind::PayloadTooLarge));
            }
            bytes.extend_from_slice(&chunk);
        }
        return Ok(Upload { original, bytes });
    }
    Err(ApiError::with(Kind::Missing, "file"))
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

/// Stores an upload: the attach record and its chunks in one transaction, within the tenant's quota.
pub async fn store_upload(st: &AppState, s: &Session, up: Upload, purpose: &str, only: &[&str]) -> ApiResult<Map<String, Value>> {
    let (mime, ext) = sniff(&up.bytes, &up.original)?;
    if !only.is_empty() && !only.contains(&ext.as_str()) {
        return Err(ApiError::new(Kind::FileType));
    }
    let key = crate::auth::token::random_hex(16);
    let day = st.settings.zone.format(store::now_millis()).replace('-', "");
    let name = format!("{}/{}.{ext}", &day[..8], &key[..12]);
    let link = format!("/files/{}/{key}", s.tenant);
    let doc = json!({"originalName": up.original, "name": name, "link": link, "extension": ext, "mime": mime,
        "attachSize": up.bytes.len(), "fileKey": key, "purpose": purpose});
    let (def, t, actor, bytes) = (st.res.get("attach"), s.tenant.clone(), s.actor(), up.bytes);
    let doc = doc.as_object().cloned().unwrap_or_default();
    st.write(move |w| {
        let used = w.counter(&t, QUOTA_COUNTER)?;
        if used + bytes.len() as u64 > TENANT_QUOTA {
            return Err(store::StoreError::Rule("quota".into()));
        }
        let saved = w.insert(&def, &t, doc.clone(), &actor)?;
        w.put_file(&t, saved["id"].as_u64().unwrap_or(0), &bytes)?;
        w.add_counter(&t, QUOTA_COUNTER, bytes.len() as i64)?;
        Ok(saved)
    })
    .await
    .map_err(|e| if e.kind == Kind::Internal { ApiError::new(Kind::QuotaExceeded) } else { e })
}

/// POST /api/blade-resource/oss/endpoint/put-file (multipart `file`): Blade's upload answer.
pub async fn put_file(State(st): State<AppState>, s: Session, mp: Multipart) -> ApiResult<Response> {
    let up = read_upload(mp, MAX_FILE).await?;
    let saved = store_upload(&st, &s, up, "oss", &[]).await?;
    Ok(ok(json!({
        "link": saved["link"], "domain": "", "name": saved["name"], "originalName": saved["originalName"],
        "attachId": crate::wire::id_str(&saved["id"]),
    })))
}

/// GET /files/{tenant}/{key}: the file, streamed from its chunks.
pub async fn download(State(st): State<AppState>, Path((tenant, key)): Path<(String, String)>) -> Response {
    let not_found = || ApiError::new(Kind::NotFound).into_response();
    if key.len() != 32 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
        return not_found();
    }
    let st2 = st.clone();
    let found = st.read_now(|r| {
        let def = st2.res.get("attach");
        let Some(id) = r.find_unique(&def, &tenant, "fileKey", &key)? else { return Ok(None) };
        let Some(doc) = r.get(&def, &tenant, id)? else { return Ok(None) };
        Ok(Some((doc, r.file_chunks(&tenant, id)?)))
    });
    let Ok(Some((doc, chunks))) = found else { return not_found() };
    let mime = doc.get("mime").and_then(Value::as_str).unwrap_or("application/octet-stream").to_string();
    let name = doc.get("originalName").and_then(Value::as_str).unwrap_or("file");
    let inline = mime.starts_with("image/") || mime == "application/pdf";
    let disposition = format!("{}; filename*=UTF-8''{}", if inline { "inline" } else { "attachment" }, pct(name));
    let stream = futures_stream(chunks);
    let mut r = axum::body::Body::from_stream(stream).into_response();
    let h = r.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&mime) {
        h.insert(header::CONTENT_TYPE, v);
    }
    if let Ok(v) = HeaderValue::from_str(&disposition) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=86400"));
    r
}

fn futures_stream(chunks: Vec<Vec<u8>>) -> impl futures_core::Stream<Item = Result<bytes::Bytes, std::io::Error>> {
    tokio_stream_iter(chunks.into_iter().map(|c| Ok(bytes::Bytes::from(c))))
}

/// A stream over an iterator (what `futures::stream::iter` does), without pulling in the futures crate.
fn tokio_stream_iter<I: Iterator + Unpin>(iter: I) -> impl futures_core::Stream<Item = I::Item> {
    struct Iter<I>(I);
    impl<I: Iterator + Unpin> futures_core::Stream for Iter<I> {
        type Item = I::Item;
        fn poll_next(mut self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<Option<I::Item>> {
            std::task::Poll::Ready(self.0.next())
        }
    }
    Iter(iter)
}

fn pct(s: &str) -> String {
    s.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R'];
    const EXE: &[u8] = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00";

    #[test]
    fn content_must_match_its_name() {
        assert_eq!(sniff(PNG, "a.png").unwrap().1, "png");
        assert_eq!(sniff(PNG, "a.PNG").unwrap().1, "png");
        assert!(sniff(PNG, "a.jpg").is_err(), "a png named jpg");
        assert!(sniff(EXE, "invoice.pdf").is_err(), "a renamed executable");
        assert!(sniff(EXE, "tool.exe").is_err(), "executables are not accepted at all");
        assert_eq!(sniff("名称,数量\n".as_bytes(), "a.csv").unwrap().1, "csv");
        assert!(sniff(b"\x00\x01binary", "a.txt").is_err());
    }

    #[test]
    fn names_are_percent_encoded() {
        assert_eq!(pct("报表 1.xlsx"), "%E6%8A%A5%E8%A1%A8%201.xlsx");
        assert!(!pct("../../etc/passwd").contains('/'));
    }
}
