package partiqlexec

import (
	"context"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/transact"
	"github.com/kura-db/kura/internal/wire"
)

// ExecuteTransaction runs up to 100 statements as one transaction: all
// writes (INSERT, UPDATE, DELETE, EXISTS) through the same path as
// TransactWriteItems, or all full-key SELECTs as one TransactGetItems.
func ExecuteTransaction(ctx context.Context, c Core, in *wire.ExecuteTransactionInput) (*wire.ExecuteTransactionOutput, error) {
	out, err := executeTransaction(ctx, c, in)
	return out, pqError(err)
}

func executeTransaction(ctx context.Context, c Core, in *wire.ExecuteTransactionInput) (*wire.ExecuteTransactionOutput, error) {
	plans := make([]*plan, len(in.TransactStatements))
	reads := 0
	for i, s := range in.TransactStatements {
		p, err := lowerStatement(c, s.Statement, s.Parameters, s.ReturnValuesOnConditionCheckFailure, pqSurface{inTx: true, tx: i})
		if err != nil {
			return nil, err
		}
		if p.get != nil {
			reads++
		}
		plans[i] = p
	}
	switch reads {
	case 0:
		return executeWriteTransaction(ctx, c, in, plans)
	case len(plans):
		return executeReadTransaction(ctx, c, plans, in.ReturnConsumedCapacity)
	}
	return nil, ddberr.Validation("Transaction must contain either all reads or all writes")
}

func executeWriteTransaction(ctx context.Context, c Core, in *wire.ExecuteTransactionInput, plans []*plan) (*wire.ExecuteTransactionOutput, error) {
	items := make([]wire.TransactWriteItem, len(plans))
	for i, p := range plans {
		items[i] = p.transactWriteItem()
	}
	// The request's token binds the ExecuteTransaction request itself.
	cc, err := c.TransactWrite(ctx, items, in.ClientRequestToken, in, in.ReturnConsumedCapacity)
	if err != nil {
		return nil, insertReasons(err, plans)
	}
	// A write transaction answers an empty Responses list (a suite run
	// against DynamoDB in four regions, October 2026).
	return &wire.ExecuteTransactionOutput{ConsumedCapacity: cc, Responses: []wire.ItemResponse{}}, nil
}

// transactWriteItem is a lowered write as a TransactWriteItems action.
func (p *plan) transactWriteItem() wire.TransactWriteItem {
	var it wire.TransactWriteItem
	switch {
	case p.put != nil:
		it.Put = &wire.Put{TableName: p.put.TableName, Item: p.put.Item, ConditionExpression: p.put.ConditionExpression,
			ExpressionAttributeNames: p.put.ExpressionAttributeNames, ReturnValuesOnConditionCheckFailure: p.put.ReturnValuesOnConditionCheckFailure}
	case p.update != nil:
		u := p.update
		it.Update = &wire.Update{TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
			ConditionExpression: u.ConditionExpression, ExpressionAttributeNames: u.ExpressionAttributeNames,
			ExpressionAttributeValues: u.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: u.ReturnValuesOnConditionCheckFailure}
	case p.del != nil:
		d := p.del
		it.Delete = &wire.Delete{TableName: d.TableName, Key: d.Key, ConditionExpression: d.ConditionExpression,
			ExpressionAttributeNames: d.ExpressionAttributeNames, ExpressionAttributeValues: d.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: d.ReturnValuesOnConditionCheckFailure}
	case p.check != nil:
		it.ConditionCheck = p.check
	}
	return it
}

// insertReasons reports an INSERT's failed condition as DuplicateItem.
func insertReasons(err error, plans []*plan) error {
	return transact.Rewrite(err, func(i int, r wire.CancellationReason) (wire.CancellationReason, bool) {
		if plans[i].put == nil || r.Code != transact.ReasonCondFailed {
			return r, false
		}
		msg := ddberr.DuplicateItem().Message
		return wire.CancellationReason{Code: transact.ReasonDuplicate, Message: &msg}, true
	})
}

func executeReadTransaction(ctx context.Context, c Core, plans []*plan, mode string) (*wire.ExecuteTransactionOutput, error) {
	items := make([]wire.TransactGetItem, len(plans))
	for i, p := range plans {
		items[i].Get = p.get
	}
	found, cc, err := c.TransactGet(ctx, items, mode)
	if err != nil {
		return nil, err
	}
	out := &wire.ExecuteTransactionOutput{Responses: make([]wire.ItemResponse, len(plans)), ConsumedCapacity: cc}
	for i, it := range found {
		if it != nil {
			out.Responses[i].Item = pqShapeItem(plans[i].st.Projection, it)
		}
	}
	return out, nil
}
