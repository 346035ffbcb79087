//! Brings platform data made by an earlier version up to this one, at every start: missing seeded dictionaries
//! and menus (granted per the role seeds), one-off conversions, and each area's upgrades (`api::Area::upgrades`).
use std::collections::HashMap;

use serde_json::{Value, json};
use store::{Actor, WriteCtx};

use super::s;
use super::tenant::{MenuRow, insert_menu, menu_grant};
use crate::assets::json as asset;
use crate::decl::Resources;
use crate::engine::rec::obj;

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
        super::insert_dict(w, &dict_def, d, &sys)?;
    }
    let added = add_missing_menus(w, res)?;
    if !added.is_empty() {
        grant_new_menus(w, res, &added)?;
    }
    if w.meta("upgrade:saber_icons")?.is_none() {
        saber_icons(w, res)?;
        w.put_meta("upgrade:saber_icons", b"1")?;
    }
    if w.meta("upgrade:oss_per_tenant")?.is_none() {
        oss_per_tenant(w, res)?;
        w.put_meta("upgrade:oss_per_tenant", b"1")?;
    }
    if w.meta("upgrade:region_districts")?.is_none() && w.meta("regions_seeded")?.is_some() {
        // Files seeded with provinces and cities only get the county level (and the municipalities' city level).
        super::regions(w, res, true)?;
        w.put_meta("upgrade:region_districts", b"1")?;
    }
    if w.meta("upgrade:menu_names_en")?.is_none() {
        menu_names_en(w, res)?;
        w.put_meta("upgrade:menu_names_en", b"1")?;
    }
    if w.meta("upgrade:platform_without_business")?.is_none() {
        platform_without_business(w, res)?;
        w.put_meta("upgrade:platform_without_business", b"1")?;
    }
    // Each area's upgrades of what older versions wrote, once each.
    for area in crate::api::AREAS {
        for (key, f) in area.upgrades {
            if w.meta(key)?.is_none() {
                f(w, res)?;
                w.put_meta(key, b"1")?;
            }
        }
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

/// The platform tenant holds no company's records: its seeded administrator role stops listing the business
/// screens (projects, the depot, approvals, WeChat), which could only ever be empty there (issue 31). Once.
fn platform_without_business(w: &mut WriteCtx, res: &Resources) -> store::Result<()> {
    let business = crate::assets::business_codes();
    let menus: HashMap<u64, String> = w
        .all(&res.get("menu"), store::PLATFORM_TENANT)?
        .iter()
        .filter_map(|m| Some((m["id"].as_u64()?, m.get("code")?.as_str()?.to_string())))
        .collect();
    let role_def = res.get("role");
    for role in w.all(&role_def, store::PLATFORM_TENANT)?.into_iter().filter(|r| r.get("roleAlias").and_then(Value::as_str) == Some("administrator")) {
        let ids: Vec<Value> = role.get("menuIds").and_then(Value::as_array).cloned().unwrap_or_default();
        let kept: Vec<Value> = ids.iter().filter(|i| store::parse_id_value(i).and_then(|i| menus.get(&i)).is_none_or(|code| !business.contains(code))).cloned().collect();
        if kept.len() != ids.len() {
            w.update(&role_def, store::PLATFORM_TENANT, role["id"].as_u64().unwrap_or(0), obj(json!({"menuIds": kept})), &Actor::default())?;
        }
    }
    Ok(())
}

/// 对象存储 is each company's own bucket (issue 28): its menu and buttons, platform menus before, become tenant
/// menus, granted to the roles whose seed grants them (the tenants' administrators), never twice.
fn oss_per_tenant(w: &mut WriteCtx, res: &Resources) -> store::Result<()> {
    const CODES: &[&str] = &["oss", "oss_add", "oss_edit", "oss_delete", "oss_view", "oss_enable"];
    let def = res.get("menu");
    let mut rows: Vec<MenuRow> = Vec::new();
    for m in w.all(&def, store::PLATFORM_TENANT)? {
        let code = m.get("code").and_then(Value::as_str).unwrap_or("");
        if !CODES.contains(&code) {
            continue;
        }
        let id = m["id"].as_u64().unwrap_or(0);
        if m["platformOnly"].as_i64() == Some(1) {
            w.update(&def, store::PLATFORM_TENANT, id, obj(json!({"platformOnly": 0})), &Actor::default())?;
        }
        rows.push((id, code.to_string(), false));
    }
    let roles = asset("seed/roles.json");
    let specs: HashMap<String, Value> = roles["tenant"].as_array().into_iter().flatten().map(|r| (s(r, "roleAlias").to_string(), r["menus"].clone())).collect();
    let role_def = res.get("role");
    let tenants: Vec<String> = w.all(&res.get("tenant"), store::PLATFORM_TENANT)?.iter().filter_map(|t| t.get("tenantId").and_then(Value::as_str).map(str::to_string)).collect();
    for t in tenants.iter().filter(|t| *t != store::PLATFORM_TENANT) {
        for role in w.all(&role_def, t)? {
            let Some(spec) = specs.get(role.get("roleAlias").and_then(Value::as_str).unwrap_or("")) else { continue };
            let mut ids: Vec<Value> = role.get("menuIds").and_then(Value::as_array).cloned().unwrap_or_default();
            let before = ids.len();
            for g in menu_grant(spec, &rows) {
                if !ids.iter().any(|v| v.as_str() == Some(g.as_str())) {
                    ids.push(Value::String(g));
                }
            }
            if ids.len() > before {
                w.update(&role_def, t, role["id"].as_u64().unwrap_or(0), obj(json!({"menuIds": ids})), &Actor::default())?;
            }
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
/// English menu names seeded badly by earlier versions, renamed where the administrator left them as seeded.
const MENU_NAMES_EN: &[(&str, &str)] = &[("Speed Progress", "Construction Progress")];

fn menu_names_en(w: &mut WriteCtx, res: &Resources) -> store::Result<()> {
    let def = res.get("menu");
    for m in w.all(&def, store::PLATFORM_TENANT)? {
        let en = m.get("nameEn").and_then(Value::as_str).unwrap_or("");
        if let Some((_, new)) = MENU_NAMES_EN.iter().find(|(old, _)| *old == en) {
            w.update(&def, store::PLATFORM_TENANT, m["id"].as_u64().unwrap_or(0), obj(json!({"nameEn": new})), &Actor::default())?;
        }
    }
    Ok(())
}

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

