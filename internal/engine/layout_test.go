package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tikv/client-go/v2/testutils"
	"github.com/tikv/client-go/v2/tikv"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/catalog"
	"github.com/kura-db/kura/internal/engine/layout"
	"github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/storage/pebble"
	"github.com/kura-db/kura/internal/storage/postgres"
	"github.com/kura-db/kura/internal/storage/storagetest"
	kvstore "github.com/kura-db/kura/internal/storage/tikv"
	"github.com/kura-db/kura/internal/wire"
	sw "github.com/kura-db/kura/internal/wire/streamswire"
)

// kv is one stored key and value.
type kv = storagetest.KV

// dumpStore is every key and value of store, in key order.
func dumpStore(t *testing.T, store storage.Store) []kv { return storagetest.Dump(t, store) }

// loadStore writes d into store (empty), in batches.
func loadStore(t *testing.T, store storage.Store, d []kv) {
	t.Helper()
	for len(d) > 0 {
		n := min(len(d), 200)
		txn, err := store.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range d[:n] {
			if err := txn.Set(p.K, p.V); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.Commit(storage.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		d = d[n:]
	}
}

// sameDump reports the first difference between two dumps.
func sameDump(t *testing.T, what string, got, want []kv) {
	t.Helper()
	for i := 0; i < len(got) || i < len(want); i++ {
		switch {
		case i >= len(got):
			t.Fatalf("%s: key %q missing (%d keys, want %d)", what, want[i].K, len(got), len(want))
		case i >= len(want):
			t.Fatalf("%s: extra key %q (%d keys, want %d)", what, got[i].K, len(got), len(want))
		case !bytes.Equal(got[i].K, want[i].K):
			t.Fatalf("%s: key %d is %q, want %q", what, i, got[i].K, want[i].K)
		case !bytes.Equal(got[i].V, want[i].V):
			t.Fatalf("%s: key %q has value %x, want %x", what, got[i].K, got[i].V, want[i].V)
		}
	}
}

// downgrade rewrites store into layout 1 as Kura before layout versions
// wrote it (no version key): the test's old-layout writer.
func downgrade(t *testing.T, store storage.Store) {
	t.Helper()
	if _, err := layout.Relayout(store, layout.V2, layout.V1, 0, layout.Options{Schemas: catalog.LayoutSchemas}); err != nil {
		t.Fatal(err)
	}
	if err := layout.Commit(store, func(txn storage.Txn) error { return txn.Delete(layout.VersionKey) }); err != nil {
		t.Fatal(err)
	}
}

// oldItemKey is an item key as layout 1 wrote it (keys.go before layout
// versions, copied here so that the old writer is checked on its own).
func oldItemKey(tableID uint64, pk attr.Value) []byte {
	enc := attr.AppendKey(nil, pk)
	h := fnv.New32a()
	h.Write(enc)
	s := h.Sum32()
	b := binary.BigEndian.AppendUint16(itemPrefix(tableID), uint16(s>>16)^uint16(s))
	return append(b, enc...)
}

// layoutFixture is what the migration tests check against.
type layoutFixture struct {
	current, old []kv // the store in layout 2 and in layout 1
	sID          uint64
	beforeChange time.Time // a point-in-time before s's updates
	backupARN    string
	sNow, sThen  []string // s's keys now and at beforeChange
	sChanges     int      // s's writes (its stream records)
	sG9          int      // s's items with g = g9
}

// newLayoutFixture writes, through the engine, tables of every key type
// with a GSI, LSIs, a vector index, a stream, point-in-time entries and a
// backup, and returns the store in both layouts.
func newLayoutFixture(t *testing.T) *layoutFixture {
	t.Helper()
	f := &layoutFixture{}
	store := memory.New()
	e, err := Open(store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := ctlPPRWithGSI("s", "g", ProjectAll)
	s.StreamSpecification = &wire.StreamSpecification{StreamEnabled: cpPtr(true), StreamViewType: "NEW_AND_OLD_IMAGES"}
	if _, err := e.CreateTable(dpCtx, s); err != nil {
		t.Fatal(err)
	}
	setPITR(t, e, "s", true, 0)
	lsiTable(t, e, "n")
	dpTable(t, e, "b", "pk:B")
	// A table keyed by numbers, with a GSI whose partition is two
	// attributes (a string and a number).
	if _, err := e.CreateTable(dpCtx, &wire.CreateTableInput{
		TableName: dpStr("num"), BillingMode: BillingPayPerRequest,
		AttributeDefinitions: ixDefs("pk", "N", "sk", "N", "m1", "S", "m2", "N"),
		KeySchema:            ixKS("pk", "HASH", "sk", "RANGE"),
		GlobalSecondaryIndexes: []wire.GlobalSecondaryIndex{{IndexName: dpStr("M"), KeySchema: ixKS("m1", "HASH", "m2", "HASH", "sk", "RANGE"),
			Projection: &wire.Projection{ProjectionType: ProjectKeysOnly}}},
	}); err != nil {
		t.Fatal(err)
	}
	vsCreate(t, e)
	for i := 0; i < 40; i++ {
		k := fmt.Sprint("k", i)
		dpPut(t, e, "s", attr.Item{"pk": dpS(k), "g": dpS(fmt.Sprint("g", i%3)), "v": dpN("1")})
		f.sThen = append(f.sThen, k)
		f.sChanges++
		dpPut(t, e, "n", attr.Item{"pk": dpS(fmt.Sprint("p", i%5)), "sk": dpS(k), "l": dpS(fmt.Sprint("l", i)), "n": dpN(fmt.Sprint(i))})
		dpPut(t, e, "b", attr.Item{"pk": dpB([]byte{byte(i), 0, byte(i * 7)})})
		dpPut(t, e, "num", attr.Item{"pk": dpN(fmt.Sprint(i-20, ".5")), "sk": dpN(fmt.Sprint(-i)), "m1": dpS(fmt.Sprint("m", i%2)), "m2": dpN(fmt.Sprint(i % 3))})
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 25; i++ {
		vsWrite(t, e, r, i, false)
	}
	vsWrite(t, e, r, 3, true)
	out, err := e.CreateBackup(dpCtx, &wire.CreateBackupInput{TableName: dpStr("s"), BackupName: dpStr("bk")})
	if err != nil {
		t.Fatal(err)
	}
	f.backupARN = *out.BackupDetails.BackupArn
	waitFor(t, "backup", func() bool { b, _ := e.backup(f.backupARN); return b.Status == backupAvailable })
	time.Sleep(2 * time.Millisecond)
	f.beforeChange = time.Now()
	time.Sleep(2 * time.Millisecond)
	for i := 0; i < 40; i++ {
		k := fmt.Sprint("k", i)
		switch {
		case i%7 == 0:
			if _, err := e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("s"), Key: attr.Item{"pk": dpS(k)}}); err != nil {
				t.Fatal(err)
			}
			f.sChanges++
			continue
		case i%3 == 0:
			dpPut(t, e, "s", attr.Item{"pk": dpS(k), "g": dpS("g9"), "v": dpN("2")})
			f.sChanges++
			f.sG9++
		}
		f.sNow = append(f.sNow, k)
	}
	dpPut(t, e, "s", attr.Item{"pk": dpS("new")})
	f.sNow = append(f.sNow, "new")
	f.sChanges++
	tb, _ := e.lookupTable("s")
	f.sID = tb.ID
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	f.current = dumpStore(t, store)
	downgrade(t, store)
	f.old = dumpStore(t, store)

	// The old writer wrote layout 1: the item key old Kura computed holds
	// the item, and no key of the new layout is left.
	snap, _ := store.NewSnapshot()
	defer snap.Close()
	if _, err := snap.Get(oldItemKey(f.sID, dpS("k1"))); err != nil {
		t.Fatalf("old-layout item key: %v", err)
	}
	if _, err := snap.Get(itemKey(f.sID, dpS("k1"), attr.Value{})); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("new-layout item key left in the old layout: %v", err)
	}
	if _, err := snap.Get(layout.VersionKey); !errors.Is(err, storage.ErrNotFound) {
		t.Fatal("the old layout has a version key")
	}
	return f
}

// layoutBackend opens fresh stores of one backend; each store comes with
// a reopen that closes it and opens it again (a restart).
type layoutBackend struct {
	name string
	open func(t *testing.T) (storage.Store, func() storage.Store)
}

// reopener opens a store with open, and returns it with a restart that
// closes the store open last and opens it again.
func reopener(t *testing.T, open func() (storage.Store, error)) (storage.Store, func() storage.Store) {
	var cur storage.Store
	restart := func() storage.Store {
		if cur != nil {
			_ = cur.Close()
		}
		s, err := open()
		if err != nil {
			t.Fatal(err)
		}
		cur = s
		return s
	}
	s := restart()
	t.Cleanup(func() { _ = cur.Close() })
	return s, restart
}

func layoutBackends(outer *testing.T) []layoutBackend {
	n := 0
	var mock *kvstore.Cluster
	bs := []layoutBackend{
		{"memory", func(t *testing.T) (storage.Store, func() storage.Store) {
			s := memory.New()
			return s, func() storage.Store { return s } // nothing to restart
		}},
		{"pebble", func(t *testing.T) (storage.Store, func() storage.Store) {
			dir := filepath.Join(t.TempDir(), "db")
			return reopener(t, func() (storage.Store, error) { return pebble.Open(dir, pebble.Options{}) })
		}},
		{"tikv-mock", func(t *testing.T) (storage.Store, func() storage.Store) {
			if mock == nil {
				client, cluster, pd, err := testutils.NewMockTiKV("", nil)
				if err != nil {
					t.Fatal(err)
				}
				testutils.BootstrapWithSingleStore(cluster)
				kvs, err := tikv.NewTestTiKVStore(client, pd, nil, nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				outer.Cleanup(func() { _ = kvs.Close() })
				mock = kvstore.NewCluster(kvs)
			}
			n++
			ns := fmt.Sprintf("layout%d", n)
			return reopener(t, func() (storage.Store, error) { return mock.Store(ns) })
		}},
	}
	if url := os.Getenv("KURA_TEST_POSTGRES"); url != "" {
		c, err := postgres.Connect(url)
		if err != nil {
			outer.Fatal(err)
		}
		outer.Cleanup(func() { _ = c.Close() })
		bs = append(bs, layoutBackend{"postgres", func(t *testing.T) (storage.Store, func() storage.Store) {
			n++
			ns := fmt.Sprintf("layout-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), n)
			return reopener(t, func() (storage.Store, error) { return c.Store(ns) })
		}})
	} else if os.Getenv("KURA_REQUIRE_POSTGRES") == "1" {
		outer.Fatal("KURA_REQUIRE_POSTGRES=1 but KURA_TEST_POSTGRES is unset")
	}
	return bs
}

// TestLayoutMigration: a store written in layout 1 is migrated at Open on
// every backend: afterwards it holds exactly what the same writes make in
// layout 2, and items, indexes, vector index, backups, point-in-time
// entries and streams all read back.
func TestLayoutMigration(t *testing.T) {
	f := newLayoutFixture(t)
	for _, b := range layoutBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			store, _ := b.open(t)
			loadStore(t, store, f.old)
			if err := migrateLayout(store); err != nil {
				t.Fatal(err)
			}
			sameDump(t, "migrated", dumpStore(t, store), f.current)
			if err := migrateLayout(store); err != nil { // a second start does nothing
				t.Fatal(err)
			}
			e, err := Open(store, Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			f.checkReads(t, e, store)
		})
	}
}

// checkReads reads everything the fixture wrote through e.
func (f *layoutFixture) checkReads(t *testing.T, e *Engine, store storage.Store) {
	t.Helper()
	got := dpScanAll(t, e, wire.ScanInput{TableName: dpStr("s"), Limit: dpI32(7)})
	var want []attr.Value
	for _, k := range f.sNow {
		want = append(want, dpS(k))
	}
	if w := hashOrder(want); !slices.Equal(got, w) {
		t.Fatalf("scan of s: %q, want %q", got, w)
	}
	q, err := e.Query(dpCtx, &wire.QueryInput{TableName: dpStr("s"), IndexName: dpStr("G"), KeyConditionExpression: dpStr("g = :g"),
		ExpressionAttributeValues: attr.Item{":g": dpS("g9")}})
	if err != nil || len(q.Items) != f.sG9 {
		t.Fatalf("GSI query: %d items, %v (want %d)", len(q.Items), err, f.sG9)
	}
	q, err = e.Query(dpCtx, &wire.QueryInput{TableName: dpStr("n"), IndexName: dpStr("LN"), KeyConditionExpression: dpStr("pk = :p AND n > :n"),
		ExpressionAttributeValues: attr.Item{":p": dpS("p2"), ":n": dpN("20")}})
	if err != nil || len(q.Items) != 4 {
		t.Fatalf("LSI query: %d items, %v (want 4)", len(q.Items), err)
	}
	if it := dpGet(t, e, "b", attr.Item{"pk": dpB([]byte{5, 0, 35})}); it == nil {
		t.Fatal("binary-keyed item lost")
	}
	if it := dpGet(t, e, "num", attr.Item{"pk": dpN("-3.5"), "sk": dpN("-17")}); it == nil {
		t.Fatal("number-keyed item lost")
	}
	q, err = e.Query(dpCtx, &wire.QueryInput{TableName: dpStr("num"), IndexName: dpStr("M"), KeyConditionExpression: dpStr("m1 = :a AND m2 = :b"),
		ExpressionAttributeValues: attr.Item{":a": dpS("m1"), ":b": dpN("2")}})
	if err != nil || len(q.Items) != 6 { // i odd with i%3 == 2: 5, 11, 17, 23, 29, 35
		t.Fatalf("multi-attribute GSI query: %d items, %v (want 6)", len(q.Items), err)
	}
	vsAgrees(t, e)

	// Point-in-time entries still name their items: the table as it was
	// before the changes is the one written then.
	snap, err := e.openSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	var then []string
	_, err = snap.ItemsAt(f.sID, f.beforeChange, func(_, stored []byte) (bool, error) {
		it, err := attr.DecodeItem(stored)
		if err == nil && it["v"].Str != "1" {
			err = fmt.Errorf("item %s as of before the changes has v %s", it["pk"].Str, it["v"].Str)
		}
		then = append(then, it["pk"].Str)
		return true, err
	})
	snap.Close()
	slices.Sort(then)
	sThen := slices.Sorted(slices.Values(f.sThen))
	if err != nil || !slices.Equal(then, sThen) {
		t.Fatalf("items as of before the changes: %q, %v; want %q", then, err, sThen)
	}

	// The backup restores its 40 items.
	if _, err := e.RestoreTableFromBackup(dpCtx, &wire.RestoreTableFromBackupInput{BackupArn: &f.backupARN, TargetTableName: dpStr("r")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "restore", func() bool { tb, ok := e.lookupTable("r"); return ok && tb.Active() })
	if n := len(dpScanAll(t, e, wire.ScanInput{TableName: dpStr("r")})); n != 40 {
		t.Fatalf("restored table holds %d items, want 40", n)
	}

	// The stream still holds every change.
	if n := streamRecords(t, e, "s"); n != f.sChanges {
		t.Fatalf("stream of s holds %d records, want %d", n, f.sChanges)
	}
}

// streamRecords counts the records of table's stream.
func streamRecords(t *testing.T, e *Engine, table string) int {
	t.Helper()
	d, err := e.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: dpStr(table)})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := e.DescribeStream(dpCtx, &sw.DescribeStreamInput{StreamArn: d.Table.LatestStreamArn})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sh := range ds.StreamDescription.Shards {
		gi, err := e.GetShardIterator(dpCtx, &sw.GetShardIteratorInput{StreamArn: d.Table.LatestStreamArn, ShardId: sh.ShardId, ShardIteratorType: "TRIM_HORIZON"})
		if err != nil {
			t.Fatal(err)
		}
		for it, empty := gi.ShardIterator, 0; it != nil && empty < 2; {
			out, err := e.GetRecords(dpCtx, &sw.GetRecordsInput{ShardIterator: it})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Records) == 0 {
				empty++
			}
			n += len(out.Records)
			it = out.NextShardIterator
		}
	}
	return n
}

// hashedKeys counts the keys a migration moves: in the hashed ranges or
// staged.
func hashedKeys(d []kv) int {
	n := 0
	for _, p := range d {
		if bytes.HasPrefix(p.K, layout.Staged) {
			n++
			continue
		}
		for _, r := range layout.HashedRanges {
			if bytes.Compare(p.K, r[0]) >= 0 && bytes.Compare(p.K, r[1]) < 0 {
				n++
			}
		}
	}
	return n
}

// crashAfter is a migration of 16 keys a batch that stops before its batch
// n+1 commits, as a kill would, and counts the batches.
func crashAfter(store storage.Store, n int) (int, error) {
	batches := 0
	err := layout.Migrate(store, layout.Options{Schemas: catalog.LayoutSchemas, BatchKeys: 16, BatchHook: func(byte) error {
		if batches == n {
			return errors.New("killed")
		}
		batches++
		return nil
	}})
	return batches, err
}

// TestLayoutMigrationResumes: a migration killed before any of its batches
// commits (small batches, both phases, on every backend) leaves a store
// holding each key once, staged or not, and the next start finishes it
// into exactly the layout-2 store; so does one killed again and again.
func TestLayoutMigrationResumes(t *testing.T) {
	f := newLayoutFixture(t)
	moved := hashedKeys(f.old)

	// How many batches a whole migration commits.
	total := func() int {
		store := memory.New()
		loadStore(t, store, f.old)
		n, err := crashAfter(store, -1)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}()
	if total < 20 {
		t.Fatalf("only %d batches: the test covers too little", total)
	}
	for _, b := range layoutBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			every := 1
			if b.name != "memory" {
				every = 7
			}
			for k := 0; k < total; k++ {
				if k%every != 0 && k != total/2 && k != total/2+1 && k != total-1 {
					continue
				}
				store, restart := b.open(t)
				loadStore(t, store, f.old)
				if _, err := crashAfter(store, k); err == nil {
					t.Fatalf("crash after %d batches: the migration finished", k)
				}
				store = restart()
				if n := hashedKeys(dumpStore(t, store)); n != moved {
					t.Fatalf("crash after %d batches: %d keys to migrate, want %d", k, n, moved)
				}
				if err := migrateLayout(store); err != nil {
					t.Fatal(err)
				}
				sameDump(t, fmt.Sprintf("resumed after %d batches", k), dumpStore(t, store), f.current)
			}

			store, restart := b.open(t)
			loadStore(t, store, f.old)
			starts := 0
			for {
				_, err := crashAfter(store, 5)
				if err == nil {
					break
				}
				if starts++; starts > total {
					t.Fatalf("no progress after %d starts: %v", starts, err)
				}
				store = restart()
			}
			sameDump(t, "after repeated kills", dumpStore(t, store), f.current)
		})
	}
}

// A new store gets the current layout; one in a newer layout is refused.
func TestLayoutVersionRecorded(t *testing.T) {
	store := memory.New()
	e, err := Open(store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	if v, step, err := layout.Read(store); err != nil || v != layout.Current.Version || step != 0 {
		t.Fatalf("new store: layout %d, step %d, %v", v, step, err)
	}
	if err := layout.Commit(store, func(txn storage.Txn) error { return txn.Set(layout.VersionKey, []byte{9}) }); err != nil {
		t.Fatal(err)
	}
	_, err = Open(store, Config{})
	if want := "engine: the store's key layout 9 is newer than this Kura reads (2): run a Kura at least as new as the one that last wrote it"; err == nil || err.Error() != want {
		t.Fatalf("newer layout: %v, want %q", err, want)
	}
}

// TestLayoutMigrationClusterOnce: nodes in cluster mode that start
// together on a store of the old layout migrate it once: every node opens
// and serves the migrated store, which holds exactly the keys the same
// writes make in the current layout.
func TestLayoutMigrationClusterOnce(t *testing.T) {
	store := memory.New()
	e, err := Open(store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateTable(dpCtx, ctlPPRWithGSI("s", "g", ProjectAll)); err != nil {
		t.Fatal(err)
	}
	lsiTable(t, e, "n")
	for i := 0; i < 60; i++ {
		k := fmt.Sprint("k", i)
		dpPut(t, e, "s", attr.Item{"pk": dpS(k), "g": dpS(fmt.Sprint("g", i%3))})
		dpPut(t, e, "n", attr.Item{"pk": dpS(fmt.Sprint("p", i%5)), "sk": dpS(k), "l": dpS(k)})
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	hashed := func(d []kv) (out []kv) {
		for _, p := range d {
			for _, r := range layout.HashedRanges {
				if bytes.Compare(p.K, r[0]) >= 0 && bytes.Compare(p.K, r[1]) < 0 || bytes.HasPrefix(p.K, layout.Staged) {
					out = append(out, p)
				}
			}
		}
		return out
	}
	want := hashed(dumpStore(t, store))
	downgrade(t, store)

	defer func(o layout.Options) { layoutOptions = o }(layoutOptions)
	layoutOptions.BatchKeys = 4
	layoutOptions.BatchHook = func(byte) error { time.Sleep(time.Millisecond); return nil }
	engines := make([]*Engine, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			engines[i], errs[i] = Open(store, Config{Cluster: true, TTLInterval: -1, LeaseTTL: 300 * time.Millisecond,
				Node: lease.Node{ID: fmt.Sprint("n", i), Host: "test", PID: 1}})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
		defer engines[i].Close()
	}
	sameDump(t, "migrated by the nodes", hashed(dumpStore(t, store)), want)
	for i, e := range engines {
		if n := len(dpScanAll(t, e, wire.ScanInput{TableName: dpStr("s")})); n != 60 {
			t.Fatalf("node %d scans %d items of s, want 60", i, n)
		}
		q, err := e.Query(dpCtx, &wire.QueryInput{TableName: dpStr("s"), IndexName: dpStr("G"), KeyConditionExpression: dpStr("g = :g"),
			ExpressionAttributeValues: attr.Item{":g": dpS("g1")}})
		if err != nil || len(q.Items) != 20 {
			t.Fatalf("node %d: GSI query %d items, %v; want 20", i, len(q.Items), err)
		}
	}
}
