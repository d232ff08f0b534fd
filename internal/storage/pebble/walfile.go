package pebble

import (
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// walFlushAt is how many buffered bytes a write-ahead log holds before it
// writes them out without waiting for a sync.
const walFlushAt = 256 << 10

// walFile is a write-ahead log that keeps what Pebble writes in memory
// until Pebble syncs it (or closes it, or about 256 KB are waiting), then
// writes it out with one system call before the fdatasync.
//
// Why: with Options.SyncDelay, Pebble's WAL flusher writes each durable
// commit's record as it arrives while the next sync is held back, so the
// commits that share one fdatasync each paid a write(2) of their own
// (about 1.1 writes per PutItem besides the response, bench/perfstat.sh).
// On the development VM a write(2) to the page cache costs several
// microseconds of kernel time; copying the record here costs well under one.
//
// Durability is unchanged: a durable commit is acknowledged only after
// Pebble's Sync, which writes the buffer before it syncs. A commit that
// asked for no sync already sits in Pebble's own block buffer until the
// next sync or a full 32 KB block (Store.syncLater bounds that wait), so
// holding full blocks here until that sync loses nothing an fsync
// promised. Pebble calls Write, Sync and Close from one goroutine (its
// flusher, then the writer's Close); mu makes the rare other callers safe.
type walFile struct {
	vfs.File
	mu  sync.Mutex
	buf []byte
}

func newWALFile(f vfs.File) *walFile {
	return &walFile{File: f, buf: make([]byte, 0, 64<<10)}
}

// Write buffers p (Pebble may reuse p's memory after Write returns).
func (f *walFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf = append(f.buf, p...)
	if len(f.buf) >= walFlushAt {
		if err := f.flushLocked(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// flushLocked writes the buffer out. On an error the buffer is kept; Pebble
// treats a failed WAL write or sync as fatal for the log.
func (f *walFile) flushLocked() error {
	if len(f.buf) == 0 {
		return nil
	}
	if _, err := f.File.Write(f.buf); err != nil {
		return err
	}
	f.buf = f.buf[:0]
	return nil
}

func (f *walFile) flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.flushLocked()
}

// Sync, SyncData and SyncTo write the buffer out first: what Pebble wrote
// before a sync is in the file when the sync returns.
func (f *walFile) Sync() error {
	if err := f.flush(); err != nil {
		return err
	}
	return f.File.Sync()
}

func (f *walFile) SyncData() error {
	if err := f.flush(); err != nil {
		return err
	}
	return f.File.SyncData()
}

func (f *walFile) SyncTo(length int64) (bool, error) {
	if err := f.flush(); err != nil {
		return false, err
	}
	return f.File.SyncTo(length)
}

// Close writes the buffer out and closes the file.
func (f *walFile) Close() error {
	err := f.flush()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	return err
}

// Stat, Read, ReadAt and WriteAt see the file with the buffer written out.
func (f *walFile) Stat() (vfs.FileInfo, error) {
	if err := f.flush(); err != nil {
		return nil, err
	}
	return f.File.Stat()
}

func (f *walFile) Read(p []byte) (int, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.File.Read(p)
}

func (f *walFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.File.ReadAt(p, off)
}

func (f *walFile) WriteAt(p []byte, off int64) (int, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.File.WriteAt(p, off)
}
