//! The inputs of the control plane: tables, time to live, tags and limits.

use super::common::{
    ATTRIBUTE_DEFINITIONS, BILLING_MODE, CONTROL_TABLE_NAME, GLOBAL_INDEX_KEY_SCHEMA, INDEX_KEY_SCHEMA, INDEX_NAME,
    KEY_ATTRIBUTE_NAME, ON_DEMAND_THROUGHPUT, PROJECTION, PROVISIONED_THROUGHPUT, SSE_SPECIFICATION,
    STREAM_SPECIFICATION, STRING, STRINGS, TABLE_CLASS, TABLE_KEY_SCHEMA, TAGS, WARM_THROUGHPUT,
};
use crate::validate::shape::{Len, ListShape, Member, NumberRules, Pattern, Shape, StringRules, StructShape};

/// `CreateTable`.
pub(crate) static CREATE_TABLE: StructShape = StructShape {
    name: "CreateTableInput",
    members: &[
        Member::required("AttributeDefinitions", "attributeDefinitions", ATTRIBUTE_DEFINITIONS),
        // Checked first and alone (`validate::create_table_name_first`); a new table's name is
        // never an ARN.
        Member::optional(
            "TableName",
            "tableName",
            Shape::String(&StringRules { one_of: &[], pattern: Some(Pattern::Name), len: Len::between(3, 255) }),
        ),
        Member::required("KeySchema", "keySchema", TABLE_KEY_SCHEMA),
        Member::optional("LocalSecondaryIndexes", "localSecondaryIndexes", LOCAL_SECONDARY_INDEXES),
        Member::optional("GlobalSecondaryIndexes", "globalSecondaryIndexes", GLOBAL_SECONDARY_INDEXES),
        Member::optional("BillingMode", "billingMode", BILLING_MODE),
        Member::optional("ProvisionedThroughput", "provisionedThroughput", PROVISIONED_THROUGHPUT),
        Member::optional("StreamSpecification", "streamSpecification", STREAM_SPECIFICATION),
        Member::optional("SSESpecification", "sSESpecification", SSE_SPECIFICATION),
        Member::optional("Tags", "tags", TAGS),
        Member::optional("TableClass", "tableClass", TABLE_CLASS),
        Member::optional("DeletionProtectionEnabled", "deletionProtectionEnabled", Shape::Boolean),
        Member::optional("ResourcePolicy", "resourcePolicy", STRING),
        Member::optional("OnDemandThroughput", "onDemandThroughput", ON_DEMAND_THROUGHPUT),
        Member::optional("WarmThroughput", "warmThroughput", WARM_THROUGHPUT),
    ],
};

pub(crate) const LOCAL_SECONDARY_INDEXES: Shape = Shape::List(&ListShape {
    member: Shape::Structure(&StructShape {
        name: "LocalSecondaryIndex",
        members: &[
            Member::required("IndexName", "indexName", INDEX_NAME),
            Member::required("KeySchema", "keySchema", INDEX_KEY_SCHEMA),
            Member::required("Projection", "projection", PROJECTION),
        ],
    }),
    len: Len::ANY,
});

pub(crate) const GLOBAL_SECONDARY_INDEXES: Shape = Shape::List(&ListShape {
    member: Shape::Structure(&StructShape {
        name: "GlobalSecondaryIndex",
        members: &[
            Member::required("IndexName", "indexName", INDEX_NAME),
            Member::required("KeySchema", "keySchema", GLOBAL_INDEX_KEY_SCHEMA),
            Member::required("Projection", "projection", PROJECTION),
            Member::optional("ProvisionedThroughput", "provisionedThroughput", PROVISIONED_THROUGHPUT),
            Member::optional("OnDemandThroughput", "onDemandThroughput", ON_DEMAND_THROUGHPUT),
            Member::optional("WarmThroughput", "warmThroughput", WARM_THROUGHPUT),
        ],
    }),
    len: Len::ANY,
});

/// `UpdateTable`.
pub(crate) static UPDATE_TABLE: StructShape = StructShape {
    name: "UpdateTableInput",
    members: &[
        Member::optional("TableName", "tableName", CONTROL_TABLE_NAME),
        Member::optional("AttributeDefinitions", "attributeDefinitions", ATTRIBUTE_DEFINITIONS),
        Member::optional("BillingMode", "billingMode", BILLING_MODE),
        Member::optional("ProvisionedThroughput", "provisionedThroughput", PROVISIONED_THROUGHPUT),
        Member::optional("GlobalSecondaryIndexUpdates", "globalSecondaryIndexUpdates", GLOBAL_SECONDARY_INDEX_UPDATES),
        Member::optional("StreamSpecification", "streamSpecification", STREAM_SPECIFICATION),
        Member::optional("SSESpecification", "sSESpecification", SSE_SPECIFICATION),
        Member::optional("TableClass", "tableClass", TABLE_CLASS),
        Member::optional("DeletionProtectionEnabled", "deletionProtectionEnabled", Shape::Boolean),
        Member::optional("OnDemandThroughput", "onDemandThroughput", ON_DEMAND_THROUGHPUT),
        Member::optional("WarmThroughput", "warmThroughput", WARM_THROUGHPUT),
    ],
};

const GLOBAL_SECONDARY_INDEX_UPDATES: Shape = Shape::List(&ListShape {
    member: Shape::Structure(&StructShape {
        name: "GlobalSecondaryIndexUpdate",
        members: &[
            Member::optional(
                "Update",
                "update",
                Shape::Structure(&StructShape {
                    name: "UpdateGlobalSecondaryIndexAction",
                    members: &[
                        Member::required("IndexName", "indexName", INDEX_NAME),
                        // Optional since an index may be given on-demand or warm throughput alone.
                        Member::optional("ProvisionedThroughput", "provisionedThroughput", PROVISIONED_THROUGHPUT),
                        Member::optional("OnDemandThroughput", "onDemandThroughput", ON_DEMAND_THROUGHPUT),
                        Member::optional("WarmThroughput", "warmThroughput", WARM_THROUGHPUT),
                    ],
                }),
            ),
            Member::optional(
                "Create",
                "create",
                Shape::Structure(&StructShape {
                    name: "CreateGlobalSecondaryIndexAction",
                    members: &[
                        Member::required("IndexName", "indexName", INDEX_NAME),
                        Member::required("KeySchema", "keySchema", GLOBAL_INDEX_KEY_SCHEMA),
                        Member::required("Projection", "projection", PROJECTION),
                        Member::optional("ProvisionedThroughput", "provisionedThroughput", PROVISIONED_THROUGHPUT),
                        Member::optional("OnDemandThroughput", "onDemandThroughput", ON_DEMAND_THROUGHPUT),
                        Member::optional("WarmThroughput", "warmThroughput", WARM_THROUGHPUT),
                    ],
                }),
            ),
            Member::optional(
                "Delete",
                "delete",
                Shape::Structure(&StructShape {
                    name: "DeleteGlobalSecondaryIndexAction",
                    members: &[Member::required("IndexName", "indexName", INDEX_NAME)],
                }),
            ),
        ],
    }),
    len: Len::ANY,
});

/// An input whose only member is the table's name: `DeleteTable`, `DescribeTable`,
/// `DescribeTimeToLive`.
pub(crate) static TABLE_ONLY: StructShape = StructShape {
    name: "DescribeTableInput",
    members: &[Member::optional("TableName", "tableName", CONTROL_TABLE_NAME)],
};

/// `ListTables`.
pub(crate) static LIST_TABLES: StructShape = StructShape {
    name: "ListTablesInput",
    members: &[
        Member::optional(
            "ExclusiveStartTableName",
            "exclusiveStartTableName",
            Shape::String(&StringRules { one_of: &[], pattern: Some(Pattern::Name), len: Len::between(3, 255) }),
        ),
        Member::optional("Limit", "limit", Shape::Integer(&NumberRules { min: Some(1), max: Some(100) })),
    ],
};

/// `UpdateTimeToLive`.
pub(crate) static UPDATE_TIME_TO_LIVE: StructShape = StructShape {
    name: "UpdateTimeToLiveInput",
    members: &[
        Member::optional("TableName", "tableName", CONTROL_TABLE_NAME),
        // DynamoDB does not list a missing specification among the constraint failures.
        Member::optional(
            "TimeToLiveSpecification",
            "timeToLiveSpecification",
            Shape::Structure(&StructShape {
                name: "TimeToLiveSpecification",
                members: &[
                    // 1 to 255 characters; an empty name breaks the least length (ScyllaDB's
                    // Alternator suite, against DynamoDB; dynalite pinned an older wording).
                    Member::required("AttributeName", "attributeName", KEY_ATTRIBUTE_NAME),
                    Member::required("Enabled", "enabled", Shape::Boolean),
                ],
            }),
        ),
    ],
};

/// `TagResource`.
pub(crate) static TAG_RESOURCE: StructShape = StructShape {
    name: "TagResourceInput",
    members: &[Member::optional("ResourceArn", "resourceArn", STRING), Member::optional("Tags", "tags", TAGS)],
};

/// `UntagResource`.
pub(crate) static UNTAG_RESOURCE: StructShape = StructShape {
    name: "UntagResourceInput",
    members: &[Member::optional("ResourceArn", "resourceArn", STRING), Member::optional("TagKeys", "tagKeys", STRINGS)],
};

/// `ListTagsOfResource`.
pub(crate) static LIST_TAGS_OF_RESOURCE: StructShape = StructShape {
    name: "ListTagsOfResourceInput",
    members: &[
        Member::optional("ResourceArn", "resourceArn", STRING),
        Member::optional("NextToken", "nextToken", STRING),
    ],
};

/// `DescribeLimits` and `DescribeEndpoints`: no members.
pub(crate) static EMPTY: StructShape = StructShape { name: "DescribeLimitsInput", members: &[] };
