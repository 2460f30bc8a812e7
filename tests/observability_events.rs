//! The log events of the library: ids 40 to 49 as the `event_id` field, at their levels, the
//! holder label where an operator needs it, and one warning per outage of an election.

mod support;

use std::time::Duration;

use dynalease::{LockTable, LockTableOptions};
use dynalease_fake::{Fault, FaultRule};
use support::telemetry::{EventRecord, Telemetry};
use support::{LEASE, client_without_retries, fake, locks, locks_with, table};
use tokio_util::sync::CancellationToken;
use tracing::Level;

fn levels(events: &[EventRecord]) -> Vec<(u64, Level)> {
    events.iter().filter_map(|e| Some((e.id()?, e.level))).collect()
}

#[tokio::test(start_paused = true)]
async fn a_term_logs_that_this_process_leads_and_why_it_stopped_with_its_holder_label() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let locks = locks_with(&fake, LockTableOptions::default().holder_label("pod-7"));

    locks
        .run_as_leader("events-term", LEASE, CancellationToken::new(), |_, _| async { Ok::<(), String>(()) })
        .await
        .unwrap();

    let events = telemetry.events("events-term");
    assert_eq!(levels(&events), [(45, Level::INFO), (46, Level::INFO)]);
    assert_eq!(events[0].field("fencing_token"), Some("1"));
    assert_eq!(events[0].field("holder"), Some("pod-7"));
    assert_eq!(events[0].field("table"), Some("Shop"));
    assert_eq!(events[1].field("reason"), Some("work_returned"));
    assert_eq!(events[1].field("holder"), Some("pod-7"));
}

#[tokio::test(start_paused = true)]
async fn a_work_that_fails_on_its_own_ends_its_term_as_work_failed() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let locks = locks(&fake);

    let _ = locks
        .run_as_leader("events-failed", LEASE, CancellationToken::new(), |_, _| async { Err::<(), _>("bad order") })
        .await;

    let events = telemetry.events_with_id("events-failed", 46);
    assert_eq!(events[0].field("reason"), Some("work_failed"));
}

#[tokio::test(start_paused = true)]
async fn a_work_that_fails_after_its_lease_was_lost_is_logged_at_debug_with_its_type() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let locks = locks(&fake);
    let admin = support::locks(&fake);

    let election = tokio::spawn({
        let locks = locks.clone();
        async move {
            let mut term = 0;
            locks
                .run_as_leader("events-lost", LEASE, CancellationToken::new(), move |_, token| {
                    term += 1;
                    async move {
                        if term > 1 {
                            return Ok(());
                        }
                        token.cancelled().await;
                        Err(std::io::Error::other("the sweep was cut short"))
                    }
                })
                .await
        }
    });
    support::settle().await;
    admin.simulate_release("events-lost").await.unwrap();
    election.await.unwrap().unwrap();

    let events = telemetry.events("events-lost");
    assert_eq!(
        levels(&events),
        [
            (45, Level::INFO),
            (40, Level::WARN),
            (47, Level::DEBUG),
            (46, Level::INFO),
            (45, Level::INFO),
            (46, Level::INFO)
        ]
    );
    assert_eq!(events[1].field("reason"), Some("taken_over"));
    assert_eq!(events[2].field("error_type"), Some("std::io::error::Error"));
    assert_eq!(events[3].field("reason"), Some("lease_lost"));
    assert_eq!(events[4].field("fencing_token"), Some("2"));
}

#[tokio::test(start_paused = true)]
async fn a_work_that_fails_after_the_caller_cancelled_is_logged_at_debug() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let locks = locks(&fake);
    let stop = CancellationToken::new();

    let election = tokio::spawn({
        let (locks, stop) = (locks.clone(), stop.clone());
        async move {
            locks
                .run_as_leader("events-cancelled", LEASE, stop, |_, token| async move {
                    token.cancelled().await;
                    Err::<(), _>(std::fmt::Error)
                })
                .await
        }
    });
    support::advance(Duration::from_secs(5)).await;
    stop.cancel();
    assert!(election.await.unwrap().unwrap_err().is_cancelled());

    let events = telemetry.events("events-cancelled");
    assert_eq!(levels(&events), [(45, Level::INFO), (48, Level::DEBUG), (46, Level::INFO)]);
    assert_eq!(events[1].field("error_type"), Some("core::fmt::Error"));
    assert_eq!(events[2].field("reason"), Some("cancelled"));
}

#[tokio::test(start_paused = true)]
async fn an_outage_warns_once_and_its_end_is_logged_with_the_time_it_took_and_the_retries() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let holder = locks(&fake);
    let follower = LockTable::new(table(client_without_retries(&fake)), LockTableOptions::default()).unwrap();
    let _held = holder.acquire("events-outage", LEASE).await.unwrap();
    let stop = CancellationToken::new();

    // The follower's first write is refused at 0 s and it polls every 10 s.
    let election = tokio::spawn({
        let (follower, stop) = (follower.clone(), stop.clone());
        async move { follower.run_as_leader("events-outage", LEASE, stop, |_, _| async { Ok::<(), String>(()) }).await }
    });
    support::advance(Duration::from_secs(5)).await;
    fake.inject(FaultRule::new(Fault::Throttle).operation("GetItem").times(3)); // 10, 20, 30 s
    support::advance(Duration::from_secs(40)).await; // 40 s: answered
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("GetItem").times(1)); // 50 s
    support::advance(Duration::from_secs(20)).await; // 60 s: answered
    stop.cancel();
    assert!(election.await.unwrap().unwrap_err().is_cancelled());

    let events = telemetry.events("events-outage");
    assert_eq!(levels(&events), [(44, Level::WARN), (49, Level::INFO), (44, Level::WARN), (49, Level::INFO)]);
    assert_eq!(events[0].field("error_type"), Some("ProvisionedThroughputExceededException"));
    assert_eq!(events[1].field("retries"), Some("3"));
    assert_eq!(events[1].field("elapsed"), Some("30s"));
    assert_eq!(events[2].field("error_type"), Some("InternalServerError"));
    assert_eq!(events[3].field("retries"), Some("1"));
    assert_eq!(events[3].field("elapsed"), Some("10s"));
}

#[tokio::test(start_paused = true)]
async fn lease_events_are_logged_at_their_levels() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let locks = LockTable::new(table(client_without_retries(&fake)), LockTableOptions::default().holder_label("pod-7"))
        .unwrap();
    locks.simulate_holder("events-lease", LEASE, "crashed-pod").await.unwrap();

    let lease = locks.acquire("events-lease", LEASE).await.unwrap(); // 41: a takeover
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem").times(1));
    support::advance(LEASE / 3 + Duration::from_secs(1)).await; // 42: a renewal failed
    locks.simulate_delete("events-lease").await.unwrap();
    lease.ended().cancelled().await; // 40: lost
    let again = locks.acquire("events-lease", LEASE).await.unwrap();
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem").times(1));
    drop(again); // 43: its release failed
    support::settle().await;

    let events = telemetry.events("events-lease");
    assert_eq!(levels(&events), [(41, Level::INFO), (42, Level::WARN), (40, Level::WARN), (43, Level::WARN)]);
    assert_eq!(events[0].field("previous_holder"), Some("crashed-pod"));
    assert_eq!(events[0].field("holder"), Some("pod-7"));
    assert_eq!(events[2].field("reason"), Some("deleted"));
}
