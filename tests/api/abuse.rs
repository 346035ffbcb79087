//! What a clerk, a crew leader or a stranger could do to the server or to other people's data (issue 32): hostile
//! spreadsheets on every import, approval and work-order files past the rights of what they belong to, refresh
//! tokens after a role change, throttles that one tenant or one stranger could trip for others, work orders that
//! trusted the client, and an oversize upload's answer.
use serde_json::{Value, json};
use zhizhuang::engine::sheet::fixtures::{sheet_xml, workbook};

use crate::support::{ADMIN_PW, App, get_json as get, msg, post_json as post};

const A: &str = "157270";
const B: &str = "741487";

fn put(app: &App, tenant: &str, res: &str, doc: Value) -> u64 {
    let (r, t, res) = (app.st.res.clone(), tenant.to_string(), res.to_string());
    app.st.store.write(move |w| Ok(w.insert(&r.get(&res), &t, doc.as_object().unwrap().clone(), &store::Actor::default())?["id"].as_u64().unwrap())).unwrap()
}

fn set(app: &App, tenant: &str, res: &str, id: u64, doc: Value) {
    let (r, t, res) = (app.st.res.clone(), tenant.to_string(), res.to_string());
    app.st.store.write(move |w| w.update(&r.get(&res), &t, id, doc.as_object().unwrap().clone(), &store::Actor::default()).map(|_| ())).unwrap();
}

/// The 1.6 KB file of the report: cells A1 and XFD1048576 only, a sheet declared as the whole grid.
fn far_corner() -> Vec<u8> {
    workbook(&sheet_xml("A1:XFD1048576", &[("A1", "仓库名称"), ("XFD1048576", "x")]), None)
}

/// `n` data rows under one header, as a workbook of inline strings (compressed: a few bytes a row).
fn rows(header: &str, n: usize) -> Vec<u8> {
    let body: String = (2..n + 2).map(|i| format!(r#"<row r="{i}"><c r="A{i}" t="inlineStr"><is><t>仓{i}</t></is></c></row>"#)).collect();
    let xml = format!(r#"<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>{header}</t></is></c></row>{body}</sheetData></worksheet>"#);
    workbook(&xml, None)
}

#[tokio::test]
async fn every_import_reads_hostile_workbooks_within_bounds() {
    let app = App::new();
    let a = app.admin(A).await;
    let store_import = "/api/blade-api/wms/store/import?isCovered=0";
    // The far corner answers at once with the column it went past; nothing is written.
    let started = std::time::Instant::now();
    let (s, v) = app.upload(&a, store_import, "stores.xlsx", far_corner()).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("第 1048576 行第 16384 列超出范围"), "{v}");
    let (s, v) = app.upload(&a, "/api/blade-user/import-user?isCovered=0", "users.xlsx", far_corner()).await;
    assert_eq!(s, 400, "{v}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    // Rows past the limit: refused at the first one over, by the limit's number.
    let (s, v) = app.upload(&a, store_import, "stores.xlsx", rows("仓库名称", 5_001)).await;
    assert_eq!((s, msg(&v).as_str()), (400, "一次最多导入 5000 行"), "{v}");
    // A part that inflates past its bound is refused before it is parsed.
    let si = "<si><t>bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb</t></si>";
    let strings = format!(r#"<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">{}</sst>"#, si.repeat(90_000));
    let bomb = workbook(&sheet_xml("A1", &[("A1", "仓库名称")]), Some(&strings));
    assert!(bomb.len() < 100_000, "{}", bomb.len());
    let (s, v) = app.upload(&a, store_import, "stores.xlsx", bomb).await;
    assert!(s == 400 && msg(&v).contains("解压后超过"), "{v}");
    let (_, v) = get(&app, &a, "/api/blade-api/wms/store/list").await;
    assert_eq!(v["data"]["total"], 0, "nothing written: {v}");

    // The building import answers at once and its background task fails with the reason.
    let project = put(&app, A, "project", json!({"projectName": "江岸名邸", "projectCode": "XM-T-1"}));
    let (s, v) = app.upload(&a, &format!("/api/blade-scm/building/info/import?projectId={project}"), "rooms.xlsx", workbook(&sheet_xml("A1:XFD1048576", &[("A1", "楼栋"), ("B1", "单元"), ("C1", "楼层"), ("D1", "房号"), ("E1", "户型"), ("F1", "面积(㎡)"), ("XFD1048576", "x")]), None)).await;
    assert_eq!(s, 200, "{v}");
    let code = v["data"]["taskCode"].as_str().unwrap().to_string();
    let task = loop {
        let (_, v) = get(&app, &a, &format!("/api/blade-scm/building/getImportStatus?taskCode={code}")).await;
        if v["data"]["state"] != "running" {
            break v;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(task["data"]["state"], "failed", "{task}");
    assert!(task["data"]["message"].as_str().unwrap().contains("超出范围"), "{task}");

    // One import per tenant at a time: while one runs, the tenant's next is refused (429); another tenant's runs.
    let slot = app.st.imports.enter(A).unwrap();
    let (s, v) = app.upload(&a, store_import, "stores.xlsx", rows("仓库名称", 2)).await;
    assert_eq!(s, 429, "{v}");
    assert!(msg(&v).contains("已有一个导入正在进行"), "{v}");
    let (s, v) = app.upload(&a, &format!("/api/blade-scm/building/info/import?projectId={project}"), "rooms.xlsx", rows("楼栋", 2)).await;
    assert_eq!(s, 429, "{v}");
    let b = app.admin(B).await;
    let (s, v) = app.upload(&b, store_import, "stores.xlsx", rows("仓库名称", 2)).await;
    assert_eq!((s, v["data"]["inserted"].as_u64()), (200, Some(2)), "{v}");
    drop(slot);
    let (s, v) = app.upload(&a, store_import, "stores.xlsx", rows("仓库名称", 2)).await;
    assert_eq!((s, v["data"]["inserted"].as_u64()), (200, Some(2)), "{v}");
}

#[tokio::test]
async fn an_upload_over_the_limit_is_413_naming_it() {
    let app = App::new();
    let a = app.admin(A).await;
    let mut pdf = b"%PDF-1.4\n".to_vec();
    pdf.resize(11 << 20, b'a');
    let (s, v) = app.upload(&a, "/api/blade-resource/oss/endpoint/put-file", "big.pdf", pdf).await;
    assert_eq!(s, 413, "{v}");
    assert_eq!(msg(&v), "文件过大,最大 10 MB", "{v}");
}

/// A leave of 张 with a file: 张 applies, 李 (his leader) approves, 王 (a colleague with the same rights) has
/// nothing to do with it.
struct Leave {
    zhang: String,
    li: String,
    wang: String,
    group: String,
    file: String,
    link: String,
}

async fn leave_with_a_file(app: &App) -> Leave {
    let codes = ["work", "work_start", "work_start_flow", "work_todo", "work_todo_view", "work_todo_handle", "approval_file", "approval_file_add", "approval_file_delete", "approval_file_view"];
    app.make_role(A, "staff", &codes).await;
    let zhang_id = app.make_user(A, "zhang", "Zz#12345", &["staff"]).await;
    let li_id = app.make_user(A, "li", "Zz#12345", &["staff"]).await;
    let wang_id = app.make_user(A, "wang", "Zz#12345", &["staff"]).await;
    let dept = put(app, A, "dept", json!({"parentId": 0, "deptName": "工程部", "fullName": "工程部", "deptCategory": 2, "leaderId": li_id}));
    for u in [zhang_id, li_id, wang_id] {
        set(app, A, "user", u, json!({"deptId": dept.to_string()}));
    }
    let (zhang, li, wang) = (app.sign_in(A, "zhang", "Zz#12345").await, app.sign_in(A, "li", "Zz#12345").await, app.sign_in(A, "wang", "Zz#12345").await);
    let (s, v) = post(app, &zhang, "/api/blade-desk/process/leave/start-process", json!({"startTime": "2026-12-01 09:00:00", "endTime": "2026-12-02 18:00:00", "reason": "看病"})).await;
    assert_eq!(s, 200, "{v}");
    let group = v["data"]["processInstanceId"].as_str().unwrap().to_string();
    let (s, v) = app.upload(&zhang, &format!("/api/blade-scm/flowable/approval/file/upload?taskGroupId={group}"), "诊断证明.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj".to_vec()).await;
    assert_eq!(s, 200, "{v}");
    let (file, link) = (v["data"]["id"].as_str().unwrap().to_string(), v["data"]["attachLink"].as_str().unwrap().to_string());
    Leave { zhang, li, wang, group, file, link }
}

/// GET of a file link with a token in the header, in the UI's cookie, or none.
async fn fetch(app: &App, link: &str, header: Option<&str>, cookie: Option<&str>) -> u16 {
    let mut r = axum::http::Request::get(link);
    if let Some(t) = header {
        r = r.header("blade-auth", format!("bearer {t}"));
    }
    if let Some(t) = cookie {
        r = r.header("cookie", format!("zz-lang=zh; saber-access-token={t}"));
    }
    app.call(r.body(axum::body::Body::empty()).unwrap()).await.0.as_u16()
}

#[tokio::test]
async fn approval_files_follow_their_approval() {
    let app = App::new();
    let l = leave_with_a_file(&app).await;
    let list = |t: &str, body: Value| {
        let (app, t) = (&app, t.to_string());
        async move { post(app, &t, "/api/blade-scm/flowable/approval/file/list", body).await }
    };
    // Applicant and approver see it, list it and download it (header or the UI's cookie).
    for t in [&l.zhang, &l.li] {
        let (s, v) = list(t, json!({"taskGroupId": l.group})).await;
        assert_eq!((s, v["data"]["total"].as_u64()), (200, Some(1)), "{v}");
        let (s, v) = post(&app, t, &format!("/api/blade-scm/flowable/approval/type/file/detail/{}", l.file), json!({})).await;
        assert_eq!(s, 200, "{v}");
        assert_eq!(fetch(&app, &l.link, Some(t), None).await, 200);
        assert_eq!(fetch(&app, &l.link, None, Some(t)).await, 200);
    }
    // The colleague: not listed, no detail, no download, no delete — as if it did not exist.
    let (s, _) = list(&l.wang, json!({"taskGroupId": l.group})).await;
    assert_eq!(s, 404);
    let (s, v) = list(&l.wang, json!({})).await;
    assert_eq!((s, v["data"]["total"].as_u64()), (200, Some(0)), "without a group: only one's own uploads: {v}");
    let (s, _) = post(&app, &l.wang, &format!("/api/blade-scm/flowable/approval/type/file/detail/{}", l.file), json!({})).await;
    assert_eq!(s, 404);
    assert_eq!(fetch(&app, &l.link, Some(&l.wang), None).await, 404);
    let (s, _) = post(&app, &l.wang, &format!("/api/blade-scm/flowable/approval/file/delete/{}", l.file), json!({})).await;
    assert_eq!(s, 404);
    // No session, another tenant's session: nothing.
    assert_eq!(fetch(&app, &l.link, None, None).await, 401);
    let b = app.admin(B).await;
    assert_eq!(fetch(&app, &l.link, Some(&b), None).await, 404);
    assert_eq!(fetch(&app, &l.link.replace(&format!("/{A}/"), &format!("/{B}/")), Some(&b), None).await, 404);
    // The upload's answer says nothing of the key.
    let key = l.link.rsplit('/').next().unwrap();
    let (_, v) = post(&app, &l.zhang, "/api/blade-scm/flowable/approval/file/list", json!({"taskGroupId": l.group})).await;
    let a = app.admin(A).await;
    let (_, attach) = get(&app, &a, "/api/blade-resource/attach/list").await;
    let name = attach["data"]["records"][0]["name"].as_str().unwrap().to_string();
    assert!(!name.contains(&key[..6]), "stored name {name} shares the key {key}: {v}");
}

/// A document's files (`ui.control: "files"`, `ui.attach: "self"`): uploaded files of the writer only, named by
/// their original names, bound to the document (who sees the document downloads them), never carried to another.
#[tokio::test]
async fn a_documents_files_are_its_own() {
    let app = App::new();
    let a = app.admin(A).await;
    app.make_role(A, "docs", &["doc", "doc_view", "doc_add", "doc_edit"]).await;
    app.make_role(A, "other", &["wel"]).await;
    app.make_user(A, "wangfang", "Zz#12345", &["docs"]).await;
    app.make_user(A, "nobody", "Zz#12345", &["other"]).await;
    let (clerk, nobody) = (app.sign_in(A, "wangfang", "Zz#12345").await, app.sign_in(A, "nobody", "Zz#12345").await);
    let company = put(&app, A, "company", json!({"companyName": "南京分公司", "companyType": 1}));
    let project = put(&app, A, "project", json!({"projectName": "文档项目", "projectCode": "XM-DOC", "projectCompanyId": company, "businessUnit": "TOC", "projectStatus": 1}));
    let (s, v) = app.upload(&a, "/api/blade-resource/oss/endpoint/put-file", "施工合同扫描件.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj".to_vec()).await;
    assert_eq!(s, 200, "{v}");
    let link = v["data"]["link"].as_str().unwrap().to_string();
    let attach = v["data"]["attachId"].as_str().unwrap().to_string();
    let doc = |links: &str, name: &str| json!({"docName": name, "projectId": project.to_string(), "category": 1, "attachLink": links});
    for bad in ["https://evil.example/x.exe", "javascript:alert(1)", "/files/741487/0123456789abcdef0123456789abcdef"] {
        let (s, v) = post(&app, &a, "/api/blade-scm/doc/add", doc(bad, "外链")).await;
        assert!(s == 400 && msg(&v).contains("不是本系统上传的文件"), "{bad}: {v}");
    }
    // Someone else's upload is not the clerk's to name.
    let (s, v) = post(&app, &clerk, "/api/blade-scm/doc/add", doc(&link, "别人的文件")).await;
    assert!(s == 400 && msg(&v).contains("不是您上传的文件"), "{v}");
    let (s, v) = post(&app, &a, "/api/blade-scm/doc/add", doc(&link, "施工合同")).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["attachNames"], "[\"施工合同扫描件.pdf\"]", "{v}");
    let id = v["data"]["id"].as_str().unwrap().to_string();
    // Bound to the document: its readers download it, others do not.
    assert_eq!(fetch(&app, &link, Some(&clerk), None).await, 200);
    assert_eq!(fetch(&app, &link, Some(&nobody), None).await, 404);
    // Kept when the document is saved again; not carried to another one.
    let (s, v) = post(&app, &clerk, "/api/blade-scm/doc/update", json!({"id": id, "docName": "施工合同(盖章)", "attachLink": link})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &a, "/api/blade-scm/doc/add", doc(&link, "另一份")).await;
    assert!(s == 400 && msg(&v).contains("已属于其他记录"), "{v}");
    // Its file removed in 附件管理, the document is still saved (the link it kept is not checked again).
    let (s, v) = post(&app, &a, &format!("/api/blade-resource/attach/remove?ids={attach}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &clerk, "/api/blade-scm/doc/update", json!({"id": id, "remark": "只改备注", "attachLink": link})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &clerk, "/api/blade-scm/doc/update", json!({"id": id, "attachLink": ""})).await;
    assert_eq!((s, v["data"]["attachNames"].as_str()), (200, Some("[]")), "{v}");
}

#[tokio::test]
async fn work_order_files_replies_and_requester_are_the_callers() {
    let app = App::new();
    let a = app.admin(A).await;
    app.make_role(A, "lead", &["worklist_order", "worklist_order_view", "worklist_order_add", "worklist_reply", "worklist_reply_view", "worklist_reply_add", "worklist_reply_edit"]).await;
    app.make_role(A, "other", &["wel"]).await;
    let lead_id = app.make_user(A, "huangyong", "Zz#12345", &["lead"]).await;
    app.make_user(A, "nobody", "Zz#12345", &["other"]).await;
    let (lead, nobody) = (app.sign_in(A, "huangyong", "Zz#12345").await, app.sign_in(A, "nobody", "Zz#12345").await);
    let cat = put(&app, A, "worklist_category", json!({"categoryName": "售后维修", "defaultHours": 48, "sort": 1}));
    let (s, v) = app.upload(&a, "/api/blade-resource/oss/endpoint/put-file", "现场.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj".to_vec()).await;
    assert_eq!(s, 200, "{v}");
    let link = v["data"]["link"].as_str().unwrap().to_string();
    // Raised in someone else's name: refused naming the read-only field; the requester is always the caller.
    // Outside links are refused.
    let admin_id = app.st.store.read(|r| r.find_unique(&app.st.res.get("user"), A, "account", "admin")).unwrap().unwrap();
    let order = json!({"title": "地漏返味", "categoryId": cat.to_string(), "priority": 2, "content": "主卫地漏返味"});
    let mut o = order.clone();
    o["requesterId"] = json!(lead_id.to_string());
    let (s, v) = post(&app, &a, "/worklist/order/submit", o).await;
    assert!(s == 400 && msg(&v).contains("提出人") && msg(&v).contains("只读"), "{v}");
    for bad in ["https://evil.example/x.exe", "javascript:alert(1)", "/files/741487/0123456789abcdef0123456789abcdef"] {
        let mut o = order.clone();
        o["attachments"] = json!(bad);
        let (s, v) = post(&app, &a, "/worklist/order/submit", o).await;
        assert!(s == 400 && msg(&v).contains("不是本系统上传的文件"), "{bad}: {v}");
    }
    let mut o = order.clone();
    o["attachments"] = json!(link);
    let (s, v) = post(&app, &a, "/worklist/order/submit", o).await;
    assert_eq!(s, 200, "{v}");
    let order_id = v["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(v["data"]["requesterId"].as_str(), Some(admin_id.to_string().as_str()), "{v}");
    // The order's file: whoever sees the order downloads it; a user without work orders does not.
    assert_eq!(fetch(&app, &link, Some(&lead), None).await, 200);
    assert_eq!(fetch(&app, &link, Some(&nobody), None).await, 404);
    // The admin replies; the crew leader may not rewrite that reply, only his own.
    let (s, v) = post(&app, &a, "/api/blade-biz/worklist/reply/submit", json!({"orderId": order_id, "content": "已安排师傅"})).await;
    assert_eq!(s, 200, "{v}");
    let reply = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &lead, "/api/blade-biz/worklist/reply/update", json!({"id": reply, "content": "管理员说不修了"})).await;
    assert_eq!(s, 403, "{v}");
    let (_, v) = get(&app, &a, &format!("/api/blade-biz/worklist/reply/detail?id={reply}")).await;
    assert_eq!(v["data"]["content"], "已安排师傅");
    let (s, v) = post(&app, &lead, "/api/blade-biz/worklist/reply/submit", json!({"orderId": order_id, "content": "收到"})).await;
    assert_eq!(s, 200, "{v}");
    let mine = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &lead, "/api/blade-biz/worklist/reply/update", json!({"id": mine, "content": "收到,明天上门"})).await;
    assert_eq!(s, 200, "{v}");
    // A file of this order cannot be carried to another order.
    let (s, v) = post(&app, &a, "/worklist/order/submit", json!({"title": "另一单", "categoryId": cat.to_string(), "priority": 2, "content": "x", "attachments": link})).await;
    assert!(s == 400 && msg(&v).contains("已属于其他记录"), "{v}");
    // Its file removed in 附件管理, the order still moves; its files cleared, so are their names.
    let key = link.rsplit('/').next().unwrap().to_string();
    let attach = app.st.store.read(|r| r.find_unique(&app.st.res.get("attach"), A, "fileKey", &key)).unwrap().unwrap();
    let (s, v) = post(&app, &a, &format!("/api/blade-resource/attach/remove?ids={attach}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &a, "/worklist/order/move", json!({"id": order_id, "orderStatus": 2})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &a, "/worklist/order/submit", json!({"id": order_id, "attachments": ""})).await;
    assert_eq!((s, v["data"]["attachNames"].as_str()), (200, Some("[]")), "{v}");
}

#[tokio::test]
async fn a_refresh_token_does_not_outlive_a_role_change() {
    let app = App::new();
    app.make_role(A, "staff", &["wel"]).await;
    let uid = app.make_user(A, "yangmin", "Zz#12345", &["staff"]).await;
    let (s, v) = app.sign_in_body(A, "yangmin", "Zz#12345").await;
    assert_eq!(s, 200, "{v}");
    let (access, refresh) = (v["access_token"].as_str().unwrap().to_string(), v["refresh_token"].as_str().unwrap().to_string());
    // The administrator makes her a carpenter (a technical worker's role).
    let carpenter = app.st.store.read(|r| Ok(r.all(&app.st.res.get("role"), A)?.into_iter().find(|r| r["roleAlias"] == "carpenter").unwrap()["id"].as_u64().unwrap())).unwrap();
    set(&app, A, "user", uid, json!({"roleId": carpenter.to_string()}));
    let (s, v) = app.sign_in_body(A, "yangmin", "Zz#12345").await;
    assert_eq!((s.as_u16(), v["error"].as_str()), (400, Some("worker_refused")), "{v}");
    let url = format!("/api/blade-auth/oauth/token?tenantId={A}&refresh_token={refresh}&grant_type=refresh_token&scope=all");
    let (s, v) = app.req("POST", &url, None, None, &[("tenant-id", A), ("authorization", crate::support::BASIC)]).await;
    assert_eq!((s.as_u16(), v["error"].as_str()), (400, Some("worker_refused")), "{v}");
    let (s, _) = app.get("/api/blade-user/info", &access).await;
    assert_eq!(s, 401, "her session ended with the change");
    // Even back to staff, the refused refresh token stays dead (its session was revoked).
    let staff = app.st.store.read(|r| Ok(r.all(&app.st.res.get("role"), A)?.into_iter().find(|r| r["roleAlias"] == "staff").unwrap()["id"].as_u64().unwrap())).unwrap();
    set(&app, A, "user", uid, json!({"roleId": staff.to_string()}));
    let (s, _) = app.req("POST", &url, None, None, &[("tenant-id", A), ("authorization", crate::support::BASIC)]).await;
    assert_eq!(s, 401);
}

#[tokio::test]
async fn one_tenant_or_one_stranger_cannot_lock_others_out() {
    let app = App::with(zhizhuang::state::Settings { trust_proxy: true, ..Default::default() });
    let md5 = zhizhuang::auth::password::md5_hex;
    // 18 wrong unlocks by six users of one tenant: another tenant's admin unlocks at once.
    app.make_role(A, "staff", &["wel"]).await;
    for i in 0..6 {
        let account = format!("u{i}");
        app.make_user(A, &account, "Zz#12345", &["staff"]).await;
        let t = app.sign_in(A, &account, "Zz#12345").await;
        for _ in 0..3 {
            let (s, _) = app.req("POST", &format!("/api/blade-user/check-password?password={}", md5("wrong")), Some(&t), None, &[]).await;
            assert_eq!(s, 400);
        }
    }
    let b = app.admin(B).await;
    let (s, v) = app.req("POST", &format!("/api/blade-user/check-password?password={}", md5(ADMIN_PW)), Some(&b), None, &[]).await;
    assert_eq!(s, 200, "{v}");

    // A stranger's wrong sign-ins for admin@741487 delay the stranger, not the owner at her own address.
    let sign_in = |ip: &'static str, pw: &'static str, captcha: Option<(String, String)>| {
        let app = &app;
        async move {
            let (grant, mut headers) = match &captcha {
                Some(_) => ("captcha", vec![("tenant-id", B.to_string()), ("x-forwarded-for", ip.to_string())]),
                None => ("password", vec![("tenant-id", B.to_string()), ("x-forwarded-for", ip.to_string())]),
            };
            if let Some((k, c)) = captcha {
                headers.push(("captcha-key", k));
                headers.push(("captcha-code", c));
            }
            let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let url = format!("/api/blade-auth/oauth/token?tenantId={B}&username=admin&password={}&grant_type={grant}&scope=all&type=account", md5(pw));
            let (s, v) = app.req("POST", &url, None, None, &h).await;
            (s.as_u16(), v)
        }
    };
    for _ in 0..3 {
        assert_eq!(sign_in("203.0.113.9", "guess", None).await.0, 400);
    }
    assert_eq!(sign_in("203.0.113.9", ADMIN_PW, None).await.0, 429, "the guesser waits");
    let (s, v) = sign_in("198.51.100.7", ADMIN_PW, None).await;
    assert_eq!(s, 200, "the owner elsewhere signs in: {v}");
    // Guessing from many addresses: the account then asks for a captcha, which the owner solves.
    for ip in ["203.0.113.10", "203.0.113.11", "203.0.113.12", "203.0.113.13", "203.0.113.14"] {
        assert_eq!(sign_in(ip, "guess", None).await.0, 400);
    }
    let (s, v) = sign_in("198.51.100.7", ADMIN_PW, None).await;
    assert_eq!((s, v["error"].as_str()), (400, Some("captcha_required")), "{v}");
    let (key, _) = app.st.captchas.issue();
    let code = app.st.captchas.peek(&key).unwrap();
    let (s, v) = sign_in("198.51.100.7", ADMIN_PW, Some((key, code))).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(sign_in("198.51.100.7", ADMIN_PW, None).await.0, 200, "a success ends the captcha step");
}

#[tokio::test]
async fn files_attached_before_this_version_are_bound_at_start() {
    let app = App::new();
    let l = leave_with_a_file(&app).await;
    // As an older data file has them: the approval file's attachment bound to nothing.
    let res = app.st.res.clone();
    let key = l.link.rsplit('/').next().unwrap().to_string();
    let attach = app.st.store.read(|r| r.find_unique(&res.get("attach"), A, "fileKey", &key)).unwrap().unwrap();
    set(&app, A, "attach", attach, json!({"boundTo": null}));
    assert_eq!(fetch(&app, &l.link, Some(&l.wang), None).await, 200, "an unbound file is the tenant's");
    app.st.store.write(move |w| {
        w.delete_meta("upgrade:file_owners")?;
        zhizhuang::seed::upgrade(w, &res)
    }).unwrap();
    assert_eq!(fetch(&app, &l.link, Some(&l.wang), None).await, 404);
    assert_eq!(fetch(&app, &l.link, Some(&l.li), None).await, 200);
}
