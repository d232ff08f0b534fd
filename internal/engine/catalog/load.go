package catalog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"time"

	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/storage"
)

// Loaded is what Load read of the catalog.
type Loaded struct {
	// Records are the table records, in name order, settled at the
	// time Load was given.
	Records []*Record
	// Clean is whether the last Close was clean: then Counts holds the
	// statistics it saved (by table ID; tables without any are absent),
	// and the index statistics next to them are valid too.
	Clean  bool
	Counts map[uint64]Counts
	// Purges are the deleted tables whose ranges are still to be purged.
	Purges []Purge
}

// Counts are a table's ItemCount and TableSizeBytes.
type Counts struct{ Items, Bytes int64 }

// Purge is a deleted table whose ranges are still being removed;
// KeepItems leaves its items to the system backup that holds them.
type Purge struct {
	ID        uint64
	KeepItems bool
}

// Counted is the IDs of the loaded tables whose statistics a recount
// counts: all but the DELETING ones.
func (l *Loaded) Counted() []uint64 {
	ids := make([]uint64, 0, len(l.Records))
	for _, rec := range l.Records {
		if rec.Status != tables.StatusDeleting {
			ids = append(ids, rec.ID)
		}
	}
	return ids
}

// Load reads, from snap, every table record (settled at now), the ID
// counter, the statistics of a clean Close and the pending purges. The
// next IDs allocated are past every ID found.
func (c *Catalog) Load(snap storage.Snapshot, now time.Time) (*Loaded, error) {
	if v, err := snap.Get(NextIDKey); err == nil {
		if len(v) != 8 {
			return nil, errors.New("engine: corrupt table ID counter")
		}
		c.next = binary.BigEndian.Uint64(v)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return nil, err
	}
	l := &Loaded{}
	err := Each(snap, func(rec *Record) error {
		rec.Settle(now)
		l.Records = append(l.Records, rec)
		c.Allocated(rec.ID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if _, err := snap.Get(CleanKey); err == nil {
		l.Clean = true
	} else if !errors.Is(err, storage.ErrNotFound) {
		return nil, err
	}
	if l.Clean {
		l.Counts = map[uint64]Counts{}
		for _, rec := range l.Records {
			if n, ok, err := ReadCounts(snap, rec.ID); err == nil && ok {
				l.Counts[rec.ID] = n
			}
		}
	}
	if l.Purges, err = c.loadPurges(snap); err != nil {
		return nil, err
	}
	return l, nil
}

func (c *Catalog) loadPurges(snap storage.Snapshot) ([]Purge, error) {
	it, err := snap.NewIterator(storage.IterOptions{Lower: []byte(purgePrefix), Upper: []byte("mpurge0")})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var purges []Purge
	for it.Next() {
		if k := it.Key(); len(k) == len(purgePrefix)+8 {
			p := Purge{binary.BigEndian.Uint64(k[len(purgePrefix):]), bytes.Equal(it.Value(), PurgeKeepItems)}
			purges = append(purges, p)
			c.Allocated(p.ID)
		}
	}
	return purges, it.Err()
}

// Unclean drops the clean marker Load found: from now on the stored
// statistics are stale until the next SaveStats. No fsync of its own:
// commits become durable in order (storage.Txn.Commit), so a crash that
// keeps any later write keeps this delete too, and one that loses it lost
// every later write (the statistics still hold). It may use the store's
// reserve, so that a restart on a nearly full disk serves reads.
func (c *Catalog) Unclean() error {
	return c.Commit(storage.CommitOptions{Reserve: true}, func(txn storage.Txn) error { return txn.Delete(CleanKey) })
}

// Stats are one table's statistics as Close saves them.
type Stats struct {
	ID uint64
	Counts
	// Indexes is the table's index statistics, encoded (indexes.Stats).
	Indexes []byte
}

// SaveStats persists every table's statistics and the clean marker, in
// one durable commit. A few bytes per table: the store's reserve may take
// them, so that a shutdown on a nearly full disk still saves them.
func (c *Catalog) SaveStats(all []Stats) error {
	return c.Commit(storage.CommitOptions{Sync: true, Reserve: true}, func(txn storage.Txn) error {
		for _, s := range all {
			if err := txn.Set(StatsKey(s.ID), encodeCounts(s.Counts)); err != nil {
				return err
			}
			if err := txn.Set(indexes.StatsKey(s.ID), s.Indexes); err != nil {
				return err
			}
		}
		return txn.Set(CleanKey, []byte{1})
	})
}

// Saved is what the cluster recount saves of one table (SaveCounts).
type Saved struct {
	Name string // the table's name when it was counted
	Counts
	// Indexes is the table's index statistics, encoded (indexes.Stats).
	Indexes []byte
}

// SaveCounts stores the given tables' ItemCount and TableSizeBytes, and
// their index statistics, under their statistics keys, without the clean
// marker: in cluster mode the recount's holder saves what it counted
// there for the other nodes (ReadCounts, indexes.StatsKey). A table whose
// record is gone (deleted, maybe purged, since it was counted), or whose
// name belongs to another table now, is skipped, so a recount that races
// a DeleteTable does not write back the statistics keys its purge
// deletes. (The record is read with Get in the transaction: a delete that
// commits first is seen, one that commits after makes this commit
// conflict and retry.)
func (c *Catalog) SaveCounts(saved map[uint64]Saved) error {
	return c.Commit(storage.CommitOptions{}, func(txn storage.Txn) error {
		for id, s := range saved {
			key := Key(s.Name)
			b, err := txn.Get(key)
			if errors.Is(err, storage.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if rec, err := Decode(key, b); err != nil || rec.ID != id {
				continue
			}
			if err := txn.Set(StatsKey(id), encodeCounts(s.Counts)); err != nil {
				return err
			}
			if err := txn.Set(indexes.StatsKey(id), s.Indexes); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadCounts reads table id's saved ItemCount and TableSizeBytes; found is
// false when none are saved.
func ReadCounts(r storage.Reader, id uint64) (n Counts, found bool, err error) {
	v, err := r.Get(StatsKey(id))
	if errors.Is(err, storage.ErrNotFound) {
		return n, false, nil
	}
	if err != nil {
		return n, false, err
	}
	n, ok := decodeCounts(v)
	return n, ok, nil
}

func encodeCounts(n Counts) []byte {
	v := binary.BigEndian.AppendUint64(nil, uint64(n.Items))
	return binary.BigEndian.AppendUint64(v, uint64(n.Bytes))
}

func decodeCounts(v []byte) (Counts, bool) {
	if len(v) != 16 {
		return Counts{}, false
	}
	return Counts{Items: int64(binary.BigEndian.Uint64(v)), Bytes: int64(binary.BigEndian.Uint64(v[8:]))}, true
}

// Count counts table id's items in snap and their size (size of each
// stored value); done is false when Close stopped it first.
func (c *Catalog) Count(snap *snapshot.Reader, id uint64, size func(stored []byte) int64) (n Counts, done bool, err error) {
	done, err = snap.Items(id, func(_, stored []byte) (bool, error) {
		n.Items++
		n.Bytes += size(stored)
		if n.Items%4096 == 0 && c.closed() {
			return false, nil
		}
		return true, nil
	})
	return n, done, err
}

func (c *Catalog) closed() bool {
	select {
	case <-c.opts.Closing:
		return true
	default:
		return false
	}
}
