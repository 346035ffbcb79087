//! Permission codes of a set of roles: the codes of every menu and button granted to any of them. Cached per
//! (tenant, roles) and dropped whenever grants or menus change.
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use serde_json::Value;
use store::{ReadCtx, ResourceDef};

use crate::decl::Resources;

#[derive(Debug, Default)]
pub struct Perms {
    pub codes: HashSet<String>,
    pub menu_ids: HashSet<u64>,
    /// Aliases of the roles that still exist, in the user's order.
    pub aliases: Vec<String>,
    /// Row-level data scopes by resource name: present only when every role that can read the resource is
    /// limited; a record is visible when any of the grants admits it (see `scope.rs`).
    pub data: HashMap<String, Vec<DataGrant>>,
    /// API scopes by permission code: present only when every role granting the code limits its menu's
    /// routes; the request path must then match one of the patterns.
    pub api: HashMap<String, Vec<String>>,
    /// One of the roles is a technical worker's: such a user may not sign in, and a session of one that became
    /// a worker since ends.
    pub worker: bool,
    /// Per role, when the user holds more than one: the codes it grants and the resources its data scopes limit
    /// (a scope of type 1 does not limit). A record seen through its parent is open when one role reads it
    /// limited neither on it nor on its parents (`scope::opened_by_a_role`).
    pub roles: Vec<RoleView>,
}

/// What one of the user's roles reads and where its data scopes limit it.
#[derive(Debug, Default, Clone)]
pub struct RoleView {
    pub codes: HashSet<String>,
    pub limited: HashSet<String>,
}

/// One data scope granted to a role: type 1 all, 2 own rows, 3 own department, 4 own department and below,
/// 5 the typed rule in `value`; `field` is the column compared (defaults per type).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataGrant {
    pub kind: i64,
    pub field: String,
    pub value: String,
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
        if let Some((e, p)) = self.map.read().ok().and_then(|m| m.get(&key).cloned())
            && e == epoch {
            return Ok(p);
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

    /// Whether a user of these roles holds `code` (a technical worker never does: he cannot sign in).
    pub fn holds(&self, r: &ReadCtx, res: &Resources, tenant: &str, role_ids: &[u64], code: &str) -> store::Result<bool> {
        let p = self.get_or_compute(r, res, tenant, role_ids)?;
        Ok(!p.worker && p.codes.contains(code))
    }

    /// The roles of `tenant` that hold `code` (`holds` of each alone: a user holds it when any of his roles does).
    pub fn roles_holding(&self, r: &ReadCtx, res: &Resources, tenant: &str, code: &str) -> store::Result<Vec<u64>> {
        let mut out = Vec::new();
        for role in r.all(&res.get("role"), tenant)? {
            let id = role.get("id").and_then(store::parse_id_value).unwrap_or(0);
            if id > 0 && self.holds(r, res, tenant, &[id], code)? {
                out.push(id);
            }
        }
        Ok(out)
    }
}

fn ids_of(v: Option<&Value>) -> Vec<u64> {
    match v {
        Some(Value::Array(a)) => a.iter().filter_map(store::parse_id_value).collect(),
        _ => Vec::new(),
    }
}

/// What one role contributes: its codes, its data scopes by resource and its API patterns by menu id.
struct RoleGrants {
    codes: HashSet<String>,
    data: HashMap<String, Vec<DataGrant>>,
    api: HashMap<u64, Vec<String>>,
}

fn compute(r: &ReadCtx, res: &Resources, tenant: &str, role_ids: &[u64]) -> store::Result<Perms> {
    let role_def = res.get("role");
    let menu_def: Arc<ResourceDef> = res.get("menu");
    let (ds_def, as_def) = (res.get("datascope"), res.get("apiscope"));
    let menus = r.all(&menu_def, tenant)?;
    let id_of = |m: &serde_json::Map<String, Value>, k: &str| m.get(k).and_then(store::parse_id_value).unwrap_or(0);
    // The menu a code belongs to: the menu itself, or a button's parent menu.
    let mut owner: HashMap<String, u64> = HashMap::new();
    for m in &menus {
        let code = m.get("code").and_then(Value::as_str).unwrap_or("").to_string();
        let menu = if m.get("category").and_then(Value::as_i64) == Some(2) { id_of(m, "parentId") } else { id_of(m, "id") };
        owner.insert(code, menu);
    }
    let mut p = Perms::default();
    let mut roles = Vec::new();
    for id in role_ids {
        let Some(role) = r.get(&role_def, tenant, *id)? else { continue };
        let alias = role.get("roleAlias").and_then(Value::as_str).unwrap_or("").to_string();
        let all = tenant == store::PLATFORM_TENANT && alias == "administrator";
        p.worker |= role.get("isWorker").and_then(Value::as_i64) == Some(1);
        p.aliases.push(alias);
        let granted: HashSet<u64> = ids_of(role.get("menuIds")).into_iter().collect();
        let mut g = RoleGrants { codes: HashSet::new(), data: HashMap::new(), api: HashMap::new() };
        for m in &menus {
            let mid = id_of(m, "id");
            let code = m.get("code").and_then(Value::as_str);
            if all || granted.contains(&mid) {
                // The platform's super administrator holds every code, but its menus leave out the business
                // screens it was not granted: the platform tenant holds no company's records.
                if granted.contains(&mid) || !code.is_some_and(|c| crate::assets::business_codes().contains(c)) {
                    p.menu_ids.insert(mid);
                }
                if let Some(code) = code {
                    g.codes.insert(code.to_string());
                }
            }
        }
        if !all {
            for sid in ids_of(role.get("dataScopeIds")) {
                let Some(d) = r.get(&ds_def, tenant, sid)? else { continue };
                let text = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                let grant = DataGrant { kind: d.get("scopeType").and_then(Value::as_i64).unwrap_or(1), field: text("scopeField"), value: text("scopeValue") };
                g.data.entry(text("resourceCode")).or_default().push(grant);
            }
            for aid in ids_of(role.get("apiScopeIds")) {
                let Some(a) = r.get(&as_def, tenant, aid)? else { continue };
                let path = a.get("scopePath").and_then(Value::as_str).unwrap_or("").trim().to_string();
                g.api.entry(id_of(&a, "menuId")).or_default().push(path);
            }
        }
        roles.push(g);
    }
    for g in &roles {
        p.codes.extend(g.codes.iter().cloned());
    }
    if roles.len() > 1 {
        p.roles = roles
            .iter()
            .map(|g| RoleView { codes: g.codes.clone(), limited: g.data.iter().filter(|(_, l)| !l.iter().any(|d| d.kind == 1)).map(|(n, _)| n.clone()).collect() })
            .collect();
    }
    // Data scopes: a role that reads the resource without a scope for it (or with type 1) opens it.
    let resources: HashSet<&String> = roles.iter().flat_map(|g| g.data.keys()).collect();
    for name in resources {
        let open = roles.iter().any(|g| {
            g.data.get(name).map_or(g.codes.contains(name), |list| list.iter().any(|d| d.kind == 1))
        });
        if !open {
            let grants: Vec<DataGrant> = roles.iter().filter_map(|g| g.data.get(name)).flatten().cloned().collect();
            p.data.insert(name.clone(), grants);
        }
    }
    // API scopes: a code stays unrestricted when any role granting it has no API scope for its menu.
    if roles.iter().any(|g| !g.api.is_empty()) {
        for code in &p.codes {
            let menu = owner.get(code).copied().unwrap_or(0);
            let mut patterns = Vec::new();
            let mut open = false;
            for g in roles.iter().filter(|g| g.codes.contains(code)) {
                match g.api.get(&menu) {
                    Some(list) => patterns.extend(list.iter().cloned()),
                    None => open = true,
                }
            }
            if !open {
                p.api.insert(code.clone(), patterns);
            }
        }
    }
    Ok(p)
}

/// `/api/blade-user/page` exact, `/api/blade-user/**` or `/api/blade-user/*` as a prefix; a pattern written
/// without the `/api` prefix (as BladeX stores them) matches too.
pub fn path_matches(pattern: &str, path: &str) -> bool {
    let pattern = pattern.trim();
    if pattern.is_empty() {
        return false;
    }
    let candidates = [path, path.strip_prefix("/api").unwrap_or(path)];
    candidates.iter().any(|p| {
        if let Some(base) = pattern.strip_suffix("/**").or_else(|| pattern.strip_suffix("/*")) {
            *p == base || p.strip_prefix(base).is_some_and(|rest| rest.starts_with('/'))
        } else if let Some(base) = pattern.strip_suffix('*') {
            p.starts_with(base)
        } else {
            *p == pattern
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn api_patterns() {
        use super::path_matches as m;
        assert!(m("/api/blade-user/page", "/api/blade-user/page"));
        assert!(!m("/api/blade-user/page", "/api/blade-user/pages"));
        assert!(m("/api/blade-user/**", "/api/blade-user/detail"));
        assert!(m("/blade-user/**", "/api/blade-user/detail"));
        assert!(!m("/api/blade-user/**", "/api/blade-users/x"));
        assert!(m("/api/blade-user/de*", "/api/blade-user/detail"));
        assert!(!m("", "/api/blade-user/detail"));
    }
}
