package indexes

import (
	"errors"
	"log/slog"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/engine/stripes"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Online index changes: the jobs, run over the core (Core).
//
// UpdateTable Create adds the GSI to the table's metadata as CREATING with
// Backfilling set and persists it; from then on every write maintains the
// index (the Live set). A background goroutine then runs the backfill,
// chunk by chunk (Backfill), over the items already there; when it reaches
// the end (with --create-delay, and not before minEnd) the index turns
// ACTIVE. A restart finds the index still backfilling in the catalog and
// starts over (chunks skip entries that exist).
//
// UpdateTable Delete marks the GSI DELETING (writes stop maintaining it at
// once) and records a purge marker (PurgeKey); a background goroutine
// removes the index's key range in chunks and then the marker, and the
// index leaves the description when the update settles. A GSI can be
// deleted while it is still backfilling: each backfill chunk checks,
// holding its items' stripe locks, that the index is still backfilling
// before it commits, and the purge starts only after taking every stripe
// lock once (barrier), so no chunk commits entries behind the purge.

// Core is the engine as the online index jobs see it.
type Core interface {
	// Store, Snapshot and ReadItem are as Backfill's; Locks are the item
	// stripe locks every writer takes.
	Store() storage.Store
	Snapshot() (*snapshot.Reader, error)
	ReadItem(r storage.Reader, key []byte) (attr.Item, error)
	Locks() *stripes.Locks
	// Commit runs f in one storage transaction, synced as configured.
	Commit(f func(storage.Txn) error) error
	// Purge deletes every key in [lower, upper) in chunks; false when the
	// engine closed first (or a chunk failed).
	Purge(lower, upper []byte) bool
	// Closing reports whether the engine is closing; Go runs f in the
	// background, Close waiting for it (callers hold the control-plane
	// lock, or are in Open).
	Closing() bool
	Go(f func())
	// Now is the engine's clock, CreateDelay --create-delay; AwaitClock
	// waits until the clock reaches at while still holds, false when the
	// engine closes or still stops holding.
	Now() time.Time
	CreateDelay() time.Duration
	AwaitClock(at time.Time, still func() bool) bool
	// Exclusive runs run on the node holding the lease of the index's
	// backfill, while still holds.
	Exclusive(tableID uint64, indexID uint32, still func() bool, run func())
	// Table is the named table's current version, if its ID is still id
	// and it is not being deleted; Tables lists every such version.
	Table(name string, id uint64) (OnlineTable, bool)
	Tables() []OnlineTable
	// ChangeDesc changes the stored description of table name (if its ID
	// is still id) holding the control-plane lock: f gets the current
	// version and a copy of its description, and reports whether to save
	// it. Only the save's failure is an error.
	ChangeDesc(name string, id uint64, f func(t OnlineTable, d *wire.TableDescription) bool) error
	// Stats is the index statistics of table id, nil when it has none.
	Stats(tableID uint64) *Stats
	// ItemSize is the DynamoDB size of one stored item value.
	ItemSize(stored []byte) int64
	// ItemPrefix begins every item key of a table.
	ItemPrefix(tableID uint64) []byte
	// StatsDirty records that the statistics are not a count (a recount
	// was interrupted): Close must not save them as valid.
	StatsDirty()
}

// OnlineTable is a table version as the online jobs see it.
type OnlineTable interface {
	Table
	// Index is the table's GSI or LSI named name; Globals its GSIs.
	Index(name string) (*Index, bool)
	Globals() []*Index
	// UpdatingUntil is when DynamoDB's resource allocation of an UPDATING
	// table ends (its ReadyAt); zero when the table is not UPDATING.
	UpdatingUntil() time.Time
	// ItemCount is the table's ItemCount now.
	ItemCount() int64
}

// BackfillChunkHook, when set by a test, runs before each backfill chunk.
var BackfillChunkHook func()

// StartWork starts the background work an UpdateTable leaves: backfills
// of GSIs being created and purges of GSIs being deleted. Callers hold the
// control-plane lock; prev is the table version before the change.
func StartWork(c Core, t, prev OnlineTable) {
	def := t.Def()
	for _, ix := range t.Globals() {
		if !ix.Backfilling {
			continue
		}
		if was, ok := prev.Index(ix.Name); ok && was.ID == ix.ID {
			continue
		}
		minEnd := backfillMinEnd(c, t)
		c.Go(func() { leasedBackfill(c, def.Name, def.ID, ix, minEnd) })
	}
	for _, was := range prev.Globals() {
		if was.Status == statusDeleting {
			continue
		}
		if ix, ok := t.Index(was.Name); ok && ix.ID == was.ID && ix.Status != statusDeleting {
			continue
		}
		c.Go(func() { purge(c, def.ID, was.ID, true) })
	}
}

// Resume is Open's part for indexes: backfills and purges left unfinished,
// and a recount of the statistics of every index not in restored (the
// indexes whose statistics a clean Close saved, see RestoreStats).
func Resume(c Core, restored map[Ref]bool) error {
	r, err := c.Snapshot()
	if err != nil {
		return err
	}
	purges, err := Purges(r)
	r.Close()
	if err != nil {
		return err
	}
	for _, p := range purges {
		c.Go(func() { purge(c, p.Table, p.Index, false) })
	}
	tables := c.Tables()
	for _, t := range tables {
		def := t.Def()
		for _, ix := range t.Globals() {
			if ix.Backfilling {
				minEnd := backfillMinEnd(c, t)
				c.Go(func() { leasedBackfill(c, def.Name, def.ID, ix, minEnd) })
			}
		}
	}
	if len(tables) > 0 {
		c.Go(func() { recount(c, tables, restored) })
	}
	return nil
}

// RestoreStats restores into s the index statistics a clean Close saved
// for table id, adding each restored index to restored.
func RestoreStats(r storage.Reader, id uint64, s *Stats, restored map[Ref]bool) error {
	v, err := r.Get(StatsKey(id))
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, ixID := range s.Restore(v) {
		restored[Ref{Table: id, Index: ixID}] = true
	}
	return nil
}

// barrier waits until every write that took its item lock before now has
// finished: writes after it see the current Live set.
func barrier(c Core) { c.Locks().LockAll()() }

// current returns the table and index if ix is still the named table's
// index (same IDs).
func current(c Core, table string, tableID uint64, ix *Index) (OnlineTable, *Index, bool) {
	t, ok := c.Table(table, tableID)
	if !ok {
		return nil, nil, false
	}
	cur, ok := t.Index(ix.Name)
	if !ok || cur.ID != ix.ID {
		return nil, nil, false
	}
	return t, cur, true
}

// stillBackfilling reports whether ix is still the named table's index and
// backfilling.
func stillBackfilling(c Core, table string, tableID uint64, ix *Index) bool {
	_, cur, ok := current(c, table, tableID, ix)
	return ok && cur.Backfilling
}

// leasedBackfill is backfill on the node that holds the index's lease.
func leasedBackfill(c Core, table string, tableID uint64, ix *Index, minEnd time.Time) {
	c.Exclusive(tableID, ix.ID, func() bool { return stillBackfilling(c, table, tableID, ix) },
		func() { backfill(c, table, tableID, ix, minEnd) })
}

// backfill indexes the items already in the table, then marks the index
// ACTIVE, not before minEnd (see backfillMinEnd).
func backfill(c Core, table string, tableID uint64, ix *Index, minEnd time.Time) {
	barrier(c)
	log := slog.Default().With("table", table, "index", ix.Name)
	log.Info("index backfill started")
	start := time.Now()
	p, ok := backfillJob(c, table, tableID, ix, log).Walk(c.ItemPrefix(tableID), c.ItemPrefix(tableID+1))
	if !ok {
		return
	}
	if !minEnd.IsZero() && !c.AwaitClock(minEnd, func() bool { return stillBackfilling(c, table, tableID, ix) }) {
		return // deleted (cancelled) or closing: a restart resumes it
	}
	if t, cur, ok := current(c, table, tableID, ix); ok && cur.Backfilling {
		if err := settleStats(c, t, cur); err != nil {
			log.Error("index backfill: recounting the index failed", "err", err)
			return
		}
	}
	var allocating bool
	err := c.ChangeDesc(table, tableID, func(t OnlineTable, d *wire.TableDescription) bool {
		if cur, ok := t.Index(ix.Name); !ok || cur.ID != ix.ID {
			return false
		}
		// While the table is still UPDATING (--create-delay: DynamoDB's
		// resource allocation, which comes before the backfill) the index
		// stays CREATING; settle turns it ACTIVE with the table.
		until := t.UpdatingUntil()
		allocating = !until.IsZero() && c.Now().Before(until)
		for i := range d.GlobalSecondaryIndexes {
			g := &d.GlobalSecondaryIndexes[i]
			if wire.Deref(g.IndexName) == ix.Name && wire.Deref(g.Backfilling) {
				g.Backfilling = nil
				if !allocating {
					g.IndexStatus = statusActive
				}
			}
		}
		return true
	})
	if err != nil {
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
func backfillMinEnd(c Core, t OnlineTable) time.Time {
	if c.CreateDelay() <= 0 {
		return time.Time{}
	}
	from := c.Now()
	if until := t.UpdatingUntil(); from.Before(until) {
		from = until
	}
	return from.Add(c.CreateDelay())
}

// backfillJob is the backfill of ix, an index of table (tableID), over c.
func backfillJob(c Core, table string, tableID uint64, ix *Index, log *slog.Logger) *Backfill {
	return &Backfill{
		Store:       c.Store(),
		Snapshot:    c.Snapshot,
		ReadItem:    c.ReadItem,
		LockStripes: c.Locks().Lock,
		Current: func() (Table, *Index, bool) {
			t, cur, ok := current(c, table, tableID, ix)
			return t, cur, ok
		},
		Closing: c.Closing,
		BeforeChunk: func() {
			if BackfillChunkHook != nil {
				BackfillChunkHook()
			}
		},
		Log: log,
		TableItems: func() int64 {
			if t, _, ok := current(c, table, tableID, ix); ok {
				return t.ItemCount()
			}
			return 0
		},
	}
}

// purge removes every entry of a deleted index, then its statistics and
// purge marker. fresh is set when the deletion was just requested: the
// marker is written first and running writes are waited for.
func purge(c Core, tableID uint64, indexID uint32, fresh bool) {
	marker := PurgeKey(Ref{Table: tableID, Index: indexID})
	if fresh {
		if err := c.Commit(func(txn storage.Txn) error { return txn.Set(marker, []byte{1}) }); err != nil {
			return
		}
		barrier(c)
	}
	if !c.Purge(Prefix(tableID, indexID), Prefix(tableID, indexID+1)) {
		return
	}
	if err := c.Commit(func(txn storage.Txn) error { return txn.Delete(marker) }); err != nil {
		return
	}
	if s := c.Stats(tableID); s != nil {
		s.Forget(indexID)
	}
}

// recount recomputes ItemCount/IndexSizeBytes of every live index not in
// restored from storage, keeping the deltas of writes that commit
// meanwhile. Interrupted by Close, it leaves the statistics dirty so that
// they are not saved as valid.
func recount(c Core, tables []OnlineTable, restored map[Ref]bool) {
	for _, t := range tables {
		id := t.Def().ID
		for _, ix := range t.Indexes().List {
			ref := Ref{Table: id, Index: ix.ID}
			if restored[ref] {
				continue
			}
			take := func(mark func()) (*snapshot.Reader, error) { mark(); return c.Snapshot() }
			if ok, _ := t.IndexStats().Recount(ref, take, c.ItemSize, c.Closing); !ok {
				// Closing, or the walk failed: the figures are not a count.
				c.StatsDirty()
				return
			}
		}
	}
}

// settleStats makes a backfilled index's ItemCount/IndexSizeBytes exact.
// While the backfill runs, a write to an item it has not reached yet
// counts the removal of an entry that was never written (and the backfill
// then finds the writer's entry and does not count it), so the running
// figures drift. Once every item is indexed the index is counted once from
// a snapshot taken while every item stripe lock is held: each write has
// then either committed and recorded its statistics, or neither, so the
// count replaces exactly the figures of the writes it includes.
func settleStats(c Core, t OnlineTable, ix *Index) error {
	take := func(mark func()) (*snapshot.Reader, error) {
		defer c.Locks().LockAll()()
		mark()
		return c.Snapshot()
	}
	_, err := t.IndexStats().Recount(Ref{Table: t.Def().ID, Index: ix.ID}, take, c.ItemSize, nil)
	return err
}
