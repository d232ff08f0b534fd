package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kura-db/kura/internal/storage"
)

// NewIterator implements storage.RangeReader: an iterator with a
// REPEATABLE READ, READ ONLY transaction of its own, begun in the same
// round trip as its first batch, which it reads now (so that the view is
// the one at the call). Close ends the transaction.
func (s *Store) NewIterator(opts storage.IterOptions) (storage.Iterator, error) {
	if s.closed.Closed() {
		return nil, storage.ErrClosed
	}
	const begin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	if c := s.c.parked.take(); c != nil {
		it, err := s.openIterator(c, opts, "ROLLBACK", begin)
		if err == nil {
			return it, nil
		}
		// Perhaps a connection broken while parked: try a fresh one.
	}
	ctx, cancel := context.WithTimeout(context.Background(), acquireWait)
	defer cancel()
	c, err := s.c.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return s.openIterator(c, opts, begin)
}

// openIterator reads the first batch on c, after the statements begin.
func (s *Store) openIterator(c *pgxpool.Conn, opts storage.IterOptions, begin ...string) (*ownIterator, error) {
	s.c.open.Add(1)
	r := &reader{s: s, conn: c, begin: begin}
	it := &ownIterator{iterator: newIterator(s, r, opts), r: r}
	if !it.finished {
		if err := it.fetch(); err != nil {
			r.conn.Release() // not idle: the pool closes it
			r.conn = nil
			s.c.open.Add(-1)
			return nil, err
		}
		it.fetched = true
	}
	return it, nil
}

// ownIterator is an iterator with a transaction of its own.
type ownIterator struct {
	*iterator
	r       *reader
	fetched bool // the first batch is in, not yet returned
}

func (it *ownIterator) Next() bool {
	if it.fetched {
		it.fetched = false
		if it.s.closed.Closed() {
			it.err = storage.ErrClosed
			return false
		}
		it.pos = 0
		return len(it.keys) > 0
	}
	return it.iterator.Next()
}

func (it *ownIterator) Close() error {
	it.r.end()
	return it.iterator.Close()
}
