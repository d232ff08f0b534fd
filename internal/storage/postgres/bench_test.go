package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/storagetest"
)

func BenchmarkPostgres(b *testing.B) {
	c := connect(b)
	storagetest.Bench(b, func(b *testing.B) storage.Store {
		s, err := c.Store(freshNamespace(b))
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
}

// BenchmarkTableSize reads what GetItem and a Query page read (a point
// Get, and 25 keys from a random start through the RangeReader) in a
// namespace of 10,000 keys and in one of 1,000,000, filled by PostgreSQL
// itself (generate_series) in the key format storagetest uses: the cost
// per read should not grow with the table (index lookups and range scans,
// never a table scan).
func BenchmarkTableSize(b *testing.B) {
	c := connect(b)
	for _, n := range []int{10_000, 1_000_000} {
		s, err := c.Store(freshNamespace(b))
		if err != nil {
			b.Fatal(err)
		}
		_, err = c.pool.Exec(context.Background(), `INSERT INTO kura_kv (k, v)
			SELECT $1::bytea || convert_to(lpad(i::text, 8, '0'), 'UTF8'), decode(repeat('ab', 200), 'hex')
			FROM generate_series(0, $2::int - 1) AS i`, s.prefix, n)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.pool.Exec(context.Background(), `ANALYZE kura_kv`); err != nil {
			b.Fatal(err)
		}
		key := func(i int) []byte { return fmt.Appendf(nil, "%08d", i*7919%n) }
		b.Run(fmt.Sprintf("Get/%d", n), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := s.Get(key(i)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("Range25/%d", n), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				it, err := s.NewIterator(storage.IterOptions{Lower: key(i)})
				if err != nil {
					b.Fatal(err)
				}
				for j := 0; j < 25 && it.Next(); j++ {
				}
				if err := it.Err(); err != nil {
					b.Fatal(err)
				}
				_ = it.Close()
			}
		})
		_, _ = c.pool.Exec(context.Background(), `DELETE FROM kura_kv WHERE k >= $1 AND k < $2`, s.prefix, s.end)
		_ = s.Close()
	}
}
