package transact

import (
	"sync"
	"sync/atomic"
	"time"
)

// held is the set of items in-flight write transactions hold.
//
// DynamoDB rejects, rather than queues, an item-level request on an item
// that an ongoing TransactWriteItems holds: a single-item write fails with
// TransactionConflictException, another transaction (write or read) is
// cancelled with reason TransactionConflict. Kura models "holds" with this
// set: a write transaction registers the storage keys of all its items
// before it takes their locks and removes them after its commit.
// Conflicting writes therefore fail fast; writers that do not conflict
// serialise on the core's item locks as usual.
//
// Readers (TransactGetItems) are not cancelled by a write transaction that
// is committing: once its writes are staged and its commit (one atomic
// storage batch) has begun, a snapshot shows all of it or none of it, so
// a read of the items is consistent either way and serialises before or
// after the write. Only a writer still preparing (reading its items and
// evaluating its conditions) is a conflict for a reader, and a reader
// waits up to ReadWait for such a writer to reach its commit before it
// gives up. Without this, on a durable store, where a commit holds its
// items through an fsync, nine readers in ten were cancelled under steady
// writes to their items (BENCHMARKS.md, "TransactGetItems under write
// contention").
type held struct {
	inflight atomic.Int64 // write transactions holding items; 0 skips the map
	mu       sync.Mutex
	keys     map[string]bool // storage key → its writer is committing
	// changed is closed (and replaced) when an entry of keys leaves the
	// preparing phase: readers waiting for one select on it.
	changed chan struct{}
}

// ReadWait bounds how long a reader waits for the write transactions
// preparing on its items to reach their commits.
const ReadWait = 5 * time.Millisecond

// Holds reports whether an in-flight write transaction holds the item at
// storage key key.
func (s *State) Holds(key []byte) bool {
	h := &s.held
	if h.inflight.Load() == 0 {
		return false
	}
	h.mu.Lock()
	_, ok := h.keys[string(key)]
	h.mu.Unlock()
	return ok
}

// HoldsAny returns, per key, whether an in-flight write transaction holds
// it, and whether any is held.
func (s *State) HoldsAny(keys [][]byte) ([]bool, bool) {
	h := &s.held
	if h.inflight.Load() == 0 {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.where(keys, true)
}

// where reports, per key, whether a write transaction holds it (with
// committing false: holds it and is still preparing). The caller holds
// h.mu.
func (h *held) where(keys [][]byte, committing bool) ([]bool, bool) {
	var out []bool
	for i, k := range keys {
		if c, ok := h.keys[string(k)]; ok && (committing || !c) {
			if out == nil {
				out = make([]bool, len(keys))
			}
			out[i] = true
		}
	}
	return out, out != nil
}

// Hold registers keys as held by one write transaction (preparing), all
// or none: when another transaction holds any of them it returns which
// ones. Run holds its items; Release ends the hold.
func (s *State) Hold(keys [][]byte) (conflicts []bool, ok bool) {
	h := &s.held
	h.mu.Lock()
	defer h.mu.Unlock()
	if out, any := h.where(keys, true); any {
		return out, false
	}
	if h.keys == nil {
		h.keys = make(map[string]bool)
	}
	for _, k := range keys {
		h.keys[string(k)] = false
	}
	h.inflight.Add(1)
	return nil, true
}

// SetCommitting moves the items of one transaction (all held by it) to
// the committing phase, or back to preparing for another attempt.
func (s *State) SetCommitting(keys [][]byte, committing bool) {
	h := &s.held
	h.mu.Lock()
	for _, k := range keys {
		h.keys[string(k)] = committing
	}
	if committing {
		h.changedLocked()
	}
	h.mu.Unlock()
}

// Release ends what Hold started.
func (s *State) Release(keys [][]byte) {
	h := &s.held
	h.mu.Lock()
	for _, k := range keys {
		delete(h.keys, string(k))
	}
	h.inflight.Add(-1)
	h.changedLocked()
	h.mu.Unlock()
}

// changedLocked wakes the readers waiting for a held item. The caller
// holds h.mu.
func (h *held) changedLocked() {
	if h.changed != nil {
		close(h.changed)
		h.changed = nil
	}
}

// Preparing returns, per key, whether a write transaction holds it and is
// still preparing, after waiting up to ReadWait for such writers to commit
// or finish; and whether any still is. A read transaction whose items it
// marks is cancelled (ConflictCancel).
func (s *State) Preparing(keys [][]byte) ([]bool, bool) {
	h := &s.held
	if h.inflight.Load() == 0 {
		return nil, false
	}
	var timeout <-chan time.Time
	for {
		h.mu.Lock()
		out, any := h.where(keys, false)
		if !any {
			h.mu.Unlock()
			return nil, false
		}
		if h.changed == nil {
			h.changed = make(chan struct{})
		}
		changed := h.changed
		h.mu.Unlock()
		if timeout == nil {
			t := time.NewTimer(ReadWait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-changed:
		case <-timeout:
			return out, true
		}
	}
}
