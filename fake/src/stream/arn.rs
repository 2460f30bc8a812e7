//! Stream ARNs, `arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>`, and the labels
//! in them: the stream's creation time, `2024-06-01T00:00:00.000`.

use std::time::{Duration, SystemTime};

use crate::error::DynamoError;

/// The parts of a well-formed stream ARN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StreamArn<'a> {
    pub(crate) region: &'a str,
    pub(crate) account: &'a str,
    pub(crate) table: &'a str,
    pub(crate) label: &'a str,
}

impl<'a> StreamArn<'a> {
    /// The parts of `text`, or DynamoDB's ValidationException for text that is no stream ARN.
    pub(crate) fn parse(text: &'a str) -> Result<StreamArn<'a>, DynamoError> {
        Self::parts(text).ok_or_else(|| DynamoError::validation("Invalid StreamArn"))
    }

    fn parts(text: &'a str) -> Option<StreamArn<'a>> {
        let rest = text.strip_prefix("arn:")?;
        let mut parts = rest.splitn(5, ':');
        let (partition, service, region, account, resource) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        let (table, label) = resource.strip_prefix("table/")?.split_once("/stream/")?;
        let label_ok = !label.is_empty() && !label.contains('/');
        let valid = partition.starts_with("aws")
            && service == "dynamodb"
            && !region.is_empty()
            && !account.is_empty()
            && (3..=255).contains(&table.len())
            && crate::table::is_name(table)
            && label_ok;
        valid.then_some(StreamArn { region, account, table, label })
    }
}

/// The name of the table a stream ARN (or a shard iterator, which starts with one) names, for the
/// request log and fault rules.
pub(crate) fn table_in(text: &str) -> Option<&str> {
    let arn = text.split('|').next()?;
    StreamArn::parts(arn).map(|arn| arn.table)
}

/// The creation time of a new stream of a table whose latest stream was created at `latest`:
/// `now` to the millisecond, or a millisecond after `latest` if that is later, so that a stream
/// turned off and on again within a millisecond (as paused time does) gets a label of its own.
pub(crate) fn stream_label_after(now: SystemTime, latest: Option<SystemTime>) -> SystemTime {
    let millis = now.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let now = SystemTime::UNIX_EPOCH + Duration::from_millis(millis);
    match latest {
        Some(latest) if latest >= now => latest + Duration::from_millis(1),
        _ => now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_arn_is_read_into_its_parts() {
        let arn = StreamArn::parse("arn:aws:dynamodb:us-east-1:000000000000:table/Shop/stream/2024-06-01T00:00:00.000");
        assert_eq!(
            arn.ok(),
            Some(StreamArn {
                region: "us-east-1",
                account: "000000000000",
                table: "Shop",
                label: "2024-06-01T00:00:00.000"
            })
        );
    }

    #[test]
    fn text_that_is_no_stream_arn_is_refused_as_dynamodb_refuses_it() {
        for text in [
            "sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfgasf",
            "arn:aws:dynamodb:us-east-1:000000000000:table/Shop",
            "arn:aws:dynamodb:us-east-1:000000000000:table/Shop/stream/",
            "arn:aws:kinesis:us-east-1:000000000000:table/Shop/stream/x",
            "arn:aws:dynamodb:us-east-1:000000000000:table/a/stream/x",
        ] {
            let error = StreamArn::parse(text).unwrap_err();
            assert_eq!((error.code(), error.message.as_str()), ("ValidationException", "Invalid StreamArn"), "{text}");
        }
    }

    #[test]
    fn a_new_label_is_later_than_the_last_one_even_within_a_millisecond() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_micros(1_717_200_000_000_500);
        let first = stream_label_after(t, None);
        assert_eq!(crate::clock::stream_label(first), "2024-06-01T00:00:00.000");
        let second = stream_label_after(t, Some(first));
        assert_eq!(crate::clock::stream_label(second), "2024-06-01T00:00:00.001");
    }
}
