package snapshot_test

import (
	"encoding/binary"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
)

// The test's layout: items "i" id(1) suffix → stored; history
// "h" id(1) time(8) → flag(1) suffix-len(1) suffix [image].
var layout = &snapshot.Layout{
	Items:     func(id uint64) ([]byte, []byte) { return []byte{'i', byte(id)}, []byte{'i', byte(id + 1)} },
	PrefixLen: 2,
	HistoryAfter: func(id uint64, at time.Time) ([]byte, []byte) {
		return histKey(id, at.UnixNano()+1), []byte{'h', byte(id + 1)}
	},
	DecodeHistory: func(v []byte) ([]byte, []byte, error) {
		if len(v) < 2 || len(v) < 2+int(v[1]) {
			return nil, nil, errors.New("short entry")
		}
		suffix, rest := v[2:2+int(v[1])], v[2+int(v[1]):]
		if v[0] == 0 {
			return suffix, nil, nil
		}
		return suffix, rest, nil
	},
}

func histKey(id uint64, at int64) []byte {
	return binary.BigEndian.AppendUint64([]byte{'h', byte(id)}, uint64(at))
}

func histEntry(suffix string, old *string) []byte {
	v := []byte{0, byte(len(suffix))}
	v = append(v, suffix...)
	if old != nil {
		v[0] = 1
		v = append(v, *old...)
	}
	return v
}

func ptr(s string) *string { return &s }

func write(t *testing.T, s storage.Store, kv map[string][]byte) {
	t.Helper()
	txn, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range kv {
		var err error
		if v == nil {
			err = txn.Delete([]byte(k))
		} else {
			err = txn.Set([]byte(k), v)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
}

func collect(t *testing.T, walk func(snapshot.Visit) (bool, error)) map[string]string {
	t.Helper()
	got := map[string]string{}
	ok, err := walk(func(suffix, stored []byte) (bool, error) {
		got[string(suffix)] = string(stored)
		return true, nil
	})
	if !ok || err != nil {
		t.Fatalf("walk: %v %v", ok, err)
	}
	return got
}

func item(id byte, suffix string) string { return string([]byte{'i', id}) + suffix }

// TestItemsSnapshotHolds: Items sees the table as the snapshot holds it,
// not later writes, and only that table's items.
func TestItemsSnapshotHolds(t *testing.T) {
	s := memory.New()
	write(t, s, map[string][]byte{item(1, "a"): []byte("A"), item(1, "b"): []byte("B"), item(2, "z"): []byte("Z")})
	r, err := snapshot.Open(s, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	write(t, s, map[string][]byte{item(1, "a"): nil, item(1, "c"): []byte("C")})
	got := collect(t, func(v snapshot.Visit) (bool, error) { return r.Items(1, v) })
	if want := map[string]string{"a": "A", "b": "B"}; !maps.Equal(got, want) {
		t.Fatalf("Items = %v, want %v", got, want)
	}
}

// TestItemsAt: an item changed after `at` is as its first change after
// `at` found it, one created after is left out, one deleted after comes
// back; changes up to `at` are kept.
func TestItemsAt(t *testing.T) {
	s := memory.New()
	at := time.Unix(100, 0)
	ns := at.UnixNano()
	write(t, s, map[string][]byte{
		item(1, "kept"):    []byte("K"),
		item(1, "changed"): []byte("C3"),
		item(1, "new"):     []byte("N"),
		item(1, "early"):   []byte("E2"),
		// history: "early" changed at `at` exactly (not after); "changed"
		// twice after; "new" created after; "gone" deleted after.
		string(histKey(1, ns)):   histEntry("early", ptr("E1")),
		string(histKey(1, ns+1)): histEntry("changed", ptr("C1")),
		string(histKey(1, ns+2)): histEntry("changed", ptr("C2")),
		string(histKey(1, ns+3)): histEntry("new", nil),
		string(histKey(1, ns+4)): histEntry("gone", ptr("G")),
		string(histKey(2, ns+5)): histEntry("kept", nil), // another table's
	})
	r, err := snapshot.Open(s, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := collect(t, func(v snapshot.Visit) (bool, error) { return r.ItemsAt(1, at, v) })
	want := map[string]string{"kept": "K", "changed": "C1", "early": "E2", "gone": "G"}
	if !maps.Equal(got, want) {
		t.Fatalf("ItemsAt = %v, want %v", got, want)
	}
}

// TestWalkStops: a Visit that says stop ends the walk with false, and an
// error ends it with the error.
func TestWalkStops(t *testing.T) {
	s := memory.New()
	write(t, s, map[string][]byte{item(1, "a"): []byte("A"), item(1, "b"): []byte("B"), item(1, "c"): []byte("C")})
	r, err := snapshot.Open(s, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var seen []string
	ok, err := r.Items(1, func(suffix, _ []byte) (bool, error) {
		seen = append(seen, string(suffix))
		return len(seen) < 2, nil
	})
	if ok || err != nil || !slices.Equal(seen, []string{"a", "b"}) {
		t.Fatalf("stopped walk: %v %v %v", ok, err, seen)
	}
	boom := errors.New("boom")
	if ok, err := r.ItemsAt(1, time.Unix(0, 0), func(_, _ []byte) (bool, error) { return false, boom }); ok || err != boom {
		t.Fatalf("failing walk: %v %v", ok, err)
	}
	write(t, s, map[string][]byte{string(histKey(1, 5)): {9}})
	r2, err := snapshot.Open(s, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if ok, err := r2.ItemsAt(1, time.Unix(0, 0), func(_, _ []byte) (bool, error) { return true, nil }); ok || err == nil {
		t.Fatalf("corrupt history: %v %v", ok, err)
	}
}

// TestRange: Range walks any key range of the snapshot in key order.
func TestRange(t *testing.T) {
	s := memory.New()
	write(t, s, map[string][]byte{"b1": []byte("x"), "b2": []byte("y"), "c": []byte("z")})
	r, err := snapshot.Open(s, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var keys []string
	ok, err := r.Range([]byte("b"), []byte("c"), func(k, _ []byte) (bool, error) {
		keys = append(keys, string(k))
		return true, nil
	})
	if !ok || err != nil || !slices.Equal(keys, []string{"b1", "b2"}) {
		t.Fatalf("Range: %v %v %v", ok, err, keys)
	}
}

// TestItemsFrom: a walk resumed from a suffix sees that item and the
// table's later ones only, and ItemKey names an item's storage key.
func TestItemsFrom(t *testing.T) {
	s := memory.New()
	write(t, s, map[string][]byte{item(1, "a"): []byte("A"), item(1, "b"): []byte("B"), item(1, "c"): []byte("C"), item(2, "d"): []byte("D")})
	r, err := snapshot.Open(s, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := collect(t, func(v snapshot.Visit) (bool, error) { return r.ItemsFrom(1, []byte("b"), v) })
	if want := map[string]string{"b": "B", "c": "C"}; !maps.Equal(got, want) {
		t.Fatalf("ItemsFrom(b) = %v, want %v", got, want)
	}
	got = collect(t, func(v snapshot.Visit) (bool, error) { return r.ItemsFrom(1, nil, v) })
	if len(got) != 3 {
		t.Fatalf("ItemsFrom(nil) = %v, want the table's 3 items", got)
	}
	if k := r.ItemKey(1, []byte("b")); string(k) != item(1, "b") {
		t.Fatalf("ItemKey = %q, want %q", k, item(1, "b"))
	}
}
