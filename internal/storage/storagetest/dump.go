package storagetest

import (
	"bytes"
	"testing"

	"github.com/kura-db/kura/internal/storage"
)

// KV is one stored key and value.
type KV struct{ K, V []byte }

// Dump is every key and value of s, in key order, through a snapshot.
func Dump(t testing.TB, s storage.Store) []KV {
	t.Helper()
	snap, err := s.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []KV
	for it.Next() {
		out = append(out, KV{bytes.Clone(it.Key()), bytes.Clone(it.Value())})
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
