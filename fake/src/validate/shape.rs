//! The little language the operation schemas are written in: the shapes of DynamoDB's input
//! members and the constraints DynamoDB's validator puts on them.
//!
//! A schema is `static` data. The type walker ([`super::types`]) reads the shapes, the
//! constraint walker ([`super::constraints`]) reads the rules; neither allocates while the
//! request is valid.

/// The shape of one JSON value of a request.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape {
    /// A JSON string, with its rules.
    String(&'static StringRules),
    /// A 32-bit integer (`java.lang.Integer` in the service's messages).
    Integer(&'static NumberRules),
    /// A 64-bit integer (`java.lang.Long`).
    Long(&'static NumberRules),
    /// A boolean (strings such as `"true"` are read as booleans too).
    Boolean,
    /// Base64 text.
    Blob,
    /// A point in time: epoch seconds, as the JSON protocol sends a timestamp (`java.util.Date`
    /// in the service's messages).
    Timestamp,
    /// A JSON array.
    List(&'static ListShape),
    /// A JSON object with free keys.
    Map(&'static MapShape),
    /// A JSON object with named members.
    Structure(&'static StructShape),
    /// An `AttributeValue`: a structure whose types are checked here but whose contents the
    /// engine validates when it reads the value.
    AttrValue,
}

/// A length range, in UTF-16 code units for strings (as `java.lang.String::length` counts),
/// in elements for lists and maps.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Len {
    /// The smallest length allowed.
    pub(crate) min: Option<u64>,
    /// The largest length allowed.
    pub(crate) max: Option<u64>,
    /// For a member that is also allowed in a second form with a smaller least length: the
    /// least length an empty value is reported to break, alone, with no pattern checked.
    pub(crate) empty_breaks: Option<u64>,
}

impl Len {
    /// No length constraint.
    pub(crate) const ANY: Len = Len { min: None, max: None, empty_breaks: None };

    /// A length between `min` and `max`, both inclusive.
    pub(crate) const fn between(min: u64, max: u64) -> Len {
        Len { min: Some(min), max: Some(max), empty_breaks: None }
    }

    /// A length of at least `min`.
    pub(crate) const fn at_least(min: u64) -> Len {
        Len { min: Some(min), max: None, empty_breaks: None }
    }

    /// The same range, except that an empty value breaks only a least length of `least`: a data
    /// plane table name may also be a table's ARN, whose least length is 1.
    pub(crate) const fn empty_breaks_only(self, least: u64) -> Len {
        Len { empty_breaks: Some(least), ..self }
    }

    /// Whether any bound is set.
    pub(crate) const fn is_set(&self) -> bool {
        self.min.is_some() || self.max.is_some()
    }
}

/// The regular expressions DynamoDB's validator uses, each with the text it quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pattern {
    /// `[a-zA-Z0-9_.-]+`: index names.
    Name,
    /// A table name, `[a-zA-Z0-9_.-]+` as the messages quote it, or a table's ARN, which
    /// DynamoDB takes wherever it takes a table's name (and holds to no name length).
    TableName,
    /// An S3 bucket's name: letters and digits at both ends, `.`, `-` and word characters between.
    S3Bucket,
    /// An account id: twelve digits.
    AccountId,
    /// A client token: no `$`.
    ClientToken,
    /// The delimiter of a CSV file: one of `,;:|`, a tab or a space.
    CsvDelimiter,
    /// A CSV header: printable ASCII but `"` and `,`.
    CsvHeader,
    /// A page token of ListImports: groups of sixteen lowercase hexadecimal digits.
    HexGroups,
}

impl Pattern {
    /// The pattern as the message quotes it.
    pub(crate) const fn text(self) -> &'static str {
        match self {
            Pattern::Name | Pattern::TableName => "[a-zA-Z0-9_.-]+",
            Pattern::S3Bucket => r"^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$",
            Pattern::AccountId => "[0-9]{12}",
            Pattern::ClientToken => r"^[^\$]+$",
            Pattern::CsvDelimiter => r"[,;:|\t ]",
            Pattern::CsvHeader => r"[\x20-\x21\x23-\x2B\x2D-\x7E]*",
            Pattern::HexGroups => "([0-9a-f]{16})+",
        }
    }

    /// Whether the whole of `s` matches.
    pub(crate) fn matches(self, s: &str) -> bool {
        match self {
            Pattern::Name => crate::table::is_name(s),
            Pattern::TableName => Pattern::Name.matches(s) || self.is_arn(s),
            Pattern::S3Bucket => {
                let end = |b: u8| b.is_ascii_alphanumeric();
                let middle = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_');
                let bytes = s.as_bytes();
                bytes.len() >= 2
                    && bytes.first().copied().is_some_and(end)
                    && bytes.last().copied().is_some_and(end)
                    && bytes.iter().all(|&b| middle(b))
            }
            Pattern::AccountId => s.len() == 12 && s.bytes().all(|b| b.is_ascii_digit()),
            Pattern::ClientToken => !s.is_empty() && !s.contains('$'),
            Pattern::CsvDelimiter => matches!(s, "," | ";" | ":" | "|" | "\t" | " "),
            Pattern::CsvHeader => s.bytes().all(|b| matches!(b, 0x20..=0x21 | 0x23..=0x2B | 0x2D..=0x7E)),
            Pattern::HexGroups => {
                !s.is_empty()
                    && s.len() % 16 == 0
                    && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            }
        }
    }

    /// Whether `s` is a table's ARN under a pattern that takes one, which no name length binds.
    pub(crate) fn is_arn(self, s: &str) -> bool {
        self == Pattern::TableName && s.len() <= 1024 && crate::table::name_in_arn(s).is_some()
    }
}

/// The rules on a string member, checked in this order: enum, pattern, minimum and maximum length.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StringRules {
    /// The allowed values, in the order the message lists them; empty for any value.
    pub(crate) one_of: &'static [&'static str],
    /// The pattern the whole string must match.
    pub(crate) pattern: Option<Pattern>,
    /// The length range.
    pub(crate) len: Len,
}

impl StringRules {
    /// A string without rules.
    pub(crate) const FREE: StringRules = StringRules { one_of: &[], pattern: None, len: Len::ANY };

    /// A string that must be one of `values`.
    pub(crate) const fn one_of(values: &'static [&'static str]) -> StringRules {
        StringRules { one_of: values, pattern: None, len: Len::ANY }
    }

    /// Whether the string has any rule at all.
    pub(crate) const fn is_free(&self) -> bool {
        self.one_of.is_empty() && self.pattern.is_none() && !self.len.is_set()
    }
}

/// The range of an integer member, both ends inclusive.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NumberRules {
    /// The smallest value allowed.
    pub(crate) min: Option<i64>,
    /// The largest value allowed.
    pub(crate) max: Option<i64>,
}

impl NumberRules {
    /// Any integer.
    pub(crate) const FREE: NumberRules = NumberRules { min: None, max: None };
}

/// A list and its element shape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListShape {
    /// The shape of every element.
    pub(crate) member: Shape,
    /// The number of elements allowed.
    pub(crate) len: Len,
}

/// A map with free keys and one value shape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MapShape {
    /// The shape of every value.
    pub(crate) value: Shape,
    /// The Java type of the values, as `Unrecognized collection type java.util.Map<...>` names it.
    pub(crate) java_value: &'static str,
    /// The number of entries allowed.
    pub(crate) len: Len,
    /// Rules every key must satisfy (`Map keys must satisfy constraint: [...]`).
    pub(crate) keys: Option<&'static StringRules>,
    /// The length every value (a list) must have (`Map value must satisfy constraint: [...]`).
    pub(crate) value_len: Len,
}

/// A structure: named members, in the order DynamoDB's validator visits them.
#[derive(Debug)]
pub(crate) struct StructShape {
    /// The simple name of the Java class, e.g. `KeySchemaElement`.
    pub(crate) name: &'static str,
    /// The members.
    pub(crate) members: &'static [Member],
}

/// The most members an operation's input may have: the top-level members are resolved into a
/// stack array of this size.
pub(crate) const MAX_MEMBERS: usize = 24;

/// The values of the members of a request body, by their index in the schema; `None` for an
/// absent or null member.
pub(crate) type Resolved<'a> = [Option<&'a crate::json::Json<'a>>; MAX_MEMBERS];

/// A member of a structure.
#[derive(Debug)]
pub(crate) struct Member {
    /// The JSON key, e.g. `TableName`.
    pub(crate) name: &'static str,
    /// The name in a constraint message's path, e.g. `tableName`.
    pub(crate) path: &'static str,
    /// The member's shape.
    pub(crate) shape: Shape,
    /// Whether DynamoDB answers `Member must not be null` when it is absent.
    pub(crate) required: bool,
    /// Whether DynamoDB words the member's violation apart when it is the only one of the
    /// request: by the request's own names and without the value, `Value at 'Limit' failed to
    /// satisfy constraint: ...` (Query's `Limit`, BatchGetItem's `RequestItems.<t>.member.Keys`).
    pub(crate) alone: bool,
}

impl Member {
    /// An optional member.
    pub(crate) const fn optional(name: &'static str, path: &'static str, shape: Shape) -> Member {
        Member { name, path, shape, required: false, alone: false }
    }

    /// The same member, its violation worded apart when it is the only one ([`Member::alone`]).
    pub(crate) const fn worded_alone(self) -> Member {
        Member { alone: true, ..self }
    }

    /// A member that must not be null.
    pub(crate) const fn required(name: &'static str, path: &'static str, shape: Shape) -> Member {
        Member { name, path, shape, required: true, alone: false }
    }
}

impl Shape {
    /// Whether the constraint walker has anything to check in a value of this shape; lets it
    /// skip the elements of lists and maps of plain values (items, attribute names, ...).
    pub(crate) fn has_rules(&self) -> bool {
        match self {
            Shape::String(rules) => !rules.is_free(),
            Shape::Integer(rules) | Shape::Long(rules) => rules.min.is_some() || rules.max.is_some(),
            Shape::Boolean | Shape::Blob | Shape::Timestamp | Shape::AttrValue => false,
            Shape::List(list) => list.len.is_set() || list.member.has_rules(),
            Shape::Map(map) => {
                map.len.is_set() || map.keys.is_some() || map.value_len.is_set() || map.value.has_rules()
            }
            Shape::Structure(_) => true,
        }
    }
}
