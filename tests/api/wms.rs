//! 仓库管理 (`/api/blade-api/wms/...`): master data, inbound receive → review → put-away, outbound release →
//! pick → ship, transfers, counts, the stock card, store access, retries, and the ledger's invariants (balances
//! equal the moves, nothing negative, no oversell under concurrency).
use serde_json::{Value, json};

use crate::support::{App, post_json as post, get_json as get, msg};

const A: &str = "157270";
const B: &str = "741487";
const W: &str = "/api/blade-api/wms";

fn id(v: &Value) -> String {
    v["data"]["id"].as_str().unwrap_or_else(|| panic!("no id in {v}")).to_string()
}

/// The ledger of tenant-wide data: every balance equals its moves, nothing negative.
pub fn audit_clean(app: &App) -> (u64, u64) {
    let res = app.st.res.clone();
    let a = app.st.store.read(|r| zhizhuang::api::wms::ledger::audit(r, &res)).unwrap();
    assert!(a.problems.is_empty(), "ledger audit: {:#?}", a.problems);
    (a.moves, a.balances)
}

/// A store with a storage zone and `bins` bins, and goods: (store, [bins], [goods]).
pub async fn depot(app: &App, t: &str, tag: &str, bins: usize, goods: &[&str]) -> (String, Vec<String>, Vec<String>) {
    let (s, v) = post(app, t, &format!("{W}/store/submit"), json!({"storeName": format!("{tag}总仓"), "manager": "王仓管", "phone": "13900000001"})).await;
    assert_eq!(s, 200, "{v}");
    let store = id(&v);
    assert!(v["data"]["storeCode"].as_str().unwrap().starts_with("WH"), "{v}");
    let (s, v) = post(app, t, &format!("{W}/reservoirarea/submit"), json!({"storeId": store, "areaName": "存储A区", "areaKind": 2})).await;
    assert_eq!(s, 200, "{v}");
    let area = id(&v);
    let mut bs = Vec::new();
    for i in 0..bins {
        let (s, v) = post(app, t, &format!("{W}/storagespace/submit"), json!({"areaId": area, "spaceCode": format!("{tag}-A-{:02}", i + 1), "barcode": format!("{tag}BIN{i:03}"), "pickOrder": i})).await;
        assert_eq!(s, 200, "{v}");
        assert_eq!(v["data"]["storeId"].as_str(), Some(store.as_str()), "a bin takes its zone's store: {v}");
        bs.push(id(&v));
    }
    let mut gs = Vec::new();
    for (i, name) in goods.iter().enumerate() {
        let (s, v) = post(app, t, &format!("{W}/goods/submit"), json!({"goodsName": name, "spec": "1200×2400×9.5mm", "unit": "张", "barcode": format!("{tag}69{i:011}"), "price": "32.50", "safetyMin": "20"})).await;
        assert_eq!(s, 200, "{v}");
        gs.push(id(&v));
    }
    (store, bs, gs)
}

/// An inbound order with lines (goods, expected, batch), received, reviewed (all passed) and put into `bin`.
pub async fn stock_in(app: &App, t: &str, store: &str, lines: &[(&str, &str, &str)], bin: &str) -> String {
    let (s, v) = post(app, t, &format!("{W}/order/rk/submit"), json!({"storeId": store, "orderType": 1})).await;
    assert_eq!(s, 200, "{v}");
    let order = id(&v);
    let mut ids = Vec::new();
    for (g, n, batch) in lines {
        let (s, v) = post(app, t, &format!("{W}/mxrk/submit"), json!({"orderId": order, "goodsId": g, "expectedQty": n, "batch": batch})).await;
        assert_eq!(s, 200, "{v}");
        ids.push((id(&v), n.to_string()));
    }
    let body: Vec<Value> = ids.iter().map(|(l, n)| json!({"lineId": l, "qty": n})).collect();
    let (s, v) = post(app, t, &format!("{W}/received/save"), json!({"lines": body})).await;
    assert_eq!(s, 200, "{v}");
    let body: Vec<Value> = ids.iter().map(|(l, n)| json!({"lineId": l, "passedQty": n, "failedQty": 0})).collect();
    let (s, v) = post(app, t, &format!("{W}/review/save"), json!({"lines": body})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(app, t, &format!("{W}/review/finish?orderId={order}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let body: Vec<Value> = ids.iter().map(|(l, n)| json!({"lineId": l, "spaceId": bin, "qty": n})).collect();
    let (s, v) = post(app, t, &format!("{W}/up/save"), json!({"lines": body})).await;
    assert_eq!(s, 200, "{v}");
    order
}

fn qty_of(v: &Value, field: &str) -> String {
    v[field].as_str().unwrap_or_else(|| panic!("no {field} in {v}")).to_string()
}

async fn stock_rows(app: &App, t: &str, goods: &str) -> Vec<Value> {
    let (s, v) = get(app, t, &format!("{W}/stockdata/list?goodsId={goods}&size=100")).await;
    assert_eq!(s, 200, "{v}");
    v["data"]["records"].as_array().unwrap().clone()
}

async fn goods_qty(app: &App, t: &str, goods: &str) -> String {
    let (_, v) = get(app, t, &format!("{W}/goods/detail?id={goods}")).await;
    qty_of(&v["data"], "stockQty")
}

#[tokio::test]
async fn inbound_outbound_transfer_and_count_keep_the_ledger_exact() {
    let app = App::new();
    let t = app.admin(A).await;
    let (store, bins, goods) = depot(&app, &t, "A", 3, &["纸面石膏板", "轻钢龙骨"]).await;
    let (g1, g2) = (goods[0].clone(), goods[1].clone());

    // Inbound order with two lines; codes per tenant; lines only while new.
    let (s, v) = post(&app, &t, &format!("{W}/order/rk/submit"), json!({"storeId": store, "orderType": 1, "expectedDate": "2026-11-25"})).await;
    assert_eq!(s, 200, "{v}");
    let rk = id(&v);
    let no = v["data"]["orderNo"].as_str().unwrap().to_string();
    assert!(no.starts_with("RK") && no.len() == "RK20261123-0001".len(), "{no}");
    let (s, v) = post(&app, &t, &format!("{W}/mxrk/submit"), json!({"orderId": rk, "goodsId": g1, "expectedQty": "100", "batch": "B2611", "expireDate": "2027-06-30"})).await;
    assert_eq!(s, 200, "{v}");
    let l1 = id(&v);
    let (s, v) = post(&app, &t, &format!("{W}/mxrk/submit"), json!({"orderId": rk, "goodsId": g2, "expectedQty": "50.5"})).await;
    assert_eq!(s, 200, "{v}");
    let l2 = id(&v);
    let (_, v) = get(&app, &t, &format!("{W}/order/rk/detail?id={rk}")).await;
    assert_eq!((v["data"]["lineCount"].as_i64(), v["data"]["expectedTotal"].as_str()), (Some(2), Some("150.5")), "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/mxrk/submit"), json!({"orderId": rk, "goodsId": g2, "expectedQty": "1.23456"})).await;
    assert_eq!(s, 400, "five decimals are refused: {v}");

    // A negative quantity says so in the words the declared resources use (超出允许范围), not "wrong type".
    let (s, v) = post(&app, &t, &format!("{W}/received/save"), json!({"lineId": l1, "qty": "-1"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v) == "数量超出允许范围", "{v}");
    // Receiving: over-receipt refused with the figures; a retried save with the same opId moves nothing.
    let (s, v) = post(&app, &t, &format!("{W}/received/save"), json!({"lineId": l1, "qty": "101"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("超收") && msg(&v).contains("预计 100"), "{v}");
    for _ in 0..2 {
        let (s, v) = post(&app, &t, &format!("{W}/received/save"), json!({"lineId": l1, "qty": "100", "opId": "scan-0001"})).await;
        assert_eq!(s, 200, "{v}");
    }
    let (s, v) = post(&app, &t, &format!("{W}/received/save"), json!({"lineId": l2, "qty": 40})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/order/rk/detail?id={rk}")).await;
    assert_eq!((v["data"]["orderStatus"].as_i64(), v["data"]["receivedTotal"].as_str()), (Some(1), Some("140")), "retry received once: {v}");
    assert_eq!(goods_qty(&app, &t, &g1).await, "100", "received goods are on hand in the receiving area");
    let (_, v) = get(&app, &t, &format!("{W}/received/goods_list?orderId={rk}")).await;
    assert_eq!(v["data"]["total"], 1, "only goods2 has 10.5 left to receive: {v}");
    assert_eq!(v["data"]["records"][0]["remainingQty"], "10.5", "{v}");

    // Review: failed goods to the returns area; finish needs everything reviewed, and names every line left.
    let (s, v) = post(&app, &t, &format!("{W}/review/save"), json!({"lineId": l1, "passedQty": "98", "failedQty": "2", "remark": "边角破损"})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/review/finish"), json!({"orderId": rk})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).starts_with("还有 1 行未复核:商品 ") && msg(&v).contains("轻钢龙骨") && msg(&v).ends_with(" 还有 40"), "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/review/save"), json!({"lineId": l2, "passedQty": "40", "failedQty": "1"})).await;
    assert_eq!(s, 400, "more than received: {v}");
    let (s, _) = post(&app, &t, &format!("{W}/review/save"), json!({"lineId": l2, "passedQty": "40"})).await;
    assert_eq!(s, 200);
    let (s, v) = post(&app, &t, &format!("{W}/review/finish"), json!({"orderId": rk})).await;
    assert_eq!((s, v["data"]["orderStatus"].as_i64()), (200, Some(3)), "{v}");

    // Put-away with suggestions; the order is done when everything passed is in bins, and leaves an ERP record.
    let (_, v) = get(&app, &t, &format!("{W}/up/goods?orderId={rk}")).await;
    assert_eq!(v["data"]["total"], 2, "{v}");
    assert!(v["data"]["records"][0]["suggestSpaceId"].is_string(), "a bin is suggested: {v}");
    let (s, v) = post(&app, &t, &format!("{W}/up/save"), json!({"lineId": l1, "spaceId": bins[0], "qty": "99"})).await;
    assert_eq!(s, 400, "only 98 passed: {v}");
    let (s, v) = post(&app, &t, &format!("{W}/up/save"), json!({"lines": [
        {"lineId": l1, "spaceId": bins[0], "qty": "60"}, {"lineId": l1, "spaceId": bins[1], "qty": "38"}, {"lineId": l2, "spaceId": bins[0], "qty": "40"}
    ]})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/order/rk/detail?id={rk}")).await;
    assert_eq!(v["data"]["orderStatus"].as_i64(), Some(4), "{v}");
    // 复核管理 lists its reviews under the order's status of now (they said 复核中 after the order was done).
    let (_, v) = get(&app, &t, &format!("{W}/review/list?orderId={rk}&orderStatus=4")).await;
    assert_eq!(v["data"]["total"], 2, "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/review/list?orderId={rk}&orderStatus=2")).await;
    assert_eq!(v["data"]["total"], 0, "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/erp/erpcallback/syncList?docId={rk}")).await;
    assert_eq!(v["data"]["total"], 1, "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/erp/erpcallback/sync"), json!({})).await;
    assert_eq!((s, v["data"]["delivered"].as_u64()), (200, Some(1)), "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/erp/erpcallback/syncList?docId={rk}")).await;
    assert_eq!(v["data"]["records"][0]["deliverState"].as_i64(), Some(1), "{v}");
    assert!(v["data"]["records"][0]["nextAttempt"].is_null(), "a delivered record is not tried again: {v}");
    assert!(v["data"]["records"][0]["lastError"].as_str().is_some_and(|n| n.contains("ERP")), "the receiver's note is its last result: {v}");
    assert_eq!(v["data"]["records"][0]["providerName"], "服务器日志(内置,未连接外部ERP)", "the receiver in words, not its key: {v}");
    let (_, v) = get(&app, &t, &format!("{W}/storagespace/detail?id={}", bins[0])).await;
    assert_eq!(v["data"]["spaceState"].as_i64(), Some(1), "a bin holding stock is occupied: {v}");
    let rows = stock_rows(&app, &t, &g1).await;
    assert_eq!(rows.len(), 4, "bin1, bin2, the returns area and the (now empty) receiving area: {rows:?}");
    let (s, v) = post(&app, &t, &format!("{W}/storagespace/remove?ids={}", bins[0]), json!({})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("不能删除"), "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/stockdata/submit"), json!({"goodsId": g1, "countedQty": "5"})).await;
    assert_eq!(s, 400, "stock is never added directly: {v}");

    // Outbound: release reserves in pick order; a second order that needs more than is available is refused
    // whole, naming the goods and the shortfall.
    let (s, v) = post(&app, &t, &format!("{W}/order/ck/submit"), json!({"storeId": store, "orderType": 1, "consignee": "李工"})).await;
    assert_eq!(s, 200, "{v}");
    let ck = id(&v);
    let (s, v) = post(&app, &t, &format!("{W}/mxck/submit"), json!({"orderId": ck, "goodsId": g1, "qty": "70"})).await;
    assert_eq!(s, 200, "{v}");
    let cl = id(&v);
    let (s, v) = post(&app, &t, &format!("{W}/order/ck/release"), json!({"id": ck})).await;
    assert_eq!((s, v["data"]["orderStatus"].as_i64()), (200, Some(1)), "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/order/ck/submit"), json!({"storeId": store, "orderType": 1})).await;
    assert_eq!(s, 200, "{v}");
    let ck2 = id(&v);
    post(&app, &t, &format!("{W}/mxck/submit"), json!({"orderId": ck2, "goodsId": g1, "qty": "30"})).await;
    let (s, v) = post(&app, &t, &format!("{W}/order/ck/release"), json!({"id": ck2})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("纸面石膏板") && msg(&v).contains("可用 28张") && msg(&v).contains("缺 2张"), "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/down/goods_list?orderId={ck}")).await;
    let picks = v["data"]["records"].as_array().unwrap().clone();
    assert_eq!(picks.len(), 2, "60 from the fuller bin, 10 from the next: {v}");
    assert_eq!((picks[0]["spaceId"].as_str(), picks[0]["qty"].as_str()), (Some(bins[0].as_str()), Some("60")), "{v}");

    // Picking from bin2 more than is reserved there takes the rest from its available stock and gives back the
    // same amount of reservation elsewhere; a retried pick moves once.
    let stock2 = picks[1]["stockId"].as_str().unwrap().to_string();
    for _ in 0..2 {
        let (s, v) = post(&app, &t, &format!("{W}/down/save"), json!({"lineId": cl, "stockId": stock2, "qty": "20", "opId": "pick-7"})).await;
        assert_eq!(s, 200, "{v}");
    }
    let (_, v) = get(&app, &t, &format!("{W}/mxck/detail?id={cl}")).await;
    assert_eq!((v["data"]["pickedQty"].as_str(), v["data"]["reservedQty"].as_str()), (Some("20"), Some("50")), "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/down/save"), json!({"lineId": cl, "spaceId": bins[0], "batch": "B2611", "qty": "51"})).await;
    assert_eq!(s, 400, "only 50 left to pick: {v}");
    let (s, v) = post(&app, &t, &format!("{W}/order/ck/ship"), json!({"id": ck})).await;
    assert_eq!(s, 400, "not picked yet: {v}");
    let (s, v) = post(&app, &t, &format!("{W}/down/save"), json!({"lineId": cl, "spaceId": bins[0], "batch": "B2611", "qty": "50"})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/order/ck/detail?id={ck}")).await;
    assert_eq!(v["data"]["orderStatus"].as_i64(), Some(3), "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/order/ck/ship"), json!({"id": ck})).await;
    assert_eq!((s, v["data"]["orderStatus"].as_i64()), (200, Some(4)), "{v}");
    assert_eq!(goods_qty(&app, &t, &g1).await, "30", "100 received − 70 shipped");
    let (s, v) = post(&app, &t, &format!("{W}/order/ck/cancel"), json!({"id": ck})).await;
    assert_eq!(s, 400, "a shipped order is not cancelled: {v}");

    // The second order now fits (28 in bins); released then cancelled: the reservation comes back.
    post(&app, &t, &format!("{W}/mxck/remove?ids={}", get(&app, &t, &format!("{W}/mxck/list?orderId={ck2}")).await.1["data"]["records"][0]["id"].as_str().unwrap()), json!({})).await;
    post(&app, &t, &format!("{W}/mxck/submit"), json!({"orderId": ck2, "goodsId": g1, "qty": "28"})).await;
    let (s, v) = post(&app, &t, &format!("{W}/order/ck/release"), json!({"id": ck2})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/order/ck/cancel"), json!({"id": ck2})).await;
    assert_eq!((s, v["data"]["orderStatus"].as_i64()), (200, Some(9)), "{v}");
    for r in stock_rows(&app, &t, &g1).await {
        assert_eq!(r["reserved"], "0", "{r}");
    }

    // Transfer between bins (both legs at once) and a count posting the difference to the loss location.
    let (s, v) = post(&app, &t, &format!("{W}/transfer/submit"), json!({"goodsId": g2, "fromSpaceId": bins[0], "toSpaceId": bins[2], "qty": "15.25"})).await;
    assert_eq!(s, 200, "{v}");
    let tr = id(&v);
    let (s, v) = post(&app, &t, &format!("{W}/transfer/execute"), json!({"id": tr})).await;
    assert_eq!((s, v["data"]["transferStatus"].as_i64()), (200, Some(1)), "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/transfer/execute"), json!({"id": tr})).await;
    assert_eq!(s, 400, "done once: {v}");
    let row = stock_rows(&app, &t, &g2).await.into_iter().find(|r| r["spaceId"].as_str() == Some(bins[2].as_str())).unwrap();
    assert_eq!(row["qty"], "15.25", "{row}");
    // No batch named (批次号 is optional): the bin's own batches move, and the order says which; more than the
    // bin has available is refused saying how much there is.
    let (_, v) = post(&app, &t, &format!("{W}/transfer/submit"), json!({"goodsId": g1, "fromSpaceId": bins[0], "toSpaceId": bins[2], "qty": "10"})).await;
    let tr1 = id(&v);
    let (s, v) = post(&app, &t, &format!("{W}/transfer/execute"), json!({"id": tr1})).await;
    assert_eq!((s, v["data"]["transferStatus"].as_i64(), v["data"]["batch"].as_str()), (200, Some(1), Some("B2611")), "{v}");
    let moved = stock_rows(&app, &t, &g1).await.into_iter().find(|r| r["spaceId"].as_str() == Some(bins[2].as_str())).unwrap();
    assert_eq!((moved["qty"].as_str(), moved["batch"].as_str()), (Some("10"), Some("B2611")), "{moved}");
    let (_, v) = post(&app, &t, &format!("{W}/transfer/submit"), json!({"goodsId": g1, "fromSpaceId": bins[2], "toSpaceId": bins[0], "qty": "11"})).await;
    let tr2 = id(&v);
    let (s, v) = post(&app, &t, &format!("{W}/transfer/execute"), json!({"id": tr2})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("可用 10,需要 11"), "{v}");
    // What cannot be carried out is cancelled (the screen's 取消): nothing moves, and it stays cancelled.
    let (s, v) = post(&app, &t, &format!("{W}/transfer/cancel"), json!({"id": tr2})).await;
    assert_eq!((s, v["data"]["transferStatus"].as_i64()), (200, Some(9)), "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/transfer/execute"), json!({"id": tr2})).await;
    assert_eq!(s, 400, "a cancelled transfer is not carried out: {v}");
    let (s, v) = post(&app, &t, &format!("{W}/transfer/cancel"), json!({"id": tr})).await;
    assert_eq!(s, 400, "a done transfer is not cancelled: {v}");
    assert_eq!(stock_rows(&app, &t, &g1).await.into_iter().find(|r| r["spaceId"].as_str() == Some(bins[2].as_str())).unwrap()["qty"], "10");
    let (s, v) = post(&app, &t, &format!("{W}/stockdata/submit"), json!({"id": row["id"], "countedQty": "15"})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(goods_qty(&app, &t, &g2).await, "39.75", "40 − 0.25 counted short");

    // The stock card: every move of a goods, oldest first, with the balance after each.
    let (s, v) = get(&app, &t, &format!("{W}/stockdata/card?goodsId={g2}&size=50")).await;
    assert_eq!(s, 200, "{v}");
    let moves = v["data"]["records"].as_array().unwrap();
    let after: Vec<&str> = moves.iter().map(|m| m["goodsAfter"].as_str().unwrap()).collect();
    assert_eq!(after, ["40", "40", "40", "39.75"], "receive, put away, transfer, count: {v}");
    assert_eq!(moves.last().unwrap()["toLoc"], "loss", "{v}");

    // Tenant B sees none of it, and cannot touch it.
    let tb = app.admin(B).await;
    let (_, v) = get(&app, &tb, &format!("{W}/stockdata/list")).await;
    assert_eq!(v["data"]["total"], 0, "{v}");
    let (s, _) = post(&app, &tb, &format!("{W}/received/save"), json!({"lineId": l1, "qty": "1"})).await;
    assert_eq!(s, 404);
    let (s, _) = get(&app, &tb, &format!("{W}/stockdata/card?goodsId={g1}")).await;
    assert_eq!(s, 404);
    audit_clean(&app);
}

#[tokio::test]
async fn receipts_and_picks_are_reversed_not_deleted() {
    let app = App::new();
    let t = app.admin(A).await;
    let (store, bins, goods) = depot(&app, &t, "R", 2, &["瓷砖胶"]).await;
    let g = goods[0].clone();
    let (_, v) = post(&app, &t, &format!("{W}/order/rk/submit"), json!({"storeId": store})).await;
    let rk = id(&v);
    let (_, v) = post(&app, &t, &format!("{W}/mxrk/submit"), json!({"orderId": rk, "goodsId": g, "expectedQty": "10"})).await;
    let line = id(&v);
    let (_, v) = post(&app, &t, &format!("{W}/received/save"), json!({"lineId": line, "qty": "10"})).await;
    let rec = v["data"][0]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &t, &format!("{W}/order/rk/remove?ids={rk}"), json!({})).await;
    assert_eq!(s, 400, "an order that received goods is not removed: {v}");
    let (s, v) = post(&app, &t, &format!("{W}/received/remove?ids={rec}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/order/rk/detail?id={rk}")).await;
    assert_eq!((v["data"]["orderStatus"].as_i64(), v["data"]["receivedTotal"].as_str()), (Some(0), Some("0")), "{v}");
    assert_eq!(goods_qty(&app, &t, &g).await, "0");
    let (s, v) = post(&app, &t, &format!("{W}/order/rk/cancel"), json!({"id": rk})).await;
    assert_eq!((s, v["data"]["orderStatus"].as_i64()), (200, Some(9)), "{v}");

    stock_in(&app, &t, &store, &[(&g, "10", "")], &bins[0]).await;
    let (_, v) = post(&app, &t, &format!("{W}/order/ck/submit"), json!({"storeId": store, "orderType": 1})).await;
    let ck = id(&v);
    let (_, v) = post(&app, &t, &format!("{W}/mxck/submit"), json!({"orderId": ck, "goodsId": g, "qty": "6"})).await;
    let cl = id(&v);
    post(&app, &t, &format!("{W}/order/ck/release"), json!({"id": ck})).await;
    let (_, v) = post(&app, &t, &format!("{W}/down/save"), json!({"lineId": cl, "spaceId": bins[0], "qty": "4"})).await;
    let pick = v["data"][0]["id"].as_str().unwrap().to_string();
    let (s, v) = post(&app, &t, &format!("{W}/down/remove?ids={pick}"), json!({})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/mxck/detail?id={cl}")).await;
    assert_eq!((v["data"]["pickedQty"].as_str(), v["data"]["reservedQty"].as_str()), (Some("0"), Some("6")), "back in the bin, still reserved: {v}");
    let (_, v) = get(&app, &t, &format!("{W}/order/ck/detail?id={ck}")).await;
    assert_eq!(v["data"]["orderStatus"].as_i64(), Some(1), "{v}");
    post(&app, &t, &format!("{W}/down/save"), json!({"lineId": cl, "spaceId": bins[0], "qty": "3"})).await;
    let (s, v) = post(&app, &t, &format!("{W}/order/ck/cancel"), json!({"id": ck})).await;
    assert_eq!(s, 200, "{v}");
    let rows = stock_rows(&app, &t, &g).await;
    let bin = rows.iter().find(|r| r["spaceId"].as_str() == Some(bins[0].as_str())).unwrap();
    assert_eq!((bin["qty"].as_str(), bin["reserved"].as_str(), bin["available"].as_str()), (Some("10"), Some("0"), Some("10")), "{bin}");
    audit_clean(&app);
}

#[tokio::test]
async fn a_project_requisition_lands_on_the_project() {
    let app = App::new();
    let t = app.admin(A).await;
    let (store, bins, goods) = depot(&app, &t, "P", 1, &["PPR水管"]).await;
    stock_in(&app, &t, &store, &[(&goods[0], "200", "")], &bins[0]).await;
    let (s, v) = post(&app, &t, &format!("{W}/order/ck/submit"), json!({"storeId": store, "orderType": 2})).await;
    assert_eq!(s, 400, "a requisition names its project: {v}");
    let (_, v) = post(&app, &t, "/api/blade-scm/company/add", json!({"companyName": "领料分公司", "companyType": 1})).await;
    let company = id(&v);
    let (s, v) = post(&app, &t, "/api/blade-scm/project/add", json!({"projectName": "翠湖公寓精装", "projectCompanyId": company, "businessUnit": "TOB", "startTime": "2026-10-01"})).await;
    assert_eq!(s, 200, "{v}");
    let project = id(&v);
    let (_, v) = post(&app, &t, &format!("{W}/order/ck/submit"), json!({"storeId": store, "orderType": 2, "projectId": project})).await;
    let ck = id(&v);
    let (_, v) = post(&app, &t, &format!("{W}/mxck/submit"), json!({"orderId": ck, "goodsId": goods[0], "qty": "12.5"})).await;
    let cl = id(&v);
    post(&app, &t, &format!("{W}/order/ck/release"), json!({"id": ck})).await;
    post(&app, &t, &format!("{W}/down/save"), json!({"lineId": cl, "spaceId": bins[0], "qty": "12.5"})).await;
    let (s, v) = post(&app, &t, &format!("{W}/order/ck/ship"), json!({"id": ck})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/stockdata/card?goodsId={}&size=50", goods[0])).await;
    let last = v["data"]["records"].as_array().unwrap().last().unwrap().clone();
    assert_eq!((last["toLoc"].as_str(), last["projectId"].as_str(), last["amount"].as_str()), (Some(format!("project:{project}").as_str()), Some(project.as_str()), Some("406.25")), "12.5 × 32.50: {last}");
    audit_clean(&app);
}

#[tokio::test]
async fn store_access_limits_lists_details_and_writes() {
    let app = App::new();
    let t = app.admin(A).await;
    let (s1, _, _) = depot(&app, &t, "S1", 1, &["木地板"]).await;
    let (s2, _, _) = depot(&app, &t, "S2", 1, &["墙纸"]).await;
    let codes = ["wms", "store", "order_rk", "order_rk_add", "order_rk_edit", "stockdata"];
    app.make_role(A, "clerk", &codes).await;
    let uid = app.make_user(A, "clerk1", "Clerk#2026", &["clerk"]).await;
    let (s, v) = post(&app, &t, &format!("{W}/userconfig/submit"), json!({"userId": uid.to_string(), "storeIds": s1, "defaultStoreId": s1})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/userconfig/submit"), json!({"userId": uid.to_string(), "storeIds": "999"})).await;
    assert_eq!(s, 400, "one configuration per user, stores must exist: {v}");
    let c = app.sign_in(A, "clerk1", "Clerk#2026").await;
    let (_, v) = get(&app, &c, &format!("{W}/store/list")).await;
    assert_eq!(v["data"]["total"], 1, "{v}");
    assert_eq!(v["data"]["records"][0]["id"].as_str(), Some(s1.as_str()), "{v}");
    let (s, _) = get(&app, &c, &format!("{W}/store/detail?id={s2}")).await;
    assert_eq!(s, 404);
    let (s, v) = post(&app, &c, &format!("{W}/order/rk/submit"), json!({"storeId": s2})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("操作权限"), "{v}");
    let (s, v) = post(&app, &c, &format!("{W}/order/rk/submit"), json!({"storeId": s1})).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/order/rk/list")).await;
    assert_eq!(v["data"]["total"], 1, "{v}");
}

/// 64 pickers at once on one bin holding stock for fewer than all of them: exactly the stock is issued, the rest
/// refused, nothing oversold.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_picks_never_oversell() {
    let app = std::sync::Arc::new(App::new());
    let t = app.admin(A).await;
    let (store, bins, goods) = depot(&app, &t, "C", 1, &["开关面板"]).await;
    stock_in(&app, &t, &store, &[(&goods[0], "40", "")], &bins[0]).await;
    // 64 orders of 1 each, created new (not released): each picker releases and picks its own.
    let mut lines = Vec::new();
    for _ in 0..64 {
        let (_, v) = post(&app, &t, &format!("{W}/order/ck/submit"), json!({"storeId": store, "orderType": 1})).await;
        let ck = id(&v);
        let (_, v) = post(&app, &t, &format!("{W}/mxck/submit"), json!({"orderId": ck, "goodsId": goods[0], "qty": "1"})).await;
        lines.push((ck, id(&v)));
    }
    let mut tasks = Vec::new();
    for (ck, line) in lines {
        let (app, t, bin) = (app.clone(), t.clone(), bins[0].clone());
        tasks.push(tokio::spawn(async move {
            let (s, _) = post(&app, &t, &format!("{W}/order/ck/release"), json!({"id": ck})).await;
            if s != 200 {
                return false;
            }
            let (s, v) = post(&app, &t, &format!("{W}/down/save"), json!({"lineId": line, "spaceId": bin, "qty": "1"})).await;
            assert_eq!(s, 200, "a released line picks its reservation: {v}");
            true
        }));
    }
    let mut issued = 0;
    for h in tasks {
        if h.await.unwrap() {
            issued += 1;
        }
    }
    assert_eq!(issued, 40, "exactly the stock is issued");
    let rows = stock_rows(&app, &t, &goods[0]).await;
    let bin = rows.iter().find(|r| r["spaceId"].as_str() == Some(bins[0].as_str())).unwrap();
    assert_eq!((bin["qty"].as_str(), bin["available"].as_str()), (Some("0"), Some("0")), "{bin}");
    audit_clean(&app);
}

/// Random sequences of receipts, releases, picks, shipments, cancellations, transfers and counts (a fixed seed per
/// run, printed): after every step the balances equal the sum of the moves, nothing is negative and reserved
/// never exceeds on hand; refusals are clear messages, never 500s.
#[tokio::test]
async fn random_sequences_keep_balances_equal_to_moves() {
    let app = App::new();
    let t = app.admin(A).await;
    let (store, bins, goods) = depot(&app, &t, "Q", 3, &["石膏板", "龙骨", "腻子粉", "瓷砖胶"]).await;
    let (_, mut rnd) = crate::support::seeded("ledger property test");
    let qty = |r: u64| format!("{}.{}", 1 + r % 30, r % 4 * 25);
    let mut open: Vec<(String, String)> = Vec::new();
    let (mut refused, mut done) = (0, 0);
    for step in 0..120 {
        let g = &goods[rnd(goods.len() as u64) as usize];
        let what = rnd(6);
        match what {
            0 | 1 => {
                let bin = &bins[rnd(3) as usize];
                stock_in(&app, &t, &store, &[(g, &qty(rnd(1000)), ["", "B1", "B2"][rnd(3) as usize])], bin).await;
                done += 1;
            }
            2 => {
                let (_, v) = post(&app, &t, &format!("{W}/order/ck/submit"), json!({"storeId": store, "orderType": 1})).await;
                let ck = id(&v);
                let (_, v) = post(&app, &t, &format!("{W}/mxck/submit"), json!({"orderId": ck, "goodsId": g, "qty": qty(rnd(1000))})).await;
                let line = id(&v);
                let (s, v) = post(&app, &t, &format!("{W}/order/ck/release"), json!({"id": ck})).await;
                if s == 200 {
                    open.push((ck, line));
                    done += 1;
                } else {
                    assert!(s == 400 && msg(&v).contains("缺"), "step {step}: {v}");
                    refused += 1;
                }
            }
            3 if !open.is_empty() => {
                // Pick part or all of an open order's pick list, from its reserved bins or any other.
                let (ck, line) = open[rnd(open.len() as u64) as usize].clone();
                let (_, v) = get(&app, &t, &format!("{W}/down/goods_list?orderId={ck}&size=50")).await;
                for row in v["data"]["records"].as_array().cloned().unwrap_or_default() {
                    let q = if rnd(3) == 0 { "0.25".to_string() } else { row["qty"].as_str().unwrap().to_string() };
                    let (s, v) = post(&app, &t, &format!("{W}/down/save"), json!({"lineId": line, "stockId": row["stockId"], "qty": q})).await;
                    assert!(s == 200 || s == 400, "step {step}: {v}");
                }
                let (_, v) = get(&app, &t, &format!("{W}/order/ck/detail?id={ck}")).await;
                let status = v["data"]["orderStatus"].as_i64().unwrap();
                let end = if status == 3 && rnd(2) == 0 { "ship" } else if rnd(3) == 0 { "cancel" } else { "" };
                if !end.is_empty() {
                    let (s, v) = post(&app, &t, &format!("{W}/order/ck/{end}"), json!({"id": ck})).await;
                    assert_eq!(s, 200, "step {step} {end}: {v}");
                    open.retain(|(c, _)| *c != ck);
                }
                done += 1;
            }
            4 => {
                let (from, to) = (rnd(3) as usize, rnd(3) as usize);
                if from != to {
                    let (_, v) = post(&app, &t, &format!("{W}/transfer/submit"), json!({"goodsId": g, "fromSpaceId": bins[from], "toSpaceId": bins[to], "qty": qty(rnd(1000))})).await;
                    let (s, v) = post(&app, &t, &format!("{W}/transfer/execute"), json!({"id": id(&v)})).await;
                    assert!(s == 200 || (s == 400 && msg(&v).contains("库存不足")), "step {step}: {v}");
                }
            }
            _ => {
                let rows = stock_rows(&app, &t, g).await;
                if let Some(r) = rows.get(rnd(rows.len().max(1) as u64) as usize) {
                    let counted = format!("{}", r["qty"].as_str().unwrap().parse::<f64>().unwrap().floor() as i64 + rnd(3) as i64 - 1);
                    let (s, v) = post(&app, &t, &format!("{W}/stockdata/submit"), json!({"id": r["id"], "countedQty": counted})).await;
                    assert!(s == 200 || s == 400, "step {step}: {v}");
                }
            }
        }
        audit_clean(&app);
    }
    for g in &goods {
        let sum: i64 = stock_rows(&app, &t, g).await.iter().map(|r| store::parse_qty(r["qty"].as_str().unwrap()).unwrap()).sum();
        assert_eq!(store::format_qty(sum), goods_qty(&app, &t, g).await, "goods total = its rows");
    }
    assert!(done > 30, "{done} steps did something ({refused} refused)");
}

/// A workbook with a header row and rows of text.
fn book(header: &[&str], rows: &[Vec<&str>]) -> Vec<u8> {
    let mut b = rust_xlsxwriter::Workbook::new();
    let s = b.add_worksheet();
    for (i, h) in header.iter().enumerate() {
        s.write_string(0, i as u16, *h).unwrap();
    }
    for (r, row) in rows.iter().enumerate() {
        for (i, v) in row.iter().enumerate() {
            s.write_string(r as u32 + 1, i as u16, *v).unwrap();
        }
    }
    b.save_to_buffer().unwrap()
}

/// Every cell of a sheet as text.
fn cells(bytes: Vec<u8>, sheet: usize) -> Vec<Vec<String>> {
    use calamine::Reader;
    let mut b: calamine::Xlsx<_> = calamine::open_workbook_from_rs(std::io::Cursor::new(bytes)).unwrap();
    b.worksheet_range_at(sheet).unwrap().unwrap().rows().map(|r| r.iter().map(|c| match c { calamine::Data::Float(f) if f.fract() == 0.0 => format!("{}", *f as i64), calamine::Data::Empty => String::new(), other => other.to_string().trim().to_string() }).collect()).collect()
}

#[tokio::test]
async fn master_data_imports_from_excel_all_rows_or_none() {
    let app = App::new();
    let a = app.admin(A).await;
    let b = app.admin(B).await;
    let up = |url: String, bytes: Vec<u8>, t: String| { let app = &app; async move { app.upload(&t, &url, "data.xlsx", bytes).await } };

    // The template: the columns to fill in, and notes that name the choices of a dictionary column.
    let t = app.download(&a, &format!("{W}/reservoirarea/import-template")).await;
    assert_eq!(cells(t.clone(), 0)[0], ["所属仓库", "库区编码", "库区名称", "库区类型", "备注"]);
    let notes = cells(t, 1);
    assert!(notes.iter().any(|r| r[0] == "库区类型" && r[2].contains("存储区")), "{notes:?}");

    // Stores, codes generated; zones naming their store by name or by code, kind by label; bins by zone code.
    let (s, v) = up(format!("{W}/store/import"), book(&["仓库名称", "负责人", "联系电话", "启用"], &[vec!["江宁材料仓", "王仓管", "13900000011", "是"], vec!["浦口中转仓", "李仓管", "", "否"]]), a.clone()).await;
    assert_eq!((s, &v["data"]), (200, &json!({"inserted": 2, "updated": 0, "skipped": 0})), "{v}");
    let (_, v) = get(&app, &a, &format!("{W}/store/list?storeName=浦口")).await;
    let pukou = &v["data"]["records"][0];
    assert_eq!(pukou["enabled"], 0, "否 is 0: {v}");
    let pukou_code = pukou["storeCode"].as_str().unwrap().to_string();
    assert!(pukou_code.starts_with("WH"), "{v}");
    let file = book(&["所属仓库", "库区编码", "库区名称", "库区类型"], &[vec!["江宁材料仓", "JN-A", "存储A区", "存储区"], vec![&pukou_code, "PK-R", "收货区", "Receiving"]]);
    let (s, v) = up(format!("{W}/reservoirarea/import"), file, a.clone()).await;
    assert_eq!((s, v["data"]["inserted"].as_u64()), (200, Some(2)), "{v}");
    let (_, v) = get(&app, &a, &format!("{W}/reservoirarea/list?areaCode=PK-R")).await;
    assert_eq!((v["data"]["records"][0]["areaKind"].as_i64(), v["data"]["records"][0]["storeName"].as_str()), (Some(1), Some("浦口中转仓")), "{v}");
    let (s, v) = up(format!("{W}/storagespace/import"), book(&["所属库区", "储位编码", "容量", "取货次序"], &[vec!["JN-A", "JN-A-01", "500", "1"], vec!["JN-A", "JN-A-02", "", "2"]]), a.clone()).await;
    assert_eq!((s, v["data"]["inserted"].as_u64()), (200, Some(2)), "{v}");
    let (_, v) = get(&app, &a, &format!("{W}/storagespace/list?spaceCode=JN-A-01")).await;
    assert_eq!((v["data"]["records"][0]["capacity"].as_str(), v["data"]["records"][0]["storeName"].as_str()), (Some("500"), Some("江宁材料仓")), "{v}");

    // All or nothing: a bad row refuses the file, names its row and column, and nothing is written.
    let (_, before) = get(&app, &a, &format!("{W}/goods/list")).await;
    let file = book(&["商品名称", "单位", "参考单价(元)", "安全库存下限"], &[vec!["石膏板", "张", "32.5", "20"], vec!["", "张", "1", ""], vec!["龙骨", "根", "8", ""]]);
    let (s, v) = up(format!("{W}/goods/import"), file, a.clone()).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("第 3 行") && msg(&v).contains("商品名称"), "{v}");
    let (_, after) = get(&app, &a, &format!("{W}/goods/list")).await;
    assert_eq!(before["data"]["total"], after["data"]["total"], "nothing of a refused file is written");
    let (s, v) = up(format!("{W}/goods/import"), book(&["商品名称", "单位", "参考单价(元)"], &[vec!["石膏板", "张", "32.555"]]), a.clone()).await;
    assert!(s == 400 && msg(&v).contains("第 2 行") && msg(&v).contains("参考单价"), "money exact to the fen: {v}");
    let (s, v) = app.req("POST", &format!("{W}/goods/import"), Some(&a), None, &[]).await;
    assert_eq!(s, 400, "no file: {v}");
    let (s, v) = up(format!("{W}/goods/import"), b"PK not really".to_vec(), a.clone()).await;
    assert!(s == 400 && msg(&v).contains("Excel"), "{v}");
    let (s, v) = up(format!("{W}/goods/import"), book(&["尺寸"], &[vec!["1"]]), a.clone()).await;
    assert!(s == 400 && msg(&v).contains("导入模板"), "{v}");

    // Good goods; the export imports as it is: skipped without overwriting, updated with it.
    let (s, v) = up(format!("{W}/goods/import"), book(&["商品名称", "单位", "参考单价(元)", "安全库存下限", "商品分类"], &[vec!["纸面石膏板", "张", "32.5", "20", "板材"], vec!["轻钢龙骨", "根", "8", "", "龙骨"]]), a.clone()).await;
    assert_eq!((s, &v["data"]), (200, &json!({"inserted": 2, "updated": 0, "skipped": 0})), "{v}");
    let exported = app.download(&a, &format!("{W}/goods/export?goodsName=石膏板")).await;
    let rows = cells(exported.clone(), 0);
    let price_col = rows[0].iter().position(|h| h == "参考单价(元)").unwrap();
    assert_eq!(rows[1][price_col], "32.5", "amounts are numbers in the file: {rows:?}");
    let (s, v) = up(format!("{W}/goods/import"), exported.clone(), a.clone()).await;
    assert_eq!((s, &v["data"]), (200, &json!({"inserted": 0, "updated": 0, "skipped": 1})), "{v}");
    let (s, v) = up(format!("{W}/goods/import?isCovered=1"), exported, a.clone()).await;
    assert_eq!((s, &v["data"]), (200, &json!({"inserted": 0, "updated": 1, "skipped": 0})), "{v}");

    // Another tenant's store is not found by its name or code.
    let (s, v) = up(format!("{W}/reservoirarea/import"), book(&["所属仓库", "库区名称"], &[vec!["江宁材料仓", "偷看区"]]), b.clone()).await;
    assert!(s == 400 && msg(&v).contains("找不到") && msg(&v).contains("第 2 行"), "{v}");
    let (s, v) = up(format!("{W}/reservoirarea/import"), book(&["所属仓库", "库区名称"], &[vec![&pukou_code, "偷看区"]]), b.clone()).await;
    assert_eq!(s, 400, "{v}");
    audit_clean(&app);
}

/// Read-only fields (stock figures, statuses moved by their actions) are never set by a submit: sending one with
/// another value is refused naming it; sending a record back as it was read (Saber posts whole rows) is fine.
#[tokio::test]
async fn read_only_fields_are_refused_by_name_unless_sent_back_unchanged() {
    let app = App::new();
    let t = app.admin("157270").await;
    let (_, _, goods) = depot(&app, &t, "RO", 1, &["石膏板"]).await;
    let (_, v) = get(&app, &t, &format!("{W}/goods/detail?id={}", goods[0])).await;
    let mut row = v["data"].clone();
    // The whole row back, as read: saved.
    row["goodsName"] = json!("纸面石膏板");
    let (s, v) = post(&app, &t, &format!("{W}/goods/submit"), row.clone()).await;
    assert_eq!(s, 200, "{v}");
    // Setting the stock by hand: refused, naming the field, nothing written.
    let (s, v) = post(&app, &t, &format!("{W}/goods/submit"), json!({"id": goods[0], "stockQty": "999"})).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("库存数量") && msg(&v).contains("只读"), "{v}");
    assert_eq!(goods_qty(&app, &t, &goods[0]).await, "0");
    let (s, v) = post(&app, &t, &format!("{W}/goods/submit"), json!({"goodsName": "新板", "unit": "张", "stockQty": "5"})).await;
    assert_eq!(s, 400, "a new record's stock is not set either: {v}");
    let (s, v) = app.req("POST", &format!("{W}/goods/submit"), Some(&t), Some(&json!({"id": goods[0], "stockQty": "999"}).to_string()), &[("accept-language", "en")]).await;
    assert_eq!(s, 400);
    assert!(v["msg"].as_str().unwrap().contains("stockQty is read-only"), "{v}");
}

/// The stock list's keyword finds rows by their goods' name, code or spec (the goods it finds), as well as by
/// their own batch; a renamed goods is found by its new name.
#[tokio::test]
async fn the_stock_keyword_finds_rows_by_their_goods() {
    let app = App::new();
    let t = app.admin(A).await;
    let (store, bins, goods) = depot(&app, &t, "K", 1, &["纸面石膏板", "轻钢龙骨"]).await;
    stock_in(&app, &t, &store, &[(&goods[0], "10", "B2611"), (&goods[1], "5", "K77")], &bins[0]).await;
    app.indexed();
    // The goods of the rows found (a receipt leaves an empty row in 收货暂存 beside the bin's).
    let found = |v: &Value| -> Vec<String> {
        let mut g: Vec<String> = v["data"]["records"].as_array().unwrap().iter().map(|r| r["goodsId"].as_str().unwrap().to_string()).collect();
        g.dedup();
        g
    };
    let list = |kw: &str| format!("{W}/stockdata/list?keyword={}", crate::support::urlencode(kw));
    // Answered from the indexes (the rows' own words, and the rows naming the goods found), not by walking rows.
    let walks = || app.st.walk_stats.started.load(std::sync::atomic::Ordering::Relaxed);
    let walked = walks();
    let (s, v) = get(&app, &t, &list("石膏")).await;
    assert_eq!((s, found(&v)), (200, vec![goods[0].clone()]), "by the goods' name: {v}");
    let (_, v) = get(&app, &t, &list("K77")).await;
    assert_eq!(found(&v), vec![goods[1].clone()], "by its own batch: {v}");
    let (_, g) = get(&app, &t, &format!("{W}/goods/detail?id={}", goods[1])).await;
    let code = g["data"]["goodsCode"].as_str().unwrap().to_string();
    let (_, v) = get(&app, &t, &list(&code)).await;
    assert_eq!(found(&v), vec![goods[1].clone()], "by the goods' code: {v}");
    let (_, v) = get(&app, &t, &list("瓷砖")).await;
    assert_eq!(v["data"]["total"], 0, "{v}");
    // Words found on either side: a goods and a batch together.
    let (_, v) = get(&app, &t, &list("龙骨 K77")).await;
    assert_eq!(found(&v), vec![goods[1].clone()], "a goods and its batch: {v}");
    let (_, v) = get(&app, &t, &list("石膏 K77")).await;
    assert_eq!(v["data"]["total"], 0, "no row is of that goods and that batch: {v}");
    assert_eq!(walks(), walked, "no list walked the rows");
    let (s, v) = post(&app, &t, &format!("{W}/goods/submit"), json!({"id": goods[1], "goodsName": "镀锌角钢"})).await;
    assert_eq!(s, 200, "{v}");
    // Asked at once, before the index has followed the rename, the answer is not kept for later.
    let _ = get(&app, &t, &list("角钢")).await;
    app.indexed();
    let (_, v) = get(&app, &t, &list("角钢")).await;
    assert_eq!(found(&v), vec![goods[1].clone()], "by the new name: {v}");
    let (_, v) = get(&app, &t, &list("龙骨")).await;
    assert_eq!(v["data"]["total"], 0, "not by the old one: {v}");
    // A goods picker tells goods of one name apart by code and spec.
    let (_, v) = get(&app, &t, "/api/blade-system/lookup?resource=goods&keyword=%E7%9F%B3%E8%86%8F").await;
    let hint = v["data"]["records"][0]["hint"].as_str().unwrap_or_default().to_string();
    assert!(hint.starts_with("SP") && hint.ends_with(" 1200×2400×9.5mm"), "{v}");
}

/// An inbound order's 供应商 is a third party of type 供应商: its picker offers no carrier, and a write naming one
/// is refused.
#[tokio::test]
async fn an_inbound_orders_supplier_is_a_supplier() {
    let app = App::new();
    let t = app.admin(A).await;
    let (store, _, _) = depot(&app, &t, "P", 1, &[]).await;
    let mut ids = Vec::new();
    for (name, kind) in [("北新建材", 1), ("德邦物流", 2)] {
        let (s, v) = post(&app, &t, &format!("{W}/thirdpartcustomer/submit"), json!({"partyCode": format!("DS{kind}"), "partyName": name, "partyType": kind, "enabled": 1})).await;
        assert_eq!(s, 200, "{v}");
        ids.push(id(&v));
    }
    let (s, v) = get(&app, &t, "/api/blade-system/lookup?resource=thirdpartcustomer&partyType_equal=1").await;
    assert_eq!(s, 200, "{v}");
    let titles: Vec<&str> = v["data"]["records"].as_array().unwrap().iter().filter_map(|r| r["title"].as_str()).collect();
    assert_eq!(titles, vec!["北新建材"], "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/order/rk/submit"), json!({"storeId": store, "orderType": 1, "supplierId": ids[1]})).await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(msg(&v), "所选供应商的类型不符,请从列表中选择", "{v}");
    let (s, v) = post(&app, &t, &format!("{W}/order/rk/submit"), json!({"storeId": store, "orderType": 1, "supplierId": ids[0]})).await;
    assert_eq!(s, 200, "{v}");
    // A supplier retyped since does not make its orders unsaveable: the form sends the supplier back unchanged.
    let mut order = v["data"].as_object().unwrap().clone();
    let (s, v) = post(&app, &t, &format!("{W}/thirdpartcustomer/submit"), json!({"id": ids[0], "partyType": 2})).await;
    assert_eq!(s, 200, "{v}");
    order.insert("remark".into(), json!("改期到货"));
    let (s, v) = post(&app, &t, &format!("{W}/order/rk/submit"), Value::Object(order)).await;
    assert_eq!(s, 200, "the whole record sent back: {v}");
}

/// 库存盘点: a count sheet of a store's bins posts every difference to or from 盘点损溢 in one transaction, with
/// the sheet's reason on the stock card; a difference needs a reason; a row of another store, a staging area or
/// a count below what is reserved refuses the whole sheet.
#[tokio::test]
async fn a_count_sheet_posts_its_differences_together() {
    let app = App::new();
    let t = app.admin(A).await;
    let (store, bins, goods) = depot(&app, &t, "C", 2, &["纸面石膏板", "轻钢龙骨"]).await;
    stock_in(&app, &t, &store, &[(&goods[0], "20", "B1"), (&goods[1], "8", "K1")], &bins[0]).await;
    let (other, obins, ogoods) = depot(&app, &t, "D", 1, &["乳胶漆"]).await;
    stock_in(&app, &t, &other, &[(&ogoods[0], "3", "")], &obins[0]).await;
    let rows = |v: &Value| v["data"]["records"].as_array().cloned().unwrap_or_default();
    let (_, v) = get(&app, &t, &format!("{W}/stockdata/list?storeId={store}&size=50")).await;
    let in_bin = |g: &str| rows(&v).into_iter().find(|r| r["goodsId"] == g && r["spaceId"].as_str().is_some_and(|s| s != "0")).unwrap();
    let (gypsum, keel) = (in_bin(&goods[0]), in_bin(&goods[1]));
    let staging = rows(&v).into_iter().find(|r| r["spaceId"].as_str().is_none_or(|s| s == "0")).unwrap();
    let (_, ov) = get(&app, &t, &format!("{W}/stockdata/list?storeId={other}&size=50")).await;
    let foreign = rows(&ov).into_iter().find(|r| r["spaceId"].as_str().is_some_and(|s| s != "0")).unwrap();
    let sheet = |reason: &str, rows: Value| json!({"storeId": store, "reason": reason, "rows": rows});
    let count = |body: Value| {
        let (app, t) = (&app, t.clone());
        async move { post(app, &t, &format!("{W}/stockdata/count"), body).await }
    };
    // A difference without a reason, another store's row, a staging area: nothing is posted.
    let (s, v) = count(sheet("", json!([{"id": gypsum["id"], "countedQty": "18"}]))).await;
    assert_eq!((s, msg(&v)), (400, "盘点有差异,请填写差异原因".to_string()), "{v}");
    let (s, v) = count(sheet("月末盘点", json!([{"id": gypsum["id"], "countedQty": "18"}, {"id": foreign["id"], "countedQty": "3"}]))).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("不在本次盘点的仓库"), "{v}");
    let (s, v) = count(sheet("月末盘点", json!([{"id": gypsum["id"], "countedQty": "18"}, {"id": staging["id"], "countedQty": "1"}]))).await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = count(sheet("月末盘点", json!([{"id": gypsum["id"], "countedQty": "-1"}]))).await;
    assert_eq!(s, 400, "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/stockdata/detail?id={}", gypsum["id"].as_str().unwrap())).await;
    assert_eq!(v["data"]["qty"], "20", "a refused sheet moved nothing: {v}");
    // Counted: 2 张 short of 纸面石膏板, 0.5 根 over of 轻钢龙骨, in one sheet.
    let (s, v) = count(sheet("月末盘点:A区破损2张,龙骨多0.5根", json!([{"id": gypsum["id"], "countedQty": "18"}, {"id": keel["id"], "countedQty": "8.5"}]))).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!((v["data"]["rows"].as_u64(), v["data"]["changed"].as_u64(), v["data"]["gain"].as_str(), v["data"]["loss"].as_str()), (Some(2), Some(2), Some("0.5"), Some("2")), "{v}");
    assert!(v["data"]["countNo"].as_str().unwrap().starts_with("PD"), "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/stockdata/detail?id={}", gypsum["id"].as_str().unwrap())).await;
    assert_eq!((v["data"]["qty"].as_str(), v["data"]["countedQty"].as_str(), v["data"]["countReason"].as_str()), (Some("18"), Some("18"), Some("月末盘点:A区破损2张,龙骨多0.5根")), "{v}");
    assert!(v["data"]["countTime"].as_str().is_some_and(|x| x.len() == 19), "{v}");
    let (_, v) = get(&app, &t, &format!("{W}/stockdata/card?goodsId={}&size=50", goods[0])).await;
    let last = rows(&v).last().unwrap().clone();
    assert_eq!((last["docType"].as_str(), last["remark"].as_str(), last["toLoc"].as_str()), (Some("pd"), Some("月末盘点:A区破损2张,龙骨多0.5根"), Some("loss")), "{last}");
    // The same row twice, or books that moved since the sheet was read: refused, naming them.
    let (s, v) = count(sheet("复盘", json!([{"id": gypsum["id"], "countedQty": "0"}, {"id": gypsum["id"], "countedQty": "18"}]))).await;
    assert_eq!((s, msg(&v)), (400, "第 2 行与第 1 行是同一库存行".to_string()), "{v}");
    let (s, v) = count(sheet("复盘", json!([{"id": gypsum["id"], "countedQty": "17", "bookQty": "20"}]))).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("账面数量已变为 18(盘点单上为 20),请刷新后重新盘点"), "{v}");
    let (s, v) = count(sheet("复盘", json!([{"id": gypsum["id"]}]))).await;
    assert_eq!(s, 400, "{v}");
    assert!(msg(&v).contains("rows[1].countedQty"), "{v}");
    // A single row's count (the Saber form: the quantity alone) keeps no earlier reason beside it.
    let (s, v) = post(&app, &t, &format!("{W}/stockdata/submit"), json!({"id": keel["id"], "countedQty": "8.5"})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"]["countReason"], "", "{v}");
    // A sheet that agrees with the books needs no reason.
    let (s, v) = count(sheet("", json!([{"id": gypsum["id"], "countedQty": "18"}]))).await;
    assert_eq!((s, v["data"]["changed"].as_u64()), (200, Some(0)), "{v}");
    // Another tenant's admin cannot count this store's rows.
    let tb = app.admin(B).await;
    let (s, _) = post(&app, &tb, &format!("{W}/stockdata/count"), sheet("x", json!([{"id": gypsum["id"], "countedQty": "1"}]))).await;
    assert_eq!(s, 404);
    audit_clean(&app);
}
