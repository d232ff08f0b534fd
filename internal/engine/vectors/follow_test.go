package vectors

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Several registries in cluster mode on one store, each with a testHost of
// its own (separate nodes; the item locks are per node, as in the core).

// openNode opens a cluster-mode registry over store. A frozen node's
// background loop never runs: it stands for a node that died (or hangs)
// with epochs it never closed.
func openNode(t *testing.T, store storage.Store, frozen bool) *testHost {
	t.Helper()
	return openNodeAt(t, store, frozen, time.Now)
}

// openNodeAt is openNode with the node's clock.
func openNodeAt(t *testing.T, store storage.Store, frozen bool, now func() time.Time) *testHost {
	t.Helper()
	h := &testHost{t: t, store: store, table: newTestTable(false), descs: map[string]wire.VectorIndexDescription{}, closing: make(chan struct{})}
	goF, sleep := h.goBackground, h.sleep
	if frozen {
		never := make(chan struct{})
		goF = func(f func()) { go f() }
		sleep = func(time.Duration) bool { <-never; return false }
	}
	h.reg = New(Options{Host: h, Store: store, Prefix: indexPrefix, Now: now, Closing: h.closing, Go: goF, Sleep: sleep, Cluster: true})
	if err := h.reg.Open([]Table{h.table}); err != nil {
		t.Fatal(err)
	}
	if !frozen {
		t.Cleanup(func() { h.close() })
	}
	return h
}

// agreeWithin waits until h's index holds exactly the table's vectors.
func agreeWithin(t *testing.T, h *testHost, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		err := h.reg.Verify(h.current(), "vix")
		if err == nil {
			return time.Since(start)
		}
		if time.Since(start) > d {
			t.Fatalf("after %v: %v", d, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestClusterSharedIDs: two nodes indexing new items at once never hand
// out one vector ID twice (each maps it to its own item). Seen failing with
// each node allocating from its own counter (rt.alloc): "index hit maps to
// another item".
func TestClusterSharedIDs(t *testing.T) {
	store := newStore()
	a, b := openNode(t, store, false), openNode(t, store, false)
	r := rand.New(rand.NewPCG(1, 2))
	for k := range 40 {
		vsWrite(t, []*testHost{a, b}[k%2], r, k, false)
	}
	agreeWithin(t, a, 3*time.Second)
	agreeWithin(t, b, 3*time.Second)
}

// TestClosedEpochFencesLateCommit: once an epoch's closing key is written
// (by its node, or by another node's fence), a write staged in that epoch
// can no longer commit, so a follower that read the epoch misses nothing.
// Seen failing without the Get of the closing key in stageCluster: the
// commit succeeded after the close.
func TestClosedEpochFencesLateCommit(t *testing.T) {
	store := newStore()
	a, b := openNode(t, store, true), openNode(t, store, false)
	k := append(itemPrefix(vsTableID), "late"...)
	item := attr.Item{"pk": {T: attr.S, Str: "late"}, "emb": randomVector(rand.New(rand.NewPCG(3, 4)))}
	txn, err := store.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Rollback()
	c := change.Change{Table: a.current(), Key: k, Suffix: []byte("late"), New: item, Whole: true}
	if err := a.reg.Stage(txn, c); err != nil {
		t.Fatal(err)
	}
	if err := txn.Set(k, attr.AppendItem(nil, item)); err != nil {
		t.Fatal(err)
	}
	rt := a.live()
	e := a.reg.epochOf(time.Now())
	if err := b.Commit(false, func(tx storage.Txn) error {
		for x := e - 2; x <= e+2; x++ { // the epoch the stage used, whatever the clock did
			if err := closeIn(tx, rt.prefix, a.reg.origin, x, time.Now()); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(storage.CommitOptions{}); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("a write staged in a closed epoch committed: %v", err)
	}
}

// TestFollowerFencesDeadNode: the epochs a node left open when it died are
// closed by another node after fenceAfter, which then applies their
// entries: nothing the dead node acknowledged is missing from the others'
// graphs. Seen failing with the follower's fences left out: node b never
// held the frozen node's items.
func TestFollowerFencesDeadNode(t *testing.T) {
	store := newStore()
	dead, b := openNode(t, store, true), openNode(t, store, false)
	r := rand.New(rand.NewPCG(5, 6))
	for k := range 10 {
		vsWrite(t, dead, r, k, false)
	}
	took := agreeWithin(t, b, fenceAfter+closeDelay+5*time.Second)
	t.Logf("the dead node's writes reached b after %v", took)
	// Writes through b itself still go on, and are followed by a new node.
	for k := 10; k < 20; k++ {
		vsWrite(t, b, r, k, k%3 == 0)
	}
	c := openNode(t, store, false)
	agreeWithin(t, c, 3*time.Second)
	agreeWithin(t, b, 3*time.Second)
}

// TestTrimLog: the trimmer removes entries and closing keys older than the
// retention, and the origin keys of nodes that left nothing newer.
func TestTrimLog(t *testing.T) {
	store := newStore()
	a := openNode(t, store, false)
	r := rand.New(rand.NewPCG(7, 8))
	for k := range 5 {
		vsWrite(t, a, r, k, false)
	}
	a.close()
	rt := a.live()
	count := func(kind byte) int {
		snap, _ := store.NewSnapshot()
		defer snap.Close()
		it, _ := snap.NewIterator(storage.IterOptions{Lower: sub(rt.prefix, kind), Upper: sub(rt.prefix, kind+1)})
		defer it.Close()
		n := 0
		for it.Next() {
			n++
		}
		return n
	}
	if count(keyLog) != 5 || count(keyClosed) == 0 || count(keyOrigin) != 1 {
		t.Fatalf("before the trim: %d entries, %d closed epochs, %d origins", count(keyLog), count(keyClosed), count(keyOrigin))
	}
	b := openNodeAt(t, store, false, func() time.Time { return time.Now().Add(logRetention + time.Minute) })
	b.reg.trim()
	if n, m, o := count(keyLog), count(keyClosed), count(keyOrigin); n != 0 || m != 0 || o != 0 {
		t.Fatalf("after the trim: %d entries, %d closed epochs, %d origins", n, m, o)
	}
	agreeWithin(t, b, time.Second)
}
