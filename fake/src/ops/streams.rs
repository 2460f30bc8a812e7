//! DynamoDB Streams: ListStreams, DescribeStream, GetShardIterator and GetRecords, served from
//! the streams of the fake's tables and the disabled streams it still keeps.

use serde_json::json;

use crate::engine::Engine;
use crate::error::DynamoError;
use crate::json::{Answer, Json};
use crate::request::string;
use crate::stream::{ITERATOR_LIFETIME, MAX_RECORD_BYTES, MAX_RECORDS, Shard, ShardIterator, Stream, StreamArn};

/// ResourceNotFoundException for a stream the fake does not have (any more).
fn stream_not_found(arn: &str) -> DynamoError {
    DynamoError::resource_not_found_msg(format!("Requested resource not found: Stream: {arn} not found"))
}

/// ResourceNotFoundException for a shard the stream does not have.
fn shard_not_found() -> DynamoError {
    DynamoError::resource_not_found_msg("Requested resource not found: Shard does not exist")
}

/// TrimmedDataAccessException: the read would start before records that are gone.
fn trimmed() -> DynamoError {
    DynamoError::custom(
        400,
        "TrimmedDataAccessException",
        "The operation attempted to read past the oldest stream record in a shard.",
    )
}

/// An integer member, or its default.
fn limit(body: &Json<'_>, default: usize) -> usize {
    body.get("Limit").and_then(crate::validate::as_integer).map_or(default, |n| n.max(1) as usize)
}

/// Forgets the disabled streams whose 24 hours are over.
fn forget_gone(engine: &mut Engine) {
    let now = engine.now;
    engine.streams.retain(|_, stream| !stream.is_gone(now));
}

/// The stream of this ARN, brought up to the request's time: a table's enabled stream, or a
/// disabled one the fake still keeps.
fn stream_mut<'e>(engine: &'e mut Engine, arn: &str) -> Result<&'e mut Stream, DynamoError> {
    let parts = StreamArn::parse(arn)?;
    forget_gone(engine);
    let now = engine.now;
    let ours = parts.region == engine.region && parts.account == engine.account;
    let enabled = ours && engine.tables.get(parts.table).and_then(|t| t.stream()).is_some_and(|s| s.arn == arn);
    let stream = if enabled {
        engine.tables.get_mut(parts.table).and_then(|table| table.stream_mut())
    } else {
        engine.streams.get_mut(arn)
    };
    let stream = stream.ok_or_else(|| stream_not_found(arn))?;
    stream.maintain(now);
    Ok(stream)
}

/// ListStreams: the streams of one table or of all, in the order of their ARNs, a page at a time.
pub(crate) fn list_streams(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let start = string(body, "ExclusiveStartStreamArn");
    if let Some(start) = start {
        StreamArn::parse(start)?;
    }
    let table = string(body, "TableName");
    if let Some(name) = table
        && !engine.tables.contains_key(name)
    {
        return Err(DynamoError::resource_not_found_msg(format!(
            "Requested resource not found: Table: {name} not found"
        )));
    }
    forget_gone(engine);
    let enabled = engine.tables.values().filter_map(|table| table.stream());
    let mut streams: Vec<&Stream> = enabled.chain(engine.streams.values()).collect();
    streams.sort_by(|a, b| a.arn.cmp(&b.arn));
    let limit = limit(body, 100);
    let mut page = streams
        .into_iter()
        .filter(|stream| table.is_none_or(|name| stream.table == name))
        .filter(|stream| start.is_none_or(|start| stream.arn.as_str() > start))
        .take(limit + 1)
        .collect::<Vec<_>>();
    let more = page.len() > limit;
    page.truncate(limit);
    let mut out = json!({ "Streams": page.iter().map(|stream| stream.summary()).collect::<Vec<_>>() });
    if more && let Some(last) = page.last() {
        out["LastEvaluatedStreamArn"] = json!(last.arn);
    }
    Ok(out)
}

/// DescribeStream: the stream and a page of its shards, all of them or the children of one.
pub(crate) fn describe_stream(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let now = engine.now;
    let arn = string(body, "StreamArn").unwrap_or_default();
    let stream = stream_mut(engine, arn)?;
    let filter = body.get("ShardFilter").filter(|f| string(f, "Type") == Some("CHILD_SHARDS"));
    let parent = filter.map(|f| string(f, "ShardId").unwrap_or_default());
    let start = string(body, "ExclusiveStartShardId");
    let limit = limit(body, 100);
    let mut page: Vec<&Shard> = stream
        .shards()
        .filter(|shard| parent.is_none_or(|parent| shard.parent.as_deref() == Some(parent)))
        .filter(|shard| start.is_none_or(|start| shard.id.as_str() > start))
        .take(limit + 1)
        .collect();
    let more = page.len() > limit;
    page.truncate(limit);
    let last = page.last().filter(|_| more).map(|shard| shard.id.as_str());
    Ok(json!({ "StreamDescription": stream.describe(now, page.iter().copied(), last) }))
}

/// GetShardIterator: a position in a shard, as its type says, good for 15 minutes.
pub(crate) fn get_shard_iterator(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let (now, seed) = (engine.now, engine.seed);
    let arn = string(body, "StreamArn").unwrap_or_default();
    let stream = stream_mut(engine, arn)?;
    let shard = stream.shard(string(body, "ShardId").unwrap_or_default()).ok_or_else(shard_not_found)?;
    // The rules have checked that the number is decimal; one beyond `u128` is past every record.
    let number = || string(body, "SequenceNumber").map_or(0, |n| n.parse::<u128>().unwrap_or(u128::MAX));
    let position = match string(body, "ShardIteratorType").unwrap_or_default() {
        "TRIM_HORIZON" => shard.horizon(),
        "LATEST" => shard.latest(),
        "AT_SEQUENCE_NUMBER" => number(),
        _ => number().saturating_add(1),
    };
    if shard.is_trimmed_at(position) {
        return Err(trimmed());
    }
    let iterator = ShardIterator::new(&stream.arn, shard.ordinal, position, now).encode(seed);
    Ok(json!({ "ShardIterator": iterator }))
}

/// GetRecords: the records from an iterator's position, and the iterator that reads on, which a
/// closed shard read to its end no longer gives.
pub(crate) fn get_records(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let (now, seed) = (engine.now, engine.seed);
    let iterator = ShardIterator::decode(string(body, "ShardIterator").unwrap_or_default(), seed)?;
    if now > iterator.issued() + ITERATOR_LIFETIME {
        return Err(DynamoError::custom(
            400,
            "ExpiredIteratorException",
            "The provided iterator exceeds the maximum age allowed.",
        ));
    }
    let stream = stream_mut(engine, iterator.stream_arn)?;
    // A shard is forgotten only once its records are trimmed.
    let shard = stream.shard_at(iterator.shard).ok_or_else(trimmed)?;
    if shard.is_trimmed_at(iterator.position) {
        return Err(trimmed());
    }
    let region = stream.region.as_str();
    let view = stream.view.name();
    let mut next = iterator.position;
    let records: Vec<Answer> = shard
        .read(iterator.position, limit(body, MAX_RECORDS), MAX_RECORD_BYTES)
        .map(|record| {
            next = record.sequence + 1;
            Shard::record_json(record, view, region)
        })
        .collect();
    let mut out = json!({ "Records": records });
    if !shard.is_read_to_end(next) {
        out["NextShardIterator"] = json!(ShardIterator::new(&stream.arn, shard.ordinal, next, now).encode(seed));
    }
    Ok(out)
}
