//! 经营统计 (`/api/blade-biz/statistic/...`): company figures — projects by status and business unit, contract
//! value, received and outstanding from the contract ledgers, constructs by status, projects by province and
//! rectifications by category — and the monthly output value against its targets (`month_target`, declared at
//! `statistic/monthtarget`). Output value (产值) is counted as the work invoiced in the month: the ledger's
//! invoice entries net of reversals, the figure a decoration company reports its output by.
use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Value, json};
use store::{Filter, Op, Query, ReadCtx};

use crate::auth::session::Session;
use crate::engine::crud;
use crate::engine::rec::{id, int, text};
use crate::engine::{Api, Guard};
use crate::error::{ApiError, ApiResult, Kind};
use crate::http::{AnyParams, ok};
use crate::state::AppState;

const B: &str = "/api/blade-biz/statistic";

pub fn routes(api: Api) -> Api {
    api.get(format!("{B}/companyinfo"), Guard::code("contract_ledger"), company_info)
        .reads()
        .doc("经营统计 · company figures: projects by status and business unit, contract value, received, outstanding, constructs by status, projects by province, rectifications by category (query: companyId optional)", &[])
        .post(format!("{B}/monthcarryovertarget"), Guard::code("contract_ledger"), month_targets)
        .reads()
        .doc("经营统计 · each month of a year: output value target and actual (invoiced, net of reversals), and the running totals (body: year, companyId optional)", &[])
        .get(format!("{B}/desk"), Guard::any(&["project", "building_rectification"]), desk)
        .reads()
        .doc("经营统计 · the desk's map and pie: projects per province (query: businessUnit, since — projects starting on or after a day) and rectifications per category, each only for holders of its read code (projectsAllowed, rectificationsAllowed) and within their data scopes", &[])
        .get(format!("{B}/monthvalueover/{{id}}"), Guard::code("contract_ledger"), month_value)
        .reads()
        .doc("经营统计 · this month and the year so far: target, actual, percent done", &[("id", "a company, or 0 for the whole tenant")])
}

fn company_param(p: &AnyParams) -> ApiResult<u64> {
    match p.get("companyId").map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => crud::parse_id(Some(v)),
        None => Ok(0),
    }
}

/// The tenant's projects, or one company's.
fn projects(r: &ReadCtx, res: &crate::decl::Resources, t: &str, company: u64) -> store::Result<Vec<serde_json::Map<String, Value>>> {
    let filters = if company > 0 { vec![Filter::new("projectCompanyId", Op::Equal, json!(company))] } else { Vec::new() };
    Ok(r.list(&res.get("project"), t, &Query { filters, limit: 1_000_000, ..Query::default() })?.records)
}

async fn company_info(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let company = company_param(&p)?;
    if company > 0 {
        crud::get_scoped(&st, &s, &st.res.get("company"), company).await?;
    }
    let (res, t) = (st.res.clone(), s.tenant.clone());
    let out = st
        .read(move |r| {
            let ps = projects(r, &res, &t, company)?;
            let mut by_status: BTreeMap<i64, u64> = BTreeMap::new();
            let mut by_bu: BTreeMap<String, u64> = BTreeMap::new();
            let mut by_province: BTreeMap<String, u64> = BTreeMap::new();
            let mut ids = std::collections::HashSet::new();
            for p in &ps {
                *by_status.entry(int(p, "projectStatus")).or_default() += 1;
                *by_bu.entry(text(p, "businessUnit").to_string()).or_default() += 1;
                let region = text(p, "regionCode");
                if region.len() >= 2 {
                    *by_province.entry(format!("{}0000", &region[..2])).or_default() += 1;
                }
                ids.insert(id(p, "id"));
            }
            // 合同总额, 已收款 and 未收款 by the one definition (figures.rs).
            let totals = super::figures::totals(r, &res, &t, None, |l| company == 0 || ids.contains(&id(l, "projectId")))?;
            let (value, received) = (totals.value, totals.received);
            let mut constructs: BTreeMap<i64, u64> = BTreeMap::new();
            let kdef = res.get("construct");
            if company == 0 {
                // The whole tenant: a count per status from the index, no record read.
                for status in 1..=4 {
                    let q = Query { filters: vec![Filter::new("modelStatus", Op::Equal, json!(status))], limit: 1, ..Query::default() };
                    let n = r.list(&kdef, &t, &q)?.total;
                    if n > 0 {
                        constructs.insert(status, n);
                    }
                }
            } else {
                for p in &ids {
                    let q = Query { filters: vec![Filter::new("projectId", Op::Equal, json!(p))], limit: 100_000, ..Query::default() };
                    for k in r.list(&kdef, &t, &q)?.records {
                        *constructs.entry(int(&k, "modelStatus")).or_default() += 1;
                    }
                }
            }
            let mut rect: BTreeMap<i64, u64> = BTreeMap::new();
            for x in r.list(&res.get("building_rectification"), &t, &Query { limit: 1_000_000, ..Query::default() })?.records {
                if company == 0 || ids.contains(&id(&x, "projectId")) {
                    *rect.entry(int(&x, "category")).or_default() += 1;
                }
            }
            let pairs = |m: &BTreeMap<i64, u64>| m.iter().map(|(k, v)| json!({"key": k, "count": v})).collect::<Vec<_>>();
            Ok(json!({
                "companyId": company.to_string(), "projectCount": ps.len(), "projectsByStatus": pairs(&by_status),
                "projectsByBusinessUnit": by_bu.iter().map(|(k, v)| json!({"key": k, "count": v})).collect::<Vec<_>>(),
                "projectsByProvince": by_province.iter().map(|(k, v)| json!({"code": k, "count": v})).collect::<Vec<_>>(),
                "contractValue": store::format_money(value), "received": store::format_money(received), "outstanding": store::format_money(value - received),
                "constructsByStatus": pairs(&constructs), "rectificationsByCategory": pairs(&rect),
            }))
        })
        .await?;
    Ok(ok(out))
}

/// Target and invoiced value per month `yyyy-MM` of a year.
fn months(r: &ReadCtx, res: &crate::decl::Resources, t: &str, company: u64, year: i32) -> store::Result<Vec<(String, i64, i64)>> {
    let mut target: BTreeMap<String, i64> = BTreeMap::new();
    let q = Query { filters: vec![Filter::new("month", Op::StartsWith, json!(format!("{year}-")))], limit: 10_000, ..Query::default() };
    for m in r.list(&res.get("month_target"), t, &q)?.records {
        if company == 0 || id(&m, "companyId") == company {
            *target.entry(text(&m, "month").to_string()).or_default() += int(&m, "targetValue");
        }
    }
    let ids: std::collections::HashSet<u64> = projects(r, res, t, company)?.iter().map(|p| id(p, "id")).collect();
    let ledgers: std::collections::HashSet<u64> = r
        .list(&res.get("contract_ledger"), t, &Query { limit: 1_000_000, ..Query::default() })?
        .records
        .iter()
        .filter(|l| company == 0 || ids.contains(&id(l, "projectId")))
        .map(|l| id(l, "id"))
        .collect();
    let mut actual: BTreeMap<String, i64> = BTreeMap::new();
    let q = Query {
        filters: vec![Filter::new("entryType", Op::Equal, json!(super::ledger::INVOICE)), Filter::new("entryDate", Op::StartsWith, json!(format!("{year}-")))],
        limit: 1_000_000,
        ..Query::default()
    };
    for e in r.list(&res.get("ledger_entry"), t, &q)?.records {
        if ledgers.contains(&id(&e, "ledgerId")) {
            *actual.entry(text(&e, "entryDate").chars().take(7).collect()).or_default() += int(&e, "amount");
        }
    }
    Ok((1..=12)
        .map(|m| {
            let k = format!("{year}-{m:02}");
            (k.clone(), target.get(&k).copied().unwrap_or(0), actual.get(&k).copied().unwrap_or(0))
        })
        .collect())
}

use super::percent_of as percent;

async fn month_targets(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let company = company_param(&p)?;
    if company > 0 {
        crud::get_scoped(&st, &s, &st.res.get("company"), company).await?;
    }
    let this_year: i32 = super::today(&st).get(..4).and_then(|y| y.parse().ok()).unwrap_or(2026);
    let year = match p.get("year").map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => v.parse::<i32>().ok().filter(|y| (2000..=2100).contains(y)).ok_or_else(|| ApiError::with(Kind::BadFormat, "year"))?,
        None => this_year,
    };
    let (res, t) = (st.res.clone(), s.tenant.clone());
    let rows = st.read(move |r| months(r, &res, &t, company, year)).await?;
    let (mut ct, mut ca) = (0i64, 0i64);
    let out: Vec<Value> = rows
        .into_iter()
        .map(|(m, target, actual)| {
            ct += target;
            ca += actual;
            json!({"month": m, "target": store::format_money(target), "actual": store::format_money(actual), "percent": percent(actual, target),
                "targetToDate": store::format_money(ct), "actualToDate": store::format_money(ca)})
        })
        .collect();
    Ok(ok(json!({"year": year, "companyId": company.to_string(), "months": out})))
}

async fn month_value(State(st): State<AppState>, s: Session, Path(company): Path<String>) -> ApiResult<Response> {
    let company = if company == "0" { 0 } else { crud::parse_id(Some(&company))? };
    if company > 0 {
        crud::get_scoped(&st, &s, &st.res.get("company"), company).await?;
    }
    let now = st.settings.zone.format(store::now_millis());
    let (year, month): (i32, String) = (now.get(..4).and_then(|y| y.parse().ok()).unwrap_or(2026), now.chars().take(7).collect());
    let (res, t) = (st.res.clone(), s.tenant.clone());
    let rows = st.read(move |r| months(r, &res, &t, company, year)).await?;
    let (mt, ma) = rows.iter().find(|(m, ..)| *m == month).map(|(_, a, b)| (*a, *b)).unwrap_or((0, 0));
    let (yt, ya) = rows.iter().filter(|(m, ..)| *m <= month).fold((0, 0), |(a, b), (_, t, x)| (a + t, b + x));
    Ok(ok(json!({
        "month": month, "monthTarget": store::format_money(mt), "monthActual": store::format_money(ma), "monthPercent": percent(ma, mt),
        "yearTarget": store::format_money(yt), "yearActual": store::format_money(ya), "yearPercent": percent(ya, yt),
    })))
}

/// Demo targets: the year's months for the whole company, rising towards the year end.
pub fn demo(w: &mut store::WriteCtx, cx: &crate::engine::dialect::Ctx) -> store::Result<()> {
    let year: String = cx.now.chars().take(4).collect();
    let def = cx.def("month_target");
    for m in 1..=12 {
        let value = 30_000_000 + m as i64 * 2_500_000;
        let doc = json!({"month": format!("{year}-{m:02}"), "targetValue": value, "remark": "年度经营计划分解"});
        w.insert(&def, cx.tenant, crate::engine::rec::obj(doc), cx.actor)?;
    }
    Ok(())
}

/// GET desk: projects per province (adcode `xx0000`) for a business unit and since a day, and rectifications per
/// category with their labels — each part only for a user who may read projects or rectifications.
async fn desk(State(st): State<AppState>, s: Session, p: AnyParams) -> ApiResult<Response> {
    let bu = p.get("businessUnit").map(str::trim).filter(|v| !v.is_empty() && *v != "all").map(str::to_string);
    let since = p.get("since").map(str::trim).filter(|v| !v.is_empty()).map(str::to_string);
    if since.as_deref().is_some_and(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").is_err()) {
        return Err(ApiError::with(Kind::BadFormat, "since"));
    }
    let (projects_ok, rect_ok) = (s.require("project").is_ok(), s.require("building_rectification").is_ok());
    // Within the user's data scopes: what the project and rectification lists would show them.
    let pguard = if projects_ok { crate::auth::scope::guard(&st, &s, &st.res.get("project")).await? } else { None };
    let rguard = if rect_ok { crate::auth::scope::guard(&st, &s, &st.res.get("building_rectification")).await? } else { None };
    let labels = crate::engine::crud::dict_labels(&st, "rectification_category").await?;
    let (res, t) = (st.res.clone(), s.tenant.clone());
    let out = st
        .read(move |r| {
            let mut provinces: BTreeMap<String, u64> = BTreeMap::new();
            let mut located = 0u64;
            if projects_ok {
                for p in projects(r, &res, &t, 0)?.into_iter().filter(|p| crate::auth::scope::admits(&pguard, p)) {
                    let region = text(&p, "regionCode");
                    located += (region.len() >= 2) as u64;
                    let bu_ok = bu.as_deref().is_none_or(|b| text(&p, "businessUnit") == b);
                    let since_ok = since.as_deref().is_none_or(|d| text(&p, "startTime") >= d);
                    if region.len() >= 2 && bu_ok && since_ok {
                        *provinces.entry(format!("{}0000", &region[..2])).or_default() += 1;
                    }
                }
            }
            let mut rect: BTreeMap<i64, u64> = BTreeMap::new();
            if rect_ok {
                for x in r.list(&res.get("building_rectification"), &t, &Query { limit: 1_000_000, ..Query::default() })?.records.into_iter().filter(|x| crate::auth::scope::admits(&rguard, x)) {
                    *rect.entry(int(&x, "category")).or_default() += 1;
                }
            }
            Ok(json!({
                "provinces": provinces.iter().map(|(k, v)| json!({"code": k, "count": v})).collect::<Vec<_>>(),
                "rectifications": rect.iter().map(|(k, v)| json!({"key": k, "name": labels.get(&k.to_string()).cloned().unwrap_or_default(), "count": v})).collect::<Vec<_>>(),
                "locatedProjects": located,
                "projectsAllowed": projects_ok, "rectificationsAllowed": rect_ok,
            }))
        })
        .await?;
    Ok(ok(out))
}
