package pebble

import (
	"bytes"
	"sync/atomic"

	cpebble "github.com/cockroachdb/pebble/v2"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/internal/occ"
)

// snap is a registered Pebble snapshot with its open iterators. Methods
// whose names start lower-case expect the caller to hold store.mu shared.
type snap struct {
	store  *Store
	ps     *cpebble.Snapshot
	closed atomic.Bool
	iters  map[*iter]struct{} // guarded by store.regMu
}

// get reads key from the snapshot, returning a copy.
func (sn *snap) get(key []byte) ([]byte, error) {
	if sn.closed.Load() {
		return nil, storage.ErrClosed
	}
	return getCopy(sn.ps, key)
}

// newIterator opens an iterator over the snapshot.
func (sn *snap) newIterator(opts storage.IterOptions) (storage.Iterator, error) {
	if sn.closed.Load() {
		return nil, storage.ErrClosed
	}
	it := &iter{store: sn.store, sn: sn, reverse: opts.Reverse}
	po, empty := pebbleIterOptions(opts)
	if empty {
		it.done = true
		return it, nil
	}
	pi, err := sn.ps.NewIter(po)
	if err != nil {
		return nil, err
	}
	it.pi = pi
	sn.store.regMu.Lock()
	if sn.iters == nil {
		sn.iters = make(map[*iter]struct{})
	}
	sn.iters[it] = struct{}{}
	sn.store.regMu.Unlock()
	return it, nil
}

// pebbleIterOptions translates iteration bounds; empty reports a range
// with nothing in it (Pebble wants LowerBound < UpperBound).
func pebbleIterOptions(opts storage.IterOptions) (po *cpebble.IterOptions, empty bool) {
	lo, hi := opts.Lower, opts.Upper
	if hi != nil && (len(hi) == 0 || (lo != nil && bytes.Compare(lo, hi) >= 0)) {
		return nil, true
	}
	if len(lo) == 0 {
		// An empty lower bound is no bound; Pebble's invariant checks
		// (race builds) trip over an empty one.
		lo = nil
	}
	return &cpebble.IterOptions{LowerBound: cloneBound(lo), UpperBound: cloneBound(hi)}, false
}

// close closes the snapshot and its open iterators, and unregisters it.
func (sn *snap) close() {
	if sn.closed.Swap(true) {
		return
	}
	s := sn.store
	s.regMu.Lock()
	for it := range sn.iters {
		it.release()
	}
	sn.iters = nil
	delete(s.snaps, sn)
	s.regMu.Unlock()
	_ = sn.ps.Close()
}

// release force-closes the snapshot during Store.Close, which holds
// store.mu exclusively and store.regMu.
func (sn *snap) release() {
	if sn.closed.Swap(true) {
		return
	}
	for it := range sn.iters {
		it.release()
	}
	sn.iters = nil
	_ = sn.ps.Close()
}

// cloneBound copies an iteration bound (Pebble keeps a reference), keeping
// nil (open) distinct from empty.
func cloneBound(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// snapshot implements storage.Snapshot.
type snapshot struct {
	snap *snap
}

func (s *snapshot) Get(key []byte) ([]byte, error) {
	st := s.snap.store
	st.mu.RLock()
	defer st.mu.RUnlock()
	if st.closed {
		return nil, storage.ErrClosed
	}
	return s.snap.get(key)
}

func (s *snapshot) NewIterator(opts storage.IterOptions) (storage.Iterator, error) {
	st := s.snap.store
	st.mu.RLock()
	defer st.mu.RUnlock()
	if st.closed {
		return nil, storage.ErrClosed
	}
	return s.snap.newIterator(opts)
}

func (s *snapshot) Close() error {
	st := s.snap.store
	st.mu.RLock()
	defer st.mu.RUnlock()
	if !st.closed {
		s.snap.close()
	}
	return nil
}

// txn implements storage.Txn.
type txn struct {
	snap *snap
	core *occ.Txn
}

func (t *txn) Get(key []byte) ([]byte, error) {
	st := t.snap.store
	st.mu.RLock()
	defer st.mu.RUnlock()
	if st.closed {
		return nil, storage.ErrClosed
	}
	if t.core.Done() {
		return nil, occ.ErrTxnDone
	}
	if v, deleted, ok := t.core.Buffered(key); ok {
		if deleted {
			return nil, storage.ErrNotFound
		}
		return v, nil
	}
	t.core.NoteRead(key)
	return t.snap.get(key)
}

func (t *txn) NewIterator(opts storage.IterOptions) (storage.Iterator, error) {
	st := t.snap.store
	st.mu.RLock()
	defer st.mu.RUnlock()
	if st.closed {
		return nil, storage.ErrClosed
	}
	if t.core.Done() {
		return nil, occ.ErrTxnDone
	}
	return t.snap.newIterator(opts)
}

func (t *txn) Set(key, value []byte) error {
	if t.snap.closed.Load() && !t.core.Done() {
		return storage.ErrClosed
	}
	return t.core.Set(key, value)
}

func (t *txn) Delete(key []byte) error {
	if t.snap.closed.Load() && !t.core.Done() {
		return storage.ErrClosed
	}
	return t.core.Delete(key)
}

func (t *txn) Commit(opts storage.CommitOptions) error {
	st := t.snap.store
	st.mu.RLock()
	defer st.mu.RUnlock()
	if st.closed {
		t.core.Rollback()
		return storage.ErrClosed
	}
	if t.core.Done() {
		return occ.ErrTxnDone
	}
	// Release the snapshot before the (possibly slow, synced) apply: the
	// transaction reads nothing more.
	t.snap.close()
	return t.core.Commit(func(writes map[string]occ.Write) error {
		return st.apply(writes, opts.Sync)
	})
}

func (t *txn) Rollback() {
	st := t.snap.store
	st.mu.RLock()
	defer st.mu.RUnlock()
	t.core.Rollback()
	if !st.closed {
		t.snap.close()
	}
}
