package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
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
}

// BatchWriteItem puts and deletes up to 25 items in one or more tables.
// Every request goes through the same atomic write path as PutItem and
// DeleteItem (unconditionally); the batch as a whole is not atomic.
// Kura processes every request, so UnprocessedItems is always empty.
func (e *Engine) BatchWriteItem(ctx context.Context, in *wire.BatchWriteItemInput) (*wire.BatchWriteItemOutput, error) {
	if err := prepareBatchWrite(in.RequestItems); err != nil {
		return nil, err
	}
	writes, err := e.resolveBatchWrites(in.RequestItems)
	if err != nil {
		return nil, err
	}
	var tally capacityTally
	for _, w := range writes {
		item := w.item
		res, err := e.writeItem(ctx, itemWrite{
			table:  w.t,
			key:    w.key,
			tooBig: msgItemSize,
			apply:  func(attr.Item) (attr.Item, error) { return item, nil },
		})
		if err != nil {
			return nil, err
		}
		tally.add(w.t.Name, res.units())
	}
	return &wire.BatchWriteItemOutput{
		UnprocessedItems: map[string][]wire.WriteRequest{},
		ConsumedCapacity: tally.list(in.ReturnConsumedCapacity),
	}, nil
}

// prepareBatchWrite is BatchWriteItem's request phase: each request is
// exactly one of PutRequest and DeleteRequest, no put item is over the size
// limit, and there are at most 25 requests in all.
func prepareBatchWrite(items map[string][]wire.WriteRequest) error {
	total := 0
	for _, name := range sortedNames(items) {
		for _, r := range items[name] {
			if (r.PutRequest == nil) == (r.DeleteRequest == nil) {
				return ddberr.RequestInvalid("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
			}
			if r.PutRequest != nil && attr.ItemSize(r.PutRequest.Item) > maxItemSize {
				return ddberr.RequestInvalid(msgItemSize)
			}
			total++
		}
	}
	if total > maxBatchWriteRequests {
		return ddberr.RequestInvalid("Too many items requested for the BatchWriteItem call")
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
			w := batchWrite{t: t}
			if r.PutRequest != nil {
				w.item = r.PutRequest.Item
				w.key, err = t.validateItemKey(w.item)
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
