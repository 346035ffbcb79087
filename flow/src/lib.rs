//! The approval engine's pure part: what a process definition is (`Definition`: typed variables, nodes, flows),
//! how it is checked before it is saved or deployed (`check`), the condition language of its branches (`cond`),
//! the BPMN 2.0 subset it imports (`bpmn`), and how an instance moves (`run`: `start` and `decide` over a
//! `State`, returning the tasks to open and close). Storage, users and HTTP belong to the caller: assignees are
//! resolved through the `Resolve` trait it passes in.
//!
//! A definition is a flat graph, the shape BPMN has and a designer draws:
//! - `start` (one), `end` (one or more; reaching any end finishes the instance: passed, unless the last decision
//!   was a rejection or the end is marked `rejected`);
//! - `task`: people decide. Who (`assign`): fixed users, a role, the starter's department leader, the starter, or
//!   a variable of type user. How (`mode`): `single` (one person), `claim` (candidates, one claims), `all` (会签:
//!   everyone must pass; one rejection rejects), `any` (或签: the first decision decides), `quorum` (n of m pass;
//!   rejected once n can no longer be reached). After a decision the engine sets the variable `pass` — engine-owned,
//!   never taken from a request — and leaves by the flows whose conditions hold (first match, in order, else the
//!   default flow); with no conditional flows, a pass follows every outgoing flow and a rejection goes to
//!   `rejectTo` (every open task closed first) or ends the instance as rejected;
//! - `exclusive`: the first outgoing flow whose condition holds, else the gateway's `default` flow;
//! - `parallel`: with several outgoing flows a split, with several incoming a join (waits for a token on every
//!   incoming flow).
pub mod bpmn;
pub mod check;
pub mod cond;
pub mod run;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use check::{Problem, check};
pub use run::{Effect, FlowError, Resolve, State, Status, decide, start};

/// A process definition (the model being edited, or one deployed version).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Definition {
    #[serde(default)]
    pub variables: Vec<VarDecl>,
    #[serde(default)]
    pub nodes: Vec<Node>,
    #[serde(default)]
    pub flows: Vec<Flow>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum VarType {
    Number,
    Text,
    Bool,
    Date,
    User,
}

impl VarType {
    pub fn name(self) -> (&'static str, &'static str) {
        match self {
            VarType::Number => ("数字", "number"),
            VarType::Text => ("文本", "text"),
            VarType::Bool => ("是否", "boolean"),
            VarType::Date => ("日期", "date"),
            VarType::User => ("人员", "user"),
        }
    }
}

/// A declared variable: starting or completing with any other, or with a value of another type, is refused.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct VarDecl {
    pub name: String,
    #[serde(default)]
    pub label: String,
    #[serde(rename = "type")]
    pub ty: VarType,
    /// Must be given when the instance starts.
    #[serde(default)]
    pub required: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(flatten)]
    pub kind: NodeKind,
    /// Where the designer drew it (kept for the diagram; the engine ignores it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum NodeKind {
    Start,
    End {
        /// An end that finishes the instance as rejected whatever the last decision was.
        #[serde(default)]
        rejected: bool,
    },
    Task(Box<TaskSpec>),
    Exclusive {
        /// The flow taken when no condition holds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        default: Option<String>,
    },
    Parallel,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TaskSpec {
    pub assign: Assign,
    #[serde(default)]
    pub mode: Mode,
    /// For `quorum`: how many must pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quorum: Option<u32>,
    /// On a rejection without conditional flows: the task node to go back to (None: the instance ends rejected).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reject_to: Option<String>,
    /// The flow taken when no condition on the outgoing flows holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Hours until the task is due (shown, and marks it overdue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_hours: Option<u32>,
    /// When nobody is found to work on it: `fail` refuses the action that reached it, `pass` passes it.
    #[serde(default)]
    pub when_empty: WhenEmpty,
    /// The starter may not decide this task even when the assignment names them.
    #[serde(default)]
    pub no_self: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Assign {
    /// Fixed users (ids).
    User { users: Vec<String> },
    /// Everyone holding the role (alias).
    Role { role: String },
    /// The leader of the starter's department.
    Leader,
    /// The starter.
    Starter,
    /// The user named by a variable of type user.
    Var { var: String },
    /// A named group of approvers the administrator keeps (the construction approvals' 审批人员).
    Group { group: String },
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Single,
    Claim,
    All,
    Any,
    Quorum,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WhenEmpty {
    #[default]
    Fail,
    Pass,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Flow {
    pub id: String,
    pub from: String,
    pub to: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A condition over the variables (`days > 3`, `pass && amount >= 1000`, `${!pass}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

/// A variable's value: numbers exact (ten-thousandths), dates `yyyy-MM-dd`, users by id.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Val {
    Num(i64),
    Text(String),
    Bool(bool),
    Date(String),
    User(u64),
}

pub type Vars = BTreeMap<String, Val>;

/// The scale of numbers: four decimal places.
pub const NUM_SCALE: i64 = 10_000;

impl Val {
    /// The canonical JSON of a value (numbers as exact decimal text, users as id text).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Val::Num(n) => serde_json::Value::String(format_num(*n)),
            Val::Text(s) | Val::Date(s) => serde_json::Value::String(s.clone()),
            Val::Bool(b) => serde_json::Value::Bool(*b),
            Val::User(u) => serde_json::Value::String(u.to_string()),
        }
    }

    /// Reads a value of a declared type from request JSON; None when it is not one.
    pub fn from_json(ty: VarType, v: &serde_json::Value) -> Option<Val> {
        use serde_json::Value as J;
        match (ty, v) {
            (VarType::Number, J::Number(n)) => parse_num(&n.to_string()).map(Val::Num),
            (VarType::Number, J::String(s)) => parse_num(s.trim()).map(Val::Num),
            (VarType::Text, J::String(s)) if s.chars().count() <= 2000 => Some(Val::Text(s.clone())),
            (VarType::Bool, J::Bool(b)) => Some(Val::Bool(*b)),
            (VarType::Bool, J::String(s)) if s == "true" || s == "false" => Some(Val::Bool(s == "true")),
            (VarType::Date, J::String(s)) => parse_date(s).map(Val::Date),
            (VarType::User, J::Number(n)) => n.as_u64().filter(|u| *u > 0).map(Val::User),
            (VarType::User, J::String(s)) => s.trim().parse::<u64>().ok().filter(|u| *u > 0).map(Val::User),
            _ => None,
        }
    }
}

/// An exact decimal with at most four places (`-12.5`, `3`), as ten-thousandths.
pub fn parse_num(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() || int.len() > 14 || frac.len() > 4 || !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if body.contains('.') && frac.is_empty() {
        return None;
    }
    let mut n: i64 = int.parse().ok()?;
    n = n.checked_mul(NUM_SCALE)?;
    let f = format!("{frac:0<4}");
    n += f.parse::<i64>().ok()?;
    Some(if neg { -n } else { n })
}

pub fn format_num(n: i64) -> String {
    let (sign, a) = if n < 0 { ("-", n.unsigned_abs()) } else { ("", n as u64) };
    let (i, f) = (a / NUM_SCALE as u64, a % NUM_SCALE as u64);
    if f == 0 {
        return format!("{sign}{i}");
    }
    let frac = format!("{f:04}");
    format!("{sign}{i}.{}", frac.trim_end_matches('0'))
}

/// `yyyy-MM-dd` (a longer date-time keeps its date part).
pub fn parse_date(s: &str) -> Option<String> {
    let d = s.get(..10)?;
    let b = d.as_bytes();
    let ok = b.len() == 10 && b[4] == b'-' && b[7] == b'-' && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    if !ok {
        return None;
    }
    let (m, day): (u32, u32) = (d[5..7].parse().ok()?, d[8..10].parse().ok()?);
    ((1..=12).contains(&m) && (1..=31).contains(&day)).then(|| d.to_string())
}

impl Definition {
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }
    pub fn var(&self, name: &str) -> Option<&VarDecl> {
        self.variables.iter().find(|v| v.name == name)
    }
    pub fn outgoing<'a>(&'a self, node: &'a str) -> impl Iterator<Item = &'a Flow> + 'a {
        self.flows.iter().filter(move |f| f.from == node)
    }
    pub fn incoming<'a>(&'a self, node: &'a str) -> impl Iterator<Item = &'a Flow> + 'a {
        self.flows.iter().filter(move |f| f.to == node)
    }
    pub fn start_node(&self) -> Option<&Node> {
        self.nodes.iter().find(|n| matches!(n.kind, NodeKind::Start))
    }
    pub fn task(&self, id: &str) -> Option<&TaskSpec> {
        match &self.node(id)?.kind {
            NodeKind::Task(t) => Some(t),
            _ => None,
        }
    }
    /// The node's name, or its id when it has none.
    pub fn label<'a>(&'a self, id: &'a str) -> &'a str {
        self.node(id).map(|n| if n.name.is_empty() { n.id.as_str() } else { n.name.as_str() }).unwrap_or(id)
    }

    /// Reads the variables of a request: every name declared, every value of its type (`pass` is the
    /// engine's). Errors name the variable.
    pub fn read_vars(&self, given: &serde_json::Map<String, serde_json::Value>) -> Result<Vars, Problem> {
        let mut out = Vars::new();
        for (k, v) in given {
            if k == "pass" {
                return Err(Problem::var(k, "变量 pass 由审批结果决定,不能传入", "The variable pass is set by the decision; it cannot be sent"));
            }
            let Some(d) = self.var(k) else {
                return Err(Problem::var(k, &format!("流程未声明变量 {k}"), &format!("The process declares no variable {k}")));
            };
            if v.is_null() {
                continue;
            }
            let val = Val::from_json(d.ty, v).ok_or_else(|| {
                let (zh, en) = d.ty.name();
                Problem::var(k, &format!("变量 {k} 应为{zh}"), &format!("The variable {k} must be a {en}"))
            })?;
            out.insert(k.clone(), val);
        }
        Ok(out)
    }

    /// The required variables missing from `vars`.
    pub fn missing(&self, vars: &Vars) -> Option<&VarDecl> {
        self.variables.iter().find(|d| d.required && !vars.contains_key(&d.name))
    }
}

/// Variables as canonical JSON.
pub fn vars_json(vars: &Vars) -> serde_json::Map<String, serde_json::Value> {
    vars.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()
}

/// Variables back from their canonical JSON (values a declaration no longer knows are dropped).
pub fn vars_from_json(def: &Definition, m: &serde_json::Map<String, serde_json::Value>) -> Vars {
    let mut out = Vars::new();
    for (k, v) in m {
        let ty = if k == "pass" { Some(VarType::Bool) } else { def.var(k).map(|d| d.ty) };
        if let Some(val) = ty.and_then(|t| Val::from_json(t, v)) {
            out.insert(k.clone(), val);
        }
    }
    out
}
