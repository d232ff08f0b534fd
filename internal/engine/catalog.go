package engine

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/kura-db/kura/internal/engine/catalog"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/layout"
	"github.com/kura-db/kura/internal/engine/pitr"
	"github.com/kura-db/kura/internal/storage"
)

// The catalog's records, keys, store reads and writes, ID allocation,
// purges and statistics are package catalog's (e.cat); the core keeps the
// in-memory map of the tables built from the records (e.tables) and the
// entry points that build and swap them.

// Names of package catalog's the core uses often.
type (
	tableRecord = catalog.Record
	indexRecord = catalog.IndexRecord
	pitrRecord  = catalog.PITRRecord
)

var (
	errStaleCatalog = catalog.ErrStale
	purgeKeepItems  = catalog.PurgeKeepItems
	putRecord       = catalog.Put
	deleteRecord    = catalog.Delete
	catalogKey      = catalog.Key
	metaPurgeKey    = catalog.PurgeKey
	parseKeySchema  = catalog.ParseKeySchema
	attrType        = catalog.AttrType
)

// openCatalog wires the catalog's store side over store, the one given to
// Open (callers are in Open).
func (e *Engine) openCatalog(store storage.Store) {
	point, _ := store.(storage.PointReader)
	e.cat = catalog.New(catalog.Options{Store: e.store, Point: point, Sync: e.cfg.Sync, Closing: e.closing,
		Retry: func(attempt int) bool {
			conflictPause(attempt)
			return attempt < maxConflictRetries
		}})
}

// itemSizeFromStored returns the DynamoDB size of one stored item value; it
// is used only by the statistics recount after an unclean shutdown. The
// data plane replaces it (in an init function next to its item codec) with
// the exact computation; the default approximates with the encoded length.
var itemSizeFromStored = func(value []byte) int64 { return int64(len(value)) }

// buildTable derives the in-memory Table from a record.
func (e *Engine) buildTable(rec *tableRecord) (*Table, error) {
	s, err := rec.Schema()
	if err != nil {
		return nil, err
	}
	t := &Table{
		Table: change.Table{Name: rec.Name, ID: rec.ID, Hash: s.Hash, Range: s.Range},
		Desc:  rec.Desc, Status: rec.Status, BillingMode: rec.BillingMode,
		GSIs: s.GSIs, LSIs: s.LSIs, Vectors: s.Vectors,
		rec: rec, stats: e.statsFor(rec.ID),
	}
	t.checked.Store(e.clock.Now().UnixNano())
	t.Stream = streamSpec(&rec.Desc)
	for i, g := range rec.Desc.GlobalSecondaryIndexes {
		t.GSIs[i].Status, t.GSIs[i].Backfilling = g.IndexStatus, cpDeref(g.Backfilling)
	}
	for _, l := range t.LSIs {
		l.Status = StatusActive
	}
	t.stats.live.Store(indexes.NewLive(t.LSIs, t.GSIs))
	e.pitr.SetRecording(rec.ID, rec.PITR.Enabled)
	return t, nil
}

// commit runs f in a storage transaction and commits it.
func (e *Engine) commit(sync bool, f func(storage.Txn) error) error {
	return e.commitWith(storage.CommitOptions{Sync: sync}, f)
}

// commitWith is commit with every commit option.
func (e *Engine) commitWith(opts storage.CommitOptions, f func(storage.Txn) error) error {
	return e.cat.Commit(opts, f)
}

// installTable swaps in the Table built from rec (after its commit).
func (e *Engine) installTable(rec *tableRecord) (*Table, error) {
	t, err := e.buildTable(rec)
	if err != nil {
		return nil, err
	}
	e.install(t)
	return t, nil
}

// install swaps in t, built from a committed record.
func (e *Engine) install(t *Table) {
	e.mu.Lock()
	e.tables[t.Name] = t
	e.mu.Unlock()
	e.observeStreams(t)
}

// saveRecord persists rec (callers hold e.ddl) and installs it. The Table
// is built first, so a record that cannot be loaded is never stored.
func (e *Engine) saveRecord(rec *tableRecord) (*Table, error) {
	t, err := e.buildTable(rec)
	if err != nil {
		return nil, err
	}
	if err := e.commit(e.cfg.Sync, func(txn storage.Txn) error { return putRecord(txn, rec) }); err != nil {
		return nil, err
	}
	e.install(t)
	return t, nil
}

// loadCatalog builds every stored table, restores or recounts the
// statistics, and resumes unfinished deletions.
func (e *Engine) loadCatalog() error {
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	l, err := e.cat.Load(snap, e.clock.Now())
	if err != nil {
		return err
	}
	for _, rec := range l.Records {
		t, err := e.buildTable(rec)
		if err != nil {
			return err
		}
		e.tables[rec.Name] = t
	}
	restored := map[indexes.Ref]bool{}
	if l.Clean {
		for _, rec := range l.Records {
			if n, ok := l.Counts[rec.ID]; ok {
				s := e.statsFor(rec.ID)
				s.items.Store(n.Items)
				s.bytes.Store(n.Bytes)
			}
			if err := e.loadIndexStats(snap, rec.ID, restored); err != nil {
				return err
			}
		}
		if err := e.cat.Unclean(); err != nil {
			return err
		}
	} else if len(l.Records) > 0 {
		ids := l.Counted()
		e.goBackground(func() { e.recount(ids) })
	}
	for _, p := range l.Purges {
		e.goBackground(func() { e.purge(p.ID, p.KeepItems) })
	}
	for _, rec := range l.Records {
		if rec.Status == StatusDeleting {
			e.scheduleRemoval(rec.Name, rec.ID, rec.DeleteAt)
		}
	}
	return e.resumeIndexWork(restored)
}

// allocTableID reserves a new table ID inside txn (callers hold e.ddl).
func (e *Engine) allocTableID(txn storage.Txn) (uint64, error) { return e.cat.AllocID(txn) }

// commitNewID commits what put writes under a new table ID (catalog's
// CommitNewID). Callers hold e.ddl.
func (e *Engine) commitNewID(put func(txn storage.Txn, id uint64) error) (uint64, error) {
	return e.cat.CommitNewID(put)
}

// scheduleRemoval drops a DELETING table's catalog entry at deleteAt.
// Callers hold e.ddl or are in Open.
func (e *Engine) scheduleRemoval(name string, id uint64, at time.Time) {
	e.goBackground(func() {
		if !e.sleep(at.Sub(e.clock.Now())) {
			return
		}
		e.ddl.Lock()
		defer e.ddl.Unlock()
		if cur, ok := e.installed(name); !ok || cur.ID != id {
			return
		}
		if err := e.commit(e.cfg.Sync, func(txn storage.Txn) error { return deleteRecord(txn, name, id) }); err != nil {
			return
		}
		e.forgetID(name, id)
	})
}

// purge removes every item and index entry of a deleted table, then its
// statistics and purge marker (catalog's Purge); keepItems leaves the
// items to the system backup that holds them. It stops early on Close
// (the marker makes the next Open resume it).
func (e *Engine) purge(id uint64, keepItems bool) {
	ranges := [][2][]byte{
		{binary.BigEndian.AppendUint64([]byte{prefixIndex}, id), binary.BigEndian.AppendUint64([]byte{prefixIndex}, id+1)},
		{pitr.Prefix(id), pitr.Prefix(id + 1)},
	}
	if !keepItems {
		ranges = append(ranges, [2][]byte{itemPrefix(id), itemPrefix(id + 1)})
	}
	if !e.cat.Purge(id, ranges) {
		return
	}
	e.statsMu.Lock()
	delete(e.stats, id)
	e.statsMu.Unlock()
	e.quota.Buckets().Forget(id)
}

// purgeUntilClose deletes every key of [lower, upper) as background work:
// false when Close or an error stopped it first.
func (e *Engine) purgeUntilClose(lower, upper []byte) bool { return e.cat.PurgeRange(lower, upper) }

// purgeSome deletes the first purgeChunk keys of [lower, upper).
func (e *Engine) purgeSome(lower, upper []byte) (int, error) { return e.cat.PurgeSome(lower, upper) }

const purgeChunk = catalog.PurgeChunk

// recount recomputes ItemCount/TableSizeBytes of the given tables from
// storage after an unclean shutdown (and in cluster mode, under a lease:
// catalog_nodes.go). Writes that commit while it runs are kept: the
// deltas recorded before the snapshot are replaced by the count. It
// returns what it counted, by table ID.
func (e *Engine) recount(ids []uint64) map[uint64]catalog.Counts {
	counted := map[uint64]catalog.Counts{}
	for _, id := range ids {
		s := e.statsFor(id)
		i0, b0 := s.items.Load(), s.bytes.Load()
		snap, err := e.openSnapshot()
		if err != nil {
			return counted
		}
		e.recounted.Add(1)
		n, done, err := e.cat.Count(snap, id, itemSizeFromStored)
		snap.Close()
		if err != nil || !done { // the next start counts again
			e.statsDirty.Store(true)
			return counted
		}
		s.items.Add(n.Items - i0)
		s.bytes.Add(n.Bytes - b0)
		counted[id] = n
	}
	return counted
}

// saveStats persists every table's statistics and the clean marker.
func (e *Engine) saveStats() error {
	if e.statsDirty.Load() || e.cfg.Cluster {
		// In cluster mode this node's figures may lag other nodes'
		// writes: the next start recounts.
		return nil
	}
	var all []catalog.Stats
	for _, t := range e.installedTables() {
		s := e.statsFor(t.ID)
		all = append(all, catalog.Stats{ID: t.ID, Counts: catalog.Counts{Items: s.items.Load(), Bytes: s.bytes.Load()},
			Indexes: t.stats.indexes.Encode(t.liveIndexes())})
	}
	return e.cat.SaveStats(all)
}

// layoutOptions are the key-layout migration's options (tests make its
// batches small and slow).
var layoutOptions = layout.Options{Schemas: catalog.LayoutSchemas}

// migrateLayout brings store to the current key layout before anything
// else reads it (package layout; callers are in Open).
func migrateLayout(store storage.Store) error { return layout.Migrate(store, layoutOptions) }

// openLayout is Open's migrateLayout. In cluster mode it runs under the
// lease "layout/" + the current version, so that nodes starting together
// on a store of an older layout migrate it once: the others wait until it
// is done (or, if its node dies, take it over from its step).
func (e *Engine) openLayout(store storage.Store) error {
	if !e.cfg.Cluster {
		return migrateLayout(store)
	}
	var err error
	e.underLease(fmt.Sprintf("%s%d", leaseLayout, layout.Current.Version), func() bool {
		v, _, rerr := layout.Read(store)
		return rerr != nil || v != layout.Current.Version
	}, func() { err = migrateLayout(store) })
	return err
}
