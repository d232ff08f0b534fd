package indexes

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// ItemCollectionMetrics of writes (ReturnItemCollectionMetrics SIZE): for
// a table with LSIs, each item collection written to, with its size
// estimate after the write.

// metricsSize is ReturnItemCollectionMetrics' value that asks for them.
const metricsSize = "SIZE"

// Written is one written item, as the metrics need it: its table as the
// request names it (name or ARN, which keys a batch's answer), the table's
// ID, whether it has LSIs, its partition key attribute, and the item's
// partition key value.
type Written struct {
	Name     string
	TableID  uint64
	HasLSI   bool
	HashName string
	PK       attr.Value
}

// Metrics is the ItemCollectionMetrics of a write w when mode is SIZE
// and its table has LSIs (nil otherwise, and when its size cannot be
// read): the collection's partition key and its size estimate range in
// GB. size reads a collection's counter.
func Metrics(mode string, w Written, size func(tableID uint64, pk attr.Value) (int64, error)) *wire.ItemCollectionMetrics {
	if mode != metricsSize || !w.HasLSI {
		return nil
	}
	n, err := size(w.TableID, w.PK)
	if err != nil {
		return nil
	}
	return &wire.ItemCollectionMetrics{
		ItemCollectionKey:   attr.Item{w.HashName: w.PK},
		SizeEstimateRangeGB: SizeEstimateRangeGB(n),
	}
}

// MetricsPerTable is the per-table ItemCollectionMetrics of a multi-item
// write (BatchWriteItem, TransactWriteItems) when mode is SIZE: per table
// with LSIs (keyed by its name as the request gave it), one entry per
// item collection written to, in request order.
func MetricsPerTable(mode string, ws []Written, size func(tableID uint64, pk attr.Value) (int64, error)) map[string][]wire.ItemCollectionMetrics {
	if mode != metricsSize {
		return nil
	}
	var out map[string][]wire.ItemCollectionMetrics
	seen := map[string]bool{}
	for _, w := range ws {
		if !w.HasLSI {
			continue
		}
		id := string(CollectionKey(w.TableID, w.PK))
		if seen[id] {
			continue
		}
		seen[id] = true
		m := Metrics(mode, w, size)
		if m == nil {
			continue
		}
		if out == nil {
			out = map[string][]wire.ItemCollectionMetrics{}
		}
		out[w.Name] = append(out[w.Name], *m)
	}
	return out
}
