//! A tenant's roles, its `admin`, and what every area sets up for a tenant (`api::Area::tenant`): at first start
//! and when the platform administrator creates a tenant. Menus are granted to roles by their seed spec.
use serde_json::{Value, json};
use store::{Actor, WriteCtx};

use super::s;
use crate::assets::json as asset;
use crate::decl::Resources;
use crate::engine::rec::obj;

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
/// start and when the platform administrator creates a tenant. Returns the admin's user id. `must_change`: the
/// password is an installer's, to be replaced at the first sign-in (`Session::must_change_password`).
pub fn tenant_roles_and_admin(w: &mut WriteCtx, res: &Resources, tenant: &str, hash: &str, menus: &[MenuRow], must_change: bool) -> store::Result<u64> {
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
        "mustChangePassword": must_change as i64,
    }));
    let admin = w.insert(&user_def, tenant, user, &sys)?["id"].as_u64().unwrap_or(0);
    for area in crate::api::AREAS {
        if let Some(setup) = area.tenant {
            setup(w, res, tenant)?;
        }
    }
    Ok(admin)
}

pub(super) fn insert_menu(w: &mut WriteCtx, def: &store::ResourceDef, node: &Value, parent: u64, out: &mut Vec<MenuRow>) -> store::Result<()> {
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

pub(super) fn menu_grant(spec: &Value, menus: &[MenuRow]) -> Vec<String> {
    let pick = |f: &dyn Fn(&MenuRow) -> bool| menus.iter().filter(|m| f(m)).map(|m| m.0.to_string()).collect();
    match spec {
        Value::String(s) if s == "all" => pick(&|_| true),
        Value::String(s) if s == "all-but-business" => {
            let business = crate::assets::business_codes();
            pick(&|m| !business.contains(&m.1))
        }
        Value::String(s) if s == "all-but-platform" => pick(&|m| !m.2),
        Value::Array(codes) => {
            let want: Vec<&str> = codes.iter().filter_map(Value::as_str).collect();
            pick(&|m| want.contains(&m.1.as_str()) && !m.2)
        }
        _ => Vec::new(),
    }
}

