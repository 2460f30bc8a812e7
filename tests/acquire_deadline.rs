//! Acquire with a deadline: `LockTable::try_acquire_for` waits at most a given time and returns
//! no lease when the time runs out, the seed's job that runs once.

mod support;

use std::time::Duration;

use dynalease::Error;
use dynalease_fake::{Fault, FaultRule};
use support::{LEASE, Stopwatch, advance, fake, locks, requests};

store_contract! {
    async fn a_live_holder_keeps_the_lock_and_the_wait_ends_with_no_lease_when_its_time_runs_out(store) {
        let (holder, contender) = (store.locks(), store.locks());
        let _held = holder.acquire("nightly-report", LEASE).await.unwrap();

        let watch = Stopwatch::start();
        let got = contender.try_acquire_for("nightly-report", LEASE, Duration::from_secs(25)).await.unwrap();

        assert!(got.is_none());
        assert_eq!(watch.elapsed(), Duration::from_secs(25), "it waits its whole time, and no longer");
    }

    async fn a_wait_longer_than_a_lease_takes_over_a_holder_that_crashed(store) {
        let contender = store.locks();
        contender.simulate_holder("nightly-report", LEASE, "crashed-pod").await.unwrap();

        let watch = Stopwatch::start();
        let lease = contender.try_acquire_for("nightly-report", LEASE, LEASE + Duration::from_secs(10)).await.unwrap();

        let lease = lease.expect("taken over within the wait");
        assert_eq!(lease.fencing_token(), 2);
        assert_eq!(watch.elapsed(), LEASE, "taken over a whole lease after it first saw the holder");
    }

    async fn a_lock_released_during_the_wait_is_acquired_at_the_next_poll(store) {
        let (holder, contender) = (store.locks(), store.locks());
        let held = holder.acquire("nightly-report", LEASE).await.unwrap();
        let releasing = async {
            advance(Duration::from_secs(4)).await;
            held.release().await.unwrap();
        };

        let watch = Stopwatch::start();
        let waiting = contender.try_acquire_for("nightly-report", LEASE, Duration::from_secs(40));
        let (got, ()) = tokio::join!(waiting, releasing);

        assert_eq!(got.unwrap().expect("free at the next poll").fencing_token(), 2);
        assert_eq!(watch.elapsed(), LEASE / 3, "the next poll comes a third of the holder's lease after the first try");
    }

    async fn a_wait_of_zero_tries_once_as_try_acquire_does(store) {
        let (holder, contender) = (store.locks(), store.locks());
        let free = contender.try_acquire_for("free", LEASE, Duration::ZERO).await.unwrap();
        assert!(free.is_some(), "a free lock is taken at once");

        let _held = holder.acquire("held", LEASE).await.unwrap();
        let watch = Stopwatch::start();
        assert!(contender.try_acquire_for("held", LEASE, Duration::ZERO).await.unwrap().is_none());
        assert_eq!(watch.elapsed(), Duration::ZERO, "no wait at all");
    }

    async fn a_wait_too_long_for_the_clock_waits_as_acquire_does(store) {
        let contender = store.locks();
        contender.simulate_holder("nightly-report", LEASE, None).await.unwrap();

        let lease = contender.try_acquire_for("nightly-report", LEASE, Duration::MAX).await.unwrap();

        assert_eq!(lease.expect("taken over").fencing_token(), 2);
    }

    async fn a_lease_outside_one_second_to_one_day_is_refused_before_the_wait(store) {
        let err = store.locks().try_acquire_for("nightly-report", Duration::ZERO, LEASE).await.unwrap_err();
        assert!(matches!(err, Error::InvalidLeaseDuration { .. }), "{err:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_free_lock_costs_one_request_as_acquire_does() {
    let fake = fake();
    fake.clear_request_log();

    let lease = locks(&fake).try_acquire_for("nightly-report", LEASE, Duration::from_secs(40)).await.unwrap();

    assert!(lease.is_some());
    assert_eq!(requests(&fake), ["UpdateItem"]);
}

#[tokio::test(start_paused = true)]
async fn a_poll_under_way_when_the_wait_runs_out_is_answered_before_the_call_returns() {
    let fake = fake();
    let (holder, contender) = (locks(&fake), locks(&fake));
    let _held = holder.acquire("nightly-report", LEASE).await.unwrap();
    // The first try fails its write at once; the poll 10 s later takes 5 s to be answered.
    fake.inject(FaultRule::new(Fault::Latency(Duration::from_secs(5))).operation("GetItem").times(1));

    let watch = Stopwatch::start();
    let got = contender.try_acquire_for("nightly-report", LEASE, Duration::from_secs(12)).await.unwrap();

    assert!(got.is_none());
    assert_eq!(watch.elapsed(), Duration::from_secs(15), "the poll of 10 s was answered at 15 s, and nothing after");
}

#[tokio::test(start_paused = true)]
async fn the_last_look_comes_when_the_wait_runs_out_between_two_polls() {
    let fake = fake();
    let (holder, contender) = (locks(&fake), locks(&fake));
    let _held = holder.acquire("nightly-report", LEASE).await.unwrap();
    fake.clear_request_log();

    let got = contender.try_acquire_for("nightly-report", LEASE, Duration::from_secs(15)).await.unwrap();

    assert!(got.is_none());
    let times: Vec<Duration> = fake
        .request_log()
        .iter()
        .filter(|r| r.operation == "GetItem")
        .map(|r| r.at.duration_since(fake.request_log()[0].at).unwrap_or_default())
        .collect();
    assert_eq!(times, [Duration::from_secs(10), Duration::from_secs(15)], "a poll at 10 s, a last look at 15 s");
}
