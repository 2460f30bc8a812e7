//! The second check of a request: the constraints of its members (`Member must not be null`,
//! enums, patterns, lengths, ranges). DynamoDB reports up to ten of them in one
//! `ValidationException`: `2 validation errors detected: Value null at 'tableName' failed to
//! satisfy constraint: Member must not be null; ...`.
//!
//! Members are visited in the order of the schema, map entries in the order of the request, as
//! the service lists them (dynalite's current Query suite: of `keyConditions` `a` and `b`, only
//! `a` fits in the ten).

use std::fmt::Write as _;

use crate::json::{Json, Object};

use super::path::{Path, Step};
use super::rules;
use super::shape::{Len, MapShape, Member, NumberRules, Resolved, Shape, StringRules, StructShape};
use super::types::same_name;
use crate::error::DynamoError;

/// The most constraint violations one message reports.
const MAX_ERRORS: usize = 10;

/// Collects violations; allocates only once there is one.
#[derive(Debug, Default)]
struct Violations {
    messages: Vec<String>,
    /// Where the constraint starts in the first message.
    first_constraint: usize,
    /// The first message's path by the request's names, if it is worded apart when alone.
    first_alone: Option<String>,
}

impl Violations {
    fn full(&self) -> bool {
        self.messages.len() >= MAX_ERRORS
    }

    fn push(&mut self, path: &Path<'_>, value: Option<&Json<'_>>, constraint: std::fmt::Arguments<'_>) {
        self.push_quoted(path, |out| quote(value, out), constraint);
    }

    /// A violation whose value `quote` writes as the message quotes it.
    #[cold]
    #[inline(never)]
    fn push_quoted(&mut self, path: &Path<'_>, quote: impl FnOnce(&mut String), constraint: std::fmt::Arguments<'_>) {
        if self.full() {
            return;
        }
        let mut message = String::from("Value ");
        quote(&mut message);
        let _ = write!(message, " at '{path}' failed to satisfy constraint: ");
        if self.messages.is_empty() {
            self.first_constraint = message.len();
            self.first_alone = path.named_alone();
        }
        let _ = write!(message, "{constraint}");
        self.messages.push(message);
    }

    fn into_result(self) -> Result<(), DynamoError> {
        if let (Some(name), [message]) = (&self.first_alone, self.messages.as_slice()) {
            let constraint = &message[self.first_constraint..];
            return Err(DynamoError::validation(format!(
                "1 validation error detected: Value at '{name}' failed to satisfy constraint: {constraint}"
            )));
        }
        match self.messages.len() {
            0 => Ok(()),
            1 => Err(DynamoError::validation(format!("1 validation error detected: {}", self.messages[0]))),
            n => Err(DynamoError::validation(format!("{n} validation errors detected: {}", self.messages.join("; ")))),
        }
    }
}

/// Writes a value as a message quotes it: `null`, or the rendered value in single quotes.
fn quote(value: Option<&Json<'_>>, out: &mut String) {
    match value {
        None | Some(Json::Null) => out.push_str("null"),
        Some(json) => {
            out.push('\'');
            render(json, out);
            out.push('\'');
        }
    }
}

/// Renders a value as the messages quote it: strings bare, lists as `[a, b]`, objects as JSON.
pub(crate) fn render(json: &Json<'_>, out: &mut String) {
    match json {
        Json::Null => out.push_str("null"),
        Json::String(s) => out.push_str(s),
        Json::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Json::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                render(item, out);
            }
            out.push(']');
        }
        Json::Object(_) => {
            let _ = write!(out, "{json}");
        }
    }
}

/// The integer value of a JSON number as the service reads an `Integer` or `Long`: decimals
/// are rounded down.
pub(crate) fn integer_of(json: &Json<'_>) -> Option<i128> {
    let Json::Number(n) = json else { return None };
    if let Some(i) = n.as_i64() {
        Some(i128::from(i))
    } else if let Some(u) = n.as_u64() {
        Some(i128::from(u))
    } else {
        // `as` saturates, which is what a value beyond any range needs here.
        n.as_f64().map(|f| f.floor() as i128)
    }
}

/// Checks every constraint of the body and reports the first ten violations.
pub(crate) fn check_body(body: &Resolved<'_>, input: &'static StructShape) -> Result<(), DynamoError> {
    let mut violations = Violations::default();
    for (index, member) in input.members.iter().enumerate() {
        if violations.full() {
            break;
        }
        let value = body.get(index).copied().flatten();
        check_member(&mut violations, &Path::ROOT.then(Step::Member(member)), value, member);
    }
    violations.into_result()
}

/// Checks the constraints of one member of the body, `name`, and reports its violations alone.
pub(crate) fn check_member_alone(
    body: &Resolved<'_>,
    input: &'static StructShape,
    name: &str,
) -> Result<(), DynamoError> {
    let mut violations = Violations::default();
    if let Some(index) = input.members.iter().position(|member| member.name == name) {
        let (member, value) = (&input.members[index], body.get(index).copied().flatten());
        check_member(&mut violations, &Path::ROOT.then(Step::Member(member)), value, member);
    }
    violations.into_result()
}

fn check_struct(v: &mut Violations, path: &Path<'_>, members: &Object<'_>, shape: &'static StructShape) {
    for member in shape.members {
        if v.full() {
            return;
        }
        if !member.required && !member.shape.has_rules() {
            continue;
        }
        let value = rules::member(members, member.name).filter(|json| !json.is_null());
        check_member(v, &path.then(Step::Member(member)), value, member);
    }
}

fn check_member(v: &mut Violations, path: &Path<'_>, value: Option<&Json<'_>>, member: &Member) {
    match value {
        None if member.required => v.push(path, None, format_args!("Member must not be null")),
        None => {}
        Some(json) => check_shape(v, path, json, &member.shape),
    }
}

fn check_shape(v: &mut Violations, path: &Path<'_>, json: &Json<'_>, shape: &Shape) {
    match (shape, json) {
        (Shape::String(rules), Json::String(s)) => check_string(v, path, json, s, rules),
        (Shape::Integer(rules) | Shape::Long(rules), Json::Number(_)) => check_number(v, path, json, rules),
        (Shape::List(list), Json::Array(items)) => {
            check_len(v, path, items.len(), list.len, |out| quote_list(json, items, &list.member, out));
            if list.member.has_rules() {
                for (i, item) in items.iter().enumerate() {
                    if v.full() {
                        return;
                    }
                    if !item.is_null() {
                        check_shape(v, &path.then(Step::Element(i)), item, &list.member);
                    }
                }
            }
        }
        (Shape::Map(map), Json::Object(entries)) => check_map(v, path, json, entries, map),
        (Shape::Structure(shape), Json::Object(members)) => check_struct(v, path, members, shape),
        _ => {}
    }
}

fn check_string(v: &mut Violations, path: &Path<'_>, json: &Json<'_>, s: &str, rules: &StringRules) {
    if s.is_empty()
        && let Some(least) = rules.len.empty_breaks
    {
        v.push(path, Some(json), format_args!("Member must have length greater than or equal to {least}"));
        return;
    }
    if !rules.one_of.is_empty() && !rules.one_of.iter().any(|allowed| same_name(allowed, s)) {
        v.push(path, Some(json), format_args!("Member must satisfy enum value set: [{}]", rules.one_of.join(", ")));
    }
    if let Some(pattern) = rules.pattern
        && !pattern.matches(s)
    {
        let message = format_args!("Member must satisfy regular expression pattern: {}", pattern.text());
        v.push(path, Some(json), message);
    }
    if rules.len.is_set() && !rules.pattern.is_some_and(|p| p.is_arn(s)) {
        // ASCII, the common case, has as many UTF-16 units as bytes.
        let len = if s.is_ascii() { s.len() } else { s.encode_utf16().count() };
        check_len(v, path, len, rules.len, |out| quote(Some(json), out));
    }
}

fn check_number(v: &mut Violations, path: &Path<'_>, json: &Json<'_>, rules: &NumberRules) {
    let Some(n) = integer_of(json) else { return };
    // The message quotes the integer the service read, a decimal rounded down.
    let shown = || Json::Number(i64::try_from(n).unwrap_or(if n < 0 { i64::MIN } else { i64::MAX }).into());
    if let Some(min) = rules.min
        && n < i128::from(min)
    {
        v.push(path, Some(&shown()), format_args!("Member must have value greater than or equal to {min}"));
    }
    if let Some(max) = rules.max
        && n > i128::from(max)
    {
        v.push(path, Some(&shown()), format_args!("Member must have value less than or equal to {max}"));
    }
}

/// Quotes a list that breaks its length. A list of flat structures is quoted as Java prints it:
/// `[KeySchemaElement(attributeName=pk, keyType=HASH), ...]`, every member of the shape in its
/// order, `null` where the request has none (nubo-db's conformance suite, recorded against
/// DynamoDB, for `keySchema`); any other list keeps the JSON form.
fn quote_list(json: &Json<'_>, items: &[Json<'_>], member: &Shape, out: &mut String) {
    let flat = |json: &Json<'_>| matches!(json, Json::Null | Json::String(_) | Json::Number(_) | Json::Bool(_));
    let Shape::Structure(shape) = member else { return quote(Some(json), out) };
    if !items.iter().all(|item| matches!(item, Json::Object(o) if o.values().all(flat))) {
        return quote(Some(json), out);
    }
    out.push_str("'[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{}(", shape.name);
        for (j, field) in shape.members.iter().enumerate() {
            if j > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{}=", field.path);
            let value = item.as_object().and_then(|members| rules::member(members, field.name));
            render(value.unwrap_or(&Json::Null), out);
        }
        out.push(')');
    }
    out.push_str("]'");
}

/// Quotes a map as Java prints one, `'{name=[...]}'`, as DynamoDB quotes BatchWriteItem's
/// `RequestItems` (nubo-db's conformance suite).
fn quote_java_map(entries: &Object<'_>, out: &mut String) {
    out.push_str("'{");
    for (i, (key, value)) in entries.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(key);
        out.push('=');
        render(value, out);
    }
    out.push_str("}'");
}

/// Checks a length against its rules; `quote` writes the value if a message needs it.
fn check_len(v: &mut Violations, path: &Path<'_>, len: usize, rules: Len, quote: impl Fn(&mut String)) {
    let len = len as u64;
    if let Some(min) = rules.min
        && len < min
    {
        v.push_quoted(path, &quote, format_args!("Member must have length greater than or equal to {min}"));
    }
    if let Some(max) = rules.max
        && len > max
    {
        v.push_quoted(path, &quote, format_args!("Member must have length less than or equal to {max}"));
    }
}

fn check_map(v: &mut Violations, path: &Path<'_>, json: &Json<'_>, entries: &Object<'_>, map: &MapShape) {
    check_len(v, path, entries.len(), map.len, |out| quote(Some(json), out));
    if let Some(keys) = map.keys {
        for key in entries.keys() {
            if !key_is_valid(key, keys) {
                v.push(path, Some(json), format_args!("Map keys must satisfy constraint: [{}]", KeyRules(keys)));
            }
        }
    }
    if map.value_len.is_set() {
        for value in entries.values() {
            let len = match value {
                Json::Array(items) => items.len() as u64,
                // A key given no list at all holds none.
                Json::Null => 0,
                _ => continue,
            };
            if map.value_len.min.is_some_and(|min| len < min) || map.value_len.max.is_some_and(|max| len > max) {
                v.push_quoted(
                    path,
                    |out| quote_java_map(entries, out),
                    format_args!("Map value must satisfy constraint: [{}]", LenRules(map.value_len)),
                );
            }
        }
    }
    if map.value.has_rules() {
        for (key, value) in entries.iter() {
            if v.full() {
                return;
            }
            match (value, &map.value) {
                // A key given no structure at all lacks every member the structure needs.
                (Json::Null, Shape::Structure(shape)) => {
                    check_struct(v, &path.then(Step::Entry(key)), &Object::default(), shape);
                }
                (Json::Null, _) => {}
                (value, shape) => check_shape(v, &path.then(Step::Entry(key)), value, shape),
            }
        }
    }
}

fn key_is_valid(key: &str, rules: &StringRules) -> bool {
    if rules.pattern.is_some_and(|p| p.is_arn(key)) {
        return true;
    }
    let len = key.encode_utf16().count() as u64;
    rules.len.min.is_none_or(|min| len >= min)
        && rules.len.max.is_none_or(|max| len <= max)
        && rules.pattern.is_none_or(|p| p.matches(key))
}

/// The rules on map keys as `Map keys must satisfy constraint: [...]` lists them.
struct KeyRules(&'static StringRules);

impl std::fmt::Display for KeyRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        LenRules(self.0.len).fmt(f)?;
        if let Some(pattern) = self.0.pattern {
            if self.0.len.is_set() {
                f.write_str(", ")?;
            }
            write!(f, "Member must satisfy regular expression pattern: {}", pattern.text())?;
        }
        Ok(())
    }
}

/// A length range as the map messages list it: the maximum first.
struct LenRules(Len);

impl std::fmt::Display for LenRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(max) = self.0.max {
            write!(f, "Member must have length less than or equal to {max}")?;
            if self.0.min.is_some() {
                f.write_str(", ")?;
            }
        }
        if let Some(min) = self.0.min {
            write!(f, "Member must have length greater than or equal to {min}")?;
        }
        Ok(())
    }
}
