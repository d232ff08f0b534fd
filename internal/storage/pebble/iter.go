package pebble

import (
	cpebble "github.com/cockroachdb/pebble/v2"

	"github.com/kura-db/kura/internal/storage"
)

// iter implements storage.Iterator over a Pebble iterator. Key and Value
// are copied into per-iterator buffers, so a caller scribbling on them
// cannot reach Pebble's block cache.
type iter struct {
	store *Store
	sn    *snap // nil for an iterator over the latest state

	pi      *cpebble.Iterator // nil for an empty range
	reverse bool
	started bool
	done    bool // no more entries, or closed

	key, value []byte
	err        error
}

// Next advances to the next key; it reports false at the end or on error.
func (it *iter) Next() bool {
	if it.done || it.err != nil {
		return false
	}
	st := it.store
	st.mu.RLock()
	defer st.mu.RUnlock()
	if it.pi == nil {
		// Released by Store.Close or by closing the snapshot.
		if it.err == nil {
			it.err = storage.ErrClosed
		}
		return false
	}
	var ok bool
	switch {
	case !it.started && it.reverse:
		ok = it.pi.Last()
	case !it.started:
		ok = it.pi.First()
	case it.reverse:
		ok = it.pi.Prev()
	default:
		ok = it.pi.Next()
	}
	it.started = true
	if !ok {
		it.done = true
		it.err = it.pi.Error()
		return false
	}
	v, err := it.pi.ValueAndErr()
	if err != nil {
		it.done = true
		it.err = err
		return false
	}
	it.key = append(it.key[:0], it.pi.Key()...)
	it.value = append(it.value[:0], v...)
	return true
}

// Key returns the current key, valid until the next call to Next.
func (it *iter) Key() []byte { return it.key }

// Value returns the current value, valid until the next call to Next.
func (it *iter) Value() []byte { return it.value }

// Err returns the error that ended the iteration, if any.
func (it *iter) Err() error { return it.err }

// Close releases the iterator.
func (it *iter) Close() error {
	st := it.store
	st.mu.RLock()
	defer st.mu.RUnlock()
	it.done = true
	if it.pi == nil {
		return nil
	}
	st.regMu.Lock()
	if it.sn != nil {
		delete(it.sn.iters, it)
	} else {
		delete(st.iters, it)
	}
	st.regMu.Unlock()
	err := it.pi.Close()
	it.pi = nil
	return err
}

// release force-closes the iterator when its snapshot or the store closes;
// the caller holds store.regMu. Later Next calls report storage.ErrClosed.
func (it *iter) release() {
	if it.pi != nil {
		_ = it.pi.Close()
		it.pi = nil
	}
}
