//! Reading a request body into a borrowed [`Json`] tree in one pass over its bytes.
//!
//! The reader accepts exactly the documents `serde_json` accepts (RFC 8259: no comments, no
//! trailing commas, no unpaired surrogates, no raw control characters in strings) and gives the
//! same values; a property test holds it to that. It exists because the requests the fake reads
//! are small and many: going through serde's visitors cost about twice as much per byte.

use bumpalo::collections::{String as ArenaString, Vec as ArenaVec};

use super::{Arena, Json, MAX_DEPTH, Number, Object, dedup};

/// Reads a JSON document borrowed from `text` and `arena`; `None` if it is not JSON or nests
/// deeper than [`MAX_DEPTH`].
pub(super) fn read<'a>(text: &'a str, arena: &'a Arena) -> Option<Json<'a>> {
    let mut reader = Reader { text, bytes: text.as_bytes(), at: 0, arena };
    let json = reader.value(0)?;
    reader.skip_whitespace();
    (reader.at == reader.bytes.len()).then_some(json)
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    arena: &'a Arena,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// The next byte that is not whitespace, consumed.
    #[inline(always)]
    fn next_token(&mut self) -> Option<u8> {
        self.skip_whitespace();
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    /// The value that starts at the next token, at nesting level `depth`.
    fn value(&mut self, depth: usize) -> Option<Json<'a>> {
        match self.next_token()? {
            b'"' => self.string().map(Json::String),
            b'{' if depth < MAX_DEPTH => self.object(depth + 1),
            b'[' if depth < MAX_DEPTH => self.array(depth + 1),
            b't' => self.literal(b"rue", Json::Bool(true)),
            b'f' => self.literal(b"alse", Json::Bool(false)),
            b'n' => self.literal(b"ull", Json::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, rest: &[u8], json: Json<'a>) -> Option<Json<'a>> {
        let end = self.at + rest.len();
        (self.bytes.get(self.at..end)? == rest).then(|| {
            self.at = end;
            json
        })
    }

    /// The members of an object whose `{` was read.
    fn object(&mut self, depth: usize) -> Option<Json<'a>> {
        // Most objects of a request are attribute values of one member and four covers nearly all
        // others, but the request itself (depth 1) often has more.
        let mut members = ArenaVec::with_capacity_in(if depth == 1 { 8 } else { 4 }, self.arena);
        match self.next_token()? {
            b'}' => return Some(Json::Object(Object(&[]))),
            b'"' => {}
            _ => return None,
        }
        loop {
            let key = self.string()?;
            if self.next_token()? != b':' {
                return None;
            }
            members.push((key, self.value(depth)?));
            match self.next_token()? {
                b',' if self.next_token()? == b'"' => {}
                b'}' => return Some(Json::Object(Object(dedup(members.into_bump_slice_mut(), self.arena)))),
                _ => return None,
            }
        }
    }

    /// The items of an array whose `[` was read.
    fn array(&mut self, depth: usize) -> Option<Json<'a>> {
        let mut items = ArenaVec::new_in(self.arena);
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Some(Json::Array(&[]));
        }
        loop {
            items.push(self.value(depth)?);
            match self.next_token()? {
                b',' => {}
                b']' => return Some(Json::Array(items.into_bump_slice())),
                _ => return None,
            }
        }
    }

    /// The rest of a string whose opening quote was read: a slice of the body unless it has
    /// escapes.
    #[inline(always)]
    fn string(&mut self) -> Option<&'a str> {
        let start = self.at;
        self.skip_plain();
        loop {
            match *self.bytes.get(self.at)? {
                b'"' => {
                    let text = self.text.get(start..self.at)?;
                    self.at += 1;
                    return Some(text);
                }
                b'\\' => return self.escaped_string(start),
                0..=0x1f => return None,
                _ => self.at += 1,
            }
        }
    }

    /// The rest of a string that has an escape at `self.at`, from `start`, its first character.
    #[cold]
    fn escaped_string(&mut self, start: usize) -> Option<&'a str> {
        let mut owned = ArenaString::from_str_in(self.text.get(start..self.at)?, self.arena);
        loop {
            match *self.bytes.get(self.at)? {
                b'"' => {
                    self.at += 1;
                    return Some(owned.into_bump_str());
                }
                b'\\' => {
                    self.at += 1;
                    owned.push(self.escape()?);
                }
                0..=0x1f => return None,
                _ => {
                    // Copy the run up to the next quote, escape or control character at once.
                    let run = self.at;
                    self.skip_plain();
                    while let Some(&byte) = self.bytes.get(self.at) {
                        if byte == b'"' || byte == b'\\' || byte < 0x20 {
                            break;
                        }
                        self.at += 1;
                    }
                    owned.push_str(self.text.get(run..self.at)?);
                }
            }
        }
    }

    /// Moves past the bytes that need no attention in a string, eight at a time while eight are
    /// left: everything but a quote, a backslash and a control character.
    fn skip_plain(&mut self) {
        const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
        const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
        /// High bit set in each byte of `word` that is zero (and perhaps in a byte above one that is).
        fn zero_bytes(word: u64) -> u64 {
            word.wrapping_sub(ONES) & !word & HIGHS
        }
        while let Some(chunk) = self.bytes.get(self.at..self.at + 8) {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            // A byte below 0x20 has none of the bits 0xe0; a quote or backslash is zero after the xor.
            let special = zero_bytes(word & u64::from_ne_bytes([0xe0; 8]))
                | zero_bytes(word ^ u64::from_ne_bytes([b'"'; 8]))
                | zero_bytes(word ^ u64::from_ne_bytes([b'\\'; 8]));
            if special != 0 {
                // The lowest flagged byte is a true one; higher flags may be borrows. Little-endian
                // loading puts the first byte lowest.
                self.at += (special.trailing_zeros() / 8) as usize;
                return;
            }
            self.at += 8;
        }
    }

    /// The character of an escape whose backslash was read.
    fn escape(&mut self) -> Option<char> {
        let byte = self.peek()?;
        self.at += 1;
        Some(match byte {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let first = self.hex4()?;
                match first {
                    0xD800..=0xDBFF => {
                        // A leading surrogate must be followed by an escaped trailing one.
                        if self.bytes.get(self.at..self.at + 2)? != b"\\u" {
                            return None;
                        }
                        self.at += 2;
                        let second = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return None;
                        }
                        char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))?
                    }
                    _ => char::from_u32(first)?,
                }
            }
            _ => return None,
        })
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes.get(self.at..self.at + 4)?;
        let mut code = 0;
        for &digit in digits {
            code = code * 16 + char::from(digit).to_digit(16)?;
        }
        self.at += 4;
        Some(code)
    }

    /// A number whose first character was read. Small non-negative integers are read here;
    /// every other number goes to `serde_json`, so that floats round exactly as it rounds them.
    fn number(&mut self) -> Option<Json<'a>> {
        let start = self.at - 1;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = self.peek() {
            self.at += 1;
        }
        let text = self.text.get(start..self.at)?;
        let bytes = text.as_bytes();
        let plain =
            bytes.len() <= 19 && bytes.iter().all(u8::is_ascii_digit) && !(bytes.len() > 1 && bytes.starts_with(b"0"));
        if plain {
            let value = bytes.iter().fold(0u64, |value, digit| value * 10 + u64::from(digit - b'0'));
            return Some(Json::Number(Number::from(value)));
        }
        serde_json::from_str::<Number>(text).ok().map(Json::Number)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::from_slice;

    /// What `serde_json` makes of `text`, the reference the reader must agree with.
    fn reference(text: &str) -> Option<serde_json::Value> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        deserializer.disable_recursion_limit();
        let value = serde::Deserialize::deserialize(&mut deserializer).ok()?;
        deserializer.end().ok()?;
        Some(value)
    }

    fn agrees(text: &str) -> Result<(), TestCaseError> {
        let ours = from_slice(text.as_bytes(), &crate::json::Arena::new()).map(|json| json.to_value());
        prop_assert_eq!(ours, reference(text), "reading {:?}", text);
        Ok(())
    }

    /// Documents of every kind of value, including escapes, surrogate pairs and odd numbers.
    fn document() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::Bool),
            any::<u64>().prop_map(Into::into),
            any::<i64>().prop_map(Into::into),
            any::<f64>().prop_map(Into::into),
            "[a-z\"\\\\/\u{0}-\u{1f}\u{7f}é\u{1F600}]{0,6}".prop_map(serde_json::Value::String),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
                prop::collection::vec(("[a-c\"\\\\]{0,2}", inner), 0..4)
                    .prop_map(|members| serde_json::Value::Object(members.into_iter().collect())),
            ]
        })
    }

    /// A document's text, written compactly or with whitespace, and with `\u` escapes for some
    /// characters (serde_json writes them only for control characters).
    fn text() -> impl Strategy<Value = String> {
        (document(), any::<bool>(), any::<bool>()).prop_map(|(value, pretty, escaped)| {
            let text = if pretty { serde_json::to_string_pretty(&value) } else { serde_json::to_string(&value) };
            let text = text.unwrap_or_default();
            if escaped { text.replace('é', "\\u00e9").replace('\u{1F600}', "\\ud83d\\ude00") } else { text }
        })
    }

    proptest! {
        #[test]
        fn documents_read_as_serde_json_reads_them(text in text()) {
            agrees(&text)?;
        }

        /// One byte inserted, removed or replaced anywhere: the reader refuses exactly what
        /// serde_json refuses, and reads the rest alike.
        #[test]
        fn damaged_documents_are_refused_or_read_alike(
            text in text(),
            at in any::<prop::sample::Index>(),
            edit in 0..3u8,
            byte in prop::sample::select(b"{}[]:,\"\\/ \t\n\x00\x10\x1f\x7fu0123456789abcdefABCDEF-+.eEtrunlsx".to_vec()),
        ) {
            let mut bytes = text.into_bytes();
            let at = at.index(bytes.len() + 1);
            match edit {
                0 => bytes.insert(at, byte),
                1 if at < bytes.len() => { bytes.remove(at); }
                _ if at < bytes.len() => bytes[at] = byte,
                _ => bytes.push(byte),
            }
            if let Ok(text) = String::from_utf8(bytes) {
                agrees(&text)?;
            }
        }

        /// Short strings over JSON's own alphabet, most of them not JSON.
        #[test]
        fn scraps_are_refused_or_read_alike(text in "[{}\\[\\]:,\"\\\\ u0-9a-fA-F+.eE\\-trunlsx]{0,16}") {
            agrees(&text)?;
        }
    }

    /// Every byte that may or may not end a run of plain characters, at every place in a string
    /// long enough to be skipped eight bytes at a time.
    #[test]
    fn special_bytes_are_seen_wherever_they_stand_in_a_long_string() {
        for special in ['"', '\\', '\u{0}', '\u{f}', '\u{10}', '\u{1f}', ' ', '\u{7f}', 'é', '!', '#', '[', ']', '|'] {
            for at in 0..24 {
                let mut inner: Vec<char> = "abcdefghijklmnopqrstuvwx".chars().collect();
                inner[at] = special;
                let inner: String = inner.into_iter().collect();
                agrees(&format!(r#"{{"k":"{inner}","l":1}}"#)).unwrap();
                agrees(&format!(r#"["{inner}"]"#)).unwrap();
            }
        }
    }

    #[test]
    fn edge_cases_read_as_serde_json_reads_them() {
        for text in [
            "",
            " ",
            "0",
            "-0",
            "-",
            "01",
            "1.",
            ".5",
            "1e",
            "1e+",
            "1E-2",
            "-1.5e300",
            "1e400",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "9999999999999999999",
            "\"\\ud83d\\ude00\"",
            "\"\\ud83d\"",
            "\"\\ude00\"",
            "\"\\ud83d\\u0041\"",
            "\"\\u00E9\"",
            "\"\\x\"",
            "\"\u{1}\"",
            "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"",
            "[1,]",
            "{\"a\":1,}",
            "{,}",
            "[,]",
            "{\"a\"}",
            "{\"a\":}",
            "{1:2}",
            "tru",
            "nulll",
            "[true false]",
            " {\"a\" : [ 1 , 2 ] } ",
            "{} x",
            "[]]",
            "\"abc",
        ] {
            agrees(text).unwrap();
        }
    }
}
