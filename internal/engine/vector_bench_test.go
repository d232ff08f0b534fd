package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/kura-db/kura/internal/storage/memory"
)

// BenchmarkVectorPut: PutItem into a table with a vector index on the
// memory store, on one server and on a node of a cluster (which also
// stages a log entry per write, package vectors' follow.go). The items'
// keys cycle over 10,000, so the index stays at that size.
func BenchmarkVectorPut(b *testing.B) {
	for _, cluster := range []bool{false, true} {
		name := "single"
		if cluster {
			name = "cluster"
		}
		b.Run(name, func(b *testing.B) {
			s := memory.New()
			defer s.Close()
			e, err := Open(s, Config{Cluster: cluster, TTLInterval: -1})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			vsCreate(b, e)
			r := rand.New(rand.NewPCG(1, 1))
			b.ResetTimer()
			for i := range b.N {
				vsWrite(b, e, r, i%10000, false)
			}
		})
	}
}
