// Package indexes owns the secondary indexes of tables (GSIs and LSIs)
// below the engine's core: the Index definition (the core aliases it), the
// entry keys and projections, the entries an item change stages into the
// item's own storage transaction (Subsystem, a change.Subsystem the core
// wires at Open), the index key rules of a write (Live.CheckKeys), the
// write capacity an index charges (WriteUnits), the indexes' statistics
// (Stats), the LSI item-collection sizes and their locks (Collections), and
// the GSI rules the table control plane asks of it (multi-attribute key
// schemas, the INCLUDE total, one online change at a time: schema.go), and
// the storage side of online index changes: backfill chunks over the one
// exported snapshot reader (Backfill), entry counts (Count), purge markers,
// and the online jobs themselves (online.go: StartWork, Resume; a backfill
// that turns the GSI ACTIVE in the stored description, a purge, the
// statistics' recount at Open). It never imports internal/engine: the core
// hands it its tables through the Table and OnlineTable interfaces, and
// its store, locks, catalog and background goroutines through Core.
//
// Key layout (keys.go, collection.go, backfill.go, stats.go):
//
//	"x" tableID(8) indexID(4) hash(8) key(index key…) key(table key…) → projected item
//	"x" tableID(8) 00000000 key(pk)            → item collection size (int64)
//	"m" "ipurge/" tableID(8) indexID(4)        → an index being purged
//	"m" "istats/" tableID(8)                   → the statistics a clean Close saved
//
// State in memory, and how it is rebuilt:
//   - the Live set of each table version: built by the core from the
//     catalog (NewLive) for every version it loads or creates; nothing is
//     persisted beyond the catalog;
//   - Stats (ItemCount, IndexSizeBytes per index, by table ID): restored at
//     Open from the "istats/" record a clean Close wrote (Restore), else
//     recounted from a snapshot (Count) in the background;
//   - Collections: the collection lock stripes (keyed by table ID and
//     partition key, never by table name), held only while a write runs:
//     nothing to rebuild. The collection sizes themselves are in the store.
//
// Another node sharing the store (issue #28) would read the same entries,
// counters and markers, but would need the collection locks to be shared
// (today they serialise only this process's writers; the storage
// conflict detector still keeps the counters exact, at the price of
// retries). In cluster mode the core's statistics recount (catalog_nodes.go)
// recounts every index's Stats on one node and the others Restore what it
// saved under StatsKey, so the figures agree across nodes within the
// recount's bound.
package indexes
