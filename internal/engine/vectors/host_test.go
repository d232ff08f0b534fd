package vectors

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/vector"
	"github.com/kura-db/kura/internal/wire"
)

// The tests drive a Registry through its interface over a real (in-memory)
// store, with testHost standing in for the core: one table "v" (ID 7,
// key "pk") whose items live under "i" + tableID(8) + pk, one vector index
// "vix" (ID 1) over "emb" whose storage lives under "x" + tableID(8) +
// indexID(4). Writes go through Stage, the commit and Committed, under one
// lock that stands for the item locks.

const (
	vsDims    = 6
	vsTableID = 7
)

type testTable struct {
	change.Table
	vxs []*Index
}

func (t *testTable) VectorIndexes() []*Index  { return t.vxs }
func (t *testTable) UpdatingUntil() time.Time { return time.Time{} }

func itemPrefix(tableID uint64) []byte { return binary.BigEndian.AppendUint64([]byte("i"), tableID) }

func indexPrefix(tableID uint64, indexID uint32) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64([]byte("x"), tableID), indexID)
}

var testLayout = &snapshot.Layout{
	Items:     func(id uint64) ([]byte, []byte) { return itemPrefix(id), itemPrefix(id + 1) },
	PrefixLen: 9,
}

// testHost is the core as the registry sees it.
type testHost struct {
	t       testing.TB
	store   storage.Store
	mu      sync.Mutex // the item locks
	tblMu   sync.Mutex
	table   *testTable
	descs   map[string]wire.VectorIndexDescription // UpdateDesc's result, by index name
	closing chan struct{}
	bg      sync.WaitGroup
	reg     *Registry
}

// newTestTable is table "v" with index "vix" (status ACTIVE unless
// backfilling, as a backfill leaves it).
func newTestTable(backfilling bool) *testTable {
	vx := &Index{Name: "vix", ID: 1, Attr: "emb", Dims: vsDims, Distance: vector.Euclidean, Projection: "KEYS_ONLY", Status: statusActive}
	if backfilling {
		vx.Status, vx.Backfilling = statusCreating, wire.Ptr(false)
	}
	return &testTable{Table: change.Table{Name: "v", ID: vsTableID, Hash: KeyAttr{Name: "pk", Type: attr.S}}, vxs: []*Index{vx}}
}

// openHost opens a registry over store (a restart when store holds an
// earlier one's data) and loads table's indexes.
func openHost(t testing.TB, store storage.Store, table *testTable) *testHost {
	t.Helper()
	h := &testHost{t: t, store: store, table: table, descs: map[string]wire.VectorIndexDescription{}, closing: make(chan struct{})}
	h.reg = New(Options{Host: h, Store: store, Prefix: indexPrefix, Now: time.Now, Closing: h.closing, Go: h.goBackground, Sleep: h.sleep})
	if err := h.reg.Open([]Table{table}); err != nil {
		t.Fatal(err)
	}
	return h
}

// stop stops the host's background work without the registry's Close (a
// crash, as far as storage is concerned).
func (h *testHost) stop() {
	select {
	case <-h.closing:
	default:
		close(h.closing)
	}
	h.bg.Wait()
}

// close is a clean shutdown.
func (h *testHost) close() error {
	h.stop()
	return h.reg.Close()
}

func (h *testHost) goBackground(f func()) {
	h.bg.Add(1)
	go func() {
		defer h.bg.Done()
		f()
	}()
}

func (h *testHost) sleep(d time.Duration) bool {
	select {
	case <-h.closing:
		return false
	case <-time.After(d):
		return true
	}
}

func (h *testHost) Tables() []Table { return []Table{h.current()} }

func (h *testHost) current() *testTable {
	h.tblMu.Lock()
	defer h.tblMu.Unlock()
	return h.table
}

func (h *testHost) Table(name string, id uint64) (Table, bool) {
	t := h.current()
	return t, name == t.Name && id == t.ID
}

func (h *testHost) Snapshot() (*snapshot.Reader, error) { return snapshot.Open(h.store, testLayout) }

func (h *testHost) Commit(sync bool, f func(storage.Txn) error) error {
	txn, err := h.store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	if err := f(txn); err != nil {
		return err
	}
	return txn.Commit(storage.CommitOptions{Sync: sync})
}

func (h *testHost) Purge(lower, upper []byte) error {
	return h.Commit(false, func(txn storage.Txn) error {
		it, err := txn.NewIterator(storage.IterOptions{Lower: lower, Upper: upper})
		if err != nil {
			return err
		}
		var keys [][]byte
		for it.Next() {
			keys = append(keys, append([]byte(nil), it.Key()...))
		}
		it.Close()
		for _, k := range keys {
			if err := txn.Delete(k); err != nil {
				return err
			}
		}
		return it.Err()
	})
}

func (h *testHost) LockAll() func() { h.mu.Lock(); return h.mu.Unlock }

func (h *testHost) LockItems([][]byte) func() { h.mu.Lock(); return h.mu.Unlock }

func (h *testHost) ReadItem(r storage.Reader, key []byte, keep func(string) bool) (attr.Item, error) {
	b, err := r.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if keep == nil {
		return attr.DecodeItem(b)
	}
	return attr.DecodeItemOnly(b, keep)
}

func (h *testHost) AwaitClock(at time.Time, still func() bool) bool { return still() }

// UpdateDesc applies f to the index's description and, as the core's
// catalog would, swaps in a table whose index reflects it.
func (h *testHost) UpdateDesc(name string, id uint64, index uint32, f func(*wire.VectorIndexDescription)) bool {
	h.tblMu.Lock()
	defer h.tblMu.Unlock()
	vx := byID(h.table.vxs, index)
	if vx == nil {
		return false
	}
	d := h.descs[vx.Name]
	d.IndexStatus, d.Backfilling = vx.Status, vx.Backfilling
	f(&d)
	h.descs[vx.Name] = d
	nx := *vx
	nx.Status, nx.Backfilling = d.IndexStatus, d.Backfilling
	nt := *h.table
	nt.vxs = []*Index{&nx}
	h.table = &nt
	return true
}

// write writes item pk = key (nil: deletes it) the way the core's write
// path does: Stage in the item's transaction, then Committed; a storage
// conflict (with a snapshot clearing marks) is retried.
func (h *testHost) write(key string, item attr.Item) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := append(itemPrefix(vsTableID), key...)
	var c change.Change
	err := storage.ErrConflict
	for errors.Is(err, storage.ErrConflict) {
		err = h.writeOnce(k, key, item, &c)
	}
	if err != nil {
		return err
	}
	h.reg.Committed(c)
	return nil
}

func (h *testHost) writeOnce(k []byte, key string, item attr.Item, c *change.Change) error {
	return h.Commit(false, func(txn storage.Txn) error {
		old, err := h.ReadItem(txn, k, nil)
		if err != nil {
			return err
		}
		*c = change.Change{Table: h.current(), Key: k, Suffix: []byte(key), Old: old, New: item, Whole: true}
		if err := h.reg.Stage(txn, *c); err != nil {
			return err
		}
		if item == nil {
			return txn.Delete(k)
		}
		return txn.Set(k, attr.AppendItem(nil, item))
	})
}

func randomVector(r *rand.Rand) attr.Value {
	list := make([]attr.Value, vsDims)
	for i := range list {
		list[i] = attr.Value{T: attr.N, Str: strconv.FormatFloat(float64(float32(r.NormFloat64())), 'g', -1, 32)}
	}
	return attr.Value{T: attr.L, List: list}
}

// vsWrite puts item k with a fresh random vector, or deletes it.
func vsWrite(t testing.TB, h *testHost, r *rand.Rand, k int, del bool) {
	t.Helper()
	key := fmt.Sprintf("k%04d", k)
	var item attr.Item
	if !del {
		item = attr.Item{"pk": {T: attr.S, Str: key}, "emb": randomVector(r)}
	}
	if err := h.write(key, item); err != nil {
		t.Error(err)
	}
}

// vsFill makes n writes over keys items from seed, every delEvery-th a
// deletion (0: none).
func vsFill(t testing.TB, h *testHost, seed uint64, n, keys, delEvery int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range n {
		vsWrite(t, h, r, i%keys, delEvery > 0 && i%delEvery == 0)
	}
}

// live is the registry's state of index "vix".
func (h *testHost) live() *liveIndex {
	h.t.Helper()
	rt := h.reg.runtime(vsTableID, 1)
	if rt == nil {
		h.t.Fatal("no vector runtime")
	}
	return rt
}

// vsGen is the current snapshot generation (0: none).
func vsGen(t testing.TB, store storage.Store, rt *liveIndex) uint64 {
	snap, err := store.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	m, err := snap.Get(sub(rt.prefix, keyMeta))
	if err != nil {
		return 0
	}
	return binary.BigEndian.Uint64(m)
}

// vsAgrees checks that the index holds exactly the table's vectors.
func vsAgrees(t *testing.T, h *testHost) {
	t.Helper()
	if err := h.reg.Verify(h.current(), "vix"); err != nil {
		t.Fatal(err)
	}
}

func newStore() storage.Store { return memory.New() }
