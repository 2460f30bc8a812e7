//! Sixteen processes, each with a connection (or client) of its own, contend for one lock on
//! every store: exactly one holds it at a time, and the fencing tokens rise by one with every
//! grant.

mod support;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use support::{LEASE, advance};

const PROCESSES: usize = 16;
const ROUNDS: usize = 2;

store_contract! {
    async fn sixteen_processes_hold_one_lock_one_at_a_time_with_rising_tokens(store) {
        let holding = Arc::new(AtomicU32::new(0));
        let most_at_once = Arc::new(AtomicU32::new(0));
        let grants = Arc::new(Mutex::new(Vec::new()));
        let processes: Vec<_> = (0..PROCESSES)
            .map(|_| {
                let locks = store.locks();
                let (holding, most_at_once, grants) = (holding.clone(), most_at_once.clone(), grants.clone());
                tokio::spawn(async move {
                    for _ in 0..ROUNDS {
                        let lease = locks.acquire("hot", LEASE).await.unwrap();
                        let now = holding.fetch_add(1, Ordering::SeqCst) + 1;
                        most_at_once.fetch_max(now, Ordering::SeqCst);
                        grants.lock().unwrap().push(lease.fencing_token());
                        advance(Duration::from_secs(1)).await; // the work
                        assert!(!lease.ended().is_cancelled(), "held through its work");
                        holding.fetch_sub(1, Ordering::SeqCst);
                        lease.release().await.unwrap();
                    }
                })
            })
            .collect();

        for process in processes {
            process.await.unwrap();
        }

        assert_eq!(most_at_once.load(Ordering::SeqCst), 1, "one holder at a time");
        let grants = grants.lock().unwrap().clone();
        let expected: Vec<u64> = (1..=(PROCESSES * ROUNDS) as u64).collect();
        assert_eq!(grants, expected, "every grant raised the token by one");
        let state = store.locks().state("hot").await.unwrap().unwrap();
        assert_eq!((state.is_held, state.fencing_token), (false, (PROCESSES * ROUNDS) as u64));
    }
}
