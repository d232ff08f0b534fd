package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/internal/holder"
	"github.com/kura-db/kura/internal/storage/internal/occ"
)

// Store is a storage.Store over one namespace of a PostgreSQL database.
type Store struct {
	c      *Cluster
	oracle *occ.Oracle // this store's commits, for lazy transactions (txn.go)
	prefix []byte      // namespace of every key
	end    []byte      // first key after the namespace
	lease  *lease
	closed holder.Closing
}

// Close implements storage.Store: it releases the namespace's lease.
// Snapshots, transactions and iterators report ErrClosed afterwards (and
// still give their connection back when closed).
func (s *Store) Close() error {
	return s.closed.Close(s.lease.release)
}

// key is k inside the namespace.
func (s *Store) key(k []byte) []byte {
	out := make([]byte, len(s.prefix)+len(k))
	copy(out, s.prefix)
	copy(out[len(s.prefix):], k)
	return out
}

// Get implements storage.PointReader: one statement, consistent by itself.
func (s *Store) Get(k []byte) ([]byte, error) {
	if s.closed.Closed() {
		return nil, storage.ErrClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	v, _, err := getRow(ctx, s.c.pool, s.key(k))
	return v, err
}

const getSQL = `SELECT v FROM kura_kv WHERE k = $1`

// querier is a connection or the pool.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// getRow reads key's value; row reports whether a row (perhaps a
// tombstone) was there.
func getRow(ctx context.Context, q querier, key []byte) (v []byte, row bool, err error) {
	err = q.QueryRow(ctx, getSQL, key).Scan(&v)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, false, storage.ErrNotFound
	case err != nil:
		return nil, false, fmt.Errorf("postgres: get: %w", err)
	case v == nil:
		return nil, true, storage.ErrNotFound // a tombstone
	}
	return v, true, nil
}

// NewSnapshot implements storage.Store: a REPEATABLE READ, READ ONLY
// transaction on a connection of its own, its snapshot taken now.
func (s *Store) NewSnapshot() (storage.Snapshot, error) {
	c, err := s.begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT 1")
	if err != nil {
		return nil, err
	}
	return &snapshot{reader{s: s, conn: c}}, nil
}

// begin takes a connection and starts a transaction on it with sql, in
// one round trip (the SELECT fixes the snapshot: PostgreSQL takes it at
// a transaction's first statement, not at BEGIN). A parked connection
// (park.go) is taken first, its ROLLBACK sent in front of sql; if it
// fails (a connection broken meanwhile), a fresh one is tried.
func (s *Store) begin(sql string) (*pgxpool.Conn, error) {
	if s.closed.Closed() {
		return nil, storage.ErrClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), acquireWait)
	defer cancel()
	if c := s.c.parked.take(); c != nil {
		if _, err := c.Conn().PgConn().Exec(ctx, "ROLLBACK; "+sql).ReadAll(); err == nil {
			s.c.open.Add(1)
			return c, nil
		}
		c.Release() // not idle: the pool closes it
	}
	c, err := s.c.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if _, err := c.Conn().PgConn().Exec(ctx, sql).ReadAll(); err != nil {
		c.Release() // not idle: the pool closes it
		return nil, fmt.Errorf("postgres: begin: %w", err)
	}
	s.c.open.Add(1)
	return c, nil
}

// reader reads through the transaction open on one connection. A mutex
// serialises its statements: a snapshot may be read from several
// goroutines at once, and a connection runs one statement at a time.
type reader struct {
	s     *Store
	mu    sync.Mutex
	conn  *pgxpool.Conn // nil once released
	begin []string      // statements still to send before the first one (rangeread.go)
}

func (r *reader) Get(k []byte) ([]byte, error) {
	v, _, err := r.get(k)
	return v, err
}

func (r *reader) get(k []byte) ([]byte, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.s.closed.Closed() || r.conn == nil {
		return nil, false, storage.ErrClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	return getRow(ctx, r.conn, r.s.key(k))
}

func (r *reader) NewIterator(opts storage.IterOptions) (storage.Iterator, error) {
	if r.s.closed.Closed() {
		return nil, storage.ErrClosed
	}
	return newIterator(r.s, r, opts), nil
}

// rows runs one statement of an iterator on the reader's connection.
// When the reader's transaction has yet to begin (an iterator of the
// store's own, rangeread.go), BEGIN goes in the same round trip.
func (r *reader) rows(sql string, args []any, each func(k, v []byte)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.s.closed.Closed() || r.conn == nil {
		return storage.ErrClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	b := &pgx.Batch{}
	for _, st := range r.begin {
		b.Queue(st)
	}
	b.Queue(sql, args...)
	res := r.conn.SendBatch(ctx, b)
	defer res.Close()
	for range r.begin {
		if _, err := res.Exec(); err != nil {
			return err
		}
	}
	r.begin = nil
	rows, err := res.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	var k, v []byte
	for rows.Next() {
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		each(k, v)
		k, v = nil, nil // Scan reuses a slice it is given: each keeps them
	}
	return rows.Err()
}

// end ends the reader's read-only transaction: the connection is parked
// (park.go) for the next transaction to roll it back in passing.
func (r *reader) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn == nil {
		return
	}
	r.s.c.parked.park(r.conn)
	r.conn = nil
	r.s.c.open.Add(-1)
}

type snapshot struct{ reader }

// Close ends the read-only transaction.
func (sn *snapshot) Close() error {
	sn.end()
	return nil
}

// isConflict reports whether err is PostgreSQL's verdict that the
// transaction lost to a concurrent one: a serialization failure (a row it
// locks or writes changed since its snapshot) or a deadlock between two
// commits' row locks.
func isConflict(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}
