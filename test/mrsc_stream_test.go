package test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// An MRSC table whose user asked for no stream shows none, as DynamoDB's
// MRSC tables need none: no StreamSpecification or LatestStreamArn in
// any replica's description, nothing in ListStreams, DescribeStream of
// the ARN replication reads not found; writes still replicate. Enabling
// the stream (NEW_AND_OLD_IMAGES) shows it and disabling it hides it
// again (both refused on an MREC replica's stream: it is required there);
// another view type is refused in Kura's words; and the table left in one
// region has no stream.
func TestMultiRegionStrongHiddenStream(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,us-east-2,us-west-2")
	east, ohio := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "us-east-2")
	streams := func(region string) *dynamodbstreams.Client {
		sc := k.streamsClient()
		return dynamodbstreams.New(sc.Options(), func(o *dynamodbstreams.Options) { o.Region = region })
	}
	if _, err := east.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:            aws.String("Quiet"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	}); err != nil {
		t.Fatal(err)
	}
	out, err := east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Quiet"), MultiRegionConsistency: types.MultiRegionConsistencyStrong,
		ReplicaUpdates:            []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-east-2")}}},
		GlobalTableWitnessUpdates: []types.GlobalTableWitnessGroupUpdate{{Create: &types.CreateGlobalTableWitnessGroupMemberAction{RegionName: aws.String("us-west-2")}}}})
	if err != nil {
		t.Fatal(err)
	}
	noStream := func(what string, d *types.TableDescription) {
		t.Helper()
		if d.StreamSpecification != nil || d.LatestStreamArn != nil || d.LatestStreamLabel != nil {
			t.Fatalf("%s shows a stream: %+v %v %v", what, d.StreamSpecification, aws.ToString(d.LatestStreamArn), aws.ToString(d.LatestStreamLabel))
		}
	}
	noStream("UpdateTable's answer", out.TableDescription)
	eventually(t, "the replica to be ACTIVE", func() bool { return replicaStatus(t, east, "Quiet", "us-east-2") == "ACTIVE" })
	describe := func(c *dynamodb.Client) *types.TableDescription {
		t.Helper()
		d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String("Quiet")})
		if err != nil {
			t.Fatal(err)
		}
		return d.Table
	}
	noStream("us-east-1's description", describe(east))
	noStream("us-east-2's description", describe(ohio))
	for _, region := range []string{"us-east-1", "us-east-2"} {
		ls, err := streams(region).ListStreams(bg, &dynamodbstreams.ListStreamsInput{})
		if err != nil || len(ls.Streams) != 0 {
			t.Fatalf("ListStreams in %s: %+v, %v", region, ls, err)
		}
	}
	if err := putN(east, "Quiet", "a", "1"); err != nil {
		t.Fatal(err)
	}
	if got := getN(t, ohio, "Quiet", "a"); got != "1" {
		t.Fatalf("us-east-2 after the write: %q", got)
	}

	// Shown on request, with the records replication read; the ARN it had
	// while hidden was not found.
	on, err := ohio.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Quiet"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(on.TableDescription.LatestStreamArn)
	if s := on.TableDescription.StreamSpecification; s == nil || !aws.ToBool(s.StreamEnabled) || s.StreamViewType != types.StreamViewTypeNewAndOldImages || arn == "" {
		t.Fatalf("us-east-2's stream once enabled: %+v %q", s, arn)
	}
	noStream("us-east-1's description after us-east-2's stream was enabled", describe(east))
	if ls, err := streams("us-east-2").ListStreams(bg, &dynamodbstreams.ListStreamsInput{}); err != nil || len(ls.Streams) != 1 || aws.ToString(ls.Streams[0].StreamArn) != arn {
		t.Fatalf("ListStreams in us-east-2 once enabled: %+v, %v", ls, err)
	}
	if _, err := streams("us-east-2").DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: &arn}); err != nil {
		t.Fatal(err)
	}
	_, err = ohio.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Quiet"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
	if err != nil {
		t.Fatalf("disabling an MRSC table's stream: %v", err)
	}
	noStream("us-east-2's description after its stream was disabled", describe(ohio))
	_, err = streams("us-east-2").DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: &arn})
	wantStatusError(t, "DescribeStream of the hidden stream", err, "ResourceNotFoundException", "Requested resource not found: Stream: "+arn+" not found", 400)
	_, err = streams("us-east-2").GetShardIterator(bg, &dynamodbstreams.GetShardIteratorInput{StreamArn: &arn, ShardId: aws.String("shardId-00000001700000000000-0000abcd"), ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
	wantStatusError(t, "GetShardIterator of the hidden stream", err, "ResourceNotFoundException", "Requested resource not found: Stream: "+arn+" not found", 400)
	_, err = ohio.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Quiet"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
	wantStatusError(t, "disabling a hidden stream", err, "ValidationException", "Table has no stream to disable: TableName: Quiet", 400)
	_, err = ohio.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Quiet"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
	wantStatusError(t, "another view type", err, "ValidationException", "Kura's multi-Region strongly consistent tables replicate through the table's stream, so its StreamViewType can only be NEW_AND_OLD_IMAGES.", 400)
	if err := putN(ohio, "Quiet", "b", "2"); err != nil {
		t.Fatal(err)
	}
	if got := getN(t, east, "Quiet", "b"); got != "2" {
		t.Fatalf("us-east-1 after us-east-2's write: %q", got)
	}

	// Back to one region: no stream there.
	if _, err := east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Quiet"),
		ReplicaUpdates:            []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("us-east-2")}}},
		GlobalTableWitnessUpdates: []types.GlobalTableWitnessGroupUpdate{{Delete: &types.DeleteGlobalTableWitnessGroupMemberAction{RegionName: aws.String("us-west-2")}}}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "us-east-1's table to be a single-Region table", func() bool { return describe(east).GlobalTableVersion == nil })
	noStream("the single-Region table", describe(east))
	// The stream replication read is disabled, and stays hidden.
	if ls, err := streams("us-east-1").ListStreams(bg, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Quiet")}); err != nil || len(ls.Streams) != 0 {
		t.Fatalf("ListStreams of the single-Region table: %+v, %v", ls, err)
	}
	on, err = east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Quiet"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
	if err != nil || on.TableDescription.LatestStreamArn == nil {
		t.Fatalf("a stream of the user's on the single-Region table: %v", err)
	}
}
