//! The clock over HTTP: `GET clock`, `POST clock/freeze`, `clock/resume`, `clock/set`
//! (`{"Time": "2026-01-01T00:00:00Z"}` or `{"EpochSeconds": 1767225600}`) and `clock/advance`
//! (`{"By": "2days"}` or `{"Seconds": 172800}`); `POST reset` takes a time the way `clock/set` does.
//! With `?account=ID`, each steps the clock of that account alone.

use std::time::{Duration, SystemTime};

use serde::Deserialize;
use serde_json::{Value, json};

use super::{Answer, Refusal, time_text};
use crate::ClockReading;
use crate::clock::ClockError;
use crate::fake::FakeDynamoDb;
use crate::time_control::Step;

/// A reading as the control API answers it.
pub(super) fn reading(reading: ClockReading) -> Value {
    let millis = reading.now.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
    json!({
        "Time": time_text(reading.now),
        "EpochSeconds": crate::clock::epoch_timestamp(reading.now),
        "EpochMillis": millis as u64,
        "Frozen": reading.frozen,
    })
}

/// A refused change of the clock.
pub(super) fn refused(error: ClockError) -> Refusal {
    let status = match error {
        ClockError::NotControlled => 409,
        _ => 400,
    };
    Refusal { status, message: error.to_string() }
}

/// `GET clock`: the fake's clock, or the clock of `account` (the fake's, until the account's has
/// been steered alone).
pub(super) fn read(fake: &FakeDynamoDb, account: Option<&str>) -> Answer {
    match account {
        None => Ok(reading(fake.clock_reading())),
        Some(_) => steer(fake, account, Step::Read),
    }
}

/// `POST clock/freeze` and `POST clock/resume`, and the steps of `set` and `advance`: of the
/// fake's clock (and every account's), or of the clock of `account` alone.
pub(super) fn steer(fake: &FakeDynamoDb, account: Option<&str>, step: Step) -> Answer {
    fake.steer(account, step).map(reading).map_err(refused)
}

/// The parameters of `POST clock/set`: one of the two.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub(super) struct Set {
    pub(super) time: Option<String>,
    pub(super) epoch_seconds: Option<f64>,
}

/// `POST clock/set`.
pub(super) fn set(fake: &FakeDynamoDb, account: Option<&str>, set: Set) -> Answer {
    steer(fake, account, Step::Set(set.time("clock/set")?))
}

impl Set {
    /// Whether neither member is given.
    pub(super) fn is_empty(&self) -> bool {
        self.time.is_none() && self.epoch_seconds.is_none()
    }

    /// The time named, or what is wrong with it; `endpoint` names the request in the message.
    pub(super) fn time(self, endpoint: &str) -> Result<SystemTime, Refusal> {
        match (self.time, self.epoch_seconds) {
            (Some(text), None) => humantime::parse_rfc3339_weak(&text).map_err(|error| {
                Refusal::bad(format!("Time `{text}` is not an RFC 3339 time such as 2026-01-01T00:00:00Z: {error}"))
            }),
            (None, Some(secs)) if secs.is_finite() && secs >= 0.0 => {
                Ok(SystemTime::UNIX_EPOCH + Duration::from_millis((secs * 1000.0).round() as u64))
            }
            (None, Some(secs)) => Err(Refusal::bad(format!("EpochSeconds {secs} is not a time after 1970"))),
            _ => Err(Refusal::bad(format!("{endpoint} takes either Time (RFC 3339) or EpochSeconds"))),
        }
    }
}

/// The parameters of `POST clock/advance`: one of the two.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub(super) struct Advance {
    by: Option<String>,
    seconds: Option<f64>,
}

/// `POST clock/advance`.
pub(super) fn advance(fake: &FakeDynamoDb, account: Option<&str>, advance: Advance) -> Answer {
    let by = match (advance.by, advance.seconds) {
        (Some(text), None) => humantime::parse_duration(&text).map_err(|error| {
            Refusal::bad(format!("By `{text}` is not a duration such as 90s, 15m, 2h or 2days: {error}"))
        })?,
        (None, Some(secs)) => Duration::try_from_secs_f64(secs).map_err(|_| {
            Refusal::bad(format!("Seconds {secs} is not a duration: the clock only moves forward, by a finite time"))
        })?,
        _ => return Err(Refusal::bad("clock/advance takes either By (such as 2days) or Seconds")),
    };
    steer(fake, account, Step::Advance(by))
}
