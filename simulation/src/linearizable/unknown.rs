//! Operations whose answer is unknown: which of them the search tries at each point.
//!
//! An operation whose answer is unknown has no return in the list: once invoked it stays a
//! candidate until the end, and its result is not compared. Two rules keep many of them from
//! multiplying the search, each dropping only orders that another order explains as well:
//!
//! - Two such operations that ask for the same thing (a request retried after its answer was
//!   lost, the same increment from two processes) are interchangeable once both are invoked: an
//!   order that places the later-invoked one first explains no more than the order that places
//!   the earlier one there instead, and the later one where the earlier one was. So the search
//!   takes the operations of such a class only in the order of their calls, and visits one
//!   configuration per count of them taken instead of one per subset.
//! - Such an operation that leaves the model's state as it was (a read, a write of the value
//!   already there) explains nothing by taking effect there: the search does not place it there,
//!   which is the same as placing it at the end of the order, or never; one the model says only
//!   reads it never places. (That rule sits in the search, which has the states to compare.)

/// The classes of interchangeable operations with unknown answers, and how many of each the
/// current order has taken.
#[derive(Debug)]
pub(super) struct Interchangeable {
    /// The class of each operation; [`NONE`] for one with a known answer.
    class: Vec<u32>,
    /// The operations of each class, in the order of their calls.
    members: Vec<Vec<usize>>,
    /// How many of each class the current order holds: always its first members.
    taken: Vec<usize>,
}

const NONE: u32 = u32::MAX;

impl Interchangeable {
    /// The classes among `ops`, given in the order of their calls as `(asks_for, answer_unknown)`.
    pub(super) fn new<'a, O: PartialEq + 'a>(ops: impl IntoIterator<Item = (&'a O, bool)>) -> Self {
        let mut class = Vec::new();
        let mut members: Vec<Vec<usize>> = Vec::new();
        // The operation each class asks for, to compare new members against.
        let mut asks: Vec<&O> = Vec::new();
        for (index, (op, unknown)) in ops.into_iter().enumerate() {
            if !unknown {
                class.push(NONE);
                continue;
            }
            match asks.iter().position(|&other| other == op) {
                Some(existing) => {
                    class.push(existing as u32);
                    members[existing].push(index);
                }
                None => {
                    class.push(asks.len() as u32);
                    asks.push(op);
                    members.push(vec![index]);
                }
            }
        }
        let taken = vec![0; members.len()];
        Interchangeable { class, members, taken }
    }

    /// Whether the search tries operation `op` at this point: any operation with a known answer,
    /// and the first not yet taken of each class.
    pub(super) fn is_tried(&self, op: usize) -> bool {
        match self.class[op] {
            NONE => true,
            class => self.members[class as usize].get(self.taken[class as usize]) == Some(&op),
        }
    }

    /// Operation `op`, which [`is_tried`](Self::is_tried), joins the order.
    pub(super) fn take(&mut self, op: usize) {
        if let Some(class) = self.class_of(op) {
            debug_assert!(self.is_tried(op), "operation {op} is taken out of its class's order");
            self.taken[class] += 1;
        }
    }

    /// Operation `op`, the last of the order, leaves it.
    pub(super) fn put_back(&mut self, op: usize) {
        if let Some(class) = self.class_of(op) {
            self.taken[class] -= 1;
            debug_assert_eq!(self.members[class][self.taken[class]], op, "operations leave the order last first");
        }
    }

    fn class_of(&self, op: usize) -> Option<usize> {
        match self.class[op] {
            NONE => None,
            class => Some(class as usize),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn of_equal_unknown_operations_only_the_first_not_taken_is_tried() {
        // 0: known "a"; 1, 3: unknown "b"; 2: unknown "a"; 4: unknown "b".
        let ops = [("a", false), ("b", true), ("a", true), ("b", true), ("b", true)];
        let mut classes = Interchangeable::new(ops.iter().map(|(op, unknown)| (op, *unknown)));
        let tried = |classes: &Interchangeable| (0..5).filter(|&op| classes.is_tried(op)).collect::<Vec<_>>();
        assert_eq!(tried(&classes), [0, 1, 2], "a known operation is always tried, even if equal to an unknown one");
        classes.take(1);
        assert_eq!(tried(&classes), [0, 2, 3]);
        classes.take(3);
        assert_eq!(tried(&classes), [0, 2, 4]);
        classes.put_back(3);
        classes.put_back(1);
        assert_eq!(tried(&classes), [0, 1, 2]);
    }
}
