//! The field schema the generic screens render from (`<base>/schema`).
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde_json::Value;
use store::ResourceDef;

use super::decorate::title_field;
use crate::auth::session::Session;
use crate::error::ApiResult;
use crate::http::ok;
use crate::state::AppState;

pub async fn schema_route(
    State(st): State<AppState>,
    s: Session,
    lang: axum::Extension<crate::error::Lang>,
    def: Arc<ResourceDef>,
    api: String,
) -> ApiResult<Response> {
    s.require(def.code())?;
    Ok(ok(schema(&st, &def, &api, lang.0).await?))
}

/// The field schema the UI renders a generic screen from: declared fields (secrets left out), their rules and
/// the entries of the dictionaries they bind.
pub async fn schema(st: &AppState, def: &ResourceDef, api: &str, lang: crate::error::Lang) -> ApiResult<Value> {
    let mut dicts = serde_json::Map::new();
    for code in def.fields.iter().filter_map(|f| f.dict.as_deref()) {
        let entries = crate::engine::dict::entries(st, code).await?;
        let list: Vec<Value> = entries
            .iter()
            .map(|e| {
                let label = match lang {
                    crate::error::Lang::En => e.get("dictValueEn").and_then(Value::as_str).filter(|s| !s.is_empty()),
                    crate::error::Lang::Zh => None,
                }
                .or_else(|| e.get("dictValue").and_then(Value::as_str));
                serde_json::json!({"dictKey": e.get("dictKey"), "dictValue": label})
            })
            .collect();
        dicts.insert(code.to_string(), Value::Array(list));
    }
    // The field a new record's code is made for when left empty (合同编号 HT…, 移库单号 YK…).
    let coded = st.res.decl(&def.name).and_then(|d| d.code.as_ref().map(|c| c.field.clone()));
    let fields: Vec<Value> = def
        .fields
        .iter()
        .filter(|f| !f.secret)
        .map(|f| {
            serde_json::json!({
                "autoCode": coded.as_deref() == Some(f.name.as_str()),
                "name": f.name, "kind": f.kind, "label": f.label, "labelEn": f.label_en, "required": f.required,
                "maxLen": f.max_len, "min": f.min, "max": f.max, "pattern": f.pattern, "filter": f.filter, "sort": f.sort,
                "search": f.search, "dict": f.dict, "list": f.list, "form": f.form && !f.readonly, "readonly": f.readonly,
                "default": f.default, "ui": f.ui, "mask": f.mask,
                // A comma-separated list of ids of another resource (`ui.control: "refs"`, `ui.refers`): picked like one.
                // A person picked for a form (项目经理, 处理人, 责任人) is someone who can sign in: technical workers'
                // accounts are not offered (`staff`), unless the field says so (`ui.staff: false`: a worker's own
                // 登录账号).
                "refers": f.refers.as_deref().or_else(|| f.ui.as_ref().filter(|u| u["control"] == "refs").and_then(|u| u["refers"].as_str())).and_then(|r| {
                    let mut p = ref_picker(st, r)?;
                    if r == "user" && f.ui.as_ref().and_then(|u| u.get("staff")) != Some(&Value::Bool(false)) {
                        p["staff"] = Value::Bool(true);
                    }
                    if let Some(code) = crate::decl::holds(f) {
                        p["holds"] = Value::String(code.to_string());
                    }
                    Some(p)
                }),
                "multi": f.multi,
                "keywordThrough": f.keyword_through,
            })
        })
        .collect();
    let dialect = st.res.decl(&def.name).map(|d| d.describe());
    Ok(serde_json::json!({
        "name": def.name, "label": def.label, "labelEn": def.label_en, "api": api, "platform": def.platform,
        "fields": fields, "dicts": dicts, "ui": def.ui, "dialect": dialect,
    }))
}

/// How a form picks a record of `resource`: its list route (`"METHOD path"`), the field shown and the key the
/// list answers it under (`<stem>Name` beside the id in the referring record); and `hint`, the code shown beside
/// the title in the choices (six goods are called 釉面墙砖, one each of SP00055, SP00056, …).
fn ref_picker(st: &AppState, resource: &str) -> Option<Value> {
    let target = st.res.find(resource)?;
    let title = title_field(&target)?.to_string();
    // The first of what tells its records apart in a picker (the lookup answers them all, joined).
    let hint = crate::engine::lookup::hint_fields(&target, &title).into_iter().next().map(|h| crate::engine::lookup::hint_key(&target, &h));
    let list = match st.res.decl(resource) {
        Some(d) => d.path(crate::engine::dialect::Action::List).or_else(|| d.path(crate::engine::dialect::Action::Page)).map(|(m, p)| format!("{m} {p}"))?,
        None if resource == "user" => "GET /api/blade-user/page".to_string(),
        None => format!("GET {}/list", crate::decl::screens(&st.res).into_iter().find(|(n, ..)| n == resource)?.1),
    };
    Some(serde_json::json!({"resource": resource, "list": list, "title": title, "hint": hint}))
}
