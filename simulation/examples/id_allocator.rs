//! An id allocator on DynamoDB, simulated: hi/lo blocks from one counter item.
//!
//! Every process takes a block of ids from the counter item `Counters[ids]` (its attribute
//! `next` is the first id nobody has taken yet) and hands out the ids of its block one by one,
//! locally, without a request; when the block runs out, it takes the next one. The invariant:
//! **an id is never handed out twice** (`id-unique`), checked over the history of the
//! `Allocate -> Id(n)` operations.
//!
//! **The bug** (`--buggy`, the option `buggy = true` of a scenario file): a block is taken by
//! reading the counter and putting back the counter plus the size of a block, without a
//! condition. Two processes that read the same value take the same block, and both hand out its
//! ids. A lost answer does it too: the SDK sends the put again, after someone else may have
//! taken the next block, and the counter goes back.
//!
//! **The fix** (the default): the update is conditioned on the counter still holding the value
//! that was read (`next = :seen`); a process that loses the race reads again. If the answer of
//! its own update is lost, the SDK's retry fails the condition and the process takes another
//! block: the first is skipped, never handed out. (`ADD next :size` with
//! `ReturnValues = UPDATED_NEW` does the same in one request.)
//!
//! ```text
//! cargo run --release -p dynalease-sim --example id_allocator -- sweep --seeds 1000
//! cargo run --release -p dynalease-sim --example id_allocator -- --buggy sweep --seeds 200 --until safety
//! cargo run --release -p dynalease-sim --example id_allocator -- --buggy shrink --seed 3
//! cargo run --release -p dynalease-sim --example id_allocator -- --buggy run --seed 3 --timeline
//! ```
//!
//! The same service runs in `cargo test` through `dynalease_sim::harness` (see
//! `tests/example_services.rs`).

use std::collections::BTreeMap;
use std::ops::Range;
use std::process::ExitCode;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use dynalease_sim::cli::{self, ServiceArgs};
use dynalease_sim::history::{OpId, Outcome};
use dynalease_sim::nemesis::{MenuItem, Moment, ReactionKind};
use dynalease_sim::sdk_error_words;
use dynalease_sim::{Ctx, Invariant, Run, Scenario, Service, Setup, SetupFuture, SimRng, Verdict, Violation, Workload};
use serde::{Deserialize, Serialize};

/// Every request of a simulated run allocates in the SDK and the fake: a faster allocator makes
/// long sweeps faster.
#[cfg_attr(not(test), global_allocator)]
#[allow(dead_code)]
static ALLOCATOR: dynalease_fake::Allocator = dynalease_fake::Allocator;

/// The table of counters.
pub const TABLE: &str = "Counters";
/// The counter item the blocks are taken from.
pub const COUNTER: &str = "ids";

// ---------------------------------------------------------------------------------------------
// The service and its options

/// The id allocator. Its fields are its options, as a scenario file writes them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdAllocator {
    /// Takes a block with a read and a put without a condition: the bug.
    #[serde(default)]
    pub buggy: bool,
    /// How many ids a block holds.
    pub block: u64,
}

impl Default for IdAllocator {
    /// The correct allocator, with blocks of 5 ids.
    fn default() -> Self {
        IdAllocator { buggy: false, block: 5 }
    }
}

/// What a process runs: an allocator that hands out an id every so often.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Hands out an id, then waits up to `every_ms_max`.
    Allocator {
        /// The longest wait between two ids.
        every_ms_max: u64,
    },
}

// ---------------------------------------------------------------------------------------------
// What the history records

/// An operation of the allocator, as the history and the timeline show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Op {
    /// Takes the next block of ids from the counter.
    TakeBlock,
    /// Hands out the next id of the process's block.
    Allocate,
}

/// What an operation returned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Ret {
    /// The ids of a block: `Block(20..25)`.
    Block(Range<u64>),
    /// An id handed out: `Id(23)`.
    Id(u64),
}

// ---------------------------------------------------------------------------------------------
// The faults it meets

/// The triggers a seed draws from, beside the faults at random times (crashes, pauses,
/// partitions, throttling, lost answers, clock steps) that every service meets: the windows of
/// a read-modify-write of one item.
const MENU: &[MenuItem] = &[
    // Another process's write lands between the read of the counter and the write after it.
    MenuItem::at(Moment::ReadSent, ReactionKind::Overtake),
    MenuItem::at(Moment::WriteSent, ReactionKind::Overtake),
    // The process stops between its read and its write.
    MenuItem::at(Moment::ReadApplied, ReactionKind::Pause),
    MenuItem::at(Moment::ReadApplied, ReactionKind::Crash),
    // The answer of the write is lost (the SDK sends it again) or comes late.
    MenuItem::at(Moment::WriteApplied, ReactionKind::LoseAnswer),
    MenuItem::at(Moment::WriteApplied, ReactionKind::DelayAnswer),
    // The write waits in the network until another process has read the counter.
    MenuItem::at(Moment::WriteSent, ReactionKind::HoldUntilRead),
    MenuItem::at(Moment::WriteSent, ReactionKind::DelayRequest),
    // The process crashes with a block in hand: its ids are lost, never handed out again.
    MenuItem::at(Moment::WriteAnswered, ReactionKind::Crash),
];

// ---------------------------------------------------------------------------------------------
// The invariant

/// An id is never handed out twice.
pub fn id_unique() -> Invariant {
    Invariant::safety("id-unique", "an id was handed out twice")
}

// ---------------------------------------------------------------------------------------------
// The service

impl Service for IdAllocator {
    type Op = Op;
    type Ret = Ret;
    type Kind = Kind;

    const NAME: &'static str = "id-allocator";

    /// The table `Counters` (key `name`) and its counter item, `next = 0`.
    fn setup(&self, setup: Setup) -> SetupFuture {
        Box::pin(async move {
            setup.create_table(TABLE, "name", None).await?;
            let client = setup.client();
            client
                .put_item()
                .table_name(TABLE)
                .item("name", AttributeValue::S(COUNTER.into()))
                .item("next", AttributeValue::N("0".into()))
                .send()
                .await?;
            Ok(())
        })
    }

    fn tables(&self) -> Vec<String> {
        vec![TABLE.to_owned()]
    }

    /// One allocator on every process, handing out an id every 0.1 to 3 seconds.
    fn assign(&self, _rng: &mut SimRng, processes: u16) -> Vec<Vec<Kind>> {
        (0..processes).map(|_| vec![Kind::Allocator { every_ms_max: 3_000 }]).collect()
    }

    fn run(&self, kind: &Kind, ctx: Ctx<Op, Ret>) -> Workload {
        let Kind::Allocator { every_ms_max } = *kind;
        let (buggy, size) = (self.buggy, self.block);
        Box::pin(async move {
            let mut rng = ctx.rng();
            // The block this incarnation hands out ids from; a crash loses what is left of it.
            let mut block = 0..0;
            loop {
                ctx.sleep(Duration::from_millis(rng.range(100, every_ms_max))).await;
                if block.is_empty() {
                    let taken = ctx.call(Op::TakeBlock, take_block(ctx.client(), size, buggy)).await;
                    match taken {
                        Ok(Ret::Block(ids)) => block = ids,
                        // DynamoDB refused, or the answer was lost: try again later.
                        _ => continue,
                    }
                }
                let id = block.start;
                block.start += 1;
                ctx.invoke(Op::Allocate).ok(Ret::Id(id));
            }
        })
    }

    fn check(&self, run: &Run<'_, Kind>) -> Verdict {
        let mut verdict = Verdict::default();
        let ops = run.operations::<Op, Ret>();
        // The first operation that handed out each id.
        let mut first: BTreeMap<u64, usize> = BTreeMap::new();
        let mut found = None;
        for (index, op) in ops.iter().enumerate() {
            let (Op::Allocate, Outcome::Ok, Some(Ret::Id(id))) = (op.call, op.outcome, op.ret) else { continue };
            verdict.count("ids handed out", 1);
            match first.get(id) {
                None => {
                    first.insert(*id, index);
                }
                Some(&earlier) => {
                    verdict.count("ids handed out twice", 1);
                    found.get_or_insert((*id, earlier, index));
                }
            }
        }
        if let Some((id, a, b)) = found {
            let (a, b) = (&ops[a], &ops[b]);
            // The operations that took the blocks the two ids came from.
            let block_of = |allocation: &dynalease_sim::history::Operation<'_, Op, Ret>| {
                ops.iter().rev().find(|take| {
                    take.process == allocation.process
                        && take.invoke < allocation.invoke
                        && matches!(take.ret, Some(Ret::Block(ids)) if ids.contains(&id))
                })
            };
            let (block_a, block_b) = (block_of(a), block_of(b));
            let from = |take: Option<&dynalease_sim::history::Operation<'_, Op, Ret>>| match take {
                Some(take) => match take.ret {
                    Some(Ret::Block(ids)) => format!(" from the block {ids:?} that {} took", take.op),
                    _ => String::new(),
                },
                None => String::new(),
            };
            let message = format!(
                "id {id} was handed out twice: by {} of {} at {}{}, and by {} of {} at {}{}",
                a.op,
                a.process,
                seconds(a.invoked_at),
                from(block_a),
                b.op,
                b.process,
                seconds(b.invoked_at),
                from(block_b)
            );
            let ids = |allocation: &dynalease_sim::history::Operation<'_, Op, Ret>, take: Option<OpId>| {
                let mut ids = vec![allocation.op];
                ids.extend(take);
                ids
            };
            let violation = Violation::new(id_unique(), format!("id {id}"), message).ops(
                run.history(),
                &ids(a, block_a.map(|t| t.op)),
                &ids(b, block_b.map(|t| t.op)),
                &[],
            );
            verdict.violations.push(violation);
        }
        verdict
    }

    fn invariants(&self) -> Vec<Invariant> {
        vec![id_unique()]
    }

    fn menu(&self) -> &'static [MenuItem] {
        MENU
    }

    /// Half of the runs focus their triggers on the counter.
    fn items(&self) -> Vec<String> {
        vec![format!("{TABLE}[{COUNTER}]")]
    }

    /// No protocol of its own to time faults by: pauses and partitions of a few seconds to a
    /// minute.
    fn scale(&self) -> Duration {
        Duration::from_secs(20)
    }

    fn kind_name(&self, kind: &Kind) -> String {
        let Kind::Allocator { every_ms_max } = kind;
        format!("allocator (an id every {every_ms_max} ms at most)")
    }
}

/// Takes the next block of `size` ids from the counter.
async fn take_block(client: &Client, size: u64, buggy: bool) -> Result<Ret, String> {
    // A process that loses the race to another reads again, a few times.
    for _ in 0..5 {
        let read = client
            .get_item()
            .table_name(TABLE)
            .key("name", AttributeValue::S(COUNTER.into()))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| sdk_error_words(&e))?;
        let next = read
            .item()
            .and_then(|item| item.get("next"))
            .and_then(|n| n.as_n().ok())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0);
        let after = AttributeValue::N((next + size).to_string());
        if buggy {
            // The bug: whatever happened since the read, the counter is set to what this
            // process computed.
            client
                .put_item()
                .table_name(TABLE)
                .item("name", AttributeValue::S(COUNTER.into()))
                .item("next", after)
                .send()
                .await
                .map_err(|e| sdk_error_words(&e))?;
            return Ok(Ret::Block(next..next + size));
        }
        let updated = client
            .update_item()
            .table_name(TABLE)
            .key("name", AttributeValue::S(COUNTER.into()))
            .update_expression("SET #next = :after")
            .condition_expression("#next = :seen")
            .expression_attribute_names("#next", "next")
            .expression_attribute_values(":after", after)
            .expression_attribute_values(":seen", AttributeValue::N(next.to_string()))
            .send()
            .await;
        match updated {
            Ok(_) => return Ok(Ret::Block(next..next + size)),
            // Another process took the block since the read (or this one did, and the answer
            // was lost): read again.
            Err(err) if err.as_service_error().is_some_and(|e| e.is_conditional_check_failed_exception()) => {}
            Err(err) => return Err(sdk_error_words(&err)),
        }
    }
    Err(String::from("lost the race for the counter five times in a row"))
}

/// `12.345 s`.
fn seconds(at: Duration) -> String {
    format!("{:.3} s", at.as_secs_f64())
}

// ---------------------------------------------------------------------------------------------
// The command line

/// The example's own option: `--buggy`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Run the buggy allocator, which takes a block with a read and a put without a condition.
    #[arg(long, global = true)]
    buggy: bool,
}

impl ServiceArgs for Args {
    type Service = IdAllocator;

    fn service(&self) -> IdAllocator {
        IdAllocator { buggy: self.buggy, ..IdAllocator::default() }
    }

    fn command_line(&self) -> String {
        if self.buggy { String::from(" --buggy") } else { String::new() }
    }

    fn apply(&self, scenario: &mut Scenario<IdAllocator>) {
        scenario.service.buggy |= self.buggy;
    }
}

#[allow(dead_code)]
fn main() -> ExitCode {
    cli::main::<Args>("cargo run --release -p dynalease-sim --example id_allocator --")
}
