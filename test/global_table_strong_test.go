package test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// strongTable creates table (key pk) in c's region and makes it an MRSC
// table with a replica in replica and a witness in witness, ACTIVE.
func strongTable(t *testing.T, c *dynamodb.Client, table, replica, witness string) {
	t.Helper()
	_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table), MultiRegionConsistency: types.MultiRegionConsistencyStrong,
		ReplicaUpdates:            []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(replica)}}},
		GlobalTableWitnessUpdates: []types.GlobalTableWitnessGroupUpdate{{Create: &types.CreateGlobalTableWitnessGroupMemberAction{RegionName: aws.String(witness)}}}})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the replica to be ACTIVE", func() bool { return replicaStatus(t, c, table, replica) == "ACTIVE" })
}

func statement(c *dynamodb.Client, text string, params ...types.AttributeValue) error {
	_, err := c.ExecuteStatement(bg, &dynamodb.ExecuteStatementInput{Statement: aws.String(text), Parameters: params})
	return err
}

// A PartiQL write of an MRSC table holds its item as an item write does:
// while us-east-1's INSERT of an item waits for its replication (delayed
// on the admin clock), us-east-2 can write the item neither with PartiQL
// nor with PutItem (ReplicatedWriteConflictException), and writes other
// items; once it is acknowledged, us-east-2 writes the item.
//
// Seen failing before PartiQL writes held their item: us-east-2's UPDATE
// of the item went through while us-east-1's INSERT of it was unacknowledged.
func TestMultiRegionStrongPartiQLConflicts(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,us-east-2,us-west-2", "--admin")
	east, ohio := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "us-east-2")
	strongTable(t, east, "Ledger", "us-east-2", "us-west-2")

	backlog(t, k, "/admin/replication/delay?from=us-east-1&to=us-east-2&by=1h")
	backlog(t, k, "/admin/replication/delay?from=us-east-1&to=us-west-2&by=1h")
	done := make(chan error, 1)
	go func() { done <- statement(east, `INSERT INTO "Ledger" VALUE {'pk': 'acct', 'n': 1}`) }()
	eventually(t, "us-east-1's INSERT queued for us-east-2", func() bool { return backlog(t, k, "/admin/replication/status")["us-east-2"] == 1 })
	const conflict = "The request was rejected because one or more items in the request are being modified by a request in another Region."
	wantStatusError(t, "a PartiQL UPDATE of the item", statement(ohio, `UPDATE "Ledger" SET n = 2 WHERE pk = ?`, S("acct")),
		"ReplicatedWriteConflictException", conflict, 400)
	wantStatusError(t, "a PutItem of the item", putN(ohio, "Ledger", "acct", "3"), "ReplicatedWriteConflictException", conflict, 400)
	if err := statement(ohio, `INSERT INTO "Ledger" VALUE {'pk': 'other', 'n': 1}`); err != nil {
		t.Fatalf("another item: %v", err)
	}
	k.admin(t, "/admin/clock/advance?by=1h")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	backlog(t, k, "/admin/replication/delay?from=us-east-1&to=us-east-2&by=0s")
	backlog(t, k, "/admin/replication/delay?from=us-east-1&to=us-west-2&by=0s")
	if err := statement(ohio, `UPDATE "Ledger" SET n = 2 WHERE pk = 'acct'`); err != nil {
		t.Fatalf("once us-east-1's INSERT was acknowledged: %v", err)
	}
	if got := getN(t, east, "Ledger", "acct"); got != "2" {
		t.Fatalf("us-east-1 reads n = %q, want 2", got)
	}
}
