//! 产品与分类 (`/api/blade-scm/product`, `/api/blade-scm/productCategory`): the catalogue a project manager picks
//! materials and services from. Products and categories are declared (`assets/resources/product*.json`); this
//! file holds their rules and the tree routes:
//! - a category has a parent of the same product type (or none), never itself or one of its descendants; a
//!   category with sub-categories or products is not removed, and the message says which;
//! - a product's category must be of the product's type;
//! - `product/delete/{productType}/{id}/{productStatus}` and `batch/delete/{productType}/{ids}` remove only
//!   products of that type (and status): another is a 404 (the engine checks the segments);
//! - `productCategory/tree`, `topList`, `subList` and `product/category/{type}` read the tree.
use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, Sort, StoreError, WriteCtx};

use crate::auth::session::Session;
use crate::engine::dialect::{Ctx, after, after_i64};
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind, rule};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

const C: &str = "/api/blade-scm/productCategory";
const P: &str = "/api/blade-scm/product";

use crate::engine::rec::id;

pub fn routes(api: Api) -> Api {
    let (cat, prod) = (api.def("product_category"), api.def("product"));
    api.get(format!("{C}/tree"), Guard::read(&cat), tree)
        .doc("产品分类 · the category tree (query: productType optional): nodes with children, ordered by sort then name", &[])
        .get(format!("{C}/topList"), Guard::read(&cat), top_list)
        .doc("产品分类 · the top categories (query: productType optional)", &[])
        .get(format!("{C}/subList"), Guard::read(&cat), sub_list)
        .doc("产品分类 · the sub-categories of a category (query: parentId)", &[])
        .post(format!("{P}/category/{{type}}"), Guard::read(&prod), categories_of_type)
        .doc("产品管理 · the category tree of product type {type} (the product form's category picker)", &[("type", "product type (dict product_type)")])
}

/// A category: its parent exists, has the same type, and is not the category or one of its descendants.
pub fn category_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    let def = cx.def("product_category");
    let parent = after(old, doc, "parentId").and_then(Value::as_u64).unwrap_or(0);
    let ty = after_i64(old, doc, "productType").unwrap_or(0);
    if let Some(o) = old
        && doc.get("productType").is_some_and(|t| Some(t) != o.get("productType")) {
        let q = Query { filters: vec![Filter::new("categoryId", Op::Equal, json!(id(o, "id")))], limit: 1, ..Query::default() };
        if w.list(&cx.def("product"), cx.tenant, &q)?.total > 0 {
            return Err(rule("该分类下已有产品,不能更改产品类型", "The category has products; its product type cannot change"));
        }
    }
    if parent == 0 {
        doc.insert("parentId".into(), json!(0));
        return Ok(());
    }
    let mut at = parent;
    for _ in 0..32 {
        if old.is_some_and(|o| id(o, "id") == at) {
            return Err(rule("上级分类不能是自己或自己的下级", "A category cannot sit under itself or one of its sub-categories"));
        }
        let Some(p) = w.get(&def, cx.tenant, at)? else {
            return Err(rule("上级分类不存在或已删除", "The parent category does not exist or was removed"));
        };
        if at == parent && p.get("productType").and_then(Value::as_i64) != Some(ty) {
            return Err(rule("上级分类的产品类型与本分类不同", "The parent category is of another product type"));
        }
        at = id(&p, "parentId");
        if at == 0 {
            return Ok(());
        }
    }
    Err(rule("分类层级过深", "The category tree is too deep"))
}

/// A category with sub-categories or products stays.
pub fn category_remove(w: &mut WriteCtx, cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    let cid = id(rec, "id");
    let name = rec.get("categoryName").and_then(Value::as_str).unwrap_or("");
    let q = Query { filters: vec![Filter::new("parentId", Op::Equal, json!(cid))], limit: 1, ..Query::default() };
    let subs = w.list(&cx.def("product_category"), cx.tenant, &q)?.total;
    if subs > 0 {
        return Err(rule(format!("分类「{name}」下还有子分类,请先删除子分类"), format!("Category '{name}' has sub-categories; remove them first")));
    }
    let q = Query { filters: vec![Filter::new("categoryId", Op::Equal, json!(cid))], limit: 1, ..Query::default() };
    let products = w.list(&cx.def("product"), cx.tenant, &q)?.total;
    if products > 0 {
        return Err(rule(format!("分类「{name}」下还有 {products} 个产品,不能删除"), format!("Category '{name}' still has {products} products; it cannot be removed")));
    }
    Ok(())
}

/// A product's category is of its type.
pub fn product_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    let ty = after_i64(old, doc, "productType").unwrap_or(0);
    if let Some(c) = after(old, doc, "categoryId").and_then(Value::as_u64).filter(|c| *c > 0) {
        let cat = w.get(&cx.def("product_category"), cx.tenant, c)?.ok_or(StoreError::NotFound)?;
        if cat.get("productType").and_then(Value::as_i64) != Some(ty) {
            return Err(rule("所选分类不属于该产品类型", "The category belongs to another product type"));
        }
    }
    Ok(())
}

/// The tenant's categories (of one type), as a tree ordered by sort then name.
async fn categories(st: &AppState, s: &Session, ty: Option<i64>) -> ApiResult<Vec<Map<String, Value>>> {
    let (res, tenant) = (st.res.clone(), s.tenant.clone());
    st.read(move |r| {
        let filters = ty.map(|t| vec![Filter::new("productType", Op::Equal, json!(t))]).unwrap_or_default();
        let q = Query { filters, limit: 100_000, sorts: vec![Sort { field: "sort".into(), desc: false }, Sort { field: "categoryName".into(), desc: false }], ..Query::default() };
        r.list(&res.get("product_category"), &tenant, &q).map(|p| p.records)
    })
    .await
}

fn wire(rec: &Map<String, Value>) -> Map<String, Value> {
    let mut m = rec.clone();
    for k in ["id", "parentId", "createUser", "updateUser", "createDept"] {
        if let Some(v) = m.get(k).and_then(Value::as_u64) {
            m.insert(k.into(), json!(v.to_string()));
        }
    }
    m.insert("title".into(), rec.get("categoryName").cloned().unwrap_or(Value::Null));
    m.insert("value".into(), json!(id(rec, "id").to_string()));
    m.insert("key".into(), json!(id(rec, "id").to_string()));
    m
}

fn build_tree(rows: &[Map<String, Value>]) -> Vec<Value> {
    let mut kids: BTreeMap<u64, Vec<&Map<String, Value>>> = BTreeMap::new();
    let ids: std::collections::HashSet<u64> = rows.iter().map(|r| id(r, "id")).collect();
    for r in rows {
        let p = id(r, "parentId");
        kids.entry(if ids.contains(&p) { p } else { 0 }).or_default().push(r);
    }
    fn walk(at: u64, kids: &BTreeMap<u64, Vec<&Map<String, Value>>>, depth: u32) -> Vec<Value> {
        kids.get(&at)
            .map(|v| {
                v.iter()
                    .map(|r| {
                        let mut m = wire(r);
                        let children = if depth < 32 { walk(id(r, "id"), kids, depth + 1) } else { Vec::new() };
                        m.insert("hasChildren".into(), json!(!children.is_empty()));
                        m.insert("children".into(), Value::Array(children));
                        Value::Object(m)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
    walk(0, &kids, 0)
}

fn type_param(p: &AnyParams) -> ApiResult<Option<i64>> {
    match p.get("productType").or_else(|| p.get("type")).map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => v.parse().map(Some).map_err(|_| ApiError::with(Kind::BadFormat, "productType")),
        None => Ok(None),
    }
}

async fn tree(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let rows = categories(&st, &s, type_param(&p)?).await?;
    Ok(ok(build_tree(&rows)))
}

async fn top_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let rows = categories(&st, &s, type_param(&p)?).await?;
    Ok(ok(rows.iter().filter(|r| id(r, "parentId") == 0).map(wire).collect::<Vec<_>>()))
}

async fn sub_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let parent = crate::engine::params::id_param(&p, &["parentId"])?;
    let rows = categories(&st, &s, None).await?;
    if !rows.iter().any(|r| id(r, "id") == parent) {
        return Err(ApiError::new(Kind::NotFound));
    }
    Ok(ok(rows.iter().filter(|r| id(r, "parentId") == parent).map(wire).collect::<Vec<_>>()))
}

async fn categories_of_type(State(st): State<AppState>, s: Session, Path(t): Path<String>) -> ApiResult<Response> {
    let ty: i64 = t.parse().map_err(|_| ApiError::with(Kind::BadFormat, "type"))?;
    let rows = categories(&st, &s, Some(ty)).await?;
    Ok(ok(build_tree(&rows)))
}
