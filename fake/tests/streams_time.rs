//! Streams on the fake's clock: records trimmed after 24 hours, iterators that expire after 15
//! minutes, disabled streams that go after a day, statuses that take their time; and runs that
//! replay identically, faults and the request log included.

mod support;

use std::time::Duration;

use aws_sdk_dynamodb::types::StreamViewType;
use aws_sdk_dynamodbstreams::types::{ShardIteratorType, StreamStatus};
use dynalease_fake::{FakeDynamoDb, Fault, FaultRule};
use support::streams::{disabled, enabled, events, fake, read_all, shard_ids, table_with_stream};
use support::{s, sdk_error};

const HOUR: Duration = Duration::from_secs(3600);

async fn iterator(fake: &FakeDynamoDb, arn: &str, kind: ShardIteratorType, number: Option<String>) -> String {
    let streams = fake.streams_client();
    let shard = shard_ids(&streams, arn).await.remove(0);
    let answer = streams
        .get_shard_iterator()
        .stream_arn(arn)
        .shard_id(shard)
        .shard_iterator_type(kind)
        .set_sequence_number(number)
        .send()
        .await
        .unwrap();
    answer.shard_iterator.unwrap()
}

#[tokio::test(start_paused = true)]
async fn records_older_than_a_day_are_trimmed_and_reading_them_is_refused() {
    let fake = fake();
    let arn = table_with_stream(&fake, "Shop", false, StreamViewType::KeysOnly).await;
    let client = fake.client();
    client.put_item().table_name("Shop").item("pk", s("old")).send().await.unwrap();
    let first = read_all(&fake.streams_client(), &arn).await;
    let old_number = first[0].dynamodb().unwrap().sequence_number().unwrap().to_owned();
    tokio::time::advance(HOUR * 2).await;
    client.put_item().table_name("Shop").item("pk", s("young")).send().await.unwrap();
    tokio::time::advance(HOUR * 22 - Duration::from_secs(60)).await;
    let horizon = iterator(&fake, &arn, ShardIteratorType::TrimHorizon, None).await;
    assert_eq!(events(&read_all(&fake.streams_client(), &arn).await), ["INSERT", "INSERT"], "a day is not over");

    tokio::time::advance(Duration::from_secs(120)).await;
    let streams = fake.streams_client();
    let kept = read_all(&streams, &arn).await;
    let keys: Vec<_> =
        kept.iter().map(|r| r.dynamodb().unwrap().keys.as_ref().unwrap()["pk"].as_s().unwrap().clone()).collect();
    assert_eq!(keys, ["young"], "the record of the first write is trimmed");
    let trimmed = (
        "TrimmedDataAccessException".to_owned(),
        "The operation attempted to read past the oldest stream record in a shard.".to_owned(),
    );
    let read = streams.get_records().shard_iterator(horizon).send().await.unwrap_err();
    assert_eq!(sdk_error(read), trimmed, "an iterator issued before the trim points at a record that is gone");
    let shard = shard_ids(&streams, &arn).await.remove(0);
    let at = streams
        .get_shard_iterator()
        .stream_arn(&arn)
        .shard_id(shard)
        .shard_iterator_type(ShardIteratorType::AtSequenceNumber)
        .sequence_number(old_number)
        .send()
        .await
        .unwrap_err();
    assert_eq!(sdk_error(at), trimmed);
}

#[tokio::test(start_paused = true)]
async fn a_shard_iterator_expires_fifteen_minutes_after_it_was_issued() {
    let fake = fake();
    let arn = table_with_stream(&fake, "Shop", false, StreamViewType::KeysOnly).await;
    let streams = fake.streams_client();
    let latest = iterator(&fake, &arn, ShardIteratorType::Latest, None).await;
    tokio::time::advance(Duration::from_secs(14 * 60)).await;
    let page = streams.get_records().shard_iterator(&latest).send().await.unwrap();
    let next = page.next_shard_iterator.unwrap();
    tokio::time::advance(Duration::from_secs(2 * 60)).await;
    let expired = streams.get_records().shard_iterator(&latest).send().await.unwrap_err();
    assert_eq!(
        sdk_error(expired),
        ("ExpiredIteratorException".to_owned(), "The provided iterator exceeds the maximum age allowed.".to_owned())
    );
    fake.client().put_item().table_name("Shop").item("pk", s("a")).send().await.unwrap();
    let page = streams.get_records().shard_iterator(next).send().await.unwrap();
    assert_eq!(events(page.records()), ["INSERT"], "the iterator GetRecords gave has a life of its own");
}

#[tokio::test(start_paused = true)]
async fn a_disabled_stream_stays_readable_for_a_day_and_then_is_gone() {
    let fake = fake();
    let arn = table_with_stream(&fake, "Shop", false, StreamViewType::KeysOnly).await;
    fake.client().put_item().table_name("Shop").item("pk", s("a")).send().await.unwrap();
    fake.delete_table("Shop");
    let streams = fake.streams_client();
    tokio::time::advance(HOUR * 23).await;
    let described = streams.describe_stream().stream_arn(&arn).send().await.unwrap();
    assert_eq!(described.stream_description().unwrap().stream_status(), Some(&StreamStatus::Disabled));
    assert_eq!(events(&read_all(&streams, &arn).await), ["INSERT"]);
    assert_eq!(streams.list_streams().send().await.unwrap().streams().len(), 1);
    tokio::time::advance(HOUR).await;
    let gone = streams.describe_stream().stream_arn(&arn).send().await.unwrap_err();
    assert_eq!(sdk_error(gone).0, "ResourceNotFoundException");
    assert!(streams.list_streams().send().await.unwrap().streams().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_stream_is_enabling_and_disabling_for_the_time_the_fake_is_given() {
    let fake = FakeDynamoDb::builder().stream_status_change_time(Duration::from_secs(10)).build();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    let status = |arn: String| {
        let streams = fake.streams_client();
        async move {
            let described = streams.describe_stream().stream_arn(arn).send().await.unwrap();
            described.stream_description().unwrap().stream_status().cloned().unwrap()
        }
    };
    let update = client.update_table().table_name("Shop").stream_specification(enabled(StreamViewType::KeysOnly));
    let answer = update.send().await.unwrap();
    let arn = answer.table_description().unwrap().latest_stream_arn().unwrap().to_owned();
    assert_eq!(status(arn.clone()).await, StreamStatus::Enabling);
    tokio::time::advance(Duration::from_secs(10)).await;
    assert_eq!(status(arn.clone()).await, StreamStatus::Enabled);
    client.update_table().table_name("Shop").stream_specification(disabled()).send().await.unwrap();
    assert_eq!(status(arn.clone()).await, StreamStatus::Disabling);
    tokio::time::advance(Duration::from_secs(10)).await;
    assert_eq!(status(arn).await, StreamStatus::Disabled);
}

#[tokio::test(start_paused = true)]
async fn faults_and_the_request_log_cover_the_streams_operations() {
    let fake = fake();
    let arn = table_with_stream(&fake, "Shop", false, StreamViewType::KeysOnly).await;
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("DescribeStream").times(1));
    let streams = fake.streams_client();
    // The SDK retries the injected server error; the second attempt is answered.
    streams.describe_stream().stream_arn(&arn).send().await.unwrap();
    fake.inject(FaultRule::new(Fault::error("AccessDeniedException", "no")).operation("ListStreams").table("Shop"));
    let refused = streams.list_streams().table_name("Shop").send().await.unwrap_err();
    assert_eq!(sdk_error(refused).0, "AccessDeniedException");
    let log: Vec<_> = fake
        .request_log()
        .into_iter()
        .filter(|r| r.operation != "CreateTable")
        .map(|r| (r.operation, r.table, r.fault))
        .collect();
    let shop = Some("Shop".to_owned());
    assert_eq!(
        log,
        [
            ("DescribeStream".to_owned(), shop.clone(), Some("InternalServerError".to_owned())),
            ("DescribeStream".to_owned(), shop.clone(), None),
            ("ListStreams".to_owned(), shop, Some("Error".to_owned())),
        ]
    );
}

/// What a workload leaves in the stream: ARN, shard ids, sequence numbers and event ids.
async fn workload() -> Vec<String> {
    let fake = fake();
    let arn = table_with_stream(&fake, "Shop", false, StreamViewType::NewAndOldImages).await;
    let client = fake.client();
    for i in 0..12 {
        client
            .put_item()
            .table_name("Shop")
            .item("pk", s(&format!("k{}", i % 5)))
            .item("i", s(&i.to_string()))
            .send()
            .await
            .unwrap();
        tokio::time::advance(HOUR / 2).await;
    }
    let streams = fake.streams_client();
    let mut trace = vec![arn.clone()];
    trace.extend(shard_ids(&streams, &arn).await);
    for record in read_all(&streams, &arn).await {
        trace.push(format!("{} {}", record.event_id().unwrap(), record.dynamodb().unwrap().sequence_number().unwrap()));
    }
    trace
}

#[tokio::test(start_paused = true)]
async fn a_run_replays_identically() {
    let first = workload().await;
    assert!(first.len() > 12, "{first:?}");
    assert_eq!(first, workload().await);
}
