//! Issue 12's data: in tenant 157270, USERS people, a one-step process `bench` (start → the user named by the
//! variable `who` → end), RUNNING instances started through the engine (`zhizhuang::api::flow::runtime::start`)
//! — `MINE` of them waiting on the tenant admin (the completions of the bench), the rest spread over the people —
//! and FINISHED finished instances with one completed task each (written as the engine leaves them: instance
//! passed, task done, history start/pass/end). `bench1` (password Bench#2026) waits on about RUNNING/USERS tasks
//! (its to-do list is the one measured). Writes `complete.jsonl` (one completion body per open task of the admin)
//! and `start.jsonl` (start bodies) and prints the process id.
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use serde_json::{Map, Value, json};
use store::Actor;
use zhizhuang::engine::dialect::Ctx;
use zhizhuang::decl::Resources;

use zhizhuang::engine::rec::obj;

pub fn flows(file: &Path, out: &Path, tenant: &str, users: u64, running: u64, mine: u64, finished: u64) -> anyhow::Result<String> {
    let res = Resources::load()?;
    let st = crate::datagen::open(file)?;
    let start = Instant::now();
    let now = "2026-11-23 09:00:00".to_string();
    // People (one with a password to sign in), and the admin's id.
    let (r, t) = (res.clone(), tenant.to_string());
    let hash = zhizhuang::auth::password::hash(&zhizhuang::auth::password::md5_hex("Bench#2026"));
    let (admin, people): (u64, Vec<u64>) = st.write(move |w| {
        let udef = r.get("user");
        let admin = w.find_unique(&udef, &t, "account", "admin")?.unwrap_or(0);
        let role = w.find_unique(&r.get("role"), &t, "roleAlias", "admin")?.unwrap_or(0);
        let mut ids = Vec::new();
        for i in 0..users {
            let account = if i == 0 { "bench1".to_string() } else { format!("bench{}", i + 1) };
            let doc = json!({"account": account, "name": account, "realName": format!("基准用户{i}"), "roleId": role.to_string(), "userType": 1,
                "passwordHash": if i == 0 { hash.clone() } else { "x".into() }, "tokenVersion": 0});
            ids.push(w.insert(&udef, &t, obj(doc), &Actor::default())?["id"].as_u64().unwrap_or(0));
        }
        Ok((admin, ids))
    })?;
    let def: flow::Definition = serde_json::from_value(json!({
        "variables": [{"name": "who", "type": "user", "required": true}, {"name": "amount", "type": "number"}],
        "nodes": [{"id": "s", "type": "start", "name": "提交"}, {"id": "t", "type": "task", "name": "审批", "assign": {"kind": "var", "var": "who"}}, {"id": "e", "type": "end", "name": "结束"}],
        "flows": [{"id": "f1", "from": "s", "to": "t"}, {"id": "f2", "from": "t", "to": "e"}]
    }))?;
    anyhow::ensure!(flow::check(&def).is_empty(), "bench definition");
    let (r, t, d, n) = (res.clone(), tenant.to_string(), def.clone(), now.clone());
    let process: Map<String, Value> = st.write(move |w| {
        let actor = Actor { user_id: admin, dept_id: 0, at: None };
        let cx = Ctx { tenant: &t, actor: &actor, res: &r, now: &n };
        zhizhuang::api::flow::models::deploy_in(w, &cx, "bench", "基准审批", 1, &d, 0, "bench.json")
    })?;
    let pid = process["id"].as_u64().unwrap_or(0);
    eprintln!("  {users} people and the process in {:.1}s", start.elapsed().as_secs_f64());
    // Finished instances, written as the engine leaves them.
    let people = std::sync::Arc::new(people);
    let mut done = 0;
    while done < finished {
        let n = (finished - done).min(5_000);
        let (r, t, p, now) = (res.clone(), tenant.to_string(), people.clone(), now.clone());
        st.write(move |w| {
            let (idef, tdef, hdef) = (r.get("flow_instance"), r.get("flow_task"), r.get("flow_history"));
            for i in done..done + n {
                let starter = p[(i % p.len() as u64) as usize];
                let who = p[((i * 7 + 3) % p.len() as u64) as usize];
                let actor = Actor { user_id: starter, dept_id: 0, at: None };
                let state = json!({"status": "passed", "active": [], "joins": {}, "path": ["s", "t", "e"]});
                let inst = w.insert(&idef, &t, obj(json!({"processId": pid, "processKey": "bench", "processName": "基准审批", "category": 1, "version": 1,
                    "starterId": starter, "startTime": now, "status": 1, "running": 0, "vars": {"who": who.to_string(), "pass": true}, "state": state, "currentNodes": "", "endTime": now})), &actor)?;
                let iid = inst["id"].as_u64().unwrap_or(0);
                w.insert(&tdef, &t, obj(json!({"instanceId": iid, "processId": pid, "processName": "基准审批", "category": 1, "version": 1, "node": "t", "nodeName": "审批",
                    "starterId": starter, "assignee": who, "status": 1, "result": 1, "comment": "同意", "doneUser": who, "arriveTime": now, "endTime": now})), &actor)?;
                for (node, name, user, action) in [("s", "提交", starter, "start"), ("t", "审批", who, "pass"), ("end", "结束", 0, "end")] {
                    w.insert(&hdef, &t, obj(json!({"instanceId": iid, "node": node, "nodeName": name, "userId": user, "action": action, "comment": "", "startTime": now, "endTime": now, "durationMs": 0})), &actor)?;
                }
            }
            Ok(())
        })?;
        done += n;
        if done % 100_000 == 0 {
            eprintln!("  {done} finished in {:.1}s", start.elapsed().as_secs_f64());
        }
    }
    // Running instances through the engine.
    let mine_n = mine.min(running);
    let mut mine_tasks: Vec<u64> = Vec::new();
    let mut done = 0;
    while done < running {
        let n = (running - done).min(2_000);
        let (r, t, p, now) = (res.clone(), tenant.to_string(), people.clone(), now.clone());
        let process = process.clone();
        let batch: Vec<u64> = st.write(move |w| {
            let mut got = Vec::new();
            for i in done..done + n {
                let starter = p[((i * 13 + 5) % p.len() as u64) as usize];
                let who = if i < mine_n { admin } else { p[(i % p.len() as u64) as usize] };
                let actor = Actor { user_id: starter, dept_id: 0, at: None };
                let cx = Ctx { tenant: &t, actor: &actor, res: &r, now: &now };
                let mut vars = flow::Vars::new();
                vars.insert("who".into(), flow::Val::User(who));
                let inst = zhizhuang::api::flow::runtime::start(w, &cx, &process, vars, None)?;
                if who == admin {
                    let open = zhizhuang::api::flow::runtime::open_tasks(w, &cx, inst["id"].as_u64().unwrap_or(0))?;
                    got.extend(open.iter().filter_map(|x| x["id"].as_u64()));
                }
            }
            Ok(got)
        })?;
        mine_tasks.extend(batch);
        done += n;
        if done % 20_000 == 0 {
            eprintln!("  {done} running in {:.1}s", start.elapsed().as_secs_f64());
        }
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(out.join("complete.jsonl"))?);
    for t in &mine_tasks {
        writeln!(f, "{}", json!({"taskId": t.to_string(), "flag": "ok", "comment": "同意"}))?;
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(out.join("start.jsonl"))?);
    for i in 0..200_000u64 {
        let who = people[(i % people.len() as u64) as usize];
        writeln!(f, "{}", json!({"processDefinitionId": pid.to_string(), "variables": {"who": who.to_string(), "amount": format!("{}.5", i % 10_000)}}))?;
    }
    st.close();
    eprintln!("  done in {:.1}s: {} open tasks of the admin", start.elapsed().as_secs_f64(), mine_tasks.len());
    Ok(pid.to_string())
}

