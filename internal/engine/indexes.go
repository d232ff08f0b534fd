package engine

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// The core's side of secondary indexes (internal/engine/indexes): the
// table's live set and statistics as the package reads them, and the
// item-collection locks and metrics of the write paths.

// liveIndexes returns the indexes writes to t maintain now. It is read
// inside the item's lock, so an index added by UpdateTable is seen by
// every write that takes its lock after the backfill's barrier.
func (t *Table) liveIndexes() *indexes.Live {
	if t.stats != nil {
		if l := t.stats.live.Load(); l != nil {
			return l
		}
	}
	return indexes.NewLive(t.LSIs, t.GSIs)
}

// Indexes is liveIndexes (indexes.Table).
func (t *Table) Indexes() *indexes.Live { return t.liveIndexes() }

// IndexStats is the statistics of t's indexes (indexes.Table).
func (t *Table) IndexStats() *indexes.Stats {
	if t.stats == nil {
		return nil
	}
	return &t.stats.indexes
}

// indexPrefix is the common prefix of every entry of one index.
func indexPrefix(tableID uint64, indexID uint32) []byte { return indexes.Prefix(tableID, indexID) }

// project is the entry of it in ix.
func (t *Table) project(ix *Index, it attr.Item) attr.Item { return indexes.Project(t.Def(), ix, it) }

// projects reports whether attribute name is in ix's entries.
func (t *Table) projects(ix *Index, name string) bool { return indexes.Projects(t.Def(), ix, name) }

// checkIndexKeys, checkIndexKeyTypes and checkIndexKeyValues apply the
// index key rules to an item about to be written (indexes.Live).
func (t *Table) checkIndexKeys(it attr.Item, fromUpdate bool) error {
	return t.liveIndexes().CheckKeys(it, fromUpdate)
}

func (t *Table) checkIndexKeyTypes(it attr.Item) error { return t.liveIndexes().CheckKeyTypes(it) }

func (t *Table) checkIndexKeyValues(it attr.Item, fromUpdate bool) error {
	return t.liveIndexes().CheckKeyValues(it, fromUpdate)
}

// checkUpdateIndexValues refuses an update that SETs a secondary or vector
// index key attribute to an empty string or binary.
func (t *Table) checkUpdateIndexValues(u *expr.Update) error {
	return indexes.CheckUpdateValues(u, func(n string) bool { return t.isIndexKeyAttr(n) || vectors.IsHashAttr(t.Vectors, n) })
}

// collectionWriteOf names the item collection of a write to t.
func collectionWriteOf(t *Table, k primaryKey) indexes.CollectionWrite {
	return indexes.CollectionWrite{TableID: t.ID, HasLSI: len(t.LSIs) > 0, PK: k.pk}
}

// lockCollection takes the collection lock of one write (writeItem) when
// t has LSIs; callers hold the item's stripe lock and call the returned
// function when the write is over.
func (e *Engine) lockCollection(t *Table, k primaryKey) func() {
	return e.coll.Lock(collectionWriteOf(t, k))
}

// lockCollections takes the collection locks of several writes (a batch, a
// transaction; tables[i] and keys[i] are one write) in stripe order, after
// their item stripe locks.
func (e *Engine) lockCollections(tables []*Table, keys []primaryKey) func() {
	ws := make([]indexes.CollectionWrite, len(tables))
	for i, t := range tables {
		ws[i] = collectionWriteOf(t, keys[i])
	}
	return e.coll.LockAll(ws)
}

// collectionSize is the current size of one item collection, from its
// counter (one point read).
func (e *Engine) collectionSize(t *Table, pk attr.Value) (int64, error) {
	return e.collectionSizeOf(t.ID, pk)
}

func (e *Engine) collectionSizeOf(tableID uint64, pk attr.Value) (int64, error) {
	if e.point != nil {
		return indexes.CollectionSize(e.point, tableID, pk)
	}
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return 0, err
	}
	defer snap.Close()
	return indexes.CollectionSize(snap, tableID, pk)
}

// written is an item written to t (named name in the request), for the
// ItemCollectionMetrics (package indexes).
func written(name string, t *Table, pk attr.Value) indexes.Written {
	return indexes.Written{Name: name, TableID: t.ID, HasLSI: len(t.LSIs) > 0, HashName: t.Hash.Name, PK: pk}
}

// collectionMetrics is the ItemCollectionMetrics of a write of key to t
// (indexes.Metrics).
func (e *Engine) collectionMetrics(mode string, t *Table, key attr.Item) *wire.ItemCollectionMetrics {
	if mode != "SIZE" || len(t.LSIs) == 0 {
		return nil
	}
	return indexes.Metrics(mode, written(t.Name, t, key[t.Hash.Name]), e.collectionSizeOf)
}

// batchCollectionMetrics is BatchWriteItem's ItemCollectionMetrics.
func (e *Engine) batchCollectionMetrics(mode string, writes []batchWrite) map[string][]wire.ItemCollectionMetrics {
	if mode != "SIZE" {
		return nil
	}
	ws := make([]indexes.Written, len(writes))
	for i, w := range writes {
		ws[i] = written(w.name, w.t, w.key.pk)
	}
	return indexes.MetricsPerTable(mode, ws, e.collectionSizeOf)
}

// collectionMetricsPerTable is the ItemCollectionMetrics of a multi-item
// write (names[i], tables[i] and keys[i] are one written item, names[i]
// its table as the request names it): indexes.MetricsPerTable.
func (e *Engine) collectionMetricsPerTable(mode string, names []string, tables []*Table, keys []primaryKey) map[string][]wire.ItemCollectionMetrics {
	if mode != "SIZE" {
		return nil
	}
	ws := make([]indexes.Written, len(tables))
	for i, t := range tables {
		ws[i] = written(names[i], t, keys[i].pk)
	}
	return indexes.MetricsPerTable(mode, ws, e.collectionSizeOf)
}
