package replication

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/storage"
)

// worker is the replication of one table's replica in one region: it
// reads the region's stream (reader.go) and applies the writes queued for
// the region (apply.go).
type worker struct {
	table, region string
	stop          context.CancelFunc
	done          chan struct{}
	// mu is held for a round of reading and applying, by the worker or by
	// a strongly consistent request that does the round itself (strong.go).
	mu sync.Mutex
	// cursor is where the next round reads the queue from (nil: its
	// start), and scanned when it last read it from the start (apply.go).
	// mu is held.
	cursor  []byte
	scanned time.Time
	// lease is this node's hold on the worker's lease (workerLease) for
	// the round under way, which fences the round's commits to the
	// replication store; nil for the stream positioning a new replica
	// does before any worker runs it (replica.go, strong.go). mu is held.
	lease *lease.Lease
}

// workerLease names the lease under which one node among those sharing
// the replication store runs the worker of table's replica in region
// (its stream position and queue are in the store, so another node takes
// over where it stopped).
func workerLease(table, region string) string {
	return "replication/" + table + "/" + region
}

// hold takes or renews w's lease for a round; false while another node
// holds it. w.mu is held.
func (g *Group) hold(w *worker) bool {
	l, ok := g.leases.Hold(workerLease(w.table, w.region))
	if !ok {
		w.lease = nil
		return false
	}
	if w.lease != nil && w.lease.Gen() != l.Gen() {
		w.cursor = nil // another node ran the worker meanwhile
	}
	w.lease = l
	return true
}

// fence checks in txn that this node still holds w's lease, so that a
// node that lost it (stalled past its expiry) commits nothing more.
func (w *worker) fence(txn storage.Txn) error {
	if w.lease == nil {
		return nil
	}
	return w.lease.Fence(txn)
}

// standby is how often a node whose worker another node runs looks
// whether that node's lease lapsed.
func (g *Group) standby() time.Duration {
	return max(g.cfg.Poll, g.leases.TTL()/10)
}

// startWorker starts the worker of table's replica in region, unless it
// runs. g.mu is held.
func (g *Group) startWorker(table, region string) {
	k := workerKey{table, region}
	if g.workers[k] != nil {
		return
	}
	ctx, cancel := context.WithCancel(g.ctx)
	w := &worker{table: table, region: region, stop: cancel, done: make(chan struct{})}
	g.workers[k] = w
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer close(w.done)
		g.run(ctx, w)
	}()
}

// stopWorker stops the worker of table's replica in region and waits for
// it. g.mu is not held.
func (g *Group) stopWorker(table, region string) {
	g.mu.Lock()
	w := g.workers[workerKey{table, region}]
	delete(g.workers, workerKey{table, region})
	g.mu.Unlock()
	if w != nil {
		w.stop()
		<-w.done
	}
}

// run reads and applies until ctx ends, resting for Poll when there was
// nothing to do, on the node holding the worker's lease; the others look
// every standby whether it lapsed. A region made unavailable does
// neither: its stream has no new writes and its queue waits for its
// recovery.
func (g *Group) run(ctx context.Context, w *worker) {
	for ctx.Err() == nil {
		n := 0
		if !g.faults.unavailable(w.region) {
			w.mu.Lock()
			if !g.hold(w) {
				w.mu.Unlock()
				if !sleepCtx(ctx, g.standby()) {
					return
				}
				continue
			}
			read, err := g.readStream(ctx, w, false)
			if err != nil && ctx.Err() == nil {
				g.cfg.Logger.Warn("replication: reading a stream", "table", w.table, "region", w.region, "err", err)
			}
			applied, err := g.applyQueue(ctx, w)
			if err != nil && ctx.Err() == nil {
				g.cfg.Logger.Warn("replication: applying writes", "table", w.table, "region", w.region, "err", err)
			}
			w.mu.Unlock()
			n = read + applied
		}
		if n == 0 {
			sleepCtx(ctx, g.cfg.Poll)
		}
	}
}

// sleepCtx waits d, or until ctx ends: false then.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// lastSeq is the last outbox sequence number handed out.
var lastSeq atomic.Uint64

// nextSeq orders outbox entries: the clock in nanoseconds, made strictly
// increasing, so that entries queued after a restart follow those before.
func (g *Group) nextSeq() uint64 {
	for {
		last := lastSeq.Load()
		next := max(last+1, uint64(time.Now().UnixNano()))
		if lastSeq.CompareAndSwap(last, next) {
			return next
		}
	}
}

// enqueue queues e for region's replica of table in txn.
func (g *Group) enqueue(txn storage.Txn, table, region string, e entry) (uint64, error) {
	seq := g.nextSeq()
	return seq, setJSON(txn, queueKey(table, region, seq), e)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
