//! `TransactWriteItems` and `TransactGetItems`: one action per item, and the expression
//! parameters of each action.

use super::expressions::{Parameters, check_parameters};
use super::{Object, items, object, objects, refuse};
use crate::error::DynamoError;
use crate::validate::schema::transact::WRITE_ACTIONS;

/// `TransactWriteItems` before the values are read.
pub(crate) fn write(request: &Object<'_>) -> Result<(), DynamoError> {
    for item in objects(request, "TransactItems") {
        let mut actions = WRITE_ACTIONS.iter().filter_map(|name| object(item, name).map(|action| (*name, action)));
        let Some((name, action)) = actions.next() else {
            return refuse("The action or operation requested is invalid. Verify that the action is typed correctly.");
        };
        if actions.next().is_some() {
            return refuse("TransactItems can only contain one of Check, Put, Update or Delete");
        }
        let expressions: &'static [&'static str] = match name {
            "Update" => &["UpdateExpression", "ConditionExpression"],
            _ => &["ConditionExpression"],
        };
        check_parameters(action, Parameters { expressions, legacy: &[], names_null_expressions: true })?;
    }
    Ok(())
}

/// `TransactGetItems` before the keys are read.
pub(crate) fn get(request: &Object<'_>) -> Result<(), DynamoError> {
    objects(request, "TransactItems").filter_map(|item| object(item, "Get")).try_for_each(items::projection)
}
