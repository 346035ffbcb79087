//! `--demo`: a company's people in each tenant (departments with their leaders, posts, parameters, roles and
//! users from `seed/demo.json`), then every area's demo data (`api::Area::demo`).
use std::collections::HashMap;

use serde_json::{Value, json};
use store::{Actor, WriteCtx};

use super::s;
use super::tenant::{menu_grant, menu_rows};
use crate::decl::Resources;
use crate::engine::rec::obj;

pub(super) fn demo_data(w: &mut WriteCtx, res: &Resources, demo: &Value, hashes: &HashMap<String, String>) -> store::Result<()> {
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
                "isWorker": 0, "menuIds": menu_grant(&r["menus"], &menus), "dataScopeIds": data_scopes(w, res, &r["dataScopes"], &menus)?}));
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
            // Each area's demo, in the order of `AREAS`: later ones build on earlier ones' records.
            for area in crate::api::AREAS {
                if let Some(demo) = area.demo {
                    demo(w, res, tenant)?;
                }
            }
            crate::engine::messages::demo_in_time_order(w, res, tenant)?;
        }
    }
    w.put_meta("demo_seeded", b"1")?;
    Ok(())
}

/// A demo role's data scopes (`dataScopes`: resourceCode, scopeName, scopeType, scopeField), as the ids of the
/// platform's 数据权限 records, each made once and shared by the tenants' roles (a 员工 sees the work orders he
/// raised or was assigned).
fn data_scopes(w: &mut WriteCtx, res: &Resources, spec: &Value, menus: &[super::tenant::MenuRow]) -> store::Result<Vec<String>> {
    let def = res.get("datascope");
    let mut ids = Vec::new();
    for d in spec.as_array().into_iter().flatten() {
        let same = |r: &serde_json::Map<String, Value>| ["resourceCode", "scopeField", "scopeType"].iter().all(|k| r.get(*k) == d.get(*k));
        let id = match w.all(&def, store::PLATFORM_TENANT)?.into_iter().find(same) {
            Some(r) => r["id"].as_u64().unwrap_or(0),
            None => {
                let menu = menus.iter().find(|m| m.1 == s(d, "resourceCode")).map(|m| m.0.to_string()).unwrap_or_default();
                let doc = obj(json!({"menuId": menu, "resourceCode": d["resourceCode"], "scopeName": d["scopeName"], "scopeType": d["scopeType"],
                    "scopeField": d["scopeField"], "remark": d["remark"]}));
                w.insert(&def, store::PLATFORM_TENANT, doc, &Actor::default())?["id"].as_u64().unwrap_or(0)
            }
        };
        ids.push(id.to_string());
    }
    Ok(ids)
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

