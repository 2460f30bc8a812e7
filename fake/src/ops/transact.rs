//! TransactWriteItems and TransactGetItems: all or nothing, with cancellation reasons in request
//! order and idempotency tokens that last ten minutes.

use std::collections::BTreeSet;
use std::time::{Duration, SystemTime};

use serde_json::{Map, json};

use crate::json::{Answer, Json};

use super::capacity::{self, Consumed, Halves, read_units, write_units};
use super::items::read_projection;
use super::write::{Failure, WriteKind, WritePlan};
use crate::engine::{Engine, TokenEntry};
use crate::error::DynamoError;
use crate::expr::project::project;
use crate::request::{item, names_context, string, table_name};
use crate::value::{item_size, item_to_json};

/// How long DynamoDB remembers a ClientRequestToken.
const TOKEN_LIFETIME: Duration = Duration::from_secs(600);

const ACTIONS: [&str; 4] = ["ConditionCheck", "Put", "Update", "Delete"];

/// TransactWriteItems.
pub(crate) fn transact_write_items(
    engine: &mut Engine,
    body: &Json<'_>,
    now: SystemTime,
) -> Result<Answer, DynamoError> {
    let token = string(body, "ClientRequestToken").map(str::to_owned);
    if let Some(token) = &token {
        engine.tokens.retain(|_, entry| now.duration_since(entry.at).map_or(true, |age| age < TOKEN_LIFETIME));
        if let Some(entry) = engine.tokens.get(token) {
            if entry.request == body["TransactItems"].digest() {
                return entry.response.clone();
            }
            return Err(DynamoError::idempotent_parameter_mismatch());
        }
    }
    let response = write(engine, body);
    if let Some(token) = token {
        // A request that failed validation is not remembered; one that ran (or was cancelled) is.
        let remember = match &response {
            Ok(_) => true,
            Err(e) => e.code() == "TransactionCanceledException",
        };
        if remember {
            let entry = TokenEntry { request: body["TransactItems"].digest(), response: response.clone(), at: now };
            engine.tokens.insert(token, entry);
        }
    }
    response
}

fn write(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let actions = body.get("TransactItems").and_then(Json::as_array).unwrap_or_default();
    let mut prepared = Vec::with_capacity(actions.len());
    for action in actions {
        let Some((kind, member)) = ACTIONS.iter().find_map(|k| action.get(k).map(|m| (*k, m))) else {
            return Err(DynamoError::validation("TransactItems can only contain one of Check, Put, Update or Delete"));
        };
        prepared.push(match WritePlan::prepare(engine, kind, member) {
            Ok(plan) => Ok(plan),
            Err(error) if is_cancellation(&error) => Err(error),
            Err(error) => return Err(error),
        });
    }
    let mut seen = BTreeSet::new();
    for plan in prepared.iter().flatten() {
        if !seen.insert((plan.table, plan.key.clone())) {
            return Err(DynamoError::validation("Transaction request cannot include multiple operations on one item"));
        }
    }
    check_payload(prepared.iter().flatten())?;
    let mut plans = Vec::with_capacity(prepared.len());
    let mut outcomes = Vec::with_capacity(prepared.len());
    let mut reasons = Vec::with_capacity(prepared.len());
    let mut cancelled = false;
    // DynamoDB stops at the first action that is invalid: those after it are not checked and
    // their reasons are `None` (ScyllaDB's Alternator suite, against DynamoDB).
    let mut stopped = false;
    for plan in prepared {
        if stopped {
            reasons.push(json!({"Code": "None"}));
            continue;
        }
        let evaluated = match &plan {
            Ok(plan) => plan.evaluate(engine),
            Err(error) => Err(Failure::Invalid(error.clone())),
        };
        if let Ok(plan) = plan {
            plans.push(plan);
        }
        match evaluated {
            Ok(outcome) => {
                reasons.push(json!({"Code": "None"}));
                outcomes.push(outcome);
            }
            Err(Failure::Condition(item)) => {
                cancelled = true;
                let mut reason = json!({"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"});
                if let Some(item) = item {
                    reason["Item"] = item_to_json(&item);
                }
                reasons.push(reason);
            }
            Err(Failure::Invalid(error)) => {
                cancelled = true;
                stopped = true;
                reasons.push(json!({"Code": "ValidationError", "Message": error.message}));
            }
        }
    }
    if cancelled {
        return Err(cancellation(reasons));
    }
    let mut spent = Spent::default();
    let metrics_asked = super::collection_metrics::asked(body);
    let mut metrics = super::collection_metrics::Collected::default();
    for (plan, staged) in plans.iter_mut().zip(outcomes) {
        let checked = matches!(plan.kind, WriteKind::Check).then(|| plan.current(engine).map_or(0, item_size));
        let outcome = plan.apply(engine, staged);
        if metrics_asked
            && checked.is_none()
            && let Some(table) = engine.tables.get(engine.plain_name(plan.table))
        {
            metrics.add(plan.table, table, &plan.key);
        }
        match checked {
            Some(size) => spent.read(plan.table, size),
            None => spent.write(plan.table, outcome.new_size.max(outcome.old.as_ref().map_or(0, item_size))),
        }
    }
    let mut answer = Map::new();
    if let Some(consumed) = spent.describe(body) {
        answer.insert("ConsumedCapacity".to_owned(), consumed);
    }
    let metrics = metrics.into_answer();
    if metrics.as_object().is_some_and(|m| !m.is_empty()) {
        answer.insert("ItemCollectionMetrics".to_owned(), metrics);
    }
    Ok(Answer::Object(answer))
}

/// A cancelled transaction, with the reason of each of its actions.
fn cancellation(reasons: Vec<Answer>) -> DynamoError {
    let codes: Vec<&str> = reasons.iter().map(|r| r["Code"].as_str().unwrap_or("None")).collect();
    let message =
        format!("Transaction cancelled, please refer cancellation reasons for specific reasons [{}]", codes.join(", "));
    DynamoError::transaction_canceled(message).with("CancellationReasons", Answer::Array(reasons))
}

/// The capacity a transaction consumed, per table in the order the tables first appear: twice
/// what the same reads and writes cost alone, read and write units apart.
#[derive(Debug, Default)]
struct Spent {
    /// (table, read units, write units).
    tables: Vec<(String, u64, u64)>,
}

impl Spent {
    fn entry(&mut self, table: &str) -> &mut (String, u64, u64) {
        let at = match self.tables.iter().position(|(name, _, _)| name == table) {
            Some(at) => at,
            None => {
                self.tables.push((table.to_owned(), 0, 0));
                self.tables.len() - 1
            }
        };
        &mut self.tables[at]
    }

    /// A transactional read of an item of `bytes` (0 for none): two units per started 4 KB.
    fn read(&mut self, table: &str, bytes: usize) {
        self.entry(table).1 += 2 * read_units(bytes);
    }

    /// A transactional write of an item of `bytes`: two units per started KB.
    fn write(&mut self, table: &str, bytes: usize) {
        self.entry(table).2 += 2 * write_units(bytes);
    }

    /// `ConsumedCapacity` as the request asked for it: each table's units with their read and
    /// write shares, and with `INDEXES` the same again as the table's own share.
    fn describe(&self, body: &Json<'_>) -> Option<Answer> {
        let detail = capacity::asked(body)?;
        let entries = self
            .tables
            .iter()
            .map(|(table, read, write)| Consumed::shares(table, Halves(2 * read), Halves(2 * write)).describe(detail));
        Some(Answer::Array(entries.collect()))
    }
}

/// The most data a transaction may carry: "the aggregate size of the items in the transaction
/// cannot exceed 4 MB".
const MAX_PAYLOAD_BYTES: usize = 4 * 1024 * 1024;

/// Refuses a transaction whose new items add up to more than 4 MB. DynamoDB counts what the
/// request carries, not the items it touches: deleting 5 MB of items in one small transaction is
/// allowed, putting 5 MB is not (ScyllaDB's Alternator suite, against DynamoDB, which matches the
/// refusal with `ValidationException.*size cannot exceed` and notes that DynamoDB speaks of the
/// "transaction payload"; the rest of the wording is ours).
fn check_payload<'p>(plans: impl Iterator<Item = &'p WritePlan<'p>>) -> Result<(), DynamoError> {
    let carried: usize = plans
        .map(|plan| match &plan.kind {
            WriteKind::Put(_, size) => *size,
            _ => 0,
        })
        .sum();
    if carried > MAX_PAYLOAD_BYTES {
        return Err(DynamoError::validation("Transaction payload size cannot exceed 4 MB"));
    }
    Ok(())
}

/// Whether an action's error cancels the transaction with a `ValidationError` reason rather than
/// refusing the whole request: a key or index key attribute of the wrong type (or not a scalar),
/// or a key without the table's key attributes, which DynamoDB finds only as it runs each
/// action. An empty key value, like every other mistake, refuses the request.
fn is_cancellation(error: &DynamoError) -> bool {
    error.code() == "ValidationException"
        && (error.message.starts_with("One or more parameter values were invalid: Type mismatch for ")
            || error.message == "The provided key element does not match the schema")
}

/// TransactGetItems.
pub(crate) fn transact_get_items(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let actions = body.get("TransactItems").and_then(Json::as_array).unwrap_or_default();
    let mut prepared = Vec::with_capacity(actions.len());
    for action in actions {
        let get = action.get("Get").cloned().unwrap_or(Json::Null);
        let name = table_name(&get, engine.place())?.to_owned();
        let key_item = item(&get, "Key")?;
        crate::validate::check_expression_names(&get)?;
        let mut ctx = names_context(&get)?;
        let projection = read_projection(&get, &mut ctx)?;
        ctx.check_unused()?;
        let table = engine.table(&name)?;
        prepared.push(match table.primary_key(&key_item) {
            Ok(key) => Ok((name, key, projection)),
            Err(error) if is_cancellation(&error) => Err(error),
            Err(error) => return Err(error),
        });
    }
    let mut seen = BTreeSet::new();
    for (name, key, _) in prepared.iter().flatten() {
        if !seen.insert((name.clone(), key.clone())) {
            return Err(DynamoError::validation("Transaction request cannot include multiple operations on one item"));
        }
    }
    // A key that does not match its table's schema cancels the transaction, as it does a write
    // (nubo-db's conformance suite, recorded against DynamoDB); the actions after it are not read.
    if prepared.iter().any(Result::is_err) {
        let mut reasons = Vec::with_capacity(prepared.len());
        let mut stopped = false;
        for action in &prepared {
            match action {
                Err(error) if !stopped => {
                    stopped = true;
                    reasons.push(json!({"Code": "ValidationError", "Message": error.message}));
                }
                _ => reasons.push(json!({"Code": "None"})),
            }
        }
        return Err(cancellation(reasons));
    }
    let reads: Vec<_> = prepared.into_iter().flatten().collect();
    let mut responses = Vec::with_capacity(reads.len());
    let mut spent = Spent::default();
    for (name, key, projection) in &reads {
        let found = engine.table(name)?.items.get(key);
        spent.read(name, found.map_or(0, item_size));
        let entry = match found {
            Some(found) => {
                let shown = match projection {
                    Some(paths) => project(found, paths),
                    None => found.clone(),
                };
                json!({ "Item": item_to_json(&shown) })
            }
            None => json!({}),
        };
        responses.push(entry);
    }
    let mut answer = json!({ "Responses": responses });
    if let Some(consumed) = spent.describe(body) {
        answer["ConsumedCapacity"] = consumed;
    }
    Ok(answer)
}
