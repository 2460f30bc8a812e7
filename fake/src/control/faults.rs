//! Fault rules over HTTP: `POST faults` adds one, `GET faults` lists them with how often each
//! fired, `DELETE faults/ID` removes one and `DELETE faults` all.
//!
//! A rule: `{"Fault": "Throttle", "Operation": "UpdateItem", "Table": "Shop", "Account":
//! "111122223333", "Region": "eu-west-1", "Probability": 0.5, "Times": 1, "After": 2}`. The kinds: `Throttle`, `ThrottlingException`,
//! `InternalServerError`, `LostResponse`, `ResourceNotFound`, `Latency` and `SlowResponse` (with
//! `DelayMs`), `Error` (with `Code`, and `Message` and `Status`, 400 by default), `Unprocessed`
//! (with `Processed`) and `StaleRead` (with `MaxLagMs`, at most an hour).

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Answer, Refusal};
use crate::fake::FakeDynamoDb;
use crate::faults::{Fault, FaultRule, Slot};
use crate::operation::Operation;
use crate::place::{PlaceFilter, is_account_id, is_region};

/// The kinds of fault, as a rule names them.
const KINDS: &str = "Throttle, ThrottlingException, InternalServerError, LostResponse, ResourceNotFound, \
     Latency, SlowResponse, Error, Unprocessed, StallReplication, StaleRead";

/// A rule as `POST faults` takes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub(super) struct Rule {
    fault: String,
    operation: Option<String>,
    table: Option<String>,
    account: Option<String>,
    region: Option<String>,
    probability: Option<f64>,
    times: Option<u64>,
    after: Option<u64>,
    delay_ms: Option<u64>,
    code: Option<String>,
    message: Option<String>,
    status: Option<u16>,
    processed: Option<usize>,
    max_lag_ms: Option<i64>,
}

impl Rule {
    /// The rule as the fake takes it, or what is wrong with it.
    fn to_rule(&self) -> Result<FaultRule, Refusal> {
        let kind = self.fault.as_str();
        let needs = |member: &str, given: bool| {
            if given { Ok(()) } else { Err(Refusal::bad(format!("a {kind} fault needs {member}"))) }
        };
        let fault = match kind {
            "Throttle" => Fault::Throttle,
            "ThrottlingException" => Fault::ThrottlingException,
            "InternalServerError" => Fault::InternalServerError,
            "LostResponse" => Fault::LostResponse,
            "ResourceNotFound" => Fault::ResourceNotFound,
            "StallReplication" => Fault::StallReplication,
            "Latency" | "SlowResponse" => {
                needs("DelayMs", self.delay_ms.is_some())?;
                let delay = Duration::from_millis(self.delay_ms.unwrap_or_default());
                if kind == "Latency" { Fault::Latency(delay) } else { Fault::SlowResponse(delay) }
            }
            "Error" => {
                let code = self.code.clone().filter(|code| !code.is_empty());
                needs("Code (for example AccessDeniedException)", code.is_some())?;
                let status = self.status.unwrap_or(400);
                if !(400..=599).contains(&status) {
                    return Err(Refusal::bad(format!("Status {status} is not an error status (400 to 599)")));
                }
                Fault::Error {
                    status,
                    code: code.unwrap_or_default(),
                    message: self.message.clone().unwrap_or_default(),
                }
            }
            "Unprocessed" => {
                needs("Processed (how many requests of a batch are processed)", self.processed.is_some())?;
                Fault::Unprocessed(self.processed.unwrap_or_default())
            }
            "StaleRead" => {
                needs("MaxLagMs (how far back an eventually consistent read may look)", self.max_lag_ms.is_some())?;
                Fault::StaleRead(stale_read_bound(self.max_lag_ms.unwrap_or_default())?)
            }
            other => return Err(Refusal::bad(format!("unknown Fault `{other}`; the kinds are {KINDS}"))),
        };
        let stray = [
            ("DelayMs", self.delay_ms.is_some(), matches!(fault, Fault::Latency(_) | Fault::SlowResponse(_))),
            ("Code", self.code.is_some(), matches!(fault, Fault::Error { .. })),
            ("Message", self.message.is_some(), matches!(fault, Fault::Error { .. })),
            ("Status", self.status.is_some(), matches!(fault, Fault::Error { .. })),
            ("Processed", self.processed.is_some(), matches!(fault, Fault::Unprocessed(_))),
            ("MaxLagMs", self.max_lag_ms.is_some(), matches!(fault, Fault::StaleRead(_))),
        ];
        if let Some((member, ..)) = stray.iter().find(|(_, given, belongs)| *given && !belongs) {
            return Err(Refusal::bad(format!("{member} does not apply to a {kind} fault")));
        }
        let mut rule = FaultRule::new(fault);
        if let Some(operation) = &self.operation {
            if Operation::from_name(operation).is_none() {
                return Err(Refusal::bad(format!(
                    "unknown Operation `{operation}`: name a DynamoDB or DynamoDB Streams operation, such as PutItem"
                )));
            }
            if matches!(rule.fault(), Fault::StaleRead(_)) && !crate::stale::can_read_stale(operation) {
                return Err(Refusal::bad(format!(
                    "a StaleRead fault meets only reads that can be eventually consistent (GetItem, BatchGetItem, \
                     Query, Scan, ExecuteStatement, BatchExecuteStatement), not {operation}"
                )));
            }
            rule = rule.operation(operation.as_str());
        }
        if let Some(table) = &self.table {
            rule = rule.table(table.as_str());
        }
        if let Some(account) = &self.account {
            if !is_account_id(account) {
                return Err(Refusal::bad(format!("Account `{account}` is not an account id of twelve digits")));
            }
            rule = rule.account(account.as_str());
        }
        if let Some(region) = &self.region {
            if !is_region(region) {
                return Err(Refusal::bad(format!("Region `{region}` is not a region's name, such as eu-west-1")));
            }
            rule = rule.region(region.as_str());
        }
        if let Some(probability) = self.probability {
            if !(0.0..=1.0).contains(&probability) {
                return Err(Refusal::bad(format!("Probability {probability} is not from 0.0 to 1.0")));
            }
            rule = rule.probability(probability);
        }
        if let Some(times) = self.times {
            rule = rule.times(times);
        }
        if let Some(after) = self.after {
            rule = rule.after(after);
        }
        Ok(rule)
    }
}

/// The bound of a `StaleRead` fault of `MaxLagMs` milliseconds: from zero to an hour.
fn stale_read_bound(max_lag_ms: i64) -> Result<Duration, Refusal> {
    let most = Fault::STALE_READ_MAX.as_millis();
    match u64::try_from(max_lag_ms) {
        Ok(ms) if u128::from(ms) <= most => Ok(Duration::from_millis(ms)),
        _ => Err(Refusal::bad(format!(
            "MaxLagMs {max_lag_ms} is not a lag a StaleRead fault can have: give milliseconds from 0 to {most} (an hour)"
        ))),
    }
}

/// A rule as the control API shows it.
fn shown(slot: &Slot) -> Value {
    let rule = &slot.rule;
    let mut out = Map::new();
    out.insert("Id".into(), json!(slot.id));
    out.insert("Fault".into(), json!(rule.fault.name()));
    match &rule.fault {
        Fault::Latency(delay) | Fault::SlowResponse(delay) => {
            out.insert("DelayMs".into(), json!(delay.as_millis() as u64));
        }
        Fault::Error { status, code, message } => {
            out.insert("Code".into(), json!(code));
            out.insert("Message".into(), json!(message));
            out.insert("Status".into(), json!(status));
        }
        Fault::Unprocessed(processed) => {
            out.insert("Processed".into(), json!(processed));
        }
        Fault::StaleRead(bound) => {
            out.insert("MaxLagMs".into(), json!(bound.as_millis() as u64));
        }
        _ => {}
    }
    if let Some(operation) = &rule.operation {
        out.insert("Operation".into(), json!(operation));
    }
    if let Some(table) = &rule.table {
        out.insert("Table".into(), json!(table));
    }
    if let Some(account) = &rule.account {
        out.insert("Account".into(), json!(account));
    }
    if let Some(region) = &rule.region {
        out.insert("Region".into(), json!(region));
    }
    out.insert("Probability".into(), json!(f64::from(rule.per_million) / 1_000_000.0));
    if let Some(remaining) = rule.remaining {
        out.insert("Times".into(), json!(slot.fired + remaining));
        out.insert("Remaining".into(), json!(remaining));
    }
    out.insert("After".into(), json!(rule.skip));
    out.insert("Matched".into(), json!(slot.seen));
    out.insert("Fired".into(), json!(slot.fired));
    Value::Object(out)
}

/// Whether a rule is one of those `places` names: with `account=ID`, the rules for that account
/// (`Account`); with `region=NAME`, those for that region.
fn named(slot: &Slot, places: &PlaceFilter) -> bool {
    let rule = &slot.rule;
    places.account.as_ref().is_none_or(|account| rule.account.as_ref() == Some(account))
        && places.region.as_ref().is_none_or(|region| rule.region.as_ref() == Some(region))
}

/// `GET faults`: every rule, or those for the account and region named.
pub(super) fn list(fake: &FakeDynamoDb, places: &PlaceFilter) -> Value {
    let rules: Vec<Value> = fake.fault_slots().iter().filter(|slot| named(slot, places)).map(shown).collect();
    json!({ "Rules": rules })
}

/// `POST faults`.
pub(super) fn add(fake: &FakeDynamoDb, rule: Rule) -> Answer {
    let id = fake.inject_numbered(rule.to_rule()?);
    let slot = fake.fault_slots().into_iter().find(|slot| slot.id == id);
    Ok(slot.as_ref().map_or_else(|| json!({ "Id": id }), shown))
}

/// `DELETE faults/ID`.
pub(super) fn remove(fake: &FakeDynamoDb, id: &str) -> Answer {
    let number: u64 = id.parse().map_err(|_| Refusal::bad(format!("`{id}` is not a rule id: ids are numbers")))?;
    if fake.remove_fault(number) {
        Ok(json!({ "Removed": [number] }))
    } else {
        Err(Refusal { status: 404, message: format!("there is no fault rule {number}") })
    }
}

/// `DELETE faults`: every rule, or those for the account and region named.
pub(super) fn remove_all(fake: &FakeDynamoDb, places: &PlaceFilter) -> Value {
    let ids: Vec<u64> = fake.fault_slots().iter().filter(|slot| named(slot, places)).map(|slot| slot.id).collect();
    for id in &ids {
        fake.remove_fault(*id);
    }
    json!({ "Removed": ids })
}
