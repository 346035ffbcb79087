//! Declarations, the lowest layer of the app (below state, auth and the engine; it imports none of them): the
//! registry of declared resources — the built-in ones loaded from `assets/resources/<area>/*.json` at start-up,
//! plus resources generated at runtime by the code generator (`blade-develop/code/gen-code`), which are kept in
//! the data file and added back when a server opens it — and their route dialects (`api`). Each declaration
//! drives storage, the generic API, list filters and sorts, the search index and the field schema the UI renders.
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use serde_json::Value;
use store::ResourceDef;

pub mod api;
pub mod screens;

use crate::assets::Assets;
use api::ApiDecl;

pub use screens::screens;

/// Meta key holding the generated declarations (a JSON array).
pub const GENERATED_META: &str = "generated_resources";

#[derive(Clone)]
pub struct Resources {
    by_name: Arc<RwLock<HashMap<String, Arc<ResourceDef>>>>,
    generated: Arc<RwLock<Vec<String>>>,
    /// The route dialects of built-in declarations (`api`), parsed and checked once at load.
    decls: Arc<HashMap<String, Arc<ApiDecl>>>,
    /// For each resource, the (resource, field) pairs of built-in declarations that refer to its records.
    referrers: Arc<HashMap<String, Vec<Referrer>>>,
    /// The declared access lists (`access`).
    access: Arc<Vec<Access>>,
    /// For each resource, the joins a tool form's picker of it is narrowed through (`Through`).
    throughs: Arc<HashMap<String, Vec<Through>>>,
}

/// A picker narrowed through a join (`"within": {"constructId": "construct_worker.constructId"}` on a tool form's
/// field: the workers of the chosen construct's crew; `{"goodsId": "stockdata.goodsId"}` on a declared field: the
/// bins holding the chosen goods): the join resource, its indexed reference filter matched to the form's choice
/// (`by`, referring to `parent`), and its field naming the picked records (`key`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Through {
    pub join: String,
    pub by: String,
    pub parent: String,
    pub key: String,
}

/// A declaration and its field that refers to another resource's records.
pub type Referrer = (Arc<ResourceDef>, String);

/// A declared access list (`access` of a declaration): the resource whose records grant access, its field naming
/// the user and its field listing the granted ids, and the resource they grant access to.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Access {
    #[serde(skip)]
    pub list: String,
    pub user: String,
    pub grants: String,
    pub to: String,
    /// The field by which other records name one of `to` (and so are limited with it).
    pub by: String,
}

impl Resources {
    /// Loads every embedded declaration; a bad one stops start-up with its name.
    pub fn load() -> anyhow::Result<Resources> {
        let mut by_name = HashMap::new();
        let mut decls = HashMap::new();
        for path in Assets::iter().filter(|p| p.starts_with("resources/") && p.ends_with(".json")) {
            let file = Assets::get(&path).ok_or_else(|| anyhow::anyhow!("missing {path}"))?;
            let def: ResourceDef =
                serde_json::from_slice(&file.data).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
            def.check().map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
            check_exact_filters(&def).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
            if let Some(d) = ApiDecl::of(&def).map_err(|e| anyhow::anyhow!("{path}: {e}"))? {
                decls.insert(def.name.clone(), Arc::new(d));
            }
            by_name.insert(def.name.clone(), Arc::new(def));
        }
        let mut referrers: HashMap<String, Vec<Referrer>> = HashMap::new();
        let mut throughs: HashMap<String, Vec<Through>> = HashMap::new();
        for def in by_name.values() {
            for f in def.fields.iter().filter_map(|f| f.refers.as_ref().map(|r| (f, r))) {
                if !by_name.contains_key(f.1) {
                    anyhow::bail!("{}: field {} refers to undeclared resource {}", def.name, f.0.name, f.1);
                }
                // `ui.carry` names fields of the named record to show beside the id, under keys not declared here.
                for (key, field) in f.0.ui.as_ref().and_then(|u| u.get("carry")).and_then(Value::as_object).into_iter().flatten() {
                    let target = &by_name[f.1];
                    if def.field(key).is_some() || !field.as_str().and_then(|n| target.field(n)).is_some_and(|t| !t.secret) {
                        anyhow::bail!("{}: field {}'s ui.carry {key} must be a new key naming a field of {}", def.name, f.0.name, f.1);
                    }
                }
                // `ui.within` narrows the picker by another choice of the same record (合同 by the chosen 项目):
                // each of this record's reference fields names a filter field of the picked resource.
                // A value `<join>.<field>` narrows it through a join instead (源储位 among the bins whose stock rows
                // hold the chosen goods: `"goodsId": "stockdata.goodsId"`).
                for (from, to) in within(f.0) {
                    let target = &by_name[f.1];
                    let from_ref = def.field(&from).filter(|x| x.name != f.0.name).and_then(|x| x.refers.as_deref());
                    if to.contains('.') {
                        let t = through_of(&by_name, f.1, from_ref, &to).ok_or_else(|| {
                            anyhow::anyhow!("{}: field {}'s ui.within {from} → {to} must name another reference field here and <join>.<indexed reference filter> of a resource referring to {} once", def.name, f.0.name, f.1)
                        })?;
                        throughs.entry(f.1.clone()).or_default().push(t);
                        continue;
                    }
                    let ok = from_ref.is_some()
                        && target.field(&to).is_some_and(|t| t.filter && t.indexed() && t.refers.is_some() && !t.secret);
                    if !ok {
                        anyhow::bail!("{}: field {}'s ui.within {from} → {to} must name another reference field here and an indexed reference filter of {}", def.name, f.0.name, f.1);
                    }
                }
                for (field, value) in pick_where(f.0) {
                    let target = &by_name[f.1];
                    if value == i64::MIN || !target.field(&field).is_some_and(|t| t.filter && t.indexed() && matches!(t.kind, store::FieldKind::Int | store::FieldKind::Flag) && !t.secret) {
                        anyhow::bail!("{}: field {}'s ui.pickWhere {field} must name an indexed integer filter of {} with an integer", def.name, f.0.name, f.1);
                    }
                }
                if f.0.ui.as_ref().is_some_and(|u| u.get("holds").is_some()) && (f.1 != "user" || holds(f.0).is_none()) {
                    anyhow::bail!("{}: field {}'s ui.holds must be a permission code, on a field referring to user", def.name, f.0.name);
                }
                referrers.entry(f.1.clone()).or_default().push((def.clone(), f.0.name.clone()));
            }
        }
        // `ui.removeWhen` (and `ui.editWhen`) names a field of the row: declared, or carried from a named record.
        for def in by_name.values() {
            // Files (`ui.control: "files"`): the field that keeps their names is a declared read-only one, and
            // `ui.attach` can only say that they are the record's own (`engine::attachments`).
            for f in def.fields.iter().filter(|f| f.ui.as_ref().is_some_and(|u| u.get("control").and_then(Value::as_str) == Some("files"))) {
                let ui = f.ui.as_ref().cloned().unwrap_or_default();
                let names_ok = ui.get("names").is_none_or(|n| n.as_str().and_then(|n| def.field(n)).is_some_and(|n| n.readonly));
                let attach_ok = ui.get("attach").is_none_or(|a| a == "self");
                if !names_ok || !attach_ok || !matches!(f.kind, store::FieldKind::Text) {
                    anyhow::bail!("{}.{}: a files field is text; ui.names names a declared read-only field, ui.attach is \"self\"", def.name, f.name);
                }
            }
            if let Some(f) = def.fields.iter().find(|f| f.derived && !f.readonly) {
                anyhow::bail!("{}.{}: a derived field is kept by the server and must be readonly", def.name, f.name);
            }
            if let Some(ew) = def.ui.as_ref().and_then(|u| u.get("editWhen")) {
                let field = ew.get("field").and_then(Value::as_str).unwrap_or("");
                if def.field(field).is_none() || !ew.get("in").is_some_and(Value::is_array) {
                    anyhow::bail!("{}: ui.editWhen must name a declared field and the values it allows", def.name);
                }
            }
            if let Some(rw) = def.ui.as_ref().and_then(|u| u.get("removeWhen")) {
                let field = rw.get("field").and_then(Value::as_str).unwrap_or("");
                let carried = def.fields.iter().any(|f| f.ui.as_ref().and_then(|u| u.get("carry")).and_then(|c| c.get(field)).is_some());
                if !(def.field(field).is_some() || carried) || !rw.get("in").is_some_and(Value::is_array) {
                    anyhow::bail!("{}: ui.removeWhen must name a field of the row (declared or carried) and the values it allows", def.name);
                }
            }
        }
        // Tool forms' pickers narrowed through a join (`ui.tools[].fields[].within`): the join is declared, refers
        // to the picked resource by exactly one field, and is filtered by an indexed reference field.
        for def in by_name.values() {
            let tools = def.ui.as_ref().and_then(|u| u.get("tools")).and_then(Value::as_array).cloned().unwrap_or_default();
            for f in tools.iter().flat_map(|t| t.get("fields").and_then(Value::as_array).cloned().unwrap_or_default()) {
                let Some(w) = f.get("within") else { continue };
                let target = f.get("refers").and_then(Value::as_str).unwrap_or("");
                for (from, to) in w.as_object().into_iter().flatten() {
                    let bad = || anyhow::anyhow!("{}: a tool field's within {from} → {to} must name another field of the form and <join>.<indexed reference filter> of a resource referring to {target} once", def.name);
                    let from_ref = tools
                        .iter()
                        .flat_map(|t| t.get("fields").and_then(Value::as_array).cloned().unwrap_or_default())
                        .find(|x| x.get("name").and_then(Value::as_str) == Some(from.as_str()))
                        .and_then(|x| x.get("refers").and_then(Value::as_str).map(str::to_string));
                    let t = through_of(&by_name, target, from_ref.as_deref(), to.as_str().unwrap_or("")).ok_or_else(bad)?;
                    throughs.entry(target.to_string()).or_default().push(t);
                }
            }
        }
        let mut access = Vec::new();
        for def in by_name.values() {
            if let Some(v) = &def.access {
                let mut a: Access = serde_json::from_value(v.clone()).map_err(|e| anyhow::anyhow!("{}: access: {e}", def.name))?;
                if def.field(&a.user).is_none() || def.field(&a.grants).is_none() || !by_name.contains_key(&a.to) {
                    anyhow::bail!("{}: access names a field or resource that is not declared", def.name);
                }
                a.list = def.name.clone();
                access.push(a);
            }
        }
        let (decls, referrers, access, throughs) = (Arc::new(decls), Arc::new(referrers), Arc::new(access), Arc::new(throughs));
        Ok(Resources { by_name: Arc::new(RwLock::new(by_name)), generated: Arc::default(), decls, referrers, access, throughs })
    }

    /// A declaration by name, if there is one (names that come from clients).
    pub fn find(&self, name: &str) -> Option<Arc<ResourceDef>> {
        self.try_get(name)
    }

    /// A built-in declaration; the names used in code are covered by a test.
    pub fn get(&self, name: &str) -> Arc<ResourceDef> {
        self.try_get(name).unwrap_or_else(|| panic!("resource {name} is not declared"))
    }

    pub fn try_get(&self, name: &str) -> Option<Arc<ResourceDef>> {
        self.by_name.read().ok().and_then(|m| m.get(name).cloned())
    }

    /// The resources declared `plain`, for `store::Options::plain` of whoever opens the data file to write it.
    pub fn plain_names(&self) -> Vec<String> {
        self.all().iter().filter(|d| d.plain).map(|d| d.name.clone()).collect()
    }

    /// Every declaration, by name.
    pub fn all(&self) -> Vec<Arc<ResourceDef>> {
        let mut v: Vec<Arc<ResourceDef>> = self.by_name.read().map(|m| m.values().cloned().collect()).unwrap_or_default();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }

    /// The route dialect a built-in declaration states, if any (generated resources have none).
    pub fn decl(&self, name: &str) -> Option<Arc<ApiDecl>> {
        self.decls.get(name).cloned()
    }

    /// The joins a picker of `name`'s records may be narrowed through (`Through`).
    pub fn throughs(&self, name: &str) -> &[Through] {
        self.throughs.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The declarations (and their fields) that refer to records of `name`.
    pub fn referrers(&self, name: &str) -> &[Referrer] {
        self.referrers.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The access list that limits records of `def`, and the field of `def` it limits by (`id` for the records the
    /// list grants, or a field naming one): the warehouse's stores and everything kept in a store.
    pub fn access_for(&self, def: &ResourceDef) -> Option<(&Access, String)> {
        self.access.iter().find_map(|a| {
            if def.name == a.list {
                None
            } else if def.name == a.to {
                Some((a, "id".to_string()))
            } else {
                def.field(&a.by).filter(|f| f.refers.as_deref() == Some(a.to.as_str())).map(|f| (a, f.name.clone()))
            }
        })
    }

    /// Every declaration served in a dialect, with its dialect, in name order.
    pub fn declared(&self) -> Vec<(Arc<ResourceDef>, Arc<ApiDecl>)> {
        let mut v: Vec<_> = self.decls.iter().filter_map(|(n, d)| Some((self.try_get(n)?, d.clone()))).collect();
        v.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        v
    }

    /// A generated resource by name (built-in ones are not served through the generated routes).
    pub fn generated(&self, name: &str) -> Option<Arc<ResourceDef>> {
        let is_gen = self.generated.read().map(|g| g.iter().any(|n| n == name)).unwrap_or(false);
        if is_gen { self.try_get(name) } else { None }
    }

    /// Names of the generated resources, in the order they were added.
    pub fn generated_names(&self) -> Vec<String> {
        self.generated.read().map(|g| g.clone()).unwrap_or_default()
    }

    /// Adds (or replaces) a generated declaration. A name of a built-in resource is refused.
    pub fn add_generated(&self, def: ResourceDef) -> Result<(), String> {
        def.check()?;
        check_exact_filters(&def)?;
        let mut gen_names = self.generated.write().map_err(|_| "poisoned".to_string())?;
        let mut map = self.by_name.write().map_err(|_| "poisoned".to_string())?;
        if map.contains_key(&def.name) && !gen_names.contains(&def.name) {
            return Err(format!("{} is a built-in resource", def.name));
        }
        if !gen_names.contains(&def.name) {
            gen_names.push(def.name.clone());
        }
        map.insert(def.name.clone(), Arc::new(def));
        Ok(())
    }

    /// Adds the generated declarations kept in the data file (at start, and for every new `AppState`).
    pub fn load_generated(&self, store: &store::Store) -> anyhow::Result<()> {
        let Some(raw) = store.read(|r| r.meta(GENERATED_META))? else { return Ok(()) };
        let defs: Vec<ResourceDef> = serde_json::from_slice(&raw)?;
        for d in defs {
            let name = d.name.clone();
            self.add_generated(d).map_err(|e| anyhow::anyhow!("generated resource {name}: {e}"))?;
        }
        Ok(())
    }
}

/// The fixed narrowing of a reference field's picker and values (`ui.pickWhere`: `{"partyType": 1}`, a 供应商 among
/// the third parties that are suppliers, not carriers): each a filter field of the picked resource and the integer
/// it must hold. Pickers offer only those records; a write naming another is refused (`rules::check_refs`).
pub fn pick_where(f: &store::FieldDef) -> Vec<(String, i64)> {
    f.ui.as_ref()
        .and_then(|u| u.get("pickWhere"))
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_i64().unwrap_or(i64::MIN))).collect())
        .unwrap_or_default()
}

/// The permission code a person picked for a field must hold (`ui.holds`: a 工单's 处理人 is someone who may open
/// work orders, `worklist_order`; a 复盘's 主持人 one who may open 复盘): pickers offer only such people and a write
/// naming another anew is refused (`crud::check_target`).
pub fn holds(f: &store::FieldDef) -> Option<&str> {
    f.ui.as_ref()?.get("holds")?.as_str().filter(|c| !c.is_empty() && c.len() <= 64 && c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
}

/// A picker of `target` narrowed through `<join>.<by>`: the join is declared, filtered by an indexed reference
/// field `by` referring to what the form's narrowing field refers to (`from_ref`), and refers to `target` by exactly
/// one field (the picked records).
fn through_of(by_name: &HashMap<String, Arc<ResourceDef>>, target: &str, from_ref: Option<&str>, to: &str) -> Option<Through> {
    let (join, by) = to.split_once('.')?;
    let j = by_name.get(join)?;
    let byf = j.field(by).filter(|x| x.filter && x.indexed() && x.refers.is_some() && !x.secret)?;
    let keys: Vec<&store::FieldDef> = j.fields.iter().filter(|x| x.refers.as_deref() == Some(target)).collect();
    if keys.len() != 1 || from_ref.is_none() || from_ref != byf.refers.as_deref() {
        return None;
    }
    Some(Through { join: join.into(), by: by.into(), parent: byf.refers.clone().unwrap_or_default(), key: keys[0].name.clone() })
}

/// What a reference field's picker is narrowed by (`ui.within`): pairs of (a reference field of this record, the
/// field of the picked resource that must equal it). `"projectId"` (the same name on both), `["storeId", "areaId"]`,
/// or `{"toStoreId": "storeId"}`. A contract picked for a ledger filter is one of the chosen project's.
pub fn within(f: &store::FieldDef) -> Vec<(String, String)> {
    let Some(w) = f.ui.as_ref().and_then(|u| u.get("within")) else { return Vec::new() };
    match w {
        Value::String(s) => vec![(s.clone(), s.clone())],
        // A name that is not text is kept as "" so that the load refuses it rather than leaving it out.
        Value::Array(a) => a.iter().map(|s| s.as_str().unwrap_or("")).map(|s| (s.to_string(), s.to_string())).collect(),
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string())).collect(),
        _ => vec![(String::new(), String::new())], // refused at load: names nothing
    }
}

/// A declaration's exact-value filters for its screen (`ui.filters`: `[{"field": ..., "options": [...]}]`, the search
/// form's `<field>_equal` boxes) must name declared filter fields with an index entry: a box the form offers is then
/// answered from the index, never by a walk of the records (a log of millions of entries).
/// Its date range (`ui.dateRange`, the field its users look records up by in time instead of 创建时间) must be an
/// indexed date field: the range is answered from the index. The columns its screen leaves out (`ui.hide`) must be
/// list columns.
fn check_exact_filters(def: &ResourceDef) -> Result<(), String> {
    // Columns a screen leaves out (`ui.hide`) are list fields: 查看 and 导出 still show them.
    if let Some(h) = def.ui.as_ref().and_then(|u| u.get("hide")) {
        for name in h.as_array().ok_or("ui.hide must be a list of fields")? {
            let name = name.as_str().ok_or("ui.hide must be a list of fields")?;
            if !def.field(name).is_some_and(|f| f.list) {
                return Err(format!("ui.hide: {name} is not a list column"));
            }
        }
    }
    if let Some(r) = def.ui.as_ref().and_then(|u| u.get("dateRange")) {
        let name = r.as_str().ok_or("ui.dateRange must name a field")?;
        if !def.field(name).is_some_and(|f| f.filter && f.indexed() && matches!(f.kind, store::FieldKind::Date)) {
            return Err(format!("ui.dateRange: {name} is not an indexed date filter field"));
        }
    }
    let Some(list) = def.ui.as_ref().and_then(|u| u.get("filters")) else { return Ok(()) };
    let list = list.as_array().ok_or("ui.filters must be a list")?;
    for h in list {
        let name = h.get("field").and_then(Value::as_str).ok_or("ui.filters: an entry without a field")?;
        let indexed = def.field(name).is_some_and(|f| f.filter && f.indexed());
        if !indexed {
            return Err(format!("ui.filters: {name} is not an indexed filter field"));
        }
        let option = |o: &Value| o.is_string() || o.as_array().is_some_and(|a| a.len() == 3 && a.iter().all(Value::is_string));
        if h.get("options").is_some_and(|o| !o.as_array().is_some_and(|a| a.iter().all(option))) {
            return Err(format!("ui.filters: {name}'s options must be values or [value, zh, en]"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_filters_name_indexed_filter_fields() {
        let r = Resources::load().unwrap();
        let mut def = (*r.get("log_api")).clone();
        assert!(check_exact_filters(&def).is_ok());
        // requestId is a filter without an index entry (scattered values): a box for it would walk the log.
        def.ui = Some(serde_json::json!({"filters": [{"field": "requestId"}]}));
        assert!(check_exact_filters(&def).unwrap_err().contains("requestId"));
        def.ui = Some(serde_json::json!({"filters": [{"field": "nope"}]}));
        assert!(check_exact_filters(&def).is_err());
        def.ui = Some(serde_json::json!({"filters": [{"field": "method", "options": [["GET", "获取"]]}]}));
        assert!(check_exact_filters(&def).unwrap_err().contains("options"));
        for (bad, why) in [(serde_json::json!(["nope"]), "nope"), (serde_json::json!(["requestId", "userAgent"]), "userAgent"), (serde_json::json!("method"), "list")] {
            def.ui = Some(serde_json::json!({"hide": bad}));
            assert!(check_exact_filters(&def).unwrap_err().contains(why), "{why}");
        }
        def.ui = Some(serde_json::json!({"hide": ["method", "remoteIp"]}));
        assert!(check_exact_filters(&def).is_ok());
        let project = r.get("project");
        assert_eq!(project.ui.as_ref().unwrap()["dateRange"], "startTime", "the project screen's range is 开始时间");
        let mut def = (*project).clone();
        for bad in [serde_json::json!("projectName"), serde_json::json!("remark"), serde_json::json!(1)] {
            def.ui = Some(serde_json::json!({"dateRange": bad}));
            assert!(check_exact_filters(&def).is_err(), "{bad}");
        }
    }

    #[test]
    fn built_in_declarations_load() {
        let r = Resources::load().unwrap();
        for name in [
            "param", "tenant", "client", "user", "role", "menu", "dict", "dictbiz", "dept", "post", "region", "log_usual",
            "log_api", "log_error", "log_login", "oss", "sms", "sms_message", "attach", "notice", "code", "datasource", "report",
            "datascope", "apiscope", "topmenu",
        ] {
            assert_eq!(r.get(name).name, name);
        }
        assert!(r.generated("param").is_none(), "built-ins are not generated resources");
    }
}
