package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/vector"
)

// Storage of a vector index, under P = indexPrefix(tableID, indexID) (the
// index ID space is shared with GSIs/LSIs, so a table purge removes it):
//
//	P 'k' itemKey          → id (uint64 BE)     item ↔ stable vector ID
//	P 'n' id(8)            → itemKey
//	P 'd' id(8)            → ""                 id changed since the last snapshot
//	P 'm'                  → gen(8) chunks(4)   current snapshot
//	P 's' gen(8) chunk(4)  → snapshot bytes     vector.Index.WriteTo, chunked
//
// The item table is the source of truth. The mapping and the dirty mark are
// written in the item's own transaction; the in-memory vector.Index is
// updated only after that commit. A snapshot is written at Close (when no
// write is in flight); the next Open loads it and replays the dirty IDs, so
// after a crash the index is rebuilt from the last snapshot plus every item
// changed since, and agrees with the table.
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
	maxTopK int
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
func newVectorIndex(vx *VectorIndex) (*vector.Index, error) {
	return vector.New(vector.Config{Dimensions: vx.Dims, Distance: vx.Distance, Seed: uint64(vx.ID)})
}

// addVectorRuntime registers an empty runtime for vx (CreateTable,
// UpdateTable Create), replacing any previous one.
func (e *Engine) addVectorRuntime(tableID uint64, vx *VectorIndex) (*vecRuntime, error) {
	idx, err := newVectorIndex(vx)
	if err != nil {
		return nil, err
	}
	rt := &vecRuntime{tableID: tableID, indexID: vx.ID, prefix: indexPrefix(tableID, vx.ID), idx: idx, pending: map[string]vecOp{}}
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
	delete(e.vec.rt, vecKey{tableID, indexID})
	e.vec.mu.Unlock()
}

// SetVectorMaxTopK sets the SearchVectors TopK cap (the --vector-max-topk
// extension); values outside 1..MaxVectorMaxTopK are clamped.
func (e *Engine) SetVectorMaxTopK(n int) {
	e.vec.maxTopK = min(max(n, 1), MaxVectorMaxTopK)
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
				e.goBackground(func() { e.vectorBackfill(t.Name, t.ID, vx.ID) })
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
	idx, err := vector.Load(&chunkReader{snap: snap, prefix: binary.BigEndian.AppendUint64(vecSub(rt.prefix, vecKeySnap), gen)})
	if err != nil {
		slog.Warn("vector snapshot unreadable; rebuilding from the table", "table", t.Name, "index", vx.Name, "err", err)
		return e.rebuildVectorIndex(snap, t, vx, rt)
	}
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
// snapshot: the mapping covers every indexed item).
func (e *Engine) rebuildVectorIndex(r storage.Reader, t *Table, vx *VectorIndex, rt *vecRuntime) error {
	it, err := r.NewIterator(storage.IterOptions{Lower: vecSub(rt.prefix, vecKeyID), Upper: vecSub(rt.prefix, vecKeyID+1)})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
		k := it.Key()
		id := binary.BigEndian.Uint64(k[len(k)-8:])
		item, err := readItem(r, it.Value())
		if err != nil {
			return err
		}
		if v, a, ok := t.vectorEntry(vx, item); ok {
			if err := rt.idx.Add(id, v, a); err != nil {
				return err
			}
		}
	}
	return it.Err()
}

// chunkReader streams a snapshot's chunks.
type chunkReader struct {
	snap   storage.Snapshot
	prefix []byte
	chunk  uint32
	buf    []byte
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
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

// chunkWriter writes a snapshot as chunks, several per transaction.
type chunkWriter struct {
	e      *Engine
	prefix []byte
	chunk  uint32
	buf    []byte
	txn    storage.Txn
	inTxn  int
}

func (c *chunkWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(vecSnapSize-len(c.buf), len(p))
		c.buf = append(c.buf, p[:k]...)
		p = p[k:]
		if len(c.buf) == vecSnapSize {
			if err := c.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (c *chunkWriter) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	if c.txn == nil {
		txn, err := c.e.store.Begin()
		if err != nil {
			return err
		}
		c.txn = txn
	}
	if err := c.txn.Set(binary.BigEndian.AppendUint32(bytes.Clone(c.prefix), c.chunk), c.buf); err != nil {
		return err
	}
	c.chunk++
	c.buf = make([]byte, 0, vecSnapSize)
	c.inTxn++
	if c.inTxn == 16 {
		return c.commit()
	}
	return nil
}

func (c *chunkWriter) commit() error {
	if c.txn == nil {
		return nil
	}
	err := c.txn.Commit(storage.CommitOptions{Sync: false})
	c.txn.Rollback()
	c.txn, c.inTxn = nil, 0
	return err
}

// saveVectorSnapshot writes rt's snapshot as a new generation, switches the
// meta key to it and clears the dirty marks it covers, then drops the old
// generation. No write may be in flight (Close holds every item lock).
func (e *Engine) saveVectorSnapshot(rt *vecRuntime) error {
	metaKey := vecSub(rt.prefix, vecKeyMeta)
	var gen uint64
	if err := e.commit(false, func(txn storage.Txn) error {
		if m, err := txn.Get(metaKey); err == nil && len(m) == 12 {
			gen = binary.BigEndian.Uint64(m)
		}
		return nil
	}); err != nil {
		return err
	}
	next := gen + 1
	cw := &chunkWriter{e: e, prefix: binary.BigEndian.AppendUint64(vecSub(rt.prefix, vecKeySnap), next)}
	if _, err := rt.idx.WriteTo(cw); err != nil {
		cw.commit()
		return err
	}
	if err := cw.flush(); err != nil {
		return err
	}
	if err := cw.commit(); err != nil {
		return err
	}
	meta := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, next), cw.chunk)
	if err := e.commit(true, func(txn storage.Txn) error { return txn.Set(metaKey, meta) }); err != nil {
		return err
	}
	// The snapshot now covers every change: clear the dirty marks and the
	// previous generation (a crash here only means redundant replay work).
	if err := e.purgeRange(vecSub(rt.prefix, vecKeyDirty), vecSub(rt.prefix, vecKeyDirty+1)); err != nil {
		return err
	}
	snapBase := vecSub(rt.prefix, vecKeySnap)
	return e.purgeRange(snapBase, binary.BigEndian.AppendUint64(bytes.Clone(snapBase), next))
}

// purgeRange deletes every key in [lower, upper) in chunks.
func (e *Engine) purgeRange(lower, upper []byte) error {
	for {
		n, err := e.purgeSome(lower, upper)
		if err != nil || n < purgeChunk {
			return err
		}
	}
}

// closeVectors snapshots every vector index (Close). It holds every item
// stripe lock so that no single-item write is between its commit and its
// index update.
func (e *Engine) closeVectors() error {
	e.vec.mu.RLock()
	list := make([]*vecRuntime, 0, len(e.vec.rt))
	for _, rt := range e.vec.rt {
		list = append(list, rt)
	}
	e.vec.mu.RUnlock()
	if len(list) == 0 {
		return nil
	}
	for i := range e.locks {
		e.locks[i].Lock()
	}
	defer func() {
		for i := range e.locks {
			e.locks[i].Unlock()
		}
	}()
	var first error
	for _, rt := range list {
		if err := e.saveVectorSnapshot(rt); err != nil && first == nil {
			first = err
		}
	}
	return first
}
