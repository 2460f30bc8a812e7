//! The rules of the Streams operations that the schema cannot say.

use super::{Object, invalid, text};
use crate::error::DynamoError;

/// `GetShardIterator`: a sequence number with the iterator types that start at one, and only
/// with them.
pub(crate) fn get_shard_iterator(request: &Object<'_>) -> Result<(), DynamoError> {
    let kind = text(request, "ShardIteratorType").unwrap_or_default();
    let needs_number = matches!(kind, "AT_SEQUENCE_NUMBER" | "AFTER_SEQUENCE_NUMBER");
    match text(request, "SequenceNumber") {
        None if needs_number => invalid(format_args!("SequenceNumber is required when ShardIteratorType is {kind}")),
        Some(_) if !needs_number => {
            invalid(format_args!("SequenceNumber must not be specified when ShardIteratorType is {kind}"))
        }
        Some(number) if !number.bytes().all(|b| b.is_ascii_digit()) => {
            invalid(format_args!("SequenceNumber must be a decimal number: {number}"))
        }
        _ => Ok(()),
    }
}
