package engine

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/expr"
)

// Index entry layout (doc.go):
//
//	"x" + tableID(8) + indexID(4) + hash(index partition)(8, keys.go)
//	    + key(index hash attrs…) + key(index range attrs…)
//	    + key(table pk) + key(table sk)        → projected item (item codec)
//
// Every component is attr's order-preserving, self-delimiting key encoding,
// so one index partition is one key range in index-sort-key order, and
// entries that share an index key follow the table key.

// liveIndexes is the set of indexes the writes of one table maintain: every
// LSI and every GSI that is not being deleted (a GSI being backfilled is
// maintained from the moment it is created). byName is the same set sorted
// by index name, the order DynamoDB reports index-key errors in.
type liveIndexes struct {
	list   []*Index
	byName []*Index
}

func newLiveIndexes(t *Table) *liveIndexes {
	l := &liveIndexes{list: slices.Clone(t.LSIs)}
	for _, ix := range t.GSIs {
		if ix.Status != StatusDeleting {
			l.list = append(l.list, ix)
		}
	}
	l.byName = slices.Clone(l.list)
	slices.SortFunc(l.byName, func(a, b *Index) int { return strings.Compare(a.Name, b.Name) })
	return l
}

// liveIndexes returns the indexes writes to t maintain now. It is read
// inside the item's lock, so an index added by UpdateTable is seen by
// every write that takes its lock after the backfill's barrier.
func (t *Table) liveIndexes() *liveIndexes {
	if t.stats != nil {
		if l := t.stats.live.Load(); l != nil {
			return l
		}
	}
	return newLiveIndexes(t)
}

// indexStatsFor returns the statistics of one index of t.
func (t *Table) indexStatsFor(id uint32) *tableStats {
	if v, ok := t.stats.indexes.Load(id); ok {
		return v.(*tableStats)
	}
	v, _ := t.stats.indexes.LoadOrStore(id, &tableStats{})
	return v.(*tableStats)
}

// indexPrefix is the common prefix of every entry of one index.
func indexPrefix(tableID uint64, indexID uint32) []byte {
	b := make([]byte, 13, 64)
	b[0] = prefixIndex
	binary.BigEndian.PutUint64(b[1:], tableID)
	binary.BigEndian.PutUint32(b[9:], indexID)
	return b
}

// keyAttrs lists the index key attributes, hash attributes first.
func (ix *Index) keyAttrs() []KeyAttr {
	return append(slices.Clone(ix.Hashes), ix.Ranges...)
}

// isKeyAttr reports whether name is one of the index's key attributes.
func (ix *Index) isKeyAttr(name string) bool {
	for _, k := range ix.Hashes {
		if k.Name == name {
			return true
		}
	}
	for _, k := range ix.Ranges {
		if k.Name == name {
			return true
		}
	}
	return false
}

// partitionPrefix is the key range of one index partition, given the values
// of the index hash attributes in schema order.
func (ix *Index) partitionPrefix(tableID uint64, hashVals []attr.Value) []byte {
	h := partitionHash(hashVals...)
	b := append(indexPrefix(tableID, ix.ID), h[:]...)
	for _, v := range hashVals {
		b = attr.AppendKey(b, v)
	}
	return b
}

// indexed reports whether it carries every index key attribute with the
// declared type (the sparse-index rule). Items with a mistyped key
// attribute (written before the index existed) are not indexed.
func (ix *Index) indexed(it attr.Item) bool {
	for _, k := range ix.Hashes {
		if v, ok := it[k.Name]; !ok || v.T != k.Type {
			return false
		}
	}
	for _, k := range ix.Ranges {
		if v, ok := it[k.Name]; !ok || v.T != k.Type {
			return false
		}
	}
	return true
}

// entryKey is the storage key of it's entry in ix (it must be indexed).
func (t *Table) entryKey(ix *Index, it attr.Item) []byte {
	hv := make([]attr.Value, len(ix.Hashes))
	for i, k := range ix.Hashes {
		hv[i] = it[k.Name]
	}
	b := ix.partitionPrefix(t.ID, hv)
	for _, k := range ix.Ranges {
		b = attr.AppendKey(b, it[k.Name])
	}
	b = attr.AppendKey(b, it[t.Hash.Name])
	if t.Range != nil {
		b = attr.AppendKey(b, it[t.Range.Name])
	}
	return b
}

// projectAll reports whether ix holds whole items.
func (ix *Index) projectAll() bool { return ix.Projection == ProjectAll }

// project is the entry of it in ix: the table and index key attributes plus
// the projected ones.
func (t *Table) project(ix *Index, it attr.Item) attr.Item {
	if ix.projectAll() {
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

// projects reports whether attribute name is in ix's entries.
func (t *Table) projects(ix *Index, name string) bool {
	return ix.projectAll() || t.isKeyAttr(name) || ix.isKeyAttr(name) || slices.Contains(ix.NonKey, name)
}

// indexKeyItem is the LastEvaluatedKey of an index read: the table key and
// the index key attributes of entry it.
func (t *Table) indexKeyItem(ix *Index, it attr.Item) attr.Item {
	out := t.keyItem(it)
	for _, k := range ix.keyAttrs() {
		out[k.Name] = it[k.Name]
	}
	return out
}

// checkIndexKeys applies DynamoDB's rules to the index key attributes of
// an item about to be written: an attribute present with another type than
// declared is a type mismatch (naming the first index by name that uses
// it), S/B key attributes may not be empty nor over their size limit
// (index_limits.go). fromUpdate selects the
// UpdateItem wording of the empty-value error.
func (t *Table) checkIndexKeys(it attr.Item, fromUpdate bool) error {
	if it == nil {
		return nil
	}
	if err := t.checkIndexKeyTypes(it); err != nil {
		return err
	}
	return t.checkIndexKeyValues(it, fromUpdate)
}

// checkIndexKeyValues is the value part of checkIndexKeys (sizes, empty
// strings and binaries), for index key attributes of the right type.
func (t *Table) checkIndexKeyValues(it attr.Item, fromUpdate bool) error {
	for _, ix := range t.liveIndexes().byName {
		for _, k := range ix.keyAttrs() {
			v, ok := it[k.Name]
			if !ok {
				continue
			}
			if err := ix.checkIndexKeySize(k.Name, v); err != nil {
				return err
			}
			kind := ""
			switch {
			case v.T == attr.S && v.Str == "":
				kind = "string"
			case v.T == attr.B && len(v.Bin) == 0:
				kind = "binary"
			}
			if kind == "" {
				continue
			}
			if fromUpdate {
				return ddberr.Validation(msgUpdateIndexEmpty + kind + " value.")
			}
			return ddberr.Validation("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty " + kind + " value. IndexName: " + ix.Name + ", IndexKey: " + k.Name)
		}
	}
	return nil
}

// checkIndexKeyTypes is the type part of checkIndexKeys: an index key
// attribute present in it with another type than the index declares
// (indexes by name, so the first index naming the attribute is reported).
func (t *Table) checkIndexKeyTypes(it attr.Item) error {
	for _, ix := range t.liveIndexes().byName {
		for _, k := range ix.keyAttrs() {
			if v, ok := it[k.Name]; ok && v.T != k.Type {
				return ddberr.InvalidParam("Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", k.Name, k.Type, v.T, ix.Name)
			}
		}
	}
	return nil
}

// checkUpdateIndexValues refuses, before anything is read, an update that
// SETs an index key attribute to an empty string or binary given as a
// value (DynamoDB answers this up front, also inside a transaction; for a
// vector index's HASH attribute too, eu-west-2 and us-east-1, 2026-08-13,
// captured by another emulator's authors).
func (t *Table) checkUpdateIndexValues(u *expr.Update) error {
	if u == nil {
		return nil
	}
	for _, a := range u.Actions {
		if a.Kind != expr.ActionSet || len(a.Path) != 1 || a.Value == nil || a.Value.Kind != expr.OperandValue {
			continue
		}
		if n := a.Path[0].Name; !t.isIndexKeyAttr(n) && !vectors.IsHashAttr(t.Vectors, n) {
			continue
		}
		v := a.Value.Value
		switch {
		case v.T == attr.S && v.Str == "":
			return ddberr.Validation(msgUpdateIndexEmpty + "string value.")
		case v.T == attr.B && len(v.Bin) == 0:
			return ddberr.Validation(msgUpdateIndexEmpty + "binary value.")
		}
	}
	return nil
}

const msgUpdateIndexEmpty = "One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty "
