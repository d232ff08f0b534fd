// Command vecbench measures the vector index on the anchors' clustered
// dataset: build throughput, recall@k against exact ground truth, and
// single-threaded one-query-at-a-time QPS for several ef values, plus heap
// memory.
//
//	go run ./internal/vector/cmd/vecbench -n 50000 -dim 1024
//
// With -sq8 the index traverses 8-bit codes and re-scores with float32. With
// -at N1,N2,… the build pauses at those sizes to measure recall and QPS on the
// vectors inserted so far (ground truth over that prefix), so one long build
// yields figures at several sizes; -progress N prints the insert rate every N
// vectors. Memory is reported as Go heap growth and process RSS.
//
// With -dump DIR it also writes the dataset, the queries and the exact top-100
// ground truth to DIR (data.f32, queries.f32, truth.i32, meta.json; raw
// little-endian, row-major), so another library can be measured on exactly the
// same vectors (see bench/vector).
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
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
	dump := flag.String("dump", "", "write the dataset, queries and top-100 ground truth to this directory")
	sq8 := flag.Bool("sq8", false, "SQ8 quantised traversal with float32 re-scoring")
	train := flag.Int("train", 0, "SQ8 training vectors (0: the package default)")
	at := flag.String("at", "", "comma-separated sizes at which to pause the build and measure")
	progress := flag.Int("progress", 0, "print the insert rate every this many vectors")
	thenF32 := flag.Bool("then-f32", false, "with -sq8: after the last measurement drop the codes (SetQuantization none) and measure the same graph with float32 traversal")
	freeze := flag.Bool("freeze", false, "after the build, time Freeze (the pause a periodic snapshot imposes on writers) and writing the snapshot to io.Discard")
	workers := flag.Int("workers", 1, "parallel build: insert plans computed at once (Index.AddBatch); 1 is one Add at a time")
	save := flag.String("save", "", "after the build, write the index snapshot to this file")
	load := flag.String("load", "", "instead of building, load this snapshot (written by -save over the same dataset flags); -sq8 chooses the traversal")
	truthFile := flag.String("truth", "", "cache of the full dataset's top-100 ground truth (truth.i32 layout): read if present, else written")
	flag.Parse()

	t0 := time.Now()
	ds := vecdata.Clustered(*n, *nq, *dim, *clusters, *seed)
	fmt.Printf("dataset: %d × %d, %d queries, %d clusters, seed %d (%.1fs)\n", *n, *dim, *nq, *clusters, *seed, time.Since(t0).Seconds())
	var truth [][]int
	truthN := 0 // prefix length truth was computed over
	if *dump != "" {
		truth, truthN = vecdata.GroundTruth(ds, 100), ds.N()
		if err := dumpDataset(*dump, ds, truth, *clusters, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "dump:", err)
			os.Exit(1)
		}
		fmt.Printf("dumped dataset, queries and ground truth to %s\n", *dump)
	}

	if *truthFile != "" && truth == nil {
		truth = cachedTruth(*truthFile, ds)
		truthN = ds.N()
	}
	base := heapInUse()
	rss0 := rssMB("VmRSS")
	if *load != "" {
		x := measureLoaded(*load, *sq8, ds, truth, *efs, *ef100, base)
		if *freeze {
			timeFreeze(x)
		}
		return
	}
	cfg := vector.Config{Dimensions: *dim, Distance: vector.Cosine, M: *m, EfConstruction: *efc, ExactMax: -1, Seed: 1, QuantTrain: *train}
	if *sq8 {
		cfg.Quantization = vector.QuantSQ8
	}
	x, err := vector.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("quantization: %v\n", x.Config().Quantization)
	stops := append(ints(*at), ds.N())
	var build time.Duration
	done := 0
	for _, stop := range stops {
		stop = min(stop, ds.N())
		if stop <= done {
			continue
		}
		t0 = time.Now()
		lap, lapAt := time.Now(), done
		step := 1
		if *workers > 1 {
			step = 2000 // AddBatch chunks
			if *progress > 0 {
				step = min(step, *progress)
			}
		}
		for i := done; i < stop; i += step {
			var err error
			if *workers > 1 {
				items := make([]vector.BatchItem, 0, step)
				for j := i; j < min(i+step, stop); j++ {
					items = append(items, vector.BatchItem{ID: uint64(j), Vec: ds.Vec(j)})
				}
				err = x.AddBatch(items, *workers)
			} else {
				err = x.Add(uint64(i), ds.Vec(i), nil)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if end := min(i+step, stop); *progress > 0 && (end/(*progress) > lapAt/(*progress) || end == stop) {
				fmt.Printf("  inserted %d: %.0f inserts/s over the last %d, %s\n", end,
					float64(end-lapAt)/time.Since(lap).Seconds(), end-lapAt, time.Now().UTC().Format("15:04:05"))
				lap, lapAt = time.Now(), end
			}
		}
		build += time.Since(t0)
		done = stop
		idxHeap := heapInUse() - base
		fmt.Printf("build to %d: M %d efConstruction %d: %.1fs, %.0f inserts/s (GOMAXPROCS %d, workers %d)\n",
			done, *m, *efc, build.Seconds(), float64(done)/build.Seconds(), runtime.GOMAXPROCS(0), *workers)
		fmt.Printf("index heap: %.1f MB (raw f32 vectors %.1f MB); process RSS %.0f MB (%.0f MB before the build, peak %.0f MB)\n",
			float64(idxHeap)/1e6, float64(done**dim*4)/1e6, rssMB("VmRSS"), rss0, rssMB("VmHWM"))
		if truthN != done {
			t0 = time.Now()
			prefix := &vecdata.Dataset{Dim: ds.Dim, Data: ds.Data[:done*ds.Dim], Queries: ds.Queries}
			truth, truthN = vecdata.GroundTruth(prefix, 100), done
			fmt.Printf("ground truth top-100 over %d: %.1fs\n", done, time.Since(t0).Seconds())
		}
		measure(x, ds, truth, *efs, *ef100, *exact && done == ds.N())
	}
	if *freeze {
		timeFreeze(x)
	}
	if *save != "" {
		if err := writeFile(*save, func(w *bufio.Writer) error { _, err := x.WriteTo(w); return err }); err != nil {
			fmt.Fprintln(os.Stderr, "save:", err)
			os.Exit(1)
		}
		fmt.Printf("snapshot written to %s\n", *save)
	}
	if *sq8 && *thenF32 {
		if err := x.SetQuantization(vector.QuantNone); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("same graph, codes dropped (float32 traversal): index heap %.1f MB; process RSS %.0f MB\n",
			float64(heapInUse()-base)/1e6, rssMB("VmRSS"))
		measure(x, ds, truth, *efs, *ef100, false)
	}
}

func measure(x *vector.Index, ds *vecdata.Dataset, truth [][]int, efs, ef100 string, exact bool) {
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
	for _, ef := range ints(efs) {
		run(10, ef)
	}
	for _, ef := range ints(ef100) {
		run(100, ef)
	}
	if exact {
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

// rssMB reads a memory line (VmRSS, VmHWM) of /proc/self/status in MB; 0
// where there is no /proc.
func rssMB(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb * 1024 / 1e6
		}
	}
	return 0
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// dumpDataset writes data.f32 (n × dim float32), queries.f32 (nq × dim
// float32), truth.i32 (nq × k int32, best first) and meta.json to dir.
func dumpDataset(dir string, ds *vecdata.Dataset, truth [][]int, clusters int, seed uint64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	k := 0
	if len(truth) > 0 {
		k = len(truth[0])
	}
	if err := writeF32(filepath.Join(dir, "data.f32"), ds.Data); err != nil {
		return err
	}
	if err := writeF32(filepath.Join(dir, "queries.f32"), ds.Queries); err != nil {
		return err
	}
	if err := writeTruth(filepath.Join(dir, "truth.i32"), truth); err != nil {
		return err
	}
	meta, err := json.MarshalIndent(map[string]any{
		"n": ds.N(), "queries": ds.NQ(), "dim": ds.Dim, "truth_k": k,
		"clusters": clusters, "seed": seed, "format": "little-endian, row-major",
	}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "meta.json"), append(meta, '\n'), 0o644)
}

// writeTruth writes ground truth rows (all of one length) as little-endian
// int32, row-major (truth.i32).
func writeTruth(path string, truth [][]int) error {
	return writeFile(path, func(w *bufio.Writer) error {
		var b [4]byte
		for _, row := range truth {
			if len(row) != len(truth[0]) {
				return fmt.Errorf("ground truth rows differ in length")
			}
			for _, i := range row {
				binary.LittleEndian.PutUint32(b[:], uint32(int32(i)))
				if _, err := w.Write(b[:]); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func writeF32(path string, v []float32) error {
	return writeFile(path, func(w *bufio.Writer) error {
		var b [4]byte
		for _, f := range v {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(f))
			if _, err := w.Write(b[:]); err != nil {
				return err
			}
		}
		return nil
	})
}

func writeFile(path string, fill func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fill(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// measureLoaded loads a snapshot, sets the traversal (SQ8 codes or float32)
// and measures it like a freshly built index.
func measureLoaded(path string, sq8 bool, ds *vecdata.Dataset, truth [][]int, efs, ef100 string, base uint64) *vector.Index {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	t := time.Now()
	x, err := vector.Load(bufio.NewReaderSize(f, 1<<20))
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
	q := vector.QuantNone
	if sq8 {
		q = vector.QuantSQ8
	}
	if err := x.SetQuantization(q); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c := x.Config()
	fmt.Printf("loaded %s: %d vectors, M %d efConstruction %d, traversal %v (%.1fs)\n", path, x.Len(), c.M, c.EfConstruction, c.Quantization, time.Since(t).Seconds())
	fmt.Printf("index heap: %.1f MB; process RSS %.0f MB\n", float64(heapInUse()-base)/1e6, rssMB("VmRSS"))
	if truth == nil {
		truth = vecdata.GroundTruth(ds, 100)
	}
	measure(x, ds, truth, efs, ef100, false)
	return x
}

// timeFreeze times Freeze (the pause a periodic snapshot imposes on
// writers) and writing the frozen view to io.Discard.
func timeFreeze(x *vector.Index) {
	t := time.Now()
	f := x.Freeze()
	pause := time.Since(t)
	t = time.Now()
	size, err := f.WriteTo(io.Discard)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("snapshot: Freeze (writers wait) %.1f ms; WriteTo %.1f s, %.0f MB\n",
		float64(pause.Microseconds())/1e3, time.Since(t).Seconds(), float64(size)/1e6)
}

// cachedTruth reads the top-100 ground truth from path, or computes and
// writes it there.
func cachedTruth(path string, ds *vecdata.Dataset) [][]int {
	if b, err := os.ReadFile(path); err == nil && len(b) == ds.NQ()*100*4 {
		truth := make([][]int, ds.NQ())
		for q := range truth {
			truth[q] = make([]int, 100)
			for i := range truth[q] {
				truth[q][i] = int(int32(binary.LittleEndian.Uint32(b[(q*100+i)*4:])))
			}
		}
		fmt.Printf("ground truth read from %s\n", path)
		return truth
	}
	t := time.Now()
	truth := vecdata.GroundTruth(ds, 100)
	if err := writeTruth(path, truth); err != nil {
		fmt.Fprintln(os.Stderr, "truth cache:", err)
	}
	fmt.Printf("ground truth top-100 over %d: %.1fs (cached in %s)\n", ds.N(), time.Since(t).Seconds(), path)
	return truth
}
