//! Faults: seeded, scriptable misbehaviour of the fake, for testing code that must survive it.

use std::time::Duration;

use crate::place::Place;

/// What goes wrong with a request a rule matches.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Fault {
    /// `ProvisionedThroughputExceededException` (400, retryable): the request is not applied.
    Throttle,
    /// `ThrottlingException` (400, retryable): the request is not applied.
    ThrottlingException,
    /// `InternalServerError` (500, retryable): the request is not applied.
    InternalServerError,
    /// The request reaches the fake this much later, on the fake's clock, and is applied then.
    Latency(Duration),
    /// The request is applied at once, but its answer arrives this much later, on the fake's
    /// clock: the write happened well before the client learns of it.
    SlowResponse(Duration),
    /// The request is not applied and is answered with this error: a status (400 or 500), an
    /// error code such as `AccessDeniedException`, and a message. See [`Fault::error`].
    Error {
        /// The HTTP status.
        status: u16,
        /// The error code, the part of `__type` after `#`.
        code: String,
        /// The message.
        message: String,
    },
    /// The request is applied, but its response is lost: the client sees a retryable transport
    /// error, and a retry meets the item as the first attempt left it.
    LostResponse,
    /// The table answers `ResourceNotFoundException`, as if it were gone; nothing is applied.
    ResourceNotFound,
    /// A BatchWriteItem or BatchGetItem processes only its first `n` requests (or keys) and
    /// answers the others as `UnprocessedItems` (or `UnprocessedKeys`), as DynamoDB does when it
    /// throttles part of a batch; with `n` = 0 nothing is processed and the answer is
    /// `ProvisionedThroughputExceededException`. Other operations are not affected.
    Unprocessed(usize),
    /// The writes of a global table stop reaching the replicas the rule names (by
    /// [`region`](FaultRule::region), [`account`](FaultRule::account) and
    /// [`table`](FaultRule::table)) for as long as the rule is in force: they wait, in order, and
    /// arrive once it is removed. No request meets it; its operation, probability, times and
    /// after do not apply.
    StallReplication,
    /// An eventually consistent read sees the table, and its indexes, as they were up to this
    /// long ago on the fake's clock: each read a rule fires on draws its lag from the fake's
    /// seed, from zero to this bound, and sees the state the table had at that one instant (an
    /// item changed since shows its old attributes, one created since is absent, one deleted
    /// since is there with its last attributes; a global index shows the same instant of its
    /// items). So DynamoDB may answer a GetItem, BatchGetItem, Query or Scan without
    /// `ConsistentRead`, any read of a global secondary index, and a PartiQL `SELECT` without
    /// `ConsistentRead`.
    ///
    /// A strongly consistent read (`ConsistentRead: true` on a table or a local index),
    /// TransactGetItems, ExecuteTransaction, the condition of a write, and every write are
    /// never stale, whatever the rule says. A rule of this fault meets only requests of the
    /// operations that can read eventually consistently (GetItem, BatchGetItem, Query, Scan,
    /// ExecuteStatement, BatchExecuteStatement); it counts a strongly consistent one among them
    /// (for [`FaultRule::times`], [`FaultRule::after`] and its probability) and leaves it as it
    /// is. Narrowed to a table ([`FaultRule::table`]), it makes the reads of that table stale
    /// and no other (a BatchGetItem meets it, as it meets every rule, when the first table it
    /// names is that one). The bound is at most [`Fault::STALE_READ_MAX`].
    ///
    /// Tables keep the changes of their items only while a rule of this fault is in force, and
    /// only for as long as the largest bound of those rules: a fake without one pays nothing.
    /// A read sees no further back than when the rule was added.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)] async fn main() {
    /// use std::time::Duration;
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynalease_fake::{FakeDynamoDb, Fault, FaultRule};
    ///
    /// let fake = FakeDynamoDb::builder().seed(7).build();
    /// fake.create_table("Shop", "pk", None);
    /// fake.inject(FaultRule::new(Fault::StaleRead(Duration::from_secs(1))).table("Shop"));
    /// let client = fake.client();
    /// let key = AttributeValue::S("order#1".into());
    /// client.put_item().table_name("Shop").item("pk", key.clone()).send().await.unwrap();
    ///
    /// // An eventually consistent read right after the write: its lag, drawn from the seed, is
    /// // more than zero, so it sees the table before the item was put.
    /// let read = client.get_item().table_name("Shop").key("pk", key.clone()).send().await.unwrap();
    /// assert!(read.item.is_none());
    ///
    /// // A strongly consistent read sees the write at once.
    /// let strong = client.get_item().table_name("Shop").key("pk", key.clone()).consistent_read(true)
    ///     .send().await.unwrap();
    /// assert!(strong.item.is_some());
    ///
    /// // Once the bound has passed on the fake's clock, every read sees it.
    /// tokio::time::advance(Duration::from_secs(1)).await;
    /// let later = client.get_item().table_name("Shop").key("pk", key).send().await.unwrap();
    /// assert!(later.item.is_some());
    /// # }
    /// ```
    StaleRead(Duration),
}

impl Fault {
    /// The largest bound a [`Fault::StaleRead`] may have: an hour. Tables keep the changes of
    /// their items for as long as the bound, so a larger one would only hold more memory.
    pub const STALE_READ_MAX: Duration = Duration::from_secs(3600);

    /// A client error (status 400) with this code and message, for example
    /// `Fault::error("AccessDeniedException", "User is not authorized")`.
    pub fn error(code: &str, message: &str) -> Fault {
        Fault::Error { status: 400, code: code.to_owned(), message: message.to_owned() }
    }

    /// The name the request log shows for this fault.
    pub fn name(&self) -> &'static str {
        match self {
            Fault::Throttle => "Throttle",
            Fault::ThrottlingException => "ThrottlingException",
            Fault::InternalServerError => "InternalServerError",
            Fault::Latency(_) => "Latency",
            Fault::SlowResponse(_) => "SlowResponse",
            Fault::Error { .. } => "Error",
            Fault::LostResponse => "LostResponse",
            Fault::ResourceNotFound => "ResourceNotFound",
            Fault::Unprocessed(_) => "Unprocessed",
            Fault::StallReplication => "StallReplication",
            Fault::StaleRead(_) => "StaleRead",
        }
    }
}

/// When a fault applies: which requests, how often, how many times.
///
/// ```
/// use dynalease_fake::{Fault, FaultRule};
/// // The next conditional write to "Shop" by "proc-1" is applied, but its answer is lost.
/// let rule = FaultRule::new(Fault::LostResponse).operation("PutItem").table("Shop").client("proc-1").times(1);
/// // One request in ten of any kind is throttled.
/// let noisy = FaultRule::new(Fault::Throttle).probability(0.1);
/// # let _ = (rule, noisy);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct FaultRule {
    pub(crate) fault: Fault,
    pub(crate) operation: Option<String>,
    pub(crate) table: Option<String>,
    pub(crate) client: Option<String>,
    pub(crate) account: Option<String>,
    pub(crate) region: Option<String>,
    pub(crate) remaining: Option<u64>,
    pub(crate) skip: u64,
    /// Probability in millionths, so that the decision needs no floating point.
    pub(crate) per_million: u32,
}

impl FaultRule {
    /// A rule that gives every request `fault`, until narrowed.
    ///
    /// Panics if `fault` is a [`Fault::StaleRead`] over [`Fault::STALE_READ_MAX`]: this is test
    /// setup, where a mistake should stop the test.
    pub fn new(fault: Fault) -> Self {
        if let Fault::StaleRead(bound) = fault {
            assert!(
                bound <= Fault::STALE_READ_MAX,
                "a StaleRead's bound is at most an hour (Fault::STALE_READ_MAX), not {bound:?}"
            );
        }
        FaultRule {
            fault,
            operation: None,
            table: None,
            client: None,
            account: None,
            region: None,
            remaining: None,
            skip: 0,
            per_million: 1_000_000,
        }
    }

    /// Only requests of this operation, for example `"UpdateItem"`.
    pub fn operation(mut self, operation: impl Into<String>) -> Self {
        self.operation = Some(operation.into());
        self
    }

    /// Only requests that name this table.
    pub fn table(mut self, table: impl Into<String>) -> Self {
        self.table = Some(table.into());
        self
    }

    /// Only requests from the client of this name (see `FakeDynamoDb::client_named`).
    pub fn client(mut self, client: impl Into<String>) -> Self {
        self.client = Some(client.into());
        self
    }

    /// Only requests for this account (see [`FakeDynamoDb::client_for`](crate::FakeDynamoDb::client_for);
    /// over HTTP, the access key id of the request's signature).
    pub fn account(mut self, account: impl Into<String>) -> Self {
        self.account = Some(account.into());
        self
    }

    /// Only requests for this region (see [`FakeDynamoDb::client_for`](crate::FakeDynamoDb::client_for);
    /// over HTTP, the region of the request's signature).
    pub fn region(mut self, region: impl Into<String>) -> Self {
        self.region = Some(region.into());
        self
    }

    /// Apply to at most `count` requests, then retire.
    pub fn times(mut self, count: u64) -> Self {
        self.remaining = Some(count);
        self
    }

    /// Let the first `count` matching requests through before the rule starts to apply.
    pub fn after(mut self, count: u64) -> Self {
        self.skip = count;
        self
    }

    /// Apply to each matching request with this probability (0.0 to 1.0), drawn from the fake's seed.
    pub fn probability(mut self, probability: f64) -> Self {
        let clamped = probability.clamp(0.0, 1.0);
        self.per_million = (clamped * 1_000_000.0).round() as u32;
        self
    }

    /// The fault this rule injects.
    pub fn fault(&self) -> &Fault {
        &self.fault
    }

    pub(crate) fn matches(&self, operation: &str, table: Option<&str>, client: Option<&str>, place: Place<'_>) -> bool {
        if self.remaining == Some(0) {
            return false;
        }
        if self.operation.as_deref().is_some_and(|op| op != operation) {
            return false;
        }
        if matches!(self.fault, Fault::StaleRead(_)) && !crate::stale::can_read_stale(operation) {
            return false;
        }
        if let Some(want) = &self.table
            && table != Some(want.as_str())
        {
            return false;
        }
        if let Some(want) = &self.client
            && client != Some(want.as_str())
        {
            return false;
        }
        if self.account.as_deref().is_some_and(|account| account != place.account) {
            return false;
        }
        self.region.as_deref().is_none_or(|region| region == place.region)
    }
}

/// A small deterministic generator (SplitMix64) for fault decisions and request ids.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix(u64);

impl SplitMix {
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A duration from zero to `bound`, both included, to the nanosecond.
    pub(crate) fn up_to(&mut self, bound: Duration) -> Duration {
        let nanos = u64::try_from(bound.as_nanos()).unwrap_or(u64::MAX);
        match nanos.checked_add(1) {
            Some(span) => Duration::from_nanos(self.next_u64() % span),
            None => Duration::from_nanos(self.next_u64()),
        }
    }

    /// True with probability `per_million` / 1,000,000.
    pub(crate) fn chance(&mut self, per_million: u32) -> bool {
        if per_million >= 1_000_000 {
            return true;
        }
        (self.next_u64() % 1_000_000) < per_million as u64
    }
}

/// How many rules that are used up [`FaultSet`] keeps for listing: the latest ones.
const RETIRED_KEPT: usize = 256;

/// A rule in force, or used up, with its id and what it did so far.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    /// Its id, counted from 1 in the order rules were added.
    pub(crate) id: u64,
    pub(crate) rule: FaultRule,
    /// How many requests it matched.
    pub(crate) seen: u64,
    /// How many requests it gave its fault to.
    pub(crate) fired: u64,
}

/// The rules in force, in the order they were added; the first that fires wins.
#[derive(Debug)]
pub(crate) struct FaultSet {
    rules: Vec<Slot>,
    /// Rules used up (their `times` spent), latest last, kept only to be listed.
    retired: std::collections::VecDeque<Slot>,
    next_id: u64,
    rng: SplitMix,
}

impl FaultSet {
    pub(crate) fn new(seed: u64) -> Self {
        FaultSet {
            rules: Vec::new(),
            retired: std::collections::VecDeque::new(),
            next_id: 1,
            rng: SplitMix::new(seed ^ 0xFA17_FA17),
        }
    }

    /// Adds a rule after the others; returns its id.
    pub(crate) fn add(&mut self, rule: FaultRule) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.rules.push(Slot { id, rule, seen: 0, fired: 0 });
        id
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether any rule asks which table a request names (finding out means reading its body).
    pub(crate) fn wants_table(&self) -> bool {
        self.rules.iter().any(|slot| slot.rule.table.is_some())
    }

    pub(crate) fn clear(&mut self) {
        self.rules.clear();
        self.retired.clear();
    }

    /// Removes the rule `id`, in force or used up; false if there is none.
    pub(crate) fn remove(&mut self, id: u64) -> bool {
        let (rules, retired) = (self.rules.len(), self.retired.len());
        self.rules.retain(|slot| slot.id != id);
        self.retired.retain(|slot| slot.id != id);
        rules + retired != self.rules.len() + self.retired.len()
    }

    /// Every rule, used up or in force, in the order they were added.
    pub(crate) fn slots(&self) -> Vec<Slot> {
        let mut all: Vec<Slot> = self.retired.iter().chain(&self.rules).cloned().collect();
        all.sort_by_key(|slot| slot.id);
        all
    }

    /// Whether a rule holds back the replication of `table` into `place`.
    pub(crate) fn stalls(&self, place: Place<'_>, table: &str) -> bool {
        self.rules.iter().any(|slot| {
            let rule = &slot.rule;
            rule.fault == Fault::StallReplication
                && rule.table.as_deref().is_none_or(|want| want == table)
                && rule.account.as_deref().is_none_or(|want| want == place.account)
                && rule.region.as_deref().is_none_or(|want| want == place.region)
        })
    }

    /// The faults this request meets: at most one latency before it, one delay after it, one failure.
    pub(crate) fn draw(
        &mut self,
        operation: &str,
        table: Option<&str>,
        client: Option<&str>,
        place: Place<'_>,
    ) -> Drawn {
        let mut drawn = Drawn::default();
        for slot in &mut self.rules {
            let rule = &mut slot.rule;
            if rule.fault == Fault::StallReplication || !rule.matches(operation, table, client, place) {
                continue;
            }
            slot.seen += 1;
            if slot.seen <= rule.skip {
                continue;
            }
            let taken = match rule.fault {
                Fault::Latency(_) => drawn.latency.is_some(),
                Fault::SlowResponse(_) => drawn.response_delay.is_some(),
                Fault::StaleRead(_) => drawn.stale.is_some(),
                _ => drawn.failure.is_some(),
            };
            if taken {
                continue;
            }
            if !self.rng.chance(rule.per_million) {
                continue;
            }
            if let Some(remaining) = &mut rule.remaining {
                *remaining -= 1;
            }
            slot.fired += 1;
            match &rule.fault {
                Fault::Latency(d) => drawn.latency = Some(*d),
                Fault::SlowResponse(d) => drawn.response_delay = Some(*d),
                Fault::StaleRead(bound) => {
                    drawn.stale = Some(self.rng.up_to(*bound));
                    drawn.stale_table = rule.table.clone();
                    // The request needs the tables' history even if this rule is now used up.
                    drawn.history = drawn.history.max(Some(*bound));
                }
                other => drawn.failure = Some(other.clone()),
            }
        }
        if self.rules.iter().any(|slot| slot.rule.remaining == Some(0)) {
            let (spent, kept): (Vec<Slot>, Vec<Slot>) =
                self.rules.drain(..).partition(|slot| slot.rule.remaining == Some(0));
            self.rules = kept;
            for slot in spent {
                if self.retired.len() == RETIRED_KEPT {
                    self.retired.pop_front();
                }
                self.retired.push_back(slot);
            }
        }
        drawn.history = drawn.history.max(self.history_horizon());
        drawn
    }

    /// How long tables must keep the changes of their items for the rules in force: the largest
    /// bound of a [`Fault::StaleRead`] among them; `None` when there is none.
    pub(crate) fn history_horizon(&self) -> Option<Duration> {
        let bounds = self.rules.iter().filter_map(|slot| match slot.rule.fault {
            Fault::StaleRead(bound) => Some(bound),
            _ => None,
        });
        bounds.max()
    }
}

/// What the fault rules chose for one request.
#[derive(Debug, Default, Clone)]
pub(crate) struct Drawn {
    pub(crate) latency: Option<Duration>,
    pub(crate) response_delay: Option<Duration>,
    pub(crate) failure: Option<Fault>,
    /// How far back an eventually consistent read of the request looks ([`Fault::StaleRead`]).
    pub(crate) stale: Option<Duration>,
    /// The only table whose reads are stale, when the rule that drew `stale` names one.
    pub(crate) stale_table: Option<String>,
    /// How long tables keep the changes of their items while this request is answered.
    pub(crate) history: Option<Duration>,
}
