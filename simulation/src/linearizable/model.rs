//! The sequential specification a history is checked against.

use std::fmt::Debug;
use std::hash::Hash;

/// A sequential specification of a service's operations: from a state and an operation, the next
/// state and the result the operation returns.
///
/// The checker asks the model only these questions; it must answer them the same way every time
/// (a pure function of its arguments), because the search asks them again while it backtracks.
pub trait Model {
    /// The state of the model. `Clone + Eq + Hash` for the memo of visited configurations;
    /// `Debug` for the words of a violation ("leaves `Balance(100)`").
    type State: Clone + Eq + Hash + Debug;
    /// What an operation asks for. `PartialEq`, because two operations whose answers were lost
    /// and that ask for the same thing are interchangeable, and the search tries only one of them
    /// at each point.
    type Op: Debug + PartialEq;
    /// What an operation returns.
    type Ret: Debug + PartialEq;

    /// The state before any operation.
    fn init(&self) -> Self::State;

    /// Applies `op` to `state`: the next state and the result the operation returns.
    fn step(&self, state: &Self::State, op: &Self::Op) -> (Self::State, Self::Ret);

    /// Whether `observed`, what the service returned, is a result the model's `expected` allows.
    /// Equality unless the model says otherwise (for instance, a listing whose order is not
    /// promised).
    fn accepts(&self, expected: &Self::Ret, observed: &Self::Ret) -> bool {
        expected == observed
    }

    /// Whether `op` leaves every state as it is: a read, a get, a balance; not a write (even of
    /// the value already there), nor a compare-and-set, which changes the state when it succeeds.
    /// The default says no operation is.
    ///
    /// The search places an operation that only reads as soon as it returns what the model gives,
    /// and tries nothing else at that point, since any order could as well have placed it there;
    /// this keeps n concurrent reads from making 2^n configurations of which came first. Said of
    /// an operation that can change the state, it would make the search miss orders: if the
    /// search sees a step of it change the state, the check ends with
    /// [`CheckError::NotReadOnly`](super::CheckError::NotReadOnly) instead of a verdict.
    fn is_read_only(&self, op: &Self::Op) -> bool {
        let _ = op;
        false
    }

    /// The key an operation touches, when the model's keys are independent of each other: the
    /// history is then checked key by key, each key's operations against a model started from
    /// [`init`](Model::init) (P-compositionality, Herlihy and Wing's locality), which keeps the
    /// search as small as the busiest key instead of the product of all of them.
    ///
    /// The default, `None` for every operation, checks the history as one whole. A model whose
    /// operations may touch several keys at once (a transfer between two accounts, a scan) must
    /// not partition them: `None` is a partition of its own, like one more key.
    fn partition(&self, op: &Self::Op) -> Option<String> {
        let _ = op;
        None
    }
}
