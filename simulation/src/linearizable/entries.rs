//! The history as one list of call and return entries in time order, from which the search
//! lifts the operations it linearizes and into which it puts them back when it backtracks.
//!
//! The list is doubly linked through indices into one vector: lifting an operation unlinks its
//! call and its return entry, and putting it back relinks them from the links they kept, in the
//! reverse order (Knuth's dancing links). Both are constant time, and the list always reads, from
//! its head, as the entries of the operations not yet linearized, in time order.

/// The end of the list, and the link of an entry that has none.
const NONE: u32 = u32::MAX;
/// The head of the list: an entry of no operation, whose `next` is the first entry.
const HEAD: u32 = 0;

/// What an entry of the list is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Entry {
    /// The call of operation `op`.
    Call(usize),
    /// The return of an operation: no operation after it in the list was invoked before it
    /// returned.
    Return,
    /// Past the last entry.
    End,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    prev: u32,
    next: u32,
    op: u32,
    /// For a call: its return entry, or [`NONE`] for an operation whose answer is unknown (it has
    /// no return: it may be linearized at any time after its call). For a return: [`NONE`].
    ret: u32,
    is_call: bool,
}

/// The list of the entries of the operations not yet linearized.
#[derive(Debug)]
pub(super) struct Entries {
    nodes: Vec<Node>,
    /// The call entry of each operation.
    calls: Vec<u32>,
}

/// A handle on one entry of the list.
pub(super) type Cursor = u32;

impl Entries {
    /// The list of operations `0..spans.len()`, each invoked at `spans[op].0` and returned at
    /// `spans[op].1` (`None`: unknown). An operation's call comes before the return of any other
    /// at the same time: operations whose times touch are concurrent. Among calls, or returns, at
    /// the same time, the lower operation comes first.
    pub(super) fn new(spans: &[(u64, Option<u64>)]) -> Self {
        assert!(spans.len() < NONE as usize / 2, "a partition has fewer than 2^31 operations");
        // (time, a call before a return, operation)
        let mut events: Vec<(u64, bool, u32)> = Vec::with_capacity(spans.len() * 2);
        for (op, &(invoked, completed)) in (0u32..).zip(spans) {
            events.push((invoked, false, op));
            if let Some(completed) = completed {
                events.push((completed, true, op));
            }
        }
        events.sort_unstable();
        let head = Node { prev: NONE, next: NONE, op: NONE, ret: NONE, is_call: false };
        let mut nodes = vec![head; events.len() + 1];
        let mut calls = vec![NONE; spans.len()];
        for (index, &(_, is_return, op)) in (1u32..).zip(&events) {
            let prev = index - 1;
            nodes[prev as usize].next = index;
            nodes[index as usize] = Node { prev, next: NONE, op, ret: NONE, is_call: !is_return };
            if is_return {
                nodes[calls[op as usize] as usize].ret = index;
            } else {
                calls[op as usize] = index;
            }
        }
        Entries { nodes, calls }
    }

    /// The first entry of the list.
    pub(super) fn first(&self) -> Cursor {
        self.nodes[HEAD as usize].next
    }

    /// The entry after `at`.
    pub(super) fn next(&self, at: Cursor) -> Cursor {
        self.nodes[at as usize].next
    }

    /// What the entry `at` is.
    pub(super) fn get(&self, at: Cursor) -> Entry {
        match self.nodes.get(at as usize) {
            None => Entry::End,
            Some(node) if node.is_call => Entry::Call(node.op as usize),
            Some(_) => Entry::Return,
        }
    }

    /// The call entry of operation `op`.
    pub(super) fn call_of(&self, op: usize) -> Cursor {
        self.calls[op]
    }

    /// Takes operation `op`, whose call is in the list, out of it: its call and its return.
    pub(super) fn lift(&mut self, op: usize) {
        let call = self.calls[op];
        self.unlink(call);
        let ret = self.nodes[call as usize].ret;
        if ret != NONE {
            self.unlink(ret);
        }
    }

    /// Puts operation `op` back where it was; it must be the operation lifted last of those still
    /// out of the list.
    pub(super) fn unlift(&mut self, op: usize) {
        let call = self.calls[op];
        let ret = self.nodes[call as usize].ret;
        if ret != NONE {
            self.relink(ret);
        }
        self.relink(call);
    }

    fn unlink(&mut self, at: u32) {
        let Node { prev, next, .. } = self.nodes[at as usize];
        self.nodes[prev as usize].next = next;
        if next != NONE {
            self.nodes[next as usize].prev = prev;
        }
    }

    fn relink(&mut self, at: u32) {
        let Node { prev, next, .. } = self.nodes[at as usize];
        self.nodes[prev as usize].next = at;
        if next != NONE {
            self.nodes[next as usize].prev = at;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(entries: &Entries) -> Vec<Entry> {
        let mut out = Vec::new();
        let mut at = entries.first();
        loop {
            match entries.get(at) {
                Entry::End => return out,
                entry => out.push(entry),
            }
            at = entries.next(at);
        }
    }

    #[test]
    fn entries_read_in_time_order_with_calls_before_returns_at_the_same_time() {
        // 0: [0, 5], 1: [5, 9], 2: invoked at 3, unknown.
        let entries = Entries::new(&[(0, Some(5)), (5, Some(9)), (3, None)]);
        assert_eq!(
            read(&entries),
            [Entry::Call(0), Entry::Call(2), Entry::Call(1), Entry::Return, Entry::Return],
            "operation 1 is invoked at the time 0 returns, so the two are concurrent"
        );
    }

    #[test]
    fn lifting_and_putting_back_in_reverse_order_restores_the_list() {
        let entries_of = || Entries::new(&[(0, Some(4)), (1, Some(2)), (3, None), (5, Some(6))]);
        let mut entries = entries_of();
        let whole = read(&entries);
        entries.lift(1);
        assert_eq!(read(&entries), [Entry::Call(0), Entry::Call(2), Entry::Return, Entry::Call(3), Entry::Return]);
        entries.lift(2);
        entries.lift(0);
        assert_eq!(read(&entries), [Entry::Call(3), Entry::Return]);
        entries.unlift(0);
        entries.unlift(2);
        entries.unlift(1);
        assert_eq!(read(&entries), whole);
        assert_eq!(entries.get(entries.call_of(3)), Entry::Call(3));
    }
}
