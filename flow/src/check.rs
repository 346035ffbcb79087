//! The checks a definition passes before it is saved as deployable: every problem names its node (or flow, or
//! variable) so the designer can show it beside it.
use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::{Assign, Definition, Mode, NodeKind, VarType, cond};

#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub var: Option<String>,
    pub msg: String,
    pub msg_en: String,
}

impl Problem {
    pub fn node(id: &str, zh: &str, en: &str) -> Problem {
        Problem { node: Some(id.into()), flow: None, var: None, msg: zh.into(), msg_en: en.into() }
    }
    pub fn flow(id: &str, zh: &str, en: &str) -> Problem {
        Problem { node: None, flow: Some(id.into()), var: None, msg: zh.into(), msg_en: en.into() }
    }
    pub fn var(id: &str, zh: &str, en: &str) -> Problem {
        Problem { node: None, flow: None, var: Some(id.into()), msg: zh.into(), msg_en: en.into() }
    }
    pub fn whole(zh: &str, en: &str) -> Problem {
        Problem { node: None, flow: None, var: None, msg: zh.into(), msg_en: en.into() }
    }
}

fn ident(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c.is_alphabetic() || c == '_') && cs.all(|c| c.is_alphanumeric() || c == '_') && s.len() <= 64
}

const MAX_NODES: usize = 500;

/// Every problem of a definition (empty: it can be deployed).
pub fn check(def: &Definition) -> Vec<Problem> {
    let mut p = Vec::new();
    if def.nodes.len() > MAX_NODES || def.flows.len() > MAX_NODES * 4 || def.variables.len() > 100 {
        p.push(Problem::whole("流程过大(最多 500 个节点)", "The process is too large (at most 500 nodes)"));
        return p;
    }
    // Variables.
    let mut seen = BTreeSet::new();
    for v in &def.variables {
        if !ident(&v.name) || matches!(v.name.as_str(), "pass" | "and" | "or" | "not" | "in" | "true" | "false") {
            p.push(Problem::var(&v.name, &format!("变量名 {} 不合法(字母、数字、下划线,且不能是 pass)", v.name), &format!("Variable name {} is not valid (letters, digits, underscore; not pass)", v.name)));
        }
        if !seen.insert(v.name.as_str()) {
            p.push(Problem::var(&v.name, &format!("变量 {} 重复声明", v.name), &format!("Variable {} is declared twice", v.name)));
        }
    }
    // Nodes and flows.
    let mut ids = BTreeSet::new();
    for n in &def.nodes {
        if n.id.is_empty() || n.id.len() > 64 || n.id.chars().any(|c| c.is_whitespace() || c.is_control()) {
            p.push(Problem::node(&n.id, "节点标识不能为空、超过 64 字符或含空白", "A node id must be 1-64 characters without spaces"));
        }
        if !ids.insert(n.id.as_str()) {
            p.push(Problem::node(&n.id, &format!("节点标识 {} 重复", n.id), &format!("Node id {} is used twice", n.id)));
        }
    }
    let mut fids = BTreeSet::new();
    for f in &def.flows {
        if f.id.is_empty() || !fids.insert(f.id.as_str()) {
            p.push(Problem::flow(&f.id, "连线标识为空或重复", "A flow id is empty or used twice"));
        }
        for end in [&f.from, &f.to] {
            if !ids.contains(end.as_str()) {
                p.push(Problem::flow(&f.id, &format!("连线 {} 连到不存在的节点 {end}", f.id), &format!("Flow {} connects the missing node {end}", f.id)));
            }
        }
        if f.from == f.to {
            p.push(Problem::node(&f.from, "节点不能连向自己", "A node cannot flow into itself"));
        }
    }
    let starts: Vec<_> = def.nodes.iter().filter(|n| matches!(n.kind, NodeKind::Start)).collect();
    if starts.len() != 1 {
        p.push(Problem::whole("流程必须有且只有一个开始节点", "A process has exactly one start"));
    }
    if !def.nodes.iter().any(|n| matches!(n.kind, NodeKind::End { .. })) {
        p.push(Problem::whole("流程至少需要一个结束节点", "A process needs at least one end"));
    }
    if !p.is_empty() {
        return p;
    }
    for n in &def.nodes {
        let (inc, out) = (def.incoming(&n.id).count(), def.outgoing(&n.id).count());
        let label = def.label(&n.id);
        match &n.kind {
            NodeKind::Start => {
                if inc > 0 {
                    p.push(Problem::node(&n.id, "开始节点不能有进入的连线", "The start cannot have incoming flows"));
                }
                if out != 1 {
                    p.push(Problem::node(&n.id, "开始节点必须有且只有一条出去的连线", "The start needs exactly one outgoing flow"));
                }
            }
            NodeKind::End { .. } => {
                if out > 0 {
                    p.push(Problem::node(&n.id, &format!("结束节点「{label}」不能有出去的连线"), &format!("End '{label}' cannot have outgoing flows")));
                }
            }
            NodeKind::Task(t) => {
                if out == 0 {
                    p.push(Problem::node(&n.id, &format!("节点「{label}」没有出去的连线"), &format!("Node '{label}' has no outgoing flow")));
                }
                match &t.assign {
                    Assign::User { users } if users.is_empty() || users.iter().any(|u| u.parse::<u64>().map_or(true, |u| u == 0)) => {
                        p.push(Problem::node(&n.id, &format!("节点「{label}」请选择办理人员"), &format!("Node '{label}': choose who works on it")));
                    }
                    Assign::Group { group } if group.trim().is_empty() => {
                        p.push(Problem::node(&n.id, &format!("节点「{label}」请选择审批组"), &format!("Node '{label}': choose an approver group")));
                    }
                    Assign::Role { role } if role.trim().is_empty() => {
                        p.push(Problem::node(&n.id, &format!("节点「{label}」请选择角色"), &format!("Node '{label}': choose a role")));
                    }
                    Assign::Var { var } => match def.var(var) {
                        Some(v) if v.ty == VarType::User => {}
                        _ => p.push(Problem::node(&n.id, &format!("节点「{label}」的办理人变量 {var} 未声明为人员类型"), &format!("Node '{label}': assignee variable {var} is not declared as a user"))),
                    },
                    _ => {}
                }
                if t.mode == Mode::Quorum && t.quorum.unwrap_or(0) == 0 {
                    p.push(Problem::node(&n.id, &format!("节点「{label}」票签需要通过人数(至少 1)"), &format!("Node '{label}': a quorum needs how many must pass (at least 1)")));
                }
                if let Some(to) = &t.reject_to {
                    if def.task(to).is_none() {
                        p.push(Problem::node(&n.id, &format!("节点「{label}」驳回到的节点 {to} 不是审批节点"), &format!("Node '{label}': reject target {to} is not a task")));
                    } else if in_parallel(def, to) {
                        p.push(Problem::node(&n.id, &format!("节点「{label}」不能驳回到并行分支内的节点 {to}"), &format!("Node '{label}': cannot reject back into a parallel branch ({to})")));
                    }
                }
                if let Some(d) = &t.default
                    && !def.outgoing(&n.id).any(|f| &f.id == d) {
                    p.push(Problem::node(&n.id, &format!("节点「{label}」的默认连线 {d} 不是它出去的连线"), &format!("Node '{label}': default flow {d} does not leave it")));
                }
                let conds = def.outgoing(&n.id).filter(|f| f.condition.is_some()).count();
                if conds > 0 && t.default.is_none() && !exhaustive(def, &n.id) {
                    p.push(Problem::node(&n.id, &format!("节点「{label}」的条件连线需要一条默认连线,或同时覆盖通过与驳回"), &format!("Node '{label}': conditional flows need a default, or must cover both pass and reject")));
                }
            }
            NodeKind::Exclusive { default } => {
                if out == 0 {
                    p.push(Problem::node(&n.id, &format!("网关「{label}」没有出去的连线"), &format!("Gateway '{label}' has no outgoing flow")));
                }
                match default {
                    Some(d) if !def.outgoing(&n.id).any(|f| &f.id == d) => {
                        p.push(Problem::node(&n.id, &format!("网关「{label}」的默认连线 {d} 不是它出去的连线"), &format!("Gateway '{label}': default flow {d} does not leave it")));
                    }
                    None if !exhaustive(def, &n.id) => {
                        p.push(Problem::node(&n.id, &format!("网关「{label}」需要一条默认连线(没有条件成立时走它)"), &format!("Gateway '{label}' needs a default flow (taken when no condition holds)")));
                    }
                    _ => {}
                }
                for f in def.outgoing(&n.id) {
                    if f.condition.is_none() && default.as_deref() != Some(&f.id) {
                        p.push(Problem::flow(&f.id, &format!("网关「{label}」出去的连线 {} 需要条件或设为默认", f.id), &format!("Flow {} from gateway '{label}' needs a condition or to be the default", f.id)));
                    }
                }
            }
            NodeKind::Parallel => {
                if out == 0 {
                    p.push(Problem::node(&n.id, &format!("并行网关「{label}」没有出去的连线"), &format!("Parallel gateway '{label}' has no outgoing flow")));
                }
                if inc <= 1 && out <= 1 {
                    p.push(Problem::node(&n.id, &format!("并行网关「{label}」应有多条进入(汇聚)或多条出去(分支)的连线"), &format!("Parallel gateway '{label}' should join several flows or split into several")));
                }
            }
        }
        let jumped_to = def.nodes.iter().any(|o| matches!(&o.kind, NodeKind::Task(t) if t.reject_to.as_deref() == Some(n.id.as_str())));
        if !matches!(n.kind, NodeKind::Start) && inc == 0 && !jumped_to {
            p.push(Problem::node(&n.id, &format!("节点「{label}」没有进入的连线(孤立节点)"), &format!("Node '{label}' has no incoming flow (orphan)")));
        }
    }
    for f in &def.flows {
        if let Some(c) = &f.condition {
            if matches!(def.node(&f.from).map(|n| &n.kind), Some(NodeKind::Start | NodeKind::Parallel)) {
                p.push(Problem::flow(&f.id, "开始节点和并行网关出去的连线不能带条件", "Flows leaving a start or a parallel gateway carry no condition"));
            }
            if let Err(e) = cond::compile(def, c) {
                let label = def.label(&f.from);
                p.push(Problem { node: Some(f.from.clone()), flow: Some(f.id.clone()), var: None, msg: format!("「{label}」的连线条件 {c}: {}", e.zh), msg_en: format!("Condition {c} after '{label}': {}", e.en) });
            }
        }
    }
    if !p.is_empty() {
        return p;
    }
    reach(def, &mut p);
    p
}

/// Conditions on the flows leaving a node that cover every case: a boolean variable and its negation, or a
/// comparison and its complement (`days > 3` / `days <= 3`).
fn exhaustive(def: &Definition, node: &str) -> bool {
    use cond::{Expr, Op};
    let exprs: Vec<Expr> = def.outgoing(node).filter_map(|f| cond::parse(f.condition.as_deref()?).ok()).collect();
    let complement = |a: &Expr, b: &Expr| match (a, b) {
        (Expr::Var(x), Expr::Not(y)) | (Expr::Not(y), Expr::Var(x)) => matches!(&**y, Expr::Var(z) if z == x),
        (Expr::Cmp(x, o1, l1), Expr::Cmp(y, o2, l2)) if x == y && l1 == l2 => matches!(
            (o1, o2),
            (Op::Gt, Op::Le) | (Op::Le, Op::Gt) | (Op::Lt, Op::Ge) | (Op::Ge, Op::Lt) | (Op::Eq, Op::Ne) | (Op::Ne, Op::Eq)
        ),
        _ => false,
    };
    exprs.iter().enumerate().any(|(i, a)| exprs[i + 1..].iter().any(|b| complement(a, b)))
}

/// A node between a parallel split and its join: going forward from it, a join is met before the split that
/// would balance it. A rejection may not jump to such a node (the other branches' tokens would be lost).
pub fn in_parallel(def: &Definition, id: &str) -> bool {
    let splits = |n: &str| def.outgoing(n).count() > 1 && matches!(def.node(n).map(|n| &n.kind), Some(NodeKind::Parallel));
    let joins = |n: &str| def.incoming(n).count() > 1 && matches!(def.node(n).map(|n| &n.kind), Some(NodeKind::Parallel));
    let limit = def.nodes.iter().filter(|n| matches!(n.kind, NodeKind::Parallel)).count() as i32 + 1;
    let mut seen = BTreeSet::new();
    let mut stack = vec![(id.to_string(), 0i32)];
    while let Some((n, depth)) = stack.pop() {
        if !seen.insert((n.clone(), depth)) {
            continue;
        }
        let mut d = depth;
        if n != id && joins(&n) {
            d -= 1;
            if d < 0 {
                return true;
            }
        }
        if splits(&n) {
            d += 1;
        }
        if d > limit {
            continue;
        }
        for f in def.outgoing(&n) {
            stack.push((f.to.clone(), d));
        }
    }
    false
}

/// Reachability: every node from the start; an end from every node; every cycle passes a task (a loop of
/// gateways alone would never stop).
fn reach(def: &Definition, p: &mut Vec<Problem>) {
    let mut out: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut inc: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for f in &def.flows {
        out.entry(f.from.as_str()).or_default().push(f.to.as_str());
        inc.entry(f.to.as_str()).or_default().push(f.from.as_str());
    }
    // reject_to jumps are edges too.
    for n in &def.nodes {
        if let NodeKind::Task(t) = &n.kind
            && let Some(to) = &t.reject_to {
            out.entry(n.id.as_str()).or_default().push(to.as_str());
            inc.entry(to.as_str()).or_default().push(n.id.as_str());
        }
    }
    let walk = |from: Vec<&str>, edges: &BTreeMap<&str, Vec<&str>>| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = from;
        while let Some(n) = stack.pop() {
            if seen.insert(n.to_string()) {
                stack.extend(edges.get(n).into_iter().flatten().copied());
            }
        }
        seen
    };
    let start = def.start_node().map(|n| n.id.as_str()).unwrap_or_default();
    let from_start = walk(vec![start], &out);
    let ends: Vec<&str> = def.nodes.iter().filter(|n| matches!(n.kind, NodeKind::End { .. })).map(|n| n.id.as_str()).collect();
    let to_end = walk(ends, &inc);
    for n in &def.nodes {
        let label = def.label(&n.id);
        if !from_start.contains(&n.id) {
            p.push(Problem::node(&n.id, &format!("节点「{label}」从开始节点无法到达"), &format!("Node '{label}' cannot be reached from the start")));
        } else if !to_end.contains(&n.id) {
            p.push(Problem::node(&n.id, &format!("从节点「{label}」无法到达结束节点"), &format!("No end can be reached from node '{label}'")));
        }
    }
    // A cycle without a task: depth-first search over the non-task nodes.
    let is_task = |id: &str| matches!(def.node(id).map(|n| &n.kind), Some(NodeKind::Task(_)));
    let mut state: BTreeMap<&str, u8> = BTreeMap::new();
    for n in def.nodes.iter().filter(|n| !is_task(&n.id)) {
        if state.contains_key(n.id.as_str()) {
            continue;
        }
        let mut stack: Vec<(&str, usize)> = vec![(n.id.as_str(), 0)];
        state.insert(n.id.as_str(), 1);
        while let Some((id, i)) = stack.pop() {
            let next: Vec<&str> = out.get(id).into_iter().flatten().copied().filter(|t| !is_task(t)).collect();
            if i < next.len() {
                stack.push((id, i + 1));
                let t = next[i];
                match state.get(t) {
                    Some(1) => {
                        let label = def.label(t);
                        p.push(Problem::node(t, &format!("节点「{label}」处的循环不经过任何审批节点"), &format!("The loop at '{label}' passes no task")));
                        return;
                    }
                    Some(_) => {}
                    None => {
                        state.insert(t, 1);
                        stack.push((t, 0));
                    }
                }
            } else {
                state.insert(id, 2);
            }
        }
    }
}
