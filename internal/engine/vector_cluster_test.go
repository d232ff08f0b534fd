package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// Vector indexes on several nodes (package vectors' follow.go): the nodes
// of forEachCluster (memory and, with KURA_TEST_POSTGRES, PostgreSQL).

// vcLag is the documented bound (docs/running.md) within which a search
// through any node finds a write made through another.
const vcLag = time.Second

// vcVector is item k's vector: distinct, and k's own query finds it first.
func vcVector(k int) []attr.Value {
	r := rand.New(rand.NewPCG(uint64(k), 7))
	list := make([]attr.Value, vsDims)
	for i := range list {
		list[i] = dpN(strconv.FormatFloat(float64(float32(r.NormFloat64()*10)), 'g', -1, 32))
	}
	return list
}

func vcPut(e *Engine, k int) error {
	_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("v"),
		Item: attr.Item{"pk": dpS(fmt.Sprintf("k%04d", k)), "emb": {T: attr.L, List: vcVector(k)}}})
	return err
}

// vcNearest is the key of the nearest item to item k's vector through e.
func vcNearest(t *testing.T, e *Engine, k int) string {
	t.Helper()
	out, err := e.SearchVectors(dpCtx, &wire.SearchVectorsInput{TableName: dpStr("v"), IndexName: dpStr("vix"),
		SearchVector: vcVector(k), TopK: cpPtr(int32(1))})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.SearchResults) == 0 {
		return ""
	}
	return out.SearchResults[0].Item["pk"].Str
}

// vcFound waits (at most vcLag plus a margin for a loaded machine) until a
// search through e finds item k, and reports how long it took.
func vcFound(t *testing.T, e *Engine, k int) time.Duration {
	t.Helper()
	start := time.Now()
	want := fmt.Sprintf("k%04d", k)
	for vcNearest(t, e, k) != want {
		if time.Since(start) > 5*vcLag {
			t.Fatalf("item %s written through another node not found after %v", want, time.Since(start))
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

// vcAgree waits until every node's graph holds exactly the table's vectors.
func vcAgree(t *testing.T, nodes []*Engine) {
	t.Helper()
	deadline := time.Now().Add(10 * vcLag)
	for i, e := range nodes {
		for {
			err := e.vec.Verify(vcTable(t, e, "v"), "vix")
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %d: %v", i, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func vcTable(t *testing.T, e *Engine, name string) *Table {
	t.Helper()
	tb, ok := e.lookupTable(name)
	if !ok {
		t.Fatalf("no table %s", name)
	}
	return tb
}

// TestClusterVectorsFollow: items written through one node are found by
// SearchVectors through the others within the documented lag, and after
// concurrent puts and deletes through every node each node's graph holds
// exactly the table's vectors. Seen failing with the follower's loop left
// out (clusterLoop not started): node b never found a's item.
func TestClusterVectorsFollow(t *testing.T) {
	forEachCluster(t, 3, func(t *testing.T, nodes []*Engine) {
		vsCreate(t, nodes[0])
		var worst time.Duration
		for k := range 6 {
			from, to := nodes[k%3], nodes[(k+1)%3]
			if err := vcPut(from, k); err != nil {
				t.Fatal(err)
			}
			worst = max(worst, vcFound(t, to, k))
		}
		t.Logf("worst lag of a write through one node seen through another: %v", worst)
		if worst > vcLag*3/2 {
			t.Errorf("a write was found only after %v, the documented bound is %v", worst, vcLag)
		}
		run(t, 6, func(w int) error {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range 40 {
				k := 10 + r.IntN(60)
				e := anyNode(nodes)
				if r.IntN(4) == 0 {
					if _, err := e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("v"), Key: attr.Item{"pk": dpS(fmt.Sprintf("k%04d", k))}}); err != nil {
						return err
					}
					continue
				}
				if err := vcPut(e, k); err != nil {
					return err
				}
			}
			return nil
		})
		vcAgree(t, nodes)
	})
}

// TestClusterVectorsRestart: a node that restarts (or a new one that joins)
// rebuilds its graph from the store and then follows the others; nothing
// written through any node, before or after, is missing anywhere.
func TestClusterVectorsRestart(t *testing.T) {
	for name, open := range clusterBackends(t) {
		t.Run(name, func(t *testing.T) {
			stores := open(t, 3)
			nodes := make([]*Engine, 3)
			for i := range nodes {
				nodes[i] = vcOpen(t, stores[i])
			}
			vsCreate(t, nodes[0])
			for k := range 30 {
				if err := vcPut(nodes[k%3], k); err != nil {
					t.Fatal(err)
				}
			}
			// Node 2 stops at once after its last writes (its epochs are
			// closed at Close) and comes back.
			if err := nodes[2].Close(); err != nil {
				t.Fatal(err)
			}
			for k := 30; k < 40; k++ {
				if err := vcPut(nodes[k%2], k); err != nil {
					t.Fatal(err)
				}
			}
			nodes[2] = vcOpen(t, stores[2])
			for k := 40; k < 50; k++ {
				if err := vcPut(nodes[2], k); err != nil {
					t.Fatal(err)
				}
			}
			vcAgree(t, nodes)
			// Every node's graph holds exactly the table's vectors (each
			// found by its own vector in an exact search: vcAgree); the
			// graph search is approximate, and an insertion order (the
			// followers' differ from run to run) can leave a point no
			// neighbour list keeps, so one miss in 50 is allowed (CI's
			// loaded run saw one; 160 runs here saw none).
			var missed []string
			for k := range 50 {
				if got, want := vcNearest(t, nodes[k%3], k), fmt.Sprintf("k%04d", k); got != want {
					missed = append(missed, fmt.Sprintf("node %d finds %q nearest to item %s's vector", k%3, got, want))
				}
			}
			if len(missed) > 1 {
				t.Fatalf("%d of 50 searches missed: %v", len(missed), missed)
			}
		})
	}
}

func vcOpen(t *testing.T, s storage.Store) *Engine {
	t.Helper()
	e, err := Open(s, Config{Cluster: true, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestClusterVectorsRecall: once the nodes have followed each other, the
// answers of a search are as good through every node as through a single
// server holding the same items (recall@10 against the exact neighbours).
func TestClusterVectorsRecall(t *testing.T) {
	forEachCluster(t, 3, func(t *testing.T, nodes []*Engine) {
		single, err := Open(memory.New(), Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer single.Close()
		vsCreate(t, nodes[0])
		vsCreate(t, single)
		const n = 400
		var wg sync.WaitGroup
		errs := make(chan error, 3)
		for w := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := w; k < n; k += 3 {
					if err := vcPut(nodes[w], k); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		for k := range n {
			if err := vcPut(single, k); err != nil {
				t.Fatal(err)
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		vcAgree(t, nodes)
		queries := make([][]attr.Value, 20)
		for i := range queries {
			queries[i] = vcVector(10000 + i)
		}
		base := vcRecall(t, single, queries, n)
		for i, e := range nodes {
			if got := vcRecall(t, e, queries, n); got < base-0.02 {
				t.Errorf("node %d: recall@10 %.3f, a single server's %.3f", i, got, base)
			}
		}
	})
}

// vcRecall is the mean recall@10 of queries through e against the exact
// neighbours among items 0..n-1.
func vcRecall(t *testing.T, e *Engine, queries [][]attr.Value, n int) float64 {
	t.Helper()
	total := 0.0
	for _, q := range queries {
		type hit struct {
			k string
			d float64
		}
		exact := make([]hit, n)
		for k := range n {
			v := vcVector(k)
			d := 0.0
			for i := range v {
				a, _ := strconv.ParseFloat(v[i].Str, 32)
				b, _ := strconv.ParseFloat(q[i].Str, 32)
				d += (a - b) * (a - b)
			}
			exact[k] = hit{fmt.Sprintf("k%04d", k), d}
		}
		slices.SortFunc(exact, func(a, b hit) int {
			switch {
			case a.d < b.d:
				return -1
			case a.d > b.d:
				return 1
			}
			return 0
		})
		out, err := e.SearchVectors(dpCtx, &wire.SearchVectorsInput{TableName: dpStr("v"), IndexName: dpStr("vix"),
			SearchVector: q, TopK: cpPtr(int32(10))})
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, r := range out.SearchResults {
			if slices.ContainsFunc(exact[:10], func(h hit) bool { return h.k == r.Item["pk"].Str }) {
				found++
			}
		}
		total += float64(found) / 10
	}
	return total / float64(len(queries))
}

// TestClusterVectorsBackfill: a vector index added through one node while
// the others write is backfilled once (by the lease holder), becomes
// ACTIVE on every node, and each node's copy holds every item.
func TestClusterVectorsBackfill(t *testing.T) {
	forEachCluster(t, 3, func(t *testing.T, nodes []*Engine) {
		dpTable(t, nodes[0], "v", "pk:S")
		for k := range 30 {
			if err := vcPut(nodes[k%3], k); err != nil {
				t.Fatal(err)
			}
		}
		_, err := nodes[1].UpdateTable(dpCtx, &wire.UpdateTableInput{TableName: dpStr("v"), BillingMode: BillingPayPerRequest,
			AttributeDefinitions: ixDefs("pk", "S"),
			VectorIndexUpdates: []wire.VectorIndexUpdate{{Create: &wire.CreateVectorIndexAction{IndexName: dpStr("vix"),
				VectorAttribute: &wire.VectorAttributeDefinition{AttributeName: dpStr("emb")}, Dimensions: cpPtr(int64(vsDims)),
				DistanceFunction: "EUCLIDEAN", Projection: &wire.Projection{ProjectionType: ProjectKeysOnly}}}}})
		if err != nil {
			t.Fatal(err)
		}
		for k := 30; k < 45; k++ {
			if err := vcPut(nodes[k%3], k); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for i, e := range nodes {
			for {
				tb, ok := e.lookupTable("v")
				if vx, found := tb.VectorIndex("vix"); ok && found && vx.Ready() {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("node %d: the index never became ACTIVE", i)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		vcAgree(t, nodes)
	})
}
