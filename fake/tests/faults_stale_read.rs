//! `Fault::StaleRead`: eventually consistent reads that see the table, and its indexes, as they
//! were at one instant up to the rule's bound ago, on the fake's clock; strongly consistent
//! reads, transactions, conditions and writes that never do.

mod support;

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue, Get, KeysAndAttributes, ReturnConsumedCapacity, Select, TransactGetItem,
};
use dynalease_fake::{FakeDynamoDb, Fault, FaultRule, RequestRecord};
use serde_json::json;
use support::{n, ok, s};

const BOUND: Duration = Duration::from_secs(1);

type Item = HashMap<String, AttributeValue>;

fn stale() -> FaultRule {
    FaultRule::new(Fault::StaleRead(BOUND))
}

/// A fake with the table `Shop` (`pk`), started at a fixed time so that runs can be compared.
fn fake(seed: u64) -> FakeDynamoDb {
    let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let fake = FakeDynamoDb::builder().seed(seed).start_time(start).build();
    fake.create_table("Shop", "pk", None);
    fake
}

/// The table `Events` (`pk`, `sk` a number) with the global index `byGroup` (`g`, `rank` a
/// number; projecting `v`) and the local index `byV` (`pk`, `v`; projecting everything).
fn events(fake: &FakeDynamoDb) {
    ok(
        fake,
        "CreateTable",
        json!({"TableName": "Events", "BillingMode": "PAY_PER_REQUEST",
               "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                        {"AttributeName": "sk", "AttributeType": "N"},
                                        {"AttributeName": "g", "AttributeType": "S"},
                                        {"AttributeName": "rank", "AttributeType": "N"},
                                        {"AttributeName": "v", "AttributeType": "S"}],
               "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
               "GlobalSecondaryIndexes": [{"IndexName": "byGroup",
                   "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "rank", "KeyType": "RANGE"}],
                   "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["v"]}}],
               "LocalSecondaryIndexes": [{"IndexName": "byV",
                   "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "v", "KeyType": "RANGE"}],
                   "Projection": {"ProjectionType": "ALL"}}]}),
    );
}

async fn put(client: &Client, table: &str, item: &[(&str, AttributeValue)]) {
    let mut put = client.put_item().table_name(table);
    for (name, value) in item {
        put = put.item(*name, value.clone());
    }
    put.send().await.unwrap();
}

async fn put_shop(client: &Client, pk: &str, v: &str) {
    put(client, "Shop", &[("pk", s(pk)), ("v", s(v))]).await;
}

/// The `v` of the item `pk` of `Shop`, as a GetItem sees it.
async fn get_v(client: &Client, pk: &str, consistent: bool) -> Option<String> {
    let got = client.get_item().table_name("Shop").key("pk", s(pk)).consistent_read(consistent).send().await.unwrap();
    got.item.map(|item| text(&item, "v"))
}

fn text(item: &Item, name: &str) -> String {
    match item.get(name) {
        Some(AttributeValue::S(text)) => text.clone(),
        Some(AttributeValue::N(number)) => number.clone(),
        other => panic!("{name} is {other:?}"),
    }
}

fn last_record(fake: &FakeDynamoDb) -> RequestRecord {
    fake.request_log().pop().expect("a request was logged")
}

/// How long before the fake's present the last request's reads looked.
fn last_lag(fake: &FakeDynamoDb) -> Duration {
    let seen = last_record(fake).read_as_of.expect("the last read was stale");
    fake.now().duration_since(seen).expect("a stale read sees no instant after its own")
}

#[tokio::test(start_paused = true)]
async fn an_eventually_consistent_get_sees_the_old_value_within_the_lag_and_the_new_one_after() {
    let fake = fake(1);
    let client = fake.client();
    put_shop(&client, "a", "v1").await;
    tokio::time::advance(2 * BOUND).await;
    fake.inject(stale());
    put_shop(&client, "a", "v2").await;
    let written = fake.now();
    tokio::time::advance(Duration::from_millis(400)).await;

    let (mut old, mut new) = (0, 0);
    for _ in 0..40 {
        let seen = get_v(&client, "a", false).await;
        assert!(last_lag(&fake) <= BOUND);
        let record = last_record(&fake);
        assert_eq!(record.fault.as_deref(), Some("StaleRead"));
        if record.read_as_of.unwrap() < written {
            assert_eq!(seen.as_deref(), Some("v1"));
            old += 1;
        } else {
            assert_eq!(seen.as_deref(), Some("v2"));
            new += 1;
        }
    }
    assert!(old > 0 && new > 0, "lags of up to a second, 400 ms after the write: {old} old, {new} new");

    tokio::time::advance(BOUND).await;
    for _ in 0..20 {
        assert_eq!(get_v(&client, "a", false).await.as_deref(), Some("v2"), "the write is older than any lag");
    }
}

#[tokio::test(start_paused = true)]
async fn a_strongly_consistent_get_never_sees_the_past() {
    let fake = fake(2);
    let client = fake.client();
    put_shop(&client, "a", "v1").await;
    tokio::time::advance(2 * BOUND).await;
    fake.inject(stale());
    put_shop(&client, "a", "v2").await;
    put_shop(&client, "b", "v1").await;
    for _ in 0..20 {
        assert_eq!(get_v(&client, "a", true).await.as_deref(), Some("v2"));
        assert_eq!(get_v(&client, "b", true).await.as_deref(), Some("v1"));
        let record = last_record(&fake);
        assert_eq!((record.fault, record.read_as_of), (None, None));
    }
    assert_eq!(get_v(&client, "b", false).await, None, "the same read, eventually consistent, is stale");
}

/// The items of the group `g` of `byGroup`, in rank order, as `(pk, v)`, with the attributes
/// each has.
async fn group(client: &Client, g: &str) -> Vec<(String, String, Vec<String>)> {
    let query = client
        .query()
        .table_name("Events")
        .index_name("byGroup")
        .key_condition_expression("g = :g")
        .expression_attribute_values(":g", s(g));
    let items = query.send().await.unwrap().items.unwrap_or_default();
    items
        .iter()
        .map(|item| {
            let mut names: Vec<String> = item.keys().cloned().collect();
            names.sort();
            (text(item, "pk"), text(item, "v"), names)
        })
        .collect()
}

fn event(pk: &str, sk: &str, g: &str, rank: &str, v: &str) -> Vec<(&'static str, AttributeValue)> {
    vec![("pk", s(pk)), ("sk", n(sk)), ("g", s(g)), ("rank", n(rank)), ("v", s(v)), ("w", s("not projected"))]
}

#[tokio::test(start_paused = true)]
async fn a_global_index_query_misses_a_fresh_item_shows_a_changed_one_as_it_was_and_still_returns_a_deleted_one() {
    let fake = fake(3);
    events(&fake);
    let client = fake.client();
    put(&client, "Events", &event("a", "1", "red", "1", "a1")).await;
    put(&client, "Events", &event("b", "1", "red", "2", "b1")).await;
    put(&client, "Events", &event("m", "1", "red", "3", "m1")).await;
    tokio::time::advance(2 * BOUND).await;
    fake.inject(stale());

    let written = fake.now();
    put(&client, "Events", &event("c", "1", "red", "4", "c1")).await;
    put(&client, "Events", &event("a", "1", "red", "1", "a2")).await;
    client.delete_item().table_name("Events").key("pk", s("b")).key("sk", n("1")).send().await.unwrap();
    put(&client, "Events", &event("m", "1", "blue", "3", "m2")).await;

    let projected: Vec<String> = ["g", "pk", "rank", "sk", "v"].map(str::to_owned).to_vec();
    let red = group(&client, "red").await;
    assert!(last_record(&fake).read_as_of.unwrap() < written);
    let then: Vec<_> = [("a", "a1"), ("b", "b1"), ("m", "m1")]
        .map(|(pk, v)| (pk.to_owned(), v.to_owned(), projected.clone()))
        .to_vec();
    assert_eq!(red, then, "the old attributes, projected as the index projects them; no c; b still there");
    assert_eq!(group(&client, "blue").await, [], "m had not moved to blue yet");

    tokio::time::advance(BOUND).await;
    let now: Vec<_> =
        [("a", "a2"), ("c", "c1")].map(|(pk, v)| (pk.to_owned(), v.to_owned(), projected.clone())).to_vec();
    assert_eq!(group(&client, "red").await, now);
    assert_eq!(group(&client, "blue").await, [("m".to_owned(), "m2".to_owned(), projected.clone())]);
}

/// Every page of a Query of `pk` in `Events` (`forward` or not), or of a Scan of the table
/// (`pk` None), `limit` items a page, as `(pk, sk, v)`; with the number of pages.
async fn paged(client: &Client, pk: Option<&str>, forward: bool, limit: i32) -> (Vec<(String, String, String)>, usize) {
    let mut start: Option<Item> = None;
    let (mut all, mut pages) = (Vec::new(), 0);
    loop {
        let (items, last) = match pk {
            Some(pk) => {
                let query = client
                    .query()
                    .table_name("Events")
                    .key_condition_expression("pk = :pk")
                    .expression_attribute_values(":pk", s(pk))
                    .scan_index_forward(forward)
                    .limit(limit)
                    .set_exclusive_start_key(start.take());
                let page = query.send().await.unwrap();
                (page.items.unwrap_or_default(), page.last_evaluated_key)
            }
            None => {
                let scan = client.scan().table_name("Events").limit(limit).set_exclusive_start_key(start.take());
                let page = scan.send().await.unwrap();
                (page.items.unwrap_or_default(), page.last_evaluated_key)
            }
        };
        pages += 1;
        all.extend(items.iter().map(|item| (text(item, "pk"), text(item, "sk"), text(item, "v"))));
        match last {
            Some(last) => start = Some(last),
            None => return (all, pages),
        }
    }
}

/// `Events` with 24 items (`pk` p, q, r; `sk` 1 to 8), then, a while later, four of them
/// changed at once (two deleted, two updated) and two inserted; the reads before the changes,
/// strongly consistent: a Scan and the Query of `p`.
async fn events_before_and_after(
    fake: &FakeDynamoDb,
    client: &Client,
) -> (Vec<(String, String, String)>, Vec<(String, String, String)>, SystemTime) {
    events(fake);
    for pk in ["p", "q", "r"] {
        for sk in 1..=8 {
            let v = format!("{pk}{sk}");
            put(client, "Events", &[("pk", s(pk)), ("sk", n(&sk.to_string())), ("v", s(&v))]).await;
        }
    }
    let consistent_scan = client.scan().table_name("Events").consistent_read(true).send().await.unwrap();
    let scan: Vec<_> =
        consistent_scan.items().iter().map(|item| (text(item, "pk"), text(item, "sk"), text(item, "v"))).collect();
    let query: Vec<_> = scan.iter().filter(|(pk, ..)| pk == "p").cloned().collect();
    tokio::time::advance(2 * BOUND).await;
    fake.inject(stale());
    let written = fake.now();
    for (pk, sk) in [("p", "2"), ("q", "5")] {
        client.delete_item().table_name("Events").key("pk", s(pk)).key("sk", n(sk)).send().await.unwrap();
    }
    for (pk, sk, v) in [("p", "9", "new"), ("r", "0", "new"), ("p", "4", "changed"), ("r", "8", "changed")] {
        put(client, "Events", &[("pk", s(pk)), ("sk", n(sk)), ("v", s(v))]).await;
    }
    (scan, query, written)
}

#[tokio::test(start_paused = true)]
async fn pages_of_a_scan_and_a_query_over_a_stale_view_make_up_the_table_as_it_was() {
    let fake = fake(4);
    let client = fake.client();
    let (scan, query, _) = events_before_and_after(&fake, &client).await;

    // Every page is read right after the changes, so each sees an instant before them.
    let (scanned, pages) = paged(&client, None, true, 5).await;
    assert_eq!(scanned, scan);
    assert_eq!(pages, 5);
    let (forward, _) = paged(&client, Some("p"), true, 3).await;
    assert_eq!(forward, query);
    let (backward, _) = paged(&client, Some("p"), false, 3).await;
    assert_eq!(backward, query.iter().rev().cloned().collect::<Vec<_>>());
}

#[tokio::test(start_paused = true)]
async fn pages_that_see_different_instants_still_hold_each_item_once_in_key_order() {
    let fake = fake(5);
    let client = fake.client();
    let (scan, query, written) = events_before_and_after(&fake, &client).await;
    tokio::time::advance(BOUND / 2).await;

    let unchanged = |(pk, sk, _): &&(String, String, String)| {
        ![("p", "2"), ("q", "5"), ("p", "4"), ("r", "8")].contains(&(pk.as_str(), sk.as_str()))
    };
    for _ in 0..5 {
        let (pages, _) = paged(&client, Some("p"), true, 2).await;
        let ranks: Vec<u32> = pages.iter().map(|(_, sk, _)| sk.parse().unwrap()).collect();
        assert!(ranks.windows(2).all(|pair| pair[0] < pair[1]), "in sort key order, each once: {ranks:?}");
        for item in query.iter().filter(unchanged) {
            assert!(pages.contains(item), "{item:?} was there all along: {pages:?}");
        }
        for item @ (pk, sk, v) in &pages {
            let is = [("p", "9", "new"), ("p", "4", "changed")].contains(&(pk.as_str(), sk.as_str(), v.as_str()));
            assert!(query.contains(item) || is, "{item:?} is the item as it was or as it is");
        }

        let (scanned, _) = paged(&client, None, true, 4).await;
        let mut keys: Vec<_> = scanned.iter().map(|(pk, sk, _)| (pk.clone(), sk.clone())).collect();
        let count = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), count, "no item twice");
        for item in scan.iter().filter(unchanged) {
            assert!(scanned.contains(item), "{item:?} was there all along");
        }
    }
    let instants: Vec<SystemTime> = fake.request_log().iter().filter_map(|record| record.read_as_of).collect();
    assert!(instants.iter().any(|at| *at < written) && instants.iter().any(|at| *at >= written));
}

#[tokio::test(start_paused = true)]
async fn filters_counts_projections_and_consumed_capacity_read_the_stale_view() {
    let fake = fake(6);
    events(&fake);
    let client = fake.client();
    let big = "x".repeat(5000);
    put(&client, "Events", &[("pk", s("p")), ("sk", n("1")), ("v", s("old")), ("big", s(&big))]).await;
    tokio::time::advance(2 * BOUND).await;
    fake.inject(stale());
    put(&client, "Events", &[("pk", s("p")), ("sk", n("1")), ("v", s("new"))]).await;

    let get = || {
        client
            .get_item()
            .table_name("Events")
            .key("pk", s("p"))
            .key("sk", n("1"))
            .projection_expression("v")
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
    };
    let old = get().send().await.unwrap();
    assert_eq!(old.item.as_ref().map(|item| text(item, "v")).as_deref(), Some("old"));
    assert_eq!(old.item.map(|item| item.len()), Some(1), "the projection of the old item");
    let units = |capacity: Option<&aws_sdk_dynamodb::types::ConsumedCapacity>| capacity.and_then(|c| c.capacity_units);
    assert_eq!(units(old.consumed_capacity.as_ref()), Some(1.0), "two units of 4 KB, halved");

    let count = |v: &str| {
        client
            .query()
            .table_name("Events")
            .key_condition_expression("pk = :p")
            .filter_expression("v = :v")
            .expression_attribute_values(":p", s("p"))
            .expression_attribute_values(":v", s(v))
            .select(Select::Count)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
    };
    let counted = count("old").send().await.unwrap();
    assert_eq!((counted.count, counted.scanned_count), (1, 1));
    assert_eq!(units(counted.consumed_capacity.as_ref()), Some(1.0));
    let counted = count("new").send().await.unwrap();
    assert_eq!((counted.count, counted.scanned_count, counted.items), (0, 1, None));

    let local = client
        .query()
        .table_name("Events")
        .index_name("byV")
        .key_condition_expression("pk = :p AND v = :v")
        .expression_attribute_values(":p", s("p"))
        .expression_attribute_values(":v", s("old"))
        .projection_expression("big")
        .send()
        .await
        .unwrap();
    assert_eq!(local.items().len(), 1, "the local index held the old item under its old v");
    assert_eq!(text(&local.items()[0], "big").len(), 5000);

    tokio::time::advance(BOUND).await;
    let new = get().send().await.unwrap();
    assert_eq!(new.item.as_ref().map(|item| text(item, "v")).as_deref(), Some("new"));
    assert_eq!(units(new.consumed_capacity.as_ref()), Some(0.5));
    assert_eq!(count("new").send().await.unwrap().count, 1);
}

#[tokio::test(start_paused = true)]
async fn a_consistent_query_or_scan_of_a_table_or_a_local_index_sees_the_present() {
    let fake = fake(7);
    events(&fake);
    let client = fake.client();
    fake.inject(stale());
    put(&client, "Events", &[("pk", s("p")), ("sk", n("1")), ("v", s("new"))]).await;
    let local = client
        .query()
        .table_name("Events")
        .index_name("byV")
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", s("p"));
    assert_eq!(local.clone().consistent_read(true).send().await.unwrap().count, 1);
    assert_eq!(local.send().await.unwrap().count, 0, "eventually consistent, the local index is stale");
    let scan = client.scan().table_name("Events");
    assert_eq!(scan.clone().consistent_read(true).send().await.unwrap().count, 1);
    assert_eq!(last_record(&fake).read_as_of, None);
    assert_eq!(scan.send().await.unwrap().count, 0);
}

#[tokio::test(start_paused = true)]
async fn transactions_conditions_and_writes_see_the_present() {
    let fake = fake(8);
    let client = fake.client();
    put_shop(&client, "a", "v1").await;
    tokio::time::advance(2 * BOUND).await;
    fake.inject(stale());
    put_shop(&client, "a", "v2").await;

    let get = Get::builder().table_name("Shop").key("pk", s("a")).build().unwrap();
    let read = client.transact_get_items().transact_items(TransactGetItem::builder().get(get).build()).send().await;
    let item = read.unwrap().responses.unwrap().remove(0).item.unwrap();
    assert_eq!(text(&item, "v"), "v2");
    let statement = client.execute_transaction().transact_statements(
        aws_sdk_dynamodb::types::ParameterizedStatement::builder()
            .statement(r#"SELECT v FROM "Shop" WHERE pk = 'a'"#)
            .build()
            .unwrap(),
    );
    let item = statement.send().await.unwrap().responses.unwrap().remove(0).item.unwrap();
    assert_eq!(text(&item, "v"), "v2");

    let update = |expected: &str| {
        client
            .update_item()
            .table_name("Shop")
            .key("pk", s("a"))
            .update_expression("SET v = :next")
            .condition_expression("v = :expected")
            .expression_attribute_values(":expected", s(expected))
            .expression_attribute_values(":next", s("v3"))
    };
    let refused = update("v1").send().await.unwrap_err().into_service_error();
    assert!(refused.is_conditional_check_failed_exception(), "the condition reads the item as it is");
    update("v2").send().await.unwrap();
    assert_eq!(get_v(&client, "a", true).await.as_deref(), Some("v3"));
    assert!(fake.request_log().iter().all(|record| record.read_as_of.is_none()));
}

#[tokio::test(start_paused = true)]
async fn a_partiql_select_is_stale_unless_it_asks_for_a_consistent_read() {
    let fake = fake(9);
    let client = fake.client();
    fake.inject(stale());
    put_shop(&client, "a", "v1").await;
    let select = client.execute_statement().statement(r#"SELECT * FROM "Shop" WHERE pk = 'a'"#);
    assert_eq!(select.clone().consistent_read(true).send().await.unwrap().items().len(), 1);
    assert_eq!(select.send().await.unwrap().items().len(), 0);
    let scan = client.execute_statement().statement(r#"SELECT * FROM "Shop""#);
    assert_eq!(scan.send().await.unwrap().items().len(), 0);
    assert_eq!(last_record(&fake).fault.as_deref(), Some("StaleRead"));
}

#[tokio::test(start_paused = true)]
async fn a_rule_for_one_table_leaves_the_other_tables_consistent() {
    let fake = fake(10);
    fake.create_table("Other", "pk", None);
    let client = fake.client();
    fake.inject(stale().table("Shop"));
    put_shop(&client, "a", "v1").await;
    put(&client, "Other", &[("pk", s("a")), ("v", s("v1"))]).await;

    assert_eq!(get_v(&client, "a", false).await, None);
    let other = client.get_item().table_name("Other").key("pk", s("a")).send().await.unwrap();
    assert!(other.item.is_some());
    assert_eq!(last_record(&fake).read_as_of, None);

    let keys = || KeysAndAttributes::builder().keys(HashMap::from([("pk".to_owned(), s("a"))])).build().unwrap();
    let batch = client.batch_get_item().request_items("Shop", keys()).send().await.unwrap();
    assert_eq!(batch.responses.unwrap()["Shop"].len(), 0);
    // Whichever table the request names first, the rule makes the reads of Other no older.
    let batch = client.batch_get_item().request_items("Shop", keys()).request_items("Other", keys());
    assert_eq!(batch.send().await.unwrap().responses.unwrap()["Other"].len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_batch_get_is_stale_for_the_tables_it_reads_eventually_consistently() {
    let fake = fake(11);
    fake.create_table("Other", "pk", None);
    let client = fake.client();
    fake.inject(stale());
    put_shop(&client, "a", "v1").await;
    put(&client, "Other", &[("pk", s("a")), ("v", s("v1"))]).await;
    let keys = |consistent: bool| {
        KeysAndAttributes::builder()
            .keys(HashMap::from([("pk".to_owned(), s("a"))]))
            .consistent_read(consistent)
            .build()
            .unwrap()
    };
    let batch = client.batch_get_item().request_items("Shop", keys(true)).request_items("Other", keys(false));
    let responses = batch.send().await.unwrap().responses.unwrap();
    assert_eq!((responses["Shop"].len(), responses["Other"].len()), (1, 0));
}

/// Writes and reads of every kind, 100 ms apart: what each read answered and the instant it saw.
async fn workload(seed: u64) -> Vec<(String, Option<SystemTime>)> {
    let fake = fake(seed);
    let client = fake.client();
    fake.inject(stale().probability(0.7));
    let mut seen = Vec::new();
    for round in 0..30 {
        put_shop(&client, &format!("k{}", round % 7), &format!("v{round}")).await;
        tokio::time::advance(Duration::from_millis(100)).await;
        let found = get_v(&client, &format!("k{}", round % 5), false).await;
        seen.push((format!("{found:?}"), last_record(&fake).read_as_of));
        let scanned = client.scan().table_name("Shop").send().await.unwrap().count;
        seen.push((scanned.to_string(), last_record(&fake).read_as_of));
    }
    seen
}

#[tokio::test(start_paused = true)]
async fn the_same_seed_sees_the_same_instants_and_answers() {
    let first = workload(42).await;
    assert_eq!(first, workload(42).await);
    assert_ne!(first, workload(43).await);
    let instants: Vec<SystemTime> = first.iter().filter_map(|(_, at)| *at).collect();
    assert!(instants.len() < first.len(), "a probability of 0.7 leaves some reads alone");
    assert!(
        instants.windows(2).any(|pair| pair[1] < pair[0]),
        "a later read may see an older instant than the read before it"
    );
}

#[tokio::test(start_paused = true)]
async fn a_read_sees_no_further_back_than_the_rule_in_force() {
    let fake = fake(12);
    let client = fake.client();
    put_shop(&client, "a", "v1").await;
    fake.inject(stale());
    tokio::time::advance(Duration::from_millis(10)).await;
    put_shop(&client, "a", "v2").await;
    for _ in 0..10 {
        assert!(get_v(&client, "a", false).await.is_some(), "the item existed when the rule came");
    }
    fake.clear_faults();
    assert_eq!(get_v(&client, "a", false).await.as_deref(), Some("v2"));
    assert_eq!(last_record(&fake).read_as_of, None);

    fake.inject(stale());
    put_shop(&client, "a", "v3").await;
    for _ in 0..10 {
        let seen = get_v(&client, "a", false).await;
        assert_eq!(seen.as_deref(), Some("v2"), "the history started again with the new rule");
    }
}

#[test]
#[should_panic(expected = "a StaleRead's bound is at most an hour")]
fn a_bound_over_an_hour_is_refused() {
    let _ = FaultRule::new(Fault::StaleRead(Fault::STALE_READ_MAX + Duration::from_millis(1)));
}
