package vector

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/kura-db/kura/internal/vector/vecdata"
)

// sq8Index builds a graph-only SQ8 index over the clustered recipe; the
// quantiser trains after train vectors.
func sq8Index(t testing.TB, n, dim, train int, dist Distance) (*Index, *vecdata.Dataset) {
	t.Helper()
	ds := vecdata.Clustered(n, 100, dim, 50, 1)
	x := mustNew(t, Config{Dimensions: dim, Distance: dist, ExactMax: -1, Seed: 1, Quantization: QuantSQ8, QuantTrain: train})
	for i := 0; i < ds.N(); i++ {
		if err := x.Add(uint64(i), ds.Vec(i), attrsFor(i)); err != nil {
			t.Fatal(err)
		}
	}
	return x, ds
}

func TestSQ8Recall(t *testing.T) {
	x, ds := sq8Index(t, 5000, 64, 500, Cosine)
	if x.quant == nil {
		t.Fatal("quantiser not trained")
	}
	truth := vecdata.GroundTruth(ds, 10)
	r := meanRecall(t, x, ds, truth, 64)
	t.Logf("SQ8 recall@10 at ef 64: %.4f", r)
	if r < 0.95 {
		t.Fatalf("SQ8 recall@10 %.4f < 0.95", r)
	}
}

// TestSQ8ScoresExact checks that every returned score is the exact float32
// score of that ID (the exact scan computes it the same way), for each
// distance, and that results stay sorted.
func TestSQ8ScoresExact(t *testing.T) {
	for _, dist := range []Distance{Cosine, Euclidean, DotProduct} {
		x, ds := sq8Index(t, 2000, 32, 200, dist)
		for q := 0; q < 30; q++ {
			got, err := x.SearchEf(ds.Query(q), 10, 64, nil)
			if err != nil {
				t.Fatal(err)
			}
			all, _ := x.SearchExact(ds.Query(q), ds.N(), nil)
			exact := map[uint64]float32{}
			for _, r := range all {
				exact[r.ID] = r.Score
			}
			if len(got) != 10 {
				t.Fatalf("%v: %d results", dist, len(got))
			}
			for i, r := range got {
				if r.Score != exact[r.ID] {
					t.Fatalf("%v query %d rank %d: score %v, exact %v", dist, q, i, r.Score, exact[r.ID])
				}
				if i > 0 && (dist == DotProduct && r.Score > got[i-1].Score || dist != DotProduct && r.Score < got[i-1].Score) {
					t.Fatalf("%v query %d: results out of order", dist, q)
				}
			}
		}
	}
}

func TestSQ8Filtered(t *testing.T) {
	x, ds := sq8Index(t, 3000, 32, 300, Cosine)
	f := &Filter{Inline: []Attr{{"even", Bool(true)}}}
	x.cfg.FilterExactMax = -1
	for q := 0; q < 20; q++ {
		got, err := x.SearchEf(ds.Query(q), 10, 64, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 10 {
			t.Fatalf("%d results", len(got))
		}
		for _, r := range got {
			if r.ID%2 != 0 {
				t.Fatalf("id %d does not match the filter", r.ID)
			}
		}
	}
}

func TestSQ8SnapshotRoundTrip(t *testing.T) {
	x, ds := sq8Index(t, 1500, 32, 300, Euclidean)
	for i := 0; i < 100; i += 3 {
		x.Delete(uint64(i))
	}
	var buf bytes.Buffer
	if _, err := x.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	y, err := Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if y.Config() != x.Config() || y.quant == nil {
		t.Fatalf("config %+v, want %+v (quantiser %v)", y.Config(), x.Config(), y.quant != nil)
	}
	if !slices.Equal(y.quant.lo, x.quant.lo) || !slices.Equal(y.quant.step, x.quant.step) {
		t.Fatal("quantiser ranges differ after load")
	}
	for n := range x.ids {
		if !bytes.Equal(x.code(uint32(n)), y.code(uint32(n))) {
			t.Fatalf("node %d: codes differ after load", n)
		}
	}
	for q := 0; q < 20; q++ {
		a, _ := x.SearchEf(ds.Query(q), 10, 50, nil)
		b, _ := y.SearchEf(ds.Query(q), 10, 50, nil)
		if !slices.Equal(a, b) {
			t.Fatalf("query %d: %v after load, want %v", q, b, a)
		}
	}
	// Inserting after load keeps encoding with the loaded ranges.
	if err := y.Add(1<<40, ds.Vec(5), nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(y.code(y.byID[1<<40]), y.code(y.byID[5])) {
		t.Fatal("new node encoded differently from an identical vector")
	}
}

func TestSQ8UntrainedAndSwitch(t *testing.T) {
	// Below QuantTrain there is no quantiser and searches are float32.
	x, _ := sq8Index(t, 300, 16, 1000, Cosine)
	if x.quant != nil || x.codes != nil {
		t.Fatal("trained before QuantTrain vectors")
	}
	var buf bytes.Buffer
	x.WriteTo(&buf)
	y, err := Load(&buf)
	if err != nil || y.quant != nil || y.Config().Quantization != QuantSQ8 {
		t.Fatalf("untrained round trip: %v", err)
	}
	// Switching an existing float32 index on trains at once; off drops codes.
	z, _ := clustered(t, 2000, 2)
	z.cfg.QuantTrain = 500 // below the default, which 2,000 vectors do not reach
	if err := z.SetQuantization(QuantSQ8); err != nil {
		t.Fatal(err)
	}
	if z.quant == nil || len(z.codes) != len(z.vecs) {
		t.Fatal("SetQuantization(SQ8) did not train")
	}
	if err := z.SetQuantization(QuantNone); err != nil || z.quant != nil || z.codes != nil {
		t.Fatal("SetQuantization(none) kept the codes")
	}
	if z.SetQuantization(Quantization(9)) == nil {
		t.Fatal("bad quantization accepted")
	}
}

func TestSQ8CompactAndConcurrent(t *testing.T) {
	x, ds := sq8Index(t, 2000, 32, 200, Cosine)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for q := 0; q < 200; q++ {
			if _, err := x.SearchEf(ds.Query(q%ds.NQ()), 10, 32, nil); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 1200; i++ {
		x.Delete(uint64(i)) // crosses the compaction threshold
	}
	wg.Wait()
	if x.tombs != 0 && x.tombs*4 > len(x.ids) {
		t.Fatal("no compaction")
	}
	if len(x.codes) != len(x.vecs) {
		t.Fatalf("%d code chunks for %d vector chunks", len(x.codes), len(x.vecs))
	}
	for n := range x.ids {
		want := make([]uint8, x.dim)
		x.quant.encode(want, x.vec(uint32(n)))
		if !bytes.Equal(want, x.code(uint32(n))) {
			t.Fatalf("node %d: stale codes after compaction", n)
		}
	}
	got, _ := x.SearchEf(ds.Query(0), 10, 64, nil)
	for _, r := range got {
		if r.ID < 1200 {
			t.Fatalf("deleted id %d returned", r.ID)
		}
	}
}

func TestParseQuantization(t *testing.T) {
	for s, want := range map[string]Quantization{"": QuantNone, "none": QuantNone, "sq8": QuantSQ8} {
		if q, err := ParseQuantization(s); err != nil || q != want {
			t.Fatalf("%q: %v %v", s, q, err)
		}
		if s != "" && want.String() != s {
			t.Fatalf("String %q", want.String())
		}
	}
	if _, err := ParseQuantization("int8"); err == nil {
		t.Fatal("int8 accepted")
	}
}

// TestDotCodes checks the kernel (AVX2 where available) against a plain
// loop at the extreme weights and codes, for lengths around the 32-element
// blocks.
func TestDotCodes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 31, 32, 33, 64, 100, 1024, 1031, 2048} {
		bound := int(qWeightBound(n))
		for trial := 0; trial < 20; trial++ {
			k := make([]int16, n)
			c := make([]uint8, n)
			var want int64
			for i := range k {
				switch trial {
				case 0:
					k[i], c[i] = int16(bound), 255
				case 1:
					k[i], c[i] = int16(-bound), 255
				default:
					k[i], c[i] = int16(r.IntN(2*bound+1)-bound), uint8(r.IntN(256))
				}
				want += int64(k[i]) * int64(c[i])
			}
			if got := dotCodes(k, c); got != want {
				t.Fatalf("n %d trial %d: %d, want %d (avx2 %v)", n, trial, got, want, useAVX2)
			}
			if got := dotCodesGo(k, c); got != want {
				t.Fatalf("n %d trial %d: Go loop %d, want %d", n, trial, got, want)
			}
		}
	}
}

func BenchmarkDotCodes1024(b *testing.B)   { benchDotCodes(b, dotCodes) }
func BenchmarkDotCodesGo1024(b *testing.B) { benchDotCodes(b, dotCodesGo) }

// benchDotCodes times one 1,024-dimension code distance with f.
func benchDotCodes(b *testing.B, f func([]int16, []uint8) int64) {
	k := make([]int16, 1024)
	c := make([]uint8, 1024)
	for i := range k {
		k[i], c[i] = int16(i%2000)-1000, uint8(i)
	}
	var sink int64
	for b.Loop() {
		sink += f(k, c)
	}
	_ = sink
}

func BenchmarkDotF32_1024(b *testing.B) {
	x := make([]float32, 1024)
	y := make([]float32, 1024)
	for i := range x {
		x[i], y[i] = float32(i), float32(-i)
	}
	var sink float32
	for b.Loop() {
		sink += dot(x, y)
	}
	_ = sink
}

// TestFreezeWhileWriting: snapshots of frozen views taken while inserts and
// deletes run (sharing the vector chunks with them) always load.
func TestFreezeWhileWriting(t *testing.T) {
	ds := vecdata.Clustered(3000, 1, 16, 20, 4)
	x := mustNew(t, Config{Dimensions: 16, Distance: Cosine, ExactMax: -1, Seed: 4, Quantization: QuantSQ8, QuantTrain: 500})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < ds.N(); i++ {
			x.Add(uint64(i), ds.Vec(i), nil)
			if i%3 == 0 {
				x.Delete(uint64(i / 2))
			}
		}
	}()
	for loads := 0; ; loads++ {
		select {
		case <-done:
			if loads == 0 {
				t.Fatal("no snapshot taken while writing")
			}
			return
		default:
		}
		f := x.Freeze()
		var buf bytes.Buffer
		if _, err := f.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		y, err := Load(&buf)
		if err != nil {
			t.Fatalf("snapshot of %d nodes: %v", f.Len(), err)
		}
		if y.Len() > x.Len()+ds.N() {
			t.Fatal("impossible length")
		}
	}
}

// TestFrozenViewIgnoresLaterWrites: a view shares the layer-0 chunks with
// the index copy-on-write, so inserts and deletes (which rewrite existing
// nodes' rows) after Freeze must not change what the view writes: a view
// written right away and a view of the same moment written after the
// writes are byte for byte equal.
func TestFrozenViewIgnoresLaterWrites(t *testing.T) {
	ds := vecdata.Clustered(6000, 1, 16, 20, 5)
	x := mustNew(t, Config{Dimensions: 16, Distance: Euclidean, ExactMax: -1, Seed: 5})
	for i := 0; i < 3000; i++ {
		if err := x.Add(uint64(i), ds.Vec(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	var before bytes.Buffer
	if _, err := x.Freeze().WriteTo(&before); err != nil {
		t.Fatal(err)
	}
	f := x.Freeze()
	for i := 3000; i < ds.N(); i++ {
		if err := x.Add(uint64(i), ds.Vec(i), nil); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			x.Delete(uint64(i - 3000))
		}
	}
	var after bytes.Buffer
	if _, err := f.WriteTo(&after); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before.Bytes(), after.Bytes()) {
		t.Fatalf("the frozen view changed under later writes (%d vs %d bytes)", before.Len(), after.Len())
	}
	// The index itself still answers for the survivors.
	y, err := Load(&after)
	if err != nil {
		t.Fatal(err)
	}
	if y.Len() != 3000 {
		t.Fatalf("loaded view has %d vectors, want 3000", y.Len())
	}
}

// TestSnapshotReadsVersion1 rewrites a version 2 snapshot of an index
// without quantisation into the version 1 layout (no quantisation fields)
// and checks that it still loads, with the default QuantTrain.
func TestSnapshotReadsVersion1(t *testing.T) {
	x, ds := clustered(t, 600, 6)
	var buf bytes.Buffer
	if _, err := x.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	v2 := buf.Bytes()
	le := binary.LittleEndian
	const quantAt = 53 // magic, version, dims, distance, M, efC, efS, exactMax, filterExactMax, seed
	rngLen := int(le.Uint32(v2[quantAt+5+16:]))
	headEnd := quantAt + 5 + 16 + 4 + rngLen + 20
	var v1 []byte
	v1 = append(v1, v2[:quantAt]...)
	le.PutUint32(v1[8:], 1)
	v1 = append(v1, v2[quantAt+5:headEnd]...)
	v1 = le.AppendUint32(v1, crc32.Checksum(v1, crcTable))
	bodyStart := len(v1)
	body := v2[headEnd+4 : len(v2)-4]
	if body[len(body)-1] != 0 {
		t.Fatal("expected an untrained quantiser byte at the end of the body")
	}
	v1 = append(v1, body[:len(body)-1]...)
	v1 = le.AppendUint32(v1, crc32.Checksum(v1[bodyStart:], crcTable))
	y, err := Load(bytes.NewReader(v1))
	if err != nil {
		t.Fatal(err)
	}
	if y.Config() != x.Config() || y.Len() != x.Len() {
		t.Fatalf("v1 load: %+v, want %+v", y.Config(), x.Config())
	}
	a, _ := x.Search(ds.Query(0), 5, nil)
	b, _ := y.Search(ds.Query(0), 5, nil)
	if !slices.Equal(a, b) {
		t.Fatal("v1 snapshot searches differently")
	}
}

// TestSQ8GoKernelSameResults: the Go loop and the AVX2 kernel compute the
// same integers, so searches agree exactly whichever runs.
func TestSQ8GoKernelSameResults(t *testing.T) {
	x, ds := sq8Index(t, 1500, 96, 300, Cosine)
	var want [][]Result
	for q := 0; q < 20; q++ {
		r, _ := x.SearchEf(ds.Query(q), 10, 40, nil)
		want = append(want, r)
	}
	saved := useAVX2
	useAVX2 = false
	defer func() { useAVX2 = saved }()
	for q := 0; q < 20; q++ {
		r, _ := x.SearchEf(ds.Query(q), 10, 40, nil)
		if !slices.Equal(r, want[q]) {
			t.Fatalf("query %d: Go kernel %v, AVX2 %v", q, r, want[q])
		}
	}
}
