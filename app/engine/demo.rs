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

/// A demo text of the first tenant's city (南京: its districts, streets, estates' landmarks) as the tenant's own:
/// the second demo tenant is in 杭州, where 江宁区 or 新街口 would read wrong to anyone who knows either city.
pub fn in_city(tenant: &str, text: &str) -> String {
    const HANGZHOU: [(&str, &str); 22] = [
        ("雨花台区", "临平区"), ("江宁区", "余杭区"), ("鼓楼区", "上城区"), ("秦淮区", "拱墅区"), ("玄武区", "西湖区"), ("建邺区", "滨江区"),
        ("栖霞区", "萧山区"), ("新街口", "武林广场"), ("河西", "滨江"), ("江东中路", "江南大道"), ("将军大道", "文一西路"), ("秣陵街道", "仓前街道"),
        ("天元东路", "文二西路"), ("东山街道", "五常街道"), ("上元大街", "良渚路"), ("锁金村", "翠苑"), ("中山南路", "延安路"), ("中山路18号德基广场", "延安路258号湖滨银泰"),
        ("国睿大厦", "钱江国际"), ("胜太路", "江晖路"), ("江宁", "余杭"), ("南京", "杭州"),
    ];
    if city(tenant).0 == "南京" {
        return text.to_string();
    }
    HANGZHOU.iter().fold(text.to_string(), |t, (from, to)| t.replace(from, to))
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
