//! Sign-in: grants, tenants, captchas, refresh rotation, logout, technical workers, expired tenants.
use serde_json::Value;

use crate::support::{ADMIN_PW, App};

fn md5(s: &str) -> String {
    zhizhuang::auth::password::md5_hex(s)
}

#[tokio::test]
async fn password_grant_body_matches_the_contract() {
    let app = App::new();
    let (s, v) = app.sign_in_body("157270", "admin", ADMIN_PW).await;
    assert_eq!(s, 200, "{v}");
    for k in ["access_token", "refresh_token", "expires_in", "tenant_id", "user_id", "role_id", "role_name", "real_name", "avatar", "account", "user_name", "dept_id", "jti"] {
        assert!(v.get(k).is_some(), "token body lacks {k}");
    }
    assert_eq!(v["token_type"], "bearer");
    assert_eq!(v["scope"], "all");
    assert_eq!(v["tenant_id"], "157270");
    assert_eq!(v["role_name"], "admin");
    assert!(v["avatar"].as_str().unwrap().len() > 1, "a default avatar when none");
    assert_eq!(v["expires_in"], 1800);
    assert!(v.get("code").is_none(), "the token body is not enveloped");
}

#[tokio::test]
async fn failures_use_the_oauth_error_body() {
    let app = App::new();
    let (s, v) = app.sign_in_body("157270", "admin", "nope").await;
    assert_eq!(s, 400);
    assert_eq!(v["error_description"], "用户名或密码错误");
    assert_eq!(v["error_code"], 10001);
    let (s2, v2) = app.sign_in_body("157270", "ghost", "nope").await;
    assert_eq!((s2, v2), (s, v), "unknown and known accounts get identical answers");
    let (s, v) = app.sign_in_body("999999", "admin", ADMIN_PW).await;
    assert_eq!((s.as_u16(), v["error_description"].as_str()), (400, Some("租户ID未找到")));
    // Bad client credentials.
    let url = format!("/api/blade-auth/oauth/token?tenantId=157270&username=admin&password={}&grant_type=password", md5(ADMIN_PW));
    let (s, _) = app.req("POST", &url, None, None, &[("authorization", "Basic c2FiZXI6d3Jvbmc=")]).await;
    assert_eq!(s, 401);
    let (s, v) = app.req("POST", "/api/blade-auth/oauth/token?grant_type=social&source=x&code=y", None, None, &[("tenant-id", "157270")]).await;
    assert_eq!((s.as_u16(), v["error_description"].as_str()), (400, Some("第三方登录未配置")));
    let (s, v) = app.req("POST", "/api/blade-auth/oauth/token?grant_type=implicit", None, None, &[("tenant-id", "157270")]).await;
    assert_eq!(s, 400, "{v}");
}

#[tokio::test]
async fn form_body_and_host_mapping() {
    let app = App::new();
    let body = format!("tenantId=&username=admin&password={}&grant_type=password&scope=all&type=account", md5(ADMIN_PW));
    let req = axum::http::Request::post("/api/blade-auth/oauth/token")
        .header("authorization", crate::support::BASIC)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("host", "edu.localhost:8090")
        .body(axum::body::Body::from(body))
        .unwrap();
    let (s, _, v) = app.call(req).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["tenant_id"], "157270", "the host maps to the education tenant");
    let (s, v) = app.req("GET", "/api/blade-system/tenant/info?domain=edu.localhost", None, None, &[]).await;
    assert_eq!(s, 200);
    assert_eq!(v["data"]["tenantId"], "157270");
    let (_, v) = app.req("GET", "/api/blade-system/tenant/info?domain=unknown.example", None, None, &[]).await;
    assert!(v["data"].get("tenantId").is_none());
    // A host that maps to no tenant signs in to the default tenant 741487.
    let body = format!("username=admin&password={}&grant_type=password", md5(ADMIN_PW));
    let req = axum::http::Request::post("/api/blade-auth/oauth/token")
        .header("authorization", crate::support::BASIC)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("host", "somewhere.example")
        .body(axum::body::Body::from(body))
        .unwrap();
    let (_, _, v) = app.call(req).await;
    assert_eq!(v["tenant_id"], "741487");
}

#[tokio::test]
async fn captcha_grant_is_single_use() {
    let app = App::new();
    let (s, v) = app.req("GET", "/api/blade-auth/oauth/captcha", None, None, &[]).await;
    assert_eq!(s, 200);
    assert!(v["image"].as_str().unwrap().starts_with("data:image/png;base64,"));
    let key = v["key"].as_str().unwrap().to_string();
    let code = app.st.captchas.peek(&key).unwrap();
    let url = format!("/api/blade-auth/oauth/token?tenantId=157270&username=admin&password={}&grant_type=captcha&scope=all&type=account", md5(ADMIN_PW));
    let h = [("tenant-id", "157270"), ("captcha-key", key.as_str()), ("captcha-code", code.as_str()), ("dept-id", ""), ("role-id", "")];
    let (s, v) = app.req("POST", &url, None, None, &h).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = app.req("POST", &url, None, None, &h).await;
    assert_eq!((s.as_u16(), v["error_description"].as_str()), (400, Some("验证码不正确")), "reused captcha");
    let (s, _) = app.req("POST", &url, None, None, &[("tenant-id", "157270")]).await;
    assert_eq!(s, 400, "captcha grant without a captcha");
}

#[tokio::test]
async fn refresh_tokens_rotate_and_reuse_revokes_the_family() {
    let app = App::new();
    let (_, v) = app.sign_in_body("157270", "admin", ADMIN_PW).await;
    let r1 = v["refresh_token"].as_str().unwrap().to_string();
    let refresh = |r: &str| format!("/api/blade-auth/oauth/token?grant_type=refresh_token&refresh_token={r}&tenantId=157270");
    let (s, v2) = app.req("POST", &refresh(&r1), None, None, &[("tenant-id", "157270")]).await;
    assert_eq!(s, 200, "{v2}");
    let r2 = v2["refresh_token"].as_str().unwrap().to_string();
    assert_ne!(r1, r2);
    let t2 = v2["access_token"].as_str().unwrap().to_string();
    let (s, _) = app.get("/api/blade-user/info", &t2).await;
    assert_eq!(s, 200);
    // Reusing the retired token is theft: the whole family is revoked.
    let (s, v) = app.req("POST", &refresh(&r1), None, None, &[("tenant-id", "157270")]).await;
    assert_eq!(s, 401, "{v}");
    let (s, _) = app.req("POST", &refresh(&r2), None, None, &[("tenant-id", "157270")]).await;
    assert_eq!(s, 401);
    let (s, _) = app.get("/api/blade-user/info", &t2).await;
    assert_eq!(s, 401, "access tokens of a revoked family stop working");
    let (s, _) = app.req("POST", &refresh("garbage"), None, None, &[("tenant-id", "157270")]).await;
    assert_eq!(s, 401);
}

#[tokio::test]
async fn logout_revokes() {
    let app = App::new();
    let t = app.admin("741487").await;
    let other = app.admin("741487").await;
    let (s, _) = app.req("POST", "/api/blade-auth/oauth/logout", Some(&t), None, &[]).await;
    assert_eq!(s, 200);
    let (s, _) = app.get("/api/blade-user/info", &t).await;
    assert_eq!(s, 401);
    let (s, _) = app.get("/api/blade-user/info", &other).await;
    assert_eq!(s, 200, "only that session ends");
    let (s, _) = app.get("/api/blade-auth/oauth/logout", &other).await;
    assert_eq!(s, 200);
    let (s, _) = app.get("/api/blade-user/info", &other).await;
    assert_eq!(s, 401);
}

#[tokio::test]
async fn technical_workers_are_refused() {
    let app = App::new();
    app.make_user("157270", "wanggong", "Worker#1", &["carpenter"]).await;
    let (s, v) = app.sign_in_body("157270", "wanggong", "Worker#1").await;
    assert_eq!((s.as_u16(), v["error_description"].as_str()), (400, Some("技术工人无法登录系统")));
    // Five worker roles per tenant, flagged as such.
    let (res, st) = (app.st.res.clone(), app.st.store.clone());
    let workers = st.read(|r| r.all(&res.get("role"), "741487")).unwrap().into_iter().filter(|r| r["isWorker"] == 1).count();
    assert_eq!(workers, 5);
}

#[tokio::test]
async fn a_user_without_a_role_gets_no_token() {
    let app = App::new();
    // No role at all, and a role id that names no role (removed since): both refused as BladeX does.
    app.make_user("157270", "norole", "NoRole#1", &[]).await;
    let (s, v) = app.sign_in_body("157270", "norole", "NoRole#1").await;
    assert_eq!((s.as_u16(), v["error_description"].as_str()), (400, Some("未获得用户的角色信息")), "{v}");
    assert!(v.get("access_token").is_none());
    let (s, v) = app.req("POST", &format!("/api/blade-auth/oauth/token?tenantId=157270&username=norole&password={}&grant_type=password&scope=all", md5("NoRole#1")), None, None, &[("tenant-id", "157270"), ("accept-language", "en")]).await;
    assert_eq!(s, 400);
    assert!(v["error_description"].as_str().unwrap().contains("no role"), "{v}");
    // A user signed in while they had a role cannot refresh once every role is gone.
    app.make_role("157270", "temp", &["wel"]).await;
    let uid = app.make_user("157270", "temp1", "Temp#1234", &["temp"]).await;
    let (s, body) = app.sign_in_body("157270", "temp1", "Temp#1234").await;
    assert_eq!(s, 200, "{body}");
    let (res, st) = (app.st.res.clone(), app.st.store.clone());
    st.write(move |w| w.update(&res.get("user"), "157270", uid, serde_json::json!({"roleId": ""}).as_object().unwrap().clone(), &store::Actor::default()).map(|_| ())).unwrap();
    let rt = body["refresh_token"].as_str().unwrap();
    let (s, v) = app.req("POST", &format!("/api/blade-auth/oauth/token?grant_type=refresh_token&refresh_token={rt}&tenantId=157270"), None, None, &[("tenant-id", "157270")]).await;
    assert_eq!((s.as_u16(), v["error_description"].as_str()), (400, Some("未获得用户的角色信息")), "{v}");
}

#[tokio::test]
async fn expired_or_disabled_tenants_are_refused() {
    let app = App::new();
    let token = app.admin("157270").await;
    let (res, st) = (app.st.res.clone(), app.st.store.clone());
    st.write(move |w| {
        let def = res.get("tenant");
        let id = w.find_unique(&def, "000000", "tenantId", "157270")?.unwrap();
        let patch = serde_json::json!({"expireTime": "2020-01-01 00:00:00"});
        w.update(&def, "000000", id, patch.as_object().unwrap().clone(), &store::Actor::default())?;
        Ok(())
    })
    .unwrap();
    let (s, v) = app.sign_in_body("157270", "admin", ADMIN_PW).await;
    assert_eq!((s.as_u16(), v["error_description"].as_str()), (400, Some("租户授权已过期,请联系管理员")));
    let (s, _) = app.get("/api/blade-user/info", &token).await;
    assert_eq!(s, 401, "sessions of an expired tenant end");
}

#[tokio::test]
async fn no_known_password_works_on_a_fresh_install() {
    let app = App::new();
    for t in ["000000", "157270", "741487"] {
        for (a, p) in [("admin", "admin"), ("admin", "123456"), ("administrator", "admin"), ("admin", "admin123"), ("admin", "")] {
            let (s, _) = app.sign_in_body(t, a, p).await;
            assert!(s == 400 || s == 429, "{t}/{a}/{p} must not sign in: {s}");
        }
    }
    // The stored hash is Argon2id with at least 46 MiB and t >= 1, and never leaves the server.
    let (res, st) = (app.st.res.clone(), app.st.store.clone());
    let users = st.read(|r| r.all(&res.get("user"), "157270")).unwrap();
    let hash = users[0]["passwordHash"].as_str().unwrap();
    assert!(hash.starts_with("$argon2id$v=19$m=47104,t=1,p=1$"), "{hash}");
    let _ = Value::Null;
}
