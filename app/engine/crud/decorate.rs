//! Records as answers show them: wire form, the labels of dictionary fields and the titles of referenced records.
use std::sync::Arc;

use serde_json::{Map, Value};
use store::ResourceDef;

use crate::error::ApiResult;
use crate::state::AppState;

/// A field's value in wire form as a dictionary label or a referenced record's title is found from it (the same
/// for a decoded record and a stored row).
pub(super) enum Coded<'a> {
    /// Text: one code, or several separated by commas.
    Text(std::borrow::Cow<'a, str>),
    /// A number, as written.
    Number(std::borrow::Cow<'a, str>),
    Nothing,
}

impl<'a> Coded<'a> {
    pub(super) fn of(v: Option<&'a Value>) -> Coded<'a> {
        match v {
            Some(Value::String(s)) => Coded::Text(s.as_str().into()),
            Some(Value::Number(n)) => Coded::Number(n.to_string().into()),
            _ => Coded::Nothing,
        }
    }

    /// The labels of its codes, comma-separated (a number is one code).
    pub(super) fn label(&self, labels: &std::collections::HashMap<String, String>) -> String {
        match self {
            Coded::Text(s) => s.split(',').filter_map(|k| labels.get(k.trim())).cloned().collect::<Vec<_>>().join(","),
            Coded::Number(n) => labels.get(n.as_ref()).cloned().unwrap_or_default(),
            Coded::Nothing => String::new(),
        }
    }

    /// The id it names.
    pub(super) fn id(&self) -> Option<u64> {
        match self {
            Coded::Text(s) | Coded::Number(s) => s.parse().ok(),
            Coded::Nothing => None,
        }
    }
}

/// Display names BladeX returns beside coded values: for every field bound to a dictionary, `<field>Name` holds
/// the entry's label (`deptCategoryName`, `categoryName`, `userTypeName`), so a Blade client's columns show
/// words, not codes. Dictionaries are read once per change (`dict_labels`, stamped with the `dict` version).
pub struct Labels {
    pub(super) by_field: Vec<(String, Arc<std::collections::HashMap<String, String>>)>,
}

impl Labels {
    pub async fn load(st: &AppState, def: &ResourceDef) -> ApiResult<Labels> {
        let mut by_field = Vec::new();
        for f in def.fields.iter().filter(|f| !f.secret) {
            let Some(code) = f.dict.as_deref() else { continue };
            by_field.push((format!("{}Name", f.name), dict_labels(st, code).await?));
        }
        Ok(Labels { by_field })
    }

    pub fn is_empty(&self) -> bool {
        self.by_field.is_empty()
    }

    /// Adds the `<field>Name` keys to a record in wire form (never over a declared field of that name).
    pub fn decorate(&self, rec: &mut Map<String, Value>) {
        for (key, labels) in &self.by_field {
            let field = &key[..key.len() - 4];
            if rec.contains_key(key) {
                continue;
            }
            let label = Coded::of(rec.get(field)).label(labels);
            rec.insert(key.clone(), Value::String(label));
        }
    }
}

/// dictKey → dictValue of one platform dictionary (its English label, `dictValueEn`, when the request is in
/// English and the entry has one), cached until the dictionaries change.
pub async fn dict_labels(st: &AppState, code: &str) -> ApiResult<Arc<std::collections::HashMap<String, String>>> {
    let version = st.store.version("dict");
    let en = crate::error::Lang::current() == crate::error::Lang::En;
    let key = if en { format!("{code}\u{1}en") } else { code.to_string() };
    if let Some(m) = st.dict_labels.get(&key, &version) {
        return Ok(m);
    }
    let entries = crate::engine::dict::entries(st, code).await?;
    let map: std::collections::HashMap<String, String> = entries
        .iter()
        .filter_map(|e| {
            let k = match e.get("dictKey")? {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let en_label = if en { e.get("dictValueEn").and_then(Value::as_str).filter(|s| !s.is_empty()) } else { None };
            Some((k, en_label.or_else(|| e.get("dictValue").and_then(Value::as_str)).unwrap_or("").to_string()))
        })
        .collect();
    let map = Arc::new(map);
    st.dict_labels.put(key, version, map.clone());
    Ok(map)
}

/// A record in wire form with its dictionary labels and the titles of the records it names.
pub async fn decorated(st: &AppState, tenant: &str, def: &ResourceDef, rec: Map<String, Value>) -> ApiResult<Map<String, Value>> {
    Ok(wire_records(st, def, tenant, vec![rec]).await?.pop().unwrap_or_default())
}

/// Records as every answer shows them: wire form (ids as strings, times, money, masks), the labels of their
/// dictionary fields and the titles of the records they name (read once for all of them).
pub async fn wire_records(st: &AppState, def: &ResourceDef, tenant: &str, records: Vec<Map<String, Value>>) -> ApiResult<Vec<Map<String, Value>>> {
    let labels = Labels::load(st, def).await?;
    let refs = Refs::load(st, def, tenant, &records).await?;
    Ok(records
        .into_iter()
        .map(|r| {
            let mut w = crate::wire::record(def, st.settings.zone, r);
            labels.decorate(&mut w);
            refs.decorate(&mut w);
            w
        })
        .collect())
}

/// The sum of the change versions of the resources a declaration refers to (their titles are in its answers).
pub fn refs_version(st: &AppState, def: &ResourceDef) -> u64 {
    def.fields.iter().filter_map(|f| f.refers.as_deref()).map(|r| st.store.version(r)).sum()
}

/// The field that names a record for people: `realName`, else the first text field called `…Name`/`name`/
/// `…Title`/`title`, else the first `…Code` field, else the first `…No` (a document's number).
pub fn title_field(def: &ResourceDef) -> Option<&str> {
    let text = |f: &&store::FieldDef| matches!(f.kind, store::FieldKind::Text) && !f.secret;
    def.field("realName")
        .or_else(|| def.fields.iter().filter(text).find(|f| f.name.ends_with("Name") || f.name == "name" || f.name.ends_with("Title") || f.name == "title"))
        .or_else(|| def.fields.iter().filter(text).find(|f| f.name.ends_with("Code")))
        .or_else(|| def.fields.iter().filter(text).find(|f| f.name.ends_with("No")))
        .map(|f| f.name.as_str())
}

/// The key a reference field's title is carried under beside its id (`projectCompanyId` → `projectCompanyName`).
pub fn title_key(field: &str) -> String {
    format!("{}Name", field.strip_suffix("Id").unwrap_or(field))
}

/// For every `refers` field (`projectCompanyId`), the named record's title beside the id (`projectCompanyName`),
/// as BladeX's VOs carry them: read once for a whole page.
pub struct Refs {
    /// (field, key added, titles by id)
    pub(super) by_field: Vec<(String, String, std::collections::HashMap<u64, String>)>,
}

impl Refs {
    pub async fn load(st: &AppState, def: &ResourceDef, tenant: &str, records: &[Map<String, Value>]) -> ApiResult<Refs> {
        let wanted = Self::wanted(st, def, |field| records.iter().filter_map(|r| r.get(field).and_then(Value::as_u64)).collect());
        Self::fetch(st, tenant, wanted).await
    }

    /// For stored rows read without decoding (the ids as the decoded records would give them).
    pub async fn load_rows(st: &AppState, def: &ResourceDef, tenant: &str, rows: &[crate::wire::Row<'_>]) -> ApiResult<Refs> {
        let wanted = Self::wanted(st, def, |field| {
            rows.iter().filter_map(|r| r.get(field).and_then(|v| std::str::from_utf8(v).ok()?.parse::<u64>().ok())).collect()
        });
        Self::fetch(st, tenant, wanted).await
    }

    #[allow(clippy::type_complexity)]
    fn wanted(
        st: &AppState,
        def: &ResourceDef,
        ids_of: impl Fn(&str) -> std::collections::BTreeSet<u64>,
    ) -> Vec<(String, String, Arc<ResourceDef>, String, std::collections::BTreeSet<u64>)> {
        let mut wanted = Vec::new();
        for f in def.fields.iter().filter(|f| f.refers.is_some() && !f.secret) {
            let Some(target) = f.refers.as_deref().and_then(|r| st.res.find(r)) else { continue };
            let Some(title) = title_field(&target).map(str::to_string) else { continue };
            let key = title_key(&f.name);
            let ids = ids_of(&f.name);
            // `ui.carry` {key: field of the named record}: more of it beside the id, as text (a document's line
            // carries its order's status, so a screen offers only what the order's state allows).
            for (ckey, cfield) in f.ui.as_ref().and_then(|u| u.get("carry")).and_then(Value::as_object).into_iter().flatten() {
                if let Some(cfield) = cfield.as_str()
                    && def.field(ckey).is_none()
                    && target.field(cfield).is_some_and(|t| !t.secret)
                {
                    wanted.push((f.name.clone(), ckey.clone(), target.clone(), cfield.to_string(), ids.clone()));
                }
            }
            if def.field(&key).is_none() {
                wanted.push((f.name.clone(), key, target, title, ids));
            }
        }
        wanted
    }

    #[allow(clippy::type_complexity)]
    async fn fetch(st: &AppState, tenant: &str, wanted: Vec<(String, String, Arc<ResourceDef>, String, std::collections::BTreeSet<u64>)>) -> ApiResult<Refs> {
        let count: usize = wanted.iter().map(|w| w.4.len()).sum();
        if count == 0 {
            return Ok(Refs { by_field: Vec::new() });
        }
        let t = tenant.to_string();
        let titles = move |r: &store::ReadCtx| {
            let mut out = Vec::new();
            for (field, key, target, title, ids) in wanted {
                let mut titles = std::collections::HashMap::new();
                for id in ids {
                    if let Some(rec) = r.get_fields(&target, &t, id, &[title.as_str()])? {
                        let v = match rec.get(&title) {
                            Some(Value::String(s)) => s.clone(),
                            None | Some(Value::Null) => String::new(),
                            Some(other) => other.to_string(),
                        };
                        titles.insert(id, v);
                    }
                }
                out.push((field, key, titles));
            }
            Ok(out)
        };
        // A few records (a page's categories, its few suppliers) are read here, without a thread hop.
        let by_field = st.read_points(count, titles).await?;
        Ok(Refs { by_field })
    }

    pub fn decorate(&self, rec: &mut Map<String, Value>) {
        for (field, key, titles) in &self.by_field {
            if rec.contains_key(key) {
                continue;
            }
            let title = Coded::of(rec.get(field)).id().and_then(|i| titles.get(&i)).cloned().unwrap_or_default();
            rec.insert(key.clone(), Value::String(title));
        }
    }
}
