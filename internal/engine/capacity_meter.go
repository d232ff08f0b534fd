package engine

import (
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Capacity metering (Config.MeterCapacity, for --metrics): the capacity
// units each table and GSI consumes, read and write, and the requests
// throttled on each (with Config.Throttle), as CloudWatch's
// ConsumedRead/WriteCapacityUnits and Read/WriteThrottleEvents count them.
// The units are the ones ConsumedCapacity reports and throughput
// enforcement pays (throttle.go): LSI reads and writes count as the
// table's.

// meter counts one table's or GSI's reads or writes. Capacity comes in
// half units (an eventually consistent read of up to 4 KB), so it is kept
// as an integer count of halves.
type meter struct {
	halves    atomic.Int64
	throttled atomic.Uint64
}

func (m *meter) add(units float64) { m.halves.Add(int64(math.Round(units * 2))) }

// capacityMeters are one table ID's meters (kept in its tableStats, so
// they go with the table): the table's reads and writes, and each GSI's.
type capacityMeters struct {
	table [2]meter // reads, writes
	gsi   sync.Map // index name → *[2]meter
}

// meterFor is the meter of t's (index "") or its GSI's reads or writes;
// nil for a table without statistics.
func meterFor(t *Table, index string, write bool) *meter {
	if t.stats == nil {
		return nil
	}
	side := 0
	if write {
		side = 1
	}
	c := &t.stats.capacity
	if index == "" {
		return &c.table[side]
	}
	m, ok := c.gsi.Load(index)
	if !ok {
		m, _ = c.gsi.LoadOrStore(index, new([2]meter))
	}
	return &m.(*[2]meter)[side]
}

// CapacityStat is what a table (Index "") or one of its GSIs consumed,
// reads or writes, since the engine opened.
type CapacityStat struct {
	Index     string
	Write     bool
	Units     float64 // capacity units consumed
	Throttled uint64  // requests (batch requests: items) refused for capacity
}

// capacityStats are t's meters that counted something: the table's
// first, then by index name, reads before writes.
func capacityStats(t *Table) []CapacityStat {
	if t.stats == nil {
		return nil
	}
	var out []CapacityStat
	add := func(index string, m *[2]meter) {
		for side := range m {
			if h, th := m[side].halves.Load(), m[side].throttled.Load(); h != 0 || th != 0 {
				out = append(out, CapacityStat{Index: index, Write: side == 1, Units: float64(h) / 2, Throttled: th})
			}
		}
	}
	add("", &t.stats.capacity.table)
	var gsis []CapacityStat
	t.stats.capacity.gsi.Range(func(k, v any) bool {
		before := len(out)
		add(k.(string), v.(*[2]meter))
		gsis = append(gsis, out[before:]...)
		out = out[:before]
		return true
	})
	slices.SortStableFunc(gsis, func(a, b CapacityStat) int { return strings.Compare(a.Index, b.Index) })
	return append(out, gsis...)
}
