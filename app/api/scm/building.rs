//! 楼栋管理: the rooms of a project (楼栋 → 单元 → 楼层 → 房号, one record per room, keyed by project, building,
//! unit and room so that importing the same file twice changes nothing), and their Excel import.
//!
//! `POST building/info/import?projectId=&mode=` (multipart `file`) answers a `taskCode` at once; the import runs
//! in the background: the sheet is read and every row checked against the declaration first, then — when no row
//! is refused, or when the user chose `mode=partial` (the default: commit the good rows) rather than `all` (none
//! unless every row is good) — the rows are written in batches, each batch in one commit with the task's
//! progress, so the progress shown never runs ahead of what is stored. `GET building/getImportStatus?taskCode=`
//! answers state, percent, rows done and every refused row with its row number and reason. A task still running
//! when the server stops is finished on the next start (`recover`): failed, and with `mode=all` the rows it had
//! written are taken out again, so a task is never left running and an all-or-nothing import stays so.
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::{FromRequest, Request, State};
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{Filter, Op, Query, StoreError, WriteCtx};

use super::{id_param, page_of};
use crate::auth::session::Session;
use crate::engine::dialect::{Ctx, after};
use crate::engine::{Api, Guard, crud};
use crate::error::{ApiError, ApiResult, Kind, Lang, rule};
use crate::http::{AnyParams, QueryPairs, ok};
use crate::state::AppState;

/// The template's columns: (field, header).
pub const COLUMNS: &[(&str, &str)] = &[("buildingName", "楼栋"), ("unitName", "单元"), ("floor", "楼层"), ("roomNo", "房号"), ("layout", "户型"), ("area", "面积(㎡)")];
/// Rows written per commit (and per progress step).
const BATCH: usize = 2_000;
/// Rows one file may hold.
pub const MAX_ROWS: usize = 200_000;
/// Refused rows kept with the task (the count is always whole).
const KEEP_REFUSED: usize = 1_000;

static SEQ: AtomicU64 = AtomicU64::new(1);

pub fn routes(api: Api) -> Api {
    let b = "/api/blade-scm/building";
    let def = api.def("building");
    api.post_upload(format!("{b}/info/import"), Guard::write(&def, &["add"]), import)
        .doc(
            "楼栋管理 · import rooms from an Excel file (multipart `file`, the template's columns 楼栋, 单元, 楼层, 房号, 户型, 面积(㎡)); answers {taskCode} at once and runs in the background",
            &[("projectId", "query: the project the rooms belong to"), ("mode", "query: partial (default): commit the good rows; all: commit nothing when a row is refused")],
        )
        .get(format!("{b}/getImportStatus"), Guard::read(&def), status)
        .doc("楼栋管理 · an import's state (running, done, failed), percent, rows done, added, updated and each refused row with its row number and reason", &[("taskCode", "query: the code the import answered")])
        .get(format!("{b}/info/template"), Guard::read(&def), template)
        .doc("楼栋管理 · the import template (.xlsx) with example rows", &[])
        .post(format!("{b}/record/list"), Guard::read(&def), records)
        .reads()
        .doc("楼栋管理 · the imports of a project, newest first (body: projectId, page, size)", &[])
        .post(format!("{b}/page/down/list/{{projectId}}/{{constructId}}"), Guard::read(&def), buildings)
        .reads()
        .doc(
            "楼栋管理 · the project's buildings (the construct form's building picker): name, units, floors, rooms, enabled rooms, and whether the construct covers it",
            &[("projectId", "the project"), ("constructId", "a construct of that project (else 404); 0 for none")],
        )
        .get(format!("{b}/disable"), Guard::write(&def, &["edit"]), disable)
        .doc("楼栋管理 · disable (enabled=0, the default) or enable (enabled=1) rooms (query: ids or id)", &[])
        .post(format!("{b}/user/task/bind"), Guard::write(&def, &["edit"]), task_bind)
        .doc("楼栋管理 · make a worker of the construct's crew responsible for a building's progress task (body: taskId, workerId)", &[])
}

/// `projectId:楼栋:单元:房号`, unique per tenant.
pub fn room_key(project: u64, building: &str, unit: &str, room: &str) -> String {
    format!("{project}:{building}:{unit}:{room}")
}

/// A room stays in its project; building, unit and room number are unique within the project.
pub(super) fn room_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    if let Some(o) = old
        && doc.contains_key("projectId")
        && o.get("projectId") != doc.get("projectId") {
        return Err(rule("房间不能更换所属项目", "A room cannot move to another project"));
    }
    let text = |f: &str| after(old, doc, f).and_then(Value::as_str).unwrap_or("").to_string();
    let project = after(old, doc, "projectId").and_then(Value::as_u64).unwrap_or(0);
    let (b, u, r) = (text("buildingName"), text("unitName"), text("roomNo"));
    let key = room_key(project, &b, &u, &r);
    let own = old.and_then(|o| o.get("id")).and_then(Value::as_u64);
    if old.and_then(|o| o.get("roomKey")).and_then(Value::as_str) != Some(key.as_str()) {
        if let Some(other) = w.find_unique(&cx.def("building"), cx.tenant, "roomKey", &key)?
            && Some(other) != own {
            return Err(rule(format!("{b} {u}单元 {r} 已存在"), format!("Room {r} of unit {u}, building {b} already exists")));
        }
        doc.insert("roomKey".into(), json!(key));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------
// Import

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Commit the good rows.
    Partial,
    /// Commit nothing when a row is refused.
    All,
}

/// One refused row: its number in the sheet (the header is row 1) and why, in both languages.
#[derive(Clone)]
struct Refused {
    row: usize,
    zh: String,
    en: String,
}

/// POST building/info/import?projectId=&mode= (multipart `file`)
async fn import(State(st): State<AppState>, s: Session, QueryPairs(q): QueryPairs, req: Request) -> ApiResult<Response> {
    let get = |k: &str| q.iter().rev().find(|(a, _)| a == k).map(|(_, v)| v.as_str());
    let project = match get("projectId").filter(|v| !v.is_empty()) {
        Some(v) => crud::parse_id(Some(v))?,
        None => return Err(ApiError::with(Kind::Missing, "projectId")),
    };
    let mode = match get("mode").unwrap_or("") {
        "" | "partial" => Mode::Partial,
        "all" => Mode::All,
        other => return Err(ApiError::with(Kind::BadFormat, format!("mode={}", other.chars().take(16).collect::<String>()))),
    };
    crud::get_scoped(&st, &s, &st.res.get("project"), project).await?;
    let mp = axum::extract::Multipart::from_request(req, &st).await.map_err(|_| ApiError::with(Kind::BadFormat, "multipart"))?;
    let up = crate::engine::uploads::read_upload(&st, &s, mp, crate::engine::uploads::MAX_FILE).await?;
    // An .xlsx is a zip archive.
    if !up.head.starts_with(b"PK\x03\x04") {
        return Err(ApiError::with(Kind::BadFormat, "file (.xlsx)"));
    }
    // Held by the background job until it has read and written everything.
    let slot = st.imports.enter(&s.tenant)?;
    let now = store::now_millis();
    let stamp: String = st.settings.zone.format(now).chars().filter(char::is_ascii_digit).collect();
    let code = format!("BI{stamp}{:04}", SEQ.fetch_add(1, Ordering::Relaxed) % 10_000);
    let mut doc = Map::new();
    doc.insert("taskCode".into(), json!(code));
    doc.insert("projectId".into(), json!(project));
    doc.insert("fileName".into(), json!(up.original.chars().take(255).collect::<String>()));
    doc.insert("mode".into(), json!(if mode == Mode::All { "all" } else { "partial" }));
    doc.insert("state".into(), json!("running"));
    for k in ["total", "done", "imported", "updated", "refusedCount"] {
        doc.insert(k.into(), json!(0));
    }
    doc.insert("percent".into(), json!(0));
    doc.insert("refused".into(), json!([]));
    let (idef, t, actor) = (st.res.get("building_import"), s.tenant.clone(), s.actor());
    let task = st.write(move |w| Ok(w.insert(&idef, &t, doc.clone(), &actor)?["id"].as_u64().unwrap_or(0))).await?;
    let job = Job { st: st.clone(), tenant: s.tenant.clone(), actor: s.actor(), task, code: code.clone(), project, mode };
    tokio::spawn(async move {
        let (st, tenant, task) = (job.st.clone(), job.tenant.clone(), job.task);
        let outcome = match up.read_all().await {
            Ok(bytes) => {
                drop(up);
                job.run(bytes).await
            }
            Err(e) => Err(e),
        };
        // The slot is free once the work is done, before the task says so.
        drop(slot);
        let end = match outcome {
            Ok(end) => end,
            Err(e) => {
                let (zh, en) = (e.message(Lang::Zh), e.message(Lang::En));
                tracing::warn!(target: "zz::import", task, error = %en, "building import failed");
                End { state: "failed", zh: format!("导入失败:{zh}"), en: format!("Import failed: {en}"), counts: None }
            }
        };
        if let Err(e) = finish(&st, &tenant, task, end.state, &end.zh, &end.en, end.counts).await {
            tracing::error!(target: "zz::import", task, error = %e.message(Lang::En), "the end of a building import could not be recorded");
        }
    });
    Ok(ok(json!({"taskCode": code})))
}

/// How a task ended: its state, message in both languages and (when the rows were checked) counts.
struct End {
    state: &'static str,
    zh: String,
    en: String,
    counts: Option<(usize, usize, Value)>,
}

struct Job {
    st: AppState,
    tenant: String,
    actor: store::Actor,
    task: u64,
    code: String,
    project: u64,
    mode: Mode,
}

impl Job {
    async fn run(self, bytes: Vec<u8>) -> ApiResult<End> {
        let def = self.st.res.get("building");
        let project = self.project;
        // Read and check every row first (off the async workers).
        let checked = tokio::task::spawn_blocking(move || -> ApiResult<_> {
            let rows = read_sheet(&bytes)?;
            drop(bytes);
            let (good, refused) = check_rows(&def, project, &rows);
            Ok((rows, good, refused))
        })
        .await
        .map_err(ApiError::internal)??;
        let (rows, good, refused) = checked;
        let total = rows.len();
        let refused_json = refused_json(&refused);
        let refused_n = refused.len();
        if self.mode == Mode::All && refused_n > 0 {
            let zh = format!("共 {total} 行,{refused_n} 行不合格,按所选方式未导入任何数据");
            let en = format!("{refused_n} of {total} rows refused; as chosen, nothing was imported");
            return Ok(End { state: "failed", zh, en, counts: Some((total, refused_n, refused_json)) });
        }
        self.progress(json!({"total": total, "refusedCount": refused_n, "refused": refused_json, "percent": 5})).await?;
        let (mut added, mut updated, mut done) = (0usize, 0usize, refused_n);
        let n = total - refused_n;
        let def = self.st.res.get("building");
        let good_rows: Vec<&crate::engine::sheet::Row> = rows.iter().zip(&good).filter(|(_, g)| **g).map(|(r, _)| r).collect();
        for batch in good_rows.chunks(BATCH) {
            let len = batch.len();
            // Checked above: every good row makes its document again.
            let chunk: Vec<Map<String, Value>> = batch.iter().filter_map(|r| room_doc(&def, project, r.cells()).ok()).collect();
            let (bdef, pdef, idef) = (self.st.res.get("building"), self.st.res.get("project"), self.st.res.get("building_import"));
            let (t, actor, task, code) = (self.tenant.clone(), self.actor.clone(), self.task, self.code.clone());
            let base = (added, updated, done);
            // 5% for reading and checking, the rest by rows written; 100 only once the task is finished.
            let percent = (5 + (95 * (done - refused_n + len)) / n.max(1)).min(99);
            let (a, u) = self
                .st
                .write(move |w| {
                    if w.get(&pdef, &t, project)?.is_none() {
                        return Err(rule("项目已删除,导入中止", "The project was removed; the import stopped"));
                    }
                    let (mut a, mut u) = (0usize, 0usize);
                    for doc in &chunk {
                        let key = doc.get("roomKey").and_then(Value::as_str).unwrap_or("");
                        match w.find_unique(&bdef, &t, "roomKey", key)? {
                            Some(id) => {
                                let mut patch = Map::new();
                                for f in ["floor", "layout", "area"] {
                                    patch.insert(f.into(), doc.get(f).cloned().unwrap_or(Value::Null));
                                }
                                w.update(&bdef, &t, id, patch, &actor)?;
                                u += 1;
                            }
                            None => {
                                let mut d = doc.clone();
                                d.insert("importTask".into(), json!(code));
                                w.insert(&bdef, &t, d, &actor)?;
                                a += 1;
                            }
                        }
                    }
                    let mut patch = Map::new();
                    patch.insert("done".into(), json!(base.2 + chunk.len()));
                    patch.insert("imported".into(), json!(base.0 + a));
                    patch.insert("updated".into(), json!(base.1 + u));
                    patch.insert("percent".into(), json!(percent));
                    w.update(&idef, &t, task, patch, &actor)?;
                    Ok((a, u))
                })
                .await?;
            added += a;
            updated += u;
            done += len;
        }
        let zh = format!("共 {total} 行:新增 {added} 间,更新 {updated} 间,拒绝 {refused_n} 行");
        let en = format!("{total} rows: {added} rooms added, {updated} updated, {refused_n} refused");
        Ok(End { state: "done", zh, en, counts: None })
    }

    async fn progress(&self, patch: Value) -> ApiResult<()> {
        let (idef, t, task, actor) = (self.st.res.get("building_import"), self.tenant.clone(), self.task, self.actor.clone());
        let patch = patch.as_object().cloned().unwrap_or_default();
        self.st.write(move |w| w.update(&idef, &t, task, patch.clone(), &actor).map(|_| ())).await
    }
}

/// Ends a task: its state, message (both languages, `zh\nen`), and — when given — total, refused count and rows.
async fn finish(st: &AppState, tenant: &str, task: u64, state: &str, zh: &str, en: &str, counts: Option<(usize, usize, Value)>) -> ApiResult<()> {
    let mut patch = Map::new();
    patch.insert("state".into(), json!(state));
    patch.insert("percent".into(), json!(100));
    patch.insert("message".into(), json!(format!("{zh}\n{en}")));
    patch.insert("finishTime".into(), json!(st.settings.zone.format(store::now_millis())));
    if let Some((total, refused, rows)) = counts {
        patch.insert("total".into(), json!(total));
        patch.insert("done".into(), json!(total));
        patch.insert("refusedCount".into(), json!(refused));
        patch.insert("refused".into(), rows);
    }
    let (idef, t) = (st.res.get("building_import"), tenant.to_string());
    st.write(move |w| w.update(&idef, &t, task, patch.clone(), &store::Actor::default()).map(|_| ())).await
}

fn refused_json(refused: &[Refused]) -> Value {
    Value::Array(refused.iter().take(KEEP_REFUSED).map(|r| json!({"row": r.row, "reason": r.zh, "reasonEn": r.en})).collect())
}

/// The sheet's rows after the header, each with its row number (header = 1), blank rows left out; read within
/// `engine::sheet`'s bounds.
fn read_sheet(bytes: &[u8]) -> ApiResult<Vec<crate::engine::sheet::Row>> {
    crate::engine::sheet::read(bytes, MAX_ROWS, |header| {
        if header.len() < COLUMNS.len() || COLUMNS.iter().zip(header).any(|((_, want), got)| want != got) {
            let want: Vec<&str> = COLUMNS.iter().map(|(_, h)| *h).collect();
            return Err(ApiError::with(Kind::BadFormat, format!("template: {}", want.join(","))));
        }
        Ok((0..COLUMNS.len()).collect())
    })
}

/// A row as the room it describes (typed by the declaration), or why it is refused.
fn room_doc<'a>(def: &store::ResourceDef, project: u64, values: impl Iterator<Item = &'a str>) -> Result<Map<String, Value>, Refused> {
    let mut input = Map::new();
    input.insert("projectId".into(), json!(project.to_string()));
    for ((field, _), v) in COLUMNS.iter().zip(values.map(str::trim)) {
        if !v.is_empty() {
            input.insert(field.to_string(), json!(v));
        }
    }
    match def.parse_input(&input, true) {
        Err(e) => {
            // Named by the template's column headers, as the user sees them.
            let e = ApiError::from(e);
            let name = |mut m: String| {
                for (f, h) in COLUMNS {
                    m = m.replace(f, h);
                }
                m
            };
            Err(Refused { row: 0, zh: name(e.message(Lang::Zh)), en: name(e.message(Lang::En)) })
        }
        Ok(mut doc) => {
            let text = |f: &str| doc.get(f).and_then(Value::as_str).unwrap_or("").to_string();
            let key = room_key(project, &text("buildingName"), &text("unitName"), &text("roomNo"));
            doc.insert("roomKey".into(), json!(key));
            doc.insert("enabled".into(), json!(1));
            Ok(doc)
        }
    }
}

/// Checks every row against the declaration (required, lengths, floor range, area as a number with at most two
/// decimals) and against the rows above it (the same room twice). Answers which rows are good (their documents
/// are made again when written, so that a large file is never held as documents) and the refused ones.
fn check_rows(def: &store::ResourceDef, project: u64, rows: &[crate::engine::sheet::Row]) -> (Vec<bool>, Vec<Refused>) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let (mut good, mut refused) = (Vec::with_capacity(rows.len()), Vec::new());
    for r in rows {
        match room_doc(def, project, r.cells()) {
            Err(why) => {
                refused.push(Refused { row: r.no, ..why });
                good.push(false);
            }
            Ok(doc) => {
                let key = doc.get("roomKey").and_then(Value::as_str).unwrap_or("").to_string();
                if let Some(first) = seen.get(&key) {
                    refused.push(Refused { row: r.no, zh: format!("与第 {first} 行重复(同一楼栋、单元、房号)"), en: format!("Same building, unit and room as row {first}") });
                    good.push(false);
                    continue;
                }
                seen.insert(key, r.no);
                good.push(true);
            }
        }
    }
    (good, refused)
}

/// `recover`, before serving (`api::Area::start`, on a blocking thread of the runtime).
pub fn recover_before_serving(st: &AppState) -> anyhow::Result<()> {
    let n = tokio::runtime::Handle::current().block_on(recover(st)).map_err(|e| anyhow::anyhow!("recovering interrupted imports: {}", e.message(Lang::En)))?;
    if n > 0 {
        tracing::warn!(target: "zz::serve", n, "building imports interrupted by the last stop marked failed");
    }
    Ok(())
}

/// Finishes the imports a stopped server left running: failed, and with `mode=all` their rows removed.
pub async fn recover(st: &AppState) -> ApiResult<u64> {
    let (idef, bdef) = (st.res.get("building_import"), st.res.get("building"));
    let now = st.settings.zone.format(store::now_millis());
    let i2 = idef.clone();
    let tenants = st.read(move |r| r.tenants_of(&i2)).await?;
    st.write(move |w| {
        let mut n = 0;
        for t in &tenants {
            let t = t.as_str();
            let q = Query { filters: vec![Filter::new("state", Op::Equal, json!("running"))], limit: 10_000, ..Query::default() };
            for task in w.list(&idef, t, &q)?.records {
                let id = task.get("id").and_then(Value::as_u64).unwrap_or(0);
                let code = task.get("taskCode").and_then(Value::as_str).unwrap_or("").to_string();
                let all = task.get("mode").and_then(Value::as_str) == Some("all");
                let mut removed = 0;
                if all {
                    let q = Query { filters: vec![Filter::new("importTask", Op::Equal, json!(code))], limit: u64::MAX, ..Query::default() };
                    let ids: Vec<u64> = w.list(&bdef, t, &q)?.records.iter().filter_map(|r| r.get("id").and_then(Value::as_u64)).collect();
                    removed = ids.len();
                    if !ids.is_empty() {
                        w.remove(&bdef, t, &ids, &store::Actor::default())?;
                    }
                }
                let msg = if all {
                    format!("服务重启,导入中断;已撤销写入的 {removed} 间\nThe server restarted during the import; the {removed} rooms it wrote were taken out")
                } else {
                    let done = task.get("done").and_then(Value::as_u64).unwrap_or(0);
                    format!("服务重启,导入中断;已处理的 {done} 行保留\nThe server restarted during the import; the {done} rows processed are kept")
                };
                let mut patch = Map::new();
                patch.insert("state".into(), json!("failed"));
                patch.insert("message".into(), json!(msg));
                patch.insert("finishTime".into(), json!(now));
                w.update(&idef, t, id, patch, &store::Actor::default())?;
                n += 1;
            }
        }
        Ok(n)
    })
    .await
}

/// GET building/getImportStatus?taskCode=
async fn status(State(st): State<AppState>, s: Session, lang: axum::Extension<Lang>, p: AnyParams) -> ApiResult<Response> {
    let code = p.get("taskCode").filter(|v| !v.is_empty()).ok_or_else(|| ApiError::with(Kind::Missing, "taskCode"))?.to_string();
    let (idef, t) = (st.res.get("building_import"), s.tenant.clone());
    let c2 = code.clone();
    let id = st.read_now(|r| r.find_unique(&idef, &t, "taskCode", &c2))?.ok_or_else(|| ApiError::new(Kind::NotFound))?;
    let task = st.read_now(|r| r.get(&idef, &t, id))?.ok_or_else(|| ApiError::new(Kind::NotFound))?;
    // The project must be one the caller may see.
    let project = task.get("projectId").and_then(Value::as_u64).unwrap_or(0);
    crud::get_scoped(&st, &s, &st.res.get("project"), project).await?;
    Ok(ok(status_json(&st, task, lang.0)))
}

fn status_json(st: &AppState, task: Map<String, Value>, lang: Lang) -> Value {
    let en = lang == Lang::En;
    let msg = task.get("message").and_then(Value::as_str).unwrap_or("");
    let msg = msg.split_once('\n').map(|(zh, e)| if en { e } else { zh }).unwrap_or(msg);
    let state = task.get("state").and_then(Value::as_str).unwrap_or("");
    let refused: Vec<Value> = task
        .get("refused")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|r| json!({"row": r["row"], "reason": if en { &r["reasonEn"] } else { &r["reason"] }}))
        .collect();
    let n = |k: &str| task.get(k).and_then(Value::as_u64).unwrap_or(0);
    json!({
        "taskCode": task.get("taskCode"), "projectId": task.get("projectId").and_then(Value::as_u64).unwrap_or(0).to_string(),
        "fileName": task.get("fileName"), "mode": task.get("mode"),
        "state": state, "stateName": match (state, en) { ("running", false) => "导入中", ("done", false) => "已完成", ("failed", false) => "失败", (s, _) => s },
        "percent": n("percent"), "total": n("total"), "done": n("done"), "imported": n("imported"), "updated": n("updated"),
        "refusedCount": n("refusedCount"), "refused": refused, "message": msg,
        "createTime": task.get("createTime").and_then(Value::as_i64).map(|ms| st.settings.zone.format(ms)),
        "finishTime": task.get("finishTime"),
    })
}

/// GET building/info/template
async fn template(State(_st): State<AppState>, _s: Session) -> ApiResult<Response> {
    let xl = |e: rust_xlsxwriter::XlsxError| ApiError::internal(e);
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    sheet.set_name("楼栋导入").map_err(xl)?;
    let bold = rust_xlsxwriter::Format::new().set_bold();
    for (c, (_, h)) in COLUMNS.iter().enumerate() {
        sheet.write_string_with_format(0, c as u16, *h, &bold).map_err(xl)?;
        sheet.set_column_width(c as u16, 14).map_err(xl)?;
    }
    let examples: &[(&str, &str, i64, &str, &str, &str)] =
        &[("1栋", "1", 1, "101", "三室两厅", "118.50"), ("1栋", "1", 1, "102", "两室一厅", "89.00"), ("1栋", "2", 2, "201", "三室两厅", "118.50"), ("2栋", "1", 1, "101", "", "")];
    for (r, (b, u, f, room, layout, area)) in examples.iter().enumerate() {
        let r = r as u32 + 1;
        sheet.write_string(r, 0, *b).map_err(xl)?;
        sheet.write_string(r, 1, *u).map_err(xl)?;
        sheet.write_number(r, 2, *f as f64).map_err(xl)?;
        sheet.write_string(r, 3, *room).map_err(xl)?;
        sheet.write_string(r, 4, *layout).map_err(xl)?;
        sheet.write_string(r, 5, *area).map_err(xl)?;
    }
    let bytes = book.save_to_buffer().map_err(xl)?;
    Ok(crate::engine::xlsx::xlsx_response(bytes, "building-template.xlsx"))
}

/// POST building/record/list: a project's imports.
async fn records(State(st): State<AppState>, s: Session, lang: axum::Extension<Lang>, p: AnyParams) -> ApiResult<Response> {
    let project = id_param(&p, &["projectId"])?;
    crud::get_scoped(&st, &s, &st.res.get("project"), project).await?;
    let (current, size) = page_of(&p)?;
    let (idef, t) = (st.res.get("building_import"), s.tenant.clone());
    let q = Query { filters: vec![Filter::new("projectId", Op::Equal, json!(project))], offset: (current - 1) * size, limit: size, ..Query::default() };
    let page = st.read(move |r| r.list(&idef, &t, &q)).await?;
    let rows: Vec<Value> = page.records.into_iter().map(|r| status_json(&st, r, lang.0)).collect();
    Ok(ok(json!({"records": rows, "total": page.total, "size": size, "current": current, "pages": page.total.div_ceil(size)})))
}

/// POST building/page/down/list/{projectId}/{constructId}
async fn buildings(State(st): State<AppState>, s: Session, axum::extract::Path((project, construct)): axum::extract::Path<(String, String)>) -> ApiResult<Response> {
    let project = crud::parse_id(Some(&project))?;
    crud::get_scoped(&st, &s, &st.res.get("project"), project).await?;
    let mut covered: Vec<String> = Vec::new();
    if construct != "0" {
        let k = crud::get_scoped(&st, &s, &st.res.get("construct"), crud::parse_id(Some(&construct))?).await?;
        if k.get("projectId").and_then(Value::as_u64) != Some(project) {
            return Err(ApiError::new(Kind::NotFound));
        }
        covered = super::progress::split_buildings(k.get("buildings").and_then(Value::as_str).unwrap_or(""));
    }
    let (bdef, t) = (st.res.get("building"), s.tenant.clone());
    let rows = st
        .read(move |r| {
            let q = Query { filters: vec![Filter::new("projectId", Op::Equal, json!(project))], limit: u64::MAX, ..Query::default() };
            let mut by: std::collections::BTreeMap<String, (std::collections::BTreeSet<String>, std::collections::BTreeSet<i64>, u64, u64)> = Default::default();
            for rec in r.list(&bdef, &t, &q)?.records {
                let e = by.entry(rec.get("buildingName").and_then(Value::as_str).unwrap_or("").to_string()).or_default();
                e.0.insert(rec.get("unitName").and_then(Value::as_str).unwrap_or("").to_string());
                e.1.insert(rec.get("floor").and_then(Value::as_i64).unwrap_or(0));
                e.2 += 1;
                e.3 += u64::from(rec.get("enabled").and_then(Value::as_i64) != Some(0));
            }
            Ok(by)
        })
        .await?;
    let out: Vec<Value> = rows
        .into_iter()
        .map(|(name, (units, floors, rooms, enabled))| {
            json!({"buildingName": name, "units": units.len(), "floors": floors.len(), "rooms": rooms, "enabledRooms": enabled, "selected": covered.contains(&name)})
        })
        .collect();
    Ok(ok(out))
}

/// GET building/disable?ids=&enabled=0|1
async fn disable(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let ids = crud::parse_ids(p.get("ids").or_else(|| p.get("id")))?;
    let enabled = match p.get("enabled").unwrap_or("0") {
        "0" | "" => 0,
        "1" => 1,
        other => return Err(ApiError::with(Kind::BadFormat, format!("enabled={}", other.chars().take(8).collect::<String>()))),
    };
    let def = st.res.get("building");
    if crud::visible_ids(&st, &s, &def, &ids).await?.len() != ids.len() {
        return Err(ApiError::new(Kind::NotFound));
    }
    let (t, actor) = (s.tenant.clone(), s.actor());
    let n = st
        .write(move |w| {
            for id in &ids {
                let mut patch = Map::new();
                patch.insert("enabled".into(), json!(enabled));
                w.update(&def, &t, *id, patch, &actor)?;
            }
            Ok(ids.len())
        })
        .await?;
    Ok(ok(json!({"changed": n})))
}

/// POST building/user/task/bind {taskId, workerId}
async fn task_bind(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let task = id_param(&p, &["taskId", "id"])?;
    let worker = id_param(&p, &["workerId", "userId"])?;
    let (tdef, wdef, cdef) = (st.res.get("speed_progress"), st.res.get("worker"), st.res.get("construct_worker"));
    let rec = crud::get_scoped(&st, &s, &tdef, task).await?;
    crud::get_scoped(&st, &s, &wdef, worker).await?;
    let construct = rec.get("constructId").and_then(Value::as_u64).unwrap_or(0);
    let (t, actor) = (s.tenant.clone(), s.actor());
    let t2 = tdef.clone();
    let saved = st
        .write(move |w| {
            if super::crew_binding(w, &t, &cdef, construct, worker)?.is_none() {
                return Err(rule("该工人不在此施工单的班组中,请先绑定到班组", "The worker is not on this construct's crew; bind them first"));
            }
            w.get(&t2, &t, task)?.ok_or(StoreError::NotFound)?;
            let mut patch = Map::new();
            patch.insert("workerId".into(), json!(worker));
            w.update(&t2, &t, task, patch, &actor)
        })
        .await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &tdef, saved).await?))
}
