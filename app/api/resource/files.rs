//! Files kept inside the data file (one file stays the whole backup), or in the tenant's own bucket when it has
//! enabled object storage (`engine::objects`): `put-file` (uploads themselves are
//! `engine::uploads`, which every area's upload uses) and downloads with Content-Disposition and nosniff.
//!
//! A download needs a session of the file's tenant — the Blade-Auth header, or the UI's session cookie
//! (`http::session_token`), since an <img> or a link cannot send headers (tokens never go in URLs) — and the right to see what
//! the file is attached to (`boundTo` of its attach record, set in the transaction that attaches it): an
//! approval's files follow the approval's visibility, a work order's files the order's. Files attached to
//! nothing (avatars, pictures in notices, uploads not yet attached) are seen by every signed-in user of their
//! tenant. Anything else — another tenant's session, no session, a record the user may not see — is 404.
use axum::extract::{Multipart, Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::ok;
use crate::state::AppState;

pub use crate::engine::uploads::{MAX_AVATAR, MAX_FILE, Upload, read_upload, size_text, sniff, store_upload, store_upload_with};

/// POST /api/blade-resource/oss/endpoint/put-file (multipart `file`): Blade's upload answer.
pub async fn put_file(State(st): State<AppState>, s: Session, mp: Multipart) -> ApiResult<Response> {
    let up = read_upload(&st, &s, mp, MAX_FILE).await?;
    let saved = store_upload(&st, &s, up, "oss", &[]).await?;
    Ok(ok(json!({
        "link": saved["link"], "domain": "", "name": saved["name"], "originalName": saved["originalName"],
        "attachId": crate::wire::id_str(&saved["id"]),
    })))
}

/// The record a file is attached to, as `boundTo` names it: `<resource>:<id>`.
pub fn bound_to(attach: &Map<String, Value>) -> Option<(&str, u64)> {
    let (res, id) = attach.get("boundTo").and_then(Value::as_str)?.split_once(':')?;
    Some((res, id.parse().ok()?))
}

/// Whether the session may see what the file is attached to.
async fn may_see(st: &AppState, s: &Session, attach: &Map<String, Value>) -> ApiResult<()> {
    let Some((res, id)) = bound_to(attach) else { return Ok(()) };
    if res == "approval_file" {
        let (r2, s2) = (st.res.clone(), s.clone());
        let rec = st.read(move |r| r.get(&r2.get("approval_file"), &s2.tenant, id)).await?.ok_or_else(|| ApiError::new(Kind::NotFound))?;
        let (r2, s2) = (st.res.clone(), s.clone());
        return st.read(move |r| crate::api::flow::approval::file_visible(r, &r2, &s2, &rec)).await;
    }
    let def = st.res.find(res).ok_or_else(|| ApiError::new(Kind::NotFound))?;
    if !s.perms.codes.contains(def.code()) {
        return Err(ApiError::new(Kind::NotFound));
    }
    crate::engine::crud::get_scoped(st, s, &def, id).await.map(|_| ())
}

/// GET /files/{tenant}/{key}: the file, streamed from its chunks, to a session of its tenant that may see what
/// it is attached to.
pub async fn download(State(st): State<AppState>, Path((tenant, key)): Path<(String, String)>, scheme: Option<axum::Extension<crate::listen::Scheme>>, headers: HeaderMap) -> Response {
    let not_found = || ApiError::new(Kind::NotFound).into_response();
    if key.len() != 32 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
        return not_found();
    }
    let https = crate::http::is_https(scheme.as_ref().map(|e| &e.0), &headers, st.settings.trust_proxy);
    let token = crate::auth::session::bearer_in(&headers).or_else(|| crate::http::session_token(&headers, https));
    let Some(token) = token else { return ApiError::new(Kind::Unauthorized).into_response() };
    let s = match crate::auth::session::load(&st, token).await {
        Ok(s) => s,
        Err(e) => return e.into_response(),
    };
    if let Err(e) = s.refuse_until_changed("/files") {
        return e.into_response();
    }
    // Another tenant's session learns nothing, not even that the file exists.
    if s.tenant != tenant {
        return not_found();
    }
    let st2 = st.clone();
    let found = st.read_now(|r| {
        let def = st2.res.get("attach");
        let Some(id) = r.find_unique(&def, &tenant, "fileKey", &key)? else { return Ok(None) };
        Ok(r.get(&def, &tenant, id)?.map(|doc| (id, doc)))
    });
    let Ok(Some((id, doc))) = found else { return not_found() };
    if may_see(&st, &s, &doc).await.is_err() {
        return not_found();
    }
    let body = match (doc.get("ossId").and_then(Value::as_u64), doc.get("objectKey").and_then(Value::as_str)) {
        // In the tenant's bucket: passed through as it is read, never whole in memory.
        (Some(oss), Some(key)) => {
            let bucket = match crate::engine::objects::bucket_of(&st, &tenant, oss).await {
                Ok(Some(b)) => b,
                Ok(None) => return not_found(),
                Err(e) => return e.into_response(),
            };
            match bucket.stream(key).await {
                Ok(Some((s, _))) => axum::body::Body::from_stream(s),
                Ok(None) => return not_found(),
                Err(p) => return crate::engine::objects::failed(&p).into_response(),
            }
        }
        _ => {
            let Ok(chunks) = st.read_now(|r| r.file_chunks(&tenant, id)) else { return not_found() };
            axum::body::Body::from_stream(futures_stream(chunks))
        }
    };
    let mime = doc.get("mime").and_then(Value::as_str).unwrap_or("application/octet-stream").to_string();
    let name = doc.get("originalName").and_then(Value::as_str).unwrap_or("file");
    let inline = mime.starts_with("image/") || mime == "application/pdf";
    let disposition = format!("{}; filename*=UTF-8''{}", if inline { "inline" } else { "attachment" }, pct(name));
    let mut r = body.into_response();
    let h = r.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&mime) {
        h.insert(header::CONTENT_TYPE, v);
    }
    if let Ok(v) = HeaderValue::from_str(&disposition) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'"));
    // Private to the signed-in browser; a shared cache must not keep what a session unlocked.
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=3600"));
    h.insert(header::VARY, HeaderValue::from_static("Cookie, Blade-Auth"));
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
