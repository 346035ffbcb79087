//! Excel import and export of users with one template both ways (`COLUMNS`): `GET export-template` (an
//! empty sheet), `GET export-user` (the page's filters and data scope, at most 10,000 rows) and
//! `POST import-user?isCovered=0|1` (multipart `file`, at most 2,000 rows). Departments, posts and roles are
//! written and read by name within the tenant. An import is all or nothing: any bad row refuses the file and
//! names the row. New accounts get no usable password (an administrator resets it, which shows a one-time
//! password); with `isCovered=1` existing accounts are updated, otherwise they are left alone.
use std::collections::HashMap;

use axum::extract::{FromRequest, Request, State};
use axum::response::Response;
use serde_json::{Map, Value, json};

use crate::auth::session::{Session, id_list};
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{QueryPairs, ok};
use crate::state::AppState;

/// (field, Chinese header). `deptName`, `postName` and `roleName` hold names, resolved in the tenant.
pub const COLUMNS: &[(&str, &str)] = &[
    ("account", "登录账号"),
    ("name", "用户昵称"),
    ("realName", "用户姓名"),
    ("code", "用户编号"),
    ("userType", "用户平台"),
    ("phone", "手机号码"),
    ("email", "电子邮箱"),
    ("sex", "用户性别"),
    ("birthday", "用户生日"),
    ("deptName", "所属部门"),
    ("postName", "所属岗位"),
    ("roleName", "所属角色"),
];
const IMPORT_MAX: usize = 2_000;
const EXPORT_MAX: u64 = 10_000;
const REFS: &[(&str, &str, &str, &str)] = &[("deptName", "deptId", "dept", "deptName"), ("postName", "postId", "post", "postName"), ("roleName", "roleId", "role", "roleName")];

type Names = HashMap<&'static str, HashMap<u64, String>>;

async fn names(st: &AppState, tenant: &str) -> ApiResult<Names> {
    let (st2, t) = (st.clone(), tenant.to_string());
    st.read(move |r| {
        let mut out: Names = HashMap::new();
        for (_, _, res, label) in REFS {
            let rows = r.all(&st2.res.get(res), &t)?;
            out.insert(res, rows.iter().map(|m| (m.get("id").and_then(store::parse_id_value).unwrap_or(0), m.get(*label).and_then(Value::as_str).unwrap_or("").to_string())).collect());
        }
        Ok(out)
    })
    .await
}

fn workbook(rows: &[Map<String, Value>], names: &Names) -> ApiResult<Vec<u8>> {
    let xl = |e: rust_xlsxwriter::XlsxError| ApiError::internal(e);
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    let bold = rust_xlsxwriter::Format::new().set_bold();
    for (i, (_, label)) in COLUMNS.iter().enumerate() {
        sheet.write_string_with_format(0, i as u16, *label, &bold).map_err(xl)?;
        sheet.set_column_width(i as u16, 16).map_err(xl)?;
    }
    for (r, u) in rows.iter().enumerate() {
        for (i, (field, _)) in COLUMNS.iter().enumerate() {
            let text = match REFS.iter().find(|x| x.0 == *field) {
                Some((_, idf, res, _)) => id_list(u.get(*idf)).iter().filter_map(|i| names[res].get(i)).cloned().collect::<Vec<_>>().join(","),
                None => match u.get(*field) {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Number(n)) => n.to_string(),
                    _ => String::new(),
                },
            };
            sheet.write_string(r as u32 + 1, i as u16, text).map_err(xl)?;
        }
    }
    book.save_to_buffer().map_err(xl)
}

/// GET export-template: the header row only.
pub async fn template(State(_st): State<AppState>, s: Session) -> ApiResult<Response> {
    s.require_any(&["user_import", "user_export"])?;
    Ok(crate::engine::xlsx::xlsx_response(workbook(&[], &Names::new())?, "user-template.xlsx"))
}

/// GET export-user?<page filters>: the users the page would show, in the template.
pub async fn export(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs) -> ApiResult<Response> {
    s.require("user_export")?;
    let pairs: Vec<(String, String)> = q.into_iter().filter(|(k, _)| k != "current" && k != "size").collect();
    let mut query = crate::api::user::admin::user_query(&st, &s, &pairs).await?;
    query.offset = 0;
    query.limit = EXPORT_MAX;
    let (d, t) = (st.res.get("user"), s.tenant.clone());
    let page = crate::engine::listq::run(&st, &d, &t, query).await?;
    let names = names(&st, &s.tenant).await?;
    Ok(crate::engine::xlsx::xlsx_response(workbook(&page.records, &names)?, "users.xlsx"))
}

/// The template's rows as field maps (header row checked against `COLUMNS`), read within `engine::sheet`'s bounds.
fn read_rows(bytes: &[u8]) -> ApiResult<Vec<Map<String, Value>>> {
    let rows = crate::engine::sheet::read(bytes, IMPORT_MAX, |header| {
        if header.len() < COLUMNS.len() || COLUMNS.iter().zip(header).any(|((_, want), got)| want != got) {
            return Err(ApiError::with(Kind::BadFormat, "template"));
        }
        Ok((0..COLUMNS.len()).collect())
    })?;
    Ok(rows
        .into_iter()
        .map(|r| {
            COLUMNS.iter().zip(r.cells()).filter(|(_, v)| !v.is_empty()).map(|((field, _), v)| (field.to_string(), json!(v))).collect()
        })
        .collect())
}

/// One row to a parsed user document; names resolved to ids of the tenant.
fn row_doc(st: &AppState, row: &Map<String, Value>, names: &Names, insert: bool) -> ApiResult<Map<String, Value>> {
    let mut input = row.clone();
    let mut refs = Map::new();
    for (col, idf, res, _) in REFS {
        if let Some(Value::String(v)) = input.remove(*col) {
            let mut ids = Vec::new();
            for name in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let id = names[res].iter().find(|(_, n)| n.as_str() == name).map(|(i, _)| *i).ok_or_else(|| ApiError::with(Kind::BadFormat, col.to_string()))?;
                ids.push(id.to_string());
            }
            refs.insert(idf.to_string(), json!(ids.join(",")));
        }
    }
    let mut doc = st.res.get("user").parse_input(&input, insert)?;
    doc.extend(refs);
    Ok(doc)
}

/// POST import-user?isCovered= (multipart `file`).
pub async fn import(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs, req: Request) -> ApiResult<Response> {
    s.require("user_import")?;
    let covered = q.iter().any(|(k, v)| k == "isCovered" && (v == "1" || v == "true"));
    let mp = axum::extract::Multipart::from_request(req, &st).await.map_err(|_| ApiError::with(Kind::BadFormat, "multipart"))?;
    let up = crate::engine::uploads::read_upload(&st, &s, mp, crate::engine::uploads::MAX_FILE).await?;
    let _slot = st.imports.enter(&s.tenant)?;
    let bytes = up.read_all().await?;
    let rows = tokio::task::spawn_blocking(move || read_rows(&bytes)).await.map_err(ApiError::internal)??;
    drop(up);
    if rows.iter().any(|r| r.contains_key("roleName")) {
        s.require("user_role")?;
    }
    let names = names(&st, &s.tenant).await?;
    let (d, t) = (st.res.get("user"), s.tenant.clone());
    let mut plan: Vec<(Option<u64>, Map<String, Value>)> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let account = row.get("account").and_then(Value::as_str).unwrap_or("").to_string();
        let existing = st.read_now(|r| r.find_unique(&d, &t, "account", &account))?;
        let at = |e: ApiError| ApiError::with(Kind::BadFormat, format!("row {}: {}", i + 2, e.message(crate::error::Lang::Zh)));
        match existing {
            Some(_) if !covered => continue,
            Some(id) => {
                crate::engine::crud::get_scoped(&st, &s, &d, id).await.map_err(at)?;
                plan.push((Some(id), row_doc(&st, row, &names, false).map_err(at)?));
            }
            None => plan.push((None, row_doc(&st, row, &names, true).map_err(at)?)),
        }
    }
    let skipped = rows.len() - plan.len();
    let (st2, actor) = (st.clone(), s.actor());
    let (inserted, updated) = st
        .write(move |w| {
            let d = st2.res.get("user");
            let (mut ins, mut upd) = (0, 0);
            for (id, doc) in &plan {
                let mut doc = doc.clone();
                match id {
                    Some(id) => {
                        w.update(&d, &t, *id, doc, &actor)?;
                        upd += 1;
                    }
                    None => {
                        doc.insert("passwordHash".into(), json!(""));
                        doc.insert("tokenVersion".into(), json!(0));
                        doc.insert("mustChangePassword".into(), json!(1));
                        w.insert(&d, &t, doc, &actor)?;
                        ins += 1;
                    }
                }
            }
            Ok((ins, upd))
        })
        .await?;
    Ok(ok(json!({"inserted": inserted, "updated": updated, "skipped": skipped})))
}
