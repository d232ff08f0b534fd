package pebble

import (
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
