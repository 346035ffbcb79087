//! Permission codes of a set of roles: the codes of every menu and button granted to any of them. Cached per
//! (tenant, roles) and dropped whenever grants or menus change.
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use serde_json::Value;
use store::{ReadCtx, ResourceDef};

use crate::resources::Resources;

#[derive(Debug, Default)]
pub struct Perms {
    pub codes: HashSet<String>,
    pub menu_ids: HashSet<u64>,
    /// Aliases of the roles that still exist, in the user's order.
    pub aliases: Vec<String>,
}

#[derive(Default)]
pub struct PermCache {
    epoch: AtomicU64,
    map: RwLock<HashMap<String, (u64, Arc<Perms>)>>,
}

impl PermCache {
    /// Changes whenever the cache is invalidated; part of the session cache's stamp.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// Forget everything: call after any change to roles, grants or menus.
    pub fn invalidate(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut m) = self.map.write() {
            m.clear();
        }
    }

    pub fn get_or_compute(
        &self,
        r: &ReadCtx,
        res: &Resources,
        tenant: &str,
        role_ids: &[u64],
    ) -> store::Result<Arc<Perms>> {
        let key = format!("{tenant}:{role_ids:?}");
        let epoch = self.epoch.load(Ordering::SeqCst);
        if let Some((e, p)) = self.map.read().ok().and_then(|m| m.get(&key).cloned()) {
            if e == epoch {
                return Ok(p);
            }
        }
        let p = Arc::new(compute(r, res, tenant, role_ids)?);
        if let Ok(mut m) = self.map.write() {
            if m.len() > 10_000 {
                m.clear();
            }
            m.insert(key, (epoch, p.clone()));
        }
        Ok(p)
    }
}

fn compute(r: &ReadCtx, res: &Resources, tenant: &str, role_ids: &[u64]) -> store::Result<Perms> {
    let role_def = res.get("role");
    let menu_def: Arc<ResourceDef> = res.get("menu");
    let mut granted: HashSet<u64> = HashSet::new();
    let mut all = false;
    let mut aliases = Vec::new();
    for id in role_ids {
        let Some(role) = r.get(&role_def, tenant, *id)? else { continue };
        aliases.push(role.get("roleAlias").and_then(Value::as_str).unwrap_or("").to_string());
        if tenant == store::PLATFORM_TENANT && role.get("roleAlias").and_then(Value::as_str) == Some("administrator") {
            all = true;
        }
        if let Some(ids) = role.get("menuIds").and_then(Value::as_array) {
            granted.extend(ids.iter().filter_map(store::parse_id_value));
        }
    }
    let mut p = Perms { aliases, ..Perms::default() };
    for m in r.all(&menu_def, tenant)? {
        let id = m.get("id").and_then(Value::as_u64).unwrap_or(0);
        if all || granted.contains(&id) {
            p.menu_ids.insert(id);
            if let Some(code) = m.get("code").and_then(Value::as_str) {
                p.codes.insert(code.to_string());
            }
        }
    }
    Ok(p)
}
