package indexes

import (
	"bytes"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
)

// Table is what the package reads of a version of a table: its definition,
// the indexes its writes maintain, and the statistics of its indexes. The
// engine's in-memory table implements it.
type Table interface {
	change.TableDef
	// Indexes is the live set of this version (NewLive; the engine builds
	// it once per version).
	Indexes() *Live
	// IndexStats is the statistics of the table's indexes, shared by every
	// version of the table ID; nil when the table keeps none.
	IndexStats() *Stats
}

// entryChange is the effect of one item change on one index: the entry
// removed (oldKey, oldEntry) and the entry written (newKey, newEntry).
type entryChange struct {
	ix                 *Index
	oldKey, newKey     []byte
	oldEntry, newEntry attr.Item
}

// unchanged reports whether the index needs no write: the same entry key
// and the same projected attributes.
func (c *entryChange) unchanged() bool {
	if c.oldKey == nil || c.newKey == nil || !bytes.Equal(c.oldKey, c.newKey) {
		return false
	}
	return attr.ItemsEqual(c.oldEntry, c.newEntry)
}

// changes computes what one item change does to each live index, leaving
// out the indexes it does not touch.
func changes(def *change.Table, l *Live, old, new attr.Item, out []entryChange) []entryChange {
	for _, ix := range l.List {
		c := entryChange{ix: ix}
		if old != nil && ix.Indexed(old) {
			c.oldKey = EntryKey(def, ix, old)
			c.oldEntry = Project(def, ix, old)
		}
		if new != nil && ix.Indexed(new) {
			c.newKey = EntryKey(def, ix, new)
			c.newEntry = Project(def, ix, new)
		}
		if c.oldKey == nil && c.newKey == nil || c.unchanged() {
			continue
		}
		out = append(out, c)
	}
	return out
}

// Subsystem maintains GSI and LSI entries and item collection sizes for
// every item change of the write path (change.Subsystem) and, once a
// change committed, the indexes' statistics. Changes must carry a Table.
type Subsystem struct {
	Collections *Collections
}

// Stage maintains the table's secondary indexes for one item change, inside
// the item's storage transaction: index key attributes are checked first
// (an error aborts the transaction), then the item collection size (LSI
// tables, collection.go), then each index's old entry is deleted and its
// new one written, skipping entries that do not change.
func (s Subsystem) Stage(txn storage.Txn, c change.Change) error {
	t := c.Table.(Table)
	live := t.Indexes()
	if len(live.List) == 0 {
		return nil
	}
	if err := live.CheckKeys(c.New, false); err != nil {
		return err
	}
	if err := s.Collections.stage(txn, t.Def(), live, c.Old, c.New); err != nil {
		return err
	}
	var buf [4]entryChange
	for _, ec := range changes(t.Def(), live, c.Old, c.New, buf[:0]) {
		if ec.oldKey != nil && (ec.newKey == nil || !bytes.Equal(ec.oldKey, ec.newKey)) {
			if err := txn.Delete(ec.oldKey); err != nil {
				return err
			}
		}
		if ec.newKey != nil {
			if err := txn.Set(ec.newKey, attr.AppendItem(nil, ec.newEntry)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Committed records the effect of one committed item change on the
// ItemCount and IndexSizeBytes of the table's indexes.
func (s Subsystem) Committed(c change.Change) {
	t := c.Table.(Table)
	stats, live := t.IndexStats(), t.Indexes()
	if stats == nil || len(live.List) == 0 {
		return
	}
	var buf [4]entryChange
	for _, ec := range changes(t.Def(), live, c.Old, c.New, buf[:0]) {
		f := stats.Of(ec.ix.ID)
		if ec.oldKey != nil {
			f.Items.Add(-1)
			f.Bytes.Add(-EntrySize(ec.oldEntry))
		}
		if ec.newKey != nil {
			f.Items.Add(1)
			f.Bytes.Add(EntrySize(ec.newEntry))
		}
	}
}

// WriteUnits is the write capacity one item change consumes in each index
// it touches, as DynamoDB charges it (units: the capacity of writing an
// entry of a size): writing a new entry costs its size, removing one the
// old entry's size, moving an entry to another index key both, and
// rewriting an entry in place its new size. Indexes the change leaves alone
// cost nothing and are not listed.
func WriteUnits(t Table, old, new attr.Item, units func(size int) float64) (gsi, lsi map[string]float64) {
	live := t.Indexes()
	if len(live.List) == 0 {
		return nil, nil
	}
	var buf [4]entryChange
	for _, c := range changes(t.Def(), live, old, new, buf[:0]) {
		var u float64
		switch {
		case c.oldKey != nil && c.newKey != nil && bytes.Equal(c.oldKey, c.newKey):
			u = units(attr.ItemSize(c.newEntry))
		default:
			if c.oldKey != nil {
				u += units(attr.ItemSize(c.oldEntry))
			}
			if c.newKey != nil {
				u += units(attr.ItemSize(c.newEntry))
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
