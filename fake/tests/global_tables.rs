//! Global tables, version 2019.11.21: `UpdateTable` with `ReplicaUpdates` makes a replica of a
//! table in another region of the same account, with the table's items; each later write reaches
//! the other replicas after the replication lag, on the fake's clock; of two writes of one item in
//! two regions the later wins everywhere; both regions' streams carry the records; a fault stalls
//! a replica; DescribeTable shows the replicas. What the fake does not build is refused.

mod support;

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, CreateReplicationGroupMemberAction, DeleteReplicationGroupMemberAction,
    KeySchemaElement, KeyType, ProvisionedThroughput, ReplicationGroupUpdate, ScalarAttributeType, StreamSpecification,
    TimeToLiveSpecification, UpdateReplicationGroupMemberAction,
};
use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use dynalease_fake::{FakeDynamoDb, Fault, FaultRule};
use support::s;

const ACCOUNT: &str = "111122223333";
const EAST: &str = "us-east-1";
const WEST: &str = "eu-west-1";

async fn create(client: &Client, billing: BillingMode) {
    let mut request = client
        .create_table()
        .table_name("Orders")
        .attribute_definitions(
            AttributeDefinition::builder().attribute_name("pk").attribute_type(ScalarAttributeType::S).build().unwrap(),
        )
        .key_schema(KeySchemaElement::builder().attribute_name("pk").key_type(KeyType::Hash).build().unwrap())
        .billing_mode(billing.clone());
    if billing == BillingMode::Provisioned {
        request = request.provisioned_throughput(
            ProvisionedThroughput::builder().read_capacity_units(5).write_capacity_units(5).build().unwrap(),
        );
    }
    request.send().await.unwrap();
}

fn create_in(region: &str) -> ReplicationGroupUpdate {
    ReplicationGroupUpdate::builder()
        .create(CreateReplicationGroupMemberAction::builder().region_name(region).build().unwrap())
        .build()
}

fn delete_in(region: &str) -> ReplicationGroupUpdate {
    ReplicationGroupUpdate::builder()
        .delete(DeleteReplicationGroupMemberAction::builder().region_name(region).build().unwrap())
        .build()
}

async fn put(client: &Client, pk: &str, by: &str) {
    client.put_item().table_name("Orders").item("pk", s(pk)).item("by", s(by)).send().await.unwrap();
}

async fn by(client: &Client, pk: &str) -> Option<String> {
    let got = client.get_item().table_name("Orders").key("pk", s(pk)).consistent_read(true).send().await.unwrap();
    got.item().and_then(|item| item.get("by")).and_then(|v| v.as_s().ok()).cloned()
}

/// A fake, and clients of one account in two regions, with `Orders` in us-east-1 replicated to
/// eu-west-1.
async fn replicated() -> (FakeDynamoDb, Client, Client) {
    let fake = FakeDynamoDb::new();
    let (east, west) = (fake.client_for(ACCOUNT, EAST), fake.client_for(ACCOUNT, WEST));
    create(&east, BillingMode::PayPerRequest).await;
    east.update_table().table_name("Orders").replica_updates(create_in(WEST)).send().await.unwrap();
    (fake, east, west)
}

async fn refusal(client: &Client, updates: Vec<ReplicationGroupUpdate>) -> (String, String) {
    let err = client.update_table().table_name("Orders").set_replica_updates(Some(updates)).send().await.unwrap_err();
    let err = err.into_service_error();
    (err.code().unwrap_or_default().to_owned(), err.message().unwrap_or_default().to_owned())
}

#[tokio::test(start_paused = true)]
async fn a_replica_gets_the_tables_items_and_each_later_write_after_the_lag() {
    let fake = FakeDynamoDb::new();
    let (east, west) = (fake.client_for(ACCOUNT, EAST), fake.client_for(ACCOUNT, WEST));
    create(&east, BillingMode::PayPerRequest).await;
    put(&east, "o1", "east").await;
    let updated = east.update_table().table_name("Orders").replica_updates(create_in(WEST)).send().await.unwrap();
    let description = updated.table_description().unwrap();
    assert_eq!(description.global_table_version(), Some("2019.11.21"));
    assert_eq!(description.replicas()[0].region_name(), Some(WEST));

    let here = east.describe_table().table_name("Orders").send().await.unwrap();
    let here = here.table().unwrap();
    assert_eq!(here.replicas().len(), 1, "each region lists the other replicas, not itself");
    assert_eq!(here.replicas()[0].replica_status().map(|s| s.as_str()), Some("ACTIVE"));
    let stream = here.stream_specification().unwrap();
    assert_eq!(stream.stream_view_type().map(|v| v.as_str()), Some("NEW_AND_OLD_IMAGES"), "a stream is turned on");
    let there = west.describe_table().table_name("Orders").send().await.unwrap();
    let there = there.table().unwrap();
    assert_eq!(there.table_arn(), Some("arn:aws:dynamodb:eu-west-1:111122223333:table/Orders"));
    assert_eq!(there.replicas()[0].region_name(), Some(EAST));
    assert_eq!(there.global_table_version(), Some("2019.11.21"));
    assert_ne!(there.table_id(), here.table_id());
    assert_eq!(by(&west, "o1").await.as_deref(), Some("east"), "the replica starts with the table's items");

    put(&east, "o2", "east").await;
    assert_eq!(by(&west, "o2").await, None, "a write is not there before the lag");
    tokio::time::advance(Duration::from_millis(999)).await;
    assert_eq!(by(&west, "o2").await, None);
    tokio::time::advance(Duration::from_millis(1)).await;
    assert_eq!(by(&west, "o2").await.as_deref(), Some("east"));

    west.delete_item().table_name("Orders").key("pk", s("o1")).send().await.unwrap();
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(by(&east, "o1").await, None, "writes go both ways");
    // The other accounts and the default region of the account see none of it.
    assert!(fake.client_for(ACCOUNT, "ap-south-1").list_tables().send().await.unwrap().table_names().is_empty());
}

#[tokio::test(start_paused = true)]
async fn two_writes_of_one_item_in_two_regions_resolve_to_the_later_in_both_and_both_streams_show_it() {
    let (fake, east, west) = replicated().await;
    put(&east, "x", "east").await;
    tokio::time::advance(Duration::from_millis(100)).await;
    put(&west, "x", "west").await;
    tokio::time::advance(Duration::from_secs(2)).await;
    assert_eq!(by(&east, "x").await.as_deref(), Some("west"));
    assert_eq!(by(&west, "x").await.as_deref(), Some("west"), "the earlier write reaching eu-west-1 is dropped");

    let records = |region: &'static str| {
        let streams = fake.streams_client_for(ACCOUNT, region);
        async move {
            let arn = streams.list_streams().send().await.unwrap().streams()[0].stream_arn().unwrap().to_owned();
            let described = streams.describe_stream().stream_arn(&arn).send().await.unwrap();
            let shard = described.stream_description().unwrap().shards()[0].shard_id().unwrap().to_owned();
            let iterator = streams
                .get_shard_iterator()
                .stream_arn(&arn)
                .shard_id(shard)
                .shard_iterator_type(ShardIteratorType::TrimHorizon)
                .send()
                .await
                .unwrap();
            let page = streams.get_records().shard_iterator(iterator.shard_iterator().unwrap()).send().await.unwrap();
            page.records()
                .iter()
                .map(|record| {
                    let image = record.dynamodb().unwrap().new_image().unwrap();
                    (record.event_name().unwrap().as_str().to_owned(), image["by"].as_s().unwrap().clone())
                })
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        records(EAST).await,
        [("INSERT".to_owned(), "east".to_owned()), ("MODIFY".to_owned(), "west".to_owned())]
    );
    assert_eq!(records(WEST).await, [("INSERT".to_owned(), "west".to_owned())]);
}

#[tokio::test(start_paused = true)]
async fn a_stalled_replica_receives_nothing_until_the_stall_is_removed_then_everything_in_order() {
    let (fake, east, west) = replicated().await;
    fake.inject(FaultRule::new(Fault::StallReplication).account(ACCOUNT).region(WEST).table("Orders"));
    put(&east, "a", "first").await;
    put(&east, "a", "second").await;
    put(&west, "b", "west").await;
    tokio::time::advance(Duration::from_secs(60)).await;
    assert_eq!(by(&west, "a").await, None, "stalled");
    assert_eq!(by(&east, "b").await.as_deref(), Some("west"), "the other way still flows");
    fake.clear_faults();
    assert_eq!(by(&west, "a").await.as_deref(), Some("second"));
}

#[tokio::test(start_paused = true)]
async fn the_lag_is_the_fakes_to_choose() {
    let fake = FakeDynamoDb::builder().replication_lag(Duration::from_secs(5)).build();
    let (east, west) = (fake.client_for(ACCOUNT, EAST), fake.client_for(ACCOUNT, WEST));
    create(&east, BillingMode::PayPerRequest).await;
    east.update_table().table_name("Orders").replica_updates(create_in(WEST)).send().await.unwrap();
    put(&east, "o", "east").await;
    tokio::time::advance(Duration::from_secs(4)).await;
    assert_eq!(by(&west, "o").await, None);
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(by(&west, "o").await.as_deref(), Some("east"));
}

#[tokio::test(start_paused = true)]
async fn deleting_the_replica_leaves_a_regional_table_and_time_to_live_is_shared_while_replicated() {
    let (_fake, east, west) = replicated().await;
    let ttl = TimeToLiveSpecification::builder().enabled(true).attribute_name("expires").build().unwrap();
    west.update_time_to_live().table_name("Orders").time_to_live_specification(ttl).send().await.unwrap();
    let described = east.describe_time_to_live().table_name("Orders").send().await.unwrap();
    assert_eq!(described.time_to_live_description().unwrap().attribute_name(), Some("expires"));

    east.update_table().table_name("Orders").replica_updates(delete_in(WEST)).send().await.unwrap();
    let err = west.describe_table().table_name("Orders").send().await.unwrap_err();
    assert!(err.into_service_error().is_resource_not_found_exception());
    let table = east.describe_table().table_name("Orders").send().await.unwrap();
    let table = table.table().unwrap();
    assert!(table.replicas().is_empty() && table.global_table_version().is_none(), "a regional table again");
    put(&east, "after", "east").await;
    let spec = StreamSpecification::builder().stream_enabled(false).build().unwrap();
    east.update_table().table_name("Orders").stream_specification(spec).send().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn replica_updates_are_refused_in_dynamodbs_words() {
    let (_fake, east, west) = replicated().await;
    let err = east
        .update_table()
        .table_name("Orders")
        .replica_updates(create_in("ap-south-1"))
        .deletion_protection_enabled(true)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        err.message(),
        Some(
            "One or more parameter values were invalid: Replica modification must be the only operation in the request"
        )
    );
    assert_eq!(
        refusal(&east, vec![create_in("ap-south-1"), create_in("eu-central-1")]).await.1,
        "Update table operation with more than one create or delete replica actions not allowed"
    );
    let both = ReplicationGroupUpdate::builder()
        .create(CreateReplicationGroupMemberAction::builder().region_name("ap-south-1").build().unwrap())
        .delete(DeleteReplicationGroupMemberAction::builder().region_name(WEST).build().unwrap())
        .build();
    assert_eq!(
        refusal(&east, vec![both]).await.1,
        "Update table operation with more than one type of replica actions not allowed."
    );
    let region_only = ReplicationGroupUpdate::builder()
        .update(UpdateReplicationGroupMemberAction::builder().region_name(WEST).build().unwrap())
        .build();
    assert_eq!(
        refusal(&east, vec![region_only]).await.1,
        "There are no actions specified in the Replica Update Action of the request."
    );
    assert_eq!(
        refusal(&east, vec![create_in(EAST)]).await.1,
        "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required."
    );
    assert_eq!(
        refusal(&east, vec![delete_in("ca-central-1")]).await.1,
        "Update global table operation failed because one or more replicas were not part of the global table. \
         Please retry the request without these replicas: [ca-central-1]."
    );
    assert_eq!(
        refusal(&east, vec![create_in(WEST)]).await.1,
        "Failed to create a the new replica of table with name: \u{2018}Orders\u{2019} because one or more replicas \
         already existed as tables."
    );
    let (code, message) = refusal(&east, vec![create_in("EU-WEST-1")]).await;
    assert_eq!(code, "ValidationException");
    assert!(message.starts_with("Region EU-WEST-1 is not supported."), "{message}");
    // A replica's stream cannot be turned off, in any region.
    let off = StreamSpecification::builder().stream_enabled(false).build().unwrap();
    let err = west.update_table().table_name("Orders").stream_specification(off).send().await.unwrap_err();
    assert_eq!(
        err.into_service_error().message(),
        Some("One or more parameter values were invalid: Disabling Stream is not allowed for a Global Table replica.")
    );
    // What the fake does not carry to the replicas is refused, never accepted and ignored.
    let err = west
        .update_table()
        .table_name("Orders")
        .table_class(aws_sdk_dynamodb::types::TableClass::StandardInfrequentAccess)
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().message().unwrap().starts_with("dynalease-fake does not carry TableClass"));
}

#[tokio::test(start_paused = true)]
async fn a_provisioned_table_or_a_name_taken_in_the_region_gets_no_replica() {
    let fake = FakeDynamoDb::new();
    let (east, west) = (fake.client_for(ACCOUNT, EAST), fake.client_for(ACCOUNT, WEST));
    create(&east, BillingMode::Provisioned).await;
    assert_eq!(
        refusal(&east, vec![create_in(WEST)]).await.1,
        "Table write capacity should either be Pay-Per-Request or AutoScaled."
    );
    let other = fake.client_for(ACCOUNT, "us-west-2");
    create(&other, BillingMode::PayPerRequest).await;
    create(&west, BillingMode::PayPerRequest).await;
    assert!(refusal(&other, vec![create_in(WEST)]).await.1.contains("already existed as tables"));
    assert!(east.describe_table().table_name("Orders").send().await.unwrap().table().unwrap().replicas().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_reset_forgets_the_writes_on_their_way_into_what_it_empties() {
    let (fake, east, west) = replicated().await;
    put(&east, "old", "east").await;
    fake.reset();
    // The same global table made again before the old write is due.
    create(&east, BillingMode::PayPerRequest).await;
    east.update_table().table_name("Orders").replica_updates(create_in(WEST)).send().await.unwrap();
    tokio::time::advance(Duration::from_secs(2)).await;
    assert_eq!(by(&west, "old").await, None, "a write of the tables a reset removed never lands in their successors");
    assert_eq!(by(&east, "old").await, None);
}
