package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/kura-db/kura/internal/storage"
)

// Run runs the conformance suite against stores made by open.
func Run(t *testing.T, open func(t *testing.T) storage.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s storage.Store)
	}{
		{"GetSetDelete", testGetSetDelete},
		{"EmptyValue", testEmptyValue},
		{"IterBounds", testIterBounds},
		{"IterEmptyRanges", testIterEmptyRanges},
		{"SnapshotIsolation", testSnapshotIsolation},
		{"TxnReadYourWrites", testTxnReadYourWrites},
		{"AtomicCommit", testAtomicCommit},
		{"AtomicCommitConcurrentReaders", testAtomicConcurrentReaders},
		{"ConflictWriteWrite", testConflictWriteWrite},
		{"ConflictReadWrite", testConflictReadWrite},
		{"NoConflictDisjoint", testNoConflictDisjoint},
		{"NoConflictAfterCommit", testNoConflictAfterCommit},
		{"ReadOnlyTxn", testReadOnlyTxn},
		{"Rollback", testRollback},
		{"CallerOwnsSlices", testCallerOwnsSlices},
		{"ConcurrentCounter", testConcurrentCounter},
		{"ConcurrentDisjointNoConflict", testConcurrentDisjoint},
		{"LargeValues", testLargeValues},
		{"ManyKeys", testManyKeys},
		{"SyncCommit", testSyncCommit},
		{"Closed", testClosed},
		{"RangeReader", testRangeReader},
		{"LazyBegin", testLazyBegin},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { _ = s.Close() })
			tc.fn(t, s)
		})
	}
}

// put commits key/value pairs (kv[i], kv[i+1]) in one transaction.
func put(t testing.TB, s storage.Store, kv ...string) {
	t.Helper()
	tx, err := s.Begin()
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if err := tx.Set([]byte(kv[i]), []byte(kv[i+1])); err != nil {
			t.Fatalf("Set: %v", err)
		}
	}
	if err := tx.Commit(storage.CommitOptions{}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

// del commits deletions of keys in one transaction.
func del(t testing.TB, s storage.Store, keys ...string) {
	t.Helper()
	tx, err := s.Begin()
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	for _, k := range keys {
		if err := tx.Delete([]byte(k)); err != nil {
			t.Fatalf("Delete: %v", err)
		}
	}
	if err := tx.Commit(storage.CommitOptions{}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

// snapGet reads key from a fresh snapshot; missing keys read as "<nil>".
func snapGet(t testing.TB, s storage.Store, key string) string {
	t.Helper()
	sn, err := s.NewSnapshot()
	if err != nil {
		t.Fatalf("NewSnapshot: %v", err)
	}
	defer sn.Close()
	return get(t, sn, key)
}

// get reads key from r; missing keys read as "<nil>".
func get(t testing.TB, r storage.Reader, key string) string {
	t.Helper()
	v, err := r.Get([]byte(key))
	if errors.Is(err, storage.ErrNotFound) {
		if v != nil {
			t.Errorf("Get(%q): ErrNotFound with non-nil value", key)
		}
		return "<nil>"
	}
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	return string(v)
}

// scan returns "k=v" pairs of an iteration over r.
func scan(t testing.TB, r storage.RangeReader, opts storage.IterOptions) []string {
	t.Helper()
	it, err := r.NewIterator(opts)
	if err != nil {
		t.Fatalf("NewIterator: %v", err)
	}
	var out []string
	for it.Next() {
		out = append(out, string(it.Key())+"="+string(it.Value()))
	}
	if err := it.Err(); err != nil {
		t.Fatalf("iterator: %v", err)
	}
	if err := it.Close(); err != nil {
		t.Fatalf("iterator Close: %v", err)
	}
	return out
}

// snapScan iterates a fresh snapshot.
func snapScan(t testing.TB, s storage.Store, opts storage.IterOptions) []string {
	t.Helper()
	sn, err := s.NewSnapshot()
	if err != nil {
		t.Fatalf("NewSnapshot: %v", err)
	}
	defer sn.Close()
	return scan(t, sn, opts)
}

func eq(t testing.TB, what string, got, want any) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func begin(t testing.TB, s storage.Store) storage.Txn {
	t.Helper()
	tx, err := s.Begin()
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	return tx
}

func testGetSetDelete(t *testing.T, s storage.Store) {
	eq(t, "missing", snapGet(t, s, "a"), "<nil>")
	put(t, s, "a", "1", "b", "2")
	eq(t, "a", snapGet(t, s, "a"), "1")
	eq(t, "b", snapGet(t, s, "b"), "2")
	put(t, s, "a", "3")
	eq(t, "a overwritten", snapGet(t, s, "a"), "3")
	del(t, s, "a")
	eq(t, "a deleted", snapGet(t, s, "a"), "<nil>")
	eq(t, "b kept", snapGet(t, s, "b"), "2")
	del(t, s, "never-existed")
	tx := begin(t, s)
	defer tx.Rollback()
	if _, err := tx.Get([]byte("a")); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("txn Get missing: %v, want ErrNotFound", err)
	}
	eq(t, "txn Get", get(t, tx, "b"), "2")
}

func testEmptyValue(t *testing.T, s storage.Store) {
	put(t, s, "k", "")
	sn, err := s.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	v, err := sn.Get([]byte("k"))
	if err != nil || len(v) != 0 {
		t.Fatalf("Get empty value = %q, %v", v, err)
	}
	eq(t, "scan", scan(t, sn, storage.IterOptions{}), []string{"k="})
	tx := begin(t, s)
	defer tx.Rollback()
	_ = tx.Set([]byte("k2"), nil)
	if v, err := tx.Get([]byte("k2")); err != nil || len(v) != 0 {
		t.Fatalf("txn Get buffered empty value = %q, %v", v, err)
	}
}

func testIterBounds(t *testing.T, s storage.Store) {
	put(t, s, "a", "1", "b", "2", "b\x00", "3", "ba", "4", "c", "5", "\xff", "6", "\x00", "7")
	all := []string{"\x00=7", "a=1", "b=2", "b\x00=3", "ba=4", "c=5", "\xff=6"}
	rev := func(in []string) []string {
		out := make([]string, len(in))
		for i, v := range in {
			out[len(in)-1-i] = v
		}
		return out
	}
	cases := []struct {
		lo, hi string
		nilLo  bool
		nilHi  bool
		want   []string
	}{
		{nilLo: true, nilHi: true, want: all},
		{lo: "b", nilHi: true, want: all[2:]},
		{nilLo: true, hi: "b", want: all[:2]},
		{lo: "b", hi: "c", want: all[2:5]},
		{lo: "b\x00", hi: "ba", want: all[3:4]},
		{lo: "a0", hi: "bz", want: all[2:5]},
		{lo: "", hi: "a", want: all[:1]},
		{lo: "c", hi: "\xff", want: all[5:6]},
		{lo: "c", hi: "\xff\x00", want: all[5:]},
		{lo: "d", hi: "e", want: nil},
	}
	for _, c := range cases {
		opts := storage.IterOptions{}
		if !c.nilLo {
			opts.Lower = []byte(c.lo)
		}
		if !c.nilHi {
			opts.Upper = []byte(c.hi)
		}
		name := fmt.Sprintf("[%q,%q)", opts.Lower, opts.Upper)
		eq(t, name+" forward", snapScan(t, s, opts), c.want)
		opts.Reverse = true
		eq(t, name+" reverse", snapScan(t, s, opts), rev(c.want))
	}
}

func testIterEmptyRanges(t *testing.T, s storage.Store) {
	put(t, s, "a", "1", "b", "2")
	for _, rng := range [][2][]byte{
		{[]byte("b"), []byte("b")},
		{[]byte("c"), []byte("a")},
		{nil, []byte{}},
	} {
		for _, r := range []bool{false, true} {
			got := snapScan(t, s, storage.IterOptions{Lower: rng[0], Upper: rng[1], Reverse: r})
			if len(got) != 0 {
				t.Errorf("[%q,%q) reverse=%v = %v, want empty", rng[0], rng[1], r, got)
			}
		}
	}
	// An empty store iterates nothing.
	e := snapScan(t, s, storage.IterOptions{Lower: []byte("x")})
	eq(t, "past end", len(e), 0)
}

func testSnapshotIsolation(t *testing.T, s storage.Store) {
	put(t, s, "a", "1", "b", "1")
	sn, err := s.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	tx := begin(t, s)
	defer tx.Rollback()
	put(t, s, "a", "2", "c", "2")
	del(t, s, "b")
	for name, r := range map[string]storage.Reader{"snapshot": sn, "txn": tx} {
		eq(t, name+" a", get(t, r, "a"), "1")
		eq(t, name+" b", get(t, r, "b"), "1")
		eq(t, name+" c", get(t, r, "c"), "<nil>")
		eq(t, name+" scan", scan(t, r, storage.IterOptions{}), []string{"a=1", "b=1"})
		eq(t, name+" reverse", scan(t, r, storage.IterOptions{Reverse: true}), []string{"b=1", "a=1"})
	}
	eq(t, "latest", snapScan(t, s, storage.IterOptions{}), []string{"a=2", "c=2"})
}

func testTxnReadYourWrites(t *testing.T, s storage.Store) {
	put(t, s, "a", "1", "b", "1")
	tx := begin(t, s)
	defer tx.Rollback()
	_ = tx.Set([]byte("a"), []byte("2"))
	_ = tx.Set([]byte("n"), []byte("new"))
	_ = tx.Delete([]byte("b"))
	eq(t, "own set", get(t, tx, "a"), "2")
	eq(t, "own insert", get(t, tx, "n"), "new")
	eq(t, "own delete", get(t, tx, "b"), "<nil>")
	_ = tx.Set([]byte("b"), []byte("again"))
	eq(t, "set after delete", get(t, tx, "b"), "again")
	_ = tx.Delete([]byte("n"))
	eq(t, "delete after set", get(t, tx, "n"), "<nil>")
	// Iterators see the snapshot only.
	eq(t, "txn scan", scan(t, tx, storage.IterOptions{}), []string{"a=1", "b=1"})
	// Nothing is visible outside before Commit.
	eq(t, "outside", snapScan(t, s, storage.IterOptions{}), []string{"a=1", "b=1"})
	if err := tx.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	eq(t, "after commit", snapScan(t, s, storage.IterOptions{}), []string{"a=2", "b=again"})
}

func testAtomicCommit(t *testing.T, s storage.Store) {
	put(t, s, "x", "old", "y", "old")
	// A conflicting commit applies nothing.
	tx := begin(t, s)
	_ = tx.Set([]byte("x"), []byte("tx"))
	_ = tx.Set([]byte("y"), []byte("tx"))
	_ = tx.Set([]byte("z"), []byte("tx"))
	put(t, s, "y", "other")
	if err := tx.Commit(storage.CommitOptions{}); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("Commit = %v, want ErrConflict", err)
	}
	eq(t, "after failed commit", snapScan(t, s, storage.IterOptions{}), []string{"x=old", "y=other"})
	// A successful one applies everything.
	tx = begin(t, s)
	for i := 0; i < 100; i++ {
		_ = tx.Set([]byte(fmt.Sprintf("k%03d", i)), []byte("v"))
	}
	_ = tx.Delete([]byte("x"))
	if err := tx.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	got := snapScan(t, s, storage.IterOptions{})
	eq(t, "count", len(got), 101)
	eq(t, "x", snapGet(t, s, "x"), "<nil>")
}

func testRollback(t *testing.T, s storage.Store) {
	put(t, s, "a", "1")
	tx := begin(t, s)
	_ = tx.Set([]byte("a"), []byte("2"))
	_ = tx.Set([]byte("b"), []byte("2"))
	tx.Rollback()
	tx.Rollback()
	eq(t, "after rollback", snapScan(t, s, storage.IterOptions{}), []string{"a=1"})
	// Rollback after Commit is a no-op.
	tx = begin(t, s)
	_ = tx.Set([]byte("c"), []byte("3"))
	if err := tx.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tx.Rollback()
	eq(t, "rollback after commit", snapGet(t, s, "c"), "3")
	// A rolled-back writer causes no conflicts.
	t1 := begin(t, s)
	t2 := begin(t, s)
	_ = t1.Set([]byte("a"), []byte("t1"))
	t1.Rollback()
	_ = t2.Set([]byte("a"), []byte("t2"))
	if err := t2.Commit(storage.CommitOptions{}); err != nil {
		t.Fatalf("commit after other's rollback: %v", err)
	}
}

func testCallerOwnsSlices(t *testing.T, s storage.Store) {
	k, v := []byte("key"), []byte("value")
	tx := begin(t, s)
	_ = tx.Set(k, v)
	k[0], v[0] = 'X', 'X' // mutate after Set, before Commit
	got, _ := tx.Get([]byte("key"))
	if string(got) != "value" {
		t.Fatalf("buffered value = %q after caller mutated its slices", got)
	}
	got[0] = 'Y' // mutate a returned buffered value
	if err := tx.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	eq(t, "stored", snapGet(t, s, "key"), "value")
	eq(t, "no stray key", snapGet(t, s, "Xey"), "<nil>")

	sn, _ := s.NewSnapshot()
	defer sn.Close()
	g, _ := sn.Get([]byte("key"))
	g[0] = 'Z'
	it, _ := sn.NewIterator(storage.IterOptions{})
	for it.Next() {
		it.Key()[0] = 'Q'
		it.Value()[0] = 'Q'
	}
	_ = it.Close()
	lo, hi := []byte("a"), []byte("z")
	it, _ = sn.NewIterator(storage.IterOptions{Lower: lo, Upper: hi})
	lo[0], hi[0] = 'z', 'a' // bounds are copied
	n := 0
	for it.Next() {
		n++
	}
	_ = it.Close()
	eq(t, "iteration with mutated bounds", n, 1)
	eq(t, "after mutations", get(t, sn, "key"), "value")
	eq(t, "fresh snapshot", snapScan(t, s, storage.IterOptions{}), []string{"key=value"})
}

func testLargeValues(t *testing.T, s storage.Store) {
	big := func(seed byte) []byte {
		b := make([]byte, 500<<10)
		for i := range b {
			b[i] = seed + byte(i*7)
		}
		return b
	}
	tx := begin(t, s)
	for i := byte(0); i < 4; i++ {
		_ = tx.Set([]byte{'L', i}, big(i))
	}
	if err := tx.Commit(storage.CommitOptions{Sync: true}); err != nil {
		t.Fatal(err)
	}
	sn, _ := s.NewSnapshot()
	defer sn.Close()
	for i := byte(0); i < 4; i++ {
		v, err := sn.Get([]byte{'L', i})
		if err != nil || !bytes.Equal(v, big(i)) {
			t.Fatalf("large value %d: len %d, err %v", i, len(v), err)
		}
	}
	it, _ := sn.NewIterator(storage.IterOptions{Reverse: true})
	i := byte(4)
	for it.Next() {
		i--
		if !bytes.Equal(it.Value(), big(i)) {
			t.Fatalf("iterated large value %d differs", i)
		}
	}
	_ = it.Close()
	eq(t, "iterated all", i, 0)
}

func testManyKeys(t *testing.T, s storage.Store) {
	const n, per = 20000, 1000
	for b := 0; b < n; b += per {
		tx := begin(t, s)
		for i := b; i < b+per; i++ {
			_ = tx.Set([]byte(fmt.Sprintf("key%06d", i)), []byte(fmt.Sprint(i)))
		}
		if err := tx.Commit(storage.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	sn, _ := s.NewSnapshot()
	defer sn.Close()
	for _, reverse := range []bool{false, true} {
		it, _ := sn.NewIterator(storage.IterOptions{Reverse: reverse})
		count, prev := 0, []byte(nil)
		for it.Next() {
			k := it.Key()
			if prev != nil && (bytes.Compare(prev, k) < 0) == reverse {
				t.Fatalf("order broken at %q after %q (reverse=%v)", k, prev, reverse)
			}
			prev = append(prev[:0], k...)
			count++
		}
		_ = it.Close()
		eq(t, fmt.Sprintf("count reverse=%v", reverse), count, n)
	}
	for i := 0; i < n; i += 997 {
		eq(t, "get", get(t, sn, fmt.Sprintf("key%06d", i)), fmt.Sprint(i))
	}
	got := scan(t, sn, storage.IterOptions{Lower: []byte("key012345"), Upper: []byte("key012350"), Reverse: true})
	eq(t, "window", len(got), 5)
	eq(t, "window first", got[0], "key012349=12349")
}

func testSyncCommit(t *testing.T, s storage.Store) {
	tx := begin(t, s)
	_ = tx.Set([]byte("durable"), []byte("yes"))
	if err := tx.Commit(storage.CommitOptions{Sync: true}); err != nil {
		t.Fatal(err)
	}
	eq(t, "synced", snapGet(t, s, "durable"), "yes")
}

func testClosed(t *testing.T, s storage.Store) {
	put(t, s, "a", "1", "b", "2")
	sn, _ := s.NewSnapshot()
	it, _ := sn.NewIterator(storage.IterOptions{})
	if !it.Next() {
		t.Fatal("iterator empty")
	}
	tx := begin(t, s)
	_ = tx.Set([]byte("c"), []byte("3"))
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
		t.Errorf("second Close = %v", err)
	}
	if _, err := s.NewSnapshot(); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("NewSnapshot after Close = %v, want ErrClosed", err)
	}
	if _, err := s.Begin(); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("Begin after Close = %v, want ErrClosed", err)
	}
	if _, err := sn.Get([]byte("a")); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("snapshot Get after Close = %v, want ErrClosed", err)
	}
	if it.Next() {
		t.Errorf("iterator Next after Close = true")
	}
	if !errors.Is(it.Err(), storage.ErrClosed) {
		t.Errorf("iterator Err after Close = %v, want ErrClosed", it.Err())
	}
	_ = it.Close()
	if err := tx.Commit(storage.CommitOptions{}); err == nil {
		t.Errorf("Commit after Close succeeded")
	}
	tx.Rollback()
	_ = sn.Close()
}

// testRangeReader checks storage.RangeReader, for stores that implement it:
// an iterator over the latest state is a consistent view as of its opening
// (later commits do not show), honours bounds and direction, and reports
// ErrClosed once the store closes.
func testRangeReader(t *testing.T, s storage.Store) {
	rr, ok := s.(storage.RangeReader)
	if !ok {
		t.Skip("the store does not implement storage.RangeReader")
	}
	put(t, s, "a", "1", "b", "1", "d", "1")
	eq(t, "all", scan(t, rr, storage.IterOptions{}), []string{"a=1", "b=1", "d=1"})
	eq(t, "[b,d) reverse", scan(t, rr, storage.IterOptions{Lower: []byte("b"), Upper: []byte("d"), Reverse: true}), []string{"b=1"})
	eq(t, "empty range", scan(t, rr, storage.IterOptions{Lower: []byte("c"), Upper: []byte("a")}), []string(nil))

	it, err := rr.NewIterator(storage.IterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "a", "2", "c", "2")
	del(t, s, "b")
	var got []string
	for it.Next() {
		got = append(got, string(it.Key())+"="+string(it.Value()))
	}
	eq(t, "opened before the commits", got, []string{"a=1", "b=1", "d=1"})
	_ = it.Close()
	eq(t, "opened after the commits", scan(t, rr, storage.IterOptions{}), []string{"a=2", "c=2", "d=1"})

	open, err := rr.NewIterator(storage.IterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if open.Next() || !errors.Is(open.Err(), storage.ErrClosed) {
		t.Errorf("iterator after Close: Err = %v, want ErrClosed", open.Err())
	}
	_ = open.Close()
	if _, err := rr.NewIterator(storage.IterOptions{}); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("NewIterator after Close = %v, want ErrClosed", err)
	}
}

// testLazyBegin checks storage.LazyBeginner, for stores that implement it:
// the snapshot is fixed at the first read, the conflict rule counts from
// BeginLazy (a key read with Get and committed since makes Commit fail, even
// if the snapshot shows that commit), and a transaction that never reads
// still detects write-write conflicts.
func testLazyBegin(t *testing.T, s storage.Store) {
	lb, ok := s.(storage.LazyBeginner)
	if !ok {
		t.Skip("the store does not implement storage.LazyBeginner")
	}
	lazy := func() storage.Txn {
		t.Helper()
		tx, err := lb.BeginLazy()
		if err != nil {
			t.Fatalf("BeginLazy: %v", err)
		}
		return tx
	}
	put(t, s, "a", "1", "b", "1")

	tx := lazy()
	put(t, s, "a", "2") // before the first read: may show, still conflicts
	if got := get(t, tx, "a"); got != "1" && got != "2" {
		t.Errorf("a = %s, want 1 or 2", got)
	}
	put(t, s, "b", "2") // after the first read: must not show
	eq(t, "b after the first read", get(t, tx, "b"), "1")
	eq(t, "scan after the first read", scan(t, tx, storage.IterOptions{Lower: []byte("b")}), []string{"b=1"})
	_ = tx.Set([]byte("x"), []byte("1"))
	if err := tx.Commit(storage.CommitOptions{}); !errors.Is(err, storage.ErrConflict) {
		t.Errorf("Commit after reading keys committed since BeginLazy = %v, want ErrConflict", err)
	}

	blind := lazy()
	_ = blind.Set([]byte("c"), []byte("1"))
	put(t, s, "c", "2")
	if err := blind.Commit(storage.CommitOptions{}); !errors.Is(err, storage.ErrConflict) {
		t.Errorf("blind Commit after a concurrent write of its key = %v, want ErrConflict", err)
	}
	ok2 := lazy()
	_ = ok2.Set([]byte("d"), []byte("1"))
	if err := ok2.Commit(storage.CommitOptions{Sync: true}); err != nil {
		t.Errorf("blind Commit without conflicts = %v", err)
	}
	eq(t, "latest", snapScan(t, s, storage.IterOptions{}), []string{"a=2", "b=2", "c=2", "d=1"})
}
