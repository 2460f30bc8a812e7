//! With paused time, seeded ids and a seeded fake, a workload of contending processes is a
//! pure function of its seeds: two runs send the same requests at the same instants.

mod support;

use std::sync::Arc;
use std::time::Duration;

use dynalease::{LockTable, LockTableOptions, SeededIds};
use dynalease_fake::{FakeDynamoDb, Fault, FaultRule};
use support::{LEASE, advance, table};

/// Three processes contend for two locks for five minutes; one of them crashes while holding.
/// Returns the request log, as (client, operation, error, milliseconds since the start), and
/// the final state of both locks.
async fn run(seed: u64) -> (Vec<(String, String, String, u128)>, String) {
    let fake = FakeDynamoDb::builder().seed(seed).build();
    fake.create_table("Shop", "pk", Some("sk"));
    let start = fake.now();
    let process = |n: u64| {
        LockTable::new(
            table(fake.client_named(&format!("p{n}"))),
            LockTableOptions::default().id_source(Arc::new(SeededIds::new(seed ^ n))).holder_label(format!("p{n}")),
        )
        .unwrap()
    };
    let (p1, p2, p3) = (process(1), process(2), process(3));

    let crashed = p1.acquire("report", LEASE).await.unwrap();
    // p1 is cut off: its next renewal fails, and it never sends a release.
    fake.inject(FaultRule::new(Fault::ResourceNotFound).client("p1"));
    std::mem::forget(crashed);
    let leader = tokio::spawn(async move {
        let lease = p2.acquire("report", LEASE).await.unwrap();
        advance(Duration::from_secs(60)).await;
        lease.release().await.unwrap();
    });
    let tryer = tokio::spawn(async move {
        let mut tokens = Vec::new();
        for _ in 0..20 {
            if let Some(lease) = p3.try_acquire("cache", LEASE).await.unwrap() {
                tokens.push(lease.fencing_token());
                advance(Duration::from_secs(4)).await;
                lease.release().await.unwrap();
            }
            advance(Duration::from_secs(7)).await;
        }
        tokens
    });
    advance(Duration::from_secs(300)).await;
    leader.await.unwrap();
    let tokens = tryer.await.unwrap();

    let log = fake
        .request_log()
        .iter()
        .map(|r| {
            (
                r.client.clone().unwrap_or_default(),
                r.operation.clone(),
                r.error.clone().unwrap_or_default(),
                r.at.duration_since(start).unwrap().as_millis(),
            )
        })
        .collect();
    let checker = process(9);
    let state =
        format!("{:?} {:?} {tokens:?}", checker.state("report").await.unwrap(), checker.state("cache").await.unwrap());
    (log, state)
}

#[tokio::test(start_paused = true)]
async fn paused_time_is_deterministic() {
    let guard = Duration::from_secs(3600);
    let first = tokio::time::timeout(guard, run(7)).await.expect("the workload ends");
    let second = tokio::time::timeout(guard, run(7)).await.expect("the workload ends");

    assert!(first.0.len() > 40, "the workload did something: {:?}", first.0);
    assert!(
        first
            .1
            .ends_with("fencing_token: 20 }) [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]"),
        "{}",
        first.1
    );
    assert!(
        first.1.starts_with(
            "Some(LockState { is_held: false, holder_label: None, lease_duration: None, fencing_token: 2 })"
        ),
        "{}",
        first.1
    );
    assert_eq!(first, second);
}
