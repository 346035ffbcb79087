//! A data file's platform data, at every start: on an empty data directory the three tenants with host mappings,
//! the `saber` client, the menu tree and dictionaries from `assets/seed/`, roles and one `admin` per tenant
//! (`tenant`), the reference data, upgrades of what older versions wrote (`upgrade`) — after the indexes are
//! brought in line with the declarations (`engine::layout`, which the logs' file goes through too) — and with
//! `--demo` a company's people (`people`) and each area's demo data (`api::Area::demo`). Passwords come from
//! `ZZ_ADMIN_PASSWORD` or are generated and printed once; only Argon2id hashes are stored.
mod people;
mod tenant;
mod upgrade;

pub use crate::engine::layout::sync_indexes;
pub use tenant::{MenuRow, menu_rows, tenant_roles_and_admin};
pub use upgrade::{SABER_ICONS, upgrade};

use std::collections::HashMap;

use serde_json::{Value, json};
use store::{Actor, Store, WriteCtx};

use crate::assets::json as asset;
use crate::auth::password;
use crate::decl::Resources;

pub const TENANTS: &[(&str, &str, &str, &str)] = &[
    ("000000", "管理平台", "Platform", "platform.localhost"),
    ("157270", "教育系统", "Education system", "edu.localhost"),
    ("741487", "智装云", "Zhizhuang cloud", "cloud.localhost"),
];

/// A credential created at seeding, to show the operator once.
pub struct Issued {
    pub tenant: String,
    pub account: String,
    pub password: String,
}

use crate::engine::rec::obj;

pub(crate) fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// Seeds an empty store; returns the generated credentials (empty when the operator supplied the password, or
/// when the store was already seeded). `admin_must_change`: the first administrators must replace the password
/// at their first sign-in (an install's generated password, which the environment file keeps readable to root).
pub fn first_start(store: &Store, res: &Resources, admin_password: Option<&str>, demo: bool, admin_must_change: bool) -> anyhow::Result<Vec<Issued>> {
    // Before anything below writes: a resource's index of a newly indexed field is filled only when no entry of
    // that field exists yet, so a record the upgrade adds first would leave the older records out of it.
    sync_indexes(store, res)?;
    let seeded = store.read(|r| r.meta("seeded"))?.is_some();
    let mut issued = Vec::new();
    if !seeded {
        let mut admins = Vec::new();
        for (t, ..) in TENANTS {
            let pw = admin_password.map(str::to_string).unwrap_or_else(password::random_password);
            if admin_password.is_none() {
                issued.push(Issued { tenant: t.to_string(), account: "admin".into(), password: pw.clone() });
            }
            admins.push((t.to_string(), password::hash(&password::md5_hex(&pw))));
        }
        let res2 = res.clone();
        store.write(move |w| base(w, &res2, &admins, admin_must_change))?;
    }
    if store.read(|r| r.meta("regions_seeded"))?.is_none() {
        let res2 = res.clone();
        store.write(move |w| reference_data(w, &res2))?;
    }
    let res2 = res.clone();
    store.write(move |w| upgrade(w, &res2))?;
    let demo_done = store.read(|r| r.meta("demo_seeded"))?.is_some();
    if demo && !demo_done {
        let pw = admin_password.map(str::to_string).unwrap_or_else(password::random_password);
        let demo = asset("seed/demo.json");
        let mut hashes = HashMap::new();
        for (_, d) in demo.as_object().into_iter().flatten() {
        for u in d["users"].as_array().into_iter().flatten() {
                hashes.insert(s(u, "account").to_string(), password::hash(&password::md5_hex(&pw)));
            }
        }
        if admin_password.is_none() {
            issued.push(Issued { tenant: "*".into(), account: "(demo users)".into(), password: pw });
        }
        let res2 = res.clone();
        store.write(move |w| people::demo_data(w, &res2, &demo, &hashes))?;
    }
    Ok(issued)
}

fn base(w: &mut WriteCtx, res: &Resources, admins: &[(String, String)], must_change: bool) -> store::Result<()> {
    let sys = Actor::default();
    let tenant_def = res.get("tenant");
    for (id, name, name_en, domain) in TENANTS {
        let doc = obj(json!({"tenantId": id, "tenantName": name, "nameEn": name_en, "domain": domain, "accountNumber": -1}));
        w.insert(&tenant_def, store::PLATFORM_TENANT, doc, &sys)?;
    }
    let client = obj(json!({
        "clientId": "saber", "clientSecret": crate::auth::token::client_secret_hash("saber_secret"),
        "scope": "all", "authorizedGrantTypes": "refresh_token,password,captcha,social",
        "accessTokenValidity": 1800, "refreshTokenValidity": 604800,
    }));
    w.insert(&res.get("client"), store::PLATFORM_TENANT, client, &sys)?;

    let menu_def = res.get("menu");
    let mut menus = Vec::new();
    for node in asset("seed/menus.json").as_array().into_iter().flatten() {
        tenant::insert_menu(w, &menu_def, node, 0, &mut menus)?;
    }
    let dict_def = res.get("dict");
    for d in asset("seed/dicts.json").as_array().into_iter().flatten() {
        insert_dict(w, &dict_def, d, &sys)?;
    }

    for (tenant, hash) in admins {
        tenant::tenant_roles_and_admin(w, res, tenant, hash, &menus, must_change)?;
    }
    w.put_meta("seeded", b"1")?;
    Ok(())
}

/// One system dictionary of `seed/dicts.json` (its parent row and its entries), for the platform.
pub(crate) fn insert_dict(w: &mut WriteCtx, dict_def: &store::ResourceDef, d: &Value, sys: &Actor) -> store::Result<()> {
    let parent = obj(json!({"parentId": 0, "code": d["code"], "dictKey": "-1", "dictValue": d["dictValue"],
        "dictValueEn": d["dictValueEn"], "sort": d["sort"], "remark": d["remark"], "isSealed": d["isSealed"]}));
    let pid = w.insert(dict_def, store::PLATFORM_TENANT, parent, sys)?["id"].clone();
    for c in d["children"].as_array().into_iter().flatten() {
        let child = obj(json!({"parentId": pid, "code": d["code"], "dictKey": c["dictKey"], "dictValue": c["dictValue"],
            "dictValueEn": c["dictValueEn"], "sort": c["sort"], "remark": c["remark"], "isSealed": d["isSealed"]}));
        w.insert(dict_def, store::PLATFORM_TENANT, child, sys)?;
    }
    Ok(())
}

/// China's divisions of `seed/regions.json` (provinces, prefecture-level cities, county-level districts) into the
/// platform's region table; with `only_missing`, those whose code is not there yet (an upgrade: an administrator's
/// edits stay as they are).
pub(crate) fn regions(w: &mut WriteCtx, res: &Resources, only_missing: bool) -> store::Result<usize> {
    let sys = Actor::default();
    let def = res.get("region");
    let regions = asset("seed/regions.json");
    let mut added = 0;
    let mut put = |w: &mut WriteCtx, code: &str, parent: &str, ancestors: String, name: &Value, level: i64, sort: usize| -> store::Result<()> {
        if only_missing && w.find_unique(&def, store::PLATFORM_TENANT, "code", code)?.is_some() {
            return Ok(());
        }
        let doc = obj(json!({"code": code, "parentCode": parent, "ancestors": ancestors, "name": name, "regionLevel": level, "sort": sort}));
        w.insert(&def, store::PLATFORM_TENANT, doc, &sys)?;
        added += 1;
        Ok(())
    };
    for (i, p) in regions["regions"].as_array().into_iter().flatten().enumerate() {
        let code = s(p, "code");
        put(w, code, "00", "00".into(), &p["name"], 1, i + 1)?;
        for (j, c) in p["children"].as_array().into_iter().flatten().enumerate() {
            let city = s(c, "code");
            put(w, city, code, format!("00,{code}"), &c["name"], 2, j + 1)?;
            for (k, d) in c["children"].as_array().into_iter().flatten().enumerate() {
                put(w, s(d, "code"), city, format!("00,{code},{city}"), &d["name"], 3, k + 1)?;
            }
        }
    }
    Ok(added)
}

/// Platform reference data added once (also to data files made before it existed): China's divisions down to
/// the county level (`seed/regions.json`, see `regions`) and the predefined reports.
fn reference_data(w: &mut WriteCtx, res: &Resources) -> store::Result<()> {
    let sys = Actor::default();
    regions(w, res, false)?;
    let report = res.get("report");
    for (name, category, source, remark) in [
        ("项目统计报表", "project", "project", "各业务单元的项目数量与完成情况"),
        ("合同台账报表", "finance", "contract_ledger", "合同金额、已收款与应收款"),
        ("考勤统计报表", "attendance", "attend_day", "工人出勤天数与迟到次数"),
        ("库存汇总报表", "wms", "stockdata", "各仓库的库存数量"),
    ] {
        w.insert(&report, store::PLATFORM_TENANT, obj(json!({"name": name, "category": category, "source": source, "remark": remark})), &sys)?;
    }
    w.put_meta("regions_seeded", b"1")?;
    Ok(())
}

