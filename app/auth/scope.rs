//! Data scopes turned into store filters. A scope granted to a role names a resource and a type: 1 all rows,
//! 2 rows the user created, 3 rows of the user's department, 4 the user's department and its descendants,
//! 5 a typed rule `{"field": .., "op": .., "value": ..}` over the resource's declared filterable fields with an
//! operator from `RULE_OPS` (never SQL). The filters join the list query's guard (`Query::any`): a record is
//! visible when any granted scope admits it.
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use store::{Filter, Op, ResourceDef};

use crate::auth::perms::DataGrant;
use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind};
use crate::state::AppState;

/// Operators a typed rule (type 5) may use.
pub const RULE_OPS: &[(&str, Op)] = &[
    ("equal", Op::Equal),
    ("notequal", Op::NotEqual),
    ("like", Op::Contains),
    ("notlike", Op::NotContains),
    ("likeleft", Op::EndsWith),
    ("likeright", Op::StartsWith),
    ("ge", Op::Ge),
    ("gt", Op::Gt),
    ("le", Op::Le),
    ("lt", Op::Lt),
    ("in", Op::In),
];

/// The default compared column per scope type.
fn default_field(kind: i64) -> &'static str {
    if kind == 2 { "createUser" } else { "createDept" }
}

/// Checks a data scope's type, field and rule against the resource it names (on submit).
pub fn validate(def: &ResourceDef, kind: i64, field: &str, value: &str) -> ApiResult<()> {
    match kind {
        1 => Ok(()),
        2..=4 => {
            let f = if field.is_empty() { default_field(kind) } else { field };
            if def.is_filterable(f) { Ok(()) } else { Err(ApiError::with(Kind::BadRule, format!("scopeField {f}"))) }
        }
        5 => parse_rule(def, value, 0, &[]).map(|_| ()),
        _ => Err(ApiError::with(Kind::OutOfRange, "scopeType")),
    }
}

/// A type-5 rule as a filter; `#{userId}` and `#{deptId}` in the value stand for the signed-in user's.
fn parse_rule(def: &ResourceDef, text: &str, user: u64, depts: &[u64]) -> ApiResult<Filter> {
    let bad = |why: &str| ApiError::with(Kind::BadRule, why.to_string());
    let rule: Map<String, Value> = match serde_json::from_str(text) {
        Ok(Value::Object(m)) => m,
        _ => return Err(bad("scopeValue must be {\"field\",\"op\",\"value\"}")),
    };
    if rule.keys().any(|k| !["field", "op", "value"].contains(&k.as_str())) {
        return Err(bad("unknown key"));
    }
    let field = rule.get("field").and_then(Value::as_str).unwrap_or("");
    if !def.is_filterable(field) {
        return Err(bad(&format!("field {}", field.chars().take(40).collect::<String>())));
    }
    let op_name = rule.get("op").and_then(Value::as_str).unwrap_or("");
    let op = RULE_OPS.iter().find(|(n, _)| *n == op_name).map(|(_, o)| *o).ok_or_else(|| bad("op"))?;
    let fill = |v: &Value| -> ApiResult<Value> {
        match v {
            Value::String(s) if s == "#{userId}" => Ok(json!(user)),
            Value::String(s) if s == "#{deptId}" => Ok(json!(depts.first().copied().unwrap_or(0))),
            Value::String(s) if s.len() <= 200 => Ok(v.clone()),
            Value::Number(_) | Value::Bool(_) => Ok(v.clone()),
            _ => Err(bad("value")),
        }
    };
    let value = match (op, rule.get("value")) {
        (Op::In, Some(Value::Array(items))) if items.len() <= 100 => Value::Array(items.iter().map(fill).collect::<ApiResult<_>>()?),
        (Op::In, _) => return Err(bad("value must be a list of at most 100 items")),
        (_, Some(v)) => fill(v)?,
        (_, None) => return Err(bad("value")),
    };
    Ok(Filter::new(field, op, value))
}

/// Children of each department (by parent id), for one tenant's department tree.
pub type DeptTree = HashMap<u64, Vec<u64>>;

/// The tenant's department tree, from the cache while departments are unchanged (the version is read before
/// the snapshot, so a tree is never stamped newer than what it was built from).
pub async fn dept_tree(st: &AppState, tenant: &str) -> ApiResult<Arc<DeptTree>> {
    let version = st.store.version("dept");
    if let Some(tree) = st.dept_trees.get(&tenant.to_string(), &version) {
        return Ok(tree);
    }
    let (st2, t) = (st.clone(), tenant.to_string());
    let tree = st
        .read(move |r| {
            let mut children: DeptTree = HashMap::new();
            for d in r.all(&st2.res.get("dept"), &t)? {
                let id = d.get("id").and_then(store::parse_id_value).unwrap_or(0);
                let parent = d.get("parentId").and_then(store::parse_id_value).unwrap_or(0);
                children.entry(parent).or_default().push(id);
            }
            Ok(Arc::new(children))
        })
        .await?;
    st.dept_trees.put(tenant.to_string(), version, tree.clone());
    Ok(tree)
}

/// Every department id at or below `roots` in the tenant's department tree, ascending.
pub async fn descendants(st: &AppState, tenant: &str, roots: &[u64]) -> ApiResult<Vec<u64>> {
    let tree = dept_tree(st, tenant).await?;
    Ok(below(&tree, roots))
}

/// `roots` and everything under them in `tree`, ascending.
pub fn below(tree: &DeptTree, roots: &[u64]) -> Vec<u64> {
    let mut seen: HashSet<u64> = HashSet::new();
    let mut stack: Vec<u64> = roots.to_vec();
    while let Some(n) = stack.pop() {
        if seen.insert(n) {
            stack.extend(tree.get(&n).into_iter().flatten());
        }
    }
    let mut out: Vec<u64> = seen.into_iter().collect();
    out.sort_unstable();
    out
}

/// The guard filters for `def` and this session: None when no data scope limits the user (the platform
/// administrator is never limited). An empty grant list yields a guard that admits nothing. A record is admitted
/// by its own kind's scopes or, when its parent's kind is limited, by being a child of a parent the user may see
/// (`follow_parent`): a 施工单 the 项目经理 manages, or any 施工单 of a project he manages.
pub async fn guard(st: &AppState, s: &Session, def: &ResourceDef) -> ApiResult<Option<Vec<Filter>>> {
    if s.is_platform_admin() || opened_by_a_role(st, s, def) {
        return Ok(None);
    }
    guard_at(st, s, def, 0).await
}

/// Whether one of the user's roles reads `def` limited neither on it nor on any parent it is seen through: the
/// scopes of a user's roles combine as a union, so that role opens it (a 项目经理 who is also a contract clerk
/// reads every contract, though his projects are limited).
fn opened_by_a_role(st: &AppState, s: &Session, def: &ResourceDef) -> bool {
    if s.perms.roles.is_empty() || s.perms.data.contains_key(&def.name) {
        return false;
    }
    let mut chain = vec![def.name.clone()];
    let mut at = parent_of(st, def);
    while let Some((_, p)) = at {
        if chain.len() > PARENT_DEPTH || chain.contains(&p.name) {
            break;
        }
        chain.push(p.name.clone());
        at = parent_of(st, &p);
    }
    s.perms.roles.iter().any(|r| r.codes.contains(def.code()) && !chain.iter().any(|n| r.limited.contains(n)))
}

/// How many parents up a child's guard is looked for (a progress node's 施工单's project): declarations form no
/// cycle, this only bounds the walk.
const PARENT_DEPTH: usize = 4;

/// A guard being worked out (boxed: a parent's guard is worked out within its child's).
type GuardFuture<'a> = Pin<Box<dyn Future<Output = ApiResult<Option<Vec<Filter>>>> + Send + 'a>>;

/// `guard` of a record `depth` parents below the one asked about.
fn guard_at<'a>(st: &'a AppState, s: &'a Session, def: &'a ResourceDef, depth: usize) -> GuardFuture<'a> {
    Box::pin(async move {
        let own = own_guard(st, s, def).await?;
        let follow = if depth < PARENT_DEPTH { follow_parent(st, s, def, depth).await? } else { None };
        Ok(match (own, follow) {
            (None, f) => f,
            (Some(o), None) => Some(o),
            (Some(mut o), Some(f)) => {
                o.extend(f);
                Some(o)
            }
        })
    })
}

/// The filters of the scopes granted on `def` itself, None when it has none.
async fn own_guard(st: &AppState, s: &Session, def: &ResourceDef) -> ApiResult<Option<Vec<Filter>>> {
    let Some(grants) = s.perms.data.get(&def.name) else { return Ok(None) };
    let depts = crate::auth::session::id_list(s.user.get("deptId"));
    let needs_tree = grants.iter().any(|g| g.kind == 4);
    let below = if needs_tree {
        descendants(st, &s.tenant, &depts).await?
    } else {
        Vec::new()
    };
    let mut out = Vec::new();
    for g in grants {
        match filter_of(def, g, s.user_id, &depts, &below) {
            Ok(f) => out.push(f),
            // A scope that no longer fits its resource admits nothing (it never widens).
            Err(_) => tracing::warn!(target: "zz::scope", resource = %def.name, kind = g.kind, "data scope ignored: invalid"),
        }
    }
    if out.is_empty() {
        out.push(Filter::new("id", Op::In, json!([])));
    }
    Ok(Some(out))
}

/// Parents a scoped user may see at most through their children's guard; beyond, the children of the first ones.
const PARENTS_MAX: usize = 20_000;

/// The parent resource a record belongs to (a document's line its order, a work order's reply its order): the
/// declaration's `parent` field and the resource it refers to.
pub fn parent_of(st: &AppState, def: &ResourceDef) -> Option<(String, Arc<ResourceDef>)> {
    let field = st.res.decl(&def.name)?.parent.clone()?;
    let target = def.field(&field)?.refers.as_deref().and_then(|r| st.res.find(r))?;
    Some((field, target))
}

/// A child is seen through its parent (an order's lines, a work order's replies, a 施工单's progress through the
/// 施工单 and its project): when the parent's kind is limited for this user, the children of the parents the user
/// may see (one indexed `In`). A child of no parent (a contract not yet bound to a project) is seen only through
/// its own kind's scopes (the demo's 项目经理: the contracts he created). Without this a 项目经理 limited to his own
/// 领料单 read and changed the lines of every outbound order.
async fn follow_parent(st: &AppState, s: &Session, def: &ResourceDef, depth: usize) -> ApiResult<Option<Vec<Filter>>> {
    let Some((field, parent)) = parent_of(st, def) else { return Ok(None) };
    let Some(any) = guard_at(st, s, &parent, depth + 1).await? else { return Ok(None) };
    let (t, p) = (s.tenant.clone(), parent.clone());
    let q = store::Query { any, limit: PARENTS_MAX as u64, ..store::Query::default() };
    let ids: Vec<u64> = st.read(move |r| r.list(&p, &t, &q)).await?.records.iter().filter_map(|r| r.get("id").and_then(store::parse_id_value)).collect();
    Ok(Some(vec![Filter::new(&field, Op::In, json!(ids))]))
}

fn filter_of(def: &ResourceDef, g: &DataGrant, user: u64, depts: &[u64], below: &[u64]) -> ApiResult<Filter> {
    let field = if g.field.is_empty() { default_field(g.kind) } else { g.field.as_str() };
    if (2..=4).contains(&g.kind) && !def.is_filterable(field) {
        return Err(ApiError::with(Kind::BadRule, field.to_string()));
    }
    // A declared field holding one id (a project's 项目经理) is matched with `In`, answered from its index; a list of
    // ids (a user's departments) or an audit column with `ListIn`.
    let list_op = if def.field(field).is_some_and(|f| f.kind == store::FieldKind::Long && !f.multi) { Op::In } else { Op::ListIn };
    Ok(match g.kind {
        1 => Filter::new("id", Op::NotNull, Value::Null),
        2 => Filter::new(field, list_op, json!([user])),
        3 => Filter::new(field, list_op, json!(depts)),
        4 => Filter::new(field, list_op, json!(below)),
        5 => parse_rule(def, &g.value, user, depts)?,
        _ => return Err(ApiError::with(Kind::BadRule, "scopeType")),
    })
}

/// What a declared access list (`access`: the warehouse's `userconfig` grants users stores) allows the user of
/// `def`, as a filter on its records — the granted ones, or those naming one — or None when no access list
/// limits the resource or the user has no entry in it (the platform administrator is never limited). Applied to
/// lists, details and removals beside the data scope.
pub async fn store_limit(st: &AppState, s: &Session, def: &ResourceDef) -> ApiResult<Option<Filter>> {
    let Some((access, field)) = st.res.access_for(def) else { return Ok(None) };
    if s.is_platform_admin() {
        return Ok(None);
    }
    let Some(cdef) = st.res.find(&access.list) else { return Ok(None) };
    let (t, user, grants) = (s.tenant.clone(), s.user_id.to_string(), access.grants.clone());
    let ids = st.read_now(|r| match r.find_unique(&cdef, &t, &access.user, &user)? {
        Some(cid) => Ok(r.get(&cdef, &t, cid)?.map(|c| crate::auth::session::id_list(c.get(&grants)))),
        None => Ok(None),
    })?;
    Ok(ids.map(|ids| Filter::new(&field, Op::In, json!(ids))))
}

/// True when the record is visible under the guard.
pub fn admits(guard: &Option<Vec<Filter>>, doc: &Map<String, Value>) -> bool {
    guard.as_ref().is_none_or(|fs| fs.iter().any(|f| f.matches(doc)))
}
