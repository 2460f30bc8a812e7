//! Scan through the SDK: DynamoDB's item order, parallel segments that cover every item once,
//! pagination, filters, projections, starting keys and consumed capacity.

mod support;

use std::collections::{BTreeSet, HashMap};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use dynalease_fake::FakeDynamoDb;
use serde_json::json;
use support::{column, invalid, ok, put_all, s, suite_tables};

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    suite_tables(&fake);
    fake
}

fn keys(items: &[HashMap<String, AttributeValue>]) -> Vec<String> {
    items
        .iter()
        .map(|item| match &item["a"] {
            AttributeValue::S(v) | AttributeValue::N(v) => v.clone(),
            other => format!("{other:?}"),
        })
        .collect()
}

async fn scan_all(client: &Client, table: &str, segment: Option<(i32, i32)>, limit: Option<i32>) -> Vec<String> {
    let mut seen = Vec::new();
    let mut start = None;
    loop {
        let mut scan = client.scan().table_name(table).set_exclusive_start_key(start).set_limit(limit);
        if let Some((segment, total)) = segment {
            scan = scan.segment(segment).total_segments(total);
        }
        let page = scan.send().await.unwrap();
        seen.extend(keys(page.items()));
        start = page.last_evaluated_key;
        if start.is_none() {
            return seen;
        }
    }
}

#[tokio::test(start_paused = true)]
async fn items_come_back_in_dynamodb_hash_order() {
    let fake = fake();
    let mut items: Vec<_> = (0..10).map(|i| json!({"a": {"S": i.to_string()}})).collect();
    for key in ["aardman", "hello", "zapf", "äáöü"] {
        items.push(json!({"a": {"S": key}}));
    }
    put_all(&fake, "hash", &items);
    let answer = ok(&fake, "Scan", json!({"TableName": "hash"}));
    assert_eq!(
        column(&answer, "a"),
        ["2", "8", "9", "1", "6", "hello", "0", "5", "4", "äáöü", "aardman", "7", "3", "zapf"]
    );
    let numbers: Vec<_> = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "-0.09", "999.9", "0.012345", "-999.9"]
        .map(|n| json!({"a": {"N": n}}))
        .to_vec();
    put_all(&fake, "hashN", &numbers);
    let answer = ok(&fake, "Scan", json!({"TableName": "hashN"}));
    assert_eq!(
        column(&answer, "a"),
        ["7", "999.9", "8", "3", "2", "-999.9", "9", "4", "-0.09", "6", "1", "0", "0.012345", "5"]
    );
}

#[tokio::test(start_paused = true)]
async fn segments_hold_the_items_dynamodb_puts_in_them() {
    let fake = fake();
    put_all(&fake, "hash", &["3635", "228", "1668", "3435"].map(|a| json!({"a": {"S": a}})));
    let segment =
        |n: u32| column(&ok(&fake, "Scan", json!({"TableName": "hash", "Segment": n, "TotalSegments": 4096})), "a");
    let first: BTreeSet<String> = segment(0).into_iter().collect();
    assert_eq!(first, BTreeSet::from(["3635".to_owned(), "228".to_owned()]));
    assert_eq!(segment(1), ["1668"]);
    assert_eq!(segment(4), ["3435"]);
    put_all(&fake, "hashN", &["251", "2388"].map(|a| json!({"a": {"N": a}})));
    let numbers =
        |n: u32| column(&ok(&fake, "Scan", json!({"TableName": "hashN", "Segment": n, "TotalSegments": 4096})), "a");
    assert_eq!(numbers(1), ["251"]);
    assert_eq!(numbers(4095), ["2388"]);
}

#[tokio::test(start_paused = true)]
async fn parallel_segments_cover_every_item_exactly_once_whatever_their_number() {
    let fake = fake();
    let client = fake.client();
    let items: Vec<_> = (0..300).map(|i| json!({"a": {"S": format!("item-{i}")}})).collect();
    put_all(&fake, "hash", &items);
    let whole = scan_all(&client, "hash", None, None).await;
    assert_eq!(whole.len(), 300);
    for total in [1, 2, 3, 7, 64, 5000] {
        let mut union = Vec::new();
        for segment in 0..total {
            union.extend(scan_all(&client, "hash", Some((segment, total)), Some(17)).await);
        }
        assert_eq!(union.len(), 300, "total {total}");
        let distinct: BTreeSet<_> = union.iter().collect();
        assert_eq!(distinct.len(), 300, "total {total}: no item twice");
        if total < 4096 {
            assert_eq!(union, whole, "segments in order concatenate to the whole scan (total {total})");
        }
    }
    let halves: Vec<Vec<String>> =
        vec![scan_all(&client, "hash", Some((0, 2)), None).await, scan_all(&client, "hash", Some((1, 2)), None).await];
    for (quarter, half) in [(0, 0), (1, 0), (2, 1), (3, 1)] {
        for key in scan_all(&client, "hash", Some((quarter, 4)), None).await {
            assert!(halves[half].contains(&key), "quarter {quarter} lies inside half {half}");
        }
    }
}

#[tokio::test(start_paused = true)]
async fn pagination_is_stable_and_limit_counts_scanned_items() {
    let fake = fake();
    let client = fake.client();
    let items: Vec<_> = (0..50).map(|i| json!({"a": {"S": format!("k{i}")}, "even": {"BOOL": i % 2 == 0}})).collect();
    put_all(&fake, "hash", &items);
    let whole = scan_all(&client, "hash", None, None).await;
    assert_eq!(scan_all(&client, "hash", None, Some(7)).await, whole);
    assert_eq!(scan_all(&client, "hash", None, Some(1)).await, whole);
    let page = client
        .scan()
        .table_name("hash")
        .filter_expression("even = :t")
        .expression_attribute_values(":t", AttributeValue::Bool(true))
        .limit(10)
        .send()
        .await
        .unwrap();
    assert_eq!(page.scanned_count, 10);
    assert!(page.count < 10 && page.count > 0);
    assert_eq!(page.last_evaluated_key.unwrap()["a"], s(&whole[9]));
    let exact = client.scan().table_name("hash").limit(50).send().await.unwrap();
    assert!(exact.last_evaluated_key.is_some(), "reaching the limit exactly still gives a key to go on from");
    let more = client.scan().table_name("hash").limit(51).send().await.unwrap();
    assert!(more.last_evaluated_key.is_none());
}

#[tokio::test(start_paused = true)]
async fn filters_and_projections_shape_what_a_scan_returns() {
    let fake = fake();
    put_all(
        &fake,
        "hash",
        &[
            json!({"a": {"S": "x1"}, "b": {"N": "1"}, "c": {"S": "keep"}}),
            json!({"a": {"S": "x2"}, "b": {"N": "2"}, "c": {"S": "keep"}}),
            json!({"a": {"S": "x3"}, "b": {"N": "3"}, "c": {"S": "drop"}}),
        ],
    );
    let answer = ok(
        &fake,
        "Scan",
        json!({
            "TableName": "hash",
            "FilterExpression": "c = :keep AND b >= :two",
            "ExpressionAttributeValues": {":keep": {"S": "keep"}, ":two": {"N": "2"}},
            "ProjectionExpression": "b",
        }),
    );
    assert_eq!(answer["Items"], json!([{"b": {"N": "2"}}]));
    assert_eq!(answer["ScannedCount"], 3);
    let legacy = ok(
        &fake,
        "Scan",
        json!({
            "TableName": "hash",
            "ScanFilter": {"c": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "keep"}]}, "b": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}},
            "ConditionalOperator": "OR",
            "Select": "COUNT",
        }),
    );
    assert_eq!(legacy, json!({"Count": 3, "ScannedCount": 3}));
}

#[tokio::test(start_paused = true)]
async fn starting_keys_are_checked_against_the_key_and_the_segment() {
    let fake = fake();
    let message = |body: serde_json::Value| invalid(&fake, "Scan", body);
    for start in
        [json!({}), json!({"b": {"S": "a"}}), json!({"a": {"N": "1"}}), json!({"a": {"S": "a"}, "b": {"S": "a"}})]
    {
        assert_eq!(
            message(json!({"TableName": "hash", "ExclusiveStartKey": start})),
            "The provided starting key is invalid: The provided key element does not match the schema"
        );
    }
    assert_eq!(
        message(
            json!({"TableName": "range", "IndexName": "index1", "ExclusiveStartKey": {"a": {"S": "a"}, "c": {"S": "a"}}})
        ),
        "The provided starting key is invalid"
    );
    assert_eq!(
        message(
            json!({"TableName": "range", "IndexName": "index1", "ExclusiveStartKey": {"a": {"S": "a"}, "b": {"S": "a"}, "c": {"N": "1"}}})
        ),
        "The provided key element does not match the schema"
    );
    assert_eq!(
        message(
            json!({"TableName": "range", "IndexName": "index4", "Select": "ALL_ATTRIBUTES", "ExclusiveStartKey": {"x": {"N": "1"}, "y": {"N": "1"}, "c": {"S": "a"}, "d": {"S": "a"}}})
        ),
        "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index index4 because its projection type is not ALL"
    );
    put_all(&fake, "hash", &(0..10).map(|i| json!({"a": {"S": i.to_string()}})).collect::<Vec<_>>());
    let second = ok(&fake, "Scan", json!({"TableName": "hash", "Segment": 1, "TotalSegments": 2}));
    let first_key = second["Items"][0]["a"].clone();
    assert_eq!(
        message(json!({"TableName": "hash", "Segment": 0, "TotalSegments": 2, "ExclusiveStartKey": {"a": first_key}})),
        "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: 2 Segment: 0"
    );
    assert_eq!(
        message(
            json!({"TableName": "hash", "FilterExpression": "attribute_exists(#a.b)", "ExpressionAttributeNames": {"#a": "a"}})
        ),
        "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: a"
    );
    assert_eq!(
        message(json!({"TableName": "hash", "Segment": 5, "TotalSegments": 5})),
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 5 is not less \
         than TotalSegments: 5"
    );
}

#[tokio::test(start_paused = true)]
async fn consumed_capacity_counts_what_was_read_not_what_was_returned() {
    let fake = fake();
    let client = fake.client();
    for i in 0..6 {
        client
            .put_item()
            .table_name("hash")
            .item("a", s(&format!("cc{i}")))
            .item("keep", s(if i == 0 { "yes" } else { "no" }))
            .item("filler", s(&"x".repeat(1500)))
            .send()
            .await
            .unwrap();
    }
    let units = |filter: bool| {
        let mut scan = client.scan().table_name("hash").return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        if filter {
            scan = scan
                .filter_expression("keep = :k")
                .expression_attribute_values(":k", s("yes"))
                .projection_expression("a");
        }
        async move { scan.send().await.unwrap().consumed_capacity.unwrap() }
    };
    let plain = units(false).await;
    let filtered = units(true).await;
    assert_eq!(plain.capacity_units, Some(1.5), "about 9 KB read eventually consistent: three 4 KB units, halved");
    assert_eq!(filtered.capacity_units, plain.capacity_units);
    assert_eq!(plain.table.unwrap().capacity_units, Some(1.5));
}

#[tokio::test(start_paused = true)]
async fn segments_of_an_index_cover_its_items_once() {
    let fake = fake();
    let client = fake.client();
    let items: Vec<_> = (0..120)
        .map(|i| json!({"a": {"S": format!("p{}", i % 9)}, "b": {"S": format!("{i}")}, "c": {"S": format!("c{}", i % 13)}}))
        .collect();
    put_all(&fake, "range", &items);
    let mut union = BTreeSet::new();
    let mut total_count = 0;
    for segment in 0..5 {
        let mut start = None;
        loop {
            let page = client
                .scan()
                .table_name("range")
                .index_name("index3")
                .segment(segment)
                .total_segments(5)
                .limit(11)
                .set_exclusive_start_key(start)
                .send()
                .await
                .unwrap();
            for item in page.items() {
                total_count += 1;
                union.insert(item["b"].as_s().unwrap().clone());
            }
            start = page.last_evaluated_key;
            if start.is_none() {
                break;
            }
        }
    }
    assert_eq!((total_count, union.len()), (120, 120));
}

#[tokio::test(start_paused = true)]
async fn two_fakes_given_the_same_writes_answer_reads_identically() {
    async fn run() -> Vec<serde_json::Value> {
        let fake = fake();
        let items: Vec<_> = (0..60)
            .map(|i| json!({"a": {"S": format!("k{}", i % 7)}, "b": {"S": format!("{i}")}, "c": {"S": "c"}, "d": {"S": format!("{}", i % 5)}, "m": {"M": {"x": {"N": i.to_string()}, "y": {"SS": ["q", "r"]}}}}))
            .collect();
        put_all(&fake, "range", &items);
        vec![
            ok(&fake, "Scan", json!({"TableName": "range", "Limit": 17})),
            ok(&fake, "Scan", json!({"TableName": "range", "IndexName": "index4", "Segment": 1, "TotalSegments": 3})),
            ok(
                &fake,
                "Query",
                json!({"TableName": "range", "IndexName": "index3", "KeyConditionExpression": "c = :c", "ExpressionAttributeValues": {":c": {"S": "c"}}, "Limit": 9}),
            ),
            ok(
                &fake,
                "BatchGetItem",
                json!({"RequestItems": {"range": {"Keys": [{"a": {"S": "k1"}, "b": {"S": "1"}}, {"a": {"S": "k2"}, "b": {"S": "2"}}]}}}),
            ),
        ]
    }
    let first = run().await;
    let second = run().await;
    assert_eq!(serde_json::to_string(&first).unwrap(), serde_json::to_string(&second).unwrap());
}
