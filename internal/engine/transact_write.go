package engine

import (
	"cmp"
	"context"
	"errors"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Transaction limits.
const (
	maxTransactItems = 100
	maxTransactBytes = 4 << 20
)

// Transaction messages.
//
// msgTxTooLarge: ScyllaDB's Alternator tests, which are run against
// DynamoDB, match DynamoDB's answer to a 5 MB TransactWriteItems with
// "ValidationException.*size cannot exceed" and note that DynamoDB's
// messages call what is measured the "transaction payload" (a 5 MB
// Delete-only transaction, small as a request, is accepted). No recorded
// answer gives the whole text; this one holds both fragments.
const (
	msgTxDuplicate = "Transaction request cannot include multiple operations on one item"
	msgTxTooLarge  = "Transaction payload size cannot exceed 4 MB"
	msgCondFailed  = "The conditional request failed"
)

// Cancellation reason codes.
const (
	reasonNone        = "None"
	reasonCondFailed  = "ConditionalCheckFailed"
	reasonConflict    = "TransactionConflict"
	reasonValidation  = "ValidationError"
	reasonCollection  = "ItemCollectionSizeLimitExceeded"
	actionConditionCk = "ConditionCheck"
)

// txAction is one validated action of a write transaction.
type txAction struct {
	kind      string // Put, Update, Delete, ConditionCheck
	table     *Table
	tableName string // the table as the action names it (name or ARN)
	key       primaryKey
	skey      []byte
	x         writeExprs
	item      attr.Item // Put
	keyItem   attr.Item // Update, Delete, ConditionCheck
	onFailure string
	touched   []expr.Path // the paths an Update wrote (PartiQL RETURNING)
}

// write is the action as an itemWrite for stageWrite (not for
// ConditionCheck, which writes nothing).
func (a *txAction) write() itemWrite {
	w := itemWrite{table: a.table, key: a.key, tooBig: msgItemSize}
	switch a.kind {
	case "Put":
		w.whole = true
		w.apply = func(old attr.Item) (attr.Item, error) {
			if err := checkCondition(a.x.cond, old, a.onFailure); err != nil {
				return nil, err
			}
			return a.item, nil
		}
	case "Update":
		w.tooBig = msgUpdSize
		w.apply = func(old attr.Item) (attr.Item, error) {
			if err := checkCondition(a.x.cond, old, a.onFailure); err != nil {
				return nil, err
			}
			next, touched, err := applyUpdate(a.x.update, old, a.keyItem)
			if err == nil {
				err = a.table.checkIndexKeys(next, true)
			}
			a.touched = touched
			return next, err
		}
	case "Delete":
		w.apply = func(old attr.Item) (attr.Item, error) {
			return nil, checkCondition(a.x.cond, old, a.onFailure)
		}
	}
	return w
}

// TransactWriteItems applies up to 100 Put, Update, Delete and
// ConditionCheck actions on distinct items, all or none.
func (e *Engine) TransactWriteItems(ctx context.Context, in *wire.TransactWriteItemsInput) (*wire.TransactWriteItemsOutput, error) {
	acts, err := e.prepareTransactWrite(in.TransactItems)
	if err != nil {
		return nil, err
	}
	out, err := e.idempotent(in.ClientRequestToken, in, func() (any, error) {
		res, err := e.runTransaction(ctx, acts)
		if err != nil {
			return nil, err
		}
		return &wire.TransactWriteItemsOutput{
			ConsumedCapacity:      txWriteCapacity(acts, res).list(in.ReturnConsumedCapacity),
			ItemCollectionMetrics: e.txCollectionMetrics(in.ReturnItemCollectionMetrics, acts),
		}, nil
	}, func(first any) (any, error) {
		out := *first.(*wire.TransactWriteItemsOutput)
		cc, err := e.txReplayCapacity(acts, in.ReturnConsumedCapacity)
		out.ConsumedCapacity = cc
		return &out, err
	})
	if err != nil {
		return nil, err
	}
	return out.(*wire.TransactWriteItemsOutput), nil
}

// prepareTransactWrite validates every action (request phase first, then
// tables and keys), rejects two actions on one item and the 4 MB limit.
func (e *Engine) prepareTransactWrite(items []wire.TransactWriteItem) ([]*txAction, error) {
	acts := make([]*txAction, 0, len(items))
	for _, it := range items {
		a, err := prepareTxAction(it)
		if err != nil {
			return nil, err
		}
		acts = append(acts, a)
	}
	// A key of the wrong type cancels the transaction (reason
	// ValidationError) instead of failing the request, but only once every
	// action passed the checks DynamoDB makes up front. Only the first such
	// action carries the reason; the others' are None (ScyllaDB's
	// Alternator tests, which are run against DynamoDB).
	var invalid []string
	valid := make([]*txAction, 0, len(acts))
	for i, it := range items {
		err := e.resolveTxAction(acts[i], it)
		var bad *txInvalid
		switch {
		case errors.As(err, &bad):
			if invalid == nil {
				invalid = make([]string, len(acts))
				invalid[i] = bad.msg
			}
		case err != nil:
			return nil, err
		default:
			valid = append(valid, acts[i])
		}
	}
	if err := checkTxItems(valid); err != nil {
		return nil, err
	}
	if invalid != nil {
		return nil, validationCancel(invalid)
	}
	return acts, nil
}

// txInvalid is a validation failure DynamoDB reports as an action's
// cancellation reason rather than as a ValidationException: a table or
// index key attribute of the wrong type (measured against DynamoDB by a
// public conformance suite, 2026).
type txInvalid struct{ msg string }

func (e *txInvalid) Error() string { return e.msg }

func asTxInvalid(err error) error { return &txInvalid{msg: ddberr.As(err).Message} }

// validationCancel is the cancellation for actions with such failures
// (msgs[i] non-empty); the others are None.
func validationCancel(msgs []string) error {
	return actionsCancel(reasonValidation, msgs)
}

// actionsCancel cancels a transaction: reason code with msgs[i] for the
// actions that have a message, None for the others.
func actionsCancel(code string, msgs []string) error {
	reasons := make([]wire.CancellationReason, len(msgs))
	for i, m := range msgs {
		reasons[i].Code = reasonNone
		if m != "" {
			reasons[i] = wire.CancellationReason{Code: code, Message: &m}
		}
	}
	return transactionCanceled(reasons)
}

// checkTxItems rejects duplicate items and oversized transactions.
func checkTxItems(acts []*txAction) error {
	seen := make(map[string]struct{}, len(acts))
	size := 0
	for _, a := range acts {
		if _, dup := seen[string(a.skey)]; dup {
			return ddberr.Validation(msgTxDuplicate)
		}
		seen[string(a.skey)] = struct{}{}
		size += itemSize(a.item) + itemSize(a.keyItem)
	}
	if size > maxTransactBytes {
		return ddberr.Validation(msgTxTooLarge)
	}
	return nil
}

// CheckTransactWriteItem runs the request-phase checks of one
// TransactWriteItems action, touching no table (api.TransactActionChecker).
func (e *Engine) CheckTransactWriteItem(it wire.TransactWriteItem) error {
	_, err := prepareTxAction(it)
	return err
}

// CheckTransactWriteExpressions parses one action's UpdateExpression and
// ConditionExpression and nothing else: the checks DynamoDB's older layer
// makes before it reads the action's attribute values.
func (e *Engine) CheckTransactWriteExpressions(it wire.TransactWriteItem) error {
	var update, cond *string
	switch {
	case it.Put != nil:
		cond = it.Put.ConditionExpression
	case it.Update != nil:
		update, cond = it.Update.UpdateExpression, it.Update.ConditionExpression
	case it.Delete != nil:
		cond = it.Delete.ConditionExpression
	case it.ConditionCheck != nil:
		cond = it.ConditionCheck.ConditionExpression
	}
	if update != nil {
		if _, err := expr.ParseUpdate(*update); err != nil {
			return err
		}
	}
	if cond != nil {
		if _, err := expr.ParseCondition(expr.KindCondition, *cond); err != nil {
			return err
		}
	}
	return nil
}

// prepareTxAction is the request phase of one action: exactly one of the
// four, its expressions parsed and resolved.
func prepareTxAction(it wire.TransactWriteItem) (*txAction, error) {
	n := 0
	for _, set := range []bool{it.Put != nil, it.Update != nil, it.Delete != nil, it.ConditionCheck != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, ddberr.Validation("TransactItems can only contain one of Check, Put, Update or Delete")
	}
	a := &txAction{}
	var p writeParams
	switch {
	case it.Put != nil:
		a.kind, a.onFailure = "Put", it.Put.ReturnValuesOnConditionCheckFailure
		p = writeParams{conditionExpr: it.Put.ConditionExpression, names: it.Put.ExpressionAttributeNames, values: it.Put.ExpressionAttributeValues}
		if attr.ItemSize(it.Put.Item) > maxItemSize {
			return nil, ddberr.Detected(msgItemSize)
		}
	case it.Update != nil:
		a.kind, a.onFailure = "Update", it.Update.ReturnValuesOnConditionCheckFailure
		p = writeParams{conditionExpr: it.Update.ConditionExpression, updateExpr: it.Update.UpdateExpression, names: it.Update.ExpressionAttributeNames, values: it.Update.ExpressionAttributeValues}
	case it.Delete != nil:
		a.kind, a.onFailure = "Delete", it.Delete.ReturnValuesOnConditionCheckFailure
		p = writeParams{conditionExpr: it.Delete.ConditionExpression, names: it.Delete.ExpressionAttributeNames, values: it.Delete.ExpressionAttributeValues}
	default:
		a.kind, a.onFailure = actionConditionCk, it.ConditionCheck.ReturnValuesOnConditionCheckFailure
		p = writeParams{conditionExpr: it.ConditionCheck.ConditionExpression, names: it.ConditionCheck.ExpressionAttributeNames, values: it.ConditionCheck.ExpressionAttributeValues}
	}
	var err error
	a.x, err = prepareWrite(p)
	return a, err
}

// resolveTxAction looks up the action's table and validates its key.
func (e *Engine) resolveTxAction(a *txAction, it wire.TransactWriteItem) error {
	var name *string
	switch a.kind {
	case "Put":
		name, a.item = it.Put.TableName, it.Put.Item
	case "Update":
		name, a.keyItem = it.Update.TableName, it.Update.Key
	case "Delete":
		name, a.keyItem = it.Delete.TableName, it.Delete.Key
	default:
		name, a.keyItem = it.ConditionCheck.TableName, it.ConditionCheck.Key
	}
	t, err := e.activeTable(name)
	if err != nil {
		return err
	}
	a.table, a.tableName = t, *name
	if a.kind == "Put" {
		if err := t.checkKeyTypes(a.item); err != nil {
			return asTxInvalid(err)
		}
		if a.key, err = t.validateItemKey(a.item); err != nil {
			return err
		}
		if err := t.checkIndexKeyTypes(a.item); err != nil {
			return asTxInvalid(err)
		}
		if err := t.checkIndexKeyValues(a.item, false); err != nil {
			return err
		}
	} else {
		if a.key, err = t.validateKey(a.keyItem); err != nil {
			if ddberr.As(err).Message == msgKeySchema {
				return asTxInvalid(err)
			}
			return err
		}
		if a.kind == "Update" {
			if err := t.checkUpdatePaths(a.x.update); err != nil {
				return err
			}
			if err := t.checkUpdateIndexValues(a.x.update); err != nil {
				return err
			}
		}
	}
	if err := t.checkScalarKeyPaths(a.x.cond, nil, a.x.update); err != nil {
		return err
	}
	a.skey = t.storageKey(a.key)
	return nil
}

// runTransaction executes validated actions atomically: it registers the
// items as held (a concurrent transaction on any of them cancels this one
// with TransactionConflict), locks their stripes in global order, stages
// every action in one storage transaction, evaluating every condition
// against that transaction's snapshot, and commits once. Any failed action
// cancels the whole transaction with TransactionCanceledException, reasons
// in request order. Statistics are recorded, and the capacity paid
// (throttle.go), after the commit.
func (e *Engine) runTransaction(ctx context.Context, acts []*txAction) ([]writeResult, error) {
	if err := e.admitTxWrites(acts); err != nil {
		return nil, err
	}
	keys := make([][]byte, len(acts))
	for i, a := range acts {
		keys[i] = a.skey
	}
	if conflicts, ok := e.txAcquire(keys); !ok {
		return nil, conflictCancel(conflicts)
	}
	defer e.txRelease(keys)
	unlock := e.lockStripes(keys)
	defer unlock()
	tables, pks := make([]*Table, len(acts)), make([]primaryKey, len(acts))
	for i, a := range acts {
		tables[i], pks[i] = a.table, a.key
	}
	defer e.lockCollections(tables, pks)() // LSI tables (index_collection.go)
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			e.txPhase(keys, false) // preparing again
		}
		res, changed, err := e.tryTransaction(acts, func() { e.txPhase(keys, true) })
		if errors.Is(err, storage.ErrConflict) {
			if attempt == maxConflictRetries {
				return nil, ddberr.Internal("Internal server error")
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			conflictPause(attempt)
			continue
		}
		if err != nil {
			return nil, err
		}
		for i, a := range acts {
			if changed[i] {
				e.writeStats(a.table, res[i])
			}
		}
		e.chargeTxWrites(acts, res)
		return res, nil
	}
}

// tryTransaction is one attempt of runTransaction; committing is called
// once every action is staged, just before the commit.
func (e *Engine) tryTransaction(acts []*txAction, committing func()) ([]writeResult, []bool, error) {
	txn, err := e.store.Begin()
	if err != nil {
		return nil, nil, err
	}
	defer txn.Rollback()
	res := make([]writeResult, len(acts))
	changed := make([]bool, len(acts))
	var reasons []wire.CancellationReason
	for i, a := range acts {
		var err error
		if a.kind == actionConditionCk {
			res[i], err = conditionCheck(txn, a)
		} else {
			res[i], changed[i], err = e.stageWrite(txn, a.write(), a.skey)
		}
		if err == nil {
			continue
		}
		r, ok := cancellationReason(err)
		if !ok {
			return nil, nil, err
		}
		if reasons == nil {
			reasons = make([]wire.CancellationReason, len(acts))
			for j := range reasons {
				reasons[j].Code = reasonNone
			}
		}
		reasons[i] = r
	}
	if reasons != nil {
		return nil, nil, transactionCanceled(reasons)
	}
	committing()
	if err := txn.Commit(storage.CommitOptions{Sync: e.cfg.Sync}); err != nil {
		return nil, nil, err
	}
	return res, changed, nil
}

// conditionCheck evaluates a ConditionCheck action against txn's snapshot
// (reading the item through txn puts it in the conflict set).
func conditionCheck(txn storage.Txn, a *txAction) (writeResult, error) {
	old, err := readItem(txn, a.skey)
	if err != nil {
		return writeResult{}, err
	}
	res := writeResult{Old: old, OldSize: itemSize(old)}
	res.OldBilled = vectors.BilledSize(a.table.Vectors, old, res.OldSize)
	return res, checkCondition(a.x.cond, old, a.onFailure)
}

// cancellationReason turns an action's failure into its cancellation
// reason; ok is false for errors that are not the action's fault
// (storage errors), which fail the request as they are.
func cancellationReason(err error) (wire.CancellationReason, bool) {
	var de *ddberr.Error
	if !errors.As(err, &de) {
		return wire.CancellationReason{}, false
	}
	msg := de.Message
	switch de.Type {
	case "ConditionalCheckFailedException":
		r := wire.CancellationReason{Code: reasonCondFailed, Message: &msg}
		if it, ok := de.Item.(attr.Item); ok {
			r.Item = it
		}
		return r, true
	case "ValidationException":
		msg = strings.TrimPrefix(msg, ddberr.Detected1)
		return wire.CancellationReason{Code: reasonValidation, Message: &msg}, true
	case "TransactionConflictException":
		return wire.CancellationReason{Code: reasonConflict, Message: &msg}, true
	case "ItemCollectionSizeLimitExceededException":
		return wire.CancellationReason{Code: reasonCollection, Message: &msg}, true
	}
	return wire.CancellationReason{}, false
}

// txCollectionMetrics is a write transaction's ItemCollectionMetrics when
// ReturnItemCollectionMetrics is SIZE: per table with LSIs, the item
// collections its Put, Update and Delete actions wrote to (not its
// ConditionChecks), as BatchWriteItem reports them.
func (e *Engine) txCollectionMetrics(mode string, acts []*txAction) map[string][]wire.ItemCollectionMetrics {
	if mode != "SIZE" {
		return nil
	}
	var names []string
	var tables []*Table
	var keys []primaryKey
	for _, a := range acts {
		if a.kind != actionConditionCk {
			names = append(names, cmp.Or(a.tableName, a.table.Name))
			tables, keys = append(tables, a.table), append(keys, a.key)
		}
	}
	return e.collectionMetricsPerTable(mode, names, tables, keys)
}

// conflictCancel is the cancellation of a transaction whose items (those
// marked) another transaction holds.
func conflictCancel(held []bool) error {
	msgs := make([]string, len(held))
	for i, h := range held {
		if h {
			msgs[i] = msgTxConflict
		}
	}
	return actionsCancel(reasonConflict, msgs)
}

// transactionCanceled is TransactionCanceledException with DynamoDB's
// message listing the reason codes in request order.
func transactionCanceled(reasons []wire.CancellationReason) error {
	var b strings.Builder
	b.WriteString("Transaction cancelled, please refer cancellation reasons for specific reasons [")
	for i, r := range reasons {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.Code)
	}
	b.WriteByte(']')
	return ddberr.TransactionCanceled(b.String(), reasons)
}

// txWriteCapacity is a write transaction's consumed capacity: DynamoDB
// performs two underlying writes (prepare, commit) of every item, so each
// write action costs twice its units on the table and on each touched
// index; a ConditionCheck costs what a write of the item it checks would.
func txWriteCapacity(acts []*txAction, res []writeResult) *txTally {
	var c txTally
	for i, a := range acts {
		if a.kind == actionConditionCk {
			// DynamoDB bills a ConditionCheck as a transactional write of
			// the item it checks (measured: 2 write units for a small item).
			c.add(a.table.Name, indexUnits{table: 2 * writeUnits(res[i].OldBilled)}, false)
			continue
		}
		u := a.table.writeUnitsOf(res[i])
		u.table *= 2
		for k := range u.gsi {
			u.gsi[k] *= 2
		}
		for k := range u.lsi {
			u.lsi[k] *= 2
		}
		c.add(a.table.Name, u, false)
	}
	return &c
}

// txReplayCapacity is the capacity of a repeated request DynamoDB
// recognises by its ClientRequestToken: it applies nothing and reads the
// transaction's items instead, a transactional (doubled, strongly
// consistent) read of each as it is now, reported as read units of its
// table. Nil when mode does not ask for capacity.
func (e *Engine) txReplayCapacity(acts []*txAction, mode string) ([]wire.ConsumedCapacity, error) {
	if mode != capTotal && mode != capIndexes {
		return nil, nil
	}
	keys := make([][]byte, len(acts))
	for i, a := range acts {
		keys[i] = a.skey
	}
	items, err := e.readItems(keys)
	if err != nil {
		return nil, err
	}
	var c txTally
	for i, a := range acts {
		c.add(a.table.Name, indexUnits{table: 2 * readUnits(itemSize(items[i]), true)}, true)
	}
	return c.list(mode), nil
}
