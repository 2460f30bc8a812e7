//! The lease contract, run against every store (the fake DynamoDB, SQLite, PostgreSQL) from one
//! body each: acquire and refuse, release and a higher token, takeover after a whole lease on
//! the contender's clock, the heartbeat, the reasons a lease is lost, holder labels, the testing
//! helpers and leader election.

mod support;

use std::time::Duration;

use dynalease::{LeaderError, LockState, LockTableOptions, LossReason};
use support::{LEASE, Stopwatch, advance};
use tokio_util::sync::CancellationToken;

/// Lets every task run to its next wait, and every statement in flight finish: a paused clock
/// moves only when nothing runs, and a store's statement counts as running.
async fn settle() {
    advance(Duration::from_millis(1)).await;
}

fn held_by(label: Option<&str>, fencing_token: u64) -> Option<LockState> {
    Some(LockState {
        is_held: true,
        holder_label: label.map(str::to_owned),
        lease_duration: Some(LEASE),
        fencing_token,
    })
}

store_contract! {
    async fn a_free_lock_is_won_at_once_and_refused_to_another_process(store) {
        let (one, two) = (store.locks(), store.locks());

        let lease = one.try_acquire("job", LEASE).await.unwrap().expect("the lock is free");

        assert_eq!(lease.fencing_token(), 1);
        assert!(two.try_acquire("job", LEASE).await.unwrap().is_none());
        assert!(one.try_acquire("job", LEASE).await.unwrap().is_none(), "a second lease of the same table too");
        assert_eq!(two.state("job").await.unwrap(), held_by(None, 1));
    }

    async fn a_release_keeps_the_lock_so_that_the_next_token_is_higher(store) {
        let (one, two) = (store.locks(), store.locks());
        let lease = one.acquire("job", LEASE).await.unwrap();

        lease.release().await.unwrap();

        let released = LockState { is_held: false, holder_label: None, lease_duration: None, fencing_token: 1 };
        assert_eq!(two.state("job").await.unwrap(), Some(released));
        let next = two.try_acquire("job", LEASE).await.unwrap().expect("released");
        assert_eq!(next.fencing_token(), 2);
    }

    async fn fencing_tokens_rise_with_every_acquire_of_every_process(store) {
        let processes = [store.locks(), store.locks(), store.locks()];
        let mut tokens = Vec::new();

        for round in 0..9 {
            let lease = processes[round % 3].acquire("job", LEASE).await.unwrap();
            tokens.push(lease.fencing_token());
            lease.release().await.unwrap();
        }

        assert_eq!(tokens, (1..=9).collect::<Vec<u64>>());
    }

    async fn a_crashed_holder_is_taken_over_after_a_whole_lease_on_the_contenders_clock_and_not_before(store) {
        let (admin, contender) = (store.locks(), store.locks());
        admin.simulate_holder("job", LEASE, "crashed").await.unwrap();
        assert!(contender.try_acquire("job", LEASE).await.unwrap().is_none(), "first seen now");

        advance(LEASE - Duration::from_millis(1)).await;
        assert!(contender.try_acquire("job", LEASE).await.unwrap().is_none(), "not a whole lease yet");
        advance(Duration::from_millis(1)).await;
        let lease = contender.try_acquire("job", LEASE).await.unwrap().expect("the same holder for a whole lease");

        assert_eq!(lease.fencing_token(), 2);
        assert_eq!(admin.state("job").await.unwrap(), held_by(None, 2));
    }

    async fn an_acquire_waits_one_lease_for_a_crashed_holder(store) {
        let (admin, contender) = (store.locks(), store.locks());
        admin.simulate_holder("job", LEASE, "crashed").await.unwrap();
        let watch = Stopwatch::start();

        let lease = contender.acquire("job", LEASE).await.unwrap();

        let waited = watch.elapsed();
        assert!(waited >= LEASE && waited < LEASE + Duration::from_secs(1), "waited {waited:?}");
        assert_eq!(lease.fencing_token(), 2);
    }

    async fn a_holder_that_keeps_renewing_is_never_taken_over(store) {
        let lease = store.locks().acquire("job", LEASE).await.unwrap();
        let contender = store.locks();
        let waiting = tokio::spawn(async move { contender.acquire("job", LEASE).await });

        advance(LEASE * 10).await;

        assert!(!waiting.is_finished(), "the contender still waits");
        assert_eq!(lease.loss_reason(), None);
        assert!(!lease.ended().is_cancelled());
        waiting.abort();
    }

    async fn two_contenders_due_at_once_take_over_one_lease_between_them(store) {
        store.locks().simulate_holder("job", LEASE, "crashed").await.unwrap();
        let (one, two) = (store.locks(), store.locks());
        let first = tokio::spawn(async move { one.acquire("job", LEASE).await });
        let second = tokio::spawn(async move { two.acquire("job", LEASE).await });

        advance(LEASE + Duration::from_secs(11)).await;

        assert!(first.is_finished() != second.is_finished(), "exactly one took the lock over");
        let winner = if first.is_finished() { first.await } else { second.await };
        assert_eq!(winner.unwrap().unwrap().fencing_token(), 2);
    }

    async fn a_renewal_that_finds_another_holder_ends_the_lease_as_taken_over(store) {
        let locks = store.locks();
        let lease = locks.acquire("job", LEASE).await.unwrap();
        locks.simulate_holder("job", LEASE, "another-pod").await.unwrap();

        assert!(!lease.renew().await.unwrap());

        assert_eq!(lease.loss_reason(), Some(LossReason::TakenOver));
        assert!(lease.ended().is_cancelled());
        assert_eq!(locks.state("job").await.unwrap(), held_by(Some("another-pod"), 2));
    }

    async fn a_lock_released_by_someone_else_ends_the_lease_as_taken_over(store) {
        let locks = store.locks();
        let lease = locks.acquire("job", LEASE).await.unwrap();
        locks.simulate_release("job").await.unwrap();

        assert!(!lease.renew().await.unwrap());

        assert_eq!(lease.loss_reason(), Some(LossReason::TakenOver));
        let next = store.locks().try_acquire("job", LEASE).await.unwrap().expect("free");
        assert_eq!(next.fencing_token(), 2);
    }

    async fn a_deleted_lock_ends_the_lease_and_starts_its_token_at_one_again(store) {
        let locks = store.locks();
        let lease = locks.acquire("job", LEASE).await.unwrap();
        locks.simulate_delete("job").await.unwrap();

        assert!(!lease.renew().await.unwrap());

        assert_eq!(lease.loss_reason(), Some(LossReason::Deleted));
        assert_eq!(locks.state("job").await.unwrap(), None);
        assert_eq!(store.locks().acquire("job", LEASE).await.unwrap().fencing_token(), 1);
    }

    async fn a_dropped_table_ends_the_lease_as_table_not_found(store) {
        let locks = store.locks();
        let lease = locks.acquire("job", LEASE).await.unwrap();
        store.drop_table().await;

        assert!(!lease.renew().await.unwrap());

        assert_eq!(lease.loss_reason(), Some(LossReason::TableNotFound));
    }

    async fn the_heartbeat_ends_a_lease_taken_over_meanwhile_within_a_third_of_the_lease(store) {
        let locks = store.locks();
        let lease = locks.acquire("job", LEASE).await.unwrap();
        locks.simulate_holder("job", LEASE, "another-pod").await.unwrap();

        advance(LEASE / 3).await;
        settle().await;

        assert_eq!(lease.loss_reason(), Some(LossReason::TakenOver));
    }

    async fn dropping_a_lease_releases_its_lock_in_the_background(store) {
        let locks = store.locks();
        let lease = locks.acquire("job", LEASE).await.unwrap();

        drop(lease);
        settle().await;

        assert_eq!(locks.state("job").await.unwrap().map(|s| s.is_held), Some(false));
        assert!(store.locks().try_acquire("job", LEASE).await.unwrap().is_some());
    }

    async fn a_holder_label_names_the_holder_until_its_release(store) {
        let labelled = store.locks_with(LockTableOptions::default().holder_label("pod-7"));
        let lease = labelled.acquire("job", LEASE).await.unwrap();
        assert_eq!(labelled.state("job").await.unwrap(), held_by(Some("pod-7"), 1));

        lease.release().await.unwrap();
        assert_eq!(labelled.state("job").await.unwrap().and_then(|s| s.holder_label), None);

        labelled.simulate_holder("job", LEASE, "crashed").await.unwrap();
        let unlabelled = store.locks().acquire("job", LEASE).await.unwrap();
        assert_eq!(unlabelled.fencing_token(), 3);
        assert_eq!(labelled.state("job").await.unwrap(), held_by(None, 3), "an acquire without a label removes the one before");
    }

    async fn wait_for_refusal_completes_when_a_contender_finds_the_lock_held(store) {
        let _held = store.locks().acquire("job", LEASE).await.unwrap();
        let follower = store.locks();
        let refused = follower.wait_for_refusal("job");
        let contender = tokio::spawn({
            let follower = follower.clone();
            async move { follower.acquire("job", LEASE).await }
        });

        refused.await;

        assert!(!contender.is_finished());
        contender.abort();
    }

    async fn a_follower_leads_at_its_next_poll_after_the_leader_stops(store) {
        let (leader, follower) = (store.locks(), store.locks());
        let stop_leader = CancellationToken::new();
        let led = tokio::spawn({
            let stop = stop_leader.clone();
            async move {
                leader
                    .run_as_leader("sweeper", LEASE, stop, |_, token| async move {
                        token.cancelled().await;
                        Ok::<(), std::io::Error>(())
                    })
                    .await
            }
        });
        settle().await;
        let refused = follower.wait_for_refusal("sweeper");
        let followed = tokio::spawn({
            let follower = follower.clone();
            async move {
                follower
                    .run_as_leader("sweeper", LEASE, CancellationToken::new(), |lease, _| async move {
                        Ok::<u64, std::io::Error>(lease.fencing_token())
                    })
                    .await
            }
        });
        refused.await;

        stop_leader.cancel();
        assert!(matches!(led.await.unwrap(), Err(LeaderError::Cancelled)));
        let watch = Stopwatch::start();
        let token = followed.await.unwrap().unwrap();

        assert_eq!(token, 2);
        assert!(watch.elapsed() <= Duration::from_secs(10), "led after {:?}", watch.elapsed());
    }
}
