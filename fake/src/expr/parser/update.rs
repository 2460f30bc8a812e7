//! The update language: SET, REMOVE, ADD and DELETE clauses, their values and functions, and the
//! checks of the paths they write.

use super::{PResult, Parser, Slot};
use crate::expr::ast::{Path, PathElem, SetValue, UpdateAction, UpdateOperand};
use crate::expr::lexer::Tok;
use crate::value::Value;

impl<'a, 'r> Parser<'a, 'r> {
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

    pub(super) fn check_update_path(&mut self, path: Path) {
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
}
