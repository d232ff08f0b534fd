package layout

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/pitr"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/storage/storagetest"
)

// The fixture: table 1 (pk S, sk N) with GSI 1 on g (S) and vector
// index 2, backup 50 of it, table 3 deleted (no schema: its keys go),
// and the metadata keys the migration must leave alone.
var schemas = &Schemas{
	Tables:  map[uint64]*Schema{1: {Name: "t", Hash: attr.S, Indexes: map[uint32][]attr.Type{1: {attr.S}}, Vectors: map[uint32]bool{2: true}}},
	Backups: map[uint64]*Schema{50: {Name: "t", Hash: attr.S}},
}

func readSchemas(storage.Snapshot) (*Schemas, error) { return schemas, nil }

type kv = storagetest.KV

func id8(p byte, id uint64) []byte { return binary.BigEndian.AppendUint64([]byte{p}, id) }

// suffix is an item key's suffix in layout l: hash(pk) + key(pk) + key(sk).
func suffix(l Layout, pk string, sk int) []byte {
	b := append(l.Hash(attr.Value{T: attr.S, Str: pk}), attr.AppendKey(nil, attr.Value{T: attr.S, Str: pk})...)
	return attr.AppendKey(b, attr.Value{T: attr.N, Str: fmt.Sprint(sk)})
}

// keys is the fixture written in layout l, in key order.
func keys(l Layout) []kv {
	var out []kv
	add := func(k, v []byte) { out = append(out, kv{K: k, V: v}) }
	for i := range 7 {
		pk := fmt.Sprint("p", i)
		item := append(id8(PrefixItem, 1), suffix(l, pk, i)...)
		add(item, []byte("item"))
		add(append(id8(PrefixItem, 3), suffix(l, pk, i)...), []byte("gone"))
		g := attr.Value{T: attr.S, Str: fmt.Sprint("g", i%2)}
		ix := append(append(indexes.Prefix(1, 1), l.Hash(g)...), attr.AppendKey(nil, g)...)
		add(append(ix, suffix(l, pk, i)[l.HashLen:]...), []byte("entry"))
		add(append(bytes.Clone(indexes.Prefix(1, 0)), attr.AppendKey(nil, attr.Value{T: attr.S, Str: pk})...), []byte{8})
		add(append(append(indexes.Prefix(1, 2), vectors.KeyMap), item...), []byte{byte(i)})
		add(append(append(indexes.Prefix(1, 2), vectors.KeyID), byte(i)), item)
		add(append(id8(backup.PrefixItem, 50), suffix(l, pk, i)...), []byte("copy"))
		s := suffix(l, pk, i)
		add(pitr.Key(1, int64(i)), append([]byte{0, byte(len(s))}, s...))
	}
	add([]byte("c"+"t"), []byte("{}"))
	add([]byte("mnext-table-id"), []byte{0, 0, 0, 0, 0, 0, 0, 4})
	slices.SortFunc(out, func(a, b kv) int { return bytes.Compare(a.K, b.K) })
	return out
}

func load(t *testing.T, d []kv) storage.Store {
	t.Helper()
	var s storage.Store = memory.New()
	if err := Commit(s, func(txn storage.Txn) error {
		for _, p := range d {
			if err := txn.Set(p.K, p.V); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

func dump(t *testing.T, s storage.Store) []kv { return storagetest.Dump(t, s) }

// want is the migrated fixture: layout 2's keys without the deleted
// table's, and the version recorded.
func want() []kv {
	var out []kv
	for _, p := range keys(V2) {
		if !bytes.HasPrefix(p.K, id8(PrefixItem, 3)) {
			out = append(out, p)
		}
	}
	out = append(out, kv{K: VersionKey, V: []byte{V2.Version}})
	slices.SortFunc(out, func(a, b kv) int { return bytes.Compare(a.K, b.K) })
	return out
}

func same(t *testing.T, what string, got, want []kv) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d keys, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i].K, want[i].K) || !bytes.Equal(got[i].V, want[i].V) {
			t.Fatalf("%s: key %d is %x = %x, want %x = %x", what, i, got[i].K, got[i].V, want[i].K, want[i].V)
		}
	}
}

// TestMigrate: a layout-1 store is rewritten into exactly the layout-2
// store of the same data (items, index entries, collection sizes, vector
// mappings both ways, backup copies, point-in-time entries), the deleted
// table's keys dropped, the metadata untouched; a second run does nothing.
func TestMigrate(t *testing.T) {
	s := load(t, keys(V1))
	if err := Migrate(s, Options{Schemas: readSchemas}); err != nil {
		t.Fatal(err)
	}
	same(t, "migrated", dump(t, s), want())
	if err := Migrate(s, Options{Schemas: func(storage.Snapshot) (*Schemas, error) { panic("ran again") }}); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateResumes: a migration stopped before any one of its batches
// commits (both steps) is finished by the next run into the same store.
func TestMigrateResumes(t *testing.T) {
	batches := -1
	count := Options{Schemas: readSchemas, BatchKeys: 3, BatchHook: func(byte) error { batches++; return nil }}
	if err := Migrate(load(t, keys(V1)), count); err != nil {
		t.Fatal(err)
	}
	if batches < 20 {
		t.Fatalf("only %d batches", batches)
	}
	for n := 0; n <= batches; n++ {
		s := load(t, keys(V1))
		seen := 0
		crash := Options{Schemas: readSchemas, BatchKeys: 3, BatchHook: func(byte) error {
			if seen == n {
				return errors.New("killed")
			}
			seen++
			return nil
		}}
		if err := Migrate(s, crash); err == nil {
			t.Fatalf("killed before batch %d: the migration finished", n)
		}
		if err := Migrate(s, Options{Schemas: readSchemas}); err != nil {
			t.Fatal(err)
		}
		same(t, fmt.Sprintf("resumed after %d batches", n), dump(t, s), want())
	}
}

// TestVersions: an empty store gets the current version; a newer one is
// refused; a hashed key that is not its layout's fails the migration.
func TestVersions(t *testing.T) {
	var s storage.Store = memory.New()
	if err := Migrate(s, Options{}); err != nil {
		t.Fatal(err)
	}
	if v, step, err := Read(s); err != nil || v != Current.Version || step != 0 {
		t.Fatalf("empty store: layout %d, step %d, %v", v, step, err)
	}
	if err := Commit(s, func(txn storage.Txn) error { return txn.Set(VersionKey, []byte{9}) }); err != nil {
		t.Fatal(err)
	}
	err := Migrate(s, Options{})
	if want := "engine: the store's key layout 9 is newer than this Kura reads (2): run a Kura at least as new as the one that last wrote it"; err == nil || err.Error() != want {
		t.Fatalf("newer layout: %v", err)
	}
	s = load(t, keys(V2)) // no version key: taken for layout 1
	if err := Migrate(s, Options{Schemas: readSchemas}); err == nil || !bytes.Contains([]byte(err.Error()), []byte("the key's hash is not its layout's")) {
		t.Fatalf("layout-2 keys migrated as layout 1: %v", err)
	}
	if _, step, _ := Read(s); step != stepRewrite {
		t.Fatalf("step after the failed rewrite %d, want %d (resumable)", step, stepRewrite)
	}
}
