package engine

import (
	"context"
	"slices"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/wire"
)

// tableNotFound is the control-plane ResourceNotFoundException.
func tableNotFound(name string) *ddberr.Error { return ddberr.TableNamedNotFound(name) }

// describe returns a fresh TableDescription of t with its dynamic figures.
func (e *Engine) describe(t *Table) *wire.TableDescription {
	d := t.Desc // shallow copy; slices that are modified below are cloned
	d.TableStatus = t.Status
	items, size := int64(0), int64(0)
	if t.stats != nil {
		items, size = max(t.stats.items.Load(), 0), max(t.stats.bytes.Load(), 0)
	}
	d.ItemCount = cpPtr(items)
	d.TableSizeBytes = cpPtr(size)
	d.ProvisionedThroughput = tables.DescribeDecreases(d.ProvisionedThroughput, e.clock.Now())
	d.GlobalSecondaryIndexes = slices.Clone(d.GlobalSecondaryIndexes)
	d.LocalSecondaryIndexes = slices.Clone(d.LocalSecondaryIndexes)
	e.describeIndexes(t, &d)
	e.describeVectors(t, &d)
	return &d
}

// DescribeTable describes a table.
func (e *Engine) DescribeTable(ctx context.Context, in *wire.DescribeTableInput) (*wire.DescribeTableOutput, error) {
	name := cpDeref(in.TableName)
	t, ok := e.lookupTable(name)
	if !ok {
		return nil, tableNotFound(name)
	}
	return &wire.DescribeTableOutput{Table: e.describe(t)}, nil
}
