// Package pebble is Kura's default, durable storage.Store, built on
// CockroachDB's Pebble LSM engine (github.com/cockroachdb/pebble/v2).
//
// Snapshots are Pebble snapshots. A transaction reads from a Pebble snapshot
// taken at Begin plus, for Get, its own buffered writes; at Commit the shared
// occ oracle checks for conflicts and the writes go to Pebble in one batch,
// fsync'd when CommitOptions.Sync is set. The batch commit happens outside
// the oracle's mutex, so concurrent syncing commits share WAL fsyncs through
// Pebble's commit pipeline. A commit acknowledged with Sync survives a crash
// of the process or the machine.
//
// Pebble writes through walSpares, a filesystem that hands it new
// write-ahead logs already written full of zeros (made in the background),
// so the fsync of a durable commit overwrites blocks instead of growing the
// file and committing the filesystem's journal. Above it, bufferedFS keeps
// what Pebble writes to a log or a table in memory until Pebble syncs the
// file (or its 256 KB buffer fills): the commits that share one fsync
// reach the log in one write(2), and tables are written 256 KB at a time
// instead of 4 KB.
//
// Storage faults fail the store (faults.go): Pebble sees the filesystem
// through faultFS, so a failed write, sync or file creation in the store's
// directory, like any Fatalf Pebble logs, records the fault, parks the
// goroutine that met it, tells Options.OnFatal (which stops the process)
// and makes every later operation return storage.ErrFailed; the next open
// recovers from the WAL. Before that, commits are refused with
// storage.ErrNoSpace while the disk's free space is below
// Options.MinFreeBytes (space.go; one lazily refreshed reading, nothing in
// the background), and Health reports either state.
//
// All methods of Store are safe for concurrent use. A Snapshot is safe for
// concurrent reads; a Txn and an Iterator are not safe for concurrent use.
// Store.Close waits for in-flight operations, closes any snapshots,
// transactions and iterators still open (later calls on them return
// storage.ErrClosed), flushes the memtable and closes Pebble.
package pebble
