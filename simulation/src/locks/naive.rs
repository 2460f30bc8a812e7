//! The naive lock: expiry written as a wall-clock time and compared on other machines' wall
//! clocks. Deliberately wrong, to show that the checker catches what it should.
//!
//! A holder writes `expiresAtMs` = its wall clock + the lease; a contender takes the lock when
//! its own wall clock has passed that time; the holder believes in its lease until its own wall
//! clock passes it, and its guarded writes check nothing but that belief. A machine whose clock
//! runs ahead takes locks that are still held, and a holder that was paused writes after its
//! lease ended: the checker must see both.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};
use dynalease::IdSource;
use tokio_util::sync::CancellationToken;

use crate::clock::ProcessClock;
use crate::locks::NAIVE_PREFIX;
use crate::locks::{PARTITION_KEY, SORT_KEY, TABLE};

/// The locks of one process, the naive way.
#[derive(Clone, Debug)]
pub(crate) struct NaiveLocks {
    client: Client,
    clock: ProcessClock,
    ids: Arc<dyn IdSource>,
}

/// A lease of the naive lock. Clones share it.
#[derive(Clone, Debug)]
pub(crate) struct NaiveLease {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    locks: NaiveLocks,
    name: String,
    owner: String,
    fence: u64,
    lease: Duration,
    ended: CancellationToken,
    end: Mutex<Option<&'static str>>,
}

fn wall_ms(time: SystemTime) -> u128 {
    time.duration_since(UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0)
}

fn key(name: &str) -> [(String, AttributeValue); 2] {
    [
        (PARTITION_KEY.to_owned(), AttributeValue::S(format!("{NAIVE_PREFIX}{name}"))),
        (SORT_KEY.to_owned(), AttributeValue::S(String::from("LOCK"))),
    ]
}

/// What a failed request of the naive lock says.
fn describe<E: aws_sdk_dynamodb::error::ProvideErrorMetadata>(err: &E) -> String {
    err.code().unwrap_or("no answer").to_owned()
}

impl NaiveLocks {
    pub(crate) fn new(client: Client, clock: ProcessClock, ids: Arc<dyn IdSource>) -> Self {
        NaiveLocks { client, clock, ids }
    }

    /// One try: takes the lock if it has no owner or its expiry is past on this machine's wall
    /// clock. `Ok(None)` when it is held.
    pub(crate) async fn try_acquire(&self, name: &str, lease: Duration) -> Result<Option<NaiveLease>, String> {
        let owner = self.ids.next_id();
        let now = wall_ms(self.clock.wall());
        let answer = self
            .client
            .update_item()
            .table_name(TABLE)
            .set_key(Some(key(name).into_iter().collect()))
            .update_expression("SET #owner = :owner, #exp = :exp ADD #fence :one")
            .condition_expression("attribute_not_exists(#owner) OR #exp < :now")
            .expression_attribute_names("#owner", "owner")
            .expression_attribute_names("#exp", "expiresAtMs")
            .expression_attribute_names("#fence", "fence")
            .expression_attribute_values(":owner", AttributeValue::S(owner.clone()))
            .expression_attribute_values(":exp", AttributeValue::N((now + lease.as_millis()).to_string()))
            .expression_attribute_values(":now", AttributeValue::N(now.to_string()))
            .expression_attribute_values(":one", AttributeValue::N(String::from("1")))
            .return_values(ReturnValue::AllNew)
            .send()
            .await;
        match answer {
            Ok(output) => {
                let fence = output
                    .attributes()
                    .and_then(|item| item.get("fence"))
                    .and_then(|value| value.as_n().ok())
                    .and_then(|n| n.parse::<u64>().ok())
                    .ok_or_else(|| String::from("the acquire did not read back a fence"))?;
                Ok(Some(NaiveLease::start(self.clone(), name, owner, fence, lease, now + lease.as_millis())))
            }
            Err(err) => match err.into_service_error() {
                UpdateItemError::ConditionalCheckFailedException(_) => Ok(None),
                other => Err(describe(&other)),
            },
        }
    }

    /// Tries every third of the lease until the lock is taken.
    pub(crate) async fn acquire(&self, name: &str, lease: Duration) -> Result<NaiveLease, String> {
        loop {
            if let Some(held) = self.try_acquire(name, lease).await? {
                return Ok(held);
            }
            self.clock.sleep((lease / 3).min(Duration::from_secs(10))).await;
        }
    }

    /// Writes the data item of `lock`, checking nothing at DynamoDB: the holder's belief is
    /// the only guard.
    pub(crate) async fn unguarded_write(&self, lock: &str, token: u64, op: u32, writer: &str) -> Result<(), String> {
        let answer = self
            .client
            .put_item()
            .table_name(TABLE)
            .item(PARTITION_KEY, AttributeValue::S(format!("DATA#{lock}")))
            .item(SORT_KEY, AttributeValue::S(String::from("DATA")))
            .item("token", AttributeValue::N(token.to_string()))
            .item("op", AttributeValue::N(op.to_string()))
            .item("writer", AttributeValue::S(writer.to_owned()))
            .customize()
            .mutate_request(move |request| {
                request.headers_mut().insert(crate::locks::OP_HEADER, op.to_string());
            })
            .send()
            .await;
        answer.map(|_| ()).map_err(|err| describe(&err.into_service_error()))
    }
}

impl NaiveLease {
    fn start(locks: NaiveLocks, name: &str, owner: String, fence: u64, lease: Duration, expires_ms: u128) -> Self {
        let inner = Arc::new(Inner {
            locks,
            name: name.to_owned(),
            owner,
            fence,
            lease,
            ended: CancellationToken::new(),
            end: Mutex::new(None),
        });
        tokio::spawn(inner.clone().heartbeat(expires_ms));
        NaiveLease { inner }
    }

    /// The fencing token.
    pub(crate) fn token(&self) -> u64 {
        self.inner.fence
    }

    /// Cancelled when the holder stops believing in the lease.
    pub(crate) fn ended(&self) -> CancellationToken {
        self.inner.ended.child_token()
    }

    /// Why the lease ended, if it was lost.
    pub(crate) fn loss_reason(&self) -> Option<&'static str> {
        *self.inner.end()
    }

    /// Removes the owner if it is still this lease.
    pub(crate) async fn release(self) -> Result<(), String> {
        self.inner.finish("released");
        let answer = self
            .inner
            .locks
            .client
            .update_item()
            .table_name(TABLE)
            .set_key(Some(key(&self.inner.name).into_iter().collect()))
            .update_expression("REMOVE #owner")
            .condition_expression("#owner = :owner")
            .expression_attribute_names("#owner", "owner")
            .expression_attribute_values(":owner", AttributeValue::S(self.inner.owner.clone()))
            .send()
            .await;
        match answer {
            Ok(_) => Ok(()),
            Err(err) => match err.into_service_error() {
                UpdateItemError::ConditionalCheckFailedException(_) => Ok(()),
                other => Err(describe(&other)),
            },
        }
    }
}

impl Inner {
    fn end(&self) -> MutexGuard<'_, Option<&'static str>> {
        self.end.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn finish(&self, reason: &'static str) {
        let mut end = self.end();
        if end.is_none() {
            *end = Some(reason);
            drop(end);
            self.ended.cancel();
        }
    }

    /// Renews every third of the lease; believes in the lease until this machine's wall clock
    /// passes its expiry.
    async fn heartbeat(self: Arc<Self>, mut expires_ms: u128) {
        let clock = self.locks.clock.clone();
        let every = self.lease / 3;
        loop {
            let now = wall_ms(clock.wall());
            if now >= expires_ms {
                return self.finish("expired");
            }
            let until_expiry = Duration::from_millis((expires_ms - now) as u64);
            tokio::select! {
                biased;
                () = self.ended.cancelled() => return,
                () = clock.sleep(every.min(until_expiry)) => {}
            }
            let now = wall_ms(clock.wall());
            if now >= expires_ms {
                return self.finish("expired");
            }
            let until_expiry = Duration::from_millis((expires_ms - now) as u64);
            let renewal = self
                .locks
                .client
                .update_item()
                .table_name(TABLE)
                .set_key(Some(key(&self.name).into_iter().collect()))
                .update_expression("SET #exp = :exp")
                .condition_expression("#owner = :owner")
                .expression_attribute_names("#owner", "owner")
                .expression_attribute_names("#exp", "expiresAtMs")
                .expression_attribute_values(":owner", AttributeValue::S(self.owner.clone()))
                .expression_attribute_values(":exp", AttributeValue::N((now + self.lease.as_millis()).to_string()))
                .send();
            let answer = tokio::select! {
                biased;
                () = self.ended.cancelled() => return,
                answer = renewal => answer,
                () = clock.sleep(until_expiry) => return self.finish("expired"),
            };
            match answer {
                Ok(_) => expires_ms = now + self.lease.as_millis(),
                Err(err) => {
                    if let UpdateItemError::ConditionalCheckFailedException(_) = err.into_service_error() {
                        return self.finish("taken_over");
                    }
                }
            }
        }
    }
}
