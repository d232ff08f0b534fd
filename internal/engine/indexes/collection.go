package indexes

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math"
	"slices"
	"sync"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
)

// Item collections.
//
// In a table with at least one LSI, the items sharing a partition key value
// and their LSI entries form an item collection, limited to 10 GB. Its size
// is kept exactly in a counter under index ID 0 (never allocated to an
// index), inside the table's index key range so that deleting the table
// purges it:
//
//	"x" + tableID(8) + 00000000 + key(pk)   → collection size in bytes (int64 BE)
//
// Every item write of an LSI table reads and updates the counter of its
// collection in the item's own storage transaction (Subsystem.Stage), so
// writes to different items of one collection all touch the same key. Left
// to the storage conflict detector alone, concurrent writers of one
// collection would keep failing each other's commits (and exhaust their
// retries), so the write paths also take a striped collection lock before
// their storage transaction begins, after the item stripe locks (Lock,
// LockAll; both levels in global stripe order, so no cycle): writers of
// one item collection run one at a time, like writers of one item. That is
// the price of an exact limit, paid only by tables with LSIs; tables
// without LSIs take no collection lock and never touch a counter. The
// counter is absent while the collection is empty.
//
// Locks, like counters, are keyed by the table's ID, never its name: a
// table deleted and created again under the same name is another table,
// whose collections share nothing with the old one's.

// maxCollectionSize is DynamoDB's item collection size limit (10 GB).
const maxCollectionSize = 10 << 30

// CollectionIndexID is the reserved index ID of the collection counters.
const CollectionIndexID = 0

// CollectionKey is the storage key of the size counter of the item
// collection with partition key pk in table tableID.
func CollectionKey(tableID uint64, pk attr.Value) []byte {
	return attr.AppendKey(Prefix(tableID, CollectionIndexID), pk)
}

// collectionLockStripes is the number of collection lock stripes.
const collectionLockStripes = 256

// Collections is the item-collection state of one engine: the collection
// lock stripes and the size limit. The zero value is ready to use.
type Collections struct {
	locks [collectionLockStripes]sync.Mutex
	// Max overrides the 10 GB limit when positive (tests).
	Max int64
}

// limit is the item collection size limit in force.
func (c *Collections) limit() int64 {
	if c.Max > 0 {
		return c.Max
	}
	return maxCollectionSize
}

// stripe is the lock stripe of the collection pk of table tableID.
func stripe(tableID uint64, pk attr.Value) int {
	h := fnv.New32a()
	h.Write(CollectionKey(tableID, pk))
	return int(h.Sum32() % collectionLockStripes)
}

// CollectionWrite names the collection one write of a multi-item request
// writes to: the table's ID, whether it has LSIs (only then is there a
// collection), the item's partition key.
type CollectionWrite struct {
	TableID uint64
	HasLSI  bool
	PK      attr.Value
}

// noUnlock is the unlock function when no lock was taken.
func noUnlock() {}

// Lock takes the collection lock of one write to a table with LSIs (none
// otherwise); callers hold the item's stripe lock and call the returned
// function when the write is over.
func (c *Collections) Lock(w CollectionWrite) func() {
	if !w.HasLSI {
		return noUnlock
	}
	mu := &c.locks[stripe(w.TableID, w.PK)]
	mu.Lock()
	return mu.Unlock
}

// LockAll takes the collection locks of several writes (a batch, a
// transaction) in stripe order, after their item stripe locks.
func (c *Collections) LockAll(ws []CollectionWrite) func() {
	var idx []int
	for _, w := range ws {
		if w.HasLSI {
			idx = append(idx, stripe(w.TableID, w.PK))
		}
	}
	if len(idx) == 0 {
		return noUnlock
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	for _, i := range idx {
		c.locks[i].Lock()
	}
	return func() {
		for j := len(idx) - 1; j >= 0; j-- {
			c.locks[idx[j]].Unlock()
		}
	}
}

// contribution is what one item adds to its collection: its size plus the
// size of each of its LSI entries (entries count Overhead).
func contribution(def *change.Table, lsis []*Index, it attr.Item) int64 {
	if it == nil {
		return 0
	}
	n := int64(attr.ItemSize(it))
	for _, ix := range lsis {
		if ix.Indexed(it) {
			n += EntrySize(Project(def, ix, it))
		}
	}
	return n
}

// stage updates the collection counter for one item change inside the
// item's transaction. A change that grows the collection past the limit
// fails with ItemCollectionSizeLimitExceededException; a change that does
// not grow it (a delete, a shrinking update) always passes, so a
// collection over the limit can be brought back under it.
func (c *Collections) stage(txn storage.Txn, def *change.Table, live *Live, old, new attr.Item) error {
	if len(live.Local) == 0 {
		return nil
	}
	delta := contribution(def, live.Local, new) - contribution(def, live.Local, old)
	if delta == 0 {
		return nil
	}
	it := new
	if it == nil {
		it = old
	}
	key := CollectionKey(def.ID, it[def.Hash.Name])
	cur, err := readCounter(txn, key)
	if err != nil {
		return err
	}
	size := cur + delta
	if delta > 0 && size > c.limit() {
		return ddberr.ItemCollectionSizeLimitExceeded()
	}
	if size <= 0 {
		return txn.Delete(key)
	}
	return txn.Set(key, binary.BigEndian.AppendUint64(nil, uint64(size)))
}

// CollectionSize is the size of the item collection pk of table tableID as
// r holds it (one point read; 0 for an empty collection).
func CollectionSize(r Getter, tableID uint64, pk attr.Value) (int64, error) {
	return readCounter(r, CollectionKey(tableID, pk))
}

// Getter is a point reader: a storage snapshot, a transaction, a store's
// storage.PointReader.
type Getter interface {
	Get(key []byte) ([]byte, error)
}

// readCounter reads an int64 counter; a missing key is 0.
func readCounter(r Getter, key []byte) (int64, error) {
	v, err := r.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, errors.New("engine: corrupt item collection counter")
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// SizeEstimateRangeGB is DynamoDB's [lower, upper] estimate of a size in
// GB: the whole gigabytes below it and one more ([0, 1] for a small
// collection).
func SizeEstimateRangeGB(size int64) []float64 {
	lo := math.Floor(float64(size) / (1 << 30))
	return []float64{lo, lo + 1}
}
