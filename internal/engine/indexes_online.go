package engine

import (
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/engine/stripes"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Online index changes (backfills of GSIs being created, purges of GSIs
// being deleted) run in package indexes over indexCore.

// describeIndexes fills the dynamic figures of every index into d: status,
// Backfilling, ItemCount and IndexSizeBytes.
func (e *Engine) describeIndexes(t *Table, d *wire.TableDescription) {
	indexes.Describe(d, t.Index, &t.stats.indexes, t.Status == StatusUpdating)
}

// startIndexWork starts the background work an UpdateTable leaves
// (indexes.StartWork). Callers hold e.ddl.
func (e *Engine) startIndexWork(t, prev *Table) { indexes.StartWork(indexCore{e}, t, prev) }

// resumeIndexWork is Open's part for indexes (indexes.Resume).
func (e *Engine) resumeIndexWork(restored map[indexes.Ref]bool) error {
	return indexes.Resume(indexCore{e}, restored)
}

// loadIndexStats restores the index statistics a clean Close saved for
// table id (indexes.RestoreStats).
func (e *Engine) loadIndexStats(r storage.Reader, id uint64, restored map[indexes.Ref]bool) error {
	return indexes.RestoreStats(r, id, &e.statsFor(id).indexes, restored)
}

// barrier waits until every write that took its item lock before now has
// finished.
func (e *Engine) barrier() { e.locks.LockAll()() }

// isClosing reports whether the engine is closing.
func (e *Engine) isClosing() bool {
	select {
	case <-e.closing:
		return true
	default:
		return false
	}
}

// Globals are t's GSIs (indexes.OnlineTable).
func (t *Table) Globals() []*Index { return t.GSIs }

// UpdatingUntil is the end of an UPDATING table's resource allocation
// (indexes.OnlineTable).
func (t *Table) UpdatingUntil() time.Time {
	if t.rec.Status != StatusUpdating {
		return time.Time{}
	}
	return t.rec.ReadyAt
}

// ItemCount is t's ItemCount now (indexes.OnlineTable).
func (t *Table) ItemCount() int64 { return t.stats.items.Load() }

// indexCore is the core as the online index jobs see it (indexes.Core).
type indexCore struct{ e *Engine }

func (c indexCore) Store() storage.Store                   { return c.e.store }
func (c indexCore) Snapshot() (*snapshot.Reader, error)    { return c.e.openSnapshot() }
func (c indexCore) Locks() *stripes.Locks                  { return &c.e.locks }
func (c indexCore) Commit(f func(storage.Txn) error) error { return c.e.commit(c.e.cfg.Sync, f) }
func (c indexCore) Purge(lower, upper []byte) bool         { return c.e.purgeUntilClose(lower, upper) }
func (c indexCore) Closing() bool                          { return c.e.isClosing() }
func (c indexCore) Go(f func())                            { c.e.goBackground(f) }
func (c indexCore) Now() time.Time                         { return c.e.clock.Now() }
func (c indexCore) CreateDelay() time.Duration             { return c.e.cfg.CreateDelay }
func (c indexCore) ItemSize(stored []byte) int64           { return itemSizeFromStored(stored) }
func (c indexCore) ItemPrefix(tableID uint64) []byte       { return itemPrefix(tableID) }
func (c indexCore) StatsDirty()                            { c.e.statsDirty.Store(true) }

func (c indexCore) ReadItem(r storage.Reader, key []byte) (attr.Item, error) { return readItem(r, key) }

func (c indexCore) AwaitClock(at time.Time, still func() bool) bool { return c.e.awaitClock(at, still) }

func (c indexCore) Exclusive(tableID uint64, indexID uint32, still func() bool, run func()) {
	c.e.underLease(backfillLease(tableID, indexID), still, run)
}

func (c indexCore) Table(name string, id uint64) (indexes.OnlineTable, bool) {
	c.e.mu.RLock()
	t, ok := c.e.tables[name]
	c.e.mu.RUnlock()
	if !ok || t.ID != id || t.Status == StatusDeleting {
		return nil, false
	}
	return t, true
}

func (c indexCore) Tables() []indexes.OnlineTable {
	var out []indexes.OnlineTable
	for _, t := range c.e.liveTables() {
		out = append(out, t)
	}
	return out
}

func (c indexCore) ChangeDesc(name string, id uint64, f func(indexes.OnlineTable, *wire.TableDescription) bool) error {
	c.e.ddl.Lock()
	defer c.e.ddl.Unlock()
	t, ok := c.Table(name, id)
	if !ok {
		return nil
	}
	rec := t.(*Table).rec.Clone()
	if !f(t, &rec.Desc) {
		return nil
	}
	_, err := c.e.saveRecord(rec)
	return err
}

func (c indexCore) Stats(tableID uint64) *indexes.Stats {
	c.e.statsMu.Lock()
	s := c.e.stats[tableID]
	c.e.statsMu.Unlock()
	if s == nil {
		return nil
	}
	return &s.indexes
}
