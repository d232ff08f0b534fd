package vector

import (
	"bytes"
	"testing"

	"github.com/kura-db/kura/internal/vector/vecdata"
)

func batchOf(ds *vecdata.Dataset, from, to int) []BatchItem {
	items := make([]BatchItem, 0, to-from)
	for i := from; i < to; i++ {
		items = append(items, BatchItem{ID: uint64(i), Vec: ds.Vec(i), Attrs: attrsFor(i)})
	}
	return items
}

// One worker builds exactly the graph of consecutive Adds.
func TestAddBatchSerialMatchesAdd(t *testing.T) {
	a, ds := clustered(t, 1500, 5)
	b := mustNew(t, Config{Dimensions: 64, Distance: Cosine, ExactMax: -1, Seed: 5})
	items := batchOf(ds, 0, ds.N())
	for i := range items {
		items[i].Attrs = nil // clustered adds without attributes
	}
	if err := b.AddBatch(items, 1); err != nil {
		t.Fatal(err)
	}
	var sa, sb bytes.Buffer
	a.WriteTo(&sa)
	b.WriteTo(&sb)
	if !bytes.Equal(sa.Bytes(), sb.Bytes()) {
		t.Fatal("AddBatch with one worker built a different graph")
	}
}

// Parallel batches keep recall, for float32 and SQ8, and repeated IDs keep
// their last vector.
func TestAddBatchParallel(t *testing.T) {
	for _, q := range []Quantization{QuantNone, QuantSQ8} {
		ds := vecdata.Clustered(5000, 100, 64, 50, 1)
		x := mustNew(t, Config{Dimensions: 64, Distance: Cosine, ExactMax: -1, Seed: 1, Quantization: q, QuantTrain: 500})
		if err := x.AddBatch(batchOf(ds, 0, 3000), 4); err != nil {
			t.Fatal(err)
		}
		items := batchOf(ds, 3000, ds.N())
		items = append(items, BatchItem{ID: 7, Vec: ds.Vec(4999)}, BatchItem{ID: 7, Vec: ds.Vec(4998)})
		if err := x.AddBatch(items, 3); err != nil {
			t.Fatal(err)
		}
		if x.Len() != ds.N() {
			t.Fatalf("%d live, want %d", x.Len(), ds.N())
		}
		res, _ := x.SearchExact(ds.Vec(4998), 2, nil)
		if res[0].Score > 1e-6 || (res[0].ID != 7 && res[1].ID != 7) {
			t.Fatalf("repeated id: %v", res)
		}
		truth := vecdata.GroundTruth(ds, 10)
		// Item 7 moved; its old position is not in the index any more.
		r := meanRecall(t, x, ds, truth, 64)
		t.Logf("%v: parallel-built recall@10 at ef 64: %.4f", q, r)
		if r < 0.95 {
			t.Fatalf("%v: recall %.4f < 0.95", q, r)
		}
	}
}
