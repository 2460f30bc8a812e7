//! What a checker finds: [`Invariant`]s, [`Violation`]s that name the operations involved, and
//! [`Inconclusive`] checks that could not finish (never counted as a pass).

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use crate::history::{Actor, Event, History, OpId};

/// An invariant a checker holds a run to: its short name, the sentence that says what broke,
/// and whether it is one of safety (something bad happened) or of liveness (something good did
/// not).
///
/// # Examples
///
/// ```
/// use dynalease_sim::Invariant;
///
/// let unique = Invariant::safety("id-unique", "an id was handed out twice");
/// assert_eq!(unique.name(), "id-unique");
/// assert!(unique.is_safety());
/// assert_eq!(unique.to_string(), "an id was handed out twice");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Invariant {
    name: Cow<'static, str>,
    safety: bool,
    sentence: Cow<'static, str>,
}

impl Invariant {
    /// An invariant of safety.
    pub fn safety(name: impl Into<Cow<'static, str>>, sentence: impl Into<Cow<'static, str>>) -> Self {
        Invariant { name: name.into(), safety: true, sentence: sentence.into() }
    }

    /// An invariant of liveness.
    pub fn liveness(name: impl Into<Cow<'static, str>>, sentence: impl Into<Cow<'static, str>>) -> Self {
        Invariant { name: name.into(), safety: false, sentence: sentence.into() }
    }

    /// The short name, for tables and command lines: `id-unique`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether it is an invariant of safety.
    pub fn is_safety(&self) -> bool {
        self.safety
    }

    /// What broke, in a sentence.
    pub fn sentence(&self) -> &str {
        &self.sentence
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.sentence)
    }
}

/// One broken invariant, with the entries of the history that show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Which invariant.
    pub invariant: Invariant,
    /// What it is about, such as a lock or a key; empty for the whole run.
    pub subject: String,
    /// What happened, in a sentence.
    pub message: String,
    /// The entries (indices into the history) of the first of the conflicting operations.
    pub first: Vec<usize>,
    /// The entries of the second.
    pub second: Vec<usize>,
    /// The entries of the last good operation of the same kind before them.
    pub last_good: Vec<usize>,
    /// The processes involved, for the timeline.
    pub processes: Vec<u16>,
    /// The span of global time the timeline of the violation shows.
    pub window: (Duration, Duration),
}

impl Violation {
    /// A violation of `invariant` about `subject`, saying `message`, shown by no entries yet.
    pub fn new(invariant: Invariant, subject: impl Into<String>, message: impl Into<String>) -> Self {
        Violation {
            invariant,
            subject: subject.into(),
            message: message.into(),
            first: Vec::new(),
            second: Vec::new(),
            last_good: Vec::new(),
            processes: Vec::new(),
            window: (Duration::ZERO, Duration::ZERO),
        }
    }

    /// The same, with the entries of the first and the second conflicting operations and of the
    /// last good one, and the processes and window they span.
    pub fn entries(mut self, history: &History, first: Vec<usize>, second: Vec<usize>, last_good: Vec<usize>) -> Self {
        self.first = first;
        self.second = second;
        self.last_good = last_good;
        for entries in [&mut self.first, &mut self.second, &mut self.last_good] {
            entries.sort_unstable();
            entries.dedup();
        }
        let all: Vec<usize> = self.first.iter().chain(&self.second).copied().collect();
        let found: Vec<_> = all.iter().filter_map(|i| history.entries().get(*i)).collect();
        let start = found.iter().map(|e| e.at).min().unwrap_or(Duration::ZERO);
        let end = found.iter().map(|e| e.at).max().unwrap_or(Duration::ZERO);
        self.window = (start, end);
        let mut processes: Vec<u16> = found
            .iter()
            .filter_map(|e| match e.actor {
                Actor::Process(p) => Some(p.id),
                _ => None,
            })
            .collect();
        processes.sort_unstable();
        processes.dedup();
        self.processes = processes;
        self
    }

    /// The same, shown by the operations `first` and `second` (their invokes and completions),
    /// and `last_good` if there is one.
    pub fn ops(self, history: &History, first: &[OpId], second: &[OpId], last_good: &[OpId]) -> Self {
        let entries = |ops: &[OpId]| -> Vec<usize> {
            history
                .entries()
                .iter()
                .enumerate()
                .filter(|(_, e)| match &e.event {
                    Event::Invoke { op, .. } | Event::Complete { op, .. } => ops.contains(op),
                    _ => false,
                })
                .map(|(i, _)| i)
                .collect()
        };
        let (f, s, l) = (entries(first), entries(second), entries(last_good));
        self.entries(history, f, s, l)
    }
}

/// What a checker's panic starts with when what it checks is not deterministic (a model that
/// answers the same question two ways): the world reports the run as not deterministic, never
/// as a violation of the service.
pub const NOT_DETERMINISTIC: &str = "not deterministic:";

/// A check that could not finish: a history too large for the search of linearizability, say.
/// A run with one is not a pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inconclusive {
    /// The check.
    pub check: String,
    /// Why, in a sentence.
    pub why: String,
}

/// What a service's checkers found in one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Every broken invariant, at most one per invariant and subject.
    pub violations: Vec<Violation>,
    /// Checks that could not finish.
    pub inconclusive: Vec<Inconclusive>,
    /// How much was checked, by name: `grants`, `operations`; summed over a sweep.
    pub counts: Vec<(String, u64)>,
    /// Largest values, by name: `slowest takeover ms`; the largest over a sweep.
    pub maxima: Vec<(String, u64)>,
}

impl Verdict {
    /// Adds `n` to the count `name`.
    pub fn count(&mut self, name: &str, n: u64) {
        match self.counts.iter_mut().find(|(k, _)| k == name) {
            Some((_, v)) => *v += n,
            None => self.counts.push((name.to_owned(), n)),
        }
    }

    /// The count `name`, 0 if there is none.
    pub fn counted(&self, name: &str) -> u64 {
        self.counts.iter().find(|(k, _)| k == name).map_or(0, |(_, v)| *v)
    }

    /// Keeps the first violation of each invariant and subject, in the order of their windows.
    pub fn dedup(&mut self) {
        self.violations.sort_by(|a, b| (a.window.0, &a.invariant).cmp(&(b.window.0, &b.invariant)));
        let mut seen = std::collections::BTreeSet::new();
        self.violations.retain(|v| seen.insert((v.invariant.clone(), v.subject.clone())));
    }
}

impl From<Vec<Violation>> for Verdict {
    /// A verdict of these violations, with nothing counted.
    fn from(violations: Vec<Violation>) -> Self {
        Self { violations, ..Self::default() }
    }
}
