//! The placeholders of one request: `ExpressionAttributeNames`, `ExpressionAttributeValues`, and
//! which of them its expressions used.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::DynamoError;
use crate::value::Value;

/// The placeholders a request defines and the ones its expressions have used so far.
#[derive(Debug, Default)]
pub(crate) struct ExprContext {
    pub(crate) names: BTreeMap<String, String>,
    pub(crate) values: BTreeMap<String, Value>,
    used_names: BTreeSet<String>,
    used_values: BTreeSet<String>,
}

impl ExprContext {
    pub(crate) fn new(names: BTreeMap<String, String>, values: BTreeMap<String, Value>) -> Self {
        ExprContext { names, values, used_names: BTreeSet::new(), used_values: BTreeSet::new() }
    }

    /// The attribute name behind `#placeholder`, marking it used.
    pub(crate) fn name(&mut self, placeholder: &str) -> Option<String> {
        let name = self.names.get(placeholder)?.clone();
        if !self.used_names.contains(placeholder) {
            self.used_names.insert(placeholder.to_owned());
        }
        Some(name)
    }

    /// The value behind `:placeholder`, marking it used.
    pub(crate) fn value(&mut self, placeholder: &str) -> Option<Value> {
        let value = self.values.get(placeholder)?.clone();
        if !self.used_values.contains(placeholder) {
            self.used_values.insert(placeholder.to_owned());
        }
        Some(value)
    }

    /// DynamoDB's error for placeholders that no expression of the request used.
    pub(crate) fn check_unused(&self) -> Result<(), DynamoError> {
        let unused_names: Vec<&str> =
            self.names.keys().filter(|k| !self.used_names.contains(*k)).map(String::as_str).collect();
        if !unused_names.is_empty() {
            return Err(DynamoError::validation(format!(
                "Value provided in ExpressionAttributeNames unused in expressions: keys: {{{}}}",
                unused_names.join(", ")
            )));
        }
        let unused_values: Vec<&str> =
            self.values.keys().filter(|k| !self.used_values.contains(*k)).map(String::as_str).collect();
        if !unused_values.is_empty() {
            return Err(DynamoError::validation(format!(
                "Value provided in ExpressionAttributeValues unused in expressions: keys: {{{}}}",
                unused_values.join(", ")
            )));
        }
        Ok(())
    }
}
