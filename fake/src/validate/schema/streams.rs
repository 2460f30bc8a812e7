//! The inputs of DynamoDB Streams: ListStreams, DescribeStream, GetShardIterator, GetRecords.

use crate::validate::shape::{Len, Member, NumberRules, Pattern, Shape, StringRules, StructShape};

/// A stream's ARN.
const STREAM_ARN: Shape = Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(37, 1024) });

/// A shard's id.
const SHARD_ID: Shape = Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(28, 65) });

/// `ListStreams`.
pub(crate) static LIST_STREAMS: StructShape = StructShape {
    name: "ListStreamsInput",
    members: &[
        Member::optional(
            "TableName",
            "tableName",
            Shape::String(&StringRules { one_of: &[], pattern: Some(Pattern::Name), len: Len::between(3, 255) }),
        ),
        Member::optional("Limit", "limit", Shape::Integer(&NumberRules { min: Some(1), max: Some(100) })),
        Member::optional("ExclusiveStartStreamArn", "exclusiveStartStreamArn", STREAM_ARN),
    ],
};

/// `DescribeStream`.
pub(crate) static DESCRIBE_STREAM: StructShape = StructShape {
    name: "DescribeStreamInput",
    members: &[
        Member::required("StreamArn", "streamArn", STREAM_ARN),
        Member::optional("Limit", "limit", Shape::Integer(&NumberRules { min: Some(1), max: Some(100) })),
        Member::optional("ExclusiveStartShardId", "exclusiveStartShardId", SHARD_ID),
        Member::optional(
            "ShardFilter",
            "shardFilter",
            Shape::Structure(&StructShape {
                name: "ShardFilter",
                members: &[
                    Member::optional("Type", "type", Shape::String(&StringRules::one_of(&["CHILD_SHARDS"]))),
                    Member::optional("ShardId", "shardId", SHARD_ID),
                ],
            }),
        ),
    ],
};

/// `GetShardIterator`.
pub(crate) static GET_SHARD_ITERATOR: StructShape = StructShape {
    name: "GetShardIteratorInput",
    members: &[
        Member::required("StreamArn", "streamArn", STREAM_ARN),
        Member::required("ShardId", "shardId", SHARD_ID),
        Member::required(
            "ShardIteratorType",
            "shardIteratorType",
            Shape::String(&StringRules::one_of(&[
                "TRIM_HORIZON",
                "LATEST",
                "AT_SEQUENCE_NUMBER",
                "AFTER_SEQUENCE_NUMBER",
            ])),
        ),
        Member::optional(
            "SequenceNumber",
            "sequenceNumber",
            Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(21, 40) }),
        ),
    ],
};

/// `GetRecords`.
pub(crate) static GET_RECORDS: StructShape = StructShape {
    name: "GetRecordsInput",
    members: &[
        Member::required(
            "ShardIterator",
            "shardIterator",
            Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(1, 2048) }),
        ),
        Member::optional("Limit", "limit", Shape::Integer(&NumberRules { min: Some(1), max: Some(1000) })),
    ],
};
