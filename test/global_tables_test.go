package test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB no longer creates global tables of version 2017.11.29 (Legacy)
// and answers their operations alike for any name (ScyllaDB's Alternator
// tests, run against DynamoDB, quote the answers); Kura does the same.
func TestLegacyGlobalTables(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	_, err := c.CreateGlobalTable(bg, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String(table),
		ReplicationGroup: []types.Replica{{RegionName: aws.String("us-west-2")}}})
	wantAPIError(t, err, "ValidationException", "DynamoDB global tables version 2017.11.29 is not supported. "+
		"We recommend using DynamoDB global tables version 2019.11.21, instead of version 2017.11.29 (Legacy).")
	notFound := "Global table with name '" + table + "' does not exist."
	_, err = c.UpdateGlobalTable(bg, &dynamodb.UpdateGlobalTableInput{GlobalTableName: aws.String(table),
		ReplicaUpdates: []types.ReplicaUpdate{{Create: &types.CreateReplicaAction{RegionName: aws.String("us-east-2")}}}})
	wantAPIError(t, err, "GlobalTableNotFoundException", notFound)
	_, err = c.DescribeGlobalTable(bg, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String(table)})
	wantAPIError(t, err, "GlobalTableNotFoundException", notFound)
	_, err = c.DescribeGlobalTableSettings(bg, &dynamodb.DescribeGlobalTableSettingsInput{GlobalTableName: aws.String(table)})
	wantAPIError(t, err, "GlobalTableNotFoundException", notFound)
	_, err = c.UpdateGlobalTableSettings(bg, &dynamodb.UpdateGlobalTableSettingsInput{GlobalTableName: aws.String(table),
		GlobalTableBillingMode: types.BillingModePayPerRequest})
	wantAPIError(t, err, "GlobalTableNotFoundException", notFound)
	out, err := c.ListGlobalTables(bg, &dynamodb.ListGlobalTablesInput{})
	if err != nil || out.GlobalTables == nil || len(out.GlobalTables) != 0 || out.LastEvaluatedGlobalTableName != nil {
		t.Fatalf("ListGlobalTables: %v %+v", err, out)
	}
	// Member constraints come first.
	_, err = c.DescribeGlobalTable(bg, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("x")})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'x' at 'globalTableName' failed to satisfy constraint: "+
		"Member must have length greater than or equal to 3")
	typ, msg := rawCall(t, shared, "ListGlobalTables", `{"Limit":0}`)
	if typ != "ValidationException" || msg != "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1" {
		t.Fatalf("Limit 0: %s %q", typ, msg)
	}
}

// UpdateTable's ReplicaUpdates (global tables version 2019.11.21) are
// refused, not ignored: the table's own region in DynamoDB's words
// (ScyllaDB's Alternator tests, run against DynamoDB, quote them), any
// other region in Kura's, alone or with another change.
func TestReplicaUpdatesRefused(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	_, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-east-1")}}}})
	wantAPIError(t, err, "ValidationException", "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required.")
	_, err = c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table), DeletionProtectionEnabled: aws.Bool(true),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-west-2")}}}})
	wantAPIError(t, err, "ValidationException", "ReplicaUpdates are not supported: Kura serves a single region (us-east-1) and has no global tables")
	d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil || aws.ToBool(d.Table.DeletionProtectionEnabled) {
		t.Fatalf("the refused update changed the table: %v %+v", err, d)
	}
}
