package postgres

import (
	"sync/atomic"
	"testing"
	"time"
)

type testClock struct{ ms atomic.Int64 }

func (c *testClock) Now() time.Time { return time.UnixMilli(c.ms.Load()) }

// TestSweepOneServerAtATime: two Kura servers (two connections) on one
// database: only the holder of the sweep's lease sweeps; the other takes
// over once the holder stops renewing, and at once when it releases.
func TestSweepOneServerAtATime(t *testing.T) {
	a, b := connect(t), connect(t)
	clock := &testClock{}
	clock.ms.Store(time.Now().UnixMilli())
	la, lb := a.gcLeases(clock), b.gcLeases(clock)
	lb.ReleaseAll() // nothing held yet: a no-op
	la.ReleaseAll()
	// A lease left by an earlier run on this database is released or
	// expired: move past it.
	clock.ms.Add(time.Hour.Milliseconds())

	if swept, _, err := a.gcRound(la); err != nil || !swept {
		t.Fatalf("a's round: swept %v, %v", swept, err)
	}
	if swept, _, err := b.gcRound(lb); err != nil || swept {
		t.Fatalf("b swept while a holds the lease: %v %v", swept, err)
	}
	clock.ms.Add((la.TTL() + time.Second).Milliseconds()) // a stopped renewing
	if swept, _, err := b.gcRound(lb); err != nil || !swept {
		t.Fatalf("b's round after a's lease lapsed: swept %v, %v", swept, err)
	}
	if swept, _, _ := a.gcRound(la); swept {
		t.Fatal("a swept after b took the lease over")
	}
	lb.ReleaseAll()
	if swept, _, err := a.gcRound(la); err != nil || !swept {
		t.Fatalf("a's round after b released: swept %v, %v", swept, err)
	}
	la.ReleaseAll()
}
