//! The inputs of exports to and imports from S3: ExportTableToPointInTime, DescribeExport,
//! ListExports, ImportTable, DescribeImport, ListImports.

use super::backups::{NEW_TABLE_NAME, TABLE_ARN};
use super::common::{
    ATTRIBUTE_DEFINITIONS, BILLING_MODE, ON_DEMAND_THROUGHPUT, PROVISIONED_THROUGHPUT, SSE_SPECIFICATION, STRING,
    TABLE_KEY_SCHEMA,
};
use super::tables::GLOBAL_SECONDARY_INDEXES;
use crate::validate::shape::{Len, ListShape, Member, NumberRules, Pattern, Shape, StringRules, StructShape};

/// The ARN of an export or an import.
const TASK_ARN: Shape = Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(37, 1024) });

/// A client token.
const CLIENT_TOKEN: Shape =
    Shape::String(&StringRules { one_of: &[], pattern: Some(Pattern::ClientToken), len: Len::ANY });

/// An S3 bucket's name.
const S3_BUCKET: Shape = Shape::String(&StringRules {
    one_of: &[],
    pattern: Some(Pattern::S3Bucket),
    len: Len { min: None, max: Some(255), empty_breaks: None },
});

/// The account that owns a bucket.
const S3_BUCKET_OWNER: Shape =
    Shape::String(&StringRules { one_of: &[], pattern: Some(Pattern::AccountId), len: Len::ANY });

/// A prefix of S3 keys.
const S3_PREFIX: Shape = Shape::String(&StringRules {
    one_of: &[],
    pattern: None,
    len: Len { min: None, max: Some(1024), empty_breaks: None },
});

/// `ExportTableToPointInTime`.
pub(crate) static EXPORT_TABLE_TO_POINT_IN_TIME: StructShape = StructShape {
    name: "ExportTableToPointInTimeInput",
    members: &[
        Member::required("TableArn", "tableArn", TABLE_ARN),
        Member::optional("ExportTime", "exportTime", Shape::Timestamp),
        Member::optional("ClientToken", "clientToken", CLIENT_TOKEN),
        Member::required("S3Bucket", "s3Bucket", S3_BUCKET),
        Member::optional("S3BucketOwner", "s3BucketOwner", S3_BUCKET_OWNER),
        Member::optional("S3Prefix", "s3Prefix", S3_PREFIX),
        Member::optional("S3SseAlgorithm", "s3SseAlgorithm", Shape::String(&StringRules::one_of(&["AES256", "KMS"]))),
        Member::optional(
            "S3SseKmsKeyId",
            "s3SseKmsKeyId",
            Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(1, 2048) }),
        ),
        Member::optional(
            "ExportFormat",
            "exportFormat",
            Shape::String(&StringRules::one_of(&["DYNAMODB_JSON", "ION"])),
        ),
        Member::optional(
            "ExportType",
            "exportType",
            Shape::String(&StringRules::one_of(&["FULL_EXPORT", "INCREMENTAL_EXPORT"])),
        ),
        Member::optional(
            "IncrementalExportSpecification",
            "incrementalExportSpecification",
            Shape::Structure(&StructShape {
                name: "IncrementalExportSpecification",
                members: &[
                    Member::optional("ExportFromTime", "exportFromTime", Shape::Timestamp),
                    Member::optional("ExportToTime", "exportToTime", Shape::Timestamp),
                    Member::optional(
                        "ExportViewType",
                        "exportViewType",
                        Shape::String(&StringRules::one_of(&["NEW_IMAGE", "NEW_AND_OLD_IMAGES"])),
                    ),
                ],
            }),
        ),
    ],
};

/// `DescribeExport`.
pub(crate) static DESCRIBE_EXPORT: StructShape =
    StructShape { name: "DescribeExportInput", members: &[Member::required("ExportArn", "exportArn", TASK_ARN)] };

/// `ListExports`.
pub(crate) static LIST_EXPORTS: StructShape = StructShape {
    name: "ListExportsInput",
    members: &[
        Member::optional("TableArn", "tableArn", TABLE_ARN),
        Member::optional("MaxResults", "maxResults", Shape::Integer(&NumberRules { min: Some(1), max: Some(25) })),
        Member::optional("NextToken", "nextToken", STRING),
    ],
};

/// `ImportTable`.
pub(crate) static IMPORT_TABLE: StructShape = StructShape {
    name: "ImportTableInput",
    members: &[
        Member::optional("ClientToken", "clientToken", CLIENT_TOKEN),
        Member::required(
            "S3BucketSource",
            "s3BucketSource",
            Shape::Structure(&StructShape {
                name: "S3BucketSource",
                members: &[
                    Member::optional("S3BucketOwner", "s3BucketOwner", S3_BUCKET_OWNER),
                    Member::required("S3Bucket", "s3Bucket", S3_BUCKET),
                    Member::optional("S3KeyPrefix", "s3KeyPrefix", S3_PREFIX),
                ],
            }),
        ),
        Member::required(
            "InputFormat",
            "inputFormat",
            Shape::String(&StringRules::one_of(&["DYNAMODB_JSON", "ION", "CSV"])),
        ),
        Member::optional(
            "InputFormatOptions",
            "inputFormatOptions",
            Shape::Structure(&StructShape {
                name: "InputFormatOptions",
                members: &[Member::optional(
                    "Csv",
                    "csv",
                    Shape::Structure(&StructShape {
                        name: "CsvOptions",
                        members: &[
                            Member::optional(
                                "Delimiter",
                                "delimiter",
                                Shape::String(&StringRules {
                                    one_of: &[],
                                    pattern: Some(Pattern::CsvDelimiter),
                                    len: Len::between(1, 1),
                                }),
                            ),
                            Member::optional(
                                "HeaderList",
                                "headerList",
                                Shape::List(&ListShape {
                                    member: Shape::String(&StringRules {
                                        one_of: &[],
                                        pattern: Some(Pattern::CsvHeader),
                                        len: Len::between(1, 65536),
                                    }),
                                    len: Len::between(1, 255),
                                }),
                            ),
                        ],
                    }),
                )],
            }),
        ),
        Member::optional(
            "InputCompressionType",
            "inputCompressionType",
            Shape::String(&StringRules::one_of(&["GZIP", "ZSTD", "NONE"])),
        ),
        Member::required(
            "TableCreationParameters",
            "tableCreationParameters",
            Shape::Structure(&StructShape {
                name: "TableCreationParameters",
                members: &[
                    Member::required("TableName", "tableName", NEW_TABLE_NAME),
                    Member::required("AttributeDefinitions", "attributeDefinitions", ATTRIBUTE_DEFINITIONS),
                    Member::required("KeySchema", "keySchema", TABLE_KEY_SCHEMA),
                    Member::optional("BillingMode", "billingMode", BILLING_MODE),
                    Member::optional("ProvisionedThroughput", "provisionedThroughput", PROVISIONED_THROUGHPUT),
                    Member::optional("OnDemandThroughput", "onDemandThroughput", ON_DEMAND_THROUGHPUT),
                    Member::optional("SSESpecification", "sSESpecification", SSE_SPECIFICATION),
                    Member::optional("GlobalSecondaryIndexes", "globalSecondaryIndexes", GLOBAL_SECONDARY_INDEXES),
                ],
            }),
        ),
    ],
};

/// `DescribeImport`.
pub(crate) static DESCRIBE_IMPORT: StructShape =
    StructShape { name: "DescribeImportInput", members: &[Member::required("ImportArn", "importArn", TASK_ARN)] };

/// `ListImports`.
pub(crate) static LIST_IMPORTS: StructShape = StructShape {
    name: "ListImportsInput",
    members: &[
        Member::optional("TableArn", "tableArn", TABLE_ARN),
        Member::optional("PageSize", "pageSize", Shape::Integer(&NumberRules { min: Some(1), max: Some(25) })),
        Member::optional(
            "NextToken",
            "nextToken",
            Shape::String(&StringRules {
                one_of: &[],
                pattern: Some(Pattern::HexGroups),
                len: Len::between(112, 1024),
            }),
        ),
    ],
};
