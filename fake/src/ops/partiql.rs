//! ExecuteStatement, BatchExecuteStatement and ExecuteTransaction: each statement is parsed,
//! bound to its parameters and answered by the item operation (or transaction) that does the
//! same ([`crate::partiql::lower`]).

use serde_json::{Map, Value as Answer, json};

use crate::engine::Engine;
use crate::error::DynamoError;
use crate::json::Json;
use crate::operation::Operation;
use crate::partiql::ast::Statement;
use crate::partiql::lower::{Lowered, lower, parameter_count, selects_one_item};
use crate::request::string;
use crate::value::Value;

/// DynamoDB's error for an INSERT of a key that exists.
fn duplicate_item() -> DynamoError {
    DynamoError::custom(400, "DuplicateItemException", "Duplicate primary key exists in table")
}

/// A statement of a request, parsed, with its parameters.
struct Bound {
    statement: Statement,
    params: Vec<Value>,
}

/// Reads and parses one statement (`Statement` and `Parameters` of `member`).
fn bind(member: &Json<'_>) -> Result<Bound, DynamoError> {
    let (statement, count) = crate::partiql::parse(string(member, "Statement").unwrap_or_default())?;
    let params = match member.get("Parameters").and_then(Json::as_array) {
        Some(values) => values.iter().map(Value::from_json).collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    if params.len() != count {
        return Err(parameter_count());
    }
    Ok(Bound { statement, params })
}

/// The members of `body` a statement's item operation takes over.
fn options(body: &Json<'_>, members: &[&str]) -> Map<String, Answer> {
    members.iter().filter_map(|m| body.get(m).map(|v| ((*m).to_owned(), v.to_value()))).collect()
}

/// The statement as an item operation's request, outside a transaction.
fn lowered(engine: &Engine, bound: &Bound, options: &Map<String, Answer>) -> Result<Lowered, DynamoError> {
    refuse_exists(&bound.statement)?;
    let table = engine.table(bound.statement.table())?;
    lower(&bound.statement, table, &bound.params, options)
}

/// An EXISTS checks a condition of a transaction: alone, it has nothing to check.
fn refuse_exists(statement: &Statement) -> Result<(), DynamoError> {
    match statement {
        Statement::Exists(_) => Err(DynamoError::validation("EXISTS is only supported in ExecuteTransaction")),
        _ => Ok(()),
    }
}

/// Answers an item operation's request through the engine; the answer as JSON.
fn run(engine: &mut Engine, operation: Operation, body: &Answer) -> Result<Answer, DynamoError> {
    let now = engine.now;
    // The request being answered lives in the thread's arena: this one gets an arena of its own.
    let (text, arena) = (body.to_string(), crate::json::Arena::new());
    let request = crate::json::from_slice(text.as_bytes(), &arena).unwrap_or_default();
    Ok(match engine.handle(operation, &request, now)? {
        crate::json::Body::Value(value) => value,
        crate::json::Body::Bytes(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
    })
}

/// Runs a lowered statement; an INSERT's failed condition is the key that exists.
fn run_lowered(engine: &mut Engine, lowered: &Lowered) -> Result<Answer, DynamoError> {
    run(engine, lowered.operation, &lowered.body).map_err(|error| {
        if lowered.insert && error.code() == "ConditionalCheckFailedException" {
            let duplicate = duplicate_item();
            match error.extra.as_ref().and_then(|extra| extra.get("Item")) {
                Some(item) => duplicate.with("Item", item.clone()),
                None => duplicate,
            }
        } else {
            error
        }
    })
}

/// A page token for where a read stopped, and back.
fn next_token(key: &Answer) -> String {
    key.to_string().bytes().map(|b| format!("{b:02x}")).collect()
}

fn start_key(token: &str) -> Result<Answer, DynamoError> {
    let invalid = || DynamoError::validation("Invalid NextToken");
    if token.len() % 2 != 0 {
        return Err(invalid());
    }
    let bytes = (0..token.len())
        .step_by(2)
        .map(|at| token.get(at..at + 2).and_then(|hex| u8::from_str_radix(hex, 16).ok()))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(invalid)?;
    serde_json::from_slice::<Answer>(&bytes).ok().filter(Answer::is_object).ok_or_else(invalid)
}

/// ExecuteStatement.
pub(crate) fn execute_statement(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let bound = bind(body)?;
    let mut options =
        options(body, &["ConsistentRead", "Limit", "ReturnConsumedCapacity", "ReturnValuesOnConditionCheckFailure"]);
    if let Some(token) = string(body, "NextToken") {
        options.insert("ExclusiveStartKey".into(), start_key(token)?);
    }
    let lowered = lowered(engine, &bound, &options)?;
    let answer = run_lowered(engine, &lowered)?;
    let mut items: Vec<Answer> = match lowered.operation {
        Operation::GetItem => answer.get("Item").map(|item| lowered.present(item)).into_iter().collect(),
        Operation::Query | Operation::Scan => answer
            .get("Items")
            .and_then(Answer::as_array)
            .map(|items| items.iter().map(|item| lowered.present(item)).collect())
            .unwrap_or_default(),
        _ => answer.get("Attributes").cloned().into_iter().collect(),
    };
    if !lowered.order.is_empty() {
        items.sort_by(|a, b| ordered(a, b, &lowered.order));
    }
    let mut out = json!({ "Items": items });
    if let Some(last) = answer.get("LastEvaluatedKey") {
        out["NextToken"] = json!(next_token(last));
        out["LastEvaluatedKey"] = last.clone();
    }
    if let Some(consumed) = answer.get("ConsumedCapacity") {
        out["ConsumedCapacity"] = consumed.clone();
    }
    Ok(out)
}

/// How two items of an answer follow each other by the keys of an `ORDER BY`: numbers by value,
/// strings and binaries bytewise, as DynamoDB orders keys.
fn ordered(a: &Answer, b: &Answer, order: &[(String, bool)]) -> std::cmp::Ordering {
    let key = |item: &Answer, attribute: &str| -> Option<Value> {
        let value = item.get(attribute)?;
        if let Some(text) = value.get("S").and_then(Answer::as_str) {
            return Some(Value::S(text.to_owned()));
        }
        if let Some(number) = value.get("N").and_then(Answer::as_str) {
            return crate::number::Number::parse(number).ok().map(Value::N);
        }
        let binary = value.get("B").and_then(Answer::as_str)?;
        aws_smithy_types::base64::decode(binary).ok().map(Value::B)
    };
    order
        .iter()
        .map(|(attribute, descending)| {
            let by = match (key(a, attribute), key(b, attribute)) {
                (Some(x), Some(y)) => x.compare(&y).unwrap_or(std::cmp::Ordering::Equal),
                (x, y) => y.is_some().cmp(&x.is_some()),
            };
            if *descending { by.reverse() } else { by }
        })
        .find(|by| by.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

/// The code a BatchExecuteStatement answer gives an error.
fn batch_code(error: &DynamoError) -> &'static str {
    match error.code() {
        "ConditionalCheckFailedException" => "ConditionalCheckFailed",
        "DuplicateItemException" => "DuplicateItem",
        "ResourceNotFoundException" => "ResourceNotFound",
        "ProvisionedThroughputExceededException" => "ProvisionedThroughputExceeded",
        "ThrottlingException" => "ThrottlingError",
        "InternalServerError" => "InternalServerError",
        "TransactionConflictException" => "TransactionConflict",
        "ItemCollectionSizeLimitExceededException" => "ItemCollectionSizeLimitExceeded",
        "RequestLimitExceeded" => "RequestLimitExceeded",
        "AccessDeniedException" => "AccessDenied",
        _ => "ValidationError",
    }
}

/// DynamoDB's refusal of a batch or transaction that mixes reads and writes.
fn mixed() -> DynamoError {
    DynamoError::validation("Statements must be either all reads or all writes")
}

/// BatchExecuteStatement: each statement answered on its own, its error in its own answer.
pub(crate) fn batch_execute_statement(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let members = body.get("Statements").and_then(Json::as_array).unwrap_or_default();
    let bound: Vec<Result<Bound, DynamoError>> = members.iter().map(bind).collect();
    let reads = bound.iter().flatten().filter(|b| b.statement.is_read()).count();
    if reads != 0 && reads != bound.iter().flatten().count() {
        return Err(mixed());
    }
    let mut responses = Vec::with_capacity(members.len());
    for (member, bound) in members.iter().zip(bound) {
        let table = bound.as_ref().ok().map(|b| b.statement.table().to_owned());
        let answer = bound.and_then(|bound| {
            let options = options(member, &["ConsistentRead", "ReturnValuesOnConditionCheckFailure"]);
            refuse_exists(&bound.statement)?;
            let table = engine.table(bound.statement.table())?;
            if bound.statement.is_read() && !selects_one_item(&bound.statement, table, &bound.params) {
                return Err(DynamoError::validation(
                    "Select statements within BatchExecuteStatement must specify the primary key in the where clause.",
                ));
            }
            let lowered = lower(&bound.statement, table, &bound.params, &options)?;
            let mut answer = run_lowered(engine, &lowered)?;
            if let Some(item) = answer.get_mut("Item") {
                *item = lowered.present(item);
            }
            Ok(answer)
        });
        let mut response = Map::new();
        match answer {
            Ok(answer) => {
                if let Some(table) = table {
                    response.insert("TableName".into(), json!(table));
                }
                if let Some(item) = answer.get("Item") {
                    response.insert("Item".into(), item.clone());
                }
            }
            Err(error) => {
                let mut detail = json!({ "Code": batch_code(&error), "Message": error.message });
                if let Some(item) = error.extra.as_ref().and_then(|extra| extra.get("Item")) {
                    detail["Item"] = item.clone();
                }
                response.insert("Error".into(), detail);
                if let Some(table) = table.filter(|_| error.code() != "ResourceNotFoundException") {
                    response.insert("TableName".into(), json!(table));
                }
            }
        }
        responses.push(Answer::Object(response));
    }
    Ok(json!({ "Responses": responses }))
}

/// ExecuteTransaction: reads as TransactGetItems, writes as TransactWriteItems, all or nothing.
pub(crate) fn execute_transaction(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let members = body.get("TransactStatements").and_then(Json::as_array).unwrap_or_default();
    let bound = members.iter().map(bind).collect::<Result<Vec<_>, _>>()?;
    let reads = bound.iter().filter(|b| b.statement.is_read()).count();
    if reads != 0 && reads != bound.len() {
        return Err(mixed());
    }
    let mut actions = Vec::with_capacity(bound.len());
    let mut inserts = Vec::with_capacity(bound.len());
    let mut presented = Vec::with_capacity(bound.len());
    for (member, bound) in members.iter().zip(&bound) {
        let table = engine.table(bound.statement.table())?;
        if bound.statement.is_read() && !selects_one_item(&bound.statement, table, &bound.params) {
            return Err(crate::partiql::lower::whole_key_required());
        }
        let mut lowered =
            lower(&bound.statement, table, &bound.params, &options(member, &["ReturnValuesOnConditionCheckFailure"]))?;
        let mut action = std::mem::take(&mut lowered.body);
        if let Some(action) = action.as_object_mut() {
            action.remove("ReturnValues");
        }
        let kind = match lowered.operation {
            _ if lowered.condition_check => "ConditionCheck",
            Operation::GetItem => "Get",
            Operation::PutItem => "Put",
            Operation::UpdateItem => "Update",
            _ => "Delete",
        };
        actions.push(json!({ kind: action }));
        inserts.push(lowered.insert);
        presented.push(lowered);
    }
    let mut request = json!({ "TransactItems": actions });
    for member in ["ReturnConsumedCapacity", "ClientRequestToken"] {
        if let Some(value) = body.get(member).filter(|_| reads == 0 || member != "ClientRequestToken") {
            request[member] = value.to_value();
        }
    }
    if reads > 0 {
        let mut answer = run(engine, Operation::TransactGetItems, &request)?;
        let responses = answer.get_mut("Responses").and_then(Answer::as_array_mut).into_iter().flatten();
        for (response, lowered) in responses.zip(&presented) {
            if let Some(item) = response.get_mut("Item") {
                *item = lowered.present(item);
            }
        }
        return Ok(answer);
    }
    run(engine, Operation::TransactWriteItems, &request)
        .map(|answer| {
            let mut out = json!({});
            if let Some(consumed) = answer.get("ConsumedCapacity") {
                out["ConsumedCapacity"] = consumed.clone();
            }
            out
        })
        .map_err(|error| name_duplicates(error, &inserts))
}

/// A cancelled transaction's reasons as DynamoDB gives them for PartiQL: an INSERT whose key
/// exists is `DuplicateItem`, not a failed condition.
fn name_duplicates(mut error: DynamoError, inserts: &[bool]) -> DynamoError {
    if error.code() != "TransactionCanceledException" {
        return error;
    }
    let Some(reasons) = error.extra.as_mut().and_then(|extra| extra.get_mut("CancellationReasons")) else {
        return error;
    };
    let Some(reasons) = reasons.as_array_mut() else { return error };
    for (reason, _) in reasons.iter_mut().zip(inserts).filter(|(_, insert)| **insert) {
        if reason["Code"] == "ConditionalCheckFailed" {
            reason["Code"] = json!("DuplicateItem");
            reason["Message"] = json!("Duplicate primary key exists in table");
        }
    }
    let codes: Vec<String> = reasons.iter().map(|r| r["Code"].as_str().unwrap_or("None").to_owned()).collect();
    error.message =
        format!("Transaction cancelled, please refer cancellation reasons for specific reasons [{}]", codes.join(", "));
    error
}
