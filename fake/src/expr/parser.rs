//! The parsers of the four expression languages (condition, update, projection and, through the
//! condition parser, key conditions). Syntax errors stop the parse at once; the other mistakes are
//! collected while parsing and the most important one is reported, as DynamoDB does.

use super::ast::{CmpOp, Condition, Operand, Path, PathElem, SetValue, UpdateAction, UpdateOperand};
use super::context::ExprContext;
use super::lexer::{Tok, Token, tokenize};
use super::reserved::is_reserved;
use crate::error::DynamoError;
use crate::value::Value;

/// The longest expression DynamoDB accepts, in bytes.
pub(crate) const MAX_EXPRESSION_BYTES: usize = 4096;
/// The most operators and functions an expression may have.
pub(crate) const MAX_OPERATORS: usize = 300;
/// Parentheses nested deeper than this cannot all be needed, given the operator limit.
const MAX_PAREN_DEPTH: usize = MAX_OPERATORS + 1;

/// The kinds of mistakes collected during a parse, in no particular order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Parens,
    UnknownFunction,
    MisusedFunction,
    Reserved,
    AttrName,
    AttrVal,
    Section,
    PathOverlap,
    PathConflict,
    Operand,
    Distinct,
    Function,
}

/// Which language is being parsed; it decides the grammar details and the order of mistakes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    Condition,
    Update,
    Projection,
}

impl Language {
    fn priority(self) -> &'static [Slot] {
        match self {
            Language::Condition => &[
                Slot::Parens,
                Slot::UnknownFunction,
                Slot::MisusedFunction,
                Slot::Reserved,
                Slot::AttrName,
                Slot::Operand,
                Slot::Distinct,
                Slot::Function,
            ],
            Language::Update => &[
                Slot::Reserved,
                Slot::UnknownFunction,
                Slot::Section,
                Slot::AttrName,
                Slot::AttrVal,
                Slot::PathOverlap,
                Slot::PathConflict,
                Slot::Operand,
                Slot::Function,
            ],
            Language::Projection => &[Slot::Reserved, Slot::AttrName, Slot::PathOverlap, Slot::PathConflict],
        }
    }
}

/// A function call as written, before it is known whether it is a condition or an operand.
#[derive(Debug, Clone)]
enum Raw {
    Path(Path),
    Value(Value),
    Func { name: String, args: Vec<Raw> },
}

impl Raw {
    /// The type of the operand where it can be known without an item.
    fn static_type(&self) -> Option<&'static str> {
        match self {
            Raw::Value(v) => Some(v.type_name()),
            Raw::Func { name, .. } if name == "size" => Some("N"),
            _ => None,
        }
    }
}

pub(crate) struct Parser<'a, 'r> {
    src: &'a str,
    label: &'static str,
    language: Language,
    toks: Vec<Token>,
    pos: usize,
    ctx: &'a mut ExprContext<'r>,
    slots: Vec<(Slot, String)>,
    operators: usize,
    update_paths: Vec<Path>,
    sections: Vec<&'static str>,
    /// Report the first mistake met rather than the most important one (key conditions).
    in_order: bool,
}

type PResult<T> = Result<T, DynamoError>;

impl<'a, 'r> Parser<'a, 'r> {
    /// Prepares a parse of `src`, the parameter `label` (for example `ConditionExpression`).
    pub(crate) fn new(src: &'a str, label: &'static str, language: Language, ctx: &'a mut ExprContext<'r>) -> Self {
        Parser {
            src,
            label,
            language,
            toks: Vec::new(),
            pos: 0,
            ctx,
            slots: Vec::new(),
            operators: 0,
            update_paths: Vec::new(),
            sections: Vec::new(),
            in_order: false,
        }
    }

    /// Reports the first mistake in the order the text has them, as DynamoDB does for a
    /// KeyConditionExpression, instead of the most important one.
    pub(crate) fn reporting_in_order(mut self) -> Self {
        self.in_order = true;
        self
    }

    fn fail(&self, detail: impl std::fmt::Display) -> DynamoError {
        DynamoError::validation(format!("Invalid {}: {detail}", self.label))
    }

    /// Checks what can be checked before parsing: emptiness, size, and hopeless nesting.
    fn start(&mut self) -> PResult<()> {
        if self.src.len() > MAX_EXPRESSION_BYTES {
            return Err(self.fail(format!(
                "Expression size has exceeded the maximum allowed size; expression size: {}",
                self.src.len()
            )));
        }
        self.toks = tokenize(self.src);
        if self.toks.len() == 1 {
            return Err(self.fail("The expression can not be empty;"));
        }
        // Deep nesting is refused before the recursive parse can go deep.
        let mut depth = 0usize;
        let mut deepest = 0usize;
        for tok in &self.toks {
            match tok.kind {
                Tok::LParen => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                Tok::RParen => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        let operators = count_operators(self.src, &self.toks, self.language);
        if operators > MAX_OPERATORS {
            return Err(self.fail(format!("The expression contains too many operators; operator count: {operators}")));
        }
        if deepest > MAX_PAREN_DEPTH {
            // With at most 300 operators, so many nested parentheses cannot all be needed.
            return Err(self.fail("The expression has redundant parentheses;"));
        }
        Ok(())
    }

    /// Reports the collected mistake that DynamoDB reports first, if any, and the operator limit.
    fn finish(&self) -> PResult<()> {
        if self.in_order
            && let Some((_, message)) = self.slots.first()
        {
            return Err(self.fail(message));
        }
        for slot in self.language.priority() {
            if let Some((_, message)) = self.slots.iter().find(|(s, _)| s == slot) {
                return Err(self.fail(message));
            }
        }
        if self.operators > MAX_OPERATORS {
            return Err(
                self.fail(format!("The expression contains too many operators; operator count: {}", self.operators))
            );
        }
        Ok(())
    }

    fn note(&mut self, slot: Slot, message: impl FnOnce() -> String) {
        // The condition language keeps one slot for both undefined names and values.
        let slot = match (self.language, slot) {
            (Language::Condition, Slot::AttrVal | Slot::Operand | Slot::Distinct | Slot::Function) => Slot::AttrName,
            (_, s) => s,
        };
        if !self.slots.iter().any(|(s, _)| *s == slot) {
            self.slots.push((slot, message()));
        }
    }

    // ---- tokens ----

    fn peek(&self) -> Token {
        self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn peek_at(&self, offset: usize) -> Token {
        self.toks[(self.pos + offset).min(self.toks.len() - 1)]
    }

    fn text(&self, tok: Token) -> &'a str {
        &self.src[tok.start..tok.end]
    }

    fn advance(&mut self) -> Token {
        let tok = self.peek();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        tok
    }

    fn is_keyword(&self, tok: Token, word: &str) -> bool {
        tok.kind == Tok::Ident && self.text(tok).eq_ignore_ascii_case(word)
    }

    fn is_language_keyword(&self, tok: Token) -> bool {
        if tok.kind != Tok::Ident {
            return false;
        }
        let words: &[&str] = match self.language {
            Language::Condition => &["AND", "OR", "NOT", "BETWEEN", "IN"],
            Language::Update => &["SET", "REMOVE", "ADD", "DELETE"],
            Language::Projection => &[],
        };
        words.iter().any(|w| self.text(tok).eq_ignore_ascii_case(w))
    }

    /// DynamoDB's syntax error at the current token, `near` two tokens: the one before it and
    /// it, or, at the first token, it and the one after it.
    fn syntax_error(&self) -> DynamoError {
        let tok = self.peek();
        self.syntax_error_showing(match tok.kind {
            Tok::Eof => "<EOF>",
            Tok::Underscore => "_",
            _ => self.text(tok),
        })
    }

    /// [`syntax_error`](Self::syntax_error), naming `shown` as the token.
    fn syntax_error_showing(&self, shown: &str) -> DynamoError {
        let tok = self.peek();
        let (near_start, near_end) = match self.pos.checked_sub(1).and_then(|before| self.toks.get(before)) {
            Some(before) => (before.start, tok.end),
            None => {
                let after = self.toks.get(self.pos + 1).filter(|after| after.kind != Tok::Eof);
                (tok.start, after.map_or(tok.end, |after| after.end))
            }
        };
        let near = &self.src[near_start..near_end];
        self.fail(format!("Syntax error; token: \"{shown}\", near: \"{near}\""))
    }

    fn expect(&mut self, kind: Tok) -> PResult<Token> {
        if self.peek().kind == kind { Ok(self.advance()) } else { Err(self.syntax_error()) }
    }

    fn expect_eof(&self) -> PResult<()> {
        if self.peek().kind == Tok::Eof { Ok(()) } else { Err(self.syntax_error()) }
    }

    // ---- paths and placeholders ----

    fn name_element(&mut self) -> PResult<String> {
        let tok = self.peek();
        match tok.kind {
            Tok::Ident if !self.is_language_keyword(tok) => {
                let text = self.text(tok);
                self.advance();
                if is_reserved(text) {
                    self.note(Slot::Reserved, || {
                        format!("Attribute name is a reserved keyword; reserved keyword: {text}")
                    });
                }
                Ok(text.to_owned())
            }
            Tok::NamePlaceholder => {
                self.advance();
                let placeholder = self.text(tok);
                match self.ctx.name(placeholder) {
                    Some(name) => Ok(name),
                    None => {
                        self.note(Slot::AttrName, || {
                            format!(
                                "An expression attribute name used in the document path is not defined; attribute name: {placeholder}"
                            )
                        });
                        Ok(placeholder.to_owned())
                    }
                }
            }
            _ => Err(self.syntax_error()),
        }
    }

    fn path(&mut self) -> PResult<Path> {
        let elems = vec![PathElem::Name(self.name_element()?)];
        self.path_tail(elems)
    }

    /// The `.name` and `[n]` elements that continue a path.
    fn path_tail(&mut self, mut elems: Vec<PathElem>) -> PResult<Path> {
        loop {
            match self.peek().kind {
                Tok::Dot => {
                    self.advance();
                    elems.push(PathElem::Name(self.name_element()?));
                }
                Tok::LBracket => {
                    self.advance();
                    let tok = self.peek();
                    if tok.kind != Tok::Digits {
                        return Err(self.syntax_error());
                    }
                    let index: usize = match self.text(tok).parse() {
                        Ok(i) => i,
                        Err(_) => return Err(self.syntax_error()),
                    };
                    self.advance();
                    self.expect(Tok::RBracket)?;
                    elems.push(PathElem::Index(index));
                }
                _ => break,
            }
        }
        if elems.len() > crate::limits::MAX_NESTING_LEVELS {
            return Err(
                self.fail(format!("The document path has too many nesting levels; nesting levels: {}", elems.len()))
            );
        }
        Ok(Path::new(elems))
    }

    fn value_placeholder(&mut self) -> PResult<Value> {
        let tok = self.expect(Tok::ValuePlaceholder)?;
        let placeholder = self.text(tok);
        match self.ctx.value(placeholder) {
            Some(v) => Ok(v),
            None => {
                self.note(Slot::AttrVal, || {
                    format!("An expression attribute value used in expression is not defined; attribute value: {placeholder}")
                });
                Ok(Value::Null)
            }
        }
    }

    // ---- operands shared by conditions and updates ----

    /// `( operand )`, `function(args)`, `:value` or a path.
    fn raw_operand(&mut self) -> PResult<Raw> {
        let tok = self.peek();
        match tok.kind {
            Tok::LParen => {
                self.advance();
                if self.peek().kind == Tok::LParen && self.language == Language::Condition {
                    self.note(Slot::Parens, || "The expression has redundant parentheses;".into());
                }
                let inner = self.raw_operand()?;
                self.expect(Tok::RParen)?;
                match inner {
                    Raw::Path(Path(elems)) if matches!(self.peek().kind, Tok::Dot | Tok::LBracket) => {
                        Ok(Raw::Path(self.path_tail(elems.to_vec())?))
                    }
                    inner => Ok(inner),
                }
            }
            Tok::ValuePlaceholder => Ok(Raw::Value(self.value_placeholder()?)),
            Tok::Ident if self.peek_at(1).kind == Tok::LParen && !self.is_language_keyword(tok) => {
                self.advance();
                self.advance();
                let mut args = vec![self.raw_operand()?];
                while self.peek().kind == Tok::Comma {
                    self.advance();
                    args.push(self.raw_operand()?);
                }
                self.expect(Tok::RParen)?;
                self.operators += 1;
                Ok(Raw::Func { name: self.text(tok).to_owned(), args })
            }
            Tok::Ident | Tok::NamePlaceholder => Ok(Raw::Path(self.path()?)),
            _ => Err(self.syntax_error()),
        }
    }

    // ---- conditions ----

    /// Parses a whole condition expression.
    pub(crate) fn parse_condition(mut self) -> PResult<Condition> {
        self.start()?;
        let condition = self.or()?;
        self.expect_eof()?;
        self.finish()?;
        Ok(condition)
    }

    fn or(&mut self) -> PResult<Condition> {
        let mut left = self.and()?;
        while self.is_keyword(self.peek(), "OR") {
            self.advance();
            self.operators += 1;
            let right = self.and()?;
            left = Condition::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> PResult<Condition> {
        let mut left = self.not()?;
        while self.is_keyword(self.peek(), "AND") {
            self.advance();
            self.operators += 1;
            let right = self.not()?;
            left = Condition::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn not(&mut self) -> PResult<Condition> {
        if self.is_keyword(self.peek(), "NOT") {
            self.advance();
            self.operators += 1;
            let inner = self.not()?;
            return Ok(Condition::Not(Box::new(inner)));
        }
        self.primary()
    }

    /// The index of the token after the parenthesis that closes the one at `open`.
    fn after_matching_paren(&self, open: usize) -> usize {
        let mut depth = 0usize;
        let mut at = open;
        while at < self.toks.len() {
            match self.toks[at].kind {
                Tok::LParen => depth += 1,
                Tok::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        return at + 1;
                    }
                }
                Tok::Eof => return at,
                _ => {}
            }
            at += 1;
        }
        self.toks.len() - 1
    }

    fn starts_comparison(&self, tok: Token) -> bool {
        matches!(tok.kind, Tok::Eq | Tok::Ne | Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge)
            || self.is_keyword(tok, "BETWEEN")
            || self.is_keyword(tok, "IN")
    }

    fn primary(&mut self) -> PResult<Condition> {
        if self.peek().kind == Tok::LParen {
            let after = self.after_matching_paren(self.pos);
            let follower = self.toks[after.min(self.toks.len() - 1)];
            if !self.starts_comparison(follower) {
                // A parenthesized condition.
                let open = self.pos;
                self.advance();
                if self.peek().kind == Tok::LParen && self.after_matching_paren(open + 1) + 1 == after {
                    self.note(Slot::Parens, || "The expression has redundant parentheses;".into());
                }
                let inner = self.or()?;
                self.expect(Tok::RParen)?;
                return Ok(inner);
            }
        }
        self.comparison()
    }

    fn comparison(&mut self) -> PResult<Condition> {
        let left = self.raw_operand()?;
        let tok = self.peek();
        let op = match tok.kind {
            Tok::Eq => Some(CmpOp::Eq),
            Tok::Ne => Some(CmpOp::Ne),
            Tok::Lt => Some(CmpOp::Lt),
            Tok::Le => Some(CmpOp::Le),
            Tok::Gt => Some(CmpOp::Gt),
            Tok::Ge => Some(CmpOp::Ge),
            _ => None,
        };
        if let Some(op) = op {
            self.advance();
            let right = self.raw_operand()?;
            self.operators += 1;
            self.check_misused(&[&left, &right]);
            self.check_distinct(op.symbol(), &left, &right);
            if !matches!(op, CmpOp::Eq | CmpOp::Ne) {
                self.check_ordered(op.symbol(), &[&left, &right]);
            }
            let (l, r) = (self.operand(left), self.operand(right));
            return Ok(Condition::Compare(op, l, r));
        }
        if self.is_keyword(tok, "BETWEEN") {
            self.advance();
            let low = self.raw_operand()?;
            if !self.is_keyword(self.peek(), "AND") {
                return Err(self.syntax_error());
            }
            self.advance();
            let high = self.raw_operand()?;
            self.operators += 1;
            self.check_misused(&[&left, &low, &high]);
            self.check_ordered("BETWEEN", &[&left, &low, &high]);
            self.check_between(&low, &high);
            let (a, b, c) = (self.operand(left), self.operand(low), self.operand(high));
            return Ok(Condition::Between(a, b, c));
        }
        if self.is_keyword(tok, "IN") {
            self.advance();
            self.expect(Tok::LParen)?;
            let mut list = vec![self.raw_operand()?];
            while self.peek().kind == Tok::Comma {
                self.advance();
                list.push(self.raw_operand()?);
            }
            self.expect(Tok::RParen)?;
            self.operators += 1;
            let mut all: Vec<&Raw> = vec![&left];
            all.extend(list.iter());
            self.check_misused(&all);
            let subject = self.operand(left);
            let list = list.into_iter().map(|r| self.operand(r)).collect();
            return Ok(Condition::In(subject, list));
        }
        match left {
            Raw::Func { name, args } => self.condition_function(name, args),
            _ => Err(self.syntax_error()),
        }
    }

    /// A function used where a condition stands.
    fn condition_function(&mut self, name: String, args: Vec<Raw>) -> PResult<Condition> {
        self.check_misused(&args.iter().collect::<Vec<_>>());
        for arg in &args {
            if let Raw::Func { name, args } = arg {
                self.check_function_args(name, args);
            }
        }
        let arity = match name.as_str() {
            "attribute_exists" | "attribute_not_exists" => 1,
            "attribute_type" | "begins_with" | "contains" => 2,
            "size" => {
                self.check_function_args(&name, &args);
                self.note(Slot::MisusedFunction, || {
                    "The function is not allowed to be used this way in an expression; function: size".into()
                });
                return Ok(Condition::Exists(Path::new(Vec::new())));
            }
            "if_not_exists" | "list_append" => {
                self.note(Slot::UnknownFunction, || {
                    format!("The function is not allowed in a condition expression; function: {name}")
                });
                return Ok(Condition::Exists(Path::new(Vec::new())));
            }
            _ => {
                self.note(Slot::UnknownFunction, || format!("Invalid function name; function: {name}"));
                return Ok(Condition::Exists(Path::new(Vec::new())));
            }
        };
        if args.len() != arity {
            self.note(Slot::Operand, || {
                format!(
                    "Incorrect number of operands for operator or function; operator or function: {name}, number of operands: {}",
                    args.len()
                )
            });
            return Ok(Condition::Exists(Path::new(Vec::new())));
        }
        if args.len() == 2 {
            self.check_distinct(&name, &args[0], &args[1]);
        }
        let mut args = args.into_iter();
        let first = args.next().unwrap_or(Raw::Value(Value::Null));
        let second = args.next();
        Ok(match name.as_str() {
            "attribute_exists" | "attribute_not_exists" => {
                let Raw::Path(path) = first else {
                    self.note(Slot::Function, || {
                        format!("Operator or function requires a document path; operator or function: {name}")
                    });
                    return Ok(Condition::Exists(Path::new(Vec::new())));
                };
                if name == "attribute_exists" { Condition::Exists(path) } else { Condition::NotExists(path) }
            }
            "attribute_type" => {
                let second = second.unwrap_or(Raw::Value(Value::Null));
                match &second {
                    Raw::Value(Value::S(t)) => {
                        self.ctx.note_content_read();
                        if !["S", "N", "B", "NULL", "SS", "BOOL", "L", "BS", "NS", "M"].contains(&t.as_str()) {
                            self.note(Slot::Function, || {
                                format!(
                                    "Invalid attribute type name found; type: {t}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"
                                )
                            });
                        }
                    }
                    other => {
                        let shown = other.static_type().unwrap_or("{NS,SS,L,BS,N,M,B,BOOL,NULL,S}");
                        self.note(Slot::Function, || {
                            format!(
                                "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {shown}"
                            )
                        });
                    }
                }
                Condition::AttributeType(self.operand(first), self.operand(second))
            }
            "begins_with" => {
                let second = second.unwrap_or(Raw::Value(Value::Null));
                for arg in [&first, &second] {
                    if let Some(t) = arg.static_type()
                        && t != "S"
                        && t != "B"
                    {
                        self.note(Slot::Function, || {
                            format!(
                                "Incorrect operand type for operator or function; operator or function: begins_with, operand type: {t}"
                            )
                        });
                    }
                }
                Condition::BeginsWith(self.operand(first), self.operand(second))
            }
            _ => {
                let second = second.unwrap_or(Raw::Value(Value::Null));
                Condition::Contains(self.operand(first), self.operand(second))
            }
        })
    }

    /// Turns a raw operand into an operand, checking the functions an operand may be.
    fn operand(&mut self, raw: Raw) -> Operand {
        match raw {
            Raw::Path(p) => Operand::Path(p),
            Raw::Value(v) => Operand::Value(v),
            Raw::Func { name, args } => {
                self.check_function_args(&name, &args);
                match (name.as_str(), args.into_iter().next()) {
                    ("size", Some(arg)) => Operand::Size(Box::new(self.operand(arg))),
                    _ => Operand::Value(Value::Null),
                }
            }
        }
    }

    /// The checks of a function used as an operand (only `size` may be one).
    fn check_function_args(&mut self, name: &str, args: &[Raw]) {
        match name {
            "size" => {
                if args.len() != 1 {
                    self.note(Slot::Operand, || {
                        format!(
                            "Incorrect number of operands for operator or function; operator or function: size, number of operands: {}",
                            args.len()
                        )
                    });
                    return;
                }
                if let Some(t) = args[0].static_type()
                    && matches!(t, "N" | "BOOL" | "NULL")
                {
                    self.note(Slot::Function, || {
                        format!("Incorrect operand type for operator or function; operator or function: size, operand type: {t}")
                    });
                }
            }
            "attribute_exists" | "attribute_not_exists" | "attribute_type" | "begins_with" | "contains" => self
                .note(Slot::MisusedFunction, || {
                    format!("The function is not allowed to be used this way in an expression; function: {name}")
                }),
            "if_not_exists" | "list_append" => self.note(Slot::UnknownFunction, || {
                format!("The function is not allowed in a condition expression; function: {name}")
            }),
            _ => self.note(Slot::UnknownFunction, || format!("Invalid function name; function: {name}")),
        }
    }

    fn check_misused(&mut self, operands: &[&Raw]) {
        for raw in operands {
            if let Raw::Func { name, .. } = raw
                && name != "size"
            {
                let name = name.clone();
                self.note(Slot::MisusedFunction, || {
                    format!("The function is not allowed to be used this way in an expression; function: {name}")
                });
                return;
            }
        }
    }

    fn check_distinct(&mut self, operator: &str, first: &Raw, second: &Raw) {
        if let (Raw::Path(a), Raw::Path(b)) = (first, second)
            && a == b
        {
            self.note(Slot::Distinct, || {
                format!(
                    "The first operand must be distinct from the remaining operands for this operator or function; operator: {operator}, first operand: {a}"
                )
            });
        }
    }

    /// An ordering (`<`, `<=`, `>`, `>=`, BETWEEN) of a constant that has no order (a list, a
    /// map, a set, a boolean, null) is refused, not merely false as an item's value would be.
    fn check_ordered(&mut self, operator: &str, operands: &[&Raw]) {
        let unordered = operands.iter().find_map(|raw| match raw {
            Raw::Value(v) if !matches!(v, Value::S(_) | Value::N(_) | Value::B(_)) => Some(v.type_name()),
            _ => None,
        });
        if let Some(t) = unordered {
            self.note(Slot::Function, || {
                format!("Incorrect operand type for operator or function; operator or function: {operator}, operand type: {t}")
            });
        }
    }

    fn check_between(&mut self, low: &Raw, high: &Raw) {
        let (Raw::Value(a), Raw::Value(b)) = (low, high) else { return };
        self.ctx.note_content_read();
        let shown = |v: &Value| format!("AttributeValue: {{{}:{}}}", v.type_name(), scalar_text(v));
        if a.type_name() != b.type_name() {
            let message = format!(
                "The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: {}, upper bound operand: {}",
                shown(a),
                shown(b)
            );
            self.note(Slot::Function, || message);
        } else if a.compare(b) == Some(std::cmp::Ordering::Greater) {
            let message = format!(
                "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: {}, upper bound operand: {}",
                shown(a),
                shown(b)
            );
            self.note(Slot::Function, || message);
        }
    }

    // ---- updates ----

    /// Parses a whole update expression.
    pub(crate) fn parse_update(mut self) -> PResult<Vec<UpdateAction>> {
        self.start()?;
        let mut actions = Vec::new();
        loop {
            let tok = self.peek();
            let section = if self.is_keyword(tok, "SET") {
                "SET"
            } else if self.is_keyword(tok, "REMOVE") {
                "REMOVE"
            } else if self.is_keyword(tok, "ADD") {
                "ADD"
            } else if self.is_keyword(tok, "DELETE") {
                "DELETE"
            } else {
                return Err(self.syntax_error());
            };
            self.advance();
            loop {
                actions.push(self.update_action(section)?);
                if self.peek().kind == Tok::Comma {
                    self.advance();
                } else {
                    break;
                }
            }
            if self.sections.contains(&section) {
                self.note(Slot::Section, || {
                    format!("The \"{section}\" section can only be used once in an update expression;")
                });
            }
            self.sections.push(section);
            if self.peek().kind == Tok::Eof {
                break;
            }
        }
        self.finish()?;
        Ok(actions)
    }

    fn update_action(&mut self, section: &'static str) -> PResult<UpdateAction> {
        let path = self.path()?;
        let action = match section {
            "SET" => {
                self.expect(Tok::Eq)?;
                let value = if self.peek().kind == Tok::LParen && self.paren_wraps_set_value() {
                    self.advance();
                    let v = self.set_value()?;
                    self.expect(Tok::RParen)?;
                    v
                } else {
                    self.set_value()?
                };
                UpdateAction::Set(path.clone(), value)
            }
            "REMOVE" => UpdateAction::Remove(path.clone()),
            _ => {
                let value = self.value_placeholder()?;
                let bad = match &value {
                    Value::S(_) => Some("STRING"),
                    Value::N(_) if section == "DELETE" => Some("NUMBER"),
                    Value::B(_) => Some("BINARY"),
                    Value::Null => Some("NULL"),
                    Value::Bool(_) => Some("BOOLEAN"),
                    Value::L(_) => Some("LIST"),
                    Value::M(_) => Some("MAP"),
                    _ => None,
                };
                if let Some(kind) = bad {
                    self.note(Slot::Operand, || {
                        format!(
                            "Incorrect operand type for operator or function; operator: {section}, operand type: {kind}"
                        )
                    });
                }
                if section == "ADD" {
                    UpdateAction::Add(path.clone(), value)
                } else {
                    UpdateAction::Delete(path.clone(), value)
                }
            }
        };
        self.check_update_path(path);
        Ok(action)
    }

    /// True when the parenthesis at the current token encloses the whole right-hand side.
    fn paren_wraps_set_value(&self) -> bool {
        let after = self.after_matching_paren(self.pos);
        let follower = self.toks[after.min(self.toks.len() - 1)];
        !matches!(follower.kind, Tok::Plus | Tok::Minus)
    }

    fn check_update_path(&mut self, path: Path) {
        let mut found: Vec<(Slot, String)> = Vec::new();
        for earlier in &self.update_paths {
            let shared = earlier.0.len().min(path.0.len());
            let mut diverged = false;
            for i in 0..shared {
                let (a, b) = (&earlier.0[i], &path.0[i]);
                let same_kind =
                    matches!((a, b), (PathElem::Name(_), PathElem::Name(_)) | (PathElem::Index(_), PathElem::Index(_)));
                if !same_kind {
                    found.push((
                        Slot::PathConflict,
                        format!(
                            "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: {earlier}, path two: {path}"
                        ),
                    ));
                    diverged = true;
                    break;
                }
                if a != b {
                    diverged = true;
                    break;
                }
            }
            if !diverged {
                found.push((
                    Slot::PathOverlap,
                    format!(
                        "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: {earlier}, path two: {path}"
                    ),
                ));
            }
        }
        for (slot, message) in found {
            self.note(slot, || message);
        }
        self.update_paths.push(path);
    }

    fn set_value(&mut self) -> PResult<SetValue> {
        let first = self.update_operand()?;
        match self.peek().kind {
            Tok::Plus | Tok::Minus => {
                let plus = self.advance().kind == Tok::Plus;
                let second = self.update_operand()?;
                self.operators += 1;
                let symbol = if plus { "+" } else { "-" };
                for operand in [&first, &second] {
                    if let UpdateOperand::Value(v) = operand
                        && !matches!(v, Value::N(_))
                    {
                        let kind = v.type_name();
                        self.note(Slot::Function, || {
                            format!(
                                "Incorrect operand type for operator or function; operator or function: {symbol}, operand type: {kind}"
                            )
                        });
                    }
                }
                Ok(if plus { SetValue::Plus(first, second) } else { SetValue::Minus(first, second) })
            }
            _ => Ok(SetValue::Operand(first)),
        }
    }

    fn update_operand(&mut self) -> PResult<UpdateOperand> {
        let tok = self.peek();
        match tok.kind {
            Tok::LParen => {
                self.advance();
                let inner = self.update_operand()?;
                self.expect(Tok::RParen)?;
                Ok(inner)
            }
            Tok::ValuePlaceholder => Ok(UpdateOperand::Value(self.value_placeholder()?)),
            Tok::Ident if self.peek_at(1).kind == Tok::LParen && !self.is_language_keyword(tok) => {
                let name = self.text(tok);
                self.advance();
                self.advance();
                let mut args = vec![self.update_operand()?];
                while self.peek().kind == Tok::Comma {
                    self.advance();
                    args.push(self.update_operand()?);
                }
                self.expect(Tok::RParen)?;
                self.operators += 1;
                self.update_function(name, args)
            }
            Tok::Ident | Tok::NamePlaceholder => Ok(UpdateOperand::Path(self.path()?)),
            _ => Err(self.syntax_error()),
        }
    }

    fn update_function(&mut self, name: &str, args: Vec<UpdateOperand>) -> PResult<UpdateOperand> {
        let placeholder = UpdateOperand::Value(Value::Null);
        match name {
            "if_not_exists" | "list_append" => {}
            "attribute_exists" | "attribute_not_exists" | "attribute_type" | "begins_with" | "contains" | "size" => {
                self.note(Slot::UnknownFunction, || {
                    format!("The function is not allowed in an update expression; function: {name}")
                });
                return Ok(placeholder);
            }
            _ => {
                self.note(Slot::UnknownFunction, || format!("Invalid function name; function: {name}"));
                return Ok(placeholder);
            }
        }
        if args.len() != 2 {
            self.note(Slot::Function, || {
                format!(
                    "Incorrect number of operands for operator or function; operator or function: {name}, number of operands: {}",
                    args.len()
                )
            });
            return Ok(placeholder);
        }
        let mut args = args.into_iter();
        let (first, second) = match (args.next(), args.next()) {
            (Some(a), Some(b)) => (a, b),
            _ => return Ok(placeholder),
        };
        if name == "if_not_exists" {
            let UpdateOperand::Path(path) = first else {
                self.note(Slot::Function, || {
                    "Operator or function requires a document path; operator or function: if_not_exists".into()
                });
                return Ok(placeholder);
            };
            return Ok(UpdateOperand::IfNotExists(path, Box::new(second)));
        }
        // DynamoDB parses list_append within list_append, then refuses it.
        if [&first, &second].iter().any(|operand| matches!(operand, UpdateOperand::ListAppend(..))) {
            self.note(Slot::Function, || {
                "The function is not allowed to be used this way in an expression; function: list_append".into()
            });
        }
        for operand in [&first, &second] {
            if let UpdateOperand::Value(v) = operand
                && !matches!(v, Value::L(_))
            {
                let kind = v.type_name();
                self.note(Slot::Function, || {
                    format!(
                        "Incorrect operand type for operator or function; operator or function: list_append, operand type: {kind}"
                    )
                });
            }
        }
        Ok(UpdateOperand::ListAppend(Box::new(first), Box::new(second)))
    }

    // ---- projections ----

    /// Parses a projection expression: paths separated by commas.
    pub(crate) fn parse_projection(mut self) -> PResult<Vec<Path>> {
        self.start()?;
        let mut paths = Vec::new();
        loop {
            let path = self.path()?;
            paths.push(path.clone());
            self.check_update_path(path);
            if self.peek().kind == Tok::Comma {
                self.advance();
            } else {
                break;
            }
        }
        self.expect_eof()?;
        self.finish()?;
        Ok(paths)
    }
}

/// The text of a scalar value as DynamoDB shows it in messages.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::S(s) => s.clone(),
        Value::N(n) => n.to_string(),
        Value::B(b) => aws_smithy_types::base64::encode(b),
        Value::Bool(b) => b.to_string(),
        other => other.type_name().to_owned(),
    }
}

/// Counts the operators and functions of a token stream, as the parse would, so that a hopeless
/// expression is refused before a deep parse: comparisons, BETWEEN, IN, function calls, `+` and
/// `-`, and in conditions AND, OR and NOT (less the AND that belongs to each BETWEEN).
fn count_operators(src: &str, toks: &[Token], language: Language) -> usize {
    let word = |tok: &Token, w: &str| tok.kind == Tok::Ident && src[tok.start..tok.end].eq_ignore_ascii_case(w);
    let mut count = 0usize;
    let mut betweens = 0usize;
    let mut logical = 0usize;
    for (i, tok) in toks.iter().enumerate() {
        match tok.kind {
            Tok::Eq | Tok::Ne | Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge | Tok::Plus | Tok::Minus => count += 1,
            Tok::Ident if language == Language::Condition && word(tok, "BETWEEN") => {
                count += 1;
                betweens += 1;
            }
            Tok::Ident if language == Language::Condition && word(tok, "IN") => count += 1,
            Tok::Ident
                if language == Language::Condition && (word(tok, "AND") || word(tok, "OR") || word(tok, "NOT")) =>
            {
                logical += 1
            }
            Tok::Ident if toks.get(i + 1).is_some_and(|next| next.kind == Tok::LParen) => count += 1,
            _ => {}
        }
    }
    count + logical.saturating_sub(betweens)
}
