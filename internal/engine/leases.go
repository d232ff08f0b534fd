package engine

import (
	"fmt"
	"log/slog"

	"github.com/kura-db/kura/internal/engine/jobs"
	"github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/storage"
)

// Background work is done by one node at a time among the Kura nodes
// sharing a store, each piece under its lease (package lease: a Guard for
// a loop's rounds, a Claim for a job, Under for work done once). With one
// node every lease is simply this node's. The leases:
const (
	leaseTTLPass  = "ttl"       // the TTL expirer's background pass; progress: its cursor
	leaseStreams  = "streams"   // stream shard rollover, trimming and removal
	leasePITR     = "pitr"      // PITR history trimming and system backup expiry
	leaseJob      = "job/"      // + ARN: an export's, import's or bulk operation's run
	leaseBackfill = "backfill/" // + tableID/indexID: a GSI's or vector index's backfill
	leaseLayout   = "layout/"   // + version: the key-layout migration at Open (cluster mode)
	leaseRecount  = "recount"   // the statistics recount in cluster mode (catalog_nodes.go)
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

// ttlLease is the TTL expirer's lease.
func (e *Engine) ttlLease() *lease.Guard { return e.leases.Guard(leaseTTLPass) }

// claimJob is the job packages' Claimer: the lease leaseJob + arn.
func (e *Engine) claimJob(arn string) (jobs.Claim, bool) { return e.leases.Claim(leaseJob + arn) }

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

// backfillLease names the lease of index indexID's backfill on table
// tableID.
func backfillLease(tableID uint64, indexID uint32) string {
	return fmt.Sprintf("%s%d/%d", leaseBackfill, tableID, indexID)
}

// underLease runs work once this node holds the lease name, while still
// reports true and the engine is open (lease.Manager.Under).
func (e *Engine) underLease(name string, still func() bool, work func()) bool {
	return e.leases.Under(name, e.sleep, still, work)
}
