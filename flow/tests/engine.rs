//! The engine against hand-written processes (leave, counter-signs, BPMN) and random well-formed ones: every
//! instance ends or waits on a task, never both or neither, and the effects it returns agree with its state.
use std::collections::{BTreeMap, BTreeSet};

use flow::run::{self, Effect, Status};
use flow::{Assign, Definition, Mode, Node, NodeKind, TaskSpec, Val, VarDecl, VarType, Vars, WhenEmpty, bpmn, check};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

struct Dir {
    starter: u64,
}

impl run::Resolve for Dir {
    fn users(&self, a: &Assign, vars: &Vars) -> Vec<u64> {
        match a {
            Assign::User { users } => users.iter().filter_map(|u| u.parse().ok()).collect(),
            Assign::Role { role } if role == "manager" => vec![10, 11],
            Assign::Role { role } if role == "boss" => vec![20],
            Assign::Role { .. } | Assign::Group { .. } => vec![],
            Assign::Leader => vec![30],
            Assign::Starter => vec![self.starter],
            Assign::Var { var } => match vars.get(var) {
                Some(Val::User(u)) => vec![*u],
                _ => vec![],
            },
        }
    }
    fn starter(&self) -> u64 {
        self.starter
    }
}

fn leave() -> Definition {
    serde_json::from_value(serde_json::json!({
        "variables": [{"name": "days", "type": "number", "required": true}, {"name": "taskUser", "type": "user", "required": true}],
        "nodes": [
            {"id": "start", "type": "start", "name": "开始"},
            {"id": "hr", "type": "task", "name": "审批人审批", "assign": {"kind": "var", "var": "taskUser"}, "rejectTo": "adjust"},
            {"id": "judge", "type": "exclusive", "name": "天数判断", "default": "toManager"},
            {"id": "boss", "type": "task", "name": "总经理审批", "assign": {"kind": "role", "role": "boss"}, "rejectTo": "adjust"},
            {"id": "manager", "type": "task", "name": "经理审批", "assign": {"kind": "role", "role": "manager"}, "mode": "claim", "rejectTo": "adjust"},
            {"id": "adjust", "type": "task", "name": "调整申请", "assign": {"kind": "starter"}},
            {"id": "end", "type": "end", "name": "结束"}
        ],
        "flows": [
            {"id": "f1", "from": "start", "to": "hr"},
            {"id": "f2", "from": "hr", "to": "judge"},
            {"id": "toBoss", "from": "judge", "to": "boss", "condition": "days > 3"},
            {"id": "toManager", "from": "judge", "to": "manager"},
            {"id": "f5", "from": "boss", "to": "end"},
            {"id": "f6", "from": "manager", "to": "end"},
            {"id": "f7", "from": "adjust", "to": "hr"}
        ]
    }))
    .unwrap()
}

#[test]
fn leave_routes_by_days_and_rejects_back_to_the_starter() {
    let def = leave();
    assert_eq!(check(&def), vec![]);
    let dir = Dir { starter: 1 };
    let mut vars = def.read_vars(serde_json::json!({"days": "4.5", "taskUser": "5"}).as_object().unwrap()).unwrap();
    let (mut st, fx) = run::start(&def, &mut vars, &dir).unwrap();
    assert_eq!(fx, vec![Effect::Open { node: "hr".into(), users: vec![5], claim: false }]);
    // Somebody else cannot decide it.
    assert_eq!(run::decide(&def, &mut st, &mut vars, "hr", 6, true, &dir), Err(run::FlowError::NotAssignee("hr".into())));
    let fx = run::decide(&def, &mut st, &mut vars, "hr", 5, true, &dir).unwrap();
    assert_eq!(fx[1], Effect::Open { node: "boss".into(), users: vec![20], claim: false });
    // The boss rejects: back to the starter.
    let fx = run::decide(&def, &mut st, &mut vars, "boss", 20, false, &dir).unwrap();
    assert_eq!(fx, vec![Effect::Close { node: "boss".into(), pass: false }, Effect::Open { node: "adjust".into(), users: vec![1], claim: false }]);
    run::decide(&def, &mut st, &mut vars, "adjust", 1, true, &dir).unwrap();
    // Fewer days now: the manager path, by claim.
    vars.insert("days".into(), Val::Num(20_000));
    run::decide(&def, &mut st, &mut vars, "hr", 5, true, &dir).unwrap();
    assert_eq!(st.active[0].node, "manager");
    assert_eq!(run::decide(&def, &mut st, &mut vars, "manager", 10, true, &dir), Err(run::FlowError::Unclaimed("manager".into())));
    assert_eq!(run::claim(&mut st, "manager", 99), Err(run::FlowError::NotAssignee("manager".into())));
    run::claim(&mut st, "manager", 11).unwrap();
    assert_eq!(run::decide(&def, &mut st, &mut vars, "manager", 10, true, &dir), Err(run::FlowError::NotAssignee("manager".into())));
    let fx = run::decide(&def, &mut st, &mut vars, "manager", 11, true, &dir).unwrap();
    assert_eq!(fx.last(), Some(&Effect::End { status: Status::Passed }));
    assert_eq!(st.status, Status::Passed);
    assert!(st.active.is_empty());
    assert_eq!(st.path, ["start", "hr", "judge", "boss", "adjust", "hr", "judge", "manager", "end"]);
    assert_eq!(run::decide(&def, &mut st, &mut vars, "manager", 11, true, &dir), Err(run::FlowError::Ended));
}

#[test]
fn variables_are_declared_and_typed_and_pass_is_the_engines() {
    let def = leave();
    let read = |v: serde_json::Value| def.read_vars(v.as_object().unwrap()).map_err(|p| (p.var, p.msg));
    assert!(read(serde_json::json!({"days": 2})).is_ok());
    assert_eq!(read(serde_json::json!({"amount": 2})).unwrap_err().0.as_deref(), Some("amount"));
    assert_eq!(read(serde_json::json!({"days": "two"})).unwrap_err().0.as_deref(), Some("days"));
    assert_eq!(read(serde_json::json!({"days": 1.23456})).unwrap_err().0.as_deref(), Some("days"));
    assert_eq!(read(serde_json::json!({"taskUser": true})).unwrap_err().0.as_deref(), Some("taskUser"));
    assert_eq!(read(serde_json::json!({"pass": true})).unwrap_err().0.as_deref(), Some("pass"));
    let vars = read(serde_json::json!({"days": 2})).unwrap();
    assert_eq!(def.missing(&vars).map(|d| d.name.as_str()), Some("taskUser"));
}

fn counter_sign(mode: &str, quorum: Option<u32>) -> Definition {
    serde_json::from_value(serde_json::json!({
        "nodes": [
            {"id": "s", "type": "start"},
            {"id": "t", "type": "task", "name": "会签", "assign": {"kind": "user", "users": ["1", "2", "3", "4"]}, "mode": mode, "quorum": quorum},
            {"id": "e", "type": "end"}
        ],
        "flows": [{"id": "a", "from": "s", "to": "t"}, {"id": "b", "from": "t", "to": "e"}]
    }))
    .unwrap()
}

#[test]
fn counter_sign_semantics() {
    let dir = Dir { starter: 9 };
    let run_votes = |def: &Definition, votes: &[(u64, bool)]| -> Status {
        let mut vars = Vars::new();
        let (mut st, _) = run::start(def, &mut vars, &dir).unwrap();
        for (u, p) in votes {
            run::decide(def, &mut st, &mut vars, "t", *u, *p, &dir).unwrap();
        }
        st.status
    };
    let all = counter_sign("all", None);
    assert_eq!(check(&all), vec![]);
    assert_eq!(run_votes(&all, &[(1, true), (2, true), (3, true)]), Status::Running);
    assert_eq!(run_votes(&all, &[(1, true), (2, true), (3, true), (4, true)]), Status::Passed);
    assert_eq!(run_votes(&all, &[(1, true), (2, false)]), Status::Rejected);
    let any = counter_sign("any", None);
    assert_eq!(run_votes(&any, &[(3, true)]), Status::Passed);
    assert_eq!(run_votes(&any, &[(3, false)]), Status::Rejected);
    let q = counter_sign("quorum", Some(2));
    assert_eq!(run_votes(&q, &[(1, false), (2, true)]), Status::Running);
    assert_eq!(run_votes(&q, &[(1, false), (2, true), (4, true)]), Status::Passed);
    assert_eq!(run_votes(&q, &[(1, false), (2, false)]), Status::Running);
    assert_eq!(run_votes(&q, &[(1, false), (2, false), (3, false)]), Status::Rejected);
    // A vote twice is refused.
    let mut vars = Vars::new();
    let (mut st, _) = run::start(&all, &mut vars, &dir).unwrap();
    run::decide(&all, &mut st, &mut vars, "t", 1, true, &dir).unwrap();
    assert_eq!(run::decide(&all, &mut st, &mut vars, "t", 1, true, &dir), Err(run::FlowError::Decided("t".into())));
}

#[test]
fn checks_name_the_node() {
    let mut def = leave();
    def.nodes.push(Node { id: "lost".into(), name: "孤立".into(), kind: NodeKind::End { rejected: false }, x: None, y: None });
    let p = check(&def);
    assert_eq!(p[0].node.as_deref(), Some("lost"), "{p:?}");
    let mut def = leave();
    if let NodeKind::Exclusive { default } = &mut def.nodes[2].kind {
        *default = None;
    }
    let p = check(&def);
    assert!(p.iter().any(|p| p.node.as_deref() == Some("judge") && p.msg.contains("默认")), "{p:?}");
    let mut def = leave();
    def.flows[2].condition = Some("dayz > 3".into());
    let p = check(&def);
    assert!(p.iter().any(|p| p.flow.as_deref() == Some("toBoss") && p.msg.contains("dayz")), "{p:?}");
    let mut def = leave();
    def.flows.retain(|f| f.id != "f6");
    let p = check(&def);
    assert!(p.iter().any(|p| p.node.as_deref() == Some("manager")), "{p:?}");
    let mut def = leave();
    def.nodes.retain(|n| n.id != "start");
    assert!(!check(&def).is_empty());
}

const LEAVE_BPMN: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:flowable="http://flowable.org/bpmn" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" targetNamespace="http://www.flowable.org/processdef">
  <process id="Leave" name="请假流程" isExecutable="true">
    <documentation>请假流程</documentation>
    <startEvent id="start" name="start" flowable:initiator="applyUser"></startEvent>
    <userTask id="hrTask" name="审批人审批" flowable:assignee="${taskUser}"></userTask>
    <sequenceFlow id="flow1" sourceRef="start" targetRef="hrTask"></sequenceFlow>
    <exclusiveGateway id="judgeTask"></exclusiveGateway>
    <sequenceFlow id="flow2" sourceRef="hrTask" targetRef="judgeTask"><conditionExpression xsi:type="tFormalExpression" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><![CDATA[${pass}]]></conditionExpression></sequenceFlow>
    <userTask id="bossTask" name="老板审批" flowable:candidateGroups="boss"></userTask>
    <userTask id="managerTask" name="经理审批" flowable:candidateGroups="manager"></userTask>
    <sequenceFlow id="judgeMore" sourceRef="judgeTask" targetRef="bossTask"><conditionExpression><![CDATA[${days > 3}]]></conditionExpression></sequenceFlow>
    <sequenceFlow id="judgeLess" sourceRef="judgeTask" targetRef="managerTask"><conditionExpression><![CDATA[${days <= 3}]]></conditionExpression></sequenceFlow>
    <userTask id="userTask" name="调整申请" flowable:assignee="${applyUser}"></userTask>
    <sequenceFlow id="hrNo" sourceRef="hrTask" targetRef="userTask"><conditionExpression><![CDATA[${!pass}]]></conditionExpression></sequenceFlow>
    <sequenceFlow id="bossOk" sourceRef="bossTask" targetRef="end"><conditionExpression><![CDATA[${pass}]]></conditionExpression></sequenceFlow>
    <sequenceFlow id="bossNo" sourceRef="bossTask" targetRef="userTask"><conditionExpression><![CDATA[${!pass}]]></conditionExpression></sequenceFlow>
    <sequenceFlow id="mgrOk" sourceRef="managerTask" targetRef="end"><conditionExpression><![CDATA[${pass}]]></conditionExpression></sequenceFlow>
    <sequenceFlow id="mgrNo" sourceRef="managerTask" targetRef="userTask"><conditionExpression><![CDATA[${!pass}]]></conditionExpression></sequenceFlow>
    <sequenceFlow id="again" sourceRef="userTask" targetRef="hrTask"><conditionExpression><![CDATA[${pass}]]></conditionExpression></sequenceFlow>
    <sequenceFlow id="giveUp" sourceRef="userTask" targetRef="end"><conditionExpression><![CDATA[${!pass}]]></conditionExpression></sequenceFlow>
    <endEvent id="end" name="end"></endEvent>
  </process>
  <bpmndi:BPMNDiagram id="BPMNDiagram_Leave"><bpmndi:BPMNPlane bpmnElement="Leave" id="BPMNPlane_Leave"></bpmndi:BPMNPlane></bpmndi:BPMNDiagram>
</definitions>"#;

#[test]
fn bpmn_leave_imports_and_runs() {
    let imp = bpmn::import(LEAVE_BPMN).unwrap();
    assert_eq!((imp.key.as_str(), imp.name.as_str()), ("Leave", "请假流程"));
    assert_eq!(check(&imp.def), vec![]);
    let ty = |n: &str| imp.def.var(n).map(|v| v.ty);
    assert_eq!((ty("days"), ty("taskUser"), ty("applyUser"), ty("pass")), (Some(VarType::Number), Some(VarType::User), Some(VarType::User), None));
    let def = imp.def;
    let dir = Dir { starter: 1 };
    let mut vars: Vars = [("days".to_string(), Val::Num(10_000)), ("taskUser".to_string(), Val::User(5)), ("applyUser".to_string(), Val::User(1))].into();
    let (mut st, _) = run::start(&def, &mut vars, &dir).unwrap();
    run::decide(&def, &mut st, &mut vars, "hrTask", 5, false, &dir).unwrap();
    assert_eq!(st.active[0].node, "userTask");
    // The applicant gives up: the instance ends rejected.
    let fx = run::decide(&def, &mut st, &mut vars, "userTask", 1, false, &dir).unwrap();
    assert_eq!(fx.last(), Some(&Effect::End { status: Status::Rejected }));
}

#[test]
fn hostile_or_foreign_bpmn_is_refused() {
    let laughs = r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><definitions><process id="p">&lol2;</process></definitions>"#;
    assert!(bpmn::import(laughs).unwrap_err().msg.contains("DTD"));
    let xxe = r#"<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><definitions><process id="p"><startEvent id="s" name="&xxe;"/></process></definitions>"#;
    assert!(bpmn::import(xxe).is_err());
    let script = LEAVE_BPMN.replace("<endEvent id=\"end\" name=\"end\"></endEvent>", "<endEvent id=\"end\" name=\"end\"></endEvent><scriptTask id=\"evil\" name=\"运行脚本\" scriptFormat=\"groovy\"><script>Runtime.exec()</script></scriptTask>");
    let e = bpmn::import(&script).unwrap_err();
    assert!(e.msg.contains("scriptTask") && e.msg.contains("evil") && e.msg.contains("运行脚本"), "{}", e.msg);
    let listener = LEAVE_BPMN.replace("<userTask id=\"bossTask\" name=\"老板审批\" flowable:candidateGroups=\"boss\"></userTask>", "<userTask id=\"bossTask\" name=\"老板审批\" flowable:candidateGroups=\"boss\"><timerEventDefinition id=\"t1\"/></userTask>");
    assert!(bpmn::import(&listener).unwrap_err().msg.contains("timerEventDefinition"));
    assert!(bpmn::import(&"x".repeat(bpmn::MAX_BYTES + 1)).is_err());
    assert!(bpmn::import("<definitions><process id=\"a b\"/></definitions>").is_err());
}

// ---------------------------------------------------------------------------------------------------------
// Random well-formed processes

struct Gen<'a> {
    rng: &'a mut StdRng,
    def: Definition,
    tasks: Vec<String>,
    merges: Vec<String>,
    n: u32,
}

impl Gen<'_> {
    fn id(&mut self, p: &str) -> String {
        self.n += 1;
        format!("{p}{}", self.n)
    }
    fn flow(&mut self, from: &str, to: &str, condition: Option<String>) -> String {
        let id = self.id("f");
        self.def.flows.push(flow::Flow { id: id.clone(), from: from.into(), to: to.into(), name: None, condition });
        id
    }
    fn node(&mut self, id: &str, kind: NodeKind) {
        self.def.nodes.push(Node { id: id.into(), name: id.into(), kind, x: None, y: None });
    }
    /// A block with one entry and one exit node.
    fn block(&mut self, depth: u32) -> (String, String) {
        let pick = if depth == 0 { 0 } else { self.rng.random_range(0..5) };
        match pick {
            0 | 1 => {
                let id = self.id("t");
                let users: Vec<String> = (0..self.rng.random_range(1..4)).map(|_| self.rng.random_range(1..6u64).to_string()).collect();
                let mode = [Mode::Single, Mode::Claim, Mode::All, Mode::Any, Mode::Quorum][self.rng.random_range(0..5)];
                let assign = match self.rng.random_range(0..4) {
                    0 => Assign::Role { role: "manager".into() },
                    1 => Assign::Starter,
                    2 => Assign::Var { var: "who".into() },
                    _ => Assign::User { users },
                };
                let reject_to = if !self.tasks.is_empty() && self.rng.random_bool(0.3) { Some(self.tasks[self.rng.random_range(0..self.tasks.len())].clone()) } else { None };
                let spec = TaskSpec { assign, mode, quorum: Some(self.rng.random_range(1..3)), reject_to, default: None, due_hours: None, when_empty: WhenEmpty::Fail, no_self: false };
                self.node(&id, NodeKind::Task(Box::new(spec)));
                self.tasks.push(id.clone());
                (id.clone(), id)
            }
            2 => {
                let (a1, a2) = self.block(depth - 1);
                let (b1, b2) = self.block(depth - 1);
                self.flow(&a2, &b1, None);
                (a1, b2)
            }
            3 => {
                let (g, m) = (self.id("x"), self.id("m"));
                self.node(&g, NodeKind::Exclusive { default: None });
                self.node(&m, NodeKind::Exclusive { default: None });
                self.merges.push(m.clone());
                let (a1, a2) = self.block(depth - 1);
                let (b1, b2) = self.block(depth - 1);
                let k = self.rng.random_range(0..10);
                self.flow(&g, &a1, Some(format!("x > {k}")));
                let d = self.flow(&g, &b1, None);
                if let Some(n) = self.def.nodes.iter_mut().find(|n| n.id == g) {
                    n.kind = NodeKind::Exclusive { default: Some(d) };
                }
                self.flow(&a2, &m, None);
                self.flow(&b2, &m, None);
                (g, m)
            }
            _ => {
                let (s, j) = (self.id("p"), self.id("j"));
                self.node(&s, NodeKind::Parallel);
                self.node(&j, NodeKind::Parallel);
                let branches = self.rng.random_range(2..4);
                for _ in 0..branches {
                    let (a1, a2) = self.block(depth - 1);
                    self.flow(&s, &a1, None);
                    self.flow(&a2, &j, None);
                }
                (s, j)
            }
        }
    }
}

fn random_def(rng: &mut StdRng) -> Definition {
    let mut g = Gen { rng, def: Definition::default(), tasks: vec![], merges: vec![], n: 0 };
    g.def.variables = vec![
        VarDecl { name: "x".into(), label: String::new(), ty: VarType::Number, required: true },
        VarDecl { name: "who".into(), label: String::new(), ty: VarType::User, required: true },
    ];
    g.node("start", NodeKind::Start);
    g.node("end", NodeKind::End { rejected: false });
    let depth = g.rng.random_range(1..5);
    let (a, b) = g.block(depth);
    g.flow("start", &a, None);
    let last = g.flow(&b, "end", None);
    let _ = last;
    // A rejection never jumps into a parallel branch (the check refuses it).
    let inside: Vec<String> = g.tasks.iter().filter(|t| flow::check::in_parallel(&g.def, t)).cloned().collect();
    for n in g.def.nodes.iter_mut() {
        if let NodeKind::Task(t) = &mut n.kind
            && t.reject_to.as_ref().is_some_and(|r| inside.contains(r)) {
            t.reject_to = None;
        }
    }
    // A merge node leaves by its one flow: make it the default.
    for m in g.merges.clone() {
        let out = g.def.outgoing(&m).next().map(|f| f.id.clone());
        if let Some(n) = g.def.nodes.iter_mut().find(|n| n.id == m) {
            n.kind = NodeKind::Exclusive { default: out };
        }
    }
    g.def
}

#[test]
fn random_processes_always_end_or_wait_on_a_task() {
    let seed: u64 = std::env::var("ZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| rand::rng().random());
    println!("ZZ_SEED={seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut ended, mut decisions) = (0, 0);
    for case in 0..400 {
        let def = random_def(&mut rng);
        let problems = check(&def);
        assert!(problems.is_empty(), "case {case}: {problems:?}\n{}", serde_json::to_string(&def).unwrap());
        // Round trip through JSON: what is stored is what runs.
        let def: Definition = serde_json::from_str(&serde_json::to_string(&def).unwrap()).unwrap();
        let dir = Dir { starter: rng.random_range(1..6) };
        let mut vars: Vars = [("x".to_string(), Val::Num(rng.random_range(0..10) * flow::NUM_SCALE)), ("who".to_string(), Val::User(rng.random_range(1..6)))].into();
        let (mut st, fx) = run::start(&def, &mut vars, &dir).unwrap_or_else(|e| panic!("case {case} start: {e:?}"));
        let mut open: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
        let apply = |open: &mut BTreeMap<String, BTreeSet<u64>>, fx: &[Effect]| {
            for f in fx {
                match f {
                    Effect::Open { node, users, .. } => {
                        assert!(open.insert(node.clone(), users.iter().copied().collect()).is_none(), "opened twice: {node}");
                    }
                    Effect::Close { node, .. } | Effect::Cancel { node } => {
                        assert!(open.remove(node).is_some(), "closed a node that was not open: {node}");
                    }
                    Effect::AutoPass { .. } => {}
                    Effect::End { .. } => assert!(open.is_empty(), "ended with open tasks"),
                }
            }
        };
        apply(&mut open, &fx);
        for _ in 0..300 {
            let active: BTreeSet<String> = st.active.iter().map(|a| a.node.clone()).collect();
            assert_eq!(active, open.keys().cloned().collect(), "case {case}: effects and state disagree");
            if st.status != Status::Running {
                assert!(st.active.is_empty() && st.joins.is_empty(), "case {case}: ended but waits");
                ended += 1;
                break;
            }
            assert!(!st.active.is_empty(), "case {case}: running but waits on nothing");
            let a = st.active[rng.random_range(0..st.active.len())].clone();
            let mut user = a.users[rng.random_range(0..a.users.len())];
            if a.claim {
                run::claim(&mut st, &a.node, user).unwrap();
                let u = open.get_mut(&a.node).unwrap();
                assert!(u.contains(&user));
            } else if a.passed.contains(&user) || a.rejected.contains(&user) {
                user = *a.users.iter().find(|u| !a.passed.contains(u) && !a.rejected.contains(u)).unwrap();
            }
            let pass = rng.random_bool(0.8);
            let fx = run::decide(&def, &mut st, &mut vars, &a.node, user, pass, &dir).unwrap_or_else(|e| panic!("case {case}: {e:?}\n{}", serde_json::to_string(&def).unwrap()));
            decisions += 1;
            apply(&mut open, &fx);
        }
    }
    assert!(ended > 200, "only {ended} of 400 instances ended ({decisions} decisions)");
}
