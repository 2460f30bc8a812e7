//! What one incarnation of a process keeps for all its lock workloads, made by the first of them
//! to ask: its `LockTable` (with the process's clock, seeded ids, and a holder label and an
//! item expiry drawn for it), its `ProcessLocks`, or the naive lock.

use std::sync::Arc;

use dynalease::{LockTable, LockTableOptions, ProcessLocks, SeededIds, TableRef};

use crate::ctx::Ctx;
use crate::history::ProcessRef;
use crate::locks::item_options::ItemOptions;
use crate::locks::naive::NaiveLocks;
use crate::locks::notes::{LockCall, LockValue};
use crate::locks::probe::LockProbe;
use crate::locks::service::LockKind;
use crate::locks::workload::{LockIncarnation, Locks};
use crate::locks::{EXPIRY_ATTRIBUTE, PARTITION_KEY, SORT_KEY, TABLE};
use crate::rng::SimRng;

/// Streams of a process's randomness.
const STREAM_IDS: u64 = 11;
const STREAM_OPTIONS: u64 = 13;

/// The lock state of the incarnation of `ctx`.
pub(crate) fn boot(ctx: &Ctx<LockCall, LockValue>, kind: LockKind) -> LockIncarnation {
    let process = ctx.process();
    let ids = Arc::new(SeededIds::new(ctx.incarnation_rng(STREAM_IDS).next_u64()));
    let (options, item_options) = incarnation_options(&mut ctx.incarnation_rng(STREAM_OPTIONS), process);
    let writes_expiry = item_options.retention.is_some();
    let options = options.clock(Arc::new(ctx.clock().clone()));
    let table_options = options.clone();
    let options = options.id_source(ids.clone());
    let table = TableRef::builder(ctx.client().clone(), TABLE)
        .partition_key(PARTITION_KEY)
        .sort_key(SORT_KEY)
        .build()
        .expect("a table of names");
    let lock_table = LockTable::new(table, options).expect("the options of a simulated process are valid");
    let locks = match kind {
        LockKind::Library => {
            if let Some(probe) = ctx.probe::<LockProbe>() {
                probe.truth.writes_with(process, item_options);
            }
            Locks::Library
        }
        LockKind::Naive => Locks::Naive(NaiveLocks::new(ctx.client().clone(), ctx.clock().clone(), ids)),
    };
    LockIncarnation {
        process_locks: ProcessLocks::new(lock_table.clone()),
        lock_table,
        locks,
        table_options,
        writes_expiry,
    }
}

/// The options of an incarnation's `LockTable`, drawn for each: most name their holder and some
/// do not, since a label is never part of a condition and processes with and without one
/// contend as equals; half write an expiry on their lock items, with the shortest retention or
/// the recommended one.
fn incarnation_options(rng: &mut SimRng, process: ProcessRef) -> (LockTableOptions, ItemOptions) {
    let mut options = LockTableOptions::default();
    let mut item = ItemOptions { label: None, retention: None };
    if rng.chance_ppm(750_000) {
        let label = process.to_string();
        options = options.holder_label(label.clone());
        item.label = Some(label);
    }
    if rng.chance_ppm(500_000) {
        let retention =
            if rng.chance_ppm(500_000) { LockTableOptions::MIN_RETENTION } else { LockTableOptions::DEFAULT_RETENTION };
        options = options.time_to_live(EXPIRY_ATTRIBUTE, retention);
        item.retention = Some(retention);
    }
    (options, item)
}
