package streams

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Clock is the time source of records, shards and iterators.
type Clock interface{ Now() time.Time }

// Config is what the engine hands the registry: its store and clock, its
// settings, and the few services of the core the streams use.
type Config struct {
	// Store is the engine's store as WrapStore wrapped it: a transaction
	// that carries a stream record must come from it.
	Store Store
	Clock Clock
	// Sync makes metadata changes durable before they are acknowledged.
	Sync bool
	// Region is the awsRegion of records.
	Region string
	// ShardPeriod is how long a shard stays open (default 4h); Retention
	// how long records and disabled streams are kept (default 24h).
	ShardPeriod, Retention time.Duration

	// Commit runs f in a new transaction and commits it.
	Commit func(sync bool, f func(storage.Txn) error) error
	// Purge deletes up to PurgeChunk keys in [lower, upper) and says how
	// many it deleted.
	Purge      func(lower, upper []byte) (int, error)
	PurgeChunk int
	// Authorize refuses action on an ARN of another account (nil: allowed).
	Authorize func(action, arn string) *ddberr.Error
	// TableExists reports whether a table of that name exists (ListStreams
	// of a table with no stream).
	TableExists func(name string) bool
	// Background runs f until the engine closes; Sleep waits d, false
	// once the engine is closing; Closing is closed then.
	Background func(f func())
	Sleep      func(d time.Duration) bool
	Closing    <-chan struct{}
	// Cluster: the store is shared by several nodes (positions stored,
	// readers reading the store: shared.go).
	Cluster bool
	// Table is the table of that name as the store has it now, for the
	// upkeep's check in cluster mode that a stream's table still names it
	// (found false: no such table; deleting: it is DELETING).
	Table func(name string) (t *change.Table, deleting, found bool, err error)
	// Hold reports whether this node is the one of those sharing the
	// store that maintains the streams now (the engine's lease "streams");
	// nil: always.
	Hold func() bool
}

// Registry is the in-memory state of every retained stream, and the
// streams subsystem of the write path (Stage, Committed).
//
// Sequence numbers: one engine-wide counter (seq). A writer allocates its
// number and registers it as in flight under its stream's lock, and
// releases it when its transaction commits or rolls back (streamTxn). A
// reader reads a stream only up to its safe watermark — the highest
// number below which nothing is in flight — so a record that commits
// after a later-numbered one is never skipped.
type Registry struct {
	cfg    Config
	opened atomic.Bool // Open has loaded the registry

	seq atomic.Uint64 // last allocated sequence number
	key []byte        // shard-iterator MAC key

	mu      sync.Mutex // guards the maps, next and changes of which stream is current
	byARN   map[string]*streamState
	byID    map[streamKey]*streamState
	current map[uint64]*streamState // the newest stream of each table ID
	next    uint32                  // next stream number
	fast    sync.Map                // ARN → *streamState, read by the write path
}

// Observed is a table as the catalog holds it at Open.
type Observed struct {
	Table    *change.Table
	Deleting bool
}

// New returns an empty registry; Open loads it.
func New(cfg Config) *Registry {
	return &Registry{cfg: cfg, byARN: map[string]*streamState{}, byID: map[streamKey]*streamState{},
		current: map[uint64]*streamState{}}
}

// Open loads the streams, reconciles them with the catalog's tables, rolls
// over shards that outlived their period while Kura was down, and starts
// the maintenance loop (rollover, retention).
func (reg *Registry) Open(tables []Observed) error {
	if err := reg.load(); err != nil {
		return err
	}
	reg.opened.Store(true)
	reg.reconcile(tables)
	reg.maintainIfHeld()
	reg.cfg.Background(func() {
		for reg.cfg.Sleep(streamMaintenanceDur) {
			reg.maintainIfHeld()
		}
	})
	return nil
}

// Committed has nothing to do: the transaction carrying a record releases
// its sequence number when it ends (streamTxn).
func (*Registry) Committed(change.Change) {}

// Spec is the stream a table's description names.
func Spec(d *wire.TableDescription) change.StreamSpec {
	s := change.StreamSpec{ARN: wire.Deref(d.LatestStreamArn), Label: wire.Deref(d.LatestStreamLabel), KeySchema: d.KeySchema}
	if spec := d.StreamSpecification; spec != nil {
		s.Enabled, s.ViewType = wire.Deref(spec.StreamEnabled), spec.StreamViewType
	}
	return s
}
