//! What a SELECT answers for each item when it names a nested path: the value at each path,
//! under the path's last name (`SELECT m.a, l[1] ...` answers `a` and `l[1]`), as DynamoDB
//! answers it (nubo-db's conformance suite, recorded against DynamoDB: `mymap.nested` answers
//! `nested`). A SELECT of top-level attributes alone is answered as the item operation reads it.

use serde_json::{Map, Value as Json};

use super::ast::{Elem, Path};

/// The paths a SELECT names, each with the name its value is answered under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Selected(Vec<(Path, String)>);

impl Selected {
    /// The paths of a projection that names a nested path, or `None` when every path is a
    /// top-level attribute.
    pub(crate) fn of(paths: &[Path]) -> Option<Selected> {
        if paths.iter().all(|path| path.attribute().is_some()) {
            return None;
        }
        Some(Selected(paths.iter().map(|path| (path.clone(), answered_name(path))).collect()))
    }

    /// The item as the SELECT answers it, from the whole item in wire form.
    pub(crate) fn present(&self, item: &Json) -> Json {
        let mut answer = Map::new();
        for (path, name) in &self.0 {
            if let Some(value) = value_at(item, path) {
                answer.insert(name.clone(), value.clone());
            }
        }
        Json::Object(answer)
    }
}

/// A path's last name and the indexes after it: `a.b[2]` is `b[2]`.
fn answered_name(path: &Path) -> String {
    let last_name = path.0.iter().rposition(|elem| matches!(elem, Elem::Name(_))).unwrap_or_default();
    let mut name = String::new();
    for elem in &path.0[last_name..] {
        match elem {
            Elem::Name(text) => name.push_str(text),
            Elem::Index(index) => name.push_str(&format!("[{index}]")),
        }
    }
    name
}

/// The value at `path` of an item in wire form (`{"a": {"M": {"b": {"S": "x"}}}}`), if any.
fn value_at<'i>(item: &'i Json, path: &Path) -> Option<&'i Json> {
    let mut elems = path.0.iter();
    let mut value = match elems.next()? {
        Elem::Name(name) => item.get(name)?,
        Elem::Index(_) => return None,
    };
    for elem in elems {
        value = match elem {
            Elem::Name(name) => value.get("M")?.get(name)?,
            Elem::Index(index) => value.get("L")?.get(*index)?,
        };
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn path(elems: &[Elem]) -> Path {
        Path(elems.to_vec())
    }

    #[test]
    fn a_nested_path_is_answered_under_its_last_name_with_its_indexes() {
        let name = |s: &str| Elem::Name(s.to_owned());
        let item =
            json!({"pk": {"S": "k"}, "m": {"M": {"a": {"L": [{"N": "1"}, {"N": "2"}]}}}, "l": {"L": [{"S": "x"}]}});
        let selected = Selected::of(&[
            path(&[name("pk")]),
            path(&[name("m"), name("a"), Elem::Index(1)]),
            path(&[name("l"), Elem::Index(0)]),
            path(&[name("m"), name("missing")]),
        ])
        .unwrap();
        assert_eq!(selected.present(&item), json!({"pk": {"S": "k"}, "a[1]": {"N": "2"}, "l[0]": {"S": "x"}}));
        assert_eq!(Selected::of(&[path(&[name("pk")])]), None);
    }
}
