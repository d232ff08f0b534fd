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
