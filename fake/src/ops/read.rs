//! Query, Scan, BatchGetItem and BatchWriteItem.

use serde_json::Value as Json;

use crate::engine::Engine;
use crate::error::DynamoError;

/// Answers the read-side operations.
pub(crate) fn dispatch(engine: &mut Engine, operation: &str, body: &Json) -> Result<Json, DynamoError> {
    let _ = (engine, body);
    Err(DynamoError::validation(format!("{operation} is not supported yet by dynalease-fake")))
}
