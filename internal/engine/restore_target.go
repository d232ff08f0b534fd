package engine

import (
	"errors"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/restore"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// The table a restore or an import fills: created CREATING
// (createRestoreTarget), written through the write path (restoreChunk),
// made ACTIVE at the end (finishRestore).

// createRestoreTarget creates the table a restore fills: CREATING, with
// the RestoreSummary (in progress) and, for a point-in-time restore, the
// ID of the table it reads (pitrSource). It returns the table and the
// description the restore answers with. Callers hold e.ddl.
func (e *Engine) createRestoreTarget(cin *wire.CreateTableInput, summary *wire.RestoreSummary, pitrSource uint64) (*Table, *wire.TableDescription, error) {
	billing, verr := tables.ValidateCreate(cin, tableIndexes{})
	if verr != nil {
		return nil, nil, verr
	}
	if verr := e.account().CheckCreateCaps(cin); verr != nil {
		return nil, nil, verr
	}
	if verr := validateCreateVectors(cin, billing); verr != nil {
		return nil, nil, verr
	}
	rec := e.newTableRecord(cin, billing, e.clock.Now())
	rec.SetStatus(StatusCreating) // no ReadyAt: the restore ends it (finishRestore)
	tables.SetGSIStatus(&rec.Desc, StatusCreating)
	addCreateVectors(rec, cin, StatusCreating)
	if summary != nil { // nil: an import's table (import.go)
		summary.RestoreInProgress = cpPtr(true)
		rec.Desc.RestoreSummary = summary
	}
	rec.RestoreSource = pitrSource
	t, err := e.storeNewTable(rec)
	if err != nil {
		return nil, nil, err
	}
	d := e.describe(t)
	restore.Response(d)
	return t, d, nil
}

// restoreTable is the target table id named name as the catalog has it
// now (a node that did not create it looks it up in the store); nil when
// it is gone.
func (e *Engine) restoreTable(id uint64, name string) *Table {
	t, ok := e.lookupTable(name)
	if !ok || t.ID != id {
		return nil
	}
	return t
}

// restoreTarget is a restore's (or an import's) new table: the core's
// write path for it (restoreChunk), as packages restore and imports
// reach it.
type restoreTarget struct {
	e *Engine
	t *Table // nil: the table is gone
}

var errRestoreTargetGone = errors.New("engine: the restored table is gone")

func (r restoreTarget) Write(items []attr.Item) error {
	if r.t == nil {
		return errRestoreTargetGone
	}
	return r.e.restoreChunk(r.t, items)
}

// restoreChunk writes items into t in one storage transaction with
// BatchWriteItem's tryBatchWrites (stageWrite per item, so index entries
// and vector marks are written with them). No item locks: nothing else
// writes a table being restored. A definition another node changed
// meanwhile (a tag) is reloaded and the chunk written again with it.
func (e *Engine) restoreChunk(t *Table, items []attr.Item) error {
	if len(items) == 0 {
		return nil
	}
	iws := make([]itemWrite, len(items))
	keys := make([][]byte, len(items))
	results, changed := make([]writeResult, len(items)), make([]bool, len(items))
	for attempt := 0; ; attempt++ {
		for i, item := range items {
			pk := t.primaryKeyOf(item)
			iws[i] = itemWrite{table: t, key: pk, verbatim: true, apply: func(attr.Item) (attr.Item, error) { return item, nil }}
			keys[i] = t.storageKey(pk)
		}
		err := e.tryBatchWrites(iws, keys, results, changed)
		if err == nil {
			break
		}
		if !errors.Is(err, storage.ErrConflict) || attempt == maxConflictRetries {
			return err
		}
		if errors.Is(err, errStaleCatalog) {
			if t = e.restoreTable(t.ID, t.Name); t == nil {
				return errRestoreTargetGone
			}
		}
	}
	for i := range iws {
		if changed[i] {
			e.writeStats(t, results[i])
		}
	}
	return nil
}

// finishRestore makes a restored table ACTIVE (durably), without its
// RestoreSummary. In cluster mode a definition another node changed
// meanwhile is read again and the change made on it.
func (e *Engine) finishRestore(id uint64, name string) {
	e.ddl.Lock()
	defer e.ddl.Unlock()
	for attempt := 0; attempt <= maxConflictRetries; attempt++ {
		cur, ok := e.lookupTable(name)
		if !ok || cur.ID != id || cur.Status != StatusCreating {
			return
		}
		now := e.clock.Now()
		rec := cur.rec.Clone()
		rec.ReadyAt = now
		rec.Settle(now)
		rec.Desc.RestoreSummary = nil
		rec.RestoreSource = 0
		_, err := e.saveRecord(rec)
		if !errors.Is(err, errStaleCatalog) {
			return // on failure the table stays CREATING; the next Open (or node) restores again
		}
		if _, _, err := e.reloadTable(name); err != nil {
			return
		}
	}
}

// itemSuffix is an item's storage key without its table's prefix
// (itemPrefix: one byte and the table ID).
func itemSuffix(key []byte) []byte { return key[itemPrefixLen:] }
