//! A JSON document borrowed from the request body and an arena: strings without escapes are
//! slices of the body, objects are slices of members in the order the request sent them, both
//! in an arena ([`Arena`]) that is emptied after the request. Reading a request this way costs a
//! fraction of building a `serde_json::Value`, lookups need no hash, and the document is never
//! dropped piece by piece.

mod reader;

use std::fmt;

pub(crate) use bumpalo::Bump as Arena;

pub(crate) use serde_json::Number;

/// The JSON the fake answers with: built with `serde_json::json!`, written with `serde_json`.
pub(crate) type Answer = serde_json::Value;

/// The body of an answer: a JSON value to write, or one an operation wrote itself (the item
/// operations write items straight from their attribute values, without a value tree).
#[derive(Debug, Clone)]
pub(crate) enum Body {
    Value(Answer),
    Bytes(Vec<u8>),
}

impl From<Answer> for Body {
    fn from(value: Answer) -> Body {
        Body::Value(value)
    }
}

impl Body {
    /// Writes any answer that implements `Serialize`.
    pub(crate) fn write<T: serde::Serialize>(answer: &T) -> Body {
        Body::Bytes(serde_json::to_vec(answer).unwrap_or_else(|_| b"{}".to_vec()))
    }

    /// The bytes of the answer.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        match self {
            Body::Value(value) => serde_json::to_vec(&value).unwrap_or_else(|_| b"{}".to_vec()),
            Body::Bytes(bytes) => bytes,
        }
    }
}

/// A JSON value read from a request.
#[derive(Debug, Clone, Default)]
pub(crate) enum Json<'a> {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(&'a str),
    Array(&'a [Json<'a>]),
    Object(Object<'a>),
}

/// The members of a JSON object, in request order; a repeated name keeps its last value.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Object<'a>(&'a [(&'a str, Json<'a>)]);

static NULL: Json<'static> = Json::Null;

impl<'a> Object<'a> {
    /// The value of member `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Json<'a>> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// The members, in request order.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = (&'a str, &'a Json<'a>)> + ExactSizeIterator {
        self.0.iter().map(|(k, v)| (*k, v))
    }

    /// The member names, in request order.
    pub(crate) fn keys(&self) -> impl DoubleEndedIterator<Item = &'a str> + ExactSizeIterator {
        self.0.iter().map(|(k, _)| *k)
    }

    /// The member values, in request order.
    pub(crate) fn values(&self) -> impl DoubleEndedIterator<Item = &'a Json<'a>> + ExactSizeIterator {
        self.0.iter().map(|(_, v)| v)
    }

    /// The number of members.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// True if the object has no members.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a> IntoIterator for &Object<'a> {
    type Item = (&'a str, &'a Json<'a>);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (&'a str, Json<'a>)>,
        fn(&'a (&'a str, Json<'a>)) -> (&'a str, &'a Json<'a>),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (*k, v))
    }
}

impl<'a> Json<'a> {
    /// Member `key` of an object; `None` for a missing member or a value that is no object.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Json<'a>> {
        match self {
            Json::Object(object) => object.get(key),
            _ => None,
        }
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    pub(crate) fn is_string(&self) -> bool {
        matches!(self, Json::String(_))
    }

    pub(crate) fn as_str(&self) -> Option<&'a str> {
        match *self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&'a [Json<'a>]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    pub(crate) fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Json::Object(object) => Some(object),
            _ => None,
        }
    }

    /// A 64-bit digest of the document in which the order of an object's members does not count,
    /// as it does not in [`PartialEq`]: equal documents have equal digests, and two different
    /// ones share a digest only by a rare accident (the digest is fast, not cryptographic).
    pub(crate) fn digest(&self) -> u64 {
        let mut digest = Digest::default();
        match self {
            Json::Null => digest.word(0),
            Json::Bool(b) => digest.word(1 + u64::from(*b)),
            Json::Number(n) => {
                digest.word(3);
                match (n.as_u64(), n.as_i64()) {
                    (Some(u), _) => digest.word(u),
                    (None, Some(i)) => digest.word((i as u64) ^ (1 << 63)),
                    _ => digest.word(n.as_f64().map_or(0, f64::to_bits)),
                }
            }
            Json::String(s) => {
                digest.word(4);
                digest.bytes(s.as_bytes());
            }
            Json::Array(items) => {
                digest.word(5);
                items.iter().for_each(|item| digest.word(item.digest()));
            }
            Json::Object(object) => {
                let members = object.iter().fold(0u64, |sum, (key, value)| {
                    let mut member = Digest::default();
                    member.bytes(key.as_bytes());
                    member.word(value.digest());
                    sum.wrapping_add(member.0)
                });
                digest.word(6);
                digest.word(members);
            }
        }
        digest.0
    }

    /// The same document as a `serde_json::Value`.
    pub(crate) fn to_value(&self) -> serde_json::Value {
        match self {
            Json::Null => serde_json::Value::Null,
            Json::Bool(b) => serde_json::Value::Bool(*b),
            Json::Number(n) => serde_json::Value::Number(n.clone()),
            Json::String(s) => serde_json::Value::String(s.to_string()),
            Json::Array(items) => serde_json::Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Object(object) => {
                serde_json::Value::Object(object.iter().map(|(k, v)| (k.to_owned(), v.to_value())).collect())
            }
        }
    }
}

/// A document for tests, which lives as long as the test binary: its strings and slices are leaked.
#[cfg(test)]
impl From<&serde_json::Value> for Json<'static> {
    fn from(value: &serde_json::Value) -> Json<'static> {
        let text = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
        match value {
            serde_json::Value::Null => Json::Null,
            serde_json::Value::Bool(b) => Json::Bool(*b),
            serde_json::Value::Number(n) => Json::Number(n.clone()),
            serde_json::Value::String(s) => Json::String(text(s)),
            serde_json::Value::Array(items) => Json::Array(Box::leak(items.iter().map(Json::from).collect())),
            serde_json::Value::Object(map) => {
                Json::Object(Object(Box::leak(map.iter().map(|(k, v)| (text(k), Json::from(v))).collect())))
            }
        }
    }
}

impl<'a> std::ops::Index<&str> for Json<'a> {
    type Output = Json<'a>;

    /// Member `key`, or `null` where there is none, as `serde_json::Value` indexes.
    fn index(&self, key: &str) -> &Json<'a> {
        self.get(key).unwrap_or(&NULL)
    }
}

/// Documents are equal as JSON values are: objects regardless of member order.
/// A multiply-and-rotate mix of words: cheap, deterministic, and good enough to tell documents apart.
#[derive(Default)]
struct Digest(u64);

impl Digest {
    fn word(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.word(bytes.len() as u64);
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.word(u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.word(u64::from_le_bytes(tail));
    }
}

impl PartialEq for Json<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Json::Null, Json::Null) => true,
            (Json::Bool(a), Json::Bool(b)) => a == b,
            (Json::Number(a), Json::Number(b)) => a == b,
            (Json::String(a), Json::String(b)) => a == b,
            (Json::Array(a), Json::Array(b)) => a == b,
            (Json::Object(a), Json::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v == w))
            }
            _ => false,
        }
    }
}

impl fmt::Display for Json<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_value(), f)
    }
}

/// Objects with more members than this check repeated names through a sorted index.
const LINEAR_DEDUP_MAX: usize = 32;

/// Keeps the last of repeated member names, in the position of the first, as a JSON parser that
/// fills a linked map does.
#[inline]
fn dedup<'a>(members: &'a mut [(&'a str, Json<'a>)], arena: &'a Arena) -> &'a [(&'a str, Json<'a>)] {
    // Most objects of a request are attribute values of one member.
    if members.len() < 2 || !has_repeats(members) { members } else { keep_last(members, arena) }
}

fn has_repeats(members: &[(&str, Json<'_>)]) -> bool {
    if members.len() <= LINEAR_DEDUP_MAX {
        (1..members.len()).any(|i| members[..i].iter().any(|(k, _)| *k == members[i].0))
    } else {
        let mut names: Vec<&str> = members.iter().map(|(k, _)| *k).collect();
        names.sort_unstable();
        names.windows(2).any(|w| w[0] == w[1])
    }
}

#[cold]
fn keep_last<'a>(members: &'a mut [(&'a str, Json<'a>)], arena: &'a Arena) -> &'a [(&'a str, Json<'a>)] {
    let mut out = bumpalo::collections::Vec::with_capacity_in(members.len(), arena);
    let mut positions: std::collections::BTreeMap<&'a str, usize> = std::collections::BTreeMap::new();
    for (key, value) in members.iter_mut() {
        let value = std::mem::take(value);
        match positions.get(key) {
            Some(&at) => out[at] = (*key, value),
            None => {
                positions.insert(*key, out.len());
                out.push((*key, value));
            }
        }
    }
    out.into_bump_slice()
}

/// The deepest nesting of arrays and objects a request may have. DynamoDB reads bodies deeper
/// than serde_json's default limit of 128 (its own limit on documents is 32 levels of attribute
/// values, each two JSON levels, reported with its own message); this bound only keeps the
/// recursive reader off the end of the stack.
pub(crate) const MAX_DEPTH: usize = 256;

/// The largest arena a thread keeps between requests; one that grew past it (a request of many
/// megabytes) is freed.
const KEPT_ARENA_BYTES: usize = 1 << 20;

thread_local! {
    static SPARE_ARENA: std::cell::Cell<Option<Arena>> = const { std::cell::Cell::new(None) };
}

/// Runs `read` with an empty arena, and keeps the arena for the thread's next request: a request
/// then allocates its document without asking the allocator at all.
pub(crate) fn with_arena<R>(read: impl FnOnce(&Arena) -> R) -> R {
    let mut arena = SPARE_ARENA.take().unwrap_or_default();
    let result = read(&arena);
    if arena.allocated_bytes() <= KEPT_ARENA_BYTES {
        arena.reset();
        SPARE_ARENA.set(Some(arena));
    }
    result
}

/// Reads a JSON document borrowed from `bytes`, its objects and arrays (and strings with
/// escapes) in `arena`; `None` if it is not JSON or nests too deep.
pub(crate) fn from_slice<'a>(bytes: &'a [u8], arena: &'a Arena) -> Option<Json<'a>> {
    // One check of the whole body spares the reader a check of every string it meets.
    reader::read(std::str::from_utf8(bytes).ok()?, arena)
}

#[cfg(test)]
mod tests {
    use super::test_support::arena;
    use super::*;

    fn int(json: &Json<'_>) -> Option<i64> {
        match json {
            Json::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    #[test]
    fn strings_without_escapes_are_borrowed_and_order_is_kept() {
        let body = br#"{"b":"x","a":{"S":"y\n"},"c":[1,-2,2.5,true,null]}"#;
        let json = from_slice(body, arena()).unwrap();
        let keys: Vec<&str> = json.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["b", "a", "c"]);
        assert!(matches!(json.get("b"), Some(Json::String("x"))));
        assert_eq!(json["a"]["S"].as_str(), Some("y\n"));
        assert_eq!(json["c"].as_array().unwrap().len(), 5);
        assert_eq!(int(&json["c"].as_array().unwrap()[1]), Some(-2));
        assert!(json["missing"].is_null());
    }

    #[test]
    fn repeated_names_keep_the_last_value() {
        let json = from_slice(br#"{"a":1,"b":2,"a":3}"#, arena()).unwrap();
        assert_eq!(json.as_object().unwrap().len(), 2);
        assert_eq!(int(&json["a"]), Some(3));
        let many: String = (0..100).map(|i| format!("\"k{}\":{i},", i % 50)).collect();
        let text = format!("{{{}\"z\":0}}", many);
        let json = from_slice(text.as_bytes(), arena()).unwrap();
        assert_eq!(json.as_object().unwrap().len(), 51);
        assert_eq!(int(&json["k3"]), Some(53));
    }

    #[test]
    fn equality_ignores_member_order_and_conversion_keeps_values() {
        let a = from_slice(br#"{"x":[1,{"p":"q","r":true}],"y":null}"#, arena()).unwrap();
        let b = from_slice(br#"{"y":null,"x":[1,{"r":true,"p":"q"}]}"#, arena()).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_value(), serde_json::json!({"x": [1, {"p": "q", "r": true}], "y": null}));
    }

    #[test]
    fn digests_ignore_member_order_and_see_every_value() {
        let digest = |text: &str| from_slice(text.as_bytes(), arena()).unwrap().digest();
        let a = digest(r#"{"x":[1,{"p":"q","r":true}],"y":null}"#);
        assert_eq!(a, digest(r#"{"y":null,"x":[1,{"r":true,"p":"q"}]}"#));
        for other in [
            r#"{"x":[1,{"p":"q","r":false}],"y":null}"#,
            r#"{"x":[{"p":"q","r":true},1],"y":null}"#,
            r#"{"x":[1,{"p":"q","r":true}]}"#,
            r#"{"x":[1,{"p":"q","r":true}],"z":null}"#,
            r#"{"x":["1",{"p":"q","r":true}],"y":null}"#,
            r#"{"x":[1,{"r":"q","p":true}],"y":null}"#,
        ] {
            assert_ne!(a, digest(other), "{other}");
        }
    }

    #[test]
    fn deep_nesting_is_read_up_to_the_bound_and_refused_beyond() {
        let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        assert!(from_slice(nested(MAX_DEPTH).as_bytes(), arena()).is_some());
        assert!(from_slice(nested(MAX_DEPTH + 1).as_bytes(), arena()).is_none());
        assert!(from_slice("[".repeat(100_000).as_bytes(), arena()).is_none());
        let quoted = format!(r#"{{"a":"{}"}}"#, "[".repeat(1000));
        assert!(from_slice(quoted.as_bytes(), arena()).is_some(), "brackets inside strings do not nest");
    }
}

/// Documents written as `serde_json::json!` literals, for tests.
#[cfg(test)]
pub(crate) mod test_support {
    /// `serde_json::json!`, read as a request document.
    macro_rules! json {
        ($($t:tt)+) => {
            $crate::json::Json::from(&::serde_json::json!($($t)+))
        };
    }
    pub(crate) use json;

    /// An arena that lives as long as the test binary, for documents read in tests.
    pub(crate) fn arena() -> &'static super::Arena {
        Box::leak(Box::default())
    }
}
