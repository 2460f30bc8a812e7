//! The request log over HTTP: `GET requests?limit=N` (the latest N, oldest first; all the log
//! keeps without `limit`) and `DELETE requests`, each narrowed to the requests of an account or
//! a region by `account=ID` and `region=NAME`.

use serde_json::{Map, Value, json};

use super::query::Query;
use super::{Answer, time_text};
use crate::fake::FakeDynamoDb;
use crate::place::PlaceFilter;

/// `GET requests`.
pub(super) fn list(fake: &FakeDynamoDb, query: &Query) -> Answer {
    let requests: Vec<Value> = fake
        .latest_requests(query.limit.unwrap_or(usize::MAX), &query.places)
        .into_iter()
        .map(|record| {
            let mut out = Map::new();
            out.insert("Time".into(), json!(time_text(record.at)));
            out.insert("Operation".into(), json!(record.operation));
            if let Some(table) = record.table {
                out.insert("Table".into(), json!(table));
            }
            out.insert("Account".into(), json!(record.account));
            out.insert("Region".into(), json!(record.region));
            out.insert("Outcome".into(), json!(record.error.as_deref().unwrap_or("OK")));
            if let Some(fault) = record.fault {
                out.insert("Fault".into(), json!(fault));
            }
            if let Some(seen) = record.read_as_of {
                out.insert("ReadAsOf".into(), json!(time_text(seen)));
            }
            Value::Object(out)
        })
        .collect();
    Ok(json!({ "Requests": requests }))
}

/// `DELETE requests`: the requests of the places named forgotten (all without `account` or
/// `region`).
pub(super) fn clear(fake: &FakeDynamoDb, places: &PlaceFilter) -> Value {
    fake.forget_requests(places);
    json!({ "Requests": [] })
}
