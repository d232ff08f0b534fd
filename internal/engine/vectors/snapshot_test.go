package vectors

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/vector"
)

// TestPeriodicSnapshot: with a small threshold the snapshotter writes
// generations while writers run; a reopen without Close (a crash) after
// further writes loads the last generation, replays the rest and agrees
// with the table.
func TestPeriodicSnapshot(t *testing.T) {
	store := newStore()
	h := openHost(t, store, newTestTable(false))
	rt := h.live()
	h.reg.SetSnapshotPolicy(5*time.Millisecond, 20)

	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				vsWrite(t, h, r, r.IntN(80), i%9 == 0)
			}
		}(w)
	}
	deadline := time.Now().Add(10 * time.Second)
	for vsGen(t, store, rt) < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if g := vsGen(t, store, rt); g < 3 {
		t.Fatalf("only %d snapshot generations written while running", g)
	}
	// Stop the snapshotter, wait for one in flight, and change more items
	// that only the dirty marks record.
	h.reg.SetSnapshotPolicy(0, 0)
	rt.snapMu.Lock()
	//lint:ignore SA2001 waits for a snapshot in flight
	rt.snapMu.Unlock()
	r := rand.New(rand.NewPCG(99, 1))
	for i := 0; i < 60; i++ {
		vsWrite(t, h, r, i, i%5 == 0)
	}

	h2 := openHost(t, store, newTestTable(false)) // no Close: a crash
	vsAgrees(t, h2)
	if h2.live().changes.Load() == 0 {
		t.Fatal("no replayed changes after the crash")
	}
	h2.stop()
	h.stop() // releases the first registry's goroutines; the store is not reused
}

// TestSnapshotCrashSteps stops a snapshot after each of its steps (as a
// crash there would) and checks that a reopen agrees with the table.
func TestSnapshotCrashSteps(t *testing.T) {
	for _, step := range []string{"chunks", "meta", "marks"} {
		t.Run(step, func(t *testing.T) {
			store := newStore()
			h := openHost(t, store, newTestTable(false))
			rt := h.live()
			r := rand.New(rand.NewPCG(7, 7))
			for i := 0; i < 120; i++ {
				vsWrite(t, h, r, i%70, i%6 == 0)
			}
			if err := h.reg.snapshot(rt, false); err != nil {
				t.Fatal(err)
			}
			gen := vsGen(t, store, rt)
			for i := 0; i < 50; i++ {
				vsWrite(t, h, r, i, i%4 == 0)
			}
			crash := errors.New("crash")
			snapHookFn = func(s string) error {
				if s == step {
					return crash
				}
				return nil
			}
			err := h.reg.snapshot(rt, false)
			snapHookFn = nil
			if !errors.Is(err, crash) {
				t.Fatalf("snapshot: %v", err)
			}
			want := gen
			if step != "chunks" {
				want = gen + 1
			}
			if g := vsGen(t, store, rt); g != want {
				t.Fatalf("generation %d after a crash at %s, want %d", g, step, want)
			}
			for i := 50; i < 70; i++ {
				vsWrite(t, h, r, i, false)
			}
			h2 := openHost(t, store, newTestTable(false))
			vsAgrees(t, h2)
			// The next snapshot of the reopened registry reuses the aborted
			// generation number cleanly and the one after still agrees.
			if err := h2.reg.snapshot(h2.live(), false); err != nil {
				t.Fatal(err)
			}
			vsAgrees(t, openHost(t, store, newTestTable(false)))
		})
	}
}

// TestSnapshotKeepsRacingMarks: a mark rewritten after the cut (a larger
// sequence) survives the clearing, one from before does not.
func TestSnapshotKeepsRacingMarks(t *testing.T) {
	store := newStore()
	h := openHost(t, store, newTestTable(false))
	rt := h.live()
	r := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 10; i++ {
		vsWrite(t, h, r, i, false)
	}
	cut := rt.marks.Load()
	vsWrite(t, h, r, 3, false) // after the cut
	if err := h.reg.clearMarks(rt, cut); err != nil {
		t.Fatal(err)
	}
	snap, _ := store.NewSnapshot()
	defer snap.Close()
	it, _ := snap.NewIterator(storage.IterOptions{Lower: sub(rt.prefix, keyDirty), Upper: sub(rt.prefix, keyDirty+1)})
	defer it.Close()
	var left []uint64
	for it.Next() {
		left = append(left, markSeq(it.Value()))
	}
	if len(left) != 1 || left[0] <= cut {
		t.Fatalf("marks left %v, want one above %d", left, cut)
	}
}

// TestQuantizationSetting: SetQuantization applies to loaded and new
// indexes, and a restart keeps the persisted quantiser.
func TestQuantizationSetting(t *testing.T) {
	store := newStore()
	h := openHost(t, store, newTestTable(false))
	if err := h.reg.SetQuantization(vector.QuantSQ8); err != nil {
		t.Fatal(err)
	}
	if q := h.live().index().Config().Quantization; q != vector.QuantSQ8 {
		t.Fatalf("quantization %v", q)
	}
	vsFill(t, h, 5, 50, 50, 0)
	if err := h.close(); err != nil {
		t.Fatal(err)
	}
	h2 := openHost(t, store, newTestTable(false))
	defer h2.close()
	if q := h2.live().index().Config().Quantization; q != vector.QuantSQ8 {
		t.Fatalf("quantization %v after restart", q)
	}
	vsAgrees(t, h2)
}

// TestRebuildWithoutSnapshot: a crash before any snapshot rebuilds the
// index from the mapped items (in parallel batches) and it agrees.
func TestRebuildWithoutSnapshot(t *testing.T) {
	store := newStore()
	h := openHost(t, store, newTestTable(false))
	vsFill(t, h, 8, 3000, 2500, 11)
	h.stop()
	h2 := openHost(t, store, newTestTable(false)) // no Close, no snapshot: a rebuild
	defer h2.close()
	if vsGen(t, store, h2.live()) != 0 {
		t.Fatal("unexpected snapshot")
	}
	vsAgrees(t, h2)
}

// TestCloseSnapshotsAndReopenLoads: a clean Close writes a generation
// and clears the marks, so the next Open loads it with nothing to replay.
func TestCloseSnapshotsAndReopenLoads(t *testing.T) {
	store := newStore()
	h := openHost(t, store, newTestTable(false))
	vsFill(t, h, 4, 40, 40, 7)
	if err := h.close(); err != nil {
		t.Fatal(err)
	}
	h2 := openHost(t, store, newTestTable(false))
	defer h2.close()
	if g := vsGen(t, store, h2.live()); g != 1 {
		t.Fatalf("generation %d after a clean Close, want 1", g)
	}
	if n := h2.live().changes.Load(); n != 0 {
		t.Fatalf("%d changes replayed after a clean Close", n)
	}
	vsAgrees(t, h2)
}
