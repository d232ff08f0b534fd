package tikv

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tikv/client-go/v2/oracle"

	leases "github.com/kura-db/kura/internal/lease"
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

type testClock struct{ ms atomic.Int64 }

func (c *testClock) Now() time.Time { return time.UnixMilli(c.ms.Load()) }

// TestGCOneServerAtATime: two Kura servers on one cluster each keep their
// barrier, but only the holder of the GC lease moves the safe point; the
// other takes over once the holder stops renewing, and at once when it
// releases.
func TestGCOneServerAtATime(t *testing.T) {
	kvs := mockCluster(t)
	a, b := NewCluster(kvs), NewCluster(kvs)
	a.gcBarrier, b.gcBarrier = "kura-test-a", "kura-test-b"
	clock := &testClock{}
	clock.ms.Store(time.Now().UnixMilli())
	la, lb := a.gcLeases(clock), b.gcLeases(clock)
	ctx := context.Background()
	round := func(c *Cluster, m *leases.Manager) bool {
		t.Helper()
		moved, _, err := c.gcRound(ctx, m, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return moved
	}
	if !round(a, la) || round(b, lb) {
		t.Fatal("want a, the first, to move the safe point and b not")
	}
	clock.ms.Add((la.TTL() + time.Second).Milliseconds()) // a stopped renewing
	if !round(b, lb) || round(a, la) {
		t.Fatal("want b to take the GC over once a's lease lapsed, and a to stop")
	}
	lb.ReleaseAll()
	if !round(a, la) {
		t.Fatal("a did not take the GC over at once when b released it")
	}
}
