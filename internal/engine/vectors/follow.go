package vectors

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/vector"
)

// Several nodes (Options.Cluster): every node holds its own copy of each
// graph and follows the other nodes' changes through a change log in the
// store (doc.go, "Several nodes", says why and what it costs).
//
// Keys, under the index's prefix P (store.go), in cluster mode only:
//
//	P 'c'                   → next(8)   the shared vector-ID counter (blocks of idBlock)
//	P 'o' origin(8)         → stamp(8)  a node (a Registry's random origin) that wrote the log
//	P 'w' origin(8) e(8)    → stamp(8)  epoch e of origin is closed
//	P 'l' origin(8) e(8) id → 1 byte    vector id changed in epoch e through origin
//
// A write of an indexed item stages, in the item's own transaction, its
// mapping (as with one node) and a log entry under the current epoch of its
// node (epochLength of the node's clock), after reading that epoch's
// closing key with Get. The node closes each epoch it staged entries in
// (writes its closing key) closeDelay after the epoch ended; the Get makes
// every attempt of that epoch still uncommitted then conflict, and retry in
// a later epoch. So once an epoch's closing key is visible, every entry of
// that epoch that will ever commit is visible too, and a node that read
// the log of an origin up to its last closed epoch never needs to read
// those epochs again. Epochs are closed in order; a node that finds an
// origin's entries past its last closed epoch for fenceAfter longer (the
// origin died, or is stuck) closes them itself, which fences that origin's
// late commits the same way.
//
// A follower replays the IDs of the entries it reads from the table (the
// item the mapping names now, or none): idempotent, so order and repeats do
// not matter, and an item written through several nodes ends as the
// table holds it. The log is trimmed (one node at a time: Options.Lease)
// after logRetention; a node that has not followed for half of it reloads
// the index from the mapping instead.
var (
	epochLength  = 100 * time.Millisecond
	closeDelay   = 400 * time.Millisecond
	fenceAfter   = 2 * time.Second
	followEvery  = 100 * time.Millisecond
	logRetention = 2 * time.Minute
	trimEvery    = 15 * time.Second
)

const (
	keyCounter = 'c'
	keyOrigin  = 'o'
	keyClosed  = 'w'
	keyLog     = 'l'
	idBlock    = 256 // vector IDs a node reserves at a time
	maxFence   = 160 // epochs one fence closes at most (16 s of an origin's work)
	replayStep = 256 // IDs replayed under one set of item locks
)

// LeaseLog is the name of the lease under which one node trims the logs.
const LeaseLog = "vectorlog"

// clusterState is a liveIndex's state in cluster mode.
type clusterState struct {
	table string
	def   *Index

	// loaded is false until the graph was built from the mapping; until
	// then the IDs this node's own writes changed are collected in touched
	// and replayed after the build (apply).
	lmu     sync.RWMutex
	loaded  bool
	tmu     sync.Mutex
	touched map[uint64]bool

	idMu          sync.Mutex
	idNext, idEnd uint64 // the reserved block (idNext, idEnd]

	emu      sync.Mutex
	staged   map[uint64]bool // epochs staged in and not closed yet
	closedTo uint64          // this node closed every epoch ≤ closedTo
	regMu    sync.Mutex
	regAt    atomic.Int64 // unix ns of this node's last write of its origin key

	fmu      sync.Mutex        // one follow (or load) at a time
	cursors  map[uint64]uint64 // origin → last closed epoch replayed
	followed time.Time
}

func newOrigin() uint64 {
	var b [8]byte
	for {
		_, _ = rand.Read(b[:])
		if o := binary.BigEndian.Uint64(b[:]); o != 0 && o != ^uint64(0) {
			return o
		}
	}
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func originKey(p []byte, o uint64) []byte { return binary.BigEndian.AppendUint64(sub(p, keyOrigin), o) }

func closedKey(p []byte, o, e uint64) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(sub(p, keyClosed), o), e)
}

func logKey(p []byte, o, e uint64) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(sub(p, keyLog), o), e)
}

func (r *Registry) epochOf(t time.Time) uint64 {
	return uint64(t.UnixMilli()) / uint64(epochLength.Milliseconds())
}

func epochEnd(e uint64) time.Time {
	return time.UnixMilli(int64((e + 1) * uint64(epochLength.Milliseconds())))
}

// stageCluster is stageItem in cluster mode: the mapping with an ID from
// the shared counter, and a log entry in the current epoch.
func (r *Registry) stageCluster(txn storage.Txn, rt *liveIndex, itemKey []byte, indexed bool) error {
	cl := rt.cl
	if err := r.register(rt); err != nil {
		return err
	}
	now := r.opt.Now()
	cl.emu.Lock()
	e := max(r.epochOf(now), cl.closedTo+1)
	cl.staged[e] = true
	cl.emu.Unlock()
	switch _, err := txn.Get(closedKey(rt.prefix, r.origin, e)); {
	case err == nil:
		// Closed by another node's fence: retry in a later epoch.
		cl.emu.Lock()
		cl.closedTo = max(cl.closedTo, e)
		cl.emu.Unlock()
		return storage.ErrConflict
	case !errors.Is(err, storage.ErrNotFound):
		return err
	}
	id, del, err := r.stageMapping(txn, rt, itemKey, indexed)
	if err != nil || id == 0 {
		return err
	}
	if err := txn.Set(binary.BigEndian.AppendUint64(logKey(rt.prefix, r.origin, e), id), []byte{1}); err != nil {
		return err
	}
	rt.setPending(itemKey, op{id: id, del: del})
	return nil
}

// register writes this node's origin key (in a transaction of its own,
// before the first entry that needs it commits) when it was not written
// for half the log's retention: the trimmer removes the keys of origins
// idle for longer than the retention.
func (r *Registry) register(rt *liveIndex) error {
	cl := rt.cl
	due := func() bool { return time.Duration(r.opt.Now().UnixNano()-cl.regAt.Load()) > logRetention/2 }
	if !due() {
		return nil
	}
	cl.regMu.Lock()
	defer cl.regMu.Unlock()
	if !due() {
		return nil
	}
	now := r.opt.Now()
	if err := r.commitRetry(func(txn storage.Txn) error {
		return txn.Set(originKey(rt.prefix, r.origin), u64(uint64(now.UnixNano())))
	}); err != nil {
		return err
	}
	cl.regAt.Store(now.UnixNano())
	return nil
}

// commitRetry is Host.Commit retried on conflicts.
func (r *Registry) commitRetry(f func(storage.Txn) error) error {
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		if err = r.opt.Host.Commit(false, f); !errors.Is(err, storage.ErrConflict) {
			return err
		}
		time.Sleep(time.Duration(attempt) * 100 * time.Microsecond)
	}
	return err
}

// allocShared is a new vector ID from this node's block, reserving the
// next block from the shared counter when it is used up. The counter
// starts above every mapped ID (a store written by one server before).
func (r *Registry) allocShared(rt *liveIndex) (uint64, error) {
	cl := rt.cl
	cl.idMu.Lock()
	defer cl.idMu.Unlock()
	if cl.idNext < cl.idEnd {
		cl.idNext++
		return cl.idNext, nil
	}
	var base uint64
	err := r.commitRetry(func(txn storage.Txn) error {
		key := sub(rt.prefix, keyCounter)
		base = 0
		if b, err := txn.Get(key); err == nil && len(b) == 8 {
			base = binary.BigEndian.Uint64(b)
		} else if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		m, err := maxMapped(txn, rt.prefix)
		if err != nil {
			return err
		}
		base = max(base, m)
		return txn.Set(key, u64(base+idBlock))
	})
	if err != nil {
		return 0, err
	}
	cl.idNext, cl.idEnd = base+1, base+idBlock
	return cl.idNext, nil
}

// maxMapped is the largest mapped vector ID of the index at prefix.
func maxMapped(rd storage.Reader, prefix []byte) (uint64, error) {
	it, err := rd.NewIterator(storage.IterOptions{Lower: sub(prefix, KeyID), Upper: sub(prefix, KeyID+1), Reverse: true})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var m uint64
	if it.Next() {
		k := it.Key()
		m = binary.BigEndian.Uint64(k[len(k)-8:])
	}
	return m, it.Err()
}

// apply changes the graph for one ID; in cluster mode, while the graph is
// still being built, it only notes the ID for the build to replay.
func (r *Registry) apply(rt *liveIndex, id uint64, v []float32, a *vector.Attrs, del bool) {
	if cl := rt.cl; cl != nil {
		cl.lmu.RLock()
		defer cl.lmu.RUnlock()
		if !cl.loaded {
			cl.tmu.Lock()
			cl.touched[id] = true
			cl.tmu.Unlock()
			return
		}
	}
	if del {
		rt.index().Delete(id)
		return
	}
	rt.index().Add(id, v, a)
}

// ensure is the runtime of vx in cluster mode, created (not loaded yet)
// when this node had none: another node created the index, or the table.
func (r *Registry) ensure(table string, tableID uint64, vx *Index) *liveIndex {
	if rt := r.runtime(tableID, vx.ID); rt != nil || !r.opt.Cluster {
		return rt
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt := r.rt[liveKey{tableID, vx.ID}]; rt != nil {
		return rt
	}
	idx, err := newIndex(vx, r.quant)
	if err != nil {
		return nil
	}
	rt := r.newLive(table, tableID, vx, idx, false)
	r.rt[liveKey{tableID, vx.ID}] = rt
	return rt
}

// loaded builds rt's graph here and now when it is a cluster node's and not
// built yet (a search of an index this node learnt of a moment ago).
func (r *Registry) loaded(rt *liveIndex) error {
	if rt == nil || rt.cl == nil {
		return nil
	}
	rt.cl.lmu.RLock()
	ok := rt.cl.loaded
	rt.cl.lmu.RUnlock()
	if ok {
		return nil
	}
	return r.follow(rt)
}

func newClusterState(table string, vx *Index, loaded bool) *clusterState {
	return &clusterState{table: table, def: vx, loaded: loaded, touched: map[uint64]bool{},
		staged: map[uint64]bool{}, cursors: map[uint64]uint64{}}
}

// clusterLoop closes this node's epochs, follows the other nodes' logs,
// forgets indexes deleted elsewhere and, under the lease, trims the logs.
func (r *Registry) clusterLoop() {
	var trimmed time.Time
	for r.opt.Sleep(followEvery) {
		list := r.all()
		for _, rt := range list {
			r.closeEpochs(rt, false)
		}
		for _, rt := range list {
			if !r.stillDefined(rt) {
				r.forget(rt)
				continue
			}
			if err := r.follow(rt); err != nil {
				slog.Warn("following a vector index's log", "table", rt.tableID, "index", rt.indexID, "err", err)
			}
		}
		if now := r.opt.Now(); now.Sub(trimmed) >= trimEvery && r.opt.Lease != nil && r.opt.Lease() {
			trimmed = now
			r.trim()
		}
	}
	for _, rt := range r.all() {
		r.closeEpochs(rt, true)
	}
}

func (r *Registry) all() []*liveIndex {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*liveIndex, 0, len(r.rt))
	for _, rt := range r.rt {
		out = append(out, rt)
	}
	return out
}

// stillDefined reports whether rt's table still has its index.
func (r *Registry) stillDefined(rt *liveIndex) bool {
	t, ok := r.opt.Host.Table(rt.cl.table, rt.tableID)
	return ok && byID(t.VectorIndexes(), rt.indexID) != nil
}

// forget drops the runtime of an index another node deleted (that node
// purges its storage).
func (r *Registry) forget(rt *liveIndex) {
	r.mu.Lock()
	if r.rt[liveKey{rt.tableID, rt.indexID}] == rt {
		delete(r.rt, liveKey{rt.tableID, rt.indexID})
	}
	r.mu.Unlock()
}

// closeEpochs writes the closing keys of the epochs this node staged in
// that ended closeDelay ago (all of them at Close), oldest first, stopping
// at the first that fails (the next round retries it).
func (r *Registry) closeEpochs(rt *liveIndex, all bool) {
	cl := rt.cl
	now := r.opt.Now()
	cl.emu.Lock()
	var due []uint64
	for e := range cl.staged {
		if all || !now.Before(epochEnd(e).Add(closeDelay)) {
			due = append(due, e)
		}
	}
	cl.emu.Unlock()
	slices.Sort(due)
	for _, e := range due {
		err := r.opt.Host.Commit(false, func(txn storage.Txn) error {
			if err := closeIn(txn, rt.prefix, r.origin, e, now); err != nil {
				return err
			}
			return txn.Set(originKey(rt.prefix, r.origin), u64(uint64(now.UnixNano())))
		})
		if err != nil {
			if !errors.Is(err, storage.ErrConflict) {
				slog.Warn("closing a vector log epoch", "table", rt.tableID, "index", rt.indexID, "err", err)
			}
			return
		}
		cl.regAt.Store(now.UnixNano())
		cl.emu.Lock()
		delete(cl.staged, e)
		cl.closedTo = max(cl.closedTo, e)
		cl.emu.Unlock()
	}
}

// closeIn writes epoch e's closing key of origin o unless it exists.
func closeIn(txn storage.Txn, prefix []byte, o, e uint64, now time.Time) error {
	k := closedKey(prefix, o, e)
	if _, err := txn.Get(k); err == nil {
		return nil
	} else if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	return txn.Set(k, u64(uint64(now.UnixNano())))
}

// follow brings rt up to date with the other nodes' closed epochs (or
// builds it from the mapping when it is not loaded or fell behind the
// log's retention).
func (r *Registry) follow(rt *liveIndex) error {
	cl := rt.cl
	cl.fmu.Lock()
	defer cl.fmu.Unlock()
	cl.lmu.RLock()
	loaded := cl.loaded
	cl.lmu.RUnlock()
	now := r.opt.Now()
	if !loaded || now.Sub(cl.followed) > logRetention/2 {
		return r.loadCluster(rt)
	}
	snap, err := r.opt.Store.NewSnapshot()
	if err != nil {
		return err
	}
	ids := map[uint64]bool{}
	next := map[uint64]uint64{}
	type fence struct{ o, from, to uint64 }
	var fences []fence
	err = eachOrigin(snap, rt.prefix, func(o uint64) error {
		if o == r.origin {
			return nil // applied at Committed
		}
		cur := cl.cursors[o]
		last, err := lastClosed(snap, rt.prefix, o)
		if err != nil {
			return err
		}
		last = max(last, cur)
		if last > cur {
			if err := logIDs(snap, rt.prefix, o, cur+1, last+1, ids); err != nil {
				return err
			}
		}
		next[o] = last
		e, ok, err := firstEntry(snap, rt.prefix, o, last+1)
		if err != nil {
			return err
		}
		if ok && now.After(epochEnd(e).Add(closeDelay+fenceAfter)) {
			fences = append(fences, fence{o, max(last+1, e-min(e, maxFence-1)), e})
		}
		return nil
	})
	snap.Close()
	if err != nil {
		return err
	}
	if err := r.replayIDs(rt, ids); err != nil {
		return err
	}
	for _, f := range fences {
		slog.Info("closing another node's vector log epochs it left open", "table", rt.tableID, "index", rt.indexID, "origin", f.o, "epochs", f.to-f.from+1)
		if err := r.opt.Host.Commit(false, func(txn storage.Txn) error {
			for e := f.from; e <= f.to; e++ {
				if err := closeIn(txn, rt.prefix, f.o, e, now); err != nil {
					return err
				}
			}
			return nil
		}); err != nil && !errors.Is(err, storage.ErrConflict) {
			return err
		}
	}
	cl.cursors = next
	cl.followed = now
	return nil
}

// loadCluster builds rt's graph from the mapping as a snapshot holds it,
// then replays what this node's own writes changed meanwhile. The cursors
// start at each origin's last closed epoch in the snapshot: every entry of
// those epochs committed before it.
func (r *Registry) loadCluster(rt *liveIndex) error {
	cl := rt.cl
	cl.lmu.Lock()
	cl.loaded = false
	cl.lmu.Unlock()
	snap, err := r.opt.Store.NewSnapshot()
	if err != nil {
		return err
	}
	r.mu.RLock()
	q := r.quant
	r.mu.RUnlock()
	idx, err := newIndex(cl.def, q)
	if err == nil {
		err = r.rebuildInto(snap, cl.def, rt.prefix, idx)
	}
	cursors := map[uint64]uint64{}
	if err == nil {
		err = eachOrigin(snap, rt.prefix, func(o uint64) error {
			last, err := lastClosed(snap, rt.prefix, o)
			cursors[o] = last
			return err
		})
	}
	snap.Close()
	if err != nil {
		return err
	}
	cl.lmu.Lock()
	rt.idx.Store(idx)
	cl.loaded = true
	cl.tmu.Lock()
	touched := cl.touched
	cl.touched = map[uint64]bool{}
	cl.tmu.Unlock()
	cl.lmu.Unlock()
	cl.cursors = cursors
	cl.followed = r.opt.Now()
	return r.replayIDs(rt, touched)
}

// replayIDs makes the graph's entries of ids agree with the table: each is
// read, under its item's lock, from a snapshot taken after the lock (so no
// write of this node is between its commit and its Committed).
func (r *Registry) replayIDs(rt *liveIndex, ids map[uint64]bool) error {
	list := make([]uint64, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	slices.Sort(list)
	for len(list) > 0 {
		n := min(len(list), replayStep)
		if err := r.replayStep(rt, list[:n]); err != nil {
			return err
		}
		list = list[n:]
	}
	return nil
}

func (r *Registry) replayStep(rt *liveIndex, ids []uint64) error {
	snap, err := r.opt.Store.NewSnapshot()
	if err != nil {
		return err
	}
	var keys [][]byte
	for _, id := range ids {
		k, err := snap.Get(idKey(rt.prefix, KeyID, id))
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			snap.Close()
			return err
		}
		if k != nil {
			keys = append(keys, k)
		}
	}
	snap.Close()
	defer r.opt.Host.LockItems(keys)()
	snap, err = r.opt.Store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	for _, id := range ids {
		k, err := snap.Get(idKey(rt.prefix, KeyID, id))
		if errors.Is(err, storage.ErrNotFound) {
			r.apply(rt, id, nil, nil, true)
			continue
		}
		if err != nil {
			return err
		}
		item, err := r.opt.Host.ReadItem(snap, k, nil)
		if err != nil {
			return err
		}
		v, a, ok := rt.cl.def.entry(item)
		r.apply(rt, id, v, a, !ok)
	}
	return nil
}

// eachOrigin calls f with every origin registered in the index at prefix.
func eachOrigin(rd storage.Reader, prefix []byte, f func(o uint64) error) error {
	it, err := rd.NewIterator(storage.IterOptions{Lower: sub(prefix, keyOrigin), Upper: sub(prefix, keyOrigin+1)})
	if err != nil {
		return err
	}
	var origins []uint64
	for it.Next() {
		k := it.Key()
		origins = append(origins, binary.BigEndian.Uint64(k[len(k)-8:]))
	}
	err = it.Err()
	it.Close()
	if err != nil {
		return err
	}
	for _, o := range origins {
		if err := f(o); err != nil {
			return err
		}
	}
	return nil
}

// lastClosed is origin o's last closed epoch (0: none).
func lastClosed(rd storage.Reader, prefix []byte, o uint64) (uint64, error) {
	it, err := rd.NewIterator(storage.IterOptions{Lower: closedKey(prefix, o, 0), Upper: closedKey(prefix, o+1, 0), Reverse: true})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var e uint64
	if it.Next() {
		k := it.Key()
		e = binary.BigEndian.Uint64(k[len(k)-8:])
	}
	return e, it.Err()
}

// logIDs adds the IDs of origin o's entries of epochs [from, to) to ids.
func logIDs(rd storage.Reader, prefix []byte, o, from, to uint64, ids map[uint64]bool) error {
	it, err := rd.NewIterator(storage.IterOptions{Lower: logKey(prefix, o, from), Upper: logKey(prefix, o, to)})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
		k := it.Key()
		ids[binary.BigEndian.Uint64(k[len(k)-8:])] = true
	}
	return it.Err()
}

// firstEntry is the epoch of origin o's first entry at or after epoch from.
func firstEntry(rd storage.Reader, prefix []byte, o, from uint64) (uint64, bool, error) {
	it, err := rd.NewIterator(storage.IterOptions{Lower: logKey(prefix, o, from), Upper: logKey(prefix, o+1, 0)})
	if err != nil {
		return 0, false, err
	}
	defer it.Close()
	if !it.Next() {
		return 0, false, it.Err()
	}
	k := it.Key()
	return binary.BigEndian.Uint64(k[len(k)-16:]), true, nil
}

// trim deletes the log older than logRetention in every vector index of
// the tables (the catalog synced first), and the origin keys of nodes
// that left nothing newer. One node at a time runs it (Options.Lease).
func (r *Registry) trim() {
	if r.opt.Sync != nil {
		r.opt.Sync()
	}
	now := r.opt.Now()
	cutoff := r.epochOf(now.Add(-logRetention))
	for _, t := range r.opt.Host.Tables() {
		for _, vx := range t.VectorIndexes() {
			if err := r.trimIndex(r.opt.Prefix(t.Def().ID, vx.ID), cutoff, now); err != nil {
				slog.Warn("trimming a vector index's log", "table", t.Def().Name, "index", vx.Name, "err", err)
			}
		}
	}
}

func (r *Registry) trimIndex(prefix []byte, cutoff uint64, now time.Time) error {
	snap, err := r.opt.Store.NewSnapshot()
	if err != nil {
		return err
	}
	var origins []uint64
	err = eachOrigin(snap, prefix, func(o uint64) error { origins = append(origins, o); return nil })
	snap.Close()
	if err != nil {
		return err
	}
	for _, o := range origins {
		if err := r.opt.Host.Purge(logKey(prefix, o, 0), logKey(prefix, o, cutoff)); err != nil {
			return err
		}
		if err := r.opt.Host.Purge(closedKey(prefix, o, 0), closedKey(prefix, o, cutoff)); err != nil {
			return err
		}
		err := r.opt.Host.Commit(false, func(txn storage.Txn) error {
			v, err := txn.Get(originKey(prefix, o))
			if err != nil || len(v) != 8 || now.Sub(time.Unix(0, int64(binary.BigEndian.Uint64(v)))) < logRetention {
				return nil
			}
			for _, kind := range []byte{keyLog, keyClosed} {
				lo := binary.BigEndian.AppendUint64(sub(prefix, kind), o)
				it, err := txn.NewIterator(storage.IterOptions{Lower: lo, Upper: binary.BigEndian.AppendUint64(sub(prefix, kind), o+1)})
				if err != nil {
					return err
				}
				left := it.Next()
				err = it.Err()
				it.Close()
				if err != nil || left {
					return err
				}
			}
			return txn.Delete(originKey(prefix, o))
		})
		if err != nil && !errors.Is(err, storage.ErrConflict) {
			return err
		}
	}
	return nil
}

// invalidateSnapshots removes an index's snapshot and dirty marks (cluster
// mode keeps neither), so that a single server opening the store later
// rebuilds from the mapping instead of loading a snapshot older than the
// cluster's writes.
func (r *Registry) invalidateSnapshots(rt *liveIndex) error {
	if err := r.opt.Host.Commit(true, func(txn storage.Txn) error {
		return txn.Delete(sub(rt.prefix, keyMeta))
	}); err != nil {
		return err
	}
	for _, kind := range []byte{keySnap, keyDirty} {
		if err := r.opt.Host.Purge(sub(rt.prefix, kind), sub(rt.prefix, kind+1)); err != nil {
			return err
		}
	}
	return nil
}
