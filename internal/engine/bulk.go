package engine

import (
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/bulk"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/wire"
)

// Bulk operations (StartBulkPutItems, DescribeBulkOperation,
// ListBulkOperations, CancelBulkOperation) are package bulk's: the core
// looks the table up (bulkCatalog) and is its PutItem (bulkTarget).

// StartBulkPutItems starts putting the items of S3 objects into a table.
func (e *Engine) StartBulkPutItems(ctx context.Context, in *wire.StartBulkPutItemsInput) (*wire.StartBulkPutItemsOutput, error) {
	d, err := e.bulk.StartPut(in)
	if d == nil && err != nil {
		return nil, err
	}
	return &wire.StartBulkPutItemsOutput{BulkOperationDescription: d}, err
}

// openBulk reads the stored bulk operations and goes on with the ones a
// stop interrupted (package bulk).
func (e *Engine) openBulk() (err error) {
	e.bulk, err = bulk.Open(bulk.Options{
		Store: e.store, Objects: e.cfg.Objects, Now: e.clock.Now, Sleep: e.sleep, WriteUnits: writeUnits,
		Target: func(tableID uint64) (bulk.Target, bool) {
			t, ok := e.tableByID(tableID)
			return bulkTarget{e, t}, ok
		},
		Closing: e.closing, Go: e.goBackground, Claim: e.claimJob,
		Catalog: bulkCatalog{jobsHost{e}}, Region: e.cfg.Region, Account: e.cfg.AccountID, Shared: e.cfg.Cluster,
	})
	return err
}

// bulkCatalog is bulk.Catalog.
type bulkCatalog struct{ jobsHost }

func (c bulkCatalog) NameOf(s string) string { return tableNameOf(s) }

func (c bulkCatalog) Active(name *string) (bulk.Table, error) {
	t, err := c.e.activeTable(name)
	if err != nil {
		return bulk.Table{}, err
	}
	return bulk.Table{ID: t.ID, Name: t.Name, TableId: t.Desc.TableId, IndexBuilding: t.indexBuilding(), Target: bulkTarget{c.e, t}}, nil
}

// bulkTarget is a bulk operation's table: PutItem on it, and the index
// entries an item makes there.
type bulkTarget struct {
	e *Engine
	t *Table
}

func (b bulkTarget) Name() string { return b.t.Name }

func (b bulkTarget) Put(in *wire.PutItemInput) error {
	_, err := b.e.PutItem(context.Background(), in)
	return err
}

func (b bulkTarget) IndexEntries(item attr.Item, add func(global bool, index string, size int64)) {
	for _, ix := range b.t.GSIs {
		if ix.Indexed(item) {
			add(true, ix.Name, indexes.EntrySize(b.t.project(ix, item)))
		}
	}
	for _, ix := range b.t.LSIs {
		if ix.Indexed(item) {
			add(false, ix.Name, indexes.EntrySize(b.t.project(ix, item)))
		}
	}
}

// DescribeBulkOperation describes one bulk operation.
func (e *Engine) DescribeBulkOperation(ctx context.Context, in *wire.DescribeBulkOperationInput) (*wire.DescribeBulkOperationOutput, error) {
	if err := e.authorizeARN("DescribeBulkOperation", cpDeref(in.BulkOperationArn)); err != nil {
		return nil, err
	}
	d, err := e.bulk.Describe(cpDeref(in.BulkOperationArn))
	if err != nil {
		return nil, err
	}
	return &wire.DescribeBulkOperationOutput{BulkOperationDescription: d}, nil
}

// ListBulkOperations lists the bulk operations started in the last 90
// days, most recent first, MaxResults (10 by default) at a time.
func (e *Engine) ListBulkOperations(ctx context.Context, in *wire.ListBulkOperationsInput) (*wire.ListBulkOperationsOutput, error) {
	return e.bulk.List(in)
}

// CancelBulkOperation asks a running operation to stop: it is CANCELLING
// until its run has stopped and written its report, then CANCELLED. The
// items it wrote stay.
func (e *Engine) CancelBulkOperation(ctx context.Context, in *wire.CancelBulkOperationInput) (*wire.CancelBulkOperationOutput, error) {
	if err := e.authorizeARN("CancelBulkOperation", cpDeref(in.BulkOperationArn)); err != nil {
		return nil, err
	}
	return e.bulk.Cancel(cpDeref(in.BulkOperationArn))
}

// indexBuilding reports whether a secondary index of t is being created.
func (t *Table) indexBuilding() bool {
	for _, ix := range t.GSIs {
		if ix.Status == StatusCreating || ix.Backfilling {
			return true
		}
	}
	return false
}
