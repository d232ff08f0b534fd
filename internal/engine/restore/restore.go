package restore

import (
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/snapshot"
)

// Chunk is how many items one storage transaction of a restore writes.
const Chunk = 256

// Target is the table a restore writes into, as the core gives it.
type Target interface {
	// Write writes items (distinct keys) in one storage transaction
	// through the write path.
	Write(items []attr.Item) error
}

// Sleep waits d (0: yields) and reports false when the engine is closing.
type Sleep func(d time.Duration) bool

// FromBackup writes into t the items (stored form) of the key range
// [lower, upper) of r: a backup's copy. It reports false when the engine
// closed before the end.
func FromBackup(r *snapshot.Reader, lower, upper []byte, t Target, sleep Sleep) (bool, error) {
	w := writer{t: t, sleep: sleep}
	ok, err := r.Range(lower, upper, func(_, stored []byte) (bool, error) { return w.add(stored) })
	if !ok || err != nil {
		return false, err
	}
	return w.flush()
}

// AtTime writes into t the items of table tableID as they were at `at`
// (snapshot.ItemsAt). It reports false when the engine closed before the
// end.
func AtTime(r *snapshot.Reader, tableID uint64, at time.Time, t Target, sleep Sleep) (bool, error) {
	w := writer{t: t, sleep: sleep}
	ok, err := r.ItemsAt(tableID, at, func(_, stored []byte) (bool, error) { return w.add(stored) })
	if !ok || err != nil {
		return false, err
	}
	return w.flush()
}

// writer gathers a restore's items (stored form) into chunks of Chunk and
// writes each with one Write; add and flush report false when the engine
// is closing.
type writer struct {
	t     Target
	sleep Sleep
	items []attr.Item
}

func (w *writer) add(stored []byte) (bool, error) {
	item, err := attr.DecodeItem(stored)
	if err != nil {
		return false, err
	}
	if w.items = append(w.items, item); len(w.items) < Chunk {
		return true, nil
	}
	return w.flush()
}

func (w *writer) flush() (bool, error) {
	if err := w.t.Write(w.items); err != nil {
		return false, err
	}
	w.items = w.items[:0]
	return w.sleep(0), nil
}
