//! The watcher: asks now and then whether a lock is held, as a monitor or a process that
//! starts only where no other runs does. Once per incarnation it also holds the library to what
//! it promises for arguments it refuses, before anything is sent, for a table whose keys are
//! not the ones a lock table was made for, and for the check of its table.

use std::time::Duration;

use dynalease::{Error, LeaderError, LockTable, LockTableOptions, ProcessLockToken, TableMismatch, TableRef};
use tokio_util::sync::CancellationToken;

use super::pause;
use crate::history::Outcome;
use crate::locks::notes::{Lock, LockCall as Call, LockValue as Value};
use crate::locks::workload::ProcessCtx;
use crate::locks::{EXPIRY_ATTRIBUTE, PARTITION_KEY, SORT_KEY, TABLE};

/// Every while, asks whether `name` is held (five times in eight), describes it (twice in
/// eight) or lists every lock of the table, and records the answer: the checker holds it
/// against the lock items as DynamoDB held them during the call.
pub(super) async fn watcher(ctx: ProcessCtx, name: &str, every_ms_max: u64) {
    let mut rng = ctx.rng();
    let lock = ctx.lock_id(name);
    refusals(&ctx, &lock, name).await;
    loop {
        pause(&ctx, &mut rng, every_ms_max).await;
        match rng.below(8) {
            0..5 => {}
            5..7 => {
                ctx.describe(name).await;
                continue;
            }
            _ => {
                ctx.list().await;
                continue;
            }
        }
        let op = ctx.invoke(Call::Exists { lock: lock.clone() });
        match ctx.process_locks().exists(name).await {
            Ok(held) => ctx.complete(op, Outcome::Ok, Value::Bool(held)),
            Err(err) => {
                ctx.check_error(&lock, name, &err);
                ctx.complete(op, Outcome::Info, Value::Text(err.to_string()));
            }
        }
    }
}

/// The arguments the library refuses before it sends anything, each with the error it
/// documents; lock tables over keys the table does not have; and the table and keys a
/// `LockTable` says it is over.
async fn refusals(ctx: &ProcessCtx, lock: &Lock, name: &str) {
    let locks = ctx.process_locks();
    let table = locks.lock_table();
    let mut broken = Vec::new();
    if !matches!(locks.exists("").await, Err(Error::InvalidLockName { .. })) {
        broken.push("exists of an empty name is not InvalidLockName");
    }
    if !matches!(locks.exists(&"x".repeat(1025)).await, Err(Error::InvalidLockName { .. })) {
        broken.push("exists of a name of 1025 bytes is not InvalidLockName");
    }
    if !matches!(table.try_acquire(name, Duration::ZERO).await, Err(Error::InvalidLeaseDuration { .. })) {
        broken.push("try_acquire for no time is not InvalidLeaseDuration");
    }
    if !matches!(table.acquire(name, LockTable::MAX_LEASE * 2).await, Err(Error::InvalidLeaseDuration { .. })) {
        broken.push("acquire for two days is not InvalidLeaseDuration");
    }
    if "dl1:0:4:abcd:job".parse::<ProcessLockToken>().is_ok() {
        broken.push("a token with fencing token 0 parses");
    }
    if name.parse::<ProcessLockToken>().is_ok() {
        broken.push("a lock name parses as a token");
    }
    if "dl1:3:0::job".parse::<ProcessLockToken>().is_ok() {
        broken.push("a token without an owner parses");
    }
    let election =
        table.run_as_leader(name, Duration::ZERO, CancellationToken::new(), |_, _| async { Ok::<(), ()>(()) }).await;
    match election {
        Err(refused @ LeaderError::Election(_)) if !refused.is_cancelled() => {
            if !matches!(refused.into_election(), Some(Error::InvalidLeaseDuration { .. })) {
                broken.push("an election for no time does not end with InvalidLeaseDuration");
            }
        }
        _ => broken.push("an election for no time does not end with an election error"),
    }
    let client = ctx.client().clone();
    let bad_tables = [
        TableRef::builder(client.clone(), "").partition_key(PARTITION_KEY).sort_key(SORT_KEY).build(),
        TableRef::builder(client.clone(), TABLE).partition_key("").sort_key(SORT_KEY).build(),
        TableRef::builder(client.clone(), TABLE).partition_key(PARTITION_KEY).sort_key("").build(),
        TableRef::builder(client, TABLE).partition_key(PARTITION_KEY).sort_key(PARTITION_KEY).build(),
    ];
    for bad in bad_tables {
        if !matches!(bad, Err(Error::InvalidOptions { .. })) {
            broken.push("a table reference without a name or with the sort key as its partition key is accepted");
        }
    }
    let bad_options = [
        LockTableOptions::default().holder_label(""),
        LockTableOptions::default().holder_label("x".repeat(LockTableOptions::MAX_HOLDER_LABEL_CHARS + 1)),
        LockTableOptions::default().time_to_live(PARTITION_KEY, LockTableOptions::DEFAULT_RETENTION),
        LockTableOptions::default().time_to_live("owner", LockTableOptions::DEFAULT_RETENTION),
        LockTableOptions::default().time_to_live("expiresAt", LockTableOptions::MIN_RETENTION / 2),
    ];
    for bad in bad_options {
        let table = TableRef::builder(ctx.client().clone(), TABLE)
            .partition_key(PARTITION_KEY)
            .sort_key(SORT_KEY)
            .build()
            .expect("a table of names");
        if !matches!(LockTable::new(table, bad), Err(Error::InvalidOptions { .. })) {
            broken.push("a holder label or an expiry the options refuse is accepted");
        }
    }
    misfits(ctx, name, &mut broken).await;
    checked(ctx, table, &mut broken).await;
    if table.table_name() != TABLE
        || table.dynamodb_table().map(TableRef::table_name) != Some(TABLE)
        || table.dynamodb_table().map(|t| (t.partition_key(), t.sort_key())) != Some((PARTITION_KEY, Some(SORT_KEY)))
    {
        broken.push("the lock table does not name the table and the keys it was made for");
    }
    for what in broken {
        ctx.broken_promise(lock, what);
    }
}

/// Lock tables made for keys the table does not have: the first request DynamoDB refuses, and
/// the library then describes the table and names it and the key that does not fit.
async fn misfits(ctx: &ProcessCtx, name: &str, broken: &mut Vec<&'static str>) {
    let client = ctx.client().clone();
    let misfits = [
        (
            TableRef::builder(client.clone(), TABLE)
                .partition_key("id")
                .sort_key(SORT_KEY)
                .build()
                .expect("a table of names"),
            TableMismatch::PartitionKey { expected: "id".into(), found: Some(PARTITION_KEY.into()) },
        ),
        (
            TableRef::builder(client.clone(), TABLE)
                .partition_key(PARTITION_KEY)
                .sort_key("range")
                .build()
                .expect("a table of names"),
            TableMismatch::SortKey { expected: Some("range".into()), found: Some(SORT_KEY.into()) },
        ),
        (
            TableRef::builder(client, TABLE).partition_key(PARTITION_KEY).build().expect("a table of names"),
            TableMismatch::SortKey { expected: None, found: Some(SORT_KEY.into()) },
        ),
    ];
    for (misfit, expected) in misfits {
        let Ok(table) = LockTable::new(misfit, LockTableOptions::default()) else {
            broken.push("a lock table over well-formed keys is refused");
            continue;
        };
        match table.check_table().await {
            Err(Error::TableMismatch { table, mismatch, .. }) if table == TABLE && mismatch == expected => {}
            // A fault that fails the description of the table (a lost answer, retried, can also
            // come back as a table not found).
            Err(Error::DynamoDb { .. } | Error::TableNotFound { .. }) => {}
            _ => broken.push("check_table of a lock table over keys the table does not have does not name the key"),
        }
        match table.try_acquire(name, Duration::from_secs(10)).await {
            Err(Error::TableMismatch { table, mismatch, .. }) => {
                if table != TABLE || mismatch != expected {
                    broken.push("a key schema mismatch does not name the table and the key that does not fit");
                }
            }
            // A fault that fails the request, or the description of the table after it.
            Err(Error::DynamoDb { .. } | Error::TableNotFound { .. }) => {}
            Ok(_) => broken.push("a lock table over keys the table does not have acquires a lease"),
            Err(_) => broken.push("a lock table over keys the table does not have fails with another error"),
        }
    }
}

/// The check of the table the incarnation's `LockTable` was made for: its keys fit, and time to
/// live is not enabled on it, so the check passes unless the lock table writes an expiry, and then
/// names the expiry attribute and that time to live is off.
async fn checked(ctx: &ProcessCtx, table: &LockTable, broken: &mut Vec<&'static str>) {
    match table.check_table().await {
        Ok(()) if !ctx.writes_expiry() => {}
        Err(Error::TableMismatch {
            table,
            mismatch: TableMismatch::TimeToLiveDisabled { attribute, enabled_on: None },
            ..
        }) if ctx.writes_expiry() && table == TABLE && attribute == EXPIRY_ATTRIBUTE => {}
        // A fault that fails a description.
        Err(Error::DynamoDb { .. } | Error::TableNotFound { .. }) => {}
        Ok(()) => broken.push("check_table passes a table without time to live for a lock table that writes an expiry"),
        Err(_) => broken.push("check_table of the table a lock table was made for does not tell what the table is"),
    }
}
