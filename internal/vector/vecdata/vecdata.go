// Package vecdata generates the seeded clustered datasets described in the
// vector-search anchors (Gaussian clusters around anisotropic centroids,
// L2-normalised) and computes exact ground truth for recall measurements.
// It is used by the vector package's tests and by cmd/vecbench.
package vecdata

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"gonum.org/v1/gonum/blas/blas32"
)

// Dataset is a row-major set of vectors plus held-out queries.
type Dataset struct {
	Dim     int
	Data    []float32 // n × Dim
	Queries []float32 // q × Dim
}

// N returns the number of data vectors.
func (d *Dataset) N() int { return len(d.Data) / d.Dim }

// Vec returns data vector i.
func (d *Dataset) Vec(i int) []float32 { return d.Data[i*d.Dim : (i+1)*d.Dim] }

// Query returns query i.
func (d *Dataset) Query(i int) []float32 { return d.Queries[i*d.Dim : (i+1)*d.Dim] }

// NQ returns the number of queries.
func (d *Dataset) NQ() int { return len(d.Queries) / d.Dim }

// Clustered generates n data vectors and nq queries of dimension dim from
// the anchors' recipe: `clusters` Gaussian clusters whose centroids are a
// random unit direction plus a shared offset, each with its own spread (noise
// norm 0.35–1.25 relative to the centroid), exponential cluster weights; all
// vectors L2-normalised. Queries come from the same distribution.
func Clustered(n, nq, dim, clusters int, seed uint64) *Dataset {
	rng := rand.New(rand.NewPCG(seed, seed*0x9e3779b97f4a7c15+1))
	gauss := func(v []float32) {
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
	}
	offset := make([]float32, dim)
	gauss(offset)
	unit(offset)
	scale(offset, 0.5)
	cents := make([]float32, clusters*dim)
	spread := make([]float64, clusters)
	cum := make([]float64, clusters)
	total := 0.0
	for c := 0; c < clusters; c++ {
		v := cents[c*dim : (c+1)*dim]
		gauss(v)
		unit(v)
		for i := range v {
			v[i] += offset[i]
		}
		spread[c] = 0.35 + 0.9*rng.Float64()
		total += rng.ExpFloat64()
		cum[c] = total
	}
	gen := func(dst []float32) {
		r := rng.Float64() * total
		c := sort.SearchFloat64s(cum, r)
		if c >= clusters {
			c = clusters - 1
		}
		cv := cents[c*dim : (c+1)*dim]
		gauss(dst)
		unit(dst)
		scale(dst, float32(spread[c]*norm(cv)))
		for i := range dst {
			dst[i] += cv[i]
		}
		unit(dst)
	}
	d := &Dataset{Dim: dim, Data: make([]float32, n*dim), Queries: make([]float32, nq*dim)}
	for i := 0; i < n; i++ {
		gen(d.Vec(i))
	}
	for i := 0; i < nq; i++ {
		gen(d.Query(i))
	}
	return d
}

func norm(v []float32) float64 {
	return math.Sqrt(float64(dot(v, v)))
}

func unit(v []float32) {
	if n := norm(v); n > 0 {
		scale(v, float32(1/n))
	}
}

func scale(v []float32, s float32) {
	for i := range v {
		v[i] *= s
	}
}

func dot(a, b []float32) float32 {
	return blas32.Dot(blas32.Vector{N: len(a), Inc: 1, Data: a}, blas32.Vector{N: len(b), Inc: 1, Data: b})
}

// GroundTruth returns, for each query, the indices of the k data vectors
// with the highest inner product (the exact neighbours for normalised data
// under every distance function), best first. It scans in cache-sized blocks
// on all CPUs.
func GroundTruth(d *Dataset, k int) [][]int {
	nq, n := d.NQ(), d.N()
	type hit struct {
		s float32
		i int
	}
	tops := make([][]hit, nq)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			const block = 2048
			for b := 0; b < n; b += block {
				e := min(b+block, n)
				for q := w; q < nq; q += workers {
					qv := d.Query(q)
					t := tops[q]
					for i := b; i < e; i++ {
						s := dot(qv, d.Vec(i))
						if len(t) < k {
							t = append(t, hit{s, i})
							if len(t) == k {
								sort.Slice(t, func(a, b int) bool { return t[a].s > t[b].s })
							}
							continue
						}
						if s <= t[k-1].s {
							continue
						}
						j := k - 1
						for j > 0 && t[j-1].s < s {
							t[j] = t[j-1]
							j--
						}
						t[j] = hit{s, i}
					}
					tops[q] = t
				}
			}
		}(w)
	}
	wg.Wait()
	out := make([][]int, nq)
	for q, t := range tops {
		sort.Slice(t, func(a, b int) bool { return t[a].s > t[b].s })
		out[q] = make([]int, len(t))
		for i, h := range t {
			out[q][i] = h.i
		}
	}
	return out
}

// Recall returns |got ∩ truth[:k]| / k.
func Recall(got []uint64, truth []int, k int) float64 {
	k = min(k, len(truth))
	if k == 0 {
		return 1
	}
	hit := 0
	for _, g := range got {
		for _, t := range truth[:k] {
			if uint64(t) == g {
				hit++
				break
			}
		}
	}
	return float64(hit) / float64(k)
}
