//! Eventually consistent reads that see the past: what [`crate::Fault::StaleRead`] makes of a
//! read.
//!
//! - [`History`] (`history.rs`): the changes of a table's items over the last while, kept
//!   backwards (each change keeps the item as it was before), from which the table at an instant
//!   of that while is the table now with every later change undone;
//! - [`Past`] (`past.rs`): the items a read at an instant finds changed since, as they were then,
//!   and the entries of an index they had: a view of the table (or of one index) at that
//!   instant, read through the same ordered maps as the present one;
//! - [`keep_history`] and [`fit`]: which tables keep a history, and for how long: every table of
//!   an engine while a rule of the fault is in force, for the largest bound of those rules, and
//!   none at all otherwise; [`start_from_now`]: a table filled as it is made (a restore, an
//!   import, a replica) starts its history with its items there;
//! - [`instant`], [`item_at`], [`past`]: what one eventually consistent read of a request sees.
//!
//! A request drawn a lag sees every table it reads at one instant, `now - lag`; only its
//! eventually consistent reads do, never its writes, its conditions or its strongly consistent
//! reads.

mod history;
mod past;

use std::time::{Duration, SystemTime};

pub(crate) use history::History;
pub(crate) use past::Past;

use crate::engine::Engine;
use crate::index::Index;
use crate::table::{PrimaryKey, Table};
use crate::value::Item;

/// Whether a request of `operation` can read eventually consistently, and so be stale: the only
/// requests a [`crate::Fault::StaleRead`] rule meets.
pub(crate) fn can_read_stale(operation: &str) -> bool {
    matches!(operation, "GetItem" | "BatchGetItem" | "Query" | "Scan" | "ExecuteStatement" | "BatchExecuteStatement")
}

/// Makes every table of `engine` keep the changes of its items for `horizon` (none for `None`),
/// and the tables it makes later too. Nothing to do when that is what it keeps already.
pub(crate) fn keep_history(engine: &mut Engine, horizon: Option<Duration>) {
    if engine.history == horizon {
        return;
    }
    engine.history = horizon;
    for table in engine.tables.values_mut() {
        fit(table, horizon);
    }
}

/// Makes `table` keep the changes of its items for `horizon`: a history started now, or its
/// history kept for that long from now on, or none for `None`.
pub(crate) fn fit(table: &mut Table, horizon: Option<Duration>) {
    match horizon {
        Some(horizon) => {
            let changes = table.changes.get_or_insert_with(Box::default);
            match &mut changes.history {
                Some(history) => history.set_horizon(horizon),
                None => changes.history = Some(History::new(horizon)),
            }
        }
        None => {
            let Some(changes) = table.changes.as_deref_mut() else { return };
            changes.history = None;
            if changes.is_empty() {
                table.changes = None;
            }
        }
    }
}

/// Makes the items `table` holds now the oldest state its stale reads see, for a table filled in
/// one go as it is made (a restore, an import, a new replica): no reader ever saw it without them.
pub(crate) fn start_from_now(table: &mut Table) {
    if let Some(history) = table.changes.as_deref_mut().and_then(|changes| changes.history.as_mut()) {
        history.clear();
    }
}

/// The instant a read of `table` by the request `engine` is answering sees: the past when a
/// [`crate::Fault::StaleRead`] drew the request a lag, the read is eventually consistent
/// (`consistent` false) and the rule named no other table; `None` for the present. Notes that
/// the request read the past, for its record in the request log.
pub(crate) fn instant(engine: &Engine, table: &Table, consistent: bool) -> Option<SystemTime> {
    let at = engine.read_at.filter(|_| !consistent)?;
    if engine.read_table.as_deref().is_some_and(|only| only != table.name) {
        return None;
    }
    engine.read_in_past.set(true);
    Some(at)
}

/// The item at `key` of `table` as it was at `at`: its state before the first change after
/// `at`, or the item now if it did not change since.
pub(crate) fn item_at<'t>(table: &'t Table, key: &PrimaryKey, at: SystemTime) -> Option<&'t Item> {
    match history_of(table).and_then(|history| history.item_at(key, at)) {
        Some(then) => then,
        None => table.items.get(key),
    }
}

/// What a Query or Scan of `table` (or of its index `index`) that is eventually consistent
/// unless `consistent` finds changed since the instant it sees; `None` when it sees the present.
pub(crate) fn past<'t>(engine: &Engine, table: &'t Table, index: Option<&Index>, consistent: bool) -> Option<Past<'t>> {
    let at = instant(engine, table, consistent)?;
    history_of(table)?.past(at, index)
}

fn history_of(table: &Table) -> Option<&History> {
    table.changes.as_deref()?.history.as_ref()
}
