//! The inputs of backups and point-in-time recovery: CreateBackup, DescribeBackup, ListBackups,
//! DeleteBackup, RestoreTableFromBackup, DescribeContinuousBackups, UpdateContinuousBackups and
//! RestoreTableToPointInTime.

use super::common::{BILLING_MODE, ON_DEMAND_THROUGHPUT, PROVISIONED_THROUGHPUT, SSE_SPECIFICATION};
use super::tables::{GLOBAL_SECONDARY_INDEXES, LOCAL_SECONDARY_INDEXES};
use crate::validate::shape::{Len, Member, NumberRules, Pattern, Shape, StringRules, StructShape};

/// A table's name or ARN where the model calls it `TableArn`: 1 to 1024 characters, no pattern.
pub(crate) const TABLE_ARN: Shape =
    Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(1, 1024) });

/// A new table's name: 3 to 255 characters of `[a-zA-Z0-9_.-]`.
pub(crate) const NEW_TABLE_NAME: Shape =
    Shape::String(&StringRules { one_of: &[], pattern: Some(Pattern::Name), len: Len::between(3, 255) });

/// A backup's ARN.
const BACKUP_ARN: Shape = Shape::String(&StringRules { one_of: &[], pattern: None, len: Len::between(37, 1024) });

/// `CreateBackup`.
pub(crate) static CREATE_BACKUP: StructShape = StructShape {
    name: "CreateBackupInput",
    members: &[
        Member::required("TableName", "tableName", TABLE_ARN),
        Member::required("BackupName", "backupName", NEW_TABLE_NAME),
    ],
};

/// `DescribeBackup` and `DeleteBackup`.
pub(crate) static BACKUP_ONLY: StructShape =
    StructShape { name: "DescribeBackupInput", members: &[Member::required("BackupArn", "backupArn", BACKUP_ARN)] };

/// `ListBackups`.
pub(crate) static LIST_BACKUPS: StructShape = StructShape {
    name: "ListBackupsInput",
    members: &[
        Member::optional("TableName", "tableName", TABLE_ARN),
        Member::optional("Limit", "limit", Shape::Integer(&NumberRules { min: Some(1), max: Some(100) })),
        Member::optional("TimeRangeLowerBound", "timeRangeLowerBound", Shape::Timestamp),
        Member::optional("TimeRangeUpperBound", "timeRangeUpperBound", Shape::Timestamp),
        Member::optional("ExclusiveStartBackupArn", "exclusiveStartBackupArn", BACKUP_ARN),
        Member::optional(
            "BackupType",
            "backupType",
            Shape::String(&StringRules::one_of(&["USER", "SYSTEM", "AWS_BACKUP", "ALL"])),
        ),
    ],
};

/// `RestoreTableFromBackup`.
pub(crate) static RESTORE_TABLE_FROM_BACKUP: StructShape = StructShape {
    name: "RestoreTableFromBackupInput",
    members: &[
        Member::required("TargetTableName", "targetTableName", NEW_TABLE_NAME),
        Member::required("BackupArn", "backupArn", BACKUP_ARN),
        Member::optional("BillingModeOverride", "billingModeOverride", BILLING_MODE),
        Member::optional("GlobalSecondaryIndexOverride", "globalSecondaryIndexOverride", GLOBAL_SECONDARY_INDEXES),
        Member::optional("LocalSecondaryIndexOverride", "localSecondaryIndexOverride", LOCAL_SECONDARY_INDEXES),
        Member::optional("ProvisionedThroughputOverride", "provisionedThroughputOverride", PROVISIONED_THROUGHPUT),
        Member::optional("OnDemandThroughputOverride", "onDemandThroughputOverride", ON_DEMAND_THROUGHPUT),
        Member::optional("SSESpecificationOverride", "sSESpecificationOverride", SSE_SPECIFICATION),
    ],
};

/// `DescribeContinuousBackups`.
pub(crate) static DESCRIBE_CONTINUOUS_BACKUPS: StructShape = StructShape {
    name: "DescribeContinuousBackupsInput",
    members: &[Member::required("TableName", "tableName", TABLE_ARN)],
};

/// `UpdateContinuousBackups`.
pub(crate) static UPDATE_CONTINUOUS_BACKUPS: StructShape = StructShape {
    name: "UpdateContinuousBackupsInput",
    members: &[
        Member::required("TableName", "tableName", TABLE_ARN),
        Member::required(
            "PointInTimeRecoverySpecification",
            "pointInTimeRecoverySpecification",
            Shape::Structure(&StructShape {
                name: "PointInTimeRecoverySpecification",
                members: &[
                    Member::required("PointInTimeRecoveryEnabled", "pointInTimeRecoveryEnabled", Shape::Boolean),
                    Member::optional(
                        "RecoveryPeriodInDays",
                        "recoveryPeriodInDays",
                        Shape::Integer(&NumberRules { min: Some(1), max: Some(35) }),
                    ),
                ],
            }),
        ),
    ],
};

/// `RestoreTableToPointInTime`.
pub(crate) static RESTORE_TABLE_TO_POINT_IN_TIME: StructShape = StructShape {
    name: "RestoreTableToPointInTimeInput",
    members: &[
        Member::optional("SourceTableArn", "sourceTableArn", TABLE_ARN),
        Member::optional("SourceTableName", "sourceTableName", NEW_TABLE_NAME),
        Member::required("TargetTableName", "targetTableName", NEW_TABLE_NAME),
        Member::optional("UseLatestRestorableTime", "useLatestRestorableTime", Shape::Boolean),
        Member::optional("RestoreDateTime", "restoreDateTime", Shape::Timestamp),
        Member::optional("BillingModeOverride", "billingModeOverride", BILLING_MODE),
        Member::optional("GlobalSecondaryIndexOverride", "globalSecondaryIndexOverride", GLOBAL_SECONDARY_INDEXES),
        Member::optional("LocalSecondaryIndexOverride", "localSecondaryIndexOverride", LOCAL_SECONDARY_INDEXES),
        Member::optional("ProvisionedThroughputOverride", "provisionedThroughputOverride", PROVISIONED_THROUGHPUT),
        Member::optional("OnDemandThroughputOverride", "onDemandThroughputOverride", ON_DEMAND_THROUGHPUT),
        Member::optional("SSESpecificationOverride", "sSESpecificationOverride", SSE_SPECIFICATION),
    ],
};
