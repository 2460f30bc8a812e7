//! Exactly-once effects: every operation that was acknowledged has exactly one effect in the
//! final state, none of one that failed, and at most one of one whose fate is unknown.
//!
//! The service says which effect an operation makes (an id: the transfer's id, the job's id)
//! and how many times each effect shows in the tables as the run left them (the transfer ids
//! appended to the accounts' ledgers, the jobs marked done). A retry that the SDK or the
//! service's own code makes after a lost answer is the classic way to break it: the request
//! was applied, its answer lost, and the retry applies it again.
//!
//! ```
//! use std::collections::BTreeMap;
//! use dynalease_sim::exactly_once;
//! use dynalease_sim::history::{Actor, Entry, Event, History, OpId, Outcome, ProcessRef, Value};
//! use std::time::Duration;
//!
//! let p = Actor::Process(ProcessRef { id: 0, incarnation: 0 });
//! let at = |ms| Duration::from_millis(ms);
//! let history = History::from_entries(vec![
//!     Entry { at: at(1), actor: p, event: Event::Invoke { op: OpId(0), value: Value::of(String::from("t1")) } },
//!     Entry { at: at(9), actor: p, event: Event::Complete { op: OpId(0), outcome: Outcome::Ok, value: Value::of(()) } },
//! ]);
//! let seen = BTreeMap::from([(String::from("t1"), 2)]);
//! let violations = exactly_once::check::<String, ()>(&history, &seen, |op| Some(op.clone()));
//! assert_eq!(violations[0].invariant.name(), "exactly-once");
//! assert!(violations[0].message.contains("2 times"));
//! ```

use std::collections::BTreeMap;

use crate::history::{History, Outcome};
use crate::verdict::{Invariant, Violation};

/// The invariant.
pub fn invariant() -> Invariant {
    Invariant::safety("exactly-once", "an operation's effect is missing, or appears more than once")
}

/// Holds the operations of `history` whose call is an `O` (with results `R`) to the effects
/// `seen` in the final state, by the id `effect_of` gives each operation (`None` for an
/// operation without an effect, such as a read). Returns a violation for each effect that
/// breaks the rule, naming its operations.
pub fn check<O: 'static, R: 'static>(
    history: &History,
    seen: &BTreeMap<String, u64>,
    effect_of: impl Fn(&O) -> Option<String>,
) -> Vec<Violation> {
    let operations = history.operations::<O, R>();
    // The operations of each effect: an effect may be asked for by several (a retry of the
    // service's own, say), and is then due once if any of them was acknowledged.
    let mut by_effect: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (index, operation) in operations.iter().enumerate() {
        if let Some(effect) = effect_of(operation.call) {
            by_effect.entry(effect).or_default().push(index);
        }
    }
    let mut violations = Vec::new();
    for (effect, indices) in &by_effect {
        let count = seen.get(effect).copied().unwrap_or(0);
        let acked = indices.iter().any(|i| operations[*i].outcome == Outcome::Ok);
        let unknown = indices.iter().any(|i| operations[*i].outcome == Outcome::Info);
        let ops: Vec<_> = indices.iter().map(|i| operations[*i].op).collect();
        let names: Vec<String> = ops.iter().map(|op| op.to_string()).collect();
        let problem = if acked && count == 0 {
            Some(format!("{} acknowledged the effect {effect}, but the final state has none of it", names.join(", ")))
        } else if count > 1 {
            Some(format!("the effect {effect} of {} is in the final state {count} times, not once", names.join(", ")))
        } else if !acked && !unknown && count > 0 {
            Some(format!("{} failed, yet its effect {effect} is in the final state", names.join(", ")))
        } else {
            None
        };
        if let Some(message) = problem {
            let (first, second) = ops.split_at(1.min(ops.len()));
            violations.push(Violation::new(invariant(), effect.clone(), message).ops(history, first, second, &[]));
        }
    }
    for (effect, count) in seen {
        if *count > 0 && !by_effect.contains_key(effect) {
            violations.push(Violation::new(
                invariant(),
                effect.clone(),
                format!("the final state has the effect {effect} {count} times, and no operation asked for it"),
            ));
        }
    }
    violations
}
