package test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Vector indexes on three `kura --cluster` nodes (docs/running.md "Several
// nodes"): each node's copy of the index follows the others' writes.

// vcFoundWithin waits until a search through c finds item pk by vector v
// first, failing after d.
func vcFoundWithin(t *testing.T, c *dynamodb.Client, table, index, pk string, v []float64, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		out, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String(index),
			SearchVector: searchVec(v), TopK: aws.Int32(1)})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.SearchResults) == 1 && out.SearchResults[0].Item["pk"].(*types.AttributeValueMemberS).Value == pk {
			return time.Since(start)
		}
		if time.Since(start) > d {
			t.Fatalf("item %s not found through this node after %v: %+v", pk, d, out.SearchResults)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// argOf is the value k was started with for flag.
func argOf(k *kura, flag string) string {
	for i, a := range k.args {
		if a == flag && i+1 < len(k.args) {
			return k.args[i+1]
		}
	}
	return ""
}

// TestClusterVectors: items written through any node are found by
// SearchVectors through every other within the documented second; a
// vector index added through one node is backfilled once and serves on
// all; with a node SIGKILLed under writes, every acknowledged item is
// found through the survivors and through a node started afterwards.
// Seen failing before this work: cluster mode refused vector indexes
// ("Vector indexes is not supported by Kura nodes in cluster mode").
func TestClusterVectors(t *testing.T) {
	c := startNodes(t, 3)
	table := createVectorTable(t, c.clients[0], false, nil, vecIndex("vix", "emb", 8, types.VectorDistanceFunctionEuclidean, types.ProjectionTypeKeysOnly))
	waitVectorActive(t, c.clients[1], table, "vix")
	r := rand.New(rand.NewPCG(28, 28))
	vecs := map[string][]float64{}

	t.Run("follow", func(t *testing.T) {
		var worst time.Duration
		for i := range 9 {
			pk := fmt.Sprintf("f%d", i)
			v := randVec(r, 8)
			vecs[pk] = v
			if _, err := c.clients[i%3].PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
				Item: map[string]types.AttributeValue{"pk": S(pk), "emb": vecAV(v)}}); err != nil {
				t.Fatal(err)
			}
			worst = max(worst, vcFoundWithin(t, c.clients[(i+1)%3], table, "vix", pk, v, 5*time.Second))
		}
		t.Logf("worst lag seen through another node: %v", worst)
		if worst > 1500*time.Millisecond {
			t.Errorf("a write was found through another node only after %v (documented: 1 s)", worst)
		}
	})

	t.Run("backfill", func(t *testing.T) {
		if _, err := c.clients[1].UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			VectorIndexUpdates: []types.VectorIndexUpdate{{Create: &types.CreateVectorIndexAction{
				IndexName: aws.String("late"), VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("emb")}, Dimensions: aws.Int64(8),
				DistanceFunction: types.VectorDistanceFunctionEuclidean, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}}); err != nil {
			t.Fatal(err)
		}
		// Writes through every node while the index fills.
		for i := range 6 {
			pk := fmt.Sprintf("b%d", i)
			v := randVec(r, 8)
			vecs[pk] = v
			if _, err := c.rr().PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
				Item: map[string]types.AttributeValue{"pk": S(pk), "emb": vecAV(v)}}); err != nil {
				t.Fatal(err)
			}
		}
		waitVectorActive(t, c.clients[2], table, "late")
		for i, cl := range c.clients {
			for pk, v := range vecs {
				vcFoundWithin(t, cl, table, "late", pk, v, 3*time.Second)
			}
			// Each node's count is its copy's: "late" was just searched, while
			// its copy of vix may still be following the last writes
			// (within the documented second; more on a loaded machine).
			var counts string
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				d, err := cl.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
				if err != nil {
					t.Fatal(err)
				}
				counts = ""
				for _, vx := range d.Table.VectorIndexes {
					if n := aws.ToInt64(vx.ItemCount); n != int64(len(vecs)) {
						counts += fmt.Sprintf(" %s %d", aws.ToString(vx.IndexName), n)
					}
				}
				if counts == "" || time.Now().After(deadline) {
					break
				}
			}
			if counts != "" {
				t.Errorf("node %d: ItemCount of%s, want %d", i, counts, len(vecs))
			}
		}
	})

	t.Run("killed", func(t *testing.T) {
		var mu sync.Mutex
		acked := map[string][]float64{}
		var puts atomic.Int64
		var killed atomic.Bool
		parallel(t, 3, func(w int) error {
			rw := rand.New(rand.NewPCG(uint64(w), 99))
			node := w
			for i := range 30 {
				pk := "k" + strconv.Itoa(w) + "-" + strconv.Itoa(i)
				v := randVec(rw, 8)
				for attempt := 0; ; attempt++ {
					if puts.Add(1) == 40 && killed.CompareAndSwap(false, true) {
						c.nodes[2].kill()
					}
					_, err := c.clients[node%3].PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
						Item: map[string]types.AttributeValue{"pk": S(pk), "emb": vecAV(v)}})
					node++
					if err == nil {
						mu.Lock()
						acked[pk] = v
						mu.Unlock()
						break
					}
					if attempt == 5 {
						return fmt.Errorf("put %s failed on every node: %v", pk, err)
					}
				}
			}
			return nil
		})
		if !killed.Load() {
			t.Fatal("the node was never killed")
		}
		late := startKura(t, "--cluster", "--postgres", os.Getenv("KURA_TEST_POSTGRES"), "--postgres-namespace", argOf(c.nodes[0], "--postgres-namespace"))
		survivors := []*dynamodb.Client{c.clients[0], c.clients[1], late.client()}
		for pk, v := range acked {
			for _, cl := range survivors {
				// The dead node's last epochs are closed by a survivor 2 s
				// after they should have been.
				vcFoundWithin(t, cl, table, "vix", pk, v, 8*time.Second)
			}
		}
		if len(acked) != 90 {
			t.Fatalf("%d puts acknowledged, want 90", len(acked))
		}
	})
}
