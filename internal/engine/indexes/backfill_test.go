package indexes_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
)

// The test's item layout: "i" tableID(8) suffix → encoded item.
func itemKey(id uint64, suffix string) []byte {
	return append(binary.BigEndian.AppendUint64([]byte{'i'}, id), suffix...)
}

var layout = &snapshot.Layout{
	Items:     func(id uint64) ([]byte, []byte) { return itemKey(id, ""), itemKey(id+1, "") },
	PrefixLen: 9,
}

func readItem(r storage.Reader, key []byte) (attr.Item, error) {
	v, err := r.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return attr.DecodeItem(v)
}

func put(t *testing.T, st storage.Store, kv map[string][]byte) {
	t.Helper()
	txn, err := st.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range kv {
		if err := txn.Set([]byte(k), v); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestBackfillChunks: chunks listed from snapshots index every item with a
// valid key, skip (and count) the others, leave an existing entry alone,
// and end with a nil cursor; a stopped index commits nothing.
func TestBackfillChunks(t *testing.T) {
	st := memory.New()
	tb := newTable(3)
	gsi := tb.live.ByName[0]
	gsi.Backfilling = true
	kv := map[string][]byte{}
	n := indexes.ChunkSize + 44
	for i := range n {
		it := attr.Item{"pk": s(fmt.Sprint(i)), "sk": s("1"), "g": s("x")}
		switch {
		case i%50 == 0:
			it["g"] = attr.Value{T: attr.N, Str: "1"} // mistyped: skipped
		case i%50 == 1:
			delete(it, "g") // sparse: not indexed, not skipped
		}
		kv[string(itemKey(3, fmt.Sprint(i)))] = attr.AppendItem(nil, it)
	}
	kv[string(itemKey(4, "other table"))] = attr.AppendItem(nil, attr.Item{"pk": s("z"), "sk": s("1"), "g": s("x")})
	put(t, st, kv)
	locked := 0
	stopped := false
	bf := &indexes.Backfill{
		Store:       st,
		Snapshot:    func() (*snapshot.Reader, error) { return snapshot.Open(st, layout) },
		ReadItem:    readItem,
		LockStripes: func(keys [][]byte) func() { locked += len(keys); return func() {} },
		Current: func() (indexes.Table, *indexes.Index, bool) {
			return tb, gsi, !stopped
		},
	}
	lower, upper := layout.Items(3)
	stopped = true
	if _, err := bf.Chunk(tb, gsi, lower, upper); !errors.Is(err, indexes.ErrStopped) {
		t.Fatalf("a stopped index's chunk: %v", err)
	}
	stopped, locked = false, 0
	var seen, added, skipped int
	cursor := lower
	for chunks := 0; cursor != nil; chunks++ {
		if chunks > 2 {
			t.Fatal("the backfill does not end")
		}
		res, err := bf.Chunk(tb, gsi, cursor, upper)
		if err != nil {
			t.Fatal(err)
		}
		seen, added, skipped = seen+res.Seen, added+res.Added, skipped+res.Skipped
		cursor = res.Next
	}
	valid := n - 2*((n+49)/50)
	if seen != n || added != valid || skipped != (n+49)/50 || locked != n {
		t.Fatalf("seen %d added %d skipped %d locked %d, want %d %d %d %d", seen, added, skipped, locked, n, valid, (n+49)/50, n)
	}
	if f := tb.stats.Of(gsi.ID); f.Items.Load() != int64(valid) {
		t.Fatalf("ItemCount %d, want %d", f.Items.Load(), valid)
	}
	// A second pass finds every entry made.
	res, err := bf.Chunk(tb, gsi, lower, upper)
	if err != nil || res.Added != 0 {
		t.Fatalf("a second pass added %d (%v)", res.Added, err)
	}
	r, err := snapshot.Open(st, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	items, size, done, err := indexes.Count(r, indexes.Ref{Table: 3, Index: gsi.ID}, func(v []byte) int64 { return int64(len(v)) }, nil)
	if err != nil || !done || items != int64(valid) || size <= items*indexes.Overhead {
		t.Fatalf("Count: %d entries, %d bytes, done %v, %v", items, size, done, err)
	}
	if _, _, done, _ := indexes.Count(r, indexes.Ref{Table: 3, Index: gsi.ID}, func([]byte) int64 { return 0 }, func() bool { return true }); done != (valid < 4096) {
		t.Fatalf("a stopped Count reports done %v", done)
	}
}

// TestBackfillWalk: a walk indexes the whole range and reports its
// progress; it stops, reporting so, when the engine closes or the index
// goes.
func TestBackfillWalk(t *testing.T) {
	st := memory.New()
	tb := newTable(5)
	gsi := tb.live.ByName[0]
	gsi.Backfilling = true
	kv := map[string][]byte{}
	n := 2*indexes.ChunkSize + 1
	for i := range n {
		kv[string(itemKey(5, fmt.Sprint(i)))] = attr.AppendItem(nil, attr.Item{"pk": s(fmt.Sprint(i)), "sk": s("1"), "g": s("x")})
	}
	put(t, st, kv)
	closing, chunks, present := false, 0, true
	bf := &indexes.Backfill{
		Store:       st,
		Snapshot:    func() (*snapshot.Reader, error) { return snapshot.Open(st, layout) },
		ReadItem:    readItem,
		LockStripes: func([][]byte) func() { return func() {} },
		Current:     func() (indexes.Table, *indexes.Index, bool) { return tb, gsi, present },
		Closing:     func() bool { return closing },
		BeforeChunk: func() { chunks++ },
		Log:         slog.New(slog.DiscardHandler),
		TableItems:  func() int64 { return int64(n) },
	}
	lower, upper := layout.Items(5)
	closing = true
	if _, ok := bf.Walk(lower, upper); ok || chunks != 0 {
		t.Fatalf("a closing engine's walk: ok %v after %d chunks", ok, chunks)
	}
	closing, present = false, false
	if _, ok := bf.Walk(lower, upper); ok || chunks != 0 {
		t.Fatalf("a deleted index's walk: ok %v after %d chunks", ok, chunks)
	}
	present = true
	p, ok := bf.Walk(lower, upper)
	if !ok || chunks != 3 || p.Scanned != int64(n) || p.Indexed != int64(n) || p.Skipped != 0 {
		t.Fatalf("walk: ok %v, %d chunks, %+v", ok, chunks, p)
	}
}

// TestPurges lists the purge markers a restart resumes.
func TestPurges(t *testing.T) {
	st := memory.New()
	put(t, st, map[string][]byte{
		string(indexes.PurgeKey(indexes.Ref{Table: 9, Index: 4})): {1},
		string(indexes.PurgeKey(indexes.Ref{Table: 2, Index: 1})): {1},
		"mipurge/short": {1},
		"mistats/x":     {1},
	})
	r, err := snapshot.Open(st, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := indexes.Purges(r)
	if err != nil || len(got) != 2 || got[0] != (indexes.Ref{Table: 2, Index: 1}) || got[1] != (indexes.Ref{Table: 9, Index: 4}) {
		t.Fatalf("Purges %v, %v", got, err)
	}
}
