package api

import (
	sw "github.com/kura-db/kura/internal/wire/streamswire"
)

// streamsTargetPrefix is the X-Amz-Target service prefix of the DynamoDB
// Streams API, served on the same endpoint as DynamoDB.
const streamsTargetPrefix = "DynamoDBStreams_20120810."

// streamsRoutes maps a DynamoDB Streams operation name to its handler.
var streamsRoutes = map[string]handler{
	"ListStreams":      listStreams,
	"DescribeStream":   describeStream,
	"GetShardIterator": getShardIterator,
	"GetRecords":       getRecords,
}

var enumShardIteratorType = []string{"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"}

// strLen checks an optional string member's length bounds.
func (v *validator) strLen(member string, p *string, min, max int) {
	if p == nil {
		return
	}
	v.minLen(member, quote(*p), len(*p), min)
	v.maxLen(member, quote(*p), len(*p), max)
}

var listStreams = op(Backend.ListStreams, func(in *sw.ListStreamsInput) error {
	var v validator
	v.intRange("limit", in.Limit, 1, 100)
	v.strLen("exclusiveStartStreamArn", in.ExclusiveStartStreamArn, 37, 1024)
	v.tableName(in.TableName, false)
	return v.err()
})

var describeStream = op(Backend.DescribeStream, func(in *sw.DescribeStreamInput) error {
	var v validator
	v.notNull("streamArn", in.StreamArn == nil)
	v.strLen("streamArn", in.StreamArn, 37, 1024)
	v.intRange("limit", in.Limit, 1, 100)
	v.strLen("exclusiveStartShardId", in.ExclusiveStartShardId, 28, 65)
	if f := in.ShardFilter; f != nil {
		// DynamoDB refuses a filter without its Type, and a CHILD_SHARDS
		// filter without the parent's ShardId, with a ValidationException
		// (ScyllaDB's Alternator tests run against DynamoDB,
		// test_streams.py test_stream_shard_filtering_missing_*), although
		// the API model marks neither member required. Its wording is not
		// recorded: source: Kura's own, in the form of DynamoDB's other
		// null-member checks.
		v.notNull("shardFilter.type", f.Type == "")
		v.enum("shardFilter.type", f.Type, []string{"CHILD_SHARDS"})
		v.notNull("shardFilter.shardId", f.Type == "CHILD_SHARDS" && f.ShardId == nil)
		v.strLen("shardFilter.shardId", f.ShardId, 28, 65)
	}
	return v.err()
})

var getShardIterator = op(Backend.GetShardIterator, func(in *sw.GetShardIteratorInput) error {
	var v validator
	v.notNull("streamArn", in.StreamArn == nil)
	v.strLen("streamArn", in.StreamArn, 37, 1024)
	v.notNull("shardId", in.ShardId == nil)
	v.strLen("shardId", in.ShardId, 28, 65)
	v.notNull("shardIteratorType", in.ShardIteratorType == "")
	v.enum("shardIteratorType", in.ShardIteratorType, enumShardIteratorType)
	v.strLen("sequenceNumber", in.SequenceNumber, 21, 40)
	return v.err()
})

var getRecords = op(Backend.GetRecords, func(in *sw.GetRecordsInput) error {
	var v validator
	v.notNull("shardIterator", in.ShardIterator == nil)
	v.strLen("shardIterator", in.ShardIterator, 1, 2048)
	v.intRange("limit", in.Limit, 1, 1000)
	return v.err()
})
