//! The data generator: bulk-inserts parameter records into a data file that the real binary seeded, through
//! the store's own write path (indexes, unique keys and counters stay consistent; `verify` passes).
use std::path::Path;
use std::time::Instant;

use serde_json::{Map, Value, json};
use store::{Actor, Options, ResourceDef, Store};

const PARAM: &str = include_str!("../../assets/resources/param.json");

pub fn params(file: &Path, tenant: &str, count: u64, value_bytes: usize) -> anyhow::Result<()> {
    let def: ResourceDef = serde_json::from_str(PARAM)?;
    let st = Store::open(file, &Options::default())?;
    let start = Instant::now();
    let already = st.read(|r| r.count(&def, tenant))?;
    let filler: String = "装修材料参数说明".chars().cycle().take(value_bytes / 3).collect();
    let mut done = 0;
    while done < count {
        let n = (count - done).min(20_000);
        let (d, t, f, base) = (def.clone(), tenant.to_string(), filler.clone(), already + done);
        st.write(move |w| {
            for i in base..base + n {
                let mut m = Map::new();
                m.insert("paramName".into(), json!(format!("参数{}", i % 5000)));
                m.insert("paramKey".into(), json!(format!("bench.key.{i}")));
                m.insert("paramValue".into(), Value::String(format!("{i}:{f}")));
                m.insert("remark".into(), json!("基准测试数据"));
                w.insert(&d, &t, m, &Actor { user_id: 1, dept_id: 1 })?;
            }
            Ok(())
        })?;
        done += n;
        if done % 200_000 == 0 || done == count {
            eprintln!("  generated {done}/{count} in {:.1}s", start.elapsed().as_secs_f64());
        }
    }
    st.close();
    Ok(())
}

const USER: &str = include_str!("../../assets/resources/user.json");
const DEPT: &str = include_str!("../../assets/resources/dept.json");
const ROLE: &str = include_str!("../../assets/resources/role.json");
const MENU: &str = include_str!("../../assets/resources/menu.json");
const DATASCOPE: &str = include_str!("../../assets/resources/datascope.json");

/// What the user benchmark needs to know about the generated organisation.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Org {
    /// A division: the viewer belongs here, so data scope 4 admits its whole subtree (100 teams).
    pub division: u64,
    /// A department inside that division (10 teams): the page's `deptId` filter.
    pub dept: u64,
    /// The viewer's role: reads users, data scope 4 on `deptId`.
    pub role: u64,
}

/// A company of 1 + 10 divisions + 100 departments + 1,000 teams, `count` users spread over the teams, and a
/// role that reads users under data scope 4 (own department and below, on `deptId`).
pub fn users(file: &Path, tenant: &str, count: u64) -> anyhow::Result<Org> {
    let parse = |s: &str| -> anyhow::Result<ResourceDef> { Ok(serde_json::from_str(s)?) };
    let (user, dept, role, menu, scope) = (parse(USER)?, parse(DEPT)?, parse(ROLE)?, parse(MENU)?, parse(DATASCOPE)?);
    let st = Store::open(file, &Options::default())?;
    let start = Instant::now();
    let t = tenant.to_string();
    let (d2, r2, m2, s2) = (dept.clone(), role.clone(), menu.clone(), scope.clone());
    let (org, teams) = st.write(move |w| {
        let sys = Actor::default();
        let ins = |w: &mut store::WriteCtx, parent: u64, anc: &str, name: String| -> store::Result<u64> {
            let doc = json!({"parentId": parent, "ancestors": anc, "deptName": name, "fullName": name, "deptCategory": 2, "sort": 1});
            Ok(w.insert(&d2, &t, doc.as_object().cloned().unwrap_or_default(), &sys)?["id"].as_u64().unwrap_or(0))
        };
        let root = ins(w, 0, "0", "基准公司".into())?;
        let (mut teams, mut first_div, mut first_dept) = (Vec::new(), 0, 0);
        for a in 0..10 {
            let div = ins(w, root, &format!("0,{root}"), format!("事业部{a}"))?;
            for b in 0..10 {
                let dep = ins(w, div, &format!("0,{root},{div}"), format!("部门{a}-{b}"))?;
                for c in 0..10 {
                    teams.push(ins(w, dep, &format!("0,{root},{div},{dep}"), format!("班组{a}-{b}-{c}"))?);
                }
                if a == 0 && b == 0 {
                    first_dept = dep;
                }
            }
            if a == 0 {
                first_div = div;
            }
        }
        let menus = w.all(&m2, store::PLATFORM_TENANT)?;
        let user_menu = menus.iter().find(|m| m["code"] == "user").and_then(|m| m["id"].as_u64()).unwrap_or(0);
        let sc = json!({"menuId": user_menu, "resourceCode": "user", "scopeName": "本部门及以下", "scopeField": "deptId", "scopeType": 4});
        let sid = w.insert(&s2, store::PLATFORM_TENANT, sc.as_object().cloned().unwrap_or_default(), &sys)?["id"].as_u64().unwrap_or(0);
        let rl = json!({"roleName": "基准查看", "roleAlias": "bench_viewer", "sort": 9, "parentId": 0, "isWorker": 0,
            "menuIds": [user_menu.to_string()], "dataScopeIds": [sid.to_string()], "apiScopeIds": []});
        let rid = w.insert(&r2, &t, rl.as_object().cloned().unwrap_or_default(), &sys)?["id"].as_u64().unwrap_or(0);
        Ok((Org { division: first_div, dept: first_dept, role: rid }, teams))
    })?;
    let mut done = 0;
    while done < count {
        let n = (count - done).min(20_000);
        let (u, t, teams, base) = (user.clone(), tenant.to_string(), teams.clone(), done);
        st.write(move |w| {
            for i in base..base + n {
                let team = teams[(i % teams.len() as u64) as usize];
                let doc = json!({"account": format!("bu{i}"), "name": format!("员工{i}"), "realName": format!("员工{}", i % 9973),
                    "deptId": team.to_string(), "userType": 1, "passwordHash": "-", "tokenVersion": 0});
                w.insert(&u, &t, doc.as_object().cloned().unwrap_or_default(), &Actor { user_id: 1, dept_id: team })?;
            }
            Ok(())
        })?;
        done += n;
        if done % 200_000 == 0 || done == count {
            eprintln!("  generated {done}/{count} users in {:.1}s", start.elapsed().as_secs_f64());
        }
    }
    st.close();
    Ok(org)
}
