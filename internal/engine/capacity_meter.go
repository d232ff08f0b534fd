package engine

import (
	"math"
	"slices"
	"strings"
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

func (e *Engine) meterFor(k bucketKey) *meter {
	if m, ok := e.thr.meters.Load(k); ok {
		return m.(*meter)
	}
	m, _ := e.thr.meters.LoadOrStore(k, &meter{})
	return m.(*meter)
}

// CapacityStat is what a table (Index "") or one of its GSIs consumed,
// reads or writes, since the engine opened.
type CapacityStat struct {
	Index     string
	Write     bool
	Units     float64 // capacity units consumed
	Throttled uint64  // requests (batch requests: items) refused for capacity
}

// capacityStats are table id's meters, table first, then by index name,
// reads before writes.
func (e *Engine) capacityStats(id uint64) []CapacityStat {
	var out []CapacityStat
	e.thr.meters.Range(func(k, v any) bool {
		if key := k.(bucketKey); key.table == id {
			m := v.(*meter)
			out = append(out, CapacityStat{Index: key.index, Write: key.write,
				Units: float64(m.halves.Load()) / 2, Throttled: m.throttled.Load()})
		}
		return true
	})
	slices.SortFunc(out, func(a, b CapacityStat) int {
		if c := strings.Compare(a.Index, b.Index); c != 0 {
			return c
		}
		if a.Write == b.Write {
			return 0
		}
		if a.Write {
			return 1
		}
		return -1
	})
	return out
}
