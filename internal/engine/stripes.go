package engine

import (
	"hash/fnv"
	"slices"
)

// lockStripes locks the stripe locks of keys in one global order (sorted,
// de-duplicated stripe indexes), so that transactions never deadlock with
// each other or with single-item writers; it returns the unlock function.
func (e *Engine) lockStripes(keys [][]byte) func() {
	idx := make([]int, 0, len(keys))
	for _, k := range keys {
		idx = append(idx, e.stripeOf(k))
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	for _, i := range idx {
		e.locks[i].Lock()
	}
	return func() {
		for j := len(idx) - 1; j >= 0; j-- {
			e.locks[idx[j]].Unlock()
		}
	}
}

// stripeOf is the index in e.locks of a key's stripe (see lockFor).
func (e *Engine) stripeOf(key []byte) int {
	h := fnv.New32a()
	h.Write(key)
	return int(h.Sum32() % uint32(len(e.locks)))
}
