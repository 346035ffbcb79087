//! What the public BladeX Saber client (Vue 2, Avue) needs beyond the basics, one test per finding of issue 13
//! item 8: the tenant and data-source selects, child dictionaries as a plain array, display names beside ids,
//! the region level dictionary, `userName` in the sign-in answer, icon classes in menus, and unknown routes
//! logged with who called them.
use serde_json::{Value, json};

use crate::support::{App, admin_tokens};

const A: &str = "157270";
const P: &str = "000000";

#[tokio::test]
async fn tenant_select_lists_all_for_the_platform_and_the_own_tenant_otherwise() {
    let app = App::new();
    let t = admin_tokens(&app).await;
    let (s, v) = app.get("/api/blade-system/tenant/select", &t[P]).await;
    assert_eq!(s, 200, "{v}");
    let ids: Vec<&str> = v["data"].as_array().unwrap().iter().filter_map(|x| x["tenantId"].as_str()).collect();
    assert_eq!(ids.len(), 3, "{v}");
    assert!(v["data"][0]["tenantName"].is_string() && v["data"][0]["id"].is_string());
    let (s, v) = app.get("/api/blade-system/tenant/select", &t[A]).await;
    assert_eq!(s, 200);
    let ids: Vec<&str> = v["data"].as_array().unwrap().iter().filter_map(|x| x["tenantId"].as_str()).collect();
    assert_eq!(ids, [A]);
    let (s, _) = app.req("GET", "/api/blade-system/tenant/select", None, None, &[]).await;
    assert_eq!(s, 401);
}

#[tokio::test]
async fn datasource_select_names_the_sources_without_their_connection() {
    let app = App::new();
    let t = admin_tokens(&app).await;
    let body = json!({"name": "业务库", "driverClass": "com.mysql.cj.jdbc.Driver", "url": "jdbc:mysql://db/biz", "username": "u", "password": "secret-pw"});
    let (s, v) = app.post("/api/blade-develop/datasource/submit", &t[P], &body.to_string()).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = app.get("/api/blade-develop/datasource/select", &t[P]).await;
    assert_eq!(s, 200, "{v}");
    let list = v["data"].as_array().unwrap();
    assert!(list.iter().any(|d| d["name"] == "业务库" && d["id"].is_string()), "{v}");
    assert!(!v.to_string().contains("jdbc:") && !v.to_string().contains("secret-pw"));
}

#[tokio::test]
async fn child_list_is_a_plain_array_and_a_new_child_appears_in_it() {
    let app = App::new();
    let t = admin_tokens(&app).await;
    for (base, who) in [("/api/blade-system/dict", P), ("/api/blade-system/dict-biz", A)] {
        let code = "saber_check";
        let (s, v) = app.post(&format!("{base}/submit"), &t[who], &json!({"code": code, "dictKey": "-1", "dictValue": "检查", "sort": 1, "isSealed": 0, "parentId": "0"}).to_string()).await;
        assert_eq!(s, 200, "{base}: {v}");
        let pid = v["data"]["id"].as_str().unwrap().to_string();
        let (s, v) = app.post(&format!("{base}/submit"), &t[who], &json!({"code": code, "dictKey": "1", "dictValue": "第一项", "sort": 1, "isSealed": 0, "parentId": pid}).to_string()).await;
        assert_eq!(s, 200, "{base}: {v}");
        let (s, v) = app.get(&format!("{base}/child-list?parentId={pid}&current=1&size=10"), &t[who]).await;
        assert_eq!(s, 200, "{v}");
        let list = v["data"].as_array().unwrap_or_else(|| panic!("{base}/child-list data is not an array: {v}"));
        assert_eq!(list.len(), 1);
        assert_eq!(list[0]["dictValue"], "第一项");
        // Filters still apply.
        let (_, v) = app.get(&format!("{base}/child-list?parentId={pid}&dictValue=没有"), &t[who]).await;
        assert_eq!(v["data"], json!([]));
    }
}

#[tokio::test]
async fn display_names_beside_ids() {
    // Reads are recorded one by one in the api log only with `--api-log all`.
    let app = App::with(zhizhuang::state::Settings { api_log_writes_only: false, ..Default::default() });
    let t = admin_tokens(&app).await;
    let a = &t[A];
    let (_, v) = app.post("/api/blade-system/dept/submit", a, &json!({"parentId": "0", "deptName": "工程部", "fullName": "工程部", "deptCategory": 1, "sort": 1}).to_string()).await;
    let dept = v["data"]["id"].as_str().unwrap().to_string();
    let (_, v) = app.post("/api/blade-system/post/submit", a, &json!({"category": 1, "postCode": "pm", "postName": "项目经理", "sort": 1}).to_string()).await;
    let post = v["data"]["id"].as_str().unwrap().to_string();
    app.make_role(A, "staff", &["wel"]).await;
    let role = {
        let r = app.st.res.clone();
        app.st.store.read(|x| x.all(&r.get("role"), A)).unwrap().into_iter().find(|r| r["roleAlias"] == "staff").unwrap()["id"].to_string()
    };
    let pw = zhizhuang::auth::password::md5_hex("Staff#2026");
    let body = json!({"account": "lisi", "name": "李四", "realName": "李四", "password": pw, "password2": pw, "roleId": role, "deptId": dept, "postId": post, "userType": 1});
    let (s, v) = app.post("/api/blade-user/submit", a, &body.to_string()).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = app.get("/api/blade-user/page?account_equal=lisi", a).await;
    let u = &v["data"]["records"][0];
    for (k, want) in [("tenantName", "教育系统"), ("userTypeName", "PC"), ("roleName", "staff"), ("deptName", "工程部"), ("postName", "项目经理")] {
        assert!(u[k].as_str().is_some_and(|x| x.contains(want) || (k == "userTypeName" && !x.is_empty())), "{k}: {u}");
    }
    let id = u["id"].as_str().unwrap();
    let (_, v) = app.get(&format!("/api/blade-user/detail?id={id}"), a).await;
    assert_eq!(v["data"]["deptName"], "工程部", "{v}");
    let (_, v) = app.get("/api/blade-system/dept/list", a).await;
    let d = v["data"]["records"].as_array().unwrap().iter().find(|d| d["deptName"] == "工程部").cloned().unwrap();
    assert!(d["deptCategoryName"].as_str().is_some_and(|x| !x.is_empty()), "{d}");
    let (_, v) = app.get(&format!("/api/blade-system/dept/detail?id={dept}"), a).await;
    assert!(v["data"]["deptCategoryName"].as_str().is_some_and(|x| !x.is_empty()), "{v}");
    let (_, v) = app.get("/api/blade-system/post/list", a).await;
    assert!(v["data"]["records"][0]["categoryName"].as_str().is_some_and(|x| !x.is_empty()), "{v}");
    // The api log records where and what: service, host, IP, environment and a title.
    app.st.logs.flush().await;
    let (_, v) = app.get("/api/blade-log/api/list?requestUri_equal=/api/blade-system/post/list", a).await;
    let e = &v["data"]["records"][0];
    for k in ["serviceId", "serverHost", "serverIp", "env", "title"] {
        assert!(e[k].is_string(), "{k}: {e}");
    }
    assert_eq!(e["title"], "岗位管理 列表", "{e}");
    assert_eq!(e["serviceId"], "zhizhuang");
}

#[tokio::test]
async fn the_region_form_has_its_levels() {
    let app = App::new();
    let t = admin_tokens(&app).await;
    let (s, v) = app.get("/api/blade-system/dict/dictionary?code=region", &t[P]).await;
    assert_eq!(s, 200);
    let levels: Vec<&str> = v["data"].as_array().unwrap().iter().filter_map(|e| e["dictValue"].as_str()).collect();
    assert_eq!(levels, ["省份", "地市", "区县", "乡镇", "村委"]);
    let (s, v) = app.post("/api/blade-system/region/submit", &t[P], &json!({"code": "130199", "parentCode": "130100", "name": "测试区", "regionLevel": 3, "sort": 99}).to_string()).await;
    assert_eq!(s, 200, "{v}");
    let id = v["data"]["id"].as_str().unwrap().to_string();
    let (_, v) = app.get(&format!("/api/blade-system/region/detail?id={id}"), &t[P]).await;
    assert_eq!(v["data"]["regionLevelName"], "区县", "{v}");
}

#[tokio::test]
async fn sign_in_answer_carries_user_name() {
    let app = App::new();
    let (s, v) = app.sign_in_body(A, "admin", crate::support::ADMIN_PW).await;
    assert_eq!(s, 200);
    assert_eq!(v["userName"], "管理员", "{v}");
    assert_eq!(v["user_name"], "管理员");
}

#[tokio::test]
async fn menus_carry_icon_classes_the_saber_client_renders() {
    let app = App::new();
    let t = admin_tokens(&app).await;
    let (_, v) = app.get("/api/blade-system/menu/routes", &t[A]).await;
    fn walk(v: &Value, out: &mut Vec<String>) {
        for n in v.as_array().into_iter().flatten() {
            if let Some(s) = n["source"].as_str() {
                out.push(s.to_string());
            }
            walk(&n["children"], out);
        }
    }
    let mut sources = Vec::new();
    walk(&v["data"], &mut sources);
    assert!(sources.len() > 20);
    let bare: Vec<&String> = sources.iter().filter(|s| !s.is_empty() && !s.starts_with("iconfont ")).collect();
    assert!(bare.is_empty(), "bare icon names: {bare:?}");
}

#[tokio::test]
async fn data_files_from_earlier_versions_are_brought_up_to_date() {
    let app = App::new();
    // As an earlier version left it: no region dictionary, bare icon names, a missing button.
    let (res, st) = (app.st.res.clone(), app.st.store.clone());
    st.write(move |w| {
        let dict = res.get("dict");
        let ids: Vec<u64> = w.all(&dict, P)?.iter().filter(|d| d["code"] == "region").map(|d| d["id"].as_u64().unwrap()).collect();
        w.remove(&dict, P, &ids, &store::Actor::default())?;
        let menu = res.get("menu");
        for m in w.all(&menu, P)? {
            if m["code"] == "param" {
                w.update(&menu, P, m["id"].as_u64().unwrap(), json!({"source": "tool"}).as_object().unwrap().clone(), &store::Actor::default())?;
            }
            if m["code"] == "param_view" {
                w.remove(&menu, P, &[m["id"].as_u64().unwrap()], &store::Actor::default())?;
            }
        }
        // A file from before the icon conversion has no mark of it.
        w.delete_meta("upgrade:saber_icons")?;
        Ok(())
    })
    .unwrap();
    let (res2, res3) = (app.st.res.clone(), app.st.res.clone());
    st.write(move |w| zhizhuang::seed::upgrade(w, &res3)).unwrap();
    let menus = st.read(|r| r.all(&res2.get("menu"), P)).unwrap();
    let param = menus.iter().find(|m| m["code"] == "param").unwrap();
    assert!(param["source"].as_str().unwrap().starts_with("iconfont "), "{param:?}");
    assert!(menus.iter().any(|m| m["code"] == "param_view"), "the missing button is back");
    let dicts = st.read(|r| r.all(&res2.get("dict"), P)).unwrap();
    assert_eq!(dicts.iter().filter(|d| d["code"] == "region").count(), 6);
    // The tenant admin holds the re-added button (its seed grants every non-platform menu).
    let t = app.admin(A).await;
    let (_, v) = app.get("/api/blade-system/menu/buttons", &t).await;
    assert!(v.to_string().contains("param_view"), "{v}");
    // Running again changes nothing.
    let before = st.read(|r| r.all(&res2.get("menu"), P)).unwrap().len();
    let res5 = app.st.res.clone();
    st.write(move |w| zhizhuang::seed::upgrade(w, &res5)).unwrap();
    assert_eq!(st.read(|r| r.all(&res2.get("menu"), P)).unwrap().len(), before);
}

#[tokio::test]
async fn unknown_routes_are_logged_with_the_caller() {
    let app = App::new();
    let t = admin_tokens(&app).await;
    let (s, _) = app.get("/api/blade-system/no-such-thing/list", &t[A]).await;
    assert_eq!(s, 404);
    app.st.logs.flush().await;
    let (_, v) = app.get("/api/blade-log/api/list?requestUri_equal=/api/blade-system/no-such-thing/list", &t[A]).await;
    let e = &v["data"]["records"][0];
    assert_eq!(e["httpStatus"], 404, "{v}");
    assert!(e["createUser"].as_str().is_some_and(|u| u != "0"), "logged with the user: {e}");
}

/// The system status screen's figures: platform administrator only.
#[tokio::test]
async fn status_shows_the_data_file_space_to_the_platform_administrator_only() {
    let app = crate::support::App::new();
    let platform = app.admin("000000").await;
    let (s, v) = app.get("/api/blade-system/status", &platform).await;
    assert_eq!(s, axum::http::StatusCode::OK, "{v}");
    let d = &v["data"];
    assert!(d["fileBytes"].as_u64().unwrap() > 0);
    assert!(d["allocatedBytes"].as_u64().unwrap() > 0 && d["allocatedBytes"].as_u64() <= d["fileBytes"].as_u64());
    assert_eq!(d["fileBytes"].as_u64().unwrap(), d["allocatedBytes"].as_u64().unwrap() + d["freeBytes"].as_u64().unwrap());
    assert!(d["logsDropped"].is_u64() && d["walksTimedOut"].is_u64());
    assert_eq!(d["logsWriter"]["running"], true, "the logs' writer runs: {d}");
    assert_eq!(d["logsWriter"]["restarts"], 0);
    assert!(d["logsWriter"]["lastFailure"].is_null());
    assert!(d["upgradeCopies"].as_array().is_some_and(|c| c.is_empty()), "a new directory has no upgrade copies: {d}");
    // The copies an upgrade kept are listed with their size, for the administrator to delete once content.
    std::fs::write(app.st.store.path().parent().unwrap().join("before-upgrade-0.1.0-zhizhuang-logs.redb"), vec![0u8; 4096]).unwrap();
    let (_, v) = app.get("/api/blade-system/status", &platform).await;
    let copies = v["data"]["upgradeCopies"].as_array().unwrap();
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert_eq!((copies[0]["name"].as_str(), copies[0]["bytes"].as_u64()), (Some("before-upgrade-0.1.0-zhizhuang-logs.redb"), Some(4096)));
    assert!(d["cache"]["capacityBytes"].as_u64().unwrap() >= 1 << 20 && d["cache"]["readHits"].is_u64(), "the page cache: {d}");
    assert!(d["unpackedCache"]["room"].as_u64().unwrap() >= 1 << 20 && d["unpackedCache"]["hits"].is_u64() && d["unpackedCache"]["bytes"].is_u64(), "the cache of unpacked records: {d}");
    assert!(d["checkpoints"]["count"].is_u64() && d["checkpoints"]["lastWriterMs"].is_number() && d["checkpoints"]["lastDiskMs"].is_number(), "checkpoints: {d}");
    let tenant_admin = app.admin("157270").await;
    let (s, _) = app.get("/api/blade-system/status", &tenant_admin).await;
    assert_eq!(s, axum::http::StatusCode::FORBIDDEN);
}

/// The Saber client's /flow/model, /flow/deploy, /flow/manager, /flow/follow and /work/* screens: each list call,
/// with the parameters the client sends, answers a page (`records`, `total`) — until now they were 404s and the
/// client's tables spun forever.
#[tokio::test]
async fn saber_flow_and_work_screens_load() {
    let app = App::new();
    let t = admin_tokens(&app).await;
    for (who, path) in [
        (P, "/api/blade-flow/model/list?current=1&size=10"),
        (P, "/api/blade-flow/manager/list?current=1&size=10&mode=1"),
        (A, "/api/blade-flow/follow/list?current=1&size=10"),
        (A, "/api/blade-flow/work/start-list?current=1&size=10&mode=1"),
        (A, "/api/blade-flow/work/start-list?current=1&size=10&mode=1&category=flow_1"),
        (A, "/api/blade-flow/work/claim-list?current=1&size=10"),
        (A, "/api/blade-flow/work/todo-list?current=1&size=10"),
        (A, "/api/blade-flow/work/send-list?current=1&size=10"),
        (A, "/api/blade-flow/work/done-list?current=1&size=10&processDefinitionName=请假"),
    ] {
        let (s, v) = app.get(path, &t[who]).await;
        assert_eq!(s, 200, "{path}: {v}");
        assert!(v["data"]["records"].is_array() && v["data"]["total"].is_u64(), "{path}: {v}");
    }
    // The seeded processes are there to start, with the fields the start screen shows.
    let (_, v) = app.get("/api/blade-flow/work/start-list?current=1&size=10", &t[A]).await;
    let leave = v["data"]["records"].as_array().unwrap().iter().find(|r| r["key"] == "leave").cloned().unwrap_or_else(|| panic!("{v}"));
    for f in ["id", "tenantId", "category", "categoryName", "key", "name", "version", "suspensionState", "deploymentTime"] {
        assert!(!leave[f].is_null(), "{f} missing: {leave}");
    }
    assert_eq!(leave["suspensionState"], 1);
    assert_eq!(leave["categoryName"], "请假流程");
}

/// Clients read the spec's prefixes either way: the work orders and the receivables answer with and without
/// `/api/…`, and an unknown call on a path the spec serves outside `/api` answers the envelope, not the HTML page.
#[tokio::test]
async fn spec_paths_answer_with_either_prefix_and_unknown_ones_in_the_envelope() {
    let app = App::new();
    let t = admin_tokens(&app).await;
    for url in ["/worklist/order/list", "/api/blade-biz/worklist/order/list"] {
        let (s, v) = app.req("POST", url, Some(&t[A]), Some("{}"), &[]).await;
        assert_eq!(s, 200, "{url}: {v}");
        assert!(v["data"]["records"].is_array(), "{url}: {v}");
    }
    for url in ["/blade-api/edu-sub-account/receivables/list", "/api/blade-api/edu-sub-account/receivables/list"] {
        let (s, v) = app.get(url, &t[A]).await;
        assert_eq!(s, 200, "{url}: {v}");
        assert!(v["data"]["records"].is_array(), "{url}: {v}");
    }
    for url in ["/blade-api/no-such/list", "/blade-wechat/nope/list", "/bladeDict/nope", "/worklist/order/nope"] {
        let (s, v) = app.get(url, &t[A]).await;
        assert_eq!(s, 404, "{url}: {v}");
        assert_eq!(v["code"], 404, "{url} answers the envelope: {v}");
        assert_eq!(v["success"], false, "{url}: {v}");
    }
    // Pages outside /api still render.
    let (s, v) = app.req("GET", "/worklist/addworklist", None, None, &[]).await;
    assert_eq!(s, 200, "{v}");
}
