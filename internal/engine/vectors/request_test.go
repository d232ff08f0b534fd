package vectors

import (
	"errors"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// TestSearchVectorsRequest: the request is checked (TopK, the expressions
// and their parameters) before the table is looked up, and a valid one is
// searched on the table the lookup gives.
func TestSearchVectorsRequest(t *testing.T) {
	h := openHost(t, newStore(), newTestTable(false))
	defer h.close()
	vsFill(t, h, 1, 10, 10, 0)
	lookups := 0
	lookup := func(*string) (Table, error) { lookups++; return h.current(), nil }
	q := searchQuery(3)
	in := func(topK int32) *wire.SearchVectorsInput {
		return &wire.SearchVectorsInput{TableName: wire.Ptr("v"), IndexName: wire.Ptr("vix"), SearchVector: q.Vector, TopK: wire.Ptr(topK)}
	}
	_, err := h.reg.SearchVectors(in(0), lookup)
	if de := ddberr.As(err); de == nil || de.Message != "Provided TopK value '0' is out of valid range. The value must be between 1 and 100 inclusive" {
		t.Fatalf("TopK 0: %v", err)
	}
	bad := in(3)
	bad.ProjectionExpression = wire.Ptr("#missing")
	if _, err := h.reg.SearchVectors(bad, lookup); ddberr.As(err) == nil {
		t.Fatalf("an undefined name: %v", err)
	}
	unused := in(3)
	unused.ExpressionAttributeValues = attr.Item{":v": {T: attr.S, Str: "x"}}
	if _, err := h.reg.SearchVectors(unused, lookup); ddberr.As(err) == nil {
		t.Fatalf("values without an expression: %v", err)
	}
	if lookups != 0 {
		t.Fatalf("the table was looked up %d times for refused requests", lookups)
	}
	gone := errors.New("no table")
	if _, err := h.reg.SearchVectors(in(3), func(*string) (Table, error) { return nil, gone }); err != gone {
		t.Fatalf("the lookup's refusal: %v", err)
	}
	out, err := h.reg.SearchVectors(in(3), lookup)
	if err != nil || len(out.SearchResults) != 3 || lookups != 1 {
		t.Fatalf("search: %v, %+v, %d lookups", err, out, lookups)
	}
}

// TestDescribe: Describe fills each vector index's ItemCount and size from
// the graph, on a copy of the description.
func TestDescribe(t *testing.T) {
	h := openHost(t, newStore(), newTestTable(false))
	defer h.close()
	vsFill(t, h, 1, 10, 10, 0)
	stored := []wire.VectorIndexDescription{{IndexName: wire.Ptr("vix")}, {IndexName: wire.Ptr("other")}}
	d := &wire.TableDescription{VectorIndexes: stored}
	h.reg.Describe(h.current(), d)
	v := d.VectorIndexes[0]
	if wire.Deref(v.ItemCount) != 10 || wire.Deref(v.IndexSizeBytes) != 10*int64(4*vsDims+100) {
		t.Fatalf("described %+v (size %d)", v, wire.Deref(v.IndexSizeBytes))
	}
	if d.VectorIndexes[1].ItemCount != nil || stored[0].ItemCount != nil {
		t.Fatal("an unknown index described, or the stored description changed")
	}
}
