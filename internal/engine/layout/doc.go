// Package layout owns the store's key-layout versions and the migration
// between them. The keys that begin with a partition hash — items
// ("i" + tableID + hash + key), index entries and vector-index mappings
// ("x"), backups' item copies ("B") and the item keys inside
// point-in-time entries ("p" values) — changed with the hash: layout 1
// used a 2-byte FNV-1a, layout 2 (Current) DynamoDB's 8-byte hash
// (package keyhash).
//
// A store records its version under "mlayout". Migrate, which the core
// runs at Open before anything else reads the store, gives an empty store
// the current version and rewrites a store of layout 1: every hashed key
// moves under "mrelayout/" (step 1), then each is written back rehashed
// (step 2), in bounded batches (Options.BatchKeys, BatchBytes: TiKV and
// PostgreSQL limit a transaction's size), each batch one atomic commit;
// "mlayoutstep" says which step to resume after a crash, and the keys of
// tables, indexes or backups that no longer exist are dropped. The
// rewrite needs only each table's and backup's decoded key schema
// (Schema: the partition key's type, the index IDs' partition key types,
// the vector index IDs), which the catalog reads for it
// (Options.Schemas: catalog.LayoutSchemas).
//
// State in memory: none; everything a migration knows is in the store,
// so a restart (or another node's start) resumes it from the step key.
// Nodes sharing a store must not run two migrations at once (their
// batches would conflict, or one would stage keys the other already
// rewrote): the core runs Migrate in cluster mode under a lease
// ("layout/" + version), so that one node migrates while the others'
// Opens wait, and a node that takes over resumes from the step key.
//
// It never imports internal/engine.
package layout
