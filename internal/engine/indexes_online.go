package engine

import (
	"errors"
	"log/slog"
	"time"

	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Online index changes: the engine runs the jobs of package indexes.
//
// UpdateTable Create adds the GSI to the table's metadata as CREATING with
// Backfilling set and persists it; from then on every write maintains the
// index (liveIndexes). A background goroutine then runs the backfill, chunk
// by chunk (indexes.Backfill), over the items already there; when it
// reaches the end (with --create-delay, and not before backfillMinEnd) the
// index turns ACTIVE. A restart finds the index still backfilling in the
// catalog and starts over (chunks skip entries that exist).
//
// UpdateTable Delete marks the GSI DELETING (writes stop maintaining it at
// once) and records a purge marker (indexes.PurgeKey); a background
// goroutine removes the index's key range in chunks and then the marker,
// and the index leaves the description when the update settles. A GSI can
// be deleted while it is still backfilling: each backfill chunk checks,
// holding its items' stripe locks, that the index is still backfilling
// before it commits, and the purge starts only after taking every stripe
// lock once (barrier), so no chunk commits entries behind the purge.

// backfillChunkHook, when set by a test, runs before each backfill chunk.
var backfillChunkHook func()

// describeIndexes fills the dynamic figures of every index into d: status,
// Backfilling, ItemCount and IndexSizeBytes.
func (e *Engine) describeIndexes(t *Table, d *wire.TableDescription) {
	indexes.Describe(d, t.Index, &t.stats.indexes, t.Status == StatusUpdating)
}

// startIndexWork starts the background work an UpdateTable (or Open)
// leaves: backfills of GSIs being created and purges of GSIs being
// deleted. Callers hold e.ddl; prev is the table version before the
// change.
func (e *Engine) startIndexWork(t *Table, prev *Table) {
	for _, ix := range t.GSIs {
		if !ix.Backfilling {
			continue
		}
		if was, ok := prev.Index(ix.Name); ok && was.ID == ix.ID {
			continue
		}
		minEnd := e.backfillMinEnd(t)
		e.goBackground(func() { e.leasedBackfill(t.Name, t.ID, ix, minEnd) })
	}
	for _, was := range prev.GSIs {
		if was.Status == StatusDeleting {
			continue
		}
		if ix, ok := t.Index(was.Name); ok && ix.ID == was.ID && ix.Status != StatusDeleting {
			continue
		}
		e.goBackground(func() { e.purgeIndex(t.ID, was.ID, true) })
	}
}

// barrier waits until every write that took its item lock before now has
// finished: writes after it see the current liveIndexes.
func (e *Engine) barrier() {
	for i := range e.locks {
		e.locks[i].Lock()
		//lint:ignore SA2001 an empty critical section is the point
		e.locks[i].Unlock()
	}
}

// currentIndex returns the table and index if ix is still the named table's
// index (same IDs).
func (e *Engine) currentIndex(table string, tableID uint64, ix *Index) (*Table, *Index, bool) {
	e.mu.RLock()
	t, ok := e.tables[table]
	e.mu.RUnlock()
	if !ok || t.ID != tableID || t.Status == StatusDeleting {
		return nil, nil, false
	}
	cur, ok := t.Index(ix.Name)
	if !ok || cur.ID != ix.ID {
		return nil, nil, false
	}
	return t, cur, true
}

// backfill indexes the items already in the table, then marks the index
// ACTIVE, not before minEnd (see backfillMinEnd).
func (e *Engine) backfill(table string, tableID uint64, ix *Index, minEnd time.Time) {
	e.barrier()
	log := slog.Default().With("table", table, "index", ix.Name)
	log.Info("index backfill started")
	start := time.Now()
	p, ok := e.backfillJob(table, tableID, ix, log).Walk(itemPrefix(tableID), itemPrefix(tableID+1))
	if !ok {
		return
	}
	if !minEnd.IsZero() && !e.awaitClock(minEnd, func() bool {
		_, cur, ok := e.currentIndex(table, tableID, ix)
		return ok && cur.Backfilling
	}) {
		return // deleted (cancelled) or closing: a restart resumes it
	}
	if t, cur, ok := e.currentIndex(table, tableID, ix); ok && cur.Backfilling {
		if err := e.settleIndexStats(t, cur); err != nil {
			log.Error("index backfill: recounting the index failed", "err", err)
			return
		}
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, _, ok := e.currentIndex(table, tableID, ix)
	if !ok {
		return
	}
	rec := t.rec.Clone()
	// While the table is still UPDATING (--create-delay: DynamoDB's
	// resource allocation, which comes before the backfill) the index stays
	// CREATING; settle turns it ACTIVE with the table.
	allocating := rec.Status == StatusUpdating && !rec.ReadyAt.IsZero() && e.clock.Now().Before(rec.ReadyAt)
	for i := range rec.Desc.GlobalSecondaryIndexes {
		g := &rec.Desc.GlobalSecondaryIndexes[i]
		if cpDeref(g.IndexName) == ix.Name && cpDeref(g.Backfilling) {
			g.Backfilling = nil
			if !allocating {
				g.IndexStatus = StatusActive
			}
		}
	}
	if _, err := e.saveRecord(rec); err != nil {
		log.Error("index backfill: saving the catalog failed", "err", err)
		return
	}
	log.Info("index backfill finished", "active", !allocating, "scanned", p.Scanned, "indexed", p.Indexed, "skipped", p.Skipped, "took", time.Since(start).Round(time.Millisecond))
}

// backfillMinEnd is when, with --create-delay, the backfill of a GSI of t
// may finish at the earliest: the delay after the table's resource
// allocation ends (its ReadyAt while UPDATING; now for a backfill resumed
// at start), so the backfill phase (table ACTIVE, index CREATING with
// Backfilling true, a Delete taken as a cancel) can be seen as on
// DynamoDB, where it lasts minutes even for a few items. Zero without a
// delay.
func (e *Engine) backfillMinEnd(t *Table) time.Time {
	if e.cfg.CreateDelay <= 0 {
		return time.Time{}
	}
	from := e.clock.Now()
	if t.rec.Status == StatusUpdating && from.Before(t.rec.ReadyAt) {
		from = t.rec.ReadyAt
	}
	return from.Add(e.cfg.CreateDelay)
}

// backfillJob is the backfill of ix, an index of table (tableID), over the
// engine.
func (e *Engine) backfillJob(table string, tableID uint64, ix *Index, log *slog.Logger) *indexes.Backfill {
	return &indexes.Backfill{
		Store:       e.store,
		Snapshot:    e.openSnapshot,
		ReadItem:    readItem,
		LockStripes: e.lockStripes,
		Current: func() (indexes.Table, *Index, bool) {
			t, cur, ok := e.currentIndex(table, tableID, ix)
			return t, cur, ok
		},
		Closing: e.isClosing,
		BeforeChunk: func() {
			if backfillChunkHook != nil {
				backfillChunkHook()
			}
		},
		Log: log,
		TableItems: func() int64 {
			if t, _, ok := e.currentIndex(table, tableID, ix); ok {
				return t.stats.items.Load()
			}
			return 0
		},
	}
}

// purgeIndex removes every entry of a deleted index, then its statistics
// and purge marker. fresh is set when the deletion was just requested: the
// marker is written first and running writes are waited for.
func (e *Engine) purgeIndex(tableID uint64, indexID uint32, fresh bool) {
	marker := indexes.PurgeKey(indexes.Ref{Table: tableID, Index: indexID})
	if fresh {
		if err := e.commit(e.cfg.Sync, func(txn storage.Txn) error { return txn.Set(marker, []byte{1}) }); err != nil {
			return
		}
		e.barrier()
	}
	if !e.purgeUntilClose(indexPrefix(tableID, indexID), indexPrefix(tableID, indexID+1)) {
		return
	}
	if err := e.commit(e.cfg.Sync, func(txn storage.Txn) error { return txn.Delete(marker) }); err != nil {
		return
	}
	e.statsMu.Lock()
	s := e.stats[tableID]
	e.statsMu.Unlock()
	if s != nil {
		s.indexes.Forget(indexID)
	}
}

// resumeIndexWork is Open's part for indexes: backfills and purges left
// unfinished, and a recount of the statistics of every index not in
// restored (the indexes whose statistics a clean Close saved, see
// loadIndexStats).
func (e *Engine) resumeIndexWork(restored map[indexes.Ref]bool) error {
	r, err := e.openSnapshot()
	if err != nil {
		return err
	}
	purges, err := indexes.Purges(r)
	r.Close()
	if err != nil {
		return err
	}
	for _, p := range purges {
		e.goBackground(func() { e.purgeIndex(p.Table, p.Index, false) })
	}
	var tables []*Table
	for _, t := range e.tables {
		if t.Status == StatusDeleting {
			continue
		}
		tables = append(tables, t)
		for _, ix := range t.GSIs {
			if ix.Backfilling {
				minEnd := e.backfillMinEnd(t)
				e.goBackground(func() { e.leasedBackfill(t.Name, t.ID, ix, minEnd) })
			}
		}
	}
	if len(tables) > 0 {
		e.goBackground(func() { e.recountIndexes(tables, restored) })
	}
	return nil
}

// recountIndexes recomputes ItemCount/IndexSizeBytes of every live index
// not in restored from storage, keeping the deltas of writes that commit
// meanwhile. Interrupted by Close, it leaves the statistics dirty so that
// they are not saved as valid.
func (e *Engine) recountIndexes(tables []*Table, restored map[indexes.Ref]bool) {
	for _, t := range tables {
		for _, ix := range t.liveIndexes().List {
			if restored[indexes.Ref{Table: t.ID, Index: ix.ID}] {
				continue
			}
			take := func(mark func()) (*snapshot.Reader, error) { mark(); return e.openSnapshot() }
			if ok, _ := t.stats.indexes.Recount(indexes.Ref{Table: t.ID, Index: ix.ID}, take, itemSizeFromStored, e.isClosing); !ok {
				// Closing, or the walk failed: the figures are not a count.
				e.statsDirty.Store(true)
				return
			}
		}
	}
}

// isClosing reports whether the engine is closing.
func (e *Engine) isClosing() bool {
	select {
	case <-e.closing:
		return true
	default:
		return false
	}
}

// loadIndexStats restores the index statistics a clean Close saved for
// table id, adding each restored index to restored.
func (e *Engine) loadIndexStats(r storage.Reader, id uint64, restored map[indexes.Ref]bool) error {
	v, err := r.Get(indexes.StatsKey(id))
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, ixID := range e.statsFor(id).indexes.Restore(v) {
		restored[indexes.Ref{Table: id, Index: ixID}] = true
	}
	return nil
}

// settleIndexStats makes a backfilled index's ItemCount/IndexSizeBytes
// exact. While the backfill runs, a write to an item it has not reached
// yet counts the removal of an entry that was never written (and the
// backfill then finds the writer's entry and does not count it), so the
// running figures drift. Once every item is indexed the index is counted
// once from a snapshot taken while every item stripe lock is held: each
// write has then either committed and recorded its statistics, or neither,
// so the count replaces exactly the figures of the writes it includes.
func (e *Engine) settleIndexStats(t *Table, ix *Index) error {
	take := func(mark func()) (*snapshot.Reader, error) {
		for i := range e.locks {
			e.locks[i].Lock()
		}
		defer func() {
			for i := len(e.locks) - 1; i >= 0; i-- {
				e.locks[i].Unlock()
			}
		}()
		mark()
		return e.openSnapshot()
	}
	_, err := t.stats.indexes.Recount(indexes.Ref{Table: t.ID, Index: ix.ID}, take, itemSizeFromStored, nil)
	return err
}
