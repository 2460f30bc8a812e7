//! The inputs of `TransactWriteItems` and `TransactGetItems`.

use super::common::{
    ATTRIBUTES, NAMES, RETURN_CONSUMED_CAPACITY, RETURN_ITEM_COLLECTION_METRICS,
    RETURN_VALUES_ON_CONDITION_CHECK_FAILURE, STRING,
};
use crate::validate::shape::{Len, ListShape, Member, Shape, StringRules, StructShape};

/// How many actions one transaction may hold.
pub(crate) const MAX_ACTIONS: u64 = 100;

/// `TransactWriteItems`.
pub(crate) static TRANSACT_WRITE_ITEMS: StructShape = StructShape {
    name: "TransactWriteItemsInput",
    members: &[
        Member::optional("ReturnConsumedCapacity", "returnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
        Member::optional("ReturnItemCollectionMetrics", "returnItemCollectionMetrics", RETURN_ITEM_COLLECTION_METRICS),
        Member::optional(
            "ClientRequestToken",
            "clientRequestToken",
            Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(1, 36) }),
        ),
        Member::required(
            "TransactItems",
            "transactItems",
            Shape::List(&ListShape {
                member: Shape::Structure(&TRANSACT_WRITE_ITEM),
                len: Len::between(1, MAX_ACTIONS),
            }),
        ),
    ],
};

/// The actions of a `TransactWriteItem`, in the order the service lists them.
pub(crate) const WRITE_ACTIONS: [&str; 4] = ["ConditionCheck", "Put", "Delete", "Update"];

static TRANSACT_WRITE_ITEM: StructShape = StructShape {
    name: "TransactWriteItem",
    members: &[
        Member::optional(
            "ConditionCheck",
            "conditionCheck",
            Shape::Structure(&StructShape {
                name: "ConditionCheck",
                members: &[
                    Member::required("Key", "key", ATTRIBUTES),
                    Member::optional("TableName", "tableName", STRING),
                    Member::required("ConditionExpression", "conditionExpression", STRING),
                    Member::optional("ExpressionAttributeNames", "expressionAttributeNames", NAMES),
                    Member::optional("ExpressionAttributeValues", "expressionAttributeValues", ATTRIBUTES),
                    Member::optional(
                        "ReturnValuesOnConditionCheckFailure",
                        "returnValuesOnConditionCheckFailure",
                        RETURN_VALUES_ON_CONDITION_CHECK_FAILURE,
                    ),
                ],
            }),
        ),
        Member::optional(
            "Put",
            "put",
            Shape::Structure(&StructShape {
                name: "Put",
                members: &[
                    Member::required("Item", "item", ATTRIBUTES),
                    Member::optional("TableName", "tableName", STRING),
                    Member::optional("ConditionExpression", "conditionExpression", STRING),
                    Member::optional("ExpressionAttributeNames", "expressionAttributeNames", NAMES),
                    Member::optional("ExpressionAttributeValues", "expressionAttributeValues", ATTRIBUTES),
                    Member::optional(
                        "ReturnValuesOnConditionCheckFailure",
                        "returnValuesOnConditionCheckFailure",
                        RETURN_VALUES_ON_CONDITION_CHECK_FAILURE,
                    ),
                ],
            }),
        ),
        Member::optional(
            "Delete",
            "delete",
            Shape::Structure(&StructShape {
                name: "Delete",
                members: &[
                    Member::required("Key", "key", ATTRIBUTES),
                    Member::optional("TableName", "tableName", STRING),
                    Member::optional("ConditionExpression", "conditionExpression", STRING),
                    Member::optional("ExpressionAttributeNames", "expressionAttributeNames", NAMES),
                    Member::optional("ExpressionAttributeValues", "expressionAttributeValues", ATTRIBUTES),
                    Member::optional(
                        "ReturnValuesOnConditionCheckFailure",
                        "returnValuesOnConditionCheckFailure",
                        RETURN_VALUES_ON_CONDITION_CHECK_FAILURE,
                    ),
                ],
            }),
        ),
        Member::optional(
            "Update",
            "update",
            Shape::Structure(&StructShape {
                name: "Update",
                members: &[
                    Member::required("Key", "key", ATTRIBUTES),
                    Member::required("UpdateExpression", "updateExpression", STRING),
                    Member::optional("TableName", "tableName", STRING),
                    Member::optional("ConditionExpression", "conditionExpression", STRING),
                    Member::optional("ExpressionAttributeNames", "expressionAttributeNames", NAMES),
                    Member::optional("ExpressionAttributeValues", "expressionAttributeValues", ATTRIBUTES),
                    Member::optional(
                        "ReturnValuesOnConditionCheckFailure",
                        "returnValuesOnConditionCheckFailure",
                        RETURN_VALUES_ON_CONDITION_CHECK_FAILURE,
                    ),
                ],
            }),
        ),
    ],
};

/// `TransactGetItems`.
pub(crate) static TRANSACT_GET_ITEMS: StructShape = StructShape {
    name: "TransactGetItemsInput",
    members: &[
        Member::required(
            "TransactItems",
            "transactItems",
            Shape::List(&ListShape {
                member: Shape::Structure(&StructShape {
                    name: "TransactGetItem",
                    members: &[Member::required(
                        "Get",
                        "get",
                        Shape::Structure(&StructShape {
                            name: "Get",
                            members: &[
                                Member::required("Key", "key", ATTRIBUTES),
                                Member::optional("TableName", "tableName", STRING),
                                Member::optional("ProjectionExpression", "projectionExpression", STRING),
                                Member::optional("ExpressionAttributeNames", "expressionAttributeNames", NAMES),
                            ],
                        }),
                    )],
                }),
                len: Len::between(1, MAX_ACTIONS),
            }),
        ),
        Member::optional("ReturnConsumedCapacity", "returnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
    ],
};
