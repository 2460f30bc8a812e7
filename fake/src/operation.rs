//! The operations of DynamoDB and DynamoDB Streams that the fake serves, named once per request:
//! the name from `X-Amz-Target` is looked up when the request arrives, and everything after (the
//! request log, the checks of the body, the dispatch to a handler) goes by the [`Operation`] it
//! names.

/// The service an `X-Amz-Target` addresses, by its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Service {
    /// `DynamoDB_20120810.<Op>`.
    DynamoDb,
    /// `DynamoDBStreams_20120810.<Op>`.
    Streams,
    /// No prefix: an operation named alone, as [`crate::FakeDynamoDb::handle_json`] takes it.
    Either,
}

impl Service {
    /// The service a target addresses and the operation name after its prefix; a target of
    /// neither service names no operation of either (its name is kept for the request log).
    pub(crate) fn of_target(target: &str) -> (Option<Service>, &str) {
        if let Some(name) = target.strip_prefix("DynamoDB_20120810.") {
            return (Some(Service::DynamoDb), name);
        }
        match target.strip_prefix("DynamoDBStreams_20120810.") {
            Some(name) => (Some(Service::Streams), name),
            None => (None, target),
        }
    }

    /// Whether this service serves `operation`.
    pub(crate) fn serves(self, operation: Operation) -> bool {
        match self {
            Service::Either => true,
            Service::DynamoDb => !operation.is_streams(),
            Service::Streams => operation.is_streams(),
        }
    }
}

/// One operation the fake serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operation {
    BatchExecuteStatement,
    BatchGetItem,
    BatchWriteItem,
    CreateBackup,
    CreateTable,
    DeleteBackup,
    DeleteItem,
    DeleteResourcePolicy,
    DeleteTable,
    DescribeBackup,
    DescribeContinuousBackups,
    DescribeEndpoints,
    DescribeExport,
    DescribeImport,
    DescribeLimits,
    DescribeStream,
    DescribeTable,
    DescribeTimeToLive,
    ExecuteStatement,
    ExecuteTransaction,
    ExportTableToPointInTime,
    GetItem,
    GetRecords,
    GetResourcePolicy,
    GetShardIterator,
    ImportTable,
    ListBackups,
    ListExports,
    ListImports,
    ListStreams,
    ListTables,
    ListTagsOfResource,
    PutItem,
    PutResourcePolicy,
    Query,
    RestoreTableFromBackup,
    RestoreTableToPointInTime,
    Scan,
    TagResource,
    TransactGetItems,
    TransactWriteItems,
    UntagResource,
    UpdateContinuousBackups,
    UpdateItem,
    UpdateTable,
    UpdateTimeToLive,
}

impl Operation {
    /// Every operation the fake serves.
    #[cfg(test)]
    pub(crate) const ALL: [Operation; 46] = [
        Operation::BatchExecuteStatement,
        Operation::BatchGetItem,
        Operation::BatchWriteItem,
        Operation::CreateBackup,
        Operation::CreateTable,
        Operation::DeleteBackup,
        Operation::DeleteItem,
        Operation::DeleteResourcePolicy,
        Operation::DeleteTable,
        Operation::DescribeBackup,
        Operation::DescribeContinuousBackups,
        Operation::DescribeEndpoints,
        Operation::DescribeExport,
        Operation::DescribeImport,
        Operation::DescribeLimits,
        Operation::DescribeStream,
        Operation::DescribeTable,
        Operation::DescribeTimeToLive,
        Operation::ExecuteStatement,
        Operation::ExecuteTransaction,
        Operation::ExportTableToPointInTime,
        Operation::GetItem,
        Operation::GetRecords,
        Operation::GetResourcePolicy,
        Operation::GetShardIterator,
        Operation::ImportTable,
        Operation::ListBackups,
        Operation::ListExports,
        Operation::ListImports,
        Operation::ListStreams,
        Operation::ListTables,
        Operation::ListTagsOfResource,
        Operation::PutItem,
        Operation::PutResourcePolicy,
        Operation::Query,
        Operation::RestoreTableFromBackup,
        Operation::RestoreTableToPointInTime,
        Operation::Scan,
        Operation::TagResource,
        Operation::TransactGetItems,
        Operation::TransactWriteItems,
        Operation::UntagResource,
        Operation::UpdateContinuousBackups,
        Operation::UpdateItem,
        Operation::UpdateTable,
        Operation::UpdateTimeToLive,
    ];

    /// The operation of this name (as DynamoDB spells it, case and all), if the fake serves it.
    pub(crate) fn from_name(name: &str) -> Option<Operation> {
        Some(match name {
            "BatchExecuteStatement" => Operation::BatchExecuteStatement,
            "BatchGetItem" => Operation::BatchGetItem,
            "BatchWriteItem" => Operation::BatchWriteItem,
            "CreateBackup" => Operation::CreateBackup,
            "CreateTable" => Operation::CreateTable,
            "DeleteBackup" => Operation::DeleteBackup,
            "DeleteItem" => Operation::DeleteItem,
            "DeleteResourcePolicy" => Operation::DeleteResourcePolicy,
            "DeleteTable" => Operation::DeleteTable,
            "DescribeBackup" => Operation::DescribeBackup,
            "DescribeContinuousBackups" => Operation::DescribeContinuousBackups,
            "DescribeEndpoints" => Operation::DescribeEndpoints,
            "DescribeExport" => Operation::DescribeExport,
            "DescribeImport" => Operation::DescribeImport,
            "DescribeLimits" => Operation::DescribeLimits,
            "DescribeStream" => Operation::DescribeStream,
            "DescribeTable" => Operation::DescribeTable,
            "DescribeTimeToLive" => Operation::DescribeTimeToLive,
            "ExecuteStatement" => Operation::ExecuteStatement,
            "ExecuteTransaction" => Operation::ExecuteTransaction,
            "ExportTableToPointInTime" => Operation::ExportTableToPointInTime,
            "GetItem" => Operation::GetItem,
            "GetRecords" => Operation::GetRecords,
            "GetResourcePolicy" => Operation::GetResourcePolicy,
            "GetShardIterator" => Operation::GetShardIterator,
            "ImportTable" => Operation::ImportTable,
            "ListBackups" => Operation::ListBackups,
            "ListExports" => Operation::ListExports,
            "ListImports" => Operation::ListImports,
            "ListStreams" => Operation::ListStreams,
            "ListTables" => Operation::ListTables,
            "ListTagsOfResource" => Operation::ListTagsOfResource,
            "PutItem" => Operation::PutItem,
            "PutResourcePolicy" => Operation::PutResourcePolicy,
            "Query" => Operation::Query,
            "RestoreTableFromBackup" => Operation::RestoreTableFromBackup,
            "RestoreTableToPointInTime" => Operation::RestoreTableToPointInTime,
            "Scan" => Operation::Scan,
            "TagResource" => Operation::TagResource,
            "TransactGetItems" => Operation::TransactGetItems,
            "TransactWriteItems" => Operation::TransactWriteItems,
            "UntagResource" => Operation::UntagResource,
            "UpdateContinuousBackups" => Operation::UpdateContinuousBackups,
            "UpdateItem" => Operation::UpdateItem,
            "UpdateTable" => Operation::UpdateTable,
            "UpdateTimeToLive" => Operation::UpdateTimeToLive,
            _ => return None,
        })
    }

    /// Whether the operation is one of DynamoDB Streams.
    pub(crate) fn is_streams(self) -> bool {
        matches!(
            self,
            Operation::ListStreams | Operation::DescribeStream | Operation::GetShardIterator | Operation::GetRecords
        )
    }

    /// The operation's name, as DynamoDB spells it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Operation::BatchExecuteStatement => "BatchExecuteStatement",
            Operation::BatchGetItem => "BatchGetItem",
            Operation::BatchWriteItem => "BatchWriteItem",
            Operation::CreateBackup => "CreateBackup",
            Operation::CreateTable => "CreateTable",
            Operation::DeleteBackup => "DeleteBackup",
            Operation::DeleteItem => "DeleteItem",
            Operation::DeleteResourcePolicy => "DeleteResourcePolicy",
            Operation::DeleteTable => "DeleteTable",
            Operation::DescribeBackup => "DescribeBackup",
            Operation::DescribeContinuousBackups => "DescribeContinuousBackups",
            Operation::DescribeEndpoints => "DescribeEndpoints",
            Operation::DescribeExport => "DescribeExport",
            Operation::DescribeImport => "DescribeImport",
            Operation::DescribeLimits => "DescribeLimits",
            Operation::DescribeStream => "DescribeStream",
            Operation::DescribeTable => "DescribeTable",
            Operation::DescribeTimeToLive => "DescribeTimeToLive",
            Operation::ExecuteStatement => "ExecuteStatement",
            Operation::ExecuteTransaction => "ExecuteTransaction",
            Operation::ExportTableToPointInTime => "ExportTableToPointInTime",
            Operation::GetItem => "GetItem",
            Operation::GetRecords => "GetRecords",
            Operation::GetResourcePolicy => "GetResourcePolicy",
            Operation::GetShardIterator => "GetShardIterator",
            Operation::ImportTable => "ImportTable",
            Operation::ListBackups => "ListBackups",
            Operation::ListExports => "ListExports",
            Operation::ListImports => "ListImports",
            Operation::ListStreams => "ListStreams",
            Operation::ListTables => "ListTables",
            Operation::ListTagsOfResource => "ListTagsOfResource",
            Operation::PutItem => "PutItem",
            Operation::PutResourcePolicy => "PutResourcePolicy",
            Operation::Query => "Query",
            Operation::RestoreTableFromBackup => "RestoreTableFromBackup",
            Operation::RestoreTableToPointInTime => "RestoreTableToPointInTime",
            Operation::Scan => "Scan",
            Operation::TagResource => "TagResource",
            Operation::TransactGetItems => "TransactGetItems",
            Operation::TransactWriteItems => "TransactWriteItems",
            Operation::UntagResource => "UntagResource",
            Operation::UpdateContinuousBackups => "UpdateContinuousBackups",
            Operation::UpdateItem => "UpdateItem",
            Operation::UpdateTable => "UpdateTable",
            Operation::UpdateTimeToLive => "UpdateTimeToLive",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Operation, Service};

    #[test]
    fn every_operation_is_found_by_its_name_and_no_other() {
        for operation in Operation::ALL {
            assert_eq!(Operation::from_name(operation.name()), Some(operation));
            assert_eq!(Operation::from_name(&operation.name().to_lowercase()), None, "names are case-sensitive");
        }
        for name in ["", "GetItems", "DynamoDB_20120810.GetItem", "ExecuteStatements", "DescribeGlobalTable"] {
            assert_eq!(Operation::from_name(name), None, "{name}");
        }
    }

    #[test]
    fn each_service_serves_its_own_operations_only() {
        assert_eq!(Service::of_target("DynamoDB_20120810.GetItem"), (Some(Service::DynamoDb), "GetItem"));
        assert_eq!(Service::of_target("DynamoDBStreams_20120810.GetRecords"), (Some(Service::Streams), "GetRecords"));
        assert_eq!(Service::of_target("Kinesis_20131202.GetRecords"), (None, "Kinesis_20131202.GetRecords"));
        assert!(!Service::DynamoDb.serves(Operation::GetRecords));
        assert!(!Service::Streams.serves(Operation::PutItem));
        assert!(Service::Streams.serves(Operation::ListStreams));
        assert!(Service::Either.serves(Operation::ListStreams) && Service::Either.serves(Operation::PutItem));
    }
}
