package replication

import (
	"bytes"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// faults are the fault controls of a test (admin endpoints): delays
// between two regions, regions replication to which is paused, and
// regions made unavailable. Kept in memory only: a restart clears them.
type faults struct {
	mu     sync.Mutex
	delays map[[2]string]time.Duration
	paused map[string]bool
	down   map[string]bool
}

func (f *faults) init() {
	f.delays = map[[2]string]time.Duration{}
	f.paused = map[string]bool{}
	f.down = map[string]bool{}
}

// SetDelay makes writes made in from reach to no sooner than d after they
// were read from from's stream (0: at once).
func (g *Group) SetDelay(from, to string, d time.Duration) {
	g.faults.mu.Lock()
	defer g.faults.mu.Unlock()
	if d <= 0 {
		delete(g.faults.delays, [2]string{from, to})
	} else {
		g.faults.delays[[2]string{from, to}] = d
	}
}

// SetPaused pauses (or resumes) replication to region: writes for it
// queue up until it resumes.
func (g *Group) SetPaused(region string, paused bool) {
	g.faults.mu.Lock()
	defer g.faults.mu.Unlock()
	g.faults.paused[region] = paused
}

// SetUnavailable makes region unavailable (or available again): its
// requests are refused (Unavailable), and writes for it queue up until it
// recovers.
func (g *Group) SetUnavailable(region string, down bool) {
	g.faults.mu.Lock()
	defer g.faults.mu.Unlock()
	g.faults.down[region] = down
}

// Unavailable reports whether region was made unavailable.
func (g *Group) Unavailable(region string) bool { return g.faults.unavailable(region) }

func (f *faults) unavailable(region string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.down[region]
}

func (f *faults) isPaused(region string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.paused[region]
}

func (f *faults) delayOf(from, to string) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.delays[[2]string{from, to}]
}

// Serves reports whether region is one of the group's.
func (g *Group) Serves(region string) bool { return g.cfg.Regions[region] != nil }

// Backlog counts the writes queued for each region (every region is
// listed, 0 for none), so that a test can wait for replication to catch up.
func (g *Group) Backlog() (map[string]int, error) {
	out := map[string]int{}
	for r := range g.cfg.Regions {
		out[r] = 0
	}
	snap, err := g.cfg.Store.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	p := key('q')
	it, err := snap.NewIterator(storage.IterOptions{Lower: p, Upper: prefixEnd(p)})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	for it.Next() {
		// q 0 table 0 region 0 seq
		parts := bytes.SplitN(it.Key(), []byte{0}, 4)
		if len(parts) == 4 {
			out[string(parts[2])]++
		}
	}
	return out, it.Err()
}
