//! The engine: every table, and the dispatch of each operation to its handler. The engine is
//! synchronous and knows nothing of HTTP, clocks or faults; `FakeDynamoDb` wraps it.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use crate::json::{Answer, Body, Json};

use crate::error::DynamoError;
use crate::ops;
use crate::table::Table;
use crate::validate;

/// The operations of DynamoDB that the fake answers, sorted: looked up by binary search.
pub(crate) const OPERATIONS: &[&str] = &[
    "BatchGetItem",
    "BatchWriteItem",
    "CreateTable",
    "DeleteItem",
    "DeleteTable",
    "DescribeEndpoints",
    "DescribeLimits",
    "DescribeTable",
    "DescribeTimeToLive",
    "GetItem",
    "ListTables",
    "ListTagsOfResource",
    "PutItem",
    "Query",
    "Scan",
    "TagResource",
    "TransactGetItems",
    "TransactWriteItems",
    "UntagResource",
    "UpdateItem",
    "UpdateTable",
    "UpdateTimeToLive",
];

/// What a transaction's idempotency token remembers.
#[derive(Debug, Clone)]
pub(crate) struct TokenEntry {
    /// The [`Json::digest`] of the request's TransactItems.
    pub(crate) request: u64,
    pub(crate) response: Result<Answer, DynamoError>,
    pub(crate) at: SystemTime,
}

/// All state of one fake DynamoDB.
#[derive(Debug)]
pub(crate) struct Engine {
    pub(crate) tables: BTreeMap<String, Table>,
    pub(crate) region: String,
    pub(crate) account: String,
    pub(crate) tokens: BTreeMap<String, TokenEntry>,
    pub(crate) next_table_id: u64,
    pub(crate) seed: u64,
    /// Whether a failed condition answers the item when the request asks for it.
    pub(crate) item_on_condition_failure: bool,
    /// How many requests of the next batch may be processed before the rest is returned
    /// unprocessed (set by a [`crate::Fault::Unprocessed`] for one request).
    pub(crate) batch_budget: Option<usize>,
    /// How long a table created through the API stays CREATING (zero: active at once).
    pub(crate) table_creation: Duration,
    /// The time of the request being answered.
    pub(crate) now: SystemTime,
}

impl Engine {
    pub(crate) fn new(seed: u64) -> Self {
        Engine {
            tables: BTreeMap::new(),
            region: "us-east-1".into(),
            account: "000000000000".into(),
            tokens: BTreeMap::new(),
            next_table_id: 0,
            seed,
            batch_budget: None,
            item_on_condition_failure: true,
            table_creation: Duration::ZERO,
            now: SystemTime::UNIX_EPOCH,
        }
    }

    /// Answers one request: the operation name and its parsed JSON body.
    pub(crate) fn handle(&mut self, operation: &str, body: &Json<'_>, now: SystemTime) -> Result<Body, DynamoError> {
        self.now = now;
        validate::check(operation, body)?;
        let _value_checks = crate::value::ValueChecks::of_operation(operation).enter();
        let answer = match operation {
            "PutItem" => return ops::items::put_item(self, body),
            "GetItem" => return ops::items::get_item(self, body),
            "UpdateItem" => return ops::items::update_item(self, body),
            "DeleteItem" => return ops::items::delete_item(self, body),
            "CreateTable" => ops::control::create_table(self, body, now),
            "DeleteTable" => ops::control::delete_table(self, body),
            "DescribeTable" => ops::control::describe_table(self, body),
            "ListTables" => ops::control::list_tables(self, body),
            "UpdateTable" => ops::control::update_table(self, body),
            "UpdateTimeToLive" => ops::control::update_time_to_live(self, body),
            "DescribeTimeToLive" => ops::control::describe_time_to_live(self, body),
            "DescribeLimits" => Ok(ops::control::describe_limits()),
            "DescribeEndpoints" => Ok(ops::control::describe_endpoints(self)),
            "TagResource" => return ops::tags::tag_resource(self, body),
            "UntagResource" => return ops::tags::untag_resource(self, body),
            "ListTagsOfResource" => ops::tags::list_tags_of_resource(self, body),
            "TransactWriteItems" => ops::transact::transact_write_items(self, body, now),
            "TransactGetItems" => ops::transact::transact_get_items(self, body),
            "Query" => ops::query::query(self, body),
            "Scan" => ops::scan::scan(self, body),
            "BatchGetItem" => ops::batch::batch_get_item(self, body),
            "BatchWriteItem" => ops::batch::batch_write_item(self, body),
            _ => Err(DynamoError::unknown_operation()),
        };
        answer.map(Body::from)
    }

    /// The table of this name, or DynamoDB's ResourceNotFoundException, which a table that is
    /// still being created gets too.
    pub(crate) fn table(&self, name: &str) -> Result<&Table, DynamoError> {
        self.tables.get(name).filter(|t| !t.is_creating(self.now)).ok_or_else(DynamoError::resource_not_found)
    }

    /// The table of this name, mutable.
    pub(crate) fn table_mut(&mut self, name: &str) -> Result<&mut Table, DynamoError> {
        let now = self.now;
        self.tables.get_mut(name).filter(|t| !t.is_creating(now)).ok_or_else(DynamoError::resource_not_found)
    }
}

/// The table a request names, for the request log and fault rules.
pub(crate) fn table_of<'a>(operation: &str, body: &Json<'a>) -> Option<&'a str> {
    if let Some(name) = body.get("TableName").and_then(Json::as_str) {
        return Some(name);
    }
    match operation {
        "BatchGetItem" | "BatchWriteItem" => {
            body.get("RequestItems").and_then(Json::as_object).and_then(|m| m.keys().next())
        }
        "TransactWriteItems" | "TransactGetItems" => {
            let first = body.get("TransactItems")?.as_array()?.first()?.as_object()?;
            first.values().find_map(|action| action.get("TableName")?.as_str())
        }
        "TagResource" | "UntagResource" | "ListTagsOfResource" => {
            let arn = body.get("ResourceArn")?.as_str()?;
            arn.rsplit_once("table/").map(|(_, name)| name.split('/').next().unwrap_or(name))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::OPERATIONS;

    #[test]
    fn operations_are_sorted_for_binary_search() {
        assert!(OPERATIONS.windows(2).all(|pair| pair[0] < pair[1]));
    }
}
