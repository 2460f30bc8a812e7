//! The replication of writes between the replicas of a global table: each write of a replica
//! leaves its region's outbox when the request that made it is answered, and reaches every other
//! replica of the account after the replication lag, on the fake's clock, unless a stall holds
//! it. A write that reaches a replica holding a later version of the item is dropped there: the
//! last writer wins.

use std::time::{Duration, SystemTime};

use crate::engine::Engine;
use crate::stream::Outgoing;

/// A write on its way to one replica.
#[derive(Debug)]
pub(crate) struct Delivery {
    /// The region it goes to.
    to: String,
    table: String,
    write: Outgoing,
    due: SystemTime,
}

/// The writes of an account on their way, in the order they are due (and were made).
#[derive(Debug, Default)]
pub(crate) struct Queue {
    deliveries: Vec<Delivery>,
}

impl Queue {
    /// Whether nothing is on its way.
    pub(crate) fn is_empty(&self) -> bool {
        self.deliveries.is_empty()
    }

    /// Takes the writes made in `regions` since the last were collected, and sends each to every
    /// other replica of its table, due `lag` after it was made.
    pub(crate) fn collect(&mut self, regions: &mut std::collections::BTreeMap<String, Engine>, lag: Duration) {
        for table in regions.values_mut().flat_map(|engine| engine.tables.values_mut()) {
            let (Some(global), Some(changes)) = (&table.global, table.changes.as_deref_mut()) else { continue };
            let Some(replicated) = changes.replicated.as_mut().filter(|r| !r.outbox.is_empty()) else { continue };
            for write in replicated.outbox.drain(..) {
                let due = write.version.at + lag;
                for entry in &global.replicas {
                    self.deliveries.push(Delivery {
                        to: entry.region.clone(),
                        table: table.name.clone(),
                        write: write.clone(),
                        due,
                    });
                }
            }
        }
        // A stable sort: writes due at the same time keep the order they were made in.
        self.deliveries.sort_by_key(|delivery| delivery.due);
    }

    /// Applies, in order, every write due by `until` to its replica in `regions`, unless
    /// `stalled(region, table)` holds it back (it then waits, and the writes after it to the
    /// same replica wait behind it). A write whose replica is gone is dropped.
    pub(crate) fn deliver(
        &mut self,
        until: SystemTime,
        regions: &mut std::collections::BTreeMap<String, Engine>,
        stalled: &dyn Fn(&str, &str) -> bool,
    ) {
        let mut held: Vec<(String, String)> = Vec::new();
        let mut kept = Vec::new();
        for delivery in std::mem::take(&mut self.deliveries) {
            let waits = delivery.due > until
                || held.iter().any(|(region, table)| *region == delivery.to && *table == delivery.table)
                || stalled(&delivery.to, &delivery.table);
            if waits {
                held.push((delivery.to.clone(), delivery.table.clone()));
                kept.push(delivery);
                continue;
            }
            let at = delivery.due;
            let Some(table) = regions.get_mut(&delivery.to).and_then(|engine| engine.tables.get_mut(&delivery.table))
            else {
                continue;
            };
            let Some(replicated) = table.changes.as_deref_mut().and_then(|changes| changes.replicated.as_mut()) else {
                continue;
            };
            let newer_here = replicated.versions.get(&delivery.write.key).is_some_and(|v| *v > delivery.write.version);
            if newer_here {
                continue;
            }
            replicated.versions.insert(delivery.write.key.clone(), delivery.write.version.clone());
            table.replicate(delivery.write.key, delivery.write.item, at);
        }
        self.deliveries = kept;
    }

    /// Forgets the writes on their way into the regions `covered` names (their tables are
    /// reset).
    pub(crate) fn forget_regions(&mut self, covered: impl Fn(&str) -> bool) {
        self.deliveries.retain(|delivery| !covered(&delivery.to));
    }

    /// Forgets the writes on their way to `table` in `region` (a replica that is deleted).
    pub(crate) fn forget(&mut self, region: &str, table: &str) {
        self.deliveries.retain(|delivery| !(delivery.to == region && delivery.table == table));
    }
}
