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
use super::shape::{Len, MapShape, Member, NumberRules, Pattern, Resolved, Shape, StringRules, StructShape};
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
}

impl Violations {
    fn full(&self) -> bool {
        self.messages.len() >= MAX_ERRORS
    }

    #[cold]
    #[inline(never)]
    fn push(&mut self, path: &Path<'_>, value: Option<&Json<'_>>, constraint: std::fmt::Arguments<'_>) {
        if self.full() {
            return;
        }
        let mut message = String::from("Value ");
        match value {
            None | Some(Json::Null) => message.push_str("null"),
            Some(json) => {
                message.push('\'');
                render(json, &mut message);
                message.push('\'');
            }
        }
        self.push_message(message, path, constraint);
    }

    /// A violation of a map's values: the service quotes the map as Java prints one,
    /// `{name=[...]}` (nubo-db's conformance suite, recorded against DynamoDB).
    #[cold]
    #[inline(never)]
    fn push_map(&mut self, path: &Path<'_>, entries: &Object<'_>, constraint: std::fmt::Arguments<'_>) {
        if self.full() {
            return;
        }
        let mut message = String::from("Value '{");
        for (i, (key, value)) in entries.iter().enumerate() {
            if i > 0 {
                message.push_str(", ");
            }
            message.push_str(key);
            message.push('=');
            render(value, &mut message);
        }
        message.push_str("}'");
        self.push_message(message, path, constraint);
    }

    /// A violation of a value already rendered as the message quotes it.
    #[cold]
    #[inline(never)]
    fn push_shown(&mut self, path: &Path<'_>, shown: &str, constraint: std::fmt::Arguments<'_>) {
        if self.full() {
            return;
        }
        self.push_message(format!("Value '{shown}'"), path, constraint);
    }

    fn push_message(&mut self, mut message: String, path: &Path<'_>, constraint: std::fmt::Arguments<'_>) {
        let _ = write!(message, " at '{path}' failed to satisfy constraint: ");
        if self.messages.is_empty() {
            self.first_constraint = message.len();
        }
        let _ = write!(message, "{constraint}");
        self.messages.push(message);
    }

    fn into_result(self) -> Result<(), DynamoError> {
        match self.messages.len() {
            0 => Ok(()),
            1 => Err(DynamoError::validation(format!("1 validation error detected: {}", self.messages[0]))),
            n => Err(DynamoError::validation(format!("{n} validation errors detected: {}", self.messages.join("; ")))),
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
pub(crate) fn check_body(body: &Resolved<'_>, input: &StructShape) -> Result<(), DynamoError> {
    let mut violations = Violations::default();
    let mut lone = None;
    for (index, member) in input.members.iter().enumerate() {
        if violations.full() {
            break;
        }
        let value = body.get(index).copied().flatten();
        let before = violations.messages.len();
        check_member(&mut violations, &Path::ROOT.then(Step::Member(member.path)), value, member);
        if let Some(name) = member.alone
            && before == 0
            && violations.messages.len() == 1
        {
            lone = Some(name);
        }
    }
    if let (Some(name), [message]) = (lone, violations.messages.as_slice()) {
        let constraint = &message[violations.first_constraint..];
        return Err(DynamoError::validation(format!(
            "1 validation error detected: Value at '{name}' failed to satisfy constraint: {constraint}"
        )));
    }
    violations.into_result()
}

fn check_struct(v: &mut Violations, path: &Path<'_>, members: &Object<'_>, shape: &StructShape) {
    for member in shape.members {
        if v.full() {
            return;
        }
        if !member.required && !member.shape.has_rules() {
            continue;
        }
        let value = rules::member(members, member.name).filter(|json| !json.is_null());
        check_member(v, &path.then(Step::Member(member.path)), value, member);
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
            let len = items.len() as u64;
            let breaks = list.len.min.is_some_and(|min| len < min) || list.len.max.is_some_and(|max| len > max);
            if breaks {
                match java_elements(items, &list.member) {
                    Some(shown) => check_len_shown(v, path, &shown, items.len(), list.len),
                    None => check_len(v, path, json, items.len(), list.len),
                }
            }
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
    if s.is_empty() && matches!(rules.pattern, Some(Pattern::TableName)) {
        v.push(path, Some(json), format_args!("Member must have length greater than or equal to 1"));
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
    if rules.len.is_set() {
        // ASCII, the common case, has as many UTF-16 units as bytes.
        let len = if s.is_ascii() { s.len() } else { s.encode_utf16().count() };
        check_len(v, path, json, len, rules.len);
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

/// A list of flat structures as Java prints it in a message, if that is what `items` is:
/// `[KeySchemaElement(attributeName=pk, keyType=HASH), ...]`, every member of the shape in its
/// order, `null` where the request has none (nubo-db's conformance suite, recorded against
/// DynamoDB, for `keySchema`). Lists of nested structures keep the JSON form.
fn java_elements(items: &[Json<'_>], member: &Shape) -> Option<String> {
    let Shape::Structure(shape) = member else { return None };
    let flat = |json: &Json<'_>| matches!(json, Json::Null | Json::String(_) | Json::Number(_) | Json::Bool(_));
    if !items.iter().all(|item| matches!(item, Json::Object(members) if members.values().all(flat))) {
        return None;
    }
    let mut out = String::from("[");
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
            render(rules::member(item.as_object()?, field.name).unwrap_or(&Json::Null), &mut out);
        }
        out.push(')');
    }
    out.push(']');
    Some(out)
}

/// [`check_len`] for a value already rendered as the message quotes it.
fn check_len_shown(v: &mut Violations, path: &Path<'_>, shown: &str, len: usize, rules: Len) {
    let len = len as u64;
    if let Some(min) = rules.min
        && len < min
    {
        v.push_shown(path, shown, format_args!("Member must have length greater than or equal to {min}"));
    }
    if let Some(max) = rules.max
        && len > max
    {
        v.push_shown(path, shown, format_args!("Member must have length less than or equal to {max}"));
    }
}

fn check_len(v: &mut Violations, path: &Path<'_>, json: &Json<'_>, len: usize, rules: Len) {
    let len = len as u64;
    if let Some(min) = rules.min
        && len < min
    {
        v.push(path, Some(json), format_args!("Member must have length greater than or equal to {min}"));
    }
    if let Some(max) = rules.max
        && len > max
    {
        v.push(path, Some(json), format_args!("Member must have length less than or equal to {max}"));
    }
}

fn check_map(v: &mut Violations, path: &Path<'_>, json: &Json<'_>, entries: &Object<'_>, map: &MapShape) {
    check_len(v, path, json, entries.len(), map.len);
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
                _ => continue,
            };
            if map.value_len.min.is_some_and(|min| len < min) || map.value_len.max.is_some_and(|max| len > max) {
                v.push_map(
                    path,
                    entries,
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
            if !value.is_null() {
                check_shape(v, &path.then(Step::Entry(key)), value, &map.value);
            }
        }
    }
}

fn key_is_valid(key: &str, rules: &StringRules) -> bool {
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
