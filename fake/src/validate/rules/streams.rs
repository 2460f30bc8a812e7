//! The rules of the Streams operations that the schema cannot say.

use super::{Object, field, invalid, object, refuse, text};
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

/// `DescribeStream`: a `ShardFilter` names both its type and the shard whose children it asks
/// for. The API model leaves both optional; DynamoDB refuses a filter without either
/// (ScyllaDB's Alternator suite, against DynamoDB, which checks only the exception's type: the
/// words are the fake's, in the form of a constraint).
pub(crate) fn describe_stream(request: &Object<'_>) -> Result<(), DynamoError> {
    let Some(filter) = object(request, "ShardFilter") else {
        return Ok(());
    };
    for (member, wire) in [("Type", "type"), ("ShardId", "shardId")] {
        if field(filter, member).is_none() {
            return refuse(format!(
                "1 validation error detected: Value null at 'shardFilter.{wire}' failed to satisfy constraint: Member must not be null"
            ));
        }
    }
    Ok(())
}
