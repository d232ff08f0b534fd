package engine

import (
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/batch"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// BatchGetItem reads up to 100 items from one or more tables from one
// snapshot (batch.GetItems). Keys whose items would take the response
// past 16 MB, or whose table is out of read capacity (throttle.go), come
// back in UnprocessedKeys.
func (e *Engine) BatchGetItem(ctx context.Context, in *wire.BatchGetItemInput) (*wire.BatchGetItemOutput, error) {
	return batch.GetItems(batchCore{e}, in)
}

func (c batchCore) Projection(projection *string, attributesToGet []string, names map[string]string) (*expr.Projection, error) {
	return prepareRead(projection, attributesToGet, names)
}

func (c batchCore) GetTable(name string) (*Table, error) { return c.e.activeTable(&name) }

func (c batchCore) Key(t *Table, key attr.Item) ([]byte, error) {
	k, err := t.validateKey(key)
	if err != nil {
		return nil, err
	}
	return t.storageKey(k), nil
}

func (c batchCore) CheckProjection(t *Table, p *expr.Projection) error {
	return t.checkScalarKeyPaths(nil, p, nil)
}

func (c batchCore) Snapshot() (batch.Snapshot, error) {
	snap, err := c.e.store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	return batchSnapshot{snap}, nil
}

func (c batchCore) AdmitRead(t *Table) error { return c.e.quota.AdmitRead(t, "") }

func (c batchCore) ChargeRead(t *Table, item attr.Item, consistent bool) (string, float64) {
	units := readUnits(itemSize(item), consistent)
	c.e.quota.ChargeRead(t, "", units)
	return t.Name, units
}

// batchSnapshot is a store snapshot as a batch.Snapshot.
type batchSnapshot struct{ storage.Snapshot }

func (s batchSnapshot) Read(key []byte) (attr.Item, error) { return readItem(s.Snapshot, key) }
