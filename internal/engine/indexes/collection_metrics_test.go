package indexes

import (
	"errors"
	"testing"

	"github.com/kura-db/kura/internal/attr"
)

// TestMetricsPerTable: one entry per item collection written to, per table
// with LSIs, keyed as the request named the table, in request order;
// nothing for tables without LSIs, for another mode, or for a collection
// whose size cannot be read.
func TestMetricsPerTable(t *testing.T) {
	s := func(v string) attr.Value { return attr.Value{T: attr.S, Str: v} }
	sizes := map[string]int64{"a": 10, "b": 3 << 30}
	size := func(_ uint64, pk attr.Value) (int64, error) {
		if pk.Str == "broken" {
			return 0, errors.New("store down")
		}
		return sizes[pk.Str], nil
	}
	ws := []Written{
		{Name: "t", TableID: 1, HasLSI: true, HashName: "pk", PK: s("b")},
		{Name: "plain", TableID: 2, HashName: "pk", PK: s("a")},
		{Name: "t", TableID: 1, HasLSI: true, HashName: "pk", PK: s("a")},
		{Name: "t", TableID: 1, HasLSI: true, HashName: "pk", PK: s("b")},
		{Name: "t", TableID: 1, HasLSI: true, HashName: "pk", PK: s("broken")},
	}
	got := MetricsPerTable("SIZE", ws, size)
	if len(got) != 1 || len(got["t"]) != 2 {
		t.Fatalf("metrics %+v", got)
	}
	if m := got["t"][0]; m.ItemCollectionKey["pk"].Str != "b" || m.SizeEstimateRangeGB[0] != 3 || m.SizeEstimateRangeGB[1] != 4 {
		t.Fatalf("first %+v", m)
	}
	if m := got["t"][1]; m.ItemCollectionKey["pk"].Str != "a" || m.SizeEstimateRangeGB[0] != 0 || m.SizeEstimateRangeGB[1] != 1 {
		t.Fatalf("second %+v", m)
	}
	if MetricsPerTable("NONE", ws, size) != nil || Metrics("SIZE", ws[1], size) != nil {
		t.Fatal("metrics without SIZE or LSIs")
	}
}
