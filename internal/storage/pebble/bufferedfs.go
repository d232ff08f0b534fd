package pebble

import (
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// flushAt is how many bytes a bufferedFile holds before it writes them out
// without waiting for a sync: the size of its buffer.
const flushAt = 256 << 10

// buffers recycles bufferedFile buffers: Pebble starts a table for every
// flush and compaction, and a fresh 256 KB buffer each time would be fresh
// memory (page faults) each time.
var buffers = sync.Pool{New: func() any { return new([flushAt]byte) }}

// bufferedFS is the filesystem Pebble writes through (above walSpares):
// the write-ahead logs and table files it creates are bufferedFiles.
//
// Why: each write(2) to the page cache costs several microseconds of
// kernel time on the development VM, and Pebble issues many small ones.
// With Options.SyncDelay, its WAL flusher writes each durable commit's
// record as it arrives while the next fsync is held back, so the commits
// sharing one fsync each paid a write of their own; and it writes tables
// through a 4 KB bufio.Writer, one write(2) per 4 KB of every flush and
// compaction. bench/perfstat.sh counted 2.12 writes per PutItem (one of
// them the response) before the logs were buffered.
type bufferedFS struct {
	vfs.FS
}

// Unwrap returns the filesystem underneath (vfs.FS: a wrapping filesystem
// says what it wraps).
func (fs bufferedFS) Unwrap() vfs.FS { return fs.FS }

// buffered reports whether Pebble's file name is a write-ahead log or a
// table.
func (fs bufferedFS) buffered(name string) bool {
	base := fs.FS.PathBase(name)
	return strings.HasSuffix(base, ".log") || strings.HasSuffix(base, ".sst")
}

func (fs bufferedFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	if err != nil || !fs.buffered(name) {
		return f, err
	}
	return newBufferedFile(f), nil
}

func (fs bufferedFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	if err != nil || !fs.buffered(newname) {
		return f, err
	}
	return newBufferedFile(f), nil
}

// bufferedFile keeps what is written in memory until the file is synced
// (or closed, or its 256 KB buffer is full), then writes it out with one
// system call.
//
// Durability is unchanged: a durable commit is acknowledged only after
// Pebble syncs the log, which writes the buffer before it syncs, and a
// table counts only once Pebble has synced and closed it. A commit that
// asked for no sync already sits in Pebble's own block buffer until the
// next sync or a full 32 KB block (Store.syncLater bounds that wait), so
// holding full blocks here until that sync loses nothing an fsync
// promised. Pebble writes, syncs and closes a file from one goroutine at a
// time; mu makes other callers (Stat, say) safe.
type bufferedFile struct {
	vfs.File
	mu  sync.Mutex
	buf []byte         // what waits to be written, in *mem
	mem *[flushAt]byte // from buffers on the first write; back at Close
}

func newBufferedFile(f vfs.File) *bufferedFile { return &bufferedFile{File: f} }

// Write buffers p (Pebble may reuse p's memory after Write returns). When
// p does not fit, the buffer is written out first; p larger than the
// whole buffer is written straight through.
func (f *bufferedFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.buf)+len(p) > cap(f.buf) {
		if err := f.flushLocked(); err != nil {
			return 0, err
		}
		if len(p) > flushAt {
			return f.File.Write(p)
		}
		if f.mem == nil {
			f.mem = buffers.Get().(*[flushAt]byte)
			f.buf = f.mem[:0]
		}
	}
	f.buf = append(f.buf, p...)
	return len(p), nil
}

// flushLocked writes the buffer out. On an error the buffer is kept; Pebble
// treats a failed WAL write or sync as fatal for the log.
func (f *bufferedFile) flushLocked() error {
	if len(f.buf) == 0 {
		return nil
	}
	if _, err := f.File.Write(f.buf); err != nil {
		return err
	}
	f.buf = f.buf[:0]
	return nil
}

func (f *bufferedFile) flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.flushLocked()
}

// Sync, SyncData and SyncTo write the buffer out first: what was written
// before a sync is in the file when the sync returns.
func (f *bufferedFile) Sync() error {
	if err := f.flush(); err != nil {
		return err
	}
	return f.File.Sync()
}

func (f *bufferedFile) SyncData() error {
	if err := f.flush(); err != nil {
		return err
	}
	return f.File.SyncData()
}

func (f *bufferedFile) SyncTo(length int64) (bool, error) {
	if err := f.flush(); err != nil {
		return false, err
	}
	return f.File.SyncTo(length)
}

// Close writes the buffer out and closes the file.
func (f *bufferedFile) Close() error {
	f.mu.Lock()
	err := f.flushLocked()
	if err == nil && f.mem != nil {
		buffers.Put(f.mem)
		f.mem, f.buf = nil, nil
	}
	f.mu.Unlock()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	return err
}

// Stat, Read, ReadAt and WriteAt see the file with the buffer written out.
func (f *bufferedFile) Stat() (vfs.FileInfo, error) {
	if err := f.flush(); err != nil {
		return nil, err
	}
	return f.File.Stat()
}

func (f *bufferedFile) Read(p []byte) (int, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.File.Read(p)
}

func (f *bufferedFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.File.ReadAt(p, off)
}

func (f *bufferedFile) WriteAt(p []byte, off int64) (int, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.File.WriteAt(p, off)
}
