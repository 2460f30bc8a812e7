//! DynamoDB's expression languages: condition (and filter, key condition), update and projection.
//!
//! - [`lexer`] splits the text into tokens,
//! - [`parser`] parses it with DynamoDB's checks into the forms of [`ast`],
//! - [`eval`] evaluates conditions, [`update`] applies updates, [`project`] selects paths,
//! - [`context`] holds a request's placeholders and notices unused ones,
//! - [`cache`] keeps successful parses for requests that repeat an expression with other values.

pub(crate) mod ast;
pub(crate) mod cache;
pub(crate) mod context;
pub(crate) mod eval;
pub(crate) mod lexer;
pub(crate) mod parser;
pub(crate) mod project;
pub(crate) mod reserved;
pub(crate) mod update;

use ast::{Condition, Path, UpdateAction};
use context::ExprContext;
use parser::{Language, Parser};

use crate::error::DynamoError;

/// Parses a condition expression; `label` names the parameter in errors (`ConditionExpression`, ...).
pub(crate) fn parse_condition(
    text: &str,
    label: &'static str,
    ctx: &mut ExprContext<'_>,
) -> Result<Condition, DynamoError> {
    cache::parse_through(&cache::CONDITIONS, text, Language::Condition, label, ctx, |ctx| {
        Parser::new(text, label, Language::Condition, ctx).parse_condition()
    })
}

/// [`parse_condition`] for a condition that is only evaluated, as a write's is: a request that
/// repeats a kept parse shares its tree ([`cache::BoundCondition`]).
pub(crate) fn parse_condition_bound(
    text: &str,
    label: &'static str,
    ctx: &mut ExprContext<'_>,
) -> Result<cache::BoundCondition, DynamoError> {
    cache::parse_bound(text, label, ctx, |ctx| Parser::new(text, label, Language::Condition, ctx).parse_condition())
}

/// Parses a KeyConditionExpression: the condition grammar, with mistakes reported in the order
/// they appear. Whether it is a valid key condition is for the Query to decide.
pub(crate) fn parse_key_condition(text: &str, ctx: &mut ExprContext<'_>) -> Result<Condition, DynamoError> {
    Parser::new(text, "KeyConditionExpression", Language::Condition, ctx).reporting_in_order().parse_condition()
}

/// Parses an update expression.
pub(crate) fn parse_update(text: &str, ctx: &mut ExprContext<'_>) -> Result<Vec<UpdateAction>, DynamoError> {
    cache::parse_through(&cache::UPDATES, text, Language::Update, "UpdateExpression", ctx, |ctx| {
        Parser::new(text, "UpdateExpression", Language::Update, ctx).parse_update()
    })
}

/// Parses a projection expression.
pub(crate) fn parse_projection(text: &str, ctx: &mut ExprContext<'_>) -> Result<Vec<Path>, DynamoError> {
    Parser::new(text, "ProjectionExpression", Language::Projection, ctx).parse_projection()
}
