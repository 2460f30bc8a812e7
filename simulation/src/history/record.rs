//! [`Record`] and [`Value`]: what the history holds of a service, whatever its types.
//!
//! The history of a run is one list for every service, so the values a service records (its
//! operations, their results, its notes) are held type-erased: a [`Value`] is a shared
//! `dyn Record`. A type of yours becomes a value with [`Value::of`] when it implements serde's
//! `Serialize` and `Debug` (it is then digested and written as JSON through serde), or with
//! [`Value::new`] when it implements [`Record`] itself, to choose how the timeline words it.
//! A checker gets its own type back with [`Value::get`].

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use super::digest::Digest;

/// A value the history records: an operation of a service, its result, or a note.
pub trait Record: Any + fmt::Debug + Send + Sync {
    /// Feeds the value into the digest of its history: two values that differ must feed
    /// different bytes.
    fn digest(&self, digest: &mut Digest);

    /// The value in words, for the timeline and reports.
    fn describe(&self) -> String {
        format!("{self:?}")
    }

    /// What the value is about, such as a lock or a key: a violation about it shows the
    /// entries about it in its timeline.
    fn subject(&self) -> Option<String> {
        None
    }

    /// The value as JSON, for `--format json`.
    fn to_json(&self) -> serde_json::Value {
        serde_json::Value::String(self.describe())
    }

    /// The value as `Any`, for [`Value::get`].
    fn as_any(&self) -> &dyn Any;
}

/// A shared, type-erased [`Record`]. Cheap to clone.
#[derive(Clone)]
pub struct Value(Arc<dyn Record>);

impl Value {
    /// A value of a type that implements [`Record`].
    pub fn new<T: Record>(value: T) -> Value {
        Value(Arc::new(value))
    }

    /// A value of any type that serde serializes: digested as its JSON, described by `Debug`.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease_sim::history::Value;
    ///
    /// #[derive(Debug, PartialEq, serde::Serialize)]
    /// enum Op { Deposit(u64) }
    ///
    /// let value = Value::of(Op::Deposit(5));
    /// assert_eq!(value.get::<Op>(), Some(&Op::Deposit(5)));
    /// assert_eq!(value.describe(), "Deposit(5)");
    /// assert_eq!(value.to_json(), serde_json::json!({"Deposit": 5}));
    /// ```
    pub fn of<T: Serialize + fmt::Debug + Send + Sync + 'static>(value: T) -> Value {
        Value(Arc::new(Serde(value)))
    }

    /// A text: why an operation failed, or what nobody knows about it.
    pub fn text(text: impl Into<String>) -> Value {
        Value(Arc::new(Text(text.into())))
    }

    /// Nothing to tell.
    pub fn none() -> Value {
        Value::text("")
    }

    /// The value as `T`, if it is one (made by [`Value::new`] or [`Value::of`]).
    pub fn get<T: 'static>(&self) -> Option<&T> {
        let any = self.0.as_any();
        any.downcast_ref::<T>().or_else(|| any.downcast_ref::<Serde<T>>().map(|s| &s.0))
    }

    /// The text of a [`Value::text`].
    pub fn as_text(&self) -> Option<&str> {
        self.get::<Text>().map(|t| t.0.as_str())
    }

    /// The value in words.
    pub fn describe(&self) -> String {
        self.0.describe()
    }

    /// The value as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        self.0.to_json()
    }

    /// What the value is about, if it says.
    pub fn subject(&self) -> Option<String> {
        self.0.subject()
    }

    /// Feeds the value into `digest`.
    pub fn digest(&self, digest: &mut Digest) {
        self.0.digest(digest);
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for Value {
    /// Two values are equal when they feed the same digest.
    fn eq(&self, other: &Value) -> bool {
        let (mut a, mut b) = (Digest::default(), Digest::default());
        self.digest(&mut a);
        other.digest(&mut b);
        a.finish() == b.finish()
    }
}

impl Eq for Value {}

/// A value recorded through serde.
struct Serde<T>(T);

impl<T: fmt::Debug> fmt::Debug for Serde<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: Serialize + fmt::Debug + Send + Sync + 'static> Record for Serde<T> {
    fn digest(&self, digest: &mut Digest) {
        digest.u64(30);
        // serde_json writes the same bytes for the same value; a map type of the user's that
        // iterates in hash order is the one way to break that, and replays then disagree.
        if serde_json::to_writer(&mut *digest, &self.0).is_err() {
            digest.str("unserializable");
        }
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.0).unwrap_or_else(|err| serde_json::Value::String(err.to_string()))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A text, as [`Value::text`] makes it.
#[derive(Clone, PartialEq, Eq)]
pub struct Text(pub String);

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl Record for Text {
    fn digest(&self, digest: &mut Digest) {
        if self.0.is_empty() {
            digest.u64(0);
        } else {
            digest.u64(2);
            digest.str(&self.0);
        }
    }

    fn describe(&self) -> String {
        self.0.clone()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
