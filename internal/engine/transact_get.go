package engine

import (
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/transact"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// txGet is one validated Get of a read transaction.
type txGet struct {
	table *Table
	proj  *expr.Projection
	skey  []byte
}

// TransactGetItems reads up to 100 items, from one or more tables, as of
// one consistent snapshot. A Get on an item that an in-flight write
// transaction holds and is still preparing cancels the request with
// TransactionConflict, as in DynamoDB (package transact: a committing
// writer does not, and a preparing one is waited for briefly).
func (e *Engine) TransactGetItems(ctx context.Context, in *wire.TransactGetItemsInput) (*wire.TransactGetItemsOutput, error) {
	items, cc, err := e.transactGet(in.TransactItems, in.ReturnConsumedCapacity, true)
	if err != nil {
		return nil, err
	}
	out := &wire.TransactGetItemsOutput{Responses: make([]wire.ItemResponse, len(items)), ConsumedCapacity: cc}
	for i, it := range items {
		out.Responses[i].Item = it
	}
	return out, nil
}

// transactGet reads the Gets' items (transact.State.GetItems), projected
// (nil for a missing item), with the capacity mode asks for. With
// limitSize, items adding up to more than 4 MB refuse the request
// (TransactGetItems; ExecuteTransaction's reads have no such check).
func (e *Engine) transactGet(in []wire.TransactGetItem, mode string, limitSize bool) ([]attr.Item, []wire.ConsumedCapacity, error) {
	return e.tx.GetItems(txGets{e: e, items: in, gets: make([]txGet, len(in))}, mode, limitSize)
}

// txGets are a read transaction's Gets as transact.Reads.
type txGets struct {
	e     *Engine
	items []wire.TransactGetItem
	gets  []txGet
}

func (g txGets) Len() int { return len(g.items) }

func (g txGets) Check(i int) error {
	it := g.items[i]
	if it.Get == nil {
		return ddberr.Validation("Invalid Request: TransactGetItem should contain a Get request")
	}
	var err error
	g.gets[i].proj, err = prepareRead(it.Get.ProjectionExpression, nil, it.Get.ExpressionAttributeNames)
	return err
}

func (g txGets) Resolve(i int) ([]byte, error) {
	it := g.items[i]
	t, err := g.e.activeTable(it.Get.TableName)
	if err != nil {
		return nil, err
	}
	k, err := t.validateKey(it.Get.Key)
	if err != nil && ddberr.As(err).Message == msgKeySchema {
		return nil, transact.Invalid(err)
	}
	if err != nil {
		return nil, err
	}
	if err := t.checkScalarKeyPaths(nil, g.gets[i].proj, nil); err != nil {
		return nil, err
	}
	g.gets[i].table, g.gets[i].skey = t, t.storageKey(k)
	return g.gets[i].skey, nil
}

func (g txGets) Admit() error { return g.e.admitTxReads(g.gets) }

func (g txGets) Read(keys [][]byte) ([]attr.Item, error) { return g.e.readItems(keys) }

func (g txGets) Charge(items []attr.Item) { g.e.chargeTxReads(g.gets, items) }

func (g txGets) Bill(i int, item attr.Item) (string, float64) {
	return g.gets[i].table.Name, 2 * readUnits(itemSize(item), true)
}

func (g txGets) Project(i int, item attr.Item) attr.Item {
	return applyProjection(g.gets[i].proj, item)
}

// readItems reads the items at keys from one snapshot (nil for a missing
// item).
func (e *Engine) readItems(keys [][]byte) ([]attr.Item, error) {
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	items := make([]attr.Item, len(keys))
	for i, k := range keys {
		if items[i], err = readItem(snap, k); err != nil {
			return nil, err
		}
	}
	return items, nil
}
