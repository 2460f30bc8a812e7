//! A table's ARN stands for its name in every operation, as DynamoDB takes it (moto's
//! `test_batch_write_using_arn`, verified against AWS); batch answers are keyed by the ARN as
//! given; an ARN of another account or region names no table.

mod support;

use aws_sdk_dynamodb::types::{KeysAndAttributes, TransactWriteItem, Update};
use dynalease_fake::FakeDynamoDb;
use serde_json::json;
use support::{invalid, ok, refused, s, sdk_error};

const ARN: &str = "arn:aws:dynamodb:us-east-1:000000000000:table/Things";

#[tokio::test(start_paused = true)]
async fn every_operation_takes_the_tables_arn_for_its_name() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Things", "pk", None);
    let client = fake.client();
    let described = client.describe_table().table_name(ARN).send().await.unwrap();
    assert_eq!(described.table().unwrap().table_arn(), Some(ARN));

    client
        .transact_write_items()
        .transact_items(
            TransactWriteItem::builder()
                .update(
                    Update::builder()
                        .table_name(ARN)
                        .key("pk", s("test"))
                        .update_expression("SET xxx = :xxx")
                        .expression_attribute_values(":xxx", s("123"))
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap();
    let scanned = client.scan().table_name(ARN).send().await.unwrap();
    assert_eq!(scanned.items().len(), 1);
    assert_eq!(scanned.items()[0]["xxx"], s("123"));

    let batch = client
        .batch_get_item()
        .request_items(ARN, KeysAndAttributes::builder().keys([("pk".to_owned(), s("test"))].into()).build().unwrap())
        .send()
        .await
        .unwrap();
    let responses = batch.responses.unwrap();
    assert_eq!(responses.keys().collect::<Vec<_>>(), [ARN]);
    assert_eq!(responses[ARN][0]["xxx"], s("123"));

    client.put_item().table_name(ARN).item("pk", s("b")).send().await.unwrap();
    let got = client.get_item().table_name(ARN).key("pk", s("b")).send().await.unwrap();
    assert!(got.item.is_some());
    let queried = client
        .query()
        .table_name(ARN)
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", s("b"))
        .send()
        .await
        .unwrap();
    assert_eq!(queried.count, 1);
    client.delete_item().table_name(ARN).key("pk", s("b")).send().await.unwrap();
    let log = fake.request_log();
    assert!(log.iter().all(|record| record.table.as_deref() == Some("Things")), "{log:?}");
}

#[tokio::test(start_paused = true)]
async fn an_arn_of_elsewhere_names_no_table_and_a_malformed_one_is_no_name() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Things", "pk", None);
    let client = fake.client();
    for elsewhere in
        ["arn:aws:dynamodb:eu-west-1:000000000000:table/Things", "arn:aws:dynamodb:us-east-1:111111111111:table/Things"]
    {
        let error = client.get_item().table_name(elsewhere).key("pk", s("a")).send().await.unwrap_err();
        let (code, _) = sdk_error(error.into_service_error());
        assert_eq!(code, "ResourceNotFoundException", "{elsewhere}");
    }
    let (code, _) =
        refused(&fake, "DescribeTable", json!({"TableName": "arn:aws:dynamodb:us-east-1:111111111111:table/Things"}));
    assert_eq!(code, "ResourceNotFoundException");
    let message = invalid(&fake, "Scan", json!({"TableName": "arn:aws:s3:::bucket/Things"}));
    assert!(message.contains("Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"), "{message}");
    // The name is still a name when given plainly.
    ok(&fake, "Scan", json!({"TableName": "Things"}));
}
