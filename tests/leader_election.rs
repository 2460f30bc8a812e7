//! Leader election: the three ends of a term, contending again after a lost lease, transient
//! and fatal errors of an acquire, and an acquire that answers too late to start a term.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::types::AttributeValue;
use dynalease::{Error, LeaderError, Lease, LockTable, LockTableOptions, LossReason, TableRef};
use dynalease_fake::{Fault, FaultRule};
use support::{LEASE, client_without_retries, fake, locks, table};
use tokio_util::sync::CancellationToken;

/// Waits until `token` is cancelled, as work that honours its token does, and returns.
async fn until_cancelled(token: CancellationToken) -> Result<(), std::io::Error> {
    token.cancelled().await;
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn work_that_returns_on_its_own_ends_the_election_with_its_value_and_hands_the_lock_on() {
    let fake = fake();
    let locks = locks(&fake);

    let ended = locks
        .run_as_leader("sweeper", LEASE, CancellationToken::new(), |lease, _| async move {
            support::advance(Duration::from_secs(45)).await;
            Ok::<_, std::io::Error>(lease.fencing_token())
        })
        .await;

    assert_eq!(ended.unwrap(), 1);
    assert!(!locks.state("sweeper").await.unwrap().unwrap().is_held, "released");
    let next = locks.try_acquire("sweeper", LEASE).await.unwrap();
    assert_eq!(next.map(|l| l.fencing_token()), Some(2));
}

#[tokio::test(start_paused = true)]
async fn work_that_fails_on_its_own_ends_the_election_with_its_error_and_releases_the_lease() {
    let fake = fake();
    let locks = locks(&fake);

    let ended = locks
        .run_as_leader("sweeper", LEASE, CancellationToken::new(), |_, _| async { Err::<(), _>("bad order 17") })
        .await;

    assert!(matches!(ended, Err(LeaderError::Work("bad order 17"))));
    assert!(!locks.state("sweeper").await.unwrap().unwrap().is_held);
}

#[tokio::test(start_paused = true)]
async fn the_caller_stopping_a_term_cancels_the_work_releases_and_returns_cancelled_whatever_the_work_returned() {
    let fake = fake();
    let locks = locks(&fake);
    let stop = CancellationToken::new();
    let work_saw_cancel = Arc::new(AtomicU32::new(0));

    let election = tokio::spawn({
        let (locks, stop, seen) = (locks.clone(), stop.clone(), work_saw_cancel.clone());
        async move {
            locks
                .run_as_leader("sweeper", LEASE, stop, move |_, token| {
                    let seen = seen.clone();
                    async move {
                        token.cancelled().await;
                        seen.fetch_add(1, Ordering::SeqCst);
                        Ok::<_, std::io::Error>("the work finished its round")
                    }
                })
                .await
        }
    });
    support::advance(Duration::from_secs(100)).await;
    assert!(locks.state("sweeper").await.unwrap().unwrap().is_held, "leads, renewed");
    stop.cancel();

    assert!(matches!(election.await.unwrap(), Err(LeaderError::Cancelled)));
    assert_eq!(work_saw_cancel.load(Ordering::SeqCst), 1);
    assert!(!locks.state("sweeper").await.unwrap().unwrap().is_held, "released");
}

#[tokio::test(start_paused = true)]
async fn the_caller_stopping_while_another_process_leads_returns_cancelled_without_a_term() {
    let fake = fake();
    let leader = locks(&fake);
    let follower = locks(&fake);
    let _held = leader.acquire("sweeper", LEASE).await.unwrap();
    let stop = CancellationToken::new();
    let terms = Arc::new(AtomicU32::new(0));

    let election = tokio::spawn({
        let (follower, stop, terms) = (follower.clone(), stop.clone(), terms.clone());
        async move {
            follower
                .run_as_leader("sweeper", LEASE, stop, move |_, token| {
                    terms.fetch_add(1, Ordering::SeqCst);
                    until_cancelled(token)
                })
                .await
        }
    });
    support::advance(Duration::from_secs(25)).await;
    stop.cancel();

    assert!(election.await.unwrap().unwrap_err().is_cancelled());
    assert_eq!(terms.load(Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn a_follower_leads_at_its_next_poll_after_the_leader_stops() {
    let fake = fake();
    let (first, second) = (locks(&fake), locks(&fake));
    let (stop_first, stop_second) = (CancellationToken::new(), CancellationToken::new());
    let leading = |locks: LockTable, stop: CancellationToken, led: Arc<AtomicU32>| async move {
        locks
            .run_as_leader("sweeper", LEASE, stop, move |lease, token| {
                led.store(u32::try_from(lease.fencing_token()).unwrap(), Ordering::SeqCst);
                until_cancelled(token)
            })
            .await
    };
    let (led_first, led_second) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let one = tokio::spawn(leading(first, stop_first.clone(), led_first.clone()));
    support::settle().await;
    let two = tokio::spawn(leading(second, stop_second.clone(), led_second.clone()));
    support::advance(Duration::from_secs(60)).await;
    assert_eq!((led_first.load(Ordering::SeqCst), led_second.load(Ordering::SeqCst)), (1, 0));

    stop_first.cancel();
    assert!(one.await.unwrap().unwrap_err().is_cancelled());
    support::advance(LEASE / 3 + Duration::from_millis(1)).await;

    assert_eq!(led_second.load(Ordering::SeqCst), 2, "the follower took the released lock with the next token");
    stop_second.cancel();
    assert!(two.await.unwrap().unwrap_err().is_cancelled());
}

#[tokio::test(start_paused = true)]
async fn a_lost_lease_cancels_the_work_and_the_election_contends_again_whatever_the_work_returned() {
    let fake = fake();
    let locks = locks(&fake);
    let terms = Arc::new(AtomicU32::new(0));
    let admin = support::locks(&fake);

    let election = tokio::spawn({
        let (locks, terms) = (locks.clone(), terms.clone());
        async move {
            locks
                .run_as_leader("sweeper", LEASE, CancellationToken::new(), move |lease, token| {
                    let term = terms.fetch_add(1, Ordering::SeqCst) + 1;
                    async move {
                        if term == 1 {
                            token.cancelled().await;
                            assert_eq!(lease.loss_reason(), Some(LossReason::TakenOver));
                            Err("a failure after the loss is the election's to handle")
                        } else {
                            Ok(lease.fencing_token())
                        }
                    }
                })
                .await
        }
    });
    support::settle().await;
    // Another process writes the lock, and then stops renewing it: the next term waits for a
    // whole lease of that holder.
    admin.simulate_holder("sweeper", LEASE, "another-pod").await.unwrap();
    let started = support::Stopwatch::start();

    assert_eq!(election.await.unwrap().unwrap(), 3);
    assert_eq!(terms.load(Ordering::SeqCst), 2);
    assert!(started.elapsed() >= LEASE, "took the lock over only after a whole lease");
}

#[tokio::test(start_paused = true)]
async fn transient_acquire_errors_are_retried_every_third_of_the_lease() {
    let fake = fake();
    let locks = LockTable::new(table(client_without_retries(&fake)), LockTableOptions::default()).unwrap();
    fake.inject(FaultRule::new(Fault::Throttle).operation("UpdateItem").times(2));
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem").times(1));
    let start = fake.now();

    let ended = locks.run_as_leader("sweeper", LEASE, CancellationToken::new(), |lease, _| async move {
        Ok::<_, std::io::Error>(lease.fencing_token())
    });

    assert_eq!(ended.await.unwrap(), 1);
    let updates: Vec<(u128, String)> = fake
        .request_log()
        .iter()
        .filter(|r| r.operation == "UpdateItem")
        .map(|r| (r.at.duration_since(start).unwrap().as_millis(), support::describe(r)))
        .collect();
    assert_eq!(
        updates,
        [
            (0, "UpdateItem:ProvisionedThroughputExceededException".to_owned()),
            (10_000, "UpdateItem:ProvisionedThroughputExceededException".to_owned()),
            (20_000, "UpdateItem:InternalServerError".to_owned()),
            (30_000, "UpdateItem".to_owned()),
            (30_000, "UpdateItem".to_owned()), // the release
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn credentials_that_are_not_there_yet_count_as_transient() {
    use aws_credential_types::provider::{error::CredentialsError, future};
    use aws_sdk_dynamodb::config::{Credentials, ProvideCredentials};

    /// A credentials provider that has nothing for its first `missing` calls.
    #[derive(Debug)]
    struct NotYet {
        missing: AtomicU32,
    }
    impl ProvideCredentials for NotYet {
        fn provide_credentials<'a>(&'a self) -> future::ProvideCredentials<'a>
        where
            Self: 'a,
        {
            let left = self.missing.load(Ordering::SeqCst);
            if left > 0 {
                self.missing.store(left - 1, Ordering::SeqCst);
                return future::ProvideCredentials::ready(Err(CredentialsError::not_loaded("no role yet")));
            }
            future::ProvideCredentials::ready(Ok(Credentials::new("AKIDTEST", "secret", None, None, "test")))
        }
    }

    let fake = fake();
    let config = fake
        .client_config()
        .auth_scheme_resolver(aws_sdk_dynamodb::config::auth::DefaultAuthSchemeResolver::default())
        .credentials_provider(NotYet { missing: AtomicU32::new(2) })
        .build();
    let locks =
        LockTable::new(table(aws_sdk_dynamodb::Client::from_conf(config)), LockTableOptions::default()).unwrap();
    let started = support::Stopwatch::start();

    let ended = locks.run_as_leader("sweeper", LEASE, CancellationToken::new(), |lease, _| async move {
        Ok::<_, std::io::Error>(lease.fencing_token())
    });

    assert_eq!(ended.await.unwrap(), 1);
    assert_eq!(started.elapsed(), 2 * LEASE / 3, "two failures, each followed by a third of the lease");
}

#[tokio::test(start_paused = true)]
async fn a_missing_table_ends_the_election_with_an_error_of_the_election() {
    let fake = fake();
    let locks = LockTable::new(
        TableRef::builder(fake.client(), "Missing").partition_key("pk").sort_key("sk").build().unwrap(),
        LockTableOptions::default(),
    )
    .unwrap();
    let terms = AtomicU32::new(0);

    let ended = locks
        .run_as_leader("sweeper", LEASE, CancellationToken::new(), |_, _| {
            terms.fetch_add(1, Ordering::SeqCst);
            async { Ok::<(), std::io::Error>(()) }
        })
        .await;

    assert!(matches!(ended, Err(LeaderError::Election(Error::TableNotFound { .. }))), "{ended:?}");
    assert_eq!(terms.load(Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn an_item_at_the_lock_key_that_is_no_lock_ends_the_election() {
    let fake = fake();
    let locks = locks(&fake);
    fake.client()
        .put_item()
        .table_name("Shop")
        .item("pk", AttributeValue::S("LOCK#sweeper".into()))
        .item("sk", AttributeValue::S("LOCK".into()))
        .item("owner", AttributeValue::S("customer-4".into()))
        .send()
        .await
        .unwrap();

    let ended =
        locks.run_as_leader("sweeper", LEASE, CancellationToken::new(), |_, _| async { Ok::<(), String>(()) }).await;

    let err = ended.unwrap_err().into_election().expect("an error of the election");
    assert!(matches!(err, Error::NotALock { .. }));
    assert!(err.to_string().contains("sweeper") && err.to_string().contains("Shop"), "{err}");
}

#[tokio::test(start_paused = true)]
async fn bad_arguments_end_the_election_at_once() {
    let fake = fake();
    let locks = locks(&fake);

    let ended = locks
        .run_as_leader("sweeper", Duration::from_millis(10), CancellationToken::new(), |_, _| async {
            Ok::<(), String>(())
        })
        .await;

    assert!(matches!(ended, Err(LeaderError::Election(Error::InvalidLeaseDuration { .. }))));
    assert!(fake.request_log().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_lease_that_ended_before_its_acquire_answered_starts_no_term() {
    let fake = fake();
    let locks = locks(&fake);
    fake.inject(FaultRule::new(Fault::Latency(LEASE + Duration::from_secs(1))).operation("UpdateItem").times(1));
    let terms = Arc::new(AtomicU32::new(0));

    let ended = locks
        .run_as_leader("sweeper", LEASE, CancellationToken::new(), {
            let terms = terms.clone();
            move |lease: Lease, _| {
                terms.fetch_add(1, Ordering::SeqCst);
                async move { Ok::<_, String>((lease.fencing_token(), lease.ended().is_cancelled())) }
            }
        })
        .await;

    assert_eq!(ended.unwrap(), (2, false), "one term, on the second acquire, after the late one was released");
    assert_eq!(terms.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn the_election_runs_as_a_spawned_task() {
    let fake = fake();
    let locks = locks(&fake);
    let stop = CancellationToken::new();

    let election = tokio::spawn({
        let (locks, stop) = (locks.clone(), stop.clone());
        async move { locks.run_as_leader("sweeper", LEASE, stop, |_, token| until_cancelled(token)).await }
    });
    support::advance(Duration::from_secs(5)).await;
    stop.cancel();

    assert!(matches!(election.await.unwrap(), Err(LeaderError::Cancelled)));
}

/// Two services lead in turn for five minutes through throttling and a lost lease; returns the
/// request log as (client, operation, error, milliseconds) and the terms each one led.
async fn elections(seed: u64) -> (Vec<(String, String, String, u128)>, Vec<(u64, u64)>) {
    use dynalease::SeededIds;
    let fake = dynalease_fake::FakeDynamoDb::builder().seed(seed).build();
    fake.create_table("Shop", "pk", Some("sk"));
    fake.inject(FaultRule::new(Fault::Throttle).operation("GetItem").probability(0.3));
    let start = fake.now();
    let stop = CancellationToken::new();
    let service = |n: u64| {
        // Without the client's retries, whose backoff has a jitter of its own: the election
        // retries the throttled polls.
        let config = fake.client_named(&format!("s{n}")).config().to_builder();
        let client = aws_sdk_dynamodb::Client::from_conf(config.retry_config(RetryConfig::disabled()).build());
        let locks =
            LockTable::new(table(client), LockTableOptions::default().id_source(Arc::new(SeededIds::new(seed ^ n))))
                .unwrap();
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut terms = Vec::new();
            while !stop.is_cancelled() {
                let led = locks
                    .run_as_leader("sweeper", LEASE, stop.clone(), |lease, token| async move {
                        let clock = dynalease::TokioClock::new();
                        tokio::select! {
                            biased;
                            () = token.cancelled() => {}
                            () = dynalease::Clock::sleep(&clock, Duration::from_secs(45)) => {}
                        }
                        Ok::<_, String>((n, lease.fencing_token()))
                    })
                    .await;
                match led {
                    Ok(term) => terms.push(term),
                    Err(LeaderError::Cancelled) => break,
                    Err(other) => panic!("{other:?}"),
                }
            }
            terms
        })
    };
    let (one, two) = (service(1), service(2));
    support::advance(Duration::from_secs(100)).await;
    support::locks(&fake).simulate_holder("sweeper", LEASE, "intruder").await.unwrap();
    support::advance(Duration::from_secs(200)).await;
    stop.cancel();
    let mut terms = one.await.unwrap();
    terms.extend(two.await.unwrap());
    terms.sort();
    let log = fake
        .request_log()
        .iter()
        .map(|r| {
            let at = r.at.duration_since(start).unwrap().as_millis();
            (r.client.clone().unwrap_or_default(), r.operation.clone(), r.error.clone().unwrap_or_default(), at)
        })
        .collect();
    (log, terms)
}

#[tokio::test(start_paused = true)]
async fn paused_time_makes_an_election_replay_exactly() {
    let first = elections(7).await;
    let second = elections(7).await;

    assert!(first.1.len() >= 3, "terms: {:?}", first.1);
    assert_eq!(first, second);
}
