package indexes

import (
	"encoding/binary"
	"sync"
	"sync/atomic"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/snapshot"
)

// Overhead is the per-entry overhead DynamoDB counts in an index's size
// (IndexSizeBytes, item collection sizes).
const Overhead = 100

// EntrySize is the size DynamoDB counts for one index entry.
func EntrySize(entry attr.Item) int64 {
	return int64(attr.ItemSize(entry)) + Overhead
}

// Figures are one index's ItemCount and IndexSizeBytes. A backfill that has
// not reached every item yet lets them drift (see the backfill's settle);
// readers clamp them at zero.
type Figures struct {
	Items, Bytes atomic.Int64
}

// Stats holds the Figures of every index of one table by index ID, one
// value shared by every version of the table (the core keeps it with the
// table's own statistics).
type Stats struct {
	m sync.Map // uint32 → *Figures
}

// Of returns the figures of index id, creating them at zero.
func (s *Stats) Of(id uint32) *Figures {
	if v, ok := s.m.Load(id); ok {
		return v.(*Figures)
	}
	v, _ := s.m.LoadOrStore(id, &Figures{})
	return v.(*Figures)
}

// Forget drops the figures of a purged index.
func (s *Stats) Forget(id uint32) { s.m.Delete(id) }

// Per-index statistics saved by a clean Close, next to the table's:
//
//	"m" "istats/" tableID(8) → { indexID(4) ItemCount(8) IndexSizeBytes(8) }…

// StatsKey is the storage key of a table's saved index statistics.
func StatsKey(tableID uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte("mistats/"), tableID)
}

// Encode is the saved form of the figures of the indexes in l.
func (s *Stats) Encode(l *Live) []byte {
	var v []byte
	for _, ix := range l.List {
		f := s.Of(ix.ID)
		v = binary.BigEndian.AppendUint32(v, ix.ID)
		v = binary.BigEndian.AppendUint64(v, uint64(f.Items.Load()))
		v = binary.BigEndian.AppendUint64(v, uint64(f.Bytes.Load()))
	}
	return v
}

// Restore loads the figures Encode saved and returns the IDs of the
// indexes it restored; an unreadable value restores none (they are
// recounted).
func (s *Stats) Restore(v []byte) []uint32 {
	if len(v)%20 != 0 {
		return nil
	}
	var ids []uint32
	for ; len(v) > 0; v = v[20:] {
		id := binary.BigEndian.Uint32(v)
		f := s.Of(id)
		f.Items.Store(int64(binary.BigEndian.Uint64(v[4:])))
		f.Bytes.Store(int64(binary.BigEndian.Uint64(v[12:])))
		ids = append(ids, id)
	}
	return ids
}

// Recount replaces the figures of index ref by a count of its entries
// (Count) in the snapshot take returns, keeping what writes record
// meanwhile: take calls mark when the figures the snapshot's count
// replaces are to be read (just before it takes the snapshot, or under
// every item lock with it), and the count then replaces exactly those. A
// count stopped (stop) or failed leaves the figures as they were and
// reports false (with the error, if any).
func (s *Stats) Recount(ref Ref, take func(mark func()) (*snapshot.Reader, error), size func(stored []byte) int64, stop func() bool) (bool, error) {
	f := s.Of(ref.Index)
	var i0, b0 int64
	r, err := take(func() { i0, b0 = f.Items.Load(), f.Bytes.Load() })
	if err != nil {
		return false, err
	}
	defer r.Close()
	items, bytes, done, err := Count(r, ref, size, stop)
	if !done || err != nil {
		return false, err
	}
	f.Items.Add(items - i0)
	f.Bytes.Add(bytes - b0)
	return true, nil
}
