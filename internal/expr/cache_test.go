package expr

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/kura-db/kura/internal/attr"
)

// sharesMemory reports the first pointer, slice or map that a and b (two
// values of one type) have in common.
func sharesMemory(a, b reflect.Value, at string) string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return at
		}
		return sharesMemory(a.Elem(), b.Elem(), at)
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() {
			return at
		}
		for i := 0; i < a.Len() && i < b.Len(); i++ {
			if s := sharesMemory(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", at, i)); s != "" {
				return s
			}
		}
	case reflect.Map:
		if !a.IsNil() && a.Pointer() == b.Pointer() {
			return at
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if s := sharesMemory(a.Field(i), b.Field(i), at+"."+a.Type().Field(i).Name); s != "" {
				return s
			}
		}
	}
	return ""
}

// Two parses of one text (the second from the cache) share no memory, so
// resolving one cannot change the other or the cached template.
func TestParseCacheCopiesShareNothing(t *testing.T) {
	cond := "(attribute_exists(#a.b[2].c) OR size(#l) > :n) AND NOT begins_with(s, :p) AND x IN (:p, :n) AND y BETWEEN :n AND :m"
	upd := "SET #a.b[1] = if_not_exists(c, :v) + :n, l = list_append(l, :v) REMOVE r[0] ADD n :n DELETE s :p"
	proj := "a.b[3].c, #x, y"
	for name, parse := range map[string]func() (any, error){
		"condition":  func() (any, error) { return ParseCondition(KindCondition, cond) },
		"update":     func() (any, error) { return ParseUpdate(upd) },
		"projection": func() (any, error) { return ParseProjection(proj) },
	} {
		first, err := parse()
		if err != nil {
			t.Fatal(err)
		}
		second, err := parse()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(first, second) {
			t.Errorf("%s: the cached parse differs:\n%#v\n%#v", name, first, second)
		}
		if s := sharesMemory(reflect.ValueOf(first), reflect.ValueOf(second), name); s != "" {
			t.Errorf("%s: the two parses share %s", name, s)
		}
	}
}

func TestParseCacheResolvesEachCopyOnItsOwn(t *testing.T) {
	item := attr.Item{"a": nv("5")}
	for _, tc := range []struct {
		v    string
		want bool
	}{{"5", true}, {"6", false}, {"5", true}} {
		c, err := ParseCondition(KindCondition, "a = :v")
		if err != nil {
			t.Fatal(err)
		}
		if err := NewParams(nil, attr.Item{":v": nv(tc.v)}).ResolveCondition(c); err != nil {
			t.Fatal(err)
		}
		if got, err := c.Eval(item); err != nil || got != tc.want {
			t.Fatalf("a = %s: %v, %v; want %v", tc.v, got, err, tc.want)
		}
	}
}

func TestParseCacheIsBounded(t *testing.T) {
	for i := range parseCacheMax + 10 {
		if _, err := ParseProjection(fmt.Sprintf("a%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	projectionCache.m.Range(func(any, any) bool { n++; return true })
	if n > parseCacheMax {
		t.Fatalf("%d cached projections, bound %d", n, parseCacheMax)
	}
	// A failed parse is not kept and fails the same way again.
	_, err1 := ParseCondition(KindFilter, "a = = :v")
	_, err2 := ParseCondition(KindFilter, "a = = :v")
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Fatalf("errors %v / %v", err1, err2)
	}
}

// go test ./internal/expr -run '^$' -bench ParseCache
func BenchmarkParseCache(b *testing.B) {
	const cond = "pk = :p AND begins_with(sk, :s)"
	const upd = "SET #st = :st, gsi1pk = :g, gsi1sk = :gs, updated = :t ADD version :one"
	b.Run("condition/parse", func(b *testing.B) {
		for range b.N {
			parseCondition(KindKeyCondition, cond)
		}
	})
	b.Run("condition/cached", func(b *testing.B) {
		for range b.N {
			ParseCondition(KindKeyCondition, cond)
		}
	})
	b.Run("update/parse", func(b *testing.B) {
		for range b.N {
			parseUpdate(upd)
		}
	})
	b.Run("update/cached", func(b *testing.B) {
		for range b.N {
			ParseUpdate(upd)
		}
	})
}
