package vectors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"runtime"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/vector"
)

// load restores rt from storage.
func (r *Registry) load(vx *Index, rt *liveIndex) error {
	snap, err := r.opt.Store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	// Next ID: one past the largest mapped ID.
	it, err := snap.NewIterator(storage.IterOptions{Lower: sub(rt.prefix, KeyID), Upper: sub(rt.prefix, KeyID+1), Reverse: true})
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
	// clearMarks).
	marks, err := maxMark(snap, rt.prefix)
	if err != nil {
		return err
	}
	rt.marks.Store(marks)
	meta, err := snap.Get(sub(rt.prefix, keyMeta))
	if errors.Is(err, storage.ErrNotFound) || err == nil && len(meta) != 12 {
		if vx.Backfilling != nil {
			return nil // the resumed backfill fills it
		}
		return r.rebuild(snap, vx, rt)
	}
	if err != nil {
		return err
	}
	gen := binary.BigEndian.Uint64(meta)
	chunks := binary.BigEndian.Uint32(meta[8:])
	idx, err := vector.Load(&chunkReader{snap: snap, prefix: binary.BigEndian.AppendUint64(sub(rt.prefix, keySnap), gen), end: chunks})
	if err != nil {
		slog.Warn("vector snapshot unreadable; rebuilding from the table", "table", rt.tableID, "index", vx.Name, "err", err)
		return r.rebuild(snap, vx, rt)
	}
	// The snapshot keeps its quantiser (trained ranges included);
	// SetQuantization, called after Open, switches it only if the
	// setting changed.
	rt.idx.Store(idx)
	// Replay every ID changed since the snapshot.
	dit, err := snap.NewIterator(storage.IterOptions{Lower: sub(rt.prefix, keyDirty), Upper: sub(rt.prefix, keyDirty+1)})
	if err != nil {
		return err
	}
	defer dit.Close()
	n := 0
	for dit.Next() {
		k := dit.Key()
		id := binary.BigEndian.Uint64(k[len(k)-8:])
		if err := r.replay(snap, vx, rt, id); err != nil {
			return err
		}
		n++
	}
	if n > 0 {
		slog.Info("vector index replayed changes since its snapshot", "table", rt.tableID, "index", vx.Name, "changes", n)
	}
	// Replayed changes count towards the next periodic snapshot, so that a
	// long replay is not repeated after another crash.
	rt.changes.Store(int64(n))
	return dit.Err()
}

// replay makes the index entry of id agree with the table.
func (r *Registry) replay(snap storage.Reader, vx *Index, rt *liveIndex, id uint64) error {
	key, err := snap.Get(idKey(rt.prefix, KeyID, id))
	if errors.Is(err, storage.ErrNotFound) {
		rt.index().Delete(id)
		return nil
	}
	if err != nil {
		return err
	}
	it, err := r.opt.Host.ReadItem(snap, key, nil)
	if err != nil {
		return err
	}
	if v, a, ok := vx.entry(it); ok {
		return rt.index().Add(id, v, a)
	}
	rt.index().Delete(id)
	return nil
}

// rebuild fills rt from every mapped item (used when there is no
// snapshot: the mapping covers every indexed item).
func (r *Registry) rebuild(snap storage.Reader, vx *Index, rt *liveIndex) error {
	if err := r.rebuildInto(snap, vx, rt.prefix, rt.index()); err != nil {
		return err
	}
	// Make the index due for a periodic snapshot, so that another crash
	// does not repeat the rebuild.
	rt.changes.Store(int64(rt.index().Len()))
	return nil
}

// rebuildInto adds every item mapped under prefix to idx, in batches that
// plan neighbours on every core (vector.Index.AddBatch).
func (r *Registry) rebuildInto(snap storage.Reader, vx *Index, prefix []byte, idx *vector.Index) error {
	it, err := snap.NewIterator(storage.IterOptions{Lower: sub(prefix, KeyID), Upper: sub(prefix, KeyID+1)})
	if err != nil {
		return err
	}
	defer it.Close()
	const batch = 4096
	items := make([]vector.BatchItem, 0, batch)
	flush := func() error {
		err := idx.AddBatch(items, runtime.GOMAXPROCS(0))
		items = items[:0]
		return err
	}
	for it.Next() {
		k := it.Key()
		id := binary.BigEndian.Uint64(k[len(k)-8:])
		item, err := r.opt.Host.ReadItem(snap, it.Value(), nil)
		if err != nil {
			return err
		}
		if v, a, ok := vx.entry(item); ok {
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
	return flush()
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
