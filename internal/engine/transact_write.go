package engine

import (
	"cmp"
	"context"
	"errors"
	"log/slog"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/transact"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// txAction is one validated action of a write transaction: its members
// (transact.Action) and what the core made of them.
type txAction struct {
	transact.Action
	table     *Table
	tableName string // the table as the action names it (name or ARN)
	key       primaryKey
	skey      []byte
	x         writeExprs
	touched   []expr.Path // the paths an Update wrote (PartiQL RETURNING)
}

// write is the action as an itemWrite for stageWrite (not for
// ConditionCheck, which writes nothing).
func (a *txAction) write() itemWrite {
	w := itemWrite{table: a.table, key: a.key, tooBig: msgItemSize}
	switch a.Kind {
	case transact.KindPut:
		w.whole = true
		w.apply = func(old attr.Item) (attr.Item, error) {
			if err := checkCondition(a.x.cond, old, a.OnFailure); err != nil {
				return nil, err
			}
			return a.Item, nil
		}
	case transact.KindUpdate:
		w.tooBig = msgUpdSize
		w.apply = func(old attr.Item) (attr.Item, error) {
			if err := checkCondition(a.x.cond, old, a.OnFailure); err != nil {
				return nil, err
			}
			next, touched, err := applyUpdate(a.x.update, old, a.Key)
			if err == nil {
				err = a.table.checkIndexKeys(next, true)
			}
			a.touched = touched
			return next, err
		}
	case transact.KindDelete:
		w.apply = func(old attr.Item) (attr.Item, error) {
			return nil, checkCondition(a.x.cond, old, a.OnFailure)
		}
	}
	return w
}

// TransactWriteItems applies up to 100 Put, Update, Delete and
// ConditionCheck actions on distinct items, all or none, once per
// ClientRequestToken (transact.State.WriteItems).
func (e *Engine) TransactWriteItems(ctx context.Context, in *wire.TransactWriteItemsInput) (*wire.TransactWriteItemsOutput, error) {
	w, err := e.prepareTransactWrite(in.TransactItems)
	if err != nil {
		return nil, err
	}
	return e.tx.WriteItems(ctx, w, in)
}

// txWrite is one write transaction as the core prepares it
// (transact.Actions: the checks of its actions, in DynamoDB's order),
// runs it (transact.Write: its items' locks, and attempts that stage its
// actions through stageWrite in one storage transaction) and bills it
// (transact.Prepared).
type txWrite struct {
	e     *Engine
	items []wire.TransactWriteItem
	acts  []*txAction
	keys  [][]byte // the items' storage keys, once prepared
	// res and changed are the last attempt's results per action.
	res     []writeResult
	changed []bool
	// stale is the last attempt's errStaleCatalog (cluster mode: another
	// node changed a table's definition), for Conflict to reload them.
	stale error
}

// prepareTransactWrite validates every action (transact.Prepare: request
// phase first, then tables and keys; two actions on one item and the 4 MB
// limit).
func (e *Engine) prepareTransactWrite(items []wire.TransactWriteItem) (*txWrite, error) {
	w := &txWrite{e: e, items: items, acts: make([]*txAction, len(items))}
	keys, err := transact.Prepare(w)
	if err != nil {
		return nil, err
	}
	w.keys = keys
	return w, nil
}

func (w *txWrite) Len() int { return len(w.items) }

func (w *txWrite) Check(i int) error {
	a, err := prepareTxAction(w.items[i])
	w.acts[i] = a
	return err
}

func (w *txWrite) Resolve(i int) ([]byte, int, error) {
	a := w.acts[i]
	if err := w.e.resolveTxAction(a); err != nil {
		return nil, 0, err
	}
	return a.skey, itemSize(a.Item) + itemSize(a.Key), nil
}

// Lock locks the items' stripes in one global order (lockStripes) and the
// item collections of LSI tables (index_collection.go).
func (w *txWrite) Lock(keys [][]byte) func() {
	unlock := w.e.lockStripes(keys)
	tables, pks := make([]*Table, len(w.acts)), make([]primaryKey, len(w.acts))
	for i, a := range w.acts {
		tables[i], pks[i] = a.table, a.key
	}
	unlockCollections := w.e.lockCollections(tables, pks)
	return func() {
		unlockCollections()
		unlock()
	}
}

func (w *txWrite) Begin() (transact.Attempt, error) {
	txn, err := w.e.store.Begin()
	if err != nil {
		return nil, err
	}
	w.res, w.changed = make([]writeResult, len(w.acts)), make([]bool, len(w.acts))
	return txAttempt{w, txn}, nil
}

// Conflict retries as writeItem does.
func (w *txWrite) Conflict(ctx context.Context, attempt int) error {
	if attempt == maxConflictRetries {
		return ddberr.Internal("Internal server error")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	conflictPause(attempt)
	stale := w.stale
	w.stale = nil
	for _, a := range w.acts {
		var err error
		if a.table, err = w.e.refreshed(stale, a.table); err != nil {
			return err
		}
	}
	return nil
}

// txAttempt is one attempt of a txWrite in storage transaction txn.
type txAttempt struct {
	w   *txWrite
	txn storage.Txn
}

func (t txAttempt) Stage(i int) error {
	w, a := t.w, t.w.acts[i]
	var err error
	if a.Kind == transact.KindConditionCheck {
		w.res[i], err = conditionCheck(t.txn, a)
	} else {
		w.res[i], w.changed[i], err = w.e.stageWrite(t.txn, a.write(), a.skey)
	}
	if errors.Is(err, errStaleCatalog) {
		w.stale = err
	}
	return err
}

// Commit commits the attempt and, once it committed, records its writes
// (writeStats: statistics, the item cache, the subsystems' Committed)
// while transact.State.Run still holds the items' stripe locks: only a
// holder of an item's lock may fill its cache entry, or an older image put
// after another writer's newer one would be read back by the next writer
// (a lost update; TestItemCacheConcurrentWriters).
func (t txAttempt) Commit() error {
	if err := t.txn.Commit(storage.CommitOptions{Sync: t.w.e.cfg.Sync}); err != nil {
		return err
	}
	for i, a := range t.w.acts {
		if t.w.changed[i] {
			t.w.e.writeStats(a.table, t.w.res[i])
		}
	}
	return nil
}

func (t txAttempt) Rollback() { t.txn.Rollback() }

func (t txAttempt) Txn() storage.Txn { return t.txn }

// CheckTransactWriteItem runs the request-phase checks of one
// TransactWriteItems action, touching no table (api.TransactActionChecker).
func (e *Engine) CheckTransactWriteItem(it wire.TransactWriteItem) error {
	_, err := prepareTxAction(it)
	return err
}

// CheckTransactWriteExpressions parses one action's UpdateExpression and
// ConditionExpression and nothing else (transact.CheckExpressions).
func (e *Engine) CheckTransactWriteExpressions(it wire.TransactWriteItem) error {
	return transact.CheckExpressions(it)
}

// prepareTxAction is the request phase of one action: exactly one of the
// four (transact.ActionOf), its expressions parsed and resolved.
func prepareTxAction(it wire.TransactWriteItem) (*txAction, error) {
	act, err := transact.ActionOf(it)
	if err != nil {
		return nil, err
	}
	if act.Kind == transact.KindPut && attr.ItemSize(act.Item) > maxItemSize {
		return nil, ddberr.Detected(msgItemSize)
	}
	a := &txAction{Action: act}
	a.x, err = prepareWrite(writeParams{conditionExpr: act.Condition, updateExpr: act.Update, names: act.Names, values: act.Values})
	return a, err
}

// resolveTxAction looks up the action's table and validates its key.
func (e *Engine) resolveTxAction(a *txAction) error {
	t, err := e.activeTable(a.TableName)
	if err != nil {
		return err
	}
	a.table, a.tableName = t, *a.TableName
	if a.Kind == transact.KindPut {
		if err := t.checkKeyTypes(a.Item); err != nil {
			return transact.Invalid(err)
		}
		if a.key, err = t.validateItemKey(a.Item); err != nil {
			return err
		}
		if err := t.checkIndexKeyTypes(a.Item); err != nil {
			return transact.Invalid(err)
		}
		if err := t.checkIndexKeyValues(a.Item, false); err != nil {
			return err
		}
	} else {
		if a.key, err = t.validateKey(a.Key); err != nil {
			if ddberr.As(err).Message == msgKeySchema {
				return transact.Invalid(err)
			}
			return err
		}
		if a.Kind == transact.KindUpdate {
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

// Run executes the prepared write transaction atomically
// (transact.State.Run: conflicts with other transactions, locks, one
// storage transaction, cancellation reasons in request order). Admission
// comes first; statistics are recorded, and the capacity paid
// (throttle.go), after the commit. A non-nil tok is the request's
// ClientRequestToken, recorded in the commit (cluster mode).
func (w *txWrite) Run(ctx context.Context, tok *transact.Token) error {
	if err := w.e.admitTxWrites(w.acts); err != nil {
		return err
	}
	if err := w.e.tx.Run(ctx, w, w.keys, tok); err != nil {
		return err
	}
	w.e.chargeTxWrites(w.acts, w.res)
	return nil
}

func (w *txWrite) Capacity(mode string) []wire.ConsumedCapacity {
	return txWriteCapacity(w.acts, w.res).List(mode)
}

func (w *txWrite) Collections(mode string) map[string][]wire.ItemCollectionMetrics {
	return w.e.txCollectionMetrics(mode, w.acts)
}

func (w *txWrite) ReplayCapacity(mode string) ([]wire.ConsumedCapacity, error) {
	return w.e.txReplayCapacity(w.acts, mode)
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
	return res, checkCondition(a.x.cond, old, a.OnFailure)
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
		if a.Kind != transact.KindConditionCheck {
			names = append(names, cmp.Or(a.tableName, a.table.Name))
			tables, keys = append(tables, a.table), append(keys, a.key)
		}
	}
	return e.collectionMetricsPerTable(mode, names, tables, keys)
}

// txWriteCapacity is a write transaction's consumed capacity, the sum
// of its actions' (txWriteUnits).
func txWriteCapacity(acts []*txAction, res []writeResult) *transact.Tally {
	var c transact.Tally
	for i, a := range acts {
		u := txWriteUnits(a, res[i])
		c.Add(a.table.Name, transact.Units{Table: u.table, GSI: u.gsi, LSI: u.lsi}, false)
	}
	return &c
}

// txWriteUnits is one action's capacity: DynamoDB performs two underlying
// writes (prepare, commit) of every item, so each write action costs twice
// its units on the table and on each touched index; a ConditionCheck costs
// what a write of the item it checks would.
func txWriteUnits(a *txAction, res writeResult) indexUnits {
	if a.Kind == transact.KindConditionCheck {
		// DynamoDB bills a ConditionCheck as a transactional write of
		// the item it checks (measured: 2 write units for a small item).
		return indexUnits{table: 2 * writeUnits(res.OldBilled)}
	}
	u := a.table.writeUnitsOf(res)
	u.table *= 2
	for k := range u.gsi {
		u.gsi[k] *= 2
	}
	for k := range u.lsi {
		u.lsi[k] *= 2
	}
	return u
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
	var c transact.Tally
	for i, a := range acts {
		c.Add(a.table.Name, transact.Units{Table: 2 * readUnits(itemSize(items[i]), true)}, true)
	}
	return c.List(mode), nil
}

// leaseTokenSweep is the lease of the sweep of expired shared tokens.
const leaseTokenSweep = "txtokens"

// shareTokens, in cluster mode, shares the ClientRequestTokens of write
// transactions with the other nodes through the store (package transact)
// and starts the sweep of expired ones, on the node holding its lease.
// Callers are in Open.
func (e *Engine) shareTokens(store storage.Store) {
	if !e.cfg.Cluster {
		return
	}
	e.tx.ShareTokens(store)
	e.goBackground(func() {
		for e.sleep(transact.SweepEvery) {
			if e.holds(leaseTokenSweep) {
				if err := e.tx.SweepTokens(); err != nil {
					slog.Warn("sweeping expired transaction tokens", "err", err)
				}
			}
		}
	})
}
