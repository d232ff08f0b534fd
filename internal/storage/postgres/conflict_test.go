package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/internal/holder"
	"github.com/kura-db/kura/internal/storage/internal/occ"
)

// twoProcesses is two stores of one fresh namespace on two connection
// pools, as two Kura processes would have them. The second bypasses the
// lease (one server per namespace is the engine's need, not the
// storage's).
func twoProcesses(t *testing.T) (a, b *Store) {
	a, err := connect(t).Store(freshNamespace(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, &Store{c: connect(t), oracle: occ.NewOracle(), prefix: a.prefix, end: a.end}
}

// TestConflictAcrossProcesses checks that the conflict rule holds between
// two connection pools (as two Kura processes would have), which share
// nothing but the database: a read key and a written key committed
// meanwhile through the other pool both fail the commit.
func TestConflictAcrossProcesses(t *testing.T) {
	a, b := twoProcesses(t)
	put(t, a, "r", "0", "w", "0")

	tx := begin(t, a)
	if _, err := tx.Get([]byte("r")); err != nil {
		t.Fatal(err)
	}
	_ = tx.Set([]byte("other"), []byte("x"))
	put(t, b, "r", "1")
	if err := tx.Commit(storage.CommitOptions{}); !errors.Is(err, storage.ErrConflict) {
		t.Errorf("commit after the other process wrote a key read = %v, want ErrConflict", err)
	}
	tx = begin(t, a)
	_ = tx.Set([]byte("w"), []byte("a"))
	put(t, b, "w", "b")
	if err := tx.Commit(storage.CommitOptions{}); !errors.Is(err, storage.ErrConflict) {
		t.Errorf("commit after the other process wrote a key written = %v, want ErrConflict", err)
	}
	if v, _ := a.Get([]byte("w")); string(v) != "b" {
		t.Errorf("w = %q, want the first committer's b", v)
	}
}

// TestConflictCreatedAndDeleted checks the case tombstones exist for: a
// key missing at the snapshot, read with Get, that another transaction
// creates and a third deletes again before the commit. The key is missing
// again, but it was written since the snapshot: the commit conflicts.
// (With rows deleted outright, the commit would find nothing and succeed.)
func TestConflictCreatedAndDeleted(t *testing.T) {
	s, err := connect(t).Store(freshNamespace(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, write := range []bool{false, true} {
		tx := begin(t, s)
		if _, err := tx.Get([]byte("k")); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("Get k = %v, want ErrNotFound", err)
		}
		if write {
			_ = tx.Delete([]byte("k"))
		}
		_ = tx.Set([]byte("flag"), []byte("x"))
		put(t, s, "k", "1")
		del(t, s, "k")
		if err := tx.Commit(storage.CommitOptions{}); !errors.Is(err, storage.ErrConflict) {
			t.Errorf("write=%v: commit after k was created and deleted = %v, want ErrConflict", write, err)
		}
	}
}

// TestTombstoneSweep checks that the sweep removes tombstones past their
// age and that readers never saw them.
func TestTombstoneSweep(t *testing.T) {
	c := connect(t)
	s, err := c.Store(freshNamespace(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put(t, s, "a", "1", "b", "2")
	del(t, s, "a")
	rows := func() int {
		var n int
		if err := c.pool.QueryRow(context.Background(), `SELECT count(*) FROM kura_kv WHERE k >= $1 AND k < $2`, s.prefix, s.end).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := rows(); n != 2 {
		t.Fatalf("%d rows after the delete, want 2 (b and a's tombstone)", n)
	}
	if _, err := c.Sweep(time.Hour); err != nil {
		t.Fatal(err)
	}
	if n := rows(); n != 2 {
		t.Errorf("%d rows after sweeping tombstones older than an hour, want 2", n)
	}
	if _, err := c.Sweep(0); err != nil {
		t.Fatal(err)
	}
	if n := rows(); n != 1 {
		t.Errorf("%d rows after sweeping every tombstone, want 1", n)
	}
	if v, err := s.Get([]byte("b")); err != nil || string(v) != "2" {
		t.Errorf("b = %q, %v", v, err)
	}
}

// TestOldTxnConflicts checks that a transaction older than maxTxnAge fails
// its commit with ErrConflict (the tombstone sweep counts on it).
func TestOldTxnConflicts(t *testing.T) {
	s, err := connect(t).Store(freshNamespace(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tx := begin(t, s)
	_ = tx.Set([]byte("k"), []byte("v"))
	real := now
	t.Cleanup(func() { now = real })
	now = func() monoTime { return monoTime{time.Now().Add(maxTxnAge + time.Second)} }
	if err := tx.Commit(storage.CommitOptions{}); !errors.Is(err, storage.ErrConflict) {
		t.Errorf("commit of a transaction older than %v = %v, want ErrConflict", maxTxnAge, err)
	}
	if _, err := s.Get([]byte("k")); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("k after the refused commit: %v, want ErrNotFound", err)
	}
}

// TestLease checks that a second store of the same namespace waits for
// the first one's lease and then fails, and that closing the first lets a
// new one open at once.
func TestLease(t *testing.T) {
	defer func(w time.Duration) { holder.Wait = w }(holder.Wait)
	holder.Wait = 300 * time.Millisecond
	ns := freshNamespace(t)
	c1, c2 := connect(t), connect(t)
	first, err := c1.Store(ns)
	if err != nil {
		t.Fatal(err)
	}
	// The lease's holder runs in this process, so it is alive.
	if _, err := c2.Store(ns); !errors.Is(err, ErrNamespaceInUse) {
		t.Fatalf("second store of a held namespace = %v, want ErrNamespaceInUse", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, err := c2.Store(ns)
	if err != nil {
		t.Fatalf("store after the holder closed: %v", err)
	}
	_ = second.Close()
}

func begin(t testing.TB, s storage.Store) storage.Txn {
	t.Helper()
	tx, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// del commits deletions of keys in one transaction.
func del(t testing.TB, s storage.Store, keys ...string) {
	t.Helper()
	tx := begin(t, s)
	for _, k := range keys {
		_ = tx.Delete([]byte(k))
	}
	if err := tx.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
}
