//! The fake's tables over HTTP: `POST reset` (to a time, if given), `GET snapshot`, `PUT snapshot` (load one) and
//! `POST save` (to the server's data file).

use std::path::Path;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{Answer, Refusal, clock};
use crate::fake::FakeDynamoDb;
use crate::place::PlaceFilter;
use crate::snapshot::Snapshot;

/// `POST reset`: every table of the places named gone (of every place without `account` or
/// `region`); with `Time` or `EpochSeconds`, the clock put there too (the account's own, with
/// `account` alone), earlier or later than its time (with no table left, nothing that fell due
/// is left to undo).
pub(super) fn reset(fake: &FakeDynamoDb, places: &PlaceFilter, reset: Reset) -> Answer {
    let at = clock::Set { time: reset.time, epoch_seconds: reset.epoch_seconds };
    if at.is_empty() {
        if reset.frozen.is_some() {
            return Err(Refusal::bad("Frozen goes with a time (Time or EpochSeconds) to put the clock at"));
        }
        fake.reset_places(places);
        return Ok(json!({ "Tables": [] }));
    }
    let time = at.time("reset")?;
    let reading = match (&places.account, &places.region) {
        (None, None) => fake.reset_to(time, reset.frozen),
        (Some(account), None) => fake.reset_account_to(account, time, reset.frozen),
        (_, Some(_)) => {
            return Err(Refusal::bad(
                "reset with a time is for a whole account (a clock is an account's, for all its regions) or for the \
                 whole server: give account=ID alone, or neither",
            ));
        }
    };
    Ok(json!({ "Tables": [], "Clock": clock::reading(reading.map_err(clock::refused)?) }))
}

/// The parameters of `POST reset`: a time as `clock/set` takes it, if any, and whether the clock
/// stands still there (`Frozen: true`), runs from there (`false`) or does as it did (absent).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub(super) struct Reset {
    time: Option<String>,
    epoch_seconds: Option<f64>,
    frozen: Option<bool>,
}

/// `GET snapshot`: the tables of the places named (of every place without `account` or
/// `region`).
pub(super) fn snapshot(fake: &FakeDynamoDb, places: &PlaceFilter) -> Value {
    fake.snapshot_of(places).document
}

/// `PUT snapshot`: the tables of the body, in place of every table of the places named, or
/// nothing changed. Its `Tables` go to the account and region named (the default ones for what
/// is not named).
pub(super) fn load(fake: &FakeDynamoDb, places: &PlaceFilter, body: &[u8]) -> Answer {
    let text = std::str::from_utf8(body).map_err(|_| Refusal::bad("the snapshot is not UTF-8 text"))?;
    let snapshot =
        Snapshot::from_json(text).map_err(|error| Refusal::bad(format!("the snapshot cannot be loaded: {error}")))?;
    fake.restore_into(&snapshot, places)
        .map_err(|error| Refusal::bad(format!("the snapshot cannot be loaded: {error}")))?;
    Ok(json!({ "Tables": snapshot.table_names() }))
}

/// `POST save`: the tables written to the data file, atomically.
pub(super) fn save(fake: &FakeDynamoDb, data: Option<&Path>) -> Answer {
    let Some(path) = data else {
        return Err(Refusal { status: 409, message: "this server has no data file: start it with --data FILE".into() });
    };
    let snapshot = fake.snapshot();
    snapshot.write_file(path).map_err(|error| Refusal {
        status: 500,
        message: format!("the data file {} cannot be written: {error}", path.display()),
    })?;
    Ok(json!({ "File": path.display().to_string(), "Tables": snapshot.table_names() }))
}
