//! The checked forms of the expressions: names and values resolved, ready to evaluate.

use std::fmt;
use std::sync::Arc;

use crate::value::Value;

/// One step of a document path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum PathElem {
    /// A map key (or top-level attribute name).
    Name(String),
    /// A list index.
    Index(usize),
}

/// A document path such as `a.b[2].c`. Its steps are shared: a path is copied with every kept
/// parse a request reuses, and copying it must not copy its names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Path(pub(crate) Arc<[PathElem]>);

impl Path {
    /// A path of the steps `elems`.
    pub(crate) fn new(elems: Vec<PathElem>) -> Path {
        Path(elems.into())
    }

    /// The path of one top-level attribute.
    pub(crate) fn attribute(name: &str) -> Path {
        Path::new(vec![PathElem::Name(name.to_owned())])
    }

    /// The top-level attribute the path starts at.
    pub(crate) fn head(&self) -> &str {
        match self.0.first() {
            Some(PathElem::Name(n)) => n,
            _ => "",
        }
    }
}

impl fmt::Display for Path {
    /// DynamoDB's rendering in error messages: `[a, b, [2]]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, elem) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match elem {
                PathElem::Name(n) => f.write_str(n)?,
                PathElem::Index(ix) => write!(f, "[{ix}]")?,
            }
        }
        f.write_str("]")
    }
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "<>",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// A value a condition works on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Operand {
    Path(Path),
    Value(Value),
    Size(Box<Operand>),
    /// The value a request gave at this place of a kept parse that many requests share
    /// ([`crate::expr::cache::BoundCondition`]): the index into the values bound with the tree.
    /// The parser never makes one.
    Slot(usize),
}

/// A condition (ConditionExpression, FilterExpression, KeyConditionExpression).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Condition {
    Or(Box<Condition>, Box<Condition>),
    And(Box<Condition>, Box<Condition>),
    Not(Box<Condition>),
    Compare(CmpOp, Operand, Operand),
    Between(Operand, Operand, Operand),
    In(Operand, Vec<Operand>),
    Exists(Path),
    NotExists(Path),
    AttributeType(Operand, Operand),
    BeginsWith(Operand, Operand),
    Contains(Operand, Operand),
}

/// The right-hand side of a SET action.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SetValue {
    Operand(UpdateOperand),
    Plus(UpdateOperand, UpdateOperand),
    Minus(UpdateOperand, UpdateOperand),
}

/// An operand of an update expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum UpdateOperand {
    Path(Path),
    Value(Value),
    IfNotExists(Path, Box<UpdateOperand>),
    ListAppend(Box<UpdateOperand>, Box<UpdateOperand>),
}

/// One action of an update expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum UpdateAction {
    Set(Path, SetValue),
    Remove(Path),
    Add(Path, Value),
    Delete(Path, Value),
}

impl UpdateAction {
    /// The path the action writes.
    pub(crate) fn path(&self) -> &Path {
        match self {
            UpdateAction::Set(path, _)
            | UpdateAction::Remove(path)
            | UpdateAction::Add(path, _)
            | UpdateAction::Delete(path, _) => path,
        }
    }
}
