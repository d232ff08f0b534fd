package postgres

import (
	"bytes"
	"fmt"

	"github.com/kura-db/kura/internal/storage"
)

// An iterator reads its range in batches, each one statement on its
// reader's connection with a LIMIT, continuing after the last key it
// returned (keyset pagination over the primary key's btree). Batches start
// small, for a Query that wants a few items (firstBatch), and double up to
// maxBatch, for a Scan that wants a page of a megabyte. Between batches
// the connection is free for the reader's other reads.
const (
	firstBatch = 32 // a Query page of the SDKs' usual Limit 25 in one
	maxBatch   = 1024
)

const (
	forwardSQL = `SELECT k, v FROM kura_kv WHERE k >= $1 AND k < $2 AND v IS NOT NULL ORDER BY k LIMIT $3`
	reverseSQL = `SELECT k, v FROM kura_kv WHERE k >= $1 AND k < $2 AND v IS NOT NULL ORDER BY k DESC LIMIT $3`
)

// batchSource runs an iterator's statements (a snapshot's, a
// transaction's or the iterator's own reader), calling each for every row.
type batchSource interface {
	rows(sql string, args []any, each func(k, v []byte)) error
}

type iterator struct {
	s        *Store
	src      batchSource
	lo, hi   []byte // the keys still to read, namespaced: [lo, hi)
	reverse  bool
	limit    int
	keys     [][]byte // the current batch
	vals     [][]byte
	pos      int
	finished bool // the last batch was the range's end
	err      error
}

func newIterator(s *Store, src batchSource, opts storage.IterOptions) *iterator {
	lo, hi := s.prefix, s.end
	if opts.Lower != nil {
		lo = s.key(opts.Lower)
	}
	if opts.Upper != nil {
		hi = s.key(opts.Upper)
	}
	it := &iterator{s: s, src: src, lo: lo, hi: hi, reverse: opts.Reverse, limit: firstBatch, pos: -1}
	if bytes.Compare(lo, hi) >= 0 {
		it.finished = true
	}
	return it
}

func (it *iterator) Next() bool {
	if it.err != nil {
		return false
	}
	if it.s.closed.Closed() {
		it.err = storage.ErrClosed
		return false
	}
	it.pos++
	if it.pos < len(it.keys) {
		return true
	}
	if it.finished {
		return false
	}
	if it.err = it.fetch(); it.err != nil {
		return false
	}
	it.pos = 0
	return len(it.keys) > 0
}

// fetch reads the next batch and narrows the range past it.
func (it *iterator) fetch() error {
	it.keys, it.vals = it.keys[:0], it.vals[:0]
	sql := forwardSQL
	if it.reverse {
		sql = reverseSQL
	}
	err := it.src.rows(sql, []any{it.lo, it.hi, it.limit}, func(k, v []byte) {
		it.keys = append(it.keys, k[len(it.s.prefix):])
		it.vals = append(it.vals, v)
	})
	if err != nil {
		if err == storage.ErrClosed {
			return err
		}
		return fmt.Errorf("postgres: iterator: %w", err)
	}
	n := len(it.keys)
	if n < it.limit {
		it.finished = true
	} else if it.reverse {
		it.hi = it.s.key(it.keys[n-1]) // before the last key returned
	} else {
		it.lo = append(it.s.key(it.keys[n-1]), 0) // the first key after it
	}
	it.limit = min(2*it.limit, maxBatch)
	return nil
}

func (it *iterator) Key() []byte   { return it.keys[it.pos] }
func (it *iterator) Value() []byte { return it.vals[it.pos] }
func (it *iterator) Err() error    { return it.err }
func (it *iterator) Close() error {
	it.finished, it.keys, it.vals = true, nil, nil
	return nil
}
