package vector

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/kura-db/kura/internal/vector/vecdata"
)

// oracle computes the exact best-k (ID = row index) by the DynamoDB score.
func oracle(dist Distance, data [][]float32, q []float32, k int, keep func(i int) bool) []Result {
	var all []Result
	for i, v := range data {
		if keep != nil && !keep(i) {
			continue
		}
		var s float64
		switch dist {
		case Cosine:
			var d, nq, nv float64
			for j := range v {
				d += float64(q[j]) * float64(v[j])
				nq += float64(q[j]) * float64(q[j])
				nv += float64(v[j]) * float64(v[j])
			}
			s = 1 - d/math.Sqrt(nq*nv)
		case Euclidean:
			s = math.Sqrt(l2sq(q, v))
		case DotProduct:
			for j := range v {
				s += float64(q[j]) * float64(v[j])
			}
		}
		all = append(all, Result{uint64(i), float32(s)})
	}
	sort.SliceStable(all, func(a, b int) bool {
		if dist == DotProduct {
			return all[a].Score > all[b].Score
		}
		return all[a].Score < all[b].Score
	})
	return all[:min(k, len(all))]
}

func randVecs(n, dim int, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([][]float32, n)
	for i := range out {
		out[i] = make([]float32, dim)
		for j := range out[i] {
			out[i][j] = float32(r.NormFloat64()) * 3
		}
	}
	return out
}

func mustNew(t testing.TB, cfg Config) *Index {
	t.Helper()
	x, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestScoresMatchOracle(t *testing.T) {
	data := randVecs(400, 24, 1)
	queries := randVecs(20, 24, 2)
	for _, dist := range []Distance{Cosine, Euclidean, DotProduct} {
		for _, exact := range []bool{true, false} {
			cfg := Config{Dimensions: 24, Distance: dist, Seed: 1}
			if !exact {
				cfg.ExactMax = -1
			}
			x := mustNew(t, cfg)
			for i, v := range data {
				if err := x.Add(uint64(i), v, nil); err != nil {
					t.Fatal(err)
				}
			}
			for _, q := range queries {
				got, err := x.SearchEf(q, 10, 400, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := oracle(dist, data, q, 10, nil)
				if len(got) != len(want) {
					t.Fatalf("%v: %d results, want %d", dist, len(got), len(want))
				}
				for i := range want {
					tol := 1e-4 * max(1, math.Abs(float64(want[i].Score)))
					if math.Abs(float64(got[i].Score-want[i].Score)) > tol {
						t.Fatalf("%v exact=%v rank %d: score %v, want %v", dist, exact, i, got[i].Score, want[i].Score)
					}
					if got[i].ID != want[i].ID && math.Abs(float64(got[i].Score-want[i].Score)) > 1e-6 {
						t.Fatalf("%v exact=%v rank %d: id %d, want %d", dist, exact, i, got[i].ID, want[i].ID)
					}
				}
			}
		}
	}
}

func TestValidation(t *testing.T) {
	if _, err := New(Config{Dimensions: 0, Distance: Cosine}); err == nil {
		t.Fatal("zero dimensions accepted")
	}
	if _, err := New(Config{Dimensions: 4}); err == nil {
		t.Fatal("missing distance accepted")
	}
	x := mustNew(t, Config{Dimensions: 4, Distance: Euclidean})
	if err := x.Add(1, []float32{1, 2, 3}, nil); err == nil {
		t.Fatal("short vector accepted")
	}
	if err := x.Add(1, []float32{1, 2, 3, float32(math.NaN())}, nil); err == nil {
		t.Fatal("NaN accepted")
	}
	if res, err := x.Search([]float32{1, 2, 3, 4}, 5, nil); err != nil || len(res) != 0 {
		t.Fatalf("empty index: %v %v", res, err)
	}
	if d, err := ParseDistance("DOT_PRODUCT"); err != nil || d != DotProduct || d.String() != "DOT_PRODUCT" {
		t.Fatal("ParseDistance")
	}
}

// clustered builds a graph-only index over the anchors' recipe at small size.
func clustered(t testing.TB, n int, seed uint64) (*Index, *vecdata.Dataset) {
	t.Helper()
	ds := vecdata.Clustered(n, 100, 64, 50, seed)
	x := mustNew(t, Config{Dimensions: 64, Distance: Cosine, ExactMax: -1, Seed: seed})
	for i := 0; i < ds.N(); i++ {
		if err := x.Add(uint64(i), ds.Vec(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	return x, ds
}

func meanRecall(t testing.TB, x *Index, ds *vecdata.Dataset, truth [][]int, ef int) float64 {
	t.Helper()
	sum := 0.0
	for q := 0; q < ds.NQ(); q++ {
		res, err := x.SearchEf(ds.Query(q), 10, ef, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]uint64, len(res))
		for i, r := range res {
			ids[i] = r.ID
		}
		sum += vecdata.Recall(ids, truth[q], 10)
	}
	return sum / float64(ds.NQ())
}

func TestRecallClustered(t *testing.T) {
	x, ds := clustered(t, 5000, 1)
	truth := vecdata.GroundTruth(ds, 10)
	r := meanRecall(t, x, ds, truth, x.Config().EfSearch)
	t.Logf("recall@10 at ef %d: %.4f", x.Config().EfSearch, r)
	if r < 0.95 {
		t.Fatalf("recall@10 %.4f < 0.95", r)
	}
}

func TestDeterministic(t *testing.T) {
	a, ds := clustered(t, 1500, 3)
	b, _ := clustered(t, 1500, 3)
	for q := 0; q < ds.NQ(); q++ {
		ra, _ := a.SearchEf(ds.Query(q), 10, 20, nil)
		rb, _ := b.SearchEf(ds.Query(q), 10, 20, nil)
		for i := range ra {
			if ra[i] != rb[i] {
				t.Fatalf("query %d differs: %v vs %v", q, ra, rb)
			}
		}
	}
}

func TestDeleteUpdate(t *testing.T) {
	x, ds := clustered(t, 2000, 5)
	data := make([][]float32, ds.N())
	for i := range data {
		data[i] = ds.Vec(i)
	}
	gone := map[int]bool{}
	for i := 0; i < 2000; i += 3 { // a third: triggers compaction
		if !x.Delete(uint64(i)) {
			t.Fatalf("delete %d failed", i)
		}
		gone[i] = true
	}
	if x.Delete(0) {
		t.Fatal("second delete succeeded")
	}
	if x.Len() != 2000-len(gone) {
		t.Fatalf("Len %d", x.Len())
	}
	if x.tombs != 0 && x.tombs*4 > len(x.ids) {
		t.Fatalf("no compaction: %d tombstones of %d", x.tombs, len(x.ids))
	}
	sum := 0.0
	for q := 0; q < ds.NQ(); q++ {
		res, _ := x.Search(ds.Query(q), 10, nil)
		want := oracle(Cosine, data, ds.Query(q), 10, func(i int) bool { return !gone[i] })
		hit := 0
		for _, r := range res {
			if gone[int(r.ID)] {
				t.Fatalf("deleted id %d returned", r.ID)
			}
			for _, w := range want {
				if w.ID == r.ID {
					hit++
				}
			}
		}
		sum += float64(hit) / 10
	}
	if r := sum / float64(ds.NQ()); r < 0.95 {
		t.Fatalf("recall after deletes %.3f", r)
	}
	// Update: move id 1 onto query 0; it must become the top hit.
	q := ds.Query(0)
	if err := x.Update(1, q, nil); err != nil {
		t.Fatal(err)
	}
	res, _ := x.Search(q, 3, nil)
	if res[0].ID != 1 || res[0].Score > 1e-5 {
		t.Fatalf("after update: %v", res)
	}
	if x.Len() != 2000-len(gone) {
		t.Fatalf("Len after update %d", x.Len())
	}
	// Delete everything, then reuse.
	for i := 0; i < 2000; i++ {
		x.Delete(uint64(i))
	}
	if x.Len() != 0 {
		t.Fatalf("Len %d", x.Len())
	}
	if res, _ := x.Search(q, 3, nil); len(res) != 0 {
		t.Fatalf("empty index returned %v", res)
	}
	x.Add(7, q, nil)
	if res, _ := x.Search(q, 3, nil); len(res) != 1 || res[0].ID != 7 {
		t.Fatalf("after re-add %v", res)
	}
}

// TestNormalizeExtremes: a tiny vector keeps its direction (its float32
// sum of squares would underflow, and DynamoDB scores it as a direction,
// not as a zero vector), a huge one too (the sum would overflow), and a
// zero vector stays zero.
func TestNormalizeExtremes(t *testing.T) {
	for _, c := range []struct{ in, want []float32 }{
		{[]float32{1e-23, 0}, []float32{1, 0}},
		{[]float32{3e38, 3e38}, []float32{float32(math.Sqrt2 / 2), float32(math.Sqrt2 / 2)}},
		{[]float32{0, 0}, []float32{0, 0}},
		{[]float32{3, 4}, []float32{0.6, 0.8}},
	} {
		v := slices.Clone(c.in)
		normalize(v)
		for i := range v {
			if math.Abs(float64(v[i]-c.want[i])) > 1e-6 {
				t.Errorf("normalize(%v) = %v, want %v", c.in, v, c.want)
				break
			}
		}
	}
}
