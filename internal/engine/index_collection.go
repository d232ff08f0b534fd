package engine

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math"
	"slices"
	"sync"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
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
// collection in the item's own storage transaction (collectionWrite, from
// indexWrites), so writes to different items of one collection all touch
// the same key. Left to the storage conflict detector alone, concurrent
// writers of one collection would keep failing each other's commits (and
// exhaust their retries), so the write paths also take a striped
// collection lock before their storage transaction begins, after the item
// stripe locks (lockCollection, lockCollections; both levels in global
// stripe order, so no cycle): writers of one item collection run one at a
// time, like writers of one item. That is the price of an exact limit,
// paid only by tables with LSIs; tables without LSIs take no collection
// lock and never touch a counter. The counter is absent while the
// collection is empty.

// maxCollectionSize is DynamoDB's item collection size limit (10 GB).
const maxCollectionSize = 10 << 30

// collectionIndexID is the reserved index ID of the collection counters.
const collectionIndexID = 0

// collectionKey is the storage key of the size counter of the item
// collection with partition key pk.
func collectionKey(tableID uint64, pk attr.Value) []byte {
	return attr.AppendKey(indexPrefix(tableID, collectionIndexID), pk)
}

// collectionLockStripes is the number of collection lock stripes.
const collectionLockStripes = 256

// collectionState is the engine's item collection state.
type collectionState struct {
	locks [collectionLockStripes]sync.Mutex
	// max overrides the 10 GB limit when positive (tests).
	max int64
}

// collectionLimit is the item collection size limit in force.
func (e *Engine) collectionLimit() int64 {
	if e.coll.max > 0 {
		return e.coll.max
	}
	return maxCollectionSize
}

// collectionStripe is the collection lock stripe of the collection of key
// k in t.
func collectionStripe(t *Table, k primaryKey) int {
	h := fnv.New32a()
	h.Write(collectionKey(t.ID, k.pk))
	return int(h.Sum32() % collectionLockStripes)
}

// noUnlock is the unlock function when no lock was taken.
func noUnlock() {}

// lockCollection takes the collection lock of one write (writeItem) when
// t has LSIs; callers hold the item's stripe lock and call the returned
// function when the write is over.
func (e *Engine) lockCollection(t *Table, k primaryKey) func() {
	if len(t.LSIs) == 0 {
		return noUnlock
	}
	mu := &e.coll.locks[collectionStripe(t, k)]
	mu.Lock()
	return mu.Unlock
}

// lockCollections takes the collection locks of several writes (a batch, a
// transaction; tables[i] and keys[i] are one write) in stripe order, after
// their item stripe locks.
func (e *Engine) lockCollections(tables []*Table, keys []primaryKey) func() {
	var idx []int
	for i, t := range tables {
		if len(t.LSIs) > 0 {
			idx = append(idx, collectionStripe(t, keys[i]))
		}
	}
	if len(idx) == 0 {
		return noUnlock
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	for _, i := range idx {
		e.coll.locks[i].Lock()
	}
	return func() {
		for j := len(idx) - 1; j >= 0; j-- {
			e.coll.locks[idx[j]].Unlock()
		}
	}
}

// collectionContribution is what one item adds to its collection: its size
// plus the size of each of its LSI entries (entries count indexOverhead).
func (t *Table) collectionContribution(it attr.Item) int64 {
	if it == nil {
		return 0
	}
	n := int64(attr.ItemSize(it))
	for _, ix := range t.LSIs {
		if ix.indexed(it) {
			n += entrySize(t.project(ix, it))
		}
	}
	return n
}

// collectionWrite updates the collection counter for one item change
// inside the item's transaction. A change that grows the collection past
// the limit fails with ItemCollectionSizeLimitExceededException; a change
// that does not grow it (a delete, a shrinking update) always passes, so a
// collection over the limit can be brought back under it.
func (e *Engine) collectionWrite(txn storage.Txn, t *Table, old, new attr.Item) error {
	if len(t.LSIs) == 0 {
		return nil
	}
	delta := t.collectionContribution(new) - t.collectionContribution(old)
	if delta == 0 {
		return nil
	}
	it := new
	if it == nil {
		it = old
	}
	key := collectionKey(t.ID, it[t.Hash.Name])
	cur, err := readCounter(txn, key)
	if err != nil {
		return err
	}
	size := cur + delta
	if delta > 0 && size > e.collectionLimit() {
		return ddberr.ItemCollectionSizeLimitExceeded()
	}
	if size <= 0 {
		return txn.Delete(key)
	}
	return txn.Set(key, binary.BigEndian.AppendUint64(nil, uint64(size)))
}

// readCounter reads an int64 counter; a missing key is 0.
func readCounter(r interface{ Get([]byte) ([]byte, error) }, key []byte) (int64, error) {
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

// collectionSize is the current size of one item collection, from its
// counter (one point read).
func (e *Engine) collectionSize(t *Table, pk attr.Value) (int64, error) {
	key := collectionKey(t.ID, pk)
	if e.point != nil {
		return readCounter(e.point, key)
	}
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return 0, err
	}
	defer snap.Close()
	return readCounter(snap, key)
}

// collectionMetrics is the ItemCollectionMetrics of a write to a table with
// LSIs when ReturnItemCollectionMetrics is SIZE (nil otherwise): the
// collection's partition key and its size estimate range in GB.
func (e *Engine) collectionMetrics(mode string, t *Table, key attr.Item) *wire.ItemCollectionMetrics {
	if mode != "SIZE" || len(t.LSIs) == 0 {
		return nil
	}
	pk := key[t.Hash.Name]
	size, err := e.collectionSize(t, pk)
	if err != nil {
		return nil
	}
	return &wire.ItemCollectionMetrics{
		ItemCollectionKey:   attr.Item{t.Hash.Name: pk},
		SizeEstimateRangeGB: sizeEstimateRangeGB(size),
	}
}

// sizeEstimateRangeGB is DynamoDB's [lower, upper] estimate of a size in
// GB: the whole gigabytes below it and one more ([0, 1] for a small
// collection).
func sizeEstimateRangeGB(size int64) []float64 {
	lo := math.Floor(float64(size) / (1 << 30))
	return []float64{lo, lo + 1}
}

// batchCollectionMetrics is BatchWriteItem's ItemCollectionMetrics when
// ReturnItemCollectionMetrics is SIZE: per table with LSIs, one entry per
// item collection the batch wrote to, in request order.
func (e *Engine) batchCollectionMetrics(mode string, writes []batchWrite) map[string][]wire.ItemCollectionMetrics {
	if mode != "SIZE" {
		return nil
	}
	names, tables, keys := make([]string, len(writes)), make([]*Table, len(writes)), make([]primaryKey, len(writes))
	for i, w := range writes {
		names[i], tables[i], keys[i] = w.name, w.t, w.key
	}
	return e.collectionMetricsPerTable(mode, names, tables, keys)
}

// collectionMetricsPerTable is the per-table ItemCollectionMetrics of a
// multi-item write (BatchWriteItem, TransactWriteItems; names[i],
// tables[i] and keys[i] are one written item, names[i] its table as the
// request names it, name or ARN, which keys the answer as it keys
// BatchGetItem's) when mode is SIZE: per table with LSIs,
// one entry per item collection written to, in request order, each with
// the collection's size after the write.
func (e *Engine) collectionMetricsPerTable(mode string, names []string, tables []*Table, keys []primaryKey) map[string][]wire.ItemCollectionMetrics {
	if mode != "SIZE" {
		return nil
	}
	var out map[string][]wire.ItemCollectionMetrics
	seen := map[string]bool{}
	for i, t := range tables {
		if len(t.LSIs) == 0 {
			continue
		}
		id := string(collectionKey(t.ID, keys[i].pk))
		if seen[id] {
			continue
		}
		seen[id] = true
		m := e.collectionMetrics(mode, t, attr.Item{t.Hash.Name: keys[i].pk})
		if m == nil {
			continue
		}
		if out == nil {
			out = map[string][]wire.ItemCollectionMetrics{}
		}
		out[names[i]] = append(out[names[i]], *m)
	}
	return out
}
