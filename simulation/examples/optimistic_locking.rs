//! Optimistic locking on DynamoDB, simulated: read-modify-write of a document guarded by its
//! version.
//!
//! Two documents (`Documents[cart-1]`, `Documents[cart-2]`) each hold a `total` and a
//! `version`. Writers add to a document's total: they read it, compute the new total, and write
//! it back on the condition that the version is still the one they read, raising the version by
//! one; a writer whose condition fails read a stale document and starts over. Readers read a
//! total now and then. The invariants:
//!
//! - **linearizability** (`linearizable`, from [`dynalease_sim::linearizable`]): every total a
//!   writer or a reader saw is explained by some order of the additions, each taking effect at
//!   one instant between its start and its end, against a sequential model: a counter per
//!   document ([`Totals`], checked document by document);
//! - **no lost update** (`no-lost-update`): each document's final total is the sum of the
//!   additions that were acknowledged, and of some of those whose answers were lost.
//!
//! **The bug** (`--buggy`, the option `buggy = true` of a scenario file): the write checks the
//! version but does not raise it. Two writers that read the same version both pass the check,
//! and the second overwrites the first's addition.
//!
//! **The fix** (the default): the write sets `version = :seen + 1` along with the total, so
//! that one of two writers that read the same version fails its condition and reads again. A
//! writer whose own write's answer was lost does not start over, since the write may have been
//! applied (the SDK's retry of it then fails the condition, as anyone's write would): it reports
//! the addition as unknown.
//!
//! ```text
//! cargo run --release -p dynalease-sim --example optimistic_locking -- sweep --seeds 1000
//! cargo run --release -p dynalease-sim --example optimistic_locking -- --buggy sweep --seeds 200 --until safety
//! cargo run --release -p dynalease-sim --example optimistic_locking -- --buggy shrink --seed 3
//! ```

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use dynalease_sim::cli::{self, ServiceArgs};
use dynalease_sim::history::{OpId, Outcome};
use dynalease_sim::linearizable::{self, Budget, Model};
use dynalease_sim::nemesis::{MenuItem, Moment, ReactionKind};
use dynalease_sim::sdk_error_words;
use dynalease_sim::{
    Ctx, Invariant, Run, Scenario, Service, Setup, SetupFuture, SimRng, Tables, Verdict, Violation, Workload,
};
use serde::{Deserialize, Serialize};

#[cfg_attr(not(test), global_allocator)]
#[allow(dead_code)]
static ALLOCATOR: dynalease_fake::Allocator = dynalease_fake::Allocator;

/// The table of documents.
pub const TABLE: &str = "Documents";
/// The documents, each starting with a total of 0 at version 0.
pub const DOCS: [&str; 2] = ["cart-1", "cart-2"];
/// How many times a writer starts over after a conflict.
const ATTEMPTS: u32 = 5;

// ---------------------------------------------------------------------------------------------
// The service and its options

/// The documents and their writers. Its fields are its options, as a scenario file writes them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimisticLocking {
    /// Checks the version without raising it: the bug.
    #[serde(default)]
    pub buggy: bool,
}

/// What a process runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Adds 1 to 3 to a document's total, then waits up to `every_ms_max`.
    Writer {
        /// The longest wait between two additions.
        every_ms_max: u64,
    },
    /// Reads a document's total, then waits up to `every_ms_max`.
    Reader {
        /// The longest wait between two reads.
        every_ms_max: u64,
    },
}

// ---------------------------------------------------------------------------------------------
// What the history records

/// An operation on a document, as the history and the timeline show it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Op {
    /// Adds `amount` to the total of `doc`.
    Add {
        /// The document.
        doc: String,
        /// How much.
        amount: i64,
    },
    /// Reads the total of `doc`.
    Read {
        /// The document.
        doc: String,
    },
}

impl Op {
    fn doc(&self) -> &str {
        match self {
            Op::Add { doc, .. } | Op::Read { doc } => doc,
        }
    }
}

/// What an operation returned: the document's total after it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Ret {
    /// The total.
    Total(i64),
}

// ---------------------------------------------------------------------------------------------
// The faults it meets

/// The triggers a seed draws from, beside the faults at random times: the windows between a
/// read and the conditional write after it, and lost answers of those writes.
const MENU: &[MenuItem] = &[
    // Another writer's write lands between a read and the write after it.
    MenuItem::at(Moment::ReadSent, ReactionKind::Overtake),
    MenuItem::at(Moment::ReadSent, ReactionKind::Overtake),
    MenuItem::at(Moment::WriteSent, ReactionKind::Overtake),
    MenuItem::at(Moment::WriteSent, ReactionKind::HoldUntilRead),
    // The writer stops between its read and its write.
    MenuItem::at(Moment::ReadApplied, ReactionKind::Pause),
    MenuItem::at(Moment::ReadApplied, ReactionKind::Crash),
    // The write is applied and its answer lost (the SDK sends it again) or held up.
    MenuItem::at(Moment::WriteApplied, ReactionKind::LoseAnswer),
    MenuItem::at(Moment::WriteApplied, ReactionKind::DelayAnswer),
    MenuItem::at(Moment::WriteSent, ReactionKind::DelayRequest),
];

// ---------------------------------------------------------------------------------------------
// The invariants, and the sequential model the history is held to

/// Each document's final total is the sum of its acknowledged additions, and of some of those
/// whose answers were lost.
pub fn no_lost_update() -> Invariant {
    Invariant::safety("no-lost-update", "an acknowledged update is missing from the final state")
}

/// The sequential specification: a total per document, to which an addition adds and which a
/// read returns. Documents are independent, so the history is checked document by document.
#[derive(Debug)]
pub struct Totals;

impl Model for Totals {
    type State = i64;
    type Op = Op;
    type Ret = Ret;

    fn init(&self) -> i64 {
        0
    }

    fn step(&self, total: &i64, op: &Op) -> (i64, Ret) {
        match op {
            Op::Add { amount, .. } => (total + amount, Ret::Total(total + amount)),
            Op::Read { .. } => (*total, Ret::Total(*total)),
        }
    }

    fn partition(&self, op: &Op) -> Option<String> {
        Some(op.doc().to_owned())
    }
}

// ---------------------------------------------------------------------------------------------
// The service

impl Service for OptimisticLocking {
    type Op = Op;
    type Ret = Ret;
    type Kind = Kind;

    const NAME: &'static str = "optimistic-locking";

    /// The table `Documents` (key `doc`), and the documents at total 0, version 0.
    fn setup(&self, setup: Setup) -> SetupFuture {
        Box::pin(async move {
            setup.create_table(TABLE, "doc", None).await?;
            let client = setup.client();
            for doc in DOCS {
                client
                    .put_item()
                    .table_name(TABLE)
                    .item("doc", AttributeValue::S(doc.into()))
                    .item("total", AttributeValue::N("0".into()))
                    .item("version", AttributeValue::N("0".into()))
                    .send()
                    .await?;
            }
            Ok(())
        })
    }

    fn tables(&self) -> Vec<String> {
        vec![TABLE.to_owned()]
    }

    /// A writer on every process, an addition every 1 to 8 seconds; a reader on the first, a
    /// read every 0.5 to 5 seconds.
    fn assign(&self, _rng: &mut SimRng, processes: u16) -> Vec<Vec<Kind>> {
        (0..processes)
            .map(|p| {
                let mut kinds = vec![Kind::Writer { every_ms_max: 8_000 }];
                if p == 0 {
                    kinds.push(Kind::Reader { every_ms_max: 5_000 });
                }
                kinds
            })
            .collect()
    }

    fn run(&self, kind: &Kind, ctx: Ctx<Op, Ret>) -> Workload {
        let buggy = self.buggy;
        match *kind {
            Kind::Writer { every_ms_max } => Box::pin(async move {
                let mut rng = ctx.rng();
                loop {
                    ctx.sleep(Duration::from_millis(rng.range(1_000, every_ms_max))).await;
                    let doc = DOCS[rng.below(DOCS.len() as u64) as usize];
                    let amount = rng.range(1, 3) as i64;
                    // Recorded by hand rather than through `ctx.call`: the writer itself tells
                    // a conflict (start over) from a write whose fate is unknown (stop).
                    let pending = ctx.invoke(Op::Add { doc: doc.to_owned(), amount });
                    match add(&ctx, doc, amount, buggy).await {
                        Added::Done(total) => pending.ok(Ret::Total(total)),
                        Added::Unknown(why) => pending.unknown(why),
                        Added::Failed(why) => pending.fail(why),
                    }
                }
            }),
            Kind::Reader { every_ms_max } => Box::pin(async move {
                let mut rng = ctx.rng();
                loop {
                    ctx.sleep(Duration::from_millis(rng.range(500, every_ms_max))).await;
                    let doc = DOCS[rng.below(DOCS.len() as u64) as usize];
                    let read = async { read(ctx.client(), doc).await.map(|(total, _)| Ret::Total(total)) };
                    let _ = ctx.call(Op::Read { doc: doc.to_owned() }, read).await;
                }
            }),
        }
    }

    fn check(&self, run: &Run<'_, Kind>) -> Verdict {
        let mut verdict = Verdict::default();
        linearizable::check_history(&Totals, run.history(), Budget::default(), &mut verdict);

        // What the additions of each document add up to, and the totals they were added to.
        let mut sums: BTreeMap<&str, Sums> = BTreeMap::new();
        for op in run.operations::<Op, Ret>() {
            let Op::Add { doc, amount } = op.call else { continue };
            let sums = sums.entry(doc.as_str()).or_default();
            match (op.outcome, op.ret) {
                (Outcome::Ok, Some(Ret::Total(total))) => {
                    sums.acked += amount;
                    sums.acked_n += 1;
                    // Totals only grow: two additions written over the same total read the same
                    // version of the document, and only one of them may pass its condition.
                    let read = total - amount;
                    let addition = Addition { op: op.op, amount: *amount, total: *total };
                    match sums.added_to.get(&read) {
                        Some(first) => {
                            sums.same_read.get_or_insert((*first, addition));
                        }
                        None => {
                            sums.added_to.insert(read, addition);
                        }
                    }
                }
                (Outcome::Info, _) => {
                    sums.unknown += amount;
                    sums.unknown_n += 1;
                }
                _ => {}
            }
        }
        for item in run.tables().items(TABLE) {
            let (Some(doc), Some(total)) = (Tables::s(item, "doc"), Tables::n(item, "total")) else { continue };
            let total = total as i64;
            let Some(sums) = sums.get(doc) else { continue };
            let (acked, acked_n, unknown, unknown_n) = (sums.acked, sums.acked_n, sums.unknown, sums.unknown_n);
            let ending = if total < acked {
                format!("{doc} ends the run at {total}, but its {acked_n} acknowledged additions add up to {acked}")
            } else if total > acked + unknown {
                format!(
                    "{doc} ends the run at {total}, more than its {acked_n} acknowledged additions ({acked}) and the \
                     {unknown_n} whose answers were lost ({unknown}) add up to"
                )
            } else {
                String::new()
            };
            let violation = match &sums.same_read {
                Some((first, second)) => {
                    let (a, b, a_total, b_total) = (first.op, second.op, first.total, second.total);
                    let read = first.total - first.amount;
                    let message = format!(
                        "{a} and {b} both added to the total {read} they read: {a} wrote {a_total}, {b} wrote \
                         {b_total}, and one of the two additions was lost{}",
                        if ending.is_empty() { String::new() } else { format!("; {ending}") }
                    );
                    Violation::new(no_lost_update(), doc, message).ops(run.history(), &[a], &[b], &[])
                }
                None if !ending.is_empty() => Violation::new(no_lost_update(), doc, ending),
                None => continue,
            };
            verdict.violations.push(violation);
        }
        verdict
    }

    fn invariants(&self) -> Vec<Invariant> {
        vec![linearizable::invariant(), no_lost_update()]
    }

    fn menu(&self) -> &'static [MenuItem] {
        MENU
    }

    /// Half of the runs focus their triggers on one document.
    fn items(&self) -> Vec<String> {
        DOCS.iter().map(|d| format!("{TABLE}[{d}]")).collect()
    }

    fn scale(&self) -> Duration {
        Duration::from_secs(20)
    }

    fn kind_name(&self, kind: &Kind) -> String {
        match kind {
            Kind::Writer { every_ms_max } => format!("writer (an addition every {every_ms_max} ms at most)"),
            Kind::Reader { every_ms_max } => format!("reader (a read every {every_ms_max} ms at most)"),
        }
    }
}

/// The additions of one document.
#[derive(Default)]
struct Sums {
    /// The sum of the acknowledged ones.
    acked: i64,
    /// How many were acknowledged.
    acked_n: usize,
    /// The sum of those whose answers were lost.
    unknown: i64,
    /// How many answers were lost.
    unknown_n: usize,
    /// The acknowledged additions by the total they were added to.
    added_to: BTreeMap<i64, Addition>,
    /// The first two acknowledged additions to the same total.
    same_read: Option<(Addition, Addition)>,
}

/// An acknowledged addition: the operation, its amount and the total it wrote.
#[derive(Clone, Copy)]
struct Addition {
    op: OpId,
    amount: i64,
    total: i64,
}

/// How an addition ended.
enum Added {
    /// Applied: the new total.
    Done(i64),
    /// Maybe applied: the answer of its write was lost.
    Unknown(String),
    /// Not applied.
    Failed(String),
}

/// Reads `doc`: its total and its version.
async fn read(client: &Client, doc: &str) -> Result<(i64, i64), String> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("doc", AttributeValue::S(doc.into()))
        .consistent_read(true)
        .send()
        .await
        .map_err(|e| sdk_error_words(&e))?;
    let item = out.item().ok_or_else(|| format!("{doc} is gone"))?;
    let number = |name| Tables::n(item, name).map(|n| n as i64).ok_or_else(|| format!("{doc} has no {name}"));
    Ok((number("total")?, number("version")?))
}

/// Adds `amount` to the total of `doc`: read, then write on the condition of the version read.
async fn add(ctx: &Ctx<Op, Ret>, doc: &str, amount: i64, buggy: bool) -> Added {
    for _ in 0..ATTEMPTS {
        let (total, version) = match read(ctx.client(), doc).await {
            Ok(read) => read,
            Err(why) => return Added::Failed(why),
        };
        let update = if buggy {
            // The bug: the version is checked, but stays as it is.
            "SET #total = :total"
        } else {
            "SET #total = :total, #version = :next"
        };
        let write = ctx
            .client()
            .update_item()
            .table_name(TABLE)
            .key("doc", AttributeValue::S(doc.into()))
            .update_expression(update)
            .condition_expression("#version = :seen")
            .expression_attribute_names("#total", "total")
            .expression_attribute_names("#version", "version")
            .expression_attribute_values(":total", AttributeValue::N((total + amount).to_string()))
            .expression_attribute_values(":seen", AttributeValue::N(version.to_string()));
        let write = if buggy {
            write
        } else {
            write.expression_attribute_values(":next", AttributeValue::N((version + 1).to_string()))
        };
        // `watch` tells whether a request of the write lost its answer or timed out.
        let (written, uncertain) = ctx.watch(write.send()).await;
        match written {
            Ok(_) => return Added::Done(total + amount),
            Err(err) if uncertain => return Added::Unknown(sdk_error_words(&err)),
            // Someone else wrote since the read: start over.
            Err(err) if err.as_service_error().is_some_and(|e| e.is_conditional_check_failed_exception()) => {}
            Err(err) => return Added::Failed(sdk_error_words(&err)),
        }
    }
    Added::Failed(format!("lost the race for {doc} {ATTEMPTS} times in a row"))
}

// ---------------------------------------------------------------------------------------------
// The command line

/// The example's own option: `--buggy`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Run the buggy writers, which check the version without raising it.
    #[arg(long, global = true)]
    buggy: bool,
}

impl ServiceArgs for Args {
    type Service = OptimisticLocking;

    fn service(&self) -> OptimisticLocking {
        OptimisticLocking { buggy: self.buggy }
    }

    fn command_line(&self) -> String {
        if self.buggy { String::from(" --buggy") } else { String::new() }
    }

    fn apply(&self, scenario: &mut Scenario<OptimisticLocking>) {
        scenario.service.buggy |= self.buggy;
    }
}

#[allow(dead_code)]
fn main() -> ExitCode {
    cli::main::<Args>("cargo run --release -p dynalease-sim --example optimistic_locking --")
}
