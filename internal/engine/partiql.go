package engine

import (
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/partiqlexec"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/wire"
)

// PartiQL is lowered and run by internal/engine/partiqlexec over the
// core's item operations (pqCore).

// ExecuteStatement runs one PartiQL statement.
func (e *Engine) ExecuteStatement(ctx context.Context, in *wire.ExecuteStatementInput) (*wire.ExecuteStatementOutput, error) {
	return partiqlexec.ExecuteStatement(ctx, pqCore{e}, in)
}

// BatchExecuteStatement runs up to 25 statements, each on its own.
func (e *Engine) BatchExecuteStatement(ctx context.Context, in *wire.BatchExecuteStatementInput) (*wire.BatchExecuteStatementOutput, error) {
	return partiqlexec.BatchExecuteStatement(ctx, pqCore{e}, in)
}

// ExecuteTransaction runs up to 100 statements as one transaction.
func (e *Engine) ExecuteTransaction(ctx context.Context, in *wire.ExecuteTransactionInput) (*wire.ExecuteTransactionOutput, error) {
	return partiqlexec.ExecuteTransaction(ctx, pqCore{e}, in)
}

// pqCore is the engine as partiqlexec.Core.
type pqCore struct{ e *Engine }

func (c pqCore) Table(name *string) (partiqlexec.Table, error) {
	t, err := c.e.activeTable(name)
	if err != nil {
		return nil, err
	}
	return pqTable{t}, nil
}

func (c pqCore) PutItem(ctx context.Context, in *wire.PutItemInput) (*wire.PutItemOutput, error) {
	return c.e.PutItem(ctx, in)
}

func (c pqCore) UpdateItem(ctx context.Context, in *wire.UpdateItemInput) (*wire.UpdateItemOutput, error) {
	return c.e.updateItem(ctx, in, false) // sized flat, unlike UpdateItem
}

func (c pqCore) DeleteItem(ctx context.Context, in *wire.DeleteItemInput) (*wire.DeleteItemOutput, error) {
	return c.e.DeleteItem(ctx, in)
}

func (c pqCore) Query(ctx context.Context, in *wire.QueryInput) (*wire.QueryOutput, error) {
	return c.e.Query(ctx, in)
}

func (c pqCore) Scan(_ context.Context, in *wire.ScanInput) (*wire.ScanOutput, error) {
	return c.e.reads.ScanPartiQL(in)
}

// Get is GetItem without its checks of projected paths through key
// attributes, answering the item and its units.
func (c pqCore) Get(_ context.Context, g *wire.Get, consistent bool) (attr.Item, float64, error) {
	e := c.e
	proj, err := prepareRead(g.ProjectionExpression, nil, g.ExpressionAttributeNames)
	if err != nil {
		return nil, 0, err
	}
	t, err := e.activeTable(g.TableName)
	if err != nil {
		return nil, 0, err
	}
	k, err := t.validateKey(g.Key)
	if err != nil {
		return nil, 0, err
	}
	var item attr.Item
	var units float64
	if err := e.quota.Read(context.Background(), t, "", func() (float64, error) {
		var err error
		item, err = e.getItem(t, k)
		units = readUnits(itemSize(item), consistent)
		return units, err
	}); err != nil {
		return nil, 0, err
	}
	if item != nil {
		item = applyProjection(proj, item)
	}
	return item, units, nil
}

func (c pqCore) TransactWrite(ctx context.Context, items []wire.TransactWriteItem, token *string, in any, mode string) ([]wire.ConsumedCapacity, error) {
	e := c.e
	w, err := e.prepareTransactWrite(items)
	if err != nil {
		return nil, err
	}
	return e.tx.WriteStatements(ctx, w, token, in, mode)
}

func (c pqCore) TransactGet(_ context.Context, items []wire.TransactGetItem, mode string) ([]attr.Item, []wire.ConsumedCapacity, error) {
	return c.e.transactGet(items, mode, false)
}

// pqTable is a table as partiqlexec.Table.
type pqTable struct{ t *Table }

func (p pqTable) Def() *change.Table { return &p.t.Table }

func (p pqTable) Index(name string) (partiqlexec.Index, bool) {
	ix, ok := p.t.Index(name)
	if !ok {
		return partiqlexec.Index{}, false
	}
	return partiqlexec.Index{Name: ix.Name, Local: ix.Local, Hashes: ix.Hashes, Ranges: ix.Ranges,
		Projects: func(n string) bool { return p.t.projects(ix, n) }}, true
}

func (p pqTable) CheckScanIndex(name string) error {
	return vectors.CheckRead(p.t.Vectors, name, false)
}
