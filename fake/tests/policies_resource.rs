//! Resource policies through the SDK: PutResourcePolicy, GetResourcePolicy, DeleteResourcePolicy
//! and CreateTable's `ResourcePolicy`, kept and revisioned as DynamoDB does, with its errors.

mod support;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType, StreamSpecification,
    StreamViewType,
};
use dynalease_fake::{ControlledClock, FakeDynamoDb, Snapshot};

const START_MILLIS: u64 = 1_800_000_000_000;
const ARN: &str = "arn:aws:dynamodb:us-east-1:000000000000:table/Shop";

fn fake_at_start() -> FakeDynamoDb {
    let start = SystemTime::UNIX_EPOCH + Duration::from_millis(START_MILLIS);
    let fake = FakeDynamoDb::builder().clock(Arc::new(ControlledClock::frozen_at(start))).build();
    fake.create_table("Shop", "pk", None);
    fake
}

fn policy(action: &str) -> String {
    serde_json::json!({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"AWS": "111122223333"}, "Action": [action], "Resource": "*"}]
    })
    .to_string()
}

async fn put(client: &Client, document: &str, expected: Option<&str>) -> Result<String, (String, String)> {
    client
        .put_resource_policy()
        .resource_arn(ARN)
        .policy(document)
        .set_expected_revision_id(expected.map(str::to_owned))
        .send()
        .await
        .map(|out| out.revision_id().unwrap().to_owned())
        .map_err(|error| {
            let error = error.into_service_error();
            (error.code().unwrap_or_default().to_owned(), error.message().unwrap_or_default().to_owned())
        })
}

#[tokio::test(start_paused = true)]
async fn a_policy_is_kept_with_a_revision_that_changes_only_with_the_document() {
    let fake = fake_at_start();
    let client = fake.client();
    let first = put(&client, &policy("dynamodb:*"), None).await.unwrap();
    assert_eq!(first, START_MILLIS.to_string(), "a revision id is the time it was put");
    assert_eq!(put(&client, &policy("dynamodb:*"), None).await.unwrap(), first, "the same policy again");
    let second = put(&client, &policy("dynamodb:PutItem"), None).await.unwrap();
    assert!(second > first, "{second} after {first}");
    let got = client.get_resource_policy().resource_arn(ARN).send().await.unwrap();
    assert_eq!((got.policy(), got.revision_id()), (Some(policy("dynamodb:PutItem").as_str()), Some(second.as_str())));
    let confirmed = client
        .put_resource_policy()
        .resource_arn(ARN)
        .policy(policy("dynamodb:Query"))
        .confirm_remove_self_resource_access(true)
        .send()
        .await
        .unwrap();
    assert!(confirmed.revision_id().unwrap() > second.as_str(), "accepted, and not enforced");
}

#[tokio::test(start_paused = true)]
async fn an_expected_revision_must_be_the_current_one_or_no_policy_at_all() {
    let fake = fake_at_start();
    let client = fake.client();
    let first = put(&client, &policy("dynamodb:*"), Some("NO_POLICY")).await.unwrap();
    fake.advance_clock(Duration::from_secs(1)).unwrap();
    let second = put(&client, &policy("dynamodb:GetItem"), Some(&first)).await.unwrap();
    let (code, message) = put(&client, &policy("dynamodb:Query"), Some(&first)).await.unwrap_err();
    assert_eq!(code, "PolicyNotFoundException");
    assert_eq!(
        message,
        format!(
            "Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id {first}, but the policy associated to target table Shop has revision id {second}."
        )
    );
    let (code, message) = put(&client, &policy("dynamodb:Query"), Some("NO_POLICY")).await.unwrap_err();
    assert_eq!(code, "PolicyNotFoundException");
    assert_eq!(
        message,
        format!(
            "Resource-based policy not found for the provided ResourceArn: Requested policy update expecting none to be present for table Shop, but a policy exists with revision id {second}."
        )
    );
    let current = client.get_resource_policy().resource_arn(ARN).send().await.unwrap();
    assert_eq!(current.revision_id(), Some(second.as_str()), "a refused put changes nothing");
}

#[tokio::test(start_paused = true)]
async fn deleting_a_policy_checks_the_revision_and_deleting_none_is_no_error() {
    let fake = fake_at_start();
    let client = fake.client();
    let error = client.get_resource_policy().resource_arn(ARN).send().await.unwrap_err().into_service_error();
    assert!(error.is_policy_not_found_exception());
    assert_eq!(
        error.message(),
        Some(format!("Resource-based policy not found for the provided ResourceArn: {ARN}").as_str())
    );
    client.delete_resource_policy().resource_arn(ARN).send().await.unwrap();

    let revision = put(&client, &policy("dynamodb:*"), None).await.unwrap();
    let error = client.delete_resource_policy().resource_arn(ARN).expected_revision_id("unknown").send().await;
    let error = error.unwrap_err().into_service_error();
    assert_eq!(
        error.message(),
        Some(
            format!(
                "Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id unknown, but the policy associated to target table Shop has revision id {revision}."
            )
            .as_str()
        )
    );
    let deleted =
        client.delete_resource_policy().resource_arn(ARN).expected_revision_id(&revision).send().await.unwrap();
    assert_eq!(deleted.revision_id(), Some(revision.as_str()));
    let error = client.get_resource_policy().resource_arn(ARN).send().await.unwrap_err();
    assert!(error.into_service_error().is_policy_not_found_exception());
}

#[tokio::test(start_paused = true)]
async fn a_policy_of_a_table_the_fake_does_not_hold_is_not_found() {
    let fake = fake_at_start();
    let client = fake.client();
    let unknown = format!("{ARN}_");
    let error = client.put_resource_policy().resource_arn(&unknown).policy(policy("dynamodb:*")).send().await;
    let error = error.unwrap_err().into_service_error();
    assert!(error.is_resource_not_found_exception());
    assert_eq!(error.message(), Some("Requested resource not found: Table: Shop_ not found"));
    let error = client.get_resource_policy().resource_arn(&unknown).send().await.unwrap_err().into_service_error();
    assert_eq!(error.message(), Some("Requested resource not found: Table: Shop_ not found"));
    let error = client.delete_resource_policy().resource_arn(&unknown).send().await.unwrap_err().into_service_error();
    assert!(error.is_resource_not_found_exception());
}

#[tokio::test(start_paused = true)]
async fn a_document_that_is_not_json_too_large_or_without_statements_is_refused_and_nothing_changes() {
    let fake = fake_at_start();
    let client = fake.client();
    let large = format!(r#"{{"Statement": [{{"Effect": "Allow", "Sid": "{}"}}]}}"#, "x".repeat(20 * 1024));
    for (document, reason) in [
        ("{not json", "not valid JSON"),
        (r#"{"Version": "2012-10-17", "Statement": []}"#, "at least one Statement"),
        (r#"{"Version": "2012-10-17"}"#, "at least one Statement"),
        (large.as_str(), "20 KB"),
    ] {
        let (code, message) = put(&client, document, None).await.unwrap_err();
        assert_eq!(code, "ValidationException");
        assert!(
            message.starts_with("One or more parameter values were invalid: Invalid policy document: "),
            "{message}"
        );
        assert!(message.contains(reason), "{message}");
    }
    assert!(client.get_resource_policy().resource_arn(ARN).send().await.is_err());
}

#[tokio::test(start_paused = true)]
async fn create_table_attaches_its_policy_and_a_stream_takes_one_of_its_own() {
    let fake = fake_at_start();
    let client = fake.client();
    let create = |document: String| {
        client
            .create_table()
            .table_name("Orders")
            .attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name("id")
                    .attribute_type(ScalarAttributeType::S)
                    .build()
                    .unwrap(),
            )
            .key_schema(KeySchemaElement::builder().attribute_name("id").key_type(KeyType::Hash).build().unwrap())
            .billing_mode(BillingMode::PayPerRequest)
            .stream_specification(
                StreamSpecification::builder()
                    .stream_enabled(true)
                    .stream_view_type(StreamViewType::KeysOnly)
                    .build()
                    .unwrap(),
            )
            .resource_policy(document)
    };
    let error = create("[]".into()).send().await.unwrap_err().into_service_error();
    assert_eq!(error.code(), Some("ValidationException"));
    assert!(client.list_tables().send().await.unwrap().table_names().iter().all(|name| name != "Orders"));

    let table = create(policy("dynamodb:GetItem")).send().await.unwrap().table_description.unwrap();
    let got = client.get_resource_policy().resource_arn(table.table_arn().unwrap()).send().await.unwrap();
    assert_eq!(got.policy(), Some(policy("dynamodb:GetItem").as_str()));
    let stream = table.latest_stream_arn().unwrap();
    let error = client.get_resource_policy().resource_arn(stream).send().await.unwrap_err();
    assert!(error.into_service_error().is_policy_not_found_exception());
    client.put_resource_policy().resource_arn(stream).policy(policy("dynamodb:GetRecords")).send().await.unwrap();
    let got = client.get_resource_policy().resource_arn(stream).send().await.unwrap();
    assert_eq!(got.policy(), Some(policy("dynamodb:GetRecords").as_str()));

    let document = fake.snapshot().to_json();
    let copy = FakeDynamoDb::builder().snapshot(Snapshot::from_json(&document).unwrap()).build();
    let again = copy.client().get_resource_policy().resource_arn(stream).send().await.unwrap();
    assert_eq!(again.revision_id(), got.revision_id(), "a snapshot keeps policies and their revisions");
}
