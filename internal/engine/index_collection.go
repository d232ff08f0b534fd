package engine

import (
	"math"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// collectionMetrics is the ItemCollectionMetrics of a write to a table with
// LSIs when ReturnItemCollectionMetrics is SIZE (nil otherwise): the
// collection's partition key and DynamoDB's size estimate range in GB,
// measured over the collection's items and LSI entries.
func (e *Engine) collectionMetrics(mode string, t *Table, key attr.Item) *wire.ItemCollectionMetrics {
	if mode != "SIZE" || len(t.LSIs) == 0 {
		return nil
	}
	pk := key[t.Hash.Name]
	size, err := e.collectionSize(t, pk)
	if err != nil {
		return nil
	}
	gb := float64(size) / (1 << 30)
	lo := math.Floor(gb)
	return &wire.ItemCollectionMetrics{
		ItemCollectionKey:   attr.Item{t.Hash.Name: pk},
		SizeEstimateRangeGB: []float64{lo, lo + 1},
	}
}

// collectionSize sums the sizes of the items and LSI entries of one item
// collection.
func (e *Engine) collectionSize(t *Table, pk attr.Value) (int64, error) {
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return 0, err
	}
	defer snap.Close()
	var total int64
	sum := func(prefix []byte, overhead int64) error {
		it, err := snap.NewIterator(storage.IterOptions{Lower: prefix, Upper: attr.PrefixEnd(prefix)})
		if err != nil {
			return err
		}
		defer it.Close()
		for it.Next() {
			total += itemSizeFromStored(it.Value()) + overhead
		}
		return it.Err()
	}
	if err := sum(partitionPrefix(t.ID, pk), 0); err != nil {
		return 0, err
	}
	for _, ix := range t.LSIs {
		if err := sum(ix.partitionPrefix(t.ID, []attr.Value{pk}), indexOverhead); err != nil {
			return 0, err
		}
	}
	return total, nil
}
