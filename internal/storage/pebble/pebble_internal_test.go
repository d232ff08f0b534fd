package pebble

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/storage"
)

// TestLazyTxnTakesSnapshotAtFirstRead checks that a BeginLazy transaction
// takes no Pebble snapshot until it reads, and releases the one it took.
func TestLazyTxnTakesSnapshotAtFirstRead(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	open := func() int64 { return int64(s.db.Metrics().Snapshots.Count) }
	tx, err := s.BeginLazy()
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Set([]byte("k"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if n := open(); n != 0 {
		t.Fatalf("%d Pebble snapshots open before the first read, want 0", n)
	}
	if _, err := tx.Get([]byte("other")); err != storage.ErrNotFound {
		t.Fatalf("Get = %v, want ErrNotFound", err)
	}
	if n := open(); n != 1 {
		t.Fatalf("%d Pebble snapshots open after the first read, want 1", n)
	}
	if err := tx.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := open(); n != 0 {
		t.Fatalf("%d Pebble snapshots open after Commit, want 0", n)
	}
	eager, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if n := open(); n != 1 {
		t.Fatalf("%d Pebble snapshots open after Begin, want 1", n)
	}
	eager.Rollback()
}

// TestWALSpareIsTheNextLog checks that once a store has filled its first
// memtable, the logs Pebble starts are spares: files of the spare's full
// size from the start, whose blocks are written. It also checks that the
// store reopens with every commit (the spare's zeros end the log) and that
// Close leaves no spare behind.
func TestWALSpareIsTheNextLog(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{MemTableSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	w := &syncedPuts{t: t, s: s}
	w.untilSpare()
	put := w.put
	before := walLogs(t, dir)
	var next string
	for next == "" {
		put()
		for name := range walLogs(t, dir) {
			if _, ok := before[name]; !ok {
				next = name
			}
		}
	}
	if size := walLogs(t, dir)[next]; size < s.spares.size {
		t.Fatalf("log %s started with %d bytes, want the spare's %d", next, size, s.spares.size)
	}
	for range 20 {
		put() // into the spare
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, spareName)); !os.IsNotExist(err) {
		t.Fatalf("spare after Close: %v", err)
	}

	s, err = Open(dir, Options{MemTableSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sn, err := s.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	for i := range w.n {
		if v, err := sn.Get([]byte(fmt.Sprintf("k%06d", i))); err != nil || !bytes.Equal(v, spareTestValue) {
			t.Fatalf("k%06d after reopen: %d bytes, %v", i, len(v), err)
		}
	}
}

// walLogs returns the sizes of Pebble's write-ahead logs in dir.
func walLogs(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	logs := make(map[string]int64)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			logs[e.Name()] = fi.Size()
		}
	}
	return logs
}

// TestWALSpareSurvivesRefusedOpen checks that a second Open of a directory
// in use, which Pebble refuses, leaves the first store's spare alone.
func TestWALSpareSurvivesRefusedOpen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{MemTableSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	(&syncedPuts{t: t, s: s}).untilSpare()
	if second, err := Open(dir, Options{MemTableSize: 1 << 20}); err == nil {
		second.Close()
		t.Fatal("a second Open of a directory in use succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, spareName)); err != nil {
		t.Fatalf("the first store's spare after a refused Open: %v", err)
	}
}

// syncedPuts commits 4 KB values under k000000, k000001, ... with Sync.
type syncedPuts struct {
	t *testing.T
	s *Store
	n int // values committed so far
}

var spareTestValue = bytes.Repeat([]byte("v"), 4096)

func (w *syncedPuts) put() {
	tx, err := w.s.Begin()
	if err != nil {
		w.t.Fatal(err)
	}
	_ = tx.Set([]byte(fmt.Sprintf("k%06d", w.n)), spareTestValue)
	if err := tx.Commit(storage.CommitOptions{Sync: true}); err != nil {
		w.t.Fatal(err)
	}
	w.n++
}

// untilSpare puts until the store has a spare ready.
func (w *syncedPuts) untilSpare() {
	for {
		w.s.spares.mu.Lock()
		ready := w.s.spares.ready
		w.s.spares.mu.Unlock()
		if ready {
			return
		}
		if w.n > 10000 {
			w.t.Fatal("no spare was made")
		}
		w.put()
	}
}
