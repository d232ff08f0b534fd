package tikv

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/tikv/client-go/v2/oracle"

	"github.com/kura-db/kura/internal/storage"
)

func TestGCSafePoint(t *testing.T) {
	now := oracle.ComposeTS(1_000_000, 7)
	if got, want := gcSafePoint(now, 10*time.Second, math.MaxUint64), oracle.ComposeTS(990_000, 0); got != want {
		t.Errorf("nothing open: %d, want %d (10 s before now)", got, want)
	}
	old := oracle.ComposeTS(900_000, 3)
	if got := gcSafePoint(now, 10*time.Second, old); got != old {
		t.Errorf("a transaction open since 100 s ago: %d, want its start %d", got, old)
	}
	recent := oracle.ComposeTS(995_000, 0)
	if got, want := gcSafePoint(now, 10*time.Second, recent), oracle.ComposeTS(990_000, 0); got != want {
		t.Errorf("a transaction younger than the lifetime: %d, want %d", got, want)
	}
}

// TestGCHeldBackByOpenSnapshot runs the GC with a zero lifetime: the safe
// point stops at the oldest open snapshot or transaction, and moves on once
// they close.
func TestGCHeldBackByOpenSnapshot(t *testing.T) {
	c := leaseCluster(t, 10*time.Second, 3*time.Second, time.Second)
	c.gcBarrier = "kura-test"
	s, err := c.Store("ns")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	write := func(v string) {
		tx, _ := s.Begin()
		_ = tx.Set([]byte("k"), []byte(v))
		if err := tx.Commit(storage.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	write("1")
	sn, err := s.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	snTS := sn.(*snapshot).ts
	pause := func() { time.Sleep(5 * time.Millisecond) } // a later millisecond of cluster time
	pause()
	tx, _ := s.Begin() // open, later than the snapshot
	write("2")
	pause()

	safe, err := c.gcOnce(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if safe != snTS {
		t.Fatalf("safe point %d with a snapshot open at %d", safe, snTS)
	}
	if v, err := sn.Get([]byte("k")); err != nil || string(v) != "1" {
		t.Fatalf("snapshot read after GC: %q, %v", v, err)
	}
	_ = sn.Close()
	pause()
	safe, err = c.gcOnce(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if txTS := tx.(*txn).t.StartTS(); safe != txTS {
		t.Fatalf("safe point %d with only the transaction open at %d", safe, txTS)
	}
	tx.Rollback()
	pause()
	safe, err = c.gcOnce(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if txTS := tx.(*txn).t.StartTS(); safe <= txTS {
		t.Fatalf("safe point %d did not move past the ended transaction's %d", safe, txTS)
	}
}
