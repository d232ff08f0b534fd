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
// table find none, and ListGlobalTables lists none. Version 2019.11.21
// (UpdateTable ReplicaUpdates) is not supported by Kura.
var (
	createGlobalTable = legacyGlobalTable(func(in *wire.CreateGlobalTableInput, v *validator) {
		v.globalTableName(in.GlobalTableName)
		v.notNull("replicationGroup", in.ReplicationGroup == nil)
	}, func(*wire.CreateGlobalTableInput) (any, error) {
		return nil, ddberr.Validation("DynamoDB global tables version 2017.11.29 is not supported. " +
			"We recommend using DynamoDB global tables version 2019.11.21, instead of version 2017.11.29 (Legacy).")
	})
	updateGlobalTable = legacyGlobalTable(func(in *wire.UpdateGlobalTableInput, v *validator) {
		v.globalTableName(in.GlobalTableName)
		v.notNull("replicaUpdates", in.ReplicaUpdates == nil)
	}, func(in *wire.UpdateGlobalTableInput) (any, error) {
		return nil, globalTableNotFound(in.GlobalTableName)
	})
	describeGlobalTable = legacyGlobalTable(func(in *wire.DescribeGlobalTableInput, v *validator) {
		v.globalTableName(in.GlobalTableName)
	}, func(in *wire.DescribeGlobalTableInput) (any, error) {
		return nil, globalTableNotFound(in.GlobalTableName)
	})
	describeGlobalTableSettings = legacyGlobalTable(func(in *wire.DescribeGlobalTableSettingsInput, v *validator) {
		v.globalTableName(in.GlobalTableName)
	}, func(in *wire.DescribeGlobalTableSettingsInput) (any, error) {
		return nil, globalTableNotFound(in.GlobalTableName)
	})
	updateGlobalTableSettings = legacyGlobalTable(func(in *wire.UpdateGlobalTableSettingsInput, v *validator) {
		v.globalTableName(in.GlobalTableName)
		v.enum("globalTableBillingMode", in.GlobalTableBillingMode, enumBillingMode)
	}, func(in *wire.UpdateGlobalTableSettingsInput) (any, error) {
		return nil, globalTableNotFound(in.GlobalTableName)
	})
	listGlobalTables = legacyGlobalTable(func(in *wire.ListGlobalTablesInput, v *validator) {
		if s := in.ExclusiveStartGlobalTableName; s != nil {
			v.plainName("exclusiveStartGlobalTableName", *s)
		}
		v.intRange("limit", in.Limit, 1, 100)
	}, func(*wire.ListGlobalTablesInput) (any, error) {
		// The list is present and empty (the generated output omits an
		// empty one).
		return &struct {
			GlobalTables []wire.GlobalTable `json:"GlobalTables"`
		}{GlobalTables: []wire.GlobalTable{}}, nil
	})
)

// legacyGlobalTable builds a handler that decodes the body into a fresh I,
// checks its members and answers, without the backend.
func legacyGlobalTable[I any](check func(*I, *validator), answer func(*I) (any, error)) handler {
	return func(_ context.Context, _ Backend, body []byte) (any, error) {
		in := new(I)
		if err := decode(body, in); err != nil {
			return nil, err
		}
		var v validator
		check(in, &v)
		if err := v.err(); err != nil {
			return nil, err
		}
		return answer(in)
	}
}

// globalTableName checks a required GlobalTableName (a table name, never
// an ARN).
func (v *validator) globalTableName(p *string) {
	v.notNull("globalTableName", p == nil)
	if p != nil {
		v.plainName("globalTableName", *p)
	}
}

func globalTableNotFound(name *string) error {
	return ddberr.GlobalTableNotFound("Global table with name '" + *name + "' does not exist.")
}
