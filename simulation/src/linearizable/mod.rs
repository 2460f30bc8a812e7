//! Linearizability: whether a history of a service's operations, some of them concurrent and
//! some with answers that were lost, can be explained by a sequential model of the service.
//!
//! - [`Model`]: the sequential specification, written by the user: a state, and a step from a
//!   state and an operation to the next state and the result; the key an operation touches, when
//!   keys are independent; which operations only read.
//! - [`Call`] (with its [`Completion`]): one operation of the history, with its invoke time, and
//!   its return time and result, or an unknown completion.
//! - [`check`] with a [`Budget`]: the [`Verdict`], which is [`Linearizable`], a [`Violation`]
//!   naming the key, the operations that cannot be explained and the longest order that can, or
//!   [`TooLarge`] when the search ran out of its budget: never a pass.
//!
//! The module knows nothing of the simulated world: it takes the history as calls, whatever
//! produced them.
//!
//! # The search
//!
//! A history is linearizable if each operation can be given a point between its invoke and its
//! return at which it takes effect, so that the operations, taken one by one at those points,
//! return what they returned (Herlihy and Wing). The checker searches such an order with Wing and
//! Gong's backtracking search: it places next any operation invoked before every operation not yet
//! placed had returned, and backtracks when an operation can no longer be placed. Lowe's
//! improvement makes the search explore each configuration (the set of operations placed, and the
//! state of the model after them) once: two orders of the same operations that leave the same
//! state have the same future. The operations not yet placed are kept in one list of calls and
//! returns in time order, from which the search lifts an operation in constant time and into which
//! it puts it back when it backtracks (the formulation of Porcupine, which this follows).
//!
//! When the model says which operations only read ([`Model::is_read_only`]), the search places
//! such an operation as soon as it returns what the model gives and tries nothing else there:
//! otherwise n concurrent reads make 2^n configurations of which of them came before a write.
//!
//! When the model says its keys are independent ([`Model::partition`]), each key's operations are
//! searched on their own (P-compositionality: a history is linearizable if and only if each key's
//! part is), so the search costs the sum of the keys' searches, not their product.
//!
//! # Unknown completions
//!
//! An operation whose answer is unknown ([`Completion::Unknown`], Jepsen's `:info`) may have taken
//! effect at any time after its invoke, or never: it has no return, so it stays a candidate for
//! the rest of the search, and its result is never compared. The search ends as soon as every
//! operation with a known answer is placed; the unknown ones left out take effect after them, or
//! never, which explains the same. Two rules keep many unknown operations from multiplying the
//! search: of those asking for the same thing (a retried request), only the earliest invoked one
//! not yet placed is tried; and one is never placed where its effect leaves the state unchanged,
//! nor at all if the model says it only reads.
//! Unknown operations that ask for different things with different effects (a dozen lost
//! increments of different amounts) can still make the search exponential; such a history is
//! reported [`TooLarge`].
//!
//! # Cost
//!
//! The ignored tests at the end of `simulation/tests/linearizable_checker.rs` check 100 histories of
//! 1,000 operations each, on 10 keys, 5% of their answers lost, as processes that each wait for
//! their last answer make them. Measured at commit 247165f on 2026-12-06, on a 2-core machine
//! shared with other work, with `/usr/bin/time cargo test --release -p dynalease-sim --test
//! linearizable_checker -- --ignored --exact NAME` (CPU time of the process, best of three runs):
//!
//! | 100 histories of 1,000 operations on 10 keys             | states explored | CPU    |
//! |----------------------------------------------------------|----------------:|-------:|
//! | 8 processes (`thousand_operations_ten_keys_8_processes`) |         152,247 | 0.06 s |
//! | 8 processes, the last read of one key wrong (`…_one_wrong_read`) |  213,279 | 0.07 s |
//! | 30 processes (`thousand_operations_ten_keys_30_processes`) |       284,557 | 0.09 s |
//! | 30 processes, the last read of one key wrong (`…_one_wrong_read`) | 1,409,737 | 0.27 s |
//!
//! A history of 1,000 operations costs about a millisecond, and 3 to show a violation among 30
//! processes. The default [`Budget`] spent to its end (a million states on 30 concurrent additions
//! and a read no subset of them explains, `the_default_budget_spent_on_a_history_too_large_for_it`)
//! took 0.13 s and 19 MB.
//!
//! # Example
//!
//! A register, written and read concurrently: the read may see either value while the write is in
//! flight, but not a value nobody wrote.
//!
//! ```
//! use dynalease_sim::linearizable::{Budget, Call, Model, check};
//!
//! struct Register;
//!
//! #[derive(Debug, PartialEq)]
//! enum Op {
//!     Write(u32),
//!     Read,
//! }
//!
//! impl Model for Register {
//!     type State = u32;
//!     type Op = Op;
//!     type Ret = Option<u32>;
//!     fn init(&self) -> u32 {
//!         0
//!     }
//!     fn step(&self, value: &u32, op: &Op) -> (u32, Option<u32>) {
//!         match op {
//!             Op::Write(new) => (*new, None),
//!             Op::Read => (*value, Some(*value)),
//!         }
//!     }
//!     fn is_read_only(&self, op: &Op) -> bool {
//!         *op == Op::Read
//!     }
//! }
//!
//! // #1 writes 5 from time 0 to 10; #2 reads from 2 to 4, during the write.
//! let (write, read) = (Op::Write(5), Op::Read);
//! for seen in [0, 5] {
//!     let seen = Some(seen);
//!     let history = [Call::returned(1, 0, &write, 10, &None), Call::returned(2, 2, &read, 4, &seen)];
//!     assert!(check(&Register, &history, Budget::default())?.is_linearizable());
//! }
//! let seen = Some(7);
//! let history = [Call::returned(1, 0, &write, 10, &None), Call::returned(2, 2, &read, 4, &seen)];
//! let verdict = check(&Register, &history, Budget::default())?;
//! let violation = verdict.violation().expect("nobody wrote 7");
//! assert_eq!(violation.unexplained, [2]);
//! assert_eq!(
//!     violation.message,
//!     "no order of the 2 operations explains #2 Read -> Some(7): the longest order found, \
//!      #1 Write(5) -> None, leaves 5, where the model answers #2 with Some(5)"
//! );
//! # Ok::<(), dynalease_sim::linearizable::CheckError>(())
//! ```

mod budget;
mod call;
mod entries;
mod error;
mod history;
mod memo;
mod model;
mod partition;
mod report;
mod search;
mod unknown;
mod verdict;

pub use budget::Budget;
pub use call::{Call, Completion};
pub use error::CheckError;
pub use history::{check_history, invariant};
pub use model::Model;
pub use partition::check;
pub use verdict::{Linearizable, TooLarge, Verdict, Violation};
