//! The fake's tables over HTTP: `POST reset` (to a time, if given), `GET snapshot`, `PUT snapshot` (load one) and
//! `POST save` (to the server's data file).

use std::path::Path;

use serde_json::{Value, json};

use super::{Answer, Refusal, clock};
use crate::fake::FakeDynamoDb;
use crate::snapshot::Snapshot;

/// `POST reset`: every table gone; with `Time` or `EpochSeconds`, the clock put there too,
/// earlier or later than its time (with no table left, nothing that fell due is left to undo).
pub(super) fn reset(fake: &FakeDynamoDb, at: clock::Set) -> Answer {
    if at.is_empty() {
        fake.reset();
        return Ok(json!({ "Tables": [] }));
    }
    let reading = fake.reset_to(at.time("reset")?).map_err(clock::refused)?;
    Ok(json!({ "Tables": [], "Clock": clock::reading(reading) }))
}

/// `GET snapshot`.
pub(super) fn snapshot(fake: &FakeDynamoDb) -> Value {
    fake.snapshot().document
}

/// `PUT snapshot`: the tables of the body, in place of every table, or nothing changed.
pub(super) fn load(fake: &FakeDynamoDb, body: &[u8]) -> Answer {
    let text = std::str::from_utf8(body).map_err(|_| Refusal::bad("the snapshot is not UTF-8 text"))?;
    let snapshot =
        Snapshot::from_json(text).map_err(|error| Refusal::bad(format!("the snapshot cannot be loaded: {error}")))?;
    fake.restore(&snapshot);
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
