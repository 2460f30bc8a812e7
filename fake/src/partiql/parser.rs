//! A recursive-descent parser for the statements of PartiQL for DynamoDB: SELECT, INSERT,
//! UPDATE and DELETE, with `?` parameters. Hand-written: the PartiQL project's own Rust parser
//! (`partiql-parser` 0.15) reads queries only (no INSERT ... VALUE, UPDATE ... SET or DELETE, no
//! `?`), and it brings some 80 crates and a parser generator into the build.

use super::ast::{Action, Cond, Elem, Expr, OrderBy, Path, Returning, Source, Statement};
use super::lexer::{Tok, tokenize};
use crate::error::DynamoError;
use crate::expr::ast::CmpOp;

/// DynamoDB's error for a statement it cannot read.
pub(crate) fn malformed(detail: impl std::fmt::Display) -> DynamoError {
    DynamoError::validation(format!("Statement wasn't well formed, can't be processed: {detail}"))
}

/// The words that end a path or an operand where they stand: never names without quotes there.
const KEYWORDS: [&str; 21] = [
    "SELECT",
    "FROM",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "BETWEEN",
    "IN",
    "IS",
    "INSERT",
    "INTO",
    "VALUE",
    "UPDATE",
    "SET",
    "REMOVE",
    "DELETE",
    "RETURNING",
    "MISSING",
    "NULL",
    "EXISTS",
    "ORDER",
];

/// The functions that answer true or false, usable as a condition of their own.
const PREDICATES: [&str; 5] = ["begins_with", "contains", "attribute_type", "attribute_exists", "attribute_not_exists"];

/// A statement and how many `?` parameters it has.
pub(crate) fn parse(text: &str) -> Result<(Statement, usize), DynamoError> {
    let tokens = tokenize(text).map_err(|e| malformed(e.0))?;
    let mut parser = Parser { tokens, at: 0, params: 0, depth: 0 };
    let statement = parser.statement()?;
    if let Some(extra) = parser.peek() {
        return Err(malformed(format!("Unexpected token: {}", shown(extra))));
    }
    Ok((statement, parser.params))
}

fn shown(token: &Tok) -> String {
    match token {
        Tok::Word(w) | Tok::Num(w) => w.clone(),
        Tok::Quoted(q) => format!("\"{q}\""),
        Tok::Str(s) => format!("'{s}'"),
        Tok::Param => "?".to_owned(),
        Tok::Sym(s) => (*s).to_owned(),
    }
}

struct Parser {
    tokens: Vec<Tok>,
    at: usize,
    params: usize,
    /// How deep the parse is in nested conditions and values.
    depth: usize,
}

/// The deepest nesting of conditions and values a statement may have: deeper text is refused
/// before the parse could run out of stack.
const MAX_DEPTH: usize = 100;

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at)
    }

    fn peek_at(&self, ahead: usize) -> Option<&Tok> {
        self.tokens.get(self.at + ahead)
    }

    fn next(&mut self) -> Option<Tok> {
        let token = self.tokens.get(self.at).cloned();
        self.at += usize::from(token.is_some());
        token
    }

    fn unexpected(&self) -> DynamoError {
        match self.peek() {
            Some(token) => malformed(format!("Unexpected token: {}", shown(token))),
            None => malformed("Unexpected end of statement"),
        }
    }

    fn is_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(w)) if w.eq_ignore_ascii_case(word))
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let found = self.is_word(word);
        self.at += usize::from(found);
        found
    }

    fn expect_word(&mut self, word: &str) -> Result<(), DynamoError> {
        if self.eat_word(word) { Ok(()) } else { Err(self.unexpected()) }
    }

    fn eat_sym(&mut self, symbol: &str) -> bool {
        let found = matches!(self.peek(), Some(Tok::Sym(s)) if *s == symbol);
        self.at += usize::from(found);
        found
    }

    fn expect_sym(&mut self, symbol: &str) -> Result<(), DynamoError> {
        if self.eat_sym(symbol) { Ok(()) } else { Err(self.unexpected()) }
    }

    fn statement(&mut self) -> Result<Statement, DynamoError> {
        if self.eat_word("SELECT") {
            return self.select();
        }
        if self.eat_word("INSERT") {
            self.expect_word("INTO")?;
            let table = self.name()?;
            self.expect_word("VALUE")?;
            let item = self.operand()?;
            return Ok(Statement::Insert { table, item });
        }
        if self.eat_word("UPDATE") {
            return self.update();
        }
        if self.eat_word("DELETE") {
            self.expect_word("FROM")?;
            let table = self.name()?;
            let filter = self.filter()?;
            let returning = self.returning()?;
            return Ok(Statement::Delete { table, filter, returning });
        }
        if self.eat_word("EXISTS") {
            self.expect_sym("(")?;
            self.expect_word("SELECT")?;
            let select = self.select()?;
            self.expect_sym(")")?;
            return Ok(Statement::Exists(Box::new(select)));
        }
        Err(malformed("Expected data manipulation"))
    }

    fn select(&mut self) -> Result<Statement, DynamoError> {
        let projection = if self.eat_sym("*") {
            None
        } else {
            let mut paths = vec![self.path()?];
            while self.eat_sym(",") {
                paths.push(self.path()?);
            }
            Some(paths)
        };
        self.expect_word("FROM")?;
        let table = self.name()?;
        let index = if self.eat_sym(".") { Some(self.name()?) } else { None };
        let filter = self.filter()?;
        let mut order = Vec::new();
        if self.eat_word("ORDER") {
            self.expect_word("BY")?;
            loop {
                let path = self.path()?;
                let descending = self.eat_word("DESC");
                if !descending {
                    self.eat_word("ASC");
                }
                order.push(OrderBy { path, descending });
                if !self.eat_sym(",") {
                    break;
                }
            }
        }
        Ok(Statement::Select { projection, source: Source { table, index }, filter, order })
    }

    fn update(&mut self) -> Result<Statement, DynamoError> {
        let table = self.name()?;
        let mut actions = Vec::new();
        loop {
            if self.eat_word("SET") {
                loop {
                    let path = self.path()?;
                    self.expect_sym("=")?;
                    actions.push(Action::Set(path, self.operand()?));
                    if !self.eat_sym(",") {
                        break;
                    }
                }
            } else if self.eat_word("REMOVE") {
                loop {
                    actions.push(Action::Remove(self.path()?));
                    if !self.eat_sym(",") {
                        break;
                    }
                }
            } else {
                break;
            }
        }
        if actions.is_empty() {
            return Err(self.unexpected());
        }
        let filter = self.filter()?;
        let returning = self.returning()?;
        Ok(Statement::Update { table, actions, filter, returning })
    }

    fn filter(&mut self) -> Result<Option<Cond>, DynamoError> {
        if self.eat_word("WHERE") { self.condition().map(Some) } else { Ok(None) }
    }

    fn returning(&mut self) -> Result<Option<Returning>, DynamoError> {
        if !self.eat_word("RETURNING") {
            return Ok(None);
        }
        let all = if self.eat_word("ALL") {
            true
        } else if self.eat_word("MODIFIED") {
            false
        } else {
            return Err(self.unexpected());
        };
        let old = if self.eat_word("OLD") {
            true
        } else if self.eat_word("NEW") {
            false
        } else {
            return Err(self.unexpected());
        };
        self.expect_sym("*")?;
        Ok(Some(match (all, old) {
            (true, true) => Returning::AllOld,
            (true, false) => Returning::AllNew,
            (false, true) => Returning::ModifiedOld,
            (false, false) => Returning::ModifiedNew,
        }))
    }

    /// A table, index or attribute name: a bare word that is no keyword, or a quoted name.
    fn name(&mut self) -> Result<String, DynamoError> {
        match self.peek() {
            Some(Tok::Quoted(name)) => {
                let name = name.clone();
                self.at += 1;
                Ok(name)
            }
            Some(Tok::Word(word)) if !KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word)) => {
                let word = word.clone();
                self.at += 1;
                Ok(word)
            }
            _ => Err(self.unexpected()),
        }
    }

    fn path(&mut self) -> Result<Path, DynamoError> {
        let mut elems = vec![Elem::Name(self.name()?)];
        loop {
            if self.eat_sym(".") {
                elems.push(Elem::Name(self.name()?));
            } else if self.eat_sym("[") {
                let Some(Tok::Num(digits)) = self.next() else { return Err(self.unexpected()) };
                let index = digits.parse().map_err(|_| malformed(format!("Invalid list index: {digits}")))?;
                self.expect_sym("]")?;
                elems.push(Elem::Index(index));
            } else {
                return Ok(Path(elems));
            }
        }
    }

    fn condition(&mut self) -> Result<Cond, DynamoError> {
        let mut left = self.conjunction()?;
        while self.eat_word("OR") {
            left = Cond::Or(Box::new(left), Box::new(self.conjunction()?));
        }
        Ok(left)
    }

    fn conjunction(&mut self) -> Result<Cond, DynamoError> {
        let mut left = self.negation()?;
        while self.eat_word("AND") {
            left = Cond::And(Box::new(left), Box::new(self.negation()?));
        }
        Ok(left)
    }

    fn negation(&mut self) -> Result<Cond, DynamoError> {
        if self.eat_word("NOT") {
            self.deeper()?;
            let negated = Cond::Not(Box::new(self.negation()?));
            self.depth -= 1;
            return Ok(negated);
        }
        self.predicate()
    }

    fn deeper(&mut self) -> Result<(), DynamoError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH { Err(malformed("Statement is nested too deeply")) } else { Ok(()) }
    }

    fn predicate(&mut self) -> Result<Cond, DynamoError> {
        if self.eat_sym("(") {
            self.deeper()?;
            let inner = self.condition()?;
            self.expect_sym(")")?;
            self.depth -= 1;
            return Ok(inner);
        }
        let left = self.operand()?;
        if let Expr::Call(name, args) = &left
            && PREDICATES.iter().any(|p| p.eq_ignore_ascii_case(name))
            && !matches!(self.peek(), Some(Tok::Sym("=" | "<>" | "!=" | "<" | "<=" | ">" | ">=")))
        {
            return Ok(Cond::Call(name.to_ascii_lowercase(), args.clone()));
        }
        let compare = match self.peek() {
            Some(Tok::Sym("=")) => Some(CmpOp::Eq),
            Some(Tok::Sym("<>" | "!=")) => Some(CmpOp::Ne),
            Some(Tok::Sym("<")) => Some(CmpOp::Lt),
            Some(Tok::Sym("<=")) => Some(CmpOp::Le),
            Some(Tok::Sym(">")) => Some(CmpOp::Gt),
            Some(Tok::Sym(">=")) => Some(CmpOp::Ge),
            _ => None,
        };
        if let Some(compare) = compare {
            self.at += 1;
            return Ok(Cond::Compare(left, compare, self.operand()?));
        }
        if self.eat_word("BETWEEN") {
            let low = self.operand()?;
            self.expect_word("AND")?;
            return Ok(Cond::Between(left, low, self.operand()?));
        }
        if self.eat_word("IN") {
            let close = if self.eat_sym("[") {
                "]"
            } else {
                self.expect_sym("(")?;
                ")"
            };
            let mut values = vec![self.operand()?];
            while self.eat_sym(",") {
                values.push(self.operand()?);
            }
            self.expect_sym(close)?;
            return Ok(Cond::In(left, values));
        }
        if self.eat_word("IS") {
            let negated = self.eat_word("NOT");
            let Expr::Path(path) = left else { return Err(self.unexpected()) };
            if self.eat_word("MISSING") {
                return Ok(Cond::Missing(path, negated));
            }
            self.expect_word("NULL")?;
            return Ok(Cond::Null(path, negated));
        }
        Err(self.unexpected())
    }

    /// A value, a path, a function call, or a sum or difference of them.
    fn operand(&mut self) -> Result<Expr, DynamoError> {
        let mut left = self.primary()?;
        loop {
            if self.eat_sym("+") {
                left = Expr::Add(Box::new(left), Box::new(self.primary()?));
            } else if self.eat_sym("-") {
                left = Expr::Sub(Box::new(left), Box::new(self.primary()?));
            } else {
                return Ok(left);
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, DynamoError> {
        self.deeper()?;
        let value = self.value();
        self.depth -= 1;
        value
    }

    fn value(&mut self) -> Result<Expr, DynamoError> {
        let Some(token) = self.peek().cloned() else { return Err(self.unexpected()) };
        match token {
            Tok::Str(text) => {
                self.at += 1;
                Ok(Expr::Str(text))
            }
            Tok::Num(digits) => {
                self.at += 1;
                Ok(Expr::Num(digits))
            }
            Tok::Sym("-") if matches!(self.peek_at(1), Some(Tok::Num(_))) => {
                self.at += 1;
                let Some(Tok::Num(digits)) = self.next() else { return Err(self.unexpected()) };
                Ok(Expr::Num(format!("-{digits}")))
            }
            Tok::Param => {
                self.at += 1;
                self.params += 1;
                Ok(Expr::Param(self.params - 1))
            }
            Tok::Sym("{") => {
                self.at += 1;
                let mut entries = Vec::new();
                if !self.eat_sym("}") {
                    loop {
                        let key = match self.next() {
                            Some(Tok::Str(key) | Tok::Quoted(key)) => key,
                            _ => return Err(self.unexpected()),
                        };
                        self.expect_sym(":")?;
                        entries.push((key, self.operand()?));
                        if self.eat_sym("}") {
                            break;
                        }
                        self.expect_sym(",")?;
                    }
                }
                Ok(Expr::Map(entries))
            }
            Tok::Sym(open @ ("[" | "<<")) => {
                self.at += 1;
                let close = if open == "[" { "]" } else { ">>" };
                let mut elements = Vec::new();
                if !self.eat_sym(close) {
                    loop {
                        elements.push(self.operand()?);
                        if self.eat_sym(close) {
                            break;
                        }
                        self.expect_sym(",")?;
                    }
                }
                Ok(if open == "[" { Expr::List(elements) } else { Expr::Bag(elements) })
            }
            Tok::Word(word) if word.eq_ignore_ascii_case("TRUE") || word.eq_ignore_ascii_case("FALSE") => {
                self.at += 1;
                Ok(Expr::Bool(word.eq_ignore_ascii_case("TRUE")))
            }
            Tok::Word(word) if word.eq_ignore_ascii_case("NULL") => {
                self.at += 1;
                Ok(Expr::Null)
            }
            Tok::Word(word) if matches!(self.peek_at(1), Some(Tok::Sym("("))) => {
                self.at += 2;
                let mut args = Vec::new();
                if !self.eat_sym(")") {
                    loop {
                        args.push(self.operand()?);
                        if self.eat_sym(")") {
                            break;
                        }
                        self.expect_sym(",")?;
                    }
                }
                Ok(Expr::Call(word, args))
            }
            _ => self.path().map(Expr::Path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> String {
        parse(text).unwrap_err().message
    }

    #[test]
    fn the_four_statements_are_read() {
        let (select, params) =
            parse(r#"SELECT a, "b"."c", d[1] FROM "Shop"."byOwner" WHERE owner = ? AND begins_with(sk, 'o#')"#)
                .unwrap();
        assert_eq!(params, 1);
        let Statement::Select { projection, source, filter, .. } = select else { panic!("{select:?}") };
        assert_eq!(projection.map(|p| p.len()), Some(3));
        assert_eq!((source.table.as_str(), source.index.as_deref()), ("Shop", Some("byOwner")));
        assert_eq!(filter.unwrap().conjuncts().len(), 2);
        let (insert, _) =
            parse("insert into Shop value {'pk': 'a', 'n': -1.5, 's': <<'x'>>, 'l': [TRUE, NULL]}").unwrap();
        assert!(matches!(insert, Statement::Insert { item: Expr::Map(ref e), .. } if e.len() == 4));
        let (update, params) =
            parse("UPDATE Shop SET a = a + ?, l = list_append(l, [1]) REMOVE b WHERE pk = ? RETURNING ALL NEW *")
                .unwrap();
        assert_eq!(params, 2);
        assert!(
            matches!(update, Statement::Update { ref actions, returning: Some(Returning::AllNew), .. } if actions.len() == 3)
        );
        let (delete, _) = parse("DELETE FROM Shop WHERE pk = 'a' AND x IS NOT MISSING RETURNING ALL OLD *").unwrap();
        assert!(matches!(delete, Statement::Delete { returning: Some(Returning::AllOld), .. }));
    }

    #[test]
    fn what_is_not_a_statement_gets_dynamodb_s_wording() {
        assert_eq!(
            message("SELEC * FROM t"),
            "Statement wasn't well formed, can't be processed: Expected data manipulation"
        );
        assert_eq!(
            message("SELECT * FROM"),
            "Statement wasn't well formed, can't be processed: Unexpected end of statement"
        );
        assert_eq!(
            message("SELECT * FROM t WHERE"),
            "Statement wasn't well formed, can't be processed: Unexpected end of statement"
        );
        assert!(message("SELECT * FROM t t2").contains("Unexpected token: t2"));
        assert!(message("UPDATE t WHERE a = 1").contains("Unexpected token: WHERE"));
        let deep = format!("SELECT * FROM t WHERE {}a = 1{}", "(".repeat(5000), ")".repeat(5000));
        assert!(message(&deep).ends_with("Statement is nested too deeply"));
        let deep_value = format!("INSERT INTO t VALUE {}1{}", "[".repeat(5000), "]".repeat(5000));
        assert!(message(&deep_value).ends_with("Statement is nested too deeply"));
    }
}
