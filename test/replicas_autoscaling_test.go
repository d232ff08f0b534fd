package test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

func autoScaling(t *testing.T, c *dynamodb.Client, table string) *types.TableAutoScalingDescription {
	t.Helper()
	out, err := c.DescribeTableReplicaAutoScaling(bg, &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatalf("DescribeTableReplicaAutoScaling: %v", err)
	}
	return out.TableAutoScalingDescription
}

// scalingUpdate is an auto scaling update from min to max units at target
// per cent.
func scalingUpdate(min, max int64, target float64) *types.AutoScalingSettingsUpdate {
	return &types.AutoScalingSettingsUpdate{MinimumUnits: aws.Int64(min), MaximumUnits: aws.Int64(max),
		ScalingPolicyUpdate: &types.AutoScalingPolicyUpdate{TargetTrackingScalingPolicyConfiguration: &types.AutoScalingTargetTrackingScalingPolicyConfigurationUpdate{
			TargetValue: aws.Float64(target)}}}
}

// wantScaling checks an auto scaling description: off, or on from min to
// max with policy at target.
func wantScaling(t *testing.T, what string, s *types.AutoScalingSettingsDescription, on bool, min, max int64, policy string, target float64) {
	t.Helper()
	if s == nil {
		t.Fatalf("%s: no settings", what)
	}
	if !on {
		if !aws.ToBool(s.AutoScalingDisabled) || len(s.ScalingPolicies) != 0 || s.MinimumUnits != nil {
			t.Fatalf("%s: %+v, want auto scaling off", what, s)
		}
		return
	}
	if s.AutoScalingDisabled != nil || aws.ToInt64(s.MinimumUnits) != min || aws.ToInt64(s.MaximumUnits) != max || len(s.ScalingPolicies) != 1 ||
		aws.ToString(s.ScalingPolicies[0].PolicyName) != policy ||
		aws.ToFloat64(s.ScalingPolicies[0].TargetTrackingScalingPolicyConfiguration.TargetValue) != target ||
		!strings.HasSuffix(aws.ToString(s.AutoScalingRoleArn), ":role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable") {
		t.Fatalf("%s: %+v", what, s)
	}
}

// wantAPIErrorPrefix asserts err is the DynamoDB error of this type whose
// message starts with prefix.
func wantAPIErrorPrefix(t *testing.T, err error, typ, prefix string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != typ || !strings.HasPrefix(ae.ErrorMessage(), prefix) {
		t.Fatalf("got %v, want %s: %s...", err, typ, prefix)
	}
}

// DescribeTableReplicaAutoScaling and UpdateTableReplicaAutoScaling answer
// for a global table's replicas only; Kura stores and describes the auto
// scaling set (the write scaling every replica's, the read scaling each
// replica's own), with DynamoDB's checks, and does not scale.
func TestGlobalTableReplicaAutoScaling(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,eu-west-1")
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	provTable(t, east, "Scaled")
	_, err := east.DescribeTableReplicaAutoScaling(bg, &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String("Scaled")})
	wantAPIError(t, err, "ResourceNotFoundException", "Global table with name: 'Scaled' does not exist.")
	_, err = east.UpdateTableReplicaAutoScaling(bg, &dynamodb.UpdateTableReplicaAutoScalingInput{TableName: aws.String("Missing"),
		ProvisionedWriteCapacityAutoScalingUpdate: scalingUpdate(1, 10, 70)})
	wantAPIError(t, err, "ResourceNotFoundException", "Global table with name: 'Missing' does not exist.")
	if _, err := addReplica(east, "Scaled", "eu-west-1"); err != nil {
		t.Fatal(err)
	}
	waitReplicaActive(t, east, "Scaled", "eu-west-1")

	d := autoScaling(t, west, "Scaled")
	if aws.ToString(d.TableName) != "Scaled" || d.TableStatus != types.TableStatusActive || len(d.Replicas) != 2 ||
		aws.ToString(d.Replicas[0].RegionName) != "eu-west-1" || aws.ToString(d.Replicas[1].RegionName) != "us-east-1" {
		t.Fatalf("the description: %+v", d)
	}
	for _, r := range d.Replicas {
		wantScaling(t, "read", r.ReplicaProvisionedReadCapacityAutoScalingSettings, false, 0, 0, "", 0)
		wantScaling(t, "write", r.ReplicaProvisionedWriteCapacityAutoScalingSettings, false, 0, 0, "", 0)
		if len(r.GlobalSecondaryIndexes) != 1 || aws.ToString(r.GlobalSecondaryIndexes[0].IndexName) != "byOwner" || r.GlobalSecondaryIndexes[0].IndexStatus != types.IndexStatusActive {
			t.Fatalf("GSIs: %+v", r.GlobalSecondaryIndexes)
		}
	}

	// The table's write scaling (every replica's), eu-west-1's read
	// scaling and its GSI's; the answer shows the settings from before.
	out, err := east.UpdateTableReplicaAutoScaling(bg, &dynamodb.UpdateTableReplicaAutoScalingInput{TableName: aws.String("Scaled"),
		ProvisionedWriteCapacityAutoScalingUpdate: scalingUpdate(1, 10, 70),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexAutoScalingUpdate{{IndexName: aws.String("byOwner"),
			ProvisionedWriteCapacityAutoScalingUpdate: scalingUpdate(2, 12, 60)}},
		ReplicaUpdates: []types.ReplicaAutoScalingUpdate{{RegionName: aws.String("eu-west-1"),
			ReplicaProvisionedReadCapacityAutoScalingUpdate: scalingUpdate(3, 30, 50),
			ReplicaGlobalSecondaryIndexUpdates: []types.ReplicaGlobalSecondaryIndexAutoScalingUpdate{{IndexName: aws.String("byOwner"),
				ProvisionedReadCapacityAutoScalingUpdate: scalingUpdate(4, 40, 45)}}}}})
	if err != nil {
		t.Fatal(err)
	}
	wantScaling(t, "the answer's write", out.TableAutoScalingDescription.Replicas[0].ReplicaProvisionedWriteCapacityAutoScalingSettings, false, 0, 0, "", 0)
	d = autoScaling(t, east, "Scaled")
	for _, r := range d.Replicas {
		region := aws.ToString(r.RegionName)
		wantScaling(t, region+" write", r.ReplicaProvisionedWriteCapacityAutoScalingSettings, true, 1, 10, "DynamoDBWriteCapacityUtilization:table/Scaled", 70)
		wantScaling(t, region+" GSI write", r.GlobalSecondaryIndexes[0].ProvisionedWriteCapacityAutoScalingSettings, true, 2, 12, "DynamoDBWriteCapacityUtilization:table/Scaled/index/byOwner", 60)
		if region == "eu-west-1" {
			wantScaling(t, region+" read", r.ReplicaProvisionedReadCapacityAutoScalingSettings, true, 3, 30, "DynamoDBReadCapacityUtilization:table/Scaled", 50)
			wantScaling(t, region+" GSI read", r.GlobalSecondaryIndexes[0].ProvisionedReadCapacityAutoScalingSettings, true, 4, 40, "DynamoDBReadCapacityUtilization:table/Scaled/index/byOwner", 45)
		} else {
			wantScaling(t, region+" read", r.ReplicaProvisionedReadCapacityAutoScalingSettings, false, 0, 0, "", 0)
			wantScaling(t, region+" GSI read", r.GlobalSecondaryIndexes[0].ProvisionedReadCapacityAutoScalingSettings, false, 0, 0, "", 0)
		}
	}
	// A partial update of settings that are on keeps the rest; turning
	// off takes nothing else.
	if _, err := west.UpdateTableReplicaAutoScaling(bg, &dynamodb.UpdateTableReplicaAutoScalingInput{TableName: aws.String("Scaled"),
		ProvisionedWriteCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{MaximumUnits: aws.Int64(20)},
		ReplicaUpdates: []types.ReplicaAutoScalingUpdate{{RegionName: aws.String("eu-west-1"),
			ReplicaProvisionedReadCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{AutoScalingDisabled: aws.Bool(true)}}}}); err != nil {
		t.Fatal(err)
	}
	d = autoScaling(t, west, "Scaled")
	wantScaling(t, "write", d.Replicas[0].ReplicaProvisionedWriteCapacityAutoScalingSettings, true, 1, 20, "DynamoDBWriteCapacityUtilization:table/Scaled", 70)
	wantScaling(t, "read", d.Replicas[0].ReplicaProvisionedReadCapacityAutoScalingSettings, false, 0, 0, "", 0)
	// Kura does not scale: the table's capacity is what was set.
	if pt := describe(t, west, "Scaled").ProvisionedThroughput; aws.ToInt64(pt.ReadCapacityUnits) != 5 || aws.ToInt64(pt.WriteCapacityUnits) != 5 {
		t.Fatalf("throughput changed: %+v", pt)
	}

	// DynamoDB's checks.
	update := func(in *dynamodb.UpdateTableReplicaAutoScalingInput) error {
		in.TableName = aws.String("Scaled")
		_, err := east.UpdateTableReplicaAutoScaling(bg, in)
		return err
	}
	err = update(&dynamodb.UpdateTableReplicaAutoScalingInput{})
	wantAPIError(t, err, "ValidationException", "Failed to update settings for global table with name: ‘Scaled’ because at least one update parameter must be specified.")
	err = update(&dynamodb.UpdateTableReplicaAutoScalingInput{ReplicaUpdates: []types.ReplicaAutoScalingUpdate{{RegionName: aws.String("us-east-1")}}})
	wantAPIError(t, err, "ValidationException", "Failed to update settings for global table with name: ‘Scaled’ because at least one update parameter must be specified for region: ‘us-east-1’.")
	err = update(&dynamodb.UpdateTableReplicaAutoScalingInput{ReplicaUpdates: []types.ReplicaAutoScalingUpdate{
		{RegionName: aws.String("us-east-1"), ReplicaProvisionedReadCapacityAutoScalingUpdate: scalingUpdate(1, 2, 50)},
		{RegionName: aws.String("us-east-1"), ReplicaProvisionedReadCapacityAutoScalingUpdate: scalingUpdate(1, 2, 50)}}})
	wantAPIError(t, err, "ValidationException", "Failed to update settings for global table with name: ‘Scaled’ because the regions: ‘[us-east-1]’ were specified more than once.")
	err = update(&dynamodb.UpdateTableReplicaAutoScalingInput{ReplicaUpdates: []types.ReplicaAutoScalingUpdate{{RegionName: aws.String("us-east-1"),
		ReplicaProvisionedReadCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{MinimumUnits: aws.Int64(1)}}}})
	wantAPIError(t, err, "ValidationException", "Failed to update settings for global table with name: ‘Scaled’: Parameters 'MaximumUnits', 'ScalingPolicyUpdate' are required unless auto scaling is being disabled.")
	err = update(&dynamodb.UpdateTableReplicaAutoScalingInput{ProvisionedWriteCapacityAutoScalingUpdate: scalingUpdate(5, 4, 70)})
	wantAPIErrorPrefix(t, err, "ValidationException", "Maximum capacity cannot be less than minimum capacity (Service: AWSApplicationAutoScaling; Status Code: 400; Error Code: ValidationException; Request ID: ")
	err = update(&dynamodb.UpdateTableReplicaAutoScalingInput{ProvisionedWriteCapacityAutoScalingUpdate: scalingUpdate(1, 4, 90.1)})
	wantAPIErrorPrefix(t, err, "ValidationException", "For predefined metric type DynamoDBWriteCapacityUtilization, target value must be between '10.0' and '90.0', but was '90.1'. (Service: AWSApplicationAutoScaling;")
	err = update(&dynamodb.UpdateTableReplicaAutoScalingInput{ProvisionedWriteCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{
		AutoScalingDisabled: aws.Bool(true), MinimumUnits: aws.Int64(1)}})
	wantAPIError(t, err, "ValidationException", "Failed to update settings for global table with name: ‘Scaled’: Parameters 'MinimumUnits' must be left blank when disabling auto scaling.")
	err = update(&dynamodb.UpdateTableReplicaAutoScalingInput{ProvisionedWriteCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{MinimumUnits: aws.Int64(0)}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '0' at 'provisionedWriteCapacityAutoScalingUpdate.minimumUnits' failed to satisfy constraint: Member must have value greater than or equal to 1")

	// An on-demand global table takes auto scaling off only.
	streamTable(t, east, "Ondemand")
	if _, err := addReplica(east, "Ondemand", "eu-west-1"); err != nil {
		t.Fatal(err)
	}
	waitReplicaActive(t, east, "Ondemand", "eu-west-1")
	_, err = east.UpdateTableReplicaAutoScaling(bg, &dynamodb.UpdateTableReplicaAutoScalingInput{TableName: aws.String("Ondemand"),
		ProvisionedWriteCapacityAutoScalingUpdate: scalingUpdate(1, 10, 70)})
	wantAPIError(t, err, "ValidationException", "Failed to update global table with name ‘Ondemand‘. Replicas 'EU-WEST-1', 'US-EAST-1' BillingMode is PayPerRequest. "+
		"You must convert table's BillingMode to PROVISIONED to set parameters: 'GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate'.")
	if _, err := east.UpdateTableReplicaAutoScaling(bg, &dynamodb.UpdateTableReplicaAutoScalingInput{TableName: aws.String("Ondemand"),
		ProvisionedWriteCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{AutoScalingDisabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}

	// The legacy (2017.11.29) operations know no 2019.11.21 global table,
	// as DynamoDB's answer them.
	_, err = east.DescribeGlobalTable(bg, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("Scaled")})
	wantAPIError(t, err, "GlobalTableNotFoundException", "Global table with name 'Scaled' does not exist.")
	_, err = east.DescribeGlobalTableSettings(bg, &dynamodb.DescribeGlobalTableSettingsInput{GlobalTableName: aws.String("Scaled")})
	wantAPIError(t, err, "GlobalTableNotFoundException", "Global table with name 'Scaled' does not exist.")
	_, err = east.UpdateGlobalTableSettings(bg, &dynamodb.UpdateGlobalTableSettingsInput{GlobalTableName: aws.String("Scaled"),
		GlobalTableProvisionedWriteCapacityUnits: aws.Int64(7)})
	wantAPIError(t, err, "GlobalTableNotFoundException", "Global table with name 'Scaled' does not exist.")
	if l, err := east.ListGlobalTables(bg, &dynamodb.ListGlobalTablesInput{}); err != nil || len(l.GlobalTables) != 0 {
		t.Fatalf("ListGlobalTables: %+v, %v", l, err)
	}

	// Without --regions there are no global tables.
	c := startKura(t, "--in-memory").client()
	_, err = c.DescribeTableReplicaAutoScaling(bg, &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/Any")})
	wantAPIError(t, err, "ResourceNotFoundException", "Global table with name: 'Any' does not exist.")
}

// A replica's overrides and the auto scaling set are kept across a
// restart (Kura killed, not stopped).
func TestGlobalTableSettingsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--regions", "us-east-1,eu-west-1"}
	k := startKura(t, args...)
	east := keyClient(k, "AKID", "us-east-1")
	provTable(t, east, "Kept")
	if _, err := addReplica(east, "Kept", "eu-west-1"); err != nil {
		t.Fatal(err)
	}
	waitReplicaActive(t, east, "Kept", "eu-west-1")
	if err := updateReplica(east, "Kept", &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"),
		ProvisionedThroughputOverride: &types.ProvisionedThroughputOverride{ReadCapacityUnits: aws.Int64(9)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := east.UpdateTableReplicaAutoScaling(bg, &dynamodb.UpdateTableReplicaAutoScalingInput{TableName: aws.String("Kept"),
		ProvisionedWriteCapacityAutoScalingUpdate: scalingUpdate(1, 10, 70)}); err != nil {
		t.Fatal(err)
	}
	k.kill()

	k = startKura(t, args...)
	east = keyClient(k, "AKID", "us-east-1")
	if o := replicaOf(t, describe(t, east, "Kept"), "eu-west-1").ProvisionedThroughputOverride; o == nil || aws.ToInt64(o.ReadCapacityUnits) != 9 {
		t.Fatalf("the override after a restart: %+v", o)
	}
	wantScaling(t, "write after a restart", autoScaling(t, east, "Kept").Replicas[0].ReplicaProvisionedWriteCapacityAutoScalingSettings,
		true, 1, 10, "DynamoDBWriteCapacityUtilization:table/Kept", 70)
}
