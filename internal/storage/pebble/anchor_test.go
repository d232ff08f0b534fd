package pebble

import (
	"fmt"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// TestAnchorUnderRequestSnapshots checks that the anchor is the oldest open
// snapshot while request snapshots come and go between writes (so closing
// them never makes Pebble search for compactions), that it is replaced
// once it is older than its interval (so it pins at most that much
// history), and that Close releases it.
func TestAnchorUnderRequestSnapshots(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.anchor.every = 20 * time.Millisecond
	snapshots := func() (int, uint64) {
		m := s.db.Metrics().Snapshots
		return m.Count, uint64(m.EarliestSeqNum)
	}
	write := func(i int) {
		txn, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if err := txn.Set([]byte(fmt.Sprint("k", i)), []byte("v")); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(storage.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// take takes, checks and closes n request snapshots, one write apart,
	// and reports whether the earliest open snapshot stayed the same.
	take := func(n int) (steady bool) {
		_, before := snapshots()
		steady = true
		for i := range n {
			write(i)
			sn := s.newSnap()
			count, earliest := snapshots()
			if count != 2 {
				t.Fatalf("open snapshots %d, want 2 (the anchor and the request's)", count)
			}
			if earliest != before {
				steady = false
			}
			sn.close()
		}
		return steady
	}
	if !take(anchorCheckEvery) {
		t.Fatal("the earliest snapshot changed before the anchor's interval passed")
	}
	time.Sleep(30 * time.Millisecond)
	_, old := snapshots()
	if take(anchorCheckEvery) {
		t.Fatal("the anchor was not replaced after its interval passed")
	}
	count, now := snapshots()
	if count != 1 || now <= old {
		t.Fatalf("after the replacement: %d open snapshots, earliest %d (was %d); want 1, later", count, now, old)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.anchor.snap != nil {
		t.Fatal("Close left the anchor open")
	}
}
