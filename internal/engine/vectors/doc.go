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
// index's stored description). The core keeps one-line request entry
// points: CreateTable stores the definitions this package checked,
// UpdateTable applies ApplyUpdates to its new record (update.go), and
// SearchVectors calls Registry.SearchVectors (request.go), which checks and
// parses the request before the core's table lookup, then Search.
//
// The write path offers every item change to the Registry, which is a
// change.Subsystem (write.go): Stage checks the vector attributes the
// change writes (DynamoDB's texts), and in the item's own transaction keeps
// the item ↔ vector-ID mapping and marks the ID dirty; Committed then
// updates the in-memory graph. The item table is the source of truth.
//
// Storage (store.go): under the core's index prefix of (table, index), the
// mapping both ways, the dirty marks and the snapshot generations of the
// graph (chunks and a meta key); in cluster mode instead of the last two
// the ID counter and the change log (follow.go). Snapshots (snapshot.go) are written
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
// Several nodes (Options.Cluster, follow.go; issue #28). Each node holds
// its own copy of every graph, built at Open from the mapping (no
// snapshots are kept or loaded in cluster mode: Open removes an index's
// old snapshot and marks, so that a single server later rebuilds too), and
// follows the other nodes' writes through a change log in the store:
//   - vector IDs come from a shared counter in the store ("c"), reserved
//     by each node in blocks of 256 (unique across nodes; gaps are harmless);
//   - each write of an indexed item stages, in the item's transaction, an
//     entry "l" + origin + epoch + ID (origin: random per Open; epoch: 100
//     ms of the node's clock) after reading that epoch's closing key with
//     Get; the node closes each epoch it wrote in ("w" + origin + epoch)
//     400 ms after it ended, which makes any attempt of that epoch still
//     uncommitted conflict and retry in a later one, so a closed epoch's
//     entries are final;
//   - every 100 ms each node reads the other origins' entries up to their
//     last closed epoch ("o" lists the origins) and replays those IDs from
//     the table (the item the mapping names now, under its item lock):
//     idempotent, so order and repeats do not matter. A search through any
//     node finds a write made through another within about 0.6 s (epoch +
//     close delay + poll; documented as at most 1 s under normal load);
//   - epochs a node left open (it died or hangs) are closed by another node
//     2 s after they should have been (a fence: the same conflict), and then
//     followed, so nothing a dead node acknowledged is missing elsewhere;
//     a restarted node rebuilds from the mapping, which every committed
//     write updated;
//   - the log is trimmed after 2 minutes by the node holding the lease
//     LeaseLog (every 15 s; the origin keys of nodes with nothing left go
//     too); a node that has not followed for a minute rebuilds instead.
//
// State of a cluster node, beyond one server's: per index the reserved ID
// block, the epochs it wrote and has not closed, and per origin the last
// closed epoch it replayed; all rebuilt at Open (a new origin, the cursors
// read with the mapping). Memory per node: a full copy of each graph, the
// same as one server's (see docs/running.md, "Memory for large vector
// indexes"); the log costs the store about 30 bytes per write for 2
// minutes. A backfill runs through Options.Exclusive: on the node holding
// the engine's lease "backfill/<table ID>/<index ID>", and on another once
// it lapses; its writes are logged as any other.
package vectors
