package throttle

import (
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Capacity metering (the core's Config.MeterCapacity, for --metrics): the
// capacity units each table and GSI consumes, read and write, and the
// requests throttled on each, as CloudWatch's
// ConsumedRead/WriteCapacityUnits and Read/WriteThrottleEvents count them.
// The units are the ones ConsumedCapacity reports and enforcement pays:
// LSI reads and writes count as the table's.

// meter counts one table's or GSI's reads or writes. Capacity comes in
// half units (an eventually consistent read of up to 4 KB), so it is kept
// as an integer count of halves.
type meter struct {
	halves    atomic.Int64
	throttled atomic.Uint64
}

func (m *meter) add(units float64) { m.halves.Add(int64(math.Round(units * 2))) }

// Meters are one table ID's meters (the core keeps them with the table's
// statistics, so they go with the table): the table's reads and writes,
// and each GSI's. The zero value is ready.
type Meters struct {
	table [2]meter // reads, writes
	gsi   sync.Map // index name → *[2]meter
}

// of is the meter of the table's (index "") or a GSI's reads or writes.
func (c *Meters) of(index string, write bool) *meter {
	side := 0
	if write {
		side = 1
	}
	if index == "" {
		return &c.table[side]
	}
	m, ok := c.gsi.Load(index)
	if !ok {
		m, _ = c.gsi.LoadOrStore(index, new([2]meter))
	}
	return &m.(*[2]meter)[side]
}

// Stat is what a table (Index "") or one of its GSIs consumed, reads or
// writes, since the engine opened.
type Stat struct {
	Index     string
	Write     bool
	Units     float64 // capacity units consumed
	Throttled uint64  // requests (batch requests: items) refused for capacity
}

// Stats are the meters that counted something: the table's first, then
// by index name, reads before writes. nil Meters have none.
func (c *Meters) Stats() []Stat {
	if c == nil {
		return nil
	}
	var out []Stat
	add := func(index string, m *[2]meter) {
		for side := range m {
			if h, th := m[side].halves.Load(), m[side].throttled.Load(); h != 0 || th != 0 {
				out = append(out, Stat{Index: index, Write: side == 1, Units: float64(h) / 2, Throttled: th})
			}
		}
	}
	add("", &c.table)
	var gsis []Stat
	c.gsi.Range(func(k, v any) bool {
		before := len(out)
		add(k.(string), v.(*[2]meter))
		gsis = append(gsis, out[before:]...)
		out = out[:before]
		return true
	})
	slices.SortStableFunc(gsis, func(a, b Stat) int { return strings.Compare(a.Index, b.Index) })
	return append(out, gsis...)
}
