//! Demo and seeded data dated as a real company's records would be: the product's home zone clock, an actor acting
//! at a local time in the past, and the city each demo tenant is in. Shared by every area's demo.

/// The local time of seeded records (first start, demo): the product's home zone, UTC+8 (the server's `--tz`
/// default), as the routes' times are.
pub fn seed_clock() -> chrono::NaiveDateTime {
    (chrono::Utc::now() + chrono::Duration::hours(8)).naive_utc()
}

/// `actor` acting at a local time `yyyy-MM-dd[ HH:mm:ss]` in the product's zone (+08:00, as `seed_clock`), for
/// demo records dated in the past (`store::Actor::at`), and that time as the write's local time (`Ctx::now`). A
/// time that does not read or is still to come is now.
pub fn seed_as(actor: store::Actor, when: &str) -> (store::Actor, String) {
    let at = crate::engine::demo::local(when).map(|t| (t - chrono::TimeDelta::hours(8)).and_utc().timestamp_millis()).filter(|ms| *ms <= store::now_millis());
    match at {
        Some(_) => (store::Actor { at, ..actor }, when.to_string()),
        None => (store::Actor { at: None, ..actor }, seed_clock().format("%Y-%m-%d %H:%M:%S").to_string()),
    }
}

/// A local time `yyyy-MM-dd HH:mm:ss` (or a date) as a naive date-time: both ends of a duration are in the
/// server's zone.
pub fn local(s: &str) -> Option<chrono::NaiveDateTime> {
    let s = s.trim();
    chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").ok().or_else(|| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok().and_then(|d| d.and_hms_opt(0, 0, 0)))
}

/// The demo tenant's city and a second one nearby (its companies, customers and addresses).
pub fn city(tenant: &str) -> (&'static str, &'static str) {
    if tenant == "157270" { ("南京", "苏州") } else { ("杭州", "宁波") }
}

/// Now in the product's zone as the API writes times (`Ctx::now`).
pub fn now_text() -> String {
    seed_clock().format("%Y-%m-%d %H:%M:%S").to_string()
}

/// The tenant's administrator as the actor of demo records a clerk would post.
pub fn admin_of(w: &store::WriteCtx, res: &crate::decl::Resources, tenant: &str) -> store::Result<store::Actor> {
    let admin = w.all(&res.get("user"), tenant)?.into_iter().find(|u| u["account"] == "admin").and_then(|u| u["id"].as_u64()).unwrap_or(0);
    Ok(store::Actor { user_id: admin, dept_id: 0, at: None })
}
