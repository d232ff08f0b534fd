package indexes_test

import (
	"bytes"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/expr"
)

// TestOpenRead: DynamoDB's refusals in its order, and the LSI reads that
// must fetch from the table.
func TestOpenRead(t *testing.T) {
	tb := newTable(1)
	gsi, lsi := tb.live.ByName[0], tb.live.ByName[1]
	backfilling := *gsi
	backfilling.Backfilling = true
	partialLSI := *lsi
	partialLSI.Projection, partialLSI.NonKey = "INCLUDE", []string{"inc"}
	needs := func(names ...string) func(func(string)) {
		return func(need func(string)) {
			for _, n := range names {
				need(n)
			}
		}
	}
	for _, c := range []struct {
		ix    *indexes.Index
		req   indexes.ReadRequest
		want  string
		fetch bool
	}{
		{nil, indexes.ReadRequest{Name: "nope"}, "The table does not have the specified index: nope", false},
		{gsi, indexes.ReadRequest{Name: "byG", Consistent: true}, "Consistent reads are not supported on global secondary indexes", false},
		{&backfilling, indexes.ReadRequest{Name: "byG"}, "Cannot read from backfilling global secondary index: byG", false},
		{gsi, indexes.ReadRequest{Name: "byG", Select: "ALL_ATTRIBUTES"}, "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index byG because its projection type is not ALL", false},
		{gsi, indexes.ReadRequest{Name: "byG", Needs: needs("other")}, "", false},
		{lsi, indexes.ReadRequest{Name: "byL", Consistent: true, Needs: needs("other")}, "", false},
		{&partialLSI, indexes.ReadRequest{Name: "byL", Needs: needs("inc", "l", "sk")}, "", false},
		{&partialLSI, indexes.ReadRequest{Name: "byL", Needs: needs("inc", "other")}, "", true},
		{&partialLSI, indexes.ReadRequest{Name: "byL", Select: "ALL_ATTRIBUTES"}, "", true},
	} {
		r, err := indexes.OpenRead(tb.Def(), c.ix, c.req)
		if c.want != "" {
			if e := ddberr.As(err); e == nil || e.Message != c.want {
				t.Errorf("%+v: %v, want %q", c.req, err, c.want)
			}
			continue
		}
		if err != nil || r.Fetch != c.fetch {
			t.Errorf("%+v: %v, fetch %v, want %v", c.req, err, r != nil && r.Fetch, c.fetch)
		}
	}
}

// TestQueryBounds: a key condition on the index is one range of its
// partition, in the index's sort order.
func TestQueryBounds(t *testing.T) {
	tb := newTable(1)
	lsi := tb.live.ByName[1]
	cond, err := expr.ParseCondition(expr.KindKeyCondition, "pk = :p AND begins_with(l, :l)")
	if err != nil {
		t.Fatal(err)
	}
	if err := expr.NewParams(nil, attr.Item{":p": s("a"), ":l": s("m")}).ResolveCondition(cond); err != nil {
		t.Fatal(err)
	}
	kc, err := indexes.AnalyzeKeyCondition(lsi, cond)
	if err != nil {
		t.Fatal(err)
	}
	opts := indexes.QueryBounds(1, lsi, []attr.Value{s("a")}, kc.Range, true)
	in := func(it attr.Item) bool {
		k := indexes.EntryKey(tb.Def(), lsi, it)
		return bytes.Compare(k, opts.Lower) >= 0 && bytes.Compare(k, opts.Upper) < 0
	}
	for _, c := range []struct {
		it   attr.Item
		want bool
	}{
		{attr.Item{"pk": s("a"), "sk": s("1"), "l": s("m")}, true},
		{attr.Item{"pk": s("a"), "sk": s("2"), "l": s("mz")}, true},
		{attr.Item{"pk": s("a"), "sk": s("3"), "l": s("n")}, false},
		{attr.Item{"pk": s("b"), "sk": s("1"), "l": s("m")}, false},
	} {
		if in(c.it) != c.want {
			t.Errorf("%v in range: %v, want %v", c.it, !c.want, c.want)
		}
	}
	bad, err := expr.ParseCondition(expr.KindKeyCondition, "pk = :p")
	if err != nil {
		t.Fatal(err)
	}
	if err := expr.NewParams(nil, attr.Item{":p": {T: attr.N, Str: "1"}}).ResolveCondition(bad); err != nil {
		t.Fatal(err)
	}
	if _, err := indexes.AnalyzeKeyCondition(lsi, bad); ddberr.As(err) == nil || ddberr.As(err).Message != "One or more parameter values were invalid: Condition parameter type does not match schema type" {
		t.Fatalf("a mistyped key value: %v", err)
	}
}
