package storagetest

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kura-db/kura/internal/storage"
)

func expectConflict(t *testing.T, tx storage.Txn) {
	t.Helper()
	if err := tx.Commit(storage.CommitOptions{}); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("Commit = %v, want ErrConflict", err)
	}
}

func commit(t *testing.T, tx storage.Txn) {
	t.Helper()
	if err := tx.Commit(storage.CommitOptions{}); err != nil {
		t.Fatalf("Commit = %v", err)
	}
}

func testConflictWriteWrite(t *testing.T, s storage.Store) {
	put(t, s, "k", "0")
	t1, t2 := begin(t, s), begin(t, s)
	_ = t1.Set([]byte("k"), []byte("1"))
	_ = t2.Set([]byte("k"), []byte("2"))
	commit(t, t1)
	expectConflict(t, t2)
	eq(t, "first committer wins", snapGet(t, s, "k"), "1")

	// Blind delete against a committed set conflicts too.
	t1, t2 = begin(t, s), begin(t, s)
	_ = t1.Set([]byte("k"), []byte("3"))
	_ = t2.Delete([]byte("k"))
	commit(t, t1)
	expectConflict(t, t2)
	eq(t, "delete lost", snapGet(t, s, "k"), "3")

	// Inserting a new key concurrently.
	t1, t2 = begin(t, s), begin(t, s)
	_ = t1.Set([]byte("new"), []byte("1"))
	_ = t2.Set([]byte("new"), []byte("2"))
	commit(t, t1)
	expectConflict(t, t2)
}

func testConflictReadWrite(t *testing.T, s storage.Store) {
	put(t, s, "r", "0")
	// t2 reads r with Get and writes elsewhere; t1 writes r.
	t1, t2 := begin(t, s), begin(t, s)
	eq(t, "read", get(t, t2, "r"), "0")
	_ = t2.Set([]byte("other"), []byte("x"))
	_ = t1.Set([]byte("r"), []byte("1"))
	commit(t, t1)
	expectConflict(t, t2)
	eq(t, "other not written", snapGet(t, s, "other"), "<nil>")

	// Reading a missing key that another transaction then creates.
	t1, t2 = begin(t, s), begin(t, s)
	eq(t, "missing", get(t, t2, "phantom"), "<nil>")
	_ = t2.Set([]byte("flag"), []byte("x"))
	_ = t1.Set([]byte("phantom"), []byte("1"))
	commit(t, t1)
	expectConflict(t, t2)

	// Reading a key that another transaction then deletes.
	t1, t2 = begin(t, s), begin(t, s)
	eq(t, "read r", get(t, t2, "r"), "1")
	_ = t2.Set([]byte("flag"), []byte("x"))
	_ = t1.Delete([]byte("r"))
	commit(t, t1)
	expectConflict(t, t2)

	// The order of operations within the losing txn does not matter: t2
	// commits after t1 even though t2 read first.
	put(t, s, "r", "2")
	t2 = begin(t, s)
	eq(t, "read again", get(t, t2, "r"), "2")
	t1 = begin(t, s)
	_ = t1.Set([]byte("r"), []byte("3"))
	commit(t, t1)
	_ = t2.Set([]byte("r"), []byte("4"))
	expectConflict(t, t2)
	eq(t, "final", snapGet(t, s, "r"), "3")
}

func testNoConflictDisjoint(t *testing.T, s storage.Store) {
	put(t, s, "a", "0", "b", "0")
	t1, t2 := begin(t, s), begin(t, s)
	eq(t, "t1 a", get(t, t1, "a"), "0")
	eq(t, "t2 b", get(t, t2, "b"), "0")
	_ = t1.Set([]byte("a"), []byte("1"))
	_ = t2.Set([]byte("b"), []byte("2"))
	_ = t2.Set([]byte("c"), []byte("2"))
	commit(t, t1)
	commit(t, t2)
	eq(t, "both applied", snapScan(t, s, storage.IterOptions{}), []string{"a=1", "b=2", "c=2"})
}

func testNoConflictAfterCommit(t *testing.T, s storage.Store) {
	put(t, s, "k", "0")
	// A transaction that begins after another committed sees its writes and
	// does not conflict with it.
	for i := 1; i <= 5; i++ {
		tx := begin(t, s)
		eq(t, "sees previous", get(t, tx, "k"), strconv.Itoa(i-1))
		_ = tx.Set([]byte("k"), []byte(strconv.Itoa(i)))
		commit(t, tx)
	}
	// A long-running transaction on an unrelated key is unaffected by
	// commits that happened meanwhile.
	long := begin(t, s)
	eq(t, "long reads", get(t, long, "unrelated"), "<nil>")
	for i := 0; i < 10; i++ {
		put(t, s, "k", fmt.Sprint(i))
	}
	_ = long.Set([]byte("unrelated"), []byte("1"))
	commit(t, long)
}

func testReadOnlyTxn(t *testing.T, s storage.Store) {
	put(t, s, "a", "1")
	tx := begin(t, s)
	eq(t, "read", get(t, tx, "a"), "1")
	commit(t, tx)
	empty := begin(t, s)
	commit(t, empty)
}

// testAtomicConcurrentReaders has a writer move a set of keys from one
// generation to the next while readers check, in snapshots and
// transactions, that all keys always carry the same generation.
func testAtomicConcurrentReaders(t *testing.T, s storage.Store) {
	const keys, gens, readers = 20, 100, 4
	write := func(gen int) error {
		tx, err := s.Begin()
		if err != nil {
			return err
		}
		for i := 0; i < keys; i++ {
			_ = tx.Set([]byte(fmt.Sprintf("atom%02d", i)), []byte(strconv.Itoa(gen)))
		}
		return tx.Commit(storage.CommitOptions{})
	}
	if err := write(0); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, readers+1)
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for !stop.Load() {
				if err := checkGeneration(s, keys, r%2 == 0); err != nil {
					errs <- err
					return
				}
			}
		}(r)
	}
	for g := 1; g <= gens; g++ {
		if err := write(g); err != nil {
			t.Errorf("write gen %d: %v", g, err)
			break
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// checkGeneration reads all atom keys, by iteration or by Get, and reports
// whether they disagree.
func checkGeneration(s storage.Store, keys int, useTxn bool) error {
	var r storage.Reader
	if useTxn {
		tx, err := s.Begin()
		if err != nil {
			return err
		}
		defer tx.Rollback()
		r = tx
	} else {
		sn, err := s.NewSnapshot()
		if err != nil {
			return err
		}
		defer sn.Close()
		r = sn
	}
	it, err := r.NewIterator(storage.IterOptions{Lower: []byte("atom"), Upper: []byte("atom~")})
	if err != nil {
		return err
	}
	seen := map[string]int{}
	n := 0
	for it.Next() {
		seen[string(it.Value())]++
		n++
	}
	if err := it.Close(); err != nil {
		return err
	}
	if n != keys || len(seen) != 1 {
		return fmt.Errorf("iteration saw %d keys with generations %v", n, seen)
	}
	var first string
	for i := 0; i < keys; i++ {
		v, err := r.Get([]byte(fmt.Sprintf("atom%02d", i)))
		if err != nil {
			return err
		}
		if i == 0 {
			first = string(v)
		} else if string(v) != first {
			return fmt.Errorf("get saw generations %s and %s", first, v)
		}
	}
	return nil
}

// testConcurrentCounter increments one counter from 16 goroutines, each
// retrying on conflict; the result must be exact.
func testConcurrentCounter(t *testing.T, s storage.Store) {
	const workers, each = 16, 40
	put(t, s, "counter", "0")
	var conflicts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				for {
					err := increment(s, "counter", i%4 == 0)
					if err == nil {
						break
					}
					if !errors.Is(err, storage.ErrConflict) {
						errs <- err
						return
					}
					conflicts.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	eq(t, "counter", snapGet(t, s, "counter"), workers*each)
	t.Logf("%d conflicts retried", conflicts.Load())
}

// increment adds one to the decimal counter at key in one transaction.
func increment(s storage.Store, key string, sync bool) error {
	tx, err := s.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	v, err := tx.Get([]byte(key))
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return err
	}
	if err := tx.Set([]byte(key), []byte(strconv.Itoa(n+1))); err != nil {
		return err
	}
	return tx.Commit(storage.CommitOptions{Sync: sync})
}

// testConcurrentDisjoint has goroutines read-modify-write their own keys
// concurrently; disjoint transactions must never conflict.
func testConcurrentDisjoint(t *testing.T, s storage.Store) {
	const workers, each = 8, 50
	for w := 0; w < workers; w++ {
		put(t, s, fmt.Sprintf("own%d", w), "0")
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := increment(s, fmt.Sprintf("own%d", w), false); err != nil {
					errs <- fmt.Errorf("worker %d: %w", w, err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := 0; w < workers; w++ {
		eq(t, "own counter", snapGet(t, s, fmt.Sprintf("own%d", w)), each)
	}
}
