package engine

import (
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
)

// The subsystems the write path offers every item change to
// (change.Subsystem), in the order they stage their writes: secondary
// indexes, vector indexes (internal/engine/vectors), the point-in-time
// recovery history, streams, Kinesis streaming destinations
// (internal/engine/kinesisdest).
// wireSubsystems builds the list at Open; stageWrite and writeStats know
// only the list.
func (e *Engine) wireSubsystems() {
	e.subs = change.Subsystems{indexSubsystem{e}, e.vec, e.pitr, e.streams, e.kin}
}

// tableOf is the engine's table behind a change.
func tableOf(c change.Change) *Table { return c.Table.(*Table) }

// indexSubsystem maintains GSI and LSI entries (index_write.go) and, once
// committed, the indexes' statistics.
type indexSubsystem struct{ e *Engine }

func (s indexSubsystem) Stage(txn storage.Txn, c change.Change) error {
	return s.e.indexWrites(txn, tableOf(c), c.Old, c.New)
}

func (s indexSubsystem) Committed(c change.Change) { s.e.addIndexStats(tableOf(c), c.Old, c.New) }
