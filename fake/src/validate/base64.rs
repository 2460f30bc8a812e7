//! The checks DynamoDB's deserializer makes on the text of a `Blob` before decoding it.

/// Why a base64 text is refused, in the order the service checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Base64Problem {
    /// The length (in UTF-16 code units, as Java counts) is not a multiple of four.
    Length(usize),
    /// The last character before the padding carries bits that no byte uses.
    LastCharacter,
    /// A character outside the alphabet, or padding in the middle.
    Character(char),
}

impl Base64Problem {
    /// The message of the `SerializationException`.
    pub(crate) fn message(self) -> String {
        match self {
            Base64Problem::Length(len) => {
                format!("Base64 encoded length is expected a multiple of 4 bytes but found: {len}")
            }
            // "dectected" is the service's spelling.
            Base64Problem::LastCharacter => "Invalid last non-pad Base64 character dectected".to_owned(),
            Base64Problem::Character(c) => format!("Invalid Base64 character: '{c}'"),
        }
    }
}

fn digit(b: u8) -> Option<u8> {
    match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Checks a base64 text without decoding it.
pub(crate) fn check(text: &str) -> Result<(), Base64Problem> {
    let len = text.encode_utf16().count();
    if len % 4 != 0 {
        return Err(Base64Problem::Length(len));
    }
    let bytes = text.as_bytes();
    let pads = bytes.iter().rev().take(2).take_while(|&&b| b == b'=').count();
    let data = &bytes[..bytes.len() - pads];
    // One pad leaves 18 bits in the last group, two pads 12: the spare low bits must be zero.
    let spare_mask = if pads == 1 { 0b11 } else { 0b1111 };
    if pads > 0
        && let Some(value) = data.last().copied().and_then(digit)
        && value & spare_mask != 0
    {
        return Err(Base64Problem::LastCharacter);
    }
    match text[..data.len()].chars().find(|&c| !c.is_ascii() || digit(c as u8).is_none()) {
        Some(c) => Err(Base64Problem::Character(c)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_canonical_base64() {
        for text in ["", "AAAA", "Yg==", "YWI=", "YWJj", "+/+/"] {
            assert_eq!(check(text), Ok(()), "{text}");
        }
    }

    #[test]
    fn refuses_as_the_service_does() {
        assert_eq!(check("23456"), Err(Base64Problem::Length(5)));
        assert_eq!(check("=+/="), Err(Base64Problem::LastCharacter));
        assert_eq!(check("+/+="), Err(Base64Problem::LastCharacter));
        assert_eq!(check("ab*d"), Err(Base64Problem::Character('*')));
        assert_eq!(check("a=bc"), Err(Base64Problem::Character('=')));
        assert_eq!(check("é===").map_err(Base64Problem::message), Err("Invalid Base64 character: 'é'".to_owned()));
    }
}
