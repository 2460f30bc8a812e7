//! Attribute values: the ten DynamoDB types, read from and written to the wire JSON.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use aws_smithy_types::base64;
use serde_json::Map;

use crate::json::{Answer, Json};

use crate::error::DynamoError;
use crate::number::Number;
use crate::operation::Operation;

use crate::item::Attributes;
pub(crate) use crate::item::Item;

/// How an operation words its refusals of attribute values. DynamoDB runs two checkers, which
/// word a malformed number and a duplicate set member differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueChecks {
    /// PutItem, UpdateItem and DeleteItem: numbers in the current wording, duplicate set members
    /// in the older one (nubo-db's conformance suite, recorded against DynamoDB in 2026, for a
    /// string set); the placeholder of an empty set in an expression value is not named (moto's
    /// tests verified against DynamoDB).
    SingleWrite,
    /// GetItem, BatchGetItem and Query: the current wording.
    Current,
    /// BatchWriteItem, the transactions, Scan and the rest: the older wording, with expression
    /// values named in an `ExpressionAttributeValues contains invalid value` wrapper.
    Older,
}

thread_local! {
    static VALUE_CHECKS: std::cell::Cell<ValueChecks> = const { std::cell::Cell::new(ValueChecks::Older) };
}

/// Puts the previous [`ValueChecks`] back when the request that chose them is answered.
#[derive(Debug)]
pub(crate) struct ValueChecksGuard(ValueChecks);

impl Drop for ValueChecksGuard {
    fn drop(&mut self) {
        VALUE_CHECKS.with(|checks| checks.set(self.0));
    }
}

impl ValueChecks {
    /// The checker DynamoDB runs for this operation.
    pub(crate) fn of_operation(operation: Operation) -> ValueChecks {
        match operation {
            Operation::PutItem | Operation::UpdateItem | Operation::DeleteItem => ValueChecks::SingleWrite,
            Operation::GetItem | Operation::BatchGetItem | Operation::Query => ValueChecks::Current,
            _ => ValueChecks::Older,
        }
    }

    /// Makes these the checks of the values read on this thread until the guard is dropped.
    pub(crate) fn enter(self) -> ValueChecksGuard {
        ValueChecksGuard(VALUE_CHECKS.with(|checks| checks.replace(self)))
    }

    /// The checks in force.
    pub(crate) fn in_force() -> ValueChecks {
        VALUE_CHECKS.with(std::cell::Cell::get)
    }

    /// Whether `message` is one the two checkers word differently (a malformed number, a
    /// duplicate set member): the current checker reports those without naming the placeholder of
    /// an expression value; every other refusal of a value is named the same way by both.
    fn words_differently(message: &str) -> bool {
        [
            "The parameter cannot be converted to a numeric value",
            "Number overflow.",
            "Number underflow.",
            "Attempting to store more than 38 significant digits",
            "One or more parameter values were invalid: Input collection",
            "Input collection contains duplicates",
        ]
        .iter()
        .any(|start| message.starts_with(start))
    }

    /// Whether the refusal of an expression value is reported naming its placeholder
    /// (`ExpressionAttributeValues contains invalid value: ... for key :v`). The current checker
    /// does not name it for the messages it words differently; the single-item writes do not name
    /// it for an empty set either (moto's tests verified against DynamoDB).
    pub(crate) fn names_placeholder(self, message: &str) -> bool {
        match self {
            ValueChecks::Older => true,
            ValueChecks::Current => !ValueChecks::words_differently(message),
            ValueChecks::SingleWrite => !ValueChecks::words_differently(message) && !is_empty_set(message),
        }
    }

    /// The duplicate members of a set as the current checker lists them: in byte order up to the
    /// first repeat, then the repeat, then the rest as sent.
    fn current_duplicates<K: Ord + Clone>(members: &[(K, String)]) -> Vec<&str> {
        let mut seen: BTreeMap<K, &str> = BTreeMap::new();
        for (at, (key, text)) in members.iter().enumerate() {
            if seen.insert(key.clone(), text).is_some() {
                let mut listed: Vec<&str> = seen.values().copied().collect();
                listed.push(text);
                listed.extend(members[at + 1..].iter().map(|(_, t)| t.as_str()));
                return listed;
            }
        }
        seen.into_values().collect()
    }
}

/// True for the refusal of an empty set value.
fn is_empty_set(message: &str) -> bool {
    message.ends_with("set  may not be empty") || message.ends_with("Binary sets should not be empty")
}

/// One attribute value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// `S`: a UTF-8 string.
    S(String),
    /// `N`: a number.
    N(Number),
    /// `B`: binary.
    B(Vec<u8>),
    /// `BOOL`.
    Bool(bool),
    /// `NULL`.
    Null,
    /// `M`: a map.
    M(BTreeMap<String, Value>),
    /// `L`: a list.
    L(Vec<Value>),
    /// `SS`: a string set.
    SS(BTreeSet<String>),
    /// `NS`: a number set.
    NS(BTreeSet<Number>),
    /// `BS`: a binary set.
    BS(BTreeSet<Vec<u8>>),
}

impl Value {
    /// The DynamoDB type descriptor: `S`, `N`, `B`, `BOOL`, `NULL`, `M`, `L`, `SS`, `NS`, `BS`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::S(_) => "S",
            Value::N(_) => "N",
            Value::B(_) => "B",
            Value::Bool(_) => "BOOL",
            Value::Null => "NULL",
            Value::M(_) => "M",
            Value::L(_) => "L",
            Value::SS(_) => "SS",
            Value::NS(_) => "NS",
            Value::BS(_) => "BS",
        }
    }

    /// The size DynamoDB charges for the value, in bytes.
    pub fn size_bytes(&self) -> usize {
        match self {
            Value::S(s) => s.len(),
            Value::N(n) => n.size_bytes(),
            Value::B(b) => b.len(),
            Value::Bool(_) | Value::Null => 1,
            Value::M(m) => 3 + m.iter().map(|(k, v)| k.len() + v.size_bytes() + 1).sum::<usize>(),
            Value::L(l) => 3 + l.iter().map(|v| v.size_bytes() + 1).sum::<usize>(),
            Value::SS(s) => s.iter().map(|x| x.len()).sum(),
            Value::NS(s) => s.iter().map(|x| x.size_bytes()).sum(),
            Value::BS(s) => s.iter().map(|x| x.len()).sum(),
        }
    }

    /// Reads an attribute value from its wire JSON, with DynamoDB's checks and messages.
    pub(crate) fn from_json(json: &Json<'_>) -> Result<Value, DynamoError> {
        let map = match json {
            Json::Object(map) => map,
            Json::Array(_) => return Err(DynamoError::serialization("Start of list found where not expected")),
            Json::Null => {
                return Err(DynamoError::validation(
                    "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
                ));
            }
            _ => return Err(DynamoError::serialization("Unexpected value type in payload")),
        };
        let mut found: Option<Value> = None;
        let mut count = 0;
        for (key, member) in map {
            if member.is_null() {
                continue;
            }
            let value = match key {
                "S" => Value::S(expect_string(member, "String")?.to_owned()),
                "N" => Value::N(parse_number(expect_string(member, "String")?)?),
                "B" => Value::B(decode_blob(member)?),
                "BOOL" => Value::Bool(expect_bool(member)?),
                "NULL" => {
                    // nubo-db's conformance suite, recorded against DynamoDB in 2026, as dynalite's
                    // older captures: `false` is refused.
                    if !expect_bool(member)? {
                        return Err(DynamoError::invalid_parameter(
                            "Null attribute value types must have the value of true",
                        )
                        .about_the_request());
                    }
                    Value::Null
                }
                "M" => {
                    let Json::Object(inner) = member else {
                        return Err(wrong_container(member, "map"));
                    };
                    let mut out = BTreeMap::new();
                    for (name, v) in inner {
                        out.insert(name.to_owned(), Value::from_json(v)?);
                    }
                    Value::M(out)
                }
                "L" => {
                    let Json::Array(inner) = member else {
                        return Err(wrong_container(member, "list"));
                    };
                    Value::L(inner.iter().map(Value::from_json).collect::<Result<_, _>>()?)
                }
                "SS" => {
                    let items = expect_list(member)?;
                    if items.is_empty() {
                        return Err(
                            DynamoError::invalid_parameter("An string set  may not be empty").about_the_request()
                        );
                    }
                    let mut set = BTreeSet::new();
                    let mut texts = Vec::with_capacity(items.len());
                    for item in items {
                        // An empty string is a member like any other (only empty sets are refused).
                        let s = expect_string(item, "String")?;
                        texts.push(s.to_owned());
                        set.insert(s.to_owned());
                    }
                    if set.len() != texts.len() {
                        let listed = if ValueChecks::in_force() == ValueChecks::Current {
                            let members: Vec<(String, String)> = texts.iter().map(|t| (t.clone(), t.clone())).collect();
                            let quoted: Vec<String> =
                                ValueChecks::current_duplicates(&members).iter().map(|t| format!("\"{t}\"")).collect();
                            quoted.join(", ")
                        } else {
                            texts.join(", ")
                        };
                        return Err(DynamoError::validation(format!(
                            "One or more parameter values were invalid: Input collection [{listed}] contains duplicates."
                        ))
                        .about_the_request());
                    }
                    Value::SS(set)
                }
                "NS" => {
                    let items = expect_list(member)?;
                    if items.is_empty() {
                        return Err(
                            DynamoError::invalid_parameter("An number set  may not be empty").about_the_request()
                        );
                    }
                    let mut set = BTreeSet::new();
                    for item in items {
                        let text = expect_string(item, "String")?;
                        if !set.insert(parse_number(text)?) {
                            return Err(DynamoError::validation(match ValueChecks::in_force() {
                                ValueChecks::Current => {
                                    "One or more parameter values were invalid: Input collection contains duplicates."
                                }
                                ValueChecks::SingleWrite | ValueChecks::Older => "Input collection contains duplicates",
                            })
                            .about_the_request());
                        }
                    }
                    Value::NS(set)
                }
                "BS" => {
                    let items = expect_list(member)?;
                    if items.is_empty() {
                        return Err(
                            DynamoError::invalid_parameter("Binary sets should not be empty").about_the_request()
                        );
                    }
                    let mut set = BTreeSet::new();
                    let mut members = Vec::with_capacity(items.len());
                    for item in items {
                        let bytes = decode_blob(item)?;
                        members.push((bytes.clone(), item.as_str().unwrap_or_default().to_owned()));
                        set.insert(bytes);
                    }
                    if set.len() != members.len() {
                        let listed = if ValueChecks::in_force() == ValueChecks::Current {
                            let quoted: Vec<String> =
                                ValueChecks::current_duplicates(&members).iter().map(|t| format!("\"{t}\"")).collect();
                            quoted.join(",")
                        } else {
                            members.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join(", ")
                        };
                        return Err(DynamoError::validation(format!(
                            "One or more parameter values were invalid: Input collection [{listed}]of type BS contains duplicates."
                        ))
                        .about_the_request());
                    }
                    Value::BS(set)
                }
                // Unknown members are ignored, as the service's deserializer does.
                _ => continue,
            };
            count += 1;
            if found.is_none() {
                found = Some(value);
            }
        }
        match (found, count) {
            (None, _) => Err(DynamoError::validation(
                "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
            )),
            (Some(_), n) if n > 1 => Err(DynamoError::validation(
                "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
            )),
            (Some(value), _) => Ok(value),
        }
    }

    /// Writes the value as wire JSON.
    pub fn to_json(&self) -> Answer {
        let mut map = Map::with_capacity(1);
        let (key, inner) = match self {
            Value::S(s) => ("S", Answer::String(s.clone())),
            Value::N(n) => ("N", Answer::String(n.to_string())),
            Value::B(b) => ("B", Answer::String(base64::encode(b))),
            Value::Bool(b) => ("BOOL", Answer::Bool(*b)),
            Value::Null => ("NULL", Answer::Bool(true)),
            Value::M(m) => ("M", item_to_json(m)),
            Value::L(l) => ("L", Answer::Array(l.iter().map(Value::to_json).collect())),
            Value::SS(s) => ("SS", Answer::Array(s.iter().map(|x| Answer::String(x.clone())).collect())),
            Value::NS(s) => ("NS", Answer::Array(s.iter().map(|x| Answer::String(x.to_string())).collect())),
            Value::BS(s) => ("BS", Answer::Array(s.iter().map(|x| Answer::String(base64::encode(x))).collect())),
        };
        map.insert(key.to_owned(), inner);
        Answer::Object(map)
    }

    /// Orders two values of the same scalar type as DynamoDB's comparison operators do
    /// (numbers by value, strings and binaries bytewise). `None` for values that do not compare.
    pub fn compare(&self, other: &Value) -> Option<Ordering> {
        match (self, other) {
            (Value::S(a), Value::S(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
            (Value::N(a), Value::N(b)) => Some(a.compare(b)),
            (Value::B(a), Value::B(b)) => Some(a.cmp(b)),
            _ => None,
        }
    }
}

/// Writes an attribute value straight to the wire, as [`Value::to_json`] would build it.
impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};

        struct Each<I>(std::cell::Cell<Option<I>>);
        impl<I: Iterator<Item = T>, T: serde::Serialize> serde::Serialize for Each<I> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let Some(items) = self.0.take() else { return serializer.serialize_seq(Some(0))?.end() };
                let mut seq = serializer.serialize_seq(None)?;
                for item in items {
                    seq.serialize_element(&item)?;
                }
                seq.end()
            }
        }
        struct Text<T>(T);
        impl<T: std::fmt::Display> serde::Serialize for Text<T> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(&self.0)
            }
        }
        fn each<I>(items: I) -> Each<I> {
            Each(std::cell::Cell::new(Some(items)))
        }

        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            Value::S(s) => map.serialize_entry("S", s)?,
            Value::N(n) => map.serialize_entry("N", &Text(n))?,
            Value::B(b) => map.serialize_entry("B", &base64::encode(b))?,
            Value::Bool(b) => map.serialize_entry("BOOL", b)?,
            Value::Null => map.serialize_entry("NULL", &true)?,
            Value::M(m) => map.serialize_entry("M", &ItemJson(m))?,
            Value::L(l) => map.serialize_entry("L", l)?,
            Value::SS(s) => map.serialize_entry("SS", s)?,
            Value::NS(s) => map.serialize_entry("NS", &each(s.iter().map(Text)))?,
            Value::BS(s) => map.serialize_entry("BS", &each(s.iter().map(base64::encode)))?,
        }
        map.end()
    }
}

/// An item (or map) written straight to the wire.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ItemJson<'a, A: ?Sized>(pub(crate) &'a A);

impl<A: Attributes + ?Sized> serde::Serialize for ItemJson<'_, A> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.attributes())
    }
}

/// Writes an item (or map) as wire JSON.
pub fn item_to_json(item: &(impl Attributes + ?Sized)) -> Answer {
    let attributes = item.attributes();
    let mut map = Map::with_capacity(attributes.len());
    for (name, value) in attributes {
        map.insert(name.to_owned(), value.to_json());
    }
    Answer::Object(map)
}

/// Reads an item from wire JSON (a map of attribute values).
pub fn item_from_json(json: &Json<'_>) -> Result<Item, DynamoError> {
    let Json::Object(map) = json else {
        return Err(wrong_container(json, "map"));
    };
    map.into_iter().map(|(name, value)| Ok((name, Value::from_json(value)?))).collect()
}

/// An item given as a `serde_json` value in DynamoDB's JSON (a file's, not a request's), read as
/// a request's item would be.
pub fn item_from_value(value: &Answer) -> Result<Item, DynamoError> {
    let text = value.to_string();
    crate::json::with_arena(|arena| match crate::json::from_slice(text.as_bytes(), arena) {
        Some(json) => item_from_json(&json),
        None => Err(DynamoError::serialization("")),
    })
}

/// The size of an item as DynamoDB counts it: names plus values.
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(name, value)| name.len() + value.size_bytes()).sum()
}

fn parse_number(text: &str) -> Result<Number, DynamoError> {
    Number::parse(text).map_err(|e| match ValueChecks::in_force() {
        ValueChecks::Older => e.to_error(text),
        // The current checker quotes the text of every malformed number, even an empty one.
        ValueChecks::Current | ValueChecks::SingleWrite => DynamoError::validation(match e {
            crate::number::NumberError::Syntax => {
                format!("The parameter cannot be converted to a numeric value: {text}")
            }
            _ => e.to_error(text).message,
        }),
    })
}

fn expect_string<'a>(json: &'a Json<'_>, target: &str) -> Result<&'a str, DynamoError> {
    match json {
        Json::String(s) => Ok(s),
        other => Err(type_mismatch(other, target)),
    }
}

/// The value of a `BOOL` or `NULL`: a JSON boolean, not a text that names one.
fn expect_bool(json: &Json<'_>) -> Result<bool, DynamoError> {
    match json {
        Json::Bool(b) => Ok(*b),
        other => Err(type_mismatch(other, "Boolean")),
    }
}

fn expect_list<'a>(json: &Json<'a>) -> Result<&'a [Json<'a>], DynamoError> {
    match json {
        Json::Array(items) => Ok(items),
        other => Err(wrong_container(other, "list")),
    }
}

fn decode_blob(json: &Json<'_>) -> Result<Vec<u8>, DynamoError> {
    let text = match json {
        Json::String(s) => s,
        other => return Err(type_mismatch(other, "Blob")),
    };
    base64::decode(text).map_err(|_| {
        DynamoError::serialization(format!("'{text}' can not be converted to a Blob: Invalid Base64 character"))
    })
}

/// The SerializationException DynamoDB answers when a JSON scalar has the wrong type.
pub fn type_mismatch(json: &Json<'_>, target: &str) -> DynamoError {
    let article = if target == "Blob" { "a" } else { "an" };
    match json {
        Json::Bool(_) => {
            DynamoError::serialization(format!("class java.lang.Boolean can not be converted to {article} {target}"))
        }
        Json::Number(n) => DynamoError::serialization(format!(
            "class {} can not be converted to {article} {target}",
            java_number_class(n)
        )),
        Json::String(s) if target == "Boolean" => {
            DynamoError::serialization(format!("'{}' can not be converted to an Boolean", s.to_uppercase()))
        }
        Json::String(_) => {
            DynamoError::serialization(format!("class java.lang.String can not be converted to {article} {target}"))
        }
        Json::Array(_) => DynamoError::serialization("Start of list found where not expected"),
        Json::Object(_) => DynamoError::serialization("Start of structure or map found where not expected."),
        Json::Null => DynamoError::serialization("Unexpected null"),
    }
}

fn wrong_container(json: &Json<'_>, expected: &str) -> DynamoError {
    match json {
        Json::Array(_) => DynamoError::serialization("Start of list found where not expected"),
        Json::Object(_) => DynamoError::serialization("Start of structure or map found where not expected."),
        _ => DynamoError::serialization(format!("Expected {expected} or null")),
    }
}

/// The Java class the service's deserializer would have read a JSON number as.
pub fn java_number_class(n: &serde_json::Number) -> &'static str {
    match n.as_i64() {
        Some(v) if (-32768..=32767).contains(&v) => "java.lang.Short",
        Some(v) if (-2147483648..=2147483647).contains(&v) => "java.lang.Integer",
        Some(_) => "java.lang.Long",
        None if n.is_u64() => "java.lang.Long",
        None => "java.lang.Double",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::test_support::json;

    #[test]
    fn all_ten_types_round_trip() {
        let item = json!({
            "s": {"S": "x"}, "n": {"N": "1.50"}, "b": {"B": "AAE="}, "t": {"BOOL": true},
            "z": {"NULL": true}, "m": {"M": {"k": {"S": "v"}}}, "l": {"L": [{"N": "1"}, {"S": "a"}]},
            "ss": {"SS": ["b", "a"]}, "ns": {"NS": ["10", "9"]}, "bs": {"BS": ["AQ=="]}
        });
        let parsed = item_from_json(&item).unwrap();
        let back = item_to_json(&parsed);
        assert_eq!(back["n"], serde_json::json!({"N": "1.5"}));
        assert_eq!(back["ss"], serde_json::json!({"SS": ["a", "b"]}));
        assert_eq!(back["ns"], serde_json::json!({"NS": ["9", "10"]}));
        assert_eq!(back["b"], serde_json::json!({"B": "AAE="}));
        assert_eq!(item_from_json(&Json::from(&back)).unwrap(), parsed);
        let written = serde_json::to_value(ItemJson(&parsed)).unwrap();
        assert_eq!(written, back, "writing straight to the wire gives the same JSON");
    }

    #[test]
    fn invalid_values_get_dynamodb_messages() {
        let msg = |j: Json<'_>| Value::from_json(&j).unwrap_err().message;
        assert_eq!(
            msg(json!({})),
            "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
        );
        assert!(msg(json!({"S": "a", "N": "1"})).contains("more than one datatypes"));
        assert!(msg(json!({"SS": []})).contains("may not be empty"));
        assert!(msg(json!({"SS": ["a", "a"]})).contains("contains duplicates"));
        assert_eq!(msg(json!({"NS": ["1", "1.0"]})), "Input collection contains duplicates");
        assert_eq!(msg(json!({"N": "x"})), "The parameter cannot be converted to a numeric value: x");
        assert_eq!(Value::from_json(&json!({"S": 5})).unwrap_err().code(), "SerializationException");
    }
}
