package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/kura-db/kura/internal/engine/jobs"
	"github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/storage"
)

// Background work is done by one node at a time among the Kura nodes
// sharing a store: each loop asks for its lease (package lease) at every
// round and skips the round while another node holds it; the holder
// renews it (Run, every TTL/3) and records its progress, and Close
// releases it so another node takes over at once. A dead node's leases
// are taken over once they expire (Config.LeaseTTL after its last
// renewal), at the next round of the taker's loop. With one node every
// lease is simply this node's.
const (
	leaseTTLPass = "ttl"     // the TTL expirer's background pass; progress: its cursor
	leaseStreams = "streams" // stream shard rollover, trimming and removal
	leasePITR    = "pitr"    // PITR history trimming and system backup expiry
	leaseJob     = "job/"    // + ARN: an export's, import's or bulk operation's run
	// backup.LeasePrefix + ARN: an on-demand backup's copy;
	// restore.LeasePrefix + table ID: a restore into that table.
)

// openLeases creates this node's lease manager over store and starts its
// renewer. Callers are in Open.
func (e *Engine) openLeases(store storage.Store) {
	var clock lease.Clock
	if e.cfg.LeaseClock != nil {
		clock = e.cfg.LeaseClock
	}
	e.leases = lease.New(lease.Config{Store: store, Node: e.cfg.Node, Clock: clock, TTL: e.cfg.LeaseTTL})
	e.goBackground(func() { e.leases.Run(e.closing) })
}

// holds reports whether this node holds (or now took) the named lease.
func (e *Engine) holds(name string) bool {
	_, ok := e.leases.Hold(name)
	return ok
}

// Node is this engine's identity as a lease holder.
func (e *Engine) Node() lease.Node { return e.leases.Node() }

// ttlGuard is the TTL expirer's lease.
type ttlGuard struct {
	e *Engine
	l *lease.Lease
}

func (g *ttlGuard) Hold() ([]byte, bool) {
	l, ok := g.e.leases.Hold(leaseTTLPass)
	if !ok {
		return nil, false
	}
	g.l = l
	return l.Progress(), true
}

func (g *ttlGuard) Save(cursor []byte) error { return g.l.Save(cursor) }

// claimJob is the job packages' Claimer: the lease leaseJob + arn.
func (e *Engine) claimJob(arn string) (jobs.Claim, bool) {
	l, err := e.leases.Acquire(leaseJob + arn)
	if err != nil {
		if !errors.Is(err, lease.ErrHeld) {
			slog.Warn("claiming a job", "arn", arn, "err", err)
		}
		return nil, false
	}
	return jobClaim{l}, true
}

type jobClaim struct{ l *lease.Lease }

func (c jobClaim) Fence(txn storage.Txn) error { return c.l.Fence(txn) }

func (c jobClaim) Release() {
	if err := c.l.Release(); err != nil && !errors.Is(err, lease.ErrLost) {
		slog.Warn("releasing a job's lease", "lease", c.l.Name(), "err", err)
	}
}

// startJobAdoption looks every lease TTL for exports, imports and bulk
// operations in progress that no node runs (their node stopped or died:
// their leases lapsed) and runs them here, from their recorded progress.
// Callers are in Open.
func (e *Engine) startJobAdoption() {
	e.goBackground(func() {
		for e.sleep(e.leases.TTL()) {
			e.adoptJobs()
		}
	})
}

func (e *Engine) adoptJobs() {
	e.ddl.Lock() // Adopt starts background work
	defer e.ddl.Unlock()
	if e.closed {
		return
	}
	for _, j := range []interface{ Adopt() error }{e.exp, e.imp, e.bulk} {
		if err := j.Adopt(); err != nil {
			slog.Warn("adopting background jobs", "err", err)
		}
	}
	e.adoptBackups()
}

// leaseBackfill + tableID/indexID: a GSI's or vector index's backfill.
const leaseBackfill = "backfill/"

// backfillLease names the lease of index indexID's backfill on table
// tableID.
func backfillLease(tableID uint64, indexID uint32) string {
	return fmt.Sprintf("%s%d/%d", leaseBackfill, tableID, indexID)
}

// leaseDone is the progress of a lease whose work was finished: a node
// that takes the lease later (its view of the work may be stale) does
// not run it again.
const leaseDone = "done"

// underLease runs work once this node holds the lease name: at once when
// it is free (always, with one node), else when its holder's lease lapsed
// (it is polled every half lease life) while still reports true and the
// engine is open. When work returns with still false, the work is done
// and the lease records it; otherwise (closing) it is released for
// another node to run the work again from the beginning (a backfill or a
// copy rewrites what it finds, so a takeover only repeats the dead
// holder's part). It reports whether work ran.
func (e *Engine) underLease(name string, still func() bool, work func()) (ran bool) {
	for {
		if l, ok := e.leases.Hold(name); ok {
			if ran = string(l.Progress()) != leaseDone; ran {
				work()
				if !still() {
					_ = l.Save([]byte(leaseDone)) // lost: the taker checks still itself
				}
			}
			if err := l.Release(); err != nil && !errors.Is(err, lease.ErrLost) {
				slog.Warn("releasing a lease", "lease", name, "err", err)
			}
			return ran
		}
		if !e.sleep(e.leases.TTL()/2) || !still() {
			return false
		}
	}
}

// leasedBackfill is backfill on the node that holds the index's lease.
func (e *Engine) leasedBackfill(table string, tableID uint64, ix *Index, minEnd time.Time) {
	e.underLease(backfillLease(tableID, ix.ID), func() bool {
		_, cur, ok := e.currentIndex(table, tableID, ix)
		return ok && cur.Backfilling
	}, func() { e.backfill(table, tableID, ix, minEnd) })
}
