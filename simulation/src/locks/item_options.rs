//! What the options of an incarnation promise about the lock items its writes leave: the
//! holder label on the item of a lock it holds (and none on a free one, or where it has no
//! label), and with the expiry option, an expiry of the wall clock plus its retention.
//!
//! No run lasts the day of the shortest retention, so an expiry written too early would never
//! show as an item DynamoDB deleted; the world holds each write to what it left instead.

use std::time::{Duration, SystemTime};

/// How far an expiry may be from the true time plus the retention: the wall clocks of the
/// processes are off by seconds, and a write may reach DynamoDB minutes after it was made.
const EXPIRY_SLACK: Duration = Duration::from_secs(3600);

/// The options of one incarnation that show in the lock items it writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ItemOptions {
    /// Its holder label, if it has one.
    pub(crate) label: Option<String>,
    /// The retention of its expiry option, if it has it.
    pub(crate) retention: Option<Duration>,
}

/// The attributes of a lock item that the options write, as a write left them.
#[derive(Clone, Debug, Default)]
pub(crate) struct ItemAttributes<'a> {
    /// Whether the item has an owner.
    pub(crate) held: bool,
    /// Its holder label.
    pub(crate) label: Option<&'a str>,
    /// Its expiry, in seconds since the epoch, as DynamoDB holds the number.
    pub(crate) expiry: Option<&'a str>,
}

impl ItemOptions {
    /// What is wrong with the item a write of an incarnation with these options left at the
    /// true time `now`, if anything is.
    pub(crate) fn broken_by(&self, item: &ItemAttributes<'_>, now: SystemTime) -> Option<String> {
        let label = if item.held { self.label.as_deref() } else { None };
        if item.label != label {
            let state = if item.held { "held" } else { "free" };
            return Some(format!(
                "the lock item a write left {state} has holder label {:?}, not {label:?}",
                item.label
            ));
        }
        let retention = self.retention?;
        let Some(expiry) = item.expiry else {
            return Some(String::from("a write with the expiry option left the lock item without an expiry"));
        };
        let due = now.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default() + retention;
        let in_bounds = expiry.parse::<u64>().is_ok_and(|secs| Duration::from_secs(secs).abs_diff(due) <= EXPIRY_SLACK);
        if in_bounds {
            return None;
        }
        Some(format!(
            "a write with a retention of {} s left the lock item expiring at {expiry}, not about {} s since the epoch",
            retention.as_secs(),
            due.as_secs()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW_SECS: u64 = 1_717_200_000;
    const DAY: Duration = Duration::from_secs(24 * 3600);

    fn now() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(NOW_SECS)
    }

    #[test]
    fn a_held_item_carries_the_label_of_its_writer_and_a_free_one_none() {
        let labelled = ItemOptions { label: Some(String::from("p1")), retention: None };
        let held = |label| ItemAttributes { held: true, label, expiry: None };
        assert_eq!(labelled.broken_by(&held(Some("p1")), now()), None);
        assert!(labelled.broken_by(&held(Some("p2")), now()).is_some());
        assert!(labelled.broken_by(&held(None), now()).is_some());
        let free = |label| ItemAttributes { held: false, label, expiry: None };
        assert_eq!(labelled.broken_by(&free(None), now()), None);
        assert!(labelled.broken_by(&free(Some("p1")), now()).is_some());
        let unlabelled = ItemOptions { label: None, retention: None };
        assert!(unlabelled.broken_by(&held(Some("p1")), now()).is_some());
    }

    #[test]
    fn an_expiry_is_the_wall_clock_plus_the_retention() {
        let expiring = ItemOptions { label: None, retention: Some(DAY) };
        fn item(expiry: Option<&str>) -> ItemAttributes<'_> {
            ItemAttributes { held: false, label: None, expiry }
        }
        let due = (NOW_SECS + DAY.as_secs()).to_string();
        assert_eq!(expiring.broken_by(&item(Some(&due)), now()), None);
        let off_by_minutes = (NOW_SECS + DAY.as_secs() - 600).to_string();
        assert_eq!(expiring.broken_by(&item(Some(&off_by_minutes)), now()), None);
        for wrong in [NOW_SECS.to_string(), (NOW_SECS * 1000 + 86_400_000).to_string(), String::from("soon")] {
            assert!(expiring.broken_by(&item(Some(&wrong)), now()).is_some(), "{wrong}");
        }
        assert!(expiring.broken_by(&item(None), now()).is_some());
        let without = ItemOptions { label: None, retention: None };
        assert_eq!(without.broken_by(&item(Some(&NOW_SECS.to_string())), now()), None);
    }
}
