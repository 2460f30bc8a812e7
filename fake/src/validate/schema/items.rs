//! The inputs of the single-item operations: `PutItem`, `GetItem`, `UpdateItem`, `DeleteItem`.

use super::common::{
    ATTRIBUTES, ATTRIBUTES_TO_GET, CONDITIONAL_OPERATOR, EXPECTED, NAMES, RETURN_CONSUMED_CAPACITY,
    RETURN_ITEM_COLLECTION_METRICS, RETURN_VALUES, RETURN_VALUES_ON_CONDITION_CHECK_FAILURE, STRING, TABLE_NAME,
};
use crate::validate::shape::{Len, MapShape, Member, Shape, StringRules, StructShape};

/// `PutItem`.
pub(crate) static PUT_ITEM: StructShape = StructShape {
    name: "PutItemInput",
    members: &[
        Member::optional("ReturnConsumedCapacity", "returnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
        Member::required("TableName", "tableName", TABLE_NAME),
        Member::required("Item", "item", ATTRIBUTES),
        Member::optional("ConditionalOperator", "conditionalOperator", CONDITIONAL_OPERATOR),
        Member::optional("Expected", "expected", EXPECTED),
        Member::optional("ReturnValues", "returnValues", RETURN_VALUES),
        Member::optional("ReturnItemCollectionMetrics", "returnItemCollectionMetrics", RETURN_ITEM_COLLECTION_METRICS),
        Member::optional("ConditionExpression", "conditionExpression", STRING),
        Member::optional("ExpressionAttributeValues", "expressionAttributeValues", ATTRIBUTES),
        Member::optional("ExpressionAttributeNames", "expressionAttributeNames", NAMES),
        Member::optional(
            "ReturnValuesOnConditionCheckFailure",
            "returnValuesOnConditionCheckFailure",
            RETURN_VALUES_ON_CONDITION_CHECK_FAILURE,
        ),
    ],
};

/// `GetItem`.
pub(crate) static GET_ITEM: StructShape = StructShape {
    name: "GetItemInput",
    members: &[
        Member::optional("ReturnConsumedCapacity", "returnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
        Member::optional("AttributesToGet", "attributesToGet", ATTRIBUTES_TO_GET),
        Member::required("TableName", "tableName", TABLE_NAME),
        Member::required("Key", "key", ATTRIBUTES),
        Member::optional("ConsistentRead", "consistentRead", Shape::Boolean),
        Member::optional("ProjectionExpression", "projectionExpression", STRING),
        Member::optional("ExpressionAttributeNames", "expressionAttributeNames", NAMES),
    ],
};

/// `DeleteItem`.
pub(crate) static DELETE_ITEM: StructShape = StructShape {
    name: "DeleteItemInput",
    members: &[
        Member::optional("ReturnConsumedCapacity", "returnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
        Member::required("TableName", "tableName", TABLE_NAME),
        Member::optional("ReturnValues", "returnValues", RETURN_VALUES),
        Member::optional("ReturnItemCollectionMetrics", "returnItemCollectionMetrics", RETURN_ITEM_COLLECTION_METRICS),
        Member::required("Key", "key", ATTRIBUTES),
        Member::optional("ConditionalOperator", "conditionalOperator", CONDITIONAL_OPERATOR),
        Member::optional("Expected", "expected", EXPECTED),
        Member::optional("ConditionExpression", "conditionExpression", STRING),
        Member::optional("ExpressionAttributeValues", "expressionAttributeValues", ATTRIBUTES),
        Member::optional("ExpressionAttributeNames", "expressionAttributeNames", NAMES),
        Member::optional(
            "ReturnValuesOnConditionCheckFailure",
            "returnValuesOnConditionCheckFailure",
            RETURN_VALUES_ON_CONDITION_CHECK_FAILURE,
        ),
    ],
};

/// `UpdateItem`.
pub(crate) static UPDATE_ITEM: StructShape = StructShape {
    name: "UpdateItemInput",
    members: &[
        Member::optional("ReturnConsumedCapacity", "returnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
        Member::required("TableName", "tableName", TABLE_NAME),
        Member::optional("ReturnItemCollectionMetrics", "returnItemCollectionMetrics", RETURN_ITEM_COLLECTION_METRICS),
        Member::optional("ReturnValues", "returnValues", RETURN_VALUES),
        Member::required("Key", "key", ATTRIBUTES),
        Member::optional("ConditionalOperator", "conditionalOperator", CONDITIONAL_OPERATOR),
        Member::optional("Expected", "expected", EXPECTED),
        Member::optional("AttributeUpdates", "attributeUpdates", ATTRIBUTE_UPDATES),
        Member::optional("ConditionExpression", "conditionExpression", STRING),
        Member::optional("UpdateExpression", "updateExpression", STRING),
        Member::optional("ExpressionAttributeValues", "expressionAttributeValues", ATTRIBUTES),
        Member::optional("ExpressionAttributeNames", "expressionAttributeNames", NAMES),
        Member::optional(
            "ReturnValuesOnConditionCheckFailure",
            "returnValuesOnConditionCheckFailure",
            RETURN_VALUES_ON_CONDITION_CHECK_FAILURE,
        ),
    ],
};

/// `AttributeUpdates`, the legacy form of an update.
const ATTRIBUTE_UPDATES: Shape = Shape::Map(&MapShape {
    value: Shape::Structure(&StructShape {
        name: "AttributeValueUpdate",
        members: &[
            Member::optional("Action", "action", Shape::String(&StringRules::one_of(&["ADD", "PUT", "DELETE"]))),
            Member::optional("Value", "value", Shape::AttrValue),
        ],
    }),
    java_value: "com.amazonaws.dynamodb.v20120810.AttributeValueUpdate",
    len: Len::ANY,
    keys: None,
    value_len: Len::ANY,
});
