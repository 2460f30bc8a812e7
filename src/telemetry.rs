//! The names of the library's spans, span fields and metrics, and the counters it records.
//!
//! - Spans (created where they are entered, with these names): `Lock.TryAcquire`,
//!   `Lock.Acquire` (an acquire or one contention of an election, with all its polls),
//!   `Lock.Renew` (the heartbeat's are root spans that follow from the acquire) and
//!   `Lock.Release`, with the fields `db.collection.name`, `dynalease.lock.name`,
//!   `dynalease.lock.acquired`, `dynalease.lock.takeover`, `dynalease.lock.fencing_token` and
//!   `error.type`.
//! - Metrics, through the `metrics` facade: [`ACQUISITIONS`], [`RENEWALS`], [`LOSSES`],
//!   [`CONTENTION_RETRIES`], each labelled with the table ([`COLLECTION`]), never with the lock.
//!
//! The holder label is in log events only, never on a span or a metric; the lock name is on
//! spans and log events, never on a metric, where it would be a dimension per lock.

use crate::lease::LossReason;

/// Span field and metric label: the table.
pub(crate) const COLLECTION: &str = "db.collection.name";
/// Metric label of a takeover, on [`ACQUISITIONS`].
pub(crate) const TAKEOVER: &str = "dynalease.lock.takeover";
/// Metric label of a loss, on [`LOSSES`].
pub(crate) const LOSS_REASON: &str = "dynalease.lock.loss_reason";
/// Metric label of a failed request.
pub(crate) const ERROR_TYPE: &str = "error.type";

/// Counter: each lease acquired, labelled with [`TAKEOVER`].
pub(crate) const ACQUISITIONS: &str = "dynalease.lock.acquisitions";
/// Counter: each renewal sent, with [`ERROR_TYPE`] on one that failed.
pub(crate) const RENEWALS: &str = "dynalease.lock.renewals";
/// Counter: each lease lost before it was released, with [`LOSS_REASON`].
pub(crate) const LOSSES: &str = "dynalease.lock.losses";
/// Counter: each time an election contends again after a transient error, with [`ERROR_TYPE`].
pub(crate) const CONTENTION_RETRIES: &str = "dynalease.lock.contention_retries";

/// Describes the counters to the installed recorder, for exporters that show descriptions.
pub(crate) fn describe() {
    use metrics::{Unit, describe_counter};
    describe_counter!(ACQUISITIONS, Unit::Count, "Leases acquired, with dynalease.lock.takeover");
    describe_counter!(RENEWALS, Unit::Count, "Lease renewals sent, with error.type on one that failed");
    describe_counter!(LOSSES, Unit::Count, "Leases lost before their release, with dynalease.lock.loss_reason");
    describe_counter!(
        CONTENTION_RETRIES,
        Unit::Count,
        "Contentions of an election started again after a transient error, with error.type"
    );
}

pub(crate) fn acquisition(table: &str, takeover: bool) {
    metrics::counter!(ACQUISITIONS, COLLECTION => table.to_owned(), TAKEOVER => if takeover { "true" } else { "false" })
        .increment(1);
}

/// A renewal that got an answer; `error_type` names the error of one that did not renew.
pub(crate) fn renewal(table: &str, error_type: Option<&str>) {
    match error_type {
        None => metrics::counter!(RENEWALS, COLLECTION => table.to_owned()).increment(1),
        Some(error_type) => {
            metrics::counter!(RENEWALS, COLLECTION => table.to_owned(), ERROR_TYPE => error_type.to_owned())
                .increment(1);
        }
    }
}

pub(crate) fn loss(table: &str, reason: LossReason) {
    metrics::counter!(LOSSES, COLLECTION => table.to_owned(), LOSS_REASON => reason.as_str()).increment(1);
}

pub(crate) fn contention_retry(table: &str, error_type: &str) {
    metrics::counter!(CONTENTION_RETRIES, COLLECTION => table.to_owned(), ERROR_TYPE => error_type.to_owned())
        .increment(1);
}
