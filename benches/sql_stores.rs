//! What a lock costs on the SQL stores, on the real clock: an acquire and its release, and one
//! renewal, on a SQLite file and on PostgreSQL over a unix socket.
//!
//! ```sh
//! cargo bench --bench sql_stores --features sqlite,postgres
//! ```
//!
//! PostgreSQL runs as two throwaway clusters that the bench starts (as the tests do, with
//! initdb and pg_ctl) and removes: one with the server's default durability, where every
//! commit waits for the disk, and one with `fsync=off`. The SQLite file keeps SQLite's defaults
//! (rollback journal, `synchronous=FULL`). Each figure is the best and the median of
//! `ROUNDS` rounds, per operation. `BENCH_ROUNDS` and `BENCH_OPS` change the counts.

#[allow(dead_code)]
#[path = "../tests/support/pg_cluster.rs"]
mod pg_cluster;

use std::time::{Duration, Instant};

use dynalease::{LockTable, LockTableOptions, PostgresTable, SqliteTable};

fn count(variable: &str, default: usize) -> usize {
    std::env::var(variable).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The best and the median of per-operation times over rounds.
fn summary(mut per_op: Vec<Duration>) -> (Duration, Duration) {
    per_op.sort();
    (per_op[0], per_op[per_op.len() / 2])
}

// A benchmark measures real time: the one place outside the default clock that reads it.
#[allow(clippy::disallowed_methods)]
async fn time_rounds<F, Fut>(rounds: usize, ops: usize, mut op: F) -> (Duration, Duration)
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut per_op = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let start = Instant::now();
        for i in 0..ops {
            op(round * ops + i).await;
        }
        per_op.push(start.elapsed() / u32::try_from(ops).unwrap_or(u32::MAX));
    }
    summary(per_op)
}

async fn bench(store: &str, locks: LockTable, rounds: usize, ops: usize) {
    const LEASE: Duration = Duration::from_secs(30);
    // The table is created, and the connection opened, before anything is timed.
    locks.acquire("warm-up", LEASE).await.expect("acquire").release().await.expect("release");

    let (best, median) = time_rounds(rounds, ops, |i| {
        let locks = locks.clone();
        async move {
            // A lock of its own for each operation, as many jobs each take theirs; and the same
            // lock again, which is the usual case of a job that runs on a schedule.
            let name = if i % 2 == 0 { format!("job-{i}") } else { String::from("nightly") };
            let lease = locks.acquire(&name, LEASE).await.expect("acquire");
            lease.release().await.expect("release");
        }
    })
    .await;
    println!("{store:<34} acquire+release  best {:>9.1?}  median {:>9.1?}", best, median);

    let lease = locks.acquire("renewed", LEASE).await.expect("acquire");
    let (best, median) = time_rounds(rounds, ops, |_| {
        let lease = &lease;
        async move {
            assert!(lease.renew().await.expect("renew"));
        }
    })
    .await;
    println!("{store:<34} renew            best {:>9.1?}  median {:>9.1?}", best, median);
    lease.release().await.expect("release");
}

fn main() {
    let rounds = count("BENCH_ROUNDS", 10);
    let ops = count("BENCH_OPS", 200);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    println!("{rounds} rounds of {ops} operations, per operation");
    runtime.block_on(async {
        let dir = std::env::temp_dir().join(format!("dynalease-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let sqlite = LockTable::sqlite(SqliteTable::new(dir.join("locks.db")), LockTableOptions::default())
            .expect("valid options");
        bench("SQLite file", sqlite, rounds, ops).await;
        let _ = std::fs::remove_dir_all(&dir);

        for (store, cluster) in [
            ("PostgreSQL, unix socket", pg_cluster::durable_cluster()),
            ("PostgreSQL, unix socket, fsync=off", pg_cluster::cluster()),
        ] {
            let table = PostgresTable::connect(&cluster.url()).expect("a URL");
            let locks = LockTable::postgres(table, LockTableOptions::default()).expect("valid options");
            bench(store, locks, rounds, ops).await;
        }
    });
}
