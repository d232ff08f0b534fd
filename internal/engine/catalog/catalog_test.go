package catalog

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// newCatalog is a catalog over a fresh memory store, retrying conflicts
// up to three times.
func newCatalog(t *testing.T) (*Catalog, storage.Store, chan struct{}) {
	t.Helper()
	store := memory.New()
	closing := make(chan struct{})
	c := New(Options{Store: store, Closing: closing, Retry: func(attempt int) bool { return attempt < 3 }})
	return c, store, closing
}

// record is a table record keyed by pk (S) with one GSI on g (N), stored
// under id.
func record(name string, id uint64) *Record {
	r := &Record{ID: id, Name: name, Status: tables.StatusActive, Desc: wire.TableDescription{
		TableName:            wire.Ptr(name),
		AttributeDefinitions: []wire.AttributeDefinition{{AttributeName: wire.Ptr("pk"), AttributeType: "S"}, {AttributeName: wire.Ptr("g"), AttributeType: "N"}},
		KeySchema:            []wire.KeySchemaElement{{AttributeName: wire.Ptr("pk"), KeyType: "HASH"}},
		GlobalSecondaryIndexes: []wire.GlobalSecondaryIndexDescription{{IndexName: wire.Ptr("G"), IndexStatus: tables.StatusActive,
			KeySchema: []wire.KeySchemaElement{{AttributeName: wire.Ptr("g"), KeyType: "HASH"}}, Projection: &wire.Projection{ProjectionType: tables.ProjectKeysOnly}}},
	}}
	r.AddIndexID("G")
	return r
}

// load is what c's Load reads of store now.
func load(t *testing.T, c *Catalog, store storage.Store) *Loaded {
	t.Helper()
	snap, err := store.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	l, err := c.Load(snap, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func put(t *testing.T, c *Catalog, recs ...*Record) {
	t.Helper()
	if err := c.Commit(storage.CommitOptions{}, func(txn storage.Txn) error {
		for _, r := range recs {
			if err := Put(txn, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestPutGenerations: each Put stores the next generation; a record built
// on an older generation is refused with ErrStale, a storage conflict;
// Delete removes record and generation.
func TestPutGenerations(t *testing.T) {
	c, _, _ := newCatalog(t)
	r := record("t", 7)
	put(t, c, r)
	stale := r.Clone()
	r2 := r.Clone()
	r2.Tags = []wire.Tag{{Key: wire.Ptr("k"), Value: wire.Ptr("v")}}
	put(t, c, r2)
	if r.Gen != 1 || r2.Gen != 2 {
		t.Fatalf("generations %d, %d; want 1, 2", r.Gen, r2.Gen)
	}
	if gen, err := c.Gen(7); err != nil || gen != 2 {
		t.Fatalf("stored generation %d, %v; want 2", gen, err)
	}
	err := c.Commit(storage.CommitOptions{}, func(txn storage.Txn) error { return Put(txn, stale) })
	if !errors.Is(err, ErrStale) || !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("a stale record's Put: %v, want ErrStale (a conflict)", err)
	}
	got, ok, err := c.Read("t", time.Now())
	if err != nil || !ok || got.Gen != 2 || len(got.Tags) != 1 || got.Version != RecordVersion {
		t.Fatalf("read back: %+v %v %v", got, ok, err)
	}
	if err := c.Commit(storage.CommitOptions{}, func(txn storage.Txn) error { return Delete(txn, "t", 7) }); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := c.Read("t", time.Now()); ok || err != nil {
		t.Fatalf("read after Delete: %v %v", ok, err)
	}
	if gen, err := c.Gen(7); err != nil || gen != 0 {
		t.Fatalf("generation after Delete: %d %v", gen, err)
	}
}

// TestAllocIDs: IDs come from the stored counter, past every table and
// purge Load found; two catalogs on one store (two nodes) never hand out
// one ID twice, the loser of a race retrying with the next.
func TestAllocIDs(t *testing.T) {
	c, store, _ := newCatalog(t)
	put(t, c, record("a", 4))
	if err := c.Commit(storage.CommitOptions{}, func(txn storage.Txn) error { return txn.Set(PurgeKey(9), nil) }); err != nil {
		t.Fatal(err)
	}
	l := load(t, c, store)
	if len(l.Records) != 1 || len(l.Purges) != 1 || l.Purges[0] != (Purge{ID: 9}) {
		t.Fatalf("loaded %d records, purges %+v", len(l.Records), l.Purges)
	}
	id, err := c.CommitNewID(func(storage.Txn, uint64) error { return nil })
	if err != nil || id != 10 {
		t.Fatalf("first ID %d, %v; want 10 (past the purge)", id, err)
	}
	other := New(Options{Store: store, Retry: func(int) bool { return true }})
	load(t, other, store)
	// other allocates inside c's allocation: c's commit conflicts and
	// runs again with the next ID.
	calls := 0
	id, err = c.CommitNewID(func(txn storage.Txn, id uint64) error {
		if calls++; calls == 1 {
			if oid, err := other.CommitNewID(func(storage.Txn, uint64) error { return nil }); err != nil || oid != 11 {
				t.Fatalf("the other node's ID %d, %v; want 11", oid, err)
			}
		}
		return txn.Set([]byte("x"), fmt.Appendf(nil, "%d", id))
	})
	if err != nil || id != 12 || calls != 2 {
		t.Fatalf("ID after the race %d, %v, %d attempts; want 12 in 2", id, err, calls)
	}
	// Conflicts beyond Retry's allowance are returned.
	calls = 0
	_, err = c.CommitNewID(func(txn storage.Txn, id uint64) error {
		calls++
		_, err := other.CommitNewID(func(storage.Txn, uint64) error { return nil })
		return err
	})
	if !errors.Is(err, storage.ErrConflict) || calls != 4 {
		t.Fatalf("always racing: %v after %d attempts, want a conflict after 4", err, calls)
	}
}

// TestLoadStats: a clean Close's statistics load back and Unclean drops
// the marker; without it Load reports no figures, and Counted lists the
// tables a recount counts.
func TestLoadStats(t *testing.T) {
	c, store, _ := newCatalog(t)
	a, b := record("a", 1), record("b", 2)
	b.SetStatus(tables.StatusDeleting)
	put(t, c, a, b)
	if err := c.SaveStats([]Stats{{ID: 1, Counts: Counts{Items: 3, Bytes: 300}, Indexes: []byte("ix")}}); err != nil {
		t.Fatal(err)
	}
	if v, err := c.get(indexes.StatsKey(1)); err != nil || string(v) != "ix" {
		t.Fatalf("index statistics %q, %v", v, err)
	}
	l := load(t, c, store)
	if !l.Clean || l.Counts[1] != (Counts{3, 300}) || len(l.Counts) != 1 {
		t.Fatalf("clean load: %v %+v", l.Clean, l.Counts)
	}
	if err := c.Unclean(); err != nil {
		t.Fatal(err)
	}
	l = load(t, c, store)
	if l.Clean || l.Counts != nil {
		t.Fatalf("after Unclean: clean %v, counts %+v", l.Clean, l.Counts)
	}
	if ids := l.Counted(); len(ids) != 1 || ids[0] != 1 {
		t.Fatalf("counted %v, want [1] (b is DELETING)", ids)
	}
}

// TestPurge: Purge empties the ranges it is given, chunk by chunk, then
// drops the table's statistics and marker; a purge stopped by Close
// leaves the marker for the next Open.
func TestPurge(t *testing.T) {
	c, store, closing := newCatalog(t)
	n := PurgeChunk*2 + 7
	if err := c.Commit(storage.CommitOptions{}, func(txn storage.Txn) error {
		for i := range n {
			if err := txn.Set(fmt.Appendf(nil, "i%05d", i), nil); err != nil {
				return err
			}
		}
		for _, k := range [][]byte{StatsKey(5), indexes.StatsKey(5), PurgeKey(5), []byte("j")} {
			if err := txn.Set(k, []byte{1}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !c.Purge(5, [][2][]byte{{[]byte("i"), []byte("j")}}) {
		t.Fatal("purge did not finish")
	}
	snap, _ := store.NewSnapshot()
	defer snap.Close()
	it, _ := snap.NewIterator(storage.IterOptions{})
	var left []string
	for it.Next() {
		left = append(left, string(it.Key()))
	}
	it.Close()
	if strings.Join(left, ",") != "j" {
		t.Fatalf("left after the purge: %q, want only j", left)
	}
	close(closing)
	if c.Purge(6, [][2][]byte{{[]byte("a"), []byte("b")}}) || c.PurgeRange([]byte("a"), []byte("b")) {
		t.Fatal("a purge ran after Close")
	}
}

// TestSettleAndIndexIDs: an elapsed CREATING/UPDATING record settles
// ACTIVE with its deleted GSIs gone; a re-created index name gets a new
// ID; Schema decodes keys and indexes and names what a record lacks.
func TestSettleAndIndexIDs(t *testing.T) {
	now := time.Now()
	r := record("t", 1)
	r.SetStatus(tables.StatusUpdating)
	r.ReadyAt = now.Add(time.Second)
	r.Desc.GlobalSecondaryIndexes[0].IndexStatus = tables.StatusDeleting
	r.Settle(now)
	if r.Status != tables.StatusUpdating || len(r.Desc.GlobalSecondaryIndexes) != 1 {
		t.Fatal("settled before ReadyAt")
	}
	r.Settle(now.Add(time.Second))
	if r.Status != tables.StatusActive || r.Desc.TableStatus != tables.StatusActive || r.Desc.GlobalSecondaryIndexes != nil || len(r.Desc.AttributeDefinitions) != 1 {
		t.Fatalf("settled: %s, GSIs %v, definitions %d", r.Status, r.Desc.GlobalSecondaryIndexes, len(r.Desc.AttributeDefinitions))
	}
	first, _ := r.IndexID("G")
	if again := r.AddIndexID("G"); again == first || len(r.Indexes) != 1 {
		t.Fatalf("re-created G got ID %d (was %d), %d index records", again, first, len(r.Indexes))
	}

	s, err := record("u", 2).Schema()
	if err != nil || s.Hash.Name != "pk" || s.Range != nil || len(s.GSIs) != 1 || s.GSIs[0].Hash.Name != "g" || s.GSIs[0].ID != 1 || s.GSIs[0].Projection != tables.ProjectKeysOnly {
		t.Fatalf("schema %+v, %v", s, err)
	}
	bad := record("v", 3)
	bad.Indexes = nil
	if _, err := bad.Schema(); err == nil || err.Error() != "engine: table v: index G has no ID" {
		t.Fatalf("a GSI without an ID: %v", err)
	}
	bad = record("w", 4)
	bad.Desc.AttributeDefinitions = bad.Desc.AttributeDefinitions[1:]
	if _, err := bad.Schema(); err == nil || err.Error() != "engine: table w: key attribute pk has no definition" {
		t.Fatalf("an undefined key attribute: %v", err)
	}
}

// TestRecords: Records and Each read every record in name order; a
// record that does not decode is an error naming it.
func TestRecords(t *testing.T) {
	c, _, _ := newCatalog(t)
	put(t, c, record("b", 2), record("a", 1))
	recs, err := c.Records(time.Now())
	if err != nil || len(recs) != 2 || recs[0].Name != "a" || recs[1].Name != "b" {
		t.Fatalf("records %v, %v", recs, err)
	}
	if err := c.Commit(storage.CommitOptions{}, func(txn storage.Txn) error { return txn.Set(Key("c"), []byte("{")) }); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Records(time.Now()); err == nil || !strings.HasPrefix(err.Error(), `engine: catalog record "c": `) {
		t.Fatalf("a corrupt record: %v", err)
	}
}

// TestCount: Count counts a table's items and their sizes through a
// snapshot reader, and stops (not done) once the engine closes.
func TestCount(t *testing.T) {
	c, store, closing := newCatalog(t)
	if err := c.Commit(storage.CommitOptions{}, func(txn storage.Txn) error {
		for i := range 5000 {
			if err := txn.Set(fmt.Appendf(nil, "i%05d", i), []byte("abc")); err != nil {
				return err
			}
		}
		return txn.Set([]byte("j"), []byte("other table"))
	}); err != nil {
		t.Fatal(err)
	}
	layout := &snapshot.Layout{Items: func(uint64) ([]byte, []byte) { return []byte("i"), []byte("j") }, PrefixLen: 1}
	count := func() (Counts, bool, error) {
		snap, err := snapshot.Open(store, layout)
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		return c.Count(snap, 1, func(v []byte) int64 { return int64(len(v)) })
	}
	if n, done, err := count(); err != nil || !done || n != (Counts{5000, 15000}) {
		t.Fatalf("count %+v, done %v, %v", n, done, err)
	}
	close(closing)
	if _, done, err := count(); err != nil || done {
		t.Fatalf("count after Close: done %v, %v; want stopped", done, err)
	}
}

// TestSaveCountsSkipsDeletedTables: a recount's figures are saved for a
// table whose record is there, not for one deleted since it was counted
// (its purge deletes the key, which must not come back) nor for an ID
// whose name now belongs to another table.
func TestSaveCountsSkipsDeletedTables(t *testing.T) {
	c, store, _ := newCatalog(t)
	put(t, c, record("live", 1), record("gone", 2), record("again", 4))
	if err := c.Commit(storage.CommitOptions{}, func(txn storage.Txn) error {
		if err := Delete(txn, "gone", 2); err != nil {
			return err
		}
		return Delete(txn, "again", 4)
	}); err != nil {
		t.Fatal(err)
	}
	put(t, c, record("again", 5))
	counts := map[uint64]Counts{1: {Items: 3, Bytes: 30}, 2: {Items: 4, Bytes: 40}, 4: {Items: 5, Bytes: 50}}
	names := map[uint64]string{1: "live", 2: "gone", 4: "again"}
	saved := map[uint64]Saved{}
	for id, n := range counts {
		saved[id] = Saved{Name: names[id], Counts: n, Indexes: []byte{byte(id)}}
	}
	if err := c.SaveCounts(saved); err != nil {
		t.Fatal(err)
	}
	snap, _ := store.NewSnapshot()
	defer snap.Close()
	for id, want := range map[uint64]bool{1: true, 2: false, 4: false} {
		n, found, err := ReadCounts(snap, id)
		if err != nil || found != want || found && n != counts[id] {
			t.Errorf("table %d: %+v found=%v %v; want found=%v", id, n, found, err, want)
		}
		if v, err := snap.Get(indexes.StatsKey(id)); want != (err == nil) || want && string(v) != string([]byte{byte(id)}) {
			t.Errorf("table %d's index statistics: %q %v; want saved=%v", id, v, err, want)
		}
	}
}
