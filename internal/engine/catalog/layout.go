package catalog

import (
	"encoding/json"
	"fmt"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/engine/layout"
	"github.com/kura-db/kura/internal/storage"
)

// LayoutSchemas reads, from snap, the key schemas the store layout's
// migration rewrites keys by (layout.Options.Schemas): every table
// record's, and every backup's source.
func LayoutSchemas(snap storage.Snapshot) (*layout.Schemas, error) {
	s := &layout.Schemas{Tables: map[uint64]*layout.Schema{}, Backups: map[uint64]*layout.Schema{}}
	err := eachValue(snap, Prefix, func(v []byte) error {
		var rec Record
		if err := json.Unmarshal(v, &rec); err != nil {
			return err
		}
		ks, err := layoutSchema(&rec)
		s.Tables[rec.ID] = ks
		return err
	})
	if err != nil {
		return nil, err
	}
	err = eachValue(snap, backup.PrefixRecord, func(v []byte) error {
		var b backup.Record[Record]
		if err := json.Unmarshal(v, &b); err != nil {
			return err
		}
		ks, err := layoutSchema(&b.Source)
		s.Backups[b.ID] = ks
		if _, ok := s.Tables[b.Source.ID]; !ok && b.System {
			s.Tables[b.Source.ID] = ks // a deleted table's items its system backup keeps
		}
		return err
	})
	return s, err
}

// layoutSchema is what the layout's rewrite needs of rec.
func layoutSchema(rec *Record) (*layout.Schema, error) {
	s, err := rec.Schema()
	if err != nil {
		return nil, err
	}
	ls := &layout.Schema{Name: rec.Name, Hash: s.Hash.Type, Indexes: map[uint32][]attr.Type{}, Vectors: map[uint32]bool{}}
	for _, ix := range append(s.GSIs, s.LSIs...) {
		for _, h := range ix.Hashes {
			ls.Indexes[ix.ID] = append(ls.Indexes[ix.ID], h.Type)
		}
	}
	for _, vx := range s.Vectors {
		ls.Vectors[vx.ID] = true
	}
	return ls, nil
}

// eachValue hands f the value of every key beginning with prefix.
func eachValue(snap storage.Snapshot, prefix byte, f func(v []byte) error) error {
	it, err := snap.NewIterator(storage.IterOptions{Lower: []byte{prefix}, Upper: []byte{prefix + 1}})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
		if err := f(it.Value()); err != nil {
			return fmt.Errorf("record %q: %w", it.Key(), err)
		}
	}
	return it.Err()
}
