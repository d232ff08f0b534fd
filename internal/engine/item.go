package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/transact"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// maxItemSize is DynamoDB's item size limit (400 KB, names included).
const maxItemSize = 400 * 1024

// maxConflictRetries bounds the retries of one write after
// storage.ErrConflict. The item's stripe lock already serialises the
// writers that go through writeItem, so conflicts come from writers that
// do not (transactions, background work such as the vector snapshotter)
// and from a commit that is slow to apply: start timestamps come from the
// applied watermark (storage/internal/occ), so until it has applied, every
// later transaction touching one of its keys conflicts. conflictPause
// spaces the retries so that such a window passes instead of using up all
// of them in a few milliseconds (and answering InternalServerError).
const maxConflictRetries = 100

// conflictPause waits before conflict retry number attempt: not at all for
// the first few, then attempt×50 µs, at most 2 ms (about 150 ms over all
// retries).
func conflictPause(attempt int) {
	if attempt < 3 {
		return
	}
	time.Sleep(min(time.Duration(attempt)*50*time.Microsecond, 2*time.Millisecond))
}

// Key-validation messages shared by several operations.
const (
	msgKeySchema = ddberr.MsgKeySchema
	msgItemSize  = ddberr.MsgItemSize
	msgUpdSize   = "Item size to update has exceeded the maximum allowed size"
)

// primaryKey is a validated primary key of one table. sk is the zero Value
// when the table has no sort key.
type primaryKey struct {
	pk, sk attr.Value
}

// keyAttrs lists the table's key attributes, partition key first.
func (t *Table) keyAttrs() []KeyAttr { return t.KeyAttrs() }

// primaryKeyOf extracts the key of an item (or key) already validated.
func (t *Table) primaryKeyOf(it attr.Item) primaryKey {
	k := primaryKey{pk: it[t.Hash.Name]}
	if t.Range != nil {
		k.sk = it[t.Range.Name]
	}
	return k
}

// storageKey is the storage key of the item with key k.
func (t *Table) storageKey(k primaryKey) []byte { return itemKey(t.ID, k.pk, k.sk) }

// keyItem returns the primary-key attributes of it (LastEvaluatedKey,
// ItemCollectionKey and the like).
func (t *Table) keyItem(it attr.Item) attr.Item { return t.KeyItem(it) }

// isKeyAttr reports whether name is one of the table's key attributes.
func (t *Table) isKeyAttr(name string) bool { return t.IsKeyAttr(name) }

// validateKey checks a Key parameter (GetItem, UpdateItem, DeleteItem, the
// batch operations): exactly the key attributes, with the declared types,
// then the value rules (no empty strings or binaries, size limits).
func (t *Table) validateKey(key attr.Item) (primaryKey, error) {
	attrs := t.keyAttrs()
	if len(key) != len(attrs) {
		return primaryKey{}, ddberr.Validation(msgKeySchema)
	}
	for _, ka := range attrs {
		if v, ok := key[ka.Name]; !ok || v.T != ka.Type {
			return primaryKey{}, ddberr.Validation(msgKeySchema)
		}
	}
	if err := t.checkKeyValues(key); err != nil {
		return primaryKey{}, err
	}
	return t.primaryKeyOf(key), nil
}

// checkKeyTypes reports a key attribute present in it with another type
// than the table declares (validateItemKey's type check, alone).
func (t *Table) checkKeyTypes(it attr.Item) error {
	for i, ka := range t.keyAttrs() {
		if v, ok := it[ka.Name]; ok && v.T != ka.Type {
			return attr.ValidateKeyValue(ka.Name, v, ka.Type, i == 0)
		}
	}
	return nil
}

// validateItemKey checks that a whole item (PutItem, BatchWriteItem put)
// carries the key attributes with the declared types and valid values.
func (t *Table) validateItemKey(it attr.Item) (primaryKey, error) {
	for i, ka := range t.keyAttrs() {
		v, ok := it[ka.Name]
		if !ok {
			return primaryKey{}, ddberr.InvalidParam("Missing the key %s in the item", ka.Name)
		}
		if err := attr.ValidateKeyValue(ka.Name, v, ka.Type, i == 0); err != nil {
			return primaryKey{}, err
		}
	}
	return t.primaryKeyOf(it), nil
}

// checkKeyValues applies attr.ValidateKeyValue to each key attribute
// present in it (type, emptiness, size).
func (t *Table) checkKeyValues(it attr.Item) error { return t.CheckKeyValues(it) }

// readForWrite is a writer's read of the item it is about to replace: from
// the item cache when there, else from txn. The caller holds the item's
// stripe lock, so the cache holds the latest committed item if any.
func (e *Engine) readForWrite(txn storage.Txn, key []byte) (attr.Item, error) {
	if stored, ok := e.items.get(key); ok {
		return attr.DecodeItem(stored)
	}
	return readItem(txn, key)
}

// readItem reads and decodes one item; a missing item is (nil, nil).
func readItem(r storage.Reader, key []byte) (attr.Item, error) {
	return readItemWith(r, key, attr.DecodeItem)
}

// readItemOnly is readItem keeping only the top-level attributes keep
// accepts (the others are skipped undecoded).
func readItemOnly(r storage.Reader, key []byte, keep func(string) bool) (attr.Item, error) {
	return readItemWith(r, key, func(b []byte) (attr.Item, error) { return attr.DecodeItemOnly(b, keep) })
}

// readItemWith reads the stored item at key with decode (nil, nil when
// there is none).
func readItemWith(r storage.Reader, key []byte, decode func([]byte) (attr.Item, error)) (attr.Item, error) {
	b, err := r.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return decode(b)
}

func init() {
	// The statistics recount measures stored items with the item codec.
	itemSizeFromStored = func(value []byte) int64 {
		it, err := attr.DecodeItem(value)
		if err != nil {
			return int64(len(value))
		}
		return int64(attr.ItemSize(it))
	}
}

// itemSize is attr.ItemSize, 0 for a missing item.
func itemSize(it attr.Item) int {
	if it == nil {
		return 0
	}
	return attr.ItemSize(it)
}

// lockFor returns the stripe lock of an item's storage key. Every writer of
// one item holds it across its read-check-write, so concurrent writers of
// the same item queue instead of failing on storage conflicts.
func (e *Engine) lockFor(key []byte) *sync.Mutex { return e.locks.For(key) }

// lockStripes locks the stripe locks of keys in one global order, so that
// transactions never deadlock with each other or with single-item
// writers; it returns the unlock function (package stripes).
func (e *Engine) lockStripes(keys [][]byte) func() { return e.locks.Lock(keys) }

// itemWrite is one single-item write for writeItem.
type itemWrite struct {
	table *Table
	key   primaryKey
	// apply computes the item's new state from its current one (nil when
	// absent): the new item, or nil to delete it. An error (a failed
	// condition, an invalid update) aborts the write; the old item is still
	// reported in the writeResult.
	apply func(old attr.Item) (attr.Item, error)
	// tooBig is the message when the new item passes maxItemSize.
	tooBig string
	// ttl marks the TTL expirer's own delete: its stream record is
	// labelled as the service's (package ttl). No other write sets it.
	ttl bool
	// whole marks a write of a whole item (a Put): every vector attribute
	// in it is written, so checked, even one equal to the stored value
	// (internal/engine/vectors).
	whole bool
	// verbatim marks a restore's copy of an item its source table held
	// (restore_target.go): it is written as it was, without the checks of
	// written vector values (an index created after the item was written
	// leaves an unfit vector unindexed rather than refused).
	verbatim bool
}

// writeResult is the outcome of writeItem.
type writeResult struct {
	Old, New         attr.Item
	OldSize, NewSize int
	// OldBilled, NewBilled are the sizes writes are billed at (billedSize).
	OldBilled, NewBilled int
	// key and stored are the item's storage key and its new stored form
	// (nil when deleted), for the item cache once the write committed.
	key, stored []byte
	// change is what the subsystems were offered, for their Committed.
	change change.Change
}

// units is the write capacity of the write: the larger of the old and new
// item's billed size, in 1 KB units.
func (r writeResult) units() float64 {
	return writeUnits(max(r.OldBilled, r.NewBilled))
}

// writeItem is the one read-check-write path every single-item writer
// uses (PutItem, UpdateItem, DeleteItem, BatchWriteItem): it refuses an
// item an in-flight transaction holds (TransactionConflictException, as
// DynamoDB does), then under the item's stripe lock begins a storage
// transaction, stages the write with stageWrite and commits. A storage
// conflict retries the whole sequence. Table statistics are updated after
// the commit. Transactions (transact_write.go) stage several items with
// the same stageWrite inside one storage transaction.
func (e *Engine) writeItem(ctx context.Context, w itemWrite) (writeResult, error) {
	key := w.table.storageKey(w.key)
	if e.tx.Holds(key) {
		return writeResult{}, ddberr.TransactionConflict(transact.MsgConflict)
	}
	mu := e.lockFor(key)
	mu.Lock()
	defer mu.Unlock()
	defer e.lockCollection(w.table, w.key)() // LSI tables (indexes.go)
	for attempt := 0; ; attempt++ {
		res, err := e.tryWrite(w, key)
		if !errors.Is(err, storage.ErrConflict) {
			return res, err
		}
		if attempt == maxConflictRetries {
			return res, ddberr.Internal("Internal server error")
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		conflictPause(attempt)
		if w.table, err = e.refreshed(err, w.table); err != nil {
			return res, err
		}
	}
}

// beginWrite starts the storage transaction of item writes (stageWrite).
// Its snapshot may be taken at its first read (storage.LazyBeginner): the
// item's stripe lock serialises writers of the item, every read is a Get
// and so conflict-checked, and when the item cache answers there is no read
// and no snapshot at all.
func (e *Engine) beginWrite() (storage.Txn, error) { return e.store.BeginLazy() }

// tryWrite is one attempt of writeItem. Its transaction begins holding
// this node's turn of the table's stream, if any (streams.BeginFor).
func (e *Engine) tryWrite(w itemWrite, key []byte) (writeResult, error) {
	txn, err := e.streams.BeginFor(e.store, w.table)
	if err != nil {
		return writeResult{}, err
	}
	defer txn.Rollback()
	res, changed, err := e.stageWrite(txn, w, key)
	if err != nil || !changed {
		return res, err
	}
	if err := txn.Commit(storage.CommitOptions{Sync: e.cfg.Sync}); err != nil {
		return res, err
	}
	e.writeStats(w.table, res)
	return res, nil
}

// stageWrite is the body of every item write, inside a caller's storage
// transaction: read the current item (key is w's storage key), let w.apply
// check the condition and compute the new item, check the size limit,
// write or delete the item and run the derived writes (index entries,
// stream records) in the same transaction. changed is false when nothing
// was written (deleting a missing item). The caller commits, then calls
// writeStats.
func (e *Engine) stageWrite(txn storage.Txn, w itemWrite, key []byte) (res writeResult, changed bool, err error) {
	if err := e.checkCatalog(txn, w.table); err != nil { // cluster mode: another node's definition change
		return res, false, err
	}
	if res.Old, err = e.readForWrite(txn, key); err != nil {
		return res, false, err
	}
	res.OldSize = itemSize(res.Old)
	res.OldBilled = vectors.BilledSize(w.table.Vectors, res.Old, res.OldSize)
	if res.New, err = w.apply(res.Old); err != nil {
		return res, false, err
	}
	res.NewSize = itemSize(res.New)
	res.NewBilled = vectors.BilledSize(w.table.Vectors, res.New, res.NewSize)
	if res.NewSize > maxItemSize {
		return res, false, ddberr.Validation(w.tooBig)
	}
	if res.New == nil && res.Old == nil {
		return res, false, nil // deleting a missing item changes nothing
	}
	// Until the commit succeeds the cached item may be stale or the
	// commit's outcome unknown: forget it (afterCommit puts the new one).
	e.items.drop(key)
	res.key = key
	if res.New != nil {
		// Sized once: the encoding is the item's DynamoDB size plus a few
		// bytes of tags and lengths per attribute (nested ones may grow it).
		res.stored = attr.AppendItem(make([]byte, 0, res.NewSize+8*len(res.New)+8), res.New)
		err = txn.Set(key, res.stored)
	} else {
		err = txn.Delete(key)
	}
	if err != nil {
		return res, false, err
	}
	// The writes derived from the change (index entries, stream records
	// and the rest) join the same transaction (subsystems.go).
	res.change = change.Change{Table: w.table, Key: key, Suffix: itemSuffix(key), Old: res.Old, New: res.New,
		TTL: w.ttl, Whole: w.whole, Verbatim: w.verbatim}
	if err := e.subs.Stage(txn, res.change); err != nil {
		return res, false, err
	}
	return res, true, nil
}

// writeStats records a committed item write in the table's statistics and
// the item cache, and tells the subsystems it committed. The caller still
// holds the item's stripe lock.
func (e *Engine) writeStats(t *Table, res writeResult) {
	if res.stored != nil {
		e.items.put(res.key, res.stored)
	}
	e.addStats(t, itemCountDelta(res.Old, res.New), int64(res.NewSize-res.OldSize))
	e.subs.Committed(res.change)
}

// itemCountDelta is the change in a table's item count from old to new.
func itemCountDelta(old, new attr.Item) int64 {
	switch {
	case old == nil && new != nil:
		return 1
	case old != nil && new == nil:
		return -1
	}
	return 0
}

// conditionFailed is ConditionalCheckFailedException, carrying the old item
// when ReturnValuesOnConditionCheckFailure is ALL_OLD and the item exists.
func conditionFailed(old attr.Item, onFailure string) error {
	err := ddberr.ConditionalCheckFailed()
	if onFailure == "ALL_OLD" && old != nil {
		err.Item = old
	}
	return err
}

// activeTable looks up a table for a data-plane operation: a missing table,
// or one still being created or already being deleted, is "Requested
// resource not found".
func (e *Engine) activeTable(name *string) (*Table, error) {
	if name == nil {
		return nil, ddberr.TableNotFound()
	}
	t, ok := e.lookupTable(*name)
	if !ok || !t.Active() {
		return nil, ddberr.TableNotFound()
	}
	return t, nil
}

// writeParams are the condition and update parameters of a single-item
// write, as the request carries them.
type writeParams struct {
	conditionExpr    *string
	expected         map[string]wire.ExpectedAttributeValue
	condOp           string
	updateExpr       *string
	attributeUpdates map[string]wire.AttributeValueUpdate
	names            map[string]string
	values           attr.Item
}

// writeExprs are a write's parsed and resolved expressions (nil when
// absent). Legacy parameters arrive converted into the same forms.
type writeExprs struct {
	cond   *expr.Condition
	update *expr.Update
}

// checkMixing rejects a write that uses both legacy and expression
// parameters (ConditionalOperator is a legacy one), then a
// ConditionalOperator without two Expected conditions to join; these are
// the first request-phase checks.
func (p writeParams) checkMixing() error {
	var legacy []string
	if p.attributeUpdates != nil {
		legacy = append(legacy, "AttributeUpdates")
	}
	if p.expected != nil {
		legacy = append(legacy, "Expected")
	}
	if p.condOp != "" {
		legacy = append(legacy, "ConditionalOperator")
	}
	if err := expr.CheckMixed(legacy, p.expressions()); err != nil {
		return err
	}
	return expr.CheckConditionalOperator(p.condOp, len(p.expected))
}

// expressions names the expression parameters present.
func (p writeParams) expressions() []string {
	var exprs []string
	if p.updateExpr != nil {
		exprs = append(exprs, "UpdateExpression")
	}
	if p.conditionExpr != nil {
		exprs = append(exprs, "ConditionExpression")
	}
	return exprs
}

// prepareWrite runs the rest of the request-phase checks of a write's
// expressions, after checkMixing and the operation's own checks, in
// DynamoDB's order: the placeholder maps, the legacy conversions, then the
// update and condition expressions parsed and resolved, and no placeholder
// left unused.
func prepareWrite(p writeParams) (writeExprs, error) {
	var x writeExprs
	anyExpr := len(p.expressions()) > 0
	if err := expr.ValidateParams(p.names, p.values, anyExpr, anyExpr); err != nil {
		return x, err
	}
	var err error
	if p.attributeUpdates != nil {
		if x.update, err = expr.ConvertAttributeUpdates(p.attributeUpdates); err != nil {
			return x, err
		}
	}
	if p.expected != nil {
		if x.cond, err = expr.ConvertExpected(p.expected, p.condOp); err != nil {
			return x, err
		}
	}
	params := expr.NewParams(p.names, p.values)
	if p.updateExpr != nil {
		if x.update, err = expr.ParseUpdate(*p.updateExpr); err != nil {
			return x, err
		}
		if err = params.ResolveUpdate(x.update); err != nil {
			return x, err
		}
	}
	if p.conditionExpr != nil {
		if x.cond, err = parseCondition(params, expr.KindCondition, *p.conditionExpr); err != nil {
			return x, err
		}
	}
	return x, params.CheckUnused()
}

// parseCondition parses and resolves one condition-like expression.
func parseCondition(params *expr.Params, kind expr.Kind, s string) (*expr.Condition, error) {
	return params.ParseCondition(kind, s)
}

// parseProjection parses and resolves a ProjectionExpression.
func parseProjection(params *expr.Params, s string) (*expr.Projection, error) {
	return params.ParseProjection(s)
}

// checkCondition evaluates a write's condition against the current item
// (nil when absent); a false condition is ConditionalCheckFailedException.
func checkCondition(cond *expr.Condition, old attr.Item, onFailure string) error {
	if cond == nil {
		return nil
	}
	ok, err := cond.Eval(old)
	if err != nil {
		return err
	}
	if !ok {
		return conditionFailed(old, onFailure)
	}
	return nil
}
