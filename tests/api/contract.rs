//! Scenario tables for the wire contract: envelope, paging, filters, sorts, ids, dates and the error table.
use serde_json::{Value, json};

use crate::support::{App, Case, admin_tokens, case, run_cases};

fn c(name: &'static str, method: &'static str, url: &'static str, who: Option<&'static str>, body: Option<&'static str>, status: u16, has: &'static [&'static str]) -> Case {
    case(name, method, url, who, body, status, has)
}

const A: Option<&str> = Some("157270");
const P: &str = "/api/blade-system/param";

#[tokio::test]
async fn parameter_resource_and_bad_input() {
    let app = App::new();
    let cases = [
        c("health is public", "GET", "/api/health", None, None, 200, &["\"status\":\"ok\"", "version"]),
        c("list needs sign-in", "GET", "/api/blade-system/param/list", None, None, 401, &["请求未授权"]),
        c("empty list", "GET", "/api/blade-system/param/list", A, None, 200, &["\"records\":[]", "\"total\":0", "\"size\":10", "\"current\":1"]),
        c("insert", "POST", "/api/blade-system/param/submit", A, Some(r#"{"paramName":"站点名称","paramKey":"site.name","paramValue":"智装"}"#), 200, &["\"success\":true", "site.name"]),
        c("insert 2", "POST", "/api/blade-system/param/submit", A, Some(r#"{"paramName":"上传上限","paramKey":"upload.max","paramValue":"500","remark":"kb"}"#), 200, &["upload.max"]),
        c("duplicate key", "POST", "/api/blade-system/param/submit", A, Some(r#"{"paramName":"x","paramKey":"site.name","paramValue":"y"}"#), 400, &["参数键名已存在"]),
        c("missing required", "POST", "/api/blade-system/param/submit", A, Some(r#"{"paramName":"x","paramKey":"k"}"#), 400, &["请输入参数键值"]),
        c("blank required", "POST", "/api/blade-system/param/submit", A, Some(r#"{"paramName":"","paramKey":"k","paramValue":"v"}"#), 400, &["请输入参数名称"]),
        c("wrong type", "POST", "/api/blade-system/param/submit", A, Some(r#"{"paramName":["a"],"paramKey":"k","paramValue":"v"}"#), 400, &["参数名称格式不正确"]),
        c("unknown field", "POST", "/api/blade-system/param/submit", A, Some(r#"{"paramName":"a","paramKey":"k","paramValue":"v","evil":1}"#), 400, &["未知字段: evil"]),
        c("malformed json", "POST", "/api/blade-system/param/submit", A, Some(r#"{"paramName": "#), 400, &["不是合法的JSON"]),
        c("json not an object", "POST", "/api/blade-system/param/submit", A, Some("[1,2]"), 400, &["必须是JSON对象"]),
        c("too long", "POST", "/api/blade-system/param/submit", A, Some(r#"{"paramName":"a","paramKey":"k k","paramValue":"v"}"#), 400, &["参数键名格式不正确"]),
        c("audit columns ignored", "POST", "/api/blade-system/param/submit", A, Some(r#"{"paramName":"a","paramKey":"audit","paramValue":"v","createUser":"1","tenantId":"000000","$paramName":"x"}"#), 200, &["\"tenantId\":\"157270\""]),
        c("list total", "GET", "/api/blade-system/param/list?size=2", A, None, 200, &["\"total\":3", "\"pages\":2", "\"size\":2"]),
        c("page 2", "GET", "/api/blade-system/param/list?size=2&current=2", A, None, 200, &["\"current\":2", "site.name"]),
        c("contains filter", "GET", "/api/blade-system/param/list?paramName=站点", A, None, 200, &["\"total\":1", "site.name"]),
        c("equal filter", "GET", "/api/blade-system/param/list?paramKey_equal=upload.max", A, None, 200, &["\"total\":1", "upload.max"]),
        c("likeright filter", "GET", "/api/blade-system/param/list?paramKey_likeright=SITE", A, None, 200, &["\"total\":1"]),
        c("empty filter values ignored", "GET", "/api/blade-system/param/list?paramName=&paramKey_like=", A, None, 200, &["\"total\":3"]),
        c("date range", "GET", "/api/blade-system/param/list?createTime_dategt=2020-01-01%2000:00:00&createTime_datelt=2099-01-01%2000:00:00", A, None, 200, &["\"total\":3"]),
        c("date range excludes", "GET", "/api/blade-system/param/list?createTime_datelt=2020-01-01%2000:00:00", A, None, 200, &["\"total\":0"]),
        c("bad date", "GET", "/api/blade-system/param/list?createTime_dategt=yesterday", A, None, 400, &["createTime_dategt"]),
        c("sort asc", "GET", "/api/blade-system/param/list?ascs=paramKey&size=1", A, None, 200, &["audit"]),
        c("sort desc snake", "GET", "/api/blade-system/param/list?descs=create_time&size=1", A, None, 200, &["audit"]),
        c("unknown filter named", "GET", "/api/blade-system/param/list?password=1", A, None, 400, &["不支持的查询条件: password"]),
        c("undeclared filter named", "GET", "/api/blade-system/param/list?paramValue=1", A, None, 400, &["paramValue"]),
        c("unknown operator", "GET", "/api/blade-system/param/list?paramName_regex=1", A, None, 400, &["paramName_regex"]),
        c("unknown sort named", "GET", "/api/blade-system/param/list?ascs=1;drop%20table", A, None, 400, &["不支持的排序字段: 1;drop table"]),
        c("absurd size", "GET", "/api/blade-system/param/list?size=100000", A, None, 400, &["分页参数不正确: size"]),
        c("zero size", "GET", "/api/blade-system/param/list?size=0", A, None, 400, &["size"]),
        c("negative current", "GET", "/api/blade-system/param/list?current=-1", A, None, 400, &["current"]),
        c("huge current", "GET", "/api/blade-system/param/list?current=999999999999", A, None, 400, &["current"]),
        c("non-numeric id", "GET", "/api/blade-system/param/detail?id=abc", A, None, 400, &["无效的ID: abc"]),
        c("missing id", "GET", "/api/blade-system/param/detail", A, None, 400, &["请输入 id"]),
        c("absent id", "GET", "/api/blade-system/param/detail?id=123", A, None, 404, &["数据不存在"]),
        c("remove nothing selected", "POST", "/api/blade-system/param/remove", A, None, 400, &["请选择至少一条数据"]),
        c("remove bad id", "POST", "/api/blade-system/param/remove?ids=1,x", A, None, 400, &["无效的ID: x"]),
        c("remove absent", "POST", "/api/blade-system/param/remove?ids=42", A, None, 404, &["数据不存在"]),
        c("update absent", "POST", "/api/blade-system/param/submit", A, Some(r#"{"id":"42","paramName":"a"}"#), 404, &["数据不存在"]),
        c("update bad id", "POST", "/api/blade-system/param/submit", A, Some(r#"{"id":"4x","paramName":"a"}"#), 400, &["无效的ID"]),
        c("unknown route", "GET", "/api/blade-system/nothing/here", A, None, 404, &["接口不存在"]),
        c("unknown route unsigned", "GET", "/api/nowhere", None, None, 404, &["接口不存在"]),
        c("wrong method", "DELETE", "/api/blade-system/param/list", A, None, 405, &["不支持的请求方法"]),
        c("wrong method on submit", "GET", "/api/blade-system/param/submit", A, None, 405, &["不支持的请求方法"]),
        c("field schema", "GET", "/api/blade-system/param/schema", A, None, 200, &["\"paramName\"", "\"required\":true", "\"api\":\"/api/blade-system/param\"", "参数名称"]),
        // The code a new record is numbered with when left empty is marked for the form (留空自动生成).
        c("field schema: the numbered code", "GET", "/api/blade-api/wms/transfer/schema", A, None, 200, &["\"autoCode\":true,\"default\":null,\"dict\":null,\"filter\":true,\"form\":true,\"keywordThrough\":false,\"kind\":\"text\",\"label\":\"移库单号\""]),
        c("other tenant sees none", "GET", "/api/blade-system/param/list", Some("741487"), None, 200, &["\"total\":0"]),
    ];
    run_cases(&app, &admin_tokens(&app).await, &cases).await;

    // Ids are strings, dates are yyyy-MM-dd HH:mm:ss, and an update changes only what it sends.
    let token = app.admin("157270").await;
    let (_, v) = app.get(&format!("{P}/list?paramKey_equal=site.name"), &token).await;
    let rec = &v["data"]["records"][0];
    let id = rec["id"].as_str().expect("id is a string").to_string();
    assert!(id.parse::<u64>().unwrap() > 1 << 53, "64-bit ids need strings");
    let t = rec["createTime"].as_str().unwrap();
    assert_eq!(t.len(), 19);
    assert_eq!(&t[4..5], "-");
    assert_eq!(&t[13..14], ":");
    let (s, v) = app.post(&format!("{P}/submit"), &token, &format!(r#"{{"id":"{id}","paramValue":"新值"}}"#)).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["paramName"], "站点名称");
    assert_eq!(v["data"]["paramValue"], "新值");
    let (s, _) = app.req("POST", &format!("{P}/remove?ids={id}"), Some(&token), None, &[]).await;
    assert_eq!(s, 200);
    let (s, _) = app.get(&format!("{P}/detail?id={id}"), &token).await;
    assert_eq!(s, 404, "soft-deleted records are gone from reads");
    let (_, v) = app.get(&format!("{P}/list"), &token).await;
    assert_eq!(v["data"]["total"], 2);
    // The key of a removed parameter can be used again.
    let (s, _) = app.post(&format!("{P}/submit"), &token, r#"{"paramName":"站点名称","paramKey":"site.name","paramValue":"再来"}"#).await;
    assert_eq!(s, 200);
}

#[tokio::test]
async fn english_messages_on_request() {
    let app = App::new();
    let token = app.admin("157270").await;
    let (s, v) = app.req("GET", "/api/blade-system/param/list?nope=1", Some(&token), None, &[("accept-language", "en-US,en;q=0.9")]).await;
    assert_eq!(s, 400);
    assert_eq!(v["msg"], "Unsupported filter: nope");
    let (s, v) = app.req("GET", "/api/blade-system/param/list", None, None, &[("accept-language", "en")]).await;
    assert_eq!(s, 401);
    assert!(v["msg"].as_str().unwrap().starts_with("Not signed in"));
    let (_, v) = app.req("GET", "/api/blade-system/dict/dictionary?code=sex", Some(&token), None, &[("accept-language", "en")]).await;
    assert!(v.to_string().contains("\"dictValue\""));
    // A field is named by its label in Chinese (as its form names it) and by its key in English, for declared
    // fields and for the parameters of hand-written routes alike; a key only a program sends stays a key.
    let en = [("accept-language", "en")];
    let body = r#"{"paramName":"x","paramKey":"k"}"#;
    let (_, v) = app.req("POST", "/api/blade-system/param/submit", Some(&token), Some(body), &en).await;
    assert_eq!(v["msg"], "paramValue is required");
    let (_, v) = app.req("POST", "/api/blade-system/param/submit", Some(&token), Some(body), &[]).await;
    assert_eq!(v["msg"], "请输入参数键值");
    let (_, v) = app.req("POST", "/api/blade-user/update-password?oldPassword=x", Some(&token), None, &en).await;
    assert_eq!(v["msg"], "newPassword is required");
    let (_, v) = app.req("GET", "/api/blade-system/param/detail", Some(&token), None, &[]).await;
    assert_eq!(v["msg"], "请输入 id");
}

#[tokio::test]
async fn menus_buttons_and_dictionaries() {
    let app = App::new();
    let token = app.admin("157270").await;
    let (s, v) = app.get("/api/blade-system/menu/routes", &token).await;
    assert_eq!(s, 200);
    let text = v.to_string();
    for path in ["/wel/index", "/system/param", "/system/user", "/authority/role", "/wms/goods", "/work/todo"] {
        assert!(text.contains(path), "routes lack {path}");
    }
    // A tenant admin does not get platform-only menus.
    for path in ["/system/tenant", "/system/menu", "/system/client", "/tool/code"] {
        assert!(!text.contains(&format!("\"{path}\"")), "tenant admin must not see {path}");
    }
    assert!(!text.contains("param_add"), "routes hold menus only");
    let first = &v["data"][0];
    assert!(first["id"].is_string() && first["parentId"].is_string() && first["children"].is_array());

    let (_, v) = app.get("/api/blade-system/menu/buttons", &token).await;
    let mut codes = Vec::new();
    fn walk(v: &Value, codes: &mut Vec<String>) {
        for n in v.as_array().into_iter().flatten() {
            if n["category"] == 2 {
                assert!(n.get("children").is_none(), "a leaf button must not carry children: {n}");
                codes.push(n["code"].as_str().unwrap().to_string());
            }
            if let Some(c) = n.get("children") {
                walk(c, codes);
            }
        }
    }
    walk(&v["data"], &mut codes);
    for code in ["param_add", "param_edit", "param_delete", "param_view", "user_add"] {
        assert!(codes.iter().any(|c| c == code), "buttons lack {code}");
    }
    assert!(!codes.iter().any(|c| c == "tenant_add"));

    let platform = app.admin("000000").await;
    let (_, v) = app.get("/api/blade-system/menu/routes", &platform).await;
    assert!(v.to_string().contains("/system/tenant"), "the platform administrator sees tenant management");
    platform_sees_no_business_screens(&v);
    // A data file whose platform role was granted every menu loses the business ones once at upgrade.
    let (res, st) = (app.st.res.clone(), app.st.store.clone());
    st.write(move |w| {
        let menus: Vec<Value> = w.all(&res.get("menu"), "000000")?.iter().map(|m| Value::String(m["id"].as_u64().unwrap().to_string())).collect();
        let role = w.all(&res.get("role"), "000000")?.into_iter().find(|r| r["roleAlias"] == "administrator").unwrap();
        w.update(&res.get("role"), "000000", role["id"].as_u64().unwrap(), json!({"menuIds": menus}).as_object().unwrap().clone(), &store::Actor::default())?;
        w.delete_meta("upgrade:platform_without_business")?;
        zhizhuang::seed::upgrade(w, &res)
    })
    .unwrap();
    let platform = app.admin("000000").await;
    let (_, v) = app.get("/api/blade-system/menu/routes", &platform).await;
    platform_sees_no_business_screens(&v);

    for code in ["approval_apply_type", "approval_result", "approval_status", "construct_mode", "model_status", "clock_in_result", "is_sealed", "yes_no", "sex", "data_scope_type"] {
        let (s, v) = app.get(&format!("/api/blade-system/dict/dictionary?code={code}"), &token).await;
        assert_eq!(s, 200);
        assert!(v["data"].as_array().is_some_and(|a| !a.is_empty()), "dictionary {code} is empty");
    }
    let (_, v) = app.get("/api/blade-system/dict/dictionary?code=model_status", &token).await;
    let keys: Vec<&str> = v["data"].as_array().unwrap().iter().map(|e| e["dictKey"].as_str().unwrap()).collect();
    assert_eq!(keys, ["1", "2", "3", "4"]);
    let (s, _) = app.get("/api/blade-system/dict/dictionary", &token).await;
    assert_eq!(s, 400);
}

/// The platform tenant holds no company's records: none of the business screens is in its menus; its own are.
fn platform_sees_no_business_screens(v: &Value) {
    let text = v.to_string();
    for path in ["/system/tenant", "/system/menu", "/system/user", "/flow/model", "/resource/oss"] {
        assert!(text.contains(&format!("\"{path}\"")), "the platform lacks {path}");
    }
    // Screens only our own UI has are left out for another client (a stock Saber build has no page for them).
    for path in ["/monitor/status", "/monitor/log/login"] {
        assert!(!text.contains(&format!("\"{path}\"")), "menu/routes offers {path} to a client without its page");
    }
    for path in ["/project/index", "/wms/goods", "/finance/receivables", "/approval/index", "/work/todo", "/flow/follow", "/wechat/deploy", "/worklist/order"] {
        assert!(!text.contains(&format!("\"{path}\"")), "the platform sees the business screen {path}");
    }
}

#[tokio::test]
async fn permission_codes_are_enforced() {
    let app = App::new();
    app.make_role("157270", "viewer", &["system", "param"]).await;
    app.make_user("157270", "viewer1", "Viewer#1", &["viewer"]).await;
    app.make_role("157270", "nocodes", &[]).await;
    app.make_user("157270", "nobody", "Nobody#1", &["nocodes"]).await;
    let viewer = app.sign_in("157270", "viewer1", "Viewer#1").await;
    let nobody = app.sign_in("157270", "nobody", "Nobody#1").await;
    let (s, _) = app.get(&format!("{P}/list"), &viewer).await;
    assert_eq!(s, 200, "the menu code grants reading");
    for (url, body) in [(format!("{P}/submit"), Some(r#"{"paramName":"a","paramKey":"k","paramValue":"v"}"#)), (format!("{P}/remove?ids=1"), None)] {
        let (s, v) = app.req("POST", &url, Some(&viewer), body, &[]).await;
        assert_eq!(s, 403, "{url}: {v}");
        assert!(v["msg"].as_str().unwrap().contains("param_"), "{v}");
    }
    let (s, _) = app.get(&format!("{P}/list"), &nobody).await;
    assert_eq!(s, 403);
    let (s, v) = app.get("/api/blade-system/menu/routes", &nobody).await;
    assert_eq!((s.as_u16(), v["data"].as_array().map(Vec::len)), (200, Some(0)));
}

#[tokio::test]
async fn tenant_isolation_on_parameters() {
    let app = App::new();
    let a = app.admin("157270").await;
    let b = app.admin("741487").await;
    let (_, v) = app.post(&format!("{P}/submit"), &a, r#"{"paramName":"A","paramKey":"only.a","paramValue":"secret-a"}"#).await;
    let id = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = app.get(&format!("{P}/detail?id={id}"), &b).await;
    assert_eq!(s, 404, "{v}");
    let (s, _) = app.post(&format!("{P}/submit"), &b, &format!(r#"{{"id":"{id}","paramValue":"hijack"}}"#)).await;
    assert_eq!(s, 404);
    let (s, _) = app.req("POST", &format!("{P}/remove?ids={id}"), Some(&b), None, &[]).await;
    assert_eq!(s, 404);
    let (_, v) = app.get(&format!("{P}/list?paramKey_equal=only.a"), &b).await;
    assert_eq!(v["data"]["total"], 0);
    let (_, v) = app.get(&format!("{P}/detail?id={id}"), &a).await;
    assert_eq!(v["data"]["paramValue"], "secret-a", "B changed nothing");
    // The same key may exist in another tenant.
    let (s, _) = app.post(&format!("{P}/submit"), &b, r#"{"paramName":"B","paramKey":"only.a","paramValue":"b"}"#).await;
    assert_eq!(s, 200);
}

#[tokio::test]
async fn user_info_and_update_password() {
    let app = App::new();
    let token = app.admin("157270").await;
    let (s, v) = app.get("/api/blade-user/info", &token).await;
    assert_eq!(s, 200);
    assert_eq!(v["data"]["account"], "admin");
    assert!(v["data"]["id"].is_string());
    assert!(v["data"].get("passwordHash").is_none());
    let (_, v) = app.get("/api/blade-auth/oauth/user-info", &token).await;
    assert_eq!(v["data"]["tenantId"], "157270");
    let md5 = zhizhuang::auth::password::md5_hex;
    let url = |o: &str, n: &str, n1: &str| format!("/api/blade-user/update-password?oldPassword={}&newPassword={}&newPassword1={}", md5(o), md5(n), md5(n1));
    let (s, v) = app.req("POST", &url("wrong", "New#Pass1", "New#Pass1"), Some(&token), None, &[]).await;
    assert_eq!((s.as_u16(), v["msg"].as_str()), (400, Some("原密码不正确")));
    let (s, v) = app.req("POST", &url(crate::support::ADMIN_PW, "New#Pass1", "New#Pass2"), Some(&token), None, &[]).await;
    assert_eq!((s.as_u16(), v["msg"].as_str()), (400, Some("两次密码输入不一致")));
    let (s, v) = app.req("POST", "/api/blade-user/update-password?oldPassword=x", Some(&token), None, &[]).await;
    assert_eq!((s.as_u16(), v["msg"].as_str()), (400, Some("请输入新密码")));
    let (s, v) = app.req("POST", &url(crate::support::ADMIN_PW, "New#Pass1", "New#Pass1"), Some(&token), None, &[]).await;
    assert_eq!(s, 200, "{v}");
    let (s, _) = app.get("/api/blade-user/info", &token).await;
    assert_eq!(s, 401, "a password change ends every session, this one too");
    let (s, _) = app.sign_in_body("157270", "admin", crate::support::ADMIN_PW).await;
    assert_eq!(s, 400);
    app.sign_in("157270", "admin", "New#Pass1").await;
}
