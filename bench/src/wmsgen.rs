//! Issue 11's data, written through the real ledger (`zhizhuang::api::wms::ledger`): one store with 2,000 bins,
//! GOODS goods, MOVES receipts spread over the goods (about three bins each), 1,000 released outbound orders of
//! one line each (the picks of the spread bench) and one hot line on a bin holding exactly HOT units (the picks
//! of the hot bench). Writes `spread.jsonl` and `hot.jsonl` (one pick body per line) and prints the id of a goods
//! to list.
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};
use store::{Actor, QTY_SCALE};
use zhizhuang::api::wms::ledger::{self, Doc, Loc, Move};
use zhizhuang::engine::dialect::Ctx;
use zhizhuang::decl::Resources;

use zhizhuang::engine::rec::obj;

pub fn stock(file: &Path, out: &Path, tenant: &str, goods: u64, moves: u64, hot: u64) -> anyhow::Result<String> {
    let res = Resources::load()?;
    let st = crate::datagen::open(file)?;
    let start = Instant::now();
    let sys = Actor { user_id: 1, dept_id: 1, at: None };
    let now = "2026-11-23 09:00:00".to_string();
    let (r, t) = (res.clone(), tenant.to_string());
    let (store_id, bins): (u64, Vec<u64>) = st.write(move |w| {
        let ins = |w: &mut store::WriteCtx, n: &str, v: Value| -> store::Result<u64> { Ok(w.insert(&r.get(n), &t, obj(v), &sys)?["id"].as_u64().unwrap_or(0)) };
        let s = ins(w, "store", json!({"storeCode": "BENCH", "storeName": "基准总仓", "enabled": 1}))?;
        let mut bins = Vec::new();
        for a in 0..10 {
            let area = ins(w, "reservoirarea", json!({"storeId": s, "areaCode": format!("BA{a:02}"), "areaName": format!("存储{a:02}区"), "areaKind": 2}))?;
            for b in 0..200 {
                bins.push(ins(w, "storagespace", json!({"areaId": area, "storeId": s, "spaceCode": format!("B{a:02}-{b:03}"), "pickOrder": b, "spaceState": 0}))?);
            }
        }
        Ok((s, bins))
    })?;
    let mut ids: Vec<u64> = Vec::with_capacity(goods as usize + 1);
    let mut done = 0;
    while done < goods + 1 {
        let n = (goods + 1 - done).min(20_000);
        let (r, t) = (res.clone(), tenant.to_string());
        let batch: Vec<u64> = st.write(move |w| {
            let def = r.get("goods");
            (done..done + n)
                .map(|i| {
                    let doc = json!({"goodsCode": format!("SPB{i:07}"), "goodsName": if i == goods { "热点商品".to_string() } else { format!("基准商品{i}") }, "unit": "件", "price": 1000 + i as i64 % 5000, "safetyMin": 50 * QTY_SCALE, "enabled": 1});
                    Ok(w.insert(&def, &t, obj(doc), &sys)?["id"].as_u64().unwrap_or(0))
                })
                .collect()
        })?;
        ids.extend(batch);
        done += n;
    }
    eprintln!("  {} goods, 2,000 bins in {:.1}s", goods + 1, start.elapsed().as_secs_f64());
    let hot_goods = ids[goods as usize];
    let ids = std::sync::Arc::new(ids);
    let bins = std::sync::Arc::new(bins);
    let mut done = 0;
    while done < moves {
        let n = (moves - done).min(10_000);
        let (r, t, ids, bins, now) = (res.clone(), tenant.to_string(), ids.clone(), bins.clone(), now.clone());
        st.write(move |w| {
            let cx = Ctx { tenant: &t, actor: &sys, res: &r, now: &now };
            for m in done..done + n {
                let g = ids[(m % goods) as usize];
                let k = m / goods;
                let bin = bins[((m % goods) * 7 + k % 3) as usize % bins.len()];
                let no = format!("RKB{m:08}");
                ledger::post(w, &cx, &Move::new(g, Loc::Supplier, Loc::Bin(bin), if k % 2 == 0 { "B1" } else { "B2" }, (50 + (m * 37) % 450) as i64 * QTY_SCALE, Doc { kind: "rk", id: m + 1, no: &no, line: 0 }))?;
            }
            Ok(())
        })?;
        done += n;
        if done % 100_000 == 0 {
            eprintln!("  moves {done}/{moves} in {:.1}s", start.elapsed().as_secs_f64());
        }
    }
    // The picking orders: 1,000 spread goods (2,000 units reserved each) and the hot line (HOT units on one bin).
    let first = ids[0];
    let (r, t, ids, bins, now2) = (res.clone(), tenant.to_string(), ids.clone(), bins.clone(), now.clone());
    let (spread, hot_body): (Vec<String>, String) = st.write(move |w| {
        let cx = Ctx { tenant: &t, actor: &sys, res: &r, now: &now2 };
        let hot_bin = bins[bins.len() - 1];
        ledger::post(w, &cx, &Move::new(hot_goods, Loc::Supplier, Loc::Bin(hot_bin), "", hot as i64 * QTY_SCALE, Doc { kind: "rk", id: 1, no: "RKHOT", line: 0 }))?;
        let order = |w: &mut store::WriteCtx, g: u64, q: i64, i: usize| -> store::Result<String> {
            let o = w.insert(&r.get("order_ck"), &t, obj(json!({"orderNo": format!("CKB{i:06}"), "storeId": store_id, "orderType": 1, "orderStatus": 1, "lineCount": 1, "totalQty": q})), &sys)?["id"].as_u64().unwrap_or(0);
            let held = ledger::reserve(w, &cx, g, store_id, None, q)?;
            let l = w.insert(&r.get("mxck"), &t, obj(json!({"orderId": o, "goodsId": g, "storeId": store_id, "qty": q, "reservedQty": q, "pickedQty": 0, "reservations": ledger::reservations_json(&held)})), &sys)?["id"].as_u64().unwrap_or(0);
            Ok(json!({"lineId": l.to_string(), "stockId": held[0].0.to_string(), "qty": "1"}).to_string())
        };
        let mut spread = Vec::new();
        for i in 0..1000usize {
            spread.push(order(w, ids[i * (goods as usize / 1000).max(1)], 2000 * QTY_SCALE, i)?);
        }
        let hot_body = order(w, hot_goods, hot as i64 * QTY_SCALE, 1000)?;
        Ok((spread, hot_body))
    })?;
    std::fs::File::create(out.join("spread.jsonl"))?.write_all((spread.join("\n") + "\n").as_bytes())?;
    std::fs::File::create(out.join("hot.jsonl"))?.write_all((hot_body + "\n").as_bytes())?;
    st.close();
    eprintln!("  generated in {:.1}s", start.elapsed().as_secs_f64());
    Ok(format!("{first} {hot_goods}"))
}
