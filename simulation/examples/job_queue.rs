//! A job queue on DynamoDB, simulated: jobs in a table, found through sparse global secondary
//! indexes.
//!
//! Producers put jobs into the table `Jobs`. A job waiting for a worker carries the attribute
//! `pending`, which only unclaimed jobs have: the index `Pending` holds those jobs alone (a
//! sparse index), oldest first. A worker queries it, picks a job and claims it with a
//! conditional update: on the condition that the job is still pending, it sets the claim (an id
//! of its own), removes `pending`, and sets `leased` and `expires` (its wall clock plus the
//! claim's timeout), which put the job into the sparse index `Claims`. Then it does the work and
//! marks the job done: one transaction writes the work's result (appends the claim's id to
//! `Results[job].runs`) and marks the job done, on the condition that the claim is still its
//! own. A worker that crashes (or stops, or is cut off) with a job leaves the claim behind; once
//! it has expired, another worker finds the job through `Claims` and claims it again, on the
//! condition that the claim it found is still there. The invariants:
//!
//! - **no job is run twice** (`exactly-once`, from [`dynalease_sim::exactly_once`]): the result
//!   of a job holds the run of one claim, and the job of a completion that failed has none;
//! - **no acknowledged job is lost** (`job-done`, liveness): every job whose enqueue was
//!   acknowledged is done when the run ends, after its healed phase.
//!
//! **The bugs** (`--bug NAME`, the option `bug = "NAME"` of a scenario file):
//!
//! - `unchecked-claim`: the claim does not check that the job is still unclaimed. A worker that
//!   found the job pending, and claims it after another worker has claimed it and marked it
//!   done, takes it over and runs it a second time.
//! - `no-claim-timeout`: claims never expire. A worker that crashes between its claim and its
//!   done (or whose claim's answer was lost) leaves the job claimed forever.
//!
//! **The fix** (the default): the conditions on the claim, and the timeout of claims. The work and
//! the done are one transaction, fenced by the claim: a worker that resumes after its claim was
//! taken over cannot run the job again.
//!
//! A claim's expiry is written on the clock of the machine that claims and read on the clocks of
//! the others, which the world sets up to 30 seconds apart: a claim of 20 seconds may look
//! expired at once to a worker whose clock is ahead. That worker takes the job over, and the
//! first worker's done fails its condition: work wasted, never a job run twice. (A timeout longer
//! than the clocks' disagreement wastes less.)
//!
//! ```text
//! cargo run --release -p dynalease-sim --example job_queue -- sweep --seeds 1000
//! cargo run --release -p dynalease-sim --example job_queue -- --bug unchecked-claim sweep --seeds 200 --until safety
//! cargo run --release -p dynalease-sim --example job_queue -- --bug no-claim-timeout sweep --seeds 200 --until any
//! cargo run --release -p dynalease-sim --example job_queue -- --bug unchecked-claim shrink --seed 3
//! ```

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::{Duration, UNIX_EPOCH};

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ReturnValuesOnConditionCheckFailure, ScalarAttributeType, TransactWriteItem, Update,
};
use dynalease_sim::cli::{self, ServiceArgs};
use dynalease_sim::history::Outcome;
use dynalease_sim::nemesis::{MenuItem, Moment, ReactionKind};
use dynalease_sim::sdk_error_words;
use dynalease_sim::{
    Ctx, Invariant, Run, Scenario, Service, Setup, SetupFuture, SimRng, Tables, Verdict, Violation, Workload,
    exactly_once,
};
use serde::{Deserialize, Serialize};

#[cfg_attr(not(test), global_allocator)]
#[allow(dead_code)]
static ALLOCATOR: dynalease_fake::Allocator = dynalease_fake::Allocator;

/// The table of jobs.
pub const JOBS: &str = "Jobs";
/// The table of the results of the jobs.
pub const RESULTS: &str = "Results";
/// The sparse index of the jobs waiting for a worker.
pub const PENDING: &str = "Pending";
/// The sparse index of the claimed jobs, by the time their claims expire.
pub const CLAIMS: &str = "Claims";
/// The partition of both indexes: one queue.
const QUEUE: &str = "queue";

// ---------------------------------------------------------------------------------------------
// The service and its options

/// A bug the queue can be run with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Bug {
    /// The claim does not check that the job is still unclaimed.
    UncheckedClaim,
    /// Claims never expire: a job whose worker crashed stays claimed forever.
    NoClaimTimeout,
}

/// The queue. Its fields are its options, as a scenario file writes them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobQueue {
    /// The bug to run with, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bug: Option<Bug>,
    /// How long a claim lasts before another worker may take the job over.
    pub claim_timeout_ms: u64,
}

impl Default for JobQueue {
    /// The correct queue, with claims of 20 seconds.
    fn default() -> Self {
        JobQueue { bug: None, claim_timeout_ms: 20_000 }
    }
}

/// What a process runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Enqueues a job, then waits up to `every_ms_max`; stops when the faults are healed.
    Producer {
        /// The longest wait between two jobs.
        every_ms_max: u64,
    },
    /// Claims jobs and runs them, one at a time; the work of a job takes up to `work_ms_max`.
    Worker {
        /// The longest a job's work takes.
        work_ms_max: u64,
    },
}

// ---------------------------------------------------------------------------------------------
// What the history records

/// An operation of the queue, as the history and the timeline show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Op {
    /// Puts the job `job` into the queue.
    Enqueue {
        /// The job: `p1.0-job3` is the 3rd job of p1's first incarnation.
        job: String,
    },
    /// Claims `job`, found pending (or with a claim that expired).
    Claim {
        /// The job.
        job: String,
        /// The claim found on it, expired, if any.
        expired: Option<String>,
    },
    /// Writes the result of `job` and marks it done, under the claim `claim`.
    Complete {
        /// The job.
        job: String,
        /// The claim: `p2.0-claim7` is the 7th claim of p2's first incarnation.
        claim: String,
    },
}

/// What an operation returned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Ret {
    /// The job is in the queue.
    Enqueued,
    /// The job is claimed, under this claim.
    Claimed(String),
    /// The job's result is written and the job is done.
    Done,
}

// ---------------------------------------------------------------------------------------------
// The faults it meets

/// The triggers a seed draws from, beside the faults at random times: workers stopped or
/// crashed with a job in hand, claims racing each other, answers of claims lost.
///
/// Not clock steps timed by requests, which may come a dozen times in a run: a claim's expiry is
/// read on the wall clocks of other machines, so a machine whose clock jumps ahead by minutes
/// makes its claims last minutes longer (a delay, never a job run twice). The steps at random
/// times of every run, two at most, are within what the healed phase allows for.
const MENU: &[MenuItem] = &[
    // A worker crashes or stops right after its claim was applied, or heard.
    MenuItem::at(Moment::WriteAnswered, ReactionKind::Crash),
    MenuItem::at(Moment::WriteAnswered, ReactionKind::Crash),
    MenuItem::at(Moment::WriteAnswered, ReactionKind::Pause),
    MenuItem::at(Moment::WriteApplied, ReactionKind::Pause),
    // A worker stops between its query of the index and its claim.
    MenuItem::at(Moment::ReadApplied, ReactionKind::Pause),
    MenuItem::at(Moment::ReadApplied, ReactionKind::Crash),
    // Claims and completions overtaken, held up, or applied with their answers lost.
    MenuItem::at(Moment::WriteSent, ReactionKind::Overtake),
    MenuItem::at(Moment::WriteSent, ReactionKind::DelayRequest),
    MenuItem::at(Moment::WriteApplied, ReactionKind::LoseAnswer),
    MenuItem::at(Moment::WriteApplied, ReactionKind::LoseAnswer),
    MenuItem::at(Moment::WriteApplied, ReactionKind::DelayAnswer),
];

// ---------------------------------------------------------------------------------------------
// The invariants

/// Every job whose enqueue was acknowledged is done at the end of the run.
pub fn job_done() -> Invariant {
    Invariant::liveness("job-done", "a job that was enqueued and acknowledged is not done at the end of the run")
}

// ---------------------------------------------------------------------------------------------
// The service

impl Service for JobQueue {
    type Op = Op;
    type Ret = Ret;
    type Kind = Kind;

    const NAME: &'static str = "job-queue";

    /// The table `Jobs` (key `job`) with its sparse indexes `Pending` (key `pending`, sorted by
    /// `enqueued`) and `Claims` (key `leased`, sorted by `expires`), and the table `Results`
    /// (key `job`).
    fn setup(&self, setup: Setup) -> SetupFuture {
        Box::pin(async move {
            let client = setup.client();
            let attribute = |name: &str, kind: ScalarAttributeType| {
                AttributeDefinition::builder().attribute_name(name).attribute_type(kind).build()
            };
            let key =
                |name: &str, kind: KeyType| KeySchemaElement::builder().attribute_name(name).key_type(kind).build();
            let index = |name: &str, partition: &str, sort: &str| -> Result<GlobalSecondaryIndex, _> {
                GlobalSecondaryIndex::builder()
                    .index_name(name)
                    .key_schema(key(partition, KeyType::Hash)?)
                    .key_schema(key(sort, KeyType::Range)?)
                    .projection(Projection::builder().projection_type(ProjectionType::All).build())
                    .build()
            };
            client
                .create_table()
                .table_name(JOBS)
                .attribute_definitions(attribute("job", ScalarAttributeType::S)?)
                .attribute_definitions(attribute("pending", ScalarAttributeType::S)?)
                .attribute_definitions(attribute("enqueued", ScalarAttributeType::N)?)
                .attribute_definitions(attribute("leased", ScalarAttributeType::S)?)
                .attribute_definitions(attribute("expires", ScalarAttributeType::N)?)
                .key_schema(key("job", KeyType::Hash)?)
                .global_secondary_indexes(index(PENDING, "pending", "enqueued")?)
                .global_secondary_indexes(index(CLAIMS, "leased", "expires")?)
                .billing_mode(BillingMode::PayPerRequest)
                .send()
                .await?;
            setup.create_table(RESULTS, "job", None).await
        })
    }

    fn tables(&self) -> Vec<String> {
        vec![JOBS.to_owned(), RESULTS.to_owned()]
    }

    /// A producer on the first two processes, a job every 1 to 10 seconds each; a worker on
    /// every process, whose jobs take up to 3 seconds.
    fn assign(&self, _rng: &mut SimRng, processes: u16) -> Vec<Vec<Kind>> {
        (0..processes)
            .map(|p| {
                let mut kinds = Vec::new();
                if p < 2 {
                    kinds.push(Kind::Producer { every_ms_max: 10_000 });
                }
                kinds.push(Kind::Worker { work_ms_max: 3_000 });
                kinds
            })
            .collect()
    }

    fn run(&self, kind: &Kind, ctx: Ctx<Op, Ret>) -> Workload {
        match *kind {
            Kind::Producer { every_ms_max } => Box::pin(producer(ctx, every_ms_max)),
            Kind::Worker { work_ms_max } => Box::pin(worker(ctx, self.clone(), work_ms_max)),
        }
    }

    fn check(&self, run: &Run<'_, Kind>) -> Verdict {
        let mut verdict = Verdict::default();
        let history = run.history();
        let ops = run.operations::<Op, Ret>();

        // The runs of each job, as its result holds them.
        let mut runs = BTreeMap::new();
        for item in run.tables().items(RESULTS) {
            let Some(job) = Tables::s(item, "job") else { continue };
            let count = item.get("runs").and_then(|r| r.as_l().ok()).map_or(0, Vec::len);
            runs.insert(format!("job {job}"), count as u64);
        }
        let effect = |op: &Op| match op {
            Op::Complete { job, .. } => Some(format!("job {job}")),
            _ => None,
        };
        verdict.violations.extend(exactly_once::check::<Op, Ret>(history, &runs, effect));
        verdict.count("jobs run", runs.values().sum());

        // Every acknowledged job done, if some process runs a worker, and if the healed phase was
        // long enough for the claims of crashed workers to expire (a run made shorter than that,
        // or without workers, by hand or by a shrink, is not held to it).
        let workers = run.processes().iter().any(|p| p.kinds.iter().any(|k| matches!(k, Kind::Worker { .. })));
        let healed_for = run.duration().saturating_sub(run.healed_at());
        if !workers || healed_for < Duration::from_millis(self.healed_ms(run.processes())) {
            verdict.count("runs not held to every job done (too short, or no worker)", 1);
            return verdict;
        }
        let jobs: BTreeMap<&str, &dynalease_sim::Item> =
            run.tables().items(JOBS).iter().filter_map(|item| Some((Tables::s(item, "job")?, item))).collect();
        let mut undone = Vec::new();
        for enqueue in ops.iter().filter(|op| op.outcome == Outcome::Ok) {
            let Op::Enqueue { job } = enqueue.call else { continue };
            verdict.count("jobs enqueued", 1);
            let item = jobs.get(job.as_str());
            if item.and_then(|item| Tables::s(item, "status")) != Some("done") {
                undone.push((enqueue, job, item));
            }
        }
        // The first job not done, and how many others.
        if let Some(&(enqueue, job, item)) = undone.first() {
            let state = match (item, item.and_then(|item| Tables::s(item, "status"))) {
                (None, _) => String::from("it is not in the table"),
                (Some(item), Some("claimed")) => format!(
                    "it is still claimed by {} (claim {}, expiring at {})",
                    Tables::s(item, "worker").unwrap_or("?"),
                    Tables::s(item, "claim").unwrap_or("?"),
                    Tables::n(item, "expires").map_or(String::from("?"), |ms| wall(ms as u64)),
                ),
                (Some(_), Some(status)) => format!("it is still {status}"),
                (Some(_), None) => String::from("it has no status"),
            };
            let others = match undone.len() - 1 {
                0 => String::new(),
                1 => String::from("; 1 other acknowledged job is not done either"),
                n => format!("; {n} other acknowledged jobs are not done either"),
            };
            let message = format!(
                "job {job} was enqueued by {} at {} and acknowledged, but at the end of the run {state}{others}",
                enqueue.op,
                seconds(enqueue.invoked_at)
            );
            // The last claim of the job, if any, shows who holds it.
            let claim = ops
                .iter()
                .rev()
                .find(|op| matches!(op.call, Op::Claim { job: j, .. } if j == job) && op.outcome != Outcome::Fail);
            let second: Vec<_> = claim.map(|op| op.op).into_iter().collect();
            let violation =
                Violation::new(job_done(), format!("job {job}"), message).ops(history, &[enqueue.op], &second, &[]);
            verdict.violations.push(violation);
        }
        verdict
    }

    fn invariants(&self) -> Vec<Invariant> {
        vec![exactly_once::invariant(), job_done()]
    }

    fn menu(&self) -> &'static [MenuItem] {
        MENU
    }

    fn scale(&self) -> Duration {
        Duration::from_millis(self.claim_timeout_ms)
    }

    /// Long enough for any worker to see the claims of crashed workers expire, whatever the
    /// clocks of their machines: a claim's timeout, machines whose wall clocks are half a
    /// minute apart and stepped by up to two timeouts, and the jobs left to run.
    fn healed_ms(&self, _processes: &[dynalease_sim::ProcessSpec<Kind>]) -> u64 {
        4 * self.claim_timeout_ms + 120_000
    }

    fn kind_name(&self, kind: &Kind) -> String {
        match kind {
            Kind::Producer { every_ms_max } => format!("producer (a job every {every_ms_max} ms at most)"),
            Kind::Worker { work_ms_max } => format!("worker (jobs of {work_ms_max} ms at most)"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The workloads

/// Enqueues jobs until the faults are healed.
async fn producer(ctx: Ctx<Op, Ret>, every_ms_max: u64) {
    let mut rng = ctx.rng();
    for n in 0.. {
        ctx.sleep(Duration::from_millis(rng.range(1_000, every_ms_max))).await;
        if ctx.healed() {
            return;
        }
        let job = format!("{}-job{n}", ctx.process());
        let enqueued = ms(ctx.clock().wall());
        let put = async {
            let put = ctx
                .client()
                .put_item()
                .table_name(JOBS)
                .item("job", AttributeValue::S(job.clone()))
                .item("status", AttributeValue::S("pending".into()))
                .item("pending", AttributeValue::S(QUEUE.into()))
                .item("enqueued", AttributeValue::N(enqueued.to_string()))
                .condition_expression("attribute_not_exists(job)")
                .send()
                .await;
            match put {
                Ok(_) => Ok(Ret::Enqueued),
                // The job is there already: this very put, whose first answer was lost, and
                // which the SDK sent again. (Nobody else writes a job of this id.)
                Err(err) if err.as_service_error().is_some_and(|e| e.is_conditional_check_failed_exception()) => {
                    Ok(Ret::Enqueued)
                }
                Err(err) => Err(sdk_error_words(&err)),
            }
        };
        let _ = ctx.call(Op::Enqueue { job: job.clone() }, put).await;
    }
}

/// A job a worker found: pending, or with a claim that has expired.
struct Found {
    job: String,
    expired: Option<String>,
}

/// Claims jobs and runs them, one at a time.
async fn worker(ctx: Ctx<Op, Ret>, queue: JobQueue, work_ms_max: u64) {
    let mut rng = ctx.rng();
    for n in 0.. {
        let Some(found) = find(&ctx, &queue, &mut rng).await else {
            // Nothing to do: look again in a few seconds.
            ctx.sleep(Duration::from_millis(rng.range(2_000, 6_000))).await;
            continue;
        };
        let claim = format!("{}-claim{n}", ctx.process());
        let op = Op::Claim { job: found.job.clone(), expired: found.expired.clone() };
        let Ok(_) = ctx.call(op, take(&ctx, &queue, &found, &claim)).await else { continue };
        // The work.
        ctx.sleep(Duration::from_millis(rng.range(200, work_ms_max))).await;
        let op = Op::Complete { job: found.job.clone(), claim: claim.clone() };
        let _ = ctx.call(op, complete(&ctx, &found.job, &claim)).await;
    }
}

/// Finds a job to claim: one of the oldest pending jobs, or one whose claim has expired.
async fn find(ctx: &Ctx<Op, Ret>, queue: &JobQueue, rng: &mut SimRng) -> Option<Found> {
    let pending = ctx
        .client()
        .query()
        .table_name(JOBS)
        .index_name(PENDING)
        .key_condition_expression("pending = :queue")
        .expression_attribute_values(":queue", AttributeValue::S(QUEUE.into()))
        .limit(3)
        .send()
        .await
        .ok()?;
    if let Some(item) = rng.pick(pending.items()) {
        return Some(Found { job: Tables::s(item, "job")?.to_owned(), expired: None });
    }
    if queue.bug == Some(Bug::NoClaimTimeout) {
        // The bug: claims are never looked at again.
        return None;
    }
    let now = ms(ctx.clock().wall());
    let expired = ctx
        .client()
        .query()
        .table_name(JOBS)
        .index_name(CLAIMS)
        .key_condition_expression("leased = :queue AND expires < :now")
        .expression_attribute_values(":queue", AttributeValue::S(QUEUE.into()))
        .expression_attribute_values(":now", AttributeValue::N(now.to_string()))
        .limit(3)
        .send()
        .await
        .ok()?;
    let item = rng.pick(expired.items())?;
    Some(Found { job: Tables::s(item, "job")?.to_owned(), expired: Some(Tables::s(item, "claim")?.to_owned()) })
}

/// Claims the job `found` under the claim `claim`: on the condition that it is still pending,
/// or still under the claim that was found expired.
async fn take(ctx: &Ctx<Op, Ret>, queue: &JobQueue, found: &Found, claim: &str) -> Result<Ret, String> {
    let expires = ms(ctx.clock().wall()) + queue.claim_timeout_ms;
    let mut update = ctx
        .client()
        .update_item()
        .table_name(JOBS)
        .key("job", AttributeValue::S(found.job.clone()))
        .update_expression(
            "SET #status = :claimed, claim = :claim, worker = :worker, leased = :queue, expires = :expires REMOVE pending",
        )
        .expression_attribute_names("#status", "status")
        .expression_attribute_values(":claimed", AttributeValue::S("claimed".into()))
        .expression_attribute_values(":claim", AttributeValue::S(claim.to_owned()))
        .expression_attribute_values(":worker", AttributeValue::S(ctx.process().to_string()))
        .expression_attribute_values(":queue", AttributeValue::S(QUEUE.into()))
        .expression_attribute_values(":expires", AttributeValue::N(expires.to_string()))
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
    if queue.bug != Some(Bug::UncheckedClaim) {
        update = match &found.expired {
            None => update.condition_expression("attribute_exists(pending)"),
            Some(expired) => update
                .condition_expression("claim = :expired AND attribute_exists(leased)")
                .expression_attribute_values(":expired", AttributeValue::S(expired.clone())),
        };
    }
    match update.send().await {
        Ok(_) => Ok(Ret::Claimed(claim.to_owned())),
        Err(err) => {
            // If the claim on the job is this very one, the claim was applied and its answer
            // lost, and the SDK's retry failed the condition: the job is this worker's.
            if let Some(UpdateItemError::ConditionalCheckFailedException(failed)) = err.as_service_error()
                && failed.item().and_then(|item| Tables::s(item, "claim")) == Some(claim)
            {
                return Ok(Ret::Claimed(claim.to_owned()));
            }
            Err(sdk_error_words(&err))
        }
    }
}

/// Runs the work of `job` and marks it done, in one transaction, on the condition that the job
/// is still under `claim`.
async fn complete(ctx: &Ctx<Op, Ret>, job: &str, claim: &str) -> Result<Ret, String> {
    let done = Update::builder()
        .table_name(JOBS)
        .key("job", AttributeValue::S(job.to_owned()))
        .update_expression("SET #status = :done REMOVE leased, expires")
        .condition_expression("claim = :claim AND attribute_exists(leased)")
        .expression_attribute_names("#status", "status")
        .expression_attribute_values(":done", AttributeValue::S("done".into()))
        .expression_attribute_values(":claim", AttributeValue::S(claim.to_owned()))
        .build()
        .map_err(|e| e.to_string())?;
    // The work's result: the claim that ran it, appended to the job's runs.
    let result = Update::builder()
        .table_name(RESULTS)
        .key("job", AttributeValue::S(job.to_owned()))
        .update_expression("SET runs = list_append(if_not_exists(runs, :none), :run)")
        .expression_attribute_values(":none", AttributeValue::L(Vec::new()))
        .expression_attribute_values(":run", AttributeValue::L(vec![AttributeValue::S(claim.to_owned())]))
        .build()
        .map_err(|e| e.to_string())?;
    ctx.client()
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().update(done).build())
        .transact_items(TransactWriteItem::builder().update(result).build())
        .send()
        .await
        .map_err(|e| sdk_error_words(&e))?;
    Ok(Ret::Done)
}

/// Milliseconds since the epoch of a wall-clock reading.
fn ms(at: std::time::SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// A wall-clock time in milliseconds, as the time of the run it is: `312.400 s`.
fn wall(ms: u64) -> String {
    let since = ms.saturating_sub(dynalease_sim::START_TIME_SECS * 1000);
    format!("{:.3} s", since as f64 / 1000.0)
}

/// `12.345 s`.
fn seconds(at: Duration) -> String {
    format!("{:.3} s", at.as_secs_f64())
}

// ---------------------------------------------------------------------------------------------
// The command line

/// The example's own option: `--bug NAME`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Run the queue with a bug.
    #[arg(long, global = true, value_enum)]
    bug: Option<Bug>,
}

impl ServiceArgs for Args {
    type Service = JobQueue;

    fn service(&self) -> JobQueue {
        JobQueue { bug: self.bug, ..JobQueue::default() }
    }

    fn command_line(&self) -> String {
        match self.bug {
            Some(Bug::UncheckedClaim) => String::from(" --bug unchecked-claim"),
            Some(Bug::NoClaimTimeout) => String::from(" --bug no-claim-timeout"),
            None => String::new(),
        }
    }

    fn apply(&self, scenario: &mut Scenario<JobQueue>) {
        if self.bug.is_some() {
            scenario.service.bug = self.bug;
        }
    }
}

#[allow(dead_code)]
fn main() -> ExitCode {
    cli::main::<Args>("cargo run --release -p dynalease-sim --example job_queue --")
}
