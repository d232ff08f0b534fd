// Package stripes owns the engine's striped per-item locks: a fixed array
// of mutexes, each item key mapped to one by an FNV-1a hash, so that the
// writers of one item queue instead of failing on storage conflicts, and
// several items are locked in one global order (sorted, de-duplicated
// stripe indexes) so that transactions and batches never deadlock with
// each other or with single-item writers.
//
// State in memory: the mutexes, nothing else; they order only this
// process's writers and are not rebuilt (another node sharing the store
// has its own, and the store's transactions arbitrate between nodes).
package stripes
