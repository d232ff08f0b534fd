package tikv

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/tikv/client-go/v2/oracle"
	"github.com/tikv/pd/client/constants"

	leases "github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/storage/internal/holder"
)

// Garbage collection. TiKV keeps every version of a key until the
// cluster's GC safe point passes it; with no TiDB in front of the cluster
// nobody moves that point unless Kura does, and every overwrite and delete
// would stay on disk for good. So a Kura server moves it, every gcInterval,
// to lifetime ago, held back to the start of the oldest transaction or
// snapshot it still has open (a backup's copy can run for longer than the
// lifetime), and sets a GC barrier there so that other Kura servers on the
// cluster (other namespaces) do not pass it either.

// gcInterval is how often the GC runs; the barrier outlives three runs.
var gcInterval = 10 * time.Minute

// staleActive is how old an open transaction may grow before the GC logs
// that it is holding the safe point back.
const staleActive = time.Hour

// activeSet counts the open snapshots and transactions by start timestamp.
type activeSet struct {
	mu sync.Mutex
	ts map[uint64]int
}

func (a *activeSet) add(ts uint64) {
	a.mu.Lock()
	if a.ts == nil {
		a.ts = map[uint64]int{}
	}
	a.ts[ts]++
	a.mu.Unlock()
}

func (a *activeSet) remove(ts uint64) {
	a.mu.Lock()
	if a.ts[ts]--; a.ts[ts] <= 0 {
		delete(a.ts, ts)
	}
	a.mu.Unlock()
}

// open counts the open snapshots and transactions.
func (a *activeSet) open() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, c := range a.ts {
		n += c
	}
	return n
}

// oldest is the smallest open start timestamp, or MaxUint64.
func (a *activeSet) oldest() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := uint64(math.MaxUint64)
	for ts := range a.ts {
		m = min(m, ts)
	}
	return m
}

// gcSafePoint is where a GC at now may move the safe point: lifetime
// before now, but not past the oldest open start timestamp (a transaction
// at exactly the safe point still reads every version it needs).
func gcSafePoint(now uint64, lifetime time.Duration, oldest uint64) uint64 {
	return min(oracle.ComposeTS(oracle.ExtractPhysical(now)-lifetime.Milliseconds(), 0), oldest)
}

// Several Kura servers on one cluster each keep their barrier (their own
// open transactions), but only one at a time moves the safe point: the
// holder of the lease gcLease (package internal/lease), kept under
// gcPrefix, outside every namespace's keys. Another server takes it over
// within the lease's TTL and one gcInterval after the holder stops.
const (
	gcPrefix = "kura-gc/"
	gcLease  = "safe-point"
)

// gcLeases is a lease manager over the cluster's own keys (gcPrefix), on
// clock (nil: the system clock).
func (c *Cluster) gcLeases(clock leases.Clock) *leases.Manager {
	end := []byte(gcPrefix)
	end[len(end)-1]++
	s := &Store{kv: c.kv, active: &c.active, prefix: []byte(gcPrefix), end: end} // no namespace lease: never closed
	return leases.New(leases.Config{Store: s, Clock: clock})
}

// StartGC runs the GC every gcInterval, keeping versions for lifetime,
// until Close.
func (c *Cluster) StartGC(lifetime time.Duration) {
	me := holder.Me()
	c.gcBarrier = fmt.Sprintf("kura-%s-%d-%s", me.Host, me.PID, me.Owner[:8])
	c.gcStop, c.gcDone = make(chan struct{}), make(chan struct{})
	m := c.gcLeases(nil)
	go func() {
		defer close(c.gcDone)
		defer m.Serve(c.gcStop)() // renews the lease through a long GC
		t := time.NewTicker(gcInterval)
		defer t.Stop()
		for {
			select {
			case <-c.gcStop:
				return
			case <-t.C:
			}
			if _, _, err := c.gcRound(context.Background(), m, lifetime); err != nil {
				slog.Warn("TiKV garbage collection", "err", err)
			}
		}
	}()
}

// gcRound moves this server's barrier and, if it holds (or now takes) the
// GC lease, the safe point too; moved reports whether it did.
func (c *Cluster) gcRound(ctx context.Context, m *leases.Manager, lifetime time.Duration) (moved bool, safe uint64, err error) {
	if _, ok := m.Hold(gcLease); !ok {
		_, err := c.setBarrier(ctx, lifetime)
		return false, 0, err
	}
	safe, err = c.gcOnce(ctx, lifetime)
	return true, safe, err
}

// gcOnce moves the barrier and the GC safe point, and returns the safe
// point the cluster reached (another service's barrier can hold it lower).
func (c *Cluster) gcOnce(ctx context.Context, lifetime time.Duration) (uint64, error) {
	safe, err := c.setBarrier(ctx, lifetime)
	if err != nil {
		return 0, err
	}
	return c.kv.GC(ctx, safe)
}

// setBarrier moves this server's GC barrier to where a GC now may move
// the safe point, and returns that point.
func (c *Cluster) setBarrier(ctx context.Context, lifetime time.Duration) (uint64, error) {
	now, err := c.kv.CurrentTimestamp(oracle.GlobalTxnScope)
	if err != nil {
		return 0, err
	}
	oldest := c.active.oldest()
	if oldest != math.MaxUint64 && oracle.ExtractPhysical(now)-oracle.ExtractPhysical(oldest) > staleActive.Milliseconds() {
		slog.Warn("TiKV garbage collection held back by a transaction open for over an hour", "since", oracle.GetTimeFromTS(oldest))
	}
	safe := gcSafePoint(now, lifetime, oldest)
	gc := c.kv.GetPDClient().GetGCStatesClient(constants.NullKeyspaceID)
	if _, err := gc.SetGCBarrier(ctx, c.gcBarrier, safe, 3*gcInterval); err != nil {
		return 0, fmt.Errorf("setting the GC barrier: %w", err)
	}
	return safe, nil
}

// stopGC ends the GC loop and removes this server's barrier.
func (c *Cluster) stopGC() {
	if c.gcStop == nil {
		return
	}
	close(c.gcStop)
	<-c.gcDone
	gc := c.kv.GetPDClient().GetGCStatesClient(constants.NullKeyspaceID)
	if _, err := gc.DeleteGCBarrier(context.Background(), c.gcBarrier); err != nil {
		slog.Warn("removing the TiKV GC barrier", "err", err)
	}
}
