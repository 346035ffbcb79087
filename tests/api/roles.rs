//! Every shipped role does its own day's work with its seeded grants and nothing more (issue 55), on the demo
//! company (tenant 157270): 项目经理 张伟, 仓管员 刘强, 财务 李娜, 设计师 王芳 (an employee), 施工队长 陈杰. The
//! browser walks the same tasks (ui/tests/browser); here the API under each role's own token.
use serde_json::{Value, json};

use crate::support::{ADMIN_PW, App, get_json as get, msg, post_json as post};

const A: &str = "157270";

fn demo() -> App {
    let app = App::new();
    zhizhuang::seed::first_start(&app.st.store, &app.st.res, Some(ADMIN_PW), true).unwrap();
    app
}

async fn who(app: &App, account: &str) -> String {
    app.sign_in(A, account, ADMIN_PW).await
}

fn titles(v: &Value) -> Vec<String> {
    v["data"]["records"].as_array().into_iter().flatten().filter_map(|r| r["title"].as_str().map(str::to_string)).collect()
}

#[tokio::test]
async fn pickers_need_the_right_to_use_the_form_not_to_manage_the_picked_kind() {
    let app = demo();
    let pm = who(&app, "zhangwei").await;
    // The project manager picks the company and the manager of a new project …
    let (s, v) = get(&app, &pm, "/api/blade-system/lookup?resource=company").await;
    assert_eq!(s, 200, "{v}");
    assert!(!titles(&v).is_empty(), "{v}");
    let (s, v) = get(&app, &pm, "/api/blade-system/lookup?resource=user&keyword=zw").await;
    assert_eq!(s, 200, "{v}");
    assert!(titles(&v).iter().any(|t| t == "张伟"), "pinyin initials find people: {v}");
    assert!(v["data"]["records"][0]["hint"].is_string(), "a person is named with their department: {v}");
    // … without the right to manage companies or users.
    assert_eq!(post(&app, &pm, "/api/blade-scm/company/list", json!({"page": 1, "size": 10})).await.0, 403);
    assert_eq!(get(&app, &pm, "/api/blade-user/page").await.0, 403);
    let manager = v["data"]["records"][0]["id"].clone();
    let (_, c) = get(&app, &pm, "/api/blade-system/lookup?resource=company").await;
    let company_id = c["data"]["records"][0]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &pm, "/api/blade-scm/project/add", json!({"projectName": "新街口写字楼 18F 装修", "projectCompanyId": company_id, "businessUnit": 1, "startTime": "2026-12-01", "address": "南京市玄武区", "managerId": manager})).await;
    assert_eq!(s, 200, "the manager saves a project with its company and manager: {v}");
    // The depot clerk picks the project an outbound order issues material to.
    let keeper = who(&app, "liuqiang").await;
    let (s, v) = get(&app, &keeper, "/api/blade-system/lookup?resource=project&keyword=万科").await;
    assert_eq!(s, 200, "{v}");
    assert!(titles(&v).iter().all(|t| t.contains("万科")) && !titles(&v).is_empty(), "{v}");
    assert_eq!(post(&app, &keeper, "/api/blade-scm/project/list", json!({"page": 1})).await.0, 403);
    // Whoever has no form naming a kind cannot look it up: said as a refusal.
    let (s, v) = get(&app, &keeper, "/api/blade-system/lookup?resource=contract").await;
    assert_eq!(s, 403, "{v}");
    assert!(msg(&v).contains("contract"), "{v}");
    let (s, _) = get(&app, &pm, "/api/blade-system/lookup?resource=log_api").await;
    assert_eq!(s, 404, "logs are never looked up");
    // Titles of chosen records, for a form opened on a saved one.
    let (_, v) = get(&app, &pm, &format!("/api/blade-system/lookup?resource=company&ids={company_id}")).await;
    assert_eq!(v["data"]["records"].as_array().unwrap().len(), 1, "{v}");
    // People who can approve: no technical worker's account.
    let (_, all) = get(&app, &pm, "/api/blade-system/lookup?resource=user&size=50").await;
    let (_, staff) = get(&app, &pm, "/api/blade-system/lookup?resource=user&size=50&staff=1").await;
    assert!(titles(&all).iter().any(|t| t == "马志强"), "{all}");
    assert!(!titles(&staff).iter().any(|t| t == "马志强" || t == "朱刚"), "{staff}");
}
