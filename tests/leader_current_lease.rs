//! The lease of the current term: where `Lease::current` flows and where it does not, and
//! `fenced_by_current` on a transaction.

mod support;

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
use dynalease::{Error, HeldCheck, LeaderError, Lease, TransactWriteExt};
use support::{LEASE, fake, locks};
use tokio_util::sync::CancellationToken;

fn put_order(id: &str) -> TransactWriteItem {
    let put = Put::builder()
        .table_name("Shop")
        .item("pk", AttributeValue::S(format!("ORDER#{id}")))
        .item("sk", AttributeValue::S("ORDER".into()))
        .item("status", AttributeValue::S("shipped".into()))
        .build()
        .unwrap();
    TransactWriteItem::builder().put(put).build()
}

/// Ships order `id` under the current lease, as code deep in the work of a leader does.
async fn ship(client: &Client, id: &str) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    client.transact_write_items().fenced_by_current()?.transact_items(put_order(id)).send().await?;
    Ok(())
}

async fn order_exists(client: &Client, id: &str) -> bool {
    let got = client
        .get_item()
        .table_name("Shop")
        .key("pk", AttributeValue::S(format!("ORDER#{id}")))
        .key("sk", AttributeValue::S("ORDER".into()))
        .send()
        .await
        .unwrap();
    got.item.is_some()
}

/// The fencing token of the current lease, if any.
fn current_token() -> Option<u64> {
    Lease::current().map(|lease| lease.fencing_token())
}

#[tokio::test(start_paused = true)]
async fn the_lease_of_the_term_is_current_in_its_work_and_everything_it_awaits() {
    let fake = fake();
    let locks = locks(&fake);
    locks.acquire("sweeper", LEASE).await.unwrap().release().await.unwrap();

    async fn deep() -> Option<u64> {
        tokio::task::yield_now().await;
        current_token()
    }
    let seen = locks
        .run_as_leader("sweeper", LEASE, CancellationToken::new(), |lease, _| {
            let before_the_future = current_token();
            async move { Ok::<_, String>((lease.fencing_token(), before_the_future, current_token(), deep().await)) }
        })
        .await
        .unwrap();

    assert_eq!(seen, (2, Some(2), Some(2), Some(2)));
}

#[tokio::test(start_paused = true)]
async fn no_lease_is_current_outside_a_term_nor_for_a_lease_from_acquire() {
    let fake = fake();
    let locks = locks(&fake);

    assert_eq!(current_token(), None);
    let lease = locks.acquire("sweeper", LEASE).await.unwrap();
    assert_eq!(current_token(), None, "an acquired lease is never current");
    lease.release().await.unwrap();
    locks
        .run_as_leader("sweeper", LEASE, CancellationToken::new(), |_, _| async { Ok::<(), String>(()) })
        .await
        .unwrap();
    assert_eq!(current_token(), None, "it does not flow back to the caller");
}

#[tokio::test(start_paused = true)]
async fn a_task_spawned_by_the_work_does_not_see_the_current_lease() {
    let fake = fake();
    let locks = locks(&fake);

    let seen = locks
        .run_as_leader("sweeper", LEASE, CancellationToken::new(), |_, _| async {
            let spawned = tokio::spawn(async { current_token() }).await.unwrap();
            Ok::<_, String>((current_token(), spawned))
        })
        .await
        .unwrap();

    assert_eq!(seen, (Some(1), None));
}

#[tokio::test(start_paused = true)]
async fn fenced_by_current_without_a_current_lease_is_a_clear_error() {
    let fake = fake();
    let client = fake.client();

    let err = client.transact_write_items().fenced_by_current().unwrap_err();

    assert!(matches!(err, Error::NoCurrentLease));
    assert!(err.to_string().contains("run_as_leader") && err.to_string().contains("fenced_by"), "{err}");
    let mut held = HeldCheck::default();
    assert!(matches!(client.transact_write_items().fenced_by_current_marked(&mut held), Err(Error::NoCurrentLease)));
    assert_eq!(held.index(), None);
}

#[tokio::test(start_paused = true)]
async fn fenced_by_current_commits_while_the_term_holds_the_lock() {
    let fake = fake();
    let client = fake.client();
    let locks = locks(&fake);

    locks.run_as_leader("sweeper", LEASE, CancellationToken::new(), |_, _| ship(&client, "1")).await.unwrap();

    assert!(order_exists(&client, "1").await);
    let checks = fake.request_log().iter().filter(|r| r.operation == "TransactWriteItems").count();
    assert_eq!(checks, 1);
}

#[tokio::test(start_paused = true)]
async fn fenced_by_current_fails_the_transaction_once_another_process_holds_the_lock() {
    let fake = fake();
    let client = fake.client();
    let locks = locks(&fake);
    let admin = support::locks(&fake);

    let ended = locks
        .run_as_leader("sweeper", LEASE, CancellationToken::new(), |_, _| async {
            admin.simulate_holder("sweeper", LEASE, "another-pod").await.unwrap();
            let mut held = HeldCheck::default();
            let sent = client
                .transact_write_items()
                .fenced_by_current_marked(&mut held)
                .unwrap()
                .transact_items(put_order("2"))
                .send()
                .await;
            // The lease is lost for the heartbeat only at its next renewal; DynamoDB knows now.
            Ok::<_, String>(sent.as_ref().is_err_and(|err| held.lost_lease(err)))
        })
        .await;

    assert!(ended.unwrap(), "the check failed the transaction");
    assert!(!order_exists(&client, "2").await);
}

#[tokio::test(start_paused = true)]
async fn a_lease_kept_past_its_term_has_ended_and_fails_its_transaction_at_dynamodb() {
    let fake = fake();
    let client = fake.client();
    let locks = locks(&fake);
    let kept: Arc<Mutex<Option<Lease>>> = Arc::default();

    locks
        .run_as_leader("sweeper", LEASE, CancellationToken::new(), |_, _| async {
            *kept.lock().unwrap() = Lease::current();
            Ok::<(), String>(())
        })
        .await
        .unwrap();
    let kept = kept.lock().unwrap().take().expect("kept in the term");
    let mut held = HeldCheck::default();
    let sent =
        client.transact_write_items().fenced_by_marked(&kept, &mut held).transact_items(put_order("3")).send().await;

    assert!(kept.ended().is_cancelled(), "the election released it when the term ended");
    assert!(held.lost_lease(&sent.unwrap_err()));
    assert!(!order_exists(&client, "3").await);
}

#[tokio::test(start_paused = true)]
async fn an_election_inside_the_work_of_another_makes_the_inner_lease_current() {
    let fake = fake();
    let locks = locks(&fake);
    locks.acquire("inner", LEASE).await.unwrap().release().await.unwrap();

    let seen = locks
        .run_as_leader("outer", LEASE, CancellationToken::new(), |_, _| async {
            let inner = locks
                .run_as_leader("inner", LEASE, CancellationToken::new(), |_, _| async {
                    Ok::<_, String>(Lease::current().map(|l| (l.name().to_owned(), l.fencing_token())))
                })
                .await
                .map_err(|err: LeaderError<String>| err.to_string())?;
            Ok::<_, String>((inner, Lease::current().map(|l| l.name().to_owned())))
        })
        .await
        .unwrap();

    assert_eq!(seen, (Some(("inner".to_owned(), 2)), Some("outer".to_owned())));
}
