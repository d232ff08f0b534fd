package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/internal/occ"
)

// opTimeout bounds one statement's round trip: a database that stopped
// answering fails the request instead of holding it.
const opTimeout = 30 * time.Second

// maxTxnAge is the oldest a transaction may be at Commit: an older one
// fails with ErrConflict (the caller retries it afresh). It lets the
// tombstone sweep (gc.go) delete tombstones older than tombstoneLife
// without missing a conflict: no transaction that could have relied on one
// is still open.
const maxTxnAge = 5 * time.Minute

// commitSQL applies a transaction's writes and checks its reads, in key
// order, in one statement (doc.go, "Conflict detection"). Each input row is
// a key, a value (NULL: a delete, or a read check) and whether it is a
// write. A write upserts the row (a delete leaves a tombstone stamped with
// the time); a read check only locks the row (ON CONFLICT ... WHERE false
// locks without updating), or, when no row exists, inserts a tombstone
// stamped -infinity that the next sweep may delete at once. Under
// REPEATABLE READ, locking or updating a row that a transaction committed
// since the snapshot, or meeting a row the snapshot does not show, fails
// with a serialization failure (SQLSTATE 40001).
const commitSQL = `INSERT INTO kura_kv AS t (k, v, deleted_at)
SELECT u.k, u.v, CASE WHEN u.v IS NOT NULL THEN NULL WHEN u.w THEN now() ELSE '-infinity'::timestamptz END
FROM unnest($1::bytea[], $2::bytea[], $3::bool[]) AS u(k, v, w)
ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, deleted_at = EXCLUDED.deleted_at
WHERE EXCLUDED.deleted_at IS DISTINCT FROM '-infinity'::timestamptz`

// shareSQL locks rows the transaction only read, and whose row its
// snapshot showed, FOR SHARE, in key order: shared locks do not wait for
// one another, so the many writers that read one key (every item write in
// cluster mode reads its table's generation key) no longer queue for it
// one at a time, while a commit that changed the row since the snapshot
// (or changes it while this one is in flight) still fails this one with a
// serialization failure, under REPEATABLE READ as for an exclusive lock. A
// key read as having no row at all goes through commitSQL's insert: a row
// the snapshot does not show would not be locked by a SELECT.
const shareSQL = `SELECT 1 FROM kura_kv WHERE k = ANY($1::bytea[]) ORDER BY k FOR SHARE`

// shareReadLocks turns shareSQL on (a benchmark compares it with locking
// every read key as commitSQL does).
var shareReadLocks = true

// Commit implements storage.Txn. The writes and read checks go in one
// batch followed by COMMIT, in one round trip: the keys in key order, cut
// into runs of keys to lock shared (shareSQL) and runs to write or lock
// through commitSQL, one statement per run, so that every commit takes its
// row locks in increasing key order whatever their modes, and two commits
// cannot deadlock on them. A serialization failure or deadlock is
// ErrConflict; any other failure is an error, and when the connection
// failed after COMMIT was sent the outcome is unknown, which the error
// says. Every commit is as durable as the server's synchronous_commit
// makes it: CommitOptions.Sync changes nothing.
func (x *txn) Commit(storage.CommitOptions) error {
	if x.done {
		return errors.New("postgres: transaction already ended")
	}
	x.done = true
	defer x.end() // when nothing else ended the PostgreSQL transaction
	switch {
	case x.s.closed.Closed():
		x.o.Rollback()
		return storage.ErrClosed
	case len(x.writes) == 0:
		// Nothing to apply, so nothing a concurrent commit could undo.
		x.o.Rollback()
		return nil
	case now().sub(x.began) > maxTxnAge:
		x.o.Rollback()
		return fmt.Errorf("%w: the transaction is older than %v", storage.ErrConflict, maxTxnAge)
	}
	runs := x.lockRuns()
	// The local oracle first (commits of this store since Begin), then
	// PostgreSQL (every commit since the snapshot, and those in flight).
	return x.o.Commit(func(map[string]occ.Write) error { return x.apply(runs) })
}

// lockRun is one statement of a commit: keys (with namespace) to lock
// shared, or to write (vals, writes) or lock as commitSQL does.
type lockRun struct {
	shared bool
	keys   [][]byte
	vals   [][]byte
	writes []bool
}

// lockRuns cuts the transaction's keys, in key order, into runs of one
// kind each (Commit).
func (x *txn) lockRuns() []lockRun {
	keys := make([]string, 0, len(x.writes)+len(x.reads))
	for k := range x.writes {
		keys = append(keys, k)
	}
	for k := range x.reads {
		if _, w := x.writes[k]; !w {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys) // lock in key order
	var runs []lockRun
	for _, k := range keys {
		v, w := x.writes[k]
		shared := !w && x.reads[k] && shareReadLocks
		if len(runs) == 0 || runs[len(runs)-1].shared != shared {
			runs = append(runs, lockRun{shared: shared})
		}
		r := &runs[len(runs)-1]
		r.keys = append(r.keys, x.s.key([]byte(k)))
		if !shared {
			r.vals, r.writes = append(r.vals, v), append(r.writes, w)
		}
	}
	return runs
}

// apply sends the commit's statements and COMMIT in one batch and gives
// the connection back.
func (x *txn) apply(runs []lockRun) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	b := &pgx.Batch{}
	if x.conn == nil {
		// A lazy transaction that never read begins here, in the same
		// round trip (after a parked connection's ROLLBACK).
		if x.conn = x.s.c.parked.take(); x.conn != nil {
			b.Queue("ROLLBACK")
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), acquireWait)
			c, err := x.s.c.pool.Acquire(ctx)
			cancel()
			if err != nil {
				return fmt.Errorf("postgres: %w", err)
			}
			x.conn = c
		}
		b.Queue(beginTxnSQL)
		x.s.c.open.Add(1)
	}
	defer func() {
		x.conn.Release() // not idle unless committed: the pool closes it
		x.conn = nil
		x.s.c.open.Add(-1)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	pre := b.Len()
	for _, r := range runs {
		if r.shared {
			b.Queue(shareSQL, r.keys)
		} else {
			b.Queue(commitSQL, r.keys, r.vals, r.writes)
		}
	}
	b.Queue("COMMIT")
	res := x.conn.SendBatch(ctx, b)
	var werr error
	for range pre {
		if _, err := res.Exec(); err != nil && werr == nil {
			werr = err
		}
	}
	for _, r := range runs {
		var err error
		if r.shared {
			err = drain(res)
		} else {
			_, err = res.Exec()
		}
		if err != nil && werr == nil {
			werr = err
		}
	}
	tag, cerr := res.Exec()
	if err := res.Close(); cerr == nil {
		cerr = err
	}
	switch {
	case werr != nil && isConflict(werr):
		return storage.ErrConflict
	case werr != nil:
		// PostgreSQL answered with an error, so it did not commit (COMMIT
		// in a failed transaction rolls back); or the connection failed
		// before the answer, and COMMIT may or may not have run.
		return fmt.Errorf("postgres: commit failed or its outcome is unknown: %w", werr)
	case cerr != nil:
		return fmt.Errorf("postgres: commit outcome unknown: %w", cerr)
	case tag.String() != "COMMIT":
		return fmt.Errorf("postgres: commit answered %q", tag.String())
	}
	return nil
}

// drain reads (and drops) the rows of a batch's next query: shareSQL's.
func drain(res pgx.BatchResults) error {
	rows, err := res.Query()
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	rows.Close()
	return rows.Err()
}
