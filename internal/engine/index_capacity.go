package engine

import (
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/wire"
)

// indexUnits is the capacity one operation consumes on a table and on each
// of its indexes.
type indexUnits struct {
	table    float64
	gsi, lsi map[string]float64
	// vec is VectorWriteRequestBytes per vector index (not capacity units).
	vec map[string]float64
}

func (u indexUnits) total() float64 {
	s := u.table
	for _, v := range u.gsi {
		s += v
	}
	for _, v := range u.lsi {
		s += v
	}
	return s
}

// add accumulates v into u.
func (u *indexUnits) add(v indexUnits) {
	u.table += v.table
	merge := func(dst *map[string]float64, src map[string]float64) {
		for k, x := range src {
			if *dst == nil {
				*dst = map[string]float64{}
			}
			(*dst)[k] += x
		}
	}
	merge(&u.gsi, v.gsi)
	merge(&u.lsi, v.lsi)
	merge(&u.vec, v.vec)
}

// writeUnitsOf is the capacity of one item write: the table's share and
// each touched index's.
func (t *Table) writeUnitsOf(res writeResult) indexUnits {
	u := indexUnits{table: res.units()}
	u.gsi, u.lsi = t.indexWriteUnits(res.Old, res.New)
	u.vec = vectors.WriteBytes(&t.Table, t.Vectors, res.Old, res.New)
	return u
}

// writeConsumed is the ConsumedCapacity member of a single-item write, or
// nil when mode does not ask for it; the index shares are only worked out
// when it does (they take a look at every index of the table).
func (t *Table) writeConsumed(mode string, res writeResult) *wire.ConsumedCapacity {
	if mode != capTotal && mode != capIndexes {
		return nil
	}
	return consumedWithIndexes(mode, t.Name, t.writeUnitsOf(res))
}

// consumedWithIndexes is the ConsumedCapacity member for units consumed on
// table and its indexes, or nil when mode does not ask for it: TOTAL sums
// everything, INDEXES also breaks it down per table and index.
func consumedWithIndexes(mode, table string, u indexUnits) *wire.ConsumedCapacity {
	if mode != capTotal && mode != capIndexes {
		return nil
	}
	total := u.total()
	cc := &wire.ConsumedCapacity{TableName: &table, CapacityUnits: &total}
	if mode == capIndexes {
		tu := u.table
		cc.Table = &wire.Capacity{CapacityUnits: &tu}
		cc.GlobalSecondaryIndexes = capacityMap(u.gsi)
		cc.LocalSecondaryIndexes = capacityMap(u.lsi)
		for name, b := range u.vec {
			if cc.VectorIndexes == nil {
				cc.VectorIndexes = map[string]wire.VectorCapacity{}
			}
			cc.VectorIndexes[name] = wire.VectorCapacity{VectorWriteRequestBytes: &b}
		}
	}
	return cc
}

func capacityMap(m map[string]float64) map[string]wire.Capacity {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]wire.Capacity, len(m))
	for k, v := range m {
		out[k] = wire.Capacity{CapacityUnits: &v}
	}
	return out
}
