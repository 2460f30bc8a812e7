//! BatchGetItem and BatchWriteItem through the SDK: reads and writes across tables,
//! projections, DynamoDB's checks and their order, partial throttling and capacity.

mod support;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::types::{
    AttributeValue, DeleteRequest, KeysAndAttributes, PutRequest, ReturnConsumedCapacity, WriteRequest,
};
use dynalease_fake::{FakeDynamoDb, Fault, FaultRule};
use serde_json::json;
use support::{invalid, n, ok, refused, s, sdk_error, suite_tables};

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    suite_tables(&fake);
    fake
}

fn put(a: &str) -> WriteRequest {
    WriteRequest::builder()
        .put_request(PutRequest::builder().item("a", s(a)).item("v", n("1")).build().unwrap())
        .build()
}

fn delete(a: &str) -> WriteRequest {
    WriteRequest::builder().delete_request(DeleteRequest::builder().key("a", s(a)).build().unwrap()).build()
}

fn keys(list: &[&str]) -> KeysAndAttributes {
    let mut builder = KeysAndAttributes::builder();
    for a in list {
        builder = builder.keys([("a".to_owned(), s(a))].into());
    }
    builder.build().unwrap()
}

#[tokio::test(start_paused = true)]
async fn writes_and_reads_span_tables_and_deletes_mix_with_puts() {
    let fake = fake();
    let client = fake.client();
    let written = client
        .batch_write_item()
        .request_items("hash", vec![put("x"), put("y"), put("z")])
        .request_items(
            "range",
            vec![
                WriteRequest::builder()
                    .put_request(
                        PutRequest::builder().item("a", s("r")).item("b", s("1")).item("c", s("c")).build().unwrap(),
                    )
                    .build(),
            ],
        )
        .send()
        .await
        .unwrap();
    assert!(written.unprocessed_items.unwrap().is_empty());
    client.batch_write_item().request_items("hash", vec![delete("x"), put("w")]).send().await.unwrap();
    let read = client
        .batch_get_item()
        .request_items("hash", keys(&["x", "y", "w", "missing"]))
        .request_items(
            "range",
            KeysAndAttributes::builder()
                .keys([("a".to_owned(), s("r")), ("b".to_owned(), s("1"))].into())
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let responses = read.responses.unwrap();
    let mut found: Vec<_> = responses["hash"].iter().map(|i| i["a"].as_s().unwrap().clone()).collect();
    found.sort();
    assert_eq!(found, ["w", "y"]);
    assert_eq!(responses["range"].len(), 1, "the write to the second table reached its index too");
    let by_index = client
        .query()
        .table_name("range")
        .index_name("index3")
        .key_condition_expression("c = :c")
        .expression_attribute_values(":c", s("c"))
        .send()
        .await
        .unwrap();
    assert_eq!(by_index.count, 1);
    assert!(read.unprocessed_keys.unwrap().is_empty());
}

#[tokio::test(start_paused = true)]
async fn batch_get_projects_each_table_as_asked() {
    let fake = fake();
    ok(
        &fake,
        "BatchWriteItem",
        json!({"RequestItems": {"hash": [
            {"PutRequest": {"Item": {"a": {"S": "1"}, "b": {"N": "5"}, "c": {"S": "c"}}}},
            {"PutRequest": {"Item": {"a": {"S": "2"}, "b": {"N": "6"}}}},
            {"PutRequest": {"Item": {"a": {"S": "3"}}}},
        ]}}),
    );
    for projection in [
        json!({"AttributesToGet": ["b", "c"]}),
        json!({"ProjectionExpression": "b, c"}),
        json!({"ProjectionExpression": "#b, #c", "ExpressionAttributeNames": {"#b": "b", "#c": "c"}}),
    ] {
        let mut table = projection.clone();
        table["Keys"] = json!([{"a": {"S": "1"}}, {"a": {"S": "nope"}}, {"a": {"S": "2"}}, {"a": {"S": "3"}}]);
        table["ConsistentRead"] = json!(true);
        let answer = ok(&fake, "BatchGetItem", json!({"RequestItems": {"hash": table}}));
        assert_eq!(
            answer["Responses"]["hash"],
            json!([{"b": {"N": "5"}, "c": {"S": "c"}}, {"b": {"N": "6"}}, {}]),
            "{projection}"
        );
        assert_eq!(answer["UnprocessedKeys"], json!({}));
    }
}

#[tokio::test(start_paused = true)]
async fn batch_checks_come_in_dynamodb_order() {
    let fake = fake();
    // No table at all is a missing parameter (nubo-db's conformance suite, recorded against DynamoDB).
    for operation in ["BatchGetItem", "BatchWriteItem"] {
        assert_eq!(
            invalid(&fake, operation, json!({"RequestItems": {}})),
            format!("The requestItems parameter is required for {operation}")
        );
        // A table given nothing to do is refused, not answered with nothing done.
        let (code, _) = refused(&fake, operation, json!({"RequestItems": {"hash": null}}));
        assert_eq!(code, "ValidationException", "{operation}");
    }
    let (code, _) = refused(&fake, "BatchWriteItem", json!({"RequestItems": {"hash": [null]}}));
    assert_eq!(code, "ValidationException");
    let dup = |keys: serde_json::Value, extra: serde_json::Value| {
        let mut table = extra;
        table["Keys"] = keys;
        invalid(&fake, "BatchGetItem", json!({"RequestItems": {"abc": table}}))
    };
    let key = json!({"a": {"S": "k"}, "b": {"N": "1"}});
    let same = json!({"b": {"N": "1"}, "a": {"S": "k"}});
    assert_eq!(dup(json!([key, same, key]), json!({})), "Provided list of item keys contains duplicates");
    assert_eq!(
        dup(json!([key, same]), json!({"AttributesToGet": ["a", "a"]})),
        "One or more parameter values were invalid: Duplicate value in attribute name: a"
    );
    assert_eq!(
        dup(json!([key, same]), json!({"ProjectionExpression": ""})),
        "Invalid ProjectionExpression: The expression can not be empty;"
    );
    let (code, _) = refused(&fake, "BatchGetItem", json!({"RequestItems": {"abc": {"Keys": [{}]}}}));
    assert_eq!(code, "ResourceNotFoundException");
    for key in
        [json!({}), json!({"b": {"S": "a"}}), json!({"a": {"N": "1"}}), json!({"a": {"S": "a"}, "b": {"S": "a"}})]
    {
        assert_eq!(
            invalid(&fake, "BatchGetItem", json!({"RequestItems": {"hash": {"Keys": [key]}}})),
            "The provided key element does not match the schema"
        );
    }
    let long = "a".repeat(2049);
    assert_eq!(
        invalid(&fake, "BatchGetItem", json!({"RequestItems": {"hash": {"Keys": [{"a": {"S": long}}]}}})),
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"
    );
    let hundred: Vec<_> = (0..100).map(|i| json!({"a": {"S": i.to_string()}})).collect();
    assert_eq!(
        invalid(
            &fake,
            "BatchGetItem",
            json!({"RequestItems": {"abc": {"Keys": hundred}, "abd": {"Keys": [{"a": {"S": "100"}}]}}})
        ),
        "Too many items requested for the BatchGetItem call"
    );

    let item = json!({"a": {"S": "same"}, "c": {"S": "c"}});
    let (code, _) = refused(
        &fake,
        "BatchWriteItem",
        json!({"RequestItems": {"abc": [{"PutRequest": {"Item": item}}, {"DeleteRequest": {"Key": {"a": {"S": "same"}}}}]}}),
    );
    assert_eq!(code, "ResourceNotFoundException", "the table is looked up before duplicates are");
    for requests in [
        json!([{"PutRequest": {"Item": item}}, {"DeleteRequest": {"Key": {"a": {"S": "same"}}}}]),
        json!([{"DeleteRequest": {"Key": {"a": {"S": "same"}}}}, {"PutRequest": {"Item": item}}]),
    ] {
        assert_eq!(
            invalid(&fake, "BatchWriteItem", json!({"RequestItems": {"hash": requests}})),
            "Provided list of item keys contains duplicates"
        );
    }
    for item in [json!({"other": {"S": "x"}}), json!({"a": {"N": "5"}}), json!({"a": {"L": [{"S": "x"}]}})] {
        assert_eq!(
            invalid(&fake, "BatchWriteItem", json!({"RequestItems": {"hash": [{"PutRequest": {"Item": item}}]}})),
            "The provided key element does not match the schema"
        );
    }
    assert_eq!(
        invalid(
            &fake,
            "BatchWriteItem",
            json!({"RequestItems": {"hash": [{"PutRequest": {"Item": {"a": {"S": ""}}}}]}})
        ),
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: a"
    );
    assert_eq!(
        invalid(
            &fake,
            "BatchWriteItem",
            json!({"RequestItems": {"range": [{"PutRequest": {"Item": {"a": {"S": "a"}, "b": {"S": "a"}, "c": {"N": "1"}}}}]}})
        ),
        "One or more parameter values were invalid: Type mismatch for Index Key c Expected: S Actual: N IndexName: index1"
    );
    let too_big = "b".repeat(400 * 1024);
    assert_eq!(
        invalid(
            &fake,
            "BatchWriteItem",
            json!({"RequestItems": {"abc": [{"PutRequest": {"Item": {"a": {"S": "k"}, "b": {"S": too_big}}}}]}})
        ),
        "Item size has exceeded the maximum allowed size"
    );
}

#[tokio::test(start_paused = true)]
async fn a_refused_batch_writes_nothing() {
    let fake = fake();
    let message = invalid(
        &fake,
        "BatchWriteItem",
        json!({"RequestItems": {
            "hash": [{"PutRequest": {"Item": {"a": {"S": "first"}}}}],
            "range": [{"PutRequest": {"Item": {"a": {"S": "only-hash"}}}}],
        }}),
    );
    assert_eq!(message, "The provided key element does not match the schema");
    let answer = ok(&fake, "Scan", json!({"TableName": "hash"}));
    assert_eq!(answer["Count"], 0);
}

fn no_retry(fake: &FakeDynamoDb) -> Client {
    let client = fake.client();
    Client::from_conf(client.config().to_builder().retry_config(RetryConfig::disabled()).build())
}

#[tokio::test(start_paused = true)]
async fn a_partly_throttled_batch_returns_the_rest_to_send_again() {
    let fake = fake();
    let client = no_retry(&fake);
    fake.inject(FaultRule::new(Fault::Unprocessed(2)).operation("BatchWriteItem").times(1));
    let first = client
        .batch_write_item()
        .request_items("hash", vec![put("1"), put("2"), put("3"), put("4")])
        .send()
        .await
        .unwrap();
    let left = first.unprocessed_items.unwrap();
    assert_eq!(left["hash"].len(), 2);
    assert_eq!(left["hash"][0].put_request().unwrap().item()["a"], s("3"));
    let again = client.batch_write_item().set_request_items(Some(left)).send().await.unwrap();
    assert!(again.unprocessed_items.unwrap().is_empty());

    fake.inject(FaultRule::new(Fault::Unprocessed(1)).operation("BatchGetItem").times(1));
    let read = client
        .batch_get_item()
        .request_items(
            "hash",
            KeysAndAttributes::builder()
                .keys([("a".to_owned(), s("1"))].into())
                .keys([("a".to_owned(), s("4"))].into())
                .projection_expression("a")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(read.responses.unwrap()["hash"].len(), 1);
    let unprocessed = read.unprocessed_keys.unwrap();
    let retry = &unprocessed["hash"];
    assert_eq!(retry.keys()[0]["a"], s("4"));
    assert_eq!(retry.projection_expression(), Some("a"), "unprocessed keys keep their table's parameters");
    let rest = client.batch_get_item().set_request_items(Some(unprocessed)).send().await.unwrap();
    assert_eq!(rest.responses.unwrap()["hash"].len(), 1);

    fake.inject(FaultRule::new(Fault::Unprocessed(0)).operation("BatchWriteItem").times(1));
    let throttled = client.batch_write_item().request_items("hash", vec![put("5")]).send().await.unwrap_err();
    assert!(throttled.into_service_error().is_provisioned_throughput_exceeded_exception());
    let log = fake.request_log();
    assert_eq!(log.iter().filter(|r| r.fault.as_deref() == Some("Unprocessed")).count(), 3);
}

#[tokio::test(start_paused = true)]
async fn consumed_capacity_is_reported_per_table() {
    let fake = fake();
    let client = fake.client();
    let key = "0123456789";
    let item = |filler: usize, set: Vec<&str>| {
        WriteRequest::builder()
            .put_request(
                PutRequest::builder()
                    .item("a", s(key))
                    .item("b", s(&"b".repeat(filler)))
                    .item("c", n("12.3456"))
                    .item("d", AttributeValue::B(vec![1, 2].into()))
                    .item(
                        "e",
                        AttributeValue::Bs(set.iter().map(|b| aws_smithy_types::Blob::new(b.as_bytes())).collect()),
                    )
                    .build()
                    .unwrap(),
            )
            .build()
    };
    let other = WriteRequest::builder().put_request(PutRequest::builder().item("a", n("7")).build().unwrap()).build();
    let written = client
        .batch_write_item()
        .request_items("hash", vec![item(1001, vec!["\u{1}\u{2}", "\u{2}"]), put("k2")])
        .request_items("hashN", vec![other])
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .unwrap();
    let capacity = written.consumed_capacity.unwrap();
    let hash = capacity.iter().find(|c| c.table_name() == Some("hash")).unwrap();
    assert_eq!(hash.capacity_units, Some(3.0), "an item over 1 KB costs two write units, a small one one");
    assert_eq!(hash.table.as_ref().unwrap().capacity_units, Some(3.0));
    let read = client
        .batch_get_item()
        .request_items("hash", keys(&[key, "k2", "missing"]))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .unwrap();
    assert_eq!(
        read.consumed_capacity.unwrap()[0].capacity_units,
        Some(1.5),
        "each key costs half a unit, found or not"
    );
    let error = client.batch_get_item().request_items("missing", keys(&["x"])).send().await.unwrap_err();
    assert_eq!(sdk_error(error.into_service_error()).1, "Requested resource not found");
}
