package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/vector"
	"github.com/kura-db/kura/internal/wire"
)

const vsDims = 6

func vsCreate(t *testing.T, e *Engine) {
	t.Helper()
	_, err := e.CreateTable(dpCtx, &wire.CreateTableInput{
		TableName:            dpStr("v"),
		BillingMode:          BillingPayPerRequest,
		AttributeDefinitions: ixDefs("pk", "S"),
		KeySchema:            ixKS("pk", "HASH"),
		VectorIndexes: []wire.VectorIndex{{IndexName: dpStr("vix"), VectorAttribute: &wire.VectorAttributeDefinition{AttributeName: dpStr("emb")},
			Dimensions: cpPtr(int64(vsDims)), DistanceFunction: "EUCLIDEAN", Projection: &wire.Projection{ProjectionType: ProjectKeysOnly}}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// vsWrite puts item k%keys with a fresh random vector, or deletes it.
func vsWrite(t testing.TB, e *Engine, r *rand.Rand, k int, del bool) {
	t.Helper()
	key := fmt.Sprintf("k%04d", k)
	if del {
		if _, err := e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("v"), Key: attr.Item{"pk": dpS(key)}}); err != nil {
			t.Error(err)
		}
		return
	}
	list := make([]attr.Value, vsDims)
	for i := range list {
		list[i] = dpN(strconv.FormatFloat(float64(float32(r.NormFloat64())), 'g', -1, 32))
	}
	if _, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("v"), Item: attr.Item{"pk": dpS(key), "emb": {T: attr.L, List: list}}}); err != nil {
		t.Error(err)
	}
}

func vsRuntime(t testing.TB, e *Engine) (*Table, *VectorIndex, *vecRuntime) {
	t.Helper()
	tb, ok := e.lookupTable("v")
	if !ok {
		t.Fatal("no table")
	}
	vx, _ := tb.VectorIndex("vix")
	rt := e.vecRuntime(tb.ID, vx.ID)
	if rt == nil {
		t.Fatal("no vector runtime")
	}
	return tb, vx, rt
}

// vsGen is the current snapshot generation (0: none).
func vsGen(t testing.TB, store storage.Store, rt *vecRuntime) uint64 {
	snap, err := store.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	m, err := snap.Get(vecSub(rt.prefix, vecKeyMeta))
	if err != nil {
		return 0
	}
	return binary.BigEndian.Uint64(m)
}

// vsAgrees checks that the index holds exactly the table's vectors: each
// item is found by its own vector at distance 0 under its own ID, and the
// counts match.
func vsAgrees(t *testing.T, e *Engine, store storage.Store) {
	t.Helper()
	tb, vx, rt := vsRuntime(t, e)
	snap, err := store.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: itemPrefix(tb.ID), Upper: itemPrefix(tb.ID + 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for it.Next() {
		item, err := readItem(snap, it.Key())
		if err != nil {
			t.Fatal(err)
		}
		v, _, ok := tb.vectorEntry(vx, item)
		if !ok {
			continue
		}
		n++
		res, err := rt.idx.SearchExact(v, 1, nil)
		if err != nil || len(res) != 1 || res[0].Score != 0 {
			t.Fatalf("item %v not found by its vector: %v %v", item["pk"].Str, res, err)
		}
		key, err := snap.Get(vecIDKey(rt.prefix, vecKeyID, res[0].ID))
		if err != nil || string(key) != string(it.Key()) {
			t.Fatalf("item %v: index hit %d maps to another item", item["pk"].Str, res[0].ID)
		}
	}
	if got := rt.idx.Len(); got != n {
		t.Fatalf("index holds %d vectors, table %d", got, n)
	}
}

// TestVectorPeriodicSnapshot: with a small threshold the snapshotter writes
// generations while writers run; a reopen without Close (a crash) after
// further writes loads the last generation, replays the rest and agrees
// with the table.
func TestVectorPeriodicSnapshot(t *testing.T) {
	store := memory.New()
	e, err := Open(store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	vsCreate(t, e)
	_, _, rt := vsRuntime(t, e)
	e.SetVectorSnapshotPolicy(5*time.Millisecond, 20)

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
				vsWrite(t, e, r, r.IntN(80), i%9 == 0)
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
	e.SetVectorSnapshotPolicy(0, 0)
	rt.snapMu.Lock()
	//lint:ignore SA2001 waits for a snapshot in flight
	rt.snapMu.Unlock()
	r := rand.New(rand.NewPCG(99, 1))
	for i := 0; i < 60; i++ {
		vsWrite(t, e, r, i, i%5 == 0)
	}

	e2, err := Open(store, Config{}) // no Close: a crash
	if err != nil {
		t.Fatal(err)
	}
	vsAgrees(t, e2, store)
	_, _, rt2 := vsRuntime(t, e2)
	if rt2.changes.Load() == 0 {
		t.Fatal("no replayed changes after the crash")
	}
	e2.Close()
	e.Close() // releases the first engine's goroutines; the store is not reused
}

// TestVectorSnapshotCrashSteps stops a snapshot after each of its steps (as
// a crash there would) and checks that a reopen agrees with the table.
func TestVectorSnapshotCrashSteps(t *testing.T) {
	for _, step := range []string{"chunks", "meta", "marks"} {
		t.Run(step, func(t *testing.T) {
			store := memory.New()
			e, err := Open(store, Config{})
			if err != nil {
				t.Fatal(err)
			}
			vsCreate(t, e)
			_, _, rt := vsRuntime(t, e)
			r := rand.New(rand.NewPCG(7, 7))
			for i := 0; i < 120; i++ {
				vsWrite(t, e, r, i%70, i%6 == 0)
			}
			if err := e.snapshotVector(rt, false); err != nil {
				t.Fatal(err)
			}
			gen := vsGen(t, store, rt)
			for i := 0; i < 50; i++ {
				vsWrite(t, e, r, i, i%4 == 0)
			}
			crash := errors.New("crash")
			vecSnapHook = func(s string) error {
				if s == step {
					return crash
				}
				return nil
			}
			err = e.snapshotVector(rt, false)
			vecSnapHook = nil
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
				vsWrite(t, e, r, i, false)
			}
			e2, err := Open(store, Config{})
			if err != nil {
				t.Fatal(err)
			}
			vsAgrees(t, e2, store)
			// The next snapshot of the reopened engine reuses the aborted
			// generation number cleanly and the one after still agrees.
			_, _, rt2 := vsRuntime(t, e2)
			if err := e2.snapshotVector(rt2, false); err != nil {
				t.Fatal(err)
			}
			e3, err := Open(store, Config{})
			if err != nil {
				t.Fatal(err)
			}
			vsAgrees(t, e3, store)
		})
	}
}

// TestVectorSnapshotKeepsRacingMarks: a mark rewritten after the cut (a
// larger sequence) survives the clearing, one from before does not.
func TestVectorSnapshotKeepsRacingMarks(t *testing.T) {
	store := memory.New()
	e := func() *Engine {
		e, err := Open(store, Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}()
	vsCreate(t, e)
	_, _, rt := vsRuntime(t, e)
	r := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 10; i++ {
		vsWrite(t, e, r, i, false)
	}
	cut := rt.marks.Load()
	vsWrite(t, e, r, 3, false) // after the cut
	if err := e.clearVectorMarks(rt, cut); err != nil {
		t.Fatal(err)
	}
	snap, _ := store.NewSnapshot()
	defer snap.Close()
	it, _ := snap.NewIterator(storage.IterOptions{Lower: vecSub(rt.prefix, vecKeyDirty), Upper: vecSub(rt.prefix, vecKeyDirty+1)})
	defer it.Close()
	var left []uint64
	for it.Next() {
		left = append(left, markSeq(it.Value()))
	}
	if len(left) != 1 || left[0] <= cut {
		t.Fatalf("marks left %v, want one above %d", left, cut)
	}
}

// TestVectorQuantizationSetting: SetVectorQuantization applies to loaded
// and new indexes, and a restart keeps the persisted quantiser.
func TestVectorQuantizationSetting(t *testing.T) {
	store := memory.New()
	e, err := Open(store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	vsCreate(t, e)
	if err := e.SetVectorQuantization(vector.QuantSQ8); err != nil {
		t.Fatal(err)
	}
	_, _, rt := vsRuntime(t, e)
	if q := rt.idx.Config().Quantization; q != vector.QuantSQ8 {
		t.Fatalf("quantization %v", q)
	}
	r := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 50; i++ {
		vsWrite(t, e, r, i, false)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e2, err := Open(store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	_, _, rt2 := vsRuntime(t, e2)
	if q := rt2.idx.Config().Quantization; q != vector.QuantSQ8 {
		t.Fatalf("quantization %v after restart", q)
	}
	vsAgrees(t, e2, store)
}

// TestVectorRebuildWithoutSnapshot: a crash before any snapshot rebuilds the
// index from the table (in parallel batches) and it agrees.
func TestVectorRebuildWithoutSnapshot(t *testing.T) {
	store := memory.New()
	e, err := Open(store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	vsCreate(t, e)
	r := rand.New(rand.NewPCG(8, 8))
	for i := 0; i < 3000; i++ {
		vsWrite(t, e, r, i%2500, i%11 == 0)
	}
	e2, err := Open(store, Config{}) // no Close, no snapshot: a rebuild
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	_, _, rt := vsRuntime(t, e2)
	if vsGen(t, store, rt) != 0 {
		t.Fatal("unexpected snapshot")
	}
	vsAgrees(t, e2, store)
}
