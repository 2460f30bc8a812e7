//! Time to live and the fake's clock: expired items stay until a sweep, sweeps run on virtual time.

use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, TimeToLiveSpecification, TimeToLiveStatus};
use dynalease_fake::FakeDynamoDb;

const START: u64 = 1_700_000_000;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

async fn setup(interval: Duration) -> (FakeDynamoDb, Client) {
    let fake = FakeDynamoDb::builder()
        .start_time(SystemTime::UNIX_EPOCH + Duration::from_secs(START))
        .ttl_sweep_interval(interval)
        .build();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    client
        .update_time_to_live()
        .table_name("Shop")
        .time_to_live_specification(
            TimeToLiveSpecification::builder().enabled(true).attribute_name("expiresAt").build().unwrap(),
        )
        .send()
        .await
        .unwrap();
    for (pk, at) in [("past", START - 10), ("soon", START + 400), ("later", START + 3600)] {
        client
            .put_item()
            .table_name("Shop")
            .item("pk", s(pk))
            .item("expiresAt", AttributeValue::N(at.to_string()))
            .send()
            .await
            .unwrap();
    }
    (fake, client)
}

async fn exists(client: &Client, pk: &str) -> bool {
    client.get_item().table_name("Shop").key("pk", s(pk)).send().await.unwrap().item.is_some()
}

#[tokio::test(start_paused = true)]
async fn the_wall_clock_is_the_start_time_plus_virtual_time() {
    let (fake, _client) = setup(Duration::ZERO).await;
    tokio::time::advance(Duration::from_secs(90)).await;
    assert_eq!(fake.now(), SystemTime::UNIX_EPOCH + Duration::from_secs(START + 90));
}

#[tokio::test(start_paused = true)]
async fn expired_items_stay_readable_until_a_sweep() {
    let (fake, client) = setup(Duration::ZERO).await;
    assert!(exists(&client, "past").await, "an expired item is readable before the sweep");
    assert_eq!(fake.sweep_ttl(), 1);
    assert!(!exists(&client, "past").await);
    assert!(exists(&client, "soon").await);
    tokio::time::advance(Duration::from_secs(401)).await;
    assert!(exists(&client, "soon").await);
    assert_eq!(fake.sweep_ttl(), 1);
    assert!(!exists(&client, "soon").await);
    assert!(exists(&client, "later").await);
}

#[tokio::test(start_paused = true)]
async fn sweeps_run_by_themselves_on_the_virtual_clock() {
    let (_fake, client) = setup(Duration::from_secs(300)).await;
    assert!(exists(&client, "past").await);
    tokio::time::advance(Duration::from_secs(299)).await;
    assert!(exists(&client, "past").await, "no sweep before the interval");
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(!exists(&client, "past").await);
    assert!(exists(&client, "soon").await);
    tokio::time::advance(Duration::from_secs(300)).await;
    assert!(!exists(&client, "soon").await);
}

#[tokio::test(start_paused = true)]
async fn describe_time_to_live_reports_the_attribute() {
    let (_fake, client) = setup(Duration::ZERO).await;
    let out = client.describe_time_to_live().table_name("Shop").send().await.unwrap();
    let description = out.time_to_live_description().unwrap();
    assert_eq!(description.time_to_live_status(), Some(&TimeToLiveStatus::Enabled));
    assert_eq!(description.attribute_name(), Some("expiresAt"));
    let err = client
        .update_time_to_live()
        .table_name("Shop")
        .time_to_live_specification(
            TimeToLiveSpecification::builder().enabled(true).attribute_name("expiresAt").build().unwrap(),
        )
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(err.meta().message(), Some("TimeToLive is already enabled"));
}

#[tokio::test(start_paused = true)]
async fn time_to_live_operations_name_a_missing_table() {
    let (_fake, client) = setup(Duration::ZERO).await;
    let described = client.describe_time_to_live().table_name("Nowhere").send().await.unwrap_err().into_service_error();
    assert!(described.is_resource_not_found_exception());
    assert_eq!(described.meta().message(), Some("Requested resource not found: Table: Nowhere not found"));
    let spec = TimeToLiveSpecification::builder().enabled(true).attribute_name("at").build().unwrap();
    let updated = client.update_time_to_live().table_name("Nowhere").time_to_live_specification(spec).send().await;
    let updated = updated.unwrap_err().into_service_error();
    assert!(updated.is_resource_not_found_exception());
    assert_eq!(updated.meta().message(), Some("Requested resource not found: Table: Nowhere not found"));
}

#[tokio::test(start_paused = true)]
async fn sdk_retries_sleep_on_virtual_time() {
    let (fake, client) = setup(Duration::ZERO).await;
    fake.inject(dynalease_fake::FaultRule::new(dynalease_fake::Fault::InternalServerError).times(2));
    let before = fake.now();
    assert!(exists(&client, "later").await, "the third attempt succeeds");
    assert!(fake.now() > before, "the SDK backed off on the paused clock");
    let errors: Vec<_> = fake.request_log().into_iter().rev().take(3).map(|r| r.error).collect();
    assert_eq!(errors, [None, Some("InternalServerError".to_owned()), Some("InternalServerError".to_owned())]);
}
