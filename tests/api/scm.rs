//! 业务管理 (`/api/blade-scm/...`): the scm route dialect served from declarations, and the rules of projects,
//! contracts and constructs: codes, money in fen, path segments checked against their parents, status
//! transitions with their preconditions and messages, change records, tenant isolation.
use serde_json::{Value, json};

use crate::support::App;

const A: &str = "157270";
const B: &str = "741487";
const S: &str = "/api/blade-scm";

async fn post(app: &App, t: &str, url: &str, body: Value) -> (u16, Value) {
    let (s, v) = app.post(url, t, &body.to_string()).await;
    (s.as_u16(), v)
}

fn id(v: &Value) -> String {
    v["data"]["id"].as_str().unwrap_or_else(|| panic!("no id in {v}")).to_string()
}

fn msg(v: &Value) -> String {
    v["msg"].as_str().unwrap_or("").to_string()
}

/// A company, a customer, a trade with a level and two workers of tenant `t`: (company, customer, job, worker1, worker2).
async fn basics(app: &App, t: &str, tag: &str) -> (String, String, String, String, String) {
    let (s, v) = post(app, t, &format!("{S}/company/add"), json!({"companyName": format!("{tag}装饰分公司"), "companyType": 1})).await;
    assert_eq!(s, 200, "{v}");
    let company = id(&v);
    let (s, v) = post(app, t, &format!("{S}/customer/save"), json!({"customerName": format!("{tag}业主"), "customerType": 1, "phone": "13800138000"})).await;
    assert_eq!(s, 200, "{v}");
    let customer = id(&v);
    let (s, v) = post(app, t, &format!("{S}/workerJob/save"), json!({"jobName": format!("{tag}木工")})).await;
    assert_eq!(s, 200, "{v}");
    let job = id(&v);
    let (s, v) = post(app, t, &format!("{S}/workerJobLevel/save"), json!({"workerJobId": job, "levelName": "高级", "dayRate": "420.50"})).await;
    assert_eq!(s, 200, "{v}");
    let level = id(&v);
    let mut workers = Vec::new();
    for (i, name) in ["张三", "李四"].iter().enumerate() {
        let phone = format!("139{}{:07}", if tag == "A" { 1 } else { 2 }, i);
        let (s, v) = post(app, t, &format!("{S}/worker/add"), json!({"workerName": name, "phone": phone, "idCard": "320102199001011234", "workerJobId": job, "workerJobLevelId": level, "teamName": "一组"})).await;
        assert_eq!(s, 200, "{v}");
        workers.push(id(&v));
    }
    (company, customer, job, workers[0].clone(), workers[1].clone())
}

#[tokio::test]
async fn a_project_runs_from_contract_to_completed_construct() {
    let app = App::new();
    let t = app.admin(A).await;
    let (company, customer, job, w1, w2) = basics(&app, &t, "A").await;

    // Project: code generated per tenant and day, list in the scm dialect (POST, body filters, size 6).
    let mut projects = Vec::new();
    for (i, start) in ["2026-03-01", "2026-05-10", "2026-09-20"].iter().enumerate() {
        let (s, v) = post(&app, &t, &format!("{S}/project/add"), json!({"projectName": format!("滨江花园{i}期"), "projectCompanyId": company, "customerId": customer, "businessUnit": "TOC", "startTime": start, "address": "南京市建邺区"})).await;
        assert_eq!(s, 200, "{v}");
        let code = v["data"]["projectCode"].as_str().unwrap();
        assert!(code.starts_with("XM") && code.len() == "XM20261122-0001".len(), "{code}");
        assert_eq!(v["data"]["projectCompanyName"], "A装饰分公司", "{v}");
        projects.push(id(&v));
    }
    let (s, v) = post(&app, &t, &format!("{S}/project/list"), json!({"projectCompanyId": company, "startTime": "2026-04-01", "endTime": "2026-12-31"})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["total"], 2, "{v}");
    assert_eq!(v["data"]["size"], 6, "project list default size 6: {v}");
    let (_, v) = post(&app, &t, &format!("{S}/project/list"), json!({"page": 2, "size": 2})).await;
    assert_eq!(v["data"]["current"], 2, "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/project/list"), json!({"bogus": 1})).await;
    assert_eq!(s, 400, "an undeclared filter is refused by name: {v}");
    let (s, v) = post(&app, &t, &format!("{S}/project/add"), json!({"projectName": "x", "projectCompanyId": "999", "businessUnit": "TOC", "startTime": "2026-01-01"})).await;
    assert_eq!((s, msg(&v).contains("所属公司不存在")), (400, true), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/project/add"), json!({"projectName": "x", "projectCompanyId": company, "businessUnit": "TOC", "startTime": "2026-05-01", "endTime": "2026-04-01"})).await;
    assert_eq!((s, msg(&v).as_str()), (400, "结束时间不能早于开始时间"), "{v}");
    let project = projects[0].clone();
    let (s, v) = post(&app, &t, &format!("{S}/project/detail/{project}"), json!({})).await;
    assert_eq!((s, v["data"]["customerName"].as_str()), (200, Some("A业主")), "{v}");

    // Contract: money exact in fen, a draft until signed; bound to the project.
    let (s, v) = post(&app, &t, &format!("{S}/contract/add"), json!({"contractName": "精装修施工合同", "partyName": "A业主", "contractAmount": "1280000.10"})).await;
    assert_eq!(s, 200, "{v}");
    let contract = id(&v);
    assert_eq!(v["data"]["contractAmount"], "1280000.10");
    assert_eq!(v["data"]["contractStatus"], 0);
    assert!(v["data"]["contractCode"].as_str().unwrap().starts_with("HT"));
    let (s, v) = post(&app, &t, &format!("{S}/contract/add"), json!({"contractName": "x", "partyName": "y", "contractAmount": 1.005})).await;
    assert_eq!(s, 400, "three decimals are not money: {v}");
    let (s, v) = post(&app, &t, &format!("{S}/contract/unsigned/list/{project}"), json!({})).await;
    assert_eq!((s, v["data"]["total"].as_u64()), (200, Some(1)), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/project/contract/bind"), json!({"projectId": project, "contractIds": contract})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/contract/unsigned/list/{project}"), json!({})).await;
    assert_eq!(v["data"]["total"], 0, "{v}");
    // Bound elsewhere: refused with its code.
    let (s, v) = post(&app, &t, &format!("{S}/project/contract/bind"), json!({"projectId": projects[1], "contractIds": contract})).await;
    assert_eq!((s, msg(&v).contains("已绑定其他项目")), (400, true), "{v}");
    // Status may not skip: draft → executing is refused, naming both states.
    let (s, v) = post(&app, &t, &format!("{S}/contract/update"), json!({"id": contract, "contractStatus": 2})).await;
    assert_eq!((s, msg(&v).as_str()), (400, "合同状态不能由「草稿」变更为「执行中」"), "{v}");
    let (s, v) = app.req("POST", &format!("{S}/contract/update"), Some(&t), Some(&json!({"id": contract, "contractStatus": 2}).to_string()), &[("accept-language", "en")]).await;
    assert_eq!((s.as_u16(), msg(&v).as_str()), (400, "The contract cannot go from draft to executing"), "{v}");

    // Construct: needs a contract of its own project; picker lists unassigned contracts.
    let (s, v) = post(&app, &t, &format!("{S}/project/unassigned/construct/contract/list/{project}/0"), json!({})).await;
    assert_eq!((s, v["data"].as_array().map(Vec::len)), (200, Some(1)), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/add"), json!({"constructName": "主卧精装", "projectId": projects[1], "contractId": contract, "constructMode": 1})).await;
    assert_eq!((s, msg(&v).contains("不属于该项目")), (400, true), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/add"), json!({"constructName": "主卧精装", "projectId": project, "contractId": contract, "constructMode": 1, "modelStatus": 3})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["modelStatus"], 1, "a new construct starts to inspect: {v}");
    let construct = id(&v);
    let (_, v) = post(&app, &t, &format!("{S}/project/unassigned/construct/contract/list/{project}/0"), json!({})).await;
    assert_eq!(v["data"].as_array().map(Vec::len), Some(0), "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/project/unassigned/construct/contract/list/{project}/{construct}"), json!({})).await;
    assert_eq!(v["data"].as_array().map(Vec::len), Some(1), "the construct's own contract stays pickable: {v}");
    // A contract a construct uses is not unbound.
    let (s, v) = post(&app, &t, &format!("{S}/project/contract/delete/{project}/{contract}/0"), json!({})).await;
    assert_eq!((s, msg(&v).contains("不能解绑")), (400, true), "{v}");

    // Transitions: 1 → 2 needs a manager; 2 → 3 needs a crew and a signed contract; no skipping.
    let up = |to: i64| json!({"id": construct, "modelStatus": to});
    let (s, v) = post(&app, &t, &format!("{S}/construct/update"), up(3)).await;
    assert_eq!((s, msg(&v).as_str()), (400, "施工单状态不能由「待勘察」变更为「施工中」"), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/update"), up(2)).await;
    assert_eq!((s, msg(&v).as_str()), (400, "请先指定项目经理,再转为待派单"), "{v}");
    let (_, me) = app.get("/api/blade-auth/oauth/user-info", &t).await;
    let me = me["data"]["userId"].as_str().or(me["data"]["user_id"].as_str()).map(str::to_string).unwrap_or_default();
    let (s, v) = post(&app, &t, &format!("{S}/construct/assign/manager"), json!({"id": construct, "managerId": me})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/update"), up(2)).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/update"), up(3)).await;
    assert_eq!((s, msg(&v).as_str()), (400, "请先绑定施工班组或点工,再开始施工"), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/worker/bind/{construct}/{w1}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/worker/bind/{construct}/{w1}"), json!({})).await;
    assert_eq!((s, msg(&v).as_str()), (400, "该工人已在此施工单的班组中"), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/update"), up(3)).await;
    assert_eq!((s, msg(&v).as_str()), (400, "合同尚未签订,不能开始施工"), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/contract/update"), json!({"id": contract, "contractStatus": 1})).await;
    assert_eq!(s, 200, "{v}");
    assert!(v["data"]["signDate"].as_str().is_some_and(|d| d.len() == 10), "signing dates the contract: {v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/update"), up(3)).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/contract/detail/{contract}"), json!({})).await;
    assert_eq!(v["data"]["contractStatus"], 2, "construction start moves the contract to executing: {v}");

    // Crew and day work.
    let (s, v) = post(&app, &t, &format!("{S}/construct/worker/list"), json!({"constructId": construct})).await;
    assert_eq!((s, v["data"]["records"][0]["workerName"].as_str()), (200, Some("张三")), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/worker/unbind/{construct}/{w1}"), json!({})).await;
    assert_eq!((s, msg(&v).contains("至少保留一名工人")), (400, true), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/worker/unbind/{construct}/{w2}"), json!({})).await;
    assert_eq!(s, 404, "not bound: {v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/day/worker/bind"), json!({"constructId": construct, "workerId": w2, "workDate": "2026-11-20", "workDays": "1.5"})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!((v["data"]["dayRate"].as_str(), v["data"]["amount"].as_str()), (Some("420.50"), Some("630.75")), "1.5 days × 420.50 from the level: {v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/day/worker/list"), json!({"constructId": construct})).await;
    assert_eq!((s, v["data"][0]["amount"].as_str()), (200, Some("630.75")), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/day/worker/detail/list"), json!({"constructId": construct, "workerId": w2})).await;
    assert_eq!((s, v["data"]["total"].as_u64()), (200, Some(1)), "{v}");

    // Completion; then read-only. A construct under way is not removed.
    let (s, v) = post(&app, &t, &format!("{S}/construct/delete/{construct}/{project}/1"), json!({})).await;
    assert_eq!((s, msg(&v).contains("不能删除")), (400, true), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/update"), up(4)).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/update"), json!({"id": construct, "remark": "x"})).await;
    assert_eq!((s, msg(&v).as_str()), (400, "已完工的施工单不能修改"), "{v}");

    // The contract's operation record: who, when, before and after, newest first.
    let (s, v) = post(&app, &t, &format!("{S}/contract/ope/record/{contract}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let recs = v["data"].as_array().unwrap();
    assert!(recs.len() >= 4, "add, bind, sign, executing: {v}");
    assert!(recs.iter().any(|r| r["changes"].as_array().unwrap().iter().any(|c| c["field"] == "contractStatus" && c["before"] == 1 && c["after"] == 2)), "{v}");
    assert!(recs.iter().all(|r| r["operatorName"].as_str().is_some_and(|n| !n.is_empty()) && r["createTime"].is_string()), "{v}");
    assert_eq!(recs.last().unwrap()["action"], "add", "newest first: {v}");

    // Removal rules: a signed contract, a company a project names, a trade workers hold.
    let (s, v) = post(&app, &t, &format!("{S}/contract/delete/{contract}/{project}"), json!({})).await;
    assert_eq!((s, msg(&v).contains("只能删除草稿合同")), (400, true), "{v}");
    let (s, v) = app.req("POST", &format!("{S}/company/remove?ids={company}"), Some(&t), None, &[]).await;
    assert_eq!((s.as_u16(), msg(&v).contains("仍有项目管理引用")), (400, true), "{v}");
    let (s, v) = app.req("POST", &format!("{S}/workerJob/remove?ids={job}"), Some(&t), None, &[]).await;
    assert_eq!(s.as_u16(), 400, "{v}");

    // Worker: ID number masked, kept whole when the masked value comes back.
    let (_, v) = post(&app, &t, &format!("{S}/worker/detail/{w1}"), json!({})).await;
    assert_eq!(v["data"]["idCard"], "3201**********1234", "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/worker/update"), json!({"id": w1, "idCard": "3201**********1234", "teamName": "二组"})).await;
    assert_eq!((s, v["data"]["teamName"].as_str()), (200, Some("二组")), "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/worker/page/down/list"), json!({"workerName": "张"})).await;
    assert_eq!(v["data"]["records"][0]["idCard"], "3201**********1234", "{v}");
    let stored = app.st.store.read(|r| r.get(&app.st.res.get("worker"), A, w1.parse().unwrap())).unwrap().unwrap();
    assert_eq!(stored["idCard"], "320102199001011234");
}

#[tokio::test]
async fn path_segments_name_the_parent_and_other_tenants_see_nothing() {
    let app = App::new();
    let a = app.admin(A).await;
    let b = app.admin(B).await;
    let (company, _, job, w1, _) = basics(&app, &a, "A").await;
    let (_, _, job_b, _, _) = basics(&app, &b, "B").await;
    let mut projects = Vec::new();
    for name in ["一号项目", "二号项目"] {
        let (_, v) = post(&app, &a, &format!("{S}/project/add"), json!({"projectName": name, "projectCompanyId": company, "businessUnit": "TOB", "startTime": "2026-01-01"})).await;
        projects.push(id(&v));
    }
    let (_, v) = post(&app, &a, &format!("{S}/contract/add"), json!({"contractName": "草稿合同", "partyName": "甲方", "contractAmount": 100})).await;
    let contract = id(&v);
    post(&app, &a, &format!("{S}/project/contract/bind"), json!({"projectId": projects[0], "contractId": contract})).await;
    let (_, v) = post(&app, &a, &format!("{S}/doc/add"), json!({"projectId": projects[0], "docName": "施工图", "category": 2})).await;
    let doc = id(&v);

    // The wrong parent is a 404, like a record that is not there.
    for url in [
        format!("{S}/contract/delete/{contract}/{}", projects[1]),
        format!("{S}/contract/delete/{contract}/0"),
        format!("{S}/doc/delete/{doc}/{}/1", projects[1]),
        format!("{S}/worker/delete/{w1}/{job_b}/1"),
        format!("{S}/worker/batch/delete/{w1}/{job_b}"),
        format!("{S}/project/contract/delete/{}/{contract}/0", projects[1]),
    ] {
        let (s, v) = post(&app, &a, &url, json!({})).await;
        assert_eq!(s, 404, "{url}: {v}");
    }
    let (s, v) = post(&app, &a, &format!("{S}/project/contract/delete/{}/{contract}/7", projects[0]), json!({})).await;
    assert_eq!(s, 400, "mode is 0 or 1: {v}");
    let (s, v) = post(&app, &a, &format!("{S}/construct/delete/1/2/2"), json!({})).await;
    assert_eq!(s, 404, "the literal segment is 1: {v}");
    // Tenant B sees none of A's records, whatever route it uses.
    for url in [
        format!("{S}/project/detail/{}", projects[0]),
        format!("{S}/contract/ope/record/{contract}"),
        format!("{S}/contract/unsigned/list/{}", projects[0]),
        format!("{S}/project/unassigned/construct/contract/list/{}/0", projects[0]),
        format!("{S}/project/contract/delete/{}/{contract}/0", projects[0]),
        format!("{S}/doc/delete/{doc}/{}/1", projects[0]),
        format!("{S}/project/delete/{}", projects[0]),
    ] {
        let (s, v) = post(&app, &b, &url, json!({})).await;
        assert_eq!(s, 404, "{url}: {v}");
    }
    let (s, v) = post(&app, &b, &format!("{S}/project/contract/bind"), json!({"projectId": projects[0], "contractId": contract})).await;
    assert_eq!(s, 404, "{v}");
    let (_, v) = post(&app, &b, &format!("{S}/project/list"), json!({})).await;
    assert_eq!(v["data"]["total"], 0, "{v}");
    // The right parent removes; a project with records is kept until they go.
    let (s, v) = post(&app, &a, &format!("{S}/project/delete/{}", projects[0]), json!({})).await;
    assert_eq!((s, msg(&v).contains("引用")), (400, true), "{v}");
    let (s, v) = post(&app, &a, &format!("{S}/doc/delete/{doc}/{}/1", projects[0]), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &a, &format!("{S}/project/contract/delete/{}/{contract}/1", projects[0]), json!({})).await;
    assert_eq!(s, 200, "unbind and remove a draft: {v}");
    let (s, v) = post(&app, &a, &format!("{S}/project/delete/{}", projects[0]), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let (s, _) = post(&app, &a, &format!("{S}/project/detail/{}", projects[0]), json!({})).await;
    assert_eq!(s, 404);
    let _ = job;
}
