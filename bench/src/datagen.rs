//! The data generator: bulk-inserts parameter records into a data file that the real binary seeded, through
//! the store's own write path (indexes, unique keys and counters stay consistent; `verify` passes).
use std::path::Path;
use std::time::Instant;

use serde_json::{Map, Value, json};
use store::{Actor, Options, ResourceDef, Store};

const PARAM: &str = include_str!("../../assets/resources/system/param.json");

/// The data file opened as the server opens it for writing: the resources declared `plain` stay unpacked (were
/// the file's packing pending, `Options::default()` would pack them).
pub fn open(file: &Path) -> anyhow::Result<Store> {
    let plain = zhizhuang::decl::Resources::load()?.plain_names();
    Ok(Store::open(file, &Options { plain, ..Options::default() })?)
}

pub fn params(file: &Path, tenant: &str, count: u64, value_bytes: usize) -> anyhow::Result<()> {
    let def: ResourceDef = serde_json::from_str(PARAM)?;
    let st = open(file)?;
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
                w.insert(&d, &t, m, &Actor { user_id: 1, dept_id: 1, at: None })?;
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

const USER: &str = include_str!("../../assets/resources/user/user.json");
const DEPT: &str = include_str!("../../assets/resources/system/dept.json");
const ROLE: &str = include_str!("../../assets/resources/system/role.json");
const MENU: &str = include_str!("../../assets/resources/system/menu.json");
const DATASCOPE: &str = include_str!("../../assets/resources/system/datascope.json");

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
    let st = open(file)?;
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
                w.insert(&u, &t, doc.as_object().cloned().unwrap_or_default(), &Actor { user_id: 1, dept_id: team, at: None })?;
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

const UNITS: [&str; 4] = ["TOB", "BBC", "TOC", "SC"];
const COMPANY: &str = include_str!("../../assets/resources/scm/company.json");
const PROJECT: &str = include_str!("../../assets/resources/scm/project.json");
const CONTRACT: &str = include_str!("../../assets/resources/scm/contract.json");
const CONSTRUCT: &str = include_str!("../../assets/resources/scm/construct.json");

/// Issue 9's data: 20 companies, `projects` projects spread over them and over three years of start dates, one
/// signed contract per project and `constructs` constructs spread over the projects (every status), through
/// the store's own write path. Answers the id of the company the benchmark filters by.
pub fn projects(file: &Path, tenant: &str, projects: u64, constructs: u64) -> anyhow::Result<u64> {
    let parse = |s: &str| -> anyhow::Result<ResourceDef> { Ok(serde_json::from_str(s)?) };
    let (company, project, contract, construct) = (parse(COMPANY)?, parse(PROJECT)?, parse(CONTRACT)?, parse(CONSTRUCT)?);
    let st = open(file)?;
    let start = Instant::now();
    let (t, c2) = (tenant.to_string(), company.clone());
    let companies: Vec<u64> = st.write(move |w| {
        (0..20)
            .map(|i| {
                let doc = json!({"companyName": format!("基准分公司{i:02}"), "companyType": 1});
                Ok(w.insert(&c2, &t, doc.as_object().cloned().unwrap_or_default(), &Actor::default())?["id"].as_u64().unwrap_or(0))
            })
            .collect::<store::Result<Vec<u64>>>()
    })?;
    let day = |i: u64| {
        let d = i % 1095;
        format!("{}-{:02}-{:02}", 2024 + d / 365, 1 + (d % 365) / 31 % 12, 1 + d % 28)
    };
    let mut ids: Vec<(u64, u64)> = Vec::with_capacity(projects as usize);
    let mut done = 0;
    while done < projects {
        let n = (projects - done).min(10_000);
        let (p, c, t, cs) = (project.clone(), contract.clone(), tenant.to_string(), companies.clone());
        let batch: Vec<(u64, u64)> = st.write(move |w| {
            let sys = Actor { user_id: 1, dept_id: 1, at: None };
            let mut out = Vec::new();
            for i in done..done + n {
                let doc = json!({"projectCode": format!("XMB{i:08}"), "projectName": format!("基准项目{i}号楼精装修"), "projectCompanyId": cs[(i % 20) as usize],
                    "businessUnit": UNITS[(i % 4) as usize], "startTime": day(i * 7919), "address": format!("南京市建邺区{i}号"), "projectStatus": 2});
                let pid = w.insert(&p, &t, doc.as_object().cloned().unwrap_or_default(), &sys)?["id"].as_u64().unwrap_or(0);
                let doc = json!({"contractCode": format!("HTB{i:08}"), "contractName": format!("基准合同{i}"), "projectId": pid, "partyName": "基准业主",
                    "contractAmount": 10_000_000 + i as i64, "signDate": day(i * 7919), "contractStatus": 2});
                let cid = w.insert(&c, &t, doc.as_object().cloned().unwrap_or_default(), &sys)?["id"].as_u64().unwrap_or(0);
                out.push((pid, cid));
            }
            Ok(out)
        })?;
        ids.extend(batch);
        done += n;
        eprintln!("  projects {done}/{projects} in {:.1}s", start.elapsed().as_secs_f64());
    }
    let ids = std::sync::Arc::new(ids);
    let mut done = 0;
    while done < constructs {
        let n = (constructs - done).min(20_000);
        let (k, t, ids) = (construct.clone(), tenant.to_string(), ids.clone());
        st.write(move |w| {
            let sys = Actor { user_id: 1, dept_id: 1, at: None };
            for i in done..done + n {
                let (pid, cid) = ids[(i % ids.len() as u64) as usize];
                let doc = json!({"constructCode": format!("SGB{i:09}"), "constructName": "基准施工", "projectId": pid, "contractId": cid,
                    "constructMode": 1 + i % 3, "modelStatus": 1 + i % 4, "planStart": day(i), "buildings": format!("{}#", i % 30)});
                w.insert(&k, &t, doc.as_object().cloned().unwrap_or_default(), &sys)?;
            }
            Ok(())
        })?;
        done += n;
        if done % 200_000 == 0 || done == constructs {
            eprintln!("  constructs {done}/{constructs} in {:.1}s", start.elapsed().as_secs_f64());
        }
    }
    st.close();
    Ok(companies[3])
}

/// Issue 10's catalogue: 40 categories over the four product types and COUNT products whose names combine a
/// material, a kind and a size (`仿古 地砖 600×600 #123`), written through the store (indexes, unique codes).
pub fn products(file: &Path, tenant: &str, count: u64) -> anyhow::Result<()> {
    let res = zhizhuang::decl::Resources::load()?;
    let (cdef, pdef) = (res.get("product_category"), res.get("product"));
    let st = open(file)?;
    let start = Instant::now();
    let (c2, t2) = (cdef.clone(), tenant.to_string());
    let cats: Vec<(u64, i64)> = st.write(move |w| {
        let mut out = Vec::new();
        for i in 0..40i64 {
            let ty = 1 + i % 4;
            let doc = json!({"parentId": 0, "categoryName": format!("基准分类{i}"), "productType": ty, "sort": i});
            out.push((w.insert(&c2, &t2, doc.as_object().cloned().unwrap_or_default(), &Actor::default())?["id"].as_u64().unwrap_or(0), ty));
        }
        Ok(out)
    })?;
    let materials = ["仿古", "大理石", "木纹", "实木", "岩板", "釉面", "抛光", "哑光", "防滑", "柔光", "水磨石", "微水泥"];
    let kinds = ["地砖", "墙砖", "地板", "台面", "踢脚线", "吊顶板", "石膏线", "门套", "窗台板", "马赛克"];
    let sizes = ["600×600", "800×800", "300×600", "750×1500", "200×1200", "1200×2400"];
    let cats = std::sync::Arc::new(cats);
    let mut done = 0;
    while done < count {
        let n = (count - done).min(20_000);
        let (d, t, c) = (pdef.clone(), tenant.to_string(), cats.clone());
        st.write(move |w| {
            for i in done..done + n {
                let (cat, ty) = c[(i % c.len() as u64) as usize];
                let name = format!("{}{} {} #{i}", materials[(i % 12) as usize], kinds[(i / 12 % 10) as usize], sizes[(i / 120 % 6) as usize]);
                let brand = ["东鹏", "马可波罗", "诺贝尔", "大自然"][(i % 4) as usize];
                let doc = json!({"productCode": format!("CPB{i:07}"), "productName": name, "productType": ty, "categoryId": cat, "brand": brand,
                    "unit": "片", "price": 1000 + (i % 9000) as i64, "productStatus": 1});
                w.insert(&d, &t, doc.as_object().cloned().unwrap_or_default(), &Actor { user_id: 1, dept_id: 1, at: None })?;
            }
            Ok(())
        })?;
        done += n;
        eprintln!("  {done}/{count} products in {:.1}s", start.elapsed().as_secs_f64());
    }
    st.close();
    Ok(())
}
