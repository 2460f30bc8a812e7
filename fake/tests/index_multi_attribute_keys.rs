//! Global secondary indexes with multi-attribute keys (DynamoDB, November 2025): up to four
//! partition key attributes and up to four sort key attributes, each of its own type. Created
//! and described, kept sparse, checked on writes, and queried by the rules of the developer
//! guide: every partition key attribute with `=`, sort key attributes left to right with the
//! inequality last, no filter on a key attribute, pagination over every key attribute.

mod support;

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ComparisonOperator, Condition};
use dynalease_fake::FakeDynamoDb;
use serde_json::{Value as Json, json};
use support::{invalid, n, ok, s, sdk_error};

type Item = HashMap<String, AttributeValue>;

/// The refusal of a query that does not give h2, a partition key attribute, with `=`.
const HASH_RULE_H2: &str = "Query key condition not supported: every HASH key attribute of the index needs an equality condition. Key attribute: h2";

/// The refusal of a query that skips sort key attribute `name` or has an inequality on it before
/// the last condition.
fn range_rule(name: &str) -> String {
    format!(
        "Query key condition not supported: RANGE key attributes are given left to right in key schema order, \
         each with an equality condition except the last one given. Key attribute: {name}"
    )
}

/// Expression attribute values by name.
type Values = Vec<(&'static str, AttributeValue)>;

fn key_schema(hash: &[&str], range: &[&str]) -> Json {
    let hash = hash.iter().map(|name| json!({"AttributeName": name, "KeyType": "HASH"}));
    let range = range.iter().map(|name| json!({"AttributeName": name, "KeyType": "RANGE"}));
    Json::Array(hash.chain(range).collect())
}

fn definitions(attrs: &[(&str, &str)]) -> Json {
    Json::Array(attrs.iter().map(|(name, kind)| json!({"AttributeName": name, "AttributeType": kind})).collect())
}

/// A CreateTable body: table `Matches` keyed on `p`, with one global index `idx` of this key schema.
fn table_with_index(index_key: Json, attrs: &[(&str, &str)]) -> Json {
    let mut defs = vec![("p", "S")];
    defs.extend_from_slice(attrs);
    json!({
        "TableName": "Matches",
        "KeySchema": key_schema(&["p"], &[]),
        "AttributeDefinitions": definitions(&defs),
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [{"IndexName": "idx", "KeySchema": index_key, "Projection": {"ProjectionType": "ALL"}}],
    })
}

/// Table `Matches` with `idx` on h1, h2 (S) then r1 (S), r2 (N).
fn two_by_two() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    let attrs = [("h1", "S"), ("h2", "S"), ("r1", "S"), ("r2", "N")];
    ok(&fake, "CreateTable", table_with_index(key_schema(&["h1", "h2"], &["r1", "r2"]), &attrs));
    fake
}

async fn put(client: &Client, attrs: &[(&str, AttributeValue)]) {
    let mut request = client.put_item().table_name("Matches");
    for (name, value) in attrs {
        request = request.item(*name, value.clone());
    }
    request.send().await.unwrap();
}

/// Puts the item `p` with h1 = "a", h2 = "b", and these sort key values.
async fn put_row(client: &Client, p: &str, r1: &str, r2: &str) {
    put(client, &[("p", s(p)), ("h1", s("a")), ("h2", s("b")), ("r1", s(r1)), ("r2", n(r2))]).await;
}

fn ps(items: &[Item]) -> Vec<String> {
    items.iter().map(|item| item["p"].as_s().unwrap().clone()).collect()
}

/// A Query of `idx` for the partition h1 = "a", h2 = "b".
fn partition_query(client: &Client) -> QueryFluentBuilder {
    client
        .query()
        .table_name("Matches")
        .index_name("idx")
        .key_condition_expression("h1 = :h1 AND h2 = :h2")
        .expression_attribute_values(":h1", s("a"))
        .expression_attribute_values(":h2", s("b"))
}

/// Queries `idx` with this key condition (values `:h1` = "a" and `:h2` = "b" are added).
async fn query(client: &Client, condition: &str, values: &[(&str, AttributeValue)]) -> Result<Vec<Item>, String> {
    let mut request = partition_query(client).key_condition_expression(condition);
    for (name, value) in values {
        request = request.expression_attribute_values(*name, value.clone());
    }
    match request.send().await {
        Ok(out) => Ok(out.items.unwrap_or_default()),
        Err(error) => {
            let (code, message) = sdk_error(error.into_service_error());
            assert_eq!(code, "ValidationException", "{message}");
            Err(message)
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_multi_attribute_key_is_created_and_described_in_key_schema_order() {
    let fake = FakeDynamoDb::new();
    let attrs: Vec<(String, &str)> = (1..=8).map(|i| (format!("k{i}"), if i % 2 == 0 { "N" } else { "S" })).collect();
    let attrs: Vec<(&str, &str)> = attrs.iter().map(|(name, kind)| (name.as_str(), *kind)).collect();
    let index_key = key_schema(&["k1", "k2", "k3", "k4"], &["k5", "k6", "k7", "k8"]);
    ok(&fake, "CreateTable", table_with_index(index_key.clone(), &attrs));
    let described = ok(&fake, "DescribeTable", json!({"TableName": "Matches"}));
    assert_eq!(described["Table"]["GlobalSecondaryIndexes"][0]["KeySchema"], index_key);

    let client = fake.client();
    let out = client.describe_table().table_name("Matches").send().await.unwrap();
    let index = &out.table.unwrap().global_secondary_indexes.unwrap()[0];
    let names: Vec<&str> = index.key_schema().iter().map(|k| k.attribute_name()).collect();
    assert_eq!(names, ["k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8"]);
}

#[tokio::test(start_paused = true)]
async fn malformed_multi_attribute_keys_are_refused() {
    let fake = FakeDynamoDb::new();
    let attrs: Vec<(String, &str)> = (0..6).map(|i| (format!("a{i}"), "S")).collect();
    let attrs: Vec<(&str, &str)> = attrs.iter().map(|(name, kind)| (name.as_str(), *kind)).collect();
    let element = |name: &str, kind: &str| json!({"AttributeName": name, "KeyType": kind});
    let cases = [
        (key_schema(&["a0", "a1", "a2", "a3", "a4"], &[]), "at most 4 HASH"),
        (key_schema(&["a0"], &["a1", "a2", "a3", "a4", "a5"]), "at most 4 RANGE"),
        (json!([element("a0", "RANGE"), element("a1", "HASH")]), "The first KeySchemaElement is not a HASH key type"),
        (json!([element("a0", "RANGE"), element("a1", "RANGE")]), "The first KeySchemaElement is not a HASH key type"),
        (
            json!([element("a0", "HASH"), element("a1", "RANGE"), element("a2", "HASH")]),
            "All HASH KeySchemaElements must precede the RANGE KeySchemaElements",
        ),
        (
            json!([element("a0", "HASH"), element("a0", "HASH")]),
            "Both the Hash Key and the Range Key element in the KeySchema have the same name",
        ),
        (
            json!([element("a0", "HASH"), element("a1", "HASH"), element("a0", "RANGE")]),
            "Both the Hash Key and the Range Key element in the KeySchema have the same name",
        ),
    ];
    for (index_key, expected) in cases {
        let message = invalid(&fake, "CreateTable", table_with_index(index_key.clone(), &attrs));
        assert!(message.contains(expected), "{index_key}: {message}");
    }
    // Every key attribute needs its definition.
    let message = invalid(&fake, "CreateTable", table_with_index(key_schema(&["a0", "zz"], &[]), &attrs[..1]));
    assert!(message.contains("Some index key attributes are not defined in AttributeDefinitions"), "{message}");

    // A local index keeps a key of two attributes.
    let mut local = table_with_index(key_schema(&["p"], &["a0", "a1"]), &attrs[..2]);
    local["KeySchema"] = key_schema(&["p"], &["a0"]);
    local["LocalSecondaryIndexes"] = local["GlobalSecondaryIndexes"].take();
    local.as_object_mut().unwrap().remove("GlobalSecondaryIndexes");
    let message = invalid(&fake, "CreateTable", local);
    assert!(message.contains("Member must have length less than or equal to 2"), "{message}");

    // UpdateTable holds an index it creates to the same rules.
    ok(
        &fake,
        "CreateTable",
        json!({"TableName": "Updates", "KeySchema": key_schema(&["p"], &[]), "AttributeDefinitions": definitions(&[("p", "S")]),
               "BillingMode": "PAY_PER_REQUEST"}),
    );
    let create = |index_key: Json| {
        json!({"TableName": "Updates", "AttributeDefinitions": definitions(&attrs),
               "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "idx", "KeySchema": index_key,
                                                           "Projection": {"ProjectionType": "ALL"}}}]})
    };
    let message = invalid(&fake, "UpdateTable", create(key_schema(&["a0", "a1", "a2", "a3", "a4"], &[])));
    assert!(message.contains("at most 4 HASH"), "{message}");
    let message = invalid(&fake, "UpdateTable", create(json!([element("a0", "RANGE"), element("a1", "HASH")])));
    assert!(message.contains("The first KeySchemaElement is not a HASH key type"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn an_item_lacking_any_key_attribute_is_left_out_of_the_index() {
    let fake = two_by_two();
    let client = fake.client();
    put(&client, &[("p", s("no-h2")), ("h1", s("a")), ("r1", s("x")), ("r2", n("1"))]).await;
    put(&client, &[("p", s("no-r2")), ("h1", s("a")), ("h2", s("b")), ("r1", s("x"))]).await;
    put_row(&client, "whole", "x", "1").await;
    let scanned = client.scan().table_name("Matches").index_name("idx").send().await.unwrap();
    assert_eq!(ps(scanned.items()), ["whole"]);

    // Setting the missing attribute indexes the item; removing one takes it out again.
    client
        .update_item()
        .table_name("Matches")
        .key("p", s("no-r2"))
        .update_expression("SET r2 = :v")
        .expression_attribute_values(":v", n("0"))
        .send()
        .await
        .unwrap();
    assert_eq!(ps(&query(&client, "h1 = :h1 AND h2 = :h2", &[]).await.unwrap()), ["no-r2", "whole"]);
    client
        .update_item()
        .table_name("Matches")
        .key("p", s("whole"))
        .update_expression("REMOVE h2")
        .send()
        .await
        .unwrap();
    assert_eq!(ps(&query(&client, "h1 = :h1 AND h2 = :h2", &[]).await.unwrap()), ["no-r2"]);
}

#[tokio::test(start_paused = true)]
async fn a_write_with_a_wrong_typed_or_empty_key_attribute_is_refused() {
    let fake = two_by_two();
    let client = fake.client();
    let refused = |attrs: Vec<(&'static str, AttributeValue)>| {
        let client = client.clone();
        async move {
            let mut request = client.put_item().table_name("Matches");
            for (name, value) in attrs {
                request = request.item(name, value);
            }
            sdk_error(request.send().await.unwrap_err().into_service_error())
        }
    };
    let (code, message) = refused(vec![("p", s("1")), ("h1", s("a")), ("h2", n("5"))]).await;
    assert_eq!(code, "ValidationException");
    assert_eq!(
        message,
        "One or more parameter values were invalid: Type mismatch for Index Key h2 Expected: S Actual: N IndexName: idx"
    );
    let (_, message) = refused(vec![("p", s("1")), ("r2", s("5"))]).await;
    assert!(message.contains("Type mismatch for Index Key r2 Expected: N Actual: S"), "{message}");
    let (_, message) = refused(vec![("p", s("1")), ("h1", s("a")), ("h2", s(""))]).await;
    assert!(message.contains("cannot contain an empty string value. IndexName: idx, IndexKey: h2"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn a_query_names_every_partition_key_attribute_with_equality() {
    let fake = two_by_two();
    let client = fake.client();
    put_row(&client, "1", "x", "1").await;
    put_row(&client, "2", "y", "2").await;
    // The same first attribute under another second one is another partition.
    put(&client, &[("p", s("other")), ("h1", s("a")), ("h2", s("c")), ("r1", s("x")), ("r2", n("1"))]).await;

    assert_eq!(ps(&query(&client, "h2 = :h2 AND h1 = :h1", &[]).await.unwrap()), ["1", "2"]);
    let only_first = client
        .query()
        .table_name("Matches")
        .index_name("idx")
        .key_condition_expression("h1 = :h1")
        .expression_attribute_values(":h1", s("a"))
        .send()
        .await
        .unwrap_err();
    let (_, message) = sdk_error(only_first.into_service_error());
    assert_eq!(message, HASH_RULE_H2);
    for condition in ["h1 = :h1 AND h2 > :h2", "h1 = :h1 AND begins_with(h2, :h2)"] {
        assert_eq!(query(&client, condition, &[]).await.unwrap_err(), HASH_RULE_H2);
    }
    let between = query(&client, "h1 = :h1 AND h2 BETWEEN :h2 AND :z", &[(":z", s("z"))]).await;
    assert_eq!(between.unwrap_err(), HASH_RULE_H2);
    let wrong_type = client
        .query()
        .table_name("Matches")
        .index_name("idx")
        .key_condition_expression("h1 = :h1 AND h2 = :h2")
        .expression_attribute_values(":h1", n("1"))
        .expression_attribute_values(":h2", s("b"))
        .send()
        .await
        .unwrap_err();
    let (_, message) = sdk_error(wrong_type.into_service_error());
    assert!(message.ends_with("Condition parameter type does not match schema type"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn sort_key_attributes_are_given_left_to_right_with_the_inequality_last() {
    let fake = two_by_two();
    let client = fake.client();
    for (p, r1, r2) in [("1", "x", "5"), ("2", "x", "50"), ("3", "x", "100"), ("4", "xy", "1"), ("5", "y", "7")] {
        put_row(&client, p, r1, r2).await;
    }
    let cases: [(&str, Values, &[&str]); 7] = [
        ("h1 = :h1 AND h2 = :h2 AND r1 = :r1", vec![(":r1", s("x"))], &["1", "2", "3"]),
        ("h1 = :h1 AND h2 = :h2 AND r1 = :r1 AND r2 = :r2", vec![(":r1", s("x")), (":r2", n("50"))], &["2"]),
        ("h1 = :h1 AND h2 = :h2 AND r1 = :r1 AND r2 > :r2", vec![(":r1", s("x")), (":r2", n("5"))], &["2", "3"]),
        ("h1 = :h1 AND h2 = :h2 AND r1 = :r1 AND r2 <= :r2", vec![(":r1", s("x")), (":r2", n("50"))], &["1", "2"]),
        (
            "h1 = :h1 AND h2 = :h2 AND r1 = :r1 AND r2 BETWEEN :lo AND :hi",
            vec![(":r1", s("x")), (":lo", n("6")), (":hi", n("100"))],
            &["2", "3"],
        ),
        ("h1 = :h1 AND h2 = :h2 AND begins_with(r1, :r1)", vec![(":r1", s("x"))], &["1", "2", "3", "4"]),
        ("h1 = :h1 AND h2 = :h2 AND r1 > :r1", vec![(":r1", s("xy"))], &["5"]),
    ];
    for (condition, values, expected) in cases {
        assert_eq!(ps(&query(&client, condition, &values).await.unwrap()), expected, "{condition}");
    }
    // Conditions may come in any order in the expression; the key schema orders them.
    let reordered =
        query(&client, "r2 = :r2 AND h2 = :h2 AND r1 = :r1 AND h1 = :h1", &[(":r1", s("x")), (":r2", n("5"))]).await;
    assert_eq!(ps(&reordered.unwrap()), ["1"]);

    let skipped = query(&client, "h1 = :h1 AND h2 = :h2 AND r2 = :r2", &[(":r2", n("5"))]).await;
    assert_eq!(skipped.unwrap_err(), range_rule("r1"));
    let not_last =
        query(&client, "h1 = :h1 AND h2 = :h2 AND r1 > :r1 AND r2 = :r2", &[(":r1", s("x")), (":r2", n("5"))]).await;
    assert_eq!(not_last.unwrap_err(), range_rule("r1"));
    let prefix_not_last = query(
        &client,
        "h1 = :h1 AND h2 = :h2 AND begins_with(r1, :r1) AND r2 = :r2",
        &[(":r1", s("x")), (":r2", n("5"))],
    )
    .await;
    assert_eq!(prefix_not_last.unwrap_err(), range_rule("r1"));
    let prefix_of_number = query(
        &client,
        "h1 = :h1 AND h2 = :h2 AND r1 = :r1 AND begins_with(r2, :r2)",
        &[(":r1", s("x")), (":r2", s("1"))],
    )
    .await;
    assert!(prefix_of_number.unwrap_err().contains("operator or function: begins_with, operand type: N"));
}

#[tokio::test(start_paused = true)]
async fn results_come_in_sort_key_order_attribute_by_attribute() {
    let fake = two_by_two();
    let client = fake.client();
    for (p, r1, r2) in [("1", "b", "100"), ("2", "a", "1000"), ("3", "b", "5"), ("4", "a", "50"), ("5", "b", "-1")] {
        put_row(&client, p, r1, r2).await;
    }
    let forward = ps(&query(&client, "h1 = :h1 AND h2 = :h2", &[]).await.unwrap());
    // r1 first, then r2 as a number.
    assert_eq!(forward, ["4", "2", "5", "3", "1"]);
    let backward = partition_query(&client).scan_index_forward(false).send().await.unwrap();
    assert_eq!(ps(backward.items()), ["1", "3", "5", "2", "4"]);
}

#[tokio::test(start_paused = true)]
async fn pages_resume_from_a_last_evaluated_key_with_every_key_attribute() {
    let fake = two_by_two();
    let client = fake.client();
    for i in 0..7 {
        put_row(&client, &format!("p{i}"), &format!("r{}", i % 3), &i.to_string()).await;
    }
    let mut seen = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let page = partition_query(&client).limit(2).set_exclusive_start_key(start.take()).send().await.unwrap();
        seen.extend(ps(page.items()));
        match page.last_evaluated_key {
            Some(last) => {
                let mut names: Vec<&String> = last.keys().collect();
                names.sort();
                assert_eq!(names, ["h1", "h2", "p", "r1", "r2"]);
                start = Some(last);
            }
            None => break,
        }
    }
    let all = ps(&query(&client, "h1 = :h1 AND h2 = :h2", &[]).await.unwrap());
    assert_eq!(seen, all);
    assert_eq!(all.len(), 7);

    // A Scan of the index pages the same way, one item at a time.
    let mut scanned = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let page = client.scan().table_name("Matches").index_name("idx").limit(1).set_exclusive_start_key(start.take());
        let page = page.send().await.unwrap();
        scanned.extend(ps(page.items()));
        match page.last_evaluated_key {
            Some(last) => start = Some(last),
            None => break,
        }
    }
    assert_eq!(scanned, all);

    // A starting key without one of the index's key attributes is refused.
    let mut incomplete: Item = [("p", s("p0")), ("h1", s("a")), ("r1", s("r0")), ("r2", n("0"))]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    let error = partition_query(&client).set_exclusive_start_key(Some(incomplete.clone())).send().await.unwrap_err();
    let (code, message) = sdk_error(error.into_service_error());
    assert_eq!((code.as_str(), message.as_str()), ("ValidationException", "The provided starting key is invalid"));
    // One from another partition cannot restart this query.
    incomplete.insert("h2".into(), s("zz"));
    let error = partition_query(&client).set_exclusive_start_key(Some(incomplete)).send().await.unwrap_err();
    let (_, message) = sdk_error(error.into_service_error());
    assert!(message.starts_with("The provided starting key is outside query boundaries"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn a_filter_may_not_name_a_key_attribute_of_the_index() {
    let fake = two_by_two();
    let client = fake.client();
    put(&client, &[("p", s("1")), ("h1", s("a")), ("h2", s("b")), ("r1", s("x")), ("r2", n("1")), ("c", s("red"))])
        .await;
    put(&client, &[("p", s("2")), ("h1", s("a")), ("h2", s("b")), ("r1", s("y")), ("r2", n("1")), ("c", s("blue"))])
        .await;
    for (name, filter) in [("h2", "h2 = :f"), ("r1", "r1 = :f")] {
        let error = client
            .query()
            .table_name("Matches")
            .index_name("idx")
            .key_condition_expression("h1 = :h1 AND h2 = :h2")
            .filter_expression(filter)
            .expression_attribute_values(":h1", s("a"))
            .expression_attribute_values(":h2", s("b"))
            .expression_attribute_values(":f", s("x"))
            .send()
            .await
            .unwrap_err();
        let (_, message) = sdk_error(error.into_service_error());
        assert_eq!(
            message,
            format!("Filter Expression can only contain non-primary key attributes: Primary key attribute: {name}")
        );
    }
    // The table's own key and other attributes may be filtered on.
    for (filter, value, expected) in [("c = :f", "red", "1"), ("p = :f", "2", "2")] {
        let out = client
            .query()
            .table_name("Matches")
            .index_name("idx")
            .key_condition_expression("h1 = :h1 AND h2 = :h2")
            .filter_expression(filter)
            .expression_attribute_values(":h1", s("a"))
            .expression_attribute_values(":h2", s("b"))
            .expression_attribute_values(":f", s(value))
            .send()
            .await
            .unwrap();
        assert_eq!(ps(out.items()), [expected]);
    }
}

#[tokio::test(start_paused = true)]
async fn the_legacy_key_conditions_query_a_multi_attribute_key_by_the_same_rules() {
    let fake = two_by_two();
    let client = fake.client();
    put_row(&client, "1", "x", "1").await;
    put_row(&client, "2", "y", "2").await;
    let condition = |operator: ComparisonOperator, value: AttributeValue| {
        Condition::builder().comparison_operator(operator).attribute_value_list(value).build().unwrap()
    };
    let found = client
        .query()
        .table_name("Matches")
        .index_name("idx")
        .key_conditions("h1", condition(ComparisonOperator::Eq, s("a")))
        .key_conditions("h2", condition(ComparisonOperator::Eq, s("b")))
        .key_conditions("r1", condition(ComparisonOperator::Gt, s("x")))
        .send()
        .await
        .unwrap();
    assert_eq!(ps(found.items()), ["2"]);
    let error = client
        .query()
        .table_name("Matches")
        .index_name("idx")
        .key_conditions("h1", condition(ComparisonOperator::Eq, s("a")))
        .key_conditions("r1", condition(ComparisonOperator::Eq, s("x")))
        .send()
        .await
        .unwrap_err();
    let (code, message) = sdk_error(error.into_service_error());
    assert_eq!(code, "ValidationException");
    assert_eq!(message, HASH_RULE_H2);
}

#[tokio::test(start_paused = true)]
async fn update_table_adds_a_multi_attribute_index_over_the_items_already_there() {
    let fake = FakeDynamoDb::new();
    ok(
        &fake,
        "CreateTable",
        json!({"TableName": "Matches", "KeySchema": key_schema(&["p"], &[]), "AttributeDefinitions": definitions(&[("p", "S")]),
               "BillingMode": "PAY_PER_REQUEST"}),
    );
    let client = fake.client();
    put_row(&client, "1", "x", "2").await;
    put_row(&client, "2", "x", "1").await;
    put(&client, &[("p", s("3")), ("h1", s("a")), ("h2", s("b")), ("r1", s("x")), ("r2", s("not a number"))]).await;
    ok(
        &fake,
        "UpdateTable",
        json!({"TableName": "Matches",
               "AttributeDefinitions": definitions(&[("h1", "S"), ("h2", "S"), ("r1", "S"), ("r2", "N")]),
               "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "idx",
                   "KeySchema": key_schema(&["h1", "h2"], &["r1", "r2"]), "Projection": {"ProjectionType": "ALL"}}}]}),
    );
    // The item whose r2 has another type than the index's is left out.
    assert_eq!(ps(&query(&client, "h1 = :h1 AND h2 = :h2", &[]).await.unwrap()), ["2", "1"]);
}
