package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/vector"
	"github.com/kura-db/kura/internal/wire"
)

// TestVectorEfSearchSetting checks that SearchVectors searches with the
// --vector-ef-search beam (SetVectorEfSearch), the index default when it is
// unset, and the clamped range.
func TestVectorEfSearchSetting(t *testing.T) {
	e := dpEngine(t)
	vsCreate(t, e)
	r := rand.New(rand.NewPCG(1, 2))
	for k := range 20 {
		vsWrite(t, e, r, k, false)
	}
	var got []int
	vecSearchEfHook = func(ef int) { got = append(got, ef) }
	defer func() { vecSearchEfHook = nil }()
	search := func() {
		t.Helper()
		q := make([]attr.Value, vsDims)
		for i := range q {
			q[i] = dpN("0.5")
		}
		out, err := e.SearchVectors(dpCtx, &wire.SearchVectorsInput{TableName: dpStr("v"), IndexName: dpStr("vix"), SearchVector: q, TopK: new(int32(5))})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.SearchResults) != 5 {
			t.Fatalf("%d results", len(out.SearchResults))
		}
	}
	search()
	e.SetVectorEfSearch(320)
	search()
	e.SetVectorEfSearch(MaxVectorEfSearch + 1)
	search()
	e.SetVectorEfSearch(0)
	search()
	want := []int{vector.DefaultEfSearch, 320, MaxVectorEfSearch, vector.DefaultEfSearch}
	if len(got) != len(want) {
		t.Fatalf("ef seen %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ef seen %v, want %v", got, want)
		}
	}
}
