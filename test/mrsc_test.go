package test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// wantStatusError fails unless err is the DynamoDB error typ with message msg
// and HTTP status.
func wantStatusError(t *testing.T, what string, err error, typ, msg string, status int) {
	t.Helper()
	var ae smithy.APIError
	var re *smithyhttp.ResponseError
	if !errors.As(err, &ae) || ae.ErrorCode() != typ || ae.ErrorMessage() != msg || !errors.As(err, &re) || re.HTTPStatusCode() != status {
		t.Fatalf("%s: got %v, want %s (%d): %s", what, err, typ, status, msg)
	}
}

func putN(c *dynamodb.Client, table, pk, n string) error {
	_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S(pk), "n": N(n)}})
	return err
}

// Multi-Region strong consistency through the Go SDK: an empty table made
// an MRSC global table with a replica and a witness; a write readable at
// once with a strongly consistent read in the other replica; a write of an
// item that us-east-1 is still making (its replication delayed on the
// admin clock) refused in us-east-2 with ReplicatedWriteConflictException;
// transactions refused; writes going on with one region cut off and
// refused without a majority; and the replica and witness deleted
// together.
func TestMultiRegionStrongConsistency(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,us-east-2,us-west-2,eu-west-1", "--admin")
	east, ohio := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "us-east-2")
	_, err := east.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:            aws.String("Strong"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		t.Fatal(err)
	}
	strong := func(replicas []string, witness string) (*dynamodb.UpdateTableOutput, error) {
		in := &dynamodb.UpdateTableInput{TableName: aws.String("Strong"), MultiRegionConsistency: types.MultiRegionConsistencyStrong}
		for _, r := range replicas {
			in.ReplicaUpdates = append(in.ReplicaUpdates, types.ReplicationGroupUpdate{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(r)}})
		}
		if witness != "" {
			in.GlobalTableWitnessUpdates = []types.GlobalTableWitnessGroupUpdate{{Create: &types.CreateGlobalTableWitnessGroupMemberAction{RegionName: aws.String(witness)}}}
		}
		return east.UpdateTable(bg, in)
	}
	_, err = strong([]string{"us-east-2"}, "")
	wantStatusError(t, "two regions", err, "ValidationException", "A global table with MultiRegionConsistency STRONG has exactly three Regions: this table's and two new replicas, or this table's, one new replica and a witness (GlobalTableWitnessUpdates).", 400)
	_, err = strong([]string{"us-east-2"}, "eu-west-1")
	wantStatusError(t, "a witness in another region set", err, "ValidationException", "Region eu-west-1 is not in the same multi-Region strong consistency Region set as this table's: the sets are us-east-1, us-east-2, us-west-2; eu-west-1, eu-west-2, eu-west-3, eu-central-1; and ap-northeast-1, ap-northeast-2, ap-northeast-3.", 400)

	out, err := strong([]string{"us-east-2"}, "us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	if d := out.TableDescription; d.MultiRegionConsistency != types.MultiRegionConsistencyStrong || len(d.GlobalTableWitnesses) != 1 ||
		aws.ToString(d.GlobalTableWitnesses[0].RegionName) != "us-west-2" || aws.ToString(d.GlobalTableVersion) != "2019.11.21" {
		t.Fatalf("UpdateTable's description: %+v", d)
	}
	eventually(t, "the replica to be ACTIVE", func() bool { return replicaStatus(t, east, "Strong", "us-east-2") == "ACTIVE" })
	d, err := ohio.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String("Strong")})
	if err != nil {
		t.Fatal(err)
	}
	if d.Table.MultiRegionConsistency != types.MultiRegionConsistencyStrong || len(d.Table.GlobalTableWitnesses) != 1 ||
		d.Table.GlobalTableWitnesses[0].WitnessStatus != types.WitnessStatusActive || len(d.Table.Replicas) != 1 ||
		aws.ToString(d.Table.Replicas[0].RegionName) != "us-east-1" || d.Table.Replicas[0].ReplicaStatus != types.ReplicaStatusActive {
		t.Fatalf("us-east-2's description: %+v", d.Table)
	}

	// Acknowledged means in us-east-2 too: its strongly consistent read has it.
	if err := putN(east, "Strong", "a", "1"); err != nil {
		t.Fatal(err)
	}
	if got := getN(t, ohio, "Strong", "a"); got != "1" {
		t.Fatalf("us-east-2 after the acknowledged write: %q", got)
	}

	// us-east-1's write waits for the delays (on us-east-1's clock, the
	// home region's, which the unsigned /admin/clock/advance moves);
	// meanwhile us-east-2 cannot write the item.
	backlog(t, k, "/admin/replication/delay?from=us-east-1&to=us-east-2&by=1h")
	backlog(t, k, "/admin/replication/delay?from=us-east-1&to=us-west-2&by=1h")
	done := make(chan error, 1)
	go func() { done <- putN(east, "Strong", "a", "2") }()
	eventually(t, "us-east-1's write queued for us-east-2", func() bool { return backlog(t, k, "/admin/replication/status")["us-east-2"] == 1 })
	wantStatusError(t, "a conflicting write", putN(ohio, "Strong", "a", "3"), "ReplicatedWriteConflictException",
		"The request was rejected because one or more items in the request are being modified by a request in another Region.", 400)
	k.admin(t, "/admin/clock/advance?by=1h")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	backlog(t, k, "/admin/replication/delay?from=us-east-1&to=us-east-2&by=0s")
	backlog(t, k, "/admin/replication/delay?from=us-east-1&to=us-west-2&by=0s")
	if err := putN(ohio, "Strong", "a", "3"); err != nil {
		t.Fatalf("once us-east-1's write was acknowledged: %v", err)
	}
	if got := getN(t, east, "Strong", "a"); got != "3" {
		t.Fatalf("us-east-1 after us-east-2's write: %q", got)
	}

	_, err = east.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("Strong"), Item: map[string]types.AttributeValue{"pk": S("t")}}}}})
	wantStatusError(t, "a transaction", err, "ValidationException", "Transactions are not supported on multi-Region strongly consistent (MRSC) global tables.", 400)

	// The witness cut off: us-east-1 and us-east-2 are a majority. Both
	// others cut off: us-east-1 alone refuses writes.
	backlog(t, k, "/admin/region/unavailable?region=us-west-2")
	if err := putN(east, "Strong", "b", "1"); err != nil {
		t.Fatalf("with a majority: %v", err)
	}
	backlog(t, k, "/admin/region/unavailable?region=us-east-2")
	wantStatusError(t, "a write without a majority", putN(east, "Strong", "b", "2"), "ServiceUnavailable", "DynamoDB is currently unavailable. (This should be a temporary state.)", 503)
	backlog(t, k, "/admin/region/available?region=us-east-2")
	backlog(t, k, "/admin/region/available?region=us-west-2")
	if got := getN(t, ohio, "Strong", "b"); got != "1" {
		t.Fatalf("us-east-2 after recovery: %q", got)
	}

	// The replica alone cannot be deleted; with the witness it can.
	_, err = east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Strong"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("us-east-2")}}}})
	wantStatusError(t, "deleting the replica alone", err, "ValidationException", "A multi-Region strongly consistent global table keeps three Regions: its other replicas and its witness are deleted together, in one UpdateTable request, which leaves this Region's table a single-Region table.", 400)
	_, err = east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Strong"),
		ReplicaUpdates:            []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("us-east-2")}}},
		GlobalTableWitnessUpdates: []types.GlobalTableWitnessGroupUpdate{{Delete: &types.DeleteGlobalTableWitnessGroupMemberAction{RegionName: aws.String("us-west-2")}}}})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "us-east-1's table to be a single-Region table", func() bool {
		d, err := east.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String("Strong")})
		return err == nil && d.Table.GlobalTableVersion == nil && d.Table.MultiRegionConsistency == "" && len(d.Table.GlobalTableWitnesses) == 0
	})
	if _, err := east.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("Strong"), Item: map[string]types.AttributeValue{"pk": S("t")}}}}}); err != nil {
		t.Fatalf("a transaction on the single-Region table: %v", err)
	}
}
