package engine

import (
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/indexes"
)

// The subsystems the write path offers every item change to
// (change.Subsystem), in the order they stage their writes: secondary
// indexes (internal/engine/indexes), vector indexes (internal/engine/vectors),
// the point-in-time recovery history, streams, Kinesis streaming
// destinations (internal/engine/kinesisdest).
// wireSubsystems builds the list at Open; stageWrite and writeStats know
// only the list.
func (e *Engine) wireSubsystems() {
	e.subs = change.Subsystems{indexes.Subsystem{Collections: &e.coll}, e.vec, e.pitr, e.streams, e.kin}
}
