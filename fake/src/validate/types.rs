//! The first check of a request: does each member have the JSON type its shape wants? DynamoDB's
//! deserializer answers the first mismatch with a `SerializationException` whose message depends
//! on the token it met, on the type it wanted, and on whether the value sits in a member of a
//! structure ("field") or in an element of a list or map ("value").
//!
//! A JSON `null` anywhere counts as an absent member; unknown members are ignored.
//!
//! The walk reports a [`Mismatch`], a small value; only the caller turns it into a message, so
//! the recursive functions stay lean.

use crate::json::{Json, Object};

use super::base64::{self, Base64Problem};
use super::shape::{Len, ListShape, MAX_MEMBERS, MapShape, Member, Resolved, Shape, StringRules, StructShape};
use crate::error::DynamoError;

/// Where a value sits, which changes the message for a container of the wrong type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A member of a structure.
    Field,
    /// An element of a list or a value of a map.
    Value,
}

/// The first type mismatch of a request.
#[derive(Debug, Clone, Copy)]
enum Mismatch {
    /// A message without parameters.
    Fixed(&'static str),
    /// `<TOKEN> cannot be converted to <Type>`.
    Token(&'static str, &'static str),
    /// `Unrecognized collection type class <package>.<Class>`.
    Collection(&'static str, &'static str),
    /// `Unrecognized collection type java.util.Map<java.lang.String, <value type>>`.
    MapCollection(&'static str),
    /// A `Blob` text that is not base64.
    Base64(Base64Problem),
}

impl Mismatch {
    #[cold]
    #[inline(never)]
    fn into_error(self) -> DynamoError {
        DynamoError::serialization(match self {
            Mismatch::Fixed(message) => message.to_owned(),
            Mismatch::Token(token, target) => format!("{token} cannot be converted to {target}"),
            Mismatch::Collection(package, class) => format!("Unrecognized collection type class {package}.{class}"),
            Mismatch::MapCollection(value) => {
                format!("Unrecognized collection type java.util.Map<java.lang.String, {value}>")
            }
            Mismatch::Base64(problem) => problem.message(),
        })
    }
}

type Checked = Result<(), Mismatch>;

const START_OF_STRUCTURE: Mismatch = Mismatch::Fixed("Start of structure or map found where not expected");
const UNEXPECTED_FIELD: Mismatch = Mismatch::Fixed("Unexpected field type");
const UNEXPECTED_VALUE: Mismatch = Mismatch::Fixed("Unexpected value type in payload");
const BAD_BOOLEAN_TEXT: Mismatch = Mismatch::Fixed("Unexpected token received from parser");
const NOT_BASE64_TEXT: Mismatch = Mismatch::Fixed("only base-64-encoded strings are convertible to bytes");
/// What the service answers for a scalar where a list or map nested in a collection belongs.
const PARAMETERIZED_CAST: Mismatch = Mismatch::Fixed(
    "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to class java.lang.Class \
     (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and java.lang.Class are in module java.base of \
     loader 'bootstrap')",
);
/// The package of DynamoDB's model classes, as collection messages name them.
const MODEL_PACKAGE: &str = "com.amazonaws.dynamodb.v20120810";

/// Checks the members of the request body, a structure, and resolves them for the constraint
/// walk.
pub(crate) fn check_body<'a>(body: &'a Object<'a>, input: &StructShape) -> Result<Resolved<'a>, DynamoError> {
    let mut resolved: Resolved<'a> = [None; MAX_MEMBERS];
    for (name, value) in body {
        let Some(index) = input.members.iter().position(|m| same_name(m.name, name)) else {
            continue;
        };
        check_value(value, &input.members[index].shape, Place::Field).map_err(Mismatch::into_error)?;
        if let Some(slot) = resolved.get_mut(index)
            && !value.is_null()
        {
            *slot = Some(value);
        }
    }
    Ok(resolved)
}

/// The token name the deserializer reports for a scalar of the wrong type.
fn token(json: &Json<'_>) -> &'static str {
    match json {
        Json::Bool(true) => "TRUE_VALUE",
        Json::Bool(false) => "FALSE_VALUE",
        Json::Number(n) if n.is_f64() => "DECIMAL_VALUE",
        Json::Number(_) => "NUMBER_VALUE",
        _ => "STRING_VALUE",
    }
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

fn check_value(json: &Json<'_>, shape: &Shape, place: Place) -> Checked {
    if json.is_null() {
        return Ok(());
    }
    match shape {
        Shape::String(_) => match json {
            Json::String(_) => Ok(()),
            Json::Array(_) => Err(Mismatch::Collection("java.lang", "String")),
            Json::Object(_) => Err(START_OF_STRUCTURE),
            scalar => Err(Mismatch::Token(token(scalar), "String")),
        },
        Shape::Integer(_) => check_integer(json, "Integer"),
        Shape::Long(_) => check_integer(json, "Long"),
        Shape::Timestamp => match json {
            Json::Number(_) => Ok(()),
            Json::Array(_) => Err(Mismatch::Collection("java.util", "Date")),
            Json::Object(_) => Err(START_OF_STRUCTURE),
            scalar => Err(Mismatch::Token(token(scalar), "Date")),
        },
        Shape::Boolean => match json {
            Json::Bool(_) => Ok(()),
            Json::String(s) if text_as_bool(s).is_some() => Ok(()),
            Json::String(_) => Err(BAD_BOOLEAN_TEXT),
            Json::Array(_) => Err(Mismatch::Collection("java.lang", "Boolean")),
            Json::Object(_) => Err(START_OF_STRUCTURE),
            scalar => Err(Mismatch::Token(token(scalar), "Boolean")),
        },
        Shape::Blob => match json {
            Json::String(s) => base64::check(s).map_err(Mismatch::Base64),
            Json::Array(_) => Err(Mismatch::Collection("java.nio", "ByteBuffer")),
            Json::Object(_) => Err(START_OF_STRUCTURE),
            _ => Err(NOT_BASE64_TEXT),
        },
        Shape::List(list) => match json {
            Json::Array(items) => check_elements(items, list),
            Json::Object(_) => Err(START_OF_STRUCTURE),
            _ if place == Place::Field => Err(UNEXPECTED_FIELD),
            _ => Err(PARAMETERIZED_CAST),
        },
        Shape::Map(map) => match json {
            Json::Object(entries) => check_entries(entries, map),
            Json::Array(_) => Err(Mismatch::MapCollection(map.java_value)),
            _ if place == Place::Field => Err(UNEXPECTED_FIELD),
            _ => Err(PARAMETERIZED_CAST),
        },
        Shape::Structure(shape) => match json {
            Json::Object(members) => check_struct(members, shape),
            other => struct_mismatch(other, shape.name, place),
        },
        Shape::AttrValue => match json {
            Json::Object(members) => check_attribute_value(members),
            other => struct_mismatch(other, ATTRIBUTE_VALUE.name, place),
        },
    }
}

fn struct_mismatch(json: &Json<'_>, class: &'static str, place: Place) -> Checked {
    match json {
        Json::Array(_) => Err(Mismatch::Collection(MODEL_PACKAGE, class)),
        _ if place == Place::Field => Err(UNEXPECTED_FIELD),
        _ => Err(UNEXPECTED_VALUE),
    }
}

fn check_integer(json: &Json<'_>, java: &'static str) -> Checked {
    match json {
        Json::Number(_) => Ok(()),
        Json::Array(_) => Err(Mismatch::Collection("java.lang", java)),
        Json::Object(_) => Err(START_OF_STRUCTURE),
        scalar => Err(Mismatch::Token(token(scalar), java)),
    }
}

fn check_elements(items: &[Json<'_>], list: &ListShape) -> Checked {
    match list.member {
        // Plain strings need no walk: any JSON string is one, and the common case (a list of
        // attribute names) stays cheap.
        Shape::String(_) if items.iter().all(Json::is_string) => Ok(()),
        member => items.iter().try_for_each(|item| check_value(item, &member, Place::Value)),
    }
}

fn check_entries(entries: &Object<'_>, map: &MapShape) -> Checked {
    match map.value {
        Shape::AttrValue => entries.values().try_for_each(|value| match value {
            Json::Object(members) => check_attribute_value(members),
            other => check_value(other, &Shape::AttrValue, Place::Value),
        }),
        Shape::String(_) if entries.values().all(Json::is_string) => Ok(()),
        value => entries.values().try_for_each(|entry| check_value(entry, &value, Place::Value)),
    }
}

/// Checks the members present, in the order the request sends them, as a streaming
/// deserializer meets them.
fn check_struct(members: &Object<'_>, shape: &StructShape) -> Checked {
    for (name, value) in members {
        if let Some(member) = find_member(shape.members, name) {
            check_value(value, &member.shape, Place::Field)?;
        }
    }
    Ok(())
}

/// The members of an attribute value. Items hold most of a request's values, so this is the
/// schema walk of [`ATTRIBUTE_VALUE`] written out by hand: matching the short type names as
/// literals lets the compiler compare them inline, and a string or a boolean needs no call.
fn check_attribute_value(members: &Object<'_>) -> Checked {
    for (name, value) in members {
        // Byte patterns compile to inline comparisons, where string literals would call memcmp.
        let shape = match (name.as_bytes(), value) {
            ([b'S' | b'N'], Json::String(_)) | ([b'B', b'O', b'O', b'L'] | [b'N', b'U', b'L', b'L'], Json::Bool(_)) => {
                continue;
            }
            ([b'S' | b'N'], _) => FREE_STRING,
            ([b'B'], _) => Shape::Blob,
            // Unlike a boolean member of a request, an attribute value's boolean may not be a text
            // that names one: every text is refused as one that names none is.
            ([b'B', b'O', b'O', b'L'] | [b'N', b'U', b'L', b'L'], Json::String(_)) => return Err(BAD_BOOLEAN_TEXT),
            ([b'B', b'O', b'O', b'L'] | [b'N', b'U', b'L', b'L'], _) => Shape::Boolean,
            ([b'S' | b'N', b'S'], _) => Shape::List(&ATTR_STRINGS),
            ([b'B', b'S'], _) => Shape::List(&ATTR_BLOBS),
            ([b'L'], _) => Shape::List(&ATTR_LIST),
            ([b'M'], _) => Shape::Map(&ATTRIBUTE_MAP),
            _ => continue,
        };
        check_value(value, &shape, Place::Field)?;
    }
    Ok(())
}

/// The member of this JSON name, if the shape has one.
pub(crate) fn find_member<'m>(members: &'m [Member], name: &str) -> Option<&'m Member> {
    members.iter().find(|m| same_name(m.name, name))
}

/// String equality for member names: rules out most names by length and their last byte
/// (`ExpressionAttributeNames` and `...Values` share their first 20) before comparing them.
#[inline]
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.as_bytes().last() == b.as_bytes().last() && a == b
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

/// The members of an `AttributeValue`, one per data type. The walk uses
/// [`check_attribute_value`]; the schema names the class for the messages and documents the
/// shape.
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
