package pitr

import (
	"bytes"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
)

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// entries lists a table's entries in key order.
func entries(t *testing.T, s storage.Store, tableID uint64) (keys, values [][]byte) {
	t.Helper()
	txn, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Rollback()
	it, err := txn.NewIterator(storage.IterOptions{Lower: Prefix(tableID), Upper: Prefix(tableID + 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for it.Next() {
		keys = append(keys, bytes.Clone(it.Key()))
		values = append(values, bytes.Clone(it.Value()))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return keys, values
}

// stage offers c to l in its own committed transaction.
func stage(t *testing.T, s storage.Store, l *Log, c change.Change) {
	t.Helper()
	txn, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Rollback()
	if err := l.Stage(txn, c); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	l.Committed(c)
}

func TestStageRecordsOnlyTablesThatRecord(t *testing.T) {
	s := memory.New()
	now := time.Unix(1000, 0)
	l := New(fixedClock{now})
	tbl := &change.Table{ID: 7}
	old := attr.Item{"pk": {T: attr.S, Str: "a"}, "v": {T: attr.N, Str: "1"}}
	c := change.Change{Table: tbl, Suffix: []byte("suffix-a"), Old: old}

	stage(t, s, l, c)
	if keys, _ := entries(t, s, 7); len(keys) != 0 {
		t.Fatalf("%d entries for a table that does not record", len(keys))
	}

	l.SetRecording(7, true)
	stage(t, s, l, c)                                                     // an update: the old image
	stage(t, s, l, change.Change{Table: tbl, Suffix: []byte("suffix-b")}) // a creation: no image
	keys, values := entries(t, s, 7)
	if len(keys) != 2 {
		t.Fatalf("%d entries, want 2", len(keys))
	}
	// Both changes happened at the same clock reading: the second one's
	// time is one nanosecond later, so the keys differ and keep the order.
	if !bytes.Equal(keys[0], Key(7, now.UnixNano())) || !bytes.Equal(keys[1], Key(7, now.UnixNano()+1)) {
		t.Fatalf("keys %x", keys)
	}
	suffix, stored, err := DecodeEntry(values[0])
	if err != nil || string(suffix) != "suffix-a" {
		t.Fatalf("first entry: %q %v", suffix, err)
	}
	if img, err := attr.DecodeItem(stored); err != nil || !attr.ItemsEqual(img, old) {
		t.Fatalf("first entry's image %v (%v), want %v", img, err, old)
	}
	suffix, stored, err = DecodeEntry(values[1])
	if err != nil || string(suffix) != "suffix-b" || stored != nil {
		t.Fatalf("second entry: %q %x %v", suffix, stored, err)
	}

	l.SetRecording(7, false)
	stage(t, s, l, c)
	if keys, _ := entries(t, s, 7); len(keys) != 2 {
		t.Fatalf("%d entries after recording stopped, want 2", len(keys))
	}
}

func TestNextIsStrictlyIncreasing(t *testing.T) {
	now := time.Unix(5, 0)
	l := New(fixedClock{now})
	a, b := l.Next(now), l.Next(now.Add(-time.Second))
	if a != now.UnixNano() || b != a+1 {
		t.Fatalf("times %d, %d", a, b)
	}
	if c := l.Next(now.Add(time.Second)); c != now.Add(time.Second).UnixNano() {
		t.Fatalf("a later clock reading gave %d", c)
	}
}

func TestDecodeEntryRefusesDamage(t *testing.T) {
	for _, v := range [][]byte{nil, {1}, {1, 9, 'x'}} {
		if _, _, err := DecodeEntry(v); err == nil {
			t.Errorf("DecodeEntry(%x) accepted", v)
		}
	}
}
