//! Where DynamoDB keeps an item: the partition hash of its key.
//!
//! DynamoDB places an item by a hash of its partition key, which is why a Scan returns items in
//! no obvious order and why the segments of a parallel scan split a table evenly. The hash is an
//! MD5 over a fixed salt and the key's canonical bytes (UTF-8 for strings, the raw bytes for
//! binary, a base-100 encoding for numbers):
//!
//! - [`partition_of`]: the first 24 bits of the hash of a partition key; items are stored in
//!   this order, then by key;
//! - [`tie_of`]: the same hash over a table's whole key, which orders the items an index holds
//!   under one index key;
//! - [`segment_of`] and [`segment_bounds`]: the first 12 bits pick the segment of a parallel scan.
//!
//! The order this gives is DynamoDB's own: a test written against DynamoDB that depends on scan
//! order passes here too.

use std::collections::HashMap;

use foldhash::fast::FixedState;

use crate::number::Number;
use crate::table::{KeyValue, PrimaryKey};

/// The salt DynamoDB's placement hash starts with.
const SALT: &[u8] = b"Outliers";

/// The number of distinct segment positions a parallel scan divides: the first 12 bits of the hash.
pub(crate) const SEGMENT_SPACE: u64 = 4096;

/// The 24-bit placement hash of a partition key.
pub(crate) fn partition_of(hash: &KeyValue) -> u32 {
    let mut digest = Md5::new();
    digest.update(SALT);
    key_bytes(hash, &mut digest);
    prefix(&digest.finish())
}

/// The placement hashes of the partition keys a table has stored, so that reading or writing an
/// item already in the table does not hash its key again: the MD5 costs about as much as finding
/// the item. A memo of a pure function: an entry is never wrong, at worst missing. Maps are only
/// looked up, never iterated, and their hasher has a fixed seed.
#[derive(Debug, Default)]
pub(crate) struct Placements {
    strings: HashMap<String, u32, FixedState>,
    binaries: HashMap<Vec<u8>, u32, FixedState>,
}

impl Placements {
    /// The placement hash of a partition key: remembered, or computed.
    pub(crate) fn of(&self, hash: &KeyValue) -> u32 {
        let known = match hash {
            KeyValue::S(s) => self.strings.get(&**s),
            KeyValue::B(b) => self.binaries.get(&**b),
            // A number's hash bytes take as long to compute as the hash; not remembered. A
            // multi-attribute partition key is an index's, which keeps no memo.
            KeyValue::N(_) | KeyValue::Tuple(_) => None,
        };
        known.copied().unwrap_or_else(|| partition_of(hash))
    }

    /// The key of these values, with its placement hash.
    pub(crate) fn key(&self, hash: KeyValue, range: Option<KeyValue>) -> PrimaryKey {
        PrimaryKey { partition: self.of(&hash), hash, range }
    }

    /// Remembers the placement of a key newly stored in a table of `items` items. Keys of items
    /// since deleted stay until the memo outgrows twice the table, when it starts over.
    pub(crate) fn remember(&mut self, key: &PrimaryKey, items: usize) {
        fn add<K: std::hash::Hash + Eq>(map: &mut HashMap<K, u32, FixedState>, key: K, partition: u32, items: usize) {
            if map.len() >= 2 * items + 64 {
                map.clear();
            }
            map.insert(key, partition);
        }
        match &key.hash {
            KeyValue::S(s) => add(&mut self.strings, s.to_string(), key.partition, items),
            KeyValue::B(b) => add(&mut self.binaries, b.to_vec(), key.partition, items),
            KeyValue::N(_) | KeyValue::Tuple(_) => {}
        }
    }
}

/// The 24-bit hash of a table's whole key, which orders the items under one index key.
pub(crate) fn tie_of(hash: &KeyValue, range: Option<&KeyValue>) -> u32 {
    let mut digest = Md5::new();
    digest.update(SALT);
    key_bytes(hash, &mut digest);
    if let Some(range) = range {
        key_bytes(range, &mut digest);
    }
    prefix(&digest.finish())
}

/// The position of a partition hash in the space of segments (its first 12 bits).
pub(crate) fn segment_of(partition: u32) -> u64 {
    u64::from(partition >> 12)
}

/// The segment positions that segment `segment` of `total` covers; empty when there are more
/// segments than positions. Together the segments of one `total` cover every position once.
pub(crate) fn segment_bounds(segment: u64, total: u64) -> std::ops::Range<u64> {
    let total = total.max(1);
    (SEGMENT_SPACE * segment).div_ceil(total)..(SEGMENT_SPACE * (segment + 1)).div_ceil(total)
}

fn prefix(digest: &[u8; 16]) -> u32 {
    (u32::from(digest[0]) << 16) | (u32::from(digest[1]) << 8) | u32::from(digest[2])
}

/// Feeds the canonical bytes of a key value, as the placement hash reads them.
fn key_bytes(value: &KeyValue, digest: &mut Md5) {
    match value {
        KeyValue::S(s) => digest.update(s.as_bytes()),
        KeyValue::B(b) => digest.update(b),
        KeyValue::N(n) => {
            let mut bytes = Vec::with_capacity(22);
            number_bytes(n, &mut bytes);
            digest.update(&bytes);
        }
        // Each value of a multi-attribute partition key is fed after its type and length, so
        // that ("ab", "c") and ("a", "bc") land apart.
        KeyValue::Tuple(values) => {
            for value in values {
                let mut bytes = Vec::new();
                let (tag, bytes) = match value {
                    KeyValue::S(s) => (b'S', s.as_bytes()),
                    KeyValue::B(b) => (b'B', &**b),
                    KeyValue::N(n) => {
                        number_bytes(n, &mut bytes);
                        (b'N', bytes.as_slice())
                    }
                    // Parts hold scalars only.
                    KeyValue::Tuple(_) => (b'T', &[][..]),
                };
                digest.update(&[tag]);
                digest.update(&(bytes.len() as u64).to_be_bytes());
                digest.update(bytes);
            }
        }
    }
}

/// DynamoDB's byte encoding of a number: an exponent byte, then the significant digits in pairs
/// (base 100, each pair plus one), with every byte mirrored for negative numbers and a
/// terminator after short negative ones.
fn number_bytes(number: &Number, out: &mut Vec<u8>) {
    let text = number.to_string();
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    let (int_part, frac_part) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let all: Vec<u8> = int_part.bytes().chain(frac_part.bytes()).map(|b| b.wrapping_sub(b'0')).collect();
    let Some(first) = all.iter().position(|&d| d != 0) else {
        out.push(0x80);
        return;
    };
    let last = all.iter().rposition(|&d| d != 0).unwrap_or(first);
    let mantissa = &all[first..=last];
    // The number is 0.d1d2d3... times ten to the power `exponent`.
    let exponent = int_part.len() as i64 - first as i64;
    let append_zero = exponent.rem_euclid(2) == 1;
    let mut digits = Vec::with_capacity(mantissa.len() + 1);
    if append_zero {
        digits.push(0u8);
    }
    digits.extend_from_slice(mantissa);
    let pairs = digits.len().div_ceil(2);
    let head = (exponent + i64::from(append_zero)) / 2 - 64;
    let head = (head & 0xff) as u8;
    out.push(if negative { !head } else { head });
    for pair in digits.chunks(2) {
        let value = pair[0] * 10 + pair.get(1).copied().unwrap_or(0);
        out.push(if negative { 101 - value } else { value + 1 });
    }
    if negative && pairs < 20 {
        out.push(102);
    }
}

/// MD5, fed in pieces without allocating (the `md-5` crate); not used for anything secret.
struct Md5(md5::Md5);

impl Md5 {
    fn new() -> Md5 {
        use md5::Digest;
        Md5(md5::Md5::new())
    }

    fn update(&mut self, input: &[u8]) {
        use md5::Digest;
        self.0.update(input);
    }

    fn finish(self) -> [u8; 16] {
        use md5::Digest;
        self.0.finalize().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn md5(input: &[u8]) -> [u8; 16] {
        let mut digest = Md5::new();
        let (a, b) = input.split_at(input.len() / 3);
        digest.update(a);
        digest.update(b);
        digest.finish()
    }

    #[test]
    fn md5_matches_the_rfc_test_suite() {
        assert_eq!(hex(&md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(&md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(hex(&md5(b"message digest")), "f96b697d7cb7938d525a2f31aaf161d0");
        let long = b"12345678901234567890123456789012345678901234567890123456789012345678901234567890";
        assert_eq!(hex(&md5(long)), "57edf4a22be3c955ac49da2e2107b67a");
    }

    fn order(keys: &[KeyValue]) -> Vec<usize> {
        let mut indexed: Vec<(u32, &KeyValue, usize)> =
            keys.iter().enumerate().map(|(i, k)| (partition_of(k), k, i)).collect();
        indexed.sort();
        indexed.into_iter().map(|(_, _, i)| i).collect()
    }

    #[test]
    fn string_keys_scan_in_dynamodb_order() {
        // The order DynamoDB returns these hash keys in (recorded against the service).
        let expected = ["2", "8", "9", "1", "6", "hello", "0", "5", "4", "äáöü", "aardman", "7", "3", "zapf"];
        let mut keys: Vec<KeyValue> = (0..10).map(|i| KeyValue::S(i.to_string().into())).collect();
        keys.extend(["aardman", "hello", "zapf", "äáöü"].map(|s| KeyValue::S(s.into())));
        let got: Vec<String> = order(&keys)
            .into_iter()
            .map(|i| match &keys[i] {
                KeyValue::S(s) => s.to_string(),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn number_keys_scan_in_dynamodb_order() {
        let expected = ["7", "999.9", "8", "3", "2", "-999.9", "9", "4", "-0.09", "6", "1", "0", "0.012345", "5"];
        let mut texts: Vec<String> = (0..10).map(|i| i.to_string()).collect();
        texts.extend(["-0.09", "999.9", "0.012345", "-999.9"].map(str::to_owned));
        let keys: Vec<KeyValue> = texts.iter().map(|t| KeyValue::N(Number::parse(t).unwrap())).collect();
        let got: Vec<&str> = order(&keys).into_iter().map(|i| texts[i].as_str()).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn segments_of_4096_match_dynamodb() {
        let s = |t: &str| segment_of(partition_of(&KeyValue::S(t.into())));
        let n = |t: &str| segment_of(partition_of(&KeyValue::N(Number::parse(t).unwrap())));
        assert_eq!((s("3635"), s("228"), s("1668"), s("3435")), (0, 0, 1, 4));
        assert_eq!((n("251"), n("2388")), (1, 4095));
    }

    #[test]
    fn remembered_placements_are_the_hashes_and_the_memo_stays_bounded() {
        let mut placements = Placements::default();
        let keys: Vec<KeyValue> = (0..300)
            .map(|i| {
                if i % 2 == 0 {
                    KeyValue::S(format!("k{i}").into())
                } else {
                    KeyValue::B((i as u16).to_be_bytes().into())
                }
            })
            .chain([KeyValue::N(Number::parse("12.5").unwrap())])
            .collect();
        for (stored, key) in keys.iter().enumerate() {
            placements.remember(&placements.key(key.clone(), None), stored);
        }
        for key in &keys {
            assert_eq!(placements.of(key), partition_of(key), "{key:?}");
        }
        assert_eq!(placements.strings.len() + placements.binaries.len(), 300);
        // A table that stays small while its keys change keeps a memo of its own size's order.
        for i in 0..1000 {
            placements.remember(&placements.key(KeyValue::S(format!("passing {i}").into()), None), 1);
            assert!(placements.strings.len() <= 66, "{}", placements.strings.len());
        }
        assert_eq!(placements.of(&KeyValue::S("passing 999".into())), partition_of(&KeyValue::S("passing 999".into())));
    }

    #[test]
    fn segments_cover_every_position_exactly_once() {
        for total in [1u64, 2, 3, 7, 100, 4095, 4096, 4097, 10_000] {
            let mut covered = vec![0u32; SEGMENT_SPACE as usize];
            for segment in 0..total {
                for position in segment_bounds(segment, total) {
                    covered[position as usize] += 1;
                }
            }
            assert!(covered.iter().all(|&c| c == 1), "total {total}");
        }
    }
}
