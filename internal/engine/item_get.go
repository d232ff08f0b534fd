package engine

import (
	"context"
	"errors"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// GetItem reads one item. A missing item yields no Item member and still
// consumes one read (half a unit when eventually consistent).
func (e *Engine) GetItem(ctx context.Context, in *wire.GetItemInput) (*wire.GetItemOutput, error) {
	proj, err := prepareRead(in.ProjectionExpression, in.AttributesToGet, in.ExpressionAttributeNames)
	if err != nil {
		return nil, err
	}
	t, err := e.activeTable(in.TableName)
	if err != nil {
		return nil, err
	}
	k, err := t.validateKey(in.Key)
	if err != nil {
		return nil, err
	}
	if err := t.checkScalarKeyPaths(nil, proj, nil); err != nil {
		return nil, err
	}
	var item attr.Item
	var units float64
	if err := e.quota.Read(ctx, t, "", func() (float64, error) {
		var err error
		item, err = e.getItem(t, k)
		units = readUnits(itemSize(item), isTrue(in.ConsistentRead))
		return units, err
	}); err != nil {
		return nil, err
	}
	out := &wire.GetItemOutput{
		ConsumedCapacity: consumedCapacity(in.ReturnConsumedCapacity, t.Name, units),
	}
	if item != nil {
		out.Item = applyProjection(proj, item)
	}
	return out, nil
}

// getItem reads one item (nil when absent): from the item cache, else the
// store (readLatest). Kura has one copy of the data, so every read is
// strongly consistent.
func (e *Engine) getItem(t *Table, k primaryKey) (attr.Item, error) {
	key := t.storageKey(k)
	if stored, ok := e.items.get(key); ok {
		return attr.DecodeItem(stored)
	}
	b, err := e.readLatest(key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return attr.DecodeItem(b)
}

// readLatest reads key's latest committed value and, when the item's
// stripe lock is free, remembers it in the item cache: holding the lock, no
// writer can replace the item between the read and the fill. It never
// waits for the lock.
func (e *Engine) readLatest(key []byte) ([]byte, error) {
	if e.items != nil {
		if mu := e.lockFor(key); mu.TryLock() {
			defer mu.Unlock()
			b, err := e.readStored(key)
			if err == nil {
				e.items.put(key, b)
			}
			return b, err
		}
	}
	return e.readStored(key)
}

// readStored reads key's latest committed value: with the store's
// snapshot-free point read when it has one, else from a fresh snapshot.
func (e *Engine) readStored(key []byte) ([]byte, error) {
	if e.point != nil {
		return e.point.Get(key)
	}
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	b, err := snap.Get(key)
	return append([]byte(nil), b...), err
}

// prepareRead is the request phase of a single-table read's projection
// (GetItem, a BatchGetItem table): ProjectionExpression and AttributesToGet
// not mixed, the names map used, the projection parsed and resolved. It
// returns nil when the whole item is wanted.
func prepareRead(projection *string, attributesToGet []string, names map[string]string) (*expr.Projection, error) {
	var legacy, exprs []string
	if attributesToGet != nil {
		legacy = append(legacy, "AttributesToGet")
	}
	if projection != nil {
		exprs = append(exprs, "ProjectionExpression")
	}
	if err := expr.CheckMixed(legacy, exprs); err != nil {
		return nil, err
	}
	if err := expr.ValidateParams(names, nil, projection != nil, false); err != nil {
		return nil, err
	}
	if attributesToGet != nil {
		return expr.ConvertAttributesToGet(attributesToGet)
	}
	if projection == nil {
		return nil, nil
	}
	params := expr.NewParams(names, nil)
	pr, err := parseProjection(params, *projection)
	if err != nil {
		return nil, err
	}
	return pr, params.CheckUnused()
}

// applyProjection projects it, or returns it whole when proj is nil.
func applyProjection(proj *expr.Projection, it attr.Item) attr.Item {
	if proj == nil {
		return it
	}
	return proj.Apply(it)
}

// isTrue dereferences an optional boolean member.
func isTrue(b *bool) bool { return b != nil && *b }
