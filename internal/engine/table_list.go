package engine

import (
	"context"
	"slices"

	"github.com/kura-db/kura/internal/wire"
)

// maxListTables is ListTables' page size limit (and default).
const maxListTables = 100

// ListTables lists table names in ascending order, paged by Limit and
// ExclusiveStartTableName.
func (e *Engine) ListTables(ctx context.Context, in *wire.ListTablesInput) (*wire.ListTablesOutput, error) {
	limit := maxListTables
	if in.Limit != nil && *in.Limit > 0 && int(*in.Limit) < limit {
		limit = int(*in.Limit)
	}
	start := cpDeref(in.ExclusiveStartTableName)
	if e.cfg.Cluster { // tables other nodes created or deleted
		if err := e.syncCatalog(); err != nil {
			return nil, err
		}
	}
	var names []string
	for _, t := range e.snapshotTables() {
		if t.Name > start {
			names = append(names, t.Name)
		}
	}
	slices.Sort(names)
	out := &wire.ListTablesOutput{TableNames: []string{}}
	if len(names) > limit {
		names = names[:limit]
		out.LastEvaluatedTableName = cpPtr(names[limit-1])
	}
	out.TableNames = append(out.TableNames, names...)
	return out, nil
}
