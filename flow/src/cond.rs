//! The condition language of branches: a variable compared with a literal, combined with and/or/not.
//!
//! ```text
//! expr   := or
//! or     := and (("||" | "or") and)*
//! and    := unary (("&&" | "and") unary)*
//! unary  := ("!" | "not") unary | "(" expr ")" | name [op literal | "in" "[" literal ("," literal)* "]"]
//! op     := == | = | != | ≠ | < | <= | ≤ | > | >= | ≥
//! literal:= number | "text" | 'text' | true | false
//! ```
//! A Flowable wrapper `${…}` is accepted. A bare name must be a boolean variable. Parsed and type-checked against
//! the declared variables when a definition is saved; evaluated without any code: no calls, no member access.
use crate::{Definition, Val, VarType, Vars, parse_date, parse_num};

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    /// A boolean variable.
    Var(String),
    Cmp(String, Op, Lit),
    In(String, Vec<Lit>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    Num(String),
    Text(String),
    Bool(bool),
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Name(String),
    Num(String),
    Text(String),
    Op(Op),
    And,
    Or,
    Not,
    LParen,
    RParen,
    LBrack,
    RBrack,
    Comma,
    In,
}

/// A condition that does not parse or does not fit the declared variables: the message says why.
#[derive(Clone, Debug, PartialEq)]
pub struct CondError {
    pub zh: String,
    pub en: String,
}

fn err(zh: impl Into<String>, en: impl Into<String>) -> CondError {
    CondError { zh: zh.into(), en: en.into() }
}

fn lex(src: &str) -> Result<Vec<Tok>, CondError> {
    let mut s = src.trim();
    if let Some(inner) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}')) {
        s = inner.trim();
    }
    if s.len() > 1000 {
        return Err(err("条件过长", "The condition is too long"));
    }
    let cs: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        let next = cs.get(i + 1).copied();
        match c {
            ' ' | '\t' | '\n' | '\r' => i += 1,
            '(' => (out.push(Tok::LParen), i += 1).1,
            ')' => (out.push(Tok::RParen), i += 1).1,
            '[' => (out.push(Tok::LBrack), i += 1).1,
            ']' => (out.push(Tok::RBrack), i += 1).1,
            ',' => (out.push(Tok::Comma), i += 1).1,
            '≠' => (out.push(Tok::Op(Op::Ne)), i += 1).1,
            '≤' => (out.push(Tok::Op(Op::Le)), i += 1).1,
            '≥' => (out.push(Tok::Op(Op::Ge)), i += 1).1,
            '&' if next == Some('&') => (out.push(Tok::And), i += 2).1,
            '|' if next == Some('|') => (out.push(Tok::Or), i += 2).1,
            '!' if next == Some('=') => (out.push(Tok::Op(Op::Ne)), i += 2).1,
            '!' => (out.push(Tok::Not), i += 1).1,
            '=' if next == Some('=') => (out.push(Tok::Op(Op::Eq)), i += 2).1,
            '=' => (out.push(Tok::Op(Op::Eq)), i += 1).1,
            '<' if next == Some('=') => (out.push(Tok::Op(Op::Le)), i += 2).1,
            '<' => (out.push(Tok::Op(Op::Lt)), i += 1).1,
            '>' if next == Some('=') => (out.push(Tok::Op(Op::Ge)), i += 2).1,
            '>' => (out.push(Tok::Op(Op::Gt)), i += 1).1,
            '"' | '\'' => {
                let q = c;
                let mut j = i + 1;
                let mut t = String::new();
                while j < cs.len() && cs[j] != q {
                    t.push(cs[j]);
                    j += 1;
                }
                if j >= cs.len() {
                    return Err(err("文本缺少结束引号", "A text is missing its closing quote"));
                }
                out.push(Tok::Text(t));
                i = j + 1;
            }
            c if c.is_ascii_digit() || (c == '-' && next.is_some_and(|n| n.is_ascii_digit())) => {
                let mut j = i + 1;
                while j < cs.len() && (cs[j].is_ascii_digit() || cs[j] == '.') {
                    j += 1;
                }
                out.push(Tok::Num(cs[i..j].iter().collect()));
                i = j;
            }
            c if c.is_alphabetic() || c == '_' => {
                let mut j = i + 1;
                while j < cs.len() && (cs[j].is_alphanumeric() || cs[j] == '_') {
                    j += 1;
                }
                let w: String = cs[i..j].iter().collect();
                out.push(match w.as_str() {
                    "and" => Tok::And,
                    "or" => Tok::Or,
                    "not" => Tok::Not,
                    "in" => Tok::In,
                    _ => Tok::Name(w),
                });
                i = j;
            }
            other => return Err(err(format!("条件中有不认识的字符「{other}」"), format!("Unexpected character '{other}' in the condition"))),
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    depth: u32,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }
    fn or(&mut self) -> Result<Expr, CondError> {
        let mut e = self.and()?;
        while self.peek() == Some(&Tok::Or) {
            self.pos += 1;
            e = Expr::Or(Box::new(e), Box::new(self.and()?));
        }
        Ok(e)
    }
    fn and(&mut self) -> Result<Expr, CondError> {
        let mut e = self.unary()?;
        while self.peek() == Some(&Tok::And) {
            self.pos += 1;
            e = Expr::And(Box::new(e), Box::new(self.unary()?));
        }
        Ok(e)
    }
    fn unary(&mut self) -> Result<Expr, CondError> {
        self.depth += 1;
        if self.depth > 64 {
            return Err(err("条件嵌套过深", "The condition nests too deeply"));
        }
        let r = match self.next() {
            Some(Tok::Not) => Ok(Expr::Not(Box::new(self.unary()?))),
            Some(Tok::LParen) => {
                let e = self.or()?;
                match self.next() {
                    Some(Tok::RParen) => Ok(e),
                    _ => Err(err("缺少右括号", "A closing parenthesis is missing")),
                }
            }
            Some(Tok::Name(n)) => match self.peek() {
                Some(Tok::Op(op)) => {
                    let op = *op;
                    self.pos += 1;
                    Ok(Expr::Cmp(n, op, self.lit()?))
                }
                Some(Tok::In) => {
                    self.pos += 1;
                    if self.next() != Some(Tok::LBrack) {
                        return Err(err("in 后应为 [ ... ]", "in must be followed by [ ... ]"));
                    }
                    let mut v = vec![self.lit()?];
                    loop {
                        match self.next() {
                            Some(Tok::Comma) => v.push(self.lit()?),
                            Some(Tok::RBrack) => break,
                            _ => return Err(err("列表缺少 ]", "The list is missing ]")),
                        }
                    }
                    Ok(Expr::In(n, v))
                }
                _ => Ok(Expr::Var(n)),
            },
            Some(t) => Err(err(format!("条件在 {t:?} 处不完整"), format!("The condition is incomplete at {t:?}"))),
            None => Err(err("条件不完整", "The condition is incomplete")),
        };
        self.depth -= 1;
        r
    }
    fn lit(&mut self) -> Result<Lit, CondError> {
        match self.next() {
            Some(Tok::Num(n)) => Ok(Lit::Num(n)),
            Some(Tok::Text(t)) => Ok(Lit::Text(t)),
            Some(Tok::Name(n)) if n == "true" || n == "false" => Ok(Lit::Bool(n == "true")),
            _ => Err(err("比较的右边应为数字、带引号的文本或 true/false", "The right side of a comparison must be a number, quoted text or true/false")),
        }
    }
}

pub fn parse(src: &str) -> Result<Expr, CondError> {
    let toks = lex(src)?;
    if toks.is_empty() {
        return Err(err("条件为空", "The condition is empty"));
    }
    let mut p = Parser { toks, pos: 0, depth: 0 };
    let e = p.or()?;
    if p.pos < p.toks.len() {
        return Err(err("条件末尾有多余内容", "The condition has extra text at its end"));
    }
    Ok(e)
}

fn var_type(def: &Definition, name: &str) -> Result<VarType, CondError> {
    if name == "pass" {
        return Ok(VarType::Bool);
    }
    def.var(name).map(|d| d.ty).ok_or_else(|| err(format!("条件用到未声明的变量 {name}"), format!("The condition uses the undeclared variable {name}")))
}

/// The literal as a value of the variable's type.
fn lit_val(ty: VarType, name: &str, l: &Lit) -> Result<Val, CondError> {
    let bad = || {
        let (zh, en) = ty.name();
        err(format!("变量 {name} 是{zh},不能与 {l:?} 比较"), format!("The variable {name} is a {en}; it cannot be compared with {l:?}"))
    };
    match (ty, l) {
        (VarType::Number, Lit::Num(n)) => parse_num(n).map(Val::Num).ok_or_else(bad),
        (VarType::Text, Lit::Text(t)) => Ok(Val::Text(t.clone())),
        (VarType::Bool, Lit::Bool(b)) => Ok(Val::Bool(*b)),
        (VarType::Date, Lit::Text(t)) => parse_date(t).filter(|d| d.len() == t.len()).map(Val::Date).ok_or_else(bad),
        (VarType::User, Lit::Num(n)) | (VarType::User, Lit::Text(n)) => n.parse::<u64>().ok().map(Val::User).ok_or_else(bad),
        _ => Err(bad()),
    }
}

/// Checks every name and literal against the declared variables.
pub fn check(def: &Definition, e: &Expr) -> Result<(), CondError> {
    match e {
        Expr::And(a, b) | Expr::Or(a, b) => {
            check(def, a)?;
            check(def, b)
        }
        Expr::Not(a) => check(def, a),
        Expr::Var(n) => match var_type(def, n)? {
            VarType::Bool => Ok(()),
            t => Err(err(format!("变量 {n} 是{},不能单独作为条件", t.name().0), format!("The variable {n} is a {}; it is not a condition by itself", t.name().1))),
        },
        Expr::Cmp(n, op, l) => {
            let ty = var_type(def, n)?;
            lit_val(ty, n, l)?;
            if matches!(op, Op::Lt | Op::Le | Op::Gt | Op::Ge) && !matches!(ty, VarType::Number | VarType::Date) {
                return Err(err(format!("变量 {n} 只能用 = 或 != 比较"), format!("The variable {n} compares only with = or !=")));
            }
            Ok(())
        }
        Expr::In(n, ls) => {
            let ty = var_type(def, n)?;
            for l in ls {
                lit_val(ty, n, l)?;
            }
            Ok(())
        }
    }
}

/// Parses and checks a condition.
pub fn compile(def: &Definition, src: &str) -> Result<Expr, CondError> {
    let e = parse(src)?;
    check(def, &e)?;
    Ok(e)
}

/// Evaluates a checked condition. A comparison with a variable that has no value is false (`!=` true).
pub fn eval(def: &Definition, e: &Expr, vars: &Vars) -> bool {
    match e {
        Expr::And(a, b) => eval(def, a, vars) && eval(def, b, vars),
        Expr::Or(a, b) => eval(def, a, vars) || eval(def, b, vars),
        Expr::Not(a) => !eval(def, a, vars),
        Expr::Var(n) => vars.get(n) == Some(&Val::Bool(true)),
        Expr::Cmp(n, op, l) => {
            let Ok(ty) = var_type(def, n) else { return false };
            let (Some(v), Ok(lit)) = (vars.get(n), lit_val(ty, n, l)) else { return *op == Op::Ne };
            match op {
                Op::Eq => *v == lit,
                Op::Ne => *v != lit,
                Op::Lt => *v < lit,
                Op::Le => *v <= lit,
                Op::Gt => *v > lit,
                Op::Ge => *v >= lit,
            }
        }
        Expr::In(n, ls) => {
            let Ok(ty) = var_type(def, n) else { return false };
            vars.get(n).is_some_and(|v| ls.iter().any(|l| lit_val(ty, n, l).is_ok_and(|x| x == *v)))
        }
    }
}

/// The variables a condition names, with what it suggests their type is (for the BPMN importer).
pub fn names(e: &Expr, out: &mut Vec<(String, VarType)>) {
    match e {
        Expr::And(a, b) | Expr::Or(a, b) => {
            names(a, out);
            names(b, out);
        }
        Expr::Not(a) => names(a, out),
        Expr::Var(n) => out.push((n.clone(), VarType::Bool)),
        Expr::Cmp(n, _, l) => out.push((n.clone(), lit_type(l))),
        Expr::In(n, ls) => out.push((n.clone(), ls.first().map(lit_type).unwrap_or(VarType::Text))),
    }
}

fn lit_type(l: &Lit) -> VarType {
    match l {
        Lit::Num(_) => VarType::Number,
        Lit::Text(t) if parse_date(t).is_some_and(|d| d.len() == t.len()) => VarType::Date,
        Lit::Text(_) => VarType::Text,
        Lit::Bool(_) => VarType::Bool,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{VarDecl, VarType};

    fn def() -> Definition {
        let v = |n: &str, t| VarDecl { name: n.into(), label: String::new(), ty: t, required: false };
        Definition { variables: vec![v("days", VarType::Number), v("dept", VarType::Text), v("urgent", VarType::Bool), v("from", VarType::Date)], ..Definition::default() }
    }

    #[test]
    fn parses_checks_and_evaluates() {
        let d = def();
        let mut vars = Vars::new();
        vars.insert("days".into(), Val::Num(35_000));
        vars.insert("dept".into(), Val::Text("工程部".into()));
        vars.insert("pass".into(), Val::Bool(true));
        let t = |s: &str| eval(&d, &compile(&d, s).unwrap(), &vars);
        assert!(t("${days > 3}"));
        assert!(!t("days <= 3"));
        assert!(t("days >= 3.5 && pass"));
        assert!(t("${!urgent}"));
        assert!(t("dept == '工程部' and not (days < 1)"));
        assert!(t("dept in ['财务部', \"工程部\"]"));
        assert!(!t("from >= '2026-01-01'"));
        assert!(t("from != '2026-01-01'"));
        assert!(t("days ≥ 3.5 || urgent"));
        assert!(compile(&d, "days > 'x'").is_err());
        assert!(compile(&d, "dept > 'a'").is_err());
        assert!(compile(&d, "days").is_err());
        assert!(compile(&d, "amount > 3").is_err());
        assert!(compile(&d, "days > 3 &&").is_err());
        assert!(compile(&d, "days > 3.12345").is_err());
        assert!(compile(&d, "System.exit(0)").is_err());
        assert!(compile(&d, &"(".repeat(100)).is_err());
    }
}
