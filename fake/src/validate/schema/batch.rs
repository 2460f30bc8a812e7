//! The inputs of `BatchGetItem` and `BatchWriteItem`.

use super::common::{
    ATTRIBUTES, ATTRIBUTES_TO_GET, NAMES, RETURN_CONSUMED_CAPACITY, RETURN_ITEM_COLLECTION_METRICS, STRING,
};
use crate::validate::shape::{Len, ListShape, MapShape, Member, Pattern, Shape, StringRules, StructShape};
use crate::validate::types::ATTRIBUTE_MAP;

/// The rules on the table names that key `RequestItems`.
static TABLE_NAME_KEYS: StringRules =
    StringRules { one_of: &[], pattern: Some(Pattern::TableName), len: Len::between(3, 255) };

/// `BatchGetItem`.
pub(crate) static BATCH_GET_ITEM: StructShape = StructShape {
    name: "BatchGetItemInput",
    members: &[
        Member::optional("ReturnConsumedCapacity", "returnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
        Member::required(
            "RequestItems",
            "requestItems",
            Shape::Map(&MapShape {
                value: Shape::Structure(&KEYS_AND_ATTRIBUTES),
                java_value: "com.amazonaws.dynamodb.v20120810.KeysAndAttributes",
                len: Len::between(1, 100),
                keys: Some(&TABLE_NAME_KEYS),
                value_len: Len::ANY,
            }),
        ),
    ],
};

static KEYS_AND_ATTRIBUTES: StructShape = StructShape {
    name: "KeysAndAttributes",
    members: &[
        Member::required(
            "Keys",
            "keys",
            Shape::List(&ListShape { member: Shape::Map(&ATTRIBUTE_MAP), len: Len::between(1, 100) }),
        )
        .worded_alone(),
        Member::optional("AttributesToGet", "attributesToGet", ATTRIBUTES_TO_GET),
        Member::optional("ConsistentRead", "consistentRead", Shape::Boolean),
        Member::optional("ProjectionExpression", "projectionExpression", STRING),
        Member::optional("ExpressionAttributeNames", "expressionAttributeNames", NAMES),
    ],
};

/// `BatchWriteItem`.
pub(crate) static BATCH_WRITE_ITEM: StructShape = StructShape {
    name: "BatchWriteItemInput",
    members: &[
        Member::optional("ReturnConsumedCapacity", "returnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
        Member::optional("ReturnItemCollectionMetrics", "returnItemCollectionMetrics", RETURN_ITEM_COLLECTION_METRICS),
        Member::required(
            "RequestItems",
            "requestItems",
            Shape::Map(&MapShape {
                value: Shape::List(&ListShape { member: Shape::Structure(&WRITE_REQUEST), len: Len::ANY }),
                java_value: "java.util.List<com.amazonaws.dynamodb.v20120810.WriteRequest>",
                len: Len::at_least(1),
                keys: Some(&TABLE_NAME_KEYS),
                value_len: Len::between(1, 25),
            }),
        ),
    ],
};

static WRITE_REQUEST: StructShape = StructShape {
    name: "WriteRequest",
    members: &[
        Member::optional(
            "DeleteRequest",
            "deleteRequest",
            Shape::Structure(&StructShape {
                name: "DeleteRequest",
                members: &[Member::required("Key", "key", ATTRIBUTES)],
            }),
        ),
        Member::optional(
            "PutRequest",
            "putRequest",
            Shape::Structure(&StructShape {
                name: "PutRequest",
                members: &[Member::required("Item", "item", ATTRIBUTES)],
            }),
        ),
    ],
};
