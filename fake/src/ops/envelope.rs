//! The refusals that PutItem, UpdateItem and DeleteItem report inside DynamoDB's
//! `1 validation error detected: ` envelope, though other operations report them bare.
//!
//! moto's tests that are verified against DynamoDB show it: on the three single-item writes, an
//! unused placeholder, an empty placeholder map, an empty set value, and the rules an update
//! expression breaks once it parses (an empty expression, a section given twice, paths that
//! overlap or conflict) all come enveloped; on Scan, GetItem, Query, BatchGetItem and the
//! transactions the same texts come bare. A syntax error, a key that does not match the schema
//! and an oversized key stay bare on the single-item writes too.

use crate::error::DynamoError;

/// The starts of the messages the single-item writes envelope.
const ENVELOPED: [&str; 10] = [
    "Value provided in ExpressionAttributeNames unused in expressions",
    "Value provided in ExpressionAttributeValues unused in expressions",
    "ExpressionAttributeNames must not be empty",
    "ExpressionAttributeValues must not be empty",
    "Invalid UpdateExpression: The expression can not be empty;",
    "Invalid UpdateExpression: Two document paths",
    "Invalid UpdateExpression: The \"",
    "One or more parameter values were invalid: An string set  may not be empty",
    "One or more parameter values were invalid: An number set  may not be empty",
    "One or more parameter values were invalid: Binary sets should not be empty",
];

/// True for the refusal of an empty set value.
pub(crate) fn is_empty_set(message: &str) -> bool {
    message.ends_with("set  may not be empty") || message.ends_with("Binary sets should not be empty")
}

/// The error as PutItem, UpdateItem or DeleteItem reports it.
pub(crate) fn single_write(error: DynamoError) -> DynamoError {
    if ENVELOPED.iter().any(|start| error.message.starts_with(start)) {
        DynamoError { message: format!("1 validation error detected: {}", error.message), ..error }
    } else {
        error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_listed_refusals_are_enveloped() {
        let unused =
            DynamoError::validation("Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}");
        assert_eq!(
            single_write(unused).message,
            "1 validation error detected: Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}"
        );
        let syntax = DynamoError::validation("Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \",\"");
        assert_eq!(single_write(syntax.clone()).message, syntax.message);
        let enveloped = DynamoError::validation("1 validation error detected: Value provided in x");
        assert_eq!(single_write(enveloped.clone()).message, enveloped.message);
    }
}
