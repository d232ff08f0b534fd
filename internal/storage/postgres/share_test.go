package postgres

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// TestWriteSkewAcrossProcesses: two processes each read keys a and b
// (both 1) and, both seeing 1, set their own key to 0: the read of the
// other's key is locked shared (shareSQL), and must still make one of the
// two commits fail, so that a and b are never both 0. Each round ends
// quickly: the commits take their locks in key order whatever the mode,
// so they never deadlock (PostgreSQL would find one only after
// deadlock_timeout, a second by default).
func TestWriteSkewAcrossProcesses(t *testing.T) {
	a, b := twoProcesses(t)
	const rounds = 20
	took := make([]time.Duration, rounds)
	for round := range rounds {
		put(t, a, "a", "1", "b", "1")
		var read, done sync.WaitGroup
		read.Add(2)
		var committed atomic.Int32
		start := make(chan time.Time, 1)
		for i, s := range []storage.Store{a, b} {
			mine := []string{"a", "b"}[i]
			done.Add(1)
			go func() {
				defer done.Done()
				tx := begin(t, s)
				va, errA := tx.Get([]byte("a"))
				vb, errB := tx.Get([]byte("b"))
				read.Done()
				read.Wait()
				if i == 0 {
					start <- time.Now()
				}
				if errA != nil || errB != nil || string(va) != "1" || string(vb) != "1" {
					t.Errorf("round %d: read %q %q (%v %v)", round, va, vb, errA, errB)
					tx.Rollback()
					return
				}
				_ = tx.Set([]byte(mine), []byte("0"))
				switch err := tx.Commit(storage.CommitOptions{}); {
				case err == nil:
					committed.Add(1)
				case !errors.Is(err, storage.ErrConflict):
					t.Errorf("round %d: commit: %v", round, err)
				}
			}()
		}
		done.Wait()
		took[round] = time.Since(<-start)
		va, _ := a.Get([]byte("a"))
		vb, _ := a.Get([]byte("b"))
		if committed.Load() != 1 || string(va)+string(vb) == "00" {
			t.Fatalf("round %d: %d commits, a=%q b=%q: want one commit and one key still 1", round, committed.Load(), va, vb)
		}
	}
	slices.Sort(took)
	if median := took[rounds/2]; median >= 500*time.Millisecond {
		t.Errorf("the median round took %v after both read (sorted: %v): the commits waited for a deadlock's detection", median, took)
	}
}

// BenchmarkSharedReadKey: 16 writers, each writing a key of its own in
// transactions that all also read one key (as every item write in
// cluster mode reads its table's generation key), with that read locked
// shared (shareSQL) and, for comparison, exclusively through commitSQL as
// before. Compare ns/op of the two in the same run.
func BenchmarkSharedReadKey(b *testing.B) {
	c := connect(b)
	for _, share := range []bool{true, false} {
		b.Run(fmt.Sprintf("share=%v", share), func(b *testing.B) {
			old := shareReadLocks
			shareReadLocks = share
			defer func() { shareReadLocks = old }()
			s, err := c.Store(freshNamespace(b))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			put(b, s, "gen", "1")
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for w := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					key := fmt.Appendf(nil, "item%02d", w)
					for next.Add(1) <= int64(b.N) {
						for {
							tx, err := s.Begin()
							if err != nil {
								b.Error(err)
								return
							}
							_, _ = tx.Get([]byte("gen"))
							_, _ = tx.Get(key)
							_ = tx.Set(key, []byte("v"))
							if err := tx.Commit(storage.CommitOptions{}); err == nil {
								break
							} else if !errors.Is(err, storage.ErrConflict) {
								b.Error(err)
								return
							}
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}
