package snapshot

import (
	"bytes"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// Layout is where the core keeps what a Reader reads.
type Layout struct {
	// Items is the key range [lower, upper) of a table's items.
	Items func(tableID uint64) (lower, upper []byte)
	// PrefixLen is the length of the table's prefix in an item key: the
	// rest (the item's suffix) names the item within its table.
	PrefixLen int
	// HistoryAfter is the key range of the change-history entries of a
	// table recorded after `at`, oldest first.
	HistoryAfter func(tableID uint64, at time.Time) (lower, upper []byte)
	// DecodeHistory splits one history entry into the suffix of the item
	// it changed and the stored image the change replaced (nil when the
	// change created the item).
	DecodeHistory func(v []byte) (suffix, stored []byte, err error)
}

// Visit is called with one item: its suffix (its key without the table
// prefix) and its stored form. Both are valid only during the call. It
// returns false to stop the walk.
type Visit func(suffix, stored []byte) (bool, error)

// Reader reads tables as one storage snapshot holds them.
type Reader struct {
	snap   storage.Snapshot
	layout *Layout
}

// New returns a Reader over snap, which it owns (Close closes it).
func New(snap storage.Snapshot, layout *Layout) *Reader {
	return &Reader{snap: snap, layout: layout}
}

// Open takes a snapshot of store now and returns a Reader over it.
func Open(store storage.Store, layout *Layout) (*Reader, error) {
	snap, err := store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	return New(snap, layout), nil
}

// Close releases the snapshot.
func (r *Reader) Close() error { return r.snap.Close() }

// Range calls fn with the key and value of every key in [lower, upper), in
// key order; both are valid only during the call. It reports false when fn
// stopped it.
func (r *Reader) Range(lower, upper []byte, fn func(key, value []byte) (bool, error)) (bool, error) {
	it, err := r.snap.NewIterator(storage.IterOptions{Lower: lower, Upper: upper})
	if err != nil {
		return false, err
	}
	defer it.Close()
	for it.Next() {
		if ok, err := fn(it.Key(), it.Value()); !ok || err != nil {
			return false, err
		}
	}
	return true, it.Err()
}

// Items calls fn with every item of table tableID as the snapshot holds
// it, in storage order. It reports false when fn stopped it.
func (r *Reader) Items(tableID uint64, fn Visit) (bool, error) {
	return r.ItemsFrom(tableID, nil, fn)
}

// ItemsFrom is Items from the item whose suffix is from on (nil: from the
// first), for a job that walks a table in steps, each over a snapshot of
// its own, resuming after the last suffix it saw.
func (r *Reader) ItemsFrom(tableID uint64, from []byte, fn Visit) (bool, error) {
	lower, upper := r.layout.Items(tableID)
	n := r.layout.PrefixLen
	if from != nil {
		lower = append(lower[:n:n], from...)
	}
	return r.Range(lower, upper, func(key, value []byte) (bool, error) {
		return fn(key[n:], value)
	})
}

// ItemKey is the storage key of the item of table tableID that suffix
// names.
func (r *Reader) ItemKey(tableID uint64, suffix []byte) []byte {
	lower, _ := r.layout.Items(tableID)
	n := r.layout.PrefixLen
	return append(lower[:n:n], suffix...)
}

// ItemsAt calls fn with every item of table tableID as it was at `at`:
// the snapshot's items with the images their changes after `at` replaced.
// Each item changed since is as its first change after `at` found it (and
// left out if that change created it); the others are as they are. The
// items come in storage order, then those deleted since (in no order). It
// reports false when fn stopped it.
func (r *Reader) ItemsAt(tableID uint64, at time.Time, fn Visit) (bool, error) {
	then, err := r.history(tableID, at)
	if err != nil {
		return false, err
	}
	ok, err := r.Items(tableID, func(suffix, stored []byte) (bool, error) {
		if img, changed := then[string(suffix)]; changed {
			delete(then, string(suffix))
			if stored = img; stored == nil {
				return true, nil // created after `at`
			}
		}
		return fn(suffix, stored)
	})
	if !ok || err != nil {
		return false, err
	}
	for suffix, img := range then { // deleted after `at`
		if img == nil {
			continue
		}
		if ok, err := fn([]byte(suffix), img); !ok || err != nil {
			return false, err
		}
	}
	return true, nil
}

// history maps the suffix of every item changed after `at` to the image
// its first change after `at` replaced (nil: the item did not exist at
// `at`).
func (r *Reader) history(tableID uint64, at time.Time) (map[string][]byte, error) {
	then := map[string][]byte{}
	lower, upper := r.layout.HistoryAfter(tableID, at)
	_, err := r.Range(lower, upper, func(_, v []byte) (bool, error) {
		suffix, stored, err := r.layout.DecodeHistory(v)
		if err != nil {
			return false, err
		}
		if _, seen := then[string(suffix)]; !seen {
			then[string(suffix)] = bytes.Clone(stored)
		}
		return true, nil
	})
	return then, err
}
