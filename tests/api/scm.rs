//! 业务管理 (`/api/blade-scm/...`): the scm route dialect served from declarations, and the rules of projects,
//! contracts and constructs: codes, money in fen, path segments checked against their parents, status
//! transitions with their preconditions and messages, change records, tenant isolation.
use serde_json::{Value, json};

use crate::support::{App, post_json as post, msg};

const A: &str = "157270";
const B: &str = "741487";
const S: &str = "/api/blade-scm";

fn id(v: &Value) -> String {
    v["data"]["id"].as_str().unwrap_or_else(|| panic!("no id in {v}")).to_string()
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
    assert_eq!((s, msg(&v).contains("所属公司不存在")), (404, true), "an unknown record named in the body is 404 like an unknown id, naming it: {v}");
    let (s, v) = post(&app, &t, &format!("{S}/project/update"), json!({"id": "999", "projectName": "x"})).await;
    assert_eq!((s, msg(&v).as_str()), (404, "数据不存在"), "{v}");
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
    // One entered by mistake (a wrong day) goes, and its amount leaves the total with it.
    let (s, v) = post(&app, &t, &format!("{S}/construct/day/worker/bind"), json!({"constructId": construct, "workerId": w2, "workDate": "2026-11-21", "workDays": "2", "dayRate": "300"})).await;
    assert_eq!(s, 200, "{v}");
    let wrong = v["data"]["id"].clone();
    let (_, v) = post(&app, &t, &format!("{S}/construct/day/worker/list"), json!({"constructId": construct})).await;
    assert_eq!(v["data"][0]["amount"], "1230.75", "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/day/worker/remove"), json!({"id": wrong})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/construct/day/worker/list"), json!({"constructId": construct})).await;
    assert_eq!((v["data"][0]["amount"].as_str(), v["data"][0]["records"].as_u64()), (Some("630.75"), Some(1)), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/day/worker/remove"), json!({"id": wrong})).await;
    assert_eq!(s, 404, "{v}");

    // Completion; then read-only. A construct under way is not removed.
    let (s, v) = post(&app, &t, &format!("{S}/construct/delete/{construct}/{project}/1"), json!({})).await;
    assert_eq!((s, msg(&v).contains("不能删除")), (400, true), "{v}");
    // Progress: starting made the node plan (no buildings named or imported: the site as a whole × 5 nodes).
    let (s, v) = post(&app, &t, &format!("{S}/speed/progress/total/data/{construct}"), json!({})).await;
    assert_eq!((s, v["data"]["tasks"].as_u64(), v["data"]["percent"].as_i64()), (200, Some(5), Some(0)), "{v}");
    assert_eq!(v["data"]["currentNode"], "水电", "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/update"), up(4)).await;
    assert_eq!((s, msg(&v).as_str()), (400, "还有 5 个施工进度任务未完成,不能完工"), "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/speed/progress/building/task/list"), json!({"constructId": construct})).await;
    let tasks: Vec<String> = v["data"][0]["nodes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap().to_string()).collect();
    assert_eq!((v["data"][0]["buildingName"].as_str(), tasks.len()), (Some("整体"), 5), "{v}");
    assert_eq!(v["data"][0]["nodes"][1]["nodeKeyName"], "泥瓦", "{v}");
    let rep = |task: &str, pct: i64| (format!("{S}/speed/progress/worker/task/data/{construct}/{task}"), json!({"percent": pct, "remark": "现场照片已上传"}));
    let (u, b) = rep(&tasks[1], 30);
    let (s, v) = post(&app, &t, &u, b).await;
    assert_eq!((s, msg(&v).as_str()), (400, "请先完成 整体 的「水电」节点"), "{v}");
    let (u, b) = rep(&tasks[0], 101);
    assert_eq!(post(&app, &t, &u, b).await.0, 400);
    let (s, v) = post(&app, &t, &format!("{S}/speed/progress/worker/task/data/1/{}", tasks[0]), json!({"percent": 10})).await;
    assert_eq!(s, 404, "the task's construct must be named: {v}");
    for (i, task) in tasks.iter().enumerate() {
        for pct in [40, 100] {
            let (u, b) = rep(task, pct);
            let (s, v) = post(&app, &t, &u, b).await;
            assert_eq!(s, 200, "node {i} {pct}: {v}");
        }
        if i == 1 {
            let (u, b) = rep(&tasks[0], 90);
            let (s, v) = post(&app, &t, &u, b).await;
            assert_eq!((s, msg(&v).as_str()), (400, "整体 的「泥瓦」节点已开始,不能下调本节点"), "{v}");
        }
    }
    let (s, v) = post(&app, &t, &format!("{S}/speed/progress/history/data/{}", tasks[0]), json!({})).await;
    assert_eq!((s, v["data"].as_array().map(Vec::len)), (200, Some(2)), "{v}");
    assert_eq!((v["data"][0]["before"].as_i64(), v["data"][0]["percent"].as_i64()), (Some(40), Some(100)), "newest first: {v}");
    assert!(v["data"][0]["reporterName"].as_str().is_some_and(|n| !n.is_empty()), "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/speed/progress/statistics/data/{construct}"), json!({})).await;
    assert_eq!((v["data"]["nodes"].as_array().map(Vec::len), v["data"]["buildings"][0]["percent"].as_i64()), (Some(5), Some(100)), "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/speed/progress/total/data/{construct}"), json!({})).await;
    assert_eq!((v["data"]["percent"].as_i64(), v["data"]["doneNodes"].as_u64(), v["data"]["currentNode"].is_null()), (Some(100), Some(5), true), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/update"), up(4)).await;
    assert_eq!(s, 200, "{v}");
    let (u, b) = rep(&tasks[4], 50);
    let (s, v) = post(&app, &t, &u, b).await;
    assert_eq!((s, msg(&v).as_str()), (400, "施工单不在施工中,不能填报进度"), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/construct/update"), json!({"id": construct, "remark": "x"})).await;
    assert_eq!((s, msg(&v).as_str()), (400, "已完工的施工单不能修改"), "{v}");

    // The contract's operation record: who, when, before and after, newest first.
    let (s, v) = post(&app, &t, &format!("{S}/contract/ope/record/{contract}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let recs = v["data"].as_array().unwrap();
    assert!(recs.len() >= 4, "add, bind, sign, executing: {v}");
    assert!(recs.iter().any(|r| r["changes"].as_array().unwrap().iter().any(|c| c["field"] == "contractStatus" && c["before"] == "已签订" && c["after"] == "执行中")), "coded values by their labels: {v}");
    assert!(recs.iter().all(|r| r["operatorName"].as_str().is_some_and(|n| !n.is_empty()) && r["createTime"].is_string()), "{v}");
    assert_eq!(recs.last().unwrap()["action"], "add", "newest first: {v}");

    // Removal rules: a signed contract, a company a project names, a trade workers hold.
    let (s, v) = post(&app, &t, &format!("{S}/contract/delete/{contract}/{project}"), json!({})).await;
    assert_eq!((s, msg(&v).contains("只能删除草稿合同")), (400, true), "{v}");
    let (s, v) = app.req("POST", &format!("{S}/company/remove?ids={company}"), Some(&t), None, &[]).await;
    assert_eq!((s.as_u16(), msg(&v).contains("已有项目记录,不能删除")), (400, true), "{v}");
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
    assert_eq!((s, msg(&v).contains("不能删除")), (400, true), "{v}");
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

async fn upload(app: &App, token: &str, url: &str, bytes: Vec<u8>) -> (u16, Value) {
    app.upload(token, url, "楼栋.xlsx", bytes).await
}

/// A sheet of the building template: `n` rooms (4 per floor, 2 units, 30 floors per building), row `bad(i)` broken.
fn rooms_sheet(n: usize, bad: impl Fn(usize) -> bool) -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let s = book.add_worksheet();
    for (i, (_, h)) in zhizhuang::api::scm::building::COLUMNS.iter().enumerate() {
        s.write_string(0, i as u16, *h).unwrap();
    }
    for i in 0..n {
        let r = i as u32 + 1;
        let (b, rest) = (i / 240, i % 240);
        let (unit, floor, room) = (rest / 120 + 1, (rest % 120) / 4 + 1, rest % 4 + 1);
        s.write_string(r, 0, format!("{}栋", b + 1)).unwrap();
        s.write_string(r, 1, unit.to_string()).unwrap();
        if bad(i) && (i / 200) % 2 == 0 {
            s.write_string(r, 2, "三楼").unwrap();
        } else {
            s.write_number(r, 2, floor as f64).unwrap();
        }
        s.write_string(r, 3, if bad(i) && (i / 200) % 2 == 1 { String::new() } else { format!("{floor}{room:02}") }).unwrap();
        s.write_string(r, 4, "三室两厅").unwrap();
        s.write_string(r, 5, "118.50").unwrap();
    }
    book.save_to_buffer().unwrap()
}

async fn wait_import(app: &App, t: &str, code: &str) -> (Value, Vec<u64>) {
    let mut seen = Vec::new();
    for _ in 0..3000 {
        let (s, v) = app.get(&format!("{S}/building/getImportStatus?taskCode={code}"), t).await;
        assert_eq!(s, 200, "{v}");
        seen.push(v["data"]["percent"].as_u64().unwrap());
        if v["data"]["state"] != "running" {
            return (v["data"].clone(), seen);
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    panic!("import {code} still running");
}

#[tokio::test]
async fn buildings_import_in_the_background_refusing_bad_rows_by_number() {
    let app = App::new();
    let t = app.admin(A).await;
    let (company, ..) = basics(&app, &t, "A").await;
    let (_, v) = post(&app, &t, &format!("{S}/project/add"), json!({"projectName": "江岸名邸", "projectCompanyId": company, "businessUnit": "TOB", "startTime": "2026-01-01"})).await;
    let project = id(&v);
    // 10,000 rows, 50 of them bad (every 200th: a floor that is no number, or no room number).
    let bad = |i: usize| i % 200 == 7;
    let file = rooms_sheet(10_000, bad);
    let (s, v) = upload(&app, &t, &format!("{S}/building/info/import?projectId={project}&mode=all"), file.clone()).await;
    assert_eq!(s, 200, "{v}");
    let (all, _) = wait_import(&app, &t, v["data"]["taskCode"].as_str().unwrap()).await;
    assert_eq!((all["state"].as_str(), all["refusedCount"].as_u64(), all["imported"].as_u64()), (Some("failed"), Some(50), Some(0)), "all or nothing: {all}");
    let (_, v) = post(&app, &t, &format!("{S}/building/list"), json!({"projectId": project})).await;
    assert_eq!(v["data"]["total"], 0, "nothing written: {v}");

    let (s, v) = upload(&app, &t, &format!("{S}/building/info/import?projectId={project}"), file.clone()).await;
    assert_eq!(s, 200, "{v}");
    let code = v["data"]["taskCode"].as_str().unwrap().to_string();
    let (done, seen) = wait_import(&app, &t, &code).await;
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!((done["total"].as_u64(), done["imported"].as_u64(), done["refusedCount"].as_u64(), done["percent"].as_u64()), (Some(10_000), Some(9_950), Some(50), Some(100)), "{done}");
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "progress never goes back: {seen:?}");
    let rows: Vec<u64> = done["refused"].as_array().unwrap().iter().map(|r| r["row"].as_u64().unwrap()).collect();
    let want: Vec<u64> = (0..10_000).filter(|i| bad(*i)).map(|i| i as u64 + 2).collect();
    assert_eq!(rows, want, "the refused rows by their number in the sheet (header = row 1)");
    assert!(done["refused"][0]["reason"].as_str().unwrap().contains("楼层"), "{done}");
    assert!(done["refused"][1]["reason"].as_str().unwrap().contains("房号"), "{done}");
    let (_, v) = post(&app, &t, &format!("{S}/building/list"), json!({"projectId": project, "size": 1})).await;
    assert_eq!(v["data"]["total"], 9_950, "{v}");
    assert_eq!(v["data"]["records"][0]["area"], "118.50", "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/building/page/down/list/{project}/0"), json!({})).await;
    assert_eq!((v["data"].as_array().map(Vec::len), v["data"][0]["units"].as_u64(), v["data"][0]["floors"].as_u64()), (Some(42), Some(2), Some(30)), "{v}");
    // The same file again changes nothing new: every room is updated in place.
    let (_, v) = upload(&app, &t, &format!("{S}/building/info/import?projectId={project}"), file).await;
    let (again, _) = wait_import(&app, &t, v["data"]["taskCode"].as_str().unwrap()).await;
    assert_eq!((again["imported"].as_u64(), again["updated"].as_u64()), (Some(0), Some(9_950)), "{again}");
    let (_, v) = app.req("POST", &format!("{S}/building/record/list"), Some(&t), Some(&json!({"projectId": project}).to_string()), &[("accept-language", "en")]).await;
    assert_eq!(v["data"]["total"], 3, "{v}");
    assert!(v["data"]["records"][0]["message"].as_str().unwrap().contains("9950 updated"), "{v}");
    // Bad requests: no project, a file that is no workbook, a workbook of another template.
    let (s, _) = upload(&app, &t, &format!("{S}/building/info/import"), vec![1, 2]).await;
    assert_eq!(s, 400);
    let (s, _) = upload(&app, &t, &format!("{S}/building/info/import?projectId={project}"), b"not a workbook".to_vec()).await;
    assert_eq!(s, 400);
    let mut book = rust_xlsxwriter::Workbook::new();
    book.add_worksheet().write_string(0, 0, "姓名").unwrap();
    let (_, v) = upload(&app, &t, &format!("{S}/building/info/import?projectId={project}"), book.save_to_buffer().unwrap()).await;
    let (wrong, _) = wait_import(&app, &t, v["data"]["taskCode"].as_str().unwrap()).await;
    assert_eq!(wrong["state"], "failed", "{wrong}");
    assert!(wrong["message"].as_str().unwrap().contains("楼栋"), "names the template's columns: {wrong}");
    // Another tenant sees neither the task nor the project.
    let b = app.admin(B).await;
    let (s, _) = app.get(&format!("{S}/building/getImportStatus?taskCode={code}"), &b).await;
    assert_eq!(s, 404);
    let (s, _) = upload(&app, &b, &format!("{S}/building/info/import?projectId={project}"), rooms_sheet(3, |_| false)).await;
    assert_eq!(s, 404);
    // The template downloads with its example rows.
    let req = axum::http::Request::get(format!("{S}/building/info/template")).header("blade-auth", format!("bearer {t}")).body(axum::body::Body::empty()).unwrap();
    let resp = tower::ServiceExt::oneshot(app.router.clone(), req).await.unwrap();
    assert_eq!(resp.status(), 200);
}

#[tokio::test]
async fn an_import_cut_by_a_restart_ends_failed_and_all_or_nothing_stays_so() {
    let app = App::new();
    let t = app.admin(A).await;
    let (company, ..) = basics(&app, &t, "A").await;
    let (_, v) = post(&app, &t, &format!("{S}/project/add"), json!({"projectName": "断点项目", "projectCompanyId": company, "businessUnit": "TOB", "startTime": "2026-01-01"})).await;
    let project: u64 = id(&v).parse().unwrap();
    // As a server stopped mid-import leaves it: the task running, some of its rooms written.
    let (idef, bdef) = (app.st.res.get("building_import"), app.st.res.get("building"));
    app.st
        .store
        .write(move |w| {
            for (code, mode) in [("BI-ALL", "all"), ("BI-PART", "partial")] {
                let task = json!({"taskCode": code, "projectId": project, "mode": mode, "state": "running", "percent": 40, "total": 10, "done": 4});
                w.insert(&idef, A, task.as_object().cloned().unwrap(), &store::Actor::default())?;
                for room in 0..4 {
                    let r = json!({"projectId": project, "buildingName": code, "unitName": "1", "floor": 1, "roomNo": format!("{room}"), "enabled": 1,
                        "roomKey": format!("{project}:{code}:1:{room}"), "importTask": code});
                    w.insert(&bdef, A, r.as_object().cloned().unwrap(), &store::Actor::default())?;
                }
            }
            Ok(())
        })
        .unwrap();
    assert_eq!(zhizhuang::api::scm::building::recover(&app.st).await.unwrap(), 2);
    for (code, rooms) in [("BI-ALL", 0), ("BI-PART", 4)] {
        let (_, v) = app.get(&format!("{S}/building/getImportStatus?taskCode={code}"), &t).await;
        assert_eq!(v["data"]["state"], "failed", "{v}");
        assert!(v["data"]["message"].as_str().unwrap().contains("服务重启"), "{v}");
        let (_, v) = post(&app, &t, &format!("{S}/building/list"), json!({"projectId": project.to_string(), "buildingName": code})).await;
        assert_eq!(v["data"]["total"], rooms, "{code}: {v}");
    }
    assert_eq!(zhizhuang::api::scm::building::recover(&app.st).await.unwrap(), 0, "nothing left running");
}

#[tokio::test]
async fn attendance_rectification_and_measures_keep_their_rules() {
    let app = App::new();
    let t = app.admin(A).await;
    let (company, _, _, w1, w2) = basics(&app, &t, "A").await;
    let (_, v) = post(&app, &t, &format!("{S}/project/add"), json!({"projectName": "现场项目", "projectCompanyId": company, "businessUnit": "TOC", "startTime": "2026-01-01"})).await;
    let project = id(&v);
    let (_, v) = post(&app, &t, &format!("{S}/contract/add"), json!({"contractName": "现场合同", "partyName": "业主", "contractAmount": "5000", "projectId": project})).await;
    let contract = id(&v);
    post(&app, &t, &format!("{S}/contract/update"), json!({"id": contract, "contractStatus": 1})).await;
    let (_, v) = post(&app, &t, &format!("{S}/construct/add"), json!({"constructName": "全屋精装", "projectId": project, "contractId": contract, "constructMode": 1, "buildings": "1#,2#"})).await;
    let construct = id(&v);

    // Measure: rooms in millimetres, floor area computed exactly (4200 × 3600 = 15.12 ㎡, 3000 × 2450 = 7.35 ㎡).
    let rooms = json!([{"roomName": "主卧", "length": 4200, "width": 3600, "height": 2800}, {"roomName": "次卧", "length": "3000", "width": 2450}]);
    let (s, v) = post(&app, &t, &format!("{S}/measure/save"), json!({"constructId": construct, "measureDate": "2026-11-20", "measurer": "王工", "rooms": rooms})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!((v["data"]["totalArea"].as_str(), v["data"]["roomCount"].as_i64(), v["data"]["measureStatus"].as_i64()), (Some("22.47"), Some(2), Some(0)), "{v}");
    let measure = id(&v);
    let (s, v) = post(&app, &t, &format!("{S}/measure/update"), json!({"id": measure, "rooms": [{"roomName": "厨房", "length": 0, "width": 10}]})).await;
    assert_eq!((s, msg(&v).contains("厨房")), (400, true), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/measure/detail/{measure}"), json!({})).await;
    assert_eq!((s, v["data"]["rooms"][0]["roomName"].as_str()), (200, Some("主卧")), "{v}");

    // Dispatch and start: the plan covers the two buildings named (2 × 5 tasks).
    let (_, me) = app.get("/api/blade-auth/oauth/user-info", &t).await;
    let me = me["data"]["userId"].as_str().or(me["data"]["user_id"].as_str()).map(str::to_string).unwrap_or_default();
    post(&app, &t, &format!("{S}/construct/assign/manager"), json!({"id": construct, "managerId": me})).await;
    post(&app, &t, &format!("{S}/construct/update"), json!({"id": construct, "modelStatus": 2})).await;
    let (s, v) = post(&app, &t, &format!("{S}/worker/work-clock-in"), json!({"workerId": w1, "constructId": construct})).await;
    assert_eq!((s, msg(&v).as_str()), (400, "施工单不在施工中,不能打卡"), "{v}");
    post(&app, &t, &format!("{S}/construct/worker/bind/{construct}/{w1}"), json!({})).await;
    // 补卡's worker picker offers the chosen construct's crew, not every worker (`within` through construct_worker);
    // a join no form declares, or a construct the caller cannot see, is refused.
    let crew = |q: String| {
        let app = &app;
        let t = t.clone();
        async move { app.get(&format!("/api/blade-system/lookup?resource=worker&{q}"), &t).await }
    };
    let (s, v) = crew(format!("construct_worker.constructId={construct}")).await;
    let ids: Vec<&str> = v["data"]["records"].as_array().unwrap().iter().filter_map(|r| r["id"].as_str()).collect();
    assert_eq!((s.as_u16(), ids), (200, vec![w1.as_str()]), "{v}");
    // Each choice says the worker's trade and crew (a project manager builds a crew by trade).
    assert_eq!(v["data"]["records"][0]["hint"], "A木工 一组", "{v}");
    let (_, v) = crew("keyword=%E6%9D%8E%E5%9B%9B".to_string()).await;
    assert_eq!(v["data"]["records"][0]["hint"], "A木工 一组", "{v}");
    let (_, v) = crew(format!("construct_worker.constructId={construct}&keyword=nobody")).await;
    assert_eq!(v["data"]["total"], 0, "{v}");
    let (_, v) = crew("keyword=".to_string()).await;
    assert!(v["data"]["records"].as_array().unwrap().iter().any(|r| r["id"] == w2.as_str()), "without the choice, every worker: {v}");
    let (s, _) = crew(format!("attend_day.constructId={construct}")).await;
    assert_eq!(s, 400, "a join no form declares");
    let tb = app.admin(B).await;
    let (s, _) = app.get(&format!("/api/blade-system/lookup?resource=worker&construct_worker.constructId={construct}"), &tb).await;
    assert_eq!(s, 404, "another tenant's construct");
    let (s, v) = post(&app, &t, &format!("{S}/construct/update"), json!({"id": construct, "modelStatus": 3})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/speed/progress/total/data/{construct}"), json!({})).await;
    assert_eq!((v["data"]["tasks"].as_u64(), v["data"]["buildings"].as_u64()), (Some(10), Some(2)), "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/speed/progress/list"), json!({"constructId": construct, "buildingName": "2#", "size": 20})).await;
    let task = v["data"]["records"][0]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &t, &format!("{S}/building/user/task/bind"), json!({"taskId": task, "workerId": w2})).await;
    assert_eq!((s, msg(&v).contains("不在此施工单的班组中")), (400, true), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/building/user/task/bind"), json!({"taskId": task, "workerId": w1})).await;
    assert_eq!((s, v["data"]["workerName"].as_str()), (200, Some("张三")), "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/speed/progress/worker/task/list"), json!({"workerId": w1})).await;
    assert_eq!(v["data"]["total"], 1, "{v}");

    // Attendance: once a day, on the crew only; a reset keeps who and why.
    let (s, v) = post(&app, &t, &format!("{S}/worker/work-clock-in"), json!({"workerId": w2, "constructId": construct})).await;
    assert_eq!((s, msg(&v).as_str()), (400, "该工人不在此施工单的班组中"), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/worker/work-clock-in"), json!({"workerId": w1, "constructId": construct, "distance": 35})).await;
    assert_eq!(s, 200, "{v}");
    assert!(matches!(v["data"]["result"].as_str(), Some("success" | "late")), "{v}");
    let day = id(&v);
    let (s, v) = post(&app, &t, &format!("{S}/worker/work-clock-in"), json!({"workerId": w1, "constructId": construct})).await;
    assert_eq!((s, msg(&v).contains("已打卡")), (400, true), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/worker/work-clock-in/reset"), json!({"id": day})).await;
    assert_eq!(s, 400, "a reset needs its reason: {v}");
    let (s, v) = post(&app, &t, &format!("{S}/worker/work-clock-in/reset"), json!({"id": day, "reason": "定位漂移,现场核实"})).await;
    assert_eq!((s, v["data"]["result"].as_str(), v["data"]["resetReason"].as_str()), (200, Some("wait"), Some("定位漂移,现场核实")), "{v}");
    let (s, v) = app.get(&format!("{S}/worker/attendDay/page?workerId={w1}"), &t).await;
    assert_eq!((s.as_u16(), v["data"]["total"].as_u64(), v["data"]["records"][0]["resultName"].as_str()), (200, Some(1), Some("未打卡")), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/worker/work-clock-in"), json!({"workerId": w1, "constructId": construct})).await;
    assert_eq!(s, 200, "clocks in again after the reset: {v}");
    let today = v["data"]["attendDate"].as_str().unwrap().to_string();
    // 补卡 on another site the same day says which site holds his day, and whose (not in this manager's list).
    let (_, v) = post(&app, &t, &format!("{S}/construct/detail/{construct}"), json!({})).await;
    let first_code = v["data"]["constructCode"].as_str().unwrap().to_string();
    let (_, v) = post(&app, &t, &format!("{S}/construct/add"), json!({"constructName": "阳台封窗", "projectId": project, "contractId": contract, "constructMode": 1, "buildings": "1#"})).await;
    let second = id(&v);
    post(&app, &t, &format!("{S}/construct/assign/manager"), json!({"id": second, "managerId": me})).await;
    post(&app, &t, &format!("{S}/construct/update"), json!({"id": second, "modelStatus": 2})).await;
    post(&app, &t, &format!("{S}/construct/worker/bind/{second}/{w1}"), json!({})).await;
    let (s, v) = post(&app, &t, &format!("{S}/construct/update"), json!({"id": second, "modelStatus": 3})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/worker/work-clock-in/makeup"), json!({"workerId": w1, "constructId": second, "day": today, "time": "00:00", "reason": "现场漏打卡"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains(&first_code) && msg(&v).contains("一天只记一个工地"), "{v}");

    // Rectification: open → fixed (dated) → verified, or back to open; verified is final; only open ones go.
    let (s, v) = app.get(&format!("{S}/worker/category/type"), &t).await;
    assert!(s == 200 && v["data"].as_array().is_some_and(|a| a.len() >= 5), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/worker/buildingRectification/save"), json!({"projectId": project, "constructId": construct, "buildingName": "1#", "category": 2, "description": "卫生间防水渗漏", "workerId": w1, "deadline": "2026-11-01"})).await;
    assert_eq!((s, v["data"]["rectStatus"].as_i64()), (200, Some(1)), "{v}");
    let rect = id(&v);
    let upd = |st: i64| json!({"id": rect, "rectStatus": st});
    let (s, v) = post(&app, &t, &format!("{S}/worker/buildingRectification/update"), upd(3)).await;
    assert_eq!((s, msg(&v).as_str()), (400, "整改单状态不能由「待整改」变更为「已验收」"), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/worker/buildingRectification/update"), upd(2)).await;
    assert!(s == 200 && v["data"]["fixedTime"].is_string(), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/worker/buildingRectification/delete/{rect}/{project}/1"), json!({})).await;
    assert_eq!((s, msg(&v).as_str()), (400, "只能删除待整改的整改单"), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/worker/buildingRectification/update"), upd(3)).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/worker/buildingRectification/update"), json!({"id": rect, "description": "x"})).await;
    assert_eq!((s, msg(&v).as_str()), (400, "已验收的整改单不能修改"), "{v}");
    let (s, v) = app.get(&format!("{S}/worker/buildingRectification/page?rectStatus=3"), &t).await;
    assert_eq!((s.as_u16(), v["data"]["total"].as_u64()), (200, Some(1)), "{v}");
}

/// Issue 10 item 1: product categories as a tree per product type (parents of the same type, no cycles; a
/// category with sub-categories or products stays, saying which), products in the scm dialect (codes, money in
/// fen, the category of the product's type, the picker's page of 999 searching as you type), the path segments of
/// `delete/{type}/{id}/{status}` and `batch/delete/{type}/{ids}` checked, and the company deletes.
#[tokio::test]
async fn catalogue_categories_products_and_company_deletes() {
    let app = crate::support::App::new();
    let t = app.admin("157270").await;
    let post = |url: String, body: serde_json::Value| {
        let (app, t) = (&app, t.clone());
        async move {
            let (s, v) = app.post(&url, &t, &body.to_string()).await;
            (s.as_u16(), v)
        }
    };
    let get = |url: String| {
        let (app, t) = (&app, t.clone());
        async move {
            let (s, v) = app.get(&url, &t).await;
            (s.as_u16(), v)
        }
    };
    let c = "/api/blade-scm/productCategory";
    let p = "/api/blade-scm/product";
    let (s, v) = post(format!("{c}/save"), serde_json::json!({"categoryName": "瓷砖", "productType": 1, "sort": 1})).await;
    assert_eq!(s, 200, "{v}");
    let tiles = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = post(format!("{c}/save"), serde_json::json!({"categoryName": "地砖", "productType": 1, "parentId": tiles, "sort": 1})).await;
    assert_eq!(s, 200, "{v}");
    let floor = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = post(format!("{c}/save"), serde_json::json!({"categoryName": "窗帘", "productType": 3, "parentId": tiles})).await;
    assert_eq!(s, 400, "a parent of another type: {v}");
    let (s, v) = post(format!("{c}/update"), serde_json::json!({"id": tiles, "parentId": floor})).await;
    assert_eq!(s, 400, "a cycle: {v}");
    let (_, v) = get(format!("{c}/tree?productType=1")).await;
    assert_eq!((v["data"][0]["categoryName"].as_str(), v["data"][0]["children"][0]["categoryName"].as_str()), (Some("瓷砖"), Some("地砖")), "{v}");
    let (_, v) = get(format!("{c}/topList")).await;
    assert_eq!(v["data"].as_array().unwrap().len(), 1, "{v}");
    let (_, v) = get(format!("{c}/subList?parentId={tiles}")).await;
    assert_eq!(v["data"][0]["id"], floor.as_str(), "{v}");
    // Products: code, money exact, the category of the product's type.
    let (s, v) = post(format!("{p}/add"), serde_json::json!({"productName": "仿古砖 600×600", "productType": 1, "categoryId": floor, "brand": "马可波罗", "spec": "600×600×10mm", "unit": "片", "price": "45.50"})).await;
    assert_eq!(s, 200, "{v}");
    let tile = v["data"]["id"].as_str().unwrap().to_string();
    assert!(v["data"]["productCode"].as_str().unwrap().starts_with("CP"), "{v}");
    assert_eq!(v["data"]["price"], "45.50");
    let (s, v) = post(format!("{p}/add"), serde_json::json!({"productName": "遮光帘", "productType": 3, "categoryId": floor, "unit": "米", "price": "88"})).await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = post(format!("{p}/add"), serde_json::json!({"productName": "美缝剂", "productType": 2, "unit": "支", "price": "0.5"})).await;
    assert_eq!(s, 200, "{v}");
    let grout = v["data"]["id"].as_str().unwrap().to_string();
    let (_, v) = post(format!("{p}/list"), serde_json::json!({"page": 1, "size": 999, "productName": "仿古"})).await;
    assert_eq!(v["data"]["total"], 1, "{v}");
    let (_, v) = post(format!("{p}/category/1"), serde_json::json!({})).await;
    assert_eq!(v["data"][0]["children"][0]["categoryName"], "地砖", "{v}");
    // A category with products or sub-categories stays.
    let (s, v) = post(format!("{c}/remove?ids={floor}"), serde_json::json!({})).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("产品"), "{v}");
    let (s, v) = post(format!("{c}/remove?ids={tiles}"), serde_json::json!({})).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("子分类"), "{v}");
    // Segments: the type and status must be the product's.
    let (s, _) = post(format!("{p}/delete/2/{tile}/1"), serde_json::json!({})).await;
    assert_eq!(s, 404, "another type");
    let (s, _) = post(format!("{p}/delete/1/{tile}/2"), serde_json::json!({})).await;
    assert_eq!(s, 404, "another status");
    let (s, _) = post(format!("{p}/batch/delete/1/{tile},{grout}"), serde_json::json!({})).await;
    assert_eq!(s, 404, "one of another type: none removed");
    let (_, v) = post(format!("{p}/list"), serde_json::json!({})).await;
    assert_eq!(v["data"]["total"], 2);
    let (s, v) = post(format!("{p}/delete/1/{tile}/1"), serde_json::json!({})).await;
    assert_eq!(s, 200, "{v}");
    let (s, _) = post(format!("{p}/batch/delete/2/{grout}"), serde_json::json!({})).await;
    assert_eq!(s, 200);
    let (s, v) = post(format!("{c}/remove?ids={floor}"), serde_json::json!({})).await;
    assert_eq!(s, 200, "now empty: {v}");
    // Companies: delete/{id}/{companyType}/1 and batch/delete/{companyType}/{ids}.
    let (_, v) = post("/api/blade-scm/company/add".into(), serde_json::json!({"companyName": "远洋装饰", "companyType": 1})).await;
    let co = v["data"]["id"].as_str().unwrap().to_string();
    let (s, _) = post(format!("/api/blade-scm/company/delete/{co}/2/1"), serde_json::json!({})).await;
    assert_eq!(s, 404);
    let (s, _) = post(format!("/api/blade-scm/company/batch/delete/1/{co}"), serde_json::json!({})).await;
    assert_eq!(s, 200);
}

#[tokio::test]
async fn a_worker_account_holds_a_technical_worker_role_and_never_signs_in() {
    let app = App::new();
    let t = app.admin(A).await;
    let (_, _, _, w1, w2) = basics(&app, &t, "A").await;
    let office = app.make_user(A, "clerk01", "Clerk#2026", &["admin"]).await;
    let site = app.make_user(A, "tiler01", "Tiler#2026", &["tiler"]).await;
    let detail = |w: &str| format!("{S}/worker/detail/{w}");
    let (_, v) = post(&app, &t, &detail(&w1), json!({})).await;
    let mut doc = v["data"].clone();

    // An office account is refused as a worker's account, with the account named.
    doc["userId"] = json!(office.to_string());
    let (s, v) = post(&app, &t, &format!("{S}/worker/update"), doc.clone()).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("clerk01") && msg(&v).contains("技术工人角色"), "{v}");
    // A technical worker's account is linked, once.
    doc["userId"] = json!(site.to_string());
    let (s, v) = post(&app, &t, &format!("{S}/worker/update"), doc.clone()).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = post(&app, &t, &detail(&w1), json!({})).await;
    assert_eq!(v["data"]["userId"].as_str(), Some(site.to_string().as_str()), "{v}");
    let (_, v2) = post(&app, &t, &detail(&w2), json!({})).await;
    let mut doc2 = v2["data"].clone();
    doc2["userId"] = json!(site.to_string());
    let (s, v) = post(&app, &t, &format!("{S}/worker/update"), doc2).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("已关联工人") && msg(&v).contains("张三"), "{v}");

    // The account cannot sign in to the back-office, even after its role is changed to an office role.
    let (s, v) = app.sign_in_body(A, "tiler01", "Tiler#2026").await;
    assert_eq!(s.as_u16(), 400, "{v}");
    assert!(v.to_string().contains("技术工人无法登录系统"), "{v}");
    let (res, tenant) = (app.st.res.clone(), A.to_string());
    app.st
        .store
        .write(move |w| {
            let admin_role = w.all(&res.get("role"), &tenant)?.into_iter().find(|r| r["roleAlias"] == "admin").unwrap()["id"].to_string();
            w.update(&res.get("user"), &tenant, site, json!({"roleId": admin_role}).as_object().unwrap().clone(), &store::Actor::default())?;
            Ok(())
        })
        .unwrap();
    let (s, v) = app.sign_in_body(A, "tiler01", "Tiler#2026").await;
    assert_eq!(s.as_u16(), 400, "{v}");
    assert!(v.to_string().contains("技术工人无法登录系统"), "{v}");
    // The office account still signs in.
    app.sign_in(A, "clerk01", "Clerk#2026").await;
}

/// GET a page's props as the browser's navigation does (`x-zz-props`), with the token in the cookie.
async fn page_props(app: &App, token: &str, url: &str) -> Value {
    let req = axum::http::Request::get(url)
        .header("cookie", format!("saber-access-token={token}"))
        .header("x-zz-props", "1")
        .body(axum::body::Body::empty())
        .unwrap();
    app.call(req).await.2
}

#[tokio::test]
async fn the_construct_page_comes_with_its_data_under_the_same_checks() {
    let app = App::new();
    let t = app.admin(A).await;
    let (company, customer, _, w1, _) = basics(&app, &t, "A").await;
    let (_, v) = post(&app, &t, &format!("{S}/project/add"), json!({"projectName": "页面测试项目", "projectCompanyId": company, "customerId": customer, "businessUnit": "TOC", "startTime": "2026-11-01"})).await;
    let project = id(&v);
    let (_, v) = post(&app, &t, &format!("{S}/contract/add"), json!({"contractName": "页面测试合同", "partyName": "业主", "contractAmount": "1000"})).await;
    let contract = id(&v);
    post(&app, &t, &format!("{S}/project/contract/bind"), json!({"projectId": project, "contractIds": contract})).await;
    let (s, v) = post(&app, &t, &format!("{S}/construct/add"), json!({"constructName": "客厅吊顶", "projectId": project, "contractId": contract, "constructMode": 1})).await;
    assert_eq!(s, 200, "{v}");
    let (construct, code) = (id(&v), v["data"]["constructCode"].as_str().unwrap().to_string());
    let (s, v) = post(&app, &t, &format!("{S}/construct/worker/bind/{construct}/{w1}"), json!({})).await;
    assert_eq!(s, 200, "{v}");

    let p = page_props(&app, &t, &format!("/construct/info/{code}/edit/crew")).await;
    assert_eq!(p["page"]["kind"], "construct", "{p}");
    assert_eq!(p["page"]["construct"]["constructName"], "客厅吊顶");
    assert_eq!(p["page"]["construct"]["projectName"], "页面测试项目", "names of referred records as the detail route gives them");
    assert_eq!(p["page"]["crew"]["records"][0]["workerName"], "张三");
    assert!(p["page"]["dayWork"].as_array().is_some_and(Vec::is_empty));
    assert_eq!(p["page"]["measures"]["total"], 0);
    // Another tenant's admin, an unknown code: the page says it is not there, with no data.
    let tb = app.admin(B).await;
    let p = page_props(&app, &tb, &format!("/construct/info/{code}")).await;
    assert_eq!(p["page"]["kind"], "construct");
    assert!(p["page"]["construct"].is_null(), "{p}");
    let p = page_props(&app, &t, "/construct/info/SG19990101-0001").await;
    assert!(p["page"]["construct"].is_null(), "{p}");
    // Without the construct read code the page carries nothing.
    app.make_role(A, "nobody_scm", &["desk"]).await;
    app.make_user(A, "plain01", "Plain#2026", &["nobody_scm"]).await;
    let plain = app.sign_in(A, "plain01", "Plain#2026").await;
    let p = page_props(&app, &plain, &format!("/construct/info/{code}")).await;
    assert_eq!(p["page"]["kind"], "none", "{p}");
}

#[tokio::test]
async fn a_replay_keeps_its_items_and_their_counts() {
    let app = App::new();
    let t = app.admin(A).await;
    let (company, customer, ..) = basics(&app, &t, "A").await;
    let (_, v) = post(&app, &t, &format!("{S}/project/add"), json!({"projectName": "复盘测试项目", "projectCompanyId": company, "customerId": customer, "businessUnit": "TOC", "startTime": "2026-01-01"})).await;
    let project = id(&v);
    // A replay with two items in one step; an item refused refuses the whole.
    let bad = json!({"replayName": "工期复盘", "projectId": project, "replayDate": "2026-11-20", "items": [{"happened": "瓷砖晚到"}, {"cause": "没有发生了什么"}]});
    let (s, v) = post(&app, &t, &format!("{S}/replay/add/item"), bad).await;
    assert_eq!(s, 400, "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/replay/list"), json!({"projectId": project})).await;
    assert_eq!(v["data"]["total"], 0, "nothing half-written: {v}");
    // One without items counts none (its 问题数 and 未关闭 were blank).
    let (s, v) = post(&app, &t, &format!("{S}/replay/add/item"), json!({"replayName": "开工复盘", "projectId": project, "replayDate": "2026-11-18", "items": []})).await;
    assert_eq!((s, v["data"]["itemCount"].as_i64(), v["data"]["openItems"].as_i64()), (200, Some(0), Some(0)), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/replay/delete/{}", id(&v)), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let body = json!({"replayName": "工期复盘", "projectId": project, "replayDate": "2026-11-20", "items": [
        {"happened": "瓷砖晚到 5 天", "cause": "未核对排产", "action": "下单前确认交期", "dueDate": "2026-12-01"},
        {"happened": "闭水渗漏", "cause": "防水高度不足", "action": "节点拍照验收", "itemStatus": 2}]});
    let (s, v) = post(&app, &t, &format!("{S}/replay/add/item"), body).await;
    assert_eq!(s, 200, "{v}");
    let replay = id(&v);
    assert!(v["data"]["replayCode"].as_str().unwrap().starts_with("FP"), "{v}");
    assert_eq!((v["data"]["itemCount"].as_i64(), v["data"]["openItems"].as_i64()), (Some(2), Some(1)));
    let (s, v) = post(&app, &t, &format!("{S}/replay/item/add"), json!({"replayId": replay, "happened": "点工超预算"})).await;
    assert_eq!(s, 200, "{v}");
    let item = id(&v);
    let (_, v) = post(&app, &t, &format!("{S}/replay/detail/{replay}"), json!({})).await;
    assert_eq!(v["data"]["items"].as_array().map(Vec::len), Some(3), "{v}");
    assert_eq!((v["data"]["itemCount"].as_i64(), v["data"]["openItems"].as_i64()), (Some(3), Some(2)));
    let (s, v) = post(&app, &t, &format!("{S}/replay/item/update"), json!({"id": item, "itemStatus": 2})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/replay/item/detail/{item}"), json!({})).await;
    assert_eq!(v["data"]["itemStatus"], 2);
    let (s, _) = post(&app, &t, &format!("{S}/replay/item/delete/{item}/{replay}/1"), json!({})).await;
    assert_eq!(s, 200);
    let (_, v) = post(&app, &t, &format!("{S}/replay/detail/{replay}"), json!({})).await;
    assert_eq!((v["data"]["itemCount"].as_i64(), v["data"]["openItems"].as_i64()), (Some(2), Some(1)));
    // Another tenant sees nothing; removing the replay takes its items along.
    let tb = app.admin(B).await;
    let (s, _) = post(&app, &tb, &format!("{S}/replay/detail/{replay}"), json!({})).await;
    assert_eq!(s, 404);
    let (s, v) = post(&app, &t, &format!("{S}/replay/delete/{replay}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/replay/item/list"), json!({"replayId": replay})).await;
    assert_eq!(v["data"]["total"], 0, "{v}");
}

/// A new 施工单 is its project's manager's unless the form names another (it started without 项目经理, so it could
/// not go on to dispatch until someone assigned the one the project already had).
#[tokio::test]
async fn a_new_construct_takes_its_projects_manager() {
    let app = App::new();
    let t = app.admin(A).await;
    let (company, customer, ..) = basics(&app, &t, "M").await;
    app.make_role(A, "pm_m", &["desk"]).await;
    let zhang = app.make_user(A, "zhang_m", "Zz#12345", &["pm_m"]).await;
    let li = app.make_user(A, "li_m", "Zz#12345", &["pm_m"]).await;
    let (_, v) = post(&app, &t, &format!("{S}/project/add"), json!({"projectName": "经理项目", "projectCompanyId": company, "customerId": customer, "businessUnit": "TOC", "startTime": "2026-11-01", "managerId": zhang.to_string()})).await;
    let project = id(&v);
    let (_, v) = post(&app, &t, &format!("{S}/contract/add"), json!({"contractName": "经理合同", "partyName": "业主", "contractAmount": "1000"})).await;
    let contract = id(&v);
    post(&app, &t, &format!("{S}/project/contract/bind"), json!({"projectId": project, "contractIds": contract})).await;
    let add = |name: &'static str, manager: Option<u64>| {
        let mut body = json!({"constructName": name, "projectId": project, "contractId": contract, "constructMode": 1});
        if let Some(m) = manager {
            body["managerId"] = json!(m.to_string());
        }
        body
    };
    let (s, v) = post(&app, &t, &format!("{S}/construct/add"), add("主卧", None)).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["managerId"].as_str(), Some(zhang.to_string().as_str()), "{v}");
    let (_, v) = post(&app, &t, &format!("{S}/construct/add"), add("次卧", Some(li))).await;
    assert_eq!(v["data"]["managerId"].as_str(), Some(li.to_string().as_str()), "the form's choice stands: {v}");
}
