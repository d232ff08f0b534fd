package engine

import (
	"slices"
	"strings"
)

// TableStat is a table's live figures, for monitoring (--metrics).
type TableStat struct {
	Name   string
	Status string // TableStatus
	Items  int64  // ItemCount as DescribeTable reports it
	Bytes  int64  // TableSizeBytes as DescribeTable reports it
	// Capacity is what the table and its GSIs consumed, with
	// Config.MeterCapacity (package throttle).
	Capacity []CapacityStat
}

// TableStats returns every table's figures, by name.
func (e *Engine) TableStats() []TableStat {
	tables := e.snapshotTables()
	out := make([]TableStat, 0, len(tables))
	for _, t := range tables {
		d := e.describe(t)
		out = append(out, TableStat{Name: t.Name, Status: d.TableStatus, Items: *d.ItemCount, Bytes: *d.TableSizeBytes,
			Capacity: t.Meters().Stats()})
	}
	slices.SortFunc(out, func(a, b TableStat) int { return strings.Compare(a.Name, b.Name) })
	return out
}
