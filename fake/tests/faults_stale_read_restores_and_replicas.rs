//! `Fault::StaleRead` beside backups, point-in-time recovery and global tables: a table made with
//! its items (restored from a backup or to a point in time, a new replica) is never read stale as
//! if it had been empty, and a write replicated into a region is stale there from when it arrived,
//! as a write made there would be.

mod support;

use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, CreateReplicationGroupMemberAction, KeySchemaElement, KeyType,
    PointInTimeRecoverySpecification, ReplicationGroupUpdate, ScalarAttributeType,
};
use dynalease_fake::{FakeDynamoDb, Fault, FaultRule, RequestRecord};
use support::s;

const BOUND: Duration = Duration::from_secs(1);
const ACCOUNT: &str = "111122223333";
const EAST: &str = "us-east-1";
const WEST: &str = "eu-west-1";

fn fake(seed: u64) -> FakeDynamoDb {
    let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    FakeDynamoDb::builder().seed(seed).start_time(start).build()
}

async fn put(client: &Client, table: &str, pk: &str, v: &str) {
    client.put_item().table_name(table).item("pk", s(pk)).item("v", s(v)).send().await.unwrap();
}

/// The `v` of the item `pk` of `table`, as an eventually consistent GetItem sees it (or a
/// strongly consistent one if `consistent`).
async fn get_v(client: &Client, table: &str, pk: &str, consistent: bool) -> Option<String> {
    let got = client.get_item().table_name(table).key("pk", s(pk)).consistent_read(consistent).send().await.unwrap();
    got.item.and_then(|item| item.get("v").and_then(|v| v.as_s().ok()).cloned())
}

fn last_record(fake: &FakeDynamoDb) -> RequestRecord {
    fake.request_log().pop().expect("a request was logged")
}

#[tokio::test(start_paused = true)]
async fn a_table_restored_from_a_backup_or_to_a_point_in_time_is_never_read_as_empty() {
    let fake = fake(3);
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    put(&client, "Shop", "a", "1").await;
    let on = PointInTimeRecoverySpecification::builder().point_in_time_recovery_enabled(true).build().unwrap();
    client
        .update_continuous_backups()
        .table_name("Shop")
        .point_in_time_recovery_specification(on)
        .send()
        .await
        .unwrap();
    let backup = client.create_backup().table_name("Shop").backup_name("nightly").send().await.unwrap();
    let backup_arn = backup.backup_details().unwrap().backup_arn().to_owned();
    tokio::time::advance(Duration::from_secs(600)).await;

    fake.inject(FaultRule::new(Fault::StaleRead(BOUND)));
    client.restore_table_from_backup().backup_arn(backup_arn).target_table_name("FromBackup").send().await.unwrap();
    client
        .restore_table_to_point_in_time()
        .source_table_name("Shop")
        .target_table_name("FromTime")
        .use_latest_restorable_time(true)
        .send()
        .await
        .unwrap();
    let restored = fake.now();
    for table in ["FromBackup", "FromTime"] {
        let mut looked_back = 0;
        for _ in 0..20 {
            assert_eq!(get_v(&client, table, "a", false).await.as_deref(), Some("1"), "{table}");
            let seen = last_record(&fake).read_as_of.expect("the read was stale");
            looked_back += usize::from(seen < restored);
        }
        assert!(looked_back > 0, "{table}: some reads looked back to before the restore");
    }
}

/// `Orders` in the east with the item `o1` (`v` = "first"), and a rule that makes the reads in the
/// west stale.
async fn orders(fake: &FakeDynamoDb, east: &Client) {
    east.create_table()
        .table_name("Orders")
        .attribute_definitions(
            AttributeDefinition::builder().attribute_name("pk").attribute_type(ScalarAttributeType::S).build().unwrap(),
        )
        .key_schema(KeySchemaElement::builder().attribute_name("pk").key_type(KeyType::Hash).build().unwrap())
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    put(east, "Orders", "o1", "first").await;
    fake.inject(FaultRule::new(Fault::StaleRead(BOUND)).region(WEST));
}

async fn replicate_to_west(east: &Client) {
    let replica = CreateReplicationGroupMemberAction::builder().region_name(WEST).build().unwrap();
    let update = ReplicationGroupUpdate::builder().create(replica).build();
    east.update_table().table_name("Orders").replica_updates(update).send().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_replica_made_while_reads_are_stale_has_its_items_at_once() {
    let fake = fake(5);
    let (east, west) = (fake.client_for(ACCOUNT, EAST), fake.client_for(ACCOUNT, WEST));
    orders(&fake, &east).await;
    west.list_tables().send().await.unwrap();
    replicate_to_west(&east).await;
    let made = fake.now();
    let mut looked_back = 0;
    for _ in 0..20 {
        assert_eq!(get_v(&west, "Orders", "o1", false).await.as_deref(), Some("first"), "the replica's items");
        looked_back += usize::from(last_record(&fake).read_as_of.expect("reads in the west are stale") < made);
    }
    assert!(looked_back > 0, "some reads looked back to before the replica was made");
}

#[tokio::test(start_paused = true)]
async fn a_write_replicated_into_a_region_is_stale_there_from_its_arrival() {
    let fake = fake(7);
    let (east, west) = (fake.client_for(ACCOUNT, EAST), fake.client_for(ACCOUNT, WEST));
    orders(&fake, &east).await;
    replicate_to_west(&east).await;
    tokio::time::advance(2 * BOUND).await;
    put(&east, "Orders", "o1", "second").await;
    // The replication lag is a second: the write arrives in the west then, applied by the next
    // request of the account, here one in the east.
    let arrives = fake.now() + Duration::from_secs(1);
    tokio::time::advance(Duration::from_millis(1400)).await;
    assert_eq!(get_v(&east, "Orders", "o1", false).await.as_deref(), Some("second"), "the east is not stale");

    let (mut before, mut after) = (0, 0);
    for _ in 0..40 {
        let seen = get_v(&west, "Orders", "o1", false).await;
        let instant = last_record(&fake).read_as_of.expect("reads in the west are stale");
        if instant < arrives {
            assert_eq!(seen.as_deref(), Some("first"), "a read of an instant before the write arrived");
            before += 1;
        } else {
            assert_eq!(seen.as_deref(), Some("second"));
            after += 1;
        }
    }
    assert!(
        before > 0 && after > 0,
        "lags of up to a second, 400 ms after the arrival: {before} before, {after} after"
    );
    assert_eq!(get_v(&west, "Orders", "o1", true).await.as_deref(), Some("second"), "a consistent read sees it");
}
