//! A property-based race test of your own service, in the simulated world.
//!
//! The service dispatches orders: the process that leads the lock "dispatcher" reads the number
//! of the next order from an item of its own, works on that order for two seconds, then writes
//! it as dispatched (with its fencing token) and moves the counter on, in one transaction. Its
//! data must keep one rule, whatever crashes, pauses and clocks do: **every order is dispatched
//! exactly once, and the fencing tokens of the dispatches never go back as the orders go on.**
//!
//! The test is a proptest property over the simulation's scenarios
//! ([`dynalease_sim::scenario::strategy`]): each case is a scenario of 2 to 5 processes with
//! their workloads, faults and protocol-timed triggers; the example puts its `Dispatcher` into
//! every process, runs the world, then reads its own items from the DynamoDB the run left
//! ([`World::run_then`]) and checks the rule. The simulation's own checker must pass as well.
//!
//! ```sh
//! # The service as it should be: its transaction carries `fenced_by`, so a leader that lost
//! # its lease while it worked (a pause, a suspension) cannot write. The property holds.
//! cargo run --release -p dynalease-sim --example proptest_workload
//!
//! # The same service with the bug of checking leadership before the work and not in the write:
//! # proptest finds a scenario that breaks the rule and shrinks it, and the example writes the
//! # smallest one as a scenario file (default: dispatch-failure.toml).
//! cargo run --release -p dynalease-sim --example proptest_workload -- --unfenced --out dispatch-failure.toml
//!
//! # Replays the file with the dispatcher put back into every process (a file holds the
//! # built-in workloads only; the service's own is code), and prints what broke and the timeline.
//! cargo run --release -p dynalease-sim --example proptest_workload -- replay dispatch-failure.toml --unfenced
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, TransactWriteItem, Update};
use dynalease::TransactWriteExt;
use dynalease_sim::history::{Call, Outcome, Value};
use dynalease_sim::{Config, ProcessCtx, Scenario, TABLE, Workload, WorkloadFuture, World, scenario};
use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use tokio_util::sync::CancellationToken;

/// The lock of the dispatcher.
const LOCK: &str = "dispatcher";

/// Leads the lock "dispatcher" and, while it leads, dispatches one order after the other.
#[derive(Debug)]
struct Dispatcher {
    /// Whether its writes carry `fenced_by` (the service as it should be).
    fenced: bool,
}

fn key(pk: String) -> [(String, AttributeValue); 2] {
    [(String::from("pk"), AttributeValue::S(pk)), (String::from("sk"), AttributeValue::S(String::from("ORDER")))]
}

impl Workload for Dispatcher {
    fn name(&self) -> String {
        String::from(if self.fenced { "dispatcher" } else { "dispatcher(unfenced)" })
    }

    fn run(&self, ctx: ProcessCtx) -> WorkloadFuture {
        let fenced = self.fenced;
        Box::pin(async move {
            let lock = ctx.lock_id(LOCK);
            loop {
                let acquire = ctx.invoke(Call::Acquire { lock });
                let term = ctx.clone();
                let led = ctx
                    .lock_table()
                    .run_as_leader(LOCK, ctx.lease(), CancellationToken::new(), move |lease, stop| {
                        let ctx = term.clone();
                        async move {
                            ctx.complete(acquire, Outcome::Ok, Value::Token(lease.fencing_token()));
                            let _held = ctx.hold(lease.clone());
                            while !stop.is_cancelled() {
                                tokio::select! {
                                    biased;
                                    () = stop.cancelled() => break,
                                    () = ctx.sleep(Duration::from_secs(1)) => {}
                                }
                                dispatch_next(&ctx, &lease, fenced).await;
                            }
                            Ok::<(), std::convert::Infallible>(())
                        }
                    })
                    .await;
                if let Err(err) = led {
                    ctx.complete(acquire, Outcome::Fail, Value::Text(err.to_string()));
                }
                ctx.sleep(ctx.lease() / 3).await;
            }
        })
    }
}

/// Reads the next order's number, works on it for 2 s, and writes it as dispatched with the
/// counter moved on, in one transaction (with `fenced_by` if `fenced`).
async fn dispatch_next(ctx: &ProcessCtx, lease: &dynalease::Lease, fenced: bool) {
    let client = ctx.client();
    let read = client
        .get_item()
        .table_name(ctx.table_name())
        .set_key(Some(key(String::from("ORDERS")).into_iter().collect()))
        .consistent_read(true)
        .send()
        .await;
    let Ok(read) = read else { return };
    let next: u64 =
        read.item().and_then(|i| i.get("next")).and_then(|v| v.as_n().ok()).and_then(|n| n.parse().ok()).unwrap_or(0);
    let op = ctx.invoke(Call::Custom { name: format!("dispatch order {next}") });
    ctx.sleep(Duration::from_secs(2)).await;
    let token = lease.fencing_token().to_string();
    let order = Update::builder()
        .table_name(ctx.table_name())
        .set_key(Some(key(format!("ORDER#{next:06}")).into_iter().collect()))
        .update_expression("ADD dispatches :one SET #by = :by, #token = :token")
        .expression_attribute_names("#by", "by")
        .expression_attribute_names("#token", "token")
        .expression_attribute_values(":one", AttributeValue::N(String::from("1")))
        .expression_attribute_values(":by", AttributeValue::S(ctx.process().to_string()))
        .expression_attribute_values(":token", AttributeValue::N(token))
        .build()
        .expect("an update with key, table and expression");
    let counter = Update::builder()
        .table_name(ctx.table_name())
        .set_key(Some(key(String::from("ORDERS")).into_iter().collect()))
        .update_expression("SET #next = :next")
        .expression_attribute_names("#next", "next")
        .expression_attribute_values(":next", AttributeValue::N((next + 1).to_string()))
        .build()
        .expect("an update with key, table and expression");
    let write = client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().update(order).build())
        .transact_items(TransactWriteItem::builder().update(counter).build());
    let sent = if fenced { write.fenced_by(lease).send().await } else { write.send().await };
    match sent {
        Ok(_) => ctx.complete(op, Outcome::Ok, Value::None),
        Err(err) if err.as_service_error().is_some_and(|e| e.is_transaction_canceled_exception()) => {
            ctx.complete(op, Outcome::Fail, Value::Text(String::from("lease lost")))
        }
        Err(_) => ctx.complete(op, Outcome::Info, Value::Text(String::from("no answer"))),
    }
}

/// The rule of the service's data, read from the table the run left: every order dispatched
/// exactly once, with tokens that never go back. `Err` says what broke.
async fn check_orders(client: Client) -> Result<usize, String> {
    let mut orders: BTreeMap<String, (u64, u64, String)> = BTreeMap::new();
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(TABLE)
            .filter_expression("begins_with(pk, :order)")
            .expression_attribute_values(":order", AttributeValue::S(String::from("ORDER#")))
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| format!("the scan failed: {e:?}"))?;
        for item in page.items() {
            let text = |name: &str| item.get(name).and_then(|v| v.as_s().ok().or(v.as_n().ok())).cloned();
            let number = |name: &str| text(name).and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
            let order = text("pk").unwrap_or_default();
            orders.insert(order, (number("dispatches"), number("token"), text("by").unwrap_or_default()));
        }
        start = page.last_evaluated_key().cloned();
        if start.is_none() {
            break;
        }
    }
    let mut highest = (0, String::new());
    for (order, (dispatches, token, by)) in &orders {
        if *dispatches != 1 {
            return Err(format!("{order} was dispatched {dispatches} times (last by {by}, token {token})"));
        }
        if *token < highest.0 {
            return Err(format!(
                "{order} was dispatched with token {token} by {by}, after token {} at {}",
                highest.0, highest.1
            ));
        }
        highest = (*token, order.clone());
    }
    Ok(orders.len())
}

/// Runs `scenario` with the dispatcher in every process: the run, and how many orders it
/// dispatched, or what broke (the simulation's checker first, then the rule of the orders).
fn run_with_dispatcher(mut scenario: Scenario, fenced: bool) -> (dynalease_sim::RunReport, Result<usize, String>) {
    for process in &mut scenario.processes {
        process.custom.push(Arc::new(Dispatcher { fenced }));
    }
    let (report, orders) = World::new(scenario).run_then(check_orders);
    if !report.violations().is_empty() {
        let broke = report.failure_report();
        return (report, Err(broke));
    }
    (report, orders)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let fenced = !args.iter().any(|a| a == "--unfenced");
    if args.first().map(String::as_str) == Some("replay") {
        let Some(path) = args.get(1) else {
            eprintln!("usage: proptest_workload replay FILE [--unfenced]");
            std::process::exit(2);
        };
        replay(path, fenced);
        return;
    }
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| String::from("dispatch-failure.toml"));
    // Short runs, as a property test wants: four simulated minutes each.
    let config = Config { duration_ms: 240_000, ..Config::default() };
    let runner_config =
        RunnerConfig { cases: 64, max_shrink_iters: 256, failure_persistence: None, ..RunnerConfig::default() };
    // A fixed seed for the generator, so that the example finds the same case every time.
    let mut runner = TestRunner::new_with_rng(runner_config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let outcome = runner.run(&scenario::strategy(config), |scenario| {
        run_with_dispatcher(scenario, fenced).1.map(|_| ()).map_err(TestCaseError::fail)
    });
    match outcome {
        Ok(()) => println!(
            "64 generated scenarios, the dispatcher in every process: every order dispatched once, tokens never back"
        ),
        Err(TestError::Fail(why, minimal)) => {
            println!("the rule broke; proptest shrank the scenario to:\n{}", minimal.describe());
            println!("what broke: {why}");
            let comment = format!(
                "A scenario in which the order dispatcher{} breaks its rule:\n{why}\n\
                 Replay it with the dispatcher in every process:\n  \
                 cargo run --release -p dynalease-sim --example proptest_workload -- replay {out}{}",
                if fenced { "" } else { " without fenced_by" },
                if fenced { "" } else { " --unfenced" }
            );
            match std::fs::write(&out, minimal.to_toml(&comment)) {
                Ok(()) => println!(
                    "wrote {out}; replay it:\n  cargo run --release -p dynalease-sim --example proptest_workload -- replay {out}{}",
                    if fenced { "" } else { " --unfenced" }
                ),
                Err(err) => eprintln!("{out}: {err}"),
            }
            std::process::exit(1);
        }
        Err(TestError::Abort(why)) => {
            eprintln!("proptest stopped: {why}");
            std::process::exit(2);
        }
    }
}

/// Reads a scenario file, puts the dispatcher back into every process, runs it and checks.
fn replay(path: &str, fenced: bool) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|err| {
        eprintln!("{path}: {err}");
        std::process::exit(2)
    });
    let scenario = Scenario::from_toml(&text).unwrap_or_else(|err| {
        eprintln!("{path}: {err}");
        std::process::exit(2)
    });
    match run_with_dispatcher(scenario, fenced) {
        (report, Ok(orders)) => {
            println!("{orders} orders, each dispatched once, tokens never back");
            print!("{}", report.summary());
        }
        (report, Err(broke)) => {
            println!("{}", report.timeline());
            print!("{}", report.summary());
            println!("BROKEN: {broke}");
            std::process::exit(1);
        }
    }
}
