//! The world runs a service of the user's: its tables, its operations with unknown completions,
//! faults timed by its own requests on its own items, the final state read past the network,
//! the built-in checkers, and sweeps split in parts that merge into one.

use std::collections::BTreeMap;
use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use dynalease_sim::history::Outcome;
use dynalease_sim::nemesis::{Moment, Reaction, Trigger};
use dynalease_sim::sweep::{Partition, SweepOptions, SweepReport, sweep_with};
use dynalease_sim::{
    Config, Ctx, Invariant, Run, Scenario, Service, Setup, SetupError, SetupFuture, SimRng, Verdict, Workload, World,
    exactly_once,
};

/// Appends numbered entries to a log item, each once: `append(n)` adds `n` to the list of the
/// item `log`, with a condition that it is not there yet (unless `unguarded`).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct Appender {
    unguarded: bool,
}

/// The one kind of workload (an enum: a scenario file writes it as its name).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
enum Writer {
    Writer,
}

impl Service for Appender {
    type Op = u32;
    type Ret = ();
    type Kind = Writer;
    const NAME: &'static str = "appender";

    fn setup(&self, setup: Setup) -> SetupFuture {
        Box::pin(async move {
            let attribute = AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .map_err(|e| SetupError(e.to_string()))?;
            let key = KeySchemaElement::builder()
                .attribute_name("pk")
                .key_type(KeyType::Hash)
                .build()
                .map_err(|e| SetupError(e.to_string()))?;
            let client = setup.client();
            client
                .create_table()
                .table_name("Log")
                .attribute_definitions(attribute)
                .key_schema(key)
                .billing_mode(BillingMode::PayPerRequest)
                .send()
                .await?;
            // Seed data: the log exists, empty.
            client
                .put_item()
                .table_name("Log")
                .item("pk", AttributeValue::S(String::from("log")))
                .item("entries", AttributeValue::L(Vec::new()))
                .send()
                .await?;
            Ok(())
        })
    }

    fn tables(&self) -> Vec<String> {
        vec![String::from("Log")]
    }

    fn assign(&self, _: &mut SimRng, processes: u16) -> Vec<Vec<Writer>> {
        (0..processes).map(|_| vec![Writer::Writer]).collect()
    }

    fn run(&self, _: &Writer, ctx: Ctx<u32, ()>) -> Workload {
        let unguarded = self.unguarded;
        Box::pin(async move {
            let mut rng = ctx.rng();
            let me = u32::from(ctx.process().id) * 1_000_000 + u32::from(ctx.process().incarnation) * 10_000;
            for n in 0..20 {
                ctx.sleep(Duration::from_millis(rng.range(500, 3_000))).await;
                let entry = me + n;
                let client = ctx.client().clone();
                let _ = ctx
                    .call(entry, async move {
                        let value = AttributeValue::L(vec![AttributeValue::N(entry.to_string())]);
                        let mut update = client
                            .update_item()
                            .table_name("Log")
                            .key("pk", AttributeValue::S(String::from("log")))
                            .update_expression("SET entries = list_append(entries, :e)")
                            .expression_attribute_values(":e", value);
                        if !unguarded {
                            update = update
                                .condition_expression("NOT contains(#m, :n)")
                                .update_expression("SET entries = list_append(entries, :e) ADD #m :ns")
                                .expression_attribute_names("#m", "members")
                                .expression_attribute_values(":n", AttributeValue::N(entry.to_string()))
                                .expression_attribute_values(":ns", AttributeValue::Ns(vec![entry.to_string()]));
                        }
                        update.send().await?;
                        Ok::<(), aws_sdk_dynamodb::Error>(())
                    })
                    .await;
            }
        })
    }

    fn check(&self, run: &Run<'_, Writer>) -> Verdict {
        let mut seen: BTreeMap<String, u64> = BTreeMap::new();
        for item in run.tables().items("Log") {
            for entry in item.get("entries").and_then(|l| l.as_l().ok()).into_iter().flatten() {
                if let Ok(n) = entry.as_n() {
                    *seen.entry(n.clone()).or_default() += 1;
                }
            }
        }
        Verdict::from(exactly_once::check::<u32, ()>(run.history(), &seen, |n| Some(n.to_string())))
    }

    fn invariants(&self) -> Vec<Invariant> {
        vec![exactly_once::invariant()]
    }
}

fn short() -> Config {
    Config { processes: 3, duration_ms: 120_000, ..Config::default() }
}

/// The scenario of `seed` with no fault but `triggers`.
fn calm(seed: u64, service: Appender, triggers: Vec<Trigger>) -> Scenario<Appender> {
    let config = Config { faults: dynalease_sim::FaultBounds::none(), ..short() };
    let mut scenario = Scenario::from_seed(seed, &config, &service);
    scenario.triggers = triggers;
    scenario
}

fn lose_the_answer_of_the_first_write() -> Trigger {
    Trigger {
        after_ms: 0,
        process: Some(0),
        item: Some(String::from("Log[log]")),
        label: None,
        moment: Moment::WriteApplied,
        reaction: Reaction::LoseAnswer,
    }
}

#[test]
fn a_lost_answer_is_an_unknown_completion_and_the_write_took_effect() {
    let report = World::new(calm(1, Appender::default(), vec![lose_the_answer_of_the_first_write()])).run();
    assert!(report.passed(), "{}", report.failure_report());
    let timeline = report.timeline();
    assert!(timeline.contains("trigger: p0.0 had its write applied to Log[log]: LoseAnswer"), "{timeline}");
    // The SDK retried the write, whose condition then failed on what the first attempt wrote:
    // the operation is no failure, since it took effect; nobody knows from its answers.
    let ops = report.history().operations::<u32, ()>();
    let first = ops.iter().find(|o| o.process.id == 0).expect("p0 wrote");
    assert_eq!(first.outcome, Outcome::Info, "{timeline}");
    let log = &report.tables().items("Log")[0];
    let entries = log.get("entries").and_then(|l| l.as_l().ok()).expect("the log");
    assert!(entries.iter().any(|e| e.as_n().ok() == Some(&first.call.to_string())), "it was applied: {log:?}");
}

#[test]
fn a_write_applied_twice_breaks_exactly_once_and_names_its_operation() {
    // One client in three does not retry: the first seed whose p0 does applies it twice.
    let report = (1..10)
        .map(|seed| {
            World::new(calm(seed, Appender { unguarded: true }, vec![lose_the_answer_of_the_first_write()])).run()
        })
        .find(|report| !report.violations().is_empty())
        .expect("a client that retries a write whose answer was lost");
    let violation = &report.violations()[0];
    assert_eq!(violation.invariant.name(), "exactly-once");
    assert!(violation.message.contains("is in the final state 2 times"), "{}", violation.message);
    let text = report.failure_report();
    assert!(text.contains("invoke #"), "the operation is named with its entries: {text}");
}

#[test]
fn the_same_scenario_runs_to_the_same_digest() {
    let scenario = Scenario::from_seed(9, &short(), &Appender::default());
    assert_eq!(World::new(scenario.clone()).run().digest(), World::new(scenario).run().digest());
}

#[test]
fn a_scenario_file_of_a_service_names_it_and_its_options_and_replays() {
    let scenario = Scenario::from_seed(4, &short(), &Appender { unguarded: true });
    let text = scenario.to_toml("an appender");
    assert!(text.contains("service = \"appender\""), "{text}");
    assert!(text.contains("[options]\nunguarded = true"), "{text}");
    let again = Scenario::<Appender>::from_toml(&text).expect("the file reads back");
    assert_eq!(World::new(again).run().digest(), World::new(scenario).run().digest());
}

#[test]
fn the_parts_of_a_sweep_add_up_to_the_whole() {
    let config = short();
    let whole = sweep_with(&config, &Appender::default(), 0, 6, SweepOptions::default(), |_| {});
    let parts: Vec<SweepReport> = (1..=3)
        .map(|part| {
            let options = SweepOptions { partition: Some(Partition { part, count: 3 }), ..SweepOptions::default() };
            sweep_with(&config, &Appender::default(), 0, 6, options, |_| {})
        })
        .collect();
    assert!(parts.iter().all(|p| p.seeds == 2), "{parts:?}");
    let json: Vec<SweepReport> = parts
        .iter()
        .map(|p| SweepReport::from_json(&p.to_json(&config, Vec::new(), None)).expect("a part reads back"))
        .collect();
    let merged = SweepReport::merge(&json).expect("the parts merge");
    assert_eq!((merged.seeds, merged.requests, &merged.counts), (whole.seeds, whole.requests, &whole.counts));
    assert!(SweepReport::merge(&[json[0].clone(), json[0].clone()]).is_err(), "a part given twice");
    assert!("4/3".parse::<Partition>().is_err() && "0/2".parse::<Partition>().is_err());
}

#[test]
fn a_failing_check_in_a_test_replays_as_the_test_on_its_scenario_file() {
    let out = std::env::temp_dir().join(format!("dynalease-sim-harness-{}", std::process::id()));
    let failure = dynalease_sim::harness::check(Appender { unguarded: true })
        .config(short())
        .seeds(30)
        .jobs(1)
        .shrink_runs(0)
        .out_dir(out.clone())
        .outcome()
        .expect_err("an unguarded appender whose client retries a lost answer applies it twice");
    let message = failure.message();
    assert!(message.contains("broke `exactly-once`"), "{message}");
    let replays: Vec<&str> = message.lines().filter(|l| l.trim_start().starts_with("replay: ")).collect();
    assert!(!replays.is_empty(), "{message}");
    assert!(replays.iter().all(|l| l.contains("DYNALEASE_SIM_SCENARIO=")), "every replay is the test's: {message}");
    assert!(!message.contains("shrink: "), "no command of another program: {message}");
    let _ = std::fs::remove_dir_all(out);
}
