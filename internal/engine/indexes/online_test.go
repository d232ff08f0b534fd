package indexes_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/engine/stripes"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// onlineTable is a table version as the online jobs see it.
type onlineTable struct {
	*table
	gsis  []*indexes.Index
	items int64
}

func (t *onlineTable) Index(name string) (*indexes.Index, bool) {
	for _, ix := range t.live.ByName {
		if ix.Name == name {
			return ix, true
		}
	}
	for _, ix := range t.gsis {
		if ix.Name == name {
			return ix, true
		}
	}
	return nil, false
}
func (t *onlineTable) Globals() []*indexes.Index { return t.gsis }
func (t *onlineTable) UpdatingUntil() time.Time  { return time.Time{} }
func (t *onlineTable) ItemCount() int64          { return t.items }

// core is the engine as the jobs see it: one table over a memory store,
// whose description ChangeDesc keeps.
type core struct {
	st    storage.Store
	locks stripes.Locks
	bg    sync.WaitGroup
	mu    sync.Mutex
	cur   *onlineTable
	desc  wire.TableDescription
	saves int
}

func (c *core) Store() storage.Store                { return c.st }
func (c *core) Snapshot() (*snapshot.Reader, error) { return snapshot.Open(c.st, layout) }
func (c *core) ReadItem(r storage.Reader, key []byte) (attr.Item, error) {
	return readItem(r, key)
}
func (c *core) Locks() *stripes.Locks { return &c.locks }
func (c *core) Commit(f func(storage.Txn) error) error {
	txn, err := c.st.Begin()
	if err != nil {
		return err
	}
	if err := f(txn); err != nil {
		txn.Rollback()
		return err
	}
	return txn.Commit(storage.CommitOptions{})
}
func (c *core) Purge(lower, upper []byte) bool {
	r, err := c.Snapshot()
	if err != nil {
		return false
	}
	defer r.Close()
	var keys [][]byte
	if _, err := r.Range(lower, upper, func(k, _ []byte) (bool, error) { keys = append(keys, slices.Clone(k)); return true, nil }); err != nil {
		return false
	}
	return c.Commit(func(txn storage.Txn) error {
		for _, k := range keys {
			if err := txn.Delete(k); err != nil {
				return err
			}
		}
		return nil
	}) == nil
}
func (c *core) Closing() bool              { return false }
func (c *core) Go(f func())                { c.bg.Add(1); go func() { defer c.bg.Done(); f() }() }
func (c *core) Now() time.Time             { return time.Now() }
func (c *core) CreateDelay() time.Duration { return 0 }
func (c *core) AwaitClock(time.Time, func() bool) bool {
	return true
}
func (c *core) Exclusive(_ uint64, _ uint32, still func() bool, run func()) {
	if still() {
		run()
	}
}
func (c *core) Table(name string, id uint64) (indexes.OnlineTable, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil || c.cur.Name != name || c.cur.ID != id {
		return nil, false
	}
	return c.cur, true
}
func (c *core) Tables() []indexes.OnlineTable { return []indexes.OnlineTable{c.cur} }
func (c *core) ChangeDesc(name string, id uint64, f func(indexes.OnlineTable, *wire.TableDescription) bool) error {
	t, ok := c.Table(name, id)
	if ok && f(t, &c.desc) {
		c.saves++
	}
	return nil
}
func (c *core) Stats(uint64) *indexes.Stats { return c.cur.stats }
func (c *core) ItemSize(v []byte) int64     { return int64(len(v)) }
func (c *core) ItemPrefix(id uint64) []byte { return itemKey(id, "") }
func (c *core) StatsDirty()                 {}

// entries counts the stored entries of one index.
func entries(t *testing.T, st storage.Store, tableID uint64, ix uint32) int {
	t.Helper()
	r, err := snapshot.Open(st, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	if _, err := r.Range(indexes.Prefix(tableID, ix), indexes.Prefix(tableID, ix+1), func([]byte, []byte) (bool, error) { n++; return true, nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOnlineBackfillAndPurge: a GSI new in a table version is backfilled
// and turned ACTIVE in the stored description with exact statistics; a
// GSI gone from the next version is purged (entries, marker, statistics);
// a purge marker left behind is resumed at Open.
func TestOnlineBackfillAndPurge(t *testing.T) {
	st := memory.New()
	base := newTable(6)
	gsi := base.live.List[1] // newTable: the LSI, then the GSI
	n := indexes.ChunkSize + 10
	kv := map[string][]byte{}
	for i := range n {
		kv[string(itemKey(6, fmt.Sprint(i)))] = attr.AppendItem(nil, attr.Item{"pk": s(fmt.Sprint(i)), "sk": s("1"), "g": s("x")})
	}
	put(t, st, kv)
	gsi.Backfilling, gsi.Status = true, "CREATING"
	prev := &onlineTable{table: newTable(6), items: int64(n)}
	prev.live = indexes.NewLive(prev.live.Local, nil)
	cur := &onlineTable{table: base, gsis: []*indexes.Index{gsi}, items: int64(n)}
	c := &core{st: st, cur: cur, desc: wire.TableDescription{GlobalSecondaryIndexes: []wire.GlobalSecondaryIndexDescription{
		{IndexName: wire.Ptr("byG"), IndexStatus: "CREATING", Backfilling: wire.Ptr(true)}}}}
	indexes.StartWork(c, cur, prev)
	c.bg.Wait()
	g := c.desc.GlobalSecondaryIndexes[0]
	if c.saves != 1 || g.IndexStatus != "ACTIVE" || g.Backfilling != nil {
		t.Fatalf("after the backfill: %d saves, %+v", c.saves, g)
	}
	if got := entries(t, st, 6, gsi.ID); got != n {
		t.Fatalf("%d entries, want %d", got, n)
	}
	if f := base.stats.Of(gsi.ID); f.Items.Load() != int64(n) {
		t.Fatalf("ItemCount %d, want %d", f.Items.Load(), n)
	}

	// The next version drops the GSI: its entries and figures go.
	next := &onlineTable{table: newTable(6), items: int64(n)}
	next.live = indexes.NewLive(next.live.Local, nil)
	next.stats = base.stats
	c.cur = next
	indexes.StartWork(c, next, cur)
	c.bg.Wait()
	if got := entries(t, st, 6, gsi.ID); got != 0 {
		t.Fatalf("%d entries left after the purge", got)
	}
	if got := markers(t, st); len(got) != 0 {
		t.Fatalf("purge markers left: %v", got)
	}
	if f := base.stats.Of(gsi.ID); f.Items.Load() != 0 {
		t.Fatalf("the purged index's ItemCount %d", f.Items.Load())
	}

	// A purge interrupted by a restart is resumed by Resume.
	put(t, st, map[string][]byte{
		string(indexes.PurgeKey(indexes.Ref{Table: 6, Index: 9})): {1},
		string(append(indexes.Prefix(6, 9), "entry"...)):          {1},
	})
	if err := indexes.Resume(c, map[indexes.Ref]bool{}); err != nil {
		t.Fatal(err)
	}
	c.bg.Wait()
	if got := entries(t, st, 6, 9); got != 0 || len(markers(t, st)) != 0 {
		t.Fatalf("after Resume: %d entries, markers %v", got, markers(t, st))
	}
}

func markers(t *testing.T, st storage.Store) []indexes.Ref {
	t.Helper()
	r, err := snapshot.Open(st, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := indexes.Purges(r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
