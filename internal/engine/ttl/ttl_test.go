package ttl

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
)

func num(s string) attr.Value { return attr.Value{T: attr.N, Str: s} }

// TestExpired: a Number of epoch seconds in the past, not more than five
// years in the past; anything else is not expired.
func TestExpired(t *testing.T) {
	now := time.Unix(2_000_000_000, 0)
	for _, tc := range []struct {
		v    attr.Value
		want bool
	}{
		{num("1999999999"), true},
		{num("1999999999.5"), true},
		{num("2000000000"), false}, // now is not the past
		{num("2000000001"), false},
		{num("1"), false}, // over five years ago
		{attr.Value{T: attr.S, Str: "1999999999"}, false},
	} {
		if got := Expired(attr.Item{"exp": tc.v}, "exp", now); got != tc.want {
			t.Errorf("Expired(%+v) = %v, want %v", tc.v, got, tc.want)
		}
	}
	if Expired(attr.Item{}, "exp", now) {
		t.Error("an item without the attribute expired")
	}
}

// core is a Core over tables of items in memory, pages of two.
type core struct {
	mu      sync.Mutex
	tables  map[Table]map[string]attr.Item // by pk
	disable Table                          // Live says no for it after the first page
	pages   int
	fail    error
}

func (c *core) Tables() []Table {
	var out []Table
	for t := range c.tables {
		out = append(out, t)
	}
	return out
}

func (c *core) Live(t Table) Live {
	if t == c.disable && c.pages > 0 {
		return nil
	}
	return live{c, t}
}

type live struct {
	c *core
	t Table
}

func (l live) Attribute() string { return "exp" }

func (l live) ExpiredPage(now time.Time, from []byte) ([]attr.Item, []byte, error) {
	l.c.mu.Lock()
	defer l.c.mu.Unlock()
	l.c.pages++
	var keys []string
	for k := range l.c.tables[l.t] {
		keys = append(keys, k)
	}
	// storage order: sorted keys
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	var out []attr.Item
	n := 0
	for _, k := range keys {
		if from != nil && k < string(from) {
			continue
		}
		if n == 2 {
			return out, []byte(k), nil
		}
		n++
		if Expired(l.c.tables[l.t][k], "exp", now) {
			out = append(out, attr.Item{"pk": {T: attr.S, Str: k}})
		}
	}
	return out, nil, nil
}

func (l live) Expire(_ context.Context, key attr.Item) (bool, error) {
	if l.c.fail != nil {
		return false, l.c.fail
	}
	l.c.mu.Lock()
	defer l.c.mu.Unlock()
	k := key["pk"].Str
	if _, ok := l.c.tables[l.t][k]; !ok {
		return false, nil
	}
	delete(l.c.tables[l.t], k)
	return true, nil
}

func items(exp ...string) map[string]attr.Item {
	m := map[string]attr.Item{}
	for i, e := range exp {
		m[string(rune('a'+i))] = attr.Item{"exp": num(e)}
	}
	return m
}

// TestPassDeletesExpiredAcrossPages: a pass reads every page of every
// table and deletes the expired items only, counting them.
func TestPassDeletesExpiredAcrossPages(t *testing.T) {
	now := time.Unix(2_000_000_000, 0)
	a, b := Table{Name: "a", ID: 1}, Table{Name: "b", ID: 2}
	c := &core{tables: map[Table]map[string]attr.Item{
		a: items("1999999990", "2100000000", "1999999991", "1999999992", "2100000000"),
		b: items("1999999990"),
	}}
	x := New(c, func() time.Time { return now }, make(chan struct{}))
	n, err := x.Pass(context.Background())
	if err != nil || n != 4 || len(c.tables[a]) != 2 || len(c.tables[b]) != 0 {
		t.Fatalf("Pass = %d %v; left %v %v", n, err, c.tables[a], c.tables[b])
	}
}

// TestPassStopsWhenTableGoes: a table whose TTL goes off (or that is
// deleted) between pages is left; an error from a deletion ends the pass.
func TestPassStopsWhenTableGoes(t *testing.T) {
	now := time.Unix(2_000_000_000, 0)
	a := Table{Name: "a", ID: 1}
	c := &core{tables: map[Table]map[string]attr.Item{a: items("1", "1999999990", "1999999990", "1999999990")}, disable: a}
	x := New(c, func() time.Time { return now }, make(chan struct{}))
	if n, err := x.Pass(context.Background()); err != nil || n != 1 || c.pages != 1 {
		t.Fatalf("Pass = %d %v after %d pages", n, err, c.pages)
	}
	boom := errors.New("boom")
	c.disable, c.fail = Table{}, boom
	if _, err := x.Pass(context.Background()); err != boom {
		t.Fatalf("failing deletion: %v", err)
	}
}

// TestKickRunsBackgroundPass: Kick wakes the background pass before its
// interval; closing stops it.
func TestKickRunsBackgroundPass(t *testing.T) {
	now := time.Unix(2_000_000_000, 0)
	a := Table{Name: "a", ID: 1}
	c := &core{tables: map[Table]map[string]attr.Item{a: items("1999999990")}}
	closing := make(chan struct{})
	x := New(c, func() time.Time { return now }, closing)
	done := make(chan struct{})
	go func() { x.Background(time.Hour, nil); close(done) }()
	x.Kick()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c.mu.Lock()
		left := len(c.tables[a])
		c.mu.Unlock()
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Kick did not run a pass")
		}
		time.Sleep(time.Millisecond)
	}
	close(closing)
	<-done
}

// guard is a Guard that records the cursors saved, and fails the save
// number failAt (counting from 1) as a lost lease would.
type guard struct {
	cursor []byte
	saves  int
	failAt int
}

func (g *guard) Hold() ([]byte, bool) { return g.cursor, true }

func (g *guard) Save(c []byte) error {
	g.saves++
	if g.saves == g.failAt {
		return errors.New("lost")
	}
	g.cursor = c
	return nil
}

// TestGuardedPassResumes: a guarded pass records its cursor page by page;
// a pass stopped by a lost guard is resumed (here, or by another node)
// from the last cursor, not from the start, and a finished pass records
// that the next one starts afresh.
func TestGuardedPassResumes(t *testing.T) {
	now := time.Unix(2_000_000_000, 0)
	a, b := Table{Name: "a", ID: 1}, Table{Name: "b", ID: 2}
	c := &core{tables: map[Table]map[string]attr.Item{
		a: items("1999999990", "1999999991", "1999999992", "1999999993", "1999999994"),
		b: items("1999999990", "1999999991", "1999999992"),
	}}
	x := New(c, func() time.Time { return now }, make(chan struct{}))
	g := &guard{failAt: 2}
	n, err := x.guardedPass(context.Background(), nil, g)
	if err == nil || n != 4 {
		t.Fatalf("first pass = %d %v, want 4 deleted and the lost guard's error", n, err)
	}
	id, key := decodeCursor(g.cursor)
	if id != a.ID || string(key) != "c" {
		t.Fatalf("cursor after the first page = table %d key %q, want table 1 key \"c\"", id, key)
	}
	// Put an expired item back before the cursor: the resumed pass must
	// not go back to it.
	c.tables[a]["a"] = attr.Item{"exp": num("1999999990")}
	c.pages = 0
	g.failAt = 0
	n, err = x.guardedPass(context.Background(), g.cursor, g)
	if err != nil || n != 4 {
		t.Fatalf("resumed pass = %d %v, want the 4 expired items after the cursor", n, err)
	}
	if _, ok := c.tables[a]["a"]; !ok {
		t.Fatal("the resumed pass went back before its cursor")
	}
	if g.cursor != nil {
		t.Fatalf("finished pass left cursor %q, want nil", g.cursor)
	}
}
