//! The Streams API through `aws_sdk_dynamodbstreams`: ListStreams, DescribeStream,
//! GetShardIterator and GetRecords, their paging and their refusals; StreamSpecification on
//! CreateTable and UpdateTable.

mod support;

use std::time::Duration;

use aws_sdk_dynamodb::types::StreamViewType;
use aws_sdk_dynamodbstreams::types::{ShardFilter, ShardFilterType, ShardIteratorType, StreamStatus};
use serde_json::json;
use support::streams::{START_SECS, disabled, enabled, events, fake, read_all, shard_ids, table_with_stream};
use support::{invalid, ok, refused, s, sdk_error};

#[tokio::test(start_paused = true)]
async fn a_stream_is_described_listed_and_named_as_dynamodb_names_it() {
    let fake = fake();
    let arn = table_with_stream(&fake, "Shop", true, StreamViewType::KeysOnly).await;
    assert_eq!(arn, "arn:aws:dynamodb:us-east-1:000000000000:table/Shop/stream/2024-06-01T00:00:00.000");
    let table = fake.client().describe_table().table_name("Shop").send().await.unwrap();
    let table = table.table().unwrap();
    assert_eq!(table.latest_stream_arn(), Some(arn.as_str()));
    assert_eq!(table.latest_stream_label(), Some("2024-06-01T00:00:00.000"));
    let spec = table.stream_specification().unwrap();
    assert_eq!((spec.stream_enabled(), spec.stream_view_type().map(|v| v.as_str())), (true, Some("KEYS_ONLY")));

    let streams = fake.streams_client();
    let listed = streams.list_streams().table_name("Shop").send().await.unwrap();
    let listed = listed.streams();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].stream_arn(), listed[0].table_name(), listed[0].stream_label()),
        (Some(arn.as_str()), Some("Shop"), Some("2024-06-01T00:00:00.000"))
    );
    let described = streams.describe_stream().stream_arn(&arn).send().await.unwrap();
    let description = described.stream_description().unwrap();
    assert_eq!(description.stream_status(), Some(&StreamStatus::Enabled));
    assert_eq!(description.stream_view_type().map(|v| v.as_str()), Some("KEYS_ONLY"));
    assert_eq!(description.table_name(), Some("Shop"));
    assert_eq!(description.creation_request_date_time().map(|t| t.secs() as u64), Some(START_SECS));
    let keys: Vec<_> = description.key_schema().iter().map(|k| (k.attribute_name(), k.key_type().as_str())).collect();
    assert_eq!(keys, [("pk", "HASH"), ("sk", "RANGE")]);
    let shard = &description.shards()[0];
    let id = shard.shard_id().unwrap();
    assert!(id.starts_with("shardId-") && (28..=65).contains(&id.len()), "{id}");
    let range = shard.sequence_number_range().unwrap();
    assert!(range.starting_sequence_number().unwrap().bytes().all(|b| b.is_ascii_digit()));
    assert!(range.ending_sequence_number().is_none(), "the shard is open");
    assert!(description.last_evaluated_shard_id().is_none());
}

#[tokio::test(start_paused = true)]
async fn list_streams_pages_through_every_table_in_order() {
    let fake = fake();
    let mut arns = Vec::new();
    for name in ["Alpha", "Beta", "Gamma"] {
        arns.push(table_with_stream(&fake, name, false, StreamViewType::NewImage).await);
    }
    fake.create_table("NoStream", "pk", None);
    let streams = fake.streams_client();
    let mut seen = Vec::new();
    let mut start: Option<String> = None;
    loop {
        let page = streams.list_streams().limit(2).set_exclusive_start_stream_arn(start).send().await.unwrap();
        seen.extend(page.streams().iter().map(|s| s.stream_arn().unwrap().to_owned()));
        match page.last_evaluated_stream_arn() {
            Some(last) => start = Some(last.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen, arns);
    let all = streams.list_streams().send().await.unwrap();
    assert!(all.last_evaluated_stream_arn().is_none());
    assert_eq!(all.streams().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn shard_iterators_start_where_their_type_says() {
    let fake = fake();
    let arn = table_with_stream(&fake, "Shop", false, StreamViewType::KeysOnly).await;
    let client = fake.client();
    let streams = fake.streams_client();
    let shard = shard_ids(&streams, &arn).await.remove(0);
    let iterator = |kind: ShardIteratorType, number: Option<String>| {
        streams
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(&shard)
            .shard_iterator_type(kind)
            .set_sequence_number(number)
            .send()
    };
    let latest_before = iterator(ShardIteratorType::Latest, None).await.unwrap().shard_iterator.unwrap();
    for pk in ["a", "b", "c"] {
        client.put_item().table_name("Shop").item("pk", s(pk)).send().await.unwrap();
    }
    let keys = |records: &[aws_sdk_dynamodbstreams::types::Record]| -> Vec<String> {
        records.iter().map(|r| r.dynamodb().unwrap().keys.as_ref().unwrap()["pk"].as_s().unwrap().clone()).collect()
    };
    let read =
        |iterator: String, limit: Option<i32>| streams.get_records().shard_iterator(iterator).set_limit(limit).send();

    let from_latest = read(latest_before, None).await.unwrap();
    assert_eq!(keys(from_latest.records()), ["a", "b", "c"]);
    let after_all = read(from_latest.next_shard_iterator.unwrap(), None).await.unwrap();
    assert!(after_all.records().is_empty(), "nothing more after the last record");
    assert!(after_all.next_shard_iterator().is_some(), "an open shard reads on");

    let horizon = iterator(ShardIteratorType::TrimHorizon, None).await.unwrap().shard_iterator.unwrap();
    let first = read(horizon, Some(1)).await.unwrap();
    assert_eq!(keys(first.records()), ["a"]);
    let rest = read(first.next_shard_iterator.unwrap(), Some(1000)).await.unwrap();
    assert_eq!(keys(rest.records()), ["b", "c"]);

    let second = rest.records()[0].dynamodb().unwrap().sequence_number().unwrap().to_owned();
    let at = iterator(ShardIteratorType::AtSequenceNumber, Some(second.clone())).await.unwrap();
    assert_eq!(keys(read(at.shard_iterator.unwrap(), None).await.unwrap().records()), ["b", "c"]);
    let after = iterator(ShardIteratorType::AfterSequenceNumber, Some(second)).await.unwrap();
    assert_eq!(keys(read(after.shard_iterator.unwrap(), None).await.unwrap().records()), ["c"]);
    let latest = iterator(ShardIteratorType::Latest, None).await.unwrap();
    assert!(read(latest.shard_iterator.unwrap(), None).await.unwrap().records().is_empty());
}

#[tokio::test(start_paused = true)]
async fn the_streams_operations_refuse_what_dynamodb_refuses() {
    let fake = fake();
    let arn = table_with_stream(&fake, "Shop", false, StreamViewType::KeysOnly).await;
    let streams = fake.streams_client();
    let shard = shard_ids(&streams, &arn).await.remove(0);

    let garbage = "sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfgasf";
    let described = streams.describe_stream().stream_arn(garbage).send().await.unwrap_err();
    assert_eq!(sdk_error(described), ("ValidationException".into(), "Invalid StreamArn".into()));
    let missing = arn.replace("2024-06-01T00:00:00.000", "2024-06-01T00:00:00.999");
    let described = streams.describe_stream().stream_arn(&missing).send().await.unwrap_err();
    assert_eq!(
        sdk_error(described),
        ("ResourceNotFoundException".into(), format!("Requested resource not found: Stream: {missing} not found"))
    );
    let listed = streams.list_streams().exclusive_start_stream_arn(garbage).send().await.unwrap_err();
    assert_eq!(sdk_error(listed).0, "ValidationException");
    let listed = streams.list_streams().table_name("Nowhere").send().await.unwrap_err();
    assert_eq!(sdk_error(listed).0, "ResourceNotFoundException");
    for limit in [0, 101] {
        let listed = streams.list_streams().limit(limit).send().await.unwrap_err();
        let (code, message) = sdk_error(listed);
        assert_eq!(code, "ValidationException");
        assert!(message.contains("'limit'"), "{message}");
    }
    let beyond = streams.describe_stream().stream_arn(&arn).exclusive_start_shard_id("z".repeat(40)).send().await;
    assert!(beyond.unwrap().stream_description().unwrap().shards().is_empty());

    let get = |kind: &str, shard: &str, number: Option<&str>| {
        streams
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(shard)
            .shard_iterator_type(kind.into())
            .set_sequence_number(number.map(str::to_owned))
            .send()
    };
    let number = "100000000000000000000";
    for (kind, number) in [
        ("AT_SEQUENCE_NUMBER", None),
        ("AFTER_SEQUENCE_NUMBER", None),
        ("TRIM_HORIZON", Some(number)),
        ("LATEST", Some(number)),
        ("bulle", None),
        ("AT_SEQUENCE_NUMBER", Some("sdfsafglldfngjdafnasdflgnaldklkafdsgklnasdlv")),
    ] {
        let (code, message) = sdk_error(get(kind, &shard, number).await.unwrap_err());
        assert_eq!(code, "ValidationException", "{kind} {number:?}: {message}");
    }
    let missing_shard = get("LATEST", "shardId-00000000000000000000-00000000", None).await.unwrap_err();
    assert_eq!(
        sdk_error(missing_shard),
        ("ResourceNotFoundException".into(), "Requested resource not found: Shard does not exist".into())
    );

    let records = streams.get_records().shard_iterator("sdfsdfsgagaddafgagasgasgasdfasdfasdfasdf").send().await;
    assert_eq!(sdk_error(records.unwrap_err()), ("ValidationException".into(), "Invalid ShardIterator".into()));
    let latest = get("LATEST", &shard, None).await.unwrap().shard_iterator.unwrap();
    assert!(streams.get_records().shard_iterator(&latest).limit(1000).send().await.is_ok());
    for limit in [0, 1001, -1] {
        let (code, message) =
            sdk_error(streams.get_records().shard_iterator(&latest).limit(limit).send().await.unwrap_err());
        assert_eq!(code, "ValidationException");
        assert!(message.contains("'limit'"), "{message}");
    }
}

#[tokio::test(start_paused = true)]
async fn update_table_turns_a_stream_on_and_off_and_refuses_what_dynamodb_refuses() {
    let fake = fake();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    let update = |spec| client.update_table().table_name("Shop").stream_specification(spec).send();

    let (code, message) = sdk_error(update(disabled()).await.unwrap_err());
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("ValidationException", "Table has no stream to disable: TableName: Shop")
    );
    let first = update(enabled(StreamViewType::NewImage)).await.unwrap();
    let first = first.table_description().unwrap().latest_stream_arn().unwrap().to_owned();
    for view in [StreamViewType::NewImage, StreamViewType::OldImage] {
        let (code, message) = sdk_error(update(enabled(view)).await.unwrap_err());
        assert_eq!(
            (code.as_str(), message.as_str()),
            ("ValidationException", "Table already has an enabled stream: TableName: Shop")
        );
    }
    client.put_item().table_name("Shop").item("pk", s("one")).send().await.unwrap();
    tokio::time::advance(Duration::from_secs(5)).await;
    update(disabled()).await.unwrap();
    client.put_item().table_name("Shop").item("pk", s("unrecorded")).send().await.unwrap();
    tokio::time::advance(Duration::from_secs(5)).await;
    let second = update(enabled(StreamViewType::KeysOnly)).await.unwrap();
    let second = second.table_description().unwrap().latest_stream_arn().unwrap().to_owned();
    assert_ne!(first, second, "a re-enabled stream is a new stream");
    client.put_item().table_name("Shop").item("pk", s("two")).send().await.unwrap();

    let streams = fake.streams_client();
    let listed = streams.list_streams().table_name("Shop").send().await.unwrap();
    let mut listed: Vec<_> = listed.streams().iter().map(|s| s.stream_arn().unwrap().to_owned()).collect();
    listed.sort();
    assert_eq!(listed, [first.clone(), second.clone()]);
    let old = streams.describe_stream().stream_arn(&first).send().await.unwrap();
    let old = old.stream_description().unwrap();
    assert_eq!(old.stream_status(), Some(&StreamStatus::Disabled));
    let range = old.shards()[0].sequence_number_range().unwrap();
    assert!(range.ending_sequence_number().is_some(), "a disabled stream's shards are closed");
    let old_records = read_all(&streams, &first).await;
    assert_eq!(events(&old_records), ["INSERT"]);
    let new_records = read_all(&streams, &second).await;
    let pk = |r: &aws_sdk_dynamodbstreams::types::Record| r.dynamodb().unwrap().keys.as_ref().unwrap()["pk"].clone();
    assert_eq!(
        new_records.iter().map(pk).collect::<Vec<_>>(),
        [aws_sdk_dynamodbstreams::types::AttributeValue::S("two".into())]
    );

    // A closed shard read to its end gives no further iterator.
    let shard = shard_ids(&streams, &first).await.remove(0);
    let horizon = streams
        .get_shard_iterator()
        .stream_arn(&first)
        .shard_id(shard)
        .shard_iterator_type(ShardIteratorType::TrimHorizon)
        .send()
        .await
        .unwrap();
    let page = streams.get_records().shard_iterator(horizon.shard_iterator.unwrap()).send().await.unwrap();
    assert_eq!(page.records().len(), 1);
    assert!(page.next_shard_iterator().is_none());
}

#[tokio::test(start_paused = true)]
async fn stream_specifications_are_checked_as_dynamodb_checks_them() {
    let fake = fake();
    let table = |stream: serde_json::Value| {
        json!({
            "TableName": "Tab", "BillingMode": "PAY_PER_REQUEST", "StreamSpecification": stream,
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        })
    };
    let message = invalid(&fake, "CreateTable", table(json!({"StreamEnabled": true})));
    assert_eq!(
        message,
        "One or more parameter values were invalid: Table is being created with a stream enabled, UpdateViewType is required"
    );
    let message = invalid(&fake, "CreateTable", table(json!({"StreamEnabled": true, "StreamViewType": "Fisk"})));
    assert!(message.contains("streamViewType") && message.contains("enum value set"), "{message}");
    ok(&fake, "CreateTable", table(json!({"StreamEnabled": false})));
    let update = |stream: serde_json::Value| json!({"TableName": "Tab", "StreamSpecification": stream});
    assert_eq!(
        invalid(&fake, "UpdateTable", update(json!({"StreamEnabled": true}))),
        "One or more parameter values were invalid: If stream is being enabled then UpdateViewType is required"
    );
    assert_eq!(
        invalid(&fake, "UpdateTable", update(json!({"StreamEnabled": false, "StreamViewType": "KEYS_ONLY"}))),
        "One or more parameter values were invalid: If stream is being disabled, then UpdateViewType must not be specified"
    );
    let with_throughput = json!({
        "TableName": "Tab", "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"},
        "BillingMode": "PROVISIONED", "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
    });
    assert_eq!(
        invalid(&fake, "UpdateTable", with_throughput),
        "One or more parameter values were invalid: You cannot modify stream status while updating table IOPS"
    );
    // The stream operations are DynamoDB Streams' own: DynamoDB's target does not serve them.
    let (status, _) = fake.handle_json("ListStreams", b"{}");
    assert_eq!(status, 200, "handle_json takes either service's operations");
    let (code, _) = refused(&fake, "DescribeStream", json!({"StreamArn": "short"}));
    assert_eq!(code, "ValidationException");
}

#[tokio::test(start_paused = true)]
async fn describe_stream_pages_shards_and_filters_the_children_of_one() {
    let fake = fake();
    let arn = table_with_stream(&fake, "Shop", false, StreamViewType::KeysOnly).await;
    let client = fake.client();
    // A shard takes records for four hours, then a child shard takes over.
    for hour in 0..9 {
        client.put_item().table_name("Shop").item("pk", s(&format!("h{hour}"))).send().await.unwrap();
        tokio::time::advance(Duration::from_secs(3600)).await;
    }
    let streams = fake.streams_client();
    let ids = shard_ids(&streams, &arn).await;
    assert_eq!(ids.len(), 3, "{ids:?}");
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "shard ids are in lexical order");
    let page = streams.describe_stream().stream_arn(&arn).limit(1).send().await.unwrap();
    let page = page.stream_description().unwrap();
    assert_eq!(page.shards().len(), 1);
    assert_eq!(page.last_evaluated_shard_id(), Some(ids[0].as_str()));
    let shards = streams.describe_stream().stream_arn(&arn).send().await.unwrap();
    let shards = shards.stream_description().unwrap().shards().to_vec();
    assert!(shards[0].parent_shard_id().is_none());
    assert_eq!(shards[1].parent_shard_id(), Some(ids[0].as_str()));
    assert!(shards[0].sequence_number_range().unwrap().ending_sequence_number().is_some());
    assert!(shards[2].sequence_number_range().unwrap().ending_sequence_number().is_none());
    let filter = ShardFilter::builder().r#type(ShardFilterType::ChildShards).shard_id(&ids[0]).build();
    let children = streams.describe_stream().stream_arn(&arn).shard_filter(filter).send().await.unwrap();
    let children: Vec<_> =
        children.stream_description().unwrap().shards().iter().map(|s| s.shard_id().unwrap()).collect();
    assert_eq!(children, [ids[1].as_str()]);
    // A filter names both its type and its shard (ScyllaDB's Alternator suite, against DynamoDB).
    for (filter, missing) in [
        (ShardFilter::builder().shard_id(&ids[0]).build(), "type"),
        (ShardFilter::builder().r#type(ShardFilterType::ChildShards).build(), "shardId"),
    ] {
        let error = streams.describe_stream().stream_arn(&arn).shard_filter(filter).send().await.unwrap_err();
        assert_eq!(
            sdk_error(error.into_service_error()),
            (
                "ValidationException".to_owned(),
                format!(
                    "1 validation error detected: Value null at 'shardFilter.{missing}' failed to satisfy constraint: \
                 Member must not be null"
                )
            )
        );
    }
    // Read shard by shard, the records come in the order they were written.
    let records = read_all(&streams, &arn).await;
    let keys: Vec<_> =
        records.iter().map(|r| r.dynamodb().unwrap().keys.as_ref().unwrap()["pk"].as_s().unwrap().clone()).collect();
    assert_eq!(keys, (0..9).map(|h| format!("h{h}")).collect::<Vec<_>>());
}
