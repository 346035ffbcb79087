//! Small helpers to turn flat records into the tree shapes BladeX clients expect.
use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

pub fn id(m: &Map<String, Value>, k: &str) -> u64 {
    m.get(k).and_then(store::parse_id_value).unwrap_or(0)
}

/// Sorts by `sort` then id and nests by `parentId`; a node whose parent is not in the set becomes a root.
/// `shape` turns a record into its node (without `children`).
pub fn build(rows: &[Map<String, Value>], shape: &dyn Fn(&Map<String, Value>) -> Map<String, Value>) -> Vec<Value> {
    let present: HashSet<u64> = rows.iter().map(|m| id(m, "id")).collect();
    let mut children: HashMap<u64, Vec<&Map<String, Value>>> = HashMap::new();
    for m in rows {
        let p = id(m, "parentId");
        children.entry(if present.contains(&p) { p } else { 0 }).or_default().push(m);
    }
    for list in children.values_mut() {
        list.sort_by_key(|m| (m.get("sort").and_then(Value::as_i64).unwrap_or(0), id(m, "id")));
    }
    fn walk(node: u64, ch: &HashMap<u64, Vec<&Map<String, Value>>>, shape: &dyn Fn(&Map<String, Value>) -> Map<String, Value>, depth: usize) -> Vec<Value> {
        if depth > 64 {
            return Vec::new();
        }
        ch.get(&node)
            .map(|list| {
                list.iter()
                    .map(|m| {
                        let mut o = shape(m);
                        let kids = walk(id(m, "id"), ch, shape, depth + 1);
                        o.insert("hasChildren".into(), json!(!kids.is_empty()));
                        if !kids.is_empty() {
                            o.insert("children".into(), Value::Array(kids));
                        }
                        Value::Object(o)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
    walk(0, &children, shape, 0)
}

/// BladeX clients send `parentId: 0` (or "0") for a root; ids are never 0, so drop it (no parent = root).
pub fn strip_root_parent(body: &mut Map<String, Value>) {
    if matches!(body.get("parentId"), Some(Value::Number(n)) if n.as_u64() == Some(0)) || matches!(body.get("parentId"), Some(Value::String(s)) if s.trim() == "0") {
        body.remove("parentId");
    }
}

/// The select-tree node shape: `{id, parentId, title, key, value}`.
pub fn select_node(title_key: &'static str) -> impl Fn(&Map<String, Value>) -> Map<String, Value> {
    move |m| {
        let i = id(m, "id").to_string();
        let mut o = Map::new();
        o.insert("id".into(), json!(i));
        o.insert("parentId".into(), json!(id(m, "parentId").to_string()));
        o.insert("title".into(), m.get(title_key).cloned().unwrap_or(Value::Null));
        o.insert("key".into(), json!(i));
        o.insert("value".into(), json!(i));
        o
    }
}

/// Spec §6: when a node named 智装家 or 智装新家 exists anywhere in the forest, its children are the tree.
pub fn home_rule(forest: Vec<Value>) -> Vec<Value> {
    fn find(nodes: &[Value]) -> Option<Vec<Value>> {
        for n in nodes {
            let name = n.get("name").or_else(|| n.get("title")).and_then(Value::as_str).unwrap_or("");
            if name == "智装家" || name == "智装新家" {
                return Some(n.get("children").and_then(Value::as_array).cloned().unwrap_or_default());
            }
            if let Some(found) = n.get("children").and_then(Value::as_array).and_then(|c| find(c)) {
                return Some(found);
            }
        }
        None
    }
    find(&forest).unwrap_or(forest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_rule_picks_children() {
        let f = vec![json!({"name": "a"}), json!({"name": "b", "children": [{"name": "智装新家", "children": [{"name": "x"}]}]})];
        assert_eq!(home_rule(f.clone()), vec![json!({"name": "x"})]);
        let g = vec![json!({"name": "a"})];
        assert_eq!(home_rule(g.clone()), g);
    }
}
