package indexes

import (
	"bytes"
	"encoding/binary"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/keyhash"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
)

// Index entry layout (integers big-endian):
//
//	"x" + tableID(8) + indexID(4) + hash(index partition)(8, package keyhash)
//	    + key(index hash attrs…) + key(index range attrs…)
//	    + key(table pk) + key(table sk)        → projected item (item codec)
//
// Every component is attr's order-preserving, self-delimiting key encoding,
// so one index partition is one key range in index-sort-key order, and
// entries that share an index key follow the table key. Index ID 0 is
// never allocated to an index: it holds the item collection sizes
// (collection.go); the engine keeps vector-index mappings under their own
// index IDs in the same range, so deleting a table purges them all.

// KeyPrefix is the first byte of every key under a table's index range.
const KeyPrefix = 'x'

// Prefix is the common prefix of every entry of one index (Prefix(t, i+1)
// ends its range).
func Prefix(tableID uint64, indexID uint32) []byte {
	b := make([]byte, 13, 64)
	b[0] = KeyPrefix
	binary.BigEndian.PutUint64(b[1:], tableID)
	binary.BigEndian.PutUint32(b[9:], indexID)
	return b
}

// PartitionPrefix is the key range of one index partition, given the
// values of the index hash attributes in schema order.
func (ix *Index) PartitionPrefix(tableID uint64, hashVals []attr.Value) []byte {
	h := keyhash.Sum(hashVals...)
	b := append(Prefix(tableID, ix.ID), h[:]...)
	for _, v := range hashVals {
		b = attr.AppendKey(b, v)
	}
	return b
}

// EntryKey is the storage key of it's entry in ix, an index of table t (it
// must be Indexed).
func EntryKey(t *change.Table, ix *Index, it attr.Item) []byte {
	hv := make([]attr.Value, len(ix.Hashes))
	for i, k := range ix.Hashes {
		hv[i] = it[k.Name]
	}
	b := ix.PartitionPrefix(t.ID, hv)
	for _, k := range ix.Ranges {
		b = attr.AppendKey(b, it[k.Name])
	}
	b = attr.AppendKey(b, it[t.Hash.Name])
	if t.Range != nil {
		b = attr.AppendKey(b, it[t.Range.Name])
	}
	return b
}

// Project is the entry of it in ix: the table and index key attributes
// plus the projected ones.
func Project(t *change.Table, ix *Index, it attr.Item) attr.Item {
	if ix.ProjectAll() {
		return it
	}
	out := make(attr.Item, 4+len(ix.NonKey))
	out[t.Hash.Name] = it[t.Hash.Name]
	if t.Range != nil {
		out[t.Range.Name] = it[t.Range.Name]
	}
	for _, k := range ix.Hashes {
		out[k.Name] = it[k.Name]
	}
	for _, k := range ix.Ranges {
		out[k.Name] = it[k.Name]
	}
	for _, n := range ix.NonKey {
		if v, ok := it[n]; ok {
			out[n] = v
		}
	}
	return out
}

// Projects reports whether attribute name is in ix's entries.
func Projects(t *change.Table, ix *Index, name string) bool {
	if ix.ProjectAll() || name == t.Hash.Name || (t.Range != nil && name == t.Range.Name) || ix.IsKeyAttr(name) {
		return true
	}
	for _, n := range ix.NonKey {
		if n == name {
			return true
		}
	}
	return false
}

// KeyItem is the LastEvaluatedKey of an index read: the table key and the
// index key attributes of entry it.
func KeyItem(t *change.Table, ix *Index, it attr.Item) attr.Item {
	out := t.KeyItem(it)
	for _, k := range ix.KeyAttrs() {
		out[k.Name] = it[k.Name]
	}
	return out
}

// QueryBounds is the storage range of an index key condition: the index
// partition, narrowed by equalities on leading range attributes and the
// last range condition. Entries carry more key components after the range
// attributes, so upper bounds are prefix ends.
func QueryBounds(tableID uint64, ix *Index, hashVals []attr.Value, rng []expr.KeyPart, forward bool) storage.IterOptions {
	part := ix.PartitionPrefix(tableID, hashVals)
	for i := 0; i+1 < len(rng); i++ {
		part = attr.AppendKey(part, rng[i].Values[0])
	}
	opts := storage.IterOptions{Lower: part, Upper: attr.PrefixEnd(part), Reverse: !forward}
	if len(rng) == 0 {
		return opts
	}
	r := rng[len(rng)-1]
	at := func(v attr.Value) []byte { return attr.AppendKey(bytes.Clone(part), v) }
	switch r.Op {
	case expr.OpEQ:
		opts.Lower = at(r.Values[0])
		opts.Upper = attr.PrefixEnd(opts.Lower)
	case expr.OpLT:
		opts.Upper = at(r.Values[0])
	case expr.OpLE:
		opts.Upper = attr.PrefixEnd(at(r.Values[0]))
	case expr.OpGT:
		opts.Lower = attr.PrefixEnd(at(r.Values[0]))
	case expr.OpGE:
		opts.Lower = at(r.Values[0])
	case expr.OpBetween:
		opts.Lower, opts.Upper = at(r.Values[0]), attr.PrefixEnd(at(r.Values[1]))
	case expr.OpBeginsWith:
		prefix := append(bytes.Clone(part), attr.PrefixKey(r.Values[0])...)
		opts.Lower = prefix
		if end := attr.PrefixEnd(prefix); end != nil {
			opts.Upper = end
		}
	}
	return opts
}
