//! The first check of a request: does each member have the JSON type its shape wants? DynamoDB's
//! deserializer answers the first mismatch with a `SerializationException` whose message depends
//! on the token it met, on the type it wanted, and on whether the value sits in a member of a
//! structure ("field") or in an element of a list or map ("value").
//!
//! A JSON `null` anywhere counts as an absent member; unknown members are ignored.

use serde_json::{Map, Number, Value as Json};

use super::base64;
use super::shape::{Len, ListShape, MapShape, Member, Shape, StringRules, StructShape};
use crate::error::DynamoError;

/// Where a value sits, which changes the message for a container of the wrong type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A member of a structure.
    Field,
    /// An element of a list or a value of a map.
    Value,
}

const START_OF_STRUCTURE: &str = "Start of structure or map found where not expected";
const UNEXPECTED_FIELD: &str = "Unexpected field type";
const UNEXPECTED_VALUE: &str = "Unexpected value type in payload";
const BAD_BOOLEAN_TEXT: &str = "Unexpected token received from parser";
const NOT_BASE64_TEXT: &str = "only base-64-encoded strings are convertible to bytes";
/// What the service answers for a scalar where a list or map nested in a collection belongs.
const PARAMETERIZED_CAST: &str = "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to \
     class java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and java.lang.Class are in \
     module java.base of loader 'bootstrap')";
/// The package of DynamoDB's model classes, as collection messages name them.
pub(crate) const MODEL_PACKAGE: &str = "com.amazonaws.dynamodb.v20120810";

/// Checks the members of the request body, a structure.
pub(crate) fn check_body(body: &Map<String, Json>, input: &StructShape) -> Result<(), DynamoError> {
    check_struct(body, input)
}

fn fail(message: impl Into<String>) -> Result<(), DynamoError> {
    Err(DynamoError::serialization(message))
}

/// The token name the deserializer reports for a number: integers and decimals differ.
fn number_token(n: &Number) -> &'static str {
    if n.is_f64() { "DECIMAL_VALUE" } else { "NUMBER_VALUE" }
}

fn bool_token(b: bool) -> &'static str {
    if b { "TRUE_VALUE" } else { "FALSE_VALUE" }
}

/// The strings the service reads as booleans, compared without case.
pub(crate) fn text_as_bool(text: &str) -> Option<bool> {
    const TRUE: [&str; 3] = ["true", "yes", "1"];
    const FALSE: [&str; 3] = ["false", "no", "0"];
    if TRUE.iter().any(|t| t.eq_ignore_ascii_case(text)) {
        Some(true)
    } else if FALSE.iter().any(|t| t.eq_ignore_ascii_case(text)) {
        Some(false)
    } else {
        None
    }
}

fn check_value(json: &Json, shape: &Shape, place: Place) -> Result<(), DynamoError> {
    match shape {
        Shape::String(_) => match json {
            Json::Null | Json::String(_) => Ok(()),
            Json::Bool(b) => fail(format!("{} cannot be converted to String", bool_token(*b))),
            Json::Number(n) => fail(format!("{} cannot be converted to String", number_token(n))),
            Json::Array(_) => fail("Unrecognized collection type class java.lang.String"),
            Json::Object(_) => fail(START_OF_STRUCTURE),
        },
        Shape::Integer(_) => check_integer(json, "Integer"),
        Shape::Long(_) => check_integer(json, "Long"),
        Shape::Boolean => match json {
            Json::Null | Json::Bool(_) => Ok(()),
            Json::String(s) if text_as_bool(s).is_some() => Ok(()),
            Json::String(_) => fail(BAD_BOOLEAN_TEXT),
            Json::Number(n) => fail(format!("{} cannot be converted to Boolean", number_token(n))),
            Json::Array(_) => fail("Unrecognized collection type class java.lang.Boolean"),
            Json::Object(_) => fail(START_OF_STRUCTURE),
        },
        Shape::Blob => match json {
            Json::Null => Ok(()),
            Json::String(s) => base64::check(s).or_else(|problem| fail(problem.message())),
            Json::Bool(_) | Json::Number(_) => fail(NOT_BASE64_TEXT),
            Json::Array(_) => fail("Unrecognized collection type class java.nio.ByteBuffer"),
            Json::Object(_) => fail(START_OF_STRUCTURE),
        },
        Shape::List(list) => match json {
            Json::Null => Ok(()),
            Json::Array(items) => check_elements(items, list),
            Json::Object(_) => fail(START_OF_STRUCTURE),
            _ if place == Place::Field => fail(UNEXPECTED_FIELD),
            _ => fail(PARAMETERIZED_CAST),
        },
        Shape::Map(map) => match json {
            Json::Null => Ok(()),
            Json::Object(entries) => check_entries(entries, map),
            Json::Array(_) => {
                fail(format!("Unrecognized collection type java.util.Map<java.lang.String, {}>", map.java_value))
            }
            _ if place == Place::Field => fail(UNEXPECTED_FIELD),
            _ => fail(PARAMETERIZED_CAST),
        },
        Shape::Structure(shape) => check_struct_value(json, shape, place),
        Shape::AttrValue => check_struct_value(json, &ATTRIBUTE_VALUE, place),
    }
}

fn check_integer(json: &Json, java: &str) -> Result<(), DynamoError> {
    match json {
        Json::Null | Json::Number(_) => Ok(()),
        Json::String(_) => fail(format!("STRING_VALUE cannot be converted to {java}")),
        Json::Bool(b) => fail(format!("{} cannot be converted to {java}", bool_token(*b))),
        Json::Array(_) => fail(format!("Unrecognized collection type class java.lang.{java}")),
        Json::Object(_) => fail(START_OF_STRUCTURE),
    }
}

fn check_elements(items: &[Json], list: &ListShape) -> Result<(), DynamoError> {
    match list.member {
        // Plain strings need no walk: any JSON string is one, and the common case (a list of
        // attribute names) stays cheap.
        Shape::String(_) if items.iter().all(Json::is_string) => Ok(()),
        member => items.iter().try_for_each(|item| check_value(item, &member, Place::Value)),
    }
}

fn check_entries(entries: &Map<String, Json>, map: &MapShape) -> Result<(), DynamoError> {
    entries.values().try_for_each(|value| check_value(value, &map.value, Place::Value))
}

fn check_struct_value(json: &Json, shape: &StructShape, place: Place) -> Result<(), DynamoError> {
    match json {
        Json::Null => Ok(()),
        Json::Object(members) => check_struct(members, shape),
        Json::Array(_) => fail(format!("Unrecognized collection type class {MODEL_PACKAGE}.{}", shape.name)),
        _ if place == Place::Field => fail(UNEXPECTED_FIELD),
        _ => fail(UNEXPECTED_VALUE),
    }
}

/// Checks the members present, in the order the request sends them, as a streaming
/// deserializer meets them.
fn check_struct(members: &Map<String, Json>, shape: &StructShape) -> Result<(), DynamoError> {
    for (name, value) in members {
        if let Some(member) = find_member(shape.members, name) {
            check_value(value, &member.shape, Place::Field)?;
        }
    }
    Ok(())
}

/// The member of this JSON name, if the shape has one.
pub(crate) fn find_member<'m>(members: &'m [Member], name: &str) -> Option<&'m Member> {
    members.iter().find(|m| m.name.len() == name.len() && m.name == name)
}

const FREE_STRING: Shape = Shape::String(&StringRules::FREE);
static ATTR_STRINGS: ListShape = ListShape { member: FREE_STRING, len: Len::ANY };
static ATTR_BLOBS: ListShape = ListShape { member: Shape::Blob, len: Len::ANY };
static ATTR_LIST: ListShape = ListShape { member: Shape::AttrValue, len: Len::ANY };
/// A map of attribute values, as in `Item`, `Key` or `ExpressionAttributeValues`.
pub(crate) static ATTRIBUTE_MAP: MapShape = MapShape {
    value: Shape::AttrValue,
    java_value: "com.amazonaws.dynamodb.v20120810.AttributeValue",
    len: Len::ANY,
    keys: None,
    value_len: Len::ANY,
};

/// The members of an `AttributeValue`, one per data type.
static ATTRIBUTE_VALUE: StructShape = StructShape {
    name: "AttributeValue",
    members: &[
        Member::optional("S", "s", FREE_STRING),
        Member::optional("N", "n", FREE_STRING),
        Member::optional("B", "b", Shape::Blob),
        Member::optional("SS", "sS", Shape::List(&ATTR_STRINGS)),
        Member::optional("NS", "nS", Shape::List(&ATTR_STRINGS)),
        Member::optional("BS", "bS", Shape::List(&ATTR_BLOBS)),
        Member::optional("M", "m", Shape::Map(&ATTRIBUTE_MAP)),
        Member::optional("L", "l", Shape::List(&ATTR_LIST)),
        Member::optional("NULL", "nULL", Shape::Boolean),
        Member::optional("BOOL", "bOOL", Shape::Boolean),
    ],
};
