package engine

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// Helpers for the engine's tests that need a vector index (the vector
// indexes' own tests are package vectors').

const vsDims = 6

// vsCreate creates table "v" with vector index "vix" over "emb".
func vsCreate(t testing.TB, e *Engine) {
	t.Helper()
	_, err := e.CreateTable(dpCtx, &wire.CreateTableInput{
		TableName:            dpStr("v"),
		BillingMode:          BillingPayPerRequest,
		AttributeDefinitions: ixDefs("pk", "S"),
		KeySchema:            ixKS("pk", "HASH"),
		VectorIndexes: []wire.VectorIndex{{IndexName: dpStr("vix"), VectorAttribute: &wire.VectorAttributeDefinition{AttributeName: dpStr("emb")},
			Dimensions: cpPtr(int64(vsDims)), DistanceFunction: "EUCLIDEAN", Projection: &wire.Projection{ProjectionType: ProjectKeysOnly}}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// vsWrite puts item k with a fresh random vector, or deletes it.
func vsWrite(t testing.TB, e *Engine, r *rand.Rand, k int, del bool) {
	t.Helper()
	key := fmt.Sprintf("k%04d", k)
	if del {
		if _, err := e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("v"), Key: attr.Item{"pk": dpS(key)}}); err != nil {
			t.Error(err)
		}
		return
	}
	list := make([]attr.Value, vsDims)
	for i := range list {
		list[i] = dpN(strconv.FormatFloat(float64(float32(r.NormFloat64())), 'g', -1, 32))
	}
	if _, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("v"), Item: attr.Item{"pk": dpS(key), "emb": {T: attr.L, List: list}}}); err != nil {
		t.Error(err)
	}
}

// vsAgrees checks that index "vix" holds exactly table "v"'s vectors.
func vsAgrees(t *testing.T, e *Engine) {
	t.Helper()
	tb, ok := e.lookupTable("v")
	if !ok {
		t.Fatal("no table v")
	}
	if err := e.vec.Verify(tb, "vix"); err != nil {
		t.Fatal(err)
	}
}
