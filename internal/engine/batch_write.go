package engine

import (
	"context"
	"errors"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/batch"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// batchWrite is one validated request of a BatchWriteItem (a
// batch.Write).
type batchWrite struct {
	t    *Table
	key  primaryKey
	item attr.Item // nil for a delete
	name string    // the table as the request names it
	req  wire.WriteRequest
}

func (w batchWrite) Request() (string, wire.WriteRequest) { return w.name, w.req }

// BatchWriteItem puts and deletes up to 25 items in one or more tables
// (batch.WriteItems: the request phase, the tables and keys, the
// unprocessed requests, the capacity). Every request goes through the
// same atomic write path as PutItem and DeleteItem (unconditionally,
// commitBatchWrites); the batch as a whole is not atomic. Requests come
// back in UnprocessedItems only when throughput is enforced and their
// table is out of write capacity (the quota applier, throttle.Applier).
func (e *Engine) BatchWriteItem(ctx context.Context, in *wire.BatchWriteItemInput) (*wire.BatchWriteItemOutput, error) {
	return batch.WriteItems(ctx, batchCore{e}, in)
}

// batchCore is the core as package batch sees it (batch.WriteCore,
// batch.GetCore).
type batchCore struct{ e *Engine }

// WriteTable looks up the named table; its resolver validates a put
// item's key and index keys, or a delete's key.
func (c batchCore) WriteTable(name string) (func(wire.WriteRequest) (batchWrite, []byte, error), error) {
	t, err := c.e.activeTable(&name)
	if err != nil {
		return nil, err
	}
	return func(r wire.WriteRequest) (batchWrite, []byte, error) {
		w := batchWrite{t: t, name: name, req: r}
		var err error
		if r.PutRequest != nil {
			w.item = r.PutRequest.Item
			w.key, err = t.validateItemKey(w.item)
			if err == nil {
				err = t.checkIndexKeys(w.item, false)
			}
		} else {
			w.key, err = t.validateKey(r.DeleteRequest.Key)
		}
		if err != nil {
			return w, nil, err
		}
		return w, t.storageKey(w.key), nil
	}, nil
}

func (c batchCore) ApplyBatch(ctx context.Context, writes []batchWrite) ([]batchWrite, []writeResult, []batchWrite, error) {
	return c.e.applier.ApplyBatch(ctx, writes)
}

func (c batchCore) WriteUnits(w batchWrite, r writeResult) (string, indexes.Units) {
	return w.t.Name, w.t.writeUnitsOf(r)
}

func (c batchCore) Collections(mode string, writes []batchWrite) map[string][]wire.ItemCollectionMetrics {
	return c.e.batchCollectionMetrics(mode, writes)
}

// estimate is the table write units a write is expected to consume: its
// item's, or one for a delete. The difference to what it did consume is
// paid after the commit.
func (w batchWrite) Estimate() float64 {
	return writeUnits(itemSize(w.item))
}

// commitBatchWrites applies the batch's writes. Normally they share one
// storage transaction and so one commit (one fsync with --sync) under the
// stripe locks of all their items, taken in global order as transactions
// take them; each request still goes through stageWrite like a single
// PutItem or DeleteItem. When an in-flight transaction holds one of the
// items, every request goes through writeItem on its own instead, so the
// requests before it are applied and it fails with TransactionConflict.
func (e *Engine) commitBatchWrites(ctx context.Context, writes []batchWrite) ([]writeResult, error) {
	iws := make([]itemWrite, len(writes))
	keys := make([][]byte, len(writes))
	for i, w := range writes {
		item := w.item
		iws[i] = itemWrite{
			table:  w.t,
			key:    w.key,
			tooBig: msgItemSize,
			whole:  item != nil,
			apply:  func(attr.Item) (attr.Item, error) { return item, nil },
		}
		keys[i] = w.t.storageKey(w.key)
	}
	results := make([]writeResult, len(writes))
	if _, held := e.tx.HoldsAny(keys); held {
		for i, iw := range iws {
			res, err := e.writeItem(ctx, iw)
			if err != nil {
				return nil, err
			}
			results[i] = res
		}
		return results, nil
	}
	unlock := e.lockStripes(keys)
	defer unlock()
	tables, pks := make([]*Table, len(writes)), make([]primaryKey, len(writes))
	for i, w := range writes {
		tables[i], pks[i] = w.t, w.key
	}
	defer e.lockCollections(tables, pks)() // LSI tables (indexes.go)
	changed := make([]bool, len(writes))
	for attempt := 0; ; attempt++ {
		err := e.tryBatchWrites(iws, keys, results, changed)
		if err == nil {
			break
		}
		if !errors.Is(err, storage.ErrConflict) {
			return nil, err
		}
		if attempt == maxConflictRetries {
			return nil, ddberr.Internal("Internal server error")
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		conflictPause(attempt)
		for i := range iws {
			var rerr error
			if iws[i].table, rerr = e.refreshed(err, iws[i].table); rerr != nil {
				return nil, rerr
			}
		}
	}
	for i, iw := range iws {
		if changed[i] {
			e.writeStats(iw.table, results[i])
		}
	}
	return results, nil
}

// tryBatchWrites is one attempt of commitBatchWrites: stage every write in
// one storage transaction and commit it.
func (e *Engine) tryBatchWrites(iws []itemWrite, keys [][]byte, results []writeResult, changed []bool) error {
	txn, err := e.beginWrite()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	for i, iw := range iws {
		if results[i], changed[i], err = e.stageWrite(txn, iw, keys[i]); err != nil {
			return err
		}
	}
	return txn.Commit(storage.CommitOptions{Sync: e.cfg.Sync})
}
