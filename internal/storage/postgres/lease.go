package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kura-db/kura/internal/storage/internal/holder"
)

// One Kura server per namespace, as on TiKV: the engine keeps table
// definitions, statistics and recently used items in its own memory, so a
// second server writing the same namespace would build on stale copies. A
// store therefore holds a lease on its namespace, a row of kura_leases,
// renewed while it is open and deleted when it closes. Time is the
// database server's (now()), so Kura servers' clocks need not agree. The
// timing (holder.TTL, holder.Renew, holder.Wait) is shared with storage/tikv.

// ErrNamespaceInUse is returned by Cluster.Store while another Kura server
// holds the namespace.
var ErrNamespaceInUse = errors.New("postgres: the namespace is in use by another Kura server")

// lease is a store's hold on its namespace.
type lease struct {
	pool      *pgxpool.Pool
	namespace string
	me        holder.Record
	stop      chan struct{}
	done      chan struct{}
	close     sync.Once
}

// acquireLease takes the namespace's lease, waiting up to holder.Wait for
// another holder's lease to lapse. A lease whose holder ran on this host
// and whose process is gone (a crash, kill -9) is taken over at once.
// lost is called if the lease is later found taken by another server.
// With shared, the lease is the one the nodes of a cluster share
// (holder.SharedOwner): taken while any of them renews it, and left to
// lapse at release.
func acquireLease(pool *pgxpool.Pool, namespace string, shared bool, lost func(error)) (*lease, error) {
	me := holder.Me()
	if shared {
		me = holder.Shared()
	}
	l := &lease{pool: pool, namespace: namespace, me: me, stop: make(chan struct{}), done: make(chan struct{})}
	deadline := time.Now().Add(holder.Wait)
	for {
		cur, err := l.take()
		if err != nil {
			return nil, err
		}
		if cur == nil {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: %s", ErrNamespaceInUse, holder.Held(namespace, *cur, shared))
		}
		time.Sleep(holder.Renew / 3)
	}
	go l.renew(lost)
	return l, nil
}

// take writes this store's lease if there is none, or the current one
// lapsed or belongs to a dead process of this host; it returns the other
// holder otherwise.
func (l *lease) take() (*holder.Record, error) {
	ctx, cancel := context.WithTimeout(context.Background(), acquireWait)
	defer cancel()
	var other *holder.Record
	err := pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
		var cur holder.Record
		var lapsed bool
		err := tx.QueryRow(ctx, `SELECT owner, host, pid, expires <= now() FROM kura_leases WHERE namespace = $1 FOR UPDATE`, l.namespace).
			Scan(&cur.Owner, &cur.Host, &cur.PID, &lapsed)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			tag, err := tx.Exec(ctx, `INSERT INTO kura_leases (namespace, owner, host, pid, expires)
				VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond') ON CONFLICT (namespace) DO NOTHING`,
				l.namespace, l.me.Owner, l.me.Host, l.me.PID, holder.TTL.Milliseconds())
			if err == nil && tag.RowsAffected() == 0 {
				other = &holder.Record{Host: "(another)"} // inserted meanwhile: look again
			}
			return err
		case err != nil:
			return err
		}
		if !(cur.Owner == l.me.Owner || lapsed || cur.Host == l.me.Host && !holder.Alive(cur.PID)) {
			other = &cur
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE kura_leases SET owner = $2, host = $3, pid = $4, expires = now() + $5 * interval '1 millisecond' WHERE namespace = $1`,
			l.namespace, l.me.Owner, l.me.Host, l.me.PID, holder.TTL.Milliseconds())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: lease: %w", err)
	}
	return other, nil
}

// renew extends the lease every holder.Renew until release. Finding the
// lease taken by another server (this one stalled past its expiry, or
// the database was unreachable that long) calls lost once and stops; a
// failed renewal is retried at the next tick.
func (l *lease) renew(lost func(error)) {
	defer close(l.done)
	t := time.NewTicker(holder.Renew)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), holder.Renew)
		tag, err := l.pool.Exec(ctx, `UPDATE kura_leases SET expires = now() + $3 * interval '1 millisecond' WHERE namespace = $1 AND owner = $2`,
			l.namespace, l.me.Owner, holder.TTL.Milliseconds())
		cancel()
		switch {
		case err != nil:
			slog.Warn("renewing the PostgreSQL namespace lease", "namespace", l.namespace, "err", err)
		case tag.RowsAffected() == 0:
			lost(fmt.Errorf("%w: the lease of %q was taken by another server", ErrNamespaceInUse, l.namespace))
			return
		}
	}
}

// release stops renewing and deletes the lease if this store still holds
// it (a shared lease is left to lapse: other nodes may hold it). Safe to
// call more than once.
func (l *lease) release() error {
	var err error
	l.close.Do(func() {
		close(l.stop)
		<-l.done
		if l.me.Owner == holder.SharedOwner {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), acquireWait)
		defer cancel()
		if _, e := l.pool.Exec(ctx, `DELETE FROM kura_leases WHERE namespace = $1 AND owner = $2`, l.namespace, l.me.Owner); e != nil {
			err = fmt.Errorf("postgres: releasing the lease: %w", e)
		}
	})
	return err
}
