//! `ReturnItemCollectionMetrics: SIZE`: the item collection a write touched, for a table with a
//! local secondary index, from every write operation; nothing for a table without one.

mod support;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    ItemCollectionMetrics, Put, PutRequest, ReturnItemCollectionMetrics, TransactWriteItem, WriteRequest,
};
use dynalease_fake::FakeDynamoDb;
use support::{s, suite_tables};

fn setup() -> (FakeDynamoDb, Client) {
    let fake = FakeDynamoDb::new();
    suite_tables(&fake);
    let client = fake.client();
    (fake, client)
}

/// The collection's key value and its size range.
fn shown(metrics: &ItemCollectionMetrics) -> (String, Vec<f64>) {
    let key = metrics.item_collection_key().expect("a collection key");
    (key["a"].as_s().unwrap().clone(), metrics.size_estimate_range_gb().to_vec())
}

#[tokio::test(start_paused = true)]
async fn single_item_writes_answer_the_collection_of_a_table_with_a_local_index() {
    let (_fake, client) = setup();
    let size = ReturnItemCollectionMetrics::Size;
    let put = client
        .put_item()
        .table_name("range")
        .item("a", s("p"))
        .item("b", s("1"))
        .item("c", s("x"))
        .return_item_collection_metrics(size.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(shown(put.item_collection_metrics().unwrap()), ("p".to_owned(), vec![0.0, 1.0]));
    let update = client
        .update_item()
        .table_name("range")
        .key("a", s("p"))
        .key("b", s("1"))
        .update_expression("SET d = :d")
        .expression_attribute_values(":d", s("y"))
        .return_item_collection_metrics(size.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(shown(update.item_collection_metrics().unwrap()).0, "p");
    let delete = client
        .delete_item()
        .table_name("range")
        .key("a", s("p"))
        .key("b", s("1"))
        .return_item_collection_metrics(size.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(shown(delete.item_collection_metrics().unwrap()).0, "p");
    let not_asked = client.put_item().table_name("range").item("a", s("p")).item("b", s("2")).send().await.unwrap();
    assert!(not_asked.item_collection_metrics().is_none());
    // A table without a local secondary index has no item collections to report.
    let plain = client
        .put_item()
        .table_name("hash")
        .item("a", s("p"))
        .return_item_collection_metrics(size)
        .send()
        .await
        .unwrap();
    assert!(plain.item_collection_metrics().is_none());
}

#[tokio::test(start_paused = true)]
async fn batches_and_transactions_answer_each_collection_they_wrote_once() {
    let (_fake, client) = setup();
    let put = |a: &str, b: &str| {
        let request = PutRequest::builder().item("a", s(a)).item("b", s(b)).build().unwrap();
        WriteRequest::builder().put_request(request).build()
    };
    let batch = client
        .batch_write_item()
        .request_items("range", vec![put("p", "1"), put("p", "2"), put("q", "1")])
        .request_items(
            "hash",
            vec![WriteRequest::builder().put_request(PutRequest::builder().item("a", s("h")).build().unwrap()).build()],
        )
        .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
        .send()
        .await
        .unwrap();
    let metrics = batch.item_collection_metrics().unwrap();
    assert_eq!(metrics.keys().collect::<Vec<_>>(), ["range"], "only the table with a local index");
    let keys: Vec<_> = metrics["range"].iter().map(|m| shown(m).0).collect();
    assert_eq!(keys, ["p", "q"]);

    let action = |a: &str| {
        TransactWriteItem::builder()
            .put(Put::builder().table_name("range").item("a", s(a)).item("b", s("9")).build().unwrap())
            .build()
    };
    let transaction = client
        .transact_write_items()
        .transact_items(action("p"))
        .transact_items(action("r"))
        .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
        .send()
        .await
        .unwrap();
    let keys: Vec<_> = transaction.item_collection_metrics().unwrap()["range"].iter().map(|m| shown(m).0).collect();
    assert_eq!(keys, ["p", "r"]);
    let unasked = client.transact_write_items().transact_items(action("s")).send().await.unwrap();
    assert!(unasked.item_collection_metrics().is_none());
}
