package engine

import (
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// PutItem creates or replaces one item, optionally under a condition.
func (e *Engine) PutItem(ctx context.Context, in *wire.PutItemInput) (*wire.PutItemOutput, error) {
	x, err := preparePut(in)
	if err != nil {
		return nil, err
	}
	t, err := e.activeTable(in.TableName)
	if err != nil {
		return nil, err
	}
	k, err := t.validateItemKey(in.Item)
	if err != nil {
		return nil, err
	}
	if err := t.checkIndexKeys(in.Item, false); err != nil {
		return nil, err
	}
	if err := t.checkScalarKeyPaths(x.cond, nil, nil); err != nil {
		return nil, err
	}
	item := in.Item
	res, err := e.applier.ApplyWrite(ctx, itemWrite{
		table:  t,
		key:    k,
		tooBig: msgItemSize,
		whole:  true,
		apply: func(old attr.Item) (attr.Item, error) {
			if err := checkCondition(x.cond, old, in.ReturnValuesOnConditionCheckFailure); err != nil {
				return nil, err
			}
			return item, nil
		},
	})
	if err != nil {
		return nil, err
	}
	return &wire.PutItemOutput{
		Attributes:            oldOnlyAttributes(in.ReturnValues, res.Old),
		ConsumedCapacity:      t.writeConsumed(in.ReturnConsumedCapacity, res),
		ItemCollectionMetrics: e.collectionMetrics(in.ReturnItemCollectionMetrics, t, in.Item),
	}, nil
}

// preparePut is PutItem's request phase.
func preparePut(in *wire.PutItemInput) (writeExprs, error) {
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
	if attr.ItemSize(in.Item) > maxItemSize {
		return writeExprs{}, ddberr.Detected(msgItemSize)
	}
	return prepareWrite(p)
}
