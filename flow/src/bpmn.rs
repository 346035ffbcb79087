//! BPMN 2.0 import for the subset the engine runs, so a Flowable-modeler file of that shape deploys:
//! `startEvent` (`flowable:initiator`), `userTask` (`flowable:assignee` — `${var}` or a user id —,
//! `flowable:candidateUsers`, `flowable:candidateGroups` (role aliases), `multiInstanceLoopCharacteristics` with
//! a completion condition of all, any or at least n), `exclusiveGateway` (`default`), `parallelGateway`,
//! `sequenceFlow` (`conditionExpression`), `endEvent`; documentation, extension elements and the diagram
//! interchange (`bpmndi`) are skipped. Any other element is refused naming its id and name. The XML is parsed
//! with DTDs refused (no external entities, no entity expansion) and at most `MAX_BYTES`.
use std::collections::BTreeMap;

use crate::check::Problem;
use crate::{Assign, Definition, Flow, Mode, Node, NodeKind, TaskSpec, VarDecl, VarType, WhenEmpty, cond};

pub const MAX_BYTES: usize = 1 << 20;

/// One process of a BPMN file: its key (`process id`), name and the definition.
#[derive(Debug)]
pub struct Imported {
    pub key: String,
    pub name: String,
    pub def: Definition,
}

fn bad(zh: String, en: String) -> Problem {
    Problem { node: None, flow: None, var: None, msg: zh, msg_en: en }
}

/// Reads the first `process` of a BPMN 2.0 file.
pub fn import(xml: &str) -> Result<Imported, Problem> {
    if xml.len() > MAX_BYTES {
        return Err(bad("BPMN 文件超过 1 MB".into(), "The BPMN file is over 1 MB".into()));
    }
    let doc = roxmltree::Document::parse_with_options(xml, roxmltree::ParsingOptions { allow_dtd: false, nodes_limit: 100_000, ..roxmltree::ParsingOptions::default() })
        .map_err(|e| bad(format!("BPMN 文件不是合法的 XML(不接受 DTD 与实体):{e}"), format!("The BPMN file is not valid XML (DTDs and entities are refused): {e}")))?;
    let root = doc.root_element();
    if root.tag_name().name() != "definitions" {
        return Err(bad("BPMN 文件的根元素应为 definitions".into(), "The root element of a BPMN file must be definitions".into()));
    }
    let process = root
        .children()
        .find(|n| n.is_element() && n.tag_name().name() == "process")
        .ok_or_else(|| bad("BPMN 文件中没有 process".into(), "The BPMN file has no process".into()))?;
    let key = process.attribute("id").unwrap_or_default().to_string();
    if key.is_empty() || key.len() > 64 || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(bad("process 的 id(流程标识)须为 1-64 位字母、数字、下划线或短横线".into(), "The process id (key) must be 1-64 letters, digits, _ or -".into()));
    }
    let name = process.attribute("name").unwrap_or(&key).to_string();
    let mut def = Definition::default();
    let mut vars: BTreeMap<String, VarType> = BTreeMap::new();
    let attr = |n: &roxmltree::Node, local: &str| n.attributes().find(|a| a.name() == local).map(|a| a.value().to_string());
    for n in process.children().filter(roxmltree::Node::is_element) {
        let id = n.attribute("id").unwrap_or_default().to_string();
        let nm = n.attribute("name").unwrap_or_default().to_string();
        let node = |kind| Node { id: id.clone(), name: nm.clone(), kind, x: None, y: None };
        match n.tag_name().name() {
            "documentation" | "extensionElements" => {}
            "startEvent" => {
                refuse_children(&n, &["documentation", "extensionElements", "outgoing"])?;
                if let Some(v) = attr(&n, "initiator") {
                    vars.insert(v, VarType::User);
                }
                def.nodes.push(node(NodeKind::Start));
            }
            "endEvent" => {
                refuse_children(&n, &["documentation", "extensionElements", "incoming"])?;
                def.nodes.push(node(NodeKind::End { rejected: false }));
            }
            "exclusiveGateway" => {
                refuse_children(&n, &["documentation", "extensionElements", "incoming", "outgoing"])?;
                def.nodes.push(node(NodeKind::Exclusive { default: n.attribute("default").map(str::to_string) }));
            }
            "parallelGateway" => {
                refuse_children(&n, &["documentation", "extensionElements", "incoming", "outgoing"])?;
                def.nodes.push(node(NodeKind::Parallel));
            }
            "userTask" => {
                refuse_children(&n, &["documentation", "extensionElements", "incoming", "outgoing", "multiInstanceLoopCharacteristics"])?;
                let list = |s: Option<String>| -> Vec<String> { s.unwrap_or_default().split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect() };
                let (assignee, users, groups) = (attr(&n, "assignee"), list(attr(&n, "candidateUsers")), list(attr(&n, "candidateGroups")));
                let (assign, mut mode) = if let Some(a) = assignee.filter(|a| !a.trim().is_empty()) {
                    match var_ref(&a) {
                        Some(v) => {
                            vars.insert(v.clone(), VarType::User);
                            (Assign::Var { var: v }, Mode::Single)
                        }
                        None => (Assign::User { users: vec![a.trim().to_string()] }, Mode::Single),
                    }
                } else if !users.is_empty() {
                    (Assign::User { users }, Mode::Claim)
                } else if let Some(g) = groups.first() {
                    if groups.len() > 1 {
                        return Err(unsupported(&n, "多个 candidateGroups", "several candidateGroups"));
                    }
                    (Assign::Role { role: g.clone() }, Mode::Claim)
                } else {
                    return Err(bad(format!("用户任务 {id}「{nm}」没有办理人(assignee、candidateUsers 或 candidateGroups)"), format!("User task {id} '{nm}' names nobody (assignee, candidateUsers or candidateGroups)")));
                };
                let mut quorum = None;
                if let Some(mi) = n.children().find(|c| c.is_element() && c.tag_name().name() == "multiInstanceLoopCharacteristics") {
                    if mi.attribute("isSequential") == Some("true") {
                        return Err(unsupported(&n, "依次审批(isSequential)", "sequential multi-instance"));
                    }
                    let cc = mi.children().find(|c| c.is_element() && c.tag_name().name() == "completionCondition").and_then(|c| c.text()).unwrap_or("").trim().to_string();
                    let (m, q) = completion(&cc).ok_or_else(|| unsupported(&n, &format!("完成条件 {cc}"), &format!("completion condition {cc}")))?;
                    mode = m;
                    quorum = q;
                }
                def.nodes.push(node(NodeKind::Task(Box::new(TaskSpec { assign, mode, quorum, reject_to: None, default: n.attribute("default").map(str::to_string), due_hours: None, when_empty: WhenEmpty::Fail, no_self: false }))));
            }
            "sequenceFlow" => {
                refuse_children(&n, &["documentation", "extensionElements", "conditionExpression"])?;
                let condition = n.children().find(|c| c.is_element() && c.tag_name().name() == "conditionExpression").and_then(|c| c.text()).map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
                if let Some(c) = &condition {
                    let e = cond::parse(c).map_err(|e| bad(format!("连线 {id} 的条件 {c}:{}", e.zh), format!("Condition {c} of flow {id}: {}", e.en)))?;
                    let mut ns = Vec::new();
                    cond::names(&e, &mut ns);
                    for (v, t) in ns {
                        if v != "pass" {
                            vars.entry(v).or_insert(t);
                        }
                    }
                }
                def.flows.push(Flow { id, from: n.attribute("sourceRef").unwrap_or_default().into(), to: n.attribute("targetRef").unwrap_or_default().into(), name: (!nm.is_empty()).then_some(nm), condition });
            }
            _ => return Err(unsupported(&n, n.tag_name().name(), n.tag_name().name())),
        }
    }
    // The BPMN `default` attribute of a gateway names its default flow; a flow from a gateway without a
    // condition that is not the default is unconditional in BPMN: it becomes the default when it is the only one.
    let defaults: Vec<(String, String)> = def
        .nodes
        .iter()
        .filter(|n| matches!(n.kind, NodeKind::Exclusive { default: None }))
        .filter_map(|n| {
            let plain: Vec<&Flow> = def.outgoing(&n.id).filter(|f| f.condition.is_none()).collect();
            (plain.len() == 1).then(|| (n.id.clone(), plain[0].id.clone()))
        })
        .collect();
    for (nid, fid) in defaults {
        if let Some(n) = def.nodes.iter_mut().find(|n| n.id == nid) {
            n.kind = NodeKind::Exclusive { default: Some(fid) };
        }
    }
    def.variables = vars.into_iter().map(|(name, ty)| VarDecl { label: name.clone(), name, ty, required: false }).collect();
    Ok(Imported { key, name, def })
}

fn unsupported(n: &roxmltree::Node, zh: &str, en: &str) -> Problem {
    let (id, nm) = (n.attribute("id").unwrap_or("?"), n.attribute("name").unwrap_or(""));
    bad(format!("不支持的 BPMN 元素 {zh}(id={id},name={nm})"), format!("Unsupported BPMN element {en} (id={id}, name={nm})"))
}

fn refuse_children(n: &roxmltree::Node, allowed: &[&str]) -> Result<(), Problem> {
    for c in n.children().filter(roxmltree::Node::is_element) {
        if !allowed.contains(&c.tag_name().name()) {
            let nm = c.tag_name().name();
            return Err(unsupported(&c, nm, nm));
        }
    }
    Ok(())
}

/// `${name}` → name.
fn var_ref(s: &str) -> Option<String> {
    let inner = s.trim().strip_prefix("${")?.strip_suffix('}')?.trim();
    (!inner.is_empty() && inner.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| inner.to_string())
}

/// Flowable completion conditions: all (none, or `nrOfCompletedInstances == nrOfInstances`), any
/// (`nrOfCompletedInstances >= 1`), at least n (`nrOfCompletedInstances >= n`), or a ratio of all.
fn completion(cc: &str) -> Option<(Mode, Option<u32>)> {
    if cc.is_empty() {
        return Some((Mode::All, None));
    }
    let s: String = cc.trim().trim_start_matches("${").trim_end_matches('}').chars().filter(|c| !c.is_whitespace()).collect();
    if s == "nrOfCompletedInstances==nrOfInstances" || s == "nrOfCompletedInstances/nrOfInstances>=1" {
        return Some((Mode::All, None));
    }
    let n: u32 = s.strip_prefix("nrOfCompletedInstances>=")?.parse().ok()?;
    Some(if n <= 1 { (Mode::Any, None) } else { (Mode::Quorum, Some(n)) })
}
