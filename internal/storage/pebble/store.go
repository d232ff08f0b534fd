package pebble

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	cpebble "github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/internal/occ"
)

// Defaults sized for a small-footprint server.
const (
	// DefaultCacheSize is the block cache size used when Options.CacheSize
	// is 0. The cache is filled lazily, so an idle server does not pay it.
	DefaultCacheSize = 64 << 20
	// DefaultMemTableSize is the memtable size used when
	// Options.MemTableSize is 0. Pebble starts with a 256 KB memtable and
	// doubles up to this size, so an idle server does not pay it. Under
	// sustained writes 16 MB (rather than 4 MB) means a quarter of the
	// flushes and L0 compactions, and fewer reads of freshly compacted,
	// uncached blocks: BatchWriteItem of 25 items used about 20% less CPU
	// (BENCHMARKS.md).
	DefaultMemTableSize = 16 << 20
	// SyncSiblings is how many durable commits must be in flight for
	// Options.SyncDelay to hold a WAL sync back.
	SyncSiblings = 4
	// DefaultBackgroundSync bounds how long an unsynced commit stays
	// only in memory (Options.BackgroundSync).
	DefaultBackgroundSync = 50 * time.Millisecond
)

// Logger receives Pebble's log messages. Fatalf must not return.
type Logger interface {
	Infof(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Options configure Open. The zero value is a durable on-disk store with
// default sizes and silent logging. Whether a commit is fsync'd is chosen
// per commit with storage.CommitOptions.Sync.
type Options struct {
	// InMemory keeps everything in memory (Pebble's in-memory filesystem);
	// dir is then only a name. Nothing survives Close.
	InMemory bool
	// CacheSize is the block cache size in bytes; 0 means DefaultCacheSize.
	CacheSize int64
	// MemTableSize is the memtable size in bytes; 0 means
	// DefaultMemTableSize.
	MemTableSize uint64
	// SyncDelay is the minimum interval between two WAL fsyncs while at
	// least SyncSiblings durable commits are in flight: syncing commits
	// that arrive within it wait and share the next fsync, so a busy server
	// issues fewer fsyncs (each costs kernel CPU) at the price of up to
	// SyncDelay more latency per durable write. With fewer commits in
	// flight (a lone writer) every sync happens at once, as with 0. This is
	// PostgreSQL's commit_delay with commit_siblings.
	SyncDelay time.Duration
	// BackgroundSync is how often the WAL is written out and fsync'd in the
	// background when commits since the last time were not synced
	// (CommitOptions.Sync false); 0 means DefaultBackgroundSync. Pebble
	// keeps an unsynced commit in its WAL buffer until something flushes
	// it, so without this a crash of the process alone could lose writes
	// acknowledged long before. Ignored for InMemory stores.
	BackgroundSync time.Duration
	// Logger receives Pebble's messages; nil discards them. Its Fatalf is
	// never called: a fatal error fails the store (faults.go) and is
	// logged with Errorf.
	Logger Logger
	// MinFreeBytes is the free disk space below which commits are refused
	// with storage.ErrNoSpace (space.go); 0 checks nothing. MinFreeText is
	// how the limit is named in that error (default: the figure in MB).
	// Ignored for InMemory stores.
	MinFreeBytes uint64
	MinFreeText  string
	// OnFatal is told, once and on a goroutine of its own, when the store
	// hits an unrecoverable storage fault (faults.go); the store then
	// refuses every operation with storage.ErrFailed. It should stop the
	// process. Nil: the store prints the cause and exits the process with
	// status 1.
	OnFatal func(error)
	// Now is the clock of the free-space check; nil means time.Now.
	Now func() time.Time
	// DiskStallTimeout fails the store (as a fault, see OnFatal) when one
	// disk operation of the store has not finished after this long: a
	// stalled disk otherwise blocks every write forever while reads go
	// on. 0 turns the check off; Pebble checks about every 2 s, so a
	// stall is noticed up to 2 s late. Ignored for InMemory stores.
	DiskStallTimeout time.Duration
}

// baseFS is the filesystem under a durable store (tests replace it).
var baseFS = vfs.Default

// Store is a Pebble-backed storage.Store. Create it with Open.
type Store struct {
	db       *cpebble.DB
	oracle   *occ.Oracle
	inMemory bool
	spares   *walSpares   // nil for in-memory stores
	stallFS  io.Closer    // stops the disk-stall checks (nil: none)
	syncing  atomic.Int32 // durable commits in flight (Options.SyncDelay)
	// unsynced is set by the first unsynced commit after a background
	// sync, which also schedules the next one (syncLater); bgEvery is
	// Options.BackgroundSync (0 for in-memory stores: nothing to sync).
	unsynced atomic.Bool
	bgEvery  time.Duration

	// mu is held shared by every operation and exclusively by Close, so
	// Close waits for in-flight reads and commits.
	mu     sync.RWMutex
	closed bool // guarded by mu

	// failure is the fault that failed the store (faults.go), nil while
	// it works; onFatal is Options.OnFatal. space refuses commits while
	// the disk is nearly full (nil: no minimum).
	failure atomic.Pointer[error]
	onFatal func(error)
	space   *spaceGuard

	// regMu guards the registries of open snapshots and iterators, which
	// Close force-closes.
	regMu sync.Mutex
	snaps map[*snap]struct{}
	iters map[*iter]struct{}
}

var _ storage.Store = (*Store)(nil)

// Open opens (creating if needed) the store in directory dir.
func Open(dir string, opts Options) (*Store, error) {
	po := &cpebble.Options{
		CacheSize:          opts.CacheSize,
		MemTableSize:       opts.MemTableSize,
		FormatMajorVersion: cpebble.FormatNewest,
		MaxOpenFiles:       512,
	}
	if po.CacheSize <= 0 {
		po.CacheSize = DefaultCacheSize
	}
	if po.MemTableSize == 0 {
		po.MemTableSize = DefaultMemTableSize
	}
	s := &Store{
		oracle:   occ.NewOracle(),
		inMemory: opts.InMemory,
		snaps:    make(map[*snap]struct{}),
		iters:    make(map[*iter]struct{}),
		onFatal:  opts.OnFatal,
	}
	if d := opts.SyncDelay; d > 0 {
		// Pebble asks right after each WAL sync; the commits that sync
		// covered are still counted, so a lone writer sees 1.
		po.WALMinSyncInterval = func() time.Duration {
			if s.syncing.Load() >= SyncSiblings {
				return d
			}
			return 0
		}
	}
	// Bloom filters make point reads of absent keys (every PutItem of a
	// new item) cheap. Lower levels inherit level 0's options.
	po.Levels[0].FilterPolicy = bloom.FilterPolicy(10)
	po.Logger = fatalLogger{store: s, log: opts.Logger}
	if opts.InMemory {
		po.FS = vfs.NewMem()
	} else {
		// Pebble's WAL preallocation size: MemTableSize plus 10%.
		size := int64(po.MemTableSize + po.MemTableSize/10)
		s.spares = newWALSpares(baseFS, dir, size)
		var fs vfs.FS = bufferedFS{s.spares}
		if opts.DiskStallTimeout > 0 {
			fs, s.stallFS = vfs.WithDiskHealthChecks(fs, opts.DiskStallTimeout, nil, s.stalled)
		}
		po.FS = faultFS{FS: fs, dir: dir, store: s}
		s.space = newSpaceGuard(dir, opts)
	}
	db, err := cpebble.Open(dir, po)
	if err != nil {
		if s.spares != nil {
			s.spares.close()
		}
		if s.stallFS != nil {
			s.stallFS.Close()
		}
		return nil, fmt.Errorf("storage/pebble: open %s: %w", dir, err)
	}
	s.db = db
	if s.spares != nil {
		s.spares.removeStale()
	}
	if !opts.InMemory {
		every := opts.BackgroundSync
		if every <= 0 {
			every = DefaultBackgroundSync
		}
		s.bgEvery = every
	}
	return s, nil
}

// newSpaceGuard is the free-space check of a store in dir (nil without a
// minimum).
func newSpaceGuard(dir string, opts Options) *spaceGuard {
	if opts.MinFreeBytes == 0 {
		return nil
	}
	g := &spaceGuard{min: opts.MinFreeBytes, now: opts.Now, limit: opts.MinFreeText}
	if g.now == nil {
		g.now = time.Now
	}
	if g.limit == "" {
		g.limit = formatBytes(opts.MinFreeBytes)
	}
	fs := baseFS
	g.free = func() (uint64, error) {
		u, err := fs.GetDiskUsage(dir)
		return u.AvailBytes, err
	}
	return g
}

// Health reports whether the store takes writes (storage.HealthReporter):
// nil, an error wrapping storage.ErrNoSpace while the disk is nearly full,
// or one wrapping storage.ErrFailed after a fault.
func (s *Store) Health() error {
	if err := s.failed(); err != nil {
		return err
	}
	return s.space.check()
}

var _ storage.HealthReporter = (*Store)(nil)

// usable is the error an operation returns before it starts: ErrClosed
// after Close, the fault after a failure. The caller holds mu shared.
func (s *Store) usable() error {
	if s.closed {
		return storage.ErrClosed
	}
	return s.failed()
}

// noteUnsynced records an unsynced commit that has just completed: the
// first one after a background sync schedules the next, so an idle store
// wakes for nothing. A commit that finds a sync already scheduled is
// covered by it: that sync's WAL record goes after the commit's.
func (s *Store) noteUnsynced() {
	if s.bgEvery > 0 && s.unsynced.CompareAndSwap(false, true) {
		time.AfterFunc(s.bgEvery, s.syncUnsynced)
	}
}

// syncUnsynced writes out and fsyncs the WAL (Options.BackgroundSync).
func (s *Store) syncUnsynced() {
	s.unsynced.Store(false) // later commits schedule the next sync
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return // Close flushed everything
	}
	// An empty WAL record with Sync makes Pebble write its buffered WAL
	// block out and fsync it; every earlier commit is in it.
	if err := s.db.LogData(nil, cpebble.Sync); err != nil {
		s.noteUnsynced() // try again later
	}
}

// NewSnapshot returns a consistent read-only view of the store.
func (s *Store) NewSnapshot() (storage.Snapshot, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usable(); err != nil {
		return nil, err
	}
	return &snapshot{snap: s.newSnap(false)}, nil
}

// Get reads key's latest committed value without taking a snapshot
// (storage.PointReader).
func (s *Store) Get(key []byte) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usable(); err != nil {
		return nil, err
	}
	return getCopy(s.db, key)
}

// getCopy reads key from r (the DB or a snapshot) and returns a copy of
// the value, which Pebble only lends until its closer is closed.
func getCopy(r cpebble.Reader, key []byte) ([]byte, error) {
	v, c, err := r.Get(key)
	if errors.Is(err, cpebble.ErrNotFound) {
		return nil, storage.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	out := append(make([]byte, 0, len(v)), v...)
	if err := c.Close(); err != nil {
		return nil, err
	}
	return out, nil
}

var _ storage.PointReader = (*Store)(nil)

// NewIterator opens an iterator over the latest committed state without a
// snapshot (storage.RangeReader): a Pebble iterator is a consistent view by
// itself. It spares a read that opens one iterator the Pebble snapshot,
// whose creation and release each lock Pebble's DB mutex, and whose release
// makes Pebble search for compactions when it was the oldest snapshot.
func (s *Store) NewIterator(opts storage.IterOptions) (storage.Iterator, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usable(); err != nil {
		return nil, err
	}
	return s.openIter(nil, opts)
}

var _ storage.RangeReader = (*Store)(nil)

// Begin starts a read-write transaction.
func (s *Store) Begin() (storage.Txn, error) { return s.begin(false) }

// BeginLazy starts a read-write transaction whose snapshot is taken at its
// first read (storage.LazyBeginner): a transaction that reads nothing, like
// most of the engine's single-item writes (its item cache answers), takes no
// Pebble snapshot, whose creation and release each lock Pebble's DB mutex
// and whose release, when it was the oldest, makes Pebble search for
// compactions (4% of a PutItem run's CPU).
func (s *Store) BeginLazy() (storage.Txn, error) { return s.begin(true) }

func (s *Store) begin(lazy bool) (storage.Txn, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usable(); err != nil {
		return nil, err
	}
	// The start timestamp must be chosen before the snapshot is taken; see
	// package occ.
	core := s.oracle.Begin()
	return &txn{snap: s.newSnap(lazy), core: core}, nil
}

var _ storage.LazyBeginner = (*Store)(nil)

// Close waits for in-flight operations, closes open snapshots, transactions
// and iterators, flushes the memtable and closes Pebble. Later calls return
// storage.ErrClosed; a second Close returns nil. A failed store (faults.go)
// is left as it is and Close returns its fault.
func (s *Store) Close() error {
	if err := s.failed(); err != nil {
		// Pebble's state after the fault is not usable: flushing or
		// closing it could block or panic, and the goroutine that hit
		// the fault holds mu forever. The process stops, and the next
		// open recovers from the WAL.
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.regMu.Lock()
	for it := range s.iters {
		it.release()
	}
	for sn := range s.snaps {
		sn.release()
	}
	s.iters, s.snaps = nil, nil
	s.regMu.Unlock()
	var err error
	if !s.inMemory {
		err = s.db.Flush()
	}
	err = errors.Join(err, s.db.Close())
	if s.spares != nil {
		s.spares.close()
	}
	if s.stallFS != nil {
		s.stallFS.Close()
	}
	return err
}

// newSnap registers a snapshot, taking the Pebble snapshot now or, if lazy,
// at its first read. The caller holds mu shared.
func (s *Store) newSnap(lazy bool) *snap {
	sn := &snap{store: s}
	if !lazy {
		sn.ps.Store(s.db.NewSnapshot())
	}
	s.regMu.Lock()
	s.snaps[sn] = struct{}{}
	s.regMu.Unlock()
	return sn
}

// apply commits writes as one Pebble batch. The caller holds mu shared.
//
// The writes go into the batch in key order: Pebble's memtable insert
// starts each search where the previous insert of the batch ended, so
// ascending keys (a BatchWriteItem of neighbouring items, an item and its
// index entries of the same table) skip most of the skiplist search that
// map order would repeat for every key.
func (s *Store) apply(writes map[string]occ.Write, opts storage.CommitOptions) error {
	if err := s.failed(); err != nil {
		return err
	}
	if !opts.Reserve {
		if err := s.space.check(); err != nil {
			return err
		}
	}
	b := s.db.NewBatch()
	defer b.Close()
	var buf [8]string
	keys := buf[:0]
	for k := range writes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		w := writes[k]
		var err error
		if w.Delete {
			err = b.Delete([]byte(k), nil)
		} else {
			err = b.Set([]byte(k), w.Value, nil)
		}
		if err != nil {
			return err
		}
	}
	wo := cpebble.NoSync
	if opts.Sync {
		wo = cpebble.Sync
		s.syncing.Add(1)
		defer s.syncing.Add(-1)
	} else {
		defer s.noteUnsynced() // after the commit, so the sync covers it
	}
	return b.Commit(wo)
}
