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

import (
	"hash/fnv"
	"slices"
	"sync"
)

// N is the number of stripes.
const N = 1024

// Locks are the stripe locks; the zero value is ready.
type Locks [N]sync.Mutex

// Of is the index of key's stripe.
func (l *Locks) Of(key []byte) int {
	h := fnv.New32a()
	h.Write(key)
	return int(h.Sum32() % N)
}

// For is key's stripe lock.
func (l *Locks) For(key []byte) *sync.Mutex { return &l[l.Of(key)] }

// Lock locks the stripes of keys in the global order and returns the
// unlock function.
func (l *Locks) Lock(keys [][]byte) (unlock func()) {
	idx := make([]int, 0, len(keys))
	for _, k := range keys {
		idx = append(idx, l.Of(k))
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	for _, i := range idx {
		l[i].Lock()
	}
	return func() {
		for j := len(idx) - 1; j >= 0; j-- {
			l[idx[j]].Unlock()
		}
	}
}

// LockAll locks every stripe in the global order and returns the unlock
// function (a barrier when called at once: every writer that held a
// stripe before has finished).
func (l *Locks) LockAll() (unlock func()) {
	for i := range l {
		l[i].Lock()
	}
	return func() {
		for i := len(l) - 1; i >= 0; i-- {
			l[i].Unlock()
		}
	}
}
