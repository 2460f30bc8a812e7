//! [`LibraryEvents`]: the tracing subscriber of a run, which lets the library's log events
//! through (and drops them) as a service's subscriber would, so that a run evaluates what they
//! carry: the fields of every warning and every step of an election are code that runs under
//! faults too. Spans stay off, and so does every event of another crate (the SDK's among them,
//! which would draw from its random numbers).

use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// A subscriber that enables the events of the `dynalease` crates and nothing else, and keeps
/// none of them.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct LibraryEvents;

impl Subscriber for LibraryEvents {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.is_event() && metadata.target().split("::").next() == Some("dynalease")
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        // Spans are never enabled, so no span is ever made; an id is all the trait asks for.
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, _: &Event<'_>) {}

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}
