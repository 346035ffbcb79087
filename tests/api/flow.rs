//! 审批流程 (`/api/blade-flow/...`, `/api/blade-desk/process/leave/...`): models checked when saved, deployed
//! versions, the leave process end to end across users, security rule 12 (only candidates claim, only
//! assignees complete, only declared typed variables), withdraw, delete and reassign, history, BPMN upload of
//! valid and hostile files, and instances staying on their version when a new one is deployed.
use serde_json::{Value, json};

use crate::support::{App, post_json as post, get_json as get, msg};

const A: &str = "157270";
const F: &str = "/api/blade-flow";
const LEAVE: &str = "/api/blade-desk/process/leave";

/// Every instance agrees with its tasks and history (what `zhizhuang verify` checks).
fn audit_clean(app: &App) -> (u64, u64) {
    let res = app.st.res.clone();
    let a = app.st.store.read(|r| zhizhuang::api::flow::runtime::audit(r, &res)).unwrap();
    assert!(a.problems.is_empty(), "approvals audit: {:#?}", a.problems);
    (a.instances, a.tasks)
}

fn put(app: &App, tenant: &str, res: &str, doc: Value) -> u64 {
    let (r, t, res) = (app.st.res.clone(), tenant.to_string(), res.to_string());
    app.st.store.write(move |w| Ok(w.insert(&r.get(&res), &t, doc.as_object().unwrap().clone(), &store::Actor::default())?["id"].as_u64().unwrap())).unwrap()
}

fn set(app: &App, tenant: &str, res: &str, id: u64, doc: Value) {
    let (r, t, res) = (app.st.res.clone(), tenant.to_string(), res.to_string());
    app.st.store.write(move |w| w.update(&r.get(&res), &t, id, doc.as_object().unwrap().clone(), &store::Actor::default()).map(|_| ())).unwrap();
}

const STAFF: &[&str] = &["work", "work_start", "work_start_view", "work_start_flow", "work_claim", "work_claim_view", "work_claim_sign", "work_todo", "work_todo_view", "work_todo_handle", "work_send", "work_send_view", "work_done", "work_done_view"];

struct People {
    admin: String,
    /// The platform administrator: designs and deploys models (BladeX's model and manager screens are the
    /// platform's).
    platform: String,
    zhang: String,
    li: String,
    wang: String,
    li_id: u64,
    zhang_id: u64,
    wang_id: u64,
}

/// Tenant A: 张 (applicant) in 工程部 led by 李; 王 a colleague; the admin.
async fn people(app: &App) -> People {
    app.make_role(A, "staff", STAFF).await;
    let zhang_id = app.make_user(A, "zhang", "Zz#12345", &["staff"]).await;
    let li_id = app.make_user(A, "li", "Zz#12345", &["staff"]).await;
    let wang_id = app.make_user(A, "wang", "Zz#12345", &["staff"]).await;
    let dept = put(app, A, "dept", json!({"parentId": 0, "deptName": "工程部", "fullName": "工程部", "deptCategory": 2, "leaderId": li_id}));
    for u in [zhang_id, li_id, wang_id] {
        set(app, A, "user", u, json!({"deptId": dept.to_string()}));
    }
    People {
        admin: app.admin(A).await,
        platform: app.admin("000000").await,
        zhang: app.sign_in(A, "zhang", "Zz#12345").await,
        li: app.sign_in(A, "li", "Zz#12345").await,
        wang: app.sign_in(A, "wang", "Zz#12345").await,
        li_id,
        zhang_id,
        wang_id,
    }
}

async fn leave_process(app: &App, t: &str) -> String {
    let (s, v) = get(app, t, &format!("{F}/work/start-list?current=1&size=10")).await;
    assert_eq!(s, 200, "{v}");
    v["data"]["records"].as_array().unwrap().iter().find(|r| r["key"] == "leave").unwrap_or_else(|| panic!("no leave process: {v}"))["id"].as_str().unwrap().to_string()
}

async fn todo(app: &App, t: &str) -> Vec<Value> {
    let (s, v) = get(app, t, &format!("{F}/work/todo-list?current=1&size=50")).await;
    assert_eq!(s, 200, "{v}");
    v["data"]["records"].as_array().unwrap().clone()
}

/// The signed-in user's newest unread messages (the bell's) whose title starts with `prefix` and whose link contains
/// `link` ("" for any).
fn bell(v: &Value, prefix: &str, link: &str) -> usize {
    v["data"]["latest"].as_array().unwrap().iter().filter(|m| m["title"].as_str().unwrap_or("").starts_with(prefix) && m["link"].as_str().unwrap_or("").contains(link)).count()
}

#[tokio::test]
async fn leave_runs_across_users_with_rule_12() {
    let app = App::new();
    let p = people(&app).await;
    let pid = leave_process(&app, &p.zhang).await;
    // A leave is applied for on a leave process only (a 施工审批 instance could never be adjusted as a leave).
    // 施工审批 are started on their 施工单 (bound to it): 发起事务 does not offer them, and a start without one is refused.
    let (_, v) = get(&app, &p.zhang, &format!("{F}/work/start-list?current=1&size=50")).await;
    let keys: Vec<&str> = v["data"]["records"].as_array().unwrap().iter().filter_map(|r| r["key"].as_str()).collect();
    assert!(keys.contains(&"leave") && !keys.contains(&"crew_apply") && !keys.contains(&"measure_model"), "{v}");
    let (_, v) = get(&app, &p.platform, &format!("{F}/manager/list?tenantId={A}&current=1&size=50")).await;
    let other = v["data"]["records"].as_array().unwrap().iter().find(|r| r["key"] == "crew_apply").unwrap_or_else(|| panic!("no crew process: {v}")).clone();
    let (s, v) = post(&app, &p.zhang, &format!("{F}/work/start-process"), json!({"processDefinitionId": other["id"], "variables": {"constructId": "", "remark": ""}})).await;
    assert_eq!((s, msg(&v)), (400, "人工组织申请须在施工单的「审批」页发起,以关联施工单".to_string()), "{v}");
    let (s, v) = post(&app, &p.zhang, &format!("{LEAVE}/start-process"), json!({"processDefinitionId": other["id"], "leaveType": "1", "startTime": "2026-11-23 09:00:00", "endTime": "2026-11-23 18:00:00", "reason": "家中有事"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("不是请假流程"), "{v}");
    // Five working days (Monday to Friday): the leader, then an administrator (candidates: the admin role).
    let (s, v) = post(&app, &p.zhang, &format!("{LEAVE}/start-process"), json!({"processDefinitionId": pid, "leaveType": "1", "startTime": "2026-11-23 09:00:00", "endTime": "2026-11-27 18:00:00", "reason": "家中有事"})).await;
    assert_eq!(s, 200, "{v}");
    let (inst, business) = (v["data"]["processInstanceId"].as_str().unwrap().to_string(), v["data"]["businessId"].as_str().unwrap().to_string());
    assert_eq!(v["data"]["currentNodes"], "部门领导审批", "{v}");
    // A year without holidays in 参数 leave.holidays is named (counted by weekends alone): this company has set none.
    let (_, v) = get(&app, &p.zhang, &format!("{LEAVE}/days?startTime=2026-12-31%2009:00:00&endTime=2027-01-04%2018:00:00")).await;
    assert_eq!(v["data"]["holidaysUnset"], json!([2026, 2027]), "{v}");
    // One person is away once: a leave overlapping one in approval is refused, naming it; one ending as it starts is not.
    let (s, v) = post(&app, &p.zhang, &format!("{LEAVE}/start-process"), json!({"leaveType": "2", "startTime": "2026-11-25 09:00:00", "endTime": "2026-11-25 18:00:00", "reason": "看病"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("与您审批中的请假(2026-11-23 09:00:00 至 2026-11-27 18:00:00)时间重叠"), "{v}");
    // 请假流程 lists the applicant's own applications with their state and the step each waits at.
    let (s, v) = get(&app, &p.zhang, &format!("{LEAVE}/list")).await;
    assert_eq!(s, 200, "{v}");
    let row = &v["data"]["records"][0];
    assert_eq!((v["data"]["total"].as_u64(), row["businessId"].as_str(), row["statusName"].as_str(), row["taskName"].as_str(), row["days"].as_str(), row["leaveTypeName"].as_str()),
        (Some(1), Some(business.as_str()), Some("审批中"), Some("部门领导审批"), Some("5"), Some("事假")), "{v}");
    assert_eq!(row["waitingOn"], "li", "who the step waits on: {v}");
    let (_, v) = get(&app, &p.li, &format!("{LEAVE}/list")).await;
    assert_eq!(v["data"]["total"], 0, "another user's applications are not in one's own list: {v}");
    // 李 leads 工程部: the task is his.
    let li_todo = todo(&app, &p.li).await;
    assert_eq!(li_todo.len(), 1, "{li_todo:?}");
    let task = li_todo[0]["taskId"].as_str().unwrap().to_string();
    assert_eq!(li_todo[0]["processDefinitionName"], "请假流程");
    assert_eq!(li_todo[0]["startUserName"], "zhang");
    assert!(todo(&app, &p.wang).await.is_empty());
    // Rule 12: 王 may not complete it (403), nor see its history (404); a variable not declared: 400 naming it.
    let (s, v) = post(&app, &p.wang, &format!("{F}/work/complete-task"), json!({"taskId": task, "flag": "ok", "comment": "同意"})).await;
    assert_eq!(s, 403, "{v}");
    let (s, _) = get(&app, &p.wang, &format!("{F}/process/history-flow-list?processInstanceId={inst}")).await;
    assert_eq!(s, 404);
    let (s, _) = get(&app, &p.wang, &format!("{LEAVE}/detail?businessId={business}")).await;
    assert_eq!(s, 404);
    let (s, v) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": task, "flag": "ok", "variables": {"amount": 5}})).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("amount"), "{v}");
    let (s, v) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": task, "flag": "ok", "variables": {"days": "many"}})).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("days"), "{v}");
    let (s, v) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": task, "flag": "ok", "variables": {"pass": false}})).await;
    assert_eq!(s, 400, "{v}");
    // The starter cannot withdraw once... not yet: nobody decided, so withdrawing is still possible — but 李
    // decides first. A wrong instance id with the task: 404.
    let (s, _) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": task, "processInstanceId": "123", "flag": "ok"})).await;
    assert_eq!(s, 404);
    // His bell says the task is his to do; 待办事务 asked for this task alone finds it.
    let handle = format!("/handle/{task}/");
    let unread_todo = |v: &Value| bell(v, "待办", &handle);
    let (_, v) = get(&app, &p.li, "/api/blade-desk/message/unread-count").await;
    assert_eq!(unread_todo(&v), 1, "{v}");
    let (_, v) = get(&app, &p.li, &format!("{F}/work/todo-list?taskId={task}")).await;
    assert_eq!(v["data"]["total"], 1, "{v}");
    let (s, v) = get(&app, &p.li, &format!("{F}/work/todo-list?taskId=abc")).await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": task, "processInstanceId": inst, "flag": "ok", "comment": "同意,注意交接"})).await;
    assert_eq!(s, 200, "{v}");
    // Done, it leaves his bell (the message marked read in the same commit) and his 待办 for this task.
    let (_, v) = get(&app, &p.li, "/api/blade-desk/message/unread-count").await;
    assert_eq!(unread_todo(&v), 0, "a decided task is no longer to do: {v}");
    let (_, v) = get(&app, &p.li, &format!("{F}/work/todo-list?taskId={task}")).await;
    assert_eq!(v["data"]["total"], 0, "{v}");
    let (_, v) = get(&app, &p.li, &format!("{F}/work/done-list?taskId={task}")).await;
    assert_eq!(v["data"]["total"], 1, "{v}");
    // The applicant hears that his leader agreed and where it waits now.
    let (_, v) = get(&app, &p.zhang, "/api/blade-desk/message/unread-count").await;
    assert_eq!(bell(&v, "请假流程:li已同意", &format!("/work/process/leave/detail/{inst}/")), 1, "{v}");
    assert!(v["data"]["latest"].as_array().unwrap().iter().any(|m| m["title"].as_str().is_some_and(|t| t.ends_with("已同意,转管理员审批"))), "{v}");
    // Five days go on to 管理员审批, which the administrators claim: the list says so (it named 李 still).
    let (_, v) = get(&app, &p.zhang, &format!("{LEAVE}/list")).await;
    assert_eq!((v["data"]["records"][0]["taskName"].as_str(), v["data"]["records"][0]["waitingOn"].as_str()), (Some("管理员审批"), Some("待签收")), "{v}");
    // A retried completion answers the same and changes nothing; another decision on it is refused, never
    // reported as done.
    let (s, _) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": task, "processInstanceId": inst, "flag": "ok"})).await;
    assert_eq!(s, 200);
    let (s, v) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": task, "processInstanceId": inst, "pass": false, "comment": "改主意了"})).await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["msg"], "该任务已办理或已关闭", "{v}");
    let (s, v) = post(&app, &p.zhang, &format!("{F}/work/withdraw?processInstanceId={inst}"), json!({})).await;
    assert_eq!(s, 400, "someone decided: {v}");
    // More than 3 days: the administrators' claim list.
    let (s, v) = get(&app, &p.admin, &format!("{F}/work/claim-list?current=1&size=10")).await;
    assert_eq!(s, 200);
    let claim = v["data"]["records"][0]["taskId"].as_str().unwrap_or_else(|| panic!("nothing to claim: {v}")).to_string();
    assert_eq!(v["data"]["records"][0]["taskName"], "管理员审批");
    let (s, v) = post(&app, &p.wang, &format!("{F}/work/claim-task?taskId={claim}"), json!({})).await;
    assert_eq!(s, 403, "a non-candidate claims: {v}");
    let (s, v) = post(&app, &p.admin, &format!("{F}/work/complete-task"), json!({"taskId": claim, "flag": "ok"})).await;
    assert_eq!(s, 400, "unclaimed: {v}");
    let claim_msgs = |v: &Value| bell(v, "待签收", "");
    let (_, v) = get(&app, &p.admin, "/api/blade-desk/message/unread-count").await;
    assert_eq!(claim_msgs(&v), 1, "{v}");
    let (_, v) = get(&app, &p.admin, &format!("{F}/work/claim-list?taskId={claim}")).await;
    assert_eq!(v["data"]["total"], 1, "a candidate finds the task to claim by its id: {v}");
    let (_, v) = get(&app, &p.wang, &format!("{F}/work/claim-list?taskId={claim}")).await;
    assert_eq!(v["data"]["total"], 0, "not a candidate: {v}");
    let (s, v) = post(&app, &p.admin, &format!("{F}/work/claim-task?taskId={claim}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(todo(&app, &p.admin).await.len(), 1);
    let (_, v) = get(&app, &p.admin, "/api/blade-desk/message/unread-count").await;
    assert_eq!(claim_msgs(&v), 0, "claimed, it is no longer to claim: {v}");
    // Claimed, it is the administrator's: another user claiming it is refused for rights (403), not for state.
    let (s, v) = post(&app, &p.li, &format!("{F}/work/claim-task?taskId={claim}"), json!({})).await;
    assert_eq!(s, 403, "someone else's task: {v}");
    let (s, v) = post(&app, &p.admin, &format!("{F}/work/complete-task"), json!({"taskId": claim, "processInstanceId": inst, "comment": "年底项目紧,请改期"})).await;
    assert_eq!(s, 200, "a rejection (no flag): {v}");
    // Back to the applicant to adjust; the applicant resubmits; the leader and the admin agree.
    let t = todo(&app, &p.zhang).await;
    assert_eq!(t[0]["taskName"], "调整申请", "{t:?}");
    let (s, _) = post(&app, &p.zhang, &format!("{F}/work/complete-task"), json!({"taskId": t[0]["taskId"], "flag": "ok", "comment": "改为下周"})).await;
    assert_eq!(s, 200);
    let t = todo(&app, &p.li).await;
    post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": t[0]["taskId"], "flag": "ok"})).await;
    let (_, v) = get(&app, &p.admin, &format!("{F}/work/claim-list")).await;
    let claim = v["data"]["records"][0]["taskId"].as_str().unwrap().to_string();
    post(&app, &p.admin, &format!("{F}/work/claim-task?taskId={claim}"), json!({})).await;
    let (s, _) = post(&app, &p.admin, &format!("{F}/work/complete-task"), json!({"taskId": claim, "flag": "ok", "comment": "同意"})).await;
    assert_eq!(s, 200);
    // The leave record took the result; history has every step.
    let (s, v) = get(&app, &p.zhang, &format!("{LEAVE}/detail?businessId={business}")).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!((v["data"]["status"].as_i64(), v["data"]["days"].as_str(), v["data"]["flow"]["processIsFinished"].as_bool()), (Some(1), Some("5"), Some(true)), "{v}");
    let (_, v) = get(&app, &p.zhang, &format!("{LEAVE}/list")).await;
    assert_eq!((v["data"]["records"][0]["statusName"].as_str(), v["data"]["records"][0]["taskName"].as_str()), (Some("已通过"), Some("")), "{v}");
    let (s, v) = get(&app, &p.li, &format!("{F}/process/history-flow-list?processInstanceId={inst}")).await;
    assert_eq!(s, 200, "{v}");
    let steps: Vec<(String, String)> = v["data"].as_array().unwrap().iter().map(|h| (h["historyActivityName"].as_str().unwrap().to_string(), h["action"].as_str().unwrap().to_string())).collect();
    let want = [("提交申请", "start"), ("部门领导审批", "pass"), ("管理员审批", "claim"), ("管理员审批", "reject"), ("调整申请", "pass"), ("部门领导审批", "pass"), ("管理员审批", "claim"), ("管理员审批", "pass"), ("结束", "end")];
    assert_eq!(steps, want.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>());
    assert!(v["data"][3]["comment"].as_str().unwrap().contains("年底项目紧"));
    // Lists: sent and done.
    let (_, v) = get(&app, &p.zhang, &format!("{F}/work/send-list")).await;
    assert_eq!((v["data"]["total"].as_u64(), v["data"]["records"][0]["statusName"].as_str()), (Some(1), Some("已通过")), "{v}");
    let (_, v) = get(&app, &p.li, &format!("{F}/work/done-list")).await;
    assert_eq!(v["data"]["total"], 2, "{v}");
    let (_, v) = get(&app, &p.li, &format!("{F}/process/diagram?processInstanceId={inst}")).await;
    assert_eq!(v["data"]["path"].as_array().unwrap().first().and_then(Value::as_str), Some("start"), "{v}");
    assert_eq!(v["data"]["summary"], "2026-11-23 09:00 至 2026-11-27 18:00", "what it is about: {v}");
    // A short leave needs the leader alone.
    let (_, v) = post(&app, &p.zhang, &format!("{LEAVE}/start-process"), json!({"leaveType": 2, "startTime": "2026-12-01 09:00:00", "endTime": "2026-12-02 12:00:00", "reason": "看病"})).await;
    let business2 = v["data"]["businessId"].as_str().unwrap().to_string();
    let t = todo(&app, &p.li).await;
    post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": t[0]["taskId"], "flag": "ok"})).await;
    let (_, v) = get(&app, &p.zhang, &format!("{LEAVE}/detail?businessId={business2}")).await;
    assert_eq!((v["data"]["status"].as_i64(), v["data"]["days"].as_str(), v["data"]["leaveTypeName"].as_str()), (Some(1), Some("1.5"), Some("病假")), "{v}");
    // Never himself while he has a leader, whichever route starts it (the generic start takes variables as sent).
    let (s, v) = post(&app, &p.zhang, &format!("{F}/work/start-process"), json!({"processDefinitionId": leave_process(&app, &p.zhang).await, "variables": {"taskUser": p.zhang_id.to_string(), "days": 1}})).await;
    assert_eq!(s, 200, "{v}");
    let own = v["data"]["processInstanceId"].clone();
    assert!(!todo(&app, &p.zhang).await.iter().any(|t| t["processInstanceId"] == own), "not his own approver");
    assert!(todo(&app, &p.li).await.iter().any(|t| t["processInstanceId"] == own), "his leader's");
    // An approver chosen on the form decides instead of the leader (the form: 不选则由部门负责人审批).
    let before = todo(&app, &p.li).await.len();
    let (s, v) = post(&app, &p.zhang, &format!("{LEAVE}/start-process"), json!({"leaveType": 2, "taskUser": p.wang_id.to_string(), "startTime": "2026-12-03 09:00:00", "endTime": "2026-12-03 18:00:00", "reason": "复诊"})).await;
    assert_eq!(s, 200, "{v}");
    let chosen = v["data"]["processInstanceId"].clone();
    assert!(todo(&app, &p.wang).await.iter().any(|t| t["processInstanceId"] == chosen), "the chosen approver has it");
    assert_eq!(todo(&app, &p.li).await.len(), before, "the leader does not");
    let _ = (p.li_id, p.zhang_id);
    let (instances, tasks) = audit_clean(&app);
    assert!(instances >= 2 && tasks >= 6, "{instances} {tasks}");
}

#[tokio::test]
async fn a_leave_given_back_is_changed_and_sent_again_by_its_applicant() {
    let app = App::new();
    let p = people(&app).await;
    // Five working days: the leader, then an administrator. The leader gives it back.
    let (s, v) = post(&app, &p.zhang, &format!("{LEAVE}/start-process"), json!({"leaveType": "1", "startTime": "2026-11-23 09:00:00", "endTime": "2026-11-27 18:00:00", "reason": "家中有事"})).await;
    assert_eq!(s, 200, "{v}");
    let (inst, business) = (v["data"]["processInstanceId"].as_str().unwrap().to_string(), v["data"]["businessId"].as_str().unwrap().to_string());
    let leader_task = todo(&app, &p.li).await[0]["taskId"].as_str().unwrap().to_string();
    // The leader may not change the leave through his own step (only its applicant adjusts it): 403.
    let (s, v) = post(&app, &p.li, &format!("{LEAVE}/resubmit"), json!({"taskId": leader_task, "startTime": "2026-11-23 09:00:00", "endTime": "2026-11-24 18:00:00", "reason": "x"})).await;
    assert_eq!(s, 403, "{v}");
    let (s, v) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": leader_task, "pass": false, "comment": "项目节点冲突,请改到两天"})).await;
    assert_eq!(s, 200, "{v}");
    let adjust = todo(&app, &p.zhang).await;
    assert_eq!(adjust[0]["taskName"], "调整申请", "{adjust:?}");
    let adjust = adjust[0]["taskId"].as_str().unwrap().to_string();
    // His bell says who gave it back and why (it said only 待办 and who applied).
    let (_, v) = get(&app, &p.zhang, "/api/blade-desk/message/unread-count").await;
    assert!(v["data"]["latest"].as_array().unwrap().iter().any(|m| m["title"].as_str().unwrap_or("").contains("调整申请") && m["content"].as_str().unwrap_or("").contains("驳回:项目节点冲突,请改到两天")), "{v}");
    // The handle page asks one task: the server says which is the applicant's 调整申请 (his leave as a form).
    let flag = |t: String, task: String| {
        let app = &app;
        async move {
            let (s, v) = get(app, &t, &format!("{F}/work/todo-list?taskId={task}")).await;
            assert_eq!(s, 200, "{v}");
            v["data"]["records"][0]["adjust"].clone()
        }
    };
    assert_eq!(flag(p.zhang.clone(), adjust.clone()).await, true);
    let (s, v) = post(&app, &p.zhang, &format!("{LEAVE}/start-process"), json!({"leaveType": "1", "startTime": "2026-12-01 09:00:00", "endTime": "2026-12-01 18:00:00", "reason": "另一件事"})).await;
    assert_eq!(s, 200, "{v}");
    let other = todo(&app, &p.li).await.iter().find(|t| t["processInstanceId"] == v["data"]["processInstanceId"]).unwrap()["taskId"].as_str().unwrap().to_string();
    assert_eq!(flag(p.li.clone(), other).await, false, "the leader's step is an approver's");
    // Nor may he make himself the approver of his own leave through the generic completion of his step (a
    // taskUser of his own and one day instead of five skipped the leader and 管理员审批): 400, nothing moved.
    let (s, v) = post(&app, &p.zhang, &format!("{F}/work/complete-task"), json!({"taskId": adjust, "pass": true, "variables": {"taskUser": p.zhang_id.to_string(), "days": 1}})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("不能修改流程变量"), "{v}");
    assert_eq!(flag(p.zhang.clone(), adjust.clone()).await, true, "still his to adjust");
    // Someone else may not send it on, whatever the body says (decided before the body is read).
    let (s, v) = post(&app, &p.wang, &format!("{LEAVE}/resubmit"), json!({"taskId": adjust})).await;
    assert_eq!(s, 403, "{v}");
    let (s, v) = post(&app, &p.zhang, &format!("{LEAVE}/resubmit"), json!({"taskId": adjust, "startTime": "2026-11-23 09:00:00", "endTime": "2026-11-20 18:00:00", "reason": "家中有事"})).await;
    assert_eq!(s, 400, "an end before the start: {v}");
    // Two working days now: the leave changes with the step, and the gateway reads the new days (no administrator).
    let (s, v) = post(&app, &p.zhang, &format!("{LEAVE}/resubmit"), json!({"taskId": adjust, "leaveType": "2", "startTime": "2026-11-23 09:00:00", "endTime": "2026-11-24 18:00:00", "reason": "改为两天", "comment": "已按要求调整"})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["days"], "2", "{v}");
    let (_, v) = get(&app, &p.zhang, &format!("{LEAVE}/detail?businessId={business}")).await;
    assert_eq!((v["data"]["days"].as_str(), v["data"]["reason"].as_str(), v["data"]["leaveTypeName"].as_str(), v["data"]["endTime"].as_str()), (Some("2"), Some("改为两天"), Some("病假"), Some("2026-11-24 18:00:00")), "{v}");
    assert!(todo(&app, &p.zhang).await.is_empty());
    let (s, v) = post(&app, &p.zhang, &format!("{LEAVE}/resubmit"), json!({"taskId": adjust, "startTime": "2026-11-23 09:00:00", "endTime": "2026-11-24 18:00:00", "reason": "x"})).await;
    assert_eq!(s, 400, "sent on once: the step is no longer open: {v}");
    // Given back once more and sent on without a type: the leave keeps its own (病假), not erased.
    let again = todo(&app, &p.li).await[0]["taskId"].as_str().unwrap().to_string();
    let (s, _) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": again, "pass": false, "comment": "再确认一下日期"})).await;
    assert_eq!(s, 200);
    // Two sendings at once (a double click, two tabs): one takes the step, the other is refused, and the leave
    // holds the one that took it (never one request's leave with the other's process).
    let adjust2 = todo(&app, &p.zhang).await[0]["taskId"].as_str().unwrap().to_string();
    let url = format!("{LEAVE}/resubmit");
    let (a, b) = tokio::join!(
        post(&app, &p.zhang, &url, json!({"taskId": adjust2, "startTime": "2026-11-23 09:00:00", "endTime": "2026-11-24 18:00:00", "reason": "改为两天"})),
        post(&app, &p.zhang, &url, json!({"taskId": adjust2, "startTime": "2026-11-23 09:00:00", "endTime": "2026-11-23 18:00:00", "reason": "改为一天"}))
    );
    let won = match (a.0, b.0) {
        (200, 400) => a.1,
        (400, 200) => b.1,
        other => panic!("one of two sendings takes the step: {other:?} {} {}", a.1, b.1),
    };
    let (_, v) = get(&app, &p.zhang, &format!("{LEAVE}/detail?businessId={business}")).await;
    assert_eq!((v["data"]["leaveTypeName"].as_str(), v["data"]["days"].as_str()), (Some("病假"), won["data"]["days"].as_str()), "{v} {won}");
    let again = todo(&app, &p.li).await[0]["taskId"].as_str().unwrap().to_string();
    let (s, _) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": again, "pass": true, "comment": "同意"})).await;
    assert_eq!(s, 200);
    let (_, v) = get(&app, &p.zhang, &format!("{LEAVE}/detail?businessId={business}")).await;
    assert_eq!((v["data"]["status"].as_i64(), v["data"]["flow"]["processIsFinished"].as_bool()), (Some(1), Some(true)), "two days end with the leader: {v}");
    let (_, v) = get(&app, &p.zhang, &format!("{F}/process/history-flow-list?processInstanceId={inst}")).await;
    let adjusted = v["data"].as_array().unwrap().iter().find(|h| h["historyActivityName"] == "调整申请").cloned().unwrap_or_default();
    assert_eq!((adjusted["action"].as_str(), adjusted["comment"].as_str()), (Some("pass"), Some("已按要求调整")), "{v}");
    // Named for what it did (it read 同意), in the history and in his 办结事务; the leader's step keeps 同意/驳回.
    assert_eq!(adjusted["actionName"], "重新提交", "{v}");
    assert!(v["data"].as_array().unwrap().iter().filter(|h| h["historyActivityName"] == "部门领导审批").all(|h| h["actionName"].is_null()), "{v}");
    let (_, v) = get(&app, &p.zhang, &format!("{F}/work/done-list?current=1&size=50")).await;
    let own = v["data"]["records"].as_array().unwrap().iter().find(|r| r["taskName"] == "调整申请").unwrap_or_else(|| panic!("{v}")).clone();
    assert_eq!((own["ownStep"].as_bool(), own["result"].as_i64()), (Some(true), Some(1)), "{own}");
    let (_, v) = get(&app, &p.li, &format!("{F}/work/done-list?current=1&size=50")).await;
    assert!(v["data"]["records"].as_array().unwrap().iter().all(|r| r["ownStep"] == false), "{v}");
    let (instances, tasks) = audit_clean(&app);
    assert!(instances >= 1 && tasks >= 3, "{instances} {tasks}");
}

/// A one-day leave `t` applies for (no approver named: the department leader decides); its instance. Each on a
/// day of its own (one person's leaves may not overlap): the n-th call of the process on the n-th weekday from
/// Monday 2026-11-02 (none of them holidays).
async fn one_day_leave(app: &App, t: &str) -> String {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 2).unwrap() + chrono::Days::new(n / 5 * 7 + n % 5);
    let (s, v) = post(app, t, &format!("{LEAVE}/start-process"), json!({"startTime": format!("{day} 09:00:00"), "endTime": format!("{day} 18:00:00"), "reason": "事假"})).await;
    assert_eq!(s, 200, "{v}");
    v["data"]["processInstanceId"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn withdraw_delete_and_reassign() {
    let app = App::new();
    let p = people(&app).await;
    // 请假流程 offers 撤回 while it would be taken: running, nothing decided yet.
    let withdrawable = |i: String| {
        let (app, t) = (&app, p.zhang.clone());
        async move {
            let (s, v) = get(app, &t, &format!("{LEAVE}/list?current=1&size=50")).await;
            assert_eq!(s, 200, "{v}");
            v["data"]["records"].as_array().unwrap().iter().find(|r| r["processInstanceId"] == i.as_str()).unwrap_or_else(|| panic!("{v}"))["withdrawable"].clone()
        }
    };
    let i1 = one_day_leave(&app, &p.zhang).await;
    assert_eq!(withdrawable(i1.clone()).await, true);
    let (s, _) = post(&app, &p.wang, &format!("{F}/work/withdraw?processInstanceId={i1}"), json!({})).await;
    assert_eq!(s, 403, "only the starter withdraws");
    let (s, v) = post(&app, &p.zhang, &format!("{F}/work/withdraw?processInstanceId={i1}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    assert!(todo(&app, &p.li).await.is_empty(), "the withdrawn task left the leader's list");
    let unread_todos = |v: &Value| bell(v, "待办", "");
    let (_, v) = get(&app, &p.li, "/api/blade-desk/message/unread-count").await;
    assert_eq!(unread_todos(&v), 0, "nor is it in his bell: {v}");
    let (s, _) = post(&app, &p.zhang, &format!("{F}/work/withdraw?processInstanceId={i1}"), json!({})).await;
    assert_eq!(s, 400);
    assert_eq!(withdrawable(i1.clone()).await, false, "withdrawn");
    // Its page says 已撤回 as 请假流程 does (it said 未通过).
    let (_, v) = get(&app, &p.zhang, &format!("{LEAVE}/list?current=1&size=50")).await;
    let b1 = v["data"]["records"].as_array().unwrap().iter().find(|r| r["processInstanceId"] == i1.as_str()).unwrap()["businessId"].as_str().unwrap().to_string();
    let (_, v) = get(&app, &p.zhang, &format!("{LEAVE}/detail?businessId={b1}")).await;
    assert_eq!(v["data"]["statusName"], "已撤回", "{v}");
    // Given back by the leader (a step decided), it is still running but no longer withdrawn.
    let i4 = one_day_leave(&app, &p.zhang).await;
    let t4 = todo(&app, &p.li).await.iter().find(|t| t["processInstanceId"] == i4.as_str()).unwrap()["taskId"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": t4, "processInstanceId": i4, "pass": false, "comment": "日期冲突"})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(withdrawable(i4.clone()).await, false, "a step was decided");
    // 已发事务 says the same (it offered 撤回 on every running instance).
    let (_, v) = get(&app, &p.zhang, &format!("{F}/work/send-list?current=1&size=50")).await;
    let sent = |i: &str| v["data"]["records"].as_array().unwrap().iter().find(|r| r["processInstanceId"] == i).unwrap_or_else(|| panic!("{v}"))["withdrawable"].clone();
    assert_eq!((sent(&i4), sent(&i1)), (json!(false), json!(false)), "{v}");
    let (s, v) = post(&app, &p.zhang, &format!("{F}/work/withdraw?processInstanceId={i4}"), json!({})).await;
    assert_eq!(s, 400, "{v}");
    // An administrator reassigns the leader's task to 王, then deletes another instance with a reason.
    let i2 = one_day_leave(&app, &p.zhang).await;
    let (_, v) = get(&app, &p.zhang, &format!("{F}/work/send-list?current=1&size=50")).await;
    assert!(v["data"]["records"].as_array().unwrap().iter().any(|r| r["processInstanceId"] == i2.as_str() && r["withdrawable"] == true), "nothing decided yet: {v}");
    let task = todo(&app, &p.li).await[0]["taskId"].as_str().unwrap().to_string();
    let wang_id = {
        let (_, v) = get(&app, &p.wang, "/api/blade-user/info").await;
        v["data"]["id"].as_str().map(str::to_string).unwrap_or_default()
    };
    let (s, v) = post(&app, &p.zhang, &format!("{F}/follow/reassign?taskId={task}&userId={wang_id}&reason=x"), json!({})).await;
    assert_eq!(s, 403, "{v}");
    let (s, v) = post(&app, &p.admin, &format!("{F}/follow/reassign?taskId={task}&userId={wang_id}"), json!({})).await;
    assert_eq!(s, 400, "a reason is required: {v}");
    let (_, v) = get(&app, &p.li, "/api/blade-desk/message/unread-count").await;
    assert_eq!(unread_todos(&v), 1, "{v}");
    let (s, v) = post(&app, &p.admin, &format!("{F}/follow/reassign?taskId={task}&userId={wang_id}&reason=李经理出差"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &p.li, "/api/blade-desk/message/unread-count").await;
    assert_eq!(unread_todos(&v), 0, "handed on, it is no longer his to do: {v}");
    assert!(todo(&app, &p.li).await.is_empty());
    let (s, v) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": task, "flag": "ok"})).await;
    assert_eq!(s, 403, "{v}");
    let (s, v) = post(&app, &p.wang, &format!("{F}/work/complete-task"), json!({"taskId": task, "flag": "ok"})).await;
    assert_eq!(s, 200, "{v}");
    let i3 = one_day_leave(&app, &p.zhang).await;
    let (_, v) = get(&app, &p.admin, &format!("{F}/follow/list")).await;
    assert!(v["data"]["records"].as_array().unwrap().iter().any(|r| r["processInstanceId"] == i3.as_str()), "{v}");
    let (s, _) = post(&app, &p.admin, &format!("{F}/follow/delete-process-instance?processInstanceId={i3}&deleteReason=重复提交"), json!({})).await;
    assert_eq!(s, 200);
    let (_, v) = get(&app, &p.zhang, &format!("{F}/process/history-flow-list?processInstanceId={i3}")).await;
    assert!(v.to_string().contains("重复提交"), "{v}");
    assert!(todo(&app, &p.li).await.is_empty());
    let _ = i2;
    audit_clean(&app);
}

/// Messages written before a message kept its task: the start's upgrade gives each unread 待办 its task from its
/// link, and marks read one whose task is no longer open for its recipient (it was listed as to do for good).
#[tokio::test]
async fn old_task_messages_get_their_task_and_decided_ones_are_read() {
    let app = App::new();
    let p = people(&app).await;
    let (open_inst, done_inst) = (one_day_leave(&app, &p.zhang).await, one_day_leave(&app, &p.zhang).await);
    let task_of = |list: &[Value], inst: &str| list.iter().find(|t| t["processInstanceId"] == inst).unwrap()["taskId"].as_str().unwrap().parse::<u64>().unwrap();
    let li_todo = todo(&app, &p.li).await;
    let (open_task, done_task) = (task_of(&li_todo, &open_inst), task_of(&li_todo, &done_inst));
    let (s, v) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": done_task.to_string(), "flag": "ok"})).await;
    assert_eq!(s, 200, "{v}");
    let li_id: u64 = p.li_id;
    // As an older version wrote them: no taskId, the task in the link.
    let old = |task: u64, inst: &str| json!({"userId": li_id, "kind": 1, "title": "待办:请假流程", "link": format!("/work/process/leave/handle/{task}/{inst}/0"), "unread": 1});
    let m_open = put(&app, A, "message", old(open_task, &open_inst));
    let m_done = put(&app, A, "message", old(done_task, &done_inst));
    let (r, st) = (app.st.res.clone(), app.st.store.clone());
    st.write(move |w| {
        w.delete_meta("upgrade:message_task_ids")?;
        zhizhuang::seed::upgrade(w, &r)
    })
    .unwrap();
    let get_msg = |id: u64| {
        let r = app.st.res.clone();
        app.st.store.read(move |rd| rd.get(&r.get("message"), A, id)).unwrap().unwrap()
    };
    let (a, b) = (get_msg(m_open), get_msg(m_done));
    assert_eq!((a["taskId"].as_u64(), a["unread"].as_i64()), (Some(open_task), Some(1)), "still to do: {a:?}");
    assert_eq!((b["taskId"].as_u64(), b["unread"].as_i64()), (Some(done_task), Some(0)), "decided: {b:?}");
    // From then on the task's decision settles the old message too.
    let (s, v) = post(&app, &p.li, &format!("{F}/work/complete-task"), json!({"taskId": open_task.to_string(), "flag": "ok"})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(get_msg(m_open)["unread"].as_i64(), Some(0));
}

fn model_body(key: &str, days_over: u32) -> Value {
    json!({"modelKey": key, "name": "采购审批", "category": 1, "definition": {
        "variables": [{"name": "amount", "type": "number", "required": true}, {"name": "approver", "type": "user"}],
        "nodes": [
            {"id": "s", "type": "start", "name": "发起"},
            {"id": "g", "type": "exclusive", "name": "金额", "default": "small"},
            {"id": "boss", "type": "task", "name": "总经理", "assign": {"kind": "role", "role": "admin"}, "mode": "claim"},
            {"id": "mgr", "type": "task", "name": "经理", "assign": {"kind": "var", "var": "approver"}},
            {"id": "e", "type": "end", "name": "结束"}
        ],
        "flows": [
            {"id": "f1", "from": "s", "to": "g"},
            {"id": "big", "from": "g", "to": "boss", "condition": format!("amount > {days_over}")},
            {"id": "small", "from": "g", "to": "mgr"},
            {"id": "f4", "from": "boss", "to": "e"},
            {"id": "f5", "from": "mgr", "to": "e"}
        ]
    }})
}

#[tokio::test]
async fn models_are_checked_deployed_in_versions_and_instances_keep_theirs() {
    let app = App::new();
    let p = people(&app).await;
    // A broken model is refused naming the node; check lists every problem.
    let mut bad = model_body("purchase", 1000);
    bad["definition"]["nodes"][1]["default"] = Value::Null;
    let (s, v) = post(&app, &p.platform, &format!("{F}/model/submit"), bad.clone()).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("金额"), "{v}");
    let (s, v) = post(&app, &p.platform, &format!("{F}/model/check"), json!({"definition": bad["definition"]})).await;
    assert_eq!(s, 200);
    assert_eq!(v["data"]["problems"][0]["node"], "g", "{v}");
    for t in [&p.zhang, &p.admin] {
        let (s, v) = post(&app, t, &format!("{F}/model/submit"), model_body("purchase", 1000)).await;
        assert_eq!(s, 403, "models are the platform's: {v}");
    }
    let (s, v) = post(&app, &p.platform, &format!("{F}/model/submit"), model_body("purchase", 1000)).await;
    assert_eq!(s, 200, "{v}");
    let model = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &p.platform, &format!("{F}/model/deploy?modelId={model}&tenantIds={A}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let v1 = v["data"]["deployed"][0]["processId"].as_str().unwrap().to_string();
    // Start on version 1 (over 1000 → the boss), with typed variables.
    let (s, v) = post(&app, &p.zhang, &format!("{F}/work/start-process"), json!({"processDefinitionId": v1, "variables": {"amount": "abc"}})).await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = post(&app, &p.zhang, &format!("{F}/work/start-process"), json!({"processDefinitionId": v1, "variables": {}})).await;
    assert_eq!(s, 400, "a required variable: {v}");
    let (s, v) = post(&app, &p.zhang, &format!("{F}/work/start-process"), json!({"processDefinitionId": v1, "variables": {"amount": "1500", "approver": p.li_id.to_string()}})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["currentNodes"], "总经理");
    let old = v["data"]["processInstanceId"].as_str().unwrap().to_string();
    // Version 2 raises the threshold; the running instance stays on version 1.
    let mut b2 = model_body("purchase", 5000);
    b2["id"] = json!(model);
    let (s, v) = post(&app, &p.platform, &format!("{F}/model/submit"), b2).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = post(&app, &p.platform, &format!("{F}/model/deploy?modelId={model}&tenantIds={A}"), json!({})).await;
    assert_eq!(v["data"]["deployed"][0]["version"], 2, "{v}");
    let v2 = v["data"]["deployed"][0]["processId"].as_str().unwrap().to_string();
    let (_, v) = post(&app, &p.zhang, &format!("{F}/work/start-process"), json!({"processDefinitionId": v2, "variables": {"amount": "1500", "approver": p.li_id.to_string()}})).await;
    assert_eq!(v["data"]["currentNodes"], "经理", "{v}");
    let (_, v) = get(&app, &p.admin, &format!("{F}/process/diagram?processInstanceId={old}")).await;
    assert_eq!(v["data"]["version"], 1, "{v}");
    let (_, v) = get(&app, &p.platform, &format!("{F}/manager/list?tenantId={A}")).await;
    let row = v["data"]["records"].as_array().unwrap().iter().find(|r| r["key"] == "purchase").cloned().unwrap();
    assert_eq!(row["version"], 2);
    // Suspended: nothing starts; active again: it does.
    let (s, _) = post(&app, &p.platform, &format!("{F}/manager/change-state?state=suspend&processId={v2}&tenantId={A}"), json!({})).await;
    assert_eq!(s, 200);
    let (s, v) = post(&app, &p.zhang, &format!("{F}/work/start-process"), json!({"processDefinitionId": v2, "variables": {"amount": "1"}})).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("挂起"));
    post(&app, &p.platform, &format!("{F}/manager/change-state?state=active&processId={v2}&tenantId={A}"), json!({})).await;
    // Deleting version 1 ends its running instance as deleted.
    let (s, v) = post(&app, &p.platform, &format!("{F}/manager/delete-deployment?deploymentIds={v1}&tenantId={A}"), json!({})).await;
    assert_eq!((s, v["data"]["endedInstances"].as_u64()), (200, Some(1)), "{v}");
    let (_, v) = get(&app, &p.zhang, &format!("{F}/work/send-list")).await;
    assert!(v["data"]["records"].as_array().unwrap().iter().any(|r| r["processInstanceId"] == old.as_str() && r["statusName"] == "已删除"), "{v}");
    audit_clean(&app);
}

const BPMN: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:flowable="http://flowable.org/bpmn">
  <process id="expense" name="报销流程">
    <startEvent id="start" flowable:initiator="applyUser"/>
    <userTask id="check" name="财务审核" flowable:candidateGroups="admin"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="check"/>
    <sequenceFlow id="f2" sourceRef="check" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>"#;

#[tokio::test]
async fn bpmn_upload_valid_and_hostile() {
    let app = App::new();
    let p = people(&app).await;
    let upload = |name: &str, body: String, category: &str| {
        let boundary = "zzBOUNDARY";
        let mut b = String::new();
        b.push_str(&format!("--{boundary}\r\nContent-Disposition: form-data; name=\"category\"\r\n\r\n{category}\r\n"));
        b.push_str(&format!("--{boundary}\r\nContent-Disposition: form-data; name=\"tenantIds\"\r\n\r\n{A}\r\n"));
        b.push_str(&format!("--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"{name}\"\r\nContent-Type: text/xml\r\n\r\n{body}\r\n--{boundary}--\r\n"));
        axum::http::Request::builder()
            .method("POST")
            .uri(format!("{F}/manager/deploy-upload"))
            .header("blade-auth", format!("bearer {}", p.platform))
            .header("content-type", format!("multipart/form-data; boundary={boundary}"))
            .body(axum::body::Body::from(b))
            .unwrap()
    };
    let (s, _, v) = app.call(upload("expense.bpmn20.xml", BPMN.into(), "1")).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["deployed"][0]["key"], "expense");
    let laughs = r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><definitions><process id="p">&lol2;</process></definitions>"#;
    let (s, _, v) = app.call(upload("laughs.xml", laughs.into(), "1")).await;
    assert_eq!(s, 400, "{v}");
    let xxe = r#"<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><definitions><process id="p"><startEvent id="s" name="&x;"/></process></definitions>"#;
    let (s, _, v) = app.call(upload("xxe.xml", xxe.into(), "1")).await;
    assert_eq!(s, 400, "{v}");
    assert!(!v.to_string().contains("root:"), "{v}");
    let script = BPMN.replace("<endEvent id=\"end\"/>", "<endEvent id=\"end\"/><serviceTask id=\"svc\" name=\"调用接口\" flowable:class=\"x.Evil\"/>");
    let (s, _, v) = app.call(upload("svc.xml", script, "1")).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("svc"), "{v}");
    // The uploaded process runs: the admins claim it.
    let (_, v) = get(&app, &p.zhang, &format!("{F}/work/start-list")).await;
    let pid = v["data"]["records"].as_array().unwrap().iter().find(|r| r["key"] == "expense").unwrap()["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &p.zhang, &format!("{F}/work/start-process"), json!({"processDefinitionId": pid})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &p.admin, &format!("{F}/work/claim-list")).await;
    assert_eq!(v["data"]["records"][0]["taskName"], "财务审核", "{v}");
}

const SCM_FLOW: &str = "/api/blade-scm/flowable/approval";

#[tokio::test]
async fn construction_approvals_change_their_business_records() {
    let app = App::new();
    app.make_role(A, "pm", &["approval_area", "approval_task", "approval_task_add", "approval_task_view", "approval_task_cancel", "approval_task_handle", "approval_record", "approval_file", "approval_file_add", "approval_file_view", "approval_file_delete"]).await;
    let zhang = app.make_user(A, "zhang", "Zz#12345", &["pm"]).await;
    let li = app.make_user(A, "li", "Zz#12345", &["pm"]).await;
    app.make_user(A, "wang", "Zz#12345", &["pm"]).await;
    let (admin, tz, tl, tw) = (app.admin(A).await, app.sign_in(A, "zhang", "Zz#12345").await, app.sign_in(A, "li", "Zz#12345").await, app.sign_in(A, "wang", "Zz#12345").await);
    let company = put(&app, A, "company", json!({"companyName": "甲公司", "companyType": 1}));
    let project = put(&app, A, "project", json!({"projectCode": "XM-1", "projectName": "滨江花园", "projectCompanyId": company, "businessUnit": "TOC", "startTime": "2026-01-01", "projectStatus": 1}));
    let contract = put(&app, A, "contract", json!({"contractCode": "HT-1", "contractName": "精装合同", "projectId": project, "partyName": "业主", "contractAmount": 100, "contractStatus": 1}));
    let construct = put(&app, A, "construct", json!({"constructCode": "SG-1", "constructName": "3#楼精装", "projectId": project, "contractId": contract, "constructMode": 1, "modelStatus": 1}));
    let measure = put(&app, A, "measure", json!({"constructId": construct, "measureDate": "2026-11-20", "measurer": "张", "rooms": [{"roomName": "客厅", "length": 5000, "width": 4000}], "roomCount": 1, "totalArea": 2000, "measureStatus": 0}));
    // The measure model's approvers: 李 alone.
    let (s, v) = post(&app, &tz, &format!("{SCM_FLOW}/../user/update"), json!({"applyType": 1, "userIds": [li.to_string()]})).await;
    assert_eq!(s, 404, "{v}");
    let (s, v) = post(&app, &tz, "/api/blade-scm/flowable/user/update", json!({"applyType": 1, "userIds": [li.to_string()]})).await;
    assert_eq!(s, 403, "only the approvers' keeper: {v}");
    let (s, v) = post(&app, &admin, "/api/blade-scm/flowable/user/update", json!({"applyType": 1, "userIds": [li.to_string()]})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = post(&app, &tz, "/api/blade-scm/flowable/user/list/1", json!({})).await;
    assert_eq!(v["data"][0]["realName"], "li", "{v}");
    // 张 uploads a drawing, then submits the measure with it.
    let boundary = "zzB";
    let mut body = format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"量房图.png\"\r\nContent-Type: image/png\r\n\r\n").into_bytes();
    body.extend_from_slice(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89");
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let req = axum::http::Request::builder().method("POST").uri(format!("{SCM_FLOW}/file/upload?applyType=1&businessId={measure}"))
        .header("blade-auth", format!("bearer {tz}")).header("content-type", format!("multipart/form-data; boundary={boundary}")).body(axum::body::Body::from(body)).unwrap();
    let (s, _, v) = app.call(req).await;
    assert_eq!(s, 200, "{v}");
    let file = v["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(v["data"]["attachName"], "量房图.png");
    let (s, v) = post(&app, &tz, &format!("{SCM_FLOW}/event/start"), json!({"applyType": 1, "businessId": measure.to_string(), "remark": "请审核客厅尺寸", "fileIds": file})).await;
    assert_eq!(s, 200, "{v}");
    let group = v["data"]["taskGroupId"].as_str().unwrap().to_string();
    let (_, v) = get(&app, &tz, &format!("/api/blade-scm/measure/detail/{measure}")).await;
    let _ = v;
    let m = |app: &App| {
        let r = app.st.res.clone();
        app.st.store.read(|x| x.get(&r.get("measure"), A, measure)).unwrap().unwrap()
    };
    assert_eq!(m(&app)["measureStatus"], 1);
    // Submitting it twice is refused.
    let (s, _) = post(&app, &tz, &format!("{SCM_FLOW}/event/start"), json!({"applyType": 1, "businessId": measure.to_string()})).await;
    assert_eq!(s, 400);
    // 李's list: one to do; 王 is no approver.
    let (_, v) = post(&app, &tl, &format!("{SCM_FLOW}/personal/task/list"), json!({"page": 1, "size": 10, "result": 0})).await;
    assert_eq!(v["data"]["total"], 1, "{v}");
    let row = &v["data"]["records"][0];
    assert_eq!((row["applyType"].as_i64(), row["applyTypeName"].as_str(), row["constructCode"].as_str(), row["result"].as_i64(), row["status"].as_i64()), (Some(1), Some("量房模型"), Some("SG-1"), Some(0), Some(0)), "{v}");
    let task = row["taskId"].as_str().unwrap().to_string();
    let (_, v) = post(&app, &tw, &format!("{SCM_FLOW}/personal/task/list"), json!({})).await;
    assert_eq!(v["data"]["total"], 0, "{v}");
    let (s, _) = post(&app, &tw, &format!("{SCM_FLOW}/detail/{task}"), json!({})).await;
    assert_eq!(s, 404, "not his to see");
    let (s, v) = post(&app, &tw, &format!("{SCM_FLOW}/event/complete"), json!({"taskId": task, "result": 1})).await;
    assert_eq!(s, 403, "{v}");
    let (s, v) = post(&app, &tl, &format!("{SCM_FLOW}/detail/{task}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!((v["data"]["files"][0]["attachName"].as_str(), v["data"]["remark"].as_str(), v["data"]["mine"].as_bool()), (Some("量房图.png"), Some("请审核客厅尺寸"), Some(true)), "{v}");
    let (_, v) = post(&app, &tl, &format!("{SCM_FLOW}/measurement/model/detail/{group}"), json!({})).await;
    assert_eq!(v["data"]["roomCount"], 1, "{v}");
    // 李 fails it: the measure goes back to be corrected.
    let (s, v) = post(&app, &tl, &format!("{SCM_FLOW}/event/complete"), json!({"taskId": task, "result": 2, "comment": "卫生间缺尺寸"})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(m(&app)["measureStatus"], 3);
    // The refusal's reason stays on the measure, where its measurer corrects it (the 施工单's tab showed 已驳回 alone).
    assert!(m(&app)["approvalNote"].as_str().is_some_and(|n| n.contains("驳回") && n.contains("卫生间缺尺寸")), "{:?}", m(&app));
    let (_, v) = post(&app, &tl, &format!("{SCM_FLOW}/personal/task/list"), json!({"result": 2})).await;
    assert_eq!((v["data"]["total"].as_u64(), v["data"]["records"][0]["status"].as_i64(), v["data"]["records"][0]["comment"].as_str()), (Some(1), Some(2), Some("卫生间缺尺寸")), "{v}");
    let (s, v) = post(&app, &tl, &format!("{SCM_FLOW}/record/{group}"), json!({})).await;
    assert_eq!(s, 200);
    assert!(v.to_string().contains("卫生间缺尺寸"), "{v}");
    // The decided application's file stays.
    let (s, _) = post(&app, &tz, &format!("{SCM_FLOW}/file/delete/{file}"), json!({})).await;
    assert_eq!(s, 400);
    // Resubmitted and passed: approved, and no longer editable.
    let (_, v) = post(&app, &tz, &format!("{SCM_FLOW}/event/start"), json!({"applyType": 1, "businessId": measure.to_string()})).await;
    let _ = v;
    assert!(m(&app).get("approvalNote").is_none_or(Value::is_null), "sent again, the old reason goes: {:?}", m(&app));
    let (_, v) = post(&app, &tl, &format!("{SCM_FLOW}/personal/task/list"), json!({"result": 0})).await;
    let task2 = v["data"]["records"][0]["taskId"].as_str().unwrap().to_string();
    let (s, _) = post(&app, &tl, &format!("{SCM_FLOW}/event/complete"), json!({"taskId": task2, "result": 1, "comment": "通过"})).await;
    assert_eq!(s, 200);
    assert_eq!(m(&app)["measureStatus"], 2);
    // Crew organisation with no approvers set: the administrators claim it; passing sets the construct's status.
    let (s, v) = post(&app, &tz, &format!("{SCM_FLOW}/event/start"), json!({"applyType": 2, "constructId": construct.to_string(), "remark": "组建木工班组"})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = post(&app, &admin, &format!("{SCM_FLOW}/personal/task/list"), json!({"result": 0})).await;
    assert_eq!(v["data"]["records"][0]["claimable"], true, "{v}");
    let t3 = v["data"]["records"][0]["taskId"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &admin, &format!("{SCM_FLOW}/event/complete"), json!({"taskId": t3, "result": 1})).await;
    assert_eq!(s, 200, "{v}");
    let k = app.st.store.read(|x| x.get(&app.st.res.get("construct"), A, construct)).unwrap().unwrap();
    assert_eq!(k["approvalStatus"], 1);
    // The approval is of the crew as applied for: a change before the start takes it back to "not applied" in the
    // same commit (an approved crew could be swapped and started unapproved).
    let job = put(&app, A, "worker_job", json!({"jobName": "木工"}));
    let worker = put(&app, A, "worker", json!({"workerName": "赵木", "phone": "13900000001", "workerJobId": job, "teamName": "一组"}));
    let (s, v) = post(&app, &admin, &format!("/api/blade-scm/construct/worker/bind/{construct}/{worker}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let k = app.st.store.read(|x| x.get(&app.st.res.get("construct"), A, construct)).unwrap().unwrap();
    assert!(k.get("approvalStatus").is_none_or(Value::is_null), "a changed crew needs a new approval: {k:?}");
    // Withdrawn by its applicant before anyone decides: listed as cancelled, the construct's status cleared.
    let (_, v) = post(&app, &tz, &format!("{SCM_FLOW}/event/start"), json!({"applyType": 2, "constructId": construct.to_string()})).await;
    let g3 = v["data"]["taskGroupId"].as_str().unwrap().to_string();
    // While it is under way the crew stays as the approvers see it.
    let (s, v) = post(&app, &admin, &format!("/api/blade-scm/construct/worker/unbind/{construct}/{worker}"), json!({})).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap_or("").contains("人工组织审批中"), "{v}");

    let (s, _) = post(&app, &tl, &format!("{SCM_FLOW}/cancel/task"), json!({"taskGroupId": g3})).await;
    assert_eq!(s, 403, "only the applicant");
    let (s, _) = post(&app, &tz, &format!("{SCM_FLOW}/cancel/task"), json!({"taskGroupId": g3})).await;
    assert_eq!(s, 200);
    let (_, v) = post(&app, &tz, &format!("{SCM_FLOW}/cancel/record"), json!({})).await;
    assert_eq!(v["data"]["total"], 1, "{v}");
    let k = app.st.store.read(|x| x.get(&app.st.res.get("construct"), A, construct)).unwrap().unwrap();
    assert!(k.get("approvalStatus").is_none_or(Value::is_null), "{k:?}");
    let (_, v) = post(&app, &admin, &format!("{SCM_FLOW}/record/list"), json!({"applyType": 1})).await;
    assert_eq!(v["data"]["total"], 2, "{v}");
    let _ = zhang;
    audit_clean(&app);
}

/// 审批人员 is optional on the leave form: without it the applicant's department leader decides; in a department
/// without one (nor above it) the answer says to choose an approver, not 环节「部门领导审批」找不到办理人.
#[tokio::test]
async fn a_leave_without_an_approver_goes_to_the_department_leader_or_says_to_choose_one() {
    let app = App::new();
    let p = people(&app).await;
    let solo_id = app.make_user(A, "solo", "Zz#12345", &["staff"]).await;
    let dept = put(&app, A, "dept", json!({"parentId": 0, "deptName": "质检部", "fullName": "质检部", "deptCategory": 2}));
    set(&app, A, "user", solo_id, json!({"deptId": dept.to_string()}));
    let solo = app.sign_in(A, "solo", "Zz#12345").await;
    let body = json!({"startTime": "2026-12-03 09:00:00", "endTime": "2026-12-03 18:00:00", "reason": "事假"});
    let (s, v) = post(&app, &solo, &format!("{LEAVE}/start-process"), body.clone()).await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["msg"], "请选择审批人员:您所在的部门(及上级部门)没有设置负责人", "{v}");
    // Made the leader of his department, with nobody above: told that he leads it.
    set(&app, A, "dept", dept, json!({"leaderId": solo_id}));
    let (s, v) = post(&app, &solo, &format!("{LEAVE}/start-process"), body.clone()).await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["msg"], "请选择审批人员:您是本部门负责人,上级部门没有设置负责人", "{v}");
    // Nor may he name himself (the form leaves him out; an administrator may, below).
    let mut own = body.clone();
    own["taskUser"] = json!(solo_id.to_string());
    let (s, v) = post(&app, &solo, &format!("{LEAVE}/start-process"), own).await;
    assert_eq!((s, v["msg"].as_str()), (400, Some("审批人员不能是申请人本人")), "{v}");
    let (_, me) = get(&app, &p.admin, "/api/blade-user/info").await;
    let mut own = body.clone();
    own["taskUser"] = me["data"]["id"].clone();
    let (s, v) = post(&app, &p.admin, &format!("{LEAVE}/start-process"), own).await;
    assert_eq!(s, 200, "the administrator may: {v}");
    let mut with = body.clone();
    with["taskUser"] = json!(p.li_id.to_string());
    let (s, v) = post(&app, &solo, &format!("{LEAVE}/start-process"), with).await;
    assert_eq!(s, 200, "an approver chosen: {v}");
    assert_eq!(todo(&app, &p.li).await.len(), 1);
    // 张's department is led by 李: without an approver, it is 李's.
    let (s, v) = post(&app, &p.zhang, &format!("{LEAVE}/start-process"), body).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(todo(&app, &p.li).await.len(), 2);
}

/// Leave days are working days in half days: weekends and the company's listed holidays are not counted, its
/// listed 调休 weekends are, 产假 counts calendar days; a span with no working time, an unknown type or a holiday
/// list that does not read are refused with what to do.
#[tokio::test]
async fn leave_counts_working_days() {
    let app = App::new();
    let p = people(&app).await;
    leave_process(&app, &p.zhang).await;
    let days = |from: &str, to: &str, kind: &str| format!("{LEAVE}/days?startTime={}&endTime={}&leaveType={kind}", from.replace(' ', "%20"), to.replace(' ', "%20"));
    // Friday morning to Monday noon: 1.5 working days; as 产假 (6) four calendar days less the halves outside.
    let (s, v) = get(&app, &p.zhang, &days("2026-12-04 09:00:00", "2026-12-07 12:00:00", "1")).await;
    assert_eq!((s, v["data"]["days"].as_str(), v["data"]["workingDays"].as_bool()), (200, Some("1.5"), Some(true)), "{v}");
    let (_, v) = get(&app, &p.zhang, &days("2026-12-04 13:00:00", "2026-12-07 12:00:00", "6")).await;
    assert_eq!((v["data"]["days"].as_str(), v["data"]["workingDays"].as_bool()), (Some("3"), Some(false)), "{v}");
    // A weekend alone: nothing to take off.
    let (s, v) = get(&app, &p.zhang, &days("2026-12-05 09:00:00", "2026-12-06 18:00:00", "1")).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("没有工作时间"), "{v}");
    let (s, v) = post(&app, &p.zhang, &format!("{LEAVE}/start-process"), json!({"leaveType": "1", "startTime": "2026-12-05 09:00:00", "endTime": "2026-12-06 18:00:00", "reason": "周末"})).await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = post(&app, &p.zhang, &format!("{LEAVE}/start-process"), json!({"leaveType": "99", "startTime": "2026-12-07 09:00:00", "endTime": "2026-12-07 18:00:00", "reason": "x"})).await;
    assert_eq!((s, v["msg"].as_str()), (400, Some("请假类型不存在")), "{v}");
    // The company lists 国庆 and its 调休 Saturday.
    put(&app, A, "param", json!({"paramName": "法定节假日", "paramKey": "leave.holidays", "paramValue": "2026-10-01~2026-10-07"}));
    let workdays = put(&app, A, "param", json!({"paramName": "调休上班日", "paramKey": "leave.workdays", "paramValue": "2026-10-10"}));
    let (_, v) = get(&app, &p.zhang, &days("2026-09-28 09:00:00", "2026-10-10 18:00:00", "3")).await;
    assert_eq!(v["data"]["days"].as_str(), Some("6"), "{v}");
    let (s, v) = post(&app, &p.zhang, &format!("{LEAVE}/start-process"), json!({"leaveType": "3", "startTime": "2026-09-28 09:00:00", "endTime": "2026-10-10 18:00:00", "reason": "年假"})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &p.zhang, &format!("{LEAVE}/list")).await;
    assert_eq!((v["data"]["records"][0]["days"].as_str(), v["data"]["records"][0]["leaveTypeName"].as_str()), (Some("6"), Some("年假")), "{v}");
    // A typo in the list is named, not taken as a working day.
    set(&app, A, "param", workdays, json!({"paramValue": "2026-10-1O"}));
    let (s, v) = get(&app, &p.zhang, &days("2026-09-28 09:00:00", "2026-10-10 18:00:00", "3")).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["msg"].as_str().unwrap().contains("2026-10-1O"), "{v}");
}

/// The approver list offers people who can handle a task, with their departments; technical workers (who cannot
/// sign in) and, for a leave, the applicant are left out.
#[tokio::test]
async fn approvers_are_people_who_can_approve() {
    let app = App::new();
    let p = people(&app).await;
    // A technical worker's role grants the same codes: still not offered (a worker cannot sign in).
    app.make_role(A, "site_painter", STAFF).await;
    let worker = app.make_user(A, "painter1", "Zz#12345", &["site_painter"]).await;
    let roles = app.st.res.get("role");
    let painter = app.st.store.read(move |x| Ok(x.all(&roles, A)?.into_iter().find(|r| r["roleAlias"] == "site_painter").unwrap()["id"].as_u64().unwrap())).unwrap();
    set(&app, A, "role", painter, json!({"isWorker": 1}));
    app.st.perms.invalidate();
    let (s, v) = get(&app, &p.zhang, &format!("{F}/work/users?exceptSelf=1")).await;
    assert_eq!(s, 200, "{v}");
    let ids: Vec<&str> = v["data"].as_array().unwrap().iter().filter_map(|u| u["id"].as_str()).collect();
    assert!(ids.contains(&p.li_id.to_string().as_str()), "{v}");
    assert!(!ids.contains(&p.zhang_id.to_string().as_str()), "{v}");
    assert!(!ids.contains(&worker.to_string().as_str()), "{v}");
    let (_, v) = get(&app, &p.zhang, &format!("{F}/work/users")).await;
    assert!(v["data"].as_array().unwrap().iter().any(|u| u["id"] == p.zhang_id.to_string()), "{v}");
    assert!(v["data"].as_array().unwrap().iter().all(|u| u["deptName"].is_string()), "{v}");
}
