//! Money transfers between accounts on DynamoDB, simulated: one `TransactWriteItems` per
//! transfer.
//!
//! Four accounts (`Accounts[alice]`, `bob`, `carol`, `dave`) start with 100 each. Tellers move
//! money between them: a transfer debits one account (on the condition that its balance covers
//! the amount), credits the other, and appends the transfer's id to the ledger of both, all in one
//! transaction. An auditor reads every balance in one `TransactGetItems` now and then. The
//! invariants:
//!
//! - **money is conserved** (`money-conserved`): the balances add up to 400, at every audit and
//!   in the tables as the run left them;
//! - **no account goes negative** (`no-negative-balance`);
//! - **every acknowledged transfer is applied exactly once** (`exactly-once`, from
//!   [`dynalease_sim::exactly_once`]): its id is in the ledger of the debited account once, and
//!   the id of a refused transfer is in none;
//! - **linearizability** (`linearizable`, from [`dynalease_sim::linearizable`]): every audit read
//!   balances that some order of the transfers explains, each taking effect at one instant
//!   between its start and its end, against a sequential model of the four balances ([`Bank`]).
//!   A transfer touches two accounts, so the history is searched as one whole, not account by
//!   account; transfers whose answers were lost may each have taken effect or not, which
//!   multiplies the orders to search, and a history too large for the search is reported as
//!   such, never as a pass.
//!
//! **The bug** (`--buggy`, the option `buggy = true` of a scenario file): a teller whose
//! transfer ends in an error it cannot read (the answer was lost, the request timed out) sends
//! it again, as a new request. The first one may have been applied: the money moves twice. Money
//! is still conserved and no balance goes negative; the ledgers hold the transfer twice, and the
//! next audit reads balances no order of the transfers explains.
//!
//! **The fix** (the default): every attempt of a transfer carries the same
//! `ClientRequestToken`, the transfer's id. DynamoDB remembers a token for ten minutes and
//! answers a request under a token it has applied as it answered the first, without applying
//! it again. (The SDK gives every request a token of its own and keeps it across its own
//! retries; the service's own retry is a new request, with a new token, unless the service sets
//! one.)
//!
//! ```text
//! cargo run --release -p dynalease-sim --example transfers -- sweep --seeds 1000
//! cargo run --release -p dynalease-sim --example transfers -- --buggy sweep --seeds 200 --until safety
//! cargo run --release -p dynalease-sim --example transfers -- --buggy shrink --seed 3
//! ```

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{AttributeValue, Get, TransactGetItem, TransactWriteItem, Update};
use dynalease_sim::cli::{self, ServiceArgs};
use dynalease_sim::history::Outcome;
use dynalease_sim::linearizable::{self, Budget, Model};
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

/// The table of accounts.
pub const TABLE: &str = "Accounts";
/// The accounts, each seeded with [`OPENING_BALANCE`].
pub const ACCOUNTS: [&str; 4] = ["alice", "bob", "carol", "dave"];
/// What each account holds at the start.
pub const OPENING_BALANCE: i64 = 100;
/// How many times a teller sends a transfer whose answer it did not get.
const ATTEMPTS: u32 = 3;

// ---------------------------------------------------------------------------------------------
// The service and its options

/// The bank. Its fields are its options, as a scenario file writes them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transfers {
    /// Sends a transfer again without its `ClientRequestToken`: the bug.
    #[serde(default)]
    pub buggy: bool,
}

/// What a process runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Makes a transfer between two accounts, then waits up to `every_ms_max`.
    Teller {
        /// The longest wait between two transfers.
        every_ms_max: u64,
    },
    /// Reads every balance in one transaction, every `every_ms`.
    Auditor {
        /// The wait between two audits.
        every_ms: u64,
    },
}

// ---------------------------------------------------------------------------------------------
// What the history records

/// An operation of the bank, as the history and the timeline show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Op {
    /// Moves `amount` from the account `from` to the account `to`.
    Transfer {
        /// The transfer's id, unique in the run: `p1.0-7` is the 7th of p1's first incarnation.
        id: String,
        /// The account debited.
        from: String,
        /// The account credited.
        to: String,
        /// How much.
        amount: i64,
    },
    /// Reads every balance, in one transaction.
    Audit,
}

/// What an operation returned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Ret {
    /// The transfer was applied.
    Done,
    /// The balances an audit read.
    Balances(BTreeMap<String, i64>),
    /// What the sequential model answers a transfer that the balance does not cover (the service
    /// itself records such a transfer as failed).
    Refused,
}

/// A note of a teller, when it sends a transfer again.
#[derive(Clone, Debug, Serialize)]
pub struct Retry {
    /// The transfer.
    pub transfer: String,
    /// The attempt that starts: 2 or 3.
    pub attempt: u32,
    /// What became of the one before.
    pub after: String,
    /// The `ClientRequestToken` of the new attempt, if the teller sets one.
    pub token: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// The faults it meets

/// The triggers a seed draws from, beside the faults at random times: the answers of
/// transactions lost or held up, and tellers stopped or cut off right after a transfer.
const MENU: &[MenuItem] = &[
    // A transfer applied whose answer is lost: the SDK may send it again, and then the teller.
    MenuItem::at(Moment::WriteApplied, ReactionKind::LoseAnswer),
    MenuItem::at(Moment::WriteApplied, ReactionKind::LoseAnswer),
    MenuItem::at(Moment::WriteApplied, ReactionKind::DelayAnswer),
    // A transfer held in the network while others land first.
    MenuItem::at(Moment::WriteSent, ReactionKind::DelayRequest),
    MenuItem::at(Moment::WriteSent, ReactionKind::Overtake),
    MenuItem::at(Moment::WriteApplied, ReactionKind::Overtake),
    // Cut off, throttled or crashed with a transfer on its way.
    MenuItem::at(Moment::WriteApplied, ReactionKind::Partition),
    MenuItem::at(Moment::WriteSent, ReactionKind::Crash),
    MenuItem::at(Moment::WriteAnswered, ReactionKind::Throttle),
];

// ---------------------------------------------------------------------------------------------
// The invariants

/// The balances add up to what the accounts started with.
pub fn money_conserved() -> Invariant {
    Invariant::safety("money-conserved", "money was made or lost: the balances do not add up to the opening balances")
}

/// No balance is below zero.
pub fn no_negative_balance() -> Invariant {
    Invariant::safety("no-negative-balance", "an account went below zero")
}

/// The sequential specification: four balances, which a transfer moves money between if the
/// debited one covers it, and which an audit reads. A transfer touches two accounts, so the
/// history is checked as one whole.
#[derive(Debug)]
pub struct Bank;

/// The balances of the accounts, in the order of [`ACCOUNTS`].
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Balances([i64; 4]);

impl std::fmt::Debug for Balances {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let each: Vec<String> = ACCOUNTS.iter().zip(self.0).map(|(a, b)| format!("{a} {b}")).collect();
        f.write_str(&each.join(", "))
    }
}

impl Model for Bank {
    type State = Balances;
    type Op = Op;
    type Ret = Ret;

    fn init(&self) -> Balances {
        Balances([OPENING_BALANCE; 4])
    }

    fn step(&self, state: &Balances, op: &Op) -> (Balances, Ret) {
        let index = |name: &str| ACCOUNTS.iter().position(|a| *a == name);
        match op {
            Op::Transfer { from, to, amount, .. } => match (index(from), index(to)) {
                (Some(f), Some(t)) if state.0[f] >= *amount => {
                    let mut next = state.clone();
                    next.0[f] -= amount;
                    next.0[t] += amount;
                    (next, Ret::Done)
                }
                _ => (state.clone(), Ret::Refused),
            },
            Op::Audit => {
                let read = ACCOUNTS.iter().zip(state.0).map(|(a, b)| ((*a).to_owned(), b)).collect();
                (state.clone(), Ret::Balances(read))
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The service

impl Service for Transfers {
    type Op = Op;
    type Ret = Ret;
    type Kind = Kind;

    const NAME: &'static str = "transfers";

    /// The table `Accounts` (key `account`), and the four accounts with 100 each and an empty
    /// ledger.
    fn setup(&self, setup: Setup) -> SetupFuture {
        Box::pin(async move {
            setup.create_table(TABLE, "account", None).await?;
            let client = setup.client();
            for account in ACCOUNTS {
                client
                    .put_item()
                    .table_name(TABLE)
                    .item("account", AttributeValue::S(account.into()))
                    .item("balance", AttributeValue::N(OPENING_BALANCE.to_string()))
                    .item("ledger", AttributeValue::L(Vec::new()))
                    .send()
                    .await?;
            }
            Ok(())
        })
    }

    fn tables(&self) -> Vec<String> {
        vec![TABLE.to_owned()]
    }

    /// A teller on every process, a transfer every 0.5 to 8 seconds; an auditor on the first,
    /// every 20 seconds.
    fn assign(&self, _rng: &mut SimRng, processes: u16) -> Vec<Vec<Kind>> {
        (0..processes)
            .map(|p| {
                let mut kinds = vec![Kind::Teller { every_ms_max: 8_000 }];
                if p == 0 {
                    kinds.push(Kind::Auditor { every_ms: 20_000 });
                }
                kinds
            })
            .collect()
    }

    fn run(&self, kind: &Kind, ctx: Ctx<Op, Ret>) -> Workload {
        match *kind {
            Kind::Teller { every_ms_max } => Box::pin(teller(ctx, every_ms_max, self.buggy)),
            Kind::Auditor { every_ms } => Box::pin(auditor(ctx, every_ms)),
        }
    }

    fn check(&self, run: &Run<'_, Kind>) -> Verdict {
        let mut verdict = Verdict::default();
        let history = run.history();
        let opening = OPENING_BALANCE * ACCOUNTS.len() as i64;

        // Every audit, and the tables as the run left them.
        let mut audits = run.operations::<Op, Ret>();
        audits.retain(|op| op.outcome == Outcome::Ok && matches!(op.ret, Some(Ret::Balances(_))));
        for audit in &audits {
            let Some(Ret::Balances(balances)) = audit.ret else { continue };
            verdict.count("audits", 1);
            if let Some(message) = unbalanced(balances, opening, &format!("the audit {} read", audit.op)) {
                let violation = Violation::new(money_conserved(), "", message).ops(history, &[audit.op], &[], &[]);
                verdict.violations.push(violation);
            }
        }
        let balances = final_balances(run.tables());
        if let Some(message) = unbalanced(&balances, opening, "the accounts as the run left them") {
            verdict.violations.push(Violation::new(money_conserved(), "", message));
        }
        for (account, balance) in &balances {
            if *balance < 0 {
                let message = format!("{account} ends the run with a balance of {balance}");
                verdict.violations.push(Violation::new(no_negative_balance(), account.clone(), message));
            }
        }

        // Every transfer in the ledger of the account it debited, as many times as it was applied.
        let mut applied = BTreeMap::new();
        for item in run.tables().items(TABLE) {
            let ledger = item.get("ledger").and_then(|l| l.as_l().ok()).map_or(&[][..], Vec::as_slice);
            for entry in ledger.iter().filter_map(|e| e.as_s().ok()) {
                if let Some(id) = entry.strip_prefix('-') {
                    *applied.entry(format!("transfer {id}")).or_insert(0) += 1;
                }
            }
        }
        let effect = |op: &Op| match op {
            Op::Transfer { id, .. } => Some(format!("transfer {id}")),
            Op::Audit => None,
        };
        verdict.violations.extend(exactly_once::check::<Op, Ret>(history, &applied, effect));
        verdict.count("transfers applied", applied.values().sum());
        linearizable::check_history(&Bank, history, Budget::default(), &mut verdict);
        verdict
    }

    fn invariants(&self) -> Vec<Invariant> {
        vec![money_conserved(), no_negative_balance(), exactly_once::invariant(), linearizable::invariant()]
    }

    fn menu(&self) -> &'static [MenuItem] {
        MENU
    }

    /// Half of the runs focus their triggers on one account.
    fn items(&self) -> Vec<String> {
        ACCOUNTS.iter().map(|a| format!("{TABLE}[{a}]")).collect()
    }

    fn scale(&self) -> Duration {
        Duration::from_secs(20)
    }

    fn kind_name(&self, kind: &Kind) -> String {
        match kind {
            Kind::Teller { every_ms_max } => format!("teller (a transfer every {every_ms_max} ms at most)"),
            Kind::Auditor { every_ms } => format!("auditor (every {every_ms} ms)"),
        }
    }
}

/// What is wrong with `balances`, if they do not add up to `opening`.
fn unbalanced(balances: &BTreeMap<String, i64>, opening: i64, what: &str) -> Option<String> {
    let sum: i64 = balances.values().sum();
    (sum != opening).then(|| {
        let each: Vec<String> = balances.iter().map(|(a, b)| format!("{a} {b}")).collect();
        format!("{what} add up to {sum}, not {opening}: {}", each.join(", "))
    })
}

/// The balance of every account, from the tables as the run left them.
fn final_balances(tables: &Tables) -> BTreeMap<String, i64> {
    tables
        .items(TABLE)
        .iter()
        .filter_map(|item| {
            let account = Tables::s(item, "account")?;
            Some((account.to_owned(), Tables::n(item, "balance")? as i64))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The workloads

/// Makes transfers between random accounts, one at a time.
async fn teller(ctx: Ctx<Op, Ret>, every_ms_max: u64, buggy: bool) {
    let mut rng = ctx.rng();
    for n in 0.. {
        ctx.sleep(Duration::from_millis(rng.range(500, every_ms_max))).await;
        let from = rng.below(ACCOUNTS.len() as u64) as usize;
        let to = (from + 1 + rng.below(ACCOUNTS.len() as u64 - 1) as usize) % ACCOUNTS.len();
        let op = Op::Transfer {
            id: format!("{}-{n}", ctx.process()),
            from: ACCOUNTS[from].to_owned(),
            to: ACCOUNTS[to].to_owned(),
            amount: rng.range(1, 40) as i64,
        };
        let _ = ctx.call(op.clone(), transfer(&ctx, &op, buggy)).await;
    }
}

/// One transfer, sent up to [`ATTEMPTS`] times while its fate is unknown.
async fn transfer(ctx: &Ctx<Op, Ret>, op: &Op, buggy: bool) -> Result<Ret, String> {
    let Op::Transfer { id, from, to, amount } = op else { return Err(String::from("not a transfer")) };
    let amount_value = AttributeValue::N(amount.to_string());
    let leg = |account: &str, sign: &str, entry: String| {
        let mut update = Update::builder()
            .table_name(TABLE)
            .key("account", AttributeValue::S(account.to_owned()))
            .update_expression(format!("SET balance = balance {sign} :amount, ledger = list_append(ledger, :entry)"))
            .expression_attribute_values(":amount", amount_value.clone())
            .expression_attribute_values(":entry", AttributeValue::L(vec![AttributeValue::S(entry)]));
        if sign == "-" {
            update = update.condition_expression("balance >= :amount");
        }
        update.build().map(|u| TransactWriteItem::builder().update(u).build())
    };
    let debit = leg(from, "-", format!("-{id}")).map_err(|e| e.to_string())?;
    let credit = leg(to, "+", format!("+{id}")).map_err(|e| e.to_string())?;
    let mut attempt = 1;
    loop {
        let mut request =
            ctx.client().transact_write_items().transact_items(debit.clone()).transact_items(credit.clone());
        if !buggy {
            // The fix: every attempt of the transfer under one token, which DynamoDB answers
            // for ten minutes as it answered the first.
            request = request.client_request_token(id);
        }
        let err = match request.send().await {
            Ok(_) => return Ok(Ret::Done),
            Err(err) => err,
        };
        if let Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) = err.as_service_error() {
            let refused =
                cancelled.cancellation_reasons().first().and_then(|r| r.code()) == Some("ConditionalCheckFailed");
            if refused {
                return Err(format!("refused: {from} has less than {amount}"));
            }
        }
        let why = sdk_error_words(&err);
        if attempt == ATTEMPTS {
            return Err(why);
        }
        attempt += 1;
        let token = (!buggy).then(|| id.clone());
        ctx.note(Retry { transfer: id.clone(), attempt, after: why, token });
        ctx.sleep(Duration::from_secs(1)).await;
    }
}

/// Reads every balance in one transaction.
async fn auditor(ctx: Ctx<Op, Ret>, every_ms: u64) {
    loop {
        ctx.sleep(Duration::from_millis(every_ms)).await;
        let _ = ctx.call(Op::Audit, audit(&ctx)).await;
    }
}

async fn audit(ctx: &Ctx<Op, Ret>) -> Result<Ret, String> {
    let mut request = ctx.client().transact_get_items();
    for account in ACCOUNTS {
        let get = Get::builder()
            .table_name(TABLE)
            .key("account", AttributeValue::S(account.into()))
            .projection_expression("account, balance")
            .build()
            .map_err(|e| e.to_string())?;
        request = request.transact_items(TransactGetItem::builder().get(get).build());
    }
    let out = request.send().await.map_err(|e| sdk_error_words(&e))?;
    let balances = out
        .responses()
        .iter()
        .filter_map(|r| r.item())
        .filter_map(|item| Some((Tables::s(item, "account")?.to_owned(), Tables::n(item, "balance")? as i64)))
        .collect();
    Ok(Ret::Balances(balances))
}

// ---------------------------------------------------------------------------------------------
// The command line

/// The example's own option: `--buggy`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Run the buggy tellers, which send a transfer again without its ClientRequestToken.
    #[arg(long, global = true)]
    buggy: bool,
}

impl ServiceArgs for Args {
    type Service = Transfers;

    fn service(&self) -> Transfers {
        Transfers { buggy: self.buggy }
    }

    fn command_line(&self) -> String {
        if self.buggy { String::from(" --buggy") } else { String::new() }
    }

    fn apply(&self, scenario: &mut Scenario<Transfers>) {
        scenario.service.buggy |= self.buggy;
    }
}

#[allow(dead_code)]
fn main() -> ExitCode {
    cli::main::<Args>("cargo run --release -p dynalease-sim --example transfers --")
}
