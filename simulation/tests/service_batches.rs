//! DynamoDB may process a batch only in part and answer the rest as `UnprocessedItems`, which
//! the SDK does not send again: a service that ignores them loses writes it believes done. The
//! nemesis's partial batches show it; a service that sends the rest again passes.

use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, WriteRequest};
use dynalease_sim::history::Outcome;
use dynalease_sim::{
    Config, Ctx, Fault, FaultBounds, Invariant, Run, Scenario, ScheduledFault, Service, Setup, SetupFuture, SimRng,
    Verdict, Violation, Workload, World,
};

/// Writes three items at a time with BatchWriteItem.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct Batcher {
    /// Sends what DynamoDB left unprocessed again, as it must.
    resend: bool,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
enum Kind {
    Writer,
}

fn lost() -> Invariant {
    Invariant::safety("batch-write-lost", "a batch acknowledged as written lacks an item")
}

impl Service for Batcher {
    type Op = Vec<String>;
    type Ret = ();
    type Kind = Kind;
    const NAME: &'static str = "batcher";

    fn setup(&self, setup: Setup) -> SetupFuture {
        Box::pin(async move { setup.create_table("Rows", "pk", None).await })
    }

    fn tables(&self) -> Vec<String> {
        vec![String::from("Rows")]
    }

    fn assign(&self, _: &mut SimRng, processes: u16) -> Vec<Vec<Kind>> {
        (0..processes).map(|_| vec![Kind::Writer]).collect()
    }

    fn run(&self, _: &Kind, ctx: Ctx<Vec<String>, ()>) -> Workload {
        let resend = self.resend;
        Box::pin(async move {
            let me = ctx.process();
            for n in 0..10 {
                ctx.sleep(Duration::from_secs(2)).await;
                let keys: Vec<String> = (0..3).map(|i| format!("p{}.{}-{n}-{i}", me.id, me.incarnation)).collect();
                let client = ctx.client().clone();
                let batch = keys.clone();
                let _ = ctx
                    .call(keys, async move {
                        let mut requests: Vec<WriteRequest> = Vec::new();
                        for key in batch {
                            let put = PutRequest::builder().item("pk", AttributeValue::S(key)).build()?;
                            requests.push(WriteRequest::builder().put_request(put).build());
                        }
                        while !requests.is_empty() {
                            let out = client.batch_write_item().request_items("Rows", requests).send().await?;
                            requests = out.unprocessed_items().and_then(|u| u.get("Rows")).cloned().unwrap_or_default();
                            if !resend {
                                break;
                            }
                        }
                        Ok::<(), aws_sdk_dynamodb::Error>(())
                    })
                    .await;
            }
        })
    }

    fn check(&self, run: &Run<'_, Kind>) -> Verdict {
        let rows = run.tables().items("Rows");
        let written = |key: &String| rows.iter().any(|item| item.get("pk").and_then(|v| v.as_s().ok()) == Some(key));
        let mut violations = Vec::new();
        for op in run.operations::<Vec<String>, ()>() {
            if op.outcome != Outcome::Ok {
                continue;
            }
            if let Some(missing) = op.call.iter().find(|key| !written(key)) {
                let message = format!("{} answered ok, and {missing} is not in the table", op.op);
                violations.push(Violation::new(lost(), missing.clone(), message).ops(
                    run.history(),
                    &[op.op],
                    &[],
                    &[],
                ));
            }
        }
        Verdict::from(violations)
    }

    fn invariants(&self) -> Vec<Invariant> {
        vec![lost()]
    }
}

/// Two processes, no fault but batches processed in part for everyone, all run long.
fn partial(resend: bool) -> Scenario<Batcher> {
    let config = Config { processes: 2, duration_ms: 60_000, faults: FaultBounds::none(), ..Config::default() };
    let mut scenario = Scenario::from_seed(3, &config, &Batcher { resend });
    scenario.faults = vec![ScheduledFault {
        at_ms: 0,
        fault: Fault::PartialBatches { process: None, per_million: 1_000_000, for_ms: 60_000 },
    }];
    scenario
}

#[test]
fn a_service_that_ignores_unprocessed_items_loses_writes_to_partial_batches() {
    let report = World::new(partial(false)).run();
    let names: Vec<&str> = report.violations().iter().map(|v| v.invariant.name()).collect();
    assert!(names.contains(&"batch-write-lost"), "{}", report.timeline());
    assert!(report.timeline().contains("batches of everyone processed in part (100%)"), "{}", report.timeline());
}

#[test]
fn a_service_that_sends_unprocessed_items_again_keeps_every_write() {
    let report = World::new(partial(true)).run();
    assert!(report.passed(), "{}", report.failure_report());
    assert!(report.history().operations::<Vec<String>, ()>().iter().any(|op| op.outcome == Outcome::Ok));
}

#[test]
fn partial_batches_round_trip_through_a_scenario_file() {
    let scenario = partial(false);
    let text = scenario.to_toml("partial batches");
    assert!(text.contains("kind = \"partial-batches\""), "{text}");
    let again = Scenario::<Batcher>::from_toml(&text).expect("the file reads back");
    assert_eq!(World::new(again).run().digest(), World::new(scenario).run().digest());
}
