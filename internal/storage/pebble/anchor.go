package pebble

import (
	"sync"
	"sync/atomic"
	"time"

	cpebble "github.com/cockroachdb/pebble/v2"
)

// anchorEvery is how long the anchor snapshot lives before it is replaced.
// While it lives, compactions keep the versions it can see: at most this
// much history of overwritten and deleted keys.
const anchorEvery = time.Second

// anchorCheckEvery is how many snapshots are taken between two looks at
// the clock.
const anchorCheckEvery = 64

// anchor keeps one long-lived Pebble snapshot open under the short-lived
// ones Kura takes for every request.
//
// Closing the oldest open snapshot makes Pebble look for compactions at
// once (under its DB mutex: a dropped snapshot may let a compaction discard
// versions). Kura takes and closes a snapshot per request, so without an
// anchor nearly every request's snapshot is the oldest when it closes, and
// that search cost about 4% of a document-workflow run's CPU. With an
// older anchor open, request snapshots never are the oldest; Pebble looks
// once per replacement of the anchor instead, and still after every flush
// and compaction.
type anchor struct {
	db    *cpebble.DB
	every time.Duration // anchorEvery; shorter in tests
	taken atomic.Uint32 // snapshots taken since the last clock check

	mu   sync.Mutex
	snap *cpebble.Snapshot // nil once closed
	at   time.Time
}

func newAnchor(db *cpebble.DB) *anchor {
	return &anchor{db: db, every: anchorEvery, snap: db.NewSnapshot(), at: time.Now()}
}

// tick is called for every snapshot taken; now and then it replaces an
// anchor older than a.every.
func (a *anchor) tick() {
	if a.taken.Add(1)%anchorCheckEvery != 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.snap == nil || time.Since(a.at) < a.every {
		return
	}
	old := a.snap
	a.snap, a.at = a.db.NewSnapshot(), time.Now()
	_ = old.Close()
}

// close releases the anchor; Store.Close calls it before closing Pebble.
func (a *anchor) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.snap != nil {
		_ = a.snap.Close()
		a.snap = nil
	}
}
