//! Server-rendered pages through the router: sign-in page, the guard, the layout with the user's menus, the
//! parameter list screen with its data, 404, the props endpoint, and the shell fallback.
use axum::body::Body;
use axum::http::Request;

use crate::support::App;

async fn page(app: &App, url: &str, token: Option<&str>, extra: &[(&str, &str)]) -> (u16, axum::http::HeaderMap, String) {
    let mut b = Request::get(url).header("host", "edu.localhost:8090");
    if let Some(t) = token {
        b = b.header("cookie", format!("saber-access-token={t}; zz-lang=zh"));
    }
    for (k, v) in extra {
        b = b.header(*k, *v);
    }
    let (s, h, v) = app.call(b.body(Body::empty()).unwrap()).await;
    (s.as_u16(), h, v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()))
}

fn ssr_app() -> App {
    let app = App::new();
    app.st.start_ssr_now().expect("render pool loads the server bundle");
    app
}

#[tokio::test]
async fn login_page_is_server_rendered_with_its_props() {
    let app = ssr_app();
    let (s, h, html) = page(&app, "/login", None, &[]).await;
    assert_eq!(s, 200);
    assert!(h["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(h["content-security-policy"].to_str().unwrap().contains("script-src 'self'"));
    assert!(html.contains("<div id=\"root\"><"), "rendered markup inside #root");
    assert!(html.contains("__ZZ_PROPS__") && html.contains("\"knownFromHost\":true"), "props embedded; edu.localhost is a known tenant");
    assert!(html.contains("/assets/app-"), "hashed client bundle");
    assert!(html.contains("type=\"password\""), "the password box");
}

#[tokio::test]
async fn guard_redirects_and_signed_in_pages_render() {
    let app = ssr_app();
    let (s, h, _) = page(&app, "/wel/index", None, &[]).await;
    assert_eq!(s, 302);
    assert!(h["location"].to_str().unwrap().starts_with("/login"), "{:?}", h["location"]);
    let (s, h, _) = page(&app, "/", None, &[]).await;
    assert_eq!(s, 302, "/ → /wel");
    assert!(h["location"].to_str().unwrap().starts_with("/wel") || h["location"].to_str().unwrap().starts_with("/login"));

    let token = app.admin("157270").await;
    let (s, _, html) = page(&app, "/wel/index", Some(&token), &[]).await;
    assert_eq!(s, 200);
    assert!(html.contains("参数管理") || html.contains("系统管理"), "the sidebar holds the user's menus");
    let (s, h, _) = page(&app, "/login", Some(&token), &[]).await;
    assert_eq!(s, 302, "signed in, /login goes on to the desk");
    assert!(!h["location"].to_str().unwrap().starts_with("/login"));
    let (s, _, html) = page(&app, "/no/such/page", Some(&token), &[]).await;
    assert_eq!(s, 404);
    assert!(html.contains("404"));
    // A screen of the product outside one's menus is refused as such (it said 页面不存在).
    app.make_role("157270", "clerk", &["home", "wel"]).await;
    app.make_user("157270", "clerk1", "Zz#12345", &["clerk"]).await;
    let clerk = app.sign_in("157270", "clerk1", "Zz#12345").await;
    let (s, _, html) = page(&app, "/system/user", Some(&clerk), &[]).await;
    assert_eq!(s, 403);
    assert!(html.contains("无权访问"), "{html}");
    let (s, _, _) = page(&app, "/no/such/page", Some(&clerk), &[]).await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn unknown_paths_are_404_also_when_signed_out() {
    let app = ssr_app();
    // Spec §2: any unknown path goes to /404, without asking for sign-in first.
    for path in ["/no/such/page", "/system/param/nope", "/gen/not_generated"] {
        let (s, h, html) = page(&app, path, None, &[]).await;
        assert_eq!(s, 404, "{path}: {:?}", h.get("location"));
        assert!(html.contains("404"), "{path}");
    }
    // Screens that exist for someone (menu paths, list screens, routes of the UI) still ask for sign-in first.
    for path in ["/system/param", "/wms/goods", "/authority/role", "/wel/dashboard", "/project/detail/XM1"] {
        let (s, h, _) = page(&app, path, None, &[]).await;
        assert_eq!(s, 302, "{path}");
        assert!(h["location"].to_str().unwrap().starts_with("/login?redirect="), "{path}");
    }
}

#[tokio::test]
async fn parameter_screen_renders_its_rows() {
    let app = ssr_app();
    let token = app.admin("157270").await;
    for i in 0..3 {
        let body = format!(r#"{{"paramName":"页面参数{i}","paramKey":"page.{i}","paramValue":"<b>v{i}</b>"}}"#);
        assert_eq!(app.post("/api/blade-system/param/submit", &token, &body).await.0, 200);
    }
    let (s, _, html) = page(&app, "/system/param", Some(&token), &[]).await;
    assert_eq!(s, 200);
    assert!(html.contains("页面参数2") && html.contains("page.0"), "rows rendered on the server");
    assert!(!html.contains("<b>v1</b>"), "values are escaped");
    let (s, _, html) = page(&app, "/system/param?paramName=参数1", Some(&token), &[]).await;
    assert_eq!(s, 200);
    assert!(html.contains("page.1") && !html.contains("page.2\""), "the URL's filter applies");
    let (s, h, body) = page(&app, "/system/param", Some(&token), &[("x-zz-props", "1")]).await;
    assert_eq!(s, 200);
    assert!(h["content-type"].to_str().unwrap().contains("json"));
    assert!(body.contains("\"kind\":\"list\"") && body.contains("paramKey"));
    // A filter the list cannot take (letters in a number's box) shows no rows and says why — not every record as
    // if it had been applied; the box keeps what was typed.
    let (s, _, body) = page(&app, "/monitor/log/api?httpStatus_equal=abc", Some(&token), &[("x-zz-props", "1")]).await;
    assert_eq!(s, 200);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["page"]["data"]["total"], 0, "{body}");
    assert!(v["page"]["error"].as_str().unwrap_or("").contains("状态码"), "named as the box is: {body}");
    assert_eq!(v["page"]["query"]["httpStatus_equal"], "abc");
    let (_, _, html) = page(&app, "/monitor/log/api?httpStatus_equal=abc", Some(&token), &[]).await;
    assert!(root_markup(&html).contains("role=\"alert\""), "the reason is on the server-rendered screen");
    // The creates above are in the api log once its writer has them.
    app.st.logs.flush().await;
    let (_, _, body) = page(&app, "/monitor/log/api?httpStatus_equal=200", Some(&token), &[("x-zz-props", "1")]).await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(v["page"]["error"].is_null() && v["page"]["data"]["total"].as_u64() > Some(0), "{body}");
    let (_, _, html) = page(&app, "/monitor/log/api?httpStatus_equal=200", Some(&token), &[]).await;
    assert!(!root_markup(&html).contains("role=\"alert\""));
    // Menus carry their names' pinyin for the header's menu search (`kq` finds 考勤管理).
    let (_, _, body) = page(&app, "/system/param", Some(&token), &[("x-zz-props", "1")]).await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    fn find<'a>(menus: &'a serde_json::Value, name: &str) -> Option<&'a serde_json::Value> {
        menus.as_array()?.iter().find_map(|m| if m["name"] == name { Some(m) } else { find(&m["children"], name) })
    }
    assert_eq!(find(&v["menus"], "参数管理").map(|m| m["py"].clone()), Some(serde_json::json!("csgl canshuguanli")), "{}", v["menus"]);
    // `open=<id>` (a notice from the desk) names the record the screen shows over its list: never a filter, and
    // not kept in the list's own query (its pages and searches leave it).
    let (_, _, body) = page(&app, "/desk/notice?open=123&size=5", Some(&token), &[("x-zz-props", "1")]).await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(v["page"]["error"].is_null(), "{body}");
    assert!(v["page"]["query"].get("open").is_none() && v["page"]["query"]["size"] == "5", "{body}");
}

#[tokio::test]
async fn without_the_pool_pages_fall_back_to_the_shell() {
    let app = App::new();
    let (s, _, html) = page(&app, "/login", None, &[]).await;
    assert_eq!(s, 200, "never a 500");
    assert!(html.contains("<div id=\"root\"></div>") && html.contains("__ZZ_PROPS__"), "empty root: the client renders");
    let (s, _, body) = page(&app, "/api/nothing", None, &[]).await;
    assert_eq!(s, 404);
    assert!(body.contains("接口不存在"));
    let req = Request::post("/wel/index").body(Body::empty()).unwrap();
    let (s, _, _) = app.call(req).await;
    assert_eq!(s, 405);
}

/// The markup inside `#root` (the props block after it also carries the data, so it proves nothing).
fn root_markup(html: &str) -> &str {
    html.split("__ZZ_PROPS__").next().unwrap_or(html)
}

#[tokio::test]
async fn admin_screens_render_their_rows_on_the_server() {
    let app = ssr_app();
    let token = app.admin("000000").await;
    let body = r#"{"code":"ssr_probe","dictValue":"服务端字典","sort":1,"isSealed":0,"parentId":0}"#;
    let (s, v) = app.post("/api/blade-system/dict/submit", &token, body).await;
    assert_eq!(s.as_u16(), 200, "{v}");
    let (s, _, html) = page(&app, "/system/dict", Some(&token), &[]).await;
    assert_eq!(s, 200);
    let root = root_markup(&html);
    assert!(root.contains("服务端字典") && root.contains("ssr_probe"), "dictionary rows rendered on the server");
    assert!(html.contains("\"kind\":\"dict\""), "the first screen travels in props.page");

    let (s, _, html) = page(&app, "/system/user", Some(&token), &[]).await;
    assert_eq!(s, 200);
    let root = root_markup(&html);
    assert!(root.contains("<td>admin</td>"), "the admin's account is a server-rendered row");
    assert!(html.contains("\"kind\":\"user\"") && html.contains("\"user_type\""), "users, departments and dictionaries in props.page");

    for path in ["/authority/role", "/system/menu", "/system/dept", "/system/tenant", "/system/dictbiz"] {
        let (s, _, body) = page(&app, path, Some(&token), &[("x-zz-props", "1")]).await;
        assert_eq!(s, 200, "{path}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        let kind = v["page"]["kind"].as_str().unwrap_or("");
        assert!(["tree", "paged", "dict"].contains(&kind), "{path}: {kind}");
    }
    // Without the read code the page carries no data (the screen's own call answers 403).
    let (_, _, body) = page(&app, "/system/user", None, &[("x-zz-props", "1")]).await;
    assert!(body.contains("\"kind\":\"none\""));
}

#[tokio::test]
async fn screens_are_chinese_until_english_is_chosen() {
    let app = ssr_app();
    // Spec §2: default zh. A browser that prefers English still gets Chinese screens; the switch's cookie decides.
    let (s, _, html) = page(&app, "/login", None, &[("accept-language", "en-US,en;q=0.9")]).await;
    assert_eq!(s, 200);
    assert!(html.contains("<html lang=\"zh-CN\">") && html.contains("\"locale\":\"zh\""), "default zh");
    let (_, _, html) = page(&app, "/login", None, &[("accept-language", "en-US"), ("cookie", "zz-lang=en")]).await;
    assert!(html.contains("<html lang=\"en\">") && html.contains("\"locale\":\"en\""), "the user's choice");
}

/// At an address that maps to no tenant (the README's 127.0.0.1:8090), a signed-in page follows the user's own
/// tenant: it was the default tenant's, so 157270's header lost its search box, lock and language switch.
#[tokio::test]
async fn a_signed_in_page_follows_the_users_tenant_not_the_address() {
    let app = App::new();
    let token = app.admin("157270").await;
    let req = Request::get("/wel/index")
        .header("host", "127.0.0.1:8090")
        .header("cookie", format!("saber-access-token={token}; zz-lang=zh"))
        .header("x-zz-props", "1")
        .body(Body::empty())
        .unwrap();
    let (s, _, body) = app.call(req).await;
    assert_eq!(s, 200, "{body}");
    assert_eq!(body["tenant"]["id"], "157270", "{}", body["tenant"]);
    assert!(body["tenant"]["name"].as_str().is_some_and(|n| !n.is_empty()), "{}", body["tenant"]);
    // Signed out, the address decides (none here: the form asks for the tenant).
    let req = Request::get("/login").header("host", "127.0.0.1:8090").header("x-zz-props", "1").body(Body::empty()).unwrap();
    let (_, _, body) = app.call(req).await;
    assert_eq!(body["tenant"]["knownFromHost"], false);
}

/// The launcher, the 外部系统 menus and the header's feedback and appraise links are 未配置 (no address) until the
/// tenant sets them in 参数管理; they were made-up *.example.com addresses.
#[tokio::test]
async fn external_links_are_unset_until_the_tenant_sets_them() {
    let app = App::new();
    let token = app.admin("157270").await;
    async fn props(app: &App, token: String) -> serde_json::Value {
        let req = Request::get("/wel/index").header("host", "edu.localhost:8090").header("cookie", format!("saber-access-token={token}")).header("x-zz-props", "1").body(Body::empty()).unwrap();
        app.call(req).await.2
    }
    fn external(menus: &serde_json::Value, out: &mut Vec<(String, String)>) {
        for m in menus.as_array().into_iter().flatten() {
            if let Some(c) = m["code"].as_str().filter(|c| c.starts_with("external_")) {
                out.push((c.to_string(), m["path"].as_str().unwrap_or("?").to_string()));
            }
            external(&m["children"], out);
        }
    }
    let p = props(&app, token.clone()).await;
    assert!(!p.to_string().contains("example.com"), "no made-up address: {}", p["site"]);
    assert!(p["site"]["apps"].as_array().unwrap().iter().all(|a| a["url"] == ""), "{}", p["site"]["apps"]);
    assert_eq!((p["site"]["feedbackUrl"].as_str(), p["site"]["appraiseUrl"].as_str()), (Some(""), Some("")));
    for (key, value) in [("site.app.bim", "https://bim.acme.cn"), ("site.feedback", "https://feedback.acme.cn"), ("site.appraise", "javascript:alert(1)")] {
        let (s, v) = app.req("POST", "/api/blade-system/param/submit", Some(&token), Some(&serde_json::json!({"paramName": key, "paramKey": key, "paramValue": value}).to_string()), &[]).await;
        assert_eq!(s, 200, "{v}");
    }
    let p = props(&app, token).await;
    assert_eq!(p["site"]["apps"][0]["url"], "https://bim.acme.cn", "{}", p["site"]);
    assert_eq!(p["site"]["feedbackUrl"], "https://feedback.acme.cn");
    assert_eq!(p["site"]["appraiseUrl"], "", "only http(s) addresses are taken");
    let mut menus = Vec::new();
    external(&p["menus"], &mut menus);
    assert!(menus.contains(&("external_bim".into(), "https://bim.acme.cn".into())), "{menus:?}");
    assert!(menus.iter().filter(|(c, _)| c != "external_bim").all(|(_, p)| p.is_empty()), "{menus:?}");
}

/// Every filter a list screen's search form offers (`ui.filters`: 出库单 by 状态 and 仓库, 施工管理 by 所属项目, …)
/// answers on the demo's data as a person uses it: asked with the value a listed record has, the screen lists
/// only records of that value, that record among them, and says nothing is wrong. A filter whose column the demo
/// leaves empty on every listed row fails too (the box would only ever find nothing); a screen the demo leaves
/// empty (the logs, before anyone works) has nothing to ask. The date range a declaration names (`ui.dateRange`) is
/// asked from and to one record's day.
/// Lists sort by id as by creation time (a record's id is given when it is made): the demo's back-dated records are
/// written in the order of their times, so every list screen without an order of its own reads newest first, as a
/// kept company's would (考勤, 整改, 工单回复 and 流程跟踪 were jumbled), and a document's number names the day it was made.
#[tokio::test]
async fn demo_lists_read_newest_first() {
    let app = App::new();
    zhizhuang::seed::first_start(&app.st.store, &app.st.res, Some(crate::support::ADMIN_PW), true, false).unwrap();
    let token = app.admin("157270").await;
    let mut looked = 0;
    for (def, decl) in app.st.res.declared() {
        let Some(screen) = decl.screen.as_deref().filter(|_| decl.default_sort.is_none()) else { continue };
        let (s, _, body) = page(&app, &format!("{screen}?size=200"), Some(&token), &[("x-zz-props", "1")]).await;
        assert_eq!(s, 200, "{screen}: {body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        let rows = v["page"]["data"]["records"].as_array().cloned().unwrap_or_default();
        let times: Vec<&str> = rows.iter().filter_map(|r| r["createTime"].as_str()).collect();
        // A document's number carries the day it was made (XM20260108-0001, FP20261115-0002).
        for r in &rows {
            let made: String = r["createTime"].as_str().unwrap_or_default().chars().take(10).filter(char::is_ascii_digit).collect();
            for (k, n) in r.as_object().into_iter().flatten().filter(|(k, _)| k.ends_with("Code") || k.ends_with("No")) {
                let n = n.as_str().unwrap_or_default();
                let numbered = n.len() == 15 && n.as_bytes()[10] == b'-' && n[..2].bytes().all(|b| b.is_ascii_uppercase()) && n[2..10].bytes().all(|b| b.is_ascii_digit());
                assert!(!numbered || n[2..10] == made, "{} ({screen}): {k} {n} of a record made {}", def.name, r["createTime"]);
            }
        }
        if let Some(k) = times.windows(2).position(|t| t[0] < t[1]) {
            panic!("{} ({screen}): row {} made {} is listed above one made {}", def.name, k + 1, times[k], times[k + 1]);
        }
        looked += (times.len() > 1) as usize;
    }
    assert!(looked >= 25, "{looked} screens with rows looked at");
    // The second demo tenant is in 杭州: none of its screens names a place of 南京's.
    let hz = app.admin("741487").await;
    for (_, decl) in app.st.res.declared() {
        let Some(screen) = decl.screen.as_deref() else { continue };
        let (_, _, body) = page(&app, &format!("{screen}?size=200"), Some(&hz), &[("x-zz-props", "1")]).await;
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        let rows = v["page"]["data"]["records"].to_string();
        for nanjing in ["南京", "江宁", "新街口", "河西", "建邺", "鼓楼区", "秦淮", "玄武区", "栖霞", "雨花台"] {
            assert!(!rows.contains(nanjing), "{screen} of the 杭州 tenant names {nanjing}");
        }
    }
    // A work order is about the project its title names (万科城市之光 外墙清洗… on 万科城市之光外立面清洗).
    let (s, _, body) = page(&app, "/worklist/order?size=200", Some(&token), &[("x-zz-props", "1")]).await;
    assert_eq!(s, 200);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let orders = v["page"]["data"]["records"].as_array().cloned().unwrap_or_default();
    assert!(orders.len() >= 10, "{} work orders", orders.len());
    for o in &orders {
        let (title, project) = (o["title"].as_str().unwrap_or_default(), o["projectName"].as_str().unwrap_or_default());
        let place: Vec<char> = title.split(' ').next().unwrap_or_default().chars().collect();
        assert!(place.windows(2).any(|w| project.contains(&w.iter().collect::<String>())), "work order {title} is on project {project}");
    }
}

#[tokio::test]
async fn every_search_form_filter_lists_the_records_of_its_value() {
    let app = App::new();
    zhizhuang::seed::first_start(&app.st.store, &app.st.res, Some(crate::support::ADMIN_PW), true, false).unwrap();
    let token = app.admin("157270").await;
    // The screen's props: its rows and its resource (fields and dictionaries, what the search form offers).
    let props = |url: String| {
        let (app, token) = (&app, &token);
        async move {
            let (s, _, body) = page(app, &url, Some(token), &[("x-zz-props", "1")]).await;
            assert_eq!(s, 200, "{url}: {body}");
            let v: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert!(v["page"]["error"].is_null(), "{url}: {}", v["page"]["error"]);
            (v["page"]["data"]["records"].as_array().cloned().unwrap_or_default(), v["page"]["resource"].clone())
        }
    };
    let (mut asked, mut ranged, mut empty) = (0, 0, Vec::new());
    for (name, _, screen) in zhizhuang::decl::screens::screens(&app.st.res) {
        let def = app.st.res.get(&name);
        let fields: Vec<String> = def.ui.as_ref().and_then(|u| u["filters"].as_array()).into_iter().flatten().filter_map(|h| h["field"].as_str().map(str::to_string)).collect();
        let range: Option<String> = def.ui.as_ref().and_then(|u| u["dateRange"].as_str()).map(str::to_string);
        if fields.is_empty() && range.is_none() {
            continue;
        }
        let (rows, schema) = props(format!("{screen}?size=200")).await;
        for f in fields.iter().filter(|_| !rows.is_empty()) {
            let text = |v: &serde_json::Value| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
            let Some(row) = rows.iter().find(|r| !r[f].is_null() && r[f] != "") else {
                empty.push(format!("{name}.{f}"));
                continue;
            };
            let want = text(&row[f]);
            // A dictionary field's box is a choice: the value is among its options.
            if let Some(dict) = def.field(f).and_then(|d| d.dict.as_deref()) {
                let offered = schema["dicts"][dict].as_array().is_some_and(|o| o.iter().any(|d| text(&d["dictKey"]) == want));
                assert!(offered, "{screen}: {f}={want} is offered by {dict}: {}", schema["dicts"][dict]);
            }
            let (found, _) = props(format!("{screen}?{f}_equal={}&size=200", crate::support::urlencode(&want))).await;
            assert!(found.iter().any(|r| r["id"] == row["id"]), "{screen} by {f}={want}: the record is listed");
            assert!(found.iter().all(|r| text(&r[f]) == want), "{screen} by {f}={want}: only its records");
            asked += 1;
        }
        // The search form's date range over the declaration's own date (项目 开始时间, 合同 签订日期, 考勤 日期, …):
        // from and to one listed record's day, both days whole.
        if let Some(f) = range.as_deref() {
            let row = rows.iter().find(|r| r[f].as_str().is_some_and(|d| d.len() >= 10)).unwrap_or_else(|| panic!("{name}: no {f} in the demo's rows"));
            let day = &row[f].as_str().unwrap_or_default()[..10];
            let (found, _) = props(format!("{screen}?{f}_datege={day}&{f}_datele={day}&size=200")).await;
            assert!(found.iter().any(|r| r["id"] == row["id"]), "{screen} from and to {day}: the record is listed");
            assert!(found.iter().all(|r| r[f].as_str().is_some_and(|d| d.starts_with(day))), "{screen} from and to {day}: only that day");
            ranged += 1;
        }
    }
    assert!(empty.is_empty(), "filters the demo's rows leave empty: {empty:?}");
    assert!(asked >= 100, "{asked} filters asked");
    assert_eq!(ranged, 7, "date ranges asked");
}

/// Issue 57 item 4: the first page carries only the app; a page whose screen is in a part names that part's files
/// for preloading (and no other part's); the files are answered brotli-compressed to a browser that takes it,
/// gzip to one that takes only that, plain otherwise — each the same bytes once decompressed.
#[tokio::test]
async fn pages_preload_their_part_and_assets_come_compressed_as_asked() {
    use std::io::Read;
    let app = ssr_app();
    let token = app.admin("157270").await;
    let preloads = |html: &str| -> Vec<String> {
        html.split("<link rel=\"modulepreload\" href=\"/assets/").skip(1).map(|s| s.split('"').next().unwrap().to_string()).collect()
    };
    let (_, _, login) = page(&app, "/login", None, &[]).await;
    assert!(preloads(&login).is_empty(), "the sign-in page needs the app alone: {:?}", preloads(&login));
    let first = vec![login.split("<script type=\"module\" src=\"/assets/").nth(1).unwrap().split('"').next().unwrap().to_string()];
    assert!(first[0].starts_with("app-"), "{first:?}");
    let (s, _, desk) = page(&app, "/wel/index", Some(&token), &[]).await;
    assert_eq!(s, 200);
    assert!(!desk.contains("<!--zz-parts"), "the directive is not sent");
    let desk_files = preloads(&desk);
    assert!(!desk_files.is_empty() && desk_files.iter().all(|f| f.starts_with("chunk-")), "the desk's part: {desk_files:?}");
    let (_, _, list) = page(&app, "/system/param", Some(&token), &[]).await;
    let list_files = preloads(&list);
    assert!(list_files.iter().any(|f| f.starts_with("chunk-")) && list_files != desk_files, "the list screen's part, not the desk's: {list_files:?}");

    let get = |enc: Option<&'static str>, name: String| {
        let mut b = Request::get(format!("/assets/{name}"));
        if let Some(e) = enc {
            b = b.header("accept-encoding", e);
        }
        let router = app.router.clone();
        async move {
            let resp = tower::ServiceExt::oneshot(router, b.body(Body::empty()).unwrap()).await.unwrap();
            let (status, h) = (resp.status().as_u16(), resp.headers().clone());
            let bytes = http_body_util::BodyExt::collect(resp.into_body()).await.unwrap().to_bytes().to_vec();
            (status, h, bytes)
        }
    };
    let app_js = first[0].clone();
    let (s, h, plain) = get(None, app_js.clone()).await;
    assert_eq!(s, 200);
    assert!(h.get("content-encoding").is_none());
    let (_, h, br) = get(Some("gzip, deflate, br, zstd"), app_js.clone()).await;
    assert_eq!(h["content-encoding"], "br");
    assert!(h["vary"].to_str().unwrap().to_ascii_lowercase().contains("accept-encoding"));
    let mut out = Vec::new();
    brotli_decompressor::Decompressor::new(&br[..], 4096).read_to_end(&mut out).unwrap();
    assert_eq!(out, plain, "brotli of the same file");
    assert!(br.len() * 3 < plain.len(), "compressed: {} of {}", br.len(), plain.len());
    let (_, h, gz) = get(Some("gzip"), app_js.clone()).await;
    assert_eq!(h["content-encoding"], "gzip");
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut out).unwrap();
    assert_eq!(out, plain, "gzip of the same file");
    let (_, h, _) = get(Some("br;q=0, gzip"), app_js.clone()).await;
    assert_eq!(h["content-encoding"], "gzip", "br refused by q=0");
    let (s, _, _) = get(None, format!("{app_js}.br")).await;
    assert_eq!(s, 404, "the compressed copies are not files of their own");
}
