package indexes

import "github.com/kura-db/kura/internal/wire"

// Units is the capacity one operation consumes on a table and on each of
// its indexes, as ConsumedCapacity reports it.
type Units struct {
	Table    float64
	GSI, LSI map[string]float64
	// Vec is VectorWriteRequestBytes per vector index (not capacity units).
	Vec map[string]float64
}

// Total is the capacity units of the table and every index.
func (u Units) Total() float64 {
	s := u.Table
	for _, v := range u.GSI {
		s += v
	}
	for _, v := range u.LSI {
		s += v
	}
	return s
}

// WithLSIs is the table's share with its LSIs' added: what the table's
// own capacity pays.
func (u Units) WithLSIs() float64 {
	s := u.Table
	for _, v := range u.LSI {
		s += v
	}
	return s
}

// Add accumulates v into u.
func (u *Units) Add(v Units) {
	u.Table += v.Table
	merge := func(dst *map[string]float64, src map[string]float64) {
		for k, x := range src {
			if *dst == nil {
				*dst = map[string]float64{}
			}
			(*dst)[k] += x
		}
	}
	merge(&u.GSI, v.GSI)
	merge(&u.LSI, v.LSI)
	merge(&u.Vec, v.Vec)
}

// ReturnConsumedCapacity values that ask for it.
const (
	CapacityTotal   = "TOTAL"
	CapacityIndexes = "INDEXES"
)

// Consumed is the ConsumedCapacity member for units consumed on table and
// its indexes, or nil when mode does not ask for it: TOTAL sums
// everything, INDEXES also breaks it down per table and index.
func Consumed(mode, table string, u Units) *wire.ConsumedCapacity {
	if mode != CapacityTotal && mode != CapacityIndexes {
		return nil
	}
	total := u.Total()
	cc := &wire.ConsumedCapacity{TableName: &table, CapacityUnits: &total}
	if mode == CapacityIndexes {
		tu := u.Table
		cc.Table = &wire.Capacity{CapacityUnits: &tu}
		cc.GlobalSecondaryIndexes = capacityMap(u.GSI)
		cc.LocalSecondaryIndexes = capacityMap(u.LSI)
		for name, b := range u.Vec {
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
