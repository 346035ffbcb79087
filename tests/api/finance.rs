//! 合同台账 and 应收款: a contract's ledger opened by signing, entries of every type with their limits, changes
//! posted from the contract's own amount, corrections as reversing entries (never edits), receivables with
//! receipts applied in due-date order, the audit of `verify`, and another tenant's ledger out of reach.
use serde_json::{Value, json};

use crate::support::{App, post_json as post, get_json as get, msg};

const A: &str = "157270";
const B: &str = "741487";
const S: &str = "/api/blade-scm";
const L: &str = "/api/blade-scm/contractledger";
const R: &str = "/blade-api/edu-sub-account/receivables";

fn audit_clean(app: &App) {
    let res = app.st.res.clone();
    let a = app.st.store.read(|r| zhizhuang::api::finance::ledger::audit(r, &res)).unwrap();
    assert!(a.problems.is_empty(), "{:?}", a.problems);
    assert!(a.entries > 0);
}

#[tokio::test]
async fn a_contract_ledger_keeps_its_balances_equal_to_its_entries() {
    let app = App::new();
    let t = app.admin(A).await;
    let (s, v) = post(&app, &t, &format!("{S}/contract/add"), json!({"contractName": "台账测试合同", "partyName": "业主甲", "contractAmount": "100000.00"})).await;
    assert_eq!(s, 200, "{v}");
    let contract = v["data"]["id"].as_str().unwrap().to_string();
    // A draft has no ledger and takes no entries.
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 4, "amount": "10"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("尚未签订"), "{v}");
    // A sent but malformed type is named as malformed, not as missing.
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": "x", "amount": "10"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v) == "分录类型格式不正确", "{v}");
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "amount": "10"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v) == "请选择分录类型", "{v}");
    // Signing opens the ledger with the signed amount, dated the signing day.
    let (s, v) = post(&app, &t, &format!("{S}/contract/update"), json!({"id": contract, "contractStatus": 1, "signDate": "2026-03-01"})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{L}/detail?contractId={contract}")).await;
    let ledger = v["data"]["id"].as_str().unwrap_or_else(|| panic!("{v}")).to_string();
    assert_eq!(v["data"]["contractAmount"], "100000.00");
    assert_eq!(v["data"]["outstanding"], "100000.00");
    let (_, v) = get(&app, &t, &format!("{L}/list?contractCode={}", v["data"]["contractCode"].as_str().unwrap())).await;
    assert_eq!(v["data"]["total"], 1, "{v}");

    // The schedule: nodes with due dates, never more than the contract total.
    for (node, amount, due) in [("定金", "10000", "2026-03-10"), ("首期款", "30000", "2026-04-01"), ("尾款", "60000", "2099-01-01")] {
        let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 3, "amount": amount, "node": node, "dueDate": due, "entryDate": "2026-03-01"})).await;
        assert_eq!(s, 200, "{v}");
    }
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 3, "amount": "0.01", "node": "多余", "dueDate": "2026-05-01"})).await;
    assert_eq!(s, 400);
    assert!(msg(&v).contains("收款计划合计 100000.01 元将超过合同总额 100000.00 元"), "{v}");
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 3, "amount": "5"})).await;
    assert_eq!(s, 400, "a node needs its name and due date: {v}");
    // Receipts and invoices: positive, within the total; an invoice needs its number; amounts are exact.
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 4, "amount": "-5"})).await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = post(&app, &t, &format!("{R}/save"), json!({"contractId": contract, "amount": "12000.10", "entryDate": "2026-03-09", "remark": "银行转账"})).await;
    assert_eq!(s, 200, "{v}");
    let receipt = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 4, "amount": "90000"})).await;
    assert_eq!(s, 400);
    assert!(msg(&v).contains("收款合计 102000.10 元将超过合同总额"), "{v}");
    let (s, _) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 5, "amount": "100"})).await;
    assert_eq!(s, 400, "an invoice without its number");
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 5, "amount": "12000.10", "invoiceNo": "31000001"})).await;
    assert_eq!(s, 200, "{v}");
    let invoice = v["data"]["id"].as_str().unwrap().to_string();
    // One invoice number, once in the books: again is refused, naming where it is; reversed, it is free again.
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 5, "amount": "100", "invoiceNo": "31000001"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("发票号 31000001 已于") && msg(&v).contains("登记,不能重复开票"), "{v}");
    let (s, v) = post(&app, &t, &format!("{L}/update/ledger"), json!({"id": invoice, "remark": "发票作废重开"})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 5, "amount": "12000.10", "invoiceNo": "31000001"})).await;
    assert_eq!(s, 200, "the reversed number is posted again: {v}");
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 5, "amount": "100", "invoiceNo": "31000001"})).await;
    assert_eq!(s, 400, "and then in use again: {v}");
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 1, "amount": "1"})).await;
    assert_eq!(s, 400);
    assert!(msg(&v).contains("合同签订时自动入账"), "{v}");

    // Receivables: receipts applied in due-date order; the second node is overdue, part paid.
    let (_, v) = get(&app, &t, &format!("{R}/list?contractId={contract}")).await;
    let rows = v["data"]["records"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 3, "{v}");
    assert_eq!((rows[0]["node"].as_str(), rows[0]["received"].as_str(), rows[0]["state"].as_i64()), (Some("定金"), Some("10000.00"), Some(3)));
    assert_eq!((rows[1]["received"].as_str(), rows[1]["outstanding"].as_str(), rows[1]["state"].as_i64()), (Some("2000.10"), Some("27999.90"), Some(2)));
    assert!(rows[1]["overdueDays"].as_i64().unwrap() > 0);
    assert_eq!(rows[2]["state"], 1);
    let (_, v) = get(&app, &t, &format!("{R}/list?state=2&contractId={contract}")).await;
    assert_eq!(v["data"]["total"], 1);
    let (_, v) = get(&app, &t, &format!("{R}/detail?id={}", rows[1]["id"].as_str().unwrap())).await;
    assert_eq!(v["data"]["receipts"].as_array().map(Vec::len), Some(1), "{v}");

    // The contract's own amount changed after signing: the difference is posted as a change.
    let (s, v) = post(&app, &t, &format!("{S}/contract/update"), json!({"id": contract, "contractAmount": "104500.00"})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{L}/detail?id={ledger}")).await;
    assert_eq!((v["data"]["changeAmount"].as_str(), v["data"]["contractAmount"].as_str(), v["data"]["outstanding"].as_str()), (Some("4500.00"), Some("104500.00"), Some("92499.90")));
    // A reduction below what was received is refused.
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 2, "amount": "-100000", "remark": "减项"})).await;
    assert_eq!(s, 400);
    assert!(msg(&v).contains("将超过合同总额"), "{v}");

    // A mistyped receipt corrected: a reversal and the right amount; nothing edited in place.
    let (s, v) = post(&app, &t, &format!("{L}/update/ledger"), json!({"id": receipt, "amount": "12000.00"})).await;
    assert_eq!(s, 400, "a correction needs its reason: {v}");
    let (s, v) = post(&app, &t, &format!("{L}/update/ledger"), json!({"id": receipt, "amount": "12000.00", "remark": "金额录入有误"})).await;
    assert_eq!(s, 200, "{v}");
    let posted = v["data"].as_array().unwrap().clone();
    assert_eq!(posted.len(), 2);
    assert_eq!((posted[0]["amount"].as_str(), posted[0]["reversesId"].as_str()), (Some("-12000.10"), Some(receipt.as_str())));
    let (s, v) = post(&app, &t, &format!("{L}/update/ledger"), json!({"id": receipt, "remark": "again"})).await;
    assert_eq!(s, 400);
    assert!(msg(&v).contains("已冲销"), "{v}");
    let (s, v) = post(&app, &t, &format!("{L}/update/ledger"), json!({"id": posted[0]["id"], "remark": "x"})).await;
    assert_eq!(s, 400, "a reversal is not reversed: {v}");
    let (_, v) = post(&app, &t, &format!("{L}/ledgerList"), json!({"ledgerId": ledger, "size": 50})).await;
    let entries = v["data"]["records"].as_array().unwrap().clone();
    let original = entries.iter().find(|e| e["id"] == receipt.as_str()).unwrap();
    assert_eq!((original["amount"].as_str(), original["reversedBy"].as_str()), (Some("12000.10"), posted[0]["id"].as_str()), "the original stays as posted, marked");
    assert!(entries.iter().all(|e| e["createUserName"] == "管理员"), "every entry attributed");
    // The signed amount is never reversed; removing entries reverses them.
    let signed = entries.iter().find(|e| e["entryType"] == 1).unwrap()["id"].as_str().unwrap().to_string();
    let (s, v) = app.post(&format!("{L}/remove?ids={signed}"), &t, "{}").await;
    assert_eq!(s.as_u16(), 400, "{v}");
    let invoice = entries.iter().find(|e| e["entryType"] == 5).unwrap()["id"].as_str().unwrap().to_string();
    let (s, v) = app.post(&format!("{L}/remove?ids={invoice}"), &t, "{}").await;
    assert_eq!(s.as_u16(), 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{L}/detail?id={ledger}")).await;
    assert_eq!((v["data"]["received"].as_str(), v["data"]["invoiced"].as_str(), v["data"]["entries"].as_i64()), (Some("12000.00"), Some("0.00"), Some(12)), "two more for the invoice reversed and posted again");
    audit_clean(&app);

    // Another tenant sees no ledger, posts nothing on this contract.
    let tb = app.admin(B).await;
    let (s, _) = get(&app, &tb, &format!("{L}/detail?id={ledger}")).await;
    assert_eq!(s, 404);
    let (s, _) = post(&app, &tb, &format!("{R}/save"), json!({"contractId": contract, "amount": "1"})).await;
    assert_eq!(s, 404);
    let (_, v) = get(&app, &tb, &format!("{R}/list")).await;
    assert!(!v.to_string().contains("台账测试合同"));
    // English messages on request.
    let (s, v) = app.req("POST", &format!("{L}/save"), Some(&t), Some(&json!({"contractId": contract, "entryType": 4, "amount": "999999"}).to_string()), &[("accept-language", "en")]).await;
    assert_eq!(s.as_u16(), 400);
    assert!(msg(&v).contains("more than the contract total"), "{v}");
}

async fn contract_detail(app: &App, t: &str, contract: &str) -> Value {
    post(app, t, &format!("{S}/contract/detail/{contract}"), json!({})).await.1["data"].clone()
}

/// 合同管理 shows each contract's 合同总额 as its ledger counts it (`ledgerTotal`): a change posted in the ledger
/// moves it (not 合同金额, the amount as entered), a receipt or change does not make the contract 修改过, a form
/// opened before the ledger moved still saves, and a terminated contract is worth what came in.
#[tokio::test]
async fn the_contract_list_shows_the_ledgers_total() {
    let app = App::new();
    let t = app.admin(A).await;
    let (s, v) = post(&app, &t, &format!("{S}/contract/add"), json!({"contractName": "总额测试合同", "partyName": "业主乙", "contractAmount": "80000.00"})).await;
    assert_eq!(s, 200, "{v}");
    let contract = v["data"]["id"].as_str().unwrap().to_string();
    assert!(v["data"]["ledgerTotal"].is_null(), "a draft has no ledger: {v}");
    let (s, v) = post(&app, &t, &format!("{S}/contract/update"), json!({"id": contract, "contractStatus": 1, "signDate": "2026-03-01"})).await;
    assert_eq!((s, v["data"]["ledgerTotal"].as_str()), (200, Some("80000.00")), "the answer to signing carries it: {v}");
    let signed = contract_detail(&app, &t, &contract).await;
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 2, "amount": "6500", "remark": "业主增项"})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, &format!("{R}/save"), json!({"contractId": contract, "amount": "20000", "remark": "银行转账"})).await;
    assert_eq!(s, 200, "{v}");
    let now = contract_detail(&app, &t, &contract).await;
    assert_eq!((now["ledgerTotal"].as_str(), now["contractAmount"].as_str()), (Some("86500.00"), Some("80000.00")), "{now}");
    assert_eq!((&now["updateTime"], &now["updateUser"]), (&signed["updateTime"], &signed["updateUser"]), "postings are not edits of the contract");
    let (_, v) = post(&app, &t, &format!("{S}/contract/list"), json!({"contractName": "总额测试合同"})).await;
    assert_eq!(v["data"]["records"][0]["ledgerTotal"], "86500.00", "{v}");
    // A Saber form opened before the change sends the whole row back, the old figure with it: it saves, and the
    // figure stays the ledger's.
    let mut stale = signed.as_object().unwrap().clone();
    stale.insert("remark".into(), json!("补充说明"));
    let (s, v) = post(&app, &t, &format!("{S}/contract/update"), Value::Object(stale)).await;
    assert_eq!((s, v["data"]["ledgerTotal"].as_str(), v["data"]["remark"].as_str()), (200, Some("86500.00"), Some("补充说明")), "{v}");
    let (s, v) = post(&app, &t, &format!("{S}/contract/update"), json!({"id": contract, "ledgerTotal": "1.00"})).await;
    assert_eq!((s, v["data"]["ledgerTotal"].as_str()), (200, Some("86500.00")), "never taken from a client: {v}");
    // Terminated: worth what came in.
    let (s, v) = post(&app, &t, &format!("{S}/contract/update"), json!({"id": contract, "contractStatus": 9})).await;
    assert_eq!((s, v["data"]["ledgerTotal"].as_str()), (200, Some("20000.00")), "{v}");
    audit_clean(&app);
    // A file from before the figure: the upgrade fills it, once; `verify` names a contract whose figure drifted.
    let res = app.st.res.clone();
    let cid: u64 = contract.parse().unwrap();
    let r2 = res.clone();
    app.st.store.write(move |w| {
        let c = w.get(&r2.get("contract"), A, cid)?.unwrap();
        let mut patch = serde_json::Map::new();
        patch.insert("ledgerTotal".into(), Value::Null);
        w.update_from(&r2.get("contract"), A, cid, c, patch, &store::Actor::default()).map(|_| ())
    }).unwrap();
    let a = app.st.store.read(|r| zhizhuang::api::finance::ledger::audit(r, &res)).unwrap();
    assert!(a.problems.iter().any(|p| p.contains("shows 合同总额 — but its ledger counts 20000.00")), "{:?}", a.problems);
    let r2 = res.clone();
    app.st.store.write(move |w| zhizhuang::api::finance::ledger::ledger_totals(w, &r2)).unwrap();
    audit_clean(&app);
}

#[tokio::test]
async fn demo_ledgers_agree_with_their_entries() {
    let app = App::new();
    let res = app.st.res.clone();
    app.st
        .store
        .write(move |w| {
            let now = "2026-11-23 10:00:00".to_string();
            let actor = store::Actor::default();
            let cx = zhizhuang::engine::dialect::Ctx { tenant: A, actor: &actor, res: &res, now: &now };
            for (i, st) in [1, 2, 3, 2].iter().enumerate() {
                let c = w.insert(&res.get("contract"), A, json!({"contractCode": format!("HTT-{i}"), "contractName": format!("演示{i}"), "partyName": "x", "contractAmount": 8_600_000 + i as i64 * 1_000_003, "contractStatus": st, "signDate": "2026-01-15"}).as_object().unwrap().clone(), &actor)?;
                let _ = c;
            }
            zhizhuang::api::finance::ledger::demo(w, &cx)
        })
        .unwrap();
    audit_clean(&app);
}

#[tokio::test]
async fn project_cost_compares_budget_with_actual_from_its_sources() {
    let app = App::new();
    let t = app.admin(A).await;
    let (_, v) = post(&app, &t, &format!("{S}/company/add"), json!({"companyName": "成本测试公司", "companyType": 1})).await;
    let company = v["data"]["id"].as_str().unwrap().to_string();
    let (_, v) = post(&app, &t, &format!("{S}/project/add"), json!({"projectName": "成本测试项目", "projectCompanyId": company, "businessUnit": "TOC", "startTime": "2026-01-01"})).await;
    let project = v["data"]["id"].as_str().unwrap_or_else(|| panic!("{v}")).to_string();
    let (_, v) = post(&app, &t, &format!("{S}/contract/add"), json!({"contractName": "成本测试合同", "partyName": "业主", "contractAmount": "200000", "projectId": project})).await;
    let contract = v["data"]["id"].as_str().unwrap().to_string();
    post(&app, &t, &format!("{S}/contract/update"), json!({"id": contract, "contractStatus": 1, "signDate": "2026-01-05"})).await;
    post(&app, &t, &format!("{L}/save"), json!({"contractId": contract, "entryType": 2, "amount": "10000", "remark": "增项"})).await;
    // Budget lines (the declared CRUD), one with an entered actual.
    const C: &str = "/api/blade-biz/bim/projectcost";
    for (ty, name, budget, actual) in [(1, "主材", "80000", "0"), (2, "人工", "50000", "0"), (4, "防水分包", "20000", "18500.50")] {
        let (s, v) = post(&app, &t, &format!("{C}/submit"), json!({"projectId": project, "costType": ty, "costName": name, "budget": budget, "actual": actual})).await;
        assert_eq!(s, 200, "{v}");
    }
    // Materials: an issue to the project and a return from it, through the stock ledger as the warehouse posts
    // them; labour: day work as the demo writes it (both keep the project's totals in the same transaction).
    let (res, pid) = (app.st.res.clone(), project.parse::<u64>().unwrap());
    app.st
        .store
        .write(move |w| {
            use zhizhuang::api::wms::ledger::{self, Doc, Loc, Move};
            let sys = store::Actor::default();
            let cx = zhizhuang::engine::dialect::Ctx { tenant: A, actor: &sys, res: &res, now: "2026-02-01 10:00:00" };
            let ins = |w: &mut store::WriteCtx, n: &str, v: Value| -> store::Result<u64> { Ok(w.insert(&res.get(n), A, v.as_object().unwrap().clone(), &sys)?["id"].as_u64().unwrap()) };
            let depot = ins(w, "store", json!({"storeCode": "CT", "storeName": "成本测试仓", "enabled": 1}))?;
            let area = ins(w, "reservoirarea", json!({"storeId": depot, "areaCode": "A1", "areaName": "存储区", "areaKind": 2}))?;
            let bin = ins(w, "storagespace", json!({"areaId": area, "storeId": depot, "spaceCode": "A1-01", "spaceState": 0}))?;
            // ¥3,000.00 a box: ten issued (¥30,000.00), one returned at the later price (¥2,500.00).
            let goods = ins(w, "goods", json!({"goodsCode": "CT-G", "goodsName": "瓷砖", "unit": "箱", "price": 300_000, "enabled": 1}))?;
            let doc = Doc { kind: "ck", id: 1, no: "CK-T", line: 0 };
            ledger::post(w, &cx, &Move::new(goods, Loc::Supplier, Loc::Bin(bin), "", 20 * store::QTY_SCALE, doc))?;
            ledger::post(w, &cx, &Move { project: Some(pid), ..Move::new(goods, Loc::Bin(bin), Loc::Project(pid), "", 10 * store::QTY_SCALE, doc) })?;
            w.update(&res.get("goods"), A, goods, json!({"price": 250_000}).as_object().unwrap().clone(), &sys)?;
            ledger::post(w, &cx, &Move { project: Some(pid), ..Move::new(goods, Loc::Project(pid), Loc::Bin(bin), "", store::QTY_SCALE, doc) })?;
            let k = ins(w, "construct", json!({"constructCode": "SGT-1", "constructName": "t", "projectId": pid, "contractId": 1, "constructMode": 1, "modelStatus": 3}))?;
            let day = json!({"constructId": k, "workerId": 1, "workDate": "2026-02-01", "workDays": 150, "dayRate": 40_000, "amount": 60_000});
            zhizhuang::api::scm::insert_day_work(w, &res, A, day.as_object().unwrap().clone(), &sys)?;
            Ok(())
        })
        .unwrap();
    let (s, v) = get(&app, &t, &format!("{C}/getCostComparison?projectId={project}")).await;
    assert_eq!(s, 200, "{v}");
    let rows = v["data"].as_array().unwrap();
    assert_eq!((rows[0]["budget"].as_str(), rows[0]["actual"].as_str(), rows[0]["usedPercent"].as_str()), (Some("80000.00"), Some("27500.00"), Some("34.4")), "issued less returned");
    assert_eq!(rows[1]["actual"], "600.00", "day work");
    assert_eq!((rows[3]["actual"].as_str(), rows[3]["difference"].as_str()), (Some("18500.50"), Some("1499.50")));
    let (_, v) = get(&app, &t, &format!("{C}/getGrossProfitRate?projectId={project}")).await;
    // Revenue 210,000 (signed + change); cost 27,500 + 600 + 18,500.50 = 46,600.50; profit 163,399.50 = 77.81%.
    assert_eq!((v["data"]["revenue"].as_str(), v["data"]["cost"].as_str(), v["data"]["grossProfit"].as_str(), v["data"]["grossProfitRate"].as_str()),
        (Some("210000.00"), Some("46600.50"), Some("163399.50"), Some("77.81")), "{v}");
    let (_, v) = get(&app, &t, &format!("{C}/getInformationDetails?projectId={project}")).await;
    assert_eq!((v["data"]["projectName"].as_str(), v["data"]["budget"].as_str(), v["data"]["material"].as_str()), (Some("成本测试项目"), Some("150000.00"), Some("27500.00")), "{v}");
    // 其中材料 is the material category's actual cost, as the comparison table's row shows it.
    let (s, v2) = post(&app, &t, &format!("{C}/submit"), json!({"projectId": project, "costType": 1, "costName": "辅材(手工登记)", "budget": "0", "actual": "1000.25"})).await;
    assert_eq!(s, 200, "{v2}");
    let (_, v) = get(&app, &t, &format!("{C}/getInformationDetails?projectId={project}")).await;
    assert_eq!((v["data"]["material"].as_str(), v["data"]["materialIssued"].as_str(), v["data"]["materialEntered"].as_str()), (Some("28500.25"), Some("27500.00"), Some("1000.25")), "{v}");
    let (_, c) = get(&app, &t, &format!("{C}/getCostComparison?projectId={project}")).await;
    assert_eq!(c["data"][0]["actual"], v["data"]["material"], "the facts and the table agree");
    assert_eq!((v["data"]["labour"].as_str(), v["data"]["other"].as_str()), (Some("600.00"), Some("18500.50")), "{v}");
    let id2 = v2["data"]["id"].as_str().unwrap().to_string();
    let (s, _) = app.req("POST", &format!("{C}/remove?ids={id2}"), Some(&t), None, &[]).await;
    assert_eq!(s, 200);
    let (_, v) = get(&app, &t, &format!("{C}/getMaterialDetailList?projectId={project}&current=1&size=10")).await;
    assert_eq!(v["data"]["total"], 2, "{v}");
    assert_eq!(v["data"]["records"][0]["direction"], "return");
    // Another tenant: the project is not there.
    let tb = app.admin(B).await;
    let (s, _) = get(&app, &tb, &format!("{C}/getGrossProfitRate?projectId={project}")).await;
    assert_eq!(s, 404);
    // The totals the figures read agree with their rows (what verify checks); a total out of step is found, and
    // the once-only upgrade of an older file sets them from the rows.
    let cost_audit = |app: &App| {
        let res = app.st.res.clone();
        let (moves, labour) = app.st.store.read(move |r| Ok((zhizhuang::api::wms::ledger::audit(r, &res)?.problems, zhizhuang::api::finance::cost::audit(r, &res)?.problems))).unwrap();
        moves.into_iter().chain(labour).collect::<Vec<_>>()
    };
    assert_eq!(cost_audit(&app), Vec::<String>::new());
    let (counters, res) = (app.st.res.clone(), app.st.res.clone());
    let k = app.st.store.read(move |r| Ok(r.all(&counters.get("construct"), A)?.into_iter().find(|k| k["constructCode"] == "SGT-1").unwrap()["id"].as_u64().unwrap())).unwrap();
    app.st
        .store
        .write(move |w| {
            w.add_counter(A, &zhizhuang::api::wms::ledger::project_counter(zhizhuang::api::wms::ledger::ProjectWay::Issued, pid), -1)?;
            w.add_counter(A, &zhizhuang::api::scm::daywork_counter(k), 5)?;
            Ok(())
        })
        .unwrap();
    let found = cost_audit(&app);
    assert!(found.len() == 2 && found[0].contains(&format!("project {pid}")) && found[1].contains(&format!("construct {k}")), "{found:?}");
    app.st
        .store
        .write(move |w| {
            w.delete_meta("upgrade:cost_totals")?;
            zhizhuang::seed::upgrade(w, &res)
        })
        .unwrap();
    assert_eq!(cost_audit(&app), Vec::<String>::new());
    let (_, v) = get(&app, &t, &format!("{C}/getGrossProfitRate?projectId={project}")).await;
    assert_eq!(v["data"]["cost"], "46600.50", "{v}");
}

/// Random postings, corrections and removals on two contracts: after every step the ledger's balances equal the
/// sum of its entries (`audit`), refused steps change nothing, and no entry once posted is ever changed.
#[tokio::test]
async fn random_postings_and_reversals_keep_ledgers_equal_to_their_entries() {
    let (seed, mut rnd) = crate::support::seeded("contract ledger property test");
    let app = App::new();
    let t = app.admin(A).await;
    let mut contracts = Vec::new();
    for i in 0..2 {
        let (_, v) = post(&app, &t, &format!("{S}/contract/add"), json!({"contractName": format!("性质测试{i}"), "partyName": "x", "contractAmount": "50000"})).await;
        let c = v["data"]["id"].as_str().unwrap().to_string();
        post(&app, &t, &format!("{S}/contract/update"), json!({"id": c, "contractStatus": 1, "signDate": "2026-02-01"})).await;
        contracts.push(c);
    }
    let mut seen: std::collections::HashMap<String, Value> = Default::default();
    let (mut ok_steps, mut refused) = (0, 0);
    for step in 0..120 {
        let c = &contracts[rnd(2) as usize];
        let (_, v) = post(&app, &t, &format!("{L}/ledgerList"), json!({"contractId": c, "size": 500})).await;
        let entries = v["data"]["records"].as_array().cloned().unwrap_or_default();
        let amount = format!("{}.{:02}", rnd(20_000), rnd(100));
        let (s, v) = match rnd(6) {
            0..=2 => {
                let ty = 2 + rnd(4);
                let amount = if ty == 2 && rnd(3) == 0 { format!("-{amount}") } else { amount };
                post(&app, &t, &format!("{L}/save"), json!({"contractId": c, "entryType": ty, "amount": amount, "node": "节点", "dueDate": "2026-06-01", "invoiceNo": format!("F{step}")})).await
            }
            3 | 4 if !entries.is_empty() => {
                let e = &entries[rnd(entries.len() as u64) as usize];
                let fix = if rnd(2) == 0 { amount } else { String::new() };
                post(&app, &t, &format!("{L}/update/ledger"), json!({"id": e["id"], "amount": fix, "remark": format!("更正{step}")})).await
            }
            _ if !entries.is_empty() => {
                let e = &entries[rnd(entries.len() as u64) as usize];
                let (s, v) = app.post(&format!("{L}/remove?ids={}", e["id"].as_str().unwrap()), &t, "{}").await;
                (s.as_u16(), v)
            }
            _ => continue,
        };
        match s {
            200 => ok_steps += 1,
            400 => refused += 1,
            other => panic!("step {step}: {other} {v}"),
        }
        audit_clean(&app);
        // Nothing posted is ever changed: amount, type, date and reversal link stay as first seen.
        let (_, v) = post(&app, &t, &format!("{L}/ledgerList"), json!({"contractId": c, "size": 500})).await;
        for e in v["data"]["records"].as_array().unwrap() {
            let key = e["id"].as_str().unwrap().to_string();
            let fixed = json!([e["amount"], e["entryType"], e["entryDate"], e["reversesId"]]);
            if let Some(before) = seen.insert(key.clone(), fixed.clone()) {
                assert_eq!(before, fixed, "seed {seed}: entry {key} changed");
            }
        }
    }
    assert!(ok_steps > 20 && refused > 0, "seed {seed}: {ok_steps} posted, {refused} refused");
}

#[tokio::test]
async fn a_work_order_moves_through_its_statuses_with_replies() {
    let app = App::new();
    let t = app.admin(A).await;
    const C: &str = "/api/blade-biz/worklist/category";
    const O: &str = "/worklist/order";
    const RP: &str = "/api/blade-biz/worklist/reply";
    let (s, v) = post(&app, &t, &format!("{C}/submit"), json!({"categoryName": "售后维修", "defaultHours": 48})).await;
    assert_eq!(s, 200, "{v}");
    let cat = v["data"]["id"].as_str().unwrap().to_string();
    // Raised: a number per day, the requester is whoever raised it, due from the category's limit.
    let (s, v) = post(&app, &t, &format!("{O}/submit"), json!({"title": "卫生间地漏返味", "categoryId": cat, "priority": 4, "content": "业主反映返味"})).await;
    assert_eq!(s, 200, "{v}");
    let order = v["data"]["id"].as_str().unwrap().to_string();
    assert!(v["data"]["orderNo"].as_str().unwrap().starts_with("GD"), "{v}");
    assert!(v["data"]["requesterId"].as_str().is_some() && v["data"]["dueTime"].as_str().is_some_and(|d| !d.is_empty()), "{v}");
    let (s, v) = post(&app, &t, &format!("{O}/submit"), json!({"title": "x", "categoryId": cat, "content": "x", "orderStatus": 3})).await;
    assert_eq!(s, 400, "a new order starts open: {v}");
    // Assigned to the admin: the first reply by the assignee takes it in hand.
    let me = app.st.store.read(|r| Ok(r.all(&app.st.res.get("user"), A)?.into_iter().find(|u| u["account"] == "admin").unwrap()["id"].as_u64().unwrap())).unwrap();
    let (s, v) = post(&app, &t, &format!("{O}/submit"), json!({"id": order, "assigneeId": me.to_string()})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, &format!("{RP}/submit"), json!({"orderId": order, "content": "下午上门"})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["authorName"], "管理员");
    let (_, v) = get(&app, &t, &format!("{O}/detail?id={order}")).await;
    assert_eq!((v["data"]["orderStatus"].as_i64(), v["data"]["replyCount"].as_i64()), (Some(2), Some(1)), "{v}");
    // Attachments: files uploaded here (put-file), named in the thread; anything else is refused by name.
    let (s, f1) = app.upload(&t, "/api/blade-resource/oss/endpoint/put-file", "现场照片.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj".to_vec()).await;
    assert_eq!(s, 200, "{f1}");
    let (_, f2) = app.upload(&t, "/api/blade-resource/oss/endpoint/put-file", "整改清单.txt", "地漏更换\n".as_bytes().to_vec()).await;
    let links = format!("{},{}", f1["data"]["link"].as_str().unwrap(), f2["data"]["link"].as_str().unwrap());
    let (s, v) = post(&app, &t, &format!("{RP}/submit"), json!({"orderId": order, "content": "照片和清单见附件", "attachments": links})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["attachNames"], r#"["现场照片.pdf","整改清单.txt"]"#, "{v}");
    let tb = app.admin(B).await;
    let (_, other) = app.upload(&tb, "/api/blade-resource/oss/endpoint/put-file", "b.txt", b"other tenant\n".to_vec()).await;
    let other = other["data"]["link"].as_str().unwrap().to_string();
    let fake = format!("/files/{A}/{}", "0".repeat(32));
    for bad in ["javascript:alert(1)", "https://example.com/x.pdf", other.as_str(), fake.as_str()] {
        let (s, v) = post(&app, &t, &format!("{RP}/submit"), json!({"orderId": order, "content": "x", "attachments": format!("{},{bad}", f1["data"]["link"].as_str().unwrap())})).await;
        assert_eq!(s, 400, "{bad}: {v}");
        assert!(msg(&v).contains("不是本系统上传的文件"), "{v}");
    }
    let eleven = vec![f1["data"]["link"].as_str().unwrap(); 11].join(",");
    let (s, v) = post(&app, &t, &format!("{RP}/submit"), json!({"orderId": order, "content": "x", "attachments": eleven})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("最多 10 个附件"), "{v}");
    // The desk lists it as urgent for the assignee.
    let (_, v) = get(&app, &t, "/api/blade-flow/work/counts").await;
    assert!(v["data"]["orders"].as_array().unwrap().iter().any(|o| o["id"] == order.as_str()), "{v}");
    // Resolved, closed (no reply then), reopened; an open order cannot jump back to open from resolved.
    for (to, want) in [(3, 200), (1, 400), (4, 200)] {
        let (s, v) = post(&app, &t, &format!("{O}/submit"), json!({"id": order, "orderStatus": to})).await;
        assert_eq!(s, want, "to {to}: {v}");
    }
    let (s, v) = post(&app, &t, &format!("{RP}/submit"), json!({"orderId": order, "content": "再补一句"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("已关闭"), "{v}");
    let (s, v) = post(&app, &t, &format!("{O}/submit"), json!({"id": order, "orderStatus": 2})).await;
    assert_eq!(s, 200, "reopened: {v}");
    let (_, v) = get(&app, &t, &format!("{O}/detail?id={order}")).await;
    assert!(v["data"]["resolvedTime"].is_null() || v["data"]["resolvedTime"] == "", "{v}");
    // A category in use is not removed; an order goes with its replies.
    let (s, v) = app.post(&format!("{C}/remove?ids={cat}"), &t, "").await;
    assert_eq!(s.as_u16(), 400, "{v}");
    let (s, v) = app.post(&format!("{O}/remove?ids={order}"), &t, "").await;
    assert_eq!(s.as_u16(), 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{RP}/list?orderId={order}")).await;
    assert_eq!(v["data"]["total"], 0, "{v}");
}

#[tokio::test]
async fn statistics_add_up_projects_ledgers_and_monthly_output() {
    let app = App::new();
    let t = app.admin(A).await;
    let (_, v) = post(&app, &t, &format!("{S}/company/add"), json!({"companyName": "统计测试公司", "companyType": 1})).await;
    let company = v["data"]["id"].as_str().unwrap().to_string();
    let mut contracts = Vec::new();
    for (i, amount) in ["100000", "50000.50"].iter().enumerate() {
        let (_, v) = post(&app, &t, &format!("{S}/project/add"), json!({"projectName": format!("统计项目{i}"), "projectCompanyId": company, "businessUnit": "TOB", "startTime": "2026-01-01", "regionCode": "320102"})).await;
        let project = v["data"]["id"].as_str().unwrap_or_else(|| panic!("{v}")).to_string();
        let (_, v) = post(&app, &t, &format!("{S}/contract/add"), json!({"contractName": format!("统计合同{i}"), "partyName": "x", "contractAmount": amount, "projectId": project})).await;
        let c = v["data"]["id"].as_str().unwrap().to_string();
        post(&app, &t, &format!("{S}/contract/update"), json!({"id": c, "contractStatus": 1, "signDate": "2026-02-01"})).await;
        contracts.push(c);
    }
    post(&app, &t, &format!("{R}/save"), json!({"contractId": contracts[0], "amount": "30000", "entryDate": "2026-03-05"})).await;
    for (c, amount, date) in [(0, "30000", "2026-03-05"), (1, "10000", "2026-03-20"), (1, "5000", "2026-04-02")] {
        let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": contracts[c], "entryType": 5, "amount": amount, "entryDate": date, "invoiceNo": format!("F{date}")})).await;
        assert_eq!(s, 200, "{v}");
    }
    let (s, v) = post(&app, &t, "/api/blade-biz/statistic/monthtarget/submit", json!({"companyId": company, "month": "2026-03", "targetValue": "50000"})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = get(&app, &t, &format!("/api/blade-biz/statistic/companyinfo?companyId={company}")).await;
    assert_eq!(s, 200, "{v}");
    let d = &v["data"];
    assert_eq!((d["projectCount"].as_i64(), d["contractValue"].as_str(), d["received"].as_str(), d["outstanding"].as_str()), (Some(2), Some("150000.50"), Some("30000.00"), Some("120000.50")), "{v}");
    assert_eq!(d["projectsByProvince"][0]["code"], "320000");
    let (_, v) = post(&app, &t, "/api/blade-biz/statistic/monthcarryovertarget", json!({"year": 2026, "companyId": company})).await;
    let march = &v["data"]["months"][2];
    assert_eq!((march["month"].as_str(), march["target"].as_str(), march["actual"].as_str(), march["percent"].as_str()), (Some("2026-03"), Some("50000.00"), Some("40000.00"), Some("80.0")), "{v}");
    assert_eq!(v["data"]["months"][3]["actualToDate"], "45000.00");
    let (s, _) = post(&app, &t, "/api/blade-biz/statistic/monthcarryovertarget", json!({"year": "20x6"})).await;
    assert_eq!(s, 400);
    let (s, v) = get(&app, &t, &format!("/api/blade-biz/statistic/monthvalueover/{company}")).await;
    assert_eq!(s, 200, "{v}");
    // The desk's map: projects per province by business unit and start; no rectifications yet.
    let (_, v) = get(&app, &t, "/api/blade-biz/statistic/desk?businessUnit=TOB&since=2025-12-01").await;
    assert!(v["data"]["provinces"].as_array().unwrap().iter().any(|p| p["code"] == "320000" && p["count"].as_i64() >= Some(2)), "{v}");
    let (_, v) = get(&app, &t, "/api/blade-biz/statistic/desk?businessUnit=TOC&since=2025-12-01").await;
    assert!(!v["data"]["provinces"].as_array().unwrap().iter().any(|p| p["code"] == "320000" && p["count"].as_i64() >= Some(2)), "{v}");
    let (s, _) = get(&app, &t, "/api/blade-biz/statistic/desk?since=yesterday").await;
    assert_eq!(s, 400);
    let tb = app.admin(B).await;
    let (s, _) = get(&app, &tb, &format!("/api/blade-biz/statistic/monthvalueover/{company}")).await;
    assert_eq!(s, 404);
    let (_, v) = get(&app, &tb, "/api/blade-biz/statistic/companyinfo").await;
    assert!(!v.to_string().contains("150000.50"), "{v}");
}

#[tokio::test]
async fn the_work_list_app_dictionary_is_a_business_dictionary() {
    let app = App::new();
    let t = app.admin(A).await;
    let (s, v) = post(&app, &t, "/api/blade-system/dict-biz/submit", json!({"code": "work_list_app", "dictKey": "-1", "dictValue": "工单来源", "parentId": "0", "sort": 1})).await;
    assert_eq!(s, 200, "{v}");
    let root = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &t, "/bladeDict/submit", json!({"code": "work_list_app", "dictKey": "1", "dictValue": "业主小程序", "parentId": root, "sort": 1})).await;
    assert_eq!(s, 200, "{v}");
    let entry = v["data"]["id"].as_str().unwrap().to_string();
    let (_, v) = get(&app, &t, "/bladeDict/list?code=work_list_app").await;
    assert_eq!(v["data"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v["data"][0]["dictValue"], "业主小程序");
    let (s, v) = app.post(&format!("/bladeDict/deleteByIds?ids={entry}"), &t, "").await;
    assert_eq!(s.as_u16(), 200, "{v}");
    let (_, v) = get(&app, &t, "/bladeDict/list?code=work_list_app").await;
    assert_eq!(v["data"].as_array().map(Vec::len), Some(0), "{v}");
}

/// 收款通道 and POS签约 under the receivables' base (and under `/api`): a channel, a terminal signed on it for a
/// project, refused on a disabled channel (cancelling stays allowed), and another tenant's records out of reach.
#[tokio::test]
async fn payment_channels_and_pos_terminals_are_served_at_both_bases() {
    let app = App::new();
    let t = app.admin(A).await;
    let tb = app.admin(B).await;
    let (_, v) = post(&app, &t, &format!("{S}/company/add"), json!({"companyName": "POS 测试公司", "companyType": 1})).await;
    let company = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &t, &format!("{S}/project/add"), json!({"projectName": "POS 测试项目", "projectCompanyId": company, "businessUnit": "TOC", "startTime": "2026-03-01"})).await;
    assert_eq!(s, 200, "{v}");
    let project = v["data"]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &t, "/blade-api/edu-sub-account/extconfig/submit", json!({"configName": "银联 工程款", "channel": 1, "merchantNo": "898320541100101", "enabled": 1})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, "/api/blade-api/edu-sub-account/extconfig/list?merchantNo=898320541100101").await;
    assert_eq!(v["data"]["total"], 1, "{v}");
    let channel = v["data"]["records"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(v["data"]["records"][0]["channelName"], "银联商务");

    let (s, v) = post(&app, &t, "/blade-api/edu-sub-account/possign/save", json!({"terminalNo": "T0001", "configId": channel, "projectId": project, "keeper": "王建国", "signDate": "2026-03-02"})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, "/blade-api/edu-sub-account/possign/list?terminalNo=T0001").await;
    let terminal = v["data"]["records"][0]["id"].as_str().unwrap_or_else(|| panic!("{v}")).to_string();
    assert_eq!(v["data"]["records"][0]["signStatusName"], "已签约", "{v}");
    assert_eq!(v["data"]["records"][0]["projectName"], "POS 测试项目", "{v}");
    let (s, v) = get(&app, &t, &format!("/api/blade-api/edu-sub-account/possign/detail?id={terminal}")).await;
    assert_eq!((s, v["data"]["keeper"].as_str()), (200, Some("王建国")), "{v}");

    // A disabled channel signs no terminal; cancelling one on it is fine.
    let (s, v) = post(&app, &t, "/blade-api/edu-sub-account/extconfig/submit", json!({"id": channel, "enabled": 0})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, "/blade-api/edu-sub-account/possign/save", json!({"terminalNo": "T0002", "configId": channel, "projectId": project, "keeper": "李卫东", "signDate": "2026-03-03"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("收款通道「银联 工程款」已停用"), "{v}");
    let (s, v) = post(&app, &t, "/blade-api/edu-sub-account/possign/update", json!({"id": terminal, "signStatus": 2})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, "/blade-api/edu-sub-account/possign/update", json!({"id": terminal, "signStatus": 1})).await;
    assert_eq!(s, 400, "re-signing on a disabled channel: {v}");

    // Another tenant sees neither.
    let (_, v) = get(&app, &tb, "/blade-api/edu-sub-account/possign/list?terminalNo=T0001").await;
    assert_eq!(v["data"]["total"], 0, "{v}");
    let (s, _) = get(&app, &tb, &format!("/blade-api/edu-sub-account/possign/detail?id={terminal}")).await;
    assert_eq!(s, 404);
    let (s, v) = post(&app, &t, &format!("/blade-api/edu-sub-account/possign/remove?ids={terminal}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
}

/// A receipt recorded on one stage (应收款's 登记收款 on its row) settles that stage first, what is more than it
/// owes the others in due-date order; a correction keeps its stage; a stage of another contract is refused.
#[tokio::test]
async fn a_receipt_for_a_stage_settles_that_stage_first() {
    let app = App::new();
    let t = app.admin(A).await;
    let mut contracts = Vec::new();
    for name in ["分节点收款合同", "另一合同"] {
        let (s, v) = post(&app, &t, &format!("{S}/contract/add"), json!({"contractName": name, "partyName": "业主乙", "contractAmount": "100000.00"})).await;
        assert_eq!(s, 200, "{v}");
        let c = v["data"]["id"].as_str().unwrap().to_string();
        let (s, v) = post(&app, &t, &format!("{S}/contract/update"), json!({"id": c, "contractStatus": 1, "signDate": "2026-03-01"})).await;
        assert_eq!(s, 200, "{v}");
        for (node, amount, due) in [("定金", "10000", "2026-03-10"), ("首期款", "30000", "2026-04-01"), ("尾款", "60000", "2099-01-01")] {
            let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": c, "entryType": 3, "amount": amount, "node": node, "dueDate": due})).await;
            assert_eq!(s, 200, "{v}");
        }
        contracts.push(c);
    }
    let c = &contracts[0];
    let stages = |v: &Value| -> Vec<(String, String)> {
        v["data"]["records"].as_array().unwrap().iter().map(|r| (r["node"].as_str().unwrap().to_string(), r["received"].as_str().unwrap().to_string())).collect()
    };
    let (_, v) = get(&app, &t, &format!("{R}/list?contractId={c}")).await;
    let id_of = |node: &str| v["data"]["records"].as_array().unwrap().iter().find(|r| r["node"] == node).unwrap()["id"].as_str().unwrap().to_string();
    let (deposit, last) = (id_of("定金"), id_of("尾款"));
    let (s, v) = post(&app, &t, &format!("{R}/save"), json!({"contractId": c, "amount": "5000", "nodeId": last, "remark": "尾款预付"})).await;
    assert_eq!(s, 200, "{v}");
    let early = v["data"]["id"].as_str().unwrap().to_string();
    let (_, v) = get(&app, &t, &format!("{R}/list?contractId={c}")).await;
    let want = |a: &str, b: &str, c: &str| vec![("定金".to_string(), a.to_string()), ("首期款".to_string(), b.to_string()), ("尾款".to_string(), c.to_string())];
    assert_eq!(stages(&v), want("0.00", "0.00", "5000.00"), "on the stage chosen, though two fell due before it: {v}");
    let (s, v) = post(&app, &t, &format!("{R}/save"), json!({"contractId": c, "amount": "12000", "nodeId": deposit})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{R}/list?contractId={c}")).await;
    assert_eq!(stages(&v), want("10000.00", "2000.00", "5000.00"), "what is more than the stage owes goes in due-date order: {v}");
    // Corrected, the receipt stays on its stage; the stage corrected (posted again under a new id) keeps it too.
    let (s, v) = post(&app, &t, &format!("{L}/update/ledger"), json!({"id": early, "amount": "6000", "remark": "金额录入有误"})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{R}/list?contractId={c}")).await;
    assert_eq!(stages(&v), want("10000.00", "2000.00", "6000.00"), "{v}");
    let (s, v) = post(&app, &t, &format!("{L}/update/ledger"), json!({"id": last, "amount": "60000", "remark": "节点更正"})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{R}/list?contractId={c}")).await;
    assert_eq!(stages(&v), want("10000.00", "2000.00", "6000.00"), "after the stage's correction: {v}");
    // Only a receipt names a stage: a stage on another entry is refused, a typed name on a receipt is not kept.
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": c, "entryType": 5, "amount": "1", "invoiceNo": "9901", "nodeId": deposit})).await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": c, "entryType": 4, "amount": "1", "entryDate": "2026-13-45"})).await;
    assert_eq!((s, msg(&v)), (400, "业务日期格式不正确".to_string()), "a date that is no day: {v}");
    let (s, v) = post(&app, &t, &format!("{L}/save"), json!({"contractId": c, "entryType": 4, "amount": "1", "node": "尾款"})).await;
    assert_eq!((s, v["data"]["node"].as_str().unwrap_or("")), (200, ""), "{v}");
    let (s, v) = post(&app, &t, &format!("{L}/update/ledger"), json!({"id": v["data"]["id"], "remark": "试录"})).await;
    assert_eq!(s, 200, "{v}");
    // A stage of another contract, or an id that is no stage, is refused and nothing is posted.
    let (_, v) = get(&app, &t, &format!("{R}/list?contractId={}", contracts[1])).await;
    let other = v["data"]["records"][0]["id"].as_str().unwrap().to_string();
    for bad in [other, early.clone()] {
        let (s, v) = post(&app, &t, &format!("{R}/save"), json!({"contractId": c, "amount": "1", "nodeId": bad})).await;
        assert_eq!(s, 400, "{v}");
        assert!(msg(&v).contains("收款节点不是该合同现行的收款计划"), "{v}");
    }
    let (_, v) = get(&app, &t, &format!("{L}/detail?contractId={c}")).await;
    assert_eq!(v["data"]["received"], "18000.00", "{v}");
    let rows: Vec<(String, String)> = v["data"]["schedule"].as_array().unwrap().iter().map(|r| (r["node"].as_str().unwrap().to_string(), r["received"].as_str().unwrap().to_string())).collect();
    assert_eq!(rows, want("10000.00", "2000.00", "6000.00"), "the ledger page applies them alike: {v}");
    let (_, v) = post(&app, &t, &format!("{L}/ledgerList"), json!({"contractId": c, "entryType": 4, "size": 50})).await;
    let first = v["data"]["records"].as_array().unwrap().iter().find(|e| e["id"] == early.as_str()).cloned().unwrap_or_default();
    assert_eq!(first["node"], "尾款", "the journal names the stage: {v}");
    // The ledger list's keyword finds ledgers by their contract's 签约方 too (neither contract's name holds it).
    app.indexed();
    let (s, v) = get(&app, &t, &format!("{L}/list?keyword=%E4%B8%9A%E4%B8%BB%E4%B9%99")).await;
    assert_eq!((s, v["data"]["total"].as_u64()), (200, Some(2)), "业主乙: {v}");
    audit_clean(&app);
}
