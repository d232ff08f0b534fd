package catalog

import (
	"fmt"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/wire"
)

// Schema is a record's key schema decoded: what the core builds its
// in-memory table from, and the store layout's migration rewrites keys by.
type Schema struct {
	Types      map[string]attr.Type // the attribute definitions
	Hash       change.KeyAttr
	Range      *change.KeyAttr
	GSIs, LSIs []*indexes.Index // in the order they were defined; status not set
	Vectors    []*vectors.Index
}

// Schema decodes the record's key schema and its indexes' (an error names
// what a record that cannot be served lacks).
func (r *Record) Schema() (*Schema, error) {
	s := &Schema{Types: AttrTypes(r.Desc.AttributeDefinitions)}
	var err error
	if s.Hash, s.Range, err = ParseKeySchema(r.Desc.KeySchema, s.Types); err != nil {
		return nil, fmt.Errorf("engine: table %s: %w", r.Name, err)
	}
	for _, g := range r.Desc.GlobalSecondaryIndexes {
		ix, err := r.buildIndex(wire.Deref(g.IndexName), g.KeySchema, g.Projection, s.Types)
		if err != nil {
			return nil, err
		}
		s.GSIs = append(s.GSIs, ix)
	}
	for _, l := range r.Desc.LocalSecondaryIndexes {
		ix, err := r.buildIndex(wire.Deref(l.IndexName), l.KeySchema, l.Projection, s.Types)
		if err != nil {
			return nil, err
		}
		ix.Local = true
		s.LSIs = append(s.LSIs, ix)
	}
	if s.Vectors, err = vectors.Build(r.Name, r.Desc.VectorIndexes, r.IndexID, s.Types); err != nil {
		return nil, err
	}
	return s, nil
}

func (r *Record) buildIndex(name string, ks []wire.KeySchemaElement, p *wire.Projection, types map[string]attr.Type) (*indexes.Index, error) {
	id, ok := r.IndexID(name)
	if !ok {
		return nil, fmt.Errorf("engine: table %s: index %s has no ID", r.Name, name)
	}
	ix := &indexes.Index{Name: name, ID: id}
	for _, k := range ks {
		kn := wire.Deref(k.AttributeName)
		ka := change.KeyAttr{Name: kn, Type: types[kn]}
		if ka.Type == attr.TypeNone {
			return nil, fmt.Errorf("engine: table %s index %s: key attribute %s has no definition", r.Name, name, kn)
		}
		if k.KeyType == "HASH" {
			ix.Hashes = append(ix.Hashes, ka)
		} else {
			ix.Ranges = append(ix.Ranges, ka)
		}
	}
	if len(ix.Hashes) == 0 {
		return nil, fmt.Errorf("engine: table %s index %s: no HASH key", r.Name, name)
	}
	ix.Hash = ix.Hashes[0]
	if len(ix.Ranges) > 0 {
		ix.Range = &ix.Ranges[0]
	}
	if p != nil {
		ix.Projection = p.ProjectionType
		if p.ProjectionType == tables.ProjectInclude {
			ix.NonKey = append([]string(nil), p.NonKeyAttributes...)
		}
	}
	return ix, nil
}

// ParseKeySchema is the hash and range attribute of a key schema, typed
// by types.
func ParseKeySchema(ks []wire.KeySchemaElement, types map[string]attr.Type) (change.KeyAttr, *change.KeyAttr, error) {
	var h change.KeyAttr
	var r *change.KeyAttr
	for _, k := range ks {
		name := wire.Deref(k.AttributeName)
		ka := change.KeyAttr{Name: name, Type: types[name]}
		if ka.Type == attr.TypeNone {
			return h, nil, fmt.Errorf("key attribute %s has no definition", name)
		}
		if k.KeyType == "HASH" {
			h = ka
		} else {
			r = &ka
		}
	}
	return h, r, nil
}

// AttrTypes is the type of each defined attribute, by name.
func AttrTypes(defs []wire.AttributeDefinition) map[string]attr.Type {
	types := make(map[string]attr.Type, len(defs))
	for _, d := range defs {
		types[wire.Deref(d.AttributeName)] = AttrType(d.AttributeType)
	}
	return types
}

// AttrType is the attr.Type of a ScalarAttributeType (TypeNone for any
// other string).
func AttrType(s string) attr.Type {
	switch s {
	case "S":
		return attr.S
	case "N":
		return attr.N
	case "B":
		return attr.B
	}
	return attr.TypeNone
}
