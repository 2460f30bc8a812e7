//! Shard iterators: `<stream ARN>|1|<hex>`, shaped like DynamoDB's. The hex part carries the
//! position in the shard, the issue time and the shard, with a checksum keyed by the fake's
//! seed: the fake keeps no table of iterators, and text it did not issue is refused.

use std::time::{Duration, SystemTime};

use crate::error::DynamoError;

/// A decoded shard iterator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShardIterator<'a> {
    pub(crate) stream_arn: &'a str,
    /// The shard, by its ordinal in the stream.
    pub(crate) shard: u32,
    /// The sequence number the next read starts at.
    pub(crate) position: u128,
    /// When it was issued, in milliseconds since the epoch.
    pub(crate) issued_ms: u64,
}

impl<'a> ShardIterator<'a> {
    /// An iterator issued at `now`.
    pub(crate) fn new(stream_arn: &'a str, shard: u32, position: u128, now: SystemTime) -> ShardIterator<'a> {
        let issued_ms = now.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
        ShardIterator { stream_arn, shard, position, issued_ms }
    }

    /// When it was issued.
    pub(crate) fn issued(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(self.issued_ms)
    }

    /// The iterator as text.
    pub(crate) fn encode(&self, seed: u64) -> String {
        let check = self.checksum(seed);
        format!("{}|1|{:032x}{:016x}{:08x}{check:08x}", self.stream_arn, self.position, self.issued_ms, self.shard)
    }

    /// Reads an iterator the fake issued, or DynamoDB's ValidationException for anything else.
    pub(crate) fn decode(text: &'a str, seed: u64) -> Result<ShardIterator<'a>, DynamoError> {
        Self::read(text, seed).ok_or_else(|| DynamoError::validation("Invalid ShardIterator"))
    }

    fn read(text: &'a str, seed: u64) -> Option<ShardIterator<'a>> {
        let (stream_arn, hex) = text.rsplit_once("|1|")?;
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let iterator = ShardIterator {
            stream_arn,
            position: u128::from_str_radix(&hex[..32], 16).ok()?,
            issued_ms: u64::from_str_radix(&hex[32..48], 16).ok()?,
            shard: u32::from_str_radix(&hex[48..56], 16).ok()?,
        };
        let check = u32::from_str_radix(&hex[56..], 16).ok()?;
        (check == iterator.checksum(seed)).then_some(iterator)
    }

    fn checksum(&self, seed: u64) -> u32 {
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&seed.to_le_bytes());
        hasher.update(self.stream_arn.as_bytes());
        hasher.update(&self.position.to_le_bytes());
        hasher.update(&self.issued_ms.to_le_bytes());
        hasher.update(&self.shard.to_le_bytes());
        hasher.finalize()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARN: &str = "arn:aws:dynamodb:us-east-1:000000000000:table/Shop/stream/2024-06-01T00:00:00.000";

    #[test]
    fn an_iterator_reads_back_as_it_was_issued() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_millis(1_717_200_000_123);
        let iterator = ShardIterator::new(ARN, 3, 100_000_000_000_000_000_042, now);
        let text = iterator.encode(7);
        assert!(text.starts_with(ARN) && text.len() <= 2048);
        assert_eq!(ShardIterator::decode(&text, 7).ok(), Some(iterator.clone()));
        assert_eq!(iterator.issued(), now);
    }

    #[test]
    fn an_iterator_changed_or_of_another_seed_is_refused() {
        let text = ShardIterator::new(ARN, 0, 5, SystemTime::UNIX_EPOCH).encode(7);
        let mut tampered = text.clone().into_bytes();
        let last = tampered.len() - 9;
        tampered[last] = if tampered[last] == b'0' { b'1' } else { b'0' };
        for bad in [String::from_utf8(tampered).unwrap(), text.replace("Shop", "Shoq"), "sdfsdfsgagaddafgagasg".into()]
        {
            let error = ShardIterator::decode(&bad, 7).unwrap_err();
            assert_eq!((error.code(), error.message.as_str()), ("ValidationException", "Invalid ShardIterator"));
        }
        assert!(ShardIterator::decode(&text, 8).is_err());
    }
}
