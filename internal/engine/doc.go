// Package engine implements DynamoDB semantics over internal/storage:
// tables and their catalog, items, conditions, updates, batches and
// capacity accounting (its enforcement and metering are package throttle's,
// wired at Open: throttle.go). The control plane's rules (what CreateTable
// and UpdateTable may ask and the definitions they build) are package
// tables'; the core's table_*.go look tables up, hold the DDL lock, store
// the definitions and time the status transitions. BatchWriteItem's and
// BatchGetItem's request flows (validation, unprocessed items, capacity)
// are package batch's, over the core's write path and snapshots
// (batch_*.go: batchCore).
//
// Operation methods take and return internal/wire shapes; the api layer has
// already checked member constraints (the "N validation errors detected"
// layer), so the engine does semantic validation (DynamoDB's order: request
// validation, then resource lookups) and execution.
//
// Key layout in storage (all integers big-endian):
//
//	catalog:  "c" + tableName                         → table metadata (JSON; package catalog)
//	item:     "i" + tableID(8) + hash(pk)(8) + key(pk) + key(sk)  → encoded item
//	index:    "x" + tableID(8) + indexID(4) + hash(index pk)(8) + ... → index entries, and
//	          item collection sizes under index ID 0 (internal/engine/indexes);
//	          vector-index mappings (internal/engine/vectors)
//	stream:   "s" + tableID(8) + streamNo(4) + shardNo(4) + seq(8) → stream record; "mstream/" and
//	          "mstreams/" → streams' metadata, and in cluster mode their positions (internal/engine/streams)
//	backup:   "b" + backupID(8) → backup record; "B" + backupID(8) + item suffix → its items (package backup)
//	PITR:     "p" + tableID(8) + time(8) → the image a change replaced (internal/engine/pitr)
//	jobs:     "mexport/", "mimport/", "mbulk/" + ARN → an export's, import's or bulk
//	          operation's record (JSON; packages export, imports and bulk, over
//	          a jobs.Log), read into memory at Open; a running one is resumed
//	          (a bulk operation from its checkpoint, over its listing of input
//	          objects under "mbulkobj/" + ARN)
//	Kinesis:  "mkdest/" + destID(8) → a Kinesis streaming destination; "mkout/" +
//	          destID(8) + seq(8) → a change not yet put to it; in cluster mode "mkseq/" +
//	          destID(8) → its last outbox number (internal/engine/kinesisdest)
//	catalog generations: "mtgen/" + tableID(8) → the generation of the
//	          table's current record; "mnext-table-id", "mclean", "mstats/",
//	          "mpurge/" → the ID counter, the statistics of a clean Close,
//	          pending purges (package catalog)
//	tokens:   "mtxtok/" + ClientRequestToken → a write transaction's token
//	          record, cluster mode only (internal/engine/transact)
//	nodes:    "mnode/" + nodeID → a cluster node's record (internal/membership)
//	leases:   "mlease/" + name → the lease on one piece of background work
//	          (package internal/lease; leases.go lists them)
//	layout:   "mlayout" → the key-layout version (package layout); while a
//	          migration runs, "mlayoutstep" → its step and "mrelayout/" + old
//	          key → a key waiting to be rewritten
//
// hash(pk) is DynamoDB's partition hash (package keyhash: the first 8 bytes
// of MD5 over "Outliers" and the key's bytes), so Scan order is DynamoDB's, not key
// order, and parallel Scan segments are contiguous hash ranges.
// key(v) is attr's order-preserving key encoding.
//
// Layout versions (package layout): a store records the version of this layout;
// Open migrates a store of an older version (layout 1: a 2-byte FNV hash)
// before it reads anything else, in bounded batches that survive a crash at
// any point (the next Open resumes). Nothing of it stays in memory.
//
// Every single-item write is one atomic read-check-write: a striped lock on
// the item key serialises writers of one item, and the read, the condition,
// the new item and the writes derived from it commit in one storage
// transaction. The write path names no subsystem: it offers each change of
// an item (change.Change) to the subsystems wired at Open (subsystems.go:
// internal/engine/indexes, internal/engine/vectors, internal/engine/pitr,
// internal/engine/streams and internal/engine/kinesisdest), which stage their writes into the same
// transaction and are told once it committed (change.Subsystem).
// The old item comes from the item cache (itemcache.go) when it holds it:
// only holders of the stripe lock change or fill an entry, so it is the
// latest committed item.
//
// State the core keeps in memory, and how Open rebuilds it from the store:
//   - the catalog (tables by name, immutable versions swapped on change):
//     built from the records package catalog loads (catalog.go); the
//     next table ID is the catalog package's;
//   - table statistics (ItemCount, sizes): read back from the "mstats/"
//     keys Close wrote when the last shutdown was clean, else recounted in
//     the background from a snapshot of the items; each table's index
//     statistics (indexes.Stats) and live index set sit next to them, and
//     are rebuilt as package indexes' doc.go says;
//   - the item cache: empty at Open, filled by writers and readers holding
//     the item's stripe lock (so only for a store this process alone
//     writes);
//   - the stripe locks (package stripes) and the item-collection locks
//     (indexes.Collections): not rebuilt;
//   - each subsystem's own state, which its package's doc.go describes
//     (indexes, vectors, pitr, streams, kinesisdest, ...) and which Open rebuilds as it
//     wires them; the items in-flight transactions hold and the tokens of
//     recent ones are internal/engine/transact's (not rebuilt; in cluster
//     mode the tokens are shared through the store).
//
// Background work (leases.go: the lease names; lease.Guard, lease.Claim
// and lease.Manager.Under the ways it is held) is done by one node at a time among those
// sharing the store: the TTL pass, stream upkeep, PITR trimming, each
// export/import/bulk run, each GSI or vector backfill, backup copy and
// restore runs on the node holding its lease (internal/lease), which
// renews it and records progress; another node takes over once it expires
// (at most Config.LeaseTTL after the holder's last renewal, plus the
// taker's polling period), at once after Close. The lease manager keeps
// in memory only the leases this node holds; after a restart it holds
// none and acquires again.
//
// Several nodes (Config.Cluster, catalog_nodes.go): engines of several
// processes may share one store. The item cache is then off, and the
// store's transactions are the arbiter: every item write reads its item
// and its table's catalog generation with Get in its transaction, so a
// write another node committed meanwhile, or a definition it changed,
// makes the write conflict (or, for a definition, reload it) and retry;
// the stripe locks and in-flight sets above only order this process's
// writers. A table this node does not know is looked up in the store;
// DescribeTable and ListTables read the store (and so do UpdateTable,
// DeleteTable and the APIs of table_meta.go: freshTable), and so does a read of an
// index the cached definition lacks or has still filling; other lookups
// recheck a cached definition once a second. Statistics are recounted from the
// store every Config.ClusterRecount by one node (under a lease), which saves
// them for the others to read; no clean marker is saved at Close. The
// subsystems share their state through the store too: streams' positions
// and shards (internal/engine/streams), Kinesis outboxes, vector indexes'
// change log (internal/engine/vectors, follow.go), backup and job records,
// throughput shares (internal/engine/throttle), ClientRequestTokens.
//
// Query and Scan (on a table or an index) are package
// internal/engine/reads', over a Core the core implements in reads.go (the
// table a read names, in the version a read of its index sees); GetItem
// and BatchGetItem stay here, as reads of single items through the item
// cache the write path keeps.
//
// Transactions: the core checks, locks and stages each action through
// the write path (transact_write.go, transact_get.go) for
// internal/engine/transact, which owns their validation order, the
// all-or-nothing run and its cancellation reasons. PartiQL is lowered onto
// the core's item operations by internal/engine/partiqlexec (partiql.go
// implements its Core).
//
// The APIs over what a table record keeps besides its definition are
// their packages': tags, resource-based policies, Contributor Insights
// and Time to Live (internal/engine/tags, policies, insights, ttl), each
// over a Core interface that metaCore implements (table_meta.go: the DDL
// lock, the clock, a view of a table's record and the storing of its
// part of it; for the TTL expirer also a snapshot and a TTL deletion
// through the write path); which answer an ARN gets is
// internal/engine/arns'.
package engine
