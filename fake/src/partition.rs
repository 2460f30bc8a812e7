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

use crate::number::Number;
use crate::table::KeyValue;

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

/// MD5 (RFC 1321), fed in pieces without allocating; not used for anything secret.
struct Md5 {
    state: [u32; 4],
    buffer: [u8; 64],
    buffered: usize,
    length: u64,
}

impl Md5 {
    fn new() -> Md5 {
        Md5 { state: [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476], buffer: [0; 64], buffered: 0, length: 0 }
    }

    fn update(&mut self, mut input: &[u8]) {
        self.length = self.length.wrapping_add(input.len() as u64);
        while !input.is_empty() {
            let take = (64 - self.buffered).min(input.len());
            self.buffer[self.buffered..self.buffered + take].copy_from_slice(&input[..take]);
            self.buffered += take;
            input = &input[take..];
            if self.buffered == 64 {
                let block = self.buffer;
                self.compress(&block);
                self.buffered = 0;
            }
        }
    }

    fn finish(mut self) -> [u8; 16] {
        let bit_length = self.length.wrapping_mul(8);
        let mut padding = [0u8; 64];
        padding[0] = 0x80;
        let pad = if self.buffered < 56 { 56 - self.buffered } else { 120 - self.buffered };
        self.update(&padding[..pad]);
        self.update(&bit_length.to_le_bytes());
        let mut digest = [0u8; 16];
        for (chunk, word) in digest.chunks_exact_mut(4).zip(self.state) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        digest
    }

    fn compress(&mut self, block: &[u8; 64]) {
        const SHIFTS: [u32; 64] = [
            7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9,
            14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10,
            15, 21, 6, 10, 15, 21,
        ];
        let mut words = [0u32; 16];
        for (word, bytes) in words.iter_mut().zip(block.chunks_exact(4)) {
            *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        let [mut a, mut b, mut c, mut d] = self.state;
        for (i, &shift) in SHIFTS.iter().enumerate() {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let rotated = a.wrapping_add(f).wrapping_add(md5_constant(i)).wrapping_add(words[g]).rotate_left(shift);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(rotated);
        }
        for (word, add) in self.state.iter_mut().zip([a, b, c, d]) {
            *word = word.wrapping_add(add);
        }
    }
}

/// The additive constants of MD5: the integer part of |sin(i + 1)| * 2^32, tabulated.
fn md5_constant(i: usize) -> u32 {
    const TABLE: [u32; 64] = [
        0xd76a_a478,
        0xe8c7_b756,
        0x2420_70db,
        0xc1bd_ceee,
        0xf57c_0faf,
        0x4787_c62a,
        0xa830_4613,
        0xfd46_9501,
        0x6980_98d8,
        0x8b44_f7af,
        0xffff_5bb1,
        0x895c_d7be,
        0x6b90_1122,
        0xfd98_7193,
        0xa679_438e,
        0x49b4_0821,
        0xf61e_2562,
        0xc040_b340,
        0x265e_5a51,
        0xe9b6_c7aa,
        0xd62f_105d,
        0x0244_1453,
        0xd8a1_e681,
        0xe7d3_fbc8,
        0x21e1_cde6,
        0xc337_07d6,
        0xf4d5_0d87,
        0x455a_14ed,
        0xa9e3_e905,
        0xfcef_a3f8,
        0x676f_02d9,
        0x8d2a_4c8a,
        0xfffa_3942,
        0x8771_f681,
        0x6d9d_6122,
        0xfde5_380c,
        0xa4be_ea44,
        0x4bde_cfa9,
        0xf6bb_4b60,
        0xbebf_bc70,
        0x289b_7ec6,
        0xeaa1_27fa,
        0xd4ef_3085,
        0x0488_1d05,
        0xd9d4_d039,
        0xe6db_99e5,
        0x1fa2_7cf8,
        0xc4ac_5665,
        0xf429_2244,
        0x432a_ff97,
        0xab94_23a7,
        0xfc93_a039,
        0x655b_59c3,
        0x8f0c_cc92,
        0xffef_f47d,
        0x8584_5dd1,
        0x6fa8_7e4f,
        0xfe2c_e6e0,
        0xa301_4314,
        0x4e08_11a1,
        0xf753_7e82,
        0xbd3a_f235,
        0x2ad7_d2bb,
        0xeb86_d391,
    ];
    TABLE[i]
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
        let mut keys: Vec<KeyValue> = (0..10).map(|i| KeyValue::S(i.to_string())).collect();
        keys.extend(["aardman", "hello", "zapf", "äáöü"].map(|s| KeyValue::S(s.to_owned())));
        let got: Vec<String> = order(&keys)
            .into_iter()
            .map(|i| match &keys[i] {
                KeyValue::S(s) => s.clone(),
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
        let s = |t: &str| segment_of(partition_of(&KeyValue::S(t.to_owned())));
        let n = |t: &str| segment_of(partition_of(&KeyValue::N(Number::parse(t).unwrap())));
        assert_eq!((s("3635"), s("228"), s("1668"), s("3435")), (0, 0, 1, 4));
        assert_eq!((n("251"), n("2388")), (1, 4095));
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
