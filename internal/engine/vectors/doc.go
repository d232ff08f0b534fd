// Package vectors is DynamoDB's vector indexes: their definitions (parsed
// from a table's description, checked for CreateTable, UpdateTable and
// RestoreTable*), the in-memory HNSW graph of each (internal/vector), the
// bookkeeping that keeps a graph in step with the items, its snapshots,
// the backfill of an index added to a table that holds items, and the
// execution of SearchVectors.
//
// It sits below the core and never imports internal/engine. The core
// wires one Registry at Open (Options) and hands it what it needs through
// Host: its live tables (each a Table: a change.TableDef with its vector
// indexes), the one exported snapshot reader (internal/engine/snapshot),
// its commit and item locks, the item codec, and the control-plane steps of
// a backfill (waiting out DynamoDB's resource allocation, updating an
// index's stored description). The core keeps the request entry points:
// CreateTable and UpdateTable store the definitions this package checked,
// SearchVectors parses the request and calls Registry.Search.
//
// The write path offers every item change to the Registry, which is a
// change.Subsystem (write.go): Stage checks the vector attributes the
// change writes (DynamoDB's texts), and in the item's own transaction keeps
// the item ↔ vector-ID mapping and marks the ID dirty; Committed then
// updates the in-memory graph. The item table is the source of truth.
//
// Storage (store.go): under the core's index prefix of (table, index), the
// mapping both ways, the dirty marks and the snapshot generations of the
// graph (chunks and a meta key). Snapshots (snapshot.go) are written
// periodically while the engine runs and at Close; a snapshot clears only
// the marks its cut covers.
//
// State in memory, and how it is rebuilt (Open, from the store):
//   - each loaded index's graph: the current snapshot generation, then
//     every ID marked dirty since replayed from the table (the item the
//     mapping names, or its absence); with no readable snapshot, rebuilt
//     from every mapped item; an index still backfilling starts empty and
//     its backfill is resumed from the table's first item (re-indexing an
//     item is idempotent);
//   - the next vector ID (one past the largest mapped ID) and the next
//     dirty-mark sequence (one past the largest stored mark);
//   - the changes staged but not yet committed (by item key): not rebuilt,
//     no write survives a restart half-done;
//   - the settings (TopK cap, search beam, quantisation, snapshot policy):
//     set by the server after Open.
//
// Another node sharing the store (issue #28) could rebuild the same graphs
// the same way, but would not see other nodes' writes: the graph is
// updated only by this process's Committed, and the ID and mark sequences
// are unique only within one process. It would need to learn of other
// nodes' changes (the dirty marks are in the store, and could be tailed),
// to allocate IDs from a shared counter, and to coordinate snapshots,
// whose mark clearing assumes one writer of the index. A backfill runs
// through Options.Exclusive: on the node holding the engine's lease
// "backfill/<table ID>/<index ID>", and on another once it lapses.
package vectors
