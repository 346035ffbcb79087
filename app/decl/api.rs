//! The route dialect of a declaration (`api`): how its clients call it when that is not the generic Blade shape
//! (see `engine::dialect`, which serves it), parsed and checked once when the declarations load.
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use store::ResourceDef;

/// The largest page a list answers (`size`).
pub const MAX_SIZE: u64 = 1000;

/// The name of a resource's schema in the contract (`contract_ledger` → `ContractLedger`).
pub fn schema_name(resource: &str) -> String {
    resource.split('_').map(|w| {
        let mut c = w.chars();
        c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
    }).collect()
}

/// What a route of a dialect does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    /// A page of records; filters from the query and a JSON or form body (`page`/`current`, `size`).
    List,
    /// Same as `list` (the `GET page` of some services).
    Page,
    /// Insert (an `id` in the body is ignored).
    Add,
    /// Update of the record named by the body's `id`.
    Update,
    /// Insert without an `id`, update with one.
    Save,
    /// The same as `save` at a second path: Saber's generated API files call `submit` for both add and update
    /// where a service also answers `save`.
    Submit,
    /// One record, by `{id}` in the path or `?id=`.
    Detail,
    /// Soft delete of `?ids=` (Blade style).
    Remove,
    /// Soft delete of the records of the path segments.
    Delete,
    /// Soft delete of `{ids}` in the path.
    BatchDelete,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApiDecl {
    /// `/api/blade-scm/project`
    pub base: String,
    /// Other bases serving the same routes, for clients that read the spec's prefixes either way (the work
    /// orders at `/worklist/order` and `/api/blade-biz/worklist/order`).
    #[serde(default)]
    pub also: Vec<String>,
    /// The generic list screen of the resource (a menu path), if it has one.
    #[serde(default)]
    pub screen: Option<String>,
    /// Rows of a list without `size`.
    #[serde(default = "ten")]
    pub page_size: u64,
    /// Action → `"METHOD path"` below the base.
    pub routes: BTreeMap<Action, String>,
    /// List body keys that are not field names → the Blade filter they mean (`startTime` → `startTime_ge`).
    #[serde(default)]
    pub filters: BTreeMap<String, String>,
    /// The `refers` field naming the record this one belongs to (checked by `{parentId}` segments).
    #[serde(default)]
    pub parent: Option<String>,
    /// A code generated per tenant on insert when the client leaves it empty: `XM20261122-0001`.
    #[serde(default)]
    pub code: Option<CodeRule>,
    /// Every insert, update and removal is recorded with who, when and the values before and after
    /// (resource `op_record`).
    #[serde(default)]
    pub history: bool,
    /// The order of a list whose client names none, as Blade sort parameters (`ascs=orderStatus&descs=updateTime,createTime`).
    #[serde(default)]
    pub default_sort: Option<String>,
    /// Records can be imported from Excel (`import-template`, `import`; see `engine::xlsx`).
    #[serde(default)]
    pub import: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CodeRule {
    pub field: String,
    pub prefix: String,
}

fn ten() -> u64 {
    10
}

/// A route of a declaration: method and path below the base.
pub fn split_route(spec: &str) -> Result<(&'static str, &str), String> {
    let (m, p) = spec.trim().split_once(' ').ok_or_else(|| format!("route {spec:?}: \"METHOD path\""))?;
    let method = match m {
        "GET" => "GET",
        "POST" => "POST",
        other => return Err(format!("route {spec:?}: method {other}")),
    };
    Ok((method, p.trim()))
}

impl ApiDecl {
    /// The dialect of a declaration, if it has one; a bad one is an error naming it (checked at start-up).
    pub fn of(def: &ResourceDef) -> Result<Option<ApiDecl>, String> {
        let Some(v) = &def.api else { return Ok(None) };
        let d: ApiDecl = serde_json::from_value(v.clone()).map_err(|e| format!("{}: api: {e}", def.name))?;
        d.check(def).map_err(|e| format!("{}: api: {e}", def.name))?;
        Ok(Some(d))
    }

    fn check(&self, def: &ResourceDef) -> Result<(), String> {
        // `/api/<service>/...` as a rule; the spec's few prefix-less bases (`/worklist/order`) are served as written.
        if !self.base.starts_with('/') || self.base.ends_with('/') || self.base.matches('/').count() < 2 {
            return Err(format!("base {}", self.base));
        }
        if !(1..=MAX_SIZE).contains(&self.page_size) {
            return Err("pageSize".into());
        }
        if let Some(p) = &self.parent
            && def.field(p).and_then(|f| f.refers.as_ref()).is_none() {
            return Err(format!("parent {p} is not a field that refers to records"));
        }
        if let Some(c) = &self.code
            && !def.field(&c.field).is_some_and(|f| f.unique && f.kind == store::FieldKind::Text) {
            return Err(format!("code field {} must be a unique text field", c.field));
        }
        if let Some(s) = &self.default_sort {
            let pairs: Vec<(String, String)> = serde_urlencoded::from_str(s).map_err(|e| format!("defaultSort: {e}"))?;
            for (k, v) in pairs {
                if !matches!(k.as_str(), "ascs" | "descs") || v.split(',').any(|f| !def.is_sortable(f.trim())) {
                    return Err(format!("defaultSort {k}={v}"));
                }
            }
        }
        for (k, v) in &self.filters {
            let field = v.split('_').next().unwrap_or("");
            if !def.is_filterable(field) {
                return Err(format!("filter {k} → {v}"));
            }
        }
        for (action, spec) in &self.routes {
            let (_, path) = split_route(spec)?;
            let holes: Vec<&str> = path.split('/').filter(|s| s.starts_with('{')).collect();
            for h in &holes {
                let name = h.trim_matches(|c| c == '{' || c == '}');
                let field_ok = def.field(name).is_some_and(|f| matches!(f.kind, store::FieldKind::Text | store::FieldKind::Int | store::FieldKind::Flag));
                if !matches!(*h, "{id}" | "{ids}" | "{parentId}") && !(field_ok && matches!(action, Action::Delete | Action::BatchDelete)) {
                    return Err(format!("route {spec}: placeholder {h}"));
                }
                if *h == "{parentId}" && self.parent.is_none() {
                    return Err(format!("route {spec}: {{parentId}} without a parent field"));
                }
            }
            let needs = match action {
                Action::Delete => holes.contains(&"{id}") || holes.contains(&"{ids}"),
                Action::BatchDelete => holes.contains(&"{ids}"),
                Action::Detail => holes.len() <= 1 && holes.iter().all(|h| *h == "{id}"),
                _ => holes.is_empty(),
            };
            if !needs {
                return Err(format!("route {spec}: placeholders do not fit {action:?}"));
            }
        }
        Ok(())
    }

    /// The full path of an action's route.
    pub fn path(&self, a: Action) -> Option<(&'static str, String)> {
        let (m, p) = split_route(self.routes.get(&a)?).ok()?;
        Some((m, format!("{}/{p}", self.base)))
    }

    /// What the UI needs to call the routes: action → `"METHOD /full/path"`, and the parent field.
    pub fn describe(&self) -> Value {
        let routes: Map<String, Value> = self
            .routes
            .keys()
            .filter_map(|a| {
                let (m, p) = self.path(*a)?;
                Some((serde_json::to_value(a).ok()?.as_str()?.to_string(), json!(format!("{m} {p}"))))
            })
            .collect();
        json!({"routes": routes, "parent": self.parent, "pageSize": self.page_size, "import": self.import})
    }
}

