// Package postgres is a storage.Store on a PostgreSQL database, through
// pgx (github.com/jackc/pgx/v5): the shared store that several machines,
// or a managed service's replication and backups, can stand behind.
//
// # Tables
//
// One table, kura_kv (k bytea PRIMARY KEY, v bytea, deleted_at), holds the
// keys of every namespace, each key prefixed by its namespace and '/', so
// that per-credential databases and several Kura deployments share one
// database as they share a TiKV cluster. bytea compares bytewise (then by
// length), the order of storage keys, so every range of the interface is
// a range of the primary key's btree. kura_meta holds the schema version
// (schema.go: created on first start; a newer Kura migrates an older
// schema in one transaction, an older Kura refuses a newer one), and
// kura_leases the namespace leases (lease.go).
//
// # Snapshots and transactions
//
// A Snapshot is a REPEATABLE READ, READ ONLY transaction on a connection
// of its own; a Txn is a REPEATABLE READ transaction. PostgreSQL takes a
// transaction's snapshot at its first statement, so Begin and NewSnapshot
// send BEGIN and a SELECT in one round trip: the snapshot is fixed when
// they return, as the interface requires (a commit that returned before
// them is seen, a later one is not). Get and iterators of a Txn read that
// snapshot (Get first looks in the transaction's buffered writes), so
// iterators see the snapshot only. A Store is also a storage.PointReader:
// its Get is one autocommit statement, consistent by itself; and a
// storage.RangeReader: its iterator has a REPEATABLE READ, READ ONLY
// transaction of its own, whose BEGIN travels with the first batch
// (rangeread.go), so a Query page costs one round trip.
//
// Ending a read-only transaction (a snapshot, an iterator's, a transaction
// that wrote nothing) would cost a round trip for ROLLBACK; instead its
// connection is parked, and the next transaction that takes it sends the
// ROLLBACK in front of its BEGIN (park.go). A connection is parked for 50
// ms at most (its snapshot holds vacuum back meanwhile), 32 at a time.
//
// # Lazy transactions
//
// The store is a storage.LazyBeginner: BeginLazy sends nothing; the
// PostgreSQL transaction begins at the first read, and a transaction that
// never reads (an item write the engine's item cache answered) sends
// BEGIN, its writes and COMMIT in one round trip. The interface's conflict
// rule counts from the BeginLazy call, which PostgreSQL cannot see, so
// each store also runs the local backends' oracle (internal/occ) over its
// own commits: a commit of this store after the call to a key the
// transaction reads or writes fails it with ErrConflict even when its
// snapshot, taken later, shows that commit. Commits of other processes
// between the call and the snapshot are seen as if the transaction had
// begun at its snapshot: what it reads with Get is then checked by
// PostgreSQL from the snapshot on, so a read-modify-write cannot lose
// another process's update (TestLazyCountersAcrossProcesses); only a
// write that read nothing (blind) is not ordered against them, and the
// engine makes none in cluster mode (its item cache is off). Begin takes its snapshot at once, as described above, and runs
// through the oracle too, so that lazy transactions see its commits.

// # Bounded iteration
//
// An iterator reads its range [Lower, Upper) forward or backward in
// batches (iter.go): one statement per batch, WHERE k >= $lo AND k < $hi
// ORDER BY k [DESC] LIMIT n, continuing after the last key returned. The
// batch size starts at 32 and doubles up to 1024, so a Query page of 25
// items takes one batch and a Scan page reads large batches; the cost
// of a batch depends on its size, not on the table's (an index range
// scan). All batches of an iterator run in its reader's transaction, so
// they share one snapshot; between batches the connection is free for the
// reader's other reads.
//
// # Conflict detection
//
// The interface's rule: Commit fails with storage.ErrConflict when another
// transaction committed a write, after this one began, to a key this one
// wrote or read with Get. Writes wait in memory until Commit, which sends
// the written keys and the keys read with Get, in key order (so every
// commit locks rows in increasing key order and two cannot deadlock), in
// runs of one kind each, followed by COMMIT, in one round trip (commit.go).
// A run of written keys, and of read keys that had no row, is one INSERT
// ... SELECT FROM unnest(...) ON CONFLICT DO UPDATE statement: a written
// key is upserted; a key only read is locked without being changed (ON
// CONFLICT DO UPDATE ... WHERE false locks the row). A run of keys only
// read whose row the snapshot showed is one SELECT ... FOR SHARE: shared
// locks do not wait for each other, so the writers that all read one key
// (in cluster mode every item write reads its table's generation key) do
// not queue for it (BenchmarkSharedReadKey: ns/op 0.67–0.77× of locking it
// exclusively, 16 writers). Under REPEATABLE READ, PostgreSQL refuses to lock or
// update a row version that a transaction committed after the snapshot
// changed, and refuses an insert that meets a row the snapshot does not
// show, with a serialization failure (SQLSTATE 40001): exactly a write
// committed since the snapshot, to a key read or written. A row locked by
// a commit still in flight makes the statement wait for it and then fail
// the same way if it committed. Serialization failures and deadlocks
// (40P01) become storage.ErrConflict; the caller retries.
//
// For this to cover keys that were deleted, or that did not exist at the
// snapshot, a delete does not remove the row: it leaves a tombstone (v
// NULL, deleted_at the time), which readers skip. A transaction that read
// a key another one then created and deleted again therefore still meets
// a row its snapshot does not show. A key read with Get that has no row at
// all gets a tombstone of its own at Commit (deleted_at -infinity), which
// holds the key's lock until the commit ends. Tombstones are swept after
// 10 minutes (gc.go); no transaction can rely on one by then, because
// Commit refuses (ErrConflict) a transaction older than 5 minutes. Range
// reads are not conflict-checked, as the interface says. A transaction
// that wrote nothing commits nothing, so it cannot conflict.
//
// The checks live in PostgreSQL, not in Kura's memory, so they hold
// between any number of Kura processes on one database (the local oracle
// of lazy transactions only adds to them). A namespace is served by one
// Kura server at a time (lease.go), because the engine keeps catalog,
// statistics and the item cache in its own memory, unless the servers are
// nodes of a cluster (Cluster.SharedStore: they share the lease).
//
// # Durability and faults
//
// Commit returns once PostgreSQL acknowledged COMMIT: the write is as
// durable as the server's synchronous_commit makes it (on, the default:
// flushed to its WAL, and to synchronous standbys if configured). With
// synchronous_commit off, PostgreSQL acknowledges before the flush, and a
// crash of the database server can lose the last few hundred
// milliseconds of acknowledged writes (never tear one). CommitOptions.Sync
// changes nothing. An error PostgreSQL answers with means nothing was
// committed; a connection that fails after COMMIT was sent leaves the
// outcome unknown, and Commit reports an error, never success. A broken
// connection is dropped from the pool; the next operation opens a new one
// (pgx also pings connections idle for over a second before reuse), so
// Kura serves again as soon as PostgreSQL does. Each statement waits at
// most 30 s, and for a connection at most 15 s.
//
// # Memory and connections
//
// The store keeps no data in memory beyond a transaction's buffered
// writes, an iterator's current batch, and the oracle's keys of recent
// commits (pruned as transactions end). Every open snapshot and
// transaction holds one pooled connection (64 at most unless the URL's
// pool_max_conns says otherwise).
//
// Files: cluster.go (the pool, shared by the stores of its namespaces),
// schema.go, store.go (storage.Store, snapshots), txn.go and commit.go
// (transactions), iter.go, rangeread.go, park.go, lease.go, gc.go (the
// tombstone sweep: one Kura server of those on the database at a time,
// the holder of the lease "sweep" (package internal/lease) kept under the
// database's own "/gc/" keys, taken over within its TTL and one sweep
// interval after that server stops), clock.go.
package postgres
