package engine

import (
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// UpdateItem edits one item (creating it when absent), optionally under a
// condition.
func (e *Engine) UpdateItem(ctx context.Context, in *wire.UpdateItemInput) (*wire.UpdateItemOutput, error) {
	return e.updateItem(ctx, in, e.chargeUpdates)
}

// updateItem is UpdateItem; charge says whether an UpdateExpression's
// statement is held against the size limit as well as the finished item
// (item_update_size.go). A PartiQL UPDATE, lowered onto this, is not.
func (e *Engine) updateItem(ctx context.Context, in *wire.UpdateItemInput, charge bool) (*wire.UpdateItemOutput, error) {
	x, err := prepareUpdate(in)
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
	if err := t.checkUpdatePaths(x.update); err != nil {
		return nil, err
	}
	if err := t.checkScalarKeyPaths(x.cond, nil, x.update); err != nil {
		return nil, err
	}
	if err := t.checkUpdateIndexValues(x.update); err != nil {
		return nil, err
	}
	// The statement is charged before the item is read, so before the
	// condition: a failing condition does not hide it.
	if charge && in.UpdateExpression != nil && x.update != nil &&
		updateCharge(x.update, maxItemSize) > maxItemSize {
		return nil, ddberr.Validation(msgUpdSize)
	}
	var touched []expr.Path
	res, err := e.applier.ApplyWrite(ctx, itemWrite{
		table:  t,
		key:    k,
		tooBig: msgUpdSize,
		apply: func(old attr.Item) (attr.Item, error) {
			if err := checkCondition(x.cond, old, in.ReturnValuesOnConditionCheckFailure); err != nil {
				return nil, err
			}
			var next attr.Item
			var err error
			next, touched, err = applyUpdate(x.update, old, t.keyItem(in.Key))
			if err == nil {
				err = t.checkIndexKeys(next, true)
			}
			return next, err
		},
	})
	if err != nil {
		return nil, err
	}
	return &wire.UpdateItemOutput{
		Attributes:            updateAttributes(in.ReturnValues, res.Old, res.New, touched),
		ConsumedCapacity:      t.writeConsumed(in.ReturnConsumedCapacity, res),
		ItemCollectionMetrics: e.collectionMetrics(in.ReturnItemCollectionMetrics, t, in.Key),
	}, nil
}

// prepareUpdate is UpdateItem's request phase.
func prepareUpdate(in *wire.UpdateItemInput) (writeExprs, error) {
	p := writeParams{
		conditionExpr:    in.ConditionExpression,
		expected:         in.Expected,
		condOp:           in.ConditionalOperator,
		updateExpr:       in.UpdateExpression,
		attributeUpdates: in.AttributeUpdates,
		names:            in.ExpressionAttributeNames,
		values:           in.ExpressionAttributeValues,
	}
	if err := p.checkMixing(); err != nil {
		return writeExprs{}, err
	}
	return prepareWrite(p)
}

// checkUpdatePaths rejects an update that writes a key attribute.
func (t *Table) checkUpdatePaths(u *expr.Update) error {
	if u == nil {
		return nil
	}
	for _, p := range u.Paths() {
		if name := p[0].Name; t.isKeyAttr(name) {
			return ddberr.InvalidParam("Cannot update attribute %s. This attribute is part of the key", name)
		}
	}
	return nil
}

// applyUpdate computes the item after update u. An absent item starts as
// its key; an UpdateItem without an update just ensures the item exists.
// An update that only removes (REMOVE, DELETE) leaves an absent item
// absent, whatever paths it names: DynamoDB creates no item then (ScyllaDB's
// Alternator tests, which are run against DynamoDB: 'REMOVE b' and 'REMOVE
// x.y' on a missing item succeed and write nothing).
func applyUpdate(u *expr.Update, old, key attr.Item) (attr.Item, []expr.Path, error) {
	base := old
	if base == nil {
		if u != nil && removesOnly(u) {
			return nil, nil, nil
		}
		base = key
	}
	if u == nil {
		return base, nil, nil
	}
	return u.Apply(base)
}

// removesOnly reports whether every action of u removes something.
func removesOnly(u *expr.Update) bool {
	for _, a := range u.Actions {
		if a.Kind != expr.ActionRemove && a.Kind != expr.ActionDelete {
			return false
		}
	}
	return len(u.Actions) > 0
}
