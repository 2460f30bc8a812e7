//! The placeholders of one request: `ExpressionAttributeNames`, `ExpressionAttributeValues`, and
//! which of them its expressions used.

use crate::error::DynamoError;
use crate::value::Value;

/// The placeholders a request defines, sorted by placeholder, and which of them its expressions
/// have used so far.
#[derive(Debug, Default)]
pub(crate) struct ExprContext {
    names: Vec<(String, String)>,
    values: Vec<(String, Value)>,
    used_names: Vec<bool>,
    used_values: Vec<bool>,
}

/// `pairs` sorted by their first member, for lookups by binary search.
fn sorted<T>(pairs: impl IntoIterator<Item = (String, T)>) -> Vec<(String, T)> {
    let mut pairs: Vec<(String, T)> = pairs.into_iter().collect();
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    pairs
}

fn find<T>(pairs: &[(String, T)], placeholder: &str) -> Option<usize> {
    pairs.binary_search_by(|(key, _)| key.as_str().cmp(placeholder)).ok()
}

impl ExprContext {
    /// A context of the placeholders `names` and `values`, each named once.
    pub(crate) fn new(
        names: impl IntoIterator<Item = (String, String)>,
        values: impl IntoIterator<Item = (String, Value)>,
    ) -> Self {
        let (names, values) = (sorted(names), sorted(values));
        ExprContext { used_names: vec![false; names.len()], used_values: vec![false; values.len()], names, values }
    }

    /// The attribute name behind `#placeholder`, marking it used.
    pub(crate) fn name(&mut self, placeholder: &str) -> Option<String> {
        let at = find(&self.names, placeholder)?;
        self.used_names[at] = true;
        Some(self.names[at].1.clone())
    }

    /// The value behind `:placeholder`, marking it used.
    pub(crate) fn value(&mut self, placeholder: &str) -> Option<Value> {
        let at = find(&self.values, placeholder)?;
        self.used_values[at] = true;
        Some(self.values[at].1.clone())
    }

    /// DynamoDB's error for placeholders that no expression of the request used.
    pub(crate) fn check_unused(&self) -> Result<(), DynamoError> {
        let unused_names: Vec<&str> =
            self.names.iter().zip(&self.used_names).filter(|(_, used)| !**used).map(|((k, _), _)| k.as_str()).collect();
        if !unused_names.is_empty() {
            return Err(DynamoError::validation(format!(
                "Value provided in ExpressionAttributeNames unused in expressions: keys: {{{}}}",
                unused_names.join(", ")
            )));
        }
        let unused_values: Vec<&str> = self
            .values
            .iter()
            .zip(&self.used_values)
            .filter(|(_, used)| !**used)
            .map(|((k, _), _)| k.as_str())
            .collect();
        if !unused_values.is_empty() {
            return Err(DynamoError::validation(format!(
                "Value provided in ExpressionAttributeValues unused in expressions: keys: {{{}}}",
                unused_values.join(", ")
            )));
        }
        Ok(())
    }
}
