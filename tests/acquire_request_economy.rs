//! Rule 2: what each step costs in requests, counted in the fake's request log.

mod support;

use std::time::Duration;

use dynalease::{LockTable, LockTableOptions};
use support::{LEASE, fake, locks, requests, table};

fn requests_of(fake: &dynalease_fake::FakeDynamoDb, client: &str) -> Vec<String> {
    fake.request_log().iter().filter(|r| r.client.as_deref() == Some(client)).map(support::describe).collect()
}

#[tokio::test(start_paused = true)]
async fn acquiring_a_free_lock_is_one_request() {
    let fake = fake();
    let locks = locks(&fake);

    let _lease = locks.try_acquire("job", LEASE).await.unwrap().expect("free");

    assert_eq!(requests(&fake), ["UpdateItem"]);
}

#[tokio::test(start_paused = true)]
async fn a_waiting_contender_pays_one_failed_write_then_one_read_per_poll() {
    let fake = fake();
    let holder = locks(&fake);
    let contender = LockTable::new(table(fake.client_named("contender")), LockTableOptions::default()).unwrap();
    let lease = holder.acquire("job", LEASE).await.unwrap();

    let waiting = tokio::spawn(async move { contender.acquire("job", LEASE).await });
    support::advance(Duration::from_secs(95)).await;
    let mut expected = vec!["UpdateItem:ConditionalCheckFailedException".to_owned()];
    expected.extend(std::iter::repeat_n("GetItem".to_owned(), 9));
    assert_eq!(requests_of(&fake, "contender"), expected, "a poll every 10 s");

    lease.release().await.unwrap();
    let taken = waiting.await.unwrap().unwrap();

    expected.extend(["GetItem".to_owned(), "UpdateItem".to_owned()]);
    assert_eq!(requests_of(&fake, "contender"), expected, "free at the next poll");
    assert_eq!(taken.fencing_token(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_renewal_is_one_conditional_update() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();

    fake.clear_request_log();
    assert!(lease.renew().await.unwrap());
    assert_eq!(requests(&fake), ["UpdateItem"]);

    fake.clear_request_log();
    support::advance(LEASE / 3 + Duration::from_secs(1)).await;
    assert_eq!(requests(&fake), ["UpdateItem"], "the heartbeat's renewal");
}

#[tokio::test(start_paused = true)]
async fn a_release_is_one_conditional_update() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();

    fake.clear_request_log();
    lease.release().await.unwrap();

    assert_eq!(requests(&fake), ["UpdateItem"]);
}

#[tokio::test(start_paused = true)]
async fn trying_a_held_lock_again_reads_instead_of_writing() {
    let fake = fake();
    let holder = locks(&fake);
    let other = locks(&fake);
    let _lease = holder.acquire("job", LEASE).await.unwrap();

    fake.clear_request_log();
    for _ in 0..3 {
        assert!(other.try_acquire("job", LEASE).await.unwrap().is_none());
        support::advance(Duration::from_secs(1)).await;
    }

    let tries: Vec<String> = requests(&fake)
        .into_iter()
        .filter(|r| r != "UpdateItem") // the holder's heartbeat, if it ran
        .collect();
    assert_eq!(tries, ["UpdateItem:ConditionalCheckFailedException", "GetItem", "GetItem"]);
}

/// Records, for each request the client sends, its operation and whether it asks for a
/// strongly consistent read.
#[derive(Clone, Debug, Default)]
struct ReadConsistency(std::sync::Arc<std::sync::Mutex<Vec<(String, bool)>>>);

impl aws_sdk_dynamodb::config::Intercept for ReadConsistency {
    fn name(&self) -> &'static str {
        "ReadConsistency"
    }

    fn read_before_transmit(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        let request = context.request();
        let operation = request
            .headers()
            .get("x-amz-target")
            .unwrap_or_default()
            .trim_start_matches("DynamoDB_20120810.")
            .to_owned();
        let body = String::from_utf8_lossy(request.body().bytes().unwrap_or_default()).into_owned();
        let consistent = body.contains("\"ConsistentRead\":true");
        self.0.lock().unwrap().push((operation, consistent));
        Ok(())
    }
}

#[tokio::test(start_paused = true)]
async fn every_poll_is_a_strongly_consistent_read() {
    let fake = fake();
    let holder = locks(&fake);
    let seen = ReadConsistency::default();
    let config = fake.client().config().to_builder().interceptor(seen.clone()).build();
    let contender =
        LockTable::new(table(aws_sdk_dynamodb::Client::from_conf(config)), LockTableOptions::default()).unwrap();
    let _lease = holder.acquire("job", LEASE).await.unwrap();

    let waiting = tokio::spawn(async move { contender.acquire("job", LEASE).await });
    support::advance(Duration::from_secs(35)).await;
    waiting.abort();

    let sent = seen.0.lock().unwrap().clone();
    let reads: Vec<&(String, bool)> = sent.iter().filter(|(op, _)| op == "GetItem").collect();
    assert_eq!(reads.len(), 3);
    assert!(reads.iter().all(|(_, consistent)| *consistent), "{sent:?}");
}
