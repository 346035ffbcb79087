//! 业务管理 demo data of a tenant: the catalogue, companies, customers, trades with day rates, workers, a dozen
//! projects across regions and business units, their contracts (every status), constructs in every status with
//! managers, crews and day work, buildings, documents, and post-mortems — written consistently with the rules the
//! API enforces, each record dated as it would have been made.
use serde_json::{Value, json};
use store::{Actor, WriteCtx};

use crate::decl::Resources;
use crate::engine::demo::in_city;
use crate::engine::rec::obj;

/// The product catalogue of a decoration company: categories per product type and the products a project manager
/// picks (prices in fen).
fn demo_catalogue(w: &mut WriteCtx, res: &Resources, tenant: &str) -> store::Result<()> {
    let sys = Actor::default();
    type Item<'a> = (&'a str, &'a str, &'a str, &'a str, i64);
    let tree: &[(i64, &str, &[(&str, &[Item])])] = &[
        (1, "瓷砖", &[
            ("地砖", &[("仿古砖 600×600", "马可波罗", "600×600×10mm", "片", 4550), ("通体大理石瓷砖 800×800", "东鹏", "800×800×11mm", "片", 8900), ("木纹砖 200×1200", "诺贝尔", "200×1200×10mm", "片", 6800)]),
            ("墙砖", &[("釉面墙砖 300×600", "东鹏", "300×600×8mm", "片", 2350), ("厨卫墙砖 400×800", "马可波罗", "400×800×9mm", "片", 3900)]),
        ]),
        (1, "地板", &[("实木复合地板", &[("橡木实木复合地板", "大自然", "1215×195×15mm", "㎡", 26800), ("强化复合地板 AC4", "圣象", "1218×198×12mm", "㎡", 12800)])]),
        (1, "卫浴洁具", &[("坐便器", &[("虹吸式连体坐便器", "九牧", "305坑距", "套", 189900)]), ("花洒", &[("恒温花洒套装", "汉斯格雅", "AXOR", "套", 268000)])]),
        (1, "板材", &[("石膏板", &[("纸面石膏板", "龙牌", "1200×2400×9.5mm", "张", 3250), ("防潮石膏板", "可耐福", "1200×2400×9.5mm", "张", 4200)])]),
        (2, "水电辅材", &[("电线", &[("BV2.5 铜芯线", "正泰", "100m/卷", "卷", 29800), ("BV4 铜芯线", "正泰", "100m/卷", "卷", 46800)]), ("管材", &[("PPR 冷热水管 25", "伟星", "4m/根", "根", 3600), ("PVC 线管 20", "联塑", "3.8m/根", "根", 850)])]),
        (2, "泥瓦辅材", &[("水泥砂浆", &[("P.O 42.5 水泥", "海螺", "50kg/袋", "袋", 3200), ("瓷砖胶 C2", "德高", "20kg/袋", "袋", 6800)]), ("防水", &[("柔韧型防水涂料", "东方雨虹", "18kg/桶", "桶", 35800)])]),
        (3, "灯具", &[("吸顶灯", &[("LED 吸顶灯 36W", "欧普", "φ500mm", "盏", 39900), ("LED 筒灯 7W", "雷士", "开孔 75mm", "个", 2800)])]),
        (3, "窗帘", &[("布艺窗帘", &[("高遮光窗帘布", "如鱼得水", "幅宽 2.8m", "米", 8800)])]),
        (4, "拆改", &[("墙体拆除", &[("非承重墙拆除", "", "含垃圾清运", "㎡", 4500)])]),
        (4, "水电施工", &[("水电改造", &[("水电改造(开槽布管)", "", "按延米", "米", 7500)])]),
    ];
    let (cdef, pdef) = (res.get("product_category"), res.get("product"));
    // The catalogue was set up when the company started using the system (its codes say CP20260105).
    let sys = crate::engine::demo::seed_as(sys, "2026-01-05 09:30:00").0;
    let mut n = 0;
    for (ty, top, subs) in tree {
        let t = w.insert(&cdef, tenant, obj(json!({"parentId": 0, "categoryName": top, "productType": ty, "sort": 1})), &sys)?["id"].as_u64().unwrap_or(0);
        for (i, (sub, items)) in subs.iter().enumerate() {
            let c = w.insert(&cdef, tenant, obj(json!({"parentId": t, "categoryName": sub, "productType": ty, "sort": i + 1})), &sys)?["id"].as_u64().unwrap_or(0);
            for (name, brand, spec, unit, price) in items.iter() {
                n += 1;
                w.insert(&pdef, tenant, obj(json!({"productCode": format!("CP20260105-{n:04}"), "productName": name, "productType": ty, "categoryId": c, "brand": brand, "spec": spec, "unit": unit, "price": price, "productStatus": if n % 11 == 0 { 2 } else { 1 }})), &sys)?;
            }
        }
    }
    Ok(())
}

/// 业务管理 demo data of a tenant: companies, customers, trades with day rates, workers, a dozen projects across
/// regions and business units, their contracts (every status), constructs in every status with managers, crews
/// and day work, documents. Written consistently with the rules the API enforces.
pub fn demo(w: &mut WriteCtx, res: &Resources, tenant: &str) -> store::Result<()> {
    let sys = Actor::default();
    // Companies, customers, trades and workers were entered before the first project (2026-01-08); records made at
    // seeding (today's awaited clock-ins) are made now.
    let setup = crate::engine::demo::seed_as(sys, "2026-01-04 10:00:00").0;
    let ins = |w: &mut WriteCtx, name: &str, v: Value| -> store::Result<u64> { Ok(w.insert(&res.get(name), tenant, obj(v), &setup)?["id"].as_u64().unwrap_or(0)) };
    let ins_now = |w: &mut WriteCtx, name: &str, v: Value| -> store::Result<u64> { Ok(w.insert(&res.get(name), tenant, obj(v), &sys)?["id"].as_u64().unwrap_or(0)) };
    demo_catalogue(w, res, tenant)?;
    let (city, other) = crate::engine::demo::city(tenant);
    let mut companies = Vec::new();
    for (name, kind, contact, phone, address) in [
        (format!("{city}分公司"), 1, "周建国", "13905150001", format!("{city}市建邺区江东中路359号")),
        (format!("{other}分公司"), 1, "钱海波", "13905150002", format!("{other}市人民路88号")),
        (format!("{city}恒安建设劳务有限公司"), 2, "孙永福", "13905150003", format!("{city}市江宁区胜太路68号")),
    ] {
        companies.push(ins(w, "company", json!({"companyName": name, "companyType": kind, "contactName": contact, "contactPhone": phone, "address": in_city(tenant, &address)}))?);
    }
    let mut customers = Vec::new();
    // Homeowners at home, companies at their offices.
    for (name, kind, contact, phone, addr) in [
        ("陈志远", 1, "陈志远", "13770001101", "江宁区翠屏城3栋1201"), ("刘雅婷", 1, "刘雅婷", "13770001102", "鼓楼区月安花园5栋602"),
        ("万科地产华东区域", 3, "黄经理", "13770001103", "建邺区江东中路359号国睿大厦"), ("华润置地", 3, "吴经理", "13770001104", "秦淮区中山南路79号华润大厦"),
        ("江宁区教育局", 4, "赵科长", "13770001105", "江宁区东山街道上元大街"), ("星巴克企业管理(中国)有限公司", 2, "林女士", "13770001106", "玄武区中山路18号德基广场"),
    ] {
        customers.push(ins(w, "customer", json!({"customerName": in_city(tenant, name), "customerType": kind, "contactName": contact, "phone": phone, "address": in_city(tenant, &format!("{city}市{addr}"))}))?);
    }
    let mut levels: Vec<(u64, Vec<u64>)> = Vec::new();
    for (i, (job, rates)) in [("水电工", [32000, 38000, 45000]), ("泥瓦工", [30000, 36000, 42000]), ("木工", [30000, 36000, 43000]), ("油漆工", [28000, 33000, 38000]), ("安装工", [26000, 30000, 35000])].iter().enumerate() {
        let j = ins(w, "worker_job", json!({"jobName": job, "sort": i + 1}))?;
        let mut ls = Vec::new();
        for (k, (lv, rate)) in ["初级", "中级", "高级"].iter().zip(rates).enumerate() {
            ls.push(ins(w, "worker_job_level", json!({"workerJobId": j, "levelName": lv, "dayRate": rate, "sort": k + 1}))?);
        }
        levels.push((j, ls));
    }
    let names = ["马志强", "朱刚", "冯建军", "邓志勇", "何建华", "蒋文斌", "沈国庆", "韩立新", "杨永军", "曹明亮", "彭学东", "吕志华"];
    let users = w.all(&res.get("user"), tenant)?; // the office staff, before the workers' accounts
    // The first worker of each trade has a site-app account with that trade's technical-worker role (refused by
    // the back-office sign-in, SPEC §6); it has no password ("!" matches no hash) until an admin sets one.
    let trade_roles = ["plumber_electrician", "tiler", "carpenter", "painter", "installer"];
    let roles = w.all(&res.get("role"), tenant)?;
    let role_of = |alias: &str| roles.iter().find(|r| r.get("roleAlias").and_then(Value::as_str) == Some(alias)).and_then(|r| r["id"].as_u64());
    let mut workers = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let (job, ls) = &levels[i % levels.len()];
        let phone = format!("1{}{:09}", if tenant == "157270" { 5 } else { 8 }, 801_000_100 + i);
        let id_card = format!("3201{:02}19{:02}0{}1{:02}{:03}X", 10 + i, 75 + i, 1 + i % 9, 10 + i, 100 + i);
        let mut doc = json!({"workerName": name, "phone": phone, "idCard": id_card, "workerJobId": job, "workerJobLevelId": ls[i % 3], "teamName": format!("施工{}队", ["一", "二", "三"][i % 3])});
        if let Some(existing) = users.iter().find(|u| u["realName"] == *name).and_then(|u| u["id"].as_u64()) {
            // A worker the people module already has an account for (马志强, 朱刚) keeps that one: one person, one
            // account.
            doc["userId"] = json!(existing);
        } else if let Some(role) = trade_roles.get(i).and_then(|a| role_of(a)) {
            // Their sign-in accounts are the people module's, made with the tenant's other users (now).
            let user = ins_now(w, "user", json!({"account": format!("gr{phone}"), "name": name, "realName": name, "phone": phone, "userType": 1, "roleId": role.to_string(), "passwordHash": "!", "tokenVersion": 0}))?;
            doc["userId"] = json!(user);
        }
        workers.push(ins(w, "worker", doc)?);
    }
    // Project managers are the people with the 项目经理 role (never the accountant or a designer).
    let pm_role = w.all(&res.get("role"), tenant)?.into_iter().find(|r| r["roleAlias"] == "project_manager").and_then(|r| r["id"].as_u64());
    let managers: Vec<u64> = users
        .iter()
        .filter(|u| pm_role.is_some_and(|pm| crate::auth::session::id_list(u.get("roleId")).contains(&pm)))
        .filter_map(|u| u["id"].as_u64())
        .take(4)
        .collect();
    let projects = [
        ("万科翡翠公园12#楼公区精装修", "TOB", 2, 0, "2026-01-08", "江宁区万科翡翠公园"),
        ("陈志远 翠屏城3-1201全包家装", "TOC", 0, 0, "2026-02-16", "江宁区翠屏城3栋1201"),
        ("华润悦府样板间软装", "BBC", 3, 1, "2026-03-02", "鼓楼区华润悦府"),
        ("江宁区实验小学教学楼改造", "TOB", 4, 0, "2026-04-11", "江宁区天元东路"),
        ("星巴克新街口店装修", "TOB", 5, 1, "2026-05-20", "秦淮区新街口"),
        ("刘雅婷 月安花园二手房翻新", "TOC", 1, 0, "2026-06-03", "鼓楼区月安花园5栋602"),
        ("万科金域蓝湾集采橱柜安装", "SC", 2, 2, "2026-06-28", "栖霞区万科金域蓝湾"),
        ("华润置地万象天地商铺改造", "TOB", 3, 1, "2026-07-15", "秦淮区万象天地"),
        ("陈志远 父母家卫生间改造", "TOC", 0, 0, "2026-08-09", "玄武区锁金村"),
        ("星巴克河西万达店翻新", "BBC", 5, 2, "2026-09-01", "建邺区河西万达"),
        ("江宁区教育局幼儿园地坪工程", "SC", 4, 1, "2026-10-12", "江宁区东山街道"),
        ("万科城市之光外立面清洗", "TOB", 2, 2, "2026-11-05", "雨花台区万科城市之光"),
    ];
    // What each project's crews do (施工内容), as a site names its work; a supplementary contract's construct is
    // that work's extra items.
    let works = [
        "公区精装修", "全屋硬装施工", "样板间软装布置", "教学楼墙地面改造", "门店装修施工", "旧房拆改翻新",
        "橱柜批量安装", "商铺隔断吊顶改造", "卫生间防水与铺贴", "门店翻新施工", "PVC地坪铺设", "外立面清洗",
    ];
    let pdef = res.get("project");
    // A project's records carry the time they were made — its contracts and documents on its start day, a
    // progress report on the day reported, a clock-in at its time — in the product's zone (+08:00), so lists,
    // history tabs and date filters read as a kept company's. `when`: `yyyy-MM-dd[ HH:mm:ss]`.
    // A time still to come (a node's planned day, today's later hours) is recorded as now.
    let dated = |when: &str| crate::engine::demo::seed_as(sys, when).0;
    let ins_at = |w: &mut WriteCtx, name: &str, v: Value, when: &str| -> store::Result<u64> { Ok(w.insert(&res.get(name), tenant, obj(v), &dated(when))?["id"].as_u64().unwrap_or(0)) };
    let today_d = chrono::Local::now().date_naive();
    let today = today_d.format("%Y-%m-%d").to_string();
    // Today and the four days before it.
    let mut clocked = std::collections::HashSet::new();
    // Clock-ins and 整改 of every crew, written after the projects in the order of their times (the days before
    // today interleave across projects): their ids follow time, as lists sort by id as by creation time.
    // (time, resource, record); a time of `None` is made now (today's awaited clock-ins).
    let mut dated_leaves: Vec<(Option<String>, &str, Value)> = Vec::new();
    let days: Vec<String> = (0..5).map(|d| (today_d - chrono::TimeDelta::days(d)).format("%Y-%m-%d").to_string()).collect();
    for (i, (name, bu, cust, comp, start, addr)) in projects.iter().enumerate() {
        let (name, addr) = (&in_city(tenant, name), &in_city(tenant, addr));
        let day: String = start.chars().filter(char::is_ascii_digit).collect();
        let status = match i { 0..=3 => 2, 4 => 3, _ => if i % 3 == 0 { 1 } else { 2 } };
        let manager = managers.get(i % managers.len().max(1)).copied();
        let p = w.insert(&pdef, tenant, obj(json!({
            "projectCode": format!("XM{day}-{:04}", i + 1), "projectName": name, "projectCompanyId": companies[*comp],
            "customerId": customers[*cust], "businessUnit": bu, "regionCode": district(w, res, tenant, addr)?,
            "address": format!("{city}市{addr}"), "startTime": start, "managerId": manager, "projectStatus": status,
            // A completed project ends after its last node was done (see `done_day`).
            "endTime": if status == 3 { Some(done_day(start, 70, today_d)) } else { None },
        })), &dated(&format!("{start} 09:{:02}:00", 10 + i * 3)))?["id"].as_u64().unwrap_or(0);
        // Contracts: a main one, a second (supplementary) for every third project; statuses follow the project.
        let n_contracts = if i % 3 == 0 { 2 } else { 1 };
        for c in 0..n_contracts {
            let cstatus = match (status, c) { (3, _) => 3, (1, _) => 0, (_, 1) => 1, _ if i % 5 == 4 => 1, _ => 2 };
            // fen: ¥86,000 plus a spread up to ¥900,000; a supplement (增项) is 12–18 % of the main contract, in
            // whole hundreds of yuan.
            let main = 8_600_000_i64 + (i as i64 * 3_751_347) % 90_000_000;
            let amount = if c == 0 { main } else { main * (12 + i as i64 % 7) / 100 / 10_000 * 10_000 };
            let cname = if c == 0 { format!("{name}施工合同") } else { format!("{name}增项补充协议") };
            let party = w.get(&res.get("customer"), tenant, customers[*cust])?.and_then(|x| x["customerName"].as_str().map(str::to_string)).unwrap_or_default();
            let contract = ins_at(w, "contract", json!({
                "contractCode": format!("HT{day}-{:04}", i * 2 + c + 1), "contractName": cname, "projectId": p, "partyName": party,
                "contractAmount": amount, "signDate": if cstatus >= 1 { Some(start.to_string()) } else { None }, "contractStatus": cstatus,
            }), &format!("{start} 10:{:02}:00", 15 + c * 20))?;
            if cstatus == 0 {
                continue;
            }
            // A construct per signed contract: to inspect, to dispatch, under construction, completed.
            let kstatus = match cstatus { 3 => 4, 2 => 3, _ => 1 + (i as i64 % 2) };
            let construct = ins_at(w, "construct", json!({
                "constructCode": format!("SG{day}-{:04}", i * 2 + c + 1), "constructName": if c == 0 { works[i % works.len()].to_string() } else { format!("{}增项", works[i % works.len()]) },
                "projectId": p, "contractId": contract, "constructMode": 1 + (i % 3), "modelStatus": kstatus,
                "managerId": if kstatus >= 2 { manager } else { None }, "buildings": if *bu == "TOC" { "1栋" } else { "1#,2#" },
                "planStart": start, "planEnd": format!("{}-{:02}-28", &start[..4], (start[5..7].parse::<u32>().unwrap_or(1) + 3).min(12)),
            }), &format!("{start} 11:{:02}:00", 5 + c * 20))?;
            if kstatus >= 2 {
                // 量房: the rooms measured before dispatch (floor area in hundredths of a square metre).
                // A home's rooms, a shop's, school's or block's areas; each site its own sizes (mm, ×0.90–1.14).
                let (rooms, height): (&[(&str, i64, i64)], i64) = if *bu == "TOC" {
                    (&[("客厅", 5400, 4200), ("主卧", 4200, 3600), ("次卧", 3300, 3000), ("厨房", 3000, 2100), ("卫生间", 2400, 1800)], 2800)
                } else {
                    (&[("一层大堂", 12000, 8400), ("走廊", 24000, 2400), ("办公区", 15000, 9000), ("卫生间", 6000, 3600)], 3600)
                };
                let k = 90 + (i as i64 * 7) % 25;
                let rooms: Vec<(&str, i64, i64)> = rooms.iter().map(|(n, l, w)| (*n, l * k / 1000 * 10, w * k / 1000 * 10)).collect();
                let area: i64 = rooms.iter().map(|(_, l, w)| (l * w + 5_000) / 10_000).sum();
                ins_at(w, "measure", json!({"constructId": construct, "measureDate": start, "measurer": (["王工", "李工"][i % 2]),
                    "rooms": rooms.iter().map(|(n, l, w)| json!({"roomName": n, "length": l, "width": w, "height": height})).collect::<Vec<_>>(),
                    "roomCount": rooms.len(), "totalArea": area, "measureStatus": 2, "remark": (["现场复尺无误", "与图纸尺寸一致", "墙面找平后复测"][i % 3])}), &format!("{start} 16:30:00"))?;
            }
            if kstatus >= 3 {
                // Three workers, then one of each trade the nodes need that they lack (worker j's trade is j % 5,
                // the nodes' order: 水电, 泥瓦, 木作, 油漆, 安装), so that every node is done by its own trade.
                let trades = levels.len().max(1);
                let mut picked: Vec<usize> = (0..3).map(|k| (i + k * 4) % workers.len()).collect();
                for t in 0..trades {
                    if !picked.iter().any(|j| j % trades == t) {
                        let of_trade: Vec<usize> = (t..workers.len()).step_by(trades).collect();
                        if !of_trade.is_empty() {
                            picked.push(of_trade[i % of_trade.len()]);
                        }
                    }
                }
                let mut crew = Vec::new();
                let mut by_trade = vec![None; trades];
                for (k, j) in picked.iter().enumerate() {
                    let wk = workers[*j];
                    crew.push(wk);
                    by_trade[j % trades].get_or_insert(wk);
                    ins_at(w, "construct_worker", json!({"constructId": construct, "workerId": wk, "bindKey": format!("{construct}:{wk}"), "leader": (k == 0) as i64}), &format!("{start} 17:{:02}:00", 10 + k))?;
                }
                // The node plan with its progress: completed constructs at 100%, the others part way.
                let plan_end = format!("{}-{:02}-28", &start[..4], (start[5..7].parse::<u32>().unwrap_or(1) + 3).min(12));
                let site = if *bu == "TOC" { vec!["1栋"] } else { vec!["1#", "2#"] };
                for (bi, b) in site.iter().enumerate() {
                    for (ni, node) in [10, 20, 30, 40, 50].iter().enumerate() {
                        let pct: i64 = if kstatus == 4 { 100 } else {
                            match ni { 0 => 100, 1 => if bi == 0 { 100 } else { 60 }, 2 if bi == 0 => [30, 55, 80][i % 3], _ => 0 }
                        };
                        let wk = by_trade.get(ni).copied().flatten().unwrap_or(crew[ni % crew.len()]);
                        // Done in the nodes' order after the construct started (every two weeks or so), never after today.
                        let done = (pct == 100).then(|| done_day(start, 8 + ni as i64 * 14 + bi as i64 * 3, today_d));
                        let task = ins_at(w, "speed_progress", json!({"constructId": construct, "buildingName": b, "nodeKey": node, "workerId": wk, "percent": pct,
                            "planEnd": plan_end, "doneDate": done, "lastReport": done.clone().or_else(|| (pct > 0).then(|| today.clone())), "taskKey": format!("{construct}:{b}:{node}")}),
                            &format!("{start} 17:{:02}:00", 20 + bi * 5 + ni))?;
                        // Reported on the day the node was done; a node under way was last reported today (seeding time).
                        let report = |w: &mut WriteCtx, v: Value, h: u32| match &done {
                            Some(day) => ins_at(w, "progress_report", v, &format!("{day} {h:02}:{:02}:00", 10 + ni * 7)),
                            None => ins_now(w, "progress_report", v),
                        };
                        if pct > 0 {
                            if pct == 100 && kstatus == 3 && ni == 0 {
                                report(w, json!({"taskId": task, "constructId": construct, "workerId": wk, "before": 0, "percent": 50, "remark": "管线开槽完成"}), 11)?;
                                report(w, json!({"taskId": task, "constructId": construct, "workerId": wk, "before": 50, "percent": 100, "remark": "打压试验合格,隐蔽验收通过"}), 17)?;
                            } else {
                                report(w, json!({"taskId": task, "constructId": construct, "workerId": wk, "before": 0, "percent": pct, "remark": "按节点填报"}), 17)?;
                            }
                        }
                    }
                }
                // Attendance of the crew over the last five days: on time mostly, now and then late; today not all in yet.
                if kstatus == 3 {
                    for (d, day) in days.iter().enumerate() {
                        for (k, wk) in crew.iter().enumerate() {
                            // One record per worker and day: a worker on two crews clocks in on the first.
                            if !clocked.insert(format!("{wk}:{day}")) {
                                continue;
                            }
                            let (result, at) = match (d, (i + k + d) % 7) {
                                (0, x) if x < 3 => ("wait", None),
                                // Minutes within the hour for a crew of up to eight.
                                (_, 5) => ("late", Some(format!("{day} 09:{:02}:00", 12 + (k % 8) * 6))),
                                _ => ("success", Some(format!("{day} 08:{:02}:00", 31 + (k % 8) * 4))),
                            };
                            let doc = json!({"workerId": wk, "constructId": construct, "attendDate": day, "clockTime": at, "result": result,
                                "distance": at.as_ref().map(|_| 20 + (k * 37 + d * 11) % 180), "dayKey": format!("{wk}:{day}")});
                            // A clock-in is recorded when made; today's awaited ones at seeding.
                            dated_leaves.push((at, "attend_day", doc));
                        }
                    }
                    // 整改: one overdue and open, one fixed awaiting verification.
                    dated_leaves.push((Some(format!("{} 10:{:02}:00", days[4], 10 + i * 4 % 40)), "building_rectification", json!({"projectId": p, "constructId": construct, "buildingName": site[0], "category": 1 + i % 6,
                        "description": (["客厅墙面局部空鼓", "卫生间地漏周边渗水", "厨房墙砖缝宽不一", "插座面板不平整", "柜门缝隙偏大", "顶面乳胶漆色差"][i % 6]),
                        "workerId": crew[0], "deadline": days[3], "rectStatus": 1})));
                    // Each site's second finding its own (a list of identical rows read as copied).
                    let (cat2, what2) = [(2, "阳台防水层闭水试验渗漏"), (9, "窗台石材接缝开裂"), (5, "踢脚线与地板间缝隙偏大"), (9, "吊顶检修口不平整"), (5, "门套线条接缝明显"), (6, "墙纸对花错位")][(i + 3) % 6];
                    dated_leaves.push((Some(format!("{} 15:{:02}:00", days[3], 5 + i * 7 % 50)), "building_rectification", json!({"projectId": p, "constructId": construct, "buildingName": site[site.len() - 1], "category": cat2,
                        "description": what2, "workerId": crew[1], "deadline": days[0], "rectStatus": 2, "fixedTime": days[1]})));
                }
                for d in 0..2 {
                    let wk = workers[(i + 7 + d) % workers.len()];
                    let days = 100 + 50 * d as i64;
                    let rate = 30000 + 2500 * d as i64;
                    // Day work on the site once it started.
                    let work_date = done_day(start, 2 + d as i64 * 3 + (i % 10) as i64, today_d);
                    super::insert_day_work(w, res, tenant, obj(json!({"constructId": construct, "workerId": wk, "workDate": work_date,
                        "workDays": days, "dayRate": rate, "amount": days * rate / 100, "workContent": if d == 0 { "拆除清运" } else { "材料搬运" }})), &dated(&format!("{work_date} 18:00:00")))?;
                }
            }
        }
        // Rooms of the apartment-block projects, as an import of the developer's room list leaves them.
        if *bu == "TOB" && i < 4 {
            let code = format!("BI{day}0900000{i}");
            let mut n = 0;
            for b in ["1#", "2#"] {
                for unit in 1..=2 {
                    for floor in 1..=6 {
                        for room in 1..=2 {
                            let no = format!("{floor}{room:02}");
                            ins_at(w, "building", json!({"projectId": p, "buildingName": b, "unitName": unit.to_string(), "floor": floor, "roomNo": no,
                                "layout": if room == 1 { "三室两厅" } else { "两室一厅" }, "area": if room == 1 { 11850 } else { 8900 }, "enabled": 1,
                                "roomKey": format!("{p}:{b}:{unit}:{no}"), "importTask": code}), &format!("{start} 09:12:40"))?;
                            n += 1;
                        }
                    }
                }
            }
            ins_at(w, "building_import", json!({"taskCode": code, "projectId": p, "fileName": "楼栋房间清单.xlsx", "mode": "partial", "state": "done", "percent": 100,
                "total": n + 1, "done": n + 1, "imported": n, "updated": 0, "refusedCount": 1,
                "refused": [{"row": n + 2, "reason": "楼层 须为整数", "reasonEn": "楼层 must be a whole number"}],
                "message": format!("共 {} 行:新增 {n} 间,更新 0 间,拒绝 1 行\n{} rows: {n} rooms added, 0 updated, 1 refused", n + 1, n + 1), "finishTime": format!("{start} 09:12:40")}), &format!("{start} 09:12:10"))?;
        }
        for (k, (doc, cat)) in [("施工图纸", 2), ("合同扫描件", 1), ("隐蔽工程验收记录", 4)].iter().enumerate() {
            if k == 2 && status < 2 {
                continue;
            }
            // Each with its file, as a company's documents are (a one-page PDF bound to the document).
            let when = format!("{start} {:02}:{:02}:00", 10 + k * 3, 5 + i * 4);
            let title = format!("{name}{doc}");
            let did = ins_at(w, "doc", json!({"projectId": p, "docName": title, "category": cat}), &when)?;
            let page = crate::engine::demo::pdf_page(&title, &[format!("项目名称:{name}"), format!("项目地址:{addr}"), format!("文档类别:{doc}"), format!("归档日期:{start}"), "经办:项目部".to_string()]);
            let file = format!("{title}.pdf");
            let link = crate::engine::attachments::put_bound(w, &res, tenant, &dated(&when), &file, &page, &format!("doc:{did}"))?;
            w.update(&res.get("doc"), tenant, did, obj(json!({"attachLink": link, "attachNames": serde_json::to_string(&[&file]).unwrap_or_default()})), &dated(&when))?;
        }
    }
    // Stable: records of one time keep the order they were made in; `None` (now) after every time.
    dated_leaves.sort_by(|a, b| (a.0.is_none(), &a.0).cmp(&(b.0.is_none(), &b.0)));
    for (at, name, doc) in dated_leaves {
        match at {
            Some(t) => ins_at(w, name, doc, &t)?,
            None => ins_now(w, name, doc)?,
        };
    }
    // Post-mortems of the projects, by the tenant's administrator.
    let clerk = crate::engine::demo::admin_of(w, res, tenant)?;
    let now = crate::engine::demo::now_text();
    super::replay::demo(w, &crate::engine::dialect::Ctx { tenant, actor: &clerk, res, now: &now })?;
    Ok(())
}

/// The region code of the district an address starts with (江宁区… → 320115), in the tenant's city; the city's
/// code when the district is not in the table.
fn district(w: &WriteCtx, res: &Resources, tenant: &str, addr: &str) -> store::Result<String> {
    let city = if tenant == "157270" { "320100" } else { "330100" };
    let Some(end) = addr.find('区') else { return Ok(city.to_string()) };
    let name = &addr[..end + '区'.len_utf8()];
    let def = res.get("region");
    let q = store::Query { filters: vec![store::Filter::new("parentCode", store::Op::Equal, serde_json::json!(city))], limit: 100, ..Default::default() };
    Ok(w.list(&def, store::PLATFORM_TENANT, &q)?
        .records
        .iter()
        .find(|r| r.get("name").and_then(Value::as_str) == Some(name))
        .and_then(|r| r.get("code").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| city.to_string()))
}

/// The day `days` after a `yyyy-MM-dd` start, or today if that is later (a node done, a project ended).
fn done_day(start: &str, days: i64, today: chrono::NaiveDate) -> String {
    let from = chrono::NaiveDate::parse_from_str(start, "%Y-%m-%d").unwrap_or(today);
    (from + chrono::TimeDelta::days(days)).min(today).format("%Y-%m-%d").to_string()
}
