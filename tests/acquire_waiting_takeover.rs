//! Rule 3: how a contender waits for a held lock, and when it takes a lock over.

mod support;

use std::time::{Duration, SystemTime};

use dynalease::{LockTable, LockTableOptions};
use support::{LEASE, OffsetClock, fake, locks, table};

const SECOND: Duration = Duration::from_secs(1);

fn named(fake: &dynalease_fake::FakeDynamoDb, client: &str) -> LockTable {
    LockTable::new(table(fake.client_named(client)), LockTableOptions::default()).unwrap()
}

/// The times of `client`'s requests of `operation`, since `start`, in whole milliseconds.
fn times_ms(fake: &dynalease_fake::FakeDynamoDb, client: &str, operation: &str, start: SystemTime) -> Vec<u128> {
    fake.request_log()
        .iter()
        .filter(|r| r.client.as_deref() == Some(client) && r.operation == operation)
        .map(|r| r.at.duration_since(start).unwrap().as_millis())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_contender_polls_every_third_of_the_holders_lease() {
    let fake = fake();
    let holder = locks(&fake);
    let contender = named(&fake, "contender");
    let _lease = holder.acquire("job", Duration::from_secs(15)).await.unwrap();
    let start = fake.now();

    // The contender's own lease is longer; the holder's decides the polls.
    let waiting = tokio::spawn(async move { contender.acquire("job", LEASE).await });
    support::advance(Duration::from_secs(26)).await;
    waiting.abort();

    assert_eq!(times_ms(&fake, "contender", "GetItem", start), [5_000, 10_000, 15_000, 20_000, 25_000]);
}

#[tokio::test(start_paused = true)]
async fn a_contender_polls_at_least_every_ten_seconds() {
    let fake = fake();
    let holder = locks(&fake);
    let contender = named(&fake, "contender");
    let _lease = holder.acquire("job", Duration::from_secs(90)).await.unwrap();
    let start = fake.now();

    let waiting = tokio::spawn(async move { contender.acquire("job", LEASE).await });
    support::advance(Duration::from_secs(41)).await;
    waiting.abort();

    assert_eq!(times_ms(&fake, "contender", "GetItem", start), [10_000, 20_000, 30_000, 40_000]);
}

#[tokio::test(start_paused = true)]
async fn a_crashed_holder_is_taken_over_when_its_lease_is_due_not_at_the_next_regular_poll() {
    let fake = fake();
    let admin = locks(&fake);
    let contender = named(&fake, "contender");
    admin.simulate_holder("job", Duration::from_secs(35), "crashed").await.unwrap();
    let start = fake.now();

    let lease = contender.acquire("job", LEASE).await.unwrap();

    assert_eq!(times_ms(&fake, "contender", "GetItem", start), [10_000, 20_000, 30_000, 35_000]);
    assert_eq!(
        times_ms(&fake, "contender", "UpdateItem", start),
        [0, 35_000],
        "one failed write on meeting the lock, one takeover"
    );
    assert_eq!(lease.fencing_token(), 2, "a takeover raises the token");
}

#[tokio::test(start_paused = true)]
async fn takeover_waits_a_whole_lease_on_the_contenders_own_clock_whatever_its_offset() {
    let fake = fake();
    let admin = locks(&fake);
    // A machine whose clocks are a day ahead: only elapsed time on its own clock counts.
    let skewed =
        OffsetClock::new(Duration::from_secs(86_400), SystemTime::UNIX_EPOCH + Duration::from_secs(4_000_000_000));
    let contender =
        LockTable::new(table(fake.client_named("contender")), LockTableOptions::default().clock(skewed)).unwrap();
    admin.simulate_holder("job", LEASE, None).await.unwrap();
    let started = support::Stopwatch::start();

    let lease = contender.acquire("job", LEASE).await.unwrap();

    assert_eq!(started.elapsed(), LEASE);
    assert_eq!(lease.fencing_token(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_holder_that_keeps_renewing_is_never_taken_over() {
    let fake = fake();
    let holder = locks(&fake);
    let contender = named(&fake, "contender");
    let lease = holder.acquire("job", LEASE).await.unwrap();

    let waiting = tokio::spawn(async move { contender.acquire("job", LEASE).await });
    support::advance(Duration::from_secs(300)).await;

    assert!(!waiting.is_finished());
    assert!(!lease.ended().is_cancelled());
    drop(lease); // released in the background
    let taken = waiting.await.unwrap().unwrap();
    assert_eq!(taken.fencing_token(), 2);
}

#[tokio::test(start_paused = true)]
async fn two_contenders_due_at_once_take_over_only_one_lease() {
    let fake = fake();
    let admin = locks(&fake);
    admin.simulate_holder("job", LEASE, None).await.unwrap();
    let a = locks(&fake);
    let b = locks(&fake);

    let first = tokio::spawn(async move { a.acquire("job", LEASE).await });
    let second = tokio::spawn(async move { b.acquire("job", LEASE).await });
    support::advance(LEASE + SECOND).await;

    assert!(first.is_finished() ^ second.is_finished(), "the takeover is conditional on the record version both saw");
    let state = admin.state("job").await.unwrap().unwrap();
    assert_eq!(state.fencing_token, 2);
    first.abort();
    second.abort();
}

#[tokio::test(start_paused = true)]
async fn try_acquire_never_waits_and_takes_over_only_after_seeing_the_holder_for_a_lease() {
    let fake = fake();
    let admin = locks(&fake);
    let contender = locks(&fake);
    admin.simulate_holder("job", LEASE, None).await.unwrap();
    let started = support::Stopwatch::start();

    assert!(contender.try_acquire("job", LEASE).await.unwrap().is_none());
    assert_eq!(started.elapsed(), Duration::ZERO, "no wait");
    support::advance(Duration::from_secs(29)).await;
    assert!(contender.try_acquire("job", LEASE).await.unwrap().is_none());
    support::advance(SECOND).await;

    let lease = contender.try_acquire("job", LEASE).await.unwrap().expect("due");
    assert_eq!(lease.fencing_token(), 2);
}

#[tokio::test(start_paused = true)]
async fn try_acquire_once_per_process_never_takes_over() {
    let fake = fake();
    let admin = locks(&fake);
    admin.simulate_holder("job", LEASE, None).await.unwrap();

    for _ in 0..5 {
        support::advance(Duration::from_secs(60)).await;
        let short_lived = locks(&fake);
        assert!(short_lived.try_acquire("job", LEASE).await.unwrap().is_none());
    }
}

#[tokio::test(start_paused = true)]
async fn dropping_an_acquire_stops_its_polls() {
    let fake = fake();
    let holder = locks(&fake);
    let contender = named(&fake, "contender");
    let _lease = holder.acquire("job", LEASE).await.unwrap();

    let gave_up = tokio::time::timeout(Duration::from_secs(25), contender.acquire("job", LEASE)).await;
    assert!(gave_up.is_err());
    let sent = || fake.request_log().iter().filter(|r| r.client.as_deref() == Some("contender")).count();
    assert_eq!(sent(), 3, "the failed write and two polls");
    support::advance(Duration::from_secs(120)).await;

    assert_eq!(sent(), 3, "nothing after the drop");
}

#[tokio::test(start_paused = true)]
async fn a_takeover_is_logged_with_event_41() {
    let events = support::EventIds::global();
    let fake = fake();
    let admin = locks(&fake);
    let contender = support::locks_with(&fake, LockTableOptions::default().holder_label("pod-2"));
    admin.simulate_holder("logged-takeover", LEASE, "pod-1").await.unwrap();

    let _lease = contender.acquire("logged-takeover", LEASE).await.unwrap();

    assert_eq!(events.of("logged-takeover"), [41]);
}
