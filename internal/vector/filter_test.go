package vector

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/kura-db/kura/internal/vector/vecdata"
)

// attrsFor gives node i partition "p<i%100>" (1% each), colour i%100 == 7
// (1%), and parity (50%).
func attrsFor(i int) *Attrs {
	a := &Attrs{Partition: "p" + strconv.Itoa(i%100), HasPartition: true,
		Inline: []Attr{{"even", Bool(i%2 == 0)}, {"n", Number(strconv.Itoa(i % 10))}}}
	if i%100 == 7 {
		a.Inline = append(a.Inline, Attr{"color", String("red")})
	}
	return a
}

func filtered(t *testing.T) (*Index, *vecdata.Dataset, [][]float32) {
	ds := vecdata.Clustered(5000, 50, 64, 50, 11)
	x := mustNew(t, Config{Dimensions: 64, Distance: Cosine, ExactMax: -1, Seed: 11})
	data := make([][]float32, ds.N())
	for i := range data {
		data[i] = ds.Vec(i)
		if err := x.Add(uint64(i), data[i], attrsFor(i)); err != nil {
			t.Fatal(err)
		}
	}
	return x, ds, data
}

func TestFilters(t *testing.T) {
	x, ds, data := filtered(t)
	cases := []struct {
		f    Filter
		keep func(i int) bool
	}{
		{Filter{Partition: "p3", HasPartition: true}, func(i int) bool { return i%100 == 3 }},
		{Filter{Inline: []Attr{{"color", String("red")}}}, func(i int) bool { return i%100 == 7 }},
		{Filter{Inline: []Attr{{"even", Bool(true)}, {"n", Number("4")}}}, func(i int) bool { return i%10 == 4 }},
		{Filter{Partition: "p8", HasPartition: true, Inline: []Attr{{"even", Bool(true)}}}, func(i int) bool { return i%100 == 8 }},
	}
	for ci, c := range cases {
		for q := 0; q < ds.NQ(); q++ {
			got, err := x.Search(ds.Query(q), 10, &c.f)
			if err != nil {
				t.Fatal(err)
			}
			want := oracle(Cosine, data, ds.Query(q), 10, c.keep)
			if len(got) != 10 {
				t.Fatalf("case %d: %d results", ci, len(got))
			}
			for i := range want {
				if !c.keep(int(got[i].ID)) {
					t.Fatalf("case %d: id %d does not match", ci, got[i].ID)
				}
				if got[i].ID != want[i].ID {
					t.Fatalf("case %d query %d rank %d: got %d want %d", ci, q, i, got[i].ID, want[i].ID)
				}
			}
		}
	}
	// Conditions that match nothing.
	for _, f := range []Filter{
		{Partition: "nope", HasPartition: true},
		{Inline: []Attr{{"color", String("blue")}}},
		{Inline: []Attr{{"color", String("red")}, {"n", Number("3")}}},
	} {
		got, err := x.Search(ds.Query(0), 10, &f)
		if err != nil || len(got) != 0 {
			t.Fatalf("filter %+v: %v %v", f, got, err)
		}
	}
}

// TestFilteredGraphSearch drives the in-traversal filter directly with a 1%
// filter: it must still return k matching results with high recall.
func TestFilteredGraphSearch(t *testing.T) {
	x, ds, data := filtered(t)
	f := &Filter{Inline: []Attr{{"color", String("red")}}}
	sum := 0.0
	for q := 0; q < ds.NQ(); q++ {
		s := new(searcher)
		s.q, s.qsq = x.prepare(nil, ds.Query(q))
		req, ok := x.attrs.resolve(f, nil)
		if !ok {
			t.Fatal("resolve")
		}
		hits := x.graphSearch(s, 10, 64, req)
		if len(hits) != 10 {
			t.Fatalf("%d hits", len(hits))
		}
		want := oracle(Cosine, data, ds.Query(q), 10, func(i int) bool { return i%100 == 7 })
		for _, h := range hits {
			if x.ids[h.n]%100 != 7 {
				t.Fatalf("non-matching id %d", x.ids[h.n])
			}
			for _, w := range want {
				if w.ID == x.ids[h.n] {
					sum++
				}
			}
		}
	}
	if r := sum / float64(10*ds.NQ()); r < 0.9 {
		t.Fatalf("filtered recall %.3f", r)
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	x, ds, _ := filtered(t)
	for i := 0; i < 5000; i += 10 {
		x.Delete(uint64(i)) // tombstones survive the snapshot
	}
	var buf bytes.Buffer
	n, err := x.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo: %d %v (buffer %d)", n, err, buf.Len())
	}
	snap := bytes.Clone(buf.Bytes())
	y, err := Load(bytes.NewReader(snap))
	if err != nil {
		t.Fatal(err)
	}
	if y.Len() != x.Len() || y.Config() != x.Config() {
		t.Fatalf("Len %d/%d config %+v/%+v", y.Len(), x.Len(), y.Config(), x.Config())
	}
	f := &Filter{Partition: "p3", HasPartition: true}
	for q := 0; q < ds.NQ(); q++ {
		for _, filt := range []*Filter{nil, f} {
			a, _ := x.Search(ds.Query(q), 10, filt)
			b, _ := y.Search(ds.Query(q), 10, filt)
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("query %d: %v vs %v", q, a, b)
			}
		}
	}
	// Both continue identically (RNG state is part of the snapshot).
	v := ds.Query(1)
	x.Add(99999, v, attrsFor(3))
	y.Add(99999, v, attrsFor(3))
	var b1, b2 bytes.Buffer
	x.WriteTo(&b1)
	y.WriteTo(&b2)
	if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
		t.Fatal("snapshots diverge after identical inserts")
	}
	// Euclidean recomputes norms on load.
	e := mustNew(t, Config{Dimensions: 3, Distance: Euclidean})
	e.Add(1, []float32{1, 2, 3}, nil)
	e.Add(2, []float32{4, 5, 6}, nil)
	buf.Reset()
	e.WriteTo(&buf)
	e2, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := e2.Search([]float32{4, 5, 7}, 2, nil)
	if r[0].ID != 2 || r[0].Score != 1 {
		t.Fatalf("euclidean after load: %v", r)
	}
}

func TestSnapshotCorrupt(t *testing.T) {
	x := mustNew(t, Config{Dimensions: 8, Distance: DotProduct, ExactMax: -1})
	for i, v := range randVecs(300, 8, 4) {
		x.Add(uint64(i), v, attrsFor(i))
	}
	var buf bytes.Buffer
	x.WriteTo(&buf)
	snap := buf.Bytes()
	for _, cut := range []int{0, 1, 8, 20, len(snap) / 2, len(snap) - 1} {
		if _, err := Load(bytes.NewReader(snap[:cut])); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated at %d: %v", cut, err)
		}
	}
	for pos := 0; pos < len(snap); pos += max(1, len(snap)/300) {
		bad := bytes.Clone(snap)
		bad[pos] ^= 0x5a
		if _, err := Load(bytes.NewReader(bad)); err == nil {
			t.Fatalf("flip at %d accepted", pos)
		}
	}
	var y Index
	if _, err := y.ReadFrom(bytes.NewReader(snap)); err != nil || y.Len() != 300 {
		t.Fatalf("zero Index ReadFrom: %v", err)
	}
}

func TestConcurrentSearchInsert(t *testing.T) {
	data := randVecs(600, 16, 9)
	x := mustNew(t, Config{Dimensions: 16, Distance: Euclidean, ExactMax: 100, EfConstruction: 32})
	for i := 0; i < 100; i++ {
		x.Add(uint64(i), data[i], attrsFor(i))
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var f *Filter
				if i%3 == 0 {
					f = &Filter{Inline: []Attr{{"even", Bool(true)}}}
				}
				if _, err := x.Search(data[(i*7+g)%len(data)], 5, f); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	for i := 100; i < len(data); i++ {
		x.Add(uint64(i), data[i], attrsFor(i))
		if i%5 == 0 {
			x.Delete(uint64(i - 50))
		}
	}
	close(stop)
	wg.Wait()
	if x.Len() != len(data)-100 {
		t.Fatalf("Len %d", x.Len())
	}
}
