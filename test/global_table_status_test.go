package test

import (
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// describeTable is table's description through c.
func describeTable(t *testing.T, c *dynamodb.Client, table string) *types.TableDescription {
	t.Helper()
	d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatalf("DescribeTable: %v", err)
	}
	return d.Table
}

// adminIn makes the admin request path (POST) of region: signed for it,
// which picks the region's database (and clock).
func adminIn(t *testing.T, k *kura, region, path string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, k.endpoint+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	signIn(t, req, "AKID", "secret", region, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s in %s: %v %v", path, region, err, resp)
	}
	resp.Body.Close()
}

// An MREC global table shows its consistency mode, EVENTUAL, in every
// replica's description (and UpdateTable's answer); a table of one region
// shows none.
//
// Seen failing before describe set it: MultiRegionConsistency was empty.
func TestGlobalTableEventualConsistencyShown(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,eu-west-1")
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	streamTable(t, east, "Modes")
	if d := describeTable(t, east, "Modes"); d.MultiRegionConsistency != "" {
		t.Fatalf("a table of one region shows MultiRegionConsistency %q", d.MultiRegionConsistency)
	}
	out, err := addReplica(east, "Modes", "eu-west-1")
	if err != nil {
		t.Fatal(err)
	}
	if m := out.TableDescription.MultiRegionConsistency; m != types.MultiRegionConsistencyEventual {
		t.Fatalf("UpdateTable's answer shows MultiRegionConsistency %q, want EVENTUAL", m)
	}
	eventually(t, "the replica to be ACTIVE", func() bool { return replicaStatus(t, east, "Modes", "eu-west-1") == "ACTIVE" })
	for region, c := range map[string]*dynamodb.Client{"us-east-1": east, "eu-west-1": west} {
		if m := describeTable(t, c, "Modes").MultiRegionConsistency; m != types.MultiRegionConsistencyEventual {
			t.Fatalf("%s shows MultiRegionConsistency %q, want EVENTUAL", region, m)
		}
	}
}

// A ReplicaUpdates Update leaves the replica UPDATING, and so the table,
// as DynamoDB does: in UpdateTable's answer, and for --create-delay on the
// clock of the region it was asked in (the admin clock, moved here), with
// other replica changes refused meanwhile; then both are ACTIVE again.
//
// Seen failing before the replica had an UPDATING state: UpdateTable's
// answer and DescribeTable showed it ACTIVE at once.
func TestGlobalTableReplicaUpdatePassesThroughUpdating(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,eu-west-1,us-east-2", "--admin", "--create-delay", "1h")
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	streamTable(t, east, "Settings")
	k.admin(t, "/admin/clock/advance?by=1h") // the table ACTIVE
	if _, err := addReplica(east, "Settings", "eu-west-1"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the replica to be ACTIVE", func() bool { return replicaStatus(t, east, "Settings", "eu-west-1") == "ACTIVE" })
	adminIn(t, k, "eu-west-1", "/admin/clock/advance?by=1h") // eu-west-1's new table ACTIVE
	if s := describeTable(t, west, "Settings").TableStatus; s != types.TableStatusActive {
		t.Fatalf("eu-west-1's table is %s", s)
	}

	out, err := east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Settings"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Update: &types.UpdateReplicationGroupMemberAction{
			RegionName: aws.String("eu-west-1"), TableClassOverride: types.TableClassStandardInfrequentAccess}}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := out.TableDescription; d.TableStatus != types.TableStatusUpdating || len(d.Replicas) != 1 || d.Replicas[0].ReplicaStatus != types.ReplicaStatusUpdating {
		t.Fatalf("UpdateTable's answer: %s %+v", d.TableStatus, d.Replicas)
	}
	if d := describeTable(t, east, "Settings"); d.TableStatus != types.TableStatusUpdating || d.Replicas[0].ReplicaStatus != types.ReplicaStatusUpdating {
		t.Fatalf("DescribeTable while updating: %s %+v", d.TableStatus, d.Replicas)
	}
	_, err = addReplica(east, "Settings", "us-east-2")
	wantAPIError(t, err, "ResourceInUseException", "The resource which you are attempting to change is in use.")

	k.admin(t, "/admin/clock/advance?by=1h")
	d := describeTable(t, east, "Settings")
	if d.TableStatus != types.TableStatusActive || d.Replicas[0].ReplicaStatus != types.ReplicaStatusActive ||
		d.Replicas[0].ReplicaTableClassSummary == nil || d.Replicas[0].ReplicaTableClassSummary.TableClass != types.TableClassStandardInfrequentAccess {
		t.Fatalf("DescribeTable after the delay: %s %+v", d.TableStatus, d.Replicas)
	}
}

// The local region is refused in ReplicaUpdates Create and Delete alike,
// in DynamoDB's words (ScyllaDB's Alternator tests, run against DynamoDB,
// and the ack-api-quirks lab's probes of October 2026, DDB-TABLE-223,
// quote the same text for both).
func TestGlobalTableLocalRegionRefused(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,eu-west-1")
	east := keyClient(k, "AKID", "us-east-1")
	streamTable(t, east, "Local")
	const msg = "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required."
	_, err := addReplica(east, "Local", "us-east-1")
	wantAPIError(t, err, "ValidationException", msg)
	_, err = east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Local"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("us-east-1")}}}})
	wantAPIError(t, err, "ValidationException", msg)
}

// A table with a local secondary index becomes a global table with the
// index in every replica, as DynamoDB's replicas have the same LSIs (its
// documented rule: same names and keys; none can be added or removed
// later): the replica's DescribeTable shows it, and items written in
// either region are found through it in the other.
func TestGlobalTableLocalSecondaryIndex(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,eu-west-1")
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	_, err := east.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:   aws.String("Threads"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("at"), AttributeType: types.ScalarAttributeTypeN}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("ByTime"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("at"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"title"}}}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	put := func(c *dynamodb.Client, sk, at string) {
		t.Helper()
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Threads"), Item: map[string]types.AttributeValue{
			"pk": S("forum"), "sk": S(sk), "at": N(at), "title": S("t-" + sk), "body": S("b")}}); err != nil {
			t.Fatal(err)
		}
	}
	put(east, "a", "3")
	if _, err := addReplica(east, "Threads", "eu-west-1"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the replica to be ACTIVE", func() bool { return replicaStatus(t, east, "Threads", "eu-west-1") == "ACTIVE" })
	d := describeTable(t, west, "Threads")
	if len(d.LocalSecondaryIndexes) != 1 || aws.ToString(d.LocalSecondaryIndexes[0].IndexName) != "ByTime" ||
		d.LocalSecondaryIndexes[0].Projection.ProjectionType != types.ProjectionTypeInclude || len(d.LocalSecondaryIndexes[0].Projection.NonKeyAttributes) != 1 {
		t.Fatalf("eu-west-1's LSIs: %+v", d.LocalSecondaryIndexes)
	}
	put(west, "b", "1")
	put(east, "c", "2")
	byTime := func(c *dynamodb.Client) string {
		out, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String("Threads"), IndexName: aws.String("ByTime"),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("forum")}})
		if err != nil {
			t.Fatal(err)
		}
		s := ""
		for _, it := range out.Items {
			if _, ok := it["body"]; ok {
				t.Fatalf("an attribute the index does not project: %v", it)
			}
			s += it["sk"].(*types.AttributeValueMemberS).Value
		}
		return s
	}
	eventually(t, "every item through the index in both regions", func() bool { return byTime(east) == "bca" && byTime(west) == "bca" })
}
