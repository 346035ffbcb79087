//! The registry of declared resources, loaded from `assets/resources/*.json` at start-up. Each declaration
//! drives storage, the generic API, list filters and sorts, and the field schema the UI renders from.
use std::collections::HashMap;
use std::sync::Arc;

use store::ResourceDef;

use crate::assets::Assets;

#[derive(Clone)]
pub struct Resources {
    by_name: Arc<HashMap<String, Arc<ResourceDef>>>,
}

impl Resources {
    /// Loads every embedded declaration; a bad one stops start-up with its name.
    pub fn load() -> anyhow::Result<Resources> {
        let mut by_name = HashMap::new();
        for path in Assets::iter().filter(|p| p.starts_with("resources/") && p.ends_with(".json")) {
            let file = Assets::get(&path).ok_or_else(|| anyhow::anyhow!("missing {path}"))?;
            let def: ResourceDef =
                serde_json::from_slice(&file.data).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
            def.check().map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
            by_name.insert(def.name.clone(), Arc::new(def));
        }
        Ok(Resources { by_name: Arc::new(by_name) })
    }

    /// A declaration by name, if there is one (names that come from clients).
    pub fn find(&self, name: &str) -> Option<Arc<ResourceDef>> {
        self.by_name.get(name).cloned()
    }

    /// A built-in declaration; the names used in code are covered by a test.
    pub fn get(&self, name: &str) -> Arc<ResourceDef> {
        self.by_name.get(name).cloned().unwrap_or_else(|| panic!("resource {name} is not declared"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_declarations_load() {
        let r = Resources::load().unwrap();
        for name in ["param", "tenant", "client", "user", "role", "menu", "dict", "dept", "post", "datascope", "apiscope", "topmenu"] {
            assert_eq!(r.get(name).name, name);
        }
    }
}
