package vectors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"log/slog"
	"time"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/vector"
)

// Vector index snapshots (storage layout in store.go).
//
// A snapshot generation is written in three steps:
//
//  1. Cut. With every item stripe lock held, so that no write is between its
//     commit and its in-memory index update, the index is frozen
//     (vector.Index.Freeze copies the small per-node arrays, shares the
//     append-only vectors and the layer-0 links copy-on-write) and the last
//     dirty-mark sequence is read. The frozen view then covers exactly the
//     marks with sequence ≤ cut; writes after the cut get larger sequences.
//     Writers wait only for the freeze copy (about 20 bytes per vector), not
//     for the snapshot.
//  2. Write the view as generation gen+1 in chunks (unsynced), then switch
//     the meta key to it in a synced commit; the sync also makes the chunks
//     durable (one WAL). Until the switch the old generation stays current.
//  3. Clear the marks with sequence ≤ cut (a mark rewritten by a later write
//     has a larger sequence, and a write racing the delete makes the delete
//     transaction conflict and re-read), then drop older generations.
//
// A crash before the switch leaves the old generation and all marks (the
// partial chunks of gen+1 are purged before gen+1 is written again); after
// it, the new generation plus marks it may already cover, whose replay is
// idempotent. Either way Open loads a complete generation and replays every
// change it may miss, so the index agrees with the table.

// Periodic snapshot defaults (the server's --vector-snapshot-interval and
// --vector-snapshot-changes).
const (
	DefaultSnapshotInterval = 5 * time.Minute
	DefaultSnapshotChanges  = 10000
)

// errSnapAborted stops a snapshot when the engine closes or the index is
// dropped; the old generation stays current.
var errSnapAborted = errors.New("vectors: snapshot aborted")

// snapHookFn, when set by tests, is called after each snapshot step
// ("chunks", "meta", "marks"); an error stops the snapshot there, leaving
// storage exactly as a crash at that point would.
var snapHookFn func(step string) error

// SetQuantization sets the vector indexes' traversal representation
// (--vector-quantization): for indexes created from now on and for every
// index already loaded. An index loaded from a snapshot written under the
// same setting keeps its persisted SQ8 ranges; a changed setting retrains or
// drops the codes in memory.
func (r *Registry) SetQuantization(q vector.Quantization) error {
	r.mu.Lock()
	r.quant = q
	list := make([]*liveIndex, 0, len(r.rt))
	for _, rt := range r.rt {
		list = append(list, rt)
	}
	r.mu.Unlock()
	for _, rt := range list {
		if err := rt.index().SetQuantization(q); err != nil {
			return err
		}
	}
	return nil
}

// SetSnapshotPolicy starts (or retunes) the periodic snapshotter: an
// index is snapshotted at most once per interval, when at least
// min(changes, 10% of its vectors, but ≥ 1) items changed since its last
// snapshot. interval 0 means snapshots only at Close; changes ≤ 0 means
// DefaultSnapshotChanges. The snapshotter stops when the engine closes.
// Callers hold the core's control-plane lock.
func (r *Registry) SetSnapshotPolicy(interval time.Duration, changes int) {
	if r.opt.Cluster {
		return // nodes of a cluster keep no snapshots (follow.go)
	}
	r.snapEvery.Store(int64(max(interval, 0)))
	r.snapChanges.Store(int64(changes))
	if interval <= 0 {
		return
	}
	if !r.snapStarted {
		r.snapStarted = true
		r.opt.Go(r.snapshotter)
	}
}

// snapshotter checks the indexes four times per interval (at most
// every 30 s; once a second while periodic snapshots are off, to notice a new
// policy). An index is due once an interval has passed since its last cut.
func (r *Registry) snapshotter() {
	for {
		every := time.Duration(r.snapEvery.Load())
		wait := min(max(every/4, time.Millisecond), 30*time.Second)
		if every <= 0 {
			wait = time.Second
		}
		if !r.opt.Sleep(wait) {
			return
		}
		if every <= 0 {
			continue
		}
		for _, rt := range r.candidates() {
			if !r.due(rt, every) {
				continue
			}
			start := time.Now()
			err := r.snapshot(rt, false)
			switch {
			case errors.Is(err, errSnapAborted):
				return
			case err != nil:
				slog.Warn("periodic vector snapshot failed; the last one stays current", "table", rt.tableID, "index", rt.indexID, "err", err)
			default:
				slog.Debug("periodic vector snapshot", "table", rt.tableID, "index", rt.indexID, "took", time.Since(start))
			}
		}
	}
}

// candidates lists the runtimes of live tables' ready vector indexes.
// Backfilling indexes are skipped: the resumed backfill re-adds every item
// anyway.
func (r *Registry) candidates() []*liveIndex {
	var keys []liveKey
	for _, t := range r.opt.Host.Tables() {
		for _, vx := range t.VectorIndexes() {
			if vx.Backfilling == nil {
				keys = append(keys, liveKey{t.Def().ID, vx.ID})
			}
		}
	}
	out := make([]*liveIndex, 0, len(keys))
	for _, k := range keys {
		if rt := r.runtime(k.table, k.index); rt != nil {
			out = append(out, rt)
		}
	}
	return out
}

// tableLive reports whether rt's table still exists and is not being
// deleted (its keys would otherwise be purged).
func (r *Registry) tableLive(rt *liveIndex) bool {
	for _, t := range r.opt.Host.Tables() {
		if t.Def().ID == rt.tableID {
			return true
		}
	}
	return false
}

func (r *Registry) due(rt *liveIndex, every time.Duration) bool {
	ch := rt.changes.Load()
	if ch <= 0 || time.Since(time.Unix(0, rt.lastSnap.Load())) < every {
		return false
	}
	limit := r.snapChanges.Load()
	if limit <= 0 {
		limit = DefaultSnapshotChanges
	}
	return ch >= min(limit, max(int64(rt.index().Len()/10), 1))
}

// snapshot writes a new snapshot generation of rt. With holding the
// caller already holds every item lock (Close); otherwise they are taken
// for the cut only.
func (r *Registry) snapshot(rt *liveIndex, holding bool) error {
	rt.snapMu.Lock()
	defer rt.snapMu.Unlock()
	if rt.dropped.Load() {
		return nil
	}
	unlock := func() {}
	if !holding {
		unlock = r.opt.Host.LockAll()
	}
	view := rt.index().Freeze()
	cut := rt.marks.Load()
	changes := rt.changes.Swap(0)
	unlock()
	at := time.Now()

	err := r.writeGeneration(rt, view, cut, !holding)
	if err != nil {
		rt.changes.Add(changes)
		return err
	}
	rt.lastSnap.Store(at.UnixNano())
	return nil
}

// writeGeneration stores view as the next generation and clears the
// marks ≤ cut (steps 2 and 3 above). abortable: stop on Close.
func (r *Registry) writeGeneration(rt *liveIndex, view *vector.Frozen, cut uint64, abortable bool) error {
	metaKey := sub(rt.prefix, keyMeta)
	var gen uint64
	if err := r.opt.Host.Commit(false, func(txn storage.Txn) error {
		if m, err := txn.Get(metaKey); err == nil && len(m) == 12 {
			gen = binary.BigEndian.Uint64(m)
		}
		return nil
	}); err != nil {
		return err
	}
	next := gen + 1
	snapBase := sub(rt.prefix, keySnap)
	genPrefix := binary.BigEndian.AppendUint64(bytes.Clone(snapBase), next)
	// Chunks left by an earlier attempt at this generation that crashed or
	// was aborted before its switch.
	if err := r.opt.Host.Purge(genPrefix, binary.BigEndian.AppendUint64(bytes.Clone(snapBase), next+1)); err != nil {
		return err
	}
	stop := func() bool {
		if rt.dropped.Load() {
			return true
		}
		if !abortable {
			return false
		}
		select {
		case <-r.opt.Closing:
			return true
		default:
			return false
		}
	}
	cw := &chunkWriter{store: r.opt.Store, prefix: genPrefix, stop: stop}
	if _, err := view.WriteTo(cw); err != nil {
		cw.commit()
		return err
	}
	if err := cw.flush(); err != nil {
		return err
	}
	if err := cw.commit(); err != nil {
		return err
	}
	if err := snapHook("chunks"); err != nil {
		return err
	}
	if stop() {
		return errSnapAborted
	}
	meta := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, next), cw.chunk)
	if err := r.opt.Host.Commit(true, func(txn storage.Txn) error { return txn.Set(metaKey, meta) }); err != nil {
		return err
	}
	if abortable && !r.tableLive(rt) {
		// The table was deleted while the chunks were written; its purge may
		// have run before them. Only deletes follow, so this cleans up.
		return r.opt.Host.Purge(rt.prefix, append(bytes.Clone(rt.prefix), 0xff))
	}
	if err := snapHook("meta"); err != nil {
		return err
	}
	if err := r.clearMarks(rt, cut); err != nil {
		return err
	}
	if err := snapHook("marks"); err != nil {
		return err
	}
	return r.opt.Host.Purge(snapBase, genPrefix)
}

func snapHook(step string) error {
	if snapHookFn != nil {
		return snapHookFn(step)
	}
	return nil
}

// markSeq decodes a dirty mark's sequence (0 for the empty marks written
// before marks carried one, which predate every cut of this process).
func markSeq(v []byte) uint64 {
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// maxMark is the largest stored mark sequence of the index at prefix.
// Open continues the sequence from it, so a mark written after a cut can
// never carry a sequence at or below that cut.
func maxMark(snap storage.Reader, prefix []byte) (uint64, error) {
	it, err := snap.NewIterator(storage.IterOptions{Lower: sub(prefix, keyDirty), Upper: sub(prefix, keyDirty+1)})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var m uint64
	for it.Next() {
		m = max(m, markSeq(it.Value()))
	}
	return m, it.Err()
}

// clearMarks deletes the dirty marks with sequence ≤ cut, in chunks.
// A chunk whose transaction conflicts with a concurrent write (which rewrote
// one of its marks) is re-read; after a few conflicts the rest is left for
// the next snapshot, which is only redundant replay work.
func (r *Registry) clearMarks(rt *liveIndex, cut uint64) error {
	lower := sub(rt.prefix, keyDirty)
	upper := sub(rt.prefix, keyDirty+1)
	for {
		var next []byte
		var err error
		for attempt := 0; attempt < 8; attempt++ {
			next = nil
			err = r.opt.Host.Commit(false, func(txn storage.Txn) error {
				it, err := txn.NewIterator(storage.IterOptions{Lower: lower, Upper: upper})
				if err != nil {
					return err
				}
				var keys [][]byte
				n := 0
				for it.Next() {
					if n++; n > purgeChunks {
						next = bytes.Clone(it.Key())
						break
					}
					if markSeq(it.Value()) <= cut {
						keys = append(keys, bytes.Clone(it.Key()))
					}
				}
				err = it.Err()
				it.Close()
				if err != nil {
					return err
				}
				for _, k := range keys {
					// The read makes a concurrent rewrite of k conflict.
					if v, err := txn.Get(k); err != nil || markSeq(v) > cut {
						continue
					}
					if err := txn.Delete(k); err != nil {
						return err
					}
				}
				return nil
			})
			if !errors.Is(err, storage.ErrConflict) {
				break
			}
		}
		if errors.Is(err, storage.ErrConflict) {
			return nil // busy marks: the next snapshot clears them
		}
		if err != nil || next == nil {
			return err
		}
		lower = next
	}
}

// chunkWriter writes a snapshot as chunks, several per transaction.
type chunkWriter struct {
	store  storage.Store
	prefix []byte
	chunk  uint32
	buf    []byte
	txn    storage.Txn
	inTxn  int
	stop   func() bool // nil: never abort
}

func (c *chunkWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(snapSize-len(c.buf), len(p))
		c.buf = append(c.buf, p[:k]...)
		p = p[k:]
		if len(c.buf) == snapSize {
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
	if c.stop != nil && c.stop() {
		return errSnapAborted
	}
	if c.txn == nil {
		txn, err := c.store.Begin()
		if err != nil {
			return err
		}
		c.txn = txn
	}
	if err := c.txn.Set(binary.BigEndian.AppendUint32(bytes.Clone(c.prefix), c.chunk), c.buf); err != nil {
		return err
	}
	c.chunk++
	c.buf = make([]byte, 0, snapSize)
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

// Close snapshots every vector index (the engine's Close, after the
// periodic snapshotter stopped; not in cluster mode). It holds every item lock throughout, so
// the snapshots cover every committed write.
func (r *Registry) Close() error {
	if r.opt.Cluster {
		return nil // no snapshots: each node rebuilds at Open (follow.go)
	}
	r.mu.RLock()
	list := make([]*liveIndex, 0, len(r.rt))
	for _, rt := range r.rt {
		list = append(list, rt)
	}
	r.mu.RUnlock()
	if len(list) == 0 {
		return nil
	}
	defer r.opt.Host.LockAll()()
	var first error
	for _, rt := range list {
		if err := r.snapshot(rt, true); err != nil && first == nil {
			first = err
		}
	}
	return first
}
