package pebble

import (
	"bytes"
	"sync"
	"sync/atomic"

	cpebble "github.com/cockroachdb/pebble/v2"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/internal/occ"
)

// snap is a registered Pebble snapshot with its open iterators. Methods
// whose names start lower-case expect the caller to hold store.mu shared.
// The Pebble snapshot is taken when the snap is made, or for a lazy
// transaction (Store.BeginLazy) at its first read.
type snap struct {
	store  *Store
	closed atomic.Bool
	iters  map[*iter]struct{} // guarded by store.regMu

	ps atomic.Pointer[cpebble.Snapshot] // nil until taken (see view)
	mu sync.Mutex                       // serialises taking and releasing ps
}

// view returns the Pebble snapshot, taking it if it is not yet taken.
func (sn *snap) view() (*cpebble.Snapshot, error) {
	if ps := sn.ps.Load(); ps != nil {
		return ps, nil
	}
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if sn.closed.Load() {
		return nil, storage.ErrClosed
	}
	ps := sn.ps.Load()
	if ps == nil {
		ps = sn.store.db.NewSnapshot()
		sn.ps.Store(ps)
	}
	return ps, nil
}

// closePebble closes the Pebble snapshot if one was taken. The caller has
// set closed, so view takes none after this.
func (sn *snap) closePebble() {
	sn.mu.Lock()
	ps := sn.ps.Swap(nil)
	sn.mu.Unlock()
	if ps != nil {
		_ = ps.Close()
	}
}

// get reads key from the snapshot, returning a copy.
func (sn *snap) get(key []byte) ([]byte, error) {
	if sn.closed.Load() {
		return nil, storage.ErrClosed
	}
	ps, err := sn.view()
	if err != nil {
		return nil, err
	}
	return getCopy(ps, key)
}

// newIterator opens an iterator over the snapshot.
func (sn *snap) newIterator(opts storage.IterOptions) (storage.Iterator, error) {
	if sn.closed.Load() {
		return nil, storage.ErrClosed
	}
	return sn.store.openIter(sn, opts)
}

// openIter opens an iterator over sn's view, or over the latest state when
// sn is nil, and registers it with sn or the store so that their Close
// releases it. The caller holds s.mu shared.
func (s *Store) openIter(sn *snap, opts storage.IterOptions) (storage.Iterator, error) {
	it := &iter{store: s, sn: sn, reverse: opts.Reverse}
	lo, hi := opts.Lower, opts.Upper
	if hi != nil && (len(hi) == 0 || (lo != nil && bytes.Compare(lo, hi) >= 0)) {
		// Empty range; Pebble wants LowerBound < UpperBound.
		it.done = true
		return it, nil
	}
	if len(lo) == 0 {
		// An empty lower bound is no bound; Pebble's invariant checks
		// (race builds) trip over an empty one.
		lo = nil
	}
	var r cpebble.Reader = s.db
	if sn != nil {
		ps, err := sn.view()
		if err != nil {
			return nil, err
		}
		r = ps
	}
	pi, err := r.NewIter(&cpebble.IterOptions{
		LowerBound: cloneBound(lo),
		UpperBound: cloneBound(hi),
	})
	if err != nil {
		return nil, err
	}
	it.pi = pi
	s.regMu.Lock()
	if sn == nil {
		s.iters[it] = struct{}{}
	} else {
		if sn.iters == nil {
			sn.iters = make(map[*iter]struct{})
		}
		sn.iters[it] = struct{}{}
	}
	s.regMu.Unlock()
	return it, nil
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
	sn.closePebble()
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
	sn.closePebble()
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
		return st.apply(writes, opts)
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
