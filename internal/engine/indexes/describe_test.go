package indexes_test

import (
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// TestDescribe: the figures (never below zero), Backfilling as DynamoDB
// reports it while the table allocates resources and while the index
// backfills, and a throughput copy.
func TestDescribe(t *testing.T) {
	tb := newTable(1)
	gsi, lsi := tb.live.ByName[0], tb.live.ByName[1]
	tb.stats.Of(gsi.ID).Items.Store(-2) // a drifting backfill
	tb.stats.Of(lsi.ID).Items.Store(4)
	tb.stats.Of(lsi.ID).Bytes.Store(400)
	lookup := func(name string) (*indexes.Index, bool) {
		for _, ix := range tb.live.List {
			if ix.Name == name {
				return ix, true
			}
		}
		return nil, false
	}
	pt := &wire.ProvisionedThroughputDescription{}
	desc := func() *wire.TableDescription {
		return &wire.TableDescription{
			GlobalSecondaryIndexes: []wire.GlobalSecondaryIndexDescription{{IndexName: wire.Ptr("byG"), IndexStatus: "CREATING", ProvisionedThroughput: pt}, {IndexName: wire.Ptr("gone")}},
			LocalSecondaryIndexes:  []wire.LocalSecondaryIndexDescription{{IndexName: wire.Ptr("byL")}},
		}
	}
	d := desc()
	indexes.Describe(d, lookup, tb.stats, true)
	g, l := d.GlobalSecondaryIndexes[0], d.LocalSecondaryIndexes[0]
	if g.Backfilling == nil || *g.Backfilling || *g.ItemCount != 0 || *l.ItemCount != 4 || *l.IndexSizeBytes != 400 || g.ProvisionedThroughput == pt {
		t.Fatalf("allocating: %+v %+v", g, l)
	}
	if d.GlobalSecondaryIndexes[1].ItemCount != nil {
		t.Fatal("an index the table no longer has got figures")
	}
	gsi.Backfilling = true
	d = desc()
	indexes.Describe(d, lookup, tb.stats, false)
	if b := d.GlobalSecondaryIndexes[0].Backfilling; b == nil || !*b {
		t.Fatal("a backfilling index does not say so")
	}
	gsi.Backfilling = false
	d = desc()
	indexes.Describe(d, lookup, tb.stats, false)
	if d.GlobalSecondaryIndexes[0].Backfilling != nil {
		t.Fatal("an active index reports Backfilling")
	}
}

// TestRecount: the count replaces the figures read at mark, and what was
// recorded after mark is kept; a stopped count changes nothing.
func TestRecount(t *testing.T) {
	st := memory.New()
	tb := newTable(1)
	sub := indexes.Subsystem{Collections: &indexes.Collections{}}
	gsi := tb.live.ByName[0]
	for _, pk := range []string{"a", "b", "c"} {
		if err := apply(t, st, sub, tb, nil, attr.Item{"pk": s(pk), "sk": s("1"), "g": s("x")}); err != nil {
			t.Fatal(err)
		}
	}
	f := tb.stats.Of(gsi.ID)
	want := f.Bytes.Load()
	f.Items.Store(100) // drifted
	take := func(mark func()) (*snapshot.Reader, error) {
		mark()
		f.Items.Add(1) // a write recorded after the snapshot: kept
		return snapshot.Open(st, layout)
	}
	size := func(v []byte) int64 { return indexes.EntrySize(mustDecode(t, v)) - indexes.Overhead }
	ref := indexes.Ref{Table: 1, Index: gsi.ID}
	if ok, err := tb.stats.Recount(ref, take, size, nil); !ok || err != nil || f.Items.Load() != 4 || f.Bytes.Load() != want {
		t.Fatalf("recount: %v %v, %d items %d bytes (want 4, %d)", ok, err, f.Items.Load(), f.Bytes.Load(), want)
	}
}
