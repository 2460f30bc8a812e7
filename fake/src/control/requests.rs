//! The request log over HTTP: `GET requests?limit=N` (the latest N, oldest first; all the log
//! keeps without `limit`) and `DELETE requests`.

use serde_json::{Map, Value, json};

use super::{Answer, Refusal, time_text};
use crate::fake::FakeDynamoDb;

/// `GET requests`.
pub(super) fn list(fake: &FakeDynamoDb, query: Option<&str>) -> Answer {
    let mut limit = usize::MAX;
    for pair in query.unwrap_or("").split('&').filter(|pair| !pair.is_empty()) {
        match pair.split_once('=') {
            Some(("limit", value)) => {
                limit =
                    value.parse().map_err(|_| Refusal::bad(format!("limit `{value}` is not a number of requests")))?;
            }
            _ => return Err(Refusal::bad(format!("`{pair}` is not a parameter of requests; it takes limit=N"))),
        }
    }
    let requests: Vec<Value> = fake
        .latest_requests(limit)
        .into_iter()
        .map(|record| {
            let mut out = Map::new();
            out.insert("Time".into(), json!(time_text(record.at)));
            out.insert("Operation".into(), json!(record.operation));
            if let Some(table) = record.table {
                out.insert("Table".into(), json!(table));
            }
            out.insert("Outcome".into(), json!(record.error.as_deref().unwrap_or("OK")));
            if let Some(fault) = record.fault {
                out.insert("Fault".into(), json!(fault));
            }
            Value::Object(out)
        })
        .collect();
    Ok(json!({ "Requests": requests }))
}

/// `DELETE requests`.
pub(super) fn clear(fake: &FakeDynamoDb) -> Value {
    fake.clear_request_log();
    json!({ "Requests": [] })
}
