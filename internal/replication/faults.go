package replication

import (
	"bytes"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// faults are the fault controls of a test (admin endpoints): delays
// between two regions, regions replication to which is paused, and
// regions made unavailable. With one node they are kept in memory only (a
// restart clears them); with several (Config.Cluster) they are the
// deployment's, kept in the store (key f) and reread every faultRefresh,
// so a control set through one node acts on every node.
type faults struct {
	mu     sync.Mutex
	delays map[[2]string]time.Duration
	paused map[string]bool
	down   map[string]bool
	// changes counts this node's changes, so that a reread begun before
	// one does not undo it.
	changes uint64
}

// storedFaults is the stored form of faults (JSON): delays by "from to".
type storedFaults struct {
	Delays map[string]time.Duration `json:"delays,omitempty"`
	Paused map[string]bool          `json:"paused,omitempty"`
	Down   map[string]bool          `json:"down,omitempty"`
}

// faultRefresh is how often a node of several rereads the fault controls
// and the catalogue.
const faultRefresh = 50 * time.Millisecond

func (f *faults) init() {
	f.delays = map[[2]string]time.Duration{}
	f.paused = map[string]bool{}
	f.down = map[string]bool{}
}

// SetDelay makes writes made in from reach to no sooner than d after they
// were read from from's stream (0: at once).
func (g *Group) SetDelay(from, to string, d time.Duration) {
	g.changeFaults(func(f *faults) {
		if d <= 0 {
			delete(f.delays, [2]string{from, to})
		} else {
			f.delays[[2]string{from, to}] = d
		}
	})
}

// SetPaused pauses (or resumes) replication to region: writes for it
// queue up until it resumes.
func (g *Group) SetPaused(region string, paused bool) {
	g.changeFaults(func(f *faults) { setOrDelete(f.paused, region, paused) })
}

// SetUnavailable makes region unavailable (or available again): its
// requests are refused (Unavailable), and writes for it queue up until it
// recovers.
func (g *Group) SetUnavailable(region string, down bool) {
	g.changeFaults(func(f *faults) { setOrDelete(f.down, region, down) })
}

func setOrDelete(m map[string]bool, k string, v bool) {
	if v {
		m[k] = true
	} else {
		delete(m, k)
	}
}

// changeFaults applies change to the fault controls: in memory, and with
// several nodes to the stored controls in one transaction (so that
// controls set through two nodes at once are both kept), whose result
// this node then keeps. A store failure is logged, and the change then
// acts on this node only until its next reread.
func (g *Group) changeFaults(change func(*faults)) {
	if !g.cfg.Cluster {
		g.faults.mu.Lock()
		defer g.faults.mu.Unlock()
		change(&g.faults)
		return
	}
	f, err := g.storeFaults(change)
	g.faults.mu.Lock()
	defer g.faults.mu.Unlock()
	g.faults.changes++
	if err != nil {
		g.cfg.Logger.Warn("replication: storing the fault controls", "err", err)
		change(&g.faults)
		return
	}
	g.faults.delays, g.faults.paused, g.faults.down = f.delays, f.paused, f.down
}

// storeFaults applies change to the stored fault controls and returns
// them.
func (g *Group) storeFaults(change func(*faults)) (*faults, error) {
	txn, err := g.cfg.Store.Begin()
	if err != nil {
		return nil, err
	}
	defer txn.Rollback()
	var sf storedFaults
	if _, err := getJSON(txn, key('f'), &sf); err != nil {
		return nil, err
	}
	f := sf.faults()
	change(f)
	if err := setJSON(txn, key('f'), f.stored()); err != nil {
		return nil, err
	}
	return f, txn.Commit(storage.CommitOptions{Sync: true})
}

// loadFaults rereads the stored fault controls. Callers are in Open and
// refreshFaults.
func (g *Group) loadFaults() error {
	g.faults.mu.Lock()
	changes := g.faults.changes
	g.faults.mu.Unlock()
	snap, err := g.cfg.Store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	var sf storedFaults
	if _, err := getJSON(snap, key('f'), &sf); err != nil {
		return err
	}
	f := sf.faults()
	g.faults.mu.Lock()
	defer g.faults.mu.Unlock()
	if g.faults.changes != changes {
		return nil // changed here meanwhile: the next reread has it
	}
	g.faults.delays, g.faults.paused, g.faults.down = f.delays, f.paused, f.down
	return nil
}

// refresh rereads the stored fault controls and catalogue every
// faultRefresh until the Group closes (several nodes).
func (g *Group) refresh() {
	defer g.wg.Done()
	for sleepCtx(g.ctx, faultRefresh) {
		if err := g.loadFaults(); err != nil && g.ctx.Err() == nil {
			g.cfg.Logger.Warn("replication: reading the fault controls", "err", err)
		}
		if err := g.refreshCatalogue(); err != nil && g.ctx.Err() == nil {
			g.cfg.Logger.Warn("replication: reading the global tables", "err", err)
		}
	}
}

func (sf storedFaults) faults() *faults {
	f := &faults{}
	f.init()
	for k, d := range sf.Delays {
		if from, to, ok := strings.Cut(k, " "); ok {
			f.delays[[2]string{from, to}] = d
		}
	}
	maps.Copy(f.paused, sf.Paused)
	maps.Copy(f.down, sf.Down)
	return f
}

func (f *faults) stored() storedFaults {
	sf := storedFaults{Delays: map[string]time.Duration{}, Paused: f.paused, Down: f.down}
	for k, d := range f.delays {
		sf.Delays[k[0]+" "+k[1]] = d
	}
	return sf
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
