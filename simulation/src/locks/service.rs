//! [`LockService`]: the lock library as a [`Service`]: its table, its lease, its default mix of
//! workloads, the faults and triggers that suit it, and its checker.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::ctx::Ctx;
use crate::item::ItemRef;
use crate::locks::check::{self, CheckContext, ViolationKind};
use crate::locks::history::project;
use crate::locks::logs::LibraryEvents;
use crate::locks::notes::{LockCall, LockValue};
use crate::locks::probe::LockProbe;
use crate::locks::roles::Role;
use crate::locks::workload::ProcessCtx;
use crate::locks::{LIBRARY_PREFIX, NAIVE_PREFIX, PARTITION_KEY, SORT_KEY, TABLE, incarnation};
use crate::nemesis::{MenuItem, Moment, OutageKind, Promise, ReactionKind};
use crate::probe::{Probe, ProbeInit};
use crate::rng::SimRng;
use crate::run::Run;
use crate::service::{Service, SetupFuture, Workload};
use crate::setup::Setup;
use crate::spec::ProcessSpec;
use crate::verdict::{Invariant, Verdict, Violation};

/// Which lock the world runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LockKind {
    /// The `dynalease` library.
    #[default]
    Library,
    /// The deliberately naive lock of [`crate::locks::naive`]: expiry compared on wall clocks.
    Naive,
}

impl fmt::Display for LockKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LockKind::Library => "library",
            LockKind::Naive => "naive",
        })
    }
}

/// The lock of the leaders, which the liveness phase crashes the holder of.
pub const LEADER_LOCK: &str = "leader";
/// The lock of the store writers; its item is never deleted, since the external store would
/// then refuse the tokens that start again at 1.
pub const LEDGER_LOCK: &str = "ledger";
/// The lock of the one-shot jobs.
pub const JOB_LOCK: &str = "job";
/// The lock of the try-loops.
pub const CACHE_LOCK: &str = "cache";
/// The lock of the token holders and the scope holders, which the watchers watch.
pub const BATCH_LOCK: &str = "batch";

/// Every lock of the default workloads.
const LOCKS: [&str; 5] = [BATCH_LOCK, CACHE_LOCK, JOB_LOCK, LEADER_LOCK, LEDGER_LOCK];

/// A workload of a process: a [`Role`], and the lease of its locks if not the service's.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LockWorkload {
    /// The role.
    #[serde(flatten)]
    pub role: Role,
    /// The lease of its locks, if not the service's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_ms: Option<u64>,
    /// How long after its incarnation starts the workload starts, if not at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_ms: Option<u64>,
}

impl From<Role> for LockWorkload {
    fn from(role: Role) -> Self {
        LockWorkload { role, lease_ms: None, after_ms: None }
    }
}

/// The lock library as a service: its lock table, the lease, and which lock the processes use.
///
/// # Examples
///
/// One seed of the default scenario, shortened to two simulated minutes, replayed to the same
/// digest:
///
/// ```
/// use dynalease_sim::{Config, Scenario, World};
/// use dynalease_sim::locks::LockService;
///
/// let config = Config { duration_ms: 120_000, ..Config::default() };
/// let report = World::new(Scenario::from_seed(7, &config, &LockService::default())).run();
/// assert!(report.violations().is_empty(), "{}", report.failure_report());
/// let again = World::new(Scenario::from_seed(7, &config, &LockService::default())).run();
/// assert_eq!(report.digest(), again.digest());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockService {
    /// The lock the processes use.
    #[serde(default)]
    pub lock: LockKind,
    /// The lease of every lock whose workload names none.
    pub lease_ms: u64,
    /// The shortest lease a seed draws.
    #[serde(default = "lease_ms_min", skip_serializing)]
    pub lease_ms_min: u64,
    /// The longest lease a seed draws.
    #[serde(default = "lease_ms_max", skip_serializing)]
    pub lease_ms_max: u64,
}

fn lease_ms_min() -> u64 {
    30_000
}

fn lease_ms_max() -> u64 {
    60_000
}

impl Default for LockService {
    /// The library, with leases of 30 s to 60 s drawn per seed.
    fn default() -> Self {
        LockService {
            lock: LockKind::Library,
            lease_ms: 30_000,
            lease_ms_min: lease_ms_min(),
            lease_ms_max: lease_ms_max(),
        }
    }
}

impl LockService {
    /// The service with the lock `lock`.
    pub fn with_lock(lock: LockKind) -> Self {
        LockService { lock, ..LockService::default() }
    }

    /// The lease as a duration.
    pub fn lease(&self) -> Duration {
        Duration::from_millis(self.lease_ms)
    }

    /// The lease of a workload.
    pub fn lease_of(&self, workload: &LockWorkload) -> Duration {
        Duration::from_millis(workload.lease_ms.unwrap_or(self.lease_ms))
    }

    /// The longest lease of any workload of `processes`.
    pub fn longest_lease_ms(&self, processes: &[ProcessSpec<LockWorkload>]) -> u64 {
        processes.iter().flat_map(|p| p.kinds.iter().filter_map(|k| k.lease_ms)).fold(self.lease_ms, u64::max)
    }

    /// The lock whose holder the liveness phase crashes: the leader lock, if at least two
    /// processes lead it.
    pub fn liveness_lock(processes: &[ProcessSpec<LockWorkload>]) -> Option<&'static str> {
        let leaders = processes
            .iter()
            .filter(|p| p.kinds.iter().any(|k| matches!(&k.role, Role::Leader { lock, .. } if lock == LEADER_LOCK)))
            .count();
        (leaders >= 2).then_some(LEADER_LOCK)
    }

    /// How long after the crash of the holder another process must have taken its lock over:
    /// one lease and one poll interval on the slowest clock, and the round trips of a read
    /// and a write.
    pub fn takeover_bound(&self, processes: &[ProcessSpec<LockWorkload>]) -> Duration {
        let slowest = processes.iter().map(|p| p.clock).min_by_key(|c| c.drift_ppm).unwrap_or_default();
        let latency = processes.iter().map(|p| p.net.latency_ms_max).max().unwrap_or(0);
        let lease = Duration::from_millis(self.longest_lease_ms(processes));
        let poll = (lease / 3).min(Duration::from_secs(10));
        slowest.unscale(lease + poll) + Duration::from_millis(4 * latency + 10)
    }

    /// The item of the lock `name`, as the world names it.
    pub fn item(&self, name: &str) -> ItemRef {
        let prefix = match self.lock {
            LockKind::Library => LIBRARY_PREFIX,
            LockKind::Naive => NAIVE_PREFIX,
        };
        ItemRef::of(TABLE, &format!("{prefix}{name}"), Some("LOCK"))
    }

    /// `scenario` with the lock `lock` instead of its own: the items its faults and triggers
    /// name are those of the same locks under the new lock.
    pub fn switch_lock(scenario: &mut crate::Scenario<LockService>, lock: LockKind) {
        let from = scenario.service.item("").key().trim_end_matches("/LOCK").to_owned();
        scenario.service.lock = lock;
        let to = scenario.service.item("").key().trim_end_matches("/LOCK").to_owned();
        let swap = |item: &ItemRef| -> ItemRef {
            match item.key().strip_prefix(from.as_str()) {
                Some(rest) if item.table() == TABLE => ItemRef::new(TABLE, &format!("{to}{rest}")),
                _ => item.clone(),
            }
        };
        for fault in &mut scenario.faults {
            match &mut fault.fault {
                crate::Fault::DeleteItem { item } | crate::Fault::ReplaceItem { item, .. } => *item = swap(item),
                _ => {}
            }
        }
        for trigger in &mut scenario.triggers {
            if let Some(item) = trigger.item.as_ref().and_then(|text| text.parse::<ItemRef>().ok()) {
                trigger.item = Some(swap(&item).to_string());
            }
        }
    }

    /// The checker's context for a run of `processes`.
    pub fn check_context(&self, processes: &[ProcessSpec<LockWorkload>]) -> CheckContext {
        CheckContext {
            drift_ppm: processes.iter().map(|p| p.clock.drift_ppm).collect(),
            takeover_bound: self.takeover_bound(processes),
            lease: self.lease(),
        }
    }
}

/// The kinds of built-in workloads, for the default mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoleKind {
    /// [`Role::Leader`] on the leader lock.
    Leader,
    /// [`Role::StoreWriter`] on the ledger lock.
    StoreWriter,
    /// [`Role::Job`] on the job lock.
    Job,
    /// [`Role::TryLoop`] on the cache lock.
    TryLoop,
    /// [`Role::TokenHolder`] on the batch lock.
    TokenHolder,
    /// [`Role::ScopeHolder`] on the batch lock.
    ScopeHolder,
    /// [`Role::Watcher`] of the batch lock.
    Watcher,
}

impl RoleKind {
    /// The role of this kind, paced by the lease.
    pub fn role(self, lease_ms: u64) -> Role {
        let poll_ms = (lease_ms / 3).min(10_000);
        match self {
            RoleKind::Leader => {
                Role::Leader { lock: LEADER_LOCK.to_owned(), write_every_ms: lease_ms / 2, resigns: true }
            }
            RoleKind::StoreWriter => {
                Role::StoreWriter { lock: LEDGER_LOCK.to_owned(), every_ms_max: 4 * lease_ms, writes: 3 }
            }
            RoleKind::Job => Role::Job {
                lock: JOB_LOCK.to_owned(),
                every_ms_max: 6 * lease_ms,
                timeout_ms: lease_ms + poll_ms + 1_000,
                writes: 2,
            },
            RoleKind::TryLoop => Role::TryLoop { lock: CACHE_LOCK.to_owned(), every_ms_max: 4 * lease_ms },
            RoleKind::TokenHolder => {
                Role::TokenHolder { lock: BATCH_LOCK.to_owned(), every_ms_max: 3 * lease_ms, steps: 16 }
            }
            RoleKind::ScopeHolder => {
                Role::ScopeHolder { lock: BATCH_LOCK.to_owned(), every_ms_max: 4 * lease_ms, steps: 8 }
            }
            RoleKind::Watcher => Role::Watcher { lock: BATCH_LOCK.to_owned(), every_ms_max: lease_ms / 2 },
        }
    }
}

/// Stream of a seed's draw of leases for each process.
const STREAM_LEASES: u64 = 7;

/// The moments and reactions a seed draws its triggers from: each a window where a lock
/// protocol is known to break, and the fault that opens it.
const MENU: &[MenuItem] = &[
    // A message that loses its turn to the next reads or writes of others on the same item:
    // a read overtaken by a renewal, an answer held past another's write, a release racing a
    // takeover, a renewal landing after a takeover; and after it, the overtaker or the sender
    // stopped, so that what the race left behind lasts.
    // Twice each for reads and writes: the reads include those of `exists`, and the writes
    // the releases and the acquires of free locks, where no lease is yet at stake.
    MenuItem::labelled(Moment::ReadSent, "lock", ReactionKind::Overtake),
    MenuItem::labelled(Moment::ReadSent, "lock", ReactionKind::Overtake),
    MenuItem::labelled(Moment::WriteSent, "lock", ReactionKind::Overtake),
    MenuItem::labelled(Moment::WriteSent, "lock", ReactionKind::Overtake),
    MenuItem::labelled(Moment::WriteApplied, "grant", ReactionKind::Overtake),
    MenuItem::labelled(Moment::WriteApplied, "renewal", ReactionKind::Overtake),
    MenuItem::labelled(Moment::WriteApplied, "release", ReactionKind::Overtake),
    MenuItem::labelled(Moment::WriteSent, "lock", ReactionKind::DelayRequest),
    MenuItem::labelled(Moment::WriteSent, "lock", ReactionKind::HoldUntilDue),
    MenuItem::labelled(Moment::WriteSent, "lock", ReactionKind::Pause),
    MenuItem::labelled(Moment::WriteSent, "lock", ReactionKind::Suspend),
    MenuItem::labelled(Moment::WriteSent, "lock", ReactionKind::Crash),
    MenuItem::labelled(Moment::WriteSent, "lock", ReactionKind::HoldUntilRead),
    MenuItem::labelled(Moment::WriteApplied, "grant", ReactionKind::DelayAnswer),
    MenuItem::labelled(Moment::WriteApplied, "grant", ReactionKind::LoseAnswer),
    MenuItem::labelled(Moment::WriteApplied, "grant", ReactionKind::DeleteItem),
    MenuItem::labelled(Moment::WriteApplied, "renewal", ReactionKind::DelayAnswer),
    MenuItem::labelled(Moment::WriteApplied, "renewal", ReactionKind::LoseAnswer),
    MenuItem::labelled(Moment::WriteApplied, "renewal", ReactionKind::Pause),
    MenuItem::labelled(Moment::WriteAnswered, "renewal", ReactionKind::Partition),
    MenuItem::labelled(Moment::WriteAnswered, "renewal", ReactionKind::Throttle),
    MenuItem::labelled(Moment::WriteAnswered, "renewal", ReactionKind::StopUntilDue),
    MenuItem::labelled(Moment::WriteAnswered, "renewal", ReactionKind::DeleteItem),
    MenuItem::labelled(Moment::WriteAnswered, "renewal", ReactionKind::Pause),
    MenuItem::labelled(Moment::ReadApplied, "waiting", ReactionKind::ClockStep),
    MenuItem::labelled(Moment::ReadApplied, "waiting", ReactionKind::ClockStep),
    MenuItem::labelled(Moment::ReadApplied, "waiting", ReactionKind::Pause),
];

/// The outages a lease's heartbeat promises to survive: throttling and a partition (a table
/// that is gone ends a lease, as the library documents).
const HEARTBEAT_OUTAGES: &[OutageKind] = &[OutageKind::Throttle, OutageKind::Partition];

impl Service for LockService {
    type Op = LockCall;
    type Ret = LockValue;
    type Kind = LockWorkload;

    const NAME: &'static str = "locks";

    fn setup(&self, setup: Setup) -> SetupFuture {
        Box::pin(async move {
            use aws_sdk_dynamodb::types::{
                AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
            };
            let attribute = |name: &str| {
                AttributeDefinition::builder().attribute_name(name).attribute_type(ScalarAttributeType::S).build()
            };
            let key = |name: &str, kind| KeySchemaElement::builder().attribute_name(name).key_type(kind).build();
            setup
                .client()
                .create_table()
                .table_name(TABLE)
                .attribute_definitions(attribute(PARTITION_KEY).map_err(|e| crate::setup::SetupError(e.to_string()))?)
                .attribute_definitions(attribute(SORT_KEY).map_err(|e| crate::setup::SetupError(e.to_string()))?)
                .key_schema(key(PARTITION_KEY, KeyType::Hash).map_err(|e| crate::setup::SetupError(e.to_string()))?)
                .key_schema(key(SORT_KEY, KeyType::Range).map_err(|e| crate::setup::SetupError(e.to_string()))?)
                .billing_mode(BillingMode::PayPerRequest)
                .send()
                .await?;
            Ok(())
        })
    }

    fn tables(&self) -> Vec<String> {
        vec![TABLE.to_owned()]
    }

    fn for_seed(&self, rng: &mut SimRng) -> Self {
        let lease_ms = rng.range(self.lease_ms_min / 1000, self.lease_ms_max / 1000).max(1) * 1000;
        LockService { lease_ms, ..self.clone() }
    }

    /// Gives the processes the default mix of workloads: two leaders on distinct processes,
    /// two store writers, two jobs, two try-loops, two token holders, two scope holders and two
    /// watchers, spread over the processes in an order drawn from `rng`; one seed in three gives
    /// each process a lease of its own.
    fn assign(&self, rng: &mut SimRng, processes: u16) -> Vec<Vec<LockWorkload>> {
        let n = usize::from(processes.max(1));
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut leases = SimRng::derive(rng.next_u64(), &[STREAM_LEASES]);
        let mixed = leases.chance_ppm(333_333);
        let own: Vec<Option<u64>> = (0..n)
            .map(|_| {
                let lease = leases.range(self.lease_ms_min / 1000, self.lease_ms_max / 1000).max(1) * 1000;
                mixed.then_some(lease)
            })
            .collect();
        // Two of each, side by side, so that the two land on different processes.
        let kinds = [
            RoleKind::Leader,
            RoleKind::Leader,
            RoleKind::StoreWriter,
            RoleKind::StoreWriter,
            RoleKind::Job,
            RoleKind::Job,
            RoleKind::TryLoop,
            RoleKind::TryLoop,
            RoleKind::TokenHolder,
            RoleKind::TokenHolder,
            RoleKind::ScopeHolder,
            RoleKind::ScopeHolder,
            RoleKind::Watcher,
            RoleKind::Watcher,
        ];
        let mut assigned = vec![Vec::new(); n];
        // Fourteen workloads, or one for every process where there are more.
        for slot in 0..kinds.len().max(n) {
            let process = order[slot % n];
            let role = kinds[slot % kinds.len()].role(self.lease_ms);
            assigned[process].push(LockWorkload { role, lease_ms: own[process], after_ms: None });
        }
        assigned
    }

    fn run(&self, kind: &LockWorkload, ctx: Ctx<LockCall, LockValue>) -> Workload {
        let lock = self.lock;
        let inner = ctx.local(|| incarnation::boot(&ctx, lock));
        let lease = self.lease_of(kind);
        let role = kind.role.clone().run(ProcessCtx::new(ctx.clone(), inner, lease));
        match kind.after_ms {
            Some(after_ms) => Box::pin(async move {
                ctx.sleep(Duration::from_millis(after_ms)).await;
                role.await;
            }),
            None => role,
        }
    }

    fn check(&self, run: &Run<'_, LockWorkload>) -> Verdict {
        let history = project(run.history());
        let context = self.check_context(run.processes());
        let report = check::check(&history, &context);
        let mut verdict = Verdict::default();
        for v in report.violations {
            let mut violation = Violation::new(invariant(v.kind), history.lock_name(v.lock), v.message);
            violation.first = v.first;
            violation.second = v.second;
            violation.last_good = v.last_good;
            violation.processes = v.processes;
            violation.window = v.window;
            verdict.violations.push(violation);
        }
        let stats = report.stats;
        verdict.count("grants", stats.grants as u64);
        verdict.count("lock writes", stats.writes as u64);
        verdict.count("beliefs", stats.beliefs as u64);
        verdict.count("overlaps exempt", stats.overlaps_exempt as u64);
        verdict.count("overlaps after deletion", stats.overlaps_after_deletion as u64);
        verdict.count("fenced commits", stats.commits as u64);
        verdict.count("store writes", stats.store_writes as u64);
        if let Some(took) = stats.takeover {
            verdict.count("takeovers", 1);
            verdict.maxima.push((String::from("slowest takeover ms"), took.as_millis() as u64));
        }
        verdict
    }

    fn invariants(&self) -> Vec<Invariant> {
        ViolationKind::ALL.into_iter().map(invariant).collect()
    }

    fn scale(&self) -> Duration {
        self.lease()
    }

    fn healed_ms(&self, processes: &[ProcessSpec<LockWorkload>]) -> u64 {
        let lease_ms = self.longest_lease_ms(processes);
        let poll_ms = (lease_ms / 3).min(10_000);
        2 * lease_ms + lease_ms + poll_ms + 15_000
    }

    fn liveness_ms(&self, safety_ms: u64, duration_ms: u64, processes: &[ProcessSpec<LockWorkload>]) -> Option<u64> {
        let at_ms = safety_ms + 2 * self.longest_lease_ms(processes);
        let needed = at_ms + self.takeover_bound(processes).as_millis() as u64 + 5_000;
        (LockService::liveness_lock(processes).is_some() && needed <= duration_ms).then_some(at_ms)
    }

    fn menu(&self) -> &'static [MenuItem] {
        MENU
    }

    fn items(&self) -> Vec<String> {
        LOCKS.iter().map(|lock| self.item(lock).to_string()).collect()
    }

    fn deletable(&self) -> Vec<ItemRef> {
        LOCKS.iter().filter(|lock| **lock != LEDGER_LOCK).map(|lock| self.item(lock)).collect()
    }

    /// A lease's heartbeat survives an outage that starts right after a renewal was heard and
    /// ends while a sixth of the lease (its longest retry) and a round trip are left: five
    /// sixths of the lease, less two round trips.
    fn promises(&self, processes: &[ProcessSpec<LockWorkload>]) -> Vec<Promise> {
        if self.lock == LockKind::Naive {
            return Vec::new();
        }
        processes
            .iter()
            .enumerate()
            .filter_map(|(id, process)| {
                let lease_ms = process.kinds.iter().find_map(|k| k.lease_ms).unwrap_or(self.lease_ms);
                let round_trips = 4 * process.net.latency_ms_max;
                let bound_ms = (5 * lease_ms / 6).checked_sub(round_trips + 100)?;
                Some(Promise {
                    name: "a heartbeat survives an outage shorter than its lease leaves for retries",
                    moment: Moment::WriteAnswered,
                    label: Some("renewal"),
                    process: Some(id as u16),
                    bound_ms,
                    outages: HEARTBEAT_OUTAGES,
                })
            })
            .collect()
    }

    fn probe(&self, init: &ProbeInit<'_>) -> Option<Arc<dyn Probe>> {
        Some(Arc::new(LockProbe::new(init, Some(LEADER_LOCK.to_owned()))))
    }

    fn records_requests(&self) -> bool {
        false
    }

    fn subscriber(&self) -> Option<tracing::Dispatch> {
        Some(tracing::Dispatch::new(LibraryEvents))
    }

    fn ttl_sweep(&self) -> Option<Duration> {
        None
    }

    fn kind_name(&self, kind: &LockWorkload) -> String {
        let lease = kind.lease_ms.map(|ms| format!(" (lease {} s)", ms / 1000)).unwrap_or_default();
        let after = kind.after_ms.map(|ms| format!(" after {ms} ms")).unwrap_or_default();
        format!("{}{lease}{after}", kind.role.name())
    }
}

/// The invariant of a kind of violation of the lock checker.
pub(crate) fn invariant(kind: ViolationKind) -> Invariant {
    if kind.is_safety() {
        Invariant::safety(kind.name(), kind.to_string())
    } else {
        Invariant::liveness(kind.name(), kind.to_string())
    }
}
