//! Platform administration enforced on the server (issue 4 items 1, 2, 8, 9): scenario tables for users,
//! roles, menus, top menus and scopes; the cross-tenant matrix and the permission matrix generated from
//! `api::table`; no secret in any answer; data scopes 2–5 and API scopes.
use std::collections::HashMap;

use serde_json::{Value, json};

use crate::support::{ADMIN_PW, App};

const A: &str = "157270";
const B: &str = "741487";
const P: &str = "000000";

/// A record written straight into the store (test fixtures), created by `creator`.
fn put(app: &App, tenant: &str, res: &str, doc: Value, creator: u64) -> u64 {
    let (r, t, res) = (app.st.res.clone(), tenant.to_string(), res.to_string());
    app.st
        .store_of(&r.get(&res))
        .write(move |w| {
            let actor = store::Actor { user_id: creator, dept_id: 0, at: None };
            Ok(w.insert(&r.get(&res), &t, doc.as_object().unwrap().clone(), &actor)?["id"].as_u64().unwrap())
        })
        .unwrap()
}

fn get_rec(app: &App, tenant: &str, res: &str, id: u64) -> Option<Value> {
    let r = app.st.res.clone();
    app.st.store_of(&r.get(res)).read(|x| x.get(&r.get(res), tenant, id)).unwrap().map(Value::Object)
}

fn menu_id(app: &App, code: &str) -> u64 {
    let r = app.st.res.clone();
    let all = app.st.store.read(|x| x.all(&r.get("menu"), P)).unwrap();
    all.iter().find(|m| m["code"] == code).unwrap_or_else(|| panic!("menu {code}"))["id"].as_u64().unwrap()
}

fn role_id(app: &App, tenant: &str, alias: &str) -> u64 {
    let r = app.st.res.clone();
    let all = app.st.store.read(|x| x.all(&r.get("role"), tenant)).unwrap();
    all.iter().find(|m| m["roleAlias"] == alias).unwrap_or_else(|| panic!("role {alias}"))["id"].as_u64().unwrap()
}

fn md5(s: &str) -> String {
    zhizhuang::auth::password::md5_hex(s)
}

/// One row of a scenario table: caller token key, method, url, body, status, substrings expected.
struct Case<'a> {
    name: &'a str,
    who: &'a str,
    method: &'a str,
    url: String,
    body: Option<String>,
    status: u16,
    has: Vec<&'a str>,
}

fn c<'a>(name: &'a str, who: &'a str, method: &'a str, url: impl Into<String>, body: Option<Value>, status: u16, has: &[&'a str]) -> Case<'a> {
    Case { name, who, method, url: url.into(), body: body.map(|b| b.to_string()), status, has: has.to_vec() }
}

async fn run(app: &App, tokens: &HashMap<&str, String>, cases: Vec<Case<'_>>) -> usize {
    let mut failures = Vec::new();
    let n = cases.len();
    for case in cases {
        let (s, v) = app.req(case.method, &case.url, Some(&tokens[case.who]), case.body.as_deref(), &[]).await;
        let text = v.to_string();
        let mut why = Vec::new();
        if s.as_u16() != case.status {
            why.push(format!("status {} (want {})", s, case.status));
        }
        for h in &case.has {
            if !text.contains(h) {
                why.push(format!("missing {h:?}"));
            }
        }
        for bad in ["$argon2", "passwordHash", "clientSecret"] {
            if text.contains(bad) {
                why.push(format!("contains {bad}"));
            }
        }
        if !why.is_empty() {
            failures.push(format!("{}: {} — {}", case.name, why.join("; "), &text[..text.len().min(300)]));
        }
    }
    assert!(failures.is_empty(), "{} scenario(s) failed:\n{}", failures.len(), failures.join("\n"));
    n
}

async fn tokens(app: &App) -> HashMap<&'static str, String> {
    let mut t = HashMap::new();
    t.insert("P", app.admin(P).await);
    t.insert("A", app.admin(A).await);
    t.insert("B", app.admin(B).await);
    t
}

#[tokio::test]
async fn users_scenarios() {
    let app = App::new();
    let tk = tokens(&app).await;
    let d1 = put(&app, A, "dept", json!({"parentId": 0, "deptName": "总部", "fullName": "总部", "deptCategory": 1}), 0);
    let d2 = put(&app, A, "dept", json!({"parentId": d1, "deptName": "一部", "fullName": "一部", "deptCategory": 1}), 0);
    let foreign_dept = put(&app, B, "dept", json!({"parentId": 0, "deptName": "外", "fullName": "外", "deptCategory": 1}), 0);
    let admin_role = role_id(&app, A, "admin");
    app.make_role(A, "staff", &[]).await;
    app.make_role(B, "staff", &[]).await;
    let (staff, staff_b) = (role_id(&app, A, "staff").to_string(), role_id(&app, B, "staff").to_string());
    let pw = md5("Zz#12345");
    let admin_role_s = admin_role.to_string();
    let u = "/api/blade-user";
    let cases = vec![
        c("insert", "A", "POST", format!("{u}/submit"), Some(json!({"account": "zhang", "name": "张", "realName": "张三", "password": pw, "password2": pw, "deptId": d2.to_string(), "roleId": staff})), 200, &["zhang"]),
        c("insert without role", "A", "POST", format!("{u}/submit"), Some(json!({"account": "li", "name": "李", "realName": "李四", "password": pw, "password2": pw})), 400, &["请选择所属角色"]),
        c("insert with an empty role list", "A", "POST", format!("{u}/submit"), Some(json!({"account": "li", "name": "李", "realName": "李四", "password": pw, "password2": pw, "roleId": []})), 400, &["请选择所属角色"]),
        c("insert without password", "A", "POST", format!("{u}/submit"), Some(json!({"account": "li", "name": "李", "realName": "李四", "roleId": staff})), 400, &["请输入密码"]),
        c("insert without password2", "A", "POST", format!("{u}/submit"), Some(json!({"account": "li", "name": "李", "realName": "李四", "password": pw, "roleId": staff})), 400, &["请输入确认密码"]),
        c("passwords differ", "A", "POST", format!("{u}/submit"), Some(json!({"account": "li", "name": "李", "realName": "李四", "password": pw, "password2": md5("x"), "roleId": staff})), 400, &["两次密码输入不一致"]),
        c("duplicate account", "A", "POST", format!("{u}/submit"), Some(json!({"account": "zhang", "name": "张", "realName": "张三", "password": pw, "password2": pw, "roleId": staff})), 400, &["登录账号已存在"]),
        c("same account other tenant", "B", "POST", format!("{u}/submit"), Some(json!({"account": "zhang", "name": "张", "realName": "张三", "password": pw, "password2": pw, "roleId": staff_b})), 200, &["zhang"]),
        c("foreign dept", "A", "POST", format!("{u}/submit"), Some(json!({"account": "wang", "name": "王", "realName": "王五", "password": pw, "password2": pw, "deptId": foreign_dept.to_string(), "roleId": staff})), 400, &["deptId"]),
        c("foreign role", "A", "POST", format!("{u}/submit"), Some(json!({"account": "wang", "name": "王", "realName": "王五", "password": pw, "password2": pw, "roleId": role_id(&app, B, "admin").to_string()})), 404, &[]),
        c("bad phone", "A", "POST", format!("{u}/submit"), Some(json!({"account": "wang", "name": "王", "realName": "王五", "password": pw, "password2": pw, "phone": "123", "roleId": staff})), 400, &["手机号码格式不正确"]),
        c("unknown field", "A", "POST", format!("{u}/submit"), Some(json!({"account": "wang", "name": "王", "realName": "王五", "password": pw, "password2": pw, "passwordHash": "x", "roleId": [staff]})), 200, &["wang"]),
        c("page", "A", "GET", format!("{u}/page?current=1&size=10"), None, 200, &["\"total\":3", "zhang", "wang", "\"roleName\""]),
        c("page by dept and below", "A", "GET", format!("{u}/page?deptId={d1}"), None, 200, &["\"total\":1", "zhang", "一部"]),
        c("page by other dept", "A", "GET", format!("{u}/page?deptId={d2}&account=zh"), None, 200, &["\"total\":1"]),
        c("page bad dept", "A", "GET", format!("{u}/page?deptId=x"), None, 400, &["无效的ID"]),
        c("page unknown filter", "A", "GET", format!("{u}/page?tokenVersion=1"), None, 400, &["不支持的查询条件"]),
        c("user-list", "A", "GET", format!("{u}/user-list"), None, 200, &["zhang", "admin"]),
        c("update without id", "A", "POST", format!("{u}/update"), Some(json!({"name": "x"})), 400, &["请输入 id"]),
        c("detail missing id", "A", "GET", format!("{u}/detail"), None, 400, &["请输入 id"]),
        c("detail absent", "A", "GET", format!("{u}/detail?id=99"), None, 404, &["数据不存在"]),
        c("remove none", "A", "POST", format!("{u}/remove"), None, 400, &["请选择至少一条数据"]),
        c("grant no roles", "A", "POST", format!("{u}/grant?userIds=1"), None, 400, &["请选择至少一条数据"]),
        c("reset none", "A", "POST", format!("{u}/reset-password"), None, 400, &["请选择至少一条数据"]),
        c("platform bad id", "A", "POST", format!("{u}/update-platform?userId=x&userType=2"), None, 400, &["无效的ID"]),
        c("register guest missing", "A", "POST", format!("{u}/register-guest?tenantId={A}&account=g1"), None, 400, &["请输入 name"]),
        c("role tree for the user dialog", "A", "GET", "/api/blade-system/role/tree", None, 200, &[&admin_role_s]),
    ];
    let n = run(&app, &tk, cases).await;
    assert!(n >= 25);

    // Update keeps the password unless one is sent; platform settings; grant; reset.
    let (_, v) = app.get(&format!("{u}/page?account_equal=zhang"), &tk["A"]).await;
    let zid = v["data"]["records"][0]["id"].as_str().unwrap().to_string();
    let (s, _) = app.post(&format!("{u}/update"), &tk["A"], &json!({"id": zid, "realName": "张三丰"}).to_string()).await;
    assert_eq!(s, 200);
    let zt = app.sign_in(A, "zhang", "Zz#12345").await;
    let (s, v) = app.req("POST", &format!("{u}/update-platform?userId={zid}&userType=2&userExt=%7B%7D"), Some(&tk["A"]), None, &[]).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = app.get(&format!("{u}/platform-detail?id={zid}"), &tk["A"]).await;
    assert_eq!(v["data"]["userType"], 2);
    let (s, v) = app.req("POST", &format!("{u}/reset-password?userIds={zid}"), Some(&tk["A"]), None, &[]).await;
    assert_eq!(s, 200, "{v}");
    let once = v["data"][0]["password"].as_str().unwrap().to_string();
    assert_eq!(once.len(), 14);
    let (s, _) = app.get("/api/blade-user/info", &zt).await;
    assert_eq!(s, 401, "sessions revoked on reset");
    assert_eq!(app.sign_in_body(A, "zhang", "Zz#12345").await.0, 400, "old password gone");
    let (s, v) = app.sign_in_body(A, "zhang", &once).await;
    assert_eq!(s, 200);
    assert_eq!(v["must_change_password"], true);
    // Until he has set his own, the one-time password opens nothing but that change (and who he is, and sign-out):
    // not the API, not a page's data, not a file.
    let ot = v["access_token"].as_str().unwrap().to_string();
    for path in [format!("{u}/page"), "/api/blade-system/menu/routes".to_string()] {
        let (s, v) = app.get(&path, &ot).await;
        assert_eq!((s.as_u16(), v["msg"].as_str()), (403, Some("您的密码由管理员设置,请先修改密码")), "{path}: {v}");
    }
    let (s, _) = app.post(&format!("{u}/submit"), &ot, &json!({"account": "backdoor", "name": "b", "realName": "b", "password": "Bd#12345", "password2": "Bd#12345"}).to_string()).await;
    assert_eq!(s, 403);
    let (s, v) = app.get("/api/blade-user/info", &ot).await;
    assert_eq!((s.as_u16(), v["data"]["account"].as_str()), (200, Some("zhang")), "{v}");
    let page = |path: &str, token: &str| {
        axum::http::Request::get(path).header("cookie", format!("zz-token={token}")).header("x-zz-props", "1").body(axum::body::Body::empty()).unwrap()
    };
    let (s, h, _) = app.call(page("/system/user", &ot)).await;
    assert_eq!((s.as_u16(), h.get("location").and_then(|l| l.to_str().ok())), (302, Some("/password")), "a page's props are not made");
    let (s, _, v) = app.call(page("/password", &ot)).await;
    assert!(s == 200 && v["user"]["mustChangePassword"] == true, "{v}");
    // The change: not to a guesser's first try, then to his own; the new password opens everything again.
    let change = |new: &str| format!("/api/blade-user/update-password?oldPassword={}&newPassword={}&newPassword1={}", md5(&once), md5(new), md5(new));
    let (s, v) = app.req("POST", &change("123456"), Some(&ot), None, &[]).await;
    assert_eq!((s.as_u16(), v["msg"].as_str()), (400, Some("密码过于常见,请换一个不易被猜到的密码")), "{v}");
    let (s, v) = app.req("POST", &change("Zhang#Own2026"), Some(&ot), None, &[]).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = app.sign_in_body(A, "zhang", "Zhang#Own2026").await;
    assert_eq!((s.as_u16(), &v["must_change_password"]), (200, &json!(false)));
    let own = v["access_token"].as_str().unwrap().to_string();
    assert_eq!(app.get("/api/blade-system/menu/routes", &ot).await.0, 401, "the change ended the one-time session");
    assert_eq!(app.get("/api/blade-system/menu/routes", &own).await.0, 200);

    // Own account and the last administrator.
    let admin_id = {
        let (_, v) = app.get(&format!("{u}/page?account_equal=admin"), &tk["A"]).await;
        v["data"]["records"][0]["id"].as_str().unwrap().to_string()
    };
    let (s, v) = app.req("POST", &format!("{u}/remove?ids={admin_id}"), Some(&tk["A"]), None, &[]).await;
    assert_eq!(s, 400);
    assert!(v.to_string().contains("不能删除当前登录的账号"));
    let (s, v) = app.req("POST", &format!("{u}/grant?userIds={admin_id}&roleIds={}", role_id(&app, A, "carpenter")), Some(&tk["A"]), None, &[]).await;
    assert_eq!(s, 400, "{v}");
    assert!(v.to_string().contains("最后一个管理员"));
    // With a second admin the grant passes.
    let (s, _) = app.req("POST", &format!("{u}/grant?userIds={zid}&roleIds={admin_role}"), Some(&tk["A"]), None, &[]).await;
    assert_eq!(s, 200);
    let (s, _) = app.req("POST", &format!("{u}/remove?ids={zid}"), Some(&tk["A"]), None, &[]).await;
    assert_eq!(s, 200);
}

#[tokio::test]
async fn guest_registration_sms_and_password_retrieval() {
    let app = App::new();
    let a = app.admin(A).await;
    let u = "/api/blade-user";
    let (s, v) = app.req("POST", &format!("{u}/register-guest?tenantId={A}&name=访客&account=guest1&password={}&oauthId=wx1", md5("Guest#123")), None, None, &[]).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = app.sign_in_body(A, "guest1", "Guest#123").await;
    assert_eq!(s, 400, "pending account cannot sign in: {v}");
    assert!(v.to_string().contains("待审核"));
    let (_, v) = app.get(&format!("{u}/page?account_equal=guest1"), &a).await;
    let gid = v["data"]["records"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(v["data"]["records"][0]["status"], 0);
    let (s, _) = app.req("POST", &format!("{u}/audit-pass?ids={gid}"), Some(&a), None, &[]).await;
    assert_eq!(s, 200);
    // Approved but without a role: still no token (as BladeX), until a role is granted.
    let (s, v) = app.sign_in_body(A, "guest1", "Guest#123").await;
    assert_eq!((s.as_u16(), v["error_description"].as_str()), (400, Some("未获得用户的角色信息")), "{v}");
    app.make_role(A, "guest", &[]).await;
    let (s, v) = app.req("POST", &format!("{u}/grant?userIds={gid}&roleIds={}", role_id(&app, A, "guest")), Some(&a), None, &[]).await;
    assert_eq!(s, 200, "{v}");
    let g = app.sign_in(A, "guest1", "Guest#123").await;

    // Bind a phone with an SMS code: wrong code refused, right one once.
    let (s, _) = app.get(&format!("{u}/common/sendSms?phone=123"), &g).await;
    assert_eq!(s, 400);
    let (s, _) = app.get(&format!("{u}/common/sendSms?phone=13800138000"), &g).await;
    assert_eq!(s, 200);
    let code = zhizhuang::api::user::account::peek(A, "bind", "13800138000").unwrap();
    let (s, _) = app.req("POST", &format!("{u}/common/bindUserPhone/{gid}?phone=13800138000&code=000000x"), Some(&g), None, &[]).await;
    assert_eq!(s, 400);
    let (s, v) = app.req("POST", &format!("{u}/common/bindUserPhone/{gid}?phone=13800138000&code={code}"), Some(&g), None, &[]).await;
    assert_eq!(s, 200, "{v}");
    let (s, _) = app.req("POST", &format!("{u}/common/bindUserPhone/{gid}?phone=13800138000&code={code}"), Some(&g), None, &[]).await;
    assert_eq!(s, 400, "codes are single use");
    // Binding another user's phone needs user_edit.
    let (s, _) = app.req("POST", &format!("{u}/common/bindUserPhone/1?phone=13800138000&code=1"), Some(&g), None, &[]).await;
    assert_eq!(s, 403);

    // Retrieve the password: same answer for unknown accounts; form-serialized with Tenant-Id.
    let form = [("content-type", "application/x-www-form-urlencoded"), ("tenant-id", A)];
    let send = |body: String| {
        let app = &app;
        async move {
            let mut b = axum::http::Request::post(format!("{u}/retrieve-password/vertifyCode"));
            for (k, v) in form {
                b = b.header(k, v);
            }
            app.call(b.body(axum::body::Body::from(body)).unwrap()).await
        }
    };
    let (s1, _, v1) = send("account=guest1".into()).await;
    let (s2, _, v2) = send("account=nobody".into()).await;
    assert_eq!((s1, v1.clone()), (s2, v2), "identical answers");
    assert_eq!(s1, 200, "{v1}");
    let code = zhizhuang::api::user::account::peek(A, "retrieve", "guest1").unwrap();
    assert!(zhizhuang::api::user::account::peek(A, "retrieve", "nobody").is_none());
    let upd = |body: String| {
        let app = &app;
        async move {
            let mut b = axum::http::Request::post(format!("{u}/retrieve-password/update"));
            for (k, v) in form {
                b = b.header(k, v);
            }
            app.call(b.body(axum::body::Body::from(body)).unwrap()).await
        }
    };
    let new = md5("New#45678");
    let (s, _, wrong) = upd(format!("account=guest1&code=999999x&password={new}&password2={new}")).await;
    assert_eq!(s, 400);
    let (s, _, unknown) = upd(format!("account=nobody&code=123456&password={new}&password2={new}")).await;
    assert_eq!((s.as_u16(), unknown), (400, wrong));
    let (s, _, v) = upd(format!("account=guest1&code={code}&password={new}&password2={new}")).await;
    assert_eq!(s, 200, "{v}");
    let (s, _) = app.get("/api/blade-user/info", &g).await;
    assert_eq!(s, 401, "sessions revoked");
    app.sign_in(A, "guest1", "New#45678").await;
    // Sending codes is throttled.
    let mut limited = false;
    for _ in 0..6 {
        let (s, _, _) = send("account=guest1".into()).await;
        limited |= s == 429;
    }
    assert!(limited);
}

#[tokio::test]
async fn roles_menus_topmenus_and_scopes_scenarios() {
    let app = App::new();
    let tk = tokens(&app).await;
    let user_menu = menu_id(&app, "user");
    let menu_menu = menu_id(&app, "menu");
    let carpenter = role_id(&app, A, "carpenter");
    let user_menu_s = user_menu.to_string();
    let r = "/api/blade-system/role";
    let m = "/api/blade-system/menu";
    let cases = vec![
        c("role list tree", "A", "GET", format!("{r}/list"), None, 200, &["admin", "carpenter"]),
        c("role list filter", "A", "GET", format!("{r}/list?roleName=木"), None, 200, &["carpenter"]),
        c("role tree", "A", "GET", format!("{r}/tree"), None, 200, &["\"title\"", "\"key\""]),
        c("roleTree", "A", "GET", format!("{r}/roleTree"), None, 200, &["\"title\""]),
        c("tree-by-id", "A", "GET", format!("{r}/tree-by-id?roleId={carpenter}"), None, 200, &["木工"]),
        c("tree-by-id bad", "A", "GET", format!("{r}/tree-by-id?roleId=x"), None, 400, &["无效的ID"]),
        c("role detail", "A", "GET", format!("{r}/detail?id={carpenter}"), None, 200, &["carpenter"]),
        c("role add", "A", "POST", format!("{r}/submit"), Some(json!({"roleName": "销售", "roleAlias": "sales", "sort": 3})), 200, &["sales"]),
        c("role administrator alias refused in tenant", "A", "POST", format!("{r}/submit"), Some(json!({"roleName": "x", "roleAlias": "administrator"})), 400, &["roleAlias"]),
        c("role foreign parent", "A", "POST", format!("{r}/submit"), Some(json!({"roleName": "x", "roleAlias": "xx", "parentId": role_id(&app, B, "admin").to_string()})), 400, &["parentId"]),
        c("role in use", "A", "POST", format!("{r}/remove?ids={}", role_id(&app, A, "admin")), None, 400, &["角色仍被用户使用"]),
        c("grant tenant menu", "A", "POST", format!("{r}/grant?roleIds={carpenter}&menuIds={user_menu}"), None, 200, &[]),
        c("grant platform menu refused", "A", "POST", format!("{r}/grant?roleIds={carpenter}&menuIds={menu_menu}"), None, 403, &["平台"]),
        c("grant unknown menu", "A", "POST", format!("{r}/grant?roleIds={carpenter}&menuIds=12345"), None, 404, &[]),
        c("grant bad ids", "A", "POST", format!("{r}/grant?roleIds={carpenter}&menuIds=x"), None, 400, &["无效的ID"]),
        c("role-tree-keys", "A", "GET", format!("{m}/role-tree-keys?roleIds={carpenter}"), None, 200, &[&user_menu_s, "\"dataScope\":[]"]),
        c("grant-tree hides platform menus", "A", "GET", format!("{m}/grant-tree"), None, 200, &["用户管理", "\"dataScope\""]),
        c("menu list needs platform code", "A", "GET", format!("{m}/list"), None, 403, &["menu"]),
        c("tenant admin cannot write menus", "A", "POST", format!("{m}/submit"), Some(json!({"code": "x1", "name": "x", "category": 1})), 403, &[]),
        c("tenant admin cannot remove menus", "A", "POST", format!("{m}/remove?ids={user_menu}"), None, 403, &[]),
        c("menu list", "P", "GET", format!("{m}/list?name=用户"), None, 200, &["用户管理"]),
        c("lazy-list", "P", "GET", format!("{m}/lazy-list?parentId=0"), None, 200, &["\"hasChildren\":true", "系统管理"]),
        c("lazy-menu-list", "P", "GET", format!("{m}/lazy-menu-list?parentId={user_menu}"), None, 200, &["[]"]),
        c("lazy-list bad parent", "P", "GET", format!("{m}/lazy-list?parentId=x"), None, 400, &["无效的ID"]),
        c("menu-list", "P", "GET", format!("{m}/menu-list"), None, 200, &["用户管理"]),
        c("menuTree", "P", "GET", format!("{m}/menuTree?tenantId={A}&system=1"), None, 200, &["\"title\":\"用户管理\""]),
        c("menu detail", "P", "GET", format!("{m}/detail?id={user_menu}"), None, 200, &["/system/user"]),
        c("menu add", "P", "POST", format!("{m}/submit"), Some(json!({"code": "zz_home", "name": "智装家", "category": 1, "parentId": 0})), 200, &["zz_home"]),
        c("menu self parent", "P", "POST", format!("{m}/submit"), Some(json!({"id": user_menu.to_string(), "parentId": user_menu.to_string()})), 400, &["parentId"]),
        c("menu bad category", "P", "POST", format!("{m}/submit"), Some(json!({"code": "q", "name": "q", "category": 7})), 400, &["菜单类型超出允许范围"]),
        c("top-menu", "A", "GET", format!("{m}/top-menu"), None, 200, &["\"data\":[]"]),
        c("topmenu add", "P", "POST", "/api/blade-system/topmenu/submit", Some(json!({"code": "work", "name": "工作台", "sort": 1})), 200, &["工作台"]),
        c("topmenu add by tenant", "A", "POST", "/api/blade-system/topmenu/submit", Some(json!({"code": "w2", "name": "x"})), 403, &[]),
        c("topmenu list", "P", "GET", "/api/blade-system/topmenu/list", None, 200, &["工作台"]),
        c("grant-top-tree follows the 智装家 rule", "P", "GET", format!("{m}/grant-top-tree"), None, 200, &["\"menu\":[]"]),
        c("data scope bad resource", "P", "POST", "/api/blade-system/data-scope/submit", Some(json!({"menuId": user_menu.to_string(), "resourceCode": "nope", "scopeName": "x", "scopeType": 2})), 400, &["nope"]),
        c("data scope bad field", "P", "POST", "/api/blade-system/data-scope/submit", Some(json!({"menuId": user_menu.to_string(), "resourceCode": "user", "scopeName": "x", "scopeType": 3, "scopeField": "tokenVersion"})), 400, &["tokenVersion"]),
        c("data scope bad rule", "P", "POST", "/api/blade-system/data-scope/submit", Some(json!({"menuId": user_menu.to_string(), "resourceCode": "user", "scopeName": "x", "scopeType": 5, "scopeValue": "1=1 or true"})), 400, &["数据权限规则不正确"]),
        c("data scope bad op", "P", "POST", "/api/blade-system/data-scope/submit", Some(json!({"menuId": user_menu.to_string(), "resourceCode": "user", "scopeName": "x", "scopeType": 5, "scopeValue": "{\"field\":\"sex\",\"op\":\"regex\",\"value\":1}"})), 400, &["op"]),
        c("data scope bad type", "P", "POST", "/api/blade-system/data-scope/submit", Some(json!({"menuId": user_menu.to_string(), "resourceCode": "user", "scopeName": "x", "scopeType": 9})), 400, &["权限类型超出允许范围"]),
        c("data scope unknown menu", "P", "POST", "/api/blade-system/data-scope/submit", Some(json!({"menuId": "999", "resourceCode": "user", "scopeName": "x", "scopeType": 1})), 400, &["menuId"]),
        c("data scope ok", "P", "POST", "/api/blade-system/data-scope/submit", Some(json!({"menuId": user_menu.to_string(), "resourceCode": "user", "scopeName": "本人", "scopeType": 2})), 200, &["本人"]),
        c("data scope by tenant", "A", "POST", "/api/blade-system/data-scope/submit", Some(json!({"menuId": user_menu.to_string(), "resourceCode": "user", "scopeName": "x", "scopeType": 2})), 403, &[]),
        c("api scope bad path", "P", "POST", "/api/blade-system/api-scope/submit", Some(json!({"menuId": user_menu.to_string(), "resourceCode": "user", "scopeName": "x", "scopePath": "blade-user"})), 400, &["scopePath"]),
        c("api scope ok", "P", "POST", "/api/blade-system/api-scope/submit", Some(json!({"menuId": user_menu.to_string(), "resourceCode": "user", "scopeName": "分页", "scopePath": "/api/blade-user/page"})), 200, &["分页"]),
        c("data scope list", "P", "GET", "/api/blade-system/data-scope/list", None, 200, &["本人"]),
        c("api scope list", "P", "GET", "/api/blade-system/api-scope/list", None, 200, &["分页"]),
    ];
    run(&app, &tk, cases).await;
    // The 智装家 rule: with a node of that name, menuTree answers its children.
    let (_, v) = app.get(&format!("{m}/menuTree"), &tk["P"]).await;
    assert_eq!(v["data"], json!([]), "智装家 has no children yet");
    // Removing a menu removes its children.
    let (s, _) = app.req("POST", &format!("{m}/remove?ids={user_menu}"), Some(&tk["P"]), None, &[]).await;
    assert_eq!(s, 200);
    let (s, _) = app.get(&format!("{m}/detail?id={}", menu_id(&app, "menu")), &tk["P"]).await;
    assert_eq!(s, 200);
    let r2 = app.st.res.clone();
    let left = app.st.store.read(|x| x.all(&r2.get("menu"), P)).unwrap();
    assert!(!left.iter().any(|m| m["code"] == "user_add"));
    // Top menu grant and keys.
    let (_, v) = app.get("/api/blade-system/topmenu/list", &tk["P"]).await;
    let top = v["data"]["records"][0]["id"].as_str().unwrap().to_string();
    let (s, _) = app.req("POST", &format!("/api/blade-system/topmenu/grant?topMenuIds={top}&menuIds={menu_menu}"), Some(&tk["P"]), None, &[]).await;
    assert_eq!(s, 200);
    let (_, v) = app.get(&format!("{m}/top-tree-keys?topMenuIds={top}"), &tk["P"]).await;
    assert_eq!(v["data"]["menu"], json!([menu_menu.to_string()]));
    let (_, v) = app.get(&format!("{m}/top-menu"), &tk["A"]).await;
    assert_eq!(v["data"], json!([]), "tenant admin does not hold the platform menu the top menu links");
    let (_, v) = app.get(&format!("{m}/top-menu"), &tk["P"]).await;
    assert!(v.to_string().contains("工作台"));
}

/// Routes of the route table that take ids of tenant records, with the request tenant A sends against tenant B's ids.
fn cross_tenant_request(method: &str, path: &str, ids: &HashMap<&str, u64>, mine: &HashMap<&str, u64>) -> Option<Vec<(String, Option<String>)>> {
    let (user, role, param, log) = (ids["user"], ids["role"], ids["param"], ids["log"]);
    let q = |s: String| vec![(s, None)];
    Some(match (method, path) {
        ("GET", "/api/blade-system/param/detail") => q(format!("{path}?id={param}")),
        ("POST", "/api/blade-system/param/submit") => vec![(path.into(), Some(json!({"id": param.to_string(), "paramName": "x"}).to_string()))],
        ("POST", "/api/blade-system/param/remove") => q(format!("{path}?ids={param}")),
        ("GET", "/api/blade-log/error/detail") => q(format!("{path}?id={log}")),
        ("GET", "/api/blade-user/detail" | "/api/blade-user/platform-detail") => q(format!("{path}?id={user}")),
        ("POST", "/api/blade-user/submit" | "/api/blade-user/update") => vec![(path.into(), Some(json!({"id": user.to_string(), "name": "x"}).to_string()))],
        ("POST", "/api/blade-user/remove" | "/api/blade-user/audit-pass") => q(format!("{path}?ids={user}")),
        ("POST", "/api/blade-user/grant") => vec![
            (format!("{path}?userIds={user}&roleIds={}", mine["role"]), None),
            (format!("{path}?userIds={}&roleIds={role}", mine["user"]), None),
        ],
        ("POST", "/api/blade-user/reset-password") => q(format!("{path}?userIds={user}")),
        ("POST", "/api/blade-user/update-platform") => q(format!("{path}?userId={user}&userType=2")),
        ("POST", p) if p.starts_with("/api/blade-user/common/bindUserPhone/") => q(format!("/api/blade-user/common/bindUserPhone/{user}?phone=13800138000&code=123456")),
        ("GET", "/api/blade-system/role/tree-by-id") => q(format!("{path}?roleId={role}")),
        ("GET", "/api/blade-system/role/detail") => q(format!("{path}?id={role}")),
        ("POST", "/api/blade-system/role/submit") => vec![(path.into(), Some(json!({"id": role.to_string(), "roleName": "x"}).to_string()))],
        ("POST", "/api/blade-system/role/remove") => q(format!("{path}?ids={role}")),
        ("POST", "/api/blade-system/role/grant") => q(format!("{path}?roleIds={role}&menuIds=")),
        ("GET", "/api/blade-system/menu/role-tree-keys") => q(format!("{path}?roleIds={role}")),
        (_, p) if p.starts_with("/api/blade-scm/flowable/") => return flow_request(p, ids, mine),
        (m, p) if p.starts_with("/api/blade-scm/") => return scm_request(m, p, ids),
        (m, p) if BLADE_DIALECT.iter().any(|(b, _)| p.starts_with(&format!("{b}/"))) => {
            // Declared resources in the Blade shape: detail ?id=, remove ?ids=, submit/update with the id in the body.
            let (base, res) = BLADE_DIALECT.iter().find(|(b, _)| p.starts_with(&format!("{b}/"))).unwrap();
            let own = ids[res];
            match (m, &p[base.len() + 1..]) {
                ("GET", "detail") => q(format!("{path}?id={own}")),
                ("POST", "remove") => q(format!("{path}?ids={own}")),
                ("POST", "submit" | "update") => vec![(path.into(), Some(json!({"id": own.to_string(), "remark": "x", "content": "x"}).to_string()))],
                _ => return None,
            }
        }
        ("POST", "/bladeDict/submit") => vec![(path.into(), Some(json!({"id": ids["dictbiz"].to_string(), "dictValue": "x"}).to_string()))],
        ("POST", "/bladeDict/deleteByIds") => q(format!("{path}?ids={}", ids["dictbiz"])),
        ("GET", "/api/blade-biz/bim/projectcost/detail") => q(format!("{path}?id={}", ids["project_cost"])),
        ("POST", "/api/blade-biz/bim/projectcost/remove") => q(format!("{path}?ids={}", ids["project_cost"])),
        ("POST", "/api/blade-biz/bim/projectcost/submit") => vec![(path.into(), Some(json!({"id": ids["project_cost"].to_string(), "costName": "x"}).to_string()))],
        ("GET", "/api/blade-biz/statistic/monthvalueover/{id}") => q(format!("/api/blade-biz/statistic/monthvalueover/{}", ids["statistic_company"])),
        ("GET", "/api/blade-biz/statistic/companyinfo") => q(format!("{path}?companyId={}", ids["statistic_company"])),
        ("POST", "/api/blade-biz/statistic/monthcarryovertarget") => vec![(path.into(), Some(json!({"companyId": ids["statistic_company"].to_string()}).to_string()))],
        ("GET", p) if p.starts_with("/api/blade-biz/bim/projectcost/get") => q(format!("{path}?projectId={}", ids["project"])),
        ("GET", "/blade-api/edu-sub-account/receivables/detail" | "/api/blade-api/edu-sub-account/receivables/detail") => q(format!("{path}?id={}", ids["ledger_entry"])),
        ("POST", "/blade-api/edu-sub-account/receivables/save" | "/api/blade-api/edu-sub-account/receivables/save") => vec![(path.into(), Some(json!({"contractId": ids["contract"].to_string(), "amount": "1"}).to_string()))],
        (_, p) if p.starts_with("/api/blade-api/wms/") => return wms_request(p, ids),
        (_, p) if p.starts_with("/api/blade-flow/") || p.starts_with("/api/blade-desk/process/") => return flow_request(p, ids, mine),
        _ => {
            // The tenant-scoped resources served by the generic handlers (and their specialised variants).
            let (base, action) = path.rsplit_once('/')?;
            let (_, res, sample) = TENANT_GENERIC.iter().find(|(b, ..)| *b == base)?;
            let id = ids[res];
            match action {
                "detail" => q(format!("{path}?id={id}")),
                "remove" => q(format!("{path}?ids={id}")),
                "submit" => {
                    let mut body: Value = serde_json::from_str(sample).unwrap();
                    body["id"] = json!(id.to_string());
                    vec![(path.into(), Some(body.to_string()))]
                }
                _ => return None,
            }
        }
    })
}

/// Declared resources served in the Blade shape outside the generic handlers: (API base, fixture key).
const BLADE_DIALECT: &[(&str, &str)] = &[("/api/blade-biz/statistic/monthtarget", "month_target"), ("/worklist/order", "worklist_order"), ("/api/blade-biz/worklist/order", "worklist_order"), ("/api/blade-biz/worklist/category", "worklist_category"), ("/api/blade-biz/worklist/reply", "worklist_reply"),
    ("/api/blade-wechat/deploy", "wechat_deploy"), ("/api/blade-wechat/modules", "wechat_modules"), ("/api/blade-wechat/message", "wechat_message"),
    ("/api/blade-wechat/param", "wechat_param"), ("/api/blade-wechat/history", "wechat_history"),
    ("/blade-api/edu-sub-account/extconfig", "extconfig"), ("/api/blade-api/edu-sub-account/extconfig", "extconfig"),
    ("/blade-api/edu-sub-account/possign", "possign"), ("/api/blade-api/edu-sub-account/possign", "possign")];

/// The `blade-scm` routes with tenant B's ids in every place an id goes: path segments, `?id=`/`?ids=` and the
/// body (a valid body otherwise, so only the tenant can make it fail). Pure lists are checked for leaks instead.
fn scm_request(method: &str, path: &str, ids: &HashMap<&str, u64>) -> Option<Vec<(String, Option<String>)>> {
    let base = path.strip_prefix("/api/blade-scm/")?;
    // The resource a route belongs to: the longest base that prefixes it.
    const BASES: &[(&str, &str)] = &[
        ("worker/attendDay/", "attend_day"), ("worker/buildingRectification/", "building_rectification"), ("worker/work-clock-in/reset", "attend_day"),
        ("speed/progress/", "speed_progress"), ("workerJobLevel/", "worker_job_level"), ("workerJob/", "worker_job"),
        ("productCategory/", "product_category"), ("replay/item/", "replay_item"),
    ];
    let (res, rest) = match BASES.iter().find(|(b, _)| base.starts_with(b)) {
        Some((b, r)) => (*r, base[b.len().min(base.len())..].trim_start_matches('/')),
        None => base.split_once('/')?,
    };
    let own = *ids.get(res)?;
    // `save` adds a measure or a rectification (their `add` route); elsewhere it also edits and names an id.
    if rest == "subList" {
        return Some(vec![(format!("{path}?parentId={own}"), None)]);
    }
    let is_list = matches!(rest, "add" | "add/item" | "list" | "page" | "page/down/list" | "schema" | "export" | "type" | "category/type" | "category/{type}" | "tree" | "topList" | "dict/list" | "info/template")
        || (rest == "save" && matches!(res, "measure" | "building_rectification"))
        || HAND.contains(&(res, rest));
    let parent = match res {
        "contract" | "construct" | "doc" | "building" | "building_rectification" => ids["project"],
        "worker" | "worker_job_level" => ids["worker_job"],
        "measure" | "speed_progress" => ids["construct"],
        "replay" => ids["project"],
        "replay_item" => ids["replay"],
        _ => 0,
    };
    let url = path
        .replace("{id}", &own.to_string())
        .replace("{ids}", &own.to_string())
        .replace("{parentId}", &parent.to_string())
        .replace("{projectId}", &ids["project"].to_string())
        .replace("{contractId}", &ids["contract"].to_string())
        .replace("{constructId}", &ids["construct"].to_string())
        .replace("{workerId}", &ids["worker"].to_string())
        .replace("{taskId}", &ids["speed_progress"].to_string())
        .replace("{mode}", "0")
        .replace("{productType}", "1")
        .replace("{productStatus}", "1")
        .replace("{companyType}", "1");
    let body = json!({
        "id": own.to_string(), "projectId": ids["project"].to_string(), "contractIds": ids["contract"].to_string(),
        "constructId": ids["construct"].to_string(), "workerId": ids["worker"].to_string(), "managerId": ids["user"].to_string(),
        "taskId": ids["speed_progress"].to_string(), "workDate": "2026-11-20", "workDays": "1", "dayRate": "100", "percent": 10, "reason": "x",
        "contractId": ids["contract"].to_string(), "entryType": 4, "amount": "1", "remark": "x",
    });
    let hand = HAND.contains(&(res, rest));
    if is_list && !hand {
        return None;
    }
    let _ = method;
    if path.contains('{') || hand {
        // Hand-written routes read ids from the body, and some from the query (`taskCode`, `projectId`, `ids`).
        let q = format!("projectId={}&taskCode=BI-B-SECRET&ids={}", ids["project"], ids["building"]);
        return Some(vec![(format!("{url}?{q}"), Some(body.to_string()))]);
    }
    // update / save / remove / GET detail: the id in the query and the body.
    let mut b = body;
    if rest == "update" || rest == "save" {
        if let Some(o) = b.as_object_mut() {
            o.retain(|k, _| k == "id");
            o.insert("remark".into(), json!("x"));
        }
    }
    Some(vec![(format!("{url}?id={own}&ids={own}"), Some(b.to_string()))])
}

/// Hand-written scm routes taking ids in the body or the query: (resource, route after its base).
const HAND: &[(&str, &str)] = &[
    ("project", "contract/bind"), ("construct", "worker/list"), ("construct", "day/worker/list"), ("construct", "day/worker/detail/list"),
    ("construct", "assign/manager"), ("construct", "day/worker/bind"), ("construct", "day/worker/remove"), ("building", "info/import"), ("building", "getImportStatus"),
    ("building", "record/list"), ("building", "disable"), ("building", "user/task/bind"), ("speed_progress", "building/task/list"),
    ("speed_progress", "worker/task/list"), ("worker", "work-clock-in"), ("attend_day", ""), ("contractledger", "save"),
];

/// Tenant B's `blade-scm` records (written straight into the store), named `b_secret_…`.
fn scm_fixtures(app: &App, ids: &mut HashMap<&'static str, u64>) {
    let company = put(app, B, "company", json!({"companyName": "b_secret_company", "companyType": 1}), 0);
    let category = put(app, B, "product_category", json!({"parentId": 0, "categoryName": "b_secret_category", "productType": 1, "sort": 1}), 0);
    let product = put(app, B, "product", json!({"productCode": "CPB", "productName": "b_secret_product", "productType": 1, "categoryId": category, "unit": "件", "price": 100, "productStatus": 1}), 0);
    ids.insert("product_category", category);
    ids.insert("product", product);
    let customer = put(app, B, "customer", json!({"customerName": "b_secret_customer", "customerType": 1}), 0);
    let job = put(app, B, "worker_job", json!({"jobName": "b_secret_job", "sort": 1}), 0);
    let level = put(app, B, "worker_job_level", json!({"workerJobId": job, "levelName": "b_secret_level", "dayRate": 10000, "sort": 1}), 0);
    let worker = put(app, B, "worker", json!({"workerName": "b_secret_worker", "phone": "13900000009", "workerJobId": job, "workerJobLevelId": level}), 0);
    let project = put(app, B, "project", json!({"projectCode": "XMB-1", "projectName": "b_secret_project", "projectCompanyId": company, "businessUnit": "TOB", "startTime": "2026-01-01", "projectStatus": 1}), 0);
    let contract = put(app, B, "contract", json!({"contractCode": "HTB-1", "contractName": "b_secret_contract", "projectId": project, "partyName": "b_secret", "contractAmount": 100, "contractStatus": 0}), 0);
    let deploy = put(app, B, "wechat_deploy", json!({"accountName": "b_secret_wechat", "accountType": 1, "appId": "wxb", "enabled": 1}), 0);
    let message = put(app, B, "wechat_message", json!({"title": "b_secret_tpl", "templateId": "tplb", "deployId": deploy, "scene": 1, "content": "b_secret", "enabled": 1}), 0);
    ids.insert("wechat_deploy", deploy);
    ids.insert("wechat_message", message);
    ids.insert("wechat_modules", put(app, B, "wechat_modules", json!({"moduleName": "b_secret_module", "moduleCode": "mb", "deployId": deploy, "audience": 1, "sort": 1, "enabled": 1}), 0));
    ids.insert("wechat_param", put(app, B, "wechat_param", json!({"paramName": "b_secret_param", "paramKey": "wechat.b", "paramValue": "b_secret"}), 0));
    ids.insert("wechat_history", put(app, B, "wechat_history", json!({"messageId": message, "receiverName": "b_secret", "openId": "ob", "summary": "b_secret", "sendTime": "2026-01-01 09:00:00", "sendStatus": 1}), 0));
    let channel = put(app, B, "extconfig", json!({"configName": "b_secret_channel", "channel": 1, "merchantNo": "mb", "enabled": 1}), 0);
    ids.insert("extconfig", channel);
    ids.insert("possign", put(app, B, "possign", json!({"terminalNo": "TB", "configId": channel, "projectId": project, "keeper": "b_secret", "signDate": "2026-01-01", "signStatus": 1}), 0));
    let construct = put(app, B, "construct", json!({"constructCode": "SGB-1", "constructName": "b_secret_construct", "projectId": project, "contractId": contract, "constructMode": 1, "modelStatus": 1}), 0);
    let doc = put(app, B, "doc", json!({"projectId": project, "docName": "b_secret_doc", "category": 1}), 0);
    let building = put(app, B, "building", json!({"projectId": project, "buildingName": "b_secret_1#", "unitName": "1", "floor": 1, "roomNo": "101", "enabled": 1, "roomKey": "b_secret"}), 0);
    put(app, B, "building_import", json!({"taskCode": "BI-B-SECRET", "projectId": project, "state": "done", "message": "b_secret"}), 0);
    let task = put(app, B, "speed_progress", json!({"constructId": construct, "buildingName": "b_secret_1#", "nodeKey": 10, "percent": 0, "taskKey": "b_secret"}), 0);
    let measure = put(app, B, "measure", json!({"constructId": construct, "measureDate": "2026-11-01", "measurer": "b_secret", "rooms": [], "measureStatus": 0}), 0);
    let attend = put(app, B, "attend_day", json!({"workerId": worker, "constructId": construct, "attendDate": "2026-11-01", "result": "wait", "dayKey": "b_secret"}), 0);
    let rect = put(app, B, "building_rectification", json!({"projectId": project, "buildingName": "b_secret_1#", "category": 1, "description": "b_secret", "deadline": "2026-11-01", "rectStatus": 1}), 0);
    let ledger = put(app, B, "contract_ledger", json!({"contractId": contract, "projectId": project, "contractCode": "HTB-1", "contractName": "b_secret_contract", "signedAmount": 100, "changeAmount": 0, "contractAmount": 100, "scheduled": 100, "received": 0, "invoiced": 0, "outstanding": 100, "entries": 2}), 0);
    put(app, B, "ledger_entry", json!({"ledgerId": ledger, "contractId": contract, "entryType": 1, "amount": 100, "entryDate": "2026-01-01", "remark": "b_secret"}), 0);
    let node = put(app, B, "ledger_entry", json!({"ledgerId": ledger, "contractId": contract, "entryType": 3, "amount": 100, "entryDate": "2026-01-01", "node": "b_secret_node", "dueDate": "2026-02-01"}), 0);
    ids.insert("contractledger", ledger);
    let wcat = put(app, B, "worklist_category", json!({"categoryName": "b_secret_category", "defaultHours": 4, "sort": 1}), 0);
    let worder = put(app, B, "worklist_order", json!({"orderNo": "GDB-1", "title": "b_secret_order", "categoryId": wcat, "priority": 4, "orderStatus": 1, "content": "b_secret"}), 0);
    ids.insert("worklist_category", wcat);
    ids.insert("month_target", put(app, B, "month_target", json!({"companyId": company, "month": "2026-01", "targetValue": 100, "remark": "b_secret"}), 0));
    ids.insert("statistic_company", company);
    ids.insert("worklist_order", worder);
    ids.insert("worklist_reply", put(app, B, "worklist_reply", json!({"orderId": worder, "content": "b_secret_reply", "authorName": "b"}), 0));
    ids.insert("project_cost", put(app, B, "project_cost", json!({"projectId": project, "costType": 1, "costName": "b_secret_cost", "budget": 100, "actual": 0}), 0));
    let replay = put(app, B, "replay", json!({"replayCode": "FPB-1", "replayName": "b_secret_replay", "projectId": project, "replayDate": "2026-11-01", "itemCount": 1, "openItems": 1}), 0);
    ids.insert("replay", replay);
    ids.insert("replay_item", put(app, B, "replay_item", json!({"replayId": replay, "happened": "b_secret_item", "itemStatus": 1}), 0));
    ids.insert("ledger_entry", node);
    for (k, v) in [("company", company), ("customer", customer), ("worker_job", job), ("worker_job_level", level), ("worker", worker), ("project", project), ("contract", contract), ("construct", construct), ("doc", doc),
        ("building", building), ("speed_progress", task), ("measure", measure), ("attend_day", attend), ("building_rectification", rect)] {
        ids.insert(k, v);
    }
}

/// The warehouse routes with tenant B's ids wherever an id goes (query `id`/`ids`/`orderId`/`goodsId`, and the
/// body's `id`, `lineId`, `spaceId`, `stockId`). Pure lists are checked for leaks instead.
fn wms_request(path: &str, ids: &HashMap<&str, u64>) -> Option<Vec<(String, Option<String>)>> {
    let rest = path.strip_prefix("/api/blade-api/wms/")?;
    const BASES: &[(&str, &str)] = &[("order/rk/", "order_rk"), ("order/ck/", "order_ck"), ("erp/erpcallback/", "erpcallback"), ("customer/", "wms_customer")];
    let (res, action) = match BASES.iter().find(|(b, _)| rest.starts_with(b)) {
        Some((b, r)) => (*r, &rest[b.len()..]),
        None => rest.split_once('/')?,
    };
    // Lists are checked for leaks; an import names no record by id (its cross-tenant case is in wms.rs).
    if matches!(action, "list" | "syncList" | "schema" | "export" | "import" | "import-template") {
        return None;
    }
    let own = *ids.get(res)?;
    let (order, line) = match res {
        "order_ck" | "mxck" | "down" => (ids["order_ck"], ids["mxck"]),
        _ => (ids["order_rk"], ids["mxrk"]),
    };
    // A count sheet names a store and its rows.
    if rest == "stockdata/count" {
        let body = json!({"storeId": ids["store"].to_string(), "reason": "x", "rows": [{"id": own.to_string(), "countedQty": "1"}]});
        return Some(vec![(path.to_string(), Some(body.to_string()))]);
    }
    let body = json!({
        "id": own.to_string(), "lineId": line.to_string(), "orderId": order.to_string(), "spaceId": ids["storagespace"].to_string(),
        "stockId": ids["stockdata"].to_string(), "goodsId": ids["goods"].to_string(), "qty": "1", "passedQty": "1", "countedQty": "1", "remark": "x",
    });
    Some(vec![(format!("{path}?id={own}&ids={own}&orderId={order}&goodsId={}", ids["goods"]), Some(body.to_string()))])
}

/// The approval routes with tenant B's model, process, instance, task and leave ids wherever an id goes.
fn flow_request(path: &str, ids: &HashMap<&str, u64>, mine: &HashMap<&str, u64>) -> Option<Vec<(String, Option<String>)>> {
    let (m, p, i, t, l) = (ids["flow_model"], ids["flow_process"], ids["flow_instance"], ids["flow_task"], ids["process_leave"]);
    let q = |s: String| Some(vec![(s, None)]);
    let rest = path.strip_prefix("/api/blade-flow/").or_else(|| path.strip_prefix("/api/blade-desk/process/")).or_else(|| path.strip_prefix("/api/blade-scm/flowable/"))?;
    let body = |b: serde_json::Value| Some(vec![(path.to_string(), Some(b.to_string()))]);
    let file = ids["approval_file"];
    match rest {
        "approval/event/start" => body(json!({"applyType": 1, "businessId": ids["measure"].to_string()})),
        "approval/detail/{taskId}" => q(path.replace("{taskId}", &t.to_string())),
        "approval/event/complete" => body(json!({"taskId": t.to_string(), "result": 1})),
        "approval/cancel/task" => body(json!({"taskGroupId": i.to_string()})),
        "approval/record/{taskGroupId}" | "approval/measurement/model/detail/{taskGroupId}" => q(path.replace("{taskGroupId}", &i.to_string())),
        "approval/file/upload" | "approval/construct/file/upload" => q(format!("{path}?taskGroupId={i}")),
        "approval/type/file/detail/{id}" | "approval/file/delete/{id}" => q(path.replace("{id}", &file.to_string())),
        "user/update" => body(json!({"applyType": 1, "userIds": [ids["user"].to_string()]})),
        "model/detail" => q(format!("{path}?id={m}")),
        "model/remove" => q(format!("{path}?ids={m}")),
        "model/deploy" => q(format!("{path}?modelId={m}")),
        "model/submit" => Some(vec![(path.into(), Some(json!({"id": m.to_string(), "modelKey": "bsecret", "name": "x", "definition": {"nodes": [{"id": "s", "type": "start"}, {"id": "e", "type": "end"}], "flows": [{"id": "f", "from": "s", "to": "e"}]}}).to_string()))]),
        "manager/change-state" => q(format!("{path}?state=suspend&processId={p}")),
        "manager/delete-deployment" => q(format!("{path}?deploymentIds={p}")),
        "follow/delete-process-instance" => q(format!("{path}?processInstanceId={i}&deleteReason=x")),
        "follow/reassign" => q(format!("{path}?taskId={t}&userId={}&reason=x", mine["user"])),
        "work/claim-task" => q(format!("{path}?taskId={t}")),
        "work/withdraw" => q(format!("{path}?processInstanceId={i}")),
        "work/complete-task" => Some(vec![(path.into(), Some(json!({"taskId": t.to_string(), "flag": "ok"}).to_string()))]),
        "work/start-process" => Some(vec![(path.into(), Some(json!({"processDefinitionId": p.to_string()}).to_string()))]),
        "process/history-flow-list" => q(format!("{path}?processInstanceId={i}")),
        "process/diagram" => Some(vec![(format!("{path}?processInstanceId={i}"), None), (format!("{path}?processDefinitionId={p}"), None)]),
        "leave/start-process" => Some(vec![(path.into(), Some(json!({"processDefinitionId": p.to_string(), "startTime": "2026-11-24 09:00:00", "endTime": "2026-11-25 09:00:00", "reason": "x"}).to_string()))]),
        "leave/detail" => q(format!("{path}?businessId={l}")),
        "leave/resubmit" => body(json!({"taskId": t.to_string(), "leaveType": "1", "startTime": "2026-11-24 09:00:00", "endTime": "2026-11-25 09:00:00", "reason": "x"})),
        _ => None,
    }
}

/// Tenant B's approval records: a model, its deployed process, a running instance with a task, its leave.
fn flow_fixtures(app: &App, ids: &mut HashMap<&'static str, u64>) {
    let def = json!({"variables": [], "nodes": [{"id": "s", "type": "start"}, {"id": "t", "type": "task", "name": "b_secret", "assign": {"kind": "starter"}}, {"id": "e", "type": "end"}], "flows": [{"id": "f1", "from": "s", "to": "t"}, {"id": "f2", "from": "t", "to": "e"}]});
    let model = put(app, B, "flow_model", json!({"modelKey": "bsecret", "name": "b_secret_model", "category": 1, "definition": def}), 0);
    let process = put(app, B, "flow_process", json!({"processKey": "bsecret", "name": "b_secret_process", "category": 1, "version": 1, "latest": 1, "suspensionState": 1, "modelId": model, "definition": def}), 0);
    let state = json!({"status": "running", "active": [{"node": "t", "users": [ids["user"]]}], "path": ["s", "t"]});
    let inst = put(app, B, "flow_instance", json!({"processId": process, "processKey": "bsecret", "processName": "b_secret_process", "category": 1, "version": 1, "starterId": ids["user"], "status": 0, "running": 1, "vars": {}, "state": state, "currentNodes": "b_secret"}), 0);
    let task = put(app, B, "flow_task", json!({"instanceId": inst, "processId": process, "processName": "b_secret_process", "category": 1, "version": 1, "node": "t", "nodeName": "b_secret", "assignee": ids["user"], "todoUser": ids["user"], "status": 0, "result": 0}), 0);
    put(app, B, "flow_history", json!({"instanceId": inst, "node": "s", "nodeName": "b_secret", "userId": ids["user"], "action": "start", "comment": "b_secret"}), 0);
    let leave = put(app, B, "process_leave", json!({"processDefinitionId": process, "processInstanceId": inst, "applyUserId": ids["user"], "startTime": "2026-11-24 09:00:00", "endTime": "2026-11-25 09:00:00", "days": 10000, "reason": "b_secret", "status": 0}), 0);
    let file = put(app, B, "approval_file", json!({"attachName": "b_secret.png", "attachLink": "/files/741487/x", "attachSize": 10, "applyType": 1, "taskGroupId": inst}), 0);
    for (k, v) in [("flow_model", model), ("flow_process", process), ("flow_instance", inst), ("flow_task", task), ("process_leave", leave), ("approval_file", file)] {
        ids.insert(k, v);
    }
}

/// Tenant B's warehouse records, named `b_secret_…`.
fn wms_fixtures(app: &App, ids: &mut HashMap<&'static str, u64>) {
    let store = put(app, B, "store", json!({"storeCode": "WHB", "storeName": "b_secret_store", "enabled": 1}), 0);
    let area = put(app, B, "reservoirarea", json!({"storeId": store, "areaCode": "KQB", "areaName": "b_secret_area", "areaKind": 2}), 0);
    let bin = put(app, B, "storagespace", json!({"areaId": area, "storeId": store, "spaceCode": "b_secret_bin", "spaceState": 1}), 0);
    let goods = put(app, B, "goods", json!({"goodsCode": "SPB", "goodsName": "b_secret_goods", "unit": "件", "stockQty": 10000, "enabled": 1}), 0);
    let owner = put(app, B, "wms_customer", json!({"customerCode": "KHB", "customerName": "b_secret_owner", "enabled": 1}), 0);
    let third = put(app, B, "thirdpartcustomer", json!({"partyCode": "DSB", "partyName": "b_secret_party", "partyType": 1, "enabled": 1}), 0);
    let config = put(app, B, "userconfig", json!({"userId": ids["user"], "storeIds": store.to_string(), "remark": "b_secret"}), 0);
    let rk = put(app, B, "order_rk", json!({"orderNo": "RKB", "storeId": store, "orderType": 1, "orderStatus": 3, "remark": "b_secret"}), 0);
    let mxrk = put(app, B, "mxrk", json!({"orderId": rk, "goodsId": goods, "storeId": store, "expectedQty": 10000, "receivedQty": 10000, "passedQty": 10000, "putQty": 0, "remark": "b_secret"}), 0);
    let rec = |name: &str, extra: Value| {
        let mut doc = json!({"orderId": rk, "lineId": mxrk, "goodsId": goods, "storeId": store, "remark": "b_secret"});
        doc.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        put(app, B, name, doc, 0)
    };
    let received = rec("received", json!({"qty": 10000}));
    let review = rec("review", json!({"passedQty": 10000, "failedQty": 0, "orderStatus": 3}));
    let up = rec("up", json!({"spaceId": bin, "qty": 1}));
    let ck = put(app, B, "order_ck", json!({"orderNo": "CKB", "storeId": store, "orderType": 1, "orderStatus": 1, "remark": "b_secret"}), 0);
    let stock = put(app, B, "stockdata", json!({"goodsId": goods, "storeId": store, "areaId": area, "spaceId": bin, "location": format!("bin:{bin}"), "locationName": "b_secret", "batch": "", "qty": 10000, "reserved": 0, "available": 10000, "quantKey": format!("{goods}|bin:{bin}|")}), 0);
    let mxck = put(app, B, "mxck", json!({"orderId": ck, "goodsId": goods, "storeId": store, "qty": 10000, "reservedQty": 0, "pickedQty": 0, "remark": "b_secret"}), 0);
    let down = put(app, B, "down", json!({"orderId": ck, "lineId": mxck, "goodsId": goods, "storeId": store, "spaceId": bin, "stockId": stock, "qty": 1, "remark": "b_secret"}), 0);
    let transfer = put(app, B, "transfer", json!({"transferNo": "YKB", "goodsId": goods, "fromSpaceId": bin, "toSpaceId": bin, "qty": 10000, "transferStatus": 0, "remark": "b_secret"}), 0);
    let erp = put(app, B, "erpcallback", json!({"docType": "rk", "docId": rk, "docNo": "RKB", "deliverState": 0, "attempts": 0, "remark": "b_secret"}), 0);
    for (k, v) in [("store", store), ("reservoirarea", area), ("storagespace", bin), ("goods", goods), ("wms_customer", owner), ("thirdpartcustomer", third), ("userconfig", config),
        ("order_rk", rk), ("mxrk", mxrk), ("received", received), ("review", review), ("up", up), ("order_ck", ck), ("mxck", mxck), ("down", down), ("transfer", transfer),
        ("stockdata", stock), ("erpcallback", erp)] {
        ids.insert(k, v);
    }
}

/// Tenant-scoped resources with generic detail/submit/remove routes: (API base, resource, a valid body).
const TENANT_GENERIC: &[(&str, &str, &str)] = &[
    ("/api/blade-system/dict-biz", "dictbiz", r#"{"code":"b_secret_dict","dictKey":"-1","dictValue":"b_secret","sort":1,"isSealed":0,"parentId":"0"}"#),
    ("/api/blade-system/post", "post", r#"{"category":1,"postCode":"bsecret","postName":"b_secret_post","sort":1}"#),
    ("/api/blade-system/dept", "dept", r#"{"parentId":"0","deptName":"b_secret_dept","fullName":"b_secret_dept","deptCategory":1,"sort":1}"#),
    ("/api/blade-log/usual", "log_usual", "{}"),
    ("/api/blade-log/api", "log_api", "{}"),
    ("/api/blade-log/login", "log_login", "{}"),
    ("/api/blade-resource/oss", "oss", r#"{"category":1,"ossCode":"b_secret_oss","endpoint":"https://oss.example.com","bucketName":"b"}"#),
    ("/api/blade-resource/sms", "sms", r#"{"category":1,"smsCode":"b_secret_sms","templateId":"t","signName":"s"}"#),
    ("/api/blade-resource/attach", "attach", "{}"),
    ("/api/blade-desk/notice", "notice", r#"{"title":"b_secret_notice","category":1,"content":"x"}"#),
];

/// Routes that take ids but only of platform records (tenant admins are refused with 403 before any id is
/// looked at, tested in `permission_matrix`), or take none.
fn takes_tenant_ids(path: &str) -> bool {
    // Platform data is shared by design (read by every tenant, written only by the platform role, see
    // `permission_matrix`); generated resources (`{res}`) are covered by the code-generation tests.
    let platform = [
        "/api/blade-system/menu/", "/api/blade-system/topmenu/", "/api/blade-system/data-scope/", "/api/blade-system/api-scope/",
        "/api/blade-system/dict/", "/api/blade-system/tenant/", "/api/blade-system/client/", "/api/blade-system/region/",
        "/api/blade-develop/", "/api/blade-report/", "/api/blade-gen/",
    ];
    let last = path.rsplit('/').next().unwrap_or("");
    if let Some(rest) = path.strip_prefix("/api/blade-scm/flowable/") {
        // Lists are checked for leaks; `user/list/{id}` takes an apply type, not a record.
        return !["approval/personal/task/list", "approval/cancel/record", "approval/record/list", "approval/file/list", "approval/user/list", "user/list/{id}"].contains(&rest);
    }
    if let Some(rest) = path.strip_prefix("/api/blade-flow/") {
        return !["list", "check", "schema", "export", "start-list", "claim-list", "todo-list", "send-list", "done-list", "deploy-upload", "users", "counts"].contains(&rest.rsplit('/').next().unwrap_or(""));
    }
    if path.starts_with("/api/blade-desk/process/") {
        // The leave list is the caller's own applications and `days` counts a span (no ids;
        // `flow::leave_runs_across_users_with_rule_12`, `flow::leave_counts_working_days`).
        return !path.ends_with("/list") && !path.ends_with("/days");
    }
    if let Some(rest) = path.strip_prefix("/api/blade-api/wms/") {
        return !["list", "syncList", "schema", "export", "import", "import-template"].contains(&rest.rsplit('/').next().unwrap_or(""));
    }
    if path.starts_with("/api/blade-scm/") {
        // Every scm route but the plain lists names records.
        return !["/add", "/add/item", "/save", "/list", "/page", "/schema", "/export", "/type", "/template", "/tree", "/topList", "/category/{type}"].iter().any(|e| path.ends_with(e)) || path.ends_with("/record/list")
            || path.ends_with("/task/list") || path.ends_with("/construct/worker/list") || path.ends_with("/day/worker/list") || path.ends_with("/detail/list");
    }
    let id_like = ["detail", "platform-detail", "submit", "update", "remove", "grant", "reset-password", "update-platform", "audit-pass", "tree-by-id", "role-tree-keys"];
    (id_like.contains(&last) || path.contains("bindUserPhone")) && !platform.iter().any(|p| path.starts_with(p) && !path.ends_with("role-tree-keys"))
}

#[tokio::test]
async fn cross_tenant_matrix_from_the_route_table() {
    let app = App::new();
    let a = app.admin(A).await;
    let p = app.admin(P).await;
    let mut ids = HashMap::new();
    ids.insert("user", put(&app, B, "user", json!({"account": "b_secret_account", "name": "b", "realName": "b", "roleId": role_id(&app, B, "carpenter").to_string(), "passwordHash": "x", "tokenVersion": 0}), 0));
    ids.insert("role", put(&app, B, "role", json!({"roleName": "b_secret_role", "roleAlias": "b_secret_role", "sort": 1, "menuIds": []}), 0));
    ids.insert("param", put(&app, B, "param", json!({"paramName": "b_secret_param", "paramKey": "b.secret", "paramValue": "v"}), 0));
    ids.insert("log", put(&app, B, "log_error", json!({"message": "b_secret_log"}), 0));
    for (_, res, sample) in TENANT_GENERIC {
        let mut doc: Value = serde_json::from_str(sample).unwrap();
        if let Some(o) = doc.as_object_mut() {
            o.remove("parentId");
            o.insert("remark".into(), json!("b_secret"));
        }
        let d = app.st.res.get(res);
        let doc: serde_json::Map<String, Value> = doc.as_object().unwrap().iter().filter(|(k, _)| d.field(k).is_some()).map(|(k, v)| (k.clone(), v.clone())).collect();
        ids.insert(res, put(&app, B, res, Value::Object(doc), 0));
    }
    scm_fixtures(&app, &mut ids);
    wms_fixtures(&app, &mut ids);
    flow_fixtures(&app, &mut ids);
    let mut mine = HashMap::new();
    mine.insert("role", role_id(&app, A, "carpenter"));
    mine.insert("user", app.make_user(A, "a_plain", "Plain#123", &["carpenter"]).await);
    let before: Vec<Option<Value>> = [("user", ids["user"]), ("role", ids["role"]), ("param", ids["param"]), ("log_error", ids["log"])]
        .iter()
        .map(|(r, i)| get_rec(&app, B, r, *i))
        .collect();
    let mut covered = 0;
    let mut missing = Vec::new();
    for r in crate::support::routes().into_iter().filter(|r| !r.guard.is_public()) {
        let (method, path) = (r.method, r.path.as_str());
        let Some(reqs) = cross_tenant_request(method, path, &ids, &mine) else {
            if takes_tenant_ids(path) {
                missing.push(format!("{method} {path}"));
            }
            continue;
        };
        // OSS and SMS configs are per tenant but their codes are the platform admin's: probe with that token.
        // So are the flow models and deployments (BladeX's model and manager screens).
        let platform_codes = ["/api/blade-resource/oss/", "/api/blade-resource/sms/", "/api/blade-flow/model/", "/api/blade-flow/manager/"];
        let who = if platform_codes.iter().any(|x| path.starts_with(x)) { &p } else { &a };
        for (url, body) in reqs {
            let (s, v) = app.req(method, &url, Some(who), body.as_deref(), &[]).await;
            assert_eq!(s, 404, "{method} {url}: {v}");
            assert!(!v.to_string().contains("b_secret"), "{url} leaked");
            covered += 1;
        }
    }
    assert!(missing.is_empty(), "routes taking ids without a cross-tenant case: {missing:?}");
    assert!(covered >= 20, "{covered}");
    let after: Vec<Option<Value>> = [("user", ids["user"]), ("role", ids["role"]), ("param", ids["param"]), ("log_error", ids["log"])]
        .iter()
        .map(|(r, i)| get_rec(&app, B, r, *i))
        .collect();
    assert_eq!(before, after, "tenant B's records changed");
    // Nothing of B shows in any of A's reads either (the scm lists are POST).
    for r in crate::support::routes().into_iter().filter(|r| r.method == "GET" || r.path.starts_with("/api/blade-scm/") && r.path.ends_with("list") && !r.path.contains('{')) {
        let (method, path) = (r.method, r.path.as_str());
        let (_, v) = app.req(method, path, Some(&a), None, &[]).await;
        assert!(!v.to_string().contains("b_secret"), "{path} leaked B's data");
    }
}

/// Routes a signed-in person may call on their own account and session without any code.
const SELF_SERVICE: &[&str] = &[
    // Any signed-in user may search; the answer holds only records of resources their codes and scopes open.
    "GET /api/blade-search/search",
    "GET /api/blade-auth/oauth/user-info",
    "GET /api/blade-auth/oauth/logout",
    "POST /api/blade-auth/oauth/logout",
    "GET /api/blade-auth/oauth/clear-cache",
    "GET /api/blade-system/menu/routes",
    "GET /api/blade-system/menu/buttons",
    "GET /api/blade-system/menu/top-menu",
    "GET /api/blade-system/tenant/select",
    "GET /api/blade-system/dict/dictionary",
    "GET /api/blade-system/dict-biz/dictionary",
    // The work-list app's dictionary: the same read as dict-biz/dictionary (options any form binds).
    "GET /bladeDict/list",
    "GET /api/blade-user/info",
    "POST /api/blade-user/update-password",
    "POST /api/blade-user/check-password",
    "POST /api/blade-user/update-info",
    "POST /api/blade-user/avatar",
    "GET /api/blade-user/common/sendSms",
    "POST /api/blade-user/common/bindUserPhone/{userId}",
    "POST /api/blade-resource/oss/endpoint/put-file",
    "POST /api/blade-log/error/upload",
    // Reference boxes: the handler itself asks for a read of the kind or of a kind whose form refers to it
    // (tests/api/roles.rs), answered 403 naming the kind otherwise.
    "GET /api/blade-system/lookup",
    // The region picker: national division codes, no tenant data.
    "GET /api/blade-system/region/pick",
    // 站内消息: one's own messages only (another's id is not found; tests/api/roles.rs).
    "GET /api/blade-desk/message/list",
    "GET /api/blade-desk/message/unread-count",
    "POST /api/blade-desk/message/read",
    "POST /api/blade-desk/message/read-all",
];

/// Bodies that fail validation in every way a handler could look at first: malformed JSON, a JSON array, a
/// forbidden alias, unknown fields, a wrong content type. A caller without the route's code must get 403 for
/// each, never 400 (authorization before validation, issue 13 item 2).
fn invalid_bodies() -> Vec<(Option<&'static str>, String)> {
    vec![
        (Some("application/json"), "{not json".into()),
        (Some("application/json"), "[1,2]".into()),
        (Some("application/json"), json!({"id": "x", "roleAlias": "administrator", "parentId": "x", "bogus": 1, "ids": "x"}).to_string()),
        (Some("text/plain"), "ids=1".into()),
        (None, String::new()),
    ]
}

#[tokio::test]
async fn permission_matrix_every_route_checks_its_code_before_its_body() {
    let app = App::new();
    app.make_role(A, "nocodes", &["wel"]).await;
    app.make_user(A, "plain", "Plain#123", &["nocodes"]).await;
    let t = app.sign_in(A, "plain", "Plain#123").await;
    let routes = crate::support::routes();
    // The self-service routes are exactly the ones guarded by a session alone: a new one is a conscious choice.
    let mut signed: Vec<String> = routes.iter().filter(|r| matches!(r.guard, zhizhuang::engine::Guard::Signed)).map(|r| format!("{} {}", r.method, r.path)).collect();
    let mut listed: Vec<String> = SELF_SERVICE.iter().map(|s| s.to_string()).collect();
    signed.sort();
    listed.sort();
    assert_eq!(signed, listed, "routes guarded by a session alone");
    let mut n = 0;
    for r in &routes {
        let (method, path) = (r.method, r.path.as_str());
        // `{res}` stands for a generated resource; the code-generation tests cover those routes.
        if r.guard.is_public() || SELF_SERVICE.contains(&format!("{method} {path}").as_str()) || path.contains("{res}") {
            continue;
        }
        // Path segments get ids that exist nowhere: the answer must still be 403, not 404 or 400.
        let path: String = path.split('/').map(|seg| if seg.starts_with('{') { "1" } else { seg }).collect::<Vec<_>>().join("/");
        let url = format!("{path}?ids=1&id=1&userIds=1&roleIds=1&userId=1&topMenuIds=1&parentId=x&code=x&current=0&size=x");
        for (ctype, body) in invalid_bodies() {
            let mut b = axum::http::Request::builder().method(method).uri(&url).header("blade-auth", format!("bearer {t}"));
            if let Some(c) = ctype {
                b = b.header("content-type", c);
            }
            let (s, _, v) = app.call(b.body(axum::body::Body::from(body.clone())).unwrap()).await;
            assert_eq!(s, 403, "{method} {path} with {ctype:?} {body:?}: {v}");
        }
        n += 1;
    }
    assert!(n >= 150, "{n}");
    // The reported case: role/submit with a forbidden alias and no `role_add` is a 403, not 400.
    let (s, v) = app.post("/api/blade-system/role/submit", &t, &json!({"roleName": "x", "roleAlias": "administrator"}).to_string()).await;
    assert_eq!(s, 403, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("role_add"), "{v}");
    // And the tenant admin is refused platform writes (menus, top menus, scopes) with 403, whatever the body.
    let a = app.admin(A).await;
    for path in ["/api/blade-system/menu/submit", "/api/blade-system/topmenu/submit", "/api/blade-system/data-scope/submit", "/api/blade-system/api-scope/submit"] {
        for body in [r#"{"code":"x","name":"x","category":1}"#, "{bad", r#"{"parentId":"x"}"#] {
            let (s, v) = app.post(path, &a, body).await;
            assert_eq!(s, 403, "{path} {body}: {v}");
        }
    }
    for path in ["/api/blade-system/menu/remove?ids=1", "/api/blade-system/topmenu/grant?topMenuIds=1&menuIds=1", "/api/blade-system/data-scope/remove?ids=1"] {
        let (s, v) = app.req("POST", path, Some(&a), None, &[]).await;
        assert_eq!(s, 403, "{path}: {v}");
    }
}

#[tokio::test]
async fn no_answer_of_any_route_carries_a_hash_or_secret() {
    let app = App::new();
    let mut bodies = String::new();
    for tenant in [P, A] {
        let t = app.admin(tenant).await;
        let (_, v) = app.get("/api/blade-user/page", &t).await;
        let id = v["data"]["records"][0]["id"].as_str().unwrap_or("1").to_string();
        for r in crate::support::routes() {
            let (method, path) = (r.method, r.path.as_str());
            if path.contains("logout") || path.contains("remove") || path.contains("reset-password") {
                continue;
            }
            let url = format!("{path}?id={id}&userIds={id}");
            let (_, v) = app.req(method, &url, Some(&t), None, &[]).await;
            bodies.push_str(&v.to_string());
            let (_, v) = app.req(method, path, Some(&t), None, &[]).await;
            bodies.push_str(&v.to_string());
        }
    }
    for bad in ["$argon2", "passwordHash", "clientSecret", "saber_secret"] {
        assert!(!bodies.contains(bad), "a response contains {bad}");
    }
}

/// Users in a department tree of tenant A, and a viewer whose role reads users under one data scope.
async fn scoped_viewer(app: &App, scope: Value) -> (String, HashMap<&'static str, u64>) {
    let p = app.admin(P).await;
    let a = app.admin(A).await;
    let mut ids = HashMap::new();
    let d1 = put(app, A, "dept", json!({"parentId": 0, "deptName": "d1", "fullName": "d1", "deptCategory": 1}), 0);
    let d2 = put(app, A, "dept", json!({"parentId": d1, "deptName": "d2", "fullName": "d2", "deptCategory": 1}), 0);
    let d3 = put(app, A, "dept", json!({"parentId": 0, "deptName": "d3", "fullName": "d3", "deptCategory": 1}), 0);
    app.make_role(A, "viewer", &[]).await;
    let viewer = app.make_user(A, "viewer", "View#1234", &["viewer"]).await;
    let vd = json!({"deptId": d1.to_string()});
    let r = app.st.res.clone();
    app.st.store.write(move |w| w.update(&r.get("user"), A, viewer, vd.as_object().unwrap().clone(), &store::Actor::default()).map(|_| ())).unwrap();
    for (name, dept, sex) in [("u_d1", d1, 1), ("u_d2", d2, 2), ("u_d3", d3, 1)] {
        ids.insert(name, put(app, A, "user", json!({"account": name, "name": name, "realName": name, "deptId": dept.to_string(), "sex": sex, "passwordHash": "x", "tokenVersion": 0}), 0));
    }
    ids.insert("mine", put(app, A, "user", json!({"account": "u_mine", "name": "m", "realName": "m", "deptId": d3.to_string(), "sex": 2, "passwordHash": "x", "tokenVersion": 0}), viewer));
    ids.insert("viewer", viewer);
    let mut body = scope.as_object().unwrap().clone();
    body.insert("menuId".into(), json!(menu_id(app, "user").to_string()));
    body.insert("resourceCode".into(), json!("user"));
    body.insert("scopeName".into(), json!("s"));
    let (s, v) = app.post("/api/blade-system/data-scope/submit", &p, &Value::Object(body).to_string()).await;
    assert_eq!(s, 200, "{v}");
    let sid = v["data"]["id"].as_str().unwrap().to_string();
    let url = format!("/api/blade-system/role/grant?roleIds={}&menuIds={}&dataScopeIds={sid}", role_id(app, A, "viewer"), menu_id(app, "user"));
    let (s, v) = app.req("POST", &url, Some(&a), None, &[]).await;
    assert_eq!(s, 200, "{v}");
    (app.sign_in(A, "viewer", "View#1234").await, ids)
}

async fn visible_accounts(app: &App, t: &str, query: &str) -> Vec<String> {
    let (s, v) = app.get(&format!("/api/blade-user/page?size=100{query}"), t).await;
    assert_eq!(s, 200, "{v}");
    let mut out: Vec<String> = v["data"]["records"].as_array().unwrap().iter().map(|r| r["account"].as_str().unwrap().to_string()).collect();
    out.sort();
    assert_eq!(v["data"]["total"], out.len());
    out
}

#[tokio::test]
async fn data_scopes_filter_user_list_and_detail() {
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (json!({"scopeType": 2}), vec!["u_mine"]),
        (json!({"scopeType": 3, "scopeField": "deptId"}), vec!["u_d1", "viewer"]),
        (json!({"scopeType": 4, "scopeField": "deptId"}), vec!["u_d1", "u_d2", "viewer"]),
        (json!({"scopeType": 5, "scopeValue": "{\"field\":\"sex\",\"op\":\"equal\",\"value\":2}"}), vec!["u_d2", "u_mine"]),
        (json!({"scopeType": 1}), vec!["admin", "u_d1", "u_d2", "u_d3", "u_mine", "viewer"]),
    ];
    for (scope, want) in cases {
        let app = App::new();
        let (t, ids) = scoped_viewer(&app, scope.clone()).await;
        assert_eq!(visible_accounts(&app, &t, "").await, want, "{scope}");
        // The same twice (no cache mixes users) and with a filter on top.
        assert_eq!(visible_accounts(&app, &t, "").await, want, "{scope} again");
        let filtered: Vec<String> = want.iter().filter(|a| a.contains("u_d")).map(|s| s.to_string()).collect();
        assert_eq!(visible_accounts(&app, &t, "&account=u_d").await, filtered, "{scope} filtered");
        // The list keyword and the search box see exactly what the data scope lets the list show.
        let keyed: Vec<String> = want.iter().filter(|a| a.starts_with("u_")).map(|s| s.to_string()).collect();
        assert_eq!(visible_accounts(&app, &t, "&keyword=u_").await, keyed, "{scope} keyword");
        app.indexed();
        let (s, v) = app.get("/api/blade-search/search?q=u_&size=50", &t).await;
        assert_eq!(s, 200, "{v}");
        let mut found: Vec<String> = v["data"]["records"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["resource"] == "user")
            .map(|h| get_rec(&app, A, "user", h["id"].as_str().unwrap().parse().unwrap()).unwrap()["account"].as_str().unwrap().to_string())
            .collect();
        found.sort();
        assert_eq!(found, keyed, "{scope}: search box");
        assert_eq!(v["data"]["total"], keyed.len(), "{scope}: the total counts only what the user may open");
        for (name, id) in &ids {
            let (s, _) = app.get(&format!("/api/blade-user/detail?id={id}"), &t).await;
            let account = if *name == "mine" { "u_mine" } else { name };
            let expect = if want.contains(&account) { 200 } else { 404 };
            assert_eq!(s, expect, "{scope}: detail of {name}");
        }
        // The admin is not limited.
        let a = app.admin(A).await;
        assert_eq!(visible_accounts(&app, &a, "").await.len(), 6);
    }
}

#[tokio::test]
async fn api_scopes_limit_routes_but_never_the_platform_admin() {
    let app = App::new();
    let p = app.admin(P).await;
    let a = app.admin(A).await;
    let user_menu = menu_id(&app, "user");
    let (s, v) = app.post("/api/blade-system/api-scope/submit", &p, &json!({"menuId": user_menu.to_string(), "resourceCode": "user", "scopeName": "page only", "scopePath": "/api/blade-user/page"}).to_string()).await;
    assert_eq!(s, 200, "{v}");
    let api = v["data"]["id"].as_str().unwrap().to_string();
    // A tenant role limited to the page.
    app.make_role(A, "clerk", &[]).await;
    let codes = ["user", "user_view", "user_add"].iter().map(|c| menu_id(&app, c).to_string()).collect::<Vec<_>>().join(",");
    let (s, v) = app.req("POST", &format!("/api/blade-system/role/grant?roleIds={}&menuIds={codes}&apiScopeIds={api}", role_id(&app, A, "clerk")), Some(&a), None, &[]).await;
    assert_eq!(s, 200, "{v}");
    app.make_user(A, "clerk", "Clerk#123", &["clerk"]).await;
    let t = app.sign_in(A, "clerk", "Clerk#123").await;
    assert_eq!(app.get("/api/blade-user/page", &t).await.0, 200);
    let (s, v) = app.get("/api/blade-user/user-list", &t).await;
    assert_eq!(s, 403, "{v}");
    assert!(v.to_string().contains("接口权限不足"));
    let pw = md5("Abc#12345");
    let (s, _) = app.post("/api/blade-user/submit", &t, &json!({"account": "n1", "name": "n", "realName": "n", "password": pw, "password2": pw}).to_string()).await;
    assert_eq!(s, 403);
    // The same scope granted to the platform administrator's own role does not lock it out.
    let admin_role = role_id(&app, P, "administrator");
    let all: Vec<String> = {
        let r = app.st.res.clone();
        app.st.store.read(|x| x.all(&r.get("menu"), P)).unwrap().iter().map(|m| m["id"].to_string()).collect()
    };
    let (s, v) = app.req("POST", &format!("/api/blade-system/role/grant?roleIds={admin_role}&menuIds={}&apiScopeIds={api}", all.join(",")), Some(&p), None, &[]).await;
    assert_eq!(s, 200, "{v}");
    let p = app.admin(P).await;
    assert_eq!(app.get("/api/blade-user/user-list", &p).await.0, 200);
    assert_eq!(app.get("/api/blade-system/role/list", &p).await.0, 200);
    // A role without API scopes beside the limited one lifts the limit (per-role semantics).
    app.make_role(A, "helper", &[]).await;
    let (s, _) = app.req("POST", &format!("/api/blade-system/role/grant?roleIds={}&menuIds={codes}", role_id(&app, A, "helper")), Some(&a), None, &[]).await;
    assert_eq!(s, 200);
    app.make_user(A, "clerk2", "Clerk#123", &["clerk", "helper"]).await;
    let t2 = app.sign_in(A, "clerk2", "Clerk#123").await;
    assert_eq!(app.get("/api/blade-user/user-list", &t2).await.0, 200);
    let _ = ADMIN_PW;
}

async fn upload(app: &App, token: &str, url: &str, bytes: Vec<u8>) -> (u16, Value) {
    app.upload(token, url, "u.xlsx", bytes).await
}

async fn download(app: &App, token: &str, url: &str) -> Vec<u8> {
    app.download(token, url).await
}

fn sheet(rows: &[Vec<&str>]) -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let s = book.add_worksheet();
    for (i, (_, label)) in zhizhuang::api::user::xls::COLUMNS.iter().enumerate() {
        s.write_string(0, i as u16, *label).unwrap();
    }
    for (r, row) in rows.iter().enumerate() {
        for (i, v) in row.iter().enumerate() {
            s.write_string(r as u32 + 1, i as u16, *v).unwrap();
        }
    }
    book.save_to_buffer().unwrap()
}

#[tokio::test]
async fn excel_import_and_export_share_one_template() {
    let app = App::new();
    let a = app.admin(A).await;
    put(&app, A, "dept", json!({"parentId": 0, "deptName": "总部", "fullName": "总部", "deptCategory": 1}), 0);
    let u = "/api/blade-user";
    let template = download(&app, &a, &format!("{u}/export-template")).await;
    assert!(template.starts_with(b"PK"));
    // Insert from the template: one new user; an existing account is skipped without isCovered.
    let file = sheet(&[vec!["x1", "小一", "徐一", "", "1", "13900000001", "", "1", "", "总部", "", ""], vec!["admin", "改", "改", "", "1", "", "", "", "", "", "", ""]]);
    let (s, v) = upload(&app, &a, &format!("{u}/import-user?isCovered=0"), file).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"], json!({"inserted": 1, "updated": 0, "skipped": 1}));
    let (_, v) = app.get(&format!("{u}/page?account_equal=x1"), &a).await;
    assert_eq!(v["data"]["records"][0]["deptName"], "总部");
    assert_eq!(app.sign_in_body(A, "x1", "").await.0, 400, "imported accounts have no usable password");
    // Export, then import the exported file as it is: same template both ways.
    let exported = download(&app, &a, &format!("{u}/export-user?account=x1")).await;
    let (s, v) = upload(&app, &a, &format!("{u}/import-user?isCovered=1"), exported).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"], json!({"inserted": 0, "updated": 1, "skipped": 0}));
    // Bad files: a foreign template, an unknown department (row named), garbage; nothing is written.
    let (s, _) = upload(&app, &a, &format!("{u}/import-user"), b"not a workbook".to_vec()).await;
    assert_eq!(s, 400);
    let (s, v) = upload(&app, &a, &format!("{u}/import-user"), sheet(&[vec!["x2", "二", "二", "", "1", "", "", "", "", "火星", "", ""]])).await;
    assert_eq!(s, 400);
    assert!(v.to_string().contains("row 2"), "{v}");
    let (_, v) = app.get(&format!("{u}/page?account_equal=x2"), &a).await;
    assert_eq!(v["data"]["total"], 0);
    let mut wrong = rust_xlsxwriter::Workbook::new();
    wrong.add_worksheet().write_string(0, 0, "账号").unwrap();
    let (s, v) = upload(&app, &a, &format!("{u}/import-user"), wrong.save_to_buffer().unwrap()).await;
    assert_eq!(s, 400, "{v}");
    assert!(v.to_string().contains("template"));
}

/// Hostile files for every route that takes one (issue 32): the far corner of the grid, a part that inflates a
/// thousandfold, and more rows than any import takes. Every upload route gets each of them — a new importer is
/// covered by being registered with `post_upload` — and must answer below 500 at once (a background import
/// fails with its reason), never grow the server by the sheet's declared size.
#[tokio::test]
async fn upload_matrix_every_route_refuses_hostile_files() {
    use zhizhuang::engine::sheet::fixtures::{sheet_xml, workbook};
    let app = App::new();
    let (a, p) = (app.admin(A).await, app.admin(P).await);
    let project = put(&app, A, "project", json!({"projectName": "江岸名邸", "projectCode": "XM-M-1"}), 0);
    let far = workbook(&sheet_xml("A1:XFD1048576", &[("A1", "名称"), ("B1", "单元"), ("C1", "楼层"), ("D1", "房号"), ("E1", "户型"), ("F1", "面积(㎡)"), ("XFD1048576", "x")]), None);
    let si = "<si><t>bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb</t></si>";
    let strings = format!(r#"<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">{}</sst>"#, si.repeat(90_000));
    let bomb = workbook(&sheet_xml("A1", &[("A1", "名称")]), Some(&strings));
    let many: String = (2..60_003).map(|i| format!(r#"<row r="{i}"><c r="A{i}" t="inlineStr"><is><t>{i}</t></is></c></row>"#)).collect();
    let many = workbook(&format!(r#"<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>楼栋</t></is></c></row>{many}</sheetData></worksheet>"#), None);
    let mut n = 0;
    for r in crate::support::routes().into_iter().filter(|r| r.upload) {
        let who = if r.path.starts_with("/api/blade-flow/manager/") { &p } else { &a };
        let url = format!("{}?isCovered=0&projectId={project}", r.path);
        for (name, file) in [("far corner", &far), ("inflating part", &bomb), ("60,000 rows", &many)] {
            let started = std::time::Instant::now();
            let (s, v) = app.upload(who, &url, "data.xlsx", file.clone()).await;
            assert!((400..500).contains(&s) || s == 200, "{} with the {name}: {s} {v}", r.path);
            if let Some(code) = v["data"]["taskCode"].as_str() {
                let task = loop {
                    let (_, t) = app.get(&format!("/api/blade-scm/building/getImportStatus?taskCode={code}"), &a).await;
                    if t["data"]["state"] != "running" {
                        break t;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                };
                assert_eq!(task["data"]["state"], "failed", "{} with the {name}: {task}", r.path);
            }
            assert!(started.elapsed() < std::time::Duration::from_secs(20), "{} with the {name}: {:?}", r.path, started.elapsed());
            n += 1;
        }
    }
    assert!(n >= 3 * 8, "{n} uploads: every importer and attachment route");
}

/// Files of another tenant, by their link, with this tenant's session: nothing (the attachment routes' side of the
/// cross-tenant matrix; `abuse.rs` covers the rights within a tenant).
#[tokio::test]
async fn files_of_another_tenant_are_not_served() {
    let app = App::new();
    let (a, b) = (app.admin(A).await, app.admin(B).await);
    let (s, v) = app.upload(&b, "/api/blade-resource/oss/endpoint/put-file", "b_secret.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj".to_vec()).await;
    assert_eq!(s, 200, "{v}");
    let link = v["data"]["link"].as_str().unwrap().to_string();
    let req = |t: &str, url: &str| axum::http::Request::get(url).header("blade-auth", format!("bearer {t}")).body(axum::body::Body::empty()).unwrap();
    assert_eq!(app.call(req(&b, &link)).await.0, 200);
    assert_eq!(app.call(req(&a, &link)).await.0, 404);
    assert_eq!(app.call(req(&a, &link.replace(&format!("/{B}/"), &format!("/{A}/")))).await.0, 404);
    let (s, _, _) = app.call(axum::http::Request::get(&link).body(axum::body::Body::empty()).unwrap()).await;
    assert_eq!(s, 401);
}
