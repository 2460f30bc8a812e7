//! The inputs of `Query` and `Scan`.

use super::common::{
    ATTRIBUTES, ATTRIBUTES_TO_GET, CONDITIONAL_OPERATOR, CONDITIONS, INDEX_NAME, NAMES, RETURN_CONSUMED_CAPACITY,
    SELECT, STRING, TABLE_NAME,
};
use crate::validate::shape::{Member, NumberRules, Shape, StructShape};

const LIMIT: Shape = Shape::Integer(&NumberRules { min: Some(1), max: None });

/// `Query`.
///
/// Members are checked in the order DynamoDB reports their violations, of which it reports ten.
/// dynalite's current suite pins which ten of eleven come back: `KeyConditions` after every
/// other member here (of `keyConditions.a` and `keyConditions.b` only `a` is reported), and
/// `AttributesToGet` last in [`SCAN`].
pub(crate) static QUERY: StructShape = StructShape {
    name: "QueryInput",
    members: &[
        // Alone, Query's Limit is named as in the API and its value left out (Scan keeps both).
        Member::optional("Limit", "limit", LIMIT).worded_alone(),
        Member::optional("ExclusiveStartKey", "exclusiveStartKey", ATTRIBUTES),
        Member::optional("ReturnConsumedCapacity", "returnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
        Member::optional("AttributesToGet", "attributesToGet", ATTRIBUTES_TO_GET),
        Member::optional("QueryFilter", "queryFilter", CONDITIONS),
        Member::optional("Select", "select", SELECT),
        Member::optional("ConditionalOperator", "conditionalOperator", CONDITIONAL_OPERATOR),
        Member::required("TableName", "tableName", TABLE_NAME),
        Member::optional("ConsistentRead", "consistentRead", Shape::Boolean),
        Member::optional("IndexName", "indexName", INDEX_NAME),
        Member::optional("ScanIndexForward", "scanIndexForward", Shape::Boolean),
        Member::optional("KeyConditionExpression", "keyConditionExpression", STRING),
        Member::optional("FilterExpression", "filterExpression", STRING),
        Member::optional("ProjectionExpression", "projectionExpression", STRING),
        Member::optional("ExpressionAttributeValues", "expressionAttributeValues", ATTRIBUTES),
        Member::optional("ExpressionAttributeNames", "expressionAttributeNames", NAMES),
        Member::optional("KeyConditions", "keyConditions", CONDITIONS),
    ],
};

/// `Scan`, `AttributesToGet` last (see [`QUERY`]).
pub(crate) static SCAN: StructShape = StructShape {
    name: "ScanInput",
    members: &[
        Member::optional("Limit", "limit", LIMIT),
        Member::optional("ReturnConsumedCapacity", "returnConsumedCapacity", RETURN_CONSUMED_CAPACITY),
        Member::optional("Segment", "segment", Shape::Integer(&NumberRules { min: Some(0), max: Some(999_999) })),
        Member::optional("Select", "select", SELECT),
        Member::optional("ScanFilter", "scanFilter", CONDITIONS),
        Member::optional("ConditionalOperator", "conditionalOperator", CONDITIONAL_OPERATOR),
        Member::optional(
            "TotalSegments",
            "totalSegments",
            Shape::Integer(&NumberRules { min: Some(1), max: Some(1_000_000) }),
        ),
        Member::required("TableName", "tableName", TABLE_NAME),
        Member::optional("ExclusiveStartKey", "exclusiveStartKey", ATTRIBUTES),
        Member::optional("IndexName", "indexName", INDEX_NAME),
        Member::optional("FilterExpression", "filterExpression", STRING),
        Member::optional("ProjectionExpression", "projectionExpression", STRING),
        Member::optional("ExpressionAttributeValues", "expressionAttributeValues", ATTRIBUTES),
        Member::optional("ExpressionAttributeNames", "expressionAttributeNames", NAMES),
        Member::optional("ConsistentRead", "consistentRead", Shape::Boolean),
        Member::optional("AttributesToGet", "attributesToGet", ATTRIBUTES_TO_GET),
    ],
};
