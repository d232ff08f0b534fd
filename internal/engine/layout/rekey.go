package layout

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/pitr"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/storage"
)

// Schema is what the rewrite needs of one table's key schema.
type Schema struct {
	Name    string                 // for errors
	Hash    attr.Type              // the type of the table's partition key
	Indexes map[uint32][]attr.Type // GSIs' and LSIs' partition key types, by index ID
	Vectors map[uint32]bool        // vector index IDs
}

// Schemas are the key schemas of a store's tables and backups.
type Schemas struct {
	// Tables are by table ID, with the deleted tables whose items a
	// system backup keeps (their source's schema).
	Tables map[uint64]*Schema
	// Backups are the backups' sources, by backup ID.
	Backups map[uint64]*Schema
}

// rekeyer rewrites hashed keys from one layout to another, knowing the
// key schemas of the tables, indexes and backups.
type rekeyer struct {
	from, to Layout
	*Schemas
	dropped int
}

func newRekeyer(store storage.Store, from, to Layout, read func(storage.Snapshot) (*Schemas, error)) (*rekeyer, error) {
	snap, err := store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	s, err := read(snap)
	if err != nil {
		return nil, err
	}
	return &rekeyer{from: from, to: to, Schemas: s}, nil
}

// rewrite returns key k (with value v) in the new layout; keep is false for
// the keys of a table, index or backup that no longer exists (their purge
// was pending).
func (rw *rekeyer) rewrite(k, v []byte) (nk, nv []byte, keep bool, err error) {
	if len(k) < 9 {
		return nil, nil, false, fmt.Errorf("short key %x", k)
	}
	id := binary.BigEndian.Uint64(k[1:9])
	switch k[0] {
	case PrefixItem:
		nk, err = rw.itemKey(rw.Tables[id], k)
		return nk, v, nk != nil, err
	case backup.PrefixItem:
		nk, err = rw.suffixed(rw.Backups[id], k, 9)
		return nk, v, nk != nil, err
	case pitrRange()[0][0]:
		nv, err = rw.pitrValue(rw.Tables[id], v)
		return k, nv, nv != nil, err
	case indexes.KeyPrefix:
		return rw.indexKey(rw.Tables[id], k, v)
	}
	return nil, nil, false, fmt.Errorf("unexpected key %x", k)
}

// itemKey rewrites a table item key (nil: the table is gone).
func (rw *rekeyer) itemKey(t *Schema, k []byte) ([]byte, error) {
	return rw.suffixed(t, k, ItemPrefixLen)
}

// suffixed rewrites a key whose bytes from at on are an item suffix:
// hash(pk) + key(pk) + key(sk). nil when t is nil (the owner is gone).
func (rw *rekeyer) suffixed(t *Schema, k []byte, at int) ([]byte, error) {
	if t == nil {
		rw.dropped++
		return nil, nil
	}
	out, err := rw.rehash(k[:at], k[at:], []attr.Type{t.Hash})
	if err != nil {
		return nil, fmt.Errorf("key %x of table %s: %w", k, t.Name, err)
	}
	return out, nil
}

// rehash is head + the partition hash of the values of types that follow
// the old hash in rest + the rest after the old hash.
func (rw *rekeyer) rehash(head, rest []byte, types []attr.Type) ([]byte, error) {
	oldLen := rw.from.HashLen
	if len(rest) < oldLen {
		return nil, attr.ErrBadKey
	}
	body := rest[oldLen:]
	vals := make([]attr.Value, len(types))
	r := body
	for i, t := range types {
		var err error
		if vals[i], r, err = attr.DecodeKey(r, t); err != nil {
			return nil, err
		}
	}
	if !bytes.Equal(rest[:oldLen], rw.from.Hash(vals...)) {
		return nil, errors.New("the key's hash is not its layout's")
	}
	out := append(bytes.Clone(head), rw.to.Hash(vals...)...)
	return append(out, body...), nil
}

// pitrValue rewrites the item key inside a point-in-time entry.
func (rw *rekeyer) pitrValue(t *Schema, v []byte) ([]byte, error) {
	if t == nil {
		rw.dropped++
		return nil, nil
	}
	suffix, _, err := pitr.DecodeEntry(v)
	if err != nil {
		return nil, err
	}
	ns, err := rw.rehash(nil, suffix, []attr.Type{t.Hash})
	if err != nil {
		return nil, fmt.Errorf("point-in-time entry of table %s: %w", t.Name, err)
	}
	return pitr.WithSuffix(v, ns)
}

// indexKey rewrites an index entry or a vector-index mapping, and keeps
// an item collection's size counter (package indexes) as it is.
func (rw *rekeyer) indexKey(t *Schema, k, v []byte) ([]byte, []byte, bool, error) {
	if t == nil || len(k) < 13 {
		rw.dropped++
		return nil, nil, false, nil
	}
	id := binary.BigEndian.Uint32(k[9:13])
	if id == indexes.CollectionIndexID {
		return k, v, true, nil // item collection sizes: keyed by key(pk), no hash
	}
	if hashes, ok := t.Indexes[id]; ok {
		nk, err := rw.rehash(k[:13], k[13:], hashes)
		if err != nil {
			return nil, nil, false, fmt.Errorf("entry %x of index %d of %s: %w", k, id, t.Name, err)
		}
		return nk, v, true, nil
	}
	if !t.Vectors[id] || len(k) < 14 {
		rw.dropped++
		return nil, nil, false, nil
	}
	switch k[13] {
	case vectors.KeyMap: // P 'k' itemKey → id
		nk, err := rw.itemKey(t, k[14:])
		return append(bytes.Clone(k[:14]), nk...), v, err == nil, err
	case vectors.KeyID: // P 'n' id → itemKey
		nv, err := rw.itemKey(t, v)
		return k, nv, err == nil, err
	}
	return k, v, true, nil
}
