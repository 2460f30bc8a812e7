//! Where the library draws the ids of owners and record versions.
//!
//! - [`IdSource`]: the trait, injected through
//!   [`LockTableOptions::id_source`](crate::LockTableOptions::id_source).
//! - [`RandomIds`]: the default, random UUIDs (version 4).
//! - [`SeededIds`]: UUID-shaped ids from a seed, the same sequence on every run.

use std::fmt;
use std::sync::Mutex;

/// A source of unique ids for lock owners and record versions.
///
/// Every acquire draws a new owner id and a new record version, every renewal a new record
/// version. Ids must be unique across every process that contends for the same lock: two
/// processes with the same seeded source would believe they hold each other's leases.
///
/// # Examples
///
/// ```
/// use dynalease::{IdSource, SeededIds};
///
/// let ids = SeededIds::new(7);
/// let first = ids.next_id();
/// assert_ne!(first, ids.next_id());
/// assert_eq!(first, SeededIds::new(7).next_id()); // the same seed, the same sequence
/// ```
pub trait IdSource: Send + Sync + fmt::Debug + 'static {
    /// Returns an id that this source has not returned before.
    fn next_id(&self) -> String;
}

/// The default [`IdSource`]: random UUIDs, version 4.
///
/// # Examples
///
/// ```
/// use dynalease::{IdSource, RandomIds};
///
/// let id = RandomIds.next_id();
/// assert_eq!(id.len(), 36);
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct RandomIds;

impl IdSource for RandomIds {
    fn next_id(&self) -> String {
        uuid::Uuid::new_v4().to_string()
    }
}

/// An [`IdSource`] that derives UUID-shaped ids from a seed, for replayable runs.
///
/// Give each process its own seed, for instance derived from the seed of the run and the
/// number of the process.
///
/// # Examples
///
/// ```
/// use dynalease::{IdSource, SeededIds};
///
/// let a = SeededIds::new(1);
/// let b = SeededIds::new(2);
/// assert_ne!(a.next_id(), b.next_id());
/// ```
pub struct SeededIds {
    state: Mutex<u64>,
}

impl SeededIds {
    /// Creates a source whose sequence is determined by `seed`.
    ///
    /// # Examples
    ///
    /// ```
    /// let ids = dynalease::SeededIds::new(42);
    /// ```
    pub fn new(seed: u64) -> Self {
        Self { state: Mutex::new(seed) }
    }

    /// One step of splitmix64: a full-period sequence with well-mixed output.
    fn next_u64(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl fmt::Debug for SeededIds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeededIds").finish_non_exhaustive()
    }
}

impl IdSource for SeededIds {
    fn next_id(&self) -> String {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let high = Self::next_u64(&mut state);
        let low = Self::next_u64(&mut state);
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&high.to_be_bytes());
        bytes[8..].copy_from_slice(&low.to_be_bytes());
        uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
    }
}
