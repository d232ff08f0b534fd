package engine

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// deleteGSI asks UpdateTable to delete GSI name.
func deleteGSI(e *Engine, table, name string) error {
	_, err := e.UpdateTable(dpCtx, &wire.UpdateTableInput{TableName: dpStr(table),
		GlobalSecondaryIndexUpdates: []wire.GlobalSecondaryIndexUpdate{{Delete: &wire.DeleteGlobalSecondaryIndexAction{IndexName: dpStr(name)}}}})
	return err
}

// waitIndexGone polls until the table no longer has index name.
func waitIndexGone(t *testing.T, e *Engine, table, name string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tb, ok := e.lookupTable(table)
		if !ok {
			t.Fatal("table gone")
		}
		if _, ok := tb.Index(name); !ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("index %s still present", name)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// indexEntries counts the stored entries in an index's key range.
func indexEntries(t *testing.T, e *Engine, tableID uint64, indexID uint32) int {
	t.Helper()
	return keysIn(t, e, indexPrefix(tableID, indexID), indexPrefix(tableID, indexID+1))
}

// keysIn counts the stored keys in [lower, upper).
func keysIn(t *testing.T, e *Engine, lower, upper []byte) int {
	t.Helper()
	snap, err := e.store.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: lower, Upper: upper})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for it.Next() {
		n++
	}
	return n
}

// DynamoDB lets a GSI be deleted while it is being created and still
// backfilling (IndexStatus CREATING, Backfilling true); the backfill stops
// and every entry it wrote is purged.
func TestDeleteGSIWhileBackfilling(t *testing.T) {
	// Cleanups run last-registered first: the hook is cleared only after
	// the engine's Close has waited for every backfill goroutine.
	t.Cleanup(func() { indexes.BackfillChunkHook = nil })
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S")
	for i := range 3 * indexes.ChunkSize {
		dpPut(t, e, "t", attr.Item{"pk": dpS(fmt.Sprint("p", i)), "g": dpS(fmt.Sprint("g", i%7))})
	}
	started, release := make(chan struct{}), make(chan struct{})
	// Atomic: the stopped backfill may still run the hook while the new
	// index's backfill (below) runs it too.
	var chunks atomic.Int32
	indexes.BackfillChunkHook = func() {
		if chunks.Add(1) == 2 { // one chunk committed, the backfill is under way
			close(started)
			<-release
		}
	}
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	defer unblock() // before the engine's Close, which waits for the backfill
	addGSI(t, e, "t", "G", "g")
	<-started
	tb, _ := e.lookupTable("t")
	ix, _ := tb.Index("G")
	if !ix.Backfilling || ix.Status != StatusCreating {
		t.Fatalf("index not backfilling: %+v", ix)
	}
	if n := indexEntries(t, e, tb.ID, ix.ID); n == 0 {
		t.Fatal("the first chunk wrote no entries")
	}
	if err := deleteGSI(e, "t", "G"); err != nil {
		t.Fatalf("deleting a backfilling index: %v", err)
	}
	// (With the default create delay of zero the deletion settles at once:
	// the index leaves the description and the purge runs behind it.)
	unblock()
	waitIndexGone(t, e, "t", "G")
	deadline := time.Now().Add(5 * time.Second)
	for indexEntries(t, e, tb.ID, ix.ID) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d entries left after the purge", indexEntries(t, e, tb.ID, ix.ID))
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The name is free again, and a new index backfills completely.
	addGSI(t, e, "t", "G", "g")
	waitBackfill(t, e, "t", "G", 10*time.Second)
	out, err := e.Scan(dpCtx, &wire.ScanInput{TableName: dpStr("t"), IndexName: dpStr("G"), Select: "COUNT"})
	if err != nil {
		t.Fatal(err)
	}
	if cpDeref(out.Count) != int32(3*indexes.ChunkSize) {
		t.Fatalf("new index holds %d items", cpDeref(out.Count))
	}
}

// A delete racing a running backfill (no hook: the chunk may be anywhere
// between its reads and its commit) never leaves entries behind.
func TestDeleteGSIRacingBackfill(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S")
	for i := range 4 * indexes.ChunkSize {
		dpPut(t, e, "t", attr.Item{"pk": dpS(fmt.Sprint("p", i)), "g": dpS("x")})
	}
	for round := range 5 {
		addGSI(t, e, "t", "G", "g")
		tb, _ := e.lookupTable("t")
		ix, _ := tb.Index("G")
		time.Sleep(time.Duration(round) * time.Millisecond)
		err := deleteGSI(e, "t", "G")
		if err != nil {
			// The backfill finished first: the index is ACTIVE, delete it so.
			waitBackfill(t, e, "t", "G", 10*time.Second)
			if err := deleteGSI(e, "t", "G"); err != nil {
				t.Fatal(err)
			}
		}
		waitIndexGone(t, e, "t", "G")
		deadline := time.Now().Add(5 * time.Second)
		for indexEntries(t, e, tb.ID, ix.ID) != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: %d entries left", round, indexEntries(t, e, tb.ID, ix.ID))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// An index re-created under a deleted index's name gets an ID of its own:
// with the old ID it would share its entries' key range with the purge of
// the deleted index, which could then remove the new index's entries.
func TestRecreatedIndexGetsItsOwnID(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S")
	addGSI(t, e, "t", "G", "g")
	waitBackfill(t, e, "t", "G", 10*time.Second)
	tb, _ := e.lookupTable("t")
	old, _ := tb.Index("G")
	if err := deleteGSI(e, "t", "G"); err != nil {
		t.Fatal(err)
	}
	waitIndexGone(t, e, "t", "G")
	addGSI(t, e, "t", "G", "g")
	tb, _ = e.lookupTable("t")
	cur, _ := tb.Index("G")
	if cur.ID == old.ID {
		t.Fatalf("the re-created index reuses ID %d", old.ID)
	}
	n := 0
	for _, r := range tb.rec.Indexes {
		if r.Name == "G" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d catalog records named G", n)
	}
}

// attrNames is the table's described AttributeDefinitions, by name.
func attrNames(t *testing.T, e *Engine, table string) []string {
	t.Helper()
	out, err := e.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: dpStr(table)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range out.Table.AttributeDefinitions {
		names = append(names, cpDeref(a.AttributeName))
	}
	return names
}

// With a create delay a deleted GSI stays DELETING for a while; its key
// attribute, used by no other key, keeps its definition until the index is
// gone. Kura used to drop the definition at once, fail to build the table
// it had already stored (InternalServerError) and lose the index at the
// next start without purging it.
func TestDeleteGSIWithDelayKeepsItsDefinitionUntilGone(t *testing.T) {
	clk := &ctlClock{}
	store := memory.New()
	cfg := Config{Clock: clk, CreateDelay: time.Second}
	e, err := Open(store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateTable(dpCtx, ctlPPRWithGSI("t", "only", ProjectKeysOnly)); err != nil {
		t.Fatal(err)
	}
	clk.advance(2 * time.Second)
	dpPut(t, e, "t", attr.Item{"pk": dpS("a"), "only": dpS("x")})
	if err := deleteGSI(e, "t", "G"); err != nil {
		t.Fatal(err)
	}
	if got := attrNames(t, e, "t"); !slices.Equal(got, []string{"only", "pk"}) {
		t.Fatalf("while DELETING: AttributeDefinitions %v", got)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// The stored record loads, with the index still being deleted.
	if e, err = Open(store, cfg); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	out, err := e.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: dpStr("t")})
	if err != nil || len(out.Table.GlobalSecondaryIndexes) != 1 || out.Table.GlobalSecondaryIndexes[0].IndexStatus != StatusDeleting {
		t.Fatalf("after a restart: %+v, %v", out.Table.GlobalSecondaryIndexes, err)
	}
	clk.advance(2 * time.Second)
	waitIndexGone(t, e, "t", "G")
	if got := attrNames(t, e, "t"); !slices.Equal(got, []string{"pk"}) {
		t.Fatalf("after the delete: AttributeDefinitions %v", got)
	}
}
