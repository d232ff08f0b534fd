package lease_test

import (
	"testing"
	"time"

	"github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/storage"
)

// TestGuard: a guard holds its lease on one node at a time and keeps the
// progress its holder saved for the next one.
func TestGuard(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s storage.Store) {
		clock := newClock()
		a, b := pair(s, clock)
		ga, gb := a.Guard("pass"), b.Guard("pass")
		if p, ok := ga.Hold(); !ok || p != nil {
			t.Fatalf("a's first hold: %q %v, want no progress, held", p, ok)
		}
		if err := ga.Save([]byte("cursor")); err != nil {
			t.Fatal(err)
		}
		if _, ok := gb.Hold(); ok {
			t.Fatal("b holds the pass a holds")
		}
		clock.Advance(11 * time.Second)
		if p, ok := gb.Hold(); !ok || string(p) != "cursor" {
			t.Fatalf("b's hold after a's lease lapsed: %q %v, want a's cursor, held", p, ok)
		}
		if _, ok := ga.Hold(); ok {
			t.Fatal("a holds the pass b took over")
		}
	})
}

// TestClaim: a claim is one node's at a time; its fence fails the
// writes of a node that lost it, and its release lets another node claim
// at once.
func TestClaim(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s storage.Store) {
		clock := newClock()
		a, b := pair(s, clock)
		ca, ok := a.Claim("job/x")
		if !ok {
			t.Fatal("a could not claim a free job")
		}
		if _, ok := b.Claim("job/x"); ok {
			t.Fatal("b claimed a's job")
		}
		clock.Advance(11 * time.Second)
		cb, ok := b.Claim("job/x")
		if !ok {
			t.Fatal("b could not claim the job after a's claim lapsed")
		}
		err := storage.Update(s, storage.CommitOptions{}, func(txn storage.Txn) error { return ca.Fence(txn) })
		if err == nil {
			t.Fatal("a's fence passed after b took the job over")
		}
		ca.Release() // lost: no error, and b's claim stays
		if _, ok := a.Claim("job/x"); ok {
			t.Fatal("a claimed the job b holds")
		}
		cb.Release()
		if _, ok := a.Claim("job/x"); !ok {
			t.Fatal("a could not claim the job at once after b released it")
		}
	})
}

// TestUnder: work under a lease another node holds waits (polling
// through wait) until that lease lapses, then runs here; it is dropped
// when no longer wanted, and finished work is recorded in its lease, so
// that a node taking the lease later does not run it again.
func TestUnder(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s storage.Store) {
		clock := newClock()
		a, b := pair(s, clock)
		if _, err := b.Acquire("backfill/1"); err != nil {
			t.Fatal(err)
		}
		waits := 0
		wait := func(d time.Duration) bool {
			if d != 5*time.Second {
				t.Fatalf("polled after %v, want half the TTL", d)
			}
			if waits++; waits == 3 {
				clock.Advance(11 * time.Second) // b's lease lapses
			}
			return true
		}
		ran := 0
		if !a.Under("backfill/1", wait, func() bool { return ran == 0 }, func() { ran++ }) || ran != 1 || waits != 3 {
			t.Fatalf("work ran %d times after %d waits, want once after 3", ran, waits)
		}
		h, ok, err := a.Inspect("backfill/1")
		if err != nil || !ok || h.Node.ID != "a" || string(h.Progress) != lease.Done || !h.Expires.Equal(time.UnixMilli(0)) {
			t.Fatalf("lease after the work: %+v %v %v, want a's, done, released", h, ok, err)
		}
		if b.Under("backfill/1", wait, func() bool { return true }, func() { t.Fatal("finished work ran again") }) {
			t.Fatal("Under reported finished work as run")
		}

		if _, err := b.Acquire("backfill/2"); err != nil {
			t.Fatal(err)
		}
		if a.Under("backfill/2", wait, func() bool { return false }, func() { t.Fatal("unwanted work ran") }) {
			t.Fatal("unwanted work reported as run")
		}
		closed := func(time.Duration) bool { return false }
		if a.Under("backfill/2", closed, func() bool { return true }, func() { t.Fatal("work ran after close") }) {
			t.Fatal("work reported as run after close")
		}
	})
}
