//! Request ids shaped like DynamoDB's: 52 characters of `[A-Z2-7]`.

use std::fmt;

/// A request id, drawn from the fake's seeded generator and written out only when a transport
/// sends it (an embedder of [`handle_json`](crate::FakeDynamoDb::handle_json) never sees one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RequestId(pub(crate) [u64; 4]);

impl RequestId {
    /// The 52 characters: five bits each, thirteen from each word.
    fn characters(&self) -> [u8; 52] {
        const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        let mut out = [0u8; 52];
        for (chunk, mut word) in out.chunks_mut(13).zip(self.0) {
            for slot in chunk {
                *slot = ALPHABET[(word & 31) as usize];
                word >>= 5;
            }
        }
        out
    }

    /// The id as text, without going through the formatter.
    pub(crate) fn to_text(self) -> String {
        // Only ASCII letters and digits.
        String::from_utf8(self.characters().to_vec()).unwrap_or_default()
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let characters = self.characters();
        // Only ASCII letters and digits: the conversion cannot fail.
        f.write_str(std::str::from_utf8(&characters).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_52_characters_of_dynamodbs_alphabet() {
        let id = RequestId([0, u64::MAX, 0x0123_4567_89ab_cdef, 31]).to_string();
        assert_eq!(id.len(), 52);
        assert!(id.bytes().all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b)), "{id}");
        assert_eq!(&id[..13], "AAAAAAAAAAAAA");
        // Thirteen characters take 65 bits: the last of a word has only its four top bits.
        assert_eq!(&id[13..26], "777777777777P");
        assert_eq!(&id[39..], "7AAAAAAAAAAAA");
        assert_ne!(RequestId([1, 0, 0, 0]).to_string(), RequestId([2, 0, 0, 0]).to_string());
        let id = RequestId([7, 11, 13, 17]);
        assert_eq!(id.to_text(), id.to_string());
    }
}
