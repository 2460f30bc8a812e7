//! [`World`]: one run of a scenario, on one current-thread tokio runtime with paused time.
//!
//! The world starts the fake DynamoDB, runs the service's setup, starts the processes, then
//! drives the nemesis through a queue of timed actions: the faults of the safety phase and
//! their ends, the orders of the triggers, the heal, the liveness phase and the end. Everything
//! else happens in the tasks of the processes; the runtime's paused clock jumps from one timer
//! to the next when every task waits, so ten simulated minutes take milliseconds. The run is a
//! pure function of its scenario: per-process randomness comes from (seed, process,
//! incarnation), iteration is over ordered maps, every `select!` is `biased`, and the SDK's own
//! randomness is seeded or unused.
//!
//! After the run, the world reads every table as the run left it (past the network and the
//! faults) and hands the history and the tables to the service's checker.

pub(crate) mod connector;
mod driver;
pub(crate) mod process;
pub(crate) mod triggers;

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dynalease_fake::FakeDynamoDb;

use crate::clock::WorldClock;
use crate::history::{Actor, Event, History, Phase, Recorder};
use crate::rng::SimRng;
use crate::run::Run;
use crate::scenario::Scenario;
use crate::service::Service;
use crate::setup::Setup;
use crate::tables::Tables;
use crate::verdict::Verdict;
use connector::Catalog;
use driver::{Action, Driver};
use process::{Process, Shared};
use triggers::Triggers;

/// The true wall-clock time at the start of every run: 2024-06-01T00:00:00Z.
pub const START_TIME_SECS: u64 = 1_717_200_000;

/// The true wall-clock time at the start of every run.
pub fn start_time() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(START_TIME_SECS)
}

/// What went wrong with a run that is neither a pass nor a violation of the service: its
/// setup failed, its checker panicked, two replays of it disagreed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The service's setup failed (a table definition DynamoDB refused, say); nothing ran.
    Setup(String),
    /// The service's checker panicked.
    CheckerPanicked(String),
    /// Two runs of the same scenario disagreed: the service, or a model of its checker, is not
    /// deterministic.
    Nondeterministic(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Setup(why) => write!(f, "the setup failed: {why}"),
            RunError::CheckerPanicked(why) => write!(f, "the checker panicked: {why}"),
            RunError::Nondeterministic(why) => write!(f, "the run is not deterministic: {why}"),
        }
    }
}

/// One run: its scenario, its history, every table as it ended, and the checker's verdict.
#[derive(Debug)]
pub struct RunReport<S: Service> {
    pub(crate) scenario: Scenario<S>,
    pub(crate) history: History,
    pub(crate) tables: Tables,
    pub(crate) verdict: Verdict,
    pub(crate) requests: usize,
    pub(crate) error: Option<RunError>,
    pub(crate) source: Option<String>,
    pub(crate) program: Option<String>,
    pub(crate) replay: Option<String>,
}

/// One run of a scenario.
#[derive(Debug)]
pub struct World<S: Service> {
    scenario: Scenario<S>,
}

impl<S: Service> World<S> {
    /// A world that runs `scenario`.
    pub fn new(scenario: Scenario<S>) -> Self {
        World { scenario }
    }

    /// Runs the scenario to its end and checks its history and tables.
    pub fn run(self) -> RunReport<S> {
        let (runtime, report, _) = self.execute();
        drop(runtime);
        report
    }

    /// Runs the scenario to its end, checks it, and then runs `after` with a client of the
    /// DynamoDB as the run left it (on the run's paused clock, with no faults).
    pub fn run_then<T, F>(self, after: impl FnOnce(aws_sdk_dynamodb::Client) -> F) -> (RunReport<S>, T)
    where
        F: std::future::Future<Output = T>,
    {
        let (runtime, report, fake) = self.execute();
        fake.clear_faults();
        let read = runtime.block_on(after(fake.client()));
        (report, read)
    }

    fn execute(self) -> (tokio::runtime::Runtime, RunReport<S>, FakeDynamoDb) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("a current-thread runtime with paused time");
        let scenario = self.scenario;
        let dispatch = scenario
            .service
            .subscriber()
            .unwrap_or_else(|| tracing::Dispatch::new(tracing::subscriber::NoSubscriber::default()));
        let ran = tracing::dispatcher::with_default(&dispatch, || runtime.block_on(drive(&scenario)));
        match ran {
            Ran::Failed { error, fake } => {
                let report = RunReport {
                    scenario,
                    history: History::default(),
                    tables: Tables::default(),
                    verdict: Verdict::default(),
                    requests: 0,
                    error: Some(error),
                    source: None,
                    program: None,
                    replay: None,
                };
                (runtime, report, fake)
            }
            Ran::Done { history, tables, requests, probe, fake } => {
                let run = Run {
                    seed: scenario.seed,
                    history: &history,
                    tables: &tables,
                    processes: &scenario.processes,
                    duration_ms: scenario.duration_ms,
                    safety_ms: scenario.safety_ms,
                    probe: probe.as_deref(),
                };
                let checked = std::panic::catch_unwind(AssertUnwindSafe(|| scenario.service.check(&run)));
                let (verdict, error) = match checked {
                    Ok(mut verdict) => {
                        verdict.dedup();
                        (verdict, None)
                    }
                    Err(panic) => {
                        let text = panic_text(&*panic);
                        let error = match text.strip_prefix(crate::verdict::NOT_DETERMINISTIC) {
                            Some(why) => RunError::Nondeterministic(why.trim().to_owned()),
                            None => RunError::CheckerPanicked(text),
                        };
                        (Verdict::default(), Some(error))
                    }
                };
                let report = RunReport {
                    scenario,
                    history,
                    tables,
                    verdict,
                    requests,
                    error,
                    source: None,
                    program: None,
                    replay: None,
                };
                (runtime, report, fake)
            }
        }
    }
}

/// The text of a panic's payload.
pub(crate) fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text.clone()
    } else {
        String::from("a panic without a message")
    }
}

/// How the run went, before the checker.
enum Ran {
    Failed {
        error: RunError,
        fake: FakeDynamoDb,
    },
    Done {
        history: History,
        tables: Tables,
        requests: usize,
        probe: Option<Arc<dyn crate::probe::Probe>>,
        fake: FakeDynamoDb,
    },
}

async fn drive<S: Service>(scenario: &Scenario<S>) -> Ran {
    fastrand::seed(SimRng::derive(scenario.seed, &[0xFA57]).next_u64());
    let clock = WorldClock::start();
    let recorder = Recorder::new(clock);
    let start_time = start_time();
    // No request log: the world counts requests itself, and reads items past the log.
    let fake = FakeDynamoDb::builder()
        .seed(scenario.seed)
        .start_time(start_time)
        .ttl_sweep_interval(scenario.service.ttl_sweep().unwrap_or(Duration::ZERO))
        .request_log_limit(0)
        .build();
    let setup = std::panic::AssertUnwindSafe(scenario.service.setup(Setup { client: fake.client() }));
    let setup = futures_catch(setup).await;
    match setup {
        Ok(Ok(())) => {}
        Ok(Err(err)) => return Ran::Failed { error: RunError::Setup(err.to_string()), fake },
        Err(panic) => return Ran::Failed { error: RunError::Setup(format!("the setup panicked: {panic}")), fake },
    }
    let keys = match key_schemas(&fake).await {
        Ok(keys) => keys,
        Err(err) => return Ran::Failed { error: RunError::Setup(err), fake },
    };
    let catalog = Arc::new(Catalog::new(keys, scenario.service.records_requests()));
    let probe =
        scenario.service.probe(&crate::probe::ProbeInit { seed: scenario.seed, fake: &fake, recorder: &recorder });
    let triggers = Arc::new(Triggers::new(clock, recorder.clone(), scenario.triggers.clone()));
    let requests = Arc::new(AtomicUsize::new(0));
    let shared = Shared {
        service: scenario.service.clone(),
        clock,
        recorder: recorder.clone(),
        fake: fake.clone(),
        triggers: triggers.clone(),
        probe: probe.clone(),
        catalog,
        seed: scenario.seed,
        start_time,
        healed: Arc::new(AtomicBool::new(false)),
        hold_max: 2 * scenario.service.scale(),
        requests: requests.clone(),
    };
    recorder.record(Actor::World, Event::Phase(Phase::Safety));
    let processes = scenario
        .processes
        .iter()
        .enumerate()
        .map(|(id, spec)| Process::start(&shared, id as u16, spec.clone(), scenario.loss_ppm))
        .collect::<Vec<_>>();
    let mut nemesis = Driver::new(shared, processes);
    for fault in &scenario.faults {
        if fault.at_ms < scenario.safety_ms {
            nemesis.schedule(fault.at_ms, Action::Fault(fault.fault.clone()));
        }
    }
    nemesis.schedule(scenario.safety_ms, Action::Heal);
    if let Some(at_ms) = scenario.liveness_ms() {
        nemesis.schedule(at_ms, Action::Liveness);
    }
    nemesis.schedule(scenario.duration_ms, Action::End);

    while let Some(((at_ms, _), _)) = nemesis.queue.first_key_value() {
        let at_ms = *at_ms;
        tokio::select! {
            biased;
            () = triggers.orders.notified() => {
                let now_ms = clock.now().as_millis() as u64;
                while let Some(order) = triggers.next_order() {
                    nemesis.order(now_ms, order);
                }
            }
            () = clock.sleep_until(Duration::from_millis(at_ms)) => {
                let Some((_, action)) = nemesis.queue.pop_first() else { break };
                if let Action::End = action {
                    break;
                }
                nemesis.apply(at_ms, action);
            }
        }
    }
    for process in &mut nemesis.processes {
        process.stop();
    }
    let history = recorder.finish();
    fake.clear_faults();
    let tables = read_tables(&fake).await;
    Ran::Done { history, tables, requests: requests.load(Ordering::Relaxed), probe, fake }
}

/// Awaits `future`, catching a panic of it.
async fn futures_catch<F: std::future::Future>(future: AssertUnwindSafe<F>) -> Result<F::Output, String> {
    let mut future = std::pin::pin!(future.0);
    std::future::poll_fn(move |cx| match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
        Ok(std::task::Poll::Ready(out)) => std::task::Poll::Ready(Ok(out)),
        Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
        Err(panic) => std::task::Poll::Ready(Err(panic_text(&*panic))),
    })
    .await
}

/// The key attributes of every table the setup made.
async fn key_schemas(fake: &FakeDynamoDb) -> Result<BTreeMap<String, (String, Option<String>)>, String> {
    use aws_sdk_dynamodb::types::KeyType;
    let client = fake.client();
    let mut keys = BTreeMap::new();
    let names = client.list_tables().send().await.map_err(|e| format!("{e:?}"))?;
    for name in names.table_names() {
        let table = client.describe_table().table_name(name).send().await.map_err(|e| format!("{e:?}"))?;
        let Some(description) = table.table() else { continue };
        let mut partition = None;
        let mut sort = None;
        for key in description.key_schema() {
            match key.key_type() {
                KeyType::Hash => partition = Some(key.attribute_name().to_owned()),
                KeyType::Range => sort = Some(key.attribute_name().to_owned()),
                _ => {}
            }
        }
        if let Some(partition) = partition {
            keys.insert(name.clone(), (partition, sort));
        }
    }
    Ok(keys)
}

/// Every item of every table, as a consistent scan of the fake returns them.
async fn read_tables(fake: &FakeDynamoDb) -> Tables {
    let client = fake.client();
    let mut tables = BTreeMap::new();
    let Ok(names) = client.list_tables().send().await else { return Tables::default() };
    for name in names.table_names() {
        let mut items = Vec::new();
        let mut start = None;
        loop {
            let page = client.scan().table_name(name).consistent_read(true).set_exclusive_start_key(start).send().await;
            let Ok(page) = page else { break };
            items.extend(page.items().iter().cloned());
            start = page.last_evaluated_key().cloned();
            if start.is_none() {
                break;
            }
        }
        tables.insert(name.clone(), items);
    }
    Tables { tables }
}
