//! blade-develop and blade-report: code-generation records that become declared resources at runtime (menu entry
//! with buttons, API under `/api/blade-gen/{resource}/...` and the generic screen at `/gen/{resource}`, no restart,
//! nothing written outside the data file), data-source records (password write-only; the server never connects
//! to them) and the predefined reports.
use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{FieldDef, ResourceDef};

use crate::engine::{Api, Guard};
use crate::engine::crud;
use crate::auth::session::Session;
use crate::error::{ApiError, ApiResult, Kind, Lang};
use crate::http::{AnyParams, JsonObject, QueryPairs, ok};
use crate::decl::GENERATED_META;
use crate::state::AppState;

pub use crate::engine::routes::GEN_BASE;

pub fn routes(api: Api) -> Api {
    let (code, ds) = (api.def("code"), api.def("datasource"));
    let dsg = Guard::write(&ds, &["add", "edit"]);
    api.crud("/api/blade-develop/code", "code")
        .post("/api/blade-develop/code/gen-code", Guard::write(&code, &["gen"]), gen_code)
        .post("/api/blade-develop/code/copy", Guard::write(&code, &["copy"]), copy)
        .read("/api/blade-develop/datasource", "datasource")
        .remove("/api/blade-develop/datasource", "datasource")
        .post("/api/blade-develop/datasource/submit", dsg, move |st, s, b| crate::engine::crud::secret_submit(st, s, b, ds.clone(), crate::engine::crud::no_prepare))
        // The code generator's data-source picker (BladeX DatasourceController.select).
        .get("/api/blade-develop/datasource/select", Guard::any(&["datasource", "code"]), datasource_select)
        .read("/api/blade-report/report/rest", "report")
        .remove("/api/blade-report/report/rest", "report")
        .get(format!("{GEN_BASE}/{{res}}/list"), Guard::Generated(&[""]), gen_list)
        .get(format!("{GEN_BASE}/{{res}}/detail"), Guard::Generated(&[""]), gen_detail)
        .get(format!("{GEN_BASE}/{{res}}/schema"), Guard::Generated(&[""]), gen_schema)
        .get(format!("{GEN_BASE}/{{res}}/export"), Guard::Generated(&[""]), gen_export)
        .post(format!("{GEN_BASE}/{{res}}/submit"), Guard::Generated(&["_add", "_edit"]), gen_submit)
        .post(format!("{GEN_BASE}/{{res}}/remove"), Guard::Generated(&["_delete"]), gen_remove)
}

/// GET datasource/select: `[{id, name}]` of the data sources, for the code generator's picker (no connection
/// details: the URL and account are for the data-source screen only).
async fn datasource_select(State(st): State<AppState>, _s: Session) -> ApiResult<Response> {
    let def = st.res.get("datasource");
    let rows = st.read(move |r| r.all(&def, store::PLATFORM_TENANT)).await?;
    let out: Vec<Value> = rows.iter().map(|d| json!({"id": crate::wire::id_str(&d["id"]), "name": d.get("name"), "remark": d.get("remark")})).collect();
    Ok(ok(out))
}

fn generated(st: &AppState, name: &str) -> ApiResult<Arc<ResourceDef>> {
    st.res.generated(name).ok_or_else(|| ApiError::with(Kind::UnknownRoute, format!("{GEN_BASE}/{}", name.chars().take(40).collect::<String>())))
}

async fn gen_list(st: State<AppState>, Path(name): Path<String>, s: Session, raw: RawQuery, q: QueryPairs) -> ApiResult<Response> {
    let def = generated(&st, &name)?;
    crud::list(st, s, raw, q, def).await
}
async fn gen_detail(st: State<AppState>, Path(name): Path<String>, s: Session, q: QueryPairs) -> ApiResult<Response> {
    let def = generated(&st, &name)?;
    crud::detail(st, s, q, def).await
}
async fn gen_schema(st: State<AppState>, Path(name): Path<String>, s: Session, l: axum::Extension<Lang>) -> ApiResult<Response> {
    let def = generated(&st, &name)?;
    crud::schema_route(st, s, l, def, format!("{GEN_BASE}/{name}")).await
}
async fn gen_export(st: State<AppState>, Path(name): Path<String>, s: Session, q: QueryPairs, l: axum::Extension<Lang>) -> ApiResult<Response> {
    let def = generated(&st, &name)?;
    crate::engine::xlsx::export(st, s, q, l, def).await
}
async fn gen_submit(st: State<AppState>, Path(name): Path<String>, s: Session, b: JsonObject) -> ApiResult<Response> {
    let def = generated(&st, &name)?;
    crud::submit(st, s, b, def).await
}
async fn gen_remove(st: State<AppState>, Path(name): Path<String>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let def = generated(&st, &name)?;
    crud::remove(st, s, p, def).await
}

fn valid_name(n: &str) -> bool {
    let b = n.as_bytes();
    !b.is_empty() && b.len() <= 40 && b[0].is_ascii_lowercase() && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
}

/// A code record to a resource declaration; every problem is a 400 naming the field.
fn declaration(code: &Map<String, Value>) -> ApiResult<ResourceDef> {
    let name = code.get("modelName").and_then(Value::as_str).unwrap_or("").to_string();
    if !valid_name(&name) {
        return Err(ApiError::with(Kind::BadFormat, "modelName"));
    }
    let specs = code.get("fields").and_then(Value::as_array).ok_or_else(|| ApiError::with(Kind::WrongType, "fields"))?;
    if specs.is_empty() || specs.len() > 64 {
        return Err(ApiError::with(Kind::OutOfRange, "fields"));
    }
    let mut fields = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let mut f: FieldDef = serde_json::from_value(spec.clone()).map_err(|_| ApiError::with(Kind::BadFormat, format!("fields[{i}]")))?;
        let ok_name = f.name.len() <= 40 && f.name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) && f.name.chars().all(|c| c.is_ascii_alphanumeric());
        if !ok_name {
            return Err(ApiError::with(Kind::BadFormat, format!("fields[{i}].name")));
        }
        // Generated fields are plain data: no write-only or server-maintained columns.
        f.secret = false;
        f.readonly = false;
        f.refers = None;
        f.mask = false;
        if f.max_len.is_none() && matches!(f.kind, store::FieldKind::Text) {
            f.max_len = Some(255);
        }
        fields.push(f);
    }
    let def = ResourceDef {
        name,
        codes: None,
        label: code.get("codeName").and_then(Value::as_str).unwrap_or("").to_string(),
        label_en: code.get("labelEn").and_then(Value::as_str).unwrap_or("").to_string(),
        platform: false,
        fields,
        append_only: false,
        packed: false,
        plain: false,
        ignore: Vec::new(),
        ui: None,
        api: None,
        access: None,
        index_keys: Default::default(),
    };
    def.check().map_err(|e| ApiError::with(Kind::BadFormat, e.chars().take(120).collect::<String>()))?;
    Ok(def)
}

/// POST gen-code?ids=: each code record becomes a declared resource now: its declaration is kept in the data
/// file, a menu entry with add/edit/delete/view buttons is created under its group (`tool` 研发工具 or `biz`
/// 业务管理), and its API and screen answer at once.
async fn gen_code(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let code_def = st.res.get("code");
    crud::check_write(&s, &code_def, "gen")?;
    let ids = crud::parse_ids(p.get("ids"))?;
    let (d, ids2) = (code_def.clone(), ids.clone());
    let records = st
        .read(move |r| {
            let mut out = Vec::new();
            for id in &ids2 {
                if let Some(rec) = r.get(&d, store::PLATFORM_TENANT, *id)? {
                    out.push(rec);
                }
            }
            Ok(out)
        })
        .await?;
    if records.is_empty() {
        return Err(ApiError::new(Kind::NotFound));
    }
    let mut defs = Vec::new();
    for rec in &records {
        let def = declaration(rec)?;
        if st.res.try_get(&def.name).is_some() && st.res.generated(&def.name).is_none() {
            return Err(ApiError::with(Kind::NameTaken, def.name));
        }
        let group = rec.get("menuGroup").and_then(Value::as_str).unwrap_or("tool");
        let group = if group == "biz" { "biz" } else { "tool" };
        defs.push((def, group.to_string(), rec.get("id").and_then(Value::as_u64).unwrap_or(0)));
    }
    let (menu_def, actor, d2, code_def2) = (st.res.get("menu"), s.actor(), defs.clone(), code_def.clone());
    st.write(move |w| -> store::Result<Result<(), String>> {
        let mut kept: Vec<ResourceDef> = match w.meta(GENERATED_META)? {
            Some(raw) => serde_json::from_slice(&raw)?,
            None => Vec::new(),
        };
        for (def, group, code_id) in &d2 {
            let path = format!("/gen/{}", def.name);
            match w.find_unique(&menu_def, store::PLATFORM_TENANT, "code", &def.name)? {
                Some(mid) => {
                    let m = w.get(&menu_def, store::PLATFORM_TENANT, mid)?.unwrap_or_default();
                    if m.get("path").and_then(Value::as_str) != Some(path.as_str()) {
                        return Ok(Err(def.name.clone()));
                    }
                }
                None => {
                    for b in ["add", "edit", "delete", "view"] {
                        if w.find_unique(&menu_def, store::PLATFORM_TENANT, "code", &format!("{}_{b}", def.name))?.is_some() {
                            return Ok(Err(def.name.clone()));
                        }
                    }
                    let parent = w.find_unique(&menu_def, store::PLATFORM_TENANT, "code", group)?.unwrap_or(0);
                    let menu = json!({"parentId": parent, "code": def.name, "name": def.label, "nameEn": def.label_en, "alias": "menu",
                        "path": path, "source": "code", "sort": 100, "category": 1, "action": 0, "isOpen": 1,
                        "platformOnly": i64::from(group == "tool"), "remark": "generated"});
                    let mid = w.insert(&menu_def, store::PLATFORM_TENANT, menu.as_object().cloned().unwrap_or_default(), &actor)?["id"].as_u64().unwrap_or(0);
                    for (i, (b, label, action)) in [("add", "新增", 1), ("edit", "修改", 2), ("delete", "删除", 3), ("view", "查看", 2)].iter().enumerate() {
                        let btn = json!({"parentId": mid, "code": format!("{}_{b}", def.name), "name": label, "alias": b, "path": "",
                            "source": "", "sort": i + 1, "category": 2, "action": action, "isOpen": 1, "platformOnly": i64::from(group == "tool"), "remark": "generated"});
                        w.insert(&menu_def, store::PLATFORM_TENANT, btn.as_object().cloned().unwrap_or_default(), &actor)?;
                    }
                }
            }
            kept.retain(|k| k.name != def.name);
            kept.push(def.clone());
            // Generated again with other filters or sorts: its records' index entries follow in the same commit.
            w.reconcile_index(def)?;
            let mut patch = Map::new();
            patch.insert("generated".into(), json!(1));
            w.update(&code_def2, store::PLATFORM_TENANT, *code_id, patch, &actor)?;
        }
        w.put_meta(GENERATED_META, &serde_json::to_vec(&kept)?)?;
        Ok(Ok(()))
    })
    .await?
    .map_err(|name| ApiError::with(Kind::NameTaken, name))?;
    let mut names = Vec::new();
    for (def, ..) in defs {
        names.push(def.name.clone());
        st.res.add_generated(def).map_err(ApiError::internal)?;
    }
    st.perms.invalidate();
    st.logs.usual(&s.tenant, s.user_id, "code_gen", &format!("generated resources: {}", names.join(","))).await;
    Ok(ok(json!({"resources": names.iter().map(|n| json!({"name": n, "api": format!("{GEN_BASE}/{n}"), "path": format!("/gen/{n}")})).collect::<Vec<_>>()})))
}

/// POST copy?id=: a copy of a code record under a new resource name (`<name>_copy`, `<name>_copy2`, ...).
async fn copy(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let def = st.res.get("code");
    crud::check_write(&s, &def, "copy")?;
    let id = crud::parse_id(p.get("id"))?;
    let (d, actor) = (def.clone(), s.actor());
    let saved = st
        .write(move |w| {
            let mut rec = w.get(&d, store::PLATFORM_TENANT, id)?.ok_or(store::StoreError::NotFound)?;
            let base = rec.get("modelName").and_then(Value::as_str).unwrap_or("copy").to_string();
            let mut n = 1;
            let name = loop {
                let cand = if n == 1 { format!("{base}_copy") } else { format!("{base}_copy{n}") };
                if w.find_unique(&d, store::PLATFORM_TENANT, "modelName", &cand)?.is_none() {
                    break cand;
                }
                n += 1;
            };
            let mut doc = Map::new();
            for f in &d.fields {
                if let Some(v) = rec.remove(&f.name) {
                    doc.insert(f.name.clone(), v);
                }
            }
            doc.insert("modelName".into(), json!(name));
            doc.insert("generated".into(), json!(0));
            w.insert(&d, store::PLATFORM_TENANT, doc, &actor)
        })
        .await?;
    Ok(ok(crate::wire::record(&def, st.settings.zone, saved)))
}

/// 开发: code generation and data sources: routes only.
pub const AREA: crate::api::Area = crate::api::Area::routes_only("develop", routes);
