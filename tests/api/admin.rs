//! Platform administration: dictionaries, tenants, posts, departments, clients, regions, logs, files and
//! messages, notices, code generation. Scenario tables first, then the flows that need ids from earlier steps.
use serde_json::Value;

use crate::support::{ADMIN_PW, App, Case, admin_tokens, case, run_cases};
use zhizhuang::state::Settings;

fn c(name: &'static str, method: &'static str, url: impl Into<String>, who: &'static str, body: Option<&str>, status: u16, has: &'static [&'static str]) -> Case {
    case(name, method, url, Some(who), body, status, has)
}

const A: &str = "157270";
const B: &str = "741487";
const P: &str = "000000";

fn id(v: &Value) -> String {
    v["data"]["id"].as_str().unwrap_or_else(|| panic!("no id in {v}")).to_string()
}

const DB: &str = "/api/blade-system/dict-biz";

#[tokio::test]
async fn business_dictionaries() {
    let app = App::new();
    let tok = admin_tokens(&app).await;
    let (s, v) = app.post(&format!("{DB}/submit"), &tok[A], r#"{"code":"room_type","dictValue":"房型","sort":1}"#).await;
    assert_eq!(s, 200, "{v}");
    let parent = id(&v);
    assert_eq!(v["data"]["dictKey"], "-1");
    assert_eq!(v["data"]["isSealed"], 0, "isSealed defaults to 0");
    let (s, v) = app.post(&format!("{DB}/submit"), &tok[A], &format!(r#"{{"parentId":"{parent}","code":"other","dictKey":"1","dictValue":"一居","sort":1}}"#)).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["code"], "room_type", "children inherit the parent's code");
    let child = id(&v);
    let (_, v) = app.post(&format!("{DB}/submit"), &tok[A], r#"{"code":"sealed_one","dictValue":"封存","sort":2,"isSealed":1}"#).await;
    let sealed = id(&v);
    let cases = [
        c("code required", "POST", format!("{DB}/submit"), A, Some(r#"{"dictValue":"x","sort":1}"#), 400, &["请输入字典编号"]),
        c("name required", "POST", format!("{DB}/submit"), A, Some(r#"{"code":"x","sort":1}"#), 400, &["请输入字典名称"]),
        c("sort required", "POST", format!("{DB}/submit"), A, Some(r#"{"code":"x","dictValue":"x"}"#), 400, &["请输入字典排序"]),
        c("sealed blank", "POST", format!("{DB}/submit"), A, Some(r#"{"code":"x","dictValue":"x","sort":1,"isSealed":""}"#), 400, &["请选择封存"]),
        c("child key required", "POST", format!("{DB}/submit"), A, Some(&format!(r#"{{"parentId":"{parent}","dictValue":"x","sort":1}}"#)), 400, &["请输入字典键值"]),
        c("child key unique", "POST", format!("{DB}/submit"), A, Some(&format!(r#"{{"parentId":"{parent}","dictKey":"1","dictValue":"x","sort":2}}"#)), 400, &["字典键值已存在"]),
        c("parent code unique", "POST", format!("{DB}/submit"), A, Some(r#"{"code":"room_type","dictValue":"x","sort":1}"#), 400, &["字典编号已存在"]),
        c("absent parent", "POST", format!("{DB}/submit"), A, Some(r#"{"parentId":"42","dictKey":"1","dictValue":"x","sort":1}"#), 404, &["数据不存在"]),
        c("bad parent id", "POST", format!("{DB}/submit"), A, Some(r#"{"parentId":"x1","dictKey":"1","dictValue":"x","sort":1}"#), 400, &["parentId"]),
        c("sealed flag out of range", "POST", format!("{DB}/submit"), A, Some(r#"{"code":"y","dictValue":"x","sort":1,"isSealed":5}"#), 400, &["封存超出允许范围"]),
        c("parent-list", "GET", format!("{DB}/parent-list"), A, None, 200, &["\"total\":2", "room_type", "sealed_one"]),
        c("child-list", "GET", format!("{DB}/child-list?parentId={parent}"), A, None, 200, &["\"data\":[{", "一居"]),
        c("child-list needs parentId", "GET", format!("{DB}/child-list"), A, None, 400, &["parentId"]),
        c("child-list bad parentId", "GET", format!("{DB}/child-list?parentId=abc"), A, None, 400, &["abc"]),
        c("tree", "GET", format!("{DB}/tree?code=DICT"), A, None, 200, &["\"title\":\"房型\"", "\"children\"", "\"key\"", "\"value\""]),
        c("dictionary", "GET", format!("{DB}/dictionary?code=room_type"), A, None, 200, &["\"dictKey\":\"1\"", "一居"]),
        c("dictionary needs code", "GET", format!("{DB}/dictionary"), A, None, 400, &["code"]),
        c("detail", "GET", format!("{DB}/detail?id={child}"), A, None, 200, &["一居"]),
        c("list filter", "GET", format!("{DB}/list?code_equal=room_type"), A, None, 200, &["\"total\":2"]),
        c("list unknown filter", "GET", format!("{DB}/list?remark=1"), A, None, 400, &["remark"]),
        c("schema carries the screen's rules", "GET", format!("{DB}/schema"), A, None, 200, &["请输入字典编号", "请输入字典键值", "请选择封存", "\"dialogWidth\":880", "\"menuWidth\":150", "\"childMenuWidth\":220"]),
        c("sealed cannot change", "POST", format!("{DB}/submit"), A, Some(&format!(r#"{{"id":"{sealed}","dictValue":"改"}}"#)), 400, &["封存的数据不可修改或删除"]),
        c("sealed cannot go", "POST", format!("{DB}/remove?ids={sealed}"), A, None, 400, &["封存"]),
        c("other tenant sees none", "GET", format!("{DB}/parent-list"), B, None, 200, &["\"total\":0"]),
        c("other tenant: detail 404", "GET", format!("{DB}/detail?id={child}"), B, None, 404, &[]),
        c("other tenant: update 404", "POST", format!("{DB}/submit"), B, Some(&format!(r#"{{"id":"{child}","dictValue":"x"}}"#)), 404, &[]),
        c("other tenant: remove 404", "POST", format!("{DB}/remove?ids={parent}"), B, None, 404, &[]),
        c("other tenant: child under A's parent 404", "POST", format!("{DB}/submit"), B, Some(&format!(r#"{{"parentId":"{parent}","dictKey":"9","dictValue":"x","sort":1}}"#)), 404, &[]),
        c("platform dict: tenant admin cannot write", "POST", "/api/blade-system/dict/submit", A, Some(r#"{"code":"zz","dictValue":"x","sort":1}"#), 403, &[]),
        c("platform dict tree", "GET", "/api/blade-system/dict/tree?code=DICT", P, None, 200, &["model_status"]),
        c("platform dict parent-list", "GET", "/api/blade-system/dict/parent-list?size=100", P, None, 200, &["is_sealed"]),
    ];
    run_cases(&app, &tok, &cases).await;
    // The seeded platform dictionaries are sealed.
    let (_, v) = app.get("/api/blade-system/dict/parent-list?code_equal=sex", &tok[P]).await;
    let sex = v["data"]["records"][0]["id"].as_str().unwrap().to_string();
    let (s, _) = app.req("POST", &format!("/api/blade-system/dict/remove?ids={sex}"), Some(&tok[P]), None, &[]).await;
    assert_eq!(s, 400);
    // Removing a parent removes its children.
    let (s, _) = app.req("POST", &format!("{DB}/remove?ids={parent}"), Some(&tok[A]), None, &[]).await;
    assert_eq!(s, 200);
    let (s, _) = app.get(&format!("{DB}/detail?id={child}"), &tok[A]).await;
    assert_eq!(s, 404);
}

const T: &str = "/api/blade-system/tenant";

#[tokio::test]
async fn tenants_need_a_first_admin_password() {
    let app = App::new();
    let tok = admin_tokens(&app).await;
    let cases = [
        c("password required", "POST", format!("{T}/submit"), P, Some(r#"{"tenantName":"新租户"}"#), 400, &["请输入密码"]),
        c("confirmation required", "POST", format!("{T}/submit"), P, Some(r#"{"tenantName":"新租户","password":"Pw#12345"}"#), 400, &["请输入确认密码"]),
        c("passwords differ", "POST", format!("{T}/submit"), P, Some(r#"{"tenantName":"新租户","password":"Pw#12345","password2":"Pw#1234"}"#), 400, &["两次密码输入不一致"]),
        c("tenant admin cannot", "POST", format!("{T}/submit"), A, Some(r#"{"tenantName":"x","password":"a","password2":"a"}"#), 403, &[]),
        c("taken id", "POST", format!("{T}/submit"), P, Some(r#"{"tenantId":"157270","tenantName":"x","password":"a","password2":"a"}"#), 400, &["租户ID已存在"]),
        c("bad id", "POST", format!("{T}/submit"), P, Some(r#"{"tenantId":"ab c","tenantName":"x","password":"a","password2":"a"}"#), 400, &["租户ID格式不正确"]),
        c("platform tenant stays", "POST", format!("{T}/remove?ids=1"), P, None, 404, &[]),
        c("setting needs ids", "POST", format!("{T}/setting"), P, None, 400, &["请选择至少一条数据"]),
        c("setting by tenant admin", "POST", format!("{T}/setting?ids=1&accountNumber=5"), A, None, 403, &[]),
        c("datasource needs tenantId", "POST", format!("{T}/datasource?datasourceId=1"), P, None, 400, &["请输入租户ID"]),
        c("datasource absent", "POST", format!("{T}/datasource?tenantId=157270&datasourceId=42"), P, None, 404, &[]),
        c("list", "GET", format!("{T}/list"), P, None, 200, &["\"total\":3"]),
        c("client write is platform-only", "POST", "/api/blade-system/client/submit", A, Some(r#"{"clientId":"x","clientSecret":"y"}"#), 403, &[]),
        c("region write is platform-only", "POST", "/api/blade-system/region/submit", A, Some(r#"{"code":"999999","parentCode":"00","name":"x"}"#), 403, &[]),
        c("code records are platform-only", "POST", "/api/blade-develop/code/submit", A, Some(r#"{"codeName":"x","modelName":"x","fields":[]}"#), 403, &[]),
        c("datasource records are platform-only", "POST", "/api/blade-develop/datasource/submit", A, Some(r#"{"name":"x","driverClass":"x","url":"x","username":"x","password":"x"}"#), 403, &[]),
    ];
    run_cases(&app, &tok, &cases).await;
    let (s, v) = app.post(&format!("{T}/submit"), &tok[P], r#"{"tenantName":"新租户","domain":"NEW.localhost","password":"First#Admin1","password2":"First#Admin1"}"#).await;
    assert_eq!(s, 200, "{v}");
    let tid = v["data"]["tenantId"].as_str().unwrap().to_string();
    assert!(tid.len() == 6 && tid.bytes().all(|b| b.is_ascii_digit()), "generated id {tid}");
    assert!(!v.to_string().contains("First#Admin1"));
    let new_admin = app.sign_in(&tid, "admin", "First#Admin1").await;
    let (_, v) = app.get("/api/blade-system/menu/routes", &new_admin).await;
    assert!(v.to_string().contains("/system/param"), "the new admin has the tenant-admin role");
    let (_, v) = app.get("/api/blade-system/tenant/info?domain=new.localhost", &new_admin).await;
    assert_eq!(v["data"]["tenantId"], tid.as_str());
    // Setting and datasource binding.
    let tenant_row = id(&app.get(&format!("{T}/list?tenantId_equal={tid}"), &tok[P]).await.1["data"]["records"][0].clone().as_object().map(|o| serde_json::json!({"data": o})).unwrap());
    let (s, v) = app.req("POST", &format!("{T}/setting?ids={tenant_row}&accountNumber=20&expireTime=2099-12-31"), Some(&tok[P]), None, &[]).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = app.post("/api/blade-develop/datasource/submit", &tok[P], r#"{"name":"主库","driverClass":"com.mysql.cj.jdbc.Driver","url":"jdbc:mysql://db:3306/x","username":"root","password":"Ds#Secret9"}"#).await;
    let ds = id(&v);
    assert!(!v.to_string().contains("Ds#Secret9"));
    let (s, v) = app.req("POST", &format!("{T}/datasource?tenantId={tid}&datasourceId={ds}"), Some(&tok[P]), None, &[]).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["datasourceId"], ds.as_str());
    assert_eq!(v["data"]["accountNumber"], 20);
    let (_, v) = app.get(&format!("/api/blade-develop/datasource/detail?id={ds}"), &tok[P]).await;
    assert!(!v.to_string().contains("Ds#Secret9") && v["data"].get("password").is_none());
    // Removing the tenant stops its sign-in; the platform tenant cannot be removed.
    let (_, v) = app.get(&format!("{T}/list?tenantId_equal=000000"), &tok[P]).await;
    let platform_row = v["data"]["records"][0]["id"].as_str().unwrap().to_string();
    let (s, v) = app.req("POST", &format!("{T}/remove?ids={platform_row}"), Some(&tok[P]), None, &[]).await;
    assert_eq!((s.as_u16(), v["msg"].as_str()), (400, Some("平台租户不可删除")));
    let (s, _) = app.req("POST", &format!("{T}/remove?ids={tenant_row}"), Some(&tok[P]), None, &[]).await;
    assert_eq!(s, 200);
    let (s, _) = app.sign_in_body(&tid, "admin", "First#Admin1").await;
    assert_eq!(s, 400);
}

#[tokio::test]
async fn posts_departments_clients_regions() {
    let app = App::new();
    let tok = admin_tokens(&app).await;
    let (s, v) = app.post("/api/blade-system/post/submit", &tok[A], r#"{"category":1,"postCode":"pm","postName":"项目经理"}"#).await;
    assert_eq!(s, 200, "{v}");
    let post = id(&v);
    let (_, v) = app.post("/api/blade-system/dept/submit", &tok[A], r#"{"deptName":"总部","fullName":"总部","deptCategory":1}"#).await;
    let root = id(&v);
    assert_eq!(v["data"]["ancestors"], "0");
    let (_, v) = app.post("/api/blade-system/dept/submit", &tok[A], &format!(r#"{{"parentId":"{root}","deptName":"工程部","fullName":"工程部","deptCategory":2}}"#)).await;
    let child = id(&v);
    assert_eq!(v["data"]["ancestors"], format!("0,{root}"));
    let (_, v) = app.post("/api/blade-system/dept/submit", &tok[A], &format!(r#"{{"parentId":"{child}","deptName":"一组","fullName":"一组","deptCategory":2}}"#)).await;
    let grand = id(&v);
    let cases = [
        c("post select", "GET", "/api/blade-system/post/select?tenantId=741487", A, None, 200, &["项目经理"]),
        c("post select ignores another tenant id", "GET", "/api/blade-system/post/select?tenantId=157270", B, None, 200, &["\"data\":[]"]),
        c("post code unique", "POST", "/api/blade-system/post/submit", A, Some(r#"{"category":1,"postCode":"pm","postName":"x"}"#), 400, &["岗位编号已存在"]),
        c("post needs category", "POST", "/api/blade-system/post/submit", A, Some(r#"{"postCode":"x","postName":"x"}"#), 400, &["请选择岗位类型"]),
        c("post: B reads A's 404", "GET", format!("/api/blade-system/post/detail?id={post}"), B, None, 404, &[]),
        c("post: B removes A's 404", "POST", format!("/api/blade-system/post/remove?ids={post}"), B, None, 404, &[]),
        c("dept tree", "GET", "/api/blade-system/dept/tree?tenantId=741487", A, None, 200, &["总部", "工程部", "一组", "\"children\""]),
        c("dept tree is the session's", "GET", "/api/blade-system/dept/tree?tenantId=157270", B, None, 200, &["\"data\":[]"]),
        c("dept lazy-tree", "GET", format!("/api/blade-system/dept/lazy-tree?parentId={root}"), A, None, 200, &["工程部", "\"hasChildren\":true"]),
        c("dept lazy-list root", "GET", "/api/blade-system/dept/lazy-list", A, None, 200, &["总部", "\"hasChildren\":true"]),
        c("dept lazy-list bad", "GET", "/api/blade-system/dept/lazy-list?parentId=x", A, None, 400, &["无效的ID"]),
        c("dept under itself", "POST", "/api/blade-system/dept/submit", A, Some(&format!(r#"{{"id":"{root}","parentId":"{grand}"}}"#)), 400, &["上级节点不正确"]),
        c("dept absent parent", "POST", "/api/blade-system/dept/submit", A, Some(r#"{"parentId":"42","deptName":"x","fullName":"x","deptCategory":1}"#), 400, &["上级节点不正确"]),
        c("dept with children", "POST", format!("/api/blade-system/dept/remove?ids={root}"), A, None, 400, &["请先删除子节点"]),
        c("dept: B reads A's 404", "GET", format!("/api/blade-system/dept/detail?id={root}"), B, None, 404, &[]),
        c("dept: B moves A's 404", "POST", "/api/blade-system/dept/submit", B, Some(&format!(r#"{{"id":"{grand}","deptName":"x"}}"#)), 404, &[]),
        c("dept: B under A's parent", "POST", "/api/blade-system/dept/submit", B, Some(&format!(r#"{{"parentId":"{root}","deptName":"x","fullName":"x","deptCategory":1}}"#)), 400, &[]),
        c("region provinces", "GET", "/api/blade-system/region/lazy-tree", A, None, 200, &["北京市", "新疆维吾尔自治区", "澳门特别行政区", "\"hasChildren\":true"]),
        c("region cities", "GET", "/api/blade-system/region/lazy-tree?parentCode=440000", A, None, 200, &["广州市", "深圳市", "\"key\":\"440300\""]),
        c("region bad code", "GET", "/api/blade-system/region/lazy-tree?parentCode=1%27", A, None, 400, &["parentCode"]),
        c("region list", "GET", "/api/blade-system/region/list?parentCode_equal=00&size=100", A, None, 200, &["\"total\":34"]),
        c("region unknown parent", "POST", "/api/blade-system/region/submit", P, Some(r#"{"code":"999901","parentCode":"999900","name":"x"}"#), 400, &["上级节点不正确"]),
        c("region add", "POST", "/api/blade-system/region/submit", P, Some(r#"{"code":"440312","parentCode":"440300","name":"大鹏新区","regionLevel":3}"#), 200, &["\"ancestors\":\"00,440000,440300\""]),
        c("client add", "POST", "/api/blade-system/client/submit", P, Some(r#"{"clientId":"erp","clientSecret":"Erp#Secret7"}"#), 200, &["erp"]),
        c("client list hides secrets", "GET", "/api/blade-system/client/list", P, None, 200, &["saber", "erp"]),
    ];
    run_cases(&app, &tok, &cases).await;
    // Moving a department moves its subtree's ancestors.
    let (s, v) = app.post("/api/blade-system/dept/submit", &tok[A], &format!(r#"{{"id":"{child}","parentId":"0"}}"#)).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = app.get(&format!("/api/blade-system/dept/detail?id={grand}"), &tok[A]).await;
    assert_eq!(v["data"]["ancestors"], format!("0,{child}"));
    // A department with users cannot go.
    let (res, t, g) = (app.st.res.clone(), A.to_string(), grand.clone());
    app.st
        .store
        .write(move |w| {
            let doc = serde_json::json!({"account": "u1", "name": "u1", "realName": "u1", "deptId": g});
            w.insert(&res.get("user"), &t, doc.as_object().unwrap().clone(), &store::Actor::default())?;
            Ok(())
        })
        .unwrap();
    let (s, v) = app.req("POST", &format!("/api/blade-system/dept/remove?ids={grand}"), Some(&tok[A]), None, &[]).await;
    assert_eq!((s.as_u16(), v["msg"].as_str()), (400, Some("该机构下存在用户,不可删除")));
    // The client secret is stored hashed, never returned, and signs in.
    let (_, v) = app.get("/api/blade-system/client/list", &tok[P]).await;
    assert!(!v.to_string().contains("Erp#Secret7") && !v.to_string().contains("sha256:"));
    use base64::Engine;
    let basic = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("erp:Erp#Secret7"));
    let md5 = zhizhuang::auth::password::md5_hex(ADMIN_PW);
    let url = format!("/api/blade-auth/oauth/token?tenantId={A}&username=admin&password={md5}&grant_type=password&scope=all");
    let (s, v) = app.req("POST", &url, None, None, &[("authorization", basic.as_str()), ("tenant-id", A)]).await;
    assert_eq!(s, 200, "{v}");
}

#[tokio::test]
async fn notices_attachments_and_messages() {
    let app = App::new();
    let tok = admin_tokens(&app).await;
    let xss = r#"{"title":"通知","category":1,"content":"<p onmouseover=\"alert(1)\">hi</p><script>alert(document.cookie)</script><img src=x onerror=alert(2)><a href=\"javascript:alert(3)\">x</a><b>保留</b>"}"#;
    let (s, v) = app.post("/api/blade-desk/notice/submit", &tok[A], xss).await;
    assert_eq!(s, 200, "{v}");
    let notice = id(&v);
    let (_, v) = app.get(&format!("/api/blade-desk/notice/detail?id={notice}"), &tok[A]).await;
    let content = v["data"]["content"].as_str().unwrap();
    for bad in ["<script", "onmouseover", "onerror", "javascript:", "document.cookie"] {
        assert!(!content.contains(bad), "{bad} survived: {content}");
    }
    assert!(content.contains("<b>保留</b>"), "{content}");
    // An upload, then its removal gives the quota back.
    let png: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R', 0, 0, 0, 1];
    let boundary = "zzb";
    let mut body = format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n").into_bytes();
    body.extend_from_slice(png);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let req = axum::http::Request::builder()
        .method("POST")
        .uri("/api/blade-resource/oss/endpoint/put-file")
        .header("blade-auth", format!("bearer {}", tok[A]))
        .header("content-type", format!("multipart/form-data; boundary={boundary}"))
        .body(axum::body::Body::from(body))
        .unwrap();
    let (s, _, v) = app.call(req).await;
    assert_eq!(s, 200, "{v}");
    let attach = v["data"]["attachId"].as_str().unwrap().to_string();
    let used = |app: &App| app.st.store.read(|r| r.counter(A, zhizhuang::engine::uploads::QUOTA_COUNTER)).unwrap();
    assert_eq!(used(&app), png.len() as u64);
    let cases = [
        c("notice list", "GET", "/api/blade-desk/notice/list?title=通知", A, None, 200, &["\"total\":1"]),
        c("notice needs title", "POST", "/api/blade-desk/notice/submit", A, Some(r#"{"category":1}"#), 400, &["请输入通知标题"]),
        c("notice: B reads A's 404", "GET", format!("/api/blade-desk/notice/detail?id={notice}"), B, None, 404, &[]),
        c("notice: B edits A's 404", "POST", "/api/blade-desk/notice/submit", B, Some(&format!(r#"{{"id":"{notice}","title":"x"}}"#)), 404, &[]),
        c("notice: B removes A's 404", "POST", format!("/api/blade-desk/notice/remove?ids={notice}"), B, None, 404, &[]),
        c("attach list", "GET", "/api/blade-resource/attach/list", A, None, 200, &["a.png"]),
        c("attach: B reads A's 404", "GET", format!("/api/blade-resource/attach/detail?id={attach}"), B, None, 404, &[]),
        c("attach: B removes A's 404", "POST", format!("/api/blade-resource/attach/remove?ids={attach}"), B, None, 404, &[]),
        c("oss add", "POST", "/api/blade-resource/oss/submit", P, Some(r#"{"ossCode":"minio1","category":1,"endpoint":"http://minio:9000","accessKey":"AK-VISIBLE-NOT","secretKey":"SK-HIDDEN-9"}"#), 200, &["minio1"]),
        c("oss add 2", "POST", "/api/blade-resource/oss/submit", P, Some(r#"{"ossCode":"minio2","category":1,"endpoint":"http://m2","accessKey":"a","secretKey":"b"}"#), 200, &["minio2"]),
        c("oss keys required", "POST", "/api/blade-resource/oss/submit", P, Some(r#"{"ossCode":"m3","category":1,"endpoint":"x"}"#), 400, &["accessKey"]),
        // Each company configures its own bucket (issue 28): a tenant admin sees its own configurations, never another's.
        c("oss: a tenant admin sees only its own configurations", "GET", "/api/blade-resource/oss/list", A, None, 200, &["\"total\":0"]),
        c("oss enable needs id", "POST", "/api/blade-resource/oss/enable", P, None, 400, &["id"]),
        c("sms add", "POST", "/api/blade-resource/sms/submit", P, Some(r#"{"smsCode":"notify","category":1,"templateId":"T1","accessKey":"ak","secretKey":"SMS-SECRET-5"}"#), 200, &["notify"]),
        c("sms send", "POST", "/api/blade-resource/sms/send-message?code=notify&phones=13800138000,13900139000&params=%7B%22code%22%3A%221234%22%7D", P, None, 200, &["\"provider\":\"log\"", "\"result\":\"sent\""]),
        c("sms bad phone", "POST", "/api/blade-resource/sms/send-message?code=notify&phones=123", P, None, 400, &["手机号码格式不正确"]),
        c("sms bad params", "POST", "/api/blade-resource/sms/send-message?code=notify&phones=13800138000&params=[1]", P, None, 400, &["params"]),
        c("sms unknown code", "POST", "/api/blade-resource/sms/send-message?code=nope&phones=13800138000", P, None, 404, &[]),
        c("sms needs phones", "POST", "/api/blade-resource/sms/send-message?code=notify", P, None, 400, &["请输入手机号码"]),
        c("sms send needs the code", "POST", "/api/blade-resource/sms/send-message?code=notify&phones=13800138000", A, None, 403, &["sms_send"]),
    ];
    run_cases(&app, &tok, &cases).await;
    let (_, v) = app.get("/api/blade-resource/oss/list", &tok[P]).await;
    let text = v.to_string();
    assert!(!text.contains("SK-HIDDEN-9") && !text.contains("AK-VISIBLE-NOT"), "keys are write-only");
    let ids: Vec<String> = v["data"]["records"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
    for i in &ids {
        let (s, _) = app.req("POST", &format!("/api/blade-resource/oss/enable?id={i}"), Some(&tok[P]), None, &[]).await;
        assert_eq!(s, 200);
    }
    let (_, v) = app.get("/api/blade-resource/oss/list?enabled_equal=1", &tok[P]).await;
    assert_eq!(v["data"]["total"], 1, "one enabled config per tenant");
    // Editing without the keys keeps them, while the address stays; a new address needs the secret again.
    let (s, v) = app.post("/api/blade-resource/oss/submit", &tok[P], &format!(r#"{{"id":"{}","remark":"x","accessKey":"","secretKey":""}}"#, ids[0])).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = app.post("/api/blade-resource/oss/submit", &tok[P], &format!(r#"{{"id":"{}","endpoint":"http://new","accessKey":"","secretKey":""}}"#, ids[0])).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("重新填写 secretKey"), "{v}");
    let (s, v) = app.post("/api/blade-resource/oss/submit", &tok[P], &format!(r#"{{"id":"{}","endpoint":"http://new","accessKey":"","secretKey":"SK-NEW"}}"#, ids[0])).await;
    assert_eq!(s, 200, "{v}");
    let (s, _) = app.req("POST", &format!("/api/blade-resource/attach/remove?ids={attach}"), Some(&tok[A]), None, &[]).await;
    assert_eq!(s, 200);
    assert_eq!(used(&app), 0, "removal gives the quota back");
    let chunks = app.st.store.read(|r| r.file_chunks(A, attach.parse().unwrap())).unwrap();
    assert!(chunks.is_empty(), "removal deletes the chunks");
}

#[tokio::test]
async fn logs_are_written_redacted_and_pruned() {
    let app = App::new();
    let tok = admin_tokens(&app).await;
    let secret = "Sup3r#Secret!Pw";
    let md5 = zhizhuang::auth::password::md5_hex(secret);
    let (s, _) = app.sign_in_body(A, "admin", secret).await;
    assert_eq!(s, 400);
    app.post(&format!("{T}/submit"), &tok[P], &format!(r#"{{"tenantName":"日志","password":"{secret}","password2":"{secret}"}}"#)).await;
    app.get(&format!("/api/blade-system/param/list?password={secret}&token={md5}&clientSecret={secret}"), &tok[A]).await;
    app.st.logs.flush().await;
    // Nothing anywhere in any log entry of any tenant holds the password or its MD5.
    let res = app.st.res.clone();
    let all = app
        .st
        .log_store
        .read(move |r| {
            let mut out = Vec::new();
            for t in ["000000", "157270", "741487"] {
                for name in zhizhuang::logsink::LOG_RESOURCES {
                    out.extend(r.all(&res.get(name), t)?.into_iter().map(|e| (name.to_string(), Value::Object(e))));
                }
            }
            Ok(out)
        })
        .unwrap();
    assert!(all.iter().any(|(n, _)| n == "log_api"), "api calls are logged");
    for (n, e) in &all {
        let text = e.to_string();
        assert!(!text.contains(secret) && !text.contains(&md5), "{n} leaks the password: {text}");
    }
    let cases = [
        c("login log", "GET", "/api/blade-log/login/list?result_equal=bad_credentials", A, None, 200, &["\"total\":1", "\"account\":\"admin\""]),
        c("login log ok", "GET", "/api/blade-log/login/list?result_equal=ok", A, None, 200, &["\"grantType\":\"password\""]),
        c("api log", "GET", "/api/blade-log/api/list?requestUri_equal=/api/blade-system/param/list", A, None, 200, &["\"total\":1", "******", "\"httpStatus\":400"]),
        c("api log of another tenant", "GET", "/api/blade-log/api/list?requestUri_equal=/api/blade-system/param/list", B, None, 200, &["\"total\":0"]),
        c("usual log", "GET", "/api/blade-log/usual/list", P, None, 200, &["tenant_create"]),
        c("api log read-only", "POST", "/api/blade-log/api/submit", A, Some("{}"), 404, &["接口不存在"]),
        c("api log bad filter", "GET", "/api/blade-log/api/list?params=x", A, None, 400, &["params"]),
    ];
    run_cases(&app, &tok, &cases).await;
    // Retention: nothing is pruned within the window; everything older goes.
    let now = store::now_millis();
    assert_eq!(zhizhuang::logsink::prune(&app.st.log_store, &app.st.store, &app.st.res, 90, now).unwrap(), 0);
    let gone = zhizhuang::logsink::prune(&app.st.log_store, &app.st.store, &app.st.res, 1, now + 2 * 86_400_000).unwrap();
    assert!(gone as usize >= all.len(), "pruned {gone} of {}", all.len());
    let (_, v) = app.get("/api/blade-log/login/list", &tok[A]).await;
    assert!(v["data"]["total"].as_u64().unwrap() <= 1, "{v}");
}

/// `handler` as `/api/boom` under the server's own middleware (access log, panic answer), asked `uri` once: it must
/// answer 500; the request id, once the logs are written.
async fn boom<H: axum::handler::Handler<T, ()>, T: 'static>(app: &App, uri: &str, handler: H) -> String {
    use tower::ServiceExt;
    let router = axum::Router::new()
        .route("/api/boom", axum::routing::get(handler))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(zhizhuang::http::panic_response))
        .layer(axum::middleware::from_fn_with_state(app.st.clone(), zhizhuang::http::access_log));
    let resp = router.oneshot(axum::http::Request::builder().uri(uri).body(axum::body::Body::empty()).unwrap()).await.unwrap();
    assert_eq!(resp.status(), 500);
    app.st.logs.flush().await;
    resp.headers()["x-request-id"].to_str().unwrap().to_string()
}

#[tokio::test]
async fn server_errors_reach_the_error_log() {
    let app = App::new();
    let tok = admin_tokens(&app).await;
    // The server's own middleware stack around a handler that panics: the answer is the generic 500 and the
    // error log (the platform's) holds the cause with the request id; the api log holds the call.
    let rid = boom(&app, "/api/boom?password=hunter2", || async {
        if std::hint::black_box(true) {
            panic!("boom at the bottom");
        }
        "unreachable"
    })
    .await;
    let (s, v) = app.get(&format!("/api/blade-log/error/list?requestId_equal={rid}"), &tok[P]).await;
    assert_eq!(s, 200);
    assert_eq!(v["data"]["total"], 1, "{v}");
    let (_, v) = app.get(&format!("/api/blade-log/error/detail?id={}", v["data"]["records"][0]["id"].as_str().unwrap()), &tok[P]).await;
    assert!(v["data"]["message"].as_str().unwrap().contains("boom at the bottom"));
    let (_, v) = app.get(&format!("/api/blade-log/error/list?requestId_equal={rid}"), &tok[A]).await;
    assert_eq!(v["data"]["total"], 0, "server causes stay with the platform");
    let (_, v) = app.get("/api/blade-log/api/list?requestUri_equal=/api/boom", &tok[P]).await;
    assert!(v.to_string().contains("\"httpStatus\":500") && !v.to_string().contains("hunter2"), "{v}");

    // A tenant's user meets one: the tenant's error log says so (来源 服务端, the route, the request id), without the
    // cause; the platform's keeps the cause; another tenant sees nothing.
    let rid = boom(&app, "/api/boom", |axum::Extension(ctx): axum::Extension<zhizhuang::http::ReqCtx>| async move {
        ctx.set("157270", "1");
        if std::hint::black_box(true) {
            panic!("boom in a tenant's request");
        }
        "unreachable"
    })
    .await;
    let (_, v) = app.get(&format!("/api/blade-log/error/list?requestId_equal={rid}&source_equal=server"), &tok[A]).await;
    assert_eq!(v["data"]["total"], 1, "the tenant's log has it: {v}");
    let entry = v["data"]["records"][0].to_string();
    assert!(entry.contains("/api/boom") && entry.contains(&rid) && !entry.contains("boom in a tenant"), "without its cause: {entry}");
    let (_, v) = app.get(&format!("/api/blade-log/error/detail?id={}", v["data"]["records"][0]["id"].as_str().unwrap()), &tok[A]).await;
    assert!(!v.to_string().contains("boom in a tenant") && v["data"]["stack"].is_null(), "{v}");
    let (_, v) = app.get(&format!("/api/blade-log/error/list?requestId_equal={rid}"), &tok[P]).await;
    let id = v["data"]["records"][0]["id"].as_str().unwrap().to_string();
    let (_, v) = app.get(&format!("/api/blade-log/error/detail?id={id}"), &tok[P]).await;
    assert!(v["data"]["message"].as_str().unwrap().contains("boom in a tenant"), "{v}");
    let (_, v) = app.get(&format!("/api/blade-log/error/list?requestId_equal={rid}"), &tok[B]).await;
    assert_eq!(v["data"]["total"], 0, "{v}");
}

const GEN: &str = r#"{"codeName":"供应商","modelName":"supplier","menuGroup":"biz","fields":[
  {"name":"supplierName","label":"供应商名称","required":true,"filter":true,"search":true,"sort":true},
  {"name":"level","kind":"int","label":"等级","min":1,"max":5,"filter":true},
  {"name":"phone","label":"电话","pattern":"phone"}]}"#;

#[tokio::test]
async fn code_generation_end_to_end() {
    let app = App::new();
    let tok = admin_tokens(&app).await;
    let (s, v) = app.post("/api/blade-develop/code/submit", &tok[P], GEN).await;
    assert_eq!(s, 200, "{v}");
    let code = id(&v);
    let (_, v) = app.post("/api/blade-develop/code/submit", &tok[P], r#"{"codeName":"坏","modelName":"user","fields":[{"name":"x","label":"x"}]}"#).await;
    let clash = id(&v);
    let (_, v) = app.post("/api/blade-develop/code/submit", &tok[P], r#"{"codeName":"坏","modelName":"bad_fields","fields":[{"name":"x","label":"x","sql":"drop"}]}"#).await;
    let bad = id(&v);
    let cases = [
        c("not yet served", "GET", "/api/blade-gen/supplier/list", P, None, 404, &["接口不存在"]),
        c("gen needs ids", "POST", "/api/blade-develop/code/gen-code", P, None, 400, &["请选择至少一条数据"]),
        c("gen absent", "POST", "/api/blade-develop/code/gen-code?ids=42", P, None, 404, &[]),
        c("built-in names refused", "POST", format!("/api/blade-develop/code/gen-code?ids={clash}"), P, None, 400, &["user"]),
        c("unknown field keys refused", "POST", format!("/api/blade-develop/code/gen-code?ids={bad}"), P, None, 400, &["fields[0]"]),
        c("tenant admin cannot generate", "POST", format!("/api/blade-develop/code/gen-code?ids={code}"), A, None, 403, &[]),
        c("generate", "POST", format!("/api/blade-develop/code/gen-code?ids={code}&system=saber"), P, None, 200, &["/api/blade-gen/supplier", "/gen/supplier"]),
        c("list", "GET", "/api/blade-gen/supplier/list", P, None, 200, &["\"total\":0"]),
        c("insert", "POST", "/api/blade-gen/supplier/submit", P, Some(r#"{"supplierName":"华建材料","level":3,"phone":"13800138000"}"#), 200, &["华建材料"]),
        c("required", "POST", "/api/blade-gen/supplier/submit", P, Some(r#"{"level":3}"#), 400, &["请输入供应商名称"]),
        c("range", "POST", "/api/blade-gen/supplier/submit", P, Some(r#"{"supplierName":"x","level":9}"#), 400, &["等级超出允许范围"]),
        c("undeclared filter", "GET", "/api/blade-gen/supplier/list?phone=1", P, None, 400, &["phone"]),
        c("filter", "GET", "/api/blade-gen/supplier/list?supplierName=华建", P, None, 200, &["\"total\":1"]),
        c("schema", "GET", "/api/blade-gen/supplier/schema", P, None, 200, &["供应商名称", "\"api\":\"/api/blade-gen/supplier\""]),
        c("menu entry", "GET", "/api/blade-system/menu/routes", P, None, 200, &["/gen/supplier"]),
        c("buttons", "GET", "/api/blade-system/menu/buttons", P, None, 200, &["supplier_add", "supplier_delete"]),
        c("tenant admin without the grant", "GET", "/api/blade-gen/supplier/list", A, None, 403, &["supplier"]),
        c("copy", "POST", format!("/api/blade-develop/code/copy?id={code}"), P, None, 200, &["supplier_copy"]),
        c("reports", "GET", "/api/blade-report/report/rest/list", P, None, 200, &["\"total\":4", "项目统计报表"]),
    ];
    run_cases(&app, &tok, &cases).await;
    let (s, v) = app.req("POST", &format!("/api/blade-develop/code/gen-code?ids={code}"), Some(&tok[P]), None, &[]).await;
    assert_eq!(s, 200, "generating again is idempotent: {v}");
    let (_, v) = app.get("/api/blade-report/report/rest/list", &tok[P]).await;
    let report = v["data"]["records"][0]["id"].as_str().unwrap().to_string();
    let (s, _) = app.req("POST", &format!("/api/blade-report/report/rest/remove?ids={report}"), Some(&tok[P]), None, &[]).await;
    assert_eq!(s, 200);

    // Restart-equivalent: close the file, open a new AppState over it: the resource is still served.
    let file = app._dir.path().join(store::DATA_FILE);
    let crate::support::App { st, router, _dir } = app;
    st.store.close();
    st.log_store.close();
    drop(router);
    drop(st);
    let mut reopened = None;
    for _ in 0..50 {
        match store::Store::open(&file, &store::Options::default()) {
            Ok(s) => {
                reopened = Some(s);
                break;
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
        }
    }
    let store = reopened.expect("the data file reopens");
    let st = zhizhuang::state::AppState::new(store, zhizhuang::decl::Resources::load().unwrap(), Default::default()).unwrap();
    let app2 = crate::support::App { router: zhizhuang::router(st.clone()), st, _dir };
    let p = app2.admin(P).await;
    let (s, v) = app2.get("/api/blade-gen/supplier/list", &p).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["total"], 1);
    let (s, v) = app2.post("/api/blade-gen/supplier/submit", &p, r#"{"supplierName":"第二家"}"#).await;
    assert_eq!(s, 200, "{v}");
    let (s, _, html) = {
        let req = axum::http::Request::builder().uri("/gen/supplier").header("cookie", format!("saber-access-token={p}")).header("x-zz-props", "1").body(axum::body::Body::empty()).unwrap();
        app2.call(req).await
    };
    assert_eq!(s, 200);
    assert!(html.to_string().contains("supplierName"), "the generic screen is there: {}", &html.to_string()[..html.to_string().len().min(300)]);
}

#[tokio::test]
async fn api_log_writes_only_leaves_out_successful_reads() {
    let app = App::with(Settings { api_log_writes_only: true, ..Settings::default() });
    let tok = admin_tokens(&app).await;
    let (s, _) = app.get("/api/blade-system/param/list", &tok[A]).await;
    assert_eq!(s, 200);
    let (s, _) = app.get("/api/blade-system/param/list?nosuchfield=1", &tok[A]).await;
    assert_eq!(s, 400);
    let (s, v) = app.post("/api/blade-system/param/submit", &tok[A], r#"{"paramName":"只记写入","paramKey":"log.writes","paramValue":"1"}"#).await;
    assert_eq!(s, 200, "{v}");
    app.st.logs.flush().await;
    let (_, v) = app.get("/api/blade-log/api/list?requestUri_equal=/api/blade-system/param/list", &tok[A]).await;
    assert_eq!(v["data"]["total"], 1, "only the refused read: {v}");
    assert_eq!(v["data"]["records"][0]["httpStatus"], 400);
    let (_, v) = app.get("/api/blade-log/api/list?requestUri_equal=/api/blade-system/param/submit", &tok[A]).await;
    assert_eq!(v["data"]["total"], 1, "the write: {v}");
}

/// blade-wechat: the five resources at `/api/blade-wechat/<name>` (list, detail, submit, remove), secrets kept
/// write-only, a module or template bound to an account of the same tenant, and the push history's results named.
#[tokio::test]
async fn wechat_accounts_modules_templates_params_and_history() {
    let app = App::new();
    let tok = admin_tokens(&app).await;
    const W: &str = "/api/blade-wechat";
    let (s, v) = app.post(&format!("{W}/deploy/submit"), &tok[A], r#"{"accountName":"业主服务号","accountType":1,"appId":"wx0c9d52b8e4a1","appSecret":"s3cret-value","enabled":1}"#).await;
    assert_eq!(s, 200, "{v}");
    let deploy = id(&v);
    let (_, v) = app.get(&format!("{W}/deploy/detail?id={deploy}"), &tok[A]).await;
    assert_eq!(v["data"]["accountTypeName"], "服务号", "{v}");
    assert!(!v.to_string().contains("s3cret-value"), "the app secret is write-only: {v}");
    let (s, v) = app.post(&format!("{W}/deploy/submit"), &tok[A], r#"{"accountName":"重复","accountType":1,"appId":"wx0c9d52b8e4a1"}"#).await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = app.post(&format!("{W}/modules/submit"), &tok[A], &format!(r#"{{"moduleName":"在线报修","moduleCode":"repair","deployId":"{deploy}","audience":1}}"#)).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = app.get(&format!("{W}/modules/list?deployId={deploy}"), &tok[A]).await;
    assert_eq!(v["data"]["records"][0]["deployName"], "业主服务号", "{v}");
    let (s, v) = app.post(&format!("{W}/message/submit"), &tok[A], &format!(r#"{{"title":"报修受理通知","templateId":"tpl-01","deployId":"{deploy}","scene":1,"content":"已受理"}}"#)).await;
    assert_eq!(s, 200, "{v}");
    let message = id(&v);
    let (s, v) = app.post(&format!("{W}/param/submit"), &tok[A], r#"{"paramName":"推送时段开始","paramKey":"wechat.push.from","paramValue":"08:00"}"#).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = app.post(&format!("{W}/history/submit"), &tok[A], &format!(r#"{{"messageId":"{message}","receiverName":"张女士","openId":"o1","summary":"报修受理通知","sendTime":"2026-11-20 09:30:00","sendStatus":2,"errorMsg":"43004 接收人未关注公众号"}}"#)).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = app.get(&format!("{W}/history/list?sendStatus=2"), &tok[A]).await;
    assert_eq!((v["data"]["total"].as_u64(), v["data"]["records"][0]["sendStatusName"].as_str(), v["data"]["records"][0]["messageName"].as_str()), (Some(1), Some("失败"), Some("报修受理通知")), "{v}");
    // Another tenant's account is not one to bind to, and its lists are its own.
    let (s, v) = app.post(&format!("{W}/modules/submit"), &tok[B], &format!(r#"{{"moduleName":"x","moduleCode":"x","deployId":"{deploy}","audience":1}}"#)).await;
    assert_eq!(s, 404, "{v}");
    let (_, v) = app.get(&format!("{W}/deploy/list"), &tok[B]).await;
    assert_eq!(v["data"]["total"], 0, "{v}");
    let (s, v) = app.post(&format!("{W}/deploy/remove?ids={deploy}"), &tok[A], "{}").await;
    assert_eq!(s, 400, "an account with modules is not removed: {v}");
}
