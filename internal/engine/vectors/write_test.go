package vectors

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
)

// TestStageRefusesInvalidVectors: a written vector that does not fit the
// index is refused with DynamoDB's text and nothing is staged; a
// restore's verbatim copy is taken as it is, and left out of the index.
func TestStageRefusesInvalidVectors(t *testing.T) {
	h := openHost(t, newStore(), newTestTable(false))
	defer h.close()
	short := attr.Value{T: attr.L, List: []attr.Value{{T: attr.N, Str: "1"}}}
	cases := []struct {
		v    attr.Value
		want string
	}{
		{attr.Value{T: attr.S, Str: "x"}, "One or more parameter values were invalid. Invalid type for parameter emb, Expected: 32-bit floating point number list IndexName: vix"},
		{short, "One or more parameter values were invalid. Invalid size for parameter emb, Expected: 6, Actual: 1 IndexName: vix"},
	}
	for _, c := range cases {
		err := h.write("bad", attr.Item{"pk": {T: attr.S, Str: "bad"}, "emb": c.v})
		if de := ddberr.As(err); de == nil || de.Message != c.want {
			t.Errorf("write of %v: %v, want %q", c.v, err, c.want)
		}
	}
	big := randomVector(rand.New(rand.NewPCG(1, 1)))
	big.List[2] = attr.Value{T: attr.N, Str: "1e39"}
	err := h.write("bad", attr.Item{"pk": {T: attr.S, Str: "bad"}, "emb": big})
	want := "One or more parameter values were invalid. Invalid value for parameter emb[2], Value: 1.0E39 is outside valid range [-3.4028235E38, 3.4028235E38]. IndexName: vix"
	if de := ddberr.As(err); de == nil || de.Message != want {
		t.Errorf("out-of-range element: %v, want %q", err, want)
	}
	// Verbatim: staged without the check, not indexed.
	k := append(itemPrefix(vsTableID), "bad"...)
	c := change.Change{Table: h.current(), Key: k, New: attr.Item{"pk": {T: attr.S, Str: "bad"}, "emb": short}, Whole: true, Verbatim: true}
	if err := h.Commit(false, func(txn storage.Txn) error { return h.reg.Stage(txn, c) }); err != nil {
		t.Fatalf("verbatim copy refused: %v", err)
	}
	h.reg.Committed(c)
	if n := h.reg.Len(vsTableID, 1); n != 0 {
		t.Fatalf("index holds %d vectors after only invalid writes", n)
	}
}

// TestStageRetried: a change staged in a transaction that did not commit
// and staged again leaves one mapping and one entry.
func TestStageRetried(t *testing.T) {
	h := openHost(t, newStore(), newTestTable(false))
	defer h.close()
	k := append(itemPrefix(vsTableID), "a"...)
	item := attr.Item{"pk": {T: attr.S, Str: "a"}, "emb": randomVector(rand.New(rand.NewPCG(2, 2)))}
	c := change.Change{Table: h.current(), Key: k, New: item, Whole: true}
	txn, err := h.store.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.reg.Stage(txn, c); err != nil {
		t.Fatal(err)
	}
	txn.Rollback() // a conflict: the write path stages again
	if err := h.Commit(false, func(txn storage.Txn) error {
		if err := h.reg.Stage(txn, c); err != nil {
			return err
		}
		return txn.Set(k, attr.AppendItem(nil, item))
	}); err != nil {
		t.Fatal(err)
	}
	h.reg.Committed(c)
	vsAgrees(t, h)
}

// TestBackfill: an index added to a table that already holds items is
// filled by the backfill job over the snapshot reader (in several steps;
// unfit vectors skipped), a write during it is not overtaken, and the job
// marks the index ACTIVE.
func TestBackfill(t *testing.T) {
	store := newStore()
	plain := &testTable{Table: newTestTable(false).Table} // no vector index yet
	h := openHost(t, store, plain)
	defer h.close()
	r := rand.New(rand.NewPCG(6, 6))
	n := backfillChunk*2 + 17
	for i := range n {
		vsWrite(t, h, r, i, false)
	}
	k := "unfit"
	if err := h.write(k, attr.Item{"pk": {T: attr.S, Str: k}, "emb": {T: attr.S, Str: "not a vector"}}); err != nil {
		t.Fatal(err)
	}
	withIndex := newTestTable(true)
	h.tblMu.Lock()
	h.table = withIndex
	h.tblMu.Unlock()
	h.reg.Start(withIndex, plain)
	vsWrite(t, h, r, 5, false) // while the backfill runs (or before it)
	waitActive(t, h)
	if b := h.current().vxs[0].Backfilling; b != nil {
		t.Fatalf("Backfilling %v after the backfill", *b)
	}
	if got := h.reg.Len(vsTableID, 1); got != n {
		t.Fatalf("index holds %d vectors, want %d", got, n)
	}
	vsAgrees(t, h)
}

// TestBackfillResumesAtOpen: an index still backfilling when the process
// stopped is filled by the backfill Open resumes.
func TestBackfillResumesAtOpen(t *testing.T) {
	store := newStore()
	plain := &testTable{Table: newTestTable(false).Table} // no vector index yet
	h := openHost(t, store, plain)
	vsFill(t, h, 9, 40, 40, 0)
	h.stop()
	h2 := openHost(t, store, newTestTable(true))
	defer h2.close()
	waitActive(t, h2)
	if got := h2.reg.Len(vsTableID, 1); got != 40 {
		t.Fatalf("index holds %d vectors, want 40", got)
	}
	vsAgrees(t, h2)
}

// TestDropPurges: a dropped index's storage is purged and its state
// forgotten.
func TestDropPurges(t *testing.T) {
	store := newStore()
	h := openHost(t, store, newTestTable(false))
	vsFill(t, h, 10, 30, 30, 0)
	h.reg.Drop(vsTableID, 1)
	h.stop() // waits for the purge
	if h.reg.runtime(vsTableID, 1) != nil {
		t.Fatal("dropped index still loaded")
	}
	snap, _ := store.NewSnapshot()
	defer snap.Close()
	it, _ := snap.NewIterator(storage.IterOptions{Lower: indexPrefix(vsTableID, 1), Upper: indexPrefix(vsTableID, 2)})
	defer it.Close()
	if it.Next() {
		t.Fatalf("key %s left after the purge", fmt.Sprintf("%x", it.Key()))
	}
}

// waitActive waits for the backfill to mark index "vix" ACTIVE.
func waitActive(t *testing.T, h *testHost) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for h.current().vxs[0].Status != statusActive {
		if time.Now().After(deadline) {
			t.Fatal("the backfill did not finish")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
