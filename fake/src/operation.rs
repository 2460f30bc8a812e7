//! The operations of DynamoDB that the fake serves, named once per request: the name from
//! `X-Amz-Target` is looked up when the request arrives, and everything after (the request log,
//! the checks of the body, the dispatch to a handler) goes by the [`Operation`] it names.

/// One operation the fake serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operation {
    BatchGetItem,
    BatchWriteItem,
    CreateTable,
    DeleteItem,
    DeleteTable,
    DescribeEndpoints,
    DescribeLimits,
    DescribeTable,
    DescribeTimeToLive,
    GetItem,
    ListTables,
    ListTagsOfResource,
    PutItem,
    Query,
    Scan,
    TagResource,
    TransactGetItems,
    TransactWriteItems,
    UntagResource,
    UpdateItem,
    UpdateTable,
    UpdateTimeToLive,
}

impl Operation {
    /// Every operation the fake serves.
    #[cfg(test)]
    pub(crate) const ALL: [Operation; 22] = [
        Operation::BatchGetItem,
        Operation::BatchWriteItem,
        Operation::CreateTable,
        Operation::DeleteItem,
        Operation::DeleteTable,
        Operation::DescribeEndpoints,
        Operation::DescribeLimits,
        Operation::DescribeTable,
        Operation::DescribeTimeToLive,
        Operation::GetItem,
        Operation::ListTables,
        Operation::ListTagsOfResource,
        Operation::PutItem,
        Operation::Query,
        Operation::Scan,
        Operation::TagResource,
        Operation::TransactGetItems,
        Operation::TransactWriteItems,
        Operation::UntagResource,
        Operation::UpdateItem,
        Operation::UpdateTable,
        Operation::UpdateTimeToLive,
    ];

    /// The operation of this name (as DynamoDB spells it, case and all), if the fake serves it.
    pub(crate) fn from_name(name: &str) -> Option<Operation> {
        Some(match name {
            "BatchGetItem" => Operation::BatchGetItem,
            "BatchWriteItem" => Operation::BatchWriteItem,
            "CreateTable" => Operation::CreateTable,
            "DeleteItem" => Operation::DeleteItem,
            "DeleteTable" => Operation::DeleteTable,
            "DescribeEndpoints" => Operation::DescribeEndpoints,
            "DescribeLimits" => Operation::DescribeLimits,
            "DescribeTable" => Operation::DescribeTable,
            "DescribeTimeToLive" => Operation::DescribeTimeToLive,
            "GetItem" => Operation::GetItem,
            "ListTables" => Operation::ListTables,
            "ListTagsOfResource" => Operation::ListTagsOfResource,
            "PutItem" => Operation::PutItem,
            "Query" => Operation::Query,
            "Scan" => Operation::Scan,
            "TagResource" => Operation::TagResource,
            "TransactGetItems" => Operation::TransactGetItems,
            "TransactWriteItems" => Operation::TransactWriteItems,
            "UntagResource" => Operation::UntagResource,
            "UpdateItem" => Operation::UpdateItem,
            "UpdateTable" => Operation::UpdateTable,
            "UpdateTimeToLive" => Operation::UpdateTimeToLive,
            _ => return None,
        })
    }

    /// The operation's name, as DynamoDB spells it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Operation::BatchGetItem => "BatchGetItem",
            Operation::BatchWriteItem => "BatchWriteItem",
            Operation::CreateTable => "CreateTable",
            Operation::DeleteItem => "DeleteItem",
            Operation::DeleteTable => "DeleteTable",
            Operation::DescribeEndpoints => "DescribeEndpoints",
            Operation::DescribeLimits => "DescribeLimits",
            Operation::DescribeTable => "DescribeTable",
            Operation::DescribeTimeToLive => "DescribeTimeToLive",
            Operation::GetItem => "GetItem",
            Operation::ListTables => "ListTables",
            Operation::ListTagsOfResource => "ListTagsOfResource",
            Operation::PutItem => "PutItem",
            Operation::Query => "Query",
            Operation::Scan => "Scan",
            Operation::TagResource => "TagResource",
            Operation::TransactGetItems => "TransactGetItems",
            Operation::TransactWriteItems => "TransactWriteItems",
            Operation::UntagResource => "UntagResource",
            Operation::UpdateItem => "UpdateItem",
            Operation::UpdateTable => "UpdateTable",
            Operation::UpdateTimeToLive => "UpdateTimeToLive",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Operation;

    #[test]
    fn every_operation_is_found_by_its_name_and_no_other() {
        for operation in Operation::ALL {
            assert_eq!(Operation::from_name(operation.name()), Some(operation));
            assert_eq!(Operation::from_name(&operation.name().to_lowercase()), None, "names are case-sensitive");
        }
        for name in ["", "GetItems", "DynamoDB_20120810.GetItem", "ExecuteStatement", "DescribeContinuousBackups"] {
            assert_eq!(Operation::from_name(name), None, "{name}");
        }
    }
}
