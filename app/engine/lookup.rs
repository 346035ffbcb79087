//! Lookups for reference boxes: choosing a company, project, person, store or goods in a form needs the right to
//! use that form, not the right to manage the chosen kind. `GET /api/blade-system/lookup?resource=company&keyword=`
//! answers names, codes and ids (and a few display fields) of the records a reference box offers, to anyone who
//! may read the resource itself or any declared resource with a field that refers to it (a project manager who
//! may add projects looks up companies for 所属公司; a depot clerk who may write outbound orders looks up projects
//! for 领料项目). The caller's data scope on the looked-up resource applies; the full list stays behind its own
//! permission. Searchable by name and pinyin initials where the resource's search fields are indexed.
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::ResourceDef;

use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{QueryPairs, ok};
use crate::state::AppState;

/// Most rows of one lookup page.
const MAX_SIZE: u64 = 50;

/// The resources some declared field refers to, and those fields' resources: (target, referrers).
fn referrers(st: &AppState, target: &str) -> Vec<Arc<ResourceDef>> {
    st.res
        .all()
        .into_iter()
        .filter(|d| {
            d.fields.iter().any(|f| {
                f.refers.as_deref() == Some(target) || f.ui.as_ref().is_some_and(|u| u["control"] == "refs" && u["refers"].as_str() == Some(target))
            })
        })
        .collect()
}

/// Whether the session may look up `def`'s records: it reads `def`, or a resource whose form or filter refers to it.
pub fn may_look_up(st: &AppState, s: &Session, def: &ResourceDef) -> bool {
    if s.perms.codes.contains(def.code()) {
        return true;
    }
    referrers(st, &def.name).iter().any(|r| s.perms.codes.contains(r.code()))
}

/// What a lookup answers of a record: id, title, code (a hint beside the title), and for people their department.
fn row(def: &ResourceDef, title: &str, hint: &[String], rec: &Map<String, Value>, depts: &std::collections::HashMap<u64, String>) -> Value {
    let text = |k: &str| rec.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let mut out = json!({"id": crate::wire::id_str(&rec["id"]), "title": text(title)});
    if !hint.is_empty() {
        out["hint"] = json!(hint.iter().map(|h| text(&hint_key(def, h))).filter(|h| !h.is_empty()).collect::<Vec<_>>().join(" "));
    }
    if def.name == "user" {
        let dept = crate::auth::session::id_list(rec.get("deptId")).into_iter().filter_map(|d| depts.get(&d).cloned()).collect::<Vec<_>>().join("、");
        out["hint"] = json!(dept);
        out["account"] = json!(text("account"));
    }
    out
}

/// What tells records of one title apart in a picker: the fields the resource names (`ui.pickHint`: a goods'
/// code and spec, eight 纸面石膏板 differ by their spec), else its code (`…Code`, `…No`).
pub fn hint_fields(def: &ResourceDef, title: &str) -> Vec<String> {
    if let Some(named) = def.ui.as_ref().and_then(|u| u.get("pickHint")).and_then(Value::as_array) {
        return named.iter().filter_map(Value::as_str).filter(|n| def.field(n).is_some_and(|f| !f.secret)).map(str::to_string).collect();
    }
    def.fields
        .iter()
        .find(|f| f.name != title && matches!(f.kind, store::FieldKind::Text) && !f.secret && (f.name.ends_with("Code") || f.name.ends_with("No")))
        .map(|f| vec![f.name.clone()])
        .unwrap_or_default()
}

/// Where a record carries a hint field's text: the field itself, or for a reference (a worker's 工种) the title
/// of the record it names, beside it as `<stem>Name` (`crud::Refs`).
pub fn hint_key(def: &ResourceDef, field: &str) -> String {
    match def.field(field) {
        Some(f) if f.refers.is_some() => crate::engine::crud::title_key(field),
        _ => field.to_string(),
    }
}

/// Names the records that hint fields refer to (a worker's 工种 by its title), read once for the whole answer.
async fn with_refs(st: &AppState, def: &ResourceDef, tenant: &str, hint: &[String], recs: &mut [Map<String, Value>]) -> ApiResult<()> {
    if hint.iter().any(|h| def.field(h).is_some_and(|f| f.refers.is_some())) {
        let refs = crate::engine::crud::Refs::load(st, def, tenant, recs).await?;
        recs.iter_mut().for_each(|r| refs.decorate(r));
    }
    Ok(())
}

/// The records of `ids` the session may see (its data scope), in the order given.
async fn visible_records(st: &AppState, s: &Session, def: &Arc<ResourceDef>, ids: &[u64]) -> ApiResult<Vec<Map<String, Value>>> {
    let visible = crate::engine::crud::visible_ids(st, s, def, ids).await?;
    let (d, t) = (def.clone(), s.tenant.clone());
    Ok(st.read(move |r| visible.iter().filter_map(|id| r.get(&d, &t, *id).transpose()).collect::<store::Result<Vec<_>>>()).await?)
}

/// GET /api/blade-system/lookup?resource=&keyword=&ids=&current=&size=&staff=&holds=
pub async fn lookup(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    let param = |k: &str| q.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.trim().to_string()).unwrap_or_default();
    let name = param("resource");
    let def = st.res.find(&name).filter(|d| !crate::logsink::is_log(&d.name) && !referrers(&st, &d.name).is_empty()).ok_or_else(|| ApiError::with(Kind::NotFound, name.clone()))?;
    if !may_look_up(&st, &s, &def) {
        return Err(ApiError::with(Kind::Forbidden, def.code().to_string()));
    }
    let title = crate::engine::crud::title_field(&def).unwrap_or("id").to_string();
    let hint = hint_fields(&def, &title);
    let size: u64 = param("size").parse().ok().filter(|n| (1..=MAX_SIZE).contains(n)).unwrap_or(20);
    let current: u64 = param("current").parse().ok().filter(|n| *n >= 1).unwrap_or(1);
    let guard = crate::auth::scope::guard(&st, &s, &def).await?;
    let depts = if def.name == "user" { dept_names(&st, &s.tenant).await? } else { Default::default() };
    let staff = param("staff") == "1" && def.name == "user";
    let workers = if staff { worker_roles(&st, &s.tenant).await? } else { Vec::new() };
    let is_worker = |rec: &Map<String, Value>| crate::auth::session::id_list(rec.get("roleId")).iter().any(|r| workers.contains(r));
    // People who hold the code a form's field asks of whoever it names (`ui.holds`: a 工单's 处理人 may open work
    // orders): a filter over their roles.
    let holds = param("holds");
    let holders = if holds.is_empty() {
        None
    } else {
        let declared = def.name == "user" && st.res.referrers("user").iter().any(|(r, f)| r.field(f).and_then(crate::decl::holds) == Some(holds.as_str()));
        if !declared {
            return Err(ApiError::with(Kind::UnknownFilter, holds.chars().take(64).collect::<String>()));
        }
        let (st2, t) = (st.clone(), s.tenant.clone());
        let code = holds.clone();
        Some(st.read(move |r| st2.perms.roles_holding(r, &st2.res, &t, &code)).await?)
    };
    // The titles of chosen records (a form opened on a saved record): by id, within the scope.
    let ids = param("ids");
    if !ids.is_empty() {
        let ids = crate::engine::crud::parse_ids(Some(&ids))?;
        let mut recs = visible_records(&st, &s, &def, &ids).await?;
        with_refs(&st, &def, &s.tenant, &hint, &mut recs).await?;
        let records: Vec<Value> = recs.iter().map(|r| row(&def, &title, &hint, r, &depts)).collect();
        return Ok(ok(json!({"records": records, "total": records.len(), "size": size, "current": 1, "pages": 1})));
    }
    // Narrowed by another choice of the form (`ui.within`: 合同 by the chosen 项目): `<field>_equal=<id>` for the
    // fields some referring form names, and no other (a lookup answers titles to those who may not read the
    // records; it is not a filter over their contents).
    let fields: Vec<&store::FieldDef> = st.res.referrers(&def.name).iter().filter_map(|(r, f)| r.field(f)).collect();
    let narrowing: std::collections::HashSet<String> = fields
        .iter()
        .flat_map(|f| crate::decl::within(f).into_iter().map(|(_, to)| to).chain(crate::decl::pick_where(f).into_iter().map(|(k, _)| k)))
        .collect();
    let mut equal: Vec<(String, String)> = Vec::new();
    for (k, v) in &q {
        let Some(field) = k.strip_suffix("_equal") else { continue };
        if !narrowing.contains(field) {
            return Err(ApiError::with(Kind::UnknownFilter, k.chars().take(64).collect::<String>()));
        }
        if v.trim().parse::<u64>().is_err() {
            return Err(ApiError::with(Kind::BadId, v.chars().take(64).collect::<String>()));
        }
        equal.push((field.to_string(), v.trim().to_string()));
    }
    let kw = param("keyword");
    // Narrowed through a join (a tool form's `within`: the workers of the chosen construct's crew):
    // `<join>.<field>=<id>`, for joins some form declares; the chosen record must be one the caller sees.
    if let Some((k, v)) = q.iter().find(|(k, _)| k.contains('.')) {
        let t = st.res.throughs(&def.name).iter().find(|t| format!("{}.{}", t.join, t.by) == *k).cloned().ok_or_else(|| ApiError::with(Kind::UnknownFilter, k.chars().take(64).collect::<String>()))?;
        let parent: u64 = v.trim().parse().map_err(|_| ApiError::with(Kind::BadId, v.chars().take(64).collect::<String>()))?;
        // Who is on a construct's crew is the construct's to tell: its read code and its data scope.
        let pdef = st.res.get(&t.parent);
        if !s.perms.codes.contains(pdef.code()) {
            return Err(ApiError::with(Kind::Forbidden, pdef.code().to_string()));
        }
        crate::engine::crud::get_scoped(&st, &s, &pdef, parent).await?;
        let (jdef, tenant) = (st.res.get(&t.join), s.tenant.clone());
        let mut filters = vec![store::Filter::new(&t.by, store::Op::Equal, json!(parent))];
        // A join whose screen hides its empty rows (stock rows at 0) names no record through them: 源储位 offers
        // the bins that hold the goods, not every bin that once did.
        if let Some(z) = jdef.ui.as_ref().and_then(|u| u.get("hideZero")).and_then(Value::as_str) {
            filters.extend(crate::engine::listq::parse(&jdef, st.settings.zone, &[(format!("{z}_gt"), "0".to_string())])?.filters);
        }
        let jq = store::Query { filters, limit: 5_000, ..store::Query::default() };
        let joined = st.read(move |r| r.list(&jdef, &tenant, &jq)).await?.records;
        let mut ids: Vec<u64> = joined.iter().filter_map(|r| r.get(&t.key).and_then(store::parse_id_value)).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut recs = visible_records(&st, &s, &def, &ids).await?;
        // And by the form's other choices (the chosen 源仓库's bins).
        let same = |rec: &Map<String, Value>, field: &str, want: &str| match rec.get(field) {
            Some(Value::Number(n)) => n.to_string() == want,
            Some(Value::String(x)) => x == want,
            _ => false,
        };
        recs.retain(|r| equal.iter().all(|(f, v)| same(r, f, v)));
        with_refs(&st, &def, &s.tenant, &hint, &mut recs).await?;
        let needle = kw.to_lowercase();
        let mut rows: Vec<Value> = recs
            .iter()
            .map(|r| row(&def, &title, &hint, r, &depts))
            .filter(|r| needle.is_empty() || ["title", "hint"].iter().any(|k| r[*k].as_str().is_some_and(|x| x.to_lowercase().contains(&needle))))
            .collect();
        rows.sort_by(|a, b| a["title"].as_str().cmp(&b["title"].as_str()));
        let total = rows.len() as u64;
        let records: Vec<Value> = rows.into_iter().skip(((current - 1) * size) as usize).take(size as usize).collect();
        return Ok(ok(json!({"records": records, "total": total, "size": size, "current": current, "pages": total.div_ceil(size)})));
    }
    let mut pairs: Vec<(String, String)> = vec![("size".into(), size.to_string()), ("current".into(), current.to_string())];
    if !kw.is_empty() {
        if def.fields.iter().any(|f| f.searched()) {
            pairs.push(("keyword".into(), kw));
        } else {
            pairs.push((title.clone(), kw));
        }
    }
    pairs.extend(equal.iter().map(|(f, v)| (format!("{f}_equal"), v.clone())));
    if def.name == "user" {
        // Only active accounts are offered.
        pairs.push(("status_equal".into(), "1".into()));
    }
    let mut query = crate::engine::listq::parse(&def, st.settings.zone, &pairs)?;
    if let Some(roles) = &holders {
        query.filters.push(store::Filter::new("roleId", store::Op::ListIn, json!(roles)));
    }
    query.any = guard.unwrap_or_default();
    query.filters.extend(crate::auth::scope::store_limit(&st, &s, &def).await?);
    if staff {
        // Technical workers cannot sign in, so they cannot approve or handle anything: not offered. A page asks
        // for more than its size so that leaving them out still fills it.
        query.limit = size * 3;
    }
    let mut page = crate::engine::listq::run(&st, &def, &s.tenant, query).await?;
    with_refs(&st, &def, &s.tenant, &hint, &mut page.records).await?;
    let records: Vec<Value> = page.records.iter().filter(|r| !staff || !is_worker(r)).take(size as usize).map(|r| row(&def, &title, &hint, r, &depts)).collect();
    let total = if staff { page.total.min(records.len() as u64 + (current - 1) * size) } else { page.total };
    Ok(ok(json!({"records": records, "total": total, "size": size, "current": current, "pages": total.div_ceil(size)})))
}

async fn dept_names(st: &AppState, tenant: &str) -> ApiResult<std::collections::HashMap<u64, String>> {
    let (d, t) = (st.res.get("dept"), tenant.to_string());
    let all = st.read(move |r| r.all(&d, &t)).await?;
    Ok(all.iter().filter_map(|r| Some((r.get("id")?.as_u64()?, r.get("deptName")?.as_str()?.to_string()))).collect())
}

async fn worker_roles(st: &AppState, tenant: &str) -> ApiResult<Vec<u64>> {
    let (d, t) = (st.res.get("role"), tenant.to_string());
    let all = st.read(move |r| r.all(&d, &t)).await?;
    Ok(all.iter().filter(|r| r.get("isWorker").and_then(Value::as_i64) == Some(1)).filter_map(|r| r.get("id")?.as_u64()).collect())
}
