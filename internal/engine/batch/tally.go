package batch

import (
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/wire"
)

// Tally sums the capacity a batch operation consumes per table, in the
// order tables are first charged. DynamoDB reports a batch's aggregate
// CapacityUnits per table (no read and write split), with INDEXES the
// table's and each index's shares.
type Tally struct {
	order []string
	units map[string]float64
	index map[string]*indexes.Units // index shares per table (writes)
}

// AddIndexes charges a table and its indexes.
func (c *Tally) AddIndexes(table string, u indexes.Units) {
	c.Add(table, u.Table)
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

// Add charges units to table.
func (c *Tally) Add(table string, units float64) {
	if c.units == nil {
		c.units = map[string]float64{}
	}
	if _, ok := c.units[table]; !ok {
		c.order = append(c.order, table)
	}
	c.units[table] += units
}

// List is the ConsumedCapacity list of a batch response, or nil when mode
// (ReturnConsumedCapacity) does not ask for it.
func (c *Tally) List(mode string) []wire.ConsumedCapacity {
	if mode != indexes.CapacityTotal && mode != indexes.CapacityIndexes {
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
