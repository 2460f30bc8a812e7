//! Secondary indexes through the SDK: kept up to date by every kind of write, sparse,
//! projected, ordered as DynamoDB orders them, and added or removed by UpdateTable.

mod support;

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, CreateGlobalSecondaryIndexAction, DeleteGlobalSecondaryIndexAction,
    GlobalSecondaryIndexUpdate, KeySchemaElement, KeyType, Projection, ProjectionType, Put, ReturnConsumedCapacity,
    ScalarAttributeType, Select, TimeToLiveSpecification, TransactWriteItem, Update,
};
use dynalease_fake::FakeDynamoDb;
use serde_json::json;
use support::{invalid, ok, put_all, s, sdk_error, suite_tables};

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    suite_tables(&fake);
    fake
}

async fn by_index(client: &Client, index: &str, hash: &str) -> Vec<HashMap<String, AttributeValue>> {
    client
        .query()
        .table_name("range")
        .index_name(index)
        .key_condition_expression("c = :c")
        .expression_attribute_values(":c", s(hash))
        .send()
        .await
        .unwrap()
        .items
        .unwrap_or_default()
}

fn table_keys(items: &[HashMap<String, AttributeValue>]) -> Vec<(String, String)> {
    items.iter().map(|i| (i["a"].as_s().unwrap().clone(), i["b"].as_s().unwrap().clone())).collect()
}

#[tokio::test(start_paused = true)]
async fn every_kind_of_write_keeps_a_global_index_up_to_date() {
    let fake = fake();
    let client = fake.client();
    client.put_item().table_name("range").item("a", s("1")).item("b", s("1")).item("c", s("red")).send().await.unwrap();
    client.put_item().table_name("range").item("a", s("2")).item("b", s("1")).item("c", s("red")).send().await.unwrap();
    assert_eq!(by_index(&client, "index3", "red").await.len(), 2);
    client
        .update_item()
        .table_name("range")
        .key("a", s("2"))
        .key("b", s("1"))
        .update_expression("SET c = :c")
        .expression_attribute_values(":c", s("blue"))
        .send()
        .await
        .unwrap();
    assert_eq!(table_keys(&by_index(&client, "index3", "red").await), [("1".into(), "1".into())]);
    assert_eq!(table_keys(&by_index(&client, "index3", "blue").await), [("2".into(), "1".into())]);
    client
        .update_item()
        .table_name("range")
        .key("a", s("2"))
        .key("b", s("1"))
        .update_expression("REMOVE c")
        .send()
        .await
        .unwrap();
    assert!(by_index(&client, "index3", "blue").await.is_empty(), "an item without the index key leaves the index");
    client.delete_item().table_name("range").key("a", s("1")).key("b", s("1")).send().await.unwrap();
    assert!(by_index(&client, "index3", "red").await.is_empty());

    put_all(&fake, "range", &[json!({"a": {"S": "3"}, "b": {"S": "1"}, "c": {"S": "green"}})]);
    assert_eq!(by_index(&client, "index3", "green").await.len(), 1, "batch writes index");
    client
        .transact_write_items()
        .transact_items(
            TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name("range")
                        .item("a", s("4"))
                        .item("b", s("1"))
                        .item("c", s("green"))
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .transact_items(
            TransactWriteItem::builder()
                .update(
                    Update::builder()
                        .table_name("range")
                        .key("a", s("3"))
                        .key("b", s("1"))
                        .update_expression("SET c = :c")
                        .expression_attribute_values(":c", s("yellow"))
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(table_keys(&by_index(&client, "index3", "green").await), [("4".into(), "1".into())]);
    assert_eq!(table_keys(&by_index(&client, "index3", "yellow").await), [("3".into(), "1".into())]);
}

#[tokio::test(start_paused = true)]
async fn items_deleted_by_time_to_live_leave_the_index() {
    let fake = FakeDynamoDb::builder().ttl_sweep_interval(Duration::ZERO).build();
    suite_tables(&fake);
    let client = fake.client();
    client
        .update_time_to_live()
        .table_name("range")
        .time_to_live_specification(
            TimeToLiveSpecification::builder().attribute_name("expires").enabled(true).build().unwrap(),
        )
        .send()
        .await
        .unwrap();
    let now = fake.now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    for (a, expires) in [("soon", now + 60), ("later", now + 3600)] {
        client
            .put_item()
            .table_name("range")
            .item("a", s(a))
            .item("b", s("1"))
            .item("c", s("ttl"))
            .item("d", s("x"))
            .item("expires", AttributeValue::N(expires.to_string()))
            .send()
            .await
            .unwrap();
    }
    tokio::time::advance(Duration::from_secs(120)).await;
    assert_eq!(by_index(&client, "index3", "ttl").await.len(), 2, "an expired item stays until a sweep deletes it");
    assert_eq!(fake.sweep_ttl(), 1);
    assert_eq!(table_keys(&by_index(&client, "index3", "ttl").await), [("later".into(), "1".into())]);
    let local = client
        .query()
        .table_name("range")
        .index_name("index2")
        .key_condition_expression("a = :a")
        .expression_attribute_values(":a", s("soon"))
        .send()
        .await
        .unwrap();
    assert_eq!(local.count, 0, "local indexes follow too");
}

#[tokio::test(start_paused = true)]
async fn an_index_returns_the_attributes_it_projects() {
    let fake = fake();
    put_all(
        &fake,
        "range",
        &[
            json!({"a": {"S": "p"}, "b": {"S": "b1"}, "c": {"S": "c1"}, "d": {"S": "d1"}, "e": {"S": "e1"}, "f": {"S": "f1"}}),
            json!({"a": {"S": "p"}, "b": {"S": "b2"}}),
        ],
    );
    let local = ok(
        &fake,
        "Query",
        json!({"TableName": "range", "IndexName": "index2", "KeyConditionExpression": "a = :a", "ExpressionAttributeValues": {":a": {"S": "p"}}}),
    );
    assert_eq!(
        local["Items"],
        json!([{"a": {"S": "p"}, "b": {"S": "b1"}, "c": {"S": "c1"}, "d": {"S": "d1"}}]),
        "INCLUDE c, and the keys; b2 has no d"
    );
    let global = ok(
        &fake,
        "Query",
        json!({"TableName": "range", "IndexName": "index4", "KeyConditionExpression": "c = :c", "ExpressionAttributeValues": {":c": {"S": "c1"}}}),
    );
    assert_eq!(
        global["Items"],
        json!([{"a": {"S": "p"}, "b": {"S": "b1"}, "c": {"S": "c1"}, "d": {"S": "d1"}, "e": {"S": "e1"}}])
    );
    let all = ok(
        &fake,
        "Query",
        json!({"TableName": "range", "IndexName": "index2", "KeyConditionExpression": "a = :a", "ExpressionAttributeValues": {":a": {"S": "p"}}, "Select": "ALL_ATTRIBUTES"}),
    );
    assert_eq!(all["Items"][0]["f"], json!({"S": "f1"}), "a local index reads the table for the rest");
    let refused = invalid(
        &fake,
        "Query",
        json!({"TableName": "range", "IndexName": "index4", "KeyConditionExpression": "c = :c", "ExpressionAttributeValues": {":c": {"S": "c1"}}, "Select": "ALL_ATTRIBUTES"}),
    );
    assert_eq!(
        refused,
        "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index index4 because its projection type is not ALL"
    );
    let scan = ok(&fake, "Scan", json!({"TableName": "range", "IndexName": "index4"}));
    assert_eq!(scan["Count"], 1, "a scan of an index sees only the items that have its key");
}

#[tokio::test(start_paused = true)]
async fn reading_the_table_through_a_local_index_costs_both() {
    let fake = fake();
    let big = "e".repeat(4061);
    put_all(
        &fake,
        "range",
        &[
            json!({"a": {"S": "pppppppppp"}, "b": {"S": "b1"}, "c": {"S": "c1"}, "d": {"S": "d1"}}),
            json!({"a": {"S": "pppppppppp"}, "b": {"S": "b3"}, "d": {"S": "d3"}, "e": {"M": {"e3": {"S": big}}}, "f": {"L": [{"S": "f3"}, {"S": "ff3"}]}}),
            json!({"a": {"S": "pppppppppp"}, "b": {"S": "b4"}, "c": {"S": "c4"}, "d": {"S": "d4"}, "e": {"M": {"ee4": {"S": "e4"}, "eee4": {"S": big}}}}),
        ],
    );
    let query = |select: Option<&str>| {
        let mut body = json!({"TableName": "range", "IndexName": "index2", "ConsistentRead": true, "KeyConditionExpression": "a = :a", "ExpressionAttributeValues": {":a": {"S": "pppppppppp"}}, "ReturnConsumedCapacity": "INDEXES"});
        if let Some(select) = select {
            body["Select"] = json!(select);
        }
        ok(&fake, "Query", body)["ConsumedCapacity"].clone()
    };
    assert_eq!(
        query(None),
        json!({"TableName": "range", "CapacityUnits": 1, "Table": {"CapacityUnits": 0}, "LocalSecondaryIndexes": {"index2": {"CapacityUnits": 1}}})
    );
    let fetched = query(Some("ALL_ATTRIBUTES"));
    assert_eq!(fetched["CapacityUnits"], 4);
    assert_eq!(fetched["Table"]["CapacityUnits"], 3);
}

#[tokio::test(start_paused = true)]
async fn equal_index_keys_are_ordered_as_dynamodb_orders_them() {
    let fake = fake();
    let c = "idx-order";
    let item = |a: &str, b: &str, d: &str| json!({"a": {"S": a}, "b": {"S": b}, "c": {"S": c}, "d": {"S": d}});
    put_all(
        &fake,
        "range",
        &[
            item("a", "a", "a"),
            item("b", "b", "a"),
            item("c", "e", "a"),
            item("c", "d", "a"),
            item("d", "a", "a"),
            item("e", "a", "a"),
        ],
    );
    put_all(&fake, "range", &[json!({"a": {"S": "c"}, "b": {"S": "c"}, "c": {"S": "c"}, "d": {"S": "a"}})]);
    let keys = |answer: &serde_json::Value| -> Vec<String> {
        answer["Items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| format!("{}{}", i["a"]["S"].as_str().unwrap(), i["b"]["S"].as_str().unwrap()))
            .collect()
    };
    let forward = ok(
        &fake,
        "Query",
        json!({"TableName": "range", "IndexName": "index3", "KeyConditionExpression": "c = :c", "ExpressionAttributeValues": {":c": {"S": c}}, "Limit": 4}),
    );
    assert_eq!(keys(&forward), ["bb", "aa", "ce", "ea"]);
    assert_eq!(forward["LastEvaluatedKey"], json!({"a": {"S": "e"}, "b": {"S": "a"}, "c": {"S": c}}));
    let backward = ok(
        &fake,
        "Query",
        json!({"TableName": "range", "IndexName": "index3", "KeyConditionExpression": "c = :c", "ExpressionAttributeValues": {":c": {"S": c}}, "ScanIndexForward": false, "Limit": 4}),
    );
    assert_eq!(keys(&backward), ["cd", "da", "ea", "ce"]);
    let next = ok(
        &fake,
        "Query",
        json!({"TableName": "range", "IndexName": "index3", "KeyConditionExpression": "c = :c", "ExpressionAttributeValues": {":c": {"S": c}}, "Limit": 2, "ExclusiveStartKey": {"a": {"S": "c"}, "b": {"S": "e"}, "c": {"S": c}}}),
    );
    assert_eq!(keys(&next), ["ea", "da"]);
}

#[tokio::test(start_paused = true)]
async fn global_indexes_refuse_consistent_reads() {
    let fake = fake();
    let client = fake.client();
    let error = client
        .query()
        .table_name("range")
        .index_name("index3")
        .key_condition_expression("c = :c")
        .expression_attribute_values(":c", s("x"))
        .consistent_read(true)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(sdk_error(error).1, "Consistent reads are not supported on global secondary indexes");
    let error = client.scan().table_name("range").index_name("index3").consistent_read(true).send().await.unwrap_err();
    assert_eq!(
        sdk_error(error.into_service_error()).1,
        "Consistent reads are not supported on global secondary indexes"
    );
    let local = client
        .query()
        .table_name("range")
        .index_name("index1")
        .key_condition_expression("a = :a")
        .expression_attribute_values(":a", s("x"))
        .consistent_read(true)
        .select(Select::AllProjectedAttributes)
        .send()
        .await;
    assert!(local.is_ok(), "a local index reads consistently");
}

fn gsi_on(attribute: &str, name: &str, projection: ProjectionType) -> GlobalSecondaryIndexUpdate {
    GlobalSecondaryIndexUpdate::builder()
        .create(
            CreateGlobalSecondaryIndexAction::builder()
                .index_name(name)
                .key_schema(
                    KeySchemaElement::builder().attribute_name(attribute).key_type(KeyType::Hash).build().unwrap(),
                )
                .projection(Projection::builder().projection_type(projection).build())
                .build()
                .unwrap(),
        )
        .build()
}

#[tokio::test(start_paused = true)]
async fn update_table_adds_an_index_filled_with_the_existing_items_and_removes_it() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Orders", "pk", Some("sk"));
    let client = fake.client();
    for (pk, group) in
        [("item1", Some("group1")), ("item2", Some("group1")), ("item3", Some("group2")), ("item4", None)]
    {
        let mut put = client.put_item().table_name("Orders").item("pk", s(pk)).item("sk", s("a"));
        if let Some(group) = group {
            put = put.item("gsiPk", s(group));
        }
        put.send().await.unwrap();
    }
    let definition =
        AttributeDefinition::builder().attribute_name("gsiPk").attribute_type(ScalarAttributeType::S).build().unwrap();
    let answer = client
        .update_table()
        .table_name("Orders")
        .attribute_definitions(definition.clone())
        .global_secondary_index_updates(gsi_on("gsiPk", "byGroup", ProjectionType::KeysOnly))
        .send()
        .await
        .unwrap();
    let described = answer.table_description.unwrap();
    let index = &described.global_secondary_indexes()[0];
    assert_eq!(index.index_name(), Some("byGroup"));
    assert_eq!(index.item_count, Some(3), "the index was filled from the items already there");
    let found = client
        .query()
        .table_name("Orders")
        .index_name("byGroup")
        .key_condition_expression("gsiPk = :g")
        .expression_attribute_values(":g", s("group1"))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .unwrap();
    let mut pks: Vec<_> = found.items().iter().map(|i| i["pk"].as_s().unwrap().clone()).collect();
    pks.sort();
    assert_eq!(pks, ["item1", "item2"]);
    assert!(found.consumed_capacity.unwrap().global_secondary_indexes.unwrap().contains_key("byGroup"));

    let duplicate = client
        .update_table()
        .table_name("Orders")
        .attribute_definitions(definition)
        .global_secondary_index_updates(gsi_on("gsiPk", "byGroup", ProjectionType::All))
        .send()
        .await
        .unwrap_err();
    assert_eq!(sdk_error(duplicate.into_service_error()).0, "ValidationException");
    let undefined = client
        .update_table()
        .table_name("Orders")
        .global_secondary_index_updates(gsi_on("unknownAttr", "bad", ProjectionType::All))
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        sdk_error(undefined.into_service_error()).1,
        "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [unknownAttr], AttributeDefinitions: []"
    );

    let remove = |name: &str| {
        GlobalSecondaryIndexUpdate::builder()
            .delete(DeleteGlobalSecondaryIndexAction::builder().index_name(name).build().unwrap())
            .build()
    };
    client.update_table().table_name("Orders").global_secondary_index_updates(remove("byGroup")).send().await.unwrap();
    let gone = client
        .query()
        .table_name("Orders")
        .index_name("byGroup")
        .key_condition_expression("gsiPk = :g")
        .expression_attribute_values(":g", s("group1"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(sdk_error(gone.into_service_error()).1, "The table does not have the specified index: byGroup");
    let missing = client
        .update_table()
        .table_name("Orders")
        .global_secondary_index_updates(remove("nope"))
        .send()
        .await
        .unwrap_err();
    assert!(missing.into_service_error().is_resource_not_found_exception());
    client
        .put_item()
        .table_name("Orders")
        .item("pk", s("after"))
        .item("sk", s("a"))
        .item("gsiPk", s("g"))
        .send()
        .await
        .unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_write_that_would_index_an_oversized_key_is_refused() {
    // ScyllaDB's Alternator suite, against DynamoDB: an index key is held to a table key's
    // limits, 2048 bytes for a partition key and 1024 for a sort key, and the write is refused
    // whole.
    let fake = FakeDynamoDb::new();
    ok(
        &fake,
        "CreateTable",
        json!({"TableName": "Sized", "BillingMode": "PAY_PER_REQUEST",
               "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}],
               "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "x", "AttributeType": "S"},
                                        {"AttributeName": "y", "AttributeType": "S"}],
               "GlobalSecondaryIndexes": [{"IndexName": "byXY", "Projection": {"ProjectionType": "ALL"},
                   "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}, {"AttributeName": "y", "KeyType": "RANGE"}]}]}),
    );
    let put = |p: &str, x: usize, y: usize| json!({"TableName": "Sized", "Item": {"p": {"S": p}, "x": {"S": "a".repeat(x)}, "y": {"S": "b".repeat(y)}}});
    ok(&fake, "PutItem", put("fits", 2048, 1024));
    let message = invalid(&fake, "PutItem", put("long-x", 2049, 1));
    assert_eq!(
        message,
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"
    );
    let message = invalid(&fake, "PutItem", put("long-y", 1, 1025));
    assert_eq!(
        message,
        "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes"
    );
    for p in ["long-x", "long-y"] {
        let got = ok(&fake, "GetItem", json!({"TableName": "Sized", "Key": {"p": {"S": p}}}));
        assert!(got.get("Item").is_none(), "{p} was written");
    }
    let scanned = ok(&fake, "Scan", json!({"TableName": "Sized", "IndexName": "byXY"}));
    assert_eq!(scanned["Count"], 1);
}
