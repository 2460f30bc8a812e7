//! Stream records as DynamoDB writes them: one per item a write changed, by every write path,
//! with the keys and images the view type keeps, and none for a write that changes nothing.

mod support;

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeValue, Delete, Put, PutRequest, StreamViewType, TimeToLiveSpecification, TransactWriteItem, WriteRequest,
};
use aws_sdk_dynamodbstreams::types::{AttributeValue as StreamValue, OperationType, Record};
use support::s;
use support::streams::{START_SECS, events, fake, read_all, table_with_stream};

/// The string attributes of a stream image.
fn strings(image: Option<&HashMap<String, StreamValue>>) -> Option<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = image?
        .iter()
        .map(|(name, value)| {
            let text = match value {
                StreamValue::S(s) => s.clone(),
                StreamValue::N(n) => format!("N:{n}"),
                other => format!("{other:?}"),
            };
            (name.clone(), text)
        })
        .collect();
    out.sort();
    Some(out)
}

fn pairs(items: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
    Some(items.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect())
}

fn dynamodb(record: &Record) -> &aws_sdk_dynamodbstreams::types::StreamRecord {
    record.dynamodb().expect("a stream record")
}

#[tokio::test(start_paused = true)]
async fn each_write_leaves_one_record_and_a_write_that_changes_nothing_leaves_none() {
    let fake = fake();
    let arn = table_with_stream(&fake, "Shop", true, StreamViewType::NewAndOldImages).await;
    let client = fake.client();
    let key = |put: aws_sdk_dynamodb::operation::put_item::builders::PutItemFluentBuilder| {
        put.table_name("Shop").item("pk", s("p")).item("sk", s("c"))
    };
    key(client.put_item()).item("x", s("2")).send().await.unwrap();
    // The same item again changes nothing.
    key(client.put_item()).item("x", s("2")).send().await.unwrap();
    key(client.put_item()).item("y", s("3")).send().await.unwrap();
    let delete = client.delete_item().table_name("Shop").key("pk", s("p")).key("sk", s("c"));
    delete.clone().send().await.unwrap();
    // Deleting what is not there changes nothing.
    delete.send().await.unwrap();
    let update = |expression: &str| {
        client
            .update_item()
            .table_name("Shop")
            .key("pk", s("p"))
            .key("sk", s("c"))
            .update_expression(expression.to_owned())
            .expression_attribute_values(":v", s("4"))
    };
    update("SET b = :v").send().await.unwrap();
    // Setting what is there changes nothing, in place or not.
    update("SET b = :v").send().await.unwrap();
    update("SET b = :v").return_values(aws_sdk_dynamodb::types::ReturnValue::AllOld).send().await.unwrap();
    update("SET x = :v").send().await.unwrap();

    let records = read_all(&fake.streams_client(), &arn).await;
    assert_eq!(events(&records), ["INSERT", "MODIFY", "REMOVE", "INSERT", "MODIFY"]);
    let images: Vec<_> = records
        .iter()
        .map(|r| (strings(dynamodb(r).old_image.as_ref()), strings(dynamodb(r).new_image.as_ref())))
        .collect();
    let item = |extra: &[(&str, &str)]| {
        let mut all = vec![("pk", "p"), ("sk", "c")];
        all.extend_from_slice(extra);
        all.sort();
        pairs(&all)
    };
    assert_eq!(
        images,
        [
            (None, item(&[("x", "2")])),
            (item(&[("x", "2")]), item(&[("y", "3")])),
            (item(&[("y", "3")]), None),
            (None, item(&[("b", "4")])),
            (item(&[("b", "4")]), item(&[("b", "4"), ("x", "4")])),
        ]
    );
    for record in &records {
        assert_eq!(strings(dynamodb(record).keys.as_ref()), item(&[]));
        assert_eq!(record.event_source(), Some("aws:dynamodb"));
        assert_eq!(record.event_version(), Some("1.1"));
        assert_eq!(record.aws_region(), Some("us-east-1"));
        assert_eq!(record.event_id().map(str::len), Some(32));
        assert!(record.user_identity().is_none(), "a request's change names no service");
    }
    let ids: std::collections::BTreeSet<_> = records.iter().map(|r| r.event_id().unwrap().to_owned()).collect();
    assert_eq!(ids.len(), records.len(), "every record has its own event id");
}

#[tokio::test(start_paused = true)]
async fn the_view_type_decides_which_images_a_record_carries() {
    let fake = fake();
    let client = fake.client();
    let mut arns = Vec::new();
    for (name, view) in [
        ("KeysOnly", StreamViewType::KeysOnly),
        ("NewImage", StreamViewType::NewImage),
        ("OldImage", StreamViewType::OldImage),
        ("Both", StreamViewType::NewAndOldImages),
    ] {
        arns.push((table_with_stream(&fake, name, false, view.clone()).await, view));
        client.put_item().table_name(name).item("pk", s("k")).item("a", s("1")).send().await.unwrap();
        client.put_item().table_name(name).item("pk", s("k")).item("a", s("2")).send().await.unwrap();
        client.delete_item().table_name(name).key("pk", s("k")).send().await.unwrap();
    }
    let streams = fake.streams_client();
    for (arn, view) in arns {
        let records = read_all(&streams, &arn).await;
        assert_eq!(events(&records), ["INSERT", "MODIFY", "REMOVE"], "{view:?}");
        let has = |r: &Record| (dynamodb(r).old_image.is_some(), dynamodb(r).new_image.is_some());
        let shapes: Vec<_> = records.iter().map(has).collect();
        let expected = match view {
            StreamViewType::KeysOnly => [(false, false); 3],
            StreamViewType::NewImage => [(false, true), (false, true), (false, false)],
            StreamViewType::OldImage => [(false, false), (true, false), (true, false)],
            _ => [(false, true), (true, true), (true, false)],
        };
        assert_eq!(shapes, expected, "{view:?}");
        for record in &records {
            assert_eq!(dynamodb(record).stream_view_type().map(|v| v.as_str()), Some(view.as_str()));
        }
        // SizeBytes counts the keys and the images carried: {pk: "k"} is 3 bytes, {pk, a} 5.
        let sizes: Vec<_> = records.iter().map(|r| dynamodb(r).size_bytes().unwrap()).collect();
        let expected = match view {
            StreamViewType::KeysOnly => [3, 3, 3],
            StreamViewType::NewImage => [8, 8, 3],
            StreamViewType::OldImage => [3, 8, 8],
            _ => [8, 13, 8],
        };
        assert_eq!(sizes, expected, "{view:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn batches_and_transactions_leave_one_record_per_item_they_change() {
    let fake = fake();
    let arn = table_with_stream(&fake, "Shop", false, StreamViewType::KeysOnly).await;
    let client = fake.client();
    let put = |pk: &str| {
        let item = HashMap::from([("pk".to_owned(), s(pk))]);
        WriteRequest::builder().put_request(PutRequest::builder().set_item(Some(item)).build().unwrap()).build()
    };
    client.batch_write_item().request_items("Shop", vec![put("a"), put("b"), put("c")]).send().await.unwrap();
    // A batch that writes the same items again changes nothing.
    client.batch_write_item().request_items("Shop", vec![put("a"), put("b")]).send().await.unwrap();
    let delete = Delete::builder().table_name("Shop").key("pk", s("a")).build().unwrap();
    let add = Put::builder().table_name("Shop").item("pk", s("d")).build().unwrap();
    client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().delete(delete).build())
        .transact_items(TransactWriteItem::builder().put(add).build())
        .send()
        .await
        .unwrap();
    // A cancelled transaction leaves nothing.
    let refused = Put::builder().table_name("Shop").item("pk", s("e")).condition_expression("attribute_exists(pk)");
    let cancelled = client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().put(refused.build().unwrap()).build())
        .send()
        .await;
    assert!(cancelled.is_err());

    let records = read_all(&fake.streams_client(), &arn).await;
    let changes: Vec<_> = records
        .iter()
        .map(|r| {
            let keys = dynamodb(r).keys.as_ref().unwrap();
            (r.event_name().unwrap().clone(), keys["pk"].as_s().unwrap().clone())
        })
        .collect();
    let expected = [
        (OperationType::Insert, "a"),
        (OperationType::Insert, "b"),
        (OperationType::Insert, "c"),
        (OperationType::Remove, "a"),
        (OperationType::Insert, "d"),
    ];
    assert_eq!(changes, expected.map(|(kind, pk)| (kind, pk.to_owned())));
    let numbers: Vec<u128> = records.iter().map(|r| dynamodb(r).sequence_number().unwrap().parse().unwrap()).collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "sequence numbers rise within the shard: {numbers:?}");
    assert!(records.iter().all(|r| {
        let number = dynamodb(r).sequence_number().unwrap();
        (21..=40).contains(&number.len()) && number.bytes().all(|b| b.is_ascii_digit())
    }));
}

#[tokio::test(start_paused = true)]
async fn a_time_to_live_deletion_is_a_removal_by_the_dynamodb_service_at_the_sweep_time() {
    let fake = fake();
    let arn = table_with_stream(&fake, "Shop", false, StreamViewType::OldImage).await;
    let client = fake.client();
    let spec = TimeToLiveSpecification::builder().enabled(true).attribute_name("ttl").build().unwrap();
    client.update_time_to_live().table_name("Shop").time_to_live_specification(spec).send().await.unwrap();
    let expires = AttributeValue::N((START_SECS + 60).to_string());
    client.put_item().table_name("Shop").item("pk", s("gone")).item("ttl", expires).send().await.unwrap();
    tokio::time::advance(Duration::from_secs(90)).await;
    assert_eq!(fake.sweep_ttl(), 1);

    let records = read_all(&fake.streams_client(), &arn).await;
    assert_eq!(events(&records), ["INSERT", "REMOVE"]);
    let removal = &records[1];
    let identity = removal.user_identity().expect("a time-to-live deletion names its user");
    assert_eq!((identity.r#type(), identity.principal_id()), (Some("Service"), Some("dynamodb.amazonaws.com")));
    assert!(records[0].user_identity().is_none());
    let at = |r: &Record| dynamodb(r).approximate_creation_date_time().unwrap().secs() as u64;
    assert_eq!((at(&records[0]), at(removal)), (START_SECS, START_SECS + 90));
    let old = strings(dynamodb(removal).old_image.as_ref()).unwrap();
    assert!(old.contains(&("pk".to_owned(), "gone".to_owned())));
}

#[tokio::test(start_paused = true)]
async fn a_table_without_a_stream_writes_no_records_and_lists_no_stream() {
    let fake = fake();
    fake.create_table("Plain", "pk", None);
    fake.client().put_item().table_name("Plain").item("pk", s("a")).send().await.unwrap();
    let listed = fake.streams_client().list_streams().table_name("Plain").send().await.unwrap();
    assert!(listed.streams().is_empty());
    let described = fake.client().describe_table().table_name("Plain").send().await.unwrap();
    let table = described.table().unwrap();
    assert!(table.latest_stream_arn().is_none() && table.stream_specification().is_none());
}
