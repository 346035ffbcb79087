//! Every shipped role does its own day's work with its seeded grants and nothing more (issue 55), on the demo
//! company (tenant 157270): 项目经理 张伟, 仓管员 刘强, 财务 李娜, 设计师 王芳 (an employee), 施工队长 陈杰. The
//! browser walks the same tasks (ui/tests/browser); here the API under each role's own token.
use serde_json::{Value, json};

use crate::support::{ADMIN_PW, App, get_json as get, msg, post_json as post};

const A: &str = "157270";

fn demo() -> App {
    let app = App::new();
    zhizhuang::seed::first_start(&app.st.store, &app.st.res, Some(ADMIN_PW), true, false).unwrap();
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
    // As people type a name's start: its first initials (wk, wkcs) or its spelling to a syllable's end (wanke).
    for typed in ["wk", "wanke"] {
        let (s, by_pinyin) = get(&app, &keeper, &format!("/api/blade-system/lookup?resource=project&keyword={typed}")).await;
        assert_eq!(s, 200, "{by_pinyin}");
        assert!(titles(&v).iter().filter(|t| t.starts_with("万科")).all(|t| titles(&by_pinyin).contains(t)), "{typed}: {by_pinyin}");
    }
    let (_, by_pinyin) = get(&app, &keeper, "/api/blade-system/lookup?resource=project&keyword=wkcs").await;
    assert!(!titles(&by_pinyin).is_empty() && titles(&by_pinyin).iter().all(|t| t.starts_with("万科城市")), "{by_pinyin}");
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
    // Forms pick people who can sign in (项目经理, 处理人); a worker's own 登录账号 is any account.
    let admin = who(&app, "admin").await;
    let refers = |schema: &Value, field: &str| schema["data"]["fields"].as_array().unwrap().iter().find(|f| f["name"] == field).unwrap()["refers"].clone();
    let (s, v) = get(&app, &admin, "/api/blade-scm/project/schema").await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(refers(&v, "managerId")["staff"], true, "{v}");
    let (_, v) = get(&app, &admin, "/worklist/order/schema").await;
    assert_eq!(refers(&v, "assigneeId")["staff"], true, "{v}");
    let (_, v) = get(&app, &admin, "/api/blade-scm/worker/schema").await;
    assert!(refers(&v, "userId")["staff"].is_null(), "{v}");
}

/// A picker narrowed by another choice of its form (`ui.within`): the accountant's 合同台账 filter offers the chosen
/// project's contracts only, the keeper's 库位 picker the chosen store's; nothing else filters a lookup.
#[tokio::test]
async fn a_picker_offers_only_the_records_of_the_other_choice() {
    let app = demo();
    let (admin, acc) = (who(&app, "admin").await, who(&app, "lina").await);
    let (s, v) = post(&app, &admin, "/api/blade-scm/contract/list", json!({"page": 1, "size": 200})).await;
    assert_eq!(s, 200, "{v}");
    let all = v["data"]["records"].as_array().unwrap().clone();
    // The project with the most contracts, and every contract's project.
    let mut by_project: std::collections::HashMap<String, Vec<String>> = Default::default();
    for c in &all {
        by_project.entry(c["projectId"].as_str().unwrap_or("").to_string()).or_default().push(c["id"].as_str().unwrap().to_string());
    }
    let (project, mine) = by_project.iter().filter(|(p, _)| !p.is_empty() && *p != "0").max_by_key(|(_, c)| c.len()).unwrap();
    assert!(mine.len() < all.len(), "the demo's contracts belong to several projects");
    let ids = |v: &Value| -> Vec<String> {
        let mut out: Vec<String> = v["data"]["records"].as_array().into_iter().flatten().map(|r| r["id"].as_str().unwrap().to_string()).collect();
        out.sort();
        out
    };
    let (s, v) = get(&app, &acc, &format!("/api/blade-system/lookup?resource=contract&size=50&projectId_equal={project}")).await;
    assert_eq!(s, 200, "{v}");
    let mut want = mine.clone();
    want.sort();
    assert_eq!(ids(&v), want, "the project's contracts, and only those: {v}");
    let (_, unnarrowed) = get(&app, &acc, "/api/blade-system/lookup?resource=contract&size=50").await;
    assert!(ids(&unnarrowed).len() > want.len(), "{unnarrowed}");
    // Only the fields a form narrows by: a lookup is not a filter over what its caller may not read.
    let (s, v) = get(&app, &acc, "/api/blade-system/lookup?resource=contract&contractAmount_equal=100").await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("contractAmount_equal"), "{v}");
    let (s, v) = get(&app, &acc, "/api/blade-system/lookup?resource=contract&projectId_equal=abc").await;
    assert_eq!(s, 400, "{v}");
    // The keeper's 库位 picker, narrowed by the store: every space offered lies in it.
    let keeper = who(&app, "liuqiang").await;
    let (s, stores) = get(&app, &keeper, "/api/blade-system/lookup?resource=store&size=50").await;
    assert_eq!(s, 200, "{stores}");
    let store = stores["data"]["records"][0]["id"].as_str().unwrap().to_string();
    let (s, v) = get(&app, &keeper, &format!("/api/blade-system/lookup?resource=storagespace&size=50&storeId_equal={store}")).await;
    assert_eq!(s, 200, "{v}");
    assert!(!ids(&v).is_empty(), "{v}");
    for id in ids(&v) {
        let (s, d) = get(&app, &admin, &format!("/api/blade-api/wms/storagespace/detail?id={id}")).await;
        assert_eq!(s, 200, "{d}");
        assert_eq!(d["data"]["storeId"].as_str().unwrap_or(""), store, "{d}");
    }
}

/// One set of figures (figures.rs): on the demo, every project's 合同总额 on its page is its 项目成本 合同收入, and
/// the console's 合同总额, 已收款 and 未收款 are the sums over the projects (and contracts without one); drafts are
/// not counted, a change is; the console's 产值 is invoiced work, which runs ahead of receipts.
#[tokio::test]
async fn figures_agree_across_screens() {
    let app = demo();
    let admin = who(&app, "admin").await;
    let (s, v) = post(&app, &admin, "/api/blade-scm/project/list", json!({"page": 1, "size": 100})).await;
    assert_eq!(s, 200, "{v}");
    let projects: Vec<String> = v["data"]["records"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap().to_string()).collect();
    assert!(projects.len() >= 5, "{v}");
    let fen = |v: &Value| -> i64 {
        let t = v.as_str().unwrap_or_else(|| panic!("{v}"));
        let (neg, t) = (t.starts_with('-'), t.trim_start_matches('-'));
        let (a, b) = t.split_once('.').unwrap_or((t, ""));
        let n = a.parse::<i64>().unwrap() * 100 + format!("{b:0<2}")[..2].parse::<i64>().unwrap();
        if neg { -n } else { n }
    };
    let (mut value, mut received, mut drafts, mut changes) = (0i64, 0i64, 0u64, 0i64);
    for p in &projects {
        let (s, f) = get(&app, &admin, &format!("/api/blade-scm/project/figures?projectId={p}")).await;
        assert_eq!(s, 200, "{f}");
        let (s, c) = get(&app, &admin, &format!("/api/blade-biz/bim/projectcost/getInformationDetails?projectId={p}")).await;
        assert_eq!(s, 200, "{c}");
        assert_eq!(fen(&f["data"]["contractValue"]), fen(&c["data"]["revenue"]), "project {p}: page {f} cost {c}");
        assert_eq!(fen(&f["data"]["received"]), fen(&c["data"]["received"]), "project {p}: page {f} cost {c}");
        // A project's total is its counted contracts' signed amounts and changes.
        assert_eq!(fen(&f["data"]["contractValue"]), fen(&f["data"]["signedAmount"]) + fen(&f["data"]["changeAmount"]), "{f}");
        value += fen(&f["data"]["contractValue"]);
        received += fen(&f["data"]["received"]);
        changes += fen(&f["data"]["changeAmount"]);
        drafts += f["data"]["drafts"].as_u64().unwrap();
    }
    assert!(drafts > 0 && changes > 0, "the demo has drafts and changes to leave out and to count: {drafts} {changes}");
    let (s, d) = get(&app, &admin, "/api/blade-biz/statistic/companyinfo").await;
    assert_eq!(s, 200, "{d}");
    // Contracts bound to no project count on the console only.
    let (s, l) = get(&app, &admin, "/api/blade-scm/contractledger/list?current=1&size=500").await;
    assert_eq!(s, 200, "{l}");
    let unbound: i64 = l["data"]["records"].as_array().unwrap().iter().filter(|x| x["projectId"].is_null() || x["projectId"] == "0" || x["projectId"] == "").map(|x| fen(&x["contractAmount"])).sum();
    assert_eq!(fen(&d["data"]["contractValue"]), value + unbound, "{d}");
    assert!(fen(&d["data"]["received"]) >= received, "{d}");
    assert_eq!(fen(&d["data"]["outstanding"]), fen(&d["data"]["contractValue"]) - fen(&d["data"]["received"]), "{d}");
    // 产值 (invoiced this year) is not 已收款: invoices lead the money.
    let (_, y) = post(&app, &admin, "/api/blade-biz/statistic/monthcarryovertarget", json!({})).await;
    let last = y["data"]["months"].as_array().unwrap().iter().rev().find(|m| fen(&m["actualToDate"]) > 0).cloned().unwrap_or(Value::Null);
    assert_ne!(fen(&last["actualToDate"]), fen(&d["data"]["received"]), "{y} {d}");
}

/// A desk shows what its user may see, or leaves the card out: the depot clerk may read no projects, so the map
/// is not his; the project manager's map counts the projects his data scope shows.
#[tokio::test]
async fn desks_show_real_figures_or_nothing() {
    let app = demo();
    let keeper = who(&app, "liuqiang").await;
    let (s, _) = get(&app, &keeper, "/api/blade-biz/statistic/desk").await;
    assert_eq!(s, 403, "the clerk's desk has no map or pie to fill");
    let pm = who(&app, "zhangwei").await;
    let (s, v) = get(&app, &pm, "/api/blade-biz/statistic/desk").await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["projectsAllowed"], true, "{v}");
    let counted: u64 = v["data"]["provinces"].as_array().unwrap().iter().map(|p| p["count"].as_u64().unwrap()).sum();
    let (_, l) = post(&app, &pm, "/api/blade-scm/project/list", json!({"page": 1, "size": 100})).await;
    let located = l["data"]["records"].as_array().unwrap().iter().filter(|p| p["regionCode"].as_str().is_some_and(|r| r.len() >= 2)).count() as u64;
    assert_eq!(counted, located, "the map counts what the project list shows him: {v} {l}");
    // Urgent tasks past their due time say so (they read 「… 到期」 days later).
    let (_, v) = get(&app, &pm, "/api/blade-flow/work/counts").await;
    let now = (chrono::Utc::now() + chrono::TimeDelta::hours(8)).format("%Y-%m-%d %H:%M:%S").to_string();
    let urgent = v["data"]["urgent"].as_array().unwrap();
    assert!(!urgent.is_empty(), "{v}");
    for u in urgent {
        let due = u["dueTime"].as_str().unwrap_or("");
        assert_eq!(u["overdue"], !due.is_empty() && due < now.as_str(), "{u}");
    }
}

/// 站内消息: an approver hears of the task, the applicant of the result, a handler of a work order given to them
/// and the requester of its reply, everyone of a notice; each reads and marks only their own.
#[tokio::test]
async fn messages_tell_people_what_happened_to_them() {
    let app = demo();
    let (pm, admin) = (who(&app, "zhangwei").await, who(&app, "admin").await);
    let unread = |t: String| {
        let app = &app;
        async move {
            let (s, v) = get(app, &t, "/api/blade-desk/message/unread-count").await;
            assert_eq!(s, 200, "{v}");
            v["data"].clone()
        }
    };
    // A notice tells everyone who can sign in.
    let before = unread(pm.clone()).await["count"].as_u64().unwrap();
    let (s, v) = post(&app, &admin, "/api/blade-desk/notice/submit", json!({"title": "元旦放假安排", "category": 1, "content": "<p>1月1日至3日放假</p>"})).await;
    assert_eq!(s, 200, "{v}");
    let now = unread(pm.clone()).await;
    assert_eq!(now["count"].as_u64().unwrap(), before + 1, "{now}");
    assert_eq!(now["latest"][0]["title"], "通知公告:元旦放假安排", "{now}");
    // It opens that notice over the notice list.
    let notice_id = v["data"]["id"].as_str().map(str::to_string).unwrap_or_else(|| v["data"]["id"].to_string());
    assert_eq!(now["latest"][0]["link"], format!("/desk/notice?open={notice_id}"), "{now}");
    let notice_msg = now["latest"][0]["id"].as_str().unwrap().to_string();
    // The employee applies for leave: his department leader (张伟 leads 工程部) is told of the task; approving it
    // tells the applicant.
    let wujun = who(&app, "wujun").await;
    // 员工 (吴军, 资料员) holds 请假, 我的事务 and 通知公告 alone; nobody but the administrator follows every
    // process (its list shows colleagues' leaves with their reasons).
    let (s, v) = post(&app, &wujun, "/api/blade-scm/contract/list", json!({})).await;
    assert_eq!(s, 403, "{v}");
    for t in [&wujun, &pm] {
        let (s, v) = get(&app, t, "/api/blade-flow/follow/list?current=1&size=10").await;
        assert_eq!(s, 403, "{v}");
    }
    // A working day well after the demo's own leaves of his (one person's leaves may not overlap), on any date.
    let mut day = chrono::Local::now().date_naive() + chrono::Days::new(40);
    loop {
        let (_, v) = get(&app, &wujun, &format!("/api/blade-desk/process/leave/days?startTime={day}%2009:00:00&endTime={day}%2018:00:00")).await;
        if v["data"]["days"] == "1" {
            break;
        }
        day = day + chrono::Days::new(1);
    }
    let (s, v) = post(&app, &wujun, "/api/blade-desk/process/leave/start-process", json!({"leaveType": "1", "startTime": format!("{day} 09:00:00"), "endTime": format!("{day} 18:00:00"), "reason": "搬家"})).await;
    assert_eq!(s, 200, "{v}");
    let m = unread(pm.clone()).await;
    let task = m["latest"].as_array().unwrap().iter().find(|x| x["title"].as_str().unwrap().starts_with("待办:请假流程")).unwrap_or_else(|| panic!("{m}")).clone();
    assert!(task["content"].as_str().unwrap().contains("吴军") && task["link"].as_str().unwrap().starts_with("/work/process/leave/handle/"), "{task}");
    let task_id = task["link"].as_str().unwrap().split('/').nth(5).unwrap().to_string();
    let (s, v) = post(&app, &pm, "/api/blade-flow/work/complete-task", json!({"taskId": task_id, "flag": "ok", "comment": "同意"})).await;
    assert_eq!(s, 200, "{v}");
    let w = unread(wujun.clone()).await;
    assert!(w["latest"].as_array().unwrap().iter().any(|x| x["title"] == "请假流程:已通过"), "{w}");
    // Reading: one's own only; another's id is not found; read-all empties the count.
    let (s, _) = post(&app, &wujun, "/api/blade-desk/message/read", json!({"ids": notice_msg})).await;
    assert_eq!(s, 404, "another user's message");
    // A notice opened from the desk or its list reads its message by the page it opens (one's own messages only).
    let link = format!("/desk/notice?open={notice_id}");
    let (s, v) = post(&app, &wujun, "/api/blade-desk/message/read", json!({"link": link})).await;
    assert_eq!((s, v["data"]["read"].as_u64()), (200, Some(1)), "his own message of the notice: {v}");
    let (s, v) = post(&app, &wujun, "/api/blade-desk/message/read", json!({"link": link})).await;
    assert_eq!((s, v["data"]["read"].as_u64()), (200, Some(0)), "nothing left unread there: {v}");
    let (s, v) = post(&app, &wujun, "/api/blade-desk/message/read", json!({"link": "https://evil.example/"})).await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = post(&app, &pm, "/api/blade-desk/message/read", json!({"ids": notice_msg})).await;
    assert_eq!((s, v["data"]["read"].as_u64()), (200, Some(1)), "张伟's copy stayed unread: {v}");
    let (_, v) = get(&app, &pm, "/api/blade-desk/message/list?current=1&size=50").await;
    assert!(v["data"]["records"].as_array().unwrap().iter().any(|x| x["id"] == notice_msg.as_str() && x["unread"] == false), "{v}");
    // Newest first is newest in time too: the demo writes its past months before its recent days (the bell
    // showed February's 审批结果 above this week's to-dos).
    let times: Vec<String> = v["data"]["records"].as_array().unwrap().iter().map(|x| x["createTime"].as_str().unwrap_or("").to_string()).collect();
    assert!(times.len() > 3 && times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");
    let (s, _) = post(&app, &pm, "/api/blade-desk/message/read-all", json!({})).await;
    assert_eq!(s, 200);
    assert_eq!(unread(pm.clone()).await["count"], 0);
    // Other tenants' users see none of it.
    let other = app.sign_in("741487", "admin", ADMIN_PW).await;
    let (_, v) = get(&app, &other, "/api/blade-desk/message/list?current=1&size=100").await;
    assert!(v["data"]["records"].as_array().unwrap().iter().all(|x| x["title"] != "通知公告:元旦放假安排"), "{v}");
}

/// 所在地区 is picked from the region table (省/市/区, by name or pinyin), and a made-up code is refused.
/// 站内消息 do not pile up for ever: read ones go after 90 days, any after a year; younger ones stay, read or not.
#[tokio::test]
async fn old_messages_are_pruned_read_ones_first() {
    let app = App::new();
    let put = |unread: i64| {
        let r = app.st.res.clone();
        let doc = json!({"userId": 4242, "kind": 1, "title": "测试消息", "content": "", "link": "", "unread": unread});
        app.st.store.write(move |w| Ok(w.insert(&r.get("message"), A, doc.as_object().unwrap().clone(), &store::Actor::default())?["id"].as_u64().unwrap())).unwrap()
    };
    let (read, unread) = (put(0), put(1));
    let left = |app: &App| {
        let r = app.st.res.clone();
        let mut ids: Vec<u64> = app.st.store.read(move |x| x.all(&r.get("message"), A)).unwrap().iter().filter(|m| m["userId"] == 4242).map(|m| m["id"].as_u64().unwrap()).collect();
        ids.sort();
        ids
    };
    let (now, day) = (store::now_millis(), 86_400_000i64);
    use zhizhuang::api::desk::message::{KEEP_DAYS, KEEP_READ_DAYS, prune};
    assert_eq!(prune(&app.st, now).await.unwrap(), 0);
    assert_eq!(prune(&app.st, now + (KEEP_READ_DAYS - 1) * day).await.unwrap(), 0, "a read message younger than 90 days stays");
    assert_eq!(prune(&app.st, now + (KEEP_READ_DAYS + 1) * day).await.unwrap(), 1);
    assert_eq!(left(&app), vec![unread], "the read one went, the unread one stays");
    assert!(read < unread);
    assert_eq!(prune(&app.st, now + (KEEP_DAYS + 1) * day).await.unwrap(), 1);
    assert!(left(&app).is_empty(), "after a year any message goes");
}

/// The hourly pass reads only the messages it has not looked at; one read after a pass looked at it goes with the
/// next full pass (made once a day).
#[tokio::test]
async fn the_hourly_message_pass_reads_only_new_messages() {
    let app = App::new();
    let r = app.st.res.clone();
    let doc = json!({"userId": 4243, "kind": 1, "title": "测试消息", "content": "", "link": "", "unread": 1});
    let id = app.st.store.write(move |w| Ok(w.insert(&r.get("message"), A, doc.as_object().unwrap().clone(), &store::Actor::default())?["id"].as_u64().unwrap())).unwrap();
    let (now, day) = (store::now_millis(), 86_400_000i64);
    use zhizhuang::api::desk::message::{KEEP_READ_DAYS, prune, prune_from};
    let mut walked = std::collections::HashMap::new();
    assert_eq!(prune_from(&app.st, now + (KEEP_READ_DAYS + 1) * day, &mut walked).await.unwrap(), 0, "unread: it stays");
    assert!(walked.get(A).is_some_and(|w| *w >= id), "the pass walked past it: {walked:?}");
    let r = app.st.res.clone();
    app.st.store.write(move |w| w.update(&r.get("message"), A, id, json!({"unread": 0}).as_object().unwrap().clone(), &store::Actor::default()).map(|_| ())).unwrap();
    assert_eq!(prune_from(&app.st, now + (KEEP_READ_DAYS + 2) * day, &mut walked).await.unwrap(), 0, "the next hourly pass does not look back");
    assert_eq!(prune(&app.st, now + (KEEP_READ_DAYS + 2) * day).await.unwrap(), 1, "the full pass finds it read");
}

#[tokio::test]
async fn regions_are_picked_not_typed() {
    let app = demo();
    let pm = who(&app, "zhangwei").await;
    let (s, v) = get(&app, &pm, "/api/blade-system/region/pick?parentCode=320100").await;
    assert_eq!(s, 200, "{v}");
    assert!(v["data"].as_array().unwrap().iter().any(|r| r["code"] == "320106" && r["name"] == "鼓楼区"), "{v}");
    let (_, v) = get(&app, &pm, "/api/blade-system/region/pick?keyword=gulou").await;
    assert!(v["data"].as_array().unwrap().iter().any(|r| r["title"] == "江苏省 / 南京市 / 鼓楼区"), "pinyin finds districts with their path: {v}");
    // Whole syllables before a longer spelling: qixia is 栖霞区 first, not 祁县 (qixian).
    let (_, v) = get(&app, &pm, "/api/blade-system/region/pick?keyword=qixia").await;
    assert_eq!(v["data"][0]["title"], "江苏省 / 南京市 / 栖霞区", "{v}");
    let (_, v) = get(&app, &pm, "/api/blade-system/region/pick?code=110101").await;
    assert_eq!(v["data"]["title"], "北京市 / 北京市 / 东城区", "{v}");
    let (s, _) = get(&app, &pm, "/api/blade-system/region/pick?parentCode=x").await;
    assert_eq!(s, 400);
    let (_, c) = get(&app, &pm, "/api/blade-system/lookup?resource=company").await;
    let company = c["data"]["records"][0]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &pm, "/api/blade-scm/project/add", json!({"projectName": "鼓楼医院门诊楼翻新", "projectCompanyId": company, "businessUnit": "TOB", "startTime": "2026-12-01", "regionCode": "329999"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("329999"), "{v}");
    let (_, me) = get(&app, &pm, "/api/blade-auth/oauth/user-info").await;
    let zw = me["data"]["userId"].as_str().or(me["data"]["user_id"].as_str()).unwrap_or_default().to_string();
    let (s, v) = post(&app, &pm, "/api/blade-scm/project/add", json!({"projectName": "鼓楼医院门诊楼翻新", "projectCompanyId": company, "businessUnit": "TOB", "startTime": "2026-12-01", "regionCode": "320106", "managerId": zw})).await;
    assert_eq!(s, 200, "{v}");
    // The demo's projects sit in their districts.
    let (_, l) = post(&app, &pm, "/api/blade-scm/project/list", json!({"page": 1, "size": 100})).await;
    assert!(l["data"]["records"].as_array().unwrap().iter().any(|p| p["regionCode"] == "320115"), "江宁区: {l}");
}

/// 短拣完成: the depot clerk picks what the bins hold, closes the rest short with a reason; the rest of the
/// reservation goes back to the stock, the order is picked and ships what was picked.
#[tokio::test]
async fn an_outbound_order_is_closed_short_and_ships_what_was_picked() {
    let app = demo();
    let keeper = who(&app, "liuqiang").await;
    const W: &str = "/api/blade-api/wms";
    let (_, v) = get(&app, &keeper, &format!("{W}/store/list?storeCode_equal=WH01")).await;
    let store = v["data"]["records"][0]["id"].as_str().unwrap().to_string();
    // Goods with stock in a bin of the store.
    let (_, v) = get(&app, &keeper, &format!("{W}/stockdata/list?storeId={store}&size=200")).await;
    let row = v["data"]["records"].as_array().unwrap().iter().find(|r| r["spaceId"].as_str().is_some_and(|s| s != "0") && r["qty"].as_str().and_then(|q| q.parse::<f64>().ok()).is_some_and(|q| q >= 10.0)).unwrap_or_else(|| panic!("{v}")).clone();
    let goods = row["goodsId"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &keeper, &format!("{W}/order/ck/submit"), json!({"storeId": store, "orderType": 1, "consignee": "王工"})).await;
    assert_eq!(s, 200, "{v}");
    let ck = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &keeper, &format!("{W}/mxck/submit"), json!({"orderId": ck, "goodsId": goods, "qty": "10"})).await;
    assert_eq!(s, 200, "the clerk writes the lines of his order: {v}");
    let line = v["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(post(&app, &keeper, &format!("{W}/order/ck/release"), json!({"id": ck})).await.0, 200);
    let (_, v) = get(&app, &keeper, &format!("{W}/down/goods_list?orderId={ck}")).await;
    let pick = v["data"]["records"][0].clone();
    let (s, v) = post(&app, &keeper, &format!("{W}/down/save"), json!({"lineId": line, "stockId": pick["stockId"], "qty": "6", "opId": "short-pick-1"})).await;
    assert_eq!(s, 200, "{v}");
    // Nothing to close without a reason; nothing but the open lines.
    let (s, _) = post(&app, &keeper, &format!("{W}/order/ck/close-short"), json!({"id": ck})).await;
    assert_eq!(s, 400);
    let (s, v) = post(&app, &keeper, &format!("{W}/order/ck/close-short"), json!({"id": ck, "reason": "A区货架实物不足"})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["orderStatus"], 3, "picked once every line is picked or short: {v}");
    let (_, v) = get(&app, &keeper, &format!("{W}/mxck/detail?id={line}")).await;
    assert_eq!((v["data"]["shortQty"].as_str(), v["data"]["reservedQty"].as_str(), v["data"]["shortReason"].as_str()), (Some("4"), Some("0"), Some("A区货架实物不足")), "{v}");
    let (_, v) = get(&app, &keeper, &format!("{W}/down/goods_list?orderId={ck}")).await;
    assert_eq!(v["data"]["records"].as_array().map(Vec::len), Some(0), "nothing left to pick: {v}");
    let (s, v) = post(&app, &keeper, &format!("{W}/order/ck/close-short"), json!({"id": ck, "reason": "再次"})).await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = post(&app, &keeper, &format!("{W}/order/ck/ship"), json!({"id": ck})).await;
    assert_eq!((s, v["data"]["orderStatus"].as_i64()), (200, Some(4)), "{v}");
    // The books agree (moves against balances, reservations against the lines).
    let res = app.st.res.clone();
    let audit = app.st.store.read(|r| zhizhuang::api::wms::ledger::audit(r, &res)).unwrap();
    assert!(audit.problems.is_empty(), "{:?}", audit.problems);
}

/// A receipt, review or put-away row carries its order's state (`ui.carry`), so the screen offers 删除 only where
/// the order still allows it (`ui.removeWhen`); a progress row carries its construct's code for its 详情 link.
#[tokio::test]
async fn document_lines_carry_what_their_screens_need() {
    let app = demo();
    let keeper = who(&app, "liuqiang").await;
    const W: &str = "/api/blade-api/wms";
    for res in ["received", "review", "up"] {
        let (s, v) = get(&app, &keeper, &format!("{W}/{res}/list?size=50")).await;
        assert_eq!(s, 200, "{v}");
        let recs = v["data"]["records"].as_array().unwrap();
        assert!(!recs.is_empty(), "the demo has {res} rows");
        for r in recs {
            let (_, o) = get(&app, &keeper, &format!("{W}/order/rk/detail?id={}", r["orderId"].as_str().unwrap())).await;
            assert_eq!(r["orderState"].as_str(), Some(o["data"]["orderStatus"].to_string().as_str()), "{res}: {r}");
        }
    }
    let pm = who(&app, "zhangwei").await;
    let (s, v) = post(&app, &pm, "/api/blade-scm/speed/progress/list", json!({"size": 20})).await;
    assert_eq!(s, 200, "{v}");
    let r = &v["data"]["records"][0];
    let (_, k) = post(&app, &pm, "/api/blade-scm/construct/list", json!({"size": 100})).await;
    let code = k["data"]["records"].as_array().unwrap().iter().find(|c| c["id"] == r["constructId"]).map(|c| c["constructCode"].clone());
    assert_eq!(Some(r["constructCode"].clone()), code, "{r}");
}

/// 员工 吴军 (资料员) sees the work orders he raised or was given (a demo data scope), raises his own, and reads the
/// company's documents.
#[tokio::test]
async fn an_employee_sees_his_work_orders_and_reads_documents() {
    let app = demo();
    let (admin, clerk) = (who(&app, "admin").await, who(&app, "wujun").await);
    let (_, v) = get(&app, &clerk, "/api/blade-auth/oauth/user-info").await;
    let wj = v["data"]["userId"].as_str().or(v["data"]["user_id"].as_str()).unwrap_or_default().to_string();
    let rows = |v: &Value| v["data"]["records"].as_array().cloned().unwrap_or_default();
    // 吴军: the work orders he raised or was given; he raises one and reads the company's documents.
    let (_, all) = post(&app, &admin, "/api/blade-biz/worklist/order/list", json!({"current": 1, "size": 200})).await;
    let (s, his) = post(&app, &clerk, "/api/blade-biz/worklist/order/list", json!({"current": 1, "size": 200})).await;
    assert_eq!(s, 200, "{his}");
    assert!(!rows(&his).is_empty() && rows(&his).len() < rows(&all).len(), "{his}");
    assert!(rows(&his).iter().all(|r| r["requesterId"] == wj.as_str() || r["assigneeId"] == wj.as_str()), "{his}");
    let (_, c) = get(&app, &clerk, "/api/blade-system/lookup?resource=worklist_category").await;
    let category = c["data"]["records"][0]["id"].clone();
    let (s, v) = post(&app, &clerk, "/api/blade-biz/worklist/order/submit", json!({"title": "资料室复印机卡纸", "categoryId": category, "priority": 2, "content": "二楼资料室复印机卡纸,请安排维修"})).await;
    assert_eq!(s, 200, "{v}");
    let (_, after) = post(&app, &clerk, "/api/blade-biz/worklist/order/list", json!({"current": 1, "size": 200})).await;
    assert_eq!(rows(&after).len(), rows(&his).len() + 1, "{after}");
    // Replies follow their orders: only those of his orders are listed, and none is posted onto another's.
    let visible: Vec<Value> = rows(&after).iter().map(|r| r["id"].clone()).collect();
    let (_, all_replies) = get(&app, &admin, "/api/blade-biz/worklist/reply/list?size=200").await;
    let (s, replies) = get(&app, &clerk, "/api/blade-biz/worklist/reply/list?size=200").await;
    assert_eq!(s, 200, "{replies}");
    assert!(rows(&replies).len() < rows(&all_replies).len(), "{replies}");
    assert!(rows(&replies).iter().all(|r| visible.contains(&r["orderId"])), "{replies}");
    let other = rows(&all).into_iter().find(|o| !visible.contains(&o["id"]) && o["orderStatus"].as_i64().is_some_and(|x| x < 3)).unwrap();
    let (s, v) = post(&app, &clerk, "/api/blade-biz/worklist/reply/submit", json!({"orderId": other["id"], "content": "我也来说一句"})).await;
    assert_eq!(s, 404, "a reply onto a work order he cannot see: {v}");
    let (s, v) = post(&app, &clerk, "/api/blade-scm/doc/list", json!({"current": 1, "size": 20})).await;
    assert_eq!((s, rows(&v).is_empty()), (200, false), "{v}");
    let (s, _) = post(&app, &clerk, "/api/blade-scm/doc/update", json!({"id": rows(&v)[0]["id"], "docName": "改名"})).await;
    assert_eq!(s, 403, "documents are his to read");
}

async fn step(app: &App, token: &str, id: &Value, to: i64) -> (u16, Value) {
    post(app, token, "/api/blade-biz/worklist/order/move", json!({"id": id, "orderStatus": to})).await
}

/// A work order is worked by its people: its 处理人 (a 员工 without worklist_order_edit) takes it in hand and
/// resolves it, its 提出人 closes or reopens it, each hears of the other's step; nobody else moves it. A 处理人 is
/// picked among those who may open work orders (a 仓管员 given one could never open it), and named so in a write.
#[tokio::test]
async fn a_work_order_is_moved_by_whoever_works_on_it() {
    let app = demo();
    let (pm, clerk, keeper, designer) = (who(&app, "sunli").await, who(&app, "wujun").await, who(&app, "liuqiang").await, who(&app, "wangfang").await);
    let user_id = |t: String| {
        let app = &app;
        async move {
            let (_, v) = get(app, &t, "/api/blade-auth/oauth/user-info").await;
            v["data"]["userId"].as_str().or(v["data"]["user_id"].as_str()).unwrap().to_string()
        }
    };
    let (wj, keeper_id) = (user_id(clerk.clone()).await, user_id(keeper.clone()).await);
    // The 处理人 picker offers those who may open work orders: 吴军, not 仓管员 刘强 nor 财务 李娜 nor a worker.
    let (s, v) = get(&app, &pm, "/api/blade-system/lookup?resource=user&staff=1&holds=worklist_order&size=50").await;
    assert_eq!(s, 200, "{v}");
    let offered = titles(&v);
    assert!(offered.iter().any(|t| t == "吴军") && offered.iter().any(|t| t == "张伟"), "{v}");
    assert!(!offered.iter().any(|t| t == "刘强" || t == "李娜" || t == "马志强"), "{v}");
    let (s, v) = get(&app, &pm, "/api/blade-system/lookup?resource=user&holds=user_delete").await;
    assert_eq!(s, 400, "only a code some form asks of its people: {v}");
    let (_, c) = get(&app, &pm, "/api/blade-system/lookup?resource=worklist_category").await;
    let category = c["data"]["records"][0]["id"].clone();
    let order = |title: &str, to: &str| json!({"title": title, "categoryId": category, "priority": 2, "content": "现场需要处理", "assigneeId": to});
    let (s, v) = post(&app, &pm, "/api/blade-biz/worklist/order/submit", order("电箱提前到货", &keeper_id)).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("刘强") && msg(&v).contains("处理人"), "{v}");
    // 孙丽 gives 吴军 an order; he starts and resolves it, though he holds no worklist_order_edit.
    let (s, v) = post(&app, &pm, "/api/blade-biz/worklist/order/submit", order("样板间踢脚线收口", &wj)).await;
    assert_eq!(s, 200, "{v}");
    let id = v["data"]["id"].clone();
    let (s, v) = post(&app, &clerk, "/api/blade-biz/worklist/order/submit", json!({"id": id, "orderStatus": 2})).await;
    assert_eq!(s, 403, "the generic save stays behind worklist_order_edit: {v}");
    let (s, v) = step(&app, &clerk, &id, 2).await;
    assert_eq!((s, v["data"]["orderStatus"].as_i64()), (200, Some(2)), "{v}");
    let (s, v) = step(&app, &clerk, &id, 3).await;
    assert_eq!((s, v["data"]["orderStatus"].as_i64()), (200, Some(3)), "{v}");
    let (s, v) = step(&app, &clerk, &id, 4).await;
    assert_eq!(s, 403, "closing is for whoever raised it: {v}");
    assert!(msg(&v).contains("提出人"), "{v}");
    let (_, m) = get(&app, &pm, "/api/blade-desk/message/unread-count").await;
    assert!(m["data"]["latest"].as_array().unwrap().iter().any(|x| x["title"] == "工单已解决:样板间踢脚线收口"), "{m}");
    // 吴军 raises one for 孙丽: she resolves it, he sends it back and later accepts it.
    let pm_id = user_id(pm.clone()).await;
    let (s, v) = post(&app, &clerk, "/api/blade-biz/worklist/order/submit", order("资料室打印机卡纸", &pm_id)).await;
    assert_eq!(s, 200, "{v}");
    let id = v["data"]["id"].clone();
    assert_eq!(step(&app, &pm, &id, 3).await.0, 200);
    let (s, v) = step(&app, &clerk, &id, 2).await;
    assert_eq!((s, v["data"]["orderStatus"].as_i64()), (200, Some(2)), "he reopens it: {v}");
    let (_, m) = get(&app, &pm, "/api/blade-desk/message/unread-count").await;
    assert!(m["data"]["latest"].as_array().unwrap().iter().any(|x| x["title"] == "工单被重新打开:资料室打印机卡纸"), "{m}");
    let (s, v) = step(&app, &clerk, &id, 3).await;
    assert_eq!(s, 403, "resolving is the handler's: {v}");
    assert_eq!(step(&app, &pm, &id, 3).await.0, 200);
    let (s, v) = step(&app, &clerk, &id, 4).await;
    assert_eq!((s, v["data"]["orderStatus"].as_i64()), (200, Some(4)), "he closes it: {v}");
    // Nobody else: a designer (who may read work orders) and the 仓管员 (who may not).
    let (s, v) = step(&app, &designer, &id, 2).await;
    assert!(s == 403 || s == 404, "{s} {v}");
    let (s, v) = step(&app, &keeper, &id, 2).await;
    assert_eq!(s, 403, "{v}");
    let (s, v) = post(&app, &clerk, "/api/blade-biz/worklist/order/move", json!({"id": id, "orderStatus": "x"})).await;
    assert_eq!(s, 400, "{v}");
    // An account that cannot sign in (disabled, or awaiting approval) is no 处理人, whatever its roles.
    let designer_id = user_id(designer.clone()).await;
    let (r, uid) = (app.st.res.clone(), designer_id.parse::<u64>().unwrap());
    app.st.store.write(move |w| w.update(&r.get("user"), A, uid, json!({"status": 0}).as_object().unwrap().clone(), &store::Actor::default()).map(|_| ())).unwrap();
    let (s, v) = post(&app, &pm, "/api/blade-biz/worklist/order/submit", order("样板间插座面板", &designer_id)).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("王芳") && msg(&v).contains("未启用"), "{v}");
}

/// The demo's dates follow each other: a node is done after its 施工单 started (and not after today), day work is
/// on a started site, a completed project ends after its last node was done.
#[tokio::test]
async fn the_demos_dates_follow_each_other() {
    let app = demo();
    let admin = who(&app, "admin").await;
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    let rows = |v: &Value| v["data"]["records"].as_array().cloned().unwrap_or_default();
    let day = |v: &Value| v.as_str().unwrap_or("").chars().take(10).collect::<String>();
    let (_, k) = post(&app, &admin, "/api/blade-scm/construct/list", json!({"current": 1, "size": 200})).await;
    let (_, p) = post(&app, &admin, "/api/blade-scm/project/list", json!({"current": 1, "size": 200})).await;
    let (_, t) = post(&app, &admin, "/api/blade-scm/speed/progress/list", json!({"current": 1, "size": 1000})).await;
    let (mut checked, mut day_work) = (0, 0);
    for c in rows(&k) {
        let start = day(&c["planStart"]);
        let done: Vec<String> = rows(&t).iter().filter(|r| r["constructId"] == c["id"] && !r["doneDate"].is_null()).map(|r| day(&r["doneDate"])).collect();
        for d in &done {
            assert!(*d >= start && *d <= today, "{} started {start}, a node done {d}", c["constructCode"]);
            checked += 1;
        }
        let (_, w) = post(&app, &admin, "/api/blade-scm/construct/day/worker/detail/list", json!({"constructId": c["id"], "size": 100})).await;
        for r in rows(&w) {
            assert!(day(&r["workDate"]) >= start, "{} started {start}, day work on {}", c["constructCode"], r["workDate"]);
            day_work += 1;
        }
        let project = rows(&p).into_iter().find(|x| x["id"] == c["projectId"]).unwrap();
        if project["projectStatus"] == 3 {
            let end = day(&project["endTime"]);
            assert!(done.iter().all(|d| *d <= end), "{} ended {end}, nodes done {done:?}", project["projectName"]);
        }
    }
    assert!(checked > 20 && day_work > 10, "{checked} nodes done, {day_work} day work records");
}

/// 项目经理 张伟 asks the depot for material: he reads the stock, raises a 领料单 (项目领料) for his project with its
/// lines and releases it to the depot; he follows his own requisitions (a demo data scope), not the sales.
#[tokio::test]
async fn a_project_manager_raises_and_follows_his_requisitions() {
    let app = demo();
    let (admin, pm, keeper) = (who(&app, "admin").await, who(&app, "zhangwei").await, who(&app, "liuqiang").await);
    const W: &str = "/api/blade-api/wms";
    let (_, v) = get(&app, &pm, "/api/blade-auth/oauth/user-info").await;
    let zw = v["data"]["userId"].as_str().or(v["data"]["user_id"].as_str()).unwrap_or_default().to_string();
    let rows = |v: &Value| v["data"]["records"].as_array().cloned().unwrap_or_default();
    let (_, all) = get(&app, &admin, &format!("{W}/order/ck/list?size=100")).await;
    let (s, mine) = get(&app, &pm, &format!("{W}/order/ck/list?size=100")).await;
    assert_eq!(s, 200, "{mine}");
    assert!(!rows(&mine).is_empty() && rows(&mine).len() < rows(&all).len(), "{mine}");
    assert!(rows(&mine).iter().all(|r| r["createUser"] == zw.as_str() && r["orderType"] == 2), "his requisitions only: {mine}");
    // Stock he can draw on.
    let (_, v) = get(&app, &pm, "/api/blade-system/lookup?resource=store").await;
    let store = v["data"]["records"][0]["id"].as_str().unwrap().to_string();
    let (s, v) = get(&app, &pm, &format!("{W}/stockdata/list?storeId={store}&size=200")).await;
    assert_eq!(s, 200, "{v}");
    let row = rows(&v).into_iter().find(|r| r["spaceId"].as_str().is_some_and(|x| x != "0") && r["available"].as_str().and_then(|q| q.parse::<f64>().ok()).is_some_and(|q| q >= 2.0)).unwrap_or_else(|| panic!("{v}"));
    let (_, v) = post(&app, &pm, "/api/blade-scm/project/list", json!({"current": 1, "size": 100})).await;
    let project = rows(&v).into_iter().find(|p| p["managerId"] == zw.as_str() && p["projectStatus"] == 2).unwrap()["id"].clone();
    let (s, v) = post(&app, &pm, &format!("{W}/order/ck/submit"), json!({"storeId": store, "orderType": 2, "projectId": project, "consignee": "张伟", "remark": "二楼吊顶补料"})).await;
    assert_eq!(s, 200, "{v}");
    let ck = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &pm, &format!("{W}/mxck/submit"), json!({"orderId": ck, "goodsId": row["goodsId"], "qty": "2"})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &pm, &format!("{W}/order/ck/release"), json!({"id": ck})).await;
    assert_eq!(s, 200, "released to the depot: {v}");
    // The keeper picks it from his list; the manager cannot pick, close short or ship.
    let (_, v) = get(&app, &keeper, &format!("{W}/order/ck/list?size=100")).await;
    assert!(rows(&v).iter().any(|r| r["id"] == ck.as_str()), "{v}");
    let (s, _) = get(&app, &pm, &format!("{W}/down/goods_list?orderId={ck}")).await;
    assert_eq!(s, 403);
    for route in ["ship", "close-short"] {
        let (s, _) = post(&app, &pm, &format!("{W}/order/ck/{route}"), json!({"id": ck, "reason": "x"})).await;
        assert_eq!(s, 403, "{route}");
    }
    // Lines follow their orders: only his orders' lines are listed, none is added to or changed on another's.
    let mine: Vec<Value> = { let (_, m) = get(&app, &pm, &format!("{W}/order/ck/list?size=100")).await; rows(&m).iter().map(|r| r["id"].clone()).collect() };
    let (_, lines) = get(&app, &pm, &format!("{W}/mxck/list?size=500")).await;
    assert!(!rows(&lines).is_empty() && rows(&lines).iter().all(|l| mine.contains(&l["orderId"])), "{lines}");
    let theirs = rows(&all).into_iter().find(|o| !mine.contains(&o["id"])).unwrap();
    let (s, v) = post(&app, &pm, &format!("{W}/mxck/submit"), json!({"orderId": theirs["id"], "goodsId": row["goodsId"], "qty": "1"})).await;
    assert_eq!(s, 404, "a line onto another's order: {v}");
    let (_, tl) = get(&app, &admin, &format!("{W}/mxck/list?orderId={}&size=5", theirs["id"].as_str().unwrap())).await;
    let line = rows(&tl)[0]["id"].clone();
    let (s, v) = post(&app, &pm, &format!("{W}/mxck/submit"), json!({"id": line, "qty": "1"})).await;
    assert_eq!(s, 404, "another's line changed: {v}");
    let (s, _) = get(&app, &pm, &format!("{W}/mxck/detail?id={}", line.as_str().unwrap())).await;
    assert_eq!(s, 404);
}

/// 项目经理 张伟 works on the projects he manages (a demo data scope on 项目: managerId) and on what belongs to
/// them, through each record's parent: their contracts, 施工单, and the 施工单's progress, measures and
/// attendance. Another manager's project and everything under it are a 404 to him: he neither reads, changes,
/// reassigns nor deletes them, nor adds a contract or 施工单 to them. The accountant and the admin see every project.
#[tokio::test]
async fn a_project_manager_keeps_to_the_projects_he_manages() {
    let app = demo();
    let (admin, pm, acc) = (who(&app, "admin").await, who(&app, "zhangwei").await, who(&app, "lina").await);
    let (_, v) = get(&app, &pm, "/api/blade-auth/oauth/user-info").await;
    let zw = v["data"]["userId"].as_str().or(v["data"]["user_id"].as_str()).unwrap_or_default().to_string();
    let rows = |v: &Value| v["data"]["records"].as_array().cloned().unwrap_or_default();
    let ids = |v: &Value| -> Vec<String> {
        let mut out: Vec<String> = rows(v).iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
        out.sort();
        out
    };
    let page = json!({"current": 1, "size": 200});
    let (_, all) = post(&app, &admin, "/api/blade-scm/project/list", page.clone()).await;
    let (s, his) = post(&app, &pm, "/api/blade-scm/project/list", page.clone()).await;
    assert_eq!(s, 200, "{his}");
    let mut want: Vec<String> = rows(&all).iter().filter(|p| p["managerId"] == zw.as_str()).map(|p| p["id"].as_str().unwrap().to_string()).collect();
    want.sort();
    assert!(!want.is_empty() && want.len() < rows(&all).len(), "the demo has projects of several managers");
    assert_eq!(ids(&his), want, "the projects he manages, and only those");
    let (_, seen) = post(&app, &acc, "/api/blade-scm/project/list", page.clone()).await;
    assert_eq!(ids(&seen).len(), rows(&all).len(), "the accountant sees every project");
    let theirs = rows(&all).into_iter().find(|p| p["managerId"] != zw.as_str()).unwrap();
    let tid = theirs["id"].as_str().unwrap().to_string();
    // Another manager's project: not read, changed, reassigned or deleted.
    let (s, _) = post(&app, &pm, &format!("/api/blade-scm/project/detail/{tid}"), json!({})).await;
    assert_eq!(s, 404);
    let (s, v) = post(&app, &pm, "/api/blade-scm/project/update", json!({"id": tid, "managerId": zw, "projectName": "改名"})).await;
    assert_eq!(s, 404, "{v}");
    let (s, _) = post(&app, &pm, &format!("/api/blade-scm/project/delete/{tid}"), json!({})).await;
    assert_eq!(s, 404);
    let (_, d) = post(&app, &admin, &format!("/api/blade-scm/project/detail/{tid}"), json!({})).await;
    assert_eq!(d["data"]["managerId"], theirs["managerId"], "unchanged: {d}");
    assert_eq!(d["data"]["projectName"], theirs["projectName"], "unchanged: {d}");
    // What belongs to a project follows it: contracts and 施工单 by their project …
    let (_, v) = post(&app, &pm, "/api/blade-scm/contract/list", page.clone()).await;
    assert!(!rows(&v).is_empty() && rows(&v).iter().all(|c| want.iter().any(|p| c["projectId"] == p.as_str())), "{v}");
    let (_, kall) = post(&app, &admin, "/api/blade-scm/construct/list", page.clone()).await;
    let (_, k) = post(&app, &pm, "/api/blade-scm/construct/list", page.clone()).await;
    let mut his_k: Vec<String> = rows(&kall).iter().filter(|c| want.iter().any(|p| c["projectId"] == p.as_str())).map(|c| c["id"].as_str().unwrap().to_string()).collect();
    his_k.sort();
    assert!(!his_k.is_empty());
    assert_eq!(ids(&k), his_k, "the 施工单 of his projects");
    let other_k = rows(&kall).into_iter().find(|c| c["projectId"] == tid.as_str()).unwrap();
    let okid = other_k["id"].as_str().unwrap().to_string();
    let (s, _) = post(&app, &pm, &format!("/api/blade-scm/construct/detail/{okid}"), json!({})).await;
    assert_eq!(s, 404);
    let (s, v) = post(&app, &pm, "/api/blade-scm/construct/update", json!({"id": okid, "managerId": zw})).await;
    assert_eq!(s, 404, "{v}");
    let (s, _) = post(&app, &pm, &format!("/api/blade-scm/construct/delete/{okid}/{tid}/1"), json!({})).await;
    assert_eq!(s, 404);
    let (s, v) = post(&app, &pm, "/api/blade-scm/contract/add", json!({"projectId": tid, "contractName": "补充协议", "contractAmount": "1000.00"})).await;
    assert_eq!(s, 404, "a contract onto another's project: {v}");
    let (s, v) = post(&app, &pm, "/api/blade-scm/construct/add", json!({"projectId": tid, "constructName": "二期"})).await;
    assert_eq!(s, 404, "a 施工单 onto another's project: {v}");
    // … and a 施工单's progress, measures and attendance by their 施工单, two parents up.
    let under = |v: &Value| rows(v).iter().all(|r| his_k.iter().any(|k| r["constructId"] == k.as_str()));
    let (s, v) = post(&app, &pm, "/api/blade-scm/speed/progress/list", json!({"current": 1, "size": 500})).await;
    assert_eq!(s, 200, "{v}");
    assert!(!rows(&v).is_empty() && under(&v), "progress of his 施工单 only: {v}");
    let (_, everyone) = post(&app, &admin, "/api/blade-scm/speed/progress/list", json!({"current": 1, "size": 500})).await;
    assert!(rows(&v).len() < rows(&everyone).len());
    let (s, v) = post(&app, &pm, "/api/blade-scm/measure/list", page.clone()).await;
    assert_eq!(s, 200, "{v}");
    assert!(under(&v), "{v}");
    let (s, v) = get(&app, &pm, "/api/blade-scm/worker/attendDay/page?current=1&size=500").await;
    assert_eq!(s, 200, "{v}");
    assert!(!rows(&v).is_empty() && under(&v), "attendance of his sites only: {v}");
    let (_, a) = get(&app, &admin, &format!("/api/blade-scm/worker/attendDay/page?current=1&size=50&constructId={okid}")).await;
    if let Some(day) = rows(&a).first() {
        let (s, v) = post(&app, &pm, "/api/blade-scm/worker/work-clock-in/reset", json!({"id": day["id"], "reason": "x"})).await;
        assert_eq!(s, 404, "another site's attendance reset: {v}");
    }
    // Work orders: those on his projects, and those he raised or was given; not those on hers.
    let (_, wall) = post(&app, &admin, "/api/blade-biz/worklist/order/list", json!({"current": 1, "size": 200})).await;
    let (s, w) = post(&app, &pm, "/api/blade-biz/worklist/order/list", json!({"current": 1, "size": 200})).await;
    assert_eq!(s, 200, "{w}");
    let his_order = |o: &Value| want.iter().any(|p| o["projectId"] == p.as_str()) || o["requesterId"] == zw.as_str() || o["assigneeId"] == zw.as_str();
    assert!(!rows(&w).is_empty() && rows(&w).iter().all(his_order), "{w}");
    let other = rows(&wall).into_iter().find(|o| !his_order(o)).expect("the demo has work orders of others");
    assert!(!ids(&w).contains(&other["id"].as_str().unwrap().to_string()));
    let (s, _) = get(&app, &pm, &format!("/api/blade-biz/worklist/order/detail?id={}", other["id"].as_str().unwrap())).await;
    assert_eq!(s, 404);
    // His own project he still changes.
    let (s, v) = post(&app, &pm, "/api/blade-scm/project/update", json!({"id": want[0], "remark": "周例会改到周三"})).await;
    assert_eq!(s, 200, "{v}");
}

/// 仓管员 刘强 plans a 移库: its 源储位 picker offers the bins of the chosen store that hold the chosen goods (through
/// their stock rows, empty ones left out), not every bin of the store.
#[tokio::test]
async fn a_transfers_source_bin_is_picked_among_the_bins_holding_the_goods() {
    let app = demo();
    let keeper = who(&app, "liuqiang").await;
    const W: &str = "/api/blade-api/wms";
    let rows = |v: &Value| v["data"]["records"].as_array().cloned().unwrap_or_default();
    let (s, stock) = get(&app, &keeper, &format!("{W}/stockdata/list?size=1000")).await;
    assert_eq!(s, 200, "{stock}");
    let qty = |r: &Value| r["qty"].as_str().and_then(|q| q.parse::<f64>().ok()).unwrap_or(0.0);
    // A goods held in some bins of a store, whose store has other bins too.
    let row = rows(&stock).into_iter().find(|r| qty(r) > 0.0 && r["spaceId"].as_str().is_some_and(|x| x != "0")).unwrap();
    let (goods, store) = (row["goodsId"].as_str().unwrap().to_string(), row["storeId"].as_str().unwrap().to_string());
    let mut want: Vec<String> = rows(&stock)
        .iter()
        .filter(|r| r["goodsId"] == goods.as_str() && r["storeId"] == store.as_str() && qty(r) > 0.0)
        .map(|r| r["spaceId"].as_str().unwrap().to_string())
        .collect();
    want.sort();
    want.dedup();
    let ids = |v: &Value| -> Vec<String> {
        let mut out: Vec<String> = rows(v).iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
        out.sort();
        out
    };
    let (s, v) = get(&app, &keeper, &format!("/api/blade-system/lookup?resource=storagespace&size=100&storeId_equal={store}&stockdata.goodsId={goods}")).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(ids(&v), want, "the store's bins holding the goods: {v}");
    let (_, every) = get(&app, &keeper, &format!("/api/blade-system/lookup?resource=storagespace&size=100&storeId_equal={store}")).await;
    assert!(ids(&every).len() > want.len(), "the store has other bins: {every}");
    // A bin emptied by a move is no longer offered.
    let emptied = rows(&stock).into_iter().find(|r| qty(r) == 0.0 && r["spaceId"].as_str().is_some_and(|x| x != "0"));
    if let Some(e) = emptied {
        let (_, v) = get(&app, &keeper, &format!("/api/blade-system/lookup?resource=storagespace&size=100&storeId_equal={}&stockdata.goodsId={}", e["storeId"].as_str().unwrap(), e["goodsId"].as_str().unwrap())).await;
        let held = rows(&stock).iter().any(|r| r["goodsId"] == e["goodsId"] && r["spaceId"] == e["spaceId"] && qty(r) > 0.0);
        assert!(held || !ids(&v).contains(&e["spaceId"].as_str().unwrap().to_string()), "an empty bin offered: {v}");
    }
    // Only joins some form declares.
    let (s, v) = get(&app, &keeper, &format!("/api/blade-system/lookup?resource=storagespace&stockdata.storeId={store}")).await;
    assert_eq!(s, 400, "{v}");
}

/// What 张伟 names and adds stays within what he may see (a break-it review of his project scope): no 复盘 or
/// 领料单 on a colleague's project, no approval file for her 施工单; the approval records he reads are of 施工单 he
/// may see. What he needs still works: a contract not yet bound to a project is his to see and bind; a 施工单
/// dispatched to him on a colleague's project is his; a project he adds names him as its manager (refused
/// otherwise: he would never see it again).
#[tokio::test]
async fn what_a_project_manager_names_and_adds_stays_his() {
    let app = demo();
    let (admin, pm) = (who(&app, "admin").await, who(&app, "zhangwei").await);
    let (_, v) = get(&app, &pm, "/api/blade-auth/oauth/user-info").await;
    let zw = v["data"]["userId"].as_str().or(v["data"]["user_id"].as_str()).unwrap_or_default().to_string();
    let rows = |v: &Value| v["data"]["records"].as_array().cloned().unwrap_or_default();
    let page = json!({"current": 1, "size": 200});
    let (_, all) = post(&app, &admin, "/api/blade-scm/project/list", page.clone()).await;
    let theirs = rows(&all).into_iter().find(|p| p["managerId"] != zw.as_str()).unwrap();
    let mine = rows(&all).into_iter().find(|p| p["managerId"] == zw.as_str()).unwrap();
    let tid = theirs["id"].as_str().unwrap().to_string();
    // A 复盘 with its items on her project.
    let (s, v) = post(&app, &pm, "/api/blade-scm/replay/add/item", json!({"replayName": "越权复盘", "projectId": tid, "replayDate": "2026-11-20", "summary": "x", "items": []})).await;
    assert_eq!(s, 404, "{v}");
    // A 领料单 for her project.
    let (_, st) = get(&app, &pm, "/api/blade-system/lookup?resource=store").await;
    let store = st["data"]["records"][0]["id"].clone();
    let (s, v) = post(&app, &pm, "/api/blade-api/wms/order/ck/submit", json!({"storeId": store, "orderType": 2, "projectId": tid, "consignee": "x", "phone": "13800000000", "address": "x"})).await;
    assert_eq!(s, 404, "a requisition on another's project: {v}");
    // A file for her 施工单's approval.
    let (_, kall) = post(&app, &admin, "/api/blade-scm/construct/list", page.clone()).await;
    // Hers, one with an application if there is one (opened below through 审批记录 once it is dispatched to him).
    let (_, apps) = post(&app, &admin, "/api/blade-scm/flowable/approval/record/list", json!({"page": 1, "size": 100})).await;
    let her: Vec<Value> = rows(&kall).into_iter().filter(|k| k["projectId"] == tid.as_str()).collect();
    let her_k = her.iter().find(|k| rows(&apps).iter().any(|a| a["constructId"] == k["id"])).unwrap_or(&her[0]).clone();
    let hk = her_k["id"].as_str().unwrap().to_string();
    let (s, v) = app.upload(&pm, &format!("/api/blade-scm/flowable/approval/file/upload?applyType=2&businessId={hk}"), "图纸.pdf", b"%PDF-1.4 x".to_vec()).await;
    assert_eq!(s, 404, "{v}");
    // The approval records he reads: his own applications or those on 施工单 he may see.
    let (_, his_k) = post(&app, &pm, "/api/blade-scm/construct/list", page.clone()).await;
    let seen: Vec<Value> = rows(&his_k).iter().map(|k| k["id"].clone()).collect();
    let (s, v) = post(&app, &pm, "/api/blade-scm/flowable/approval/record/list", json!({"page": 1, "size": 100})).await;
    assert_eq!(s, 200, "{v}");
    let (_, every) = post(&app, &admin, "/api/blade-scm/flowable/approval/record/list", json!({"page": 1, "size": 100})).await;
    assert!(rows(&v).len() < rows(&every).len(), "{v}");
    assert!(rows(&v).iter().all(|r| seen.contains(&r["constructId"])), "{v}");
    // A contract he adds bound to no project: he sees it and binds it to his project. One she adds is not his to
    // see, change or take.
    let (s, v) = post(&app, &pm, "/api/blade-scm/contract/add", json!({"contractName": "18F 吊顶增项", "partyName": "南京恒安建设", "contractAmount": "12000.00"})).await;
    assert_eq!(s, 200, "{v}");
    let cid = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &pm, &format!("/api/blade-scm/contract/detail/{cid}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &pm, "/api/blade-scm/project/contract/bind", json!({"projectId": mine["id"], "contractIds": cid})).await;
    assert_eq!(s, 200, "{v}");
    let sl = who(&app, "sunli").await;
    let (s, v) = post(&app, &sl, "/api/blade-scm/contract/add", json!({"contractName": "幕墙清洗补充", "partyName": "机密甲方", "contractAmount": "50000.00"})).await;
    assert_eq!(s, 200, "{v}");
    let hers = v["data"]["id"].as_str().unwrap().to_string();
    let (s, _) = post(&app, &pm, &format!("/api/blade-scm/contract/detail/{hers}"), json!({})).await;
    assert_eq!(s, 404, "her unbound contract");
    let (s, _) = post(&app, &pm, "/api/blade-scm/contract/update", json!({"id": hers, "contractAmount": "1.00"})).await;
    assert_eq!(s, 404);
    let (s, _) = post(&app, &pm, "/api/blade-scm/project/contract/bind", json!({"projectId": mine["id"], "contractIds": hers})).await;
    assert_eq!(s, 404);
    // A 施工单 dispatched to him on her project is his to work on (the project stays hers) and to ask material for.
    let (s, v) = post(&app, &admin, "/api/blade-scm/construct/assign/manager", json!({"id": hk, "managerId": zw})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &pm, &format!("/api/blade-scm/construct/detail/{hk}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &pm, "/api/blade-scm/construct/update", json!({"id": hk, "remark": "周三进场"})).await;
    assert_eq!(s, 200, "he updates the 施工单 dispatched to him: {v}");
    let (s, _) = post(&app, &pm, &format!("/api/blade-scm/project/detail/{tid}"), json!({})).await;
    assert_eq!(s, 404, "the project stays hers");
    // Its applications (she applied) are listed in his 审批记录 and open.
    let (_, v) = post(&app, &pm, "/api/blade-scm/flowable/approval/record/list", json!({"page": 1, "size": 100})).await;
    let on_k: Vec<Value> = rows(&v).into_iter().filter(|a| a["constructId"] == hk.as_str()).collect();
    assert_eq!(on_k.len(), rows(&apps).iter().filter(|a| a["constructId"] == hk.as_str()).count(), "{v}");
    assert!(!on_k.is_empty(), "the demo has applications on her 施工单: {v}");
    for a in &on_k {
        let (s, r) = post(&app, &pm, &format!("/api/blade-scm/flowable/approval/record/{}", a["taskGroupId"].as_str().unwrap()), json!({})).await;
        assert_eq!(s, 200, "a listed application opens: {r}");
        let (s, r) = get(&app, &pm, &format!("/api/blade-flow/process/diagram?processInstanceId={}", a["taskGroupId"].as_str().unwrap())).await;
        assert_eq!(s, 200, "and its diagram: {r}");
    }
    let (s, v) = post(&app, &pm, "/api/blade-api/wms/order/ck/submit", json!({"storeId": store, "orderType": 2, "constructId": hk, "consignee": "张伟", "phone": "13800000000", "address": "工地"})).await;
    assert_eq!(s, 200, "a requisition for the 施工单 dispatched to him: {v}");
    assert_eq!(v["data"]["projectId"].as_str(), Some(tid.as_str()), "for its project: {v}");
    // A project he adds names him as its manager.
    let (_, c) = get(&app, &pm, "/api/blade-system/lookup?resource=company").await;
    let company = c["data"]["records"][0]["id"].clone();
    let base = json!({"projectName": "新街口写字楼 19F 装修", "projectCompanyId": company, "businessUnit": 1, "startTime": "2026-12-01", "address": "南京市玄武区"});
    let (s, v) = post(&app, &pm, "/api/blade-scm/project/add", base.clone()).await;
    assert_eq!(s, 403, "without a manager he would never see it: {v}");
    assert!(msg(&v).contains("数据权限"), "{v}");
    let mut with_him = base.clone();
    with_him["managerId"] = json!(zw);
    let (s, v) = post(&app, &pm, "/api/blade-scm/project/add", with_him).await;
    assert_eq!(s, 200, "{v}");
    let (_, after) = post(&app, &admin, "/api/blade-scm/project/list", page.clone()).await;
    assert_eq!(rows(&after).len(), rows(&all).len() + 1, "the refused one was not saved");
}

/// The scopes of a user's roles combine as a union, through parents too: a 项目经理 who is also a contract clerk
/// (a role reading contracts without a scope, and no projects) reads every contract, while his projects stay his.
#[tokio::test]
async fn a_second_role_that_reads_without_a_scope_opens_what_the_first_sees_through_parents() {
    let app = demo();
    app.make_role(A, "contract_clerk", &["scm", "contract", "contract_view"]).await;
    app.make_user(A, "pm_clerk", ADMIN_PW, &["project_manager", "contract_clerk"]).await;
    let (admin, both, pm) = (who(&app, "admin").await, who(&app, "pm_clerk").await, who(&app, "zhangwei").await);
    let rows = |v: &Value| v["data"]["records"].as_array().cloned().unwrap_or_default();
    let page = json!({"current": 1, "size": 200});
    let (_, all) = post(&app, &admin, "/api/blade-scm/contract/list", page.clone()).await;
    let (s, v) = post(&app, &both, "/api/blade-scm/contract/list", page.clone()).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(rows(&v).len(), rows(&all).len(), "every contract: {v}");
    let (_, only_pm) = post(&app, &pm, "/api/blade-scm/contract/list", page.clone()).await;
    assert!(rows(&only_pm).len() < rows(&all).len(), "a 项目经理 alone reads his projects' contracts");
    let (_, projects) = post(&app, &both, "/api/blade-scm/project/list", page.clone()).await;
    assert!(rows(&projects).is_empty(), "he manages no project: {projects}");
}
