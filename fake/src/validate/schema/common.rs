//! Shapes that several operations share: names, the `Return...` enums, attribute maps, the legacy
//! condition structures, key schemas, projections and throughput.

use crate::validate::shape::{Len, ListShape, MapShape, Member, NumberRules, Pattern, Shape, StringRules, StructShape};
use crate::validate::types::ATTRIBUTE_MAP;

/// A string with no rules.
pub(crate) const STRING: Shape = Shape::String(&StringRules::FREE);

/// A table name in the data plane: pattern and length are constraints like any other, and an
/// empty name breaks only the least length of an ARN, 1 (a short one keeps a name's 3).
pub(crate) const TABLE_NAME: Shape = Shape::String(&StringRules {
    one_of: &[],
    pattern: Some(Pattern::TableName),
    len: Len::between(3, 255).empty_breaks_only(1),
});

/// A table name in the control plane, whose length is checked before the constraints
/// (`TableName must be at least 3 characters long and at most 255 characters long`).
pub(crate) const CONTROL_TABLE_NAME: Shape =
    Shape::String(&StringRules { one_of: &[], pattern: Some(Pattern::TableName), len: Len::ANY });

/// The name of a secondary index.
pub(crate) const INDEX_NAME: Shape =
    Shape::String(&StringRules { one_of: &[], pattern: Some(Pattern::Name), len: Len::between(3, 255) });

/// `ReturnConsumedCapacity`.
pub(crate) const RETURN_CONSUMED_CAPACITY: Shape = Shape::String(&StringRules::one_of(&["INDEXES", "TOTAL", "NONE"]));

/// `ReturnItemCollectionMetrics`.
pub(crate) const RETURN_ITEM_COLLECTION_METRICS: Shape = Shape::String(&StringRules::one_of(&["SIZE", "NONE"]));

/// `ReturnValues`.
pub(crate) const RETURN_VALUES: Shape =
    Shape::String(&StringRules::one_of(&["ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"]));

/// `ReturnValuesOnConditionCheckFailure`.
pub(crate) const RETURN_VALUES_ON_CONDITION_CHECK_FAILURE: Shape =
    Shape::String(&StringRules::one_of(&["ALL_OLD", "NONE"]));

/// `ConditionalOperator`.
pub(crate) const CONDITIONAL_OPERATOR: Shape = Shape::String(&StringRules::one_of(&["OR", "AND"]));

/// `Select`.
pub(crate) const SELECT: Shape = Shape::String(&StringRules::one_of(&[
    "SPECIFIC_ATTRIBUTES",
    "COUNT",
    "ALL_ATTRIBUTES",
    "ALL_PROJECTED_ATTRIBUTES",
]));

/// `ComparisonOperator` of the legacy conditions.
const COMPARISON_OPERATOR: Shape = Shape::String(&StringRules::one_of(&[
    "IN",
    "NULL",
    "BETWEEN",
    "LT",
    "NOT_CONTAINS",
    "EQ",
    "GT",
    "NOT_NULL",
    "NE",
    "LE",
    "BEGINS_WITH",
    "GE",
    "CONTAINS",
]));

/// A map of attribute values: `Item`, `Key`, `ExclusiveStartKey`, `ExpressionAttributeValues`.
pub(crate) const ATTRIBUTES: Shape = Shape::Map(&ATTRIBUTE_MAP);

/// `ExpressionAttributeNames`.
pub(crate) const NAMES: Shape = Shape::Map(&MapShape {
    value: STRING,
    java_value: "java.lang.String",
    len: Len::ANY,
    keys: None,
    value_len: Len::ANY,
});

/// `AttributesToGet`.
pub(crate) const ATTRIBUTES_TO_GET: Shape = Shape::List(&ListShape { member: STRING, len: Len::between(1, 255) });

/// A list of strings without rules.
pub(crate) const STRINGS: Shape = Shape::List(&ListShape { member: STRING, len: Len::ANY });

/// A 64-bit integer without rules.
pub(crate) const LONG: Shape = Shape::Long(&NumberRules::FREE);

const ATTRIBUTE_VALUE_LIST: Shape = Shape::List(&ListShape { member: Shape::AttrValue, len: Len::ANY });

/// `Expected`, the legacy condition of a write.
pub(crate) const EXPECTED: Shape = Shape::Map(&MapShape {
    value: Shape::Structure(&StructShape {
        name: "ExpectedAttributeValue",
        members: &[
            Member::optional("AttributeValueList", "attributeValueList", ATTRIBUTE_VALUE_LIST),
            Member::optional("ComparisonOperator", "comparisonOperator", COMPARISON_OPERATOR),
            Member::optional("Exists", "exists", Shape::Boolean),
            Member::optional("Value", "value", Shape::AttrValue),
        ],
    }),
    java_value: "com.amazonaws.dynamodb.v20120810.ExpectedAttributeValue",
    len: Len::ANY,
    keys: None,
    value_len: Len::ANY,
});

/// `KeyConditions`, `QueryFilter` and `ScanFilter`, the legacy conditions of a read.
pub(crate) const CONDITIONS: Shape = Shape::Map(&MapShape {
    value: Shape::Structure(&StructShape {
        name: "Condition",
        members: &[
            Member::optional("AttributeValueList", "attributeValueList", ATTRIBUTE_VALUE_LIST),
            Member::required("ComparisonOperator", "comparisonOperator", COMPARISON_OPERATOR),
        ],
    }),
    java_value: "com.amazonaws.dynamodb.v20120810.Condition",
    len: Len::ANY,
    keys: None,
    value_len: Len::ANY,
});

/// A capacity of at least one unit.
const CAPACITY: Shape = Shape::Long(&NumberRules { min: Some(1), max: None });

/// `ProvisionedThroughput`.
pub(crate) const PROVISIONED_THROUGHPUT: Shape = Shape::Structure(&StructShape {
    name: "ProvisionedThroughput",
    members: &[
        Member::required("WriteCapacityUnits", "writeCapacityUnits", CAPACITY),
        Member::required("ReadCapacityUnits", "readCapacityUnits", CAPACITY),
    ],
});

/// `OnDemandThroughput`.
pub(crate) const ON_DEMAND_THROUGHPUT: Shape = Shape::Structure(&StructShape {
    name: "OnDemandThroughput",
    members: &[
        Member::optional("MaxReadRequestUnits", "maxReadRequestUnits", LONG),
        Member::optional("MaxWriteRequestUnits", "maxWriteRequestUnits", LONG),
    ],
});

/// `WarmThroughput`.
pub(crate) const WARM_THROUGHPUT: Shape = Shape::Structure(&StructShape {
    name: "WarmThroughput",
    members: &[
        Member::optional("ReadUnitsPerSecond", "readUnitsPerSecond", LONG),
        Member::optional("WriteUnitsPerSecond", "writeUnitsPerSecond", LONG),
    ],
});

/// `BillingMode`.
pub(crate) const BILLING_MODE: Shape = Shape::String(&StringRules::one_of(&["PROVISIONED", "PAY_PER_REQUEST"]));

/// `TableClass`: checked by the CreateTable and UpdateTable rules (`rules::table_class`), in
/// DynamoDB's own wording rather than the enum constraint's (ScyllaDB's Alternator suite).
pub(crate) const TABLE_CLASS: Shape = STRING;

/// The name of a key attribute (in `AttributeDefinitions` and key schemas) or of a projected or
/// time-to-live attribute: 1 to 255 characters.
pub(crate) const KEY_ATTRIBUTE_NAME: Shape =
    Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(1, 255) });

/// `AttributeDefinitions`.
pub(crate) const ATTRIBUTE_DEFINITIONS: Shape = Shape::List(&ListShape {
    member: Shape::Structure(&StructShape {
        name: "AttributeDefinition",
        members: &[
            Member::required("AttributeName", "attributeName", KEY_ATTRIBUTE_NAME),
            Member::required("AttributeType", "attributeType", Shape::String(&StringRules::one_of(&["B", "N", "S"]))),
        ],
    }),
    len: Len::ANY,
});

/// The `KeySchema` of a table: the key type is checked against its enum.
pub(crate) const TABLE_KEY_SCHEMA: Shape = Shape::List(&ListShape {
    member: Shape::Structure(&StructShape {
        name: "KeySchemaElement",
        members: &[
            Member::required("AttributeName", "attributeName", KEY_ATTRIBUTE_NAME),
            Member::required("KeyType", "keyType", Shape::String(&StringRules::one_of(&["HASH", "RANGE"]))),
        ],
    }),
    len: Len::between(1, 2),
});

/// An index's key element: the key type is checked against its enum, as a table's is (moto's
/// test of an unknown key type, verified against DynamoDB, gets the same constraint message for
/// a table, a global index and a local index).
const INDEX_KEY_SCHEMA_ELEMENT: Shape = Shape::Structure(&StructShape {
    name: "KeySchemaElement",
    members: &[
        Member::required("AttributeName", "attributeName", KEY_ATTRIBUTE_NAME),
        Member::required("KeyType", "keyType", Shape::String(&StringRules::one_of(&["HASH", "RANGE"]))),
    ],
});

/// The `KeySchema` of a local index: one or two elements.
pub(crate) const INDEX_KEY_SCHEMA: Shape =
    Shape::List(&ListShape { member: INDEX_KEY_SCHEMA_ELEMENT, len: Len::between(1, 2) });

/// The `KeySchema` of a global index, which may have multi-attribute keys: no greatest length
/// in the API model; the key schema rules allow four attributes per part.
pub(crate) const GLOBAL_INDEX_KEY_SCHEMA: Shape =
    Shape::List(&ListShape { member: INDEX_KEY_SCHEMA_ELEMENT, len: Len::at_least(1) });

/// `Projection`.
pub(crate) const PROJECTION: Shape = Shape::Structure(&StructShape {
    name: "Projection",
    members: &[
        Member::optional(
            "ProjectionType",
            "projectionType",
            Shape::String(&StringRules::one_of(&["ALL", "INCLUDE", "KEYS_ONLY"])),
        ),
        Member::optional(
            "NonKeyAttributes",
            "nonKeyAttributes",
            Shape::List(&ListShape { member: KEY_ATTRIBUTE_NAME, len: Len::between(1, 20) }),
        ),
    ],
});

/// `StreamSpecification`.
pub(crate) const STREAM_SPECIFICATION: Shape = Shape::Structure(&StructShape {
    name: "StreamSpecification",
    members: &[
        Member::required("StreamEnabled", "streamEnabled", Shape::Boolean),
        Member::optional(
            "StreamViewType",
            "streamViewType",
            Shape::String(&StringRules::one_of(&["NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY"])),
        ),
    ],
});

/// `SSESpecification`.
pub(crate) const SSE_SPECIFICATION: Shape = Shape::Structure(&StructShape {
    name: "SSESpecification",
    members: &[
        Member::optional("Enabled", "enabled", Shape::Boolean),
        Member::optional("SSEType", "sSEType", Shape::String(&StringRules::one_of(&["AES256", "KMS"]))),
        Member::optional("KMSMasterKeyId", "kMSMasterKeyId", STRING),
    ],
});

/// `Tags`: a list of `Tag`, each with a key of 1 to 128 characters and a value of up to 256.
pub(crate) const TAGS: Shape = Shape::List(&ListShape {
    member: Shape::Structure(&StructShape {
        name: "Tag",
        members: &[
            Member::required(
                "Key",
                "key",
                Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(1, 128) }),
            ),
            Member::required(
                "Value",
                "value",
                Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(0, 256) }),
            ),
        ],
    }),
    len: Len::ANY,
});
