//! First start on an empty data directory: the three tenants with host mappings, the `saber` client, the menu
//! tree and dictionaries from `assets/seed/`, roles (platform super-admin, tenant admin, five technical-worker
//! roles) and one `admin` per tenant. With `--demo`, realistic departments, posts, roles and users too.
//! Passwords come from `ZZ_ADMIN_PASSWORD` or are generated and printed once; only Argon2id hashes are stored.
use std::collections::HashMap;

use serde_json::{Value, json};
use store::{Actor, Store, WriteCtx};

use crate::assets::json as asset;
use crate::auth::password;
use crate::engine::resources::Resources;

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

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// Seeds an empty store; returns the generated credentials (empty when the operator supplied the password, or
/// when the store was already seeded).
pub fn first_start(store: &Store, res: &Resources, admin_password: Option<&str>, demo: bool) -> anyhow::Result<Vec<Issued>> {
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
        store.write(move |w| base(w, &res2, &admins))?;
    }
    if store.read(|r| r.meta("regions_seeded"))?.is_none() {
        let res2 = res.clone();
        store.write(move |w| reference_data(w, &res2))?;
    }
    let res2 = res.clone();
    store.write(move |w| upgrade(w, &res2))?;
    sync_indexes(store, res)?;
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
        store.write(move |w| demo_data(w, &res2, &demo, &hashes))?;
    }
    Ok(issued)
}

fn base(w: &mut WriteCtx, res: &Resources, admins: &[(String, String)]) -> store::Result<()> {
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
        insert_menu(w, &menu_def, node, 0, &mut menus)?;
    }
    let dict_def = res.get("dict");
    for d in asset("seed/dicts.json").as_array().into_iter().flatten() {
        let parent = obj(json!({"parentId": 0, "code": d["code"], "dictKey": "-1", "dictValue": d["dictValue"],
            "dictValueEn": d["dictValueEn"], "sort": d["sort"], "remark": d["remark"], "isSealed": d["isSealed"]}));
        let pid = w.insert(&dict_def, store::PLATFORM_TENANT, parent, &sys)?["id"].clone();
        for c in d["children"].as_array().into_iter().flatten() {
            let child = obj(json!({"parentId": pid, "code": d["code"], "dictKey": c["dictKey"], "dictValue": c["dictValue"],
                "dictValueEn": c["dictValueEn"], "sort": c["sort"], "remark": c["remark"], "isSealed": d["isSealed"]}));
            w.insert(&dict_def, store::PLATFORM_TENANT, child, &sys)?;
        }
    }

    for (tenant, hash) in admins {
        tenant_roles_and_admin(w, res, tenant, hash, &menus)?;
    }
    w.put_meta("seeded", b"1")?;
    Ok(())
}

/// Meta key: the indexed fields of every declaration, as last brought in line.
const INDEX_LAYOUT_META: &str = "index_layout";

/// Secondary indexes follow the declarations: when a version indexes other fields than the one that wrote the
/// file (a field gained or lost `filter`/`sort`/`index`), the entries are added or removed once, at start.
pub fn sync_indexes(store: &Store, res: &Resources) -> anyhow::Result<()> {
    let layout: String = res
        .all()
        .iter()
        .map(|d| format!("{}:{};", d.name, d.indexed_fields().collect::<Vec<_>>().join(",")))
        .collect();
    if store.read(|r| r.meta(INDEX_LAYOUT_META))?.as_deref() == Some(layout.as_bytes()) {
        return Ok(());
    }
    let defs = res.all();
    let started = std::time::Instant::now();
    let changes = store.write(move |w| {
        let mut changes = Vec::new();
        for d in &defs {
            let (removed, added) = w.reconcile_index(d)?;
            if removed + added > 0 {
                changes.push(format!("{} -{removed} +{added}", d.name));
            }
        }
        w.put_meta(INDEX_LAYOUT_META, layout.as_bytes())?;
        Ok(changes)
    })?;
    if !changes.is_empty() {
        tracing::info!(target: "zz::store", ms = started.elapsed().as_millis() as u64, changes = %changes.join(", "), "indexes brought in line with the declarations");
    }
    Ok(())
}

/// Brings platform data made by an earlier version up to this one, at every start, in one transaction: seeded
/// dictionaries and menus that are missing (by code) are added — never changing what an administrator edited —
/// and new menus are granted to the roles whose seed grants them (`all`, `all-but-platform`, or by code). One-off
/// conversions run once each, marked in meta `upgrade:<name>`.
pub fn upgrade(w: &mut WriteCtx, res: &Resources) -> store::Result<()> {
    if w.meta("seeded")?.is_none() {
        return Ok(());
    }
    let sys = Actor::default();
    let dict_def = res.get("dict");
    let have: std::collections::HashSet<String> =
        w.all(&dict_def, store::PLATFORM_TENANT)?.iter().filter_map(|d| d.get("code").and_then(Value::as_str).map(str::to_string)).collect();
    for d in asset("seed/dicts.json").as_array().into_iter().flatten() {
        if have.contains(s(d, "code")) {
            continue;
        }
        let parent = obj(json!({"parentId": 0, "code": d["code"], "dictKey": "-1", "dictValue": d["dictValue"],
            "dictValueEn": d["dictValueEn"], "sort": d["sort"], "remark": d["remark"], "isSealed": d["isSealed"]}));
        let pid = w.insert(&dict_def, store::PLATFORM_TENANT, parent, &sys)?["id"].clone();
        for c in d["children"].as_array().into_iter().flatten() {
            let child = obj(json!({"parentId": pid, "code": d["code"], "dictKey": c["dictKey"], "dictValue": c["dictValue"],
                "dictValueEn": c["dictValueEn"], "sort": c["sort"], "remark": c["remark"], "isSealed": d["isSealed"]}));
            w.insert(&dict_def, store::PLATFORM_TENANT, child, &sys)?;
        }
    }
    let added = add_missing_menus(w, res)?;
    if !added.is_empty() {
        grant_new_menus(w, res, &added)?;
    }
    if w.meta("upgrade:saber_icons")?.is_none() {
        saber_icons(w, res)?;
        w.put_meta("upgrade:saber_icons", b"1")?;
    }
    // The seeded processes (leave, construction approvals), once, for files made before the engine.
    if w.meta("upgrade:flow_seed")?.is_none() {
        let tenants: Vec<String> = w.all(&res.get("tenant"), store::PLATFORM_TENANT)?.iter().filter_map(|t| t.get("tenantId").and_then(Value::as_str).map(str::to_string)).collect();
        for t in tenants {
            crate::api::flow::seed_tenant(w, res, &t)?;
        }
        w.put_meta("upgrade:flow_seed", b"1")?;
    }
    // Files attached before attachments were bound to what they belong to (issue 32): bound now, once, so that
    // downloads follow the approval or work order from the first start of this version.
    if w.meta("upgrade:file_owners")?.is_none() {
        let tenants: Vec<String> = w.all(&res.get("tenant"), store::PLATFORM_TENANT)?.iter().filter_map(|t| t.get("tenantId").and_then(Value::as_str).map(str::to_string)).collect();
        for t in tenants {
            crate::api::flow::approval::bind_files(w, res, &t)?;
            crate::api::worklist::bind_files(w, res, &t)?;
        }
        w.put_meta("upgrade:file_owners", b"1")?;
    }
    // The project cost totals (material issued to projects, day work per construct), for files made before them.
    if w.meta("upgrade:cost_totals")?.is_none() {
        crate::api::finance::cost::rebuild_totals(w, res)?;
        w.put_meta("upgrade:cost_totals", b"1")?;
    }
    Ok(())
}

/// Inserts the seeded menus (and buttons) whose code is not in the store, under the parent of the same code as
/// in the seed. Returns the rows added.
fn add_missing_menus(w: &mut WriteCtx, res: &Resources) -> store::Result<Vec<MenuRow>> {
    let def = res.get("menu");
    let existing: HashMap<String, u64> = w
        .all(&def, store::PLATFORM_TENANT)?
        .iter()
        .filter_map(|m| Some((m.get("code")?.as_str()?.to_string(), m["id"].as_u64()?)))
        .collect();
    let mut added = Vec::new();
    fn walk(w: &mut WriteCtx, def: &store::ResourceDef, nodes: &Value, parent: u64, existing: &HashMap<String, u64>, added: &mut Vec<MenuRow>) -> store::Result<()> {
        for node in nodes.as_array().into_iter().flatten() {
            let id = match existing.get(s(node, "code")) {
                Some(id) => *id,
                None => {
                    let mut one = Vec::new();
                    let mut lone = node.clone();
                    lone["children"] = json!([]);
                    insert_menu(w, def, &lone, parent, &mut one)?;
                    added.extend(one.iter().cloned());
                    one[0].0
                }
            };
            walk(w, def, &node["children"], id, existing, added)?;
        }
        Ok(())
    }
    walk(w, &def, &asset("seed/menus.json"), 0, &existing, &mut added)?;
    Ok(added)
}

/// Grants newly added menus to the seeded roles of every tenant whose seed spec covers them.
fn grant_new_menus(w: &mut WriteCtx, res: &Resources, added: &[MenuRow]) -> store::Result<()> {
    let roles = asset("seed/roles.json");
    let mut specs: HashMap<String, Value> = HashMap::new();
    for g in ["platform", "tenant", "workers"] {
        for r in roles[g].as_array().into_iter().flatten() {
            specs.insert(s(r, "roleAlias").to_string(), r["menus"].clone());
        }
    }
    let role_def = res.get("role");
    let tenants: Vec<String> = w
        .all(&res.get("tenant"), store::PLATFORM_TENANT)?
        .iter()
        .filter_map(|t| t.get("tenantId").and_then(Value::as_str).map(str::to_string))
        .collect();
    for t in tenants {
        for role in w.all(&role_def, &t)? {
            let Some(spec) = specs.get(role.get("roleAlias").and_then(Value::as_str).unwrap_or("")) else { continue };
            // Platform menus go only to the platform tenant's roles.
            let allowed: Vec<MenuRow> = added.iter().filter(|m| !m.2 || t == store::PLATFORM_TENANT).cloned().collect();
            let grant = menu_grant(spec, &allowed);
            if grant.is_empty() {
                continue;
            }
            let mut ids: Vec<Value> = role.get("menuIds").and_then(Value::as_array).cloned().unwrap_or_default();
            ids.extend(grant.into_iter().map(Value::String));
            let patch = obj(json!({"menuIds": ids}));
            w.update(&role_def, &t, role["id"].as_u64().unwrap_or(0), patch, &Actor::default())?;
        }
    }
    Ok(())
}

/// Menu icons as the Saber client's icon font classes (our UI draws its own icons whatever `source` holds).
pub const SABER_ICONS: &[(&str, &str)] = &[
    ("audit", "iconfont iconicon_dispose"),
    ("book", "iconfont iconicon_addresslist"),
    ("box", "iconfont iconicon_cspace"),
    ("build", "iconfont iconicon_compile"),
    ("calendar", "iconfont iconicon_notice"),
    ("chart", "iconfont iconicon_study"),
    ("cloud", "iconfont iconicon_cspace"),
    ("contract", "iconfont iconicon_doc"),
    ("database", "iconfont iconicon_cloud_history"),
    ("file", "iconfont iconicon_doc"),
    ("flow", "iconfont iconicon_send"),
    ("folder", "iconfont iconicon_addresslist"),
    ("global", "iconfont iconicon_GPS"),
    ("home", "iconfont iconicon_airplay"),
    ("key", "iconfont iconicon_mobilephone"),
    ("lock", "iconfont icon-bofangqi-suoping"),
    ("log", "iconfont iconicon_doc"),
    ("menu", "iconfont iconicon_subordinate"),
    ("message", "iconfont iconicon_message"),
    ("money", "iconfont iconicon_coinpurse_line"),
    ("project", "iconfont iconicon_work"),
    ("setting", "iconfont iconicon_setting"),
    ("shop", "iconfont iconicon_coinpurse_line"),
    ("team", "iconfont iconicon_group"),
    ("tool", "iconfont icon-wxbgongju"),
    ("truck", "iconfont iconicon_send"),
    ("user", "iconfont iconicon_principal"),
];

/// Once: seeded menus whose `source` is a bare icon name get the Saber class for it.
fn saber_icons(w: &mut WriteCtx, res: &Resources) -> store::Result<()> {
    let def = res.get("menu");
    for m in w.all(&def, store::PLATFORM_TENANT)? {
        let src = m.get("source").and_then(Value::as_str).unwrap_or("");
        if let Some((_, class)) = SABER_ICONS.iter().find(|(name, _)| *name == src)
            && m["category"].as_i64().unwrap_or(1) == 1 {
            w.update(&def, store::PLATFORM_TENANT, m["id"].as_u64().unwrap_or(0), obj(json!({"source": class})), &Actor::default())?;
        }
    }
    Ok(())
}

/// (id, code, platform) of every seeded menu.
pub type MenuRow = (u64, String, bool);

/// Every menu as a `MenuRow`, for granting role menus by spec.
pub fn menu_rows(w: &WriteCtx, res: &Resources) -> store::Result<Vec<MenuRow>> {
    Ok(w.all(&res.get("menu"), store::PLATFORM_TENANT)?
        .iter()
        .map(|m| (m["id"].as_u64().unwrap_or(0), m.get("code").and_then(Value::as_str).unwrap_or("").to_string(), m["platformOnly"].as_i64() == Some(1)))
        .collect())
}

/// A tenant's roles (the platform super-admin in 000000, the tenant admin and the five technical-worker roles,
/// from `seed/roles.json`) and its `admin` user with the admin role and the given password hash. Used at first
/// start and when the platform administrator creates a tenant. Returns the admin's user id.
pub fn tenant_roles_and_admin(w: &mut WriteCtx, res: &Resources, tenant: &str, hash: &str, menus: &[MenuRow]) -> store::Result<u64> {
    let sys = Actor::default();
    let roles = asset("seed/roles.json");
    let role_def = res.get("role");
    let user_def = res.get("user");
    let mut admin_role = None;
    let groups: &[&str] = if tenant == store::PLATFORM_TENANT { &["platform", "tenant", "workers"] } else { &["tenant", "workers"] };
    for g in groups {
        for r in roles[*g].as_array().into_iter().flatten() {
            let ids = menu_grant(&r["menus"], menus);
            let doc = obj(json!({"roleName": r["roleName"], "roleAlias": r["roleAlias"], "sort": r["sort"], "parentId": 0,
                "isWorker": r["isWorker"].as_bool().unwrap_or(false) as i64, "menuIds": ids}));
            let id = w.insert(&role_def, tenant, doc, &sys)?["id"].as_u64().unwrap_or(0);
            let wanted = if tenant == store::PLATFORM_TENANT { "administrator" } else { "admin" };
            if s(r, "roleAlias") == wanted {
                admin_role = Some(id);
            }
        }
    }
    let user = obj(json!({
        "account": "admin", "name": "管理员", "realName": "管理员", "userType": 1,
        "roleId": admin_role.map(|i| i.to_string()).unwrap_or_default(), "passwordHash": hash, "tokenVersion": 0,
    }));
    let admin = w.insert(&user_def, tenant, user, &sys)?["id"].as_u64().unwrap_or(0);
    crate::api::flow::seed_tenant(w, res, tenant)?;
    Ok(admin)
}

fn insert_menu(w: &mut WriteCtx, def: &store::ResourceDef, node: &Value, parent: u64, out: &mut Vec<MenuRow>) -> store::Result<()> {
    let platform = node["platform"].as_bool().unwrap_or(false);
    let doc = obj(json!({
        "parentId": parent, "code": node["code"], "name": node["name"], "nameEn": node["nameEn"], "alias": node["alias"],
        "path": node["path"], "source": node["source"], "sort": node["sort"], "category": node["category"],
        "action": node["action"], "isOpen": node["isOpen"], "platformOnly": platform as i64, "remark": node["remark"],
    }));
    let id = w.insert(def, store::PLATFORM_TENANT, doc, &Actor::default())?["id"].as_u64().unwrap_or(0);
    out.push((id, s(node, "code").to_string(), platform));
    for c in node["children"].as_array().into_iter().flatten() {
        insert_menu(w, def, c, id, out)?;
    }
    Ok(())
}

fn menu_grant(spec: &Value, menus: &[MenuRow]) -> Vec<String> {
    let pick = |f: &dyn Fn(&MenuRow) -> bool| menus.iter().filter(|m| f(m)).map(|m| m.0.to_string()).collect();
    match spec {
        Value::String(s) if s == "all" => pick(&|_| true),
        Value::String(s) if s == "all-but-platform" => pick(&|m| !m.2),
        Value::Array(codes) => {
            let want: Vec<&str> = codes.iter().filter_map(Value::as_str).collect();
            pick(&|m| want.contains(&m.1.as_str()) && !m.2)
        }
        _ => Vec::new(),
    }
}

fn demo_data(w: &mut WriteCtx, res: &Resources, demo: &Value, hashes: &HashMap<String, String>) -> store::Result<()> {
    let sys = Actor::default();
    let menus = menu_rows(w, res)?;
    for (tenant, d) in demo.as_object().into_iter().flatten() {
        let mut depts = HashMap::new();
        for node in d["depts"].as_array().into_iter().flatten() {
            insert_dept(w, res, tenant, node, 0, "0", &mut depts)?;
        }
        let mut posts = HashMap::new();
        for p in d["posts"].as_array().into_iter().flatten() {
            let doc = obj(json!({"postCode": p["postCode"], "postName": p["postName"], "category": p["category"], "sort": p["sort"]}));
            posts.insert(s(p, "postCode").to_string(), w.insert(&res.get("post"), tenant, doc, &sys)?["id"].as_u64().unwrap_or(0));
        }
        for p in d["params"].as_array().into_iter().flatten() {
            let doc = obj(json!({"paramName": p["paramName"], "paramKey": p["paramKey"], "paramValue": p["paramValue"], "remark": p["remark"]}));
            w.insert(&res.get("param"), tenant, doc, &sys)?;
        }
        let role_def = res.get("role");
        let mut roles: HashMap<String, u64> = HashMap::new();
        for r in w.all(&role_def, tenant)? {
            roles.insert(r["roleAlias"].as_str().unwrap_or("").to_string(), r["id"].as_u64().unwrap_or(0));
        }
        for r in d["roles"].as_array().into_iter().flatten() {
            let doc = obj(json!({"roleName": r["roleName"], "roleAlias": r["roleAlias"], "sort": r["sort"], "parentId": 0,
                "isWorker": 0, "menuIds": menu_grant(&r["menus"], &menus)}));
            roles.insert(s(r, "roleAlias").to_string(), w.insert(&role_def, tenant, doc, &sys)?["id"].as_u64().unwrap_or(0));
        }
        let mut leaders = std::collections::HashSet::new();
        for u in d["users"].as_array().into_iter().flatten() {
            let role_ids: Vec<String> = u["roles"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|a| a.as_str().and_then(|a| roles.get(a)))
                .map(|i| i.to_string())
                .collect();
            let dept = depts.get(s(u, "dept")).map(|i: &u64| i.to_string()).unwrap_or_default();
            let post = posts.get(s(u, "post")).map(|i| i.to_string()).unwrap_or_default();
            let doc = obj(json!({
                "account": u["account"], "name": u["name"], "realName": u["realName"], "phone": u["phone"], "email": u["email"],
                "sex": u["sex"], "birthday": u["birthday"], "deptId": dept, "postId": post, "roleId": role_ids.join(","),
                "userType": 1, "passwordHash": hashes.get(s(u, "account")), "tokenVersion": 0,
            }));
            let actor = Actor { user_id: 0, dept_id: dept.parse().unwrap_or(0), at: None };
            let uid = w.insert(&res.get("user"), tenant, doc, &actor)?["id"].as_u64().unwrap_or(0);
            // The first person listed in a department leads it (approvals go to department leaders).
            if let Some(d) = depts.get(s(u, "dept"))
                && leaders.insert(*d) {
                w.update(&res.get("dept"), tenant, *d, obj(json!({"leaderId": uid})), &Actor::default())?;
            }
        }
        if tenant != store::PLATFORM_TENANT {
            demo_business(w, res, tenant)?;
            crate::api::flow::demo::seed(w, res, tenant)?;
        }
    }
    w.put_meta("demo_seeded", b"1")?;
    Ok(())
}

fn insert_dept(
    w: &mut WriteCtx,
    res: &Resources,
    tenant: &str,
    node: &Value,
    parent: u64,
    ancestors: &str,
    out: &mut HashMap<String, u64>,
) -> store::Result<()> {
    let doc = obj(json!({"parentId": parent, "ancestors": ancestors, "deptName": node["deptName"], "fullName": node["fullName"],
        "deptCategory": node["deptCategory"], "sort": node["sort"]}));
    let id = w.insert(&res.get("dept"), tenant, doc, &Actor::default())?["id"].as_u64().unwrap_or(0);
    out.insert(s(node, "code").to_string(), id);
    let next = format!("{ancestors},{id}");
    for c in node["children"].as_array().into_iter().flatten() {
        insert_dept(w, res, tenant, c, id, &next, out)?;
    }
    Ok(())
}

/// Platform reference data added once (also to data files made before it existed): China's provincial-level
/// divisions and prefecture-level cities (GB/T 2260 codes, `seed/regions.json`) and the predefined reports.
fn reference_data(w: &mut WriteCtx, res: &Resources) -> store::Result<()> {
    let sys = Actor::default();
    let def = res.get("region");
    let regions = asset("seed/regions.json");
    for (i, p) in regions["regions"].as_array().into_iter().flatten().enumerate() {
        let code = s(p, "code");
        let doc = obj(json!({"code": code, "parentCode": "00", "ancestors": "00", "name": p["name"], "regionLevel": 1, "sort": i + 1}));
        w.insert(&def, store::PLATFORM_TENANT, doc, &sys)?;
        for (j, c) in p["children"].as_array().into_iter().flatten().enumerate() {
            let doc = obj(json!({"code": c["code"], "parentCode": code, "ancestors": format!("00,{code}"), "name": c["name"], "regionLevel": 2, "sort": j + 1}));
            w.insert(&def, store::PLATFORM_TENANT, doc, &sys)?;
        }
    }
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
fn demo_business(w: &mut WriteCtx, res: &Resources, tenant: &str) -> store::Result<()> {
    let sys = Actor::default();
    let ins = |w: &mut WriteCtx, name: &str, v: Value| -> store::Result<u64> { Ok(w.insert(&res.get(name), tenant, obj(v), &sys)?["id"].as_u64().unwrap_or(0)) };
    demo_catalogue(w, res, tenant)?;
    let (city, other) = if tenant == "157270" { ("南京", "苏州") } else { ("杭州", "宁波") };
    let mut companies = Vec::new();
    for (name, kind, contact, phone) in [
        (format!("{city}分公司"), 1, "周建国", "13905150001"),
        (format!("{other}分公司"), 1, "钱海波", "13905150002"),
        (format!("{city}恒安建设劳务有限公司"), 2, "孙永福", "13905150003"),
    ] {
        companies.push(ins(w, "company", json!({"companyName": name, "companyType": kind, "contactName": contact, "contactPhone": phone, "address": format!("{city}市建邺区江东中路")}))?);
    }
    let mut customers = Vec::new();
    for (name, kind, contact, phone) in [
        ("陈志远", 1, "陈志远", "13770001101"), ("刘雅婷", 1, "刘雅婷", "13770001102"), ("万科地产华东区域", 3, "黄经理", "13770001103"),
        ("华润置地", 3, "吴经理", "13770001104"), ("江宁区教育局", 4, "赵科长", "13770001105"), ("星巴克企业管理(中国)有限公司", 2, "林女士", "13770001106"),
    ] {
        customers.push(ins(w, "customer", json!({"customerName": name, "customerType": kind, "contactName": contact, "phone": phone, "address": format!("{city}市")}))?);
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
        if let Some(role) = trade_roles.get(i).and_then(|a| role_of(a)) {
            let user = ins(w, "user", json!({"account": format!("gr{phone}"), "name": name, "realName": name, "phone": phone, "userType": 1, "roleId": role.to_string(), "passwordHash": "!", "tokenVersion": 0}))?;
            doc["userId"] = json!(user);
        }
        workers.push(ins(w, "worker", doc)?);
    }
    let managers: Vec<u64> = users.iter().filter(|u| u["roleId"].as_str().is_some()).filter_map(|u| u["id"].as_u64()).take(4).collect();
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
    let pdef = res.get("project");
    // A project's records carry the time they were made — its contracts and documents on its start day, a
    // progress report on the day reported, a clock-in at its time — in the product's zone (+08:00), so lists,
    // history tabs and date filters read as a kept company's. `when`: `yyyy-MM-dd[ HH:mm:ss]`.
    // A time still to come (a node's planned day, today's later hours) is recorded as now.
    let dated = |when: &str| crate::api::flow::runtime::seed_as(sys, when).0;
    let ins_at = |w: &mut WriteCtx, name: &str, v: Value, when: &str| -> store::Result<u64> { Ok(w.insert(&res.get(name), tenant, obj(v), &dated(when))?["id"].as_u64().unwrap_or(0)) };
    let today_d = chrono::Local::now().date_naive();
    let today = today_d.format("%Y-%m-%d").to_string();
    // Today and the four days before it.
    let mut clocked = std::collections::HashSet::new();
    let days: Vec<String> = (0..5).map(|d| (today_d - chrono::TimeDelta::days(d)).format("%Y-%m-%d").to_string()).collect();
    for (i, (name, bu, cust, comp, start, addr)) in projects.iter().enumerate() {
        let day: String = start.chars().filter(char::is_ascii_digit).collect();
        let status = match i { 0..=3 => 2, 4 => 3, _ => if i % 3 == 0 { 1 } else { 2 } };
        let manager = managers.get(i % managers.len().max(1)).copied();
        let p = w.insert(&pdef, tenant, obj(json!({
            "projectCode": format!("XM{day}-{:04}", i + 1), "projectName": name, "projectCompanyId": companies[*comp],
            "customerId": customers[*cust], "businessUnit": bu, "regionCode": if tenant == "157270" { "320100" } else { "330100" },
            "address": format!("{city}市{addr}"), "startTime": start, "managerId": manager, "projectStatus": status,
            "endTime": if status == 3 { Some(format!("{}-28", &start[..7])) } else { None },
        })), &dated(&format!("{start} 09:{:02}:00", 10 + i * 3)))?["id"].as_u64().unwrap_or(0);
        // Contracts: a main one, a second (supplementary) for every third project; statuses follow the project.
        let n_contracts = if i % 3 == 0 { 2 } else { 1 };
        for c in 0..n_contracts {
            let cstatus = match (status, c) { (3, _) => 3, (1, _) => 0, (_, 1) => 1, _ if i % 5 == 4 => 1, _ => 2 };
            // fen: ¥86,000 plus a spread up to ¥900,000; a supplement adds ¥12,800.
            let amount = 8_600_000_i64 + (i as i64 * 3_751_347) % 90_000_000 + c as i64 * 1_280_000;
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
                "constructCode": format!("SG{day}-{:04}", i * 2 + c + 1), "constructName": if c == 0 { "主体装修施工" } else { "增项施工" },
                "projectId": p, "contractId": contract, "constructMode": 1 + (i % 3), "modelStatus": kstatus,
                "managerId": if kstatus >= 2 { manager } else { None }, "buildings": if *bu == "TOC" { "1栋" } else { "1#,2#" },
                "planStart": start, "planEnd": format!("{}-{:02}-28", &start[..4], (start[5..7].parse::<u32>().unwrap_or(1) + 3).min(12)),
            }), &format!("{start} 11:{:02}:00", 5 + c * 20))?;
            if kstatus >= 2 {
                // 量房: the rooms measured before dispatch (floor area in hundredths of a square metre).
                let rooms = [("客厅", 5400, 4200), ("主卧", 4200, 3600), ("次卧", 3300, 3000), ("厨房", 3000, 2100), ("卫生间", 2400, 1800)];
                let area: i64 = rooms.iter().map(|(_, l, w)| (l * w + 5_000) / 10_000).sum();
                ins_at(w, "measure", json!({"constructId": construct, "measureDate": start, "measurer": (["王工", "李工"][i % 2]),
                    "rooms": rooms.iter().map(|(n, l, w)| json!({"roomName": n, "length": l, "width": w, "height": 2800})).collect::<Vec<_>>(),
                    "roomCount": rooms.len(), "totalArea": area, "measureStatus": 2, "remark": "现场复尺无误"}), &format!("{start} 16:30:00"))?;
            }
            if kstatus >= 3 {
                let mut crew = Vec::new();
                for k in 0..3 {
                    let wk = workers[(i + k * 4) % workers.len()];
                    crew.push(wk);
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
                        let wk = crew[ni % crew.len()];
                        let done = if pct == 100 { Some(format!("{}-{:02}-{:02}", &start[..4], (start[5..7].parse::<u32>().unwrap_or(1) + ni as u32 / 2).min(12), 10 + ni * 3)) } else { None };
                        let task = ins_at(w, "speed_progress", json!({"constructId": construct, "buildingName": b, "nodeKey": node, "workerId": wk, "percent": pct,
                            "planEnd": plan_end, "doneDate": done, "lastReport": done.clone().or_else(|| (pct > 0).then(|| today.clone())), "taskKey": format!("{construct}:{b}:{node}")}),
                            &format!("{start} 17:{:02}:00", 20 + bi * 5 + ni))?;
                        // Reported on the day the node was done; a node under way was last reported today (seeding time).
                        let report = |w: &mut WriteCtx, v: Value, h: u32| match &done {
                            Some(day) => ins_at(w, "progress_report", v, &format!("{day} {h:02}:{:02}:00", 10 + ni * 7)),
                            None => ins(w, "progress_report", v),
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
                                (_, 5) => ("late", Some(format!("{day} 09:{:02}:00", 12 + k * 7))),
                                _ => ("success", Some(format!("{day} 08:{:02}:00", 31 + k * 9))),
                            };
                            let doc = json!({"workerId": wk, "constructId": construct, "attendDate": day, "clockTime": at, "result": result,
                                "distance": at.as_ref().map(|_| 20 + (k * 37 + d * 11) % 180), "dayKey": format!("{wk}:{day}")});
                            // A clock-in is recorded when made; today's awaited ones at seeding.
                            match &at {
                                Some(t) => ins_at(w, "attend_day", doc, t)?,
                                None => ins(w, "attend_day", doc)?,
                            };
                        }
                    }
                    // 整改: one overdue and open, one fixed awaiting verification.
                    ins_at(w, "building_rectification", json!({"projectId": p, "constructId": construct, "buildingName": site[0], "category": 1 + i % 6,
                        "description": (["客厅墙面局部空鼓", "卫生间地漏周边渗水", "厨房墙砖缝宽不一", "插座面板不平整", "柜门缝隙偏大", "顶面乳胶漆色差"][i % 6]),
                        "workerId": crew[0], "deadline": days[3], "rectStatus": 1}), &format!("{} 10:20:00", days[4]))?;
                    ins_at(w, "building_rectification", json!({"projectId": p, "constructId": construct, "buildingName": site[site.len() - 1], "category": 2,
                        "description": "阳台防水层闭水试验渗漏", "workerId": crew[1], "deadline": days[0], "rectStatus": 2, "fixedTime": days[1]}), &format!("{} 15:40:00", days[3]))?;
                }
                for d in 0..2 {
                    let wk = workers[(i + 7 + d) % workers.len()];
                    let days = 100 + 50 * d as i64;
                    let rate = 30000 + 2500 * d as i64;
                    let work_date = format!("{}-{:02}", &start[..7], 10 + d + i % 10);
                    crate::api::scm::insert_day_work(w, res, tenant, obj(json!({"constructId": construct, "workerId": wk, "workDate": work_date,
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
            ins_at(w, "doc", json!({"projectId": p, "docName": format!("{name}{doc}"), "category": cat}), &format!("{start} {:02}:{:02}:00", 10 + k * 3, 5 + i * 4))?;
        }
    }
    // The depot: stores, goods and a few weeks of orders, requisitions landing on the projects under way.
    let under_way: Vec<u64> = w.all(&pdef, tenant)?.iter().filter(|p| p["projectStatus"] == 2).filter_map(|p| p["id"].as_u64()).collect();
    let now = crate::api::flow::runtime::seed_clock().format("%Y-%m-%d %H:%M:%S").to_string(); // the product's zone, as the API dates
    let cx = crate::engine::dialect::Ctx { tenant, actor: &sys, res, now: &now };
    crate::api::wms::demo::demo(w, &cx, city, &under_way)?;
    // The contract ledgers, posted by the tenant's administrator.
    let admin = w.all(&res.get("user"), tenant)?.into_iter().find(|u| u["account"] == "admin").and_then(|u| u["id"].as_u64()).unwrap_or(0);
    let clerk = Actor { user_id: admin, dept_id: 0, at: None };
    crate::api::finance::ledger::demo(w, &crate::engine::dialect::Ctx { tenant, actor: &clerk, res, now: &now })?;
    crate::api::scm::replay_demo(w, &crate::engine::dialect::Ctx { tenant, actor: &clerk, res, now: &now })?;
    crate::api::finance::cost::demo(w, &crate::engine::dialect::Ctx { tenant, actor: &clerk, res, now: &now })?;
    crate::api::worklist::demo(w, &crate::engine::dialect::Ctx { tenant, actor: &clerk, res, now: &now })?;
    crate::api::finance::statistic::demo(w, &crate::engine::dialect::Ctx { tenant, actor: &clerk, res, now: &now })?;
    Ok(())
}
