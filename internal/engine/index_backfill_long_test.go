package engine

import (
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/batch"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/storage/pebble"
	"github.com/kura-db/kura/internal/wire"
)

// TestLongBackfillDoesNotBlock loads KURA_LONG_ITEMS (default 1,000,000)
// small items through the engine, adds a GSI with UpdateTable and, while
// the backfill runs, measures GetItem/PutItem latencies from a few paced
// goroutines, against a baseline measured before. It checks that the
// backfill completes and that the index then equals what a table scan
// says it must hold. Heavy: it runs only with KURA_LONG=1.
//
//	KURA_LONG=1 go test ./internal/engine -run TestLongBackfillDoesNotBlock -v -timeout 60m
//
// KURA_LONG_BACKEND=memory uses the memory store instead of pebble.
func TestLongBackfillDoesNotBlock(t *testing.T) {
	if os.Getenv("KURA_LONG") != "1" {
		t.Skip("set KURA_LONG=1 to run the 1M-item backfill test")
	}
	n := 1_000_000
	if s := os.Getenv("KURA_LONG_ITEMS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		n = v
	}
	var store storage.Store
	backend := os.Getenv("KURA_LONG_BACKEND")
	if backend == "memory" {
		store = memory.New()
	} else {
		backend = "pebble"
		st, err := pebble.Open(t.TempDir(), pebble.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		store = st
	}
	e, err := Open(store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	dpTable(t, e, "big", "pk:S")

	// Load: 25-item batches from two goroutines. Every item but one in ten
	// carries the future GSI key g (1000 distinct values).
	start := time.Now()
	const loaders = 2
	var wg sync.WaitGroup
	for w := 0; w < loaders; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var reqs []wire.WriteRequest
			for i := w; i < n; i += loaders {
				reqs = append(reqs, wire.WriteRequest{PutRequest: &wire.PutRequest{Item: longItem(i, 0)}})
				if len(reqs) == batch.MaxWrites || i+loaders >= n {
					if _, err := e.BatchWriteItem(dpCtx, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"big": reqs}}); err != nil {
						t.Error(err)
						return
					}
					reqs = nil
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	load := time.Since(start)
	t.Logf("backend %s: loaded %d items in %v (%.0f items/s)", backend, n, load.Round(time.Millisecond), float64(n)/load.Seconds())

	var gen atomic.Int64 // version written by the foreground writers
	baseline := runForeground(e, n, &gen, func(stop <-chan struct{}) { time.Sleep(5 * time.Second) })
	t.Logf("before backfill: %s", baseline)

	var backfill time.Duration
	during := runForeground(e, n, &gen, func(stop <-chan struct{}) {
		start := time.Now()
		addGSI(t, e, "big", "G", "g")
		waitBackfill(t, e, "big", "G", 30*time.Minute)
		backfill = time.Since(start)
	})
	if t.Failed() {
		return
	}
	t.Logf("backfill of %d items: %v (%.0f items/s)", n, backfill.Round(time.Millisecond), float64(n)/backfill.Seconds())
	t.Logf("during backfill: %s", during)
	if during.gets == 0 || during.puts == 0 {
		t.Fatal("no foreground operation completed during the backfill")
	}

	// The index equals what a table scan says it must hold.
	want := map[string]string{}
	longScan(t, e, &wire.ScanInput{TableName: dpStr("big")}, func(it attr.Item) {
		if g, ok := it["g"]; ok {
			want[it["pk"].Str] = g.Str
		}
	})
	got := map[string]string{}
	longScan(t, e, &wire.ScanInput{TableName: dpStr("big"), IndexName: dpStr("G")}, func(it attr.Item) {
		pk := it["pk"].Str
		if _, dup := got[pk]; dup {
			t.Errorf("item %s indexed twice", pk)
		}
		got[pk] = it["g"].Str
	})
	if len(got) != len(want) {
		t.Errorf("index holds %d entries, table scan says %d", len(got), len(want))
	}
	bad := 0
	for pk, g := range want {
		if got[pk] != g {
			if bad++; bad <= 5 {
				t.Errorf("item %s: index has g=%q, table g=%q", pk, got[pk], g)
			}
		}
	}
	if st := describeIndexStats(t, e, "big")["G"]; st[0] != int64(len(want)) {
		t.Errorf("index ItemCount %d, want %d", st[0], len(want))
	}
	t.Logf("index verified: %d entries (%d items rewritten by foreground writers)", len(got), gen.Load())
}

// longItem is item i at version v: pk, the GSI key g for nine items in
// ten, and a small payload.
func longItem(i int, v int64) attr.Item {
	it := attr.Item{"pk": dpS(fmt.Sprintf("p%07d", i)), "v": dpN(strconv.FormatInt(v, 10)), "pad": dpS("0123456789abcdef")}
	if i%10 != 0 {
		it["g"] = dpS(fmt.Sprintf("g%03d", (int64(i)+v)%1000))
	}
	return it
}

// fgStats are the foreground latencies of one phase.
type fgStats struct {
	gets, puts     int
	get, put       []time.Duration
	elapsed        time.Duration
	getErr, putErr int
}

func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

func (s fgStats) String() string {
	return fmt.Sprintf("%.1fs, GetItem n=%d p50=%v p99=%v max=%v, PutItem n=%d p50=%v p99=%v max=%v, errors %d/%d",
		s.elapsed.Seconds(), s.gets, pct(s.get, .5), pct(s.get, .99), pct(s.get, 1),
		s.puts, pct(s.put, .5), pct(s.put, .99), pct(s.put, 1), s.getErr, s.putErr)
}

// runForeground runs two GetItem and two PutItem goroutines, each pausing
// 1 ms between operations, for as long as phase runs.
func runForeground(e *Engine, n int, gen *atomic.Int64, phase func(stop <-chan struct{})) fgStats {
	stop := make(chan struct{})
	var mu sync.Mutex
	var s fgStats
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(w) + time.Now().UnixNano()))
			var lat []time.Duration
			errs := 0
			for {
				select {
				case <-stop:
					mu.Lock()
					if w%2 == 0 {
						s.get = append(s.get, lat...)
						s.getErr += errs
					} else {
						s.put = append(s.put, lat...)
						s.putErr += errs
					}
					mu.Unlock()
					return
				default:
				}
				i := r.Intn(n)
				t0 := time.Now()
				var err error
				if w%2 == 0 {
					_, err = e.GetItem(dpCtx, &wire.GetItemInput{TableName: dpStr("big"), Key: attr.Item{"pk": dpS(fmt.Sprintf("p%07d", i))}})
				} else {
					_, err = e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("big"), Item: longItem(i, gen.Add(1))})
				}
				lat = append(lat, time.Since(t0))
				if err != nil {
					errs++
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	start := time.Now()
	phase(stop)
	s.elapsed = time.Since(start)
	close(stop)
	wg.Wait()
	slices.Sort(s.get)
	slices.Sort(s.put)
	s.gets, s.puts = len(s.get), len(s.put)
	return s
}

// longScan pages through a Scan, calling f with every item.
func longScan(t *testing.T, e *Engine, in *wire.ScanInput, f func(attr.Item)) {
	t.Helper()
	for {
		out, err := e.Scan(dpCtx, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			f(it)
		}
		if out.LastEvaluatedKey == nil {
			return
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}
