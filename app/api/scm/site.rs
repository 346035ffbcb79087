//! On site: attendance (`worker/attendDay/page`, clock-in and its audited reset), rectification (`worker/
//! buildingRectification/...`: open → fixed → verified, overdue shown) and measures (量房: rooms and dimensions of a
//! construct, the floor area computed exactly).
//!
//! Clock-in result (spec §4): `wait` (not clocked), `success` (by the start of the working day, 09:00), `late`.
//! One attendance record per worker and day (`dayKey`).
use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use store::{StoreError, WriteCtx};

use super::id_param;
use crate::auth::session::Session;
use crate::engine::dialect::{self, Ctx, Env, after, after_i64};
use crate::engine::{Api, Guard, crud};
use crate::error::{ApiError, ApiResult, Kind, rule};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

/// Clocking in after this local time is late.
pub const WORK_STARTS: &str = "09:00:00";

const RECT_STATUS: &[(i64, &str, &str)] = &[(1, "待整改", "open"), (2, "已整改", "fixed"), (3, "已验收", "verified")];

pub fn routes(api: Api) -> Api {
    let w = "/api/blade-scm/worker";
    let (attend, rect, construct, worker) = (api.def("attend_day"), api.def("building_rectification"), api.def("construct"), api.def("worker"));
    api.post(format!("{w}/work-clock-in"), Guard::write(&construct, &["edit"]), clock_in)
        .doc("考勤管理 · clock a worker in on a construct today (body: workerId, constructId, distance in metres optional); success by 09:00, late after; once a day", &[])
        .post(format!("{w}/work-clock-in/reset"), Guard::code(&format!("{}_reset", attend.name)), reset)
        .doc("考勤管理 · reset one day's clock-in to not clocked (body: id, reason required); who and why are kept", &[])
        .post(format!("{w}/work-clock-in/makeup"), Guard::code(&format!("{}_reset", attend.name)), makeup)
        .doc("考勤管理 · 补卡: records a worker's attendance of a past day or today that the clock-in missed (body: workerId, constructId, day, time HH:mm, reason required); who and why are kept", &[])
        .get(format!("{w}/category/type"), Guard::read(&rect), categories)
        .doc("楼栋整改 · rectification categories (dictionary rectification_category)", &[])
        .get(format!("{w}/dict/list"), Guard::read(&worker), worker_dicts)
        .doc("工人管理 · the dictionaries the worker screens use: trades with their levels and day rates, clock-in results, progress nodes", &[])
}

/// POST worker/work-clock-in {workerId, constructId, distance}
async fn clock_in(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let worker = id_param(&p, &["workerId"])?;
    let construct = id_param(&p, &["constructId"])?;
    // Whose record first (another tenant's worker is not found), then what is asked of it.
    crud::get_scoped(&st, &s, &st.res.get("worker"), worker).await?;
    crud::get_scoped(&st, &s, &st.res.get("construct"), construct).await?;
    let distance = match p.get("distance").filter(|v| !v.is_empty()) {
        Some(v) => Some(v.parse::<i64>().ok().filter(|d| (0..=1_000_000).contains(d)).ok_or_else(|| ApiError::with(Kind::OutOfRange, "distance"))?),
        None => None,
    };
    crud::get_scoped(&st, &s, &st.res.get("worker"), worker).await?;
    crud::get_scoped(&st, &s, &st.res.get("construct"), construct).await?;
    let moved_from = from_guard(&st, &s).await?;
    let env = Env::new(&st, &s);
    let (adef, cdef) = (st.res.get("attend_day"), st.res.get("construct_worker"));
    let saved = st
        .write(move |w| {
            let cx = env.cx();
            let t = cx.tenant;
            super::under_construction(w, &cx, construct, "施工单不在施工中,不能打卡", "The construct is not under construction; no clock-in")?;
            if super::crew_binding(w, t, &cdef, construct, worker)?.is_none() {
                return Err(rule("该工人不在此施工单的班组中", "The worker is not on this construct's crew"));
            }
            let day: String = cx.now.chars().take(10).collect();
            let result = if &cx.now[11.min(cx.now.len())..] <= WORK_STARTS { "success" } else { "late" };
            let key = format!("{worker}:{day}");
            let mut doc = Map::new();
            doc.insert("clockTime".into(), json!(cx.now));
            doc.insert("result".into(), json!(result));
            if let Some(d) = distance {
                doc.insert("distance".into(), json!(d));
            }
            match w.find_unique(&adef, t, "dayKey", &key)? {
                Some(id) => {
                    let old = w.get(&adef, t, id)?.ok_or(StoreError::NotFound)?;
                    if old.get("result").and_then(Value::as_str) != Some("wait") {
                        return Err(rule(format!("该工人 {day} 已打卡"), format!("The worker already clocked in on {day}")));
                    }
                    may_move(w, &cx, &moved_from, &old, construct)?;
                    doc.insert("constructId".into(), json!(construct));
                    w.update(&adef, t, id, doc, cx.actor)
                }
                None => {
                    doc.insert("workerId".into(), json!(worker));
                    doc.insert("constructId".into(), json!(construct));
                    doc.insert("attendDate".into(), json!(day));
                    doc.insert("dayKey".into(), json!(key));
                    w.insert(&adef, t, doc, cx.actor)
                }
            }
        })
        .await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &st.res.get("attend_day"), saved).await?))
}

/// The data scope over 施工单 a day's record is taken from when it moves to another 施工单.
async fn from_guard(st: &AppState, s: &Session) -> ApiResult<Option<Vec<store::Filter>>> {
    crate::auth::scope::guard(st, s, &st.res.get("construct")).await
}

/// A worker's day (one record per worker and day) reset on one 施工单 and clocked on another moves with the clock-in,
/// only from a 施工单 the caller may see: a 项目经理 took a colleague's site's record (and its reset reason) to his own.
fn may_move(w: &WriteCtx, cx: &Ctx, from: &Option<Vec<store::Filter>>, old: &Map<String, Value>, to: u64) -> store::Result<()> {
    let was = old.get("constructId").and_then(store::parse_id_value).unwrap_or(0);
    if was == to || was == 0 || from.is_none() {
        return Ok(());
    }
    match w.get(&cx.def("construct"), cx.tenant, was)? {
        Some(k) if crate::auth::scope::admits(from, &k) => Ok(()),
        Some(_) => Err(rule("该工人当天的考勤记在您无权处理的其他施工单上", "The worker's day is recorded on another construct that is not yours to change")),
        None => Ok(()),
    }
}

/// POST worker/work-clock-in/makeup {workerId, constructId, day, time, reason}: 补卡 by a site manager. The day
/// is not in the future; the worker is on the construct's crew; a day already clocked is refused (reset it
/// first). The result is success or late by the time given, and who made it up and why stay on the record.
async fn makeup(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let worker = id_param(&p, &["workerId"])?;
    let construct = id_param(&p, &["constructId"])?;
    // Whose record first (another tenant's worker is not found), then what is asked of it.
    crud::get_scoped(&st, &s, &st.res.get("worker"), worker).await?;
    crud::get_scoped(&st, &s, &st.res.get("construct"), construct).await?;
    let reason: String = p.get("reason").unwrap_or("").trim().chars().take(255).collect();
    if reason.is_empty() {
        return Err(ApiError::with(Kind::Missing, "reason"));
    }
    let day = p.get("day").unwrap_or("").trim().to_string();
    if chrono::NaiveDate::parse_from_str(&day, "%Y-%m-%d").is_err() {
        return Err(ApiError::with(Kind::BadFormat, "day"));
    }
    let time = p.get("time").unwrap_or("").trim().to_string();
    let time = match chrono::NaiveTime::parse_from_str(&time, "%H:%M").or_else(|_| chrono::NaiveTime::parse_from_str(&time, "%H:%M:%S")) {
        Ok(t) => t.format("%H:%M:%S").to_string(),
        Err(_) => return Err(ApiError::with(Kind::BadFormat, "time")),
    };
    let moved_from = from_guard(&st, &s).await?;
    let env = Env::new(&st, &s);
    let (adef, cdef) = (st.res.get("attend_day"), st.res.get("construct_worker"));
    let saved = st
        .write(move |w| {
            let cx = env.cx();
            let t = cx.tenant;
            let at = format!("{day} {time}");
            if at.as_str() > cx.now {
                return Err(rule("不能为将来的时间补卡", "Attendance cannot be made up for a time still to come"));
            }
            if super::crew_binding(w, t, &cdef, construct, worker)?.is_none() {
                return Err(rule("该工人不在此施工单的班组中", "The worker is not on this construct's crew"));
            }
            let result = if time.as_str() <= WORK_STARTS { "success" } else { "late" };
            let key = format!("{worker}:{day}");
            let mut doc = Map::new();
            doc.insert("clockTime".into(), json!(at));
            doc.insert("result".into(), json!(result));
            doc.insert("makeupReason".into(), json!(reason));
            doc.insert("makeupUser".into(), json!(cx.actor.user_id));
            let saved = match w.find_unique(&adef, t, "dayKey", &key)? {
                Some(id) => {
                    let old = w.get(&adef, t, id)?.ok_or(StoreError::NotFound)?;
                    if old.get("result").and_then(Value::as_str) != Some("wait") {
                        // On another site that day: which one and whose when the caller may see it (the record
                        // is not in his list to reset), else only that it is another.
                        let on = old.get("constructId").and_then(Value::as_u64).unwrap_or(0);
                        if on != construct {
                            let seen = w.get(&cx.def("construct"), t, on)?.filter(|k| crate::auth::scope::admits(&moved_from, k));
                            let Some(k) = seen else {
                                return Err(rule(format!("该工人 {day} 已在其他施工单打卡(一天只记一个工地),请联系该施工单的负责人重置"), format!("The worker clocked in on {day} at another construct (one site a day); ask its manager to reset it")));
                            };
                            let code = k.get("constructCode").and_then(Value::as_str).unwrap_or("").to_string();
                            let manager = k.get("managerId").and_then(Value::as_u64).unwrap_or(0);
                            let who = w.get(&cx.def("user"), t, manager)?.and_then(|u| u.get("realName").and_then(Value::as_str).map(str::to_string)).unwrap_or_default();
                            let (whose, whose_en) = if who.is_empty() { (String::new(), String::new()) } else { (format!(",负责人 {who}"), format!(", managed by {who}")) };
                            return Err(rule(
                                format!("该工人 {day} 已在施工单 {code}{whose} 打卡(一天只记一个工地);如需记到本施工单,请先由该施工单重置"),
                                format!("The worker clocked in on {day} at construct {code}{whose_en} (one site a day); to count the day here, have it reset there first"),
                            ));
                        }
                        return Err(rule(format!("该工人 {day} 已有打卡记录,请先重置"), format!("The worker has a clock-in on {day}; reset it first")));
                    }
                    may_move(w, &cx, &moved_from, &old, construct)?;
                    doc.insert("constructId".into(), json!(construct));
                    let saved = w.update(&adef, t, id, doc, cx.actor)?;
                    dialect::record_change(w, &cx, &adef, Some(&old), Some(&saved))?;
                    saved
                }
                None => {
                    doc.insert("workerId".into(), json!(worker));
                    doc.insert("constructId".into(), json!(construct));
                    doc.insert("attendDate".into(), json!(day));
                    doc.insert("dayKey".into(), json!(key));
                    let saved = w.insert(&adef, t, doc, cx.actor)?;
                    dialect::record_change(w, &cx, &adef, None, Some(&saved))?;
                    saved
                }
            };
            Ok(saved)
        })
        .await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &st.res.get("attend_day"), saved).await?))
}

/// POST worker/work-clock-in/reset {id, reason}
async fn reset(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let id = id_param(&p, &["id"])?;
    let reason: String = p.get("reason").or_else(|| p.get("resetReason")).unwrap_or("").trim().chars().take(255).collect();
    if reason.is_empty() {
        return Err(ApiError::with(Kind::Missing, "reason"));
    }
    let def = st.res.get("attend_day");
    crud::get_scoped(&st, &s, &def, id).await?;
    let env = Env::new(&st, &s);
    let d2 = def.clone();
    let saved = st
        .write(move |w| {
            let cx = env.cx();
            let old = w.get(&d2, cx.tenant, id)?.ok_or(StoreError::NotFound)?;
            let mut patch = Map::new();
            patch.insert("result".into(), json!("wait"));
            patch.insert("clockTime".into(), Value::Null);
            patch.insert("resetReason".into(), json!(reason));
            patch.insert("resetUser".into(), json!(cx.actor.user_id));
            let saved = w.update(&d2, cx.tenant, id, patch, cx.actor)?;
            dialect::record_change(w, &cx, &d2, Some(&old), Some(&saved))?;
            Ok(saved)
        })
        .await?;
    Ok(ok(crud::decorated(&st, &s.tenant, &def, saved).await?))
}

/// GET worker/category/type
async fn categories(State(st): State<AppState>, _s: Session) -> ApiResult<Response> {
    let entries = crate::engine::dict::entries(&st, "rectification_category").await?;
    Ok(ok(entries))
}

/// GET worker/dict/list
async fn worker_dicts(State(st): State<AppState>, s: Session) -> ApiResult<Response> {
    let (jdef, ldef, t) = (st.res.get("worker_job"), st.res.get("worker_job_level"), s.tenant.clone());
    let (jobs, levels) = st.read(move |r| Ok((r.all(&jdef, &t)?, r.all(&ldef, &t)?))).await?;
    let levels = crud::wire_records(&st, &st.res.get("worker_job_level"), &s.tenant, levels).await?;
    let jobs = crud::wire_records(&st, &st.res.get("worker_job"), &s.tenant, jobs).await?;
    let jobs: Vec<Value> = jobs
        .into_iter()
        .map(|mut j| {
            let id = j.get("id").cloned();
            let mine: Vec<&Map<String, Value>> = levels.iter().filter(|l| l.get("workerJobId") == id.as_ref()).collect();
            j.insert("levels".into(), json!(mine));
            Value::Object(j)
        })
        .collect();
    let clock = crate::engine::dict::entries(&st, "clock_result").await?;
    let nodes = crate::engine::dict::entries(&st, "progress_node").await?;
    Ok(ok(json!({"jobs": jobs, "clockResult": clock, "progressNode": nodes})))
}

/// Rectification: opens as 1 (to fix); moves 1 → 2 (fixed, dated) → 3 (verified, dated), or back 2 → 1 when the
/// fix is not accepted; verified is final. The construct, if named, belongs to the same project.
pub(super) fn rectification_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    let from = match old {
        None => {
            doc.insert("rectStatus".into(), json!(1));
            1
        }
        Some(o) => o.get("rectStatus").and_then(Value::as_i64).unwrap_or(1),
    };
    if from == 3 {
        return Err(rule("已验收的整改单不能修改", "A verified rectification cannot be changed"));
    }
    let to = after_i64(old, doc, "rectStatus").unwrap_or(1);
    super::in_table(RECT_STATUS, to, "rectStatus")?;
    if !(to == from || to == from + 1 || (from == 2 && to == 1)) {
        return Err(super::transition_refused(RECT_STATUS, ("整改单", "rectification"), from, to));
    }
    let today: String = cx.now.chars().take(10).collect();
    if to == 2 && from == 1 {
        doc.insert("fixedTime".into(), json!(today));
    }
    if to == 3 {
        doc.insert("verifiedTime".into(), json!(today));
    }
    if to == 1 && from == 2 {
        doc.insert("fixedTime".into(), Value::Null);
    }
    if let Some(k) = after(old, doc, "constructId").and_then(Value::as_u64) {
        let project = after(old, doc, "projectId").and_then(Value::as_u64);
        let c = w.get(&cx.def("construct"), cx.tenant, k)?.ok_or(StoreError::NotFound)?;
        if c.get("projectId").and_then(Value::as_u64) != project {
            return Err(rule("所选施工单不属于该项目", "The construct is not of this project"));
        }
    }
    Ok(())
}

/// A rectification is removed only while open.
pub(super) fn rectification_remove(_w: &mut WriteCtx, _cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    if rec.get("rectStatus").and_then(Value::as_i64).unwrap_or(1) != 1 {
        return Err(rule("只能删除待整改的整改单", "Only open rectifications can be removed"));
    }
    Ok(())
}

/// A measure: rooms `[{roomName, length, width, height}]` in millimetres (whole numbers, 1–100,000); the room count
/// and the floor area (length × width, in hundredths of a square metre, rounded half up) are computed. Editable
/// while a draft or rejected; sending it for approval belongs to the approval engine.
pub(super) fn measure_save(w: &mut WriteCtx, cx: &Ctx, old: Option<&Map<String, Value>>, doc: &mut Map<String, Value>) -> store::Result<()> {
    if let Some(o) = old {
        let st = o.get("measureStatus").and_then(Value::as_i64).unwrap_or(0);
        if st == 1 || st == 2 {
            return Err(rule("审批中或已通过的量房记录不能修改", "A measure in approval or approved cannot be changed"));
        }
        if doc.contains_key("constructId") && o.get("constructId") != doc.get("constructId") {
            return Err(rule("量房记录不能更换施工单", "A measure cannot move to another construct"));
        }
    }
    let k = after(old, doc, "constructId").and_then(Value::as_u64).unwrap_or(0);
    let c = w.get(&cx.def("construct"), cx.tenant, k)?.ok_or(StoreError::NotFound)?;
    if c.get("modelStatus").and_then(Value::as_i64) == Some(4) {
        return Err(rule("已完工的施工单不能再量房", "A completed construct takes no more measures"));
    }
    if let Some(rooms) = doc.get("rooms").cloned() {
        let rooms = match rooms {
            Value::String(s) if s.trim().is_empty() => Value::Array(Vec::new()),
            Value::String(s) => serde_json::from_str(&s).map_err(|_| StoreError::invalid("rooms", store::FieldProblem::WrongType("json")))?,
            v => v,
        };
        let list = rooms.as_array().ok_or_else(|| StoreError::invalid("rooms", store::FieldProblem::WrongType("json")))?;
        if list.len() > 200 {
            return Err(StoreError::invalid("rooms", store::FieldProblem::OutOfRange { min: None, max: Some(200) }));
        }
        let mut clean = Vec::new();
        let mut area: i64 = 0;
        for (i, r) in list.iter().enumerate() {
            let name: String = r.get("roomName").and_then(Value::as_str).unwrap_or("").trim().chars().take(32).collect();
            if name.is_empty() {
                return Err(rule(format!("第 {} 个房间缺少名称", i + 1), format!("Room {} has no name", i + 1)));
            }
            let dim = |k: &str| -> store::Result<i64> {
                let v = r.get(k).and_then(|v| v.as_i64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())));
                v.filter(|d| (1..=100_000).contains(d))
                    .ok_or_else(|| {
                        let zh = match k {
                            "length" => "长",
                            "width" => "宽",
                            _ => "高",
                        };
                        rule(format!("{name} 的{zh}须为 1 到 100000 的整数毫米"), format!("The {k} of {name} must be whole millimetres from 1 to 100000"))
                    })
            };
            let (l, wd) = (dim("length")?, dim("width")?);
            let h = match r.get("height") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) if s.trim().is_empty() => None,
                Some(_) => Some(dim("height")?),
            };
            area += (l * wd + 5_000) / 10_000;
            clean.push(json!({"roomName": name, "length": l, "width": wd, "height": h}));
        }
        doc.insert("roomCount".into(), json!(clean.len()));
        doc.insert("totalArea".into(), json!(area));
        doc.insert("rooms".into(), Value::Array(clean));
    } else if old.is_none() {
        doc.insert("rooms".into(), json!([]));
        doc.insert("roomCount".into(), json!(0));
        doc.insert("totalArea".into(), json!(0));
    }
    if old.is_none() {
        doc.insert("measureStatus".into(), json!(0));
    }
    Ok(())
}

/// A measure in approval or approved is kept.
pub(super) fn measure_remove(_w: &mut WriteCtx, _cx: &Ctx, rec: &Map<String, Value>) -> store::Result<()> {
    let st = rec.get("measureStatus").and_then(Value::as_i64).unwrap_or(0);
    if st == 1 || st == 2 {
        return Err(rule("审批中或已通过的量房记录不能删除", "A measure in approval or approved cannot be removed"));
    }
    Ok(())
}
