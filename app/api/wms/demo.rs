//! Demo warehouse (`serve --demo`): two stores with zones and bins, owners and suppliers, 200 goods of a
//! decoration company's depot, and a few weeks of inbound and outbound orders in every status. Stock moves go
//! through the ledger (`ledger::post`, `ledger::reserve`), so the demo's balances equal its moves like any
//! other data.
use serde_json::{Map, Value, json};
use store::{Actor, QTY_SCALE, WriteCtx};

use super::journal;
use super::ledger::{self, Doc, Loc, Move};
use crate::engine::demo::in_city;
use crate::engine::dialect::Ctx;

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

const GOODS: &[(&str, &str, &[&str], &str, i64)] = &[
    // (category, name, specs, unit, price in fen)
    ("板材", "纸面石膏板", &["1200×2400×9.5mm", "1200×2400×12mm", "防潮 1200×2400×9.5mm", "耐火 1200×2400×12mm"], "张", 3250),
    ("板材", "多层实木板", &["E0 1220×2440×9mm", "E0 1220×2440×12mm", "E0 1220×2440×15mm", "E0 1220×2440×18mm"], "张", 11800),
    ("板材", "欧松板", &["1220×2440×9mm", "1220×2440×12mm", "1220×2440×15mm"], "张", 9800),
    ("板材", "细木工板", &["E1 1220×2440×15mm", "E1 1220×2440×18mm"], "张", 10500),
    ("龙骨", "轻钢主龙骨", &["50×15×1.0mm 3m", "60×27×0.6mm 3m"], "根", 1280),
    ("龙骨", "轻钢副龙骨", &["50×19×0.5mm 3m", "60×27×0.5mm 3m"], "根", 960),
    ("龙骨", "边龙骨", &["L型 3m", "U型 3m"], "根", 680),
    ("龙骨", "木龙骨", &["30×40mm 4m", "40×60mm 4m"], "根", 1650),
    ("水电", "PPR冷热水管", &["dn20 4m", "dn25 4m", "dn32 4m"], "根", 2600),
    ("水电", "PPR弯头", &["dn20 90°", "dn25 90°", "dn20 45°"], "个", 120),
    ("水电", "PPR内丝三通", &["dn20×1/2", "dn25×1/2"], "个", 850),
    ("水电", "BV铜芯电线", &["1.5平方 100m", "2.5平方 100m", "4平方 100m", "6平方 100m"], "卷", 21500),
    ("水电", "PVC穿线管", &["16mm 3m", "20mm 3m", "25mm 3m"], "根", 450),
    ("水电", "线盒", &["86型 暗装", "86型 加深"], "个", 180),
    ("水电", "PVC排水管", &["50mm 4m", "75mm 4m", "110mm 4m"], "根", 3200),
    ("开关插座", "开关面板", &["一开单控 白", "一开双控 白", "二开单控 白", "三开单控 白", "一开单控 灰"], "个", 1890),
    ("开关插座", "五孔插座", &["10A 白", "10A 灰", "带USB 白"], "个", 2290),
    ("开关插座", "空调插座", &["16A 白", "16A 灰"], "个", 2690),
    ("瓷砖", "通体大理石瓷砖", &["600×1200 鱼肚白", "800×800 爵士白", "750×1500 灰"], "片", 8600),
    ("瓷砖", "釉面墙砖", &["300×600 浅灰", "300×600 象牙白", "400×800 暖白"], "片", 2300),
    ("瓷砖", "防滑地砖", &["300×300 灰", "600×600 深灰"], "片", 1900),
    ("涂料", "乳胶漆", &["净味 5L 白", "净味 18L 白", "抗甲醛 5L 白", "外墙 18L"], "桶", 36800),
    ("涂料", "耐水腻子粉", &["20kg", "25kg"], "袋", 4200),
    ("涂料", "防水涂料", &["JS 柔韧型 18kg", "K11 通用型 18kg"], "桶", 39800),
    ("涂料", "墙固", &["18kg"], "桶", 12800),
    ("辅料", "瓷砖胶", &["C1 20kg", "C2 20kg"], "袋", 5600),
    ("辅料", "美缝剂", &["环氧 象牙白", "环氧 浅灰"], "支", 8800),
    ("辅料", "玻璃胶", &["中性 透明", "防霉 白"], "支", 1500),
    ("辅料", "发泡胶", &["750ml"], "罐", 2600),
    ("五金", "不锈钢合页", &["4寸 静音", "3寸"], "片", 1200),
    ("五金", "铰链", &["快装 全盖", "快装 半盖", "阻尼 全盖"], "个", 900),
    ("五金", "三节抽屉滑轨", &["350mm", "400mm", "450mm"], "副", 2800),
    ("五金", "铝合金拉手", &["128mm 黑", "160mm 黑", "192mm 黑"], "个", 1600),
    ("五金", "自攻螺丝", &["3.5×25 500个", "4×30 500个"], "盒", 1800),
    ("卫浴", "冷热面盆龙头", &["铜 镀铬", "铜 枪灰"], "个", 26800),
    ("卫浴", "角阀", &["冷水 铜", "热水 铜"], "个", 2800),
    ("卫浴", "防臭地漏", &["10×10 不锈钢", "长条 60cm"], "个", 6800),
    ("灯具", "LED筒灯", &["3W 开孔75 暖白", "5W 开孔90 暖白", "7W 开孔100 中性光"], "个", 2600),
    ("灯具", "LED面板灯", &["300×600 24W", "600×600 36W"], "个", 8800),
    ("灯具", "LED灯带", &["2835 5m 暖白"], "卷", 6900),
];

/// Stores, zones, bins, parties, goods and orders of `tenant`.
/// The warehouse area's demo: the depot of the tenant's city, its requisitions landing on the projects under way,
/// each on the project's construct under construction (施工单) when it has one.
pub fn area_demo(w: &mut WriteCtx, res: &crate::decl::Resources, tenant: &str) -> store::Result<()> {
    let constructs = w.all(&res.get("construct"), tenant)?;
    let site = |project: u64| constructs.iter().find(|k| k["projectId"].as_u64() == Some(project) && k["modelStatus"] == 3).and_then(|k| k["id"].as_u64());
    // (project, its construct under way, its manager: who raises its requisitions)
    let under_way: Vec<(u64, Option<u64>, u64)> = w
        .all(&res.get("project"), tenant)?
        .iter()
        .filter(|p| p["projectStatus"] == 2)
        .filter_map(|p| Some((p["id"].as_u64()?, p.get("managerId").and_then(store::parse_id_value).unwrap_or(0))))
        .map(|(p, m)| (p, site(p), m))
        .collect();
    let (now, sys) = (crate::engine::demo::now_text(), Actor::default());
    demo(w, &Ctx { tenant, actor: &sys, res, now: &now }, crate::engine::demo::city(tenant).0, &under_way)
}

pub fn demo(w: &mut WriteCtx, cx: &Ctx, city: &str, projects: &[(u64, Option<u64>, u64)]) -> store::Result<()> {
    let t = cx.tenant;
    let ins = |w: &mut WriteCtx, cx: &Ctx, name: &str, v: Value| -> store::Result<u64> { Ok(w.insert(&cx.def(name), t, obj(v), cx.actor)?["id"].as_u64().unwrap_or(0)) };
    // The depot's keeper does the work, on the day each document is of (its records and moves carry that time).
    let today = crate::engine::demo::seed_clock().date();
    let keeper = match w.find_unique(&cx.def("user"), t, "account", "liuqiang")? {
        Some(uid) => {
            let u = w.get(&cx.def("user"), t, uid)?.unwrap_or_default();
            Actor { user_id: uid, dept_id: ledger::text(&u, "deptId").split(',').next().and_then(|d| d.parse().ok()).unwrap_or(0), at: None }
        }
        None => *cx.actor,
    };
    // (the actor on day `d` ago at h:m, and that local time as text) in the product's zone (+08:00).
    let on = |d: i64, h: u32, m: u32| -> (Actor, String) {
        let local = (today - chrono::TimeDelta::days(d)).and_hms_opt(h, m.min(59), 0).unwrap_or_default();
        crate::engine::demo::seed_as(keeper, &local.format("%Y-%m-%d %H:%M:%S").to_string())
    };
    let (a, now) = on(45, 9, 0);
    let cx = &Ctx { tenant: t, actor: &a, res: cx.res, now: &now };
    let s1 = ins(w, cx, "store", json!({"storeCode": "WH01", "storeName": format!("{city}建材总仓"), "address": in_city(cx.tenant, &format!("{city}市江宁区秣陵街道将军大道88号")), "manager": "王德胜", "phone": "13951000001", "enabled": 1}))?;
    let s2 = ins(w, cx, "store", json!({"storeCode": "WH02", "storeName": in_city(cx.tenant, &format!("{city}河西中转仓")), "address": in_city(cx.tenant, &format!("{city}市建邺区江东中路318号")), "manager": "李晓峰", "phone": "13951000002", "enabled": 1}))?;
    let mut storage: Vec<(u64, Vec<u64>)> = Vec::new();
    for (s, prefix, rows) in [(s1, "A", 3), (s1, "B", 2), (s2, "C", 2)] {
        let code = if s == s1 { "WH01" } else { "WH02" };
        if prefix != "B" {
            ins(w, cx, "reservoirarea", json!({"storeId": s, "areaCode": format!("{code}-SH"), "areaName": "收货区", "areaKind": 1}))?;
            ins(w, cx, "reservoirarea", json!({"storeId": s, "areaCode": format!("{code}-FH"), "areaName": "发货区", "areaKind": 4}))?;
        }
        let area = ins(w, cx, "reservoirarea", json!({"storeId": s, "areaCode": format!("{code}-{prefix}"), "areaName": format!("存储{prefix}区"), "areaKind": 2}))?;
        let mut bins = Vec::new();
        for r in 1..=rows {
            for c in 1..=8 {
                let locked = prefix == "B" && r == 2 && c == 8;
                let b = ins(w, cx, "storagespace", json!({
                    "areaId": area, "storeId": s, "spaceCode": format!("{prefix}-{r:02}-{c:02}"), "barcode": format!("{code}{prefix}{r:02}{c:02}"),
                    "capacity": 5000 * QTY_SCALE, "pickOrder": r * 10 + c, "putOrder": r * 10 + c, "spaceState": if locked { 2 } else { 0 }, "remark": if locked { "货架维修中" } else { "" },
                }))?;
                if !locked {
                    bins.push(b);
                }
            }
        }
        storage.push((s, bins));
    }
    let owner = ins(w, cx, "wms_customer", json!({"customerCode": "KH001", "customerName": "自营", "contact": "王德胜", "phone": "13951000001", "enabled": 1}))?;
    ins(w, cx, "wms_customer", json!({"customerCode": "KH002", "customerName": "万科集采代管", "contact": "黄经理", "phone": "13770001103", "enabled": 1}))?;
    let mut suppliers = Vec::new();
    for (i, (name, kind, contact)) in [("北新建材集团有限公司", 1, "张建"), ("东方雨虹防水技术股份有限公司", 1, "刘畅"), ("公牛集团股份有限公司", 1, "陈立"), ("浙江伟星新型建材股份有限公司", 1, "周敏"), ("德邦物流", 2, "孙师傅")].iter().enumerate() {
        suppliers.push(ins(w, cx, "thirdpartcustomer", json!({"partyCode": format!("DS{:03}", i + 1), "partyName": name, "partyType": kind, "contact": contact, "phone": format!("1380000{:04}", 2001 + i), "enabled": 1}))?);
    }
    // 200 goods: every name × spec, then numbered variants until 200.
    let mut goods: Vec<(u64, i64)> = Vec::new();
    let mut n = 0;
    'outer: for round in 0..3 {
        for (cat, name, specs, unit, price) in GOODS {
            for spec in specs.iter() {
                if n == 200 {
                    break 'outer;
                }
                n += 1;
                let spec = if round == 0 { spec.to_string() } else { format!("{spec} {}", (["", "B款", "C款"][round])) };
                let shelf = if *cat == "涂料" || *cat == "辅料" { 365 } else { 0 };
                let g = ins(w, cx, "goods", json!({
                    "goodsCode": format!("SP{n:05}"), "barcode": format!("69{:011}", 20_000_000 + n * 37), "goodsName": name, "spec": spec, "unit": unit,
                    "category": cat, "customerId": owner, "shelfLifeDays": if shelf > 0 { Some(shelf) } else { None },
                    "safetyMin": 20 * QTY_SCALE, "safetyMax": 600 * QTY_SCALE, "price": price + (n as i64 % 7) * 50, "enabled": 1,
                }))?;
                goods.push((g, *price));
            }
        }
    }
    // Opening stock (期初入库) 40 days ago: every goods in one of the two main zones, a few below their safety
    // stock so the goods list shows what to reorder.
    let opening = (today - chrono::TimeDelta::days(40)).format("%Y-%m-%d").to_string();
    for (half, (store, bins)) in storage.iter().take(2).enumerate() {
        let (a, now) = on(40, 9, half as u32 * 30);
        let cx = &Ctx { tenant: t, actor: &a, res: cx.res, now: &now };
        let no = format!("RK{}-{:04}", opening.replace('-', ""), half + 1);
        let o = ins(w, cx, "order_rk", json!({"orderNo": no, "storeId": store, "orderType": 9, "customerId": owner, "expectedDate": opening, "orderStatus": 0, "remark": "期初库存导入"}))?;
        let mut total = 0;
        let mut lines = 0;
        for (gi, (g, _)) in goods.iter().enumerate().filter(|(i, _)| i % 2 == half) {
            let q = if gi % 9 == 4 { (8 + gi % 7) as i64 } else { (60 + (gi * 17) % 400) as i64 } * QTY_SCALE;
            let bin = bins[gi % bins.len()];
            let batch = format!("QC{}", &opening.replace('-', "")[2..]);
            let l = ins(w, cx, "mxrk", json!({"orderId": o, "goodsId": g, "storeId": store, "batch": batch, "expectedQty": q, "receivedQty": q, "passedQty": q, "failedQty": 0, "putQty": q}))?;
            let line = w.get(&cx.def("mxrk"), t, l)?.unwrap_or_default();
            let doc = Doc { kind: "rk", id: o, no: &no, line: l };
            let mv = |from, to| Move::new(*g, from, to, &batch, q, doc);
            ledger::post(w, cx, &mv(Loc::Supplier, Loc::Recv(*store)))?;
            ledger::post(w, cx, &mv(Loc::Recv(*store), Loc::Bin(bin)))?;
            journal(w, cx, "received", &line, None, json!({"batch": batch, "qty": q}))?;
            journal(w, cx, "review", &line, None, json!({"batch": batch, "passedQty": q, "failedQty": 0, "orderStatus": 4}))?;
            journal(w, cx, "up", &line, None, json!({"spaceId": bin, "batch": batch, "qty": q}))?;
            total += q;
            lines += 1;
        }
        let saved = w.update(&cx.def("order_rk"), t, o, obj(json!({"orderStatus": 4, "lineCount": lines, "expectedTotal": total, "receivedTotal": total, "finishTime": format!("{opening} 18:00:00")})), cx.actor)?;
        super::erp::enqueue(w, cx, "rk", &saved, "mxrk")?;
    }
    // Inbound orders over the last five weeks: received, reviewed and put away (done); the newest still in
    // put-away, review, receiving, or new.
    let day = |d: i64| (today - chrono::TimeDelta::days(d)).format("%Y-%m-%d").to_string();
    let mut rk_seq = 0;
    let mut inbound = |w: &mut WriteCtx, k: usize| -> store::Result<()> {
        let (store, bins) = &storage[if k % 4 == 3 { 2 } else { k % 2 }];
        let status = match k { 17 => 0, 16 => 1, 15 => 2, 14 => 3, _ => 4 };
        let d = 35 - k as i64 * 2;
        let (a, now) = on(d, 9, 5 + k as u32 * 2);
        let cx = &Ctx { tenant: t, actor: &a, res: cx.res, now: &now };
        rk_seq += 1;
        let no = format!("RK{}-{rk_seq:04}", day(d).replace('-', ""));
        let o = ins(w, cx, "order_rk", json!({
            "orderNo": no, "storeId": store, "orderType": if k % 7 == 6 { 2 } else { 1 }, "customerId": owner, "supplierId": suppliers[k % 4],
            "expectedDate": day(d), "orderStatus": 0, "lineCount": 0, "expectedTotal": 0, "receivedTotal": 0, "remark": "",
        }))?;
        let mut exp_total = 0;
        let mut rec_total = 0;
        let nlines = 3 + k % 4;
        for j in 0..nlines {
            // A goods in 200 lands in this store: spread so that most goods hold stock.
            let gi = (k * 11 + j * 37) % goods.len();
            let (g, _) = goods[gi];
            let expected = (40 + ((k * 13 + j * 29) % 160) as i64) * QTY_SCALE;
            let batch = format!("B{}", day(d + 20).replace('-', "")[2..].to_string());
            let expire = (today + chrono::TimeDelta::days(300 + (k * 9 + j) as i64)).format("%Y-%m-%d").to_string();
            let l = ins(w, cx, "mxrk", json!({"orderId": o, "goodsId": g, "storeId": store, "batch": batch, "expireDate": expire, "expectedQty": expected,
                "receivedQty": 0, "passedQty": 0, "failedQty": 0, "putQty": 0}))?;
            exp_total += expected;
            let line = w.get(&cx.def("mxrk"), t, l)?.unwrap_or_default();
            let doc = Doc { kind: "rk", id: o, no: &no, line: l };
            let mv = |from, to, q| Move { expire: Some(&expire), ..Move::new(g, from, to, &batch, q, doc) };
            if status == 0 {
                continue;
            }
            let received = if status == 1 && j % 2 == 1 { expected / 2 } else { expected };
            ledger::post(w, cx, &mv(Loc::Supplier, Loc::Recv(*store), received))?;
            rec_total += received;
            let mut patch = json!({"receivedQty": received});
            journal(w, cx, "received", &line, None, json!({"batch": batch, "qty": received}))?;
            if status >= 2 {
                let failed = if j == 1 && k % 5 == 0 { 2 * QTY_SCALE } else { 0 };
                if failed > 0 {
                    ledger::post(w, cx, &mv(Loc::Recv(*store), Loc::Ret(*store), failed))?;
                }
                patch = json!({"receivedQty": received, "passedQty": received - failed, "failedQty": failed});
                journal(w, cx, "review", &line, None, json!({"batch": batch, "passedQty": received - failed, "failedQty": failed, "orderStatus": status, "remark": if failed > 0 { "外包装破损" } else { "" }}))?;
                if status == 4 {
                    let bin = bins[(k * 5 + j * 3) % bins.len()];
                    ledger::post(w, cx, &mv(Loc::Recv(*store), Loc::Bin(bin), received - failed))?;
                    journal(w, cx, "up", &line, None, json!({"spaceId": bin, "batch": batch, "qty": received - failed}))?;
                    patch["putQty"] = json!(received - failed);
                }
            }
            w.update(&cx.def("mxrk"), t, l, obj(patch), cx.actor)?;
        }
        let mut head = json!({"orderStatus": status, "lineCount": nlines, "expectedTotal": exp_total, "receivedTotal": rec_total});
        if status == 4 {
            head["finishTime"] = json!(format!("{} 16:{:02}:00", day(d - 1), 10 + k));
        }
        let saved = w.update(&cx.def("order_rk"), t, o, obj(head), cx.actor)?;
        if status == 4 {
            super::erp::enqueue(w, cx, "rk", &saved, "mxrk")?;
        }
            Ok(())
    };
    // Outbound orders: project requisitions and sales over the last four weeks, most shipped; the newest
    // released, picking or new.
    let mut ck_seq = 0;
    let mut outbound = |w: &mut WriteCtx, k: usize| -> store::Result<()> {
        let (store, _) = &storage[k % 2];
        let status = match k { 13 => 0, 12 => 1, _ => 4 };
        let d = 28 - k as i64 * 2;
        let (a, now) = on(d, 8, 30 + k as u32);
        let cx = &Ctx { tenant: t, actor: &a, res: cx.res, now: &now };
        ck_seq += 1;
        let no = format!("CK{}-{ck_seq:04}", day(d).replace('-', ""));
        let requisition = k % 3 != 2 && !projects.is_empty();
        let (project, construct, manager) = if requisition { let p = projects[k % projects.len()]; (Some(p.0), p.1, p.2) } else { (None, None, 0) };
        // A requisition is raised by the project's manager (his 领料单, which he follows); the keeper does the rest.
        let raiser = match w.get(&cx.def("user"), t, manager)? {
            Some(u) if manager > 0 => Actor { user_id: manager, dept_id: ledger::text(&u, "deptId").split(',').next().and_then(|d| d.parse().ok()).unwrap_or(0), ..*cx.actor },
            _ => *cx.actor,
        };
        let rcx = &Ctx { actor: &raiser, ..*cx };
        // Delivered to the project's site, or a sale's customer's shop.
        let site = match project {
            Some(p) => w.get_fields(&cx.def("project"), t, p, &["address"])?.and_then(|r| r.get("address").and_then(Value::as_str).map(str::to_string)),
            None => None,
        };
        let address = site.unwrap_or_else(|| format!("{city}市{}", ["中山北路105号 金盛装饰城B区2-08", "解放路88号 建材市场东门", "建设路216号", "人民路58号 美家五金店"][k % 4]));
        let o = ins(w, rcx, "order_ck", json!({
            "orderNo": no, "storeId": store, "orderType": if requisition { 2 } else { 1 }, "customerId": owner, "projectId": project, "constructId": construct,
            "consignee": (["马志强", "朱刚", "冯建军", "邓志勇"][k % 4]), "phone": format!("1380000{:04}", 3001 + k), "address": address,
            "orderStatus": 0, "lineCount": 0, "totalQty": 0, "remark": if requisition { "工地领料" } else { "" },
        }))?;
        let mut total = 0;
        let mut nlines = 0;
        for j in 0..(2 + k % 3) {
            // Goods that this store holds: the stock rows of the store with something available.
            let q = store::Query {
                filters: vec![
                    store::Filter::new("storeId", store::Op::Equal, json!(store)),
                    store::Filter::new("available", store::Op::Gt, json!(5 * QTY_SCALE)),
                    store::Filter::new("spaceId", store::Op::Gt, json!(0)),
                ],
                limit: 1, offset: (k * 7 + j * 3) as u64 % 20,
                ..store::Query::default()
            };
            let Some(row) = w.list(&cx.def("stockdata"), t, &q)?.records.into_iter().find(|r| ledger::text(r, "location").starts_with("bin:")) else { continue };
            let g = ledger::id(&row, "goodsId");
            let want = (ledger::qty(&row, "available") / QTY_SCALE / 4).max(1) * QTY_SCALE;
            let l = ins(w, rcx, "mxck", json!({"orderId": o, "goodsId": g, "storeId": store, "qty": want, "reservedQty": 0, "pickedQty": 0}))?;
            total += want;
            nlines += 1;
            if status == 0 {
                continue;
            }
            let held = ledger::reserve(w, cx, g, *store, None, want)?;
            if status == 1 {
                w.update(&cx.def("mxck"), t, l, obj(json!({"reservedQty": want, "reservations": ledger::reservations_json(&held)})), cx.actor)?;
                continue;
            }
            let line = w.get(&cx.def("mxck"), t, l)?.unwrap_or_default();
            let doc = Doc { kind: "ck", id: o, no: &no, line: l };
            for (sid, q) in held {
                let sq = w.get(&cx.def("stockdata"), t, sid)?.unwrap_or_default();
                let batch = ledger::text(&sq, "batch").to_string();
                let bin = ledger::id(&sq, "spaceId");
                ledger::post(w, cx, &Move { consume: q, ..Move::new(g, Loc::Bin(bin), Loc::Disp(*store), &batch, q, doc) })?;
                let to = project.map(Loc::Project).unwrap_or(Loc::Customer);
                ledger::post(w, cx, &Move { project, construct, ..Move::new(g, Loc::Disp(*store), to, &batch, q, doc) })?;
                journal(w, cx, "down", &line, None, json!({"spaceId": bin, "stockId": sid, "batch": batch, "qty": q}))?;
            }
            w.update(&cx.def("mxck"), t, l, obj(json!({"pickedQty": want, "reservedQty": 0, "reservations": []})), cx.actor)?;
        }
        let mut head = json!({"orderStatus": status, "lineCount": nlines, "totalQty": total});
        if status == 4 {
            head["shipTime"] = json!(format!("{} 10:{:02}:00", day(d), 5 + k));
        }
        let saved = w.update(&cx.def("order_ck"), t, o, obj(head), cx.actor)?;
        if status == 4 {
            super::erp::enqueue(w, cx, "ck", &saved, "mxck")?;
        }
            Ok(())
    };
    // In the order they happened, so that a shipment takes only what had arrived by its day and the stock card
    // reads as a history (receipts every other day from 35 days ago, shipments from 28; all receipts were seeded
    // first, and a batch went out before it came in).
    let mut days: Vec<(i64, bool, usize)> = (0..18).map(|k| (35 - 2 * k as i64, true, k)).chain((0..14).map(|k| (28 - 2 * k as i64, false, k))).collect();
    days.sort_by_key(|&(d, ..)| -d);
    for (_, receipt, k) in days {
        if receipt {
            inbound(w, k)?;
        } else {
            outbound(w, k)?;
        }
    }
    // A planned transfer between the stores.
    let (a, now) = on(1, 15, 20);
    let cx = &Ctx { tenant: t, actor: &a, res: cx.res, now: &now };
    // A row in a bin (the first rows of a store may be its receiving area's, which a transfer does not move from).
    let q = store::Query {
        filters: vec![
            store::Filter::new("storeId", store::Op::Equal, json!(s1)),
            store::Filter::new("available", store::Op::Gt, json!(10 * QTY_SCALE)),
            store::Filter::new("spaceId", store::Op::Gt, json!(0)),
        ],
        limit: 5,
        ..store::Query::default()
    };
    let rows = w.list(&cx.def("stockdata"), t, &q)?.records;
    if let Some(row) = rows.first() {
        ins(w, cx, "transfer", json!({"transferNo": format!("YK{}-0001", day(1).replace('-', "")), "goodsId": ledger::id(row, "goodsId"), "fromSpaceId": ledger::id(row, "spaceId"),
            "batch": ledger::text(row, "batch"), "toSpaceId": storage[2].1[0], "qty": 10 * QTY_SCALE, "storeId": s1, "toStoreId": s2, "transferStatus": 0, "remark": in_city(cx.tenant, "补河西中转仓")}))?;
    }
    // And one done three days ago within the main store (B 区 to A 区), carried out by the transfer's own rule:
    // its stock moves post through the ledger like any user's.
    if let Some(row) = rows.get(1) {
        let (a, now) = on(3, 14, 10);
        let cx = &Ctx { tenant: t, actor: &a, res: cx.res, now: &now };
        let to = storage[0].1.iter().copied().find(|b| *b != ledger::id(row, "spaceId")).unwrap_or(0);
        let tid = ins(w, cx, "transfer", json!({"transferNo": format!("YK{}-0001", day(3).replace('-', "")), "goodsId": ledger::id(row, "goodsId"), "fromSpaceId": ledger::id(row, "spaceId"),
            "batch": ledger::text(row, "batch"), "toSpaceId": to, "qty": 5 * QTY_SCALE, "storeId": s1, "toStoreId": s1, "transferStatus": 0, "remark": "整理拣货位"}))?;
        crate::engine::dialect::write_in(w, cx, &cx.def("transfer"), crate::api::rules("transfer"), Some(tid), obj(json!({"transferStatus": 1})))?;
    }
    Ok(())
}
