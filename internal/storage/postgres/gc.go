package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"time"
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

// StartGC sweeps old tombstones every interval until Close. Every Kura
// server on the database may run it; they only compete for the same rows.
func (c *Cluster) StartGC(interval time.Duration) {
	c.gcStop, c.gcDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(c.gcDone)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-c.gcStop:
				return
			case <-t.C:
			}
			if n, err := c.Sweep(tombstoneLife); err != nil {
				slog.Warn("sweeping PostgreSQL tombstones", "err", err, "deleted", n)
			}
		}
	}()
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
