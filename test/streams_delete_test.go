package test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// TestStreamOfDeletedTable: deleting a table disables its stream and
// closes the open shard; the records stay readable (DynamoDB: DISABLING,
// then DISABLED within seconds). The stream stayed ENABLED with an open
// shard until the next restart.
func TestStreamOfDeletedTable(t *testing.T) {
	c, sc := ddb(), shared.streamsClient()
	table, arn := createStreamTable(t, c, types.StreamViewTypeKeysOnly)
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
		Item: map[string]types.AttributeValue{"pk": S("a"), "sk": S("1")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
		t.Fatal(err)
	}
	desc, sh := shards(t, sc, arn)
	if desc.StreamStatus != st.StreamStatusDisabled || sh[len(sh)-1].SequenceNumberRange.EndingSequenceNumber == nil {
		t.Fatalf("stream of a deleted table: %s, last shard %+v", desc.StreamStatus, sh[len(sh)-1].SequenceNumberRange)
	}
	recs, _ := drain(t, sc, iter(t, sc, arn, aws.ToString(sh[0].ShardId), st.ShardIteratorTypeTrimHorizon, nil))
	if len(recs) != 1 {
		t.Fatalf("%d records, want the 1 written before the delete", len(recs))
	}
}
