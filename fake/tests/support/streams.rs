//! Shared by the `streams_*` tests: a fake at a fixed time, tables with a stream, and a reader
//! that walks every shard of a stream the way a consumer does.

use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType, StreamSpecification,
    StreamViewType,
};
use aws_sdk_dynamodbstreams::types::{Record, ShardIteratorType};
use dynalease_fake::FakeDynamoDb;

/// 2024-06-01T00:00:00Z, the fake's start time in these tests.
pub const START_SECS: u64 = 1_717_200_000;

/// A fake that starts at [`START_SECS`], with seed 1.
pub fn fake() -> FakeDynamoDb {
    FakeDynamoDb::builder().start_time(SystemTime::UNIX_EPOCH + Duration::from_secs(START_SECS)).seed(1).build()
}

/// A stream specification of this view type.
pub fn enabled(view: StreamViewType) -> StreamSpecification {
    StreamSpecification::builder().stream_enabled(true).stream_view_type(view).build().unwrap()
}

/// A stream specification that disables the stream.
pub fn disabled() -> StreamSpecification {
    StreamSpecification::builder().stream_enabled(false).build().unwrap()
}

/// Creates the table `name` (string key `pk`, and string sort key `sk` if asked) with a stream of
/// `view`; returns the stream's ARN.
pub async fn table_with_stream(fake: &FakeDynamoDb, name: &str, sort_key: bool, view: StreamViewType) -> String {
    let attr = |n: &str| {
        AttributeDefinition::builder().attribute_name(n).attribute_type(ScalarAttributeType::S).build().unwrap()
    };
    let key = |n: &str, kind| KeySchemaElement::builder().attribute_name(n).key_type(kind).build().unwrap();
    let mut create = fake
        .client()
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attr("pk"))
        .key_schema(key("pk", KeyType::Hash))
        .stream_specification(enabled(view));
    if sort_key {
        create = create.attribute_definitions(attr("sk")).key_schema(key("sk", KeyType::Range));
    }
    let created = create.send().await.unwrap();
    created.table_description().and_then(|t| t.latest_stream_arn()).expect("a stream ARN").to_owned()
}

/// The ids of the stream's shards, every page of them.
pub async fn shard_ids(streams: &aws_sdk_dynamodbstreams::Client, arn: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut start: Option<String> = None;
    loop {
        let page = streams.describe_stream().stream_arn(arn).set_exclusive_start_shard_id(start).send().await.unwrap();
        let description = page.stream_description().unwrap();
        ids.extend(description.shards().iter().filter_map(|s| s.shard_id().map(str::to_owned)));
        match description.last_evaluated_shard_id() {
            Some(last) => start = Some(last.to_owned()),
            None => return ids,
        }
    }
}

/// Every record of the stream, shard by shard from its trim horizon, read as a consumer reads:
/// GetRecords until the shard's end or an empty answer.
pub async fn read_all(streams: &aws_sdk_dynamodbstreams::Client, arn: &str) -> Vec<Record> {
    let mut records = Vec::new();
    for shard in shard_ids(streams, arn).await {
        let iterator = streams
            .get_shard_iterator()
            .stream_arn(arn)
            .shard_id(&shard)
            .shard_iterator_type(ShardIteratorType::TrimHorizon)
            .send()
            .await
            .unwrap();
        let mut next = iterator.shard_iterator().map(str::to_owned);
        while let Some(iterator) = next.take() {
            let page = streams.get_records().shard_iterator(iterator).send().await.unwrap();
            if page.records().is_empty() {
                break;
            }
            records.extend(page.records().iter().cloned());
            next = page.next_shard_iterator().map(str::to_owned);
        }
    }
    records
}

/// The event names of records, in order.
pub fn events(records: &[Record]) -> Vec<&str> {
    records.iter().map(|r| r.event_name().map_or("?", |e| e.as_str())).collect()
}
