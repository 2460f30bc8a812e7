//! Where a value sits in the request, as a constraint message names it: `keySchema.1.member.keyType`,
//! `requestItems.abc.member.keys`. A path lives on the walker's stack and is only rendered when
//! a message needs it.

use std::fmt;

use super::shape::Member;

/// One step from the parent to a value.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'a> {
    /// A member of a structure: its message name (`tableName`), or its request name (`TableName`)
    /// where DynamoDB words a lone violation apart.
    Member(&'static Member),
    /// An element of a list, zero-based here and one-based in the message (`.1.member`).
    Element(usize),
    /// The value under a key of a map (`.abc.member`).
    Entry(&'a str),
}

/// A path: a step and the path of the parent, or the request itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    step: Option<Step<'a>>,
}

impl<'a> Path<'a> {
    /// The request body itself.
    pub(crate) const ROOT: Path<'static> = Path { parent: None, step: None };

    /// The path one step further.
    pub(crate) fn then(&'a self, step: Step<'a>) -> Path<'a> {
        Path { parent: Some(self), step: Some(step) }
    }

    /// The path with the request's own member names (`RequestItems.abc.member.Keys`), if it ends
    /// at a member whose lone violation DynamoDB words that way ([`Member::alone`]).
    pub(crate) fn named_alone(&self) -> Option<String> {
        match self.step {
            Some(Step::Member(member)) if member.alone => {
                let mut out = String::new();
                let _ = self.write(&mut out, |member| member.name);
                Some(out)
            }
            _ => None,
        }
    }

    fn write(&self, f: &mut impl fmt::Write, name: fn(&Member) -> &'static str) -> fmt::Result {
        if let Some(parent) = self.parent {
            parent.write(f, name)?;
        }
        let at_root = self.parent.is_none_or(|p| p.step.is_none());
        match self.step {
            None => Ok(()),
            Some(Step::Member(member)) if at_root => f.write_str(name(member)),
            Some(Step::Member(member)) => write!(f, ".{}", name(member)),
            Some(Step::Element(index)) => write!(f, ".{}.member", index + 1),
            Some(Step::Entry(key)) => write!(f, ".{key}.member"),
        }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, |member| member.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::validate::schema::common::STRING;

    static ITEMS: Member = Member::required("RequestItems", "requestItems", STRING);
    static DELETE: Member = Member::optional("DeleteRequest", "deleteRequest", STRING);
    static KEY: Member = Member::optional("Key", "key", STRING).worded_alone();
    static TABLE: Member = Member::required("TableName", "tableName", STRING);

    #[test]
    fn paths_render_as_dynamodb_names_them() {
        let root = Path::ROOT;
        let items = root.then(Step::Member(&ITEMS));
        let table = items.then(Step::Entry("aa;"));
        let first = table.then(Step::Element(0));
        let delete = first.then(Step::Member(&DELETE));
        let key = delete.then(Step::Member(&KEY));
        assert_eq!(key.to_string(), "requestItems.aa;.member.1.member.deleteRequest.key");
        assert_eq!(key.named_alone().as_deref(), Some("RequestItems.aa;.member.1.member.DeleteRequest.Key"));
        assert_eq!(delete.named_alone(), None, "only a member marked alone is worded apart");
        assert_eq!(root.then(Step::Member(&TABLE)).to_string(), "tableName");
    }
}
