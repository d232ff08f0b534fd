package tikv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pingcap/log"
	"go.uber.org/zap/zapcore"

	tikverr "github.com/tikv/client-go/v2/error"
	"github.com/tikv/client-go/v2/kv"
	"github.com/tikv/client-go/v2/oracle"
	"github.com/tikv/client-go/v2/tikv"
	"github.com/tikv/client-go/v2/txnkv"
	"github.com/tikv/client-go/v2/txnkv/transaction"
	"github.com/tikv/client-go/v2/txnkv/txnsnapshot"

	"github.com/kura-db/kura/internal/storage"
)

// quietClient lowers client-go's logging (its own global logger, on
// standard error) to warnings once: at its default level it logs every
// lock a prewrite meets, which concurrent writes of one item do routinely.
var quietClient sync.Once

// valueHeader starts every stored value: TiKV refuses empty values.
const valueHeader = 0

// Cluster is a connection to one TiKV cluster, shared by the stores of
// its namespaces.
type Cluster struct {
	kv     *tikv.KVStore
	close  func() error
	active activeSet // open snapshots and transactions of every store (gc.go)

	gcBarrier      string
	gcStop, gcDone chan struct{}
}

// Connect connects to the cluster whose PD servers are pdAddrs. An address
// mock://DIR names client-go's in-process mock cluster, keeping its data in
// DIR, in builds with the tikvmock tag (the black-box tests' way to run
// Kura on TiKV without a cluster).
func Connect(pdAddrs []string) (*Cluster, error) {
	quietClient.Do(func() { log.SetLevel(zapcore.WarnLevel) })
	if len(pdAddrs) == 1 && strings.HasPrefix(pdAddrs[0], "mock://") {
		return connectMock(strings.TrimPrefix(pdAddrs[0], "mock://"))
	}
	c, err := txnkv.NewClient(pdAddrs)
	if err != nil {
		return nil, fmt.Errorf("tikv: connecting to PD %v: %w", pdAddrs, err)
	}
	return &Cluster{kv: c.KVStore, close: c.Close}, nil
}

// NewCluster wraps an open client-go store; Close closes it.
func NewCluster(kvs *tikv.KVStore) *Cluster {
	quietClient.Do(func() { log.SetLevel(zapcore.WarnLevel) })
	return &Cluster{kv: kvs, close: kvs.Close}
}

// Close stops the GC and closes the connection; the stores must be
// closed first.
func (c *Cluster) Close() error {
	c.stopGC()
	if n := c.active.open(); n > 0 {
		// Each would have held the GC back for good: a leak to fix.
		slog.Warn("closing the TiKV connection with snapshots or transactions still open", "open", n)
	}
	return c.close()
}

// Store is a storage.Store over one namespace of a TiKV cluster.
type Store struct {
	kv     *tikv.KVStore
	active *activeSet
	prefix []byte // namespace of every key
	end    []byte // first key after the namespace
	lease  *lease
	closed atomic.Bool
	lost   atomic.Bool // the lease was taken by another server: closed since
}

// Store serves the keys of namespace, which must not contain '/' (so that
// no namespace's keys are a prefix of another's). It holds the namespace's
// lease (lease.go) until it closes: while another server holds it, Store
// waits for it to lapse and then fails with ErrNamespaceInUse. Closing the
// store leaves the cluster open.
func (c *Cluster) Store(namespace string) (*Store, error) {
	if namespace == "" || strings.Contains(namespace, "/") {
		return nil, fmt.Errorf("tikv: invalid namespace %q", namespace)
	}
	prefix := []byte("kura/" + namespace + "/")
	end := append([]byte(nil), prefix...)
	end[len(end)-1]++
	s := &Store{kv: c.kv, active: &c.active, prefix: prefix, end: end}
	l, err := acquireLease(c.kv, namespace, s.loseLease)
	if err != nil {
		return nil, err
	}
	s.lease = l
	return s, nil
}

// loseLease closes the store when another server has taken its namespace:
// serving on would build on copies that server no longer keeps in step.
func (s *Store) loseLease(err error) {
	s.lost.Store(true)
	s.closed.Store(true)
	slog.Error("TiKV namespace taken over by another Kura server: this server's storage is closed", "err", err)
}

// NewSnapshot implements storage.Store.
func (s *Store) NewSnapshot() (storage.Snapshot, error) {
	if s.closed.Load() {
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
	if s.closed.Load() {
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
	if s.closed.Swap(true) && !s.lost.Load() {
		return storage.ErrClosed
	}
	s.lost.Store(false) // a second Close reports ErrClosed
	return s.lease.release()
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
	if r.s.closed.Load() {
		return nil, storage.ErrClosed
	}
	v, err := r.snap.Get(context.Background(), r.s.key(k))
	return decodeValue(v, err)
}

func (r reader) NewIterator(opts storage.IterOptions) (storage.Iterator, error) {
	if r.s.closed.Load() {
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
	if x.s.closed.Load() {
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
	if x.s.closed.Load() {
		return storage.ErrClosed
	}
	return x.t.Set(x.s.key(k), encodeValue(v))
}

func (x *txn) Delete(k []byte) error {
	if x.s.closed.Load() {
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
	if x.s.closed.Load() {
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
	if it.s.closed.Load() {
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
