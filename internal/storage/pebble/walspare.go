package pebble

import (
	"errors"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// spareName is the file, in the store's directory, that holds the next
// write-ahead log before Pebble asks for it. Pebble ignores files whose
// names it does not recognise.
const spareName = "kura-wal-spare"

// walSpares is the filesystem Pebble writes through. It hands Pebble new
// write-ahead logs whose blocks are already written (zeros), made in the
// background while the current log fills.
//
// Why: a durable commit waits for an fdatasync of the log. Appending to a
// file changes its size, so each of those fdatasyncs also commits the
// filesystem's journal; overwriting blocks that are already written does
// not. Pebble knows this and recycles old logs, but after an open it has
// none, and while its memtables grow (256 KB doubling up to MemTableSize)
// each new log outgrows the recycled ones: a busy store appends through
// its first logs after an open, and past the end of a recycled log that
// was not filled to the preallocation size. On the development VM (bench/fsynccost) nine 1.1
// KB appends and one fdatasync cost 97-112 us of CPU over written blocks,
// 123-154 us in a fallocate'd file (what Pebble makes) and about 150 us in
// a growing one; PutItem used about 4% less server CPU with spares
// (BENCHMARKS.md, round 7).
//
// Safety: Pebble's log reader ends a log at the first chunk that is not a
// valid record of that log. A spare's zeros end it exactly as a recycled
// log's stale records do (Pebble treats both alike on recovery), and
// fallocate'd blocks, which Pebble already reserves, read as zeros too.
//
// The first log after open never gets a spare: a store that writes less
// than one memtable pays nothing. Afterwards each log Pebble creates
// without a fully written file (no recycled log, or a smaller one) starts
// the making of the next spare; a recycled log at least the spare's size
// is left to Pebble.
type walSpares struct {
	vfs.FS
	dir  string
	size int64 // bytes of zeros in a spare: Pebble's WAL preallocation size

	mu     sync.Mutex
	logs   int  // logs created since open
	ready  bool // a complete spare is at path()
	making bool // a goroutine is writing the spare
	made   bool // this store has written a spare (close removes it)
	closed bool
	done   sync.WaitGroup
}

func newWALSpares(fs vfs.FS, dir string, size int64) *walSpares {
	return &walSpares{FS: fs, dir: dir, size: size}
}

// removeStale removes a spare left by a crash (it may be incomplete; the
// next one is made when it is needed). Call it once Pebble holds the
// directory's lock, so a second process refused on the directory leaves
// the first one's spare alone.
func (w *walSpares) removeStale() { _ = w.FS.Remove(w.path()) }

func (w *walSpares) path() string { return w.FS.PathJoin(w.dir, spareName) }

// Unwrap returns the filesystem underneath (vfs.FS: a wrapping filesystem
// says what it wraps).
func (w *walSpares) Unwrap() vfs.FS { return w.FS }

// isLog reports whether name is one of Pebble's write-ahead logs
// (NNNNNN.log in the store's directory).
func (w *walSpares) isLog(name string) bool {
	return strings.HasSuffix(name, ".log") && w.FS.PathJoin(w.dir, w.FS.PathBase(name)) == name
}

// Create creates a file; a new write-ahead log is the spare, renamed, when
// one is ready.
func (w *walSpares) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if !w.isLog(name) {
		return w.FS.Create(name, category)
	}
	if f, ok := w.take(name, category); ok {
		return f, nil
	}
	return w.FS.Create(name, category)
}

// ReuseForWrite renames a recycled log to name and opens it. A recycled
// log smaller than a spare is replaced by the spare when one is ready
// (ReuseForWrite's contract lets the old file be removed instead).
func (w *walSpares) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if !w.isLog(newname) {
		return w.FS.ReuseForWrite(oldname, newname, category)
	}
	if fi, err := w.FS.Stat(oldname); err == nil && fi.Size() >= w.size {
		w.mu.Lock()
		w.logs++
		w.mu.Unlock()
		return w.FS.ReuseForWrite(oldname, newname, category)
	}
	if f, ok := w.take(newname, category); ok {
		_ = w.FS.Remove(oldname)
		return f, nil
	}
	return w.FS.ReuseForWrite(oldname, newname, category)
}

// take renames the spare to name and opens it, if one is ready. Either way
// the next spare is started, unless this is the store's first log. The
// rename happens under mu, so a new spare is never written under the name
// of one being taken.
func (w *walSpares) take(name string, category vfs.DiskWriteCategory) (vfs.File, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.logs++
	var f vfs.File
	if w.ready {
		w.ready = false
		var err error
		if f, err = w.FS.ReuseForWrite(w.path(), name, category); err != nil {
			f = nil // Pebble creates or reuses the log as usual
		}
	}
	if w.logs > 1 && !w.making && !w.closed {
		w.making, w.made = true, true
		w.done.Add(1)
		go w.make()
	}
	return f, f != nil
}

// make writes the next spare and records the outcome: a failed or
// abandoned spare is removed (the next log is created as usual and starts
// another).
func (w *walSpares) make() {
	defer w.done.Done()
	err := w.write()
	if err != nil {
		_ = w.FS.Remove(w.path())
	}
	w.mu.Lock()
	w.making = false
	w.ready = err == nil && !w.closed
	w.mu.Unlock()
}

// write writes the spare's zeros and syncs them.
func (w *walSpares) write() error {
	f, err := w.FS.Create(w.path(), "kura-wal-spare")
	if err != nil {
		return err
	}
	zeros := make([]byte, 256<<10)
	for off := int64(0); off < w.size; off += int64(len(zeros)) {
		w.mu.Lock()
		closed := w.closed
		w.mu.Unlock()
		if closed {
			return errors.Join(errSpareClosed, f.Close())
		}
		chunk := zeros
		if rest := w.size - off; rest < int64(len(chunk)) {
			chunk = chunk[:rest]
		}
		if _, err := f.Write(chunk); err != nil {
			return errors.Join(err, f.Close())
		}
	}
	return errors.Join(f.SyncData(), f.Close())
}

var errSpareClosed = errors.New("storage/pebble: store closed")

// close waits for a spare being made and removes the spare this store made:
// an idle data directory holds no more than Pebble's own files.
func (w *walSpares) close() {
	w.mu.Lock()
	w.closed = true
	made := w.made
	w.mu.Unlock()
	w.done.Wait()
	if made {
		_ = w.FS.Remove(w.path())
	}
}
