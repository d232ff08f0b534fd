package catalog

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kura-db/kura/internal/storage"
)

// Options wire a Catalog to its store at the core's Open.
type Options struct {
	// Store is the store the records live in; Point, when the store has
	// one, reads a record or a generation without a snapshot.
	Store storage.Store
	Point storage.PointReader
	// Sync makes the commits of records and IDs durable (Config.Sync).
	Sync bool
	// Retry reports whether a new ID's commit that conflicted on its
	// attempt'th try (from 0) runs again, after waiting as it sees fit.
	Retry func(attempt int) bool
	// Closing is closed when the engine closes: purges and recounts stop.
	Closing <-chan struct{}
}

// Catalog is the store side of the table catalog: the records, the table
// ID counter, the statistics and purge markers.
type Catalog struct {
	opts Options
	// next is the next table ID to allocate (the stored counter may be
	// ahead: another node allocated since). Callers hold the core's DDL
	// lock while they allocate.
	next uint64
}

// New is the catalog over opts.Store; Load reads it.
func New(opts Options) *Catalog {
	return &Catalog{opts: opts, next: 1}
}

// Commit runs f in one transaction of the catalog's store and commits it
// with opts.
func (c *Catalog) Commit(opts storage.CommitOptions, f func(storage.Txn) error) error {
	return storage.Update(c.opts.Store, opts, f)
}

// ErrStale reports a table definition changed by another node since this
// one cached it. It is a storage conflict, so the write paths retry it,
// with the reloaded definition.
var ErrStale = fmt.Errorf("%w: the table's definition was changed by another node", storage.ErrConflict)

// Put writes rec into txn as the next generation of its table's record:
// ErrStale when the stored generation is not the one rec was built on
// (another node changed the table since).
func Put(txn storage.Txn, rec *Record) error {
	gen, ok, err := StoredGen(txn, rec.ID)
	if err != nil {
		return err
	}
	if ok && gen != rec.Gen {
		return ErrStale
	}
	rec.Version = RecordVersion
	rec.Gen++
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := txn.Set(GenKey(rec.ID), binary.BigEndian.AppendUint64(nil, rec.Gen)); err != nil {
		return err
	}
	return txn.Set(Key(rec.Name), b)
}

// Delete removes the named table's record and generation from txn.
func Delete(txn storage.Txn, name string, id uint64) error {
	if err := txn.Delete(GenKey(id)); err != nil {
		return err
	}
	return txn.Delete(Key(name))
}

// Decode is the record stored as b under key (for the error's words).
func Decode(key, b []byte) (*Record, error) {
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("engine: catalog record %q: %w", key[1:], err)
	}
	return &rec, nil
}

// Each hands f every record r holds, in name order.
func Each(r storage.Reader, f func(*Record) error) error {
	it, err := r.NewIterator(storage.IterOptions{Lower: []byte{Prefix}, Upper: []byte{Prefix + 1}})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
		rec, err := Decode(it.Key(), it.Value())
		if err != nil {
			return err
		}
		if err := f(rec); err != nil {
			return err
		}
	}
	return it.Err()
}

// AllocID reserves a new table ID inside txn (callers hold the DDL lock).
// The stored counter is read with Get, so that nodes sharing the store
// never allocate one ID twice (the second commit conflicts).
func (c *Catalog) AllocID(txn storage.Txn) (uint64, error) {
	id := c.next
	v, err := txn.Get(NextIDKey)
	switch {
	case err == nil && len(v) == 8:
		id = max(id, binary.BigEndian.Uint64(v))
	case err != nil && !errors.Is(err, storage.ErrNotFound):
		return 0, err
	}
	if err := txn.Set(NextIDKey, binary.BigEndian.AppendUint64(nil, id+1)); err != nil {
		return 0, err
	}
	return id, nil
}

// Allocated records that id, allocated by AllocID, committed.
func (c *Catalog) Allocated(id uint64) { c.next = max(c.next, id+1) }

// CommitNewID allocates the next ID of the counter tables and backups
// share and commits what put writes under it; a conflict (another node
// took the ID meanwhile) runs put again with the next one, while
// Options.Retry allows. Callers hold the DDL lock.
func (c *Catalog) CommitNewID(put func(txn storage.Txn, id uint64) error) (uint64, error) {
	var id uint64
	var err error
	for attempt := 0; ; attempt++ {
		err = c.Commit(storage.CommitOptions{Sync: c.opts.Sync}, func(txn storage.Txn) error {
			var err error
			if id, err = c.AllocID(txn); err != nil {
				return err
			}
			return put(txn, id)
		})
		if !errors.Is(err, storage.ErrConflict) || !c.opts.Retry(attempt) {
			break
		}
	}
	if err != nil {
		return 0, err
	}
	c.next = id + 1
	return id, nil
}
