package vectors

import (
	"fmt"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/vector"
)

func searchQuery(k int) Query {
	q := make([]attr.Value, vsDims)
	for i := range q {
		q[i] = attr.Value{T: attr.N, Str: "0.5"}
	}
	return Query{Index: "vix", Vector: q, TopK: k}
}

// TestEfSearchSetting checks that Search searches with the
// --vector-ef-search beam (SetEfSearch), the index default when it is
// unset, and the clamped range.
func TestEfSearchSetting(t *testing.T) {
	h := openHost(t, newStore(), newTestTable(false))
	defer h.close()
	vsFill(t, h, 1, 20, 20, 0)
	var got []int
	searchEfHook = func(ef int) { got = append(got, ef) }
	defer func() { searchEfHook = nil }()
	search := func() {
		t.Helper()
		out, err := h.reg.Search(h.current(), searchQuery(5))
		if err != nil {
			t.Fatal(err)
		}
		if len(out.SearchResults) != 5 {
			t.Fatalf("%d results", len(out.SearchResults))
		}
	}
	search()
	h.reg.SetEfSearch(320)
	search()
	h.reg.SetEfSearch(MaxEfSearch + 1)
	search()
	h.reg.SetEfSearch(0)
	search()
	want := []int{vector.DefaultEfSearch, 320, MaxEfSearch, vector.DefaultEfSearch}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ef seen %v, want %v", got, want)
	}
}

// TestSearchResults: the nearest items come back with their keys (a
// KEYS_ONLY index), nearest first, a deleted item no more; the capacity
// is reported when asked for.
func TestSearchResults(t *testing.T) {
	h := openHost(t, newStore(), newTestTable(false))
	defer h.close()
	vec := func(x string) attr.Value {
		l := make([]attr.Value, vsDims)
		for i := range l {
			l[i] = attr.Value{T: attr.N, Str: x}
		}
		return attr.Value{T: attr.L, List: l}
	}
	for i, x := range []string{"0.5", "0.6", "3", "-4"} {
		k := fmt.Sprint("k", i)
		if err := h.write(k, attr.Item{"pk": {T: attr.S, Str: k}, "emb": vec(x), "other": {T: attr.S, Str: "o"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.write("k1", nil); err != nil {
		t.Fatal(err)
	}
	q := searchQuery(2)
	q.Capacity = true
	out, err := h.reg.Search(h.current(), q)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range out.SearchResults {
		if len(r.Item) != 1 {
			t.Fatalf("result %v: a KEYS_ONLY index returns the key only", r.Item)
		}
		keys = append(keys, r.Item["pk"].Str)
	}
	if fmt.Sprint(keys) != "[k0 k2]" {
		t.Fatalf("results %v, want [k0 k2]", keys)
	}
	if out.ConsumedCapacity == nil || out.ConsumedCapacity.VectorSearchRequestBytes == nil {
		t.Fatal("no VectorSearchRequestBytes")
	}
}

// TestSearchRefusals: the texts of a search the index cannot answer.
func TestSearchRefusals(t *testing.T) {
	h := openHost(t, newStore(), newTestTable(false))
	defer h.close()
	cases := []struct {
		name string
		q    func() Query
		want string
	}{
		{"no such index", func() Query { q := searchQuery(1); q.Index = "nope"; return q }, "The table does not have the specified index: nope"},
		{"dimensions", func() Query { q := searchQuery(1); q.Vector = q.Vector[:2]; return q }, "Input search vector dimension 2 does not match vector index dimension 6"},
		{"not in schema", func() Query {
			q := searchQuery(1)
			q.Eqs = []Eq{{name: "x", value: attr.Value{T: attr.S, Str: "a"}}}
			return q
		}, "SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: x"},
	}
	for _, c := range cases {
		_, err := h.reg.Search(h.current(), c.q())
		if de := ddberr.As(err); de == nil || de.Message != c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	bt := openHost(t, newStore(), newTestTable(true))
	defer bt.stop()
	_, err := bt.reg.Search(newTestTable(true), searchQuery(1))
	if de := ddberr.As(err); de == nil || de.Message != "Cannot search backfilling vector index: vix" {
		t.Errorf("backfilling: %v", err)
	}
}
