package indexes_test

import (
	"errors"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
)

// table is a version of a table as the core hands it to the package.
type table struct {
	change.Table
	live  *indexes.Live
	stats *indexes.Stats
}

func (t *table) Indexes() *indexes.Live     { return t.live }
func (t *table) IndexStats() *indexes.Stats { return t.stats }

func s(v string) attr.Value { return attr.Value{T: attr.S, Str: v} }

// newTable is table id (pk, sk) with GSI "byG" on g (KEYS_ONLY) and LSI
// "byL" on (pk, l) (ALL).
func newTable(id uint64) *table {
	gsi := &indexes.Index{Name: "byG", ID: 1, Hash: indexes.KeyAttr{Name: "g", Type: attr.S}, Projection: "KEYS_ONLY", Status: "ACTIVE"}
	gsi.Hashes = []indexes.KeyAttr{gsi.Hash}
	lsi := &indexes.Index{Name: "byL", ID: 2, Local: true, Hash: indexes.KeyAttr{Name: "pk", Type: attr.S}, Projection: "ALL", Status: "ACTIVE"}
	rk := indexes.KeyAttr{Name: "l", Type: attr.S}
	lsi.Range, lsi.Hashes, lsi.Ranges = &rk, []indexes.KeyAttr{lsi.Hash}, []indexes.KeyAttr{rk}
	sk := indexes.KeyAttr{Name: "sk", Type: attr.S}
	return &table{
		Table: change.Table{Name: "t", ID: id, Hash: indexes.KeyAttr{Name: "pk", Type: attr.S}, Range: &sk},
		live:  indexes.NewLive([]*indexes.Index{lsi}, []*indexes.Index{gsi}),
		stats: &indexes.Stats{},
	}
}

// apply stages one change through sub and commits it.
func apply(t *testing.T, st storage.Store, sub indexes.Subsystem, tb *table, old, new attr.Item) error {
	t.Helper()
	txn, err := st.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Rollback()
	c := change.Change{Table: tb, Old: old, New: new}
	if err := sub.Stage(txn, c); err != nil {
		return err
	}
	if err := txn.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	sub.Committed(c)
	return nil
}

func get(t *testing.T, st storage.Store, key []byte) attr.Item {
	t.Helper()
	snap, err := st.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	v, err := snap.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	it, err := attr.DecodeItem(v)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func collectionSize(t *testing.T, st storage.Store, id uint64, pk string) int64 {
	t.Helper()
	snap, err := st.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	n, err := indexes.CollectionSize(snap, id, s(pk))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSubsystemMaintainsEntries: a Put writes the GSI's projected entry
// and the LSI's whole item, a move of the GSI key moves the entry, a
// delete removes both; the statistics and the collection size follow.
func TestSubsystemMaintainsEntries(t *testing.T) {
	st := memory.New()
	tb := newTable(7)
	sub := indexes.Subsystem{Collections: &indexes.Collections{}}
	gsi, lsi := tb.live.ByName[0], tb.live.ByName[1]
	v1 := attr.Item{"pk": s("a"), "sk": s("1"), "g": s("x"), "l": s("m"), "other": s("o")}
	if err := apply(t, st, sub, tb, nil, v1); err != nil {
		t.Fatal(err)
	}
	if got := get(t, st, indexes.EntryKey(tb.Def(), gsi, v1)); !attr.ItemsEqual(got, attr.Item{"pk": s("a"), "sk": s("1"), "g": s("x")}) {
		t.Fatalf("GSI entry %v", got)
	}
	if got := get(t, st, indexes.EntryKey(tb.Def(), lsi, v1)); !attr.ItemsEqual(got, v1) {
		t.Fatalf("LSI entry %v", got)
	}
	want := int64(attr.ItemSize(v1)) + indexes.EntrySize(v1)
	if n := collectionSize(t, st, 7, "a"); n != want {
		t.Fatalf("collection size %d, want %d", n, want)
	}
	if f := tb.stats.Of(gsi.ID); f.Items.Load() != 1 {
		t.Fatalf("GSI ItemCount %d", f.Items.Load())
	}
	v2 := attr.Item{"pk": s("a"), "sk": s("1"), "g": s("y"), "l": s("m")}
	if err := apply(t, st, sub, tb, v1, v2); err != nil {
		t.Fatal(err)
	}
	if get(t, st, indexes.EntryKey(tb.Def(), gsi, v1)) != nil || get(t, st, indexes.EntryKey(tb.Def(), gsi, v2)) == nil {
		t.Fatal("the GSI entry did not move")
	}
	if err := apply(t, st, sub, tb, v2, nil); err != nil {
		t.Fatal(err)
	}
	if get(t, st, indexes.EntryKey(tb.Def(), gsi, v2)) != nil || get(t, st, indexes.EntryKey(tb.Def(), lsi, v2)) != nil {
		t.Fatal("entries left after the delete")
	}
	if n := collectionSize(t, st, 7, "a"); n != 0 {
		t.Fatalf("collection size %d after the delete", n)
	}
	for _, ix := range []*indexes.Index{gsi, lsi} {
		if f := tb.stats.Of(ix.ID); f.Items.Load() != 0 || f.Bytes.Load() != 0 {
			t.Fatalf("%s figures %d/%d after the delete", ix.Name, f.Items.Load(), f.Bytes.Load())
		}
	}
}

// TestStageRefusesBadKeys: DynamoDB's texts for a mistyped, an empty and an
// oversized index key value, nothing written.
func TestStageRefusesBadKeys(t *testing.T) {
	st := memory.New()
	tb := newTable(1)
	sub := indexes.Subsystem{Collections: &indexes.Collections{}}
	long := make([]byte, 2049)
	for i := range long {
		long[i] = 'a'
	}
	for _, c := range []struct {
		item attr.Item
		want string
	}{
		{attr.Item{"pk": s("a"), "sk": s("1"), "g": {T: attr.N, Str: "1"}}, "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: byG"},
		{attr.Item{"pk": s("a"), "sk": s("1"), "l": s("")}, "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: byL, IndexKey: l"},
		{attr.Item{"pk": s("a"), "sk": s("1"), "g": s(string(long))}, "One or more parameter values were invalid: Size limit exceeded for Index Key g Actual Size: 2049 bytes Max Size: 2048 bytes IndexName: byG"},
	} {
		err := apply(t, st, sub, tb, nil, c.item)
		if e := ddberr.As(err); e == nil || e.Message != c.want {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
	if n := collectionSize(t, st, 1, "a"); n != 0 {
		t.Fatalf("a refused write counted %d bytes", n)
	}
}

// TestCollectionLimit: growing a collection past the limit is refused,
// shrinking it is not.
func TestCollectionLimit(t *testing.T) {
	st := memory.New()
	tb := newTable(1)
	sub := indexes.Subsystem{Collections: &indexes.Collections{Max: 300}}
	small := attr.Item{"pk": s("a"), "sk": s("1"), "l": s("m")}
	if err := apply(t, st, sub, tb, nil, small); err != nil {
		t.Fatal(err)
	}
	big := attr.Item{"pk": s("a"), "sk": s("2"), "l": s("m"), "pad": s(string(make([]byte, 200)))}
	err := apply(t, st, sub, tb, nil, big)
	if e := ddberr.As(err); e == nil || e.Type != "ItemCollectionSizeLimitExceededException" || e.Message != "Collection size exceeded" {
		t.Fatalf("over the limit: %v", err)
	}
	if err := apply(t, st, sub, tb, small, nil); err != nil {
		t.Fatalf("a shrinking write was refused: %v", err)
	}
}

// TestCollectionsKeyedByTableID: two tables with the same name but other
// IDs (a table deleted and created again) share neither collection counters
// nor collection locks.
func TestCollectionsKeyedByTableID(t *testing.T) {
	st := memory.New()
	coll := &indexes.Collections{}
	sub := indexes.Subsystem{Collections: coll}
	old, again := newTable(1), newTable(2)
	it := attr.Item{"pk": s("a"), "sk": s("1"), "l": s("m")}
	if err := apply(t, st, sub, old, nil, it); err != nil {
		t.Fatal(err)
	}
	if n := collectionSize(t, st, again.ID, "a"); n != 0 {
		t.Fatalf("the new table sees the old one's collection: %d bytes", n)
	}
	// Find an ID whose stripe differs for pk "a" (stripes are hashed), then
	// check that holding the old table's lock does not hold the new one's,
	// and that the same table's lock is exclusive.
	pk := s("a")
	unlock := coll.Lock(indexes.CollectionWrite{TableID: old.ID, HasLSI: true, PK: pk})
	var other uint64
	for id := uint64(2); id < 100 && other == 0; id++ {
		got := make(chan struct{})
		go func() {
			coll.Lock(indexes.CollectionWrite{TableID: id, HasLSI: true, PK: pk})()
			close(got)
		}()
		select {
		case <-got:
			other = id
		case <-time.After(50 * time.Millisecond):
			t.Logf("table ID %d shares the stripe of table ID 1", id)
			unlock()
			<-got
			unlock = coll.Lock(indexes.CollectionWrite{TableID: old.ID, HasLSI: true, PK: pk})
		}
	}
	if other == 0 {
		t.Fatal("every table ID shares table 1's collection lock")
	}
	got := make(chan struct{})
	go func() {
		coll.Lock(indexes.CollectionWrite{TableID: old.ID, HasLSI: true, PK: pk})()
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("two writers of one collection held its lock at once")
	case <-time.After(50 * time.Millisecond):
	}
	unlock()
	<-got
	if u := coll.Lock(indexes.CollectionWrite{TableID: old.ID, HasLSI: false, PK: pk}); u == nil {
		t.Fatal("no unlock for a table without LSIs")
	}
}

// TestStatsSaveRestore: the saved figures of the live indexes come back.
func TestStatsSaveRestore(t *testing.T) {
	tb := newTable(1)
	tb.stats.Of(1).Items.Store(3)
	tb.stats.Of(1).Bytes.Store(300)
	tb.stats.Of(2).Items.Store(5)
	var back indexes.Stats
	ids := back.Restore(tb.stats.Encode(tb.live))
	if len(ids) != 2 || back.Of(1).Items.Load() != 3 || back.Of(1).Bytes.Load() != 300 || back.Of(2).Items.Load() != 5 {
		t.Fatalf("restored %v: %d %d %d", ids, back.Of(1).Items.Load(), back.Of(1).Bytes.Load(), back.Of(2).Items.Load())
	}
	if ids := back.Restore([]byte{1, 2, 3}); ids != nil {
		t.Fatalf("an unreadable value restored %v", ids)
	}
}

func mustDecode(t *testing.T, v []byte) attr.Item {
	t.Helper()
	it, err := attr.DecodeItem(v)
	if err != nil {
		t.Fatal(err)
	}
	return it
}
