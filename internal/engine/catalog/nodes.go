package catalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// Catalog coherence between the nodes of a cluster (the core's
// Config.Cluster).
//
// Every stored table record carries a generation (Record.Gen), and GenKey
// holds the generation of the table's current record (uint64 BE). Put,
// the one writer of records, reads that key with Get in its transaction,
// refuses a record built on an older generation (ErrStale) and writes
// both with the generation one higher. A write of an item in cluster mode
// reads the key with Get in its own transaction too (StoredGen), so a
// definition change committed by another node either shows there (the
// generation differs from the cached table's: the node reloads the table
// and the write retries with it) or commits after the item write's
// snapshot (the Get makes the item write conflict and retry). No item
// write commits under a definition older than the one current at its
// commit: a GSI added through node A is maintained by writes through node
// B from the moment its CREATING record commits.

// StoredGen reads the generation of table id's current record: 0 and
// false when the key is missing (a table stored before generations were
// kept, a new table, or a table whose record is gone).
func StoredGen(r interface {
	Get(key []byte) ([]byte, error)
}, id uint64) (uint64, bool, error) {
	v, err := r.Get(GenKey(id))
	if errors.Is(err, storage.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if len(v) != 8 {
		return 0, false, fmt.Errorf("engine: corrupt table generation of table %d", id)
	}
	return binary.BigEndian.Uint64(v), true, nil
}

// Read is the named table's record as the store has it now, settled at
// now; false when there is none.
func (c *Catalog) Read(name string, now time.Time) (*Record, bool, error) {
	key := Key(name)
	b, err := c.get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	rec, err := Decode(key, b)
	if err != nil {
		return nil, false, err
	}
	rec.Settle(now)
	return rec, true, nil
}

// Gen is the generation of table id's current record as the store has it
// now (0: none).
func (c *Catalog) Gen(id uint64) (uint64, error) {
	gen, _, err := StoredGen(getFunc(c.get), id)
	return gen, err
}

// getFunc serves as the Get of StoredGen's reader.
type getFunc func(key []byte) ([]byte, error)

func (f getFunc) Get(key []byte) ([]byte, error) { return f(key) }

// get reads one key as the store has it now: with the point reader when
// the store has one, else through a snapshot.
func (c *Catalog) get(key []byte) ([]byte, error) {
	if c.opts.Point != nil {
		return c.opts.Point.Get(key)
	}
	snap, err := c.opts.Store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	return snap.Get(key)
}

// Records are the records the store holds now, in name order, settled at
// now.
func (c *Catalog) Records(now time.Time) ([]*Record, error) {
	snap, err := c.opts.Store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	var recs []*Record
	err = Each(snap, func(rec *Record) error {
		rec.Settle(now)
		recs = append(recs, rec)
		return nil
	})
	return recs, err
}
