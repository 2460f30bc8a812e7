//! Query through the SDK: sort order by type, ranges of the sort key, direction, Limit and
//! pagination, the 1 MB page, Select, projections, filters and consumed capacity.

mod support;

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, Select};
use dynalease_fake::FakeDynamoDb;
use serde_json::json;
use support::{column, invalid, n, ok, put_all, s, sdk_error, suite_tables};

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    suite_tables(&fake);
    fake
}

fn sort_keys(items: &[HashMap<String, AttributeValue>], name: &str) -> Vec<String> {
    items
        .iter()
        .map(|item| match &item[name] {
            AttributeValue::S(v) | AttributeValue::N(v) => v.clone(),
            AttributeValue::B(b) => format!("{:?}", b.as_ref()),
            other => format!("{other:?}"),
        })
        .collect()
}

async fn query_all(client: &Client, table: &str, forward: bool) -> Vec<HashMap<String, AttributeValue>> {
    client
        .query()
        .table_name(table)
        .key_condition_expression("a = :a")
        .expression_attribute_values(":a", s("p"))
        .scan_index_forward(forward)
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .items
        .unwrap_or_default()
}

#[tokio::test(start_paused = true)]
async fn strings_sort_bytewise_and_numbers_by_value_in_both_directions() {
    let fake = fake();
    let client = fake.client();
    let strings = ["1", "2", "10", "a", "b", "aa", "ab", "A", "B"];
    put_all(&fake, "range", &strings.map(|b| json!({"a": {"S": "p"}, "b": {"S": b}})));
    assert_eq!(
        sort_keys(&query_all(&client, "range", true).await, "b"),
        ["1", "10", "2", "A", "B", "a", "aa", "ab", "b"]
    );
    assert_eq!(
        sort_keys(&query_all(&client, "range", false).await, "b"),
        ["b", "ab", "aa", "a", "B", "A", "2", "10", "1"]
    );
    let numbers = ["0", "99.1", "10.9", "10.1", "9.1", "9", "1.9", "1.1", "1", "0.9", "-0.01", "-1", "-1.01", "-99.1"];
    put_all(&fake, "rangeN", &numbers.map(|b| json!({"a": {"S": "p"}, "b": {"N": b}})));
    assert_eq!(
        sort_keys(&query_all(&client, "rangeN", true).await, "b"),
        ["-99.1", "-1.01", "-1", "-0.01", "0", "0.9", "1", "1.1", "1.9", "9", "9.1", "10.1", "10.9", "99.1"]
    );
}

#[tokio::test(start_paused = true)]
async fn binary_sort_keys_sort_bytewise() {
    let fake = fake();
    let client = fake.client();
    let values: [&[u8]; 5] = [&[0xd4, 0xfc, 0xb9, 0xc4], &[0x24], &[0xdb], &[0x70, 0x07], &[0x11, 0x1f]];
    for value in values {
        client
            .put_item()
            .table_name("rangeB")
            .item("a", s("p"))
            .item("b", AttributeValue::B(value.to_vec().into()))
            .send()
            .await
            .unwrap();
    }
    let got: Vec<Vec<u8>> =
        query_all(&client, "rangeB", true).await.iter().map(|i| i["b"].as_b().unwrap().as_ref().to_vec()).collect();
    let mut expected: Vec<Vec<u8>> = values.iter().map(|v| v.to_vec()).collect();
    expected.sort();
    assert_eq!(got, expected);
}

#[tokio::test(start_paused = true)]
async fn every_sort_key_condition_selects_its_range() {
    let fake = fake();
    let client = fake.client();
    put_all(&fake, "range", &["aa", "ab", "abc", "ac", "aca", "b"].map(|b| json!({"a": {"S": "p"}, "b": {"S": b}})));
    put_all(&fake, "range", &[json!({"a": {"S": "other"}, "b": {"S": "ab"}})]);
    for (condition, expected) in [
        ("b = :x", vec!["ab"]),
        ("b < :x", vec!["aa"]),
        ("b <= :x", vec!["aa", "ab"]),
        ("b > :x", vec!["abc", "ac", "aca", "b"]),
        ("b >= :x", vec!["ab", "abc", "ac", "aca", "b"]),
        ("begins_with(b, :x)", vec!["ab", "abc"]),
        ("b BETWEEN :x AND :y", vec!["ab", "abc", "ac"]),
    ] {
        for forward in [true, false] {
            let mut query = client
                .query()
                .table_name("range")
                .key_condition_expression(format!("a = :a AND {condition}"))
                .expression_attribute_values(":a", s("p"))
                .expression_attribute_values(":x", s("ab"))
                .scan_index_forward(forward);
            if condition.contains(":y") {
                query = query.expression_attribute_values(":y", s("ac"));
            }
            let got = sort_keys(&query.send().await.unwrap().items.unwrap(), "b");
            let mut expected = expected.clone();
            if !forward {
                expected.reverse();
            }
            assert_eq!(got, expected, "{condition} forward={forward}");
        }
    }
}

#[tokio::test(start_paused = true)]
async fn pages_follow_each_other_without_gaps_or_repeats_in_both_directions() {
    let fake = fake();
    let client = fake.client();
    let items: Vec<_> =
        (0..23).map(|i| json!({"a": {"S": "p"}, "b": {"S": format!("{i:03}")}, "f": {"N": i.to_string()}})).collect();
    put_all(&fake, "range", &items);
    for forward in [true, false] {
        let mut seen = Vec::new();
        let mut start = None;
        let mut pages = 0;
        loop {
            let page = client
                .query()
                .table_name("range")
                .key_condition_expression("a = :a")
                .filter_expression("f <> :three")
                .expression_attribute_values(":a", s("p"))
                .expression_attribute_values(":three", n("3"))
                .scan_index_forward(forward)
                .limit(5)
                .set_exclusive_start_key(start)
                .send()
                .await
                .unwrap();
            pages += 1;
            assert!(page.scanned_count <= 5);
            seen.extend(sort_keys(page.items(), "b"));
            start = page.last_evaluated_key;
            if start.is_none() {
                break;
            }
        }
        let mut expected: Vec<String> = (0..23).filter(|i| *i != 3).map(|i| format!("{i:03}")).collect();
        if !forward {
            expected.reverse();
        }
        assert_eq!(seen, expected);
        assert_eq!(pages, 5, "23 items in pages of 5: the fifth page ends the read");
    }
}

#[tokio::test(start_paused = true)]
async fn limit_counts_items_read_not_items_returned_and_reports_where_it_stopped() {
    let fake = fake();
    put_all(
        &fake,
        "range",
        &[
            json!({"a": {"S": "p"}, "b": {"S": "1"}}),
            json!({"a": {"S": "p"}, "b": {"S": "2"}}),
            json!({"a": {"S": "p"}, "b": {"S": "3"}, "d": {"S": "d"}}),
            json!({"a": {"S": "p"}, "b": {"S": "4"}}),
        ],
    );
    let answer = ok(
        &fake,
        "Query",
        json!({
            "TableName": "range",
            "KeyConditions": {"a": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}, "b": {"ComparisonOperator": "GE", "AttributeValueList": [{"S": "2"}]}},
            "QueryFilter": {"d": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "d"}]}},
            "Limit": 2,
        }),
    );
    assert_eq!(
        answer,
        json!({
            "Items": [{"a": {"S": "p"}, "b": {"S": "3"}, "d": {"S": "d"}}],
            "Count": 1,
            "ScannedCount": 2,
            "LastEvaluatedKey": {"a": {"S": "p"}, "b": {"S": "3"}},
        })
    );
    let counted = ok(
        &fake,
        "Query",
        json!({"TableName": "range", "KeyConditionExpression": "a = :a", "ExpressionAttributeValues": {":a": {"S": "p"}}, "Select": "COUNT", "Limit": 4}),
    );
    assert_eq!(counted, json!({"Count": 4, "ScannedCount": 4, "LastEvaluatedKey": {"a": {"S": "p"}, "b": {"S": "4"}}}));
    let all = ok(
        &fake,
        "Query",
        json!({"TableName": "range", "KeyConditionExpression": "a = :a", "ExpressionAttributeValues": {":a": {"S": "p"}}, "Limit": 5}),
    );
    assert!(all.get("LastEvaluatedKey").is_none(), "fewer items than the limit: the read is complete");
}

#[tokio::test(start_paused = true)]
async fn a_page_stops_after_one_megabyte_read() {
    let fake = fake();
    let client = fake.client();
    let filler = "x".repeat(100 * 1024);
    for i in 0..15 {
        client
            .put_item()
            .table_name("range")
            .item("a", s("big"))
            .item("b", s(&format!("{i:02}")))
            .item("filler", s(&filler))
            .send()
            .await
            .unwrap();
    }
    let page = client
        .query()
        .table_name("range")
        .key_condition_expression("a = :a")
        .expression_attribute_values(":a", s("big"))
        .select(Select::Count)
        .send()
        .await
        .unwrap();
    assert_eq!(page.scanned_count, 11, "ten items of 100 KB stay under 1 MB, the eleventh crosses it");
    let last = page.last_evaluated_key.expect("a key to continue from");
    assert_eq!(last["b"], s("10"));
    let rest = client
        .query()
        .table_name("range")
        .key_condition_expression("a = :a")
        .expression_attribute_values(":a", s("big"))
        .exclusive_start_key("a", s("big"))
        .exclusive_start_key("b", s("10"))
        .send()
        .await
        .unwrap();
    assert_eq!(rest.count, 4);
    assert!(rest.last_evaluated_key.is_none());
}

#[tokio::test(start_paused = true)]
async fn projections_return_the_paths_asked_for_and_count_returns_no_items() {
    let fake = fake();
    put_all(
        &fake,
        "range",
        &[
            json!({"a": {"S": "p"}, "b": {"S": "b1"}, "e": {"M": {"a": {"S": "x"}, "d": {"S": "y"}}}, "f": {"L": [{"S": "d1"}, {"S": "d2"}, {"S": "d3"}]}}),
            json!({"a": {"S": "p"}, "b": {"S": "b2"}}),
            json!({"a": {"S": "p"}, "b": {"S": "b3"}, "d": {"S": "d3"}}),
        ],
    );
    let answer = ok(
        &fake,
        "Query",
        json!({
            "TableName": "range",
            "KeyConditionExpression": "a = :a",
            "ExpressionAttributeValues": {":a": {"S": "p"}},
            "ExpressionAttributeNames": {"#f": "f", "#e": "e"},
            "ProjectionExpression": "#f[2], #f[0], #e.d, e.a, d",
        }),
    );
    assert_eq!(
        answer["Items"],
        json!([
            {"e": {"M": {"a": {"S": "x"}, "d": {"S": "y"}}}, "f": {"L": [{"S": "d1"}, {"S": "d3"}]}},
            {},
            {"d": {"S": "d3"}},
        ])
    );
    let legacy = ok(
        &fake,
        "Query",
        json!({
            "TableName": "range",
            "KeyConditions": {"a": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
            "AttributesToGet": ["b", "d"],
        }),
    );
    assert_eq!(column(&legacy, "b"), ["b1", "b2", "b3"]);
    assert_eq!(legacy["Items"][1], json!({"b": {"S": "b2"}}));
    let counted = ok(
        &fake,
        "Query",
        json!({"TableName": "range", "KeyConditionExpression": "a = :a", "ExpressionAttributeValues": {":a": {"S": "p"}}, "Select": "COUNT"}),
    );
    assert_eq!(counted, json!({"Count": 3, "ScannedCount": 3}));
}

#[tokio::test(start_paused = true)]
async fn filters_may_not_name_the_key_and_key_attributes_are_scalars() {
    let fake = fake();
    let query = |table: &str, filter: &str| {
        invalid(
            &fake,
            "Query",
            json!({"TableName": table, "KeyConditionExpression": "a = :a", "FilterExpression": filter, "ExpressionAttributeValues": {":a": {"S": "1"}, ":b": {"N": "1"}}}),
        )
    };
    for filter in ["attribute_exists(a.b) AND b = :b", "a = :b", "a[1] = :b"] {
        assert_eq!(
            query("hash", filter),
            "Filter Expression can only contain non-primary key attributes: Primary key attribute: a"
        );
    }
    assert_eq!(
        query("range", "b = :b"),
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: b"
    );
    for filter in ["attribute_exists(d.c) AND c = :b", "d[1] = :b"] {
        assert_eq!(
            query("range", filter),
            "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: IndexKey: d"
        );
    }
    let message = invalid(
        &fake,
        "Query",
        json!({
            "TableName": "hash",
            "KeyConditions": {"a": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}},
            "QueryFilter": {"a": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}},
        }),
    );
    assert_eq!(message, "QueryFilter can only contain non-primary key attributes: Primary key attribute: a");
}

#[tokio::test(start_paused = true)]
async fn exclusive_start_keys_are_checked_against_the_key_and_the_condition() {
    let fake = fake();
    let query = |start: serde_json::Value, condition: &str, index: Option<&str>| {
        let mut body = json!({"TableName": "range", "KeyConditionExpression": condition, "ExpressionAttributeValues": {":a": {"S": "b"}}, "ExclusiveStartKey": start});
        if let Some(index) = index {
            body["IndexName"] = json!(index);
        }
        invalid(&fake, "Query", body)
    };
    assert_eq!(query(json!({"a": {"S": "a"}}), "a = :a", None), "The provided starting key is invalid");
    assert_eq!(
        query(json!({"a": {"N": "1"}, "z": {"S": "a"}}), "a = :a", None),
        "The provided key element does not match the schema"
    );
    assert_eq!(
        query(json!({"a": {"S": "a"}, "z": {"S": "1"}}), "a = :a", None),
        "The provided starting key is invalid"
    );
    assert_eq!(
        query(json!({"a": {"S": "a"}, "b": {"N": "1"}}), "a = :a", None),
        "The provided key element does not match the schema"
    );
    assert_eq!(
        query(json!({"a": {"S": "1"}, "b": {"N": "1"}, "c": {"S": "a"}}), "a = :a", Some("index1")),
        "The provided starting key is invalid: The provided key element does not match the schema"
    );
    assert_eq!(
        query(json!({"x": {"N": "1"}, "y": {"N": "1"}, "c": {"S": "a"}}), "c = :a", Some("index3")),
        "The provided starting key is invalid: The provided key element does not match the schema"
    );
    assert_eq!(
        query(json!({"a": {"S": "a"}, "b": {"S": "a"}}), "a = :a", None),
        "The provided starting key is outside query boundaries based on provided conditions"
    );
    assert_eq!(
        query(json!({"a": {"S": "a"}, "b": {"S": "a"}}), "a = :a and b > :a", None),
        "The provided starting key does not match the range key predicate"
    );
    assert_eq!(
        query(json!({"a": {"S": "a"}, "b": {"S": "a"}}), "a = :a and b < :a", None),
        "The query can return at most one row and cannot be restarted"
    );
    let message = invalid(
        &fake,
        "Query",
        json!({
            "TableName": "abc",
            "KeyConditions": {"a": {"ComparisonOperator": "EQ"}},
            "ExclusiveStartKey": {"a": {"SS": []}},
        }),
    );
    assert_eq!(
        message,
        "The provided starting key is invalid: One or more parameter values were invalid: An string set  may not be empty"
    );
    let message = invalid(
        &fake,
        "Query",
        json!({"TableName": "abc", "KeyConditions": {"a": {"ComparisonOperator": "EQ"}}, "ExclusiveStartKey": {"a": {"N": "1e126"}}}),
    );
    assert_eq!(message, "Number overflow. Attempting to store a number with magnitude larger than supported range");
}

#[tokio::test(start_paused = true)]
async fn consumed_capacity_is_sized_before_the_filter_and_the_projection() {
    let fake = fake();
    let client = fake.client();
    for i in 0..6 {
        client
            .put_item()
            .table_name("range")
            .item("a", s("cc"))
            .item("b", s(&format!("s{i}")))
            .item("keep", s(if i == 0 { "yes" } else { "no" }))
            .item("filler", s(&"x".repeat(1000)))
            .send()
            .await
            .unwrap();
    }
    let units = |filter: Option<&str>, projection: Option<&str>, consistent: bool| {
        let mut query = client
            .query()
            .table_name("range")
            .key_condition_expression("a = :a")
            .expression_attribute_values(":a", s("cc"))
            .consistent_read(consistent)
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        if let Some(filter) = filter {
            query = query.filter_expression(filter).expression_attribute_values(":k", s("yes"));
        }
        if let Some(projection) = projection {
            query = query.projection_expression(projection);
        }
        async move { query.send().await.unwrap().consumed_capacity.unwrap().capacity_units.unwrap() }
    };
    let plain = units(None, None, true).await;
    assert_eq!(plain, 2.0, "six items of about 1 KB: two started 4 KB units");
    assert_eq!(units(Some("keep = :k"), None, true).await, plain);
    assert_eq!(units(None, Some("b"), true).await, plain);
    assert_eq!(units(None, None, false).await, 1.0, "eventually consistent: half");
    let empty = client
        .query()
        .table_name("range")
        .key_condition_expression("a = :a")
        .expression_attribute_values(":a", s("none"))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .unwrap();
    assert_eq!(empty.consumed_capacity.unwrap().capacity_units, Some(0.5), "an empty read still costs half a unit");
}

#[tokio::test(start_paused = true)]
async fn an_unknown_table_or_index_is_reported() {
    let fake = fake();
    let client = fake.client();
    let error = client
        .query()
        .table_name("missing")
        .key_condition_expression("a = :a")
        .expression_attribute_values(":a", s("x"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(error.is_resource_not_found_exception());
    let error = client
        .query()
        .table_name("hash")
        .index_name("whatever")
        .key_condition_expression("a = :a")
        .expression_attribute_values(":a", s("x"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        sdk_error(error),
        ("ValidationException".to_owned(), "The table does not have the specified index: whatever".to_owned())
    );
}
