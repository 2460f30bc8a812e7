//! Putting a workload of your own into the simulated world.
//!
//! A service keeps a counter in DynamoDB, and only the process that leads the lock "counter"
//! may bump it. The workload below does that with the library directly (`run_as_leader`, and
//! `fenced_by` on its writes), and records what it does in the history through the `ProcessCtx`,
//! so the checker holds it to the same invariants as the built-in workloads: its fenced writes
//! must carry the highest token DynamoDB granted, crashes and pauses included.
//!
//! ```sh
//! cargo run --release -p dynalease-sim --example custom_workload
//! ```

use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, Update};
use dynalease::TransactWriteExt;
use dynalease_sim::history::{Call, Outcome, Value};
use dynalease_sim::net::OP_HEADER;
use dynalease_sim::{Config, ProcessCtx, Scenario, Workload, WorkloadFuture, World};
use tokio_util::sync::CancellationToken;

/// Leads the lock "counter" and, while it leads, adds one to the counter every 5 s.
#[derive(Debug)]
struct CounterBumper;

impl Workload for CounterBumper {
    fn name(&self) -> String {
        String::from("counter-bumper")
    }

    fn run(&self, ctx: ProcessCtx) -> WorkloadFuture {
        Box::pin(async move {
            let lock = ctx.lock_id("counter");
            loop {
                // Record each contention as an acquire: the checker pairs it with the grant.
                let acquire = ctx.invoke(Call::Acquire { lock });
                let term = ctx.clone();
                let led = ctx
                    .lock_table()
                    .run_as_leader("counter", ctx.lease(), CancellationToken::new(), move |lease, stop| {
                        let ctx = term.clone();
                        async move {
                            ctx.complete(acquire, Outcome::Ok, Value::Token(lease.fencing_token()));
                            // From now until the lease ends, the process believes it leads.
                            let held = ctx.hold(lease.clone());
                            while !stop.is_cancelled() {
                                tokio::select! {
                                    biased;
                                    () = stop.cancelled() => break,
                                    () = ctx.sleep(Duration::from_secs(5)) => {}
                                }
                                bump(&ctx, &lease, held.token()).await;
                            }
                            Ok::<(), std::convert::Infallible>(())
                        }
                    })
                    .await;
                // The election ends only on an error that contending again does not fix, such
                // as the table answering ResourceNotFound: wait and contend again.
                if let Err(err) = led {
                    ctx.complete(acquire, Outcome::Fail, Value::Text(err.to_string()));
                }
                ctx.sleep(ctx.lease() / 3).await;
            }
        })
    }
}

/// Adds one to the counter, in a transaction that commits only while `lease` holds the lock.
/// The operation is recorded as a fenced write, and the header `OP_HEADER` tells the world which
/// operation DynamoDB committed.
async fn bump(ctx: &ProcessCtx, lease: &dynalease::Lease, token: u64) {
    let op = ctx.invoke(Call::FencedWrite { lock: ctx.lock_id("counter"), token });
    let update = Update::builder()
        .table_name(ctx.table_name())
        .key("pk", AttributeValue::S(String::from("COUNTER")))
        .key("sk", AttributeValue::S(String::from("COUNTER")))
        .update_expression("ADD #n :one")
        .expression_attribute_names("#n", "n")
        .expression_attribute_values(":one", AttributeValue::N(String::from("1")))
        .build()
        .expect("an update with key, table and expression");
    let sent = ctx
        .client()
        .transact_write_items()
        .transact_items(aws_sdk_dynamodb::types::TransactWriteItem::builder().update(update).build())
        .fenced_by(lease)
        .customize()
        .mutate_request(move |request| {
            request.headers_mut().insert(OP_HEADER, op.0.to_string());
        })
        .send()
        .await;
    match sent {
        Ok(_) => ctx.complete(op, Outcome::Ok, Value::None),
        // A cancelled transaction did not happen; anything else may have (a lost answer).
        Err(err) if err.as_service_error().is_some_and(|e| e.is_transaction_canceled_exception()) => {
            ctx.complete(op, Outcome::Fail, Value::Text(String::from("lease lost")))
        }
        Err(_) => ctx.complete(op, Outcome::Info, Value::Text(String::from("no answer"))),
    }
}

fn main() {
    // The default scenario, with the counter bumper in every process beside the built-in roles.
    let config = Config::default();
    let mut failed = 0;
    for seed in 0..20 {
        let mut scenario = Scenario::from_seed(seed, &config);
        for process in &mut scenario.processes {
            process.custom.push(Arc::new(CounterBumper));
        }
        let run = World::new(scenario).run();
        if !run.violations().is_empty() {
            failed += 1;
            print!("{}", run.failure_report());
        }
        if seed == 0 {
            print!("{}", run.summary());
        }
    }
    println!("20 seeds with the counter bumper, {failed} with violations");
}
