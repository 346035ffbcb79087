//! The one search box: `GET /api/blade-search/search?q=&resources=&current=&size=`. Records of every resource
//! with a screen that the user may read (permission code, API scope of its list, data scope), found in the search
//! index and confirmed against the store, plus the user's menus whose names match. Nothing about a record the
//! user could not open is returned: not a hit, a snippet or a count.
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::ResourceDef;

use crate::auth::session::Session;
use crate::engine::routes::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind, Lang};
use crate::http::{QueryPairs, ok};
use crate::state::AppState;

/// Resources the search box finds, with their list API base and screen: the generic screens and the
/// administration screens of their own.
pub fn searched(res: &crate::decl::Resources) -> Vec<(String, String, String)> {
    let mut v = crate::decl::screens(res);
    v.extend([
        ("user", "/api/blade-user", "/system/user"),
        ("dept", "/api/blade-system/dept", "/system/dept"),
        ("role", "/api/blade-system/role", "/authority/role"),
        ("menu", "/api/blade-system/menu", "/system/menu"),
        ("tenant", "/api/blade-system/tenant", "/system/tenant"),
        ("dict", "/api/blade-system/dict", "/system/dict"),
        ("dictbiz", "/api/blade-system/dict-biz", "/system/dictbiz"),
    ].map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())));
    v
}

/// Hits examined at most per search (each is confirmed against the store and the user's rights).
const EXAMINE: usize = 500;
/// Longest query accepted (characters).
const MAX_Q: usize = 100;

pub fn routes(api: Api) -> Api {
    api.get("/api/blade-search/search", Guard::Signed, search)
}

struct Target {
    def: Arc<ResourceDef>,
    screen: String,
    guard: Option<Vec<store::Filter>>,
    /// The question as a test of this resource's records (`indexer::keyword_check`).
    check: store::Predicate,
}

/// GET /api/blade-search/search
pub async fn search(State(st): State<AppState>, s: Session, lang: axum::Extension<Lang>, QueryPairs(pairs): QueryPairs) -> ApiResult<Response> {
    let lang = lang.0;
    let get = |k: &str| pairs.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.trim().to_string());
    let q: String = get("q").unwrap_or_default().chars().take(MAX_Q).collect();
    let current: usize = match get("current").filter(|v| !v.is_empty()) {
        Some(v) => v.parse().ok().filter(|c| *c >= 1 && *c <= 1000).ok_or_else(|| ApiError::with(Kind::BadPaging, "current"))?,
        None => 1,
    };
    let size: usize = match get("size").filter(|v| !v.is_empty()) {
        Some(v) => v.parse().ok().filter(|c| (1..=50).contains(c)).ok_or_else(|| ApiError::with(Kind::BadPaging, "size"))?,
        None => 10,
    };
    let only: Option<Vec<String>> = get("resources").filter(|v| !v.is_empty()).map(|v| v.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect());
    let table = searched(&st.res);
    if let Some(only) = &only {
        for name in only {
            if !table.iter().any(|(n, _, _)| n == name) {
                return Err(ApiError::with(Kind::UnknownFilter, format!("resources={}", name.chars().take(40).collect::<String>())));
            }
        }
    }
    let empty = || ok(json!({"records": [], "menus": [], "total": 0, "size": size, "current": current, "pages": 0}));
    if q.is_empty() {
        return Ok(empty());
    }
    // The same question from the same user is answered again from the cache while nothing it depends on has
    // changed: the searched resources, the user's rights and menus (versions only grow, so their sum moves with
    // any of them) and what the index holds (a record is found once the index has it, not when it is written).
    let stamp: u64 = table.iter().map(|(n, _, _)| n.as_str()).chain(["role", "user", "dept", "datascope", "apiscope", "tenant", "sessions"]).map(|n| st.store.version(n)).sum::<u64>()
        + st.index.as_ref().map(|i| i.index().seq()).unwrap_or(0);
    let key = format!("{}\u{1f}{}\u{1f}{:?}\u{1f}{}\u{1f}{current}\u{1f}{size}\u{1f}{:?}", s.tenant, s.user_id, lang, q, only);
    if let Some(body) = st.search_cache.get(&key, &stamp) {
        return Ok(crate::http::json_bytes(body));
    }
    // Menus first: the user's own menu leaves whose name matches (as typed, or by pinyin).
    let menus = if current == 1 && only.as_ref().is_none_or(|o| o.iter().any(|n| n == "menu")) { menu_hits(&st, &s, lang, &q).await? } else { Vec::new() };

    // The resources this user may read here, each with its data scope.
    let mut targets: Vec<Target> = Vec::new();
    for (name, api, screen) in table {
        if only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        let Some(def) = st.res.find(&name).filter(|d| d.searchable()) else { continue };
        if s.require_at(&name, &format!("{api}/list")).is_err() {
            continue;
        }
        let guard = crate::auth::scope::guard(&st, &s, &def).await?;
        let check = crate::indexer::keyword_check(&def, &q);
        targets.push(Target { def, screen, guard, check });
    }
    if targets.is_empty() {
        return Ok(ok(json!({"records": [], "menus": menus, "total": 0, "size": size, "current": current, "pages": 0})));
    }
    let Some(ix) = st.index.clone().filter(|i| i.is_ready()) else {
        return Err(ApiError { retry_after: Some(2), ..ApiError::new(Kind::IndexBuilding) });
    };
    let tenant = s.tenant.clone();
    let (store, q2) = (st.store.clone(), q.clone());
    let permit = st.index_slots.clone().acquire_owned().await.map_err(|_| ApiError::new(Kind::Unavailable))?;
    let (records, total) = tokio::task::spawn_blocking(move || -> ApiResult<(Vec<Value>, usize)> {
        let _permit = permit;
        let own: Vec<&str> = targets.iter().filter(|t| !t.def.platform).map(|t| t.def.name.as_str()).collect();
        let platform: Vec<&str> = targets.iter().filter(|t| t.def.platform).map(|t| t.def.name.as_str()).collect();
        let mut scopes = Vec::new();
        if !own.is_empty() {
            scopes.push(search::Scope { tenant: &tenant, resources: &own });
        }
        if !platform.is_empty() {
            scopes.push(search::Scope { tenant: store::PLATFORM_TENANT, resources: &platform });
        }
        let parts: Vec<String> = q2.split_whitespace().map(str::to_string).collect();
        let guarded = targets.iter().any(|t| t.guard.is_some());
        // Without data scopes every hit of a readable resource may be opened: the index's count is the total and
        // only the page is read. With data scopes, up to EXAMINE hits are tested and counted.
        let (hits, found) = if guarded {
            ix.index().search_scopes(&scopes, &q2, 0, EXAMINE).map_err(ApiError::internal)?
        } else {
            ix.index().search_scopes(&scopes, &q2, (current - 1) * size, size).map_err(ApiError::internal)?
        };
        // Confirmed against the store (a record removed since it was indexed is left out) and the user's data
        // scope; the page's hits also against the query itself, as they are now.
        let confirmed = store.read(|r| {
            let mut out = Vec::new();
            for h in &hits {
                let Some(t) = targets.iter().find(|t| t.def.name == h.resource) else { continue };
                let Some(rec) = r.get(&t.def, &tenant, h.id)? else { continue };
                if let Some(g) = &t.guard
                    && !g.iter().any(|f| f.matches(&rec)) {
                    continue;
                }
                out.push((t, rec, h.score));
            }
            Ok(out)
        })?;
        let in_page = |v: Vec<_>| -> Vec<_> { if guarded { v.into_iter().skip((current - 1) * size).take(size).collect() } else { v } };
        let total = if guarded { confirmed.len() } else { found.saturating_sub(hits.len() - confirmed.len()) };
        let mut dropped = 0;
        let page: Vec<Value> = in_page(confirmed)
            .into_iter()
            .filter(|(t, rec, _)| {
                let ok = (t.check.test)(rec);
                dropped += usize::from(!ok);
                ok
            })
            .map(|(t, rec, score)| hit_json(&t.def, &t.screen, &rec, &parts, score, lang))
            .collect();
        let total = total - dropped.min(total);
        Ok((page, total))
    })
    .await
    .map_err(ApiError::internal)??;
    let body = crate::http::ok_bytes(json!({
        "records": records, "menus": menus, "total": total, "size": size, "current": current,
        "pages": total.div_ceil(size), "examined": EXAMINE,
    }))?;
    st.search_cache.put_sized(key, stamp, body.clone(), body.len());
    Ok(crate::http::json_bytes(body))
}

fn hit_json(def: &ResourceDef, screen: &str, rec: &Map<String, Value>, parts: &[String], score: f32, lang: Lang) -> Value {
    let doc = crate::indexer::doc_of(def, "", rec.get("id").and_then(Value::as_u64).unwrap_or(0), rec);
    // The snippet: the first searched field holding a part as typed, else the first field.
    let folded_parts: Vec<String> = parts.iter().map(|p| p.to_lowercase()).collect();
    let best = doc
        .fields
        .iter()
        .find(|(_, v)| folded_parts.iter().any(|p| v.to_lowercase().contains(p.as_str())))
        .or(doc.fields.first());
    let (field, text) = best.map(|(f, v)| (f.as_str(), v.as_str())).unwrap_or(("", ""));
    let label_of = |f: &str| {
        def.field(f)
            .map(|fd| if lang == Lang::En && !fd.label_en.is_empty() { fd.label_en.clone() } else { fd.label.clone() })
            .unwrap_or_default()
    };
    let id = rec.get("id").and_then(Value::as_u64).unwrap_or(0);
    json!({
        "resource": def.name,
        "resourceLabel": if lang == Lang::En && !def.label_en.is_empty() { &def.label_en } else { &def.label },
        "id": id.to_string(),
        "title": search::text::highlight(&doc.title, parts, 60),
        "field": field,
        "fieldLabel": label_of(field),
        "snippet": search::text::highlight(text, parts, 80),
        "link": format!("{screen}?id={id}"),
        "score": score,
    })
}

/// The user's menu leaves whose name contains the query (case folded), or whose pinyin spelling or initials
/// start with it (`csgl`, `canshu` find 参数管理).
async fn menu_hits(st: &AppState, s: &Session, lang: Lang, q: &str) -> ApiResult<Vec<Value>> {
    let tree = crate::api::system::menu::user_routes(st, s, lang).await?;
    let mut out = Vec::new();
    let needle = q.to_lowercase();
    let spelled = needle.chars().all(|c| c.is_ascii_alphanumeric());
    fn walk(nodes: &[Value], needle: &str, spelled: bool, out: &mut Vec<Value>) {
        for n in nodes {
            let kids = n.get("children").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
            if kids.is_empty() {
                let name = n.get("name").and_then(Value::as_str).unwrap_or("");
                let path = n.get("path").and_then(Value::as_str).unwrap_or("");
                let hit = name.to_lowercase().contains(needle)
                    || (spelled && search::text::pinyin_words(name).iter().any(|w| w.starts_with(needle) && w.len() > 1));
                if !path.is_empty() && hit {
                    out.push(json!({"name": name, "path": path, "title": search::text::highlight(name, &[needle.to_string()], 40)}));
                }
            } else {
                walk(kids, needle, spelled, out);
            }
        }
    }
    walk(&tree, &needle, spelled, &mut out);
    out.truncate(10);
    Ok(out)
}

/// 搜索: the header's search box: routes only.
pub const AREA: crate::api::Area = crate::api::Area::routes_only("search", routes);
