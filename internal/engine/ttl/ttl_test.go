package ttl

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/metatest"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
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

// layout keeps a table's items under "i" id(1) pk.
var layout = &snapshot.Layout{
	Items:     func(id uint64) ([]byte, []byte) { return []byte{'i', byte(id)}, []byte{'i', byte(id + 1)} },
	PrefixLen: 2,
}

// core is a Core over a memory store: tables keyed by a string "pk",
// items stored under layout's keys, deletions that check keep.
type core struct {
	*metatest.Catalog[Table]
	store   *memory.Store
	snaps   int
	disable string // TTLTable says "disabled" for it after the first page
	fail    error
}

func newCore(t *testing.T, now time.Time) *core {
	return &core{Catalog: metatest.New(now, map[string]Table{}), store: memory.New()}
}

// add makes a table with TTL on "exp" and items a, b, c, ... expiring at
// exp.
func (c *core) add(t *testing.T, name string, id uint64, exp ...string) Table {
	t.Helper()
	tb := Table{Def: &change.Table{Name: name, ID: id, Hash: change.KeyAttr{Name: "pk", Type: attr.S}},
		Status: "ACTIVE", TTL: &Record{Attribute: "exp", Enabled: true}}
	c.Tables[name] = tb
	for i, e := range exp {
		c.put(t, tb, string(rune('a'+i)), attr.Item{"pk": {T: attr.S, Str: string(rune('a' + i))}, "exp": num(e)})
	}
	return tb
}

func (c *core) put(t *testing.T, tb Table, pk string, it attr.Item) {
	t.Helper()
	txn, _ := c.store.Begin()
	defer txn.Rollback()
	if err := txn.Set(append([]byte{'i', byte(tb.Def.ID)}, pk...), attr.AppendItem(nil, it)); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
}

// left counts the items of a table still stored.
func (c *core) left(t *testing.T, tb Table) int {
	t.Helper()
	r, err := snapshot.Open(c.store, layout) // not counted in snaps
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	if _, err := r.Items(tb.Def.ID, func(_, _ []byte) (bool, error) { n++; return true, nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func (c *core) TTLTable(name string) (Table, bool) {
	t, ok := c.Table(name)
	if ok && name == c.disable && c.snaps > 0 {
		t.TTL = &Record{}
	}
	return t, ok
}

func (c *core) TTLTables() ([]Table, error) { return c.All(), nil }

func (c *core) SetTTL(name string, r *Record) error {
	c.Change(name, func(t *Table) { t.TTL = r })
	return nil
}

func (c *core) Snapshot() (*snapshot.Reader, error) {
	c.snaps++
	return snapshot.Open(c.store, layout)
}

func (c *core) Delete(_ context.Context, t Table, key attr.Item, keep func(attr.Item) error) error {
	if c.fail != nil {
		return c.fail
	}
	k := append([]byte{'i', byte(t.Def.ID)}, key["pk"].Str...)
	txn, err := c.store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	var old attr.Item
	if v, err := txn.Get(k); err == nil {
		if old, err = attr.DecodeItem(v); err != nil {
			return err
		}
	}
	if err := keep(old); err != nil {
		return err
	}
	if err := txn.Delete(k); err != nil {
		return err
	}
	return txn.Commit(storage.CommitOptions{})
}

func newExpirer(c *core, closing chan struct{}) *Expirer {
	x := New(c, closing)
	x.Page = 2
	return x
}

// TestPassDeletesExpiredAcrossPages: a pass reads every page of every
// table from its own snapshot and deletes the expired items only,
// counting them; a table whose TTL is off, or that is not ACTIVE, is
// left alone.
func TestPassDeletesExpiredAcrossPages(t *testing.T) {
	c := newCore(t, time.Unix(2_000_000_000, 0))
	a := c.add(t, "a", 1, "1999999990", "2100000000", "1999999991", "1999999992", "2100000000")
	b := c.add(t, "b", 2, "1999999990")
	off := c.add(t, "off", 3, "1999999990")
	off.TTL = &Record{Attribute: "exp"}
	c.Tables["off"] = off
	creating := c.add(t, "creating", 4, "1999999990")
	creating.Status = "CREATING"
	c.Tables["creating"] = creating
	n, err := newExpirer(c, make(chan struct{})).Pass(context.Background())
	if err != nil || n != 4 || c.left(t, a) != 2 || c.left(t, b) != 0 || c.left(t, off) != 1 || c.left(t, creating) != 1 {
		t.Fatalf("Pass = %d %v; left %d %d %d %d", n, err, c.left(t, a), c.left(t, b), c.left(t, off), c.left(t, creating))
	}
	if c.snaps < 4 { // a: 3 pages, b: 1
		t.Fatalf("%d snapshots for 4 pages", c.snaps)
	}
}

// TestPassKeepsWhatNoLongerExpired: an item rewritten between its page and
// its deletion is kept, as is one already gone.
func TestPassKeepsWhatNoLongerExpired(t *testing.T) {
	c := newCore(t, time.Unix(2_000_000_000, 0))
	a := c.add(t, "a", 1, "1999999990", "1999999990")
	x := newExpirer(c, make(chan struct{}))
	keys, _, err := x.expiredPage(a, nil)
	if err != nil || len(keys) != 2 {
		t.Fatalf("expiredPage = %v %v", keys, err)
	}
	c.put(t, a, "a", attr.Item{"pk": {T: attr.S, Str: "a"}, "exp": num("2100000000")})
	for _, k := range keys {
		if ok, err := x.expire(context.Background(), a, k); err != nil || ok != (k["pk"].Str == "b") {
			t.Fatalf("expire(%v) = %v %v", k, ok, err)
		}
	}
	if ok, err := x.expire(context.Background(), a, keys[1]); ok || err != nil {
		t.Fatalf("expire of a deleted item = %v %v", ok, err)
	}
}

// TestPassStopsWhenTableGoes: a table whose TTL goes off (or that is
// deleted) between pages is left; an error from a deletion ends the pass.
func TestPassStopsWhenTableGoes(t *testing.T) {
	c := newCore(t, time.Unix(2_000_000_000, 0))
	a := c.add(t, "a", 1, "1", "1999999990", "1999999990", "1999999990")
	c.disable = "a"
	x := newExpirer(c, make(chan struct{}))
	if n, err := x.Pass(context.Background()); err != nil || n != 1 || c.snaps != 1 || c.left(t, a) != 3 {
		t.Fatalf("Pass = %d %v after %d pages", n, err, c.snaps)
	}
	boom := errors.New("boom")
	c.disable, c.fail = "", boom
	if _, err := x.Pass(context.Background()); err != boom {
		t.Fatalf("failing deletion: %v", err)
	}
}

// TestKickRunsBackgroundPass: Kick wakes the background pass before its
// interval; closing stops it.
func TestKickRunsBackgroundPass(t *testing.T) {
	c := newCore(t, time.Unix(2_000_000_000, 0))
	a := c.add(t, "a", 1, "1999999990")
	closing := make(chan struct{})
	x := newExpirer(c, closing)
	done := make(chan struct{})
	go func() { x.Background(time.Hour, nil); close(done) }()
	x.Kick()
	deadline := time.Now().Add(5 * time.Second)
	for c.left(t, a) != 0 {
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

// TestGuardedPassResumes: a guarded pass records its cursor (a table ID
// and the storage key of its next page) page by page; a pass stopped by a
// lost guard is resumed (here, or by another node) from the last cursor,
// not from the start, and a finished pass records that the next one
// starts afresh.
func TestGuardedPassResumes(t *testing.T) {
	c := newCore(t, time.Unix(2_000_000_000, 0))
	a := c.add(t, "a", 1, "1999999990", "1999999991", "1999999992", "1999999993", "1999999994")
	c.add(t, "b", 2, "1999999990", "1999999991", "1999999992")
	x := newExpirer(c, make(chan struct{}))
	g := &guard{failAt: 2}
	n, err := x.guardedPass(context.Background(), nil, g)
	if err == nil || n != 4 {
		t.Fatalf("first pass = %d %v, want 4 deleted and the lost guard's error", n, err)
	}
	id, key := decodeCursor(g.cursor)
	if id != a.Def.ID || string(key) != "i\x01c" {
		t.Fatalf("cursor after the first page = table %d key %q, want table 1 key \"i\\x01c\"", id, key)
	}
	// Put an expired item back before the cursor: the resumed pass must
	// not go back to it.
	c.put(t, a, "a", attr.Item{"pk": {T: attr.S, Str: "a"}, "exp": num("1999999990")})
	g.failAt = 0
	n, err = x.guardedPass(context.Background(), g.cursor, g)
	if err != nil || n != 4 {
		t.Fatalf("resumed pass = %d %v, want the 4 expired items after the cursor", n, err)
	}
	if c.left(t, a) != 1 {
		t.Fatal("the resumed pass went back before its cursor")
	}
	if g.cursor != nil {
		t.Fatalf("finished pass left cursor %q, want nil", g.cursor)
	}
}
