package test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// TestDescribeStreamShardFilterChecks: a ShardFilter without its Type, or
// a CHILD_SHARDS filter without the parent's ShardId, is refused with a
// ValidationException before the stream is looked up (ScyllaDB's
// Alternator tests, run against DynamoDB: test_streams.py's
// test_stream_shard_filtering_missing_* cases); a well-formed filter still
// answers the children.
func TestDescribeStreamShardFilterChecks(t *testing.T) {
	c, sc := ddb(), shared.streamsClient()
	_, arn := createStreamTable(t, c, types.StreamViewTypeKeysOnly)
	_, sh := shards(t, sc, arn)
	shard := aws.ToString(sh[0].ShardId)

	missingType := "1 validation error detected: Value null at 'shardFilter.type' failed to satisfy constraint: Member must not be null"
	missingShard := "1 validation error detected: Value null at 'shardFilter.shardId' failed to satisfy constraint: Member must not be null"
	for _, tc := range []struct {
		name, arn string
		f         *st.ShardFilter
		msg       string
	}{
		{"empty filter", arn, &st.ShardFilter{}, missingType},
		{"no type", arn, &st.ShardFilter{ShardId: aws.String(shard)}, missingType},
		{"no shard id", arn, &st.ShardFilter{Type: st.ShardFilterTypeChildShards}, missingShard},
		// Request checks come before the lookup: an unknown stream of a
		// valid shape gets the validation error.
		{"unknown stream", arn + "x", &st.ShardFilter{Type: st.ShardFilterTypeChildShards}, missingShard},
		{"bad type", arn, &st.ShardFilter{Type: "PARENT_SHARDS", ShardId: aws.String(shard)},
			"1 validation error detected: Value 'PARENT_SHARDS' at 'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]"},
	} {
		_, err := sc.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(tc.arn), ShardFilter: tc.f})
		t.Run(tc.name, func(t *testing.T) { wantAPIError(t, err, "ValidationException", tc.msg) })
	}

	out, err := sc.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn),
		ShardFilter: &st.ShardFilter{Type: st.ShardFilterTypeChildShards, ShardId: aws.String(shard)}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.StreamDescription.Shards); n != 0 {
		t.Fatalf("the open shard has %d children, want 0", n)
	}
}
