//! The linearizability checker on hand-made histories of registers, counters, queues and bank
//! accounts; against trying every order on small random histories; on histories of real
//! executions; and at the edges of its budget.
//!
//! The ignored tests at the end measure the cost of long histories and of the default budget;
//! the figures are in the module docs of `dynalease_sim::linearizable`.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Debug;

use dynalease_sim::linearizable::{Budget, Call, CheckError, Model, TooLarge, Verdict, check};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

// ---------------------------------------------------------------------------------------------
// Histories

/// An operation as a test writes it down, owning what it asked and what it returned.
#[derive(Debug, Clone)]
struct Op<O, R> {
    id: u32,
    invoked: u64,
    /// When it returned and what; `None` for an unknown answer.
    returned: Option<(u64, R)>,
    op: O,
}

/// `#id`, invoked at `invoked`, returned `ret` at `completed`.
fn ok<O, R>(id: u32, invoked: u64, completed: u64, op: O, ret: R) -> Op<O, R> {
    Op { id, invoked, returned: Some((completed, ret)), op }
}

/// `#id`, invoked at `invoked`, its answer lost.
fn lost<O, R>(id: u32, invoked: u64, op: O) -> Op<O, R> {
    Op { id, invoked, returned: None, op }
}

fn calls<O, R>(ops: &[Op<O, R>]) -> Vec<Call<'_, O, R>> {
    ops.iter()
        .map(|op| match &op.returned {
            Some((completed, ret)) => Call::returned(op.id, op.invoked, &op.op, *completed, ret),
            None => Call::unknown(op.id, op.invoked, &op.op),
        })
        .collect()
}

fn verdict<M: Model>(model: &M, ops: &[Op<M::Op, M::Ret>]) -> Verdict {
    verdict_within(model, ops, Budget::default())
}

fn verdict_within<M: Model>(model: &M, ops: &[Op<M::Op, M::Ret>], budget: Budget) -> Verdict {
    check(model, &calls(ops), budget).expect("the history is well formed")
}

#[track_caller]
fn assert_linearizable<M: Model>(model: &M, ops: &[Op<M::Op, M::Ret>]) {
    let verdict = verdict(model, ops);
    assert!(verdict.is_linearizable(), "{verdict}");
}

/// The violation the history must have: its unexplained operations' ids and its message.
#[track_caller]
fn violation<M: Model>(model: &M, ops: &[Op<M::Op, M::Ret>]) -> (Vec<u32>, String) {
    match verdict(model, ops) {
        Verdict::Violation(violation) => (violation.unexplained, violation.message),
        other => panic!("expected a violation, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Models

/// What the operations of the test models return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ret {
    Ok,
    Value(i64),
    Refused,
}

/// One register: written, read, compared and set.
#[derive(Debug)]
struct Register;

#[derive(Debug, Clone, PartialEq)]
enum RegisterOp {
    Write(i64),
    Read,
    /// Sets the value to `.1` if it is `.0`: `Ok`, else `Refused`.
    Cas(i64, i64),
}

impl Model for Register {
    type State = i64;
    type Op = RegisterOp;
    type Ret = Ret;

    fn init(&self) -> i64 {
        0
    }

    fn step(&self, value: &i64, op: &RegisterOp) -> (i64, Ret) {
        match *op {
            RegisterOp::Write(new) => (new, Ret::Ok),
            RegisterOp::Read => (*value, Ret::Value(*value)),
            RegisterOp::Cas(from, to) if from == *value => (to, Ret::Ok),
            RegisterOp::Cas(..) => (*value, Ret::Refused),
        }
    }

    fn is_read_only(&self, op: &RegisterOp) -> bool {
        *op == RegisterOp::Read
    }
}

/// A counter: increments (by one, or by an amount), and reads.
#[derive(Debug)]
struct Counter;

#[derive(Debug, Clone, PartialEq)]
enum CounterOp {
    Increment,
    Add(i64),
    Read,
}

impl Model for Counter {
    type State = i64;
    type Op = CounterOp;
    type Ret = Ret;

    fn init(&self) -> i64 {
        0
    }

    fn step(&self, count: &i64, op: &CounterOp) -> (i64, Ret) {
        match op {
            CounterOp::Increment => (count + 1, Ret::Ok),
            CounterOp::Add(amount) => (count + amount, Ret::Ok),
            CounterOp::Read => (*count, Ret::Value(*count)),
        }
    }

    fn is_read_only(&self, op: &CounterOp) -> bool {
        *op == CounterOp::Read
    }
}

/// A FIFO queue.
#[derive(Debug)]
struct Queue;

#[derive(Debug, Clone, PartialEq)]
enum QueueOp {
    Enqueue(i64),
    /// Returns the head, or `Refused` when the queue is empty.
    Dequeue,
}

impl Model for Queue {
    type State = VecDeque<i64>;
    type Op = QueueOp;
    type Ret = Ret;

    fn init(&self) -> VecDeque<i64> {
        VecDeque::new()
    }

    fn step(&self, queue: &VecDeque<i64>, op: &QueueOp) -> (VecDeque<i64>, Ret) {
        let mut queue = queue.clone();
        let ret = match op {
            QueueOp::Enqueue(value) => {
                queue.push_back(*value);
                Ret::Ok
            }
            QueueOp::Dequeue => queue.pop_front().map_or(Ret::Refused, Ret::Value),
        };
        (queue, ret)
    }
}

/// Bank accounts, each on its own: deposits, withdrawals that are refused rather than overdraw,
/// and balances. Checked account by account.
#[derive(Debug)]
struct Bank;

#[derive(Debug, Clone, PartialEq)]
enum BankOp {
    Deposit(&'static str, i64),
    Withdraw(&'static str, i64),
    Balance(&'static str),
}

impl Model for Bank {
    /// The balance of the one account of the partition.
    type State = i64;
    type Op = BankOp;
    type Ret = Ret;

    fn init(&self) -> i64 {
        0
    }

    fn step(&self, balance: &i64, op: &BankOp) -> (i64, Ret) {
        match *op {
            BankOp::Deposit(_, amount) => (balance + amount, Ret::Ok),
            BankOp::Withdraw(_, amount) if amount <= *balance => (balance - amount, Ret::Ok),
            BankOp::Withdraw(..) => (*balance, Ret::Refused),
            BankOp::Balance(_) => (*balance, Ret::Value(*balance)),
        }
    }

    fn is_read_only(&self, op: &BankOp) -> bool {
        matches!(op, BankOp::Balance(_))
    }

    fn partition(&self, op: &BankOp) -> Option<String> {
        let (BankOp::Deposit(account, _) | BankOp::Withdraw(account, _) | BankOp::Balance(account)) = op;
        Some(account.to_string())
    }
}

/// Registers under keys. Its state is the map of all keys, so it is right whether or not the
/// history is checked key by key; `by_key` says whether it tells the checker the keys, and
/// `reads_declared` whether it tells it that a read only reads.
#[derive(Debug)]
struct Registers {
    by_key: bool,
    reads_declared: bool,
}

#[derive(Debug, Clone, PartialEq)]
struct KeyOp {
    key: u8,
    op: RegisterOp,
}

impl Model for Registers {
    type State = BTreeMap<u8, i64>;
    type Op = KeyOp;
    type Ret = Ret;

    fn init(&self) -> BTreeMap<u8, i64> {
        BTreeMap::new()
    }

    fn step(&self, registers: &BTreeMap<u8, i64>, KeyOp { key, op }: &KeyOp) -> (BTreeMap<u8, i64>, Ret) {
        let value = registers.get(key).copied().unwrap_or(0);
        let (new, ret) = Register.step(&value, op);
        let mut registers = registers.clone();
        // A register at 0 is left out, so that equal registers are equal states.
        if new == 0 {
            registers.remove(key);
        } else {
            registers.insert(*key, new);
        }
        (registers, ret)
    }

    fn is_read_only(&self, op: &KeyOp) -> bool {
        self.reads_declared && op.op == RegisterOp::Read
    }

    fn partition(&self, op: &KeyOp) -> Option<String> {
        self.by_key.then(|| format!("k{}", op.key))
    }
}

// ---------------------------------------------------------------------------------------------
// Registers

#[test]
fn a_read_of_a_value_no_write_could_have_written_is_a_violation() {
    let history = [ok(1, 0, 10, RegisterOp::Write(1), Ret::Ok), ok(2, 20, 30, RegisterOp::Read, Ret::Value(2))];
    let (unexplained, message) = violation(&Register, &history);
    assert_eq!(unexplained, [2]);
    assert_eq!(
        message,
        "no order of the 2 operations explains #2 Read -> Value(2): the longest order found, #1 Write(1) -> Ok, \
         leaves 1, where the model answers #2 with Value(1)"
    );
}

#[test]
fn a_read_concurrent_with_a_write_may_see_the_old_or_the_new_value() {
    for seen in [0, 1] {
        let history = [ok(1, 0, 10, RegisterOp::Write(1), Ret::Ok), ok(2, 5, 15, RegisterOp::Read, Ret::Value(seen))];
        assert_linearizable(&Register, &history);
        // The same with the read invoked first, and with times that only touch.
        let history = [ok(2, 0, 5, RegisterOp::Read, Ret::Value(seen)), ok(1, 5, 10, RegisterOp::Write(1), Ret::Ok)];
        assert_linearizable(&Register, &history);
    }
}

#[test]
fn a_read_after_a_completed_write_may_not_see_the_value_it_replaced() {
    let history = [
        ok(1, 0, 1, RegisterOp::Write(1), Ret::Ok),
        ok(2, 2, 3, RegisterOp::Write(2), Ret::Ok),
        ok(3, 4, 5, RegisterOp::Read, Ret::Value(1)),
    ];
    let (unexplained, message) = violation(&Register, &history);
    assert_eq!(unexplained, [3]);
    assert!(message.contains("the longest order found, #1 Write(1) -> Ok, #2 Write(2) -> Ok, leaves 2"), "{message}");
}

#[test]
fn a_read_may_not_see_a_write_invoked_after_it_returned() {
    let history = [ok(1, 0, 1, RegisterOp::Read, Ret::Value(1)), ok(2, 2, 3, RegisterOp::Write(1), Ret::Ok)];
    let (unexplained, _) = violation(&Register, &history);
    assert_eq!(unexplained, [1]);
}

#[test]
fn two_readers_may_not_see_two_concurrent_writes_in_opposite_orders() {
    let write = |id, value| ok(id, 0, 100, RegisterOp::Write(value), Ret::Ok);
    let read = |id, invoked, value| ok(id, invoked, invoked + 10, RegisterOp::Read, Ret::Value(value));
    let agreeing = [write(1, 1), write(2, 2), read(3, 10, 1), read(4, 30, 2), read(5, 10, 1), read(6, 30, 2)];
    assert_linearizable(&Register, &agreeing);
    let opposite = [write(1, 1), write(2, 2), read(3, 10, 1), read(4, 30, 2), read(5, 10, 2), read(6, 30, 1)];
    violation(&Register, &opposite);
}

#[test]
fn a_write_of_the_value_already_there_may_still_take_effect_after_a_concurrent_write() {
    // The register holds 1 when #2 writes 1 again, concurrently with #3's write of 2; #4 reads 1
    // after both: #2 took effect after #3, where it did change the state.
    let history = [
        ok(1, 0, 1, RegisterOp::Write(1), Ret::Ok),
        ok(2, 2, 10, RegisterOp::Write(1), Ret::Ok),
        ok(3, 2, 10, RegisterOp::Write(2), Ret::Ok),
        ok(4, 11, 12, RegisterOp::Read, Ret::Value(1)),
    ];
    assert_linearizable(&Register, &history);
}

#[test]
fn a_compare_and_set_succeeds_only_from_the_value_it_names() {
    let history = [
        ok(1, 0, 1, RegisterOp::Write(3), Ret::Ok),
        ok(2, 2, 10, RegisterOp::Cas(3, 4), Ret::Ok),
        ok(3, 2, 10, RegisterOp::Cas(3, 5), Ret::Refused),
        ok(4, 11, 12, RegisterOp::Read, Ret::Value(4)),
    ];
    assert_linearizable(&Register, &history);
    let both_won = [
        ok(1, 0, 1, RegisterOp::Write(3), Ret::Ok),
        ok(2, 2, 10, RegisterOp::Cas(3, 4), Ret::Ok),
        ok(3, 2, 10, RegisterOp::Cas(3, 5), Ret::Ok),
    ];
    let (unexplained, _) = violation(&Register, &both_won);
    assert!(unexplained == [2] || unexplained == [3], "{unexplained:?}");
}

// ---------------------------------------------------------------------------------------------
// Unknown answers

#[test]
fn a_lost_increment_may_be_seen_applied_by_a_later_read() {
    assert_linearizable(&Counter, &[lost(1, 0, CounterOp::Increment), ok(2, 10, 11, CounterOp::Read, Ret::Value(1))]);
}

#[test]
fn a_lost_increment_may_be_seen_not_applied_by_a_later_read() {
    assert_linearizable(&Counter, &[lost(1, 0, CounterOp::Increment), ok(2, 10, 11, CounterOp::Read, Ret::Value(0))]);
}

#[test]
fn a_lost_increment_is_not_seen_applied_twice() {
    let history = [lost(1, 0, CounterOp::Increment), ok(2, 10, 11, CounterOp::Read, Ret::Value(2))];
    let (unexplained, message) = violation(&Counter, &history);
    assert_eq!(unexplained, [2]);
    assert_eq!(
        message,
        "no order of the 2 operations explains #2 Read -> Value(2): the longest order found, \
         #1 Increment (answer unknown), leaves 1, where the model answers #2 with Value(1)"
    );
}

#[test]
fn a_lost_increment_once_seen_applied_stays_applied() {
    let history = [
        lost(1, 0, CounterOp::Increment),
        ok(2, 10, 11, CounterOp::Read, Ret::Value(1)),
        ok(3, 12, 13, CounterOp::Read, Ret::Value(0)),
    ];
    let (unexplained, _) = violation(&Counter, &history);
    assert_eq!(unexplained, [3]);
}

#[test]
fn a_lost_increment_takes_effect_only_after_its_invoke() {
    let history = [ok(1, 0, 5, CounterOp::Read, Ret::Value(1)), lost(2, 10, CounterOp::Increment)];
    let (unexplained, message) = violation(&Counter, &history);
    assert_eq!(unexplained, [1]);
    assert!(
        message.ends_with("before any operation the state is 0, where the model answers #1 with Value(0)"),
        "{message}"
    );
}

#[test]
fn a_retried_increment_whose_first_answer_was_lost_applies_once_or_twice() {
    for (seen, linearizable) in [(0, false), (1, true), (2, true), (3, false)] {
        let history = [
            lost(1, 0, CounterOp::Increment),
            ok(2, 5, 8, CounterOp::Increment, Ret::Ok),
            ok(3, 10, 11, CounterOp::Read, Ret::Value(seen)),
        ];
        assert_eq!(verdict(&Counter, &history).is_linearizable(), linearizable, "a read of {seen}");
    }
}

#[test]
fn forty_lost_increments_are_searched_by_how_many_took_effect_not_by_which() {
    // Which of 40 interchangeable increments took effect makes 2^40 sets; how many, 41.
    let budget = Budget::states(10_000);
    let history_reading = |seen| {
        let mut history: Vec<_> = (0..40).map(|id| lost(id, u64::from(id), CounterOp::Increment)).collect();
        history.push(ok(40, 100, 101, CounterOp::Read, Ret::Value(seen)));
        history
    };
    let Verdict::Linearizable(linearizable) = verdict_within(&Counter, &history_reading(17), budget) else {
        panic!("17 of the 40 increments took effect");
    };
    assert!(linearizable.states_explored < 100, "{linearizable:?}");
    // A violation needs the whole search: every count of increments before the read.
    let Verdict::Violation(violation) = verdict_within(&Counter, &history_reading(41), budget) else {
        panic!("41 is more than the 40 increments can explain");
    };
    assert_eq!(violation.unexplained, [40]);
    assert_eq!(violation.longest_order.len(), 40, "every increment, then no read of 41: {}", violation.message);
    assert!(
        violation.message.starts_with(
            "no order of the 41 operations explains #40 Read -> Value(41): the longest order found has 40 \
             operations, ending #32 Increment (answer unknown), #33 Increment (answer unknown), "
        ) && violation
            .message
            .ends_with("#39 Increment (answer unknown), leaves 40, where the model answers #40 with Value(40)"),
        "a long order is told by its last eight operations: {}",
        violation.message
    );
    assert!(violation.states_explored < 100, "{violation:?}");
}

#[test]
fn lost_operations_that_change_nothing_do_not_multiply_the_search() {
    // 30 compare-and-sets whose answers were lost and whose condition never held, among a
    // writer's writes: placing any of them explains nothing, and the sets of them placed would be
    // 2^30 configurations. Each asks for something else, so none is interchangeable with another.
    let budget = Budget::states(10_000);
    let history_ending_with = |last_read| {
        let mut history = Vec::new();
        for id in 0..30 {
            let at = u64::from(id) * 10;
            history.push(ok(id, at, at + 5, RegisterOp::Write(i64::from(id)), Ret::Ok));
            history.push(lost(100 + id, at + 1, RegisterOp::Cas(1_000 + i64::from(id), 0)));
        }
        history.push(ok(200, 1000, 1001, RegisterOp::Read, Ret::Value(last_read)));
        history
    };
    let Verdict::Linearizable(linearizable) = verdict_within(&Register, &history_ending_with(29), budget) else {
        panic!("the last read sees the last write");
    };
    assert!(linearizable.states_explored < 2_000, "{linearizable:?}");
    let Verdict::Violation(violation) = verdict_within(&Register, &history_ending_with(3), budget) else {
        panic!("the last read sees a write that was replaced long before");
    };
    assert_eq!(violation.unexplained, [200]);
}

#[test]
fn concurrent_reads_declared_read_only_do_not_multiply_the_search() {
    // 20 reads of the old value, concurrent with a write of a new one, then a read of a value
    // nobody wrote: showing it wrong takes every set of the 20 reads that could have come before
    // the write, 2^20, unless the checker knows a read changes nothing.
    let mut history: Vec<_> =
        (0..20).map(|id| ok(id, 0, 10, KeyOp { key: 0, op: RegisterOp::Read }, Ret::Value(0))).collect();
    history.push(ok(20, 0, 10, KeyOp { key: 0, op: RegisterOp::Write(1) }, Ret::Ok));
    history.push(ok(21, 20, 21, KeyOp { key: 0, op: RegisterOp::Read }, Ret::Value(2)));
    let budget = Budget::states(10_000);
    let declared = Registers { by_key: false, reads_declared: true };
    let Verdict::Violation(violation) = verdict_within(&declared, &history, budget) else {
        panic!("nobody wrote 2");
    };
    assert_eq!(violation.unexplained, [21]);
    assert!(violation.states_explored < 500, "{violation:?}");
    let undeclared = Registers { by_key: false, reads_declared: false };
    assert!(matches!(verdict_within(&undeclared, &history, budget), Verdict::TooLarge(_)));
}

#[test]
fn a_model_that_says_a_write_only_reads_is_reported_not_judged() {
    /// A register that says every operation only reads.
    #[derive(Debug)]
    struct Misdeclared;
    impl Model for Misdeclared {
        type State = i64;
        type Op = RegisterOp;
        type Ret = Ret;
        fn init(&self) -> i64 {
            0
        }
        fn step(&self, value: &i64, op: &RegisterOp) -> (i64, Ret) {
            Register.step(value, op)
        }
        fn is_read_only(&self, _: &RegisterOp) -> bool {
            true
        }
    }
    let history = [ok(1, 0, 1, RegisterOp::Read, Ret::Value(0)), ok(2, 2, 3, RegisterOp::Write(5), Ret::Ok)];
    let error = check(&Misdeclared, &calls(&history), Budget::default()).expect_err("a write changes the state");
    assert_eq!(
        error.to_string(),
        "the model says operation #2 Write(5) only reads, but its step changed the state from 0 to 5"
    );
}

// ---------------------------------------------------------------------------------------------
// Queues

#[test]
fn a_queue_hands_out_concurrent_enqueues_in_either_order() {
    let history = [
        ok(1, 0, 10, QueueOp::Enqueue(1), Ret::Ok),
        ok(2, 0, 10, QueueOp::Enqueue(2), Ret::Ok),
        ok(3, 20, 21, QueueOp::Dequeue, Ret::Value(2)),
        ok(4, 22, 23, QueueOp::Dequeue, Ret::Value(1)),
        ok(5, 24, 25, QueueOp::Dequeue, Ret::Refused),
    ];
    assert_linearizable(&Queue, &history);
}

#[test]
fn a_queue_hands_out_sequential_enqueues_in_order() {
    let history = [
        ok(1, 0, 1, QueueOp::Enqueue(1), Ret::Ok),
        ok(2, 2, 3, QueueOp::Enqueue(2), Ret::Ok),
        ok(3, 4, 5, QueueOp::Dequeue, Ret::Value(2)),
    ];
    let (unexplained, message) = violation(&Queue, &history);
    assert_eq!(unexplained, [3]);
    assert!(message.ends_with("leaves [1, 2], where the model answers #3 with Value(1)"), "{message}");
}

#[test]
fn a_queue_hands_out_an_element_once() {
    let history = [
        ok(1, 0, 1, QueueOp::Enqueue(7), Ret::Ok),
        ok(2, 2, 10, QueueOp::Dequeue, Ret::Value(7)),
        ok(3, 2, 10, QueueOp::Dequeue, Ret::Value(7)),
    ];
    violation(&Queue, &history);
    // With the enqueue's answer lost, one dequeue of it is explained, and the other still not.
    let history = [
        lost(1, 0, QueueOp::Enqueue(7)),
        ok(2, 2, 10, QueueOp::Dequeue, Ret::Value(7)),
        ok(3, 12, 20, QueueOp::Dequeue, Ret::Refused),
    ];
    assert_linearizable(&Queue, &history);
}

// ---------------------------------------------------------------------------------------------
// Keys

/// Five accounts with a deposit, a withdrawal and a balance each; `acct-3`'s balance is wrong
/// when `broken`.
fn five_accounts(broken: bool) -> Vec<Op<BankOp, Ret>> {
    let accounts = ["acct-1", "acct-2", "acct-3", "acct-4", "acct-5"];
    let mut history = Vec::new();
    for (i, account) in (0u32..).zip(accounts) {
        let seen = if broken && account == "acct-3" { 120 } else { 70 };
        // Ids as a service would number its operations: the accounts' operations interleave.
        history.push(ok(10 + i, 0, 2, BankOp::Deposit(account, 100), Ret::Ok));
        history.push(ok(15 + i, 3, 5, BankOp::Withdraw(account, 30), Ret::Ok));
        history.push(ok(40 + i, 6, 8, BankOp::Balance(account), Ret::Value(seen)));
        history.push(ok(50 + i, 3, 5, BankOp::Withdraw(account, 500), Ret::Refused));
    }
    history
}

#[test]
fn a_violation_on_one_account_names_that_account_and_its_operations() {
    assert_linearizable(&Bank, &five_accounts(false));
    let Verdict::Violation(violation) = verdict(&Bank, &five_accounts(true)) else {
        panic!("acct-3's balance is 70, not 120");
    };
    assert_eq!(violation.partition.as_deref(), Some("acct-3"));
    assert_eq!(violation.operations, 4);
    assert_eq!(violation.unexplained, [42]);
    assert_eq!(violation.longest_order, [12, 17, 52]);
    assert_eq!(
        violation.message,
        "no order of the 4 operations on key `acct-3` explains #42 Balance(\"acct-3\") -> Value(120): the longest \
         order found, #12 Deposit(\"acct-3\", 100) -> Ok, #17 Withdraw(\"acct-3\", 30) -> Ok, \
         #52 Withdraw(\"acct-3\", 500) -> Refused, leaves 70, where the model answers #42 with Value(70)"
    );
}

/// Per key: six concurrent writes of different values, then a read; on the key `broken`, the read
/// sees a value nobody wrote.
fn ten_keys_of_concurrent_writes(broken: u8) -> Vec<Op<KeyOp, Ret>> {
    let mut history = Vec::new();
    for key in 0..10u8 {
        let id = u32::from(key) * 10;
        for value in 0..6 {
            history.push(ok(id + value as u32, 0, 10, KeyOp { key, op: RegisterOp::Write(value + 1) }, Ret::Ok));
        }
        let seen = if key == broken { 99 } else { 6 };
        history.push(ok(id + 6, 20, 21, KeyOp { key, op: RegisterOp::Read }, Ret::Value(seen)));
    }
    history
}

#[test]
fn a_history_checked_by_key_costs_the_sum_of_the_keys_searches() {
    let history = ten_keys_of_concurrent_writes(u8::MAX);
    let by_key = Registers { by_key: true, reads_declared: true };
    let Verdict::Linearizable(whole) = verdict(&by_key, &history) else { panic!("every read sees a write") };
    assert_eq!(whole.partitions, 10);
    let mut sum = 0;
    for key in 0..10 {
        let of_key: Vec<_> = history.iter().filter(|op| op.op.key == key).cloned().collect();
        let Verdict::Linearizable(alone) = verdict(&by_key, &of_key) else { panic!("key {key}") };
        sum += alone.states_explored;
    }
    assert_eq!(whole.states_explored, sum);
}

#[test]
fn a_violation_on_one_key_is_found_without_searching_the_product_of_the_other_keys() {
    let history = ten_keys_of_concurrent_writes(9);
    let budget = Budget::states(100_000);
    let Verdict::Violation(violation) =
        verdict_within(&Registers { by_key: true, reads_declared: true }, &history, budget)
    else {
        panic!("key 9's read sees a value nobody wrote");
    };
    assert_eq!(violation.partition.as_deref(), Some("k9"));
    assert_eq!(violation.unexplained, [96]);
    assert!(violation.states_explored < 1_000, "{violation:?}");
    // The same history as one whole: to show the violation, the search must try every way the
    // other nine keys' writes could have ended, times every way key 9's could have.
    let Verdict::TooLarge(too_large) =
        verdict_within(&Registers { by_key: false, reads_declared: true }, &history, budget)
    else {
        panic!("the search of the product of the keys does not fit in the budget");
    };
    assert_eq!(too_large, TooLarge { partition: None, operations: 70, states_explored: 100_000 });
}

// ---------------------------------------------------------------------------------------------
// The budget, and bad input

/// 30 concurrent additions of different amounts, then a read of a sum no subset of them makes:
/// showing it wrong takes every subset of the additions, 2^30.
fn thirty_additions_and_an_impossible_read() -> Vec<Op<CounterOp, Ret>> {
    let mut history: Vec<_> = (0..30).map(|id| ok(id, 0, 10, CounterOp::Add(1 << id), Ret::Ok)).collect();
    history.push(ok(30, 20, 21, CounterOp::Read, Ret::Value(-1)));
    history
}

#[test]
fn a_history_too_large_for_the_budget_is_reported_as_such_not_as_a_pass() {
    let verdict = verdict_within(&Counter, &thirty_additions_and_an_impossible_read(), Budget::states(50_000));
    assert!(!verdict.is_linearizable());
    assert_eq!(verdict.too_large(), Some(&TooLarge { partition: None, operations: 31, states_explored: 50_000 }));
    assert_eq!(
        verdict.to_string(),
        "the 31 operations are too many for the search: 50000 states explored without an answer \
         (check a shorter history, or give the search a larger budget)"
    );
}

#[test]
fn a_key_too_large_for_the_budget_is_named_and_a_violation_elsewhere_still_wins() {
    let too_large_on = |key: u8| {
        thirty_additions_and_an_impossible_read().into_iter().map(move |Op { id, invoked, returned, op }| Op {
            id: id + 100 * u32::from(key),
            invoked,
            returned,
            op: KeyedCounterOp(key, op),
        })
    };
    let ok_elsewhere = [ok(900, 0, 1, KeyedCounterOp(9, CounterOp::Increment), Ret::Ok)];
    let history: Vec<_> = too_large_on(4).chain(ok_elsewhere.clone()).collect();
    let verdict = verdict_within(&KeyedCounters, &history, Budget::states(20_000));
    assert_eq!(
        verdict.too_large(),
        Some(&TooLarge { partition: Some("4".into()), operations: 31, states_explored: 20_000 })
    );
    let wrong_elsewhere = [ok(901, 50, 51, KeyedCounterOp(9, CounterOp::Read), Ret::Value(5))];
    let history: Vec<_> = too_large_on(4).chain(ok_elsewhere).chain(wrong_elsewhere).collect();
    let verdict = verdict_within(&KeyedCounters, &history, Budget::states(20_000));
    assert_eq!(verdict.violation().map(|violation| violation.unexplained.clone()), Some(vec![901]));
}

/// Counters under keys, checked key by key.
#[derive(Debug)]
struct KeyedCounters;

#[derive(Debug, Clone, PartialEq)]
struct KeyedCounterOp(u8, CounterOp);

impl Model for KeyedCounters {
    type State = i64;
    type Op = KeyedCounterOp;
    type Ret = Ret;

    fn init(&self) -> i64 {
        0
    }

    fn step(&self, count: &i64, KeyedCounterOp(_, op): &KeyedCounterOp) -> (i64, Ret) {
        Counter.step(count, op)
    }

    fn is_read_only(&self, KeyedCounterOp(_, op): &KeyedCounterOp) -> bool {
        Counter.is_read_only(op)
    }

    fn partition(&self, KeyedCounterOp(key, _): &KeyedCounterOp) -> Option<String> {
        Some(key.to_string())
    }
}

#[test]
fn an_operation_that_returned_before_its_invoke_is_refused() {
    let history = [ok(1, 0, 1, CounterOp::Increment, Ret::Ok), ok(7, 10, 9, CounterOp::Read, Ret::Value(1))];
    let error = check(&Counter, &calls(&history), Budget::default()).expect_err("#7 returned before it was invoked");
    assert_eq!(error, CheckError::ReturnedBeforeInvoked { id: 7, invoked: 10, completed: 9 });
    assert_eq!(error.to_string(), "operation #7 returned at 9, before it was invoked at 10");
}

#[test]
fn an_empty_history_and_one_of_only_lost_answers_are_linearizable() {
    assert_linearizable(&Counter, &[]);
    assert_linearizable(&Counter, &[lost(1, 0, CounterOp::Increment), lost(2, 0, CounterOp::Read)]);
}

// ---------------------------------------------------------------------------------------------
// Determinism

#[test]
fn the_same_history_gives_the_same_verdict_and_ids_in_any_input_order() {
    // Distinct times everywhere, so the input order breaks no tie.
    let mut history = Vec::new();
    for key in 0..4u8 {
        for i in 0..8u32 {
            let id = u32::from(key) * 100 + i;
            let at = u64::from(id) * 2 + u64::from(key);
            let op = if i % 3 == 2 { RegisterOp::Read } else { RegisterOp::Write(i64::from(i)) };
            let ret = if i % 3 == 2 { Ret::Value(i64::from(i) - 1) } else { Ret::Ok };
            history.push(ok(id, at, at + 7, KeyOp { key, op }, ret));
        }
    }
    // Key 2's last read sees a value it cannot.
    let last = history.iter_mut().rfind(|op| op.op.key == 2 && op.op.op == RegisterOp::Read).expect("a read");
    last.returned = Some((last.returned.as_ref().expect("answered").0, Ret::Value(42)));
    let model = Registers { by_key: true, reads_declared: true };
    let first = verdict(&model, &history);
    assert!(first.violation().is_some_and(|violation| violation.partition.as_deref() == Some("k2")), "{first:?}");
    assert_eq!(verdict(&model, &history), first);
    let mut reordered = history.clone();
    reordered.reverse();
    assert_eq!(verdict(&model, &reordered), first);
    reordered.rotate_left(13);
    assert_eq!(verdict(&model, &reordered), first);
}

// ---------------------------------------------------------------------------------------------
// Against trying every order

/// Whether some order of `ops` (a subset of those with unknown answers, and all the others) that
/// respects real time makes `model` return what each operation with a known answer returned.
/// Ignores the model's partitions: it tries the history as one whole.
fn linearizable_by_trying_every_order<M: Model>(model: &M, ops: &[Op<M::Op, M::Ret>]) -> bool {
    let unknown: Vec<usize> = (0..ops.len()).filter(|&i| ops[i].returned.is_none()).collect();
    (0u32..1 << unknown.len()).any(|subset| {
        let chosen: Vec<usize> = (0..ops.len())
            .filter(|i| unknown.iter().position(|u| u == i).is_none_or(|bit| subset & (1 << bit) != 0))
            .collect();
        let mut order = Vec::new();
        some_order_explains(model, ops, &chosen, &mut order)
    })
}

/// Tries every permutation of `chosen` that extends `order` and respects real time.
fn some_order_explains<M: Model>(
    model: &M,
    ops: &[Op<M::Op, M::Ret>],
    chosen: &[usize],
    order: &mut Vec<usize>,
) -> bool {
    if order.len() == chosen.len() {
        let mut state = model.init();
        return order.iter().all(|&i| {
            let (next, ret) = model.step(&state, &ops[i].op);
            state = next;
            ops[i].returned.as_ref().is_none_or(|(_, observed)| model.accepts(&ret, observed))
        });
    }
    for &candidate in chosen {
        if order.contains(&candidate) {
            continue;
        }
        // Every chosen operation not yet placed that returned before the candidate was invoked
        // must come first.
        let must_wait = chosen.iter().any(|&other| {
            other != candidate
                && !order.contains(&other)
                && ops[other].returned.as_ref().is_some_and(|(completed, _)| *completed < ops[candidate].invoked)
        });
        if must_wait {
            continue;
        }
        order.push(candidate);
        if some_order_explains(model, ops, chosen, order) {
            return true;
        }
        order.pop();
    }
    false
}

/// An operation of a generated history, before it is run: on which key, what, when it is invoked
/// and for how long, where between its invoke and its return it takes effect (per cent), and
/// whether its answer is lost (0: no; 1: lost, and it took effect; 2: lost, and it did not).
type Planned = (u8, RegisterOp, u64, u64, u8, u8);

fn planned_op() -> impl Strategy<Value = Planned> {
    let op = prop_oneof![
        (0..2i64).prop_map(RegisterOp::Write),
        Just(RegisterOp::Read),
        (0..2i64, 0..3i64).prop_map(|(from, to)| RegisterOp::Cas(from, to)),
    ];
    // Mostly one key, so that its operations meet; spans long enough to overlap.
    let key = prop_oneof![3 => Just(0u8), 1 => Just(1u8)];
    (key, op, 0..20u64, 1..16u64, 0..=100u8, prop_oneof![4 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8)])
}

/// The history of `planned` operations run against registers: each takes effect at its point,
/// and returns what the registers give there; then `corrupt`, if any, replaces one answer.
fn run(planned: &[Planned], corrupt: Option<(usize, i64)>) -> Vec<Op<KeyOp, Ret>> {
    let mut by_point: Vec<usize> = (0..planned.len()).collect();
    let point = |i: usize| {
        let (_, _, invoked, duration, at, _) = &planned[i];
        invoked * 100 + duration * u64::from(*at)
    };
    by_point.sort_by_key(|&i| (point(i), i));
    let model = Registers { by_key: false, reads_declared: true };
    let mut state = model.init();
    let mut rets = vec![Ret::Ok; planned.len()];
    for i in by_point {
        let (key, op, _, _, _, lost) = &planned[i];
        if *lost != 2 {
            let (next, ret) = model.step(&state, &KeyOp { key: *key, op: op.clone() });
            state = next;
            rets[i] = ret;
        }
    }
    if let Some((index, value)) = corrupt {
        let index = index % planned.len().max(1);
        if let Some(ret) = rets.get_mut(index) {
            *ret = match *ret {
                Ret::Value(_) => Ret::Value(value),
                Ret::Ok => Ret::Refused,
                Ret::Refused => Ret::Ok,
            };
        }
    }
    (0u32..)
        .zip(planned)
        .zip(rets)
        .map(|((id, (key, op, invoked, duration, _, lost)), ret)| {
            // Times in hundredths, so that effects fall strictly inside an operation's span.
            let op = KeyOp { key: *key, op: op.clone() };
            match lost {
                0 => ok(id, invoked * 100, (invoked + duration) * 100, op, ret),
                _ => self::lost(id, invoked * 100, op),
            }
        })
        .collect()
}

/// `cases` cases from a fixed seed: every run tries the same histories, and a failure replays.
fn cases(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, rng_seed: RngSeed::Fixed(33), failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    // Small histories are cheap to try in every order: many of them.
    #![proptest_config(cases(4_000))]

    #[test]
    fn the_checker_agrees_with_trying_every_order(
        planned in prop::collection::vec(planned_op(), 0..=7),
        corrupt in prop::option::of((0..7usize, 0..3i64)),
    ) {
        let history = run(&planned, corrupt);
        let brute_force = linearizable_by_trying_every_order(&Registers { by_key: false, reads_declared: true }, &history);
        for (by_key, reads_declared) in [(false, false), (false, true), (true, false), (true, true)] {
            let model = Registers { by_key, reads_declared };
            let verdict = verdict(&model, &history);
            prop_assert!(!matches!(verdict, Verdict::TooLarge(_)));
            prop_assert_eq!(verdict.is_linearizable(), brute_force, "{:?}: {}; {:#?}", model, verdict, history);
        }
    }
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn histories_of_real_executions_are_linearizable(
        planned in prop::collection::vec(planned_op(), 0..=60),
    ) {
        let history = run(&planned, None);
        for reads_declared in [false, true] {
            let verdict = verdict(&Registers { by_key: true, reads_declared }, &history);
            prop_assert!(verdict.is_linearizable(), "{}; {:#?}", verdict, history);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Long histories

/// A history of `ops` operations of `processes` processes on `keys` registers, each process
/// invoking its next operation after its last one returned, each operation taking effect at a
/// random point of its span; `lost_percent` of the answers are lost (half of those operations took
/// effect).
fn execution(seed: u64, ops: usize, processes: u64, keys: u8, lost_percent: u32) -> Vec<Op<KeyOp, Ret>> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut free_at = vec![0u64; processes as usize];
    let mut planned = Vec::with_capacity(ops);
    for _ in 0..ops {
        let process = rng.usize(..free_at.len());
        let invoked = free_at[process] + rng.u64(0..5);
        let duration = rng.u64(1..20);
        free_at[process] = invoked + duration;
        let op = match rng.u8(0..3) {
            0 => RegisterOp::Write(rng.i64(0..4)),
            1 => RegisterOp::Read,
            _ => RegisterOp::Cas(rng.i64(0..4), rng.i64(0..4)),
        };
        let lost = if rng.u32(0..100) < lost_percent { rng.u8(1..=2) } else { 0 };
        planned.push((rng.u8(0..keys), op, invoked, duration, rng.u8(0..=100), lost));
    }
    run(&planned, None)
}

#[test]
fn histories_of_a_thousand_operations_on_ten_keys_are_shown_linearizable() {
    for seed in 0..3 {
        let history = execution(seed, 1_000, 8, 10, 5);
        let verdict = verdict(&Registers { by_key: true, reads_declared: true }, &history);
        assert!(verdict.is_linearizable(), "seed {seed}: {verdict}");
    }
}

/// Makes the last answered read of key 3 see 9, a value nothing writes; its id.
fn read_nine_last_on_key_3(history: &mut [Op<KeyOp, Ret>]) -> u32 {
    let read = history
        .iter_mut()
        .rfind(|op| op.op == KeyOp { key: 3, op: RegisterOp::Read } && op.returned.is_some())
        .expect("key 3 is read");
    read.returned.as_mut().expect("answered").1 = Ret::Value(9);
    read.id
}

#[test]
fn one_wrong_answer_in_a_thousand_operations_is_found() {
    let mut history = execution(7, 1_000, 8, 10, 5);
    let id = read_nine_last_on_key_3(&mut history);
    let Verdict::Violation(violation) = verdict(&Registers { by_key: true, reads_declared: true }, &history) else {
        panic!("nothing ever writes 9");
    };
    assert_eq!((violation.partition.as_deref(), violation.unexplained), (Some("k3"), vec![id]));
}

/// Checks 100 histories of 1,000 operations on 10 keys by `processes` processes, 5% of answers
/// lost, each linearizable or, if `wrong`, with the last read of key 3 wrong; prints the states
/// explored.
fn measure_thousand_operation_histories(processes: u64, wrong: bool) {
    let mut states_explored = 0;
    for seed in 0..100 {
        let mut history = execution(seed, 1_000, processes, 10, 5);
        let wrong_read = wrong.then(|| read_nine_last_on_key_3(&mut history));
        match (verdict(&Registers { by_key: true, reads_declared: true }, &history), wrong_read) {
            (Verdict::Linearizable(linearizable), None) => states_explored += linearizable.states_explored,
            (Verdict::Violation(violation), Some(id)) if violation.unexplained == [id] => {
                states_explored += violation.states_explored;
            }
            (other, _) => panic!("seed {seed}: {other}"),
        }
    }
    println!(
        "100 histories of 1,000 operations on 10 keys by {processes} processes: {states_explored} states explored"
    );
}

// The cost of long histories, measured in release (`time` prints it; the figures are in the
// module docs of `dynalease_sim::linearizable`):
// `time cargo test --release -p dynalease-sim --test linearizable_checker -- --ignored --exact NAME`

#[test]
#[ignore = "a measurement: run it in release, with `time`"]
fn thousand_operations_ten_keys_8_processes() {
    measure_thousand_operation_histories(8, false);
}

#[test]
#[ignore = "a measurement: run it in release, with `time`"]
fn thousand_operations_ten_keys_8_processes_one_wrong_read() {
    measure_thousand_operation_histories(8, true);
}

#[test]
#[ignore = "a measurement: run it in release, with `time`"]
fn thousand_operations_ten_keys_30_processes() {
    measure_thousand_operation_histories(30, false);
}

#[test]
#[ignore = "a measurement: run it in release, with `time`"]
fn thousand_operations_ten_keys_30_processes_one_wrong_read() {
    measure_thousand_operation_histories(30, true);
}

/// The default budget spent on a history too large for it: the time and memory a check costs at
/// most per partition (`/usr/bin/time` prints them; the figures are in the module docs).
#[test]
#[ignore = "a measurement: run it in release, with `time`"]
fn the_default_budget_spent_on_a_history_too_large_for_it() {
    let verdict = verdict(&Counter, &thirty_additions_and_an_impossible_read());
    assert_eq!(
        verdict.too_large(),
        Some(&TooLarge { partition: None, operations: 31, states_explored: Budget::DEFAULT_STATES })
    );
}
