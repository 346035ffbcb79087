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

/// The attach records of `links`, checked for `owner` (`<resource>:<id>`; None for a record not written yet).
pub fn attached(w: &WriteCtx, cx: &Ctx, links: &str, owner: Option<&str>) -> store::Result<Vec<Map<String, Value>>> {
    let def = cx.def("attach");
    let prefix = format!("/files/{}/", cx.tenant);
    let links: Vec<&str> = links.split(',').map(str::trim).filter(|l| !l.is_empty()).collect();
    if links.len() > MAX_FILES {
        return Err(rule(format!("最多 {MAX_FILES} 个附件"), format!("At most {MAX_FILES} files")));
    }
    let mut out = Vec::new();
    for l in links {
        let key = l.strip_prefix(&prefix).filter(|k| k.len() == 32 && k.bytes().all(|b| b.is_ascii_hexdigit()));
        let found = match key {
            Some(k) => w.find_unique(&def, cx.tenant, "fileKey", k)?.map(|i| w.get(&def, cx.tenant, i)).transpose()?.flatten(),
            None => None,
        };
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
        out.push(f);
    }
    Ok(out)
}

/// The files' original names in the order of `links`, as a JSON array (what a screen shows for them).
pub fn names(w: &WriteCtx, cx: &Ctx, links: &str, owner: Option<&str>) -> store::Result<String> {
    let names: Vec<String> = attached(w, cx, links, owner)?.iter().map(|f| text(f, "originalName").to_string()).collect();
    Ok(serde_json::to_string(&names).unwrap_or_default())
}

/// Binds the files of `links` that are nobody's yet to `owner`, in the transaction that names them.
pub fn bind(w: &mut WriteCtx, cx: &Ctx, links: &str, owner: &str) -> store::Result<()> {
    let def = cx.def("attach");
    for f in attached(w, cx, links, Some(owner))? {
        if text(&f, "boundTo").is_empty() {
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
        if old.is_some_and(|o| text(o, field) == links) {
            continue;
        }
        let names = names(w, cx, &links, owner.as_deref())?;
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
