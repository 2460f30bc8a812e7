//! The placeholders of one request: `ExpressionAttributeNames`, `ExpressionAttributeValues`, and
//! which of them its expressions used.

use crate::error::DynamoError;
use crate::value::Value;

/// The placeholders a request defines, sorted by placeholder, and which of them its expressions
/// have used so far. The placeholders and names are borrowed from the request.
#[derive(Debug, Default)]
pub(crate) struct ExprContext<'r> {
    names: Vec<(&'r str, &'r str)>,
    values: Vec<(&'r str, Value)>,
    /// Whether each name, then each value, was used.
    used: Vec<bool>,
    recording: Option<Recording>,
}

/// What one parse took from the context, for [`super::cache`]: the names it resolved, the values
/// in the order it took them, and whether a check of the parse looked into a value beyond its type.
#[derive(Debug, Default)]
pub(crate) struct Recording {
    pub(crate) names: Vec<usize>,
    pub(crate) values: Vec<usize>,
    pub(crate) read_content: bool,
}

/// `pairs` sorted by their first member, for lookups by binary search.
fn sorted<'r, T>(pairs: impl IntoIterator<Item = (&'r str, T)>) -> Vec<(&'r str, T)> {
    let mut pairs: Vec<(&str, T)> = pairs.into_iter().collect();
    // Requests name their placeholders in order more often than not.
    if !pairs.is_sorted_by(|a, b| a.0 <= b.0) {
        pairs.sort_by(|a, b| a.0.cmp(b.0));
    }
    pairs
}

fn find<T>(pairs: &[(&str, T)], placeholder: &str) -> Option<usize> {
    pairs.binary_search_by(|(key, _)| (*key).cmp(placeholder)).ok()
}

impl<'r> ExprContext<'r> {
    /// A context of the placeholders `names` and `values`, each named once.
    pub(crate) fn new(
        names: impl IntoIterator<Item = (&'r str, &'r str)>,
        values: impl IntoIterator<Item = (&'r str, Value)>,
    ) -> Self {
        let (names, values) = (sorted(names), sorted(values));
        ExprContext { used: vec![false; names.len() + values.len()], names, values, recording: None }
    }

    /// The attribute name behind `#placeholder`, marking it used.
    pub(crate) fn name(&mut self, placeholder: &str) -> Option<String> {
        let at = find(&self.names, placeholder)?;
        self.use_name(at);
        if let Some(recording) = &mut self.recording {
            recording.names.push(at);
        }
        Some(self.names[at].1.to_owned())
    }

    /// The value behind `:placeholder`, marking it used.
    pub(crate) fn value(&mut self, placeholder: &str) -> Option<Value> {
        let at = find(&self.values, placeholder)?;
        self.use_value(at);
        if let Some(recording) = &mut self.recording {
            recording.values.push(at);
        }
        Some(self.values[at].1.clone())
    }

    /// Tells the recording, if any, that a check looked into a value beyond its type (a BETWEEN's
    /// bounds, the type name of `attribute_type`): a parse that did cannot be reused for other values.
    pub(crate) fn note_content_read(&mut self) {
        if let Some(recording) = &mut self.recording {
            recording.read_content = true;
        }
    }

    /// Starts recording what the parses take from the context.
    pub(crate) fn record(&mut self) {
        self.recording = Some(Recording::default());
    }

    /// Stops recording and gives what was recorded.
    pub(crate) fn take_recording(&mut self) -> Recording {
        self.recording.take().unwrap_or_default()
    }

    /// The names, sorted by placeholder.
    pub(crate) fn names(&self) -> &[(&'r str, &'r str)] {
        &self.names
    }

    /// The values, sorted by placeholder.
    pub(crate) fn values(&self) -> &[(&'r str, Value)] {
        &self.values
    }

    /// Marks the name at `at` (an index into [`names`](Self::names)) used.
    pub(crate) fn use_name(&mut self, at: usize) {
        if at < self.names.len() {
            self.used[at] = true;
        }
    }

    /// Marks the value at `at` (an index into [`values`](Self::values)) used.
    pub(crate) fn use_value(&mut self, at: usize) {
        if at < self.values.len() {
            self.used[self.names.len() + at] = true;
        }
    }

    /// DynamoDB's error for placeholders that no expression of the request used.
    pub(crate) fn check_unused(&self) -> Result<(), DynamoError> {
        let (used_names, used_values) = self.used.split_at(self.names.len());
        let unused_names: Vec<&str> =
            self.names.iter().zip(used_names).filter(|(_, used)| !**used).map(|((k, _), _)| *k).collect();
        if !unused_names.is_empty() {
            return Err(DynamoError::validation(format!(
                "Value provided in ExpressionAttributeNames unused in expressions: keys: {{{}}}",
                unused_names.join(", ")
            ))
            .about_the_request());
        }
        let unused_values: Vec<&str> =
            self.values.iter().zip(used_values).filter(|(_, used)| !**used).map(|((k, _), _)| *k).collect();
        if !unused_values.is_empty() {
            return Err(DynamoError::validation(format!(
                "Value provided in ExpressionAttributeValues unused in expressions: keys: {{{}}}",
                unused_values.join(", ")
            ))
            .about_the_request());
        }
        Ok(())
    }
}
