package expr

import (
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
)

// checkBounded fails if parsing one input takes unreasonably long.
func checkBounded(t *testing.T, start time.Time, s string) {
	if d := time.Since(start); d > time.Second {
		t.Fatalf("parsing %d bytes took %v", len(s), d)
	}
}

func FuzzParseCondition(f *testing.F) {
	for _, s := range []string{"a = :v", "NOT (a < :b OR size(c) >= :d)", "x BETWEEN :a AND :b", "a IN (:a, :b)",
		"begins_with(#n.b[1], :p)", "((a = :v))", "attribute_type(a, :t) AND contains(l, :x)"} {
		f.Add(s)
	}
	item := attr.Item{"a": {T: attr.N, Str: "1"}}
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		c, err := ParseCondition(KindFilter, s)
		checkBounded(t, start, s)
		if err != nil {
			return
		}
		_ = c.String()
		p := NewParams(nil, nil)
		if p.ResolveCondition(c) == nil {
			_, _ = c.Eval(item)
		}
	})
}

func FuzzParseUpdate(f *testing.F) {
	for _, s := range []string{"SET a = :v", "SET a = if_not_exists(a, :z) + :n REMOVE b[1]", "ADD s :v DELETE t :w",
		"SET l = list_append(l, :v), #m.x[2] = b - :c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		u, err := ParseUpdate(s)
		checkBounded(t, start, s)
		if err == nil {
			_ = u.String()
		}
	})
}

func FuzzParseProjection(f *testing.F) {
	for _, s := range []string{"a", "a.b[1], #c", "l[0][1].m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		pr, err := ParseProjection(s)
		checkBounded(t, start, s)
		if err == nil {
			_ = pr.String()
			_ = Project(attr.Item{"a": {T: attr.S, Str: "x"}}, pr.Paths)
		}
	})
}
