package pebble

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/kura-db/kura/internal/storage"
)

// Fail-stop on storage faults.
//
// Pebble cannot go on after some errors: a failed WAL write or sync
// ("pebble: fatal commit error"), a failed MANIFEST write, or a new WAL
// that cannot be created at a rotation (Pebble panics there with its DB
// mutex in a state that turns the unwinding into "fatal error: sync:
// unlock of unlocked mutex"). Recovering such a panic into an HTTP 500 and
// serving on leaves a process that answers reads and refuses or blocks
// every write forever while looking healthy. CockroachDB, Pebble's owner,
// treats these as fatal for the process (its disk-stall and ENOSPC
// handling crash the node so that a supervisor restarts it, and recovery
// replays the WAL); Kura does the same:
//
//   - every write-side error of a file in the store's directory (create,
//     link, rename, remove, write, sync) reaching Pebble through faultFS,
//     and every Fatalf Pebble logs, fails the store: the fault is recorded
//     (later operations return storage.ErrFailed), Options.OnFatal is
//     told once, and the goroutine that hit it never returns to Pebble
//     (it parks), so Pebble's half-done state is never used;
//   - OnFatal (internal/server) logs the cause, closes the listener and
//     makes the process exit non-zero without closing the store.
//
// Nothing acknowledged is lost: an acknowledged commit's WAL record was
// synced before the fault, and the restart replays it. The free-space
// minimum (space.go) keeps a filling disk from reaching this path in the
// first place.

// fail records err as the store's fault, tells Options.OnFatal once, and
// parks the calling goroutine forever.
func (s *Store) fail(err error) {
	s.failOnce(err)
	select {}
}

// failOnce records err as the store's fault and tells Options.OnFatal,
// the first time only.
func (s *Store) failOnce(err error) {
	err = fmt.Errorf("%w: %w", storage.ErrFailed, err)
	if !s.failure.CompareAndSwap(nil, &err) {
		return
	}
	if s.onFatal != nil {
		go s.onFatal(err)
		return
	}
	// No one to tell: stop the process, as Pebble's own default logger
	// does.
	fmt.Fprintln(os.Stderr, "kura:", err)
	os.Exit(1)
}

// failed is the store's fault, or nil.
func (s *Store) failed() error {
	if p := s.failure.Load(); p != nil {
		return *p
	}
	return nil
}

// fatalLogger passes Pebble's messages to a Logger (nil: none) and fails
// the store on Fatalf.
type fatalLogger struct {
	store *Store
	log   Logger
}

func (l fatalLogger) Infof(format string, args ...any) {
	if l.log != nil {
		l.log.Infof(format, args...)
	}
}

func (l fatalLogger) Errorf(format string, args ...any) {
	if l.log != nil {
		l.log.Errorf(format, args...)
	}
}

func (l fatalLogger) Fatalf(format string, args ...any) {
	err := fmt.Errorf("pebble: "+format, args...)
	if l.log != nil {
		l.log.Errorf("%v", err)
	}
	l.store.fail(err)
}

// faultFS is the filesystem Pebble sees (above bufferedFS and walSpares):
// a write-side error on a file directly in the store's directory fails
// the store instead of returning to Pebble. Reads, stats, listings and
// files elsewhere (checkpoints) pass through untouched, as does removing
// a file that does not exist.
type faultFS struct {
	vfs.FS
	dir   string
	store *Store
}

// Unwrap returns the filesystem underneath (vfs.FS: a wrapping filesystem
// says what it wraps).
func (fs faultFS) Unwrap() vfs.FS { return fs.FS }

// ours reports whether name is a file of the store's directory.
func (fs faultFS) ours(name string) bool { return fs.FS.PathDir(name) == fs.dir }

// check fails the store on err if the operation touched one of its files.
// That holds while Pebble opens, too: a flush of the replayed WAL that
// fails is retried for ever, and Open would never return.
func (fs faultFS) check(op, name string, err error) {
	if err != nil && fs.ours(name) && !retriedByPebble(op, name, err) {
		fs.store.fail(fmt.Errorf("%s %s: %w", op, name, err))
	}
}

// retriedByPebble reports whether Pebble copes with err by itself: a table
// file (flush or compaction output) that cannot be created for want of file
// descriptors. That is the process's limit, not the disk's, and Pebble
// reports a failed flush or compaction as a background error and tries
// again later. Closing an idle per-key database flushes it, which needs a
// descriptor exactly when they run short (--shared-db=false under a low
// ulimit -n), so failing the store there would stop the server for a limit
// that passes. A WAL or MANIFEST that cannot be created still fails it:
// Pebble cannot go on after those.
func retriedByPebble(op, name string, err error) bool {
	return op == "create" && strings.HasSuffix(name, ".sst") &&
		(errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE))
}

func (fs faultFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	fs.check("create", name, err)
	return fs.wrap(name, f, err)
}

func (fs faultFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	fs.check("reuse", newname, err)
	return fs.wrap(newname, f, err)
}

func (fs faultFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := fs.FS.OpenReadWrite(name, category, opts...)
	if !errors.Is(err, os.ErrNotExist) {
		fs.check("open", name, err)
	}
	return fs.wrap(name, f, err)
}

func (fs faultFS) Link(oldname, newname string) error {
	err := fs.FS.Link(oldname, newname)
	fs.check("link", newname, err)
	return err
}

func (fs faultFS) Rename(oldname, newname string) error {
	err := fs.FS.Rename(oldname, newname)
	fs.check("rename", newname, err)
	return err
}

func (fs faultFS) Remove(name string) error {
	err := fs.FS.Remove(name)
	if !errors.Is(err, os.ErrNotExist) {
		fs.check("remove", name, err)
	}
	return err
}

// wrap makes a file of the store's directory a faultFile.
func (fs faultFS) wrap(name string, f vfs.File, err error) (vfs.File, error) {
	if err != nil || !fs.ours(name) {
		return f, err
	}
	return faultFile{File: f, name: name, fs: fs}, nil
}

// faultFile fails the store on a failed write or sync.
type faultFile struct {
	vfs.File
	name string
	fs   faultFS
}

func (f faultFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	f.fs.check("write", f.name, err)
	return n, err
}

func (f faultFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	f.fs.check("write", f.name, err)
	return n, err
}

func (f faultFile) Sync() error {
	err := f.File.Sync()
	f.fs.check("sync", f.name, err)
	return err
}

func (f faultFile) SyncData() error {
	err := f.File.SyncData()
	f.fs.check("sync", f.name, err)
	return err
}

func (f faultFile) SyncTo(length int64) (bool, error) {
	full, err := f.File.SyncTo(length)
	f.fs.check("sync", f.name, err)
	return full, err
}

func (f faultFile) Close() error {
	err := f.File.Close()
	f.fs.check("close", f.name, err)
	return err
}

// stalled fails the store when a disk operation has not finished after
// Options.DiskStallTimeout (Pebble's disk health checks report it while it
// is still in progress). CockroachDB stops a node the same way when a disk
// operation takes longer than its storage.max_sync_duration (20 s by
// default): a stalled disk holds every commit, so the process is better
// restarted than left to answer reads while writes hang.
func (s *Store) stalled(info vfs.DiskSlowInfo) {
	s.failOnce(fmt.Errorf("disk stall: %s of %s has not finished after %v", info.OpType, info.Path, info.Duration.Round(time.Millisecond)))
}
