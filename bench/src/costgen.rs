//! Issue 10's project-cost data, written through the real code paths: one project with two signed contracts
//! (their ledgers opened by `finance::ledger::contract_saved`), 20 constructs, budgets on the five cost lines,
//! `issues` warehouse issues of materials to it (`wms::ledger::post`, bin → project, each a stock move) and
//! `days` day-work rows over its constructs (with their maintained total, as `day/worker/bind` keeps it); and,
//! around it, 50 other projects with 1,000 issues each, so the project's moves are a part of the table. Prints
//! the project id.
use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};
use store::{Actor, QTY_SCALE};
use zhizhuang::api::wms::ledger::{self, Doc, Loc, Move};
use zhizhuang::engine::dialect::Ctx;
use zhizhuang::engine::rec::obj;
use zhizhuang::decl::Resources;

pub fn cost(file: &Path, tenant: &str, issues: u64, days: u64) -> anyhow::Result<u64> {
    let res = Resources::load()?;
    let st = crate::datagen::open(file)?;
    let start = Instant::now();
    let sys = Actor { user_id: 1, dept_id: 1, at: None };
    let now = "2026-11-23 09:00:00".to_string();
    let (r, t, n2) = (res.clone(), tenant.to_string(), now.clone());
    // Projects, contracts (signed: the ledger hook opens their ledgers), constructs, budgets, a store with goods.
    let (projects, constructs, bins, goods): (Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>) = st.write(move |w| {
        let cx = Ctx { tenant: &t, actor: &sys, res: &r, now: &n2 };
        let ins = |w: &mut store::WriteCtx, n: &str, v: Value| -> store::Result<u64> { Ok(w.insert(&r.get(n), &t, obj(v), &sys)?["id"].as_u64().unwrap_or(0)) };
        let company = ins(w, "company", json!({"companyName": "基准装饰工程有限公司", "companyType": 1}))?;
        let mut projects = Vec::new();
        for i in 0..51u64 {
            let p = ins(w, "project", json!({"projectCode": format!("XMC{i:05}"), "projectName": format!("成本基准项目{i}号楼精装修"), "projectCompanyId": company,
                "businessUnit": "TOB", "startTime": "2026-03-01", "projectStatus": 2}))?;
            for c in 0..2u64 {
                let doc = obj(json!({"contractCode": format!("HTC{i:05}{c}"), "contractName": format!("成本基准合同{i}-{c}"), "projectId": p, "partyName": "基准业主",
                    "contractAmount": 1_800_000_000 + c as i64 * 400_000_000, "signDate": "2026-03-01", "contractStatus": 1}));
                let saved = w.insert(&r.get("contract"), &t, doc, &sys)?;
                zhizhuang::api::finance::ledger::contract_saved(w, &cx, None, &saved)?;
            }
            projects.push(p);
        }
        let p = projects[0];
        let contract = ins(w, "contract", json!({"contractName": "成本基准施工合同", "projectId": p, "partyName": "基准业主", "contractAmount": 100}))?;
        let mut constructs = Vec::new();
        for k in 0..20u64 {
            constructs.push(ins(w, "construct", json!({"constructCode": format!("SGC{k:05}"), "constructName": format!("{}#楼施工", k + 1), "projectId": p,
                "contractId": contract, "constructMode": 1, "modelStatus": 3}))?);
        }
        for (ct, name, budget) in [(1, "主材及辅材", 900_000_000i64), (2, "班组人工及点工", 500_000_000), (3, "机械租赁", 60_000_000), (4, "专业分包", 140_000_000), (5, "现场管理及杂费", 60_000_000)] {
            ins(w, "project_cost", json!({"projectId": p, "costType": ct, "costName": name, "budget": budget, "actual": if ct > 2 { budget / 2 } else { 0 }}))?;
        }
        let s = ins(w, "store", json!({"storeCode": "COST", "storeName": "成本基准仓", "enabled": 1}))?;
        let area = ins(w, "reservoirarea", json!({"storeId": s, "areaCode": "CA01", "areaName": "存储区", "areaKind": 2}))?;
        let mut bins = Vec::new();
        for b in 0..50 {
            bins.push(ins(w, "storagespace", json!({"areaId": area, "storeId": s, "spaceCode": format!("C01-{b:03}"), "pickOrder": b, "spaceState": 0}))?);
        }
        let mut goods = Vec::new();
        for g in 0..500u64 {
            let id = ins(w, "goods", json!({"goodsCode": format!("CSB{g:05}"), "goodsName": format!("基准辅材{g}"), "unit": "件", "price": 200 + g as i64 * 37 % 6_000, "enabled": 1}))?;
            // Enough on its bin for every issue below.
            ledger::post(w, &cx, &Move::new(id, Loc::Supplier, Loc::Bin(bins[g as usize % 50]), "", 1_000_000 * QTY_SCALE, Doc { kind: "rk", id: g + 1, no: "RKCOST", line: 0 }))?;
            goods.push(id);
        }
        Ok((projects, constructs, bins, goods))
    })?;
    let p = projects[0];
    let others = 50 * 1_000;
    let total = issues + others;
    let mut done = 0;
    while done < total {
        let n = (total - done).min(10_000);
        let (r, t, now, projects, constructs, bins, goods) = (res.clone(), tenant.to_string(), now.clone(), projects.clone(), constructs.clone(), bins.clone(), goods.clone());
        st.write(move |w| {
            let cx = Ctx { tenant: &t, actor: &sys, res: &r, now: &now };
            for m in done..done + n {
                // The project's own issues first, then a thousand for each of the others.
                let (project, construct) = if m < issues { (p, Some(constructs[(m % 20) as usize])) } else { (projects[1 + ((m - issues) / 1_000) as usize], None) };
                let g = (m * 7 % 500) as usize;
                let no = format!("CKC{m:08}");
                let mv = Move { project: Some(project), construct, ..Move::new(goods[g], Loc::Bin(bins[g % 50]), Loc::Project(project), "", (1 + m % 9) as i64 * QTY_SCALE, Doc { kind: "ck", id: m + 1, no: &no, line: 0 }) };
                ledger::post(w, &cx, &mv)?;
            }
            Ok(())
        })?;
        done += n;
        if done % 50_000 == 0 || done == total {
            eprintln!("  issues {done}/{total} in {:.1}s", start.elapsed().as_secs_f64());
        }
    }
    let (r, t) = (res.clone(), tenant.to_string());
    st.write(move |w| {
        let wdef = r.get("worker");
        let job = w.insert(&r.get("worker_job"), &t, obj(json!({"jobName": "基准杂工"})), &sys)?["id"].as_u64().unwrap_or(0);
        let mut workers = Vec::new();
        for i in 0..40u64 {
            workers.push(w.insert(&wdef, &t, obj(json!({"workerName": format!("基准工人{i}"), "phone": format!("139{i:08}"), "workerJobId": job})), &sys)?["id"].as_u64().unwrap_or(0));
        }
        for d in 0..days {
            let k = constructs[(d % 20) as usize];
            let (wd, rate) = (50 + (d % 3) as i64 * 25, 30_000 + (d % 5) as i64 * 2_500);
            let amount = (wd * rate + 50) / 100;
            let day = 1 + d / 40;
            let date = format!("20{:02}-{:02}-{:02}", 20 + day / 336, 1 + day / 28 % 12, 1 + day % 28);
            let doc = obj(json!({"constructId": k, "workerId": workers[(d % 40) as usize], "workDate": date, "workDays": wd, "dayRate": rate, "amount": amount, "workContent": "基准点工"}));
            zhizhuang::api::scm::insert_day_work(w, &r, &t, doc, &sys)?;
        }
        Ok(())
    })?;
    st.close();
    eprintln!("  generated in {:.1}s", start.elapsed().as_secs_f64());
    Ok(p)
}
