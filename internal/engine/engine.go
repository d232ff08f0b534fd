package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/engine/bulk"
	"github.com/kura-db/kura/internal/engine/catalog"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/export"
	"github.com/kura-db/kura/internal/engine/imports"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/kinesisdest"
	"github.com/kura-db/kura/internal/engine/pitr"
	"github.com/kura-db/kura/internal/engine/reads"
	"github.com/kura-db/kura/internal/engine/restore"
	"github.com/kura-db/kura/internal/engine/streams"
	"github.com/kura-db/kura/internal/engine/stripes"
	"github.com/kura-db/kura/internal/engine/throttle"
	"github.com/kura-db/kura/internal/engine/transact"
	"github.com/kura-db/kura/internal/engine/ttl"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage"
)

// Clock is injected so that time-dependent behaviour is testable.
type Clock interface{ Now() time.Time }

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Config configures an Engine.
type Config struct {
	Region    string // default "us-east-1"
	AccountID string // default "000000000000"
	// Sync makes every acknowledged write durable before it is acknowledged.
	Sync bool
	// CreateDelay is how long a new table (or index) stays CREATING.
	CreateDelay time.Duration
	// DeleteDelay is how long a deleted table stays DELETING.
	DeleteDelay time.Duration
	Clock       Clock
	// NoGlobalTables, when set, is the reason UpdateTable's ReplicaUpdates
	// are refused with (empty: the engine serves a single region), for a
	// server whose regions cannot replicate to one another.
	NoGlobalTables string
	// StreamShardPeriod is how long a stream shard stays open before it
	// rolls over to a child shard (default 4h, as DynamoDB).
	StreamShardPeriod time.Duration
	// StreamRetention is how long stream records, and disabled streams,
	// are kept (default 24h).
	StreamRetention time.Duration
	// TTLInterval is the period of the background TTL expirer (default
	// 30s); a negative value disables the background pass (ExpireTTL
	// still works).
	TTLInterval time.Duration
	// ItemCacheBytes is the budget of the cache of recently written and
	// read items (itemcache.go); 0 disables it. Only a store this process
	// alone writes may have it.
	ItemCacheBytes int64
	// Cluster runs the engine as one node of several sharing the store
	// (catalog_nodes.go, doc.go "Several nodes"): no item cache, every
	// item write checks its table's definition in its transaction, a
	// table this node does not know is looked up in the store, and the
	// subsystems share their state through the store (doc.go).
	Cluster bool
	// ClusterRecount is how often, in cluster mode, the holder of the
	// recount lease recounts the tables' ItemCount and TableSizeBytes from
	// the store, which other nodes write too, and the other nodes read
	// what it saved (default 1 minute; catalog_nodes.go).
	ClusterRecount time.Duration
	// Throttle enforces provisioned and on-demand maximum throughput
	// (throttle.go); off, it is only described.
	Throttle ThrottleConfig
	// MeterCapacity counts the capacity each table and GSI consumes and
	// the requests throttled on it, for TableStats (capacity_meter.go).
	MeterCapacity bool
	// Objects is where exports to S3 are written (export.go); nil: no
	// S3 here, and ExportTableToPointInTime is refused.
	Objects objstore.Store
	// Kinesis is where Kinesis streaming destinations put the tables'
	// changes (internal/engine/kinesisdest); nil: none, and
	// EnableKinesisStreamingDestination is refused.
	Kinesis kinesisdest.Client
	// Node names this engine as the holder of the leases that keep
	// background work to one node of those sharing the store (leases.go;
	// zero: lease.Me(), a random ID for this process).
	Node lease.Node
	// LeaseClock is the clock of lease expiries (nil: the system clock,
	// never the Clock above, which an operator may move); LeaseTTL how
	// long a lease lasts after its holder's last renewal (0:
	// lease.DefaultTTL).
	LeaseClock Clock
	LeaseTTL   time.Duration
}

// Engine is one Kura database.
type Engine struct {
	cfg   Config
	store streams.Store // the store given to Open, carrying stream sequence numbers per txn
	clock Clock
	// chargeUpdates holds UpdateItem's statement against the item size
	// limit as well as the finished item (by cfg.Region, item_update_size.go).
	chargeUpdates bool
	// point reads single items without a snapshot when the store can
	// (see getItem); nil otherwise.
	point storage.PointReader
	// reads runs Query and Scan (package reads, reads.go).
	reads *reads.Reads

	mu     sync.RWMutex
	tables map[string]*Table // by name; values are immutable, swapped on change

	locks stripes.Locks // striped per-item locks, see lockFor (package stripes)
	items *itemCache    // recently written and read items; nil when off

	tx *transact.State // items held by in-flight transactions, idempotency tokens (package transact)

	// subs are offered every item change inside its transaction and told
	// when it committed (subsystems.go); the write path knows only them.
	subs change.Subsystems

	// quota admits and pays capacity (package throttle), when enforced
	// or metered: Metering() means every request works out what it
	// consumes.
	quota *throttle.Quota
	// applier applies item writes: the core's write path, wrapped in the
	// quota applier when metering (throttle.go, wireAppliers).
	applier writeApplier

	// ddl serialises control-plane changes (catalog writes, ID allocation).
	ddl sync.Mutex
	cat *catalog.Catalog // the catalog's store side (catalog.go, package catalog)

	statsMu    sync.Mutex
	stats      map[uint64]*tableStats // by table ID
	statsDirty atomic.Bool            // a recount was interrupted: do not mark clean
	recounted  atomic.Int64           // tables recounted by this node (tests)

	streams *streams.Registry // DynamoDB Streams (internal/engine/streams)
	ttl     *ttl.Expirer      // TTL: its APIs and expirer (package ttl, table_meta.go)

	vec *vectors.Registry // vector indexes (internal/engine/vectors)

	coll indexes.Collections // item collections of LSI tables (package indexes)

	bk   *backup.Backups[tableRecord] // on-demand and system backups (package backup, backup_host.go)
	rst  *restore.Restores            // restores from backups and to a point in time (package restore)
	pitr *pitr.Log                    // the point-in-time recovery history (internal/engine/pitr)

	exp  *export.Exports   // exports to S3 (export.go, package export)
	imp  *imports.Imports  // imports from S3 (import.go, package imports)
	bulk *bulk.Operations  // bulk operations from S3 (bulk.go, package bulk)
	kin  *kinesisdest.Feed // Kinesis streaming destinations (internal/engine/kinesisdest)

	leases *lease.Manager // this node's leases on background work (leases.go)

	closing chan struct{}  // closed by Close to stop background work
	bg      sync.WaitGroup // background goroutines (purges, recounts, timers)
	closed  bool
}

// Open opens the engine over store, loading the catalog. It does not take
// ownership of store: the caller closes it after Close.
func Open(store storage.Store, cfg Config) (*Engine, error) {
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if cfg.AccountID == "" {
		cfg.AccountID = "000000000000"
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
	e := &Engine{
		cfg:     cfg,
		store:   streams.WrapStore(store), // carries stream sequence numbers per txn
		clock:   cfg.Clock,
		tables:  make(map[string]*Table),
		stats:   make(map[uint64]*tableStats),
		closing: make(chan struct{}),
		items:   newItemCache(itemCacheBudget(cfg)),
		quota:   throttle.NewQuota(cfg.Throttle, cfg.MeterCapacity, cfg.Clock.Now),
		pitr:    pitr.New(cfg.Clock),
		tx:      transact.New(cfg.Clock),

		chargeUpdates: chargesUpdateStatements(cfg.Region),
	}
	e.openCatalog(store)
	e.openLeases(store)
	e.streams = streams.New(e.streamsConfig())
	e.vec = e.newVectorRegistry()
	if err := e.openKinesis(store); err != nil { // a subsystem: before the list is wired
		return nil, err
	}
	e.wireSubsystems()
	e.wireAppliers()
	e.point, _ = store.(storage.PointReader)
	e.reads = reads.New(readCore{e}, store, e.quota)
	if err := e.openLayout(store); err != nil {
		return nil, err
	}
	if err := e.loadCatalog(); err != nil {
		return nil, err
	}
	e.startClusterRecount()
	e.followNodes()
	if err := e.streams.Open(e.observedTables()); err != nil {
		return nil, err
	}
	if err := e.openVectors(); err != nil {
		return nil, err
	}
	if err := e.openExports(); err != nil {
		return nil, err
	}
	if err := e.openImports(); err != nil {
		return nil, err
	}
	if err := e.openBulk(); err != nil {
		return nil, err
	}
	if err := e.openBackups(); err != nil {
		return nil, err
	}
	e.startPITRTrim()
	e.startTTL()
	e.startJobAdoption()
	e.shareTokens(store)
	return e, nil
}

// itemCacheBudget is the item cache's budget: none in cluster mode, where
// other nodes write the store too (itemcache.go).
func itemCacheBudget(cfg Config) int64 {
	if cfg.Cluster {
		return 0
	}
	return cfg.ItemCacheBytes
}

// Close stops background work and persists the table statistics so that the
// next Open need not recount them. It does not close the store.
func (e *Engine) Close() error {
	e.ddl.Lock()
	if e.closed {
		e.ddl.Unlock()
		return nil
	}
	e.closed = true
	close(e.closing)
	e.ddl.Unlock()
	e.bg.Wait()
	e.leases.ReleaseAll() // the work they guard stopped: another node may take it at once
	e.kin.Close()
	if err := e.vec.Close(); err != nil {
		return err
	}
	return e.saveStats()
}

// lookupTable returns the current version of the named table. A table whose
// CREATING/UPDATING period has elapsed is promoted to ACTIVE here, and a
// DELETING table whose delay has elapsed is reported as absent.
func (e *Engine) lookupTable(name string) (*Table, bool) {
	e.mu.RLock()
	t, ok := e.tables[tableNameOf(name)]
	e.mu.RUnlock()
	if e.cfg.Cluster {
		// Another node may have created, changed or removed it.
		var err error
		if !ok {
			t, ok, err = e.reloadTable(name)
		} else {
			t, ok = e.recheck(t)
		}
		if err != nil || !ok {
			return nil, false
		}
	}
	if !ok {
		return nil, false
	}
	return e.settle(t)
}

// settle applies elapsed status transitions to t.
func (e *Engine) settle(t *Table) (*Table, bool) {
	switch t.Status {
	case StatusCreating, StatusUpdating:
		if until := t.pendingUntil(); !until.IsZero() && !e.clock.Now().Before(until) {
			return e.promote(t), true
		}
	case StatusDeleting:
		if !t.rec.DeleteAt.IsZero() && !e.clock.Now().Before(t.rec.DeleteAt) {
			return nil, false
		}
	}
	return t, true
}

// promote swaps in an ACTIVE version of t (in memory only: the persisted
// record derives the same status from ReadyAt when loaded).
func (e *Engine) promote(t *Table) *Table {
	e.mu.Lock()
	defer e.mu.Unlock()
	cur, ok := e.tables[t.Name]
	if !ok || cur.ID != t.ID {
		return t
	}
	if cur.Status != StatusCreating && cur.Status != StatusUpdating {
		return cur
	}
	rec := cur.rec.Clone()
	rec.Settle(e.clock.Now())
	nt, err := e.buildTable(rec)
	if err != nil {
		return cur
	}
	e.tables[t.Name] = nt
	return nt
}

// snapshotTables returns the settled tables (no DELETING-expired ones).
func (e *Engine) snapshotTables() []*Table {
	e.mu.RLock()
	list := make([]*Table, 0, len(e.tables))
	for _, t := range e.tables {
		list = append(list, t)
	}
	e.mu.RUnlock()
	out := list[:0]
	for _, t := range list {
		if st, ok := e.settle(t); ok {
			out = append(out, st)
		}
	}
	return out
}

// statsFor returns the live statistics of a table ID, creating them.
func (e *Engine) statsFor(id uint64) *tableStats {
	e.statsMu.Lock()
	defer e.statsMu.Unlock()
	s, ok := e.stats[id]
	if !ok {
		s = &tableStats{}
		e.stats[id] = s
	}
	return s
}

// addStats records the effect of one committed write on a table's
// ItemCount and TableSizeBytes (as DescribeTable reports them).
func (e *Engine) addStats(t *Table, dItems, dBytes int64) {
	s := t.stats
	if s == nil {
		s = e.statsFor(t.ID)
	}
	s.items.Add(dItems)
	s.bytes.Add(dBytes)
}

// goBackground runs f in a goroutine that Close waits for. Callers hold
// e.ddl (or are in Open); nothing starts once the engine is closed.
func (e *Engine) goBackground(f func()) {
	if e.closed {
		return
	}
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		f()
	}()
}

// awaitClock waits until the engine's clock reaches at, while still
// holds; it reports false when the engine closes or still stops holding.
func (e *Engine) awaitClock(at time.Time, still func() bool) bool {
	for {
		if !still() {
			return false
		}
		wait := at.Sub(e.clock.Now())
		if wait <= 0 {
			return true
		}
		select {
		case <-e.closing:
			return false
		case <-time.After(min(wait, 50*time.Millisecond)):
		}
	}
}

// sleep waits d or until Close; it reports false when closing.
func (e *Engine) sleep(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-e.closing:
			return false
		default:
			return true
		}
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-e.closing:
		return false
	case <-tm.C:
		return true
	}
}
