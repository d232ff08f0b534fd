package pebble

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/kura-db/kura/internal/storage"
)

// put commits key=value in one transaction.
func put(s *Store, key, value string) error {
	tx, err := s.Begin()
	if err != nil {
		return err
	}
	if err := tx.Set([]byte(key), []byte(value)); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit(storage.CommitOptions{Sync: true})
}

// TestWritesRefusedBelowMinFree checks that commits are refused with
// ErrNoSpace while the disk's free space is below the minimum, that reads
// go on, that Health says why, and that writes resume once space is freed
// (seen by the next reading, spaceCheckEvery later on the store's clock).
func TestWritesRefusedBelowMinFree(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	s, err := Open(t.TempDir(), Options{MinFreeBytes: 64 << 20, MinFreeText: "64 MB (--min-free-space)",
		Now: func() time.Time { return time.Unix(0, now.Load()) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var free atomic.Uint64
	free.Store(1 << 30)
	s.space.free = func() (uint64, error) { return free.Load(), nil }
	if err := put(s, "a", "1"); err != nil {
		t.Fatal(err)
	}

	free.Store(10 << 20)
	now.Add(int64(spaceCheckEvery))
	err = put(s, "b", "2")
	if !errors.Is(err, storage.ErrNoSpace) {
		t.Fatalf("commit with 10 MB free = %v, want ErrNoSpace", err)
	}
	if want := "storage: free disk space is below the minimum: 10 MB available, minimum 64 MB (--min-free-space)"; err.Error() != want {
		t.Fatalf("error text = %q, want %q", err, want)
	}
	if err := s.Health(); !errors.Is(err, storage.ErrNoSpace) {
		t.Fatalf("Health = %v, want ErrNoSpace", err)
	}
	if v, err := s.Get([]byte("a")); err != nil || string(v) != "1" {
		t.Fatalf("Get while writes are refused = %q, %v", v, err)
	}
	if _, err := s.Get([]byte("b")); err != storage.ErrNotFound {
		t.Fatalf("the refused write is visible: %v", err)
	}

	free.Store(1 << 30)
	if err := put(s, "b", "2"); !errors.Is(err, storage.ErrNoSpace) {
		t.Fatalf("commit before the next reading = %v, want ErrNoSpace (the reading is trusted for %v)", err, spaceCheckEvery)
	}
	now.Add(int64(spaceCheckEvery))
	if err := put(s, "b", "2"); err != nil {
		t.Fatalf("commit after space was freed: %v", err)
	}
	if err := s.Health(); err != nil {
		t.Fatalf("Health after space was freed: %v", err)
	}
}

// failingFS fails Create for names containing fail.
type failingFS struct {
	vfs.FS
	fail string
}

var errInjected = errors.New("injected: no space left on device")

func (fs failingFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if strings.Contains(name, fs.fail) {
		return nil, errInjected
	}
	return fs.FS.Create(name, category)
}

// TestFaultFailsStore checks the fail-stop model: a write-side error on a
// file of the store's directory never returns to Pebble (the goroutine
// parks), OnFatal hears the cause once, and the store then refuses
// everything with ErrFailed, Close included, without blocking. An error on
// a file elsewhere (a checkpoint's) is returned as usual.
func TestFaultFailsStore(t *testing.T) {
	dir := t.TempDir()
	fatal := make(chan error, 2)
	s, err := Open(dir, Options{OnFatal: func(err error) { fatal <- err }})
	if err != nil {
		t.Fatal(err)
	}
	if err := put(s, "a", "1"); err != nil {
		t.Fatal(err)
	}
	fs := faultFS{FS: failingFS{FS: vfs.Default, fail: "new-"}, dir: dir, store: s}
	other := filepath.Join(t.TempDir(), "new-elsewhere")
	if _, err := fs.Create(other, "test"); !errors.Is(err, errInjected) {
		t.Fatalf("Create outside the store's directory = %v, want the error itself", err)
	}
	if err := s.failed(); err != nil {
		t.Fatalf("an error outside the store's directory failed the store: %v", err)
	}

	returned := make(chan struct{})
	go func() {
		fs.Create(filepath.Join(dir, "new-000009.log"), "test")
		close(returned)
	}()
	select {
	case err := <-fatal:
		if !errors.Is(err, storage.ErrFailed) || !errors.Is(err, errInjected) {
			t.Fatalf("OnFatal got %v, want ErrFailed wrapping the cause", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OnFatal was not called")
	}
	select {
	case <-returned:
		t.Fatal("the failed Create returned to its caller")
	case <-time.After(50 * time.Millisecond):
	}

	fatalLogger{store: s}.failOnceForTest()
	select {
	case err := <-fatal:
		t.Fatalf("OnFatal called twice: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	if err := put(s, "b", "2"); !errors.Is(err, storage.ErrFailed) {
		t.Fatalf("commit after the fault = %v, want ErrFailed", err)
	}
	if _, err := s.Get([]byte("a")); !errors.Is(err, storage.ErrFailed) {
		t.Fatalf("Get after the fault = %v, want ErrFailed", err)
	}
	if err := s.Health(); !errors.Is(err, storage.ErrFailed) {
		t.Fatalf("Health after the fault = %v", err)
	}
	if err := s.Close(); !errors.Is(err, storage.ErrFailed) {
		t.Fatalf("Close after the fault = %v, want ErrFailed", err)
	}
	// The process would stop here; a new one recovers the acknowledged
	// write. (The failed store still holds the directory's lock, so copy
	// the directory, as a restart after the process exits would find it.)
	copyDir := t.TempDir()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() == "LOCK" || e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(copyDir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(copyDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, err := r.Get([]byte("a")); err != nil || string(v) != "1" {
		t.Fatalf("acknowledged write after restart = %q, %v", v, err)
	}
}

// failOnceForTest records a second fault the way Fatalf does, minus the
// parking.
func (l fatalLogger) failOnceForTest() { l.store.failOnce(errors.New("second fault")) }

// stallFS makes Sync of the write-ahead logs block while stall is set.
type stallFS struct {
	vfs.FS
	stall   *atomic.Bool
	release chan struct{}
}

func (fs stallFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	if err != nil || !strings.HasSuffix(name, ".log") {
		return f, err
	}
	return stallFile{File: f, fs: fs}, nil
}

type stallFile struct {
	vfs.File
	fs stallFS
}

func (f stallFile) SyncData() error {
	if f.fs.stall.Load() {
		<-f.fs.release
	}
	return f.File.SyncData()
}

func (f stallFile) Sync() error {
	if f.fs.stall.Load() {
		<-f.fs.release
	}
	return f.File.Sync()
}

// TestDiskStallFailsStore checks that a WAL sync that does not finish
// within DiskStallTimeout fails the store (OnFatal hears a disk stall)
// instead of leaving every commit blocked.
func TestDiskStallFailsStore(t *testing.T) {
	stall := &atomic.Bool{}
	release := make(chan struct{})
	baseFS = stallFS{FS: vfs.Default, stall: stall, release: release}
	defer func() { baseFS = vfs.Default }()
	fatal := make(chan error, 1)
	s, err := Open(t.TempDir(), Options{DiskStallTimeout: 300 * time.Millisecond, OnFatal: func(err error) { fatal <- err }})
	if err != nil {
		t.Fatal(err)
	}
	if err := put(s, "a", "1"); err != nil {
		t.Fatal(err)
	}
	stall.Store(true)
	go put(s, "b", "2") // blocks in the WAL sync
	select {
	case err := <-fatal:
		if !errors.Is(err, storage.ErrFailed) || !strings.Contains(err.Error(), "disk stall: ") {
			t.Fatalf("OnFatal got %v, want a disk stall", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a stalled WAL sync did not fail the store")
	}
	if err := s.Health(); !errors.Is(err, storage.ErrFailed) {
		t.Fatalf("Health after a stall = %v", err)
	}
	close(release)
}

// emfileFS fails the creation of files whose names contain fail with
// EMFILE, as the kernel does when the process has no descriptor left.
type emfileFS struct {
	vfs.FS
	fail string
}

func (fs emfileFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if strings.Contains(name, fs.fail) {
		return nil, &os.PathError{Op: "open", Path: name, Err: syscall.EMFILE}
	}
	return fs.FS.Create(name, category)
}

// TestOutOfDescriptorsForTableFile checks that a table file that cannot be
// created for want of file descriptors returns its error to Pebble (which
// retries flushes and compactions) instead of failing the store, while a
// WAL that cannot be created still fails it.
func TestOutOfDescriptorsForTableFile(t *testing.T) {
	dir := t.TempDir()
	fatal := make(chan error, 2)
	s, err := Open(dir, Options{OnFatal: func(err error) { fatal <- err }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fs := faultFS{FS: emfileFS{FS: vfs.Default, fail: "0000"}, dir: dir, store: s}
	returned := make(chan error, 1)
	go func() {
		_, err := fs.Create(filepath.Join(dir, "000042.sst"), "test")
		returned <- err
	}()
	select {
	case err := <-returned:
		if !errors.Is(err, syscall.EMFILE) {
			t.Fatalf("Create of a table file = %v, want EMFILE", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a table file that cannot be created for want of descriptors failed the store")
	}
	if err := s.failed(); err != nil {
		t.Fatalf("the store failed: %v", err)
	}
	go fs.Create(filepath.Join(dir, "000043.log"), "test")
	select {
	case err := <-fatal:
		if !errors.Is(err, syscall.EMFILE) {
			t.Fatalf("OnFatal got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a WAL that cannot be created did not fail the store")
	}
}
