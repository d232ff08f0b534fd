package pebble

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/kura-db/kura/internal/storage"
)

// TestBufferedFileWritesAtSync checks that a bufferedFile reaches the
// file only at a sync, at Close, or when a write does not fit in its
// flushAt-byte buffer, and that what reaches it is every write in order.
func TestBufferedFileWritesAtSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "000001.log")
	raw, err := vfs.Default.Create(path, "test")
	if err != nil {
		t.Fatal(err)
	}
	f := newBufferedFile(raw)
	onDisk := func() []byte {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var want []byte
	write := func(p []byte) {
		t.Helper()
		want = append(want, p...)
		if n, err := f.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}

	rec := []byte("record one")
	write(rec)
	rec[0] = 'X' // Pebble may reuse a written slice
	write([]byte("record two"))
	if got := onDisk(); len(got) != 0 {
		t.Fatalf("%d bytes in the file before a sync, want 0", len(got))
	}
	if err := f.SyncData(); err != nil {
		t.Fatal(err)
	}
	if got := onDisk(); !bytes.Equal(got, want) {
		t.Fatalf("after SyncData the file holds %q, want %q", got, want)
	}

	// A full buffer waits; the next write that does not fit writes it out.
	write(bytes.Repeat([]byte("b"), flushAt-len("tail")))
	write([]byte("tail"))
	if got := onDisk(); len(got) != len("record onerecord two") {
		t.Fatalf("with a full buffer the file holds %d bytes, want %d", len(got), len("record onerecord two"))
	}
	write([]byte("next"))
	if got := onDisk(); !bytes.Equal(got, want[:len(want)-len("next")]) {
		t.Fatalf("after the buffer overflowed the file holds %d bytes, want %d", len(got), len(want)-len("next"))
	}
	// A write larger than the buffer goes straight through, after what waits.
	write(bytes.Repeat([]byte("c"), flushAt+1))
	if got := onDisk(); !bytes.Equal(got, want) {
		t.Fatalf("after a write larger than the buffer the file holds %d bytes, want %d", len(got), len(want))
	}
	write([]byte("end"))
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := onDisk(); !bytes.Equal(got, want) {
		t.Fatalf("after Close the file holds %d bytes, want %d", len(got), len(want))
	}
	if f.mem != nil {
		t.Fatal("Close kept the buffer instead of recycling it")
	}
}

// TestBufferedFSWrapsLogsAndTables checks which of Pebble's files are
// buffered: write-ahead logs and tables, not the manifest or the options.
func TestBufferedFSWrapsLogsAndTables(t *testing.T) {
	dir := t.TempDir()
	fs := bufferedFS{vfs.Default}
	for name, want := range map[string]bool{
		"000004.log": true, "000012.sst": true,
		"MANIFEST-000001": false, "OPTIONS-000003": false,
	} {
		f, err := fs.Create(filepath.Join(dir, name), "test")
		if err != nil {
			t.Fatal(err)
		}
		if _, got := f.(*bufferedFile); got != want {
			t.Errorf("%s buffered = %v, want %v", name, got, want)
		}
		f.Close()
	}
}

// TestSyncedCommitIsInTheLog checks the store end to end: when a commit
// with Sync returns, its value is in a write-ahead log file, and one
// without Sync is there once the background sync has run.
func TestSyncedCommitIsInTheLog(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{BackgroundSync: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	commit := func(value string, sync bool) {
		t.Helper()
		tx, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		_ = tx.Set([]byte("k"), []byte(value))
		if err := tx.Commit(storage.CommitOptions{Sync: sync}); err != nil {
			t.Fatal(err)
		}
	}
	inLogs := func(value string) bool {
		t.Helper()
		for name := range walLogs(t, dir) {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte(value)) {
				return true
			}
		}
		return false
	}
	commit("durable-value-1", true)
	if !inLogs("durable-value-1") {
		t.Fatal("a synced commit's value is not in the log when Commit returns")
	}
	commit("lazy-value-2", false)
	deadline := time.Now().Add(5 * time.Second)
	for !inLogs("lazy-value-2") {
		if time.Now().After(deadline) {
			t.Fatal("an unsynced commit's value is not in the log 5 s after Commit")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
