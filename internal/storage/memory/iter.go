package memory

import (
	"bytes"

	"github.com/google/btree"

	"github.com/kura-db/kura/internal/storage"
)

// Chunk sizes: an iterator fetches items from the tree in chunks, starting
// small (point-ish scans stay cheap) and doubling up to maxChunk.
const (
	minChunk = 16
	maxChunk = 512
)

// iter walks a tree clone in chunks. Each chunk is one O(log n) descent plus
// a callback walk, so an iterator needs no cursor support from the tree.
type iter struct {
	store   *Store
	tree    *btree.BTreeG[item]
	lower   []byte
	upper   []byte
	reverse bool

	buf       []item
	pos       int
	chunk     int
	last      []byte // key of the last fetched item
	started   bool
	exhausted bool

	key, value []byte // copies handed to the caller
	err        error
	closed     bool
}

func newIter(s *Store, t *btree.BTreeG[item], opts storage.IterOptions) *iter {
	return &iter{
		store:   s,
		tree:    t,
		lower:   cloneBound(opts.Lower),
		upper:   cloneBound(opts.Upper),
		reverse: opts.Reverse,
		chunk:   minChunk,
	}
}

// Next advances to the next key; it reports false at the end or on error.
func (it *iter) Next() bool {
	if it.closed || it.err != nil {
		return false
	}
	if it.store.closed.Load() {
		it.err = storage.ErrClosed
		return false
	}
	if it.pos >= len(it.buf) {
		if it.exhausted {
			return false
		}
		it.fill()
		if len(it.buf) == 0 {
			return false
		}
	}
	cur := it.buf[it.pos]
	it.pos++
	it.key = append(it.key[:0], cur.key...)
	it.value = append(it.value[:0], cur.value...)
	return true
}

// fill fetches the next chunk into buf.
func (it *iter) fill() {
	it.buf = it.buf[:0]
	it.pos = 0
	limit := it.chunk
	if it.chunk < maxChunk {
		it.chunk *= 2
	}
	full := false
	var skip []byte // a key to skip: the previous chunk's last, or Upper
	if it.started {
		skip = it.last
	} else if it.reverse && it.upper != nil {
		skip = it.upper
	}
	visit := func(x item) bool {
		if skip != nil && bytes.Equal(x.key, skip) {
			return true
		}
		if it.reverse {
			if it.lower != nil && bytes.Compare(x.key, it.lower) < 0 {
				return false
			}
		} else if it.upper != nil && bytes.Compare(x.key, it.upper) >= 0 {
			return false
		}
		it.buf = append(it.buf, x)
		if len(it.buf) >= limit {
			full = true
			return false
		}
		return true
	}
	switch {
	case !it.reverse && it.started:
		it.tree.AscendGreaterOrEqual(item{key: it.last}, visit)
	case !it.reverse && it.lower != nil:
		it.tree.AscendGreaterOrEqual(item{key: it.lower}, visit)
	case !it.reverse:
		it.tree.Ascend(visit)
	case it.started:
		it.tree.DescendLessOrEqual(item{key: it.last}, visit)
	case it.upper != nil:
		it.tree.DescendLessOrEqual(item{key: it.upper}, visit)
	default:
		it.tree.Descend(visit)
	}
	it.started = true
	if !full {
		it.exhausted = true
	}
	if n := len(it.buf); n > 0 {
		it.last = it.buf[n-1].key
	}
}

// Key returns the current key, valid until the next call to Next.
func (it *iter) Key() []byte { return it.key }

// Value returns the current value, valid until the next call to Next.
func (it *iter) Value() []byte { return it.value }

// Err returns the error that ended the iteration, if any.
func (it *iter) Err() error { return it.err }

// Close releases the iterator.
func (it *iter) Close() error {
	it.closed = true
	it.buf = nil
	return nil
}

// cloneBound copies an iteration bound, keeping nil (open) distinct from
// empty.
func cloneBound(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}
