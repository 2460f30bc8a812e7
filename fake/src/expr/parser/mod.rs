//! The parsers of the four expression languages (condition, update, projection and, through the
//! condition parser, key conditions). Syntax errors stop the parse at once; the other mistakes are
//! collected while parsing and the most important one is reported, as DynamoDB does.
//!
//! This file holds what the languages share (tokens, paths, placeholders, operands, the
//! collected mistakes) and the projection language; the conditions are in `condition.rs`, the
//! updates in `update.rs`.

mod condition;
mod update;

use super::ast::{Path, PathElem};
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
    ListIndex,
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
                Slot::ListIndex,
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
                Slot::ListIndex,
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
            Language::Projection => {
                &[Slot::ListIndex, Slot::Reserved, Slot::AttrName, Slot::PathOverlap, Slot::PathConflict]
            }
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
        DynamoError::validation(format!("Invalid {}: {detail}", self.label)).about_the_request()
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
                    // DynamoDB reads an index as a 32-bit integer and refuses a larger one once the
                    // text parsed.
                    let digits = self.text(tok);
                    let index = match digits.parse::<i32>() {
                        Ok(i) => i as usize,
                        Err(_) => {
                            self.note(Slot::ListIndex, || {
                                format!("List index is not within the allowable range; index: [{digits}]")
                            });
                            0
                        }
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
