//! A service's mistakes are reported as what they are, naming the service and the seed: a table
//! definition DynamoDB refuses, a checker that panics, a model that is not deterministic, a
//! scenario file of another service. Never as a violation of the service, never as a pass.

use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType};
use dynalease_sim::linearizable::{Budget, Model, check_history};
use dynalease_sim::{
    Config, Ctx, Invariant, Run, RunError, Scenario, Service, Setup, SetupError, SetupFuture, SimRng, Verdict,
    Workload, World,
};

/// What goes wrong with the service.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
enum Mistake {
    #[default]
    None,
    /// A key schema with a hash key the attribute definitions do not have.
    BadTable,
    /// The checker panics.
    PanickingChecker,
    /// The model of the linearizability check answers from a counter it keeps.
    DrunkModel,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct Sloppy {
    mistake: Mistake,
}

/// The one kind of workload (an enum: a scenario file writes it as its name).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
enum Writer {
    Writer,
}

impl Service for Sloppy {
    type Op = u32;
    type Ret = u32;
    type Kind = Writer;
    const NAME: &'static str = "sloppy";

    fn setup(&self, setup: Setup) -> SetupFuture {
        let mistake = self.mistake;
        Box::pin(async move {
            let declared = if mistake == Mistake::BadTable { "other" } else { "pk" };
            let attribute = AttributeDefinition::builder()
                .attribute_name(declared)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .map_err(|e| SetupError(e.to_string()))?;
            let key = KeySchemaElement::builder()
                .attribute_name("pk")
                .key_type(KeyType::Hash)
                .build()
                .map_err(|e| SetupError(e.to_string()))?;
            setup
                .client()
                .create_table()
                .table_name("Things")
                .attribute_definitions(attribute)
                .key_schema(key)
                .billing_mode(BillingMode::PayPerRequest)
                .send()
                .await?;
            Ok(())
        })
    }

    fn tables(&self) -> Vec<String> {
        vec![String::from("Things")]
    }

    fn assign(&self, _: &mut SimRng, processes: u16) -> Vec<Vec<Writer>> {
        (0..processes).map(|_| vec![Writer::Writer]).collect()
    }

    fn run(&self, _: &Writer, ctx: Ctx<u32, u32>) -> Workload {
        Box::pin(async move {
            for n in 0..5u32 {
                ctx.sleep(Duration::from_secs(3)).await;
                let client = ctx.client().clone();
                let _ = ctx
                    .call(n, async move {
                        let item = aws_sdk_dynamodb::types::AttributeValue::S(format!("{n}"));
                        client.put_item().table_name("Things").item("pk", item).send().await?;
                        Ok::<u32, aws_sdk_dynamodb::Error>(n)
                    })
                    .await;
            }
        })
    }

    fn check(&self, run: &Run<'_, Writer>) -> Verdict {
        let mut verdict = Verdict::default();
        match self.mistake {
            Mistake::PanickingChecker => panic!("the checker's index is out of bounds"),
            Mistake::DrunkModel => check_history(&Drunk::default(), run.history(), Budget::default(), &mut verdict),
            _ => {}
        }
        verdict
    }

    fn invariants(&self) -> Vec<Invariant> {
        vec![Invariant::safety("echo", "an operation returned another number than it was given")]
    }
}

/// A model that answers from a counter of its own: the same step twice gives two answers.
#[derive(Default)]
struct Drunk {
    calls: std::cell::Cell<u32>,
}

impl Model for Drunk {
    type State = u32;
    type Op = u32;
    type Ret = u32;

    fn init(&self) -> u32 {
        0
    }

    fn step(&self, state: &u32, op: &u32) -> (u32, u32) {
        self.calls.set(self.calls.get() + 1);
        (*state, *op + self.calls.get() % 2)
    }
}

fn short() -> Config {
    Config { processes: 2, duration_ms: 60_000, ..Config::default() }
}

fn run(mistake: Mistake) -> dynalease_sim::RunReport<Sloppy> {
    World::new(Scenario::from_seed(3, &short(), &Sloppy { mistake })).run()
}

#[test]
fn a_table_dynamodb_refuses_is_an_error_of_the_setup_naming_the_service_and_seed() {
    let report = run(Mistake::BadTable);
    assert!(
        matches!(report.error(), Some(RunError::Setup(why)) if why.contains("ValidationException")),
        "{:?}",
        report.error()
    );
    assert!(!report.passed(), "an error is no pass");
    assert!(report.violations().is_empty(), "an error is no violation");
    let text = report.failure_report();
    assert!(text.starts_with("ERROR: service sloppy at seed 3: the setup failed: ValidationException"), "{text}");
}

#[test]
fn a_checker_that_panics_is_an_error_of_the_checker_not_a_violation() {
    let report = run(Mistake::PanickingChecker);
    assert!(
        matches!(report.error(), Some(RunError::CheckerPanicked(why)) if why.contains("out of bounds")),
        "{:?}",
        report.error()
    );
    assert!(report.violations().is_empty() && !report.passed());
    assert!(report.summary().contains("echo  not checked"), "{}", report.summary());
}

#[test]
fn a_model_that_is_not_deterministic_is_reported_as_such() {
    let report = run(Mistake::DrunkModel);
    match report.error() {
        Some(RunError::Nondeterministic(why)) => assert!(why.contains("the model's step from 0 by"), "{why}"),
        other => panic!("not reported as not deterministic: {other:?}\n{}", report.summary()),
    }
    assert!(report.violations().is_empty() && !report.passed());
}

#[test]
fn a_good_service_passes_and_its_operations_and_tables_are_there() {
    let report = run(Mistake::None);
    assert!(report.passed(), "{}", report.failure_report());
    let written = report.tables().items("Things").len();
    assert!((1..=5).contains(&written), "{written} items");
    let operations = report.history().operations::<u32, u32>();
    assert!(operations.iter().any(|o| o.ret == Some(&o.call.clone())), "{operations:?}");
    // The world records the requests of a service without a probe, for its timeline.
    assert!(report.timeline().contains("sends r0 PutItem Things["), "{}", report.timeline());
}

#[test]
fn a_scenario_file_of_another_service_is_refused_by_name() {
    let text = Scenario::from_seed(1, &short(), &dynalease_sim::locks::LockService::default()).to_toml("");
    let err = Scenario::<Sloppy>::from_toml(&text).unwrap_err();
    assert_eq!(err.field(), "service");
    assert!(err.message().contains("a scenario of the service `locks`, not of `sloppy`"), "{err}");
}
