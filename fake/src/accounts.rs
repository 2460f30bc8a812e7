//! Accounts and regions: one fake holds any number of each, as DynamoDB does, and every table,
//! index, stream, tag and time-to-live sweep lives in one account and one region.
//!
//! - [`Accounts`]: every account, each with an [`Engine`] per region it used and its schedule of
//!   time-to-live sweeps, in ordered maps; an engine is made on first use from
//!   [`EngineSettings`].
//!
//! Which account and region a request is for is its [`Place`].

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use crate::clock::{ControlledClock, FakeClock};
use crate::engine::Engine;
use crate::global::delivery::Queue;
use crate::place::{DEFAULT_ACCOUNT, DEFAULT_REGION, Place};
use crate::ttl::{SweepSchedule, sweep};

/// What every engine starts with, whatever its account and region.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EngineSettings {
    pub(crate) seed: u64,
    pub(crate) item_on_condition_failure: bool,
    pub(crate) table_creation: Duration,
    pub(crate) stream_transition: Duration,
}

impl EngineSettings {
    /// A new engine for `place`, with no table. The engine of the default place has the fake's
    /// seed; any other a seed of its own derived from it and the place, so that the ids of its
    /// tables are not those of another place's.
    pub(crate) fn engine(&self, place: Place<'_>) -> Engine {
        let seed = if place == Place::DEFAULT { self.seed } else { self.seed ^ place_hash(place) };
        let mut engine = Engine::new(seed);
        engine.account = place.account.to_owned();
        engine.region = place.region.to_owned();
        engine.item_on_condition_failure = self.item_on_condition_failure;
        engine.table_creation = self.table_creation;
        engine.stream_transition = self.stream_transition;
        engine
    }
}

/// FNV-1a over the account and region: stable from run to run and from build to build.
fn place_hash(place: Place<'_>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in place.account.bytes().chain([b'/']).chain(place.region.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// One account: an engine per region it used, when its time-to-live sweeps run, and its own
/// clock once a control request has steered the account's clock alone.
#[derive(Debug)]
pub(crate) struct Account {
    pub(crate) regions: BTreeMap<String, Engine>,
    pub(crate) sweeps: SweepSchedule,
    /// The account's own clock; `None`: the account reads the fake's clock.
    pub(crate) clock: Option<ControlledClock>,
    /// The writes of its global tables on their way from one region to another.
    pub(crate) replication: Queue,
    /// Whether it ever had a global table (until then its requests skip replication).
    pub(crate) replicating: bool,
}

impl Account {
    /// The account's time: its own clock's, else the fake's (`base`).
    pub(crate) fn now(&self, base: &dyn FakeClock) -> SystemTime {
        self.clock.as_ref().map_or_else(|| base.now(), ControlledClock::now)
    }

    /// The account's own clock, made from the fake's (`base`) if it has none yet: at the same
    /// time, running or standing still as the fake's does.
    pub(crate) fn own_clock(&mut self, base: &ControlledClock) -> &ControlledClock {
        self.clock.get_or_insert_with(|| {
            let now = base.now();
            if base.is_frozen() { ControlledClock::frozen_at(now) } else { ControlledClock::running_from(now) }
        })
    }

    /// Runs the time-to-live sweep of `cutoff` in every region; returns how many items it deleted.
    pub(crate) fn sweep(&mut self, cutoff: SystemTime) -> usize {
        self.regions.values_mut().map(|engine| sweep(engine, cutoff)).sum()
    }

    /// The engine of `place` (of this account), made if it is new.
    pub(crate) fn account_engine(&mut self, settings: &EngineSettings, place: Place<'_>) -> &mut Engine {
        if !self.regions.contains_key(place.region) {
            self.regions.insert(place.region.to_owned(), settings.engine(place));
        }
        self.regions.get_mut(place.region).expect("the engine was just made")
    }

    /// Delivers the replicated writes due by `now` whose replica `stalled(region, table)` does
    /// not hold back, and brings the states of the replicas up to `now`.
    pub(crate) fn deliver(&mut self, now: SystemTime, stalled: &dyn Fn(&str, &str) -> bool) {
        if !self.replicating {
            return;
        }
        if !self.replication.is_empty() {
            self.replication.deliver(now, &mut self.regions, stalled);
        }
        for table in self.regions.values_mut().flat_map(|engine| engine.tables.values_mut()) {
            if let Some(global) = table.global.as_mut() {
                global.maintain(now);
            }
        }
    }

    /// Sends the writes of its global tables made since the last collection on their way.
    pub(crate) fn collect(&mut self, lag: Duration) {
        if self.replicating {
            self.replication.collect(&mut self.regions, lag);
        }
    }

    /// Runs the sweep due at `now`, if one is.
    pub(crate) fn sweep_due(&mut self, now: SystemTime) {
        if let Some(cutoff) = self.sweeps.due(now) {
            self.sweep(cutoff);
        }
    }
}

/// Every account of a fake.
#[derive(Debug)]
pub(crate) struct Accounts {
    accounts: BTreeMap<String, Account>,
    pub(crate) settings: EngineSettings,
    /// How often time-to-live sweeps run in each account.
    sweep_interval: Duration,
    /// How long a write of a global table takes to reach the other replicas.
    pub(crate) replication_lag: Duration,
}

impl Accounts {
    /// The accounts of a new fake: the default account, with the default region's engine,
    /// sweeping every `sweep_interval` from `start`.
    pub(crate) fn new(settings: EngineSettings, start: SystemTime, sweep_interval: Duration) -> Accounts {
        let mut accounts =
            Accounts { accounts: BTreeMap::new(), settings, sweep_interval, replication_lag: Duration::from_secs(1) };
        let engine = accounts.settings.engine(Place::DEFAULT);
        accounts.account_mut(DEFAULT_ACCOUNT, start).regions.insert(DEFAULT_REGION.to_owned(), engine);
        accounts
    }

    /// The account `id`, made (with no region) if it is new: its sweeps run every interval from
    /// `now`.
    pub(crate) fn account_mut(&mut self, id: &str, now: SystemTime) -> &mut Account {
        if !self.accounts.contains_key(id) {
            let sweeps = SweepSchedule::new(now, self.sweep_interval);
            self.accounts.insert(
                id.to_owned(),
                Account {
                    regions: BTreeMap::new(),
                    sweeps,
                    clock: None,
                    replication: Queue::default(),
                    replicating: false,
                },
            );
        }
        self.accounts.get_mut(id).expect("the account was just made")
    }

    /// The engine of `place`, made if it is new, with the time-to-live deletions due at `now`
    /// in its account made: the tables as a request arriving at `now` finds them.
    pub(crate) fn engine_at(&mut self, place: Place<'_>, now: SystemTime) -> &mut Engine {
        let settings = self.settings;
        let account = self.account_mut(place.account, now);
        account.sweep_due(now);
        if !account.regions.contains_key(place.region) {
            account.regions.insert(place.region.to_owned(), settings.engine(place));
        }
        account.regions.get_mut(place.region).expect("the engine was just made")
    }

    /// The time of the account `id`: its own clock's, else the fake's (`base`).
    pub(crate) fn now_of(&self, id: &str, base: &dyn FakeClock) -> SystemTime {
        self.accounts.get(id).map_or_else(|| base.now(), |account| account.now(base))
    }

    /// The account `id`, if it was ever used.
    pub(crate) fn account(&self, id: &str) -> Option<&Account> {
        self.accounts.get(id)
    }

    /// The account `id`, mutable, if it was ever used.
    pub(crate) fn existing_account_mut(&mut self, id: &str) -> Option<&mut Account> {
        self.accounts.get_mut(id)
    }

    /// The engine of `place`, if it was ever used.
    pub(crate) fn engine(&self, place: Place<'_>) -> Option<&Engine> {
        self.accounts.get(place.account)?.regions.get(place.region)
    }

    /// The engine of `place`, mutable, if it was ever used.
    pub(crate) fn engine_mut(&mut self, place: Place<'_>) -> Option<&mut Engine> {
        self.accounts.get_mut(place.account)?.regions.get_mut(place.region)
    }

    /// The engine of the default account and region (which every fake has).
    pub(crate) fn default_engine(&mut self) -> &mut Engine {
        self.engine_mut(Place::DEFAULT).expect("the default place has an engine from the start")
    }

    /// Every engine with its place, in the order of accounts, then regions.
    pub(crate) fn engines(&self) -> impl Iterator<Item = (Place<'_>, &Engine)> {
        self.accounts.iter().flat_map(|(account, held)| {
            held.regions.iter().map(move |(region, engine)| (Place { account, region }, engine))
        })
    }

    /// Every engine with its place, mutable.
    pub(crate) fn engines_mut(&mut self) -> impl Iterator<Item = (Place<'_>, &mut Engine)> {
        self.accounts.iter_mut().flat_map(|(account, held)| {
            held.regions.iter_mut().map(move |(region, engine)| (Place { account, region }, engine))
        })
    }

    /// Every account, mutable.
    pub(crate) fn accounts_mut(&mut self) -> impl Iterator<Item = &mut Account> {
        self.accounts.values_mut()
    }

    /// Every account with its id, mutable.
    pub(crate) fn accounts_by_id_mut(&mut self) -> impl Iterator<Item = (&str, &mut Account)> {
        self.accounts.iter_mut().map(|(id, account)| (id.as_str(), account))
    }

    /// Puts every account's sweeps on a schedule every interval from `start`, and every account
    /// back on the fake's clock.
    pub(crate) fn restart_all_at(&mut self, start: SystemTime) {
        for account in self.accounts.values_mut() {
            account.sweeps = SweepSchedule::new(start, self.sweep_interval);
            account.clock = None;
        }
    }

    /// How often time-to-live sweeps run.
    pub(crate) fn sweep_interval(&self) -> Duration {
        self.sweep_interval
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_of_other_places_draw_other_table_ids() {
        let settings = EngineSettings {
            seed: 7,
            item_on_condition_failure: true,
            table_creation: Duration::ZERO,
            stream_transition: Duration::ZERO,
        };
        let default = settings.engine(Place::DEFAULT);
        let other = settings.engine(Place { account: "111122223333", region: DEFAULT_REGION });
        assert_eq!(default.seed, 7);
        assert_ne!(other.seed, default.seed);
        assert_eq!(other.account, "111122223333");
    }
}
