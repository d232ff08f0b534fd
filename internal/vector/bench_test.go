package vector

import (
	"testing"

	"github.com/kura-db/kura/internal/vector/vecdata"
)

func benchIndex(b *testing.B, n, dim int, exactMax int) (*Index, *vecdata.Dataset) {
	ds := vecdata.Clustered(n, 200, dim, 50, 1)
	x := mustNew(b, Config{Dimensions: dim, Distance: Cosine, ExactMax: exactMax, Seed: 1})
	for i := 0; i < ds.N(); i++ {
		x.Add(uint64(i), ds.Vec(i), attrsFor(i))
	}
	return x, ds
}

func BenchmarkSearchHNSW(b *testing.B) {
	x, ds := benchIndex(b, 5000, 128, -1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		x.Search(ds.Query(i%ds.NQ()), 10, nil)
	}
}

func BenchmarkSearchExact(b *testing.B) {
	x, ds := benchIndex(b, 5000, 128, 1<<30)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		x.Search(ds.Query(i%ds.NQ()), 10, nil)
	}
}

func BenchmarkSearchFiltered(b *testing.B) {
	x, ds := benchIndex(b, 5000, 128, -1)
	f := &Filter{Inline: []Attr{{"even", Bool(true)}}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		x.Search(ds.Query(i%ds.NQ()), 10, f)
	}
}

func BenchmarkInsert(b *testing.B) {
	ds := vecdata.Clustered(4000, 1, 128, 50, 1)
	x := mustNew(b, Config{Dimensions: 128, Distance: Cosine})
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		x.Add(uint64(i), ds.Vec(i%ds.N()), nil)
	}
}
