package restore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
)

// The test's layout: table items "i" id(8) suffix; a history entry
// "h" id(8) time(8) → flag(1) suffix-len(1) suffix [image].
var layout = &snapshot.Layout{
	Items: func(id uint64) ([]byte, []byte) {
		return binary.BigEndian.AppendUint64([]byte{'i'}, id), binary.BigEndian.AppendUint64([]byte{'i'}, id+1)
	},
	PrefixLen: 9,
	HistoryAfter: func(id uint64, at time.Time) ([]byte, []byte) {
		return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64([]byte{'h'}, id), uint64(at.UnixNano()+1)),
			binary.BigEndian.AppendUint64([]byte{'h'}, id+1)
	},
	DecodeHistory: func(v []byte) ([]byte, []byte, error) {
		suffix := v[2 : 2+int(v[1])]
		if v[0] == 0 {
			return suffix, nil, nil
		}
		return suffix, v[2+int(v[1]):], nil
	},
}

// table is a Target that counts its transactions and items.
type table struct {
	txns  int
	items map[string]bool
	fail  error
}

func (t *table) Write(items []attr.Item) error {
	if t.fail != nil {
		return t.fail
	}
	t.txns++
	for _, it := range items {
		t.items[it["pk"].Str] = true
	}
	return nil
}

func put(t *testing.T, s storage.Store, kv map[string][]byte) {
	t.Helper()
	txn, err := s.Begin()
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

func stored(pk string) []byte { return attr.AppendItem(nil, attr.Item{"pk": {T: attr.S, Str: pk}}) }

func awake(time.Duration) bool { return true }

// TestFromBackupChunks: every item of the range is written, Chunk items
// per transaction and the rest in a last one.
func TestFromBackupChunks(t *testing.T) {
	s := memory.New()
	kv := map[string][]byte{}
	for i := range Chunk + 10 {
		kv[fmt.Sprintf("B%05d", i)] = stored(fmt.Sprint(i))
	}
	kv["C"] = stored("outside")
	put(t, s, kv)
	r, err := snapshot.Open(s, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tb := &table{items: map[string]bool{}}
	done, err := FromBackup(r, []byte("B"), []byte("C"), tb, awake)
	if !done || err != nil || tb.txns != 2 || len(tb.items) != Chunk+10 || tb.items["outside"] {
		t.Fatalf("FromBackup: %v %v, %d txns, %d items", done, err, tb.txns, len(tb.items))
	}
}

// TestAtTimeAndStops: AtTime writes the table as it was (an item deleted
// since comes back); a closing engine stops it (false) and a failed write
// ends it with the error.
func TestAtTimeAndStops(t *testing.T) {
	s := memory.New()
	at := time.Unix(100, 0)
	item := func(suffix string) string { return string(binary.BigEndian.AppendUint64([]byte{'i'}, 1)) + suffix }
	hist := string(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64([]byte{'h'}, 1), uint64(at.UnixNano()+5)))
	put(t, s, map[string][]byte{item("a"): stored("a"), hist: append([]byte{1, 1, 'g'}, stored("gone")...)})
	r, err := snapshot.Open(s, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tb := &table{items: map[string]bool{}}
	if done, err := AtTime(r, 1, at, tb, awake); !done || err != nil || !tb.items["a"] || !tb.items["gone"] {
		t.Fatalf("AtTime: %v %v %v", done, err, tb.items)
	}
	if done, err := AtTime(r, 1, at, &table{items: map[string]bool{}}, func(time.Duration) bool { return false }); done || err != nil {
		t.Fatalf("closing: %v %v", done, err)
	}
	boom := errors.New("boom")
	if done, err := AtTime(r, 1, at, &table{fail: boom}, awake); done || err != boom {
		t.Fatalf("failed write: %v %v", done, err)
	}
}
