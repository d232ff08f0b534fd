package api

import (
	"context"
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// ReplicaAutoScaling is what a Backend of global tables (version
// 2019.11.21, replication.Region) offers: the auto scaling of a global
// table's replicas. A Backend without it has no global tables, and
// answers both operations as DynamoDB answers them for a table that is not
// a global table's replica (ack-api-quirks lab, October 2026:
// DDB-TABLE-187, 254).
type ReplicaAutoScaling interface {
	DescribeTableReplicaAutoScaling(ctx context.Context, in *wire.DescribeTableReplicaAutoScalingInput) (*wire.DescribeTableReplicaAutoScalingOutput, error)
	UpdateTableReplicaAutoScaling(ctx context.Context, in *wire.UpdateTableReplicaAutoScalingInput) (*wire.UpdateTableReplicaAutoScalingOutput, error)
}

var (
	describeTableReplicaAutoScaling = replicaAutoScalingOp(func(b ReplicaAutoScaling, ctx context.Context, in *wire.DescribeTableReplicaAutoScalingInput) (*wire.TableAutoScalingDescription, error) {
		out, err := b.DescribeTableReplicaAutoScaling(ctx, in)
		if err != nil {
			return nil, err
		}
		return out.TableAutoScalingDescription, nil
	}, func(in *wire.DescribeTableReplicaAutoScalingInput) *string { return in.TableName },
		func(in *wire.DescribeTableReplicaAutoScalingInput) error { return tableNameOnly(in.TableName) })
	updateTableReplicaAutoScaling = replicaAutoScalingOp(func(b ReplicaAutoScaling, ctx context.Context, in *wire.UpdateTableReplicaAutoScalingInput) (*wire.TableAutoScalingDescription, error) {
		out, err := b.UpdateTableReplicaAutoScaling(ctx, in)
		if err != nil {
			return nil, err
		}
		return out.TableAutoScalingDescription, nil
	}, func(in *wire.UpdateTableReplicaAutoScalingInput) *string { return in.TableName }, validateReplicaAutoScaling)
)

// replicaAutoScalingOp is the handler of one of the two operations: call
// on a ReplicaAutoScaling backend, the answer shaped as DynamoDB's; on
// another backend, no global table of the name (table).
func replicaAutoScalingOp[I any](call func(ReplicaAutoScaling, context.Context, *I) (*wire.TableAutoScalingDescription, error),
	table func(*I) *string, validate func(*I) error) handler {
	return op(func(b Backend, ctx context.Context, in *I) (*autoScalingOutput, error) {
		ras, ok := b.(ReplicaAutoScaling)
		if !ok {
			return nil, noGlobalTable(table(in))
		}
		d, err := call(ras, ctx, in)
		if err != nil {
			return nil, err
		}
		return shapeAutoScaling(d), nil
	}, validate)
}

// noGlobalTable is the answer for a table that is no global table's
// replica (or does not exist).
func noGlobalTable(name *string) error {
	n := str(name)
	if i := strings.LastIndex(n, ":table/"); i >= 0 {
		n = n[i+len(":table/"):]
	}
	return ddberr.ResourceNotFound("Global table with name: '" + n + "' does not exist.")
}

// validateReplicaAutoScaling checks UpdateTableReplicaAutoScaling's member
// constraints (the model's: lists of at least one, units of at least one,
// index names, a policy's configuration and target value required).
func validateReplicaAutoScaling(in *wire.UpdateTableReplicaAutoScalingInput) error {
	if err := emptyTableName(in.TableName); err != nil {
		return err
	}
	var v validator
	v.tableName(in.TableName, true)
	v.scalingUpdate("provisionedWriteCapacityAutoScalingUpdate", in.ProvisionedWriteCapacityAutoScalingUpdate)
	if in.GlobalSecondaryIndexUpdates != nil {
		v.minLen("globalSecondaryIndexUpdates", "'[]'", len(in.GlobalSecondaryIndexUpdates), 1)
	}
	for i, u := range in.GlobalSecondaryIndexUpdates {
		p := "globalSecondaryIndexUpdates." + strconv.Itoa(i+1) + ".member."
		v.indexName(p+"indexName", u.IndexName)
		v.scalingUpdate(p+"provisionedWriteCapacityAutoScalingUpdate", u.ProvisionedWriteCapacityAutoScalingUpdate)
	}
	if in.ReplicaUpdates != nil {
		v.minLen("replicaUpdates", "'[]'", len(in.ReplicaUpdates), 1)
	}
	for i, u := range in.ReplicaUpdates {
		p := "replicaUpdates." + strconv.Itoa(i+1) + ".member."
		v.notNull(p+"regionName", u.RegionName == nil)
		v.scalingUpdate(p+"replicaProvisionedReadCapacityAutoScalingUpdate", u.ReplicaProvisionedReadCapacityAutoScalingUpdate)
		for j, x := range u.ReplicaGlobalSecondaryIndexUpdates {
			q := p + "replicaGlobalSecondaryIndexUpdates." + strconv.Itoa(j+1) + ".member."
			v.indexName(q+"indexName", x.IndexName)
			v.scalingUpdate(q+"provisionedReadCapacityAutoScalingUpdate", x.ProvisionedReadCapacityAutoScalingUpdate)
		}
	}
	return v.err()
}

// scalingUpdate checks an AutoScalingSettingsUpdate at member.
func (v *validator) scalingUpdate(member string, u *wire.AutoScalingSettingsUpdate) {
	if u == nil {
		return
	}
	if u.MinimumUnits != nil {
		v.int64Range(member+".minimumUnits", *u.MinimumUnits, 1, 1<<63-1)
	}
	if u.MaximumUnits != nil {
		v.int64Range(member+".maximumUnits", *u.MaximumUnits, 1, 1<<63-1)
	}
	if p := u.ScalingPolicyUpdate; p != nil {
		c := p.TargetTrackingScalingPolicyConfiguration
		v.notNull(member+".scalingPolicyUpdate.targetTrackingScalingPolicyConfiguration", c == nil)
		if c != nil {
			v.notNull(member+".scalingPolicyUpdate.targetTrackingScalingPolicyConfiguration.targetValue", c.TargetValue == nil)
		}
	}
}

// The answer of both operations, as DynamoDB writes it: the lists of
// policies and of GSIs are there even when empty (DDB-TABLE-232), which
// the generated types would omit.
type (
	autoScalingOutput struct {
		TableAutoScalingDescription *autoScalingTable `json:"TableAutoScalingDescription,omitempty"`
	}
	autoScalingTable struct {
		Replicas    []autoScalingReplica `json:"Replicas,omitempty"`
		TableName   *string              `json:"TableName,omitempty"`
		TableStatus string               `json:"TableStatus,omitempty"`
	}
	autoScalingReplica struct {
		GlobalSecondaryIndexes                             []autoScalingIndex   `json:"GlobalSecondaryIndexes"`
		RegionName                                         *string              `json:"RegionName,omitempty"`
		ReplicaProvisionedReadCapacityAutoScalingSettings  *autoScalingSettings `json:"ReplicaProvisionedReadCapacityAutoScalingSettings,omitempty"`
		ReplicaProvisionedWriteCapacityAutoScalingSettings *autoScalingSettings `json:"ReplicaProvisionedWriteCapacityAutoScalingSettings,omitempty"`
		ReplicaStatus                                      string               `json:"ReplicaStatus,omitempty"`
	}
	autoScalingIndex struct {
		IndexName                                   *string              `json:"IndexName,omitempty"`
		IndexStatus                                 string               `json:"IndexStatus,omitempty"`
		ProvisionedReadCapacityAutoScalingSettings  *autoScalingSettings `json:"ProvisionedReadCapacityAutoScalingSettings,omitempty"`
		ProvisionedWriteCapacityAutoScalingSettings *autoScalingSettings `json:"ProvisionedWriteCapacityAutoScalingSettings,omitempty"`
	}
	autoScalingSettings struct {
		AutoScalingDisabled *bool                               `json:"AutoScalingDisabled,omitempty"`
		AutoScalingRoleArn  *string                             `json:"AutoScalingRoleArn,omitempty"`
		MaximumUnits        *int64                              `json:"MaximumUnits,omitempty"`
		MinimumUnits        *int64                              `json:"MinimumUnits,omitempty"`
		ScalingPolicies     []wire.AutoScalingPolicyDescription `json:"ScalingPolicies"`
	}
)

func shapeAutoScaling(d *wire.TableAutoScalingDescription) *autoScalingOutput {
	if d == nil {
		return &autoScalingOutput{}
	}
	t := &autoScalingTable{TableName: d.TableName, TableStatus: d.TableStatus}
	for _, r := range d.Replicas {
		x := autoScalingReplica{GlobalSecondaryIndexes: []autoScalingIndex{}, RegionName: r.RegionName, ReplicaStatus: r.ReplicaStatus,
			ReplicaProvisionedReadCapacityAutoScalingSettings:  shapeSettings(r.ReplicaProvisionedReadCapacityAutoScalingSettings),
			ReplicaProvisionedWriteCapacityAutoScalingSettings: shapeSettings(r.ReplicaProvisionedWriteCapacityAutoScalingSettings)}
		for _, g := range r.GlobalSecondaryIndexes {
			x.GlobalSecondaryIndexes = append(x.GlobalSecondaryIndexes, autoScalingIndex{IndexName: g.IndexName, IndexStatus: g.IndexStatus,
				ProvisionedReadCapacityAutoScalingSettings:  shapeSettings(g.ProvisionedReadCapacityAutoScalingSettings),
				ProvisionedWriteCapacityAutoScalingSettings: shapeSettings(g.ProvisionedWriteCapacityAutoScalingSettings)})
		}
		t.Replicas = append(t.Replicas, x)
	}
	return &autoScalingOutput{TableAutoScalingDescription: t}
}

func shapeSettings(s *wire.AutoScalingSettingsDescription) *autoScalingSettings {
	if s == nil {
		return nil
	}
	out := &autoScalingSettings{AutoScalingDisabled: s.AutoScalingDisabled, AutoScalingRoleArn: s.AutoScalingRoleArn,
		MaximumUnits: s.MaximumUnits, MinimumUnits: s.MinimumUnits, ScalingPolicies: s.ScalingPolicies}
	if out.ScalingPolicies == nil {
		out.ScalingPolicies = []wire.AutoScalingPolicyDescription{}
	}
	return out
}
