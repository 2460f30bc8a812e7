//! The condition language: OR, AND and NOT over comparisons, BETWEEN, IN and the functions, with
//! the checks DynamoDB makes of their operands (key conditions are parsed here too).

use super::{PResult, Parser, Raw, Slot, scalar_text};
use crate::expr::ast::{CmpOp, Condition, Operand, Path};
use crate::expr::lexer::{Tok, Token};
use crate::value::Value;

impl<'a, 'r> Parser<'a, 'r> {
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
            for item in &list {
                self.check_distinct("IN", &left, item);
            }
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
}
