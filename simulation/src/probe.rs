//! [`Probe`]: how a service teaches the world its protocol.
//!
//! A service needs no probe: the world sees the table and key of every request its processes
//! send, times its triggers and races by them, and records the requests in the history. A
//! protocol with state of its own in the items it writes (a lock whose items say who holds it,
//! a queue whose jobs say who claimed them) can say more through a probe, one per run:
//!
//! - [`Probe::sent`]: as a request leaves its process, which item it is about and the label of
//!   the moment (`lock`, say), which triggers can wait for;
//! - [`Probe::applied`]: right after DynamoDB applied it, before its answer starts back, what it
//!   did: read the item as DynamoDB holds it now ([`Far::fake`], past the network and the
//!   faults), record notes in the history (the ground truth a checker holds beliefs against),
//!   label the moment (`grant`, `renewal`), and announce when an item falls due for a waiting
//!   process ([`Far::due`]);
//! - [`Probe::answered`]: what reached the process;
//! - [`Probe::fault`] and [`Probe::phase`]: faults the nemesis applied to items, and the phases
//!   of the run, at which the probe may act on the processes ([`Control`]).
//!
//! The lock library's probe (`dynalease_sim::locks`) is one: it reads a lock item after every
//! write DynamoDB applies to it.

use std::any::Any;
use std::fmt;
use std::time::Duration;

use aws_smithy_runtime_api::http::Headers;
use dynalease_fake::FakeDynamoDb;

use crate::gate::RunState;
use crate::history::{Nemesis, Phase, ProcessRef, Recorder};
use crate::item::ItemRef;
use crate::world::triggers::Triggers;

/// A request of a process, as the world sees it on its way.
#[derive(Clone, Copy)]
pub struct Outgoing<'a> {
    /// The incarnation that sends it.
    pub process: ProcessRef,
    /// The operation: `PutItem`, `TransactWriteItems`, ...
    pub operation: &'a str,
    /// Its body, as the SDK wrote it (JSON; attribute maps in hash order).
    pub body: &'a [u8],
    /// Whether the operation writes.
    pub write: bool,
    /// When it left the process, in global time.
    pub sent_at: Duration,
}

impl fmt::Debug for Outgoing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outgoing")
            .field("process", &self.process)
            .field("operation", &self.operation)
            .field("write", &self.write)
            .finish_non_exhaustive()
    }
}

/// What a probe says of a request as it leaves its process.
#[derive(Clone, Debug, Default)]
pub struct Look {
    /// The item the request is about.
    pub item: Option<ItemRef>,
    /// Whether the world finds the item in the request when `item` is `None` (as it does for a
    /// service without a probe).
    pub find: bool,
    /// The label of the moment it was sent, if any.
    pub label: Option<&'static str>,
    /// Whether the probe wants to hear what DynamoDB did with it and what reached the process.
    pub watch: bool,
    /// Numbers of the probe's own for the request, kept with it; [`Probe::applied`] may change
    /// them for [`Probe::answered`].
    pub tags: [u64; 3],
}

/// What became of a request, as its process learns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Its answer reached the process, with this HTTP status.
    Heard(u16),
    /// DynamoDB applied it but the answer was lost: the connection reset.
    Lost,
    /// A partition dropped it or its answer: the client timed out.
    TimedOut,
}

/// The world as a probe sees it at the far end of the network, right after DynamoDB answered a
/// request.
pub struct Far<'a> {
    pub(crate) fake: &'a FakeDynamoDb,
    pub(crate) recorder: &'a Recorder,
    pub(crate) triggers: &'a Triggers,
}

impl fmt::Debug for Far<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Far").finish_non_exhaustive()
    }
}

impl Far<'_> {
    /// The fake, to read items as DynamoDB holds them now ([`FakeDynamoDb::read_attributes`]):
    /// no request, no fault, nothing the run would notice.
    pub fn fake(&self) -> &FakeDynamoDb {
        self.fake
    }

    /// The history, to record notes.
    pub fn recorder(&self) -> &Recorder {
        self.recorder
    }

    /// Announces that `item`, whose holder's record the probe numbers `version`, falls due for
    /// `reader` at `due` (global time): a process stopped until then ([`StopUntilDue`]) resumes
    /// just before, and a write held for it is delivered once a read finds it due.
    ///
    /// [`StopUntilDue`]: crate::nemesis::Reaction::StopUntilDue
    pub fn due(&self, item: &ItemRef, version: u64, reader: ProcessRef, due: Duration) {
        self.triggers.due(item, version, reader, due);
    }

    /// Whether triggers may still fire: announcements are wasted once every fault is healed.
    pub fn triggers_active(&self) -> bool {
        self.triggers.is_active()
    }
}

/// What a service's probe is made with, at the start of a run.
#[derive(Debug)]
pub struct ProbeInit<'a> {
    /// The seed of the run.
    pub seed: u64,
    /// The fake, to read items as DynamoDB holds them.
    pub fake: &'a FakeDynamoDb,
    /// The history, to record notes.
    pub recorder: &'a Recorder,
}

/// What a probe may do to the processes at a phase of the run.
pub trait Control {
    /// The current incarnation of process `id` and its state; `None` for no such process.
    fn current(&self, id: u16) -> Option<(ProcessRef, RunState)>;

    /// Crashes `process` for good, if it is the current incarnation and runs.
    fn crash(&mut self, process: ProcessRef);

    /// The history.
    fn recorder(&self) -> &Recorder;
}

/// A service's knowledge of its own protocol, one per run. See the [module docs](self).
pub trait Probe: Any + Send + Sync + fmt::Debug {
    /// Looks at a request as it leaves its process, with its HTTP headers.
    fn sent(&self, request: &Outgoing<'_>, headers: &Headers) -> Look;

    /// DynamoDB answered `request` with `status` and `answer`; the answer has not started back.
    /// Returns the label of the moment (for a write DynamoDB applied: what it did, as `grant`).
    /// Called for the requests whose [`Look::watch`] is set.
    fn applied(
        &self,
        request: &Outgoing<'_>,
        look: &mut Look,
        status: u16,
        answer: &[u8],
        far: &Far<'_>,
    ) -> Option<&'static str>;

    /// What reached the process of `request`. Called for the requests whose [`Look::watch`] is
    /// set, once per attempt.
    fn answered(&self, request: &Outgoing<'_>, look: &Look, fate: Fate, far: &Far<'_>) {
        let _ = (request, look, fate, far);
    }

    /// The nemesis applied `fault` (a deletion or a replacement of an item, say).
    fn fault(&self, fault: &Nemesis, far: &Far<'_>) {
        let _ = (fault, far);
    }

    /// A phase of the run starts.
    fn phase(&self, phase: &Phase, control: &mut dyn Control) {
        let _ = (phase, control);
    }

    /// The incarnation that holds `item` and the number of its record, for
    /// [`StopUntilDue`](crate::nemesis::Reaction::StopUntilDue).
    fn holder(&self, item: &ItemRef) -> Option<(ProcessRef, u64)> {
        let _ = item;
        None
    }

    /// The probe as `Any`, for the service's code and checker to reach their own type
    /// ([`Ctx::probe`](crate::Ctx::probe), [`Run::probe`](crate::Run::probe)).
    fn as_any(&self) -> &dyn Any;
}
