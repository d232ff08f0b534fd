// Package memory is an in-memory storage.Store: a copy-on-write B-tree
// (github.com/google/btree) whose O(1) Clone gives every snapshot and
// transaction a consistent view, with optimistic conflict detection from
// the shared occ oracle. Nothing is persisted; it serves tests and
// throwaway servers.
//
// All methods of Store are safe for concurrent use. A Snapshot is safe for
// concurrent reads; a Txn and an Iterator are not safe for concurrent use.
package memory
