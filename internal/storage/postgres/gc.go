package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	leases "github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/storage/internal/occ"
)

// A delete leaves a tombstone (v NULL) rather than removing the row, so
// that a transaction whose snapshot predates the delete still meets the
// row at Commit and conflicts (doc.go). The sweep removes tombstones once
// no transaction can rely on them: tombstoneLife after the delete, twice
// maxTxnAge, which Commit enforces.
const tombstoneLife = 2 * maxTxnAge

// sweepBatch bounds one sweep statement, so that it holds few locks.
const sweepBatch = 10000

// sweepSQL deletes up to $2 tombstones written before now() - $1.
const sweepSQL = `DELETE FROM kura_kv WHERE k IN (
	SELECT k FROM kura_kv WHERE v IS NULL AND deleted_at < now() - $1 * interval '1 millisecond' LIMIT $2)`

// The sweep is the whole database's work, so one Kura server at a time
// does it: the one holding the lease gcLease (package internal/lease), kept under
// gcPrefix, a prefix no namespace's keys start with (a namespace has no
// '/'). Another server takes it over within the lease's TTL and one
// interval after the holder stops.
const (
	gcPrefix = "/gc/"
	gcLease  = "sweep"
)

// gcLeases is a lease manager over the database's own keys (gcPrefix),
// on clock (nil: the system clock).
func (c *Cluster) gcLeases(clock leases.Clock) *leases.Manager {
	end := []byte(gcPrefix)
	end[len(end)-1]++
	s := &Store{c: c, oracle: occ.NewOracle(), prefix: []byte(gcPrefix), end: end} // no namespace lease: never closed
	return leases.New(leases.Config{Store: s, Clock: clock})
}

// StartGC sweeps old tombstones every interval until Close, while this
// server holds the sweep's lease.
func (c *Cluster) StartGC(interval time.Duration) {
	c.gcStop, c.gcDone = make(chan struct{}), make(chan struct{})
	m := c.gcLeases(nil)
	go func() {
		defer close(c.gcDone)
		defer m.Serve(c.gcStop)() // renews the lease through a long sweep
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-c.gcStop:
				return
			case <-t.C:
			}
			if _, n, err := c.gcRound(m); err != nil {
				slog.Warn("sweeping PostgreSQL tombstones", "err", err, "deleted", n)
			}
		}
	}()
}

// gcRound sweeps if this server holds (or now takes) the sweep's lease.
func (c *Cluster) gcRound(m *leases.Manager) (swept bool, n int64, err error) {
	if _, ok := m.Hold(gcLease); !ok {
		return false, 0, nil
	}
	n, err = c.Sweep(tombstoneLife)
	return true, n, err
}

func (c *Cluster) stopGC() {
	c.gcOnce.Do(func() {
		if c.gcStop != nil {
			close(c.gcStop)
			<-c.gcDone
		}
	})
}

// Sweep deletes the tombstones older than age, in batches, and returns how
// many it deleted.
func (c *Cluster) Sweep(age time.Duration) (int64, error) {
	var total int64
	for {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		tag, err := c.pool.Exec(ctx, sweepSQL, age.Milliseconds(), sweepBatch)
		cancel()
		if err != nil {
			return total, fmt.Errorf("postgres: sweeping tombstones: %w", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < sweepBatch {
			return total, nil
		}
	}
}
