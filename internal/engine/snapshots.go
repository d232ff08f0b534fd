package engine

import (
	"time"

	"github.com/kura-db/kura/internal/engine/snapshot"
)

// snapshotLayout tells the snapshot reader where a table's items and its
// point-in-time history live (keys.go, pitr_log.go).
var snapshotLayout = &snapshot.Layout{
	Items: func(tableID uint64) (lower, upper []byte) {
		return itemPrefix(tableID), itemPrefix(tableID + 1)
	},
	PrefixLen: itemPrefixLen,
	HistoryAfter: func(tableID uint64, at time.Time) (lower, upper []byte) {
		return pitrKey(tableID, at.UnixNano()+1), pitrPrefix(tableID + 1)
	},
	DecodeHistory: decodePITR,
}

// openSnapshot takes a snapshot of the store now.
func (e *Engine) openSnapshot() (*snapshot.Reader, error) {
	return snapshot.Open(e.store, snapshotLayout)
}
