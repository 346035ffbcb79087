//! How an instance moves. `start` and `decide` take a definition, the instance's `State` and variables, and return
//! what changed as `Effect`s (tasks to open, nodes decided or cancelled, the end); the caller writes them in the
//! same transaction. Nothing here reads a clock, a store or a user table: assignees come from `Resolve`.
//!
//! After every successful call an instance either is running and waits on at least one open task, or has ended
//! with no task open — never both, never neither (a call that would leave it so is refused with an error).
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::{Assign, Definition, Mode, NodeKind, Val, Vars, WhenEmpty, cond};

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    #[default]
    Running,
    Passed,
    Rejected,
    /// Taken back by its starter.
    Withdrawn,
    /// Deleted by an administrator.
    Deleted,
}

impl Status {
    /// The spec's approval status: 0 in approval, 1 passed, 2 failed (withdrawn and deleted count as failed).
    pub fn code(self) -> i64 {
        match self {
            Status::Running => 0,
            Status::Passed => 1,
            _ => 2,
        }
    }
}

/// An open task node: who may decide it and who has.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Active {
    pub node: String,
    pub users: Vec<u64>,
    /// Candidates: one of `users` must claim it before deciding.
    #[serde(default)]
    pub claim: bool,
    #[serde(default)]
    pub passed: Vec<u64>,
    #[serde(default)]
    pub rejected: Vec<u64>,
}

/// Where an instance is: its status, open task nodes and the tokens waiting at joins.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct State {
    pub status: Status,
    #[serde(default)]
    pub active: Vec<Active>,
    /// Join node → the incoming flows that have arrived.
    #[serde(default)]
    pub joins: BTreeMap<String, BTreeSet<String>>,
    /// The nodes passed through, in order (the diagram's path).
    #[serde(default)]
    pub path: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Open tasks on a node for these users (candidates when `claim`).
    Open { node: String, users: Vec<u64>, claim: bool },
    /// A node passed by itself: nobody was found to work on it and it says so.
    AutoPass { node: String },
    /// A node was decided; its other open tasks close without a decision.
    Close { node: String, pass: bool },
    /// A node's open tasks close without a decision (the instance went elsewhere or ended).
    Cancel { node: String },
    /// The instance ended.
    End { status: Status },
}

#[derive(Clone, Debug, PartialEq)]
pub enum FlowError {
    /// The instance is not running.
    Ended,
    /// No open task on that node.
    NotActive(String),
    /// The user may not decide (or claim) that task.
    NotAssignee(String),
    /// Candidates must claim before deciding.
    Unclaimed(String),
    /// Already decided by that user.
    Decided(String),
    /// The starter may not decide this task.
    SelfApproval(String),
    /// Nobody was found to work on a node that refuses to pass empty.
    NoAssignee(String),
    /// No outgoing flow could be taken (a gateway without a matching condition or default), or a join would wait
    /// forever.
    Stuck(String),
}

impl FlowError {
    pub fn message(&self, def: &Definition) -> (String, String) {
        let l = |n: &str| def.label(n).to_string();
        match self {
            FlowError::Ended => ("流程已结束".into(), "The process has ended".into()),
            FlowError::NotActive(n) => (format!("环节「{}」当前没有待办任务", l(n)), format!("Node '{}' has no open task", l(n))),
            FlowError::NotAssignee(n) => (format!("您不是环节「{}」的办理人", l(n)), format!("You are not an assignee of '{}'", l(n))),
            FlowError::Unclaimed(n) => (format!("环节「{}」需先签收再办理", l(n)), format!("Claim '{}' before completing it", l(n))),
            FlowError::Decided(n) => (format!("您已办理过环节「{}」", l(n)), format!("You have already decided '{}'", l(n))),
            FlowError::SelfApproval(n) => (format!("环节「{}」不允许发起人自己审批", l(n)), format!("The starter may not decide '{}'", l(n))),
            FlowError::NoAssignee(n) => (format!("环节「{}」找不到办理人,请联系流程管理员", l(n)), format!("Nobody is found to work on '{}'; ask the process administrator", l(n))),
            FlowError::Stuck(n) => (format!("流程在「{}」无法继续:没有成立的条件或默认连线", l(n)), format!("The process cannot go on at '{}': no condition holds and there is no default", l(n))),
        }
    }
}

/// Who works on a task: the caller's user directory.
pub trait Resolve {
    /// The users an assignment names (role holders, the starter's leader, ...), for an instance with these
    /// variables.
    fn users(&self, assign: &Assign, vars: &Vars) -> Vec<u64>;
    /// The instance's starter.
    fn starter(&self) -> u64;
}

type R<T> = Result<T, FlowError>;

/// Starts an instance: the start node's flow is followed until every token waits on a task or the instance ends.
pub fn start(def: &Definition, vars: &mut Vars, r: &dyn Resolve) -> R<(State, Vec<Effect>)> {
    let mut st = State::default();
    let mut fx = Vec::new();
    let s = def.start_node().ok_or_else(|| FlowError::Stuck(String::new()))?;
    st.path.push(s.id.clone());
    let first: Vec<String> = def.outgoing(&s.id).map(|f| f.id.clone()).collect();
    Mover { def, st: &mut st, vars, r, fx: &mut fx, steps: 0 }.run(first)?;
    settle_check(&st)?;
    Ok((st, fx))
}

/// Candidates claim: the node's task becomes the claimer's alone.
pub fn claim(st: &mut State, node: &str, user: u64) -> R<()> {
    if st.status != Status::Running {
        return Err(FlowError::Ended);
    }
    let a = st.active.iter_mut().find(|a| a.node == node).ok_or_else(|| FlowError::NotActive(node.into()))?;
    if !a.claim || !a.users.contains(&user) {
        return Err(FlowError::NotAssignee(node.into()));
    }
    a.users = vec![user];
    a.claim = false;
    Ok(())
}

/// A user decides an open task node: pass or reject.
pub fn decide(def: &Definition, st: &mut State, vars: &mut Vars, node: &str, user: u64, pass: bool, r: &dyn Resolve) -> R<Vec<Effect>> {
    if st.status != Status::Running {
        return Err(FlowError::Ended);
    }
    let spec = def.task(node).ok_or_else(|| FlowError::NotActive(node.into()))?;
    let idx = st.active.iter().position(|a| a.node == node).ok_or_else(|| FlowError::NotActive(node.into()))?;
    let a = &mut st.active[idx];
    if !a.users.contains(&user) {
        return Err(FlowError::NotAssignee(node.into()));
    }
    if a.claim {
        return Err(FlowError::Unclaimed(node.into()));
    }
    if a.passed.contains(&user) || a.rejected.contains(&user) {
        return Err(FlowError::Decided(node.into()));
    }
    if spec.no_self && user == r.starter() {
        return Err(FlowError::SelfApproval(node.into()));
    }
    if pass { a.passed.push(user) } else { a.rejected.push(user) }
    let (m, p, j) = (a.users.len(), a.passed.len(), a.rejected.len());
    let outcome = match spec.mode {
        Mode::Single | Mode::Claim | Mode::Any => Some(pass),
        Mode::All => {
            if !pass { Some(false) } else if p == m { Some(true) } else { None }
        }
        Mode::Quorum => {
            let n = (spec.quorum.unwrap_or(1) as usize).min(m).max(1);
            if p >= n { Some(true) } else if m - j < n { Some(false) } else { None }
        }
    };
    let mut fx = Vec::new();
    if let Some(pass) = outcome {
        st.active.remove(idx);
        fx.push(Effect::Close { node: node.into(), pass });
        Mover { def, st, vars, r, fx: &mut fx, steps: 0 }.leave(node, pass)?;
    }
    settle_check(st)?;
    Ok(fx)
}

/// Ends a running instance without a decision (withdrawn by its starter, deleted by an administrator).
pub fn stop(st: &mut State, status: Status) -> R<Vec<Effect>> {
    if st.status != Status::Running {
        return Err(FlowError::Ended);
    }
    let mut fx: Vec<Effect> = st.active.drain(..).map(|a| Effect::Cancel { node: a.node }).collect();
    st.joins.clear();
    st.status = status;
    fx.push(Effect::End { status });
    Ok(fx)
}

fn settle_check(st: &State) -> R<()> {
    match (st.status == Status::Running, st.active.is_empty()) {
        (true, true) => Err(FlowError::Stuck(st.joins.keys().next().cloned().or_else(|| st.path.last().cloned()).unwrap_or_default())),
        (false, false) => Err(FlowError::Stuck(st.active[0].node.clone())),
        _ => Ok(()),
    }
}

struct Mover<'a> {
    def: &'a Definition,
    st: &'a mut State,
    vars: &'a mut Vars,
    r: &'a dyn Resolve,
    fx: &'a mut Vec<Effect>,
    steps: u32,
}

impl Mover<'_> {
    /// Follows flows until every token rests on a task, a join or an end.
    fn run(&mut self, mut queue: Vec<String>) -> R<()> {
        queue.reverse();
        while let Some(fid) = queue.pop() {
            if self.st.status != Status::Running {
                return Ok(());
            }
            self.steps += 1;
            if self.steps > 10_000 {
                return Err(FlowError::Stuck(String::new()));
            }
            let f = self.def.flows.iter().find(|f| f.id == fid).ok_or_else(|| FlowError::Stuck(fid.clone()))?;
            let more = self.enter(&f.to, Some(&f.id))?;
            for m in more.into_iter().rev() {
                queue.push(m);
            }
        }
        Ok(())
    }

    /// Arrives at a node; returns the flows to follow next.
    fn enter(&mut self, id: &str, via: Option<&str>) -> R<Vec<String>> {
        let node = self.def.node(id).ok_or_else(|| FlowError::Stuck(id.into()))?;
        match &node.kind {
            NodeKind::Start => Err(FlowError::Stuck(id.into())),
            NodeKind::End { rejected } => {
                self.st.path.push(id.into());
                let failed = *rejected || self.vars.get("pass") == Some(&Val::Bool(false));
                self.finish(if failed { Status::Rejected } else { Status::Passed });
                Ok(vec![])
            }
            NodeKind::Exclusive { default } => {
                self.st.path.push(id.into());
                Ok(vec![self.choose(id, default.as_deref())?.ok_or_else(|| FlowError::Stuck(id.into()))?])
            }
            NodeKind::Parallel => {
                let incoming = self.def.incoming(id).count();
                if incoming > 1 {
                    let arrived = self.st.joins.entry(id.into()).or_default();
                    arrived.insert(via.unwrap_or_default().to_string());
                    if arrived.len() < incoming {
                        return Ok(vec![]);
                    }
                    self.st.joins.remove(id);
                }
                self.st.path.push(id.into());
                Ok(self.def.outgoing(id).map(|f| f.id.clone()).collect())
            }
            NodeKind::Task(t) => {
                if self.st.active.iter().any(|a| a.node == id) {
                    return Ok(vec![]);
                }
                self.st.path.push(id.into());
                let mut users = self.r.users(&t.assign, self.vars);
                let mut seen = BTreeSet::new();
                users.retain(|u| *u > 0 && seen.insert(*u));
                if users.is_empty() {
                    return match t.when_empty {
                        WhenEmpty::Fail => Err(FlowError::NoAssignee(id.into())),
                        WhenEmpty::Pass => {
                            self.fx.push(Effect::AutoPass { node: id.into() });
                            self.leave_flows(id, true)
                        }
                    };
                }
                let claim = t.mode == Mode::Claim || (t.mode == Mode::Single && users.len() > 1);
                self.fx.push(Effect::Open { node: id.into(), users: users.clone(), claim });
                self.st.active.push(Active { node: id.into(), users, claim, passed: vec![], rejected: vec![] });
                Ok(vec![])
            }
        }
    }

    /// The first outgoing flow whose condition holds, else the default.
    fn choose(&self, id: &str, default: Option<&str>) -> R<Option<String>> {
        for f in self.def.outgoing(id) {
            if let Some(c) = &f.condition {
                let e = cond::compile(self.def, c).map_err(|_| FlowError::Stuck(id.into()))?;
                if cond::eval(self.def, &e, self.vars) {
                    return Ok(Some(f.id.clone()));
                }
            }
        }
        Ok(default.map(str::to_string))
    }

    /// A decided task node's way out, and the tokens that follow it.
    fn leave_flows(&mut self, id: &str, pass: bool) -> R<Vec<String>> {
        self.vars.insert("pass".into(), Val::Bool(pass));
        let t = self.def.task(id).ok_or_else(|| FlowError::Stuck(id.into()))?;
        let conditional = t.default.is_some() || self.def.outgoing(id).any(|f| f.condition.is_some());
        if conditional {
            if let Some(f) = self.choose(id, t.default.as_deref())? {
                return Ok(vec![f]);
            }
            if pass {
                return Err(FlowError::Stuck(id.into()));
            }
        } else if pass {
            return Ok(self.def.outgoing(id).map(|f| f.id.clone()).collect());
        }
        // Rejected, and no flow says where to: back to `reject_to`, or the instance ends rejected.
        match &t.reject_to {
            Some(to) => {
                for a in self.st.active.drain(..) {
                    self.fx.push(Effect::Cancel { node: a.node });
                }
                self.st.joins.clear();
                self.enter(&to.clone(), None)
            }
            None => {
                self.finish(Status::Rejected);
                Ok(vec![])
            }
        }
    }

    fn leave(&mut self, id: &str, pass: bool) -> R<()> {
        let next = self.leave_flows(id, pass)?;
        self.run(next)
    }

    fn finish(&mut self, status: Status) {
        for a in self.st.active.drain(..) {
            self.fx.push(Effect::Cancel { node: a.node });
        }
        self.st.joins.clear();
        self.st.status = status;
        self.fx.push(Effect::End { status });
    }
}
