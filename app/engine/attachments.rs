//! Files a record names by their links (`/files/<tenant>/<key>`, comma-separated): each must be a file uploaded
//! to this tenant (`put-file`) that is either already the owner's or uploaded by the writer and nobody's yet, and
//! it becomes the owner's (`attach.boundTo`, `<resource>:<id>`) in the transaction that names it: who may download
//! it follows who may see that record (`resource::files`). Anything else (another tenant's file, an outside
//! address, a script URL, another record's file, someone else's upload) is refused, so a link is always one of
//! ours and nobody's file can be taken over.
//!
//! A declared field takes this with `ui.control: "files"` and `ui.attach: "self"` (a document's 文件, a
//! rectification's 照片), its files' original names kept in the field `ui.names` names; the work orders bind a
//! reply's files to its order (`api::worklist`).
use serde_json::{Map, Value, json};
use store::{ResourceDef, WriteCtx};

use crate::engine::dialect::Ctx;
use crate::engine::rec::{id, obj, text};
use crate::error::rule;

/// Most files on one field.
pub const MAX_FILES: usize = 10;

/// The comma-separated links of a value.
fn links_of(links: &str) -> Vec<&str> {
    links.split(',').map(str::trim).filter(|l| !l.is_empty()).collect()
}

/// The attach record a link names in this tenant, if any.
fn file_of(w: &WriteCtx, cx: &Ctx, link: &str) -> store::Result<Option<Map<String, Value>>> {
    let def = cx.def("attach");
    let key = link.strip_prefix(&format!("/files/{}/", cx.tenant)).filter(|k| k.len() == 32 && k.bytes().all(|b| b.is_ascii_hexdigit()));
    Ok(match key {
        Some(k) => w.find_unique(&def, cx.tenant, "fileKey", k)?.map(|i| w.get(&def, cx.tenant, i)).transpose()?.flatten(),
        None => None,
    })
}

/// The files' original names in the order of `links`, as a JSON array (what a screen shows for them), each link
/// named anew checked for `owner` (`<resource>:<id>`; None for a record not written yet). Links the record held
/// already (`kept`) are not checked again: a file removed since (附件管理) leaves its record savable.
pub fn names(w: &WriteCtx, cx: &Ctx, links: &str, owner: Option<&str>, kept: &str) -> store::Result<String> {
    let (links, kept) = (links_of(links), links_of(kept));
    if links.len() > MAX_FILES {
        return Err(rule(format!("最多 {MAX_FILES} 个附件"), format!("At most {MAX_FILES} files")));
    }
    let mut names = Vec::new();
    for l in links {
        let found = file_of(w, cx, l)?;
        if kept.contains(&l) {
            names.push(found.map(|f| text(&f, "originalName").to_string()).unwrap_or_else(|| "(文件已删除)".to_string()));
            continue;
        }
        let shown: String = l.chars().take(60).collect();
        let Some(f) = found else {
            return Err(rule(format!("附件 {shown} 不是本系统上传的文件,请通过上传添加"), format!("Attachment {shown} is not a file uploaded here; add it by uploading")));
        };
        let bound = text(&f, "boundTo");
        if !bound.is_empty() && Some(bound) != owner {
            return Err(rule(format!("附件 {shown} 已属于其他记录,请重新上传"), format!("Attachment {shown} belongs to another record; upload it again")));
        }
        if bound.is_empty() && f.get("createUser").and_then(Value::as_u64) != Some(cx.actor.user_id) {
            return Err(rule(format!("附件 {shown} 不是您上传的文件,请自己上传"), format!("Attachment {shown} was not uploaded by you; upload it yourself")));
        }
        names.push(text(&f, "originalName").to_string());
    }
    Ok(serde_json::to_string(&names).unwrap_or_default())
}

/// Binds the files of `links` that are nobody's yet and the writer's own uploads to `owner`, in the transaction
/// that names them (checked by `names` before the write); a file bound already or removed since is left as it is.
pub fn bind(w: &mut WriteCtx, cx: &Ctx, links: &str, owner: &str) -> store::Result<()> {
    let def = cx.def("attach");
    for l in links_of(links) {
        let Some(f) = file_of(w, cx, l)? else { continue };
        if text(&f, "boundTo").is_empty() && f.get("createUser").and_then(Value::as_u64) == Some(cx.actor.user_id) {
            w.update(&def, cx.tenant, id(&f, "id"), obj(json!({"boundTo": owner})), cx.actor)?;
        }
    }
    Ok(())
}

/// The fields of `def` whose files are the record's own (`ui.attach: "self"`), with the field keeping their names.
fn own_files(def: &ResourceDef) -> impl Iterator<Item = (&str, Option<&str>)> {
    def.fields.iter().filter_map(|f| {
        let ui = f.ui.as_ref()?;
        (ui.get("control").and_then(Value::as_str) == Some("files") && ui.get("attach").and_then(Value::as_str) == Some("self"))
            .then(|| (f.name.as_str(), ui.get("names").and_then(Value::as_str)))
    })
}

/// Before a write: the files a record's own file fields name anew are checked, and their names kept beside them.
pub fn check_own(w: &WriteCtx, cx: &Ctx, def: &ResourceDef, doc: &mut Map<String, Value>, old: Option<&Map<String, Value>>) -> store::Result<()> {
    let owner = old.map(|o| format!("{}:{}", def.name, id(o, "id")));
    for (field, names_field) in own_files(def) {
        let Some(links) = doc.get(field).map(|v| v.as_str().unwrap_or("").to_string()) else { continue };
        let kept = old.map(|o| text(o, field)).unwrap_or("");
        if kept == links {
            continue;
        }
        let names = names(w, cx, &links, owner.as_deref(), kept)?;
        if let Some(n) = names_field {
            doc.insert(n.to_string(), json!(names));
        }
    }
    Ok(())
}

/// After a write: the record's own files become its.
pub fn bind_own(w: &mut WriteCtx, cx: &Ctx, def: &ResourceDef, saved: &Map<String, Value>) -> store::Result<()> {
    let owner = format!("{}:{}", def.name, id(saved, "id"));
    let fields: Vec<String> = own_files(def).map(|(f, _)| text(saved, f).to_string()).collect();
    for links in fields.iter().filter(|l| !l.is_empty()) {
        bind(w, cx, links, &owner)?;
    }
    Ok(())
}

/// Whether `def` has fields whose files are the record's own.
pub fn has_own(def: &ResourceDef) -> bool {
    own_files(def).next().is_some()
}

/// A file written straight into the data file and bound to `owner` (the demo's documents): its attach record and
/// bytes in the caller's transaction, counted in the tenant's quota. Answers its link.
pub fn put_bound(w: &mut WriteCtx, res: &crate::decl::Resources, tenant: &str, actor: &store::Actor, original: &str, bytes: &[u8], owner: &str) -> store::Result<String> {
    let ext = original.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    let mime = if ext == "pdf" { "application/pdf" } else { "application/octet-stream" };
    let key = crate::auth::token::random_hex(16);
    let link = format!("/files/{tenant}/{key}");
    let day: String = crate::engine::demo::now_text().chars().filter(char::is_ascii_digit).take(8).collect();
    let doc = obj(json!({"originalName": original, "name": format!("{day}/{}.{ext}", crate::auth::token::random_hex(6)), "link": link, "extension": ext,
        "mime": mime, "attachSize": bytes.len(), "fileKey": key, "purpose": "oss", "boundTo": owner}));
    let saved = w.insert(&res.get("attach"), tenant, doc, actor)?;
    let n = w.put_file_from(tenant, id(&saved, "id"), &mut std::io::Cursor::new(bytes), bytes.len() as u64)?;
    w.add_counter(tenant, crate::engine::uploads::QUOTA_COUNTER, n as i64)?;
    Ok(link)
}
