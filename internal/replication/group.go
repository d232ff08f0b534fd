package replication

import (
	"context"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/storage"
)

// Config configures a Group.
type Config struct {
	// Store keeps the replication state (doc.go); it belongs to the Group
	// from Open on, and the caller closes it after Close.
	Store storage.Store
	// Regions are the engines of the regions, by name.
	Regions map[string]*engine.Engine
	// Now is each region's clock (nil: time.Now for every region). A
	// write's stamp and the time it was queued are read on the clock of the
	// region it was made in, and a replication delay is timed on that
	// clock too, so a test that advances the region's clock (the server's
	// --admin clock) sees the delay pass without waiting.
	Now func(region string) time.Time
	// Poll is how often an idle worker looks for new stream records and
	// queued writes (0: 10 ms).
	Poll time.Duration
	// UpdateDelay is how long a replica whose settings a ReplicaUpdates
	// Update changed stays UPDATING (the server's --create-delay; 0: it is
	// ACTIVE again at once, though the UpdateTable's answer shows it
	// UPDATING, as the engine's answers show a table's own change).
	UpdateDelay time.Duration
	Logger      *slog.Logger
	// Node names this process as the holder of the replication leases
	// (worker.go) among the Kura nodes sharing Store (zero: lease.Me());
	// LeaseClock is the clock of their expiries (nil: the system clock) and
	// LeaseTTL how long one lasts unrenewed (0: lease.DefaultTTL).
	Node       lease.Node
	LeaseClock lease.Clock
	LeaseTTL   time.Duration
	// Cluster is set when several Kura nodes share Store (--cluster): the
	// fault controls are then the deployment's, kept in Store (faults.go).
	Cluster bool
}

// Group is the global tables of one Kura's regions.
type Group struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// leases are this node's replication leases in Store; release gives
	// them up once the workers stopped.
	leases    *lease.Manager
	release   func()
	closeOnce sync.Once

	mu      sync.Mutex
	tables  map[string]*tableState // the catalogue, by table name
	workers map[workerKey]*worker
	faults  faults
	locks   itemLocks          // the items MRSC writes are making (strong_io.go)
	hidden  map[streamKey]bool // the streams only replication reads (strong_stream.go)

	progressMu sync.Mutex
	progresses map[workerKey]int // backfills' percentages
}

type workerKey struct{ table, region string }

// Open loads the catalogue from cfg.Store and starts a worker for every
// replica, resuming backfills and deletions a stop interrupted.
func Open(cfg Config) (*Group, error) {
	if cfg.Now == nil {
		cfg.Now = func(string) time.Time { return time.Now() }
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 10 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	g := &Group{cfg: cfg, tables: map[string]*tableState{}, workers: map[workerKey]*worker{}, hidden: map[streamKey]bool{}, progresses: map[workerKey]int{}}
	g.faults.init()
	g.ctx, g.cancel = context.WithCancel(context.Background())
	if err := g.load(); err != nil {
		return nil, err
	}
	if cfg.Cluster {
		if err := g.loadFaults(); err != nil {
			return nil, err
		}
		g.wg.Add(1)
		go g.refresh()
	}
	g.leases = lease.New(lease.Config{Store: cfg.Store, Node: cfg.Node, Clock: cfg.LeaseClock, TTL: cfg.LeaseTTL})
	g.release = g.leases.Serve(g.ctx.Done())
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, t := range g.tables {
		for _, r := range t.Replicas {
			switch r.Status {
			case statusDeleting:
				g.goDelete(t.Name, r.Region)
			case statusCreating:
				g.startWorker(t.Name, r.Region)
				g.goBackfill(t.Name, r.Region, sourceOf(t, r.Region))
			default:
				g.startWorker(t.Name, r.Region)
			}
		}
	}
	return g, nil
}

// load reads the catalogue and the hidden streams.
func (g *Group) load() error {
	tables, hidden, err := g.readCatalogue()
	if err == nil {
		g.tables, g.hidden = tables, hidden
	}
	return err
}

// readCatalogue reads the stored catalogue and the hidden streams, from
// one snapshot.
func (g *Group) readCatalogue() (map[string]*tableState, map[streamKey]bool, error) {
	snap, err := g.cfg.Store.NewSnapshot()
	if err != nil {
		return nil, nil, err
	}
	defer snap.Close()
	hidden, err := readHidden(snap)
	if err != nil {
		return nil, nil, err
	}
	p := key('g')
	it, err := snap.NewIterator(storage.IterOptions{Lower: p, Upper: prefixEnd(p)})
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	tables := map[string]*tableState{}
	for it.Next() {
		t := &tableState{}
		if err := jsonUnmarshal(it.Value(), t); err != nil {
			return nil, nil, err
		}
		tables[t.Name] = t
	}
	return tables, hidden, it.Err()
}

// refreshCatalogue rereads the catalogue another node may have changed
// (several nodes) and runs a worker for every replica it lists, so that
// this node describes the global tables as the others do and can take
// over their workers; it stops the workers of replicas no longer listed
// or being deleted (finishDelete stops them on the node deleting).
// A table with a replica being created is left to the node creating it,
// which positions the source's reader before its workers start.
func (g *Group) refreshCatalogue() error {
	tables, hidden, err := g.readCatalogue()
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.tables, g.hidden = tables, hidden
	for _, t := range tables {
		if slices.ContainsFunc(t.Replicas, func(r replicaState) bool { return r.Status == statusCreating }) {
			continue
		}
		for _, r := range t.Replicas {
			if r.Status != statusDeleting {
				g.startWorker(t.Name, r.Region)
			}
		}
	}
	var gone []workerKey
	for k := range g.workers {
		t := tables[k.table]
		if t == nil || t.replica(k.region) == nil || t.replica(k.region).Status == statusDeleting {
			gone = append(gone, k)
		}
	}
	g.mu.Unlock()
	for _, k := range gone {
		g.stopWorker(k.table, k.region)
	}
	return nil
}

// Close stops every worker; replication resumes from the stored state at
// the next Open.
// A second Close does nothing.
func (g *Group) Close() {
	g.closeOnce.Do(func() {
		g.cancel()
		g.wg.Wait()
		g.release()
	})
}

// sourceOf is the replica a new replica in region is filled from: the
// first ACTIVE one.
func sourceOf(t *tableState, region string) string {
	for _, r := range t.Replicas {
		if r.Region != region && r.Status == statusActive {
			return r.Region
		}
	}
	return ""
}

// replica returns region's replica of t, or nil.
func (t *tableState) replica(region string) *replicaState {
	for i := range t.Replicas {
		if t.Replicas[i].Region == region {
			return &t.Replicas[i]
		}
	}
	return nil
}

// targets are the regions a write made in region is sent to: every other
// replica being created or active. g.mu is held.
func (g *Group) targets(table, region string) []string {
	t := g.tables[table]
	if t == nil {
		return nil
	}
	var out []string
	for _, r := range t.Replicas {
		if r.Region != region && r.Status != statusDeleting {
			out = append(out, r.Region)
		}
	}
	sort.Strings(out)
	return out
}

// saveTable writes t to the catalogue (nil deletes the table name). g.mu is
// held.
func (g *Group) saveTable(name string, t *tableState) error {
	txn, err := g.cfg.Store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	if t == nil {
		err = txn.Delete(key('g', name))
	} else {
		err = setJSON(txn, key('g', name), t)
	}
	if err != nil {
		return err
	}
	return txn.Commit(storage.CommitOptions{Sync: true})
}
