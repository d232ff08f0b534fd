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

// capacityTally sums the capacity a batch operation consumes per table, in
// the order tables are first charged.
type capacityTally struct {
	order []string
	units map[string]float64
	index map[string]*indexes.Units // index shares per table (writes)
}

// addIndexes charges a table and its indexes.
func (c *capacityTally) addIndexes(table string, u indexes.Units) {
	c.add(table, u.Table)
	if u.GSI == nil && u.LSI == nil {
		return
	}
	if c.index == nil {
		c.index = map[string]*indexes.Units{}
	}
	x := c.index[table]
	if x == nil {
		x = &indexes.Units{}
		c.index[table] = x
	}
	x.Add(indexes.Units{GSI: u.GSI, LSI: u.LSI})
}

// add charges units to table.
func (c *capacityTally) add(table string, units float64) {
	if c.units == nil {
		c.units = map[string]float64{}
	}
	if _, ok := c.units[table]; !ok {
		c.order = append(c.order, table)
	}
	c.units[table] += units
}

// list is the ConsumedCapacity list of a batch response, or nil when mode
// does not ask for it.
func (c *capacityTally) list(mode string) []wire.ConsumedCapacity {
	if mode != capTotal && mode != capIndexes {
		return nil
	}
	out := make([]wire.ConsumedCapacity, 0, len(c.order))
	for _, name := range c.order {
		u := indexes.Units{Table: c.units[name]}
		if x := c.index[name]; x != nil {
			u.GSI, u.LSI = x.GSI, x.LSI
		}
		out = append(out, *indexes.Consumed(mode, name, u))
	}
	return out
}
