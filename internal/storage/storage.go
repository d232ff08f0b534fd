package storage

import "errors"

// ErrNotFound is returned by Get for a missing key.
var ErrNotFound = errors.New("storage: key not found")

// ErrConflict is returned by Commit when another transaction committed a
// write to a key this transaction read (with Get) or wrote, after this
// transaction began. The caller may retry the whole transaction.
var ErrConflict = errors.New("storage: transaction conflict")

// ErrClosed is returned after Close.
var ErrClosed = errors.New("storage: closed")

// ErrNoSpace is returned (wrapped, with the figures) by Commit while the
// free space of a durable store's disk is below the store's minimum: the
// write is refused before the disk fills, and reads go on. Commits are
// accepted again once space is freed.
var ErrNoSpace = errors.New("storage: free disk space is below the minimum")

// ErrFailed is returned (wrapped, with the cause) by every operation of a
// store that hit an unrecoverable storage fault (a failed write, sync or
// file creation in its directory). Such a store is not used again: its
// process must stop and be restarted, and recovery replays what was
// acknowledged.
var ErrFailed = errors.New("storage: failed")

// Store is an ordered transactional key-value store.
type Store interface {
	// NewSnapshot returns a consistent, read-only view of the store as of now.
	NewSnapshot() (Snapshot, error)
	// Begin starts a read-write transaction. Reads see a consistent snapshot
	// taken at Begin plus the transaction's own writes (for Get; iterators
	// see the snapshot only). Writes are buffered until Commit.
	Begin() (Txn, error)
	// Close flushes and releases the store. Open snapshots/txns become invalid.
	Close() error
}

// PointReader is implemented by stores that can read one key's latest
// committed value without a snapshot (a single-key read is consistent by
// itself). Get returns ErrNotFound for a missing key and ErrClosed after
// Close; the returned slice is owned by the caller.
type PointReader interface {
	Get(key []byte) ([]byte, error)
}

// LazyBeginner is implemented by stores that can defer a transaction's
// snapshot to its first read. BeginLazy is Begin except for when the
// snapshot is taken: at the transaction's first Get or NewIterator rather
// than at the call. The snapshot holds every commit that completed before
// BeginLazy (and maybe later ones); the conflict rule still counts from the
// call, so a commit to a key the transaction reads with Get, whether the
// snapshot shows it or not, makes Commit fail with ErrConflict. A
// transaction that never reads takes no snapshot.
type LazyBeginner interface {
	BeginLazy() (Txn, error)
}

// HealthReporter is implemented by stores whose disk can fill or fail.
// Health returns nil while the store takes writes, an error wrapping
// ErrNoSpace while writes are refused for lack of disk space, and one
// wrapping ErrFailed after an unrecoverable fault.
type HealthReporter interface {
	Health() error
}

// Checkpointer is implemented by stores that can copy themselves while in
// use. Checkpoint writes the store's committed state, consistent as of one
// moment and durable when it returns, into a new directory dir (which
// must not exist), from which the store can be opened like its original
// after a crash.
type Checkpointer interface {
	Checkpoint(dir string) error
}

// RangeReader is implemented by stores that can open an iterator over the
// latest committed state without a snapshot: one iterator is a consistent
// view by itself. It serves reads that open a single iterator and read
// nothing else (otherwise take a Snapshot, so all reads share one view).
// The iterator must be closed; after Close of the store its Next reports
// ErrClosed.
type RangeReader interface {
	NewIterator(opts IterOptions) (Iterator, error)
}

// Reader reads keys. Returned slices are owned by the caller.
type Reader interface {
	Get(key []byte) ([]byte, error)
	// NewIterator iterates keys k with Lower <= k < Upper (nil bounds are
	// open), ascending, or descending when Reverse is set.
	NewIterator(opts IterOptions) (Iterator, error)
}

// IterOptions bounds an iteration.
type IterOptions struct {
	Lower, Upper []byte
	Reverse      bool
}

// Iterator walks a key range. Usage: for it.Next() { it.Key(); it.Value() };
// then check it.Err() and Close it. Key and Value are valid until the next
// call to Next; copy them to keep them.
type Iterator interface {
	Next() bool
	Key() []byte
	Value() []byte
	Err() error
	Close() error
}

// Snapshot is a read-only consistent view; Close releases it.
type Snapshot interface {
	Reader
	Close() error
}

// Txn is a read-write transaction with snapshot reads and optimistic
// conflict detection on the keys it reads with Get and the keys it writes.
type Txn interface {
	Reader
	Set(key, value []byte) error
	Delete(key []byte) error
	// Commit applies all writes atomically, or none. It returns ErrConflict
	// when the conflict rule above is violated. With Sync the commit is
	// durable (fsync'd) before Commit returns; concurrent syncing commits
	// share fsyncs. Without Sync a crash may lose it, but commits become
	// durable in order: once a commit is durable, so is every commit that
	// returned before it began.
	Commit(opts CommitOptions) error
	// Rollback discards the transaction; safe after Commit.
	Rollback()
}

// CommitOptions tune one commit.
type CommitOptions struct {
	Sync bool
	// Reserve lets the commit use the free space a store keeps below its
	// minimum (ErrNoSpace is not returned for it): for the few small
	// bookkeeping writes a server needs to start and stop cleanly on a
	// nearly full disk, never for clients' writes.
	Reserve bool
}
