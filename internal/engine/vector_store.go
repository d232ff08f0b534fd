package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/vector"
)

// Storage of a vector index, under P = indexPrefix(tableID, indexID) (the
// index ID space is shared with GSIs/LSIs, so a table purge removes it):
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
// the engine runs and at Close (vector_snapshot.go); the next Open loads the
// current generation and replays the dirty IDs, so after a crash the index is
// the last snapshot plus every item changed since, and agrees with the table.
// The dirty mark's value is a per-runtime sequence number (marks from before
// sequences existed are empty and count as 0): a snapshot clears only the
// marks whose sequence it covers, so a write racing the snapshot keeps its
// mark.
const (
	vecKeyMap   = 'k'
	vecKeyID    = 'n'
	vecKeyDirty = 'd'
	vecKeyMeta  = 'm'
	vecKeySnap  = 's'
	vecSnapSize = 1 << 20 // bytes per snapshot chunk
)

func vecSub(p []byte, kind byte) []byte {
	b := make([]byte, len(p), len(p)+1+32)
	copy(b, p)
	return append(b, kind)
}

func vecIDKey(p []byte, kind byte, id uint64) []byte {
	return binary.BigEndian.AppendUint64(vecSub(p, kind), id)
}

// vecRuntime is the live state of one vector index.
type vecRuntime struct {
	tableID uint64
	indexID uint32
	prefix  []byte
	idx     *vector.Index

	mu      sync.Mutex
	nextID  uint64
	pending map[string]vecOp // committed-soon changes by item key

	marks    atomic.Uint64 // last dirty-mark sequence handed out
	changes  atomic.Int64  // marks staged since the last snapshot cut
	lastSnap atomic.Int64  // unix nanoseconds of the last snapshot (or Open)
	snapMu   sync.Mutex    // one snapshot of this index at a time
	dropped  atomic.Bool   // index deleted: abort and skip snapshots
}

// vecOp is one change to apply to the in-memory index after the commit.
type vecOp struct {
	id  uint64
	del bool
}

type vecKey struct {
	table uint64
	index uint32
}

// vectorState is the engine's registry of vector index runtimes.
type vectorState struct {
	mu sync.RWMutex
	rt map[vecKey]*vecRuntime
	// MaxTopK is the SearchVectors TopK cap (DefaultVectorMaxTopK unless the
	// --vector-max-topk extension raises it).
	maxTopK  int
	efSearch int // HNSW search beam (--vector-ef-search); 0: the index default

	// Options of vector_snapshot.go, set after Open.
	quant       vector.Quantization
	snapEvery   atomic.Int64 // periodic snapshot interval (ns); 0 = only at Close
	snapChanges atomic.Int64 // change threshold; 0 = DefaultVectorSnapshotChanges
	snapStarted bool         // the snapshotter goroutine runs (under e.ddl)
}

func (e *Engine) vecRuntime(tableID uint64, indexID uint32) *vecRuntime {
	e.vec.mu.RLock()
	defer e.vec.mu.RUnlock()
	return e.vec.rt[vecKey{tableID, indexID}]
}

func (rt *vecRuntime) alloc() uint64 {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.nextID++
	return rt.nextID
}

func (rt *vecRuntime) setPending(itemKey []byte, op vecOp) {
	rt.mu.Lock()
	rt.pending[string(itemKey)] = op
	rt.mu.Unlock()
}

func (rt *vecRuntime) popPending(itemKey []byte) (vecOp, bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	op, ok := rt.pending[string(itemKey)]
	if ok {
		delete(rt.pending, string(itemKey))
	}
	return op, ok
}

// newVectorIndex is an empty in-memory index for vx.
func newVectorIndex(vx *VectorIndex, q vector.Quantization) (*vector.Index, error) {
	return vector.New(vector.Config{Dimensions: vx.Dims, Distance: vx.Distance, Seed: uint64(vx.ID), Quantization: q})
}

// addVectorRuntime registers an empty runtime for vx (CreateTable,
// UpdateTable Create), replacing any previous one.
func (e *Engine) addVectorRuntime(tableID uint64, vx *VectorIndex) (*vecRuntime, error) {
	e.vec.mu.RLock()
	q := e.vec.quant
	e.vec.mu.RUnlock()
	idx, err := newVectorIndex(vx, q)
	if err != nil {
		return nil, err
	}
	rt := &vecRuntime{tableID: tableID, indexID: vx.ID, prefix: indexPrefix(tableID, vx.ID), idx: idx, pending: map[string]vecOp{}}
	rt.lastSnap.Store(time.Now().UnixNano())
	e.vec.mu.Lock()
	if e.vec.rt == nil {
		e.vec.rt = map[vecKey]*vecRuntime{}
	}
	e.vec.rt[vecKey{tableID, vx.ID}] = rt
	e.vec.mu.Unlock()
	return rt, nil
}

func (e *Engine) dropVectorRuntime(tableID uint64, indexID uint32) {
	e.vec.mu.Lock()
	rt := e.vec.rt[vecKey{tableID, indexID}]
	delete(e.vec.rt, vecKey{tableID, indexID})
	e.vec.mu.Unlock()
	if rt != nil {
		// Stop a snapshot in progress (it checks dropped between chunks) and
		// wait for it, so that the purge that follows sees all its keys.
		rt.dropped.Store(true)
		rt.snapMu.Lock()
		//lint:ignore SA2001 waits for the snapshot holding it
		rt.snapMu.Unlock()
	}
}

// SetVectorMaxTopK sets the SearchVectors TopK cap (the --vector-max-topk
// extension); values outside 1..MaxVectorMaxTopK are clamped.
func (e *Engine) SetVectorMaxTopK(n int) {
	e.vec.maxTopK = min(max(n, 1), MaxVectorMaxTopK)
}

// MaxVectorEfSearch bounds --vector-ef-search.
const MaxVectorEfSearch = 10000

// SetVectorEfSearch sets the HNSW search beam width SearchVectors uses (the
// --vector-ef-search setting; raised to TopK per search); 0 restores the
// index default (vector.DefaultEfSearch). Values are clamped to
// 0..MaxVectorEfSearch.
func (e *Engine) SetVectorEfSearch(n int) {
	e.vec.efSearch = min(max(n, 0), MaxVectorEfSearch)
}

func (e *Engine) vectorMaxTopK() int {
	if e.vec.maxTopK == 0 {
		return DefaultVectorMaxTopK
	}
	return e.vec.maxTopK
}

// openVectors loads every vector index at Open: the last snapshot plus the
// items changed since, or a full rebuild from the table when there is no
// snapshot. Indexes still being created resume their backfill.
func (e *Engine) openVectors() error {
	for _, t := range e.tables {
		if t.Status == StatusDeleting {
			continue
		}
		for _, vx := range t.Vectors {
			rt, err := e.addVectorRuntime(t.ID, vx)
			if err != nil {
				return err
			}
			if err := e.loadVectorIndex(t, vx, rt); err != nil {
				return fmt.Errorf("engine: vector index %s of %s: %w", vx.Name, t.Name, err)
			}
			if vx.Backfilling != nil {
				e.goBackground(func() { e.leasedVectorBackfill(t.Name, t.ID, vx.ID) })
			}
		}
	}
	return nil
}

// loadVectorIndex restores rt from storage.
func (e *Engine) loadVectorIndex(t *Table, vx *VectorIndex, rt *vecRuntime) error {
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	// Next ID: one past the largest mapped ID.
	it, err := snap.NewIterator(storage.IterOptions{Lower: vecSub(rt.prefix, vecKeyID), Upper: vecSub(rt.prefix, vecKeyID+1), Reverse: true})
	if err != nil {
		return err
	}
	if it.Next() {
		k := it.Key()
		rt.nextID = binary.BigEndian.Uint64(k[len(k)-8:])
	}
	err = it.Err()
	it.Close()
	if err != nil {
		return err
	}
	// Later marks must sort above every mark already stored (see
	// clearVectorMarks).
	marks, err := maxVectorMark(snap, rt.prefix)
	if err != nil {
		return err
	}
	rt.marks.Store(marks)
	meta, err := snap.Get(vecSub(rt.prefix, vecKeyMeta))
	if errors.Is(err, storage.ErrNotFound) || err == nil && len(meta) != 12 {
		if vx.Backfilling != nil {
			return nil // the resumed backfill fills it
		}
		return e.rebuildVectorIndex(snap, t, vx, rt)
	}
	if err != nil {
		return err
	}
	gen := binary.BigEndian.Uint64(meta)
	chunks := binary.BigEndian.Uint32(meta[8:])
	idx, err := vector.Load(&chunkReader{snap: snap, prefix: binary.BigEndian.AppendUint64(vecSub(rt.prefix, vecKeySnap), gen), end: chunks})
	if err != nil {
		slog.Warn("vector snapshot unreadable; rebuilding from the table", "table", t.Name, "index", vx.Name, "err", err)
		return e.rebuildVectorIndex(snap, t, vx, rt)
	}
	// The snapshot keeps its quantiser (trained ranges included);
	// SetVectorQuantization, called after Open, switches it only if the
	// setting changed.
	rt.idx = idx
	// Replay every ID changed since the snapshot.
	dit, err := snap.NewIterator(storage.IterOptions{Lower: vecSub(rt.prefix, vecKeyDirty), Upper: vecSub(rt.prefix, vecKeyDirty+1)})
	if err != nil {
		return err
	}
	defer dit.Close()
	n := 0
	for dit.Next() {
		k := dit.Key()
		id := binary.BigEndian.Uint64(k[len(k)-8:])
		if err := e.replayVectorID(snap, t, vx, rt, id); err != nil {
			return err
		}
		n++
	}
	if n > 0 {
		slog.Info("vector index replayed changes since its snapshot", "table", t.Name, "index", vx.Name, "changes", n)
	}
	// Replayed changes count towards the next periodic snapshot, so that a
	// long replay is not repeated after another crash.
	rt.changes.Store(int64(n))
	return dit.Err()
}

// replayVectorID makes the index entry of id agree with the table.
func (e *Engine) replayVectorID(r storage.Reader, t *Table, vx *VectorIndex, rt *vecRuntime, id uint64) error {
	key, err := r.Get(vecIDKey(rt.prefix, vecKeyID, id))
	if errors.Is(err, storage.ErrNotFound) {
		rt.idx.Delete(id)
		return nil
	}
	if err != nil {
		return err
	}
	it, err := readItem(r, key)
	if err != nil {
		return err
	}
	if v, a, ok := t.vectorEntry(vx, it); ok {
		return rt.idx.Add(id, v, a)
	}
	rt.idx.Delete(id)
	return nil
}

// rebuildVectorIndex fills rt from every mapped item (used when there is no
// snapshot: the mapping covers every indexed item). Items are inserted in
// batches that plan neighbours on every core (vector.Index.AddBatch).
func (e *Engine) rebuildVectorIndex(r storage.Reader, t *Table, vx *VectorIndex, rt *vecRuntime) error {
	it, err := r.NewIterator(storage.IterOptions{Lower: vecSub(rt.prefix, vecKeyID), Upper: vecSub(rt.prefix, vecKeyID+1)})
	if err != nil {
		return err
	}
	defer it.Close()
	const batch = 4096
	items := make([]vector.BatchItem, 0, batch)
	flush := func() error {
		err := rt.idx.AddBatch(items, runtime.GOMAXPROCS(0))
		items = items[:0]
		return err
	}
	for it.Next() {
		k := it.Key()
		id := binary.BigEndian.Uint64(k[len(k)-8:])
		item, err := readItem(r, it.Value())
		if err != nil {
			return err
		}
		if v, a, ok := t.vectorEntry(vx, item); ok {
			items = append(items, vector.BatchItem{ID: id, Vec: v, Attrs: a})
			if len(items) == batch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	// Make the index due for a periodic snapshot, so that another crash
	// does not repeat the rebuild.
	rt.changes.Store(int64(rt.idx.Len()))
	return nil
}

// chunkReader streams a snapshot's chunks: the first end chunks of the
// generation (the count recorded in the meta key), never any stale chunk
// beyond them.
type chunkReader struct {
	snap   storage.Snapshot
	prefix []byte
	chunk  uint32
	end    uint32
	buf    []byte
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.chunk >= c.end {
			return 0, io.EOF
		}
		v, err := c.snap.Get(binary.BigEndian.AppendUint32(bytes.Clone(c.prefix), c.chunk))
		if errors.Is(err, storage.ErrNotFound) {
			return 0, io.EOF
		}
		if err != nil {
			return 0, err
		}
		c.chunk++
		c.buf = v
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}
