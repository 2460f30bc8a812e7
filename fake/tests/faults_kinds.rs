//! One test per fault kind: what the client sees, whether the write happened, what the log shows.

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::AttributeValue;
use dynalease_fake::{FakeDynamoDb, Fault, FaultRule};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// A client that does not retry, so a test sees each injected fault itself.
fn no_retry(fake: &FakeDynamoDb, name: &str) -> Client {
    let client = fake.client_named(name);
    let config = client.config().to_builder().retry_config(RetryConfig::disabled()).build();
    Client::from_conf(config)
}

fn setup() -> FakeDynamoDb {
    let fake = FakeDynamoDb::builder().seed(7).build();
    fake.create_table("Shop", "pk", None);
    fake
}

async fn put(client: &Client, pk: &str) -> Result<(), String> {
    client
        .put_item()
        .table_name("Shop")
        .item("pk", s(pk))
        .send()
        .await
        .map(|_| ())
        .map_err(|e| e.into_service_error().code().unwrap_or("transport").to_owned())
}

async fn exists(fake: &FakeDynamoDb, pk: &str) -> bool {
    fake.client().get_item().table_name("Shop").key("pk", s(pk)).send().await.unwrap().item.is_some()
}

#[tokio::test(start_paused = true)]
async fn throttle_is_provisioned_throughput_exceeded_and_not_applied() {
    let fake = setup();
    fake.inject(FaultRule::new(Fault::Throttle).operation("PutItem").times(1));
    let client = no_retry(&fake, "p1");
    assert_eq!(put(&client, "a").await.unwrap_err(), "ProvisionedThroughputExceededException");
    assert!(!exists(&fake, "a").await);
    assert_eq!(put(&client, "a").await, Ok(()), "the rule retires after one use");
    let log = fake.request_log();
    assert_eq!(log[0].fault.as_deref(), Some("Throttle"));
    assert_eq!(log[0].error.as_deref(), Some("ProvisionedThroughputExceededException"));
}

#[tokio::test(start_paused = true)]
async fn throttling_exception_is_retried_by_the_sdk() {
    let fake = setup();
    fake.inject(FaultRule::new(Fault::ThrottlingException).times(2));
    assert_eq!(put(&fake.client(), "a").await, Ok(()));
    let codes: Vec<_> = fake.request_log().iter().map(|r| r.error.clone()).collect();
    assert_eq!(codes, [Some("ThrottlingException".to_owned()), Some("ThrottlingException".to_owned()), None]);
}

#[tokio::test(start_paused = true)]
async fn internal_server_error_is_a_500_and_not_applied() {
    let fake = setup();
    fake.inject(FaultRule::new(Fault::InternalServerError).times(1));
    let client = no_retry(&fake, "p1");
    assert_eq!(put(&client, "a").await.unwrap_err(), "InternalServerError");
    assert!(!exists(&fake, "a").await);
}

#[tokio::test(start_paused = true)]
async fn latency_delays_the_answer_on_the_virtual_clock() {
    let fake = setup();
    fake.inject(FaultRule::new(Fault::Latency(Duration::from_secs(3))).operation("PutItem").times(1));
    let start = fake.now();
    put(&fake.client(), "a").await.unwrap();
    assert_eq!(fake.now().duration_since(start).unwrap(), Duration::from_secs(3));
    assert_eq!(fake.request_log()[0].fault.as_deref(), Some("Latency"));
}

#[tokio::test(start_paused = true)]
async fn lost_response_applies_the_write_and_the_retry_meets_the_changed_item() {
    let fake = setup();
    fake.inject(FaultRule::new(Fault::LostResponse).operation("PutItem").client("p1").times(1));
    let client = fake.client_named("p1");
    let result = client
        .put_item()
        .table_name("Shop")
        .item("pk", s("a"))
        .condition_expression("attribute_not_exists(pk)")
        .send()
        .await;
    let err = result.unwrap_err().into_service_error();
    assert!(err.is_conditional_check_failed_exception(), "the retry found its own write: {err:?}");
    let log = fake.request_log();
    assert_eq!(log.len(), 2);
    assert_eq!((log[0].fault.as_deref(), log[0].error.as_deref()), (Some("LostResponse"), None));
    assert_eq!(log[1].error.as_deref(), Some("ConditionalCheckFailedException"));
    assert!(exists(&fake, "a").await);
}

#[tokio::test(start_paused = true)]
async fn resource_not_found_answers_as_if_the_table_were_gone() {
    let fake = setup();
    fake.inject(FaultRule::new(Fault::ResourceNotFound).table("Shop").times(1));
    let client = fake.client();
    let err = client.get_item().table_name("Shop").key("pk", s("a")).send().await.unwrap_err().into_service_error();
    assert!(err.is_resource_not_found_exception());
    assert_eq!(put(&client, "a").await, Ok(()));
}

#[tokio::test(start_paused = true)]
async fn rules_target_a_client_and_a_table() {
    let fake = setup();
    fake.create_table("Other", "pk", None);
    fake.inject(FaultRule::new(Fault::Throttle).client("p2").table("Shop"));
    let (p1, p2) = (no_retry(&fake, "p1"), no_retry(&fake, "p2"));
    assert_eq!(put(&p1, "a").await, Ok(()));
    assert!(put(&p2, "b").await.is_err());
    p2.put_item().table_name("Other").item("pk", s("b")).send().await.unwrap();
}

async fn throttled_pattern(seed: u64) -> Vec<bool> {
    let fake = FakeDynamoDb::builder().seed(seed).build();
    fake.create_table("Shop", "pk", None);
    fake.inject(FaultRule::new(Fault::Throttle).probability(0.3));
    let client = no_retry(&fake, "p");
    let mut pattern = Vec::new();
    for i in 0..64 {
        pattern.push(put(&client, &format!("k{i}")).await.is_err());
    }
    pattern
}

#[tokio::test(start_paused = true)]
async fn probabilistic_faults_repeat_for_the_same_seed() {
    let a = throttled_pattern(42).await;
    assert_eq!(a, throttled_pattern(42).await);
    assert_ne!(a, throttled_pattern(43).await);
    let hits = a.iter().filter(|x| **x).count();
    assert!((5..=35).contains(&hits), "about 30% of 64 requests, got {hits}");
}

#[tokio::test(start_paused = true)]
async fn after_lets_the_first_requests_through() {
    let fake = setup();
    fake.inject(FaultRule::new(Fault::Throttle).after(2).times(1));
    let client = no_retry(&fake, "p");
    assert!(put(&client, "a").await.is_ok());
    assert!(put(&client, "b").await.is_ok());
    assert!(put(&client, "c").await.is_err());
    assert!(put(&client, "d").await.is_ok());
}

#[tokio::test(start_paused = true)]
async fn slow_response_applies_the_write_before_the_client_hears_of_it() {
    let fake = setup();
    fake.inject(FaultRule::new(Fault::SlowResponse(Duration::from_secs(5))).operation("PutItem").times(1));
    let client = fake.client();
    let start = fake.now();
    let writer = tokio::spawn(async move { put(&client, "a").await });
    tokio::task::yield_now().await;
    assert!(exists(&fake, "a").await, "the item is there before the answer");
    assert_eq!(fake.request_log()[0].at, start, "applied at once");
    writer.await.unwrap().unwrap();
    assert_eq!(fake.now().duration_since(start).unwrap(), Duration::from_secs(5));
    assert_eq!(fake.request_log()[0].fault.as_deref(), Some("SlowResponse"));
}

#[tokio::test(start_paused = true)]
async fn an_error_fault_answers_any_code_and_is_not_applied() {
    let fake = setup();
    fake.inject(FaultRule::new(Fault::error("AccessDeniedException", "User is not authorized")).times(1));
    let client = fake.client();
    let err = client.put_item().table_name("Shop").item("pk", s("a")).send().await.unwrap_err().into_service_error();
    assert_eq!(err.code(), Some("AccessDeniedException"));
    assert_eq!(err.message(), Some("User is not authorized"));
    assert_eq!(fake.request_log().len(), 1, "an access error is not retried");
    assert!(!exists(&fake, "a").await);
}

#[tokio::test(start_paused = true)]
async fn the_log_records_consistent_reads_and_signatures() {
    let fake = setup();
    let client = fake.client();
    client.get_item().table_name("Shop").key("pk", s("a")).consistent_read(true).send().await.unwrap();
    client.get_item().table_name("Shop").key("pk", s("a")).send().await.unwrap();
    let log = fake.request_log();
    assert_eq!((log[0].consistent_read, log[1].consistent_read), (true, false));
    assert!(!log[0].signed, "the fake's own clients do not sign");
}

#[tokio::test(start_paused = true)]
async fn a_request_log_limit_keeps_only_the_latest_records() {
    let fake = FakeDynamoDb::builder().request_log_limit(2).build();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    for pk in ["a", "b", "c"] {
        put(&client, pk).await.unwrap();
    }
    client.get_item().table_name("Shop").key("pk", s("a")).send().await.unwrap();
    let ops: Vec<_> = fake.request_log().into_iter().map(|r| r.operation).collect();
    assert_eq!(ops, ["PutItem", "GetItem"]);
}
