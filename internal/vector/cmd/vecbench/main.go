// Command vecbench measures the vector index on the anchors' clustered
// dataset: build throughput, recall@k against exact ground truth, and
// single-threaded one-query-at-a-time QPS for several ef values, plus heap
// memory.
//
//	go run ./internal/vector/cmd/vecbench -n 50000 -dim 1024
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/vector"
	"github.com/kura-db/kura/internal/vector/vecdata"
)

func main() {
	n := flag.Int("n", 50000, "data vectors")
	dim := flag.Int("dim", 1024, "dimensions")
	nq := flag.Int("queries", 1000, "held-out queries")
	clusters := flag.Int("clusters", 500, "Gaussian clusters")
	seed := flag.Uint64("seed", 1, "dataset seed")
	m := flag.Int("m", 16, "HNSW M")
	efc := flag.Int("efc", 200, "efConstruction")
	efs := flag.String("ef", "10,16,32,64,128,256", "comma-separated ef values for recall@10")
	ef100 := flag.String("ef100", "100,200", "comma-separated ef values for recall@100")
	exact := flag.Bool("exact", true, "also time the exact scan")
	flag.Parse()

	t0 := time.Now()
	ds := vecdata.Clustered(*n, *nq, *dim, *clusters, *seed)
	fmt.Printf("dataset: %d × %d, %d queries, %d clusters, seed %d (%.1fs)\n", *n, *dim, *nq, *clusters, *seed, time.Since(t0).Seconds())
	t0 = time.Now()
	truth := vecdata.GroundTruth(ds, 100)
	fmt.Printf("ground truth top-100: %.1fs\n", time.Since(t0).Seconds())

	base := heapInUse()
	x, err := vector.New(vector.Config{Dimensions: *dim, Distance: vector.Cosine, M: *m, EfConstruction: *efc, ExactMax: -1, Seed: 1})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	t0 = time.Now()
	for i := 0; i < ds.N(); i++ {
		if err := x.Add(uint64(i), ds.Vec(i), nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	build := time.Since(t0)
	idxHeap := heapInUse() - base
	fmt.Printf("build: M %d efConstruction %d: %.1fs, %.0f inserts/s (GOMAXPROCS %d)\n",
		*m, *efc, build.Seconds(), float64(ds.N())/build.Seconds(), runtime.GOMAXPROCS(0))
	fmt.Printf("index heap: %.1f MB (raw f32 vectors %.1f MB)\n", float64(idxHeap)/1e6, float64(ds.N()**dim*4)/1e6)

	run := func(k, ef int) {
		for i := 0; i < 50; i++ {
			x.SearchEf(ds.Query(i%ds.NQ()), k, ef, nil)
		}
		ids := make([]uint64, 0, k)
		sum := 0.0
		t := time.Now()
		for q := 0; q < ds.NQ(); q++ {
			res, _ := x.SearchEf(ds.Query(q), k, ef, nil)
			ids = ids[:0]
			for _, r := range res {
				ids = append(ids, r.ID)
			}
			sum += vecdata.Recall(ids, truth[q], k)
		}
		el := time.Since(t)
		fmt.Printf("k %3d ef %4d: recall %.4f  %7.0f QPS  (%.0f µs/query)\n",
			k, ef, sum/float64(ds.NQ()), float64(ds.NQ())/el.Seconds(), float64(el.Microseconds())/float64(ds.NQ()))
	}
	for _, ef := range ints(*efs) {
		run(10, ef)
	}
	for _, ef := range ints(*ef100) {
		run(100, ef)
	}
	if *exact {
		nx := min(100, ds.NQ())
		sum := 0.0
		t := time.Now()
		for q := 0; q < nx; q++ {
			res, _ := x.SearchExact(ds.Query(q), 10, nil)
			ids := make([]uint64, len(res))
			for i, r := range res {
				ids[i] = r.ID
			}
			sum += vecdata.Recall(ids, truth[q], 10)
		}
		el := time.Since(t)
		fmt.Printf("exact scan k 10: recall %.4f  %7.1f QPS (%d queries)\n", sum/float64(nx), float64(nx)/el.Seconds(), nx)
	}
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bad ef list:", s)
			os.Exit(2)
		}
		out = append(out, v)
	}
	return out
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
