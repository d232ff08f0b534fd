package test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// provTable creates table name in c's region: PROVISIONED 5/5, a GSI
// byOwner of 5/5, a NEW_AND_OLD_IMAGES stream.
func provTable(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	pt := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: pt,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("owner"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byOwner"), ProvisionedThroughput: pt,
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("owner"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
}

func describe(t *testing.T, c *dynamodb.Client, table string) *types.TableDescription {
	t.Helper()
	d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatalf("DescribeTable: %v", err)
	}
	return d.Table
}

// replicaOf is region's entry in d's Replicas.
func replicaOf(t *testing.T, d *types.TableDescription, region string) types.ReplicaDescription {
	t.Helper()
	for _, r := range d.Replicas {
		if aws.ToString(r.RegionName) == region {
			return r
		}
	}
	t.Fatalf("%s has no replica in %s: %+v", aws.ToString(d.TableName), region, d.Replicas)
	return types.ReplicaDescription{}
}

// gsiRCU is the read capacity of d's GSI index (-1 when it has none).
func gsiRCU(d *types.TableDescription, index string) int64 {
	for _, g := range d.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == index && g.ProvisionedThroughput != nil {
			return aws.ToInt64(g.ProvisionedThroughput.ReadCapacityUnits)
		}
	}
	return -1
}

func updateReplica(c *dynamodb.Client, table string, u *types.UpdateReplicationGroupMemberAction) error {
	_, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Update: u}}})
	return err
}

// ReplicaUpdates Update sets a replica's own read capacity, GSI read
// capacity and table class; the replica's table has them, and
// DescribeTable shows them as the replica's overrides in every region (an
// override equal to the table's value is none). DynamoDB's rules for it
// are kept.
func TestGlobalTableReplicaUpdate(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,eu-west-1,ap-south-1")
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	provTable(t, east, "Prov")
	_, err := east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Prov"), ReplicaUpdates: []types.ReplicationGroupUpdate{{
		Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"), GlobalSecondaryIndexes: []types.ReplicaGlobalSecondaryIndex{
			{IndexName: aws.String("byOwner"), ProvisionedThroughputOverride: &types.ProvisionedThroughputOverride{ReadCapacityUnits: aws.Int64(3)}},
			{IndexName: aws.String("nope"), ProvisionedThroughputOverride: &types.ProvisionedThroughputOverride{ReadCapacityUnits: aws.Int64(9)}}}}}}})
	if err != nil {
		t.Fatalf("adding the replica: %v", err)
	}
	waitReplicaActive(t, east, "Prov", "eu-west-1")

	d := describe(t, east, "Prov")
	if d.GlobalTableSettingsReplicationMode != types.GlobalTableSettingsReplicationModeEnabledWithOverrides {
		t.Errorf("GlobalTableSettingsReplicationMode: %q", d.GlobalTableSettingsReplicationMode)
	}
	r := replicaOf(t, d, "eu-west-1")
	if r.ProvisionedThroughputOverride != nil || len(r.GlobalSecondaryIndexes) != 1 || aws.ToString(r.GlobalSecondaryIndexes[0].IndexName) != "byOwner" ||
		r.GlobalSecondaryIndexes[0].ProvisionedThroughputOverride == nil || aws.ToInt64(r.GlobalSecondaryIndexes[0].ProvisionedThroughputOverride.ReadCapacityUnits) != 3 {
		t.Fatalf("eu-west-1's replica as us-east-1 shows it: %+v", r)
	}
	if w := describe(t, west, "Prov"); gsiRCU(w, "byOwner") != 3 || aws.ToInt64(w.ProvisionedThroughput.ReadCapacityUnits) != 5 {
		t.Fatalf("eu-west-1's table: RCU %d, byOwner RCU %d", aws.ToInt64(w.ProvisionedThroughput.ReadCapacityUnits), gsiRCU(w, "byOwner"))
	}

	// The replica's read capacity, set, shown everywhere, and cleared by
	// the table's value.
	if err := updateReplica(east, "Prov", &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"),
		ProvisionedThroughputOverride: &types.ProvisionedThroughputOverride{ReadCapacityUnits: aws.Int64(10)}}); err != nil {
		t.Fatal(err)
	}
	w := describe(t, west, "Prov")
	if aws.ToInt64(w.ProvisionedThroughput.ReadCapacityUnits) != 10 || aws.ToInt64(w.ProvisionedThroughput.WriteCapacityUnits) != 5 {
		t.Fatalf("eu-west-1's throughput after the override: %+v", w.ProvisionedThroughput)
	}
	if o := replicaOf(t, describe(t, east, "Prov"), "eu-west-1").ProvisionedThroughputOverride; o == nil || aws.ToInt64(o.ReadCapacityUnits) != 10 {
		t.Fatalf("the override as us-east-1 shows it: %+v", o)
	}
	// A change of the table's throughput is made in every replica; the
	// replica keeps its own read capacity.
	if _, err := east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Prov"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(6), WriteCapacityUnits: aws.Int64(8)}}); err != nil {
		t.Fatal(err)
	}
	w = describe(t, west, "Prov")
	if aws.ToInt64(w.ProvisionedThroughput.ReadCapacityUnits) != 10 || aws.ToInt64(w.ProvisionedThroughput.WriteCapacityUnits) != 8 {
		t.Fatalf("eu-west-1's throughput after us-east-1's change: %+v", w.ProvisionedThroughput)
	}
	if err := updateReplica(east, "Prov", &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"),
		ProvisionedThroughputOverride: &types.ProvisionedThroughputOverride{ReadCapacityUnits: aws.Int64(6)},
		GlobalSecondaryIndexes: []types.ReplicaGlobalSecondaryIndex{{IndexName: aws.String("byOwner"),
			ProvisionedThroughputOverride: &types.ProvisionedThroughputOverride{ReadCapacityUnits: aws.Int64(7)}}},
		TableClassOverride: types.TableClassStandardInfrequentAccess}); err != nil {
		t.Fatal(err)
	}
	w = describe(t, west, "Prov")
	if aws.ToInt64(w.ProvisionedThroughput.ReadCapacityUnits) != 6 || gsiRCU(w, "byOwner") != 7 ||
		w.TableClassSummary == nil || w.TableClassSummary.TableClass != types.TableClassStandardInfrequentAccess {
		t.Fatalf("eu-west-1's table after the second update: %+v, byOwner %d, %+v", w.ProvisionedThroughput, gsiRCU(w, "byOwner"), w.TableClassSummary)
	}
	d = describe(t, east, "Prov")
	r = replicaOf(t, d, "eu-west-1")
	if r.ProvisionedThroughputOverride != nil || aws.ToInt64(r.GlobalSecondaryIndexes[0].ProvisionedThroughputOverride.ReadCapacityUnits) != 7 ||
		r.ReplicaTableClassSummary == nil || r.ReplicaTableClassSummary.TableClass != types.TableClassStandardInfrequentAccess {
		t.Fatalf("eu-west-1's replica after the second update: %+v", r)
	}
	if d.TableClassSummary != nil && d.TableClassSummary.TableClass != types.TableClassStandard {
		t.Fatalf("us-east-1's class changed: %+v", d.TableClassSummary)
	}
	// eu-west-1 shows us-east-1's replica with no overrides.
	if r := replicaOf(t, describe(t, west, "Prov"), "us-east-1"); r.ProvisionedThroughputOverride != nil || r.GlobalSecondaryIndexes[0].ProvisionedThroughputOverride != nil {
		t.Fatalf("us-east-1's replica as eu-west-1 shows it: %+v", r)
	}

	// Refusals, DynamoDB's.
	err = updateReplica(east, "Prov", &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")})
	wantAPIError(t, err, "ValidationException", "There are no actions specified in the Replica Update Action of the request.")
	err = updateReplica(east, "Prov", &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"),
		GlobalSecondaryIndexes: []types.ReplicaGlobalSecondaryIndex{{IndexName: aws.String("byOwner")}}})
	wantAPIError(t, err, "ValidationException", "There are no actions specified in the Replica Update Action of the request.")
	err = updateReplica(east, "Prov", &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"), KMSMasterKeyId: aws.String("alias/aws/dynamodb")})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: KMSMasterKeyId must be specified for each replica.")
	err = updateReplica(east, "Prov", &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"),
		OnDemandThroughputOverride: &types.OnDemandThroughputOverride{MaxReadRequestUnits: aws.Int64(100)}})
	wantAPIError(t, err, "ValidationException", "MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED")
	err = updateReplica(east, "Prov", &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("ap-south-1"), TableClassOverride: types.TableClassStandard})
	wantAPIError(t, err, "ValidationException", "Update global table operation failed because one or more replicas were not part of the global table. Please retry the request without these replicas: [ap-south-1].")
	err = updateReplica(east, "Prov", &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("us-east-1"), TableClassOverride: types.TableClassStandard})
	wantAPIError(t, err, "ValidationException", "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required.")
	_, err = east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Prov"), ReplicaUpdates: []types.ReplicationGroupUpdate{{
		Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("ap-south-1")},
		Update: &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"), TableClassOverride: types.TableClassStandard}}}})
	wantAPIError(t, err, "ValidationException", "Update table operation with more than one type of replica actions not allowed.")
	_, err = east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Prov"), DeletionProtectionEnabled: aws.Bool(true),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Update: &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"), TableClassOverride: types.TableClassStandard}}}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Replica modification must be the only operation in the request")
	_, err = east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Prov"), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Disabling Stream is not allowed for a Global Table replica.")
	// A table of the name cannot be created where a replica is.
	_, err = west.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String("Prov"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}})
	wantAPIError(t, err, "ResourceInUseException", "Table already exists: Prov")
}

// What UpdateTable and UpdateTimeToLive change in one replica is made in
// every replica (GSIs, TTL), but deletion protection, which is each
// replica's own and guards its deletion both ways.
func TestGlobalTableSettingsReplicated(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,eu-west-1")
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	streamTable(t, east, "Shared")
	if _, err := addReplica(east, "Shared", "eu-west-1"); err != nil {
		t.Fatal(err)
	}
	waitReplicaActive(t, east, "Shared", "eu-west-1")
	if _, err := east.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Shared"),
		Item: map[string]types.AttributeValue{"pk": S("a"), "status": S("open")}}); err != nil {
		t.Fatal(err)
	}
	// A GSI created in us-east-1 is created in eu-west-1 and filled there.
	_, err := east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Shared"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("status"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byStatus"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("status"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "byStatus in eu-west-1", func() bool {
		out, err := west.Query(bg, &dynamodb.QueryInput{TableName: aws.String("Shared"), IndexName: aws.String("byStatus"),
			KeyConditionExpression: aws.String("#s = :s"), ExpressionAttributeNames: map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":s": S("open")}})
		return err == nil && out.Count == 1
	})
	if r := replicaOf(t, describe(t, east, "Shared"), "eu-west-1"); len(r.GlobalSecondaryIndexes) != 1 || aws.ToString(r.GlobalSecondaryIndexes[0].IndexName) != "byStatus" {
		t.Fatalf("eu-west-1's replica's GSIs: %+v", r.GlobalSecondaryIndexes)
	}
	// Deleted in eu-west-1, it goes in us-east-1.
	if _, err := west.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Shared"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byStatus")}}}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "byStatus gone from us-east-1", func() bool { return len(describe(t, east, "Shared").GlobalSecondaryIndexes) == 0 })

	// TTL, enabled in eu-west-1, is the table's in us-east-1 too.
	if _, err := west.UpdateTimeToLive(bg, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Shared"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("expires")}}); err != nil {
		t.Fatal(err)
	}
	ttl, err := east.DescribeTimeToLive(bg, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Shared")})
	if err != nil || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "expires" {
		t.Fatalf("us-east-1's TTL: %+v, %v", ttl, err)
	}

	// Deletion protection is each replica's: on in eu-west-1, us-east-1's
	// stays off, and eu-west-1's replica cannot be deleted either way.
	if _, err := west.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Shared"), DeletionProtectionEnabled: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	if aws.ToBool(describe(t, east, "Shared").DeletionProtectionEnabled) {
		t.Fatal("deletion protection reached us-east-1")
	}
	const protected = "Cannot delete table Shared in region eu-west-1 because it has deletion protection enabled. Disable deletion protection first."
	_, err = east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Shared"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}})
	wantAPIError(t, err, "ValidationException", protected)
	_, err = west.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String("Shared")})
	wantAPIError(t, err, "ValidationException", protected)
	if _, err := west.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Shared"), DeletionProtectionEnabled: aws.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	if _, err := east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Shared"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "eu-west-1's replica deleted", func() bool {
		_, err := west.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String("Shared")})
		return err != nil
	})
}

// A replica of an on-demand table has its own maximum read request units
// (its table's and its GSIs'); provisioned read capacity cannot be set.
func TestGlobalTableOnDemandOverride(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,eu-west-1")
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	streamTable(t, east, "Ond")
	_, err := east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Ond"), ReplicaUpdates: []types.ReplicationGroupUpdate{{
		Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"),
			OnDemandThroughputOverride: &types.OnDemandThroughputOverride{MaxReadRequestUnits: aws.Int64(100)}}}}})
	if err != nil {
		t.Fatal(err)
	}
	waitReplicaActive(t, east, "Ond", "eu-west-1")
	w := describe(t, west, "Ond")
	if w.OnDemandThroughput == nil || aws.ToInt64(w.OnDemandThroughput.MaxReadRequestUnits) != 100 {
		t.Fatalf("eu-west-1's on-demand throughput: %+v", w.OnDemandThroughput)
	}
	if o := replicaOf(t, describe(t, east, "Ond"), "eu-west-1").OnDemandThroughputOverride; o == nil || aws.ToInt64(o.MaxReadRequestUnits) != 100 {
		t.Fatalf("the override as us-east-1 shows it: %+v", o)
	}
	if err := updateReplica(east, "Ond", &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"),
		OnDemandThroughputOverride: &types.OnDemandThroughputOverride{MaxReadRequestUnits: aws.Int64(250)}}); err != nil {
		t.Fatal(err)
	}
	if w := describe(t, west, "Ond"); w.OnDemandThroughput == nil || aws.ToInt64(w.OnDemandThroughput.MaxReadRequestUnits) != 250 {
		t.Fatalf("eu-west-1's on-demand throughput after the update: %+v", w.OnDemandThroughput)
	}
	err = updateReplica(east, "Ond", &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"),
		ProvisionedThroughputOverride: &types.ProvisionedThroughputOverride{ReadCapacityUnits: aws.Int64(5)}})
	wantAPIError(t, err, "ValidationException", "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
}
