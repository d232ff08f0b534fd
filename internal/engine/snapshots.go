package engine

import (
	"time"

	"github.com/kura-db/kura/internal/engine/pitr"
	"github.com/kura-db/kura/internal/engine/snapshot"
)

// snapshotLayout tells the snapshot reader where a table's items and its
// point-in-time history live (keys.go, package pitr).
var snapshotLayout = &snapshot.Layout{
	Items: func(tableID uint64) (lower, upper []byte) {
		return itemPrefix(tableID), itemPrefix(tableID + 1)
	},
	PrefixLen: itemPrefixLen,
	HistoryAfter: func(tableID uint64, at time.Time) (lower, upper []byte) {
		return pitr.Key(tableID, at.UnixNano()+1), pitr.Prefix(tableID + 1)
	},
	DecodeHistory: pitr.DecodeEntry,
}

// openSnapshot takes a snapshot of the store now.
func (e *Engine) openSnapshot() (*snapshot.Reader, error) {
	return snapshot.Open(e.store, snapshotLayout)
}
