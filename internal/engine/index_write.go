package engine

import (
	"bytes"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/storage"
)

// indexOverhead is the per-entry overhead DynamoDB counts in an index's
// size (IndexSizeBytes, item collection sizes).
const indexOverhead = 100

// indexChange is the effect of one item change on one index: the entry
// removed (oldKey, its size) and the entry written (newKey, newVal).
type indexChange struct {
	ix             *Index
	oldKey, newKey []byte
	oldEntry       attr.Item
	newEntry       attr.Item
}

// unchanged reports whether the index needs no write: the same entry key
// and the same projected attributes.
func (c *indexChange) unchanged() bool {
	if c.oldKey == nil || c.newKey == nil || !bytes.Equal(c.oldKey, c.newKey) {
		return false
	}
	return attr.ItemsEqual(c.oldEntry, c.newEntry)
}

// indexChanges computes what one item change does to each live index.
func (t *Table) indexChanges(old, new attr.Item, out []indexChange) []indexChange {
	for _, ix := range t.liveIndexes().list {
		c := indexChange{ix: ix}
		if old != nil && ix.indexed(old) {
			c.oldKey = t.entryKey(ix, old)
			c.oldEntry = t.project(ix, old)
		}
		if new != nil && ix.indexed(new) {
			c.newKey = t.entryKey(ix, new)
			c.newEntry = t.project(ix, new)
		}
		if c.oldKey == nil && c.newKey == nil {
			continue
		}
		out = append(out, c)
	}
	return out
}

// indexWrites maintains the table's secondary indexes for one item change,
// inside the item's storage transaction: index key attributes are checked
// first (an error aborts the transaction), then the item collection size
// (LSI tables, index_collection.go), then each index's old entry is
// deleted and its new one written, skipping entries that do not change.
func (e *Engine) indexWrites(txn storage.Txn, t *Table, old, new attr.Item) error {
	live := t.liveIndexes()
	if len(live.list) == 0 {
		return nil
	}
	if err := t.checkIndexKeys(new, false); err != nil {
		return err
	}
	if err := e.collectionWrite(txn, t, old, new); err != nil {
		return err
	}
	var buf [4]indexChange
	for _, c := range t.indexChanges(old, new, buf[:0]) {
		if c.unchanged() {
			continue
		}
		if c.oldKey != nil && (c.newKey == nil || !bytes.Equal(c.oldKey, c.newKey)) {
			if err := txn.Delete(c.oldKey); err != nil {
				return err
			}
		}
		if c.newKey != nil {
			if err := txn.Set(c.newKey, attr.AppendItem(nil, c.newEntry)); err != nil {
				return err
			}
		}
	}
	return nil
}

// entrySize is the size DynamoDB counts for one index entry.
func entrySize(entry attr.Item) int64 {
	return int64(attr.ItemSize(entry)) + indexOverhead
}

// addIndexStats records the effect of one committed item change on the
// ItemCount and IndexSizeBytes of the table's indexes.
func (e *Engine) addIndexStats(t *Table, old, new attr.Item) {
	if t.stats == nil || len(t.liveIndexes().list) == 0 {
		return
	}
	var buf [4]indexChange
	for _, c := range t.indexChanges(old, new, buf[:0]) {
		if c.unchanged() {
			continue
		}
		s := t.indexStatsFor(c.ix.ID)
		if c.oldKey != nil {
			s.items.Add(-1)
			s.bytes.Add(-entrySize(c.oldEntry))
		}
		if c.newKey != nil {
			s.items.Add(1)
			s.bytes.Add(entrySize(c.newEntry))
		}
	}
}

// indexWriteUnits is the write capacity one item change consumes in each
// index it touches, as DynamoDB charges it: writing a new entry costs its
// size, removing one the old entry's size, moving an entry to another index
// key both, and rewriting an entry in place its new size. Indexes the change
// leaves alone cost nothing and are not listed.
func (t *Table) indexWriteUnits(old, new attr.Item) (gsi, lsi map[string]float64) {
	if len(t.liveIndexes().list) == 0 {
		return nil, nil
	}
	var buf [4]indexChange
	for _, c := range t.indexChanges(old, new, buf[:0]) {
		if c.unchanged() {
			continue
		}
		var u float64
		switch {
		case c.oldKey != nil && c.newKey != nil && bytes.Equal(c.oldKey, c.newKey):
			u = writeUnits(attr.ItemSize(c.newEntry))
		default:
			if c.oldKey != nil {
				u += writeUnits(attr.ItemSize(c.oldEntry))
			}
			if c.newKey != nil {
				u += writeUnits(attr.ItemSize(c.newEntry))
			}
		}
		m := &gsi
		if c.ix.Local {
			m = &lsi
		}
		if *m == nil {
			*m = map[string]float64{}
		}
		(*m)[c.ix.Name] += u
	}
	return gsi, lsi
}
