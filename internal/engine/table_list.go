package engine

import (
	"context"

	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/wire"
)

// ListTables lists table names in ascending order, paged by Limit and
// ExclusiveStartTableName (tables.ListPage).
func (e *Engine) ListTables(ctx context.Context, in *wire.ListTablesInput) (*wire.ListTablesOutput, error) {
	if e.cfg.Cluster { // tables other nodes created or deleted
		if err := e.syncCatalog(); err != nil {
			return nil, err
		}
	}
	var names []string
	for _, t := range e.snapshotTables() {
		names = append(names, t.Name)
	}
	return tables.ListPage(names, in), nil
}

// DescribeLimits reports DynamoDB's default capacity quotas.
func (e *Engine) DescribeLimits(ctx context.Context, in *wire.DescribeLimitsInput) (*wire.DescribeLimitsOutput, error) {
	return tables.Limits(), nil
}

// DescribeEndpoints answers as DynamoDB does: its regional endpoint.
func (e *Engine) DescribeEndpoints(ctx context.Context, in *wire.DescribeEndpointsInput) (*wire.DescribeEndpointsOutput, error) {
	return e.account().Endpoints(), nil
}

// tableNameOf returns the table name a TableName member refers to
// (tables.NameOf).
func tableNameOf(s string) string { return tables.NameOf(s) }

// createTableName is the name CreateTable gives a table named by raw.
var createTableName = tables.CreateName
