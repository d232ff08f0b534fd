package storagetest

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/kura-db/kura/internal/storage"
)

// Bench runs the common storage benchmarks against stores made by open:
//
//   - Get: a single-key Get from a snapshot of a 10,000-key store;
//   - CommitSync1 / CommitSync16: one Set committed with Sync, from one
//     goroutine, and from 16 at once (the ratio shows whether concurrent
//     syncing commits share fsyncs);
//   - Iterate100: a 100-key forward iteration (the figure is per scan);
//   - Overwrite25: one unsynced commit overwriting 25 neighbouring keys of
//     a 100,000-key store (a BatchWriteItem of neighbouring items).
func Bench(b *testing.B, open func(b *testing.B) storage.Store) {
	b.Run("Get", func(b *testing.B) {
		s := open(b)
		defer s.Close()
		const n = 10000
		fill(b, s, n)
		sn, err := s.NewSnapshot()
		if err != nil {
			b.Fatal(err)
		}
		defer sn.Close()
		keys := make([][]byte, 1024)
		for i := range keys {
			keys[i] = benchKey(i * 7919 % n)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := sn.Get(keys[i%len(keys)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CommitSync1", func(b *testing.B) { benchCommit(b, open, 1) })
	b.Run("CommitSync16", func(b *testing.B) { benchCommit(b, open, 16) })
	b.Run("Iterate100", func(b *testing.B) {
		s := open(b)
		defer s.Close()
		const n = 10000
		fill(b, s, n)
		sn, err := s.NewSnapshot()
		if err != nil {
			b.Fatal(err)
		}
		defer sn.Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := i * 101 % (n - 100)
			it, err := sn.NewIterator(storage.IterOptions{Lower: benchKey(start), Upper: benchKey(start + 100)})
			if err != nil {
				b.Fatal(err)
			}
			c := 0
			for it.Next() {
				c++
			}
			_ = it.Close()
			if c != 100 {
				b.Fatalf("iterated %d keys", c)
			}
		}
	})
	b.Run("Overwrite25", func(b *testing.B) {
		s := open(b)
		defer s.Close()
		const n = 100000
		fill(b, s, n)
		keys := make([][]byte, n)
		for i := range keys {
			keys[i] = benchKey(i)
		}
		value := make([]byte, 1000)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			tx, err := s.Begin()
			if err != nil {
				b.Fatal(err)
			}
			start := i * 7919 % (n - 25)
			for _, k := range keys[start : start+25] {
				_ = tx.Set(k, value)
			}
			if err := tx.Commit(storage.CommitOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func benchKey(i int) []byte { return []byte(fmt.Sprintf("bench/%08d", i)) }

// fill writes n keys with 100-byte values in batches.
func fill(b *testing.B, s storage.Store, n int) {
	value := make([]byte, 100)
	for start := 0; start < n; start += 1000 {
		tx, err := s.Begin()
		if err != nil {
			b.Fatal(err)
		}
		for i := start; i < min(n, start+1000); i++ {
			_ = tx.Set(benchKey(i), value)
		}
		if err := tx.Commit(storage.CommitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCommit commits one synced Set per op from the given number of
// goroutines (rounded to a multiple of GOMAXPROCS).
func benchCommit(b *testing.B, open func(b *testing.B) storage.Store, goroutines int) {
	s := open(b)
	defer s.Close()
	var seq atomic.Int64
	value := make([]byte, 200)
	b.SetParallelism(max(1, goroutines/runtime.GOMAXPROCS(0)))
	run := func(pb *testing.PB) {
		for pb.Next() {
			tx, err := s.Begin()
			if err != nil {
				b.Error(err)
				return
			}
			_ = tx.Set(benchKey(int(seq.Add(1))), value)
			if err := tx.Commit(storage.CommitOptions{Sync: true}); err != nil {
				b.Error(err)
				return
			}
		}
	}
	b.ResetTimer()
	if goroutines == 1 {
		for i := 0; i < b.N; i++ {
			tx, _ := s.Begin()
			_ = tx.Set(benchKey(i), value)
			if err := tx.Commit(storage.CommitOptions{Sync: true}); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	b.RunParallel(run)
}
