//! The four services of `examples/`, each in the harness a user puts into `cargo test`: the
//! correct one passes the world's faults, and its bug is caught by the invariant it breaks,
//! shrunk, and reported with the seed, the scenario file and the command that replays it.
//!
//! Each example is one file with its `main`; the test compiles the file as a module. Debug builds
//! run a few seeds only: the figures over thousands of seeds are in the README, with the
//! commands that measure them.

#[path = "../examples/id_allocator.rs"]
#[allow(dead_code)]
mod id_allocator;
#[path = "../examples/job_queue.rs"]
#[allow(dead_code)]
mod job_queue;
#[path = "../examples/optimistic_locking.rs"]
#[allow(dead_code)]
mod optimistic_locking;
#[path = "../examples/transfers.rs"]
#[allow(dead_code)]
mod transfers;

use dynalease_sim::Service;
use dynalease_sim::harness::{self, Check};

/// A check of `service` as CI runs it: `seeds` seeds from 0, a shrink of at most `shrink_runs`
/// runs, scenario files under the test's own directory.
fn check<S: Service>(service: S, seeds: u64, shrink_runs: usize) -> Check<S> {
    harness::check(service)
        .seeds(seeds)
        .shrink_runs(shrink_runs)
        .out_dir(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("example-services"))
}

/// Runs `service` until a seed breaks an invariant, and checks that it is `invariant`, and that
/// the report a user gets names it, the seed, the scenario file and the command that replays it.
fn caught<S: Service>(service: S, seeds: u64, invariant: &str) -> String {
    let failure = match check(service, seeds, 12).outcome() {
        Ok(report) => panic!("no seed of {seeds} broke {invariant}: {report:?}"),
        Err(failure) => failure,
    };
    let message = failure.message();
    let seed = failure.first.scenario().seed;
    assert!(message.contains(&format!("broke `{invariant}` at seed {seed}")), "{message}");
    let file = failure.file.as_ref().expect("the scenario is written");
    assert!(file.exists(), "{}", file.display());
    assert!(message.contains(&format!("scenario: {}", file.display())), "{message}");
    assert!(message.contains(&format!("replay: DYNALEASE_SIM_SCENARIO={}", file.display())), "{message}");
    message
}

#[test]
fn the_id_allocator_never_hands_out_an_id_twice() {
    check(id_allocator::IdAllocator::default(), 6, 0).run();
}

#[test]
fn an_id_allocator_that_puts_its_counter_without_a_condition_hands_out_ids_twice() {
    let buggy = id_allocator::IdAllocator { buggy: true, ..id_allocator::IdAllocator::default() };
    let message = caught(buggy, 20, "id-unique");
    assert!(message.contains("was handed out twice: by #"), "{message}");
}

#[test]
fn the_transfers_with_a_client_request_token_apply_each_transfer_once() {
    check(transfers::Transfers::default(), 6, 0).run();
}

#[test]
fn transfers_sent_again_without_their_token_are_applied_twice() {
    let message = caught(transfers::Transfers { buggy: true }, 20, "exactly-once");
    assert!(message.contains("is in the final state 2 times, not once"), "{message}");
}

#[test]
fn optimistic_locking_that_raises_the_version_is_linearizable() {
    check(optimistic_locking::OptimisticLocking::default(), 6, 0).run();
}

#[test]
fn optimistic_locking_that_does_not_raise_the_version_loses_updates() {
    // The two additions that read the same total come first; the search for an order of the
    // operations fails on the same document.
    let message = caught(optimistic_locking::OptimisticLocking { buggy: true }, 20, "no-lost-update");
    assert!(message.contains("both added to the total"), "{message}");
    assert!(
        message.contains("VIOLATION: no order of the operations explains what they returned [linearizable]"),
        "{message}"
    );
}

#[test]
fn the_job_queue_runs_every_acknowledged_job_once() {
    check(job_queue::JobQueue::default(), 6, 0).run();
}

#[test]
fn a_job_queue_whose_claims_do_not_check_the_job_runs_a_job_twice() {
    let buggy = job_queue::JobQueue { bug: Some(job_queue::Bug::UncheckedClaim), ..job_queue::JobQueue::default() };
    let message = caught(buggy, 40, "exactly-once");
    assert!(message.contains("is in the final state 2 times, not once"), "{message}");
}

#[test]
fn a_job_queue_whose_claims_never_expire_leaves_jobs_undone() {
    let buggy = job_queue::JobQueue { bug: Some(job_queue::Bug::NoClaimTimeout), ..job_queue::JobQueue::default() };
    let message = caught(buggy, 40, "job-done");
    assert!(message.contains("it is still claimed by"), "{message}");
}
