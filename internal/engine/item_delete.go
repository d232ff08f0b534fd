package engine

import (
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// DeleteItem deletes one item, optionally under a condition. Deleting a
// missing item succeeds (and still consumes a write unit).
func (e *Engine) DeleteItem(ctx context.Context, in *wire.DeleteItemInput) (*wire.DeleteItemOutput, error) {
	x, err := prepareDelete(in)
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
	if err := t.checkScalarKeyPaths(x.cond, nil, nil); err != nil {
		return nil, err
	}
	res, err := e.applier.ApplyWrite(ctx, itemWrite{
		table:  t,
		key:    k,
		tooBig: msgItemSize,
		apply: func(old attr.Item) (attr.Item, error) {
			return nil, checkCondition(x.cond, old, in.ReturnValuesOnConditionCheckFailure)
		},
	})
	if err != nil {
		return nil, err
	}
	return &wire.DeleteItemOutput{
		Attributes:            oldOnlyAttributes(in.ReturnValues, res.Old),
		ConsumedCapacity:      t.writeConsumed(in.ReturnConsumedCapacity, res),
		ItemCollectionMetrics: e.collectionMetrics(in.ReturnItemCollectionMetrics, t, in.Key),
	}, nil
}

// prepareDelete is DeleteItem's request phase.
func prepareDelete(in *wire.DeleteItemInput) (writeExprs, error) {
	p := writeParams{
		conditionExpr: in.ConditionExpression,
		expected:      in.Expected,
		condOp:        in.ConditionalOperator,
		names:         in.ExpressionAttributeNames,
		values:        in.ExpressionAttributeValues,
	}
	if err := p.checkMixing(); err != nil {
		return writeExprs{}, err
	}
	if err := checkOldOnlyReturnValues(in.ReturnValues); err != nil {
		return writeExprs{}, err
	}
	return prepareWrite(p)
}
