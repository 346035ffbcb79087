//! Menu routes and buttons of the signed-in user, computed from the grants of their roles.
use std::collections::{HashMap, HashSet};

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};

use crate::api::system::tree::id;
use crate::auth::session::Session;
use crate::error::{ApiResult, Lang};
use crate::http::ok;
use crate::state::AppState;

/// Every menu record, decoded once per change of the menus.
pub async fn menus(st: &AppState) -> ApiResult<std::sync::Arc<Vec<Map<String, Value>>>> {
    let version = st.store.version("menu");
    if let Some(all) = st.menus.get(&(), &version) {
        return Ok(all);
    }
    let st2 = st.clone();
    let all = std::sync::Arc::new(st.read(move |r| r.all(&st2.res.get("menu"), store::PLATFORM_TENANT)).await?);
    st.menus.put((), version, all.clone());
    Ok(all)
}

/// The granted nodes of `category` plus all their ancestors, as a forest sorted by `sort`.
fn forest(all: &[&Map<String, Value>], granted: &HashSet<u64>, keep: impl Fn(&Map<String, Value>) -> bool, lang: Lang, with_leaf_children: bool) -> Vec<Value> {
    let by_id: HashMap<u64, &Map<String, Value>> = all.iter().map(|m| (id(m, "id"), *m)).collect();
    let mut include: HashSet<u64> = HashSet::new();
    for m in all.iter().filter(|m| granted.contains(&id(m, "id")) && keep(m)) {
        let mut cur = Some(id(m, "id"));
        while let Some(c) = cur.filter(|c| *c != 0 && include.insert(*c)) {
            cur = by_id.get(&c).map(|p| id(p, "parentId"));
        }
    }
    let mut children: HashMap<u64, Vec<&Map<String, Value>>> = HashMap::new();
    for m in all.iter().copied().filter(|m| include.contains(&id(m, "id"))) {
        let parent = id(m, "parentId");
        let parent = if include.contains(&parent) { parent } else { 0 };
        children.entry(parent).or_default().push(m);
    }
    for list in children.values_mut() {
        list.sort_by_key(|m| (m.get("sort").and_then(Value::as_i64).unwrap_or(0), id(m, "id")));
    }
    fn build(node: u64, children: &HashMap<u64, Vec<&Map<String, Value>>>, lang: Lang, leaf_children: bool) -> Vec<Value> {
        children
            .get(&node)
            .map(|list| {
                list.iter()
                    .map(|m| {
                        let mid = id(m, "id");
                        let kids = build(mid, children, lang, leaf_children);
                        let name = match lang {
                            Lang::En => m.get("nameEn").and_then(Value::as_str).filter(|s| !s.is_empty()),
                            Lang::Zh => None,
                        }
                        .or_else(|| m.get("name").and_then(Value::as_str))
                        .unwrap_or("");
                        let mut o = json!({
                            "id": mid.to_string(), "parentId": id(m, "parentId").to_string(), "code": m.get("code"),
                            "name": name, "alias": m.get("alias"), "path": m.get("path"), "source": m.get("source"),
                            "sort": m.get("sort"), "category": m.get("category"), "action": m.get("action"),
                            "isOpen": m.get("isOpen"), "hasChildren": !kids.is_empty(),
                        });
                        if !kids.is_empty() || leaf_children {
                            o["children"] = Value::Array(kids);
                        }
                        o
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
    build(0, &children, lang, with_leaf_children)
}

fn category(m: &Map<String, Value>) -> i64 {
    m.get("category").and_then(Value::as_i64).unwrap_or(1)
}

/// The signed-in user's menu forest (what menu/routes answers; pages embed it too).
pub async fn user_routes(st: &AppState, s: &Session, lang: Lang) -> ApiResult<Vec<Value>> {
    let all = menus(st).await?;
    let menus_only: Vec<&Map<String, Value>> = all.iter().filter(|m| category(m) == 1).collect();
    Ok(forest(&menus_only, &s.perms.menu_ids, |_| true, lang, true))
}

/// GET menu/routes: granted menus (category 1) and their ancestors.
pub async fn routes(State(st): State<AppState>, s: Session, lang: axum::Extension<Lang>) -> ApiResult<Response> {
    // Our own UI embeds the menus in its pages and never asks this route: whoever asks is another client (a
    // stock Saber build), which has no page for the screens only our UI has. They are left out for it rather
    // than offered as entries that throw "Cannot find module" (they stay in our UI at the same paths).
    let mut forest = user_routes(&st, &s, lang.0).await?;
    drop_codes(&mut forest, OWN_UI_ONLY);
    Ok(ok(forest))
}

/// Menus whose screens only our UI has (a Saber client's views/ has no file for them).
pub const OWN_UI_ONLY: &[&str] = &["status", "log_login"];

fn drop_codes(nodes: &mut Vec<Value>, codes: &[&str]) {
    nodes.retain(|n| !n.get("code").and_then(Value::as_str).is_some_and(|c| codes.contains(&c)));
    for n in nodes.iter_mut() {
        if let Some(Value::Array(kids)) = n.get_mut("children") {
            drop_codes(kids, codes);
            if kids.is_empty() {
                n["hasChildren"] = Value::Bool(false);
            }
        }
    }
}

/// GET menu/buttons: granted buttons (category 2) under their menus; a leaf button has no `children` key.
pub async fn buttons(State(st): State<AppState>, s: Session, lang: axum::Extension<Lang>) -> ApiResult<Response> {
    let all = menus(&st).await?;
    let all: Vec<&Map<String, Value>> = all.iter().collect();
    Ok(ok(forest(&all, &s.perms.menu_ids, |m| category(m) == 2, lang.0, false)))
}
