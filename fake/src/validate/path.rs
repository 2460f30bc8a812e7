//! Where a value sits in the request, as a constraint message names it: `keySchema.1.member.keyType`,
//! `requestItems.abc.member.keys`. A path lives on the walker's stack and is only rendered when
//! a message needs it.

use std::fmt;

/// One step from the parent to a value.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'a> {
    /// A member of a structure, by its message name (`tableName`).
    Member(&'static str),
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
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            fmt::Display::fmt(parent, f)?;
        }
        let at_root = self.parent.is_none_or(|p| p.step.is_none());
        match self.step {
            None => Ok(()),
            Some(Step::Member(name)) if at_root => f.write_str(name),
            Some(Step::Member(name)) => write!(f, ".{name}"),
            Some(Step::Element(index)) => write!(f, ".{}.member", index + 1),
            Some(Step::Entry(key)) => write!(f, ".{key}.member"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_as_dynamodb_names_them() {
        let root = Path::ROOT;
        let items = root.then(Step::Member("requestItems"));
        let table = items.then(Step::Entry("aa;"));
        let first = table.then(Step::Element(0));
        let delete = first.then(Step::Member("deleteRequest"));
        let key = delete.then(Step::Member("key"));
        assert_eq!(key.to_string(), "requestItems.aa;.member.1.member.deleteRequest.key");
        assert_eq!(root.then(Step::Member("tableName")).to_string(), "tableName");
    }
}
