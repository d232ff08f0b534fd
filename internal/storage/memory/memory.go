package memory

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/google/btree"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/internal/occ"
)

// degree is the B-tree degree: nodes hold up to 2*degree-1 items.
const degree = 32

// item is one key/value pair in the tree. Stored slices are never mutated.
type item struct {
	key, value []byte
}

func less(a, b item) bool { return bytes.Compare(a.key, b.key) < 0 }

// Store is an in-memory storage.Store. Create it with New.
type Store struct {
	mu     sync.Mutex
	tree   *btree.BTreeG[item] // guarded by mu; nil after Close
	closed atomic.Bool
	oracle *occ.Oracle
}

var _ storage.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{
		tree:   btree.NewG(degree, less),
		oracle: occ.NewOracle(),
	}
}

// clone returns a copy-on-write view of the current tree.
func (s *Store) clone() (*btree.BTreeG[item], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tree == nil {
		return nil, storage.ErrClosed
	}
	return s.tree.Clone(), nil
}

// NewSnapshot returns a consistent read-only view of the store.
func (s *Store) NewSnapshot() (storage.Snapshot, error) {
	t, err := s.clone()
	if err != nil {
		return nil, err
	}
	return &snapshot{reader: reader{store: s, tree: t}}, nil
}

// Begin starts a read-write transaction.
func (s *Store) Begin() (storage.Txn, error) {
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	core := s.oracle.Begin()
	t, err := s.clone()
	if err != nil {
		core.Rollback()
		return nil, err
	}
	return &txn{reader: reader{store: s, tree: t}, core: core}, nil
}

// Close releases the store. Later calls on it, and on its snapshots,
// transactions and iterators, return storage.ErrClosed. Close is idempotent.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed.Store(true)
	s.tree = nil
	return nil
}

// apply makes writes visible atomically.
func (s *Store) apply(writes map[string]occ.Write) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tree == nil {
		return storage.ErrClosed
	}
	for k, w := range writes {
		if w.Delete {
			s.tree.Delete(item{key: []byte(k)})
		} else {
			s.tree.ReplaceOrInsert(item{key: []byte(k), value: w.Value})
		}
	}
	return nil
}

// reader reads one immutable tree clone.
type reader struct {
	store *Store
	tree  *btree.BTreeG[item]
}

func (r *reader) get(key []byte) ([]byte, error) {
	if r.store.closed.Load() {
		return nil, storage.ErrClosed
	}
	it, ok := r.tree.Get(item{key: key})
	if !ok {
		return nil, storage.ErrNotFound
	}
	return append([]byte{}, it.value...), nil
}

func (r *reader) newIterator(opts storage.IterOptions) (storage.Iterator, error) {
	if r.store.closed.Load() {
		return nil, storage.ErrClosed
	}
	return newIter(r.store, r.tree, opts), nil
}

// snapshot implements storage.Snapshot.
type snapshot struct {
	reader
	closed atomic.Bool
}

func (s *snapshot) Get(key []byte) ([]byte, error) {
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	return s.get(key)
}

func (s *snapshot) NewIterator(opts storage.IterOptions) (storage.Iterator, error) {
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	return s.newIterator(opts)
}

func (s *snapshot) Close() error {
	s.closed.Store(true)
	return nil
}

// txn implements storage.Txn.
type txn struct {
	reader
	core *occ.Txn
}

func (t *txn) Get(key []byte) ([]byte, error) {
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
	return t.get(key)
}

func (t *txn) NewIterator(opts storage.IterOptions) (storage.Iterator, error) {
	if t.core.Done() {
		return nil, occ.ErrTxnDone
	}
	return t.newIterator(opts)
}

func (t *txn) Set(key, value []byte) error {
	if t.store.closed.Load() {
		return storage.ErrClosed
	}
	return t.core.Set(key, value)
}

func (t *txn) Delete(key []byte) error {
	if t.store.closed.Load() {
		return storage.ErrClosed
	}
	return t.core.Delete(key)
}

func (t *txn) Commit(storage.CommitOptions) error {
	if t.store.closed.Load() {
		t.core.Rollback()
		return storage.ErrClosed
	}
	return t.core.Commit(t.store.apply)
}

func (t *txn) Rollback() { t.core.Rollback() }
