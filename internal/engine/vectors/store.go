package vectors

import (
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/vector"
	"github.com/kura-db/kura/internal/wire"
)

// Storage of a vector index, under P = Options.Prefix(tableID, indexID)
// (the core's index prefix: the index ID space is shared with GSIs/LSIs,
// so a table purge removes it):
//
//	P 'k' itemKey          → id (uint64 BE)     item ↔ stable vector ID
//	P 'n' id(8)            → itemKey
//	P 'd' id(8)            → seq(8)             id changed since the last snapshot
//	P 'm'                  → gen(8) chunks(4)   current snapshot
//	P 's' gen(8) chunk(4)  → snapshot bytes     vector.Index.WriteTo, chunked
//
// The item table is the source of truth. The mapping and the dirty mark are
// written in the item's own transaction; the in-memory vector.Index is
// updated only after that commit. A snapshot is written periodically while
// the engine runs and at Close (snapshot.go); the next Open loads the
// current generation and replays the dirty IDs, so after a crash the index is
// the last snapshot plus every item changed since, and agrees with the table.
// The dirty mark's value is a per-index sequence number (marks from before
// sequences existed are empty and count as 0): a snapshot clears only the
// marks whose sequence it covers, so a write racing the snapshot keeps its
// mark.
const (
	// KeyMap and KeyID are the kinds of the two keys that hold an item key
	// (the core's layout migration rewrites them).
	KeyMap      = 'k'
	KeyID       = 'n'
	keyDirty    = 'd'
	keyMeta     = 'm'
	keySnap     = 's'
	snapSize    = 1 << 20 // bytes per snapshot chunk
	purgeChunks = 512     // keys one purge transaction deletes
)

func sub(p []byte, kind byte) []byte {
	b := make([]byte, len(p), len(p)+1+32)
	copy(b, p)
	return append(b, kind)
}

func idKey(p []byte, kind byte, id uint64) []byte {
	return binary.BigEndian.AppendUint64(sub(p, kind), id)
}

// Host is what the core hands the package: its tables, its one snapshot
// reader, its commit and item locks, and the control-plane steps of a
// backfill. The core implements it; the package never imports the core.
type Host interface {
	// Tables lists the current version of every table not being deleted.
	Tables() []Table
	// Table is the current version of table name, if its ID is still id.
	Table(name string, id uint64) (Table, bool)
	// Snapshot takes a consistent snapshot of the store now, through the
	// one exported reader (internal/engine/snapshot).
	Snapshot() (*snapshot.Reader, error)
	// Commit runs f in one storage transaction and commits it (synced
	// when sync); a conflict is returned, not retried.
	Commit(sync bool, f func(storage.Txn) error) error
	// Purge deletes every key in [lower, upper), in bounded transactions.
	Purge(lower, upper []byte) error
	// LockAll takes every item lock (in the writers' order) and returns
	// the unlock; LockItems takes those of the item keys given.
	LockAll() (unlock func())
	LockItems(keys [][]byte) (unlock func())
	// ReadItem reads and decodes the item stored at key (nil, nil when
	// there is none), keeping only the attributes keep accepts (all when
	// keep is nil).
	ReadItem(r storage.Reader, key []byte, keep func(string) bool) (attr.Item, error)
	// AwaitClock waits until the engine's clock reaches at while still
	// holds; false when the engine closes or still stops holding.
	AwaitClock(at time.Time, still func() bool) bool
	// UpdateDesc changes the stored description of one vector index of
	// table name (if its ID is still id); false if it is gone or the
	// catalog write failed.
	UpdateDesc(name string, id uint64, index uint32, f func(*wire.VectorIndexDescription)) bool
}

// Options wire a Registry at the core's Open.
type Options struct {
	Host Host
	// Store is the engine's store: Open's reads, the snapshots' chunk
	// transactions.
	Store storage.Store
	// Prefix is the storage prefix of one index of one table.
	Prefix func(tableID uint64, indexID uint32) []byte
	// Now is the engine's clock (a backfill's minimum duration).
	Now func() time.Time
	// CreateDelay is --create-delay: a backfill lasts it at least.
	CreateDelay time.Duration
	// Closing is closed when the engine closes; Go runs background work
	// the engine's Close waits for (called with the core's control-plane
	// lock held, or in Open); Sleep waits or reports false when closing.
	Closing <-chan struct{}
	Go      func(func())
	Sleep   func(time.Duration) bool
	// Exclusive runs an index's backfill (run) on the one node of those
	// sharing the store that holds the backfill's lease (the engine's),
	// while still reports it is wanted; nil: run here.
	Exclusive func(tableID uint64, indexID uint32, still func() bool, run func())
	// Cluster: other nodes share the store (follow.go). Lease reports
	// whether this node holds (or now took) the lease LeaseLog, under which
	// one node trims the logs; Sync brings the core's list of tables up to
	// date with the store (before a trim lists them).
	Cluster bool
	Lease   func() bool
	Sync    func()
}

// liveIndex is the live state of one vector index.
type liveIndex struct {
	tableID uint64
	indexID uint32
	prefix  []byte
	idx     atomic.Pointer[vector.Index] // swapped only by a cluster reload (follow.go)

	mu      sync.Mutex
	nextID  uint64
	pending map[string]op // committed-soon changes by item key

	marks    atomic.Uint64 // last dirty-mark sequence handed out
	changes  atomic.Int64  // marks staged since the last snapshot cut
	lastSnap atomic.Int64  // unix nanoseconds of the last snapshot (or Open)
	snapMu   sync.Mutex    // one snapshot of this index at a time
	dropped  atomic.Bool   // index deleted: abort and skip snapshots

	cl *clusterState // cluster mode only (follow.go)
}

// op is one change to apply to the in-memory index after the commit.
type op struct {
	id  uint64
	del bool
}

type liveKey struct {
	table uint64
	index uint32
}

// Registry is every loaded vector index of the engine: the in-memory
// HNSW graphs and their bookkeeping. It is the change.Subsystem that keeps
// them in step with the items (write.go).
type Registry struct {
	opt    Options
	origin uint64 // cluster mode: this Registry's name in the logs (random per Open)

	mu sync.RWMutex
	rt map[liveKey]*liveIndex
	// maxTopK is the SearchVectors TopK cap (DefaultMaxTopK unless the
	// --vector-max-topk extension raises it).
	maxTopK  int
	efSearch int // HNSW search beam (--vector-ef-search); 0: the index default

	// Options of snapshot.go, set after Open.
	quant       vector.Quantization
	snapEvery   atomic.Int64 // periodic snapshot interval (ns); 0 = only at Close
	snapChanges atomic.Int64 // change threshold; 0 = DefaultSnapshotChanges
	snapStarted bool         // the snapshotter goroutine runs (under the core's control-plane lock)
}

// New returns an empty registry; Open loads the indexes.
func New(opt Options) *Registry {
	r := &Registry{opt: opt, rt: map[liveKey]*liveIndex{}}
	if opt.Cluster {
		r.origin = newOrigin()
	}
	return r
}

func (r *Registry) runtime(tableID uint64, indexID uint32) *liveIndex {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.rt[liveKey{tableID, indexID}]
}

// index is the in-memory graph.
func (rt *liveIndex) index() *vector.Index { return rt.idx.Load() }

func (rt *liveIndex) alloc() uint64 {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.nextID++
	return rt.nextID
}

func (rt *liveIndex) setPending(itemKey []byte, o op) {
	rt.mu.Lock()
	rt.pending[string(itemKey)] = o
	rt.mu.Unlock()
}

func (rt *liveIndex) popPending(itemKey []byte) (op, bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	o, ok := rt.pending[string(itemKey)]
	if ok {
		delete(rt.pending, string(itemKey))
	}
	return o, ok
}

// newIndex is an empty in-memory index for vx.
func newIndex(vx *Index, q vector.Quantization) (*vector.Index, error) {
	return vector.New(vector.Config{Dimensions: vx.Dims, Distance: vx.Distance, Seed: uint64(vx.ID), Quantization: q})
}

// add registers an empty runtime for vx of table, replacing any previous
// one; in cluster mode it counts as loaded when loaded is set (a new index).
func (r *Registry) add(table string, tableID uint64, vx *Index, loaded bool) (*liveIndex, error) {
	r.mu.RLock()
	q := r.quant
	r.mu.RUnlock()
	idx, err := newIndex(vx, q)
	if err != nil {
		return nil, err
	}
	rt := r.newLive(table, tableID, vx, idx, loaded)
	r.mu.Lock()
	r.rt[liveKey{tableID, vx.ID}] = rt
	r.mu.Unlock()
	return rt, nil
}

// newLive is the runtime of vx over idx.
func (r *Registry) newLive(table string, tableID uint64, vx *Index, idx *vector.Index, loaded bool) *liveIndex {
	rt := &liveIndex{tableID: tableID, indexID: vx.ID, prefix: r.opt.Prefix(tableID, vx.ID), pending: map[string]op{}}
	rt.idx.Store(idx)
	rt.lastSnap.Store(time.Now().UnixNano())
	if r.opt.Cluster {
		rt.cl = newClusterState(table, vx, loaded)
		rt.cl.followed = r.opt.Now() // a new index: nothing to follow before now
	}
	return rt
}

// Start creates the runtimes of the vector indexes new in t (compared with
// prev, nil for a new table) and starts the backfill of those that have
// one (CreateTable, UpdateTable's Create). Callers hold the core's
// control-plane lock.
func (r *Registry) Start(t, prev Table) {
	def := t.Def()
	for _, vx := range t.VectorIndexes() {
		if prev != nil {
			if _, ok := ByName(prev.VectorIndexes(), vx.Name); ok {
				continue
			}
		}
		if _, err := r.add(def.Name, def.ID, vx, true); err != nil {
			continue
		}
		if vx.Backfilling != nil {
			r.startBackfill(def.Name, def.ID, vx.ID)
		}
	}
}

// startBackfill runs an index's backfill in the background, through
// Options.Exclusive when there is one.
func (r *Registry) startBackfill(table string, tableID uint64, indexID uint32) {
	run := func() { r.backfill(table, tableID, indexID) }
	if r.opt.Exclusive == nil {
		r.opt.Go(run)
		return
	}
	still := func() bool {
		t, ok := r.opt.Host.Table(table, tableID)
		if !ok {
			return false
		}
		vx := byID(t.VectorIndexes(), indexID)
		return vx != nil && vx.Backfilling != nil && r.runtime(tableID, indexID) != nil
	}
	r.opt.Go(func() { r.opt.Exclusive(tableID, indexID, still, run) })
}

// Drop forgets a deleted vector index and purges its storage in the
// background. Callers hold the core's control-plane lock.
func (r *Registry) Drop(tableID uint64, indexID uint32) {
	r.mu.Lock()
	rt := r.rt[liveKey{tableID, indexID}]
	delete(r.rt, liveKey{tableID, indexID})
	r.mu.Unlock()
	if rt != nil {
		// Stop a snapshot in progress (it checks dropped between chunks) and
		// wait for it, so that the purge that follows sees all its keys.
		rt.dropped.Store(true)
		rt.snapMu.Lock()
		//lint:ignore SA2001 waits for the snapshot holding it
		rt.snapMu.Unlock()
	}
	r.opt.Go(func() {
		r.opt.Host.Purge(r.opt.Prefix(tableID, indexID), r.opt.Prefix(tableID, indexID+1))
	})
}

// Len is the number of items one vector index holds (0 when it is not
// loaded).
func (r *Registry) Len(tableID uint64, indexID uint32) int {
	if rt := r.runtime(tableID, indexID); rt != nil {
		return rt.index().Len()
	}
	return 0
}

// SetMaxTopK sets the SearchVectors TopK cap (the --vector-max-topk
// extension); values outside 1..MaxMaxTopK are clamped.
func (r *Registry) SetMaxTopK(n int) {
	r.maxTopK = min(max(n, 1), MaxMaxTopK)
}

// MaxEfSearch bounds --vector-ef-search.
const MaxEfSearch = 10000

// SetEfSearch sets the HNSW search beam width SearchVectors uses (the
// --vector-ef-search setting; raised to TopK per search); 0 restores the
// index default (vector.DefaultEfSearch). Values are clamped to
// 0..MaxEfSearch.
func (r *Registry) SetEfSearch(n int) {
	r.efSearch = min(max(n, 0), MaxEfSearch)
}

// MaxTopK is the SearchVectors TopK cap.
func (r *Registry) MaxTopK() int {
	if r.maxTopK == 0 {
		return DefaultMaxTopK
	}
	return r.maxTopK
}

// Open loads every vector index of tables (those not being deleted): the
// last snapshot plus the items changed since, or a full rebuild from the
// mapped items when there is no snapshot (in cluster mode always the
// rebuild, and the other nodes' logs followed from then on). Indexes still
// being created resume their backfill.
func (r *Registry) Open(tables []Table) error {
	for _, t := range tables {
		def := t.Def()
		for _, vx := range t.VectorIndexes() {
			rt, err := r.add(def.Name, def.ID, vx, false)
			if err != nil {
				return err
			}
			if err := r.loadAtOpen(vx, rt); err != nil {
				return fmt.Errorf("engine: vector index %s of %s: %w", vx.Name, def.Name, err)
			}
			if vx.Backfilling != nil {
				r.startBackfill(def.Name, def.ID, vx.ID)
			}
		}
	}
	if r.opt.Cluster {
		r.opt.Go(r.clusterLoop)
	}
	return nil
}

// loadAtOpen is Open's load of one index.
func (r *Registry) loadAtOpen(vx *Index, rt *liveIndex) error {
	if rt.cl == nil {
		return r.load(vx, rt)
	}
	if err := r.invalidateSnapshots(rt); err != nil {
		return err
	}
	rt.cl.fmu.Lock()
	defer rt.cl.fmu.Unlock()
	return r.loadCluster(rt)
}
