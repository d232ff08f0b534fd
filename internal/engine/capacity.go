package engine

import (
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/throttle"
	"github.com/kura-db/kura/internal/wire"
)

// writeUnitBytes is what a write capacity unit covers (a read unit's:
// throttle.ReadUnitBytes).
const writeUnitBytes = 1024

// ReturnConsumedCapacity values.
const (
	capTotal   = indexes.CapacityTotal
	capIndexes = indexes.CapacityIndexes
)

// readUnits is the read capacity of reading size bytes (throttle.ReadUnits).
func readUnits(size int, consistent bool) float64 { return throttle.ReadUnits(size, consistent) }

// writeUnits is the write capacity of writing size bytes: rounded up to
// 1 KB units, at least one.
func writeUnits(size int) float64 {
	return float64(max(1, (size+writeUnitBytes-1)/writeUnitBytes))
}

// consumedCapacity is the ConsumedCapacity member of a response for units
// consumed on table, or nil when mode (ReturnConsumedCapacity) does not ask
// for it. DynamoDB reports only the aggregate CapacityUnits for
// non-transactional operations (no Read/WriteCapacityUnits split); INDEXES
// adds the table's own share under Table (index shares join when indexes
// exist).
func consumedCapacity(mode, table string, units float64) *wire.ConsumedCapacity {
	if mode != capTotal && mode != capIndexes {
		return nil
	}
	cc := &wire.ConsumedCapacity{TableName: &table, CapacityUnits: &units}
	if mode == capIndexes {
		tu := units
		cc.Table = &wire.Capacity{CapacityUnits: &tu}
	}
	return cc
}
