package api

import (
	"context"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// The six operations of global tables version 2017.11.29 (Legacy), kept in
// one file because they share one answer. DynamoDB no longer creates such
// tables, so after the member checks it answers every call alike, whatever
// the names (ScyllaDB's Alternator tests, run against DynamoDB, quote it):
// CreateGlobalTable refuses the version, the operations that name a global
// table find none, and ListGlobalTables lists none. That holds for the
// tables of version 2019.11.21 (UpdateTable ReplicaUpdates, with --regions:
// internal/replication) too, which DynamoDB's Describe/Update
// GlobalTable(Settings) do not find either (the ack-api-quirks lab's
// probes, October 2026). The answers need no backend: each call ignores it.
var (
	createGlobalTable = op(func(Backend, context.Context, *wire.CreateGlobalTableInput) (*wire.CreateGlobalTableOutput, error) {
		return nil, ddberr.Validation("DynamoDB global tables version 2017.11.29 is not supported. " +
			"We recommend using DynamoDB global tables version 2019.11.21, instead of version 2017.11.29 (Legacy).")
	}, func(in *wire.CreateGlobalTableInput) error {
		var v validator
		v.globalTableName(in.GlobalTableName)
		v.notNull("replicationGroup", in.ReplicationGroup == nil)
		return v.err()
	})
	updateGlobalTable = op(func(_ Backend, _ context.Context, in *wire.UpdateGlobalTableInput) (*wire.UpdateGlobalTableOutput, error) {
		return nil, globalTableNotFound(in.GlobalTableName)
	}, func(in *wire.UpdateGlobalTableInput) error {
		var v validator
		v.globalTableName(in.GlobalTableName)
		v.notNull("replicaUpdates", in.ReplicaUpdates == nil)
		return v.err()
	})
	describeGlobalTable = op(func(_ Backend, _ context.Context, in *wire.DescribeGlobalTableInput) (*wire.DescribeGlobalTableOutput, error) {
		return nil, globalTableNotFound(in.GlobalTableName)
	}, func(in *wire.DescribeGlobalTableInput) error { return onlyGlobalTableName(in.GlobalTableName) })
	describeGlobalTableSettings = op(func(_ Backend, _ context.Context, in *wire.DescribeGlobalTableSettingsInput) (*wire.DescribeGlobalTableSettingsOutput, error) {
		return nil, globalTableNotFound(in.GlobalTableName)
	}, func(in *wire.DescribeGlobalTableSettingsInput) error { return onlyGlobalTableName(in.GlobalTableName) })
	updateGlobalTableSettings = op(func(_ Backend, _ context.Context, in *wire.UpdateGlobalTableSettingsInput) (*wire.UpdateGlobalTableSettingsOutput, error) {
		return nil, globalTableNotFound(in.GlobalTableName)
	}, func(in *wire.UpdateGlobalTableSettingsInput) error {
		var v validator
		v.globalTableName(in.GlobalTableName)
		v.enum("globalTableBillingMode", in.GlobalTableBillingMode, enumBillingMode)
		return v.err()
	})
	listGlobalTables = op(func(Backend, context.Context, *wire.ListGlobalTablesInput) (*noGlobalTables, error) {
		return &noGlobalTables{GlobalTables: []wire.GlobalTable{}}, nil
	}, func(in *wire.ListGlobalTablesInput) error {
		var v validator
		if s := in.ExclusiveStartGlobalTableName; s != nil {
			v.plainName("exclusiveStartGlobalTableName", *s)
		}
		v.intRange("limit", in.Limit, 1, 100)
		return v.err()
	})
)

// noGlobalTables is ListGlobalTables' answer: the list present and empty
// (the generated output omits an empty one).
type noGlobalTables struct {
	GlobalTables []wire.GlobalTable `json:"GlobalTables"`
}

// globalTableName checks a required GlobalTableName (a table name, never
// an ARN).
func (v *validator) globalTableName(p *string) {
	v.notNull("globalTableName", p == nil)
	if p != nil {
		v.plainName("globalTableName", *p)
	}
}

func onlyGlobalTableName(p *string) error {
	var v validator
	v.globalTableName(p)
	return v.err()
}

func globalTableNotFound(name *string) error {
	return ddberr.GlobalTableNotFound("Global table with name '" + *name + "' does not exist.")
}
