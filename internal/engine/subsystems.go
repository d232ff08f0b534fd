package engine

import (
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/storage"
)

// The subsystems the write path offers every item change to
// (change.Subsystem), in the order they stage their writes: secondary
// indexes (internal/engine/indexes), vector indexes, the point-in-time recovery history, streams,
// Kinesis streaming destinations (internal/engine/kinesisdest).
// wireSubsystems builds the list at Open; stageWrite and writeStats know
// only the list.
func (e *Engine) wireSubsystems() {
	e.subs = change.Subsystems{indexes.Subsystem{Collections: &e.coll}, vectorSubsystem{e}, e.pitr, e.streams, e.kin}
}

// tableOf is the engine's table behind a change.
func tableOf(c change.Change) *Table { return c.Table.(*Table) }

// vectorSubsystem keeps vector indexes' item mappings and dirty marks
// (vector_write.go) and, once committed, the in-memory indexes.
type vectorSubsystem struct{ e *Engine }

func (s vectorSubsystem) Stage(txn storage.Txn, c change.Change) error {
	return s.e.vectorWrites(txn, tableOf(c), c.Key, c.Old, c.New, c.Whole, c.Verbatim)
}

func (s vectorSubsystem) Committed(c change.Change) { s.e.vectorApply(tableOf(c), c.Old, c.New) }
