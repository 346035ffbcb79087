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

/// The users of a tenant who may sign in and whose roles are granted the menu or button `code` (a work order's
/// 处理人 may open work orders, a 复盘's 主持人 may open 复盘), in the order they were made: the demo names only
/// such people where a form would (`ui.holds`).
pub fn holders(w: &store::WriteCtx, res: &crate::decl::Resources, tenant: &str, code: &str) -> store::Result<Vec<u64>> {
    let id = |m: &serde_json::Map<String, serde_json::Value>| m.get("id").and_then(store::parse_id_value).unwrap_or(0);
    let menus: Vec<u64> = w.all(&res.get("menu"), tenant)?.iter().filter(|m| m.get("code").and_then(serde_json::Value::as_str) == Some(code)).map(id).collect();
    let ids_in = |v: Option<&serde_json::Value>| v.and_then(serde_json::Value::as_array).map(|a| a.iter().filter_map(store::parse_id_value).collect::<Vec<u64>>()).unwrap_or_default();
    let roles: Vec<u64> = w
        .all(&res.get("role"), tenant)?
        .iter()
        .filter(|r| r.get("isWorker").and_then(serde_json::Value::as_i64) != Some(1) && ids_in(r.get("menuIds")).iter().any(|m| menus.contains(m)))
        .map(id)
        .collect();
    Ok(w.all(&res.get("user"), tenant)?
        .iter()
        .filter(|u| u.get("passwordHash").and_then(serde_json::Value::as_str) != Some("!") && u.get("status").and_then(serde_json::Value::as_i64) == Some(1))
        .filter(|u| crate::auth::session::id_list(u.get("roleId")).iter().any(|r| roles.contains(r)))
        .map(id)
        .collect())
}

/// A one-page A4 PDF of a title and some lines, in Chinese, for the demo's documents: text in the standard CJK font
/// STSong-Light (Adobe-GB1, UCS-2 encoded), which PDF readers supply themselves, so nothing is embedded and a
/// page is ~1.5 KB. Characters outside the BMP are left out.
pub fn pdf_page(title: &str, lines: &[String]) -> Vec<u8> {
    let hex = |s: &str| s.chars().filter_map(|c| u16::try_from(c as u32).ok()).map(|u| format!("{u:04X}")).collect::<String>();
    let mut content = format!("BT /F1 20 Tf 72 770 Td <{}> Tj ET\n", hex(title));
    for (i, l) in lines.iter().enumerate() {
        content.push_str(&format!("BT /F1 12 Tf 72 {} Td <{}> Tj ET\n", 730 - 22 * i as i64, hex(l)));
    }
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".to_string(),
        format!("<< /Length {} >>\nstream\n{content}endstream", content.len()),
        "<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H /DescendantFonts [6 0 R] >>".to_string(),
        "<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 2 >> /FontDescriptor 7 0 R /DW 1000 /W [1 95 500] >>".to_string(),
        "<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [-25 -254 1000 880] /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>".to_string(),
    ];
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).as_bytes());
    out
}

#[cfg(test)]
mod tests {
    /// The cross-reference table points at each object, as a reader looks them up.
    #[test]
    fn a_demo_pdf_finds_its_objects() {
        let pdf = super::pdf_page("合同扫描件", &["项目名称:翠屏城3-1201".to_string()]);
        let at = |needle: &str, from: usize| pdf[from..].windows(needle.len()).position(|w| w == needle.as_bytes()).map(|i| i + from);
        let tail = at("startxref\n", 0).unwrap() + 10;
        let xref: usize = std::str::from_utf8(&pdf[tail..]).unwrap().lines().next().unwrap().parse().unwrap();
        assert!(pdf[xref..].starts_with(b"xref\n0 8\n"));
        let table = std::str::from_utf8(&pdf[xref..]).unwrap();
        for (n, line) in table.lines().skip(3).take(7).enumerate() {
            let off: usize = line[..10].parse().unwrap();
            assert!(pdf[off..].starts_with(format!("{} 0 obj", n + 1).as_bytes()), "object {} at {off}", n + 1);
        }
        let text = String::from_utf8_lossy(&pdf).to_string();
        assert!(text.contains("<5408540C626B63CF4EF6> Tj"), "the title as UCS-2: {text}");
    }
}
