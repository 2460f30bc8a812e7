//! What a `ProcessLocks` instance remembers of a token (the window of its last write) as the
//! second seed's users use tokens: kept after a release, handed around, renewed by two
//! instances, and renewed on every step with a minimum window whose answer is ignored. A
//! `renew` that answers `true` rests on what the table held during the call.

mod support;

use std::time::Duration;

use dynalease::{LockStatus, ProcessLocks, RenewOptions};
use support::{advance, fake, locks, requests};

const DURATION: Duration = Duration::from_secs(15);
const WINDOW: Duration = Duration::from_secs(7);

/// A renewal that writes only once less than `WINDOW` is left.
fn within() -> RenewOptions {
    RenewOptions::new().only_within(WINDOW)
}

store_contract! {
    async fn a_token_released_by_its_own_instance_is_not_renewed_within_its_window(store) {
        let locks = ProcessLocks::new(store.locks());
        let token = locks.create("import", DURATION).await.unwrap().expect("free");
        assert!(locks.release(&token).await.unwrap());

        assert!(!locks.renew(&token, within()).await.unwrap(), "12 s of 15 would be left");
        let described = locks.lock_table().describe("import").await.unwrap().unwrap();
        assert_eq!(described.status, LockStatus::Free, "the renewal wrote nothing");
    }

    async fn a_token_released_by_another_instance_is_not_renewed_within_the_window_of_the_first(store) {
        let (first, second) = (ProcessLocks::new(store.locks()), ProcessLocks::new(store.locks()));
        let token = first.create("import", DURATION).await.unwrap().expect("free");
        assert!(second.release(&token).await.unwrap(), "handed over, and released there");

        assert!(!first.renew(&token, within()).await.unwrap());
        assert!(!first.renew(&token, within()).await.unwrap(), "and forgotten since");
        let next = second.create("import", DURATION).await.unwrap();
        assert!(next.is_some(), "the lock stayed free");
    }

    async fn a_token_whose_lock_was_taken_over_is_not_renewed_within_its_window(store) {
        let (locks, contender) = (ProcessLocks::new(store.locks()), store.locks());
        let token = locks.create("import", DURATION).await.unwrap().expect("free");
        contender.simulate_holder("import", DURATION, "another-pod").await.unwrap();

        assert!(!locks.renew(&token, within()).await.unwrap(), "the read finds another owner");
        assert!(!locks.renew(&token, RenewOptions::new()).await.unwrap());
        assert!(!locks.renew(&token, within()).await.unwrap(), "after a renewal that found it taken");
        let described = contender.describe("import").await.unwrap().unwrap();
        assert_eq!(described.holder_label.as_deref(), Some("another-pod"), "left to its new holder");
    }

    async fn a_token_whose_lock_was_deleted_and_created_again_is_not_renewed(store) {
        let (locks, other) = (ProcessLocks::new(store.locks()), ProcessLocks::new(store.locks()));
        let token = locks.create("import", DURATION).await.unwrap().expect("free");
        locks.lock_table().simulate_delete("import").await.unwrap();
        assert!(!locks.renew(&token, RenewOptions::new()).await.unwrap(), "a renewal finds it deleted");

        let again = other.create("import", DURATION).await.unwrap().expect("free after the deletion");
        assert_eq!(again.fencing_token(), 1, "the same fencing token as the old one");
        assert!(!locks.renew(&token, within()).await.unwrap(), "another owner, whatever the fence");
        assert!(other.renew(&again, within()).await.unwrap());
    }

    async fn a_renewal_by_another_instance_makes_the_first_renew_at_once_rather_than_trust_its_window(store) {
        let (first, second) = (ProcessLocks::new(store.locks()), ProcessLocks::new(store.locks()));
        let watcher = store.locks();
        let token = first.create("import", DURATION).await.unwrap().expect("free");
        advance(Duration::from_secs(1)).await;
        // The second instance renews for less than the first wrote: the lock now lasts until
        // 5 s, and the first instance's own write would say 15 s.
        assert!(second.renew(&token, RenewOptions::new().duration(Duration::from_secs(4))).await.unwrap());
        watcher.describe("import").await.unwrap();
        advance(Duration::from_secs(2)).await;

        assert!(first.renew(&token, within()).await.unwrap());

        let described = watcher.describe("import").await.unwrap().unwrap();
        assert_eq!(described.unchanged_for, Some(Duration::ZERO), "the first instance wrote a new record version");
        assert_eq!(described.lease_duration, Some(Duration::from_secs(4)), "keeping the duration the lock has");
        // Its window is measured from that write, with the 4 s it learned.
        advance(Duration::from_secs(2)).await;
        assert!(first.renew(&token, RenewOptions::new().only_within(Duration::from_secs(1))).await.unwrap());
        let described = watcher.describe("import").await.unwrap().unwrap();
        assert_eq!(described.unchanged_for, Some(Duration::from_secs(2)), "2 s are left: nothing written");
    }

    async fn each_instance_measures_its_window_from_its_own_last_write(store) {
        let (first, second) = (ProcessLocks::new(store.locks()), ProcessLocks::new(store.locks()));
        let watcher = store.locks();
        let token = first.create("import", DURATION).await.unwrap().expect("free");
        advance(Duration::from_secs(9)).await;
        assert!(second.renew(&token, within()).await.unwrap(), "the second has not written it: at once");
        watcher.describe("import").await.unwrap();

        advance(Duration::from_secs(1)).await;
        assert!(second.renew(&token, within()).await.unwrap(), "14 s of its own write are left");
        let described = watcher.describe("import").await.unwrap().unwrap();
        assert_eq!(described.unchanged_for, Some(Duration::from_secs(1)), "the second wrote nothing");

        assert!(first.renew(&token, within()).await.unwrap(), "5 s of the first's own write are left");
        let described = watcher.describe("import").await.unwrap().unwrap();
        assert_eq!(described.unchanged_for, Some(Duration::ZERO), "the first wrote");
    }

    async fn the_seeds_loop_renews_on_every_step_and_keeps_the_lock_from_a_contender(store) {
        let (locks, contender) = (ProcessLocks::new(store.locks()), ProcessLocks::new(store.locks()));
        let token = locks.create("import", DURATION).await.unwrap().expect("free");
        assert_eq!(contender.create("import", DURATION).await.unwrap(), None);

        // 200 ms a step, 150 steps: 30 s, twice the duration, renewing each step, the answer ignored.
        for step in 0..150 {
            advance(Duration::from_millis(200)).await;
            let _ = locks.renew(&token, RenewOptions::new().duration(DURATION).only_within(WINDOW)).await;
            if step % 25 == 0 {
                assert_eq!(contender.create("import", DURATION).await.unwrap(), None, "step {step}");
            }
        }

        assert!(locks.release(&token).await.unwrap());
        assert!(contender.create("import", DURATION).await.unwrap().is_some());
    }
}

#[tokio::test(start_paused = true)]
async fn within_its_window_a_renewal_reads_once_and_writes_nothing() {
    let fake = fake();
    let locks = ProcessLocks::new(locks(&fake));
    let token = locks.create("import", DURATION).await.unwrap().expect("free");
    fake.clear_request_log();

    assert!(locks.renew(&token, within()).await.unwrap());

    assert_eq!(requests(&fake), ["GetItem"]);
    assert!(fake.request_log()[0].consistent_read);
}

#[tokio::test(start_paused = true)]
async fn the_seeds_loop_writes_once_per_window_and_reads_otherwise() {
    let fake = fake();
    let locks = ProcessLocks::new(locks(&fake));
    let token = locks.create("import", DURATION).await.unwrap().expect("free");
    fake.clear_request_log();

    for _ in 0..150 {
        advance(Duration::from_millis(200)).await;
        let _ = locks.renew(&token, RenewOptions::new().duration(DURATION).only_within(WINDOW)).await;
    }

    let all = requests(&fake);
    let writes = all.iter().filter(|op| *op == "UpdateItem").count();
    assert_eq!(writes, 3, "30 s: a write whenever less than 7 s of 15 are left, every 8 s or so");
    assert_eq!(all.len(), 150, "one request a step");
}
