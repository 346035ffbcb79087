//! How a declared resource is written: the rules an area attaches to it (`Rules`: before the write, after it in
//! the same transaction, on removal, and what other areas do after it), and the write path every route and
//! import shares (`write_in`): generated codes, references that must exist, the rules, the change history, and a
//! removal refused while live records still name the record.
use std::sync::Arc;

use serde_json::{Map, Value, json};
use store::{Actor, Filter, Op, Query, ResourceDef, StoreError, WriteCtx};

use crate::auth::session::Session;
use crate::decl::Resources;
use crate::decl::api::CodeRule;
use crate::error::{ApiResult, rule};
use crate::state::AppState;

/// Who writes, in which tenant and when: owned, so it moves into a write transaction, where `cx()` lends it to
/// the rules.
pub struct Env {
    pub tenant: String,
    pub actor: Actor,
    pub res: Resources,
    pub now: String,
}

impl Env {
    pub fn new(st: &AppState, s: &Session) -> Env {
        Env { tenant: s.tenant.clone(), actor: s.actor(), res: st.res.clone(), now: st.settings.zone.format(store::now_millis()) }
    }
    pub fn cx(&self) -> Ctx<'_> {
        Ctx { tenant: &self.tenant, actor: &self.actor, res: &self.res, now: &self.now }
    }
}

/// What a business rule sees of the write it runs in.
pub struct Ctx<'a> {
    pub tenant: &'a str,
    pub actor: &'a Actor,
    pub res: &'a Resources,
    /// Local time of the write, `yyyy-MM-dd HH:mm:ss`.
    pub now: &'a str,
}

impl Ctx<'_> {
    pub fn def(&self, name: &str) -> Arc<ResourceDef> {
        self.res.get(name)
    }
}

/// A rule run before a record is written, inside the write's transaction: `old` is the stored record (None on
/// insert), `doc` the fields being written (it may change them). An error refuses the whole write.
pub type SaveRule = fn(&mut WriteCtx, &Ctx, Option<&Map<String, Value>>, &mut Map<String, Value>) -> store::Result<()>;
/// A rule run before a record is removed, inside the removal's transaction.
pub type RemoveRule = fn(&mut WriteCtx, &Ctx, &Map<String, Value>) -> store::Result<()>;
/// A rule run after a record is written, in the same transaction, with the stored record before (None on
/// insert) and after: records that follow from the change (a signed contract's ledger entry).
pub type SavedRule = fn(&mut WriteCtx, &Ctx, Option<&Map<String, Value>>, &Map<String, Value>) -> store::Result<()>;

/// The hand-written behaviour of a resource served by a dialect.
#[derive(Clone, Copy, Default)]
pub struct Rules {
    pub save: Option<SaveRule>,
    pub remove: Option<RemoveRule>,
    pub saved: Option<SavedRule>,
    /// Other areas' rules run after `saved` (`api::Area::after`).
    pub after: &'static [SavedRule],
}

/// A status table of a business record: value, Chinese and English name.
pub type Statuses = &'static [(i64, &'static str, &'static str)];

/// The Chinese and English names of a status value (`?` for one the table does not know).
pub fn status_name(table: Statuses, v: i64) -> (&'static str, &'static str) {
    table.iter().find(|(k, ..)| *k == v).map(|(_, zh, en)| (*zh, *en)).unwrap_or(("?", "?"))
}

/// A field's value after a write: the new value if written, else the stored one.
pub fn after<'a>(old: Option<&'a Map<String, Value>>, doc: &'a Map<String, Value>, field: &str) -> Option<&'a Value> {
    match doc.get(field) {
        Some(v) => Some(v),
        None => old.and_then(|o| o.get(field)),
    }
}

/// `after` as an integer (absent or null → None).
pub fn after_i64(old: Option<&Map<String, Value>>, doc: &Map<String, Value>, field: &str) -> Option<i64> {
    after(old, doc, field).and_then(Value::as_i64)
}

/// `after` as an id.
pub fn after_id(old: Option<&Map<String, Value>>, doc: &Map<String, Value>, field: &str) -> Option<u64> {
    after(old, doc, field).and_then(Value::as_u64).filter(|i| *i > 0)
}

/// Inserts (`id` None) or updates a record through its declaration's rules in one write transaction: the code,
/// the records its fields name, the resource's own rules, the change record. Hand-written routes write through
/// it too, so a rule holds whichever route changes the record.
pub async fn write(st: &AppState, s: &Session, def: &Arc<ResourceDef>, rules: Rules, id: Option<u64>, doc: Map<String, Value>) -> ApiResult<Map<String, Value>> {
    let (d, env) = (def.clone(), Env::new(st, s));
    st.write(move |w| write_in(w, &env.cx(), &d, rules, id, doc.clone())).await
}

/// `write` of a new record that must stay where the session sees it (`keep`: its data scope guard): a 项目经理
/// limited to the projects he manages adds none for a colleague (or without a manager), which he would never see
/// again. Refused in the write, so nothing is saved.
pub async fn write_kept(st: &AppState, s: &Session, def: &Arc<ResourceDef>, rules: Rules, id: Option<u64>, doc: Map<String, Value>, keep: Option<Vec<store::Filter>>) -> ApiResult<Map<String, Value>> {
    let (d, env) = (def.clone(), Env::new(st, s));
    st.write(move |w| {
        let saved = write_in(w, &env.cx(), &d, rules, id, doc.clone())?;
        if !crate::auth::scope::admits(&keep, &saved) {
            return Err(outside_scope());
        }
        Ok(saved)
    })
    .await
}

/// The refusal of a new record the saver's data scope would not admit.
pub fn outside_scope() -> StoreError {
    crate::error::refuse(
        "保存后这条记录将不在您的数据权限范围内(例如项目经理须是您本人),请修改后再保存",
        "Saved this way, the record would be outside your data scope (for example, you must be its manager); change it and save again",
    )
}

/// `write` inside a transaction that is already open (hand-written behaviour that writes several records).
pub fn write_in(
    w: &mut WriteCtx,
    cx: &Ctx,
    def: &ResourceDef,
    rules: Rules,
    id: Option<u64>,
    mut doc: Map<String, Value>,
) -> store::Result<Map<String, Value>> {
    let decl = cx.res.decl(&def.name);
    let decl = decl.as_deref();
    let old = match id {
        Some(id) => Some(w.get(def, cx.tenant, id)?.ok_or(StoreError::NotFound)?),
        None => None,
    };
    if old.is_none()
        && let Some(c) = decl.and_then(|d| d.code.as_ref())
        && doc.get(&c.field).is_none_or(|v| v.is_null() || v.as_str() == Some("")) {
        doc.insert(c.field.clone(), Value::String(next_code(w, cx, def, c)?));
    }
    check_refs(w, cx, def, &doc, old.as_ref())?;
    let own_files = crate::engine::attachments::has_own(def);
    if own_files {
        crate::engine::attachments::check_own(w, cx, def, &mut doc, old.as_ref())?;
    }
    if let Some(f) = rules.save {
        f(w, cx, old.as_ref(), &mut doc)?;
    }
    let saved = match id {
        Some(id) => w.update(def, cx.tenant, id, doc, cx.actor)?,
        None => w.insert(def, cx.tenant, doc, cx.actor)?,
    };
    if own_files {
        crate::engine::attachments::bind_own(w, cx, def, &saved)?;
    }
    if decl.is_some_and(|d| d.history) {
        record_change(w, cx, def, old.as_ref(), Some(&saved))?;
    }
    let mut hooks = rules.saved.iter().chain(rules.after).peekable();
    if hooks.peek().is_none() {
        return Ok(saved);
    }
    for f in hooks {
        f(w, cx, old.as_ref(), &saved)?;
    }
    // What the hooks kept on the record itself (a contract's 合同总额 once its ledger is opened) is in the answer.
    let rid = saved.get("id").and_then(Value::as_u64).unwrap_or(0);
    Ok(w.get(def, cx.tenant, rid)?.unwrap_or(saved))
}

/// `PREFIX` + local date + `-` + a four-digit number per tenant and day (more digits past 9999), skipping a
/// number someone typed in by hand.
fn next_code(w: &mut WriteCtx, cx: &Ctx, def: &ResourceDef, c: &CodeRule) -> store::Result<String> {
    let day: String = cx.now.chars().take(10).filter(char::is_ascii_digit).collect();
    // A named counter (`$`): not a record total (verify compares those with the records).
    let counter = format!("$code:{}:{}{day}", def.name, c.prefix);
    loop {
        let n = w.add_counter(cx.tenant, &counter, 1)?;
        let code = format!("{}{day}-{n:04}", c.prefix);
        if w.find_unique(def, cx.tenant, &c.field, &code)?.is_none() {
            return Ok(code);
        }
    }
}

/// Every `refers` field being written names a live record of the tenant; a reference chosen anew (not the one the
/// record already held, `old`) is of the kind its picker offers (`ui.pickWhere`).
pub fn check_refs(w: &WriteCtx, cx: &Ctx, def: &ResourceDef, doc: &Map<String, Value>, old: Option<&Map<String, Value>>) -> store::Result<()> {
    for f in def.fields.iter().filter(|f| f.refers.is_some()) {
        // 0 names no record (a top category, a department without a parent).
        let Some(id) = doc.get(&f.name).and_then(Value::as_u64).filter(|i| *i > 0) else { continue };
        let Some(target) = f.refers.as_deref().and_then(|r| cx.res.find(r)) else { continue };
        let en = if f.label_en.is_empty() { &f.name } else { &f.label_en };
        let Some(rec) = w.get(&target, cx.tenant, id)? else {
            return Err(crate::error::missing(format!("{}不存在或已删除", f.label), format!("The {en} does not exist or was removed")));
        };
        // Only the kind its picker offers (a 供应商 that is a supplier, not a carrier). A form sends every field
        // back: one left as it was (a supplier retyped since, an order older than the rule) is not chosen now.
        if old.and_then(|o| o.get(&f.name)).and_then(Value::as_u64) == Some(id) {
            continue;
        }
        for (field, want) in crate::decl::pick_where(f) {
            if rec.get(&field).and_then(Value::as_i64) != Some(want) {
                let (zh, en2) = target.field(&field).map(|t| (t.label.as_str(), if t.label_en.is_empty() { t.name.as_str() } else { t.label_en.as_str() })).unwrap_or((field.as_str(), field.as_str()));
                return Err(rule(format!("所选{}的{}不符,请从列表中选择", f.label, zh), format!("The chosen {en}'s {} does not fit; choose one from the list", en2.to_lowercase())));
            }
        }
    }
    Ok(())
}

/// A resource's label as a thing: the screen's name without 管理 (商品管理 → 商品).
fn thing(label: &str) -> &str {
    label.strip_suffix("管理").filter(|s| !s.is_empty()).unwrap_or(label)
}

/// A resource's label as records of it: 上架管理 → 上架记录, 合同 → 合同.
fn records_of(label: &str) -> String {
    match label.strip_suffix("管理").filter(|s| !s.is_empty()) {
        Some(s) => format!("{s}记录"),
        None => label.to_string(),
    }
}

/// Refuses to remove a record that a live record of any declared resource still names.
pub fn check_unused(w: &WriteCtx, cx: &Ctx, def: &ResourceDef, id: u64) -> store::Result<()> {
    for (other, field) in cx.res.referrers(&def.name) {
        let q = Query { filters: vec![Filter::new(field, Op::Equal, Value::from(id))], limit: 1, ..Query::default() };
        if !w.list(other, cx.tenant, &q)?.records.is_empty() {
            let en = if other.label_en.is_empty() { &other.name } else { &other.label_en };
            // In a clerk's words: "该商品已有上架记录,不能删除", not the screens' names ("仍有上架管理引用该商品管理").
            let target_en = if def.label_en.is_empty() { def.name.as_str() } else { def.label_en.as_str() };
            return Err(rule(
                format!("该{}已有{},不能删除", thing(&def.label), records_of(&other.label)),
                format!("This {} already has {}; it cannot be removed", target_en.to_lowercase(), en.to_lowercase()),
            ));
        }
    }
    Ok(())
}

/// The change record of a write: who and when (audit columns), the action and every field that changed.
pub fn record_change(w: &mut WriteCtx, cx: &Ctx, def: &ResourceDef, old: Option<&Map<String, Value>>, new: Option<&Map<String, Value>>) -> store::Result<()> {
    // As people read it: a referenced record by its title (所属项目: 华润悦府样板间软装, not its id), a coded value
    // by its dictionary label (合同状态: 草稿 → 已签订), money and quantities exactly.
    let show = |w: &WriteCtx, v: Option<&Value>, f: &store::FieldDef| -> store::Result<Value> {
        Ok(match (v, f.kind) {
            (Some(Value::Number(n)), store::FieldKind::Money) => json!(store::format_money(n.as_i64().unwrap_or(0))),
            (Some(Value::Number(n)), store::FieldKind::Qty) => json!(store::format_qty(n.as_i64().unwrap_or(0))),
            (Some(Value::Number(n)), store::FieldKind::Long) => match f.refers.as_deref().and_then(|r| cx.res.find(r)) {
                Some(target) => {
                    let title = crate::engine::crud::title_field(&target).map(str::to_string);
                    let rec = n.as_u64().map(|id| w.get(&target, cx.tenant, id)).transpose()?.flatten();
                    match (rec, title) {
                        (Some(r), Some(t)) => r.get(&t).cloned().filter(|v| !v.is_null()).unwrap_or_else(|| json!(n.to_string())),
                        _ => json!(n.to_string()),
                    }
                }
                None => json!(n.to_string()),
            },
            (Some(v), _) if f.dict.is_some() => {
                let code = f.dict.as_deref().unwrap_or("");
                let key = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let dict = cx.def("dict");
                let q = store::Query { filters: vec![store::Filter::new("code", store::Op::Equal, json!(code)), store::Filter::new("dictKey", store::Op::Equal, json!(key))], limit: 2, ..Default::default() };
                let label = w.list(&dict, store::PLATFORM_TENANT, &q)?.records.into_iter().find(|e| e.get("parentId").and_then(Value::as_u64).unwrap_or(0) != 0).and_then(|e| e.get("dictValue").cloned());
                label.unwrap_or_else(|| v.clone())
            }
            (Some(v), _) => v.clone(),
            (None, _) => Value::Null,
        })
    };
    let mut changes = Vec::new();
    for f in def.fields.iter().filter(|f| !f.secret) {
        let (a, b) = (old.and_then(|o| o.get(&f.name)), new.and_then(|n| n.get(&f.name)));
        let (a, b) = (a.filter(|v| !v.is_null()), b.filter(|v| !v.is_null()));
        if a != b && (new.is_some() || a.is_some()) {
            changes.push(json!({"field": f.name, "label": f.label, "labelEn": f.label_en, "before": show(w, a, f)?, "after": show(w, b, f)?}));
        }
    }
    let action = match (old, new) {
        (None, Some(_)) => "add",
        (Some(_), Some(_)) => "update",
        _ => "remove",
    };
    if action == "update" && changes.is_empty() {
        return Ok(());
    }
    let id = new.or(old).and_then(|r| r.get("id")).and_then(Value::as_u64).unwrap_or(0);
    let rec = cx.def("op_record");
    let mut doc = Map::new();
    doc.insert("resource".into(), json!(def.name));
    doc.insert("recordId".into(), json!(id));
    doc.insert("action".into(), json!(action));
    doc.insert("changes".into(), Value::Array(changes));
    w.insert(&rec, cx.tenant, doc, cx.actor)?;
    Ok(())
}

/// The removal of `ids` as one write: each must exist in the tenant, pass the data scope and belong to `parent`
/// (else 404, naming nothing), pass the resource's rule and be named by no live record.
pub async fn remove_in_write(
    st: &AppState,
    s: &Session,
    def: &Arc<ResourceDef>,
    rules: Rules,
    ids: Vec<u64>,
    parent: Option<u64>,
    values: Vec<(String, String)>,
    guard: Option<Vec<Filter>>,
) -> ApiResult<u64> {
    let (d, env) = (def.clone(), Env::new(st, s));
    let decl = st.res.decl(&def.name);
    let parent_field = decl.as_ref().and_then(|d| d.parent.clone());
    st.write(move |w| {
        let cx = env.cx();
        for id in &ids {
            let rec = w.get(&d, cx.tenant, *id)?.ok_or(StoreError::NotFound)?;
            if !crate::auth::scope::admits(&guard, &rec) {
                return Err(StoreError::NotFound);
            }
            if let (Some(p), Some(field)) = (parent, parent_field.as_deref())
                && rec.get(field).and_then(Value::as_u64).unwrap_or(0) != p {
                return Err(StoreError::NotFound);
            }
            for (field, want) in &values {
                let got = match rec.get(field) {
                    Some(Value::String(v)) => v.clone(),
                    Some(Value::Null) | None => String::new(),
                    Some(v) => v.to_string(),
                };
                if got != *want {
                    return Err(StoreError::NotFound);
                }
            }
            if let Some(f) = rules.remove {
                f(w, &cx, &rec)?;
            }
            check_unused(w, &cx, &d, *id)?;
            if decl.as_ref().is_some_and(|d| d.history) {
                record_change(w, &cx, &d, Some(&rec), None)?;
            }
        }
        w.remove(&d, cx.tenant, &ids, cx.actor)
    })
    .await
}

