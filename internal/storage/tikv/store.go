package tikv

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	tikverr "github.com/tikv/client-go/v2/error"
	"github.com/tikv/client-go/v2/kv"
	"github.com/tikv/client-go/v2/oracle"
	"github.com/tikv/client-go/v2/tikv"
	"github.com/tikv/client-go/v2/txnkv/transaction"
	"github.com/tikv/client-go/v2/txnkv/txnsnapshot"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/internal/holder"
)

// valueHeader starts every stored value: TiKV refuses empty values.
const valueHeader = 0

// Store is a storage.Store over one namespace of a TiKV cluster.
type Store struct {
	kv     *tikv.KVStore
	active *activeSet
	prefix []byte // namespace of every key
	end    []byte // first key after the namespace
	lease  *lease
	closed holder.Closing
}

// NewSnapshot implements storage.Store.
func (s *Store) NewSnapshot() (storage.Snapshot, error) {
	if s.closed.Closed() {
		return nil, storage.ErrClosed
	}
	ts, err := s.kv.CurrentTimestamp(oracle.GlobalTxnScope)
	if err != nil {
		return nil, fmt.Errorf("tikv: timestamp: %w", err)
	}
	s.active.add(ts)
	return &snapshot{reader: reader{s, s.kv.GetSnapshot(ts)}, ts: ts}, nil
}

// Begin implements storage.Store.
func (s *Store) Begin() (storage.Txn, error) {
	if s.closed.Closed() {
		return nil, storage.ErrClosed
	}
	t, err := s.kv.Begin()
	if err != nil {
		return nil, fmt.Errorf("tikv: begin: %w", err)
	}
	s.active.add(t.StartTS())
	return &txn{reader: reader{s, t.GetSnapshot()}, t: t}, nil
}

// Close implements storage.Store: it releases the namespace's lease.
// Snapshots, transactions and iterators report ErrClosed afterwards.
func (s *Store) Close() error {
	return s.closed.Close(s.lease.release)
}

// key is k inside the namespace.
func (s *Store) key(k []byte) []byte {
	out := make([]byte, len(s.prefix)+len(k))
	copy(out, s.prefix)
	copy(out[len(s.prefix):], k)
	return out
}

// reader reads through one TiKV snapshot.
type reader struct {
	s    *Store
	snap *txnsnapshot.KVSnapshot
}

func (r reader) Get(k []byte) ([]byte, error) {
	if r.s.closed.Closed() {
		return nil, storage.ErrClosed
	}
	v, err := r.snap.Get(context.Background(), r.s.key(k))
	return decodeValue(v, err)
}

func (r reader) NewIterator(opts storage.IterOptions) (storage.Iterator, error) {
	if r.s.closed.Closed() {
		return nil, storage.ErrClosed
	}
	lower, upper := r.s.prefix, r.s.end
	if opts.Lower != nil {
		lower = r.s.key(opts.Lower)
	}
	if opts.Upper != nil {
		upper = r.s.key(opts.Upper)
	}
	if bytes.Compare(lower, upper) >= 0 {
		return &iterator{s: r.s}, nil
	}
	var it iterSource
	var err error
	if opts.Reverse {
		it, err = r.snap.IterReverse(upper, lower)
	} else {
		it, err = r.snap.Iter(lower, upper)
	}
	if err != nil {
		return nil, fmt.Errorf("tikv: iterator: %w", err)
	}
	return &iterator{s: r.s, src: it}, nil
}

// decodeValue strips the value header and maps TiKV's errors.
func decodeValue(v []byte, err error) ([]byte, error) {
	switch {
	case tikverr.IsErrNotFound(err):
		return nil, storage.ErrNotFound
	case err != nil:
		return nil, fmt.Errorf("tikv: get: %w", err)
	case len(v) == 0 || v[0] != valueHeader:
		return nil, fmt.Errorf("tikv: value without Kura's header (%d bytes)", len(v))
	}
	// The slice may be the transaction's buffer or the client's cache.
	return append([]byte(nil), v[1:]...), nil
}

// encodeValue prefixes v with the value header.
func encodeValue(v []byte) []byte {
	out := make([]byte, 1+len(v))
	out[0] = valueHeader
	copy(out[1:], v)
	return out
}

type snapshot struct {
	reader
	ts     uint64
	closed bool
}

// Close lets the GC pass the snapshot's timestamp.
func (sn *snapshot) Close() error {
	if !sn.closed {
		sn.closed = true
		sn.s.active.remove(sn.ts)
	}
	return nil
}

// txn is an optimistic TiKV transaction.
type txn struct {
	reader
	t    *transaction.KVTxn
	done bool
}

// Get reads the transaction's own writes, then its snapshot, and marks the
// key so that the commit fails if the key was committed since the start.
func (x *txn) Get(k []byte) ([]byte, error) {
	if x.s.closed.Closed() {
		return nil, storage.ErrClosed
	}
	key := x.s.key(k)
	v, err := x.t.Get(context.Background(), key)
	if err == nil || tikverr.IsErrNotFound(err) {
		x.t.GetMemBuffer().UpdateFlags(key, kv.SetKeyLocked)
	}
	return decodeValue(v, err)
}

func (x *txn) Set(k, v []byte) error {
	if x.s.closed.Closed() {
		return storage.ErrClosed
	}
	return x.t.Set(x.s.key(k), encodeValue(v))
}

func (x *txn) Delete(k []byte) error {
	if x.s.closed.Closed() {
		return storage.ErrClosed
	}
	return x.t.Delete(x.s.key(k))
}

// Commit implements storage.Txn; every commit is durable (Raft), so Sync
// changes nothing.
func (x *txn) Commit(storage.CommitOptions) error {
	if x.done {
		return errors.New("tikv: transaction already ended")
	}
	x.done = true
	defer x.s.active.remove(x.t.StartTS())
	if x.s.closed.Closed() {
		_ = x.t.Rollback()
		return storage.ErrClosed
	}
	err := x.t.Commit(context.Background())
	var latch *tikverr.ErrWriteConflictInLatch
	switch {
	case err == nil:
		return nil
	case tikverr.IsErrWriteConflict(err), errors.As(err, &latch):
		return storage.ErrConflict
	}
	return fmt.Errorf("tikv: commit: %w", err)
}

func (x *txn) Rollback() {
	if !x.done {
		x.done = true
		x.s.active.remove(x.t.StartTS())
		_ = x.t.Rollback()
	}
}

// iterSource is client-go's iterator.
type iterSource interface {
	Valid() bool
	Key() []byte
	Value() []byte
	Next() error
	Close()
}

// iterator adapts a client-go iterator, which starts positioned, to
// storage.Iterator, which starts before the first entry.
type iterator struct {
	s       *Store
	src     iterSource // nil: an empty range
	started bool
	key     []byte
	value   []byte
	err     error
}

func (it *iterator) Next() bool {
	if it.err != nil || it.src == nil {
		return false
	}
	if it.s.closed.Closed() {
		it.err = storage.ErrClosed
		return false
	}
	if it.started {
		if err := it.src.Next(); err != nil {
			it.err = fmt.Errorf("tikv: iterator: %w", err)
			return false
		}
	}
	it.started = true
	if !it.src.Valid() {
		return false
	}
	k, v := it.src.Key(), it.src.Value()
	if len(v) == 0 || v[0] != valueHeader {
		it.err = fmt.Errorf("tikv: value without Kura's header at %q", k)
		return false
	}
	it.key, it.value = k[len(it.s.prefix):], v[1:]
	return true
}

func (it *iterator) Key() []byte   { return it.key }
func (it *iterator) Value() []byte { return it.value }
func (it *iterator) Err() error    { return it.err }

func (it *iterator) Close() error {
	if it.src != nil {
		it.src.Close()
		it.src = nil
	}
	return nil
}
