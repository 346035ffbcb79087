//! Files, avatar, unlock check, personal info, the UI's error-log upload and Excel export.
use axum::body::Body;
use axum::http::Request;

use crate::support::App;

const PNG_HEAD: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0];

fn png(size: usize) -> Vec<u8> {
    let mut v = PNG_HEAD.to_vec();
    v.resize(size.max(PNG_HEAD.len()), 0);
    v
}

async fn upload(app: &App, url: &str, token: &str, name: &str, bytes: &[u8]) -> (u16, serde_json::Value) {
    let boundary = "zzBOUNDARYzz";
    let mut body = format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n").into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let req = Request::post(url)
        .header("blade-auth", format!("bearer {token}"))
        .header("content-type", format!("multipart/form-data; boundary={boundary}"))
        .body(Body::from(body))
        .unwrap();
    let (s, _, v) = app.call(req).await;
    (s.as_u16(), v)
}

#[tokio::test]
async fn avatar_upload_checks_type_size_and_serves_safely() {
    let app = App::new();
    let token = app.admin("157270").await;
    let (s, v) = upload(&app, "/api/blade-user/avatar", &token, "me.png", &png(2048)).await;
    assert_eq!(s, 200, "{v}");
    let link = v["data"]["link"].as_str().unwrap().to_string();
    assert!(link.starts_with("/files/157270/"));
    let (_, info) = app.get("/api/blade-user/info", &token).await;
    assert_eq!(info["data"]["avatar"], link.as_str());

    let (s, h, _) = app.call(Request::get(&link).header("blade-auth", format!("bearer {token}")).body(Body::empty()).unwrap()).await;
    assert_eq!(s, 200);
    assert_eq!(h["content-type"], "image/png");
    assert_eq!(h["x-content-type-options"], "nosniff");
    assert!(h["content-disposition"].to_str().unwrap().contains("me.png"));
    // Another tenant's path with the same key finds nothing.
    let other = link.replace("/157270/", "/741487/");
    let (s, _, _) = app.call(Request::get(&other).header("blade-auth", format!("bearer {token}")).body(Body::empty()).unwrap()).await;
    assert_eq!(s, 404);

    let (s, v) = upload(&app, "/api/blade-user/avatar", &token, "big.png", &png(600 * 1024)).await;
    assert_eq!(s, 413, "over 500 KB: {v}");
    let (s, v) = upload(&app, "/api/blade-user/avatar", &token, "evil.png", b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff").await;
    assert_eq!(s, 400, "a renamed executable: {v}");
    let (s, _) = upload(&app, "/api/blade-user/avatar", &token, "doc.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj").await;
    assert_eq!(s, 400, "avatars are jpg or png only");
    let (s, v) = upload(&app, "/api/blade-resource/oss/endpoint/put-file", &token, "../../../etc/passwd.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj").await;
    assert_eq!(s, 200, "{v}");
    let name = v["data"]["name"].as_str().unwrap();
    assert!(!name.contains("..") && !name.contains("passwd"), "the server chooses names: {name}");
    let (s, _) = upload(&app, "/api/blade-resource/oss/endpoint/put-file", &token, "tool.exe", b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff").await;
    assert_eq!(s, 400);
    let (s, _) = app.req("POST", "/api/blade-user/avatar", None, None, &[]).await;
    assert_eq!(s, 401);
}

#[tokio::test]
async fn unlock_check_and_personal_info() {
    let app = App::new();
    let token = app.admin("741487").await;
    let md5 = zhizhuang::auth::password::md5_hex;
    let (s, _) = app.req("POST", &format!("/api/blade-user/check-password?password={}", md5(crate::support::ADMIN_PW)), Some(&token), None, &[]).await;
    assert_eq!(s, 200);
    let (s, v) = app.req("POST", &format!("/api/blade-user/check-password?password={}", md5("nope")), Some(&token), None, &[]).await;
    assert_eq!((s.as_u16(), v["msg"].as_str()), (400, Some("密码不正确")));
    let (s, v) = app.post("/api/blade-user/update-info", &token, r#"{"phone":"2381234567"}"#).await;
    assert_eq!((s.as_u16(), v["msg"].as_str()), (400, Some("手机号码格式不正确")));
    let (s, v) = app.post("/api/blade-user/update-info", &token, r#"{"realName":"王经理","phone":"13912345678","roleId":"1","account":"root"}"#).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["realName"], "王经理");
    assert_eq!(v["data"]["account"], "admin", "own-record update cannot touch account or roles");
    let (s, _) = app.post("/api/blade-user/update-info", &token, r#"{"avatar":"https://evil.example/x.png"}"#).await;
    assert_eq!(s, 400);
}

#[tokio::test]
async fn ui_error_log_upload_and_export() {
    let app = App::new();
    let token = app.admin("157270").await;
    let logs = r#"[{"type":"TypeError","message":"x is undefined","stack":"at f (app.js:1)","info":"render","url":"/wel/index","time":"2026-11-21 10:00:00"},
                  {"type":"Error","message":"<script>alert(1)</script>","url":"/system/param"}]"#;
    let (s, v) = app.post("/api/blade-log/error/upload", &token, logs).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["saved"], 2);
    let (s, v) = app.get("/api/blade-log/error/list", &token).await;
    assert_eq!(s, 200);
    assert_eq!(v["data"]["total"], 2);
    let (_, v) = app.get("/api/blade-log/error/list", &app.admin("741487").await).await;
    assert_eq!(v["data"]["total"], 0, "per tenant");
    let (s, _) = app.post("/api/blade-log/error/upload", &token, "[]").await;
    assert_eq!(s, 400);
    let (s, _) = app.req("POST", "/api/blade-log/error/submit", Some(&token), Some("{}"), &[]).await;
    assert_eq!(s, 404, "logs are written by the server, not submitted");

    app.post("/api/blade-system/param/submit", &token, r#"{"paramName":"导出","paramKey":"export.a","paramValue":"1"}"#).await;
    let req = Request::get("/api/blade-system/param/export?paramKey_equal=export.a").header("blade-auth", format!("bearer {token}")).body(Body::empty()).unwrap();
    let resp = tower::ServiceExt::oneshot(app.router.clone(), req).await.unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-disposition"].to_str().unwrap().starts_with("attachment"));
    let bytes = http_body_util::BodyExt::collect(resp.into_body()).await.unwrap().to_bytes();
    assert_eq!(&bytes[..2], b"PK", "an xlsx is a zip");
    let (s, _) = app.get("/api/blade-system/param/export?bogus=1", &token).await;
    assert_eq!(s, 400, "filters are checked like the list's");
}
