package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// maxBatchWriteRequests is the most put and delete requests one
// BatchWriteItem may carry, over all tables.
const maxBatchWriteRequests = 25

// batchWrite is one validated request of a BatchWriteItem.
type batchWrite struct {
	t    *Table
	key  primaryKey
	item attr.Item // nil for a delete
	name string    // the table as the request names it
	req  wire.WriteRequest
}

// BatchWriteItem puts and deletes up to 25 items in one or more tables.
// Every request goes through the same atomic write path as PutItem and
// DeleteItem (unconditionally); the batch as a whole is not atomic.
// Requests come back in UnprocessedItems only when throughput is enforced
// and their table is out of write capacity (the quota applier,
// throttle.Applier).
func (e *Engine) BatchWriteItem(ctx context.Context, in *wire.BatchWriteItemInput) (*wire.BatchWriteItemOutput, error) {
	if err := prepareBatchWrite(in.RequestItems); err != nil {
		return nil, err
	}
	writes, err := e.resolveBatchWrites(in.RequestItems)
	if err != nil {
		return nil, err
	}
	writes, results, refused, err := e.applier.ApplyBatch(ctx, writes)
	if err != nil {
		return nil, err
	}
	unprocessed := map[string][]wire.WriteRequest{}
	for _, w := range refused {
		unprocessed[w.name] = append(unprocessed[w.name], w.req)
	}
	var tally capacityTally
	for i, w := range writes {
		tally.addIndexes(w.t.Name, w.t.writeUnitsOf(results[i]))
	}
	return &wire.BatchWriteItemOutput{
		UnprocessedItems:      unprocessed,
		ConsumedCapacity:      tally.list(in.ReturnConsumedCapacity),
		ItemCollectionMetrics: e.batchCollectionMetrics(in.ReturnItemCollectionMetrics, writes),
	}, nil
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

// prepareBatchWrite is BatchWriteItem's request phase: each request is
// exactly one of PutRequest and DeleteRequest, no put item is over the size
// limit, and there are at most 25 requests in all.
func prepareBatchWrite(items map[string][]wire.WriteRequest) error {
	total := 0
	for _, name := range sortedNames(items) {
		for _, r := range items[name] {
			if (r.PutRequest == nil) == (r.DeleteRequest == nil) {
				return ddberr.Detected("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
			}
			if r.PutRequest != nil && attr.ItemSize(r.PutRequest.Item) > maxItemSize {
				return ddberr.Detected(msgItemSize)
			}
			total++
		}
	}
	if total > maxBatchWriteRequests {
		return ddberr.Detected("Too many items requested for the BatchWriteItem call")
	}
	return nil
}

// resolveBatchWrites looks up the tables, validates every key against its
// schema and rejects two requests on the same item.
func (e *Engine) resolveBatchWrites(items map[string][]wire.WriteRequest) ([]batchWrite, error) {
	var writes []batchWrite
	for _, name := range sortedNames(items) {
		t, err := e.activeTable(&name)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, r := range items[name] {
			w := batchWrite{t: t, name: name, req: r}
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
				return nil, batchKeyError(err)
			}
			id := string(t.storageKey(w.key))
			if seen[id] {
				return nil, ddberr.Validation("Provided list of item keys contains duplicates")
			}
			seen[id] = true
			writes = append(writes, w)
		}
	}
	return writes, nil
}

// batchKeyError reports a put item's missing or mistyped key attribute as
// BatchWriteItem does: as a key that does not match the schema.
func batchKeyError(err error) error {
	var de *ddberr.Error
	if errors.As(err, &de) && (strings.HasPrefix(de.Message, "One or more parameter values were invalid: Missing the key") ||
		strings.HasPrefix(de.Message, "One or more parameter values were invalid: Type mismatch for key")) {
		return ddberr.Validation(msgKeySchema)
	}
	return err
}
