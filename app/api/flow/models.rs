//! Models (流程模型: editable drafts) and deployed definitions (流程管理: immutable versions).
//!
//! A model is saved only when its definition passes `flow::check` (every problem names its node;
//! `model/check` answers them all without saving, for the designer). `model/deploy` makes version n+1 of the
//! model's key; running instances keep the version they started on. `manager/deploy-upload` deploys BPMN 2.0
//! files of the engine's subset. A suspended version starts nothing; a deleted deployment ends its running
//! instances as deleted and is kept (hidden) so their history still reads.
use axum::extract::{FromRequest, Request, State};
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, Sort, StoreError, WriteCtx};

use super::F;
use super::runtime::{definition_of, id, int, obj, text};
use crate::auth::session::Session;
use crate::engine::dialect::{Ctx, Env};
use crate::engine::params::{id_param, page_json, page_of};
use crate::engine::{Api, Guard, crud};
use crate::error::{ApiError, ApiResult, Kind, rule};
use crate::http::{AnyParams, JsonObject, ok};
use crate::state::AppState;

pub fn routes(api: Api) -> Api {
    let model = api.def("flow_model");
    let base = format!("{F}/model");
    api.read(&base, "flow_model")
        .post(format!("{base}/submit"), Guard::write(&model, &["add", "edit"]), model_submit)
        .doc("模型设计 · saves a model: body {id?, modelKey, name, category, description, definition: {variables, nodes, flows}}; refused with the first problem when the definition does not pass its checks", &[])
        .post(format!("{base}/check"), Guard::write(&model, &["add", "edit"]), model_check)
        .doc("模型设计 · checks a definition without saving: every problem with the node, flow or variable it concerns (body {definition})", &[])
        .remove(&base, "flow_model")
        .post(format!("{base}/deploy"), Guard::code("flow_model_deploy"), model_deploy)
        .doc("部署 · deploys a model as the next version of its key (modelId, category optional; tenantIds: the platform administrator deploys into these tenants)", &[])
        .get(format!("{F}/manager/list"), Guard::code("flow_manager"), manager_list)
        .doc("流程管理 · the latest deployed version of every process (query: category, name, processKey: every version of that key)", &[])
        .post(format!("{F}/manager/change-state"), Guard::code("flow_manager_state"), change_state)
        .doc("流程管理 · suspends or activates a deployed version (state=active|suspend, processId)", &[])
        .post_upload(format!("{F}/manager/deploy-upload"), Guard::code("flow_manager_upload"), deploy_upload)
        .doc("上传部署 · multipart: category, tenantIds, files (BPMN 2.0 XML of the engine's subset, at most 1 MB each; DTDs and entities refused; any other element refused naming its id)", &[])
        .post(format!("{F}/manager/delete-deployment"), Guard::code("flow_manager_delete"), delete_deployment)
        .doc("流程管理 · deletes deployed versions (deploymentIds): their running instances end as deleted", &[])
}

/// The definition in a request: an object, or its JSON text.
fn definition_param(b: &Map<String, Value>) -> ApiResult<flow::Definition> {
    let v = match b.get("definition") {
        Some(Value::String(s)) => serde_json::from_str::<Value>(s).map_err(|_| ApiError::with(Kind::BadFormat, "definition"))?,
        Some(v @ Value::Object(_)) => v.clone(),
        _ => return Err(ApiError::with(Kind::Missing, "definition")),
    };
    serde_json::from_value(v).map_err(|e| {
        let msg: String = e.to_string().chars().take(200).collect();
        ApiError::rule(format!("流程定义格式不正确:{msg}"), format!("The definition is malformed: {msg}"))
    })
}

fn first_problem(p: &[flow::Problem]) -> ApiError {
    let more = if p.len() > 1 { format!("(共 {} 处问题)", p.len()) } else { String::new() };
    let more_en = if p.len() > 1 { format!(" ({} problems in all)", p.len()) } else { String::new() };
    ApiError::rule(format!("{}{more}", p[0].msg), format!("{}{more_en}", p[0].msg_en))
}

async fn model_check(JsonObject(b): JsonObject) -> ApiResult<Response> {
    let def = definition_param(&b)?;
    Ok(ok(json!({"problems": flow::check(&def)})))
}

async fn model_submit(State(st): State<AppState>, s: Session, JsonObject(mut b): JsonObject) -> ApiResult<Response> {
    let def = definition_param(&b)?;
    let problems = flow::check(&def);
    if !problems.is_empty() {
        return Err(first_problem(&problems));
    }
    b.insert("definition".into(), serde_json::to_value(&def).map_err(ApiError::internal)?);
    b.remove("version");
    let rdef = st.res.get("flow_model");
    let saved = crud::save(&st, &s, &b, &rdef).await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &rdef, saved).await?))
}

/// Deploys a checked definition as the next version of `key` in the transaction's tenant.
#[allow(clippy::too_many_arguments)]
pub fn deploy_in(w: &mut WriteCtx, cx: &Ctx, key: &str, name: &str, category: i64, def: &flow::Definition, model: u64, resource: &str) -> store::Result<Map<String, Value>> {
    let pdef = cx.def("flow_process");
    let q = Query { filters: vec![Filter::new("processKey", Op::Equal, json!(key))], limit: 100_000, ..Query::default() };
    let versions = w.list(&pdef, cx.tenant, &q)?.records;
    let next = versions.iter().map(|v| int(v, "version")).max().unwrap_or(0) + 1;
    for v in versions.iter().filter(|v| int(v, "latest") == 1) {
        w.update(&pdef, cx.tenant, id(v, "id"), obj(json!({"latest": 0})), cx.actor)?;
    }
    let doc = obj(json!({
        "processKey": key, "name": name, "category": category, "version": next, "latest": 1, "suspensionState": 1,
        "modelId": model, "resourceName": resource, "definition": serde_json::to_value(def).unwrap_or(Value::Null), "deploymentTime": cx.now,
    }));
    w.insert(&pdef, cx.tenant, doc, cx.actor)
}

/// `tenantIds`: where a deployment goes. Only the platform administrator names other tenants.
fn target_tenants(st: &AppState, s: &Session, raw: Option<&str>) -> ApiResult<Vec<String>> {
    let ids: Vec<String> = raw.unwrap_or("").split(',').map(str::trim).filter(|t| !t.is_empty() && *t != "null").map(str::to_string).collect();
    if ids.is_empty() || ids == [s.tenant.clone()] {
        return Ok(vec![s.tenant.clone()]);
    }
    if !s.is_platform_admin() {
        return Err(ApiError::new(Kind::PlatformOnly));
    }
    let tdef = st.res.get("tenant");
    let known: Vec<String> = st.read_now(|r| r.all(&tdef, store::PLATFORM_TENANT))?.iter().map(|t| text(t, "tenantId").to_string()).collect();
    for t in &ids {
        if !known.contains(t) {
            return Err(ApiError::with(Kind::TenantNotFound, t.clone()));
        }
    }
    Ok(ids)
}

async fn model_deploy(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let mid = id_param(&p, &["modelId", "id"])?;
    let cat = match p.get("category").map(|c| c.trim().trim_start_matches("flow_")).filter(|c| !c.is_empty()) {
        Some(c) => Some(c.parse::<i64>().map_err(|_| ApiError::with(Kind::BadFormat, "category"))?),
        None => None,
    };
    let tenants = target_tenants(&st, &s, p.get("tenantIds"))?;
    let env = Env::new(&st, &s);
    let out = st
        .write(move |w| {
            let cx = env.cx();
            let mdef = cx.def("flow_model");
            let model = w.get(&mdef, cx.tenant, mid)?.ok_or(StoreError::NotFound)?;
            let def = definition_of(&model);
            let problems = flow::check(&def);
            if let Some(p) = problems.first() {
                return Err(rule(&p.msg, &p.msg_en));
            }
            let category = cat.unwrap_or_else(|| int(&model, "category"));
            let mut versions = Vec::new();
            for t in &tenants {
                let tcx = Ctx { tenant: t, ..env.cx() };
                let d = deploy_in(w, &tcx, text(&model, "modelKey"), text(&model, "name"), category, &def, mid, &format!("{}.json", text(&model, "modelKey")))?;
                versions.push(json!({"tenantId": t, "processId": id(&d, "id").to_string(), "version": int(&d, "version")}));
            }
            let v = versions.first().and_then(|v| v["version"].as_i64()).unwrap_or(0);
            w.update(&mdef, cx.tenant, mid, obj(json!({"version": v})), cx.actor)?;
            Ok(versions)
        })
        .await?;
    Ok(ok(json!({"deployed": out})))
}

/// A deployed version in BladeX's `FlowProcess` shape.
pub fn process_row(p: &Map<String, Value>, tenant: &str, cats: &std::collections::HashMap<String, String>) -> Map<String, Value> {
    let cat = int(p, "category");
    let mut m = Map::new();
    for (k, v) in [
        ("id", json!(id(p, "id").to_string())),
        ("tenantId", json!(tenant)),
        ("name", json!(text(p, "name"))),
        ("key", json!(text(p, "processKey"))),
        ("category", json!(cat.to_string())),
        ("categoryName", json!(cats.get(&cat.to_string()).cloned().unwrap_or_default())),
        ("version", json!(int(p, "version"))),
        ("latest", json!(int(p, "latest") == 1)),
        ("deploymentId", json!(id(p, "id").to_string())),
        ("resourceName", json!(text(p, "resourceName"))),
        ("diagramResourceName", json!(text(p, "resourceName"))),
        ("suspensionState", json!(int(p, "suspensionState"))),
        ("deploymentTime", json!(text(p, "deploymentTime"))),
        ("variables", p.get("definition").and_then(|d| d.get("variables")).cloned().unwrap_or(json!([]))),
    ] {
        m.insert(k.into(), v);
    }
    m
}

/// The tenant whose deployments a manager route acts on: the caller's, or for the platform administrator the
/// one named by `tenantId` (models are designed on the platform and deployed into tenants).
fn managed_tenant(st: &AppState, s: &Session, p: &AnyParams) -> ApiResult<String> {
    match p.get("tenantId").map(str::trim).filter(|t| !t.is_empty() && *t != s.tenant) {
        Some(t) => Ok(target_tenants(st, s, Some(t))?.remove(0)),
        None => Ok(s.tenant.clone()),
    }
}

/// A page of deployed versions matching `filters`, newest deployment first.
pub async fn process_page(st: &AppState, s: &Session, p: &AnyParams, filters: Vec<Filter>) -> ApiResult<Value> {
    process_page_in(st, &s.tenant, p, filters).await
}

async fn process_page_in(st: &AppState, tenant: &str, p: &AnyParams, mut filters: Vec<Filter>) -> ApiResult<Value> {
    let (current, size) = page_of(p)?;
    if let Some(n) = p.get("name").map(str::trim).filter(|n| !n.is_empty()) {
        filters.push(Filter::new("name", Op::Contains, json!(n)));
    }
    let (res, t) = (st.res.clone(), tenant.to_string());
    let q = Query { filters, offset: (current - 1) * size, limit: size, sorts: vec![Sort { field: "id".into(), desc: true }], ..Query::default() };
    let page = st.read(move |r| r.list(&res.get("flow_process"), &t, &q)).await?;
    let cats = (*crud::dict_labels(st, "flow").await?).clone();
    Ok(page_json(page.records.iter().map(|r| process_row(r, tenant, &cats)).collect(), page.total, current, size))
}

async fn manager_list(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let mut f = match p.get("processKey").or_else(|| p.get("key")).map(str::trim).filter(|k| !k.is_empty()) {
        // Every live version of one key.
        Some(k) => vec![Filter::new("processKey", Op::Equal, json!(k))],
        None => vec![Filter::new("latest", Op::Equal, json!(1))],
    };
    f.push(Filter::new("suspensionState", Op::In, json!([1, 2])));
    if let Some(c) = super::category_param(&p)? {
        f.push(Filter::new("category", Op::Equal, json!(c)));
    }
    let tenant = managed_tenant(&st, &s, &p)?;
    Ok(ok(process_page_in(&st, &tenant, &p, f).await?))
}

async fn change_state(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let pid = id_param(&p, &["processId", "id"])?;
    let state = match p.get("state").unwrap_or("") {
        "active" => 1,
        "suspend" => 2,
        _ => return Err(ApiError::with(Kind::BadFormat, "state")),
    };
    let tenant = managed_tenant(&st, &s, &p)?;
    let env = Env::new(&st, &s);
    st.write(move |w| {
        let cx = Ctx { tenant: &tenant, ..env.cx() };
        let pdef = cx.def("flow_process");
        let rec = w.get(&pdef, cx.tenant, pid)?.ok_or(StoreError::NotFound)?;
        if int(&rec, "suspensionState") == 3 {
            return Err(StoreError::NotFound);
        }
        w.update(&pdef, cx.tenant, pid, obj(json!({"suspensionState": state})), cx.actor)
    })
    .await?;
    Ok(ok(Value::Null))
}

async fn delete_deployment(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let ids = crud::parse_ids(p.get("deploymentIds").or_else(|| p.get("ids")))?;
    let tenant = managed_tenant(&st, &s, &p)?;
    let env = Env::new(&st, &s);
    let ended = st
        .write(move |w| {
            let cx = Ctx { tenant: &tenant, ..env.cx() };
            let pdef = cx.def("flow_process");
            let mut ended = 0u64;
            for pid in &ids {
                let rec = w.get(&pdef, cx.tenant, *pid)?.ok_or(StoreError::NotFound)?;
                if int(&rec, "suspensionState") == 3 {
                    return Err(StoreError::NotFound);
                }
                let q = Query { filters: vec![Filter::new("processId", Op::Equal, json!(pid)), Filter::new("running", Op::Equal, json!(1))], limit: 1_000_000, ..Query::default() };
                for i in w.list(&cx.def("flow_instance"), cx.tenant, &q)?.records {
                    super::runtime::delete(w, &cx, id(&i, "id"), "流程部署已删除")?;
                    ended += 1;
                }
                w.update(&pdef, cx.tenant, *pid, obj(json!({"suspensionState": 3, "latest": 0})), cx.actor)?;
                // The newest remaining version of the key becomes the latest.
                if int(&rec, "latest") == 1 {
                    let q = Query { filters: vec![Filter::new("processKey", Op::Equal, json!(text(&rec, "processKey")))], limit: 100_000, ..Query::default() };
                    let next = w.list(&pdef, cx.tenant, &q)?.records.into_iter().filter(|v| int(v, "suspensionState") != 3 && id(v, "id") != *pid).max_by_key(|v| int(v, "version"));
                    if let Some(n) = next {
                        w.update(&pdef, cx.tenant, id(&n, "id"), obj(json!({"latest": 1})), cx.actor)?;
                    }
                }
            }
            Ok(ended)
        })
        .await?;
    Ok(ok(json!({"endedInstances": ended})))
}

async fn deploy_upload(State(st): State<AppState>, s: Session, req: Request) -> ApiResult<Response> {
    let mut mp = axum::extract::Multipart::from_request(req, &st).await.map_err(|_| ApiError::with(Kind::BadFormat, "multipart"))?;
    let (mut category, mut tenant_ids, mut files) = (None::<String>, None::<String>, Vec::<(String, String)>::new());
    while let Some(field) = mp.next_field().await.map_err(|_| ApiError::with(Kind::BadFormat, "multipart"))? {
        let name = field.name().unwrap_or("").to_string();
        match name.as_str() {
            "category" => category = Some(field.text().await.map_err(|_| ApiError::with(Kind::BadFormat, "category"))?),
            "tenantIds" => tenant_ids = Some(field.text().await.map_err(|_| ApiError::with(Kind::BadFormat, "tenantIds"))?),
            "files" | "file" => {
                if files.len() >= 10 {
                    return Err(ApiError::with(Kind::OutOfRange, "files"));
                }
                let fname = field.file_name().unwrap_or("process.bpmn").chars().take(100).collect::<String>();
                let bytes = field.bytes().await.map_err(|_| ApiError::new(Kind::PayloadTooLarge))?;
                if bytes.len() > flow::bpmn::MAX_BYTES {
                    return Err(ApiError::new(Kind::PayloadTooLarge));
                }
                let text = String::from_utf8(bytes.to_vec()).map_err(|_| ApiError::new(Kind::FileType))?;
                files.push((fname, text));
            }
            _ => {}
        }
    }
    if files.is_empty() {
        return Err(ApiError::with(Kind::Missing, "files"));
    }
    let cat = match category.as_deref().map(|c| c.trim().trim_start_matches("flow_")).filter(|c| !c.is_empty()) {
        Some(c) => c.parse::<i64>().map_err(|_| ApiError::with(Kind::BadFormat, "category"))?,
        None => return Err(ApiError::with(Kind::Missing, "category")),
    };
    let tenants = target_tenants(&st, &s, tenant_ids.as_deref())?;
    let mut parsed = Vec::new();
    for (fname, text) in files {
        let imp = flow::bpmn::import(&text).map_err(|p| ApiError::rule(format!("{fname}:{}", p.msg), format!("{fname}: {}", p.msg_en)))?;
        let problems = flow::check(&imp.def);
        if !problems.is_empty() {
            let e = first_problem(&problems);
            return Err(ApiError::rule(format!("{fname}:{}", e.message(crate::error::Lang::Zh)), format!("{fname}: {}", e.message(crate::error::Lang::En))));
        }
        parsed.push((fname, imp));
    }
    let env = Env::new(&st, &s);
    let out = st
        .write(move |w| {
            let mut out = Vec::new();
            for t in &tenants {
                let tcx = Ctx { tenant: t, ..env.cx() };
                for (fname, imp) in &parsed {
                    let d = deploy_in(w, &tcx, &imp.key, &imp.name, cat, &imp.def, 0, fname)?;
                    out.push(json!({"tenantId": t, "processId": id(&d, "id").to_string(), "key": imp.key, "version": int(&d, "version")}));
                }
            }
            Ok(out)
        })
        .await?;
    Ok(ok(json!({"deployed": out})))
}

// ---------------------------------------------------------------------------------------------------------
// Seeded processes

/// The leave process: the approver chosen on the form approves (the department leader when none is chosen);
/// more than 3 days also goes to an administrator (candidates: holders of the `admin` role, one
/// claims). A rejection goes back to the applicant (调整申请), who resubmits or gives up.
pub fn leave_definition() -> flow::Definition {
    serde_json::from_value(json!({
        "variables": [
            {"name": "days", "label": "请假天数", "type": "number", "required": true},
            {"name": "taskUser", "label": "审批人员", "type": "user"},
            {"name": "reason", "label": "请假理由", "type": "text"}
        ],
        "nodes": [
            {"id": "start", "type": "start", "name": "提交申请", "x": 40, "y": 160},
            {"id": "leader", "type": "task", "name": "部门领导审批", "assign": {"kind": "leader"}, "rejectTo": "adjust", "dueHours": 24, "x": 180, "y": 160},
            {"id": "days", "type": "exclusive", "name": "请假天数", "default": "short", "x": 340, "y": 160},
            {"id": "admin", "type": "task", "name": "管理员审批", "assign": {"kind": "role", "role": "admin"}, "mode": "claim", "rejectTo": "adjust", "dueHours": 24, "x": 480, "y": 60},
            {"id": "adjust", "type": "task", "name": "调整申请", "assign": {"kind": "starter"}, "x": 340, "y": 290},
            {"id": "end", "type": "end", "name": "结束", "x": 640, "y": 160}
        ],
        "flows": [
            {"id": "f_start", "from": "start", "to": "leader"},
            {"id": "f_leader", "from": "leader", "to": "days"},
            {"id": "long", "from": "days", "to": "admin", "name": "超过3天", "condition": "days > 3"},
            {"id": "short", "from": "days", "to": "end", "name": "3天以内"},
            {"id": "f_admin", "from": "admin", "to": "end"},
            {"id": "f_adjust", "from": "adjust", "to": "leader"}
        ]
    }))
    .expect("the leave definition")
}

/// Construction approvals (spec §4 apply types): 1 量房模型 (the measure model), 2 人工组织申请 (crew
/// organisation): the type's approvers (审批人员, `approval_user`; the administrators when none are set) are
/// candidates, one claims and decides.
fn construction_definitions() -> Vec<(&'static str, &'static str, flow::Definition)> {
    let one = |task: Value| -> flow::Definition {
        serde_json::from_value(json!({
            "variables": [{"name": "constructId", "label": "施工单", "type": "text"}, {"name": "remark", "label": "说明", "type": "text"}],
            "nodes": [
                {"id": "start", "type": "start", "name": "提交审批", "x": 40, "y": 120},
                task,
                {"id": "end", "type": "end", "name": "结束", "x": 420, "y": 120}
            ],
            "flows": [{"id": "f1", "from": "start", "to": "check"}, {"id": "f2", "from": "check", "to": "end"}]
        }))
        .expect("a construction approval definition")
    };
    vec![
        ("measure_model", "量房模型审批", one(json!({"id": "check", "type": "task", "name": "量房模型审核", "assign": {"kind": "group", "group": "measure_model"}, "mode": "claim", "dueHours": 48, "x": 230, "y": 120}))),
        ("crew_apply", "人工组织申请", one(json!({"id": "check", "type": "task", "name": "人工组织审批", "assign": {"kind": "group", "group": "crew_apply"}, "mode": "claim", "dueHours": 48, "x": 230, "y": 120}))),
    ]
}

/// Adds the seeded models, deployed, to a tenant that has none of them (first start, new tenants, upgrades).
pub fn seed_tenant(w: &mut WriteCtx, res: &crate::decl::Resources, tenant: &str) -> store::Result<()> {
    let mdef = res.get("flow_model");
    let actor = store::Actor::default();
    let now = super::runtime::seed_clock().format("%Y-%m-%d %H:%M:%S").to_string();
    let cx = Ctx { tenant, actor: &actor, res, now: &now };
    let mut all = vec![("leave", "请假流程", 1, leave_definition())];
    for (k, n, d) in construction_definitions() {
        all.push((k, n, 2, d));
    }
    for (key, name, cat, def) in all {
        if w.find_unique(&mdef, tenant, "modelKey", key)?.is_some() {
            continue;
        }
        debug_assert!(flow::check(&def).is_empty(), "{key}: {:?}", flow::check(&def));
        let m = w.insert(&mdef, tenant, obj(json!({"modelKey": key, "name": name, "category": cat, "definition": serde_json::to_value(&def).unwrap_or(Value::Null), "description": "系统预置流程"})), &actor)?;
        let d = deploy_in(w, &cx, key, name, cat, &def, id(&m, "id"), &format!("{key}.json"))?;
        w.update(&mdef, tenant, id(&m, "id"), obj(json!({"version": int(&d, "version")})), &actor)?;
    }
    Ok(())
}
