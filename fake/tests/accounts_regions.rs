//! One fake holds any number of accounts and regions, as DynamoDB does: each account and region
//! has its own tables, indexes, streams, tags and time-to-live sweeps, named by ARNs of their
//! own, and a client of one never sees another's. `FakeDynamoDb::client_for` hands out a client
//! for any account and region; `client()` is for the account `000000000000` in `us-east-1`.

mod support;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType, StreamSpecification,
    StreamViewType, Tag, TimeToLiveSpecification,
};
use dynalease_fake::{ControlledClock, FakeDynamoDb, Fault, FaultRule, Snapshot};
use support::s;

const ALICE: &str = "111111111111";
const BOB: &str = "222222222222";

async fn create(client: &Client, name: &str) -> String {
    let created = client
        .create_table()
        .table_name(name)
        .attribute_definitions(
            AttributeDefinition::builder().attribute_name("pk").attribute_type(ScalarAttributeType::S).build().unwrap(),
        )
        .key_schema(KeySchemaElement::builder().attribute_name("pk").key_type(KeyType::Hash).build().unwrap())
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    created.table_description().unwrap().table_arn().unwrap().to_owned()
}

async fn put(client: &Client, table: &str, pk: &str, owner: &str) {
    client.put_item().table_name(table).item("pk", s(pk)).item("owner", s(owner)).send().await.unwrap();
}

async fn owner(client: &Client, table: &str, pk: &str) -> Option<String> {
    let got = client.get_item().table_name(table).key("pk", s(pk)).consistent_read(true).send().await.unwrap();
    got.item().and_then(|item| item.get("owner")).and_then(|v| v.as_s().ok()).cloned()
}

async fn table_names(client: &Client) -> Vec<String> {
    client.list_tables().send().await.unwrap().table_names().to_vec()
}

#[tokio::test(start_paused = true)]
async fn two_accounts_with_a_table_of_the_same_name_never_see_each_other() {
    let fake = FakeDynamoDb::new();
    let (alice, bob) = (fake.client_for(ALICE, "us-east-1"), fake.client_for(BOB, "us-east-1"));
    let alice_arn = create(&alice, "Orders").await;
    assert_eq!(table_names(&bob).await, Vec::<String>::new(), "Bob's account has no table yet");
    let bob_arn = create(&bob, "Orders").await;
    assert_eq!(alice_arn, "arn:aws:dynamodb:us-east-1:111111111111:table/Orders");
    assert_eq!(bob_arn, "arn:aws:dynamodb:us-east-1:222222222222:table/Orders");

    put(&alice, "Orders", "o1", "alice").await;
    put(&bob, "Orders", "o1", "bob").await;
    put(&bob, "Orders", "o2", "bob").await;
    assert_eq!(owner(&alice, "Orders", "o1").await.as_deref(), Some("alice"));
    assert_eq!(owner(&bob, "Orders", "o1").await.as_deref(), Some("bob"));
    assert_eq!(owner(&alice, "Orders", "o2").await, None);
    assert_eq!(alice.scan().table_name("Orders").send().await.unwrap().count(), 1);
    assert_eq!(bob.scan().table_name("Orders").send().await.unwrap().count(), 2);

    // The default account's client sees neither, and deleting one account's table leaves the other's.
    assert_eq!(table_names(&fake.client()).await, Vec::<String>::new());
    alice.delete_table().table_name("Orders").send().await.unwrap();
    assert_eq!(table_names(&alice).await, Vec::<String>::new());
    assert_eq!(owner(&bob, "Orders", "o2").await.as_deref(), Some("bob"));
    let described = bob.describe_table().table_name(&bob_arn).send().await.unwrap();
    assert_eq!(described.table().unwrap().table_arn(), Some(bob_arn.as_str()));
}

#[tokio::test(start_paused = true)]
async fn two_regions_of_one_account_hold_tables_of_their_own_named_by_their_region() {
    let fake = FakeDynamoDb::new();
    let (east, west) = (fake.client_for(ALICE, "us-east-1"), fake.client_for(ALICE, "eu-west-1"));
    let east_arn = create(&east, "Orders").await;
    let west_arn = create(&west, "Orders").await;
    assert_eq!(west_arn, "arn:aws:dynamodb:eu-west-1:111111111111:table/Orders");
    put(&east, "Orders", "o1", "east").await;
    assert_eq!(owner(&west, "Orders", "o1").await, None);
    assert_eq!(owner(&east, "Orders", "o1").await.as_deref(), Some("east"));

    // A table's ARN names it in its own region only: elsewhere it names no table.
    let err = west.get_item().table_name(&east_arn).key("pk", s("o1")).send().await.unwrap_err();
    assert!(err.into_service_error().is_resource_not_found_exception());
    let endpoints = west.describe_endpoints().send().await.unwrap();
    assert_eq!(endpoints.endpoints()[0].address(), "dynamodb.eu-west-1.amazonaws.com");
}

#[tokio::test(start_paused = true)]
async fn streams_and_tags_belong_to_their_account_and_region() {
    let fake = FakeDynamoDb::new();
    let (alice, bob) = (fake.client_for(ALICE, "eu-west-1"), fake.client_for(BOB, "eu-west-1"));
    let spec = StreamSpecification::builder().stream_enabled(true).stream_view_type(StreamViewType::NewImage);
    for client in [&alice, &bob] {
        create(client, "Orders").await;
        client
            .update_table()
            .table_name("Orders")
            .stream_specification(spec.clone().build().unwrap())
            .send()
            .await
            .unwrap();
    }
    put(&alice, "Orders", "o1", "alice").await;

    let alice_streams = fake.streams_client_for(ALICE, "eu-west-1");
    let listed = alice_streams.list_streams().send().await.unwrap();
    assert_eq!(listed.streams().len(), 1);
    let arn = listed.streams()[0].stream_arn().unwrap().to_owned();
    assert!(arn.starts_with("arn:aws:dynamodb:eu-west-1:111111111111:table/Orders/stream/"), "{arn}");
    let shard = alice_streams.describe_stream().stream_arn(&arn).send().await.unwrap();
    let shard_id = shard.stream_description().unwrap().shards()[0].shard_id().unwrap().to_owned();
    let iterator = alice_streams
        .get_shard_iterator()
        .stream_arn(&arn)
        .shard_id(shard_id)
        .shard_iterator_type(aws_sdk_dynamodbstreams::types::ShardIteratorType::TrimHorizon)
        .send()
        .await
        .unwrap();
    let records = alice_streams.get_records().shard_iterator(iterator.shard_iterator().unwrap()).send().await.unwrap();
    assert_eq!(records.records().len(), 1, "only Alice's write is in Alice's stream");

    // Bob's stream reader does not find Alice's stream, and Bob's stream holds no record.
    let bob_streams = fake.streams_client_for(BOB, "eu-west-1");
    assert!(bob_streams.describe_stream().stream_arn(&arn).send().await.is_err());
    let bob_arn = bob_streams.list_streams().send().await.unwrap().streams()[0].stream_arn().unwrap().to_owned();
    assert!(bob_arn.contains(":222222222222:"), "{bob_arn}");

    let alice_table = "arn:aws:dynamodb:eu-west-1:111111111111:table/Orders";
    alice
        .tag_resource()
        .resource_arn(alice_table)
        .tags(Tag::builder().key("team").value("a").build().unwrap())
        .send()
        .await
        .unwrap();
    let tags = alice.list_tags_of_resource().resource_arn(alice_table).send().await.unwrap();
    assert_eq!(tags.tags().len(), 1);
    assert!(
        bob.list_tags_of_resource().resource_arn(alice_table).send().await.is_err(),
        "Bob cannot read Alice's tags"
    );
    let bob_table = "arn:aws:dynamodb:eu-west-1:222222222222:table/Orders";
    assert!(bob.list_tags_of_resource().resource_arn(bob_table).send().await.unwrap().tags().is_empty());
}

#[tokio::test(start_paused = true)]
async fn time_to_live_sweeps_every_account_and_region() {
    let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let fake = FakeDynamoDb::builder().clock(Arc::new(ControlledClock::frozen_at(start))).build();
    let clients = [fake.client(), fake.client_for(ALICE, "eu-west-1"), fake.client_for(BOB, "ap-south-1")];
    let expires = (1_800_000_000 + 3600).to_string();
    for client in &clients {
        create(client, "Carts").await;
        let spec = TimeToLiveSpecification::builder().enabled(true).attribute_name("expires").build().unwrap();
        client.update_time_to_live().table_name("Carts").time_to_live_specification(spec).send().await.unwrap();
        client
            .put_item()
            .table_name("Carts")
            .item("pk", s("c1"))
            .item("expires", support::n(&expires))
            .send()
            .await
            .unwrap();
    }
    fake.advance_clock(Duration::from_secs(2 * 3600)).unwrap();
    for client in &clients {
        assert_eq!(owner(client, "Carts", "c1").await, None);
        assert_eq!(client.scan().table_name("Carts").send().await.unwrap().count(), 0);
    }
}

#[tokio::test(start_paused = true)]
async fn a_fault_rule_for_an_account_meets_that_accounts_requests_alone() {
    let fake = FakeDynamoDb::new();
    let (alice, bob) = (fake.client_for(ALICE, "us-east-1"), fake.client_for(BOB, "us-east-1"));
    create(&alice, "Orders").await;
    create(&bob, "Orders").await;
    fake.inject(FaultRule::new(Fault::error("AccessDeniedException", "no")).account(ALICE).operation("PutItem"));
    let err = alice.put_item().table_name("Orders").item("pk", s("o1")).send().await.unwrap_err();
    assert_eq!(aws_sdk_dynamodb::error::ProvideErrorMetadata::code(&err), Some("AccessDeniedException"));
    put(&bob, "Orders", "o1", "bob").await;

    fake.clear_faults();
    fake.inject(FaultRule::new(Fault::ResourceNotFound).region("eu-west-1"));
    put(&alice, "Orders", "o2", "alice").await;
    let west = fake.client_for(ALICE, "eu-west-1");
    assert!(west.list_tables().send().await.is_err());

    let log = fake.request_log();
    let last_put_by_bob = log.iter().rfind(|record| record.operation == "PutItem" && record.account == BOB).unwrap();
    assert_eq!((last_put_by_bob.region.as_str(), last_put_by_bob.error.as_deref()), ("us-east-1", None));
    let last = log.last().unwrap();
    assert_eq!((last.account.as_str(), last.region.as_str()), (ALICE, "eu-west-1"));
    let by_default = fake.client();
    by_default.list_tables().send().await.unwrap();
    let last = fake.request_log().pop().unwrap();
    assert_eq!((last.account.as_str(), last.region.as_str()), ("000000000000", "us-east-1"));
}

#[tokio::test(start_paused = true)]
async fn a_snapshot_keeps_every_account_and_region_and_restores_each_to_its_place() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let (alice, bob_west) = (fake.client_for(ALICE, "us-east-1"), fake.client_for(BOB, "eu-west-1"));
    create(&alice, "Shop").await;
    create(&bob_west, "Shop").await;
    put(&alice, "Shop", "a", "alice").await;
    put(&bob_west, "Shop", "b", "bob").await;

    let snapshot = fake.snapshot();
    let document: serde_json::Value = serde_json::from_str(&snapshot.to_json()).unwrap();
    assert_eq!(document["Tables"][0]["TableName"], "Shop");
    let places: Vec<(&str, &str)> = document["Regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|group| (group["Account"].as_str().unwrap(), group["Region"].as_str().unwrap()))
        .collect();
    assert_eq!(places, [(ALICE, "us-east-1"), (BOB, "eu-west-1")]);
    assert_eq!(snapshot.table_names(), ["Shop", "Shop", "Shop"]);

    let restored = FakeDynamoDb::builder().snapshot(Snapshot::from_json(&snapshot.to_json()).unwrap()).build();
    assert_eq!(owner(&restored.client_for(ALICE, "us-east-1"), "Shop", "a").await.as_deref(), Some("alice"));
    assert_eq!(owner(&restored.client_for(BOB, "eu-west-1"), "Shop", "b").await.as_deref(), Some("bob"));
    assert_eq!(owner(&restored.client_for(BOB, "eu-west-1"), "Shop", "a").await, None);
    let mut again: serde_json::Value = serde_json::from_str(&restored.snapshot().to_json()).unwrap();
    again["Time"] = document["Time"].clone();
    assert_eq!(again, document, "the same tables, with their ids, in the same places");

    fake.reset();
    for client in [fake.client(), alice, bob_west] {
        assert_eq!(table_names(&client).await, Vec::<String>::new(), "reset empties every account and region");
    }
}

#[test]
fn a_snapshot_that_names_a_place_twice_or_a_malformed_one_is_refused() {
    let group =
        |account: &str, region: &str| format!(r#"{{"Account": "{account}", "Region": "{region}", "Tables": []}}"#);
    let twice =
        format!(r#"{{"Tables": [], "Regions": [{}, {}]}}"#, group(ALICE, "eu-west-1"), group(ALICE, "eu-west-1"));
    let error = Snapshot::from_json(&twice).unwrap_err();
    assert!(error.message().contains("account \"111111111111\" in \"eu-west-1\" is given twice"), "{error}");
    let short = format!(r#"{{"Regions": [{}]}}"#, group("1234", "eu-west-1"));
    let error = Snapshot::from_json(&short).unwrap_err();
    assert!(error.message().contains("Account `1234` is not an account id of twelve digits"), "{error}");
    let bad_region = format!(r#"{{"Regions": [{}]}}"#, group(ALICE, "EU West"));
    assert!(
        Snapshot::from_json(&bad_region).unwrap_err().message().contains("Region `EU West` is not a region's name")
    );
    let nowhere = r#"{"Regions": [{"Tables": []}]}"#;
    assert!(Snapshot::from_json(nowhere).unwrap_err().message().contains("region 1 of Regions needs Account"));
}

#[test]
#[should_panic(expected = "an account id is twelve digits, not \"alice\"")]
fn a_client_for_an_account_that_is_not_twelve_digits_is_a_mistake_in_the_test() {
    let _ = FakeDynamoDb::new().client_for("alice", "us-east-1");
}

#[tokio::test(start_paused = true)]
async fn tables_of_different_accounts_get_different_ids() {
    let fake = FakeDynamoDb::new();
    let ids = table_ids_in_three_places(&fake).await;
    assert_ne!(ids[0], ids[1]);
    assert_ne!(ids[1], ids[2]);
}

async fn table_ids_in_three_places(fake: &FakeDynamoDb) -> Vec<String> {
    let mut ids = Vec::new();
    for client in [fake.client(), fake.client_for(ALICE, "us-east-1"), fake.client_for(ALICE, "eu-west-1")] {
        create(&client, "Ids").await;
        let described = client.describe_table().table_name("Ids").send().await.unwrap();
        ids.push(described.table().unwrap().table_id().unwrap().to_owned());
    }
    ids
}
