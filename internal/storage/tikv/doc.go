// Package tikv is a storage.Store on a TiKV cluster, through client-go's
// transactional API (txnkv): Kura's scale-out backend.
//
// Mapping:
//   - A Snapshot is a TiKV snapshot at a timestamp from PD's oracle; a Txn is
//     an optimistic TiKV transaction, whose start timestamp is its snapshot.
//   - The conflict rule: TiKV's prewrite already fails a transaction that
//     writes a key committed after its start (a write conflict); a key the
//     transaction reads with Get is marked locked in its buffer, so the
//     prewrite also carries a lock on it and fails the same way when the key
//     was committed since. Either becomes storage.ErrConflict.
//   - Iterators of a Txn read its snapshot only, as the interface says
//     (TiKV's own transaction iterator would merge the buffered writes).
//   - Every commit is durable once TiKV acknowledges it (Raft replication);
//     CommitOptions.Sync changes nothing.
//   - Keys carry a namespace prefix, so several databases (Kura's
//     per-credential mode, or several Kura deployments) can share one
//     cluster. Values carry a one-byte header, because TiKV cannot store an
//     empty value and Kura's storage interface can.
//
// Files: cluster.go (the connection, shared by the stores of its
// namespaces), store.go (storage.Store), lease.go (one server per
// namespace: the engine keeps table metadata, statistics and cached items
// in its own memory, so a store holds a renewed lease on its namespace),
// gc.go (moving the cluster's GC safe point, held back by the open
// transactions: every server keeps its own barrier, one at a time, the
// holder of the lease "safe-point" (package internal/lease) under
// "kura-gc/", moves the point), logging.go (client-go's warnings into Kura's slog
// logger), mock.go (client-go's in-process mock cluster, in builds with the
// tikvmock tag).
//
// Tests run the conformance suite against the mock cluster
// (testutils.NewMockTiKV); Connect reaches a real cluster through its PD
// endpoints.
package tikv
