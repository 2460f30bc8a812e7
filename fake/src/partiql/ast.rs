//! The statements of PartiQL for DynamoDB, as the parser reads them.

use crate::expr::ast::CmpOp;

/// One element of a document path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Elem {
    Name(String),
    Index(usize),
}

/// A document path: `a`, `"a"."b"`, `a.b[2]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Path(pub(crate) Vec<Elem>);

impl Path {
    /// The attribute name, if the path is one top-level attribute.
    pub(crate) fn attribute(&self) -> Option<&str> {
        match &self.0[..] {
            [Elem::Name(name)] => Some(name),
            _ => None,
        }
    }
}

/// A value or an operand.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    /// `'text'`.
    Str(String),
    /// A number, as written.
    Num(String),
    Bool(bool),
    Null,
    /// `?`, by its place among the statement's parameters.
    Param(usize),
    Path(Path),
    /// `{'k': v, ...}`.
    Map(Vec<(String, Expr)>),
    /// `[v, ...]`.
    List(Vec<Expr>),
    /// `<<v, ...>>`: a set.
    Bag(Vec<Expr>),
    /// `name(args)`.
    Call(String, Vec<Expr>),
    Add(Box<Expr>, Box<Expr>),
    Sub(Box<Expr>, Box<Expr>),
}

/// A condition of a `WHERE` clause.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cond {
    Compare(Expr, CmpOp, Expr),
    Between(Expr, Expr, Expr),
    In(Expr, Vec<Expr>),
    /// A function that answers true or false: `begins_with`, `contains`, `attribute_type`, ...
    Call(String, Vec<Expr>),
    /// `path IS [NOT] MISSING`.
    Missing(Path, bool),
    /// `path IS [NOT] NULL`.
    Null(Path, bool),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
}

impl Cond {
    /// The conditions joined by top-level `AND`s, in order.
    pub(crate) fn conjuncts(&self) -> Vec<&Cond> {
        match self {
            Cond::And(a, b) => {
                let mut all = a.conjuncts();
                all.extend(b.conjuncts());
                all
            }
            other => vec![other],
        }
    }
}

/// What a write statement answers with: `RETURNING ALL OLD *` and its kin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Returning {
    AllOld,
    AllNew,
    ModifiedOld,
    ModifiedNew,
}

impl Returning {
    /// The `ReturnValues` of the item operation that does the same.
    pub(crate) fn return_values(self) -> &'static str {
        match self {
            Returning::AllOld => "ALL_OLD",
            Returning::AllNew => "ALL_NEW",
            Returning::ModifiedOld => "UPDATED_OLD",
            Returning::ModifiedNew => "UPDATED_NEW",
        }
    }
}

/// One action of an `UPDATE`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Action {
    Set(Path, Expr),
    Remove(Path),
}

/// One key of an `ORDER BY`: the attribute, and whether it sorts descending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OrderBy {
    pub(crate) path: Path,
    pub(crate) descending: bool,
}

/// A table, or an index of one: `"Table"` or `"Table"."Index"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Source {
    pub(crate) table: String,
    pub(crate) index: Option<String>,
}

/// A statement.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Statement {
    /// `SELECT * | paths FROM source [WHERE cond] [ORDER BY key [ASC|DESC], ...]`; `None`
    /// projects every attribute.
    Select { projection: Option<Vec<Path>>, source: Source, filter: Option<Cond>, order: Vec<OrderBy> },
    /// `INSERT INTO table VALUE {...}`.
    Insert { table: String, item: Expr },
    /// `UPDATE table SET ... REMOVE ... WHERE cond [RETURNING ...]`.
    Update { table: String, actions: Vec<Action>, filter: Option<Cond>, returning: Option<Returning> },
    /// `DELETE FROM table WHERE cond [RETURNING ALL OLD *]`.
    Delete { table: String, filter: Option<Cond>, returning: Option<Returning> },
    /// `EXISTS(SELECT * FROM table WHERE cond)`: in a transaction, a check that the item the
    /// SELECT names exists and meets the rest of its condition.
    Exists(Box<Statement>),
}

impl Statement {
    /// The table the statement names.
    pub(crate) fn table(&self) -> &str {
        match self {
            Statement::Select { source, .. } => &source.table,
            Statement::Insert { table, .. } | Statement::Update { table, .. } | Statement::Delete { table, .. } => {
                table
            }
            Statement::Exists(select) => select.table(),
        }
    }

    /// Whether the statement only reads.
    pub(crate) fn is_read(&self) -> bool {
        matches!(self, Statement::Select { .. })
    }
}
