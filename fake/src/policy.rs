//! Resource policies: the policy document of a table or its stream, kept with a revision id, and
//! DynamoDB's checks of a document. The fake keeps and checks policies; it does not enforce them.

use std::time::SystemTime;

use crate::error::DynamoError;

/// The largest policy document DynamoDB takes: 20 KB, whitespace counted.
pub(crate) const MAX_POLICY_BYTES: usize = 20 * 1024;

/// A resource policy and its revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Policy {
    /// The document, as it was given.
    pub(crate) document: String,
    /// Its revision id: the time it was put, in milliseconds since the epoch, so that revision ids
    /// of one resource compare as their times do.
    pub(crate) revision: String,
}

impl Policy {
    /// A policy put at `now` in place of one of revision `previous` (if any): its revision id is
    /// the time in milliseconds, later than the previous one's by at least one.
    pub(crate) fn new(document: &str, now: SystemTime, previous: Option<&Policy>) -> Policy {
        let millis = now.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
        let after = previous.and_then(|p| p.revision.parse::<u128>().ok()).map_or(0, |r| r + 1);
        Policy { document: document.to_owned(), revision: millis.max(after).to_string() }
    }
}

/// DynamoDB's refusal of a policy document it would not attach, if `document` is one: more than
/// 20 KB, not a JSON object, or without a statement.
pub(crate) fn check(document: &str) -> Result<(), DynamoError> {
    let invalid = |why: &str| Err(DynamoError::invalid_parameter(format!("Invalid policy document: {why}")));
    if document.len() > MAX_POLICY_BYTES {
        return invalid(&format!(
            "The policy document is {} bytes long, more than the largest allowed, {MAX_POLICY_BYTES} bytes (20 KB)",
            document.len()
        ));
    }
    let parsed: serde_json::Value = match serde_json::from_str(document) {
        Ok(parsed) => parsed,
        Err(_) => return invalid("The policy document is not valid JSON"),
    };
    let Some(policy) = parsed.as_object() else {
        return invalid("The policy document must be a JSON object");
    };
    let statements = match policy.get("Statement") {
        Some(serde_json::Value::Array(statements)) => statements.len(),
        Some(serde_json::Value::Object(_)) => 1,
        _ => 0,
    };
    if statements == 0 {
        return invalid("The policy document must have at least one Statement");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_revision_follows_the_clock_and_always_grows() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        let first = Policy::new("{}", at, None);
        assert_eq!(first.revision, "1700000000123");
        let second = Policy::new("{}", at, Some(&first));
        assert_eq!(second.revision, "1700000000124");
    }

    #[test]
    fn a_document_needs_json_a_statement_and_at_most_20_kb() {
        assert!(check(r#"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow"}]}"#).is_ok());
        assert!(check(r#"{"Statement": {"Effect": "Allow"}}"#).is_ok());
        let refused = |document: &str| check(document).unwrap_err().message;
        assert!(refused("not json").ends_with("not valid JSON"));
        assert!(refused(r#"{"Statement": []}"#).ends_with("at least one Statement"));
        assert!(refused("[1]").ends_with("a JSON object"));
        let large = format!(r#"{{"Statement": [{{"Sid": "{}"}}]}}"#, "x".repeat(MAX_POLICY_BYTES));
        assert!(refused(&large).contains("20 KB"));
    }
}
