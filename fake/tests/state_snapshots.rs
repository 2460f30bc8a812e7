//! Snapshots in-process: every table, index, time-to-live setting, stream setting and item as
//! one JSON document, taken, read back, started from and restored.

use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ProvisionedThroughput, ScalarAttributeType, StreamSpecification, StreamViewType, Tag,
    TimeToLiveSpecification,
};
use dynalease_fake::{FakeDynamoDb, Snapshot};
use serde_json::Value as Json;

fn start() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.to_owned())
}

/// A fake with a provisioned table of two keys, a global index, a stream, time to live, tags and
/// items, and a second table.
async fn furnished() -> FakeDynamoDb {
    let fake = FakeDynamoDb::builder().start_time(start()).seed(3).build();
    let client = fake.client();
    let def =
        |name: &str, kind| AttributeDefinition::builder().attribute_name(name).attribute_type(kind).build().unwrap();
    let key = |name: &str, kind| KeySchemaElement::builder().attribute_name(name).key_type(kind).build().unwrap();
    let units = ProvisionedThroughput::builder().read_capacity_units(5).write_capacity_units(7).build().unwrap();
    client
        .create_table()
        .table_name("Orders")
        .attribute_definitions(def("pk", ScalarAttributeType::S))
        .attribute_definitions(def("sk", ScalarAttributeType::N))
        .attribute_definitions(def("status", ScalarAttributeType::S))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("by-status")
                .key_schema(key("status", KeyType::Hash))
                .projection(Projection::builder().projection_type(ProjectionType::KeysOnly).build())
                .provisioned_throughput(units.clone())
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::Provisioned)
        .provisioned_throughput(units)
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewImage)
                .build()
                .unwrap(),
        )
        .tags(Tag::builder().key("team").value("shop").build().unwrap())
        .send()
        .await
        .unwrap();
    let ttl = TimeToLiveSpecification::builder().enabled(true).attribute_name("expires").build().unwrap();
    client.update_time_to_live().table_name("Orders").time_to_live_specification(ttl).send().await.unwrap();
    for (sk, status) in [("1", "open"), ("2", "shipped"), ("3", "open")] {
        client
            .put_item()
            .table_name("Orders")
            .item("pk", s("c1"))
            .item("sk", AttributeValue::N(sk.into()))
            .item("status", s(status))
            .item(
                "lines",
                AttributeValue::L(vec![AttributeValue::M([("qty".to_owned(), AttributeValue::N("2".into()))].into())]),
            )
            .item("blob", AttributeValue::B(vec![0, 1, 255].into()))
            .send()
            .await
            .unwrap();
    }
    fake.create_table("Plain", "id", None);
    fake
}

fn tables_of(snapshot: &Snapshot) -> Json {
    serde_json::from_str::<Json>(&snapshot.to_json()).unwrap()["Tables"].clone()
}

#[tokio::test(start_paused = true)]
async fn a_snapshot_read_back_starts_a_fake_whose_tables_describe_query_and_snapshot_as_before() {
    let original = furnished().await;
    let snapshot = original.snapshot();
    assert_eq!(snapshot.table_names(), ["Orders", "Plain"]);
    let read = Snapshot::from_json(&snapshot.to_json()).unwrap();
    let copy = FakeDynamoDb::builder().start_time(start() + Duration::from_secs(3600)).snapshot(read).build();
    assert_eq!(tables_of(&copy.snapshot()), tables_of(&snapshot));

    let (before, after) = (original.client(), copy.client());
    let described = before.describe_table().table_name("Orders").send().await.unwrap();
    let again = after.describe_table().table_name("Orders").send().await.unwrap();
    assert_eq!(again.table(), described.table(), "id, creation time, indexes, throughput, stream ARN, sizes");
    let open = after
        .query()
        .table_name("Orders")
        .index_name("by-status")
        .key_condition_expression("#s = :open")
        .expression_attribute_names("#s", "status")
        .expression_attribute_values(":open", s("open"))
        .send()
        .await
        .unwrap();
    assert_eq!(open.count(), 2);
    let ttl = after.describe_time_to_live().table_name("Orders").send().await.unwrap();
    assert_eq!(ttl.time_to_live_description().unwrap().attribute_name(), Some("expires"));
    let arn = described.table().unwrap().table_arn().unwrap();
    let tags = after.list_tags_of_resource().resource_arn(arn).send().await.unwrap();
    assert_eq!(tags.tags()[0].key(), "team");
}

#[tokio::test(start_paused = true)]
async fn restore_replaces_every_table_at_once_and_reset_drops_them_all() {
    let fake = furnished().await;
    let fixture = Snapshot::from_json(
        r#"{"Tables": [{"TableName": "Fresh",
            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST",
            "Items": [{"id": {"S": "one"}, "n": {"N": "1"}}]}]}"#,
    )
    .unwrap();
    fake.restore(&fixture);
    let client = fake.client();
    assert_eq!(client.list_tables().send().await.unwrap().table_names(), ["Fresh"]);
    let item = fake.read_item("Fresh", &[("id".to_owned(), s("one"))].into()).unwrap();
    assert_eq!(item["n"], AttributeValue::N("1".into()));
    fake.reset();
    assert!(client.list_tables().send().await.unwrap().table_names().is_empty());
}

#[test]
fn a_fixture_that_breaks_a_rule_is_refused_with_the_line_and_what_is_wrong() {
    let table = |extra: &str| {
        format!(
            "{{\"Tables\": [{{\"TableName\": \"Tab\",\n\"AttributeDefinitions\": [{{\"AttributeName\": \"id\", \"AttributeType\": \"S\"}}],\n\
             \"KeySchema\": [{{\"AttributeName\": \"id\", \"KeyType\": \"HASH\"}}], \"BillingMode\": \"PAY_PER_REQUEST\"{extra}}}]}}"
        )
    };
    let cases = [
        (
            table(",\n\"Items\": [{\"id\": {\"S\": \"a\"}}, {\"id\": {\"S\": \"a\"}}]"),
            4,
            "Tab: item 2 has the key of an earlier item",
        ),
        (
            table(",\n\"Itmes\": []"),
            4,
            "Tab: unknown member `Itmes`: a table has CreateTable's members, TimeToLiveSpecification and Items",
        ),
        (
            table(",\n\"TimeToLiveSpecification\": {\"AttributeName\": \"\", \"Enabled\": true}"),
            4,
            "Tab: TimeToLiveSpecification must be {\"AttributeName\": <1 to 255 characters>, \"Enabled\": true or false}",
        ),
        (table(",\n\"Items\": [{\"id\": {\"N\": \"x\"}}]"), 4, "Tab: item 1: ValidationException: "),
        (table(", \"BillingMode\": \"FREE\""), 3, "table 1 of Tables"),
    ];
    for (text, line, expected) in cases {
        let error = Snapshot::from_json(&text).unwrap_err();
        assert_eq!(error.line(), line, "{text}: {error}");
        assert!(error.message().contains(expected), "{error} should say {expected:?}");
        assert_eq!(error.file(), None);
    }
}
